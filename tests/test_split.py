"""Split enumeration: the parts' counts of models and of traces add up to the whole count."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from conftest import EXAMPLES, SMALL, example_id
from dedalus2asp import pipeline
from dedalus2asp.asp import solve
from dedalus2asp.questions.count import split_count
from dedalus2asp.bounds import Bounds, Semantics
from dedalus2asp.cli import app

runner = CliRunner()


@pytest.mark.parametrize("pair", SMALL, ids=[example_id(p) for p in SMALL])
@pytest.mark.parametrize("semantics", [Semantics.CAUSAL_FINITE, Semantics.CHOICE], ids=["causal-finite", "choice"])
def test_split_counts_add_up(pair, semantics):
    """At the largest horizon ≤ 2 where the whole count finishes within 2 s."""
    for horizon in (2, 1, 0):
        compiled = pipeline.prepare(EXAMPLES / pair[0], EXAMPLES / pair[1], Bounds(horizon, semantics)).compiled
        whole = solve.count(compiled, timeout=2, progress=False)
        if whole["complete"]:
            break
    for parts in (3, 4):
        split = split_count(compiled, parts)
        assert (split["models"], split["traces"]) == (whole["models"], whole["traces"])
        assert len(split["parts"]) == parts


def test_split_count_on_spark_from_the_command_line(spark):
    args = ["count", str(EXAMPLES / "tplp2016/fig4_noncausal.ded"), "--input", str(EXAMPLES / "tplp2016/fig4.facts"),
            "--horizon", "3", "--semantics", "choice", "--json"]
    whole = json.loads(runner.invoke(app, args).stdout)
    result = runner.invoke(app, [*args, "--split", "4", "--engine", "spark"])
    assert result.exit_code == 0, result.output
    split = json.loads(result.stdout)
    assert (split["models"], split["traces"]) == (whole["models"], whole["traces"]) == (52801, 76)
    assert len(split["split_atoms"]) == 2 and sum(p["models"] > 0 for p in split["parts"]) > 1
