"""The commands on a program's text: check it, compile it for clingo, convert its notation."""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from .. import pipeline
from ..asp.transform import lasso_ready
from ..bounds import MAX_STEP, Bounds, Encoding, Mode, Network, Semantics
from ..formats import render
from ..lang import analysis, coordination, lamport, located, parser
from ..lang.ast import printable
from ..lang.convert import located_text, transparent_text
from ..lang.diagnostics import Diagnostic, DiagnosticError
from ..maintain import report as maintain_report
from ..maintain.reading import read_program
from .console import emit, fail, say, stderr, usage, warn
from .options import (NETWORK, Dialect, DialectOpt, EncodingOpt, HorizonOpt, JsonOpt, Prog, SemanticsOpt, bounds, network_options,
                      prepare)


class Graph(str, Enum):
    DOT = "dot"
    SVG = "svg"
    HTML = "html"


def _coordination(prog, carried):
    """`coordination.analyse` of PROG, the relations its facts make change with time as its events (`events_of`)."""
    facts = [f for fs in (carried.facts.values() if carried else ()) for f in fs]
    return coordination.analyse(prog, coordination.events_of(prog, facts))


def check(
    program: Path = Prog,
    json_: bool = JsonOpt,
    dialect: Dialect = DialectOpt,
    graph: Optional[Graph] = typer.Option(None, "--graph", help="Print the dependency graph instead (dot, svg or html): "
                                          "monotonic components boxed, ¬ and + edges marked, loci of coordination in red"),
) -> None:
    """Parse PROG and report its rules, relations, strata, async relations, positivity, and where it needs coordination."""
    try:
        prog, carried, loaded = pipeline.load(program, dialect=dialect.value)
        report = analysis.report(prog, _coordination(prog, carried))
    except DiagnosticError as error:
        ddlog = _ddlog(program) if graph is None else None  # a body over several nodes: psn2010's DDlog
        if ddlog is None:
            if json_:  # the diagnostics as JSON too (stdout), besides the usual text (stderr), exit 2
                emit(json.dumps({"valid": False, "errors": sum(d.is_error for d in error.diagnostics),
                                 "diagnostics": [d.as_dict() for d in error.diagnostics]}, indent=2, ensure_ascii=False))
            fail(error)
        emit(json.dumps(maintain_report.as_json(ddlog), indent=2) + "\n" if json_
             else maintain_report.text(ddlog, printable(str(program))) + "\n")
        return
    if graph is not None:
        options = {"program": printable(str(program))} if graph is Graph.HTML else {}
        emit(render(report.coordination, graph.value, **options))
        return
    if json_:
        emit(render(report, "json"))
        return
    # a dialect's own warnings first; check takes no input, so it cannot say a relation is never given
    # (a Molly program's own facts are seldom all of its input), unless its name looks misspelt in a program
    # that carries facts (a library without facts of its own reads what its includer gives)
    own = carried is not None and bool(carried.network)
    warn([w for w in loaded if w not in report.warnings
          and (w.code != "empty-relation" or own and "did you mean" in w.message)] + list(report.warnings))
    say(render(report, "text", program=printable(str(program))))  # a name with a line break stays on its line


def _ddlog(program: Path):
    """PROG read as psn2010's DDlog (`maintain`), or None if it is not."""
    try:
        return read_program(program)
    except DiagnosticError:
        return None


@network_options
def compile_(
    program: Path = Prog,
    input_: Optional[Path] = typer.Option(None, "--input", "-i", help="Input instance H; without it decl(H) is left out"),
    horizon: Optional[int] = typer.Option(
        None, "--horizon", "-T", min=0, max=MAX_STEP, show_default=False, help=HorizonOpt.help + " (or --eventual --steps K)"
    ),
    semantics: Semantics = SemanticsOpt,
    encoding: Encoding = EncodingOpt,
    network: Network = NETWORK,
    eventual: bool = typer.Option(
        False, "--eventual", help="Instead of --horizon: the lasso program of --steps K steps (0..K-1), the loop start "
        "_loop(L) chosen by the solver, the step after K-1 being step L again; nodes step in rounds, under --delivery "
        "sync or --max-delay D (docs/semantics.md, Lasso models)"),
    steps: Optional[int] = typer.Option(
        None, "--steps", min=1, max=MAX_STEP, show_default=False, help="With --eventual: K, the lasso's number of steps"),
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
    if eventual:
        if horizon is not None or traces:
            usage("bad-option", "--eventual writes the lasso program of --steps K steps: give it without --horizon/--traces", "--eventual")
        if steps is None:
            usage("missing-option", "--eventual needs the lasso's number of steps: --steps K (steps 0..K-1)", "--steps")
        try:
            bounds_ = Bounds(steps - 1, semantics, encoding, network, Mode.EVENTUAL)
            lasso_ready(bounds_)
        except ValueError as error:
            usage("bad-option", str(error), "--eventual")
    elif horizon is None:
        usage("missing-option", "give the horizon: --horizon T (steps 0..T), or Molly's end of time --eot N (T = N-1), or --eventual --steps K (a lasso program)", "--horizon")
    elif steps is not None:
        usage("bad-option", "--steps K goes with --eventual (the lasso's steps 0..K-1)", "--steps")
    else:
        bounds_ = bounds(horizon, semantics, encoding, network)
    prepared = prepare(program, input_, bounds_, dialect, needs_input=False)
    text = prepared.compiled.counting_traces() if traces else prepared.compiled.text
    if output is None:
        sys.stdout.write(text)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:  # a bad -o path is a user error, not a traceback
        fail(DiagnosticError([Diagnostic("io", f"cannot write output: {exc.strerror or exc}", filename=str(output))]))
    stderr.print(f"wrote {output}")


class Notation(str, Enum):
    TRANSPARENT = "transparent"
    LOCATED = "located"
    LAMPORT = "lamport"


def convert(
    program: Path = Prog,
    to: Optional[Notation] = typer.Option(
        None, "--to", help="transparent or located (default: the notation PROG is not in); lamport: the same notation "
        "with Lamport clocks (tr2009 §6.6) on the asynchronous relations of --relations or, by default, of the loci of "
        "coordination"),
    relations: Optional[str] = typer.Option(None, "--relations", help="R,S: the asynchronous relations --to lamport "
                                            "rewrites (default: those a locus of coordination involves)"),
    dialect: Dialect = DialectOpt,
) -> None:
    """Print PROG in the other notation: a located (tr2009 §6.2) or Molly program location-transparently (tplp2016), or the
    reverse; or, with --to lamport, with Lamport clocks on its asynchronous relations (tr2009 §6.6)."""
    try:
        prog, given, _ = pipeline.load(program, dialect=dialect.value)  # the checks of `check`
        source = parser.load_source(program, dialect.value)
    except DiagnosticError as error:
        fail(error)
    if to is Notation.LAMPORT:
        chosen = (tuple(dict.fromkeys(r.strip() for r in relations.split(",") if r.strip())) if relations is not None
                  else _coordination(prog, given).lamport_relations())
        if relations is not None and not chosen:
            fail(DiagnosticError([Diagnostic("convert", "--relations names no relation: give R,S (asynchronous relations "
                                             f"of the program: {', '.join(prog.async_relations()) or 'none'}), or leave "
                                             "it out for those a locus of coordination involves", filename=str(program))]))
        try:
            sys.stdout.write(lamport.rewrite(source, chosen).text)
        except ValueError as exc:
            fail(DiagnosticError([Diagnostic("convert", str(exc), filename=str(program))]))
        return
    if relations is not None:
        fail(DiagnosticError([Diagnostic("convert", "--relations goes with --to lamport", filename=str(program))]))
    is_located = isinstance(source, located.LocatedProgram)
    target = to or (Notation.TRANSPARENT if is_located else Notation.LOCATED)
    if is_located == (target is Notation.LOCATED):
        fail(DiagnosticError([Diagnostic("convert", f"the program is {target.value} already (--to {target.value})", filename=str(program))]))
    try:
        sys.stdout.write(transparent_text(source) if is_located else located_text(source))
    except ValueError as exc:
        fail(DiagnosticError([Diagnostic("convert", str(exc), filename=str(program))]))
