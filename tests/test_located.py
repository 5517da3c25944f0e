"""Located Dedalus (tr2009 §6.2–6.4), the Molly dialect and timestamped input events.

Each located or Molly example must have the models of its hand-translated
location-transparent twin (counts and traces, through clingo), timestamped
events must behave as in tr2009 Example 3, bounded Theorem 4 must still hold
with events (ASP traces = operational traces), and located programs and inputs
must be refused with precise messages when they mix locations.
"""

from __future__ import annotations

import json
from pathlib import Path

import clingo
import pytest
from typer.testing import CliRunner

from dedalus2asp import inspect
from dedalus2asp import pipeline
from dedalus2asp.asp import solve
from dedalus2asp.runs import operational
from dedalus2asp.lang.analysis import restrict
from dedalus2asp.cli import app
from dedalus2asp.lang.diagnostics import DiagnosticError, format_diagnostic
from dedalus2asp.lang.convert import located_text
from dedalus2asp.lang.located import LocatedProgram
from dedalus2asp.lang.facts import parse_facts, parse_json
from dedalus2asp.lang.parser import detect_dialect, load_program, parse_program, parse_source
from dedalus2asp.asp.transform import transform
from dedalus2asp.bounds import Bounds, Network, Semantics

from conftest import EXAMPLES, SMALL

# (located program, its input, transparent twin, its input, horizon, delay bound, semantics)
TWINS = [
    ("tr2009/broadcast_located", "tr2009/broadcast_located", "tr2009/broadcast", "tr2009/broadcast", 2, None, Semantics.CAUSAL),
    ("tr2009/broadcast_located", "tr2009/broadcast_located", "tr2009/broadcast", "tr2009/broadcast", 3, 1, Semantics.CAUSAL_FINITE),
    ("molly/reliable_delivery", "molly/reliable_delivery", "molly/reliable_delivery_transparent",
     "molly/reliable_delivery_transparent", 3, 1, Semantics.CHOICE),
    ("molly/reliable_delivery", "molly/reliable_delivery", "molly/reliable_delivery_transparent",
     "molly/reliable_delivery_transparent", 3, None, Semantics.CAUSAL),
    ("molly/broadcast", "molly/broadcast", "molly/broadcast_transparent", "molly/broadcast_transparent", 3, 1, Semantics.CAUSAL),
    ("molly/broadcast", "molly/broadcast", "molly/broadcast_transparent", "molly/broadcast_transparent", 2, 1, Semantics.CHOICE),
]


def prepared(program: str, facts: str, horizon: int, semantics=Semantics.CAUSAL_FINITE, max_delay=None):
    bounds = Bounds(horizon, semantics, network=Network(max_delay=max_delay))
    return pipeline.prepare(EXAMPLES / f"{program}.ded", EXAMPLES / f"{facts}.facts", bounds)


def traces(compiled) -> set:
    found = inspect.traces(compiled, timeout=120)
    assert found.complete
    return {m.trace for m in found.models}


@pytest.mark.parametrize("located, facts, twin, twin_facts, horizon, delay, semantics", TWINS,
                         ids=[f"{t[0]}-T{t[4]}-D{t[5]}-{t[6].value}" for t in TWINS])
def test_located_example_has_the_models_of_its_twin(located, facts, twin, twin_facts, horizon, delay, semantics):
    one = prepared(located, facts, horizon, semantics, delay).compiled
    other = prepared(twin, twin_facts, horizon, semantics, delay).compiled
    counted = solve.count(one, timeout=120)
    assert counted["complete"] and counted["models"] > 1
    assert (counted["models"], counted["traces"]) == (lambda c: (c["models"], c["traces"]))(solve.count(other, timeout=120))
    assert traces(one) == traces(other)


def test_the_located_broadcast_compiles_to_the_transparent_program():
    """The generated program is what the equivalent tplp2016 program gives (up to its header)."""
    body = lambda p: p.compiled.text.split("\n", 1)[1]  # noqa: E731 - the first line names the file
    located = prepared("tr2009/broadcast_located", "tr2009/broadcast_located", 2)
    twin = prepared("tr2009/broadcast", "tr2009/broadcast", 2)
    assert [str(r) for r in located.program.rules] == [str(r) for r in twin.program.rules]
    assert body(located) == body(twin)


def test_the_molly_dialect_is_detected_and_notin_is_not():
    source = parse_source(
        "p(N, X) :- q(N, X), notin r(N, X);\ns(M, X)@async :- p(N, X), peer(N, M);\n", "m.ded"
    )
    assert isinstance(source, LocatedProgram) and source.dialect == "molly"
    assert [str(r) for r in source.program.rules] == [
        "p(X) :- q(X), not r(X).",
        "s(X)@async(M) :- p(X), peer(M).",
    ]


@pytest.mark.parametrize("text, dialect", [
    ("p(X) :- q(X).", "transparent"),
    ("p(X)@async(Y) :- q(X), n(Y).", "transparent"),
    ("p(#L, X) :- q(#L, X).", "located"),
    ("p(L, X) :- q(L, X), notin r(L, X);", "molly"),
    ('include "lib.ded";', "molly"),
    ("p(a, 1)@2;", "molly"),
    ("p(M, X)@async :- q(L, X), n(L, M);", "molly"),
])
def test_detect_dialect(text, dialect):
    assert detect_dialect(text) == dialect


def test_a_rule_that_uses_its_own_location_reads_the_node_identity():
    """`ack(#S, R, M)@async :- data(#R, S, M)` needs R as a value: R is tied to the node by id(R)."""
    source = parse_source("ack(#S, R, M)@async :- data(#R, S, M).\nseen(#a, X) :- got(#a, X).\n", "ack.ded")
    assert [str(r) for r in source.program.rules] == [
        "ack(R, M)@async(S) :- data(S, M), id(R).",
        "seen(X) :- got(X), id(a).",
    ]
    instance = source.instance(parse_facts("data(b, a, m).\nc { }", "ack.facts", source.columns))
    assert {str(n): [str(f) for f in fs] for n, fs in instance.facts.items()} == {
        "b": ["id(b)", "data(a, m)"], "c": ["id(c)"]
    }


def test_the_identity_relation_does_not_capture_a_user_relation():
    source = parse_source("id(#L, X) :- q(#L, X).\nr(#L, L) :- q(#L, X).\n", "p.ded")
    assert str(source.program.rules[1]) == "r(L) :- q(X), node_id(L)."


def test_a_rule_keeps_a_self_message_with_the_identity():
    source = parse_source("p(#L, X)@async :- q(#L, X).", "p.ded")
    assert str(source.program.rules[0]) == "p(X)@async(L) :- q(X), id(L)."


def test_located_input_facts_and_json_agree():
    columns = {"link": 0, "p": 1}
    facts = parse_facts("link(a, b). p(1, b, 2)@3.\nc { }\n", "h.facts", columns)
    data = parse_json('{"facts": {"link": [["a", "b"]], "p@3": [[1, "b", 2]]}, "nodes": {"c": {}}}', "h.json", columns)
    expected = {"a": ["link(b)"], "b": ["p(1, 2)@3"], "c": []}
    assert {str(n): [str(f) for f in fs] for n, fs in facts.facts.items()} == expected
    assert {str(n): [str(f) for f in fs] for n, fs in data.facts.items()} == expected


def test_events_in_transparent_json():
    data = parse_json('{"nodes": {"z": {"p@1": [[1, 2]], "q": [[3]]}}}', "h.json")
    assert [(str(f), f.step) for f in data.facts[clingo.Function("z")]] == [("p(1, 2)@1", 1), ("q(3)", None)]


def test_a_located_input_fact_outside_its_block_is_refused():
    with pytest.raises(DiagnosticError) as info:
        parse_facts("a { link(b, c). }", "h.facts", {})
    (d,) = info.value.diagnostics
    assert "located at 'b' but written in the block of node 'a'" in d.message


def test_a_located_input_fact_without_a_location_column_is_refused():
    with pytest.raises(DiagnosticError) as info:
        parse_facts("start.", "h.facts", {})
    (d,) = info.value.diagnostics
    assert d.message.startswith("'start()' has no location column") and "e.g. start(a)" in d.message


def test_an_async_addressee_must_match_the_head_location():
    with pytest.raises(DiagnosticError) as info:
        parse_source("p(#M, X)@async(Y) :- q(#L, X), n(#L, M), n(#L, Y).", "p.ded")
    assert "the head's location is the addressee" in info.value.diagnostics[0].message


def test_an_event_may_only_follow_a_fact():
    with pytest.raises(DiagnosticError) as info:
        parse_source("p(#L, X)@3 :- q(#L, X).", "p.ded")
    assert info.value.diagnostics[0].code == "event-rule"


def test_molly_relations_are_warned_about():
    source = parse_source("late(N, X) :- got(N, X), clock(N, N, 1, 2);\nup(N) :- got(N, X), notin crash(N, N, 1);", "m.ded")
    # crash is the network's (--crashes, docs/faults.md): no warning
    assert [(w.code, w.message.split(" ")[0]) for w in source.warnings] == [("molly-relation", "'clock'")]
    assert all("ordinary relation here: empty unless the input gives it" in w.message for w in source.warnings)


def test_include_is_resolved_and_a_cycle_is_an_error(tmp_path):
    (tmp_path / "lib.ded").write_text("q(N, X)@next :- q(N, X);\n")
    (tmp_path / "main.ded").write_text('include "lib.ded";\np(N, X) :- q(N, X), notin r(N, X);\n')
    program = load_program(tmp_path / "main.ded")
    assert [(str(r), r.origin) for r in program.rules] == [("q(X)@next :- q(X).", "from lib.ded"), ("p(X) :- q(X), not r(X).", None)]
    (tmp_path / "loop.ded").write_text('include "loop.ded";\n')
    with pytest.raises(DiagnosticError) as info:
        load_program(tmp_path / "loop.ded", "molly")
    assert "includes itself" in info.value.diagnostics[0].message
    (tmp_path / "gone.ded").write_text('include "nope.ded";\n')
    with pytest.raises(DiagnosticError) as info:
        load_program(tmp_path / "gone.ded", "molly")
    (d,) = info.value.diagnostics
    assert (d.line, d.col) == (1, 1) and "cannot read included file 'nope.ded'" in d.message


def test_a_problem_in_an_included_file_is_reported_in_that_file(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "inner.ded").write_text("a(X, Y)@next :- a(X, Y);\nb(X, Z) :- a(X, Y);\n")
    (tmp_path / "sub" / "lib.ded").write_text('include "inner.ded";\n')
    (tmp_path / "main.ded").write_text('include "sub/lib.ded";\n\nc(X, Y) :- b(X, Y), notin d(X, Y);\n')
    with pytest.raises(DiagnosticError) as info:
        pipeline.load(tmp_path / "main.ded")
    (d,) = [d for d in info.value.diagnostics if d.is_error]
    assert d.code == "unsafe-variable" and "(from inner.ded)" in d.message
    assert (Path(d.filename), d.line, d.col) == (tmp_path / "sub" / "inner.ded", 2, 6)
    assert format_diagnostic(d).splitlines()[1].strip() == "b(X, Z) :- a(X, Y);"  # the included file's own line
    result = runner.invoke(app, ["check", str(tmp_path / "main.ded")])
    assert result.exit_code == 2 and f"{tmp_path / 'sub' / 'inner.ded'}:2:6: error: unsafe variable 'Z'" in result.output


def test_transparent_programs_convert_to_located_and_back():
    for program_path, _ in SMALL:
        program = load_program(EXAMPLES / program_path)
        if not all(any(hasattr(b, "atom") for b in r.body) for r in program.rules):
            continue  # a rule without body atoms has no located equivalent
        back = parse_source(located_text(program), "back.ded", "located")
        assert [str(r) for r in back.program.rules] == [str(r) for r in program.rules], program_path
        assert back.identity is None


# ---------------------------------------------------------------------------
# Timestamped events (tr2009 Example 3)


def steps_of(trace, relation: str, args: tuple) -> list[int]:
    return sorted(s for _, s, r, a in trace if r == relation and tuple(v.number for v in a) == args)


def test_example_3_mutable_state_with_events():
    """p(1,2)@101, p(1,3)@102, p_neg(1,2)@300 scaled to steps 1, 2, 4: p_pos(1,2) holds at 1..4 (the paper's
    @200 is step 3) and not at 5 (@301); p_pos(1,3) from step 2 on; the events themselves hold at their step only."""
    compiled = prepared("tr2009/example3_events", "tr2009/example3_events", 5).compiled
    (trace,) = traces(compiled)
    assert steps_of(trace, "p_pos", (1, 2)) == [1, 2, 3, 4]
    assert steps_of(trace, "p_pos", (1, 3)) == [2, 3, 4, 5]
    assert steps_of(trace, "p", (1, 2)) == [1]
    assert steps_of(trace, "p_neg", (1, 2)) == [4]
    assert "p(z,1,1,2)." in compiled.text and "% An input event" in compiled.text


def test_an_event_beyond_the_horizon_is_an_error():
    with pytest.raises(DiagnosticError) as info:
        prepared("tr2009/example3_events", "tr2009/example3_events", 3)
    (d,) = info.value.diagnostics
    assert d.code == "event-beyond-horizon" and "beyond the horizon 3" in d.message
    program, instance, _ = pipeline.load(EXAMPLES / "tr2009/example3_events.ded", EXAMPLES / "tr2009/example3_events.facts")
    with pytest.raises(DiagnosticError):
        operational.explore(program, instance, Bounds(3))


# (program, input, horizons): bounded Theorem 4 with events and located programs
THEOREM4 = [
    ("tr2009/example3_events", "tr2009/example3_events", (4, 5)),
    ("molly/reliable_delivery", "molly/reliable_delivery", (1, 2, 3)),
    ("molly/broadcast", "molly/broadcast", (1, 2)),
]


@pytest.mark.parametrize("program, facts, horizons", THEOREM4, ids=[t[0] for t in THEOREM4])
@pytest.mark.parametrize("max_delay", [None, 1])
def test_bounded_theorem_4_with_events(program, facts, horizons, max_delay):
    ir, instance, _ = pipeline.load(EXAMPLES / f"{program}.ded", EXAMPLES / f"{facts}.facts")
    assert any(f.step is not None for fs in instance.facts.values() for f in fs)
    for horizon in horizons:
        explored = operational.explore(ir, restrict(instance, ir), Bounds(horizon, network=Network(max_delay=max_delay)), mode="traces")
        for semantics in (Semantics.CAUSAL, Semantics.CAUSAL_FINITE):
            bounds = Bounds(horizon, semantics, network=Network(max_delay=max_delay))
            assert traces(transform(ir, instance, bounds)) == set(explored.traces)


def test_an_event_joins_the_input_of_its_step_only_in_a_replay():
    program = parse_program("seen(X) :- p(X).\nlog(X)@next :- seen(X).\n")
    instance = parse_facts("z { p(1)@1. }")
    z = clingo.Function("z")
    run = operational.replay(program, instance, [(z, ()), (z, ()), (z, ())])
    held = sorted((s, r) for _, s, r, _ in run.trace)
    assert held == [(1, "p"), (1, "seen"), (2, "log")]


# ---------------------------------------------------------------------------
# The command line


runner = CliRunner()


def test_every_command_accepts_a_molly_program():
    prog, facts = str(EXAMPLES / "molly/reliable_delivery.ded"), str(EXAMPLES / "molly/reliable_delivery.facts")
    assert runner.invoke(app, ["check", prog]).exit_code == 0
    compiled = runner.invoke(app, ["compile", prog, "--input", facts, "--horizon", "2"])
    assert compiled.exit_code == 0 and "all(b)." in compiled.stdout and "send(a,0,b,m1)." in compiled.stdout
    counted = runner.invoke(app, ["count", prog, "--input", facts, "--horizon", "2", "--json"])
    explored = runner.invoke(app, ["explore", prog, "--input", facts, "--horizon", "2", "--json"])
    assert counted.exit_code == explored.exit_code == 0
    assert json.loads(counted.stdout)["traces"] == json.loads(explored.stdout)["traces"]
    assert runner.invoke(app, ["models", prog, "--input", facts, "--horizon", "2", "-n", "1"]).exit_code == 0


def test_dialect_option_reads_a_program_without_molly_signals_as_molly(tmp_path):
    (tmp_path / "m.ded").write_text("q(N, X) :- p(N, X);\n")
    (tmp_path / "m.facts").write_text("p(a, 1).\n")
    as_molly = runner.invoke(app, ["count", str(tmp_path / "m.ded"), "-i", str(tmp_path / "m.facts"), "-T", "1",
                                   "--dialect", "molly", "--json"])
    assert as_molly.exit_code == 0, as_molly.output
    assert json.loads(as_molly.stdout)["models"] == 1
    as_transparent = runner.invoke(app, ["check", str(tmp_path / "m.ded")])
    assert as_transparent.exit_code == 2 and "unexpected character ';'" in as_transparent.output


def test_convert_both_ways():
    out = runner.invoke(app, ["convert", str(EXAMPLES / "molly/reliable_delivery.ded")])
    assert out.exit_code == 0
    assert "ack(R, M)@async(S) :- data(S, M), id(R)." in out.stdout
    assert "id(X) tells a node its own name" in out.stdout
    back = runner.invoke(app, ["convert", str(EXAMPLES / "tplp2016/fig4_noncausal.ded")])
    assert back.exit_code == 0 and ":- " in back.stdout and "#" in back.stdout
    same = runner.invoke(app, ["convert", str(EXAMPLES / "tplp2016/fig4_noncausal.ded"), "--to", "transparent"])
    assert same.exit_code == 2 and "transparent already" in same.output
    none = runner.invoke(app, ["convert", str(EXAMPLES / "tplp2016/ex1_reachability.ded")])
    assert none.exit_code == 0  # covered() :- not missing(). reads covered(#L) :- not missing(#L).


def test_convert_refuses_a_rule_without_body_atoms(tmp_path):
    (tmp_path / "p.ded").write_text("p(1).\nq(X) :- p(X).\n")
    out = runner.invoke(app, ["convert", str(tmp_path / "p.ded")])
    assert out.exit_code == 2 and "has no body atom: it has no located equivalent" in out.output


def test_facts_may_end_with_a_semicolon_as_in_molly():
    molly = parse_facts("send(a, b, m1)@0;\nmembers(a, b);\nb { }\n", "in.facts", {})
    dotted = parse_facts("send(a, b, m1)@0.\nmembers(a, b).\nb { }\n", "in.facts", {})
    assert molly.facts == dotted.facts and molly.facts[clingo.Function("a")][0].step == 0
    with pytest.raises(DiagnosticError) as info:  # inside the parentheses ';' is still a typo for ','
        parse_facts("a { r(2; 3); }\n", "in.facts")
    assert [(d.line, d.col, d.message) for d in info.value.diagnostics] == [
        (1, 8, "unexpected character ';' (separate values with ',')")
    ]


@pytest.mark.parametrize(
    "text",
    [
        "p :- notin, node(Y).",  # found by tests/test_fuzz.py: notin( was Molly's negation in the located grammar
        "p(X) :- p(X), node(Y).\np(X) :- notin(X), node(Y).\n.output p, notin.",
        "p(X) :- q(X, notin), X != notin.\npersist[notin, 1].",
    ],
)
def test_a_relation_or_constant_named_notin_converts_and_reads_back(text):
    """`notin` is Molly's negation only before an atom: before '(', ',', '.' or ']' it is a name."""
    program = parse_program(text)
    back = parse_source(located_text(program), dialect="located").program
    assert [str(r) for r in back.rules] == [str(r) for r in program.rules]
    assert back.outputs == program.outputs
