"""An adversarial review of the eventual mode's "exact" (docs/semantics.md, "Decision: the rounds" and "Exact
tolerance: the choice runs' graphs"): each test looks for a run the certificates miss.

* The fair asynchronous interleavings over-approximate tplp2016's *runs* (the models of pure, rules (1)–(14), by
  Theorem 4), not the models of pure_ca: under `--semantics causal` a node may receive infinitely many messages at
  one step (tplp2016 §4.4.3, Fig. 5), a model that is no run and no lasso.
* The runs with free clocks whose nodes lag each other by at most L steps forever (`review_oracle`, written without
  the interleavings or the rounds graph) are genuine runs: their ultimate outputs must be among every exact list.
"""

from __future__ import annotations

import json

from typer.testing import CliRunner

from dedalus2asp.cli import app

from conftest import EXAMPLES

runner = CliRunner()


def test_pure_ca_groups_every_message_at_one_step():
    """tplp2016 §4.4.3: pure_ca(Fig. 5) has a model in which every A() that x sends arrives at y's step 0 (within the
    delay bound: 0 ≤ s + 1; causal: y never sends, so no step of y happens before x's). y never sees A() twice and
    never derives T(): an infinite causal model whose ultimate output is empty. `models --eventual --semantics
    causal` must not call "T() in every model" exact; under causal-finite (pure, the runs) it is."""
    paths = [str(EXAMPLES / "tplp2016/fig5_grouping.ded"), "-i", str(EXAMPLES / "tplp2016/fig5.facts")]

    def models(semantics: str) -> tuple[int, dict]:
        result = runner.invoke(app, ["models", *paths, "--eventual", "--max-delay", "1", "--semantics", semantics,
                                     "--json"])
        return result.exit_code, json.loads(result.stdout)

    code, found = models("causal")
    assert found["ultimate_outputs"] == [["T()"]]
    assert code == 3 and found["exact"] is False and "infinitely many messages at one step" in found["reason"]
    code, found = models("causal-finite")
    assert code == 0 and found["exact"] is True and found["ultimate_outputs"] == [["T()"]]
