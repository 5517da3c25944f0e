"""Value ranges: which columns of which relations can hold infinitely many values, and counters that may be cut.

The Dedalus properties draft calls a program *temporally safe* when no relation grows without bound. A
column (a *position*: relation, argument index) gets its values from the input, from the program's constants,
by copying a variable bound at another position, or by computing them (`T - 1`, `N + 1`, `count<X>`). The
positions form a graph: an edge from each body position of a variable to each head position where it (or an
expression over it) is written. A value computed on a cycle of that graph may grow forever, unless:

* **a guard bounds the move** (`analyse`): `T - k` (k > 0) with a comparison `T > c`, `T >= c` or `T = c`
  (c a constant) in the body, or `N + k` with `N < c`, `N <= c` or `N = c`. Such a rule only moves a value
  toward the bound it guards; from finitely many start values (the input's, the constants', those other
  rules copy in) every value stays between the least and the largest of the start values and the guards.
  A `!=` bounds nothing (`p(X + 1)@next :- p(X), X != 3.` counts past 3 forever);
* **it is a counter the program cannot tell apart above its largest constant** (`Counter`, `cut`): the
  positions joined to it by shared variables (its *class*) hold integers, every variable of the class is
  read at most once in a rule's body (no join, no negation on it), is written only as itself or `X + k`
  (k > 0) into the class, compared only with integer constants, and never aggregated, sent to a variable
  addressee or held by an output relation or a relation a global rule reads. Let c be the largest integer
  the class meets (in the program, in its comparisons, in the input) and m = c + 1. The map α(v) = min(v, m)
  commutes with everything the program does with a counter value: a comparison with a constant c' ≤ c or
  a match against one has the same truth value at v and α(v) (both exceed c when v ≥ m), α(v + k) =
  min(α(v) + k, m), copies copy, and without joins two values that α merges never meet. So the program
  whose increments saturate at m (`cut`: `X + k` guarded by `X <= m - k`, plus a rule writing m when
  `X > m - k`) has, run by run, the same facts outside the class, the output facts among them; and its
  counter takes at most m + 1 - (least start value) values. Nemo's timers (`timerr(J, N+1)@next :-
  timerr(J, N).` read only as `timerr(J, 2)`, `timerr(J, 4)`, `C > 1`) are such counters.

`analyse(program, instance)` reports, per relation whose values are computed, whether it is finite and why
(`Ranges.report`; for a class that is no counter, the first rule found that makes it none, `Ranges.uncut`), the
rules that compute values without bound (`Ranges.unbounded`), and the counters (`Ranges.counters`);
`cut(program, instance)` rewrites the counters so that the program is finite-state, which the eventual explorer and
the lasso solver both run. Where the explorer's configuration graph closes,
the program is finite on that input whatever this syntactic analysis says (`runs.eventual`).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace
from itertools import product

import clingo

from .analysis import strongly_connected
from .ast import (Aggregate, Arithmetic, Comparison, Constant, Instance, Literal, Program, Rule, RuleKind, Term,
                  Variable)

Position = tuple[str, int]
"""(relation, argument index), the location column of a located relation not counted (as in the IR)."""

LOWER = {">": ">", ">=": ">=", "=": "="}
UPPER = {"<": "<", "<=": "<=", "=": "="}
FLIP = {">": "<", ">=": "<=", "<": ">", "<=": ">=", "=": "=", "!=": "!="}


def _shift(rule: Rule, atom, globals_: set[str]) -> int:
    """How many leading arguments of `atom` in `rule` are a location column (lock-step and global rules keep it)."""
    if rule.kind is RuleKind.LOCKSTEP and atom.predicate not in globals_:
        return 1
    if rule.kind is RuleKind.GLOBAL and atom is not rule.head and atom.predicate not in globals_:
        return 1
    return 0


def _positions(rule: Rule, atom, globals_: set[str]):
    """(position, argument) of every argument of `atom` but a location column."""
    k = _shift(rule, atom, globals_)
    return [((atom.predicate, i - k), arg) for i, arg in enumerate(atom.args) if i >= k]


def _integer(term) -> int | None:
    if isinstance(term, Constant) and term.value.type is clingo.SymbolType.Number:
        return term.value.number
    if isinstance(term, Arithmetic) and term.left is None and term.op == "-":
        inner = _integer(term.right)
        return None if inner is None else -inner
    return None


def _bounds(rule: Rule, var: str) -> list[tuple[str, int]]:
    """The comparisons of `rule` between the variable `var` and an integer constant, as (op, c) with `var` left."""
    out = []
    for c in rule.comparisons:
        if isinstance(c.left, Variable) and c.left.name == var and _integer(c.right) is not None:
            out.append((c.op, _integer(c.right)))
        elif isinstance(c.right, Variable) and c.right.name == var and _integer(c.left) is not None:
            out.append((FLIP[c.op], _integer(c.left)))
    return out


def _move(term) -> tuple[str, int] | None:
    """`X + k` or `X - k` (or `k + X`) with k an integer constant: (X, signed k); else None."""
    if not isinstance(term, Arithmetic) or term.left is None or term.op not in "+-":
        return None
    if isinstance(term.left, Variable) and _integer(term.right) is not None:
        k = _integer(term.right)
        return term.left.name, (k if term.op == "+" else -k)
    if term.op == "+" and isinstance(term.right, Variable) and _integer(term.left) is not None:
        return term.right.name, _integer(term.left)
    return None


def _guard(rule: Rule, term) -> str | None:
    """The comparison that bounds the move `term` in its direction (see the module's docstring), as written; None."""
    move = _move(term)
    if move is None or move[1] == 0:
        return None
    var, k = move
    wanted = LOWER if k < 0 else UPPER
    for op, c in _bounds(rule, var):
        if op in wanted:
            return f"{var} {op} {c}"
    return None


@dataclass(frozen=True)
class Source:
    """A rule that computes a value at `position` from a value of the same strongly connected part of the position
    graph: `term` with the comparison `guard` that bounds it ("" when none does)."""

    rule: Rule
    position: Position
    term: object
    guard: str

    def words(self) -> str:
        if self.guard:
            return f"rule {self.rule.number} moves it by '{self.term}' toward the bound '{self.guard}'"
        return f"rule {self.rule.number} computes '{self.term}' with no comparison that bounds it"


@dataclass(frozen=True)
class Counter:
    """A counter that may be cut (module docstring): its class of positions, the rules that increment it, and the cut
    value m = (the largest integer constant it meets) + 1."""

    positions: tuple[Position, ...]
    rules: tuple[int, ...]
    cut: int

    def words(self) -> str:
        where = ", ".join(f"{r} column {i + 1}" for r, i in self.positions)
        rules = ", ".join(map(str, self.rules))
        return (f"rule {rules} only increments it and it is compared only with constants up to {self.cut - 1} "
                f"({where}): cut at {self.cut}, every value from {self.cut} on behaves alike")


@dataclass(frozen=True)
class Ranges:
    """What `analyse` found: the sources of computed values, the infinite positions, the counters to cut."""

    sources: tuple[Source, ...]
    infinite: frozenset[Position]
    counters: tuple[Counter, ...]
    uncut: tuple[tuple[Position, str], ...] = ()
    """Why the class of an unguarded source is no counter to cut ("rule 9 aggregates it ('count<C>')"), per position."""

    def words(self, source: Source) -> str:
        """`source.words()`, and for an unbounded one why no cut makes it finite."""
        why = dict(self.uncut).get(source.position)
        return source.words() + (f", and it is no counter to cut: {why}" if why and not source.guard else "")

    @property
    def unbounded(self) -> tuple[Source, ...]:
        """The unguarded sources no counter cut makes finite: the program computes new values without bound."""
        cut = {p for c in self.counters for p in c.positions}
        return tuple(s for s in self.sources if not s.guard and s.position not in cut)

    @property
    def finite(self) -> bool:
        """Finitely many values at every position once the counters are cut."""
        return not self.unbounded

    def report(self) -> list[tuple[str, str, str]]:
        """Per relation with a computed column: (relation, "finite" | "cut" | "unbounded", why)."""
        cut = {p: c for c in self.counters for p in c.positions}
        rows: dict[str, tuple[str, str]] = {}
        rank = {"finite": 0, "cut": 1, "unbounded": 2}
        for s in self.sources:
            r = s.position[0]
            if s.guard:
                kind, why = "finite", f"{s.words()}, from finitely many start values"
            elif s.position in cut:
                kind, why = "cut", cut[s.position].words()
            else:
                kind, why = "unbounded", self.words(s)
            if r not in rows or rank[kind] > rank[rows[r][0]]:
                rows[r] = (kind, why)
        cuts = {p for c in self.counters for p in c.positions}
        for r, i in sorted(self.infinite):
            if r not in rows and (r, i) not in cuts:
                rows[r] = ("unbounded", f"column {i + 1} copies values that grow without bound")
        return [(r, kind, why) for r, (kind, why) in sorted(rows.items())]

    def as_dict(self) -> list[dict]:
        return [{"relation": r, "range": kind, "why": why} for r, kind, why in self.report()]


def _variable_positions(rule: Rule, globals_: set[str]) -> dict[str, list[Position]]:
    """variable name → the positive body positions where it stands alone."""
    out: dict[str, list[Position]] = defaultdict(list)
    for item in rule.body:
        if isinstance(item, Literal) and not item.negated:
            for pos, arg in _positions(rule, item.atom, globals_):
                if isinstance(arg, Variable) and not arg.anonymous:
                    out[arg.name].append(pos)
    return out


def _term_vars(term) -> set[str]:
    if isinstance(term, Variable):
        return set() if term.anonymous else {term.name}
    if isinstance(term, (Arithmetic, Aggregate)):
        return {v.name for v in term.variables() if not v.anonymous}
    return set()


def _assigned(rule: Rule, var: str):
    """The term `var` is made equal to by a comparison `var = term` (term not a lone constant), or None."""
    for c in rule.comparisons:
        if c.op == "=" and isinstance(c.left, Variable) and c.left.name == var and not isinstance(c.right, Constant):
            return c.right
        if c.op == "=" and isinstance(c.right, Variable) and c.right.name == var and not isinstance(c.left, Constant):
            return c.left
    return None


def _head_terms(rule: Rule):
    """The terms written at the head's positions, a variable bound by `V = term` replaced by its term."""
    for i, arg in enumerate(rule.head.args):
        if isinstance(arg, Variable) and _assigned(rule, arg.name) is not None:
            yield i, _assigned(rule, arg.name), arg.name
        else:
            yield i, arg, None


def analyse(program: Program, instance: Instance | None = None) -> Ranges:
    """The value ranges of `program` (module docstring); `instance` adds its integers to the counters' constants."""
    globals_ = set(program.global_relations())
    rules = [r for r in program.rules if r.kind is not RuleKind.GLOBAL]
    succ: dict[Position, set[Position]] = defaultdict(set)  # body position → head positions it feeds
    feeds: list[tuple[Rule, Position, object, str | None, set[Position]]] = []
    for rule in rules:
        bound = _variable_positions(rule, globals_)
        shift = _shift(rule, rule.head, globals_)
        for i, term, alias in _head_terms(rule):
            if i < shift:
                continue
            head = (rule.head.predicate, i - shift)
            sources = {p for v in _term_vars(term) for p in bound.get(v, ())}
            for p in sources:
                succ[p].add(head)
            feeds.append((rule, head, term, alias, sources))
    nodes = sorted(set(succ) | {h for _, h, *_ in feeds})
    component = {p: k for k, comp in enumerate(strongly_connected(nodes, {p: sorted(succ[p]) for p in nodes}))
                 for p in comp}
    on_cycle = lambda head, sources: any(component[p] == component[head] and (p != head or head in succ[head])  # noqa: E731
                                          for p in sources)
    found: list[Source] = []
    for rule, head, term, alias, sources in feeds:
        computed = isinstance(term, Arithmetic) or (isinstance(term, Aggregate) and term.function == "sum")
        if computed and on_cycle(head, sources):
            guard = _guard(rule, term) if isinstance(term, Arithmetic) else None
            if guard is None and alias is not None:  # `Y = X - 1, Y > 0`: the guard may bound the result
                move = _move(term)
                bounds = _bounds(rule, alias)
                if move and move[1] and any(op in (LOWER if move[1] < 0 else UPPER) for op, _ in bounds):
                    op, c = next((op, c) for op, c in bounds if op in (LOWER if move[1] < 0 else UPPER))
                    guard = f"{alias} {op} {c}"
            found.append(Source(rule, head, term, guard or ""))
    counters, uncut = _counters(program, instance, rules, [s for s in found if not s.guard], globals_)
    cut = {p for c in counters for p in c.positions}
    infinite = {s.position for s in found if not s.guard and s.position not in cut}
    changed = True
    while changed:  # a position fed only by infinite ones (a copy of a growing value) is infinite too
        changed = False
        for rule, head, term, alias, sources in feeds:
            if head in infinite or head in cut or not sources:
                continue
            bound = _variable_positions(rule, globals_)
            vars_ = _term_vars(term)
            if any(all(p in infinite for p in bound.get(v, ())) and bound.get(v) for v in vars_):
                infinite.add(head)
                changed = True
    return Ranges(tuple(found), frozenset(infinite), counters, tuple(sorted(uncut.items())))


def _counters(program: Program, instance: Instance | None, rules: list[Rule], unguarded: list[Source],
              globals_: set[str]) -> tuple[tuple[Counter, ...], dict[Position, str]]:
    """The classes of the unguarded sources that may be cut (module docstring), and for each position of a class that
    may not, why."""
    observed = set(program.output_relations) | {
        item.atom.predicate for r in program.rules_of(RuleKind.GLOBAL) for item in r.body if isinstance(item, Literal)}
    out: list[Counter] = []
    uncut: dict[Position, str] = {}
    done: set[Position] = set()
    for source in unguarded:
        if source.position in done:
            continue
        positions = _class(rules, source.position, globals_)
        done |= positions
        largest, why = _cuttable(rules, positions, globals_, observed, instance)
        other = next((s for s in unguarded if s.position in positions and _move(s.term) is None), None)
        if largest is not None and other is not None:
            largest, why = None, f"rule {other.rule.number} computes '{other.term}', not an increment by a constant"
        if largest is None:
            uncut.update((p, why) for p in positions)
            continue
        increments = tuple(sorted({s.rule.number for s in unguarded if s.position in positions}))
        out.append(Counter(tuple(sorted(positions)), increments, largest + 1))
    return tuple(out), uncut


def _class(rules: list[Rule], start: Position, globals_: set[str]) -> set[Position]:
    """The positions joined to `start` by variables that stand at one of them (alone or in `X + k`)."""
    positions, changed = {start}, True
    while changed:
        changed = False
        for rule in rules:
            at = _occurrences(rule, globals_)
            names = {v for v, places in at.items() if any(p in positions for p, _ in places)}
            for v in names:
                for p, _ in at[v]:
                    if p is not None and p not in positions:
                        positions.add(p)
                        changed = True
    return positions


def _occurrences(rule: Rule, globals_: set[str]) -> dict[str, list[tuple[Position | None, str]]]:
    """variable → where it occurs: (position, "body" | "head" | "move") for an atom argument that is the variable
    (or, in the head, `X + k`), (None, what) elsewhere ("compare" with an integer, "other")."""
    at: dict[str, list] = defaultdict(list)
    for atom in rule.atoms:
        where = "head" if atom is rule.head else "body"
        for pos, arg in _positions(rule, atom, globals_):
            if isinstance(arg, Variable):
                if not arg.anonymous:
                    at[arg.name].append((pos, where))
            elif where == "head" and _move(arg) is not None and _move(arg)[1] > 0:
                at[_move(arg)[0]].append((pos, "move"))
            else:
                for v in _term_vars(arg):
                    at[v].append((None, "other"))
    if rule.addressee is not None:
        at[rule.addressee.name].append((None, "other"))
    for c in rule.comparisons:
        pair = (c.left, c.right)
        for a, b in (pair, pair[::-1]):
            if isinstance(a, Variable) and _integer(b) is not None:
                at[a.name].append((None, "compare"))
        if not any(isinstance(a, Variable) and _integer(b) is not None for a, b in (pair, pair[::-1])):
            for v in _term_vars(c.left) | _term_vars(c.right):
                at[v].append((None, "other"))
    return at


def _cuttable(rules: list[Rule], positions: set[Position], globals_: set[str], observed: set[str],
              instance: Instance | None) -> tuple[int | None, str]:
    """The largest integer the class `positions` meets, when it may be cut (module docstring); else None and why not."""
    seen = sorted({r for r, _ in positions if r in observed})
    if seen:
        return None, f"its values are observed ({seen[0]} is an output or read by a global rule)"
    largest = 0
    for rule in rules:
        for atom in rule.atoms:
            for pos, arg in _positions(rule, atom, globals_):
                if pos not in positions:
                    continue
                if isinstance(arg, Constant):
                    if _integer(arg) is None:
                        return None, f"rule {rule.number} writes the constant {arg} there, not an integer"
                    largest = max(largest, _integer(arg))
                elif isinstance(arg, Arithmetic) and not (atom is rule.head and _move(arg) and _move(arg)[1] > 0):
                    return None, f"rule {rule.number} computes '{arg}', not an increment by a constant"
                elif isinstance(arg, Aggregate):
                    return None, f"rule {rule.number} aggregates into it ('{arg}')"
        for v, places in _occurrences(rule, globals_).items():
            if not any(p in positions for p, _ in places if p is not None):
                continue
            if any(p is None and what == "other" for p, what in places):
                return None, f"rule {rule.number} {_other_use(rule, v)}"
            if any(p is not None and p not in positions for p, _ in places):
                return None, f"rule {rule.number} copies it out of its class"
            if sum(1 for _, what in places if what == "body") > 1:  # two cut values would meet as one
                return None, f"rule {rule.number} joins on {v} (or negates it), which would tell two cut values apart"
            largest = max([largest, *(c for _, c in _bounds(rule, v))])
    if instance is not None:
        for facts in instance.facts.values():
            for fact in facts:
                for i, value in enumerate(fact.args):
                    if (fact.predicate, i) in positions:
                        if value.type is not clingo.SymbolType.Number:
                            held = f"{fact.predicate}({', '.join(map(str, fact.args))})"
                            return None, f"the input holds {held}, not an integer there"
                        largest = max(largest, value.number)
    return largest, ""


def _other_use(rule: Rule, var: str) -> str:
    """What `rule` does with the counter variable `var` besides a column or a comparison with a constant, in words."""
    if rule.addressee is not None and rule.addressee.name == var:
        return f"sends to the node {var}"
    for atom in rule.atoms:
        for arg in atom.args:
            if isinstance(arg, Aggregate) and var in _term_vars(arg):
                return f"aggregates it ('{arg}'): the aggregate tells the cut values apart"
            if not isinstance(arg, Variable) and var in _term_vars(arg):
                return f"computes '{arg}' from it"
    comparison = next((c for c in rule.comparisons if var in _term_vars(c.left) | _term_vars(c.right)), None)
    return f"compares it in '{comparison}', not with an integer constant" if comparison else f"reads {var} otherwise"


def cut(program: Program, instance: Instance | None = None) -> Program:
    """`program` with every counter (`analyse(...).counters`) saturating at its cut value m: each head `X + k` at a
    counter position gets the guard `X <= m - k`, and a copy of the rule, numbered after the program's rules, writes
    m where `X > m - k` (one copy per subset of a head's counters that saturate). The same program when there is no counter."""
    counters = analyse(program, instance).counters
    if not counters:
        return program
    globals_ = set(program.global_relations())
    cut_at = {p: c.cut for c in counters for p in c.positions}
    rules, extra = [], []
    for rule in program.rules:
        moves = [(i, arg, cut_at[pos]) for i, (pos, arg) in enumerate(_positions(rule, rule.head, globals_))
                 if pos in cut_at and _move(arg) is not None]
        if not moves or rule.kind is RuleKind.GLOBAL:
            rules.append(rule)
            continue
        shift = _shift(rule, rule.head, globals_)
        for saturated in product((False, True), repeat=len(moves)):  # each move below or at its cut value
            body, args = list(rule.body), list(rule.head.args)
            for (i, arg, m), full in zip(moves, saturated):
                var, k = _move(arg)
                limit = Constant(clingo.Number(m - k))
                body.append(Comparison(">" if full else "<=", Variable(var, arg.span), limit, arg.span))
                if full:
                    args[i + shift] = Constant(clingo.Number(m), arg.span)
            if not any(saturated):
                rules.append(replace(rule, body=tuple(body)))
                continue
            extra.append(replace(rule, head=replace(rule.head, args=tuple(args)), body=tuple(body),
                                 number=len(program.rules) + len(extra) + 1,
                                 origin=f"the counter cut of rule {rule.number}"))
    return replace(program, rules=(*rules, *extra))
