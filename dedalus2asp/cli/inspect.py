"""The commands that look into models: report (a page of them), explain (why a fact holds), replay (their run)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from .. import inspect, pipeline
from ..asp import solve
from ..bounds import MAX_STEP, Encoding, Network, Semantics
from ..formats import render
from ..inspect import explain
from ..lang.ast import GLOBAL_NODE
from ..lang.diagnostics import DiagnosticError
from .console import EXIT_NO, fail, incomplete, no_model, say, stderr, stdout, tables, usage, write
from .options import (NETWORK, Dialect, DialectOpt, EncodingOpt, HorizonOpt, InputOpt, ModelOpt, ModelsOpt, Prog,
                      SemanticsOpt, TimeoutOpt, bounds, network_options, fact, point, prepare, LIMITS, Limits, limit_options,
                      program_files)


@limit_options
@network_options
def report(
    targets: list[Path] = typer.Argument(
        ..., help="A Dedalus program (several files are read as one program: a Molly protocol and its invariants), "
        "or a Spark run/batch directory", show_default=False,
    ),
    input_: Optional[Path] = typer.Option(None, "--input", "-i", help="Input instance H (for a program)"),
    horizon: Optional[int] = typer.Option(None, "--horizon", "-T", min=0, max=MAX_STEP, help="Every node performs steps 0..T (for a program)"),
    semantics: Semantics = SemanticsOpt,
    encoding: Encoding = EncodingOpt,
    network: Network = NETWORK,
    number: int = ModelsOpt,
    timeout: Optional[float] = TimeoutOpt,
    output: Optional[Path] = typer.Option(
        None, "--output", "-o", help="The HTML file to write (needed for a program; default for a directory: DIR/report.html)"
    ),
    dialect: Dialect = DialectOpt,
    limits: Limits = LIMITS,
) -> None:
    """Write a self-contained HTML report: a table of models, each with its spacetime diagram and state per step."""
    target = targets[0]
    if len(targets) > 1 and any(path.is_dir() for path in targets):
        usage("bad-argument", "report takes one run/batch directory, or program files: not both, nor several directories")
    if target.is_dir():
        from ..batch import summarize

        try:
            return summarize(target, tables(), output or target / "report.html")
        except DiagnosticError as error:
            fail(error)
    for path in targets:
        if not path.exists():
            usage("io", "cannot read it: no such program file or batch directory", str(path))
    target = program_files(targets)
    if horizon is None:
        usage("missing-option", f"report on the program {target} needs --horizon T")
    if output is None:
        usage("missing-option", f"report on the program {target} needs -o FILE.html, the page to write")
    prepared = prepare(target, input_, bounds(horizon, semantics, encoding, network), dialect, limits=limits)
    found = solve.isolated(inspect.enumerate_models, prepared.compiled, number, timeout=timeout, max_memory=limits.max_memory)
    nodes = prepared.compiled.bounds.network.populate(prepared.instance).network  # with the nodes named only by --nodes
    chosen = inspect.Models(tuple(found.models), prepared.compiled.bounds, tuple(nodes), found.complete)
    write(output, render(chosen, "html", program=str(target), input=input_))
    stderr.print(f"wrote {output} ({found.count} model(s))")
    if not found.complete:
        incomplete("the enumeration", timeout)
    if found.count == 0:
        no_model()


def nth_model(prepared: pipeline.Prepared, k: int, timeout, limits: Limits) -> inspect.Model:
    """Model number k (1-based) of the enumeration; exit 2 when there are fewer, 3 on a timeout."""
    found = solve.isolated(inspect.enumerate_models, prepared.compiled, k, timeout=timeout, max_memory=limits.max_memory)
    if found.count < k:
        if not found.complete:
            incomplete(f"the search for model {k}", timeout)
        bounds_ = prepared.compiled.bounds
        usage(
            "no-such-model",
            f"--model {k}: there are only {found.count} model(s) ({bounds_.semantics.value}, {bounds_.describe()})"
            + (f"; choose 1..{found.count}" if found.count else ""),
            "--model",
        )
    return found.models[k - 1]


@limit_options
@network_options
def explain_(
    program: Path = Prog,
    input_: Path = InputOpt,
    horizon: int = HorizonOpt,
    fact_: str = typer.Option(..., "--fact", help="The fact to explain, e.g. 'covered()'", show_default=False),
    at: str = typer.Option(
        ..., "--at", help="NODE:STEP where it holds, e.g. a:3 (global:3 for a fact of a global relation)", show_default=False
    ),
    model: int = ModelOpt,
    semantics: Semantics = SemanticsOpt,
    encoding: Encoding = EncodingOpt,
    network: Network = NETWORK,
    dot: Optional[Path] = typer.Option(None, "--dot", help="Also write the lineage graph (DOT) to this file"),
    timeout: Optional[float] = TimeoutOpt,
    dialect: Dialect = DialectOpt,
    limits: Limits = LIMITS,
) -> None:
    """Why does FACT hold at NODE:STEP in a model? Its derivation back to input facts, carry-overs and messages."""
    bounds_ = bounds(horizon, semantics, encoding, network)
    node, step = point(at)
    wanted = fact(fact_)
    prepared = prepare(program, input_, bounds_, dialect, limits=limits)
    schema = prepared.program.schema()
    if wanted[0] not in schema:
        usage("unknown-relation", f"--fact {fact_}: '{wanted[0]}' is not a relation of {program} ({', '.join(sorted(schema))})", "--fact")
    nodes = bounds_.network.populate(prepared.instance).network  # with the nodes named only by --nodes
    if node not in nodes and str(node) == "global" and wanted[0] in prepared.program.global_relations():
        node = GLOBAL_NODE  # the facts of global relations (global rules: assertions over several nodes)
    if node not in nodes and node != GLOBAL_NODE:
        usage("bad-option", f"--at {at}: {node} is not a node of the network ({', '.join(map(str, nodes))})", "--at")
    if step > horizon:
        usage("bad-option", f"--at {at}: step {step} is beyond the horizon {horizon}", "--at")
    chosen = nth_model(prepared, model, timeout, limits)
    try:
        derivation = explain.explain(chosen, node, step, wanted, prepared.instance)
    except ValueError as error:
        usage("not-in-model", str(error), "--fact")
    say(render(derivation, "text"))
    if dot is not None:
        write(dot, render(derivation, "dot"))
        stderr.print(f"wrote {dot}")


@limit_options
@network_options
def replay_(
    program: Path = Prog,
    input_: Path = InputOpt,
    horizon: int = HorizonOpt,
    model: int = ModelOpt,
    semantics: Semantics = SemanticsOpt,
    encoding: Encoding = EncodingOpt,
    network: Network = NETWORK,
    timeout: Optional[float] = TimeoutOpt,
    dialect: Dialect = DialectOpt,
    limits: Limits = LIMITS,
) -> None:
    """Rebuild the run a model stands for (tplp2016 §5.3.2), replay it operationally, compare traces. Exit 1 if they differ."""
    prepared = prepare(program, input_, bounds(horizon, semantics, encoding, network), dialect, limits=limits)
    chosen = nth_model(prepared, model, timeout, limits)
    try:
        run = chosen.run()
    except ValueError as error:
        stdout.print(str(error))
        raise typer.Exit(EXIT_NO)
    stdout.print(f"the run of model {model}: transitions in a linear extension of happens-before (tplp2016 §5.3.2)")
    say(render(run, "text"))
    try:
        replayed = run.replay(prepared.program, prepared.instance)
    except DiagnosticError as error:  # a lock-step rule (one node's step at a time)
        fail(error)
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
