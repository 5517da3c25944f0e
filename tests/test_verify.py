"""`verify` (docs/faults.md): Molly's invariant question under omissions, crashes and sync delivery.

The textbook facts (Alvaro, Rosen, Hellerstein, *Lineage-driven fault injection*, SIGMOD 2015, §5)
on broadcasts written here in Molly's dialect: a one-shot broadcast breaks with one omission; one
that retransmits forever survives omissions, not an omission followed by the sender's crash; the
classic reliable broadcast (relay what you receive) survives crashes, not omissions that last.
The counterexample has the fewest faults, and the verdict agrees with the explorer (the
operational semantics, an independent oracle) run by run.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from dedalus2asp import pipeline
from dedalus2asp.bounds import Bounds, Network
from dedalus2asp.lang.ast import GLOBAL_NODE
from dedalus2asp.runs import operational
from dedalus2asp.questions.verify import InvariantError, verify

MEMBERS = """
member(a, b)@1; member(a, c)@1; member(b, a)@1; member(b, c)@1; member(c, a)@1; member(c, b)@1;
broadcast(a, "hello")@1;
member(N, M)@next :- member(N, M);
log(N, P) :- broadcast(N, P);
log(N, P) :- deliver(N, P);
log(N, P)@next :- log(N, P);
"""

PROTOCOLS = {
    "one-shot": "deliver(M, P)@async :- broadcast(N, P), member(N, M);\n",
    "retry": "deliver(M, P)@async :- sending(N, P), member(N, M);\n"
             "sending(N, P) :- broadcast(N, P);\nsending(N, P)@next :- sending(N, P);\n",
    "classic": "deliver(M, P)@async :- broadcast(N, P), member(N, M);\n"
               "deliver(M, P)@async :- deliver(N, P), member(N, M);\n",
}

INVARIANT = """
// every member of the broadcaster has logged the message at the last step
pre(M, P) :- broadcast(N, P)@1, member(N, M);
post(M, P) :- broadcast(N, P)@1, member(N, M), log(M, P);
"""

# classic reliable broadcast's invariant: a member that is up has the message if anyone up has it
AGREEMENT = """
pre(M, P) :- log(N, P), member(N, M), notin crash(N, N, _), notin crash(M, M, _);
post(M, P) :- log(M, P);
"""


def load(tmp_path, protocol: str, invariant: str = INVARIANT):
    (tmp_path / "protocol.ded").write_text(MEMBERS + PROTOCOLS[protocol])
    (tmp_path / "invariant.ded").write_text(invariant)
    program, instance, _ = pipeline.load([tmp_path / "protocol.ded", tmp_path / "invariant.ded"], None, "molly")
    return program, instance


def sync(horizon: int = 4, **faults) -> Bounds:
    return Bounds(horizon, network=Network("sync", **faults))


def test_one_shot_broadcast_breaks_with_one_omission(tmp_path):
    program, instance = load(tmp_path, "one-shot")
    assert verify(program, instance, sync()).holds
    verdict = verify(program, instance, sync(loss_until=1))
    assert verdict.holds is False and verdict.complete
    found = verdict.counterexample
    assert found.faults == 1 and found.fewest and not found.crashes
    [lost] = found.lost
    assert (str(lost.sender), lost.sent, lost.relation) == ("a", 0, "deliver")
    assert [(str(m.node) if m.node else None, [str(a) for a in m.args]) for m in found.missing] == [
        (None, [str(lost.addressee), '"hello"'])
    ]
    assert "no counterexample" not in verdict.describe() and "losses before step 1" in verdict.describe()


def test_retry_survives_omissions_not_a_crash_of_the_sender(tmp_path):
    program, instance = load(tmp_path, "retry")
    holds = verify(program, instance, sync(loss_until=3))
    assert holds.holds and "no counterexample with no crash, losses before step 3, horizon 4" in holds.describe()
    broken = verify(program, instance, sync(crashes=1)).counterexample
    assert broken.faults == 1 and [(str(c.node), c.step) for c in broken.crashes] == [("a", 0)]
    assert broken.lost and all(lost.by_crash for lost in broken.lost)
    # a crash after step 0 comes too late unless an omission kept the message from b first
    late = verify(program, instance, sync(crashes=1, loss_until=1), pre="pre", post="post")
    assert late.counterexample.faults == 1


def test_classic_broadcast_survives_crashes_not_lasting_omissions(tmp_path):
    program, instance = load(tmp_path, "classic", AGREEMENT)
    assert verify(program, instance, sync(crashes=2)).holds
    broken = verify(program, instance, sync(loss_until=4))
    assert broken.holds is False and broken.counterexample.faults == 2  # a to c, then b's relay to c


@pytest.mark.parametrize("protocol", ["one-shot", "retry"])
@pytest.mark.parametrize("network", [Network("sync", loss_until=1), Network(max_delay=1, loss_until=2), Network("sync", crashes=1, loss_until=1)],
                         ids=["sync-loss1", "D1-loss2", "sync-crash1-loss1"])
def test_verdict_agrees_with_the_runs(tmp_path, protocol, network):
    program, instance = load(tmp_path, protocol)
    bounds = Bounds(3, network=network)
    traces = operational.explore(program, instance, bounds, mode="traces").traces

    def broken(trace) -> bool:
        last = {(r, a) for x, s, r, a in trace if x == GLOBAL_NODE and s == 3}
        return any(r == "pre" and ("post", a) not in last for r, a in last)

    assert verify(program, instance, bounds).holds is not any(map(broken, traces))


def test_rows_as_molly_reads_them(tmp_path):
    """A located relation's location column is the first of its rows: pre(b, "hello"), global, is
    matched by log("hello") held by node b."""
    program, instance = load(tmp_path, "one-shot", INVARIANT + "wide(M, P, P) :- log(M, P);\n")
    assert verify(program, instance, sync(), post="log").holds
    assert verify(program, instance, sync(loss_until=1), post="log").counterexample.faults == 1
    with pytest.raises(InvariantError, match="no relation 'safe'"):
        verify(program, instance, sync(), post="safe")
    with pytest.raises(InvariantError, match="2 columns and one of .wide. 3"):
        verify(program, instance, sync(), post="wide")


def _cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "dedalus2asp", "verify", *args], capture_output=True, text=True, cwd=cwd)


def test_cli_exit_statuses_and_json(tmp_path):
    load(tmp_path, "one-shot")
    files = ["protocol.ded", "invariant.ded", "--eot", "5", "--delivery", "sync"]
    holds = _cli(*files, cwd=tmp_path)
    assert holds.returncode == 0 and holds.stdout.startswith("holds:"), holds.stderr
    broken = _cli(*files, "--eff", "2", "--json", cwd=tmp_path)
    assert broken.returncode == 1, broken.stderr
    document = json.loads(broken.stdout)
    assert document["holds"] is False and document["complete"] is True
    assert document["bound"]["loss_until"] == 1 and document["bound"]["horizon"] == 4
    assert document["counterexample"]["faults"] == 1 and len(document["counterexample"]["missing"]) == 1
    # at step 0 the message has not arrived yet: without any fault, the smallest horizon with a counterexample
    searched = json.loads(_cli(*files, "--json", "--search-horizon", cwd=tmp_path).stdout)
    assert searched["bound"]["searched"] == [0] and searched["counterexample"]["faults"] == 0
    bad = _cli(*files, "--post", "safe", cwd=tmp_path)
    assert bad.returncode == 2 and "no relation 'safe'" in bad.stderr and "Traceback" not in bad.stderr


def test_all_lists_the_minimal_fault_sets(tmp_path):
    program, instance = load(tmp_path, "one-shot")
    verdict = verify(program, instance, sync(loss_until=1, crashes=1), all_=True)
    shown = {str(f) for f in verdict.fault_sets}
    assert shown == {
        'lost deliver("hello") from a at step 0 to b', 'lost deliver("hello") from a at step 0 to c', "crash of a at step 0",
    }
    assert verdict.complete and len(verdict.as_dict()["minimal_fault_sets"]) == 3
    # the retrying broadcast needs its sender to crash, after omissions to one member if it crashes later
    program, instance = load(tmp_path, "retry")
    sets = verify(program, instance, sync(loss_until=2, crashes=1), all_=True).fault_sets
    assert [len(f.omissions) + len(f.crashes) for f in sets] == [1, 2, 2, 3, 3]
    assert all(f.crashes for f in sets)
    assert verify(program, instance, sync(loss_until=2), all_=True).fault_sets == ()


def test_out_writes_runs_json_svgs_and_a_page_that_opens_in_chromium(tmp_path):
    import jsonschema

    from conftest import ROOT
    from test_browser import chromium, headless

    load(tmp_path, "one-shot")
    out = tmp_path / "out"
    done = _cli("protocol.ded", "invariant.ded", "--eot", "5", "--delivery", "sync", "--eff", "2", "--all",
                "--out", str(out), cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    document = json.loads((out / "runs.json").read_text())
    jsonschema.validate(document, json.loads((ROOT / "docs" / "runs-schema.json").read_text()))
    assert [r["status"] for r in document["runs"]] == ["success", "failure", "failure"]
    assert [len(r["failureSpec"]["omissions"]) for r in document["runs"]] == [0, 1, 1]
    assert document["runs"][1]["failureSpec"]["omissions"][0]["time"] == 1  # Molly's time of our step 0
    assert sorted(p.name for p in out.glob("run-*.svg")) == ["run-0.svg", "run-1.svg", "run-2.svg"]
    dom = headless(chromium(), "--dump-dom", (out / "index.html").as_uri())
    assert dom.returncode == 0, dom.stderr
    assert dom.stdout.count('<section class="run failure"') == 2 and dom.stdout.count("<img") == 3
    assert "counterexample at horizon 4" in dom.stdout


# docs/molly.md's async table: the library's protocols at horizon 5 with the fault budgets of the sync
# table, under tplp2016's delivery with delay ≤ 1. It differs from the sync table in one cell: 2PC with a
# timeout breaks under omissions (c decides at step 1, inside the loss window, and one decision is lost).
ASYNC_FAULTS = {"none": {}, "omissions": dict(loss_until=2), "crash": dict(crashes=1), "both": dict(loss_until=1, crashes=1)}
ASYNC_BROKEN = {
    "simple_broadcast": {"omissions", "both"},
    "retry_broadcast": {"both"},
    "ack_broadcast": {"both"},
    "classic_broadcast": {"omissions", "both"},
    "two_phase_commit": {"omissions", "crash", "both"},
    "two_phase_commit_timeout": {"omissions", "crash", "both"},
}


@pytest.mark.parametrize("name", ASYNC_BROKEN)
def test_what_async_changes_in_the_library(name):
    from conftest import ROOT

    molly = ROOT / "examples" / "molly"
    invariant = "commit_assert.ded" if name.startswith("two_phase") else "broadcast_assert.ded"
    program, instance, _ = pipeline.load([molly / f"{name}.ded", molly / invariant], None, "molly")
    for faults, budget in ASYNC_FAULTS.items():
        verdict = verify(program, instance, Bounds(5, network=Network("async", max_delay=1, **budget)))
        assert verdict.complete and (verdict.holds is False) is (faults in ASYNC_BROKEN[name]), (faults, verdict.describe())
        assert "delay ≤ 1" in verdict.bound_words()
        # without a delay bound a message may be pending at the horizon: broken with no fault at all
        unbounded = verify(program, instance, Bounds(5, network=Network("async", **budget)))
        assert unbounded.holds is False and unbounded.counterexample.faults == 0
    if name == "two_phase_commit_timeout":
        lost = verify(program, instance, Bounds(5, network=Network("async", max_delay=1, loss_until=2))).counterexample.lost
        assert [(str(m.sender), m.relation) for m in lost] == [("c", "decision")]



def test_json_bound_names_the_nodes_given(tmp_path):
    """--nodes (Molly's -N) is one of the bounds: the JSON's `bound` and runs.json (docs/runs-schema.json) name them."""
    import jsonschema

    from conftest import ROOT

    load(tmp_path, "one-shot")
    args = ["protocol.ded", "invariant.ded", "--eot", "3", "--delivery", "sync", "--eff", "2", "--nodes", "d,e"]
    document = json.loads(_cli(*args, "--json", "--out", str(tmp_path / "out"), cwd=tmp_path).stdout)
    assert document["bound"]["nodes"] == ["d", "e"]
    runs = json.loads((tmp_path / "out" / "runs.json").read_text())
    jsonschema.validate(runs, json.loads((ROOT / "docs" / "runs-schema.json").read_text()))
    assert runs["bound"]["nodes"] == ["d", "e"] and all("d" in r["failureSpec"]["nodes"] for r in runs["runs"])
    assert "nodes" not in json.loads(_cli(*args[:-2], "--json", cwd=tmp_path).stdout)["bound"]
