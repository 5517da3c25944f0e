"""Sweeps of many analysis jobs on Spark, split enumeration, and summaries of result directories.

A **manifest** (TOML) lists jobs, one by one (`[[job]]`, scalar values) or as
grids (`[[grid]]`, lists of values: every combination is a job):

    root = "../.."                  # paths are relative to the manifest's folder joined with root
    [defaults]                      # optional, for every job
    timeout = 60
    [[grid]]
    program = ["examples/jcss2014/alg3.ded"]
    input = ["examples/jcss2014/alg3.facts"]  # optional for a located or Molly program with its own facts
    dialect = "auto"                # auto | transparent | located | molly
    task = ["count", "cron"]        # count | cron | models | run
    semantics = ["causal", "choice"]
    horizon = [2, 4]

A job's id is a hash of its parameters, so the same manifest names the same
jobs. `run_batch` runs the jobs not yet done on Spark executors (one task per
job: clingo, or the local engine, in the Python worker) and each job writes
its own Parquet parts into the output directory: `traces/<id>.parquet` and
`messages/<id>.parquet` (models and run tasks), then `jobs/<id>.parquet`, its
row of the `jobs` table and the mark that it is done. Every part is written
under a hidden temporary name and renamed, so a killed batch leaves no
half-written table (Parquet readers skip hidden files), and a second run of
the same manifest into the same directory skips the jobs that have a row. A
job that fails (bad program, timeout, solver error) gets a row with its
status and error; the others go on. A job runs in a child process, killed
when it is still busy well past its timeout (`execute_bounded`): clingo
cannot interrupt grounding.

**Split enumeration** (`split_count`) cuts one enumeration into K disjoint
parts by assumptions on trace atoms (atoms of sch(P)^LT, tplp2016 §5.1.5)
whose truth varies between models: two models in different parts differ on a
trace atom, so their traces differ too, and the parts' counts of models *and*
of distinct traces add up to the whole (splitting on arrival atoms would keep
models apart but not traces).
"""

from __future__ import annotations

import hashlib
import html
import itertools
import json
import math
import multiprocessing
import os
import socket
import time
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import clingo

from . import pipeline
from .asp import solve
from .asp.transform import Compiled, transform
from .bounds import Bounds, Encoding, Network, Semantics
from .lang.diagnostics import Diagnostic, DiagnosticError, format_diagnostic
from .lang.located import check_events
from .runs import engine

TASKS = ("count", "cron", "models", "run")
DEFAULTS: dict[str, Any] = {
    "semantics": "causal-finite",
    "encoding": "fast",
    "dialect": "auto",  # auto | transparent | located | molly (parser.parse_source)
    "horizon": 2,
    "max_delay": None,
    "steps": None,  # run: steps 0..steps-1; default horizon + 1
    "schedule": "sync",
    "seed": 0,
    "models": 10,  # models: how many (0: all)
    "timeout": 60.0,
}
KEYS = ("program", "input", "task", *DEFAULTS)
GRACE = 10.0  # seconds: a job still running this long past its timeout (at least its timeout again) is killed
DIALECTS = ("auto", "transparent", "located", "molly")


# ---------------------------------------------------------------------------
# The manifest


@dataclass(frozen=True)
class Job:
    """One job: its id, its parameters as the manifest gives them, the resolved files, and its bounds."""

    id: str
    parameters: dict
    program: str
    input: str | None  # None: a located or Molly program that carries its own facts
    bounds: Bounds  # from horizon, semantics, encoding and max_delay (cron: both semantics, whatever this one)


def _manifest_error(path: Path, message: str) -> DiagnosticError:
    return DiagnosticError([Diagnostic("manifest", message, filename=str(path))])


def _check_values(path: Path, where: str, params: dict) -> None:
    unknown = sorted(set(params) - set(KEYS))
    if unknown:
        raise _manifest_error(path, f"{where}: unknown key(s) {', '.join(unknown)} (known: {', '.join(KEYS)})")
    if not params.get("program"):
        raise _manifest_error(path, f"{where}: 'program' is missing")
    choices = {"task": TASKS, "semantics": [s.value for s in Semantics], "encoding": [e.value for e in Encoding],
               "schedule": engine.SCHEDULES, "dialect": DIALECTS}
    for key, allowed in choices.items():
        if params.get(key) is not None and params[key] not in allowed:
            raise _manifest_error(path, f"{where}: {key} = {params[key]!r} is not one of {', '.join(allowed)}")
    if "task" not in params:
        raise _manifest_error(path, f"{where}: 'task' is missing ({' | '.join(TASKS)})")


def _bounds(path: Path, where: str, params: dict) -> Bounds:
    """The job's bounds, made once from its manifest keys; a bad horizon or delay bound is a manifest error."""
    try:
        network = Network(max_delay=params["max_delay"])
        return Bounds(params["horizon"], params["semantics"] or DEFAULTS["semantics"], params["encoding"], network)
    except ValueError as exc:
        raise _manifest_error(path, f"{where}: {exc}") from None


def read_manifest(path: Path) -> list[Job]:
    """The jobs of a manifest, grids expanded in the order their keys are written, without duplicates."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise _manifest_error(path, f"cannot read the manifest: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise _manifest_error(path, f"not valid TOML: {exc}") from None
    unknown = sorted(set(data) - {"root", "defaults", "grid", "job"})
    if unknown:
        raise _manifest_error(path, f"unknown top-level key(s) {', '.join(unknown)} (known: root, defaults, grid, job)")
    root = (path.parent / data.get("root", ".")).resolve()
    defaults = {**DEFAULTS, **data.get("defaults", {})}
    specs: list[tuple[str, dict]] = []
    for n, grid in enumerate(data.get("grid", []), 1):
        lists = {k: v if isinstance(v, list) else [v] for k, v in grid.items()}
        for values in itertools.product(*lists.values()):
            specs.append((f"grid {n}", dict(zip(lists, values))))
    for n, job in enumerate(data.get("job", []), 1):
        if any(isinstance(v, list) for v in job.values()):
            raise _manifest_error(path, f"job {n}: a [[job]] takes single values; use [[grid]] for lists")
        specs.append((f"job {n}", dict(job)))
    if not specs:
        raise _manifest_error(path, "the manifest lists no job ([[job]] or [[grid]])")
    jobs: dict[str, Job] = {}
    for where, spec in specs:
        params = {**defaults, **spec}
        _check_values(path, where, params)
        params = {k: params.get(k) for k in KEYS}
        if params["task"] == "cron":
            params["semantics"] = None  # cron analyses causal-finite and choice both: one job, not one per semantics
        hashed = {k: v for k, v in params.items() if not (k == "dialect" and v == "auto")}  # the ids of before the key
        ident = hashlib.sha256(json.dumps(hashed, sort_keys=True).encode()).hexdigest()[:16]
        given = str(root / params["input"]) if params["input"] else None
        jobs.setdefault(ident, Job(ident, params, str(root / params["program"]), given, _bounds(path, where, params)))
    return list(jobs.values())


# ---------------------------------------------------------------------------
# One job (runs in a Spark worker)


def _model_rows(job: str, number: int, trace, messages) -> tuple[list[tuple], list[tuple]]:
    traces = [(job, number, str(x), s, r, [str(a) for a in args]) for x, s, r, args in trace]
    sent = [
        (job, number, m.relation, [str(a) for a in m.args], str(m.sender), m.sent, str(m.addressee), m.arrives)
        for m in messages
    ]
    return traces, sent


def _load(job: Job):
    """The job's program and H (`pipeline.load`); H is needed: from `input` or the facts of a located program."""
    program, instance, _ = pipeline.load(job.program, job.input, job.parameters["dialect"])
    if instance is None:
        raise DiagnosticError(
            [Diagnostic("missing-input", "the job has no input: give 'input' (only a located or Molly program can carry its own facts)", filename=job.program)]
        )
    return program, instance


def _row(job: Job) -> dict:
    """The job's row of the `jobs` table before it runs."""
    p = job.parameters
    return {**{k: p[k] for k in KEYS if k != "models"}, "models_limit": p["models"], "id": job.id,
            "parameters": json.dumps(p, sort_keys=True), "status": "ok", "error": None, "models": None, "traces": None,
            "verdicts": None, "worker": f"{socket.gethostname()}:{os.getpid()}"}


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
    connection.send(execute_job(job))
    connection.close()


def execute_job(job: Job) -> tuple[dict, list[tuple], list[tuple]]:
    """Run one job: its row of the `jobs` table, and its trace and message rows (models and run tasks)."""
    from . import cron

    p = job.parameters
    row = _row(job)
    traces: list[tuple] = []
    messages: list[tuple] = []
    start = time.perf_counter()
    try:
        program, instance = _load(job)
        if p["task"] == "count":
            compiled = transform(program, instance, job.bounds)
            result = solve.count(compiled, timeout=p["timeout"], progress=False)
            row.update(models=result["models"], traces=result["traces"])
            if not result["complete"]:
                row.update(status="timeout", error=f"stopped after {p['timeout']} s (counts so far)")
        elif p["task"] == "models":
            compiled = transform(program, instance, job.bounds)
            found = solve.enumerate_models(compiled, p["models"], timeout=p["timeout"], progress=False)
            for model in found.models:
                t, m = _model_rows(job.id, model.number, model.trace, model.messages)
                traces += t
                messages += m
            row.update(models=found.count, traces=len({m.trace for m in found.models}))
            if not found.complete:
                row.update(status="timeout", error=f"stopped after {p['timeout']} s ({found.count} models so far)")
        elif p["task"] == "cron":
            try:
                verdict = cron.analyse(program, instance, job.bounds, None, p["timeout"])
                row["verdicts"] = json.dumps(verdict.as_dict(), sort_keys=True, default=str)
            except cron.Timeout as exc:
                row.update(status="timeout", error=f"stopped after {p['timeout']} s: {exc}")
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
         ("worker", pa.string())]
    )
    traces = pa.schema([("job", pa.string()), ("model", pa.int32()), ("node", pa.string()), ("step", pa.int32()),
                        ("relation", pa.string()), ("args", args)])
    messages = pa.schema([("job", pa.string()), ("model", pa.int32()), ("relation", pa.string()), ("args", args),
                          ("sender", pa.string()), ("sent", pa.int32()), ("addressee", pa.string()),
                          ("arrives", pa.int32())])
    return jobs, traces, messages


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


def run_batch(manifest: Path, out: Path, master: str | None = None, spark=None) -> dict:
    """Run the jobs of `manifest` not yet done in `out` on Spark executors; how many ran, skipped, failed."""
    jobs = read_manifest(manifest)
    out.mkdir(parents=True, exist_ok=True)
    finished = done(out)
    todo = [job for job in jobs if job.id not in finished]
    start = time.perf_counter()
    statuses: list[str] = []
    if todo:
        session = spark if spark is not None else engine.spark_session(master)
        target = str(out.resolve())
        rdd = session.sparkContext.parallelize(todo, numSlices=len(todo))
        statuses = rdd.map(lambda job: run_and_write(target, job)).collect()
    summary = {
        "jobs": len(jobs),
        "skipped": len(jobs) - len(todo),
        "ran": len(todo),
        "ok": statuses.count("ok"),
        "error": statuses.count("error"),
        "timeout": statuses.count("timeout"),
        "seconds": round(time.perf_counter() - start, 3),
    }
    (out / "batch.json").write_text(json.dumps({"manifest": str(manifest), **summary}, indent=2) + "\n")
    return summary


# ---------------------------------------------------------------------------
# Split enumeration


def _varying(compiled: Compiled) -> list[str]:
    """The trace atoms (sch(P)^LT) true in some model and false in another, earliest step first."""
    found = {}
    for mode in ("brave", "cautious"):
        ctl = solve.control(compiled, [f"--enum-mode={mode}", "0"])
        last: list[clingo.Symbol] = []
        with ctl.solve(yield_=True) as handle:
            for model in handle:
                last = model.symbols(atoms=True)
        found[mode] = {s for s in last if s.name in compiled.relations and len(s.arguments) >= 2}
    varying = found["brave"] - found["cautious"]
    return [str(s) for s in sorted(varying, key=lambda s: (s.arguments[1], str(s)))]


def cubes(compiled: Compiled, parts: int) -> tuple[list[str], list[list[tuple[bool, ...]]]]:
    """The split atoms and, per part, its cubes (truth values of those atoms); the cubes of all parts partition."""
    if parts < 1:
        raise ValueError(f"the number of parts must be 1 or more, not {parts}")
    atoms = _varying(compiled)[: max(0, math.ceil(math.log2(parts)))] if parts > 1 else []
    every = list(itertools.product((True, False), repeat=len(atoms)))
    return atoms, [every[i::parts] for i in range(parts)]


def count_part(compiled: Compiled, atoms: list[str], part: list[tuple[bool, ...]], models: bool = True) -> dict:
    """Models (unless `models` is False) and distinct traces of the models that satisfy one of the cubes of `part`."""
    symbols = [clingo.parse_term(a) for a in atoms]
    result = {"models": 0 if models else None, "traces": 0, "cubes": len(part)}
    for key, project in (("models", False), ("traces", True))[0 if models else 1 :]:
        ctl = solve.control(compiled, ["0"], project=project, by_trace=project)
        for cube in part:
            counter = [0]

            def on_model(model: clingo.Model, counter=counter) -> None:
                counter[0] += 1

            ctl.solve(assumptions=list(zip(symbols, cube)), on_model=on_model)
            result[key] += counter[0]
    return result


def split_count(
    compiled: Compiled, parts: int, engine_name: str = "local", spark=None, master: str | None = None, models: bool = True
) -> dict:
    """Count models (unless `models` is False) and traces as `parts` disjoint enumerations (on Spark executors
    with engine "spark")."""
    start = time.perf_counter()
    atoms, split = cubes(compiled, parts)
    payload = replace(compiled, program=None)  # P holds clingo symbols, which do not pickle
    if engine_name == "spark":
        session = spark if spark is not None else engine.spark_session(master)
        counts = (
            session.sparkContext.parallelize(list(enumerate(split)), numSlices=parts)
            .map(lambda item: (item[0], count_part(payload, atoms, item[1], models)))
            .collect()
        )
        counts = [c for _, c in sorted(counts)]
    else:
        counts = [count_part(payload, atoms, part, models) for part in split]
    return {
        "models": sum(c["models"] for c in counts) if models else None,
        "traces": sum(c["traces"] for c in counts),
        "complete": True,
        **compiled.bounds.as_dict(),
        "split": parts,
        "engine": engine_name,
        "split_atoms": atoms,
        "parts": counts,
        "seconds": round(time.perf_counter() - start, 4),
    }


# ---------------------------------------------------------------------------
# Summaries (`dedalus2asp report DIR`)


def summarize(directory: Path, console, html_path: Path | None) -> None:
    """Rich tables summarising a run directory (run.json) or a batch directory (jobs/); an HTML page with plots."""
    directory = Path(directory)
    if (directory / "run.json").is_file():
        title, sections = _run_summary(directory)
    elif (directory / "jobs").is_dir():
        title, sections = _batch_summary(directory)
    else:
        raise DiagnosticError(
            [Diagnostic("report-dir", "not a run directory (run.json) nor a batch directory (jobs/)", filename=str(directory))]
        )
    from rich.table import Table

    console.print(title)
    for heading, columns, rows, _ in sections:
        table = Table(title=heading)
        for c in columns:
            table.add_column(c)
        for r in rows:
            table.add_row(*("" if v is None else str(v) for v in r))
        console.print(table)
    if html_path is not None:
        html_path = Path(html_path)
        html_path.parent.mkdir(parents=True, exist_ok=True)
        html_path.write_text(_page(title, sections), encoding="utf-8")
        console.print(f"wrote {html_path}")


def _run_summary(directory: Path):
    info = json.loads((directory / "run.json").read_text())
    trace = engine.read_table(directory / "trace")
    messages = engine.read_table(directory / "messages")
    steps = info["steps"]
    relations = sorted({r["relation"] for r in trace})
    per = {(r, s): 0 for r in relations for s in range(steps)}
    for row in trace:
        per[row["relation"], row["step"]] += 1
    sent = [sum(1 for m in messages if m["sent"] == s) for s in range(steps)]
    arrived = [sum(1 for m in messages if m["arrives"] == s) for s in range(steps)]
    pending = sum(1 for m in messages if m["arrives"] is None)
    params = [(k, info.get(k)) for k in ("program", "input", "engine", "schedule", "max_delay", "seed", "steps", "program_hash")]
    params += [(f"{k} (s)", v) for k, v in info.get("timings", {}).items()]
    params += [("trace rows", len(trace)), ("messages", len(messages)), ("pending at the end", pending)]
    step_rows = [(s, *(per[r, s] for r in relations), sent[s], arrived[s]) for s in range(steps)]
    series = {r: [(s, per[r, s]) for s in range(steps)] for r in relations}
    message_series = {"sent": list(enumerate(sent)), "arrived": list(enumerate(arrived))}
    return (
        f"run of {info.get('program')} on {info.get('input')}: {steps} steps, {info.get('schedule')} schedule",
        [
            ("parameters", ("what", "value"), params, None),
            ("facts per step (trace)", ("step", *relations, "sent", "arrived"), step_rows,
             [("facts per step, by relation", "step", "facts", series), ("messages per step", "step", "messages", message_series)]),
        ],
    )


def _batch_summary(directory: Path):
    jobs = sorted(engine.read_table(directory / "jobs"), key=lambda j: (j["program"], j["input"] or "", j["task"], j["semantics"] or "", j["horizon"]))
    status: dict[str, int] = {}
    for j in jobs:
        status[j["status"]] = status.get(j["status"], 0) + 1

    def verdict(j) -> str:
        if not j["verdicts"]:
            return ""
        v = json.loads(j["verdicts"])
        return ", ".join(("" if v.get(k) else "not ") + k for k in ("consistent", "tolerant") if v.get(k) is not None)

    rows = [
        (j["id"][:8], Path(j["program"]).stem, j["task"], j["semantics"] or "", j["encoding"], j["horizon"], j["status"],
         j["models"], j["traces"], verdict(j), f"{j['seconds']:.2f}")
        for j in jobs
    ]
    failed = [(j["id"][:8], j["status"], j["error"]) for j in jobs if j["status"] != "ok"]
    seconds: dict[str, list] = {}
    models: dict[str, list] = {}
    for j in jobs:
        name = " ".join(filter(None, (Path(j["program"]).stem, j["task"], j["semantics"])))
        seconds.setdefault(name, []).append((j["horizon"], j["seconds"]))
        if j["models"] is not None and j["task"] == "count":
            models.setdefault(name, []).append((j["horizon"], math.log10(max(1, j["models"]))))
    plots = [("seconds per job, by horizon", "horizon", "seconds", seconds)]
    if models:
        plots.append(("models (log10) by horizon", "horizon", "log10 models", models))
    return (
        f"batch in {directory}: {len(jobs)} job(s), " + ", ".join(f"{n} {s}" for s, n in sorted(status.items())),
        [("jobs", ("id", "program", "task", "semantics", "encoding", "T", "status", "models", "traces", "verdict", "s"), rows, plots)]
        + ([("jobs that did not finish", ("id", "status", "error"), failed, None)] if failed else []),
    )


_COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf")


def svg_lines(title: str, xlabel: str, ylabel: str, series: dict[str, list[tuple[float, float]]]) -> str:
    """A self-contained SVG line chart: one polyline with points per series, axes with min/max ticks, a legend."""
    width, height, left, bottom, top, right = 560, 300, 60, 40, 30, 160
    points = [p for ps in series.values() for p in ps] or [(0, 0)]
    x0, x1 = min(p[0] for p in points), max(p[0] for p in points)
    y0, y1 = min(0, min(p[1] for p in points)), max(p[1] for p in points)
    x1, y1 = (x1 if x1 > x0 else x0 + 1), (y1 if y1 > y0 else y0 + 1)

    def sx(x):
        return left + (x - x0) / (x1 - x0) * (width - left - right)

    def sy(y):
        return height - bottom - (y - y0) / (y1 - y0) * (height - bottom - top)

    e = html.escape
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="11">',
           f'<text x="{width / 2 - right / 2}" y="16" text-anchor="middle" font-size="13">{e(title)}</text>',
           f'<line x1="{left}" y1="{height - bottom}" x2="{width - right}" y2="{height - bottom}" stroke="black"/>',
           f'<line x1="{left}" y1="{top}" x2="{left}" y2="{height - bottom}" stroke="black"/>',
           f'<text x="{(left + width - right) / 2}" y="{height - 8}" text-anchor="middle">{e(xlabel)}</text>',
           f'<text x="14" y="{(top + height - bottom) / 2}" transform="rotate(-90 14 {(top + height - bottom) / 2})" text-anchor="middle">{e(ylabel)}</text>']
    for x in sorted({x0, x1}):
        out.append(f'<text x="{sx(x)}" y="{height - bottom + 14}" text-anchor="middle">{x:g}</text>')
    for y in sorted({y0, y1}):
        out.append(f'<text x="{left - 4}" y="{sy(y) + 4}" text-anchor="end">{y:g}</text>')
    for k, (name, ps) in enumerate(sorted(series.items())):
        color = _COLORS[k % len(_COLORS)]
        ps = sorted(ps)
        out.append(f'<polyline fill="none" stroke="{color}" points="{" ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in ps)}"/>')
        out += [f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="2.5" fill="{color}"><title>{e(name)}: {x:g}, {y:g}</title></circle>' for x, y in ps]
        out.append(f'<text x="{width - right + 10}" y="{top + 14 * k + 10}" fill="{color}">{e(name)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def _page(title: str, sections) -> str:
    e = html.escape
    body = [f"<h1>{e(title)}</h1>"]
    for heading, columns, rows, plots in sections:
        body.append(f"<h2>{e(heading)}</h2>")
        for plot in plots or ():
            body.append(svg_lines(*plot))
        body.append("<table><tr>" + "".join(f"<th>{e(str(c))}</th>" for c in columns) + "</tr>")
        body += ["<tr>" + "".join(f"<td>{e('' if v is None else str(v))}</td>" for v in r) + "</tr>" for r in rows]
        body.append("</table>")
    style = "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;font-size:12px}"
    return f"<!doctype html><html><head><meta charset='utf-8'><title>{e(title)}</title><style>{style}</style></head><body>{''.join(body)}</body></html>\n"
