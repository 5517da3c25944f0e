"""Faults in the network value (docs/faults.md): omissions, crash-stop failures and sync delivery.

Bounded Theorem 4 (tplp2016 §5, bounded to the horizon) with faults: the traces of the
fault-injected models of both encodings equal the traces of the explored run prefixes
(`operational.explore`, which drops the lost messages as they are sent and runs once per crash
plan); `fast` has the models of `paper` under every semantics; sync delivery gives one model per
fault set; and the textbook facts that Molly (Alvaro, Rosen, Hellerstein, *Lineage-driven fault
injection*, SIGMOD 2015) checks: a one-shot broadcast loses a delivery under omissions, the
classic reliable broadcast survives crash-stop failures and not omissions.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace

import clingo
import pytest

from dedalus2asp import inspect
from dedalus2asp.asp import solve
from dedalus2asp.asp.transform import transform
from dedalus2asp.bounds import Bounds, Encoding, Network, Semantics
from dedalus2asp.lang.analysis import restrict
from dedalus2asp.lang.facts import load_instance, parse_facts
from dedalus2asp.lang.parser import load_program, parse_program
from dedalus2asp.runs import operational
from dedalus2asp.runs.transitions import crash_plans

from conftest import EXAMPLES, SMALL, example_id

CAUSAL = [Semantics.CAUSAL, Semantics.CAUSAL_FINITE]

BUDGETS = {
    "loss1": Network(loss_until=1),
    "loss2-D1": Network(max_delay=1, loss_until=2),
    "crash1": Network(crashes=1),
    "crash1-D1": Network(max_delay=1, crashes=1),
    "sync": Network("sync"),
    "sync-loss2": Network("sync", loss_until=2),
    "sync-crash1-loss1": Network("sync", loss_until=1, crashes=1),
    # the finer models beside Molly's (issue #31): one message lost at a time, a crash at any step; an
    # omission cutting a channel and Molly's crash candidates under async; fail-stop crashes
    "sync-message-any": Network("sync", loss_until=2, crashes=1, omission="message", crash_times="any"),
    "channel-D1": Network(max_delay=1, loss_until=2, omission="channel"),
    "after-send-D1": Network(max_delay=1, crashes=1, crash_times="after-send"),
    "sync-fail-stop": Network("sync", loss_until=1, crashes=1, crash_model="fail-stop"),
    "fail-stop-D1": Network(max_delay=1, crashes=1, crash_model="fail-stop"),
}

ONE_SHOT = """
% a one-shot broadcast: the sender sends once, at step 0 (its start event)
bcast(M)@async(Y) :- start(M), member(Y).
got(M) :- bcast(M).
got(M)@next :- got(M).
down(Y) :- crash(Y, S).
"""

CLASSIC = """
% the classic reliable broadcast: every node relays what it receives to every member
bcast(M)@async(Y) :- start(M), member(Y).
bcast(M)@async(Y) :- bcast(M), member(Y).
got(M) :- bcast(M).
got(M)@next :- got(M).
down(Y) :- crash(Y, S).
"""

TWO = """
% two messages on one channel at one step: a sends m1 and m2 to every member at step 0
m1(M)@async(Y) :- start(M), member(Y).
m2(M)@async(Y) :- start(M), member(Y).
got1(M) :- m1(M).
got1(M)@next :- got1(M).
got2(M) :- m2(M).
got2(M)@next :- got2(M).
down(Y) :- crash(Y, S).
"""

MEMBERS = """
member(a). member(b). member(c).
a { start(hi)@0. }
b { }
c { }
"""


def asp_traces(program, instance, bounds) -> set:
    found = inspect.traces(transform(program, instance, bounds), timeout=120)
    assert found.complete
    return {m.trace for m in found.models}


def run_traces(program, instance, bounds, mode="traces") -> set:
    return set(operational.explore(program, restrict(instance, program), bounds, mode=mode).traces)


def broadcast(text: str):
    return parse_program(text, "broadcast.ded"), parse_facts(MEMBERS, "broadcast.facts")


# --- bounded Theorem 4 with faults ---------------------------------------------------------------

CASES = [(pair, name) for pair in SMALL for name in BUDGETS]


@pytest.mark.parametrize("pair, budget", CASES, ids=[f"{example_id(p)}-{b}" for p, b in CASES])
def test_fault_injected_models_have_the_traces_of_the_runs(pair, budget):
    program, instance = load_program(EXAMPLES / pair[0]), load_instance(EXAMPLES / pair[1])
    bounds = Bounds(2, Semantics.CAUSAL_FINITE, network=BUDGETS[budget])
    expected = run_traces(program, instance, bounds)
    assert expected
    assert asp_traces(program, instance, bounds) == expected


@pytest.mark.parametrize("text", [ONE_SHOT, CLASSIC, TWO], ids=["one-shot", "classic", "two"])
@pytest.mark.parametrize("encoding", list(Encoding), ids=lambda e: e.value)
@pytest.mark.parametrize("semantics", CAUSAL, ids=lambda s: s.value)
@pytest.mark.parametrize("budget", ["loss2-D1", "crash1-D1", "sync-crash1-loss1", "sync-message-any", "channel-D1",
                                    "after-send-D1", "sync-fail-stop", "fail-stop-D1"])
def test_broadcast_reading_crash_agrees_with_runs(text, encoding, semantics, budget):
    """crash(y, s) is an input fact of every node in the runs, and derived at every node and step in the models."""
    program, instance = broadcast(text)
    bounds = Bounds(2, semantics, encoding, BUDGETS[budget])
    expected = run_traces(program, instance, bounds)
    if BUDGETS[budget].crashes:
        assert any(fact[2] == "crash" for trace in expected for fact in trace)
    assert asp_traces(program, instance, bounds) == expected


def test_the_exact_search_has_the_traces_of_the_reduced_one():
    program, instance = broadcast(CLASSIC)
    for network in (Network("sync", loss_until=2, crashes=1), Network(max_delay=1, loss_until=1, crashes=1),
                    BUDGETS["sync-fail-stop"], BUDGETS["fail-stop-D1"], BUDGETS["sync-message-any"]):
        bounds = Bounds(2, network=network)
        assert run_traces(program, instance, bounds, "exact") == run_traces(program, instance, bounds)


@pytest.mark.parametrize("semantics", list(Semantics), ids=lambda s: s.value)
@pytest.mark.parametrize("budget", ["loss1", "crash1-D1", "sync-crash1-loss1", "sync-message-any", "channel-D1",
                                    "after-send-D1", "sync-fail-stop"])
@pytest.mark.parametrize("text", [ONE_SHOT, TWO], ids=["one-shot", "two"])
def test_fast_has_the_models_of_paper_with_faults(semantics, budget, text):
    program, instance = broadcast(text)
    counts = {
        e: solve.count(transform(program, instance, Bounds(2, semantics, e, BUDGETS[budget])), progress=False)
        for e in Encoding
    }
    assert counts[Encoding.FAST]["models"] == counts[Encoding.PAPER]["models"] > 1
    assert counts[Encoding.FAST]["traces"] == counts[Encoding.PAPER]["traces"]


def test_no_fault_no_change():
    """Without faults nothing is written: the same program text, whatever the node list names already."""
    program, instance = broadcast(CLASSIC)
    plain = transform(program, instance, Bounds(2)).text
    assert transform(program, instance, Bounds(2, network=Network(nodes=("a", "b")))).text == plain
    assert "lost" not in plain and "_crashed" not in plain


# --- sync delivery: one schedule per fault set ---------------------------------------------------


def _models(text: str) -> list[frozenset[str]]:
    ctl = clingo.Control(["0", "--warn=none"])
    ctl.add("base", [], text)
    ctl.ground([("base", [])])
    found = []
    ctl.solve(on_model=lambda m: found.append(frozenset(str(s) for s in m.symbols(atoms=True))))
    return found


@pytest.mark.parametrize("encoding", list(Encoding), ids=lambda e: e.value)
@pytest.mark.parametrize("pair", SMALL[:6], ids=[example_id(p) for p in SMALL[:6]])
def test_sync_has_one_model_per_fault_set(pair, encoding):
    program, instance = load_program(EXAMPLES / pair[0]), load_instance(EXAMPLES / pair[1])
    assert len(_models(transform(program, instance, Bounds(2, encoding=encoding, network=Network("sync"))).text)) == 1
    faulty = transform(program, instance, Bounds(2, encoding=encoding, network=Network("sync", loss_until=2, crashes=1))).text
    models = _models(faulty)
    faults = {frozenset(a for a in m if ",lost," in a or ",lost)" in a or a.startswith("_crashed(")) for m in models}
    assert len(faults) == len(models)


def test_crash_plans_are_every_choice_of_at_most_c_nodes_and_steps():
    names = tuple(clingo.Function(n) for n in "abc")
    plans = list(crash_plans(names, 2, 1))
    assert plans[0] == {} and len(plans) == 1 + 3 * 2 + 3 * 4
    assert len({tuple(sorted(p.items())) for p in plans}) == len(plans)


# --- the textbook facts under sync delivery ------------------------------------------------------


def _final(trace, horizon):
    """(nodes with got(hi) at the horizon, nodes with got(hi) one step earlier, crashed nodes)."""
    got = {s: {str(x) for x, t, r, _ in trace if r == "got" and t == s} for s in (horizon - 1, horizon)}
    crashed = {str(a[0]) for x, t, r, a in trace if r == "crash"}
    return got[horizon], got[horizon - 1], crashed


def test_one_shot_broadcast_loses_a_delivery_under_omissions():
    program, instance = broadcast(ONE_SHOT)
    healthy = asp_traces(program, instance, Bounds(2, network=Network("sync")))
    assert [_final(t, 2)[0] for t in healthy] == [{"a", "b", "c"}]
    lossy = asp_traces(program, instance, Bounds(2, network=Network("sync", loss_until=1)))
    assert {frozenset(_final(t, 2)[0]) for t in lossy} == {
        frozenset("a" + rest) for rest in ("", "b", "c", "bc")
    }


def test_classic_broadcast_survives_crashes_but_not_omissions():
    program, instance = broadcast(CLASSIC)
    horizon = 3
    crashes = asp_traces(program, instance, Bounds(horizon, network=Network("sync", crashes=1)))
    assert any(crashed for *_, crashed in map(lambda t: _final(t, horizon), crashes))
    for trace in crashes:
        now, before, crashed = _final(trace, horizon)
        correct = {"a", "b", "c"} - crashed
        if before & correct:  # a correct node delivered in time to relay: every correct node delivers
            assert correct <= now
    omissions = asp_traces(program, instance, Bounds(horizon, network=Network("sync", loss_until=horizon)))
    assert any("b" in _final(t, horizon)[1] and "c" not in _final(t, horizon)[0] for t in omissions)


# --- the command line ----------------------------------------------------------------------------


def _cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "dedalus2asp", *args], capture_output=True, text=True, cwd=cwd)


def test_cli_fault_options(tmp_path):
    (tmp_path / "b.ded").write_text(ONE_SHOT)
    (tmp_path / "b.facts").write_text(MEMBERS)
    base = ["b.ded", "--input", "b.facts", "--horizon", "2", "--json"]
    counted = json.loads(_cli("count", *base, "--delivery", "sync", "--eff", "2", cwd=tmp_path).stdout)
    explored = json.loads(_cli("explore", *base, "--delivery", "sync", "--loss-until", "1", cwd=tmp_path).stdout)
    assert counted["traces"] == explored["traces"] == 4
    assert explored["loss_until"] == 1 and explored["delivery"] == "sync"
    nodes = json.loads(_cli("count", *base, "--delivery", "sync", "--nodes", "d", cwd=tmp_path).stdout)
    assert nodes["traces"] == 1
    for bad, words in [
        (["--eff", "2", "--loss-until", "1"], "give one of them"),
        (["--delivery", "sync", "--max-delay", "1"], "async delivery only"),
        (["--delivery", "eventually"], "delivery model"),
        (["--nodes", "a,B"], "node name"),
    ]:
        done = _cli("count", *base, *bad, cwd=tmp_path)
        assert done.returncode == 2, (bad, done.stderr)
        assert words in done.stderr and "Traceback" not in done.stderr


# --- the multi-shot program of cron --------------------------------------------------------------

INCREMENTAL = [
    ("tplp2016/fig4_noncausal.ded", "tplp2016/fig4.facts"),
    ("tplp2016/ex3_2pc.ded", "tplp2016/ex3_2pc_small.facts"),
    ("tr2009/broadcast.ded", "tr2009/broadcast.facts"),
]
INCREMENTAL_BUDGETS = ["loss2-D1", "crash1", "sync-crash1-loss1", "sync-loss2", "sync-message-any", "channel-D1", "after-send-D1"]


@pytest.mark.parametrize("budget", INCREMENTAL_BUDGETS)
@pytest.mark.parametrize("pair", INCREMENTAL, ids=[example_id(p) for p in INCREMENTAL])
def test_incremental_has_the_one_shot_models_and_traces_with_faults(pair, budget):
    from dedalus2asp import inspect
    from dedalus2asp.asp.incremental import Unrolling, incremental

    program, instance = load_program(EXAMPLES / pair[0]), load_instance(EXAMPLES / pair[1])
    instance = restrict(instance, program)
    network = BUDGETS[budget]
    inc = incremental(program, instance, Semantics.CAUSAL_FINITE, network)
    models, traces = Unrolling(inc, ["0"]), Unrolling(inc, ["0"], project=True)
    for horizon in range(3):
        models.extend(horizon)
        traces.extend(horizon)
        compiled = transform(program, instance, Bounds(horizon, network=network))
        counted = []
        models.control.solve(on_model=lambda m: counted.append(1))
        assert len(counted) == solve.count(compiled, progress=False)["models"], horizon
        found = []
        traces.control.solve(on_model=lambda m: found.append(inspect.decode(m.symbols(atoms=True), compiled).trace))
        assert set(found) == {m.trace for m in inspect.traces(compiled).models}, horizon


# --- the run engine with a fault schedule --------------------------------------------------------


@pytest.mark.parametrize("text", [CLASSIC, TWO], ids=["classic", "two-on-a-channel"])
def test_engine_runs_over_every_fault_set_have_the_traces_of_the_sync_models(text):
    """Molly's way, one run per fault set (the local engine, Schedule.crashes and .omissions: channels), against
    the one fault-injected program under sync delivery (Molly's omissions, a channel at a time): the same traces.
    (With one message lost at a time the program of two messages on a channel has more.)"""
    from itertools import combinations

    from dedalus2asp.runs import engine
    from dedalus2asp.runs.schedule import Schedule

    program, instance = broadcast(text.replace("down(Y) :- crash(Y, S).\n", ""))
    horizon, loss_until, crashes = 2, 1, 1
    nodes = [str(x) for x in instance.network]
    channels = [(x, s, y) for x in nodes for y in nodes if x != y for s in range(loss_until)]
    data = engine.from_instance(restrict(instance, program), program)
    runs = set()
    for plan in crash_plans(tuple(nodes), crashes, horizon):
        for k in range(len(channels) + 1):
            for omitted in combinations(channels, k):
                run = engine.run(program, data, horizon + 1, Schedule(crashes=tuple(plan.items()), omissions=omitted))
                runs.add(frozenset(run.trace))
    models = asp_traces(program, instance, Bounds(horizon, network=Network("sync", loss_until=loss_until, crashes=crashes)))
    as_text = {frozenset((str(x), s, r, tuple(str(a) for a in args)) for x, s, r, args in trace) for trace in models}
    assert len(runs) > 1 and runs == as_text


# --- cron under a fault budget -------------------------------------------------------------------


def test_cron_under_faults(tmp_path):
    """Consistency under a fault budget: the one-shot broadcast's outputs (who logged the message, the
    location column kept) are the same in every run without faults, and differ once a message may be lost."""
    from dedalus2asp import pipeline
    from dedalus2asp.questions import cron

    (tmp_path / "bcast.ded").write_text(
        'member(a, b)@1; member(a, c)@1; broadcast(a, "hi")@1;\n'
        "member(N, M)@next :- member(N, M);\n"
        "deliver(M, P)@async :- broadcast(N, P), member(N, M);\n"
        "log(N, P) :- deliver(N, P);\nlog(N, P)@next :- log(N, P);\n"
    )
    program, instance, _ = pipeline.load(tmp_path / "bcast.ded", None, "molly")
    nodes = ("a", "b", "c")  # b and c hold no fact: the network names them (Molly's -N)
    healthy = cron.analyse(program, instance, Bounds(2, network=Network("sync", nodes=nodes)), ("log",))
    assert healthy.consistent and {str(f) for f in healthy.certain} == {'log(b, "hi")', 'log(c, "hi")'}
    lossy = cron.analyse(program, instance, Bounds(2, network=Network("sync", loss_until=1, nodes=nodes)), ("log",))
    assert lossy.consistent is False
    crashed = cron.analyse(program, instance, Bounds(2, network=Network("sync", crashes=1, nodes=nodes)), ("log",))
    assert crashed.consistent is False
    searched = cron.search(program, instance, Bounds(2, network=Network("sync", loss_until=1, nodes=nodes)), ("log",))
    assert searched.consistent is False


# --- replaying a run with lost messages (Theorem 4 (ii) and (i) with faults) -----------------------

REPLAYED = ["loss2-D1", "crash1-D1", "sync-crash1-loss1", "sync-message-any", "sync-fail-stop"]


@pytest.mark.parametrize("text", [ONE_SHOT, CLASSIC], ids=["one-shot", "classic"])
@pytest.mark.parametrize("budget", REPLAYED)
def test_every_fault_injected_trace_replays_to_its_model(text, budget):
    """Theorem 4 (ii) under faults: the run of a model (`run_of`) replays with the operational semantics to the
    model's trace and leaves exactly its pending messages in the buffers; a lost message enters no buffer (it
    was counted as buffered before); and the run written as constraints, its losses and crashes included, leaves
    exactly that model (Theorem 4 (i))."""
    from dedalus2asp.inspect import agrees, run_constraints, run_of

    program, instance = broadcast(text)
    compiled = transform(program, instance, Bounds(2, Semantics.CAUSAL_FINITE, network=BUDGETS[budget]))
    found = inspect.traces(compiled, timeout=120)
    assert found.complete
    faulty = [m for m in found.models if m.lost]
    assert faulty, "no model loses a message"
    if BUDGETS[budget].crashes:
        assert any(m.crashes for m in faulty)
    for model in found.models:
        run = run_of(model)
        replayed = run.replay(program, instance)
        assert agrees(model, replayed), f"model {model.number}: lost {model.lost}, crashes {model.crashes}"
    for model in faulty[:12]:
        run = run_of(model)
        lost = [m.buffered() for m in model.lost]
        text = run_constraints(compiled, program, instance, run.schedule(), dict(model.crashes), lost)
        constrained = inspect.enumerate_models(replace(compiled, text=compiled.text + text), 0, progress=False).models
        assert [m.trace for m in constrained] == [model.trace]
        assert constrained[0].lost == model.lost and constrained[0].crashes == model.crashes


def test_replay_of_a_verify_counterexample_with_a_lost_message(tmp_path):
    """The one-shot broadcast's counterexample loses a's message to a member: `replay` of a model with that loss
    said the traces differ ('pending in the model: 0, left in the buffers by the run: 1'); now it agrees, from the
    Python API and from the command line."""
    from dedalus2asp import pipeline
    from dedalus2asp.inspect import agrees, run_of
    from dedalus2asp.questions.verify import verify

    files = [EXAMPLES.parent / "examples/molly/simple_broadcast.ded", EXAMPLES.parent / "examples/molly/broadcast_assert.ded"]
    program, instance, _ = pipeline.load(files, None, "molly")
    bounds = Bounds(3, network=Network("sync", loss_until=1))
    verdict = verify(program, instance, bounds)
    assert verdict.holds is False and verdict.counterexample.lost
    model = verdict.counterexample.model
    replayed = run_of(model).replay(program, instance)
    assert agrees(model, replayed) and not replayed.pending
    done = subprocess.run(
        [sys.executable, "-m", "dedalus2asp", "replay", str(files[0]), "--horizon", "2", "--delivery", "sync",
         "--loss-until", "1", "--model", "1"],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "(lost)" in done.stdout and "replayed: the same trace" in done.stdout


def test_replay_rejects_a_loss_the_network_cannot_make():
    program, instance = broadcast(ONE_SHOT)
    a, b = clingo.Function("a"), clingo.Function("b")
    message = operational.Message(a, 0, b, ("bcast", (clingo.Function("hi"),)))
    steps = [(x, ()) for x in instance.network]
    with pytest.raises(ValueError, match="cannot lose it"):
        operational.replay(program, instance, steps, Network(loss_until=0), None, [message])
    with pytest.raises(ValueError, match="never sends it"):
        operational.replay(program, instance, steps, Network(loss_until=1), None, [message._replace(fact=("bcast", (b,)))])
    lossy = operational.replay(program, instance, steps, Network(loss_until=1), None, [message])
    assert message not in lossy.pending and len(lossy.pending) == 2  # to c, and a's own copy
    silenced = operational.replay(program, instance, steps, Network(crashes=1), {a: 0})
    assert {m.addressee for m in silenced.pending} == {a}


def test_the_text_of_a_run_names_its_lost_messages_and_crashes():
    from dedalus2asp import formats
    from dedalus2asp.inspect import run_of

    program, instance = broadcast(ONE_SHOT)
    compiled = transform(program, instance, Bounds(1, network=Network("sync", crashes=1)))
    models = inspect.enumerate_models(compiled, 0, progress=False).models
    crashed = next(m for m in models if m.crashes == ((clingo.Function("a"), 0),))
    text = formats.render(run_of(crashed), "text")
    assert "a:0 receives nothing\n       a crashes: from this step on its messages to other nodes are lost" in text
    assert text.count("(lost)") == 2 and 'sends bcast(hi) to b (lost)' in text


# --- Molly's fault model under sync, and the finer ones (issue #31) --------------------------------


def _at(trace, node: str, relation: str) -> bool:
    return any(str(x) == node and r == relation for x, _, r, _ in trace)


@pytest.mark.parametrize("encoding", list(Encoding), ids=lambda e: e.value)
def test_an_omission_cuts_a_channel_under_sync_and_one_message_when_asked(encoding):
    """Molly omits a channel at a time: two messages from a to b sent at one step are lost together. With
    `omission="message"` one may be lost and the other arrive. The explorer agrees with both (above)."""
    program, instance = broadcast(TWO)
    halves = {}
    for omission in ("channel", "message"):
        network = Network("sync", loss_until=1, omission=omission)
        traces = asp_traces(program, instance, Bounds(2, encoding=encoding, network=network))
        assert traces == run_traces(program, instance, Bounds(2, network=network))
        halves[omission] = [t for t in traces if _at(t, "b", "got1") != _at(t, "b", "got2")]
    assert Network("sync").omission == "channel" and Network().omission == "message"
    assert not halves["channel"] and halves["message"]


def test_molly_crash_candidates_only_senders_before_the_last_step():
    """Under sync a node crashes only at a step 0..T-1 at or after one at which it sent to another node (Molly's
    candidates, Z3Solver): in the one-shot broadcast only a sends (at step 0), so crash(b, _), crash(c, _) and a
    crash at step T never appear; with `crash_times="any"` they do."""
    program, instance = broadcast(ONE_SHOT)
    crashes = {}
    for times in ("after-send", "any"):
        bounds = Bounds(2, network=Network("sync", crashes=1, crash_times=times))
        traces = asp_traces(program, instance, bounds)
        assert traces == run_traces(program, instance, bounds)
        crashes[times] = {(str(args[0]), args[1].number) for t in traces for _, _, r, args in t if r == "crash"}
    assert crashes["after-send"] == {("a", 0), ("a", 1)}
    assert crashes["any"] == {(x, s) for x in "abc" for s in range(3)}


DECIDER = """
begin(c, a)@1;
agent(a)@1;
decided(C, A)@next :- begin(C, A);
decided(C, A)@next :- decided(C, A);
told(A, C)@async :- decided(C, A);
told(A, C)@next :- told(A, C);
"""
DECIDER_ASSERT = """
pre(A) :- decided(_, A);
post(A) :- told(A, _);
"""


@pytest.mark.parametrize("encoding", list(Encoding), ids=lambda e: e.value)
def test_a_crashed_node_keeps_its_state_under_clock_and_loses_it_under_fail_stop(tmp_path, encoding):
    """c decides at step 1 and tells a from then on. Under Molly's clock rules c, crashed at step 1, still holds
    `decided` at the last step while a was never told: a counterexample. Under fail-stop a node crashed at step 1
    holds nothing from then on, and one crashed later has told a already: the invariant holds."""
    (tmp_path / "decider.ded").write_text(DECIDER)
    (tmp_path / "assert.ded").write_text(DECIDER_ASSERT)
    base = ["verify", "decider.ded", "assert.ded", "--eot", "4", "--delivery", "sync", "--crashes", "1",
            "--encoding", encoding.value, "--json"]
    clock = _cli(*base, cwd=tmp_path)
    assert clock.returncode == 1, clock.stderr
    found = json.loads(clock.stdout)["counterexample"]
    assert found["crashes"] == [{"node": "c", "step": 1}] and found["faults"] == 1
    stopped = _cli(*base, "--crash-model", "fail-stop", cwd=tmp_path)
    assert stopped.returncode == 0, stopped.stderr
    assert json.loads(stopped.stdout)["bound"]["crash_model"] == "fail-stop"


def test_channel_omissions_count_one_fault_per_channel(tmp_path):
    """verify's fewest faults count a cut channel once, however many messages it carried."""
    (tmp_path / "two.ded").write_text('peer(a, b)@1; peer(b, a)@1;\nm1(B, "x")@async :- peer(A, B);\n'
                                      'm2(B, "y")@async :- peer(A, B);\ngot(N, X) :- m1(N, X);\ngot(N, X) :- m2(N, X);\n'
                                      'got(N, X)@next :- got(N, X);\n')
    (tmp_path / "assert.ded").write_text('pre(N) :- peer(N, _)@1;\npost(N) :- got(N, "y");\n')
    base = ["verify", "two.ded", "assert.ded", "--eot", "3", "--delivery", "sync", "--eff", "2", "--json"]
    done = _cli(*base, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    found = json.loads(done.stdout)["counterexample"]
    assert found["faults"] == 1 and len(found["lost"]) == 2  # both messages of one channel, one fault
    finer = json.loads(_cli(*base, "--omission", "message", cwd=tmp_path).stdout)["counterexample"]
    assert finer["faults"] == 1 and len(finer["lost"]) == 1  # m2 alone
    sets = json.loads(_cli(*base, "--crashes", "1", "--all", cwd=tmp_path).stdout)["minimal_fault_sets"]
    omitted = sorted(sorted((l["from"], l["to"], l["relation"]) for l in f["lost"]) for f in sets if f["lost"])
    assert omitted == [[("a", "b", "m1"), ("a", "b", "m2")], [("b", "a", "m1"), ("b", "a", "m2")]]
    assert sorted((c["node"], c["step"]) for f in sets for c in f["crashes"]) == [("a", 0), ("b", 0)]


def test_fault_model_options_are_checked(tmp_path):
    for option, value, words in [("--omission", "packet", "omission model"), ("--crash-times", "never", "crash times"),
                                 ("--crash-model", "byzantine", "crash model")]:
        done = _cli("verify", "x.ded", "--eot", "2", option, value, cwd=tmp_path)
        assert done.returncode == 2 and words in done.stderr and "Traceback" not in done.stderr


def test_a_message_to_a_crashed_node_arrives_under_clock_and_not_under_fail_stop():
    """b crashes at step 0; a's broadcast, sent at step 0, reaches b at step 1. Under Molly's clock rules b still
    receives and logs it (Molly keeps a crashed node's clock); under fail-stop b holds nothing from step 0 on but
    the run's crash facts. The explorer agrees in both."""
    program, instance = broadcast(ONE_SHOT)
    held = {}
    for model in ("clock", "fail-stop"):
        bounds = Bounds(2, network=Network("sync", crashes=1, crash_times="any", crash_model=model))
        traces = asp_traces(program, instance, bounds)
        assert traces == run_traces(program, instance, bounds)
        crashed_b = [t for t in traces if any(r == "crash" and str(a[0]) == "b" and a[1].number == 0 for _, _, r, a in t)]
        assert len(crashed_b) == 1
        held[model] = {r for x, s, r, _ in crashed_b[0] if str(x) == "b"}
    assert "got" in held["clock"] and held["fail-stop"] == {"crash"}  # no rule fires at b: not even down(Y)
