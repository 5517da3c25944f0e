"""`verify`: Molly's question, every pre fact has its post fact at the last step, under every fault and schedule of the bounds.

Exit status: 0 the invariant holds within the bounds; 1 a counterexample; 2 a bad program, input
or option (no relation --pre or --post, different arities); 3 stopped (--timeout) before an answer.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from .. import pipeline, verify
from ..bounds import Encoding, Network, Semantics
from ..lang.diagnostics import Diagnostic, DiagnosticError
from .console import EXIT_INCOMPLETE, EXIT_NO, emit, fail, say, stderr, warn
from .options import (NETWORK, Dialect, DialectOpt, EncodingOpt, HorizonOpt, InputOpt, JsonOpt, Prog, SemanticsOpt,
                      TimeoutOpt, bounds, need_instance, network_options)


@network_options
def verify_(
    program: Path = Prog,
    input_: Path = InputOpt,
    horizon: int = HorizonOpt,
    network: Network = NETWORK,
    pre: str = typer.Option("pre", "--pre", help="The relation whose facts need a match (Molly's convention: pre)"),
    post: str = typer.Option("post", "--post", help="The relation that matches them (Molly's convention: post)"),
    semantics: Semantics = SemanticsOpt,
    encoding: Encoding = EncodingOpt,
    search_horizon: bool = typer.Option(
        False, "--search-horizon", help="Try horizons 0..T and report the smallest with a counterexample"
    ),
    all_: bool = typer.Option(False, "--all", help="Also list the minimal fault sets that break the invariant"),
    timeout: Optional[float] = TimeoutOpt,
    json_: bool = JsonOpt,
    dialect: Dialect = DialectOpt,
) -> None:
    """Does every pre fact have its matching post fact at the last step, whatever is lost and whoever crashes (Molly)?

    The counterexample shown has the fewest faults; --all lists every minimal fault set. Exit status: 0 holds within the bounds,
    1 counterexample, 2 bad program, input or option, 3 stopped before an answer.
    """
    bounds_ = bounds(horizon, semantics, encoding, network)
    try:
        prog, instance, warnings = pipeline.load(program, input_, dialect.value)
    except DiagnosticError as error:
        fail(error)
    need_instance(program, instance)
    warn(warnings)
    question = verify.search if search_horizon else verify.verify
    try:
        verdict = question(prog, instance, bounds_, pre.strip(), post.strip(), timeout, all_)
    except verify.InvariantError as error:
        fail(DiagnosticError([Diagnostic("bad-invariant", str(error), filename=str(program))]))
    if json_:
        emit(json.dumps(verdict.as_dict(), indent=2))
    else:
        say(verdict.describe())
    if verdict.holds is None:
        stderr.print(f"timeout: stopped after {timeout} s before an answer (raise --timeout or lower --horizon)")
        raise typer.Exit(EXIT_INCOMPLETE)
    if not verdict.holds:
        raise typer.Exit(EXIT_NO)
