"""Batch jobs under faults (issue #19): `task = "verify"`, the network keys, `eot` and `eff`.

A verify job answers what `dedalus2asp verify` answers (Alvaro, Rosen, Hellerstein, *Lineage-driven
fault injection*, SIGMOD 2015, §3: every pre row has its post row at the last step); a count job
with fault keys counts what `count` counts with the same options; every new key is checked like
the others, each problem at its `file:line:col` before anything runs.
"""

from __future__ import annotations

import io
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from rich.console import Console

from conftest import HELD, ROOT, VACUOUS
from dedalus2asp import batch, pipeline
from dedalus2asp.batch import execute, invariants, report
from dedalus2asp.bounds import Bounds, Network
from dedalus2asp.cli import app
from dedalus2asp.lang.diagnostics import DiagnosticError
from dedalus2asp.runs import engine
from dedalus2asp.questions.verdict import Verdict
from dedalus2asp.questions.verify import verify
from test_batch import job, manifest, runner, test_bad_manifests_are_user_errors_at_their_keys

SIMPLE = ["examples/molly/simple_broadcast.ded", "examples/molly/broadcast_assert.ded"]
RETRY = ["examples/molly/retry_broadcast.ded", "examples/molly/broadcast_assert.ded"]
HEAD = f"[[job]]\nprogram = {json.dumps(SIMPLE)}\ntask = 'verify'\n"  # lines 2-4 (line 1: root)
COUNT = "[[job]]\nprogram = 'examples/jcss2014/alg3.ded'\ninput = 'examples/jcss2014/alg3.facts'\ntask = 'run'\n"


@pytest.mark.parametrize(
    "text, message, line, col",
    [
        (HEAD + "delivery = 'fast'\n", "job 1: delivery must be one of async, sync, not 'fast'", 5, 1),
        (HEAD + "crashes = -1\n", "crashes must be between 0 and 1073741824, not -1", 5, 1),
        (HEAD + "crashes = 1.0\n", "crashes must be an integer, not a float", 5, 1),
        (HEAD + "loss_until = true\n", "loss_until must be an integer, not a boolean", 5, 1),
        (HEAD + "eff = 'x'\n", "eff must be an integer, not the string 'x'", 5, 1),
        (HEAD + "eot = 0\n", "eot must be between 1 and 1073741825, not 0", 5, 1),
        (HEAD + "horizon = 3\neot = 4\n", "eot N is horizon N-1: give one of them, not both", 6, 1),
        (HEAD + "eff = 2\nloss_until = 1\n", "eff F is loss_until F-1: give one of them, not both", 5, 1),
        (HEAD + "nodes = 'a,b'\n", "nodes must be an array of node names, not the string 'a,b'", 5, 1),
        (HEAD + "nodes = ['a', 3]\n", "nodes must be an array of node names (strings), not one with an integer", 5, 1),
        (HEAD + "nodes = ['a', 'X']\n", "nodes must name constants such as a, \"a\" or 3, not 'X'", 5, 1),
        (HEAD + "nodes = ['d', 'd']\n", "nodes must not name 'd' twice", 5, 1),
        (HEAD + "pre = 'not a relation'\n", "pre must be a relation name (letters, digits and '_'), not 'not a relation'", 5, 1),
        (HEAD + "post = 7\n", "post must be a relation name, not an integer", 5, 1),
        (HEAD + "delivery = 'sync'\nmax_delay = 1\n", "delivery 'sync' with max_delay 1: a delay bound applies to async", 6, 1),
        ("[[grid]]\n" + HEAD[8:] + "delivery = ['sync', 'async']\nmax_delay = [1, 2]\n",
         "the sync jobs go in a [[grid]] of their own", 6, 1),
        (COUNT + "crashes = 1\n", "job 1: crashes does not apply to the task 'run' (only to count, cron, models, verify)", 6, 1),
        (COUNT + "eff = 2\n", "eff does not apply to the task 'run'", 6, 1),
        (COUNT.replace("'run'", "'count'") + "pre = 'p'\n", "pre does not apply to the task 'count' (only to verify)", 6, 1),
        ("[[grid]]\n" + COUNT[8:].replace("'run'", "['run', 'models']") + "post = 'p'\n",
         "post does not apply to the tasks 'run', 'models'", 6, 1),
        ("crashes = 1\n" + HEAD, "'crashes' is a job key: it goes in [defaults]", 2, 1),
        (HEAD + "crashs = 1\n", "unknown key 'crashs' (did you mean 'crashes'?)", 5, 1),
        (HEAD + "ef = 1\n", "unknown key 'ef' (did you mean 'eff'?)", 5, 1),
        (f"[[job]]\nprogram = {json.dumps(SIMPLE)}\ntask = 'verfy'\n", "not 'verfy' (did you mean 'verify'?)", 4, 1),
    ],
)
def test_bad_fault_keys_are_user_errors_at_their_keys(tmp_path, text, message, line, col):
    test_bad_manifests_are_user_errors_at_their_keys(tmp_path, text, message, line, col)


def test_eot_and_eff_are_horizon_and_loss_until(tmp_path):
    """Molly's spellings make the same job as ours (the same id); the job records the key they stand for."""
    molly = job(tmp_path, program=SIMPLE, task="verify", eot=4, eff=3, delivery="sync")
    ours = job(tmp_path, program=SIMPLE, task="verify", horizon=3, loss_until=2, delivery="sync")
    assert molly.id == ours.id and molly.parameters == ours.parameters
    assert (molly.bounds.horizon, molly.bounds.network) == (3, Network("sync", loss_until=2))
    assert "eot" not in molly.parameters and "eff" not in molly.parameters
    assert job(tmp_path, program=SIMPLE, task="verify", eff=0).parameters["loss_until"] == 0  # as --eff 0: no loss
    # a table's own key wins over [defaults]: eot in [defaults], horizon in the job (and the other way round)
    text = f"[defaults]\neot = 6\neff = 1\n[[job]]\nprogram = {json.dumps(SIMPLE)}\ntask = 'verify'\nhorizon = 2\n" \
           f"[[grid]]\nprogram = [{json.dumps(SIMPLE)}]\ntask = 'verify'\neot = [2, 3]\nloss_until = [4]\n"
    jobs = batch.read_manifest(manifest(tmp_path, text))
    assert [(j.parameters["horizon"], j.parameters["loss_until"]) for j in jobs] == [(1, 4), (2, 4), (2, 0)]  # grids first


def test_network_keys_make_the_jobs_network_and_apply_where_they_make_sense(tmp_path):
    text = f"""
[defaults]
crashes = 1
pre = "pre"
[[grid]]
program = [{json.dumps(SIMPLE)}]
task = ["verify", "count", "run"]
nodes = [["d"], []]
post = ["post", "log"]
"""
    jobs = batch.read_manifest(manifest(tmp_path, text))
    kinds = sorted((j.parameters["task"], tuple(j.parameters["nodes"] or ()), j.parameters["post"], j.parameters["crashes"]) for j in jobs)
    # verify: 2 node lists x 2 posts; count: post left out (2 jobs, not 4); run: faults left out too (1 job)
    assert kinds == [
        ("count", (), "post", 1), ("count", ("d",), "post", 1), ("run", (), "post", 0),
        ("verify", (), "log", 1), ("verify", (), "post", 1), ("verify", ("d",), "log", 1), ("verify", ("d",), "post", 1),
    ]
    (verify_d,) = [j for j in jobs if j.parameters["task"] == "verify" and j.parameters["nodes"] == ["d"] and j.parameters["post"] == "post"]
    assert verify_d.bounds.network == Network(crashes=1, nodes=("d",))
    assert job(tmp_path, program=SIMPLE, task="verify", nodes=[]).id == job(tmp_path, program=SIMPLE, task="verify").id
    # the jobs of older manifests keep their ids: the new keys at their defaults are left out of the hash
    one = dict(program="examples/jcss2014/alg3.ded", input="examples/jcss2014/alg3.facts", task="count")
    assert job(tmp_path, **one).id == "9ff3d70c171f45d8" == job(tmp_path, **one, delivery="async", crashes=0, pre="pre").id


@pytest.mark.parametrize("files, network", [
    (SIMPLE, Network("sync", loss_until=2)), (RETRY, Network("sync", loss_until=2, crashes=1)),
    (RETRY, Network(max_delay=1, crashes=1)), (SIMPLE, Network()),
], ids=["simple-loss", "retry-loss-crash", "retry-async-crash", "simple-async"])
def test_a_verify_job_answers_as_verify_does(tmp_path, files, network):
    keys = {"delivery": network.delivery, "max_delay": network.max_delay, "loss_until": network.loss_until, "crashes": network.crashes}
    found = job(tmp_path, program=files, task="verify", horizon=3, **{k: v for k, v in keys.items() if v is not None})
    row, traces, messages = batch.execute_job(found)
    program, instance, _ = pipeline.load([ROOT / f for f in files], None)
    expected = verify(program, instance, Bounds(3, network=network))
    record = json.loads(row["verdicts"])
    assert (row["status"], row["holds"], record["holds"], record["complete"]) == ("ok", expected.holds, expected.holds, True)
    assert record["bound"] == expected.bound_words() and (traces, messages) == ([], [])
    if expected.holds:
        assert row["faults"] is None and record["counterexample"] is None
    else:
        c = record["counterexample"]
        assert row["faults"] == record["faults"] == expected.counterexample.faults  # the fewest: the same number
        assert len(c["lost"]) + len(c["crashes"]) == row["faults"] and c["missing"] and c["missing_count"] == len(c["missing"])
        assert {m["args"][1] for m in c["missing"]} == {'"hello"'}


def test_a_verify_job_with_a_bad_invariant_or_no_time_fails_alone(tmp_path, monkeypatch):
    row, _, _ = batch.execute_job(job(tmp_path, program=SIMPLE, task="verify", post="nothing"))
    assert row["status"] == "error" and row["holds"] is None and invariants.words(row) == ""
    assert "the program has no relation 'nothing' to verify (give the key post;" in row["error"] and row["error"].startswith(str(ROOT / SIMPLE[0]))
    # stopped before an answer (verify's own timeout): status timeout, the bounds in the error, holds null
    stopped = job(tmp_path, program=SIMPLE, task="verify", delivery="sync", crashes=2, loss_until=3, timeout=0.5)
    answers = []
    monkeypatch.setattr(invariants.verify, "verify", lambda program, instance, bounds, pre, post, timeout: answers.append(timeout)
                        or Verdict(None, None, False, bounds, pre, post, timeout))
    row, _, _ = batch.execute_job(stopped)
    assert answers == [0.5] and (row["status"], row["holds"], row["faults"]) == ("timeout", None, None)
    assert row["error"] == "stopped after 0.5 s before an answer (≤ 2 crashes, losses before step 3, horizon 2, sync delivery)"
    assert invariants.words(row) == "unknown" and json.loads(row["verdicts"])["complete"] is False


def test_count_and_cron_jobs_take_the_fault_keys(tmp_path):
    """A count job with fault keys counts what `count` counts with the same options (the fault-injected models)."""
    found = job(tmp_path, program=SIMPLE, task="count", horizon=2, delivery="sync", eff=2, crashes=1)
    row, _, _ = batch.execute_job(found)
    cli = runner.invoke(app, ["count", *(str(ROOT / f) for f in SIMPLE), "-T", "2", "--delivery", "sync", "--eff", "2",
                              "--crashes", "1", "--json"])
    expected = json.loads(cli.output)
    fault_free = batch.execute_job(job(tmp_path, program=SIMPLE, task="count", horizon=2, delivery="sync"))[0]
    assert (row["status"], row["models"], row["traces"]) == ("ok", expected["models"], expected["traces"])
    assert row["models"] > fault_free["models"]  # losses and crashes make more runs
    alg3 = dict(program="examples/jcss2014/alg3.ded", input="examples/jcss2014/alg3.facts", task="cron", horizon=2)
    for keys, options in ((dict(max_delay=1, crashes=1), ["-D", "1", "--crashes", "1"]),
                          (dict(delivery="sync", loss_until=2), ["--delivery", "sync", "--loss-until", "2"])):
        row, _, _ = batch.execute_job(job(tmp_path, **alg3, **keys))
        cli = runner.invoke(app, ["cron", str(ROOT / alg3["program"]), "-i", str(ROOT / alg3["input"]), "-T", "2", *options, "--json"])
        expected, found = json.loads(cli.output), json.loads(row["verdicts"])
        assert row["status"] == "ok" and [found[k] for k in ("verdict", "consistent", "tolerant")] == [
            expected[k] for k in ("verdict", "consistent", "tolerant")]
        assert "≤ 1 crash" in found["verdict"] if "crashes" in keys else "sync delivery, losses before step 2" in found["verdict"]
    assert report.verdict(row) == "consistent, tolerant"  # sync rounds: alg3 loses nothing (async: not tolerant)


def test_report_shows_verify_jobs_and_reads_older_directories(tmp_path):
    out = tmp_path / "out"
    for params in (dict(loss_until=2), dict()):
        execute.run_and_write(str(out), job(tmp_path, program=SIMPLE, task="verify", horizon=3, delivery="sync", **params))
    old = job(tmp_path, program="examples/jcss2014/alg3.ded", input="examples/jcss2014/alg3.facts", task="count", horizon=1)
    row, _, _ = batch.execute_job(old)  # a row of a directory written before the fault columns existed
    schema = execute.jobs_schema()
    before = pa.schema([f for f in schema if f.name not in ("delivery", "loss_until", "crashes", "nodes", "pre", "post", "holds", "faults")])
    pq.write_table(pa.Table.from_pylist([{n: row[n] for n in before.names}], schema=before), out / "jobs" / f"{old.id}.parquet")
    jobs_section, verified = report.batch_summary(out).sections
    assert [r[6] for r in jobs_section.rows] == ["async", "sync", "sync, losses before 2"]  # the network column
    assert sorted(r[5] for r in verified.rows) == ["broken, 1 fault", "holds"]
    (broken,) = [r for r in verified.rows if r[5] != "holds"]
    assert broken[3] == "sync, losses before 2" and broken[4] == "pre → post"
    assert broken[6].startswith('lost deliver("hello") a→') and 'pre(' in broken[6] and 'without post(' in broken[6]
    console = Console(file=io.StringIO(), width=250)
    batch.summarize(out, console, tmp_path / "report.html")
    assert "3 job(s), 3 ok" in console.file.getvalue() and "broken, 1 fault" in (tmp_path / "report.html").read_text()


SWEEP = f"""
[defaults]
task = "verify"
eot = 4
[[grid]]
program = [{json.dumps(SIMPLE)}, {json.dumps(RETRY)}]
delivery = "sync"
crashes = [0, 1]
eff = [0, 3]
[[job]]
program = {json.dumps(RETRY)}
delivery = "async"
max_delay = 1
crashes = 1
loss_until = 2
[[job]]
program = {json.dumps(SIMPLE)}
post = "nothing"
"""


def test_a_verify_sweep_on_spark_answers_as_the_command_does(tmp_path, spark):
    """Each verify job's verdict (holds, complete, the fewest faults, the bounds) equals `dedalus2asp verify --json` run
    directly with the same options; a job whose invariant names no relation fails alone; batch.json and the summary line
    count the verdicts."""
    path, out = manifest(tmp_path, SWEEP), tmp_path / "out"
    summary = batch.run_batch(path, out, spark=spark)
    assert (summary["jobs"], summary["ok"], summary["error"]) == (10, 9, 1)
    assert "no relation 'nothing'" in summary["failed"][0]["error"]
    rows = {r["id"]: r for r in engine.read_table(out / "jobs")}
    for j in batch.read_manifest(path):
        p, row = j.parameters, rows[j.id]
        if p["post"] == "nothing":
            continue
        options = ["-T", str(p["horizon"]), "--delivery", p["delivery"], "--crashes", str(p["crashes"]), "--json"]
        options += ["--loss-until", str(p["loss_until"])] if p["loss_until"] is not None else []
        options += ["--max-delay", str(p["max_delay"])] if p["max_delay"] is not None else []
        cli = runner.invoke(app, ["verify", *(str(ROOT / f) for f in p["program"]), *options])
        expected = json.loads(cli.output)
        record = json.loads(row["verdicts"])
        assert cli.exit_code == (0 if expected["holds"] else 1)
        assert (row["holds"], record["complete"]) == (expected["holds"], expected["complete"]), (p, expected["verdict"])
        got = None if expected["counterexample"] is None else expected["counterexample"]["faults"]
        assert row["faults"] == got and record["bound"] in expected["verdict"]
    written = json.loads((out / "batch.json").read_text())["verify"]
    assert (written["jobs"], written["hold"], written["broken"], written["unknown"]) == (10, 5, 4, 1)
    assert written == summary["verify"]
    broken = [r for r in written["results"] if r["holds"] is False]
    assert all(r["counterexample"]["missing"] and r["faults"] >= 1 for r in broken)
    assert {(r["delivery"], r["crashes"], r["loss_until"]) for r in broken} == {("sync", 0, 2), ("sync", 1, 2), ("async", 1, 2)}


def test_the_example_sweep_reproduces_the_textbook_verdicts():
    """examples/batch/faults.toml, each job run in this process: under sync delivery the one-shot broadcast breaks with
    one omission, the retrying one survives omissions but not an omission and a crash, the classic one survives a crash
    but not lasting omissions, 2PC (with or without its timeout) decides without faults and blocks on a crash; async
    without a delay bound breaks 2PC with no fault (a vote still in flight)."""
    jobs = batch.read_manifest(ROOT / "examples" / "batch" / "faults.toml")
    assert len(jobs) == 40 and {j.parameters["task"] for j in jobs} == {"verify"}
    verdicts = {}
    for j in jobs:
        row, _, _ = batch.execute_job(j)
        assert row["status"] == "ok", row["error"]
        p = j.parameters
        name = report.short_name(row["program"], stem=True).split(" + ")[0]
        verdicts[name, p["delivery"], p["loss_until"] or 0, p["crashes"]] = (row["holds"], row["faults"])
    sync = {k[0]: {} for k in verdicts}
    for (name, delivery, loss, crashes), verdict in verdicts.items():
        if delivery == "sync":
            sync[name][loss, crashes] = verdict
    assert sync["simple_broadcast"] == {(0, 0): (True, None), (0, 1): (True, None), (2, 0): (False, 1), (2, 1): (False, 1)}
    assert sync["retry_broadcast"] == {(0, 0): (True, None), (0, 1): (True, None), (2, 0): (True, None), (2, 1): (False, 2)}
    assert sync["classic_broadcast"] == {(0, 0): (True, None), (0, 1): (True, None), (2, 0): (False, 2), (2, 1): (False, 2)}
    for protocol in ("two_phase_commit", "two_phase_commit_timeout"):
        assert sync[protocol] == {(0, 0): (True, None), (0, 1): (False, 1)}
        assert verdicts[protocol, "async", 0, 0] == (False, 0)
    # async with delays up to 1 answers as sync on the broadcasts, here
    assert all(verdicts[name, "async", loss, c] == verdicts[name, "sync", loss, c]
               for name, delivery, loss, c in verdicts if delivery == "sync" and name.endswith("broadcast"))


def test_the_fault_model_keys_make_the_jobs_network(tmp_path):
    """omission, crash_times and crash_model are network keys like delivery: the job's Network has them (Molly's
    under sync by default), a job at their defaults keeps the id it had before they existed, and a bad value is
    an error at its key."""
    program = [str(ROOT / "examples/molly/two_phase_commit.ded"), str(ROOT / "examples/molly/commit_assert.ded")]
    plain = job(tmp_path, program=program, task="verify", delivery="sync", crashes=1, eot=5)
    assert plain.bounds.network == Network("sync", crashes=1)
    assert plain.bounds.network.omission == "channel" and plain.bounds.network.crash_times == "after-send"
    finer = job(tmp_path, program=program, task="verify", delivery="sync", crashes=1, eot=5, omission="message",
                crash_times="any", crash_model="fail-stop")
    assert finer.bounds.network == Network("sync", crashes=1, omission="message", crash_times="any", crash_model="fail-stop")
    assert finer.id != plain.id
    unset = job(tmp_path, program=program, task="verify", delivery="sync", crashes=1, eot=5, crash_model="clock")
    assert unset.id == plain.id
    with pytest.raises(DiagnosticError, match="crash_model"):
        job(tmp_path, program=program, task="verify", crash_model="byzantine")


def test_a_verify_job_keeps_whether_it_holds_vacuously(tmp_path):
    rows = {}
    for name, text in (("vacuous", VACUOUS), ("held", HELD)):
        (tmp_path / f"{name}.ded").write_text(text)
        found = job(tmp_path, program=str(tmp_path / f"{name}.ded"), task="verify", horizon=3, delivery="sync",
                    crashes=1, loss_until=2, nodes=["b"])
        row, _, _ = batch.execute_job(found)
        assert row["status"] == "ok" and row["holds"] is True, row
        rows[found.id] = {**row, "program": name, "seconds": 0.0}
        record = json.loads(row["verdicts"])
        assert record["vacuous"] is (name == "vacuous") and record["verdict"].startswith(
            "holds vacuously" if name == "vacuous" else "holds: ")
        assert invariants.words(row) == ("holds vacuously" if name == "vacuous" else "holds")
        kept = invariants.summary([found], {found.id: rows[found.id]})
        assert kept["hold"] == 1 and kept["results"][0]["vacuous"] is (name == "vacuous")
