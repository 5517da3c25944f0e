"""Fuzzing the command line with hostile input (issue #20); the strategies are in tests/fuzzing.py.

For every input, whatever it is:

* the exit status is 0, 1, 2 or 3 (cli.py's: success, a "no", a user error,
  an incomplete answer), and nothing is printed on stdout on a user error
  (a "no" or an incomplete answer may print what it found);
* no "Traceback" anywhere, and no exception escapes the command;
* every line of stderr that reports a problem of a file is
  `file:line:col: severity: message` followed by the source line and a caret
  line, or `file: severity: message` for a problem of the whole file;
* a program that `check` accepts compiles, and clingo parses what `compile`
  writes (`Control.add`, no grounding); `convert` writes a program that
  `check` accepts.

Two tiers. The default run (CI) draws a fixed, derandomized budget of
inputs, about two minutes in all, in process (typer's CliRunner), and a few
through real processes whose address space is limited to 2 GiB. The long
run, `pytest -m fuzz --fuzz-examples N`, draws N inputs per property (N/100
real processes); docs/hostile-input.md records what long runs found. Option
values (every kind of option of the solving commands) are fuzzed in both
tiers; a real process also solves (`count --timeout`), and must answer within
its timeout and 2 GiB. Batch manifests are fuzzed in the long run only
(`fuzz(only_long=True)`, deselected otherwise by tests/conftest.py).
"""

from __future__ import annotations

import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

import clingo
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import fuzzing
from dedalus2asp.cli import app
from dedalus2asp.lang.diagnostics import DiagnosticError

pytestmark = pytest.mark.fuzz  # `pytest -m fuzz` selects this module; the default run too, at its own budget

ROOT = fuzzing.ROOT
TRANSPARENT = ROOT / "examples/tplp2016/ex1_reachability.ded"
LOCATED = ROOT / "examples/tr2009/broadcast_located.ded"
EXIT_CODES = {0, 1, 2, 3}
SECONDS_PER_INPUT = 30  # a hang is a finding
SOLVE_TIMEOUT = 5  # --timeout of a real process that solves
ADDRESS_SPACE = 2 * 2**30  # of a real process

# The default run's budget: inputs per property (about a minute in all on the CI machine; with 400 programs and 250
# facts and JSON inputs it was 66 s idle, and the whole run nears its 20 minutes: the long run draws more).
DEFAULT_EXAMPLES = {"programs": 250, "facts": 150, "json": 150, "processes": 8, "options": 60}

# A line that reports a problem: `file:line:col: severity: ...` or `file: severity: ...` (not indented).
PLACED = re.compile(r"(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): (?P<severity>error|warning|note): ")
WHOLE = re.compile(r"(?P<file>.+?): (?P<severity>error|warning|note): ")
CARET = re.compile(r" {4} *\^+\Z")

INPUTS = Counter()  # inputs run per property, for the long run's report


def budget(config, name: str) -> int:
    """Inputs per property: the default run's, or --fuzz-examples N (real processes: N/100, they cost a second each)."""
    given_n = config.getoption("--fuzz-examples")
    if not given_n:
        return DEFAULT_EXAMPLES[name]
    return max(DEFAULT_EXAMPLES[name], given_n // 100) if name == "processes" else given_n


def run_property(strategy, check, examples: int, name: str) -> None:
    """Run `check` on `examples` inputs drawn from `strategy`: derandomized, no deadline, no database."""

    @settings(max_examples=examples, derandomize=True, deadline=None, database=None, print_blob=True,
              suppress_health_check=list(HealthCheck), phases=(Phase.explicit, Phase.generate, Phase.shrink))
    @given(strategy)
    def prop(example):
        INPUTS[name] += 1
        check(example)

    start = time.perf_counter()
    try:
        prop()
    finally:
        own, children = (resource.getrusage(who).ru_maxrss / 1024 for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
        print(f"\nfuzz {name}: {INPUTS[name]} inputs in {time.perf_counter() - start:.1f} s; peak resident memory "
              f"so far {own:.0f} MiB in this process, {children:.0f} MiB in a child")


@contextmanager
def time_limit(seconds: int):
    """Raise TimeoutError in the test if the body runs longer than `seconds` (a hang is a finding)."""

    def expired(signum, frame):
        raise TimeoutError(f"no answer after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def cli(*args) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of the command line run in this process; an escaping exception fails."""
    with time_limit(SECONDS_PER_INPUT):
        result = CliRunner().invoke(app, [str(a) for a in args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"uncaught {result.exception!r} for {args}") from result.exception
    return result.exit_code, result.stdout, result.stderr


def assert_well_reported(code: int, out: str, err: str, args) -> None:
    """The properties every run must have (see the module docstring)."""
    assert code in EXIT_CODES, (code, args, err[-2000:])
    assert "Traceback" not in out + err, (args, err[-3000:])
    if code == 2:  # a "no" (1) or an incomplete answer (3) may still print what it found
        assert out == "", (args, out[:500])
    lines = err.split("\n")
    for i, line in enumerate(lines):
        if line.startswith(" ") or not line:
            continue
        placed = PLACED.match(line)
        if placed is not None:
            assert i + 2 < len(lines) and lines[i + 1].startswith("    "), (args, lines[i : i + 3])
            assert CARET.match(lines[i + 2]), (args, lines[i : i + 3])
        elif WHOLE.match(line) is None:
            assert re.fullmatch(r"\d+ error\(s\)|wrote .*|timeout: .*|out of memory: .*|stopped before an answer: .*|"
                                r"no model: .*|no causal model: .*|printed model 1 of .*|state limit: .*|interrupted", line), (args, line)
    if code == 2:
        assert any(PLACED.match(l) or WHOLE.match(l) for l in lines if not l.startswith(" ")), (args, err[-2000:])


def run_and_check(*args) -> tuple[int, str, str]:
    code, out, err = cli(*args)
    assert_well_reported(code, out, err, args)
    return code, out, err


def assert_clingo_parses(text: str) -> None:
    control = clingo.Control(["--warn=none"])
    control.add("base", [], text)  # parses only: grounding is the solver's business


@pytest.fixture(scope="module")
def scratch():
    with tempfile.TemporaryDirectory(prefix="dedalus2asp-fuzz-") as directory:
        yield Path(directory)


# ---------------------------------------------------------------------------
# The properties


def check_program(scratch: Path, text: str, name: str = "prog.ded") -> None:
    """`check` a program; if it is accepted, compile it (clingo parses the output) and convert it."""
    prog = scratch / name
    prog.write_text(text, encoding="utf-8")
    code, _, _ = run_and_check("check", prog)
    if code != 0:
        return
    code, out, _ = run_and_check("compile", prog, "--horizon", "1")
    if code == 0:
        assert_clingo_parses(out)
    code, out, _ = run_and_check("convert", prog)
    if code == 0:
        converted = scratch / "converted.ded"
        converted.write_text(out, encoding="utf-8")
        code, _, err = run_and_check("check", converted)
        assert code == 0, (text, out, err)


def check_input(scratch: Path, text: str, suffix: str, located: bool) -> None:
    """Compile a shipped program with the input `text`; if it is accepted, clingo parses the output."""
    data = scratch / f"input{suffix}"
    data.write_text(text, encoding="utf-8")
    code, out, _ = run_and_check("compile", LOCATED if located else TRANSPARENT, "--input", data, "--horizon", "2")
    if code == 0:
        assert_clingo_parses(out)


file_names = st.sampled_from(["prog.ded"] * 8 + ["p r%o\ng.ded", "ü.ded", "-x.ded", "a:1:2.ded"])


def test_fuzz_programs(scratch, pytestconfig):
    run_property(st.tuples(fuzzing.programs, file_names),
                 lambda ex: check_program(scratch, *ex), budget(pytestconfig, "programs"), "programs")


def test_fuzz_facts_inputs(scratch, pytestconfig):
    run_property(st.tuples(fuzzing.facts_inputs, st.booleans()),
                 lambda ex: check_input(scratch, ex[0], ".facts", ex[1]), budget(pytestconfig, "facts"), "facts")


def test_fuzz_json_inputs(scratch, pytestconfig):
    run_property(st.tuples(fuzzing.json_inputs, st.booleans()),
                 lambda ex: check_input(scratch, ex[0], ".json", ex[1]), budget(pytestconfig, "json"), "json")


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def check_in_process_of_its_own(scratch: Path, program: str, facts: str) -> None:
    """`compile` through a real process whose address space is 2 GiB: it answers within it."""
    prog, data = scratch / "own.ded", scratch / "own.facts"
    prog.write_text(program, encoding="utf-8")
    data.write_text(facts, encoding="utf-8")
    args = ["compile", str(prog), "--input", str(data), "--horizon", "1"]
    done = subprocess.run([sys.executable, "-m", "dedalus2asp", *args], capture_output=True, text=True,
                          timeout=120, preexec_fn=_limited, stdin=subprocess.DEVNULL,
                          env={**os.environ, "NO_COLOR": "1"})
    assert_well_reported(done.returncode, done.stdout, done.stderr, args)
    if done.returncode == 0:  # and solve it: the grounding budget, or the timeout through grounding, bounds the work
        args = ["count", str(prog), "--input", str(data), "--horizon", "1", "--timeout", str(SOLVE_TIMEOUT), "--json"]
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "dedalus2asp", *args], capture_output=True, text=True,
                              timeout=120, preexec_fn=_limited, stdin=subprocess.DEVNULL,
                              env={**os.environ, "NO_COLOR": "1"})
        assert time.perf_counter() - start < SOLVE_TIMEOUT + 10, (args, done.stderr[-1000:])  # grace and start
        assert_well_reported(done.returncode, done.stdout, done.stderr, args)


def test_fuzz_real_processes(scratch, pytestconfig):
    run_property(st.tuples(fuzzing.programs, fuzzing.facts_inputs),
                 lambda ex: check_in_process_of_its_own(scratch, *ex), budget(pytestconfig, "processes"), "processes")


def test_the_real_process_is_limited(scratch):
    """The limit holds: a process that asks for more than 2 GiB fails to get it."""
    done = subprocess.run([sys.executable, "-c", "b = bytearray(3 * 2**30)"], capture_output=True, text=True,
                          preexec_fn=_limited, timeout=60)
    assert done.returncode != 0 and "MemoryError" in done.stderr


# ---------------------------------------------------------------------------
# The long run only: batch manifests and option values (they find failures in cli.py and batch/, see
# docs/hostile-input.md)


def check_manifest(scratch: Path, text: str) -> None:
    """A manifest gives jobs or a `file: error:` diagnostic (exit 2 from `batch`), nothing else."""
    from dedalus2asp.batch.manifest import read_manifest

    manifest = scratch / "manifest.toml"
    manifest.write_text(text, encoding="utf-8")
    try:
        with time_limit(SECONDS_PER_INPUT):
            jobs = read_manifest(manifest)
    except DiagnosticError:
        jobs = None
    if jobs is not None:  # accepted: every value has its type (running the jobs takes Spark, not started here)
        for job in jobs:
            assert_well_typed(job.parameters, text)
        return
    code, out, err = run_and_check("batch", manifest, "--out", scratch / "out")
    assert code == 2, (text, err)


def assert_well_typed(parameters: dict, text: str) -> None:
    """The values of an accepted job are of the types its keys take (the manifest's documented schema)."""
    natural = lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0  # noqa: E731
    assert isinstance(parameters["program"], str), (text, parameters)
    assert parameters["input"] is None or isinstance(parameters["input"], str), (text, parameters)
    assert natural(parameters["models"]), (text, parameters)
    assert isinstance(parameters["seed"], int) and not isinstance(parameters["seed"], bool), (text, parameters)
    assert parameters["steps"] is None or (natural(parameters["steps"]) and parameters["steps"] >= 1), (text, parameters)
    timeout = parameters["timeout"]
    assert timeout is None or (isinstance(timeout, (int, float)) and not isinstance(timeout, bool)
                               and 0 <= timeout < float("inf")), (text, parameters)


@pytest.mark.fuzz(only_long=True)
def test_fuzz_manifests(scratch, pytestconfig):
    run_property(fuzzing.manifests, lambda text: check_manifest(scratch, text), budget(pytestconfig, "programs"),
                 "manifests")


option_value = st.one_of(st.integers(-(2**40), 2**40).map(str), st.sampled_from(["", "-1", "0", "x", "1.5", "nan", "inf", "9" * 30,
                                                                           "2147483648", "1G", "64M", "1T", "--"]),
                         st.text(max_size=5))

OPTIONS = [("compile", "--horizon"), ("compile", "--max-delay"), ("compile", "--semantics"), ("compile", "--encoding"),
           ("compile", "--dialect"), ("models", "--horizon"), ("models", "--models"), ("models", "--format"),
           ("models", "--timeout"), ("models", "--max-memory"), ("count", "--timeout"), ("count", "--max-ground"),
           ("count", "--max-delay"), ("replay", "--model"), ("explain", "--model"), ("report", "--models"),
           ("cron", "--encoding"), ("cron", "--timeout"), ("explore", "--max-states"), ("run", "--steps")]


def test_fuzz_option_values(scratch, pytestconfig):
    """A bad option value is a `<command line>: error:` diagnostic, exit 2, like every other user error;
    a good one answers within its bounds."""
    facts = ROOT / "examples/tplp2016/ex1_reachability.facts"

    def check(example):
        (command, option), value = example
        args = [command, TRANSPARENT, "--input", facts, option, value]
        if option != "--horizon":
            args += ["--horizon", "1"]
        if command == "run":
            args = [command, TRANSPARENT, "--input", facts, "--out", scratch / "run", option, value]
        if command == "explain":
            args += ["--fact", "covered()", "--at", "a:1"]
        if command == "report":
            args += ["-o", scratch / "report.html"]
        if command == "cron":
            args += ["--max-delay", "1"]
        large = re.fullmatch(r"\s*\d+\s*", value, re.ASCII) is not None and int(value) > 50
        if command in ("models", "count", "replay", "explain", "report", "cron") and option != "--timeout":
            args += ["--timeout", "10"]  # within the budget a question may still take long (-T 360): bounded by its timeout
        if option == "--steps" and large:
            return  # a valid long run is work asked for (`run` has no --timeout), not a hang
        run_and_check(*args)

    run_property(st.tuples(st.sampled_from(OPTIONS), option_value), check, budget(pytestconfig, "options"), "options")
