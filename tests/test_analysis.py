"""Static analysis: safety, arities, stratification, outputs, input checks, warnings, the report."""

from __future__ import annotations

from pathlib import Path

import pytest

from dedalus2asp.lang import analysis
from dedalus2asp.lang.diagnostics import DiagnosticError, Severity, rule_name
from dedalus2asp.lang.facts import load_instance, parse_facts
from dedalus2asp.lang.parser import load_program, parse_program

ROOT = Path(__file__).resolve().parent.parent


def problems(text: str, facts: str | None = None) -> list[tuple[int, int, str, str]]:
    """(line, col, code, message) of every error `check` raises."""
    program = parse_program(text, "p.ded")
    instance = parse_facts(facts, "h.facts") if facts is not None else None
    with pytest.raises(DiagnosticError) as info:
        analysis.check(program, instance)
    return [(d.line, d.col, d.code, d.message) for d in info.value.diagnostics if d.is_error]


def warnings(text: str, facts: str | None = None) -> list[tuple[str, int, int, str, str]]:
    """(file, line, col, code, message) of the warnings of a well-formed program."""
    program = parse_program(text, "p.ded")
    instance = parse_facts(facts, "h.facts") if facts is not None else None
    found = analysis.check(program, instance)
    assert all(d.severity is Severity.WARNING for d in found)
    return [(d.filename, d.line, d.col, d.code, d.message) for d in found]


# ---------------------------------------------------------------------------
# Safety


def test_safe_program_passes():
    assert warnings("p(X, Y) :- q(X), r(Y), not s(X, Y), X != Y.\nt(Y)@async(X) :- q(X), r(Y).") == []


@pytest.mark.parametrize(
    "text, col, message",
    [
        ("p(X, Z) :- q(X).", 6,
         "unsafe variable 'Z' in the head 'p(X, Z)' of rule 1: it occurs in no positive body atom "
         "(add a positive atom that binds 'Z')"),
        ("p(X) :- q(X), not r(X, Z).", 24,
         "unsafe variable 'Z' in the negative literal 'not r(X, Z)' of rule 1: it occurs in no positive body atom "
         "(add a positive atom that binds 'Z')"),
        ("p(X) :- q(X), X < Z.", 19,
         "unsafe variable 'Z' in the comparison 'X < Z' of rule 1: it occurs in no positive body atom "
         "(add a positive atom that binds 'Z')"),
        ("p(X)@async(Y) :- q(X).", 12,
         "the addressee 'Y' of rule 1 occurs in no positive body atom: a message needs a known destination "
         "(bind 'Y' in a positive body atom, e.g. node(Y))"),
        ("p(X) | Y :- q(X), not n(Y).", 8,
         "the addressee 'Y' of rule 1 occurs in no positive body atom: a message needs a known destination "
         "(bind 'Y' in a positive body atom, e.g. node(Y))"),
    ],
)
def test_unsafe_variable(text, col, message):
    found = problems(text)
    assert found[0] == (1, col, "unsafe-variable", message)


@pytest.mark.parametrize(
    "text, col, where",
    [
        ("p(_) :- q(X).", 3, "head 'p(_)'"),
        ("p(X) :- q(X), X != _.", 20, "comparison 'X != _'"),
        ("p(X)@async(_) :- q(X).", 12, "addressee"),
    ],
)
def test_anonymous_variable_outside_positive_atoms(text, col, where):
    assert problems(text) == [
        (1, col, "anonymous-variable",
         f"'_' in the {where} of rule 1: an anonymous variable may only stand in a body atom "
         "(name it, and bind it in a positive atom)")
    ]


def test_anonymous_variable_in_a_positive_atom_is_fine():
    assert warnings("p(X) :- q(X, _), r(_, _).") == []


def test_anonymous_variable_in_a_negated_atom_is_a_projection():
    # not r(X, _): no r(X, v) holds; `_` twice is two variables
    assert warnings("p(X) :- q(X), not r(X, _), not s(_, _).") == []


def test_a_variable_of_a_negative_literal_does_not_bind():
    # Y occurs twice, both times outside the positive atoms
    found = problems("p(X, Y) :- q(X), not r(Y).")
    assert [(col, code) for _, col, code, _ in found] == [(6, "unsafe-variable"), (24, "unsafe-variable")]


def test_unsafe_variable_is_reported_once_per_place():
    found = problems("p(Z, Z) :- q(X), not r(Z, Z).")
    assert [col for _, col, _, _ in found] == [3, 24]


def test_rule_without_positive_atom_and_without_variables_is_safe():
    assert warnings("covered() :- not missing().\nmissing() :- v(X), not m(X).\nm(X) :- v(X).") == []


def test_safety_names_the_persist_macro():
    found = problems("p(X) :- q(X).\npersist[p, d, 1].\nd(X) :- q(X), not p(Y).")
    assert found == [
        (3, 21, "unsafe-variable",
         "unsafe variable 'Y' in the negative literal 'not p(Y)' of rule 3: it occurs in no positive body atom "
         "(add a positive atom that binds 'Y')")
    ]
    (rule,) = [r for r in parse_program("persist[p, d, 1].").rules]
    assert rule_name(rule) == "rule 1 (persist[p, d, 1])"


# ---------------------------------------------------------------------------
# Arities


def test_arity_clash_with_a_note_at_the_first_use():
    program = parse_program("p(X) :- q(X).\nr(X) :- q(X), p(X, X).", "p.ded")
    with pytest.raises(DiagnosticError) as info:
        analysis.check(program)
    (d,) = info.value.diagnostics
    assert (d.code, d.line, d.col) == ("arity", 2, 15)
    assert d.message == (
        "relation 'p' has 2 arguments here but 1 argument where it is first used; "
        "a relation has one arity (rename one of them, or fix the arguments)"
    )
    (note,) = d.notes
    assert (note.severity, note.line, note.col, note.span.end_col) == (Severity.NOTE, 1, 1, 5)
    assert note.message == "'p' is first used here, with 1 argument"


def test_first_use_is_in_source_order_within_a_rule():
    # the negative literal comes first in the text: the positive atom is the clash
    found = problems("p(X) :- s(X), not q(X, X), q(X).")
    assert [(line, col) for line, col, _, _ in found] == [(1, 28)]


def test_every_arity_clash_is_reported():
    found = problems("p(X) :- q(X).\np(X, Y) :- q(X), q(Y).\nr() :- p(X, X, X), q().")
    assert [(line, col) for line, col, code, _ in found if code == "arity"] == [(2, 1), (3, 8), (3, 20)]


def test_nullary_atoms_with_and_without_parentheses_have_one_arity():
    assert warnings("done :- not missing().\nmissing() :- v(X), not m(X).\nm(X) :- v(X).\n.output done.") == []


def test_input_arity_error_points_at_the_fact_with_a_note_in_the_program():
    program = parse_program("r(X) :- e(X, Y), e(Y, X).", "p.ded")
    instance = parse_facts("a { e(1, 2, 3). }\nb { e(4, 5, 6). }", "h.facts")
    with pytest.raises(DiagnosticError) as info:
        analysis.check(program, instance)
    (d,) = [d for d in info.value.diagnostics if d.is_error]  # once per relation
    assert (d.filename, d.line, d.col, d.code) == ("h.facts", 1, 5, "input-arity")
    assert d.message == (
        "input fact 'e(1, 2, 3)' has 3 arguments but the program uses 'e' with 2 arguments "
        "(the input and the program must agree on the arity)"
    )
    assert [(n.filename, n.line, n.col, n.message) for n in d.notes] == [
        ("p.ded", 1, 9, "'e' is used here, with 2 arguments")
    ]


# ---------------------------------------------------------------------------
# Stratification (tplp2016 Def. 4.1)


def test_strata_of_a_stratifiable_program():
    program = parse_program(
        "reach(X) :- start(X).\n"
        "reach(Y) :- reach(X), e(X, Y).\n"
        "unreach(X) :- v(X), not reach(X).\n"
        "some() :- unreach(X).\n"
        "all() :- not some().\n"
        "copy(X) :- reach(X).\n"
    )
    stratum, found = analysis.stratification(program)
    assert found == []
    assert stratum == {"reach": 1, "copy": 1, "unreach": 2, "some": 2, "all": 3}
    assert [[r.number for r in s] for s in analysis.strata(program)] == [[1, 2, 6], [3, 4], [5]]


def test_positive_recursion_shares_a_stratum():
    program = parse_program("a(X) :- b(X).\nb(X) :- a(X).\nb(X) :- e(X).\nc(X) :- e(X), not a(X).")
    stratum, found = analysis.stratification(program)
    assert found == []
    assert stratum == {"a": 1, "b": 1, "c": 2}


def test_negative_cycle_through_two_relations():
    found = problems(
        "marked(U) :- start(U).\n"
        "marked(U) :- missing(), vert(U).\n"
        "vert(U) :- r(U, V), r(V, U).\n"
        "missing() :- vert(U), not marked(U).\n"
    )
    assert found == [
        (4, 27, "not-stratifiable",
         "negation of 'marked' in rule 4 closes the cycle missing → marked → missing; "
         "deductive rules must be stratifiable (make one of the rules on the cycle @next)")
    ]


def test_negative_cycle_through_three_relations_in_order():
    found = problems("a(X) :- e(X), not b(X).\nb(X) :- c(X).\nc(X) :- a(X).")
    assert [m for *_, m in found] == [
        "negation of 'b' in rule 1 closes the cycle a → b → c → a; "
        "deductive rules must be stratifiable (make one of the rules on the cycle @next)"
    ]


def test_negation_of_itself():
    ((line, col, code, message),) = problems("p(X) :- q(X), not p(X).")
    assert (line, col, code) == (1, 19, "not-stratifiable")
    assert "closes the cycle p → p;" in message


def test_every_negation_on_a_cycle_is_reported():
    found = problems("a(X) :- e(X), not b(X).\nb(X) :- e(X), not a(X).")
    assert [(line, m.split(";")[0]) for line, _, _, m in found] == [
        (1, "negation of 'b' in rule 1 closes the cycle a → b → a"),
        (2, "negation of 'a' in rule 2 closes the cycle b → a → b"),
    ]


def test_recursion_through_negation_via_next_is_fine():
    program = parse_program(
        "a(X)@next :- e(X), not b(X).\n"
        "b(X) :- a(X).\n"
        "c(X)@async(Y) :- e(X), n(Y), not c(X).\n"
        "d(X) :- e(X), not d2(X).\n"
        "d2(X)@next :- d(X).\n"
    )
    assert analysis.check(program) == []
    stratum, found = analysis.stratification(program)
    assert found == []
    assert stratum == {"b": 1, "d": 1}


def test_deductive_rules_of_a_relation_also_sent_asynchronously():
    # only the deductive rules matter: marked@async does not join the cycle
    program = parse_program(
        "marked(U)@async(Y) :- start(U), node(Y).\nmarked(V) :- marked(U), r(U, V).\nm() :- v(U), not marked(U).\nv(U) :- r(U, _)."
    )
    stratum, found = analysis.stratification(program)
    assert found == []
    assert stratum == {"marked": 1, "m": 2, "v": 1}


# ---------------------------------------------------------------------------
# .output


def test_output_not_derived_is_a_warning():
    """An input relation is a legitimate output (its facts at the last step)."""
    found = warnings(".output reach, r.\nreach(X) :- r(X, _).")
    assert found == [
        ("p.ded", 1, 16, "output-not-derived",
         "output relation 'r' is derived by no rule: its output facts are its input facts, "
         "which is fine if 'r' is an input relation")
    ]


def test_output_options_are_checked_as_output_directives():
    program = parse_program(".output reach.\nreach(X) :- r(X, _).", "p.ded")
    assert analysis.outputs(program, ("reach", "reach")) == []
    (warning,) = analysis.outputs(program, ("r", "r"))
    assert warning.severity is Severity.WARNING and "'r' (--output) is derived by no rule" in warning.message
    (error,) = analysis.outputs(program, ("Reach",))
    assert error.is_error and error.message == (
        "output relation 'Reach' (--output) is derived by no rule and used nowhere (did you mean 'reach'?)"
    )


def test_output_not_derived_and_not_used_with_a_suggestion():
    found = problems(".output Reach, nothing.\nreach(X) :- r(X, _).")
    assert [m for *_, m in found] == [
        "output relation 'Reach' is derived by no rule and used nowhere (did you mean 'reach'?)",
        "output relation 'nothing' is derived by no rule and used nowhere "
        "(check its spelling, or add a rule that derives it)",
    ]


def test_output_derived_by_an_async_or_next_rule_is_fine():
    assert warnings(".output got, kept.\ngot(X)@async(Y) :- e(X), n(Y).\nkept(X)@next :- e(X).") == []


# ---------------------------------------------------------------------------
# Warnings


def test_singleton_variable():
    assert warnings("p(X) :- q(X, Y), r(_Z).") == [
        ("p.ded", 1, 14, "singleton-variable", "variable 'Y' occurs only once in rule 1 (write '_' if that is intended)")
    ]


def test_relation_neither_derived_nor_given():
    found = warnings("p(X) :- q(X), not r(X), s(X).", "a { q(1). S(2). }")
    assert found == [  # 'r' is read only under negation: see test_a_relation_read_only_under_negation_may_be_empty
        ("p.ded", 1, 25, "empty-relation",
         "relation 's' is neither derived by a rule nor given in the input h.facts: it is always empty "
         "(did you mean 'S'?)"),
        ("h.facts", 1, 11, "unused-input",
         "input relation 'S' is not used by the program; its facts are ignored (did you mean 's'?)"),
    ]


def test_unused_input_relation():
    found = warnings("p(X) :- edge(X, _).", "a { edge(1, 2). edges(1, 2). } b { colour(b, red). }")
    assert [(f, line, col, code, m) for f, line, col, code, m in found] == [
        ("h.facts", 1, 17, "unused-input",
         "input relation 'edges' is not used by the program; its facts are ignored (did you mean 'edge'?)"),
        ("h.facts", 1, 36, "unused-input",
         "input relation 'colour' is not used by the program; its facts are ignored"),
    ]


def test_no_input_warnings_without_an_input():
    assert warnings("p(X) :- q(X), not r(X).") == []


def test_warnings_come_with_errors():
    program = parse_program("p(X) :- q(X, Y), not p(X).", "p.ded")
    with pytest.raises(DiagnosticError) as info:
        analysis.check(program)
    assert [(d.severity, d.code) for d in info.value.diagnostics] == [
        (Severity.WARNING, "singleton-variable"),
        (Severity.ERROR, "not-stratifiable"),
    ]


def test_restrict_drops_unused_input_relations():
    program = parse_program("p(X) :- edge(X, _).")
    instance = parse_facts("top(1). a { edge(1, 2). colour(red). } b { }")
    restricted = analysis.restrict(instance, program)
    assert {str(n): [str(f) for f in fs] for n, fs in restricted.facts.items()} == {"a": ["edge(1, 2)"], "b": []}


# ---------------------------------------------------------------------------
# The report (tplp2016 Example 1)


def test_report_of_example_1():
    program = load_program(ROOT / "examples" / "tplp2016" / "ex1_reachability.ded")
    report = analysis.report(program)
    assert report.rules == (
        (1, "asynchronous", "marked(U)@async(Y) :- start(U), Node(Y)."),
        (2, "inductive", "marked(U)@next :- marked(U)."),
        (3, "deductive", "marked(V) :- marked(U), R(U, V)."),
        (4, "deductive", "vert(U) :- R(U, _V)."),
        (5, "deductive", "vert(U) :- R(_V, U)."),
        (6, "deductive", "missing() :- vert(U), not marked(U)."),
        (7, "deductive", "covered() :- not missing()."),
    )
    assert report.idb == {"marked": 1, "vert": 1, "missing": 0, "covered": 0}
    assert report.edb == {"start": 1, "Node": 1, "R": 2}
    assert [sorted(s) for s in report.strata] == [["marked", "vert"], ["missing"], ["covered"]]
    assert report.async_relations == {"marked": 1}
    assert report.positive is False
    assert report.outputs == ("covered",)
    assert report.warnings == ()  # its singleton variables are written _V


def test_report_as_dict():
    program = parse_program(".output p.\np(X) :- q(X, Y).\nr(X)@async(X) :- p(X).", "p.ded")
    assert analysis.report(program).as_dict() == {
        "rules": [
            {"number": 1, "kind": "deductive", "rule": "p(X) :- q(X, Y)."},
            {"number": 2, "kind": "asynchronous", "rule": "r(X)@async(X) :- p(X)."},
        ],
        "idb": ["p/1", "r/1"],
        "edb": ["q/2"],
        "strata": [["p"]],
        "async_relations": ["r/1"],
        "positive": True,
        "outputs": ["p"],
        "warnings": [
            {
                "file": "p.ded",
                "line": 2,
                "col": 14,
                "severity": "warning",
                "code": "singleton-variable",
                "message": "variable 'Y' occurs only once in rule 1 (write '_' if that is intended)",
            }
        ],
        "coordination": None,
    }


def test_report_of_a_bad_program_raises():
    with pytest.raises(DiagnosticError):
        analysis.report(parse_program("p(X) :- q(Y)."))


@pytest.mark.parametrize("path", sorted((ROOT / "examples").glob("*/*.ded")), ids=lambda p: p.stem)
def test_the_examples_are_well_formed(path):
    errors = [d for d in analysis.check(load_program(path)) if d.is_error]
    assert errors == []


def test_a_relation_read_only_under_negation_may_be_empty():
    """A program that asks whether a relation is empty (`not S()`) is given inputs without it: no warning.

    jcss2014 Alg. 2 with its empty input is such a program and input."""
    assert warnings("T() :- Id(_X), not S().", "a { Id(a). }") == []
    program = load_program(ROOT / "examples/jcss2014/alg2.ded")
    instance = load_instance(ROOT / "examples/jcss2014/alg2_empty.facts")
    assert [d.code for d in analysis.check(program, instance)] == []


def test_a_relation_read_positively_and_never_given_is_reported_where_it_is_read():
    """Read under negation in rule 1 and positively in rule 2: a typo or a missing input, reported at rule 2."""
    found = warnings("p(X) :- q(X), not r(X).\nt(X) :- q(X), r(X).", "a { q(1). }")
    assert found == [
        ("p.ded", 2, 15, "empty-relation",
         "relation 'r' is neither derived by a rule nor given in the input h.facts: it is always empty "
         "(give it facts in the input)"),
    ]
