"""The fast encoding at the level of traces (templates/traces.lp.j2) has the traces of the fast encoding.

Under causality `count` counts distinct traces on `Compiled.trace_text`, where the copies of a
message that a node sends to itself get no arrival each: the program chooses the steps R(w)
arrives at and checks that the copies can be assigned to them (Hall's condition on intervals, and
a place for every copy). Here its projected models, read as sets of trace atoms, are compared
with those of the fast encoding (itself equal to the paper's, test_fast.py) on every example, both
causal semantics, horizons 1–3, delay bounds none/0/1/2, on random programs, and on the corners
the conditions are about; and the program `compile --traces` writes is run under `python -m clingo`.
"""

from __future__ import annotations

import subprocess
import sys

import clingo
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from dedalus2asp.asp import solve
from dedalus2asp.lang.facts import load_instance, parse_facts
from dedalus2asp.lang.parser import load_program, parse_program
from dedalus2asp.asp.transform import transform
from dedalus2asp.asp.relations import persisted
from dedalus2asp.bounds import Bounds, Encoding, Network, Semantics

from conftest import EXAMPLES, SMALL, example_id
from test_cli import ok
from test_theorem4 import inputs, rules, well_formed

DELAYS = (None, 0, 1, 2)


def projected(compiled, by_trace: bool) -> set[frozenset[str]]:
    """The distinct traces: each projected model as the set of its trace atoms."""
    ctl = solve.control(compiled, ["0"], project=True, by_trace=by_trace)
    found: set[frozenset[str]] = set()
    ctl.solve(on_model=lambda m: found.add(frozenset(str(s) for s in m.symbols(atoms=True) if s.name in compiled.relations)))
    return found


def same_traces(compiled) -> set[frozenset[str]]:
    assert compiled.trace_text is not None  # else both sides would be the fast encoding itself
    expected = projected(compiled, by_trace=False)
    assert projected(compiled, by_trace=True) == expected
    return expected


CAUSAL = [Semantics.CAUSAL, Semantics.CAUSAL_FINITE]
CASES = [(pair, semantics, delay) for pair in SMALL for semantics in CAUSAL for delay in DELAYS]


@pytest.mark.parametrize(
    "pair, semantics, delay", CASES, ids=[f"{example_id(p)}-{s.value}-D{d}" for p, s, d in CASES]
)
def test_examples_have_the_same_traces(pair, semantics, delay):
    program, instance = load_program(EXAMPLES / pair[0]), load_instance(EXAMPLES / pair[1])
    for horizon in (1, 2, 3):
        same_traces(transform(program, instance, Bounds(horizon, semantics, Encoding.FAST, Network(max_delay=delay))))


PERSISTENCE = ["p(U)@next :- p(U).", "q(U)@next :- q(U).", "r(U, V)@next :- r(U, V)."]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(
    st.lists(rules(), min_size=1, max_size=3).flatmap(
        lambda drawn: st.lists(st.sampled_from(PERSISTENCE), max_size=2, unique=True).map(lambda kept: drawn + kept)
    ),
    inputs(),
    st.sampled_from(CAUSAL),
    st.sampled_from([1, 2, 3]),
    st.sampled_from(DELAYS),
)
def test_random_programs_have_the_same_traces(rule_texts, facts, semantics, horizon, max_delay):
    program = well_formed("\n".join(rule_texts))
    assume(program is not None)  # not stratifiable: the generator cannot rule that out cheaply
    same_traces(transform(program, parse_facts(facts, "random.facts"), Bounds(horizon, semantics, Encoding.FAST, Network(max_delay=max_delay))))


# --- the corners of the conditions ------------------------------------------------------------

SEND = "A()@async(X) :- go(), Id(X).\n"


def traces(program: str, facts: str, horizon: int, semantics=Semantics.CAUSAL, delay=None) -> set[frozenset[str]]:
    compiled = transform(parse_program(program, "t.ded"), parse_facts(facts, "t.facts"), Bounds(horizon, semantics, Encoding.FAST, Network(max_delay=delay)))
    return same_traces(compiled)


def arrivals(found: set[frozenset[str]]) -> set[tuple[int, ...]]:
    """The steps A() holds at, per trace."""
    return {tuple(sorted(int(a[len("u_A(z,") : -1]) for a in trace if a.startswith("u_A("))) for trace in found}


def test_one_copy_reaches_one_step():
    """Hall's condition: one A() sent at step 0 arrives at one of steps 1..3 or stays pending, never at two."""
    assert arrivals(traces(SEND, "z { Id(z). go()@0. }", 3)) == {(), (1,), (2,), (3,)}


def test_two_copies_reach_at_most_two_steps():
    """Sent at steps 0 and 1: any two of steps 1..3 except that step 1 can only take the first copy."""
    found = arrivals(traces(SEND, "z { Id(z). go()@0. go()@1. }", 3))
    assert found == {(), (1,), (2,), (3,), (1, 2), (1, 3), (2, 3)}


def test_a_copy_sent_later_cannot_take_an_earlier_step():
    """Sent at steps 1 and 2: step 2 can take only the first; steps 2 and 3 need both; step 1 none."""
    found = arrivals(traces(SEND, "z { Id(z). go()@1. go()@2. }", 3))
    assert found == {(), (2,), (3,), (2, 3)}


def test_a_copy_counts_only_for_steps_after_it():
    """Sent at steps 0 and 2: steps 1 and 2 both need the copy of step 0 (the one of step 2 reaches 3 only)."""
    found = arrivals(traces(SEND, "z { Id(z). go()@0. go()@2. }", 3))
    assert found == {(), (1,), (2,), (3,), (1, 3), (2, 3)}
    # the same with D = 2: the copy of step 0 must land at step 1 or 2
    found = arrivals(traces(SEND, "z { Id(z). go()@0. go()@2. }", 3, delay=2))
    assert found == {(1,), (2,), (1, 3), (2, 3)}


def test_a_copy_counts_only_for_steps_within_its_delay():
    """D = 2: the copy of step 0 reaches steps 1 and 2, not 3; it lands at 1, where A() holds anyway, or 2."""
    program = SEND + "A() :- here().\n"
    assert arrivals(traces(program, "z { Id(z). go()@0. here()@1. }", 3, delay=2)) == {(1,), (1, 2)}


def test_a_persistent_relation_gets_one_witness_per_trace():
    """With `A()@next :- A().` an arrival at a step where A() holds already is no second witness."""
    program = SEND + "A()@next :- A().\n"
    found = arrivals(traces(program, "z { Id(z). go()@0. go()@1. }", 3))
    assert found == {(), (1, 2, 3), (2, 3), (3,)}
    compiled = transform(parse_program(program, "t.ded"), parse_facts("z { Id(z). go()@0. go()@1. }", "t.facts"), Bounds(3))
    ctl = clingo.Control(["0"])  # every model of the program at the level of traces is its own trace
    ctl.add("base", [], compiled.trace_text)
    ctl.ground([("base", [])])
    assert sum(1 for _ in ctl.solve(yield_=True)) == len(found)


@pytest.mark.parametrize(
    "rule, persists",
    [
        ("p(X,Y)@next :- p(X,Y).", True),
        ("p()@next :- p().", True),
        ("p(X,X)@next :- p(X,X).", False),
        ("p(X,Y)@next :- p(Y,X).", False),
        ("p(X)@next :- p(X), q(X).", False),
        ("p(a)@next :- p(a).", False),
        ("p(X) :- p(X), q(X).", False),
    ],
)
def test_persistence_rules(rule, persists):
    assert (persisted(parse_program(rule + "\n", "p.ded")) == {"p"}) is persists


def test_no_program_at_the_level_of_traces_under_choice():
    """Under choice a copy can arrive before it is sent and support what sends it. Here n1's p(a) at
    step 1 could only come from n1's own copy of step 1 (n2's copy of step 2 must take step 2, D = 0):
    it supports itself. Choosing steps alone, with Hall's condition, would admit that trace."""
    program = parse_program(
        "r(U, U)@async(Y) :- p(U), nd(Y).\np(U) :- e(U, U).\np(U)@async(Y) :- p(U), r(U, U), nd(Y).\n", "loop.ded"
    )
    instance = parse_facts("nd(n1). nd(n2).\nn1 { }\nn2 { p(a). }\n", "loop.facts")
    compiled = transform(program, instance, Bounds(2, Semantics.CHOICE, Encoding.FAST, Network(max_delay=0)))
    assert compiled.trace_text is None
    assert solve.count(compiled, progress=False, models=False)["traces"] == 42
    assert transform(program, instance, Bounds(2, Semantics.CAUSAL, Encoding.FAST, Network(max_delay=0))).trace_text is not None


def test_the_delay_bound_forces_a_landing():
    """With D = 1 the copy sent at step 0 must arrive at step 1 (pending only when 0 + 1 > 3)."""
    assert arrivals(traces(SEND, "z { Id(z). go()@0. }", 3, delay=1)) == {(1,)}
    assert arrivals(traces(SEND, "z { Id(z). go()@0. go()@1. }", 3, delay=1)) == {(1, 2)}
    assert arrivals(traces(SEND, "z { Id(z). go()@2. }", 2, delay=1)) == {()}  # 2 + 1 > 2: pending
    assert traces(SEND, "z { Id(z). go()@0. }", 3, delay=0) == set()  # no later step, no pending


def test_a_copy_may_land_where_the_fact_holds_anyway():
    """D = 1: the copy sent at step 0 lands at step 1, where A() also holds by a deductive rule."""
    program = SEND + "A() :- here().\n"
    assert arrivals(traces(program, "z { Id(z). go()@0. here()@1. }", 3, delay=1)) == {(1,)}
    # without the arrival step taken by the rule, the copy must bring A() itself
    assert arrivals(traces(program, "z { Id(z). go()@0. here()@2. }", 3, delay=1)) == {(1, 2)}


def test_copies_from_another_node_and_from_itself():
    """z and w both send A() to z: a step reached by w's copy needs none of z's; w's copy obeys causality."""
    program = "A()@async(Y) :- go(), to(Y).\n"
    facts = "z { to(z). go()@0. }\nw { to(z). go()@0. }"
    for semantics in CAUSAL:
        for delay in (None, 1):
            found = arrivals(traces(program, facts, 2, semantics, delay))
            assert found  # both programs agree (same_traces); the sets differ by semantics and bound
    assert arrivals(traces(program, facts, 2, Semantics.CAUSAL)) == {(), (0,), (1,), (2,), (0, 1), (0, 2), (1, 2)}


# --- what `count` and `compile --traces` use ----------------------------------------------------


FIG4 = (EXAMPLES / "tplp2016/fig4_noncausal.ded", EXAMPLES / "tplp2016/fig4.facts")


def test_count_uses_the_program_at_the_level_of_traces():
    compiled = transform(load_program(FIG4[0]), load_instance(FIG4[1]), Bounds(4))
    assert "arrives_A" in compiled.trace_text and "arrives_A" not in compiled.text
    counted = solve.count(compiled, progress=False)
    assert counted["traces"] == len(projected(compiled, by_trace=False)) == 50
    assert counted["models"] > counted["traces"]
    paper = transform(load_program(FIG4[0]), load_instance(FIG4[1]), Bounds(4, encoding=Encoding.PAPER))
    assert paper.trace_text is None and solve.count(paper, progress=False)["traces"] == 50
    with pytest.raises(ValueError):
        solve.enumerate_models(compiled, 0, project=True, by_trace=True)  # it cannot decode messages


@pytest.mark.parametrize("encoding", list(Encoding), ids=lambda e: e.value)
def test_compile_traces_runs_under_clingo(tmp_path, encoding):
    out = tmp_path / "fig4.lp"
    ok("compile", FIG4[0], "-i", FIG4[1], "-T", 6, "--encoding", encoding.value, "--traces", "-o", out)
    run = subprocess.run([sys.executable, "-m", "clingo", str(out), "0", "--project", "-q"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "Models       : 322\n" in run.stdout
    assert ("arrives_A" in out.read_text()) == (encoding is Encoding.FAST)
