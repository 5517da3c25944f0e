"""Tests of the operational semantics (tplp2016 §5.1) in dedalus2asp.runs.operational."""

from __future__ import annotations

from itertools import combinations_with_replacement, product
from pathlib import Path

import clingo
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from dedalus2asp import inspect
from dedalus2asp.lang.analysis import check
from dedalus2asp.lang.diagnostics import DiagnosticError
from dedalus2asp.runs.operational import (
    Message,
    StateLimitExceeded,
    explore,
    replay,
    run_trace,
)
from dedalus2asp.lang.facts import parse_facts
from dedalus2asp.runs.reduced import Reduced
from dedalus2asp.lang.parser import parse_program
from dedalus2asp.bounds import Bounds, Network


def sym(value):
    return clingo.Number(value) if isinstance(value, int) else clingo.Function(value)


def fact(predicate, *args):
    """A ground fact as operational.py represents it: (predicate, (symbols...))."""
    return (predicate, tuple(sym(a) for a in args))


def tf(node, step, predicate, *args):
    """A trace fact R(x, s, ā)."""
    return (sym(node), step, predicate, tuple(sym(a) for a in args))


# ---------------------------------------------------------------------------
# Transitions and runs (tplp2016 §5.1.3, §5.1.5)

FIGURE_4 = """
A()@async(X) :- Id(X).
B()@async(X) :- A(), Id(X).
T() :- A(), not B().
T()@next :- T().
B()@next :- B().
"""
Z = parse_facts("z { Id(z). }")


def fig4():
    return parse_program(FIGURE_4)


def msg(sender, step, addressee, predicate, *args):
    return Message(sym(sender), step, sym(addressee), fact(predicate, *args))


def test_run_trace_by_hand():
    # step 0: nothing can have arrived; A() is sent. step 1: A() arrives, T() is derived, A() and B() are sent.
    # step 2: B() arrives; T() is remembered, so T() holds although B() is there.
    transitions = [
        (sym("z"), []),
        (sym("z"), [(sym("z"), 0, fact("A"))]),
        (sym("z"), [(sym("z"), 1, fact("B"))]),
    ]
    run = replay(fig4(), Z, transitions)
    assert run.trace == {
        tf("z", 0, "Id", "z"),
        tf("z", 1, "Id", "z"), tf("z", 1, "A"), tf("z", 1, "T"),
        tf("z", 2, "Id", "z"), tf("z", 2, "B"), tf("z", 2, "T"),
    }
    assert run.pending == {msg("z", 1, "z", "A"), msg("z", 2, "z", "A")}
    assert run.steps == {sym("z"): 3}
    assert run_trace(fig4(), Z, transitions) == run.trace


def test_replay_rejects_illegal_deliveries():
    z = sym("z")
    with pytest.raises(ValueError, match="not in the buffer"):  # causality: not sent yet
        replay(fig4(), Z, [(z, [(z, 0, fact("A"))])])
    with pytest.raises(ValueError, match="not in the buffer"):  # delivered twice
        replay(fig4(), Z, [(z, []), (z, [(z, 0, fact("A"))]), (z, [(z, 0, fact("A"))])])
    with pytest.raises(ValueError, match="not in the buffer"):  # B() was never sent at step 0
        replay(fig4(), Z, [(z, []), (z, [(z, 0, fact("B"))])])
    with pytest.raises(ValueError, match="not a node"):
        replay(fig4(), Z, [(sym("y"), [])])


def test_fig4_horizon_1_exact():
    result = explore(fig4(), Z, Bounds(1))
    base = {tf("z", 0, "Id", "z"), tf("z", 1, "Id", "z")}
    late = frozenset(base)  # A() not delivered at step 1
    early = frozenset(base | {tf("z", 1, "A"), tf("z", 1, "T")})  # A() delivered at step 1
    assert result.traces == {late, early}
    assert result.pending == {
        late: {frozenset({msg("z", 0, "z", "A"), msg("z", 1, "z", "A")})},
        early: {frozenset({msg("z", 1, "z", "A"), msg("z", 1, "z", "B")})},
    }
    assert result.runs == 2


def test_fig4_horizon_2_pending_sets():
    result = explore(fig4(), Z, Bounds(2))
    id_ = {tf("z", s, "Id", "z") for s in range(3)}
    only_step_2 = frozenset(id_ | {tf("z", 2, "A"), tf("z", 2, "T")})
    # A() sent at 0 and 1 are both in the buffer at step 2: any non-empty subset of them arrives
    assert result.pending[only_step_2] == {
        frozenset({msg("z", 1, "z", "A"), msg("z", 2, "z", "A"), msg("z", 2, "z", "B")}),
        frozenset({msg("z", 0, "z", "A"), msg("z", 2, "z", "A"), msg("z", 2, "z", "B")}),
        frozenset({msg("z", 2, "z", "A"), msg("z", 2, "z", "B")}),
    }
    assert result.pending[frozenset(id_)] == {
        frozenset({msg("z", 0, "z", "A"), msg("z", 1, "z", "A"), msg("z", 2, "z", "A")})
    }


def fig4_traces_by_formula(horizon):
    """Figure 4 on {z}: a trace is fixed by the steps a_t where some A() arrives (any t ≥ 1: the A() sent
    at t-1 is always still buffered) and the step f where B() first arrives (never, or after a step with A()).
    Then B() holds from f on and T() from the first step with A() and without B()."""
    count = 0
    for bits in range(2**horizon):
        a = [False] + [bool(bits >> (t - 1) & 1) for t in range(1, horizon + 1)]
        firsts = [None] + [f for f in range(1, horizon + 1) if any(a[:f])]
        count += len(firsts)
    return count


@pytest.mark.parametrize("horizon, expected", [(0, 1), (1, 2), (2, 6), (3, 18), (4, 50)])
def test_fig4_trace_counts(horizon, expected):
    assert fig4_traces_by_formula(horizon) == expected
    result = explore(fig4(), Z, Bounds(horizon))
    assert len(result.traces) == expected
    for trace in result.traces:
        steps = range(horizon + 1)
        has = {(s, r) for (_, s, r, _) in trace}
        for s in steps:  # T() iff an earlier (or this) step had A() and not B()
            assert ((s, "T") in has) == any((u, "A") in has and (u, "B") not in has for u in range(s + 1))
            assert (s, "Id") in has


@pytest.mark.parametrize("horizon", [1, 2, 3, 4])
def test_fig4_delay_bound_1_is_deterministic(horizon):
    result = explore(fig4(), Z, Bounds(horizon, network=Network(max_delay=1)))
    (trace,) = result.traces
    expected = {tf("z", s, "Id", "z") for s in range(horizon + 1)}
    expected |= {tf("z", s, "A") for s in range(1, horizon + 1)}
    expected |= {tf("z", s, "T") for s in range(1, horizon + 1)}
    expected |= {tf("z", s, "B") for s in range(2, horizon + 1)}
    assert trace == expected
    # every message sent at s ≤ horizon - 1 arrived by s + 1; only those of the last step remain
    (pending,) = result.pending[trace]
    assert pending == {msg("z", horizon, "z", "A"), msg("z", horizon, "z", "B")}


def test_delay_bound_limits_pending_and_arrival():
    horizon, bound = 3, 2
    bounded = explore(fig4(), Z, Bounds(horizon, network=Network(max_delay=bound)))
    free = explore(fig4(), Z, Bounds(horizon))
    assert bounded.traces < free.traces
    for trace, sets in bounded.pending.items():
        for pending in sets:
            assert all(m.step + bound > horizon for m in pending)
        assert sets <= free.pending[trace]
    for trace, witness in bounded.witnesses.items():
        for t, (_, delivered) in enumerate(witness):  # one node: transition t is step t
            assert all(t <= step + bound for _, step, _ in delivered)
    # A() sent at 0 must arrive at step 1 or 2
    assert all(tf("z", 1, "A") in tr or tf("z", 2, "A") in tr for tr in bounded.traces)


def test_delay_bound_0_forbids_messages_to_oneself():
    # a message to oneself arrives at a later step (causality), never at its own step
    assert explore(fig4(), Z, Bounds(2, network=Network(max_delay=0))).traces == frozenset()


PING = """
ping(X)@async(Y) :- id(X), peer(Y).
got(X) :- ping(X).
got(X)@next :- got(X).
"""
AB_AND_C = parse_facts("peer(a). peer(b). peer(c). a { id(a). } b { id(b). }")


def test_two_nodes_message_outside_network_dropped():
    program = parse_program(PING)
    # horizon 0: ping(b) reaches a0 (b0 went first), or ping(a) reaches b0, or neither; not both (causality)
    assert len(explore(program, AB_AND_C, Bounds(0)).traces) == 3
    # horizon 1: a trace shows which ping arrives at which step. ping(a) at a1 and ping(b) at b1 are free (×4);
    # (ping(b) at a0, ping(a) at b0) is one of 00, 10, 01, and in each case ping(b) at a1 and ping(a)
    # at b1 can each happen or not, all four together (e.g. with 00: a0 b0 a1 b1): 3 × 4 × 4 = 48.
    result = explore(program, AB_AND_C, Bounds(1))
    assert len(result.traces) == 48
    c = sym("c")
    assert all(m.addressee != c for sets in result.pending.values() for p in sets for m in p)
    assert all(x != c for trace in result.traces for (x, *_) in trace)
    # each of a, b sends ping to a and b (not c) at steps 0 and 1: 8 messages, delivered or pending
    sent = {msg(x, s, y, "ping", x) for x in "ab" for s in (0, 1) for y in "ab"}
    assert all(p <= sent for sets in result.pending.values() for p in sets)
    assert frozenset().union(*(p for sets in result.pending.values() for p in sets)) == sent


def test_message_to_unknown_addressee_reaches_no_one():
    program = parse_program("to(Y)@async(Y) :- peer(Y).")
    result = explore(program, AB_AND_C, Bounds(1))
    assert {args for trace in result.traces for (_, _, r, args) in trace if r == "to"} == {(sym("a"),), (sym("b"),)}
    assert {(m.addressee, m.fact) for sets in result.pending.values() for p in sets for m in p} == {
        (sym(y), fact("to", y)) for y in "ab"
    }


def test_two_nodes_delay_bound_1():
    # ping(a) at a1 and ping(b) at b1 are forced; with neither ping at step 0, both pings sent at step 0 to
    # the other node arrive at step 1; with one at step 0 the other node's step-1 ping may arrive or not: 1+2+2
    result = explore(parse_program(PING), AB_AND_C, Bounds(1, network=Network(max_delay=1)))
    assert len(result.traces) == 5


def test_node_without_facts():
    program = parse_program("hello(X)@async(Y) :- id(X), peer(Y).\nseen(X) :- hello(X).")
    result = explore(program, parse_facts("a { id(a). peer(b). } b { }"), Bounds(1))
    a_part = {tf("a", s, r, *args) for s in (0, 1) for r, args in (("id", ["a"]), ("peer", ["b"]))}
    hello = {tf("b", s, "hello", "a") for s in (0, 1)}
    seen = {tf("b", s, "seen", "a") for s in (0, 1)}
    # b holds nothing at a step where no hello(a) arrives; one can arrive at b0 (a0 first) and one at b1
    expected = set()
    for s0 in (False, True):
        for s1 in (False, True):
            got = {s for s, on in ((0, s0), (1, s1)) if on}
            expected.add(frozenset(a_part | {f for f in hello | seen if f[1] in got}))
    assert result.traces == expected


def test_relation_both_input_and_derived():
    program = parse_program("r(X) :- s(X).\ns(Y)@next :- r(X), succ(X, Y).")
    instance = parse_facts("a { r(1). succ(1, 2). succ(2, 3). }")
    (trace,) = explore(program, instance, Bounds(2)).traces
    inputs = {tf("a", s, p, *args) for s in range(3) for p, args in (("r", [1]), ("succ", [1, 2]), ("succ", [2, 3]))}
    assert trace == inputs | {
        tf("a", 1, "s", 2), tf("a", 1, "r", 2),
        tf("a", 2, "s", 2), tf("a", 2, "s", 3), tf("a", 2, "r", 2), tf("a", 2, "r", 3),
    }


def test_comparisons_inside_explore_follow_clingo_order():
    program = parse_program("small(X) :- v(X), X < b.\nbig(X) :- v(X), X >= b.\nv(Y)@next :- v(X), w(X, Y), X != Y.")
    instance = parse_facts('a { v(a). v(b). v(1). v("s"). w(a, c). w(b, b). }')
    (trace,) = explore(program, instance, Bounds(1)).traces
    assert {(s, r, args) for (_, s, r, args) in trace if r in ("small", "big")} == {
        (0, "small", (sym(1),)), (0, "small", (sym("a"),)),
        (0, "big", (sym("b"),)), (0, "big", (clingo.String("s"),)),
        (1, "small", (sym(1),)), (1, "small", (sym("a"),)),
        (1, "big", (sym("b"),)), (1, "big", (clingo.String("s"),)), (1, "big", (sym("c"),)),
    }


def test_unused_input_relations_not_in_trace():
    (trace,) = explore(parse_program("p(X) :- q(X)."), parse_facts("a { q(1). other(2). }"), Bounds(0)).traces
    assert trace == {tf("a", 0, "q", 1), tf("a", 0, "p", 1)}


def brute_force(program, instance, horizon, max_delay=None):
    """Every schedule, without merging anything: {(trace, pending)} of all complete prefixes."""
    nodes = instance.network
    out = set()

    def go(schedule):
        run = replay(program, instance, schedule)
        if all(run.steps[x] == horizon + 1 for x in nodes):
            if max_delay is None or all(m.step + max_delay > horizon for m in run.pending):
                out.add((run.trace, run.pending))
            return
        for x in nodes:
            t = run.steps[x]
            if t > horizon:
                continue
            buffer = sorted(m for m in run.pending if m.addressee == x)
            for bits in range(2 ** len(buffer)):
                chosen = [m for k, m in enumerate(buffer) if bits >> k & 1]
                if max_delay is not None and any(t > m.step + max_delay for m in chosen):
                    continue
                go(schedule + [(x, [(m.sender, m.step, m.fact) for m in chosen])])

    go([])
    return out


@pytest.mark.parametrize(
    "text, instance, horizon, bound",
    [
        (FIGURE_4, Z, 3, None),
        (FIGURE_4, Z, 3, 1),
        (FIGURE_4, Z, 3, 2),
        (PING, AB_AND_C, 1, None),
        (PING, AB_AND_C, 1, 1),
        (PING, AB_AND_C, 1, 0),
    ],
    ids=["fig4-h3", "fig4-h3-d1", "fig4-h3-d2", "ping-h1", "ping-h1-d1", "ping-h1-d0"],
)
def test_explore_agrees_with_brute_force(text, instance, horizon, bound):
    program = parse_program(text)
    result = explore(program, instance, Bounds(horizon, network=Network(max_delay=bound)))
    ends = {(trace, pending) for trace, sets in result.pending.items() for pending in sets}
    assert ends == brute_force(program, instance, horizon, bound)
    assert result.runs == len(ends)
    assert result.traces == {trace for trace, _ in ends}


def test_witnesses_replay_to_their_trace():
    for program, instance, horizon in ((fig4(), Z, 3), (parse_program(PING), AB_AND_C, 1)):
        result = explore(program, instance, Bounds(horizon))
        assert result.witnesses.keys() == result.traces
        for trace, witness in result.witnesses.items():
            run = replay(program, instance, witness)
            assert run.trace == trace and run.pending in result.pending[trace]


def test_state_limit_and_progress():
    with pytest.raises(StateLimitExceeded, match="--max-states"):
        explore(fig4(), Z, Bounds(4), max_states=10)
    seen = []
    result = explore(parse_program(PING), AB_AND_C, Bounds(2), progress=seen.append)
    assert result.states > 10_000 and seen and seen[0] == 10_000


# ---------------------------------------------------------------------------
# mode="traces": the reduced search gives the same traces

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def example(name):
    """(program, instance) of examples/<name>.ded and .facts."""
    return parse_program((EXAMPLES / f"{name}.ded").read_text()), parse_facts((EXAMPLES / f"{name}.facts").read_text())


def both_modes(program, instance, horizon, bound=None, max_states=1_000_000):
    exact = explore(program, instance, Bounds(horizon, network=Network(max_delay=bound)), max_states=max_states)
    reduced = explore(program, instance, Bounds(horizon, network=Network(max_delay=bound)), mode="traces")
    return exact, reduced


@pytest.mark.parametrize(
    "name, horizon, bound",
    [
        ("fig4", h, d) for h in (1, 2, 3, 4) for d in (None, 0, 1, 2, 3)
    ]
    + [("ping", h, d) for h, d in ((0, None), (1, None), (1, 0), (1, 1), (1, 2), (2, 1))]
    + [("tr2009/broadcast", h, d) for h in (1, 2, 3) for d in (None, 1, 2)]
    + [("jcss2014/alg1", 1, d) for d in (None, 0, 1, 2)]
    + [("jcss2014/alg1", h, 1) for h in (2, 3)],
)
def test_traces_mode_same_traces_as_exact(name, horizon, bound):
    if name == "fig4":
        program, instance = fig4(), Z
    elif name == "ping":
        program, instance = parse_program(PING), AB_AND_C  # c is a peer outside the network
    else:
        program, instance = example(name)
    exact, reduced = both_modes(program, instance, horizon, bound)
    assert reduced.traces == exact.traces
    assert reduced.mode == "traces" and exact.mode == "exact"
    assert reduced.states <= exact.states
    assert reduced.runs == len(reduced.traces)
    assert reduced.pending == {} and reduced.witnesses == {}


def test_traces_mode_delivers_several_copies_under_a_delay_bound():
    # A() sent at 0 (deadline 2) and at 1 (deadline 3): the trace with A() at step 2 only needs both
    # delivered at step 2. Delivering only the earliest copy would force the other one at step 3.
    program = parse_program("A()@async(X) :- Id(X).")
    exact, reduced = both_modes(program, Z, 3, 2)
    only_2 = frozenset({tf("z", s, "Id", "z") for s in range(4)} | {tf("z", 2, "A")})
    assert only_2 in exact.traces
    assert reduced.traces == exact.traces


def test_traces_mode_alg1_matches_the_causal_models():
    # The exact search exceeds millions of configurations at horizon 2 (A and T edges re-sent at every step).
    from dedalus2asp.pipeline import prepare
    from dedalus2asp.bounds import Semantics

    program, instance = example("jcss2014/alg1")
    for horizon, count in ((2, 37), (3, 81)):
        result = explore(program, instance, Bounds(horizon), mode="traces", max_states=20_000)
        files = EXAMPLES / "jcss2014/alg1.ded", EXAMPLES / "jcss2014/alg1.facts"
        compiled = prepare(*files, Bounds(horizon, Semantics.CAUSAL)).compiled
        assert len(result.traces) == count
        assert result.traces == {m.trace for m in inspect.traces(compiled).models}


def test_traces_mode_arguments():
    with pytest.raises(ValueError, match="mode"):
        explore(fig4(), Z, Bounds(1), mode="fast")
    with pytest.raises(StateLimitExceeded, match="--max-states"):
        explore(fig4(), Z, Bounds(4), max_states=10, mode="traces")
    seen = []
    explore(*example("tr2009/broadcast"), Bounds(6), mode="traces", progress=seen.append)  # 32393 classes
    assert seen and seen[0] == 10_000


def arrival_patterns(deadlines, t, horizon):
    """The sets S of steps in t..horizon at which the buffered copies (deadline horizon + 1: none) of one fact
    can arrive, by brute force: each copy arrives at one step ≤ its deadline, or stays pending if it has none."""
    never = horizon + 1
    patterns = set()
    steps = [range(t, d + 1) if d < never else [*range(t, never), None] for d in deadlines]
    for assignment in product(*steps):
        patterns.add(frozenset(s for s in assignment if s is not None))
    return patterns


def test_copies_with_the_same_key_can_arrive_at_the_same_steps():
    # (1)-(2) and (N) of the reduction (runs.reduced) on one fact in isolation: the key (d_min, h) and the normalisation keep
    # the sets of steps at which the copies may arrive.
    horizon = 3
    reduced = Reduced(None, Bounds(horizon, network=Network(max_delay=1)))
    for t in range(horizon + 1):
        by_key = {}
        for size in range(1, 5):
            for deadlines in combinations_with_replacement(range(t, horizon + 2), size):
                patterns = arrival_patterns(deadlines, t, horizon)
                kept = reduced.normalise(deadlines, t)
                assert reduced.class_key(kept, t) == reduced.class_key(deadlines, t)
                assert arrival_patterns(kept, t, horizon) == patterns
                assert by_key.setdefault(reduced.class_key(deadlines, t), patterns) == patterns


RELATIONS = ("p", "q", "r")


@st.composite
def small_networks(draw):
    """A program with 1-4 rules over 1-3 unary relations (deductive, inductive, async to every peer or to the
    node named by the value), 1-2 nodes among the peers a and b, a small input, a horizon and a delay bound.

    One rule is asynchronous and node a holds a fact of its body relation, so that something is sent."""
    nodes = draw(st.sampled_from(["a", "ab"]))
    relations = RELATIONS[: draw(st.integers(1, 3))]
    relation = st.sampled_from(relations)
    negated = st.none() | relation
    kinds = ["", "@next", "@async(Y)", "@async(X)"]
    rules = [draw(st.tuples(st.sampled_from(kinds[2:]), relation, relation, negated))]  # at least one async rule
    rules += draw(st.lists(st.tuples(st.sampled_from(kinds), relation, relation, negated), max_size=3))
    lines = []
    for kind, head, body, negation in draw(st.permutations(rules)):
        guard = ", peer(Y)" if kind == "@async(Y)" else ""
        negation = f", not {negation}(X)" if negation else ""
        lines.append(f"{head}(X){kind} :- {body}(X){guard}{negation}.")
    held = st.sets(st.tuples(relation, st.sampled_from("ab")), max_size=3)
    facts = [draw(held) | {(rules[0][2], draw(st.sampled_from("ab")))}] + [draw(held) for _ in nodes[1:]]
    text = "peer(a). peer(b).\n" + "\n".join(
        f"{x} {{ {' '.join(f'{r}({v}).' for r, v in sorted(facts_x))} }}" for x, facts_x in zip(nodes, facts)
    )
    horizon = draw(st.integers(1, 2))
    bound = draw(st.none() | st.integers(0, 2))
    return "\n".join(lines), text, horizon, bound


@settings(max_examples=250, deadline=None)
@given(small_networks())
def test_traces_mode_agrees_on_small_programs(case):
    text, facts, horizon, bound = case
    try:
        program, instance = parse_program(text), parse_facts(facts)
        check(program, instance)
    except DiagnosticError:
        assume(False)  # e.g. not stratifiable
    try:
        exact, reduced = both_modes(program, instance, horizon, bound, max_states=5_000)
    except StateLimitExceeded:
        assume(False)
    assert reduced.traces == exact.traces


# ---------------------------------------------------------------------------
# Issue #18's constructs in the explorer: the two searches agree, witnesses replay, a run engine's
# synchronous run is one of the explored runs


from dedalus2asp.lang.ast import GLOBAL_NODE  # noqa: E402
from dedalus2asp.runs import evaluator  # noqa: E402
from dedalus2asp.runs.evaluator import Plan  # noqa: E402
from dedalus2asp.runs.local import Local  # noqa: E402
from dedalus2asp.runs.schedule import Schedule  # noqa: E402
from dedalus2asp.runs.values import SYMBOLS  # noqa: E402

from test_theorem4 import CONSTRUCTS  # noqa: E402


@pytest.mark.parametrize("name", sorted(CONSTRUCTS))
def test_constructs_both_searches_and_the_witnesses(name):
    program, instance = CONSTRUCTS[name]
    exact, reduced = both_modes(program, instance, 2, 1)
    assert reduced.traces == exact.traces
    for trace, witness in exact.witnesses.items():
        run = replay(program, instance, witness)
        assert run.trace == trace and run.pending in exact.pending[trace]
    # the explorer's nodes keep their memory of fixed steps in their state, never in a trace
    assert not {r for trace in exact.traces for _, _, r, _ in trace if r.startswith("@")}
    assert (name == "global") == any(x == GLOBAL_NODE for trace in exact.traces for x, *_ in trace)


@pytest.mark.parametrize("name", sorted(CONSTRUCTS))
def test_constructs_synchronous_run_engine_trace_is_explored(name):
    """`run --engine local` with every message arriving at the next step is one run prefix of the
    operational semantics: its trace (global facts included) is one of the explored traces."""
    program, instance = CONSTRUCTS[name]
    horizon = 2
    rows = [(x, f.predicate, f.args) for x, facts in instance.facts.items() for f in facts]
    backend = Local(instance.network, rows, values=SYMBOLS)
    deduced, _ = evaluator.execute(backend, Plan.of(program), horizon + 1, Schedule())
    trace = frozenset((x, t, r, tuple(args)) for x, t, r, args in backend.trace(deduced))
    explored = explore(program, instance, Bounds(horizon, network=Network(max_delay=1)), mode="traces")
    assert trace in explored.traces
