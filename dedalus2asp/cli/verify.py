"""`verify`: Molly's question, every pre fact has its post fact at the last step, under every fault and schedule of the bounds.

Exit status: 0 the invariant holds within the bounds; 1 a counterexample; 2 a bad program, input
or option (no relation --pre or --post, different arities); 3 stopped (--timeout) before an answer,
or an `--eventual` answer that is not exact.
`--split K` asks the same question as K parts over disjoint cubes of fault atoms (`verify_split`),
in turn or on Spark executors (`--engine spark`); the verdict is the unsplit one.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Optional

import typer

from ..questions import lineage, verify, verify_search
from ..questions.verdict import Verdict
from ..asp import solve
from ..bounds import Encoding, Network, Semantics
from ..formats import render
from ..formats.molly import index_html, runs_document
from ..lang.diagnostics import Diagnostic, DiagnosticError
from .console import EXIT_INCOMPLETE, EXIT_NO, emit, fail, say, stderr, usage
from .options import (LIMITS, NETWORK, Dialect, DialectOpt, EncodingOpt, EventualOpt, HorizonOpt, InputOpt, JsonOpt, Limits,
                      MasterOpt, Prog, SemanticsOpt, SplitEngineOpt, TimeoutOpt, bounds, check_engine, eventual_bounds,
                      limit_options, load, network_options, within)
from .progress import Progress, QuietOpt
from .solve import MAX_SPLIT
from .spark import SparkLogOpt, spark_level

SearchHorizonOpt = typer.Option(False, "--search-horizon", help="Try horizons 0..T and report the smallest with a counterexample")
OutOpt = typer.Option(None, "--out", help="Write DIR/runs.json (Molly's runs), an SVG per run and DIR/index.html")
SplitOpt = typer.Option(
    None, "--split", min=1, max=MAX_SPLIT, help="Cut the fault space into K parts (cubes of fault atoms), each solved on its own"
)
LineageOpt = typer.Option(
    True, "--lineage/--no-lineage",
    help="Explain a counterexample by the lineage of its missing post facts, within its own share of time (default: yes)",
)


@limit_options
@network_options
def verify_(
    program: Path = Prog,
    input_: Path = InputOpt,
    horizon: int = HorizonOpt,
    eventual: bool = EventualOpt,
    network: Network = NETWORK,
    pre: str = typer.Option("pre", "--pre", help="The relation whose facts need a match (Molly's convention: pre)"),
    post: str = typer.Option("post", "--post", help="The relation that matches them (Molly's convention: post)"),
    semantics: Semantics = SemanticsOpt,
    encoding: Encoding = EncodingOpt,
    search_horizon: bool = SearchHorizonOpt,
    all_: bool = typer.Option(False, "--all", help="Also list the minimal fault sets that break the invariant"),
    out: Optional[Path] = OutOpt,
    timeout: Optional[float] = TimeoutOpt,
    json_: bool = JsonOpt,
    dialect: Dialect = DialectOpt,
    split: Optional[int] = SplitOpt,
    engine_: str = SplitEngineOpt,
    master: Optional[str] = MasterOpt,
    spark_log: Optional[str] = SparkLogOpt,
    quiet: bool = QuietOpt,
    lineage_: bool = LineageOpt,
    limits: Limits = LIMITS,
) -> None:
    """Does every pre fact have its matching post fact at the last step, whatever is lost and whoever crashes (Molly)?

    The verdict states its bounds; the counterexample has the fewest faults.
    --search-horizon: the smallest horizon with a counterexample.
    --all: every minimal fault set. --out DIR: runs.json, SVGs, index.html.
    --split K: K parts of the fault space (progress on standard error).
    --eventual: every pre fact ultimately matched in every infinite run, or a lasso counterexample (no --eot to guess).
    Exit status: 0 holds within the bounds, 1 counterexample (with --eventual a lasso),
    2 bad program, input or option, 3 stopped before an answer, or with --eventual a bounded answer (not exact).
    """
    _check_split(split, engine_, search_horizon)
    if eventual and (search_horizon or split is not None):
        usage("bad-option", "--eventual answers for every horizon at once: give it without "
              + ("--search-horizon" if search_horizon else "--split"), "--eventual")
    level = spark_level(spark_log)
    bounds_ = eventual_bounds(network, semantics, encoding) if eventual else bounds(horizon, semantics, encoding, network)
    prog, instance = load(program, input_, dialect, bounds_.network)
    within(program, prog, instance, bounds_, limits)  # --max-ground: the rule to blame, exit 2
    question = verify_search.search if search_horizon else verify.verify
    split_verdict, success = None, None
    try:
        if split is None:  # --timeout through grounding, --max-memory: the solver's own process, exit 3
            verdict, success = solve.isolated(_answer, question, prog, instance, bounds_, pre.strip(), post.strip(), all_,
                                              out is not None, lineage_, timeout=timeout, max_memory=limits.max_memory)
        else:
            split_verdict = _split_answer(prog, instance, bounds_, split, pre.strip(), post.strip(), timeout, engine_,
                                          master, level, quiet, all_, limits, lineage_)
            verdict = split_verdict.verdict
    except verify.InvariantError as error:
        fail(DiagnosticError([Diagnostic("bad-invariant", str(error), filename=str(program))]))
    except DiagnosticError as error:  # the program within the bounds: an input event beyond the horizon
        fail(error)
    if out is not None and verdict.holds is not None:
        if split_verdict is not None:
            success = verify.fault_free_run(prog, instance, bounds_, pre.strip(), post.strip())
        write_runs(out, verdict, success)
    _say_verdict(verdict if split_verdict is None else split_verdict, verdict, json_, timeout)


def _check_split(split: int | None, engine_: str, search_horizon: bool) -> None:
    """--engine runs the parts of --split K, which splits the question at one horizon: exit 2 otherwise."""
    check_engine(engine_)
    if split is None and engine_ != "local":
        usage("bad-option", f"--engine {engine_} runs the parts of --split K: give --split too")
    if split is not None and search_horizon:
        usage("bad-option", "--split cannot be combined with --search-horizon (it splits the question at one horizon)")


def _split_answer(prog, instance, bounds_, split: int, pre: str, post: str, timeout, engine_: str, master, level: str,
                  quiet: bool, all_: bool, limits: Limits, explain: bool = True):
    """`verify --split K`: the parts in turn or on Spark executors (progress on standard error); a counterexample
    with the lineage of its missing post facts."""
    from ..questions.verify_split import verify_split

    with Progress("verify", "part", split, quiet=quiet) as progress:
        # in turn, the parts run in the solver's own process, as unsplit: --timeout through grounding, --max-memory
        split_verdict = verify_split(prog, instance, bounds_, split, pre, post, timeout, engine_,
                                     master=master, log_level=level, progress=progress.update, all_=all_,
                                     max_memory=limits.max_memory)
    verdict = split_verdict.verdict
    if verdict.holds is False:
        verdict = _explained(verdict, prog, instance, timeout, explain)
        split_verdict = replace(split_verdict, verdict=verdict)
    return split_verdict


def _say_verdict(answer, verdict: Verdict, json_: bool, timeout) -> None:
    """The answer (the verdict, or the split verdict with its parts) on standard output, and the exit status:
    0 holds, 1 a counterexample, 3 stopped before an answer or an eventual answer that is not exact."""
    if json_:
        emit(json.dumps(answer.as_dict(), indent=2))
    else:
        say(answer.describe())
    if verdict.holds is None:
        stderr.print(f"timeout: stopped after {timeout} s before an answer (raise --timeout or lower --horizon)")
        raise typer.Exit(EXIT_INCOMPLETE)
    if verdict.exact is False:  # --eventual: "holds" over the lassos of K steps only, or a bounded run: as cron exits
        stderr.print(f"not exact: {verdict.exactness.reason}")
        raise typer.Exit(EXIT_INCOMPLETE)
    if not verdict.holds:
        raise typer.Exit(EXIT_NO)


def _answer(question, prog, instance, bounds_, pre: str, post: str, all_: bool, success: bool, explain: bool = True,
            timeout=None):
    """The verdict and, for --out (`success`), a failure-free run at the verdict's horizon: both ground a
    program, so both run in the solver's process, within --timeout and --max-memory."""
    verdict = question(prog, instance, bounds_, pre, post, timeout, all_)
    verdict = _explained(verdict, prog, instance, timeout, explain)
    if not success or verdict.holds is None:
        return verdict, None
    return verdict, verify.fault_free_run(prog, instance, verdict.bounds, pre, post)


def _explained(verdict: Verdict, prog, instance, timeout, explain: bool = True) -> Verdict:
    """A counterexample with the lineage of each missing post fact (why it was expected, questions/lineage.py),
    within its own share of time (`lineage.share`: a few times the verdict's) and what is left of `timeout`;
    another verdict, or any under --no-lineage, as it is."""
    if verdict.holds is not False or not explain:
        return verdict
    left = None if timeout is None else max(timeout - verdict.seconds, 0.0)
    return lineage.attach(verdict, prog, instance, lineage.share(verdict.seconds, left))


def write_runs(out: Path, verdict: Verdict, success) -> None:
    """--out DIR: runs.json (docs/runs-schema.json), run-K.svg per run and index.html."""
    document = runs_document(verdict, success)
    models = ([success] if success is not None else []) + [
        w.model for w in (verdict.witnesses or ((verdict.counterexample,) if verdict.counterexample else ()))
    ]
    try:
        out.mkdir(parents=True, exist_ok=True)
        (out / "runs.json").write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
        for k, model in enumerate(models):
            (out / f"run-{k}.svg").write_text(render(model, "svg"), encoding="utf-8")
        (out / "index.html").write_text(index_html(document), encoding="utf-8")
    except OSError as error:
        usage("io", f"cannot write {out}: {error.strerror or error}", str(out))
