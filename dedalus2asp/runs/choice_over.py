"""An over-approximation of the choice runs as a finite graph: "tolerant" proven for every choice run.

Under `--semantics choice` with `--max-delay D` (tplp2016's chosen timestamps with our delay bound) a message sent
at step s arrives at *any* step t ≤ s + D of its addressee: D steps after its send at the latest, but as far before
it as it likes. The window graph (`choice.ChoiceGraph`) follows the arrivals t ≥ s - D only: its runs are some of
the choice runs (an under-approximation: an ultimate output it lists is some choice run's, but a run whose message
comes from further back is missing; docs/semantics.md, "Decision: the choice window"). This graph has every choice
run and more: its configuration forgets *when* a message was received early, and keeps per node y and fact f

* a bit, `had`: y has received f at some step, well-founded (a later send of f to y may arrive there, where f
  already holds: it changes nothing; it is *absorbed*);
* at most one open **debt** d(y, f) with its family (`provenance`: sets of debts on which it may be founded): every
  reception of f at y not yet known to be well-founded joins it, whatever round it came in. An early reception
  (a message sent in this round or later) opens or joins it with no support; a reception due from an earlier send
  whose family is not well-founded joins it with that family (a later send may still arrive there and found it).

A round (`OverGraph.successors`): each node receives what is due and any set of the facts it could ever be sent
(`choice.candidates`) early; it steps (the one rule evaluator, as in the window graph), and each message it sends
either arrives 1..D rounds on, or arrives at or before this round: it *pays* d(y, f) when that is open (d's family
gains the message's supports, minus those that contain d: no message founds its own arrival), else it is absorbed
(which needs the bit: f was received at y before). A debt becomes well-founded when a support of its family is (the
least fixpoint, each round); it then leaves every family, sets the bit, and is dropped: a later early reception of
f at y opens a new one. Nothing has a deadline, so no run dies; a debt is an obligation from the moment it is open,
and a run is accepted when every debt it opens becomes well-founded. That is a generalised Büchi condition, one per
debt d: "infinitely often d is not open, or a round founds d". A path breaks it exactly when some generation of d
stays open and unfounded forever (a generation ends only by being founded; while d is open it is the same one). So
the configuration carries no breakpoint set: each transition's label number records the debts it founds (`marks`),
and a strongly connected part whose every edge a path takes infinitely often is accepted when each debt open at
every one of its configurations is founded on one of its edges (`accepts`). A part that fails has a debt open
everywhere in it and founded nowhere, and so has every part of it: no splitting is needed (`eventual.ultimate_sets`
drops it), unlike the breakpoints of the window graph (`choice.ChoiceGraph`), which cost configurations.

A round in which node j would receive f early while d(j, f) is open and f is carried with a support within
{d(j, f)} is the same round as without it (the reception joins d with no support, and adds no support to f): it is
not tried (`_idle`). Nor is an *idle* reception, of a fact f that j carries well-founded into the step and has
received well-founded before (the bit): it changes no fact and no family, and no choice run needs it, since the
proof below routes its message to "absorb" (the bit allows it; should d(j, f) be open, the message pays it, which
only adds supports). For the same reason a well-founded message of such an f due at j in the next round is
dropped from the buffer: its arrival would be idle; so is one due later when j carries f from every step where
it holds (`persists`: the rules without negation carry f from f and j's input facts alone).

Why every choice run ρ (a stable model) is one of this graph's accepted runs, with the same facts at every step:
take the same receptions (early: those from sends at or after the step), each send that arrives at or before its
send step routed to "pay" when d(y, f) is open and "absorb" otherwise (f was received at y before: the bit, or an
open debt). A debt *generation* g (from its opening to its founding) holds receptions of one (y, f). Let the level
of a fact of ρ be the stage of the reduct's least fixpoint that derives it (finite: every rule has a finite body).
(a) Every fact φ of level n has, in this graph, a support whose debts all hold a reception of level < n: the
provenance unites the supports of every ground rule, and the rule that derives φ at level n reads facts of level
< n; a received fact is either well-founded (TRUE) or the item of the generation it joined. (b) Every generation g
becomes well-founded: by induction on n, the least level of its receptions. Let r ∈ g have level n and σ the send
that founds r in ρ (its body has level < n): by (a) σ's family has a support S of debts holding receptions of level
< n, so not g, and each of them becomes well-founded by induction. σ is either due at r (r joins g with σ's family)
or arrives at r from a send at or after r's step, when g is open if not founded already, and pays g; either way S
becomes a support of g, and g is founded once S is. So every debt is founded in finite time (the acceptance holds),
and no family is ever empty (nothing closes). The merging is generous (one send pays every reception of a
generation, a reception may be founded by a send that could not reach its step): this graph may have runs no stable
model has, never fewer. Hence: the window graph's ultimate outputs ⊆ the choice runs' ⊆ this
graph's; where this graph's are the causal runs' one output, the program is tolerant, exactly; where the two
graphs list the same outputs, that list is every choice run's. An output only this graph lists is a choice run's
when its witness is certified (`choice_certificate`): `explore` lists those too, and is exact when every output of
this graph is listed.

Faults, aggregates and body atoms at fixed steps are refused as by the window graph (ValueError).

Public names: `OverGraph`, `OverPart`, `OverConfiguration`, `beyond` (the choice runs' outputs from both graphs and
the certificate: `choice_certificate.explore`).
"""

from __future__ import annotations

from dataclasses import replace
from itertools import chain, product
from typing import NamedTuple

from ..bounds import Bounds
from ..lang.ast import Instance, Literal, Program, show_fact
from . import eventual
from .choice import ChoiceGraph, buffered
from .evaluator import Plan
from .provenance import FALSE, TRUE, Family, either, settle, well_founded
from .transitions import GroundFact

Debt = tuple[int, GroundFact]
"""d(y, f): (node position, fact)."""


class OverPart(NamedTuple):
    """One node's part of a configuration: its capped clock; st(x) and bf(x) with families (as the window graph's);
    `had`: the facts it received, well-founded, at some step; `debts`: its open debts, each fact with its family."""

    clock: int
    state: frozenset[tuple[GroundFact, Family]]
    buffer: frozenset[tuple[int, GroundFact, Family]]
    had: frozenset[GroundFact]
    debts: frozenset[tuple[GroundFact, Family]]


class OverConfiguration(NamedTuple):
    """The nodes' parts."""

    parts: tuple[OverPart, ...]

    def open_debts(self) -> frozenset[Debt]:
        return frozenset((j, f) for j, part in enumerate(self.parts) for f, _ in part.debts)


def _without(family: Family, debt: Debt) -> Family:
    """The supports of `family` that do not contain `debt` (a message founded on its own arrival founds nothing)."""
    return frozenset(s for s in family if debt not in s)


class OverGraph(ChoiceGraph):
    """The over-approximation of the choice runs (module docstring), built, numbered and read as the window graph
    (`build`, `edges`, `labels`); `marks[label]`: the debts the transitions with that label number found, read by
    the generalised Büchi acceptance (`accepts`, `passes`)."""

    def accepts(self, members: frozenset[int], allowed) -> bool:
        """Whether a path taking every edge inside `members` that `allowed` keeps infinitely often is accepted: each
        debt open at every configuration of `members` is founded by one of those edges."""
        founded = set().union(*(self.marks[label] for v in members for w, label in self.edges[v]
                                if w in members and allowed(label)))
        return self._open_everywhere(members) <= founded

    def passes(self, inner: list, taken: list) -> list:
        """The edges of `inner` (a part's, as (source, target, label)) a closed walk through `taken` must also take
        to be accepted: per debt open somewhere in the part, one that founds it or leaves a configuration where it
        is not open (unless `taken` has one)."""
        added: list = []
        for debt in sorted(set().union(*(self._open(v) for v, _, _ in inner))):
            meets = lambda e: debt in self.marks[e[2]] or debt not in self._open(e[0])  # noqa: E731
            if not any(map(meets, taken + added)):
                added.append(next(e for e in inner if meets(e)))
        return added

    def _open(self, v: int) -> frozenset[Debt]:
        return self.configurations[v].open_debts()

    def _open_everywhere(self, members: frozenset[int]) -> frozenset[Debt]:
        return frozenset.intersection(*map(self._open, members))

    def __init__(self, program: Program, instance: Instance, network):
        super().__init__(program, instance, network)
        self._monotone = Plan.of(replace(program, rules=tuple(
            r for r in program.rules if not any(isinstance(b, Literal) and b.negated for b in r.body))))
        self._persists: dict[tuple[int, GroundFact], bool] = {}
        self.shown: list[tuple[tuple, list]] = []

    def persists(self, j: int, f: GroundFact) -> bool:
        """Whether node j carries f to its next step from every step where it holds: the rules without negation carry
        it from f and j's input facts alone (every rule whose body holds fires, whatever else holds)."""
        key = (j, f)
        if key not in self._persists:
            _, carried, _ = self.system.node.step(self._monotone, self.system.inputs[j] | {f})
            self._persists[key] = f in carried
        return self._persists[key]

    def start(self) -> OverConfiguration:
        return OverConfiguration(tuple(OverPart(0, frozenset((f, TRUE) for f in facts), frozenset(), frozenset(),
                                                frozenset()) for facts in self.system.inputs))

    def show(self, edges: list[tuple[int, int, int]]) -> tuple[dict, ...]:
        """The rounds of a lasso: per node its step and its facts but the input ones (a run of this graph need be no
        choice run, so its receptions are not shown); the edges are kept in `shown` beside what they show (the
        choice certificate, `choice_certificate`, reads a witness's edges there)."""
        steps = tuple({"nodes": {str(x): {"step": k, "facts": sorted(show_fact(*self.system.fact(f))
                                                                     for f in self.labels[label][i] - self.system.inputs[i]),
                                         "received": [], "sent": [], "lost": []} for i, x in enumerate(self.names)},
                      "crashes": []} for k, (_, _, label) in enumerate(edges))
        self.shown.append((steps, list(edges)))
        return steps

    def successors(self, config: OverConfiguration):
        """Every round from `config`: (target, label, the debts it founds)."""
        for target, label, founded, _ in self.rounds(config, detail=False):
            yield target, label, founded

    def rounds(self, config: OverConfiguration, detail: bool = True):
        """`successors` with how each round is made: (target, label, founded, (chosen, routes)): per node the facts
        it receives early, and the messages sent to it, each as (sender, fact, how): ("wait", w), it arrives w + 1
        rounds on, or ("back", 0), at or before its send round (`choice_certificate` replays a witness with them;
        of the ways that give one target, the first stands for all; None without `detail`)."""
        n = len(self.names)
        due, waiting = buffered(config.parts)
        # what is due: well-founded (the bit), or joining the debt of its fact with its family
        debts = [dict(part.debts) for part in config.parts]
        had = [set(part.had) for part in config.parts]
        arrived: list[dict[GroundFact, Family]] = [{} for _ in range(n)]
        for j in range(n):
            for fact, family in due[j].items():
                if family == TRUE:
                    arrived[j][fact] = TRUE
                    had[j].add(fact)
                else:
                    debts[j][fact] = either(debts[j].get(fact, FALSE), _without(family, (j, fact)))
                    arrived[j][fact] = frozenset({frozenset({(j, fact)})})
        early = [self.early(j, due[j].keys() | self._idle(j, config.parts[j], debts[j])) for j in range(n)]
        steps: dict[tuple[int, tuple], tuple] = {}  # node i's step depends on its own early receptions only
        settled: dict[tuple, object] = {}
        for chosen in product(*early):
            self._in_time()
            opened = [dict(debts[j]) for j in range(n)]
            for j in range(n):
                for fact in chosen[j]:
                    opened[j].setdefault(fact, FALSE)
            for i in range(n):
                if (i, chosen[i]) not in steps:
                    received = dict(arrived[i])
                    received.update((fact, frozenset({frozenset({(i, fact)})})) for fact in chosen[i])
                    steps[i, chosen[i]] = self._step(i, config.parts[i], received)
            node_steps = [steps[i, chosen[i]] for i in range(n)]
            label = tuple(step[0] for step in node_steps)
            sends = [[] for _ in range(n)]
            senders = [[] for _ in range(n)]
            for i, (_, _, sent) in enumerate(node_steps):
                for (j, fact), family in sent.items():
                    sends[j].append((fact, family))
                    senders[j].append(i)
            paid = [self._arrivals_at(j, tuple(sends[j]), node_steps[j], waiting[j], opened[j], had[j], settled)
                    for j in range(n)]
            for count, arrivals in enumerate(product(*paid)):
                if count % 256 == 255:
                    self._in_time()
                target, founded = self._round(config, node_steps, had, arrivals, settled)
                yield target, label, founded, (chosen, tuple(
                    tuple(zip(senders[j], (fact for fact, _ in sends[j]), arrivals[j][3])) for j in range(n))
                ) if detail else None

    def _arrivals_at(self, j: int, sends: tuple, step: tuple, waiting: dict, opened: dict, had: set,
                     settled: dict) -> list:
        """Every way the messages `sends` (fact, family) to node j arrive: each 1..D rounds on, or at or before this
        round (it pays the open debt of its fact, else it is absorbed where the fact was well-founded); each distinct
        way as (key, buffer, debts, the first choice that gives it), computed once per round of the configuration
        (`settled`). A message whose arrival would be idle (module docstring; j's `step` carries its fact
        well-founded) is not buffered."""
        key = (j, sends, id(step), frozenset(opened))
        if key not in settled:
            carried = step[1]
            options = [[("wait", w) for w in range(self.bound)] + ([("back", 0)] if fact in opened or fact in had else [])
                       for fact, _ in sends]
            ways: dict[tuple, tuple] = {}
            for choice in product(*options):
                buffer, debts = dict(waiting), dict(opened)
                for (fact, family), (how, w) in zip(sends, choice):
                    if how == "wait":
                        if not (family == TRUE and fact in had and carried.get(fact) == TRUE
                                and (w == 0 or self.persists(j, fact))):
                            buffer[w, fact] = either(buffer.get((w, fact), FALSE), family)
                    elif fact in debts:
                        debts[fact] = either(debts[fact], _without(family, (j, fact)))
                ways.setdefault((frozenset(buffer.items()), frozenset(debts.items())), (buffer, debts, choice))
            settled[key] = [((key, number), *way) for number, way in enumerate(ways.values())]
        return settled[key]

    @staticmethod
    def _idle(j: int, part: OverPart, debts: dict[GroundFact, Family]) -> set[GroundFact]:
        """The facts whose early reception at node j is not tried (module docstring): d(j, f) is open and f is carried
        with a support within {d(j, f)} (the round is the same without it); or f is carried well-founded and was
        received well-founded before (no choice run needs it)."""
        return {f for f, family in part.state
                if (f in debts and any(s <= {(j, f)} for s in family)) or (family == TRUE and f in part.had)}

    def _round(self, config: OverConfiguration, node_steps, had, arrivals, settled: dict
               ) -> tuple[OverConfiguration, frozenset[Debt]]:
        """The target of one way of arrivals (`arrivals`: per node, from `_arrivals_at`) and the debts the round
        founds. `settled`: per node, its part already computed in this round (it depends on its step, its arrivals
        and on what became well-founded)."""
        n = len(self.names)
        families = {(j, fact): family for j in range(n) for fact, family in arrivals[j][2].items()}
        done = well_founded(families)  # the well-founded debts
        founded = frozenset(done)
        parts = []
        for j, (key, buffer, debts, _) in enumerate(arrivals):
            mine = (key, id(node_steps[j]))
            if mine not in settled:  # the debts whose founding changes node j's part
                families = chain(node_steps[j][1].values(), buffer.values(), debts.values())
                settled[mine] = frozenset((j, f) for f in debts).union(d for fam in families for s in fam for d in s)
            whole = (mine, founded & settled[mine])
            if whole not in settled:
                state = frozenset((f, settle(fam, done)) for f, fam in node_steps[j][1].items())
                bit = frozenset(had[j]).union(f for i, f in done if i == j)
                buffered = ((w, f, settle(fam, done)) for (w, f), fam in buffer.items())
                settled[whole] = OverPart(
                    min(config.parts[j].clock + 1, self.cap), state,
                    frozenset(m for m in buffered if not (m[2] == TRUE and m[1] in bit and (m[1], TRUE) in state
                                                          and (m[0] == 0 or self.persists(j, m[1])))),  # idle
                    bit,
                    frozenset((f, settle(fam, done)) for f, fam in debts.items() if (j, f) not in done))
            parts.append(settled[whole])
        return OverConfiguration(tuple(parts)), founded


def beyond(window: eventual.Eventual, over: eventual.Eventual, bounds: Bounds,
           refused: dict[tuple[str, ...], str] | None = None) -> str:
    """Why the window graph's complete list (`window`) may miss choice runs' ultimate outputs, in words ('' when the
    over-approximation `over` lists no other output). `refused`: when given, the outputs beyond the window's whose
    witness the certificate tried (`choice_certificate`), each with why it refused it ('' once certified: then it
    is named no more)."""
    d = bounds.network.max_delay
    said = (f"a message may arrive more than {d} step{'s' * (d != 1)} before its send, which the choice runs' window "
            "graph does not follow")
    if not over.exact:
        return f"{said}, and its over-approximation (every choice run and more) was not decided: {over.reason}"
    more = sorted(o for o in set(over.ultimate_outputs) - set(window.ultimate_outputs)
                  if refused is None or refused.get(o, "not tried"))
    if not more:
        return ""
    shown = ", ".join("{" + ", ".join(o) + "}" for o in more)
    why = "; ".join(f"the witness of {{{', '.join(o)}}} is not certified: {refused[o]}"
                    for o in more if refused and refused.get(o))
    return (f"{said}; its over-approximation (every choice run and more) also has the ultimate output{'s' * (len(more) > 1)}"
            f" {shown}, which may be no choice run's" + (f" ({why})" if why else ""))
