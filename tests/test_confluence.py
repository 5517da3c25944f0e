"""Confluent programs in the eventual mode: every infinite run, causal or choice, has the same ultimate output.

`questions.models.confluent` (the Dedalus properties draft's criterion, with jcss2014 §4.1.1's argument for
Algorithm 2 made general) lets `cron --eventual`, `models --eventual` and `count --eventual` answer exactly where
no completeness threshold is found: under the choice semantics a message may arrive before its send, and under a
delay bound of 2 the delays alone make paths of distinct configurations exponentially long. Checked here:

* the papers' table: jcss2014 Alg. 1 and Alg. 2 and tplp2016 Ex. 1 consistent and tolerant, exact, under sync and
  delay bounds 1 and 2; Alg. 3, Alg. 4, Fig. 4 and Ex. 2 not confluent, and answered as before;
* the argument against the solver and the explorer, on random programs: whenever the criterion holds, the explorer's
  causal rounds have exactly one ultimate output, and every choice lasso of several lengths has it too;
* what the criterion must not claim: a positive program that is consistent under a delay bound of 1 and yet not
  tolerant (two messages that must meet), since its messages are not persisted.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from dedalus2asp import pipeline
from dedalus2asp.bounds import Bounds, Mode, Network, Semantics
from dedalus2asp.cli import app
from dedalus2asp.lang.facts import parse_facts
from dedalus2asp.lang.parser import parse_program
from dedalus2asp.questions import cron_eventual, models
from dedalus2asp.runs import eventual as explorer

from conftest import EXAMPLES

NETWORKS = [Network("sync"), Network(max_delay=1), Network(max_delay=2)]

CONFLUENT = [("jcss2014/alg1.ded", "jcss2014/alg1.facts"), ("jcss2014/alg2.ded", "jcss2014/alg2_empty.facts"),
             ("jcss2014/alg2.ded", "jcss2014/alg2_nonempty.facts"),
             ("tplp2016/ex1_reachability.ded", "tplp2016/ex1_reachability.facts")]
NOT_CONFLUENT = [("jcss2014/alg3.ded", "jcss2014/alg3.facts"), ("jcss2014/alg4.ded", "jcss2014/alg4.facts"),
                 ("tplp2016/fig4_noncausal.ded", "tplp2016/fig4.facts"), ("tplp2016/ex2_ordering.ded", "tplp2016/ex2_ordering.facts")]

MEET = ".output out.\nm()@async(X) :- id(X).\nn()@async(X) :- id(X).\nout() :- m(), n().\nout()@next :- out().\n"
"""Positive, and consistent under a delay bound of 1 (m and n, sent at every step, meet at every step from 1), yet
not tolerant: a choice run lets the messages sent at even steps arrive at odd ones and the others at their send
step, so m and n never meet. Neither is persisted, so the criterion does not hold."""


def loaded(program: str, facts: str | None):
    prog, instance, _ = pipeline.load(EXAMPLES / program, EXAMPLES / facts if facts else None)
    return prog, instance


@pytest.mark.parametrize("network", NETWORKS, ids=lambda n: n.describe())
@pytest.mark.parametrize("program,facts", CONFLUENT, ids=lambda p: str(p))
def test_confluent_examples_are_tolerant_exactly(program, facts, network):
    prog, instance = loaded(program, facts)
    assert models.confluent(prog, instance, network)
    verdict = cron_eventual.analyse_eventual(prog, instance, Bounds(0, network=network), timeout=60)
    assert verdict.consistent and verdict.tolerant and verdict.exact
    assert verdict.exactness.decided_by == verdict.choice_exactness.decided_by == "confluence"
    assert verdict.certain == verdict.choice_certain == verdict.possible == verdict.choice_possible
    # the output is the explorer's: the one ultimate output of every causal round
    explored = explorer.explore(prog, instance, Bounds(0, network=network, mode=Mode.EVENTUAL), 20_000,
                                verdict.outputs)
    if explored.graph_complete:
        assert [set(o) for o in explored.ultimate_outputs] == [set(verdict.certain)]


@pytest.mark.parametrize("program,facts", NOT_CONFLUENT, ids=lambda p: str(p))
def test_the_criterion_leaves_the_others_to_the_thresholds(program, facts):
    prog, instance = loaded(program, facts)
    assert not models.confluent(prog, instance, Network(max_delay=1))
    verdict = cron_eventual.analyse_eventual(prog, instance, Bounds(0, network=Network(max_delay=1)), timeout=60)
    assert verdict.exactness.decided_by != "confluence"
    assert verdict.choice_exactness is None or verdict.choice_exactness.decided_by != "confluence"


def test_faults_and_global_rules_are_outside_the_criterion():
    prog, instance = loaded("jcss2014/alg1.ded", "jcss2014/alg1.facts")
    assert not models.confluent(prog, instance, Network("sync", crashes=1))
    assert not models.confluent(prog, instance, Network("sync", loss_until=2))


def test_two_messages_that_must_meet_are_consistent_but_not_tolerant():
    prog = parse_program(MEET, "meet.ded")
    instance = parse_facts("a { id(a). }\n", "a.facts")
    assert prog.positive and not models.confluent(prog, instance, Network(max_delay=1))
    verdict = cron_eventual.analyse_eventual(prog, instance, Bounds(0, network=Network(max_delay=1)), timeout=60)
    assert verdict.consistent and verdict.tolerant is False and verdict.exact
    assert verdict.certain == {"out()"} and verdict.lost == {"out()"}


def test_an_input_event_is_not_fixed_by_the_input():
    """`start()@0` holds at step 0 only: what is derived from it need not grow, so the criterion must not hold."""
    prog = parse_program(".output got.\nm()@async(X) :- start(), id(X).\nm()@next :- m().\ngot() :- m(), start().\n"
                         "got()@next :- got().\n", "event.ded")
    assert models.confluent(prog, parse_facts("a { id(a). start(). }\n", "a.facts"), Network(max_delay=1))
    assert not models.confluent(prog, parse_facts("a { id(a). start()@0. }\n", "a.facts"), Network(max_delay=1))


# ---------------------------------------------------------------------------
# The argument against the solver and the explorer, on random programs

GROWING = ["p", "q", "r"]
READ = GROWING + ["e", "id", "node"]


@st.composite
def growing_rule(draw) -> str:
    """A rule over p, q, r (arity 1) that reads them or the input positively, and negates input only, of any kind."""
    head = draw(st.sampled_from(GROWING))
    body = [f"{draw(st.sampled_from(READ))}(X)" for _ in range(draw(st.integers(1, 2)))]
    if draw(st.booleans()):  # negating the input keeps the rule monotone over growing data; negating p, q, r not
        body.append(f"not {draw(st.sampled_from(['e', 'e', 'e', 'p', 'q']))}(X)")
    kind = draw(st.sampled_from(["", "@next", "@async(Y)"]))
    if kind == "@async(Y)":
        body.append("node(Y)")
    return f"{head}(X){kind} :- {', '.join(body)}."


@st.composite
def confluent_program(draw) -> str:
    """Rules over p, q, r that mostly grow, most relations simply persisted, and an output read at one step only
    (out: p minus q): confluent by the criterion or not, which the test asks."""
    rules = draw(st.lists(growing_rule(), min_size=1, max_size=4))
    persisted = [f"{r}(X)@next :- {r}(X)." for r in GROWING if draw(st.integers(0, 3)) > 0]
    return "\n".join([".output out.", *rules, *persisted, "out(X) :- p(X), not q(X).", "out(X) :- r(X), id(X)."])


FACTS = st.sampled_from([
    "a { id(a). node(a). node(b). e(a). p(a). }\nb { id(b). node(a). node(b). }\n",
    "a { id(a). node(b). q(b). }\nb { id(b). node(a). e(b). r(b). }\n",
    "a { id(a). node(a). node(b). p(b). }\nb { id(b). e(a). }\n",
])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(confluent_program(), FACTS, st.sampled_from(NETWORKS))
def test_random_confluent_programs_have_one_ultimate_output_in_every_run(text, facts, network):
    prog = parse_program(text, "random.ded")
    instance = parse_facts(facts, "random.facts")
    holds = models.confluent(prog, instance, network)
    event("confluent" if holds else "not confluent")
    assume(holds)
    explored = explorer.explore(prog, instance, Bounds(0, network=network, mode=Mode.EVENTUAL), 3_000, ("out",))
    assume(explored.graph_complete)
    assert len(explored.ultimate_outputs) == 1  # every causal round, alternations included
    only = set(explored.ultimate_outputs[0])
    for semantics in (Semantics.CAUSAL_FINITE, Semantics.CHOICE):
        seen = []
        # from the shortest lasso (a message persisted at once may first need a few steps to settle), lassos of
        # several lengths, prefixes and loops of every shape in them
        first = models.confluent_steps(prog, instance, Bounds(0, semantics=semantics, network=network))
        assert first is not None
        for k in range(first, first + 4):
            found = models.ultimate_outputs(prog, instance, Bounds(0, semantics=semantics, network=network), ("out",),
                                            steps=k, timeout=20)
            assert found.complete
            seen += [set(o) for o in found.outputs]
        assert seen and all(o == only for o in seen), (semantics, seen, only)
    answer = models.ultimate_outputs(prog, instance, Bounds(0, semantics=Semantics.CHOICE, network=network), ("out",))
    assert answer.exact and answer.decided_by == "confluence" and [set(o) for o in answer.outputs] == [only]


def test_cli_cron_count_and_models_say_why_exact(tmp_path):
    runner = CliRunner()
    alg2, empty = str(EXAMPLES / "jcss2014/alg2.ded"), str(EXAMPLES / "jcss2014/alg2_empty.facts")
    done = runner.invoke(app, ["cron", alg2, "-i", empty, "--max-delay", "2", "--eventual"])
    assert done.exit_code == 0, done.output
    assert "consistent and tolerant: every infinite causal and choice run" in done.output
    assert "confluent by the Dedalus properties draft's criterion" in done.output
    done = runner.invoke(app, ["cron", alg2, "-i", empty, "--max-delay", "2", "--eventual", "--json"])
    answer = json.loads(done.output)
    assert answer["exact"] and answer["tolerance"]["decided_by"] == "confluence"
    done = runner.invoke(app, ["count", alg2, "-i", empty, "--max-delay", "2", "--eventual", "--semantics", "choice"])
    assert done.exit_code == 0 and "1 distinct ultimate output(s)" in done.output and "confluent" in done.output
    done = runner.invoke(app, ["models", alg2, "-i", empty, "--max-delay", "1", "--eventual", "--semantics", "choice"])
    assert done.exit_code == 0 and "exact: yes, the program is confluent" in done.output and "T()" in done.output
