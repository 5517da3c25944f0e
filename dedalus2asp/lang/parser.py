"""Reading a Dedalus program: source text to `ast.Program` (or `located.LocatedProgram`).

A location-transparent program follows `dedalus.lark` (tplp2016 §4.1.1,
tr2009 §3); a located or Molly program `located.lark`, read into the
location-transparent IR by `located.locate`; `parse_source` tells the
dialects apart (`detect_dialect`). Each statement is parsed on its own, and
the macro `persist[p, k]` expanded, by `statement`; this module reads the
files of a program, its `include "file";` statements among them.

Beyond the papers' notation, every dialect reads aggregates in heads (`count<X>`), arithmetic with
clingo's precedence (`lexer.binary_minus` tells `T-1` from `-1`), and `_` in negated atoms; located and
Molly programs also read body atoms at a step (`notin p(X)@1`). Molly counts time from 1: its `@k` is
step k-1 (`statement.molly_step`). Several files are read as one program (`parse_sources`).

Inputs are read by `facts`; `parse_facts` and `load_instance` are
re-exported here, as callers that read a program and its input use both.
"""

from __future__ import annotations

import re
from dataclasses import fields, is_dataclass, replace
from pathlib import Path
from typing import Sequence

from lark import Token

from .ast import Output, Program, Span, Timestamped, printable
from .diagnostics import Diagnostic, DiagnosticError, Severity, raise_if_errors
from .facts import load_instance, parse_facts  # noqa: F401  (re-exported: the input reader's entry points)
from .lexer import binary_minus, lex, read_text
from .literals import span_of
from .located import LocatedProgram, locate
from .safety import safety
from .statement import numbered, statements, unique_outputs

# How a program may be written: `auto` tells the others apart (`detect_dialect`).
DIALECTS = ("auto", "transparent", "located", "molly")

MAX_INCLUDES = 256
"""How many files the `include "file";` statements of a program may read in all (a file included twice
is read twice), and so how deep they may nest: a file that includes another twice, which includes a
third twice, ... would otherwise read 2^k files."""


def parse_program(text: str, filename: str = "<program>") -> Program:
    """Parse a location-transparent Dedalus program (tplp2016 §4.1); raise `DiagnosticError` with every
    syntax error found.

    Each statement (the tokens up to a top-level '.') is parsed on its own, so
    a syntax error is reported once per statement and parsing goes on with
    the next one.
    """
    diagnostics: list[Diagnostic] = []
    rules, outputs = statements(text, filename, "dedalus.lark", diagnostics)
    raise_if_errors(diagnostics)
    return Program(tuple(numbered(rules)), unique_outputs(outputs), filename, text)


def detect_dialect(text: str) -> str:
    """The dialect of a program text, when its tokens say so unambiguously.

    `located` (tr2009 §6.2) if an argument is marked `#`; else `molly` if it
    uses `notin` before an atom, `include "file";`, a timestamped fact
    `p(..)@k` or an `@async` without an addressee, none of which a
    location-transparent program can; else `transparent`. A relation or a
    constant named `notin` (`notin(X)`, `p(notin)`) is no sign of Molly: there
    `notin` is a keyword followed by an atom. A Molly program that uses none of
    these reads as location-transparent: pass `--dialect molly`.
    """
    return _detect(text)[0]


# Text without which no token of `_detect`'s markers can be lexed: without it, a program is transparent.
_MARKER_TEXT = re.compile(r"#|notin|include|@[0-9]|@async(?!\s*\()")


def _detect(text: str) -> tuple[str, Token | None]:
    """The dialect of `text` (see `detect_dialect`) and the token that decided it (None for `transparent`).

    A text without `_MARKER_TEXT` is not lexed a second time."""
    if _MARKER_TEXT.search(text) is None:
        return "transparent", None
    molly, previous = None, None
    for tok in lex("located.lark", text, "<detect>", [], []):
        if tok.type == "HASH":
            return "located", tok
        if molly is None and previous is not None and _molly_marker(previous, tok.type):
            molly = previous
        previous = tok
    if molly is None and previous is not None and _molly_marker(previous, "$END"):
        molly = previous
    return ("transparent", None) if molly is None else ("molly", molly)


def _molly_marker(tok: Token, following: str) -> bool:
    """Whether `tok`, followed by a token of type `following`, is written only in Molly."""
    return (
        (tok.type == "NOTIN" and following in ("LNAME", "VARIABLE"))  # `notin r(X)`; `notin(X)` is a relation
        or tok.type in ("INCLUDE", "EVENT")
        or (tok.type == "ASYNC" and following != "LPAR")
    )


def _read_as(dialect: str, marker: Token, error: DiagnosticError, filename: str, text: str) -> DiagnosticError:
    """`error` with a note on its first error: the program was read in the detected `dialect` because of `marker`."""
    what = {
        "NOTIN": "'notin' before an atom (Molly's negation)",
        "INCLUDE": "'include \"file\"'",
        "EVENT": f"the timestamp '{marker}' of a fact or a body atom",
        "ASYNC": "'@async' without an addressee",
    }.get(marker.type, f"'{marker}'")
    note = Diagnostic(
        "dialect",
        f"the program was read as {dialect.capitalize()} because of {what} here; "
        "to read it as location-transparent Dedalus, pass --dialect transparent",
        span_of(marker),
        filename,
        text,
        Severity.NOTE,
    )
    diagnostics = list(error.diagnostics)
    first = next(i for i, d in enumerate(diagnostics) if d.is_error)
    diagnostics[first] = replace(diagnostics[first], notes=diagnostics[first].notes + (note,))
    return DiagnosticError(diagnostics)


def _in_file(node, source: tuple[str, str]):
    """`node` with every span marked as a region of file `source` (name, text), so that a problem with a
    statement of an included file is reported in that file (see `diagnostics.Diagnostic`)."""
    if isinstance(node, Span):
        return node if node.source is not None else replace(node, source=source)
    if isinstance(node, tuple):
        return tuple(_in_file(n, source) for n in node)
    if is_dataclass(node) and not isinstance(node, type):
        return replace(node, **{f.name: _in_file(getattr(node, f.name), source) for f in fields(node)})
    return node


def _located_statements(
    text: str, filename: str, diagnostics: list[Diagnostic], including: tuple[Path, ...], read: list[Path],
    grammar: str = "located.lark", root: Path | None = None,
) -> tuple[list, list[Output]]:
    """The statements of a located program with its `include "file";` statements replaced by the files' own.

    `including` is the chain of files that include this one; `read` every file included so far, at most
    `MAX_INCLUDES` (each time it is included). A file is looked for as Molly does: relative to the
    including file, then relative to `root`, the folder of the first program file.
    """
    items, outputs = statements(text, filename, grammar, diagnostics)
    out: list = []
    for item in items:
        if not (isinstance(item, tuple) and item[0] == "include"):
            out.append(item)
            continue
        _, name, span = item
        shown = str(Path(filename).parent / name)  # the file as the user would name it
        if root is not None and not Path(shown).exists() and (root / name).exists():
            shown = str(root / name)
        path = Path(shown).resolve()
        problem = _include_problem(name, path, including, read) or _missing_include(name, filename, root)
        if problem is not None:
            diagnostics.append(Diagnostic("include", problem, span, filename, text))
            continue
        read.append(path)
        try:
            included_text = read_text(path, f"included file '{printable(name)}'")
        except DiagnosticError as exc:
            diagnostics.extend(replace(d, span=span, filename=filename, text=text) for d in exc.diagnostics)
            continue
        inner, inner_outputs = _located_statements(included_text, shown, diagnostics, including + (path,), read, grammar,
                                                   root)
        origin, source = f"from {name}", (shown, included_text)
        out += [
            replace(_in_file(s, source), rule=replace(_in_file(s.rule, source), origin=origin))
            if isinstance(s, Timestamped)
            else replace(_in_file(s, source), origin=s.origin or origin)
            for s in inner
        ]
        outputs += [_in_file(o, source) for o in inner_outputs]
    return out, outputs


def _missing_include(name: str, filename: str, root: Path | None) -> str | None:
    """Why `include "name";` of `filename` names no file, if it names none: where it was looked for, and
    Molly's own rule (relative to the first program's folder), which does not find it either."""
    places = list(dict.fromkeys([Path(filename).parent / name, *([root / name] if root is not None else [])]))
    if any(p.exists() for p in places):
        return None
    return (f"cannot read included file '{printable(name)}': there is no "
            + " and no ".join(f"'{printable(str(p))}'" for p in places)
            + " (an include is read relative to the including file, then to the first program file's folder; "
            "Molly reads it relative to that folder only, so Molly cannot read it either: give the file, or "
            "the right path)")


def _include_problem(name: str, path: Path, including: tuple[Path, ...], read: list[Path]) -> str | None:
    """Why `include "name";` (the file `path`) is not read, if it is not: it includes itself, or the
    program has read `MAX_INCLUDES` files already."""
    if path in including:
        return f"'{printable(name)}' includes itself (through {' -> '.join(printable(p.name) for p in including)})"
    if len(read) >= MAX_INCLUDES:
        return (f"'{printable(name)}' is not read: the program has included {MAX_INCLUDES} files already, "
                "the most dedalus2asp reads (a file that includes another twice reads it twice)")
    return None


def parse_source(text: str, filename: str = "<program>", dialect: str = "auto") -> Program | LocatedProgram:
    """Parse a program in `dialect` (one of `DIALECTS`; `auto` detects it, see `detect_dialect`).

    A location-transparent program gives a `Program`; a located (tr2009) or
    Molly program a `LocatedProgram`, whose `.program` is its
    location-transparent IR (see `located`). When `auto` reads a program as
    Molly and it has errors, the first one carries a note that names the token
    that decided it and how to force the location-transparent reading.
    """
    return parse_sources([(text, filename)], dialect)


def parse_sources(files: list[tuple[str, str]], dialect: str = "auto") -> Program | LocatedProgram:
    """Parse several program files, (text, file name) each, as one program in `dialect` (see `parse_source`).

    Molly runs a protocol and its invariant file together: the files' statements are read in order, as if
    the later files were included at the end of the first, rules numbered on from one file to the next;
    a problem is reported in its own file. With `auto`, the first file whose dialect is not
    location-transparent decides (`detect_dialect`).
    """
    if dialect not in DIALECTS:
        raise ValueError(f"unknown dialect {dialect!r}: one of {', '.join(DIALECTS)}")
    (text, filename), marker = files[0], None
    if dialect == "auto":
        detected = [_detect(t) for t, _ in files]
        dialect, marker = next((d for d in detected if d[0] != "transparent"), ("transparent", None))
    diagnostics: list[Diagnostic] = []
    items: list = []
    outputs: list[Output] = []
    root = Path(filename).parent
    for i, (one_text, one_name) in enumerate(files):
        if dialect == "transparent":
            found, found_outputs = statements(one_text, one_name, "dedalus.lark", diagnostics)
        else:
            grammar = "molly.lark" if dialect == "molly" else "located.lark"
            found, found_outputs = _located_statements(
                one_text, one_name, diagnostics, (Path(one_name).resolve(),), [], grammar, root
            )
        if i:  # a later file's statements are regions of that file
            found = [_in_file(s, (one_name, one_text)) for s in found]
            found_outputs = [_in_file(o, (one_name, one_text)) for o in found_outputs]
        items += found
        outputs += found_outputs
    try:
        if any(d.is_error for d in diagnostics):
            raise DiagnosticError(diagnostics + _later_problems(items, outputs, dialect, filename, text))
        if dialect == "transparent":
            return Program(tuple(numbered(items)), unique_outputs(outputs), filename, text)
        return locate(numbered(items), unique_outputs(outputs), dialect, filename, text)
    except DiagnosticError as error:
        if dialect != "molly" or marker is None:  # `#` cannot be anything but located
            raise
        raise _read_as(dialect, marker, error, filename, text) from None


_COLUMN_PROBLEMS = ("location", "mixed-location", "missing-location", "global-head")
"""The problems of a located rule that depend on the location columns, which every statement may mark."""


def _later_problems(items: list, outputs: list[Output], dialect: str, filename: str, text: str) -> list[Diagnostic]:
    """The problems of the statements that did parse, in a program with syntax errors: those of `locate`
    and the unsafe variables of each rule (a rule's own problems, which the missing statements cannot
    change), so that one run reports them with the syntax errors."""
    ordered = numbered(items)
    found: list[Diagnostic] = []
    if dialect == "transparent":
        program = Program(tuple(ordered), unique_outputs(outputs), filename, text)
    else:
        try:
            program = locate(ordered, unique_outputs(outputs), dialect, filename, text).program
        except DiagnosticError as error:
            # in tr2009's notation a statement that did not parse may have marked a relation's location
            # column: where the others put it is then unknown
            unknown = _COLUMN_PROBLEMS if dialect == "located" else ()
            return [d for d in error.diagnostics if d.is_error and d.code not in unknown]
    found += safety(program)
    return found


def program_files(paths: str | Path | Sequence[str | Path]) -> list[str | Path]:
    """The files of a program given as one path, several, or a path that carries its `files` (PROG of the
    command line, `cli.options.ProgramFiles`)."""
    if isinstance(paths, (str, Path)):
        return list(getattr(paths, "files", (paths,)))
    return list(paths)


def load_source(paths: str | Path | Sequence[str | Path], dialect: str = "auto") -> Program | LocatedProgram:
    """Read a program in `dialect` (see `parse_source`): one file, or several read as one (`parse_sources`).
    A file that cannot be read is reported with the problems of the others."""
    files, problems = [], []
    for path in program_files(paths):
        try:
            files.append((read_text(path, "program"), str(path)))
        except DiagnosticError as error:
            problems += error.diagnostics
    if problems:
        raise DiagnosticError(problems)
    return parse_sources(files, dialect)


def dialect_of(paths: str | Path | Sequence[str | Path], dialect: str = "auto") -> str:
    """The dialect `load_source` reads `paths` in (`transparent` if no file can be read)."""
    if dialect != "auto":
        return dialect
    for path in program_files(paths):
        try:
            found = detect_dialect(read_text(path, "program"))
        except DiagnosticError:
            continue
        if found != "transparent":
            return found
    return "transparent"


def load_program(paths: str | Path | Sequence[str | Path], dialect: str = "auto") -> Program:
    """Read a program in `dialect`; a located or Molly program gives its location-transparent IR."""
    source = load_source(paths, dialect)
    return source.program if isinstance(source, LocatedProgram) else source
