"""The diagnostics of the command line, end to end: `tests/bad/*.ded` and their goldens.

Every `tests/bad/NAME.ded` is a program (or, with its `NAME.facts` /
`NAME.json`, an input) with one kind of problem, or several at once.
`tests/bad/NAME.stderr` is the exact standard error of

    dedalus2asp check tests/bad/NAME.ded

run from the repository root, or of the command given by a first line

    % command: compile --input NAME.facts --horizon 1

(the program path comes right after the sub-command; an argument ending in
`.facts` or `.json` names a file of `tests/bad/`). Each case must exit with
status 2, print nothing that looks like a traceback, and match its golden.

To accept new output after changing a message, regenerate the goldens and
read every changed one before committing it:

    UPDATE_GOLDEN=1 python -m pytest tests/test_diagnostics_cli.py

Each command line costs an interpreter start (~0.4 s, mostly typer's
imports), so by default all the runs of this module go through one
subprocess: a driver that calls `dedalus2asp.cli.main()` once per run with
its own `sys.argv`, stdout and stderr, and records the exit status (an
uncaught exception is recorded as the traceback Python would print, with
status 1). Two runs also go through the `dedalus2asp` script installed
next to this interpreter (or `python -c "from dedalus2asp.cli import main;
main()"`) on their own, to check the real process. With
`DEDALUS2ASP_TEST_ISOLATED=1` every run gets its own process.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pytest

from dedalus2asp.lang.ast import Span
from dedalus2asp.lang.diagnostics import Diagnostic, DiagnosticError, Severity, format_diagnostic, raise_if_errors

ROOT = Path(__file__).resolve().parent.parent
BAD = Path("tests") / "bad"
CASES = sorted(p.stem for p in (ROOT / BAD).glob("*.ded"))
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
ISOLATED = os.environ.get("DEDALUS2ASP_TEST_ISOLATED") == "1"
SCRIPT = shutil.which("dedalus2asp", path=str(Path(sys.executable).parent))  # this interpreter's script
CLI = [SCRIPT] if SCRIPT else [sys.executable, "-c", "from dedalus2asp.cli import main; main()"]

DRIVER = """
import contextlib, io, json, sys, traceback
from dedalus2asp.cli import main
results = {}
for name, args in json.load(sys.stdin).items():
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        sys.argv = ["dedalus2asp", *args]
        try:
            main()
            status = 0
        except SystemExit as exc:
            status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except BaseException:
            traceback.print_exc()
            status = 1
    results[name] = [status, out.getvalue(), err.getvalue()]
json.dump(results, sys.__stdout__)
"""


@dataclass(frozen=True)
class Result:
    returncode: int
    stdout: str
    stderr: str


def _env() -> dict[str, str]:
    """The environment of a run, without what would change the layout of the output."""
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "FORCE_COLOR", "TERM")}
    env["NO_COLOR"] = "1"
    return env


def run(*args: str) -> Result:
    """One command line in its own process (stdin is not a terminal: rich would take its width)."""
    done = subprocess.run(
        [*CLI, *args], cwd=ROOT, env=_env(), stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60
    )
    return Result(done.returncode, done.stdout, done.stderr)


def run_all(runs: dict[str, list[str]]) -> dict[str, Result]:
    """Many command lines in one process (see the module docstring)."""
    done = subprocess.run(
        [sys.executable, "-c", DRIVER], input=json.dumps(runs), cwd=ROOT, env=_env(),
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return {name: Result(*r) for name, r in json.loads(done.stdout).items()}


def command(case: str) -> list[str]:
    """The command line of a bad case (see the module docstring)."""
    program = BAD / f"{case}.ded"
    first = (ROOT / program).read_text(encoding="utf-8").splitlines()[0]
    if not first.startswith("% command:"):
        return ["check", str(program)]
    sub, *rest = first.removeprefix("% command:").split()
    return [sub, str(program), *(str(BAD / a) if a.endswith((".facts", ".json")) else a for a in rest)]


SCRATCH = Path(tempfile.gettempdir()) / f"dedalus2asp-test-cli-{os.getpid()}"

# Runs of the command line besides the bad cases, by name.
OTHER_RUNS = {
    "missing": ["check", str(SCRATCH / "nope.ded")],
    "empty": ["check", str(SCRATCH / "empty.ded")],
    "warn": ["check", str(SCRATCH / "warn.ded")],
    "json-good": ["check", "examples/tplp2016/ex1_reachability.ded", "--json"],
    "json-bad": ["check", str(BAD / "addressee.ded"), "--json"],
    "verbatim": ["check", str(SCRATCH / "verbatim.ded")],
}
# User text that a terminal library could take for markup, and a long rule.
VERBATIM = (
    'tag("[/bad]", "[red]x") :- item(X), X != "[b]".\n'
    "a_rather_long_relation_name(Xa, Ya, Za) :- another_rather_long_relation(Xa, Ya), yet_another(Za, Xa).\n"
)
# Runs that also go through a process of their own.
PROCESS_RUNS = ("several", "missing")


@lru_cache(maxsize=None)
def results() -> dict[str, Result]:
    """Every run of this module, once."""
    SCRATCH.mkdir(exist_ok=True)
    atexit.register(shutil.rmtree, SCRATCH, ignore_errors=True)
    (SCRATCH / "empty.ded").write_text("% nothing but a comment\n", encoding="utf-8")
    (SCRATCH / "warn.ded").write_text("p(X) :- q(X, Y).\n", encoding="utf-8")
    (SCRATCH / "verbatim.ded").write_text(VERBATIM, encoding="utf-8")
    runs = {**{case: command(case) for case in CASES}, **OTHER_RUNS}
    if ISOLATED:
        with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
            return dict(zip(runs, pool.map(lambda args: run(*args), runs.values())))
    return run_all(runs)


@lru_cache(maxsize=None)
def process_results() -> dict[str, Result]:
    runs = {**{case: command(case) for case in CASES}, **OTHER_RUNS}
    results()  # the scratch files
    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(PROCESS_RUNS, pool.map(lambda name: run(*runs[name]), PROCESS_RUNS)))


def test_there_are_cases_for_every_kind_of_problem():
    expected = {
        "syntax_error",
        "syntax_errors_many",
        "unsafe_variable",
        "unsafe_places",
        "arity_clash",
        "not_stratifiable",
        "not_stratifiable_3",
        "addressee",
        "output_not_derived",
        "several",
        "input_arity",
        "input_variable",
        "input_mixed_arity",
        "input_bad_json",
        "input_json_shape",
        "input_no_nodes",
        "input_syntax",
        "missing_input",
    }
    assert expected <= set(CASES)


@pytest.mark.parametrize("case", CASES)
def test_bad_case(case):
    result = results()[case]
    golden = ROOT / BAD / f"{case}.stderr"
    if UPDATE:
        golden.write_text(result.stderr, encoding="utf-8")
    assert "Traceback" not in result.stdout + result.stderr
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    assert result.stderr == golden.read_text(encoding="utf-8")


@pytest.mark.parametrize("case", CASES)
def test_every_error_is_counted(case):
    """The closing line counts the `error:` lines: nothing is lost between collecting and printing."""
    stderr = results()[case].stderr
    errors = sum(": error: " in line and not line.startswith(" ") for line in stderr.splitlines())
    assert stderr.splitlines()[-1] == f"{errors} error(s)"
    assert errors >= 1


def test_several_problems_are_reported_in_one_run():
    stderr = results()["several"].stderr
    codes = [line for line in stderr.splitlines() if not line.startswith(" ")]
    assert [line.split(": ", 2)[1] for line in codes[:-1]] == ["error"] * 6 + ["warning"]
    assert "unsafe variable 'Y' in the head 'result(X, Y)' of rule 1" in stderr
    assert stderr.count("relation 'item' has 2 arguments here") == 2
    assert "closes the cycle loop → other → loop" in stderr
    assert "the addressee 'Node' of rule 5" in stderr
    assert "unsafe variable 'Z' in the comparison 'Z < X' of rule 5" in stderr
    assert "warning: variable 'Unused' occurs only once in rule 6" in stderr
    assert stderr.endswith("6 error(s)\n")


def test_syntax_errors_of_every_statement_are_reported():
    stderr = results()["syntax_errors_many"].stderr
    located = [line.split(": error: ")[0] for line in stderr.splitlines() if ": error: " in line]
    assert located == [f"tests/bad/syntax_errors_many.ded:{lc}" for lc in ("3:1", "4:13", "5:3", "6:12", "8:11", "9:5")]


def test_long_lines_are_not_wrapped():
    """A diagnostic is one line however long, and its caret stays under the source."""
    stderr = results()["several"].stderr.splitlines()
    head = "tests/bad/several.ded:7:15: error: the addressee 'Node' of rule 5 occurs in no positive body atom"
    i = next(i for i, line in enumerate(stderr) if line.startswith(head))
    assert stderr[i + 1] == "    sent(X)@async(Node) :- item(X), Z < X."
    assert stderr[i + 2] == "    " + " " * 14 + "^^^^"


@pytest.mark.parametrize("name", PROCESS_RUNS)
def test_a_process_of_its_own_gives_the_same(name):
    """The real process: its exit status, and the same output as through the driver."""
    alone, batched = process_results()[name], results()[name]
    assert "Traceback" not in alone.stderr
    assert alone == batched
    assert alone.returncode == 2


# ---------------------------------------------------------------------------
# The formatter (in process)

TEXT = "p(X) :- q(X).\n\tr(Y) :- s(Y),\n  t(Y).\n"


def test_format_caret_under_the_span():
    d = Diagnostic("code", "a message", Span(1, 9, 1, 13), "f.ded", TEXT)
    assert format_diagnostic(d) == "f.ded:1:9: error: a message\n    p(X) :- q(X).\n            ^^^^"


def test_format_tab_keeps_the_caret_in_place():
    d = Diagnostic("code", "m", Span(2, 4, 2, 5), "f.ded", TEXT, Severity.WARNING)
    assert format_diagnostic(d) == "f.ded:2:4: warning: m\n     r(Y) :- s(Y),\n       ^"


def test_format_span_over_lines_underlines_to_the_end_of_the_first():
    d = Diagnostic("code", "m", Span(2, 2, 3, 8), "f.ded", TEXT)
    assert format_diagnostic(d).splitlines()[2] == "     " + "^" * 13


def test_format_counts_lines_as_the_parser_does():
    text = "% a form feed \f and a line separator \u2028 in a comment\np(X) :- q(Y).\n"
    d = Diagnostic("code", "m", Span(2, 1, 2, 5), "f.ded", text)
    assert format_diagnostic(d).splitlines()[1] == "    p(X) :- q(Y)."


def test_format_without_a_place_and_with_notes():
    note = Diagnostic("code", "first here", Span(1, 1, 1, 5), "f.ded", TEXT, Severity.NOTE)
    d = Diagnostic("code", "whole file", filename="f.ded", text=TEXT, notes=(note,))
    assert format_diagnostic(d) == (
        "f.ded: error: whole file\n"
        "  f.ded:1:1: note: first here\n"
        "      p(X) :- q(X).\n"
        "      ^^^^"
    )


def test_diagnostic_error_sorts_and_keeps_everything():
    late = Diagnostic("a", "late", Span(3, 1, 3, 2), "f.ded", TEXT)
    early = Diagnostic("b", "early", Span(1, 2, 1, 3), "f.ded", TEXT, Severity.WARNING)
    with pytest.raises(DiagnosticError) as info:
        raise_if_errors([late, early])
    assert info.value.diagnostics == [early, late]
    assert str(info.value).count("f.ded:") == 2
    assert raise_if_errors([early]) == [early]


def test_diagnostic_as_dict():
    note = Diagnostic("n", "there", Span(1, 1, 1, 2), "g.ded", severity=Severity.NOTE)
    d = Diagnostic("arity", "msg", Span(2, 3, 2, 4), "f.ded", notes=(note,))
    assert d.as_dict() == {
        "file": "f.ded", "line": 2, "col": 3, "severity": "error", "code": "arity", "message": "msg",
        "notes": [{"file": "g.ded", "line": 1, "col": 1, "severity": "note", "code": "n", "message": "there"}],
    }


# ---------------------------------------------------------------------------
# The command line around the diagnostics


def test_missing_program_file():
    """(A directory or a file that is not UTF-8 takes the same path: see test_parser.)"""
    result = results()["missing"]
    assert result.returncode == 2
    assert result.stderr == f"{SCRATCH / 'nope.ded'}: error: cannot read program: No such file or directory\n1 error(s)\n"


def test_empty_program_is_well_formed():
    result = results()["empty"]
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert result.stdout.splitlines()[0] == f"{SCRATCH / 'empty.ded'}: 0 rule(s), well formed"


def test_warnings_do_not_stop_the_run():
    result = results()["warn"]
    assert result.returncode == 0
    assert result.stderr == (
        f"{SCRATCH / 'warn.ded'}:1:14: warning: variable 'Y' occurs only once in rule 1 "
        "(write '_' if that is intended)\n"
        "    p(X) :- q(X, Y).\n"
        "                 ^\n"
    )
    assert "1 rule(s), well formed" in result.stdout


def test_check_prints_user_text_verbatim():
    """Rule text is shown as written: not read as markup (`[/bad]` must not crash), not wrapped."""
    result = results()["verbatim"]
    assert "Traceback" not in result.stderr
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert '  rule  1 deductive    tag("[/bad]", "[red]x") :- item(X), X != "[b]".' in lines
    assert (
        "  rule  2 deductive    a_rather_long_relation_name(Xa, Ya, Za) :- "
        "another_rather_long_relation(Xa, Ya), yet_another(Za, Xa)."
    ) in lines


def test_check_json_of_a_good_program():
    result = results()["json-good"]
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["strata"] == [["marked", "vert"], ["missing"], ["covered"]]
    assert report["outputs"] == ["covered"]
    assert report["async_relations"] == ["marked/1"]
    assert report["warnings"] == []  # its singleton variables are written _V (the JSON of warnings: test_analysis)
    assert result.stderr == ""  # with --json the warnings are in the report, not on stderr


def test_check_json_of_a_bad_program():
    """Errors go to stderr in the usual format, exit 2, and stdout holds them as JSON (issue 38, item 7)."""
    result = results()["json-bad"]
    assert result.returncode == 2
    data = json.loads(result.stdout)
    assert data["valid"] is False and data["errors"] >= 1 and all(d["line"] >= 1 for d in data["diagnostics"])
    assert result.stderr == (ROOT / BAD / "addressee.stderr").read_text(encoding="utf-8")
