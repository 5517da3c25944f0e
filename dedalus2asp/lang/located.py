"""Located Dedalus (tr2009 §6.2–6.4) and the Molly dialect, read into the location-transparent IR.

tplp2016 writes Dedalus location-transparently: every node runs the same
rules and a fact's node is implicit. tr2009 §6.2 ("horizontal partitioning")
writes it located: one column of every relation is its *location specifier*,
marked `#`, and names the node that holds the fact. Molly writes the same
thing with the location in the first column and no mark. `locate` turns such
a program into the IR of `ast.Program`:

* every relation has one location column: the one marked `#` in some
  occurrence, else the first; it is dropped from every atom;
* every body atom of a rule has the same location term ℓ (tr2009 §6.2: "the
  body contains tuples from exactly one partition"): the rule runs at node ℓ;
* a deductive or `@next` head keeps location ℓ (a "local" rule); an `@async`
  head at location m is a message to node m (tr2009 §6.4: communication rules
  are asynchronous), so `p(#M, X)@async :- q(#L, X), peer(#L, M).` becomes
  `p(X)@async(M) :- q(X), peer(M).`;
* **the node's identity.** A tplp2016 node has no built-in way to know its own
  name (the examples give it as an input, `Id(z)`). When ℓ is also used as a
  value — in the head, as the addressee of a message to oneself, in a
  comparison, in a body argument — or is a constant (`q(#a, X)`: the rule runs
  at node a only), the rule gets the positive body atom `id(ℓ)`, and every
  node x gets the input fact `id(x)`. So `ack(#S, Me)@async :- msg(#Me, S).`
  becomes `ack(Me)@async(S) :- msg(S), id(Me).` The relation is called `id`
  unless the program uses that name (then `node_id`, `node_id1`, ...);
* a body-less ground rule `p(#a, 1).` is an input fact of node a, and
  `p(#a, 1)@3.` an input event of node a at step 3 (tr2009 Example 3);
* **global rules.** A deductive rule with an unmarked head that reads several
  nodes — its body atoms at different locations, its head elsewhere or without
  a location column, or a global relation in its body (`global_relations`) — is
  Molly's assertion: `post(X) :- decision(A1, X, _), decision(A2, X, _), A1 != A2;`
  becomes the `RuleKind.GLOBAL` rule `post(X) :- decision(A1, X, _), ...` whose
  body atoms keep their location as first argument and whose head keeps every
  argument: a global relation, held by no node;
* **Molly's one database** (Molly's dialect only). A rule that reads a *static* relation (facts, kept
  by `r(A)@next :- r(A)` at most) at another node reads every node's copy of it (`remote_reads`),
  where the rule would otherwise be refused, and a variable that occurs once, in a negated atom, is
  that atom's `_` (`projected`); each with a warning.

A located input is read the same way (`facts.parse_facts(..., columns=...)`):
a fact goes to the node named in its location column, and the network is the
set of nodes named there, plus those of empty blocks `c { }`. An input is
located exactly when its program is.

Timestamped events `R(ā)@k` (either notation) hold at step k of their node
only; `check_events` rejects an event beyond the horizon. Writing a program in
the other notation (`dedalus2asp convert`) is `convert`'s; where an atom is (its
location column, the global relations) is `location`'s, and Molly's own
reading (`notin` projections, remote-state copies, its built-in relations) is
`molly`'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Iterable, Mapping

import clingo

from .ast import (Aggregate, Atom, Constant, Fact, Instance, Literal, Output, Program,
                  Rule, RuleKind, Span, Term, Timestamped, Variable)
from .diagnostics import Diagnostic, DiagnosticError, Severity, raise_if_errors
from .location import global_relations, location_columns, unmarked_atom, unmarked_term
from .molly import (RemoteWrites, lockstep_relations, lockstep_warning, molly_warnings, projected, reads_elsewhere,
                    remote_reads)

IDENTITY_NAMES = ("id", "node_id")

@dataclass(frozen=True)
class LocatedProgram:
    """A located program and its location-transparent IR.

    program: the IR (what every later phase reads);
    source: the rules as written, location columns in place;
    columns: relation → index of its location column;
    identity: the input relation that tells a node its name, if a rule needs it;
    facts: the facts (and events) written in the program, per node;
    warnings: what the reader should know (Molly's built-in relations).
    """

    program: Program
    source: tuple[Rule, ...]
    columns: Mapping[str, int]
    identity: str | None
    facts: Mapping[clingo.Symbol, tuple[Fact, ...]]
    dialect: str
    warnings: tuple[Diagnostic, ...] = ()
    copies: Mapping[str, str] = field(default_factory=dict)
    """relation → the relation of its copies every node holds (Molly's remote reads, `remote_reads`)."""

    def identity_clash(self, what: str, rename: str) -> str:
        """The message for an input that gives the identity relation itself (`what` it gives, what to rename)."""
        return (
            f"the input {what}, but '{self.identity}' is the relation that tells each node its own name "
            f"in this located program (it is added for every node): rename {rename}"
        )

    def instance(self, given: Instance | None) -> Instance | None:
        """H: the facts of the program and of the located input `given`, and `id(x)` at every node x."""
        if given is None and not self.facts:
            return None if self.identity is None and self.dialect != "molly" else Instance(
                {}, self.program.filename, self.program.text, self.identity, self.dialect == "molly")
        facts: dict[clingo.Symbol, list[Fact]] = {n: list(fs) for n, fs in self.facts.items()}
        for node, local in (given.facts if given is not None else {}).items():
            facts.setdefault(self.spelt(node), []).extend(local)
        origin = given if given is not None else self.program  # whose file a problem is reported in
        if self.identity is not None:
            clash = [f for fs in facts.values() for f in fs if f.predicate == self.identity]
            if clash:
                message = self.identity_clash(f"gives '{clash[0]}'", "the input relation")
                raise DiagnosticError([Diagnostic("identity-input", message, clash[0].span, origin.filename, origin.text)])
            for node, local in facts.items():
                local.insert(0, Fact(self.identity, (node,)))
        everywhere = self.copied(facts)
        for local in facts.values():
            local.extend(everywhere)
        return Instance({n: tuple(dict.fromkeys(fs)) for n, fs in facts.items()}, origin.filename, origin.text,
                        self.identity, self.dialect == "molly", everywhere, frozenset(self.copies))

    def spelt(self, node: clingo.Symbol) -> clingo.Symbol:
        """A node an input names, as a Molly program spells it: the block `a { }` of a facts file is the node
        the program writes `"a"` (Molly's nodes are strings), unless the program writes `a` itself or writes
        its nodes as constants. Outside Molly's dialect, the node as the input names it."""
        if self.dialect != "molly" or node.type is not clingo.SymbolType.Function or node.arguments:
            return node
        known = set(self.facts) | {a for fs in self.facts.values() for f in fs for a in f.args}
        string = clingo.String(node.name)
        if string in known or node not in known and self.facts and all(
                n.type is clingo.SymbolType.String for n in self.facts):
            return string
        return node

    def copied(self, facts: Mapping[clingo.Symbol, list[Fact]]) -> tuple[Fact, ...]:
        """The copies every node holds of the facts of the relations read at other nodes (`remote_reads`):
        `R_everywhere(x, ā)` for the fact R(ā) of node x, at the same step."""
        return tuple(
            Fact(self.copies[f.predicate], (node, *f.args), f.span, f.step)
            for node, local in facts.items() for f in local if f.predicate in self.copies
        )


def check_events(instance: Instance, horizon: int, run: bool = False) -> None:
    """Raise `DiagnosticError` for an input event R(ā)@k with k > T: it happens at no step 0..T.

    `run`: the bound is that of `dedalus2asp run --steps K` (T = K - 1), and the advice says so.
    """
    raise_if_errors(
        [
            Diagnostic(
                "event-beyond-horizon",
                f"the event '{f}' of node '{n}' is at step {f.step}, beyond the "
                + (f"last step {horizon} of the run" if run else f"horizon {horizon}")
                + f": every node performs steps 0..{horizon} only, so it would never happen ("
                + (f"raise --steps to {f.step + 1}" if run else f"raise --horizon to {f.step}")
                + " or more, or move the event)",
                f.span,
                instance.filename,
                instance.text,
            )
            for n, facts in instance.facts.items()
            for f in facts
            if f.step is not None and f.step > horizon
        ]
    )


# ---------------------------------------------------------------------------
# Located programs → the IR


def _identity_name(schema: Iterable[str]) -> str:
    taken = set(schema)
    for name in IDENTITY_NAMES:
        if name not in taken:
            return name
    i = 1
    while f"node_id{i}" in taken:
        i += 1
    return f"node_id{i}"


def _drop(atom: Atom, column: int) -> Atom:
    return replace(atom, args=atom.args[:column] + atom.args[column + 1 :])


def _variables(rule: Rule) -> set[str]:
    return {v.name for v in rule.variables() if not v.anonymous}


def locate(
    statements: list[Rule | Timestamped],
    outputs: tuple[Output, ...],
    dialect: str,
    filename: str,
    text: str,
) -> LocatedProgram:
    """The IR of a located program (see the module docstring); every problem is reported at once.

    First every relation's location column is found (`location_columns`).
    Then each statement, its `#` marks dropped (the `source` of the result),
    is either a fact written in the program, an input fact of the node in
    its location column (`_fact`), or a rule, rewritten by `_Locator.rule`.
    A Molly program is last warned of Molly's built-in relations.
    """
    diagnostics: list[Diagnostic] = []

    def error(code: str, message: str, span: Span, severity=Severity.ERROR) -> None:
        diagnostics.append(Diagnostic(code, message, span, filename, text, severity))

    if dialect == "molly":
        statements = [projected(s, error) for s in statements]
    rules = [s.rule if isinstance(s, Timestamped) else s for s in statements]
    marked = location_columns(rules, error)
    copies: dict[str, str] = {}
    lockstep = lockstep_relations(rules, marked) if dialect == "molly" else frozenset()
    if dialect == "molly":
        statements, copies = remote_reads(statements, marked, error, lockstep)
        rules = [s.rule if isinstance(s, Timestamped) else s for s in statements]
    schema = {a.predicate for r in rules for a in r.atoms}
    held_by_none = global_relations(rules, marked, lockstep)
    locator = _Locator(marked, _identity_name(schema), error, held_by_none, lockstep)
    source, transparent, facts = _read(statements, rules, locator, dialect)
    if dialect == "molly":
        molly_warnings(rules, error)
    warnings = raise_if_errors(diagnostics)
    copied = [Fact(copies[f.predicate], (node, *f.args), f.span, f.step)  # the program's nodes hold them already
              for node, local in facts.items() for f in local if f.predicate in copies]
    for local in facts.values():
        local.extend(copied)
    # the identity relation is named apart from the program's: only the rules that need it read it
    reads_identity = any(b.atom.predicate == locator.identity for r in transparent for b in r.body if isinstance(b, Literal))
    columns = {p: locator.column(p) for p in schema if p not in held_by_none}
    return LocatedProgram(
        Program(tuple(transparent), outputs, filename, text, tuple(columns.items())),
        tuple(source),
        columns,
        locator.identity if reads_identity else None,
        {n: tuple(fs) for n, fs in facts.items()},
        dialect,
        tuple(warnings),
        copies,
    )


def _read(
    statements: list[Rule | Timestamped], rules: list[Rule], locator: _Locator, dialect: str
) -> tuple[list[Rule], list[Rule], dict[clingo.Symbol, list[Fact]]]:
    """Each statement read (`locate`): the rules as written without their marks, the IR's rules, and the
    facts written in the program per node. A rule of a global relation is a global rule
    (`_Locator.global_rule`), or an error if it is @next or @async."""
    source: list[Rule] = []
    transparent: list[Rule] = []
    facts: dict[clingo.Symbol, list[Fact]] = {}
    writes = RemoteWrites(rules, locator.columns, locator.held_by_none) if dialect == "molly" else None
    for statement in statements:
        step = statement.step if isinstance(statement, Timestamped) else None
        rule = statement.rule if isinstance(statement, Timestamped) else statement
        plain = _unmarked(rule)
        source.append(plain)
        head_at = None if plain.head.predicate in locator.held_by_none else locator.location(plain.head)
        if (rule.kind is RuleKind.DEDUCTIVE and plain.head.predicate in locator.lockstep
                and reads_elsewhere(plain, locator.columns)):
            ir = locator.lockstep_rule(rule, plain, step)
            if ir is not None:
                transparent.append(ir)
        elif rule.kind is RuleKind.DEDUCTIVE and plain.head.predicate in locator.held_by_none:
            ir = locator.global_rule(rule, plain, step)
            if ir is not None:
                transparent.append(ir)
        elif plain.head.predicate in locator.held_by_none:
            kind = "@next" if rule.kind is RuleKind.INDUCTIVE else "@async"
            if writes is not None and writes.derives(plain):  # one error, at the rule that is the cause (below)
                continue
            locator.error(
                "global-head",
                f"{kind} rule {rule.number} derives '{plain.head.predicate}', a global relation (a rule whose "
                "body reads several nodes derives it): a global relation is held by no node, so it can be "
                "neither kept to the next step nor sent",
                plain.head.span,
            )
        elif writes is not None and writes.reads(plain):
            continue
        elif not plain.body and rule.kind is RuleKind.DEDUCTIVE and head_at is not None:
            fact = _fact(plain.head, locator.column(plain.head.predicate), step, locator.error)
            if fact is not None:
                facts.setdefault(fact[0], []).append(fact[1])
        elif plain.body or head_at is not None:
            ir = locator.rule(rule, plain, step, head_at)
            if ir is not None:
                transparent.append(ir)
    if writes is not None:
        writes.report(locator.error)
    return source, transparent, facts


def _unmarked(rule: Rule) -> Rule:
    """`rule` as written, without its `#` marks: `p(#L, X) :- q(#L, X).` is `p(L, X) :- q(L, X).`"""
    return replace(
        rule,
        head=unmarked_atom(rule.head),
        body=tuple(replace(b, atom=unmarked_atom(b.atom)) if isinstance(b, Literal) else b for b in rule.body),
    )


@dataclass(frozen=True)
class _Locator:
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


def _fact(head: Atom, column: int, step: int | None, error) -> tuple[clingo.Symbol, Fact] | None:
    """A body-less located rule as (node, input fact or event): `p(#a, 1).` is the fact `p(1)` of node a,
    `p(#a, 1)@3.` its event at step 3 (tr2009 Example 3)."""
    if any(isinstance(a, Variable) for a in head.variables()):
        error(
            "unsafe-variable",
            f"the fact '{head}' has a variable: a fact written in a located program is an input fact of the node "
            "in its location column, and must be ground",
            head.span,
        )
        return None
    computed = next((a for a in head.args if not isinstance(a, Constant)), None)
    if computed is not None:
        what = "an aggregate" if isinstance(computed, Aggregate) else "an expression"
        error(
            "fact-value",
            f"the fact '{head}' has {what}, '{computed}': a fact written in a located program is an input fact, "
            "whose arguments are values (write the value itself)",
            computed.span,
        )
        return None
    node = head.args[column].value
    args = tuple(a.value for a in head.args[:column] + head.args[column + 1 :])
    return node, Fact(head.predicate, args, head.span, step)


