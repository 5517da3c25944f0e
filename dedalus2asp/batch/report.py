"""Summaries of result directories (`dedalus2asp report DIR`): a batch's jobs, or one run's trace and messages.

A batch directory (`jobs/`, from `run_batch`) is summarised as its jobs
table (with each job's network and fault budget), the verdicts of its
`verify` jobs with their counterexamples in brief, the jobs that did not
finish, and charts of seconds and models by horizon; a run directory (`run.json`, from `run --out`) as its parameters and
its facts and messages per step. Both are a `formats.charts.Report`, printed
as Rich tables and, when asked, written as an HTML page with the charts.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..formats.charts import Chart, Report, Section, page, tables
from ..lang.diagnostics import Diagnostic, DiagnosticError
from ..runs import engine
from . import invariants
from .execute import jobs_schema
from .manifest import short_name


def summarize(directory: Path, console, html_path: Path | None) -> None:
    """Rich tables summarising a run directory (run.json) or a batch directory (jobs/); an HTML page with charts."""
    directory = Path(directory)
    if (directory / "run.json").is_file():
        report = run_summary(directory)
    elif (directory / "jobs").is_dir():
        report = batch_summary(directory)
    else:
        raise DiagnosticError(
            [Diagnostic("report-dir", "not a run directory (run.json) nor a batch directory (jobs/)", filename=str(directory))]
        )
    tables(report, console)
    if html_path is not None:
        html_path = Path(html_path)
        html_path.parent.mkdir(parents=True, exist_ok=True)
        html_path.write_text(page(report), encoding="utf-8")
        console.print(f"wrote {html_path}")


def run_summary(directory: Path) -> Report:
    """A run's parameters and timings, and per step its facts by relation and its messages sent and arrived."""
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
    charts = (Chart("facts per step, by relation", "step", "facts", series),
              Chart("messages per step", "step", "messages", message_series))
    return Report(
        f"run of {info.get('program')} on {info.get('input')}: {steps} steps, {info.get('schedule')} schedule",
        [Section("parameters", ("what", "value"), params),
         Section("facts per step (trace)", ("step", *relations, "sent", "arrived"), step_rows, charts)],
    )


def verdict(job: dict) -> str:
    """A cron job's verdicts in words: "consistent, not tolerant"; a verify job's: "holds", "broken, 1 fault"."""
    if not job["verdicts"]:
        return ""
    if job["task"] == "verify":
        return invariants.words(job)
    v = json.loads(job["verdicts"])
    words = ", ".join(("" if v.get(k) else "not ") + k for k in ("consistent", "tolerant") if v.get(k) is not None)
    if v.get("K") is not None:  # cron --eventual: on ultimate outputs, exact or bounded
        words += f" eventually, exact (K = {v['K']})" if v.get("exact") else f" within lassos of ≤ {v['K']} steps, not exact"
    return words


def network(job: dict) -> str:
    """A job's network in brief: "sync, losses before 2, ≤ 1 crash", "delay ≤ 1" (async), "async" (no delay bound)."""
    words = ["sync" if job.get("delivery") == "sync" else "async" if job["max_delay"] is None else f"delay ≤ {job['max_delay']}"]
    if job.get("loss_until"):
        words.append(f"losses before {job['loss_until']}")
    if job.get("crashes"):
        words.append(f"≤ {job['crashes']} crash" + ("" if job["crashes"] == 1 else "es"))
    if job.get("nodes"):
        words.append("nodes " + ",".join(job["nodes"]))
    return ", ".join(words)


def counterexample(job: dict) -> str:
    """A verify job's counterexample in brief: its omissions, crashes and missing rows (`invariants.record`)."""
    found = json.loads(job["verdicts"]).get("counterexample") if job["verdicts"] and job["status"] != "error" else None
    if not found:
        return ""
    parts = [f"lost {l['relation']}({', '.join(l['args'])}) {l['from']}→{l['to']} at {l['sent']}" for l in found["lost"]]
    parts += [f"crash of {c['node']} at {c['step']}" for c in found["crashes"]]
    parts += [f"{job.get('pre') or 'pre'}({', '.join(m['args'])}) without {job.get('post') or 'post'}({', '.join(m['args'])})"
              for m in found["missing"][:3]]  # the pre row is there; its post row is what is missing
    more = found["lost_count"] - len(found["lost"]) + found["missing_count"] - len(found["missing"][:3])
    return "; ".join(parts) + (f"; {more} more" if more > 0 else "")


def batch_summary(directory: Path) -> Report:
    """A batch's jobs, the verdicts of its verify jobs, those that did not finish, and per series (program, task,
    semantics, network) seconds and models by horizon; models on a log scale."""
    import pyarrow.dataset as ds

    table = ds.dataset(directory / "jobs", format="parquet", schema=jobs_schema()).to_table()  # older parts: nulls
    jobs = sorted(table.to_pylist(), key=lambda j: (j["program"], j["input"] or "", j["task"], j["semantics"] or "", j["horizon"],
                                                    network(j)))
    status: dict[str, int] = {}
    for j in jobs:
        status[j["status"]] = status.get(j["status"], 0) + 1
    rows = [
        (j["id"][:8], short_name(j["program"], stem=True), j["task"], j["semantics"] or "", j["encoding"], j["horizon"], network(j),
         j["status"], j["models"], j["traces"], verdict(j), f"{j['seconds']:.2f}")
        for j in jobs
    ]
    checked = [
        (j["id"][:8], short_name(j["program"], stem=True), j["horizon"], network(j), f"{j['pre']} → {j['post']}", verdict(j),
         counterexample(j), f"{j['seconds']:.2f}")
        for j in jobs if j["task"] == "verify"
    ]
    failed = [(j["id"][:8], j["status"], j["error"]) for j in jobs if j["status"] != "ok"]
    seconds: dict[str, list] = {}
    models: dict[str, list] = {}
    for j in jobs:
        name = " ".join(filter(None, (short_name(j["program"], stem=True), j["task"], j["semantics"], network(j))))
        seconds.setdefault(name, []).append((j["horizon"], j["seconds"]))
        if j["models"] is not None and j["task"] == "count":
            models.setdefault(name, []).append((j["horizon"], j["models"]))
    charts = [Chart("seconds per job, by horizon", "horizon", "seconds", seconds)]
    if models:
        charts.append(Chart("models by horizon", "horizon", "models", models, log=True))
    columns = ("id", "program", "task", "semantics", "encoding", "T", "network", "status", "models", "traces", "verdict", "s")
    verified = ("id", "program", "T", "network", "invariant", "verdict", "counterexample", "s")
    return Report(
        f"batch in {directory}: {len(jobs)} job(s), " + ", ".join(f"{n} {s}" for s, n in sorted(status.items())),
        [Section("jobs", columns, rows, tuple(charts))]
        + ([Section("verify: every pre row has its post row at the last step", verified, checked)] if checked else [])
        + ([Section("jobs that did not finish", ("id", "status", "error"), failed)] if failed else []),
    )
