"""Molly's lock-step rules (issue #31): a deductive rule of Molly's dialect that writes at its head's node what
holds at another node in the same step (Molly's gstore: `ja(Leader, ...) :- next(Server, ...), ...`).

Molly evaluates every rule over one database of all nodes per time; dedalus2asp reads such a rule as a
`RuleKind.LOCKSTEP` rule, solved under `--delivery sync` only (Molly's rounds), and refused by the explorer and
the run engines, which take one node's step at a time. Every program here is small and our own.
"""

from __future__ import annotations

import json
import subprocess
import sys

import clingo
import pytest

from dedalus2asp import inspect, pipeline
from dedalus2asp.asp import budget
from dedalus2asp.inspect import explain
from dedalus2asp.lang import pdg
from dedalus2asp.asp.transform import transform
from dedalus2asp.bounds import Bounds, Encoding, Mode, Network
from dedalus2asp.lang.ast import RuleKind
from dedalus2asp.lang.diagnostics import DiagnosticError
from dedalus2asp.questions import models
from dedalus2asp.questions.verify import verify

# a counts 1, 2, 3 (val is derived at a, so b cannot hold a copy of it); rule 6 writes at b, in the very step,
# what a holds (a lock-step rule); b's own rules read it (echo) and keep it a step (kept)
COUNTER = """
peer("a", "b")@1;
peer(A, B)@next :- peer(A, B);
start("a", 1)@1;
val(A, V)@next :- start(A, V);
val(A, V + 1)@next :- val(A, V), V < 3;
seen(B, V) :- val(A, V), peer(A, B);
echo(B, V) :- seen(B, V), notin mute(B, V);
mute(B, V) :- seen(B, V), V > 2;
kept(B, V)@next :- echo(B, V);
"""

# b acknowledges to a what it saw at a (a lock-step read), by message; a logs the acknowledgements
ACK = """
peer("a", "b")@1;
peer(A, B)@next :- peer(A, B);
start("a", 1)@1;
val(A, V)@next :- start(A, V);
val(A, V)@next :- val(A, V);
seen(B, A, V) :- val(A, V), peer(A, B);
ack(A, B, V)@async :- seen(B, A, V);
acked(A, V) :- ack(A, _, V);
acked(A, V)@next :- acked(A, V);
pre(A, V) :- val(A, V);
post(A, V) :- acked(A, V);
"""

NODES = ("a", "b")


def _cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "dedalus2asp", *args], capture_output=True, text=True, cwd=cwd)


def _load(tmp_path, text: str, name: str = "p.ded"):
    (tmp_path / name).write_text(text)
    program, instance, warnings = pipeline.load(tmp_path / name, None, "molly")
    return program, instance, warnings


def _sync(horizon: int, encoding: Encoding = Encoding.FAST, **network) -> Bounds:
    return Bounds(horizon, encoding=encoding, network=Network("sync", nodes=NODES, **network))


def _facts(trace, relations) -> set:
    return {(str(x), s, r, tuple(str(a) for a in args)) for x, s, r, args in trace if r in relations}


def test_the_rule_is_read_as_a_lock_step_rule_with_a_warning(tmp_path):
    program, _, warnings = _load(tmp_path, COUNTER)
    [rule] = program.lockstep_rules()
    assert rule.number == 6 and str(rule) == "seen(B, V) :- val(A, V), peer(A, B)."  # every atom's node first
    assert program.idb()["seen"] == 1 and program.schema()["seen"] == 1  # held at b, without its node
    assert not program.global_relations()  # it steers the run: not a global relation
    [warning] = [w for w in warnings if w.code == "lockstep"]
    assert (warning.span.line, warning.span.col) == (7, 1)
    assert "rule 6 writes 'seen' at 'B'" in warning.message and "--delivery sync" in warning.message


@pytest.mark.parametrize("encoding", [Encoding.FAST, Encoding.PAPER], ids=["fast", "paper"])
def test_the_solver_writes_at_b_what_a_holds_in_the_same_round(tmp_path, encoding):
    """Hand-computed: val(1..3) at a at steps 1..3; seen(v) at b at the same steps; echo at b unless mute, which
    b derives from seen(3) in that very step; kept one step later."""
    program, instance, _ = _load(tmp_path, COUNTER)
    found = inspect.traces(transform(program, instance, _sync(3, encoding)), timeout=60)
    assert found.complete and len(found.models) == 1
    [model] = found.models
    expected = {('"a"', s, "val", (str(s),)) for s in (1, 2, 3)}
    expected |= {('"b"', s, "seen", (str(s),)) for s in (1, 2, 3)} | {('"b"', s, "echo", (str(s),)) for s in (1, 2)}
    expected |= {('"b"', 3, "mute", ("3",))} | {('"b"', s + 1, "kept", (str(s),)) for s in (1, 2)}
    assert _facts(model.trace, {"val", "seen", "echo", "kept", "mute"}) == expected


def test_a_crashed_body_node_writes_nothing_under_fail_stop(tmp_path):
    """Molly fires a rule at its first body atom's node: once a has crashed (fail-stop), b sees nothing more; nor
    once b has crashed (a crashed node holds nothing)."""
    program, instance, _ = _load(tmp_path, COUNTER)
    bounds = _sync(3, crashes=1, crash_model="fail-stop", crash_times="any")
    text = transform(program, instance, bounds).text
    assert "seen(B,S,V) :- val(A,S,V), peer(A,S,B), all(B), not _silenced(A,S), not _silenced(B,S)." in text
    found = inspect.traces(transform(program, instance, bounds), timeout=60)
    seen = {frozenset(_facts(m.trace, {"seen"})) for m in found.models}
    assert frozenset() in seen and frozenset({('"b"', 1, "seen", ("1",))}) in seen
    for model in found.models:  # whoever crashed holds no seen from its crash step on
        crashed = {str(x): s for x, s in model.crashes}
        assert not any(s >= min(crashed.values(), default=99) for _, s, _, _ in _facts(model.trace, {"seen"}))


def test_the_lasso_program_reads_it_too(tmp_path):
    """The eventual mode (a lasso under sync delivery): the same writes, then nothing once a stops counting."""
    program, instance, _ = _load(tmp_path, COUNTER + "kept(B, V)@next :- kept(B, V);\n")
    bounds = Bounds(6, network=Network("sync", nodes=NODES), mode=Mode.EVENTUAL)
    found = inspect.traces(transform(program, instance, bounds), timeout=60)
    assert found.models
    for model in found.models:
        assert {f for f in _facts(model.trace, {"seen"})} == {('"b"', s, "seen", (str(s),)) for s in (1, 2, 3)}
    assert not models.confluent(program, instance, bounds.network)  # the confluence argument reads each node alone


def test_async_delivery_is_refused_at_the_rule(tmp_path):
    program, instance, _ = _load(tmp_path, COUNTER)
    with pytest.raises(DiagnosticError) as raised:
        transform(program, instance, Bounds(3, network=Network(nodes=NODES, max_delay=1)))
    [diagnostic] = raised.value.diagnostics
    assert diagnostic.code == "lockstep-async" and (diagnostic.span.line, diagnostic.span.col) == (7, 1)
    done = _cli("models", "p.ded", "-T", "3", "--nodes", "a,b", cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "p.ded:7:1: error: rule 6 writes 'seen' at the node its first column names" in done.stderr
    assert "give --delivery sync" in done.stderr


@pytest.mark.parametrize("command", [
    ["explore", "-T", "2", "--delivery", "sync"],
    ["explore", "--eventual", "--delivery", "sync", "--output-relations", "kept"],
    ["run", "--steps", "3", "--out", "out"],
    ["replay", "-T", "2", "--delivery", "sync"],
], ids=["explore", "explore-eventual", "run", "replay"])
def test_what_takes_one_node_at_a_time_refuses_it(tmp_path, command):
    (tmp_path / "p.ded").write_text(COUNTER)
    done = _cli(command[0], "p.ded", "--nodes", "a,b", *command[1:], cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr and "internal error" not in done.stderr
    assert "p.ded:7:1: error: rule 6 writes 'seen'" in done.stderr
    assert "one node's step at a time" in done.stderr and "--delivery sync" in done.stderr


def test_check_loads_it(tmp_path):
    (tmp_path / "p.ded").write_text(COUNTER)
    done = _cli("check", "p.ded", cwd=tmp_path)
    assert done.returncode == 0 and ": error: " not in done.stderr
    assert "p.ded:7:1: warning: rule 6 writes 'seen' at 'B'" in done.stderr
    assert "rule  6 lock-step    seen(B, V) :- val(A, V), peer(A, B)." in done.stdout


def test_verify_explains_a_counterexample_through_the_lock_step_rule(tmp_path):
    """Without faults every value a holds is acknowledged; a crash of b breaks it. The lineage of the run
    expected instead explains b's seen(a, 1) by a's val(1) and peer(b), at a, in the same step (no exit 70)."""
    program, instance, _ = _load(tmp_path, ACK)
    assert verify(program, instance, _sync(3)).holds
    assert verify(program, instance, _sync(3, encoding=Encoding.PAPER)).holds
    done = _cli("verify", "p.ded", "-T", "3", "--delivery", "sync", "--nodes", "a,b", "--crashes", "1", "--json",
                cwd=tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    lineage = json.loads(done.stdout)["counterexample"]["lineage"]
    facts = {f["id"]: f for explained in lineage for f in explained["facts"]}
    seen = [f for f in facts.values() if f["relation"] == "seen"]
    assert seen and all(f["node"] == '"b"' and f["how"] == "deduced" and f["rule_number"] == 6 for f in seen)
    for f in seen:
        premises = [facts[i] for i in f["premises"]]
        assert {(p["node"], p["relation"], p["step"]) for p in premises} == {('"a"', "val", f["step"]),
                                                                             ('"a"', "peer", f["step"])}


def test_a_lock_step_rule_is_no_global_rule_and_is_stratified_with_the_deductive_ones(tmp_path):
    """Its head is read by b's deductive rules in the same step: a cycle through negation across the write is
    not stratifiable, as it would be within one node."""
    program, _, _ = _load(tmp_path, COUNTER)
    assert {r.kind for r in program.rules if r.head.predicate == "seen"} == {RuleKind.LOCKSTEP}
    cyclic = COUNTER.replace("peer(A, B);\necho", "peer(A, B), notin kept(B, V);\necho").replace(
        "kept(B, V)@next :- echo(B, V);", "kept(B, V) :- echo(B, V);")
    (tmp_path / "q.ded").write_text(cyclic)
    done = _cli("check", "q.ded", cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "closes the cycle" in done.stderr and "seen" in done.stderr


def test_the_multi_shot_program_reads_it_under_sync_and_refuses_it_otherwise(tmp_path):
    """`verify --search-horizon` (the multi-shot program): the same first violating horizon as the one-shot
    program (horizon 1: a holds val(1), b's ack arrives at step 2), and the refusal under async delivery."""
    (tmp_path / "p.ded").write_text(ACK)
    searched = _cli("verify", "p.ded", "-T", "3", "--delivery", "sync", "--nodes", "a,b", "--search-horizon", "--json",
                    cwd=tmp_path)
    assert searched.returncode == 1 and "Traceback" not in searched.stderr
    found = json.loads(searched.stdout)
    assert found["bound"]["horizon"] == 1 and found["bound"]["search"] == "multi-shot"
    one_shot = _cli("verify", "p.ded", "-T", "1", "--delivery", "sync", "--nodes", "a,b", cwd=tmp_path)
    assert one_shot.returncode == 1 and one_shot.stdout.startswith("counterexample at horizon 1")
    refused = _cli("verify", "p.ded", "-T", "3", "--max-delay", "1", "--nodes", "a,b", "--search-horizon", cwd=tmp_path)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert "p.ded:7:1: error: rule 6 writes 'seen'" in refused.stderr


def test_convert_cannot_write_it_location_transparently(tmp_path):
    (tmp_path / "p.ded").write_text(COUNTER)
    done = _cli("convert", "p.ded", cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "rule 6 'seen(B, V) :- val(A, V), peer(A, B).' writes at the node its first column names" in done.stderr


def test_the_static_analyses_and_the_budget_count_the_rule(tmp_path):
    """The dependency graph has the lock-step rule's edges (same step, not temporal), and the ground budget
    counts its instances once over all nodes, as a global rule's, within a factor of what clingo grounds."""
    program, instance, _ = _load(tmp_path, COUNTER)
    edges = {(d.head, d.body): d for d in pdg.dependencies(program)}
    assert not edges[("seen", "val")].temporal and edges[("seen", "val")].rules == (6,)
    assert ("echo", "seen") in edges and edges[("mute", "seen")].monotone
    found = budget.estimate(program, instance, _sync(3))
    [part] = [p for p in found.parts if p.rule is not None and p.rule.number == 6 and "valuation" in p.what]
    assert "over all nodes" in part.what and part.size >= 1
    grounded = budget.measured(program, instance, _sync(3))
    assert grounded is not None and grounded <= 10 * found.total


@pytest.mark.parametrize("encoding", [Encoding.FAST, Encoding.PAPER], ids=["fast", "paper"])
def test_an_aggregate_is_written_at_the_heads_node(tmp_path, encoding):
    """`seen(B, max<V>)`: b holds, at each step, the largest value a holds then (7 at step 1, beside 1), and the
    lineage gives every valuation of the group as premises at a."""
    program, instance, _ = _load(tmp_path, COUNTER.replace("seen(B, V) :- val(A, V), peer(A, B);",
                                                           "seen(B, max<V>) :- val(A, V), peer(A, B);\n"
                                                           "val(A, 7)@next :- start(A, _);"))
    [model] = inspect.traces(transform(program, instance, _sync(3, encoding)), timeout=60).models
    assert _facts(model.trace, {"seen"}) == {('"b"', 1, "seen", ("7",)), ('"b"', 2, "seen", ("2",)),
                                             ('"b"', 3, "seen", ("3",))}
    derivation = explain.Lineage(model, instance).derive(clingo.String("b"), 1, ("seen", (clingo.Number(7),)))
    assert {(str(p.node), p.step, p.fact[0], str(p.fact[1][0])) for p in derivation.premises} == {
        ('"a"', 1, "val", "1"), ('"a"', 1, "val", "7"), ('"a"', 1, "peer", '"b"')}


def test_a_head_held_at_an_aggregate_is_refused(tmp_path):
    (tmp_path / "p.ded").write_text(COUNTER.replace("seen(B, V) :- val(A, V), peer(A, B);",
                                                    "seen(max<B>, V) :- val(A, V), peer(A, B);"))
    done = _cli("check", "p.ded", cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "p.ded:7:6: error: rule 6 writes 'seen' at the node its first column names, but that column is an " \
           "aggregate, 'max<B>'" in done.stderr


@pytest.mark.parametrize("encoding", [Encoding.FAST, Encoding.PAPER], ids=["fast", "paper"])
def test_a_write_at_a_name_that_is_no_node_lands_nowhere(tmp_path, encoding):
    """post(X) is written at the node X names: at "b" it is held and kept; "c" is no node, so nothing holds it
    there (as a message to a name that is no node), and no node of the network is written in its place."""
    text = ('post(X) :- d(A, X), d(B, X);\npost(X)@next :- post(X);\nd(A, X) :- e(A, X);\n'
            'e("a", "b")@1;\ne("b", "c")@1;\ne("a", "c")@1;\n')
    program, instance, _ = _load(tmp_path, text)
    [rule] = program.lockstep_rules()
    found = inspect.traces(transform(program, instance, _sync(2, encoding)), timeout=60)
    [model] = found.models
    assert _facts(model.trace, {"post"}) == {('"b"', s, "post", ()) for s in (0, 1, 2)}
