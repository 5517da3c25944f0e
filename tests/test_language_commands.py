"""Issue #18 end to end: every new construct through every command of the command line.

One small Molly protocol (`PROTOCOL`, its facts in an included file) and an invariant file in
another folder (`INVARIANT`, whose include resolves against the first program file's folder, as
Molly resolves it) use every construct: `count`/`sum`/`min`/`max` in deductive, @next and @async
heads (an empty group, a negative sum, min and max over strings), arithmetic in a head, a
comparison and a body atom (and a division by zero: no fact), `_` twice in a negated atom, body
atoms at a step (positive and negated), and a global rule (reads two nodes). Each test runs one
command on them, in process (`typer.testing.CliRunner`), and checks what that command must say
about them; the sharp corners that are errors (a global relation read by a node, an unbound
variable in an expression, a cycle through an aggregate) are checked as diagnostics, exit 2.
"""

from __future__ import annotations

import json
from pathlib import Path

import clingo
import pytest
from typer.testing import CliRunner

from dedalus2asp.cli import app

RUNNER = CliRunner()

FACTS = """\
vote(c, a, "tea", 1)@1;
vote(c, b, "tea", -3)@1;
vote(c, b, "milk", 1)@1;
option(c, "tea")@1;
option(c, "milk")@1;
option(c, "water")@1;
peer(c, a)@1;
peer(c, b)@1;
k(c, 3)@1;
small(c, 1)@1;
k(a, 0)@1;
k(b, 0)@1;
"""

PROTOCOL = """\
include "facts.ded";

option(C, X)@next :- option(C, X);
peer(C, P)@next :- peer(C, P);
k(C, K)@next :- k(C, K);

tally(C, X, count<V>) :- vote(C, V, X, _);
weight(C, X, sum<W>) :- vote(C, V, X, W);
first(C, min<X>) :- vote(C, _, X, _);
last(C, max<X>) :- vote(C, _, X, _);
unvoted(C, X) :- option(C, X), notin vote(C, _, X, _);
seen(C, count<X>)@next :- option(C, X);
told(P, count<X>)@async :- option(C, X), peer(C, P);
told(P, N)@next :- told(P, N);

double(C, K * 2 + 1) :- k(C, K), K % 2 == 1;
hit(C, K) :- k(C, K), small(C, K - 2);
zero(C, K / 0) :- k(C, K);
early(C, X) :- option(C, X)@1, notin vote(C, _, X, _)@1;
never(C, X) :- option(C, X)@9;
"""

INVARIANT = """\
include "helpers.ded";
both(X) :- told(A, X), told(B, X), A != B;
"""

HELPERS = """\
agreed(X) :- both(X), notin differ(X);
differ(X) :- told(A, X), told(B, Y), X != Y;
"""


def invoke(*args):
    """The command line in process; a traceback fails the test."""
    result = RUNNER.invoke(app, [str(a) for a in args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"uncaught {result.exception!r} for {args}") from result.exception
    assert "Traceback" not in result.stdout + result.stderr
    return result


@pytest.fixture
def files(tmp_path) -> tuple[Path, Path]:
    """The protocol (with its included facts) in p/, the invariant file in q/ (its include is in p/)."""
    (tmp_path / "p").mkdir()
    (tmp_path / "q").mkdir()
    (tmp_path / "p" / "facts.ded").write_text(FACTS)
    (tmp_path / "p" / "protocol.ded").write_text(PROTOCOL)
    (tmp_path / "p" / "helpers.ded").write_text(HELPERS)
    (tmp_path / "q" / "invariant.ded").write_text(INVARIANT)
    return tmp_path / "p" / "protocol.ded", tmp_path / "q" / "invariant.ded"


BOUNDS = ("--horizon", 2, "--max-delay", 1)

# At node c, step 0, in every model (all of it local to c: no message decides it).
AT_C_0 = {
    ("tally", ('"tea"', "2")), ("tally", ('"milk"', "1")),
    ("weight", ('"tea"', "-2")), ("weight", ('"milk"', "1")),
    ("first", ('"milk"',)), ("last", ('"tea"',)),
    ("unvoted", ('"water"',)), ("double", ("7",)), ("hit", ("3",)), ("early", ('"water"',)),
}
NEVER_AT_C = {"zero", "never"}  # division by zero; a body step (Molly's 9 = step 8) beyond the horizon


def facts(model: dict, node: str, step: int) -> set[tuple[str, tuple[str, ...]]]:
    return {(f["relation"], tuple(f["args"])) for f in model["trace"] if f["node"] == node and f["step"] == step}


def test_check_accepts_both_files_and_names_the_global_rules(files):
    result = invoke("check", *files)
    assert result.exit_code == 0, result.stderr
    assert "global       both(X)" in result.stdout and "global       agreed(X)" in result.stdout
    # the aggregate is stratified like a negation: tally is above vote's stratum only through it
    assert "tally(X, count<V>)" in result.stdout


def test_models_json_has_every_construct(files):
    result = invoke("models", *files, *BOUNDS, "-n", 0, "--format", "json")
    assert result.exit_code == 0, result.stderr
    models = json.loads(result.stdout)["models"]
    assert models
    for model in models:
        at_c = facts(model, "c", 0)
        assert AT_C_0 <= at_c
        assert not any(r == "tally" and args[0] == '"water"' for r, args in at_c)  # an empty group: no fact
        assert not {r for (r, _) in at_c} & NEVER_AT_C
        assert ("seen", ("3",)) not in at_c and ("seen", ("3",)) in facts(model, "c", 1)  # @next aggregate
        told = {(f["node"], f["args"][0]) for f in model["trace"] if f["relation"] == "told"}
        assert told <= {("a", "3"), ("b", "3")}
        for m in model["messages"]:
            assert m["relation"] == "told" and m["args"] == ["3"]  # one message per group
        glob = {(g["step"], g["relation"], tuple(g["args"])) for g in model["global"]}
        # both(3) holds exactly at the steps where a and b both hold told(3)
        for s in range(3):
            both = {f["node"] for f in model["trace"] if f["relation"] == "told" and f["step"] == s}
            assert ((s, "both", ("3",)) in glob) == (both == {"a", "b"})
            assert ((s, "agreed", ("3",)) in glob) == (both == {"a", "b"})


@pytest.mark.parametrize("fmt", ["text", "json", "itf", "shiviz", "svg", "dot", "html"])
def test_models_every_format(files, fmt, tmp_path):
    out = tmp_path / f"out.{fmt}"
    result = invoke("models", *files, "--horizon", 1, "--max-delay", 1, "-n", 1, "--format", fmt, "-o", out)
    assert result.exit_code == 0, result.stderr
    text = "".join(p.read_text() for p in sorted(out.iterdir())) if out.is_dir() else out.read_text()
    if fmt in ("dot", "shiviz"):  # happens-before: the messages only
        assert "told(3)" in text
    else:  # every document of the states shows the global facts too
        assert "both" in text and "weight" in text


def test_compile_output_runs_under_clingo_with_the_count_of_count(files, tmp_path):
    out = tmp_path / "p.lp"
    assert invoke("compile", *files, *BOUNDS, "-o", out).exit_code == 0
    control = clingo.Control(["0", "--warn=none"])
    control.load(str(out))
    control.ground([("base", [])])
    with control.solve(yield_=True) as handle:
        n = sum(1 for _ in handle)
    result = invoke("count", *files, *BOUNDS, "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["models"] == n > 0


def test_count_paper_fast_split_and_explore_agree(files):
    counts = set()
    for extra in (("--encoding", "paper"), ("--encoding", "fast"), ("--split", 2)):
        result = invoke("count", *files, *BOUNDS, *extra)
        assert result.exit_code == 0, result.stderr
        counts.add(result.stdout.split(" model(s), ")[1].split(" distinct")[0])
    explored = invoke("explore", *files, *BOUNDS, "--runs")
    assert explored.exit_code == 0, explored.stderr
    counts.add(explored.stdout.split(" distinct trace(s)")[0])
    assert len(counts) == 1, counts


def test_eot_is_the_horizon_minus_one(files):
    by_horizon = invoke("count", *files, "--horizon", 1, "--max-delay", 1)
    by_eot = invoke("count", *files, "--eot", 2, "--max-delay", 1)
    assert by_horizon.exit_code == by_eot.exit_code == 0
    assert by_horizon.stdout.split(";")[0] == by_eot.stdout.split(";")[0]


def test_cron_answers_on_the_global_output_and_keeps_the_node_of_a_located_one(files):
    result = invoke("cron", *files, *BOUNDS, "--output-relations", "agreed,seen")
    assert result.exit_code == 0, result.stderr
    certain = [line for line in result.stdout.splitlines() if line.strip().startswith("certain")]
    assert certain and all("agreed(3)" in line and "seen(c, 3)" in line for line in certain)


def test_cron_without_output_lists_the_candidates(files):
    result = invoke("cron", files[0], *BOUNDS)
    assert result.exit_code == 2
    assert "declares no output relation" in result.stderr and "tally/" in result.stderr


def test_replay_rebuilds_the_run_of_a_model(files):
    result = invoke("replay", *files, *BOUNDS)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "the same trace" in result.stdout


def test_report_takes_the_protocol_and_its_invariant(files, tmp_path):
    out = tmp_path / "r.html"
    result = invoke("report", *files, *BOUNDS, "-n", 1, "-o", out)
    assert result.exit_code == 0, result.stderr
    page = out.read_text()
    assert "both(3)" in page and "tally(&quot;tea&quot;, 2)" in page


def test_run_local_has_the_constructs_and_the_global_facts(files, tmp_path):
    import pyarrow.parquet as pq

    nodes = tmp_path / "abc.facts"
    nodes.write_text("a { }\nb { }\nc { }\n")
    result = invoke("run", *files, "-i", nodes, "-k", 3, "-o", tmp_path / "run", "--engine", "local")
    assert result.exit_code == 0, result.stderr
    rows = {(r["node"], r["step"], r["relation"], tuple(r["args"])) for r in pq.read_table(tmp_path / "run" / "trace").to_pylist()}
    assert {("c", 0, r, a) for r, a in AT_C_0} <= rows
    assert ("c", 1, "seen", ("3",)) in rows and ("c", 0, "seen", ("3",)) not in rows
    # sync schedule: told(3) arrives at a and b at step 1, so both(3) and agreed(3) hold from step 1
    assert ("()", 1, "both", ("3",)) in rows and ("()", 2, "agreed", ("3",)) in rows
    assert not {r for (_, _, r, _) in rows} & NEVER_AT_C


def test_convert_to_transparent_refuses_the_global_rule_by_name(files):
    result = invoke("convert", *files)
    assert result.exit_code == 2
    assert "reads several nodes (a global rule" in result.stderr


def test_convert_refuses_a_body_step_by_name(files):
    result = invoke("convert", files[0])
    assert result.exit_code == 2
    assert "reads a body atom at a fixed step: the location-transparent notation of tplp2016 cannot write it" in result.stderr


def test_convert_round_trip_keeps_the_models(files, tmp_path):
    """Without the body steps (which the transparent notation cannot write): the same models both ways."""
    files[0].write_text("".join(line + "\n" for line in PROTOCOL.splitlines() if "@1," not in line and "@9" not in line))
    result = invoke("convert", files[0])
    assert result.exit_code == 0, result.stderr
    converted = tmp_path / "t.ded"
    converted.write_text(result.stdout)
    facts_block = "\n".join(line[3:] for line in result.stdout.splitlines() if line.startswith("%   "))
    data = tmp_path / "t.facts"
    data.write_text(facts_block + "\n")
    ours = invoke("count", files[0], *BOUNDS)
    theirs = invoke("count", converted, "-i", data, *BOUNDS, "--dialect", "transparent")
    assert ours.exit_code == theirs.exit_code == 0, theirs.stderr
    assert ours.stdout.split(" (")[0] == theirs.stdout.split(" (")[0]


def test_explain_an_aggregate_fact_of_a_molly_program_with_its_facts(files):
    result = invoke("explain", files[0], *BOUNDS, "--fact", 'tally("tea", 2)', "--at", "c:0")
    assert result.exit_code == 0, result.stderr
    assert "vote" in result.stdout


def test_explain_two_phase_commit_whose_facts_are_of_relations_rules_also_derive():
    """`agent(c, a)@1;` is an input event of H(c) although `agent(C, A)@next :- agent(C, A);` derives agent too."""
    program = Path(__file__).parent.parent / "examples" / "molly" / "two_phase_commit.ded"
    result = invoke("explain", program, "--horizon", 3, "--max-delay", 1,
                    "--fact", "decision(t1, commit)", "--at", "a:3")
    assert result.exit_code == 0, result.stderr
    assert "agent(a) at c:0: input fact" in result.stdout
    assert "begin(t1) at c:0: input fact" in result.stdout


def test_explain_an_aggregate_fact_from_an_input(tmp_path):
    program = tmp_path / "v.ded"
    program.write_text('tally(C, X, count<V>) :- vote(C, V, X, _);\nweight(C, X, sum<W>) :- vote(C, V, X, W);\n')
    data = tmp_path / "v.facts"
    data.write_text('vote(c, a, "tea", 1)@0.\nvote(c, b, "tea", -3)@0.\n')
    result = invoke("explain", program, "-i", data, "--dialect", "molly", "--horizon", 0,
                    "--fact", 'weight("tea", -2)', "--at", "c:0")
    assert result.exit_code == 0, result.stderr
    assert 'vote(a, "tea", 1)' in result.stdout and 'vote(b, "tea", -3)' in result.stdout


BAD = {
    "global_read": ("p(a, 1)@1;\ng(X) :- p(A, X), p(B, X), A != B;\nr(N, X)@next :- p(N, X), g(X);\n",
                    "3:26", "reads 'g', a global relation"),
    "unbound": ("p(a, 1)@1;\ns(N, Y + Z) :- p(N, Y);\n", "2:10", "unsafe variable 'Z' (inside an expression)"),
    "aggregate_cycle": ("p(a, 1)@1;\nc(N, count<X>) :- p(N, X), d(N, X);\nd(N, X) :- c(N, X);\n",
                        "2:6", "the aggregate 'count<X>' over 'd' in rule 2 closes the cycle"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_errors_of_the_constructs(case, tmp_path):
    text, where, message = BAD[case]
    program = tmp_path / f"{case}.ded"
    program.write_text(text)
    for command in (("check",), ("compile", "--horizon", 1), ("models", "--horizon", 1), ("explore", "--horizon", 1)):
        result = invoke(command[0], program, *command[1:])
        assert result.exit_code == 2, (command, result.stdout)
        assert f"{case}.ded:{where}: error: " in result.stderr and message in result.stderr


def test_a_body_step_beyond_the_horizon_warns(files):
    result = invoke("compile", *files, *BOUNDS, "-o", files[0].with_suffix(".lp"))
    assert result.exit_code == 0
    assert "protocol.ded:20:16: warning" in result.stderr and "reads step 8, beyond the horizon 2" in result.stderr


def test_every_problem_of_every_file_is_reported(tmp_path):
    (tmp_path / "inc.ded").write_text("z(N) :- p(N, <);\nw(N, sum<X>) :- p(N, X)\nv(N) :- p(N, _);\n")
    (tmp_path / "main.ded").write_text('include "inc.ded";\np(a, 1)@1;\nq(N X) :- p(N, X);\n')
    (tmp_path / "other.ded").write_text("r(N) :- p(N, _), notin q(N, _, _);\ns(N, count<X) :- p(N, X);\n")
    result = invoke("check", tmp_path / "main.ded", tmp_path / "other.ded")
    assert result.exit_code == 2
    for where in ("main.ded:3:5", "inc.ded:1:14", "inc.ded:3:1", "other.ded:2:"):
        assert where in result.stderr, where


def test_a_sum_counts_every_valuation_and_its_variables_are_no_singletons(tmp_path):
    """`sum<W>` adds W once per valuation of all the body's variables: V, used once, is not a slip
    (no warning), and `_` in its place sums differently (each `_` is its own variable, projected)."""
    program = tmp_path / "sum.ded"
    program.write_text("v(c, a, 1)@1;\nv(c, b, 1)@1;\ns1(C, sum<W>) :- v(C, V, W);\ns2(C, sum<W>) :- v(C, _, W);\n")
    result = invoke("models", program, "--horizon", 0, "--format", "json")
    assert result.exit_code == 0 and "warning" not in result.stderr, result.stderr
    (model,) = json.loads(result.stdout)["models"]
    assert {("s1", ("2",)), ("s2", ("1",))} <= facts(model, "c", 0)


def test_explain_a_global_fact_at_global(tmp_path):
    """--at global:K names the facts of global relations (no node holds them); their premises are at
    several nodes. A located relation at `global` is still not a node."""
    program = tmp_path / "g.ded"
    program.write_text("g(X, Y) :- v(A, _, X), v(B, _, Y), A != B;\nh(N, X) :- v(N, _, X);\n")
    data = tmp_path / "g.facts"
    data.write_text("v(c, a, 1)@0.\nv(d, b, 2)@0.\n")
    common = (program, "-i", data, "--dialect", "molly", "--horizon", 0)
    result = invoke("explain", *common, "--fact", "g(1, 2)", "--at", "global:0")
    assert result.exit_code == 0, result.stderr
    assert "v(a, 1) at c:0" in result.stdout and "v(b, 2) at d:0" in result.stdout
    result = invoke("explain", *common, "--fact", "h(1)", "--at", "global:0")
    assert result.exit_code == 2 and "global is not a node of the network" in result.stderr


def test_run_spark_equals_local_on_every_construct(files, tmp_path):
    """The Spark engine's run of the protocol and its invariant file (sync schedule) has the local
    engine's rows: aggregates, arithmetic, projections, body steps and the global facts. (The command
    starts its own Spark session: this test asks for no other.)"""
    import pyarrow.parquet as pq

    nodes = tmp_path / "abc.facts"
    nodes.write_text("a { }\nb { }\nc { }\n")
    tables = {}
    for engine in ("local", "spark"):
        result = invoke("run", *files, "-i", nodes, "-k", 3, "-o", tmp_path / engine, "--engine", engine)
        assert result.exit_code == 0, result.stderr
        tables[engine] = {name: sorted(map(str, pq.read_table(tmp_path / engine / name).to_pylist()))
                          for name in ("trace", "messages")}
    assert tables["spark"] == tables["local"]
    assert any("'both'" in row for row in tables["spark"]["trace"])


def test_an_aggregate_in_a_comparison_is_named(tmp_path):
    program = tmp_path / "cmp.ded"
    program.write_text("p(a, 1)@1;\ns(N, Y) :- p(N, Y), Y > min<Y>;\nt(N) :- p(N, Y), count < Y;\n")
    result = invoke("check", program)
    assert result.exit_code == 2
    assert "cmp.ded:2:28: error: unexpected '<'" in result.stderr
    assert "aggregates are not supported in rule bodies" in result.stderr and "1 error(s)" in result.stderr


def test_check_warns_of_a_recursive_rule_that_computes_new_values_in_its_head(tmp_path):
    program = tmp_path / "g.ded"
    program.write_text("p(X + 1) :- p(X).\n")
    result = invoke("check", program)
    assert result.exit_code == 0
    assert "1:3: warning: rule 1 is recursive and computes a new value 'X + 1'" in result.stderr + result.stdout
    program.write_text("p(X + 1) :- p(X), X < 5.\nq(X + 1) :- p(X).\n")
    bounded = invoke("check", program)
    assert "recursive and computes" not in bounded.stderr + bounded.stdout


@pytest.mark.parametrize("command", [["explore", "-T", "1"], ["run", "--steps", "1"]])
def test_a_recursion_that_computes_ever_new_values_is_a_user_error(tmp_path, command):
    """p(X + 1) :- p(X). never reaches a fixpoint: the operational commands say so (exit 2), they do not hang."""
    program = tmp_path / "r.ded"
    program.write_text("p(X + 1) :- p(X).\n")
    data = tmp_path / "r.facts"
    data.write_text("a { p(1). }\n")
    extra = ["-o", tmp_path / "out"] if command[0] == "run" else []
    result = invoke(command[0], program, "-i", data, *command[1:], *extra)
    assert result.exit_code == 2, result.stderr
    assert "r.ded:1:3: warning: rule 1 is recursive" in result.stderr
    assert "error: rule 1 (line 1, column 1: p(X + 1) :- p(X).) computes new values" in result.stderr
    assert "internal error" not in result.stderr
