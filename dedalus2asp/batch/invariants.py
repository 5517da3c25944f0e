"""The `verify` jobs of a batch: Molly's invariant question asked on an executor, its verdict as the jobs table keeps it.

A `verify` job asks `verify.verify` (Alvaro, Rosen, Hellerstein, *Lineage-driven fault
injection*, SIGMOD 2015, §3: at the last step every `pre` row has its matching `post` row,
whatever is lost and whoever crashes within the job's `Network`) of the job's program, as
`dedalus2asp verify` does. Its row of the `jobs` table gets `holds` (true, false, or null when
stopped before an answer: status `timeout`), `faults` (the counterexample's, the fewest when
`complete`) and in `verdicts` a small JSON record (`record`), with `exact` and `K` for an `eventual = true` job
(`verify --eventual`): `vacuous` when it holds (no run has a
`pre` row at the last step, as `verify` says), the counterexample's omissions,
crashes and unmatched `pre` rows (at most `LISTED` of each, with their numbers), without its
run — the `verify` command draws that. `summary` gathers the records of a batch for batch.json
and the line the `batch` command prints.
"""

from __future__ import annotations

import json

from ..questions import verify
from ..questions.verdict import Verdict
from ..lang.ast import Instance, Program
from ..lang.diagnostics import Diagnostic, format_diagnostic
from .manifest import Job

LISTED = 20  # the most omissions, crashes or unmatched pre rows a record lists (each list's length is recorded too)


def record(verdict: Verdict) -> dict:
    """The verdict as the `verdicts` column keeps it: holds, complete, the counterexample's faults, a few of its
    omissions, crashes and missing rows, and the bounds in words (`Verdict.bound_words`)."""
    found = verdict.counterexample
    counterexample = None
    if found is not None:
        omissions = [l.as_dict() for l in found.lost if not l.by_crash]
        counterexample = {
            "lost": omissions[:LISTED], "lost_count": len(omissions),
            "silenced": sum(1 for l in found.lost if l.by_crash),  # messages lost because their sender had crashed
            "crashes": [c.as_dict() for c in found.crashes[:LISTED]],
            "missing": [m.as_dict() for m in found.missing[:LISTED]], "missing_count": len(found.missing),
        }
    eventual = {} if verdict.exactness is None else {  # verify --eventual: whether the verdict is exact, and K
        "eventual": True, "exact": verdict.exact, "K": verdict.exactness.K,
        "reason": None if verdict.exact else verdict.exactness.reason}
    return {
        "holds": verdict.holds,
        **eventual,
        **({"vacuous": verdict.vacuous} if verdict.holds else {}),  # as `Verdict.as_dict` writes it
        "complete": verdict.complete,
        "faults": None if found is None else found.faults,
        "fewest_faults": None if found is None else found.fewest,
        "counterexample": counterexample,
        "bound": verdict.bound_words(),
        "verdict": verdict.describe().splitlines()[0],
        "seconds": round(verdict.seconds, 3),
    }


def run(program: Program, instance: Instance, job: Job) -> dict:
    """Ask the job's question (`verify.verify` within its bounds and timeout): the fields of its row to update."""
    p = job.parameters
    try:
        verdict = verify.verify(program, instance, job.bounds, p["pre"], p["post"], p["timeout"])
    except verify.InvariantError as error:  # no relation pre or post, or rows of different widths: as the command says
        message = str(error).replace("give --pre R", "give the key pre").replace("give --post R", "give the key post")  # a job's keys
        return {"status": "error", "error": format_diagnostic(Diagnostic("bad-invariant", message, filename=job.program))}
    found = record(verdict)
    row = {"holds": verdict.holds, "faults": found["faults"], "verdicts": json.dumps(found, sort_keys=True, ensure_ascii=False)}
    if verdict.holds is None:
        row.update(status="timeout", error=f"stopped after {p['timeout']} s before an answer ({verdict.bound_words()})")
    return row


def words(row: dict) -> str:
    """A verify job's verdict in a few words: "holds", "holds vacuously", "broken, 2 faults", "broken, ≥ 1 fault
    (not proven fewest)", "unknown"."""
    if row.get("verdicts") is None or row.get("status") == "error":
        return ""
    found = json.loads(row["verdicts"])
    if found["holds"] is None:
        return "unknown"
    if found["holds"]:
        held = "holds vacuously" if found.get("vacuous") else "holds"
        if found.get("eventual"):
            return f"{held} eventually, exact (K = {found['K']})" if found["exact"] else f"{held} within lassos of ≤ {found['K']} steps, not exact"
        return held
    faults = found["faults"]
    plural = "" if faults == 1 else "s"
    return f"broken, {faults} fault{plural}" if found["fewest_faults"] else f"broken, ≤ {faults} fault{plural} (not proven fewest)"


def summary(jobs: list[Job], rows: dict[str, dict]) -> dict | None:
    """The verify jobs of a batch for batch.json: how many hold, are broken or unknown, and each one's record with its
    bounds; None when the manifest has no verify job."""
    results = []
    for job in jobs:
        row = rows.get(job.id)
        if job.parameters["task"] != "verify" or row is None:
            continue
        p = job.parameters
        found = json.loads(row["verdicts"]) if row.get("verdicts") and row["status"] != "error" else {}
        results.append({
            "id": job.id, "program": row["program"], "status": row["status"], "error": row["error"],
            "horizon": p["horizon"], "delivery": p["delivery"], "max_delay": p["max_delay"], "loss_until": p["loss_until"],
            "crashes": p["crashes"], "nodes": p["nodes"], "pre": p["pre"], "post": p["post"],
            "holds": found.get("holds"), **({"vacuous": found.get("vacuous", False)} if found.get("holds") else {}),
            **({"eventual": True, "exact": found.get("exact"), "K": found.get("K")} if p["eventual"] else {}),
            "complete": found.get("complete", False), "faults": found.get("faults"),
            "counterexample": found.get("counterexample"), "bound": found.get("bound"), "seconds": row["seconds"],
        })
    if not results:
        return None
    return {
        "jobs": len(results),
        "hold": sum(r["holds"] is True for r in results),
        "broken": sum(r["holds"] is False for r in results),
        "unknown": sum(r["holds"] is None for r in results),  # stopped, or failed
        "results": results,
    }
