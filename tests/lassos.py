"""Lasso models for the tests of the formats (issue #29 item 5), decoded by `inspect.decode` from the answer set
of a bounded model with its pending arrivals written as the steps after T where they arrive and a `_loop(L)`
atom added: what the eventual mode's encoding gives, built by hand from a real bounded model.

* `molly`: Molly's retrying broadcast under sync delivery (Alvaro, Rosen, Hellerstein, *Lineage-driven fault
  injection*, SIGMOD 2015, §5), a→b lost at step 0; b logs from step 2, and from step 3 on every step is alike:
  the loop is steps 3–4, and the messages a sends at step 4 arrive at step 5, which is step 3 again.
* `fig4`: tplp2016 Fig. 4 under the choice semantics with delays ≤ 1: B() sent at step 1 arrives at step 0 and
  B() sent at step 2 at step 1, both into the past, so T() never holds; A() sent at step 2 arrives at step 3,
  which is step 1 again: the loop is steps 1–2. B() sent in the loop arrives in the prefix, which the eventual
  design allows a choice lasso and the `lasso` encoding does not produce (none of its lassos of 3 or 4 steps
  has such a message): the formats must draw it all the same.
* `fig4_sync`: Fig. 4 under sync delivery, a loop of one step (3) with T() as its ultimate output.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import clingo

from dedalus2asp import inspect
from dedalus2asp.asp import solve
from dedalus2asp.asp.names import LOOP, PENDING
from dedalus2asp.bounds import Bounds, Mode, Network, Semantics
from dedalus2asp.pipeline import prepare

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
RETRY = EXAMPLES / "molly/retry_broadcast.ded"
FIG4 = (EXAMPLES / "tplp2016/fig4_noncausal.ded", EXAMPLES / "tplp2016/fig4.facts")


def lasso(program, facts, bounds: Bounds, loop_start: int, pick, arrivals) -> inspect.Model:
    """The lasso with loop start `loop_start` made from the first bounded answer set whose decoded model `pick`
    accepts: each pending message (relation, sent) gets its arrival `arrivals[(relation, sent)]` (> T)."""
    compiled = prepare(program, facts, bounds).compiled
    answers = solve.enumerate_models(compiled, 0, progress=False).models
    symbols = next(s for s in answers if pick(inspect.decode(s, compiled)))
    eventual = replace(compiled, bounds=replace(bounds, mode=Mode.EVENTUAL))
    written = [_arrive(atom, compiled, arrivals) for atom in symbols] + [clingo.Function(LOOP, [clingo.Number(loop_start)])]
    return inspect.decode(written, eventual)


def _arrive(atom: clingo.Symbol, compiled, arrivals) -> clingo.Symbol:
    args = atom.arguments
    if atom.name in compiled.messages and len(args) >= 4 and args[3].match(PENDING, 0):
        step = arrivals[(compiled.messages[atom.name], args[1].number)]
        return clingo.Function(atom.name, [*args[:3], clingo.Number(step), *args[4:]])
    return atom


def molly() -> inspect.Model:
    lost_ab = lambda m: [(str(x.sender), x.sent, str(x.addressee)) for x in m.lost] == [("a", 0, "b")]  # noqa: E731
    return lasso(RETRY, None, Bounds(4, network=Network("sync", loss_until=1)), 3, lost_ab, {("deliver", 4): 5})


def fig4() -> inspect.Model:
    wanted = {("A", 0, 1), ("A", 1, 2), ("A", 2, None), ("B", 1, 0), ("B", 2, 1)}
    shape = lambda m: {(x.relation, x.sent, x.arrives) for x in m.messages} == wanted  # noqa: E731
    return lasso(*FIG4, Bounds(2, Semantics.CHOICE, network=Network(max_delay=1)), 1, shape, {("A", 2): 3})


def fig4_sync() -> inspect.Model:
    """tplp2016 Fig. 4 under Molly's rounds: T() at step 1, B() from step 2 on; from step 3 every step is alike,
    a loop of one step whose A() and B() arrive at step 4, which is step 3 again; T() is its ultimate output."""
    bounds = Bounds(3, network=Network("sync"))
    return lasso(*FIG4, bounds, 3, lambda m: True, {("A", 3): 4, ("B", 3): 4})


# -- the same lassos from the eventual mode's encoding ---------------------------------


def solved(program, facts, bounds: Bounds) -> tuple[inspect.Model, ...]:
    """Every lasso model of the eventual mode's program with K = bounds.horizon + 1 steps."""
    compiled = prepare(program, facts, replace(bounds, mode=Mode.EVENTUAL)).compiled
    return inspect.enumerate_models(compiled, 0, progress=False).models


def shape(model: inspect.Model) -> set:
    return {(str(x.sender), x.sent, str(x.addressee), x.relation, x.unrolled) for x in model.messages}


def solved_molly() -> inspect.Model:
    """`molly`, as the encoding finds it among the lassos of 5 steps."""
    wanted = molly()
    return next(m for m in solved(RETRY, None, Bounds(4, network=Network("sync", loss_until=1)))
                if m.loop_start == 3 and m.lost == wanted.lost and m.trace == wanted.trace and shape(m) == shape(wanted))


def solved_fig4() -> inspect.Model:
    """Fig. 4's non-causal run as a lasso of 4 steps under choice with delays ≤ 1: A() sent at 0 arrives at 1,
    where it sends B(), which arrives at step 0, so T() never holds; the loop is steps 2–3, where B() sent at 3
    arrives at 2, into the past again, and A() sent at 3 arrives at step 4, which is step 2 again."""
    wanted = {("z", 0, "z", "A", 1), ("z", 1, "z", "B", 0), ("z", 1, "z", "A", 2), ("z", 2, "z", "A", 3),
              ("z", 2, "z", "B", 3), ("z", 3, "z", "A", 4), ("z", 3, "z", "B", 2)}
    return next(m for m in solved(*FIG4, Bounds(3, Semantics.CHOICE, network=Network(max_delay=1)))
                if m.loop_start == 2 and shape(m) == wanted)
