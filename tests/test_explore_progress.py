"""`explore --eventual` on a program that is not temporally safe says at the start that it may not end, and why;
the construction of the configuration graph reports its progress."""

from __future__ import annotations

from typer.testing import CliRunner

from dedalus2asp.bounds import Bounds, Mode, Network
from dedalus2asp.cli import app
from dedalus2asp.lang import facts, parser
from dedalus2asp.runs import eventual

GROWING = ".output n.\nn(Y + 1)@next :- n(Y).\n"  # a counter: a new value at every step


def test_a_program_that_is_not_temporally_safe_is_announced_before_the_work(tmp_path):
    program, data = tmp_path / "grow.ded", tmp_path / "grow.facts"
    program.write_text(GROWING, encoding="utf-8")
    data.write_text("a { n(0). }\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["explore", str(program), "--input", str(data), "--eventual", "--delivery", "sync",
                                      "--max-states", "30"])
    assert result.exit_code == 3  # not exact: stopped at --max-states
    first = result.stderr.splitlines()[0]
    assert first.startswith("explore --eventual may not end: the program is not temporally safe")
    assert "--max-states 30" in first and "computes the new value 'Y + 1'" in first


def test_a_temporally_safe_program_is_explored_without_the_warning(tmp_path):
    program, data = tmp_path / "blink.ded", tmp_path / "blink.facts"
    program.write_text(".output on.\non()@next :- not on(), id(_).\n", encoding="utf-8")
    data.write_text("a { id(a). }\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["explore", str(program), "--input", str(data), "--eventual", "--delivery", "sync"])
    assert result.exit_code == 0 and "may not end" not in result.output


def test_the_graph_construction_reports_its_progress():
    seen = []
    program = parser.parse_program(GROWING, "grow.ded")
    instance = facts.parse_facts("a { n(0). }", "grow.facts")
    found = eventual.explore(program, instance, Bounds(0, network=Network("sync"), mode=Mode.EVENTUAL),
                             max_configurations=20, progress=lambda k, n: seen.append((k, n)))
    assert not found.exact
    assert [k for k, _ in seen] == list(range(len(seen))) and all(k < n <= 20 for k, n in seen) and len(seen) >= 19


def test_the_invariant_question_is_announced_too(tmp_path):
    program = tmp_path / "grow.ded"
    program.write_text('n("a", 0)@1;\nn(A, Y + 1)@next :- n(A, Y);\npre(Y) :- n(_, Y);\npost(Y) :- n(_, Y);\n',
                       encoding="utf-8")
    result = CliRunner().invoke(app, ["explore", str(program), "--eventual", "--delivery", "sync", "--pre", "pre",
                                      "--max-states", "30"])
    assert result.stderr.startswith("explore --eventual may not end: the program is not temporally safe"), result.output
    assert "progress below" not in result.stderr.splitlines()[0]


def test_timeout_stops_a_graph_that_never_closes(tmp_path):
    """`explore --eventual --timeout S`: the growing counter's graph never closes; without --max-states the command
    stops after S seconds of building, not exact (exit 3), and says so."""
    program, data = tmp_path / "grow.ded", tmp_path / "grow.facts"
    program.write_text(GROWING, encoding="utf-8")
    data.write_text("a { n(0). }\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["explore", str(program), "--input", str(data), "--eventual", "--delivery", "sync",
                                      "--timeout", "0.5"])
    assert result.exit_code == 3, result.output
    assert "exact: no" in result.stdout and "within 0.5 s" in result.stdout


def test_timeout_replaces_the_choice_graphs_budget():
    """Under `--semantics choice` the choice graphs have 8 s by default; `--timeout` gives them another budget
    (tplp2016 Fig. 5 at delay ≤ 2: decided within a second when given 8, not within 0.01 s)."""
    from pathlib import Path

    examples = Path(__file__).resolve().parent.parent / "examples" / "tplp2016"
    args = ["explore", str(examples / "fig5_grouping.ded"), "--input", str(examples / "fig5.facts"), "--eventual",
            "--semantics", "choice", "--max-delay", "2"]
    assert CliRunner().invoke(app, args).exit_code == 0
    stopped = CliRunner().invoke(app, [*args, "--timeout", "0.01"])
    assert stopped.exit_code == 3 and "not built within 0.01 s" in stopped.stdout, stopped.output


def test_timeout_is_refused_where_nothing_reads_it(tmp_path):
    program = tmp_path / "blink.ded"
    program.write_text(".output on.\non()@next :- not on(), id(_).\n", encoding="utf-8")
    for extra in (["--horizon", "3"], ["--eventual", "--pre", "on", "--post", "on"]):
        result = CliRunner().invoke(app, ["explore", str(program), *extra, "--timeout", "1"])
        assert result.exit_code == 2 and "--timeout" in result.stderr, result.output
