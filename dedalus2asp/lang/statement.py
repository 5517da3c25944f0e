"""One statement of a program at a time: lark's tree of a statement to AST nodes, and the macros.

Each statement (the tokens up to a top-level '.') is lexed and parsed on its
own (see `lexer`), so one run reports every syntax error of a file:
`statements` reads a text so, and `_ToAst` turns each statement's tree into
AST nodes. The macro `persist[p, k]` is expanded here into the inductive rule
`p(A1..Ak)@next :- p(A1..Ak).` (tr2009 §3.3), and `persist[p, del_p, k]` into
`p(..)@next :- p(..), not del_p(..).` (`persist_rule`). Molly counts time from
1: its `@k` is step k-1 (`molly_step`). The statements are then numbered
(`numbered`) and the outputs named once (`unique_outputs`). Which dialect, which
files, and `include "file";` are `parser`'s.
"""

from __future__ import annotations

import string
from dataclasses import replace

from lark import Token, v_args

import clingo

from .ast import (AGGREGATES, Aggregate, Arithmetic, Atom, Comparison, Constant, Literal, Marked, Output, Rule,
                  RuleKind, Span, Timestamped, Variable)
from .diagnostics import Diagnostic
from .lexer import (MAX_ERRORS, binary_minus, build, chunks, lark_parser, lex, parse_tokens, statement_too_long,
                    too_many_errors)
from .literals import INT_RANGE, BadLiteral, Terms, bounded_int, shown_literal, span_of, step, unescape

MAX_ARITY = 255
"""The largest k of `persist[p, k]`. The macro is the one place where a few bytes ask for k variables
(`persist[p, 99999999999]` is 25 bytes); no relation of the papers has more than 5 arguments, and 255
is the largest arity of many Prolog systems (SICStus, and ISO's `max_arity` commonly)."""


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


def statements(text: str, filename: str, grammar: str, diagnostics: list[Diagnostic]) -> tuple[list, list[Output]]:
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


def unique_outputs(outputs: list[Output]) -> tuple[Output, ...]:
    """The output relations, each once, where first named (`.output p. .output p.` names one relation)."""
    return tuple({o.predicate: o for o in reversed(outputs)}[p] for p in dict.fromkeys(o.predicate for o in outputs))


def numbered(items: list) -> list:
    """The rules (and timestamped facts) numbered 1, 2, ... in order: messages name a rule by its number."""
    out, number = [], 0
    for item in items:
        number += 1
        if isinstance(item, Timestamped):
            out.append(replace(item, rule=replace(item.rule, number=number)))
        else:
            out.append(replace(item, number=number))
    return out
