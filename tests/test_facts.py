"""The input reader: the `.facts` and JSON forms of an input (a distributed database instance H, tplp2016 §3.3).

Located inputs are tested with their programs in tests/test_located.py.
"""

from __future__ import annotations

import clingo
import pytest

from dedalus2asp.lang.ast import Span
from dedalus2asp.lang.diagnostics import DiagnosticError
from dedalus2asp.lang.facts import load_instance, parse_facts, parse_json


def errors(text: str, parse=parse_facts) -> list[tuple[int, int, str]]:
    """(line, col, message) of every diagnostic that reading `text` raises."""
    with pytest.raises(DiagnosticError) as info:
        parse(text)
    return [(d.line, d.col, d.message) for d in info.value.diagnostics]


def sym(value) -> clingo.Symbol:
    return clingo.Number(value) if isinstance(value, int) else clingo.Function(value)


# ---------------------------------------------------------------------------
# Inputs: .facts


FACTS = """% top-level facts go to every node
node(a). node(b).
a { id(a). r(v1, v2). start(v1). }
b { id(b). r(v2, v3). S(). }
c { }
"""


def test_facts_nodes_and_top_level_facts():
    instance = parse_facts(FACTS)
    assert instance.network == (sym("a"), sym("b"), sym("c"))
    local = {str(n): sorted(map(str, fs)) for n, fs in instance.facts.items()}
    assert local == {
        "a": ["id(a)", "node(a)", "node(b)", "r(v1, v2)", "start(v1)"],
        "b": ["S()", "id(b)", "node(a)", "node(b)", "r(v2, v3)"],
        "c": ["node(a)", "node(b)"],
    }
    assert instance.schema() == {"node": 1, "id": 1, "r": 2, "start": 1, "S": 0}


def test_facts_empty_node_without_top_level_facts():
    instance = parse_facts("c { }\nd {}")
    assert instance.facts == {sym("c"): (), sym("d"): ()}


def test_facts_values_and_integer_nodes():
    instance = parse_facts('1 { v(x, 7, -2, "A \\"q\\""). }')
    (fact,) = instance.facts[clingo.Number(1)]
    assert fact.args == (sym("x"), clingo.Number(7), clingo.Number(-2), clingo.String('A "q"'))


def test_facts_nullary_with_and_without_parentheses():
    instance = parse_facts("a { S(). t. }")
    assert [(f.predicate, f.args) for f in instance.facts[sym("a")]] == [("S", ()), ("t", ())]


def test_facts_duplicates_are_merged_and_blocks_of_a_node_are_united():
    instance = parse_facts("a { r(1). r(1). } a { r(2). }")
    assert [str(f) for f in instance.facts[sym("a")]] == ["r(1)", "r(2)"]


def test_fact_span():
    instance = parse_facts("a {\n  r(1, 2).\n}")
    (fact,) = instance.facts[sym("a")]
    assert fact.span == Span(2, 3, 2, 11)


def test_facts_with_variables():
    assert errors("a { r(X). }\nb { r(y, Any). }", parse_facts) == [
        (1, 7, "input fact 'r(X)' has the variable 'X'; input facts are ground "
               "(write a constant: a lower-case name such as 'x', an integer or a string)"),
        (2, 10, "input fact 'r(y, Any)' has the variable 'Any'; input facts are ground "
                "(write a constant: a lower-case name such as 'any', an integer or a string)"),
    ]


def test_facts_with_mixed_arities():
    with pytest.raises(DiagnosticError) as info:
        parse_facts("r(1). r(1, 2).\na { r(3). }\nb { }")
    (d,) = info.value.diagnostics  # a top-level fact is in every node: reported once
    assert (d.line, d.col, d.code) == (1, 7, "arity")
    assert d.message == "input relation 'r' has 2 arguments in 'r(1, 2)' but 1 argument in 'r(1)'; a relation has one arity"
    assert [(n.line, n.col, n.message) for n in d.notes] == [(1, 1, "'r' has 1 argument here")]


def test_facts_without_a_node():
    for text in ("r(1).", "", "% nothing"):
        assert errors(text, parse_facts) == [
            (0, 0, "the input names no node: the network is the set of nodes that have a block, "
                   "e.g. 'a { }' (top-level facts go to every node, but there must be one)")
        ]


def test_facts_every_syntax_error_is_reported():
    text = "a { r(1) }\nb { r(2; 3). }\nc { r(4). s(. }\nd { r(5).\n"
    assert errors(text, parse_facts) == [
        (1, 10, "unexpected '}'; expected '.'"),
        (2, 8, "unexpected character ';' (separate values with ',')"),
        (3, 13, "unexpected '.'; expected ')', a name, a string, a variable or an integer"),
        (4, 3, "the block of node 'd' is not closed: add '}' at its end"),
    ]


def test_facts_braces():
    assert errors("{ r(1). }", parse_facts) == [(1, 1, "unexpected '{'; expected a node name before it, e.g. 'a { id(a). }'")]
    assert errors("a { r(1). } }", parse_facts) == [(1, 13, "unexpected '}': no block is open")]
    assert errors("a { b { } }", parse_facts)[0][:2] == (1, 5)


# ---------------------------------------------------------------------------
# Inputs: JSON


def test_json_input():
    instance = parse_json('{"nodes": {"a": {"id": [["a"]], "r": [["v1", "v2"], ["v2", 3]]}, "b": {}, "7": {"s": [[]]}}}')
    assert instance.network == (sym("a"), sym("b"), clingo.Number(7))
    assert [str(f) for f in instance.facts[sym("a")]] == ["id(a)", "r(v1, v2)", "r(v2, 3)"]
    assert instance.facts[sym("b")] == ()
    assert [str(f) for f in instance.facts[clingo.Number(7)]] == ["s()"]


def test_json_strings_that_are_not_names_stay_strings():
    instance = parse_json('{"nodes": {"a": {"r": [["Hello world", "x", "Y"]]}}}')
    (fact,) = instance.facts[sym("a")]
    assert fact.args == (clingo.String("Hello world"), sym("x"), clingo.String("Y"))


def test_json_and_facts_give_the_same_instance():
    a = parse_json('{"nodes": {"a": {"id": [["a"]], "r": [["v1", 2]]}, "b": {"id": [["b"]]}}}')
    b = parse_facts("a { id(a). r(v1, 2). } b { id(b). }")
    assert {n: set(fs) for n, fs in a.facts.items()} == {n: set(fs) for n, fs in b.facts.items()}


def test_json_syntax_error_is_located():
    assert errors('{"nodes": {"a": {"r": [["x"],]}}}', parse_json) == [(1, 30, "invalid JSON: Expecting value")]


@pytest.mark.parametrize(
    "text, message",
    [
        ("[1]", 'expected an object {"nodes": {"<node>": {"<relation>": [[<value>, ...], ...]}}}'),
        ('{"nodes": {}}', 'the input names no node: "nodes" is empty; write {"nodes": {"<node>": {"<relation>": [[<value>, ...], ...]}}}'),
        ('{"nodes": {"a": []}}', "node 'a': expected an object mapping relation names to lists of tuples, not []"),
        ('{"nodes": {"a": {"r": ["x"]}}}', "node 'a', relation 'r': expected a list of tuples, each a list of values, "
                                           'e.g. [["v1", "v2"], ["v2", 3]], not ["x"]'),
        ('{"nodes": {"a": {"r": [[true]]}}}', "node 'a', relation 'r', tuple 1: a value must be a string or an integer, not true"),
        ('{"nodes": {"a": {"r s": [[1]]}}}', "node 'a': 'r s' is not a relation name (letters, digits and '_')"),
    ],
)
def test_json_shape_errors(text, message):
    assert errors(text, parse_json) == [(0, 0, message)]


def test_json_reports_every_shape_error():
    assert len(errors('{"nodes": {"a": {"r": [[true]], "s": 3}, "b": 4}}', parse_json)) == 3


def test_json_mixed_arities():
    ((_, _, message),) = errors('{"nodes": {"a": {"r": [["x"], ["x", "y"]]}}}', parse_json)
    assert message == "input relation 'r' has 2 arguments in 'r(x, y)' but 1 argument in 'r(x)'; a relation has one arity"


def test_load_instance_chooses_the_format(tmp_path):
    (tmp_path / "h.json").write_text('{"nodes": {"a": {"r": [[1]]}}}')
    (tmp_path / "h.txt").write_text('  {"nodes": {"a": {"r": [[1]]}}}')
    (tmp_path / "h.facts").write_text("a { r(1). }")
    instances = [load_instance(tmp_path / f"h.{ext}") for ext in ("json", "txt", "facts")]
    assert all(i.facts == {sym("a"): instances[2].facts[sym("a")]} for i in instances)
    assert instances[0].filename == str(tmp_path / "h.json")
