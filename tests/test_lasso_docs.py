"""The worked lassos of docs/semantics.md ("Lasso models") and what it says of tplp2016 Fig. 5, checked against the
lasso programs themselves, so that the prose cannot drift from what the encoding does."""

from __future__ import annotations

import dataclasses

import pytest

from conftest import EXAMPLES
from dedalus2asp import inspect
from dedalus2asp.asp import solve, transform
from dedalus2asp.bounds import Bounds, Encoding, Network, Semantics
from dedalus2asp.lang import facts, parser
from dedalus2asp.questions import models as eventual_models

BLINK = ".output on.\non()@next :- not on(), id(_).\n"


def lassos(program, instance, network, steps, semantics=Semantics.CAUSAL_FINITE, encoding=Encoding.FAST, extra=""):
    bounds = eventual_models.eventual_bounds(Bounds(0, semantics, encoding, network=network), steps)
    compiled = transform.transform(program, instance, bounds)
    return dataclasses.replace(compiled, text=compiled.text + extra)


def test_the_blinking_light_has_no_lasso_of_one_step_and_one_of_two():
    """K = 1 would carry on() into step 0 (`:- _loop(0), _next_on(X,0).`); K = 2: no prefix, a loop of two steps."""
    program = parser.parse_program(BLINK, "blink.ded")
    light = facts.parse_facts("a { id(a). }", "blink.facts")
    sync = Network("sync")
    assert solve.enumerate_models(lassos(program, light, sync, 1), keep=False, progress=False).count == 0
    (only,) = inspect.enumerate_models(lassos(program, light, sync, 2), progress=False).models
    assert (only.loop_start, only.period) == (0, 2)
    assert [only.facts_at(only.network[0], s) for s in (0, 1)] == [["id(a)"], ["id(a)", "on()"]]
    assert only.ultimate() == ()
    found = eventual_models.ultimate_outputs(program, light, Bounds(0, network=sync), ("on",))
    assert found.outputs == ((),) and found.exact and found.steps == 2


def test_the_choice_lasso_of_jcss2014_alg3_is_as_the_docs_walk_through_it():
    """Alg. 3 under choice, delay ≤ 1, K = 6: the lasso with L = 4 whose B() (sent at 1) arrives at 0 and whose A()
    sent at 5 wraps to step 4 exists, carries A() and sent_B() into step 4 from both sides, and loses T()."""
    program = parser.load_program(EXAMPLES / "jcss2014" / "alg3.ded")
    instance = parser.load_instance(EXAMPLES / "jcss2014" / "alg3.facts")
    arrivals = {("A", 0, 1), ("B", 1, 0), ("A", 1, 2), ("A", 2, 3), ("A", 3, 4), ("A", 4, 5), ("A", 5, 6)}
    pin = ":- not _loop(4).\n" + "".join(f":- not chosen_{r}(z,{s},z,{a}).\n" for r, s, a in sorted(arrivals))
    (lasso,) = inspect.enumerate_models(
        lassos(program, instance, Network(max_delay=1), 6, Semantics.CHOICE, extra=pin), progress=False).models
    assert {(m.relation, m.sent, m.unrolled) for m in lasso.messages} == arrivals
    z = lasso.network[0]
    assert {"A()", "sent_B()"} <= set(lasso.facts_at(z, 3)) and {"A()", "sent_B()"} <= set(lasso.facts_at(z, 5))
    wrapped = next(m for m in lasso.messages if m.sent == 5)
    assert wrapped.wraps and wrapped.arrives == 4
    assert [(m.relation, m.sent, m.unrolled) for m in lasso.noncausal()] == [("B", 1, 0)]
    assert lasso.ultimate() == () and all("T()" not in lasso.facts_at(z, s) for s in range(6))
    # every causal lasso has T() (K = 4, exact)
    causal = eventual_models.ultimate_outputs(program, instance, Bounds(0, network=Network(max_delay=1)), ("T",))
    assert causal.outputs == (("T()",),) and causal.exact and causal.steps == 4


@pytest.mark.parametrize("delay", [1, 2])
def test_fig5_causal_and_causal_finite_have_the_same_lassos(delay):
    """No lasso groups infinitely many messages at one step: pure_ca and pure have the same lassos (of K steps, K the
    completeness threshold) in both encodings, rcvInf is never derived, and T() is every lasso's ultimate output."""
    program = parser.load_program(EXAMPLES / "tplp2016" / "fig5_grouping.ded")
    instance = parser.load_instance(EXAMPLES / "tplp2016" / "fig5.facts")
    network = Network(max_delay=delay)
    threshold = eventual_models.threshold(program, instance, Bounds(0, network=network))
    assert threshold.exact
    steps = threshold.steps
    counts = {(s, e): solve.count(lassos(program, instance, network, steps, s, e), progress=False)
              for s in (Semantics.CAUSAL, Semantics.CAUSAL_FINITE) for e in Encoding}
    assert len({(c["models"], c["traces"]) for c in counts.values()}) == 1, counts
    assert counts[Semantics.CAUSAL, Encoding.FAST]["models"] > 0
    infinite = "infinite :- rcvInf(Y,T).\n:- not infinite.\n"
    paper = lassos(program, instance, network, steps, Semantics.CAUSAL_FINITE, Encoding.PAPER, infinite)
    assert solve.enumerate_models(paper, keep=False, progress=False).count == 0
    found = eventual_models.ultimate_outputs(program, instance, Bounds(0, network=network), ("T",))
    # x sends to y: the runs whose clocks drift apart are certified by the fair asynchronous interleavings
    assert found.outputs == (("T()",),) and found.exact and found.free_clocks == -1 and found.drifted == ()
