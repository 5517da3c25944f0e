"""Reading an input: the `.facts` and JSON forms of a distributed database instance H (tplp2016 §3.3).

The `.facts` form follows `facts.lark`: top-level facts go to every node,
`node { facts }` gives one node's facts, `fact@k.` is an event at step k of
its node (tr2009 Example 3). The JSON form is
`{"nodes": {"a": {"r": [["v1", "v2"]]}}}`, read by `facts_json`. The network
is the set of nodes that have a block (an object under "nodes").

An input is located exactly when its program is (tr2009 §6.2, see
`located`): then `columns` gives each relation's location column, every fact
goes to the node named there (the column is dropped), and the network is the
set of nodes named, with the empty blocks `c { }`.

Both readers report every problem of an input at once, with its place, and
`parse_facts` stops after `lexer.MAX_ERRORS`; top-level facts make at most
`MAX_REPLICATED` copies, one per node.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator, Mapping

import clingo
from lark import Token, v_args

from .ast import NOWHERE, Constant, Fact, Instance, Span, Variable
from .diagnostics import Diagnostic, Severity, raise_if_errors
from .facts_json import MAX_JSON_DEPTH, json_value, node_key, read_json, split_fact  # noqa: F401 (the JSON form)
from .lexer import (FACT_CHARACTER_HINTS, MAX_ERRORS, Report, build, chunks, lark_parser, lex, parse_tokens, read_text,
                    statement_too_long, too_many_errors)
from .literals import KEYWORD, BadLiteral, Terms, number, span_of, step, unescape

# The tokens that may name a node before a block's '{'.
NODE_TOKENS = ("LNAME", "INT", "STRING")
MAX_REPLICATED = 10_000_000
"""The most facts that top-level facts may make, one copy per node: 2,000 facts `q(1).` and 2,000 empty
blocks `a{}` (a few kilobytes) would otherwise make 4 million, and a megabyte 10^10."""


def _keyword_message(what: str) -> str:
    return f"'{KEYWORD}' is a keyword: it cannot {what} (write \"{KEYWORD}\", in double quotes, for the string)"


def load_instance(path: str | Path, columns: Mapping[str, int] | None = None) -> Instance:
    """Read an input: JSON if the file ends in .json or starts with '{', the .facts form otherwise.

    With `columns` (those of a located program) the input is located.
    """
    text = read_text(path, "input")
    if str(path).endswith(".json") or text.lstrip().startswith("{"):
        return parse_json(text, str(path), columns)
    return parse_facts(text, str(path), columns)


# ---------------------------------------------------------------------------
# The .facts form


class _ToFacts(Terms):
    """Lark tree of one fact to a `Fact`; a variable or the keyword `not` in it is reported in `diagnostics`."""

    def __init__(self, filename: str, text: str):
        super().__init__()
        self.filename, self.text = filename, text
        self.diagnostics: list[Diagnostic] = []

    def identifier(self, items):
        (tok,) = items
        if str(tok) == KEYWORD:  # the facts grammar has no NOT token: `not` lexes as a name
            self.diagnostics.append(
                Diagnostic("syntax", _keyword_message("be a constant"), span_of(tok), self.filename, self.text)
            )
        return super().identifier(items)

    @v_args(meta=True)
    def fact(self, meta, items):
        name, *args = items
        at = None
        if args and isinstance(args[-1], Token) and args[-1].type == "EVENT":
            at = step(args.pop())
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
        return Fact(str(name), tuple(a.value for a in args if isinstance(a, Constant)), span_of(meta), at)


def parse_facts(text: str, filename: str = "<input>", columns: Mapping[str, int] | None = None) -> Instance:
    """Parse the `.facts` form of an input: top-level facts and `node { facts }` blocks.

    `fact@k.` is an event at step k of its node (tr2009 Example 3). With
    `columns` (relation → location column, default the first) the input is
    located (tr2009 §6.2, see `located`): every fact goes to the node named in
    its location column, which is dropped; a fact in a block must be at the
    block's node; the network is the set of nodes named, with the empty
    blocks `c { }`. Like programs, the text is parsed one fact at a time, so
    every error is reported; the braces of blocks are matched here.
    """
    diagnostics: list[Diagnostic] = []
    bad: list[int] = []
    tokens = _semicolons_in_values(lex("facts.lark", text, filename, diagnostics, bad), bad, filename, text, diagnostics)
    lark = lark_parser("facts.lark", "fact")
    builder = _ToFacts(filename, text)
    errors = 0

    def error(message: str, span: Span) -> None:
        nonlocal errors
        errors += 1
        diagnostics.append(Diagnostic("syntax", message, span, filename, text))

    nodes = _Blocks(columns, error)
    too_long = lambda tok: error(statement_too_long("fact"), span_of(tok))  # noqa: E731
    for chunk, lex_error in chunks(tokens, {"_END", "LBRACE", "RBRACE"}, bad, len(text), too_long):
        if errors + len(builder.diagnostics) >= MAX_ERRORS:
            diagnostics.append(too_many_errors(filename, text, chunk[0].start_pos))
            nodes.block = None  # whether it is closed is not known
            break
        *items, last = chunk
        if last.type == "LBRACE":
            if not lex_error and not items:
                error("unexpected '{'; expected a node name before it, e.g. 'a { id(a). }'", span_of(last))
            elif not lex_error and not _names_node(items):
                parse_tokens(lark, chunk, error)  # reports what is wrong before the '{'
            nodes.open(items, last)
        elif last.type == "RBRACE":
            if not lex_error and items:
                parse_tokens(lark, chunk, error)  # a fact without its '.'
            nodes.close(last, report=not lex_error and not items)
        elif lex_error:
            continue
        elif last.type == "_END":
            tree = parse_tokens(lark, chunk, error)
            fact = None if tree is None else build(builder, tree, error)
            if fact is not None:
                nodes.add(fact)
        else:  # the text ends inside a fact
            parse_tokens(lark, chunk, error)
    nodes.check_closed()
    diagnostics += builder.diagnostics
    if not nodes.facts and not diagnostics:
        diagnostics.append(_no_node(columns is not None, filename, text))
    if len(nodes.everywhere) * len(nodes.facts) > MAX_REPLICATED:
        diagnostics.append(_too_many_copies(nodes, filename, text))
    raise_if_errors(diagnostics)
    return _instance(nodes.per_node(), filename, text)


def _too_many_copies(nodes: "_Blocks", filename: str, text: str) -> Diagnostic:
    """The error of an input whose top-level facts, one copy per node, make more than `MAX_REPLICATED`."""
    return Diagnostic(
        "input-size",
        f"the input gives its {len(nodes.everywhere)} top-level facts to each of its {len(nodes.facts)} nodes: "
        f"more than {MAX_REPLICATED:,} facts in all, the most dedalus2asp makes of top-level facts "
        "(write them in the blocks of the nodes that need them)",
        filename=filename,
        text=text,
    )


def _semicolons_in_values(
    tokens: Iterator[Token], bad: list[int], filename: str, text: str, diagnostics: list[Diagnostic]
) -> Iterator[Token]:
    """A ';' ends a fact (Molly style) only outside its parentheses: inside, it is a lexical error (a
    ',' was meant), reported as such, so that the rest of the fact does not read as a new one."""
    depth, errors = 0, 0
    for tok in tokens:
        if tok.type == "_END" and tok.value == ";" and depth > 0:
            bad.append(tok.start_pos)
            errors += 1
            if errors > MAX_ERRORS:
                diagnostics.append(too_many_errors(filename, text, tok.start_pos))
                return
            diagnostics.append(
                Diagnostic("syntax", f"unexpected character ';' ({FACT_CHARACTER_HINTS[';']})", span_of(tok), filename, text)
            )
            continue
        depth = 0 if tok.type in ("_END", "LBRACE", "RBRACE") else depth + (tok.type == "LPAR") - (tok.type == "RPAR")
        yield tok


def _names_node(items: list[Token]) -> bool:
    """Whether the tokens before a '{' are one node name."""
    return len(items) == 1 and items[0].type in NODE_TOKENS


def _node(tok: Token) -> Constant:
    """The node a block's name names; `not` names none."""
    if tok.type == "LNAME" and str(tok) == KEYWORD:
        raise BadLiteral(_keyword_message("name a node"), span_of(tok))
    if tok.type == "STRING":
        return Constant(clingo.String(unescape(tok)), span_of(tok))
    return Constant(number(tok) if tok.type == "INT" else clingo.Function(str(tok)), span_of(tok))


class _Blocks:
    """The facts of a `.facts` input per node, as its blocks open and close and its facts come.

    A top-level fact of a location-transparent input goes to every node; a
    fact of a located input to the node in its location column (`_place`).
    """

    def __init__(self, columns: Mapping[str, int] | None, error: Report):
        self.columns, self.error = columns, error
        self.everywhere: list[Fact] = []
        self.facts: dict[clingo.Symbol, list[Fact]] = {}
        # The open block: its node (None after a malformed opening) and its '{'.
        self.block: tuple[Constant | None, Token] | None = None

    def open(self, items: list[Token], brace: Token) -> None:
        """Open the block of the node named by `items`; a node is in the network as soon as its block opens."""
        if self.block is not None and self.block[0] is not None:
            self.error(
                f"blocks do not nest: the block of node '{self.block[0]}' opened at line {self.block[1].line} "
                "is not closed (add '}' before this one)",
                span_of(items[0] if items else brace),
            )
        node = None
        if _names_node(items):
            try:
                node = _node(items[0])
            except BadLiteral as exc:
                self.error(str(exc), exc.span)
        if node is not None:
            self.facts.setdefault(node.value, [])
        self.block = (node, brace)

    def close(self, brace: Token, report: bool) -> None:
        """Close the open block; with `report`, a '}' that closes none is an error."""
        if report and self.block is None:
            self.error("unexpected '}': no block is open", span_of(brace))
        self.block = None

    def check_closed(self) -> None:
        """At the end of the text, a block still open is an error."""
        if self.block is not None:
            node, brace = self.block
            self.error(f"the block of node '{node}' is not closed: add '}}' at its end" if node is not None
                       else "this block is not closed: add '}' at its end", span_of(brace))

    def add(self, fact: Fact) -> None:
        if self.columns is not None:
            placed = _place(fact, self.columns, self.block, self.error)
            if placed is not None:
                self.facts.setdefault(placed[0], []).append(placed[1])
        elif self.block is None:
            self.everywhere.append(fact)
        elif self.block[0] is not None:
            self.facts[self.block[0].value].append(fact)

    def per_node(self) -> dict[clingo.Symbol, list[Fact]]:
        """Every node's facts: the top-level ones, then those of its block."""
        return {n: self.everywhere + fs for n, fs in self.facts.items()}


def _place(fact: Fact, columns: Mapping[str, int], block, error: Report) -> tuple[clingo.Symbol, Fact] | None:
    """A located input fact as (its node, the fact without its location column), or an error.

    `p(a, 1).` is the fact `p(1)` of node a; written in the block of another node, it is an error.
    """
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


def _no_node(located: bool, filename: str, text: str) -> Diagnostic:
    """The error of an input that names no node, so that the network is empty."""
    return Diagnostic(
        "empty-network",
        "the input names no node: the network is the set of nodes named in the location column of a fact "
        "or by an empty block, e.g. 'c { }'"
        if located
        else "the input names no node: the network is the set of nodes that have a block, "
        "e.g. 'a { }' (top-level facts go to every node, but there must be one)",
        filename=filename,
        text=text,
    )


def parse_json(text: str, filename: str = "<input>", columns: Mapping[str, int] | None = None) -> Instance:
    """Parse the JSON form `{"nodes": {"a": {"r": [["v1", "v2"]]}}}` of an input: `facts_json.read_json`
    reads it (its docstring says how values, events and located inputs are written) and this
    checks the result as an instance, as `parse_facts` does.
    """
    return _instance(read_json(text, filename, columns), filename, text)


# ---------------------------------------------------------------------------
# Both forms


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
