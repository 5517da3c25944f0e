"""Lasso models (the eventual mode of the generated programs) and the eventual Theorem 4.

* the solver's distinct ultimate outputs (`questions.models.ultimate_outputs`, the lasso program of
  templates/lasso.lp.j2 projected onto the ultimate output atoms) equal the explorer's
  (`runs.eventual.explore`, the configuration graph) on the papers' examples and on random programs,
  under sync, with and without faults, in both encodings; the completeness threshold of the loop-free
  path program equals the explorer's where the explorer's is exact;
* the sharp corners: a blinking light, a message in flight across the loop's end, a node with no facts,
  a crash in the prefix, an input event;
* the command line: `compile --eventual`, `models --eventual`, `count --eventual`.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from dedalus2asp import inspect, pipeline
from dedalus2asp.asp.transform import transform
from dedalus2asp.bounds import Bounds, Encoding, Mode, Network, Semantics
from dedalus2asp.cli import app
from dedalus2asp.lang.diagnostics import DiagnosticError
from dedalus2asp.lang.facts import parse_facts
from dedalus2asp.questions import models
from dedalus2asp.runs import eventual

from conftest import EXAMPLES, SMALL, example_id
from test_eventual_explorer import BLINK, ONCE, ONE, RETRY, THREE  # the explorer's small programs, asked again here
from test_theorem4 import inputs, rules, well_formed

TWO = "a { id(a). start(). node(b). }\nb { id(b). }\n"

SYNC = Network("sync")
FAULTS = Network("sync", loss_until=1, crashes=1, crash_times="any")  # the explorer's crash model: at any step


@pytest.fixture
def files(tmp_path):
    def write(program: str, facts: str):
        (tmp_path / "p.ded").write_text(program, encoding="utf-8")
        (tmp_path / "p.facts").write_text(facts, encoding="utf-8")
        return tmp_path / "p.ded", tmp_path / "p.facts"
    return write


def loaded(program, facts):
    prog, instance, _ = pipeline.load(program, facts, "auto")
    return prog, instance


def outputs_of(prog) -> tuple[str, ...]:
    return prog.output_relations or tuple(r for r in prog.idb() if r not in prog.global_relations())


def agree(prog, instance, network: Network, outputs=None, encodings=tuple(Encoding), semantics=Semantics.CAUSAL_FINITE):
    """The eventual Theorem 4 on one program: the explorer's distinct ultimate outputs are the solver's, with the
    lassos of K steps, K the threshold (or the explorer's longest witness, for a run alternating between loops);
    and the thresholds agree where the explorer's is exact."""
    outputs = outputs or outputs_of(prog)
    explored = eventual.explore(prog, instance, Bounds(0, network=network, mode=Mode.EVENTUAL), 20_000, outputs)
    assert explored.exact, explored.reason  # the oracle finishes on every program asked here
    found = models.threshold(prog, instance, Bounds(0, semantics, network=network), timeout=10)
    # jcss2014 Alg. 1 under D = 2 has paths of more than 40 distinct configurations: no threshold, so the solver is
    # asked at the length of the explorer's longest witness, where it must still find every ultimate output
    if found.exact and network.sync:  # under a delay bound the path program's configurations hold the chosen arrivals: larger K
        assert found.steps <= max(explored.threshold, models.first_steps(prog, instance))  # see random_agreement
    steps = max([found.steps if found.exact else 1] + [w.loop_start + w.period for w in explored.witnesses])
    for encoding in encodings:
        answer = models.ultimate_outputs(prog, instance, Bounds(0, semantics, encoding, network), outputs, steps=steps)
        assert answer.complete or not found.exact
        assert set(answer.outputs) == set(explored.ultimate_outputs), encoding
        for output, lasso in zip(answer.outputs, answer.lassos):  # each lasso has the output it stands for
            assert lasso.is_lasso and lasso.ultimate(outputs) == output
    return explored


# ---------------------------------------------------------------------------
# The papers' examples

DELAYS = [Network(max_delay=1), Network(max_delay=2), Network(max_delay=1, loss_until=1, crashes=1, crash_times="any")]


@pytest.mark.parametrize("network", [SYNC, FAULTS, *DELAYS], ids=["sync", "faults", "d1", "d2", "d1-faults"])
@pytest.mark.parametrize("pair", SMALL, ids=[example_id(p) for p in SMALL])
def test_examples_ultimate_outputs_agree_with_the_explorer(pair, network):
    agree(*loaded(EXAMPLES / pair[0], EXAMPLES / pair[1]), network)


MOLLY = ["simple_broadcast", "retry_broadcast", "ack_broadcast", "classic_broadcast", "two_phase_commit", "countdown"]


@pytest.mark.parametrize("network", [SYNC, Network("sync", loss_until=2)], ids=["sync", "losses"])
@pytest.mark.parametrize("name", MOLLY)
def test_molly_protocols_ultimate_outputs_agree_with_the_explorer(name, network):
    agree(*loaded(EXAMPLES / "molly" / f"{name}.ded", None), network)


# ---------------------------------------------------------------------------
# Random programs (tests/test_theorem4.py's generator)

RANDOM_NETWORKS = [SYNC, Network("sync", loss_until=1), Network("sync", crashes=1, crash_times="any"),
                   Network("sync", loss_until=1, crashes=1, omission="message", crash_times="any"),
                   Network(max_delay=1), Network(max_delay=2)]


def random_program(rule_texts, facts):
    program = well_formed("\n".join(rule_texts))
    assume(program is not None)
    return program, parse_facts(facts, "random.facts")


def random_outputs(program) -> tuple[str, ...]:
    """The output relations of a random program: those of p, q and r it has."""
    return tuple(r for r in ("p", "q", "r") if r in program.schema())


def random_agreement(program, instance, network, encodings):
    outputs = random_outputs(program)
    try:
        explored = eventual.explore(program, instance, Bounds(0, network=network, mode=Mode.EVENTUAL), 3_000, outputs)
    except DiagnosticError:  # an input arity the program reads otherwise
        assume(False)
    assume(explored.exact)
    found = models.threshold(program, instance, Bounds(0, network=network), max_steps=12, timeout=5)
    assume(found.exact)  # under D = 2 some random programs have long paths of distinct configurations
    # the explorer's configurations keep each message's sender, the path program's do not (under rounds no
    # future step reads it): its paths of distinct configurations are at most as long (under sync)
    if network.sync:
        assert found.steps <= max(explored.threshold, models.first_steps(program, instance))
    steps = max([found.steps] + [w.loop_start + w.period for w in explored.witnesses])
    assume(steps <= 12)
    for encoding in encodings:
        answer = models.ultimate_outputs(program, instance, Bounds(0, encoding=encoding, network=network), outputs,
                                         steps=steps, timeout=10)
        assume(answer.complete)
        assert set(answer.outputs) == set(explored.ultimate_outputs), encoding
    # the answer at the threshold itself (what models --eventual gives): every output it lists is one, and
    # it lists them all when the explorer's witnesses fit in K steps
    exact = models.ultimate_outputs(program, instance, Bounds(0, encoding=encodings[0], network=network), outputs, timeout=10)
    assume(exact.complete)
    # a confluent program is asked at its shortest lassos plus the delay bound (models.confluent_lasso_steps)
    at_threshold = exact.steps == found.steps or exact.decided_by in ("confluence", "graph")
    # the outputs only runs whose clocks drift apart have come last (not the explorer's rounds: docs/semantics.md)
    drifted = {o for o, _ in exact.drifted}
    rounds = set(exact.outputs) - drifted
    assert not drifted & set(explored.ultimate_outputs) and (exact.free_clocks is not None or not drifted)
    assert (exact.exact or exact.free_clocks is not None or "alternates" in exact.reason) and at_threshold
    assert rounds <= set(explored.ultimate_outputs)
    if steps == found.steps or exact.decided_by in ("confluence", "graph"):
        assert rounds == set(explored.ultimate_outputs)


@settings(max_examples=130, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.lists(rules(), min_size=1, max_size=3), inputs(), st.sampled_from(RANDOM_NETWORKS))
def test_random_programs_ultimate_outputs_agree_fast(rule_texts, facts, network):
    random_agreement(*random_program(rule_texts, facts), network, (Encoding.FAST,))


@settings(max_examples=90, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.lists(rules(), min_size=1, max_size=3), inputs(), st.sampled_from(RANDOM_NETWORKS))
def test_random_programs_ultimate_outputs_agree_paper(rule_texts, facts, network):
    random_agreement(*random_program(rule_texts, facts), network, (Encoding.PAPER,))


# ---------------------------------------------------------------------------
# The sharp corners

def lassos(prog, instance, network, steps, encoding=Encoding.FAST, semantics=Semantics.CAUSAL_FINITE):
    compiled = transform(prog, instance, Bounds(steps - 1, semantics, encoding, network, Mode.EVENTUAL))
    return list(inspect.enumerate_models(compiled, 0, progress=False).models)


@pytest.mark.parametrize("encoding", list(Encoding))
def test_blinking_light_has_no_ultimate_output(files, encoding):
    """Certain output on() at horizon 3, none at horizon 4 (bounded); ultimately none: it blinks forever."""
    prog, instance = loaded(*files(BLINK, ONE))
    for horizon, expected in ((3, {("on()",)}), (4, {()})):
        bounded = inspect.enumerate_models(transform(prog, instance, Bounds(horizon, network=SYNC)), 0, progress=False)
        assert {m.outputs() for m in bounded.models} == expected
    answer = models.ultimate_outputs(prog, instance, Bounds(0, encoding=encoding, network=SYNC), ("on",))
    assert answer.exact and answer.outputs == ((),)
    assert answer.steps == 2  # two configurations: light off, light on
    (lasso,) = answer.lassos
    assert lasso.period % 2 == 0 and lasso.loop_start + lasso.period == 2


@pytest.mark.parametrize("encoding", list(Encoding))
def test_a_message_in_flight_across_the_loops_end(files, encoding):
    """RETRY sends msg() at every step: the one sent at the last step K-1 arrives at unrolled step K, which is
    the loop's first step L again. It is decoded there, with its unrolled step kept, and no happens-before edge."""
    prog, instance = loaded(*files(RETRY, THREE))
    found = lassos(prog, instance, SYNC, 3, encoding)
    assert found
    for lasso in found:
        last = [m for m in lasso.messages if m.sent == lasso.horizon]
        assert {(str(m.addressee), m.unrolled, m.arrives) for m in last} == {("b", 3, lasso.loop_start), ("c", 3, lasso.loop_start)}
        assert all(m.wraps for m in last) and not any(m.wraps for m in lasso.messages if m.sent < lasso.horizon)
        assert not any(edge[0][1] > edge[1][1] for edge in lasso.edges())  # no edge back to L
        lasso.linear_extension()  # happens-before is acyclic on the lasso's steps
        # the facts at L came by the messages of step L-1 before the loop, and are brought again by step K-1's
        assert {"got(b)", "got(c)"} <= set(lasso.ultimate())


def test_a_message_sent_at_the_last_step_must_match_the_loop_start(files):
    """Under sync the messages of step K-1 arrive at L as those of L-1 do: ONCE sends once, at step 0, so a loop
    that starts at 1 receives msg() at 1 from step 0 but nothing from step K-1: no lasso has L = 1."""
    prog, instance = loaded(*files(ONCE, THREE))
    found = lassos(prog, instance, SYNC, 3)
    assert found and all(m.loop_start == 2 for m in found)  # L = 0 would carry sent() into step 0; L = 1 misses msg()


def test_a_node_with_no_facts(files):
    """Node c holds nothing and nobody writes to it; node b has no facts but receives."""
    program = ".output got.\nmsg()@async(Y) :- start(), node(Y).\ngot() :- msg().\n"
    prog, instance = loaded(*files(program, "a { start(). node(b). }\nb { }\nc { }\n"))
    explored = agree(prog, instance, SYNC)
    assert explored.ultimate_outputs == (("got()",),)


def test_a_crash_in_the_prefix(files):
    """With one crash, a's crash stops its messages to b and c for ever: every crash is in the prefix."""
    prog, instance = loaded(*files(RETRY, THREE))
    explored = agree(prog, instance, Network("sync", crashes=1, crash_times="any"))
    assert () in explored.ultimate_outputs
    answer = models.ultimate_outputs(prog, instance, Bounds(0, network=Network("sync", crashes=1, crash_times="any")), ("got",))
    crashed = [m for m in answer.lassos if m.crashes]
    assert crashed and all(s < m.loop_start for m in crashed for _, s in m.crashes)


@pytest.mark.parametrize("encoding", list(Encoding))
def test_an_input_event_comes_before_the_loop(files, encoding):
    """start()@2 holds at step 2 only: the loop starts after it, else the event would recur every period."""
    prog, instance = loaded(*files(ONCE, "a { id(a). start()@2. node(b). }\nb { id(b). }\n"))
    assert models.first_steps(prog, instance) == 4
    found = lassos(prog, instance, SYNC, 5, encoding)
    assert found and all(m.loop_start > 2 for m in found)
    explored = agree(prog, instance, SYNC, encodings=(encoding,))
    assert explored.ultimate_outputs == (("got(b)",),)


def arrivals(lasso, u: int) -> set:
    """What arrives at unrolled step u of the infinite run a lasso stands for: the prefix's messages whose arrival
    is u, and the loop's messages, sent again every period, whose arrivals A, A+P, ... reach u."""
    L, P = lasso.loop_start, lasso.period
    return {(m.addressee, m.relation, m.args) for m in lasso.messages
            if m.unrolled is not None and (m.unrolled == u if m.sent < L else m.unrolled <= u and (u - m.unrolled) % P == 0)}


@pytest.mark.parametrize("semantics", [Semantics.CAUSAL, Semantics.CHOICE])
@pytest.mark.parametrize("program", [RETRY, ONCE], ids=["retry", "once"])
def test_the_unrolled_run_is_periodic_under_a_delay_bound(files, program, semantics):
    """Under a delay bound D = 2 every lasso stands for a periodic run: from L on, step u+P receives what step u
    does; the lasso's facts at a loop step are what arrives at every unrolled step it stands for; every arrival
    is within the window (causal S+1..S+D, choice S-D..S+D)."""
    prog, instance = loaded(*files(program, TWO))
    found = lassos(prog, instance, Network(max_delay=2), 4, semantics=semantics)
    assert found
    for lasso in found:
        L, P = lasso.loop_start, lasso.period
        for u in range(L, lasso.horizon + 8):
            assert arrivals(lasso, u) == arrivals(lasso, u + P)
        for t in range(L, lasso.horizon + 1):
            got = {(x, r, a) for x, s, r, a in lasso.trace if s == t and r == "msg"}
            assert got == arrivals(lasso, t + P)
        low = 1 if semantics.causal else -2
        assert all(m.sent + low <= m.unrolled <= m.sent + 2 for m in lasso.messages)


def test_the_choice_window_lets_a_message_arrive_before_its_send(files):
    """Under choice with D = 1 a message may arrive up to one step before its send (docs/semantics.md)."""
    program = ".output p.\nA()@async(X) :- id(X), go().\np() :- A().\n"
    prog, instance = loaded(*files(program, "a { id(a). go()@1. }\n"))
    found = lassos(prog, instance, Network(max_delay=1), 3, semantics=Semantics.CHOICE)
    early = [m for lasso in found for m in lasso.messages if m.unrolled is not None and m.unrolled < m.sent]
    assert early and all(m.sent - m.unrolled <= 1 for m in early)
    assert not any(m.unrolled is not None and m.unrolled <= m.sent for lasso in lassos(prog, instance, Network(max_delay=1), 3)
                   for m in lasso.messages)


def test_not_exact_without_a_threshold(files):
    """Value invention has no finite set of configurations: the answer is the bounded one, labelled."""
    prog, instance = loaded(*files(".output n.\nn(X+1)@next :- n(X).\n", "a { n(0). }\n"))
    answer = models.ultimate_outputs(prog, instance, Bounds(0, network=SYNC), ("n",))
    assert not answer.exact and "new values" in answer.reason
    with pytest.raises(ValueError, match="not finite-state"):
        models.ultimate_outputs(prog, instance, Bounds(0), ("n",))


# ---------------------------------------------------------------------------
# The command line

runner = CliRunner()


def test_compile_eventual_runs_under_clingo(files, tmp_path):
    program, facts = files(RETRY, THREE)
    out = tmp_path / "lasso.lp"
    result = runner.invoke(app, ["compile", str(program), "-i", str(facts), "--eventual", "--steps", "3",
                                 "--delivery", "sync", "--encoding", "paper", "-o", str(out)])
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert "(4) a candidate arrival step" in text and "Heljanko and Niemelä" in text
    run = subprocess.run([sys.executable, "-m", "clingo", str(out), "0"], capture_output=True, text=True)
    assert "SATISFIABLE" in run.stdout and "_loop(" in run.stdout
    assert runner.invoke(app, ["compile", str(program), "--eventual"]).exit_code == 2  # no --steps
    assert runner.invoke(app, ["compile", str(program), "--eventual", "--steps", "3"]).exit_code == 2  # async, no bound


def test_models_and_count_eventual(files):
    program, facts = files(ONCE, THREE)
    result = runner.invoke(app, ["models", str(program), "-i", str(facts), "--eventual", "--delivery", "sync", "--eff", "2", "--json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["exact"] is True and document["K"] == 3  # the explorer's threshold too
    assert sorted(map(tuple, document["ultimate_outputs"])) == [(), ("got(b)",), ("got(b)", "got(c)"), ("got(c)",)]
    assert all({"loop_start", "period", "output"} <= set(lasso) for lasso in document["lassos"])
    result = runner.invoke(app, ["count", str(program), "-i", str(facts), "--eventual", "--delivery", "sync", "--json"])
    assert result.exit_code == 0 and json.loads(result.stdout)["ultimate_outputs"] == 1
    # the choice runs under a delay bound: decided by their graphs (exact, exit 0); the lassos of exactly K steps
    # asked instead (--steps) are not exact: labelled, exit 3; async without a bound and --horizon with --eventual:
    # exit 2
    choice = ["count", str(program), "-i", str(facts), "--eventual", "--max-delay", "1", "--semantics", "choice"]
    result = runner.invoke(app, [*choice, "--json"])
    assert result.exit_code == 0 and json.loads(result.stdout)["exact"] is True
    assert json.loads(result.stdout)["decided_by"] == "choice-graph"
    result = runner.invoke(app, [*choice, "--steps", "2", "--json"])
    assert result.exit_code == 3 and json.loads(result.stdout)["exact"] is False
    assert json.loads(result.stdout)["reason"]
    for bad in (["--eventual"], ["--eventual", "--delivery", "sync", "--horizon", "3"]):
        result = runner.invoke(app, ["models", str(program), "-i", str(facts), *bad])
        assert result.exit_code == 2 and "Traceback" not in result.output


# ---------------------------------------------------------------------------
# fast against paper: the same lassos (traces, loop starts, messages' unrolled arrivals), where no explorer
# answers yet (delay bounds under rounds, choice, Molly's crash candidates, fail-stop)

def shapes(prog, instance, network, steps, encoding, semantics) -> set:
    return {(m.trace, m.loop_start, tuple((x.send, x.addressee, x.relation, x.args, x.unrolled) for x in m.messages),
             m.crashes, tuple(x.send for x in m.lost))
            for m in lassos(prog, instance, network, steps, encoding, semantics)}


@pytest.mark.parametrize("semantics", list(Semantics), ids=lambda s: s.value)
@pytest.mark.parametrize("network", [
    Network(max_delay=1), Network(max_delay=2), Network(max_delay=1, loss_until=1, crashes=1),
    Network("sync", loss_until=2, crashes=1), Network("sync", crashes=1, crash_model="fail-stop"),
], ids=["d1", "d2", "d1-faults", "molly", "fail-stop"])
def test_fast_and_paper_have_the_same_lassos(files, network, semantics):
    prog, instance = loaded(*files(ONCE, TWO))
    fast = shapes(prog, instance, network, 3, Encoding.FAST, semantics)
    assert fast and fast == shapes(prog, instance, network, 3, Encoding.PAPER, semantics)


def test_an_alternation_no_lasso_shows_makes_the_list_not_exact():
    """Two loops: f ultimately at node a in one, at node b in the other; both output {f}. A run that alternates
    between them forever holds f at neither node: output {}, which the closure under intersection names."""
    shown = lambda items: tuple(sorted({f for _, f in items}))  # noqa: E731
    found = {frozenset({("a", "f")}): None, frozenset({("b", "f")}): None}
    assert models.alternations(found, shown) == {()}
    assert models.alternations({frozenset({("a", "f")}): None, frozenset(): None}, shown) == set()


def test_choice_under_a_delay_bound_lists_the_alternation(files):
    """A node sends itself A() at every step, delay <= 2: a run may receive it at some steps (p) and not at
    others (q); ultimately it may hold p() only, or nothing: the lasso that alternates is found."""
    prog, instance = loaded(*files(".output p, q.\nA()@async(X) :- id(X).\np() :- A().\nq() :- id(_), not A().\n", ONE))
    answer = models.ultimate_outputs(prog, instance, Bounds(0, network=Network(max_delay=2)), ("p", "q"))
    explored = eventual.explore(prog, instance, Bounds(0, network=Network(max_delay=2), mode=Mode.EVENTUAL), 1000, ("p", "q"))
    assert answer.exact and set(answer.outputs) == set(explored.ultimate_outputs) == {(), ("p()",)}


def test_count_eventual_of_a_molly_protocol_names_its_output_relations():
    """Molly's protocols declare no .output: --output-relations names them; without, exit 2 saying so."""
    program = str(EXAMPLES / "molly" / "simple_broadcast.ded")
    result = runner.invoke(app, ["count", program, "--eventual", "--delivery", "sync", "--eff", "3", "--json",
                                 "--output-relations", "log"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["exact"] is True and document["ultimate_outputs"] >= 2  # a lost message: some member never logs
    result = runner.invoke(app, ["count", program, "--eventual", "--delivery", "sync"])
    assert result.exit_code == 2 and "no output relation" in result.output


def test_models_eventual_writes_every_format(tmp_path):
    """models --eventual: the answer as one document (text, json, html; -o FILE) or one picture per lasso (svg, dot,
    itf; -o DIR), --svg DIR beside; ShiViz (a finite run) is refused with exit 2."""
    program, facts = EXAMPLES / "jcss2014/alg4.ded", EXAMPLES / "jcss2014/alg4.facts"
    ask = ["models", str(program), "-i", str(facts), "--eventual", "--max-delay", "2"]
    page = tmp_path / "answer.html"
    result = runner.invoke(app, ask + ["-f", "html", "-o", str(page), "--svg", str(tmp_path / "svg")])
    assert result.exit_code == 0, result.output
    assert "<html" in page.read_text().lower() and "T()" in page.read_text()
    pictures = sorted(p.name for p in (tmp_path / "svg").iterdir())
    assert pictures == ["model-1.svg", "model-2.svg"]  # Alg. 4 under D = 2: two ultimate outputs, a lasso each
    result = runner.invoke(app, ask + ["-f", "itf", "-o", str(tmp_path / "itf")])
    assert result.exit_code == 0, result.output
    for path in (tmp_path / "itf").iterdir():
        assert "loop" in json.loads(path.read_text())  # ITF's lasso: the index the trace loops back to
    result = runner.invoke(app, ask + ["-f", "dot"])
    assert result.exit_code == 0 and result.stdout.startswith("digraph")
    result = runner.invoke(app, ask + ["-f", "shiviz"])
    assert result.exit_code == 2 and "ShiViz" in result.output
