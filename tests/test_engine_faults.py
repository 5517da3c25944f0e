"""`run` with faults (issue #19, docs/faults.md): a run drawn from `--seed` within `--loss-until` and `--crashes`.

One run of the fault space, as Molly's fault injection computes one run per failure specification (Alvaro,
Rosen, Hellerstein, *Lineage-driven fault injection*, SIGMOD 2015): `Schedule.with_faults` draws the
crashes and the omitted channels from the seed, and every back end drops the same messages. Checked here:
the draw stays within its budget and depends on the seed only; under sync delivery the run is one of the
runs of the fault-injected program (its trace is the trace of a model, crash(y, s) facts included: Theorem 4
(i) with faults); and the Spark engine writes the local engine's tables (one Spark session for the module).
"""

from __future__ import annotations

import json

import pytest

from dedalus2asp import inspect
from dedalus2asp import pipeline
from dedalus2asp.asp.transform import transform
from dedalus2asp.bounds import Bounds, Network
from dedalus2asp.cli import app
from dedalus2asp.runs.schedule import Schedule

from typer.testing import CliRunner

from conftest import ROOT

MOLLY = ROOT / "examples" / "molly"

# a one-shot broadcast in Molly's dialect whose nodes read crash(Me, Node, Time): b and c note a's crash
SUSPECTING = """
member(a, b)@1; member(a, c)@1; member(b, a)@1; member(c, a)@1;
broadcast(a, "hi")@1;
member(N, M)@next :- member(N, M);
deliver(M, P)@async :- broadcast(N, P), member(N, M);
log(N, P) :- deliver(N, P);
log(N, P)@next :- log(N, P);
suspect(N, M) :- member(N, M), crash(N, M, _);
"""


def invoke(*args):
    """The command line in process; a traceback fails the test."""
    result = CliRunner().invoke(app, [str(a) for a in args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"uncaught {result.exception!r} for {args}") from result.exception
    return result


def nodes_file(tmp_path):
    path = tmp_path / "abc.facts"
    path.write_text("a { }\nb { }\nc { }\n")
    return path


def tables(out) -> dict[str, list[str]]:
    import pyarrow.parquet as pq

    return {name: sorted(map(str, pq.read_table(out / name).to_pylist())) for name in ("trace", "messages", "outputs")}


def test_the_faults_drawn_stay_within_the_budget_and_follow_the_seed():
    network, steps = ("a", "b", "c", "d"), 5
    drawn = [Schedule(seed=seed).with_faults(network, steps, loss_until=2, crashes=1) for seed in range(30)]
    assert all(len(s.crashes) <= 1 and all(t < steps for _, t in s.crashes) for s in drawn)
    assert all(x != y and t < 2 for s in drawn for x, t, y in s.omissions)
    assert any(s.crashes for s in drawn) and any(not s.crashes for s in drawn)
    assert len({s.omissions for s in drawn}) > 20  # the seed chooses
    assert drawn[7] == Schedule(seed=7).with_faults(list(reversed(network)), steps, loss_until=2, crashes=1)
    assert Schedule(seed=3).with_faults(network, steps) == Schedule(seed=3)  # no budget, no fault
    # a crashed sender's channels are not omitted as well: its messages are lost by the crash
    assert all(not (x == y and c <= t) for s in drawn for (y, c) in s.crashes for x, t, _ in s.omissions)


def test_a_sync_run_with_faults_is_a_run_of_the_fault_injected_program(tmp_path):
    """The local engine's run under the drawn faults has the trace of a model of the sync fault-injected program
    (the crash facts of the run included), and a crash or an omission changes it."""
    program_file = tmp_path / "suspecting.ded"
    program_file.write_text(SUSPECTING)
    program, instance, _ = pipeline.load(program_file, None, "molly")
    # the engine omits channels (Molly's omissions, the sync default) and draws a crash at any step (a failure
    # specification of Molly's may name any; only its search keeps to the crash candidates of after-send)
    network = Network("sync", loss_until=2, crashes=1, crash_times="any")
    found = inspect.traces(transform(program, instance, Bounds(3, network=network)))
    assert found.complete
    models = {frozenset((str(x), s, r, tuple(map(str, a))) for x, s, r, a in m.trace) for m in found.models}
    traces = set()
    for seed in range(6):
        result = invoke("run", program_file, "-i", nodes_file(tmp_path), "-k", 4, "--loss-until", 2, "--crashes", 1,
                        "--seed", seed, "-o", tmp_path / f"s{seed}")
        assert result.exit_code == 0, result.stderr
        info = json.loads((tmp_path / f"s{seed}" / "run.json").read_text())
        faults = info["faults"]
        assert faults["loss_until"] == 2 and faults["max_crashes"] == 1
        assert f"faults drawn by seed {seed}" in result.stdout
        rows = {(r[0], r[1], r[2], tuple(r[3])) for r in (tuple(d.values()) for d in _rows(tmp_path / f"s{seed}" / "trace"))}
        assert rows in models, f"seed {seed}: not the trace of a model ({faults})"
        crashed = {x for x, _ in faults["crashes"]}
        assert {a[0] for (_, _, r, a) in rows if r == "suspect"} <= crashed  # suspect(M) names a crashed node
        assert bool(crashed) == any(r == "crash" for (_, _, r, _) in rows)
        traces.add(frozenset(rows))
    assert len(traces) > 1


def _rows(directory):
    import pyarrow.parquet as pq

    return pq.read_table(directory).to_pylist()


def test_a_bad_fault_budget_is_a_usage_error(tmp_path):
    program = MOLLY / "simple_broadcast.ded"
    result = invoke("run", program, "-i", nodes_file(tmp_path), "-k", 3, "--loss-until", 2, "--eff", 3, "-o", tmp_path / "o")
    assert result.exit_code == 2 and "--eff F is --loss-until F-1" in result.stderr
    result = invoke("run", program, "-i", nodes_file(tmp_path), "-k", 3, "--crashes", -1, "-o", tmp_path / "o")
    assert result.exit_code == 2


@pytest.mark.parametrize("protocol, network", [
    ("two_phase_commit", Network("sync", crashes=1)),
    ("classic_broadcast", Network("sync", loss_until=2)),
    ("retry_broadcast", Network("sync", loss_until=1, crashes=1)),
], ids=["2pc-crash", "classic-omissions", "retry-both"])
def test_run_computes_a_verify_counterexample_from_its_failure_specification(protocol, network, tmp_path):
    """Molly's way round: the faults of verify's counterexample, given to `run` as --crash NODE@STEP and --omit
    SENDER@STEP:ADDRESSEE (omissions only, a crashed sender's messages are lost by its crash), give the
    counterexample's trace under sync delivery, the global pre/post facts of the invariant included."""
    from dedalus2asp.questions.verify import verify

    invariant = "commit_assert" if protocol.startswith("two_phase") else "broadcast_assert"
    files = [MOLLY / f"{protocol}.ded", MOLLY / f"{invariant}.ded"]
    program, instance, _ = pipeline.load(files, None, "molly")
    verdict = verify(program, instance, Bounds(5, network=network))
    assert verdict.holds is False
    counterexample = verdict.counterexample
    options = [f"--crash={c.node}@{c.step}" for c in counterexample.crashes]
    options += [f"--omit={l.sender}@{l.sent}:{l.addressee}" for l in counterexample.lost if not l.by_crash]
    result = invoke("run", *files, "-i", nodes_file(tmp_path), "-k", 6, *options, "-o", tmp_path / "run")
    assert result.exit_code == 0, result.stderr
    assert "faults given" in result.stdout
    rows = {(r["node"], r["step"], r["relation"], tuple(r["args"])) for r in _rows(tmp_path / "run" / "trace")}
    expected = {(str(x), s, r, tuple(map(str, a))) for x, s, r, a in counterexample.model.trace}
    assert rows == expected


def test_a_fail_stop_run_is_the_fail_stop_counterexample_of_verify(tmp_path):
    """--crash-model fail-stop (docs/faults.md): from its crash step on a node holds, receives, derives and sends
    nothing, as `not _silenced(x, s)` has it in the fault-injected program. 2PC whose coordinator c crashes: the
    run of verify's fail-stop counterexample (its crash given as --crash) is its trace, pre/post included; under
    Molly's clock rules the same crash leaves c deducing, and its trace differs."""
    from dedalus2asp.questions.verify import verify

    files = [MOLLY / "two_phase_commit.ded", MOLLY / "commit_assert.ded"]
    program, instance, _ = pipeline.load(files, None, "molly")
    verdict = verify(program, instance, Bounds(5, network=Network("sync", crashes=1, crash_model="fail-stop")))
    assert verdict.holds is False and verdict.counterexample.crashes
    [crash] = verdict.counterexample.crashes
    expected = {(str(x), s, r, tuple(map(str, a))) for x, s, r, a in verdict.counterexample.model.trace}
    runs = {}
    for model in ("fail-stop", "clock"):
        result = invoke("run", *files, "-i", nodes_file(tmp_path), "-k", 6, f"--crash={crash.node}@{crash.step}",
                        "--crash-model", model, "-o", tmp_path / model)
        assert result.exit_code == 0, result.stderr
        runs[model] = {(r["node"], r["step"], r["relation"], tuple(r["args"])) for r in _rows(tmp_path / model / "trace")}
    assert runs["fail-stop"] == expected
    assert not {row for row in runs["fail-stop"] if row[0] == str(crash.node) and row[1] >= crash.step}
    assert {row for row in runs["clock"] if row[0] == str(crash.node) and row[1] >= crash.step}
    info = json.loads((tmp_path / "fail-stop" / "run.json").read_text())
    assert info["faults"]["crash_model"] == "fail-stop"


def test_a_bare_node_name_of_a_failure_specification_is_mollys_string(tmp_path):
    """Molly's nodes are strings ("C"); --crash C@1 names "C", as --nodes C does (a quoted name is itself)."""
    program = tmp_path / "p.ded"
    program.write_text('peer("C", "a")@1; peer(N, M)@next :- peer(N, M);\nhi(M, N)@async :- peer(N, M);\n'
                       'got(N, M) :- hi(N, M);\ngot(N, M)@next :- got(N, M);\n')
    traces = []
    for name in ("C", '"C"'):
        out = tmp_path / f"o{len(traces)}"
        result = invoke("run", program, "-k", 3, f"--crash={name}@0", "--crash-model", "fail-stop", "-o", out)
        assert result.exit_code == 0, result.stderr
        assert json.loads((out / "run.json").read_text())["faults"]["crashes"] == [['"C"', 0]]
        traces.append(sorted(map(str, _rows(out / "trace"))))
    assert traces[0] == traces[1] and not any("got" in row for row in traces[0])  # C sent nothing: a got nothing


def test_a_fail_stop_run_with_drawn_faults_is_a_run_of_the_fail_stop_program(tmp_path):
    """Faults drawn by the seed, under fail-stop: each run's trace is the trace of a model of the fail-stop
    fault-injected program (a crashed node holds only the crash facts; what arrives there is not received)."""
    program_file = tmp_path / "suspecting.ded"
    program_file.write_text(SUSPECTING)
    program, instance, _ = pipeline.load(program_file, None, "molly")
    network = Network("sync", loss_until=2, crashes=1, crash_times="any", crash_model="fail-stop")
    found = inspect.traces(transform(program, instance, Bounds(3, network=network)))
    assert found.complete
    models = {frozenset((str(x), s, r, tuple(map(str, a))) for x, s, r, a in m.trace) for m in found.models}
    crashed_runs = 0
    for seed in range(6):
        out = tmp_path / f"s{seed}"
        result = invoke("run", program_file, "-i", nodes_file(tmp_path), "-k", 4, "--loss-until", 2, "--crashes", 1,
                        "--crash-model", "fail-stop", "--seed", seed, "-o", out)
        assert result.exit_code == 0, result.stderr
        rows = {(r["node"], r["step"], r["relation"], tuple(r["args"])) for r in _rows(out / "trace")}
        assert rows in models, f"seed {seed}: not the trace of a model of the fail-stop program"
        for x, s in json.loads((out / "run.json").read_text())["faults"]["crashes"]:
            crashed_runs += 1
            assert {r for (y, t, r, _) in rows if y == x and t >= s} <= {"crash"}
    assert crashed_runs


@pytest.mark.parametrize("options, message", [
    (["--crash", "a"], "write NODE@STEP"),
    (["--crash", "z@1"], "'z' is not a node of the network"),
    (["--crash", "a@1", "--crash", "a@2"], "a node crashes at most once"),
    (["--omit", "a@0-b"], "write SENDER@STEP:ADDRESSEE"),
    (["--omit", "a@0:a"], "never lost"),
    (["--omit", "a@0:b", "--crashes", "1"], "give one or the other"),
])
def test_a_bad_failure_specification_is_a_usage_error(options, message, tmp_path):
    result = invoke("run", MOLLY / "simple_broadcast.ded", "-i", nodes_file(tmp_path), "-k", 3, *options, "-o", tmp_path / "o")
    assert result.exit_code == 2 and message in result.stderr, result.stderr
    assert "Traceback" not in result.stdout + result.stderr


def test_run_on_spark_with_faults_writes_the_local_tables(spark, tmp_path):
    """`run --engine spark` under drawn crashes and omissions writes the tables of `--engine local`: a program that
    reads crash (sync schedule; seed 2 crashes a at step 1 after its broadcast got out, and omits channels of b and
    c), and the classic broadcast (random schedule, delay <= 2; seed 4 crashes c at step 1 and omits a's copy to c at
    step 0); and the first under fail-stop crashes (a holds and does nothing from step 1 on). Three small runs: a Spark run of a few rules takes tens of seconds on a loaded machine. The command's
    Spark session is the module's one (`getOrCreate`)."""
    suspecting = tmp_path / "suspecting.ded"
    suspecting.write_text(SUSPECTING)
    cases = [
        (suspecting, ["--seed", 2], {"crashes": [["a", 1]]}),
        (MOLLY / "classic_broadcast.ded", ["--seed", 4, "--schedule", "random", "-D", 2], {"crashes": [["c", 1]]}),
        (suspecting, ["--seed", 2, "--crash-model", "fail-stop"], {"crashes": [["a", 1]]}),
    ]
    for number, (program, options, expected) in enumerate(cases):
        results = {}
        for engine in ("local", "spark"):
            out = tmp_path / f"{number}-{engine}"
            result = invoke("run", program, "-i", nodes_file(tmp_path), "-k", 3, "--loss-until", 2, "--crashes", 1,
                            *options, "--engine", engine, "-o", out, "--quiet")
            assert result.exit_code == 0, result.stderr
            results[engine] = tables(out)
            faults = json.loads((out / "run.json").read_text())["faults"]
            assert faults["crashes"] == expected["crashes"] and faults["omissions"]
        assert results["spark"] == results["local"], f"case {number}: {faults}"
        assert results["local"]["trace"]
    assert any("'suspect'" in row for row in tables(tmp_path / "0-spark")["trace"])
