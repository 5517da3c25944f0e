"""Every PSN execution of a burst: every order in which the updates can be picked (psn2010 §4.1).

A state is (K, U); a transition picks one update of U that may be picked (a deletion only if K holds its
copy) and performs the iteration (`psn.PSN.step`). The graph of states is searched depth first, each
state once. It says:

* whether every execution ends (Theorem 20: no state is reached again from itself, no execution is
  longer than the search allows) and none is stuck (deletions left that nothing will let be picked);
* the views the executions end in, each with one execution (its picks) that ends there: one view
  only, Corollary 22;
* how many executions (maximal paths) and states there are.

Under `eager` (Liu et al.'s deletion, discarded when it finds nothing to delete) a deletion can always
be picked, and the views it ends in may differ: the execution that ends in a wrong view is the
reordering psn2010's last section describes.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from .ddlog import DDlogProgram
from .pipelined import PSNEngine
from .psn import PSN, Annotated, Pick, PUpdate
from .updates import Burst
from .view import View


class TooLarge(RuntimeError):
    """The state space is larger than the search's limit."""


@dataclass
class Exploration:
    states: int = 0
    executions: int = 0
    longest: int = 0
    stuck: int = 0
    finals: dict = field(default_factory=dict)  # view key → (View, one execution: list[Pick])

    @property
    def views(self) -> list[View]:
        return [v for v, _ in self.finals.values()]


def _key(view: View):
    return (frozenset(view.counts.items()), view.infinite)


def start(program: DDlogProgram, base: Counter) -> PSN:
    """K after the view of `base` is built (any order: Corollary 22)."""
    engine = PSNEngine("fifo")
    engine.start(program, base)
    return engine.psn


def explore(program: DDlogProgram, base: Counter, burst: Burst, eager: bool = False, limit: int = 200_000) -> Exploration:
    """Every execution of `burst` from the view of `base` (see the module docstring)."""
    psn = start(program, base)
    psn.eager = eager
    initial = (psn.state(), frozenset(Counter(PUpdate(u.op, Annotated(u.fact)) for u in burst.updates).items()))
    out = Exploration()
    # per state: executions from it, longest execution, and per final view one execution (list of picks)
    memo: dict = {}
    on_path: set = set()

    def successors(state):
        K, U = state
        pending = Counter(dict(U))
        for update in sorted(pending, key=str):
            psn.restore(K)
            pickable = psn.pickable(update)
            if not pickable and not eager:
                continue
            derived = tuple(psn.step(update))
            after = pending.copy()
            after[update] -= 1
            after.update(derived)
            pick = Pick(program.node(update.item.fact), update, derived, discarded=not pickable)
            yield pick, (psn.state(), frozenset((+after).items()))

    def visit(state):
        if state in memo:
            return memo[state]
        if state in on_path:
            raise RuntimeError("a PSN execution returns to a state it was in: it need not end (Theorem 20 says it must)")
        if len(memo) >= limit:
            raise TooLarge(f"more than {limit} states")
        on_path.add(state)
        executions, longest, finals, moved = 0, 0, {}, False
        for pick, nxt in list(successors(state)):
            moved = True
            e, n, f = visit(nxt)
            executions += e
            longest = max(longest, n + 1)
            for k, (view, run) in f.items():
                finals.setdefault(k, (view, [pick] + run))
        if not moved:
            executions = 1
            if state[1]:
                out.stuck += 1
            else:
                psn.restore(state[0])
                view = psn.view()
                finals[_key(view)] = (view, [])
        on_path.discard(state)
        memo[state] = (executions, longest, finals)
        return memo[state]

    out.executions, out.longest, out.finals = visit(initial)
    out.states = len(memo)
    return out


def run_lines(run: list[Pick]) -> list[str]:
    """An execution, one pick a line: where, what, what it sent."""
    lines = []
    for i, pick in enumerate(run, 1):
        derived = ", ".join(str(d) for d in pick.derived) or "nothing"
        what = "discarded (nothing to delete)" if pick.discarded else f"derives {derived}"
        lines.append(f"  pick {i} at node {pick.node}: {pick.update}: {what}")
    return lines
