"""The ITF export read back with itf-py (the Informal Trace Format of Apalache and Quint, ADR-015):
one state per global step, the facts of every node, the messages sent, delivered and in flight."""

from __future__ import annotations

import json

import itf_py  # the dev extra: an independent reader of ITF
import pytest

from dedalus2asp import inspect
from dedalus2asp.bounds import Bounds, Network, Semantics
from dedalus2asp.formats import itf
from dedalus2asp.pipeline import prepare

from conftest import EXAMPLES

TWO_PC = (EXAMPLES / "tplp2016/ex3_2pc.ded", EXAMPLES / "tplp2016/ex3_2pc_yes.facts")
FIG4 = (EXAMPLES / "tplp2016/fig4_noncausal.ded", EXAMPLES / "tplp2016/fig4.facts")


def models_of(files, horizon, semantics=Semantics.CAUSAL, limit=1, max_delay=None):
    compiled = prepare(*files, Bounds(horizon, semantics, network=Network(max_delay=max_delay))).compiled
    return inspect.enumerate_models(compiled, limit, progress=False).models


def read_back(model):
    return itf_py.trace_from_json(json.loads(itf.itf_json(model, "ex.ded")))


def as_message(record) -> tuple:
    return (record.relation, tuple(record.args), record.sender, record.sent, record.addressee)


def key(m) -> tuple:
    return (m.relation, tuple(str(a) for a in m.args), str(m.sender), m.sent, str(m.addressee))


@pytest.mark.parametrize("max_delay", [None, 1])
def test_a_2pc_model_reads_back_state_by_state(max_delay):
    (model,) = models_of(TWO_PC, 3, max_delay=max_delay)
    trace = read_back(model)
    assert trace.vars == ["step", "facts", "sent", "delivered", "in_flight"]
    assert trace.meta["format"] == "ITF" and trace.meta["source"] == "ex.ded" and trace.meta["horizon"] == 3
    assert trace.meta["nodes"] == ["a1", "a2", "c"] and trace.meta["outputs"] == list(model.outputs())
    assert len(trace.states) == model.horizon + 1
    for k, state in enumerate(trace.states):
        assert state.meta == {"index": k} and state.values["step"] == k
        assert set(state.values) == set(trace.vars)
        for node in model.network:
            held = {(f.relation, tuple(f.args)) for f in state.values["facts"][str(node)]}
            assert held == {(r, tuple(map(str, a))) for r, a in model.slice(node, k)}
        sent = {as_message(r) for r in state.values["sent"]}
        delivered = {as_message(r) for r in state.values["delivered"]}
        flying = {as_message(r) for r in state.values["in_flight"]}
        assert sent == {key(m) for m in model.messages if m.sent == k}
        assert delivered == {key(m) for m in model.messages if m.arrives == k}
        assert flying == {key(m) for m in model.messages if m.sent <= k and (m.arrives is None or m.arrives > k)}
    # every message is sent in one state; the pending ones are still in flight in the last
    assert sum(len(s.values["sent"]) for s in trace.states) == len(model.messages)
    assert {as_message(r) for r in trace.states[-1].values["in_flight"]} == {key(m) for m in model.pending}


def test_integers_are_bigints_and_the_trace_survives_itf_py_round_trip():
    (model,) = models_of(TWO_PC, 3, max_delay=1)
    document = json.loads(itf.itf_json(model))

    def plain_ints(value) -> list:
        if isinstance(value, bool) or isinstance(value, str):
            return []
        if isinstance(value, int):
            return [value]
        if isinstance(value, list):
            return [i for v in value for i in plain_ints(v)]
        if isinstance(value, dict):
            return [i for k, v in value.items() if k != "#meta" for i in plain_ints(v)]
        return []

    assert plain_ints(document["states"]) == []  # values write integers as {"#bigint": "k"}; "#meta" is free
    trace = itf_py.trace_from_json(document)
    assert itf_py.trace_from_json(itf_py.trace_to_json(trace)) == trace


def test_a_choice_model_names_its_messages_into_the_past():
    models = models_of(FIG4, 2, Semantics.CHOICE, limit=0)
    (model,) = [
        m for m in models
        if {(x.relation, x.sent): x.arrives for x in m.messages} == {("A", 0): 1, ("A", 1): None, ("A", 2): None, ("B", 1): 0}
    ]
    trace = read_back(model)
    assert [(m["relation"], m["sent"], m["arrives"]) for m in trace.meta["noncausal"]] == [("B", 1, 0)]
    # B() is delivered in state 0, before the state it is sent in
    assert [r.relation for r in trace.states[0].values["delivered"]] == ["B"]
    assert "B" in {r.relation for r in trace.states[1].values["sent"]}
    assert not any(r.relation == "B" for s in trace.states for r in s.values["in_flight"])
