"""One diagnostic formatter for every phase.

A problem is a `Diagnostic` value (file, span, code, message, severity);
phases collect them and raise `DiagnosticError` with all of them at once, so
a user fixes five problems in one go. `format_diagnostic` renders

    file:line:col: error: message
        <the source line>
        ^^^^

and the command line prints that and exits with status 2.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from .ast import NOWHERE, Span


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


@dataclass(frozen=True)
class Diagnostic:
    """A located message. `code` is a short stable identifier (e.g. `unsafe-variable`)."""

    code: str
    message: str
    span: Span = NOWHERE
    filename: str = "<program>"
    text: str = field(default="", repr=False, compare=False)
    severity: Severity = Severity.ERROR
    notes: tuple["Diagnostic", ...] = ()

    def __post_init__(self) -> None:
        if self.span.source is not None:  # a region of an included file: report it there
            object.__setattr__(self, "filename", self.span.source[0])
            object.__setattr__(self, "text", self.span.source[1])

    @property
    def line(self) -> int:
        return self.span.line

    @property
    def col(self) -> int:
        return self.span.col

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def as_dict(self) -> dict:
        """The diagnostic as JSON: file, line, col (0 when it has no place), severity, code, message, notes."""
        out = {
            "file": self.filename,
            "line": self.line,
            "col": self.col,
            "severity": self.severity.value,
            "code": self.code,
            "message": self.message,
        }
        if self.notes:
            out["notes"] = [n.as_dict() for n in self.notes]
        return out


def format_diagnostic(diag: Diagnostic) -> str:
    """Render a diagnostic with its source line and a caret under its span."""
    where = diag.filename if diag.span == NOWHERE else f"{diag.filename}:{diag.line}:{diag.col}"
    out = [f"{where}: {diag.severity.value}: {diag.message}"]
    lines = diag.text.split("\n")  # not splitlines(): it also breaks at \f, \v, \u2028, which lark does not
    if diag.span != NOWHERE and 0 < diag.line <= len(lines):
        source = lines[diag.line - 1].expandtabs(1)
        width = (diag.span.end_col - diag.col) if diag.span.end_line == diag.line else len(source) - diag.col + 1
        out.append(f"    {source}")
        out.append("    " + " " * (diag.col - 1) + "^" * max(1, width))
    out.extend("  " + format_diagnostic(n).replace("\n", "\n  ") for n in diag.notes)
    return "\n".join(out)


def in_order(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Grouped by file (the files in the order they first come up), then by line and column."""
    files = {d.filename: i for i, d in reversed(list(enumerate(diagnostics)))}
    return sorted(diagnostics, key=lambda d: (files[d.filename], d.line, d.col))


class DiagnosticError(Exception):
    """Raised by a phase that found errors; carries every diagnostic it collected, `in_order`."""

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = in_order(diagnostics)
        super().__init__("\n".join(map(format_diagnostic, self.diagnostics)))


def raise_if_errors(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Raise `DiagnosticError` if any diagnostic is an error; return the warnings otherwise."""
    if any(d.is_error for d in diagnostics):
        raise DiagnosticError(diagnostics)
    return diagnostics
