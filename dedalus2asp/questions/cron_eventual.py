"""Consistency and tolerance on ultimate outputs (`cron --eventual`): the CRON questions of jcss2014 §2.5.5 and
§3.2 asked of infinite runs, whose output is the set of ultimate facts.

`analyse_eventual` asks `cron.analyse`'s two questions of the lasso models of K steps (`Mode.EVENTUAL`) at
each side's completeness threshold (`eventual.threshold`), or, for a confluent program, of its shortest lassos
(`by_confluence`); the lassos' per-node ultimate sets are closed under intersection (`per_node`), and the
witnesses shown are the shortest (`shortest_witness`). The verdict is `cron.Verdict` with its `exactness` set.
"""

from __future__ import annotations

import time
from dataclasses import replace

from ..bounds import Bounds, Mode, Semantics
from ..lang import coordination, ranges
from ..lang.ast import Instance, Program
from ..lang.diagnostics import rule_name
from ..lang.lamport import clock_rule, undo
from . import cron_graph, deepening, eventual, free_clocks, models
from .cron import Deadline, Semantic, Timeout, Verdict, analyse, outputs_of
from .eventual import Exactness


def analyse_eventual(
    program: Program,
    instance: Instance,
    bounds: Bounds,
    outputs: tuple[str, ...] | None = None,
    timeout: float | None = None,
    max_k: int = deepening.MAX_K,
) -> Verdict:
    """Consistency and tolerance on ultimate outputs (`cron --eventual`): `analyse` asked of the lasso models with K
    steps (`Mode.EVENTUAL`), their output facts the ultimate ones (`eventual.ultimate_rules`).

    Consistent: every causal lasso has the same ultimate output. A run that alternates between two loops holds, at
    each node, the intersection of their per-node ultimate sets, which lassos that agree on the output united over
    nodes need not share (f at node a on one loop, at node b on the other: the alternating run holds neither), so
    `per_node` closes the lassos' per-node sets under intersection and lets the explorer decide when that leaves an
    output open. The witnesses shown are the shortest (`shortest_witness`).
    Tolerant: every choice lasso has that output too. Each side is asked at its own threshold (`eventual.threshold`:
    `causal`, and `choice` only when the causal side is consistent, since an inconsistency is exact at any K), both
    at the larger K (one solve at K covers every shorter lasso). Raises Timeout."""
    start = time.perf_counter()
    deadline = Deadline(timeout)
    outs = outputs_of(program, outputs)
    settled = by_confluence(program, instance, bounds, outs, deadline, max_k)
    if settled is not None:
        _beside_original(program, instance, bounds, outs, deadline, max_k, settled)
        settled.seconds = time.perf_counter() - start
        return settled
    decided = cron_graph.by_graph(program, instance, bounds, outs, deadline)  # the explorer's graph, where it closes
    if decided is not None:
        decided = shortest_witness(program, instance, bounds, decided, outs, deadline)
        if not window_decided(decided):  # the graph decided every choice lasso: longer ones cannot differ
            decided = deepened(program, instance, bounds, decided, outs, deadline, max_k)
        decided = bounded_tolerance(program, instance, bounds, decided, outs, deadline, max_k)
        decided.growing = None
        decided.seconds = time.perf_counter() - start
        return decided
    causal = eventual.threshold(program, instance, replace(bounds, semantics=Semantics.CAUSAL_FINITE), max_k,
                                deadline.remaining())
    verdict = analyse(program, instance, eventual.lasso_bounds(bounds, causal.K), outs, deadline.remaining())
    choice = None
    if verdict.satisfiable and verdict.consistent:
        causal, decided = per_node(program, instance, bounds, Semantics.CAUSAL_FINITE, causal, outs, deadline)
        if decided is not None and len(decided.outputs) > 1:  # the explorer found a run alternating between loops
            longer = analyse(program, instance, eventual.lasso_bounds(bounds, max(decided.explorer_steps, causal.K)), outs,
                             deadline.remaining())  # its lasso, a closed walk through two loops, for the witnesses
            if longer.satisfiable and longer.consistent is False:
                verdict = longer
            else:
                causal = Exactness(causal.K, False, "the explorer finds ultimate outputs "
                                   f"{', '.join('{' + ', '.join(o) + '}' for o in decided.outputs)} (a run alternating "
                                   "between loops), but no lasso of its witnesses' length shows two of them")
    if verdict.satisfiable and verdict.consistent:
        choice = eventual.threshold(program, instance, replace(bounds, semantics=Semantics.CHOICE), max_k,
                                    deadline.remaining())
        choice, _ = per_node(program, instance, bounds, Semantics.CHOICE, replace(choice, K=max(choice.K, causal.K)),
                             outs, deadline)
        if choice.K > causal.K:
            verdict = analyse(program, instance, eventual.lasso_bounds(bounds, choice.K), outs, deadline.remaining())
    verdict = shortest_witness(program, instance, bounds, verdict, outs, deadline)
    verdict.exactness = causal
    verdict.choice_exactness = choice
    verdict = deepened(program, instance, bounds, verdict, outs, deadline, max_k)
    verdict.exactness = free_clocks.withdrawn(verdict.exactness, program, instance, bounds.network)  # runs in rounds
    if verdict.choice_exactness is not None:
        verdict.choice_exactness = free_clocks.withdrawn(verdict.choice_exactness, program, instance, bounds.network)
    verdict = bounded_tolerance(program, instance, bounds, verdict, outs, deadline, max_k)
    verdict.growing = None if verdict.exact else growing(program)
    _beside_original(program, instance, bounds, outs, deadline, max_k, verdict)
    verdict.seconds = time.perf_counter() - start
    return verdict


def _beside_original(program: Program, instance: Instance, bounds: Bounds, outs: tuple[str, ...], deadline: Deadline,
                     max_k: int, verdict: Verdict) -> None:
    """On a Lamport rewrite: the original's eventual verdict, and the rule of the rewrite's clock (it grows at every
    step, so the rewrite has no lasso)."""
    original = undo(program)
    if original is not None:
        verdict.original = analyse_eventual(original, instance, bounds, outs, deadline.remaining(), max_k)
        rule = clock_rule(program)
        verdict.clock = f"{rule_name(rule)}: {rule}" if rule is not None else None


def growing(program: Program) -> str | None:
    """The first rule that computes new values without bound (temporal safety, `lang.coordination`), as
    "`rule` (file:line:col)"; None when the program is temporally safe."""
    grows = {(s.rule.span.line, s.rule.span.col) for s in ranges.analyse(program).unbounded}  # a cut counter does not
    found = [d for d in coordination.analyse(program).unbounded
             if any(r.span.line <= d.line <= r.span.end_line and (r.span.line, r.span.col) in grows for r in program.rules)]
    if not found:
        return None
    where = found[0]
    rule = next((r for r in program.rules if r.span.line <= where.line <= r.span.end_line), None)
    return f"{'`' + str(rule) + '` ' if rule is not None else ''}({where.filename}:{where.line}:{where.col})"


def deepened(program: Program, instance: Instance, bounds: Bounds, found: Verdict, outputs: tuple[str, ...],
             deadline: Deadline, max_k: int) -> Verdict:
    """A verdict that is not exact, asked of ever longer lassos (`deepening.deepen`, from its K to `max_k` or the
    time limit) until two causal lassos ultimately differ or a choice lasso differs from the consistent output
    (exact whatever K, its witnesses the shortest); else the verdict of the deepest K reached, each side that was
    not exact saying how far it went. An exact verdict is returned as it is."""
    if found.exact is not False:
        return found

    def ask(k: int, left: float) -> Verdict | None:
        try:
            return analyse(program, instance, eventual.lasso_bounds(bounds, k), outputs, left)
        except Timeout:
            return None

    differ = lambda v: v.satisfiable and not (v.consistent and v.tolerant)  # noqa: E731
    K, deeper, stopped = deepening.deepen(found.K, ask, differ, deadline.remaining(), max_k)
    if deeper is None:
        return found
    if differ(deeper):
        deeper = shortest_witness(program, instance, bounds, deeper, outputs, deadline)
    causal, choice = found.exactness, found.choice_exactness
    deeper.exactness = causal if causal.exact else causal.deepened(K, stopped, differ(deeper))
    if deeper.satisfiable and deeper.consistent:  # the choice side is asked only of a consistent program
        choice = choice or Exactness(K, False, models.not_exact(program, replace(bounds, semantics=Semantics.CHOICE))
                                     or causal.reason)
        deeper.choice_exactness = choice if choice.exact else choice.deepened(K, stopped, differ(deeper))
    return deeper


def window_decided(found: Verdict) -> bool:
    """Whether longer lassos cannot change the verdict: the choice runs' window graph decided "tolerant" over every run
    it follows (those whose messages arrive at most D steps before their send, as the choice lassos' do), and
    consistency is exact or open only by the runs whose clocks drift apart (which lassos, in rounds, cannot tell)."""
    c = found.choice_exactness
    return bool(c is not None and c.decided_by == "choice-graph"
                and (found.consistency_exact or found.exactness.free_clocks is not None))


def bounded_tolerance(program: Program, instance: Instance, bounds: Bounds, found: Verdict, outputs: tuple[str, ...],
                      deadline: Deadline, max_k: int) -> Verdict:
    """Never weaker than bounded `cron`: a "tolerant" that is not exact is asked of bounded `cron -T T` (the bounded
    choice semantics, where a message may arrive at any step up to D after its send, however far before it) at T = 1,
    2, ... up to `max_k` or the time limit (`deepening.deepen`). The first T at which every causal model holds the
    ultimate output at step T and a choice model does not is the answer's counterexample, marked bounded
    (`Verdict.bounded_horizon`: not exact, no infinite run shown). Else `found`, its reason saying how far it looked."""
    if not (found.satisfiable and found.consistent and found.tolerant) or found.tolerance_exact is not False:
        return found

    def ask(T: int, left: float) -> Verdict | None:
        bounded = replace(bounds, horizon=T, mode=Mode.BOUNDED)
        try:  # the choice side first: where every choice model holds the ultimate output at T, nothing differs
            chosen = Semantic(program, instance, replace(bounded, semantics=Semantics.CHOICE), outputs).consequences(
                Deadline(left))
            if chosen is not None and chosen.certain == chosen.possible == found.certain:
                return found
            return analyse(program, instance, bounded, outputs, left)
        except Timeout:
            return None

    differs = lambda v: bool(v.satisfiable and v.consistent and v.certain == found.certain  # noqa: E731
                             and v.tolerant is False)
    first = max(0, max((f.step for facts in instance.facts.values() for f in facts if f.step is not None),
                       default=0) - 1)  # bounded cron refuses an input event past its horizon: start at the last one
    T, run, stopped = deepening.deepen(first, ask, differs, deadline.remaining(), max_k)
    choice = found.choice_exactness
    if run is None or not differs(run):
        said = (f"stopped by the time limit before bounded cron -T {first + 1}" if T == first else
                f"no choice model of bounded cron -T {first + 1}..{T} differs at its last step from the causal runs' ultimate "
                f"output ({'its time limit stopped it there' if stopped else f'{T} is the largest horizon it tries'})")
        found.choice_exactness = replace(choice, reason=f"{choice.reason}; {said}")
        return found
    found.tolerant, found.bounded_horizon = False, T
    found.counterexample, found.lost, found.gained = run.counterexample, run.lost, run.gained
    found.choice_certain = (found.choice_certain or frozenset()) - run.lost
    found.choice_possible = (found.choice_possible or frozenset()) | run.gained
    if latched(program, run.gained) and found.consistency_exact:
        found.choice_exactness = replace(choice, exact=True, reason="", decided_by="latched")
    else:
        found.choice_exactness = replace(choice, exact=False, reason=f"{choice.reason}; bounded cron -T {T} finds a "
                                         "choice model that differs at its last step")
    return found


def latched(program: Program, gained: frozenset[str]) -> bool:
    """Whether a bounded choice model that gains these facts at its last step T is the prefix of an infinite choice
    run that keeps them: each is of a relation R with tr2009's persist[R] (`R(X1, ..., Xk)@next :- R(X1, ..., Xk).`,
    no other body atom, so it holds at every later step once it holds). Such a model continues past T: its messages
    in flight arrive within the delay bound after T, every later message arrives after its send, and the facts of
    steps 0..T keep their derivations (none reads a later step). So its ultimate output has the gained facts, which
    no causal run's has, and "not tolerant" is exact."""
    persisted = coordination.simply_persisted(program)
    return bool(gained) and all(fact.split("(", 1)[0] in persisted for fact in gained)


def by_confluence(program: Program, instance: Instance, bounds: Bounds, outputs: tuple[str, ...], deadline: Deadline,
                  max_k: int) -> Verdict | None:
    """The eventual verdict of a confluent program (`models.confluent`): every infinite run, causal or choice, has
    the same ultimate output, so any lassos show it (`models.confluent_lasso_steps`: the shortest and those of up to
    D more steps, a self-check that can fail), and "consistent and tolerant" is exact at their K, with no
    completeness threshold to find (under a delay bound of 2 the messages' delays alone make paths of distinct
    configurations exponentially long). None when the program is not confluent, has no such lasso of at most
    `max_k` steps, or its lassos disagree (which the argument rules out; the thresholds then decide, and say what
    the lassos show)."""
    if not models.confluent(program, instance, bounds.network):
        return None
    k = models.confluent_lasso_steps(program, instance, bounds, max_k, deadline.remaining())
    if k is None:
        return None
    verdict = analyse(program, instance, eventual.lasso_bounds(bounds, k), outputs, deadline.remaining())
    if not (verdict.satisfiable and verdict.consistent and verdict.tolerant):
        return None
    verdict.exactness = verdict.choice_exactness = Exactness(k, True, "", "confluence")
    return verdict


def shortest_witness(program: Program, instance: Instance, bounds: Bounds, found: Verdict, outputs: tuple[str, ...],
                     deadline: Deadline) -> Verdict:
    """The verdict with its witnesses as short as they come: two causal lassos that ultimately differ (not
    consistent) or a choice lasso that differs from the consistent output (not tolerant) are infinite runs
    whatever their number of steps (Heljanko and Niemelä, *Bounded LTL model checking with stable models*, TPLP
    2003, §4), so the lassos of k = the fewest steps a lasso can have (`models.first_steps`), k + 1, ... are asked
    until one shows such a witness; the lassos of the verdict's K did, so the search stops there at the latest. A
    lasso of k steps stands for every shorter one, so the first k found is the shortest witness. The outputs, K
    and the exactness stay those of the verdict's K (every run's); a timeout keeps its witnesses."""
    inconsistent = found.satisfiable and found.consistent is False
    intolerant = found.satisfiable and found.consistent and found.tolerant is False
    if not (inconsistent or intolerant) or found.runs:
        return found
    for k in range(max(1, models.first_steps(program, instance)), found.bounds.horizon + 1):
        if deadline.remaining() is not None and deadline.remaining() <= 0:
            break
        try:
            shorter = analyse(program, instance, eventual.lasso_bounds(bounds, k), outputs, deadline.remaining())
        except Timeout:
            break
        if not shorter.satisfiable:
            continue
        if inconsistent and shorter.consistent is False:
            return replace(found, witnesses=shorter.witnesses)
        if intolerant and shorter.consistent and shorter.tolerant is False and shorter.certain == found.certain:
            return replace(found, counterexample=shorter.counterexample, lost=shorter.lost, gained=shorter.gained)
    return found


def per_node(program: Program, instance: Instance, bounds: Bounds, semantics: Semantics, found: Exactness,
             outputs: tuple[str, ...], deadline: Deadline):
    """Whether the lassos of K = `found.K` steps that agree on their ultimate output (united over nodes) decide it
    for every run: a run alternating between loops forever holds, at each node, only the intersection of their
    per-node ultimate sets, so the per-node sets the lassos have (`models.ultimate_outputs`) are closed under
    intersection; when that gives an output beyond theirs, the explorer's graph decides (causal rounds, a small
    graph), else the answer is not exact. Returns the exactness and, when the explorer decided, its answer."""
    if not found.exact:
        return found, None
    side = replace(bounds, semantics=semantics)
    ultimate = models.ultimate_outputs(program, instance, side, outputs, steps=found.K, timeout=deadline.remaining(),
                                       threshold_steps=True)
    if not ultimate.complete:
        return Exactness(found.K, False, ultimate.reason), None
    if not ultimate.exact:
        return Exactness(found.K, False, ultimate.reason), None
    if ultimate.decided_by == "explorer":
        return Exactness(found.K, True, "", "explorer"), ultimate
    return found, None
