"""What docs/maintain.md and the README show of `maintain` (and of `check` on a DDlog program) is what the tool
prints; and `--check` passes on every example of examples/psn2010/."""

from __future__ import annotations

import re
import shlex

import pytest
from typer.testing import CliRunner

from dedalus2asp.cli import app

from conftest import EXAMPLES, ROOT

RUNNER = CliRunner()


def shown(page: str) -> list[tuple[str, str]]:
    """(command, output) of every `$ dedalus2asp` block of `page` that runs maintain or checks a psn2010 program."""
    text = (ROOT / page).read_text(encoding="utf-8")
    out = []
    for block in re.findall(r"^```\n(.*?)^```", text, re.M | re.S):
        if block.startswith("$ dedalus2asp maintain") or block.startswith("$ dedalus2asp check examples/psn2010"):
            command, _, output = block.partition("\n")
            out.append((command[2:], output))
    return out


BLOCKS = shown("docs/maintain.md") + shown("README.md")


def test_the_pages_show_commands():
    assert len(BLOCKS) >= 6


@pytest.mark.parametrize("command, output", BLOCKS, ids=[c[:90] for c, _ in BLOCKS])
def test_a_shown_command_prints_what_the_page_shows(command, output, monkeypatch):
    monkeypatch.chdir(ROOT)  # the pages name files from the repository's root
    result = RUNNER.invoke(app, shlex.split(command)[1:])
    assert result.stdout == output


@pytest.mark.parametrize("program, facts, updates", [
    ("reachable.ddlog", "reachable.facts", "reachable.updates"),
    ("reachable_dedalus.ded", "reachable.facts", "reachable.updates"),
    ("hops.ddlog", "hops.facts", "hops.updates"),
    ("cycle.ddlog", None, "cycle.updates"),
])
@pytest.mark.parametrize("schedule", ["fifo", "reversed", "random", "adversarial"])
def test_every_example_passes_the_check_under_every_schedule(program, facts, updates, schedule):
    psn = EXAMPLES / "psn2010"
    arguments = ["maintain", str(psn / program), "--updates", str(psn / updates), "--check", "--json",
                 "--schedule", schedule, "--quiet"]
    arguments += ["--input", str(psn / facts)] if facts else []
    result = RUNNER.invoke(app, arguments)
    assert result.exit_code == 0 and '"check": true' in result.stdout
