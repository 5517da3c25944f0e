"""The program reader: every notation (tplp2016 §4.1.1 and the papers' own),
`persist` expansion, spans, syntax errors, reading files.

Inputs are read by `facts` (tests/test_facts.py).

The round-trip test parses random programs: `parse_program(str(rule))` gives
the rule back.
"""

from __future__ import annotations

import string

import clingo
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dedalus2asp.lang.ast import (
    COMPARISONS,
    Atom,
    Comparison,
    Constant,
    Literal,
    Rule,
    RuleKind,
    Span,
    Variable,
)
from dedalus2asp.lang.diagnostics import DiagnosticError
from dedalus2asp.lang.facts import load_instance, parse_facts, parse_json
from dedalus2asp.lang.parser import load_program, parse_program


def rules(text: str) -> list[str]:
    return [str(r) for r in parse_program(text).rules]


def only(text: str) -> Rule:
    (rule,) = parse_program(text).rules
    return rule


def errors(text: str, parse=parse_program) -> list[tuple[int, int, str]]:
    """(line, col, message) of every diagnostic that parsing `text` raises."""
    with pytest.raises(DiagnosticError) as info:
        parse(text)
    return [(d.line, d.col, d.message) for d in info.value.diagnostics]


# ---------------------------------------------------------------------------
# Notations (tplp2016 §4.1.1, tr2009 §3)


@pytest.mark.parametrize(
    "text, expected, kind",
    [
        ("p(X) :- q(X).", "p(X) :- q(X).", RuleKind.DEDUCTIVE),
        ("p(X) <- q(X).", "p(X) :- q(X).", RuleKind.DEDUCTIVE),
        ("p(X) ← q(X).", "p(X) :- q(X).", RuleKind.DEDUCTIVE),
        ("p(X)@next :- q(X).", "p(X)@next :- q(X).", RuleKind.INDUCTIVE),
        ("p(X)• :- q(X).", "p(X)@next :- q(X).", RuleKind.INDUCTIVE),
        ("p(X) @next <- q(X).", "p(X)@next :- q(X).", RuleKind.INDUCTIVE),
        ("p(X)@async(Y) :- q(X), n(Y).", "p(X)@async(Y) :- q(X), n(Y).", RuleKind.ASYNC),
        ("p(X) | Y :- q(X), n(Y).", "p(X)@async(Y) :- q(X), n(Y).", RuleKind.ASYNC),
        ("p(X) | Y ← q(X), n(Y).", "p(X)@async(Y) :- q(X), n(Y).", RuleKind.ASYNC),
        ("p(X) :- q(X), not r(X).", "p(X) :- q(X), not r(X).", RuleKind.DEDUCTIVE),
        ("p(X) :- q(X), ¬r(X).", "p(X) :- q(X), not r(X).", RuleKind.DEDUCTIVE),
        ("p(X) :- q(X), !r(X).", "p(X) :- q(X), not r(X).", RuleKind.DEDUCTIVE),
        ("p(X) :- q(X), ! r(X).", "p(X) :- q(X), not r(X).", RuleKind.DEDUCTIVE),
        ("done :- q(X).", "done() :- q(X).", RuleKind.DEDUCTIVE),
        ("done() :- not missing.", "done() :- not missing().", RuleKind.DEDUCTIVE),
        ("covered() ← ¬missing().", "covered() :- not missing().", RuleKind.DEDUCTIVE),
        ("first()• ← A().", "first()@next :- A().", RuleKind.INDUCTIVE),
        ("A() | Y ← contact(Y).", "A()@async(Y) :- contact(Y).", RuleKind.ASYNC),
        ("T(U, V) :- R(U, V).", "T(U, V) :- R(U, V).", RuleKind.DEDUCTIVE),
        ("start.", "start().", RuleKind.DEDUCTIVE),
        ("p(1, -2, abc).", "p(1, -2, abc).", RuleKind.DEDUCTIVE),
        ("p(X) :- q(X, Y), X != Y.", "p(X) :- q(X, Y), X != Y.", RuleKind.DEDUCTIVE),
        ("p(X) :- q(X, Y), X ≠ Y.", "p(X) :- q(X, Y), X != Y.", RuleKind.DEDUCTIVE),
        ("p(X) :- q(X, Y), X<Y.", "p(X) :- q(X, Y), X < Y.", RuleKind.DEDUCTIVE),
        ("p(X) :- q(X, Y), X <= Y.", "p(X) :- q(X, Y), X <= Y.", RuleKind.DEDUCTIVE),
        ("p(X) :- q(X, Y), X = Y.", "p(X) :- q(X, Y), X = Y.", RuleKind.DEDUCTIVE),
        ("p(X) :- q(X), X != -1.", "p(X) :- q(X), X != -1.", RuleKind.DEDUCTIVE),
        # keywords are keywords only where they can be: these are ordinary names
        ("persist(X) :- q(X).", "persist(X) :- q(X).", RuleKind.DEDUCTIVE),
        ("notify(X) :- q(X), not nothing(X).", "notify(X) :- q(X), not nothing(X).", RuleKind.DEDUCTIVE),
        ("output(X) :- q(X).", "output(X) :- q(X).", RuleKind.DEDUCTIVE),
    ],
)
def test_notation(text, expected, kind):
    rule = only(text)
    assert str(rule) == expected
    assert rule.kind is kind


def test_negation_notations_give_equal_rules():
    a, b, c = (only(f"p(X) :- q(X), {n}r(X).") for n in ("not ", "¬", "!"))
    assert a == b == c
    assert a.negative == (Atom("r", (Variable("X"),)),)
    assert a.positive == (Atom("q", (Variable("X"),)),)


def test_addressee_of_both_async_notations():
    for text in ("p(X)@async(Y) :- q(X), n(Y).", "p(X) | Y :- q(X), n(Y)."):
        rule = only(text)
        assert rule.addressee == Variable("Y")
        assert rule.head == Atom("p", (Variable("X"),))


def test_nullary_atoms_with_and_without_parentheses_are_equal():
    assert only("done :- not missing.") == only("done() :- not missing().")
    assert only("done.").head == Atom("done", ())


def test_predicate_names_are_case_sensitive():
    program = parse_program("p(X) :- P(X). P(X) :- q(X).")
    assert program.idb() == {"p": 1, "P": 1}
    assert program.edb() == {"q": 1}


def test_constants():
    rule = only('p(abc, 42, -7, "Hello, world.") :- q(X).')
    assert [a.value for a in rule.head.args] == [
        clingo.Function("abc"),
        clingo.Number(42),
        clingo.Number(-7),
        clingo.String("Hello, world."),
    ]
    assert all(isinstance(a, Constant) for a in rule.head.args)


def test_string_escapes():
    rule = only(r'p("a\"b\\c\nd") :- q(X).')
    (arg,) = rule.head.args
    assert arg.value == clingo.String('a"b\\c\nd')
    assert str(rule) == r'p("a\"b\\c\nd") :- q(X).'
    assert only(str(rule)) == rule


def test_a_period_inside_a_string_does_not_end_the_statement():
    assert rules('p("a. b") :- q(X). r(X) :- q(X).') == ['p("a. b") :- q(X).', "r(X) :- q(X)."]


def test_anonymous_and_underscore_variables():
    rule = only("p(X) :- q(X, _, _Y).")
    _, anon, named = rule.body[0].atom.args
    assert anon == Variable("_") and anon.anonymous
    assert named == Variable("_Y") and not named.anonymous


def test_comments():
    text = """% a comment
    // another one
    p(X) :- q(X). % after a rule
    /* a block
       over lines, with p(X) :- r(X). inside */
    r(X) :- /* inside a rule */ q(X). // end
    """
    assert rules(text) == ["p(X) :- q(X).", "r(X) :- q(X)."]


def test_comparison_nodes():
    rule = only("p(X) :- q(X, Y), X ≠ Y, X < 3.")
    assert rule.comparisons == (
        Comparison("!=", Variable("X"), Variable("Y")),
        Comparison("<", Variable("X"), Constant(clingo.Number(3))),
    )


def test_output_directives():
    program = parse_program(".output a, b.\n.output c.\na :- c. b :- c. c.")
    assert program.output_relations == ("a", "b", "c")
    assert [(o.span.line, o.span.col) for o in program.outputs] == [(1, 9), (1, 12), (2, 9)]


def test_output_of_an_upper_case_relation():
    assert parse_program(".output T. T() :- q().").output_relations == ("T",)


def test_empty_program():
    program = parse_program("")
    assert program.rules == () and program.outputs == ()
    assert parse_program("% only a comment\n/* and another */\n").rules == ()


def test_rules_are_numbered_in_order_after_persist_expansion():
    program = parse_program("p(X) :- q(X).\npersist[p, 1].\nr(X) :- p(X).")
    assert [(r.number, str(r)) for r in program.rules] == [
        (1, "p(X) :- q(X)."),
        (2, "p(A)@next :- p(A)."),
        (3, "r(X) :- p(X)."),
    ]


# ---------------------------------------------------------------------------
# persist macros (tr2009 §3.3)


def test_persist_two_arguments():
    rule = only("persist[log, 1].")
    assert str(rule) == "log(A)@next :- log(A)."
    assert rule.kind is RuleKind.INDUCTIVE
    assert rule.origin == "persist[log, 1]"
    assert rule.number == 1


def test_persist_with_deletion():
    rule = only("persist[p, del_p, 2].")
    assert str(rule) == "p(A, B)@next :- p(A, B), not del_p(A, B)."
    assert rule.kind is RuleKind.INDUCTIVE
    assert rule.origin == "persist[p, del_p, 2]"


def test_persist_of_a_nullary_and_an_upper_case_relation():
    assert str(only("persist[done, 0].")) == "done()@next :- done()."
    assert str(only("persist[T, 0].")) == "T()@next :- T()."


def test_persist_with_many_arguments_names_them_apart():
    rule = only("persist[wide, 27].")
    names = [v.name for v in rule.head.args]
    assert len(set(names)) == 27
    assert names[:2] == ["A1", "A2"]


def test_persist_span_is_the_macro():
    rule = parse_program("p(X) :- q(X).\n  persist[p, 1].").rules[1]
    assert rule.span == Span(2, 3, 2, 17)
    assert rule.head.args[0].span == Span(2, 3, 2, 17)


def test_persist_with_negative_arity_is_an_error():
    ((line, col, message),) = errors("persist[p, -1].")
    assert (line, col) == (1, 12)
    assert message == "the arity in persist[p, -1] is negative: it is the number of arguments of 'p', 0 or more"


# ---------------------------------------------------------------------------
# Spans


def test_rule_span():
    program = parse_program("% header\np(X) :- q(X).\n\n  r(Y) :-\n    q(Y).\n")
    first, second = program.rules
    assert first.span == Span(2, 1, 2, 14)
    assert second.span == Span(4, 3, 5, 10)


def test_variable_and_atom_spans():
    rule = only("\n  p(X, Y) :- q(X), r(Y), X != Y.")
    assert rule.head.span == Span(2, 3, 2, 10)
    x, y = rule.head.args
    assert (x.span, y.span) == (Span(2, 5, 2, 6), Span(2, 8, 2, 9))
    assert rule.body[1].span == Span(2, 20, 2, 24)
    assert rule.body[2].span == Span(2, 26, 2, 32)
    assert rule.body[2].right.span == Span(2, 31, 2, 32)


def test_addressee_span():
    rule = only("p(X)@async(Node) :- q(X), n(Node).")
    assert rule.addressee.span == Span(1, 12, 1, 16)


def test_spans_after_a_lexical_error_are_exact():
    # the lexer restarts after a bad character; the tokens after it keep their place
    ((line, col, _), (line2, col2, _)) = errors("p(X) :- q(X) $ .\nr(X) :- s(X) t(X).")
    assert (line, col) == (1, 14)
    assert (line2, col2) == (2, 14)


def test_a_statement_with_a_lexical_error_is_not_parsed_again():
    assert errors("p(X) :- q(X) $ r(X).") == [(1, 14, "unexpected character '$'")]


# ---------------------------------------------------------------------------
# Syntax errors


def test_every_syntax_error_of_a_file_is_reported():
    text = "p(X) :- q(X) r(X).\ns(X :- t(X).\nok(X) :- t(X).\nu(X) :- .\nv(X)@async(b) :- t(X).\nw(X) :- t(X)"
    found = errors(text)
    assert [(line, col) for line, col, _ in found] == [(1, 14), (2, 5), (4, 9), (5, 12), (6, 13)]


def test_expected_tokens_are_exact():
    # LALR merges lookaheads; the parser asks which tokens would really be accepted
    assert errors("p(X) :- q(X) r(X).") == [(1, 14, "unexpected 'r'; expected ',' or '.'")]
    assert errors("s(X :- t(X).") == [(1, 5, "unexpected ':-'; expected ')' or ','")]
    assert errors("bad bad.") == [(1, 5, "unexpected 'bad'; expected '(', '.', ':-', '@async', '@next', '|' or '•'")]


def test_missing_period_at_the_end_of_a_line():
    assert errors("p(X) :- q(X)\nr(X) :- q(X).") == [
        (2, 1, "unexpected 'r'; expected ',' or '.' (is the '.' at the end of line 1 missing?)")
    ]


def test_missing_period_at_the_end_of_the_file():
    assert errors("p(X) :- q(X).\nr(X) :- q(X)") == [(2, 13, "unexpected end of input; expected ',' or '.'")]


def test_addressee_must_be_a_variable():
    ((_, _, message),) = errors("p(X)@async(b) :- q(X).")
    assert message == (
        "unexpected 'b'; expected a variable (the addressee of @async is a variable bound in the body, e.g. @async(Y))"
    )


def test_persist_without_arity():
    ((_, col, message),) = errors("persist[p].")
    assert col == 10
    assert message.startswith("unexpected ']'; expected ','")
    assert "persist[p, k]" in message


def test_not_is_a_keyword():
    ((_, _, message),) = errors("p(not) :- q(X).")
    assert "'not' is a keyword" in message


def test_unexpected_character_with_a_hint_and_no_cascade():
    assert errors("p(X) :- q(X); r(X).") == [(1, 13, "unexpected character ';' (separate body literals with ',')")]


def test_unterminated_string_does_not_swallow_the_next_statement():
    found = errors('p("abc) :- q(X).\nr(X)@async(b) :- q(X).')
    assert [(line, col) for line, col, _ in found] == [(1, 3), (2, 12)]
    assert found[0][2] == "unterminated string: a string ends with '\"' on the line where it starts"


def test_unterminated_comment():
    assert errors("p(X) :- q(X).\n/* no end\nr(X) :- q(X).") == [
        (2, 1, "unterminated comment: '/*' is never closed by '*/'")
    ]


def test_unknown_escape_points_at_the_string():
    ((line, col, message),) = errors(r'p("a\qb") :- q(X).')
    assert (line, col) == (1, 3)
    assert message.startswith(r"unknown escape '\q' in the string")


def test_syntax_errors_carry_the_file_name_and_code():
    with pytest.raises(DiagnosticError) as info:
        parse_program("p(X) :- .", "prog.ded")
    (d,) = info.value.diagnostics
    assert (d.filename, d.code, d.line, d.col) == ("prog.ded", "syntax", 1, 9)


def test_load_errors_are_diagnostics(tmp_path):
    with pytest.raises(DiagnosticError) as info:
        load_program(tmp_path / "missing.ded")
    (d,) = info.value.diagnostics
    assert (d.code, d.message) == ("io", "cannot read program: No such file or directory")
    (tmp_path / "latin1.facts").write_bytes(b"a {\n  r(\xc3\xa9, caf\xe9). }")  # an UTF-8 'é', then a Latin-1 one
    with pytest.raises(DiagnosticError) as info:
        load_instance(tmp_path / "latin1.facts")
    (d,) = info.value.diagnostics
    assert (d.line, d.col) == (2, 11)
    assert d.message == "cannot read input: byte 0xe9 is not UTF-8 (save the file as UTF-8)"
    with pytest.raises(DiagnosticError) as info:
        load_program(tmp_path)
    assert info.value.diagnostics[0].message == "cannot read program: Is a directory"


def test_byte_order_mark_and_crlf_line_ends(tmp_path):
    path = tmp_path / "bom.ded"
    path.write_bytes(b"\xef\xbb\xbfp(X) :- q(X).\r\nr(X) :-\r\n  p(X).\r\n")
    program = load_program(path)
    assert [str(r) for r in program.rules] == ["p(X) :- q(X).", "r(X) :- p(X)."]
    assert program.rules[1].span == Span(2, 1, 3, 8)


def test_load_program_keeps_the_file_name(tmp_path):
    path = tmp_path / "p.ded"
    path.write_text("p(X) :- q(X).\n", encoding="utf-8")
    program = load_program(path)
    assert program.filename == str(path)
    assert program.text == "p(X) :- q(X).\n"


# ---------------------------------------------------------------------------
# Round trip over random programs

KEYWORDS = {"not"}
TAIL = string.ascii_letters + string.digits + "_"


def names(first: str, max_size: int = 5):
    return st.builds(str.__add__, st.sampled_from(first), st.text(alphabet=TAIL, max_size=max_size))


lower_names = names(string.ascii_lowercase).filter(lambda n: n not in KEYWORDS)
upper_names = names(string.ascii_uppercase)
variables = st.one_of(upper_names, names("_", 3)).map(Variable)
constants = st.one_of(
    lower_names.map(clingo.Function),
    st.integers(-1000, 1000).map(clingo.Number),
    st.text(alphabet=string.ascii_letters + string.digits + ' .,:-%/*"\\\n\t()[]{}@|é•', max_size=8).map(clingo.String),
).map(Constant)
terms = st.one_of(variables, constants)
predicates = st.one_of(lower_names, upper_names)
atoms = st.builds(lambda p, args: Atom(p, tuple(args)), predicates, st.lists(terms, max_size=3))
literals = st.builds(Literal, atoms, st.booleans())
comparisons = st.builds(Comparison, st.sampled_from(COMPARISONS), terms, terms)
bodies = st.lists(st.one_of(literals, literals, comparisons), max_size=4).map(tuple)


@st.composite
def random_rules(draw) -> Rule:
    kind = draw(st.sampled_from([RuleKind.DEDUCTIVE, RuleKind.INDUCTIVE, RuleKind.ASYNC]))  # global rules need locations
    addressee = draw(variables) if kind is RuleKind.ASYNC else None
    return Rule(draw(atoms), kind, draw(bodies), addressee)


@settings(max_examples=100, deadline=None)
@given(st.lists(random_rules(), min_size=1, max_size=4))
def test_round_trip(drawn):
    expected = tuple(Rule(r.head, r.kind, r.body, r.addressee, number=i) for i, r in enumerate(drawn, 1))
    text = "\n".join(map(str, expected))
    assert parse_program(text).rules == expected


@pytest.mark.parametrize(
    "parse, text",
    [
        (lambda t: parse_program(t, "big.ded"), "p(X) :- q(X, 99999999999).\n"),
        (lambda t: parse_facts(t, "big.facts"), "a { q(1, 99999999999). }\n"),
        (lambda t: parse_facts(t, "big.facts"), "99999999999 { q(1). }\n"),
        (lambda t: parse_json(t, "big.json"), '{"nodes": {"a": {"q": [[1, 99999999999]]}}}'),
    ],
)
def test_integers_beyond_32_bits_are_reported(parse, text):
    with pytest.raises(DiagnosticError) as caught:
        parse(text)
    assert "integer 99999999999 is out of range" in str(caught.value)
