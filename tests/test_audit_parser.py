"""Findings of the parser/analysis audit, one group per finding, each pinned by a test.

1. `not` is clingo's keyword: a `.facts` input may not use it as a node name or
   a constant (as a `.ded` program may not), and a JSON "not" is the string.
2. Dialect detection: `notin(` is a relation, not Molly's negation; a program
   detected as Molly that does not parse says how it was read.
3. An output relation that no rule derives is a warning (an input relation is
   a legitimate output, jcss2014 §2.5.5); a repeated output relation is listed once.
4. The shipped examples check without warnings.
"""

from __future__ import annotations

import json

import clingo
import pytest
from typer.testing import CliRunner

from dedalus2asp import inspect, pipeline
from dedalus2asp.lang import analysis
from dedalus2asp.cli import app
from dedalus2asp.lang.diagnostics import DiagnosticError, Severity, format_diagnostic
from dedalus2asp.lang.facts import json_value, parse_facts, parse_json
from dedalus2asp.lang.parser import detect_dialect, parse_program, parse_source
from dedalus2asp.bounds import Bounds, Semantics

from conftest import EXAMPLES

runner = CliRunner()

PROGRAM = ".output q.\nq(X)@next :- q(X).\n"


def errors(text: str, parse) -> list[tuple[int, int, str]]:
    with pytest.raises(DiagnosticError) as info:
        parse(text)
    return [(d.line, d.col, d.message) for d in info.value.diagnostics]


# ---------------------------------------------------------------------------
# 1. `not` in inputs


def test_not_as_a_node_name_in_facts_is_an_error():
    ((line, col, message),) = errors("a { q(1). }\nnot { q(1). }\n", parse_facts)
    assert (line, col) == (2, 1)
    assert "'not' is a keyword" in message and '"not"' in message


def test_not_as_a_constant_in_facts_is_an_error():
    found = errors("a { q(not). r(1, not). }", parse_facts)
    assert [(line, col) for line, col, _ in found] == [(1, 7), (1, 18)]
    for _, _, message in found:
        assert "'not' is a keyword: it cannot be a constant" in message and '"not"' in message


def test_every_not_of_a_facts_file_is_reported():
    assert [(l, c) for l, c, _ in errors("a { q(not). }\nnot { r(not). }\nq(not).\n", parse_facts)] == [
        (1, 7), (2, 1), (2, 9), (3, 3)
    ]


def test_names_that_start_with_not_and_the_quoted_string_are_constants():
    instance = parse_facts('"not" { q(nothing, "not", not_, notin). }')
    (node,) = instance.network
    assert node == clingo.String("not")
    (fact,) = instance.facts[node]
    assert fact.args == (clingo.Function("nothing"), clingo.String("not"), clingo.Function("not_"), clingo.Function("notin"))


def test_located_facts_reject_not_too():
    ((_, col, message),) = errors("q(not, 1).", lambda t: parse_facts(t, columns={"q": 0}))
    assert col == 3 and "'not' is a keyword" in message


@pytest.mark.parametrize("facts", ["not { q(1). }\n", "a { q(not). }\n"])
def test_the_cli_reports_not_in_facts_with_status_2(tmp_path, facts):
    (tmp_path / "P.ded").write_text(PROGRAM)
    (tmp_path / "bad.facts").write_text(facts)
    result = runner.invoke(
        app, ["count", str(tmp_path / "P.ded"), "--input", str(tmp_path / "bad.facts"), "--horizon", "1", "--json"]
    )
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert f"{tmp_path / 'bad.facts'}:1:" in result.output and "'not' is a keyword" in result.output


def test_json_not_is_the_string_not():
    assert json_value("not") == clingo.String("not")
    assert json_value("nothing") == clingo.Function("nothing")
    instance = parse_json('{"nodes": {"not": {"q": [["not", "nothing"]]}}}')
    (node,) = instance.network
    assert node == clingo.String("not")
    (fact,) = instance.facts[node]
    assert fact.args == (clingo.String("not"), clingo.Function("nothing"))


def test_located_json_not_is_the_string_not():
    instance = parse_json('{"facts": {"q": [["not", "not"]]}}', columns={"q": 0})
    assert instance.network == (clingo.String("not"),)
    assert instance.facts[clingo.String("not")][0].args == (clingo.String("not"),)


def test_json_and_facts_with_the_string_not_agree():
    a = parse_json('{"nodes": {"not": {"q": [["not"]]}}}')
    b = parse_facts('"not" { q("not"). }')
    assert {n: set(fs) for n, fs in a.facts.items()} == {n: set(fs) for n, fs in b.facts.items()}


def test_a_json_input_with_not_counts_under_clingo(tmp_path):
    (tmp_path / "P.ded").write_text(PROGRAM)
    (tmp_path / "in.json").write_text(json.dumps({"nodes": {"not": {"q": [["not"]]}, "a": {"q": [["x"]]}}}))
    result = runner.invoke(
        app, ["count", str(tmp_path / "P.ded"), "--input", str(tmp_path / "in.json"), "--horizon", "1", "--json"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["models"] == 1
    found = inspect.enumerate_models(
        pipeline.prepare(tmp_path / "P.ded", tmp_path / "in.json", Bounds(1, Semantics.CAUSAL_FINITE)).compiled
    )
    (model,) = found.models
    assert (clingo.String("not"), 1, "q", (clingo.String("not"),)) in model.trace


# ---------------------------------------------------------------------------
# 2. Dialect detection


NOTIN_RELATION = ".output p.\np(X) :- q(X), notin(X).\n"


@pytest.mark.parametrize("text", [
    NOTIN_RELATION,
    "p(X) :- q(X), not notin(X).",
    "p(notin) :- q(X), r(X).",
    "p(X, notin) :- q(X).",
    "notin(X)@next :- notin(X).",
    "p :- notin.",
    "p(X) :- q(X), include(X).",
    "p(X) :- q(X), clock(X, Y, Z).",
    "persist(X) :- q(X).\npersist[q, 1].",
    "p(X)@async(Y) :- q(X), async(Y).",
])
def test_relations_named_like_molly_keywords_read_as_transparent(text):
    assert detect_dialect(text) == "transparent"
    parse_source(text)  # parses


@pytest.mark.parametrize("text", [
    "p(L, X) :- q(L, X), notin r(L, X);",
    "p(L, X) :- q(L, X), notin R(L, X);",
    "p(L, X) :- q(L, X),\n  notin\n  r(L, X);",
])
def test_notin_before_an_atom_is_molly(text):
    assert detect_dialect(text) == "molly"


def test_a_notin_relation_compiles_with_the_default_dialect(tmp_path):
    (tmp_path / "P.ded").write_text(NOTIN_RELATION)
    (tmp_path / "in.facts").write_text("a { q(1). q(2). notin(2). }\n")
    result = runner.invoke(app, ["cron", str(tmp_path / "P.ded"), "--input", str(tmp_path / "in.facts"),
                                 "--horizon", "1", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["certain"] == ["p(2)"]


def test_a_program_read_as_molly_that_does_not_parse_says_so():
    text = "p(L, X) :- q(L, X), notin r(L, X);\ns(X) :- p(X) t(X).\n"
    with pytest.raises(DiagnosticError) as info:
        parse_source(text, "m.ded")
    (first, *_) = info.value.diagnostics
    shown = format_diagnostic(first)
    assert "read as Molly" in shown and "--dialect transparent" in shown
    (note,) = first.notes
    assert note.severity is Severity.NOTE and (note.line, note.col) == (1, 21)  # points at the `notin`


def test_a_program_read_as_molly_on_request_gets_no_note():
    with pytest.raises(DiagnosticError) as info:
        parse_source("p(L, X) :- q(L, X), notin r(L, X);\ns(X) :- p(X) t(X).\n", "m.ded", "molly")
    assert not any(d.notes for d in info.value.diagnostics)


def test_the_cli_tells_how_a_program_was_read(tmp_path):
    (tmp_path / "m.ded").write_text("p(L, X) :- q(L, X), notin r(L, X);\ns(X) :- p(X) t(X).\n")
    result = runner.invoke(app, ["check", str(tmp_path / "m.ded")])
    assert result.exit_code == 2
    assert "read as Molly" in result.output and "--dialect transparent" in result.output


# ---------------------------------------------------------------------------
# 3. Output relations


def test_an_output_relation_derived_by_no_rule_is_a_warning():
    program = parse_program(".output q.\np(X) :- q(X).\n", "P.ded")
    (warning,) = analysis.check(program)
    assert warning.severity is Severity.WARNING and warning.code == "output-not-derived"
    assert (warning.line, warning.col) == (1, 9)
    assert "'q' is derived by no rule" in warning.message and "input relation" in warning.message


def test_an_output_relation_used_nowhere_is_still_an_error():
    with pytest.raises(DiagnosticError) as info:
        analysis.check(parse_program(".output r.\np(X) :- q(X).\n"))
    (error,) = info.value.diagnostics
    assert error.is_error and "used nowhere" in error.message


def test_an_input_relation_as_output_gives_its_facts_at_the_last_step(tmp_path):
    (tmp_path / "P.ded").write_text(".output q.\np(X) :- q(X).\n")
    (tmp_path / "in.facts").write_text("a { q(1). } b { q(2). }\n")
    for args in ([], ["--output-relations", "q"]):
        result = runner.invoke(app, ["cron", str(tmp_path / "P.ded"), "--input", str(tmp_path / "in.facts"),
                                     "--horizon", "1", "--json", *args])
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["certain"] == ["q(1)", "q(2)"]


def test_a_repeated_output_relation_is_listed_once():
    program = parse_program(".output p.\n.output p, q.\n.output q.\np(X) :- q(X).\nq(1) :- q(1).\n")
    assert program.output_relations == ("p", "q")
    assert analysis.report(program).outputs == ("p", "q")
    located = parse_source(".output p;\n.output p;\np(L, X) :- q(L, X), notin r(L, X);\n")
    assert located.program.output_relations == ("p",)


def test_check_lists_a_repeated_output_relation_once(tmp_path):
    (tmp_path / "P.ded").write_text(".output p.\n.output p.\np(X) :- q(X).\n")
    result = runner.invoke(app, ["check", str(tmp_path / "P.ded")])
    assert result.exit_code == 0, result.output
    assert "output relations: p\n" in result.stdout


# ---------------------------------------------------------------------------
# 4. The examples


def test_named_anonymous_variables_are_not_singletons_but_are_variables():
    program = parse_program("p(X) :- q(X, _V), r(_V, _W).")
    assert analysis.check(program) == []
    with pytest.raises(DiagnosticError):  # `_V` is a variable like any other: it must be bound
        analysis.check(parse_program("p(X, _V) :- q(X)."))


@pytest.mark.parametrize("path", sorted(EXAMPLES.rglob("*.ded")), ids=lambda p: str(p.relative_to(EXAMPLES)))
def test_every_example_checks_without_warnings(path):
    result = runner.invoke(app, ["check", str(path)])
    assert result.exit_code == 0, result.output
    # check takes no input: a Molly program whose own facts are not all its input (molly/broadcast.ded
    # takes rmessage from broadcast.facts) gets no "never given" warning there
    assert [line for line in result.output.splitlines() if ": warning: " in line] == []
