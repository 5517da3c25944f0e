"""What the templates see: Dedalus rules and message relations prepared for writing, and the writers.

`rule_view` maps a rule's variables to clingo variables and picks the paper's new variables
x, s, t fresh (names.fresh); `term`, `lt`, `body` and `cand` write terms, atom^{x,s}, B^{x,s}
and cand_R(x,s,y,t,u) (tplp2016 §4.2, §4.3.1) for the one-shot templates (rules.lp.j2) and the
multi-shot one (incremental.lp.j2) alike. `MessageView` is a relation R sent by asynchronous
rules, as the message templates write it. `environment` loads the templates of
`dedalus2asp.templates` with these writers as globals.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import jinja2

from ..lang.ast import Atom, Literal, Program, Rule, RuleKind, Term, Variable
from .names import CLINGO_VARIABLE, fresh, in_comment, message_relation, relation_name


@dataclass(frozen=True)
class RuleView:
    """One Dedalus rule prepared for `rules.lp.j2`."""

    rule: Rule
    variables: dict[str, str]  # user variable -> clingo variable
    x: str
    s: str
    t: str

    @property
    def number(self) -> int:
        return self.rule.number

    @property
    def origin(self) -> str | None:
        return None if self.rule.origin is None else in_comment(self.rule.origin)

    @property
    def source(self) -> str:
        return in_comment(str(self.rule))

    @property
    def kind(self) -> str:
        return {RuleKind.DEDUCTIVE: "deductive", RuleKind.INDUCTIVE: "inductive", RuleKind.ASYNC: "async"}[
            self.rule.kind
        ]

    @property
    def head(self) -> Atom:
        return self.rule.head

    @property
    def positive(self) -> bool:
        return bool(self.rule.positive)

    @property
    def y(self) -> str:
        return self.variables[self.rule.addressee.name]


def rule_view(rule: Rule) -> RuleView:
    """Map the rule's variables to clingo variables and pick fresh x, s, t."""
    mapping: dict[str, str] = {}
    taken: set[str] = set()
    for var in rule.variables():
        if var.anonymous or var.name in mapping:
            continue
        clingo_name = var.name if CLINGO_VARIABLE.match(var.name) else "V" + var.name
        mapping[var.name] = fresh(clingo_name, taken)
    return RuleView(rule, mapping, fresh("X", taken), fresh("S", taken), fresh("T", taken))


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
            and body.atom.predicate == head.predicate
            and len(names) == head.arity == len(set(names))
            and [str(a) for a in body.atom.args] == names
        ):
            found.add(head.predicate)
    return found


def term(item: Term, view: RuleView) -> str:
    """A user term as clingo writes it: a variable renamed by `view`, `_` for an anonymous one, a constant as is."""
    if isinstance(item, Variable):
        return "_" if item.anonymous else view.variables[item.name]
    return str(item.value)


def lt(atom: Atom, view: RuleView, x: str, s: str) -> str:
    """atom^{x,s}: the atom with location specifier x and timestamp s prepended (tplp2016 §4.2)."""
    args = [x, s] + [term(a, view) for a in atom.args]
    return f"{relation_name(atom.predicate)}({','.join(args)})"


def body(view: RuleView) -> str:
    """B^{x,s}: the body with location and timestamp added to every atom; comparisons unchanged."""
    parts = []
    for item in view.rule.body:
        if isinstance(item, Literal):
            parts.append(("not " if item.negated else "") + lt(item.atom, view, view.x, view.s))
        else:
            parts.append(f"{term(item.left, view)} {item.op} {term(item.right, view)}")
    return ", ".join(parts)


def cand(view: RuleView, arrival: bool = True) -> str:
    """cand_R(x,s,y,t,u) of rules (3) and (9); without t, the fast encoding's cand_R(x,s,y,u)."""
    args = [view.x, view.s, view.y, *([view.t] if arrival else [])] + [term(a, view) for a in view.head.args]
    return f"{message_relation('cand', view.head.predicate)}({','.join(args)})"


@lru_cache(maxsize=None)
def environment() -> jinja2.Environment:
    """The Jinja environment of `templates/*.j2`, with `body`, `cand` and `lt(view, atom, x, s)` as globals."""

    def load(name: str) -> str:
        return resources.files("dedalus2asp.templates").joinpath(name).read_text(encoding="utf-8")

    env = jinja2.Environment(
        loader=jinja2.FunctionLoader(load),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.globals.update(body=body, cand=cand, lt=lambda view, atom, x, s: lt(atom, view, x, s))
    return env
