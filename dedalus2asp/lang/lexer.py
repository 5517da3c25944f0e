"""From source text to parse trees, one statement at a time, reporting every error.

The program reader (`parser`) and the input reader (`facts`) read a text the
same way: `read_text` gives the text of a file; `lex` its tokens, skipping
and reporting each character no token starts with; `chunks` splits the tokens
into statements (at `.` for a program; at `.`, `{` and `}` for an input);
`parse_tokens` parses one statement and reports a syntax error as
"unexpected X; expected Y", where Y lists exactly the tokens the parser would
have accepted there; `build` turns its tree into AST nodes. So one run
reports every error of a file, once per statement.

The values of literal tokens (`Terms`, `number`, `step`, `unescape`) live in
`literals`.

Hostile text costs time and memory in proportion to its size, and no more:
a file is read up to `MAX_SOURCE_BYTES` and must be text; an integer's
digits are counted before they are converted; lexing goes on after an error
from where it stopped (a line-start table gives every position,
`diagnostics.position`), tokens are produced one statement at a time, and a
reader stops after `MAX_ERRORS` errors of a file; a statement has at most
`MAX_STATEMENT_TOKENS` tokens.
"""

from __future__ import annotations

from bisect import bisect_left
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Callable, Iterable, Iterator

from lark import Lark, Token, Transformer, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedToken, VisitError
from lark.lexer import BasicLexer, LexerState, LineCounter
from lark.utils import TextSlice

from .ast import AGGREGATES, NOWHERE, Span
from .diagnostics import Diagnostic, DiagnosticError, Severity, position
from .literals import BadLiteral, span_of

# A reader's way to report a syntax error: error(message, span).
Report = Callable[[str, Span], None]

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
    "PLUS": "'+'",
    "MINUS": "'-'",
    "STAR": "'*'",
    "SLASH": "'/'",
    "MOD": "a modulo ('\\', in Molly '%')",
    "$END": "end of input",
}
# What "expected ..." lists leave out: `@k` after an input fact, an arithmetic operator after an operand
# are rarely what is missing.
UNLISTED = {"EVENT", "PLUS", "MINUS", "STAR", "SLASH", "MOD"}

# Hints for characters that are not Dedalus but look like something that is.
CHARACTER_HINTS = {
    ";": "separate body literals with ','",
    "&": "separate body literals with ','",
    "'": "strings are written in double quotes",
    "~": "negation is written 'not', '!' or '¬'",
    "\\": "a backslash may only appear inside a string",
    "@": "a head is written @next or @async; a timestamp '@k' (a fact or a body atom at step k) is written "
    "only in located and Molly programs (--dialect located or molly)",
}
FACT_CHARACTER_HINTS = {
    ";": "separate values with ','",
    "'": "strings are written in double quotes",
    "\\": "a backslash may only appear inside a string",
}

MAX_SOURCE_BYTES = 64 * 2**20
"""The largest program or input file read, in bytes: a larger one is an error, not hours of parsing
(a run on a larger input reads it as a directory of CSV or Parquet tables, `run --input DIR`)."""
MAX_ERRORS = 100
"""A reader stops after this many errors of a file, with a note where it stopped (clang stops at 20)."""
MAX_STATEMENT_TOKENS = 100_000
"""The most tokens of one statement (a rule of 25,000 body atoms): a 6 MB rule took 4.4 GB to parse."""


# ---------------------------------------------------------------------------
# Grammars and source text


def _grammar_text(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


@lru_cache(maxsize=None)
def lark_parser(name: str, start: str) -> Lark:
    """The LALR parser of grammar file `name` from rule `start`.

    `located.lark` is a set of changes to `dedalus.lark`, appended to it; `molly.lark` a set of changes
    to `located.lark`, appended to both.
    """
    layers = {"located.lark": ("dedalus.lark", "located.lark"), "molly.lark": ("dedalus.lark", "located.lark", "molly.lark")}
    text = "".join(_grammar_text(n) for n in layers.get(name, (name,)))
    return Lark(text, parser="lalr", start=start, propagate_positions=True, maybe_placeholders=False)


def read_text(path: str | Path, what: str) -> str:
    """The text of a UTF-8 file (a byte-order mark is dropped); a problem is a diagnostic.

    The file must be text: at most `MAX_SOURCE_BYTES` bytes (`/dev/zero` is not read to its end),
    UTF-8, and without NUL bytes.
    """
    try:
        with open(path, "rb") as file:
            data = file.read(MAX_SOURCE_BYTES + 1)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise DiagnosticError([Diagnostic("io", f"cannot read {what}: {reason}", filename=str(path))]) from None
    if len(data) > MAX_SOURCE_BYTES:
        raise DiagnosticError([Diagnostic(
            "io",
            f"cannot read {what}: it is larger than {MAX_SOURCE_BYTES // 2**20} MiB, the largest file dedalus2asp "
            "reads (a large input is read as a directory of CSV or Parquet tables by `run --input DIR`)",
            filename=str(path),
        )])
    try:
        text = data.decode("utf-8-sig").replace("\r\n", "\n").replace("\r", "\n")
    except UnicodeDecodeError as exc:
        raise _not_text(data, exc.start, f"cannot read {what}: byte 0x{data[exc.start]:02x} is not UTF-8 "
                        "(save the file as UTF-8)", path) from None
    nul = data.find(b"\0")
    if nul >= 0:
        raise _not_text(data, nul, f"cannot read {what}: it has a NUL byte, so it is not a text file", path)
    return text


def _not_text(data: bytes, offset: int, message: str, path: str | Path) -> DiagnosticError:
    """The error of a file that is not UTF-8 text, at the byte `offset` of its `data`."""
    line = data.count(b"\n", 0, offset) + 1
    start = data.rfind(b"\n", 0, offset) + 1
    col = len(data[start:offset].decode("utf-8", errors="replace")) + 1
    text = data.decode("utf-8", errors="replace").replace("\r\n", "\n")
    return DiagnosticError([Diagnostic("io", message, Span(line, col, line, col + 1), str(path), text)])


# ---------------------------------------------------------------------------
# Tokens


@lru_cache(maxsize=None)
def _lexer(grammar_name: str) -> BasicLexer:
    """The lexer of a grammar, built once (`Lark.lex` builds one per call)."""
    return BasicLexer(lark_parser(grammar_name, "start" if grammar_name == "facts.lark" else "statement").lexer_conf)


def _state(text: str, pos: int) -> LexerState:
    """A lexer state at offset `pos` of `text`: lark goes on there without a copy of the rest of the text."""
    counter = LineCounter("\n")
    counter.char_pos = pos
    counter.line, counter.column = position(text, pos)
    counter.line_start_pos = pos - counter.column + 1
    return LexerState(TextSlice(text, pos, len(text)), counter)


def lex(grammar_name: str, text: str, filename: str, diagnostics: list[Diagnostic], bad: list[int]) -> Iterator[Token]:
    """Tokens of `text`; each lexical error is reported, skipped, and its offset appended to `bad`
    before any token after it comes (so `bad` grows in increasing order).

    An unterminated string skips the rest of its line and ends the statement
    there (an empty `DOT` token, so the next line is parsed anew); an
    unterminated `/*` comment skips the rest of the text. After `MAX_ERRORS`
    errors the rest of the text is skipped, with a note.
    """
    lexer, pos, errors = _lexer(grammar_name), 0, 0
    while True:
        try:
            yield from lexer.lex(_state(text, pos), None)
            return
        except UnexpectedCharacters as exc:
            offset = exc.pos_in_stream
            bad.append(offset)
            errors += 1
            if errors > MAX_ERRORS:
                diagnostics.append(too_many_errors(filename, text, offset))
                return
            message, span, pos, end_token = _lexical_error(grammar_name, text, offset)
            diagnostics.append(Diagnostic("syntax", message, span, filename, text))
            if end_token is not None:
                yield end_token


# Tokens after which a '-' is the binary minus: they end an operand.
_OPERAND_ENDS = {"VARIABLE", "LNAME", "INT", "STRING", "RPAR", "NOTIN"}


def _split(tok: Token, first: str, rest: str) -> tuple[Token, Token]:
    """A token of two characters or more as its first character (of type `first`) and the rest (`rest`)."""
    return (
        Token(first, tok[0], tok.start_pos, tok.line, tok.column, tok.line, tok.column + 1, tok.start_pos + 1),
        Token(rest, tok[1:], tok.start_pos + 1, tok.line, tok.column + 1, tok.end_line, tok.end_column, tok.end_pos),
    )


def binary_minus(tokens: Iterable[Token]) -> Iterator[Token]:
    """`tokens` with the two readings of '-' the lexer cannot tell apart made right.

    The lexer reads `-1` as one integer (`p(-1)`, `X > -1`); after an operand it is a subtraction:
    `T-1` is `T - 1`, `(X+1)-2` is `(X+1) - 2`. And it reads `<-` as "if"; after the name of an
    aggregate in an argument it opens the aggregate of a negative term: `min<-X>` is `min < -X >`, and
    after an operand in a body it compares with a negative term: `X<-1` is `X < -1`.
    """
    before = previous = None
    in_body = False  # after the statement's ':-': a '<-' there is a comparison, `X<-1` is `X < -1`
    for tok in tokens:
        if tok.type == "INT" and tok.startswith("-") and previous is not None and previous.type in _OPERAND_ENDS:
            yield from _split(tok, "MINUS", "INT")
        elif (tok == "<-" and previous is not None and previous in ("count", "sum", "min", "max")
              and before is not None and before.type in ("LPAR", "COMMA")):
            yield from _split(tok, "COMPARE", "MINUS")
        elif tok == "<-" and previous is not None and previous.type in _OPERAND_ENDS and in_body:
            yield from _split(tok, "COMPARE", "MINUS")
        else:
            in_body = (in_body or tok.type == "IF") and tok.type != "DOT"
            yield tok
        before, previous = previous, tok


def _lexical_error(grammar_name: str, text: str, offset: int) -> tuple[str, Span, int, Token | None]:
    """(message, span, where lexing goes on, a token that ends the statement or None) of the
    character at `offset` that no token starts with."""
    line, col = position(text, offset)
    char = text[offset]
    end = text.find("\n", offset)
    end = len(text) if end < 0 else end
    if char == '"':
        message = 'unterminated string: a string ends with \'"\' on the line where it starts'
        end_type = "_END" if grammar_name == "facts.lark" else "DOT"
        token = Token(end_type, "", end, line, col + end - offset, line, col + end - offset, end)
        return message, Span(line, col, line, col + end - offset), end, token
    if text.startswith("/*", offset):
        return "unterminated comment: '/*' is never closed by '*/'", Span(line, col, line, col + 2), len(text), None
    hint = (FACT_CHARACTER_HINTS if grammar_name == "facts.lark" else CHARACTER_HINTS).get(char)
    message = f"unexpected character {char!r}" + (f" ({hint})" if hint else "")
    return message, Span(line, col, line, col + 1), offset + 1, None


def too_many_errors(filename: str, text: str, offset: int) -> Diagnostic:
    """The note of a reader that stops at `offset` of `text` after `MAX_ERRORS` errors."""
    line, col = position(text, offset) if offset < len(text) else (0, 0)
    return Diagnostic(
        "too-many-errors",
        f"too many errors: reading stopped here, after {MAX_ERRORS} (fix these, and run again for the rest)",
        Span(line, col, line, col + 1) if line else NOWHERE,
        filename,
        text,
        Severity.NOTE,
    )


def chunks(
    tokens: Iterable[Token], ends: set[str], bad: list[int], length: int, too_long: Callable[[Token], None]
) -> Iterator[tuple[list[Token], bool]]:
    """Split `tokens` after every token whose type is in `ends`.

    Yields (tokens of the chunk, whether it must not be parsed): a chunk with
    a lexical error inside is not parsed, as its syntax error would only echo
    the lexical one. `bad` holds the offsets of the lexical errors, in
    increasing order, at least up to the last token read (see `lex`). A
    chunk of more than `MAX_STATEMENT_TOKENS` tokens is not parsed either:
    `too_long(first token)` reports it, and it keeps only its first tokens and its end.
    """
    chunk: list[Token] = []
    start, long = 0, False
    for tok in tokens:
        if tok.type in ends:
            chunk.append(tok)
            yield chunk, long or _any_between(bad, start, tok.end_pos)
            chunk, start, long = [], tok.end_pos, False
        elif len(chunk) < MAX_STATEMENT_TOKENS:
            chunk.append(tok)
        elif not long:
            long = True
            too_long(chunk[0])
    if chunk:
        yield chunk, long or _any_between(bad, start, length)


def statement_too_long(what: str) -> str:
    """The message of a statement of more than `MAX_STATEMENT_TOKENS` tokens (`what`: a rule, a fact)."""
    return (f"this {what} has more than {MAX_STATEMENT_TOKENS:,} tokens, the most dedalus2asp reads in one "
            f"statement (split it: its parse tree alone would take gigabytes)")


def _any_between(offsets: list[int], start: int, end: int) -> bool:
    """Whether an offset of the sorted `offsets` lies in start..end-1."""
    i = bisect_left(offsets, start)
    return i < len(offsets) and offsets[i] < end


# ---------------------------------------------------------------------------
# Parsing one statement


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


def _hint(tokens: list[Token], i: int, expected: set[str], text: str | None = None) -> str:
    """Why the parser may have stopped at `tokens[i]`, when the tokens before it (or the comment between
    it and the token before, in `text`) tell."""
    tok, types = tokens[i], {t.type for t in tokens[:i]}
    if i and text is not None and tokens[i - 1].type in _OPERAND_ENDS:
        gap = text[tokens[i - 1].end_pos:tok.start_pos]
        if gap.lstrip(" \t").startswith("%"):
            return (f" (the '%' on line {tokens[i - 1].end_line} begins a comment: the modulo is written '\\' "
                    "outside Molly's dialect, where '%' is the modulo and comments are '//')")
    if i and "DOT" in expected and tok.line > tokens[i - 1].end_line:
        return f" (is the '.' at the end of line {tokens[i - 1].end_line} missing?)"
    if expected == {"VARIABLE"} and types & {"ASYNC", "PIPE"}:
        return " (the addressee of @async is a variable bound in the body, e.g. @async(Y))"
    if tok.type in ("NEXT", "ASYNC", "BULLET") and "IF" in types:
        return (" (@next and @async annotate a rule's head; a body atom is read at the rule's step, or in a located "
                "or Molly program at a fixed step, p(X)@k)")
    if (i and tok.type == "COMPARE" and str(tok) == "<" and tokens[i - 1].type == "LNAME"
            and str(tokens[i - 1]) in AGGREGATES and "IF" in types):
        return (f" (aggregates are not supported in rule bodies, because an aggregate is a value of the fact the rule "
                f"derives, computed over the body's valuations: write {tokens[i - 1]}<...> as an argument of a head, "
                "e.g. tally(C, count<M>) :- vote(C, M), and read tally in the body)")
    if tok.type == "NOT" and "NOT" not in expected:
        return " ('not' is a keyword: it cannot name a relation or a constant)"
    if "PERSIST" in types and tok.type == "RSQB":
        return " (write persist[p, k] or persist[p, del_p, k], with k the arity of p)"
    return ""


def parse_tokens(lark: Lark, tokens: list[Token], error: Report, text: str | None = None) -> Tree | None:
    """Parse one statement's tokens, or report why not (a missing final token is reported as end of input).
    `text`, the source, lets a hint see the comments between tokens."""
    interactive = lark.parse_interactive(None)
    for i, tok in enumerate(tokens):
        try:
            interactive.feed_token(tok)
        except UnexpectedToken:
            expected = _accepted(lark, tokens[:i])
            error(f"unexpected {_describe(tok)}{_expected(expected)}{_hint(tokens, i, expected, text)}", span_of(tok))
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


def build(transformer: Transformer, tree: Tree, error: Report):
    """`tree` as AST nodes, or None after reporting a literal clingo cannot hold (`BadLiteral`)."""
    try:
        return transformer.transform(tree)
    except VisitError as exc:
        cause = exc.orig_exc
        if isinstance(cause, BadLiteral):
            error(str(cause), cause.span)
            return None
        raise
