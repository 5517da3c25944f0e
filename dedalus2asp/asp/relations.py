"""What the templates see of a whole relation, beside the rules (`views`): `MessageView`, a relation R sent by
asynchronous rules, as the message templates write it (cand_R, chosen_R, other_R, and a lasso's _fam_R and
_came_R); `CarriedView`, a relation in the head of an inductive rule, as the lasso template writes what a step
carries into the next (_next_R); `persisted`, the relations with tr2009's simple persistence rule."""

from __future__ import annotations

from dataclasses import dataclass

from ..lang.ast import Literal, Program, RuleKind, Variable
from .names import internal, message_relation, relation_name


@dataclass(frozen=True)
class MessageView:
    """Relation R sent by asynchronous rules, for `messages.lp.j2` and `fast.lp.j2` (variables X, S, Y, T, W1..Wk)."""

    relation: str
    arity: int
    persists: bool = False  # P has the simple persistence rule R(ū)@next :- R(ū). (see `persisted`)

    @property
    def _w(self) -> str:
        return "".join(f",W{i}" for i in range(1, self.arity + 1))

    def _message(self, kind: str, t: str | None) -> str:
        arrival = "" if t is None else f",{t}"
        return f"{message_relation(kind, self.relation)}(X,S,Y{arrival}{self._w})"

    def cand(self, t: str | None = None) -> str:
        """cand_R(X,S,Y,t,W..); without t, the fast encoding's cand_R(X,S,Y,W..): sent, arrival not yet chosen."""
        return self._message("cand", t)

    def chosen(self, t: str) -> str:
        return self._message("chosen", t)

    def other(self, t: str) -> str:
        return self._message("other", t)

    def arrives(self, t: str) -> str:
        """arrives_R(Y,t,W..) of the program at the level of traces (traces.lp.j2): R arrives at step t of Y."""
        return f"{message_relation('arrives', self.relation)}(Y,{t}{self._w})"

    def at(self, t: str) -> str:
        """R(Y,t,W..): R holds at step t of the addressee."""
        return f"{relation_name(self.relation)}(Y,{t}{self._w})"

    @property
    def arrive(self) -> str:
        return self.at("T")

    @property
    def w(self) -> str:
        """`,W1,..,Wk`: the tuple w̄, after the other arguments of a term."""
        return self._w

    def fam(self, t: str) -> str:
        """_fam_R(Y,t,W..) of a lasso (lasso.lp.j2): a message sent in the loop brings R(W..) to loop step t of Y."""
        return f"{internal('fam', relation_name(self.relation))}(Y,{t}{self._w})"

    def came(self, u: str) -> str:
        """_came_R(Y,u,W..) of a lasso (lasso.lp.j2): R(W..) arrives at unrolled step u of Y."""
        return f"{internal('came', relation_name(self.relation))}(Y,{u}{self._w})"


@dataclass(frozen=True)
class CarriedView:
    """Relation R in the head of an inductive rule, for `lasso.lp.j2` (variables X, S, T, W1..Wk): in a
    lasso, the inductive rules derive _next_R(X,S,W..), what step S carries into its successor."""

    relation: str
    arity: int

    @property
    def w(self) -> str:
        return "".join(f",W{i}" for i in range(1, self.arity + 1))

    def next(self, s) -> str:
        return f"{carried_name(self.relation)}(X,{s}{self.w})"

    def atom(self, t: str) -> str:
        return f"{relation_name(self.relation)}(X,{t}{self.w})"

    def given(self, node: str = "X", args: str | None = None) -> str:
        """_given_R(X,W..): R(W..) is an input fact of X, so carrying it changes nothing (the loop-free path program)."""
        return f"{internal('given', relation_name(self.relation))}({node}{self.w if args is None else args})"


def carried_name(relation: str) -> str:
    """`_next_R`: what a step carries into its successor by R's inductive rules (the eventual mode)."""
    return internal("next", relation_name(relation))


def carried_relations(program: Program) -> list[CarriedView]:
    """The relations in the heads of P's inductive rules, each once, in order of appearance."""
    schema = program.schema()
    heads = dict.fromkeys(r.head.predicate for r in program.rules if r.kind is RuleKind.INDUCTIVE)
    return [CarriedView(r, schema[r]) for r in heads]


def persisted(program: Program) -> set[str]:
    """The relations R with a simple persistence rule `R(ū)@next :- R(ū).`, ū distinct variables
    (tr2009 §3.1): every R(w) that holds at a step holds at every later one."""
    found = set()
    for rule in program.rules:
        if rule.kind is not RuleKind.INDUCTIVE or len(rule.body) != 1 or not isinstance(rule.body[0], Literal):
            continue
        head, body = rule.head, rule.body[0]
        names = [a.name for a in head.args if isinstance(a, Variable) and not a.anonymous]
        if (
            not body.negated
            and body.step is None
            and body.atom.predicate == head.predicate
            and len(names) == head.arity == len(set(names))
            and [str(a) for a in body.atom.args] == names
        ):
            found.add(head.predicate)
    return found
