"""Runs whose nodes' clocks drift apart: tplp2016's free local clocks for a prefix, then rounds.

The eventual mode steps the nodes in rounds (`configurations`): a message sent at round s arrives at a round
s+1..s+D. tplp2016 §5.1 gives each node its own clock instead: a transition is one node's step, and under a delay
bound D a message sent at step s of x arrives at a step t ≤ s + D of its addressee y, which is at or before s when
y's clock is behind x's (examples/coordination/race.ded: msg(1), sent at a's step 0, reaches b at its step 0). Those
runs are not all runs in rounds, and no cap on how far the clocks drift apart makes them finitely many
configurations exactly: a node that never hears from another may lag it by any number of steps, and a program may
count them (docs/semantics.md, "Decision: the rounds").

What is built here is sound, not complete. A run whose nodes each take their steps 0..h under free clocks (any
interleaving of tplp2016's transitions, the search of `operational` without the histories) and which then goes on
in rounds is a genuine infinite causal run: in the prefix a message enters its addressee's buffer when it is sent
(causality, §5.1.4); after it, every step of round k > h follows every step of the prefix, and a message goes
forward in the rounds; the delay bound holds, a message still in flight at the end of the prefix arriving at a
step h+1..s+D; and the run is fair (every node steps in every round, every message arrives). `prefixes` finds the
end configurations of every free-clock prefix of horizon h ≤ T (per node: the facts carried into step h+1, the
messages in flight with their sender and send step), `starts` turns each into the rounds configurations it may go
on from (each message in flight choosing its arrival round), and the configuration graph grown from those roots
(`Graph.build(roots=...)`) has in its strongly connected parts the ultimate outputs of those runs
(`eventual.explore(free_clocks=True)`). The prefix has no faults: a run without them is a run of a faulty
network too. What certifies that no other output exists is an over-approximation, the fair asynchronous
interleavings (`interleavings`).

Public names: `prefixes`, `Prefixes`, `starts`, `shown`, `Clocked`, `DRIFT_LIMIT`, `may_drift`, `UNCHECKED`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from itertools import combinations, product
from typing import Iterator, NamedTuple

from ..bounds import Network
from ..lang.ast import Instance, Program, show_fact
from .configurations import Configuration, Local
from .transitions import GroundFact, Packet, System

DRIFT_LIMIT = 20_000
"""The most free-clock configurations `prefixes` meets before it stops at the last horizon it finished."""

DRIFT_SECONDS = 2.0
"""The longest `prefixes` searches, and the longest the graph grows from the prefixes' ends (`eventual.drifted`)."""


class Clocked(NamedTuple):
    """One node's part of a free-clock configuration: its next step, st(x) and bf(x) (packets: sender position,
    send step, addressee position, fact)."""

    step: int
    state: frozenset[GroundFact]
    buffer: frozenset[Packet]


Free = tuple[Clocked, ...]
Move = tuple[int, frozenset[Packet]]
"""One transition: the position of the node that steps and the packets it receives."""


@dataclass(frozen=True)
class Prefixes:
    """What `prefixes` found: `ends`, per horizon h, the end configurations of the free-clock prefixes in which every
    node took its steps 0..h, each with one sequence of transitions that reaches it; `horizon`, the largest h whose
    ends are all found (-1: none); `states`, the configurations met; `stopped`: why the search stopped before T
    ("" when it reached it)."""

    ends: dict[int, dict[Free, tuple[Move, ...]]]
    horizon: int
    states: int
    stopped: str = ""


def _subsets(items: list) -> Iterator[tuple]:
    for size in range(len(items) + 1):
        yield from combinations(items, size)


def _successors(system: System, config: Free, horizon: int, delay: int) -> Iterator[tuple[Move, Free]]:
    """Every transition of a node with steps left (up to `horizon`), as `operational` makes them without faults:
    a message is received by force at its addressee's step s + D, at will before; a transition that sends to a
    node already past the message's deadline is no run."""
    for i, local in enumerate(config):
        t = local.step
        if t > horizon:
            continue
        forced = frozenset(p for p in local.buffer if p[1] + delay == t)
        optional = sorted(p for p in local.buffer if p[1] + delay > t)
        for chosen in _subsets(optional):
            delivered = forced.union(chosen)
            step = system.step(i, local.state.union(p[3] for p in delivered), t)
            target = list(config)
            target[i] = Clocked(t + 1, step.state, local.buffer - delivered)
            if any(target[j].step > t + delay for j, _ in step.sent):
                continue
            for j, facts in step.sent:
                target[j] = target[j]._replace(buffer=target[j].buffer.union((i, t, j, f) for f in facts))
            yield (i, delivered), tuple(target)


def prefixes(system: System, horizon: int, delay: int, limit: int = DRIFT_LIMIT,
             seconds: float | None = None) -> Prefixes:
    """The end configurations of the free-clock prefixes of every horizon h ≤ `horizon` (module docstring), breadth
    first: the ends of horizon h are the configurations n(h+1) transitions deep (n nodes) in which every node has
    taken h+1 steps, all found once that depth is reached. Past `limit` configurations or `seconds`, the search
    stops and `horizon` is the last h it finished."""
    end = None if seconds is None else time.perf_counter() + seconds
    n = len(system.names)
    start: Free = tuple(Clocked(0, facts, frozenset()) for facts in system.inputs)
    parent: dict[Free, tuple[Free, Move] | None] = {start: None}
    layer, depth, done = [start], 0, -1
    ends: dict[int, dict[Free, tuple[Move, ...]]] = {}
    stopped = ""
    while layer:
        if depth % n == 0 and depth:
            h = depth // n - 1
            ends[h] = {c: _path(parent, c) for c in layer if all(local.step == h + 1 for local in c)}
            done = h
            if h >= horizon:
                break
        following = []
        for config in layer:
            for move, target in _successors(system, config, horizon, delay):
                if target not in parent:
                    parent[target] = (config, move)
                    following.append(target)
            if len(parent) > limit or (end is not None and time.perf_counter() > end):
                stopped = (f"the free-clock prefixes passed {limit} configurations" if len(parent) > limit else
                           f"the free-clock prefixes took more than {seconds:g} s")
                return Prefixes({h: e for h, e in ends.items() if h <= done}, done, len(parent), stopped)
        layer, depth = following, depth + 1
    return Prefixes(ends, done, len(parent), stopped)


def _path(parent: dict, config: Free) -> tuple[Move, ...]:
    moves = []
    while parent[config] is not None:
        config, move = parent[config]
        moves.append(move)
    return tuple(moves[::-1])


def starts(config: Free, h: int, delay: int, cap: int) -> Iterator[tuple[Configuration, tuple[tuple[Packet, int], ...]]]:
    """The rounds configurations a free-clock prefix ending in `config` (every node past its step h) goes on from:
    every node at step h+1 (its clock capped at `cap`, as `Graph` caps it), each message in flight arriving at a
    step h+1..s+D of its addressee, chosen here; with the arrivals chosen, (packet, arrival step)."""
    clock = min(h + 1, cap)
    per_node = []  # per node: each distinct buffer (wait, fact) the arrivals give, with one choice of arrivals for it
    for local in config:
        buffers: dict[frozenset, tuple] = {frozenset(): ()}
        for p in sorted(local.buffer):  # copies of one fact that arrive together are one message in the buffer
            buffers = {b | {(a - h - 1, p[3])}: (*chosen, (p, a))
                       for b, chosen in buffers.items() for a in range(h + 1, p[1] + delay + 1)}
        per_node.append(list(buffers.items()))
    for choice in product(*per_node):
        parts = tuple(Local(clock, local.state, buffer) for local, (buffer, _) in zip(config, choice))
        yield Configuration(parts, frozenset()), tuple(pair for _, chosen in choice for pair in chosen)


def shown(system: System, moves: tuple[Move, ...],
          arrivals: tuple[tuple[Packet, int], ...]) -> tuple[tuple[dict, ...], tuple[str, ...]]:
    """A free-clock prefix as the user reads it: per transition, the node, its step, the facts it derived (D without
    its input facts), the messages it received (with sender and send step) and sent; and the messages still in
    flight at its end, with the arrival the continuation gives them."""
    names, fact = system.names, lambda f: _text(system, f)  # noqa: E731
    config: Free = tuple(Clocked(0, facts, frozenset()) for facts in system.inputs)
    rows = []
    for i, delivered in moves:
        local = config[i]
        step = system.step(i, local.state.union(p[3] for p in delivered), local.step)
        rows.append({
            "node": str(names[i]), "step": local.step,
            "facts": sorted(fact(f) for f in step.deduced - system.inputs[i]),
            "received": sorted(f"{fact(p[3])} from {names[p[0]]}@{p[1]}" for p in delivered),
            "sent": sorted(f"{fact(f)} to {names[j]}" for j, fs in step.sent for f in fs),
        })
        target = list(config)
        target[i] = Clocked(local.step + 1, step.state, local.buffer - delivered)
        for j, facts in step.sent:
            target[j] = target[j]._replace(buffer=target[j].buffer.union((i, local.step, j, f) for f in facts))
        config = tuple(target)
    in_flight = sorted(f"{fact(p[3])} from {names[p[0]]}@{p[1]} arrives at {names[p[2]]}@{a}" for p, a in arrivals)
    return tuple(rows), tuple(in_flight)


def _text(system: System, fact: GroundFact) -> str:
    return show_fact(*system.fact(fact))


UNCHECKED = "the explorer's graph did not close"
"""Why the runs with free clocks were not followed where the solver's thresholds answer."""


def may_drift(program: Program, instance: Instance | None, network: Network) -> bool:
    """Whether runs with free clocks may differ from those in rounds, read off the program alone: a delay bound
    (not sync), an asynchronous rule, two nodes or more, and no lock-step rule (Molly's, which reads several nodes
    at one step: its time is global by definition)."""
    populated = network.populate(instance) if instance is not None else None
    nodes = populated.network if populated is not None else ()
    return (not network.sync and network.max_delay is not None and bool(program.async_relations()) and len(nodes) > 1
            and not program.lockstep_rules())
