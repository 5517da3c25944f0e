"""Input events and the confluence criterion: a fact at one step (`c()@1` in `.facts`, Molly's `c(a)@2;`) on a
relation that has rules, or on an `@next` relation, is neither fixed by the input nor growing, so the program is
out of the criterion (`lang.coordination`, `questions.models.confluent`) unless that relation is simply persisted.

Every expected answer is the explorer's (`explore --eventual`: the configuration graph's strongly connected parts),
computed here, not written down: the message m() arrives at step 1 or 2 and c() holds at step 1 only, so the
ultimate outputs are {} and {w()}. The confluence shortcut's self-check (`models.confluent_lasso_steps`: the
lassos of the delay bound more steps than the shortest) must see that disagreement if the criterion admits the
program anyway.
"""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from dedalus2asp import pipeline
from dedalus2asp.bounds import Bounds, Mode, Network, Semantics
from dedalus2asp.cli import app
from dedalus2asp.questions import cron_eventual, models
from dedalus2asp.runs import eventual as explorer

D2 = Network(max_delay=2)

DEDUCTIVE = ".output w.\nc() :- e().\nm()@async(Y) :- id(Y).\nm()@next :- m().\nw() :- m(), c().\nw()@next :- w().\n"
"""The issue's program: the event c()@1 on a relation a deductive rule derives (from nothing: e is empty)."""

INDUCTIVE = DEDUCTIVE.replace("c() :- e().", "c()@next :- e().")
"""The event on an @next relation."""

PERSISTED = DEDUCTIVE.replace("c() :- e().", "c()@next :- c().")
"""The event on a simply persisted relation: from step 1 on c() holds forever, so the criterion holds."""

EVENT = "a { id(a). c()@1. }\n"

MOLLY = ("id(X, Y)@next :- id(X, Y);\nc(X) :- e(X);\nm(Y)@async :- id(X, Y);\nm(X)@next :- m(X);\n"
         "w(X) :- m(X), c(X);\nw(X)@next :- w(X);\nid(a, a)@1;\nc(a)@2;\n")
"""Molly's dialect: the event c(a)@2 (step 1) written in the program."""


def load(tmp_path, program: str, facts: str | None, suffix: str = ".ded"):
    path = tmp_path / f"p{suffix}"
    path.write_text(program)
    facts_path = None
    if facts is not None:
        facts_path = tmp_path / "p.facts"
        facts_path.write_text(facts)
    prog, instance, _ = pipeline.load(path, facts_path)
    return prog, instance


def explored(prog, instance, network=D2) -> list[set[str]]:
    found = explorer.explore(prog, instance, Bounds(0, network=network, mode=Mode.EVENTUAL), 20_000, ("w",))
    assert found.graph_complete and found.exact
    return sorted((set(o) for o in found.ultimate_outputs), key=len)


@pytest.mark.parametrize("program,facts", [(DEDUCTIVE, EVENT), (INDUCTIVE, EVENT), (MOLLY, None)],
                         ids=["deductive", "next", "molly"])
def test_an_event_on_a_derived_relation_is_out_of_the_criterion(tmp_path, program, facts):
    prog, instance = load(tmp_path, program, facts)
    outputs = explored(prog, instance)
    assert [{f.replace("(a)", "()") for f in o} for o in outputs] == [set(), {"w()"}]  # the explorer's answer
    assert not models.confluent(prog, instance, D2)
    verdict = cron_eventual.analyse_eventual(prog, instance, Bounds(0, network=D2), ("w",), timeout=60)
    assert verdict.consistent is False and verdict.exact
    assert verdict.certain == set.intersection(*outputs) and verdict.possible == set.union(*outputs)
    ultimate = models.ultimate_outputs(prog, instance, Bounds(0, network=D2, semantics=Semantics.CAUSAL_FINITE),
                                       ("w",), timeout=60)
    assert [set(o) for o in ultimate.outputs] == outputs and ultimate.decided_by != "confluence"


def test_check_sees_the_event_molly_writes_in_the_program(tmp_path):
    path = tmp_path / "p.ded"
    path.write_text(MOLLY)
    done = CliRunner().invoke(app, ["check", str(path)])
    assert done.exit_code == 0, done.output
    assert "rule 5 joins 'c', and it has input events, which hold at one step only" in done.output
    assert "confluent by the properties draft's criterion: not shown" in done.output


def test_an_event_on_a_persisted_relation_keeps_the_criterion(tmp_path):
    prog, instance = load(tmp_path, PERSISTED, EVENT)
    assert models.confluent(prog, instance, D2)
    verdict = cron_eventual.analyse_eventual(prog, instance, Bounds(0, network=D2), ("w",), timeout=60)
    assert verdict.consistent and verdict.tolerant and verdict.exact
    assert verdict.exactness.decided_by == "confluence"
    assert [verdict.certain] == explored(prog, instance) == [{"w()"}]


def test_the_self_check_catches_a_criterion_that_admits_too_much(tmp_path, monkeypatch):
    """Admit the issue's program as the old criterion did: the shortest lassos (K = 3) all end with w(), the
    lassos of K + D steps do not, so neither cron nor models answers "exact by confluence"."""
    prog, instance = load(tmp_path, DEDUCTIVE, EVENT)
    bounds = Bounds(0, network=D2)
    monkeypatch.setattr(models, "confluent", lambda *args: True)
    shortest = models.confluent_steps(prog, instance, bounds)
    early = cron_eventual.analyse(prog, instance, cron_eventual.eventual.lasso_bounds(bounds, shortest), ("w",))
    assert early.consistent and early.certain == {"w()"}  # what the old self-check saw
    assert models.confluent_lasso_steps(prog, instance, bounds) == shortest + 2
    verdict = cron_eventual.analyse_eventual(prog, instance, bounds, ("w",), timeout=60)
    assert verdict.consistent is False and verdict.exactness.decided_by != "confluence"
    ultimate = models.ultimate_outputs(prog, instance, bounds, ("w",), timeout=60)
    assert not ultimate.exact and "confluent, yet" in ultimate.reason
