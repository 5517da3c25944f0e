"""The constructs of issue #18 in the generated programs: aggregates, arithmetic, `_` in negated
atoms, body atoms at a step, global rules.

Each construct is written by `asp/views.py` once for every template; here each is solved in both
encodings and every semantics (paper and fast must have the same traces), in the multi-shot
program (the same traces as the one-shot fast one at every horizon), through clingo's own front
end, and at its sharp corners: an empty group, a negative sum, min over strings, `_` twice in one
atom, a body step beyond the horizon, a division by zero. The programs are built as ASTs, the
interface the front end produces (lang/ast.py), so that they test the writer alone.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import replace
import sys

import clingo
import pytest

from dedalus2asp import inspect
from dedalus2asp import formats
from dedalus2asp.questions import cron
from dedalus2asp.asp import solve
from dedalus2asp.asp.incremental import Unrolling, incremental
from dedalus2asp.asp.transform import transform
from dedalus2asp.bounds import Bounds, Encoding, Network, Semantics
from dedalus2asp.lang.ast import (GLOBAL_NODE, Aggregate, Arithmetic, Atom, Comparison, Constant, Literal, Output,
                                  Program, Rule, RuleKind, Variable)
from dedalus2asp.lang.facts import parse_facts


def var(name: str) -> Variable:
    return Variable(name)


def const(value) -> Constant:
    return Constant(clingo.Number(value) if isinstance(value, int) else clingo.Function(value))


def atom(predicate: str, *args) -> Atom:
    return Atom(predicate, tuple(var(a) if isinstance(a, str) and (a[0].isupper() or a == "_") else a for a in args))


def pos(predicate: str, *args, step=None) -> Literal:
    return Literal(atom(predicate, *args), step=step)


def neg(predicate: str, *args, step=None) -> Literal:
    return Literal(atom(predicate, *args), negated=True, step=step)


def rule(head: Atom, *body, kind=RuleKind.DEDUCTIVE, to=None) -> Rule:
    return Rule(head, kind, tuple(body), addressee=None if to is None else var(to))


def program(*rules: Rule, outputs=()) -> Program:
    numbered = tuple(Rule(r.head, r.kind, r.body, r.addressee, i) for i, r in enumerate(rules, 1))
    return Program(numbered, tuple(Output(o) for o in outputs), "test.ded")


def facts(text: str):
    return parse_facts(text, "test.facts")


def traces(prog: Program, instance, horizon: int, semantics: Semantics, encoding: Encoding, delay=None) -> set:
    compiled = transform(prog, instance, Bounds(horizon, semantics, encoding, Network(max_delay=delay)))
    return {m.trace for m in inspect.traces(compiled).models}


def held(trace, relation: str, node=None, step=None) -> set:
    """The argument tuples (as text) of `relation` in a trace, at a node and step if given."""
    return {
        tuple(map(str, a))
        for (x, s, r, a) in trace
        if r == relation and (node is None or str(x) == node) and (step is None or s == step)
    }


def only(found: set):
    assert len(found) == 1, found
    return next(iter(found))


# -- aggregates ----------------------------------------------------------------

VOTES = program(
    rule(atom("tally", "C", Aggregate("count", var("M"))), pos("vote", "C", "M")),
    rule(atom("total", Aggregate("sum", var("V"))), pos("w", "V")),
    rule(atom("low", Aggregate("min", var("N"))), pos("name", "N")),
    rule(atom("high", Aggregate("max", var("N"))), pos("name", "N")),
    rule(atom("none", Aggregate("count", var("X"))), pos("r", "X", const("zz"))),  # an empty group
    rule(atom("both", "C", Aggregate("min", var("M")), Aggregate("max", var("M"))), pos("vote", "C", "M")),
    rule(atom("parity", Arithmetic("%", var("M"), const(2)), Aggregate("count", var("M"))), pos("vote", "C", "M")),
    rule(atom("later", "C", Aggregate("count", var("M"))), pos("vote", "C", "M"), kind=RuleKind.INDUCTIVE),
    rule(atom("heard", Aggregate("sum", var("M"))), pos("vote", "C", "M"), pos("peer", "Y"), kind=RuleKind.ASYNC, to="Y"),
)
VOTES_INPUT = facts(
    'a { vote(c, 1). vote(c, 2). vote(c, 2). vote(d, 3). vote(e, 2). w(-3). w(2). w(-3). w(0).'
    ' name("b"). name("a"). r(1, x). peer(b). } b { }'
)


@pytest.mark.parametrize("semantics", list(Semantics), ids=lambda s: s.value)
def test_aggregates_group_by_the_other_head_arguments(semantics):
    found = {e: traces(VOTES, VOTES_INPUT, 1, semantics, e, delay=1) for e in Encoding}
    assert found[Encoding.PAPER] == found[Encoding.FAST]
    for trace in found[Encoding.FAST]:
        assert held(trace, "tally", "a", 0) == {("c", "2"), ("d", "1"), ("e", "1")}  # count: distinct values
        assert held(trace, "total", "a", 0) == {("-1",)}  # a negative sum: -3 + 2 + 0 (w(-3) twice is one fact)
        assert held(trace, "low", "a", 0) == {('"a"',)} and held(trace, "high", "a", 0) == {('"b"',)}  # strings
        assert held(trace, "none") == set()  # an empty group yields no fact, not a count of 0
        assert held(trace, "both", "a", 0) == {("c", "1", "2"), ("d", "3", "3"), ("e", "2", "2")}
        assert held(trace, "parity", "a", 0) == {("1", "2"), ("0", "1")}  # grouped by the value of M % 2
        assert held(trace, "later", "a", 0) == set() and held(trace, "later", "a", 1) == {("c", "2"), ("d", "1"), ("e", "1")}
        # sum over the distinct valuations of the body: M = 2 counts for c and for e
        assert held(trace, "heard", "b") <= {("8",)}
    assert any(held(t, "heard", "b") == {("8",)} for t in found[Encoding.FAST])


def test_rules_without_numbers_get_groups_of_their_own():
    """A program built in Python may leave every rule number 0: each group is named by position."""
    prog = Program(tuple(replace(r, number=0) for r in VOTES.rules[:2]), filename="test.ded")
    for encoding in Encoding:
        trace = only(traces(prog, VOTES_INPUT, 0, Semantics.CAUSAL, encoding))
        assert held(trace, "tally") == {("c", "2"), ("d", "1"), ("e", "1")} and held(trace, "total") == {("-1",)}
    inc = incremental(prog, VOTES_INPUT, Semantics.CAUSAL, horizon=0).text
    assert "_group_r1(" in inc and "_group_r2(" in inc


def test_an_aggregate_of_an_expression_counts_only_where_it_has_a_value():
    """6 / V has no value at V = 0 nor at a string: those valuations count for nothing, and a group
    where it has no value at all yields no fact (a #count would give 0, a #min #sup)."""
    ratio = Arithmetic("/", const(6), var("V"))
    prog = program(*(rule(atom(f, Aggregate(f, ratio)), pos("w", "V")) for f in ("count", "sum", "min", "max")))
    instance = facts('a { w(3). w("x"). w(0). w(-2). } b { w("y"). w(0). }')
    found = {e: only(traces(prog, instance, 0, Semantics.CAUSAL, e)) for e in Encoding}
    assert found[Encoding.PAPER] == found[Encoding.FAST]
    trace = found[Encoding.FAST]
    assert {(r, a[0]) for (r, a) in (("count", ("2",)), ("sum", ("-1",)), ("min", ("-3",)), ("max", ("2",)))} == {
        (r, only(held(trace, r, "a"))[0]) for r in ("count", "sum", "min", "max")
    }
    assert not any(str(x) == "b" for (x, _, r, _) in trace if r != "w")


def test_sum_adds_each_valuation_of_the_body_once():
    prog = program(rule(atom("s", Aggregate("sum", var("V"))), pos("p", "K", "V")))
    trace = only(traces(prog, facts("a { p(x, 5). p(y, 5). p(z, -7). }"), 0, Semantics.CAUSAL, Encoding.PAPER))
    assert held(trace, "s") == {("3",)}


def test_an_aggregate_rule_is_a_group_rule_and_a_clingo_aggregate():
    text = transform(VOTES, VOTES_INPUT, Bounds(1, Semantics.CAUSAL, Encoding.PAPER)).text
    assert "_group_r1(X,S,C) :- vote(X,S,C,M)." in text
    assert "tally(X,S,C,A) :- _group_r1(X,S,C), A = #count{ M : vote(X,S,C,M) }." in text
    assert "total(X,S,A) :- _group_r2(X,S), A = #sum{ V,V : w(X,S,V) }." in text
    assert "parity(X,S,G,A) :- _group_r7(X,S,G), A = #count{ M : vote(X,S,C,M), G = M\\2 }." in text


# -- arithmetic ------------------------------------------------------------------

ARITHMETIC = program(
    rule(atom("timer", Arithmetic("-", var("T"), const(1))), pos("timer", "T"), Comparison(">", var("T"), const(1)),
         kind=RuleKind.INDUCTIVE),
    rule(atom("quot", "X", "Y", Arithmetic("/", var("X"), var("Y")), Arithmetic("%", var("X"), var("Y"))),
         pos("w", "X"), pos("w", "Y")),
    rule(atom("neg", Arithmetic("-", None, Arithmetic("+", var("X"), const(1)))), pos("w", "X")),
    rule(atom("next", "X"), pos("w", "X"), pos("w", Arithmetic("+", var("X"), const(1)))),
    rule(atom("big", "X"), pos("w", "X"), Comparison(">", Arithmetic("*", var("X"), const(2)), const(5))),
)


@pytest.mark.parametrize("semantics", list(Semantics), ids=lambda s: s.value)
def test_arithmetic_is_clingos_integer_arithmetic(semantics):
    instance = facts("a { timer(3). w(7). w(-2). w(0). w(-1). w(\"s\"). }")
    found = {e: traces(ARITHMETIC, instance, 2, semantics, e) for e in Encoding}
    assert found[Encoding.PAPER] == found[Encoding.FAST]
    trace = only(found[Encoding.FAST])
    assert held(trace, "timer", "a", 2) == {("3",), ("2",), ("1",)}  # 3, then 2, then 1; T > 1 stops it
    quotients = held(trace, "quot", "a", 0)
    assert ("7", "-2", "-3", "1") in quotients and ("-2", "7", "0", "-2") in quotients  # truncation toward zero
    assert not any(q[1] == "0" for q in quotients)  # a division by zero has no value: no fact
    assert not any('"s"' in q for q in quotients)  # nor has arithmetic on a string
    assert held(trace, "neg", "a", 0) == {("-8",), ("1",), ("-1",), ("0",)}
    assert held(trace, "next", "a", 0) == {("-2",), ("-1",)}  # w(X+1) in the body: X bound by w(X)
    assert held(trace, "big", "a", 0) == {("7",)}


# -- `_` in negated atoms ----------------------------------------------------------

PROJECTED = program(
    rule(atom("lone", "X"), pos("p", "X"), neg("ack", "X", "_")),
    rule(atom("quiet", "X"), pos("p", "X"), neg("msg", "_", "X", "_")),  # `_` twice in one atom
    rule(atom("silent"), pos("p", "X"), neg("msg", "_", "_", "_")),
    rule(atom("also", "X"), pos("p", "X"), neg("ack", "X", "_")),  # the same projection, written once
)


@pytest.mark.parametrize("encoding", list(Encoding), ids=lambda e: e.value)
def test_anonymous_variables_in_a_negated_atom_are_projected_away(encoding):
    instance = facts("a { p(1). p(2). p(3). ack(1, x). ack(1, y). msg(u, 2, v). } b { p(1). }")
    for semantics in Semantics:
        trace = only(traces(PROJECTED, instance, 0, semantics, encoding))
        assert held(trace, "lone", "a") == {("2",), ("3",)} and held(trace, "lone", "b") == {("1",)}
        assert held(trace, "quiet", "a") == {("1",), ("3",)}
        assert held(trace, "silent", "a") == set() and held(trace, "silent", "b") == {()}
    text = transform(PROJECTED, instance, Bounds(0, Semantics.CAUSAL, encoding)).text
    assert text.count("_some_1_ack(X,S,W1) :- ack(X,S,W1,_).") == 1
    assert "_some_2_msg(X,S,W2) :- msg(X,S,_,W2,_)." in text
    assert "lone(X0,S,X) :- p(X0,S,X), not _some_1_ack(X0,S,X)." in text


# -- body atoms at a step ------------------------------------------------------------

STEPPED = program(
    rule(atom("log", "X"), pos("log", "X"), kind=RuleKind.INDUCTIVE),
    rule(atom("bcast", "X"), pos("log", "X"), pos("peer", "Y"), kind=RuleKind.ASYNC, to="Y"),
    rule(atom("pre", "X"), pos("log", "X"), neg("bcast", "X", step=1)),
    rule(atom("early", "X"), pos("log", "X", step=0)),
    rule(atom("late", "X"), pos("log", "X", step=9)),  # beyond the horizon: never fires
)


@pytest.mark.parametrize("semantics", list(Semantics), ids=lambda s: s.value)
def test_a_body_atom_at_a_step_reads_that_step_of_the_node_and_never_the_future(semantics):
    instance = facts("a { peer(b). } b { peer(a). }")
    instance = facts("a { peer(b). log(m)@0. } b { }")
    found = {e: traces(STEPPED, instance, 2, semantics, e, delay=2) for e in Encoding}
    assert found[Encoding.PAPER] == found[Encoding.FAST] and len(found[Encoding.FAST]) > 1
    for trace in found[Encoding.FAST]:
        assert held(trace, "early", "a") == {("m",)} and {s for (x, s, r, _) in trace if r == "early"} == {0, 1, 2}
        assert held(trace, "late") == set()
        # not bcast(m)@1 is read only from step 1 on: at step 0 the rule does not fire
        assert held(trace, "pre", "a", 0) == set()
        arrived_at_1 = ("m",) in held(trace, "bcast", "a", 1)
        assert (held(trace, "pre", "a", 1) == set()) == arrived_at_1


def test_a_body_step_beyond_the_horizon_is_a_warning():
    compiled = transform(STEPPED, facts("a { }"), Bounds(2, Semantics.CAUSAL, Encoding.FAST))
    (warning,) = compiled.warnings
    assert warning.code == "step-beyond-horizon" and "step 9" in warning.message and "rule 5" in warning.message
    assert transform(STEPPED, facts("a { }"), Bounds(9, Semantics.CAUSAL, Encoding.FAST)).warnings == ()


# -- global rules ----------------------------------------------------------------------

ASSERTION = program(
    rule(atom("decision", "X"), pos("vote", "X")),
    rule(atom("post", "X"), pos("decision", "A1", "X"), pos("decision", "A2", "X"),
         Comparison("!=", var("A1"), var("A2")), kind=RuleKind.GLOBAL),
    rule(atom("pre", "X"), pos("vote", "N", "X"), kind=RuleKind.GLOBAL),
    rule(atom("lonely", "X"), pos("pre", "X"), neg("post", "X"), kind=RuleKind.GLOBAL),
    rule(atom("nobody"), neg("vote", "_", "_"), kind=RuleKind.GLOBAL),
    rule(atom("voters", "X", Aggregate("count", var("N"))), pos("vote", "N", "X"), kind=RuleKind.GLOBAL),
    outputs=("post",),
)


@pytest.mark.parametrize("semantics", list(Semantics), ids=lambda s: s.value)
def test_a_global_rule_reads_every_node_and_its_facts_belong_to_none(semantics):
    instance = facts("a { vote(yes). } b { vote(yes). } c { vote(no). } d { }")
    found = {e: traces(ASSERTION, instance, 1, semantics, e) for e in Encoding}
    assert found[Encoding.PAPER] == found[Encoding.FAST]
    trace = only(found[Encoding.FAST])
    assert held(trace, "post", "()") == {("yes",)} and held(trace, "lonely", "()") == {("no",)}
    assert held(trace, "voters", "()") == {("yes", "2"), ("no", "1")}
    assert held(trace, "nobody") == set()
    assert all(x == GLOBAL_NODE for (x, _, r, _) in trace if r in ("post", "pre", "lonely", "voters"))
    empty = only(traces(ASSERTION, facts("a { } b { }"), 1, semantics, Encoding.FAST))
    assert held(empty, "nobody", "()") == {()} and {s for (_, s, r, _) in empty if r == "nobody"} == {0, 1}


def test_global_facts_are_shown_apart():
    instance = facts("a { vote(yes). } b { vote(yes). }")
    compiled = transform(ASSERTION, instance, Bounds(0, Semantics.CAUSAL, Encoding.FAST))
    model = inspect.enumerate_models(compiled, 1).models[0]
    assert model.network == (clingo.Function("a"), clingo.Function("b"))
    assert model.global_at(0) == ["post(yes)", "pre(yes)", "voters(yes, 2)"]
    text = formats.render(model, "text")
    assert "global" in text and "voters(yes, 2)" in text
    document = json.loads(formats.render(model, "json"))["models"][0]
    assert {"step": 0, "relation": "post", "args": ["yes"]} in document["global"]
    assert all(f["node"] != "()" for f in document["trace"])
    assert model.outputs() == ("post(yes)",)


def test_cron_answers_on_a_global_relation():
    instance = facts("a { vote(yes). } b { vote(yes). } c { }")
    verdict = cron.analyse(ASSERTION, instance, Bounds(1, Semantics.CAUSAL_FINITE, Encoding.FAST), ("post",))
    assert verdict.consistent and verdict.certain == {"post(yes)"}
    searched = cron.search(ASSERTION, instance, Bounds(2, Semantics.CAUSAL_FINITE, Encoding.FAST), ("post",))
    assert searched.search["smallest_horizon"] is None and searched.certain == {"post(yes)"}


def test_cron_without_outputs_names_the_relations_it_could_use():
    prog = program(*ASSERTION.rules)
    with pytest.raises(Exception) as error:
        cron.outputs_of(prog)
    message = str(error.value)
    assert "post/1 (global)" in message and "decision/1" in message


# -- the multi-shot program and clingo's front end -----------------------------------------

MULTI = [
    ("aggregates", VOTES, VOTES_INPUT),
    ("arithmetic", program(
        rule(atom("cnt", Arithmetic("+", var("N"), const(1))), pos("cnt", "N"), kind=RuleKind.INDUCTIVE),
        rule(atom("ping", "N"), pos("cnt", "N"), pos("peer", "Y"), kind=RuleKind.ASYNC, to="Y"),
        rule(atom("got", Aggregate("max", var("N"))), pos("ping", "N")),
    ), facts("a { cnt(0). peer(b). } b { }")),
    ("steps", STEPPED, facts("a { peer(b). log(m)@0. } b { }")),
    ("projections", PROJECTED, facts("a { p(1). p(2). ack(1, x). } b { p(1). }")),
    ("global", ASSERTION, facts("a { vote(yes). } b { vote(yes). } c { }")),
    ("events", program(rule(atom("seen", "X"), pos("ev", "X"))), facts("a { ev(1)@1. ev(2)@3. } b { }")),
]


@pytest.mark.parametrize("name, prog, instance", MULTI, ids=[m[0] for m in MULTI])
def test_the_multi_shot_program_has_the_traces_of_the_one_shot_one(name, prog, instance):
    network = Network(max_delay=1)
    last = 3 if name == "events" else 2  # the events are at steps 1 and 3
    unrolling = Unrolling(incremental(prog, instance, Semantics.CAUSAL, network, horizon=last), ["0"], project=True)
    relations, arities = unrolling.program.relations, unrolling.program.arities
    for horizon in range(last + 1):
        unrolling.extend(horizon)
        multi: set = set()
        unrolling.control.solve(on_model=lambda m: multi.add(frozenset(
            (s.arguments[0], s.arguments[1].number, relations[s.name], tuple(s.arguments[2:]))
            for s in m.symbols(atoms=True)
            if s.name in relations and len(s.arguments) == arities[relations[s.name]] + 2
        )))
        if name != "events" or horizon == last:  # the one-shot program refuses an event beyond its horizon
            assert multi == traces(prog, instance, horizon, Semantics.CAUSAL, Encoding.FAST, delay=1), horizon


def test_a_program_whose_heads_compute_values_needs_the_horizon_for_the_multi_shot_program():
    with pytest.raises(ValueError, match="horizon"):
        incremental(ARITHMETIC, facts("a { w(1). }"), Semantics.CAUSAL)


@pytest.mark.parametrize("encoding", list(Encoding), ids=lambda e: e.value)
def test_the_compiled_programs_run_under_clingos_front_end(encoding, tmp_path):
    for i, (name, prog, instance) in enumerate(MULTI):
        horizon = 3 if name == "events" else 1  # the events are at steps 1 and 3
        compiled = transform(prog, instance, Bounds(horizon, Semantics.CAUSAL_FINITE, encoding, Network(max_delay=1)))
        out = tmp_path / f"{name}.lp"
        out.write_text(compiled.text)
        done = subprocess.run([sys.executable, "-m", "clingo", str(out), "0", "-q"], capture_output=True, text=True,
                              timeout=300)
        assert done.returncode in (0, 10, 30), (name, done.stderr)
        assert "error" not in done.stderr.lower(), (name, done.stderr)
        assert "global variable" not in done.stderr, (name, done.stderr)  # a group's columns stay out of #sum's tuples
        models = int(next(line.split(":")[1] for line in done.stdout.splitlines() if line.startswith("Models")).strip("+ "))
        assert models == solve.count(compiled, progress=False)["models"], name


# -- a Molly program with its invariant file, from source ----------------------------------

PROTOCOL = """
member(a, b)@1;
member(a, c)@1;
member(b, a)@1;
member(c, a)@1;
broadcast(a, "hello")@1;
member(N, M)@next :- member(N, M);
deliver(M, P)@async :- broadcast(N, P), member(N, M);
log(N, P) :- broadcast(N, P);
log(N, P) :- deliver(N, P);
log(N, P)@next :- log(N, P);
"""
INVARIANT = """
pre(M, P) :- broadcast(N, P)@1, member(N, M);
post(M, P) :- broadcast(N, P)@1, member(N, M), log(M, P);
"""


@pytest.fixture
def molly(tmp_path):
    (tmp_path / "protocol.ded").write_text(PROTOCOL)
    (tmp_path / "invariant.ded").write_text(INVARIANT)
    return [tmp_path / "protocol.ded", tmp_path / "invariant.ded"]


def test_output_facts_of_a_located_program_keep_their_node(molly):
    from dedalus2asp.pipeline import prepare

    bounds = Bounds(2, Semantics.CAUSAL_FINITE, Encoding.FAST, Network(max_delay=1))
    prepared = prepare(molly, None, bounds, "molly")
    models = inspect.enumerate_models(prepared.compiled).models
    assert {m.outputs(["log"]) for m in models} == {('log(a, "hello")', 'log(b, "hello")', 'log(c, "hello")')}
    verdict = cron.analyse(prepared.program, prepared.instance, bounds, ("log",))
    assert verdict.certain == {'log(a, "hello")', 'log(b, "hello")', 'log(c, "hello")'}
    searched = cron.search(prepared.program, prepared.instance, bounds, ("log",))
    assert searched.certain == verdict.certain


def test_cron_output_post_answers_on_a_molly_program_with_its_invariant_file(molly):
    from dedalus2asp.pipeline import prepare

    posts = {'post(b, "hello")', 'post(c, "hello")'}
    for horizon in (0, 1):
        bounds = Bounds(horizon, Semantics.CAUSAL_FINITE, Encoding.FAST, Network(max_delay=1))
        prepared = prepare(molly, None, bounds, "molly")
        verdict = cron.analyse(prepared.program, prepared.instance, bounds, ("post",))
        models = inspect.enumerate_models(prepared.compiled).models
        assert all({'pre(b, "hello")', 'pre(c, "hello")'} <= set(m.global_at(horizon)) for m in models)
        if horizon == 0:  # a message sent at step 0 may arrive at step 0 of another node, or later
            assert not verdict.consistent and verdict.certain == set() and verdict.possible == posts
        else:  # with delay <= 1, it has arrived by step 1
            assert verdict.consistent and verdict.certain == posts


@pytest.mark.parametrize("fmt", ["text", "json", "itf", "shiviz", "svg", "dot", "html"])
def test_every_rendering_of_a_model_takes_global_facts(fmt):
    """Diagrams draw the nodes' lanes: a global fact, held by none, is left out of them, not a crash."""
    compiled = transform(ASSERTION, facts("a { vote(yes). } b { vote(yes). }"), Bounds(1, Semantics.CAUSAL, Encoding.FAST))
    model = inspect.enumerate_models(compiled, 1).models[0]
    assert model.has_global
    rendered = formats.render(model, fmt)
    assert rendered and "()" not in rendered.replace("post()", "")


# -- against the operational semantics (bounded Theorem 4) ------------------------------------

ORACLE = [
    ("aggregates", VOTES, VOTES_INPUT, 1),
    ("arithmetic", ARITHMETIC, facts('a { timer(3). w(7). w(-2). w(0). w(-1). w("s"). }'), 2),
    ("projections", PROJECTED, facts("a { p(1). p(2). p(3). ack(1, x). ack(1, y). msg(u, 2, v). } b { p(1). }"), 1),
    ("steps", STEPPED, facts("a { peer(b). log(m)@0. } b { }"), 2),
    ("global", ASSERTION, facts("a { vote(yes). } b { vote(yes). } c { vote(no). } d { }"), 1),
    ("counter", MULTI[1][1], MULTI[1][2], 2),
]


@pytest.mark.parametrize("name, prog, instance, horizon", ORACLE, ids=[o[0] for o in ORACLE])
def test_the_models_traces_are_the_explorers_run_prefixes(name, prog, instance, horizon):
    """The explorer (runs/operational.py) shares no code with the generated program but the AST."""
    from dedalus2asp.lang.analysis import restrict
    from dedalus2asp.runs import operational

    for delay in (1, None) if name != "counter" else (1,):
        bounds = Bounds(horizon, network=Network(max_delay=delay))
        explored = set(operational.explore(prog, restrict(instance, prog), bounds, mode="traces").traces)
        for semantics in (Semantics.CAUSAL, Semantics.CAUSAL_FINITE):
            for encoding in Encoding:
                assert traces(prog, instance, horizon, semantics, encoding, delay) == explored, (semantics, encoding, delay)


def test_compile_warns_of_a_body_step_beyond_the_horizon_at_the_atom(tmp_path):
    from typer.testing import CliRunner

    from dedalus2asp.cli import app

    path = tmp_path / "late.ded"
    path.write_text("log(N, X)@next :- log(N, X);\nlate(N, X) :- log(N, X)@9;\nlog(a, 1)@1;\n")
    result = CliRunner().invoke(app, ["compile", str(path), "--horizon", "2", "-o", str(tmp_path / "out.lp")])
    assert result.exit_code == 0, result.output
    assert f"{path}:2:15: warning: this atom of rule 2 reads step 8, beyond the horizon 2" in result.output
    assert "late(" in (tmp_path / "out.lp").read_text()


@pytest.mark.parametrize("name, prog, instance", MULTI, ids=[m[0] for m in MULTI])
def test_the_program_at_the_level_of_traces_counts_the_traces(name, prog, instance):
    """`count` enumerates the trace-level program (templates/traces.lp.j2) under causality."""
    horizon = 3 if name == "events" else 2  # the events are at steps 1 and 3
    for semantics in (Semantics.CHOICE, Semantics.CAUSAL):
        compiled = transform(prog, instance, Bounds(horizon, semantics, Encoding.FAST, Network(max_delay=1)))
        assert (compiled.trace_text is not None) == semantics.causal
        counted = solve.count(compiled, progress=False, models=False)["traces"]
        assert counted == len(traces(prog, instance, horizon, semantics, Encoding.FAST, delay=1)), semantics


# -- random programs with the constructs: explorer = paper = fast -----------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

FUNCTIONS = st.sampled_from(["count", "sum", "min", "max"])
OPERATORS = st.sampled_from(["+", "-", "*", "/", "%"])


@st.composite
def constructs(draw) -> Program:
    """A program drawn from rule templates, each construct with drawn parameters (rules may be left out)."""
    f, g, op, k, c = draw(FUNCTIONS), draw(FUNCTIONS), draw(OPERATORS), draw(st.integers(0, 1)), draw(st.integers(-1, 2))
    pool = [
        rule(atom("s", "X", Aggregate(f, var("Y"))), pos("q", "X", "Y"),
             *([neg("p", "Y")] if draw(st.booleans()) else [])),
        rule(atom("t", Arithmetic(op, var("X"), const(c))), pos("p", "X")),
        rule(atom("u", "X"), pos("p", "X"), draw(st.sampled_from([neg("q", "X", "_"), neg("q", "_", "X"), neg("q", "_", "_")]))),
        rule(atom("m", "X"), pos("p", "X"), pos("peer", "Y"), kind=RuleKind.ASYNC, to="Y"),
        rule(atom("m", "X"), pos("m", "X"), kind=RuleKind.INDUCTIVE),
        rule(atom("w", "X"), pos("p", "X"), Literal(atom("m", "X"), negated=draw(st.booleans()), step=k)),
        rule(atom("n", Aggregate(g, var("X"))), pos("p", "X"), pos("peer", "Y"), kind=RuleKind.ASYNC, to="Y"),
        rule(atom("o", Aggregate(f, Arithmetic("+", var("X"), const(1)))), pos("m", "X"), kind=RuleKind.INDUCTIVE),
        rule(atom("r", "Y", Aggregate(g, Arithmetic(op, const(6), var("X")))), pos("q", "X", "Y")),
        rule(atom("cnt", Arithmetic("+", var("N"), const(1))), pos("cnt", "N"), Comparison("<", var("N"), const(2)),
             kind=RuleKind.INDUCTIVE),
        rule(atom("both", "X"), pos("m", "N1", "X"), pos("m", "N2", "X"), Comparison("!=", var("N1"), var("N2")),
             kind=RuleKind.GLOBAL),
        rule(atom("spread", Aggregate(g, var("N"))), pos("p", "N", "X"), kind=RuleKind.GLOBAL),
        rule(atom("none", "X"), pos("p", "N", "X"), neg("both", "X"), kind=RuleKind.GLOBAL),
    ]
    chosen = draw(st.lists(st.sampled_from(range(len(pool))), min_size=1, max_size=5, unique=True))
    return program(*(pool[i] for i in sorted(chosen)))


@st.composite
def small_inputs(draw):
    values = st.sampled_from(["0", "1", "2", '"x"'])  # a string: arithmetic on it has no value
    a = draw(st.lists(values, max_size=2, unique=True))
    b = draw(st.lists(values, max_size=2, unique=True))
    q = draw(st.lists(st.tuples(values, values), max_size=2, unique=True))
    block = lambda ps, peer: " ".join([f"p({v})." for v in ps] + [f"q({x}, {y})." for x, y in q] + [f"peer({peer}).", "cnt(0)."])
    return facts(f"a {{ {block(a, 'b')} }} b {{ {block(b, 'a')} }}")


@settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(constructs(), small_inputs(), st.integers(1, 2))
def test_random_programs_with_the_constructs_agree_three_ways(prog, instance, horizon):
    from dedalus2asp.lang.analysis import restrict
    from dedalus2asp.runs import operational

    bounds = Bounds(horizon, network=Network(max_delay=1))
    explored = set(operational.explore(prog, restrict(instance, prog), bounds, mode="traces").traces)
    for encoding in Encoding:
        assert traces(prog, instance, horizon, Semantics.CAUSAL, encoding, delay=1) == explored, encoding
