"""The lineage of a counterexample's missing post fact (issue #19 item 2, dedalus2asp/questions/lineage.py).

Molly (Alvaro, Rosen, Hellerstein, *Lineage-driven fault injection*, SIGMOD 2015, §3–4) explains a
violation by the provenance of the post fact in a run where it holds: the fault must cut it. Here:
the one-shot broadcast under an omission (the lineage names the lost message), two-phase commit
under a crash of its coordinator (the lineage names the crashed node), async delivery (the run
chosen keeps the counterexample's schedule where it can), a post fact no run holds, the text, the
JSON and runs.json against docs/runs-schema.json.
"""

from __future__ import annotations

import json
import re
from types import SimpleNamespace
from xml.etree import ElementTree

import clingo

import jsonschema
import pytest

from conftest import ROOT
from dedalus2asp import pipeline
from dedalus2asp.bounds import Bounds, Network
from dedalus2asp.formats.lineage import html
from dedalus2asp.formats.molly import index_html, runs_document
from dedalus2asp.inspect.explain import ARRIVED
from dedalus2asp.questions.lineage import COUNTEREXAMPLE, CRASH_FATE, EXPECTED, LOST_FATE, NOT_SENT, Expected, attach
from dedalus2asp.questions.verdict import Crash, Lost, Missing
from dedalus2asp.lang.ast import GLOBAL_NODE
from dedalus2asp.questions.verify import fault_free_run, verify
from test_verify import load

MOLLY = ROOT / "examples" / "molly"


def cut(entry):
    """The arrivals of the expected run whose message the counterexample lost, as (sender, sent, addressee, relation, fate)."""
    return sorted(
        (str(d.reason.message.sender), d.reason.message.sent, str(d.reason.message.addressee), d.fact[0],
         entry.marks[(EXPECTED, d.key)].message)
        for side, d in entry.derivations()
        if side == EXPECTED and d.reason.how == ARRIVED and entry.marks[(side, d.key)].message in (LOST_FATE, CRASH_FATE)
    )


def test_one_shot_broadcast_lineage_names_the_lost_message(tmp_path):
    program, instance = load(tmp_path, "one-shot")
    verdict = attach(verify(program, instance, Bounds(4, network=Network("sync", loss_until=1))), program, instance)
    c = verdict.counterexample
    [lost] = c.lost
    [entry] = c.lineage
    assert (entry.node, entry.step, entry.fact[0]) == (GLOBAL_NODE, 4, "post")
    assert [str(a) for a in entry.fact[1]] == [str(lost.addressee), '"hello"']
    assert entry.run is not None and entry.faults == 0  # sync: the fault-free run holds it
    assert not entry.marks[(EXPECTED, entry.derivation.key)].holds
    assert cut(entry) == [("a", 0, str(lost.addressee), "deliver", LOST_FATE)]
    text = verdict.describe()
    assert f'why post({lost.addressee}, "hello") at global:4 was expected: it holds in a run without faults' in text
    assert f'deliver("hello") at {lost.addressee}:1: message from a, sent at step 0 by rule' in text
    assert "LOST in the counterexample; missing there" in text
    assert 'broadcast("hello") at a:0: input fact — holds in the counterexample too' in text
    assert "rule 12: deliver(P)@async(M) :- broadcast(P), member(M)." in text


def test_two_phase_commit_lineage_names_the_crashed_coordinator():
    program, instance, _ = pipeline.load([MOLLY / "two_phase_commit.ded", MOLLY / "commit_assert.ded"], None, "molly")
    verdict = attach(verify(program, instance, Bounds(4, network=Network("sync", crashes=1))), program, instance)
    c = verdict.counterexample
    [crash] = c.crashes
    assert str(crash.node) == "c"
    agents = sorted(str(e.fact[1][1]) for e in c.lineage)
    assert agents == ["a", "b"] and all(e.faults == 0 for e in c.lineage)
    for entry in c.lineage:
        agent = str(entry.fact[1][1])
        assert cut(entry) == [("c", crash.step, agent, "decision", CRASH_FATE)]
        crashed = [entry.marks[k].crash for k in entry.marks if entry.marks[k].crash is not None]
        assert crashed and {str(c.node) for c in crashed} == {"c"}
    text = verdict.describe()
    assert f"LOST in the counterexample: its sender c had CRASHED at step {crash.step}" in text
    assert f"holds in the counterexample, where c had CRASHED at step {crash.step}" in text
    assert text.count("rule 17: decision(X, D)@async(A) :- decide(X, D), agent(A).") == 1  # the rules once, after the trees


def test_two_phase_commit_lost_prepare_through_the_why_not():
    """A lost prepare to b: the coordinator does not decide because missing_vote holds in the
    counterexample (a negated atom of the rule that decides), which holds because b's vote never came:
    the lineage follows the negation into the counterexample and back, down to the lost prepare."""
    program, instance, _ = pipeline.load([MOLLY / "two_phase_commit.ded", MOLLY / "commit_assert.ded"], None, "molly")
    verdict = attach(verify(program, instance, Bounds(4, network=Network("sync", loss_until=1))), program, instance)
    c = verdict.counterexample
    [lost] = c.lost
    assert (str(lost.sender), lost.relation) == ("c", "prepare")
    agent = str(lost.addressee)
    for entry in c.lineage:
        assert entry.faults == 0 and cut(entry) == [("c", 0, agent, "prepare", LOST_FATE)]
        assert "missing_vote" in {d.fact[0] for side, d in entry.derivations() if side == COUNTEREXAMPLE}
        notes = {entry.marks[(side, d.key)].message for side, d in entry.derivations() if side == EXPECTED}
        assert NOT_SENT in notes  # the decision and the vote were never sent in the counterexample
    text = verdict.describe()
    assert "missing_vote(t1) absent at c:" in text and "but HOLDS in the counterexample, so the rule does not fire there" in text
    assert f"votes({agent}, t1, yes) absent at c:" in text and "but HOLDS in the expected run" in text
    assert f"prepare(c, t1) at {agent}:1: message from c, sent at step 0 by rule 10 — LOST in the counterexample" in text


def test_async_lineage_keeps_the_counterexample_schedule(tmp_path):
    """Under async delivery many fault-free runs hold the post fact; the one chosen changes no message
    of the counterexample but the lost one."""
    program, instance = load(tmp_path, "one-shot")
    verdict = attach(verify(program, instance, Bounds(4, network=Network(max_delay=2, loss_until=1))), program, instance)
    c = verdict.counterexample
    [lost] = c.lost
    [entry] = c.lineage
    assert entry.faults == 0 and cut(entry) == [("a", 0, str(lost.addressee), "deliver", LOST_FATE)]
    key = lambda m: (m.sender, m.sent, m.addressee, m.relation, m.args)  # noqa: E731
    chosen = {key(m): m.arrives for m in entry.run.messages}
    assert all(chosen[key(m)] == m.arrives for m in c.model.messages)
    assert (lost.sender, lost.sent, lost.addressee, lost.relation, lost.args) in chosen


def test_a_post_fact_no_run_holds(tmp_path):
    """b never logs its own broadcast: no run within the bounds holds post(b, ...)."""
    invariant = 'pre(M, P) :- broadcast(N, P)@1, member(N, M);\npost(M, P) :- broadcast(M, P)@1, member(N, M), log(M, P);\n'
    program, instance = load(tmp_path, "one-shot", invariant)
    verdict = attach(verify(program, instance, Bounds(2, network=Network("sync"))), program, instance)
    entries = verdict.counterexample.lineage
    assert len(entries) == 2 and all(e.run is None and e.derivation is None for e in entries)
    assert 'no lineage for post(b, "hello") at global:2: no run within the bounds holds it' in verdict.describe()
    assert [e.as_dict()["run"] for e in entries] == [None, None]
    assert [e.as_dict()["facts"] for e in entries] == [[], []]


def test_holds_has_no_lineage(tmp_path):
    program, instance = load(tmp_path, "one-shot")
    verdict = verify(program, instance, Bounds(4, network=Network("sync")))
    assert attach(verdict, program, instance) is verdict


@pytest.mark.parametrize("network", [Network("sync", crashes=1), Network(max_delay=1, crashes=1, loss_until=2)], ids=["sync", "async"])
def test_json_runs_json_and_page(network):
    program, instance, _ = pipeline.load([MOLLY / "two_phase_commit.ded", MOLLY / "commit_assert.ded"], None, "molly")
    bounds = Bounds(4, network=network)
    verdict = attach(verify(program, instance, bounds), program, instance)
    entries = verdict.as_dict()["counterexample"]["lineage"]
    assert len(entries) == len(verdict.counterexample.missing)
    for entry in entries:
        facts = entry["facts"]
        assert facts[entry["root"]]["fact"].startswith("post(") and [f["id"] for f in facts] == list(range(len(facts)))
        assert all(0 <= p < len(facts) for f in facts for p in f["premises"])
        assert any(f["message_in_other_run"] in ("lost", "lost-by-crash") or f["crashed_in_other_run"] for f in facts)
        assert all(facts[a["because"]]["run"] != f["run"] for f in facts for a in f["absent"] if a["because"] is not None)
    document = runs_document(verdict, fault_free_run(program, instance, bounds))
    jsonschema.validate(document, json.loads((ROOT / "docs" / "runs-schema.json").read_text()))
    [failure] = [r for r in document["runs"] if r["status"] == "failure"]
    assert failure["lineage"] == entries and all("lineage" not in r for r in document["runs"] if r["status"] == "success")
    page = index_html(document)
    assert page.count('<section class="lineage">') == len(entries) and '<strong class="cut">' in page
    assert not re.search(r'(src|href)="https?:', page)  # opens from disk
    graphs = re.findall(r"<svg .*?</svg>", page, re.S)
    assert len(graphs) == len(entries)
    for drawn, entry in zip(graphs, entries):  # a well-formed graph: a box per fact drawn, an arrow per premise drawn
        tree = ElementTree.fromstring(drawn)
        boxes = tree.findall("{http://www.w3.org/2000/svg}g")
        assert len(tree.findall("{http://www.w3.org/2000/svg}line")) == len(boxes) - 1
        assert boxes[0].get("class") == "missing" and entry["facts"][0]["fact"] in boxes[0].findtext("{http://www.w3.org/2000/svg}title")
        assert any("lost in the counterexample" in "".join(b.itertext()) for b in boxes)


def test_schema_rejects_a_lineage_without_its_facts(tmp_path):
    program, instance = load(tmp_path, "one-shot")
    bounds = Bounds(4, network=Network("sync", loss_until=1))
    document = runs_document(attach(verify(program, instance, bounds), program, instance), None)
    schema = json.loads((ROOT / "docs" / "runs-schema.json").read_text())
    jsonschema.validate(document, schema)
    del document["runs"][0]["lineage"][0]["facts"][0]["message_in_other_run"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(document, schema)


def test_cli_text_json_and_page_in_chromium(tmp_path):
    """The command prints the lineage after the faults, puts it in --json, and --out DIR's page shows it
    from disk (no network): the crashed coordinator of 2PC."""
    import subprocess
    import sys

    from test_browser import chromium, headless

    files = [str(MOLLY / "two_phase_commit.ded"), str(MOLLY / "commit_assert.ded"), "--eot", "5", "--delivery", "sync",
             "--crashes", "1"]
    run = lambda *more: subprocess.run([sys.executable, "-m", "dedalus2asp", "verify", *files, *more],  # noqa: E731
                                       capture_output=True, text=True, cwd=tmp_path)
    text = run()
    assert text.returncode == 1, text.stderr
    lines = text.stdout.splitlines()
    crashed = next(k for k, line in enumerate(lines) if line.startswith("  crashed: c at step"))
    assert lines[crashed + 1].startswith("  why post(termination, a, t1) at global:4 was expected: it holds in a run without faults")
    assert "LOST in the counterexample: its sender c had CRASHED at step" in text.stdout
    document = json.loads(run("--json").stdout)
    entries = document["counterexample"]["lineage"]
    assert [e["post"]["args"] for e in entries] == [["termination", "a", "t1"], ["termination", "b", "t1"]]
    assert all(any(f["message_in_other_run"] == "lost-by-crash" and f["message"]["from"] == "c" for f in e["facts"])
               for e in entries)
    out = tmp_path / "out"
    assert run("--out", str(out)).returncode == 1
    runs = json.loads((out / "runs.json").read_text())
    jsonschema.validate(runs, json.loads((ROOT / "docs" / "runs-schema.json").read_text()))
    assert [len(r.get("lineage", ())) for r in runs["runs"]] == [0, 2]
    dom = headless(chromium(), "--dump-dom", (out / "index.html").as_uri())
    assert dom.returncode == 0, dom.stderr
    assert dom.stdout.count('<section class="lineage">') == 2
    assert dom.stdout.count('<svg xmlns="http://www.w3.org/2000/svg" class="lineage-graph"') == 2
    assert dom.stdout.count("lost in the counterexample: its sender c had crashed at step") == 4  # the graph and the list


LIBRARY = [(p, "broadcast_assert.ded") for p in ("simple_broadcast.ded", "retry_broadcast.ded", "ack_broadcast.ded",
                                                 "classic_broadcast.ded")]
LIBRARY += [(p, "commit_assert.ded") for p in ("two_phase_commit.ded", "two_phase_commit_timeout.ded")]


@pytest.mark.parametrize("network", [Network("sync", crashes=1, loss_until=3), Network(max_delay=1, crashes=1, loss_until=2)],
                         ids=["sync", "async"])
def test_every_library_lineage_names_a_fault_of_its_counterexample(network):
    """Molly's point: the fault must cut the lineage. Each missing row's lineage marks a message the
    counterexample lost or a node it crashed, one of the counterexample's own faults."""
    broken = 0
    for protocol, invariant in LIBRARY:
        program, instance, _ = pipeline.load([MOLLY / protocol, MOLLY / invariant], None, "molly")
        verdict = verify(program, instance, Bounds(5, network=network))
        if verdict.holds is not False:
            continue
        broken += 1
        c = attach(verdict, program, instance).counterexample
        lost = {(l.sender, l.sent, l.addressee, l.relation, l.args) for l in c.lost}
        for entry in c.lineage:
            assert entry.run is not None, (protocol, entry.missing)
            named = [m for m in entry.marks.values() if m.message in (LOST_FATE, CRASH_FATE) or m.crash is not None]
            assert named, (protocol, entry.missing)
            assert all(m.crash in c.crashes for m in named if m.crash is not None)
            assert all((d.reason.message.sender, d.reason.message.sent, d.reason.message.addressee, d.fact[0], d.fact[1]) in lost
                       for side, d in entry.derivations()
                       if entry.marks[(side, d.key)].message in (LOST_FATE, CRASH_FATE) and side == EXPECTED)
    assert broken >= 4


def test_a_located_post_relation_is_explained_at_its_node(tmp_path):
    """--post log: the row (b, "hello") is log("hello") held by b, explained at b's last step."""
    program, instance = load(tmp_path, "one-shot")
    verdict = attach(verify(program, instance, Bounds(4, network=Network("sync", loss_until=1)), post="log"), program, instance)
    [lost] = verdict.counterexample.lost
    [entry] = verdict.counterexample.lineage
    assert (entry.node, entry.step, entry.fact) == (lost.addressee, 4, ("log", lost.args))
    assert entry.as_dict()["post"] == {"node": str(lost.addressee), "step": 4, "relation": "log", "args": ['"hello"']}
    assert cut(entry) == [("a", 0, str(lost.addressee), "deliver", LOST_FATE)]
    assert f'log("hello") at {lost.addressee}:1..4: deduced by rule 10, carried over to step 4 by rule 11' in verdict.describe()


def test_no_time_left_no_lineage(tmp_path):
    """With less time left than the verdict took, the lineage is not attempted: each entry says it was stopped."""
    program, instance = load(tmp_path, "one-shot")
    verdict = verify(program, instance, Bounds(4, network=Network("sync", loss_until=1)))
    [entry] = attach(verdict, program, instance, timeout=verdict.seconds / 2).counterexample.lineage
    assert entry.stopped and entry.run is None and entry.as_dict()["stopped"] is True
    member = entry.missing.args[0]
    assert f'no lineage for post({member}, "hello") at global:4: the timeout stopped the search for a run where it holds' in entry.tree()[0][0]
    assert "the timeout stopped" in html(entry.as_dict())


@pytest.mark.parametrize("protocol, network", [
    ("ack_broadcast.ded", Network(max_delay=1, loss_until=2, crashes=1)),  # --all's runs need not include the counterexample
    ("simple_broadcast.ded", Network("sync", loss_until=2, crashes=1)),
], ids=["ack-async", "simple-sync"])
def test_all_puts_the_lineage_on_one_failure_run(protocol, network):
    program, instance, _ = pipeline.load([MOLLY / protocol, MOLLY / "broadcast_assert.ded"], None, "molly")
    verdict = attach(verify(program, instance, Bounds(5, network=network), all_=True), program, instance)
    document = runs_document(verdict, None)
    jsonschema.validate(document, json.loads((ROOT / "docs" / "runs-schema.json").read_text()))
    carrying = [r for r in document["runs"] if r.get("lineage")]
    assert len(carrying) == 1 and carrying[0]["status"] == "failure"
    assert all(any(f["message_in_other_run"] in ("lost", "lost-by-crash") or f["crashed_in_other_run"] for f in e["facts"])
               for e in carrying[0]["lineage"])


def test_a_projection_in_the_lineage_crosses_processes(tmp_path):
    """2PC decides with `notin decision(C, X, _)`: the lineage holds an absent atom with `_`. With --timeout
    the verdict is made in the solver's own process and pickled back; `_` is no clingo term, and the
    command stopped with an internal error (exit 70). The verdict comes back whole, `_` and all."""
    import pickle
    import subprocess
    import sys

    from dedalus2asp.inspect.explain import ANY

    program, instance, _ = pipeline.load([MOLLY / "two_phase_commit.ded", MOLLY / "commit_assert.ded"], None, "molly")
    verdict = attach(verify(program, instance, Bounds(4, network=Network("sync", crashes=1))), program, instance)
    anonymous = [a for e in verdict.counterexample.lineage for _, d in e.derivations() for a in d.absent if ANY in a[1]]
    assert anonymous and str(anonymous[0][1][-1]) == "_"
    back = pickle.loads(pickle.dumps(verdict))
    assert back.describe() == verdict.describe() and back.as_dict() == verdict.as_dict()
    run = subprocess.run([sys.executable, "-m", "dedalus2asp", "verify", str(MOLLY / "two_phase_commit.ded"),
                          str(MOLLY / "commit_assert.ded"), "--eot", "5", "--delivery", "sync", "--crashes", "1",
                          "--timeout", "60"], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 1, run.stderr
    assert "LOST in the counterexample: its sender c had CRASHED at step" in run.stdout


def test_the_lineage_has_its_own_share_of_time():
    """The lineage may take a few times what the verdict took (at least a second), never more than --timeout
    leaves: at scale its optimisation can cost far more than the verdict."""
    from dedalus2asp.questions.lineage import SHARE_FACTOR, SHARE_FLOOR, share

    assert share(0.01) == SHARE_FLOOR
    assert share(10.0) == SHARE_FACTOR * 10.0 > 10.0
    assert share(10.0, left=2.5) == 2.5 and share(0.01, left=0.0) == 0.0


def test_no_lineage_skips_the_explanation(tmp_path):
    import subprocess
    import sys

    base = [sys.executable, "-m", "dedalus2asp", "verify", str(MOLLY / "simple_broadcast.ded"),
            str(MOLLY / "broadcast_assert.ded"), "--horizon", "4", "--delivery", "sync", "--loss-until", "2", "--json"]
    explained = subprocess.run(base, capture_output=True, text=True)
    bare = subprocess.run([*base, "--no-lineage"], capture_output=True, text=True)
    assert explained.returncode == bare.returncode == 1, (explained.stderr, bare.stderr)
    assert json.loads(explained.stdout)["counterexample"]["lineage"]
    found = json.loads(bare.stdout)["counterexample"]
    assert "lineage" not in found and found["faults"] == json.loads(explained.stdout)["counterexample"]["faults"]


def test_the_expected_run_counts_its_faults_as_the_counterexample_does():
    """Two messages of one channel at one step are one omission when omissions cut channels (Molly's model, the
    sync default) and two when they lose messages one by one: the lineage's "a run with N faults" and the
    verdict's "faults: N" count alike (`verdict.fault_count`)."""
    a, b = clingo.Function("a"), clingo.Function("b")
    lost = (Lost(a, 1, b, "m", (clingo.Number(1),)), Lost(a, 1, b, "m", (clingo.Number(2),)),
            Lost(a, 2, b, "m", (clingo.Number(1),), by_crash=True))
    crashes = (Crash(a, 2),)

    def expected(network):
        run = SimpleNamespace(bounds=Bounds(3, network=network))
        return Expected(Missing(None, "pre", ()), b, 3, ("post", ()), run, lost, crashes)

    assert expected(Network("sync", loss_until=2, crashes=1)).faults == 2  # one channel cut, one crash
    assert expected(Network("sync", loss_until=2, crashes=1, omission="message")).faults == 3
    assert Expected(Missing(None, "pre", ()), b, 3, ("post", ()), None).faults == 0
