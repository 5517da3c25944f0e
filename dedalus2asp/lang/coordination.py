"""Where a program needs coordination: the static analyses of the Dedalus properties draft.

All of them read the predicate dependency graph (PDG, `pdg`) of the draft's §Temporal Stratification: a
vertex per relation and an edge head ← body for every rule that reads `body` and derives `head`,
labelled

* **¬** when some rule with that head negates `body`, or aggregates over it (an aggregate, like a
  negation, needs its whole group: "aggregates count as non-monotone");
* **+** when every rule from `body` to `head` is inductive or asynchronous: `body` derives `head`
  at a later step.

From the graph (global rules, which observe a run and never steer it, are left out):

* **temporal stratification**, at the rule as tr2009 Def. 3 defines it: the deductive rules alone are
  stratifiable (a negation in an inductive or asynchronous rule reads an earlier step and closes no cycle,
  even when a deductive rule joins the same pair); otherwise the cycle is reported at the negation's position;
* **temporal safety**: no rule computes a new value (`p(X + 1)`) on a cycle of the graph without a
  comparison in its body to bound it; such a rule has no finite eventual model;
* **monotonic components** (§Identifying Loci of Coordination): the strongly connected components of
  the graph of the monotone edges (an edge that some rule reads positively, outside an aggregate, even if
  another rule negates it), listed dependencies first;
* **loci of coordination**: the non-monotone edges whose body relation an asynchronous relation
  reaches (through any rules) and whose result is carried to a later step — the rule is inductive or
  asynchronous, or its head is read, through deductive rules, by one that is. There, a negation or an
  aggregate "closes over messages that may still arrive", and what it concludes is kept. The draft
  ignores the negation inside `choice` (the arrival choice of `@async`): it quantifies over time,
  which is always fully defined; it is not in the graph at all. A non-monotone edge reached by an
  asynchronous relation but read only at its own step (jcss2014 Alg. 2: `missing() :- Node(Y), not
  empty(Y).`) is re-evaluated at every step over what has arrived, so once everything has arrived it
  sees everything; it is listed as *transient*, not as a locus. This is the draft's remark that the
  harm is done when "results of this incomplete quantification may be forever persisted". A negation of
  local state that changes with time (not held the same at every step: a timer's `late()`), in a rule that
  joins what messages reach, is a locus too although no message reaches it: a *deadline race*;
* **confluence** by the draft's criterion ("all monotonic programs with simply persisted asynchronous
  predicates are confluent"), made precise so that it is a sufficient condition: the program is
  temporally safe, has no locus, every asynchronous relation is simply persisted (`R(X̄)@next :-
  R(X̄).`), and every relation carried to a later step *grows*: it is derived only by rules that read
  growing relations positively and negate or aggregate only relations fixed by the input, so its facts
  are never lost. Growing relations converge, in every fair run, to the least fixpoint of the program
  read without time; what is read at one step only is a function of them. An input event
  (`p(a)@3`, which holds at one step) is not fixed by the input, and a relation that has one, derived
  or not, grows only when it is simply persisted; `check` sees the events a program carries (Molly's
  `p(a)@3;`), `cron` and `models` those of the `.facts` input too. A positive program is the jcss2014 Theorem 4.1 case.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Iterable

from . import ranges
from .analysis import strongly_connected
from .ast import Literal, Program, Rule, RuleKind, Variable
from .diagnostics import Diagnostic, Severity, diagnostic_in, rule_name
from .location import simply_persists
from .pdg import Dependency, dependencies, graph_rules, literals, reachable, shortest_path


@dataclass(frozen=True)
class Locus:
    """A non-monotone body literal over `relation`, in `rule`, that the asynchronous relations
    `reached_by` reach (a locus of coordination when `carried`, else a transient one)."""

    rule: Rule
    relation: str
    aggregate: bool
    reached_by: tuple[str, ...]
    carried: bool
    diagnostic: Diagnostic
    joins: str | None = None
    """A deadline race: `relation` is local state that changes with time (a timer's `late`), reached by no message,
    and the rule joins `joins`, which messages reach; `reached_by` reach `joins`."""

    @property
    def head(self) -> str:
        return self.rule.head.predicate

    def as_dict(self) -> dict:
        return {"rule": self.rule.number, "relation": self.relation, "head": self.head,
                "what": "aggregate" if self.aggregate else "negation", "reached_by": list(self.reached_by),
                "joins": self.joins,
                **{k: self.diagnostic.as_dict()[k] for k in ("file", "line", "col", "message")}}


@dataclass(frozen=True)
class Coordination:
    """The report of every analysis of this module (see the module's docstring)."""

    relations: tuple[str, ...]
    dependencies: tuple[Dependency, ...]
    components: tuple[tuple[str, ...], ...]
    asynchronous: tuple[str, ...]
    cycles: tuple[Diagnostic, ...] = ()
    unbounded: tuple[Diagnostic, ...] = ()
    loci: tuple[Locus, ...] = ()
    transient: tuple[Locus, ...] = ()
    not_persisted: tuple[str, ...] = ()
    unsettled: tuple[Diagnostic, ...] = ()
    positive: bool = False
    events: tuple[str, ...] = field(default=())
    settled: bool = True
    """Every relation carried to a later step grows (`unsettled` lists the root causes when not)."""
    clocked: tuple[str, ...] = ()
    """Asynchronous relations that already wait for a Lamport clock (`clocked`): not rewritten again."""
    lockstep: tuple[int, ...] = ()
    """The lock-step rules (Molly's writes into another node within a step): the program runs with synchronous
    delivery only, where every message arrives at its receiver's next step, so no run is non-causal and the Lamport
    rewrite changes nothing."""
    values: tuple[tuple[str, str, str], ...] = ()
    """Per relation with a computed column: (relation, "finite" | "cut" | "unbounded", why) (`ranges.Ranges.report`)."""

    @property
    def finite_when_cut(self) -> bool:
        """Not temporally safe, yet every value that grows is a counter the eventual mode cuts (`ranges`)."""
        return bool(self.unbounded) and all(kind != "unbounded" for _, kind, _ in self.values)

    @property
    def temporally_stratifiable(self) -> bool:
        return not self.cycles

    @property
    def temporally_safe(self) -> bool:
        return not self.unbounded

    @property
    def confluent(self) -> bool:
        """The draft's criterion (module docstring): safe, no locus, asynchronous relations persisted, the
        relations carried in time growing."""
        return self.temporally_safe and not self.loci and not self.not_persisted and self.settled

    def reasons(self) -> list[str]:
        """Why the criterion does not call the program confluent, one short line each (empty if it does)."""
        out = [f"locus in {rule_name(x.rule)}: {'aggregate' if x.aggregate else 'negation'} of '{x.relation}'"
               for x in self.loci]
        out += [f"asynchronous relation '{r}' is not simply persisted ({r}(...)@next :- {r}(...).)"
                for r in self.not_persisted]
        out += [d.message.split(", and ")[0] + ": a time-sensitive read carried to a later step" for d in self.unsettled]
        out += ["not temporally safe: " + d.message for d in self.unbounded]
        return out

    def lamport_relations(self) -> tuple[str, ...]:
        """The asynchronous relations a locus involves: those that reach its body relation, and those sent by a rule
        its head reaches (or by the locus's rule itself). What `lamport.rewrite` rewrites by default."""
        reach = reachable(self.dependencies)
        chosen = set()
        for locus in self.loci:
            chosen |= {a for a in self.asynchronous if locus.relation in reach[a] or locus.joins in reach[a]}
            chosen |= {a for a in self.asynchronous if a == locus.head or a in reach[locus.head]}
        return tuple(a for a in self.asynchronous if a in chosen and a not in self.clocked)

    def component_of(self) -> dict[str, int]:
        return {r: i for i, comp in enumerate(self.components) for r in comp}

    def as_dict(self) -> dict:
        return {
            "temporally_stratifiable": self.temporally_stratifiable,
            "cycles": [d.as_dict() for d in self.cycles],
            "temporally_safe": self.temporally_safe,
            "unbounded": [d.as_dict() for d in self.unbounded],
            "values": [{"relation": r, "range": kind, "why": why} for r, kind, why in self.values],
            "components": [list(c) for c in self.components],
            "dependencies": [d.as_dict() for d in self.dependencies],
            "asynchronous": list(self.asynchronous),
            "loci": [x.as_dict() for x in self.loci],
            "transient": [x.as_dict() for x in self.transient],
            "not_persisted": list(self.not_persisted),
            "unsettled": [d.as_dict() for d in self.unsettled],
            "settled": self.settled,
            "events": list(self.events),
            "positive": self.positive,
            "confluent": self.confluent,
            "reasons": self.reasons(),
            "lamport_relations": list(self.lamport_relations()),
            "clocked": list(self.clocked),
            "lockstep": list(self.lockstep),
        }


def _what(rule: Rule, literal: Literal) -> str:
    if literal.negated:
        return f"the negation of '{literal.atom.predicate}'"
    return f"the aggregate '{rule.aggregates[0]}' over '{literal.atom.predicate}'"


def _where(rule: Rule, literal: Literal):
    return literal.atom.span if literal.negated else rule.aggregates[0].span


def temporal_cycles(program: Program, deps: tuple[Dependency, ...]) -> list[Diagnostic]:
    """Every negation or aggregate of a deductive rule on a cycle of edges none of which is +, at the literal's
    position. tr2009 Def. 3 at the rule: the program's deductive reduction (its deductive rules) is syntactically
    stratifiable; a negation in an inductive or asynchronous rule reads an earlier step and closes no cycle, even when
    a deductive rule joins the same pair (`p(X) :- q(X).` beside `p(X)@next :- e(X), not q(X).`)."""
    succ: dict[str, list[str]] = defaultdict(list)
    for d in deps:
        if not d.temporal:  # some deductive (or lock-step) rule makes the edge: it is in the deductive reduction
            succ[d.head].append(d.body)
    out = []
    for rule in graph_rules(program):
        if rule.kind in (RuleKind.INDUCTIVE, RuleKind.ASYNC):
            continue
        for literal in literals(rule):
            head, body = rule.head.predicate, literal.atom.predicate
            if not (literal.negated or rule.aggregates):
                continue
            back = shortest_path(succ, body, head)
            if back is None:
                continue
            cycle = " → ".join([head, *back])
            out.append(diagnostic_in(
                program, "temporal-stratification",
                f"{_what(rule, literal)} in {rule_name(rule)} is on the cycle {cycle} with no + edge (no rule on it "
                "derives at a later step): the program is not temporally stratifiable, a fact may depend on its own "
                "negation at one step (make one of the rules on the cycle @next)",
                _where(rule, literal), Severity.WARNING))
    return out


def unbounded(program: Program, deps: tuple[Dependency, ...]) -> list[Diagnostic]:
    """Rules that compute a new value on a cycle of the position graph with no comparison that bounds the move
    (`ranges.analyse`: a `!=` bounds nothing): each step (or each round of a fixpoint) may add a value, so the
    program has no finite eventual model. (A counter that `ranges` may cut is listed too: the program as written
    grows; the eventual mode runs it cut.)"""
    return [diagnostic_in(
                program, "temporal-safety",
                f"{rule_name(source.rule)} ({source.rule.kind.value}) computes the new value '{source.term}' on a cycle "
                "of the dependency graph: its relation may grow without bound, so the program is not temporally safe "
                "(bound the value with a comparison in the body; within a horizon it is finite)",
                getattr(source.term, "span", source.rule.span), Severity.NOTE)  # a clock is often meant: bounded runs stay finite
            for source in ranges.analyse(program).sources if not source.guard]


def simply_persisted(program: Program) -> set[str]:
    """The relations R with a rule `R(X1, ..., Xk)@next :- R(X1, ..., Xk).` (distinct variables), tr2009's persist[R]."""
    return {rule.head.predicate for rule in program.rules_of(RuleKind.INDUCTIVE) if simply_persists(rule)}


def _by_head(rules: Iterable[Rule]) -> dict[str, list[Rule]]:
    out: dict[str, list[Rule]] = defaultdict(list)
    for r in rules:
        out[r.head.predicate].append(r)
    return out


def _readers(rules: Iterable[Rule]) -> dict[str, set[str]]:
    """relation → the heads of the rules that read it."""
    out: dict[str, set[str]] = defaultdict(set)
    for r in rules:
        for lit in literals(r):
            out[lit.atom.predicate].add(r.head.predicate)
    return out


def _constant(program: Program, events: set[str]) -> set[str]:
    """The relations fixed by the input: input relations without events, and what deductive rules derive from them
    alone (any polarity); they hold the same facts at every step of every run. A least fixpoint, by a work list."""
    rules = graph_rules(program)
    by_head, readers = _by_head(rules), _readers(rules)
    constant = {p for r in rules for p in (a.predicate for a in (*r.positive, *r.negative))
                if p not in by_head and p not in events}
    waiting: dict[str, set[str]] = {}  # a head of deductive rules only → the relations they read not yet constant
    for p, mine in by_head.items():
        if all(r.kind is RuleKind.DEDUCTIVE and all(lit.step is None for lit in literals(r)) for r in mine):
            waiting[p] = {lit.atom.predicate for r in mine for lit in literals(r)} - constant
    todo = list(constant) + [p for p, w in waiting.items() if not w and p not in events]
    constant |= {p for p, w in waiting.items() if not w and p not in events}
    while todo:
        q = todo.pop()
        for p in readers.get(q, ()):
            if p in waiting and p not in constant and p not in events:  # an event adds a fact at one step only
                waiting[p].discard(q)
                if not waiting[p]:
                    constant.add(p)
                    todo.append(p)
    return constant


def _monotone_over(rule: Rule, growing: set[str], constant: set[str]) -> Literal | None:
    """The first literal of `rule` that keeps it from being monotone over growing data, or None."""
    for literal in literals(rule):
        p = literal.atom.predicate
        if literal.step is not None and p not in constant:
            return literal
        if (literal.negated or rule.aggregates) and p not in constant:
            return literal
        if not literal.negated and p not in growing and p not in constant:
            return literal
    return None


def growing(program: Program, constant: set[str], persisted: set[str], events: set[str] = frozenset()) -> set[str]:
    """The relations that never lose a fact (a greatest fixpoint): every rule that derives one reads growing or
    constant relations positively and negates or aggregates constant ones only; an asynchronous one, or one with
    input events (a fact at one step), is also simply persisted, so what arrives stays."""
    rules = graph_rules(program)
    by_head, readers = _by_head(rules), _readers(rules)
    out = set(by_head) - constant - (events - persisted)
    todo = list(out)
    while todo:
        p = todo.pop()
        if p not in out:
            continue
        mine = by_head[p]
        if any(r.kind is RuleKind.ASYNC for r in mine) and p not in persisted or any(
                _monotone_over(r, out, constant) is not None for r in mine):
            out.discard(p)
            todo.extend(q for q in readers.get(p, ()) if q in out)
    return out


def carried(program: Program) -> set[str]:
    """The relations whose facts are carried to a later step: read by an inductive or asynchronous rule, or by a
    deductive rule whose head is carried."""
    rules = graph_rules(program)
    by_head = _by_head(r for r in rules if r.kind is RuleKind.DEDUCTIVE)
    out = {lit.atom.predicate for r in rules if r.kind is not RuleKind.DEDUCTIVE for lit in literals(r)}
    todo = list(out)
    while todo:
        for r in by_head.get(todo.pop(), ()):
            for lit in literals(r):
                if lit.atom.predicate not in out:
                    out.add(lit.atom.predicate)
                    todo.append(lit.atom.predicate)
    return out


def clocked(program: Program) -> tuple[str, ...]:
    """The asynchronous relations W that a rewrite of tr2009 §6.6 (`lamport.rewrite`) introduced: their last argument
    S is a send step, and a deductive rule delivers W's facts once a clock C passes it (`... :- W(X̄, S), K(C), S < C.`)."""
    out = []
    for w in program.async_relations():
        for rule in program.rules_of(RuleKind.DEDUCTIVE):
            waits = [a for a in rule.positive if a.predicate == w and a.args and isinstance(a.args[-1], Variable)]
            if any(c.op == "<" and str(c.left) == str(a.args[-1]) for a in waits for c in rule.comparisons):
                out.append(w)
                break
    return tuple(out)


def _monotone(deps: tuple[Dependency, ...]) -> dict[str, list[str]]:
    """The graph of the monotone edges: head → the relations it reads monotonically (through some rule: an edge that
    one rule negates and another reads positively is both)."""
    monotone: dict[str, list[str]] = defaultdict(list)
    for d in deps:
        if d.monotone or d.read_positively:
            monotone[d.head].append(d.body)
    return monotone


def monotonic_components(relations: tuple[str, ...], deps: tuple[Dependency, ...]) -> tuple[tuple[str, ...], ...]:
    """The strongly connected components of the graph of the monotone edges (§Identifying Loci of
    Coordination), each in the order its relations are first written."""
    monotone = _monotone(deps)
    written = {r: i for i, r in enumerate(relations)}
    return tuple(tuple(sorted(c, key=written.__getitem__)) for c in strongly_connected(list(relations), monotone))


def _deadline(rule: Rule, literal: Literal, asynchronous: tuple[str, ...], reach: dict[str, set[str]],
              constant: set[str]) -> tuple[str | None, tuple[str, ...]]:
    """A deadline race: `literal` negates (or aggregates over) local state that changes with time (not fixed by the
    input, e.g. a timer's `late`) and `rule` joins a relation that messages reach. The relation joined, and the
    asynchronous relations that reach it; (None, ()) when `literal` is no such read."""
    if not literal.negated or literal.atom.predicate in constant:  # an aggregate over messages is a locus already
        return None, ()
    for other in rule.positive:
        if other is literal.atom:
            continue
        by = tuple(a for a in asynchronous if other.predicate in reach[a])
        if by:
            return other.predicate, by
    return None, ()


def loci_of_coordination(program: Program, deps: tuple[Dependency, ...], relations: tuple[str, ...],
                         asynchronous: tuple[str, ...], kept: set[str],
                         constant: set[str] = frozenset(),
                         waiting: set[str] = frozenset()) -> tuple[list[Locus], list[Locus]]:
    """The loci of coordination and the transient reads: every negation or aggregate over a relation an
    asynchronous one reaches, or over local state that changes with time in a rule that joins what messages reach
    (a deadline race: whether the message comes before the deadline); a locus when what it concludes is `kept`
    (`carried`), transient otherwise."""
    monotone = _monotone(deps)
    reach = reachable(deps)
    depends: dict[str, list[str]] = defaultdict(list)
    for d in deps:
        depends[d.head].append(d.body)

    def distance(source: str, target: str) -> tuple[int, int]:
        """How directly `source` reaches `target`: through monotone edges first, then the shortest path."""
        plain = shortest_path(monotone, target, source)
        return (0 if plain else 1, len(plain or shortest_path(depends, target, source) or relations))

    loci, transient = [], []
    for rule in graph_rules(program):
        for literal in literals(rule):
            if not (literal.negated or rule.aggregates):
                continue
            body = literal.atom.predicate
            by = tuple(sorted((a for a in asynchronous if body in reach[a]), key=lambda a: distance(a, body)))
            joins = None
            if not by:
                joins, by = _deadline(rule, literal, asynchronous, reach, constant)
                if joins is None:
                    continue
                by = tuple(sorted(by, key=lambda a: distance(a, joins)))
            is_carried = rule.kind is not RuleKind.DEDUCTIVE or rule.head.predicate in kept
            arrives = f"'{by[0]}' is asynchronous" + ("" if by[0] == body else f" and reaches '{body}'")
            if joins is not None:
                arrives = (f"'{body}' is local state that changes with time, and the rule joins '{joins}', which "
                           f"messages reach ('{by[0]}' is asynchronous): a deadline race")
                what = f"{_what(rule, literal)} in {rule_name(rule)}"
                later = ("it decides what is sent" if rule.kind is RuleKind.ASYNC else
                         "it decides what holds at the next step" if rule.kind is RuleKind.INDUCTIVE else
                         f"'{rule.head.predicate}' is kept for later steps")
                message = (f"{what} races with arrivals ({arrives}), and {later}: a locus of coordination (make the "
                           f"rule wait until every '{joins}' it depends on is known; Lamport clocks order messages, "
                           "not a message and a deadline)" if is_carried else
                           f"{what} races with arrivals ({arrives}), but '{rule.head.predicate}' is read at its own "
                           "step only: it is evaluated afresh at every step, so it is not a locus")
                found = Locus(rule, body, not literal.negated, by, is_carried,
                              diagnostic_in(program, "locus" if is_carried else "transient", message,
                                            _where(rule, literal), Severity.NOTE), joins)
                (loci if is_carried else transient).append(found)
                continue
            restore = ("; its messages already wait for a Lamport clock: `dedalus2asp cron` tells whether that suffices"
                       if set(by) <= waiting else ", or restore causal order with `dedalus2asp convert --to lamport`")
            if is_carried:
                later = ("it decides what is sent" if rule.kind is RuleKind.ASYNC else
                         "it decides what holds at the next step" if rule.kind is RuleKind.INDUCTIVE else
                         f"'{rule.head.predicate}' is kept for later steps")
                message = (f"{_what(rule, literal)} in {rule_name(rule)} closes over messages that may still arrive "
                           f"({arrives}) and {later}: a locus of coordination (make the rule wait until every "
                           f"'{body}' it depends on is known{restore})")
                severity = Severity.NOTE  # a place to look at, not a fault: the program may be right as it is
            else:
                message = (f"{_what(rule, literal)} in {rule_name(rule)} reads messages that may still arrive "
                           f"({arrives}), but '{rule.head.predicate}' is read at its own step only: it is evaluated "
                           "afresh at every step, so it is not a locus (it sees every message once all have arrived)")
                severity = Severity.NOTE
            found = Locus(rule, body, not literal.negated, by, is_carried,
                          diagnostic_in(program, "locus" if is_carried else "transient", message, _where(rule, literal), severity))
            (loci if is_carried else transient).append(found)
    return loci, transient


def time_sensitive(program: Program, events: set[str], asynchronous: tuple[str, ...], persisted: set[str],
                   kept: set[str], found: list[Locus]) -> tuple[list[Diagnostic], bool]:
    """The time-sensitive reads carried to a later step, at their root causes (the loci `found` are reported
    already), and whether every relation carried to a later step grows (settled)."""
    constant = _constant(program, events)
    grows = growing(program, constant, persisted, events)
    located_loci = {(x.rule.number, x.relation) for x in found}
    out, settled = [], True
    for rule in graph_rules(program):
        if rule.kind is RuleKind.DEDUCTIVE and rule.head.predicate not in kept:
            continue
        literal = _monotone_over(rule, grows, constant)
        if literal is None:
            continue
        settled = False
        p = literal.atom.predicate
        inherited = not (literal.negated or rule.aggregates or p in events or literal.step is not None
                         or p in asynchronous and p not in persisted)
        if inherited or (rule.number, p) in located_loci:
            continue  # a relation that loses facts because what it reads does: its root cause is reported
        why = ("it is asynchronous and not simply persisted, so it holds at the steps it arrives only"
               if p in asynchronous and p not in persisted else
               "it has input events, which hold at one step only" if p in events else
               f"it is read at step {literal.step} only" if literal.step is not None else
               "it is persisted, so it only gains facts, but when it gains them depends on the step"
               if p in persisted else
               "it is neither fixed by the input nor persisted, so it may hold at some steps only")
        use = "negates" if literal.negated else "aggregates over" if rule.aggregates else "joins"
        out.append(diagnostic_in(
            program, "time-sensitive",
            f"{rule_name(rule)} {use} '{p}', and {why}; what it derives is carried to a later step, so it may depend "
            f"on when '{p}' holds ("
            + ("derive it from relations fixed by the input" if p in persisted else
               f"persist '{p}', or derive it from relations that only grow") + ")",
            literal.atom.span, Severity.NOTE))
    return out, settled


def _held(program: Program, events: set[str]) -> set[str]:
    """The relations that hold the same facts at every step: fixed by the input (`_constant`), or an input relation
    without events whose only rules persist it (`can(A, X)@next :- can(A, X);` beside facts from the first step)."""
    rules = _by_head(graph_rules(program))
    return _constant(program, events) | {p for p, mine in rules.items() if p not in events and all(
        r.kind is RuleKind.INDUCTIVE and simply_persists(r) for r in mine)}


def events_of(program: Program, facts: Iterable) -> set[str]:
    """The relations whose input facts `facts` (each with its `step`, None when it holds at every step) make them change
    with time: a fact at a step after the first, or at the first step (Molly's `@1`) of a relation that is not simply
    persisted. A persisted relation whose facts all hold from the first step on holds them at every step: fixed."""
    persisted = simply_persisted(program)
    return {f.predicate for f in facts if f.step is not None and (f.step > 0 or f.predicate not in persisted)}


def analyse(program: Program, events: Iterable[str] = ()) -> Coordination:
    """Every analysis of this module on `program`; `events` names the relations that have input events (facts that
    hold at one step only, e.g. Molly's `begin(c, t1)@1;`)."""
    events = set(events)
    deps = dependencies(program)
    rules = graph_rules(program)
    relations = tuple(dict.fromkeys(atom.predicate for rule in rules for atom in rule.atoms))  # as first written
    components = monotonic_components(relations, deps)
    asynchronous = tuple(program.async_relations())
    kept = carried(program)
    found, transient = loci_of_coordination(program, deps, relations, asynchronous, kept, _held(program, events),
                                            set(clocked(program)))
    persisted = simply_persisted(program)
    unsettled, settled = time_sensitive(program, events, asynchronous, persisted, kept, found)
    return Coordination(
        relations=relations,
        dependencies=deps,
        components=components,
        asynchronous=asynchronous,
        cycles=tuple(temporal_cycles(program, deps)),
        unbounded=tuple(unbounded(program, deps)),
        loci=tuple(found),
        transient=tuple(transient),
        not_persisted=tuple(a for a in asynchronous if a not in persisted),
        unsettled=tuple(unsettled),
        positive=program.positive,
        events=tuple(sorted(events)),
        settled=settled,
        clocked=clocked(program),
        lockstep=tuple(r.number for r in program.lockstep_rules()),
        values=tuple(ranges.analyse(program).report()),
    )
