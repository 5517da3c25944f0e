"""The run a model stands for, both ways (tplp2016 Theorem 4, bounded to the horizon; docs/semantics.md).

(ii) model → run (§5.3.2): `Model.run` orders the steps by a linear extension of
happens-before and delivers each message at its arrival step; replaying that
schedule with the operational semantics (`operational.replay`, which shares no code
with the solver) must give the model's trace and leave exactly its pending messages
in the buffers. Checked on every example program with every input in examples/
(`EXAMPLES_WITH_INPUTS`), at horizons 1-3, with and without a delay bound.

(i) run → model (§5.2): a witness run prefix of `operational.explore`, written as
constraints on chosen_R (`inspect.run_constraints`), must leave the solver exactly
one model, whose trace is the run's.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from dedalus2asp import inspect
from dedalus2asp.runs import operational
from dedalus2asp.runs.evaluator import strata_of
from dedalus2asp.runs.local import Node
from dedalus2asp.lang.analysis import restrict, strata
from dedalus2asp.pipeline import prepare
from dedalus2asp.bounds import Bounds, Encoding, Network, Semantics

from conftest import EXAMPLES, SMALL, example_id

# Every example program of examples/ with each of its inputs (examples/README.md), except
# tr2009/example3_events, whose events need horizon 4 (an event beyond the horizon is an
# error); tests/test_located.py checks Theorem 4 on it.
EXAMPLES_WITH_INPUTS = [
    ("tplp2016/ex1_reachability.ded", "tplp2016/ex1_reachability.facts"),
    ("tplp2016/ex1_reachability.ded", "tplp2016/ex1_unreachable.facts"),
    ("tplp2016/ex2_ordering.ded", "tplp2016/ex2_ordering.facts"),
    ("tplp2016/ex2_ordering.ded", "tplp2016/ex2_ordering-large.facts"),
    ("tplp2016/ex3_2pc.ded", "tplp2016/ex3_2pc_yes.facts"),
    ("tplp2016/ex3_2pc.ded", "tplp2016/ex3_2pc_no.facts"),
    ("tplp2016/ex3_2pc.ded", "tplp2016/ex3_2pc_small.facts"),
    ("tplp2016/fig4_noncausal.ded", "tplp2016/fig4.facts"),
    ("tplp2016/fig5_grouping.ded", "tplp2016/fig5.facts"),
    ("jcss2014/alg1.ded", "jcss2014/alg1.facts"),
    ("jcss2014/alg1.ded", "jcss2014/alg1-large.facts"),
    ("jcss2014/alg2.ded", "jcss2014/alg2_empty.facts"),
    ("jcss2014/alg2.ded", "jcss2014/alg2_nonempty.facts"),
    ("jcss2014/alg3.ded", "jcss2014/alg3.facts"),
    ("jcss2014/alg3.ded", "jcss2014/alg3_empty.facts"),
    ("jcss2014/alg4.ded", "jcss2014/alg4.facts"),
    ("tr2009/mutable_state.ded", "tr2009/mutable_state.facts"),
    ("tr2009/mutable_state.ded", "tr2009/mutable_state-large.facts"),
    ("tr2009/priority_queue.ded", "tr2009/priority_queue.facts"),
    ("tr2009/broadcast.ded", "tr2009/broadcast.facts"),
    ("tr2009/broadcast.ded", "tr2009/broadcast-large.facts"),
    ("tr2009/broadcast_located.ded", "tr2009/broadcast_located.facts"),
    ("molly/reliable_delivery.ded", "molly/reliable_delivery.facts"),
    ("molly/broadcast.ded", "molly/broadcast.facts"),
]
MODELS_PER_CASE = 30


def pair_id(pair) -> str:
    return f"{example_id(pair)}[{pair[1].split('/')[-1].removesuffix('.facts')}]"


def check_run(model: inspect.Model, prepared) -> None:
    """The run of `model` is a run of §5.3.2 and replays to the model's trace and pending messages."""
    run = model.run()
    order = [(t.node, t.step) for t in run.transitions]
    assert sorted(order) == sorted(model.points())
    glob = {point: i for i, point in enumerate(order)}
    assert all(glob[a] < glob[b] for a, b in model.happens_before), "not a linear extension of happens-before"
    assert len(run.configurations) == len(run.transitions) + 1
    deductive = strata_of(strata(prepared.program))
    for t, before in zip(run.transitions, run.configurations):
        # transition i delivers m_i out of bf_i(x_i), and D_i = deduc_P(st_i(x_i) ∪ m_i ∪ E) is the model at
        # (x_i, s_i), where E are the input events of x_i at step s_i (tr2009 Example 3; none in tplp2016)
        assert set(t.delivered) <= set(before.buffers[t.node])
        received = {(m.relation, m.args) for m in t.delivered}
        events = {(f.predicate, f.args) for f in prepared.instance.facts[t.node] if f.step == t.step}
        assert Node().deduc(deductive, before.states[t.node] | received | events) == model.slice(t.node, t.step)
    assert {m for ms in run.configurations[-1].buffers.values() for m in ms} == set(model.pending)
    replayed = run.replay(prepared.program, prepared.instance)
    assert replayed.trace == model.trace
    assert replayed.pending == frozenset(m.buffered() for m in model.pending)
    assert inspect.agrees(model, replayed)


CASES = [(pair, horizon) for pair in EXAMPLES_WITH_INPUTS for horizon in (1, 2, 3)]


@pytest.mark.parametrize("pair, horizon", CASES, ids=[f"{pair_id(p)}-T{h}" for p, h in CASES])
def test_the_run_of_a_causal_model_replays_to_its_trace(pair, horizon):
    """tplp2016 Theorem 4 (ii), executable: the first models of every example."""
    prepared = prepare(EXAMPLES / pair[0], EXAMPLES / pair[1], Bounds(horizon, Semantics.CAUSAL_FINITE))
    models = inspect.enumerate_models(prepared.compiled, MODELS_PER_CASE, progress=False).models
    assert models
    for model in models:
        check_run(model, prepared)


@pytest.mark.parametrize("pair", SMALL, ids=[example_id(p) for p in SMALL])
def test_every_trace_at_horizon_2_with_a_delay_bound_replays(pair):
    """One model per distinct trace (projective enumeration), delay bound 1, the paper encoding."""
    prepared = prepare(EXAMPLES / pair[0], EXAMPLES / pair[1], Bounds(2, Semantics.CAUSAL, Encoding.PAPER, Network(max_delay=1)))
    found = inspect.traces(prepared.compiled, timeout=120)
    assert found.complete and found.models
    for model in found.models:
        check_run(model, prepared)


def test_a_model_into_the_past_stands_for_no_run():
    prepared = prepare(EXAMPLES / "tplp2016/fig4_noncausal.ded", EXAMPLES / "tplp2016/fig4.facts", Bounds(1, Semantics.CHOICE))
    models = inspect.enumerate_models(prepared.compiled, 0, progress=False).models
    noncausal = [m for m in models if m.noncausal()]
    assert noncausal and len(noncausal) < len(models)
    for model in noncausal:
        with pytest.raises(ValueError, match="into the past .* stands for no run"):
            model.run()
    for model in models:
        if not model.noncausal():
            check_run(model, prepared)


def run_models(prepared, transitions) -> list[inspect.Model]:
    constraints = inspect.run_constraints(prepared.compiled, prepared.program, prepared.instance, transitions)
    constrained = replace(prepared.compiled, text=prepared.compiled.text + constraints)
    return inspect.enumerate_models(constrained, 0, progress=False).models


WITNESSES_PER_CASE = 25
# (horizon, delay bound): exact exploration keeps senders apart, so jcss2014 Alg. 1 at horizon 2
# without a bound (over a million configurations) is left to the bounded case.
BOUNDS = [(1, None), (2, 1), (2, None)]
RUN_CASES = [
    (pair, horizon, delay, semantics)
    for pair in SMALL
    for horizon, delay in BOUNDS
    if not (pair[0] == "jcss2014/alg1.ded" and (horizon, delay) == (2, None))
    for semantics in (Semantics.CAUSAL, Semantics.CAUSAL_FINITE)
]


@pytest.mark.parametrize(
    "pair, horizon, delay, semantics",
    RUN_CASES,
    ids=[f"{example_id(p)}-T{h}-D{d}-{s.value}" for p, h, d, s in RUN_CASES],
)
def test_a_run_prefix_written_as_constraints_is_a_model(pair, horizon, delay, semantics):
    """tplp2016 Theorem 4 (i), bounded: the witness run of each explored trace is exactly one model."""
    bounds = Bounds(horizon, semantics, network=Network(max_delay=delay))
    prepared = prepare(EXAMPLES / pair[0], EXAMPLES / pair[1], bounds)
    explored = operational.explore(prepared.program, restrict(prepared.instance, prepared.program), bounds, mode="exact")
    assert explored.witnesses
    for trace, transitions in sorted(explored.witnesses.items(), key=lambda kv: sorted(kv[0]))[:WITNESSES_PER_CASE]:
        models = run_models(prepared, transitions)
        assert len(models) == 1, f"{len(models)} models for one run prefix"
        (model,) = models
        assert model.trace == trace
        assert frozenset(m.buffered() for m in model.pending) == operational.replay(
            prepared.program, prepared.instance, transitions
        ).pending
        check_run(model, prepared)


def test_constraints_of_a_run_name_each_arrival():
    """On Fig. 4 by hand: z sends A() at 0, it arrives at 1; the rest stays pending."""
    prepared = prepare(EXAMPLES / "tplp2016/fig4_noncausal.ded", EXAMPLES / "tplp2016/fig4.facts", Bounds(1, Semantics.CAUSAL))
    z = prepared.instance.network[0]
    transitions = [(z, []), (z, [(z, 0, ("A", ()))])]
    text = inspect.run_constraints(prepared.compiled, prepared.program, prepared.instance, transitions)
    assert text.splitlines() == [
        ":- not chosen_A(z,0,z,1).",
        ":- not chosen_A(z,1,z,pending).",
        ":- not chosen_B(z,1,z,pending).",
    ]
    (model,) = run_models(prepared, transitions)
    assert model.outputs() == ("T()",)
    # a delivery the run cannot make (A() was never sent at step 1) is rejected by the operational semantics
    with pytest.raises(ValueError, match="not in the buffer"):
        inspect.run_constraints(prepared.compiled, prepared.program, prepared.instance, [(z, [(z, 1, ("A", ()))])])
