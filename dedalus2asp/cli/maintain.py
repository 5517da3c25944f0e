"""`maintain`: keep the view of a DDlog program while bursts of base updates come (psn2010)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer

from ..lang.diagnostics import DiagnosticError
from ..maintain import engines, show, store
from ..maintain.check import definition8
from ..maintain.provenance import Provenance
from ..maintain.reading import read_program
from ..maintain.schedule import SCHEDULES
from ..maintain.updates import Base, parse_fact, read_base, read_updates
from ..maintain.view import changes
from .console import EXIT_NO, fail, say, stderr, usage
from .progress import Progress, QuietOpt


def maintain_(
    program: Path = typer.Argument(..., help="DDlog program in tr2009's located notation (psn2010 §2.2), or positive "
                                   "Dedalus whose relations are simply persisted", show_default=False),
    input_: Optional[Path] = typer.Option(None, "--input", "-i", help="The base facts E: a located .facts or JSON input "
                                          "(the program's own facts join them)", show_default=False),
    updates: Path = typer.Option(..., "--updates", "-u", help="Bursts of updates: text (+fact. / -fact. a line, '---' "
                                 "between bursts), JSON, or Parquet tables R.parquet (burst, op, arguments)",
                                 show_default=False),
    engine: str = typer.Option("local", "--engine", help="local or spark"),
    algorithm: str = typer.Option("psn", "--algorithm", help="psn (Algorithm 1 with derivation sets), recompute, "
                                  "eager-discard (Liu et al.'s FIFO-only deletion, to show it fail), or dred (--engine spark: "
                                  "DRed on sets in recursive components)"),
    schedule: str = typer.Option("fifo", "--schedule", help="The order updates are picked in: fifo, reversed, "
                                 "random (--seed) or adversarial (insertions first, newest first)"),
    seed: int = typer.Option(0, "--seed", help="Seed of --schedule random"),
    check: bool = typer.Option(False, "--check", help="After every burst, compare the view with the view recomputed "
                               "from E ⊎ I ∖ D (psn2010 Definition 8); exit 1 if they differ"),
    out: Optional[Path] = typer.Option(None, "--out", help="Write the view and counts after every burst (Parquet) and a "
                                       "checkpoint; a run started again with the same DIR resumes after its last "
                                       "completed burst", show_default=False),
    explain: Optional[str] = typer.Option(None, "--explain", help="FACT: the derivations that support it after the "
                                          "last burst, and the deleted base facts that took the others away",
                                          show_default=False),
    json_: bool = typer.Option(False, "--json", help="Print one JSON object: the view after the last burst (as --input "
                               "reads it) and per burst what changed, the updates, messages and seconds"),
    quiet: bool = QuietOpt,
) -> None:
    """Maintain the view of PROG over --input while the bursts of --updates come: pipelined semi-naive evaluation
    with derivation sets (Nigam, Jia, Loo, Scedrov, Maintaining distributed recursive views incrementally, 2010)."""
    if schedule not in SCHEDULES:
        usage("bad-option", f"--schedule must be one of {', '.join(SCHEDULES)}, not {schedule!r}", "--schedule")
    try:
        ddlog = read_program(program)
        base = Base(read_base(input_, ddlog))
        bursts = read_updates(updates, ddlog)
        target = parse_fact(explain, ddlog) if explain is not None else None
    except DiagnosticError as error:
        fail(error)
    if target is not None and (algorithm == "recompute" or engine == "spark"):
        usage("bad-option", "--explain reads the derivation sets of PSN: use it with --algorithm psn", "--explain")
    progress = Progress("maintain", "burst", len(bursts), quiet=quiet)
    try:
        maintainer = engines.make(engine, algorithm, schedule, seed,
                                  progress=lambda picks, pending: progress.update(progress.done, picks=picks, pending=pending))
    except ValueError as error:
        usage("bad-option", str(error), "--engine" if "engine" in str(error).lower() else "--algorithm")
    run = {"program": store.fingerprint(program), "input": store.fingerprint(input_), "updates": store.fingerprint(updates),
           "engine": engine, "algorithm": algorithm, "schedule": schedule, "seed": seed}
    done, results = _resume(out, run, base, quiet)
    maintainer.start(ddlog, base.facts)
    provenance = Provenance(target) if target is not None else None
    if provenance is not None:
        provenance.now.update(maintainer.psn.copies(target))
    failed = False
    lines: list[str] = []
    if not json_ and not done:
        lines += [f"view of the base: {show.size(maintainer.view(), ddlog)}"] + show.view_lines(maintainer.view(), ddlog)
    if out is not None and not done:
        store.write_view(out, 0, maintainer.view(), ddlog)
        store.write_checkpoint(out, base.facts, run, 0, [])
    say("\n".join(lines) + "\n" if lines else "")
    progress.update(done)
    for burst in bursts[done:]:
        before = maintainer.view()
        try:
            base.apply(burst)
        except DiagnosticError as error:
            progress.close()
            fail(error)
        stats = maintainer.apply(burst)
        after = maintainer.view()
        inserted, deleted = changes(before.shown(ddlog), after.shown(ddlog))
        result = {**stats.as_json(), "inserted": _facts(inserted), "deleted": _facts(deleted)}
        if check:
            wrong = definition8(after, ddlog, base.facts)
            result["check"] = not wrong
            failed |= bool(wrong)
        if provenance is not None:
            provenance.follow(burst.number, burst.deleted, maintainer.psn.copies(target))
        results.append(result)
        if out is not None:
            store.write_view(out, burst.number, after, ddlog)
            store.write_checkpoint(out, base.facts, run, burst.number, results)
        if not json_:
            text = [f"burst {burst.number}: {len(burst.updates)} update(s); view: {show.size(after, ddlog)}"]
            text += show.changed_lines("inserted", inserted) + show.changed_lines("deleted", deleted)
            if not inserted and not deleted:
                text.append("  the view is unchanged")
            text += show.work_lines(stats)
            if check:
                text.append("  check: " + ("the view equals the view recomputed from E ⊎ I ∖ D (psn2010 Definition 8)"
                                           if not wrong else "the view differs from the view recomputed from E ⊎ I ∖ D:"))
                text += [f"    {line}" for line in (wrong.lines() if wrong else [])]
            text += show.view_lines(after, ddlog)
            say("\n".join(text) + "\n")
        progress.update(burst.number)
    progress.close()
    if json_:
        document = {"view": maintainer.view().as_json(ddlog), "bursts": results,
                    "engine": engine, "algorithm": algorithm, "schedule": schedule, "seed": seed}
        if check:
            document["check"] = not failed
        if provenance is not None:
            document["explain"] = provenance.lines(ddlog)
        sys.stdout.write(json.dumps(document, indent=1) + "\n")
    elif provenance is not None:
        say("\n".join(provenance.lines(ddlog)) + "\n")
    if failed:
        raise typer.Exit(EXIT_NO)


def _facts(facts) -> dict[str, list[list[str]]]:
    out: dict[str, list] = {}
    for f in facts:
        out.setdefault(f.relation, []).append([str(a) for a in f.args])
    return out


def _resume(out: Path | None, run: dict, base: Base, quiet: bool) -> tuple[int, list[dict]]:
    """The bursts a checkpoint in `out` says are done and their results; `base` set to the base after them."""
    if out is None:
        return 0, []
    saved = store.read_checkpoint(out)
    if saved is None:
        return 0, []
    if any(saved.get(k) != v for k, v in run.items()):
        differ = [k for k, v in run.items() if saved.get(k) != v]
        usage("bad-option", f"{out} holds the checkpoint of another run (its {', '.join(differ)} differ): remove it or "
              "choose another --out", "--out")
    base.facts = store.read_base(out)
    if not quiet:
        stderr.print(f"maintain: resuming after burst {saved['burst']} (checkpoint in {out})")
    return saved["burst"], list(saved["bursts"])
