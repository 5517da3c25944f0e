"""An adversarial review of the over graph's certified witness (`runs/choice_certificate.py`, docs/semantics.md "The
over graph's witness, certified"): `cron --eventual` says "not tolerant", exact, when the witness replays as a
concrete choice run. Here the witnesses that would need a message to found its own reception through another node or
a carried fact are refused, and certified runs of adversarial programs (messages into the past that a latched output
reads through @next and negation) are reproduced by the bounded choice solver at the end of their stem and two and
three passes of their loop."""

from __future__ import annotations

import pytest

from dedalus2asp.bounds import Bounds, Mode, Network
from dedalus2asp.runs import choice_certificate, eventual

from test_choice_certificate import SELF_FOUNDED, over_graph, reproduced
from test_choice_graph import text

RELAYED = SELF_FOUNDED.replace("p()@async(Y) :- r(), me(Y).\n",
                               "q()@async(Y) :- r(), peer(Y).\np()@async(Y) :- q(), peer(Y).\n")
assert "q()" in RELAYED
"""test_choice_certificate's SELF_FOUNDED with y's own p() relayed through x: x sends p() to y once; r() needs p() at
two consecutive steps of y, and once r() holds y sends q() to x, which answers p(). Every p() after the first depends
on r(), so on both receptions: no choice run has quiet(), which the over graph lists."""

CARRIED = """.output o.
p()@async(Y) :- go(), peer(Y).
a()@next :- p().
a()@next :- a().
b() :- a(), p().
b()@next :- b().
p()@async(Y) :- b(), me(Y).
o() :- b(), not p().
"""
"""x sends p() to y once (its event go() at step 1); b() needs p() twice at y (once carried by a()), and then y
sends p() to itself at every step: one send founds one reception, so no choice run has o()."""


@pytest.mark.parametrize(("case", "delay"), [("relayed", 1), ("relayed", 2), ("carried", 1), ("carried", 2),
                                             ("carried", 3)])  # relayed under D = 3: 14 s, refused too
def test_a_reception_founded_only_through_itself_is_refused(tmp_path, case, delay):
    program, facts = {"relayed": (RELAYED, "x { start(). peer(y). }\ny { peer(x). }\n"),
                      "carried": (CARRIED, "x { peer(y). go()@1. }\ny { me(y). }\n")}[case]
    prog, instance = text(tmp_path, program, facts)
    network = Network(max_delay=delay)
    causal = eventual.explore(prog, instance, Bounds(0, network=network, mode=Mode.EVENTUAL), 20_000)
    over, graph = over_graph(prog, instance, network)
    assert causal.exact and causal.ultimate_outputs == ((),) and over.exact and len(over.ultimate_outputs) == 2
    for output, witness in zip(over.ultimate_outputs, over.witnesses):
        if output != ():
            refused = choice_certificate.certify(graph, witness, prog.output_relations)
            assert isinstance(refused, str) and "has no well-founded message of its own" in refused


GAINED = """.output o.
r()@next :- r().
o() :- r(), not p().
p()@async(Y) :- go(), peer(Y).
r() :- s(), p().
o()@next :- o().
s()@next :- p().
"""
"""y sends p() to x at every step; r() needs p() at two consecutive steps of x, and o(), latched, needs r() at a step
without p(): no run in rounds has it, a choice run whose messages arrive into the past (leaving a step of x without
p()) does, each reception founded by a send of y that depends on nothing."""


def test_a_certified_run_is_reproduced_at_two_and_three_passes(tmp_path):
    prog, instance = text(tmp_path, GAINED, "x { peer(y). me(x). }\ny { peer(x). me(y). go(). }\n")
    network = Network(max_delay=1)
    causal = eventual.explore(prog, instance, Bounds(0, network=network, mode=Mode.EVENTUAL), 20_000)
    over, graph = over_graph(prog, instance, network)
    gained = [(o, w) for o, w in zip(over.ultimate_outputs, over.witnesses) if o not in causal.ultimate_outputs]
    assert causal.exact and over.exact and [o for o, _ in gained] == [("o()",)]
    run = choice_certificate.certify(graph, gained[0][1], ("o",))
    assert not isinstance(run, str) and run.output == ("o()",)
    for passes in (2, 3):
        horizon = run.loop_start + passes * run.period - 1
        last = run.loop_start + (horizon - run.loop_start) % run.period
        expected = frozenset(eventual.output_fact(graph, i, f) for i, facts in enumerate(run.facts[last])
                             for f in facts if f[0] == "o")
        assert expected == {"o()"} and reproduced(prog, instance, network, ("o",), expected, horizon)
