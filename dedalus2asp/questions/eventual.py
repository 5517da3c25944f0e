"""What every eventual answer shares: the lasso length K it was asked at, and whether that makes it exact.

An eventual question (`cron --eventual`, `verify --eventual`, the batch's `eventual = true` jobs) is asked of
the lasso models with K steps (`Bounds.mode` = `Mode.EVENTUAL`, `Bounds.horizon` = K - 1): the solver picks
the loop start L, and the step after K - 1 is step L again (Heljanko and Niemelä, *Bounded LTL model checking
with stable models*, TPLP 2003, the k-loop encoding). Every lasso with L + P ≤ K has a representative with
L + P = K exactly (move L forward along the loop), so one solve at K covers every shorter lasso.

For the questions asked here (is a fact ultimately certain or possible, do two runs' ultimate outputs differ,
does a `pre` row ultimately lack its `post` row), a finite-state system has a witness run iff it has a lasso
witness whose prefix is a path of distinct configurations and whose loop is a simple cycle: the lasso's
configurations are then pairwise distinct, so a lasso of at most K steps exists once K is the **completeness
threshold**, the recurrence diameter plus one (Biere, Cimatti, Clarke, Zhu, *Symbolic model checking without
BDDs*, TACAS 1999, §5; Kroening and Strichman, *Efficient computation of recurrence diameters*, VMCAI 2003).
The threshold is established by an unsatisfiable "loop-free path of K + 1 configurations" program
(`questions.models.threshold`); an answer at that K is **exact**. When the search for it stops (a limit of K
or of time), the answer is asked at the largest K tried and is **bounded**: it speaks of the lassos of at
most K steps only, and says so (`Exactness.words`). Two answers are exact at any K, since what they show is
an infinite run: a lasso counterexample of `verify`, two lassos whose ultimate outputs differ (`cron`: not
consistent); what needs K is "holds", "consistent", "tolerant", and "the fewest faults".
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..asp.names import LOOP, OUTPUT, relation_name
from ..bounds import Bounds, Mode
from ..lang.ast import Instance, Program
from .deepening import MAX_K, how_far
from .models import threshold as loop_free  # the lasso encoding's threshold search

NOT_ALWAYS = "_not_always"
"""_not_always(x, "R", (x, w̄)): node x lacks R(w̄) at some step of the loop, so R(w̄) is no ultimate fact of x."""



@dataclass(frozen=True)
class Exactness:
    """K, the number of steps of the lassos an eventual answer was asked of, and whether K is the completeness
    threshold (`exact`); `reason`: why not, in words ("" when exact)."""

    K: int
    exact: bool
    reason: str = ""
    decided_by: str = "solver"
    """"explorer": the configuration graph decided what the lassos' per-node sets left open; "confluence": the
    program is confluent (`models.confluent`), so every run has the same ultimate output and any lasso shows it;
    "graph": the explorer's graph decided it alone (`cron_graph.by_graph`); "choice-graph": the choice runs' graph
    (`runs.choice`) decided tolerance (`cron_graph.by_choice_graph`); "latched": a bounded choice model gains facts
    that persist once derived, so it begins an infinite choice run that differs (`cron_eventual.latched`);
    "choice-over-certified": the over-approximation's witness replayed as a genuine choice run
    (`runs.choice_certificate`); "interleavings": the explorer's graph for the
    runs in rounds and the fair asynchronous interleavings (`runs.interleavings`) for those with free clocks."""
    free_clocks: int | None = None
    """Not exact because the nodes' clocks may drift apart (`runs.drift`): the runs in rounds were decided, those with
    free clocks followed up to this horizon T (-1: not followed); `reason` says so."""

    def words(self) -> str:
        """Exact: "exact: lassos of up to K = 7 steps cover every infinite run (the completeness threshold)";
        else "bounded: ... (reason)"."""
        if self.exact and self.decided_by == "confluence":
            return (f"exact: {CONFLUENCE} (here the lassos of up to K = {_plural(self.K, 'step')}: "
                    "the fewest a lasso has plus the delay bound, so that runs whose messages take their longest delay "
                    "are among them)")
        if self.exact and self.decided_by == "explorer":
            return ("exact, decided by the explorer's configuration graph (explore --eventual): every run, those that "
                    f"alternate between loops included; the lassos of K = {_plural(self.K, 'step')} alone could not "
                    "tell, since a run alternating between loops holds at each node only what all of them hold")
        if self.exact and self.decided_by == "choice-graph":
            return ("exact, decided by the choice runs' configuration graphs (explore --eventual --semantics choice): "
                    "configurations with debts, the messages received before their send; an over-approximation of "
                    "every choice run (a debt paid at any later step) has no ultimate output but the causal runs' "
                    f"(the lassos shown have K = {_plural(self.K, 'step')})")
        if self.exact and self.decided_by == "choice-over-certified":
            return ("exact: the choice run below is the witness of the over-approximation of every choice run, "
                    "certified: replayed with one arrival per message, every reception founded by a message that does "
                    "not depend on it, its loop repeating from a step where everything is founded (docs/semantics.md, "
                    "\"The over graph's witness, certified\")")
        if self.exact and self.decided_by == "latched":
            return ("exact: the bounded choice model shown begins an infinite choice run (its messages in flight arrive "
                    "within the delay bound, later ones after their send) that keeps what it gains, since each such "
                    "fact persists once derived")
        if self.exact and self.decided_by == "graph":
            return ("exact, decided by the explorer's configuration graph (explore --eventual): its strongly connected "
                    "parts give every infinite run's ultimate output, those that alternate between loops included "
                    f"(the lassos shown have K = {_plural(self.K, 'step')})")
        if self.exact and self.decided_by == "interleavings":
            return ("exact, decided by the explorer's configuration graph (explore --eventual), "
                    f"{INTERLEAVINGS} (the lassos shown have K = {_plural(self.K, 'step')})")
        if self.exact:
            steps, configurations = _plural(self.K, "step"), _plural(self.K, "distinct configuration")
            return (f"exact: lassos of up to K = {steps} cover every infinite run (K is the completeness "
                    f"threshold: no run passes more than {configurations} in a row)")
        if self.free_clocks is not None or self.decided_by == "choice-graph":  # no lassos' K in question
            return f"not exact: {self.reason}"
        return f"bounded, not exact: only the lassos of at most K = {_plural(self.K, 'step')} were asked ({self.reason})"

    def deepened(self, K: int, stopped: bool, found: bool = False) -> "Exactness":
        """Not exact, asked up to K by `deepen`: the reason says how far and why it stopped there (`found`: a
        counterexample at K)."""
        if self.free_clocks is not None:  # longer lassos are runs in rounds too: they cannot tell
            return self
        return replace(self, K=K, exact=False, reason=f"{self.reason}; {how_far(K, stopped, found)}")

    def as_dict(self) -> dict:
        return {"exact": self.exact, "K": self.K, "reason": self.reason or None,
                "decided_by": self.decided_by if self.exact else None,
                **({} if self.free_clocks is None else {"free_clocks": self.free_clocks})}


CONFLUENCE = ("the program is confluent by the Dedalus properties draft's criterion (see `check`), so "
              "every infinite run, causal or not, ends holding the same facts (jcss2014 §4.1.1's argument for "
              "Algorithm 2: what arrives, even before its send, is persisted), and any lasso shows its ultimate output")
"""Why a confluent program's eventual answer is exact (`models.confluent`), in words."""

INTERLEAVINGS = ("the runs whose nodes' clocks drift apart included: the fair asynchronous interleavings, an "
                 "over-approximation of every run, admit no other ultimate output")
"""Why an answer over the runs in rounds and those followed with free clocks is exact (`runs.interleavings`)."""


def _plural(n: int, noun: str) -> str:
    """"1 step", "5 steps"."""
    return f"{n} {noun}" + ("" if n == 1 else "s")


def lasso_bounds(bounds: Bounds, K: int) -> Bounds:
    """The bounds of the lassos with K steps: the eventual mode, horizon K - 1."""
    return replace(bounds, horizon=K - 1, mode=Mode.EVENTUAL)


def threshold(program: Program, instance: Instance, bounds: Bounds, max_k: int = MAX_K,
              timeout: float | None = None) -> Exactness:
    """The completeness threshold K of P on H under `bounds` (its network and semantics; `Mode.EVENTUAL`), found
    by the "loop-free path" programs of the lasso encoding (`questions.models.threshold`), or, when that search
    stops at `max_k` steps or at `timeout`, the largest K it tried, not exact, with the reason."""
    found = loop_free(program, instance, bounds, max_steps=max_k, timeout=timeout)
    return Exactness(found.steps, found.exact, found.reason)


def ultimate_rules(outputs: tuple[str, ...], arities: dict[str, int], locations=(), tuple_of=None) -> str:
    """`_output("R",(W1,..))` for every ultimate output fact of a lasso (jcss2014 §2.5.5: from some step on it holds
    at every step; on a lasso, at every step of the loop L..K-1), united over the nodes; `tuple_of(arity, column)`:
    the tuple of an output fact, a located relation's node in its location column (`cron.output_tuple`).

        _not_always(X,"R",(W..)) :- R(X,S0,W..), _loop(L), time(S), S >= L, not R(X,S,W..).
        _output("R",(W..)) :- R(X,S,W..), _loop(L), S >= L, not _not_always(X,"R",(W..)).
    """
    columns = dict(locations)
    lines = ["", "% the ultimate output facts of the lasso: those a node holds at every step of the loop L..K-1,",
             "% united over nodes (jcss2014 §2.5.5)"]
    for r in outputs:
        w = [f"W{i}" for i in range(1, arities[r] + 1)]
        row = f"({','.join(['X', *w])})" if w else "(X,)"
        at = lambda step: f"{relation_name(r)}({','.join(['X', step, *w])})"  # noqa: E731
        key = f'"{r}",{row}'
        lines.append(f"{NOT_ALWAYS}({key}) :- {at('S0')}, {LOOP}(L), time(S), S >= L, not {at('S')}.")
        lines.append(f'{OUTPUT}("{r}",{tuple_of(arities[r], columns.get(r))}) :- {at("S")}, {LOOP}(L), S >= L, '
                     f"not {NOT_ALWAYS}({key}).")
    return "\n".join(lines) + f"\n#show {OUTPUT}/2.\n"
