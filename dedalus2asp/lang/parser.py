"""Reading a Dedalus program: source text to `ast.Program` (or `located.LocatedProgram`).

A location-transparent program follows `dedalus.lark` (tplp2016 §4.1.1,
tr2009 §3); a located or Molly program `located.lark`, read into the
location-transparent IR by `located.locate`; `parse_source` tells the
dialects apart (`detect_dialect`). Each statement is parsed on its own (see
`lexer`), so one run reports every syntax error of a file. The macro
`persist[p, k]` is expanded here into the inductive rule
`p(A1..Ak)@next :- p(A1..Ak).` (tr2009 §3.3), and `persist[p, del_p, k]`
into `p(..)@next :- p(..), not del_p(..).`.

Beyond the papers' notation, every dialect reads aggregates in heads (`count<X>`), arithmetic with
clingo's precedence (`lexer.binary_minus` tells `T-1` from `-1`), and `_` in negated atoms; located and
Molly programs also read body atoms at a step (`notin p(X)@1`). Molly counts time from 1: its `@k` is
step k-1 (`molly_step`). Several files are read as one program (`parse_sources`).

Inputs are read by `facts`; `parse_facts` and `load_instance` are
re-exported here, as callers that read a program and its input use both.
"""

from __future__ import annotations

import re
import string
from dataclasses import fields, is_dataclass, replace
from pathlib import Path
from typing import Sequence

from lark import Token, v_args

import clingo

from .ast import (AGGREGATES, Aggregate, Arithmetic, Atom, Comparison, Constant, Literal, Marked, Output, Program,
                  Rule, RuleKind, Span, Timestamped, Variable, printable)
from .diagnostics import Diagnostic, DiagnosticError, Severity, raise_if_errors
from .facts import load_instance, parse_facts  # noqa: F401  (re-exported: the input reader's entry points)
from .lexer import (INT_RANGE, MAX_ERRORS, BadLiteral, Terms, binary_minus, bounded_int, build, chunks, lark_parser,
                    lex, parse_tokens, read_text, shown_literal, span_of, statement_too_long, step, too_many_errors,
                    unescape)
from .located import LocatedProgram, locate
from .safety import safety

# How a program may be written: `auto` tells the others apart (`detect_dialect`).
DIALECTS = ("auto", "transparent", "located", "molly")

MAX_ARITY = 255
"""The largest k of `persist[p, k]`. The macro is the one place where a few bytes ask for k variables
(`persist[p, 99999999999]` is 25 bytes); no relation of the papers has more than 5 arguments, and 255
is the largest arity of many Prolog systems (SICStus, and ISO's `max_arity` commonly)."""
MAX_INCLUDES = 256
"""How many files the `include "file";` statements of a program may read in all (a file included twice
is read twice), and so how deep they may nest: a file that includes another twice, which includes a
third twice, ... would otherwise read 2^k files."""


@v_args(meta=True)
class _ToAst(Terms):
    """Lark tree of one statement to AST nodes.

    `molly`: times are Molly's, counted from 1: Molly's `@k` is step k-1 (`molly_step`).
    """

    def __init__(self, molly: bool = False):
        super().__init__()
        self.molly = molly

    def time(self, token: Token) -> int:
        """The step of a timestamp `@k` (of a fact or a body atom)."""
        return molly_step(token) if self.molly else step(token)

    # Terms come through Terms, which is not meta-aware; re-wrap them.
    def variable(self, meta, items):
        return super().variable(items)

    def identifier(self, meta, items):
        return super().identifier(items)

    def integer(self, meta, items):
        return super().integer(items)

    def string(self, meta, items):
        return super().string(items)

    def statement(self, meta, items):
        return items[0]

    def atom(self, meta, items):
        name, *args = items
        return Atom(str(name), tuple(args), span_of(meta))

    def nullary(self, meta, items):
        return Atom(str(items[0]), (), span_of(meta))

    def positive(self, meta, items):
        at = self.time(items[1]) if len(items) > 1 else None
        return Literal(items[0], False, span_of(meta), at)

    def negative(self, meta, items):
        at = self.time(items[2]) if len(items) > 2 else None
        return Literal(items[1], True, span_of(meta), at)

    def arithmetic(self, meta, items):
        left, op, right = items
        return Arithmetic("%" if op == "\\" else str(op), left, right, span_of(meta))

    def minus(self, meta, items):
        """`-u`; the minus of an integer literal is a negative integer (`- 1` is `-1`)."""
        operand = items[1]
        if isinstance(operand, Constant) and operand.value.type is clingo.SymbolType.Number:
            value = -operand.value.number
            if INT_RANGE[0] <= value <= INT_RANGE[1]:
                return Constant(clingo.Number(value), span_of(meta))
        return Arithmetic("-", None, operand, span_of(meta))

    def aggregate(self, meta, items):
        """`f<u>`: f is count, sum, min or max (Molly's notation)."""
        name, opening, term, closing = items
        if str(name) not in AGGREGATES:
            raise BadLiteral(
                f"'{name}<{term}>' is no aggregate: an aggregate is {', '.join(f'{a}<X>' for a in AGGREGATES)}",
                span_of(name),
            )
        if opening != "<" or closing != ">":
            raise BadLiteral(f"an aggregate is written {name}<X>, with '<' and '>'", span_of(meta))
        return Aggregate(str(name), term, span_of(meta))

    def comparison(self, meta, items):
        left, op, right = items
        return Comparison({"≠": "!=", "==": "="}.get(str(op), str(op)), left, right, span_of(meta))

    def next(self, meta, items):
        return (RuleKind.INDUCTIVE, None)

    def async_(self, meta, items):
        var = items[-1]
        if var.type == "ASYNC":  # located: the head's location column is the addressee
            return (RuleKind.ASYNC, None)
        return (RuleKind.ASYNC, Variable(str(var), span_of(var)))

    def event(self, meta, items):
        return ("event", self.time(items[0]))

    def marked(self, meta, items):
        return Marked(items[1], span_of(meta))

    def include(self, meta, items):
        return ("include", unescape(items[1]), span_of(meta))

    def head(self, meta, items):
        atom = items[0]
        kind, addressee = items[1] if len(items) > 1 else (RuleKind.DEDUCTIVE, None)
        return atom, kind, addressee  # ("event", k) for a timestamped fact

    def body(self, meta, items):
        return tuple(items[1:])

    def rule(self, meta, items):
        (atom, kind, addressee), *rest = items
        body = rest[0] if len(rest) == 2 else ()
        if kind == "event":
            return Timestamped(Rule(atom, RuleKind.DEDUCTIVE, body, span=span_of(meta)), addressee)
        return Rule(atom, kind, body, addressee, span=span_of(meta))

    def name(self, meta, items):
        return items[0]

    def output(self, meta, items):
        return tuple(Output(str(t), span_of(t)) for t in items[1:-1])

    def persist(self, meta, items):
        names = [t for t in items[1:-2]]
        arity_tok = items[-2]
        return ("persist", names, arity_tok, span_of(meta))


def molly_step(token: Token) -> int:
    """The step of Molly's timestamp `@k`: Molly counts time from 1, so its time k is step k-1."""
    if bounded_int(token[1:], 0, 0) == 0:
        raise BadLiteral(
            f"'{token}' is no time in Molly's dialect: Molly counts time from 1 (its @1 is the first step, "
            "dedalus2asp's step 0); write @1, or read the program as located (--dialect located), where steps "
            "count from 0",
            span_of(token),
        )
    bigger = Token("EVENT", "@" + str(int(token[1:]) - 1) if len(token) <= 12 else token, token.start_pos, token.line,
                   token.column, token.end_line, token.end_column, token.end_pos)
    return step(bigger)


def persist_rule(name: Token, arity: int, delete: Token | None, span: Span) -> Rule:
    """`persist[p, k]` is `p(A..)@next :- p(A..).`; with `del_p`: `..., not del_p(A..).` (tr2009 §3.3)."""
    letters = string.ascii_uppercase
    names = [letters[i] if arity <= 26 else f"A{i + 1}" for i in range(arity)]
    args = tuple(Variable(n, span) for n in names)
    atom = Atom(str(name), args, span)
    body: tuple = (Literal(atom, False, span),)
    if delete is not None:
        body += (Literal(Atom(str(delete), args, span), True, span),)
    origin = f"persist[{name}, {delete + ', ' if delete else ''}{arity}]"
    return Rule(atom, RuleKind.INDUCTIVE, body, None, origin=origin, span=span)


def _statements(text: str, filename: str, grammar: str, diagnostics: list[Diagnostic]) -> tuple[list, list[Output]]:
    """The statements of a program in order (rules, with `persist` expanded; for the located grammar also
    `Timestamped` facts and ("include", file, span)), and its outputs; syntax errors go to `diagnostics`.
    After `MAX_ERRORS` syntax errors the rest of the text is skipped, with a note."""
    bad: list[int] = []
    tokens = binary_minus(lex(grammar, text, filename, diagnostics, bad))
    lark = lark_parser(grammar, "statement")
    to_ast = _ToAst(molly=grammar == "molly.lark")
    items: list = []
    outputs: list[Output] = []
    errors = 0

    def error(message: str, span: Span, code: str = "syntax") -> None:
        nonlocal errors
        errors += 1
        diagnostics.append(Diagnostic(code, message, span, filename, text))

    too_long = lambda tok: error(statement_too_long("statement"), span_of(tok))  # noqa: E731
    for chunk, lex_error in chunks(tokens, {"DOT"}, bad, len(text), too_long):
        if errors >= MAX_ERRORS:
            diagnostics.append(too_many_errors(filename, text, chunk[0].start_pos))
            break
        if lex_error:
            continue
        tree = parse_tokens(lark, chunk, error, text)
        if tree is None:
            continue
        result = build(to_ast, tree, error)
        if result is None:
            continue
        if isinstance(result, (Rule, Timestamped)):
            misplaced = list(_body_aggregates(result.rule if isinstance(result, Timestamped) else result))
            for aggregate in misplaced:
                error(
                    f"the aggregate '{aggregate}' is in a rule body: aggregates are not supported in rule bodies, "
                    "because an aggregate is a value of the fact the rule derives, computed over the body's "
                    "valuations (write it in the head, e.g. tally(C, count<M>) :- vote(C, M), and read tally "
                    "in the body)",
                    aggregate.span,
                )
            if misplaced:
                continue
        if isinstance(result, (Rule, Timestamped)) or result[0] == "include":
            items.append(result)
        elif isinstance(result, tuple) and result and result[0] == "persist":
            rule = _persist(*result[1:], error)
            if rule is not None:
                items.append(rule)
        else:
            outputs.extend(result)
    return items, outputs


def _body_aggregates(rule: Rule):
    """The aggregates written in the body of `rule` (which may have them in its head only)."""
    for item in rule.body:
        if isinstance(item, Literal):
            yield from item.atom.aggregates


def _persist(names: list[Token], arity_tok: Token, span: Span, error) -> Rule | None:
    """The rule of `persist[p, (del_p,) k]`, or None after reporting a k outside 0..`MAX_ARITY`."""
    arity = bounded_int(arity_tok, 0, MAX_ARITY)
    if arity is not None:
        return persist_rule(names[0], arity, names[1] if len(names) > 1 else None, span)
    shown = str(int(arity_tok)) if len(arity_tok) <= 40 else shown_literal(arity_tok)
    if arity_tok.startswith("-"):  # -0 is 0, and read above
        error(
            f"the arity in persist[{', '.join(names)}, {shown}] is negative: "
            f"it is the number of arguments of '{names[0]}', 0 or more",
            span_of(arity_tok),
        )
    else:
        error(
            f"the arity {shown} in persist[{', '.join(names)}, ...] is too large: it is the number of arguments "
            f"of '{names[0]}', and a relation has at most {MAX_ARITY}",
            span_of(arity_tok),
        )
    return None


def _unique(outputs: list[Output]) -> tuple[Output, ...]:
    """The output relations, each once, where first named (`.output p. .output p.` names one relation)."""
    return tuple({o.predicate: o for o in reversed(outputs)}[p] for p in dict.fromkeys(o.predicate for o in outputs))


def _numbered(items: list) -> list:
    """The rules (and timestamped facts) numbered 1, 2, ... in order: messages name a rule by its number."""
    out, number = [], 0
    for item in items:
        number += 1
        if isinstance(item, Timestamped):
            out.append(replace(item, rule=replace(item.rule, number=number)))
        else:
            out.append(replace(item, number=number))
    return out


def parse_program(text: str, filename: str = "<program>") -> Program:
    """Parse a location-transparent Dedalus program (tplp2016 §4.1); raise `DiagnosticError` with every
    syntax error found.

    Each statement (the tokens up to a top-level '.') is parsed on its own, so
    a syntax error is reported once per statement and parsing goes on with
    the next one.
    """
    diagnostics: list[Diagnostic] = []
    rules, outputs = _statements(text, filename, "dedalus.lark", diagnostics)
    raise_if_errors(diagnostics)
    return Program(tuple(_numbered(rules)), _unique(outputs), filename, text)


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
    items, outputs = _statements(text, filename, grammar, diagnostics)
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
            found, found_outputs = _statements(one_text, one_name, "dedalus.lark", diagnostics)
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
            return Program(tuple(_numbered(items)), _unique(outputs), filename, text)
        return locate(_numbered(items), _unique(outputs), dialect, filename, text)
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
    numbered = _numbered(items)
    found: list[Diagnostic] = []
    if dialect == "transparent":
        program = Program(tuple(numbered), _unique(outputs), filename, text)
    else:
        try:
            program = locate(numbered, _unique(outputs), dialect, filename, text).program
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
