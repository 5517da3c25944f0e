"""The command line (typer): one function per command, registered here in the order `--help` lists them.

* `program`: check, compile, convert: a program's text;
* `solve`: models, count, explore, cron: questions answered by solving or exploring;
* `inspect`: report, explain, replay: looking into models;
* `spark`: run, batch: large inputs and many jobs.

The options the commands share are declared once (`options`) and the bounds of
a question made once from them (`options.bounds`); every result is printed
through the formats registry (`dedalus2asp.formats`); `console` says what goes
to standard output and standard error, and the exit status of each outcome.
"""

from __future__ import annotations

import sys

import typer

from ..asp.solve import SolveError
from . import inspect, program, solve, spark
from .console import EXIT_INTERNAL, ReaderMayLeave, stderr

app = typer.Typer(
    help="The stable-model semantics of Dedalus (Ameloot et al., TPLP 2016), executable with clingo.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

COMMANDS = {
    "check": program.check,
    "compile": program.compile_,
    "models": solve.models,
    "count": solve.count,
    "explore": solve.explore,
    "report": inspect.report,
    "explain": inspect.explain_,
    "replay": inspect.replay_,
    "convert": program.convert,
    "cron": solve.cron_,
    "run": spark.run_,
    "batch": spark.batch_,
}
for name, command in COMMANDS.items():
    app.command(name)(command)


def main() -> None:
    """The `dedalus2asp` script: the app, with a reader that may leave early and clingo's rejections as bugs."""
    sys.stdout = ReaderMayLeave(sys.stdout)
    try:
        app()
    except SolveError as error:
        stderr.print(
            f"internal error: {error}\n"
            "This is a bug in dedalus2asp, not in your program: please report it with the program, the input "
            "and the command line."
        )
        sys.exit(EXIT_INTERNAL)
