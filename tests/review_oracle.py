"""An oracle for the review of the eventual mode's "exact" (tests/test_review_exact.py), written without the
interleavings or the rounds graph: the runs with free clocks whose nodes never lag each other by more than L steps.

A configuration keeps per node its capped step, the offset of its step from the least step of all nodes (0..L), st(x)
and its buffer, each message with its deadline relative to that least step (tplp2016 §5.1 with a delay bound D: a
message sent at step s of x is received at a step of its addressee ≤ s + D, strictly after its send). A transition is
one node's step (only a node whose offset is below L may step): it receives every message at its deadline and any
subset of the others, and a transition that sends to a node already past the message's deadline is no run.

Every infinite path is a fair run: the node with the least step may always step, so a node that stepped finitely
often would stop every other within L steps; every message has a deadline at a node that steps infinitely often. So
every strongly connected edge set is a genuine infinite causal run within the delay bound, and its ultimate output is
every tplp2016 run's with those edges: the outputs listed here are some runs' (an under-approximation). The ultimate
sets are enumerated naively: for every set R of (node, output fact) pairs a component has, the SCCs of its edges that
keep R, each a run that ultimately holds at least R.
"""

from __future__ import annotations

from itertools import chain, combinations

from dedalus2asp.lang.analysis import strongly_connected


def _subsets(items):
    items = sorted(items)
    return chain.from_iterable(combinations(items, k) for k in range(len(items) + 1))


def lagged_outputs(system, delay: int, lag: int, outputs: tuple[str, ...], cap: int, limit: int = 20_000):
    """The ultimate outputs (sets of (node position, fact)) of the runs with free clocks whose offsets stay ≤ `lag`;
    None past `limit` configurations."""
    n = len(system.names)
    start = tuple((0, 0, facts, frozenset()) for facts in system.inputs)
    numbers, configs, edges = {start: 0}, [start], [[]]
    k = 0
    while k < len(configs):
        config = configs[k]
        for i, (clock, offset, state, buffer) in enumerate(config):
            if offset >= lag and n > 1:
                continue
            forced = frozenset(m for m in buffer if m[0] == offset)
            optional = sorted(m for m in buffer if m[0] > offset)
            for chosen in _subsets(optional):
                delivered = forced.union(chosen)
                step = system.step(i, state.union(f for _, f in delivered), clock)
                target = [list(p) for p in config]
                target[i] = [min(clock + 1, cap), offset + 1, step.state, buffer - delivered]
                if any(target[j][1] > offset + delay for j, _ in step.sent):
                    continue  # an addressee already past the deadline: no run goes on
                for j, facts in step.sent:
                    target[j][3] = target[j][3].union((offset + delay, f) for f in facts)
                least = min(p[1] for p in target)
                normal = tuple((c, o - least, s, frozenset((d - least, f) for d, f in b)) for c, o, s, b in target)
                number = numbers.get(normal)
                if number is None:
                    if len(configs) >= limit:
                        return None
                    number = numbers[normal] = len(configs)
                    configs.append(normal)
                    edges.append([])
                kept = frozenset((i, f) for f in step.deduced if f[0] in outputs)
                edges[k].append((number, i, kept))
        k += 1
    found = set()
    every = list(range(len(configs)))

    def parts(members, allowed):
        succ = {v: [w for w, i, kept in edges[v] if w in members and allowed(i, kept)] for v in members}
        for component in strongly_connected(sorted(members), succ):
            if len(component) > 1 or component[0] in succ[component[0]]:
                yield frozenset(component)

    def ult(members, allowed):
        per_node = {}
        for v in members:
            for w, i, kept in edges[v]:
                if w in members and allowed(i, kept):
                    per_node[i] = kept if i not in per_node else per_node[i] & kept
        return frozenset().union(*per_node.values()) if per_node else frozenset()

    for component in parts(set(every), lambda i, kept: True):
        facts = {pair for v in component for w, _, kept in edges[v] if w in component for pair in kept}
        for chosen in _subsets(facts):
            wanted = frozenset(chosen)
            allowed = lambda i, kept, wanted=wanted: all(x != i or (x, f) in kept for x, f in wanted)  # noqa: E731
            for part in parts(component, allowed):
                found.add(ult(part, allowed))
    return found
