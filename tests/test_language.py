"""The constructs of issue #18 in the front end: aggregates, arithmetic, `_` in a negated atom, body atoms
at a step, global rules, Molly's time origin, several program files, Molly's includes and --eot.

Each is parsed in every notation that can write it, printed back (`convert`) and read again; its
diagnostics are checked with their places. The solver, the evaluator and the run engines are tested
with their own modules.
"""

from __future__ import annotations

import clingo
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from dedalus2asp import pipeline
from dedalus2asp.cli import app
from dedalus2asp.lang import analysis
from dedalus2asp.lang.ast import Aggregate, Arithmetic, Constant, RuleKind, Variable
from dedalus2asp.lang.diagnostics import DiagnosticError
from dedalus2asp.lang.convert import located_text, transparent_text
from dedalus2asp.lang.parser import parse_program, parse_source


def rules(text: str, dialect: str = "auto") -> list[str]:
    source = parse_source(text, "p.ded", dialect)
    program = getattr(source, "program", source)
    return [str(r) for r in program.rules]


def errors(text: str, dialect: str = "auto", filename: str = "p.ded") -> list[tuple[int, int, str]]:
    """(line, col, message) of every error reading and checking `text` raises."""
    with pytest.raises(DiagnosticError) as info:
        source = parse_source(text, filename, dialect)
        analysis.check(getattr(source, "program", source))
    return [(d.span.line, d.span.col, d.message) for d in info.value.diagnostics if d.is_error]


# ---------------------------------------------------------------------------
# Arithmetic


def test_arithmetic_has_clingo_precedence():
    (rule,) = parse_program("p(X + Y * 2, (X + Y) * 2, -X, X - 1 - 2) :- q(X, Y).").rules
    a, b, c, d = rule.head.args
    assert (a.op, a.right.op) == ("+", "*")
    assert (b.op, b.left.op) == ("*", "+")
    assert (c.op, c.left, c.right) == ("-", None, Variable("X"))
    assert (d.op, d.left.op, d.right) == ("-", "-", Constant(clingo.Number(2)))  # left associative


def test_a_minus_after_an_operand_is_a_subtraction():
    # the lexer reads -1 as an integer: after T it is T - 1, after ',' or '>' it stays -1
    assert rules("timer(H, T-1)@next :- timer(H, T), T > -1, T-1 >= 0.") == [
        "timer(H, T - 1)@next :- timer(H, T), T > -1, T - 1 >= 0."
    ]
    (rule,) = parse_program("p(- 1, -(2)) :- q(X).").rules
    assert rule.head.args == (Constant(clingo.Number(-1)), Constant(clingo.Number(-2)))


def test_a_less_than_minus_in_a_body_is_a_comparison():
    # `<-` is also "if": after an operand in a body it is `<` and a minus
    assert rules("p(X) <- q(X), X<-1, (X+1)<-X.\nr <- s.", "transparent") == [
        "p(X) :- q(X), X < -1, X + 1 < -X.", "r() :- s()."
    ]


def test_the_modulo_is_percent_in_molly_and_backslash_elsewhere():
    molly = parse_source("r(N, X % 2) :- q(N, X); // a comment\n", "m.ded", "molly")
    assert molly.program.rules[0].head.args[0].op == "%"
    # outside Molly % begins a comment, as in clingo and the papers' files: the modulo is clingo's \
    (rule,) = parse_program("r(X \\ 2) :- q(X). % a comment").rules
    assert rule.head.args[0].op == "%"


EXPRESSIONS = st.recursive(
    st.one_of(st.sampled_from([Variable("X"), Variable("Y")]),
              st.integers(-5, 5).map(lambda n: Constant(clingo.Number(n)))),
    lambda inner: st.one_of(
        st.tuples(st.sampled_from(["+", "-", "*", "/", "%"]), inner, inner).map(lambda t: Arithmetic(*t)),
        inner.map(lambda t: Arithmetic("-", None, t)),
    ),
    max_leaves=8,
)


def _value(term, x: int, y: int) -> int | None:
    """clingo's value of an expression at X = x, Y = y (None: undefined)."""
    if isinstance(term, Variable):
        return x if term.name == "X" else y
    if isinstance(term, Constant):
        return term.value.number
    right = _value(term.right, x, y)
    if term.left is None:
        return None if right is None else -right
    left = _value(term.left, x, y)
    if left is None or right is None or (term.op in "/%" and right == 0):
        return None
    if term.op in "/%":
        quotient = abs(left) // abs(right) * (1 if (left < 0) == (right < 0) else -1)
        return quotient if term.op == "/" else left - right * quotient
    return {"+": left + right, "-": left - right, "*": left * right}[term.op]


@settings(max_examples=60, deadline=None, derandomize=True)
@given(EXPRESSIONS)
def test_an_expression_reads_back_with_the_value_clingo_gives_it(expression):
    """Printed and read again, in Molly's dialect and in tplp2016's, an expression has clingo's value."""
    molly = parse_source(f"r(N, {expression}) :- q(N, X, Y);", "m.ded", "molly").program.rules[0]
    transparent = parse_program(transparent_text(parse_source(f"r(N, {expression}) :- q(N, X, Y);", "m.ded",
                                                              "molly")), "t.ded").rules[0]
    assert transparent == molly
    (read,) = molly.head.args
    ctl = clingo.Control(["--warn=none"])
    ctl.add("base", [], f"q(X, Y) :- X = -3..3, Y = -2..2.\nr(X, Y, {str(read).replace('%', chr(92))}) :- q(X, Y).")
    ctl.ground([("base", [])])
    got = {tuple(a.number for a in s.symbol.arguments[:2]): s.symbol.arguments[2].number
           for s in ctl.symbolic_atoms.by_signature("r", 3)}
    expected = {(x, y): _value(expression, x, y) for x in range(-3, 4) for y in range(-2, 3)}
    assert got == {k: v for k, v in expected.items() if v is not None}


def test_a_percent_modulo_outside_molly_is_explained():
    ((line, col, message),) = errors("r(X % 2) :- q(X).\ns(X) :- q(X).", "transparent")
    assert (line, col) == (2, 1)
    assert message.endswith("(the '%' on line 1 begins a comment: the modulo is written '\\' outside Molly's "
                            "dialect, where '%' is the modulo and comments are '//')")


def test_arithmetic_in_comparisons_and_body_atoms():
    assert rules("p(X) :- q(X, Y), r(X + 1), X * 2 < Y / 3.") == ["p(X) :- q(X, Y), r(X + 1), X * 2 < Y / 3."]


def test_an_unbound_variable_in_an_expression_is_reported_where_it_is():
    found = errors("p(X) :- q(X), r(Y + 1).\ns(Z + 1) :- q(X).")
    assert (1, 17, "unsafe variable 'Y' in the expression 'Y + 1' of 'r(Y + 1)' of rule 1: a variable inside an "
            "expression must be bound by another positive body atom, where it is an argument of its own (add one "
            "that binds 'Y')") in found
    assert any(line == 2 and col == 3 and "unsafe variable 'Z' (inside an expression) in the head" in m
               for line, col, m in found)


def test_a_variable_only_inside_an_expression_of_its_own_atom_is_unbound():
    # p(X + 1) cannot bind X: clingo cannot invert an expression
    assert [m.split(":")[0] for *_, m in errors("p(X) :- q(X + 1).")][-1].startswith("unsafe variable 'X'")


# ---------------------------------------------------------------------------
# Aggregates


@pytest.mark.parametrize("function", ["count", "sum", "min", "max"])
def test_aggregates_in_heads_of_every_kind(function):
    text = (f"a(C, {function}<M>) :- v(C, M).\nb(C, {function}<M>)@next :- v(C, M).\n"
            f"c(C, {function}<M * 2>)@async(N) :- v(C, M), n(N).")
    program = parse_program(text)
    assert [r.aggregates for r in program.rules] == [
        (Aggregate(function, Variable("M")),), (Aggregate(function, Variable("M")),),
        (Aggregate(function, Arithmetic("*", Variable("M"), Constant(clingo.Number(2)))),),
    ]
    assert [str(r) for r in program.rules][0] == f"a(C, {function}<M>) :- v(C, M)."
    analysis.check(program)


def test_aggregates_in_molly_and_located_notations():
    assert rules("tally(N, C, count<M>) :- vote(N, C, M);\nlow(N, min<-X>) :- v(N, X);", "molly") == [
        "tally(C, count<M>) :- vote(C, M).", "low(min<-X>) :- v(X)."
    ]
    assert rules("tally(#N, C, sum<M>) :- vote(#N, C, M).", "located") == ["tally(C, sum<M>) :- vote(C, M)."]


def test_an_aggregate_in_a_body_is_named():
    (found,) = errors("p(X) :- q(X), r(count<X>).")
    assert found[:2] == (1, 17) and found[2].startswith(
        "the aggregate 'count<X>' is in a rule body: aggregates are not supported in rule bodies, because"
    )


def test_an_unknown_aggregate_is_named():
    (found,) = errors("p(avg<X>) :- q(X).")
    assert found[2] == "'avg<X>' is no aggregate: an aggregate is count<X>, sum<X>, min<X>, max<X>"


def test_a_cycle_through_an_aggregate_is_not_stratifiable():
    (found,) = errors("total(count<X>) :- item(X).\nitem(N) :- total(N).")
    assert found[:2] == (1, 7)
    assert found[2].startswith("the aggregate 'count<X>' over 'item' in rule 1 closes the cycle total → item → total")


def test_aggregation_raises_the_stratum_like_negation():
    program = parse_program("b(X) :- a(X).\nn(count<X>) :- b(X).")
    stratum, found = analysis.stratification(program)
    assert found == [] and stratum["n"] == stratum["b"] + 1


# ---------------------------------------------------------------------------
# `_` in a negated atom


def test_underscore_in_a_negated_atom_is_a_projection():
    for text in ("p(X) :- q(X), not r(X, _).", "p(X) :- q(X), not r(_, _)."):  # `_` twice: two variables
        analysis.check(parse_program(text))
    assert rules("unacked(N, M)@next :- sent(N, M), notin ack(N, M, _);", "molly") == [
        "unacked(M)@next :- sent(M), not ack(M, _)."
    ]


def test_underscore_elsewhere_than_a_body_atom_is_still_an_error():
    ((line, col, message),) = errors("p(X) :- q(X), X != _.")
    assert (line, col) == (1, 20) and message.startswith("'_' in the comparison")


# ---------------------------------------------------------------------------
# Body atoms at a step; Molly's time origin


def test_body_atoms_at_a_step_located_is_from_zero_molly_from_one():
    located = parse_source("pre(#N, P) :- log(#N, P), not bcast(#N, P)@0.", "l.ded", "located")
    molly = parse_source("pre(N, P) :- log(N, P), notin bcast(N, P)@1;", "m.ded", "molly")
    assert [b.step for b in located.program.rules[0].body] == [None, 0]
    assert located.program.rules == molly.program.rules
    assert str(molly.program.rules[0]) == "pre(P) :- log(P), not bcast(P)@0."


def test_molly_facts_count_time_from_one():
    source = parse_source("members(a, b)@1;\nbegin(a, x)@3;\nm(N, X)@next :- m(N, X);", "m.ded", "molly")
    assert [(str(f), f.step) for f in source.facts[clingo.Function("a")]] == [("members(b)@0", 0), ("begin(x)@2", 2)]


def test_molly_time_zero_is_an_error_with_its_place():
    found = errors("p(a, 1)@0;\nq(N) :- r(N), s(N)@0;", "molly")
    assert [(line, col) for line, col, _ in found] == [(1, 8), (2, 19)]
    assert all(m.startswith("'@0' is no time in Molly's dialect: Molly counts time from 1") for *_, m in found)


def test_a_step_in_the_transparent_notation_says_where_it_may_be_written():
    ((_, col, message),) = errors("p(X) :- q(X)@1.", "transparent")
    assert col == 13 and "written only in located and Molly programs" in message


# ---------------------------------------------------------------------------
# Global rules


MOLLY_ASSERTIONS = """\
decision(A, X, D)@next :- decision(A, X, D);
log(N, X)@next :- log(N, X);
post(X) :- decision(A1, X, _), decision(A2, X, _), A1 != A2;
pre(X, P) :- log(P, X), notin bcast(P, X)@1;
fine(X) :- pre(X, _), notin post(X);
"""


def test_rules_that_read_several_nodes_are_global():
    source = parse_source(MOLLY_ASSERTIONS, "inv.ded", "molly")
    program = source.program
    assert [(r.kind, str(r)) for r in program.rules[2:]] == [
        (RuleKind.GLOBAL, "post(X) :- decision(A1, X, _), decision(A2, X, _), A1 != A2."),
        (RuleKind.GLOBAL, "pre(X, P) :- log(P, X), not bcast(P, X)@0."),  # its head is not at the body's node
        (RuleKind.GLOBAL, "fine(X) :- pre(X, _), not post(X)."),  # it reads global relations
    ]
    assert program.global_relations() == {"post": 1, "pre": 2, "fine": 1}
    # a located relation keeps its arity: decision/2 at every node, read with its location by global rules
    assert program.schema()["decision"] == 2 and "post" not in source.columns
    analysis.check(program)
    assert [[r.head.predicate for r in s] for s in analysis.global_strata(program)] == [["post", "pre"], ["fine"]]


def test_a_global_rule_reads_the_location_column_first():
    source = parse_source("q(X, #L) :- r(#L, X).\nboth(X) :- q(X, #A), q(X, #B), A != B.", "l.ded", "located")
    assert str(source.program.rules[1]) == "both(X) :- q(A, X), q(B, X), A != B."


def test_a_marked_head_at_another_node_stays_an_error():
    found = errors("p(#M, X) :- q(#L, X), n(#L, M).", "located")
    assert "a deductive or @next rule keeps its location (tr2009 §6.2)" in found[0][2]


def test_a_global_relation_read_by_a_node_is_an_error():
    found = errors("post(X) :- d(A, X), d(B, X), A != B;\nalarm(N, X)@next :- d(N, X), post(X);", "molly")
    assert [(line, col) for line, col, _ in found] == [(2, 30)]
    assert found[0][2].startswith("rule 2 (inductive) reads 'post', a global relation")


def test_a_global_relation_is_neither_kept_nor_sent():
    # d is derived: its facts at another node are not known before the run (a static d is copied to every
    # node instead, as Molly reads its one database: test_molly_programs.py)
    # in Molly's dialect the rule writes post at the node X names, in the step the body holds: a lock-step rule
    # (test_lockstep.py), no error
    source = parse_source("post(X) :- d(A, X), d(B, X);\npost(X)@next :- post(X);\nd(A, X) :- e(A, X);", "p.ded", "molly")
    analysis.check(source.program)
    assert [r.kind for r in source.program.rules][0] is RuleKind.LOCKSTEP
    # without Molly's dialect, the rule that keeps it is the error
    found = errors("post(X) :- d(A, X), d(B, X).\npost(X)@next :- post(X).\nd(A, X) :- e(A, X).", "located")
    assert found[0][2].startswith("@next rule 2 derives 'post', a global relation")


def test_convert_refuses_a_global_rule():
    source = parse_source(MOLLY_ASSERTIONS, "inv.ded", "molly")
    with pytest.raises(ValueError, match="reads several nodes .* cannot write it"):
        transparent_text(source)


# ---------------------------------------------------------------------------
# Printing back


@pytest.mark.parametrize(
    "text",
    [
        "tally(N, C, count<M>) :- vote(N, C, M), C > 0;",
        "t(H, I, T - 1)@next :- t(H, I, T), T > 1, I % 2 = 0;",
        "low(N, min<-X>)@async :- v(M, X), peer(M, N);",
        "s(N, X) :- q(N, X), notin r(N, X, _);",
    ],
)
def test_molly_to_transparent_to_located_round_trips(text):
    molly = parse_source(text, "m.ded", "molly")
    transparent = parse_program(transparent_text(molly), "t.ded")
    assert transparent.rules == molly.program.rules
    located = parse_source(located_text(transparent), "l.ded", "located")
    assert located.program.rules == molly.program.rules


# ---------------------------------------------------------------------------
# Several files, includes, recovery


def test_several_files_are_one_program_numbered_on(tmp_path):
    (tmp_path / "proto.ded").write_text("log(N, X)@next :- log(N, X);\nlog(a, hi)@1;\n")
    (tmp_path / "inv.ded").write_text("post(X) :- log(A, X), log(B, X), A != B;\n")
    program, instance, _ = pipeline.load([tmp_path / "proto.ded", tmp_path / "inv.ded"])
    assert [(r.number, r.kind) for r in program.rules] == [(1, RuleKind.INDUCTIVE), (3, RuleKind.GLOBAL)]
    assert instance is not None and program.filename.endswith("proto.ded")


def test_an_include_is_found_next_to_the_includer_then_next_to_the_first_file(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "lib.ded").write_text("seen(N, X) :- log(N, X);\n")
    (tmp_path / "sub" / "inv.ded").write_text('include "lib.ded";\npost(X) :- seen(A, X), seen(B, X), A != B;\n')
    (tmp_path / "main.ded").write_text("log(N, X)@next :- log(N, X);\n")
    program, _, _ = pipeline.load([tmp_path / "main.ded", tmp_path / "sub" / "inv.ded"], dialect="molly")
    assert {r.head.predicate for r in program.rules} == {"log", "seen", "post"}


def test_every_problem_of_every_file_is_reported_at_once(tmp_path):
    (tmp_path / "lib.ded").write_text("a(N, X :- b(N, X);\nc(N, Y) :- b(N, X);\n")
    (tmp_path / "main.ded").write_text('include "lib.ded";\np(N, X) :- q(N, X) r(N, X);\ns(N, Y) :- q(N, X);\n')
    (tmp_path / "more.ded").write_text("t(N, Z) :- q(N, X);\nu(N)@0;\n")
    with pytest.raises(DiagnosticError) as info:
        pipeline.load([tmp_path / "main.ded", tmp_path / "more.ded"], dialect="molly")
    found = {(d.filename.rsplit("/", 1)[-1] if d.span.source is None else d.span.source[0].rsplit("/", 1)[-1],
              d.span.line, d.code) for d in info.value.diagnostics if d.is_error}
    assert found == {
        ("lib.ded", 1, "syntax"), ("lib.ded", 2, "unsafe-variable"),
        ("main.ded", 2, "syntax"), ("main.ded", 3, "unsafe-variable"),
        ("more.ded", 1, "unsafe-variable"), ("more.ded", 2, "syntax"),
    }


# ---------------------------------------------------------------------------
# The command line: several files and --eot


def test_check_takes_several_files_and_count_takes_eot(tmp_path):
    (tmp_path / "proto.ded").write_text("log(N, X)@next :- log(N, X);\nlog(a, hi)@1;\nlog(b, hi)@2;\n")
    (tmp_path / "inv.ded").write_text("post(X) :- log(A, X), log(B, X), A != B;\n")
    runner = CliRunner()
    files = [str(tmp_path / "proto.ded"), str(tmp_path / "inv.ded")]
    done = runner.invoke(app, ["check", *files])
    assert done.exit_code == 0, done.output
    assert "rule  4 global       post(X) :- log(A, X), log(B, X), A != B." in done.output
    with_eot = runner.invoke(app, ["compile", *files, "--eot", "3"])
    with_horizon = runner.invoke(app, ["compile", *files, "--horizon", "2"])
    assert with_eot.exit_code == 0 and with_eot.output == with_horizon.output
    both = runner.invoke(app, ["compile", *files, "--eot", "3", "-T", "2"])
    neither = runner.invoke(app, ["compile", *files])
    assert both.exit_code == neither.exit_code == 2
    assert "--eot 3 is --horizon 2: give one of them, not both" in both.output
    assert "--horizon T (steps 0..T), or Molly's end of time --eot N (T = N-1)" in neither.output
