"""The fast encoding has the models of the paper's (docs/encodings.md: the same models and traces for every program, input, semantics and horizon).

A model of either encoding is fixed by its arrivals α (one per sent message: a step or pending);
the tests check that both encodings have the same number of models and the same set of traces,
for every example, the three semantics, horizons 1–3, with and without a delay bound, and on
random programs; and that `inspect.decode` reads the same traces and messages from both.

The golden files of both encodings (tests/golden/<encoding>/) and the runs under the real clingo
front end are tested with the transformations, in test_transform.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from dedalus2asp import inspect
from dedalus2asp.asp import solve
from dedalus2asp.lang.facts import load_instance, parse_facts
from dedalus2asp.lang.parser import load_program, parse_program
from dedalus2asp.pipeline import prepare
from dedalus2asp.asp.transform import transform
from dedalus2asp.bounds import Bounds, Encoding, Network, Semantics

from conftest import EXAMPLES, SMALL, example_id
from test_theorem4 import inputs, rules, well_formed

# --- equivalence on the examples -------------------------------------------------------------

# Model counts are compared up to CAP: below it exactly, above it only as "both exceed CAP".
# The cases in LARGE exceed it (the test checks that they do, so none is skipped silently):
# under `choice` every copy of a message picks any arrival step, and jcss2014 Alg. 1 broadcasts
# every edge of the closure at every step, so it has tens of millions of choice models already
# at T = 1, and more than CAP causal ones from T = 2 without a delay bound; tr2009 broadcast
# re-sends at every step too. Their traces (projective enumeration, far fewer) are compared
# exactly like every other case's.
CAP = 100_000
LARGE = {
    ("alg1", semantics, horizon, delay)
    for semantics in Semantics
    for horizon in (1, 2, 3)
    for delay in (None, 1)
    if semantics is Semantics.CHOICE or (horizon >= 2 and delay is None)
} | {
    ("broadcast", Semantics.CHOICE, 2, None),
    ("broadcast", Semantics.CHOICE, 2, 1),
    ("broadcast", Semantics.CHOICE, 3, None),
    ("broadcast", Semantics.CHOICE, 3, 1),
    ("broadcast", Semantics.CAUSAL, 3, None),
    ("broadcast", Semantics.CAUSAL_FINITE, 3, None),
} | {
    (name, Semantics.CHOICE, 3, None) for name in ("ex1_reachability", "ex2_ordering", "alg2", "alg4")
}

CASES = [
    (pair, semantics, horizon, delay)
    for pair in SMALL
    for semantics in Semantics
    for horizon in (1, 2, 3)
    for delay in (None, 1)
]


def capped_count(compiled) -> int:
    """The number of models, or CAP + 1 when there are more."""
    found = solve.enumerate_models(compiled, CAP + 1, keep=False, progress=False, timeout=60)
    assert found.complete
    return found.count


def trace_set(compiled) -> set:
    found = inspect.traces(compiled, timeout=60)
    assert found.complete
    return {m.trace for m in found.models}


@pytest.mark.parametrize(
    "pair, semantics, horizon, delay",
    CASES,
    ids=[f"{example_id(p)}-{s.value}-T{h}-D{d}" for p, s, h, d in CASES],
)
def test_fast_and_paper_have_the_same_models_and_traces(pair, semantics, horizon, delay):
    program, instance = load_program(EXAMPLES / pair[0]), load_instance(EXAMPLES / pair[1])
    paper, fast = (transform(program, instance, Bounds(horizon, semantics, e, Network(max_delay=delay))) for e in (Encoding.PAPER, Encoding.FAST))
    traces = trace_set(paper)
    assert traces and trace_set(fast) == traces
    count = capped_count(paper)
    assert capped_count(fast) == count
    assert (count > CAP) == ((example_id(pair), semantics, horizon, delay) in LARGE)


# Small enough to enumerate and decode every model of both encodings.
DECODED = [
    ("tplp2016/fig4_noncausal.ded", "tplp2016/fig4.facts", Semantics.CHOICE, 2, None),
    ("tplp2016/fig4_noncausal.ded", "tplp2016/fig4.facts", Semantics.CAUSAL, 3, None),
    ("tplp2016/ex3_2pc.ded", "tplp2016/ex3_2pc_small.facts", Semantics.CAUSAL_FINITE, 2, None),
    ("jcss2014/alg1.ded", "jcss2014/alg1.facts", Semantics.CAUSAL, 2, 1),
    ("jcss2014/alg3.ded", "jcss2014/alg3.facts", Semantics.CHOICE, 2, 1),
    ("tr2009/broadcast.ded", "tr2009/broadcast.facts", Semantics.CAUSAL, 3, 1),
]


@pytest.mark.parametrize("program, facts, semantics, horizon, delay", DECODED, ids=[f"{Path(d[0]).stem}-{d[2].value}" for d in DECODED])
def test_decoded_models_are_the_same(program, facts, semantics, horizon, delay):
    """Each model, decoded: the same trace and the same messages (α is the model), the same into-the-past flags."""

    def decoded(encoding):
        compiled = prepare(EXAMPLES / program, EXAMPLES / facts, Bounds(horizon, semantics, encoding, Network(max_delay=delay))).compiled
        found = inspect.enumerate_models(compiled, 0, progress=False)
        return [(m.trace, m.messages, m.noncausal()) for m in found.models]

    paper, fast = decoded(Encoding.PAPER), decoded(Encoding.FAST)
    assert len(set(paper)) == len(paper) > 1
    assert set(fast) == set(paper) and len(fast) == len(paper)


# --- the generated program ---------------------------------------------------------------------

FIG4 = "A()@async(X) :- Id(X).\nB()@async(X) :- A(), Id(X).\nT() :- A(), not B().\nT()@next :- T().\nB()@next :- B().\n"


def test_fast_program_has_no_before_and_no_other():
    text = transform(parse_program(FIG4, "fig4.ded"), parse_facts("z { Id(z). }", "fig4.facts"), Bounds(2, encoding=Encoding.FAST)).text
    for name in ("before(", "other_", "hasSender", "rcvInf", "arrival("):
        assert name not in text
    assert "#edge ((X,S),(X,T)) : all(X), tsucc(S,T)." in text
    assert "#edge ((X,S),(Y,T)) : chosen_B(X,S,Y,T), time(T), X != Y." in text
    assert "cand_B(X0,S,X) :- u_A(X0,S), u_Id(X0,S,X), all(X)." in text


def test_choice_semantics_has_no_edge():
    text = transform(parse_program(FIG4, "fig4.ded"), parse_facts("z { Id(z). }", "fig4.facts"), Bounds(2, Semantics.CHOICE, Encoding.FAST)).text
    assert "\n#edge" not in text
    assert "1 { chosen_A(X,S,Y,T) : time(T);\n    chosen_A(X,S,Y,pending) } 1 :- cand_A(X,S,Y)." in text


@pytest.mark.parametrize("semantics", list(Semantics), ids=lambda s: s.value)
def test_arrival_domain_matches_the_paper(semantics):
    """Self-addressed A() at each step: which arrivals each message may take, per encoding and delay bound."""
    program = parse_program("A()@async(X) :- Id(X).\n", "self.ded")
    instance = parse_facts("z { Id(z). }", "self.facts")
    for delay in (None, 0, 1, 2):
        arrivals = []
        for encoding in Encoding:
            compiled = transform(program, instance, Bounds(2, semantics, encoding, Network(max_delay=delay)))
            models = inspect.enumerate_models(compiled, 0, progress=False).models
            arrivals.append({tuple((m.sent, m.arrives) for m in model.messages) for model in models})
        assert arrivals[0] == arrivals[1]
        if semantics.causal and delay is None:
            # step 0 → 1, 2 or pending; step 1 → 2 or pending; step 2 → pending
            assert len(arrivals[0]) == 3 * 2 * 1
        if delay == 0:
            # pending is not allowed (0 + 0 <= 2), and the only steps left are at or before the send:
            # never causal; under choice, step s → any step 0..s
            assert len(arrivals[0]) == (0 if semantics.causal else 1 * 2 * 3)


def test_cycle_across_nodes_is_excluded():
    """a@0 sends m to b@0, which answers r: r arriving at a@0 closes a@0 → b@0 → a@0 (tplp2016 rule (9))."""
    program = parse_program("m()@async(Y) :- go(), peer(Y).\nr()@async(Y) :- m(), peer(Y).\n", "ping.ded")
    instance = parse_facts("a { go(). peer(b). }\nb { peer(a). }\n", "ping.facts")
    for semantics, expected in ((Semantics.CHOICE, 3), (Semantics.CAUSAL, 2), (Semantics.CAUSAL_FINITE, 2)):
        for encoding in Encoding:
            models = inspect.enumerate_models(transform(program, instance, Bounds(0, semantics, encoding)), 0, progress=False).models
            arrivals = {tuple((m.relation, m.arrives) for m in model.messages) for model in models}
            assert len(arrivals) == expected
            assert ((("m", 0), ("r", 0)) in arrivals) == (semantics is Semantics.CHOICE)


def test_count_reports_the_encoding():
    compiled = transform(parse_program(FIG4, "fig4.ded"), parse_facts("z { Id(z). }", "fig4.facts"), Bounds(1))
    assert compiled.bounds.encoding is Encoding.FAST
    assert solve.count(compiled, progress=False)["encoding"] == "fast"


# --- random programs -------------------------------------------------------------------------

RANDOM_CAP = 20_000


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(
    st.lists(rules(), min_size=1, max_size=3),
    inputs(),
    st.sampled_from(list(Semantics)),
    st.sampled_from([1, 2]),
    st.sampled_from([None, 1]),
)
def test_random_programs_fast_equals_paper(rule_texts, facts, semantics, horizon, max_delay):
    program = well_formed("\n".join(rule_texts))
    assume(program is not None)  # not stratifiable: the generator cannot rule that out cheaply
    instance = parse_facts(facts, "random.facts")
    paper, fast = (transform(program, instance, Bounds(horizon, semantics, e, Network(max_delay=max_delay))) for e in (Encoding.PAPER, Encoding.FAST))
    counts = [
        solve.enumerate_models(c, RANDOM_CAP + 1, keep=False, progress=False, timeout=60) for c in (paper, fast)
    ]
    assert all(c.complete for c in counts)
    assert counts[0].count == counts[1].count
    assert trace_set(paper) == trace_set(fast)


# --- the constructs of issue #18, on Molly's programs ----------------------------------------

MOLLY = sorted(
    p.name for p in (EXAMPLES / "molly").glob("*.ded")
    if "assert" not in p.name and "transparent" not in p.name and "@1;" in p.read_text(encoding="utf-8")
)
INVARIANTS = {"two_phase_commit": "commit_assert.ded", "two_phase_commit_timeout": "commit_assert.ded"}


@pytest.mark.parametrize("name", MOLLY)
def test_paper_and_fast_agree_on_molly_programs_with_their_invariants(name):
    """Aggregates, arithmetic, `_` in notin, body atoms at a step and global rules (the invariant
    files): the same models and traces in both encodings (they carry their own facts)."""
    invariant = INVARIANTS.get(name[:-4], "broadcast_assert.ded" if "broadcast" in name else None)
    paths = [EXAMPLES / "molly" / name] + ([EXAMPLES / "molly" / invariant] if invariant else [])
    for semantics, horizon in ((Semantics.CAUSAL_FINITE, 2), (Semantics.CHOICE, 1)):
        found = {}
        for encoding in Encoding:
            compiled = prepare(paths, None, Bounds(horizon, semantics, encoding, Network(max_delay=1)), "molly").compiled
            models = solve.count(compiled, progress=False)["models"]
            found[encoding] = (models, {m.trace for m in inspect.traces(compiled).models})
        assert found[Encoding.PAPER] == found[Encoding.FAST], semantics
