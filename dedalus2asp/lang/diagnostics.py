"""One diagnostic formatter for every phase.

A problem is a `Diagnostic` value (file, span, code, message, severity);
phases collect them and raise `DiagnosticError` with all of them at once, so
a user fixes five problems in one go. `format_diagnostic` renders

    file:line:col: error: message
        <the source line>
        ^^^^

and the command line prints that and exits with status 2. The first line is
one line whatever the user named (a file name with a line break is written
with its escape, `ast.printable`); a source line shows a character that is
not printable as '�', so that the caret stays under its column, and a line
longer than `MAX_SHOWN` characters by a window around the caret. Lines and
columns come from one table of line starts per text (`line_starts`), so
that a thousand diagnostics of a large file cost no more than one each.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from enum import Enum
from functools import lru_cache
from itertools import accumulate

from .ast import NOWHERE, Program, Rule, Span, printable


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


MAX_SHOWN = 200
"""The most characters of a source line shown above a caret: a longer line is cut around the caret."""


@lru_cache(maxsize=8)
def line_starts(text: str) -> tuple[int, ...]:
    """The offset of the first character of every line of `text`; lines end at '\\n' only, as lark's do
    (not at '\\f', '\\v' or '\\u2028', where `str.splitlines` would also break)."""
    return tuple(accumulate((len(line) + 1 for line in text.split("\n")[:-1]), initial=0))


def position(text: str, offset: int) -> tuple[int, int]:
    """The 1-based line and column of the character at `offset` of `text`."""
    starts = line_starts(text)
    line = bisect_right(starts, offset)
    return line, offset - starts[line - 1] + 1


def source_line(text: str, line: int) -> str | None:
    """Line `line` (1-based) of `text`, without its '\\n'; None if there is no such line."""
    starts = line_starts(text)
    if not 0 < line <= len(starts):
        return None
    end = starts[line] - 1 if line < len(starts) else len(text)
    return text[starts[line - 1] : end]


def _shown(source: str, col: int, width: int) -> tuple[str, int, int]:
    """A source line as shown above a caret at column `col`, `width` wide, and the caret's column and
    width there: tabs as one space, a character that is not printable as '�', and a line longer than
    `MAX_SHOWN` cut to a window that starts a little before the caret, '…' where it is cut."""
    source = "".join(c if c.isprintable() else "\ufffd" for c in source.expandtabs(1))
    if len(source) <= MAX_SHOWN:
        return source, col, width
    start = max(0, min(col - 41, len(source) - MAX_SHOWN))
    end = start + MAX_SHOWN
    shown = ("…" if start else "") + source[start:end] + ("…" if end < len(source) else "")
    return shown, col - start + (1 if start else 0), min(width, end - col + 1)


def format_diagnostic(diag: Diagnostic) -> str:
    """Render a diagnostic with its source line and a caret under its span."""
    where = diag.filename if diag.span == NOWHERE else f"{diag.filename}:{diag.line}:{diag.col}"
    out = [printable(f"{where}: {diag.severity.value}: {diag.message}")]
    line = source_line(diag.text, diag.line) if diag.span != NOWHERE else None
    if line is not None:
        width = (diag.span.end_col - diag.col) if diag.span.end_line == diag.line else len(line) - diag.col + 1
        source, col, width = _shown(line, diag.col, width)
        out.append(f"    {source}")
        out.append("    " + " " * (col - 1) + "^" * max(1, width))
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

    def __reduce__(self):
        """Pickled with its diagnostics (not its message): a solver's process (`asp.solve.isolated`) hands it back."""
        return (DiagnosticError, (list(self.diagnostics),))


def raise_if_errors(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Raise `DiagnosticError` if any diagnostic is an error; return the warnings otherwise."""
    if any(d.is_error for d in diagnostics):
        raise DiagnosticError(diagnostics)
    return diagnostics


def diagnostic_in(program: Program, code: str, message: str, span, severity=Severity.ERROR, notes=()) -> Diagnostic:
    """A diagnostic of `program`, reported in its file."""
    return Diagnostic(code, message, span, program.filename, program.text, severity, tuple(notes))


def rule_name(rule: Rule) -> str:
    """How messages name a rule: `rule 3`, or `rule 3 (persist[p, 1])` for a rule a macro wrote."""
    return f"rule {rule.number}" + (f" ({rule.origin})" if rule.origin else "")
