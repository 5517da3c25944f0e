"""The relational engine (tplp2016 §5.1): the reference replay, Theorem 4 (i), both back ends, inputs, `run`."""

from __future__ import annotations

import json

import clingo
import pytest
from typer.testing import CliRunner

from conftest import EXAMPLES, SMALL, example_id
from dedalus2asp import inspect
from dedalus2asp import pipeline
from dedalus2asp.runs import engine, operational
from dedalus2asp.runs.values import cell, order
from dedalus2asp.lang.analysis import restrict
from dedalus2asp.lang.parser import parse_program
from dedalus2asp.cli import app
from dedalus2asp.bounds import Bounds, Semantics

SCHEDULES = [engine.Schedule(), engine.Schedule("random", 3, 7)]
runner = CliRunner()


def load(pair):
    program, instance, _ = pipeline.load(EXAMPLES / pair[0], EXAMPLES / pair[1])
    return program, instance


def symbolic(trace) -> frozenset:
    parse = clingo.parse_term
    return frozenset((parse(x), s, r, tuple(map(parse, args))) for x, s, r, args in trace)


def transitions(result: engine.Run, network):
    """The run as operational transitions: in round t every node takes its step t, receiving what arrives at t."""
    parse = clingo.parse_term
    for t in range(result.steps):
        for x in network:
            yield parse(x), [
                (parse(sender), sent, (r, tuple(map(parse, args))))
                for r, args, sender, sent, to, arrives in result.messages
                if to == x and arrives == t
            ]


@pytest.mark.parametrize("schedule", SCHEDULES, ids=["sync", "random"])
@pytest.mark.parametrize("incremental", [True, False], ids=["incremental", "full"])
def test_local_engine_is_a_run_of_the_operational_semantics(example, schedule, incremental):
    program, instance = load((example[0].relative_to(EXAMPLES), example[1].relative_to(EXAMPLES)))
    data = engine.from_instance(instance, program)
    result = engine.run(program, data, 5, schedule, incremental=incremental)
    replayed = operational.replay(program, restrict(instance, program), transitions(result, data.network))
    assert symbolic(result.trace) == replayed.trace
    pending = {(m.fact[0], tuple(map(str, m.fact[1])), str(m.sender), m.step, str(m.addressee)) for m in replayed.pending}
    assert pending == {(r, a, x, s, y) for r, a, x, s, y, t in result.messages if t is None}


def test_random_delays_are_in_range_and_depend_on_the_seed():
    delays = {engine.Schedule("random", 4, seed).delay("p", ("a",), "x", 0, "y") for seed in range(40)}
    assert delays == {1, 2, 3, 4}
    schedule = engine.Schedule("random", 4, 1)
    assert schedule.delay("p", ("a", "b"), "x", 2, "y") == schedule.delay("p", ("a", "b"), "x", 2, "y")


@pytest.mark.parametrize("pair", SMALL, ids=[example_id(p) for p in SMALL])
def test_run_trace_is_a_trace_of_pure(pair):
    """Theorem 4 (i): the trace of a (causal) run is the trace of a model of pure(P), here at T = steps - 1."""
    program, instance = load(pair)
    data = engine.from_instance(instance, program)
    compiled = pipeline.prepare(EXAMPLES / pair[0], EXAMPLES / pair[1], Bounds(2, Semantics.CAUSAL_FINITE)).compiled
    traces = {model.trace for model in inspect.traces(compiled).models}
    for schedule in SCHEDULES:
        assert symbolic(engine.run(program, data, 3, schedule).trace) in traces


def test_comparisons_follow_clingo_order():
    values = ["-3", "2", "10", "a", "b", '"A"', '"a b"']
    assert sorted(values, key=order) == ["-3", "2", "10", "a", "b", '"A"', '"a b"']
    assert cell("Hello world") == '"Hello world"' and cell("v1") == "v1" and cell("42") == "42"


def rows(directory, name):
    return sorted(
        tuple(tuple(v) if isinstance(v, list) else v for v in r.values())
        for r in engine.read_table(directory / name)
    ) if name else None


def sortable(rows_):
    return sorted(rows_, key=lambda r: tuple("" if v is None else str(v) for v in r))


@pytest.mark.parametrize("pair", SMALL, ids=[example_id(p) for p in SMALL])
def test_spark_and_local_write_identical_tables(pair, spark, tmp_path):
    program, instance = load(pair)
    data = engine.from_instance(instance, program)
    schedule = engine.Schedule("random", 2, 11)  # 2 steps: a message arrives at step 1 or stays pending
    for name in engine.ENGINES:
        result = engine.run(program, data, 2, schedule, name, spark)
        engine.write_run(result, tmp_path / name, {})
    for table in ("trace", "messages", "outputs"):
        local = [tuple(r.values()) for r in engine.read_table(tmp_path / "local" / table)]
        remote = [tuple(r.values()) for r in engine.read_table(tmp_path / "spark" / table)]
        assert sortable(local) == sortable(remote), table
    assert json.loads((tmp_path / "spark" / "run.json").read_text())["rows"] == json.loads(
        (tmp_path / "local" / "run.json").read_text()
    )["rows"]


def write_tables(directory, kind):
    """alg1's input as one table per relation, first column the node."""
    import pyarrow as pa
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    directory.mkdir()
    tables = {
        "Node": pa.table({"n": ["a", "a", "b", "b"], "y": ["a", "b", "a", "b"]}),
        "R": pa.table({"n": ["a", "b"], "u": ["v1", "v2"], "v": ["v2", "v3"]}),
    }
    for name, table in tables.items():
        if kind == "csv":
            pcsv.write_csv(table, directory / f"{name}.csv", pcsv.WriteOptions(include_header=False))
        else:
            pq.write_table(table, directory / f"{name}.parquet")


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_directory_input_equals_facts_input(tmp_path, kind, spark):
    write_tables(tmp_path / "in", kind)
    program, instance = load(("jcss2014/alg1.ded", "jcss2014/alg1.facts"))
    expected = sorted(engine.run(program, engine.from_instance(instance, program), 4).trace)
    table = engine.read_directory(tmp_path / "in", program)
    assert table.network == ("a", "b")
    assert sorted(engine.run(program, table, 4).trace) == expected
    remote = engine.run(program, engine.read_directory(tmp_path / "in", program, spark), 4, engine="spark", spark=spark)
    assert sorted((r.node, r.step, r.relation, tuple(r.args)) for r in remote.trace.collect()) == expected


def test_cli_run_writes_tables_and_run_json(tmp_path):
    out = tmp_path / "run"
    result = runner.invoke(
        app,
        ["run", str(EXAMPLES / "jcss2014/alg1.ded"), "--input", str(EXAMPLES / "jcss2014/alg1.facts"), "--steps", "4",
         "--schedule", "random", "--max-delay", "2", "--seed", "5", "--out", str(out)],
    )
    assert result.exit_code == 0, result.output
    info = json.loads((out / "run.json").read_text())
    assert (info["schedule"], info["seed"], info["steps"], info["max_delay"]) == ("random", 5, 4, 2)
    assert len(info["program_hash"]) == 64 and set(info["timings"]) >= {"load", "run", "write"}
    outputs = {(r["relation"], tuple(r["args"])) for r in engine.read_table(out / "outputs")}
    assert ("T", ("v1", "v3")) in outputs  # the closure of the union reaches a node by step 3
    messages = engine.read_table(out / "messages")
    assert all(m["arrives"] is None or 1 <= m["arrives"] - m["sent"] <= 2 for m in messages)
    assert info["pending"] == sum(m["arrives"] is None for m in messages) > 0
    assert not [p for p in out.rglob(".*")]  # no temporary leftovers


def test_cli_run_bad_input_table_is_a_user_error(tmp_path):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "R.csv").write_text("a,v1\n")  # R has two arguments
    result = runner.invoke(
        app, ["run", str(EXAMPLES / "jcss2014/alg1.ded"), "--input", str(tmp_path / "in"), "--steps", "2", "--out", str(tmp_path / "o")]
    )
    assert result.exit_code == 2
    assert "table 'R' has 2 column(s)" in result.output and "Traceback" not in result.output
    result = runner.invoke(
        app, ["run", str(EXAMPLES / "jcss2014/alg1.ded"), "--input", str(EXAMPLES / "jcss2014/alg1.facts"), "--steps", "2",
              "--schedule", "eventually", "--out", str(tmp_path / "o")]
    )
    assert result.exit_code == 2 and "--schedule must be one of sync, random" in result.output


# --- events R(ā)@k and located programs ------------------------------------------------------

LOCATED = [
    ("tr2009/example3_events.ded", "tr2009/example3_events.facts"),  # events in the input
    ("molly/reliable_delivery.ded", "molly/reliable_delivery.facts"),  # an event, id(x), a node with no facts
    ("molly/broadcast.ded", "molly/broadcast.facts"),
    ("tr2009/broadcast_located.ded", "tr2009/broadcast_located.facts"),
]


@pytest.mark.parametrize("schedule", SCHEDULES, ids=["sync", "random"])
@pytest.mark.parametrize("incremental", [True, False], ids=["incremental", "full"])
@pytest.mark.parametrize("pair", LOCATED, ids=[example_id(p) for p in LOCATED])
def test_events_and_located_programs_run_as_the_operational_semantics(pair, schedule, incremental):
    program, instance = load(pair)
    data = engine.from_instance(instance, program)
    result = engine.run(program, data, 6, schedule, incremental=incremental)
    replayed = operational.replay(program, restrict(instance, program), transitions(result, data.network))
    assert symbolic(result.trace) == replayed.trace


def test_an_event_holds_at_its_step_only():
    """tr2009 Example 3, scaled: p(1,2)@1, p(1,3)@2, p_neg(1,2)@4; p_pos persists until p_neg."""
    program, instance = load(("tr2009/example3_events.ded", "tr2009/example3_events.facts"))
    trace = engine.run(program, engine.from_instance(instance, program), 7).trace
    steps = lambda relation, args: sorted(t for _, t, r, a in trace if (r, a) == (relation, args))  # noqa: E731
    assert steps("p", ("1", "2")) == [1] and steps("p", ("1", "3")) == [2] and steps("p_neg", ("1", "2")) == [4]
    assert steps("p_pos", ("1", "2")) == [1, 2, 3, 4] and steps("p_pos", ("1", "3")) == [2, 3, 4, 5, 6]


@pytest.mark.parametrize("pair", LOCATED[:2], ids=[example_id(p) for p in LOCATED[:2]])
def test_spark_and_local_agree_on_events(pair, spark, tmp_path):
    program, instance = load(pair)
    data = engine.from_instance(instance, program)
    for name in engine.ENGINES:
        engine.write_run(engine.run(program, data, 6, engine.Schedule("random", 2, 3), name, spark), tmp_path / name, {})
    for table in ("trace", "messages", "outputs"):
        local = [tuple(r.values()) for r in engine.read_table(tmp_path / "local" / table)]
        remote = [tuple(r.values()) for r in engine.read_table(tmp_path / "spark" / table)]
        assert sortable(local) == sortable(remote), table


LINKS = """\
.output got.
got(#Y, X)@async :- link(Y, #X);
got(#X, Y)@next :- got(#X, Y);
"""


def test_a_table_cell_not_is_the_string_as_in_json(tmp_path, spark):
    """`not` is a keyword, never a name: both engines read the cell as the string "not", as JSON does."""
    program = parse_program("got(X) :- R(X).\n", "got.ded")
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "R.csv").write_text("a,not\na,v1\n")
    assert cell("not") == '"not"'
    local = {(t[2], t[3]) for t in engine.run(program, engine.read_directory(tmp_path / "in", program), 1).trace}
    assert ("got", ('"not"',)) in local and ("got", ("v1",)) in local
    remote = engine.run(program, engine.read_directory(tmp_path / "in", program, spark), 1, engine="spark", spark=spark)
    assert {(r.relation, tuple(r.args)) for r in remote.trace.collect()} == local


def test_located_directory_input_places_nodes_and_adds_identity(tmp_path, spark):
    """A located program's table is located by its location column (here the second), and each node
    gets id(x), as with a located .facts input."""
    (tmp_path / "links.ded").write_text(LINKS)
    (tmp_path / "links.facts").write_text("link(b, a). link(c, a). link(a, b).\nc { }\n")
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "link.csv").write_text("b,a\nc,a\na,b\n")
    (tmp_path / "in" / "other.csv").write_text("c\n")  # a table the program does not use still names node c
    expected = tmp_path / "from-facts"
    args = ["run", str(tmp_path / "links.ded"), "--steps", "3"]
    assert runner.invoke(app, [*args, "--input", str(tmp_path / "links.facts"), "--out", str(expected)]).exit_code == 0
    for name in engine.ENGINES:
        out = tmp_path / name
        result = runner.invoke(app, [*args, "--input", str(tmp_path / "in"), "--out", str(out), "--engine", name])
        assert result.exit_code == 0, result.output
        for table in ("trace", "messages"):
            rows = lambda d: sortable(tuple(r.values()) for r in engine.read_table(d / table))  # noqa: E731
            assert rows(out) == rows(expected), (name, table)
    got = {(r["node"], tuple(r["args"])) for r in engine.read_table(expected / "outputs")}
    assert got == {("b", ("a",)), ("c", ("a",)), ("a", ("b",))}


def test_located_directory_input_cannot_give_the_identity_relation(tmp_path):
    (tmp_path / "links.ded").write_text(LINKS)
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "link.csv").write_text("b,a\n")
    (tmp_path / "in" / "id.csv").write_text("a\n")
    result = runner.invoke(
        app, ["run", str(tmp_path / "links.ded"), "--input", str(tmp_path / "in"), "--steps", "2", "--out", str(tmp_path / "o")]
    )
    assert result.exit_code == 2, result.output
    assert "the input has a table 'id'" in result.output and "Traceback" not in result.output


def test_run_rejects_an_event_after_its_last_step(tmp_path):
    args = ["run", str(EXAMPLES / "tr2009/example3_events.ded"), "--input", str(EXAMPLES / "tr2009/example3_events.facts")]
    result = runner.invoke(app, [*args, "--steps", "4", "--out", str(tmp_path / "o")])
    assert result.exit_code == 2 and not (tmp_path / "o").exists()
    assert "'p_neg(1, 2)@4' of node 'z' is at step 4, beyond the last step 3 of the run" in result.output
    assert "raise --steps to 5" in result.output
    assert runner.invoke(app, [*args, "--steps", "5", "--out", str(tmp_path / "o")]).exit_code == 0


# --- the Spark engine: values as keys, and random programs ---------------------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from dedalus2asp.runs.keys import decode, encode  # noqa: E402

TEXTS = st.one_of(
    st.integers(-(2**31), 2**31 - 1).map(str),
    st.from_regex(r"[a-z][A-Za-z0-9_]{0,4}", fullmatch=True),
    st.text(st.sampled_from('ab "\\'), max_size=4).map(lambda s: '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(TEXTS, min_size=1, max_size=8))
def test_spark_keys_sort_in_clingo_order_and_decode_back(values):
    """A key's string order is clingo's order on terms (`values.order`), and `decode` gives the text back."""
    assert [decode(encode(v)) for v in values] == values
    by_key = sorted(values, key=encode)
    assert [order(v) for v in by_key] == sorted(order(v) for v in values)


def spark_tables(result):
    trace = sortable((r.node, r.step, r.relation, tuple(r.args)) for r in result.trace.collect())
    messages = sortable((r.relation, tuple(r.args), r.sender, r.sent, r.addressee, r.arrives) for r in result.messages.collect())
    return trace, messages


@pytest.mark.parametrize("name", ["vote_counter.ded", "two_phase_commit.ded"])
def test_spark_and_local_agree_on_molly_constructs(name, spark):
    """Aggregates, arithmetic, `_` in notin, body atoms at a step and global rules, on both engines."""
    program, instance, _ = pipeline.load(EXAMPLES / "molly" / name)
    data = engine.from_instance(instance, program)
    schedule = engine.Schedule("random", 2, 5)
    local = engine.run(program, data, 4, schedule)
    remote = engine.run(program, data, 4, schedule, "spark", spark)
    assert spark_tables(remote) == (sortable(local.trace), sortable(local.messages))
    assert remote.jobs is not None and len(remote.jobs) == 4 and remote.rows == local.rows


from test_theorem4 import checked, construct_inputs, construct_rules  # noqa: E402
from dedalus2asp.lang.ast import Program  # noqa: E402


@settings(max_examples=4, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.function_scoped_fixture])
@given(st.lists(construct_rules(), min_size=1, max_size=3), construct_inputs(), st.sampled_from(SCHEDULES))
def test_spark_and_local_agree_on_random_programs(spark, rules_, facts, schedule):
    """Random programs with issue #18's constructs (tests/test_theorem4.py's generator): the same tables."""
    from hypothesis import assume

    program = checked(Program(tuple(rules_)))
    assume(program is not None)
    data = engine.from_instance(restrict(facts, program), program)
    local = engine.run(program, data, 3, schedule)
    remote = engine.run(program, data, 3, schedule, "spark", spark)
    assert spark_tables(remote) == (sortable(local.trace), sortable(local.messages))
