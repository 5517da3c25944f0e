"""The commands for large inputs and many jobs: run (one run, local or on Spark) and batch (a manifest of jobs)."""

from __future__ import annotations

import os
import time
from dataclasses import replace
from pathlib import Path
from typing import Optional

import typer
from rich.markup import escape

from .. import pipeline
from ..lang import located, parser
from ..lang.diagnostics import DiagnosticError
from ..runs.evaluator import one_node_at_a_time
from .console import EXIT_INTERRUPTED, EXIT_NO, fail, stderr, stdout, usage, warn
from .progress import Progress, QuietOpt
from .options import (CrashModelOpt, CrashesOpt, Dialect, DialectOpt, EffOpt, LossOpt, MasterOpt, NodesOpt, Prog, check_engine, need_instance,
                      network, nodes_warnings)


SPARK_LOG_LEVELS = ("OFF", "FATAL", "ERROR", "WARN", "INFO", "DEBUG", "TRACE", "ALL")
SparkLogOpt = typer.Option(None, "--spark-log", help="Show Spark's own log from LEVEL on (OFF ... ALL; default: none)", show_default=False)


def spark_level(level: str | None) -> str:
    """The log level Spark is set to: `--spark-log LEVEL`, else OFF (its log stays out of the terminal)."""
    if level is None:
        return "OFF"
    if level.upper() not in SPARK_LOG_LEVELS:
        usage("bad-option", f"--spark-log must be one of {', '.join(SPARK_LOG_LEVELS)}, not {level!r}")
    return level.upper()


def run_(
    program: Path = Prog,
    input_: Optional[Path] = typer.Option(None, "--input", "-i", help="Input H: .facts, .json, or a directory of CSV/Parquet tables (first column the node; a located program's: its location column); not needed when PROG (located or Molly) carries its own facts", show_default=False),
    steps: int = typer.Option(..., "--steps", "-k", min=1, help="Every node performs steps 0..K-1", show_default=False),
    schedule: str = typer.Option("sync", "--schedule", help="sync: arrival at the next step; random: 1..D steps later by a seeded hash"),
    max_delay: int = typer.Option(3, "--max-delay", "-D", min=1, help="The largest delay of the random schedule"),
    seed: int = typer.Option(0, "--seed", help="Seed of the random schedule, and of the faults drawn within --loss-until and --crashes"),
    loss_until: Optional[int] = LossOpt,
    eff: Optional[int] = EffOpt,
    crashes: int = CrashesOpt,
    crash: list[str] = typer.Option([], "--crash", help="NODE@STEP: NODE crashes at STEP, counted from 0 (Molly's time STEP+1; repeatable)", show_default=False),
    crash_model: str = CrashModelOpt,
    omit: list[str] = typer.Option([], "--omit", help="SENDER@STEP:ADDRESSEE: the messages of that channel at STEP are lost (repeatable)", show_default=False),
    engine_: str = typer.Option("local", "--engine", help="local (Python sets) or spark (DataFrames)"),
    master: Optional[str] = MasterOpt,
    out: Path = typer.Option(..., "--out", "-o", help="Directory for the Parquet tables trace, messages, outputs and run.json", show_default=False),
    dialect: Dialect = DialectOpt,
    nodes: Optional[str] = NodesOpt,
    quiet: bool = QuietOpt,
    spark_log: Optional[str] = SparkLogOpt,
) -> None:
    """Compute one run of PROG on a (large) input (tplp2016 §5.1) and write it as Parquet tables.

    Progress (step k of K, trace rows so far) goes to standard error; run.json records the Spark jobs of each step.
    With --loss-until or --crashes the run has faults drawn from --seed within that budget (docs/faults.md): up to C
    nodes crash, and a message to another node sent before step E is lost on some channels; with --crash and --omit
    it has exactly those (a counterexample of verify, computed again); run.json names them. A crashed node keeps
    deducing under --crash-model clock (Molly's clock rules: only its messages to others are lost); under
    fail-stop it holds, receives, derives and sends nothing from its crash step on.
    """
    from ..runs import engine as engines

    if schedule not in engines.SCHEDULES:
        usage("bad-option", f"--schedule must be one of {', '.join(engines.SCHEDULES)}, not {schedule!r}")
    check_engine(engine_)
    level = spark_level(spark_log)
    named = network(nodes=nodes)  # --nodes: Molly's -N
    start = time.perf_counter()
    prog, data, spark = _loaded(program, input_, steps, dialect, engine_, master, level, named)
    try:  # before a Spark session starts
        one_node_at_a_time(prog, f"the {engine_} run engine")
    except DiagnosticError as error:
        fail(error)
    loaded = time.perf_counter() - start
    if engine_ == "spark" and data.rows is not None:
        spark = engines.spark_session(master, log_level=level)
    budget = network(delivery=schedule if schedule == "sync" else "async", loss_until=loss_until, eff=eff, crashes=crashes,
                     crash_model=crash_model)
    chosen = _scheduled(engines.Schedule(schedule, max_delay, seed, fail_stop=crash_model == "fail-stop"), budget, crash,
                        omit, data.network, steps)
    data = with_crash_facts(data, prog, chosen, spark)
    with Progress("run", "step", steps, quiet=quiet) as progress:
        result = engines.run(prog, data, steps, chosen, engine_, spark,
                             progress=lambda done, rows: progress.update(done, rows=rows))
    try:
        info = engines.write_run(
            result,
            out,
            {"program": str(program), "input": None if input_ is None else str(input_), "program_hash": engines.program_hash(prog),
             "master": master or os.environ.get("SPARK_MASTER") if engine_ == "spark" else None,
             "timings": {"load": round(loaded, 4)}, **_faults(budget, chosen, crash_model)},
        )
    except OSError as exc:
        usage("io", f"cannot write the run: {exc.strerror or exc}", str(out))
    _say_run(info, steps, engine_, out, budget, chosen)


def _faults(budget, chosen, crash_model: str) -> dict:
    """run.json's `faults`: the budget, the crashes and omissions of the run and the crash model; none without faults."""
    if not (budget.loss_until or budget.crashes or chosen.crashes or chosen.omissions):
        return {}
    return {"faults": {"loss_until": budget.loss_until or 0, "max_crashes": budget.crashes,
                       "crashes": [list(c) for c in chosen.crashes], "omissions": [list(o) for o in chosen.omissions],
                       "crash_model": crash_model}}


def _loaded(program: Path, input_: Path | None, steps: int, dialect: Dialect, engine_: str, master: str | None, level: str,
            named):
    """`run`'s program and input (a file, or a directory of tables, read on Spark with --engine spark; none for a
    Molly program that carries its facts, with the nodes of --nodes) and the Spark session that read them (None if
    none did); an error in either exits 2."""
    from ..runs import engine as engines

    try:
        if input_ is not None and input_.is_dir():
            prog, _, warnings = pipeline.load(program, dialect=dialect.value)
            source = parser.load_source(program, dialect.value)
            spark = engines.spark_session(master, log_level=level) if engine_ == "spark" else None
            data = engines.read_directory(input_, prog, spark, source if isinstance(source, located.LocatedProgram) else None)
        else:
            prog, instance, warnings = pipeline.load(program, input_, dialect.value)
            need_instance(program, instance, named)
            warnings = list(warnings) + nodes_warnings(program, prog, instance, named)
            instance = named.populate(instance)
            located.check_events(instance, steps - 1, run=True)
            spark = None
            data = engines.from_instance(instance, prog)
    except DiagnosticError as error:
        fail(error)
    warn(warnings)
    return prog, data, spark


def _scheduled(schedule, budget, crash: list[str], omit: list[str], nodes, steps: int):
    """`schedule` with the run's faults: those --crash and --omit name, or those drawn by its seed within
    --loss-until and --crashes (`budget`); naming and drawing them both exits 2."""
    explicit = failure_specification(crash, omit, nodes)
    if explicit != ((), ()) and (budget.loss_until or budget.crashes):
        usage("bad-option", "--crash and --omit name the faults of the run; --loss-until, --eff and --crashes draw them: "
              "give one or the other", "--crash" if crash else "--omit")
    return replace(schedule, crashes=explicit[0], omissions=explicit[1]).with_faults(
        nodes, steps, budget.loss_until or 0, budget.crashes)


def _say_run(info: dict, steps: int, engine_: str, out: Path, budget, chosen) -> None:
    """What `run` did, on standard output: the rows it wrote, and its faults when it has some."""
    schedule, seed = chosen.kind, chosen.seed
    rows = info["rows"]
    stdout.print(
        f"{steps} steps ({schedule} schedule, {engine_} engine): {rows['trace']} trace facts, {rows['messages']} "
        f"messages ({info['pending']} pending), {rows['outputs']} output facts; wrote {out}"
    )
    if budget.loss_until or budget.crashes or chosen.crashes or chosen.omissions:
        crashed = ", ".join(f"{x} at step {s}" for x, s in chosen.crashes) or "none"
        drawn = f"drawn by seed {seed}" if budget.loss_until or budget.crashes else "given"
        model = " (fail-stop)" if chosen.fail_stop and chosen.crashes else ""
        stdout.print(f"faults {drawn}: crashed {crashed}{model}; {len(chosen.omissions)} channel(s) omitted")


def failure_specification(crash: list[str], omit: list[str], network) -> tuple[tuple, tuple]:
    """--crash NODE@STEP and --omit SENDER@STEP:ADDRESSEE as the crashes and omissions of a schedule; a malformed
    value, a node outside the network or a node that crashes twice exits 2. A bare name is the program's string
    when the network has no such constant, as --nodes spells Molly's nodes (`--crash C@5` is "C")."""
    import re

    nodes = set(network)

    def node(name: str, option: str, value: str) -> str:
        if name not in nodes and f'"{name}"' in nodes:  # Molly's spelling: a bare C is the program's "C" (--nodes)
            return f'"{name}"'
        if name not in nodes:
            usage("bad-option", f"{option} {value}: {name!r} is not a node of the network ({', '.join(sorted(nodes))})", option)
        return name

    crashes, omissions = [], []
    for value in crash:
        found = re.fullmatch(r"\s*([^@:\s]+)\s*@\s*(\d+)\s*", value)
        if found is None:
            usage("bad-option", f"--crash {value!r}: write NODE@STEP, e.g. --crash c@2 (c crashes at step 2)", "--crash")
        crashes.append((node(found[1], "--crash", value), int(found[2])))
    if len({x for x, _ in crashes}) != len(crashes):
        usage("bad-option", "a node crashes at most once: --crash names each node once", "--crash")
    for value in omit:
        found = re.fullmatch(r"\s*([^@:\s]+)\s*@\s*(\d+)\s*:\s*([^@:\s]+)\s*", value)
        if found is None:
            usage("bad-option", f"--omit {value!r}: write SENDER@STEP:ADDRESSEE, e.g. --omit a@0:b (a's messages to b "
                  "sent at step 0 are lost)", "--omit")
        sender, addressee = node(found[1], "--omit", value), node(found[3], "--omit", value)
        if sender == addressee:
            usage("bad-option", f"--omit {value}: a message a node sends to itself is never lost", "--omit")
        omissions.append((sender, int(found[2]), addressee))
    return tuple(crashes), tuple(omissions)


def with_crash_facts(data, program, schedule, spark):
    """The input with crash(y, s) at every node for each crash of the schedule, when the program reads crash/2
    (docs/faults.md: nodes know the crashes of their run from the start, as in Molly)."""
    from ..bounds import CRASH

    if not schedule.crashes or program.schema().get(CRASH) != 2:
        return data
    rows = [(x, CRASH, (y, str(s))) for x in data.network for y, s in schedule.crashes]
    if data.frame is None:
        return replace(data, rows=data.rows + rows)
    from ..runs.spark import FACTS_SCHEMA

    extra = spark.createDataFrame([(x, r, list(a)) for x, r, a in rows], FACTS_SCHEMA)
    return replace(data, frame=data.frame.unionByName(extra))


def quiet_spark_context(master: str | None, level: str):
    """The SparkContext of a batch (`runs.session.spark_context`: no SQL session; its tasks are Python jobs,
    `session.PYTHON_TASKS`), its log set to `level`."""
    from ..runs.session import PYTHON_TASKS, spark_context

    return spark_context(master, log_level=level, java_options=PYTHON_TASKS)


def batch_(
    manifest: Path = typer.Argument(
        ..., help=escape("Manifest (.toml): [[grid]] and [[job]] tables"), show_default=False
    ),
    out: Path = typer.Option(..., "--out", "-o", help="Result directory (jobs, traces, messages as Parquet)", show_default=False),
    master: Optional[str] = MasterOpt,
    retry_failed: bool = typer.Option(False, "--retry-failed", help="Run again the jobs of OUT that failed (error or timeout)"),
    quiet: bool = QuietOpt,
    spark_log: Optional[str] = SparkLogOpt,
) -> None:
    """Run the jobs of MANIFEST on Spark executors; jobs already in OUT are skipped.

    A malformed manifest stops everything (exit 2, nothing started); a job that does not load, fails or times out is recorded with its error and the others go on. Exit 1 if a job of MANIFEST has failed, now or in a run before (--retry-failed runs those again); 130 on Ctrl-C, the finished jobs kept.
    """
    from ..batch import Interrupted, run_batch

    level = spark_level(spark_log)
    progress = Progress("batch", "job", quiet=quiet)
    try:
        summary = run_batch(manifest, out, master, retry_failed=retry_failed, progress=progress,
                            context_factory=lambda m: quiet_spark_context(m, level))
    except DiagnosticError as error:
        fail(error)
    except Interrupted as stopped:
        progress.close()
        stderr.print(f"interrupted: {stopped.finished} of {stopped.total} job(s) done, kept in {out}; "
                     "the same command goes on from there")
        raise typer.Exit(EXIT_INTERRUPTED) from None
    kept = len(summary["failed"]) - summary["error"] - summary["timeout"]
    stdout.print(
        f"{summary['jobs']} job(s): {summary['skipped']} already done, {summary['ran']} ran "
        f"({summary['ok']} ok, {summary['error']} error, {summary['timeout']} timeout) in {summary['seconds']} s; "
        f"results in {out}"
    )
    if "verify" in summary:  # verify jobs: a counterexample is an answer, not a failure (`batch.invariants`)
        v = summary["verify"]
        stdout.print(f"verify: {v['jobs']} job(s): {v['hold']} hold, {v['broken']} with a counterexample, "
                     f"{v['unknown']} without an answer; `dedalus2asp report {out}` lists them")
    for job in summary["failed"]:
        first = (job["error"] or "").splitlines()[0] if job["error"] else ""
        stdout.print(f"failed: {job['id']} {Path(job['program']).name} {job['task']}: {job['status']}: {first}")
    if kept:
        stdout.print(f"{kept} failed job(s) kept from an earlier run; --retry-failed runs them again")
    if summary["failed"]:
        raise typer.Exit(EXIT_NO)
