"""The protocol library in Molly's dialect (examples/molly/, issue #18), checked three ways.

Every program of the library uses the constructs people write in Molly — aggregates,
arithmetic, `_` in `notin`, body atoms at a step, global `pre`/`post` rules — and each is
checked at small bounds by three computations that share nothing but the parser:

* the operational semantics (tplp2016 §5.1, `operational.explore`) against the solver: the
  traces of the bounded models are the traces of the run prefixes (bounded Theorem 4);
* the `paper` encoding against the `fast` one: the same models and the same traces;
* the run engines against the solver: a run the local engine computes, written as
  constraints on its arrivals, leaves exactly one model, whose trace is the run's
  (Theorem 4 (i)); that the Spark engine computes the same run is tested in test_engine.py
  and test_language_commands.py.

Then what each program is written to show (its header says it): the countdown rings on time,
the vote counter's aggregates (an empty group, a negative sum, min over strings), 2PC decides
without faults, the heartbeat suspects only without a delay bound, the textbook results of the
broadcasts and of 2PC under omissions and crashes (enumerated, and as `verify` answers them in
one solver call; the explorer agrees with the solver under those faults), and `cron --output
post` answers on a protocol with its invariant file (Alvaro, Rosen, Hellerstein, "Lineage-driven
fault injection", SIGMOD 2015, §3: every `pre` fact has its `post` fact).
"""

from __future__ import annotations

import json
from dataclasses import replace
from functools import cache

import clingo
import pytest
from typer.testing import CliRunner

from conftest import EXAMPLES, INVARIANTS
from dedalus2asp import inspect, pipeline
from dedalus2asp.questions import cron
from dedalus2asp.asp import solve
from dedalus2asp.asp.transform import transform
from dedalus2asp.bounds import Bounds, Encoding, Network, Semantics
from dedalus2asp.cli import app
from dedalus2asp.lang.analysis import restrict
from dedalus2asp.lang.ast import GLOBAL_NODE, RuleKind
from dedalus2asp.runs import engine, operational

MOLLY = EXAMPLES / "molly"
runner = CliRunner()

# each protocol with its invariant file (None: it has none)
LIBRARY = {
    **INVARIANTS,
    "countdown": None,
    "vote_counter": None,
    "heartbeat": None,
}
INCLUDED = ["timer"]  # a service that other programs include; it runs on no input of its own

# (program, horizon, delay bound): small enough for the explorer, large enough that every
# message can arrive and the constructs fire (the timer runs out, the deadline passes, 2PC decides)
CASES = [
    ("simple_broadcast", 2, None),
    ("simple_broadcast", 3, 1),
    ("retry_broadcast", 2, 1),
    ("ack_broadcast", 3, 1),
    ("classic_broadcast", 3, 1),
    ("two_phase_commit", 2, None),
    ("two_phase_commit", 3, 1),
    ("two_phase_commit_timeout", 4, 1),
    ("countdown", 4, None),
    ("vote_counter", 3, 1),
    ("heartbeat", 2, None),
    ("heartbeat", 3, 1),
]


def files(name: str, invariants: bool = True) -> list:
    """The program files of a library protocol: the protocol, then its invariant file if it has one."""
    extra = LIBRARY.get(name) if invariants else None
    return [MOLLY / f"{name}.ded"] + ([MOLLY / f"{extra}.ded"] if extra else [])


@cache
def loaded(name: str, invariants: bool = True):
    program, instance, _ = pipeline.load(files(name, invariants))
    return program, instance


def bounds(horizon, delay, encoding=Encoding.FAST, semantics=Semantics.CAUSAL_FINITE) -> Bounds:
    return Bounds(horizon, semantics, encoding, Network(max_delay=delay))


def solved(program, instance, b: Bounds) -> set:
    found = inspect.traces(transform(program, instance, b), timeout=120)
    assert found.complete
    return {m.trace for m in found.models}


def explored(program, instance, horizon, delay) -> set:
    return set(operational.explore(program, restrict(instance, program), bounds(horizon, delay), mode="traces").traces)


def case_id(case) -> str:
    name, horizon, delay = case
    return f"{name}-T{horizon}-D{delay}"


def last(trace, horizon) -> set:
    """The facts at the last step, as (node, relation, args) strings."""
    return {(str(x), r, tuple(map(str, a))) for x, s, r, a in trace if s == horizon}


# ---------------------------------------------------------------------------
# check


@pytest.mark.parametrize("name", [*LIBRARY, *INCLUDED])
def test_every_program_checks_alone_without_a_warning(name):
    result = runner.invoke(app, ["check", str(MOLLY / f"{name}.ded")])
    assert result.exit_code == 0, result.output
    assert ": warning: " not in result.output


@pytest.mark.parametrize("name", [n for n, extra in LIBRARY.items() if extra])
def test_every_protocol_checks_with_its_invariant_file(name):
    result = runner.invoke(app, ["check", *map(str, files(name))])
    assert result.exit_code == 0, result.output
    assert ": warning: " not in result.output
    program, _ = loaded(name)
    assert set(program.global_relations()) >= {"pre", "post"}
    assert all(r.kind is RuleKind.GLOBAL for r in program.rules if r.head.predicate in ("pre", "post"))


def test_the_library_uses_every_construct_of_issue_18():
    rules = [r for name in LIBRARY for r in loaded(name)[0].rules]
    functions = {a.function for r in rules for a in r.aggregates}
    assert functions == {"count", "sum", "min", "max"}
    assert {r.kind for r in rules if r.aggregates} >= {RuleKind.DEDUCTIVE, RuleKind.INDUCTIVE, RuleKind.ASYNC}
    text = "\n".join(map(str, rules))
    assert "T - 1" in text and "T / 2" in text and "L * 2 > T" in text  # head, body atom, comparison
    steps = [b for r in rules for b in r.body if getattr(b, "step", None) is not None]
    assert steps and all(b.step == 0 for b in steps)  # Molly's @1 is our step 0
    projected = [b for r in rules for b in r.body if getattr(b, "negated", False)
                 and any(getattr(a, "anonymous", False) for a in b.atom.args)]
    assert any(sum(getattr(a, "anonymous", False) for a in b.atom.args) == 2 for b in projected)
    assert any(r.kind is RuleKind.GLOBAL for r in rules)


# ---------------------------------------------------------------------------
# the three-way cross-check


@pytest.mark.parametrize("case", CASES, ids=map(case_id, CASES))
def test_explorer_and_solver_have_the_same_traces(case):
    """Bounded Theorem 4 on each protocol with its invariants: global facts are in both sides' traces."""
    name, horizon, delay = case
    program, instance = loaded(name)
    runs = explored(program, instance, horizon, delay)
    assert runs
    for semantics in (Semantics.CAUSAL, Semantics.CAUSAL_FINITE):
        assert solved(program, instance, bounds(horizon, delay, semantics=semantics)) == runs
    if program.global_relations():  # some run reaches a pre or post fact
        assert any(x == GLOBAL_NODE for trace in runs for x, _, _, _ in trace)


@pytest.mark.parametrize("case", CASES, ids=map(case_id, CASES))
def test_paper_and_fast_encodings_agree(case):
    name, horizon, delay = case
    program, instance = loaded(name)
    for semantics in (Semantics.CHOICE, Semantics.CAUSAL_FINITE):
        fast, paper = (transform(program, instance, bounds(horizon, delay, e, semantics)) for e in (Encoding.FAST, Encoding.PAPER))
        counted = [solve.count(c, timeout=120, progress=False) for c in (fast, paper)]
        assert all(c["complete"] for c in counted)
        assert (counted[0]["models"], counted[0]["traces"]) == (counted[1]["models"], counted[1]["traces"])
    assert solved(program, instance, bounds(horizon, delay, Encoding.PAPER)) == solved(program, instance, bounds(horizon, delay))


def engine_transitions(result: engine.Run, network):
    """A computed run as operational transitions: in round t every node takes its step t, receiving what arrives at t."""
    parse = clingo.parse_term
    for t in range(result.steps):
        for x in network:
            yield parse(x), [
                (parse(sender), sent, (r, tuple(map(parse, args))))
                for r, args, sender, sent, to, arrives in result.messages
                if to == x and arrives == t
            ]


def symbolic(trace) -> frozenset:
    parse = clingo.parse_term
    return frozenset((parse(x), s, r, tuple(map(parse, args))) for x, s, r, args in trace)


SCHEDULES = [engine.Schedule(), engine.Schedule("random", 2, 5), engine.Schedule("random", 3, 8)]
RUNS = [(name, horizon) for name, horizon in {(n, max(h for m, h, _ in CASES if m == n)) for n, _, _ in CASES}]


@pytest.mark.parametrize("name, horizon", sorted(RUNS), ids=[f"{n}-T{h}" for n, h in sorted(RUNS)])
@pytest.mark.parametrize("schedule", SCHEDULES, ids=["sync", "random2", "random3"])
def test_a_local_engine_run_is_exactly_one_model(name, horizon, schedule):
    """Theorem 4 (i): the engine's run, its arrivals written as constraints, leaves one model: the run's trace."""
    program, instance = loaded(name)
    data = engine.from_instance(instance, program)
    result = engine.run(program, data, horizon + 1, schedule)
    transitions = list(engine_transitions(result, data.network))
    compiled = transform(program, instance, bounds(horizon, None))
    constraints = inspect.run_constraints(compiled, program, instance, transitions)
    models = inspect.enumerate_models(replace(compiled, text=compiled.text + constraints), 0, progress=False).models
    assert len(models) == 1
    assert models[0].trace == symbolic(result.trace)
    assert operational.replay(program, restrict(instance, program), transitions).trace == symbolic(result.trace)


# ---------------------------------------------------------------------------
# what each program shows


def test_the_countdown_rings_on_time_and_a_cancelled_timer_never_does():
    program, instance = loaded("countdown")
    (trace,) = solved(program, instance, bounds(4, None))
    held = {(str(x), s, r, tuple(map(str, a))) for x, s, r, a in trace}
    assert {(s, r) for x, s, r, a in held if x == "a" and r in ("timeout", "ring", "halfway")} == {
        (2, "timeout"), (2, "ring"), (2, "halfway")}  # 3 steps after step 0; T / 2 = 1
    assert ("a", 1, "elapsed", ("kettle", "1")) in held and ("a", 2, "elapsed", ("kettle", "2")) in held
    assert {s for x, s, r, a in held if r == "early"} == {1}  # 2 * 2 > 3 at step 1 only
    assert not [f for f in held if f[0] == "b" and f[2] in ("timeout", "ring", "rang")]  # cancelled at time 2
    assert {s for x, s, r, a in held if r == "from_the_start"} == {0, 1, 2, 3, 4}  # @1 read at every step


def test_the_vote_counter_aggregates_every_group_it_has_and_no_other():
    program, instance = loaded("vote_counter")
    traces = solved(program, instance, bounds(3, 1))
    for trace in traces:
        at_c = {(r, a) for x, r, a in last(trace, 3) if x == "c"}
        assert {(r, a) for r, a in at_c if r in ("tally", "weight", "first_voter", "last_voter", "first_option", "unvoted", "turnout")} == {
            ("tally", ('"tea"', "2")), ("tally", ('"coffee"', "1")),  # distinct voters; no tally of "water"
            ("weight", ('"tea"', "-1")), ("weight", ('"coffee"', "1")),  # a negative sum
            ("first_voter", ('"tea"', "a")), ("last_voter", ('"tea"', "b")),
            ("first_voter", ('"coffee"', "a")), ("last_voter", ('"coffee"', "a")),
            ("first_option", ('"coffee"',)),  # min over strings
            ("unvoted", ('"water"',)),  # '_' twice in one negated atom
            ("turnout", ("2",)),  # 3 ballots, 2 voters
        }
        announced = {(str(x), r, tuple(map(str, a))) for x, s, r, a in trace if r == "announced"}
        assert announced == {("a", "announced", ("2",)), ("b", "announced", ("2",))}  # one message per group


def test_the_vote_counter_has_no_tally_before_a_ballot_arrives():
    """An empty group yields no fact: in a run where every ballot reaches c at its step 1, c has no tally at step 0."""
    program, instance = loaded("vote_counter")
    traces = solved(program, instance, bounds(2, 1))
    late = [t for t in traces if not any(str(x) == "c" and s == 0 and r == "ballots" for x, s, r, _ in t)]
    assert late
    for trace in late:
        assert not [f for f in trace if str(f[0]) == "c" and f[1] == 0 and f[2] in ("tally", "weight", "first_option")]
        assert {tuple(map(str, a)) for x, s, r, a in trace if str(x) == "c" and s == 0 and r == "unvoted"} == {
            ('"tea"',), ('"coffee"',), ('"water"',)}


def test_two_phase_commit_decides_without_faults():
    for name in ("two_phase_commit", "two_phase_commit_timeout"):
        program, instance = loaded(name)
        horizon = 3
        for trace in solved(program, instance, bounds(horizon, 1)):
            decided = {(x, a) for x, r, a in last(trace, horizon) if r == "decision"}
            assert decided == {(n, ("t1", "commit")) for n in ("a", "b", "c")}
            held = last(trace, horizon)
            pre = {a for x, r, a in held if r == "pre"}
            assert pre and pre == {a for x, r, a in held if r == "post"}


def test_the_heartbeat_suspects_only_a_slow_pong():
    program, instance = loaded("heartbeat")
    bounded = solved(program, instance, bounds(3, 1))
    assert not [f for t in bounded for f in t if f[2] == "suspect"]
    unbounded = explored(program, instance, 3, None)
    suspecting = [t for t in unbounded if any(f[2] == "suspect" for f in t)]
    assert suspecting and len(suspecting) < len(unbounded)
    for trace in unbounded:  # at step 3 (Now = 3), a suspects b exactly when no pong after the first came back
        heard_late = any(r == "heard" and a[1].number >= 1 for x, s, r, a in trace if s == 3)
        assert {s for x, s, r, a in trace if r == "suspect"} == (set() if heard_late else {3})


# (protocol, faults, whether some run breaks its invariant at horizon 5): the textbook results under
# Molly's synchronous rounds (Alvaro, Rosen, Hellerstein, SIGMOD 2015, §5). The agreement invariant of
# broadcast_assert.ded holds vacuously when nobody but the sender logged the message.
FAULTS = {"none": {}, "omissions": dict(loss_until=2), "crash": dict(crashes=1), "both": dict(loss_until=1, crashes=1)}
BROKEN = {  # docs/molly.md's table: under which faults some run breaks the invariant
    "simple_broadcast": {"omissions", "both"},  # one lost copy is lost for good
    "retry_broadcast": {"both"},  # resending survives omissions, not a sender that crashes first
    "ack_broadcast": {"both"},
    "classic_broadcast": {"omissions", "both"},  # relays survive a crash, not lost relays
    "two_phase_commit": {"omissions", "crash", "both"},  # a lost vote or a crashed coordinator blocks it
    "two_phase_commit_timeout": {"crash", "both"},  # the timer aborts on a lost vote; a crash still blocks
}
TEXTBOOK = [(name, faults, faults in broken) for name, broken in BROKEN.items() for faults in FAULTS]


@pytest.mark.parametrize("name, faults, broken", TEXTBOOK, ids=[f"{n}-{f}" for n, f, _ in TEXTBOOK])
def test_the_textbook_results_under_faults(name, faults, broken):
    """Some model has a `pre` fact without its `post` at the last step exactly when the protocol is known to fail."""
    program, instance = loaded(name)
    horizon = 5
    b = Bounds(horizon, Semantics.CAUSAL_FINITE, Encoding.FAST, Network(delivery="sync", **FAULTS[faults]))
    found = inspect.traces(transform(program, instance, b), timeout=120)
    assert found.complete and found.models

    def violated(model) -> bool:
        held = last(model.trace, horizon)
        return not {a for x, r, a in held if r == "pre"} <= {a for x, r, a in held if r == "post"}

    assert any(map(violated, found.models)) is broken


FAULTY = [(name, 4, Network(delivery="sync", loss_until=1, crashes=1)) for name in BROKEN] + [
    (name, 3, Network(max_delay=1, loss_until=1, crashes=1)) for name in ("simple_broadcast", "classic_broadcast", "two_phase_commit")]


@pytest.mark.parametrize("name, horizon, network", FAULTY, ids=[f"{n}-T{h}-{w.delivery}" for n, h, w in FAULTY])
def test_explorer_and_solver_agree_under_faults(name, horizon, network):
    """Bounded Theorem 4 with omissions before step 1 and a crash, under sync and under async delivery."""
    program, instance = loaded(name)
    runs = set(operational.explore(program, restrict(instance, program), Bounds(horizon, network=network), mode="traces").traces)
    assert runs == solved(program, instance, Bounds(horizon, Semantics.CAUSAL_FINITE, Encoding.FAST, network))


OPTIONS = {"none": [], "omissions": ["--loss-until", "2"], "crash": ["--crashes", "1"],
           "both": ["--loss-until", "1", "--crashes", "1"]}


@pytest.mark.parametrize("name, faults, broken", TEXTBOOK, ids=[f"{n}-{f}" for n, f, _ in TEXTBOOK])
def test_verify_gives_the_textbook_answer(name, faults, broken):
    """`verify` asks the same question in one solver call: exit 1 with a counterexample exactly where a model breaks it."""
    args = ["verify", *map(str, files(name)), "--horizon", "5", "--delivery", "sync", *OPTIONS[faults], "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == (1 if broken else 0), result.output
    answer = json.loads(result.stdout)
    assert answer["holds"] is not broken and (answer["counterexample"] is None) is not broken


@pytest.mark.parametrize("name", [n for n, extra in LIBRARY.items() if extra])
def test_cron_answers_on_post_with_the_invariant_file(name):
    """Without faults, within a delay bound, each protocol meets its invariant: every pre has its post, in every model."""
    horizon = 4 if name == "two_phase_commit_timeout" else 3
    program, instance = loaded(name)
    verdict = cron.analyse(program, instance, bounds(horizon, 1), outputs=("post",), timeout=120)
    assert verdict.satisfiable and verdict.consistent
    pre = {a for t in solved(program, instance, bounds(horizon, 1)) for x, r, a in last(t, horizon) if r == "pre"}
    assert {str(f) for f in verdict.certain} == {f"post({', '.join(a)})" for a in pre} != set()
    args = ["cron", *map(str, files(name)), "--output-relations", "post", "--horizon", str(horizon), "--max-delay", "1", "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["consistent"] is True
