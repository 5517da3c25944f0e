"""Tests of the rule evaluator (dedalus2asp.runs.evaluator) and its Python-sets back end (runs.local).

The subprograms deduc_P, induc_P and async_P of a step (tplp2016 §5.1.2) at one node
(`local.Node`), and the relational evaluation over `local.Local` at several nodes: joins,
negation (with `_`), comparisons in clingo's order in every value representation, rules
without positive atoms, recursive strata and the incremental start of a run's fixpoint.
"""

from __future__ import annotations

import clingo
from hypothesis import given, settings
from hypothesis import strategies as st

from dedalus2asp.lang.analysis import strata
from dedalus2asp.lang.ast import RuleKind
from dedalus2asp.lang.parser import parse_program
from dedalus2asp.runs import evaluator
from dedalus2asp.runs.body import Pattern
from dedalus2asp.runs.evaluator import Plan, components, join_order, strata_of
from dedalus2asp.runs.local import Local, Node
from dedalus2asp.runs.values import TEXT, Numbered, order

NODE = Node()
deduc, induc, async_ = NODE.deduc, NODE.induc, NODE.async_


def sym(value):
    return clingo.Number(value) if isinstance(value, int) else clingo.Function(value)


def fact(predicate, *args):
    """A ground fact at one node: (predicate, (symbols...))."""
    return (predicate, tuple(sym(a) for a in args))


def deductive(text):
    """The deductive rules of `text` as the evaluator's strata of components."""
    return strata_of(strata(parse_program(text)))


def rules(text, kind):
    return parse_program(text).rules_of(kind)


# ---------------------------------------------------------------------------
# deduc_P, induc_P, async_P (tplp2016 §5.1.2)

EXAMPLE_1 = """
marked(U)@async(Y) :- start(U), Node(Y).
marked(U)@next :- marked(U).
marked(V) :- marked(U), R(U, V).
vert(U) :- R(U, V).
vert(U) :- R(V, U).
missing() :- vert(U), not marked(U).
covered() :- not missing().
"""


def test_deduc_example_1_stratified():
    graph = [fact("R", "v1", "v2"), fact("R", "v2", "v3"), fact("R", "v4", "v3")]
    out = deduc(deductive(EXAMPLE_1), graph + [fact("marked", "v1")])
    assert {f for f in out if f[0] == "marked"} == {fact("marked", v) for v in ("v1", "v2", "v3")}
    assert {f for f in out if f[0] == "vert"} == {fact("vert", v) for v in ("v1", "v2", "v3", "v4")}
    assert fact("missing") in out and fact("covered") not in out
    assert set(graph) <= out  # I ⊆ deduc_P(I)

    out = deduc(deductive(EXAMPLE_1), graph + [fact("marked", "v1"), fact("marked", "v4")])
    assert fact("missing") not in out and fact("covered") in out


def test_deduc_negation_waits_for_lower_stratum():
    # p's rule is written first: evaluating rules in program order would derive p(2).
    program = deductive("p(X) :- q(X), not r(X).\nr(X) :- s(X).\nr(X) :- r2(X).\nr2(X) :- t(X).")
    out = deduc(program, [fact("q", 1), fact("q", 2), fact("q", 3), fact("s", 2), fact("t", 3)])
    assert {f for f in out if f[0] == "p"} == {fact("p", 1)}


def test_deduc_recursive_closure_semi_naive():
    # tc(X, Z) :- tc(X, Y), tc(Y, Z) needs facts of two different rounds in one join.
    n = 9
    edges = [fact("e", i, i + 1) for i in range(n)]
    out = deduc(deductive("tc(X, Y) :- e(X, Y).\ntc(X, Z) :- tc(X, Y), tc(Y, Z)."), edges)
    assert {f for f in out if f[0] == "tc"} == {fact("tc", i, j) for i in range(n + 1) for j in range(i + 1, n + 1)}


@settings(max_examples=60, deadline=None)
@given(st.sets(st.tuples(st.integers(0, 5), st.integers(0, 5)), max_size=12))
def test_deduc_reachability_with_negation_matches_python(edges):
    program = deductive(
        "reach(Y) :- src(X), e(X, Y).\nreach(Y) :- reach(X), e(X, Y).\n"
        "node(X) :- e(X, _).\nnode(Y) :- e(_, Y).\nunreached(X) :- node(X), not reach(X)."
    )
    out = deduc(program, [fact("e", a, b) for a, b in edges] + [fact("src", 0)])
    reach, frontier = set(), {0}
    while frontier:
        frontier = {b for a, b in edges if a in frontier} - reach
        reach |= frontier
    nodes = {a for e in edges for a in e}
    assert {f for f in out if f[0] == "reach"} == {fact("reach", v) for v in reach}
    assert {f for f in out if f[0] == "unreached"} == {fact("unreached", v) for v in nodes - reach}


def test_deduc_constants_repeated_variables_anonymous_comparisons():
    program = deductive(
        """
        eq(U, U) :- s(U).
        loop(X) :- e(X, X).
        source(X) :- e(X, _).
        pair(X, Y) :- e(X, _), e(_, Y).
        to_b(X) :- e(X, b).
        lt(X, Y) :- e(X, Y), X < Y.
        le(X, Y) :- e(X, Y), X <= Y.
        gt(X, Y) :- e(X, Y), X > Y.
        ge(X, Y) :- e(X, Y), X >= Y.
        ne(X, Y) :- e(X, Y), X != Y.
        same(X, Y) :- e(X, Y), X = Y.
        small(X) :- s(X), X < 5.
        """
    )
    x = clingo.String("x")
    edges = [("e", (sym("a"), sym("b"))), ("e", (sym("b"), sym("b"))), ("e", (x, sym(3))), ("e", (sym(3), sym("a")))]
    out = deduc(program, edges + [fact("s", 1), fact("s", "a")])

    def rel(name):
        return {args for p, args in out if p == name}

    a, b, three = sym("a"), sym("b"), sym(3)
    assert rel("eq") == {(sym(1), sym(1)), (a, a)}
    assert rel("loop") == {(b,)}
    assert rel("source") == {(a,), (b,), (x,), (three,)}
    assert len(rel("pair")) == 4 * 3  # sources × targets {b, 3, a}
    assert rel("to_b") == {(a,), (b,)}
    # clingo's order: numbers < names < strings
    assert rel("lt") == {(a, b), (three, a)}
    assert rel("le") == {(a, b), (b, b), (three, a)}
    assert rel("gt") == {(x, three)}
    assert rel("ge") == {(x, three), (b, b)}
    assert rel("ne") == {(a, b), (x, three), (three, a)}
    assert rel("same") == {(b, b)}
    assert rel("small") == {(sym(1),)}


def test_rules_without_positive_atom_fire_once():
    program = deductive("covered() :- not missing().")
    assert deduc(program, []) == {fact("covered")}
    assert deduc(program, [fact("missing")]) == {fact("missing")}
    assert deduc(deductive("p(a)."), []) == {fact("p", "a")}
    ticks = rules("tick()@next :- not stop().", RuleKind.INDUCTIVE)
    assert induc(ticks, [fact("q", 1), fact("q", 2)]) == {fact("tick")}
    assert induc(ticks, [fact("stop")]) == frozenset()


def test_induc_is_one_step():
    inductive = rules("p(X)@next :- q(X).\nr(X)@next :- p(X).\nq(X)@next :- q(X), not p(X).", RuleKind.INDUCTIVE)
    # one derivation step: the new p(1) does not yield r(1), and q(1) is kept since p(1) is not in I
    assert induc(inductive, [fact("q", 1)]) == {fact("p", 1), fact("q", 1)}
    assert induc(inductive, [fact("q", 1), fact("p", 1)]) == {fact("p", 1), fact("r", 1)}


def test_async_addressee_is_the_variable_value():
    asynchronous = rules("m(X)@async(Y) :- v(X), to(Y).\nn()@async(Y) :- m(_), to(Y).", RuleKind.ASYNC)
    out = async_(asynchronous, [fact("v", 1), fact("v", 2), fact("to", "a"), fact("to", "zz")])
    assert out == {(sym(y), fact("m", v)) for y in ("a", "zz") for v in (1, 2)}
    assert async_(asynchronous, [fact("m", 5), fact("to", "a")]) == {(sym("a"), fact("n"))}


def test_relation_both_input_and_derived():
    program = deductive("r(X) :- s(X).")
    assert deduc(program, [fact("r", 1), fact("s", 2)]) == {fact("r", 1), fact("s", 2), fact("r", 2)}


# ---------------------------------------------------------------------------
# The plan


def test_pattern_reads_constants_repeated_variables_and_anonymous():
    (rule,) = parse_program("p(X) :- q(X, a, X, _, Y, _).").rules
    pattern = Pattern.of(rule.positive[0])
    assert pattern == Pattern("q", ((1, sym("a")),), ((2, 0),), (("X", 0), ("Y", 4)))


def test_components_of_a_stratum_in_dependency_order():
    (stratum,) = strata(parse_program("c(X) :- b(X).\nb(X) :- a(X).\nb(X) :- c(X), d(X).\ne(X) :- c(X).\na(X) :- i(X)."))
    heads = [sorted(c.heads) for c in components(stratum)]
    assert heads == [["a"], ["b", "c"], ["e"]]
    assert [c.recursive for c in components(stratum)] == [False, True, False]


def test_join_order_starts_with_the_delta_atom_then_the_most_connected():
    (rule,) = parse_program("p(X, W) :- a(X), b(Z, W), c(X, Z).").rules
    assert join_order(rule) == [0, 2, 1]
    assert join_order(rule, 1) == [1, 2, 0]


# ---------------------------------------------------------------------------
# Bodies at several nodes (the Local back end with text values)

def local(rows, network=("n1", "n2")):
    """A Local back end on text rows (node, relation, args...) and its input facts."""
    backend = Local(network, [(x, r, tuple(args)) for x, r, *args in rows])
    return backend, backend.input(0)


def test_joins_stay_at_one_node():
    (rule,) = parse_program("p(X, Z) :- q(X, Y), r(Y, Z).").rules
    backend, facts = local([("n1", "q", "a", "b"), ("n1", "r", "b", "c"), ("n2", "r", "b", "d"), ("n2", "q", "e", "b")])
    heads = evaluator.induc(backend, [rule], facts)
    assert heads["p"] == {("n1", ("a", "c")), ("n2", ("e", "d"))}


def test_negation_with_anonymous_variable_means_no_value_at_all():
    (rule,) = parse_program("lonely(X) :- v(X), not e(X, _).").rules
    backend, facts = local([("n1", "v", "a"), ("n1", "v", "b"), ("n1", "e", "a", "z"), ("n2", "v", "a")])
    assert evaluator.induc(backend, [rule], facts)["lonely"] == {("n1", ("b",)), ("n2", ("a",))}
    assert NODE.induc([rule], [fact("v", "a"), fact("v", "b"), fact("e", "a", 1), fact("e", "a", 2)]) == {fact("lonely", "b")}


def test_rule_without_positive_atom_fires_once_per_node():
    (rule,) = parse_program("quiet() :- not noise().").rules
    backend, facts = local([("n1", "noise")], ("n1", "n2", "n3"))
    assert evaluator.induc(backend, [rule], facts)["quiet"] == {("n2", ()), ("n3", ())}


def test_valuations_and_instances():
    (rule,) = parse_program("p(X, a) :- q(X, Y), not r(Y, _), Y > 1.").rules
    facts = [fact("q", "u", 1), fact("q", "v", 2), fact("q", "w", 3), fact("r", 3, "x")]
    (binding,) = NODE.valuations(rule, facts)
    assert binding == {"X": sym("v"), "Y": sym(2)}
    assert NODE.instance(rule.head, binding) == (sym("v"), sym("a"))
    assert NODE.instance(rule.negative[0], binding) == (sym(2), None)


VALUES = [clingo.Number(-3), clingo.Number(2), clingo.Number(10), sym("a"), sym("b"), clingo.String("A"), clingo.String("a b")]
COMPARISONS = "lt(X, Y) :- v(X), v(Y), X < Y.\nle(X, Y) :- v(X), v(Y), X <= Y.\neq(X, Y) :- v(X), v(Y), X = Y.\n" \
    "ne(X, Y) :- v(X), v(Y), X != Y.\nbelow(X) :- v(X), X < b.\nnumber(X) :- v(X), X < a, X >= -3."


def test_comparisons_follow_clingo_order_in_every_value_representation():
    expected = {
        "lt": {(x, y) for x in VALUES for y in VALUES if x < y},
        "le": {(x, y) for x in VALUES for y in VALUES if x <= y},
        "eq": {(x, x) for x in VALUES},
        "ne": {(x, y) for x in VALUES for y in VALUES if x != y},
        "below": {(x,) for x in VALUES if x < sym("b")},
        "number": {(x,) for x in VALUES if x.type == clingo.SymbolType.Number},
    }
    numbered = Numbered(VALUES)
    text = {str(v): v for v in VALUES}
    for values, back in ((None, lambda v: v), (numbered, numbered.symbol), (TEXT, text.__getitem__)):
        facts = [("v", (values.constant(v) if values else v,)) for v in VALUES]
        out = (Node(values) if values else NODE).deduc(deductive(COMPARISONS), facts)
        got = {r: {tuple(map(back, args)) for p, args in out if p == r} for r in expected}
        assert got == expected, values
    assert sorted(map(str, VALUES), key=order) == [str(v) for v in sorted(VALUES)]
    assert [numbered.constant(v) for v in VALUES] == sorted(numbered.constant(v) for v in VALUES)
    assert numbered.constant(clingo.Number(7)) == 7  # an integer is itself


# ---------------------------------------------------------------------------
# The incremental start of a run's fixpoint

TC = "tc(X, Y) :- e(X, Y).\ntc(X, Z) :- tc(X, Y), e(Y, Z)."


def closure(edges):
    tc = set(edges)
    while True:
        more = {(a, d) for a, b in tc for c, d in edges if b == c} - tc
        if not more:
            return tc
        tc |= more


def text_facts(edges, node="n"):
    return {"e": {(node, (str(a), str(b))) for a, b in edges}}


@settings(max_examples=60, deadline=None)
@given(st.sets(st.tuples(st.integers(0, 4), st.integers(0, 4)), max_size=8), st.sets(st.tuples(st.integers(0, 4), st.integers(0, 4)), max_size=4))
def test_incremental_start_gives_the_full_fixpoint(before, added):
    """D of the previous step is closed: starting from the new facts gives the same D."""
    backend = Local(("n",))
    plan = Plan.of(parse_program(TC))
    previous = evaluator.deduc(backend, plan.strata, text_facts(before))
    facts = backend.union([previous, text_facts(added)])
    d = evaluator.deduc(backend, plan.strata, facts, previous)
    assert d["tc"] == {("n", (str(a), str(b))) for a, b in closure(before | added)}


def test_incremental_start_only_when_nothing_was_lost():
    """e(0, 1) is gone since the previous step: the fixpoint starts from scratch, not from e(2, 3)."""
    backend = Local(("n",))
    plan = Plan.of(parse_program(TC))
    previous = evaluator.deduc(backend, plan.strata, text_facts({(0, 1), (1, 2)}))
    d = evaluator.deduc(backend, plan.strata, text_facts({(1, 2), (2, 3)}), previous)
    assert d["tc"] == {("n", (a, b)) for a, b in (("1", "2"), ("2", "3"), ("1", "3"))}


def test_incremental_start_on_spark_only_when_nothing_was_lost(spark):
    """The Spark back end checks and starts in one job (`Spark.since`): None when e(0, 1) is gone, the new
    facts otherwise; and D is the full fixpoint either way."""
    from dedalus2asp.runs.keys import decode
    from dedalus2asp.runs.spark import Spark

    def facts(edges):
        return Spark(spark, ("n",), [("n", "e", (str(a), str(b))) for a, b in edges]).input(0)

    def rows(df):
        return {tuple(map(decode, row)) for row in df.collect()}

    backend = Spark(spark, ("n",), [])
    plan = Plan.of(parse_program(TC))
    previous = evaluator.deduc(backend, plan.strata, facts({(0, 1), (1, 2)}))
    assert backend.since(facts({(1, 2), (2, 3)}), previous, {"e", "tc"}) is None
    kept = backend.union([previous, facts({(2, 3)})])
    new = backend.since(kept, previous, {"e", "tc"})
    assert rows(new["e"]) == {("n", "2", "3")} and rows(new["tc"]) == set()
    assert new.counts is not None  # counted by `since`'s job, not by one of `count`'s
    assert backend.count(new) == {r: len(rows(df)) for r, df in new.items()}
    for start in (None, previous):
        d = evaluator.deduc(backend, plan.strata, facts({(1, 2), (2, 3)}), start)
        assert rows(d["tc"]) == {("n", a, b) for a, b in (("1", "2"), ("2", "3"), ("1", "3"))}
        d = evaluator.deduc(backend, plan.strata, kept, start)
        assert rows(d["tc"]) == {("n", str(a), str(b)) for a, b in closure({(0, 1), (1, 2), (2, 3)})}


def test_incremental_start_keeps_negation():
    """A new e(2, 3) arrives with blocked(3): r(3) is not derived, whatever the start."""
    program = parse_program("r(X) :- s(X), not blocked(X).\nr(Y) :- r(X), e(X, Y), not blocked(Y).")
    backend = Local(("n",))
    plan = Plan.of(program)
    previous = evaluator.deduc(backend, plan.strata, {"s": {("n", ("0",))}, "e": {("n", ("0", "1")), ("n", ("1", "2"))}})
    facts = backend.union([previous, {"e": {("n", ("2", "3")), ("n", ("3", "4"))}, "blocked": {("n", ("3",))}}])
    for start in (None, previous):
        d = evaluator.deduc(backend, plan.strata, facts, start)
        assert d["r"] == {("n", (x,)) for x in "012"}
