"""The command line (typer): one function per command, registered here in the order `--help` lists them.

* `program`: check, compile, convert: a program's text;
* `solve`: models, count, explore, cron: questions answered by solving or exploring;
* `inspect`: report, explain, replay: looking into models;
* `spark`: run, batch: large inputs and many jobs;
* `maintain`: views kept up to date under bursts of updates (psn2010).

The options the commands share are declared once (`options`) and the bounds of
a question made once from them (`options.bounds`); every result is printed
through the formats registry (`dedalus2asp.formats`); `console` says what goes
to standard output and standard error, and the exit status of each outcome.

How a command ends is decided in one place, `Commands.invoke`: a bad option
value (click's usage errors) is a `<command line>: error:` diagnostic and exit 2,
like every other user error, and so is a Spark that cannot start here (no Java 17,
or Spark Connect asked for: `<environment>: error:`); a solver stopped by `--timeout` while it could not
be interrupted, or by `--max-memory`, exit 3; Ctrl-C exit 130; any other
exception is an internal error, one line and exit 70 (`--debug` shows its trace).
"""

from __future__ import annotations

import os
import sys
import traceback

import typer
from typer import rich_utils
from typer._click.exceptions import NoArgsIsHelpError, UsageError
from typer.core import TyperGroup

from ..asp.solve import SolveError, Stopped
from ..runs.evaluator import Unending
from ..runs.session import SparkUnavailable
from . import inspect, maintain, program, solve, spark, verify
from .console import EXIT_INCOMPLETE, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_USAGE, ReaderMayLeave, bad_option, stderr
from .options import program_options


HELP_WIDTH = 100
"""The width of `--help` written into a pipe or a file (rich would take 80 columns, where the options' help wraps
into a narrow column); on a terminal, the terminal's width; `COLUMNS` or `TERMINAL_WIDTH` set, theirs."""


def help_width() -> int | None:
    """`--help`'s width: None (the terminal's, or the one the environment sets) or `HELP_WIDTH` off a terminal."""
    if os.environ.get("TERMINAL_WIDTH", "").isdigit():
        return int(os.environ["TERMINAL_WIDTH"])
    return None if sys.stdout.isatty() or os.environ.get("COLUMNS") else HELP_WIDTH


class Commands(TyperGroup):
    """The group of commands, with the one place where every command's failures become exit statuses."""

    def make_context(self, info_name, args, parent=None, **extra):
        """The global options (`--debug`) parsed; a bad one is a `<command line>` diagnostic. `--help` (of the
        group or of a command, parsed after this) is as wide as `help_width` says."""
        rich_utils.MAX_WIDTH = help_width()
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except NoArgsIsHelpError:
            raise
        except UsageError as error:
            bad_option(error.format_message())
            raise typer.Exit(EXIT_USAGE) from None

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except (typer.Exit, typer.Abort, NoArgsIsHelpError):
            raise
        except UsageError as error:  # a bad option value, an unknown option or command
            bad_option(error.format_message())
            raise typer.Exit(EXIT_USAGE) from None
        except Stopped as stopped:
            stderr.print(str(stopped))
            raise typer.Exit(EXIT_INCOMPLETE) from None
        except KeyboardInterrupt:
            stderr.print("interrupted")
            raise typer.Exit(EXIT_INTERRUPTED) from None
        except Unending as error:  # a recursion that computes ever new values (a user error)
            stderr.print(f"error: {error}", markup=False, highlight=False)
            raise typer.Exit(EXIT_USAGE) from None
        except SparkUnavailable as error:  # no Java, or Spark Connect asked for: what to fix, not a trace
            stderr.print(f"<environment>: error: {error}", markup=False, highlight=False)
            raise typer.Exit(EXIT_USAGE) from None
        except SolveError as error:  # clingo rejected a program we wrote
            report_internal(ctx, error, "a bug in dedalus2asp, not in your program: please report it with the program, "
                            "the input and the command line; run again with --debug for the trace")
        except Exception as error:  # noqa: BLE001 - the one place an unexpected exception is caught
            report_internal(ctx, error)


def report_internal(ctx, error: BaseException, what: str = "please report it: run again with --debug for the trace") -> None:
    """An unexpected exception: one line (its trace before it with --debug), exit 70."""
    if ctx.params.get("debug"):
        traceback.print_exception(error, file=sys.stderr)
    message = " ".join(str(error).split())
    stderr.print(f"dedalus2asp: internal error: {type(error).__name__}: {message} ({what})")
    raise typer.Exit(EXIT_INTERNAL) from None


app = typer.Typer(
    cls=Commands,
    help="The stable-model semantics of Dedalus (Ameloot et al., TPLP 2016), executable with clingo.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def options(
    debug: bool = typer.Option(False, "--debug", help="On an internal error, print its Python trace (for a bug report)"),
) -> None:
    """The stable-model semantics of Dedalus (Ameloot et al., TPLP 2016), executable with clingo."""


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
    "verify": verify.verify_,
}
for name, command in COMMANDS.items():
    app.command(name)(program_options(command))  # PROG: one file or several; --horizon or --eot
app.command("maintain")(maintain.maintain_)  # PROG: one DDlog program


def main() -> None:
    """The `dedalus2asp` script: the app, with a reader that may leave early."""
    sys.stdout = ReaderMayLeave(sys.stdout)
    app()
