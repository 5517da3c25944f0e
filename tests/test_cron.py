"""Consistency and tolerance of non-causality (jcss2014; docs/cron.md): the papers' verdicts, bounded.

The expected verdicts of the papers' examples (docs/cron.md) with the bounds that show each claim (horizon T, delay bound D):

* jcss2014 Alg. 1: positive, consistent, tolerant; the output is the transitive closure.
* jcss2014 Alg. 2: consistent and tolerant, T() on the empty input, nothing on the non-empty one.
* jcss2014 Alg. 3: consistent, not tolerant: a B() into the past loses T().
* jcss2014 Alg. 4: positive and not consistent (D = 2: with D = 1 the bound itself forces A() and B()
  sent at step 0 to meet at step 1).
* tplp2016 Fig. 4: T() certain under causality; a choice model loses it.
* tplp2016 Ex. 1 and Ex. 3 (2PC): the outputs the paper describes, consistently.

Counterexamples and witnesses are checked independently of `inspect`: happens-before is recomputed
here from the model's messages, outputs from its trace.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dedalus2asp import inspect
from dedalus2asp.questions import cron
from dedalus2asp.asp import solve
from dedalus2asp.cli import app
from dedalus2asp.asp.incremental import Unrolling, incremental
from dedalus2asp.lang.facts import load_instance
from dedalus2asp.lang.parser import load_program
from dedalus2asp.asp.transform import transform
from dedalus2asp.bounds import Bounds, Network, Semantics

from conftest import EXAMPLES


def load(program: str, facts: str):
    return load_program(EXAMPLES / program), load_instance(EXAMPLES / facts)


def bounded(horizon: int, delay: int | None) -> Bounds:
    return Bounds(horizon, network=Network(max_delay=delay))


def analyse(program: str, facts: str, horizon: int, delay: int | None) -> cron.Verdict:
    return cron.analyse(*load(program, facts), bounded(horizon, delay), timeout=120)


def output(model, relations) -> set[str]:
    """output(M), from the trace: facts of the output relations at the last step, any node."""
    return {
        f"{r}({', '.join(map(str, a))})" for (x, s, r, a) in model.trace if s == model.horizon and r in relations
    }


def happens_before(model) -> set:
    """The transitive closure of the local edges and of every message edge (tplp2016 §5.2.1)."""
    edges = {((x, s), (x, s + 1)) for x in model.network for s in range(model.horizon)}
    edges |= {((m.sender, m.sent), (m.addressee, m.arrives)) for m in model.messages if m.arrives is not None}
    closure = set(edges)
    while True:
        more = {(a, d) for (a, b) in closure for (c, d) in closure if b == c} - closure
        if not more:
            return closure
        closure |= more


# --- the papers' table ------------------------------------------------------------------------


def test_alg1_positive_consistent_tolerant():
    v = analyse("jcss2014/alg1.ded", "jcss2014/alg1.facts", 3, 1)
    assert (v.positive, v.consistent, v.tolerant) == (True, True, True)
    assert v.certain == {"T(v1, v2)", "T(v2, v3)", "T(v1, v3)"} == v.choice_certain == v.choice_possible
    assert "as the theorem predicts" in v.theorem and v.counterexample is None
    assert v.sentence() == "consistent and tolerant: no counterexample up to horizon 3 with delay ≤ 1"


@pytest.mark.parametrize("facts, expected", [("alg2_empty.facts", {"T()"}), ("alg2_nonempty.facts", set())])
def test_alg2_consistent_and_tolerant_on_empty_and_nonempty_inputs(facts, expected):
    v = analyse("jcss2014/alg2.ded", f"jcss2014/{facts}", 2, 1)
    assert (v.positive, v.consistent, v.tolerant) == (False, True, True)
    assert v.certain == v.possible == v.choice_certain == v.choice_possible == expected
    assert v.theorem is None


def test_alg3_consistent_not_tolerant_b_into_the_past_loses_t():
    v = analyse("jcss2014/alg3.ded", "jcss2014/alg3.facts", 2, 1)
    assert (v.consistent, v.tolerant) == (True, False)
    assert v.certain == {"T()"} and v.choice_certain == set()
    assert v.lost == {"T()"} and v.gained == set()
    assert "T()" not in output(v.counterexample, ("T",))
    into_past = v.counterexample.noncausal()
    assert any(m.relation == "B" and m.arrives < m.sent for m in into_past)


def test_alg4_positive_not_consistent():
    v = analyse("jcss2014/alg4.ded", "jcss2014/alg4.facts", 3, 2)
    assert (v.positive, v.consistent, v.tolerant) == (True, False, False)
    assert v.possible == {"T()"} and v.certain == set()
    assert "does not apply" in v.theorem


def test_fig4_causal_certain_choice_loses_t():
    v = analyse("tplp2016/fig4_noncausal.ded", "tplp2016/fig4.facts", 2, 1)
    assert v.certain == v.possible == {"T()"}
    assert "T()" in v.choice_possible and "T()" not in v.choice_certain
    assert (v.consistent, v.tolerant, v.lost) == (True, False, {"T()"})
    assert any(m.relation == "B" for m in v.counterexample.noncausal())


@pytest.mark.parametrize(
    "facts, expected",
    [("tplp2016/ex1_reachability.facts", {"covered()"}), ("tplp2016/ex1_unreachable.facts", {"covered()"})],
)
def test_ex1_covered_consistently(facts, expected):
    # united over nodes: on the unreachable input only a holds covered() (b misses v4)
    v = analyse("tplp2016/ex1_reachability.ded", facts, 2, 1)
    assert v.consistent and v.certain == expected


@pytest.mark.parametrize("facts, decision", [("ex3_2pc_yes.facts", "yes"), ("ex3_2pc_no.facts", "no")])
def test_ex3_agents_decide_yes_iff_all_voted_yes(facts, decision):
    v = analyse("tplp2016/ex3_2pc.ded", f"tplp2016/{facts}", 3, 1)
    assert v.consistent and v.certain == v.possible == {f"outcome(t1, {decision})"}


def test_counterexample_messages_really_arrive_before_their_send():
    for program, facts in [("jcss2014/alg3.ded", "jcss2014/alg3.facts"), ("tplp2016/fig4_noncausal.ded", "tplp2016/fig4.facts")]:
        model = analyse(program, facts, 2, 1).counterexample
        hb = happens_before(model)
        flagged = model.noncausal()
        assert flagged
        for m in flagged:
            assert ((m.addressee, m.arrives), (m.sender, m.sent)) in hb


def test_witnesses_really_differ():
    v = analyse("jcss2014/alg4.ded", "jcss2014/alg4.facts", 3, 2)
    (a, out_a), (b, out_b) = v.witnesses
    assert out_a == output(a, ("T",)) and out_b == output(b, ("T",))
    assert out_a != out_b
    assert a.bounds.semantics == b.bounds.semantics == "causal-finite" and not a.noncausal() and not b.noncausal()


def test_no_causal_model_is_said():
    # delay bound 0: z's A() to itself must arrive at a step > 0 and by step 0: impossible
    v = analyse("tplp2016/fig4_noncausal.ded", "tplp2016/fig4.facts", 1, 0)
    assert not v.satisfiable and v.consistent is None and not v.answer
    assert v.sentence().startswith("no causal model")


def test_theorem_4_1_bounded_artifact_is_labelled():
    # Alg. 4 with D = 1 and T = 2: the bound forces A() and B() to meet at step 1 under causality
    v = analyse("jcss2014/alg4.ded", "jcss2014/alg4.facts", 2, 1)
    assert v.consistent and not v.tolerant
    # consistency within the bounds is not the theorem's hypothesis: Alg. 4 is not consistent (below)
    assert "consistent within these bounds" in v.theorem
    assert "not consistent beyond these bounds or this counterexample comes from the bounds" in v.theorem
    assert not analyse("jcss2014/alg4.ded", "jcss2014/alg4.facts", 3, 2).consistent


# --- the incremental program ----------------------------------------------------------------

INCREMENTAL = [
    ("tplp2016/fig4_noncausal.ded", "tplp2016/fig4.facts"),
    ("jcss2014/alg3.ded", "jcss2014/alg3.facts"),
    ("tplp2016/ex1_reachability.ded", "tplp2016/ex1_reachability.facts"),
    ("tplp2016/ex3_2pc.ded", "tplp2016/ex3_2pc_small.facts"),
    ("tplp2016/fig5_grouping.ded", "tplp2016/fig5.facts"),
    ("jcss2014/alg2.ded", "jcss2014/alg2_nonempty.facts"),  # the empty input has 10^5 models at T = 3
    ("tplp2016/ex2_ordering.ded", "tplp2016/ex2_ordering.facts"),
]


def _count(unrolling: Unrolling) -> int:
    n = [0]
    unrolling.control.solve(on_model=lambda m: n.__setitem__(0, n[0] + 1))
    return n[0]


@pytest.mark.parametrize("pair", INCREMENTAL, ids=[Path(p).stem for p, _ in INCREMENTAL])
@pytest.mark.parametrize("delay", [None, 1])
def test_incremental_has_the_one_shot_models_and_traces_at_every_horizon(pair, delay):
    program, instance = load(*pair)
    inc = incremental(program, instance, Semantics.CAUSAL_FINITE, Network(max_delay=delay))
    models, traces = Unrolling(inc, ["0"]), Unrolling(inc, ["0"], project=True)
    for horizon in range(4):
        models.extend(horizon)
        traces.extend(horizon)
        compiled = transform(program, instance, bounded(horizon, delay))
        one_shot = solve.count(compiled, progress=False)
        assert (_count(models), _count(traces)) == (one_shot["models"], one_shot["traces"]), horizon
        found = []
        traces.control.solve(on_model=lambda m: found.append(inspect.decode(m.symbols(atoms=True), compiled).trace))
        assert set(found) == {m.trace for m in inspect.traces(compiled).models}


def test_incremental_is_for_causal_semantics_only():
    with pytest.raises(ValueError):
        incremental(*load("tplp2016/fig4_noncausal.ded", "tplp2016/fig4.facts"), Semantics.CHOICE)


# --- the smallest horizon -------------------------------------------------------------------


@pytest.mark.parametrize(
    "program, facts, horizon, delay, smallest",
    [
        # Fig. 4, D = 1: at T = 1 causality delivers A() at 1 (T()), a choice B() at 0 loses it
        ("tplp2016/fig4_noncausal.ded", "tplp2016/fig4.facts", 4, 1, 1),
        # Alg. 4, D = 2: at T = 1 A() and B() (sent at 0) may both arrive at 1, or stay pending
        ("jcss2014/alg4.ded", "jcss2014/alg4.facts", 4, 2, 1),
        ("jcss2014/alg2.ded", "jcss2014/alg2_empty.facts", 4, 1, None),
        # Alg. 2, D = 2: at T = 1 empty(b), sent at 0, may still be in flight to a
        ("jcss2014/alg2.ded", "jcss2014/alg2_empty.facts", 4, 2, 1),
        ("jcss2014/alg1.ded", "jcss2014/alg1.facts", 4, 1, None),
    ],
)
def test_search_finds_the_known_smallest_horizon(program, facts, horizon, delay, smallest):
    v = cron.search(*load(program, facts), bounded(horizon, delay))
    assert v.search["smallest_horizon"] == smallest
    assert v.bounds.horizon == (horizon if smallest is None else smallest)


@pytest.mark.parametrize(
    "program, facts, delay",
    [
        ("jcss2014/alg3.ded", "jcss2014/alg3.facts", 1),
        ("jcss2014/alg3.ded", "jcss2014/alg3.facts", None),
        ("tplp2016/ex1_reachability.ded", "tplp2016/ex1_unreachable.facts", 1),
        ("tplp2016/fig5_grouping.ded", "tplp2016/fig5.facts", 2),
        ("jcss2014/alg2.ded", "jcss2014/alg2_empty.facts", 1),
        ("tplp2016/ex3_2pc.ded", "tplp2016/ex3_2pc_yes.facts", 1),
    ],
)
def test_search_agrees_with_analysing_each_horizon_from_scratch(program, facts, delay):
    pair = load(program, facts)
    first = next(
        (h for h in range(1, 5) if not cron.analyse(*pair, bounded(h, delay)).answer),
        None,
    )
    rows = []
    for incremental_ in (True, False):
        v = cron.search(*pair, bounded(4, delay), incremental_=incremental_)
        assert v.search["smallest_horizon"] == first
        rows.append([{k: r[k] for k in ("horizon", "satisfiable", "consistent", "tolerant")} for r in v.search["horizons"]])
    assert rows[0] == rows[1]


# --- the syntactic report -------------------------------------------------------------------


def test_check_names_the_locus_of_alg3_and_the_async_relations_a_rewrite_needs():
    # the syntactic side of CRON: the negation of sent_B() in rule 3 is reached by A and decides what is sent
    result = RUNNER.invoke(app, ["check", "--json", str(EXAMPLES / "jcss2014/alg3.ded")])
    data = json.loads(result.stdout)["coordination"]
    assert [(x["rule"], x["relation"], x["reached_by"]) for x in data["loci"]] == [(3, "sent_B", ["A"])]
    assert data["lamport_relations"] == ["A", "B"] and not data["confluent"]


# --- the command line -----------------------------------------------------------------------

RUNNER = CliRunner()
ALG3 = [str(EXAMPLES / "jcss2014/alg3.ded"), "--input", str(EXAMPLES / "jcss2014/alg3.facts")]
ALG1 = [str(EXAMPLES / "jcss2014/alg1.ded"), "--input", str(EXAMPLES / "jcss2014/alg1.facts")]


def run(*args):
    result = RUNNER.invoke(app, ["cron", *map(str, args)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def test_cli_text_and_exit_codes():
    yes = run(*ALG1, "--horizon", 3, "--max-delay", 1)
    assert yes.exit_code == 0
    assert yes.stdout.splitlines()[0] == "consistent and tolerant: no counterexample up to horizon 3 with delay ≤ 1"
    no = run(*ALG3, "--horizon", 2, "--max-delay", 1)
    assert no.exit_code == 1
    assert no.stdout.startswith("consistent but not tolerant")
    assert "B(): sent by z at step 1, arrives at z at step 0" in no.stdout


def test_cli_json():
    result = run(*ALG3, "--horizon", 2, "--max-delay", 1, "--json")
    data = json.loads(result.stdout)
    assert result.exit_code == 1
    assert {"consistent", "tolerant", "certain", "possible", "choice_certain", "choice_possible", "counterexample",
            "witnesses", "positive", "theorem", "bound", "seconds"} <= set(data)
    assert data["bound"] == {"horizon": 2, "max_delay": 1}
    assert data["counterexample"]["lost"] == ["T()"]
    assert any(m["relation"] == "B" for m in data["counterexample"]["noncausal_messages"])


def test_cli_json_inconsistent_is_not_tolerant():
    """The JSON contract: consistent and tolerant are booleans; tolerance asks for consistency first (§3)."""
    alg4 = [EXAMPLES / "jcss2014/alg4.ded", "--input", EXAMPLES / "jcss2014/alg4.facts"]
    data = json.loads(run(*alg4, "--horizon", 3, "--max-delay", 2, "--json").stdout)
    assert data["consistent"] is False and data["tolerant"] is False and len(data["witnesses"]) == 2
    searched = json.loads(run(*alg4, "--horizon", 3, "--max-delay", 2, "--search-horizon", "--json").stdout)
    rows = searched["search"]["horizons"]
    assert all(isinstance(r["tolerant"], bool) for r in rows) and rows[-1] == {**rows[-1], "consistent": False, "tolerant": False}


def test_cli_search_horizon():
    result = run(*ALG3, "--horizon", 3, "--max-delay", 1, "--search-horizon", "--json")
    assert result.exit_code == 1 and json.loads(result.stdout)["search"]["smallest_horizon"] == 1


def test_cli_no_causal_model_exits_1_and_says_so():
    fig4 = [EXAMPLES / "tplp2016/fig4_noncausal.ded", "--input", EXAMPLES / "tplp2016/fig4.facts"]
    result = run(*fig4, "--horizon", 1, "--max-delay", 0)
    assert result.exit_code == 1 and "no causal model" in result.stdout


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--output-relations", "nosuch"], "output relation 'nosuch' does not occur"),
        (["--max-delay", "-1"], ""),
    ],
)
def test_cli_bad_input_exits_2(extra, message):
    result = run(*ALG3, "--horizon", 2, *extra)
    assert result.exit_code == 2
    assert message in result.output


def test_cli_check_reports_the_locus_in_text():
    result = RUNNER.invoke(app, ["check", str(EXAMPLES / "jcss2014/alg3.ded")])
    assert result.exit_code == 0
    assert "alg3.ded:29:26: note: the negation of 'sent_B' in rule 3 closes over messages that may still arrive" \
        in result.stdout


def test_cli_names_an_output_relation_once_and_numbers_the_witnesses():
    result = run(*ALG1, "--horizon", 1, "--max-delay", 1, "--output-relations", "T,T", "--json")
    assert json.loads(result.stdout)["outputs"] == ["T"]
    fig5 = [EXAMPLES / "tplp2016/fig5_grouping.ded", "--input", EXAMPLES / "tplp2016/fig5.facts"]
    data = json.loads(run(*fig5, "--horizon", 3, "--max-delay", 2, "--json").stdout)
    assert data["outputs"] == ["T"] and [w["number"] for w in data["witnesses"]] == [1, 2]


MOLLY_PROTOCOL = """
member(a, b)@1;
member(b, a)@1;
broadcast(a, "hello")@1;
member(N, M)@next :- member(N, M);
deliver(M, P)@async :- broadcast(N, P), member(N, M);
log(N, P) :- broadcast(N, P);
log(N, P) :- deliver(N, P);
log(N, P)@next :- log(N, P);
"""
MOLLY_INVARIANT = """
pre(M, P) :- broadcast(N, P)@1, member(N, M);
post(M, P) :- broadcast(N, P)@1, member(N, M), log(M, P);
"""


def test_cron_output_post_on_a_molly_program_and_its_invariant_file(tmp_path):
    """Issue #18: `post`, a global relation (its rule reads two nodes), is the output; `log` keeps its node."""
    protocol, invariant = tmp_path / "protocol.ded", tmp_path / "invariant.ded"
    protocol.write_text(MOLLY_PROTOCOL)
    invariant.write_text(MOLLY_INVARIANT)
    run = lambda *args: CliRunner().invoke(app, ["cron", str(protocol), *args])
    result = run(str(invariant), "--output-relations", "post", "--eot", "3", "--max-delay", "1", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["consistent"] and data["tolerant"] and data["certain"] == ['post(b, "hello")']
    result = run("--output-relations", "log", "--horizon", "2", "--max-delay", "1", "--search-horizon", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["certain"] == ['log(a, "hello")', 'log(b, "hello")']
    result = run("--horizon", "2")
    assert result.exit_code == 2
    assert "no output relation" in result.output and "log/2" in result.output and "deliver/2" in result.output
    result = run(str(invariant), "--horizon", "2")
    assert "post/2 (global)" in result.output
