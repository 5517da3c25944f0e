"""The transformations: golden files, the real clingo front end, names, variable capture, sharp corners.

Golden files live in tests/golden/<encoding>/<example>.<semantics>.lp; run with
UPDATE_GOLDEN=1 to rewrite them after a deliberate change, and read the diff.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from dedalus2asp import inspect
from dedalus2asp.asp import solve
from dedalus2asp.lang.facts import parse_facts
from dedalus2asp.lang.parser import parse_program
from dedalus2asp.pipeline import prepare
from dedalus2asp.asp.names import relation_name
from dedalus2asp.asp.transform import transform
from dedalus2asp.bounds import Bounds, Encoding, Network, Semantics

from conftest import ROOT, SMALL, example_id

GOLDEN = ROOT / "tests" / "golden"


def compiled(program: str, facts: str, horizon: int, semantics=Semantics.CAUSAL_FINITE, max_delay=None, encoding=Encoding.FAST):
    return transform(parse_program(program, "test.ded"), parse_facts(facts, "test.facts"), Bounds(horizon, semantics, encoding, Network(max_delay=max_delay)))


def solved_traces(program: str, facts: str, horizon: int, semantics=Semantics.CAUSAL_FINITE, max_delay=None):
    """The distinct traces (projective enumeration: one model per trace)."""
    found = inspect.traces(compiled(program, facts, horizon, semantics, max_delay))
    return [m.trace for m in found.models]


@pytest.mark.parametrize("encoding", list(Encoding), ids=lambda e: e.value)
@pytest.mark.parametrize("semantics", list(Semantics), ids=lambda s: s.value)
@pytest.mark.parametrize("pair", SMALL, ids=[example_id(p) for p in SMALL])
def test_golden_files(pair, semantics, encoding, monkeypatch):
    monkeypatch.chdir(ROOT)
    program, facts = (f"examples/{p}" for p in pair)
    text = prepare(program, facts, Bounds(2, semantics, encoding)).compiled.text
    golden = GOLDEN / encoding.value / f"{Path(program).stem}.{semantics.value}.lp"
    if os.environ.get("UPDATE_GOLDEN"):
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(text, encoding="utf-8")
    assert golden.exists(), f"no golden file {golden}: run with UPDATE_GOLDEN=1"
    assert text == golden.read_text(encoding="utf-8")


def clingo_front_end_models(path: Path) -> int:
    """The number of models `python -m clingo PATH 0` reports."""
    done = subprocess.run(
        [sys.executable, "-m", "clingo", str(path), "0", "-q"], capture_output=True, text=True, timeout=300
    )
    assert done.returncode in (0, 10, 20, 30), done.stderr  # the python front end exits 0; clingo 10/20/30
    return int(re.search(r"^Models\s*:\s*(\d+)\s*$", done.stdout, re.M).group(1))


# Every example under every semantics at horizon 1, but jcss2014 Alg. 1 under `choice`: its
# broadcast of the transitive closure has tens of millions of choice models already at T = 1
# (every copy of every T(u, v) message picks any arrival), too many to count in a test.
FRONT_END = [
    (pair, s, e)
    for pair in SMALL
    for s in Semantics
    for e in Encoding
    if not (pair[0] == "jcss2014/alg1.ded" and s is Semantics.CHOICE)
]


@pytest.mark.parametrize(
    "pair, semantics, encoding", FRONT_END, ids=[f"{example_id(p)}-{s.value}-{e.value}" for p, s, e in FRONT_END]
)
def test_compiled_program_runs_under_clingo_front_end(pair, semantics, encoding, tmp_path):
    program, facts = (ROOT / "examples" / p for p in pair)
    prepared = prepare(program, facts, Bounds(1, semantics, encoding))
    out = tmp_path / "out.lp"
    out.write_text(prepared.compiled.text)
    assert clingo_front_end_models(out) == solve.count(prepared.compiled, progress=False)["models"]


CAPTURE = """
p(X, S)@async(Y) :- e(X, S), n(Y), not q(X).
q(T) :- p(T, T2), e(T2, W0), T2 != W0.
r(X)@next :- p(X, S), q(S).
w(W1) :- r(W1), e(W1, _).
"""
RENAMED = """
p(A, B)@async(D) :- e(A, B), n(D), not q(A).
q(C) :- p(C, E), e(E, F), E != F.
r(A)@next :- p(A, B), q(B).
w(I) :- r(I), e(I, _).
"""


def test_introduced_variables_never_capture_user_variables():
    """Users may call their variables X, S, T, Y, T2, W0: the transformation picks fresh ones."""
    facts = "n(a). n(b).\na { e(a, b). e(b, c). }\nb { e(b, a). }\n"
    for semantics in Semantics:
        left, right = (compiled(p, facts, 1, semantics) for p in (CAPTURE, RENAMED))
        assert solve.count(left, progress=False)["models"] == solve.count(right, progress=False)["models"]
        left_traces = {m.trace for m in inspect.traces(left).models}
        assert len(left_traces) > 1
        assert left_traces == {m.trace for m in inspect.traces(right).models}


def test_fresh_variables_are_distinct_from_user_variables():
    text = compiled(CAPTURE, "a { }", 1, encoding=Encoding.PAPER).text
    # rule 1 uses X, S, Y: the location and step must be X0, S0, the candidate arrival T.
    assert "cand_p(X0,S0,Y,T,X,S) :- e(X0,S0,X,S), n(X0,S0,Y), not q(X0,S0,X), all(Y), arrival(T), not before(Y,T,X0,S0)." in text
    # rule 2 uses T, T2, W0: location X, step S, fresh next step T0 unused in deductive rules.
    assert "q(X,S,T) :- p(X,S,T,T2), e(X,S,T2,W0), T2 != W0." in text


AUX_NAMES = """
all(U) :- time(U).
before(U)@next :- all(U), not arrival(U).
cand_a(U)@async(Y) :- before(U), tsucc(Y).
u_all(U) :- cand_a(U).
Time(U) :- u_all(U).
"""
PLAIN_NAMES = """
p1(U) :- p2(U).
p3(U)@next :- p1(U), not p4(U).
p5(U)@async(Y) :- p3(U), p6(Y).
p7(U) :- p5(U).
p8(U) :- p7(U).
"""


def test_user_relations_never_collide_with_auxiliary_relations():
    assert relation_name("all") == "u_all" and relation_name("u_all") == "u_u_all"
    assert relation_name("Time") == "u_Time" and relation_name("marked") == "marked"
    assert relation_name("cand_a") == "u_cand_a"
    aux = "time(v). tsucc(a). tsucc(b).\na { }\nb { }\n"
    plain = "p2(v). p6(a). p6(b).\na { }\nb { }\n"
    for semantics in Semantics:
        left = solve.count(compiled(AUX_NAMES, aux, 2, semantics), progress=False)
        right = solve.count(compiled(PLAIN_NAMES, plain, 2, semantics), progress=False)
        assert (left["models"], left["traces"]) == (right["models"], right["traces"])
        assert left["models"] > 1


def test_strings_cannot_inject_directives():
    program = 'p(X) :- q(X), X != "#end.".\nr() :- p("x\\". #script (python)\\n#end. s(\\"").\n'
    facts = 'a { q("x\\". #script (python)\\n#end. s(\\""). }\n'
    for encoding in Encoding:
        text = compiled(program, facts, 0, encoding=encoding).text
        # the only directives are the fast encoding's own acyclicity edges
        assert not any(line.lstrip().startswith("#") and not line.startswith("#edge ((X,S),") for line in text.splitlines())
    (model,) = inspect.enumerate_models(compiled(program, facts, 0), 0, progress=False).models
    held = {(r, tuple(str(a) for a in args)) for (_, _, r, args) in model.trace}
    assert ("r", ()) in held
    assert ("p", ('"x\\". #script (python)\\n#end. s(\\""',)) in held


def test_file_names_cannot_inject_statements():
    """The header comment names the program's file: a newline in that name stays in the comment."""
    from dedalus2asp.asp.incremental import incremental

    name = "x\n:- time(0).\n#script (python)\n%.ded"
    program = parse_program("p(X)@next :- q(X).\n", name)
    instance = parse_facts("a { q(1). }\n", "test.facts")
    texts = [transform(program, instance, Bounds(1, Semantics.CAUSAL, e)).text for e in Encoding]
    texts.append(transform(program, instance, Bounds(1, Semantics.CAUSAL)).counting_traces())
    texts.append(incremental(program, instance, Semantics.CAUSAL).text)
    for text in texts:
        assert not any(line.startswith((":-", "#script")) for line in text.splitlines())
        assert "x\\n:- time(0).\\n#script (python)\\n%.ded" in text
    assert solve.count(transform(program, instance, Bounds(1, Semantics.CAUSAL)), progress=False)["models"] == 1


def test_rule_without_positive_atom_gets_the_guard():
    program = "seen() :- mark().\nflag() :- not seen().\n"
    traces = solved_traces(program, "a { mark(). }\nb { }\n", 2)
    (trace,) = traces
    flags = {(str(x), s) for (x, s, r, _) in trace if r == "flag"}
    assert flags == {("b", 0), ("b", 1), ("b", 2)}


def test_node_without_facts_takes_part():
    program = "m(U)@async(Y) :- v(U), peer(Y).\nm(U)@next :- m(U).\n"
    facts = "a { v(1). peer(c). }\nc { }\n"
    traces = solved_traces(program, facts, 1)
    at_c = {frozenset((s, r) for (x, s, r, _) in t if str(x) == "c") for t in traces}
    # m(1) sent at a@0 and a@1 can arrive at c@0, c@1 or stay pending.
    assert at_c == {frozenset(), frozenset({(1, "m")}), frozenset({(0, "m"), (1, "m")})}


def test_message_to_node_outside_network_is_dropped():
    program = "m()@async(Y) :- target(Y).\ngot() :- m().\n"
    c = compiled(program, "a { target(zz). }\n", 2)
    result = solve.count(c, progress=False)
    assert (result["models"], result["traces"]) == (1, 1)
    (model,) = inspect.enumerate_models(c, 0, progress=False).models
    assert model.messages == ()


def test_relation_both_input_and_derived():
    program = "p(X) :- q(X).\np(X)@next :- r(X).\n"
    facts = "a { p(i). q(d). r(n). }\n"
    (trace,) = solved_traces(program, facts, 1)
    held = {(s, str(args[0])) for (_, s, r, args) in trace if r == "p"}
    assert held == {(0, "i"), (0, "d"), (1, "i"), (1, "d"), (1, "n")}


def test_pending_message_keeps_model_at_horizon():
    """A message sent at the last step to the sender itself has no arrival step: it is pending."""
    program = "m()@async(X) :- id(X).\n"
    c = compiled(program, "z { id(z). }\n", 0)
    (model,) = inspect.enumerate_models(c, 0, progress=False).models
    assert [(m.sent, m.arrives) for m in model.messages] == [(0, None)]


def test_delay_bound_forces_arrival():
    program = "m()@async(X) :- id(X).\ngot() :- m().\n"
    facts = "z { id(z). }\n"
    unbounded = solve.count(compiled(program, facts, 2), progress=False)
    bounded = solve.count(compiled(program, facts, 2, max_delay=1), progress=False)
    # D=1: m sent at 0 arrives at 1; sent at 1 arrives at 2; sent at 2 may be pending (2+1 > 2) or
    # arrive... nowhere else (2 is before-or-equal the send): exactly one model.
    assert bounded["models"] == 1 and unbounded["models"] > bounded["models"]
    (model,) = inspect.enumerate_models(compiled(program, facts, 2, max_delay=1), 0, progress=False).models
    assert [(m.sent, m.arrives) for m in model.messages] == [(0, 1), (1, 2), (2, None)]


@pytest.mark.parametrize("encoding", list(Encoding), ids=lambda e: e.value)
@pytest.mark.parametrize("semantics", list(Semantics), ids=lambda s: s.value)
def test_golden_files_of_the_constructs_of_issue_18(semantics, encoding, monkeypatch):
    """Aggregates, arithmetic, `_` in negated atoms, a body atom at a step and global rules, as
    docs/encodings.md shows them (tests/golden/language/constructs.ded, in Molly's dialect)."""
    monkeypatch.chdir(ROOT)
    program = "tests/golden/language/constructs.ded"
    text = prepare(program, None, Bounds(2, semantics, encoding, Network(max_delay=1)), "molly").compiled.text
    golden = GOLDEN / encoding.value / f"constructs.{semantics.value}.lp"
    if os.environ.get("UPDATE_GOLDEN"):
        golden.write_text(text, encoding="utf-8")
    assert golden.exists(), f"no golden file {golden}: run with UPDATE_GOLDEN=1"
    assert text == golden.read_text(encoding="utf-8")
