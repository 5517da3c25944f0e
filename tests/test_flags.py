"""One name for one thing on every command: the output relations are `--output-relations` wherever a command
takes them (`--output` is a file on models, compile and report), and the error that asks for them names that
flag; a JSON input's integer out of clingo's range is placed like every other error."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from dedalus2asp.cli import app

RUNNER = CliRunner()
NO_OUTPUT = "peer(a, b)@1;\npeer(A, B)@next :- peer(A, B);\nseen(B)@async :- peer(A, B);\nseen(B)@next :- seen(B);\n"
ASKS = {  # each command that reads output relations, with the bounds it needs
    "models": ["--eventual", "--delivery", "sync"],
    "count": ["--eventual", "--delivery", "sync"],
    "explore": ["--eventual", "--delivery", "sync"],
    "cron": ["--horizon", "2", "--max-delay", "1"],
}


@pytest.mark.parametrize("command", ASKS)
def test_every_command_names_the_output_relations_flag_it_takes(tmp_path, command):
    program = tmp_path / "p.ded"
    program.write_text(NO_OUTPUT, encoding="utf-8")
    asked = RUNNER.invoke(app, [command, str(program), *ASKS[command]])
    assert "--output-relations R" in asked.output and "--output R" not in asked.output
    given = RUNNER.invoke(app, [command, str(program), *ASKS[command], "--output-relations", "seen"])
    assert given.exit_code in (0, 1), given.output  # an answer, whatever it is
    assert "seen" in given.output


@pytest.mark.parametrize("command", ["explore", "cron"])
def test_output_is_not_a_relations_flag(tmp_path, command):
    program = tmp_path / "p.ded"
    program.write_text(NO_OUTPUT, encoding="utf-8")
    result = RUNNER.invoke(app, [command, str(program), *ASKS[command], "--output", "seen"])
    assert result.exit_code == 2 and "No such option: --output" in result.output


def test_an_integer_out_of_range_in_json_is_placed(tmp_path):
    program = tmp_path / "p.ded"
    program.write_text("out(X) :- r(X).\n", encoding="utf-8")
    data = tmp_path / "in.json"
    data.write_text('{\n  "nodes": {\n    "a": {"r": [[1], [-2147483649], ["99999999999"]]}\n  }\n}\n', encoding="utf-8")
    result = RUNNER.invoke(app, ["models", str(program), "--input", str(data), "--horizon", "1"])
    assert result.exit_code == 2 and result.output.endswith("1 error(s)\n")  # the string of digits is a string
    first = result.output.splitlines()[0]
    assert first == (f"{data}:3:23: error: node 'a', relation 'r', tuple 2: integer -2147483649 is out of range: "
                     "clingo's integers lie in -2147483648..2147483647")


def test_help_into_a_pipe_is_100_columns_wide():
    """Off a terminal, rich would wrap --help at 80 columns; it takes `HELP_WIDTH` instead (CliRunner is no terminal)."""
    from dedalus2asp.cli import HELP_WIDTH

    for args in (["--help"], ["verify", "--help"], ["cron", "--help"]):
        result = RUNNER.invoke(app, args, env={"COLUMNS": "", "TERMINAL_WIDTH": ""})
        assert result.exit_code == 0
        assert max(len(line) for line in result.output.splitlines()) == HELP_WIDTH
