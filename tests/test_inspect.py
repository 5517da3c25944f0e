"""Decoding models: traces, messages and their rules, happens-before, messages into the past, outputs, JSON."""

from __future__ import annotations

import json

import clingo
import pytest
from typer.testing import CliRunner

from dedalus2asp import inspect
from dedalus2asp import formats
from dedalus2asp.cli import app
from dedalus2asp.pipeline import prepare
from dedalus2asp.bounds import Bounds, Encoding, Network, Semantics

from conftest import EXAMPLES, SMALL, example_id

FIG4 = (EXAMPLES / "tplp2016/fig4_noncausal.ded", EXAMPLES / "tplp2016/fig4.facts")
Z = clingo.Function("z")


def models_of(program, facts, horizon, semantics, encoding=Encoding.FAST, limit=0, max_delay=None):
    compiled = prepare(program, facts, Bounds(horizon, semantics, encoding, Network(max_delay=max_delay))).compiled
    return inspect.enumerate_models(compiled, limit, progress=False).models


def arrivals(model) -> dict:
    return {(m.relation, m.sent): m.arrives for m in model.messages}


@pytest.mark.parametrize("pair", SMALL, ids=[example_id(p) for p in SMALL])
def test_causal_models_have_no_message_into_the_past(pair):
    models = models_of(EXAMPLES / pair[0], EXAMPLES / pair[1], 2, Semantics.CAUSAL, limit=200)
    assert models
    assert all(m.noncausal() == () for m in models)


@pytest.mark.parametrize("pair", SMALL, ids=[example_id(p) for p in SMALL])
def test_before_atoms_and_recomputed_happens_before_agree(pair):
    """tplp2016 §5.3.1: ≺_M read from `before` (paper encoding, rules (7), (8), (10)) is the closure of the edges."""
    models = models_of(EXAMPLES / pair[0], EXAMPLES / pair[1], 2, Semantics.CAUSAL, Encoding.PAPER, limit=100)
    assert models
    for model in models:
        assert model.before is not None
        assert model.happens_before == model.before == model.recomputed_happens_before()
        # a strict partial order (§5.3.1 Claim 5)
        assert not any((p, p) in model.happens_before for p in model.points())


def test_happens_before_is_recomputed_without_before_atoms():
    for encoding, semantics in [(Encoding.FAST, Semantics.CAUSAL), (Encoding.PAPER, Semantics.CHOICE)]:
        for model in models_of(*FIG4, 2, semantics, encoding, limit=20):
            assert model.before is None
            assert model.happens_before == model.recomputed_happens_before()


def test_happens_before_of_figure_4_by_hand():
    """A() sent at z:0 arrives at z:1, the rest is pending: ≺ is the local order of z's three steps."""
    (model,) = [
        m for m in models_of(*FIG4, 2, Semantics.CAUSAL)
        if arrivals(m) == {("A", 0): 1, ("A", 1): None, ("B", 1): None, ("A", 2): None}
    ]
    assert model.happens_before == {((Z, 0), (Z, 1)), ((Z, 0), (Z, 2)), ((Z, 1), (Z, 2))}
    assert model.outputs() == ("T()",)
    assert [p for p in model.linear_extension()] == [(Z, 0), (Z, 1), (Z, 2)]


def test_two_nodes_message_edges_join_the_lanes():
    """jcss2014 Alg. 1: a message a:0 → b:2 puts a:0 before b:2 and b:3, and nothing of b before a."""
    program, facts = EXAMPLES / "jcss2014/alg1.ded", EXAMPLES / "jcss2014/alg1.facts"
    a, b = clingo.Function("a"), clingo.Function("b")
    for model in models_of(program, facts, 3, Semantics.CAUSAL, limit=50):
        cross = [m for m in model.messages if m.sender != m.addressee and m.arrives is not None]
        for m in cross:
            assert (m.send, m.arrival) in model.happens_before
            assert all((m.send, (m.addressee, t)) in model.happens_before for t in range(m.arrives, 4))
        if not any(m.sender == b and m.addressee == a and m.arrives is not None for m in model.messages):
            assert not any(x == b and y == a for ((x, _), (y, _)) in model.happens_before)


def test_choice_model_of_figure_4_names_the_message_into_the_past():
    """tplp2016 §4.3.3: B() sent at z:1 arrives at z:0; A() (z:0 → z:1) lies on the same cycle of ≺ but is causal."""
    models = models_of(*FIG4, 2, Semantics.CHOICE)
    (paper,) = [m for m in models if arrivals(m) == {("A", 0): 1, ("A", 1): None, ("A", 2): None, ("B", 1): 0}]
    assert {(m.relation, m.sent, m.arrives) for m in paper.noncausal()} == {("B", 1, 0)}
    assert ((paper.network[0], 1), (paper.network[0], 0)) in paper.happens_before  # the cycle is there
    assert paper.outputs() == ()  # B() blocks T() at every step
    (same_step,) = [m for m in models if arrivals(m) == {("A", 0): 1, ("A", 1): None, ("A", 2): None, ("B", 1): 1}]
    assert {(m.relation, m.sent, m.arrives) for m in same_step.noncausal()} == {("B", 1, 1)}
    for model in models:
        flagged = set(model.noncausal())
        causal = [m for m in model.messages if m.arrival is not None and m not in flagged]
        # what is left is acyclic, and each flagged message closes a cycle with the causal messages sent before it
        assert all((b, a) not in closure(model_edges(model, causal)) for a, b in closure(model_edges(model, causal)))
        for m in flagged:
            earlier = [c for c in causal if c.sent <= m.sent]
            assert (m.arrival, m.send) in closure(model_edges(model, earlier)) or m.arrival == m.send
        assert bool(flagged) == any((b, a) in model.happens_before for a, b in model.happens_before)
    assert any(model.noncausal() for model in models)
    assert any(not model.noncausal() for model in models)


def model_edges(model, messages):
    """Local edges of the model and the message edges of `messages` (tplp2016 §5.2.1)."""
    local = [((x, s), (x, s + 1)) for x in model.network for s in range(model.horizon)]
    return local + [(m.send, m.arrival) for m in messages]


def closure(edges):
    """The transitive closure, written here independently of inspect.closure."""
    reach = {}
    for a, b in edges:
        reach.setdefault(a, set()).add(b)
    changed = True
    while changed:
        changed = False
        for a in list(reach):
            new = set().union(*(reach.get(b, set()) for b in reach[a])) - reach[a]
            if new:
                reach[a] |= new
                changed = True
    return {(a, b) for a in reach for b in reach[a]}


def test_outputs_are_united_over_nodes_at_the_last_step():
    """Outputs (what some node holds at the last step; docs/cron.md) on tplp2016 Ex. 1: covered() at step T
    of some node; missing() is not an output relation."""
    program, facts = EXAMPLES / "tplp2016/ex1_reachability.ded", EXAMPLES / "tplp2016/ex1_reachability.facts"
    models = models_of(program, facts, 2, Semantics.CAUSAL)
    for model in models:
        covered_at_t = any(r == "covered" and s == 2 for (_, s, r, _) in model.trace)
        assert model.outputs() == (("covered()",) if covered_at_t else ())
    assert {m.outputs() for m in models} == {(), ("covered()",)}
    # with a delay bound every start vertex arrives in time: covered() is certain
    assert {m.outputs() for m in models_of(program, facts, 2, Semantics.CAUSAL, max_delay=1)} == {("covered()",)}


def write(tmp_path, program: str, facts: str):
    (tmp_path / "p.ded").write_text(program)
    (tmp_path / "p.facts").write_text(facts)
    return tmp_path / "p.ded", tmp_path / "p.facts"


def test_the_rule_that_sent_each_message(tmp_path):
    """Two rules send m(X): each message names the one(s) whose body holds at the send step."""
    program = "m(X)@async(Y) :- a(X), n(Y).\nm(X)@async(Y) :- b(X), n(Y).\nk()@async(Y) :- n(Y).\n"
    files = write(tmp_path, program, "n(x).\nx { a(1). b(2). a(3). b(3). }\n")
    (model,) = models_of(*files, 0, Semantics.CAUSAL)
    rules = {(m.relation, tuple(map(str, m.args))): [r.number for r in model.sending_rules[m]] for m in model.messages}
    assert rules == {("m", ("1",)): [1], ("m", ("2",)): [2], ("m", ("3",)): [1, 2], ("k", ()): [3]}
    data = model.as_dict()
    three = [d for d in data["messages"] if d["args"] == ["3"]][0]
    assert three["rule"] == [
        {"number": 1, "text": "m(X)@async(Y) :- a(X), n(Y)."},
        {"number": 2, "text": "m(X)@async(Y) :- b(X), n(Y)."},
    ]


def test_json_document_follows_the_schema():
    """docs/trace-schema.md, through the command line."""
    result = CliRunner().invoke(
        app, ["models", str(FIG4[0]), "--input", str(FIG4[1]), "--horizon", "1", "-s", "choice", "-n", "0", "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["schema"] == formats.json.SCHEMA == "dedalus2asp/trace/1"
    assert {k: data[k] for k in ("semantics", "encoding", "horizon", "max_delay", "nodes", "complete")} == {
        "semantics": "choice", "encoding": "fast", "horizon": 1, "max_delay": None, "nodes": ["z"], "complete": True,
    }
    assert len(data["models"]) == 37  # tests/test_cli.py works this count out by hand
    for number, model in enumerate(data["models"], 1):
        assert set(model) == {"number", "trace", "global", "messages", "happens_before", "outputs"}
        assert model["global"] == []  # no global rule
        assert model["number"] == number
        for msg in model["messages"]:
            assert set(msg) == {"relation", "args", "from", "sent", "to", "arrives", "noncausal", "rule"}
            assert msg["rule"] and msg["rule"][0]["number"] == {"A": 1, "B": 2}[msg["relation"]]
            if msg["arrives"] is None or msg["arrives"] > msg["sent"]:
                assert not msg["noncausal"]  # one node: forward in time is causal
            else:
                assert msg["noncausal"] and ["z", msg["arrives"], "z", msg["sent"]] in model["happens_before"]
        assert ["z", 0, "z", 1] in model["happens_before"]
        assert model["outputs"] in ([], ["T()"])
    flags = [msg["noncausal"] for model in data["models"] for msg in model["messages"]]
    assert True in flags and False in flags


def test_text_rendering_names_rules_outputs_and_messages_into_the_past():
    models = models_of(*FIG4, 2, Semantics.CHOICE)
    (paper,) = [m for m in models if arrivals(m) == {("A", 0): 1, ("A", 1): None, ("A", 2): None, ("B", 1): 0}]
    text = formats.render(paper, "text")
    assert "B(): z@1 → z@0  [rule 2]   ← sent into the past (non-causal)" in text
    assert "A(): z@1 → z pending  [rule 1]\n" in text
    assert "outputs at step 2: none" in text
