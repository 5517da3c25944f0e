"""Every eventual question says one thing in its text and its JSON, and exits by it.

`cron`, `models`, `count` and `verify --eventual` each answer exactly (for every infinite run) or bounded (the lassos
of K steps only). The text's words and the JSON's `exact` come from one value: a side of `cron` made exact by its
witness (two lassos that ultimately differ, a choice lasso that does) says "exact, whatever K" in the text and
`"exact": true` in the JSON. The exit status follows it: 0 an exact yes, 1 an exact no (a lasso counterexample), 3
an answer that is not exact, whatever it says (as `models --eventual` always did), so a script can tell a bounded
"consistent" from an exact one.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dedalus2asp.cli import app

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
ALG1 = [str(EXAMPLES / "jcss2014" / "alg1.ded"), "-i", str(EXAMPLES / "jcss2014" / "alg1.facts")]
ALG4 = [str(EXAMPLES / "jcss2014" / "alg4.ded"), "-i", str(EXAMPLES / "jcss2014" / "alg4.facts")]
FIG5 = [str(EXAMPLES / "tplp2016" / "fig5_grouping.ded"), "-i", str(EXAMPLES / "tplp2016" / "fig5.facts")]
RACE = [str(EXAMPLES / "coordination" / "race.ded"), "-i", str(EXAMPLES / "coordination" / "race.facts")]
RETRY = [str(EXAMPLES / "molly" / "retry_broadcast.ded"), str(EXAMPLES / "molly" / "broadcast_assert.ded")]
D1, D2, SYNC = ["--max-delay", "1"], ["--max-delay", "2"], ["--delivery", "sync"]

runner = CliRunner()


def both(*args: str):
    """The text answer, the JSON answer, and the exit status (the same for both)."""
    text, as_json = runner.invoke(app, [*args, "--eventual"]), runner.invoke(app, [*args, "--eventual", "--json"])
    assert text.exit_code == as_json.exit_code, (text.output, as_json.output)
    assert text.exit_code in (0, 1, 3), text.output
    return text.stdout.splitlines(), json.loads(as_json.stdout), text.exit_code


def exact_words(rest: str) -> bool:
    """What a line of the text says about exactness: "exact…", "bounded, not exact…" or "not exact…" (the nodes'
    clocks may drift apart, docs/semantics.md)."""
    assert rest.startswith(("exact", "bounded", "not exact")), rest
    return rest.startswith("exact")


CRON = {"alg1 D=1 (confluent)": [*ALG1, *D1], "alg4 D=2 (not consistent)": [*ALG4, *D2],
        "alg4 D=1 (not tolerant)": [*ALG4, *D1], "fig5 D=1 (not tolerant, a certified choice run)": [*FIG5, *D1],
        "race D=1 (not consistent, free clocks)": [*RACE, *D1]}


@pytest.mark.parametrize("args", CRON.values(), ids=CRON.keys())
def test_cron_text_and_json_say_the_same(args):
    lines, found, code = both("cron", *args)
    assert lines[0] == found["verdict"]
    assert ("not exact" in lines[0]) == (found["exact"] is False)
    sides = {"consistency": found["consistency"]["exact"],
             "tolerance": None if found["tolerance"] is None else found["tolerance"]["exact"]}
    said = {}
    for line in lines[1:]:
        if line.startswith(("exact, whatever K: the two causal lassos", "exact: the two runs below")):
            said["consistency"] = True
        for label, keys in (("consistency and tolerance (causal and choice lassos): ", ("consistency", "tolerance")),
                            ("consistency (causal lassos): ", ("consistency",)),
                            ("tolerance (choice lassos): ", ("tolerance",)),
                            ("tolerance (choice runs): ", ("tolerance",))):
            if line.startswith(label):
                said.update(dict.fromkeys(keys, exact_words(line[len(label):])))
                break
    assert said == {k: v for k, v in sides.items() if v is not None}
    assert found["exact"] == (sides["consistency"] and sides["tolerance"] is not False)
    assert code == (3 if not found["exact"] else 0 if found["consistent"] and found["tolerant"] else 1)


@pytest.mark.parametrize("args", [[*ALG4, *D1], [*FIG5, *D1, "--semantics", "choice"],
                                  [*FIG5, *D1, "--semantics", "choice", "--steps", "4"]],
                         ids=["exact", "choice graphs", "bounded"])
def test_models_and_count_text_and_json_say_the_same(args):
    lines, found, code = both("models", *args)
    assert lines[1].startswith("exact: yes, ") == found["exact"]  # K the threshold, or decided by the explorer's graph
    assert lines[1].startswith("exact: no (bounded") != found["exact"]
    assert code == (0 if found["exact"] else 3)
    lines, counted, code = both("count", *args)
    assert counted["exact"] == found["exact"] and counted["K"] == found["K"]
    assert ("not exact (bounded" in lines[0]) != counted["exact"]
    assert code == (0 if counted["exact"] else 3)


@pytest.mark.parametrize("args", [[*RETRY, *SYNC, "--eff", "3"], [*RETRY, *SYNC, "--eff", "3", "--crashes", "1"]],
                         ids=["holds", "crash"])
def test_verify_text_and_json_say_the_same(args):
    lines, found, code = both("verify", *args, "--no-lineage")
    assert lines[0] == found["verdict"]
    said = [line.strip() for line in lines if line.strip().startswith(("exact", "bounded"))]
    assert said and exact_words(said[0]) == found["exact"]
    assert code == (3 if not found["exact"] else 1 if found["holds"] is False else 0)
