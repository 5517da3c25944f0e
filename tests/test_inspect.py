"""Decoding models: traces, messages, and messages sent into the past."""

from __future__ import annotations

import pytest

from dedalus2asp import solve
from dedalus2asp.pipeline import prepare
from dedalus2asp.transform import Semantics

from conftest import EXAMPLES, SMALL, example_id

FIG4 = (EXAMPLES / "tplp2016/fig4_noncausal.ded", EXAMPLES / "tplp2016/fig4.facts")


@pytest.mark.parametrize("pair", SMALL, ids=[example_id(p) for p in SMALL])
def test_causal_models_have_no_message_into_the_past(pair):
    compiled = prepare(EXAMPLES / pair[0], EXAMPLES / pair[1], 2, Semantics.CAUSAL).compiled
    found = solve.enumerate_models(compiled, 200, progress=False)
    assert found.models
    assert all(m.noncausal() == () for m in found.models)


def test_choice_model_of_figure_4_names_the_message_into_the_past():
    """tplp2016 §4.3.3: B() sent at step 1 of z arrives at step 0 of z."""
    compiled = prepare(*FIG4, 1, Semantics.CHOICE).compiled
    models = solve.enumerate_models(compiled, 0, progress=False).models
    flagged = {
        (m.relation, m.sent, m.arrives) for model in models for m in model.noncausal()
    }
    assert ("B", 1, 0) in flagged
    assert all(sent >= arrives for (_, sent, arrives) in flagged)
    # the models where B() arrives at step 0 are exactly those without T() at step 0
    for model in models:
        b_at_0 = any(m.relation == "B" and m.arrives == 0 for m in model.messages)
        t_at_0 = any(r == "T" and s == 0 for (_, s, r, _) in model.trace)
        assert not (b_at_0 and t_at_0)


def test_json_messages_carry_the_noncausal_flag():
    compiled = prepare(*FIG4, 1, Semantics.CHOICE).compiled
    data = [m.as_dict() for m in solve.enumerate_models(compiled, 0, progress=False).models]
    flags = [msg["noncausal"] for model in data for msg in model["messages"]]
    assert True in flags and False in flags
    pending = [msg for model in data for msg in model["messages"] if msg["arrives"] is None]
    assert pending and not any(msg["noncausal"] for msg in pending)
