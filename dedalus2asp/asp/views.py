"""What the templates see: Dedalus rules and message relations prepared for writing, and the writers.

`rule_view` maps a rule's variables to clingo variables and picks the paper's new variables
x, s, t fresh (names.fresh); `term`, `lt`, `body`, `premise` and `cand` write terms, atom^{x,s},
B^{x,s}, the whole body of a generated rule and cand_R(x,s,y,t,u) (tplp2016 §4.2, §4.3.1) for the
one-shot templates (rules.lp.j2) and the multi-shot one (incremental.lp.j2) alike. `MessageView`
is a relation R sent by asynchronous rules, as the message templates write it (`relations`). `environment`
loads the templates of `dedalus2asp.templates` with these writers as globals.

The constructs of the Dedalus people write (issue #18) are written here, once for every template:

* arithmetic is clingo's own: `T-1` is `T-1`, `X % 2` is `X\\2` (clingo writes the remainder `\\`);
  `/` and `\\` truncate toward zero, and an undefined operation (a division by zero, a string
  operand) has no value, so the rule instance that needs it does not fire;
* a body atom at a step, `p(ā)@k`, reads p at step k of the rule's node: `p(x,k,ā)`, with the
  condition `k <= s` (a node cannot read its future);
* a negated atom with `_`, `not ack(X, _)`, reads a projection (`Projection`):
  `_some_1_ack(x,s,W1) :- ack(x,s,W1,_).` and `not _some_1_ack(x,s,X)`;
* a head with aggregates, `tally(C, count<M>) :- vote(C, M).`, is two rules: the groups, the
  values of the head's other arguments for which the body holds (`_group_r<n>`, so that an empty
  group yields no fact), and one clingo aggregate per group:
  `tally(x,s,C,A) :- _group_r1(x,s,C), A = #count{ M : vote(x,s,C,M) }.`;
* a global rule (`RuleKind.GLOBAL`) reads every body atom at the node its first argument names
  (a global relation: at node `()`), and its head is held by node `()`, which no node can be
  (`ast.GLOBAL_NODE`): `post((),s,X) :- decision(A1,s,X,_), decision(A2,s,X,_), A1 != A2.`;
* a lock-step rule of Molly's (`RuleKind.LOCKSTEP`, only under `--delivery sync`) reads its body as a global
  rule does and writes its head at the node its first argument names, at the same step:
  `ja(L,s,S,I) :- next(S,s,I), j_buf(S,s,L,I).` Under fail-stop crashes it fires where Molly places it, at
  its first body atom's node, and writes into no crashed node: `not _silenced(S,s), not _silenced(L,s)`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

import jinja2

from ..lang.ast import Aggregate, Arithmetic, Atom, Literal, Program, Rule, RuleKind, Term, Variable
from .names import CLINGO_VARIABLE, INTERNAL, fresh, in_comment, message_relation, relation_name
from .relations import carried_name

GLOBAL = "()"
"""The node column of a global relation's facts: the empty tuple, which no node can be (ast.GLOBAL_NODE)."""

OPERATORS = {"%": "\\"}
"""Dedalus's arithmetic operators that clingo writes otherwise (clingo's `%` starts a comment)."""


@dataclass(frozen=True)
class Projection:
    """A negated atom with `_` among its arguments reads the projection of its relation onto the other ones.

    `not ack(X, _)` holds at step s of x when no ack(X, v) holds there for any v: it reads
    `_some_1_ack(x,s,X)` (`_some_` the kept argument positions, then the relation), defined by
    `_some_1_ack(X,S,W1) :- ack(X,S,W1,_).` In a global rule, `not decision(_, X, _)` projects the
    node too: `_somewhere_1_decision(S,W1) :- decision(_,S,W1,_).` The positions come before the
    relation, whose clingo name begins with a letter, so two projections never share a name.
    """

    relation: str
    arity: int  # the arguments after node and step
    kept: tuple[int, ...]  # 1-based positions of the arguments kept
    somewhere: bool = False  # the node is projected away as well

    @property
    def name(self) -> str:
        where = "somewhere" if self.somewhere else "some"
        return f"{INTERNAL}{where}_{''.join(f'{i}_' for i in self.kept)}{relation_name(self.relation)}"

    def rule(self, s: str = "S") -> str:
        """The defining rule, at step `s` (`S`, or the multi-shot program's `_t`)."""
        node = "_" if self.somewhere else "X"
        args = [f"W{i}" if i in self.kept else "_" for i in range(1, self.arity + 1)]
        head = ([] if self.somewhere else ["X"]) + [s] + [f"W{i}" for i in self.kept]
        return f"{self.name}({','.join(head)}) :- {relation_name(self.relation)}({','.join([node, s, *args])})."

    @property
    def comment(self) -> str:
        shown = ", ".join(f"W{i}" if i in self.kept else "_" for i in range(1, self.arity + 1))
        where = "some node" if self.somewhere else "node X"
        return f"% {self.name}: some {self.relation}({shown}) holds at step S of {where} (each `_` projected away)"


@dataclass(frozen=True)
class RuleView:
    """One Dedalus rule prepared for `rules.lp.j2` and `incremental.lp.j2`.

    `aggregates` are the clingo variables of the head's aggregates (position → variable);
    `groups` the fresh variables that stand for the head's other arguments that are expressions;
    `globals_` the program's global relations (a global rule reads them at node `()`).
    """

    rule: Rule
    variables: dict[str, str]  # user variable -> clingo variable
    x: str
    s: str
    t: str
    aggregates: dict[int, str] = field(default_factory=dict)
    groups: dict[int, str] = field(default_factory=dict)
    globals_: frozenset[str] = frozenset()
    values: dict[int, str] = field(default_factory=dict)  # an aggregate's expression, evaluated in the group rule
    key: int = 0  # names the rule's auxiliary relations: its number, unless rules share numbers (`keys`)

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
        return {
            RuleKind.DEDUCTIVE: "deductive", RuleKind.INDUCTIVE: "inductive", RuleKind.ASYNC: "async",
            RuleKind.GLOBAL: "global", RuleKind.LOCKSTEP: "lockstep",
        }[self.rule.kind]

    @property
    def head(self) -> Atom:
        return self.rule.head

    @property
    def is_global(self) -> bool:
        return self.rule.kind is RuleKind.GLOBAL

    @property
    def reads_nodes(self) -> bool:
        """A global or lock-step rule: each body atom is read at the node its first argument names."""
        return self.rule.kind in (RuleKind.GLOBAL, RuleKind.LOCKSTEP)

    def silenced(self, step: str) -> str:
        """`, not _silenced(n,step)` for each node whose crash silences the rule under fail-stop crashes: x; for a
        lock-step rule its first body atom's node (Molly locates a rule at its first body atom) and its head's
        node (a crashed node holds nothing); none for a global rule, which observes."""
        if self.rule.kind is RuleKind.GLOBAL:
            return ""
        nodes = [self.x]
        if self.rule.kind is RuleKind.LOCKSTEP:
            first = next(b for b in self.rule.body if isinstance(b, Literal))
            nodes = list(dict.fromkeys([term(first.atom.args[0], self), term(self.rule.head.args[0], self)]))
        return "".join(f", not _silenced({n},{step})" for n in nodes)

    @property
    def positive(self) -> bool:
        """Some positive body atom without a step: it binds the node and the step of the rule."""
        return any(isinstance(b, Literal) and not b.negated and b.step is None for b in self.rule.body)

    @property
    def guard(self) -> str:
        """What binds x and s when no positive body atom does: `all(x), time(s)` (tplp2016 §4.3.1,
        footnote 7); `time(s)` alone when a positive atom at a fixed step (or, in a global rule, at
        its own node) binds the rest."""
        if self.positive:
            return ""
        if self.reads_nodes or self.rule.positive:
            return f"time({self.s})"
        return f"all({self.x}), time({self.s})"

    @property
    def y(self) -> str:
        return self.variables[self.rule.addressee.name]

    @property
    def group(self) -> str:
        """`_group_r<n>`: the groups of the aggregate rule numbered n."""
        return f"{INTERNAL}group_r{self.key}"


def keys(program: Program) -> list[int]:
    """A distinct key per rule for its auxiliary relations: the rule numbers, or the positions when
    the numbers are not distinct (a program built in Python need not number its rules)."""
    numbers = [r.number for r in program.rules]
    return numbers if len(set(numbers)) == len(numbers) else list(range(1, len(numbers) + 1))


def rule_view(rule: Rule, globals_: frozenset[str] = frozenset(), key: int | None = None) -> RuleView:
    """Map the rule's variables to clingo variables and pick fresh x, s, t (and the aggregates' variables)."""
    mapping: dict[str, str] = {}
    taken: set[str] = set()
    for var in rule.variables():
        if var.anonymous or var.name in mapping:
            continue
        clingo_name = var.name if CLINGO_VARIABLE.match(var.name) else "V" + var.name
        mapping[var.name] = fresh(clingo_name, taken)
    x, s, t = fresh("X", taken), fresh("S", taken), fresh("T", taken)
    aggregates, groups, values = {}, {}, {}
    if rule.aggregates:
        for i, arg in enumerate(rule.head.args):
            if isinstance(arg, Aggregate):
                aggregates[i] = fresh("A", taken)
                if isinstance(arg.term, Arithmetic):
                    values[i] = fresh("U", taken)
            elif isinstance(arg, Arithmetic):
                groups[i] = fresh("G", taken)
    number = rule.number if key is None else key
    return RuleView(rule, mapping, x, s, t, aggregates, groups, frozenset(globals_), values, number)


def carried(view: RuleView, x: str, s: str) -> str:
    """`_next_R(x,s,u)`: the head of an inductive rule in a lasso, what step s of x carries into its successor."""
    return f"{carried_name(view.rule.head.predicate)}({','.join([x, s, *head_args(view)])})"


def term(item: Term, view: RuleView) -> str:
    """A user term as clingo writes it: a variable renamed by `view`, `_` for an anonymous one, a
    constant as is, an expression with clingo's operators (a nested one in parentheses)."""
    if isinstance(item, Variable):
        return "_" if item.anonymous else view.variables[item.name]
    if isinstance(item, Arithmetic):
        def operand(t: Term) -> str:
            text = term(t, view)
            return f"({text})" if isinstance(t, Arithmetic) and t.left is not None else text

        if item.left is None:
            return f"-{operand(item.right)}"
        return f"{operand(item.left)}{OPERATORS.get(item.op, item.op)}{operand(item.right)}"
    return str(item.value)


def _placed(atom: Atom, view: RuleView, x: str, s: str) -> tuple[str, str, list[str]]:
    """The node, step and arguments of a body atom as clingo reads it."""
    args = [term(a, view) for a in atom.args]
    if not view.reads_nodes:
        return x, s, args
    if atom.predicate in view.globals_:
        return GLOBAL, s, args
    return args[0], s, args[1:]


def head_args(view: RuleView) -> list[str]:
    """The head's arguments: terms, and the variables of its aggregates and of the expressions it groups by."""
    return [view.aggregates.get(i) or view.groups.get(i) or term(a, view) for i, a in enumerate(view.rule.head.args)]


def head(view: RuleView, x: str, s: str) -> str:
    """The head at node x and step s: a global rule's at node `()`, a lock-step rule's at the node its first
    argument names, an aggregate as its variable."""
    args = head_args(view)
    if view.rule.kind is RuleKind.LOCKSTEP:
        x, args = args[0], args[1:]
    node = GLOBAL if view.is_global else x
    return f"{relation_name(view.rule.head.predicate)}({','.join([node, s, *args])})"


def lt(atom: Atom, view: RuleView, x: str, s: str) -> str:
    """atom^{x,s}: a body atom with location specifier x and timestamp s prepended (tplp2016 §4.2);
    in a global rule, at the node its first argument names."""
    node, step, args = _placed(atom, view, x, s)
    return f"{relation_name(atom.predicate)}({','.join([node, step, *args])})"


def projection(item: Literal, view: RuleView) -> Projection | None:
    """The projection a negated atom with `_` reads, if it has one."""
    if not item.negated:
        return None
    node, _, args = _placed(item.atom, view, "X", "S")
    if "_" not in args and node != "_":
        return None
    kept = tuple(i for i, a in enumerate(args, 1) if a != "_")
    return Projection(item.atom.predicate, len(args), kept, somewhere=node == "_")


def projections(program: Program) -> list[Projection]:
    """Every projection the program's negated atoms read, each once, in order of appearance."""
    globals_ = frozenset(program.global_relations())
    found: dict[Projection, None] = {}
    for rule in program.rules:
        view = rule_view(rule, globals_)
        for item in rule.body:
            if isinstance(item, Literal) and (p := projection(item, view)) is not None:
                found.setdefault(p)
    return list(found)


def literal(item: Literal, view: RuleView, x: str, s: str) -> str:
    """One body literal at node x and step s (or at its own step k)."""
    step = s if item.step is None else str(item.step)
    p = projection(item, view)
    if p is not None:
        node, _, args = _placed(item.atom, view, x, step)
        kept = [a for a in args if a != "_"]
        return f"not {p.name}({','.join(([] if p.somewhere else [node]) + [step] + kept)})"
    return ("not " if item.negated else "") + lt(item.atom, view, x, step)


def body(view: RuleView) -> str:
    """B^{x,s}: the body with location and timestamp added to every atom; comparisons unchanged; an
    atom at a step k read at k, with the condition k <= s (no node reads its future)."""
    parts, steps = [], []
    for item in view.rule.body:
        if isinstance(item, Literal):
            parts.append(literal(item, view, view.x, view.s))
            if item.step is not None and str(item.step) not in steps:
                steps.append(str(item.step))
        else:
            parts.append(f"{term(item.left, view)} {item.op} {term(item.right, view)}")
    parts += [f"{k} <= {view.s}" for k in steps]
    return ", ".join(parts)


def _group_columns(view: RuleView) -> tuple[list[str], list[str]]:
    """The group's columns (the head's other arguments; an asynchronous rule's addressee too) and
    the equations that give the expressions among them their fresh variables."""
    columns, equations = [], []
    for i, arg in enumerate(view.rule.head.args):
        if i in view.aggregates or not isinstance(arg, (Variable, Arithmetic)):
            continue
        if isinstance(arg, Variable) and arg.anonymous:
            continue
        if i in view.groups:
            columns.append(view.groups[i])
            equations.append(f"{view.groups[i]} = {term(arg, view)}")
        elif view.variables.get(arg.name) not in columns:
            columns.append(view.variables[arg.name])
    if view.rule.addressee is not None and view.y not in columns:
        columns.append(view.y)
    return columns, equations


def group(view: RuleView) -> str:
    """`_group_r<n>(x,s,ḡ)`: the values ḡ of the head's other arguments for which the body holds."""
    columns, _ = _group_columns(view)
    where = [] if view.reads_nodes else [view.x]  # a lock-step head's node is one of the columns
    return f"{view.group}({','.join(where + [view.s] + columns)})"


def group_rule(view: RuleView) -> str:
    """`_group_r<n>(x,s,ḡ) :- B^{x,s}, ḡ = ū.`: one group per value of the head's other arguments. An
    aggregate of an expression counts only the valuations where it has a value (`U = 6/V`: not V = 0),
    so a group where it has none yields no fact either."""
    _, equations = _group_columns(view)
    values = [f"{view.values[i]} = {term(view.rule.head.args[i].term, view)}" for i in view.values]
    return f"{group(view)} :- {', '.join(p for p in [view.guard, body(view), *equations, *values] if p)}."


def _body_variables(view: RuleView) -> list[str]:
    """The body's variables that vary within a group: the group atom fixes its columns (clingo would
    call them global variables in an aggregate element's tuple, and they change nothing there)."""
    columns, _ = _group_columns(view)
    names: list[str] = [*columns]
    for item in view.rule.body:
        found = item.atom.variables() if isinstance(item, Literal) else item.variables()
        for v in found:
            if not v.anonymous and view.variables[v.name] not in names:
                names.append(view.variables[v.name])
    return names[len(columns):]


def aggregate(view: RuleView, position: int) -> str:
    """`A = #f{ u.. : B^{x,s}, ḡ = ū }` for the aggregate at `position` of the head: over the body's
    valuations within the group that the group atom binds. `count` counts the distinct values of u
    (clingo's `#count`, Molly's count), `sum` adds u over the distinct valuations of the body's
    variables (`#sum{ u,V1,..,Vn : .. }`), `min` and `max` follow clingo's order on terms."""
    agg = view.rule.head.args[position]
    assert isinstance(agg, Aggregate)
    _, equations = _group_columns(view)
    elements = [term(agg.term, view)]
    if agg.function == "sum":
        elements += _body_variables(view)
    condition = ", ".join(p for p in [body(view), *equations] if p)
    inside = ",".join(elements) + (f" : {condition}" if condition else "")
    return f"{view.aggregates[position]} = #{agg.function}{{ {inside} }}"


def premise(view: RuleView) -> str:
    """The body of the rule written for `view`: the guard and B^{x,s}, or for a head with
    aggregates the group atom and one clingo aggregate per aggregate of the head."""
    # a lock-step rule writes at a network node only: a name that is no node holds nothing (as a message to it)
    node = [f"all({term(view.rule.head.args[0], view)})"] if view.rule.kind is RuleKind.LOCKSTEP else []
    if view.aggregates:
        return ", ".join([group(view), *(aggregate(view, i) for i in view.aggregates), *node])
    return ", ".join(p for p in [view.guard, body(view), *node] if p)


def cand(view: RuleView, arrival: bool = True) -> str:
    """cand_R(x,s,y,t,u) of rules (3) and (9); without t, the fast encoding's cand_R(x,s,y,u)."""
    args = [view.x, view.s, view.y, *([view.t] if arrival else [])] + head_args(view)
    return f"{message_relation('cand', view.head.predicate)}({','.join(args)})"


@lru_cache(maxsize=None)
def environment() -> jinja2.Environment:
    """The Jinja environment of `templates/*.j2`, with the writers above as globals."""

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
    env.globals.update(
        body=body, cand=cand, premise=premise, group_rule=group_rule, head=head, carried=carried,
        lt=lambda view, atom, x, s: lt(atom, view, x, s),
    )
    return env
