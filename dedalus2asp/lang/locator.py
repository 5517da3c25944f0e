"""The rewrite of one located rule (tr2009 §6.2–6.4, Molly's dialect) into the location-transparent IR, given every
relation's location column: `Locator`, which `located.locate` runs on each rule (the module docstring of `located`
says what the rewrite is: the rule's location, the node's identity, messages, global and lock-step rules)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Mapping

from .ast import Aggregate, Atom, Constant, Literal, Rule, RuleKind, Term, Variable
from .diagnostics import Severity
from .location import unmarked_term
from .molly import lockstep_warning


def _drop(atom: Atom, column: int) -> Atom:
    return replace(atom, args=atom.args[:column] + atom.args[column + 1 :])


def _variables(rule: Rule) -> set[str]:
    return {v.name for v in rule.variables() if not v.anonymous}


@dataclass(frozen=True)
class Locator:
    """The rewrite of located rules into the IR, given every relation's location column.

    `identity` names the relation that tells a node its own name (`id`,
    unless the program uses that name); `error(code, message, span)` reports.
    """

    columns: Mapping[str, int]
    identity: str
    error: Callable[..., None]
    held_by_none: frozenset[str] = frozenset()
    lockstep: frozenset[str] = frozenset()
    """The relations Molly's lock-step rules write (`molly.lockstep_relations`): located, whatever their rules read."""

    def column(self, predicate: str) -> int:
        """The location column of `predicate`: the argument marked `#`, else the first."""
        return self.columns.get(predicate, 0)

    def location(self, atom: Atom) -> Term | None:
        """The location term of `atom` (its argument in the location column), or None if it has none (reported)."""
        k = self.column(atom.predicate)
        if atom.arity > k:
            return unmarked_term(atom.args[k])
        example = ", ".join(["#L", *map(str, atom.args)]) if k == 0 else None
        self.error(
            "missing-location",
            f"'{atom}' has no location column: in a located program (tr2009 §6.2) "
            + (
                f"every atom's first argument names the node that holds it (write {atom.predicate}({example}))"
                if example is not None
                else f"'{atom.predicate}' has its location specifier in argument {k + 1}"
            ),
            atom.span,
        )
        return None

    def rule(self, rule: Rule, plain: Rule, step: int | None, head_at: Term | None) -> Rule | None:
        """The IR of the located rule `rule` (`plain` without its marks, `head_at` its head's location), or None.

        The rule runs at the location ℓ its body atoms share
        (`shared_location`); its head is placed (`placed`), every location
        column is dropped (`dropped`), and a rule that uses ℓ as a value is
        tied to the node's identity (`at_node`). A rule that cannot be read
        so is reported and gives None.
        """
        if step is not None:
            self.error(
                "event-rule",
                f"'@{step}' may only follow a fact: '{plain.head}@{step}' is an input event at step {step} "
                "(a rule's head is written @next or @async)",
                rule.head.span,
            )
            return None
        if not any(isinstance(b, Literal) for b in plain.body):
            self.error(
                "location",
                f"rule {rule.number} has no body atom, so it runs at no node: in a located program a rule runs at "
                "the location of its body atoms (tr2009 §6.2)",
                rule.span,
            )
            return None
        places = [(b.atom, self.location(b.atom)) for b in rule.body
                  if isinstance(b, Literal) and b.atom.predicate not in self.held_by_none]  # as written, with '#'
        if any(at is None for _, at in places) or head_at is None:
            return None
        if not places:  # it reads global relations only (an error of `check`): it runs nowhere
            return replace(plain, kind=rule.kind, addressee=head_at if rule.kind is RuleKind.ASYNC else None)
        at = self.shared_location(rule, places)
        placed = None if at is None else self.placed(rule, plain, head_at, at)
        return None if placed is None else self.at_node(self.dropped(placed), at)

    def global_rule(self, rule: Rule, plain: Rule, step: int | None) -> Rule | None:
        """The IR of a global rule (`global_relations`): its head keeps every argument (a global relation
        has no location column), and every body atom of a located relation has its location first:
        `pre(X, P) :- log(P, X), notin bcast(P, X)@1;` reads log(P, X) and bcast(P, X) of every node P."""
        if step is not None:
            self.error("event-rule", f"'@{step}' may only follow a fact: '{plain.head}' is derived by a rule",
                       rule.head.span)
            return None
        body = tuple(
            replace(b, atom=self.location_first(b.atom)) if isinstance(b, Literal) else b for b in plain.body
        )
        return replace(plain, kind=RuleKind.GLOBAL, body=body)

    def lockstep_rule(self, rule: Rule, plain: Rule, step: int | None) -> Rule | None:
        """The IR of a lock-step rule (`molly.lockstep_relations`), with a warning: every atom, the head's too,
        keeps its location first, `ja(L, S, I) :- next(S, I), j_buf(S, L, I).` as written; the rule reads
        each body atom at its node and writes the head at its node, at one step (`RuleKind.LOCKSTEP`)."""
        if step is not None:
            self.error("event-rule", f"'@{step}' may only follow a fact: '{plain.head}' is derived by a rule",
                       rule.head.span)
            return None
        read = next((b for b in plain.body if isinstance(b, Literal) and b.atom.predicate in self.held_by_none), None)
        if read is not None:
            self.error("global-read",
                       f"rule {rule.number} writes '{plain.head.predicate}' at another node than its body's (a "
                       f"lock-step rule) and reads '{read.atom.predicate}', a global relation (derived by a rule "
                       "whose body reads several nodes, like an assertion): nothing a node holds may depend on it",
                       read.atom.span)
            return None
        if isinstance(plain.head.args[0], Aggregate):
            self.error("lockstep-aggregate",
                       f"rule {rule.number} writes '{plain.head.predicate}' at the node its first column names, but "
                       f"that column is an aggregate, '{plain.head.args[0]}': a fact is held at a node, not at a "
                       "value computed over several; aggregate another column",
                       plain.head.args[0].span)
            return None
        self.error("lockstep", lockstep_warning(plain, self.columns), plain.span, Severity.WARNING)
        body = tuple(replace(b, atom=self.location_first(b.atom)) if isinstance(b, Literal) else b for b in plain.body)
        return replace(plain, kind=RuleKind.LOCKSTEP, head=self.location_first(plain.head), body=body)

    def location_first(self, atom: Atom) -> Atom:
        """A located relation's atom with its location column first (a global relation's as it is)."""
        k = self.column(atom.predicate)
        if atom.predicate in self.held_by_none or k == 0 or atom.arity <= k:
            if atom.predicate not in self.held_by_none and atom.arity <= k:
                self.location(atom)  # reports the missing location column
            return atom
        return replace(atom, args=(atom.args[k], *atom.args[:k], *atom.args[k + 1:]))

    def shared_location(self, rule: Rule, places: list[tuple[Atom, Term]]) -> Term | None:
        """ℓ: the location all the body atoms of `rule` share, or None (reported) if they do not.

        tr2009 §6.2: "the body contains tuples from exactly one partition", so
        `p(#L, X) :- q(#L, X), r(#M, X).` is an error.
        """
        first_atom, at = places[0]
        mixed = [(a, t) for a, t in places if t != at]
        if not mixed:
            return at
        other, elsewhere = mixed[0]
        self.error(
            "mixed-location",
            f"rule {rule.number} reads '{first_atom}' at '{at}' but '{other}' at '{elsewhere}': every body atom "
            "of a located rule must be at the same node (tr2009 §6.2); send one of them to the other node "
            "with an @async rule first",
            other.span,
        )
        return None

    def placed(self, rule: Rule, plain: Rule, head_at: Term, at: Term) -> Rule | None:
        """`plain` with its head placed, or None (reported) if the head is at the wrong node.

        The location M of an @async head is the addressee (tr2009 §6.4):
        `p(#M, X)@async :- q(#L, X), peer(#L, M).` sends to M, and M must be a
        variable bound in the body (`@async(M)` may be written only if it
        names M). A deductive or @next head keeps the body's location ℓ
        (tr2009 §6.2).
        """
        if rule.kind is not RuleKind.ASYNC:
            if head_at == at:
                return plain
            kind = "@next" if rule.kind is RuleKind.INDUCTIVE else "deductive"
            self.error(
                "mixed-location",
                f"the head '{rule.head}' of {kind} rule {rule.number} is at '{head_at}' but its body at '{at}': "
                "a deductive or @next rule keeps its location (tr2009 §6.2); to send the fact to "
                f"'{head_at}' write {rule.head}@async",
                plain.head.span,
            )
        elif rule.addressee is not None and rule.addressee != head_at:
            self.error(
                "location",
                f"the head '{plain.head}' of rule {rule.number} is at '{head_at}' but @async names '{rule.addressee}': "
                f"in a located program the head's location is the addressee (write @async alone)",
                rule.addressee.span,
            )
        elif not isinstance(head_at, Variable):
            self.error(
                "location",
                f"the addressee '{head_at}' of rule {rule.number} is a constant: tplp2016 sends to a node "
                f"bound in the body (e.g. peer(#L, Y) and {plain.head.predicate}(#Y, ...)@async)",
                plain.head.span,
            )
        else:
            return replace(plain, addressee=head_at)
        return None

    def dropped(self, rule: Rule) -> Rule:
        """`rule` without its location columns: `p(L, X) :- q(L, X), not r(L, X).` becomes
        `p(X) :- q(X), not r(X).` (tr2009 §6.2). A global relation has none (reading one is an error of
        `check`)."""
        return replace(
            rule,
            head=_drop(rule.head, self.column(rule.head.predicate)),
            body=tuple(
                replace(b, atom=_drop(b.atom, self.column(b.atom.predicate)))
                if isinstance(b, Literal) and b.atom.predicate not in self.held_by_none else b
                for b in rule.body
            ),
        )

    def at_node(self, ir: Rule, at: Term) -> Rule:
        """The IR `ir` of a rule that runs at ℓ = `at`, tied to the node's identity if it needs it.

        A rule that uses ℓ as a value (in the head, as the addressee, in a
        comparison or a body argument) or runs at a constant node gets the body
        atom `id(ℓ)`: `ack(#S, Me)@async :- msg(#Me, S).` becomes
        `ack(Me)@async(S) :- msg(S), id(Me).` Otherwise a located
        `persist[p, k]` is renamed `persist[p, k-1]` (`_persist`).
        """
        if isinstance(at, Constant) or at.name in _variables(ir):
            guard = Literal(Atom(self.identity, (at,), at.span), False, at.span)
            return replace(ir, body=ir.body + (guard,))
        if ir.origin and ir.origin.startswith("persist["):
            return _persist(ir)
        return ir


def _persist(rule: Rule) -> Rule:
    """The IR of a located `persist[p, (del_p,) k]` is `persist[p, (del_p,) k-1]`, with the same variables A, B, ..."""
    names = {a.name: Variable(chr(ord("A") + i) if rule.head.arity <= 26 else f"A{i + 1}", a.span)
             for i, a in enumerate(rule.head.args)}
    atom = lambda x: replace(x, args=tuple(names[a.name] for a in x.args))  # noqa: E731
    body = tuple(replace(b, atom=atom(b.atom)) for b in rule.body)
    *macro, arity = rule.origin[len("persist["):-1].split(", ")
    return replace(rule, head=atom(rule.head), body=body, origin=f"persist[{', '.join([*macro, str(int(arity) - 1)])}]")
