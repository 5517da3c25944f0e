"""The eventual semantics, read off the configuration graph: the ultimate outputs of every infinite run.

jcss2014 §2.5.5 defines a program's output by its *ultimate* facts: those that, from some step
on, hold at every step. An infinite run is an infinite path of the configuration graph
(`configurations.Graph`) from the start; from some point on it stays inside one strongly
connected component (SCC) and uses exactly a set E of its edges infinitely often, and E is
strongly connected. A fact R(ā) ultimately holds at node x iff it is in D, the deduced facts, of
every step of x on the edges of E (every node steps on every cycle: see `configurations`). The
**ultimate output** of the run is the union over nodes of its ultimate facts of out(P) (as
output(M) unites the nodes' outputs at the last step).

So the ultimate outputs of all runs are `ult(E)` for the strongly connected edge sets E of the
graph — exponentially many sets, few values. They are enumerated exactly (`ultimate_sets`): for
a set R of (node, output fact) pairs, let G_R be the edges on which every x of R steps with its
fact. The exact ultimate sets are the R with an SCC C of G_R with ult(C) = R (if ult(E) = R, E
lies in an SCC C of G_R and R ⊆ ult(C) ⊆ ult(E) = R). The search starts with the SCCs of the
whole graph (R = ult(C): what every run that stays in C and visits all of it holds) and, for each
fact some step of C has, looks at the SCCs of C restricted to the edges that keep it, and so on.
A run that alternates between two cycles holds only what both hold: that is the ult of their
union, which this search meets even when no simple cycle shows it.

Each distinct ultimate output comes with a **witness lasso**: a shortest path from the start to
its component, then a closed walk in the component that passes, for every fact it must not
hold, a step of that node without it (so the walk ultimately holds exactly R).

The **completeness threshold** K (`threshold_of`): the most configurations on a path of distinct
ones from the start (the recurrence diameter plus one); every simple lasso of the graph (its
configurations distinct until the return into its loop) has at most K steps, and a solver that looks for a loop-free path of K + 1 configurations finds none. Finding
it is NP-hard in general: the heaviest chain of SCCs in the condensation (each SCC weighing its
number of configurations) bounds it from above and equals it when every SCC is one
configuration; otherwise a depth-first search of the paths of distinct configurations, pruned by
that bound, finds it within LONGEST_PATH_BUDGET visits, or the bound is reported
(`threshold_exact` false).

**Consistency** (jcss2014 §2.5.5) over infinite runs: every run has the same ultimate output, i.e.
the list has one element (`Eventual.consistent`). The invariant verdict (`verify --eventual`'s
oracle) is in `eventual_verify`.

**Free clocks** (`explore(free_clocks=True)`, `drifted`): the graph is that of the runs in rounds; under a delay bound
with messages between nodes, tplp2016's runs with free clocks may hold other outputs. The fair asynchronous
interleavings (`interleavings`, `interleaved`), a finite over-approximation of those runs, are asked first: where
they admit no output but the list's, the list is every run's; else the graph grows from the ends of the free-clock
prefixes (`drift`) to find the others (docs/semantics.md, "Decision: the rounds").

Public names: `explore`, `Eventual` (`as_dict`), `Lasso`, `ultimate_sets`, `strongly_connected`,
`may_drift`, `drift_reason`, `drifted`, `interleaved`, `Over`, `cyclic`, `shortest_path`, `shown_steps`,
`threshold_of`, `ultimate`, `graph_of`, `build`, `output_fact`, `MAX_COMPONENTS`, `LONGEST_PATH_BUDGET`.
"""

from __future__ import annotations

import gc
import time
from collections import deque
from dataclasses import dataclass, field, replace
from typing import Callable

from ..bounds import Bounds, Mode
from ..lang.ast import Instance, Program, show_fact
from ..lang import coordination, ranges
from ..lang.analysis import restrict, strongly_connected as tarjan
from . import drift, interleavings
from .configurations import ConfigurationLimit, Graph

Item = tuple[int, tuple]
"""(node position, output fact with numbered values)."""

MAX_COMPONENTS = 20_000
"""The most components the search of ultimate sets examines before it answers `exact: false`."""

LONGEST_PATH_BUDGET = 200_000
"""The most configurations the search of the longest path of distinct ones visits before K is given as a bound."""


def strongly_connected(size: int, edges) -> list[list[int]]:
    """The SCCs of the graph 0..size-1 with successors `edges(v)`: `lang.analysis.strongly_connected` (Tarjan's
    search with its own stack, no recursion limit) on the numbered vertices; in reverse topological order (a
    component before the components that reach it)."""
    return tarjan(list(range(size)), {v: edges(v) for v in range(size)})


@dataclass(frozen=True)
class Lasso:
    """A witness run: `steps[:loop_start]` the prefix, `steps[loop_start:]` the loop (`period` transitions),
    after which the run is back at the loop's first configuration. Each step: the nodes that stepped, with
    their step number, their facts D but for their input facts H(x) (which hold at every step), the
    messages they received, sent and lost; the crashes in it."""

    loop_start: int
    period: int
    steps: tuple[dict, ...]
    free_clocks: tuple[dict, ...] = ()
    """A run whose nodes' clocks drift apart (`drift`): the transitions of its free-clock prefix (one node's step
    each, as tplp2016 §5.1.3 makes them), before `steps`, which then go in rounds from step h+1."""
    in_flight: tuple[str, ...] = ()
    """The messages still in flight at the end of the free-clock prefix, with the arrival the rounds give them."""
    early: tuple[str, ...] | None = None
    """A choice run the over-approximation's witness gave, certified (`choice_certificate.witness`): its messages that
    arrive at or before their send step, as "fact: x@s → y@t" (None: not such a run)."""

    def as_dict(self) -> dict:
        prefix = {"free_clock_prefix": list(self.free_clocks), "in_flight": list(self.in_flight)} if self.free_clocks else {}
        certified = {} if self.early is None else {"certified": True, "early": list(self.early)}
        return {"loop_start": self.loop_start, "period": self.period, "steps": list(self.steps), **prefix, **certified}


@dataclass(frozen=True)
class Eventual:
    """What `explore --eventual` answers (see the module's docstring).

    configurations, edges: the size of the graph; components: its SCCs with a cycle (those a run
    can stay in forever). ultimate_outputs: the distinct ultimate outputs (sorted lists of facts as
    the user writes them), each with its witness in `witnesses` at the same position. certain /
    possible: the facts in every / some ultimate output; consistent: whether they are all one (jcss2014 §2.5.5's
    consistency, None when not exact). exact: whether the list is every ultimate output of every infinite run; `reason` says why not. threshold: an upper bound on the
    completeness threshold K, `threshold_exact` whether it is K itself. graph_complete: False when
    the graph passed its limit: then nothing is known of the ultimate outputs (null in JSON).
    """

    configurations: int
    edges: int
    components: int
    ultimate_outputs: tuple[tuple[str, ...], ...]
    witnesses: tuple[Lasso, ...]
    exact: bool
    threshold: int | None
    threshold_exact: bool
    bounds: Bounds
    reason: str = ""
    infinite_runs: bool = True
    nodes: tuple[str, ...] = field(default=())
    graph_complete: bool = True
    free_clocks: int | None = None
    """When the nodes' clocks may drift apart (`explore(free_clocks=True)`: a delay bound, messages between distinct
    nodes): the horizon T up to which the runs with free clocks were followed (free clocks for steps 0..T, then
    rounds; -1: none), whose outputs the list has too; `exact` is then False, unless the fair asynchronous
    interleavings certify the list (`interleavings`)."""
    interleavings: int | None = None
    """The configurations of the fair asynchronous interleavings' graph, when it was built (`drifted`): an
    over-approximation of every run with free clocks; `exact` says whether its outputs were those listed."""

    @property
    def certain(self) -> tuple[str, ...]:
        sets = [set(o) for o in self.ultimate_outputs]
        return tuple(sorted(set.intersection(*sets))) if sets else ()

    @property
    def consistent(self) -> bool | None:
        """jcss2014's consistency over infinite runs: every run has the same ultimate output (None: not exact). Two
        outputs are two infinite runs that differ: "no" is exact whatever the list misses."""
        if self.graph_complete and len(self.ultimate_outputs) > 1:
            return False
        return len(self.ultimate_outputs) <= 1 if self.exact else None

    @property
    def rounds_exact(self) -> bool:
        """Whether the list has every ultimate output of the runs in rounds (`exact` but for the free clocks)."""
        return self.exact or self.free_clocks is not None

    @property
    def in_rounds(self) -> tuple[tuple[str, ...], ...]:
        """The ultimate outputs that runs in rounds have (those with a witness lasso without free clocks)."""
        return tuple(o for o, w in zip(self.ultimate_outputs, self.witnesses) if not w.free_clocks)

    @property
    def possible(self) -> tuple[str, ...]:
        return tuple(sorted(set().union(*self.ultimate_outputs)))

    def as_dict(self) -> dict:
        known = self.graph_complete
        return {
            "mode": self.bounds.mode.value,
            "configurations": self.configurations,
            "edges": self.edges,
            "components": self.components if known else None,
            "ultimate_outputs": [list(o) for o in self.ultimate_outputs] if known else None,
            "consistent": self.consistent,
            "certain": list(self.certain) if known else None,
            "possible": list(self.possible) if known else None,
            "exact": self.exact,
            "reason": self.reason or None,
            "threshold": self.threshold,
            "threshold_exact": self.threshold_exact,
            "witnesses": [w.as_dict() for w in self.witnesses],
            **({"certified": [list(o) for o, w in zip(self.ultimate_outputs, self.witnesses) if w.early is not None]}
               if any(w.early is not None for w in self.witnesses) else {}),
            "nodes": list(self.nodes),
            **({} if self.free_clocks is None else {"free_clocks": self.free_clocks, "rounds_exact": self.rounds_exact,
                                                    "interleavings": self.interleavings}),
            "max_delay": self.bounds.network.max_delay,
            **self.bounds.network.as_dict(),
        }


def explore(
    program: Program, instance: Instance, bounds: Bounds, max_configurations: int = 1_000_000,
    outputs: tuple[str, ...] | None = None, seconds: float | None = None,
    progress: Callable[[int, int], None] | None = None, free_clocks: bool = False, consistency_only: bool = False,
) -> Eventual:
    """The configuration graph of P on H under `bounds.network`, and the ultimate outputs of its infinite runs.

    `bounds.mode` must be `Mode.EVENTUAL` (its horizon is not read); `outputs`: the relations out(P)
    (default: the program's `.output` ones). Raises ValueError when the network is not finite-state by
    construction (async without a delay bound), the program reads crash/2 with crashes, an output
    relation is global, or there is no node; past `max_configurations` (or `seconds` of building) the answer has
    `exact: false` and says why. `progress(k, n)` is told how the graph's construction goes (`Graph.build`).
    `free_clocks`: under a delay bound, when a node sends to another, also follow the runs whose nodes' clocks
    drift apart for their first steps (`drifted`): their outputs join the list, which is then not exact.
    `consistency_only`: follow them only when the runs in rounds have one output (two already answer consistency).
    """
    if bounds.mode is not Mode.EVENTUAL:
        raise ValueError(f"the eventual explorer answers the eventual mode, not {bounds.mode.value!r}")
    outputs = program.output_relations if outputs is None else outputs
    observed = sorted(set(outputs) & set(program.global_relations()))
    if observed:
        raise ValueError(
            f"the output relation '{observed[0]}' is global (a global rule derives it from all nodes at one step); the "
            "eventual explorer reads the facts of the nodes only: name a relation the nodes derive"
        )
    graph = graph_of(program, instance, bounds, observe=False)
    nodes = tuple(str(x) for x in graph.names)
    try:
        build(graph, max_configurations, seconds, progress)
    except ConfigurationLimit as stop:
        unsafe = coordination.analyse(program).unbounded  # the props draft's temporal safety: a likely cause
        reason = str(stop) + (f"; and the program computes new values: {unsafe[0].message}" if unsafe else "")
        return Eventual(stop.configurations, sum(map(len, graph.edges)), 0, (), (), False, None, False, bounds,
                        reason=reason, nodes=nodes, graph_complete=False)
    found = ultimate(graph, outputs, bounds, nodes)
    if free_clocks and may_drift(graph) and found.exact and not (consistency_only and len(found.ultimate_outputs) > 1):
        return drifted(graph, outputs, found, max_configurations, seconds)
    return found


def may_drift(graph: Graph) -> bool:
    """Whether the runs with free clocks may differ from those in rounds: under a delay bound (not sync), when some
    step sends a message to another node (`Graph.between`). A node's messages to itself arrive after their send in
    either, and under sync the rounds lose nothing (`configurations`)."""
    return not graph.network.sync and graph.between and len(graph.names) > 1


def drift_reason(horizon: int, stopped: str = "") -> str:
    """Why an answer read off the rounds and the free-clock prefixes up to `horizon` is not exact, in words."""
    checked = (f"others checked to horizon T = {horizon} (free clocks for steps 0..{horizon}, then rounds)"
               if horizon >= 0 else "others not checked")
    return (f"the nodes' clocks may drift apart: runs in rounds decided exactly, {checked}"
            + (f"; {stopped}" if stopped else ""))


def drifted(graph: Graph, outputs: tuple[str, ...], found: Eventual, limit: int, seconds: float | None) -> Eventual:
    """`found` (the runs in rounds, exact) with the ultimate outputs of the runs whose first steps follow free clocks
    (`drift`): the free-clock prefixes of every horizon h ≤ T, T = the longest witness lasso plus D, each end a root
    from which the graph grows; an output no run in rounds has comes with such a run (`Lasso.free_clocks`). The
    answer is not exact (`drift_reason`), but two outputs still make "not consistent" exact. Unless the fair
    asynchronous interleavings (`interleavings`, an over-approximation of every run with free clocks) admit no
    ultimate output but those listed: then the list is every run's, exact (`interleavings` their size). They are
    asked first: where they admit only the rounds' outputs, no prefix need be followed (`free_clocks` -1)."""
    over, why = interleaved(graph, outputs, seconds)
    if over is not None and over.outputs == set(found.ultimate_outputs):
        return replace(found, free_clocks=-1, interleavings=over.configurations)
    delay = graph.bound
    horizon = max((w.loop_start + w.period for w in found.witnesses), default=1) + delay
    prefixes = drift.prefixes(graph.system, horizon, delay, drift.DRIFT_LIMIT, drift.DRIFT_SECONDS)
    origin: dict[int, tuple[int, tuple, tuple]] = {}  # root number -> (h, the prefix's moves, the arrivals chosen)
    checked, stopped = -1, prefixes.stopped
    size = len(graph.configurations)
    budget = drift.DRIFT_SECONDS if seconds is None else min(seconds, drift.DRIFT_SECONDS)
    until = time.perf_counter() + budget
    try:
        for h in sorted(prefixes.ends):
            for end, moves in prefixes.ends[h].items():
                roots = list(drift.starts(end, h, delay, graph.cap))
                left = until - time.perf_counter()
                if left <= 0:
                    raise ConfigurationLimit(f"the runs with free clocks were not followed within {budget:g} s", size)
                numbers = build(graph, limit, left, roots=tuple(c for c, _ in roots))
                for number, (_, arrivals) in zip(numbers, roots):
                    origin.setdefault(number, (h, moves, arrivals))
            checked = h
    except ConfigurationLimit as stop:  # what was built is sound: every root's runs are genuine
        stopped = f"{stop}"
    known = set(found.ultimate_outputs)
    if len(graph.configurations) == size and not origin:
        return replace(found, exact=False, free_clocks=checked, interleavings=over and over.configurations,
                       reason=drift_reason(checked, stopped) + (why or _beyond(over, known)))
    out = set(outputs)
    kept = [tuple(frozenset(f for f in d if f[0] in out) if d is not None else None for d in label) for label in graph.labels]
    successors = lambda v: [w for w, _ in graph.edges[v]]  # noqa: E731
    components = [c for c in strongly_connected(len(graph.configurations), successors) if cyclic(c, successors)]
    sets, _ = ultimate_sets(graph.edges, kept, components)
    parents, depth = _shortest_paths(graph, sorted(origin))
    extra: dict[tuple[str, ...], Lasso] = {}
    for items, members in sorted(sets.items(), key=lambda pair: sorted(pair[0])):
        shown = tuple(sorted({output_fact(graph, i, f) for i, f in items}))
        if shown in known or shown in extra or not any(depth[v] >= 0 for v in members):
            continue
        lasso, root = _witness(graph, kept, parents, depth, members, items, rooted=True)
        h, moves, arrivals = origin[root]
        prefix, in_flight = drift.shown(graph.system, moves, arrivals)
        steps = tuple({**step, "nodes": {x: {**node, "step": node["step"] + h + 1} for x, node in step["nodes"].items()}}
                      for step in lasso.steps)
        extra[shown] = replace(lasso, steps=steps, free_clocks=prefix, in_flight=in_flight)
    ordered = sorted(known | set(extra), key=lambda o: (len(o), o))
    witnesses = {**dict(zip(found.ultimate_outputs, found.witnesses)), **extra}
    exact = over is not None and over.outputs == set(ordered)
    reason = "" if exact else drift_reason(checked, stopped) + (why or _beyond(over, set(ordered)))
    return replace(found, ultimate_outputs=tuple(ordered), witnesses=tuple(witnesses[o] for o in ordered), exact=exact,
                   free_clocks=checked, reason=reason, interleavings=over and over.configurations)


def _beyond(over: "Over | None", listed: set[tuple[str, ...]]) -> str:
    """Why the interleavings `over` (None: not asked) do not certify the outputs `listed`, in words to follow a
    reason."""
    if over is None:
        return ""
    shown = lambda outputs: ", ".join("{" + ", ".join(o) + "}" for o in sorted(outputs))  # noqa: E731
    return (f"; the fair asynchronous interleavings (an over-approximation of every run, {over.configurations} "
            f"configurations) also admit {shown(over.outputs - listed)}, which no run followed has")


@dataclass(frozen=True)
class Over:
    """The fair asynchronous interleavings' ultimate outputs (as the user writes them) and their graph's size."""

    outputs: set[tuple[str, ...]]
    configurations: int


def interleaved(graph: Graph, outputs: tuple[str, ...], seconds: float | None) -> tuple[Over | None, str]:
    """The ultimate outputs of every fair asynchronous interleaving of `graph`'s system (`interleavings`: a superset
    of every run's with free clocks), or None and why not (a limit, faults), in words to follow a reason."""
    budget = interleavings.INTERLEAVING_SECONDS if seconds is None else min(seconds, interleavings.INTERLEAVING_SECONDS)
    try:
        over = interleavings.Interleavings(graph)
        over.build(interleavings.INTERLEAVING_LIMIT, budget)
    except (interleavings.Refused, ConfigurationLimit) as stop:
        return None, f"; {stop} (the over-approximation that certifies every run)"
    everything = lambda label: True  # noqa: E731
    parts = over.fair_parts(over.edges, frozenset(range(len(over.configurations))), everything)
    sets, finished = ultimate_sets(over.edges, over.kept(outputs), parts, split=over.fair_parts)
    if not finished:
        return None, "; the search of the fair asynchronous interleavings' ultimate outputs passed its limit"
    return Over({tuple(sorted({output_fact(graph, i, f) for i, f in items})) for items in sets},
                len(over.configurations)), ""


def graph_of(program: Program, instance: Instance, bounds: Bounds, observe: bool, make=None) -> Graph:
    """The (unbuilt) configuration graph of `program` on `instance` with the `--nodes` of `bounds.network`, the
    input restricted to what the program reads; `observe`: remember the global rules' fixed-step reads (verify).
    `make(program, instance, network)` builds another graph on the same (the choice runs', `choice.ChoiceGraph`)."""
    populated = bounds.network.populate(instance)
    if populated is None:
        raise ValueError("the program has no input H and names no node: give --input, or --nodes")
    program = ranges.cut(program, populated)  # counters saturate past their constants (lang/ranges): finite-state
    if make is not None:
        return make(program, restrict(populated, program), bounds.network)
    return Graph(program, restrict(populated, program), bounds.network, observe=observe)


def build(graph: Graph, max_configurations: int, seconds: float | None = None,
          progress: Callable[[int, int], None] | None = None, roots: tuple = ()) -> list[int]:
    """`graph.build` with Python's cycle collector off (millions of acyclic tuples and frozensets: collecting
    cycles only costs time); ConfigurationLimit past `max_configurations` or `seconds`."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return graph.build(max_configurations, seconds, progress, roots)
    finally:
        if enabled:
            gc.enable()


def ultimate(graph: Graph, outputs: tuple[str, ...], bounds: Bounds, nodes: tuple[str, ...],
          acceptance=None, budget: int = LONGEST_PATH_BUDGET) -> Eventual:
    """The ultimate outputs of the built `graph`, their witnesses and the threshold (`threshold_of` within `budget`);
    `acceptance`: when given, only the edge sets it `accepts` are runs (`ultimate_sets`), and a witness's loop takes
    the edges it `passes` (the choice graphs)."""
    size = len(graph.configurations)
    out = set(outputs)
    kept = [tuple(frozenset(f for f in d if f[0] in out) if d is not None else None for d in label) for label in graph.labels]
    successors = lambda v: [w for w, _ in graph.edges[v]]  # noqa: E731
    every = strongly_connected(size, successors)
    components = [c for c in every if cyclic(c, successors)]
    found, exact = ultimate_sets(graph.edges, kept, components, acceptance and acceptance.accepts)
    parents, depth = _shortest_paths(graph)
    outputs_seen: dict[tuple[str, ...], Lasso] = {}
    for items, members in sorted(found.items(), key=lambda pair: sorted(pair[0])):
        shown = tuple(sorted({output_fact(graph, i, f) for i, f in items}))
        if shown not in outputs_seen:
            outputs_seen[shown] = _witness(graph, kept, parents, depth, members, items, acceptance)
    ordered = sorted(outputs_seen, key=lambda o: (len(o), o))
    threshold = threshold_of(graph, every, budget)
    reason = "" if exact else (
        f"the search of ultimate sets stopped after {MAX_COMPONENTS} components; the list may miss some")
    return Eventual(
        size, sum(map(len, graph.edges)), len(components), tuple(ordered), tuple(outputs_seen[o] for o in ordered),
        exact, threshold[0], threshold[1], bounds, reason, infinite_runs=bool(components), nodes=nodes,
    )


def output_fact(graph: Graph, i: int, fact) -> str:
    """An output fact of node number i as the user writes it: a located relation's with the node in its location column."""
    relation, args = graph.system.fact(fact)
    column = dict(graph.program.locations).get(relation)
    if column is not None:
        args = (*args[:column], graph.names[i], *args[column:])
    return show_fact(relation, args)


def cyclic(component: list[int], successors) -> bool:
    """Whether a run can stay in `component` forever: it has two configurations, or a transition to itself."""
    return len(component) > 1 or component[0] in successors(component[0])


def _ult(edges, kept, members: frozenset[int], allowed) -> frozenset[Item]:
    """The (node, fact) pairs every step inside `members` (on edges `allowed` keeps) has: ult of that edge set."""
    per_node: dict[int, frozenset] = {}
    for v in members:
        for w, label in edges[v]:
            if w in members and allowed(label):
                for i, facts in enumerate(kept[label]):
                    if facts is not None:
                        per_node[i] = facts if i not in per_node else per_node[i] & facts
    return frozenset((i, f) for i, facts in per_node.items() for f in facts)


def _keeps(kept, items: frozenset[Item]):
    """Whether an edge's label keeps every pair of `items` (the edges of G_R)."""
    def allowed(label: int) -> bool:
        facts = kept[label]
        return all(facts[i] is None or f in facts[i] for i, f in items)
    return allowed


def _subcomponents(edges, members: frozenset[int], allowed) -> list[frozenset[int]]:
    """The SCCs with a cycle of the subgraph of `members` on the edges `allowed` keeps."""
    order = sorted(members)
    position = {v: k for k, v in enumerate(order)}
    succ = [[position[w] for w, label in edges[v] if w in members and allowed(label)] for v in order]
    return [frozenset(order[k] for k in component)
            for component in strongly_connected(len(order), succ.__getitem__) if cyclic(component, succ.__getitem__)]


def ultimate_sets(edges, kept, components, accepts: Callable[[frozenset[int], Callable], bool] | None = None, split=None,
                  ) -> tuple[dict[frozenset[Item], frozenset[int]], bool]:
    """Every exact ultimate set R (see the module's docstring), each with a component C with ult(C) = R; and whether
    the search finished within MAX_COMPONENTS components.

    `edges[v]`: configuration v's transitions as (target, label number); `kept[label]`: per node position the output
    facts of its step on such an edge (None: it did not step); `components`: the SCCs with a cycle to start from.
    `accepts(members, allowed)`: when given, the edges inside `members` that `allowed` keeps are a run only when it
    holds (a Büchi condition, the choice runs' well-foundedness: `choice`, `choice_over`); a part of a component it
    rejects is rejected too (no part is split for it). `split(edges, members, allowed)`: the parts a run may stay
    in (default: the SCCs with a cycle; the fair parts of `interleavings`)."""
    everything = lambda label: True  # noqa: E731
    split = split or _subcomponents
    work = [(frozenset(c), _ult(edges, kept, frozenset(c), everything)) for c in components]
    if accepts is not None:
        work = [(c, items) for c, items in work if accepts(c, everything)]
    seen = set(work)
    found: dict[frozenset[Item], frozenset[int]] = {}
    while work:
        members, items = work.pop()
        found.setdefault(items, members)
        inside = _keeps(kept, items)
        candidates = {(i, f) for v in members for w, label in edges[v] if w in members and inside(label)
                      for i, facts in enumerate(kept[label]) if facts is not None for f in facts} - items
        for item in sorted(candidates):
            allowed = _keeps(kept, items | {item})
            for sub in split(edges, members, allowed):
                if accepts is not None and not accepts(sub, allowed):
                    continue
                pair = (sub, _ult(edges, kept, sub, allowed))
                if pair not in seen:
                    if len(seen) >= MAX_COMPONENTS:
                        return found, False
                    seen.add(pair)
                    work.append(pair)
    return found, True


# ---------------------------------------------------------------------------
# Witness lassos and the threshold

Edge = tuple[int, int, int]
"""(source configuration, target configuration, label number)."""


def _shortest_paths(graph: Graph, roots=(0,)) -> tuple[list[Edge | None], list[int]]:
    """Breadth first from the start (or from `roots`): per configuration, the edge that first reached it (None for a
    root) and its distance from the roots (-1: not reached)."""
    parents: list[Edge | None] = [None] * len(graph.configurations)
    depth = [-1] * len(graph.configurations)
    for root in roots:
        depth[root] = 0
    queue = deque(roots)
    while queue:
        v = queue.popleft()
        for w, label in graph.edges[v]:
            if depth[w] < 0:
                depth[w] = depth[v] + 1
                parents[w] = (v, w, label)
                queue.append(w)
    return parents, depth


def shortest_path(graph: Graph, members: frozenset[int], allowed, source: int, goal: int) -> list[Edge]:
    """A shortest path from `source` to `goal` inside `members`, on the edges `allowed` keeps."""
    parents: dict[int, Edge | None] = {source: None}
    queue = deque([source])
    while queue and goal not in parents:
        v = queue.popleft()
        for w, label in graph.edges[v]:
            if w in members and w not in parents and allowed(label):
                parents[w] = (v, w, label)
                queue.append(w)
    path: list[Edge] = []
    while parents[goal] is not None:
        path.append(parents[goal])
        goal = parents[goal][0]
    return path[::-1]


def _witness(graph: Graph, kept, parents: list[Edge | None], depth: list[int], members: frozenset[int],
             items: frozenset[Item], acceptance=None, rooted: bool = False):
    """A lasso that ultimately holds exactly `items`: a shortest prefix into `members`, then a closed walk in it
    that passes, for each output fact a step of the component has and `items` lacks, a step without it (and an
    edges `acceptance` says it `passes`, when given). `rooted`: with the root its prefix starts from (`_shortest_paths`
    from several roots)."""
    allowed = _keeps(kept, items)
    inner = [(v, w, label) for v in sorted(members) for w, label in graph.edges[v] if w in members and allowed(label)]
    entry = min((v for v in members if depth[v] >= 0), key=lambda v: (depth[v], v))
    breakers: list[Edge] = []
    lacks = lambda edge, i, f: kept[edge[2]][i] is not None and f not in kept[edge[2]][i]  # noqa: E731
    for i, f in sorted({(i, f) for _, _, label in inner for i, facts in enumerate(kept[label]) if facts for f in facts} - items):
        if not any(lacks(edge, i, f) for edge in breakers):
            breakers.append(next(e for e in inner if lacks(e, i, f)))
    if acceptance is not None:
        breakers += acceptance.passes(inner, breakers)
    if not breakers:
        breakers.append(next(e for e in inner if e[0] == entry))
    loop, current = [], entry
    for edge in breakers:
        loop += shortest_path(graph, members, allowed, current, edge[0]) + [edge]
        current = edge[1]
    loop += shortest_path(graph, members, allowed, current, entry)
    prefix: list[Edge] = []
    v = entry
    while parents[v] is not None:
        prefix.append(parents[v])
        v = parents[v][0]
    show = getattr(graph, "show", None) or (lambda edges: shown_steps(graph, edges))  # the choice graph shows its own
    lasso = Lasso(len(prefix), len(loop), show(prefix[::-1] + loop))
    return (lasso, v) if rooted else lasso


def shown_steps(graph: Graph, edges: list[Edge]) -> tuple[dict, ...]:
    """The transitions of a lasso as the user reads them: per stepping node its step, its facts and its messages."""
    system, names = graph.system, graph.names
    steps = [0] * len(names)
    shown = []
    cache: dict = {}

    def text(fact) -> str:  # a lasso may have 10^5 steps: each fact is written once
        if fact not in cache:
            cache[fact] = show_fact(*system.fact(fact))
        return cache[fact]

    for v, w, label in edges:
        target, wanted = graph.configurations[w], graph.labels[label]
        source = graph.configurations[v]
        move = min((m for t, l, m in graph.successors(source) if t == target and l == wanted), key=lambda m: m.faults)
        nodes = {}
        for i, received, sent in move.steps:
            every = graph.step(i, source.parts[i], received, i in target.crashed).sent
            travelled = {(j, fact) for j, facts in sent for fact in facts}
            lost = {(j, fact) for j, facts in every for fact in facts} - travelled
            nodes[str(names[i])] = {
                "step": steps[i],
                "facts": sorted(text(f) for f in wanted[i] - system.inputs[i]),
                "received": sorted(text(fact) for _, fact in received),
                "sent": sorted(f"{text(fact)} to {names[j]}" for j, fact in travelled),
                "lost": sorted(f"{text(fact)} to {names[j]}" for j, fact in lost),
            }
            steps[i] += 1
        shown.append({"nodes": nodes, "crashes": sorted(str(names[i]) for i in move.crashes)})
    return tuple(shown)


def threshold_of(graph: Graph, components: list[list[int]], budget: int = LONGEST_PATH_BUDGET) -> tuple[int, bool]:
    """The completeness threshold K as the explorer sees it: the most configurations on a path of distinct ones from
    the start (every lasso of the graph, L + P transitions from the start back into its loop, has at most that many
    steps), and whether it is exact. The heaviest chain of SCCs from the start's, each weighing its size, bounds it
    from above and is exact when every SCC is one configuration; otherwise a depth-first search of the paths of
    distinct configurations, pruned by that bound, gives it exactly within `budget` visits (else the bound)."""
    owner = [0] * len(graph.configurations)
    for k, component in enumerate(components):
        for v in component:
            owner[v] = k
    heaviest = [0] * len(components)
    for k, component in enumerate(components):  # Tarjan's order: a component after every one it reaches
        below = [heaviest[owner[w]] for v in component for w, _ in graph.edges[v] if owner[w] != k]
        heaviest[k] = len(component) + max(below, default=0)
    bound = heaviest[owner[0]]
    if all(len(c) == 1 for c in components):
        return bound, True
    best, visits = 1, 0
    successors = [sorted({w for w, _ in graph.edges[v]}) for v in range(len(graph.configurations))]
    path, on_path = [0], {0}  # the path of distinct configurations, and the iterators of its successors
    stack = [iter(successors[0])]
    while stack:
        if best == bound:
            return bound, True
        w = next(stack[-1], None)
        if w is None:
            stack.pop()
            on_path.discard(path.pop())
            continue
        if w in on_path or len(path) + heaviest[owner[w]] <= best:
            continue  # a repeat, or no longer path through w
        visits += 1
        if visits > budget:
            return bound, False
        path.append(w)
        on_path.add(w)
        stack.append(iter(successors[w]))
        best = max(best, len(path))
    return best, True
