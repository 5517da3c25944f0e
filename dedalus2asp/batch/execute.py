"""Executing a batch: each job in a worker, in a child process with a time limit, written as Parquet parts.

`run_batch` runs the jobs of a manifest not yet done on Spark executors (one
task per job: clingo, or the local engine, in the Python worker) and each job
writes its own Parquet parts into the output directory: `traces/<id>.parquet`
and `messages/<id>.parquet` (models and run tasks), then `jobs/<id>.parquet`,
its row of the `jobs` table and the mark that it is done. Every part is
written under a hidden temporary name and renamed, so a killed batch leaves no
half-written table (Parquet readers skip hidden files), and a second run of
the same manifest into the same directory skips the jobs that have a row. A
job that fails (bad program, timeout, solver error) gets a row with its
status and error; the others go on. A `verify` job records its verdict (`invariants`); an `eventual = true`
cron or verify job asks `cron --eventual`'s or `verify --eventual`'s question and records `exact` and `K` in it. A job runs in a child process, killed
when it is still busy well past its timeout (`execute_bounded`): clingo
cannot interrupt grounding.

While Spark starts (in a thread of its own, `_Starting`: the JVM's start is
seconds that nothing else can share), the driver loads each job's program and
input once (`precheck`): a job that does not load is recorded as failed at
once, and only the others go to Spark. A job that failed keeps its row on a re-run
unless it is retried (`forget`). While Spark works (in a thread of the
driver), the driver watches the `jobs` parts appear for progress, and Ctrl-C
cancels the Spark job (`Interrupted`), the finished jobs kept.
"""

from __future__ import annotations

import contextlib
import json
import logging
import multiprocessing
import os
import signal
import socket
import threading
import time
from pathlib import Path
from typing import NoReturn

from .. import inspect, pipeline
from ..asp import budget, solve
from ..asp.transform import transform
from ..lang.diagnostics import Diagnostic, DiagnosticError, format_diagnostic
from ..lang.located import check_events
from ..runs import engine
from ..runs.session import PYTHON_TASKS, spark_context
from . import invariants
from .manifest import KEYS, Job, program_name, read_manifest, short_name

WARM_LIMIT = 64 * 1024  # bytes: a job's files up to this size warm its worker (`warm_up`)
WARM_GROUND = 1_000_000  # rule instances (`asp.budget`): a warm-up compiles only a job as small as this
GRACE = 10.0  # seconds: a job still running this long past its timeout (at least its timeout again) is killed
POLL = 0.5  # seconds between two looks of the driver at the jobs finished


def _model_rows(job: str, number: int, trace, messages) -> tuple[list[tuple], list[tuple]]:
    traces = [(job, number, str(x), s, r, [str(a) for a in args]) for x, s, r, args in trace]
    sent = [
        (job, number, m.relation, [str(a) for a in m.args], str(m.sender), m.sent, str(m.addressee), m.arrives)
        for m in messages
    ]
    return traces, sent


def _load(job: Job):
    """The job's program and H (`pipeline.load`); H is needed: from `input` or the facts of a located program."""
    files = job.files
    program, instance, _ = pipeline.load(files[0] if len(files) == 1 else list(files), job.input, job.parameters["dialect"])
    if instance is None:
        raise DiagnosticError(
            [Diagnostic("missing-input", "the job has no input: give 'input' (only a located or Molly program can carry its own facts)", filename=job.program)]
        )
    return program, instance


def _row(job: Job) -> dict:
    """The job's row of the `jobs` table before it runs."""
    p = job.parameters
    return {**{k: p[k] for k in KEYS if k not in ("models", "max_ground")}, "models_limit": p["models"], "id": job.id,
            "program": program_name(p["program"]),
            "parameters": json.dumps(p, sort_keys=True), "status": "ok", "error": None, "models": None, "traces": None,
            "verdicts": None, "holds": None, "faults": None, "worker": f"{socket.gethostname()}:{os.getpid()}"}


_warmed: set[tuple] = set()


def warm_up(job: Job) -> None:
    """Load and compile a small job once in this process, before its child is forked, so that every child
    inherits the modules imported, the parsers built and the templates compiled.

    A child forked from a cold worker spent about 2.5 s of a 0.1 s job building them again (measured on the
    sweep of benchmarks/sweep.py): per job, in every worker. Once per dialect, encoding, semantics and
    task, and only for files under `WARM_LIMIT` bytes and programs under `WARM_GROUND` estimated rule
    instances (a large job is left to its bounded child).
    Whatever fails here is the job's to report, in its child.
    """
    p = job.parameters
    key = (p["dialect"], p["encoding"], p["semantics"], p["task"])
    if key in _warmed:
        return
    _warmed.add(key)
    try:
        if any(os.path.getsize(f) > WARM_LIMIT for f in filter(None, (*job.files, job.input))):
            return
        from ..questions import cron, cron_eventual, verify  # noqa: F401  (cron and verify tasks import them; imported here, once)

        program, instance = _load(job)
        if p["task"] != "run" and budget.estimate(program, instance, job.bounds).total <= WARM_GROUND:
            transform(program, instance, job.bounds)
    except Exception:
        pass


def execute_bounded(job: Job, grace: float = GRACE) -> tuple[dict, list[tuple], list[tuple]]:
    """`execute_job` in a child process that is killed `timeout + max(grace, timeout)` seconds after it starts.

    clingo stops *solving* at the job's timeout by itself and the job records
    what it found so far; grounding cannot be interrupted, so a job that is
    still grounding (or decoding) long after its timeout is killed and
    recorded as a timeout, and the batch goes on.
    """
    timeout = job.parameters["timeout"]
    if timeout is None:
        return execute_job(job)
    limit = timeout + max(grace, timeout)
    warm_up(job)
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(send, job), daemon=True)
    start = time.perf_counter()
    child.start()
    send.close()
    try:
        if receive.poll(limit):
            return receive.recv()
        status, error = "timeout", f"killed after {limit:g} s: still grounding or decoding (clingo cannot interrupt grounding)"
    except EOFError:  # the child died without an answer (out of memory, say)
        child.join(1.0)
        status, error = "error", f"the job's process ended without a result (exit code {child.exitcode})"
    finally:
        child.kill()
        child.join()
        receive.close()
    return {**_row(job), "status": status, "error": error, "seconds": round(time.perf_counter() - start, 4)}, [], []


def _child(connection, job: Job) -> None:
    _die_with_parent()
    connection.send(execute_job(job))
    connection.close()


def _die_with_parent() -> None:
    """On Linux, this process is killed when its parent dies (a Spark worker killed on cancel, say)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def execute_job(job: Job) -> tuple[dict, list[tuple], list[tuple]]:
    """Run one job: its row of the `jobs` table, and its trace and message rows (models and run tasks); a verify job
    records its verdict (`invariants.run`)."""
    from ..questions import cron, cron_eventual

    p = job.parameters
    row = _row(job)
    traces: list[tuple] = []
    messages: list[tuple] = []
    start = time.perf_counter()
    try:
        program, instance = _load(job)
        if p["task"] != "run":
            budget.check(program, instance, job.bounds, p["max_ground"])
        if p["task"] == "count":
            compiled = transform(program, instance, job.bounds)
            result = solve.count(compiled, timeout=p["timeout"], progress=False)
            row.update(models=result["models"], traces=result["traces"])
            if not result["complete"]:
                row.update(status="timeout", error=f"stopped after {p['timeout']} s (counts so far)")
        elif p["task"] == "models":
            compiled = transform(program, instance, job.bounds)
            found = inspect.enumerate_models(compiled, p["models"], timeout=p["timeout"], progress=False)
            for model in found.models:
                t, m = _model_rows(job.id, model.number, model.trace, model.messages)
                traces += t
                messages += m
            row.update(models=found.count, traces=len({m.trace for m in found.models}))
            if not found.complete:
                row.update(status="timeout", error=f"stopped after {p['timeout']} s ({found.count} models so far)")
        elif p["task"] == "cron":
            try:
                question = cron_eventual.analyse_eventual if p["eventual"] else cron.analyse  # eventual: exact and K in its verdict
                verdict = question(program, instance, job.bounds, None, p["timeout"])
                row["verdicts"] = json.dumps(verdict.as_dict(), sort_keys=True, default=str)
            except cron.Timeout as exc:
                row.update(status="timeout", error=f"stopped after {p['timeout']} s: {exc}")
        elif p["task"] == "verify":
            row.update(invariants.run(program, instance, job))
        else:  # run
            steps = p["steps"] if p["steps"] is not None else job.bounds.horizon + 1
            check_events(instance, steps - 1, run=True)
            schedule = engine.Schedule(p["schedule"], job.bounds.network.max_delay or 1, p["seed"])
            result = engine.run(program, engine.from_instance(instance, program), steps, schedule)
            traces = [(job.id, 1, x, s, r, list(args)) for x, s, r, args in result.trace]
            messages = [(job.id, 1, r, list(a), x, s, y, t) for r, a, x, s, y, t in result.messages]
            row.update(models=1, traces=1)
    except DiagnosticError as error:
        row.update(status="error", error="\n".join(format_diagnostic(d) for d in error.diagnostics))
    except Exception as exc:  # a solver or engine failure is this job's result, not the batch's
        row.update(status="error", error=f"{type(exc).__name__}: {exc}")
    row["seconds"] = round(time.perf_counter() - start, 4)
    return row, traces, messages


def _arrow():
    import pyarrow as pa

    args = pa.list_(pa.string())
    jobs = pa.schema(
        [("id", pa.string()), ("program", pa.string()), ("input", pa.string()), ("task", pa.string()),
         ("semantics", pa.string()), ("encoding", pa.string()), ("dialect", pa.string()), ("horizon", pa.int64()), ("max_delay", pa.int64()),
         ("steps", pa.int64()), ("schedule", pa.string()), ("seed", pa.int64()), ("models_limit", pa.int64()),
         ("timeout", pa.float64()), ("parameters", pa.string()), ("status", pa.string()), ("error", pa.string()),
         ("seconds", pa.float64()), ("models", pa.int64()), ("traces", pa.int64()), ("verdicts", pa.string()),
         ("worker", pa.string()), ("delivery", pa.string()), ("loss_until", pa.int64()), ("crashes", pa.int64()),
         ("nodes", args), ("pre", pa.string()), ("post", pa.string()), ("holds", pa.bool_()), ("faults", pa.int64())]
    )
    traces = pa.schema([("job", pa.string()), ("model", pa.int32()), ("node", pa.string()), ("step", pa.int32()),
                        ("relation", pa.string()), ("args", args)])
    messages = pa.schema([("job", pa.string()), ("model", pa.int32()), ("relation", pa.string()), ("args", args),
                          ("sender", pa.string()), ("sent", pa.int32()), ("addressee", pa.string()),
                          ("arrives", pa.int32())])
    return jobs, traces, messages


def jobs_schema():
    """The Arrow schema of the `jobs` table (older result directories lack its later columns: read them with it)."""
    return _arrow()[0]


def run_and_write(out: str, job: Job, grace: float = GRACE) -> str:
    """Execute `job` (`execute_bounded`) and write its parts into `out` (trace and messages first, its `jobs`
    row last); its status."""
    row, traces, messages = execute_bounded(job, grace)
    jobs, trace_schema, message_schema = _arrow()
    directory = Path(out)
    if traces:
        engine.write_rows(directory / "traces" / f"{job.id}.parquet", trace_schema, traces)
    if messages:
        engine.write_rows(directory / "messages" / f"{job.id}.parquet", message_schema, messages)
    values = tuple(row[name] for name in jobs.names)
    engine.write_rows(directory / "jobs" / f"{job.id}.parquet", jobs, [values])
    return row["status"]


def done(out: Path) -> set[str]:
    """The ids of the jobs that have a row in `out`."""
    return {p.stem for p in (out / "jobs").glob("*.parquet")} if (out / "jobs").is_dir() else set()


def rows(out: Path, ids=None) -> dict[str, dict]:
    """The rows of the `jobs` table of `out` (of the jobs `ids` only, when given), by id."""
    import pyarrow.parquet as pq

    found = {}
    for part in sorted((out / "jobs").glob("*.parquet")) if (out / "jobs").is_dir() else []:
        if ids is None or part.stem in ids:
            (row,) = pq.read_table(part).to_pylist()
            found[row["id"]] = row
    return found


def forget(out: Path, ident: str) -> None:
    """Remove a job's row, then its trace and message parts: the job is not done, and runs again."""
    for table in ("jobs", "traces", "messages"):
        (out / table / f"{ident}.parquet").unlink(missing_ok=True)


def precheck(jobs: list[Job]) -> dict[str, str]:
    """The jobs whose program or input does not load (parse, check; `_load`), with the error each would record.

    Done on the driver while Spark starts, once per program, input and dialect: such a job fails
    at once with the error it would have had on an executor, and only the others go to Spark.
    """
    errors: dict[tuple, str | None] = {}
    failed = {}
    for job in jobs:
        key = (job.files, job.input, job.parameters["dialect"])
        if key not in errors:
            try:
                _load(job)
                errors[key] = None
            except DiagnosticError as error:
                errors[key] = "\n".join(format_diagnostic(d) for d in error.diagnostics)
        if errors[key] is not None:
            failed[job.id] = errors[key]
    return failed


def _record_failure(out: Path, job: Job, error: str) -> None:
    jobs, _, _ = _arrow()
    row = {**_row(job), "status": "error", "error": error, "seconds": 0.0}
    engine.write_rows(out / "jobs" / f"{job.id}.parquet", jobs, [tuple(row[name] for name in jobs.names)])


def _task(target: str, job: Job) -> str:
    """The function a Spark task runs: Ctrl-C at the terminal is the driver's to handle, not the worker's."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    return run_and_write(target, job)


class Interrupted(Exception):
    """Ctrl-C stopped a batch: the jobs finished so far are kept."""

    def __init__(self, finished: int, total: int):
        super().__init__(f"{finished} of {total} job(s) done")
        self.finished, self.total = finished, total


def _note(progress, row: dict) -> None:
    """A failed job's line: its id, program, task, status and the first line of its error."""
    if progress is not None:
        first = (row["error"] or "").splitlines()[0] if row["error"] else ""
        progress.note(f"job {row['id'][:8]} ({short_name(program_name(row['program']))} {row['task']}) {row['status']}: {first}")


@contextlib.contextmanager
def _interrupts():
    """An event set by Ctrl-C (SIGINT) while in the block, in place of KeyboardInterrupt; SIGINT as before
    after it. Outside the main thread, or where SIGINT is ignored (a batch in the background), the event
    is never set."""
    event = threading.Event()
    main = threading.current_thread() is threading.main_thread()
    previous = signal.getsignal(signal.SIGINT) if main else signal.SIG_IGN
    if previous is signal.SIG_IGN:
        yield event
        return
    signal.signal(signal.SIGINT, lambda number, frame: event.set())
    try:
        yield event
    finally:
        signal.signal(signal.SIGINT, previous)


def _cancel(outcome: dict, thread: threading.Thread) -> NoReturn:
    """Ctrl-C came: cancel the Spark job (if the context is up), wait a little for it, and raise
    KeyboardInterrupt."""
    logging.disable(logging.CRITICAL)  # py4j logs every call the stopping JVM leaves unanswered
    if "context" in outcome:
        try:
            outcome["context"].cancelAllJobs()
            thread.join(10)
        except Exception:  # the JVM may be going already
            pass
    raise KeyboardInterrupt


def _on_spark(context_of, out: Path, todo: list[Job], progress, before: tuple[int, int] = (0, 0)) -> None:
    """Run `todo` on Spark, one task per job, while the driver watches `out/jobs` for finished rows.

    Everything that talks to the JVM (making the SparkContext with `context_of()`, the Spark job) runs in a
    thread of its own, and Ctrl-C only sets a flag that this loop reads (`_interrupts`): raised where the
    signal lands, it could fall into a call into the JVM half-way (py4j's traces) or into a finalizer of
    py4j that swallows it. The Spark job is then cancelled, the log of py4j silenced, and KeyboardInterrupt
    raised here.
    """
    target = str(out.resolve())
    outcome: dict = {}
    ended = threading.Event()  # the Spark work is over: the loop looks once more and stops, without waiting a POLL

    def work():
        try:
            outcome["context"] = context = context_of()
            rdd = context.parallelize(todo, numSlices=len(todo))
            outcome["statuses"] = rdd.map(lambda job: _task(target, job)).collect()
        except Exception as exc:  # cancelled on Ctrl-C, or Spark failed
            outcome["error"] = exc
        finally:
            ended.set()

    waiting = {job.id for job in todo}
    earlier, failed = before  # jobs done and failed before Spark started (`precheck`)
    thread = threading.Thread(target=work, name="batch", daemon=True)
    with _interrupts() as interrupted:
        thread.start()
        while True:
            over = ended.wait(POLL)
            if interrupted.is_set():
                _cancel(outcome, thread)
            finished = waiting & done(out)
            for row in rows(out, finished).values():
                if row["status"] != "ok":
                    failed += 1
                    _note(progress, row)
            waiting -= finished
            if progress is not None:
                progress.update(earlier + len(todo) - len(waiting), failed=failed)
            if over:
                break
    thread.join()
    if "error" in outcome:
        raise outcome["error"]


class _Starting:
    """The SparkContext of a batch, made by `make()` in a thread of its own from the moment the batch knows
    it has jobs to run, so that the JVM starts while the driver loads the programs (`precheck`); calling
    it waits for the context (or raises what stopped it)."""

    def __init__(self, make):
        self.outcome: dict = {}
        self.thread = threading.Thread(target=self._make, args=(make,), name="spark-start", daemon=True)
        self.thread.start()

    def _make(self, make) -> None:
        try:
            self.outcome["context"] = make()
        except Exception as exc:  # no Java, a bad master: raised where the context is needed
            self.outcome["error"] = exc

    def __call__(self):
        self.thread.join()
        if "error" in self.outcome:
            raise self.outcome["error"]
        return self.outcome["context"]


def run_batch(manifest: Path, out: Path, master: str | None = None, spark=None, retry_failed: bool = False,
              progress=None, context_factory=None) -> dict:
    """Run the jobs of `manifest` not yet done in `out` on Spark executors; what ran, what failed, what was kept.

    A job with a row in `out` is done, unless it failed (error or timeout) and `retry_failed` is set: its row
    and parts are then removed and it runs again. Jobs whose program does not load fail on the driver
    (`precheck`, while the SparkContext starts); only the others go to Spark. `progress` (a `cli.progress.Progress`, or None) is told
    the jobs done and failed. `batch.json` is written when a job ran: a re-run with nothing to do keeps the
    previous one. The summary's `failed` lists every job of the manifest whose row is not ok, with its error.
    """
    jobs = read_manifest(manifest)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DiagnosticError([Diagnostic("io", f"cannot make the result directory: {exc.strerror or exc}", filename=str(out))]) from None
    ids = {job.id for job in jobs}
    before = rows(out, ids)
    retried = [i for i, row in before.items() if row["status"] != "ok"] if retry_failed else []
    for ident in retried:
        forget(out, ident)
    finished = done(out)
    todo = [job for job in jobs if job.id not in finished]
    start = time.perf_counter()
    make = context_factory or (lambda m: spark_context(m, java_options=PYTHON_TASKS))  # no SQL session: jobs are Python
    context_of = (lambda: spark.sparkContext) if spark is not None else _Starting(lambda: make(master)) if todo else None
    unloadable = precheck(todo)
    for job in todo:
        if job.id in unloadable:
            _record_failure(out, job, unloadable[job.id])
    remote = [job for job in todo if job.id not in unloadable]
    if progress is not None:
        progress.total = len(todo)
        for job in todo:
            if job.id in unloadable:
                _note(progress, {**job.parameters, "id": job.id, "status": "error", "error": unloadable[job.id]})
        progress.update(len(unloadable), failed=len(unloadable))
    try:
        if remote:
            _on_spark(context_of, out, remote, progress, (len(unloadable), len(unloadable)))
        elif isinstance(context_of, _Starting):
            context_of.thread.join()  # every job failed to load: nothing for Spark, but leave no thread starting it
    except KeyboardInterrupt:
        raise Interrupted(len(done(out) & ids), len(jobs)) from None
    if progress is not None:
        progress.close()
    summary = _summary(jobs, todo, retried, rows(out, ids), start)
    if todo:
        (out / "batch.json").write_text(json.dumps({"manifest": str(manifest), **summary}, indent=2) + "\n")
    return summary


def _summary(jobs: list, todo: list, retried: list, now: dict, start: float) -> dict:
    """What a batch did: its jobs, those skipped (done before), retried and run, how the runs ended, its seconds
    since `start`, the jobs whose row is not ok (`now`: the rows of the result directory), and `verify`'s verdicts."""
    ran = [now[job.id] for job in todo if job.id in now]
    summary = {
        "jobs": len(jobs),
        "skipped": len(jobs) - len(todo),
        "retried": len(retried),
        "ran": len(todo),
        "ok": sum(r["status"] == "ok" for r in ran),
        "error": sum(r["status"] == "error" for r in ran),
        "timeout": sum(r["status"] == "timeout" for r in ran),
        "seconds": round(time.perf_counter() - start, 3),
        "failed": [{"id": r["id"], "program": r["program"], "task": r["task"], "status": r["status"], "error": r["error"]}
                   for job in jobs if (r := now.get(job.id)) is not None and r["status"] != "ok"],
    }
    verdicts = invariants.summary(jobs, now)
    if verdicts is not None:
        summary["verify"] = verdicts
    return summary
