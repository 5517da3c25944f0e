"""Parsing: Dedalus source text to `ast.Program`, inputs to `ast.Instance`.

Programs follow `dedalus.lark` (SPEC §1.1), inputs `facts.lark` or the JSON
form (SPEC §1.2). The token stream of a program is split at top-level periods
and each statement is parsed on its own, so that one run reports every syntax
error of a file. The macro `persist[p, k]` is expanded here into the
inductive rule `p(A1..Ak)@next :- p(A1..Ak).` (tr2009 §3.3), and
`persist[p, del_p, k]` into `p(..)@next :- p(..), not del_p(..).`.
"""

from __future__ import annotations

import json
import re
import string
from dataclasses import replace
from functools import lru_cache
from importlib import resources
from pathlib import Path

import clingo
from lark import Lark, Token, Transformer, Tree, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from .ast import (
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
from .diagnostics import Diagnostic, DiagnosticError, raise_if_errors

# What the user should read instead of a terminal's name in "expected ..." lists.
TERMINAL_NAMES = {
    "DOT": "'.'",
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
    "$END": "end of input",
}


@lru_cache(maxsize=None)
def _lark(grammar: str, start: str) -> Lark:
    text = resources.files("dedalus2asp").joinpath(grammar).read_text(encoding="utf-8")
    return Lark(text, parser="lalr", start=start, propagate_positions=True, maybe_placeholders=False)


def _span(meta_or_token) -> Span:
    m = meta_or_token
    if isinstance(m, Token):
        return Span(m.line, m.column, m.end_line, m.end_column)
    if getattr(m, "empty", False):
        return Span(0, 0, 0, 0)
    return Span(m.line, m.column, m.end_line, m.end_column)


def unescape(token: Token) -> str:
    """The value of a string literal: `\\"` is a quote, `\\\\` a backslash, `\\n` a newline."""
    out, body, i = [], token[1:-1], 0
    while i < len(body):
        if body[i] == "\\":
            nxt = body[i + 1]
            if nxt not in '"\\n':
                raise ValueError(f"unknown escape '\\{nxt}' in string (use \\\" \\\\ or \\n)")
            out.append({"n": "\n"}.get(nxt, nxt))
            i += 2
        else:
            out.append(body[i])
            i += 1
    return "".join(out)


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
        return Constant(clingo.Number(int(tok)), _span(tok))

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
        return (RuleKind.ASYNC, Variable(str(var), _span(var)))

    def head(self, meta, items):
        atom = items[0]
        kind, addressee = items[1] if len(items) > 1 else (RuleKind.DEDUCTIVE, None)
        return atom, kind, addressee

    def body(self, meta, items):
        return tuple(items[1:])

    def rule(self, meta, items):
        (atom, kind, addressee), *rest = items
        body = rest[0] if len(rest) == 2 else ()
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


def _expected(exc: UnexpectedInput) -> str:
    names = sorted({TERMINAL_NAMES.get(t, t) for t in getattr(exc, "expected", ()) or ()})
    return f"; expected {', '.join(names)}" if names else ""


def _describe(tok: Token) -> str:
    return "end of input" if tok.type == "$END" else f"'{tok}'"


def _statements(tokens: list[Token]) -> list[list[Token]]:
    chunks, current = [], []
    for tok in tokens:
        current.append(tok)
        if tok.type == "DOT":
            chunks.append(current)
            current = []
    if current:
        chunks.append(current)
    return chunks


def _lex(text: str, filename: str, diagnostics: list[Diagnostic]) -> list[Token]:
    """Tokens of `text`; an unknown character is reported and skipped."""
    lark = _lark("dedalus.lark", "statement")
    tokens, pos = [], 0
    while True:
        try:
            for tok in lark.lex(text[pos:]):
                tok = _shift(tok, text, pos)
                tokens.append(tok)
            return tokens
        except UnexpectedCharacters as exc:
            offset = pos + exc.pos_in_stream
            line = text.count("\n", 0, offset) + 1
            col = offset - (text.rfind("\n", 0, offset) + 1) + 1
            diagnostics.append(
                Diagnostic(
                    "syntax",
                    f"unexpected character {text[offset]!r}",
                    Span(line, col, line, col + 1),
                    filename,
                    text,
                )
            )
            pos = offset + 1


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


def parse_program(text: str, filename: str = "<program>") -> Program:
    """Parse a Dedalus program; raise `DiagnosticError` with every syntax error found."""
    diagnostics: list[Diagnostic] = []
    tokens = _lex(text, filename, diagnostics)
    lark = _lark("dedalus.lark", "statement")
    rules: list[Rule] = []
    outputs: list[Output] = []

    def error(message: str, span: Span, code: str = "syntax") -> None:
        diagnostics.append(Diagnostic(code, message, span, filename, text))

    for chunk in _statements(tokens):
        interactive = lark.parse_interactive(None)
        try:
            for tok in chunk:
                interactive.feed_token(tok)
            if chunk[-1].type != "DOT":
                last = chunk[-1]
                raise UnexpectedToken(Token("$END", "", last.end_pos, last.end_line, last.end_column), {"DOT"})
            tree = interactive.feed_eof(chunk[-1])
        except UnexpectedToken as exc:
            tok = exc.token
            span = _span(tok) if tok.type != "$END" else Span(tok.line, tok.column, tok.line, tok.column + 1)
            error(f"unexpected {_describe(tok)}{_expected(exc)}", span)
            continue
        except UnexpectedEOF as exc:  # pragma: no cover - lark raises UnexpectedToken for $END
            error(f"unexpected end of statement{_expected(exc)}", _span(chunk[-1]))
            continue
        try:
            result = _ToAst().transform(tree)
        except Exception as exc:  # a VisitError wrapping a ValueError from unescape
            cause = getattr(exc, "orig_exc", exc)
            error(str(cause), _span(chunk[0]))
            continue
        if isinstance(result, Rule):
            rules.append(result)
        elif isinstance(result, tuple) and result and result[0] == "persist":
            _, names, arity_tok, span = result
            arity = int(arity_tok)
            if arity < 0:
                error(f"persist arity must be 0 or more, not {arity}", _span(arity_tok))
                continue
            rules.append(persist_rule(names[0], arity, names[1] if len(names) > 1 else None, span))
        else:
            outputs.extend(result)
    raise_if_errors(diagnostics)
    numbered = tuple(replace(r, number=i) for i, r in enumerate(rules, start=1))
    return Program(numbered, tuple(outputs), filename, text)


# ---------------------------------------------------------------------------
# Inputs


class _ToFacts(_Terms):
    def __init__(self, filename: str, text: str):
        super().__init__()
        self.filename, self.text = filename, text
        self.diagnostics: list[Diagnostic] = []

    @v_args(meta=True)
    def fact(self, meta, items):
        name, *args = items
        for a in args:
            if isinstance(a, Variable):
                self.diagnostics.append(
                    Diagnostic(
                        "variable-in-fact",
                        f"input fact '{name}' has variable '{a.name}'; input facts are ground "
                        f"(write a constant in lower case, e.g. '{a.name.lower()}')",
                        a.span,
                        self.filename,
                        self.text,
                    )
                )
        return Fact(str(name), tuple(a.value for a in args if isinstance(a, Constant)), _span(meta))

    def block(self, items):
        node, *facts = items
        return (node, facts)

    def start(self, items):
        return items


def parse_facts(text: str, filename: str = "<input>") -> Instance:
    """Parse the `.facts` form of an input (SPEC §1.2)."""
    try:
        tree = _lark("facts.lark", "start").parse(text)
    except UnexpectedInput as exc:
        tok = getattr(exc, "token", None)
        if tok is not None:
            what, span = f"unexpected {_describe(tok)}", _span(tok) if tok.type != "$END" else Span(exc.line, exc.column, exc.line, exc.column + 1)
        else:
            what, span = f"unexpected character {text[exc.pos_in_stream]!r}", Span(exc.line, exc.column, exc.line, exc.column + 1)
        raise DiagnosticError([Diagnostic("syntax", what + _expected(exc), span, filename, text)]) from None
    builder = _ToFacts(filename, text)
    items = builder.transform(tree)
    everywhere = [i for i in items if isinstance(i, Fact)]
    facts: dict[clingo.Symbol, list[Fact]] = {}
    for item in items:
        if isinstance(item, tuple):
            node, local = item
            facts.setdefault(node.value, []).extend(local)
    diagnostics = builder.diagnostics
    if not facts:
        diagnostics.append(
            Diagnostic(
                "empty-network",
                "the input names no node: the network is the set of nodes that have a block, e.g. 'a { }'",
                filename=filename,
                text=text,
            )
        )
    raise_if_errors(diagnostics)
    return _instance({n: everywhere + fs for n, fs in facts.items()}, filename, text)


_IDENTIFIER = re.compile(r"[a-z][A-Za-z0-9_]*\Z")


def json_value(value) -> clingo.Symbol:
    """A JSON value as a constant: ints are numbers, lower-case identifiers are names, other strings strings."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ValueError(f"a value must be a string or an integer, not {json.dumps(value)}")
    if isinstance(value, int):
        return clingo.Number(value)
    return clingo.Function(value) if _IDENTIFIER.match(value) else clingo.String(value)


def parse_json(text: str, filename: str = "<input>") -> Instance:
    """Parse the JSON form `{"nodes": {"a": {"r": [["v1", "v2"]]}}}` of an input."""

    def fail(message: str, line: int = 0, col: int = 0):
        span = Span(line, col, line, col + 1) if line else Span(0, 0, 0, 0)
        raise DiagnosticError([Diagnostic("json", message, span, filename, text)])

    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        fail(f"invalid JSON: {exc.msg}", exc.lineno, exc.colno)
    if not isinstance(data, dict) or not isinstance(data.get("nodes"), dict) or not data["nodes"]:
        fail('expected an object {"nodes": {"<node>": {"<relation>": [[values...], ...]}}} with at least one node')
    facts: dict[clingo.Symbol, list[Fact]] = {}
    for node, relations in data["nodes"].items():
        try:
            key = json_value(int(node) if re.fullmatch(r"-?\d+", node) else node)
        except ValueError as exc:
            fail(f"node {node!r}: {exc}")
        if not isinstance(relations, dict):
            fail(f"node {node!r}: expected an object mapping relation names to lists of tuples")
        local = facts.setdefault(key, [])
        for rel, tuples in relations.items():
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", rel):
                fail(f"node {node!r}: {rel!r} is not a relation name")
            if not isinstance(tuples, list) or not all(isinstance(t, list) for t in tuples):
                fail(f"node {node!r}, relation {rel!r}: expected a list of tuples (lists), e.g. [[\"a\", 1]]")
            for t in tuples:
                try:
                    local.append(Fact(rel, tuple(json_value(v) for v in t)))
                except ValueError as exc:
                    fail(f"node {node!r}, relation {rel!r}: {exc}")
    return _instance(facts, filename, text)


def _instance(facts: dict[clingo.Symbol, list[Fact]], filename: str, text: str) -> Instance:
    """Build an instance, checking that each relation has one arity."""
    seen: dict[str, Fact] = {}
    diagnostics = []
    for local in facts.values():
        for f in local:
            first = seen.setdefault(f.predicate, f)
            if len(first.args) != len(f.args):
                diagnostics.append(
                    Diagnostic(
                        "arity",
                        f"input relation '{f.predicate}' has {len(f.args)} arguments here but "
                        f"{len(first.args)} in '{first}'",
                        f.span,
                        filename,
                        text,
                    )
                )
    raise_if_errors(diagnostics)
    unique = {n: tuple(dict.fromkeys(fs)) for n, fs in facts.items()}
    return Instance(unique, filename, text)


def read_text(path: str | Path, what: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise DiagnosticError([Diagnostic("io", f"cannot read {what}: {reason}", filename=str(path))]) from None


def load_program(path: str | Path) -> Program:
    return parse_program(read_text(path, "program"), str(path))


def load_instance(path: str | Path) -> Instance:
    """Read an input: JSON if the file ends in .json or starts with '{', the .facts form otherwise."""
    text = read_text(path, "input")
    if str(path).endswith(".json") or text.lstrip().startswith("{"):
        return parse_json(text, str(path))
    return parse_facts(text, str(path))
