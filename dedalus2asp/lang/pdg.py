"""The predicate dependency graph (PDG) of the Dedalus properties draft's §Temporal Stratification.

A vertex per relation and an edge head ← body (`Dependency`) for every rule
that reads `body` and derives `head`, labelled ¬ when some such rule negates
or aggregates over `body`, + when every such rule is inductive or asynchronous
(`dependencies`). Global rules observe a run and never steer it, so they are
left out (`graph_rules`). `reachable` is the data flow along the edges,
`shortest_path` a path between two relations; `coordination` reads the graph.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable, Iterator

from .ast import Arithmetic, Literal, Program, Rule, RuleKind


@dataclass(frozen=True)
class Dependency:
    """An edge of the PDG: `head` depends on `body` through the rules numbered `rules`."""

    head: str
    body: str
    negated: bool
    aggregated: bool
    temporal: bool
    rules: tuple[int, ...]
    read_positively: bool = False
    """Some rule with that head reads `body` positively outside an aggregate: the edge is monotone through that rule
    even when another rule negates `body` (it then joins the two in a monotonic component)."""

    @property
    def monotone(self) -> bool:
        return not (self.negated or self.aggregated)

    @property
    def labels(self) -> str:
        """The edge's labels as the draft writes them: `¬`, `+`, both, or none (an aggregate is `¬`)."""
        return ("" if self.monotone else "¬") + ("+" if self.temporal else "")

    def as_dict(self) -> dict:
        return {"head": self.head, "body": self.body, "negated": self.negated, "aggregated": self.aggregated,
                "temporal": self.temporal, "rules": list(self.rules), "read_positively": self.read_positively}


def graph_rules(program: Program) -> tuple[Rule, ...]:
    return tuple(r for r in program.rules if r.kind is not RuleKind.GLOBAL)


def literals(rule: Rule) -> Iterable[Literal]:
    return (b for b in rule.body if isinstance(b, Literal))


def dependencies(program: Program) -> tuple[Dependency, ...]:
    """The PDG's edges, in the order of the rules that first make them."""
    edges: dict[tuple[str, str], list] = {}
    for rule in graph_rules(program):
        temporal = rule.kind in (RuleKind.INDUCTIVE, RuleKind.ASYNC)
        for literal in literals(rule):
            key = (rule.head.predicate, literal.atom.predicate)
            edge = edges.setdefault(key, [False, False, True, [], False])
            edge[0] |= literal.negated
            edge[1] |= bool(rule.aggregates)
            edge[2] &= temporal
            if rule.number not in edge[3]:
                edge[3].append(rule.number)
            edge[4] |= not literal.negated and not rule.aggregates
    return tuple(Dependency(h, b, neg, agg, temp, tuple(rules), plain)
                 for (h, b), (neg, agg, temp, rules, plain) in edges.items())


def reachable(deps: Iterable[Dependency]) -> dict[str, set[str]]:
    """relation → the relations derived from it through any rules (itself included): the data flow."""
    flows: dict[str, set[str]] = defaultdict(set)
    for d in deps:
        flows[d.body].add(d.head)
    reach: dict[str, set[str]] = defaultdict(set)
    for start in list(flows) + [d.head for d in deps]:
        if start in reach:
            continue
        seen, todo = {start}, [start]
        while todo:
            for nxt in flows.get(todo.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        reach[start] = seen
    return reach


def shortest_path(succ: dict[str, list[str]], start: str, goal: str,
                  allowed: set[str] | None = None) -> list[str] | None:
    """A shortest path start → goal along `succ` (breadth first), through `allowed` vertices only if given, or None."""
    previous, frontier = {start: None}, [start]
    while frontier and goal not in previous:
        following = []
        for v in frontier:
            for w in succ.get(v, ()):
                if (allowed is None or w in allowed) and w not in previous:
                    previous[w] = v
                    following.append(w)
        frontier = following
    if goal not in previous:
        return None
    path, v = [], goal
    while v is not None:
        path.append(v)
        v = previous[v]
    return path[::-1]


def computed_on_cycle(rules: Iterable[Rule], component: dict[str, int]) -> Iterator[tuple[Rule, Arithmetic]]:
    """The rules that compute a new value in their head (`p(X + 1) :- p(X).`) with no comparison in the body to
    bound it, while reading positively a relation of the head's strongly connected `component`; with that value."""
    for rule in rules:
        computed = next((a for a in rule.head.args if isinstance(a, Arithmetic)), None)
        if computed is None or rule.comparisons:
            continue
        if any(component.get(a.predicate) == component.get(rule.head.predicate) for a in rule.positive):
            yield rule, computed
