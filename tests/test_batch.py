"""Batches of jobs on Spark (manifests, execution, resuming) and summaries of result directories."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from conftest import EXAMPLES, ROOT
from dedalus2asp import batch, pipeline
from dedalus2asp.asp import solve
from dedalus2asp.batch import execute
from dedalus2asp.runs import engine
from dedalus2asp.cli import app
from dedalus2asp.lang.diagnostics import DiagnosticError
from dedalus2asp.bounds import Bounds, Network

runner = CliRunner()


def manifest(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "m.toml"
    path.write_text(f'root = "{ROOT}"\n' + text)
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


@pytest.mark.parametrize(
    "text, message",
    [
        ("[[job]]\nprogram = 'a.ded'\ninput = 'a.facts'\ntask = 'prove'\n", "task = 'prove' is not one of"),
        ("[[job]]\nprogram = 'a.ded'\ninput = 'a.facts'\ntask = 'count'\nhorizn = 2\n", "unknown key(s) horizn"),
        ("[[job]]\ninput = 'a.facts'\ntask = 'count'\n", "'program' is missing"),
        ("[[grid]\n", "not valid TOML"),
        ("", "lists no job"),
    ],
)
def test_bad_manifests_are_user_errors(tmp_path, text, message):
    with pytest.raises(DiagnosticError) as error:
        batch.read_manifest(manifest(tmp_path, text))
    assert message in error.value.diagnostics[0].message
    result = runner.invoke(app, ["batch", str(tmp_path / "m.toml"), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2 and "Traceback" not in result.output


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
    with pytest.raises(DiagnosticError, match="dialect = 'prolog' is not one of"):
        job(tmp_path, **params, dialect="prolog")
    # a manifest without `dialect` names its jobs as before the key existed
    assert job(tmp_path, program="a.ded", input="a.facts", task="count").id == job(
        tmp_path, program="a.ded", input="a.facts", task="count", dialect="auto"
    ).id


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
    assert (bounded[0]["status"], bounded[0]["models"]) == ("ok", 3) and bounded[1:] == direct[1:]


def test_a_job_whose_process_dies_is_recorded(tmp_path, monkeypatch):
    quick = job(tmp_path, program="examples/tplp2016/fig4_noncausal.ded", input="examples/tplp2016/fig4.facts", task="count")
    monkeypatch.setattr(execute, "execute_job", lambda _: os._exit(9))  # as if killed for memory
    assert batch.run_and_write(str(tmp_path / "out"), quick, grace=1.0) == "error"
    (row,) = engine.read_table(tmp_path / "out" / "jobs")
    assert row["error"] == "the job's process ended without a result (exit code 9)" and row["id"] == quick.id


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
    assert batch.run_batch(path, out, spark=spark)["skipped"] == 7

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
    assert "7 job(s), 1 error, 6 ok" in text and "unsafe variable" in text
    assert "<svg" in (tmp_path / "batch.html").read_text()


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
