"""The command line (SPEC §4): check, compile, models, count, explore.

Exit status: 0 on success; 1 where a command documents a "no" answer
(`models` on an unsatisfiable program); 2 for user errors (bad program, bad
input, bad option), reported as `file:line:col: error: ...`; 3 when a
`--timeout` or `--max-states` limit stopped the work before it finished.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

from . import analysis, inspect, operational, pipeline, solve
from .diagnostics import Diagnostic, DiagnosticError, format_diagnostic
from .transform import Encoding, Semantics

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
InputOpt = typer.Option(..., "--input", "-i", help="Input instance H (.facts or .json)", show_default=False)
HorizonOpt = typer.Option(..., "--horizon", "-T", min=0, help="Every node performs local steps 0..T", show_default=False)
SemanticsOpt = typer.Option(Semantics.CAUSAL_FINITE, "--semantics", "-s", help="choice = pure_ch, causal = pure_ca, causal-finite = pure")
EncodingOpt = typer.Option(Encoding.FAST, "--encoding", "-e", help="fast: choice rules and #edge; paper: rule by rule as in tplp2016 (same models)")
DelayOpt = typer.Option(None, "--max-delay", "-D", min=0, help="A message sent at step s arrives by step s+D (default: no bound)")
TimeoutOpt = typer.Option(None, "--timeout", min=0.0, help="Stop solving after this many seconds")
JsonOpt = typer.Option(False, "--json", help="Print JSON instead of text")


def _fail(error: DiagnosticError) -> None:
    for diag in error.diagnostics:
        stderr.print(format_diagnostic(diag), markup=False, highlight=False)
    errors = sum(d.is_error for d in error.diagnostics)
    stderr.print(f"{errors} error(s)", markup=False)
    raise typer.Exit(EXIT_USAGE)


def _warn(warnings) -> None:
    for diag in warnings:
        stderr.print(format_diagnostic(diag), markup=False, highlight=False)


def _prepare(program, input_, horizon, semantics, encoding, max_delay) -> pipeline.Prepared:
    try:
        prepared = pipeline.prepare(program, input_, horizon, semantics, encoding, max_delay)
    except DiagnosticError as error:
        _fail(error)
    _warn(prepared.warnings)
    return prepared


def _incomplete(what: str, timeout) -> None:
    stderr.print(f"timeout: stopped after {timeout} s; {what} is incomplete (raise --timeout or lower --horizon)")


@app.command()
def check(program: Path = Prog, json_: bool = JsonOpt) -> None:
    """Parse PROG and report its rules, relations, strata, async relations and positivity."""
    try:
        prog, _, _ = pipeline.load(program)
        report = analysis.report(prog)
    except DiagnosticError as error:
        _fail(error)
    if json_:
        print(json.dumps(report.as_dict(), indent=2))
        return
    _warn(report.warnings)
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


@app.command("compile")
def compile_(
    program: Path = Prog,
    input_: Optional[Path] = typer.Option(None, "--input", "-i", help="Input instance H; without it decl(H) is left out"),
    horizon: int = HorizonOpt,
    semantics: Semantics = SemanticsOpt,
    encoding: Encoding = EncodingOpt,
    max_delay: Optional[int] = DelayOpt,
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the program here instead of stdout"),
) -> None:
    """Write the clingo program of PROG; `python -m clingo OUT.lp 0` runs it."""
    prepared = _prepare(program, input_, horizon, semantics, encoding, max_delay)
    if output is None:
        sys.stdout.write(prepared.compiled.text)
    else:
        try:
            output.write_text(prepared.compiled.text, encoding="utf-8")
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
) -> None:
    """Enumerate models: each one's trace (node × step) and its messages. Exit 1 if there is none."""
    prepared = _prepare(program, input_, horizon, semantics, encoding, max_delay)
    found = solve.enumerate_models(prepared.compiled, number, timeout=timeout)
    if json_:
        print(
            json.dumps(
                {
                    "semantics": semantics.value,
                    "horizon": horizon,
                    "max_delay": max_delay,
                    "nodes": [str(n) for n in prepared.instance.network],
                    "complete": found.complete,
                    "models": [m.as_dict() for m in found.models],
                },
                indent=2,
            )
        )
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
) -> None:
    """Count stable models and distinct traces (projective enumeration)."""
    prepared = _prepare(program, input_, horizon, semantics, encoding, max_delay)
    result = solve.count(prepared.compiled, timeout=timeout)
    if json_:
        print(json.dumps(result, indent=2))
    else:
        stdout.print(
            f"{result['models']} model(s), {result['traces']} distinct trace(s) "
            f"({semantics.value}, horizon {horizon}"
            + ("" if max_delay is None else f", delay ≤ {max_delay}")
            + f"; {result['seconds']} s)"
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
) -> None:
    """Enumerate the operational run prefixes (tplp2016 §5.1) in which each node takes T+1 steps."""
    try:
        prog, instance, warnings = pipeline.load(program, input_)
    except DiagnosticError as error:
        _fail(error)
    _warn(warnings)
    tty = sys.stderr.isatty()

    def progress(states: int) -> None:
        if tty:
            print(f"\r  explored {states} configurations", end="", file=sys.stderr, flush=True)

    try:
        result = operational.explore(
            prog,
            analysis.restrict(instance, prog),
            horizon,
            max_delay=max_delay,
            max_states=max_states,
            progress=progress,
            mode="exact" if runs else "traces",
        )
    except operational.StateLimitExceeded as exc:
        stderr.print(f"\nstate limit: {exc}")
        raise typer.Exit(EXIT_INCOMPLETE)
    if tty:
        print(file=sys.stderr)
    summary = {
        "traces": len(result.traces),
        "states": result.states,
        "mode": result.mode,
        "horizon": horizon,
        "max_delay": max_delay,
    }
    if runs:
        summary["runs"] = result.runs
    if json_:
        print(json.dumps(summary, indent=2))
    else:
        prefixes = f" over {result.runs} distinct run prefix(es)" if runs else ""
        stdout.print(
            f"{summary['traces']} distinct trace(s){prefixes}; {summary['states']} configurations explored "
            f"(horizon {horizon}" + ("" if max_delay is None else f", delay ≤ {max_delay}") + ")"
        )


def main() -> None:
    app()


if __name__ == "__main__":
    main()
