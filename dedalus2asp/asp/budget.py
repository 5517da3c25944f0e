"""The size of the ground program, estimated before grounding, and the budget that refuses a blow-up.

clingo grounds the whole program before it solves, and grounding can neither be
interrupted nor bounded in memory: `p(A,B,C,D) :- r(A), r(B), r(C), r(D).` over 60
facts of r asks for 13 million instances per node and step, and `count -T 100000` on
tplp2016 Example 1 for 10^10 candidate arrivals of messages (tplp2016 §4.3, the
`cand` rules). `estimate` gives the order of the number of ground rule instances
from the program, the input and the bounds, in time linear in the program and in the
steps followed (on Molly's corpus at Molly's settings and beyond, from 0.47 to 7 times the
number of ground rules clingo reports: `benchmarks/ground_budget.py`); `check` refuses an
estimate above the budget (`--max-ground`) with the rule to blame, unless, where the estimate
rests on estimated sizes and is within `PROBE_FACTOR` of the budget (`_uncertain`), clingo,
given `PROBE_SECONDS` in a process of its own, grounds the program within the budget
(`measured`).

The values of each column (R, i) come first (`columns`): the input's values of
that column, a head's constants, and what flows in from the body column that binds
the head's variable, summed over the flow graph (a `count`, `min` or `max` from the
column it aggregates: no more values than it; `T - 1` from the column of T, and a counter
that reads its own relation, `seed(A, S + C)@next :- seed(A, S), ...`, one value more per
step); a `sum` or an argument bound by nothing counted here takes the whole active domain D,
which counts T + 1 values per computed argument. Then the sizes of the relations at a node,
step by step from the input facts, as clingo grounds them (`derive_sizes`): at each step the
input facts of that step (an event `R(ā)@k` at step k only), what the deductive rules make of
this step's sizes, in the order they read each other, what the @next and @async rules made of
the step before (a message relation: this addressee's share of the valuations of |N| senders),
and, for a relation that a rule carries to the next step (`R(ū)@next :- R(ū), ...`), the facts
of the step before, so that what arrives accumulates; every size is capped by the product of its
columns' values, which a recursion within a step (a transitive closure) reaches.

The estimate of a rule is its body's valuations at each step, summed over the steps (so an event
and what it causes count at the steps they hold, together), times

* the valuations of its body: positive atoms taken greedily, each one contributing
  min(|R|, |R| / the values of its columns bound by earlier atoms or constants, the values of
  its columns whose variables are not yet bound) — a join keeps the share of R's rows that can
  match, and at least one of them; a variable that `V = t` assigns contributes 1, negated atoms
  and comparisons only filter; an atom read at a fixed step `p(a)@k` is as large as p; a global
  rule reads a relation at every node (|N| · |R|, its location column holding the nodes);
* the nodes it runs at (|N|; a global rule runs once, over the facts of all nodes);
* for an asynchronous rule, the candidate arrival steps of each message: T + 1,
  or D + 1 under a delay bound D, or 1 under synchronous delivery (and one more,
  "lost", when messages may be lost).

Each relation's facts are also copied at every node and step (N · Σ_t |R_t| atoms, the
persistence rules); the encoding grounds its clock and nodes, the local edges of happens-before
and the fault choices (`encoding_parts`), and its paper encoding of the causal semantics the
transitivity of happens-before (tplp2016 §4.4.1 rule (8)) in (N · (T + 1))^3 instances, which the
fast encoding avoids.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import clingo

from ..bounds import CRASH, Bounds, Encoding, Network
from ..lang.ast import Aggregate, Arithmetic, Constant, Instance, Literal, Program, Rule, RuleKind, Variable
from ..lang.analysis import strongly_connected
from ..lang.diagnostics import Diagnostic, DiagnosticError
from .growth import derive_sizes, input_at
from .solve import Stopped, isolated
from .transform import transform

DEFAULT_MAX_GROUND = 10_000_000
"""Ground rule instances allowed by default. clingo grounds about 200,000 instances a second in about
200 bytes each: `p(A,B,C,D) :- r(A), r(B), r(C), r(D).` over 60 facts (13 million instances per node
and step) took 142 s and 5.2 GB at two steps; 10 million is under a minute and 2 GB. No shipped example
comes within a tenth of it at horizons up to 10 (`tests/test_hostile.py`)."""

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
                elif (isinstance(arg, Arithmetic) or isinstance(arg, Aggregate) and arg.function == "sum") and atom is rule.head:
                    computed += 1  # count, min and max take their values from their groups (`columns`)
        for item in rule.comparisons:
            for side in (item.left, item.right):
                if isinstance(side, Constant):
                    values.add(side.value)
    return max(1, len(values) + computed * (bounds.horizon + 1))


def _variable(term) -> str | None:
    """The name of a term that is a variable, else None."""
    return term.name if isinstance(term, Variable) and not term.anonymous else None


def input_sizes(instance: Instance | None) -> dict[str, float]:
    """|R| of each input relation: the number of its distinct facts at the node holding most of them."""
    sizes: dict[str, float] = {}
    if instance is None:
        return sizes
    for facts in instance.facts.values():
        here: dict[str, set] = {}
        for fact in facts:
            here.setdefault(fact.predicate, set()).add((fact.args, fact.step))
        for name, distinct in here.items():
            sizes[name] = max(sizes.get(name, 0.0), float(len(distinct)))
    return sizes


NODES = ("", -1)  # the column of locations a global rule reads: the nodes
READS_NODES = (RuleKind.GLOBAL, RuleKind.LOCKSTEP)  # rules whose body atoms have their node first (once for all nodes)


def columns(program: Program, instance: Instance | None, dom: int, nodes: int, steps: int = 1) -> dict[tuple[str, int], float]:
    """How many values each column (R, i) can hold: the values that enter it (the input's, a head's constants,
    what a head computes or what nothing binds: the whole domain), and those that flow into it from the body
    column that binds its variable, summed along the flow graph (its strongly connected components share their
    values), capped at the domain."""
    base: dict[tuple[str, int], float] = {NODES: float(nodes)}
    flows: dict[tuple[str, int], set[tuple[str, int]]] = {}
    if instance is not None:
        seen: dict[tuple[str, int], set] = {}
        for facts in instance.facts.values():
            for fact in facts:
                for i, value in enumerate(fact.args):
                    seen.setdefault((fact.predicate, i), set()).add(value)
        base.update({col: float(len(values)) for col, values in seen.items()})
    global_relations = program.global_relations()
    for rule in program.rules:
        bound: dict[str, tuple[str, int]] = {}
        for lit in rule.body:
            if isinstance(lit, Literal) and not lit.negated:
                shift = 1 if rule.kind in READS_NODES and lit.atom.predicate not in global_relations else 0
                for j, arg in enumerate(lit.atom.args):
                    if isinstance(arg, Variable) and not arg.anonymous:
                        bound.setdefault(arg.name, NODES if j < shift else (lit.atom.predicate, j - shift))
        for i, arg in enumerate(rule.head.args):
            if rule.kind is RuleKind.LOCKSTEP and i == 0:
                continue  # the node the head is written at, not a column of its relation
            col = (rule.head.predicate, i - (rule.kind is RuleKind.LOCKSTEP))
            base.setdefault(col, 0.0)
            if isinstance(arg, Variable) and arg.name in bound:
                flows.setdefault(bound[arg.name], set()).add(col)
            elif isinstance(arg, Aggregate) and arg.function in ("min", "max", "count") and _variable(arg.term) in bound:
                # min and max: one of the values aggregated; count: 1..n for n of them, as many values
                flows.setdefault(bound[_variable(arg.term)], set()).add(col)
            elif isinstance(arg, Arithmetic) and all(v.name in bound for v in arg.variables() if not v.anonymous):
                # `T - 1` of a column: as many values as it (summed over the columns it reads); a counter that
                # reads its own relation (`seed(A, S + C)@next :- seed(A, S), ...`) adds one value per step
                named = [v for v in arg.variables() if not v.anonymous]
                for v in named:
                    flows.setdefault(bound[v.name], set()).add(col)
                if not named:  # `1 + 2`: one value
                    base[col] += 1
                if any(a.predicate == rule.head.predicate for a in rule.positive):
                    base[col] += steps
            else:
                base[col] += 1 if isinstance(arg, Constant) else dom
    every = list({*base, *flows, *(c for targets in flows.values() for c in targets)})
    succ = {col: list(targets) for col, targets in flows.items()}
    preds: dict[tuple[str, int], set[tuple[str, int]]] = {}
    for source, targets in flows.items():
        for target in targets:
            preds.setdefault(target, set()).add(source)
    size: dict[tuple[str, int], float] = {}
    for component in reversed(strongly_connected(every, succ)):  # sources first
        inner = set(component)
        total = sum(base.get(c, 0.0) for c in component)
        total += sum(size[p] for p in {p for c in component for p in preds.get(c, ())} - inner)
        for col in component:
            size[col] = min(float(dom), total)
    return size


def bindings(rule: Rule, size, column, nodes: int, global_relations=frozenset()) -> float:
    """An upper bound on the valuations of the rule's body (see the module's docstring): `size(R)` is |R|,
    `column(R, i)` the values of column i of R."""
    bound: set[str] = set()
    pending = [b for b in rule.body if isinstance(b, Literal) and not b.negated]
    total = 1.0
    while pending:  # greedily, the atom that adds fewest bindings first
        best = None
        for lit in pending:
            shift = 1 if rule.kind in READS_NODES and lit.atom.predicate not in global_relations else 0
            rows = size(lit.atom.predicate) * (nodes if shift else 1)
            fresh, new, selected = 1.0, set(), 1.0
            for j, arg in enumerate(lit.atom.args):
                values = float(nodes) if j < shift else column(lit.atom.predicate, j - shift)
                if isinstance(arg, Variable) and (arg.anonymous or arg.name not in bound):
                    if not arg.anonymous:
                        if arg.name in new:
                            continue
                        new.add(arg.name)
                    fresh = _cap(fresh * values)
                elif values > 1:  # a bound variable or a constant: one value of the column, 1/values of its rows
                    selected = _cap(selected * values)
            factor = min(rows, max(1.0, rows / selected), fresh)  # a join keeps a row it can match
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
            total = _cap(total * column("", -2))
    return total


def estimate(program: Program, instance: Instance | None, bounds: Bounds) -> Estimate:
    """The ground size of the program on the input within the bounds, part by part (see the module's docstring)."""
    dom = domain(program, instance, bounds)
    network = bounds.network
    nodes = len(populated.network) if (populated := network.populate(instance)) is not None else 0  # --nodes: only those the input lacks
    steps = bounds.horizon + 1
    arrivals = candidate_arrivals(network, steps)
    sizes: dict[str, float] = dict(input_sizes(instance))
    arities = {**program.schema(), **program.idb()}
    global_relations = frozenset(program.global_relations())

    values = columns(program, instance, dom, nodes, steps)

    def size(name: str) -> float:
        return sizes.get(name, 0.0)

    def column(name: str, i: int) -> float:
        return values.get((name, i), float(dom))

    def cap(name: str, arity: int) -> float:
        product = 1.0
        for i in range(arity):
            product = _cap(product * column(name, i))
        return product

    def body(rule: Rule) -> float:
        return bindings(rule, size, column, nodes, global_relations)

    def made(rule: Rule, found: float) -> float:
        """The facts a rule adds to its relation at a node and step from `found` valuations of its body (times
        the senders of a message), and for a head with aggregates at most one fact per group (the values of its
        other columns)."""
        if rule.kind is RuleKind.ASYNC:  # from each of N senders, this addressee's share of their valuations
            found *= nodes / max(1.0, min(float(nodes), addressees(rule, column)))
        if any(isinstance(a, Aggregate) for a in rule.head.args):
            groups = 1.0
            for i, arg in enumerate(rule.head.args):
                if not isinstance(arg, Aggregate):
                    groups = _cap(groups * column(rule.head.predicate, i))
            found = min(found, groups)
        return found

    window = 1 if network.delivery == "sync" else steps if network.max_delay is None else network.max_delay
    valuations = derive_sizes(program, sizes, made, lambda name: cap(name, arities.get(name, 0)), steps,
                              input_at(instance), body, window)
    parts = rule_parts(program, valuations, nodes, steps, arrivals)
    parts += copy_parts(program, size, nodes, steps, global_relations)
    parts += encoding_parts(program, bounds, nodes, steps)
    if bounds.encoding is Encoding.PAPER and bounds.semantics.causal:
        parts.append(Part(
            f"the transitivity of happens-before over {nodes} node(s) × {steps} step(s) in the paper encoding "
            "(tplp2016 §4.4.1 rule (8): (N·(T+1))^3 instances; --encoding fast avoids it)",
            _power(nodes * steps, 3),
        ))
    return Estimate(tuple(parts))


def encoding_parts(program: Program, bounds: Bounds, nodes: int, steps: int) -> list[Part]:
    """What the encoding grounds whatever the rules: its clock (time/1, tsucc/2) and nodes (all/1), the local
    edges of happens-before (the fast causal encoding's `#edge`, one per node and step), and the faults of
    `templates/faults.lp.j2`: a choice of each channel at each step of the loss window (Molly's omissions),
    a choice of crash step per node, the steps from each crash on (`_silenced`), Molly's crash candidates
    (`_sent_by`, one per node and pair of steps) and the `crash(y, s)` facts at every node and step."""
    network = bounds.network
    parts = [Part(f"the clock of the encoding: time/1 and tsucc/2 over {steps} step(s), all/1 over {nodes} node(s)",
                  float(2 * steps - 1 + nodes))]
    if bounds.encoding is Encoding.FAST and bounds.semantics.causal and not network.fail_stop:
        parts.append(Part(f"the local edges of happens-before: {nodes} node(s) × {steps - 1} step(s)",
                          float(nodes * max(0, steps - 1))))
    if network.by_channel and network.loss_until:
        parts.append(Part(f"the omissions: {nodes}² channel(s) × {min(steps, network.loss_until)} step(s)",
                          float(nodes * nodes * min(steps, network.loss_until))))
    if network.crashes:
        at = steps - 1 if network.after_send else steps  # the crash steps of a node
        pairs = nodes * sum(steps - c for c in range(at))  # _silenced(X, S) for each crash step C <= S
        size = nodes * (1 + at) + pairs
        if network.after_send and any(r.kind is RuleKind.ASYNC for r in program.rules):
            size += nodes * steps * (steps + 1) / 2  # _sent_by(X, S) :- _sends(X, S0), S0 <= S
        if program.schema().get(CRASH) == 2:
            size += nodes * steps * nodes * at  # crash(x, t, y, s) at every node x and step t
        parts.append(Part(f"the crashes: {nodes} node(s), {at} crash step(s) each, over {steps} step(s)", float(size)))
    return parts


def addressees(rule: Rule, column) -> float:
    """How many addressees an asynchronous rule's valuations at one sender name: the values of the body column
    that binds its addressee (1 for a constant or the sender itself)."""
    if rule.addressee is None or rule.addressee.anonymous:
        return 1.0
    for atom in rule.positive:
        for j, arg in enumerate(atom.args):
            if isinstance(arg, Variable) and arg.name == rule.addressee.name:
                return column(atom.predicate, j)
    return 1.0


def candidate_arrivals(network: Network, steps: int) -> int:
    """The arrival steps a message may be given: one when delivery is synchronous, else every step up to the
    delay bound; one more (none) when a message may be lost."""
    arrivals = 1 if network.delivery == "sync" else steps if network.max_delay is None else min(steps, network.max_delay + 1)
    arrivals += 1 if network.loss_until is not None or network.crashes else 0  # a lost message's arrival: none
    return arrivals


def rule_parts(program: Program, valuations: list[float], nodes: int, steps: int, arrivals: int) -> list[Part]:
    """The instances of each rule: its body's valuations summed over the steps (`valuations`, by `derive_sizes`)
    at every node, and for a message at each candidate arrival step; a global rule's at one node."""
    parts: list[Part] = []
    for rule, found in zip(program.rules, valuations):
        mean = found / max(1, steps)
        if rule.kind in READS_NODES:
            parts.append(Part(f"{_n(mean)} valuation(s) of its body over all nodes × {steps} step(s)", _cap(found), rule))
        elif rule.kind is RuleKind.ASYNC:
            parts.append(Part(
                f"{_n(mean)} valuation(s) of its body × {nodes} node(s) × {steps} step(s) × {arrivals} candidate "
                "arrival step(s)", _cap(found * nodes * arrivals), rule,
            ))
        else:
            parts.append(Part(f"{_n(mean)} valuation(s) of its body × {nodes} node(s) × {steps} step(s)",
                              _cap(found * nodes), rule))
    return parts


def copy_parts(program: Program, size, nodes: int, steps: int, global_relations) -> list[Part]:
    """The facts of each relation (`size(name)`) copied at every node that holds it (one for a global relation)
    and every step; each part names the first rule that derives the relation."""
    first_rule: dict[str, Rule] = {}
    for rule in program.rules:
        first_rule.setdefault(rule.head.predicate, rule)
    parts = []
    for name in program.schema():
        held = 1 if name in global_relations else nodes
        parts.append(Part(f"the facts of {name} ({_n(size(name))}) copied at {held} node(s) × {steps} step(s)",
                          _cap(size(name) * held * steps), first_rule.get(name)))
    return parts


PROBE_SECONDS = 2.0
"""When the estimate is above the budget, clingo may ground the program for this long, in a process of its own
(`measured`): a program it grounds in that time (some 400,000 rule instances at most) is counted, not refused."""


def measured(program: Program, instance: Instance | None, bounds: Bounds, seconds: float = PROBE_SECONDS) -> int | None:
    """The rules clingo grounds for the program within the bounds, when it grounds them within `seconds` and
    1 GB in a process of its own; else None (a blow-up is killed at the deadline: clingo cannot be interrupted)."""
    try:
        text = transform(program, instance, bounds).text
        return isolated(_ground_rules, text, timeout=seconds, max_memory=2**30)
    except (Stopped, ValueError, DiagnosticError):
        return None


PROBE_FACTOR = 100
"""An estimate above this many times the budget is refused without measuring: no estimate was that far off."""


def _uncertain(found: Estimate, program: Program, max_ground: int) -> bool:
    """Whether an estimate above the budget is worth measuring (`measured`): within `PROBE_FACTOR` of the budget,
    and above it only by the parts that rest on estimated sizes (a rule that reads a derived relation, the copies
    of a derived relation's facts, the encoding's own). A blow-up over input relations alone (a cross product) is
    counted exactly enough to be refused at once."""
    if found.total > PROBE_FACTOR * max_ground:
        return False
    derived = program.idb()

    def estimated(part: Part) -> bool:
        if part.rule is None:
            return True
        if part.what.startswith("the facts of"):
            return part.rule.head.predicate in derived
        return any(atom.predicate in derived for atom in part.rule.positive)

    return sum(p.size for p in found.parts if not estimated(p)) <= max_ground


def _ground_rules(text: str, timeout: float | None = None) -> int:
    """The number of rules of `text` ground (clingo's lp statistics; the solve that reads them fails at once)."""
    ctl = clingo.Control(["--warn=none"])
    ctl.add("base", [], text + "\n#external _budget_probe.\n:- not _budget_probe.\n")
    ctl.ground([("base", [])])
    ctl.solve()
    return int(ctl.statistics["problem"]["lp"]["rules"])


def _n(x: float) -> str:
    return f"{x:.2g}" if 0 < x < 10 and x != int(x) else f"{x:,.0f}" if x < 1e15 else f"{x:.1e}"


def check(program: Program, instance: Instance | None, bounds: Bounds, max_ground: int) -> Estimate:
    """The estimate, or a `DiagnosticError` on the part to blame when it is above `max_ground` (0: no limit):
    the largest part's rule, or the input file (the copies of its facts), or the command line (the encoding)."""
    found = estimate(program, instance, bounds)
    if not max_ground or found.total <= max_ground:
        return found
    rules = measured(program, instance, bounds) if instance is not None and _uncertain(found, program, max_ground) else None
    if rules is not None and rules <= max_ground:  # the estimate was far above what clingo grounds: counted
        return Estimate((Part(f"{rules:,} rules, ground by clingo within {PROBE_SECONDS:g} s", float(rules)),))
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
