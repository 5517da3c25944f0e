"""Batches of jobs on Spark (manifests, execution, resuming) and summaries of result directories."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from conftest import EXAMPLES, ROOT
from dedalus2asp import batch, pipeline
from dedalus2asp.asp import solve
from dedalus2asp.batch import execute, report
from dedalus2asp.runs import engine
from dedalus2asp.cli import app
from dedalus2asp.lang.diagnostics import DiagnosticError
from dedalus2asp.bounds import Bounds, Network

runner = CliRunner()


def manifest(tmp_path: Path, text: str) -> Path:
    """A manifest whose root is the repository (unless the text gives one)."""
    path = tmp_path / "m.toml"
    path.write_text(text if text.startswith("root") else f'root = "{ROOT}"\n' + text)
    return path


def job(tmp_path, **params) -> batch.Job:
    lines = "\n".join(f"{k} = {json.dumps(v)}" for k, v in params.items())
    (found,) = batch.read_manifest(manifest(tmp_path, "[[job]]\n" + lines + "\n"))
    return found


GOOD = """
[[grid]]
program = ["examples/jcss2014/alg3.ded"]
input = ["examples/jcss2014/alg3.facts"]
task = ["count", "cron"]
semantics = ["causal", "choice"]
horizon = [1, 2]
max_delay = [1]
"""


def test_grid_expands_in_order_with_stable_ids(tmp_path):
    jobs = batch.read_manifest(manifest(tmp_path, GOOD))
    # count: 2 semantics × 2 horizons; cron analyses both semantics itself: one job per horizon
    assert len(jobs) == 6 and len({j.id for j in jobs}) == 6
    assert [(j.parameters["semantics"], j.parameters["horizon"]) for j in jobs if j.parameters["task"] == "cron"] == [
        (None, 1), (None, 2)
    ]
    assert [(j.parameters["task"], j.parameters["semantics"], j.parameters["horizon"]) for j in jobs[:3]] == [
        ("count", "causal", 1), ("count", "causal", 2), ("count", "choice", 1)
    ]
    assert [j.id for j in batch.read_manifest(manifest(tmp_path, GOOD))] == [j.id for j in jobs]
    assert jobs[0].program == str(EXAMPLES / "jcss2014/alg3.ded")


ALG3 = "program = 'examples/jcss2014/alg3.ded'\ninput = 'examples/jcss2014/alg3.facts'\n"


@pytest.mark.parametrize(
    "text, message, line, col",
    [
        # the values of issue #20's garbage manifests: each a diagnostic at its key, nothing run
        (f"[[job]]\n{ALG3}task = 'prove'\n", "job 1: task must be one of count, cron, models, run, verify, not 'prove'", 5, 1),
        (f"[[job]]\n{ALG3}task = 'cuont'\n", "not 'cuont' (did you mean 'count'?)", 5, 1),
        (f"[[job]]\n{ALG3}task = 'count'\nhorizn = 2\n", "unknown key 'horizn' (did you mean 'horizon'?)", 6, 1),
        (f"[[job]]\n{ALG3}task = 'count'\ntimeout = \"abc\"\n", "timeout must be a number of seconds, not the string 'abc'", 6, 1),
        (f"[[job]]\n{ALG3}task = 'count'\n  horizon = \"x\"\n", "horizon must be an integer, not the string 'x'", 6, 3),
        (f"[[job]]\n{ALG3}task = 'count'\nhorizon = true\n", "horizon must be an integer, not a boolean", 6, 1),
        (f"[[job]]\n{ALG3}task = 'count'\nhorizon = 1.5\n", "horizon must be an integer, not a float", 6, 1),
        (f"[[job]]\n{ALG3}task = 'count'\nhorizon = [[1, 2]]\n", "horizon takes a single value here; use [[grid]]", 6, 1),
        (f"[[grid]]\n{ALG3}task = 'count'\nhorizon = [[1, 2]]\n", "grid 1: horizon must be an integer, not an array", 6, 1),
        (f"[[grid]]\n{ALG3}task = 'count'\nhorizon = []\n", "horizon is an empty list", 6, 1),
        (f"[[job]]\n{ALG3}task = 'count'\nhorizon = 1073741825\n", "horizon must be between 0 and 1073741824", 6, 1),
        (f"[[job]]\n{ALG3}task = 'count'\nmodels = -1\n", "models must be between 0 and 2147483647, not -1", 6, 1),
        (f"[[job]]\n{ALG3}task = 'count'\nmodels = 2147483648\n", "models must be between 0 and 2147483647", 6, 1),
        (f"[[job]]\n{ALG3}task = 'count'\ntimeout = 0\n", "timeout must be more than 0", 6, 1),
        (f"[[job]]\n{ALG3}task = 'count'\nmax_ground = -5\n", "max_ground must be between 0 and", 6, 1),
        (f"[[job]]\n{ALG3}task = 'count'\ntimeout = inf\n", "timeout must be more than 0", 6, 1),
        (f"[defaults]\nseed = 'x'\n[[job]]\n{ALG3}task = 'count'\n", "[defaults]: seed must be an integer", 3, 1),
        (f"[[job]]\n{ALG3}task = 'count'\n[[job]]\n{ALG3}task = 'run'\nschedule = 'chaos'\n", "job 2: schedule must be one of sync, random", 10, 1),
        ("root = 5\n[[job]]\n" + ALG3 + "task = 'count'\n", "root must be a path (a string), not an integer", 1, 1),
        ("job = [1, 2]\n", "job must be an array of tables ([[job]]), not an array", 2, 1),
        ("defaults = 3\n[[job]]\n" + ALG3 + "task = 'count'\n", "defaults must be a table", 2, 1),
        ("horizon = 3\n[[job]]\n" + ALG3 + "task = 'count'\n", "'horizon' is a job key", 2, 1),
        ("[[job]]\nprogram = 'nope.ded'\ntask = 'count'\n", "program '" + str(ROOT / "nope.ded") + "' does not exist", 3, 1),
        ("[[job]]\nprogram = 'examples'\ntask = 'count'\n", "is a directory", 3, 1),
        ("[[job]]\ninput = 'examples/jcss2014/alg3.facts'\ntask = 'count'\n", "job 1: 'program' is missing", 2, 1),
        ("[[grid]\n", "not valid TOML: Expected ']]'", 2, 7),
        ("", "lists no job", 0, 0),
    ],
)
def test_bad_manifests_are_user_errors_at_their_keys(tmp_path, text, message, line, col):
    with pytest.raises(DiagnosticError) as error:
        batch.read_manifest(manifest(tmp_path, text))
    (found,) = [d for d in error.value.diagnostics if message in d.message]
    assert (found.line, found.col) == (line, col)
    result = runner.invoke(app, ["batch", str(tmp_path / "m.toml"), "--out", str(tmp_path / "out")])
    where = f"m.toml:{line}:{col}: error:" if line else "m.toml: error:"
    assert result.exit_code == 2 and where in result.output and "Traceback" not in result.output
    assert not (tmp_path / "out").exists()  # nothing started


def test_a_manifest_reports_all_its_problems_at_once(tmp_path):
    text = "[[job]]\nprogram = 'nope.ded'\ntask = 'count'\nhorizon = -1\n[[grid]]\n" + ALG3 + "task = ['count', 'x']\n"
    with pytest.raises(DiagnosticError) as error:
        batch.read_manifest(manifest(tmp_path, text))
    assert [(d.line, d.message.split(":")[0]) for d in error.value.diagnostics] == [(3, "job 1"), (5, "job 1"), (9, "grid 1")]


def test_a_grid_too_large_is_refused_before_it_is_expanded(tmp_path):
    values = list(range(100))
    text = f"[[grid]]\n{ALG3}task = 'count'\nhorizon = {values}\nseed = {values}\nmodels = {values}\n"
    with pytest.raises(DiagnosticError, match="makes 1000000 jobs, more than 100000"):
        batch.read_manifest(manifest(tmp_path, text))


def test_each_task_in_one_worker(tmp_path):
    row, traces, messages = batch.execute_job(
        job(tmp_path, program="examples/jcss2014/alg3.ded", input="examples/jcss2014/alg3.facts", task="count", horizon=2)
    )
    compiled = pipeline.prepare(EXAMPLES / "jcss2014/alg3.ded", EXAMPLES / "jcss2014/alg3.facts", Bounds(2)).compiled
    expected = solve.count(compiled, progress=False)
    assert (row["status"], row["models"], row["traces"]) == ("ok", expected["models"], expected["traces"])
    row, traces, messages = batch.execute_job(
        job(tmp_path, program="examples/tplp2016/fig4_noncausal.ded", input="examples/tplp2016/fig4.facts",
            task="models", semantics="causal", horizon=2, models=3)
    )
    assert row["models"] == 3 and {t[1] for t in traces} == {1, 2, 3} and messages
    row, _, _ = batch.execute_job(
        job(tmp_path, program="examples/jcss2014/alg3.ded", input="examples/jcss2014/alg3.facts", task="cron", horizon=3, max_delay=1)
    )
    verdict = json.loads(row["verdicts"])
    assert row["status"] == "ok" and verdict["consistent"] is True and verdict["tolerant"] is False
    row, traces, messages = batch.execute_job(
        job(tmp_path, program="examples/jcss2014/alg1.ded", input="examples/jcss2014/alg1.facts", task="run", steps=4)
    )
    assert row["status"] == "ok" and {t[3] for t in traces} == {0, 1, 2, 3}


def test_dialect_key_and_a_program_with_its_own_facts(tmp_path):
    """molly/broadcast carries its facts: no input needed; `dialect` is checked and passed on."""
    params = dict(program="examples/molly/broadcast.ded", task="count", horizon=2, max_delay=1)
    row, _, _ = batch.execute_job(job(tmp_path, **params, dialect="molly"))
    compiled = pipeline.prepare(EXAMPLES / "molly/broadcast.ded", None, Bounds(2, network=Network(max_delay=1))).compiled
    expected = solve.count(compiled, progress=False)
    assert (row["status"], row["dialect"], row["models"], row["traces"]) == ("ok", "molly", expected["models"], expected["traces"])
    row, _, _ = batch.execute_job(job(tmp_path, **params, dialect="transparent"))  # read as tplp2016: not valid
    assert row["status"] == "error" and row["error"]
    row, _, _ = batch.execute_job(job(tmp_path, program="examples/jcss2014/alg1.ded", task="count"))
    assert row["status"] == "error" and "the job has no input" in row["error"]
    with pytest.raises(DiagnosticError, match="dialect must be one of auto, transparent, located, molly, not 'prolog'"):
        job(tmp_path, **params, dialect="prolog")
    # a manifest without `dialect` names its jobs as before the key existed
    known = dict(program="examples/jcss2014/alg3.ded", input="examples/jcss2014/alg3.facts", task="count")
    assert job(tmp_path, **known).id == job(tmp_path, **known, dialect="auto").id


TWO_PHASE = ["examples/molly/two_phase_commit.ded", "examples/molly/commit_assert.ded"]


def test_a_program_of_several_files_is_one_program(tmp_path):
    """A Molly protocol and its invariant file, one job: the CLI's answer for `count a.ded b.ded`."""
    params = dict(task="count", horizon=3, max_delay=1)
    two = job(tmp_path, program=TWO_PHASE, **params)
    assert two.files == tuple(str(ROOT / f) for f in TWO_PHASE) and two.program == " + ".join(two.files)
    row, _, _ = batch.execute_job(two)
    cli = runner.invoke(app, ["count", *(str(ROOT / f) for f in TWO_PHASE), "-T", "3", "-D", "1", "--json"])
    expected = json.loads(cli.output)
    assert (row["status"], row["models"], row["traces"]) == ("ok", expected["models"], expected["traces"])
    assert row["program"] == " + ".join(TWO_PHASE) and json.loads(row["parameters"])["program"] == TWO_PHASE
    # the invariant file is read: its global relations are in the models' traces
    row, traces, _ = batch.execute_job(job(tmp_path, program=TWO_PHASE, task="models", models=1, horizon=3, max_delay=1))
    assert row["status"] == "ok" and {"pre", "post"} <= {t[4] for t in traces}
    # one file: the id of before several files were allowed, whether written as a path or an array of one
    one = dict(program="examples/jcss2014/alg3.ded", input="examples/jcss2014/alg3.facts", task="count")
    assert job(tmp_path, **one).id == "9ff3d70c171f45d8" == job(tmp_path, **{**one, "program": [one["program"]]}).id
    assert two.id != job(tmp_path, program=TWO_PHASE[0], **params).id
    # the results table keeps `program` a string column; the summary names the files by their stems
    assert execute.run_and_write(str(tmp_path / "out"), two) == "ok"
    (written,) = engine.read_table(tmp_path / "out" / "jobs")
    assert written["program"] == " + ".join(TWO_PHASE) and written["models"] == expected["models"]
    (jobs_section,) = report.batch_summary(tmp_path / "out").sections
    assert jobs_section.rows[0][1] == "two_phase_commit + commit_assert"


def test_a_grid_of_programs_of_several_files(tmp_path):
    """In a grid, an array of strings gives alternatives; an item that is an array of paths is one alternative."""
    text = f"""
[defaults]
program = {json.dumps(TWO_PHASE)}
[[grid]]
program = [{json.dumps(TWO_PHASE)}, "examples/molly/broadcast.ded", ["examples/molly/broadcast.ded"]]
task = ["count", "cron"]
[[grid]]
program = ["examples/molly/broadcast.ded", "examples/molly/two_phase_commit.ded"]
task = "count"
[[job]]
task = "count"
"""
    jobs = batch.read_manifest(manifest(tmp_path, text))
    files = [tuple(Path(f).name for f in j.files) for j in jobs]
    assert [(f, j.parameters["task"]) for f, j in zip(files, jobs)] == [
        (("two_phase_commit.ded", "commit_assert.ded"), "count"), (("two_phase_commit.ded", "commit_assert.ded"), "cron"),
        (("broadcast.ded",), "count"), (("broadcast.ded",), "cron"),  # the array of one path is the same job
        (("two_phase_commit.ded",), "count"),  # grid 2's broadcast and the [[job]] (program of [defaults]) are known jobs
    ]


def test_a_program_of_several_files_on_spark(tmp_path, spark):
    """A grid whose alternatives are a program of two files and a program of one, run on Spark: the CLI's answers."""
    text = f"[[grid]]\nprogram = [{json.dumps(TWO_PHASE)}, {json.dumps(TWO_PHASE[0])}]\ntask = 'count'\nhorizon = 3\nmax_delay = 1\n"
    summary = batch.run_batch(manifest(tmp_path, text), tmp_path / "out", spark=spark)
    assert (summary["jobs"], summary["ok"]) == (2, 2)
    rows = {j["program"]: j for j in engine.read_table(tmp_path / "out" / "jobs")}
    assert set(rows) == {" + ".join(TWO_PHASE), TWO_PHASE[0]}
    for files in (TWO_PHASE, TWO_PHASE[:1]):
        cli = json.loads(runner.invoke(app, ["count", *(str(ROOT / f) for f in files), "-T", "3", "-D", "1", "--json"]).output)
        assert (rows[" + ".join(files)]["models"], rows[" + ".join(files)]["traces"]) == (cli["models"], cli["traces"])


@pytest.mark.parametrize(
    "text, message, line, col",
    [
        ("[[job]]\nprogram = []\ntask = 'count'\n", "job 1: program must be a path or an array of paths, not an empty array", 3, 1),
        ("[[job]]\nprogram = ['examples/molly/two_phase_commit.ded', 3]\ntask = 'count'\n",
         "program must be a path (a string), not an integer", 3, 1),
        ("[[job]]\ntask = 'count'\nprogram = ['examples/molly/two_phase_commit.ded', 'nope.ded']\n",
         "program '" + str(ROOT / "nope.ded") + "' does not exist", 4, 1),
        ("[[job]]\nprogram = [['examples/molly/two_phase_commit.ded']]\ntask = 'count'\n",
         "program must be a path (a string), not an array", 3, 1),
        ("[[grid]]\ntask = 'count'\nprogram = [[]]\n", "grid 1: program must be a path or an array of paths, not an empty array", 4, 1),
        ("[[grid]]\ntask = 'count'\nprogram = []\n", "program is an empty list: the grid would have no job", 4, 1),
        ("[[grid]]\ntask = 'count'\nprogram = [['examples/molly/broadcast.ded', ['x.ded']]]\n",
         "program must be a path (a string), not an array", 4, 1),
        ("[defaults]\nprogram = ['examples', 'examples/molly/broadcast.ded']\n[[job]]\ntask = 'count'\n",
         "[defaults]: program '" + str(ROOT / "examples") + "' is a directory", 3, 1),
    ],
)
def test_bad_programs_of_several_files_are_user_errors_at_their_keys(tmp_path, text, message, line, col):
    test_bad_manifests_are_user_errors_at_their_keys(tmp_path, text, message, line, col)


def test_a_job_still_grounding_long_after_its_timeout_is_killed(tmp_path):
    """clingo stops solving at the timeout, but not grounding: the job's process is killed, the batch goes on."""
    slow = job(tmp_path, program="examples/jcss2014/alg1.ded", input="examples/jcss2014/alg1.facts", task="count",
               encoding="paper", horizon=60, timeout=0.3)  # grounding alone takes well over a second
    row, traces, messages = batch.execute_bounded(slow, grace=1.0)
    assert (row["status"], row["id"], traces, messages) == ("timeout", slow.id, [], [])
    assert "killed after 1.3 s: still grounding" in row["error"] and row["seconds"] < 10
    quick = job(tmp_path, program="examples/tplp2016/fig4_noncausal.ded", input="examples/tplp2016/fig4.facts",
                task="models", semantics="causal", horizon=2, models=3, timeout=30)
    bounded, direct = batch.execute_bounded(quick, grace=1.0), batch.execute_job(quick)
    assert (bounded[0]["status"], bounded[0]["models"]) == ("ok", 3)
    assert [sorted(rows) for rows in bounded[1:]] == [sorted(rows) for rows in direct[1:]]  # a trace is a set of facts


def test_a_job_whose_process_dies_is_recorded(tmp_path, monkeypatch):
    quick = job(tmp_path, program="examples/tplp2016/fig4_noncausal.ded", input="examples/tplp2016/fig4.facts", task="count")
    monkeypatch.setattr(execute, "execute_job", lambda _: os._exit(9))  # as if killed for memory
    assert batch.run_and_write(str(tmp_path / "out"), quick, grace=1.0) == "error"
    (row,) = engine.read_table(tmp_path / "out" / "jobs")
    assert row["error"] == "the job's process ended without a result (exit code 9)" and row["id"] == quick.id


def test_a_job_above_its_ground_budget_is_refused_before_grounding(tmp_path):
    """The budget of the commands (asp.budget, --max-ground) holds for batch jobs: key max_ground, 0 for none."""
    params = dict(program="examples/tplp2016/ex1_reachability.ded", input="examples/tplp2016/ex1_reachability.facts",
                  task="count", horizon=3)
    row, _, _ = batch.execute_job(job(tmp_path, **params, max_ground=100))
    assert row["status"] == "error" and "above the budget of 100 (--max-ground N" in row["error"] and row["seconds"] < 5
    assert "ex1_reachability.ded:" in row["error"]  # the rule to blame, at its place
    assert batch.execute_job(job(tmp_path, **params, max_ground=0))[0]["status"] == "ok"
    # jobs that do not give the key keep the ids they had before it existed
    assert job(tmp_path, **params).id == job(tmp_path, **params, max_ground=batch.DEFAULTS["max_ground"]).id
    assert job(tmp_path, **params).id != job(tmp_path, **params, max_ground=0).id


def test_failures_are_recorded(tmp_path):
    (tmp_path / "bad.ded").write_text("p(X) :- q(Y).\n")
    row, _, _ = batch.execute_job(job(tmp_path, program=str(tmp_path / "bad.ded"), input="examples/jcss2014/alg1.facts", task="count"))
    assert row["status"] == "error" and "unsafe variable 'X'" in row["error"]
    row, _, _ = batch.execute_job(
        job(tmp_path, program="examples/tplp2016/ex1_reachability.ded", input="examples/tplp2016/ex1_reachability.facts",
            task="count", semantics="choice", horizon=3, timeout=0.2)
    )
    assert row["status"] == "timeout" and row["models"] < 390625


def test_batch_on_spark_records_failures_skips_done_jobs_and_ignores_half_written_parts(tmp_path, spark):
    (tmp_path / "bad.ded").write_text("p(X) :- q(Y).\n")
    text = GOOD.replace('task = ["count", "cron"]', 'task = ["count"]') + f"""
[[job]]
program = "{tmp_path / 'bad.ded'}"
input = "examples/jcss2014/alg1.facts"
task = "count"

[[job]]
program = "examples/tplp2016/fig4_noncausal.ded"
input = "examples/tplp2016/fig4.facts"
task = "models"
semantics = "causal"
horizon = 2
models = 2

[[job]]
program = "examples/jcss2014/alg1.ded"
input = "examples/jcss2014/alg1.facts"
task = "run"
steps = 3
"""
    path, out = manifest(tmp_path, text), tmp_path / "out"
    summary = batch.run_batch(path, out, spark=spark)
    assert (summary["jobs"], summary["ran"], summary["ok"], summary["error"]) == (7, 7, 6, 1)
    jobs = {j["id"]: j for j in engine.read_table(out / "jobs")}
    assert sorted(j["status"] for j in jobs.values()) == ["error"] + ["ok"] * 6
    traces = engine.read_table(out / "traces")
    assert {(t["job"], t["model"]) for t in traces} == {
        (i, m) for i, j in jobs.items() if j["task"] == "models" for m in (1, 2)
    } | {(i, 1) for i, j in jobs.items() if j["task"] == "run"}
    bad = next(i for i, j in jobs.items() if j["status"] == "error")
    assert [(f["id"], f["status"]) for f in summary["failed"]] == [(bad, "error")]
    assert "unsafe variable 'X'" in summary["failed"][0]["error"] and jobs[bad]["worker"]  # failed on the driver
    recorded = (out / "batch.json").read_text()
    again = batch.run_batch(path, out, spark=spark)  # nothing to do: the failed job is kept, batch.json too
    assert (again["skipped"], again["ran"], [f["id"] for f in again["failed"]]) == (7, 0, [bad])
    assert (out / "batch.json").read_text() == recorded
    (tmp_path / "bad.ded").write_text("p(X) :- q(X).\n")  # fixed: --retry-failed runs it again
    again = batch.run_batch(path, out, spark=spark, retry_failed=True)
    assert (again["retried"], again["ran"], again["ok"], again["failed"]) == (1, 1, 1, [])
    assert json.loads((out / "batch.json").read_text())["retried"] == 1
    jobs = {j["id"]: j for j in engine.read_table(out / "jobs")}

    # a batch killed while writing one job: its row missing, a temporary part left behind
    victim = next(i for i, j in jobs.items() if j["task"] == "models")
    (out / "jobs" / f"{victim}.parquet").unlink()
    (out / "jobs" / f".tmp-0123-{victim}.parquet").write_bytes(b"PAR1 half")
    assert len(engine.read_table(out / "jobs")) == 6  # readers skip the hidden part
    again = batch.run_batch(path, out, spark=spark)
    assert (again["skipped"], again["ran"], again["ok"]) == (6, 1, 1)
    assert len(engine.read_table(out / "jobs")) == 7
    assert len(engine.read_table(out / "traces")) == len(traces)

    console = Console(file=io.StringIO(), width=200)
    batch.summarize(out, console, tmp_path / "batch.html")
    text = console.file.getvalue()
    assert "7 job(s), 7 ok" in text
    assert "<svg" in (tmp_path / "batch.html").read_text()


INTERRUPTED = """
[defaults]
timeout = 300
[[grid]]
program = ["examples/jcss2014/alg3.ded"]
input = ["examples/jcss2014/alg3.facts"]
task = ["count"]
horizon = [1, 2]
[[job]]
program = "examples/tplp2016/ex1_reachability.ded"
input = "examples/tplp2016/ex1_reachability.facts"
task = "count"
semantics = "causal"
horizon = 4
"""


def test_a_batch_killed_by_ctrl_c_keeps_what_finished_and_goes_on(tmp_path, spark):
    """Ctrl-C (SIGINT to the whole process group, as a terminal sends it) while a job runs: one line, exit 130,
    no trace of py4j, Java or the workers; the jobs finished are kept, and the same command finishes the batch
    with the tables of an uninterrupted one."""
    path, out = manifest(tmp_path, INTERRUPTED), tmp_path / "out"
    command = [sys.executable, "-m", "dedalus2asp", "batch", str(path), "--out", str(out), "--master", "local[1]"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True, env={**os.environ, "NO_COLOR": "1"})
    try:
        deadline = time.monotonic() + 300
        while len(batch.done(out)) < 2 and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)  # local[1] runs the jobs in order: the two quick ones, then the slow one
        os.killpg(process.pid, signal.SIGINT)
        stdout, stderr = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == 130, stderr
    assert stderr.splitlines()[-1].startswith("interrupted: 2 of 3 job(s) done, kept in"), stderr
    assert not any(w in stderr for w in ("Traceback", "py4j", "Py4J", "Exception", "at org.")), stderr
    assert stdout == "" and len(batch.done(out)) == 2
    resumed = batch.run_batch(path, out, spark=spark)
    assert (resumed["skipped"], resumed["ran"], resumed["ok"]) == (2, 1, 1)
    whole = batch.run_batch(path, tmp_path / "whole", spark=spark)
    assert whole["ok"] == 3

    def table(directory):
        fields = ("id", "status", "error", "models", "traces", "parameters")
        return sorted(tuple(j[f] for f in fields) for j in engine.read_table(directory / "jobs"))

    assert table(out) == table(tmp_path / "whole")


def living(group: int) -> list[str]:
    """The processes of a process group that are still running (not zombies): their command names."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == group and fields[0] != "Z":
            found.append(stat.parent.joinpath("comm").read_text().strip() if stat.parent.joinpath("comm").exists() else "?")
    return found


def test_a_standalone_cluster_on_this_machine_runs_a_batch_as_local_mode_does(tmp_path, spark):
    """examples/batch/standalone.sh: a master and a worker of PySpark's own Spark, a batch against them, both
    stopped at the end (no process of the script's group is left, whatever happens to the test)."""
    path = manifest(tmp_path, "[[grid]]\n" + ALG3 + "task = ['count', 'cron']\nhorizon = [1]\nmax_delay = [1]\n")
    script = ROOT / "examples" / "batch" / "standalone.sh"
    process = subprocess.Popen(["bash", str(script), str(path), str(tmp_path / "cluster"), "1", "--quiet"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                               env={**os.environ, "PYTHON": sys.executable, "TMPDIR": str(tmp_path)})
    try:
        stdout, stderr = process.communicate(timeout=900)
        time.sleep(1)
        left = living(process.pid)
    finally:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            if living(process.pid):
                os.killpg(process.pid, sig)
                time.sleep(2)
        process.wait()
    assert process.returncode == 0, stderr
    assert left == [], left  # the master, the worker and its executors stopped
    assert "master spark://127.0.0.1:" in stderr and "2 job(s): 0 already done, 2 ran (2 ok" in stdout
    assert not list(tmp_path.glob("dedalus2asp-standalone.*"))  # its pid files and logs removed
    batch.run_batch(path, tmp_path / "local", spark=spark)

    def table(directory):  # a cron verdict's counterexample is one of several: the verdicts, not it
        fields = ("id", "status", "error", "models", "traces", "parameters")
        return sorted((*(j[f] for f in fields), report.verdict(j)) for j in engine.read_table(directory / "jobs"))

    assert table(tmp_path / "cluster") == table(tmp_path / "local")
    assert {v for *_, v in table(tmp_path / "local")} == {"", "consistent, not tolerant"}


def test_summarize_a_run_directory(tmp_path):
    program, instance, _ = pipeline.load(EXAMPLES / "jcss2014/alg1.ded", EXAMPLES / "jcss2014/alg1.facts")
    result = engine.run(program, engine.from_instance(instance, program), 4, engine.Schedule("random", 2, 3))
    engine.write_run(result, tmp_path / "run", {"program": "alg1.ded"})
    console = Console(file=io.StringIO(), width=200)
    batch.summarize(tmp_path / "run", console, tmp_path / "run.html")
    text = console.file.getvalue()
    assert "4 steps, random schedule" in text and "pending at the end" in text
    page = (tmp_path / "run.html").read_text()
    assert page.count("<svg") == 2 and "messages per step" in page
    with pytest.raises(DiagnosticError):
        batch.summarize(tmp_path, console, None)
