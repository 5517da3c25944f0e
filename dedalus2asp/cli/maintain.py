"""`maintain`: keep the view of a DDlog program while bursts of base updates come (psn2010)."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Optional

import typer

from ..lang.diagnostics import DiagnosticError
from ..maintain import engines, show, store
from ..maintain.check import definition8
from ..maintain.explore import TooLarge, explore, run_lines
from ..maintain.picture import spacetime
from ..maintain.view import changes, difference, recompute
from ..maintain.provenance import Provenance
from ..maintain.psn import TooManyDerivations
from ..maintain.reading import read_program
from ..maintain.schedule import SCHEDULES
from ..maintain.updates import Base, parse_fact, read_base, read_updates
from .console import EXIT_INCOMPLETE, EXIT_NO, fail, say, stderr, usage
from .progress import Progress, QuietOpt


def maintain_(
    program: Path = typer.Argument(..., metavar="PROG", help="DDlog program in tr2009's located notation (psn2010 §2.2), or positive "
                                   "Dedalus whose relations are simply persisted", show_default=False),
    input_: Optional[Path] = typer.Option(None, "--input", "-i", help="The base facts E: a located .facts or JSON input "
                                          "(the program's own facts join them)", show_default=False),
    updates: Path = typer.Option(..., "--updates", "-u", help="Bursts of updates: text (+fact. / -fact. a line, '---' "
                                 "between bursts), JSON, or Parquet tables R.parquet (burst, op, arguments)",
                                 show_default=False),
    engine: str = typer.Option("local", "--engine", help="local or spark"),
    algorithm: str = typer.Option("psn", "--algorithm", help="psn (Algorithm 1 with derivation sets), recompute, dred "
                                  "(delete, re-derive, insert; set semantics), or eager-discard (Liu et al.'s FIFO-only "
                                  "deletion, to show it fail)"),
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
    explore_: bool = typer.Option(False, "--explore", help="Instead of one run: every PSN execution of each burst (every "
                                  "order of picks), the views they end in (one: psn2010 Corollary 22) and whether all end "
                                  "(Theorem 20); exit 1 if a view differs from the recomputed one. For small programs"),
    svg: Optional[Path] = typer.Option(None, "--svg", help="Write the spacetime picture of the run's picks (with --explore: "
                                       "of an execution that ends in a wrong view, else of the first one)",
                                       show_default=False),
    json_: bool = typer.Option(False, "--json", help="Print one JSON object: the view after the last burst (as --input "
                               "reads it) and per burst what changed, the updates, messages and seconds"),
    quiet: bool = QuietOpt,
) -> None:
    """Maintain the view of PROG over --input while the bursts of --updates come: pipelined semi-naive evaluation
    with derivation sets (Nigam, Jia, Loo, Scedrov, Maintaining distributed recursive views incrementally, 2010)."""
    if schedule not in SCHEDULES:
        usage("bad-option", f"--schedule must be one of {', '.join(SCHEDULES)}, not {schedule!r}")
    try:
        ddlog = read_program(program)
        base = Base(read_base(input_, ddlog))
        bursts = read_updates(updates, ddlog)
        target = parse_fact(explain, ddlog) if explain is not None else None
    except DiagnosticError as error:
        fail(error)
    if target is not None and (algorithm in ("recompute", "dred") or engine == "spark"):
        usage("bad-option", "--explain reads the derivation sets of PSN: use it with --algorithm psn and --engine local")
    if (explore_ or svg is not None) and (algorithm in ("recompute", "dred") or engine != "local"):
        usage("bad-option", "--explore and --svg follow PSN's picks: use them with --algorithm psn or eager-discard "
              "and --engine local")
    if explore_:
        _explore(ddlog, base, bursts, algorithm == "eager-discard", json_, svg)
        return
    progress = Progress("maintain", "burst", len(bursts), quiet=quiet)
    try:
        maintainer = engines.make(engine, algorithm, schedule, seed,
                                  progress=lambda picks, pending: progress.update(progress.done, picks=picks, pending=pending))
        trace: list = []
        if svg is not None:
            maintainer.trace = trace
    except ValueError as error:
        usage("bad-option", str(error))
    run = {"program": store.fingerprint(program), "input": store.fingerprint(input_), "updates": store.fingerprint(updates),
           "engine": engine, "algorithm": algorithm, "schedule": schedule, "seed": seed}
    done, results = _resume(out, run, base, quiet)
    try:
        maintainer.start(ddlog, base.facts)
    except TooManyDerivations as error:
        stderr.print(f"maintain: stopped while building the view of the base: {error}")
        raise typer.Exit(EXIT_INCOMPLETE) from None
    provenance = Provenance(target) if target is not None else None
    if provenance is not None:
        provenance.now.update(maintainer.psn.copies(target))
    failed = False
    view = maintainer.view()
    sizes = show.sizes(view, ddlog)  # relation → facts in the view, kept up to date burst by burst
    last = view  # the view after the last burst, for an engine that does not report what changed
    if not json_ and not done:
        say("\n".join([f"view of the base: {show.size(sizes)}"] + show.view_lines(view, ddlog)) + "\n")
    if out is not None and not done:
        _stored(lambda: (store.write_view(out, 0, view, ddlog), store.write_checkpoint(out, base.facts, run, 0, [])), out)
    progress.update(done)
    for burst in bursts[done:]:
        try:
            base.apply(burst)
        except DiagnosticError as error:
            progress.close()
            fail(error)
        try:
            stats = maintainer.apply(burst)
        except TooManyDerivations as error:
            progress.close()
            stderr.print(f"maintain: stopped in burst {burst.number}: {error}")
            raise typer.Exit(EXIT_INCOMPLETE) from None
        view = None
        if stats.changes is None:  # the engine leaves them to a comparison of its views
            view = maintainer.view()
            inserted, deleted = changes(last.shown(ddlog), view.shown(ddlog))
            last = view
        else:
            inserted, deleted = stats.changes
        show.resize(sizes, inserted, deleted)
        result = {**stats.as_json(), "inserted": _facts(inserted), "deleted": _facts(deleted)}
        wrong = None
        if check:
            view = view or maintainer.view()
            wrong = definition8(view, ddlog, base.facts)
            result["check"] = not wrong
            failed |= bool(wrong)
        if provenance is not None:
            provenance.follow(burst.number, burst.deleted, maintainer.psn.copies(target))
        results.append(result)
        if out is not None:
            view = view or maintainer.view()
            _stored(lambda: (store.write_view(out, burst.number, view, ddlog),
                             store.write_checkpoint(out, base.facts, run, burst.number, results)), out)
        if not json_:
            text = [f"burst {burst.number}: {len(burst.updates)} update(s); view: {show.size(sizes)}"]
            text += show.changed_lines("inserted", inserted) + show.changed_lines("deleted", deleted)
            if not inserted and not deleted:
                text.append("  the view is unchanged")
            text += show.work_lines(stats)
            if check:
                text.append("  check: " + ("the view equals the view recomputed from E ⊎ I ∖ D (psn2010 Definition 8)"
                                           if not wrong else "the view differs from the view recomputed from E ⊎ I ∖ D:"))
                text += [f"    {line}" for line in (wrong.lines() if wrong else [])]
            if sum(sizes.values()) <= show.MAX_SHOWN:
                text += show.view_lines(view or maintainer.view(), ddlog)
            say("\n".join(text) + "\n")
        progress.update(burst.number)
    progress.close()
    if svg is not None:
        _write(svg, spacetime(trace, f"PSN, {schedule} schedule: {program.name}, bursts 1–{len(bursts)}"))
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
              "choose another --out")
    base.facts = store.read_base(out)
    if not quiet:
        stderr.print(f"maintain: resuming after burst {saved['burst']} (checkpoint in {out})")
    return saved["burst"], list(saved["bursts"])


def _stored(write, out: Path) -> None:
    """Run `write` (of `--out DIR`); a directory that cannot be written is a user error."""
    try:
        write()
    except OSError as exc:
        usage("io", f"cannot write to --out {out}: {exc.strerror or exc}")


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        usage("io", f"cannot write {path}: {exc.strerror or exc}")
    stderr.print(f"wrote {path}")


def _explore(ddlog, base: Base, bursts, eager: bool, json_: bool, svg: Path | None) -> None:
    """`--explore`: every execution of every burst, from the view of the base before it."""
    results, lines, failed, shown = [], [], False, None
    for burst in bursts:
        try:
            found = explore(ddlog, base.facts, burst, eager=eager)
        except TooLarge as error:
            usage("too-large", f"burst {burst.number}: {error}: --explore is for small programs and bursts")
        before = Counter(base.facts)
        try:
            base.apply(burst)
        except DiagnosticError as error:
            fail(error)
        expected = recompute(ddlog, base.facts)
        wrong = [(view, run) for view, run in found.finals.values() if difference(view.shown(ddlog), expected)]
        failed |= bool(wrong) or found.stuck > 0
        if shown is None and (wrong or burst is bursts[-1]):
            shown = (burst.number, (wrong or list(found.finals.values()))[0][1])
        results.append({"burst": burst.number, "executions": found.executions, "states": found.states,
                        "longest": found.longest, "stuck": found.stuck, "views": len(found.finals), "wrong": len(wrong)})
        lines.append(f"burst {burst.number}: {found.executions:,} executions (every order of picks), {found.states:,} states, "
                     f"the longest {found.longest} picks; all end" + (f", {found.stuck} stuck" if found.stuck else ""))
        if len(found.finals) == 1 and not wrong:
            lines.append("  every execution ends in the same view, the recomputed one (psn2010 Corollary 22)")
        else:
            lines.append(f"  {len(found.finals)} different views at the end; {len(wrong)} differ from the recomputed view")
        for view, run in wrong[:1]:
            diff = difference(view.shown(ddlog), expected)
            lines.append(f"  an execution that ends wrong ({'; '.join(diff.lines())}):")
            lines += ["  " + line for line in run_lines(run)]
        del before
    if svg is not None and shown is not None:
        _write(svg, spacetime(shown[1], f"an execution of burst {shown[0]}" + (" (eager discard)" if eager else "")))
    if json_:
        sys.stdout.write(json.dumps({"explore": results, "correct": not failed}, indent=1) + "\n")
    else:
        say("\n".join(lines) + "\n")
    if failed:
        raise typer.Exit(EXIT_NO)
