"""`explain`: the derivation of a fact at a node and step, as a tree, as text, as DOT, and on the command line."""

from __future__ import annotations

import clingo
import pytest
from typer.testing import CliRunner

from dedalus2asp import inspect
from dedalus2asp.formats import render
from dedalus2asp.inspect import explain
from dedalus2asp.cli import app
from dedalus2asp.pipeline import prepare
from dedalus2asp.bounds import Bounds, Network, Semantics

from conftest import EXAMPLES, SMALL, example_id

EX1 = (EXAMPLES / "tplp2016/ex1_reachability.ded", EXAMPLES / "tplp2016/ex1_reachability.facts")
FIG4 = (EXAMPLES / "tplp2016/fig4_noncausal.ded", EXAMPLES / "tplp2016/fig4.facts")
a, b, z = clingo.Function("a"), clingo.Function("b"), clingo.Function("z")
v1, v2, v3 = clingo.Function("v1"), clingo.Function("v2"), clingo.Function("v3")


def models(files, horizon, semantics=Semantics.CAUSAL, limit=0, max_delay=None):
    compiled = prepare(*files, Bounds(horizon, semantics, network=Network(max_delay=max_delay))).compiled
    return inspect.enumerate_models(compiled, limit, progress=False).models


def arrivals(model) -> dict:
    return {(m.relation, str(m.sender), m.sent, str(m.addressee)): m.arrives for m in model.messages}


def test_reachability_back_to_the_message_and_the_input_facts():
    """marked(v2) at b:1 because marked(v1) arrived from a:0, and b's graph has v1 → v3 → v2 (rule 3 twice)."""
    (model,) = [m for m in models(EX1, 1) if arrivals(m) == {
        ("marked", "a", 0, "a"): None, ("marked", "a", 0, "b"): 1,
        ("marked", "a", 1, "a"): None, ("marked", "a", 1, "b"): None,
    }]
    d = explain.explain(model, b, 1, ("marked", (v2,)))
    assert render(d, "text") == (
        "marked(v2) at b:1: deduced by rule 3: marked(V) :- marked(U), R(U, V).\n"
        "  marked(v3) at b:1: deduced by rule 3: marked(V) :- marked(U), R(U, V).\n"
        "    marked(v1) at b:1: arrived from a (sent at a:0) by rule 1: marked(U)@async(Y) :- start(U), Node(Y).\n"
        "      start(v1) at a:0: input fact\n"
        "      Node(b) at a:0: input fact\n"
        "    R(v1, v3) at b:1: input fact\n"
        "  R(v3, v2) at b:1: input fact\n"
    )
    covered = explain.explain(model, b, 1, ("covered", ()))
    assert render(covered, "text") == (
        "covered() at b:1: deduced by rule 7: covered() :- not missing().\n  missing() absent at b:1\n"
    )


def test_carry_over_goes_back_step_by_step_and_names_other_reasons():
    """Fig. 4: T() at z:2 is carried over from z:1, where A() arrived and B() was absent."""
    (model,) = [m for m in models(FIG4, 2, max_delay=1)]
    d = explain.explain(model, z, 2, ("T", ()))
    assert d.reason.how == explain.CARRIED and d.at == (z, 1)
    assert [(p.fact, p.step, p.reason.how) for p in d.premises] == [(("T", ()), 1, explain.DEDUCED)]
    text = render(d, "text")
    assert text.splitlines()[:4] == [
        "T() at z:2: carried over from z:1 by rule 4: T()@next :- T().",
        "  T() at z:1: deduced by rule 3: T() :- A(), not B().",
        "    A() at z:1: arrived from z (sent at z:0) by rule 1: A()@async(X) :- Id(X).",
        "      Id(z) at z:0: input fact",
    ]
    assert "    B() absent at z:1" in text
    # B() at z:2 has one reason only: it arrived (B() was absent at z:1, so nothing carries it over)
    b2 = explain.explain(model, z, 2, ("B", ()))
    assert b2.reason.how == explain.ARRIVED and b2.also == ()


def test_a_fact_with_two_reasons_says_so():
    """Fig. 4 (horizon 3, delay 1): B() first arrives at z:2; at z:3 it arrives again (sent at z:2) and is
    also carried over from z:2 (rule 5)."""
    (model,) = models(FIG4, 3, max_delay=1)
    d = explain.explain(model, z, 3, ("B", ()))
    assert d.reason.how == explain.ARRIVED
    assert [r.how for r in d.also] == [explain.CARRIED]
    assert "[also carried over from z:2 by rule 5]" in render(d, "text")


def test_recursion_is_well_founded_on_every_fact_of_every_example():
    """Every fact of the first models of every example has a finite derivation ending in input facts
    (or a message whose sending rule has no body fact), each premise derived strictly earlier."""
    for pair in SMALL:
        files = (EXAMPLES / pair[0], EXAMPLES / pair[1])
        for model in models(files, 2, limit=5):
            lineage = explain.Lineage(model)
            for (x, s, r, args) in model.trace:
                d = lineage.derive(x, s, (r, args))
                for node in explain.premises_of(d):
                    if node.reason.how == explain.INPUT:
                        assert node.fact[0] in model.program.edb()
                    for p in node.premises:
                        assert (p.node, p.step) == node.at


@pytest.mark.parametrize("pair", SMALL[:4], ids=[example_id(p) for p in SMALL[:4]])
def test_choice_models_are_explained_too(pair):
    for model in models((EXAMPLES / pair[0], EXAMPLES / pair[1]), 1, Semantics.CHOICE, limit=20):
        lineage = explain.Lineage(model)
        for (x, s, r, args) in model.trace:
            lineage.derive(x, s, (r, args))


def test_a_fact_that_does_not_hold_is_an_error():
    (model,) = models(FIG4, 2, max_delay=1)
    with pytest.raises(ValueError, match=r"B\(\) does not hold at z:1 in model 1 \(z holds A\(\), Id\(z\), T\(\) there\)"):
        explain.explain(model, z, 1, ("B", ()))


def test_lineage_graph_in_dot():
    (model,) = models(FIG4, 2, max_delay=1)
    dot = render(explain.explain(model, z, 2, ("T", ())), "dot")
    assert dot.startswith("digraph lineage {") and dot.rstrip().endswith("}")
    assert dot.count("->") == 4  # T()@1 -> T()@2, A()@1 -> T()@1, not B()@1 -> T()@1, Id(z)@0 -> A()@1
    assert 'label="not B()\\nz:1", style=dashed' in dot
    assert 'label="Id(z)\\nz:0", shape=box' in dot
    assert '[label="message, rule 1", style=bold, color="#1f5fbf"]' in dot


def run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def test_explain_command_prints_the_tree_and_writes_dot(tmp_path):
    out = tmp_path / "lineage.dot"
    result = run("explain", FIG4[0], "--input", FIG4[1], "--horizon", 2, "--max-delay", 1, "--fact", "T()", "--at", "z:2", "--dot", out)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("T() at z:2: carried over from z:1 by rule 4: T()@next :- T().\n")
    assert out.read_text().startswith("digraph lineage {")


@pytest.mark.parametrize(
    "args, message",
    [
        (["--fact", "T()", "--at", "z2"], "--at must be NODE:STEP with a step 0, 1, 2, ... (e.g. a:3), not 'z2'"),
        (["--fact", "T()", "--at", "y:1"], "--at y:1: y is not a node of the network (z)"),
        (["--fact", "T()", "--at", "z:7"], "--at z:7: step 7 is beyond the horizon 2"),
        (["--fact", "T(", "--at", "z:1"], "--fact:1:3: error: unexpected"),
        (["--fact", "U()", "--at", "z:1"], "'U' is not a relation of"),
        (["--fact", "B()", "--at", "z:1"], "B() does not hold at z:1 in model 1"),
        (["--fact", "T()", "--at", "z:1", "--model", "2"], "--model 2: there are only 1 model(s) (causal-finite, horizon 2, delay ≤ 1); choose 1..1"),
    ],
)
def test_explain_command_errors(args, message):
    result = run("explain", FIG4[0], "--input", FIG4[1], "--horizon", 2, "--max-delay", 1, *args)
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output


# --- issue #18's constructs ----------------------------------------------------------------------

from dedalus2asp.asp.transform import transform  # noqa: E402
from dedalus2asp.lang.ast import GLOBAL_NODE  # noqa: E402

from test_theorem4 import CONSTRUCTS  # noqa: E402


def construct_models(name, horizon=2, max_delay=1, limit=40):
    program, instance = CONSTRUCTS[name]
    compiled = transform(program, instance, Bounds(horizon, Semantics.CAUSAL, network=Network(max_delay=max_delay)))
    return inspect.enumerate_models(compiled, limit, progress=False).models


@pytest.mark.parametrize("name", sorted(CONSTRUCTS))
def test_every_fact_of_every_model_has_a_derivation(name):
    """Every fact at every point (the global node's too) is explained, and each step's facts are exactly
    what deduc_P recomputes from its state and arrivals (`Lineage.reasons` checks it)."""
    for model in construct_models(name, limit=10):
        lineage = explain.Lineage(model)
        for x, s, r, args in sorted(model.trace):
            d = lineage.derive(x, s, (r, args))
            assert all(p.key in {q.key for q in explain.premises_of(p)} for p in d.premises)
            render(d, "text"), render(d, "dot")


def test_an_aggregate_is_explained_by_its_whole_group():
    s = clingo.String
    for model in construct_models("aggregates"):
        c = clingo.Function("c")
        tallies = [(args, step) for x, step, r, args in model.trace if x == c and r == "tally" and args[0] == s("tea")]
        for args, step in tallies:
            d = explain.explain(model, c, step, ("tally", args))
            voters = {p.fact[1][0] for p in d.premises if p.fact[0] == "ballots"}
            assert len(voters) == args[1].number and d.reason.group
            assert render(d, "text").startswith(f'tally("tea", {args[1].number}) at c:{step}: deduced by rule')


def test_a_body_atom_at_a_step_is_a_premise_at_that_step():
    found = 0
    for model in construct_models("steps", horizon=2):
        for x, step, r, args in model.trace:
            if r == "early":
                d = explain.explain(model, x, step, ("early", args))
                assert [(p.fact, p.step) for p in d.premises] == [(("log", args), 1)]
                found += 1
            if r == "late":
                d = explain.explain(model, x, step, ("late", args))
                assert d.absent == (("log", args),) and [p.step for p in d.premises] == [step]
    assert found


def test_a_global_fact_is_explained_by_the_facts_of_several_nodes():
    found = 0
    for model in construct_models("global"):
        for x, step, r, args in model.trace:
            if x == GLOBAL_NODE and r == "conflict":
                d = explain.explain(model, GLOBAL_NODE, step, ("conflict", args))
                assert {(p.node, p.step, p.fact[0]) for p in d.premises} == {(args[0], step, "decision"), (args[1], step, "decision")}
                found += 1
            if x == GLOBAL_NODE and r == "settled":
                d = explain.explain(model, GLOBAL_NODE, step, ("settled", args))
                assert {(p.node, p.step, p.fact[0]) for p in d.premises} == {(args[0], 1, "decision"), (GLOBAL_NODE, step, "deciders")}
    assert found


def test_explain_at_a_node_named_only_by_nodes(tmp_path):
    """Molly's -N: a node no fact names (b, named by `--nodes`) is a node of the network for `explain --at`."""
    program = tmp_path / "pp.ded"
    program.write_text('ping(B, A)@async :- peer(A, B);\npong(A, B)@async :- ping(B, A);\npeer("a","b")@1;\n')
    common = [str(program), "--eot", "3", "--nodes", "a,b", "--delivery", "sync"]
    done = CliRunner().invoke(app, ["explain", *common, "--fact", 'ping("a")', "--at", '"b":1'])
    assert done.exit_code == 0, done.output
    assert 'ping("a") at "b":1: arrived from "a" (sent at "a":0)' in done.output
    done = CliRunner().invoke(app, ["explain", *common, "--fact", 'ping("a")', "--at", '"c":1'])
    assert done.exit_code == 2 and '"c" is not a node of the network ("a", "b")' in done.output
