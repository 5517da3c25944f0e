"""The evaluator on issue #18's constructs: arithmetic, head aggregates, `_` in negated atoms, body
atoms at a fixed step and global rules (dedalus2asp.runs.evaluator, runs.local).

Each construct is checked at one node (`local.Node`) in every value representation (symbols,
numbered ints, text), against clingo on the same rule written in ASP where the semantics is
clingo's (arithmetic, aggregates), and in runs of several steps and nodes (`evaluator.execute`
on `local.Local`) where time or several nodes matter. The rules are built as ASTs
(dedalus2asp.lang.ast), so that these tests do not depend on a notation.
"""

from __future__ import annotations

import clingo
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dedalus2asp.lang.ast import (
    GLOBAL_NODE,
    Aggregate,
    Arithmetic,
    Atom,
    Comparison,
    Constant,
    Literal,
    Program,
    Rule,
    RuleKind,
    Variable,
)
from dedalus2asp.runs import evaluator
from dedalus2asp.runs.body import FRESH, Body
from dedalus2asp.runs.evaluator import Moment, Plan
from dedalus2asp.runs.local import Local, Node, observed
from dedalus2asp.runs.schedule import Schedule
from dedalus2asp.runs.values import TEXT, Numbered, arithmetic, wrap

# ---------------------------------------------------------------------------
# Building rules and facts


def sym(v):
    if isinstance(v, clingo.Symbol):
        return v
    if isinstance(v, int):
        return clingo.Number(v)
    if v.startswith('"'):
        return clingo.String(v[1:-1])
    return clingo.Function(v)


def term(t):
    """A term: a variable (upper case or `_`), an expression (a tuple (op, left, right)) or a constant."""
    if isinstance(t, (Variable, Constant, Arithmetic, Aggregate)):
        return t
    if isinstance(t, tuple):
        op, left, right = t
        return Arithmetic(op, None if left is None else term(left), term(right))
    if isinstance(t, str) and (t[0].isupper() or t[0] == "_"):
        return Variable(t)
    return Constant(sym(t))


def atom(predicate, *args):
    return Atom(predicate, tuple(term(a) for a in args))


def pos(predicate, *args, step=None):
    return Literal(atom(predicate, *args), step=step)


def neg(predicate, *args, step=None):
    return Literal(atom(predicate, *args), negated=True, step=step)


def cmp(op, left, right):
    return Comparison(op, term(left), term(right))


def rule(head, *body, kind=RuleKind.DEDUCTIVE, to=None):
    return Rule(head, kind, tuple(body), addressee=None if to is None else Variable(to))


def count(t):
    return Aggregate("count", term(t))


def agg(function, t):
    return Aggregate(function, term(t))


def fact(predicate, *args):
    return (predicate, tuple(sym(a) for a in args))


def deduced(rules, facts, values=None):
    """deduc_P(facts) at one node for the deductive `rules`, as symbols, in every value representation
    (symbols, numbered ints, text); asserts that the three agree and returns the set."""
    plan = Plan.of(Program(tuple(rules)))
    results = []
    symbols = {v for _, args in facts for v in args} | {
        t.value for r in rules for a in r.atoms for t in _constants(a.args)
    }
    numbered = Numbered(symbols)
    for values, to, back in (
        (None, lambda v: v, lambda v: v),
        (numbered, numbered.constant, numbered.symbol),
        (TEXT, str, lambda v: clingo.parse_term(v)),
    ):
        node = Node() if values is None else Node(values)
        got = node.deduc(plan.strata, [(r, tuple(map(to, args))) for r, args in facts])
        results.append({(r, tuple(map(back, args))) for r, args in got})
    assert results[0] == results[1] == results[2]
    return results[0]


def _constants(args):
    for a in args:
        if isinstance(a, Constant):
            yield a
        elif isinstance(a, Arithmetic):
            yield from _constants([x for x in (a.left, a.right) if x is not None])
        elif isinstance(a, Aggregate):
            yield from _constants([a.term])


def of(relation, facts):
    return {args for r, args in facts if r == relation}


def clingo_model(text):
    """The one stable model of an ASP program, as a set of (predicate, args)."""
    ctl = clingo.Control(["--warn=none"])
    ctl.add("base", [], text)
    ctl.ground([("base", [])])
    models = []
    ctl.solve(on_model=lambda m: models.append({(s.name, tuple(s.arguments)) for s in m.symbols(atoms=True)}))
    assert len(models) == 1
    return models[0]


# ---------------------------------------------------------------------------
# Arithmetic


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(["+", "-", "*", "/", "%"]),
    st.integers(-(2**31), 2**31 - 1) | st.integers(-9, 9),
    st.integers(-(2**31), 2**31 - 1) | st.integers(-9, 9),
)
def test_arithmetic_is_clingos(op, a, b):
    """32-bit wrapping, / and % truncating toward zero, a division by zero without a value: as clingo."""
    asp_op = "\\" if op == "%" else op
    model = clingo_model(f"a({a}). b({b}). r(X {asp_op} Y) :- a(X), b(Y). u(-X) :- a(X).")
    assert {args[0].number for args in of("r", model)} == ({arithmetic(op, a, b)} - {None})
    assert {args[0].number for args in of("u", model)} == {arithmetic("-", None, a)}


def test_arithmetic_examples():
    assert arithmetic("/", 7, -2) == -3 and arithmetic("%", -7, 2) == -1 and arithmetic("%", 7, -2) == 1
    assert arithmetic("/", 1, 0) is None and arithmetic("%", 1, 0) is None
    assert arithmetic("+", 2**31 - 1, 1) == -(2**31) and wrap(2**32) == 0


def test_arithmetic_in_head_comparison_and_body_atom():
    rules = [
        rule(atom("next", "H", ("-", "T", 1)), pos("timer", "H", "T"), cmp(">", "T", 1)),
        rule(atom("double", "X"), pos("n", "X"), cmp("=", ("*", "X", 2), ("+", "X", "X"))),
        rule(atom("succ", "X", "Y"), pos("n", "X"), pos("n", "Y"), cmp("=", "Y", ("+", "X", 1))),
        rule(atom("chain", "X"), pos("n", "X"), pos("n", ("+", "X", 1)), pos("n", ("+", "X", 2))),
        rule(atom("gap", "X"), pos("n", "X"), neg("n", ("+", "X", 1))),
        rule(atom("neg", ("-", None, ("+", "X", 1))), pos("n", "X")),
    ]
    facts = [fact("timer", "h", 3), fact("timer", "g", 1), *(fact("n", k) for k in (1, 2, 3, 7))]
    got = deduced(rules, facts)
    assert of("next", got) == {(sym("h"), sym(2))}
    assert len(of("double", got)) == 4
    assert of("succ", got) == {(sym(1), sym(2)), (sym(2), sym(3))}
    assert of("chain", got) == {(sym(1),)}
    assert of("gap", got) == {(sym(3),), (sym(7),)}
    assert of("neg", got) == {(sym(-2),), (sym(-3),), (sym(-4),), (sym(-8),)}


def test_undefined_arithmetic_drops_the_rule_instance():
    """A division by zero, or a name as an operand, has no value: the rule instance does not fire
    (clingo: "operation undefined"), also in a comparison and in a negated atom."""
    rules = [
        rule(atom("q", ("/", "X", "Y")), pos("p", "X", "Y")),
        rule(atom("c", "X"), pos("p", "X", "Y"), cmp("<", ("/", "X", "Y"), 100)),
        rule(atom("m", "X"), pos("p", "X", "Y"), neg("nothing", ("%", "X", "Y"))),
        rule(atom("nothing", 0), pos("nothing", 0)),
    ]
    facts = [fact("p", 6, 0), fact("p", 6, 3), fact("p", "a", 1), fact("p", 6, '"s"')]
    got = deduced(rules, facts)
    assert of("q", got) == {(sym(2),)}
    assert of("c", got) == {(sym(6),)}
    assert of("m", got) == {(sym(6),)}
    asp = "p(6,0). p(6,3). p(a,1). p(6,\"s\"). q(X/Y) :- p(X,Y). c(X) :- p(X,Y), X/Y < 100. m(X) :- p(X,Y), not nothing(X\\Y). nothing(0) :- nothing(0)."
    model = clingo_model(asp)
    for r in ("q", "c", "m"):
        assert of(r, model) == of(r, got)


# ---------------------------------------------------------------------------
# Aggregates

VOTES = [fact("vote", "c1", "a"), fact("vote", "c1", "b"), fact("vote", "c2", "a")]


def test_count_groups_by_the_other_head_arguments():
    got = deduced([rule(atom("tally", "C", count("M")), pos("vote", "C", "M"))], VOTES)
    assert of("tally", got) == {(sym("c1"), sym(2)), (sym("c2"), sym(1))}


def test_count_counts_distinct_values():
    """count<X> counts the distinct values of X over the group, not the valuations (clingo #count, Molly)."""
    facts = [fact("e", "a", 1, "x"), fact("e", "a", 1, "y"), fact("e", "a", 2, "x")]
    got = deduced([rule(atom("n", "G", count("V")), pos("e", "G", "V", "W"))], facts)
    assert of("n", got) == {(sym("a"), sym(2))}


def test_empty_group_yields_no_fact():
    rules = [
        rule(atom("tally", "C", count("M")), pos("cand", "C"), pos("vote", "C", "M")),
        rule(atom("total", agg("sum", "M")), pos("nothing", "M")),
    ]
    got = deduced(rules, [fact("cand", "c3"), *VOTES])
    assert not any(args[0] == sym("c3") for args in of("tally", got))
    assert not of("total", got)


def test_sum_over_distinct_valuations_and_a_negative_sum():
    """sum<X> adds X once per distinct valuation of the body (clingo's #sum{X,V1..Vn : body}): the
    same value from two valuations counts twice; names and strings are not added."""
    facts = [fact("w", "g", -5, "a"), fact("w", "g", 3, "b"), fact("w", "g", 3, "c"), fact("w", "h", -1, "a"),
             fact("w", "h", "x", "b")]
    got = deduced([rule(atom("s", "G", agg("sum", "X")), pos("w", "G", "X", "K"))], facts)
    assert of("s", got) == {(sym("g"), sym(1)), (sym("h"), sym(-1))}
    model = clingo_model(
        "w(g,-5,a). w(g,3,b). w(g,3,c). w(h,-1,a). w(h,x,b). g(G) :- w(G,_,_). s(G,S) :- g(G), S = #sum{X,K : w(G,X,K)}."
    )
    assert of("s", model) == of("s", got)


def test_a_valuation_whose_aggregate_term_has_no_value_is_not_in_its_group():
    """r(G, f<X / Y>) :- w(G, X, Y): the valuation with Y = 0 is left out, as every rule instance that
    needs an undefined operation; a group of only such valuations is empty and yields no fact."""
    facts = [fact("w", "g", 6, 0), fact("w", "g", 6, 3), fact("w", "h", 1, 0)]
    for function, value in (("count", 1), ("sum", 2), ("min", 2), ("max", 2)):
        got = deduced([rule(atom("r", "G", agg(function, ("/", "X", "Y"))), pos("w", "G", "X", "Y"))], facts)
        assert of("r", got) == {(sym("g"), sym(value))}


def test_min_and_max_in_clingos_order_also_over_strings():
    facts = [fact("v", "g", '"b"'), fact("v", "g", '"a"'), fact("v", "g", "zz"), fact("v", "g", 4),
             fact("v", "h", '"b"'), fact("v", "h", '"ab"')]
    got = deduced(
        [rule(atom("lo", "G", agg("min", "X")), pos("v", "G", "X")), rule(atom("hi", "G", agg("max", "X")), pos("v", "G", "X"))],
        facts,
    )
    assert of("lo", got) == {(sym("g"), sym(4)), (sym("h"), sym('"ab"'))}
    assert of("hi", got) == {(sym("g"), sym('"b"')), (sym("h"), sym('"b"'))}


def test_aggregate_of_an_expression_grouped_by_an_expression():
    facts = [fact("p", 1, 10), fact("p", 2, 20), fact("p", 3, 30)]
    got = deduced([rule(atom("r", ("%", "X", 2), agg("sum", ("*", "Y", -1))), pos("p", "X", "Y"))], facts)
    assert of("r", got) == {(sym(1), sym(-40)), (sym(0), sym(-20))}


def test_aggregate_over_a_lower_stratum_and_into_a_higher_one():
    """The aggregate's body is complete before it is counted, and its result can be read further up."""
    rules = [
        rule(atom("reach", "X"), pos("start", "X")),
        rule(atom("reach", "Y"), pos("reach", "X"), pos("edge", "X", "Y")),
        rule(atom("size", count("X")), pos("reach", "X")),
        rule(atom("big"), pos("size", "N"), cmp(">=", "N", 3)),
    ]
    facts = [fact("start", 1), fact("edge", 1, 2), fact("edge", 2, 3), fact("edge", 3, 1), fact("edge", 5, 6)]
    got = deduced(rules, facts)
    assert of("size", got) == {(sym(3),)} and of("big", got) == {()}


def test_aggregates_in_inductive_and_asynchronous_heads():
    rules = [
        rule(atom("seen", count("M")), pos("vote", "C", "M"), kind=RuleKind.INDUCTIVE),
        rule(atom("tally", "C", count("M")), pos("vote", "C", "M"), pos("leader", "L"), kind=RuleKind.ASYNC, to="L"),
    ]
    node = Node()
    facts = [*VOTES, fact("leader", "n1"), fact("leader", "n2")]
    assert node.induc(rules[:1], facts) == {fact("seen", 2)}
    assert node.async_(rules[1:], facts) == {
        (sym(x), fact("tally", c, k)) for x in ("n1", "n2") for c, k in (("c1", 2), ("c2", 1))
    }


# ---------------------------------------------------------------------------
# `_` in a negated atom


def test_anonymous_variables_in_a_negated_atom_are_a_projection():
    """not q(X, _, _): no q(X, v, w) holds for any v, w; each `_` is its own variable."""
    rules = [rule(atom("lonely", "X"), pos("p", "X"), neg("q", "X", "_", "_")),
             rule(atom("nodiag", "X"), pos("p", "X"), neg("r", "_", "_"), neg("s", "X", "_"))]
    facts = [fact("p", 1), fact("p", 2), fact("p", 3), fact("q", 1, "a", "b"), fact("q", 2, "c", "c"), fact("s", 3, 3)]
    got = deduced(rules, facts)
    assert of("lonely", got) == {(sym(3),)}
    assert of("nodiag", got) == {(sym(1),), (sym(2),)}


# ---------------------------------------------------------------------------
# Body atoms at a fixed step


def run(program, rows, steps, events=(), network=("a",), values=TEXT):
    """The D of each step of a run on Local (as {(node, step, relation, args)} with text values)."""
    backend = Local(network, rows, events, values=values)
    d, sent = evaluator.execute(backend, Plan.of(program), steps, Schedule())
    return {(x, t, r, args) for x, t, r, args in backend.trace(d)}, backend.messages(sent)


def test_body_atom_at_a_step_reads_that_step_and_fires_from_it_on():
    """pre(X) :- log(X), not bcast(X)@1: at step 0 it cannot fire (step 1 is its future); from step 1 on
    it reads what bcast held at step 1."""
    program = Program((
        rule(atom("log", "X"), pos("log", "X"), kind=RuleKind.INDUCTIVE),
        rule(atom("pre", "X"), pos("log", "X"), neg("bcast", "X", step=1)),
        rule(atom("was", "X"), pos("bcast", "X", step=1)),
        rule(atom("quiet", "X"), pos("log", "X"), neg("absent", "X", step=1)),
        rule(atom("ghost", "X"), pos("log", "X"), pos("absent", "X", step=1)),
        rule(atom("absent", "X"), pos("absent", "X")),
    ))
    rows = [("a", "log", ("m1",)), ("a", "log", ("m2",))]
    events = [("a", "bcast", ("m1",), 1), ("a", "bcast", ("m2",), 3)]
    trace, _ = run(program, rows, 5, events)
    pre = {(t, args) for _, t, r, args in trace if r == "pre"}
    was = {(t, args) for _, t, r, args in trace if r == "was"}
    assert pre == {(t, ("m2",)) for t in range(1, 5)}
    assert was == {(t, ("m1",)) for t in range(1, 5)}
    # nothing of `absent` held at step 1: the negated atom holds from step 1 on, the positive one never
    assert {(t, args) for _, t, r, args in trace if r == "quiet"} == {(t, x) for t in range(1, 5) for x in (("m1",), ("m2",))}
    assert not {r for _, _, r, _ in trace if r == "ghost"}


def test_body_atom_at_a_step_in_inductive_and_asynchronous_rules():
    program = Program((
        rule(atom("got", "X"), pos("tick", "X"), pos("start", "X", step=0), kind=RuleKind.INDUCTIVE),
        rule(atom("msg", "X"), pos("tick", "X"), pos("start", "X", step=2), pos("peer", "Y"), kind=RuleKind.ASYNC, to="Y"),
    ))
    rows = [("a", "tick", ("1",)), ("a", "peer", ("b",))]
    events = [("a", "start", ("1",), 0), ("a", "start", ("1",), 2)]
    trace, messages = run(program, rows, 4, events, network=("a", "b"))
    assert {t for x, t, r, _ in trace if r == "got"} == {1, 2, 3}
    assert {(m[0], m[3], m[4]) for m in messages} == {("msg", 2, "b"), ("msg", 3, "b")}


def test_body_step_beyond_the_horizon_never_fires():
    program = Program((rule(atom("late", "X"), pos("p", "X"), pos("p", "X", step=7)),
                       rule(atom("never_not", "X"), pos("p", "X"), neg("p", "X", step=7))))
    trace, _ = run(program, [("a", "p", ("1",))], 4)
    assert not {r for _, _, r, _ in trace} - {"p"}


def test_a_rule_at_a_step_needs_the_step():
    with pytest.raises(ValueError, match="at step 1"):
        Node().deduc(Plan.of(Program((rule(atom("q"), pos("p", step=1)),))).strata, [fact("p")])
    at = Node().moment(2, {1: [fact("p")]})
    assert Node().deduc(Plan.of(Program((rule(atom("q"), pos("p", step=1)),))).strata, [], at) == {fact("q")}


# ---------------------------------------------------------------------------
# Global rules


AGREE = Program((
    rule(atom("decision", "X"), pos("proposal", "X")),
    rule(atom("conflict", "X", "Y"), pos("decision", "A1", "X"), pos("decision", "A2", "Y"), cmp("!=", "X", "Y"),
         kind=RuleKind.GLOBAL),
    rule(atom("deciders", count("A")), pos("decision", "A", "_"), kind=RuleKind.GLOBAL),
    rule(atom("ok"), neg("conflict", "_", "_"), kind=RuleKind.GLOBAL),
))


def test_global_rules_read_every_node_at_one_step():
    rows = [("a", "proposal", ("1",)), ("b", "proposal", ("2",))]
    trace, _ = run(AGREE, rows, 2, network=("a", "b", "c"))
    here = str(GLOBAL_NODE)
    for t in (0, 1):
        at = {(r, args) for x, s, r, args in trace if x == here and s == t}
        assert at == {("conflict", ("1", "2")), ("conflict", ("2", "1")), ("deciders", ("2",))}
    assert not {(x, r) for x, _, r, _ in trace if r in ("conflict", "deciders", "ok") and x != here}


def test_global_rule_without_conflict_and_with_steps():
    program = Program((
        *AGREE.rules,
        rule(atom("first", "A", "X"), pos("decision", "A", "X", step=0), kind=RuleKind.GLOBAL),
    ))
    trace, _ = run(program, [("a", "proposal", ("1",))], 3, events=[("b", "proposal", ("1",), 1)], network=("a", "b"))
    here = str(GLOBAL_NODE)
    glob = {(s, r, args) for x, s, r, args in trace if x == here}
    assert {s for s, r, _ in glob if r == "ok"} == {0, 1, 2}
    assert {(s, args) for s, r, args in glob if r == "deciders"} == {(0, ("1",)), (1, ("2",)), (2, ("1",))}
    assert {(s, args) for s, r, args in glob if r == "first"} == {(s, ("a", "1")) for s in range(3)}


def test_observed_adds_the_global_node_to_a_trace_of_symbols():
    plan = Plan.of(AGREE)
    a, b = sym("a"), sym("b")
    trace = frozenset({(a, 0, "decision", (sym(1),)), (b, 0, "decision", (sym(1),)), (b, 1, "decision", (sym(2),))})
    got = observed(plan, trace) - trace
    assert got == {
        (GLOBAL_NODE, 0, "deciders", (sym(2),)), (GLOBAL_NODE, 0, "ok", ()), (GLOBAL_NODE, 1, "deciders", (sym(1),)),
        (GLOBAL_NODE, 1, "ok", ()),
    }
    assert observed(Plan.of(Program(AGREE.rules[:1])), trace) == trace


# ---------------------------------------------------------------------------
# What the evaluator compiles


def test_body_compiles_expressions_to_columns():
    r = rule(atom("t", "H", ("-", "T", 1), count("M")), pos("timer", "H", "T"), pos("v", ("+", "T", 1), "M"), cmp(">", ("*", "T", 2), 1))
    body = Body.of(r)
    assert body is Body.of(r)
    assert [c.op for c in body.comparisons] == ["=", ">"]
    assert all(isinstance(a, (Variable, Constant)) for a in body.head.args)
    assert body.keys == ("H", body.head.args[1].name) and [a[0] for a in body.aggregations] == ["count"]
    assert not any(k.startswith(FRESH) for b in Node().valuations(r, [fact("timer", "h", 2), fact("v", 3, "x")]) for k in b)


def test_moment_of_an_explorer_node_is_hidden_from_its_trace():
    """The explorer's node keeps its memory of fixed steps and its clock in its state, never in D."""
    plan = Plan.of(Program((rule(atom("was", "X"), pos("p", "X", step=0)), rule(atom("p", "X"), pos("p", "X"), kind=RuleKind.INDUCTIVE))))
    node = Node()
    state = [fact("p", 1)]
    seen = []
    for _ in range(3):
        d, state, _ = node.step(plan, state)
        seen.append(d)
    assert seen == [frozenset({fact("p", 1), fact("was", 1)})] * 3
    assert any(r.startswith("@") for r, _ in state)


def test_values_computed_in_a_recursive_cycle_are_an_error_not_a_hang(monkeypatch):
    monkeypatch.setattr(evaluator, "MAX_ROUNDS", 50)
    bounded = [rule(atom("p", ("+", "X", 1)), pos("p", "X"), cmp("<", "X", 40))]
    assert len(of("p", deduced(bounded, [fact("p", 0)]))) == 41
    with pytest.raises(ValueError, match="computes new values in a recursive cycle"):
        Node().deduc(Plan.of(Program((rule(atom("p", ("+", "X", 1)), pos("p", "X")),))).strata, [fact("p", 0)])
