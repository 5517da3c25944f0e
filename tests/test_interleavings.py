"""The fair asynchronous interleavings (`runs/interleavings.py`): a finite over-approximation of tplp2016's runs with
free clocks that certifies the eventual answers (docs/semantics.md, "Decision: the rounds").

What could go wrong, and what here would see it:
* it misses a run: the bounded explorer's run prefixes (free clocks, every interleaving) reach configurations it
  lacks, or the runs followed with free clocks (`runs/drift.py`, genuine runs) have an output it does not admit;
* it is too generous to certify anything: the papers' rows (tplp2016 Ex. 3, Fig. 5) stay not exact; each of the
  fairness conditions (every node steps; a content in flight is received; and sent, so that no stale copy is
  received forever) is needed by one of them;
* it certifies a wrong "consistent": race.ded and the lag counterexample have a second output it must admit.
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from dedalus2asp import pipeline
from dedalus2asp.bounds import Bounds, Mode, Network
from dedalus2asp.cli import app
from dedalus2asp.lang.diagnostics import DiagnosticError
from dedalus2asp.runs import drift, eventual, interleavings
from dedalus2asp.runs.configurations import ConfigurationLimit, Graph

from conftest import EXAMPLES
from test_free_clocks import LAG
from test_lasso import random_outputs, random_program
from test_theorem4 import inputs, rules

runner = CliRunner()


def built(program, instance, delay: int) -> tuple[Graph, tuple[str, ...]]:
    graph = eventual.graph_of(program, instance, Bounds(0, network=Network(max_delay=delay), mode=Mode.EVENTUAL),
                              observe=False)
    eventual.build(graph, 10_000)
    return graph, program.output_relations


def over(program, instance, delay: int = 1) -> set[tuple[str, ...]]:
    graph, outputs = built(program, instance, delay)
    found, why = eventual.interleaved(graph, outputs, None)
    assert found is not None, why
    return found.outputs


def loaded(program: str, facts: str):
    return pipeline.load(EXAMPLES / program, EXAMPLES / facts)[:2]


def written(tmp_path, program: str, facts: str):
    (tmp_path / "p.ded").write_text(program)
    (tmp_path / "p.facts").write_text(facts)
    return pipeline.load(tmp_path / "p.ded", tmp_path / "p.facts")[:2]


def test_race_and_lag_admit_the_other_output(tmp_path):
    """No false "consistent": on race.ded (msg(1) reaching b at its step 0) and on the lag counterexample (y lagging
    x by 16 steps) the interleavings admit the output only a run with free clocks has, beside the rounds' one."""
    race = loaded("coordination/race.ded", "coordination/race.facts")
    assert over(*race) == {("fresh(2)",), ("fresh(1)", "fresh(2)")}
    lag = written(tmp_path, LAG, "x { start()@0. peer(y). }\ny { start()@0. listen(). }\n")
    assert over(*lag) == {(), ("seen()",)}
    rounds = eventual.explore(*lag, Bounds(0, network=Network(max_delay=1), mode=Mode.EVENTUAL))
    assert rounds.ultimate_outputs == ((),)  # what a cap on the clocks' offsets would answer


PAPERS = [("tplp2016/ex3_2pc.ded", "tplp2016/ex3_2pc_no.facts", ("outcome(t1, no)",)),
          ("tplp2016/ex3_2pc.ded", "tplp2016/ex3_2pc_yes.facts", ("outcome(t1, yes)",)),
          ("tplp2016/ex3_2pc.ded", "tplp2016/ex3_2pc_small.facts", ("outcome(t1, yes)",)),
          ("tplp2016/fig5_grouping.ded", "tplp2016/fig5.facts", ("T()",))]


def test_the_papers_rows_are_certified():
    """tplp2016 Ex. 3 (every input) and Fig. 5, delay ≤ 1 and ≤ 2: the interleavings admit only the rounds' output,
    so the explorer's list is exact without following any free-clock prefix. Fig. 5 needs every fairness condition:
    without "every node steps" y may stop, without "a content in flight is received" A() may never come twice, and
    either way T() is not ultimate."""
    for program, facts, output in PAPERS:
        for delay in (1, 2):
            bounds = Bounds(0, network=Network(max_delay=delay), mode=Mode.EVENTUAL)
            found = eventual.explore(*loaded(program, facts), bounds, free_clocks=True)
            assert (found.exact, found.ultimate_outputs, found.free_clocks) == (True, (output,), -1), (program, facts)
            assert found.interleavings < 100


def test_no_stale_copy_is_received_forever(tmp_path):
    """x sends m() once; y holds r() at the step it receives it. A content received may stay in flight (another
    copy may come), but only while it is sent again: else y would receive m() at every step and r() would be
    ultimate, which no run has."""
    program = ".output r.\nm()@async(Y) :- start(), peer(Y).\nr() :- m().\n"
    once = written(tmp_path, program, "x { start()@0. peer(y). }\ny { }\n")
    assert over(*once) == {()}
    again = written(tmp_path, program.replace("start()", "go()"), "x { go(). peer(y). }\ny { }\n")  # sent every step
    assert ("r()",) in over(*again)


def test_cron_says_how_it_is_exact():
    """2PC with one agent under delay ≤ 2: consistent over every run (the interleavings certify it), tolerant (the
    choice runs' graphs decide it): exit 0. Fig. 5: consistent exactly, not tolerant exactly (a choice run groups every
    A() into the past, the over graph's certified witness): exit 1."""
    def cron(program: str, facts: str) -> tuple[int, dict]:
        result = runner.invoke(app, ["cron", str(EXAMPLES / program), "-i", str(EXAMPLES / facts), "--max-delay", "2",
                                     "--eventual", "--json"])
        return result.exit_code, json.loads(result.stdout)

    code, found = cron("tplp2016/ex3_2pc.ded", "tplp2016/ex3_2pc_small.facts")
    assert code == 0 and found["exact"] is True and found["consistent"] is True
    assert found["consistency"]["decided_by"] == "interleavings"
    code, found = cron("tplp2016/fig5_grouping.ded", "tplp2016/fig5.facts")
    assert code == 1 and found["consistency"]["exact"] is True and found["tolerance"]["exact"] is True
    assert found["consistency"]["decided_by"] == "interleavings"


def free_clock_transitions(system, horizon: int, delay: int, cap: int, limit: int = 20_000) -> set:
    """Every transition of the bounded runs with free clocks in which no node passes step `horizon`: tplp2016's, as
    the bounded explorer makes them (`drift._successors`, whose ends are `operational`'s: tests/test_free_clocks.py),
    read as the interleavings keep them: (source, target, the node that steps, its D), each configuration a capped
    step, st(x), the contents in flight from other nodes and the messages to itself with their steps left, per
    node."""
    def kept(config):
        return tuple(interleavings.Part(min(c.step, cap), c.state, frozenset(m[3] for m in c.buffer if m[0] != i),
                                        frozenset((m[1] + delay - c.step, m[3]) for m in c.buffer if m[0] == i))
                     for i, c in enumerate(config))

    start = tuple(drift.Clocked(0, facts, frozenset()) for facts in system.inputs)
    seen, layer, found = {start}, [start], set()
    while layer and len(seen) < limit:
        following = []
        for config in layer:
            for (i, delivered), target in drift._successors(system, config, horizon, delay):
                local = config[i]
                deduced = system.step(i, local.state.union(p[3] for p in delivered), local.step).deduced
                found.add((kept(config), kept(target), i, deduced))
                if target not in seen:
                    seen.add(target)
                    following.append(target)
        layer = following
    return found


def covered(made: interleavings.Interleavings, transitions: set) -> None:
    """Every transition given is one of the interleavings'."""
    config, labels = made.configurations, made.labels
    edges = {(config[v], config[w], labels[label].node, labels[label].deduced)
             for v, out in enumerate(made.edges) for w, label in out}
    assert transitions <= edges, sorted(transitions - edges, key=str)[:1]


def test_a_copy_received_leaves_another(tmp_path):
    """x sends c() at its steps 0 and 1 and d() at its step 1; y's step 0, after both, receives c() and d(): the
    second c() is still in flight, and y's step 1 receives it. Each path of runs with free clocks is one of the
    interleavings', this one only because a content received may stay in flight."""
    program = (".output r.\nc()@async(Y) :- tick(), peer(Y).\nd()@async(Y) :- tock(), peer(Y).\n"
               "r()@next :- c(), d().\nr()@next :- r().\n")
    graph, _ = built(*written(tmp_path, program, "x { tick()@0. tick()@1. tock()@1. peer(y). }\ny { }\n"), 2)
    made = interleavings.Interleavings(graph)
    made.build(10_000)
    covered(made, free_clock_transitions(graph.system, 2, 2, graph.cap))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.lists(rules(), min_size=1, max_size=4), inputs(), st.sampled_from([1, 2]))
@example(["q(U)@async(Y) :- p(U), nd(Y)."], "nd(n1). nd(n2).\nn1 { p(a). }\nn2 { }\n", 2)  # a copy received, one left
def test_random_programs_every_run_is_a_path(rule_texts, facts, delay):
    """On random programs: every transition of the bounded runs with free clocks up to horizon 2 is one of the
    interleavings, and every output of the runs followed with free clocks
    (`drift`, the interleavings not asked) is one they admit; where they certify, the list is the rounds' and the
    free-clock runs'."""
    program, instance = random_program(rule_texts, facts)
    outputs = random_outputs(program)
    bounds = Bounds(0, network=Network(max_delay=delay), mode=Mode.EVENTUAL)
    try:
        graph = eventual.graph_of(program, instance, bounds, observe=False)
        eventual.build(graph, 3_000)
    except (DiagnosticError, ValueError, ConfigurationLimit):
        return
    made = interleavings.Interleavings(graph)
    made.build(20_000)
    covered(made, free_clock_transitions(graph.system, 2, delay, graph.cap))
    admitted, _ = eventual.interleaved(graph, outputs, None)
    real = eventual.interleaved
    try:
        eventual.interleaved = lambda *args: (None, "")
        followed = eventual.explore(program, instance, bounds, 3_000, outputs, free_clocks=True)
    finally:
        eventual.interleaved = real
    if admitted is None or not followed.graph_complete:
        return
    assert set(followed.ultimate_outputs) <= admitted.outputs
    certified = eventual.explore(program, instance, bounds, 3_000, outputs, free_clocks=True)
    if certified.free_clocks is not None and certified.exact:
        assert set(certified.ultimate_outputs) == admitted.outputs


def test_a_limit_or_faults_leave_the_answer_not_exact_and_say_why(monkeypatch):
    """Past INTERLEAVING_LIMIT configurations, or with faults (which the interleavings do not model), Fig. 5's answer
    is not certified: not exact, and the reason names the limit or the faults."""
    fig5 = loaded("tplp2016/fig5_grouping.ded", "tplp2016/fig5.facts")
    lossy = eventual.explore(*fig5, Bounds(0, network=Network(max_delay=1, loss_until=1), mode=Mode.EVENTUAL),
                             free_clocks=True)
    assert not lossy.exact and "do not model faults" in lossy.reason
    monkeypatch.setattr(interleavings, "INTERLEAVING_LIMIT", 3)
    small = eventual.explore(*fig5, Bounds(0, network=Network(max_delay=1), mode=Mode.EVENTUAL), free_clocks=True)
    assert not small.exact and "the fair asynchronous interleavings passed 3 configurations" in small.reason
    assert small.ultimate_outputs == (("T()",),) and small.free_clocks >= 0  # the free-clock prefixes still followed
