"""Parsing: Dedalus source text to `ast.Program`, inputs to `ast.Instance`.

Programs follow `dedalus.lark` (SPEC §1.1), inputs `facts.lark` or the JSON
form (SPEC §1.2). The token stream of a program is split at top-level periods
and each statement is parsed on its own, so that one run reports every syntax
error of a file (an input is split at periods and braces, likewise); the
"expected ..." of a message lists exactly the tokens the parser would have
accepted there. The macro `persist[p, k]` is expanded here into the
inductive rule `p(A1..Ak)@next :- p(A1..Ak).` (tr2009 §3.3), and
`persist[p, del_p, k]` into `p(..)@next :- p(..), not del_p(..).`.
"""

from __future__ import annotations

import json
import re
import string
from dataclasses import fields, is_dataclass, replace
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Iterator, Mapping

import clingo
from lark import Lark, Token, Transformer, Tree, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedToken, VisitError

from .ast import (
    NOWHERE,
    Atom,
    Comparison,
    Constant,
    Fact,
    Instance,
    Literal,
    Output,
    Program,
    Rule,
    RuleKind,
    Span,
    Variable,
)
from .diagnostics import Diagnostic, DiagnosticError, Severity, raise_if_errors
from .located import DIALECTS, LocatedProgram, Marked, Timestamped, locate, split_fact

# What the user should read instead of a terminal's name in "expected ..." lists.
TERMINAL_NAMES = {
    "DOT": "'.'",
    "_END": "'.'",
    "IF": "':-'",
    "COMMA": "','",
    "LPAR": "'('",
    "RPAR": "')'",
    "LSQB": "'['",
    "RSQB": "']'",
    "LBRACE": "'{'",
    "RBRACE": "'}'",
    "NOT": "'not'",
    "BANG": "'!'",
    "NEG": "'¬'",
    "COMPARE": "a comparison (!=, <, <=, =)",
    "NEXT": "'@next'",
    "ASYNC": "'@async'",
    "BULLET": "'•'",
    "PIPE": "'|'",
    "VARIABLE": "a variable",
    "LNAME": "a name",
    "INT": "an integer",
    "STRING": "a string",
    "OUTPUT_KW": "'.output'",
    "PERSIST": "'persist'",
    "HASH": "'#'",
    "NOTIN": "'notin'",
    "INCLUDE": "'include'",
    "EVENT": "a timestamp '@k'",
    "$END": "end of input",
}
# Optional suffixes that "expected ..." lists leave out: `@k` after an input fact is rarely what is missing.
UNLISTED = {"EVENT"}


def _grammar(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


@lru_cache(maxsize=None)
def _lark(grammar: str, start: str) -> Lark:
    """The parser of `grammar`; `located.lark` is a set of changes to `dedalus.lark`, appended to it."""
    text = _grammar("dedalus.lark") + _grammar(grammar) if grammar == "located.lark" else _grammar(grammar)
    return Lark(text, parser="lalr", start=start, propagate_positions=True, maybe_placeholders=False)


def _span(meta_or_token) -> Span:
    m = meta_or_token
    if isinstance(m, Token):
        return Span(m.line, m.column, m.end_line, m.end_column)
    if getattr(m, "empty", False):
        return Span(0, 0, 0, 0)
    return Span(m.line, m.column, m.end_line, m.end_column)


class BadLiteral(ValueError):
    """A literal clingo cannot hold (a string with an unknown escape, an integer out of range); `span` is where."""

    def __init__(self, message: str, span: Span):
        super().__init__(message)
        self.span = span


def unescape(token: Token) -> str:
    """The value of a string literal: `\\"` is a quote, `\\\\` a backslash, `\\n` a newline."""
    out, body, i = [], token[1:-1], 0
    while i < len(body):
        if body[i] == "\\":
            nxt = body[i + 1]
            if nxt not in '"\\n':
                span = _span(token) if isinstance(token, Token) else NOWHERE
                raise BadLiteral(
                    f"unknown escape '\\{nxt}' in the string {token}: write \\\" for a quote, "
                    "\\\\ for a backslash, \\n for a newline",
                    span,
                )
            out.append({"n": "\n"}.get(nxt, nxt))
            i += 2
        else:
            out.append(body[i])
            i += 1
    return "".join(out)


INT_RANGE = (-(2**31), 2**31 - 1)


def number(token: Token) -> clingo.Symbol:
    """An integer literal; clingo's integers have 32 bits."""
    value = int(token)
    if not INT_RANGE[0] <= value <= INT_RANGE[1]:
        raise BadLiteral(
            f"integer {token} is out of range: clingo's integers lie in {INT_RANGE[0]}..{INT_RANGE[1]} "
            f'(write it as a string, "{token}", if it is a name)',
            _span(token),
        )
    return clingo.Number(value)


class _Terms(Transformer):
    """Terms shared by programs and inputs."""

    def variable(self, items):
        (tok,) = items
        return Variable(str(tok), _span(tok))

    def identifier(self, items):
        (tok,) = items
        return Constant(clingo.Function(str(tok)), _span(tok))

    def integer(self, items):
        (tok,) = items
        return Constant(number(tok), _span(tok))

    def string(self, items):
        (tok,) = items
        return Constant(clingo.String(unescape(tok)), _span(tok))


@v_args(meta=True)
class _ToAst(_Terms):
    """Lark tree of one statement to AST nodes."""

    # Terms come through _Terms, which is not meta-aware; re-wrap them.
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
        return Atom(str(name), tuple(args), _span(meta))

    def nullary(self, meta, items):
        return Atom(str(items[0]), (), _span(meta))

    def positive(self, meta, items):
        return Literal(items[0], False, _span(meta))

    def negative(self, meta, items):
        return Literal(items[1], True, _span(meta))

    def comparison(self, meta, items):
        left, op, right = items
        return Comparison("!=" if op == "≠" else str(op), left, right, _span(meta))

    def next(self, meta, items):
        return (RuleKind.INDUCTIVE, None)

    def async_(self, meta, items):
        var = items[-1]
        if var.type == "ASYNC":  # located: the head's location column is the addressee
            return (RuleKind.ASYNC, None)
        return (RuleKind.ASYNC, Variable(str(var), _span(var)))

    def event(self, meta, items):
        return ("event", int(items[0][1:]))

    def marked(self, meta, items):
        return Marked(items[1], _span(meta))

    def include(self, meta, items):
        return ("include", unescape(items[1]), _span(meta))

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
            return Timestamped(Rule(atom, RuleKind.DEDUCTIVE, body, span=_span(meta)), addressee)
        return Rule(atom, kind, body, addressee, span=_span(meta))

    def name(self, meta, items):
        return items[0]

    def output(self, meta, items):
        return tuple(Output(str(t), _span(t)) for t in items[1:-1])

    def persist(self, meta, items):
        names = [t for t in items[1:-2]]
        arity_tok = items[-2]
        return ("persist", names, arity_tok, _span(meta))


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


def _one_of(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def _expected(terminals) -> str:
    names = sorted({TERMINAL_NAMES.get(t, t) for t in terminals or () if t not in UNLISTED})
    return f"; expected {_one_of(names)}" if names else ""


def _describe(tok: Token) -> str:
    return "end of input" if tok.type == "$END" else f"'{tok}'"


def _accepted(lark: Lark, tokens: list[Token]) -> set[str]:
    """The terminals that may follow `tokens` (exactly: LALR's merged lookaheads over-approximate)."""
    interactive = lark.parse_interactive(None)
    for tok in tokens:
        interactive.feed_token(tok)
    return interactive.accepts()


def _parse_tokens(lark: Lark, tokens: list[Token], error) -> Tree | None:
    """Parse one statement's tokens (a missing final token is reported as end of input)."""
    interactive = lark.parse_interactive(None)
    for i, tok in enumerate(tokens):
        try:
            interactive.feed_token(tok)
        except UnexpectedToken:
            message = f"unexpected {_describe(tok)}"
            expected = _accepted(lark, tokens[:i])
            message += _expected(expected)
            types = {t.type for t in tokens[:i]}
            if i and "DOT" in expected and tok.line > tokens[i - 1].end_line:
                message += f" (is the '.' at the end of line {tokens[i - 1].end_line} missing?)"
            elif expected == {"VARIABLE"} and types & {"ASYNC", "PIPE"}:
                message += " (the addressee of @async is a variable bound in the body, e.g. @async(Y))"
            elif tok.type == "NOT" and "NOT" not in expected:
                message += " ('not' is a keyword: it cannot name a relation or a constant)"
            elif "PERSIST" in types and tok.type == "RSQB":
                message += " (write persist[p, k] or persist[p, del_p, k], with k the arity of p)"
            error(message, _span(tok))
            return None
    try:
        return interactive.feed_eof(tokens[-1])
    except UnexpectedToken:
        last = tokens[-1]
        error(
            f"unexpected end of input{_expected(_accepted(lark, tokens))}",
            Span(last.end_line, last.end_column, last.end_line, last.end_column + 1),
        )
        return None


# Hints for characters that are not Dedalus but look like something that is.
CHARACTER_HINTS = {
    ";": "separate body literals with ','",
    "&": "separate body literals with ','",
    "'": "strings are written in double quotes",
    "~": "negation is written 'not', '!' or '¬'",
    "\\": "a backslash may only appear inside a string",
}
FACT_CHARACTER_HINTS = {
    ";": "separate values with ','",
    "'": "strings are written in double quotes",
    "\\": "a backslash may only appear inside a string",
}


def _lex(grammar: str, text: str, filename: str, diagnostics: list[Diagnostic]) -> tuple[list[Token], list[int]]:
    """Tokens of `text`, and the offsets of the lexical errors; each error is reported and skipped.

    An unterminated string skips the rest of its line and ends the statement
    there (an empty `DOT` token, so the next line is parsed anew); an
    unterminated `/*` comment skips the rest of the text.
    """
    lark = _lark(grammar, "start" if grammar == "facts.lark" else "statement")
    tokens, bad, pos = [], [], 0
    while True:
        try:
            for tok in lark.lex(text[pos:]):
                tokens.append(_shift(tok, text, pos))
            return tokens, bad
        except UnexpectedCharacters as exc:
            offset = pos + exc.pos_in_stream
            bad.append(offset)
            line = text.count("\n", 0, offset) + 1
            col = offset - (text.rfind("\n", 0, offset) + 1) + 1
            char = text[offset]
            end = text.find("\n", offset)
            end = len(text) if end < 0 else end
            if char == '"':
                message = 'unterminated string: a string ends with \'"\' on the line where it starts'
                span, pos = Span(line, col, line, col + end - offset), end
                end_type = "_END" if grammar == "facts.lark" else "DOT"
                tokens.append(Token(end_type, "", end, line, col + end - offset, line, col + end - offset, end))
            elif text.startswith("/*", offset):
                message = "unterminated comment: '/*' is never closed by '*/'"
                span, pos = Span(line, col, line, col + 2), len(text)
            else:
                hint = (FACT_CHARACTER_HINTS if grammar == "facts.lark" else CHARACTER_HINTS).get(char)
                message = f"unexpected character {char!r}" + (f" ({hint})" if hint else "")
                span, pos = Span(line, col, line, col + 1), offset + 1
            diagnostics.append(Diagnostic("syntax", message, span, filename, text))


def _shift(tok: Token, text: str, pos: int) -> Token:
    """Move a token lexed from `text[pos:]` to its place in `text`."""
    if pos == 0:
        return tok
    start = pos + tok.start_pos
    line = text.count("\n", 0, start) + 1
    col = start - (text.rfind("\n", 0, start) + 1) + 1
    end = start + len(tok)
    end_line = text.count("\n", 0, end) + 1
    end_col = end - (text.rfind("\n", 0, end) + 1) + 1
    return Token(tok.type, tok.value, start, line, col, end_line, end_col, end)


def _chunks(tokens: list[Token], ends: set[str], bad: list[int], length: int):
    """Split `tokens` after every token whose type is in `ends`.

    Yields (tokens of the chunk, whether a lexical error lies inside the
    chunk): such a chunk is not parsed, as its syntax error would only echo
    the lexical one.
    """
    chunk, start = [], 0
    for tok in tokens:
        chunk.append(tok)
        if tok.type in ends:
            yield chunk, any(start <= b < tok.end_pos for b in bad)
            chunk, start = [], tok.end_pos
    if chunk:
        yield chunk, any(start <= b < length for b in bad)


def _transform(transformer: Transformer, tree: Tree, error):
    try:
        return transformer.transform(tree)
    except VisitError as exc:
        cause = exc.orig_exc
        if isinstance(cause, BadLiteral):
            error(str(cause), cause.span)
            return None
        raise


def _statements(text: str, filename: str, grammar: str, diagnostics: list[Diagnostic]) -> tuple[list, list[Output]]:
    """The statements of a program in order (rules, with `persist` expanded; for the located grammar also
    `Timestamped` facts and ("include", file, span)), and its outputs; syntax errors go to `diagnostics`."""
    tokens, bad = _lex(grammar, text, filename, diagnostics)
    lark = _lark(grammar, "statement")
    items: list = []
    outputs: list[Output] = []

    def error(message: str, span: Span, code: str = "syntax") -> None:
        diagnostics.append(Diagnostic(code, message, span, filename, text))

    for chunk, lex_error in _chunks(tokens, {"DOT"}, bad, len(text)):
        if lex_error:
            continue
        tree = _parse_tokens(lark, chunk, error)
        if tree is None:
            continue
        result = _transform(_ToAst(), tree, error)
        if result is None:
            continue
        if isinstance(result, (Rule, Timestamped)) or result[0] == "include":
            items.append(result)
        elif isinstance(result, tuple) and result and result[0] == "persist":
            _, names, arity_tok, span = result
            arity = int(arity_tok)
            if arity < 0:
                error(
                    f"the arity in persist[{', '.join(names)}, {arity}] is negative: "
                    f"it is the number of arguments of '{names[0]}', 0 or more",
                    _span(arity_tok),
                )
                continue
            items.append(persist_rule(names[0], arity, names[1] if len(names) > 1 else None, span))
        else:
            outputs.extend(result)
    return items, outputs


def _unique(outputs: list[Output]) -> tuple[Output, ...]:
    """The output relations, each once, where first named (`.output p. .output p.` names one relation)."""
    return tuple({o.predicate: o for o in reversed(outputs)}[p] for p in dict.fromkeys(o.predicate for o in outputs))


def _numbered(items: list) -> list:
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


def _detect(text: str) -> tuple[str, Token | None]:
    """The dialect of `text` (see `detect_dialect`) and the token that decided it (None for `transparent`)."""
    tokens, _ = _lex("located.lark", text, "<detect>", [])
    following = [t.type for t in tokens[1:]] + ["$END"]
    for tok in tokens:
        if tok.type == "HASH":
            return "located", tok
    for tok, nxt in zip(tokens, following):
        if (
            (tok.type == "NOTIN" and nxt in ("LNAME", "VARIABLE"))  # `notin r(X)`; `notin(X)` is a relation
            or tok.type in ("INCLUDE", "EVENT")
            or (tok.type == "ASYNC" and nxt != "LPAR")
        ):
            return "molly", tok
    return "transparent", None


def _read_as(dialect: str, marker: Token, error: DiagnosticError, filename: str, text: str) -> DiagnosticError:
    """`error` with a note on its first error: the program was read in the detected `dialect` because of `marker`."""
    what = {
        "NOTIN": "'notin' before an atom (Molly's negation)",
        "INCLUDE": "'include \"file\"'",
        "EVENT": f"the timestamp '{marker}' of a fact",
        "ASYNC": "'@async' without an addressee",
    }.get(marker.type, f"'{marker}'")
    note = Diagnostic(
        "dialect",
        f"the program was read as {dialect.capitalize()} because of {what} here; "
        "to read it as location-transparent Dedalus, pass --dialect transparent",
        _span(marker),
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
    text: str, filename: str, diagnostics: list[Diagnostic], including: tuple[Path, ...]
) -> tuple[list, list[Output]]:
    """The statements of a located program with its `include "file";` statements replaced by the files' own."""
    items, outputs = _statements(text, filename, "located.lark", diagnostics)
    out: list = []
    for item in items:
        if not (isinstance(item, tuple) and item[0] == "include"):
            out.append(item)
            continue
        _, name, span = item
        path = (Path(filename).parent / name).resolve()
        if path in including:
            diagnostics.append(
                Diagnostic("include", f"'{name}' includes itself (through {' -> '.join(p.name for p in including)})",
                           span, filename, text)
            )
            continue
        try:
            included_text = read_text(path, f"included file '{name}'")
        except DiagnosticError as exc:
            diagnostics.extend(replace(d, span=span, filename=filename, text=text) for d in exc.diagnostics)
            continue
        shown = str(Path(filename).parent / name)  # the file as the user would name it
        inner, inner_outputs = _located_statements(included_text, shown, diagnostics, including + (path,))
        origin, source = f"from {name}", (shown, included_text)
        out += [
            replace(_in_file(s, source), rule=replace(_in_file(s.rule, source), origin=origin))
            if isinstance(s, Timestamped)
            else replace(_in_file(s, source), origin=s.origin or origin)
            for s in inner
        ]
        outputs += [_in_file(o, source) for o in inner_outputs]
    return out, outputs


def parse_source(text: str, filename: str = "<program>", dialect: str = "auto") -> Program | LocatedProgram:
    """Parse a program in `dialect` (one of `located.DIALECTS`; `auto` detects it, see `detect_dialect`).

    A location-transparent program gives a `Program`; a located (tr2009) or
    Molly program a `LocatedProgram`, whose `.program` is its
    location-transparent IR (see `located`). When `auto` reads a program as
    Molly and it has errors, the first one carries a note that names the token
    that decided it and how to force the location-transparent reading.
    """
    if dialect not in DIALECTS:
        raise ValueError(f"unknown dialect {dialect!r}: one of {', '.join(DIALECTS)}")
    marker = None
    if dialect == "auto":
        dialect, marker = _detect(text)
    if dialect == "transparent":
        return parse_program(text, filename)
    try:
        diagnostics: list[Diagnostic] = []
        items, outputs = _located_statements(text, filename, diagnostics, (Path(filename).resolve(),))
        raise_if_errors(diagnostics)
        return locate(_numbered(items), _unique(outputs), dialect, filename, text)
    except DiagnosticError as error:
        if dialect != "molly" or marker is None:  # `#` cannot be anything but located
            raise
        raise _read_as(dialect, marker, error, filename, text) from None


# ---------------------------------------------------------------------------
# Inputs


# clingo's keyword, which a `.ded` program cannot use as a name either (its lexer has the token NOT).
KEYWORD = "not"


def _keyword_message(what: str) -> str:
    return f"'{KEYWORD}' is a keyword: it cannot {what} (write \"{KEYWORD}\", in double quotes, for the string)"


class _ToFacts(_Terms):
    def __init__(self, filename: str, text: str):
        super().__init__()
        self.filename, self.text = filename, text
        self.diagnostics: list[Diagnostic] = []

    def identifier(self, items):
        (tok,) = items
        if str(tok) == KEYWORD:  # the facts grammar has no NOT token: `not` lexes as a name
            self.diagnostics.append(
                Diagnostic("syntax", _keyword_message("be a constant"), _span(tok), self.filename, self.text)
            )
        return super().identifier(items)

    @v_args(meta=True)
    def fact(self, meta, items):
        name, *args = items
        step = None
        if args and isinstance(args[-1], Token) and args[-1].type == "EVENT":
            step = int(args.pop()[1:])
        for a in args:
            if isinstance(a, Variable):
                self.diagnostics.append(
                    Diagnostic(
                        "variable-in-fact",
                        f"input fact '{name}({', '.join(map(str, args))})' has the variable '{a.name}'; "
                        "input facts are ground "
                        f"(write a constant: a lower-case name such as '{a.name.lower()}', "
                        "an integer or a string)",
                        a.span,
                        self.filename,
                        self.text,
                    )
                )
        return Fact(str(name), tuple(a.value for a in args if isinstance(a, Constant)), _span(meta), step)


def parse_facts(text: str, filename: str = "<input>", columns: Mapping[str, int] | None = None) -> Instance:
    """Parse the `.facts` form of an input (SPEC §1.2): top-level facts and `node { facts }` blocks.

    `fact@k.` is an event at step k of its node (tr2009 Example 3). With
    `columns` (relation → location column, default the first) the input is
    located (tr2009 §6.2, see `located`): every fact goes to the node named in
    its location column, which is dropped; a fact in a block must be at the
    block's node; the network is the set of nodes named, with the empty
    blocks `c { }`. Like programs, the text is parsed one fact at a time, so
    every error is reported; the braces of blocks are matched here.
    """
    diagnostics: list[Diagnostic] = []
    tokens, bad = _lex("facts.lark", text, filename, diagnostics)
    tokens = _semicolons_in_values(tokens, bad, filename, text, diagnostics)
    lark = _lark("facts.lark", "fact")
    builder = _ToFacts(filename, text)

    def error(message: str, span: Span) -> None:
        diagnostics.append(Diagnostic("syntax", message, span, filename, text))

    everywhere: list[Fact] = []
    facts: dict[clingo.Symbol, list[Fact]] = {}
    # The open block: its node (None after a malformed opening) and its '{'.
    block: tuple[Constant | None, Token] | None = None

    def open_block(items: list[Token], brace: Token) -> None:
        nonlocal block
        if block is not None and block[0] is not None:
            error(
                f"blocks do not nest: the block of node '{block[0]}' opened at line {block[1].line} "
                "is not closed (add '}' before this one)",
                _span(items[0] if items else brace),
            )
        node = None
        if len(items) == 1 and items[0].type in ("LNAME", "INT", "STRING"):
            try:
                node = _node(items[0])
            except BadLiteral as exc:
                error(str(exc), exc.span)
        if node is not None:
            facts.setdefault(node.value, [])
        block = (node, brace)

    for chunk, lex_error in _chunks(tokens, {"_END", "LBRACE", "RBRACE"}, bad, len(text)):
        *items, last = chunk
        if last.type == "LBRACE":
            if not lex_error and not items:
                error("unexpected '{'; expected a node name before it, e.g. 'a { id(a). }'", _span(last))
            elif not lex_error and not (len(items) == 1 and items[0].type in ("LNAME", "INT", "STRING")):
                _parse_tokens(lark, chunk, error)  # reports what is wrong before the '{'
            open_block(items, last)
        elif last.type == "RBRACE":
            if not lex_error and items:
                _parse_tokens(lark, chunk, error)  # a fact without its '.'
            elif not lex_error and block is None:
                error("unexpected '}': no block is open", _span(last))
            block = None
        elif lex_error:
            continue
        elif last.type == "_END":
            tree = _parse_tokens(lark, chunk, error)
            fact = None if tree is None else _transform(builder, tree, error)
            if fact is None:
                continue
            if columns is not None:
                placed = _place(fact, columns, block, error)
                if placed is not None:
                    facts.setdefault(placed[0], []).append(placed[1])
            elif block is None:
                everywhere.append(fact)
            elif block[0] is not None:
                facts[block[0].value].append(fact)
        else:  # the text ends inside a fact
            _parse_tokens(lark, chunk, error)
    if block is not None:
        node, brace = block
        error(f"the block of node '{node}' is not closed: add '}}' at its end" if node is not None
              else "this block is not closed: add '}' at its end", _span(brace))
    diagnostics += builder.diagnostics
    if not facts and not diagnostics:
        diagnostics.append(
            Diagnostic(
                "empty-network",
                "the input names no node: the network is the set of nodes named in the location column of a fact "
                "or by an empty block, e.g. 'c { }'"
                if columns is not None
                else "the input names no node: the network is the set of nodes that have a block, "
                "e.g. 'a { }' (top-level facts go to every node, but there must be one)",
                filename=filename,
                text=text,
            )
        )
    raise_if_errors(diagnostics)
    return _instance({n: everywhere + fs for n, fs in facts.items()}, filename, text)


def _semicolons_in_values(tokens: list[Token], bad: list[int], filename: str, text: str, diagnostics: list[Diagnostic]) -> list[Token]:
    """A ';' ends a fact (Molly style) only outside its parentheses: inside, it is a lexical error (a
    ',' was meant), reported as such, so that the rest of the fact does not read as a new one."""
    kept, depth = [], 0
    for tok in tokens:
        if tok.type == "_END" and tok.value == ";" and depth > 0:
            bad.append(tok.start_pos)
            diagnostics.append(
                Diagnostic("syntax", f"unexpected character ';' ({FACT_CHARACTER_HINTS[';']})", _span(tok), filename, text)
            )
            continue
        depth = 0 if tok.type in ("_END", "LBRACE", "RBRACE") else depth + (tok.type == "LPAR") - (tok.type == "RPAR")
        kept.append(tok)
    return kept


def _node(tok: Token) -> Constant:
    if tok.type == "LNAME" and str(tok) == KEYWORD:
        raise BadLiteral(_keyword_message("name a node"), _span(tok))
    if tok.type == "STRING":
        return Constant(clingo.String(unescape(tok)), _span(tok))
    return Constant(number(tok) if tok.type == "INT" else clingo.Function(str(tok)), _span(tok))


def _place(fact: Fact, columns: Mapping[str, int], block, error) -> tuple[clingo.Symbol, Fact] | None:
    """A located input fact as (its node, the fact without its location column), or an error."""
    column = columns.get(fact.predicate, 0)
    placed = split_fact(fact, column)
    if placed is None:
        example = ", ".join(["a", *map(str, fact.args)])
        error(
            f"'{fact}' has no location column: the program is located, so the "
            + ("first argument" if column == 0 else f"argument {column + 1}")
            + f" of every input fact names the node that holds it (e.g. {fact.predicate}({example}))",
            fact.span,
        )
        return None
    if block is not None and block[0] is not None and placed[0] != block[0].value:
        error(
            f"'{fact}' is located at '{placed[0]}' but written in the block of node '{block[0]}': in a located "
            "input a fact goes to the node in its location column (write it at the top level)",
            fact.span,
        )
        return None
    return placed


_IDENTIFIER = re.compile(r"[a-z][A-Za-z0-9_]*\Z")


def json_value(value) -> clingo.Symbol:
    """A JSON value as a constant: ints are numbers, lower-case identifiers are names, other strings strings.

    "not" is a string: an identifier `not` cannot exist in Dedalus (nor in clingo, whose keyword it is).
    """
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ValueError(f"a value must be a string or an integer, not {json.dumps(value)}")
    if isinstance(value, int):
        if not INT_RANGE[0] <= value <= INT_RANGE[1]:
            raise ValueError(f"integer {value} is out of range: clingo's integers lie in {INT_RANGE[0]}..{INT_RANGE[1]}")
        return clingo.Number(value)
    return clingo.Function(value) if _IDENTIFIER.match(value) and value != KEYWORD else clingo.String(value)


def parse_json(text: str, filename: str = "<input>", columns: Mapping[str, int] | None = None) -> Instance:
    """Parse the JSON form `{"nodes": {"a": {"r": [["v1", "v2"]]}}}` of an input.

    A value is a constant: an integer is a number, a lower-case identifier
    other than "not" a name, any other string a string. A relation key `"r@k"` holds events at
    step k (tr2009 Example 3). With `columns` the input is located (see
    `parse_facts`) and is written `{"facts": {"r": [["a", "v1"]]}}`: each
    tuple goes to the node in its location column; `"nodes": {"c": {}}` may
    name nodes with no facts. Every problem of the structure is reported
    (JSON has no positions past the decoder, so they name the node and the
    relation instead).
    """
    diagnostics: list[Diagnostic] = []

    def error(message: str, line: int = 0, col: int = 0) -> None:
        span = Span(line, col, line, col + 1) if line else NOWHERE
        diagnostics.append(Diagnostic("json", message, span, filename, text))

    shape = '{"nodes": {"<node>": {"<relation>": [[<value>, ...], ...]}}}'
    if columns is not None:
        shape = '{"facts": {"<relation>": [[<node>, <value>, ...], ...]}, "nodes": {"<node without facts>": {}}}'
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        error(f"invalid JSON: {exc.msg}", exc.lineno, exc.colno)
        raise DiagnosticError(diagnostics) from None
    if not isinstance(data, dict):
        error(f"expected an object {shape}")
    elif columns is None and "facts" in data:
        error('"facts" holds the facts of a located input, but the program is location-transparent: '
              f"write {shape} (or write the program in a located dialect)")
    elif columns is None and not isinstance(data.get("nodes"), dict):
        error(f"expected an object {shape}")
    elif columns is None and not data["nodes"]:
        error(f'the input names no node: "nodes" is empty; write {shape}')
    elif columns is not None and not (isinstance(data.get("facts", {}), dict) and isinstance(data.get("nodes", {}), dict)):
        error(f"expected an object {shape}")
    elif columns is not None and not data.get("facts") and not data.get("nodes"):
        error(f"the input names no node: it has no fact and no node; write {shape}")
    raise_if_errors(diagnostics)
    facts: dict[clingo.Symbol, list[Fact]] = {}

    def tuples_of(where: str, relations) -> Iterator[tuple[str, str, int | None, tuple]]:
        """(where, relation, step, values) of every well-formed tuple of an object {relation[@k]: tuples}."""
        if not isinstance(relations, dict):
            error(f"{where}: expected an object mapping relation names to lists of tuples, not {_short(relations)}")
            return
        for key, tuples in relations.items():
            match = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)(?:@(\d+))?", key)
            if match is None:
                error(f"{where}: {key!r} is not a relation name (letters, digits and '_')")
                continue
            rel, step = match[1], None if match[2] is None else int(match[2])
            if not isinstance(tuples, list) or not all(isinstance(t, list) for t in tuples):
                error(
                    f"{where}, relation {key!r}: expected a list of tuples, each a list of values, "
                    f'e.g. [["v1", "v2"], ["v2", 3]], not {_short(tuples)}'
                )
                continue
            for t in tuples:
                try:
                    yield where, rel, step, tuple(json_value(v) for v in t)
                except ValueError as exc:
                    error(f"{where}, relation {key!r}: {exc}")

    for node, relations in data.get("nodes", {}).items():
        try:
            key = json_value(int(node) if re.fullmatch(r"-?\d+", node) else node)
        except ValueError as exc:
            error(f"node {node!r}: {exc}")
            continue
        local = facts.setdefault(key, [])
        for where, rel, step, values in tuples_of(f"node {node!r}", relations):
            if columns is None:
                local.append(Fact(rel, values, step=step))
                continue
            placed = split_fact(Fact(rel, values, step=step), columns.get(rel, 0))
            if placed is None or placed[0] != key:
                error(f"{where}, relation {rel!r}: {list(values)} is not located at {node!r}: in a located input "
                      'a fact goes to the node in its location column (write it under "facts")')
            else:
                local.append(placed[1])
    for where, rel, step, values in tuples_of('"facts"', data.get("facts", {}) if columns is not None else {}):
        placed = split_fact(Fact(rel, values, step=step), columns.get(rel, 0))
        if placed is None:
            error(f"{where}, relation {rel!r}: {list(values)} has no location column: its first value names the node")
        else:
            facts.setdefault(placed[0], []).append(placed[1])
    raise_if_errors(diagnostics)
    return _instance(facts, filename, text)


def _short(value) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _instance(facts: dict[clingo.Symbol, list[Fact]], filename: str, text: str) -> Instance:
    """Build an instance, checking that each relation has one arity."""
    seen: dict[str, Fact] = {}
    diagnostics, reported = [], set()
    for local in facts.values():
        for f in local:
            first = seen.setdefault(f.predicate, f)
            if len(first.args) != len(f.args) and (f.predicate, len(f.args), f.span) not in reported:
                # a top-level fact is in every node: report it once
                reported.add((f.predicate, len(f.args), f.span))
                diagnostics.append(
                    Diagnostic(
                        "arity",
                        f"input relation '{f.predicate}' has {_arguments(len(f.args))} in '{f}' but "
                        f"{_arguments(len(first.args))} in '{first}'; a relation has one arity",
                        f.span,
                        filename,
                        text,
                        notes=()
                        if first.span == NOWHERE
                        else (
                            Diagnostic(
                                "arity",
                                f"'{f.predicate}' has {_arguments(len(first.args))} here",
                                first.span, filename, text, Severity.NOTE,
                            ),
                        ),
                    )
                )
    raise_if_errors(diagnostics)
    unique = {n: tuple(dict.fromkeys(fs)) for n, fs in facts.items()}
    return Instance(unique, filename, text)


def _arguments(k: int) -> str:
    return f"{k} argument" + ("" if k == 1 else "s")


def read_text(path: str | Path, what: str) -> str:
    """The text of a UTF-8 file (a byte-order mark is dropped); a problem is a diagnostic."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise DiagnosticError([Diagnostic("io", f"cannot read {what}: {reason}", filename=str(path))]) from None
    try:
        return data.decode("utf-8-sig").replace("\r\n", "\n").replace("\r", "\n")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        start = data.rfind(b"\n", 0, exc.start) + 1
        col = len(data[start : exc.start].decode("utf-8", errors="replace")) + 1
        text = data.decode("utf-8", errors="replace").replace("\r\n", "\n")
        raise DiagnosticError(
            [
                Diagnostic(
                    "io",
                    f"cannot read {what}: byte 0x{data[exc.start]:02x} is not UTF-8 (save the file as UTF-8)",
                    Span(line, col, line, col + 1),
                    str(path),
                    text,
                )
            ]
        ) from None


def load_source(path: str | Path, dialect: str = "auto") -> Program | LocatedProgram:
    """Read a program in `dialect` (see `parse_source`)."""
    return parse_source(read_text(path, "program"), str(path), dialect)


def dialect_of(path: str | Path, dialect: str = "auto") -> str:
    """The dialect `load_source` reads `path` in (`transparent` if the file cannot be read)."""
    if dialect != "auto":
        return dialect
    try:
        return detect_dialect(read_text(path, "program"))
    except DiagnosticError:
        return "transparent"


def load_program(path: str | Path, dialect: str = "auto") -> Program:
    """Read a program in `dialect`; a located or Molly program gives its location-transparent IR."""
    source = load_source(path, dialect)
    return source.program if isinstance(source, LocatedProgram) else source


def load_instance(path: str | Path, columns: Mapping[str, int] | None = None) -> Instance:
    """Read an input: JSON if the file ends in .json or starts with '{', the .facts form otherwise.

    With `columns` (those of a located program) the input is located.
    """
    text = read_text(path, "input")
    if str(path).endswith(".json") or text.lstrip().startswith("{"):
        return parse_json(text, str(path), columns)
    return parse_facts(text, str(path), columns)
