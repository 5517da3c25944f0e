"""The Lamport-clock rewrite of tr2009 §6.6 (`convert --to lamport`, `lang/lamport.py`): what it writes, and the
proof that it works — `cron` finds tplp2016 Fig. 4 and jcss2014 Alg. 3 intolerant of non-causality and their
rewrites tolerant, with the same causal outputs; the rewrites compile and solve under every semantics and both
encodings, and the explorer agrees with the solver on them (bounded Theorem 4)."""

from __future__ import annotations

import json

import clingo
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from dedalus2asp import inspect
from dedalus2asp.asp.transform import transform
from dedalus2asp.bounds import Bounds, Encoding, Network, Semantics
from dedalus2asp.cli import app
from dedalus2asp.lang import coordination, lamport, parser
from dedalus2asp.lang.analysis import check
from dedalus2asp.lang.facts import load_instance
from dedalus2asp.lang.ast import RuleKind
from dedalus2asp.lang.parser import parse_program

from conftest import EXAMPLES
from test_theorem4 import asp_traces, inputs, operational_traces, rules

RUNNER = CliRunner()
FIG4 = ("tplp2016/fig4_noncausal.ded", "tplp2016/fig4.facts")
ALG3 = ("jcss2014/alg3.ded", "jcss2014/alg3.facts")


def rewritten(path: str, *options: str) -> str:
    result = RUNNER.invoke(app, ["convert", "--to", "lamport", str(EXAMPLES / path), *options])
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture(scope="module")
def rewrites(tmp_path_factory):
    """The rewritten Fig. 4 and Alg. 3, written next to copies of their inputs."""
    folder = tmp_path_factory.mktemp("lamport")
    out = {}
    for program, facts in (FIG4, ALG3):
        path = folder / program.split("/")[1]
        path.write_text(rewritten(program), encoding="utf-8")
        out[program] = (path, EXAMPLES / facts)
    return out


def cron(program, facts, *options) -> dict:
    result = RUNNER.invoke(app, ["cron", str(program), "--input", str(facts), "--json", *map(str, options)])
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


# --- what the rewrite writes ------------------------------------------------------------------


def test_the_send_step_travels_with_the_message_and_waits_for_the_clock():
    text = rewritten(FIG4[0])
    assert "B_wait(S)@async(X) :- A(), Id(X), lamport_clock(S)." in text
    assert "B_wait(S)@next :- B_wait(S), lamport_clock(C), S >= C." in text
    assert "B() :- B_wait(S), lamport_clock(C), S < C." in text
    assert "lamport_clock(N + 1)@next :- lamport_clock(N)." in text
    # every rewritten rule says what it does and cites the section; the rules not rewritten stay as written
    assert text.count("% Lamport clocks (tr2009 §6.6): this rule sent") == 2
    assert "T() :- A(), not B().\nT()@next :- T().\nB()@next :- B()." in text
    assert "% Source: tplp2016" in text  # the file's own header is kept
    assert "% No ties to break" in text


def test_by_default_it_rewrites_the_asynchronous_relations_a_locus_involves():
    # Alg. 3: A reaches the locus (not sent_B() in rule 3), and B is sent by the locus's rule
    assert coordination.analyse(parser.load_program(EXAMPLES / ALG3[0])).lamport_relations() == ("A", "B")
    assert "A_wait" in rewritten(ALG3[0]) and "B_wait" in rewritten(ALG3[0])
    only_b = rewritten(ALG3[0], "--relations", "B")
    assert "B_wait" in only_b and "A_wait" not in only_b


@pytest.mark.parametrize("program", ["jcss2014/alg1.ded", "jcss2014/alg2.ded"])
def test_programs_without_a_locus_are_not_rewritten(program):
    text = rewritten(program)
    original = (EXAMPLES / program).read_text(encoding="utf-8")
    first, rest = text.split("\n", 1)
    assert rest == original and "nothing rewritten" in first


def test_a_rewritten_program_is_not_rewritten_again(rewrites):
    path, _ = rewrites[FIG4[0]]
    c = coordination.analyse(parser.load_program(path))
    assert c.loci and c.clocked == ("A_wait", "B_wait") and c.lamport_relations() == ()
    result = RUNNER.invoke(app, ["check", str(path)])
    assert "already waiting for a Lamport clock (tr2009 §6.6): A_wait, B_wait" in result.stdout
    assert "would rewrite" not in result.stdout


def test_names_the_program_uses_are_not_taken():
    source = parse_program("lamport_clock(X)@async(X) :- id(X).\nB_wait() :- id(_X).\nB()@async(X) :- id(X), lamport_clock(X).\n"
                           "T() :- id(_X), not B().\nT()@next :- T().\n", "taken.ded")
    text = lamport.rewrite(source, ("B",)).text
    assert "B_wait_1(S)@async(X)" in text and "lamport_clock_1(S)" in text
    reread = parse_program(text, "rewritten.ded")
    assert {"B_wait", "B_wait_1", "lamport_clock", "lamport_clock_1"} <= set(reread.schema())


def test_paper_notation_and_a_rule_over_two_lines_are_kept():
    source = parse_program(".output T.\nA() | X <- Id(X).\nB() | X ←\n   A(), Id(X).   % sent once A arrived\n"
                           "T() <- A(), ¬B().\nT()• <- T().\nB()• <- B().\n", "paper.ded")
    text = lamport.rewrite(source, ("A", "B")).text
    assert "A_wait(S) | X <- Id(X), lamport_clock(S).\n" in text
    assert "B_wait(S) | X ←\n   A(), Id(X), lamport_clock(S).   % sent once A arrived\n" in text
    assert parse_program(text, "rewritten.ded").async_relations() == {"A_wait": 1, "B_wait": 1}


def test_a_variable_called_S_is_not_captured():
    source = parse_program("m(S)@async(Y) :- v(S), peer(Y).\nout(S) :- m(S), not v(S).\nout(S)@next :- out(S).\n", "s.ded")
    text = lamport.rewrite(source, ("m",)).text
    assert "m_wait(S, S1)@async(Y) :- v(S), peer(Y), lamport_clock(S1)." in text


def test_the_located_and_molly_notations_are_kept(tmp_path):
    located = rewritten("tr2009/broadcast_located.ded", "--relations", "sbcast")
    assert ("sbcast_wait(#Member, Sender, Message, S)@async :- smessage(#Agent, Sender, Message), members(#Agent, Member), "
            "lamport_clock(#Agent, S);") in located
    assert "sbcast(#L, X1, X2) :- sbcast_wait(#L, X1, X2, S), lamport_clock(#L, C), S < C;" in located
    molly = rewritten("molly/two_phase_commit.ded")
    assert "vote_wait(C, A, X, yes, S)@async :- prepare(A, C, X), can(A, X), lamport_clock(A, S);" in molly
    assert "// Lamport clocks (tr2009 §6.6)" in molly and "begin(c, t1)@1;" in molly
    for name, text in (("located.ded", located), ("molly.ded", molly)):
        (tmp_path / name).write_text(text, encoding="utf-8")
        assert RUNNER.invoke(app, ["check", str(tmp_path / name)]).exit_code == 0


def test_a_location_column_that_is_not_the_first_stays_where_it_is(tmp_path):
    path = tmp_path / "loc.ded"
    path.write_text("msg(X, #M)@async :- src(#L, X), peer(#L, M);\ngot(#L, X) :- msg(X, #L), notin old(#L, X);\n"
                    "got(#L, X)@next :- got(#L, X);\nold(#L, X)@next :- msg(X, #L);\nsrc(#a, 1);\npeer(#a, b);\n",
                    encoding="utf-8")
    text = lamport.rewrite(parser.load_source(path), ("msg",)).text
    assert "msg_wait(X, #M, S)@async :- src(#L, X), peer(#L, M), lamport_clock(#L, S);" in text
    assert "msg(X1, #L) :- msg_wait(X1, #L, S), lamport_clock(#L, C), S < C;" in text
    rewritten = parser.parse_source(text, "loc_lamport.ded")
    assert rewritten.columns["msg_wait"] == 1 and rewritten.program.async_relations() == {"msg_wait": 2}


def test_the_rewritten_molly_2pc_still_commits(tmp_path):
    path = tmp_path / "2pc.ded"
    path.write_text(rewritten("molly/two_phase_commit.ded"), encoding="utf-8")
    result = RUNNER.invoke(app, ["models", str(path), "--horizon", "4", "--delivery", "sync", "--json"])
    assert result.exit_code == 0, result.output
    assert '"decision"' in result.stdout and "commit" in result.stdout


def test_a_rule_of_an_included_file_is_not_rewritten_in_place():
    result = RUNNER.invoke(app, ["convert", "--to", "lamport", str(EXAMPLES / "molly/two_phase_commit_timeout.ded")])
    assert result.exit_code == 2
    assert "the asynchronous rule that sends 'prepare' is in the included file" in result.output
    assert "two_phase_commit.ded:30: rewrite that file itself" in result.output


@pytest.mark.parametrize("options, message", [
    (["--to", "lamport", "--relations", "T"], "'T' is not sent by an asynchronous rule"),
    (["--to", "located", "--relations", "A"], "--relations goes with --to lamport"),
])
def test_bad_relations_exit_2(options, message):
    result = RUNNER.invoke(app, ["convert", str(EXAMPLES / FIG4[0]), *options])
    assert result.exit_code == 2 and message in result.output


# --- the proof: cron ---------------------------------------------------------------------------


@pytest.mark.parametrize("pair", [FIG4, ALG3], ids=["fig4", "alg3"])
@pytest.mark.parametrize("horizon, encoding", [(2, "fast"), (3, "fast"), (2, "paper")])
def test_the_rewrite_tolerates_non_causality_with_the_same_causal_outputs(rewrites, pair, horizon, encoding):
    original = cron(EXAMPLES / pair[0], EXAMPLES / pair[1], "--horizon", horizon, "--max-delay", 1, "--encoding", encoding)
    assert original["consistent"] and not original["tolerant"]
    assert original["counterexample"] is not None
    fixed = cron(*rewrites[pair[0]], "--horizon", horizon, "--max-delay", 1, "--encoding", encoding)
    assert fixed["consistent"] and fixed["tolerant"] and fixed["counterexample"] is None
    assert fixed["certain"] == original["certain"] == ["T()"]
    assert fixed["choice_certain"] == fixed["certain"]


RACE = """.output fresh.
msg(X)@async(Y) :- src(X), peer(Y).
msg(X)@next :- msg(X).
fresh(X)@next :- want(X), not msg(X).
fresh(X)@next :- fresh(X).
"""


def test_a_race_the_rewrite_removes_is_shown_beside_its_verdict(tmp_path):
    """Issue 38, item 1: `msg` sent at a@0 may arrive causally at b@0 (the nodes' steps are independent), where it
    keeps `fresh(1)` from holding; the rewrite delivers it at b@1 at the earliest, so the rewrite alone is consistent.
    cron on the rewrite shows the original's race beside it, and does not answer yes."""
    (tmp_path / "race.ded").write_text(RACE, encoding="utf-8")
    (tmp_path / "race.facts").write_text("a { src(1). peer(b). }  b { want(1). want(2). }\n", encoding="utf-8")
    original = cron(tmp_path / "race.ded", tmp_path / "race.facts", "-T", 5, "-D", 1)
    assert original["consistent"] is False and original["possible"] == ["fresh(1)", "fresh(2)"]
    (tmp_path / "lamport.ded").write_text(rewritten(str(tmp_path / "race.ded")), encoding="utf-8")
    result = RUNNER.invoke(app, ["cron", str(tmp_path / "lamport.ded"), "--input", str(tmp_path / "race.facts"),
                                 "-T", "5", "-D", "1"])
    assert result.exit_code == 1, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "consistent and tolerant: no counterexample up to horizon 5 with delay ≤ 1"
    assert lines[1].startswith("the original program (the Lamport rewrite undone): not consistent: two causal models "
                               "up to horizon 5 with delay ≤ 1 differ on fresh(1). That is a race, not non-causality")
    fixed = cron(tmp_path / "lamport.ded", tmp_path / "race.facts", "-T", 5, "-D", 1)
    assert fixed["original"]["consistent"] is False and fixed["original"]["witnesses"]


def test_undo_gives_back_every_example_rewritten_whole():
    """`lamport.undo` (what cron answers the original's question with) inverts the rewrite of every asynchronous
    relation, in every notation."""
    done = 0
    for path in sorted(EXAMPLES.rglob("*.ded")):
        source = parser.load_source(path)
        program = source.program if hasattr(source, "program") else source
        relations = tuple(program.async_relations())
        if not relations or any(r.span.source for r in program.rules if r.kind is RuleKind.ASYNC):
            continue  # a rule of an included file is not rewritten in place
        text = lamport.rewrite(source, relations).text
        again = parser.parse_source(text, str(path), getattr(source, "dialect", "transparent"))
        back = lamport.undo(again.program if hasattr(again, "program") else again)
        assert sorted(map(str, back.rules)) == sorted(map(str, program.rules)), path
        done += 1
    assert lamport.undo(program) is None  # not a rewrite
    assert done >= 20


def traces(path, facts, horizon, semantics, encoding=Encoding.FAST, max_delay=1):
    program, instance = parser.load_program(path), load_instance(facts)
    compiled = transform(program, instance, Bounds(horizon, semantics, encoding, Network(max_delay=max_delay)))
    found = inspect.traces(compiled, timeout=120)
    assert found.complete
    return {m.trace for m in found.models}


def facts_of(trace, relation):
    return {(step, args) for (_, step, r, args) in trace if r == relation}


def test_under_choice_a_b_from_the_future_waits_and_b_never_precedes_a(rewrites):
    path, facts = rewrites[FIG4[0]]
    choice = traces(path, facts, 3, Semantics.CHOICE)
    # some B_wait arrives at a step not after its send step S: it came from the future, and waited
    assert any(step <= args[0].number for t in choice for step, args in facts_of(t, "B_wait"))
    for t in choice:
        first_a = min((s for s, _ in facts_of(t, "A")), default=None)
        first_b = min((s for s, _ in facts_of(t, "B")), default=None)
        assert first_b is None or (first_a is not None and first_b > first_a)
    # the original has a choice model where B holds before any A (tplp2016 §4.3.3)
    original = traces(EXAMPLES / FIG4[0], EXAMPLES / FIG4[1], 3, Semantics.CHOICE)
    assert any(facts_of(t, "B") and min(s for s, _ in facts_of(t, "B")) < min((s for s, _ in facts_of(t, "A")), default=9)
               for t in original)


def test_the_clock_is_the_step():
    path, facts = EXAMPLES / ALG3[0], EXAMPLES / ALG3[1]
    program = parse_program(rewritten(ALG3[0]), "alg3_lamport.ded")
    for t in asp_traces(program, load_instance(facts), 3, Semantics.CAUSAL_FINITE, 1):
        assert facts_of(t, "lamport_clock") == {(s, (clingo.Number(s),)) for s in range(4)}
    assert path.exists()


# --- the rewritten programs are ordinary programs ---------------------------------------------


@pytest.mark.parametrize("pair", [FIG4, ALG3], ids=["fig4", "alg3"])
@pytest.mark.parametrize("semantics", list(Semantics), ids=lambda s: s.value)
def test_paper_and_fast_have_the_same_traces(rewrites, pair, semantics):
    path, facts = rewrites[pair[0]]
    paper = traces(path, facts, 2, semantics, Encoding.PAPER)
    assert paper and paper == traces(path, facts, 2, semantics, Encoding.FAST)


@pytest.mark.parametrize("pair", [FIG4, ALG3], ids=["fig4", "alg3"])
@pytest.mark.parametrize("horizon, max_delay", [(1, None), (2, None), (2, 1), (3, 1)])
def test_bounded_theorem_4_on_the_rewrites(rewrites, pair, horizon, max_delay):
    path, facts = rewrites[pair[0]]
    program, instance = parser.load_program(path), load_instance(facts)
    expected = operational_traces(program, instance, horizon, max_delay)
    assert expected
    assert asp_traces(program, instance, horizon, Semantics.CAUSAL_FINITE, max_delay) == expected
    assert asp_traces(program, instance, horizon, Semantics.CAUSAL, max_delay) == expected


# --- the guarantee on random programs ----------------------------------------------------------


# the race of issue 38 in the generator's vocabulary: random programs of three rules seldom race in a way the rewrite
# hides (none of 200 at horizon 2, delay 1; none of 120 at horizon 3, delay 2), so it is given as an example
RACE_RULES = ["q(X)@async(Y) :- p(X), nd(Y).", "q(X)@next :- q(X).", "r(X)@next :- e(X, X), not q(X).", "r(X)@next :- r(X)."]
RACE_FACTS = "nd(n1). nd(n2).\nn1 { p(a). }\nn2 { e(a, a). e(b, b). }\n"


@settings(max_examples=80, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.lists(rules(), min_size=1, max_size=3), inputs())
@example(RACE_RULES, RACE_FACTS)
def test_with_every_message_rewritten_every_model_has_an_output_of_a_causal_run(tmp_path_factory, rule_texts, facts):
    """The rewrite's guarantee (lang/lamport.py): with every asynchronous relation rewritten, each model of the
    rewrite, choice or causal, has the output of a causal run of the original (its messages arriving at
    max(arrival, send step + 1)). So the choice-possible outputs of the rewrite are causally possible in the
    original, and what the original certainly outputs, every choice model of the rewrite outputs."""
    text = "\n".join(rule_texts) + "\n"
    try:
        program = parse_program(text, "random.ded")
        check(program)
    except Exception:
        assume(False)
    relations = tuple(program.async_relations())
    assume(relations)
    heads = sorted(program.idb())
    folder = tmp_path_factory.mktemp("random")
    original, fixed, given_ = folder / "p.ded", folder / "lamport.ded", folder / "h.facts"
    original.write_text(text, encoding="utf-8")
    fixed.write_text(lamport.rewrite(program, relations).text, encoding="utf-8")
    given_.write_text(facts, encoding="utf-8")
    before = cron(original, given_, "--horizon", 2, "--max-delay", 1, "--output-relations", ",".join(heads))
    after = cron(fixed, given_, "--horizon", 2, "--max-delay", 1, "--output-relations", ",".join(heads))
    assert set(after["choice_possible"]) <= set(before["possible"]), text
    assert set(before["certain"]) <= set(after["choice_certain"]), text
    if before["consistent"]:
        assert after["consistent"] and after["tolerant"] and after["certain"] == before["certain"], text
    # the rewrite removes causal runs (a message is used only after its send step), so its own verdict may hide a
    # race: the original's verdict is always given beside it, and the answer is yes only if the original is consistent
    if not before["consistent"]:  # a race: a verdict on the rewrite must not clear it
        assert after.get("original", {}).get("consistent") is False, text
    original = {k: v for k, v in after["original"].items() if k != "seconds"}
    assert original == {k: v for k, v in before.items() if k != "seconds"}, text
    EXERCISED.append((before["consistent"], before["tolerant"], after["consistent"]))


EXERCISED = []


def test_the_random_rewrites_include_intolerant_originals():
    # run after the property (file order): programs were rewritten, and some of them needed it
    repaired = sum(1 for c, t, _ in EXERCISED if c and not t)
    hidden = sum(1 for c, _, after in EXERCISED if not c and after)
    print(f"{len(EXERCISED)} random programs rewritten; {repaired} were consistent and intolerant before, and tolerant "
          f"after; {hidden} raced, and their rewrite alone is consistent (the original's verdict shows the race)")
    assert len(EXERCISED) >= 30 and repaired and hidden


# --- issue 38, item 5: the rewrite's text ----------------------------------------------------------------------


def test_a_comment_before_the_terminator_does_not_swallow_the_clock(tmp_path):
    for name, dialect, text in [
        ("t.ded", "transparent", "A()@async(X) :- S(), Id(X).\nB()@async(X) :- A(), Id(X) % note\n.\nT() :- A(), not B().\nT()@next :- T().\n"),
        ("m.ded", "molly", "a(X, Y)@async :- s(X, Y);\nb(Y, X)@async :- a(X, Y) // note\n;\nt(X) :- a(X, _), notin b(X, _);\n"
                           "t(X)@next :- t(X);\n"),
    ]:
        (tmp_path / name).write_text(text, encoding="utf-8")
        out = rewritten(str(tmp_path / name), "--relations", "b" if dialect == "molly" else "B")
        again = parser.parse_source(out, name, dialect)  # parses: the clock atom is outside the comment
        program = again.program if hasattr(again, "program") else again
        assert coordination.analyse(program).clocked, out
        assert ("Id(X), lamport_clock(S1) % note\n." if dialect == "transparent" else "lamport_clock(X, S) // note\n;") in out


def test_the_rewrite_drops_the_remark_that_no_longer_holds_and_names_no_variable_like_a_relation():
    text = rewritten(ALG3[0])
    assert "NON-CAUSALITY" not in text and "does not tolerate non-causality is dropped here" in text
    # Alg. 3 has a relation S(): no variable of the rewrite is called S
    assert "A_wait(S1)@async(X) :- S(), Id(X), lamport_clock(S1)." in text
    assert "B() :- B_wait(S1), lamport_clock(C), S1 < C." in text
    assert not any(v.name == "S" for r in parse_program(text, "alg3.ded").rules for v in r.variables())


def test_check_on_a_rewrite_advises_no_rewrite(rewrites):
    result = RUNNER.invoke(app, ["check", str(rewrites[FIG4[0]][0])])
    assert "would rewrite" not in result.stdout and "already waiting for a Lamport clock" in result.stdout
    assert "its messages already wait for a Lamport clock: `dedalus2asp cron` tells whether that suffices" in result.stdout
    assert "convert --to lamport`)" not in result.stdout


def test_convert_with_no_relation_named_says_so(tmp_path):
    result = RUNNER.invoke(app, ["convert", "--to", "lamport", str(EXAMPLES / FIG4[0]), "--relations", ""])
    assert result.exit_code == 2 and "--relations names no relation: give R,S (asynchronous relations of the program: A, B)" in result.output


LOCKSTEP_LOCUS = """
peer("a", "b")@1;
peer(A, B)@next :- peer(A, B);
start("a", 1)@1;
val(A, V)@next :- start(A, V);
val(A, V)@next :- val(A, V);
seen(B, A, V) :- val(A, V), peer(A, B);
ack(A, B, V)@async :- seen(B, A, V);
acked(A, V) :- ack(A, _, V);
acked(A, V)@next :- acked(A, V);
missing(A, V) :- val(A, V), notin acked(A, V);
missing(A, V)@next :- missing(A, V);
"""


def test_on_a_lock_step_program_the_rewrite_would_change_nothing(tmp_path):
    (tmp_path / "ack.ded").write_text(LOCKSTEP_LOCUS, encoding="utf-8")
    result = RUNNER.invoke(app, ["check", "--dialect", "molly", str(tmp_path / "ack.ded")])
    assert "loci of coordination: 1" in result.stdout
    assert ("`dedalus2asp convert --to lamport` would change nothing: the lock-step rules (6) run with synchronous "
            "delivery only") in result.stdout


def test_cron_eventual_on_a_rewrite_names_its_clock_and_answers_the_original(rewrites):
    """Issue 38, item 6: the rewrite's clock grows at every step, so it has no lasso; the cause is named (not the
    delay bound), and the original's eventual answer is given beside it."""
    path, facts = rewrites[FIG4[0]]
    result = RUNNER.invoke(app, ["cron", str(path), "--input", str(facts), "--eventual", "-D", "1"])
    assert result.exit_code == 3, result.output  # the rewrite has no lasso: its own answer is bounded, exit 3 (not exact)
    first, second = result.stdout.splitlines()[:2]
    assert "the rewrite's Lamport clock grows by one at every step (rule 8: lamport_clock(N + 1)@next :- lamport_clock(N).)" in first
    assert "a message can never meet its delay bound" not in result.output and "no causal lasso" not in result.output
    assert second.startswith("the original program (the Lamport rewrite undone): consistent but not tolerant: a choice lasso")
