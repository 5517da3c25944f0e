"""The commands that answer a question by solving or exploring: models, count, explore, cron."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from .. import formats, inspect, pipeline
from ..asp import solve
from ..bounds import MAX_STEP, Bounds, Encoding, Mode, Network, Semantics
from ..formats import render
from ..lang import analysis, coordination
from ..lang.diagnostics import DiagnosticError
from ..questions import cron, cron_eventual
from ..questions import models as lassos
from ..runs import choice_certificate, eventual, eventual_verify, operational
from .progress import Progress, QuietOpt
from .console import EXIT_INCOMPLETE, EXIT_NO, emit, fail, incomplete, no_model, say, stderr, text_options, usage, warn, write
from .options import (NETWORK, Dialect, DialectOpt, EncodingOpt, EventualOpt, HorizonOpt, eventual_bounds, InputOpt, JsonOpt, MasterOpt, ModelsOpt,
                      Prog, SemanticsOpt, SplitEngineOpt, TimeoutOpt, bounds, network_options, check_engine, load, need_instance, prepare,
                      LIMITS, MAX_TIMEOUT, Limits, limit_options, within)


Format = Enum("Format", {name.upper(): name for name in formats.FORMATS["model"]}, type=str)
"""What `models` writes: any format of a model in the registry (`dedalus2asp.formats`)."""

MAX_SPLIT = 4096
"""The most parts `count --split K` cuts an enumeration into: each part is a solver's run (2^12 of them)."""

FORMAT_HELP = (
    "text: a node × step table per model; json: the trace document (docs/trace-schema.md); html: one report page; "
    "shiviz: one ShiViz log (causal models only). itf, svg and dot hold one model each: with -o DIR one file per "
    "model (DIR/model-K.itf.json, .svg, .dot), else the first model on stdout"
)


RelationsOpt = typer.Option(
    None, "--output-relations", show_default=False,
    help="With --eventual: the output relations R,S,... whose ultimate facts are asked (default: the .output ones)",
)

StepsOpt = typer.Option(
    None, "--steps", min=1, max=MAX_STEP, show_default=False,
    help="With --eventual: lassos of exactly K steps (every shorter lasso is one of them), instead of the completeness "
    "threshold; the answer is then not exact (exit 3)",
)

@limit_options
@network_options
def models(
    program: Path = Prog,
    input_: Path = InputOpt,
    horizon: int = HorizonOpt,
    semantics: Semantics = SemanticsOpt,
    encoding: Encoding = EncodingOpt,
    network: Network = NETWORK,
    number: int = ModelsOpt,
    timeout: Optional[float] = TimeoutOpt,
    fmt: Format = typer.Option(Format.TEXT, "--format", "-f", help=FORMAT_HELP),
    json_: bool = typer.Option(False, "--json", help="The same as --format json"),
    output: Optional[Path] = typer.Option(
        None, "--output", "-o", help="Write to this file (text, json, html, shiviz) or directory (itf, svg, dot) instead of stdout"
    ),
    svg: Optional[Path] = typer.Option(None, "--svg", help="Also write a spacetime diagram per model: DIR/model-1.svg, ..."),
    dialect: Dialect = DialectOpt,
    limits: Limits = LIMITS,
    eventual_: bool = EventualOpt,  # the one --eventual (cli/options.py): exactly one of it, --horizon and --eot
    steps: Optional[int] = StepsOpt,
    relations: Optional[str] = RelationsOpt,
) -> None:
    """Enumerate models: each one's trace (node × step) and its messages, or a document (--format). Exit 1 if there is none.
    With --eventual: the distinct ultimate outputs, each with a lasso; exit 3 when the answer is not exact."""
    if json_ and fmt not in (Format.TEXT, Format.JSON):
        usage("bad-option", f"--json is --format json: give one of them, not --format {fmt.value} too")
    fmt = Format.JSON if json_ else fmt
    if eventual_:
        if horizon is not None:
            usage("bad-option", "--eventual answers for every horizon: give it without --horizon/--eot", "--eventual")
        if fmt is Format.SHIVIZ:
            usage("bad-option", "a ShiViz log is a finite run: --eventual's lassos go in every other format", "--format")
        answer = eventual_outputs(program, input_, semantics, encoding, network, steps, timeout, dialect, relations)
        write_eventual(answer, fmt, output, svg, program)
        if not answer.lassos:
            stderr.print("no lasso: the program has no infinite run on this input" + (
                "" if answer.exact else f" within lassos of {answer.steps} steps"))
        if not answer.exact:
            raise typer.Exit(EXIT_INCOMPLETE)
        if not answer.lassos:
            raise typer.Exit(EXIT_NO)
        return
    if horizon is None:
        usage("missing-option", "give the horizon: --horizon T (steps 0..T), --eot N (T = N-1), or --eventual", "--horizon")
    if steps is not None:
        usage("bad-option", "--steps K goes with --eventual (lassos of K steps)", "--steps")
    prepared = prepare(program, input_, bounds(horizon, semantics, encoding, network), dialect, limits=limits)
    found = solve.isolated(inspect.enumerate_models, prepared.compiled, number, timeout=timeout, max_memory=limits.max_memory)
    chosen = inspect.Models(tuple(found.models), prepared.compiled.bounds, tuple(prepared.instance.network), found.complete)
    if svg is not None:
        write_each(chosen, Format.SVG, svg, program)
    if fmt.value in formats.FORMATS["models"]:
        write_all(chosen, fmt, output, program, input_)
    else:
        write_each(chosen, fmt, output, program)
    if not found.complete:
        incomplete("the enumeration", timeout)
    if found.count == 0:
        no_model()


def write_eventual(answer, fmt: Format, output: Optional[Path], svg: Optional[Path], program: Path) -> None:
    """`models --eventual`'s answer: the distinct ultimate outputs as one document (text, json, html) on stdout or in
    -o FILE; or one picture per lasso (svg, dot, itf) in -o DIR, as `write_each` writes bounded models; --svg DIR
    adds a spacetime diagram per lasso."""
    if answer.lassos:
        lassos = inspect.Models(tuple(answer.lassos), answer.lassos[0].bounds, answer.lassos[0].network, answer.exact)
        if svg is not None:
            write_each(lassos, Format.SVG, svg, program)
        if fmt.value not in formats.FORMATS["ultimate"]:
            write_each(lassos, fmt, output, program)
            return
    elif fmt.value not in formats.FORMATS["ultimate"]:
        return  # no lasso to draw: the answer's words on standard error say so
    options = text_options() if fmt is Format.TEXT else {}
    document = render(answer, fmt.value, **options)
    if output is not None:
        write(output, document if document.endswith("\n") else document + "\n")
        stderr.print(f"wrote the eventual answer ({fmt.value}) to {output}")
    elif fmt is Format.TEXT:
        say(document)
    else:
        emit(document)


def write_all(chosen: inspect.Models, fmt: Format, output: Optional[Path], program: Path, input_) -> None:
    """The models as one document: text, JSON, an HTML page, a ShiViz log."""
    options = {
        Format.TEXT: {} if output else text_options(),
        Format.HTML: {"program": str(program), "input": input_},
    }.get(fmt, {})
    try:
        document = render(chosen, fmt.value, **options)
    except ValueError as error:  # ShiViz: a model sends messages into the past
        usage("bad-option", f"--format {fmt.value}: {error}; ShiViz draws causal models only (--semantics causal or causal-finite)")
    if fmt is Format.TEXT and output is None:
        say(document)
    else:
        emit(document, output)


def write_each(chosen: inspect.Models, fmt: Format, directory: Optional[Path], program: Path) -> None:
    """One document per model, DIR/model-K.svg (.dot, .itf.json); without DIR, the first model on standard output."""
    options = {"source": str(program)} if fmt is Format.ITF else {}
    if directory is None:
        if chosen:
            emit(render(chosen[0], fmt.value, **options))
        if len(chosen) > 1:
            stderr.print(f"printed model 1 of {len(chosen)}: --format {fmt.value} holds one model; -o DIR writes them all")
        return
    for model in chosen:
        write(directory / f"model-{model.number}{formats.SUFFIXES[fmt.value]}", render(model, fmt.value, **options))
    what = "spacetime diagram(s)" if fmt is Format.SVG else f"{fmt.value} document(s)"
    stderr.print(f"wrote {len(chosen)} {what} to {directory}")


@limit_options
@network_options
def count(
    program: Path = Prog,
    input_: Path = InputOpt,
    horizon: int = HorizonOpt,
    semantics: Semantics = SemanticsOpt,
    encoding: Encoding = EncodingOpt,
    network: Network = NETWORK,
    timeout: Optional[float] = TimeoutOpt,
    json_: bool = JsonOpt,
    dialect: Dialect = DialectOpt,
    split: Optional[int] = typer.Option(
        None, "--split", min=1, max=MAX_SPLIT, help="Cut the enumeration into K disjoint parts (by trace atoms)"
    ),
    engine_: str = SplitEngineOpt,
    master: Optional[str] = MasterOpt,
    traces_only: bool = typer.Option(
        False, "--traces-only", help="Count distinct traces only (\"models\": null): under choice there can be millions of models per few traces"
    ),
    limits: Limits = LIMITS,
    quiet: bool = QuietOpt,
    eventual_: bool = EventualOpt,  # the one --eventual (cli/options.py): exactly one of it, --horizon and --eot
    steps: Optional[int] = StepsOpt,
    relations: Optional[str] = RelationsOpt,
) -> None:
    """Count stable models and distinct traces (projective enumeration); --split K counts K disjoint parts (progress: parts done, on standard error).
    With --eventual: the number of distinct ultimate outputs of the infinite runs."""
    if eventual_:
        if horizon is not None or split is not None or traces_only:
            usage("bad-option", "--eventual answers for every horizon: give it without --horizon/--eot, --split and "
                  "--traces-only", "--eventual")
        count_eventual(eventual_outputs(program, input_, semantics, encoding, network, steps, timeout, dialect, relations),
                       json_)
        return
    if horizon is None:
        usage("missing-option", "give the horizon: --horizon T (steps 0..T), --eot N (T = N-1), or --eventual", "--horizon")
    if steps is not None:
        usage("bad-option", "--steps K goes with --eventual (lassos of K steps)", "--steps")
    bounds_ = bounds(horizon, semantics, encoding, network)
    prepared = prepare(program, input_, bounds_, dialect, limits=limits)
    if split is None:
        result = solve.isolated(solve.count, prepared.compiled, timeout=timeout, max_memory=limits.max_memory,
                                models=not traces_only)
    else:
        from ..questions.count import split_count

        with Progress("count", "part", split, quiet=quiet) as progress:
            result = split_count(prepared.compiled, split, check_engine(engine_), master=master, models=not traces_only,
                                 progress=progress.update)
    if json_:
        emit(render(result, "json", kind="count"))
    else:
        say(render(result, "text", kind="count", bounds=bounds_))
    if not result["complete"]:
        incomplete("the count", timeout)


def count_eventual(answer, json_: bool) -> None:
    """`count --eventual`: how many distinct ultimate outputs, exact or not (exit 3)."""
    runs = ("ultimate_outputs", "lassos", "certain", "possible", "free_clock_runs", "certified_runs")
    summary = {"ultimate_outputs": len(answer.outputs), **{k: v for k, v in answer.as_dict().items() if k not in runs}}
    if json_:
        emit(render(summary, "json", kind="count"))
    else:
        say(f"{len(answer.outputs)} distinct ultimate output(s), lassos of K = {answer.steps} step(s); "
            + ("exact, decided by the explorer's configuration graph (a run alternating between loops)"
               if answer.exact and answer.decided_by == "explorer" else
               "exact, decided by the explorer's configuration graph"
               + ("" if answer.free_clocks is None else " and the fair asynchronous interleavings")
               if answer.exact and answer.decided_by == "graph" else
               "exact, decided by the choice runs' graphs (explore --eventual --semantics choice)"
               if answer.exact and answer.decided_by == "choice-graph" else
               "exact (the program is confluent: every infinite run has the same ultimate output)"
               if answer.exact and answer.decided_by == "confluence" else
               "exact (K is the completeness threshold)" if answer.exact else
               f"not exact: {answer.reason}" if answer.free_clocks is not None else
               f"not exact (bounded: the lassos of {answer.steps} steps only): {answer.reason}") + "\n")
    if not answer.exact:
        raise typer.Exit(EXIT_INCOMPLETE)


def eventual_outputs(program: Path, input_, semantics: Semantics, encoding: Encoding, network: Network,
                     steps: int | None, timeout: float | None, dialect, relations: str | None = None):
    """`models --eventual` and `count --eventual`: the distinct ultimate outputs of the lassos (`questions.models`),
    with the threshold K; a network that is not finite-state exits 2."""
    try:
        bounds_ = Bounds(0, semantics, encoding, network, Mode.EVENTUAL)
        lassos.transform.lasso_ready(bounds_)
    except ValueError as error:
        usage("bad-option", str(error), "--eventual")
    prog, instance = load(program, input_, dialect, network)
    try:
        requested = tuple(r.strip() for r in relations.split(",") if r.strip()) if relations else None
        outputs = cron.outputs_of(prog, requested)
        return solve.isolated(lassos.ultimate_outputs, prog, instance, bounds_, outputs, steps, timeout=timeout)
    except DiagnosticError as error:  # an input event beyond the lassos' steps
        fail(error)
    except ValueError as error:
        usage("bad-option", str(error), "--eventual")


ExploreHorizonOpt = typer.Option(
    None, "--horizon", "-T", min=0, max=MAX_STEP, show_default=False,
    help="Every node performs local steps 0..T (or --eventual: every horizon at once)",
)

ExploreEventualOpt = typer.Option(
    False, "--eventual", help="Instead of --horizon: the graph of configurations of the infinite runs and their distinct "
    "ultimate outputs (jcss2014 §2.5.5), under --delivery sync or --max-delay D (docs/semantics.md)",
)


@network_options
def explore(
    program: Path = Prog,
    input_: Path = InputOpt,
    horizon: Optional[int] = ExploreHorizonOpt,
    network: Network = NETWORK,
    max_states: int = typer.Option(1_000_000, "--max-states", min=1, help="Stop past this many configurations"),
    runs: bool = typer.Option(
        False, "--runs", help="Count distinct run prefixes (end configurations) too; slower: senders are kept apart"
    ),
    eventual_: bool = ExploreEventualOpt,
    semantics: Semantics = typer.Option(
        Semantics.CAUSAL_FINITE, "--semantics", "-s", help="With --eventual: choice builds the choice runs' window graph "
        "with debts (messages arriving up to D steps before their send), exact where an over-approximation of every "
        "choice run lists the same (docs/semantics.md); else the causal rounds"),
    output: Optional[str] = RelationsOpt,
    pre: Optional[str] = typer.Option(
        None, "--pre", help="With --eventual: instead of the ultimate outputs, the invariant verdict: does every row of "
        "this relation ultimately have its --post row in every run (Molly's convention: pre)? Exit 1 when violated"),
    post: Optional[str] = typer.Option(
        None, "--post", help="With --eventual: the relation whose rows match the --pre rows (Molly's convention: post)"),
    timeout: Optional[float] = typer.Option(
        None, "--timeout", min=0.0, max=MAX_TIMEOUT, show_default=False,
        help="With --eventual: the seconds each graph may take to build; past them the answer is not exact (exit 3). "
        "Default: no limit for the causal rounds; 8 s for the choice graphs of --semantics choice under a delay bound"),
    json_: bool = JsonOpt,
    dialect: Dialect = DialectOpt,
) -> None:
    """Enumerate the operational run prefixes (tplp2016 §5.1) in which each node takes T+1 steps; or, with --eventual,
    the ultimate outputs of the infinite runs (exit 3 when the answer is not exact), or with --pre/--post the
    eventual invariant verdict (exit 1 when violated, 3 when not exact)."""
    if eventual_:
        if horizon is not None or runs:
            usage("bad-option", "--eventual answers for every horizon: give it without --horizon/--eot and --runs", "--eventual")
        if pre is not None or post is not None:
            if timeout is not None:
                usage("bad-option", "--timeout limits the graphs of --eventual's ultimate outputs; the invariant verdict "
                      "(--pre/--post) is bounded by --max-states", "--timeout")
            if output is not None:
                usage("bad-option", "--output-relations names the relations of the ultimate outputs; --pre/--post ask the "
                      "invariant verdict instead: give one or the other", "--output-relations")
            explore_invariant(program, input_, network, max_states, pre or "pre", post or "post", json_, dialect)
            return
        explore_eventual(program, input_, network, max_states, output, json_, dialect, semantics, timeout)
        return
    if timeout is not None:
        usage("bad-option", "--timeout goes with --eventual (the bounded explorer is bounded by --max-states)", "--timeout")
    if semantics is not Semantics.CAUSAL_FINITE:
        usage("bad-option", "--semantics goes with --eventual (the bounded explorer follows tplp2016's causal runs)",
              "--semantics")
    if horizon is None:
        usage("missing-option", "give the horizon: --horizon T (steps 0..T), --eot N (T = N-1), or --eventual", "--horizon")
    if output is not None:
        usage("bad-option", "--output-relations names the relations of the ultimate outputs: it goes with --eventual",
              "--output-relations")
    if pre is not None or post is not None:
        usage("bad-option", "--pre/--post ask the eventual invariant verdict: they go with --eventual (for a horizon: "
              "dedalus2asp verify)", "--pre" if pre is not None else "--post")
    explore_bounded(program, input_, horizon, network, max_states, runs, json_, dialect)


def explore_bounded(program: Path, input_, horizon: int, network: Network, max_states: int, runs: bool, json_: bool,
                    dialect) -> None:
    """`explore --horizon T`: every operational run prefix of T+1 steps (`runs.operational`), its distinct traces (and
    with `runs` its end configurations); exit 3, the JSON saying so, past `max_states` configurations."""
    bounds_ = bounds(horizon, network=network)
    mode = "exact" if runs else "traces"
    where = {"horizon": bounds_.horizon, "max_delay": bounds_.network.max_delay, **bounds_.network.as_dict()}  # the JSON's last keys
    prog, instance = load(program, input_, dialect, bounds_.network)
    tty = sys.stderr.isatty()

    def progress(states: int) -> None:
        if tty:
            print(f"\r  explored {states} configurations", end="", file=sys.stderr, flush=True)

    try:
        result = operational.explore(
            prog, analysis.restrict(instance, prog), bounds_, max_states=max_states, progress=progress, mode=mode
        )
    except operational.StateLimitExceeded as exc:
        stderr.print(f"\nstate limit: {exc}")
        if json_:  # like count and cron: the JSON still comes, saying that it is incomplete
            summary = {"traces": None, "states": exc.states, "complete": False, "mode": mode, **where}
            emit(render(summary, "json", kind="exploration"))
        raise typer.Exit(EXIT_INCOMPLETE)
    except DiagnosticError as error:  # an input event beyond the horizon
        fail(error)
    if tty:
        print(file=sys.stderr)
    summary = {"traces": len(result.traces), "states": result.states, "complete": True, "mode": result.mode, **where}
    if runs:
        summary["runs"] = result.runs
    if json_:
        emit(render(summary, "json", kind="exploration"))
    else:
        say(render(summary, "text", kind="exploration", bounds=bounds_))


def explore_eventual(program: Path, input_, network: Network, max_states: int, output: str | None, json_: bool, dialect,
                     semantics: Semantics = Semantics.CAUSAL_FINITE, timeout: float | None = None) -> None:
    """`explore --eventual`: the configuration graph and the ultimate outputs (`runs.eventual`; under `--semantics
    choice` with a delay bound, the choice runs' window graph and the over-approximation's outputs whose witness is
    certified, exact where the over-approximation lists no other: `runs.choice_certificate.explore`); exit 3 when not
    exact."""
    try:
        bounds_ = Bounds(0, semantics, network=network, mode=Mode.EVENTUAL)
    except ValueError as error:
        usage("bad-option", str(error))
    prog, instance = load(program, input_, dialect)
    requested = tuple(r.strip() for r in output.split(",") if r.strip()) if output else None
    try:
        outputs = cron.outputs_of(prog, requested) if requested or prog.output_relations else ()
    except DiagnosticError as error:
        fail(error)
    if not outputs:
        stderr.print("no output relation (.output R. or --output-relations R): every ultimate output is empty")
    warn_unsafe(prog, max_states)
    try:
        with Progress("explore", "expanded") as progress:
            if semantics is Semantics.CHOICE and not lassos.choice_is_causal(prog, bounds_):
                budget = lassos.GRAPH_SECONDS if timeout is None else timeout  # by default, cron's and models' budget
                result = choice_certificate.explore(prog, instance, bounds_, max_states, outputs, seconds=budget, total=budget)
            else:  # the causal rounds (under sync, or with no asynchronous rule, the choice runs are the causal runs)
                drifts = not lassos.confluent(prog, instance, bounds_.network)  # confluence holds of every run
                result = eventual.explore(prog, instance, bounds_, max_configurations=max_states, outputs=outputs,
                                          seconds=timeout, progress=lambda k, n: progress.update(k, found=n),
                                          free_clocks=drifts)
    except DiagnosticError as error:  # a lock-step rule (one node's step at a time)
        fail(error)
    except ValueError as error:  # not finite-state by construction: async without a delay bound, crash/2 read
        usage("bad-option", str(error), "--eventual")
    emit(render(result, "json")) if json_ else say(render(result, "text"))
    if not result.exact:
        raise typer.Exit(EXIT_INCOMPLETE)


def warn_unsafe(program, max_states: int, progress: bool = True) -> None:
    """Say before the work starts that it may not end, when `check` finds the program not temporally safe (the
    Dedalus properties draft, `coordination.analyse`): a relation that grows without bound has infinitely many
    configurations, and the explorer then runs until `--max-states` of them."""
    unsafe = coordination.analyse(program).unbounded
    if unsafe:
        stderr.print(f"explore --eventual may not end: the program is not temporally safe, so its configurations may "
                     f"be infinitely many; the exploration stops after --max-states {max_states:,} of them"
                     f"{', with its progress below' if progress else ''}. Why: {unsafe[0].message}",
                     markup=False, highlight=False)


def explore_invariant(program: Path, input_, network: Network, max_states: int, pre: str, post: str, json_: bool,
                      dialect) -> None:
    """`explore --eventual --pre R --post S`: the explorer's eventual invariant verdict (`runs.eventual_verify`);
    exit 1 when violated, 3 when not exact."""
    try:
        bounds_ = Bounds(0, network=network, mode=Mode.EVENTUAL)
    except ValueError as error:
        usage("bad-option", str(error))
    prog, instance = load(program, input_, dialect, network)
    warn_unsafe(prog, max_states, progress=False)
    try:
        verdict = eventual_verify.verify(prog, instance, bounds_, pre, post, max_configurations=max_states)
    except eventual_verify.InvariantRelations as error:
        usage("bad-option", str(error), "--pre")
    except DiagnosticError as error:  # a lock-step rule (one node's step at a time)
        fail(error)
    except ValueError as error:  # not finite-state by construction: async without a delay bound, crash/2 read
        usage("bad-option", str(error), "--eventual")
    emit(render(verdict, "json")) if json_ else say(render(verdict, "text"))
    if not verdict.exact:  # stopped, or "holds" over the runs in rounds only
        raise typer.Exit(EXIT_INCOMPLETE)
    if not verdict.holds:
        raise typer.Exit(EXIT_NO)


@limit_options
@network_options
def cron_(
    program: Path = Prog,
    input_: Path = InputOpt,
    horizon: int = HorizonOpt,
    eventual_: bool = EventualOpt,
    network: Network = NETWORK,
    output: Optional[str] = typer.Option(None, "--output-relations", help="Output relations R,S,... (default: the .output ones)"),
    encoding: Encoding = EncodingOpt,
    search_horizon: bool = typer.Option(
        False, "--search-horizon", help="Try horizons 1..T (causal side multi-shot) and report the smallest with a violation"
    ),
    timeout: Optional[float] = TimeoutOpt,
    json_: bool = JsonOpt,
    dialect: Dialect = DialectOpt,
    limits: Limits = LIMITS,
) -> None:
    """Consistency and tolerance of non-causality (jcss2014), bounded by the horizon and the delay bound; with
    --eventual, on the ultimate outputs of the infinite runs (exact, with the completeness threshold K, or labelled
    bounded).

    Exit status: 0 consistent and tolerant; 1 not consistent, not tolerant, or no causal model at all;
    2 bad program, input or option; 3 timeout, or with --eventual a bounded answer (not exact), whatever it says.
    """
    if eventual_ and search_horizon:
        usage("bad-option", "--eventual answers for every horizon at once: give it without --search-horizon", "--eventual")
    # cron analyses both semantics
    bounds_ = eventual_bounds(network, encoding=encoding) if eventual_ else bounds(horizon, encoding=encoding, network=network)
    try:
        prog, instance, warnings = pipeline.load(program, input_, dialect.value)
        outputs = tuple(r.strip() for r in output.split(",") if r.strip()) if output else None
        cron.outputs_of(prog, outputs)
    except DiagnosticError as error:
        fail(error)
    need_instance(program, instance, bounds_.network)
    warn(warnings)
    within(program, prog, instance, bounds_, limits)
    try:
        question = cron_eventual.analyse_eventual if eventual_ else cron.search if search_horizon else cron.analyse
        verdict = solve.isolated(question, prog, instance, bounds_, outputs, timeout=timeout, max_memory=limits.max_memory)
    except cron.Timeout:
        incomplete("the analysis", timeout)
    except DiagnosticError as error:  # the program within the bounds: an input event beyond the horizon
        fail(error)
    if json_:
        emit(render(verdict, "json"))
    else:
        say(render(verdict, "text", **text_options()))
    if verdict.exact is False:  # --eventual, bounded: a script must not take it for the exact answer
        stderr.print(f"not exact: {verdict.reason}")
        if verdict.bounded_horizon is None:  # a bounded cron's counterexample is a "no", as bounded cron exits
            raise typer.Exit(EXIT_INCOMPLETE)
    if not verdict.answer:
        if not verdict.satisfiable and eventual_ and verdict.clock is None:  # a rewrite's clock is named already
            stderr.print(f"no causal lasso: the program has no infinite run on this input (lassos of {verdict.K} step{'s' * (verdict.K != 1)})")
        elif not verdict.satisfiable:
            stderr.print("no causal model: the program has no stable model on this input within the bounds")
        raise typer.Exit(EXIT_NO)
