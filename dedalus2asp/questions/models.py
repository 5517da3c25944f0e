"""The eventual mode's models: the completeness threshold K and the distinct ultimate outputs of the lassos.

A **lasso model** (`asp.transform` in `Mode.EVENTUAL`, templates/lasso.lp.j2) is an ultimately periodic
infinite run written over its steps 0..K-1, the solver choosing the loop start L (Heljanko and Niemelä,
*Bounded LTL model checking with stable models*, TPLP 2003, §4). Its **ultimate facts** are those that
hold at every step of the loop (jcss2014 §2.5.5: from some step on they hold at every step); its ultimate
output is that of out(P), united over the nodes (`inspect.Model.ultimate`).

**Completeness threshold** (`threshold`). A configuration of the rounds semantics at round t is what the
future of a run depends on: the facts carried into t, the messages in flight (addressee, fact, steps to
go), the crashed nodes, which nodes have sent (Molly's after-send crash candidates), and the clock capped
at the last step anything reads by number. A lasso whose loop is a simple cycle of configurations has at
most as many steps as the longest path of pairwise distinct configurations from the start (the
recurrence diameter plus one). The loop-free path program (`transform(..., path=True)`) has a model iff
some run has K pairwise distinct configurations in a row; when the first K for which it has none is
K'+1, every such lasso has at most K' steps, so the lassos of K' steps (which include every shorter one,
`lasso_models`) are enough, and K' is the threshold reported: the answer is **exact**. Not exact: async delivery under the choice semantics (a message may
arrive before its send, from a send past the path's end, which the path program does not see), a
program that computes new values without bound (no finite set of configurations), or no K found within
the limit; the answer is then the one for the lassos of the largest K tried, labelled so.

`ultimate_outputs` enumerates the lassos of K steps projected onto their ultimate facts per node (clingo's
projective enumeration), and keeps one lasso per distinct ultimate output (united over nodes). A run that
alternates between loops forever holds, at each node, only what all of them hold: the intersection of
their per-node ultimate sets, which a lasso of K steps shows only when the loops fit in it. Every such
run's set is an intersection of simple loops' sets, which the lassos of K steps all have when K is the
threshold; so when the per-node sets found, closed under intersection, give no output beyond those
found, the list is complete (`exact`); otherwise the explorer's configuration graph (`runs.eventual`, which
enumerates every strongly connected edge set, alternations included) decides when it is built within
`EXPLORER_LIMIT` configurations under the causal rounds (`decided_by: "explorer"`), and else the answer says which
outputs it cannot decide.

All of this is about the runs in rounds; where the nodes' clocks may drift apart (a delay bound, messages between
nodes, a program that is not confluent) the list is not exact, and `graph_first` adds the outputs of the runs whose
first steps use free clocks (`free_clocks`, docs/semantics.md, "Decision: the rounds").
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import clingo

from ..asp import transform
from ..asp.names import relation_name
from ..bounds import Bounds, Mode, Network, Semantics
from ..inspect.model import Model, decode
from ..lang import coordination, ranges
from ..lang.ast import Instance, Program, RuleKind
from ..runs import choice_certificate
from ..runs import eventual as explorer
from ..runs.drift import UNCHECKED, may_drift
from . import deepening

GROUPING = ("the causal semantics (pure_ca, without the finiteness rules (11)-(14)) also has infinite models in which a "
            "node receives infinitely many messages at one step (tplp2016 §4.4.3, Fig. 5), which are no runs and no "
            "lassos: the list is every run's only under --semantics causal-finite")
"""Why an answer over the runs is not exact for pure_ca's models when messages go between nodes under a delay bound
(under sync, or on one node, a step receives from finitely many sends: every model of pure_ca is one of pure)."""

MAX_STEPS = 40
"""The largest K the threshold search tries before it answers `exact: false`."""

CLOSING_LIMIT = 2_000
"""The most configurations the explorer's graph may have to prove a program finite on its input when the value-range
analysis cannot (`not_exact`): a program whose values grow has graphs whose states grow too, slow to build."""

EXPLORER_LIMIT = 20_000
"""The most configurations the explorer's graph (`runs.eventual.explore`) may have when it is asked to decide what
the per-node ultimate sets of the lassos leave open (a run alternating between loops): past it, `exact: false`."""

UNKNOWN_STEPS = 6
"""K when no threshold can be established (`not_exact`) and none is given: the answer is then labelled bounded."""

ULTIMATE = "_ultimate"
"""_ultimate_R(X,W..): R(W..) holds at node X at every step of the loop (an ultimate fact)."""


@dataclass(frozen=True)
class Threshold:
    """The completeness threshold: `steps` K (lassos of K steps are enough when `exact`), and why not when not."""

    steps: int
    exact: bool
    reason: str = ""
    seconds: float = 0.0


def not_exact(program: Program, bounds: Bounds, instance: Instance | None = None) -> str:
    """Why the lassos of no K are known to be enough ('' when a threshold can be established). A program whose values
    may grow (`lang.ranges`: no guard bounds the move, no counter cut makes it finite) is still finite on `instance`
    when the explorer's configuration graph closes within `CLOSING_LIMIT` configurations (causal rounds)."""
    found = ranges.analyse(program, instance)
    unsafe = found.unbounded
    if unsafe and not _closes(program, instance, bounds):
        return (f"the program may compute new values without bound ({found.words(unsafe[0])}) and the explorer's graph "
                f"does not close within {CLOSING_LIMIT} configurations: its configurations need not be finitely many")
    if not bounds.semantics.causal and not bounds.network.sync and program.async_relations():
        return ("under the choice semantics with a delay bound a message may arrive before its send, from a send past "
                "any path the threshold program looks at: no completeness threshold is established")
    return ""


def _closes(program: Program, instance: Instance | None, bounds: Bounds) -> bool:
    """Whether the explorer's graph of P on H (causal rounds, `bounds.network`) has at most `CLOSING_LIMIT`
    configurations: then P is finite-state on H whatever its syntax says."""
    if instance is None:
        return False
    try:
        graph = explorer.graph_of(program, instance, bounds, observe=False)
        explorer.build(graph, CLOSING_LIMIT)
    except (explorer.ConfigurationLimit, ValueError):
        return False
    return True


def reach(program: Program, instance: Instance | None, bounds: Bounds, max_steps: int) -> int:
    """The most steps a threshold search or a deepening tries: `max_steps`, plus the steps a loss window adds to the
    lasso clock's cap (`transform.clock_cap`) past the last step read by number. The configurations before that cap
    are pairwise distinct, so every run passes that many first, and a fixed cap would stop a long loss window
    (Molly's rdlog at EFF 23) before the program's own configurations are counted."""
    first = transform.read_steps(program, instance)
    return max_steps + transform.clock_cap(bounds.network, first) - (first + 1)


def eventual_bounds(bounds: Bounds, steps: int) -> Bounds:
    """`bounds` in the eventual mode with lassos of `steps` steps (horizon steps - 1)."""
    return replace(bounds, horizon=steps - 1, mode=Mode.EVENTUAL)


def first_steps(program: Program, instance: Instance | None) -> int:
    """The fewest steps a lasso can have: its loop starts after the last step read by number, and has a step."""
    return transform.read_steps(program, instance) + 2


def satisfiable(text: str, deadline: float | None = None) -> bool | None:
    """Whether the program has a model (None: stopped at `deadline`, a time.monotonic() value)."""
    ctl = clingo.Control(["1"], logger=lambda code, message: None)
    ctl.add("base", [], text)
    ctl.ground([("base", [])])
    with ctl.solve(async_=True) as handle:
        while not handle.wait(0.05):
            if deadline is not None and time.monotonic() > deadline:
                handle.cancel()
                return None
        return handle.get().satisfiable


def threshold(program: Program, instance: Instance | None, bounds: Bounds, max_steps: int = MAX_STEPS,
              timeout: float | None = None) -> Threshold:
    """The completeness threshold K of P on H under `bounds` (its mode is not read): the first K with no loop-free
    path of K configurations, minus one (the most configurations on such a path: the recurrence diameter plus one),
    at least `first_steps`; or, not exact, the largest K tried and the reason."""
    start = time.monotonic()
    deadline = None if timeout is None else start + timeout
    transform.lasso_ready(bounds)
    least = first_steps(program, instance)
    why = not_exact(program, bounds, instance)
    if why:
        return Threshold(max(least, UNKNOWN_STEPS), False, why, 0.0)
    max_steps = reach(program, instance, bounds, max_steps)
    for k in range(1, max_steps + 1):
        path = transform.transform(program, instance, eventual_bounds(bounds, k), path=True)
        found = satisfiable(path.text, deadline)
        if found is None:
            return Threshold(max(k - 1, least), False, f"the threshold search stopped after {timeout} s at K = {k}",
                             time.monotonic() - start)
        if not found:  # the longest path of distinct configurations has k-1 of them: every simple lasso fits in k-1 steps
            return Threshold(max(k - 1, least), True, "", time.monotonic() - start)
    return Threshold(max(max_steps, least), False,
                     f"some run has {max_steps} pairwise distinct configurations in a row: no threshold up to K = {max_steps}",
                     time.monotonic() - start)


def confluent(program: Program, instance: Instance | None, network: Network) -> bool:
    """Whether every infinite run of P on H, causal or choice (messages may arrive before their send), ends holding
    the same facts, so that every run has the same ultimate output and any lasso shows it: P is confluent by the
    Dedalus properties draft's criterion (`lang.coordination`: temporally safe, no locus of coordination, every
    asynchronous relation simply persisted, every relation carried to a later step growing) and temporally
    stratifiable, has no global rule and no lock-step rule (its argument reads each node alone), and the network
    has no faults.

    The argument is jcss2014's for Algorithm 2 (§4.1.1: "even if messages are sent into the past, the inductive
    rule persists any received identifier towards the future"), made general. A growing relation's rules read
    growing relations positively and negate or aggregate only relations fixed by the input (the same at every
    step), so at each node its facts never shrink and, finitely many (temporal safety), stop growing at some step.
    They are then exactly those of G, the least fixpoint of the program read without time (an asynchronous head at
    its addressee): every fact of a stable model has a derivation, which read without time is one in G (⊆); past
    the step where every node's growing facts stop changing, every rule whose body holds fires at every step, and
    a message sent at each of those steps arrives at one of them, wherever the arrival choice puts it (at most D
    steps before or after its send), and stays, being simply persisted (⊇). What is read at one step only is, at
    each such step, the one stratified model (temporal stratification) over those facts and the input. G does not
    depend on the run, so neither does the ultimate output: the program is consistent and tolerates
    non-causality."""
    if network.faulty or any(r.kind in (RuleKind.GLOBAL, RuleKind.LOCKSTEP) for r in program.rules):
        return False
    facts = [*(f for fs in (instance.facts.values() if instance else ()) for f in fs),
             *(instance.everywhere if instance else ())]
    found = coordination.analyse(program, {f.predicate for f in facts if f.step is not None})
    return found.confluent and found.temporally_stratifiable


def confluent_steps(program: Program, instance: Instance | None, bounds: Bounds, max_steps: int = MAX_STEPS,
                    timeout: float | None = None) -> int | None:
    """The fewest steps K ≥ `first_steps` of a lasso under `bounds` (the first satisfiable lasso program), or None
    when there is none up to `max_steps` or the search stops at `timeout`. For a confluent program
    (`confluent`) every lasso shows the one ultimate output, so the shortest will do."""
    deadline = None if timeout is None else time.monotonic() + timeout
    for k in range(first_steps(program, instance), max_steps + 1):
        found = satisfiable(lasso_models(program, instance, bounds, k).text, deadline)
        if found is None:
            return None
        if found:
            return k
    return None


def confluent_lasso_steps(program: Program, instance: Instance | None, bounds: Bounds, max_steps: int = MAX_STEPS,
                          timeout: float | None = None) -> int | None:
    """The K at which a confluent program's lassos are asked: the fewest steps a lasso has (`confluent_steps`) plus
    the delay bound D (None: no lasso, or K above `max_steps`). The argument of `confluent` says every lasso shows
    the one ultimate output, the shortest included; but the shortest lassos hold only the runs that settle early
    (each message on time, the loop right after the last input event), where a criterion that wrongly admitted a
    program goes unseen (an input event on a derived relation did: the run whose message arrives D steps late
    misses it). The lassos of D more steps hold the runs whose messages take their longest delay, so this self-check
    can fail: when they disagree, the callers say so, or leave the answer to the thresholds."""
    shortest = confluent_steps(program, instance, bounds, max_steps, timeout)
    if shortest is None or shortest + (bounds.network.delay_bound or 0) > max_steps:
        return None
    return shortest + (bounds.network.delay_bound or 0)


def ultimate_rules(compiled: transform.Compiled, outputs: tuple[str, ...]) -> str:
    """The ultimate facts of out(P) and the projection onto the ultimate output (united over nodes, but a located
    relation's with its node: it shows in the fact's location column)."""
    lines = ["", "% the ultimate facts: those that hold at every step of the loop (jcss2014 §2.5.5)"]
    for relation in outputs:
        arity = compiled.arities[relation]
        name, w = relation_name(relation), "".join(f",W{i}" for i in range(1, arity + 1))
        ultimate, broken = f"{ULTIMATE}_{name}", f"_broken_{name}"
        lines += [
            f"{broken}(X{w}) :- {name}(X,T{w}), _loop(L), time(U), U >= L, not {name}(X,U{w}).",
            f"{ultimate}(X{w}) :- {name}(X,T{w}), _loop(L), T >= L, not {broken}(X{w}).",
        ]
        lines.append(f"#project {ultimate}/{arity + 1}.")
    return "\n".join(lines) + "\n"


def ultimate_items(lasso: Model, outputs: tuple[str, ...]) -> frozenset:
    """The ultimate facts of out(P) of a lasso, per node: (node, relation, args) holding at every loop step."""
    loop = set(range(lasso.loop_start, lasso.horizon + 1))
    steps: dict[tuple, set[int]] = {}
    for x, s, r, a in lasso.trace:
        if r in outputs and s in loop:
            steps.setdefault((x, r, a), set()).add(s)
    return frozenset(item for item, held in steps.items() if held == loop)


def alternations(found, shown) -> set[tuple[str, ...]]:
    """The ultimate outputs a run alternating between loops might hold that no lasso found has: the per-node
    ultimate sets closed under intersection (a run that uses several loops forever holds, at each node, what
    all of them hold), united over nodes, minus the outputs found."""
    closed = set(found)
    work = list(found)
    while work:
        items = work.pop()
        for other in list(closed):
            meet = items & other
            if meet not in closed:
                closed.add(meet)
                work.append(meet)
    known = {shown(items) for items in found}
    return {shown(items) for items in closed} - known


@dataclass(frozen=True)
class Ultimate:
    """The distinct ultimate outputs of the lassos of K steps, each with one lasso that has it.

    `outputs[i]` is held ultimately by `lassos[i]`. `exact`: K is the completeness threshold (or more), so
    every run whose loop is a simple cycle of configurations is among the lassos; else `reason` says why and
    the list is the bounded one of the lassos of K steps. `complete`: the enumeration finished (no timeout).
    """

    outputs: tuple[tuple[str, ...], ...]
    lassos: tuple[Model, ...]
    steps: int
    exact: bool
    bounds: Bounds
    reason: str = ""
    complete: bool = True
    relations: tuple[str, ...] = field(default=())
    decided_by: str = "solver"  # "explorer": the configuration graph settled what the lassos left open
    explorer_steps: int = 0  # when the explorer decided: its longest witness lasso (prefix + loop), in steps
    free_clocks: int | None = None
    """When the nodes' clocks may drift apart (`free_clocks`): the horizon T up to which the runs with free clocks were
    followed (-1: not followed); the list is then not exact."""
    drifted: tuple = ()
    """The outputs only a run whose clocks drift apart has (they end the list), each with that run
    (`runs.eventual.Lasso`: its free-clock prefix, then rounds)."""
    certified: tuple = ()
    """Under `--semantics choice`, when the choice runs' graphs decided (`decided_by: "choice-graph"`): the outputs
    listed beyond the window graph's, each a certified choice run's (`runs.choice_certificate`), with that run
    (`runs.eventual.Lasso`); those no lasso shows come after the lassos' outputs."""

    @property
    def certain(self) -> tuple[str, ...]:
        sets = [set(o) for o in self.outputs]
        return tuple(sorted(set.intersection(*sets))) if sets else ()

    @property
    def possible(self) -> tuple[str, ...]:
        return tuple(sorted(set().union(*self.outputs)))

    def as_dict(self) -> dict:
        return {
            "mode": "eventual",
            "ultimate_outputs": [list(o) for o in self.outputs],
            "certain": list(self.certain),
            "possible": list(self.possible),
            "lassos": [
                {"output": list(o), "loop_start": m.loop_start, "period": m.period, "model": m.as_dict()}
                for o, m in zip(self.outputs, self.lassos)
            ],
            "exact": self.exact,
            "decided_by": self.decided_by if self.exact else None,
            "K": self.steps,
            **({} if self.free_clocks is None else {
                "free_clocks": self.free_clocks,
                "free_clock_runs": [{"output": list(o), **run.as_dict()} for o, run in self.drifted]}),
            **({"certified_runs": [{"output": list(o), **run.as_dict()} for o, run in self.certified]}
               if self.certified else {}),
            "reason": self.reason or None,
            "complete": self.complete,
            "semantics": self.bounds.semantics.value,
            "encoding": self.bounds.encoding.value,
            "max_delay": self.bounds.network.max_delay,
            **self.bounds.network.as_dict(),
        }


def lasso_models(program: Program, instance: Instance | None, bounds: Bounds, steps: int) -> transform.Compiled:
    """The lasso program of `steps` steps (its models: the lassos with L + P = steps, standing for every shorter one)."""
    return transform.transform(program, instance, eventual_bounds(bounds, steps))


def ultimate_outputs(program: Program, instance: Instance | None, bounds: Bounds, outputs: tuple[str, ...],
                     steps: int | None = None, max_steps: int = MAX_STEPS, timeout: float | None = None,
                     threshold_steps: bool = False) -> Ultimate:
    """The distinct ultimate outputs of the lassos of K steps: K = `steps` if given (then `exact` is False: no
    threshold was established, unless `threshold_steps` says the caller found `steps` to be the completeness
    threshold), else the completeness threshold (`threshold`)."""
    start = time.monotonic()
    decided_by = "solver"
    shortest = lassos = None
    if steps is None and confluent(program, instance, bounds.network):
        transform.lasso_ready(bounds)
        shortest = confluent_lasso_steps(program, instance, bounds, max_steps, timeout)
    graphed = None if shortest is not None or steps is not None else graph_first(program, instance, bounds, outputs)
    if shortest is not None:  # every run has the ultimate output of any lasso: those a few steps past the shortest
        steps, exact, reason, decided_by = shortest, True, "", "confluence"
    elif graphed is not None:  # the explorer's graph lists every output; lassos of its witnesses' length show them
        steps = max(first_steps(program, instance),  # (a certified choice run's arrive further back: no lasso's)
                    *(w.loop_start + w.period for w in graphed.witnesses if not w.free_clocks and w.early is None))
        exact, reason = graphed.exact, graphed.reason  # not exact when the clocks may drift
        decided_by = "choice-graph" if bounds.semantics is Semantics.CHOICE else "graph"
    elif steps is None:
        found = threshold(program, instance, bounds, max_steps, timeout)
        steps, exact, reason = found.steps, found.exact, found.reason
        if not exact:  # never weaker than bounded: the deepest lassos the time limit allows
            left = None if timeout is None else max(0.0, timeout - (time.monotonic() - start))
            deepest, lassos, stopped = deepening.deepen(
                steps, lambda k, s: enumerated(program, instance, bounds, k, outputs, s), lambda found: False, left)
            if lassos is not None:
                steps, reason = deepest, f"{reason}; {deepening.how_far(deepest, stopped)}"
    elif threshold_steps:
        transform.lasso_ready(bounds)
        exact, reason = True, ""
    else:
        transform.lasso_ready(bounds)
        exact, reason = False, f"lassos of {steps} steps only (--steps): no completeness threshold was established"
    remaining = None if timeout is None else max(0.0, timeout - (time.monotonic() - start))
    compiled, per_node, complete = lassos or enumerated(program, instance, bounds, steps, outputs, remaining,
                                                         whole=True)
    seen: dict[tuple[str, ...], Model] = {}
    for items, lasso in sorted(per_node.items(), key=lambda pair: pair[1].number):
        seen.setdefault(lasso.ultimate(outputs), lasso)
    ordered = sorted(seen, key=lambda o: (len(o), o))
    lassos = tuple(replace(seen[o], number=i, output_relations=outputs) for i, o in enumerate(ordered, 1))
    if not complete:
        exact, reason = False, (reason + "; " if reason else "") + f"the enumeration stopped after {timeout} s"
    missing = alternations(per_node, lambda items: tuple(sorted({lasso_fact(compiled, x, r, a) for x, r, a in items})))
    extra, explorer_steps, drifted, free, certified = (), 0, (), None, ()
    if decided_by == "confluence" and len(ordered) > 1:  # which the argument rules out: say so rather than hide it
        exact, decided_by = False, "solver"
        reason = f"the program is confluent, yet the lassos of {steps} steps show {len(ordered)} ultimate outputs"
    if graphed is not None:  # every output the explorer lists; one no lasso of its witnesses' length shows has none
        extra = tuple(sorted((o for o in graphed.in_rounds if o not in seen), key=lambda o: (len(o), o)))
        drifted = tuple((o, w) for o, w in zip(graphed.ultimate_outputs, graphed.witnesses) if w.free_clocks)
        certified = tuple((o, w) for o, w in zip(graphed.ultimate_outputs, graphed.witnesses) if w.early is not None)
        free = graphed.free_clocks
        if set(seen) - set(graphed.ultimate_outputs):  # which the eventual Theorem 4 rules out: say so
            exact, decided_by = False, "solver"
            reason = "the lassos show an ultimate output the explorer's graph does not have"
    elif exact and missing and decided_by != "confluence":
        exact = False
        reason = alternation_reason(missing, steps)
        explored = explorer_decides(program, instance, compiled.bounds, outputs)
        if explored is not None:
            exact, reason, decided_by = True, "", "explorer"
            explorer_steps = max((w.loop_start + w.period for w in explored.witnesses), default=0)
            # the outputs only an alternating run holds come after those with a lasso, without one
            extra = tuple(sorted((o for o in explored.ultimate_outputs if o not in seen), key=lambda o: (len(o), o)))
    if exact and graphed is None and decided_by != "confluence" and not threshold_steps:  # runs in rounds (the lassos,
        # the explorer); cron, which passes threshold_steps, withdraws its own answer (`free_clocks.withdrawn`)
        if may_drift(program, instance, bounds.network):
            exact, free, reason = False, -1, explorer.drift_reason(-1, UNCHECKED)
    if exact and decided_by != "confluence" and bounds.semantics is Semantics.CAUSAL and may_drift(
            program, instance, bounds.network):
        exact, reason = False, GROUPING
    return Ultimate(tuple(ordered) + extra + tuple(o for o, _ in drifted), lassos, steps,
                    exact, compiled.bounds, reason, complete, outputs, decided_by, explorer_steps, free, drifted,
                    certified)


def enumerated(program: Program, instance: Instance | None, bounds: Bounds, steps: int, outputs: tuple[str, ...],
               timeout: float | None, whole: bool = False):
    """The lassos of `steps` steps, one per distinct per-node ultimate set (the enumeration projects onto them):
    the compiled program, the lassos and whether the enumeration finished before `timeout`; with `whole` False,
    None instead when it did not (`deepening.deepen`'s question)."""
    compiled = lasso_models(program, instance, bounds, steps)
    ctl = clingo.Control(["0", "--project=project"], logger=lambda code, message: None)
    ctl.add("base", [], compiled.text + ultimate_rules(compiled, outputs))
    ctl.ground([("base", [])])
    per_node: dict[frozenset, Model] = {}
    deadline = None if timeout is None else time.monotonic() + timeout
    complete = True

    def on_model(model: clingo.Model) -> None:
        lasso = decode(model.symbols(atoms=True), compiled, len(per_node) + 1)
        per_node.setdefault(ultimate_items(lasso, outputs), lasso)

    with ctl.solve(on_model=on_model, async_=True) as handle:
        while not handle.wait(0.05):
            if deadline is not None and time.monotonic() > deadline:
                handle.cancel()
                complete = False
                break
        handle.get()
    return (compiled, per_node, complete) if whole or complete else None


def alternation_reason(missing, steps: int) -> str:
    """Why the per-node ultimate sets of the lassos found do not settle the answer, in words."""
    return ("a run that alternates between loops forever holds, at each node, only what all of them hold, and might "
            f"ultimately output {', '.join('{' + ', '.join(o) + '}' for o in sorted(missing))}, which no lasso of "
            f"{steps} steps shows")


GRAPH_LIMIT = 100_000
"""The most configurations `graph_first` builds before it leaves the answer to the threshold search."""

GRAPH_SECONDS = 8.0
"""The longest `graph_first` spends building the graph."""


def choice_is_causal(program: Program, bounds: Bounds) -> bool:
    """Whether every choice run is a causal run: no message can arrive before its send, since there is none (no
    asynchronous rule) or each arrives at the next round (`--delivery sync`)."""
    return bounds.network.sync or not program.async_relations()


def graph_first(program: Program, instance: Instance | None, bounds: Bounds, outputs: tuple[str, ...]):
    """The explorer's exact answer where it is the cheaper procedure: under a delay bound (the threshold's loop-free
    paths grow exponentially with D; under sync they are cheap), for the causal runs or choice runs that are causal
    ones, when the graph closes within `GRAPH_LIMIT` configurations and `GRAPH_SECONDS`; else None. For the choice
    runs under a delay bound, the choice runs' graphs where they decide (`runs.choice_certificate.explore`: the window
    graph's outputs and the over-approximation's certified ones are every output the over-approximation lists)."""
    if bounds.network.sync or instance is None:
        return None
    if bounds.semantics is Semantics.CHOICE and not choice_is_causal(program, bounds):
        try:
            chosen = choice_certificate.explore(program, instance, replace(bounds, mode=Mode.EVENTUAL), GRAPH_LIMIT,
                                                outputs, seconds=GRAPH_SECONDS)
        except ValueError:
            return None
        return chosen if chosen.exact and chosen.infinite_runs else None
    if not (bounds.semantics.causal or choice_is_causal(program, bounds)):
        return None
    try:
        explored = explorer.explore(program, instance, replace(bounds, mode=Mode.EVENTUAL), GRAPH_LIMIT, outputs,
                                    seconds=GRAPH_SECONDS, free_clocks=True)
    except ValueError:
        return None
    return explored if explored.graph_complete and explored.rounds_exact and explored.infinite_runs else None


def explorer_decides(program: Program, instance: Instance | None, bounds: Bounds, outputs: tuple[str, ...],
                     limit: int = EXPLORER_LIMIT):
    """The explorer's exact answer (`runs.eventual.explore`: every strongly connected edge set of the configuration
    graph, alternations included) when its graph has at most `limit` configurations and the causal rounds are the
    semantics asked (the explorer has no choice semantics); else None."""
    if not bounds.semantics.causal:
        return None
    try:
        explored = explorer.explore(program, instance, replace(bounds, mode=Mode.EVENTUAL), limit, outputs)
    except ValueError:
        return None
    return explored if explored.graph_complete and explored.exact else None


def lasso_fact(compiled: transform.Compiled, node, relation: str, args) -> str:
    """An ultimate fact as the output shows it (`inspect.Model.output_fact`: a located relation's with its node)."""
    return Model(0, frozenset(), (), (), compiled.bounds, program=compiled.program).output_fact(node, relation, args)
