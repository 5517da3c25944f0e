"""The eventual mode's rounds against tplp2016's free clocks (`runs/drift.py`, `questions/free_clocks.py`;
docs/semantics.md, "Decision: the rounds"): an "exact" eventual answer must never be weaker than the bounded one.

examples/coordination/race.ded: a sends msg(1) to b, which records fresh(X) for each wanted X that has not arrived.
In rounds msg(1) arrives at b's step 1 at the earliest, after fresh(1); with free clocks it may arrive at b's step 0
(bounded `cron -T 5 --max-delay 1` finds that run), and then fresh(1) never holds."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from dedalus2asp import pipeline
from dedalus2asp.bounds import Bounds, Mode, Network
from dedalus2asp.cli import app
from dedalus2asp.lang.facts import parse_facts
from dedalus2asp.runs import drift, eventual, operational
from dedalus2asp.runs.transitions import System

from conftest import EXAMPLES
from test_theorem4 import inputs, rules, well_formed

runner = CliRunner()
RACE = [str(EXAMPLES / "coordination/race.ded"), "--input", str(EXAMPLES / "coordination/race.facts")]


def answer(*args: str) -> tuple[int, dict]:
    result = runner.invoke(app, [*args, "--json"])
    return result.exit_code, json.loads(result.stdout)


def explored(program, facts, network: Network, free_clocks: bool = True):
    prog, instance, _ = pipeline.load(EXAMPLES / program, EXAMPLES / facts)
    return eventual.explore(prog, instance, Bounds(0, network=network, mode=Mode.EVENTUAL), 10_000,
                            free_clocks=free_clocks)


def test_race_is_not_consistent_exactly():
    """The bounded answer at T = 5 is "not consistent"; the eventual one says so too, exactly, with the run whose
    clocks drift: msg(1) sent at a@0 arrives at b@0, then the run goes on in rounds."""
    code, bounded = answer("cron", *RACE, "-T", "5", "--max-delay", "1")
    assert code == 1 and bounded["consistent"] is False
    code, found = answer("cron", *RACE, "--max-delay", "1", "--eventual")
    assert code == 1 and found["consistent"] is False and found["exact"] is True
    rounds, drifting = found["runs"]
    assert (rounds["output"], drifting["output"]) == (["fresh(1)", "fresh(2)"], ["fresh(2)"])
    assert "free_clock_prefix" not in rounds
    b0 = next(row for row in drifting["free_clock_prefix"] if (row["node"], row["step"]) == ("b", 0))
    assert b0["received"] == ["msg(1) from a@0"] and "fresh(1)" not in b0["facts"]
    assert found["certain"] == ["fresh(2)"] and found["possible"] == ["fresh(1)", "fresh(2)"]
    text = runner.invoke(app, ["cron", *RACE, "--max-delay", "1", "--eventual"]).stdout
    assert "clocks drift apart" in text and "b@0: " in text and "received msg(1) from a@0" in text


def test_race_models_and_count_list_the_free_clock_output():
    """`models --eventual` lists {fresh(2)}, which only a run whose clocks drift has, with that run; the fair
    asynchronous interleavings (`runs/interleavings.py`) admit no third output, so the list is complete (exit 0), and
    `count --eventual` says 2, exact."""
    code, listed = answer("models", *RACE, "--max-delay", "1", "--eventual")
    assert code == 0 and listed["exact"] is True and listed["free_clocks"] >= 0
    assert sorted(map(tuple, listed["ultimate_outputs"])) == [("fresh(1)", "fresh(2)"), ("fresh(2)",)]
    assert [run["output"] for run in listed["free_clock_runs"]] == [["fresh(2)"]]
    code, counted = answer("count", *RACE, "--max-delay", "1", "--eventual")
    assert code == 0 and counted["ultimate_outputs"] == 2 and counted["exact"] is True


LAG = """.output seen.
cx(0) :- start(), peer(_).
cx(N + 1)@next :- cx(N), N < 20.
cx(N)@next :- cx(N), N >= 20.
go()@async(Y) :- cx(20), peer(Y).
cy(0) :- start(), listen().
cy(N + 1)@next :- cy(N), N < 5.
cy(N)@next :- cy(N), N >= 5.
seen() :- go(), cy(N), N < 5.
seen()@next :- seen().
"""


def test_a_lag_no_cap_covers(tmp_path):
    """docs/semantics.md's counterexample to a cap on the clocks' offsets: y sees go() early only when it lags x by
    16 steps or more. In rounds no run has seen(); the free clocks, followed to T = K + D (K = 22 here), reach the
    lag: "not consistent", exact, with a run in which y receives go() at one of its steps 0..4."""
    (tmp_path / "lag.ded").write_text(LAG)
    (tmp_path / "lag.facts").write_text("x { start()@0. peer(y). }\ny { start()@0. listen(). }\n")
    paths = [str(tmp_path / "lag.ded"), "-i", str(tmp_path / "lag.facts")]
    code, found = answer("cron", *paths, "--max-delay", "1", "--eventual")
    assert code == 1 and found["consistent"] is False and found["exact"] is True
    assert [r["output"] for r in found["runs"]] == [[], ["seen()"]]
    prefix = found["runs"][1]["free_clock_prefix"]
    early = next(row for row in prefix if row["node"] == "y" and row["received"])  # go(), sent at x or later
    assert early["step"] < 5 and early["received"][0].startswith("go() from x@") and "seen()" in early["facts"]


def test_where_the_rounds_lose_nothing():
    """Sync delivery, one node, or no message between distinct nodes: no free clocks to follow, exact as before."""
    sync = explored("coordination/race.ded", "coordination/race.facts", Network(delivery="sync"))
    assert sync.free_clocks is None and sync.exact and sync.ultimate_outputs == (("fresh(1)", "fresh(2)"),)
    alone = explored("jcss2014/alg3.ded", "jcss2014/alg3.facts", Network(max_delay=1))
    assert alone.free_clocks is None and alone.exact


def test_free_clock_outputs_are_runs_the_rounds_miss():
    """Under delay ≤ 1 the rounds give race.ded one output; the free clocks add one, with a run whose prefix has
    every node take its steps 0..h, and the answer says to which horizon they were followed."""
    rounds = explored("coordination/race.ded", "coordination/race.facts", Network(max_delay=1), free_clocks=False)
    assert rounds.exact and rounds.ultimate_outputs == (("fresh(1)", "fresh(2)"),)
    found = explored("coordination/race.ded", "coordination/race.facts", Network(max_delay=1))
    assert found.rounds_exact and found.consistent is False and found.free_clocks >= 0
    assert found.exact and found.interleavings  # the fair interleavings admit these two outputs, no third
    assert found.in_rounds == rounds.ultimate_outputs
    run = dict(zip(found.ultimate_outputs, found.witnesses))[("fresh(2)",)]
    steps = {}
    for row in run.free_clocks:
        assert row["step"] == steps.get(row["node"], 0)  # each node's steps in order, none skipped
        steps[row["node"]] = row["step"] + 1
    assert len(set(steps.values())) == 1  # every node took steps 0..h
    h = next(iter(steps.values())) - 1
    assert all(node["step"] >= h + 1 for step in run.steps for node in step["nodes"].values())


def test_verify_eventual_under_a_delay_bound_is_checked_against_free_clocks(tmp_path):
    """`verify --eventual`'s lassos are runs in rounds: under a delay bound between nodes its "holds" is not exact,
    and bounded `verify --eot K + D` (free clocks) is asked. race.ded with pre(X) :- want(X), post(X) :- fresh(X)
    holds in every run in rounds; the free-clock run in which msg(1) reaches b at its step 0 breaks it."""
    (tmp_path / "race.ded").write_text((EXAMPLES / "coordination/race.ded").read_text()
                                       + "pre(X) :- want(X).\npost(X) :- fresh(X).\n")
    race = [str(tmp_path / "race.ded"), "-i", str(EXAMPLES / "coordination/race.facts"), "--no-lineage"]
    code, found = answer("verify", *race, "--max-delay", "1", "--eventual")
    assert code == 3 and found["holds"] is False and found["bounded_run"] and found["exact"] is False
    assert "clocks may drift apart" in found["reason"] and "which finds a counterexample" in found["reason"]
    code, synced = answer("verify", *race, "--delivery", "sync", "--eventual")  # in rounds nothing is lost
    assert code == 0 and synced["holds"] and synced["exact"] is True
    # the explorer's invariant verdict (its oracle) holds over the runs in rounds, and says that is not exact
    code, oracle = answer("explore", *race[:3], "--eventual", "--max-delay", "1", "--pre", "pre")
    assert code == 3 and oracle["holds"] is True and oracle["exact"] is False and "drift apart" in oracle["reason"]


def same_ends(program, instance, delay: int, horizon: int) -> None:
    """`drift.prefixes`' ends at every h ≤ horizon are the bounded explorer's end configurations (tplp2016 §5.1's
    run prefixes in which every node takes its steps 0..h), read without their histories: st(x) and bf(x) per node."""
    network = Network(max_delay=delay)
    system = System(program, instance, network)
    found = drift.prefixes(system, horizon, delay, limit=100_000)
    assert found.horizon == horizon and not found.stopped
    for h in range(horizon + 1):
        ends, _ = operational._search(system, Bounds(h, network=network), 1_000_000, None)
        assert {tuple((p.state, p.buffer) for p in end) for end in ends} == \
            {tuple((c.state, c.buffer) for c in end) for end in found.ends[h]}


def test_free_clock_prefixes_are_the_bounded_run_prefixes():
    for program, facts in (("coordination/race.ded", "coordination/race.facts"),
                           ("tplp2016/ex3_2pc.ded", "tplp2016/ex3_2pc_small.facts")):
        prog, instance, _ = pipeline.load(EXAMPLES / program, EXAMPLES / facts)
        same_ends(prog, instance, 1, 2)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.lists(rules(), min_size=1, max_size=3), inputs(), st.sampled_from([1, 2]))
def test_random_free_clock_prefixes_are_the_bounded_run_prefixes(rule_texts, facts, delay):
    program = well_formed("\n".join(rule_texts))
    assume(program is not None)
    same_ends(program, parse_facts(facts, "random.facts"), delay, 2)


def test_explore_eventual_follows_the_free_clocks_unless_confluent():
    code, found = answer("explore", *RACE, "--eventual", "--max-delay", "1")
    assert code == 0 and found["exact"] is True and found["rounds_exact"] is True and found["consistent"] is False
    assert found["free_clocks"] >= 0 and found["interleavings"] > 0
    assert sorted(map(tuple, found["ultimate_outputs"])) == [("fresh(1)", "fresh(2)"), ("fresh(2)",)]
    alg1 = [str(EXAMPLES / "jcss2014/alg1.ded"), "--input", str(EXAMPLES / "jcss2014/alg1.facts")]
    code, confluent = answer("explore", *alg1, "--eventual", "--max-delay", "1")  # every run ends the same
    assert code == 0 and confluent["exact"] is True and "free_clocks" not in confluent
