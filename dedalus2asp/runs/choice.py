"""The choice runs within a window as a finite object: the configuration graph with debts, whose strongly connected
parts give the ultimate output of every choice run whose messages arrive at most W rounds before their send.

Under `--semantics choice` with `--max-delay D` a message sent in round s arrives in any round t ≤ s + D, and a
run is a stable model of the unbounded program: besides the arrivals, every fact must have a well-founded
derivation. This graph follows the arrivals max(0, s - W)..s + D, W the *window* (D unless given, as the choice
lassos' of templates/lasso.lp.j2): some of the choice runs, not all (docs/semantics.md, "Decision: the choice
window"). So an ultimate output it lists is a choice run's ("not tolerant" is exact), but one it lacks may be one
too: `choice_over.OverGraph` has every choice run, and more. A message that arrives in round a ≤ s is received
before its send; the reception is a **debt**: some send of that fact to that node in a round a..a + W must pay it,
and the send must not depend on it (no message supports its own send).
The causal rounds' configuration (`configurations`: carried facts, messages in flight, capped clock) is finite;
this graph adds, per node,

* its **receptions** of the last W rounds (the fact, and how many rounds ago): a later send of the same fact to
  the same node may still arrive there (up to W rounds before its send), joining it;
* per reception, per carried fact and per message in flight, a **family** of minimal supports (`provenance`):
  sets of *items*, the receptions not yet known to be well-founded, on which it positively depends (negation is
  read against the round's final facts, as the reduct reads it). A reception is an item (node, age, fact); a
  reception's own family is the union of the families of the sends that arrive at it (minus the supports that
  contain it: a message that depends on its own arrival supports nothing); an unpaid debt has the empty family.

A round (`ChoiceGraph.successors`): each node receives the messages of its buffer due now and chooses any set of
the facts it could ever be sent (`candidates`: the program read without negation, on every node, to its
fixpoint) to receive early, as new debts; it takes its step (the one rule evaluator, `transitions.System`), and
`provenance` gives the families of what it derives, carries and sends; each message then arrives in a later
round (at most D on) or joins a reception of the same fact at its addressee from this round or the W before. The
receptions' families are then settled: a reception with a support of well-founded items is well-founded (the
least fixpoint), and well-founded items leave every support. A reception W rounds old can be joined no more: it
*closes*. An unpaid one ends the path (a debt whose deadline passed); any other is substituted by its family
everywhere (it holds exactly when one of its supports does).

**Well-foundedness is a property of the infinite path**, not of a round: a debt may be paid by a send that
depends on a newer debt, paid by one that depends on a newer one, forever (`p()@async(X) :- p(), id(X).` on one
node: p received early in every round, each paid by the next round's send). Every debt is paid in time, yet no
reception is ever well-founded: no stable model. The run is a stable model exactly when every reception becomes
well-founded eventually. A closed reception that is not yet well-founded becomes an **obligation** (its family);
the configuration carries the obligations and, as in Miyano and Hayashi's breakpoint construction (*Alternating
finite automata on ω-words*, TCS 1984), a tracked subset of them: each round the tracked ones that became
well-founded leave it; when none is left the edge is **accepting** and every current obligation is tracked anew.
A run is a stable model iff it passes accepting edges infinitely often: a reception that is never well-founded
closes within W rounds and stays an obligation, tracked from the next breakpoint on, so the tracked set never
empties again; if every reception becomes well-founded, each tracked set empties in finite time. (An open
reception need not be tracked: it closes, or becomes well-founded, within W rounds.) So the choice runs' ultimate
outputs are those of the strongly connected edge sets with an accepting edge (`eventual.ultimate_sets` with
`ChoiceGraph.accepts`).

Rounds: the nodes step in rounds as in the causal graph (docs/semantics.md, "Decision: the rounds"), so the
choice runs here are, with W = D, those of the solver's choice lassos (templates/lasso.lp.j2: arrival S - D..S + D,
at least 0). Faults (omissions, crashes), aggregates and body atoms at fixed steps are refused (ValueError): the caller
answers otherwise.

Public names: `ChoiceGraph`, `ChoiceConfiguration`, `ChoicePart`, `explore_choice`, `candidates`, `MAX_EARLY`.
"""

from __future__ import annotations

import time
from dataclasses import replace
from itertools import chain, combinations, product
from typing import Callable, NamedTuple

from ..bounds import Bounds, Mode
from ..lang.ast import Instance, Literal, Program, show_fact
from . import eventual
from .configurations import ConfigurationLimit
from .evaluator import Plan
from .provenance import FALSE, TRUE, Family, Provenance, either, rename, settle, substitute, supported, well_founded
from .transitions import GroundFact, System

MAX_EARLY = 10
"""The most message facts a node may be sent (`candidates`) for the graph to be built: each round tries every subset
of them as the messages it receives early, 2^10 subsets at most."""

Item = tuple[int, int, GroundFact]
"""A reception: (node position, how many rounds ago, fact)."""


def buffered(parts) -> tuple[list[dict[GroundFact, Family]], list[dict[tuple[int, GroundFact], Family]]]:
    """Per node, its messages due this round (fact → family) and those still waiting ((wait - 1, fact) → family), the
    families of one fact's copies united (`either`)."""
    due: list[dict[GroundFact, Family]] = [{} for _ in parts]
    waiting: list[dict[tuple[int, GroundFact], Family]] = [{} for _ in parts]
    for j, part in enumerate(parts):
        for wait, fact, family in part.buffer:
            if wait == 0:
                due[j][fact] = either(due[j].get(fact, FALSE), family)
            else:
                waiting[j][wait - 1, fact] = either(waiting[j].get((wait - 1, fact), FALSE), family)
    return due, waiting


class ChoicePart(NamedTuple):
    """One node's part of a choice configuration: its capped clock; st(x), each fact with its family; bf(x), each
    message as (wait, fact, family); its receptions of the last W rounds as (age 1..W, fact, family)."""

    clock: int
    state: frozenset[tuple[GroundFact, Family]]
    buffer: frozenset[tuple[int, GroundFact, Family]]
    received: frozenset[tuple[int, GroundFact, Family]]


class ChoiceConfiguration(NamedTuple):
    """The nodes' parts, the obligations (families of closed receptions not yet well-founded) and the tracked
    obligations of the breakpoint construction (see the module's docstring)."""

    parts: tuple[ChoicePart, ...]
    obligations: frozenset[Family] = frozenset()
    tracked: frozenset[Family] = frozenset()


def candidates(system: System, program: Program, limit: int = 10_000) -> tuple[frozenset[GroundFact], ...]:
    """Per node, every message fact any run could send it: the program without its negated atoms (which only take
    facts away), run on every node with every input fact and event at once, and every message delivered, to its
    fixpoint. ValueError past `limit` facts (values computed without bound)."""
    relaxed = replace(program, rules=tuple(
        replace(r, body=tuple(b for b in r.body if not (isinstance(b, Literal) and b.negated))) for r in program.rules))
    plan = Plan.of(relaxed)
    facts = [set(system.inputs[i]).union(*system.events[i].values()) for i in range(len(system.names))]
    sent: list[set[GroundFact]] = [set() for _ in system.names]
    changed = True
    while changed:
        changed = False
        for i in range(len(system.names)):
            deduced, carried, messages = system.node.step(plan, frozenset(facts[i]))
            new = (deduced | carried) - facts[i]
            facts[i] |= new
            changed = changed or bool(new)
            for to, fact in messages:
                j = system.position.get(to)
                if j is not None and fact not in sent[j]:
                    sent[j].add(fact)
                    facts[j].add(fact)
                    changed = True
        if sum(map(len, facts)) > limit:
            raise ValueError(f"more than {limit} facts could be sent: the program computes new values without bound")
    return tuple(frozenset(s) for s in sent)


def _shift(item: Item) -> Item:
    return item[0], item[1] + 1, item[2]


class ChoiceGraph:
    """The choice configurations reachable from the start and the transitions between them (module docstring).

    As `configurations.Graph`: `configurations`, `edges[k]` (target, label number), `labels` (per node the D of its
    step); and `marks[label]`: what the acceptance (`accepts`, `passes`) reads of the transitions with that label
    number, here whether they pass a breakpoint (the label number keeps it apart). `window`: W, how many rounds
    before its send a message may arrive (D if None)."""

    def __init__(self, program: Program, instance: Instance, network, window: int | None = None):
        if network.sync or network.max_delay is None:
            raise ValueError("the choice graph needs a delay bound (under sync the choice runs are the causal runs)")
        if network.faulty:
            raise ValueError("the choice graph does not model faults")
        why = supported(program)
        if why:
            raise ValueError(f"the choice graph cannot follow the supports of this program: {why}")
        self.program, self.network = program, network
        self.system = System(program, instance, network)
        self.bound: int = network.max_delay
        self.window: int = self.bound if window is None else window
        self.provenance = Provenance(self.system.node, self.system.plan)
        self.candidates = candidates(self.system, program)
        many = max(map(len, self.candidates), default=0)
        if many > MAX_EARLY:
            raise ValueError(f"a node could be sent {many} different messages, each of which it may receive early in "
                             f"every round: more than the choice graph follows ({MAX_EARLY})")
        events = [s for e in self.system.events for s in e]
        self.cap = max([0, *(s + 1 for s in events)])
        self.configurations: list[ChoiceConfiguration] = []
        self.edges: list[list[tuple[int, int]]] = []
        self.labels: list[tuple] = []
        self.marks: list = []
        self._numbers: dict[ChoiceConfiguration, int] = {}
        self._label_numbers: dict[tuple, int] = {}
        self._sendable: dict[tuple, frozenset] = {}
        self._end: float | None = None
        self._seconds: float | None = None

    @property
    def names(self):
        return self.system.names

    def start(self) -> ChoiceConfiguration:
        return ChoiceConfiguration(tuple(
            ChoicePart(0, frozenset((f, TRUE) for f in facts), frozenset(), frozenset()) for facts in self.system.inputs))

    def build(self, limit: int, seconds: float | None = None, progress: Callable[[int, int], None] | None = None,
              roots: tuple = ()) -> list[int]:
        """Every configuration reachable from the start, breadth first; ConfigurationLimit past `limit` of them or
        `seconds`. `progress(k, n)`: as `configurations.Graph.build`. No other `roots`: the runs with free clocks
        (`drift`) are the causal graph's; so it returns no root numbers."""
        if roots:
            raise ValueError("the choice runs' graph grows from its start only")
        self._end, self._seconds = (None if seconds is None else time.perf_counter() + seconds), seconds
        self._number(self.start(), limit)
        k = 0
        while k < len(self.configurations):
            if progress is not None:
                progress(k, len(self.configurations))
            found = set()
            for target, label, mark in self.successors(self.configurations[k]):
                found.add((self._number(target, limit), self._label(label, mark)))
            self.edges[k] = sorted(found)
            k += 1
        return []

    def _number(self, config: ChoiceConfiguration, limit: int) -> int:
        number = self._numbers.get(config)
        if number is None:
            if len(self.configurations) >= limit:
                raise ConfigurationLimit(f"more than {limit} choice configurations", len(self.configurations))
            number = self._numbers[config] = len(self.configurations)
            self.configurations.append(config)
            self.edges.append([])
        return number

    def _label(self, label: tuple, mark) -> int:
        key = (label, mark)
        number = self._label_numbers.get(key)
        if number is None:
            number = self._label_numbers[key] = len(self.labels)
            self.labels.append(label)
            self.marks.append(mark)
        return number

    def accepts(self, members: frozenset[int], allowed) -> bool:
        """Whether a run may stay in `members` forever on the edges `allowed` keeps: one of them is accepting (it
        passes a breakpoint); a path taking them all infinitely often is then a run (the Büchi condition)."""
        return any(w in members and allowed(label) and self.marks[label]
                   for v in members for w, label in self.edges[v])

    def passes(self, inner: list, taken: list) -> list:
        """The edges of `inner` (a part's, as (source, target, label)) a closed walk through `taken` must also take
        to be accepted: an accepting one, unless `taken` has one."""
        if any(self.marks[e[2]] for e in taken):
            return []
        return [next(e for e in inner if self.marks[e[2]])]

    def show(self, edges: list[tuple[int, int, int]]) -> tuple[dict, ...]:
        """The transitions of a lasso as the user reads them (as `eventual.shown_steps`): per node its step, its facts
        but the input ones, and the facts it received in that round (early ones included)."""
        shown = []
        for k, (_, w, label) in enumerate(edges):
            nodes = {}
            for i, x in enumerate(self.names):
                received = sorted(show_fact(*self.system.fact(f)) for a, f, _ in self.configurations[w].parts[i].received
                                  if a == 1)
                facts = sorted(show_fact(*self.system.fact(f)) for f in self.labels[label][i] - self.system.inputs[i])
                nodes[str(x)] = {"step": k, "facts": facts, "received": received, "sent": [], "lost": []}
            shown.append({"nodes": nodes, "crashes": []})
        return tuple(shown)

    def successors(self, config: ChoiceConfiguration):
        """Every round from `config`: (target, label, accepting)."""
        n, W = len(self.names), self.window
        due, waiting = buffered(config.parts)
        early = [self.early(j, due[j].keys()) for j in range(n)]
        known: dict[tuple[int, tuple], tuple] = {}  # node i's step depends on its own early receptions only
        clocks = [min(part.clock + 1, self.cap) for part in config.parts]
        for chosen in product(*early):
            self._in_time()
            live: dict[Item, Family] = {}
            for j, part in enumerate(config.parts):
                for age, fact, family in part.received:
                    live[j, age, fact] = family
                for fact, family in due[j].items():
                    live[j, 0, fact] = family
                for fact in chosen[j]:
                    live[j, 0, fact] = FALSE
            steps = []
            for i in range(n):
                if (i, chosen[i]) not in known:
                    known[i, chosen[i]] = self._step(i, config.parts[i], {  # this round's receptions, as items
                        item[2]: TRUE if family == TRUE else frozenset({frozenset({item})})
                        for item, family in live.items() if item[:2] == (i, 0)})
                steps.append(known[i, chosen[i]])
            label = tuple(step[0] for step in steps)
            sends = [(j, fact, family) for _, _, sent in steps for (j, fact), family in sent.items()]
            options = [self._arrivals(live, j, fact) for j, fact, _ in sends]
            # an unpaid debt received W rounds ago is paid now or never: only the choices in which a send pays it
            needs = [[k for k, (j, fact, family) in enumerate(sends) if (j, fact) == item[::2]
                      and any(item not in s for s in family)] for item, family in live.items()
                     if item[1] == W and family == FALSE]
            if not all(needs):
                continue
            memo: dict = {}
            plain = None  # no family names a reception: the round needs no settling (`_plain_round`)
            if not config.obligations and all(f in _BARE for f in chain(
                    live.values(), (f for _, _, f in sends), *(step[1].values() for step in steps),
                    *(w.values() for w in waiting))):
                plain = [frozenset(step[1].items()) for step in steps]
            states = [frozenset(step[1]) for step in steps]
            for count, choice in enumerate(product(*options)):
                if count % 256 == 255:
                    self._in_time()
                if (all(any(choice[k] == ("join", W) for k in payers) for payers in needs)
                        and self._payable(states, waiting, live, sends, choice, clocks)):
                    target = (self._round(config, steps, waiting, live, sends, choice, memo) if plain is None else
                              self._plain_round(config, plain, waiting, live, sends, choice))
                    if target is not None:
                        yield target[0], label, target[1]

    def early(self, j: int, due) -> list[tuple[GroundFact, ...]]:
        """Every set of facts node j may receive early in a round in which the facts `due` arrive: any subset of the
        facts it could ever be sent (`candidates`) but those."""
        return _subsets(sorted(self.candidates[j] - due))

    def _in_time(self) -> None:
        """ConfigurationLimit once the time `build` was given has passed."""
        if self._end is not None and time.perf_counter() > self._end:
            raise ConfigurationLimit(f"the choice graph was not built within {self._seconds:.3g} s", len(self.configurations))

    def _payable(self, states, waiting, live, sends, choice, clocks) -> bool:
        """Whether every debt left unpaid by this round's `choice` that must be paid in the next round (received W - 1
        rounds before this one) could be: some node may then send its fact to its node, whatever it receives early.
        A necessary condition, looked up one round ahead before the round's target is built: it prunes the
        configurations that can only die."""
        joined = {(j, k, fact) for (j, fact, _), (how, k) in zip(sends, choice) if how == "join"}
        owed = [(j, fact) for (j, a, fact), family in live.items()
                if a == self.window - 1 and family == FALSE and (j, a, fact) not in joined]
        if not owed:
            return True
        due = [{f for (k, f) in w if k == 0} for w in waiting]
        for (j, fact, _), (how, k) in zip(sends, choice):
            if how == "wait" and k == 0:
                due[j].add(fact)
        possible = set().union(*(self._may_send(i, states[i], frozenset(due[i]), clocks[i]) for i in range(len(states))))
        return all(debt in possible for debt in owed)

    def _may_send(self, i: int, state: frozenset, due: frozenset, clock: int) -> frozenset[tuple[int, GroundFact]]:
        """The (addressee, fact) messages node i may send in a step from `state` receiving `due`, whatever it receives
        early."""
        key = (i, state, due, clock)
        found = self._sendable.get(key)
        if found is None:
            out = set()
            for early in self.early(i, due):
                step = self.system.step(i, state | due | frozenset(early), clock)
                out.update((j, f) for j, facts in step.sent for f in facts)
            found = self._sendable[key] = frozenset(out)
        return found

    def _arrivals(self, live: dict[Item, Family], j: int, fact: GroundFact) -> list[tuple[str, int]]:
        """Where a message of `fact` to node j may arrive: ("wait", w), w + 1 rounds on; or ("join", a), at its
        reception of `fact` a rounds ago (this round included). Joining a well-founded reception changes nothing but
        that the message is spent: one such join stands for all."""
        joins = [a for a in range(self.window + 1) if (j, a, fact) in live]
        spent = [a for a in joins if live[j, a, fact] == TRUE][:1]
        return ([("wait", w) for w in range(self.bound)] +
                [("join", a) for a in joins if a in spent or live[j, a, fact] != TRUE])

    def _step(self, i: int, part, received: dict[GroundFact, Family]):
        """Node i's step from its `part` (its state, clock) receiving `received` (each fact with its family: the item
        it is received as, or TRUE when well-founded): D, the families of its carried facts (its next state) and of
        its messages ((j, fact) -> family)."""
        given: dict[GroundFact, Family] = dict(part.state)
        for f in self.system.events[i].get(part.clock, ()):
            given[f] = TRUE
        for fact, family in received.items():
            given[fact] = either(given.get(fact, FALSE), family)
        step = self.system.step(i, frozenset(given), part.clock)
        _, carried, sent = self.provenance.families(self.provenance.ground(step.deduced), step.deduced, given)
        state = {f: TRUE for f in self.system.inputs[i]}
        for f, family in carried.items():
            state[f] = either(state.get(f, FALSE), family)
        messages = {}
        for (to, fact), family in sent.items():
            j = self.system.position.get(to)
            if j is not None:
                messages[j, fact] = either(messages.get((j, fact), FALSE), family)
        return step.deduced, state, messages

    def _plain_round(self, config: ChoiceConfiguration, states, waiting, live, sends, choice):
        """`_round` when every family is TRUE or FALSE (nothing depends on an unpaid debt): a join pays a debt or
        spends the message, a closing debt must be paid, and nothing needs settling."""
        n, W = len(self.names), self.window
        paid = {(j, k, fact) for (j, fact, family), (how, k) in zip(sends, choice) if how == "join"}
        buffers = [dict(w) for w in waiting]
        for (j, fact, family), (how, k) in zip(sends, choice):
            if how == "wait":
                buffers[j][k, fact] = TRUE
        debts: list[list] = [[] for _ in range(n)]
        spent: list[dict[GroundFact, int]] = [{} for _ in range(n)]
        for item, family in live.items():
            j, a, fact = item
            if family == FALSE and item not in paid:
                if a == W:
                    return None  # an unpaid debt
                debts[j].append((a + 1, fact, FALSE))
            elif a < W and a <= spent[j].get(fact, W):
                spent[j][fact] = a  # the youngest spent reception of each fact stands for all
        parts = tuple(ChoicePart(min(config.parts[j].clock + 1, self.cap), states[j],
                                 frozenset((w, f, fam) for (w, f), fam in buffers[j].items()),
                                 frozenset(debts[j] + [(a + 1, f, TRUE) for f, a in spent[j].items()]))
                      for j in range(n))
        return ChoiceConfiguration(parts), True

    def _round(self, config: ChoiceConfiguration, steps, waiting, live, sends, choice, memo: dict):
        """The target of one choice of arrivals, and whether the round passes a breakpoint; None when a debt's
        deadline passes unpaid. `memo`: the nodes' next states already settled in this round (they depend on the
        choice only through the well-founded receptions and the closing ones)."""
        n, W = len(self.names), self.window
        live = dict(live)
        buffers = [dict(w) for w in waiting]
        for (j, fact, family), (how, k) in zip(sends, choice):
            if how == "wait":
                buffers[j][k, fact] = either(buffers[j].get((k, fact), FALSE), family)
            else:
                item = (j, k, fact)
                live[item] = either(live[item], frozenset(s for s in family if item not in s))
        done = well_founded(live, (item for item, family in live.items() if family == TRUE))
        live = {item: TRUE if item in done else settle(fam, done) for item, fam in live.items()}
        obligations = [settle(f, done) for f in config.obligations]
        tracked = [settle(f, done) for f in config.tracked]
        closed: list[tuple[Item, Family]] = []
        for item in sorted(i for i in live if i[1] == W):  # closing: no send can arrive there any more
            family = frozenset(s for s in live.pop(item) if item not in s)
            if family == FALSE:
                return None  # an unpaid debt (or one paid only by itself)
            if family == TRUE:
                continue  # well-founded: settled out of every family already
            closed.append((item, family))
            live = {i: substitute(fam, item, family) for i, fam in live.items()}
            obligations = [substitute(f, item, family) for f in obligations]
            tracked = [substitute(f, item, family) for f in tracked]
            obligations.append(family)
        settled = frozenset(done)

        def final(family: Family) -> Family:  # settled, the closed receptions replaced, one round older
            family = settle(family, settled)
            for item, by in closed:
                family = substitute(family, item, by)
            return rename(family, _shift)

        live = {i: frozenset(s for s in fam if i not in s) for i, fam in live.items()}
        states = []
        for j in range(n):
            key = (id(steps[j][1]), settled, tuple(closed))
            if key not in memo:
                memo[key] = frozenset((f, final(fam)) for f, fam in steps[j][1].items())
            states.append(memo[key])
        buffer_parts = [frozenset((w, f, final(fam)) for (w, f), fam in b.items()) for b in buffers]
        if any(fam == FALSE for s in states for _, fam in s) or any(fam == FALSE for b in buffer_parts for *_, fam in b):
            return None  # something the run holds with no support left
        obligations_left = frozenset(rename(f, _shift) for f in obligations if f != TRUE)
        tracked_left = frozenset(rename(f, _shift) for f in tracked if f != TRUE)
        accepting = not tracked_left
        if accepting:
            tracked_left = obligations_left
        parts = []
        for j in range(n):
            clock = min(config.parts[j].clock + 1, self.cap)
            spent = {}  # a well-founded reception only spends a later copy: the youngest of each fact stands for all
            for (i, a, f), fam in live.items():
                if i == j and fam == TRUE:
                    spent[f] = min(a, spent.get(f, a))
            received = frozenset((a + 1, f, rename(fam, _shift)) for (i, a, f), fam in live.items()
                                 if i == j and (fam != TRUE or spent[f] == a))
            parts.append(ChoicePart(clock, states[j], buffer_parts[j], received))
        return ChoiceConfiguration(tuple(parts), obligations_left, tracked_left), accepting


_BARE = (TRUE, FALSE)


def _subsets(facts: list[GroundFact]) -> list[tuple[GroundFact, ...]]:
    return list(chain.from_iterable(combinations(facts, k) for k in range(len(facts) + 1)))


def explore_choice(program: Program, instance: Instance, bounds: Bounds, max_configurations: int,
                   outputs: tuple[str, ...] | None = None, seconds: float | None = None,
                   make: Callable = ChoiceGraph, keep: list | None = None) -> eventual.Eventual:
    """The choice runs' graph of P on H under `bounds.network` (a delay bound, no faults) and the ultimate outputs of
    its infinite runs, as `eventual.explore` gives the causal runs'. ValueError when the graph cannot be built (see
    `ChoiceGraph`); past `max_configurations` or `seconds` the answer says so (`exact` false, nothing known). `make`:
    the graph (`ChoiceGraph`, the window; `choice_over.OverGraph`, the over-approximation); `exact` says the graph's
    list is complete, of its own runs. `keep`: a list the built graph is appended to (to read its witnesses' edges)."""
    outputs = program.output_relations if outputs is None else outputs
    bounds = replace(bounds, mode=Mode.EVENTUAL)
    graph = eventual.graph_of(program, instance, bounds, observe=False, make=make)
    nodes = tuple(str(x) for x in graph.names)
    if keep is not None:
        keep.append(graph)
    try:
        eventual.build(graph, max_configurations, seconds)
    except ConfigurationLimit as stop:
        return eventual.Eventual(stop.configurations, sum(map(len, graph.edges)), 0, (), (), False, None, False, bounds,
                                 reason=str(stop), nodes=nodes, graph_complete=False)
    found = eventual.ultimate(graph, outputs, bounds, nodes, acceptance=graph, budget=0)
    # no completeness threshold: a witness is a closed walk through accepting transitions, not a simple cycle
    return replace(found, threshold=None, threshold_exact=False)
