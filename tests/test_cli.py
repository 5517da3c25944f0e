"""The command-line contract (README's command table, docs/language.md's exit statuses), end to end.

Most runs go through `typer.testing.CliRunner` (in process, fast); one test
runs the installed `dedalus2asp` console script in a subprocess from another
directory, to check the entry point itself.

The known counts come from tplp2016's Fig. 4 (examples/tplp2016/
fig4_noncausal.ded on the one-node input z { Id(z). }), worked out by hand:

* z sends A() to itself at every step; B() at every step where A() arrived;
  T() :- A(), not B(); T and B persist. Each message arrives at a step 0..T or
  is pending. A() holds at a step iff some A() arrives there.
* choice, T = 0: A₀ ∈ {0, pending}; if A₀ = 0, B₀ ∈ {0, pending} (arriving at
  0 blocks T()). 3 models, 3 traces.
* choice, T = 1: A₀, A₁ ∈ {0, 1, p} (9 pairs), one B() per step holding A(),
  each with 3 arrivals: 1 + 6·3 + 2·9 = 37 models. Traces: no A() (1); A() at
  exactly one step, B() at 0, 1 or never (3 + 3); A() at both steps, the
  earliest B() arrival at 0, 1 or never (3): 10 traces.
* causal, T = 2 (same-node arrivals are strictly later): A₀ ∈ {1, 2, p},
  A₁ ∈ {2, p}, A₂ = B₂ = p. A₀ = 1: T() at 1, B₁ ∈ {2, p}, A₁ free: 4 models,
  4 traces. A₀ = 2: 2 models, 1 trace (A(), T() at 2). A₀ = p: A₁ = 2 gives
  that same trace, A₁ = p the empty one. 8 models, 6 traces.
* causal, T = 1: A₀ ∈ {1, p}: 2 models, 2 traces. With delay bound 1, A₀ may
  not stay pending (0 + 1 ≤ 1): 1 model. With delay bound 0 no same-node
  message can arrive at all, so a node that sends itself a message at step
  0 < T has no model (the unsatisfiable case below).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import clingo
import pytest
from typer.testing import CliRunner

from dedalus2asp.cli import app
from dedalus2asp.bounds import Encoding

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
FIG4 = EXAMPLES / "tplp2016" / "fig4_noncausal.ded"
FIG4_FACTS = EXAMPLES / "tplp2016" / "fig4.facts"
ALG1 = EXAMPLES / "jcss2014" / "alg1.ded"
ALG1_FACTS = EXAMPLES / "jcss2014" / "alg1.facts"
EX1 = EXAMPLES / "tplp2016" / "ex1_reachability.ded"
ENCODINGS = [e.value for e in Encoding]
SUBCOMMANDS = {
    "check": ["--json"],
    "compile": ["--input", "--horizon", "--semantics", "--encoding", "--max-delay", "--output", "--traces"],
    "models": ["--input", "--horizon", "--semantics", "--encoding", "--max-delay", "--models", "--timeout", "--json",
               "--format", "--output", "--svg", "text", "json", "itf", "shiviz", "svg", "dot", "html"],
    "count": ["--input", "--horizon", "--semantics", "--encoding", "--max-delay", "--timeout", "--json"],
    "explore": ["--input", "--horizon", "--max-delay", "--max-states", "--runs", "--json"],
    "cron": ["--dialect", "--input", "--horizon", "--max-delay", "--output", "--encoding", "--search-horizon", "--timeout", "--json",
             "--delivery", "--loss-until", "--crashes", "--nodes"],
    "explain": ["--dialect", "--input", "--horizon", "--fact", "--at", "--model", "--semantics", "--max-delay", "--dot"],
    "replay": ["--dialect", "--input", "--horizon", "--model", "--semantics", "--max-delay"],
    "report": ["--dialect", "--input", "--horizon", "--semantics", "--max-delay", "--models", "--output"],
    "convert": ["--to", "--dialect"],
    "run": ["--dialect", "--input", "--steps", "--schedule", "--max-delay", "--seed", "--engine", "--out",
            "--loss-until", "--eff", "--crashes", "--crash", "--omit"],
    "verify": ["--dialect", "--input", "--horizon", "--eot", "--delivery", "--max-delay", "--loss-until", "--eff",
               "--crashes", "--nodes", "--pre", "--post", "--semantics", "--search-horizon", "--all", "--out", "--json",
               "--timeout", "--split", "--engine"],
    "batch": ["--out", "--master", "[[grid]]", "[[job]]"],
    "maintain": ["--input", "--updates", "--engine", "--algorithm", "--schedule", "--seed", "--check", "--out", "--explain",
                 "--explore", "--svg", "--json"],
}

RUNNER = CliRunner()


def invoke(*args) -> "click.testing.Result":  # noqa: F821
    """Run the command line in process; an uncaught exception (a traceback) fails the test."""
    result = RUNNER.invoke(app, [str(a) for a in args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"uncaught {result.exception!r} for {args}") from result.exception
    assert "Traceback" not in result.stdout + result.stderr
    return result


def ok(*args) -> "click.testing.Result":  # noqa: F821
    result = invoke(*args)
    assert result.exit_code == 0, result.stderr
    return result


def usage_error(*args) -> str:
    """A user error: exit 2, nothing on stdout, no traceback; returns stderr."""
    result = invoke(*args)
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert result.stdout == ""
    return result.stderr


@pytest.fixture(scope="module")
def self_message(tmp_path_factory) -> tuple[Path, Path]:
    """A node that sends itself m() at every step."""
    d = tmp_path_factory.mktemp("self")
    (d / "self.ded").write_text("m()@async(X) :- id(X).\n", encoding="utf-8")
    (d / "self.facts").write_text("z { id(z). }\n", encoding="utf-8")
    return d / "self.ded", d / "self.facts"


def clingo_models(text: str) -> list[set[str]]:
    """Every stable model of a generated program, as clingo computes it on its own."""
    ctl = clingo.Control(["0"], logger=lambda code, message: None)
    ctl.add("base", [], text)
    ctl.ground([("base", [])])
    found: list[set[str]] = []
    ctl.solve(on_model=lambda m: found.append({str(s) for s in m.symbols(atoms=True)}))
    return found


def predicates(model: set[str], name: str) -> set[str]:
    return {a for a in model if a == name or a.startswith(name + "(")}


# ---------------------------------------------------------------------------
# compile


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize(("semantics", "models"), [("choice", 37), ("causal", 2), ("causal-finite", 2)])
def test_compile_prints_a_program_that_clingo_runs(semantics, models, encoding):
    result = ok("compile", FIG4, "--input", FIG4_FACTS, "--horizon", 1, "--semantics", semantics, "--encoding", encoding)
    found = clingo_models(result.stdout)
    assert len(found) == models
    for model in found:
        assert predicates(model, "all") == {"all(z)"}
        assert predicates(model, "time") == {"time(0)", "time(1)"}


def test_compile_writes_the_program_to_the_output_file(tmp_path):
    printed = ok("compile", FIG4, "--input", FIG4_FACTS, "--horizon", 2).stdout
    out = tmp_path / "out.lp"
    result = ok("compile", FIG4, "--input", FIG4_FACTS, "--horizon", 2, "-o", out)
    assert result.stdout == ""
    assert out.read_text(encoding="utf-8") == printed
    assert len(clingo_models(printed)) == 8


def test_compile_to_an_unwritable_place_is_a_user_error(tmp_path):
    err = usage_error("compile", FIG4, "--horizon", 1, "-o", tmp_path / "missing-dir" / "out.lp")
    assert re.match(rf"{re.escape(str(tmp_path / 'missing-dir' / 'out.lp'))}: error: cannot write output", err)


@pytest.mark.parametrize("semantics", ["choice", "causal", "causal-finite"])
def test_compile_without_input_leaves_out_decl(semantics):
    text = ok("compile", FIG4, "--horizon", 2, "--semantics", semantics).stdout
    found = clingo_models(text)
    assert len(found) == 1  # no node: nothing is ever sent
    (model,) = found
    assert predicates(model, "all") == set()
    assert predicates(model, "time") == {"time(0)", "time(1)", "time(2)"}


@pytest.mark.parametrize(("max_delay", "models"), [(None, 2), (1, 1), (0, 0)])
def test_compile_max_delay_bounds_the_arrivals(max_delay, models):
    delay = [] if max_delay is None else ["--max-delay", max_delay]
    text = ok("compile", FIG4, "--input", FIG4_FACTS, "--horizon", 1, "--semantics", "causal", *delay).stdout
    assert len(clingo_models(text)) == models


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["--semantics", "foo"], "--semantics"),
        (["--encoding", "foo"], "--encoding"),
        (["--horizon", "-1"], "--horizon"),
        (["--max-delay", "-1"], "--max-delay"),
        (["--horizon", "two"], "--horizon"),
    ],
)
def test_bad_option_values_exit_2(args, option):
    horizon = [] if "--horizon" in args else ["--horizon", "1"]
    err = usage_error("compile", FIG4, *horizon, *args)
    assert option in err
    assert "Invalid value" in err


@pytest.mark.parametrize("command", ["models", "count", "explore", "cron", "replay"])
def test_a_transparent_program_without_input_exits_2(command):
    err = usage_error(command, FIG4, "--horizon", 1)
    assert "no input instance: give --input F" in err


def test_a_molly_program_carries_its_own_facts():
    """examples/molly/broadcast.ded gives members(...)@1 itself (Molly time 1, step 0): no --input needed; nothing is broadcast then."""
    program = EXAMPLES / "molly/broadcast.ded"
    alone = json.loads(ok("models", program, "--horizon", 1, "-s", "causal", "--json").stdout)
    (model,) = alone["models"]
    facts = {(f["node"], f["step"], f["relation"], tuple(f["args"])) for f in model["trace"]}
    assert {("a", 0, "members", ("b",)), ("b", 1, "members", ("a",))} <= facts
    assert model["messages"] == []
    given = json.loads(ok("models", program, "--input", EXAMPLES / "molly/broadcast.facts", "--horizon", 1, "-s", "causal", "--json").stdout)
    assert any(m["messages"] for m in given["models"])


# ---------------------------------------------------------------------------
# models


def messages_of(model: dict) -> set[tuple]:
    return {(m["relation"], tuple(m["args"]), m["from"], m["sent"], m["to"], m["arrives"]) for m in model["messages"]}


def test_models_json(self_message):
    program, facts = self_message
    data = json.loads(ok("models", program, "--input", facts, "--horizon", 1, "-n", 0, "--json").stdout)
    assert {"semantics", "horizon", "nodes", "models"} <= set(data)
    assert (data["semantics"], data["horizon"], data["nodes"]) == ("causal-finite", 1, ["z"])
    for model in data["models"]:
        assert {"trace", "messages"} <= set(model)
        for message in model["messages"]:
            assert {"relation", "args", "from", "sent", "to", "arrives"} <= set(message)
            assert message["arrives"] is None or isinstance(message["arrives"], int)
    # m() sent at 0 arrives at 1 or stays pending; m() sent at 1 can only be pending.
    assert sorted((sorted(messages_of(m), key=str) for m in data["models"]), key=str) == sorted(
        (
            sorted({("m", (), "z", 0, "z", arrival), ("m", (), "z", 1, "z", None)}, key=str)
            for arrival in (1, None)
        ),
        key=str,
    )
    for model in data["models"]:
        m_facts = {(f["node"], f["step"]) for f in model["trace"] if f["relation"] == "m"}
        arrived = {(m["to"], m["arrives"]) for m in model["messages"] if m["arrives"] is not None}
        assert m_facts == arrived
        ids = {(f["node"], f["step"], tuple(f["args"])) for f in model["trace"] if f["relation"] == "id"}
        assert ids == {("z", 0, ("z",)), ("z", 1, ("z",))}


def test_models_n_1_gives_exactly_one(self_message):
    program, facts = self_message
    data = json.loads(ok("models", program, "--input", facts, "--horizon", 1, "-n", 1, "--json").stdout)
    assert len(data["models"]) == 1
    data = json.loads(ok("models", FIG4, "--input", FIG4_FACTS, "--horizon", 2, "-n", 1, "--json").stdout)
    assert len(data["models"]) == 1


def test_models_text_shows_a_node_by_step_table_and_the_messages(self_message):
    program, facts = self_message
    out = ok("models", program, "--input", facts, "--horizon", 1, "-n", 0).stdout
    header = [line for line in out.splitlines() if "node" in line and "step 0" in line]
    assert len(header) == 2  # one table per model
    assert all("step 1" in line and "step 2" not in line for line in header)
    assert any(re.search(r"\bz\b.*id\(z\).*id\(z\)", line) for line in out.splitlines())
    assert any(re.search(r"\bm\(\)", line) and "pending" in line for line in out.splitlines())
    assert sum("pending" in line for line in out.splitlines()) == 3  # 2 pending messages + 1
    assert "2 model(s)" in out


def test_models_unsatisfiable_exits_1(self_message):
    program, facts = self_message
    result = invoke("models", program, "--input", facts, "--horizon", 1, "--max-delay", 0)
    assert result.exit_code == 1
    assert "no model" in result.stderr
    result = invoke("models", program, "--input", facts, "--horizon", 1, "--max-delay", 0, "--json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["models"] == []


# ---------------------------------------------------------------------------
# count


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize(
    ("semantics", "horizon", "max_delay", "models", "traces"),
    [
        ("choice", 0, None, 3, 3),
        ("choice", 1, None, 37, 10),
        ("causal", 1, None, 2, 2),
        ("causal", 1, 1, 1, 1),
        ("causal", 2, None, 8, 6),
        ("causal-finite", 2, None, 8, 6),
    ],
)
def test_count_fig4_known_values(semantics, horizon, max_delay, models, traces, encoding):
    delay = [] if max_delay is None else ["--max-delay", max_delay]
    result = ok(
        "count", FIG4, "--input", FIG4_FACTS, "--horizon", horizon, "--semantics", semantics,
        "--encoding", encoding, *delay, "--json",
    )
    data = json.loads(result.stdout)
    assert (data["models"], data["traces"]) == (models, traces)
    assert data["complete"] is True


def test_count_text():
    out = ok("count", FIG4, "--input", FIG4_FACTS, "--horizon", 2, "--semantics", "causal").stdout
    assert "8 model(s), 6 distinct trace(s)" in out


@pytest.mark.parametrize("split", [[], ["--split", "3"]], ids=["whole", "split"])
def test_count_traces_only_skips_the_models(split):
    """molly/broadcast under choice: 21,744,160 models for 105 traces at T=3; --traces-only counts the traces alone."""
    args = [EXAMPLES / "molly/broadcast.ded", "--input", EXAMPLES / "molly/broadcast.facts", "--semantics", "choice",
            "--max-delay", 1, *split]
    full = json.loads(ok("count", *args, "--horizon", 2, "--json").stdout)
    alone = json.loads(ok("count", *args, "--horizon", 2, "--json", "--traces-only").stdout)
    assert alone["models"] is None and alone["traces"] == full["traces"] and alone["complete"] is True
    assert full["models"] > full["traces"]
    out = ok("count", *args, "--horizon", 3, "--traces-only").stdout  # the full count takes ~40 s here
    assert out.startswith("105 distinct trace(s)") and "model" not in out


CROSS = [
    ("tplp2016/fig4_noncausal.ded", "tplp2016/fig4.facts", 0, None),
    ("tplp2016/fig4_noncausal.ded", "tplp2016/fig4.facts", 2, None),
    ("tplp2016/fig4_noncausal.ded", "tplp2016/fig4.facts", 2, 1),
    ("tplp2016/ex1_reachability.ded", "tplp2016/ex1_reachability.facts", 1, None),
    ("tplp2016/fig5_grouping.ded", "tplp2016/fig5.facts", 2, None),
    ("jcss2014/alg3.ded", "jcss2014/alg3.facts", 2, None),
    ("jcss2014/alg1.ded", "jcss2014/alg1.facts", 1, None),
]


@pytest.mark.parametrize(("program", "facts", "horizon", "max_delay"), CROSS, ids=lambda v: str(v))
def test_count_traces_equal_explore_traces(program, facts, horizon, max_delay):
    """Bounded Theorem 4 through the command line: causal models and operational run prefixes have the same traces."""
    delay = [] if max_delay is None else ["--max-delay", max_delay]
    args = [EXAMPLES / program, "--input", EXAMPLES / facts, "--horizon", horizon, *delay, "--json"]
    explored = json.loads(ok("explore", *args).stdout)
    for semantics in ("causal", "causal-finite"):
        counted = json.loads(ok("count", *args, "--semantics", semantics).stdout)
        assert counted["traces"] == explored["traces"], semantics


def test_count_timeout_stops_and_says_the_result_is_incomplete():
    start = time.perf_counter()
    result = invoke(
        "count", ALG1, "--input", ALG1_FACTS, "--horizon", 2, "--semantics", "choice", "--timeout", 1, "--json"
    )
    elapsed = time.perf_counter() - start
    assert result.exit_code == 3, result.stderr
    assert elapsed < 15  # the full count takes far longer than that
    assert "stopped" in result.stderr and "incomplete" in result.stderr
    data = json.loads(result.stdout)
    assert data["complete"] is False
    assert isinstance(data["models"], int) and isinstance(data["traces"], int)


# ---------------------------------------------------------------------------
# explore


def test_explore_json():
    data = json.loads(ok("explore", FIG4, "--input", FIG4_FACTS, "--horizon", 2, "--json").stdout)
    assert data["traces"] == 6
    assert isinstance(data["states"], int) and data["states"] > data["traces"]  # the start is not an end
    assert "runs" not in data


def test_explore_runs():
    # One run prefix per causal model: the 8 models differ in their traces or in the messages left pending.
    data = json.loads(ok("explore", FIG4, "--input", FIG4_FACTS, "--horizon", 2, "--runs", "--json").stdout)
    assert (data["traces"], data["runs"]) == (6, 8)


def test_explore_text():
    out = ok("explore", FIG4, "--input", FIG4_FACTS, "--horizon", 2).stdout
    assert "6 distinct trace(s)" in out


def test_explore_state_limit_exits_3():
    result = invoke("explore", FIG4, "--input", FIG4_FACTS, "--horizon", 2, "--max-states", 1, "--json")
    assert result.exit_code == 3
    assert "state limit" in result.stderr and "--max-states" in result.stderr
    data = json.loads(result.stdout)  # like count and cron, the JSON comes, saying it is incomplete
    assert data["complete"] is False and data["traces"] is None and data["states"] == 2


# ---------------------------------------------------------------------------
# check


def test_check_positive_program():
    out = ok("check", ALG1).stdout
    assert "4 rule(s), well formed" in out
    assert "strata of the deductive rules: 1: T" in out
    assert re.search(r"^positive: yes\b", out, re.M)


def test_check_program_with_negation():
    out = ok("check", EX1).stdout
    assert "strata of the deductive rules: 1: marked, vert; 2: missing; 3: covered" in out
    assert re.search(r"^positive: no\b", out, re.M)


def test_check_json():
    data = json.loads(ok("check", ALG1, "--json").stdout)
    assert data["positive"] is True
    assert json.loads(ok("check", EX1, "--json").stdout)["positive"] is False


# ---------------------------------------------------------------------------
# errors


@pytest.mark.parametrize("command", ["models", "count", "explore"])
def test_missing_input_file(command, tmp_path):
    missing = tmp_path / "nope.facts"
    err = usage_error(command, FIG4, "--input", missing, "--horizon", 1)
    assert err.startswith(f"{missing}: error: cannot read input")


def test_missing_program_file(tmp_path):
    missing = tmp_path / "nope.ded"
    err = usage_error("compile", missing, "--horizon", 1)
    assert err.startswith(f"{missing}: error: cannot read program")


@pytest.mark.parametrize("command", ["check", "compile", "models", "count", "explore"])
def test_bad_program(command, tmp_path):
    bad = tmp_path / "bad.ded"
    bad.write_text("p(X) :- q(X).\nr(X) :- q(.\n", encoding="utf-8")
    extra = [] if command == "check" else ["--input", FIG4_FACTS, "--horizon", 1]
    err = usage_error(command, bad, *extra)
    assert re.match(rf"{re.escape(str(bad))}:2:\d+: error: ", err)


@pytest.mark.parametrize("text", ["z { id(z) }\n", '{"nodes": {"z": {"id": [["z"]]}\n'])
def test_bad_input(text, tmp_path):
    bad = tmp_path / ("bad.json" if text.startswith("{") else "bad.facts")
    bad.write_text(text, encoding="utf-8")
    err = usage_error("count", FIG4, "--input", bad, "--horizon", 1, "--json")
    assert re.match(rf"{re.escape(str(bad))}:\d+:\d+: error: ", err)


# ---------------------------------------------------------------------------
# help


def test_help_lists_the_commands():
    out = ok("--help").stdout
    for command in SUBCOMMANDS:
        assert re.search(rf"\b{command}\b", out), command


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_subcommand_help_describes_its_options(command):
    out = ok(command, "--help").stdout
    for option in SUBCOMMANDS[command]:
        assert option in out, option


# ---------------------------------------------------------------------------
# the real entry point

SCRIPT = shutil.which("dedalus2asp", path=str(Path(sys.executable).parent))


def test_console_script(tmp_path):
    assert SCRIPT is not None, "the dedalus2asp script is not installed next to this interpreter: pip install -e ."
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    done = subprocess.run(
        [SCRIPT, "count", str(FIG4), "--input", str(FIG4_FACTS), "--horizon", "1", "--semantics", "choice", "--json"],
        cwd=tmp_path, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert (data["models"], data["traces"]) == (37, 10)
    done = subprocess.run(
        [SCRIPT, "compile", str(FIG4), "--horizon", "1", "--semantics", "foo"],
        cwd=tmp_path, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and "--semantics" in done.stderr


def test_python_dash_m_runs_the_same_command_line(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "dedalus2asp", "count", str(FIG4), "--input", str(FIG4_FACTS), "--horizon", "1", "--json"],
        cwd=tmp_path, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["traces"] > 0


def test_a_reader_that_leaves_early_does_not_change_the_exit_status(tmp_path):
    """`models ... | head -1`: the pipe closes while models are still written (far more than a pipe holds)."""
    command = [SCRIPT, "models", str(FIG4), "--input", str(FIG4_FACTS), "--horizon", "2", "--semantics", "choice", "-n", "0"]
    process = subprocess.Popen(command, cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout.readline()
    process.stdout.close()
    status, err = process.wait(timeout=120), process.stderr.read().decode()
    assert status == 0 and "Traceback" not in err and "BrokenPipe" not in err, err


def test_horizon_beyond_clingo_integers_is_a_usage_error():
    result = RUNNER.invoke(app, ["count", str(FIG4), "--input", str(FIG4_FACTS), "--horizon", "99999999999", "--json"])
    assert result.exit_code == 2 and "--horizon" in result.output


def test_clingo_rejecting_a_generated_program_is_an_internal_error_not_a_traceback(monkeypatch, capsys):
    from dedalus2asp import cli
    from dedalus2asp.asp import solve

    def rejected(*args, **kwargs):
        raise solve.SolveError("clingo could not ground the generated program: parsing failed")

    monkeypatch.setattr(solve, "count", rejected)
    monkeypatch.setattr(sys, "argv", ["dedalus2asp", "count", str(FIG4), "--input", str(FIG4_FACTS), "--horizon", "1"])
    with pytest.raises(SystemExit) as exit_:
        cli.main()
    assert exit_.value.code == cli.EXIT_INTERNAL
    assert "bug in dedalus2asp" in capsys.readouterr().err


def test_report_on_a_missing_path_says_it_cannot_read_it(tmp_path):
    result = RUNNER.invoke(app, ["report", str(tmp_path / "nosuch.ded")])
    assert result.exit_code == 2 and "cannot read it" in result.output and "--horizon" not in result.output
