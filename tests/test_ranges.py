"""Value ranges (`lang.ranges`, docs/semantics.md "Finite beyond syntax"): guarded moves are finite, a `!=` bounds
nothing, and a counter compared only with constants may be cut one past its largest constant. The cut is proved
against the unabstracted bounded runs: the traces of the cut program are exactly those of the program with every
counter value v replaced by min(v, m), so every other fact, the outputs among them, is the same up to the horizon."""

from __future__ import annotations

import random

import clingo
import pytest

from dedalus2asp.bounds import Bounds, Network
from dedalus2asp.lang import coordination, ranges
from dedalus2asp.lang.analysis import restrict
from dedalus2asp.lang.facts import parse_facts
from dedalus2asp.lang.parser import load_program, parse_program
from dedalus2asp.runs import eventual, operational
from dedalus2asp.bounds import Mode

from conftest import EXAMPLES


def kinds(text: str) -> dict[str, str]:
    return {r: kind for r, kind, _ in ranges.analyse(parse_program(text)).report()}


@pytest.mark.parametrize("name", ["molly/timer.ded", "molly/countdown.ded", "molly/two_phase_commit_timeout.ded"])
def test_molly_timers_are_finite(name):
    program = load_program(EXAMPLES / name)
    found = ranges.analyse(program)
    assert found.finite and not found.counters
    assert coordination.analyse(program).temporally_safe
    assert dict((r, k) for r, k, _ in found.report())["timer_state"] == "finite"


def test_a_disequality_bounds_nothing():
    text = "p(X + 1)@next :- p(X), X != 3.\n.output p.\n"
    assert not coordination.analyse(parse_program(text)).temporally_safe
    assert kinds(text) == {"p": "unbounded"}  # an output: its values are observed, so it is not cut
    assert kinds("p(X + 1)@next :- p(X), X < 3.\n") == {"p": "finite"}
    assert kinds("p(X - 2)@next :- p(X), 0 < X.\n") == {"p": "finite"}
    assert kinds("p(X - 1)@next :- p(X), X < 3.\n") == {"p": "unbounded"}  # the guard bounds the wrong side


def test_a_counter_read_only_by_constants_is_cut():
    text = "t(J, N + 1)@next :- t(J, N).\nfire(J) :- t(J, 2).\nlate(J) :- t(J, C), C > 4.\n.output fire.\n.output late.\n"
    found = ranges.analyse(parse_program(text))
    assert found.finite and [c.cut for c in found.counters] == [5]
    assert not coordination.analyse(parse_program(text)).temporally_safe  # as written it grows
    assert coordination.analyse(parse_program(text)).finite_when_cut


@pytest.mark.parametrize("text, why", [
    ("t(N + 1)@next :- t(N).\nw() :- t(N), s(N).\n", "rule 2 joins on N"),  # a join on a counter value
    ("t(N + 1)@next :- t(N).\nw() :- u(M), not t(M).\nu(1).\n", "rule 2 joins on M"),  # a negation matching it
    ("t(N + 1)@next :- t(N).\nw(N) :- t(N).\n.output w.\n", "its values are observed (w is an output"),
    ("t(N + 1)@next :- t(N).\nw() :- t(N), N > M, s(M).\n", "rule 2 compares it in 'N > M'"),  # with a variable
    ("t(N * 2)@next :- t(N).\n", "rule 1 computes 'N * 2', not an increment by a constant"),
    ("t(N + 1)@next :- t(N).\nm()@async(N) :- t(N).\n", "rule 2 sends to the node N"),
    ("t(N + 1)@next :- t(N).\nc(count<N>) :- t(N).\n", "rule 2 aggregates it ('count<N>')"),
])
def test_what_is_not_cut(text, why):
    found = ranges.analyse(parse_program(text))
    assert not found.counters
    # the report says which rule computes the value and why no cut applies: `check`, and an eventual answer's reason
    assert f"rule 1 computes 'N {'*' if '*' in text else '+'} " in found.words(found.unbounded[0])
    assert f"and it is no counter to cut: {why}" in found.words(found.unbounded[0])


def test_an_explorer_graph_that_closes_proves_finiteness():
    # as written p grows; on this input it never starts: the graph closes, so the threshold search may run
    from dedalus2asp.questions.models import not_exact
    program = parse_program("p(X + 1)@next :- p(X), go().\nq() :- p(X), r(X).\n.output q.\n")
    instance = parse_facts("a { p(0)@0. r(7). }")
    bounds = Bounds(1, mode=Mode.EVENTUAL, network=Network(delivery="sync"))
    assert ranges.analyse(program).unbounded
    assert not_exact(program, bounds, instance) == ""
    assert not_exact(program, bounds, parse_facts("a { p(0)@0. r(7). go(). }")).startswith("the program may compute")


# ---------------------------------------------------------------------------------------------------------------
# The cut, proved against the unabstracted bounded runs

def abstracted(trace, cut: dict) -> frozenset:
    """The trace with every value v at a counter position replaced by min(v, m)."""
    out = set()
    for node, step, relation, args in trace:
        args = tuple(clingo.Number(min(v.number, cut[(relation, i)])) if (relation, i) in cut else v
                     for i, v in enumerate(args))
        out.add((node, step, relation, args))
    return frozenset(out)


def traces(program, instance, horizon, max_delay):
    network = Network(max_delay=max_delay) if max_delay else Network(delivery="sync")
    return operational.explore(program, restrict(instance, program), Bounds(horizon, network=network), mode="traces").traces


def counter_program(rng: random.Random) -> str:
    """A random program with a counter t(J, N): incremented, restarted, sent, and read by constants only."""
    c = rng.randint(1, 3)
    rules = [f"t(J, N + {rng.randint(1, 2)})@next :- t(J, N){rng.choice(['', ', go(J)', ', not stop(J)'])}.",
             rng.choice(["t(J, 0) :- s(J).", "t(J, 0)@next :- s(J), not w(J).", "t(J, 1)@async(Y) :- s(J), node(Y)."])]
    readers = [f"f(J) :- t(J, {c}).", f"g(J) :- t(J, N), N > {c}.", f"h(J) :- s(J), not t(J, {c}).",
               f"stop(J)@next :- t(J, N), N >= {c + 1}.", f"w(J)@next :- t(J, N), N != {c}.",
               f"m(J, N)@async(Y) :- t(J, N), node(Y), N < {c}.", "t(J, N) :- m(J, N).",
               "f(J)@next :- f(J).", "g(J)@next :- g(J)."]
    rules += rng.sample(readers, rng.randint(2, 5))
    heads = {r.split("(")[0] for r in rules} & {"f", "g", "h", "w"}
    return "\n".join(rules) + "\n" + "".join(f".output {r}.\n" for r in sorted(heads))


def test_the_cut_keeps_every_run_up_to_the_horizon():
    """α(traces of P) = traces of cut(P) on random counter programs and on Nemo's timer shape, sync and delay ≤ 1:
    the same facts outside the counter class (the outputs among them) in every bounded run, and the counter's
    values cut at m."""
    rng = random.Random(36)
    cases = [("t(J, N + 1)@next :- t(J, N).\nt(J, 0) :- s(J).\nfire(J) :- t(J, 2).\nlate(J) :- t(J, C), C > 1.\n"
              ".output fire.\n.output late.\n")] + [counter_program(rng) for _ in range(24)]
    instance = parse_facts("a { s(j). go(j). node(a). node(b). }\nb { s(k). }")
    checked = 0
    for k, text in enumerate(cases):
        program = parse_program(text)
        found = ranges.analyse(program, instance)
        if not found.counters:
            continue
        cut = {p: c.cut for c in found.counters for p in c.positions}
        shortened = ranges.cut(program, instance)
        assert ranges.analyse(shortened, instance).finite
        for max_delay in (None, 1):
            horizon = 4 if max_delay else 5
            expected = {abstracted(t, cut) for t in traces(program, instance, horizon, max_delay)}
            assert {frozenset(t) for t in traces(shortened, instance, horizon, max_delay)} == expected, text
        checked += 1
    assert checked >= 15


def test_the_explorer_and_the_solver_run_the_cut_program():
    text = ("start(J)@async(Y) :- job(J), node(Y).\ntimerr(J, 0) :- start(J).\ntimerr(J, N + 1)@next :- timerr(J, N).\n"
            "fired(J) :- timerr(J, C), C > 1.\n.output fired.\n")
    program, instance = parse_program(text), parse_facts("a { job(j). node(b). }\nb { }")
    bounds = Bounds(1, mode=Mode.EVENTUAL, network=Network(delivery="sync"))
    answer = eventual.explore(program, instance, bounds)
    assert answer.exact and answer.ultimate_outputs == (("fired(j)",),)
    from dedalus2asp.questions.models import ultimate_outputs
    solved = ultimate_outputs(program, instance, bounds, ("fired",))
    assert solved.exact and [sorted(o) for o in solved.outputs] == [["fired(j)"]]


# ZK-1270's shape (Nemo's case study, docs/molly.md): a counter whose every value is sent, persisted and counted, the
# count compared only with 1. No cut is sound: one at m merges the values from m on, so a run that loses the values
# below m counts 1 forever where the unabstracted run counts 2 from the next arrival on.
COUNTED = ("a(C + 1)@next :- a(C).\nat(C)@async(Y) :- a(C), node(Y).\nat(C)@next :- at(C).\nn(count<C>) :- at(C).\n"
           "one() :- n(1).\n.output one.\n")


@pytest.mark.parametrize("m", [2, 3])
def test_a_counted_counter_is_not_cut(m):
    instance = parse_facts("a { a(1)@0. node(b). }\nb { }")
    program = parse_program(COUNTED)
    found = ranges.analyse(program, instance)
    assert not found.counters and {r for r, kind, _ in found.report() if kind == "unbounded"} == {"a", "at", "n"}
    cut = parse_program(COUNTED.replace("a(C + 1)@next :- a(C).",
                                        f"a(C + 1)@next :- a(C), C <= {m - 1}.\na({m})@next :- a(C), C > {m - 1}."))
    network = Network(delivery="sync", loss_until=2)  # the sends of steps 0 and 1, values 1 and 2, may be lost

    def steps_with_one(p):
        runs = operational.explore(p, restrict(instance, p), Bounds(5, network=network), mode="traces").traces
        return {tuple(s for _, s, relation, _ in sorted(t) if relation == "one") for t in runs}

    assert (3, 4, 5) in steps_with_one(cut)  # the values below m lost: the count stays 1 from the first arrival on
    assert not any(len(s) > 2 for s in steps_with_one(program))  # unabstracted: at most two steps count 1
