"""`verify --search-horizon` as one multi-shot program (dedalus2asp/questions/verify_search.py): the same smallest horizon
and the same fewest faults as one program per horizon, on the Molly library protocols (Alvaro, Rosen,
Hellerstein, *Lineage-driven fault injection*, SIGMOD 2015, §5) under sync and async delivery, with
omissions and crashes; a program that reads crash(y, s) gets its crash plan chosen up front; the
counterexample found is a run of the local engine with the same faults (an independent oracle)."""

from __future__ import annotations

import time
from dataclasses import replace

import pytest

from conftest import HELD, VACUOUS
from dedalus2asp import inspect, pipeline
from dedalus2asp.bounds import Bounds, Network, Semantics
from dedalus2asp.lang.ast import GLOBAL_NODE
from dedalus2asp.questions.verify import verify
from dedalus2asp.questions.verify_search import MULTI_SHOT, PER_HORIZON, search

MOLLY = "examples/molly/"
LIBRARY = [
    ("simple_broadcast.ded", "broadcast_assert.ded"),
    ("retry_broadcast.ded", "broadcast_assert.ded"),
    ("ack_broadcast.ded", "broadcast_assert.ded"),
    ("classic_broadcast.ded", "broadcast_assert.ded"),
    ("two_phase_commit.ded", "commit_assert.ded"),
    ("two_phase_commit_timeout.ded", "commit_assert.ded"),
]
NETWORKS = {
    "sync-loss2": Network("sync", loss_until=2),
    "sync-crash1": Network("sync", crashes=1),
    "sync-loss2-crash1": Network("sync", loss_until=2, crashes=1),
    "D1-loss1": Network(max_delay=1, loss_until=1),
    "D1-crash1": Network(max_delay=1, crashes=1),
}


def answer(verdict) -> tuple:
    """What both ways must agree on: the verdict, the horizons tried, the fewest faults, completeness."""
    found = verdict.counterexample
    return verdict.holds, verdict.searched, None if found is None else found.faults, verdict.complete


def both(program, instance, bounds, **options):
    multi = search(program, instance, bounds, **options)
    assert multi.search == MULTI_SHOT
    each = search(program, instance, bounds, multi_shot=False, **options)
    assert each.search.startswith(PER_HORIZON)
    return multi, each


@pytest.mark.parametrize("network", NETWORKS.values(), ids=NETWORKS.keys())
@pytest.mark.parametrize("files", LIBRARY, ids=[p for p, _ in LIBRARY])
def test_library_multi_shot_equals_one_program_per_horizon(files, network):
    program, instance, _ = pipeline.load([MOLLY + f for f in files], None, "molly")
    multi, each = both(program, instance, Bounds(4, network=network))
    assert answer(multi) == answer(each)
    assert multi.bounds.horizon == multi.searched[-1]


# a broadcast whose invariant asks nothing before the sender's clock reaches 3: the search goes past
# the first horizons, and breaks only where the faults can keep a member without the message
CLOCKED = """
member(a, b)@1; member(a, c)@1; broadcast(a, "hello")@1; clock(a, 0)@1; clock(b, 0)@1; clock(c, 0)@1;
clock(N, T + 1)@next :- clock(N, T);
member(N, M)@next :- member(N, M);
sending(N, P) :- broadcast(N, P);
sending(N, P)@next :- sending(N, P);
deliver(M, P)@async :- sending(N, P), member(N, M);
log(N, P) :- deliver(N, P);
log(N, P)@next :- log(N, P);
pre(M, P) :- broadcast(S, P)@1, member(S, M), clock(S, T), T >= 3;
post(M, P) :- broadcast(S, P)@1, member(S, M), log(M, P);
"""

# classic reliable broadcast's agreement, which reads crash: only members that are up, from step 2 on
AGREEMENT = """
member(a, b)@1; member(a, c)@1; member(b, a)@1; member(b, c)@1; member(c, a)@1; member(c, b)@1;
broadcast(a, "hello")@1; clock(a, 0)@1; clock(b, 0)@1; clock(c, 0)@1;
clock(N, T + 1)@next :- clock(N, T);
member(N, M)@next :- member(N, M);
deliver(M, P)@async :- broadcast(N, P), member(N, M);
deliver(M, P)@async :- deliver(N, P), member(N, M);
log(N, P) :- broadcast(N, P);
log(N, P) :- deliver(N, P);
log(N, P)@next :- log(N, P);
pre(M, P) :- log(N, P), member(N, M), clock(N, T), T >= 2, notin crash(N, N, _), notin crash(M, M, _);
post(M, P) :- log(M, P);
"""


def molly(tmp_path, text: str):
    (tmp_path / "p.ded").write_text(text)
    program, instance, _ = pipeline.load(tmp_path / "p.ded", None, "molly")
    return program, instance


@pytest.mark.parametrize("network, horizon, faults", [
    (Network("sync", loss_until=3), 3, 3),  # a's copies to c sent at steps 0, 1 and 2 lost
    (Network("sync", crashes=1), 3, 1),  # a crashes at step 0
    (Network(max_delay=1, crashes=1, loss_until=1), 3, 1),
    (Network(max_delay=1, loss_until=2), None, None),  # the copy sent at step 2 arrives by step 3: holds
])
def test_a_search_past_the_first_horizons(tmp_path, network, horizon, faults):
    program, instance = molly(tmp_path, CLOCKED)
    multi, each = both(program, instance, Bounds(5, network=network))
    assert answer(multi) == answer(each)
    if horizon is None:
        assert multi.holds and multi.searched == (0, 1, 2, 3, 4, 5)
    else:
        assert multi.searched == tuple(range(horizon + 1)) and multi.counterexample.faults == faults
        assert multi.counterexample.fewest and multi.bounds.horizon == horizon


def test_a_program_that_reads_crash_gets_its_crash_plan_up_front(tmp_path):
    """The multi-shot program chooses crashes step by step, unless the program reads crash(y, s): then in base,
    kept to the steps <= h at horizon h; the answers are those of one program per horizon."""
    program, instance = molly(tmp_path, AGREEMENT)
    for network in (Network("sync", crashes=2), Network("sync", crashes=1, loss_until=4), Network(max_delay=1, crashes=1)):
        multi, each = both(program, instance, Bounds(4, network=network))
        assert answer(multi) == answer(each), network
    holds, _ = both(program, instance, Bounds(4, network=Network("sync", crashes=2)))
    assert holds.holds and holds.searched == (0, 1, 2, 3, 4)  # classic broadcast survives crash-stop failures


def test_the_counterexample_is_a_run_of_the_engine_with_its_faults(tmp_path):
    """Under sync a run is fixed by its faults: the local engine (an independent oracle) with the multi-shot
    counterexample's omissions and crashes computes its trace, and the invariant breaks in it at the horizon."""
    from dedalus2asp.lang.analysis import restrict
    from dedalus2asp.runs import engine
    from dedalus2asp.runs.schedule import Schedule

    program, instance = molly(tmp_path, CLOCKED)
    for network in (Network("sync", loss_until=3), Network("sync", crashes=1), Network("sync", crashes=1, loss_until=2)):
        verdict = search(program, instance, Bounds(5, network=network))
        found, horizon = verdict.counterexample, verdict.bounds.horizon
        schedule = Schedule(crashes=tuple((str(c.node), c.step) for c in found.crashes),
                            omissions=tuple((str(l.sender), l.sent, str(l.addressee)) for l in found.lost if not l.by_crash))
        run = engine.run(program, engine.from_instance(restrict(instance, program), program), horizon + 1, schedule)
        model = {(str(x), s, r, tuple(map(str, a))) for x, s, r, a in found.model.trace}
        assert {(str(x), s, r, tuple(map(str, a))) for x, s, r, a in run.trace} == model
        last = {(r, a) for x, s, r, a in found.model.trace if x == GLOBAL_NODE and s == horizon}
        assert {("pre", m.args) for m in found.missing} <= last and not any(("post", m.args) in last for m in found.missing)
        # what the one-shot program calls arrived and pending: under sync, at the next step, or sent at the horizon
        document = found.as_dict()
        assert all(m["arrives"] == m["sent"] + 1 for m in document["messages"])
        assert all(m["sent"] == horizon for m in document["pending"])
        # a's copies to b arrive and its last sends are pending, unless a crashed (all of them lost)
        assert bool(document["messages"]) is bool(document["pending"]) is not bool(found.crashes)


def test_choice_semantics_searches_one_program_per_horizon_and_says_so(tmp_path):
    program, instance = molly(tmp_path, CLOCKED)
    verdict = search(program, instance, Bounds(4, Semantics.CHOICE, network=Network("sync", loss_until=3)))
    assert verdict.search.startswith(PER_HORIZON) and "causal semantics only" in verdict.search
    assert "searched: one program per horizon" in verdict.describe()
    assert verdict.as_dict()["bound"]["search"] == verdict.search


def test_all_lists_the_minimal_fault_sets_at_the_horizon_found(tmp_path):
    program, instance = molly(tmp_path, CLOCKED)
    bounds = Bounds(5, network=Network("sync", crashes=1, loss_until=1))
    verdict = search(program, instance, bounds, all_=True)
    at = verify(program, instance, verdict.bounds, all_=True)
    assert verdict.fault_sets == at.fault_sets and verdict.fault_sets
    assert verdict.counterexample.faults == min(len(f.omissions) + len(f.crashes) for f in verdict.fault_sets)


def test_the_timeout_stops_the_search(tmp_path):
    program, instance = molly(tmp_path, CLOCKED)
    verdict = search(program, instance, Bounds(5, network=Network("sync", loss_until=3)), timeout=0.0)
    # each horizon's solve gets no time: a horizon may still be decided at once, by propagation, but not
    # horizon 3's optimisation (find a counterexample, then prove no other has fewer faults). Whether the
    # solver met a first counterexample before it was stopped, or even proved it the fewest (about 1 in
    # 100 here), is a matter of microseconds: the verdict is unknown, or has a counterexample not proven
    # to have the fewest faults, or is the untimed one
    assert verdict.holds is not True and verdict.searched[-1] == verdict.bounds.horizon <= 3
    if verdict.complete:
        whole = search(program, instance, Bounds(5, network=Network("sync", loss_until=3)))
        assert (verdict.holds, verdict.bounds.horizon, verdict.counterexample.faults) == (
            whole.holds, whole.bounds.horizon, whole.counterexample.faults)
    elif verdict.holds is None:
        assert verdict.counterexample is None and verdict.describe().startswith("unknown: stopped before an answer")
    else:
        assert not verdict.counterexample.fewest and "(not proven to be the fewest: stopped)" in verdict.describe()


# --- verify's resource limits, as solve's and count's (asp.budget, asp.solve.isolated) ---------------


def cli(*args: str):
    """The command line in this process; an exception other than an exit fails the test."""
    from typer.testing import CliRunner

    from dedalus2asp.cli import app

    result = CliRunner().invoke(app, ["verify", *args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def blow_up(tmp_path, facts: int) -> list[str]:
    """p(A,B,C,D) :- r(A), r(B), r(C), r(D). over `facts` facts of r (facts^4 instances a step), with pre and post."""
    (tmp_path / "blow.ded").write_text("p(A,B,C,D) :- r(A), r(B), r(C), r(D).\npre(A) :- r(A).\npost(A) :- r(A).\n")
    (tmp_path / "blow.facts").write_text("a { " + " ".join(f"r({i})." for i in range(facts)) + " }\n")
    return [str(tmp_path / "blow.ded"), "--input", str(tmp_path / "blow.facts"), "-T", "1"]


@pytest.mark.parametrize("search_horizon", [[], ["--search-horizon"]], ids=["verify", "search"])
def test_the_grounding_budget_refuses_a_blow_up_with_the_rule_to_blame(tmp_path, search_horizon):
    start = time.process_time()  # CPU time: the machine may be loaded
    result = cli(*blow_up(tmp_path, 40), *search_horizon)
    assert time.process_time() - start < 1.0
    assert result.exit_code == 2 and result.stdout == "" and "Traceback" not in result.stderr
    first = result.stderr.splitlines()[0]
    assert first.startswith(f"{tmp_path / 'blow.ded'}:1:1: error: the ground program would have about ")
    assert "2,560,000 valuation(s) of its body" in first and "--max-ground" in first
    small = cli(*blow_up(tmp_path, 2), "--max-ground", "10")
    assert small.exit_code == 2 and "above the budget of 10 (--max-ground N; 0: no limit)" in small.stderr
    assert cli(*blow_up(tmp_path, 2), "--max-ground", "0").exit_code == 0


@pytest.mark.parametrize("search_horizon", [[], ["--search-horizon"]], ids=["verify", "search"])
def test_the_timeout_covers_grounding(tmp_path, search_horizon):
    start = time.perf_counter()
    result = cli(*blow_up(tmp_path, 40), "--max-ground", "0", "--timeout", "1", *search_horizon)
    assert time.perf_counter() - start < 1 + 10  # the grace of asp.solve.isolated, and a loaded machine
    assert result.exit_code == 3 and result.stdout == "", result.stderr
    assert result.stderr.startswith("timeout: stopped after 1 s, before an answer: clingo was still grounding")


def test_max_memory_turns_running_out_of_memory_into_exit_3(tmp_path):
    result = cli(*blow_up(tmp_path, 40), "--max-ground", "0", "--max-memory", "256M")
    assert result.exit_code == 3 and result.stdout == "", result.stderr
    assert result.stderr.startswith("out of memory: the solver needed more than --max-memory 256M")


@pytest.mark.parametrize("options", [["--all"], ["--search-horizon"]], ids=["all", "search"])
def test_the_answer_is_the_same_in_the_solvers_process(tmp_path, options):
    import json
    from pathlib import Path

    import jsonschema

    (tmp_path / "p.ded").write_text(CLOCKED)
    (tmp_path / "out").mkdir()
    args = [str(tmp_path / "p.ded"), "-T", "4", "--delivery", "sync", "--crashes", "1", "--loss-until", "1", "--json", *options]
    plain = cli(*args)
    bounded = cli(*args, "--timeout", "60", "--max-memory", "2G", "--out", str(tmp_path / "out"))
    strip = lambda out: {k: v for k, v in json.loads(out).items() if k != "seconds"}  # noqa: E731
    assert plain.exit_code == bounded.exit_code == 1 and strip(plain.stdout) == strip(bounded.stdout)
    runs = json.loads((tmp_path / "out" / "runs.json").read_text())
    jsonschema.validate(runs, json.loads((Path(__file__).resolve().parent.parent / "docs" / "runs-schema.json").read_text()))
    assert runs["bound"].get("search") == ("multi-shot" if "--search-horizon" in options else None)
    assert [r["status"] for r in runs["runs"]][0] == "success"  # the failure-free run, at the verdict's horizon
    assert runs["runs"][0]["failureSpec"]["eot"] == json.loads(plain.stdout)["bound"]["horizon"] + 1


CRASH_READING = """
member(a). member(b). member(c).
a { start(hi)@0. }
b { }
c { }
"""


@pytest.mark.parametrize("network", [Network("sync", crashes=1), Network(max_delay=1, crashes=1, loss_until=1)],
                         ids=["sync-crash1", "D1-crash1-loss1"])
def test_the_crash_plan_up_front_has_the_one_shot_traces_at_every_horizon(network):
    """incremental(crash_plan=True): the crash plan chosen in base, at steps 0..T; the models of horizon h kept to
    crashes at steps <= h have the traces of the one-shot program of horizon h (crash(y, s) included)."""
    import clingo

    from dedalus2asp.asp.incremental import Unrolling, incremental
    from dedalus2asp.asp.transform import transform
    from dedalus2asp.inspect.model import decode
    from dedalus2asp.lang.facts import parse_facts
    from dedalus2asp.lang.parser import parse_program

    program = parse_program(
        "bcast(M)@async(Y) :- start(M), member(Y).\nbcast(M)@async(Y) :- bcast(M), member(Y).\n"
        "got(M) :- bcast(M).\ngot(M)@next :- got(M).\ndown(Y) :- crash(Y, S).\n", "classic.ded")
    instance = parse_facts(CRASH_READING, "members.facts")
    with pytest.raises(ValueError, match="crash"):
        incremental(program, instance, Semantics.CAUSAL_FINITE, network, horizon=2)
    inc = incremental(program, instance, Semantics.CAUSAL_FINITE, network, horizon=2, crash_plan=True)
    unrolling = Unrolling(inc, ["0"], project=True)  # one model per trace
    unrolling.control.add("keep", ["h"], "#external _keep(h).\n:- _keep(h), _crashed(Y,S), S > h.\n")
    for horizon in range(3):
        unrolling.extend(horizon)
        keep = clingo.Function("_keep", [clingo.Number(horizon)])
        unrolling.control.ground([("keep", [clingo.Number(horizon)])])
        unrolling.control.assign_external(keep, True)
        compiled = transform(program, instance, Bounds(horizon, network=network))
        found: set = set()
        unrolling.control.solve(on_model=lambda m: found.add(decode(m.symbols(atoms=True), compiled).trace))
        unrolling.control.release_external(keep)
        expected = {m.trace for m in inspect.traces(compiled).models}
        if horizon or not network.after_send:  # Molly's crash candidates: none at the last step, so none at horizon 0
            assert any(r == "crash" for trace in expected for _, _, r, _ in trace)
        assert found == expected, horizon


EVENT = """
member(a, b)@1; broadcast(a, "x")@4;
member(N, M)@next :- member(N, M);
deliver(M, P)@async :- broadcast(N, P), member(N, M);
log(N, P) :- deliver(N, P);
log(N, P)@next :- log(N, P);
pre(M, P) :- broadcast(S, P)@4, member(S, M);
post(M, P) :- log(M, P);
"""


@pytest.mark.parametrize("limits", [[], ["--timeout", "30"]], ids=["in-process", "isolated"])
def test_an_event_beyond_the_horizon_is_a_diagnostic(tmp_path, limits):
    """The one-shot program refuses an input event beyond its horizon: exit 2 at the event, also from the solver's
    own process (a diagnostic survives pickling); the search, which grows the horizon, reaches the event."""
    (tmp_path / "ev.ded").write_text(EVENT)
    result = cli(str(tmp_path / "ev.ded"), "-T", "1", "--delivery", "sync", *limits)
    assert result.exit_code == 2 and result.stdout == "" and "Traceback" not in result.stderr
    # the text begins with a new line (after the warning that b, an addressee, is no node)
    assert f"\n{tmp_path / 'ev.ded'}:2:17: error: the event" in "\n" + result.stderr
    searched = cli(str(tmp_path / "ev.ded"), "-T", "5", "--delivery", "sync", "--search-horizon", "--json", *limits)
    assert searched.exit_code == 1, searched.stderr
    import json

    assert json.loads(searched.stdout)["bound"]["searched"] == [0, 1, 2, 3]  # pre at step 3 needs a step 4 to arrive
    beyond = cli(str(tmp_path / "ev.ded"), "-T", "2", "--delivery", "sync", "--search-horizon", *limits)
    assert beyond.exit_code == 2 and f"\n{tmp_path / 'ev.ded'}:2:17: error: the event" in "\n" + beyond.stderr


def test_cron_says_the_same_of_an_event_beyond_the_horizon(tmp_path):
    """cron solves in its own process too: the diagnostic comes back from it (it was an internal error, exit 70)."""
    from typer.testing import CliRunner

    from dedalus2asp.cli import app

    (tmp_path / "ev.ded").write_text(EVENT)
    result = CliRunner().invoke(app, ["cron", str(tmp_path / "ev.ded"), "-T", "1", "--output-relations", "log"])
    assert result.exit_code == 2 and result.stderr.startswith(f"{tmp_path / 'ev.ded'}:2:17: error: the event")


def test_the_fallback_per_horizon_starts_at_the_last_event(tmp_path):
    program, instance = molly(tmp_path, EVENT)
    bounds = Bounds(5, Semantics.CHOICE, network=Network("sync"))
    verdict = search(program, instance, bounds)
    assert verdict.searched == (3,) and "from horizon 3" in verdict.search and verdict.holds is False
    assert search(program, instance, replace(bounds, semantics=Semantics.CAUSAL_FINITE)).searched == (0, 1, 2, 3)


def test_the_nodes_of_the_network_join_the_multi_shot_program(tmp_path):
    """--nodes b,c (Molly's -N): nodes with no input fact are nodes of the multi-shot program too (it ignored them)."""
    program, instance = molly(tmp_path, CLOCKED.replace(" clock(b, 0)@1; clock(c, 0)@1;", ""))
    answers = {}
    for nodes in ((), ("b", "c")):
        multi, each = both(program, instance, Bounds(5, network=Network("sync", loss_until=3, nodes=nodes)))
        assert answer(multi) == answer(each)
        answers[nodes] = answer(multi)
    assert answers[()] == (False, (0, 1, 2, 3), 0, True)  # b and c are no nodes: nothing reaches them
    assert answers[("b", "c")] == (False, (0, 1, 2, 3), 3, True)  # as in CLOCKED, where b and c hold facts


# VACUOUS and HELD (conftest); pre and post at step 0 only, peer not kept (EARLY): matched at horizon 0, no pre row at
# the largest horizon
EARLY = HELD.replace("peer(A, B)@next :- peer(A, B);\n", "")


@pytest.mark.parametrize("network", [Network("sync", crashes=1, loss_until=2, nodes=("b",)),
                                     Network(max_delay=1, crashes=1, nodes=("b",))], ids=["sync", "async"])
@pytest.mark.parametrize("text, vacuous", [(VACUOUS, True), (HELD, False), (EARLY, True)], ids=["vacuous", "held", "early"])
def test_a_search_says_when_it_holds_vacuously_at_the_largest_horizon(tmp_path, network, text, vacuous):
    program, instance = molly(tmp_path, text)
    multi, each = both(program, instance, Bounds(3, network=network))
    at_t = verify(program, instance, Bounds(3, network=network))
    assert multi.holds and each.holds and multi.searched == (0, 1, 2, 3)
    assert multi.vacuous is each.vacuous is at_t.vacuous is vacuous  # vacuous: as verify at T says
    assert multi.as_dict()["vacuous"] is vacuous
    said = multi.describe()
    assert said.startswith("holds vacuously: no run at horizon 3 has a pre fact" if vacuous else "holds: every pre fact"), said

