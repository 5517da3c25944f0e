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
from typing import Iterable, Mapping

import clingo

from .ast import (Aggregate, Atom, Constant, Fact, Instance, Literal, Output, Program,
                  Rule, RuleKind, Span, Timestamped, Variable)
from .diagnostics import Diagnostic, DiagnosticError, Severity, raise_if_errors
from .location import global_relations, location_columns, unmarked_atom
from .locator import Locator
from .molly import (RemoteWrites, lockstep_relations, molly_warnings, projected, reads_elsewhere,
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
    its location column (`_fact`), or a rule, rewritten by `Locator.rule`.
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
    locator = Locator(marked, _identity_name(schema), error, held_by_none, lockstep)
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
    statements: list[Rule | Timestamped], rules: list[Rule], locator: Locator, dialect: str
) -> tuple[list[Rule], list[Rule], dict[clingo.Symbol, list[Fact]]]:
    """Each statement read (`locate`): the rules as written without their marks, the IR's rules, and the
    facts written in the program per node. A rule of a global relation is a global rule
    (`Locator.global_rule`), or an error if it is @next or @async."""
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


