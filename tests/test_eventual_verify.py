"""The explorer's eventual invariant verdict (`runs.eventual_verify`, `explore --eventual --pre/--post`).

Checked against the bounded `verify` (the solver, which shares nothing with the graph but the
program): on Molly's protocols of examples/molly/ under sync at every fault budget of docs/molly.md
the eventual verdict and its fewest faults are the bounded ones at a large EOT; a run cut short
(a retry not yet made) is a bounded counterexample and no eventual one; the fault count follows
`--omission`; a pre row that stops is a vacuous "holds"; and the witness lasso, unrolled, repeats
its violation at every period.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from dedalus2asp import pipeline
from dedalus2asp.bounds import Bounds, Mode, Network
from dedalus2asp.lang.diagnostics import DiagnosticError
from dedalus2asp.lang.facts import parse_facts
from dedalus2asp.questions import verify as bounded
from dedalus2asp.runs import eventual_verify

from conftest import EXAMPLES
from test_eventual_explorer import invoke  # the command line, no traceback
from test_molly_library import BROKEN, FAULTS
from test_theorem4 import inputs, rules, well_formed

MOLLY = EXAMPLES / "molly"
BROADCASTS = ["simple_broadcast", "retry_broadcast", "ack_broadcast", "classic_broadcast"]
COMMITS = ["two_phase_commit", "two_phase_commit_timeout"]

# a sends m(1) and m(2) to b at step 0 only; b's invariant: it got one of them
TWO = ("m(1)@async(Y) :- start(), node(Y).\nm(2)@async(Y) :- start(), node(Y).\ngot(N) :- m(N).\ngot(N)@next :- got(N).\n"
       "pre() :- want().\npost() :- want(), got(_).\n", "a { start()@0. node(b). }\nb { want(). }\n")
# a pre row at step 0 only (an input event), never matched
ONCE = ("pre(X) :- go(X).\ndone(X)@next :- go(X).\npost(X) :- go(X), done(X).\n", "a { go(1)@0. }\n")


def protocol(name: str):
    invariant = "broadcast_assert.ded" if name in BROADCASTS else "commit_assert.ded"
    program, instance, _ = pipeline.load([MOLLY / f"{name}.ded", MOLLY / invariant], None, "auto")
    return program, instance


def written(tmp_path: Path, program: str, facts: str):
    (tmp_path / "p.ded").write_text(program, encoding="utf-8")
    (tmp_path / "p.facts").write_text(facts, encoding="utf-8")
    prog, instance, _ = pipeline.load(tmp_path / "p.ded", tmp_path / "p.facts", "auto")
    return prog, instance


def eventual(program, instance, **network) -> eventual_verify.EventualVerdict:
    return eventual_verify.verify(program, instance, Bounds(0, network=Network(**network), mode=Mode.EVENTUAL))


@pytest.mark.parametrize("name", BROADCASTS + COMMITS)
@pytest.mark.parametrize("faults", list(FAULTS))
def test_molly_protocols_agree_with_bounded_verify_at_a_large_eot(name, faults):
    """The textbook results (test_molly_library's BROKEN, docs/molly.md's table), over infinite runs, and the bounded
    verify at EOT 8 with the same fewest faults."""
    program, instance = protocol(name)
    budget = FAULTS[faults]
    verdict = eventual(program, instance, delivery="sync", **budget)
    assert verdict.exact and not verdict.vacuous and verdict.threshold <= 8
    assert verdict.holds is (faults not in BROKEN[name])
    at_eot = bounded.verify(program, instance, Bounds(8, network=Network("sync", **budget)))
    assert verdict.holds == at_eot.holds
    if not verdict.holds:
        assert verdict.faults == at_eot.counterexample.faults and verdict.missing


def test_a_run_cut_short_is_no_eventual_counterexample():
    """retry_broadcast with Molly's --eff 3: at EOT 3 a lost copy has not been resent yet, a bounded counterexample;
    every infinite run resends it, so the eventual verdict holds (issue #29's example)."""
    program, instance = protocol("retry_broadcast")
    assert bounded.verify(program, instance, Bounds(2, network=Network("sync", loss_until=2))).holds is False
    assert eventual(program, instance, delivery="sync", loss_until=2).holds is True


@pytest.mark.parametrize("omission,faults", [("message", 2), ("channel", 1)])
def test_fewest_faults_follow_the_omission_model(tmp_path, omission, faults):
    """Both messages a sends b must be lost: two omissions one by one, one cut channel under Molly's model — as the
    bounded verify counts them."""
    program, instance = written(tmp_path, *TWO)
    verdict = eventual(program, instance, delivery="sync", loss_until=1, omission=omission)
    assert verdict.holds is False and verdict.faults == faults and verdict.missing == ("pre(b)",)
    assert bounded.verify(program, instance, Bounds(3, network=Network("sync", loss_until=1, omission=omission))
                          ).counterexample.faults == faults
    assert sorted(verdict.lost) == ["m(1) from a at step 0 to b", "m(2) from a at step 0 to b"]


def test_a_pre_row_that_stops_holds_vacuously(tmp_path):
    """pre holds at step 0 only: bounded verify at horizon 0 finds it unmatched; no infinite run has a pre row in
    its loop, so the eventual verdict holds, vacuously."""
    program, instance = written(tmp_path, *ONCE)
    assert bounded.verify(program, instance, Bounds(0, network=Network("sync"))).holds is False
    verdict = eventual(program, instance, delivery="sync")
    assert verdict.holds is True and verdict.vacuous


def test_the_witness_lasso_repeats_its_violation():
    """2PC with a crash: the coordinator's crash leaves the agents undecided forever. The witness's crash is in the
    prefix, the unmatched round in the loop, and the loop's rounds are all alike (a self-loop: period 1)."""
    program, instance = protocol("two_phase_commit")
    verdict = eventual(program, instance, delivery="sync", crashes=1)
    lasso = verdict.witness
    assert verdict.holds is False and verdict.faults == 1 and len(verdict.crashes) == 1
    assert lasso.loop_start <= verdict.violated_at < lasso.loop_start + lasso.period
    assert all(step < lasso.loop_start for _, step in verdict.crashes)
    assert all(not step["crashes"] for step in lasso.steps[lasso.loop_start:])
    assert set(verdict.missing) == {"pre(termination, a, t1)", "pre(termination, b, t1)"}


def test_under_a_delay_bound():
    """Rounds under --max-delay 2: the one-shot broadcast with an omission is violated with one fault; the retrying
    one holds (its copies keep coming within the bound)."""
    program, instance = protocol("simple_broadcast")
    verdict = eventual(program, instance, max_delay=2, loss_until=1)
    assert verdict.holds is False and verdict.faults == 1
    program, instance = protocol("retry_broadcast")
    assert eventual(program, instance, max_delay=2, loss_until=2).holds is True


def test_refusals(tmp_path):
    program, instance = protocol("retry_broadcast")
    with pytest.raises(eventual_verify.InvariantRelations, match="no relation 'nope'"):
        eventual_verify.verify(program, instance, Bounds(0, network=Network("sync"), mode=Mode.EVENTUAL), "nope")
    with pytest.raises(ValueError, match="eventual mode"):
        eventual_verify.verify(program, instance, Bounds(3, network=Network("sync")))


RETRY_CLI = (MOLLY / "retry_broadcast.ded", MOLLY / "broadcast_assert.ded", "--eventual", "--delivery", "sync")


def test_cli_violated_json_exits_1():
    result = invoke("explore", *RETRY_CLI, "--loss-until", "1", "--crashes", "1", "--pre", "pre", "--json")
    assert result.exit_code == 1, result.stderr
    data = json.loads(result.stdout)
    assert data["holds"] is False and data["exact"] is True and data["faults"] == 2 and data["mode"] == "eventual"
    assert data["witness"]["loop_start"] <= data["violated_at"] and data["threshold"] >= 1 and data["configurations"] > 0
    assert data["crashes"] == 1 and [c["node"] for c in data["crashed"]] == ["a"] and len(data["lost"]) >= 1


def test_cli_holds_text():
    result = invoke("explore", *RETRY_CLI, "--loss-until", "2", "--post", "post")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("holds: in every infinite run") and "completeness threshold K" in result.stdout


@pytest.mark.parametrize("args,message", [
    (["--pre", "nope"], "no relation 'nope'"),
    (["--pre", "pre", "--output-relations", "log"], "give one or the other"),
])
def test_cli_refusals(args, message):
    result = invoke("explore", *RETRY_CLI, *args)
    assert result.exit_code == 2 and message in result.stderr and result.stdout == ""


def test_cli_pre_needs_eventual():
    result = invoke("explore", MOLLY / "retry_broadcast.ded", MOLLY / "broadcast_assert.ded", "--horizon", "2",
                    "--delivery", "sync", "--pre", "pre")
    assert result.exit_code == 2 and "go with --eventual" in result.stderr


# ---------------------------------------------------------------------------
# Random programs (tests/test_theorem4.py's generator), pre = p and post = q, under sync with faults


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.lists(rules(), min_size=1, max_size=3), inputs(),
       st.sampled_from([{}, {"loss_until": 1}, {"crashes": 1}, {"crashes": 1, "crash_model": "fail-stop"}]))
def test_random_programs_a_violation_repeats_in_bounded_verify(rule_texts, facts, budget):
    """Under sync the rounds are exactly the bounded runs, so a violated eventual verdict's witness, cut at its
    unmatched step or one period later, is a bounded counterexample there: bounded verify finds one with at most
    as many faults (it may find a cheaper one that does not repeat). A verdict that holds has no pre row left
    unmatched at any loop step of its own witness-free graph: nothing to check against a horizon."""
    program = well_formed("\n".join(rule_texts))
    assume(program is not None and {"p", "q"} <= set(program.schema()) and {"p", "q"} & set(program.idb()))
    instance = parse_facts(facts, "random.facts")
    network = Network("sync", **budget)
    try:
        verdict = eventual_verify.verify(program, instance, Bounds(0, network=network, mode=Mode.EVENTUAL), "p", "q", 3_000)
    except DiagnosticError:  # an input arity the program reads otherwise
        assume(False)
    assume(verdict.exact)
    event(f"holds: {verdict.holds}")
    if verdict.holds:
        return
    for horizon in (verdict.violated_at, verdict.violated_at + verdict.witness.period):
        found = bounded.verify(program, instance, Bounds(horizon, network=network), "p", "q")
        assert found.holds is False and found.counterexample.faults <= verdict.faults
