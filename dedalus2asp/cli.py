"""The command line: check, compile, models, count, explore; and, to inspect
models, report, explain, replay (`models --svg` and `--json` too, docs/trace-schema.md).

The options --horizon, --semantics, --encoding and --max-delay are declared once
(`HorizonOpt`, ...) and turned once into the question's `Bounds` (`_bounds`), which every
phase then receives whole.

Exit status: 0 on success; 1 where a command documents a "no" answer
(`models` on an unsatisfiable program); 2 for user errors (bad program, bad
input, bad option), reported as `file:line:col: error: ...`; 3 when a
`--timeout` or `--max-states` limit stopped the work before it finished; 70
when clingo rejects a program that dedalus2asp wrote (a bug of ours).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Optional

from enum import Enum

import typer
from rich.console import Console

from . import inspect, pipeline
from .asp import solve
from .bounds import MAX_STEP, Bounds, Encoding, Network, Semantics
from .lang import analysis, located, parser
from .lang.diagnostics import Diagnostic, DiagnosticError, format_diagnostic
from .runs import operational

app = typer.Typer(
    help="The stable-model semantics of Dedalus (Ameloot et al., TPLP 2016), executable with clingo.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
# User text (names, strings) is never markup, and lines are never wrapped: diagnostics keep their carets.
stdout = Console(highlight=False, markup=False, emoji=False, soft_wrap=True)
stderr = Console(stderr=True, highlight=False, markup=False, emoji=False, soft_wrap=True)

EXIT_NO, EXIT_USAGE, EXIT_INCOMPLETE = 1, 2, 3

Prog = typer.Argument(..., help="Dedalus program (.ded)", show_default=False)
InputOpt = typer.Option(
    None, "--input", "-i", show_default=False,
    help="Input instance H (.facts or .json); not needed when PROG (located or Molly) carries its own facts",
)
HorizonOpt = typer.Option(..., "--horizon", "-T", min=0, max=MAX_STEP, help="Every node performs local steps 0..T", show_default=False)
SemanticsOpt = typer.Option(Semantics.CAUSAL_FINITE, "--semantics", "-s", help="choice = pure_ch, causal = pure_ca, causal-finite = pure")
EncodingOpt = typer.Option(Encoding.FAST, "--encoding", "-e", help="fast: choice rules and #edge; paper: rule by rule as in tplp2016 (same models)")
DelayOpt = typer.Option(None, "--max-delay", "-D", min=0, max=MAX_STEP, help="A message sent at step s arrives by step s+D (default: no bound)")
TimeoutOpt = typer.Option(None, "--timeout", min=0.0, help="Stop solving after this many seconds")
JsonOpt = typer.Option(False, "--json", help="Print JSON instead of text")
MasterOpt = typer.Option(None, "--master", help="Spark master URL (default: $SPARK_MASTER, else local[*])")
ENGINES = ("local", "spark")


class Dialect(str, Enum):
    """The notation of PROG: see `parser.parse_source` and `located`."""

    AUTO = "auto"
    TRANSPARENT = "transparent"
    LOCATED = "located"
    MOLLY = "molly"


DialectOpt = typer.Option(
    Dialect.AUTO, "--dialect", help="transparent (tplp2016), located (tr2009, '#' location specifiers) or molly; auto detects it"
)


def _fail(error: DiagnosticError) -> None:
    for diag in error.diagnostics:
        stderr.print(format_diagnostic(diag), markup=False, highlight=False)
    errors = sum(d.is_error for d in error.diagnostics)
    stderr.print(f"{errors} error(s)", markup=False)
    raise typer.Exit(EXIT_USAGE)


def _warn(warnings) -> None:
    for diag in warnings:
        stderr.print(format_diagnostic(diag), markup=False, highlight=False)


def _bounds(
    horizon: int, semantics: Semantics = Semantics.CAUSAL_FINITE, encoding: Encoding = Encoding.FAST, max_delay=None
) -> Bounds:
    """The bounds of the command's question, made once from its options; a bad value exits 2."""
    try:
        return Bounds(horizon, semantics, encoding, Network(max_delay=max_delay))
    except ValueError as error:
        _usage("bad-option", str(error))


def _prepare(program, input_, bounds: Bounds, dialect=Dialect.AUTO, needs_input=True) -> pipeline.Prepared:
    try:
        prepared = pipeline.prepare(program, input_, bounds, dialect.value)
    except DiagnosticError as error:
        _fail(error)
    if needs_input:
        _need_instance(program, prepared.instance)
    _warn(prepared.warnings)
    return prepared


def _need_instance(program, instance) -> None:
    """Solving needs H: from --input, or from the facts a located or Molly program carries."""
    if instance is None:
        _fail(DiagnosticError([Diagnostic(
            "missing-input", "no input instance: give --input F (only a located or Molly program can carry its own facts)",
            filename=str(program),
        )]))


def _incomplete(what: str, timeout) -> None:
    stderr.print(f"timeout: stopped after {timeout} s; {what} is incomplete (raise --timeout or lower --horizon)")


@app.command()
def check(program: Path = Prog, json_: bool = JsonOpt, dialect: Dialect = DialectOpt) -> None:
    """Parse PROG and report its rules, relations, strata, async relations and positivity."""
    try:
        prog, _, loaded = pipeline.load(program, dialect=dialect.value)
        report = analysis.report(prog)
    except DiagnosticError as error:
        _fail(error)
    if json_:
        print(json.dumps(report.as_dict(), indent=2))
        return
    # a dialect's own warnings first; check takes no input, so it cannot say a relation is never given
    # (a Molly program's own facts are seldom all of its input)
    _warn([w for w in loaded if w not in report.warnings and w.code != "empty-relation"] + list(report.warnings))
    stdout.print(f"{program}: {len(report.rules)} rule(s), well formed")
    for number, kind, text in report.rules:
        stdout.print(f"  rule {number:>2} {kind:<12} {text}")
    fmt = lambda rels: ", ".join(f"{p}/{k}" for p, k in rels.items()) or "none"
    stdout.print(f"idb: {fmt(report.idb)}")
    stdout.print(f"edb: {fmt(report.edb)}")
    stdout.print(
        "strata of the deductive rules: "
        + ("; ".join(f"{i}: {', '.join(s)}" for i, s in enumerate(report.strata, 1)) or "none")
    )
    stdout.print(f"asynchronous relations: {fmt(report.async_relations)}")
    stdout.print(
        "positive: yes (no negation: if consistent, it tolerates non-causality, jcss2014 Theorem 4.1)"
        if report.positive
        else "positive: no (uses negation)"
    )
    stdout.print(f"output relations: {', '.join(report.outputs) or 'none declared (.output R.)'}")
    if report.cron is not None and report.async_relations:
        stdout.print("CRON (where causality may matter; `dedalus2asp cron` checks it on an input):")
        for relation, negations in report.cron.feeds_negation.items():
            stdout.print(f"  {relation} feeds a negation ({'; '.join(negations)}): its arrival time may change the output")
        if report.cron.monotone:
            stdout.print(f"  {', '.join(report.cron.monotone)}: used monotonically (feeds no negation)")


@app.command("compile")
def compile_(
    program: Path = Prog,
    input_: Optional[Path] = typer.Option(None, "--input", "-i", help="Input instance H; without it decl(H) is left out"),
    horizon: int = HorizonOpt,
    semantics: Semantics = SemanticsOpt,
    encoding: Encoding = EncodingOpt,
    max_delay: Optional[int] = DelayOpt,
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the program here instead of stdout"),
    dialect: Dialect = DialectOpt,
    traces: bool = typer.Option(
        False,
        "--traces",
        help="Write the program `count` counts traces with: #project onto the trace and, with the fast encoding "
        "under causality, no arrival per copy of a message to the sender itself; "
        "`python -m clingo OUT.lp 0 --project` prints one model per distinct trace",
    ),
) -> None:
    """Write the clingo program of PROG; `python -m clingo OUT.lp 0` runs it."""
    bounds = _bounds(horizon, semantics, encoding, max_delay)
    prepared = _prepare(program, input_, bounds, dialect, needs_input=False)
    text = prepared.compiled.counting_traces() if traces else prepared.compiled.text
    if output is None:
        sys.stdout.write(text)
    else:
        try:
            output.write_text(text, encoding="utf-8")
        except OSError as exc:  # a bad -o path is a user error, not a traceback
            _fail(DiagnosticError([Diagnostic("io", f"cannot write output: {exc.strerror or exc}", filename=str(output))]))
        stderr.print(f"wrote {output}")


@app.command()
def models(
    program: Path = Prog,
    input_: Path = InputOpt,
    horizon: int = HorizonOpt,
    semantics: Semantics = SemanticsOpt,
    encoding: Encoding = EncodingOpt,
    max_delay: Optional[int] = DelayOpt,
    number: int = typer.Option(10, "--models", "-n", min=0, help="How many models (0: all)"),
    timeout: Optional[float] = TimeoutOpt,
    json_: bool = JsonOpt,
    svg: Optional[Path] = typer.Option(None, "--svg", help="Write a spacetime diagram per model: DIR/model-1.svg, ..."),
    dialect: Dialect = DialectOpt,
) -> None:
    """Enumerate models: each one's trace (node × step) and its messages. Exit 1 if there is none."""
    prepared = _prepare(program, input_, _bounds(horizon, semantics, encoding, max_delay), dialect)
    found = solve.enumerate_models(prepared.compiled, number, timeout=timeout)
    if svg is not None:
        _write_svgs(svg, found.models)
    if json_:
        document = inspect.document(prepared.compiled, prepared.instance.network, found.models, found.complete)
        print(json.dumps(document, indent=2))
    else:
        for model in found.models:
            inspect.render_text(model, stdout)
        more = "" if found.complete else " (stopped by the timeout)"
        stdout.print(f"{found.count} model(s) shown{more}")
    if not found.complete:
        _incomplete("the enumeration", timeout)
        raise typer.Exit(EXIT_INCOMPLETE)
    if found.count == 0:
        stderr.print("no model: the program has no stable model on this input within the bounds")
        raise typer.Exit(EXIT_NO)


@app.command()
def count(
    program: Path = Prog,
    input_: Path = InputOpt,
    horizon: int = HorizonOpt,
    semantics: Semantics = SemanticsOpt,
    encoding: Encoding = EncodingOpt,
    max_delay: Optional[int] = DelayOpt,
    timeout: Optional[float] = TimeoutOpt,
    json_: bool = JsonOpt,
    dialect: Dialect = DialectOpt,
    split: Optional[int] = typer.Option(None, "--split", min=1, help="Cut the enumeration into K disjoint parts (by trace atoms)"),
    engine_: str = typer.Option("local", "--engine", help="Where the --split parts run: local (in turn) or spark (executors)"),
    master: Optional[str] = MasterOpt,
    traces_only: bool = typer.Option(
        False, "--traces-only", help="Count distinct traces only (\"models\": null): under choice there can be millions of models per few traces"
    ),
) -> None:
    """Count stable models and distinct traces (projective enumeration); --split K counts K disjoint parts."""
    bounds = _bounds(horizon, semantics, encoding, max_delay)
    prepared = _prepare(program, input_, bounds, dialect)
    if split is None:
        result = solve.count(prepared.compiled, timeout=timeout, models=not traces_only)
    else:
        if engine_ not in ENGINES:
            _usage("bad-option", f"--engine must be one of {', '.join(ENGINES)}, not {engine_!r}")
        from .asp.split import split_count

        result = split_count(prepared.compiled, split, engine_, master=master, models=not traces_only)
    if json_:
        print(json.dumps(result, indent=2))
    else:
        stdout.print(
            ("" if traces_only else f"{result['models']} model(s), ")
            + f"{result['traces']} distinct trace(s) ({bounds.semantics.value}, {bounds.describe()}; {result['seconds']} s)"
        )
    if not result["complete"]:
        _incomplete("the count", timeout)
        raise typer.Exit(EXIT_INCOMPLETE)


@app.command()
def explore(
    program: Path = Prog,
    input_: Path = InputOpt,
    horizon: int = HorizonOpt,
    max_delay: Optional[int] = DelayOpt,
    max_states: int = typer.Option(1_000_000, "--max-states", min=1, help="Stop past this many configurations"),
    runs: bool = typer.Option(
        False, "--runs", help="Count distinct run prefixes (end configurations) too; slower: senders are kept apart"
    ),
    json_: bool = JsonOpt,
    dialect: Dialect = DialectOpt,
) -> None:
    """Enumerate the operational run prefixes (tplp2016 §5.1) in which each node takes T+1 steps."""
    bounds = _bounds(horizon, max_delay=max_delay)
    mode = "exact" if runs else "traces"
    where = {"horizon": bounds.horizon, "max_delay": bounds.network.max_delay}  # the JSON's last keys
    try:
        prog, instance, warnings = pipeline.load(program, input_, dialect.value)
    except DiagnosticError as error:
        _fail(error)
    _need_instance(program, instance)
    _warn(warnings)
    tty = sys.stderr.isatty()

    def progress(states: int) -> None:
        if tty:
            print(f"\r  explored {states} configurations", end="", file=sys.stderr, flush=True)

    try:
        result = operational.explore(
            prog, analysis.restrict(instance, prog), bounds, max_states=max_states, progress=progress, mode=mode
        )
    except operational.StateLimitExceeded as exc:
        stderr.print(f"\nstate limit: {exc}")
        if json_:  # like count and cron: the JSON still comes, saying that it is incomplete
            print(json.dumps({"traces": None, "states": exc.states, "complete": False, "mode": mode, **where}, indent=2))
        raise typer.Exit(EXIT_INCOMPLETE)
    except DiagnosticError as error:  # an input event beyond the horizon
        _fail(error)
    if tty:
        print(file=sys.stderr)
    summary = {"traces": len(result.traces), "states": result.states, "complete": True, "mode": result.mode, **where}
    if runs:
        summary["runs"] = result.runs
    if json_:
        print(json.dumps(summary, indent=2))
    else:
        prefixes = f" over {result.runs} distinct run prefix(es)" if runs else ""
        stdout.print(
            f"{summary['traces']} distinct trace(s){prefixes}; {summary['states']} configurations explored "
            f"({bounds.describe()})"
        )


# ---------------------------------------------------------------------------
# Inspecting models (issue 5): spacetime diagrams, reports, explanations, runs


def _usage(code: str, message: str, where: str = "<command line>") -> None:
    """A bad option: reported like every diagnostic, exit 2."""
    _fail(DiagnosticError([Diagnostic(code, message, filename=where)]))


def _write(path: Path, text: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        _usage("io", f"cannot write {path}: {exc.strerror or exc}", str(path))


def _write_svgs(directory: Path, found: list) -> None:
    from .formats.render import spacetime_svg

    for model in found:
        _write(directory / f"model-{model.number}.svg", spacetime_svg(model))
    stderr.print(f"wrote {len(found)} spacetime diagram(s) to {directory}")


def _point(at: str) -> tuple:
    """--at NODE:STEP as (node symbol, step)."""
    node, sep, step = at.rpartition(":")
    if not sep or not node or not step.strip().isdigit():
        _usage("bad-option", f"--at must be NODE:STEP with a step 0, 1, 2, ... (e.g. a:3), not {at!r}", "--at")
    try:
        instance = parser.parse_facts(f"{node} {{ }}", filename="--at")
    except DiagnosticError as error:
        _fail(error)
    return instance.network[0], int(step)


def _fact(text: str) -> tuple:
    """--fact R(a1, ..., ak) as (R, (a1..ak))."""
    try:
        facts = next(iter(parser.parse_facts(f"{text.strip().rstrip('.')}.\nx {{ }}", filename="--fact").facts.values()))
    except DiagnosticError as error:
        _fail(error)
    if len(facts) != 1:
        _usage("bad-option", f"--fact must be one fact such as 'covered()' or 'marked(v1)', not {text!r}", "--fact")
    return facts[0].predicate, facts[0].args


def _nth_model(prepared: pipeline.Prepared, k: int, timeout) -> inspect.Model:
    """Model number k (1-based) of the enumeration; exit 2 when there are fewer, 3 on a timeout."""
    found = solve.enumerate_models(prepared.compiled, k, timeout=timeout)
    if found.count < k:
        if not found.complete:
            _incomplete(f"the search for model {k}", timeout)
            raise typer.Exit(EXIT_INCOMPLETE)
        bounds = prepared.compiled.bounds
        _usage(
            "no-such-model",
            f"--model {k}: there are only {found.count} model(s) ({bounds.semantics.value}, {bounds.describe()})"
            + (f"; choose 1..{found.count}" if found.count else ""),
            "--model",
        )
    return found.models[k - 1]


ModelOpt = typer.Option(1, "--model", "-k", min=1, help="Which model, 1 for the first (the order of `models`)")


@app.command()
def report(
    target: Path = typer.Argument(..., help="A Dedalus program, or a Spark run/batch directory", show_default=False),
    input_: Optional[Path] = typer.Option(None, "--input", "-i", help="Input instance H (for a program)"),
    horizon: Optional[int] = typer.Option(None, "--horizon", "-T", min=0, max=MAX_STEP, help="Every node performs steps 0..T (for a program)"),
    semantics: Semantics = SemanticsOpt,
    encoding: Encoding = EncodingOpt,
    max_delay: Optional[int] = DelayOpt,
    number: int = typer.Option(10, "--models", "-n", min=0, help="How many models (0: all)"),
    timeout: Optional[float] = TimeoutOpt,
    output: Path = typer.Option(Path("report.html"), "--output", "-o", help="The HTML file to write"),
    dialect: Dialect = DialectOpt,
) -> None:
    """Write a self-contained HTML report: a table of models, each with its spacetime diagram and state per step."""
    if target.is_dir():
        from .batch import summarize

        try:
            return summarize(target, stdout, output)
        except DiagnosticError as error:
            _fail(error)
    if not target.exists():
        _usage("io", "cannot read it: no such program file or batch directory", str(target))
    if horizon is None:
        _usage("missing-option", f"report on the program {target} needs --horizon T")
    bounds = _bounds(horizon, semantics, encoding, max_delay)
    prepared = _prepare(target, input_, bounds, dialect)
    found = solve.enumerate_models(prepared.compiled, number, timeout=timeout)
    from .formats.render import report_html

    notes = [
        f"Program {target}, input {input_}: {semantics.value} semantics ({encoding.value} encoding), "
        f"horizon {horizon}, {bounds.network.describe()}.",
        "Each diagram has one lane per node and a tick per local step; an arrow is a message from its send step to its "
        "arrival step (tplp2016 §5.2.1). Grey dotted arrows are pending at the horizon; thick dashed red arrows arrive "
        "before they were sent (non-causal); green boxes mark output facts at the last step. Hover a step for its facts.",
    ]
    if not found.complete:
        notes.append(f"The enumeration was stopped by the timeout after {found.count} model(s).")
    _write(output, report_html(found.models, f"{target.name}: {found.count} {semantics.value} model(s)", notes))
    stderr.print(f"wrote {output} ({found.count} model(s))")
    if not found.complete:
        _incomplete("the enumeration", timeout)
        raise typer.Exit(EXIT_INCOMPLETE)
    if found.count == 0:
        stderr.print("no model: the program has no stable model on this input within the bounds")
        raise typer.Exit(EXIT_NO)


@app.command("explain")
def explain_(
    program: Path = Prog,
    input_: Path = InputOpt,
    horizon: int = HorizonOpt,
    fact: str = typer.Option(..., "--fact", help="The fact to explain, e.g. 'covered()'", show_default=False),
    at: str = typer.Option(..., "--at", help="NODE:STEP where it holds, e.g. a:3", show_default=False),
    model: int = ModelOpt,
    semantics: Semantics = SemanticsOpt,
    encoding: Encoding = EncodingOpt,
    max_delay: Optional[int] = DelayOpt,
    dot: Optional[Path] = typer.Option(None, "--dot", help="Also write the lineage graph (DOT) to this file"),
    timeout: Optional[float] = TimeoutOpt,
    dialect: Dialect = DialectOpt,
) -> None:
    """Why does FACT hold at NODE:STEP in a model? Its derivation back to input facts, carry-overs and messages."""
    from .inspect import explain

    bounds = _bounds(horizon, semantics, encoding, max_delay)
    node, step = _point(at)
    wanted = _fact(fact)
    prepared = _prepare(program, input_, bounds, dialect)
    schema = prepared.program.schema()
    if wanted[0] not in schema:
        _usage("unknown-relation", f"--fact {fact}: '{wanted[0]}' is not a relation of {program} ({', '.join(sorted(schema))})", "--fact")
    if node not in prepared.instance.network:
        _usage("bad-option", f"--at {at}: {node} is not a node of the network ({', '.join(map(str, prepared.instance.network))})", "--at")
    if step > horizon:
        _usage("bad-option", f"--at {at}: step {step} is beyond the horizon {horizon}", "--at")
    chosen = _nth_model(prepared, model, timeout)
    try:
        derivation = explain.explain(chosen, node, step, wanted)
    except ValueError as error:
        _usage("not-in-model", str(error), "--fact")
    stdout.print(explain.text(derivation, chosen), end="")
    if dot is not None:
        _write(dot, explain.dot(derivation, chosen))
        stderr.print(f"wrote {dot}")


@app.command("replay")
def replay_(
    program: Path = Prog,
    input_: Path = InputOpt,
    horizon: int = HorizonOpt,
    model: int = ModelOpt,
    semantics: Semantics = SemanticsOpt,
    encoding: Encoding = EncodingOpt,
    max_delay: Optional[int] = DelayOpt,
    timeout: Optional[float] = TimeoutOpt,
    dialect: Dialect = DialectOpt,
) -> None:
    """Rebuild the run a model stands for (tplp2016 §5.3.2), replay it operationally, compare traces. Exit 1 if they differ."""
    prepared = _prepare(program, input_, _bounds(horizon, semantics, encoding, max_delay), dialect)
    chosen = _nth_model(prepared, model, timeout)
    try:
        run = chosen.run()
    except ValueError as error:
        stdout.print(str(error))
        raise typer.Exit(EXIT_NO)
    stdout.print(f"the run of model {model}: transitions in a linear extension of happens-before (tplp2016 §5.3.2)")
    for line in run.lines():
        stdout.print(line)
    try:
        replayed = run.replay(prepared.program, prepared.instance)
    except ValueError as error:
        stdout.print(f"the operational semantics rejects this run: {error}")
        raise typer.Exit(EXIT_NO)
    if inspect.agrees(chosen, replayed):
        stdout.print(
            f"replayed: the same trace ({len(chosen.trace)} facts) and the same {len(chosen.pending)} pending "
            "message(s) as the model (tplp2016 Theorem 4 (ii))"
        )
        return
    show = lambda facts: ", ".join(f"{x}:{s} {inspect.show_fact(r, a)}" for (x, s, r, a) in sorted(facts)) or "none"
    stdout.print("replayed: the traces DIFFER")
    stdout.print(f"  only in the model: {show(chosen.trace - replayed.trace)}")
    stdout.print(f"  only in the replayed run: {show(replayed.trace - chosen.trace)}")
    pending = frozenset(m.buffered() for m in chosen.pending)
    if pending != replayed.pending:
        stdout.print(f"  pending in the model: {len(pending)}, left in the buffers by the run: {len(replayed.pending)}")
    raise typer.Exit(EXIT_NO)


class Notation(str, Enum):
    TRANSPARENT = "transparent"
    LOCATED = "located"


@app.command()
def convert(
    program: Path = Prog,
    to: Optional[Notation] = typer.Option(None, "--to", help="transparent or located (default: the notation PROG is not in)"),
    dialect: Dialect = DialectOpt,
) -> None:
    """Print PROG in the other notation: a located (tr2009 §6.2) or Molly program location-transparently (tplp2016), or the reverse."""
    try:
        pipeline.load(program, dialect=dialect.value)  # the checks of `check`
        source = parser.load_source(program, dialect.value)
    except DiagnosticError as error:
        _fail(error)
    is_located = isinstance(source, located.LocatedProgram)
    target = to or (Notation.TRANSPARENT if is_located else Notation.LOCATED)
    if is_located == (target is Notation.LOCATED):
        _fail(DiagnosticError([Diagnostic("convert", f"the program is {target.value} already (--to {target.value})", filename=str(program))]))
    if is_located:
        sys.stdout.write(located.transparent_text(source))
        return
    try:
        sys.stdout.write(located.located_text(source))
    except ValueError as exc:
        _fail(DiagnosticError([Diagnostic("convert", str(exc), filename=str(program))]))


@app.command("cron")
def cron_(
    program: Path = Prog,
    input_: Path = InputOpt,
    horizon: int = HorizonOpt,
    max_delay: Optional[int] = DelayOpt,
    output: Optional[str] = typer.Option(None, "--output", help="Output relations R,S,... (default: the .output ones)"),
    encoding: Encoding = EncodingOpt,
    search_horizon: bool = typer.Option(
        False, "--search-horizon", help="Try horizons 1..T (causal side multi-shot) and report the smallest with a violation"
    ),
    timeout: Optional[float] = TimeoutOpt,
    json_: bool = JsonOpt,
    dialect: Dialect = DialectOpt,
) -> None:
    """Consistency and tolerance of non-causality (jcss2014), bounded by the horizon and the delay bound.

    Exit status: 0 consistent and tolerant; 1 not consistent, not tolerant, or no causal model at all;
    2 bad program, input or option; 3 timeout.
    """
    from . import cron

    bounds = _bounds(horizon, encoding=encoding, max_delay=max_delay)  # cron analyses both semantics
    try:
        prog, instance, warnings = pipeline.load(program, input_, dialect.value)
        outputs = tuple(r.strip() for r in output.split(",") if r.strip()) if output else None
        cron.outputs_of(prog, outputs)
    except DiagnosticError as error:
        _fail(error)
    _need_instance(program, instance)
    _warn(warnings)
    try:
        if search_horizon:
            verdict = cron.search(prog, instance, bounds, outputs, timeout=timeout)
        else:
            verdict = cron.analyse(prog, instance, bounds, outputs, timeout=timeout)
    except cron.Timeout:
        _incomplete("the analysis", timeout)
        raise typer.Exit(EXIT_INCOMPLETE)
    if json_:
        print(json.dumps(verdict.as_dict(), indent=2))
    else:
        cron.render_text(verdict, stdout)
    if not verdict.answer:
        if not verdict.satisfiable:
            stderr.print("no causal model: the program has no stable model on this input within the bounds")
        raise typer.Exit(EXIT_NO)


@app.command("run")
def run_(
    program: Path = Prog,
    input_: Path = typer.Option(..., "--input", "-i", help="Input H: .facts, .json, or a directory of CSV/Parquet tables (first column the node; a located program's: its location column)", show_default=False),
    steps: int = typer.Option(..., "--steps", "-k", min=1, help="Every node performs steps 0..K-1", show_default=False),
    schedule: str = typer.Option("sync", "--schedule", help="sync: arrival at the next step; random: 1..D steps later by a seeded hash"),
    max_delay: int = typer.Option(3, "--max-delay", "-D", min=1, help="The largest delay of the random schedule"),
    seed: int = typer.Option(0, "--seed", help="Seed of the random schedule"),
    engine_: str = typer.Option("local", "--engine", help="local (Python sets) or spark (DataFrames)"),
    master: Optional[str] = MasterOpt,
    out: Path = typer.Option(..., "--out", "-o", help="Directory for the Parquet tables trace, messages, outputs and run.json", show_default=False),
    dialect: Dialect = DialectOpt,
) -> None:
    """Compute one run of PROG on a (large) input (tplp2016 §5.1) and write it as Parquet tables."""
    from .runs import engine

    if schedule not in engine.SCHEDULES:
        _usage("bad-option", f"--schedule must be one of {', '.join(engine.SCHEDULES)}, not {schedule!r}")
    if engine_ not in ENGINES:
        _usage("bad-option", f"--engine must be one of {', '.join(ENGINES)}, not {engine_!r}")
    start = time.perf_counter()
    try:
        if input_.is_dir():
            prog, _, warnings = pipeline.load(program, dialect=dialect.value)
            source = parser.load_source(program, dialect.value)
            spark = engine.spark_session(master) if engine_ == "spark" else None
            data = engine.read_directory(input_, prog, spark, source if isinstance(source, located.LocatedProgram) else None)
        else:
            prog, instance, warnings = pipeline.load(program, input_, dialect.value)
            located.check_events(instance, steps - 1, run=True)
            spark = None
            data = engine.from_instance(instance, prog)
    except DiagnosticError as error:
        _fail(error)
    _warn(warnings)
    loaded = time.perf_counter() - start
    if engine_ == "spark" and data.rows is not None:
        spark = engine.spark_session(master)
    result = engine.run(prog, data, steps, engine.Schedule(schedule, max_delay, seed), engine_, spark)
    try:
        info = engine.write_run(
            result,
            out,
            {"program": str(program), "input": str(input_), "program_hash": engine.program_hash(prog),
             "master": master or os.environ.get("SPARK_MASTER") if engine_ == "spark" else None,
             "timings": {"load": round(loaded, 4)}},
        )
    except OSError as exc:
        _usage("io", f"cannot write the run: {exc.strerror or exc}", str(out))
    rows = info["rows"]
    stdout.print(
        f"{steps} steps ({schedule} schedule, {engine_} engine): {rows['trace']} trace facts, {rows['messages']} "
        f"messages ({info['pending']} pending), {rows['outputs']} output facts; wrote {out}"
    )


@app.command("batch")
def batch_(
    manifest: Path = typer.Argument(..., help="Manifest (.toml): [[grid]] and [[job]] tables", show_default=False),
    out: Path = typer.Option(..., "--out", "-o", help="Result directory (jobs, traces, messages as Parquet)", show_default=False),
    master: Optional[str] = MasterOpt,
) -> None:
    """Run the jobs of MANIFEST on Spark executors; jobs already in OUT are skipped. Exit 1 if a job failed."""
    from .batch import run_batch

    try:
        summary = run_batch(manifest, out, master)
    except DiagnosticError as error:
        _fail(error)
    stdout.print(
        f"{summary['jobs']} job(s): {summary['skipped']} already done, {summary['ran']} ran "
        f"({summary['ok']} ok, {summary['error']} error, {summary['timeout']} timeout) in {summary['seconds']} s; "
        f"results in {out}"
    )
    if summary["error"] or summary["timeout"]:
        raise typer.Exit(EXIT_NO)


class _ReaderMayLeave:
    """Standard output that goes quiet once its reader has gone (`dedalus2asp cron ... | head`).

    The command then finishes and exits with its own status (a verdict, not 1 for the broken
    pipe, which is what click would make of it); what it still writes is dropped.
    """

    def __init__(self, stream) -> None:
        self._stream = stream

    def _gone(self) -> None:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, self._stream.fileno())  # the interpreter's last flush at exit then succeeds too
        os.close(devnull)

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._gone()
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._gone()

    def __getattr__(self, name):
        return getattr(self._stream, name)


EXIT_INTERNAL = 70  # EX_SOFTWARE: clingo rejected a program that dedalus2asp wrote


def main() -> None:
    sys.stdout = _ReaderMayLeave(sys.stdout)
    try:
        app()
    except solve.SolveError as error:
        stderr.print(
            f"internal error: {error}\n"
            "This is a bug in dedalus2asp, not in your program: please report it with the program, the input "
            "and the command line."
        )
        sys.exit(EXIT_INTERNAL)


if __name__ == "__main__":
    main()
