"""The abstract syntax of Dedalus programs and their inputs.

A Dedalus program (tplp2016 §4.1.1) is a set of deductive, inductive and
asynchronous rules over a schema; an input is a distributed database instance
H (tplp2016 §3.3) mapping every node of the network N to a set of facts.

Every class here is a small frozen dataclass named after the grammar rule it
comes from, and carries the source `Span` it was parsed from (not part of
equality). Rewrites build new nodes with `dataclasses.replace`. `Marked`
and `Timestamped` occur only in located and Molly programs, which
`located.locate` rewrites into a `Program` without them.

Data values are `clingo.Symbol`s: the operational semantics, the solver and
the inspector then order and print them identically (clingo's total order on
terms is the `<` of comparisons).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Iterable, Iterator, Mapping, Union

import clingo


@dataclass(frozen=True)
class Span:
    """A source region: 1-based line and column of its start and end.

    `source` is (file name, text) for a region of another file than the
    program's own: a statement of a file that a Molly program includes.
    """

    line: int
    col: int
    end_line: int
    end_col: int
    source: tuple[str, str] | None = field(default=None, compare=False, repr=False)


NOWHERE = Span(0, 0, 0, 0)


def printable(text: str) -> str:
    """User text (a file name, a rule's origin) for a line of output: every character that is not
    printable (a line break, a tab, a control or bidirectional-format character) as its Python escape.

    A `%` comment of a Dedalus program and of a clingo program (`asp.names.in_comment`), and the first
    line of a diagnostic, then end where they should: `z⏎p(X) :- q(X).` names a file, it adds no rule.
    """
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


def _span() -> Span:
    return field(default=NOWHERE, compare=False, repr=False)


@dataclass(frozen=True)
class Variable:
    """A variable: starts with an upper-case letter or `_`; a lone `_` is anonymous."""

    name: str
    span: Span = _span()

    @property
    def anonymous(self) -> bool:
        return self.name == "_"

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Constant:
    """A constant: a lower-case identifier, an integer or a string, as a clingo symbol."""

    value: clingo.Symbol
    span: Span = _span()

    def __str__(self) -> str:
        return str(self.value)


ARITHMETIC = ("+", "-", "*", "/", "%")
"""The arithmetic operators, with clingo's integer semantics: `/` and `%` truncate toward zero (as C
does), and an operation that is undefined (a division by zero, a string operand) has no value, so the
rule instance that needs it does not fire."""


@dataclass(frozen=True)
class Arithmetic:
    """`u op v` with op in `ARITHMETIC`, or `-u` (`left` is None): an integer expression."""

    op: str
    left: "Term | None"
    right: "Term"
    span: Span = _span()

    def variables(self) -> Iterator[Variable]:
        for part in (self.left, self.right):
            if part is not None:
                yield from term_variables(part)

    def __str__(self) -> str:
        def operand(t):
            return f"({t})" if isinstance(t, Arithmetic) and t.left is not None else str(t)

        if self.left is None:
            return f"-{operand(self.right)}"
        return f"{operand(self.left)} {self.op} {operand(self.right)}"


Term = Union[Variable, Constant, Arithmetic]


def term_variables(term: "Term | Aggregate") -> Iterator[Variable]:
    """Every variable occurrence in a term, an expression or an aggregate, left to right."""
    if isinstance(term, Variable):
        yield term
    elif isinstance(term, (Arithmetic, Aggregate)):
        yield from term.variables()


AGGREGATES = ("count", "sum", "min", "max")


@dataclass(frozen=True)
class Aggregate:
    """`f<u>` with f in `AGGREGATES`, an argument of a rule head (Molly's notation).

    The head `R(ū, f<u>)` stands for one fact per group: the body's valuations
    at the rule's node and step grouped by the values of the other head
    arguments ū, and f over the values of u in the group (count: distinct
    values, as Molly and clingo's `#count`). A group with no valuation yields
    no fact.
    """

    function: str
    term: "Term"
    span: Span = _span()

    def variables(self) -> Iterator[Variable]:
        return term_variables(self.term)

    def __str__(self) -> str:
        return f"{self.function}<{self.term}>"


Argument = Union[Variable, Constant, Arithmetic, Aggregate]
"""An argument of an atom: a term, or in a rule head also an aggregate."""


@dataclass(frozen=True)
class Atom:
    """`R(u1, ..., uk)`; a nullary atom may be written without parentheses."""

    predicate: str
    args: tuple[Argument, ...]
    span: Span = _span()

    @property
    def arity(self) -> int:
        return len(self.args)

    def variables(self) -> Iterator[Variable]:
        """Every variable occurrence, also inside expressions and aggregates."""
        for a in self.args:
            yield from term_variables(a)

    @property
    def aggregates(self) -> tuple["Aggregate", ...]:
        return tuple(a for a in self.args if isinstance(a, Aggregate))

    def __str__(self) -> str:
        return f"{self.predicate}({', '.join(map(str, self.args))})"


@dataclass(frozen=True)
class Literal:
    """A body atom, positive or negated (`not`, `!`, `¬`, `notin`).

    With a `step` k (`p(ā)@k`, written in a located or Molly program) it reads
    p(ā) at step k of the rule's node, whatever the step the rule is at.
    """

    atom: Atom
    negated: bool = False
    span: Span = _span()
    step: int | None = None

    def __str__(self) -> str:
        at = "" if self.step is None else f"@{self.step}"
        return ("not " if self.negated else "") + str(self.atom) + at


COMPARISONS = ("!=", "<=", ">=", "<", ">", "=")


@dataclass(frozen=True)
class Comparison:
    """`u op v` with op in `COMPARISONS`, over clingo's order on terms."""

    op: str
    left: Term
    right: Term
    span: Span = _span()

    def variables(self) -> Iterator[Variable]:
        yield from term_variables(self.left)
        yield from term_variables(self.right)

    def __str__(self) -> str:
        return f"{self.left} {self.op} {self.right}"


BodyItem = Union[Literal, Comparison]


class RuleKind(str, Enum):
    """The three kinds of Dedalus rules (tplp2016 §4.1.1)."""

    DEDUCTIVE = "deductive"
    INDUCTIVE = "inductive"
    ASYNC = "asynchronous"
    GLOBAL = "global"
    """A deductive rule whose body reads several nodes (an assertion, as Molly's invariant files
    write them): every body atom keeps its location as its first argument, the body reads the facts
    of all nodes at one step, and the head is a *global* relation, held by no node (`GLOBAL_NODE` in
    a trace). Only global rules may read global relations, so they observe a run without changing it."""
    LOCKSTEP = "lock-step"
    """A deductive rule whose body reads several nodes at one step and whose head is held at the node its
    first column names (Molly's dialect only): `ja(L, S, I) :- next(S, I), j_buf(S, L, I).` writes at L
    what holds at S at that very step. Molly (Alvaro, Rosen, Hellerstein, *Lineage-driven fault
    injection*, SIGMOD 2015) evaluates every rule over one database of all nodes per time, and its
    DedalusRewrites gives a deductive head its body's time and no place, so the write lands at L within
    the step. Every atom, the head's too, keeps its location as first argument. It means something only
    when step s of every node is round s of one clock (`--delivery sync`, Molly's rounds); unlike a
    global rule it steers the run (its head is a located relation, read, kept and sent by the nodes)."""


@dataclass(frozen=True)
class Rule:
    """A Dedalus rule.

    `number` is its 1-based position in the program (after `persist` macros
    are expanded); `origin` names the macro a rule came from, if any.
    """

    head: Atom
    kind: RuleKind
    body: tuple[BodyItem, ...]
    addressee: Variable | None = None
    number: int = 0
    origin: str | None = None
    span: Span = _span()

    @property
    def positive(self) -> tuple[Atom, ...]:
        """pos_φ: the positive body atoms."""
        return tuple(b.atom for b in self.body if isinstance(b, Literal) and not b.negated)

    @property
    def negative(self) -> tuple[Atom, ...]:
        """neg_φ: the negated body atoms."""
        return tuple(b.atom for b in self.body if isinstance(b, Literal) and b.negated)

    @property
    def comparisons(self) -> tuple[Comparison, ...]:
        return tuple(b for b in self.body if isinstance(b, Comparison))

    @property
    def atoms(self) -> tuple[Atom, ...]:
        """The atoms of the rule in source order: the head, then the body atoms."""
        return (self.head, *(b.atom for b in self.body if isinstance(b, Literal)))

    def variables(self) -> Iterator[Variable]:
        """Every variable occurrence of the rule, head first."""
        yield from self.head.variables()
        if self.addressee is not None:
            yield self.addressee
        for item in self.body:
            yield from (item.atom.variables() if isinstance(item, Literal) else item.variables())

    @property
    def aggregates(self) -> tuple[Aggregate, ...]:
        """The aggregates of the head (at most one per argument)."""
        return self.head.aggregates

    def __str__(self) -> str:
        annotation = {RuleKind.DEDUCTIVE: "", RuleKind.GLOBAL: "", RuleKind.LOCKSTEP: "", RuleKind.INDUCTIVE: "@next"}.get(
            self.kind, f"@async({self.addressee})"
        )
        body = ", ".join(map(str, self.body))
        return f"{self.head}{annotation} :- {body}." if body else f"{self.head}{annotation}."


@dataclass(frozen=True)
class Marked:
    """An argument marked as the location specifier: `#L` (tr2009 §6.2); only in located programs."""

    term: Term
    span: Span = _span()

    def __str__(self) -> str:
        return f"#{self.term}"


@dataclass(frozen=True)
class Timestamped:
    """`p(ā)@k` written in a located or Molly program: a fact that is an input event at step k."""

    rule: Rule
    step: int


@dataclass(frozen=True)
class Output:
    """`.output R.`: R is an output relation (jcss2014 §2.5.5)."""

    predicate: str
    span: Span = _span()


def arity_in(rule: "Rule", atom: Atom, held_by_none) -> int:
    """The arity of `atom`'s relation as `rule` reads it: a global rule reads a located relation with its
    location column first, which the relation's own arity (held at every node) does not count; so does every
    atom of a lock-step rule, its head's too."""
    if rule.kind is RuleKind.LOCKSTEP and atom.predicate not in held_by_none:
        return max(atom.arity - 1, 0)
    if rule.kind is RuleKind.GLOBAL and atom is not rule.head and atom.predicate not in held_by_none:
        return max(atom.arity - 1, 0)
    return atom.arity


@dataclass(frozen=True)
class Program:
    """A Dedalus program: its rules and output relations, and where it came from."""

    rules: tuple[Rule, ...]
    outputs: tuple[Output, ...] = ()
    filename: str = "<program>"
    text: str = ""
    locations: tuple[tuple[str, int], ...] = ()
    """For a located or Molly program, each located relation's location column (tr2009 §6.2), which the IR
    drops: an output fact of R is shown with its node put back there (`log(b, "hello")`). Empty otherwise."""

    def schema(self) -> dict[str, int]:
        """sch(P): every relation name with its arity (first occurrence wins); a located relation read by a
        global rule, which keeps its location column first, is counted without it (`arity_in`)."""
        arities: dict[str, int] = {}
        held_by_none = self.global_relations()
        for rule in self.rules:
            for atom in (rule.head, *rule.positive, *rule.negative):
                arities.setdefault(atom.predicate, arity_in(rule, atom, held_by_none))
        return arities

    def global_relations(self) -> dict[str, int]:
        """The relations in the heads of global rules: held by no node (`RuleKind.GLOBAL`)."""
        return {r.head.predicate: r.head.arity for r in self.rules_of(RuleKind.GLOBAL)}

    def idb(self) -> dict[str, int]:
        """idb(P): the relations in rule heads (a lock-step rule's head counted without its location, `arity_in`)."""
        held_by_none = self.global_relations()
        return {r.head.predicate: arity_in(r, r.head, held_by_none) for r in self.rules}

    def edb(self) -> dict[str, int]:
        """edb(P) = sch(P) \\ idb(P)."""
        idb = self.idb()
        return {p: k for p, k in self.schema().items() if p not in idb}

    def rules_of(self, kind: RuleKind) -> tuple[Rule, ...]:
        return tuple(r for r in self.rules if r.kind is kind)

    def lockstep_rules(self) -> tuple[Rule, ...]:
        """The lock-step rules (`RuleKind.LOCKSTEP`): a Molly program's writes into another node within a step."""
        return self.rules_of(RuleKind.LOCKSTEP)

    def async_relations(self) -> dict[str, int]:
        """The relations R that asynchronous rules send (one cand_R/chosen_R/other_R each)."""
        return {r.head.predicate: r.head.arity for r in self.rules_of(RuleKind.ASYNC)}

    @property
    def positive(self) -> bool:
        """No negation and no aggregate anywhere (jcss2014 Theorem 4.1 applies to such programs): an aggregate, like a
        negation, needs its whole group, so a message arriving late changes what it concludes (tplp2016 Fig. 4 with
        `count` in place of `not` is not tolerant)."""
        return not any(r.negative or r.aggregates for r in self.rules)

    @property
    def output_relations(self) -> tuple[str, ...]:
        return tuple(o.predicate for o in self.outputs)


@dataclass(frozen=True)
class Fact:
    """A ground fact R(a1, ..., ak) with clingo symbols as values.

    An input fact holds at every step of its node (tplp2016 §4.3.2); with a
    `step` k it is a timestamped event `R(a1..ak)@k` (tr2009 Example 3) and
    holds at step k of its node only.
    """

    predicate: str
    args: tuple[clingo.Symbol, ...]
    span: Span = _span()
    step: int | None = None

    def __str__(self) -> str:
        at = "" if self.step is None else f"@{self.step}"
        return f"{self.predicate}({', '.join(map(str, self.args))}){at}"


GLOBAL_NODE = clingo.Tuple_(())
"""The node of a global relation's facts in a trace: `()`, which no node can be (nodes are constants)."""

TraceFact = tuple[clingo.Symbol, int, str, tuple[clingo.Symbol, ...]]
"""`R(x, s, a1..ak)` of sch(P)^LT as (node x, step s, relation R, (a1..ak)) (tplp2016 §4.2)."""

Trace = frozenset[TraceFact]
"""A trace: the facts each node holds at each step (tplp2016 §5.1.5)."""


def show_fact(relation: str, args: Iterable[clingo.Symbol]) -> str:
    """R(a1, ..., ak) as the user writes it."""
    return f"{relation}({', '.join(map(str, args))})"


@dataclass(frozen=True)
class Instance:
    """A distributed database instance H over the network N (tplp2016 §3.3).

    `facts[x]` is H(x); the network is the key set, in the order the nodes
    were first named. A located or Molly program's instance also says what a
    node added later (`bounds.Network.populate`, Molly's `-N`) must get:
    `identity`, the relation that tells every node x its name (`id(x)`), and
    `molly`, whether a bare node name is the string the program writes
    (`a` is `"a"` in Molly's dialect), and `everywhere`, the facts every
    node holds (the copies of `molly.remote_reads`), and `copied`, the relations
    read through those copies (used, though no rule names them).
    """

    facts: Mapping[clingo.Symbol, tuple[Fact, ...]]
    filename: str = "<input>"
    text: str = ""
    identity: str | None = None
    molly: bool = False
    everywhere: tuple[Fact, ...] = ()
    copied: frozenset[str] = frozenset()

    @property
    def network(self) -> tuple[clingo.Symbol, ...]:
        return tuple(self.facts)

    def schema(self) -> dict[str, int]:
        arities: dict[str, int] = {}
        for facts in self.facts.values():
            for f in facts:
                arities.setdefault(f.predicate, len(f.args))
        return arities
