"""Fair asynchronous interleavings: a finite over-approximation of tplp2016's runs with free clocks.

The eventual mode decides the runs in rounds exactly (`configurations`) and follows the runs with free clocks for a
prefix only (`drift`): an under-approximation, which proves "not consistent" and no "consistent". This module builds
a finite graph whose fair paths include every free-clock run; when every ultimate output it admits is one the
runs found have, the list is every run's, and "consistent" is exact (docs/semantics.md, "Decision: the rounds").

**Configurations** forget the clocks. Per node: its step number capped at `Graph.cap` (only input events read it;
faults, which read it too, are refused), st(x) (the facts carried into its next step), the *contents* of the
messages in flight to it from other nodes, as a set: no sender, no send step, no count of copies; and its messages
to itself, each with the steps it has left before its deadline (its own clock times them: sent at step s, one
arrives at a step s+1..s+D of the same node). A **transition** is one node's step: it receives a subset S of its
contents, its messages to itself that are due and any others, computes with the one rule evaluator (`System.step`)
from st(x), S and those, and what it sends joins its addressees' sets (to itself: D-1 steps left). Each content of
S leaves the set or stays in it (another copy of it may still be in flight). No delay bound is kept between nodes.

**Why every run is a path.** A run with free clocks (tplp2016 §5.1.3) is a sequence of single-node transitions.
Map each of its configurations to the capped step numbers, the carried facts, per node the set of the contents of
the messages from other nodes in its buffer and its messages to itself (sent at s, next step t: s+D-t steps left):
each transition is then a transition here (a received content stays exactly when another message with it from
another node is still in the buffer; a message to itself is received by its step s+D at the latest). The run is
fair (§5.1.4): every node steps infinitely often, and every message is delivered (the delay bound forces it). Let E
be the transitions the path takes infinitely often, with the configurations they join (strongly connected). Then

* (a) every node steps on some transition of E;
* (b) a content c in flight to y (from another node) in a configuration of E is received by y on some transition
  of E: that configuration recurs, each time with a message c to y in flight, each delivered later;
* (c) such a c is also sent to y on some transition of E: were it sent finitely often, finitely many copies would
  exist, all delivered at some point, after which c is never in flight to y.

A transition that receives c has c in flight at its source, so (c) rules out, too, the paths that receive one copy
over and over. The ultimate facts of node x are those in D of every step of x on E (as in `eventual`), so the run's
ultimate output is ult(E), and **fair** edge sets (strongly connected, (a)–(c)) have every run's ultimate output.

**Fair components** (`fair_parts`): in an SCC of the allowed transitions, a configuration with a content that no
transition inside receives, or none sends, lies on no fair E within it; removing such configurations and splitting
again, until none is left, gives parts that are fair as a whole (their every transition) and that hold every fair
E. `eventual.ultimate_sets`, splitting so, lists ult(E) of every fair E exactly (its argument, with these parts in
place of the SCCs).

The graph over-approximates in three ways: no delay bound between nodes (a message may wait any finite number of
the addressee's steps), no causality beyond "sent before received", and contents that stay (a copy received twice).
So its list may hold outputs no run has; it is read only as a certificate: when its outputs are those of runs found
(in rounds and with free clocks, every one a genuine run), those are all. Faults are not modelled: refused (`Refused`).

Public names: `Interleavings` (`build`, `fair_parts`, `kept`), `Refused`, `INTERLEAVING_LIMIT`, `INTERLEAVING_SECONDS`.
"""

from __future__ import annotations

import time
from itertools import combinations
from typing import Iterator, NamedTuple

from ..lang.analysis import strongly_connected
from .configurations import ConfigurationLimit, Graph, numbered
from .transitions import GroundFact

INTERLEAVING_LIMIT = 100_000
"""The most configurations of the interleavings' graph before it is given up (the answer stays not exact)."""

INTERLEAVING_SECONDS = 3.0
"""The longest the interleavings' graph is built and searched."""


class Refused(ValueError):
    """A network the interleavings do not model (faults)."""


class Part(NamedTuple):
    """One node's part of a configuration: its capped step number, st(x), the contents in flight to it from other
    nodes, and its messages to itself in flight, each with the steps it has left before its deadline."""

    clock: int
    state: frozenset[GroundFact]
    pending: frozenset[GroundFact]
    own: frozenset[tuple[int, GroundFact]] = frozenset()


class Label(NamedTuple):
    """One transition: the node that steps, its D, the contents it receives from other nodes, what it sends to other
    nodes (addressee, content)."""

    node: int
    deduced: frozenset[GroundFact]
    received: frozenset[GroundFact]
    sent: frozenset[tuple[int, GroundFact]]


def _subsets(items) -> Iterator[frozenset]:
    items = sorted(items)
    for size in range(len(items) + 1):
        for chosen in combinations(items, size):
            yield frozenset(chosen)


class Interleavings:
    """The graph of fair asynchronous interleavings of the system of a built rounds `Graph` (module docstring):
    `configurations[k]`, `edges[k]` (target, label number), `labels`."""

    def __init__(self, graph: Graph):
        network = graph.network
        if network.loss_until or network.crashes:
            raise Refused("the fair asynchronous interleavings do not model faults")
        self.system, self.cap, self.delay = graph.system, graph.cap, graph.bound
        self.nodes = len(graph.names)
        self.configurations: list[tuple[Part, ...]] = []
        self.edges: list[list[tuple[int, int]]] = []
        self.labels: list[Label] = []
        self._numbers: dict[tuple[Part, ...], int] = {}
        self._label_numbers: dict[Label, int] = {}

    def start(self) -> tuple[Part, ...]:
        return tuple(Part(0, facts, frozenset()) for facts in self.system.inputs)

    def successors(self, config: tuple[Part, ...]) -> Iterator[tuple[tuple[Part, ...], Label]]:
        """Every transition: a node steps receiving a subset of its contents, each of which may stay in flight, and
        of its messages to itself those at their deadline and any others (module docstring)."""
        for i, part in enumerate(config):
            clock = min(part.clock + 1, self.cap)
            due = frozenset(m for m in part.own if m[0] == 0)
            for early in _subsets(part.own - due):
                left = frozenset((wait - 1, f) for wait, f in part.own - due - early)
                mine = frozenset(f for _, f in due | early)
                for received in _subsets(part.pending):
                    step = self.system.step(i, part.state | received | mine, part.clock)
                    sent = frozenset((j, f) for j, facts in step.sent if j != i for f in facts)
                    label = Label(i, step.deduced, received, sent)
                    own = left.union((self.delay - 1, f) for j, facts in step.sent if j == i for f in facts)
                    if self.delay < 1 and any(j == i for j, _ in step.sent):
                        continue  # a message to itself can meet no delay bound 0: no run goes on
                    for staying in _subsets(received):
                        target = list(config)
                        target[i] = Part(clock, step.state, part.pending - received | staying, own)
                        for j, facts in step.sent:
                            if j != i:
                                target[j] = target[j]._replace(pending=target[j].pending | facts)
                        yield tuple(target), label

    def build(self, limit: int, seconds: float | None = None) -> None:
        """Every configuration reachable from the start, breadth first; ConfigurationLimit past `limit` or `seconds`."""
        end = None if seconds is None else time.perf_counter() + seconds
        self._number(self.start(), limit)
        k = 0
        while k < len(self.configurations):
            if end is not None and k % 64 == 0 and time.perf_counter() > end:
                raise ConfigurationLimit(f"the fair asynchronous interleavings were not built within {seconds:g} s",
                                         len(self.configurations))
            self.edges[k] = sorted({(self._number(target, limit), self._label(label))
                                    for target, label in self.successors(self.configurations[k])})
            k += 1

    def _number(self, config: tuple[Part, ...], limit: int) -> int:
        number = self._numbers.get(config)
        if number is None:
            if len(self.configurations) >= limit:
                raise ConfigurationLimit(f"the fair asynchronous interleavings passed {limit} configurations",
                                         len(self.configurations))
            number = self._numbers[config] = len(self.configurations)
            self.configurations.append(config)
            self.edges.append([])
        return number

    def _label(self, label: Label) -> int:
        return numbered(self._label_numbers, self.labels, label)

    def fair_parts(self, edges, members: frozenset[int], allowed) -> list[frozenset[int]]:
        """The fair parts of `members` on the transitions `allowed` keeps (module docstring): SCCs in which every node
        steps, less the configurations with a content no transition inside receives or sends, split again."""
        found, work = [], [members]
        while work:
            order = sorted(work.pop())
            position = set(order)
            succ = {v: [w for w, label in edges[v] if w in position and allowed(label)] for v in order}
            for component in strongly_connected(order, succ):
                if len(component) == 1 and component[0] not in succ[component[0]]:
                    continue  # no cycle
                part = frozenset(component)
                inside = [self.labels[label] for v in part for w, label in edges[v] if w in part and allowed(label)]
                if len({label.node for label in inside}) < self.nodes:
                    continue  # a node that never steps: no fair run stays here, nor in any part of it
                received = {(label.node, f) for label in inside for f in label.received}
                sent = {pair for label in inside for pair in label.sent}
                bad = {v for v in part for i, p in enumerate(self.configurations[v])
                       if any((i, f) not in received or (i, f) not in sent for f in p.pending)}
                if bad:
                    work.append(part - bad)
                else:
                    found.append(part)
        return found

    def kept(self, outputs: tuple[str, ...]) -> list[tuple[frozenset[GroundFact] | None, ...]]:
        """Per label, per node position, the output facts of its step (None: the node did not step), as
        `eventual.ultimate_sets` reads labels."""
        out = set(outputs)
        return [tuple(frozenset(f for f in label.deduced if f[0] in out) if i == label.node else None
                      for i in range(self.nodes)) for label in self.labels]
