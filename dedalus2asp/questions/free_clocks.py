"""What the eventual questions say when the nodes' clocks may drift apart.

The eventual mode's runs step in rounds (`runs.configurations`); tplp2016's runs give each node its own clock, so
under a delay bound a message may reach another node at a step numbered at or before its send step. Where the
explorer's graph decides (`cron_graph.by_graph`, `models.graph_first`), it also follows the runs whose first steps
use free clocks and which then go on in rounds (`runs.drift`, `runs.eventual.explore(free_clocks=True)`): genuine
infinite runs, not all of them. So

* an ultimate output only such a run has is a real one: it joins the list, and two outputs make "not consistent"
  exact, shown by a run in rounds and the run whose clocks drift (`verdict`);
* one output is "consistent" over the runs in rounds and those followed, not exact (`Exactness.free_clocks`),
  unless the fair asynchronous interleavings (`runs.interleavings`, an over-approximation of every run with free
  clocks) admit no other output: then it is exact (`answer.exact`, decided by "interleavings"), and tolerance is
  what the choice runs decided.

Where the graph does not close, the solver's lassos answer, which are runs in rounds too: `may_drift` says when
their "exact" must be withdrawn (`withdrawn`).

Public names: `verdict`, `withdrawn` (`may_drift` and `UNCHECKED` are `runs.drift`'s).
"""

from __future__ import annotations

from dataclasses import replace

from ..lang.ast import Instance, Program
from ..bounds import Network
from ..runs.drift import UNCHECKED, may_drift
from ..runs.eventual import Eventual, drift_reason
from .cron import Verdict
from .eventual import Exactness


def verdict(found: Verdict, answer: Eventual) -> Verdict:
    """The CRON verdict `found` from the runs in rounds (one ultimate output, exact over them), with what the runs of
    `answer` whose clocks drift apart add: another output makes it "not consistent", exact, its witnesses the two
    explorer runs (`Verdict.runs`); none leaves "consistent" over the runs followed, not exact, unless the fair
    interleavings certified the one output (`answer.exact`). Unchanged when the clocks cannot drift
    (`answer.free_clocks` None)."""
    if answer.free_clocks is None:
        return found
    k = found.exactness.K
    if answer.exact and len(answer.ultimate_outputs) == 1:  # the fair interleavings admit no other output
        found.exactness = Exactness(k, True, "", "interleavings")
        return found
    if len(answer.ultimate_outputs) > 1:
        outputs = [frozenset(o) for o in answer.ultimate_outputs]
        rounds = answer.in_rounds[0]
        other = next(i for i, o in enumerate(answer.ultimate_outputs) if answer.witnesses[i].free_clocks)
        found.consistent, found.tolerant = False, False
        found.certain, found.possible = frozenset.intersection(*outputs), frozenset.union(*outputs)
        found.choice_certain = (found.choice_certain or frozenset()) & found.certain
        found.choice_possible = (found.choice_possible or frozenset()) | found.possible
        found.runs = [(answer.witnesses[answer.ultimate_outputs.index(rounds)], frozenset(rounds)),
                      (answer.witnesses[other], outputs[other])]
        found.counterexample, found.lost, found.gained = None, frozenset(), frozenset()
        found.exactness, found.choice_exactness = Exactness(k, True, "", "graph"), None
        return found
    reason = answer.reason or drift_reason(answer.free_clocks)
    found.exactness = Exactness(k, False, reason, "graph", answer.free_clocks)
    if found.choice_exactness is not None and found.choice_exactness.exact:
        against = ("every choice run has the ultimate output of the causal runs in rounds (the choice runs' graph), "
                   "but " if found.choice_exactness.decided_by == "choice-graph" else "")
        found.choice_exactness = Exactness(k, False, against + reason, "graph", answer.free_clocks)
    return found


def withdrawn(exactness: Exactness, program: Program, instance: Instance | None, network: Network,
              unchecked: str = UNCHECKED) -> Exactness:
    """The exactness of an answer the solver's lassos (runs in rounds) gave, not exact when the clocks may drift
    (`may_drift`) and the graph did not follow the runs with free clocks (`unchecked`: why, or what checked them
    instead); confluence holds of every run and stays exact."""
    if not exactness.exact or exactness.decided_by == "confluence" or not may_drift(program, instance, network):
        return exactness
    return replace(exactness, exact=False, reason=drift_reason(-1, unchecked), free_clocks=-1)
