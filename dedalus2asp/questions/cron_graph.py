"""`cron --eventual` decided by the explorer's configuration graph, where that is the cheaper procedure.

The explorer (`runs.eventual`) builds the finite graph of the causal rounds and reads every infinite run's
ultimate output off its strongly connected parts, exactly: "consistent" is "one ultimate output". On small
systems with delays that is far cheaper than the solver's completeness threshold, whose loop-free paths grow
exponentially with D (jcss2014-style `p()@async(Y) :- id(Y).` on two nodes under delay ≤ 3: 50 configurations,
built in well under a second, where the threshold search ran for minutes). So `by_graph` builds the graph first,
within `models.GRAPH_LIMIT` configurations and `models.GRAPH_SECONDS`, and when it closes:

* **not consistent** (two ultimate outputs): exact; the witnesses are the solver's lassos of as many steps as
  the explorer's witness lassos have (`shortest_witness` then shortens them);
* **consistent**: exact; the certain output is the one ultimate output. **Tolerance** is exact at once when the
  choice runs are the causal runs: with `--delivery sync` (a message arrives at the next round) or when the
  program has no asynchronous rule (no message to send into the past). Otherwise the choice runs' own graphs
  decide it where they close (`by_choice_graph`): the window graph (`runs.choice`: configurations with debts, the
  runs whose messages arrive at most D steps before their send) shows "not tolerant", the over-approximation of
  every choice run (`runs.choice_over`) proves "tolerant"; where they do not, the choice lassos are asked
  (bounded, unless one of them differs, which is an infinite run and so exact), and the caller deepens them and
  asks bounded `cron -T` (`cron_eventual.bounded_tolerance`).

The graph is that of the runs in rounds; under a delay bound with messages between nodes it also follows the runs
whose first steps use free clocks (`free_clocks`): an output only they have makes "not consistent" exact, and
without one "consistent" is not exact.

Where the graph does not close, nothing is decided here (None) and the solver's thresholds answer.
"""

from __future__ import annotations

from dataclasses import replace

from ..bounds import Bounds, Mode, Semantics
from ..lang.ast import Instance, Program
from ..inspect.message import Message
from ..inspect.model import Model
from ..runs import choice, choice_certificate, choice_over
from ..runs import eventual as explorer
from . import free_clocks, models
from .cron import Deadline, Timeout, Verdict, analyse
from .eventual import Exactness, lasso_bounds

def by_graph(program: Program, instance: Instance, bounds: Bounds, outputs: tuple[str, ...],
             deadline: Deadline) -> Verdict | None:
    """The eventual CRON verdict from the explorer's graph (module docstring), or None when the graph does not close
    within the limits, the explorer cannot build it (a global output, crash/2 read), or the solver's lassos
    disagree with it (which the eventual Theorem 4 rules out: then the thresholds answer, and the tests see it)."""
    try:
        answer = explorer.explore(program, instance, replace(bounds, mode=Mode.EVENTUAL), models.GRAPH_LIMIT, outputs,
                                  seconds=_seconds(deadline), free_clocks=True, consistency_only=True)
    except ValueError:
        return None
    if not answer.rounds_exact or not answer.infinite_runs:
        return None
    rounds = answer.in_rounds  # what the runs in rounds hold; those with free clocks come last (`free_clocks`)
    steps = [w.loop_start + w.period for w in answer.witnesses if not w.free_clocks]
    least = models.first_steps(program, instance)
    try:
        if len(rounds) > 1:
            k = max(least, *steps[:2])
            verdict = analyse(program, instance, lasso_bounds(bounds, k), outputs, deadline.remaining())
            if not (verdict.satisfiable and verdict.consistent is False):
                return None
            verdict.exactness = Exactness(k, True, "", "graph")
            return verdict
        k = max(least, steps[0])
        verdict = analyse(program, instance, lasso_bounds(bounds, k), outputs, deadline.remaining())
    except Timeout:
        return None
    if not (verdict.satisfiable and verdict.consistent) or sorted(verdict.certain) != list(rounds[0]):
        return None
    verdict.exactness = Exactness(k, True, "", "graph")
    if models.choice_is_causal(program, bounds) or verdict.tolerant is False:
        verdict.choice_exactness = Exactness(k, True, "", "graph" if verdict.tolerant else "solver")
        return free_clocks.verdict(verdict, answer)
    if len(answer.ultimate_outputs) > 1:  # a run whose clocks drift has another output: not consistent, exact
        return free_clocks.verdict(verdict, answer)
    decided = by_choice_graph(program, instance, bounds, outputs, deadline, verdict, k, rounds[0])
    if decided is not None:
        return free_clocks.verdict(decided, answer)
    verdict.choice_exactness = Exactness(k, False, models.not_exact(
        program, replace(bounds, semantics=Semantics.CHOICE), instance))
    return free_clocks.verdict(verdict, answer)


def by_choice_graph(program: Program, instance: Instance, bounds: Bounds, outputs: tuple[str, ...], deadline: Deadline,
                    verdict: Verdict, k: int, output: tuple[str, ...]) -> Verdict | None:
    """Tolerance of a consistent program (its one ultimate output `output`, the causal verdict `verdict` at K = `k`)
    from the choice runs' graphs, where they close within the limits. Where the choice lassos found no other output,
    the over-approximation (`runs.choice_over`: every choice run and more) first: with `output` alone, tolerant,
    exact. Else the window graph (`runs.choice`: the choice runs whose messages arrive at most D steps before their
    send): with another output, not tolerant, exact, shown by the solver's choice lasso of as many steps as the
    graph's witness (`shortest_witness` then shortens it); with `output` alone, tolerant, not exact, the reason
    saying what the over-approximation adds or why it was not decided. None when neither decides, a graph cannot be
    built, or the solver's lassos disagree with the window graph (which the choice runs' eventual Theorem 4 rules
    out: the tests see it)."""
    over, kept = None, []
    if verdict.tolerant is True:
        try:
            over = choice.explore_choice(program, instance, bounds, models.GRAPH_LIMIT, outputs,
                                         make=choice_over.OverGraph, seconds=_seconds(deadline), keep=kept)
        except ValueError:
            return None
        if over.exact and tuple(over.ultimate_outputs) == (output,):
            verdict.choice_exactness = Exactness(k, True, "", "choice-graph")
            return verdict
    try:
        answer = choice.explore_choice(program, instance, bounds, models.GRAPH_LIMIT, outputs,
                                       seconds=_seconds(deadline))
    except ValueError:
        answer = None
    others = [] if answer is None else [
        w.loop_start + w.period for o, w in zip(answer.ultimate_outputs, answer.witnesses) if o != output]
    if not (answer is not None and answer.exact and others):  # the window graph shows no other output: certify
        found, refused = certified(program, bounds, outputs, verdict, k, output, over, kept)
        if found is not None:
            return found
    if answer is None or not answer.exact or not answer.infinite_runs:
        return None
    if not others:
        if over is None or tuple(answer.ultimate_outputs) != (output,):
            return None
        why = choice_over.beyond(answer, over, bounds)
        if why and refused:
            why = f"{why} ({refused})"
        verdict.choice_exactness = Exactness(k, not why, why, "choice-graph")
        return verdict
    K = max(k, min(others))
    try:
        found = analyse(program, instance, lasso_bounds(bounds, K), outputs, deadline.remaining())
    except Timeout:
        return None
    if not (found.satisfiable and found.consistent and found.tolerant is False):
        return None
    found.exactness = Exactness(K, True, "", "graph")
    found.choice_exactness = Exactness(K, True, "", "choice-graph")
    return found


def _seconds(deadline: Deadline) -> float:
    """The time a graph may take: `models.GRAPH_SECONDS`, or half of what is left when that is less."""
    left = deadline.remaining()
    return models.GRAPH_SECONDS if left is None else min(models.GRAPH_SECONDS, left / 2)


def certified(program: Program, bounds: Bounds, outputs: tuple[str, ...], verdict: Verdict, k: int,
              output: tuple[str, ...], over, kept: list) -> tuple[Verdict | None, str]:
    """"Not tolerant", exact, when the over-approximation (`over`, its graph in `kept`) lists an ultimate output
    other than `output` whose witness `runs.choice_certificate` certifies as a genuine choice run; the verdict then
    shows that run as a choice lasso. Else (None, why no witness was certified: '' when none was tried)."""
    if over is None or not over.exact or not kept:
        return None, ""
    refused = []
    for o, run in choice_certificate.replays(kept[0], over, {output}, outputs):
        if isinstance(run, str):
            refused.append(f"the witness of {{{', '.join(o)}}} is not certified: {run}")
            continue
        model = _model(program, bounds, kept[0], run)
        gained, kept_output = frozenset(o), frozenset(output)
        verdict.tolerant = False
        verdict.counterexample, verdict.lost, verdict.gained = model, kept_output - gained, gained - kept_output
        verdict.choice_certain = (verdict.choice_certain or frozenset()) & gained
        verdict.choice_possible = (verdict.choice_possible or frozenset()) | gained
        verdict.choice_exactness = Exactness(max(k, run.loop_start + run.period), True, "", "choice-over-certified")
        return verdict, ""
    return None, "; ".join(refused)


def _model(program: Program, bounds: Bounds, graph, run) -> Model:
    """A certified run (`choice_certificate.Certified`) as a choice lasso model: its steps 0..T, T the loop's last
    round; a message that arrives after T is shown at its step on the loop's next pass."""
    system, names = graph.system, graph.names
    end = run.loop_start + run.period
    trace = frozenset((names[i], r, *system.fact(f)) for r in range(end) for i, facts in enumerate(run.facts[r])
                      for f in facts)

    def at(a: int) -> int:
        return a if a < end else run.loop_start + (a - run.loop_start) % run.period

    messages = tuple(sorted((Message(names[m.sender], m.sent, names[m.addressee], at(m.arrives), *system.fact(m.fact),
                                     unrolled=m.arrives) for m in run.messages), key=Message.key))
    lasso = replace(bounds, horizon=end - 1, mode=Mode.EVENTUAL, semantics=Semantics.CHOICE)
    return Model(1, trace, messages, tuple(names), lasso, program=program, loop_start=run.loop_start)
