"""The explorer's eventual invariant verdict: does every `pre` row ultimately have its `post` row, in every run?

Molly (Alvaro, Rosen, Hellerstein, *Lineage-driven fault injection*, SIGMOD 2015, §3) checks
"for every row in `pre` there is a matching row in `post`" at the end of time EOT. Over infinite
runs the question is the LTL property FG(pre(w) → post(w)) for every row w: it fails on a run iff
some row w has pre(w) without post(w) at infinitely many steps — exactly "bounded verify at EOT t
has a counterexample for infinitely many t". On the configuration graph (`configurations.Graph`,
rounds, faults in the prefix) such a run exists iff some edge inside a strongly connected component
(an edge on a cycle) is a round at which some pre row has no post row: the lasso that reaches
that component and goes round a cycle through that edge repeats the violation forever; and a run
that violates infinitely often uses such an edge infinitely often.

Rows are read as `verify` reads them: a global relation's arguments (its global rules evaluated
over the facts of all nodes at the round, `local.observed`; the graph `observe`s, so that a
global rule's body atom at a fixed step k reads the round-k facts each configuration remembers),
or a located relation's node followed by its arguments.

* **violated**: the witness lasso with the fewest faults — crashes plus omissions, counted as
  `questions.verdict.fault_count` counts a counterexample's (`configurations.Graph.faults`: one
  per cut channel under `--omission channel`, none for a message lost to its sender's crash).
  Faults happen in the prefix only (no edge of a cycle has one), so the fewest faults of a
  counterexample are the fewest faults on a path from the start to a component with a violating
  edge (Dijkstra over the edges' fault counts); the lasso is such a path, then a closed walk in
  the component through the violating edge. `violated_at` is that round's index in the lasso's
  steps, `missing` its pre rows without their post rows.
* **holds**: no edge on a cycle violates; **vacuously** when no edge on a cycle has a pre row at
  all ("no run ever has a pre fact from some step on": every run's pre rows stop).
* not exact (`holds` None): the graph passed its configuration limit.

The verdict also gives the graph's size and the explorer's completeness threshold K (the
heaviest chain of components: an upper bound, K itself when `threshold_exact`).

Public names: `verify` (the verdict of P on H under `bounds.network`), `EventualVerdict`
(`as_dict` for JSON), `InvariantRelations` (bad pre/post relations).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field, replace

import clingo

from ..bounds import Bounds, Mode
from ..lang.ast import GLOBAL_NODE, Instance, Program, show_fact
from .configurations import ConfigurationLimit, Graph
from .eventual import (Lasso, build, cyclic, drift_reason, graph_of, may_drift, shortest_path, shown_steps, strongly_connected,
                       threshold_of)
from .local import observed

Row = tuple[clingo.Symbol, ...]


class InvariantRelations(ValueError):
    """`pre` or `post` is no relation of the program, or their rows have different widths."""


@dataclass(frozen=True)
class EventualVerdict:
    """The eventual verdict of an invariant (see the module's docstring).

    holds: True, False (a counterexample lasso in `witness`) or None (not exact: `reason`). vacuous: it holds
    because no run has a pre row from some step on. faults: the fewest faults of a counterexample. missing: the pre
    rows without their post rows at round `violated_at` of the witness (a loop round). crashes, lost: the
    witness's crashes as (node, step), and its lost messages as "fact from x at step s to y" (as `verify` writes
    them), marked "(crashed)" when lost to its sender's crash (no fault of its own). configurations, edges, components,
    threshold, threshold_exact: the graph (as `eventual.Eventual`)."""

    holds: bool | None
    vacuous: bool
    bounds: Bounds
    pre: str
    post: str
    configurations: int
    edges: int
    components: int
    threshold: int | None
    threshold_exact: bool
    faults: int | None = None
    missing: tuple[str, ...] = ()
    witness: Lasso | None = None
    violated_at: int | None = None
    crashes: tuple[tuple[str, int], ...] = ()
    lost: tuple[str, ...] = ()
    reason: str = ""
    nodes: tuple[str, ...] = field(default=())
    in_rounds: bool = False
    """"holds" over the runs in rounds only: under a delay bound a node sends to another, so the nodes' clocks may
    drift apart (`eventual.may_drift`; docs/semantics.md, "Decision: the rounds"), and the answer is not exact."""

    @property
    def exact(self) -> bool:
        return self.holds is not None and not self.in_rounds

    def as_dict(self) -> dict:
        return {
            "mode": self.bounds.mode.value,
            "holds": self.holds,
            "vacuous": self.vacuous,
            "exact": self.exact,
            "reason": self.reason or None,
            "pre": self.pre,
            "post": self.post,
            "faults": self.faults,
            "missing": list(self.missing),
            "violated_at": self.violated_at,
            "crashed": [{"node": x, "step": s} for x, s in self.crashes],  # "crashes" is the budget (the network's)
            "lost": list(self.lost),
            "witness": self.witness.as_dict() if self.witness else None,
            "configurations": self.configurations,
            "edges": self.edges,
            "components": self.components,
            "threshold": self.threshold,
            "threshold_exact": self.threshold_exact,
            "nodes": list(self.nodes),
            "max_delay": self.bounds.network.max_delay,
            **self.bounds.network.as_dict(),
        }


def _width(program: Program, name: str, option: str) -> tuple[int, bool]:
    arities = program.schema()
    if name not in arities:
        known = ", ".join(sorted(program.idb())) or "none"
        raise InvariantRelations(
            f"the program has no relation '{name}' to verify (give {option} R; the relations its rules derive: {known})")
    is_global = name in program.global_relations()
    return arities[name] + (0 if is_global else 1), is_global


def verify(
    program: Program, instance: Instance, bounds: Bounds, pre: str = "pre", post: str = "post",
    max_configurations: int = 1_000_000,
) -> EventualVerdict:
    """The eventual verdict of the invariant `pre` → `post` of P on H under `bounds.network` (`bounds.mode` must be
    `Mode.EVENTUAL`). Raises InvariantRelations for a bad pre/post pair and ValueError when the network is not
    finite-state by construction (`configurations.Graph`) or there is no node."""
    if bounds.mode is not Mode.EVENTUAL:
        raise ValueError(f"the eventual verdict answers the eventual mode, not {bounds.mode.value!r}")
    (k, pre_global), (k_post, post_global) = _width(program, pre, "--pre"), _width(program, post, "--post")
    if k != k_post:
        raise InvariantRelations(
            f"a row of '{pre}' has {k} column{'s' * (k != 1)} and one of '{post}' {k_post} (a located relation's "
            "location column counts): a pre row is matched by the post row with the same columns")
    graph = graph_of(program, instance, bounds, observe=True)
    nodes = tuple(str(x) for x in graph.names)
    try:
        build(graph, max_configurations)
    except ConfigurationLimit as stop:
        return EventualVerdict(None, False, bounds, pre, post, stop.configurations, sum(map(len, graph.edges)), 0,
                               None, False, reason=str(stop), nodes=nodes)
    found = _verdict(graph, bounds, pre, post, pre_global, post_global, nodes)
    if found.holds and may_drift(graph):  # a counterexample lasso is a run whatever the clocks; "holds" is not
        return replace(found, in_rounds=True, reason=drift_reason(-1, "the graph of the invariant follows the runs in "
                                                                    "rounds only (verify --eventual checks the others)"))
    return found


class _Rows:
    """The pre and post rows of a round: from an edge's label and its source's clock and memory, memoized."""

    def __init__(self, graph: Graph, pre: str, post: str, pre_global: bool, post_global: bool):
        self.graph, self.pre, self.post = graph, pre, post
        self.pre_global, self.post_global = pre_global, post_global
        self.needs_globals = pre_global or post_global
        self.last = max(graph.remembered) + 1 if graph.remembered else 0
        self._memo: dict = {}

    def __call__(self, v: int, label: int) -> tuple[frozenset[Row], frozenset[Row]]:
        config = self.graph.configurations[v]
        clock = min(config.parts[0].clock, self.last) if config.parts else 0
        key = (label, clock, config.memory) if self.needs_globals else label
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = self._rows(self.graph.labels[label], clock, config.memory)
        return found

    def _rows(self, label, clock: int, memory) -> tuple[frozenset[Row], frozenset[Row]]:
        graph, system = self.graph, self.graph.system
        names = graph.names
        held: dict[str, set[Row]] = {self.pre: set(), self.post: set()}
        for i, facts in enumerate(label):
            for fact in facts or ():
                if fact[0] in held:
                    relation, args = system.fact(fact)
                    if not (relation == self.pre and self.pre_global) and not (relation == self.post and self.post_global):
                        held[relation].add((names[i], *args))
        if self.needs_globals:
            # the round as step `clock` of a run whose earlier fixed steps hold the remembered facts (steps a global
            # rule reads at a fixed step are remembered; other earlier steps are never read)
            trace = {(names[i], k, *system.fact(f)) for k, facts in memory for i, f in facts}
            trace |= {(names[i], clock, *system.fact(f)) for i, facts in enumerate(label) for f in facts or ()}
            for x, s, relation, args in observed(system.plan, frozenset(trace), clock + 1):
                if x == GLOBAL_NODE and s == clock and relation in held:
                    if (relation == self.pre and self.pre_global) or (relation == self.post and self.post_global):
                        held[relation].add(tuple(args))
        return frozenset(held[self.pre]), frozenset(held[self.post])


def _fewest_faults(graph: Graph) -> tuple[list[tuple[int, int]], list[tuple[int, int, int] | None]]:
    """Dijkstra from the start over the edges' fewest faults (ties: fewer transitions): per configuration the
    (fewest faults, fewest transitions with them) of a path to it, and the edge that reached it so."""
    size = len(graph.configurations)
    best: list[tuple[int, int] | None] = [None] * size
    parent: list[tuple[int, int, int] | None] = [None] * size
    best[0] = (0, 0)
    queue = [(0, 0, 0)]
    while queue:
        faults, hops, v = heapq.heappop(queue)
        if best[v] != (faults, hops):
            continue
        for (w, label), f in zip(graph.edges[v], graph.faults[v]):
            candidate = (faults + f, hops + 1)
            if best[w] is None or candidate < best[w]:
                best[w], parent[w] = candidate, (v, w, label)
                heapq.heappush(queue, (*candidate, w))
    return best, parent  # every configuration is reachable: no None is left


def _verdict(graph: Graph, bounds: Bounds, pre: str, post: str, pre_global: bool, post_global: bool,
             nodes: tuple[str, ...]) -> EventualVerdict:
    size = len(graph.configurations)
    successors = lambda v: [w for w, _ in graph.edges[v]]  # noqa: E731
    every = strongly_connected(size, successors)
    components = [c for c in every if cyclic(c, successors)]
    threshold, threshold_exact = threshold_of(graph, every)
    rows = _Rows(graph, pre, post, pre_global, post_global)
    shape = dict(configurations=size, edges=sum(map(len, graph.edges)), components=len(components),
                 threshold=threshold, threshold_exact=threshold_exact, nodes=nodes)
    faults, parent = _fewest_faults(graph)
    any_pre, best = False, None  # best: (faults, prefix length, violating edge, component)
    for component in components:
        members = frozenset(component)
        for v in sorted(members):
            for w, label in graph.edges[v]:
                if w not in members:
                    continue
                pres, posts = rows(v, label)
                any_pre = any_pre or bool(pres)
                if pres - posts:
                    key = (faults[v][0], faults[v][1], v)
                    if best is None or key < best[0]:
                        best = (key, (v, w, label), members)
    if best is None:
        return EventualVerdict(True, not any_pre, bounds, pre, post, **shape)
    _, (v, w, label), members = best
    entry = min(members, key=lambda u: (faults[u], u))  # all of a component's paths have its fewest faults
    everything = lambda _: True  # noqa: E731
    loop = shortest_path(graph, members, everything, entry, v) + [(v, w, label)] + shortest_path(graph, members, everything, w, entry)
    prefix, u = [], entry
    while parent[u] is not None:
        prefix.append(parent[u])
        u = parent[u][0]
    prefix.reverse()
    steps = shown_steps(graph, prefix + loop)
    witness = Lasso(len(prefix), len(loop), steps)
    pres, posts = rows(v, label)
    missing = tuple(sorted(show_fact(pre, row) for row in pres - posts))
    at = len(prefix) + loop.index((v, w, label))
    crashes = tuple((x, k) for k, step in enumerate(steps) for x in step["crashes"])
    down = {x: k for x, k in reversed(crashes)}  # each node's crash step
    lost = tuple(f"{fact} from {x} at step {k} to {y}" + (" (crashed)" if down.get(x, k + 1) <= k else "")
                 for k, step in enumerate(steps) for x, node in step["nodes"].items()
                 for fact, _, y in (m.rpartition(" to ") for m in node["lost"]))  # shown_steps writes "fact to y"
    return EventualVerdict(False, False, bounds, pre, post, faults=faults[entry][0], missing=missing, witness=witness,
                           violated_at=at, crashes=crashes, lost=lost, **shape)
