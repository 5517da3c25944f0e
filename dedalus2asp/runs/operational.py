"""The operational semantics of Dedalus (tplp2016 §5.1), as an independent oracle.

Every node x of the network N runs the program P. A *configuration* (§5.1.1)
gives each node a state st(x), an instance over sch(P), and a buffer bf(x) of
messages sent to x and not yet delivered. In a *transition* (§5.1.3) one
active node x receives a subset m of its buffer and computes

    I = st(x) ∪ untag(m)        D = deduc_P(I)
    st(x) := H(x) ∪ induc_P(D)  bf(y) := bf(y) ∪ {messages R(ā) | R(y, ā) ∈ async_P(D), y ∈ N}

where deduc_P is the stratified semantics of the deductive rules, and induc_P
and async_P are one derivation step of the inductive and asynchronous rules
(§5.1.2), all three computed by the rule evaluator (`evaluator`, on Python sets:
`local.Node`). A message sent to a node outside N is dropped. The *timestamp* of a
transition is the number of earlier transitions of its node (§5.1.5), and the
*trace* of a run is the union of the sets D of its transitions, each with the
node and timestamp prepended: everything the node holds at that step, input
facts included.

The paper tags a message with the ordinal of the transition that sent it; we
identify it by its sender, the sender's step, the addressee and the fact
(`Message`), which is the same thing: a transition is a (node, step). A
message is delivered only in a transition after the one that sent it (causality,
§5.1.4), because it enters a buffer only when sent.

`explore` enumerates every run prefix in which each node performs exactly
T+1 transitions (steps 0..T), with any interleaving and any delivered subsets;
the messages still buffered at the end are the *pending* ones. Under the faults of
`bounds.network` (docs/faults.md) the search runs once per crash plan (`transitions.crash_plans`:
which nodes crash, at which step), and a message to another node may be lost when it is sent
(`System.outcomes`): it never enters a buffer. `replay` runs one given run prefix under the same
faults, told which messages were lost. Under sync delivery a message sent at step s is
delivered at step s + 1 of its addressee, no earlier and no later. These prefixes
give the traces that tplp2016 Theorem 4, bounded to the horizon T, compares
with the stable models over T. With a delay bound D, a message sent at step s
arrives at a step t ≤ s + D of its addressee, and is pending only if s + D > T.

`explore(..., mode="traces")` computes the same set of traces by a reduced
search that forgets who sent a buffered message and keeps only as many copies
of a fact as can still make a difference; see `reduced` for the reduction
and its proof. The configurations and transitions themselves, on numbered
values, are in `transitions`.
"""

from __future__ import annotations

import gc
import typing
from collections import defaultdict
from dataclasses import dataclass
from functools import partial
from itertools import combinations
from typing import Callable, Iterable, Iterator, Mapping, Sequence

import clingo

from ..bounds import Bounds, Network
from ..lang.ast import Instance, Program, Trace
from ..lang.located import check_events
from .reduced import search_traces
from .transitions import CrashPlan, Delivery, Message, Packet, Part, System, Transition, crash_plans

# ---------------------------------------------------------------------------
# Replaying one run prefix


@dataclass(frozen=True)
class Run:
    """A run prefix replayed: its trace, the messages still buffered, and the steps each node took."""

    trace: Trace
    pending: frozenset[Message]
    steps: Mapping[clingo.Symbol, int]


Schedule = Iterable[tuple[clingo.Symbol, Iterable[Delivery]]]
"""Transitions to replay: the active node and the (sender, send step, fact) delivered to it."""


def replay(
    program: Program,
    instance: Instance,
    transitions: Schedule,
    network: Network = Network(),
    crash: CrashPlan | None = None,
    lost: Iterable[Message] = (),
) -> Run:
    """Run the transitions (active node, delivered (sender, send step, fact)) from start(P, H) (tplp2016 §5.1.3).

    Under faults (docs/faults.md) `network` gives the loss window and the nodes of `--nodes`,
    `crash` the crash plan (node -> crash step: from it on the node's messages to other nodes are
    lost, and crash(y, s) is an input fact of every node when P reads it), and `lost` the
    messages the network lost: each one never enters its addressee's buffer, as in a transition
    of `explore` that chose to lose it. A lost message must be one the network may lose (to
    another node, sent before the loss window ends or by a crashed sender) and one the run sends.

    Raises ValueError if a node is outside the network, a delivered message
    is not in its buffer (never sent to it, already delivered, lost, or not yet sent:
    this is how causality is enforced), or a lost message is one the network cannot lose or
    the run never sends.
    """
    system = System(program, instance, network, crash)
    lost = frozenset(lost)
    for m in sorted(lost):
        if m.sender == m.addressee:
            raise ValueError(f"{_shown(m)}: a message a node sends to itself is never lost")
        stopped = crash is not None and m.sender in crash and crash[m.sender] <= m.step
        if m.step >= system.loss_until and not stopped:
            raise ValueError(
                f"{_shown(m)}: the network cannot lose it (sent at step {m.step}, not before step "
                f"{system.loss_until} where losses end, and its sender has not crashed)"
            )
    dropped: set[Message] = set()
    config = system.start()
    for number, (x, deliveries) in enumerate(transitions):
        if x not in system.names:
            raise ValueError(f"transition {number}: {x} is not a node of the network")
        i = system.names.index(x)
        t = len(config[i].history)
        buffer = {system.message(p): p for p in config[i].buffer}
        delivered = set()
        for sender, step, (predicate, args) in deliveries:
            message = Message(sender, step, x, (predicate, tuple(args)))
            if message not in buffer:
                raise ValueError(
                    f"transition {number}: {predicate}({', '.join(map(str, args))}) sent by {sender} at its step "
                    f"{step} is not in the buffer of {x} at its step {t}"
                )
            delivered.add(buffer[message])
        config, _ = system.transition(config, i, frozenset(delivered))
        silenced = system.crashed(i, t)
        if silenced or lost:
            config, gone = _lose(system, config, i, t, lost, silenced)
            dropped |= gone
    never = sorted(lost - dropped)
    if never:
        raise ValueError(f"{_shown(never[0])}: lost, but the run never sends it")
    return Run(
        trace=system.trace(config),
        pending=system.pending(config),
        steps={x: len(local.history) for x, local in zip(system.names, config)},
    )


def _lose(
    system: System, config: tuple[Part, ...], i: int, t: int, lost: frozenset[Message], silenced: bool
) -> tuple[tuple[Part, ...], set[Message]]:
    """`config` without the messages that node number i sent at its step t and the network lost:
    those of `lost`, and every one to another node when i has crashed (`silenced`); and those messages."""
    gone: set[Message] = set()
    parts = list(config)
    for j, part in enumerate(config):
        if j == i:
            continue
        drop = {p for p in part.buffer if p[0] == i and p[1] == t and (silenced or system.message(p) in lost)}
        if drop:
            parts[j] = part._replace(buffer=part.buffer - drop)
            gone.update(map(system.message, drop))
    return tuple(parts), gone


def _shown(m: Message) -> str:
    return f"{m.fact[0]}({', '.join(map(str, m.fact[1]))}) sent by {m.sender} at its step {m.step} to {m.addressee}"


def run_trace(program: Program, instance: Instance, transitions: Schedule) -> Trace:
    """The trace of the run prefix `transitions` (see `replay`)."""
    return replay(program, instance, transitions).trace


# ---------------------------------------------------------------------------
# Exhaustive exploration of run prefixes


class StateLimitExceeded(Exception):
    """`explore` met more configurations than `max_states`; `states`: how many it had met."""

    def __init__(self, message: str, states: int) -> None:
        super().__init__(message, states)  # both in args: the exception pickles (batch, Spark)

    @property
    def states(self) -> int:
        return self.args[1]

    def __str__(self) -> str:
        return self.args[0]


@dataclass(frozen=True)
class Exploration:
    """Every run prefix with steps 0..horizon on every node, summarised.

    traces: the distinct traces (the same set in both modes).
    pending: per trace, the distinct sets of messages left in buffers at the
      end. Empty in mode "traces", which does not know who sent a message.
    witnesses: per trace, one run prefix (transitions, as `replay` takes
      them) with that trace. Empty in mode "traces".
    runs: mode "exact": the number of distinct end configurations, i.e. of
      distinct pairs (trace, pending messages); different interleavings
      reaching the same end configuration count once. Mode "traces": the
      number of distinct traces, because the reduced search keeps nothing of
      an end configuration but its trace.
    states: the number of distinct configurations visited, the start
      configuration included (configurations abandoned for the delay bound
      are not counted); in mode "traces", of the reduced configurations
      (classes of configurations, see `reduced`).
    mode: "exact" or "traces" (see `explore`).
    """

    traces: frozenset[Trace]
    pending: Mapping[Trace, frozenset[frozenset[Message]]]
    witnesses: Mapping[Trace, tuple[Transition, ...]]
    runs: int
    states: int
    bounds: Bounds
    mode: str = "exact"


_Move = tuple[int, frozenset[Packet]]
"""A transition inside the search: the position of the active node and the packets it receives."""


def _subsets(items: Sequence) -> Iterator[tuple]:
    for size in range(len(items) + 1):
        yield from combinations(items, size)


def _successors(
    network: System, config: tuple[Part, ...], bounds: Bounds
) -> Iterator[tuple[_Move, tuple[Part, ...]]]:
    """Every transition from `config` of a node with steps left, with its target (see `explore`)."""
    horizon, bound = bounds.horizon, bounds.network.delay_bound
    sync = bounds.network.sync
    for i, local in enumerate(config):
        t = len(local.history)
        if t > horizon:
            continue
        buffer = sorted(local.buffer)
        if bound is None:
            forced, optional = frozenset(), buffer
        elif sync:  # a message sent at step s arrives at step s + 1, neither earlier nor later
            forced, optional = frozenset(p for p in buffer if p[1] + 1 == t), []
        else:  # by construction no message in bf(x) has step + max_delay < t
            forced = frozenset(p for p in buffer if p[1] + bound == t)
            optional = [p for p in buffer if p[1] + bound > t]
        for chosen in _subsets(optional):
            delivered = forced.union(chosen)
            for target, sent in network.transitions(config, i, delivered):  # one per choice of lost messages
                if bound is not None and any(len(target[j].history) > t + bound for j, _ in sent):
                    continue  # a message sent to a node that has passed its deadline
                yield (i, delivered), target


def _first_visit(visited: set, key, bounds: Bounds, max_states: int, progress, before: int = 0) -> bool:
    """Record `key` as visited; False if it was already. Enforces the state limit (counting the `before`
    configurations of the searches of earlier crash plans) and reports progress."""
    if key in visited:
        return False
    visited.add(key)
    if before + len(visited) > max_states:
        max_delay = bounds.network.max_delay
        raise StateLimitExceeded(
            f"more than {max_states} configurations explored at horizon {bounds.horizon}"
            + (f" with delay bound {max_delay}" if max_delay is not None else "")
            + ": lower the horizon (or set a delay bound) or raise --max-states",
            before + len(visited),
        )
    if progress is not None and (before + len(visited)) % 10_000 == 0:
        progress(before + len(visited))
    return True


def _search(
    network: System, bounds: Bounds, max_states: int, progress: Callable[[int], None] | None, before: int = 0
) -> tuple[dict[tuple[Part, ...], tuple[_Move, ...]], int]:
    """Depth first from start(P, H): each end configuration with a run reaching it, and the number of configurations."""
    start = network.start()
    visited = {start}
    ends: dict[tuple[Part, ...], tuple[_Move, ...]] = {}
    stack = [_successors(network, start, bounds)]
    path: list[_Move] = []
    while stack:
        following = next(stack[-1], None)
        if following is None:
            stack.pop()
            if path:
                path.pop()
            continue
        move, config = following
        if not _first_visit(visited, config, bounds, max_states, progress, before):
            continue
        if all(len(local.history) == bounds.horizon + 1 for local in config):
            ends[config] = (*path, move)
            continue
        path.append(move)
        stack.append(_successors(network, config, bounds))
    return ends, len(visited)


# ---------------------------------------------------------------------------
# The traces-only search

Mode = typing.Literal["exact", "traces"]  # (`Literal` is the AST class here)

def explore(
    program: Program,
    instance: Instance,
    bounds: Bounds,
    max_states: int = 1_000_000,
    progress: Callable[[int], None] | None = None,
    mode: Mode = "exact",
) -> Exploration:
    """Enumerate every run prefix (tplp2016 §5.1.3) in which each node does steps 0..T (`bounds.horizon`).

    Depth first over configurations, each visited once: from a configuration,
    every node with steps left may move next, receiving any subset of its
    buffer. A configuration is identified by, per node, the D of its past
    steps (its part of the trace so far, which also fixes its next step number
    and its state) and its buffer; so different interleavings that reach the
    same configuration are merged, and distinct traces never are.

    The delay bound D of `bounds.network`: a message sent at step s to y must be delivered at a step
    t ≤ s + D of y. It is delivered by force when y takes step s + D, and a
    configuration is abandoned as soon as a message is sent to a node that has
    already passed step s + D (for a message to oneself: when D = 0). So a
    message stays pending at the end only if s + D > horizon.

    mode "exact" (the default) explores the configurations as they are, and
    returns every pending set and a witness run per trace. mode "traces"
    returns the same set of traces, and only that (empty `pending` and
    `witnesses`, `runs` = the number of traces), by a search that forgets
    who sent a buffered message (`reduced`, with its proof). Use it when only
    the set of traces is wanted: when a fact is sent again at every step the
    exact search meets far more configurations.

    Raises StateLimitExceeded past `max_states` configurations; `progress`,
    if given, is called with the number of configurations every 10000.
    """
    if mode not in ("exact", "traces"):
        raise ValueError(f"the mode must be 'exact' or 'traces', not {mode!r}")
    check_events(instance, bounds.horizon)
    names = bounds.network.populate(instance).network
    finals: list[tuple[System, dict]] = []
    states = 0
    enabled = gc.isenabled()
    gc.disable()  # the search builds millions of acyclic tuples and frozensets: cycle collection only costs time
    try:
        last = bounds.horizon - 1 if bounds.network.after_send else bounds.horizon  # Molly's crash candidates: not at T
        for crash in crash_plans(names, bounds.network.crashes, last):
            network = System(program, instance, bounds.network, crash)
            if mode == "traces":
                visit = partial(_first_visit, bounds=bounds, max_states=max_states, progress=progress, before=states)
                ends, visited = search_traces(network, bounds, visit)
                ends = {histories: config for histories, config in ends.items() if network.admissible(histories)}
            else:
                ends, visited = _search(network, bounds, max_states, progress, states)
                ends = {config: run for config, run in ends.items() if network.admissible(tuple(p.history for p in config))}
            finals.append((network, ends))
            states += visited
    finally:
        if enabled:
            gc.enable()

    if mode == "traces":
        traces = frozenset(network.trace(config) for network, ends in finals for config in ends.values())
        return Exploration(traces=traces, pending={}, witnesses={}, runs=len(traces), states=states, bounds=bounds, mode=mode)
    return _summary(finals, states, bounds)


def _summary(finals: list[tuple[System, Mapping[tuple[Part, ...], tuple[_Move, ...]]]], states: int, bounds: Bounds) -> Exploration:
    """The exact searches' end configurations (one search per crash plan) as an Exploration: per trace, its
    pending sets and a witness run."""
    pending: dict[Trace, set[frozenset[Message]]] = defaultdict(set)
    witnesses: dict[Trace, tuple[Transition, ...]] = {}
    for network, ends in finals:
        traces: dict[tuple, Trace] = {}
        for config, run in ends.items():
            histories = tuple(local.history for local in config)
            trace = traces.get(histories)
            if trace is None:
                trace = traces[histories] = network.trace(config)
                witnesses.setdefault(trace, tuple((network.names[i], network.deliveries(delivered)) for i, delivered in run))
            pending[trace].add(network.pending(config))
    return Exploration(
        traces=frozenset(pending),
        pending={trace: frozenset(sets) for trace, sets in pending.items()},
        witnesses=witnesses,
        runs=sum(len(ends) for _, ends in finals),
        states=states,
        bounds=bounds,
    )
