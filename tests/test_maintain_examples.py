"""`--check` passes on every example of examples/psn2010/ under every schedule (what docs/maintain.md and the README
show of `maintain` is compared with what the tool prints by the docs' harness, tests/test_docs.py)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from dedalus2asp.cli import app

from conftest import EXAMPLES

RUNNER = CliRunner()


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
