"""The size of the ground program, estimated before grounding, and the budget that refuses a blow-up.

clingo grounds the whole program before it solves, and grounding can neither be
interrupted nor bounded in memory: `p(A,B,C,D) :- r(A), r(B), r(C), r(D).` over 60
facts of r asks for 13 million instances per node and step, and `count -T 100000` on
tplp2016 Example 1 for 10^10 candidate arrivals of messages (tplp2016 §4.3, the
`cand` rules). `estimate` bounds the number of ground rule instances from above,
from the program, the input's sizes and the bounds, in time linear in the
program; `check` refuses an estimate above the budget (`--max-ground`) with
the rule to blame.

The estimate of a rule is the product of

* the candidate bindings of its body: positive atoms taken greedily (each one
  contributes min(|R|, D^k) for its k variables not yet bound, where |R| is the
  relation's estimated size and D the size of the active domain), a variable
  that `V = t` assigns contributes 1; negated atoms and comparisons only filter;
* the nodes it runs at (|N|; a global rule runs once, over the facts of all
  nodes), and the steps (T + 1);
* for an asynchronous rule, the candidate arrival steps of each message: T + 1,
  or D + 1 under a delay bound D.

|R| is the number of facts of R at the node holding most of them for an input
relation; for a derived relation, the sum of its rules' bindings (a message
relation: times |N| senders), capped at D^k, taken to a fixpoint over the rules
(recursion reaches the cap). Each relation's facts are also copied at every node
and step (N · (T + 1) · |R| atoms, the persistence rules), and the paper encoding
of the causal semantics grounds the transitivity of happens-before (tplp2016
§4.4.1 rule (8)) in (N · (T + 1))^3 instances, which the fast encoding avoids.

The new constructs are treated conservatively: an arithmetic or aggregate
argument in a head adds T + 1 values to the domain (a counter over the steps),
an atom read at a fixed step `p(a)@k` is as large as p, and a variable bound by
nothing counted here is bound by the whole domain.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..bounds import Bounds, Encoding
from ..lang.ast import Aggregate, Arithmetic, Comparison, Constant, Instance, Literal, Program, Rule, RuleKind, Variable
from ..lang.diagnostics import Diagnostic, DiagnosticError

DEFAULT_MAX_GROUND = 10_000_000
"""Ground rule instances allowed by default. clingo grounds about 200,000 instances a second in about
200 bytes each: `p(A,B,C,D) :- r(A), r(B), r(C), r(D).` over 60 facts (13 million instances per node
and step) took 142 s and 5.2 GB at two steps; 10 million is under a minute and 2 GB. The estimate is an
upper bound, from 1 to 100 times the real size on the shipped examples, none of which comes within a
hundredth of the budget at horizons up to 10 (`tests/test_hostile.py`)."""

HUGE = 10.0**30  # an estimate is a float, capped here: D^k for a large k would overflow


@dataclass(frozen=True)
class Part:
    """One part of the estimate: what it counts, its size, and the rule to blame (None: the input or the encoding)."""

    what: str
    size: float
    rule: Rule | None = None


@dataclass(frozen=True)
class Estimate:
    """The estimated number of ground instances of a program within its bounds, part by part."""

    parts: tuple[Part, ...]

    @property
    def total(self) -> float:
        return min(HUGE, sum(p.size for p in self.parts))

    @property
    def largest(self) -> Part:
        return max(self.parts, key=lambda p: p.size)


def _cap(x: float) -> float:
    return min(HUGE, x)


def _power(base: float, k: int) -> float:
    return HUGE if k and base > 1 and k * math.log10(base) > 30 else _cap(base**k)


def domain(program: Program, instance: Instance | None, bounds: Bounds) -> int:
    """|adom|: the input's values and nodes, the program's constants, and T + 1 values per arithmetic
    or aggregate head argument (whatever it computes, it computes at most one new value per step of a chain)."""
    values: set = set()
    if instance is not None:
        values.update(instance.network)
        for facts in instance.facts.values():
            for fact in facts:
                values.update(fact.args)
    computed = 0
    for rule in program.rules:
        for atom in rule.atoms:
            for arg in atom.args:
                if isinstance(arg, Constant):
                    values.add(arg.value)
                elif isinstance(arg, (Arithmetic, Aggregate)):
                    computed += 1
        for item in rule.comparisons:
            for side in (item.left, item.right):
                if isinstance(side, Constant):
                    values.add(side.value)
    return max(1, len(values) + computed * (bounds.horizon + 1))


def input_sizes(instance: Instance | None) -> dict[str, int]:
    """|R| of each input relation: the number of its distinct facts at the node holding most of them."""
    sizes: dict[str, int] = {}
    if instance is None:
        return sizes
    for facts in instance.facts.values():
        here: dict[str, set] = {}
        for fact in facts:
            here.setdefault(fact.predicate, set()).add((fact.args, fact.step))
        for name, distinct in here.items():
            sizes[name] = max(sizes.get(name, 0), len(distinct))
    return sizes


def bindings(rule: Rule, size, dom: int, nodes: int, global_relations=frozenset()) -> float:
    """An upper bound on the valuations of the rule's body (see the module's docstring)."""
    bound: set[str] = set()
    pending = [b for b in rule.body if isinstance(b, Literal) and not b.negated]
    total = 1.0
    while pending:  # greedily, the atom that adds fewest bindings first
        best = None
        for lit in pending:
            names = [v.name for v in lit.atom.args if isinstance(v, Variable)]
            new = {n for n in names if n != "_" and n not in bound}
            fresh = len(new) + names.count("_")
            rows = size(lit.atom.predicate)
            if rule.kind is RuleKind.GLOBAL and lit.atom.predicate not in global_relations:
                rows *= nodes  # the location column: the facts of every node
            factor = min(rows, _power(dom, fresh))
            if best is None or factor < best[0]:
                best = (factor, lit, new)
        factor, lit, new = best
        total = _cap(total * factor)
        bound |= new
        pending.remove(lit)
    for item in rule.comparisons:  # V = t assigns V
        if item.op == "=":
            for side in (item.left, item.right):
                if isinstance(side, Variable):
                    bound.add(side.name)
    for v in rule.variables():  # bound by nothing counted here: by the whole domain
        if not v.anonymous and v.name not in bound:
            bound.add(v.name)
            total = _cap(total * dom)
    return total


def estimate(program: Program, instance: Instance | None, bounds: Bounds) -> Estimate:
    """The ground size of the program on the input within the bounds, part by part (see the module's docstring)."""
    dom = domain(program, instance, bounds)
    nodes = max(1, len(instance.network) if instance is not None else 1)
    steps = bounds.horizon + 1
    delay = bounds.network.max_delay
    arrivals = steps if delay is None else min(steps, delay + 1)
    given = input_sizes(instance)
    sizes: dict[str, float] = dict(given)
    derived = program.idb()
    global_relations = frozenset(program.global_relations())

    def size(name: str) -> float:
        return sizes.get(name, 0.0)

    def body(rule: Rule) -> float:
        return bindings(rule, size, dom, nodes, global_relations)

    for _ in range(len(derived) + 2):  # to a fixpoint: a pass that changes nothing ends it; recursion reaches the caps
        grown: dict[str, float] = {}
        for rule in program.rules:
            senders = nodes if rule.kind is RuleKind.ASYNC else 1
            grown[rule.head.predicate] = _cap(grown.get(rule.head.predicate, 0.0) + body(rule) * senders)
        changed = False
        for name, found in grown.items():
            value = min(_power(dom, derived[name]), _cap(given.get(name, 0) + found))
            if value > size(name):
                sizes[name] = value
                changed = True
        if not changed:
            break

    parts: list[Part] = []
    for rule in program.rules:
        found = body(rule)
        if rule.kind is RuleKind.GLOBAL:
            parts.append(Part(f"{_n(found)} valuation(s) of its body over all nodes × {steps} step(s)", _cap(found * steps), rule))
        elif rule.kind is RuleKind.ASYNC:
            parts.append(Part(
                f"{_n(found)} valuation(s) of its body × {nodes} node(s) × {steps} step(s) × {arrivals} candidate "
                "arrival step(s)", _cap(found * nodes * steps * arrivals), rule,
            ))
        else:
            parts.append(Part(f"{_n(found)} valuation(s) of its body × {nodes} node(s) × {steps} step(s)",
                              _cap(found * nodes * steps), rule))
    first_rule: dict[str, Rule] = {}
    for rule in program.rules:
        first_rule.setdefault(rule.head.predicate, rule)
    for name in program.schema():
        held = 1 if name in global_relations else nodes
        parts.append(Part(f"the facts of {name} ({_n(size(name))}) copied at {held} node(s) × {steps} step(s)",
                          _cap(size(name) * held * steps), first_rule.get(name)))
    if bounds.encoding is Encoding.PAPER and bounds.semantics.causal:
        parts.append(Part(
            f"the transitivity of happens-before over {nodes} node(s) × {steps} step(s) in the paper encoding "
            "(tplp2016 §4.4.1 rule (8): (N·(T+1))^3 instances; --encoding fast avoids it)",
            _power(nodes * steps, 3),
        ))
    return Estimate(tuple(parts))


def _n(x: float) -> str:
    return f"{x:,.0f}" if x < 1e15 else f"{x:.1e}"


def check(program: Program, instance: Instance | None, bounds: Bounds, max_ground: int) -> Estimate:
    """The estimate, or a `DiagnosticError` on the part to blame when it is above `max_ground` (0: no limit):
    the largest part's rule, or the input file (the copies of its facts), or the command line (the encoding)."""
    found = estimate(program, instance, bounds)
    if not max_ground or found.total <= max_ground:
        return found
    part = found.largest
    fixes = ["lower --horizon"]
    if part.rule is not None and part.rule.kind is RuleKind.ASYNC and bounds.network.max_delay is None:
        fixes.append("bound --max-delay")
    fixes += ["use a smaller input", "raise --max-ground"]
    message = (
        f"the ground program would have about {_n(found.total)} rule instances, above the budget of {max_ground:,} "
        f"(--max-ground N; 0: no limit); {'this rule' if part.rule is not None else 'the largest part'}: "
        f"{part.what} = {_n(part.size)}; {', '.join(fixes[:-1])} or {fixes[-1]}"
    )
    if part.rule is not None:
        diag = Diagnostic("ground-budget", message, span=part.rule.span, filename=program.filename, text=program.text)
    else:
        where = instance.filename if instance is not None and part.what.startswith("the facts of") else "<command line>"
        diag = Diagnostic("ground-budget", message, filename=where)
    raise DiagnosticError([diag])
