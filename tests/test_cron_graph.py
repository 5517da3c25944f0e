"""`cron`, `models` and `count --eventual` decided by the explorer's configuration graph where it closes
(`questions/cron_graph.py`, `models.graph_first`; docs/cron.md): the issue's finding B, a program with no
asynchronous rule, and the graph's verdicts beside the solver's thresholds on the papers' examples."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from dedalus2asp import pipeline
from dedalus2asp.bounds import Bounds, Network
from dedalus2asp.cli import app
from dedalus2asp.questions import cron_eventual, models

from conftest import EXAMPLES
from test_choice_certificate import SELF_FOUNDED

runner = CliRunner()


@pytest.fixture
def write(tmp_path):
    def files(program: str, facts: str):
        (tmp_path / "p.ded").write_text(program)
        (tmp_path / "p.facts").write_text(facts)
        return str(tmp_path / "p.ded"), "-i", str(tmp_path / "p.facts")
    return files


def answer(*args: str) -> tuple[int, dict]:
    result = runner.invoke(app, [*args, "--json"])
    return result.exit_code, json.loads(result.stdout)


def test_finding_b_two_nodes_under_delay_3(write):
    """`p()@async(Y) :- id(Y).` on two nodes under delay ≤ 3: a graph of 50 configurations decides what the threshold
    search took minutes for. A message may take 1 to 3 rounds, so p() may hold at every step or blink."""
    paths = write(".output p.\np()@async(Y) :- id(Y).\n", "a { id(a). id(b). }\nb { id(a). id(b). }\n")
    code, found = answer("cron", *paths, "--max-delay", "3", "--eventual")
    assert code == 1 and found["consistent"] is False and found["exact"] is True
    assert sorted(tuple(w["output"]) for w in found["witnesses"]) == [(), ("p()",)]
    code, listed = answer("models", *paths, "--max-delay", "3", "--eventual")
    # the runs in rounds have both outputs, and the fair asynchronous interleavings (every run) no third: exact
    assert code == 0 and listed["exact"] is True and listed["free_clocks"] == -1 and listed["free_clock_runs"] == []
    assert sorted(map(tuple, listed["ultimate_outputs"])) == [(), ("p()",)]


def test_no_asynchronous_rule_is_tolerant_when_consistent(write):
    """The issue's `on()@next :- not on(), id(_).`: no message, so its choice runs are its causal runs."""
    paths = write(".output on.\non()@next :- not on(), id(_).\n", "a { id(a). }\n")
    code, found = answer("cron", *paths, "--max-delay", "2", "--eventual")
    assert code == 0 and found["consistent"] and found["tolerant"] and found["exact"] is True
    assert found["tolerance"]["exact"] is True


CASES = [("jcss2014/alg3.ded", "jcss2014/alg3.facts", 1), ("jcss2014/alg4.ded", "jcss2014/alg4.facts", 1),
         ("jcss2014/alg4.ded", "jcss2014/alg4.facts", 2), ("tplp2016/fig4_noncausal.ded", "tplp2016/fig4.facts", 1),
         ("tplp2016/ex2_ordering.ded", "tplp2016/ex2_ordering.facts", 1)]


@pytest.mark.parametrize("program, facts, d", CASES, ids=[f"{p.split('/')[1][:-4]}-D{d}" for p, _, d in CASES])
def test_the_graph_and_the_thresholds_agree(program, facts, d, monkeypatch):
    """Consistency from the graph is consistency from the solver's completeness threshold (the graph off)."""
    prog, instance, _ = pipeline.load(EXAMPLES / program, EXAMPLES / facts)
    bounds = Bounds(0, network=Network(max_delay=d))
    graph = cron_eventual.analyse_eventual(prog, instance, bounds, timeout=60)
    assert graph.exactness.decided_by == "graph" or graph.consistent is False
    monkeypatch.setattr(models, "GRAPH_LIMIT", 0)
    solver = cron_eventual.analyse_eventual(prog, instance, bounds, timeout=60)
    assert (graph.consistent, graph.certain) == (solver.consistent, solver.certain)
    assert graph.consistency_exact and solver.consistency_exact


@pytest.mark.parametrize("program, facts, d", [("tplp2016/ex3_2pc.ded", "tplp2016/ex3_2pc_small.facts", 2),
                                               ("jcss2014/alg3.ded", "jcss2014/alg3_empty.facts", 2)])
def test_tolerance_decided_by_the_choice_graph(program, facts, d, write):
    """A consistent program that is not confluent and has asynchronous rules: tolerance exact from the choice runs'
    graphs (runs/choice.py, runs/choice_over.py: the over-approximation has only the causal output), which the choice
    lassos alone cannot give (no threshold under a delay bound)."""
    code, found = answer("cron", str(EXAMPLES / program), "-i", str(EXAMPLES / facts), "--max-delay", str(d),
                         "--eventual")
    assert found["consistent"] and found["tolerant"]
    assert code == 0 and found["exact"] is True
    assert found["tolerance"]["exact"] is True and found["tolerance"]["decided_by"] == "choice-graph"
    # where the nodes message each other, the runs whose clocks drift apart are certified by the fair interleavings
    assert found["consistency"]["decided_by"] == ("graph" if program.startswith("jcss2014") else "interleavings")


def test_tolerance_left_open_by_the_over_graph(write):
    """Every choice run whose messages arrive at most D steps before their send lacks quiet() (the window graph), but
    the over-approximation has {quiet()}: one debt stands for y's two receptions of p(), which x's one message pays.
    Its witness is refused (test_choice_certificate.SELF_FOUNDED: the second reception could be founded only by a
    message that depends on it), so tolerance is not exact and the reason says why; bounded cron finds no choice model
    that differs. (tplp2016 Fig. 5, which this test used to show, is certified: test_choice_certificate.py.)"""
    code, found = answer("cron", *write(SELF_FOUNDED, "x { start(). peer(y). }\ny { me(y). }\n"), "--max-delay", "1",
                         "--eventual")
    assert code == 3 and found["consistent"] and found["tolerant"] and found["exact"] is False
    reason = found["tolerance"]["reason"]
    assert found["tolerance"]["exact"] is False and "also has the ultimate output {quiet()}" in reason
    assert "the witness of {quiet()} is not certified: its reception of p() at y in round" in reason
    assert "no choice model of bounded cron -T 1.." in reason
