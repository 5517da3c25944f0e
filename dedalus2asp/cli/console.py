"""What the commands print, where they write, and how they end.

Standard output carries the answer (text for a reader, or a document: JSON,
SVG, ...), standard error what happened on the way (diagnostics, "wrote F").
User text (names, strings) is never rich markup, and lines are never wrapped:
diagnostics keep their carets. A table is as wide as the terminal it goes to;
into a pipe or a file, as wide as its content (nothing is cut to 80 columns).

Exit status: 0 on success; 1 where a command documents a "no" answer; 2 for
user errors (bad program, bad input, bad option), reported as
`file:line:col: error: ...`; 3 when a `--timeout` or `--max-states` limit
stopped the work before it finished, or `--max-memory` stopped the solver;
70 on an internal error (an unexpected exception, or clingo rejecting a program
that dedalus2asp wrote: a bug of ours); 130 on Ctrl-C.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import NoReturn

import typer
from rich.console import Console
from rich.text import Text

from ..formats.text import UNBOUNDED
from ..lang.diagnostics import Diagnostic, DiagnosticError, format_diagnostic

EXIT_NO, EXIT_USAGE, EXIT_INCOMPLETE = 1, 2, 3
EXIT_INTERNAL = 70  # EX_SOFTWARE: a bug of ours (an unexpected exception; clingo rejected a program we wrote)
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports Ctrl-C

stdout = Console(highlight=False, markup=False, emoji=False, soft_wrap=True)
stderr = Console(stderr=True, highlight=False, markup=False, emoji=False, soft_wrap=True)


def width() -> int | None:
    """The width of the terminal standard output goes to; None (no limit) for a pipe or a file."""
    return stdout.width if stdout.is_terminal else None


def text_options() -> dict:
    """The options of `formats.text` for standard output: the terminal's width and styles, or neither."""
    return {"width": width(), "color": stdout.is_terminal}


def tables() -> Console:
    """A console for rich tables on standard output: as wide as the terminal, or unbounded."""
    return Console(width=width() or UNBOUNDED, highlight=False, markup=False, emoji=False, soft_wrap=True)


def say(text: str) -> None:
    """Print text rendered for a reader (`formats.text`, with terminal styles when `stdout.is_terminal`)."""
    stdout.print(Text.from_ansi(text), end="")


def emit(document: str, output: Path | None = None) -> None:
    """A document on standard output, or into the file `output`."""
    if output is None:
        sys.stdout.write(document)
    else:
        write(output, document)
        stderr.print(f"wrote {output}")


def write(path: Path, text: str) -> None:
    """Write a file, its folder made if needed; a path that cannot be written is a user error."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        usage("io", f"cannot write {path}: {exc.strerror or exc}", str(path))


def fail(error: DiagnosticError) -> NoReturn:
    """Report the diagnostics of a user error and exit 2."""
    for diag in error.diagnostics:
        stderr.print(format_diagnostic(diag), markup=False, highlight=False)
    errors = sum(d.is_error for d in error.diagnostics)
    stderr.print(f"{errors} error(s)", markup=False)
    raise typer.Exit(EXIT_USAGE)


def usage(code: str, message: str, where: str = "<command line>") -> NoReturn:
    """A bad option: reported like every diagnostic, exit 2."""
    fail(DiagnosticError([Diagnostic(code, message, filename=where)]))


def bad_option(message: str) -> None:
    """A bad option value, an unknown option or command (click's message, which names the option and
    what it accepts), reported as every user error on the command line: `<command line>: error: ...`."""
    message = " ".join(message.split()).replace("Value error, ", "")
    stderr.print(format_diagnostic(Diagnostic("bad-option", message, filename="<command line>")), markup=False, highlight=False)
    stderr.print("1 error(s)", markup=False)


def warn(warnings) -> None:
    for diag in warnings:
        stderr.print(format_diagnostic(diag), markup=False, highlight=False)


def incomplete(what: str, timeout) -> NoReturn:
    """A `--timeout` stopped the work: say so and exit 3."""
    stderr.print(f"timeout: stopped after {timeout} s; {what} is incomplete (raise --timeout or lower --horizon)")
    raise typer.Exit(EXIT_INCOMPLETE)


def no_model() -> NoReturn:
    stderr.print("no model: the program has no stable model on this input within the bounds")
    raise typer.Exit(EXIT_NO)


class ReaderMayLeave:
    """Standard output that goes quiet once its reader has gone (`dedalus2asp cron ... | head`).

    The command then finishes and exits with its own status (a verdict, not 1 for the broken
    pipe, which is what click would make of it); what it still writes is dropped.
    """

    def __init__(self, stream) -> None:
        self.stream = stream

    def gone(self) -> None:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, self.stream.fileno())  # the interpreter's last flush at exit then succeeds too
        os.close(devnull)

    def write(self, text: str) -> int:
        try:
            return self.stream.write(text)
        except BrokenPipeError:
            self.gone()
            return len(text)

    def flush(self) -> None:
        try:
            self.stream.flush()
        except BrokenPipeError:
            self.gone()

    def __getattr__(self, name):
        return getattr(self.stream, name)
