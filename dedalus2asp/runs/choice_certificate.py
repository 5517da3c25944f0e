"""A certificate for the over-approximation's witness: the lasso replayed as one concrete infinite choice run.

`choice_over.OverGraph` has every choice run and more: it keeps, per node and fact, one debt for every reception not
yet known to be well-founded, so one send may pay several receptions, and a reception may be founded by a send
that could not reach its step. An ultimate output it lists beyond the window graph's may therefore be no choice
run's. This module checks one witness lasso of such an output: it replays the lasso's transitions (the choices
`OverGraph.rounds` made: what each node receives early, how each message arrives) with **one item per reception**
(node, round, fact) in place of the graph's debts, with the window graph's support machinery (`provenance`: the
families of every fact among the receptions not yet well-founded, through `ChoiceGraph._step`), and

* gives each message one arrival: 1..D rounds on (as the graph chose), or, when the graph routed it "back" (it pays
  a debt or is absorbed), **one** reception of its fact at its addressee, at a round no later than its send (so
  within t ≤ s + D): the earliest one that still needs a founding send and that the message can found (its family
  minus the supports that contain that reception), else the earliest not yet well-founded, else the earliest;
* takes a reception's family as the union of the families of the messages that arrive at it, minus the supports
  that contain it (no message supports its own send), and the well-founded receptions as the least fixpoint
  (a reception with a support of well-founded receptions), after every round;
* cuts the run into **segments** at configurations of the loop with no open debt and no support among debts (the
  loop is rotated to start at one; none: not certified): the stem, then passes of the loop, until a pass ends with
  the same carried facts and messages in flight (relative to its start) as it began. Each segment must end with
  every reception it holds well-founded and every carried fact and message in flight well-founded: nothing
  crosses a segment's end unfounded, so the last pass repeats forever, founded within itself.

The facts of every step are checked to be the graph's (the label of the replayed transition). docs/semantics.md
("The over graph's witness, certified") has why a certified run is a stable model of pure_ch, and what this does
not claim. A failure says why in words; the caller then keeps the over graph's answer "not exact".

`witness` shows a certified run as the explorer's witness lasso (`explore --eventual --semantics choice` lists it
beside the window graph's, `explore` below).

Public names: `explore`, `replays`, `certify`, `Certified`, `Arrival`, `witness`, `REPEAT`.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Iterator, NamedTuple

from ..bounds import Bounds
from ..lang.ast import Instance, Program, show_fact
from . import choice, choice_over
from .choice_over import OverConfiguration, OverGraph
from .eventual import Edge, Eventual, Lasso, output_fact
from .provenance import FALSE, TRUE, Family, either, settle, well_founded
from .transitions import GroundFact

REPEAT = 4
"""The most passes of the loop replayed before its messages in flight must repeat."""

Item = tuple[int, int, GroundFact]
"""A reception: (node position, round, fact)."""


class Arrival(NamedTuple):
    """A message of the certified run: sent by node `sender` in round `sent`, arriving at node `addressee` in round
    `arrives` (on the unrolled run: a message of the loop routed back arrives at the same round on every pass)."""

    sender: int
    sent: int
    addressee: int
    fact: GroundFact
    arrives: int
    absorbed: bool
    """It arrives at a reception that is well-founded already (it adds a support, nothing else): on every pass of the
    loop at the same round, as the replay routes it."""


class Certified(NamedTuple):
    """A certified choice run: rounds 0..loop_start - 1 the stem, then rounds loop_start..loop_start + period - 1
    repeated forever. `facts[r][i]`: node i's facts D in round r; `early[r][i]`: the facts it receives in round r from
    a message sent in that round or later; `messages`: every message sent in those rounds; `output`: the ultimate
    output (the output facts held at every round of the loop, united over nodes)."""

    loop_start: int
    period: int
    facts: tuple[tuple[frozenset[GroundFact], ...], ...]
    early: tuple[tuple[frozenset[GroundFact], ...], ...]
    messages: tuple[Arrival, ...]
    output: tuple[str, ...]


def clean(config: OverConfiguration) -> bool:
    """No open debt, and every carried fact and message in flight well-founded."""
    return all(not part.debts and all(f == TRUE for _, f in part.state) and all(f == TRUE for *_, f in part.buffer)
               for part in config.parts)


def replays(graph: OverGraph, over: Eventual, skip, outputs: tuple[str, ...]
            ) -> Iterator[tuple[tuple[str, ...], Certified | str]]:
    """Each ultimate output the over-approximation `over` (built as `graph`) lists, but those in `skip`, with its
    witness replayed (`certify`): the certified run, or why it is not certified (a replay whose loop holds another
    output than the graph's claims nothing)."""
    for output, lasso in zip(over.ultimate_outputs, over.witnesses):
        if output in skip:
            continue
        run = certify(graph, lasso, outputs)
        yield output, ("it replays with another output" if not isinstance(run, str) and run.output != output else run)


def certify(graph: OverGraph, lasso: Lasso, outputs: tuple[str, ...]) -> Certified | str:
    """The witness `lasso` of the built `graph` (one of its `Eventual.witnesses`) replayed as a concrete choice run
    (module docstring): the run, or why it is not certified."""
    edges = next((e for steps, e in graph.shown if steps is lasso.steps), None)
    if edges is None:
        return "its witness's transitions are not known"
    stem, loop = edges[:lasso.loop_start], edges[lasso.loop_start:]
    q = next((k for k, e in enumerate(loop) if clean(graph.configurations[e[0]])), None)
    if q is None:
        return "no configuration of its witness's loop is free of open debts"
    stem, loop = stem + loop[:q], loop[q:] + loop[:q]
    graph._end = None  # the replay is not timed by the build
    replay = _Replay(graph, set(outputs))
    try:
        why = replay.segment(stem)
        for _ in range(REPEAT):
            start, before = replay.round, (None if why else replay.signature())
            why = replay.segment(loop)
            if not why and replay.signature() == before:
                return replay.certified(start, len(loop))
    except _Refused as refused:
        return str(refused)
    return why or f"its messages in flight do not repeat within {REPEAT} passes of its loop"


class _Refused(Exception):
    """A round of the witness that cannot be replayed: why."""


class _Replay:
    """The concrete run as it is replayed, segment by segment (`certify`)."""

    def __init__(self, graph: OverGraph, outputs: set[str]):
        self.graph, self.outputs = graph, outputs
        n = len(graph.names)
        self.state: list[dict[GroundFact, Family]] = [dict(part.state) for part in graph.start().parts]
        self.buffer: list[tuple[int, int, GroundFact, Family, int, int]] = []  # (arrives, to, fact, family, from, sent)
        self.receptions: dict[Item, Family] = {}
        self.payers: dict[Item, int] = {}
        self.founded: set[Item] = set()
        self.round = 0
        self.facts: list[tuple] = []
        self.early: list[tuple] = []
        self.messages: list[Arrival] = []
        self._rounds: dict[tuple[int, int], tuple | None] = {}
        self.n = n

    def signature(self) -> tuple:
        """What the next segment starts from: the carried facts and the messages in flight, relative to this round."""
        return (tuple(frozenset(s.items()) for s in self.state),
                tuple(sorted((a - self.round, j, f, i, s - self.round) for a, j, f, _, i, s in self.buffer)))

    def _detail(self, edge: Edge):
        """How the graph makes the transition `edge` (`OverGraph.rounds`): the way with the fewest early receptions."""
        v, w, label = edge
        key = (v, w, label)
        if key not in self._rounds:
            g = self.graph
            ways = [detail for target, lab, founded, detail in g.rounds(g.configurations[v])
                    if target == g.configurations[w] and lab == g.labels[label] and founded == g.marks[label]]
            self._rounds[key] = min(ways, key=lambda d: sum(map(len, d[0]))) if ways else None
        return self._rounds[key]

    def segment(self, edges: list[Edge]) -> str:
        """Replay `edges`; '' when the run then holds everything well-founded, else why not (a later segment may still
        found what this one leaves open)."""
        for edge in edges:
            why = self.step(edge)
            if why:
                raise _Refused(why)
        for (j, r, f) in self.receptions:
            if (j, r, f) not in self.founded:
                return (f"its reception of {self._show(f)} at {self.graph.names[j]} in round {r} has no well-founded "
                        "message of its own (one message founds one reception; none may depend on it)")
        if any(fam != TRUE for s in self.state for fam in s.values()) or any(m[3] != TRUE for m in self.buffer):
            return f"a fact or message at round {self.round} still depends on a reception not yet well-founded"
        return ""

    def step(self, edge: Edge) -> str:
        g, r = self.graph, self.round
        detail = self._detail(edge)
        if detail is None:
            return f"the transition of round {r} is not found again"
        chosen, routes = detail
        config = g.configurations[edge[0]]
        received: list[dict[GroundFact, Item]] = [{} for _ in range(self.n)]
        due = [m for m in self.buffer if m[0] == r]
        self.buffer = [m for m in self.buffer if m[0] != r]
        for _, j, fact, family, _, _ in due:
            item = (j, r, fact)
            self._arrive(item, family)
            received[j][fact] = item
        for j in range(self.n):
            for fact in chosen[j]:
                item = (j, r, fact)
                self.receptions.setdefault(item, FALSE)
                self.payers.setdefault(item, 0)
                received[j][fact] = item
        steps = []
        for i in range(self.n):
            given = {f: TRUE if item in self.founded else frozenset({frozenset({item})})
                     for f, item in received[i].items()}
            deduced, carried, sent = g._step(i, config.parts[i]._replace(state=frozenset(self.state[i].items())), given)
            if deduced != g.labels[edge[2]][i]:
                return f"round {r} of its witness does not replay with one reception per message"
            steps.append((deduced, carried, sent))
        how = {(i, j, fact): way for j in range(self.n) for i, fact, way in routes[j]}
        sends = [(i, j, fact, family) for i, (_, _, sent) in enumerate(steps) for (j, fact), family in sent.items()]
        if set(how) != {(i, j, fact) for i, j, fact, _ in sends}:
            return f"round {r} of its witness sends other messages when replayed"
        for i, j, fact, family in sends:
            kind, wait = how[i, j, fact]
            if kind == "wait":
                self.buffer.append((r + wait + 1, j, fact, family, i, r))
                self.messages.append(Arrival(i, r, j, fact, r + wait + 1, False))
                continue
            target = self._target(j, fact, family)
            if target is None:
                return f"a message of {self._show(fact)} to {g.names[j]} in round {r} has no reception to arrive at"
            self.messages.append(Arrival(i, r, j, fact, target[1], target in self.founded))
            self._arrive(target, family)
        self.founded = well_founded(self.receptions, self.founded)
        self.receptions = {item: settle(fam, self.founded) for item, fam in self.receptions.items()}
        self.state = [{f: settle(fam, self.founded) for f, fam in carried.items()} for _, carried, _ in steps]
        self.buffer = [(a, j, f, settle(fam, self.founded), i, s) for a, j, f, fam, i, s in self.buffer]
        self.facts.append(tuple(deduced for deduced, _, _ in steps))
        self.early.append(tuple(frozenset(c) for c in chosen))
        self.round += 1
        return ""

    def _arrive(self, item: Item, family: Family) -> None:
        """A message of `family` arrives at the reception `item`: its supports that contain `item` found nothing."""
        self.receptions[item] = either(self.receptions.get(item, FALSE), frozenset(s for s in family if item not in s))
        self.payers[item] = self.payers.get(item, 0) + 1

    def _target(self, j: int, fact: GroundFact, family: Family) -> Item | None:
        """The reception a message routed back arrives at (module docstring), or None when there is none."""
        mine = sorted((item for item in self.receptions if item[0] == j and item[2] == fact), key=lambda item: item[1])
        can = lambda item: any(item not in s for s in family)  # noqa: E731
        for wanted in (lambda item: not self.payers[item] and can(item),
                       lambda item: item not in self.founded and can(item), lambda item: True):
            found = next((item for item in mine if wanted(item)), None)
            if found is not None:
                return found
        return None

    def _show(self, fact: GroundFact) -> str:
        return show_fact(*self.graph.system.fact(fact))

    def certified(self, start: int, period: int) -> Certified:
        """The run: the loop is the last pass replayed."""
        end = start + period
        output = set()
        for i in range(self.n):
            held = frozenset.intersection(*(self.facts[r][i] for r in range(start, end)))
            output |= {output_fact(self.graph, i, f) for f in held if f[0] in self.outputs}
        return Certified(start, period, tuple(self.facts), tuple(self.early),
                         tuple(m for m in self.messages if m.sent < end), tuple(sorted(output)))


def witness(graph: OverGraph, run: Certified) -> Lasso:
    """A certified run (`certify`) as a witness lasso of the explorer: its rounds 0..loop_start + period - 1, each
    node's facts (but its input facts), the messages it receives (from whom, sent when; "early" when sent at or after
    the round) and sends (to whom, arriving when). The rounds shown are the unrolled run's: the loop's first pass, a
    message sent in it received on the next pass (which repeats it); `early` lists the messages that arrive at or
    before their send step."""
    names, system = graph.names, graph.system
    end = run.loop_start + run.period
    text = lambda f: show_fact(*system.fact(f))  # noqa: E731
    steps = []
    for r in range(end):
        nodes = {}
        for i, x in enumerate(names):
            received = sorted(f"{text(m.fact)} from {names[m.sender]}@{m.sent}" + (" (early)" if m.sent >= r else "")
                              for m in run.messages if m.addressee == i and m.arrives == r)
            sent = sorted(f"{text(m.fact)} to {names[m.addressee]}@{m.arrives}" + (" (early)" if m.arrives <= r else "")
                          for m in run.messages if m.sender == i and m.sent == r)
            nodes[str(x)] = {"step": r, "facts": sorted(text(f) for f in run.facts[r][i] - system.inputs[i]),
                             "received": received, "sent": sent, "lost": []}
        steps.append({"nodes": nodes, "crashes": []})
    early = tuple(dict.fromkeys(f"{text(m.fact)}: {names[m.sender]}@{m.sent} → {names[m.addressee]}@{m.arrives}"
                                for m in sorted(run.messages, key=lambda m: (m.sent, m.sender, m.arrives, m.addressee))
                                if m.arrives <= m.sent))
    return Lasso(run.loop_start, run.period, tuple(steps), early=early)


def explore(program: Program, instance: Instance, bounds: Bounds, max_configurations: int,
            outputs: tuple[str, ...] | None = None, seconds: float | None = None,
            total: float | None = None) -> Eventual:
    """The choice runs' ultimate outputs: the window graph's (`choice.explore_choice`), each some choice run's, and
    every other one the over-approximation (`OverGraph`) lists whose witness `certify` certifies as a
    choice run (listed with that run as its witness, `Lasso.early` set); exact when every output the
    over-approximation lists is one of those (else `exact` false, `reason` names the others and why their witness
    was not certified; each output listed stays a choice run's). Each graph within `max_configurations` and
    `seconds`, and both together within `total` seconds (`explore --eventual`: one budget for the command)."""
    began = time.perf_counter()

    def budget(spent: float) -> float | None:
        left = None if total is None else max(total - spent, 0.0)
        return left if seconds is None else seconds if left is None else min(seconds, left)

    window = choice.explore_choice(program, instance, bounds, max_configurations, outputs, budget(0.0))
    if not window.exact:
        return window
    kept: list = []
    over = choice.explore_choice(program, instance, bounds, max_configurations, outputs,
                                 budget(time.perf_counter() - began), make=OverGraph, keep=kept)
    if not over.exact:
        return replace(window, exact=False, reason=choice_over.beyond(window, over, bounds))
    listed = dict(zip(window.ultimate_outputs, window.witnesses))
    refused: dict[tuple[str, ...], str] = {}
    for output, run in replays(kept[0], over, set(listed), program.output_relations if outputs is None else outputs):
        refused[output] = run if isinstance(run, str) else ""
        if not isinstance(run, str):
            listed[output] = witness(kept[0], run)
    ordered = tuple(sorted(listed, key=lambda o: (len(o), o)))
    why = choice_over.beyond(window, over, bounds, refused)
    return replace(window, ultimate_outputs=ordered, witnesses=tuple(listed[o] for o in ordered), exact=not why,
                   reason=why)
