"""Why was the missing `post` fact of a counterexample expected? Its lineage in a run where it holds.

Molly (Alvaro, Rosen, Hellerstein, *Lineage-driven fault injection*, SIGMOD 2015, §3–4) explains a
violation by the provenance graph of the `post` fact in a run where it does hold: the rules,
facts and messages it was derived from, down to the input facts. A fault that breaks the invariant
must cut that graph — lose one of its messages, or crash one of its nodes before it sent one.

For each `pre` row of a counterexample without its `post` row, `expected` asks the fault-injected
program (`transform` within the SAME bounds: horizon, delivery, delay, loss window, crashes) for a
run in which that `post` row holds, chosen by two priorities:

    :- not _post_row((A1,..,Ak)).                    the missing row, now required
    #minimize { 1@2,... : an omission or a crash }   the fewest faults: the fault-free run when one holds it
    #minimize { 1@1,k : not m_k }                    then the closest to the counterexample: m_k is the
                                                     k-th message of its schedule (chosen_R(x,s,y,t,ā))

With the same bounds rather than `verify.fault_free_run` (one fault-free run, any schedule) because
the row must hold in the run chosen: a row of `pre` may exist only in some schedules, and a
fault-free run need not hold it; and because, under async delivery, the run closest to the
counterexample's schedule differs from it by the faults wherever it can, so that its lineage shows
what the faults took away. Under sync delivery a run is fixed by its faults: the run chosen is the
fault-free one whenever the row holds there.

The post fact is explained there (`explain.Lineage`), and each fact of its derivation is marked by
how it fared in the counterexample (`Mark`): whether it holds there too, what became of its
message (lost to an omission, lost because its sender had crashed, pending, arrived at another
step, never sent), and whether its node had crashed by its step. Provenance is positive, but a
rule may fail in the counterexample because a negated atom of its body holds there: such an atom
(absent in the expected run, present in the counterexample) is explained in the counterexample,
its facts marked by the expected run, and so on back and forth, each fact of each run once — so
2PC's coordinator that never decides leads, through `missing_vote`, to the lost `prepare`.

A lasso counterexample (`verify --eventual`) is explained the same way at the first loop step S where the row
lacks its post row (`Missing.step`): the expected run is a lasso of the same K steps in which `_post_row(R, S)`
holds (`verify.eventual_violation`). Its derivation reads the lasso's steps as a bounded run's: a fact carried
into the loop start L comes from step L-1 (the lasso program makes L-1 and K-1 carry the same facts), so the
tree ends in the prefix, and a message of the loop that arrives at a lasso step at or before its send (its
unrolled arrival lies in the next turn of the loop, `Message.wraps`) is shown as sent at its lasso step.

The values, `Mark` and `Expected` with their text and JSON, are `lineage_tree`'s. The text form is a compact
tree: a fact that holds in both runs is a leaf, so the tree stops at
the frontier the faults cut. `as_dict` gives the whole derivation as a graph (facts with ids,
premises by id, absent atoms pointing to their derivation in the other run), as runs.json and
`verify --json` carry it (docs/runs-schema.json); `formats.lineage` draws it in index.html.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import clingo

from ..asp.names import CRASHED, LOST, PENDING, SILENCED, omission_key
from ..asp.transform import transform
from ..bounds import Bounds
from ..lang.ast import GLOBAL_NODE, Instance, Program
from .lineage_tree import (COUNTEREXAMPLE, CRASH_FATE, EXPECTED, LOST_FATE, NOT_SENT, OTHER_STEP, PENDING_FATE, SAME,
                           Expected, Mark, other_run)
from .verdict import Counterexample, Crash, Lost, Missing, Verdict, send_key
from .verify import POST_ROW, VIOLATED, grounded, optimum, remaining, violation
from ..inspect.explain import ANY, ARRIVED, Derivation, Lineage
from ..inspect.model import Model, decode

# ---------------------------------------------------------------------------
# The run where the post row holds, and the marks


def _post_point(program: Program, post: str, row: tuple, horizon: int) -> tuple[clingo.Symbol, int, tuple]:
    """Where the post fact of `row` holds: the global node for a global relation, else the row's first column."""
    if post in program.global_relations():
        return GLOBAL_NODE, horizon, (post, tuple(row))
    return row[0], horizon, (post, tuple(row[1:]))


def _step(missing: Missing, bounds: Bounds) -> int:
    """The step at which the post row of `missing` was expected: the last step, or in a lasso counterexample (eventual
    mode) the first step of its loop at which the row lacks its post row (`Missing.step`)."""
    return bounds.horizon if missing.step is None else missing.step


def _closest(compiled, counterexample: Counterexample) -> str:
    """The fewest faults first (priority 2), then the fewest messages of the counterexample's schedule changed (1)."""
    crashes = compiled.bounds.network.crashes
    lines = ["", "% the lineage: the fewest faults, then the closest to the counterexample's schedule"]
    for chosen, relation in compiled.messages.items():
        w = [f"W{i}" for i in range(1, compiled.arities[relation] + 1)]
        lines.append(f'#minimize {{ 1@2,{omission_key(relation, w, compiled.bounds.network.by_channel)} : '
                     f'{chosen}({",".join(["X", "S", "Y", LOST, *w])})' + (f", not {SILENCED}(X,S)" if crashes else "") + " }.")
    if crashes:
        lines.append(f"#minimize {{ 1@2,{CRASHED},Y : {CRASHED}(Y,S) }}.")
    chosen_of = {relation: chosen for chosen, relation in compiled.messages.items()}
    for k, m in enumerate(counterexample.model.messages):
        arrival = PENDING if m.arrives is None else str(m.arrives if m.unrolled is None else m.unrolled)
        atom = clingo.Function(chosen_of[m.relation], [m.sender, clingo.Number(m.sent), m.addressee,
                                                        clingo.parse_term(arrival), *m.args])
        lines.append(f"#minimize {{ 1@1,{k} : not {atom} }}.")
    return "\n".join(lines) + "\n"


def _faults_of(model: Model) -> tuple[tuple[Lost, ...], tuple[Crash, ...]]:
    crashes = tuple(Crash(x, s) for x, s in sorted(model.crashes, key=str))
    lost = tuple(Lost(m.sender, m.sent, m.addressee, m.relation, m.args, model.crashed_by(m.sender, m.sent))
                 for m in sorted(model.lost, key=lambda m: str(m.key())))
    return lost, crashes


@dataclass(frozen=True)
class _Run:
    """What `_mark` looks up in the other run: its trace, its crashes, and each message's fate by its key."""

    trace: frozenset
    down: dict
    fates: dict  # send_key -> arrival step, None (pending) or LOST

    @classmethod
    def of(cls, model: Model) -> "_Run":
        fates = {send_key(m): m.arrives for m in model.messages}
        fates.update({send_key(m): LOST for m in model.lost})
        return cls(model.trace, dict(model.crashes), fates)

    def crash(self, node: clingo.Symbol, step: int) -> Crash | None:
        """The crash of `node` at a step <= `step` in this run, or None."""
        return Crash(node, self.down[node]) if node in self.down and self.down[node] <= step else None


def _mark(d: Derivation, other: _Run) -> Mark:
    """How the fact of `d` fared in the `other` run (see `Mark`)."""
    holds = (d.node, d.step, *d.fact) in other.trace
    fate = arrives = None
    node, step = d.node, d.step
    if d.reason.how == ARRIVED:
        m = d.reason.message
        node, step = m.sender, m.sent
        there = other.fates.get(send_key(m), NOT_SENT)
        if there == LOST:
            fate = CRASH_FATE if other.crash(m.sender, m.sent) is not None else LOST_FATE
        elif there == NOT_SENT:
            fate = NOT_SENT
        elif there is None:
            fate = PENDING_FATE
        elif there == m.arrives:
            fate = SAME
        else:
            fate, arrives = OTHER_STEP, there
    return Mark(holds, fate, arrives, other.crash(node, step))


def _holding(lineage: Lineage, at: tuple, atom: tuple) -> tuple[tuple, tuple] | None:
    """A fact matching the absent `atom` (`_` matches any value) that holds at `at` in the run of `lineage`,
    with its own point (at the global node, a node's fact is that node's), or None."""
    relation, args = atom
    for fact in sorted(lineage.facts(*at)):
        if fact[0] == relation and len(fact[1]) == len(args) and all(a == ANY or a == b for a, b in zip(args, fact[1])):
            if at[0] == GLOBAL_NODE and relation not in lineage.held_by_none:
                return (fact[1][0], at[1]), (relation, fact[1][1:])
            return at, fact
    return None


def _marks(root: Derivation, lineages: dict[str, Lineage]) -> tuple[dict, dict]:
    """The marks of every fact of the lineage, by (run, key), and the derivations in the other run of the
    absent atoms that hold there, by (run, key, atom) (see `Expected`)."""
    marks, contrary = {}, {}
    runs = {side: _Run.of(lineage.model) for side, lineage in lineages.items()}
    todo = [(EXPECTED, root)]
    while todo:
        side, d = todo.pop()
        if (side, d.key) in marks:
            continue
        other = lineages[other_run(side)]
        marks[(side, d.key)] = _mark(d, runs[other_run(side)])
        todo.extend((side, p) for p in d.premises)
        if marks[(side, d.key)].holds:
            continue  # a leaf of the lineage: what holds in both runs is no part of the difference
        for a in d.absent:
            found = _holding(other, d.at, a)
            if found is not None:
                blocked = other.derive(*found[0], found[1])
                contrary[(side, d.key, a)] = blocked
                todo.append((other_run(side), blocked))
    return marks, contrary


def expected(
    program: Program, instance: Instance, bounds: Bounds, counterexample: Counterexample,
    pre: str = "pre", post: str = "post", timeout: float | None = None,
) -> tuple[Expected, ...]:
    """For each missing row of `counterexample`, the run chosen in which its post fact holds and the post
    fact's derivation there, marked by the counterexample (see the module docstring). One grounding;
    one optimisation per missing row, the row an assumption; a row already explained by the run found
    for an earlier row reuses that run. `timeout` (seconds) bounds the optimisations: one stopped
    keeps the best run it found, or none (`Expected.stopped`)."""
    began = time.perf_counter()
    if timeout is not None and timeout <= 0:  # no time left: not even a grounding (clingo cannot stop one)
        return tuple(Expected(m, *_post_point(program, post, m.args, _step(m, bounds)), None, stopped=True)
                     for m in counterexample.missing)
    compiled = transform(program, instance, bounds)
    rules = violation(program, compiled, pre, post).replace(f":- not {VIOLATED}.", "")
    ctl = grounded(compiled.text + rules + _closest(compiled, counterexample))
    found: list[tuple[Model, Lineage]] = []
    result = []
    theirs = Lineage(counterexample.model, instance)
    for missing in counterexample.missing:
        node, step, fact = _post_point(program, post, missing.args, _step(missing, bounds))
        stopped = False
        where = next((f for f in found if (node, step, *fact) in f[0].trace), None)
        if where is None:
            at = [] if missing.step is None else [clingo.Number(step)]  # a lasso's row: _post_row(R, S)
            row = clingo.Function(POST_ROW, [clingo.Tuple_(missing.args), *at])
            left = remaining(timeout, began)
            best, complete = optimum(ctl, left, [(row, True)])
            stopped = not complete
            if best:
                model = decode(best[-1], compiled)
                where = (model, Lineage(model, instance))
                found.append(where)
        if where is None:
            result.append(Expected(missing, node, step, fact, None, stopped=stopped))
            continue
        model, lineage = where
        lost, crashes = _faults_of(model)
        try:
            derivation = lineage.derive(node, step, fact)
            marks, contrary = _marks(derivation, {EXPECTED: lineage, COUNTEREXAMPLE: theirs})
        except RecursionError:  # only a lasso's wrapping messages make a derivation cyclic
            if not model.is_lasso:
                raise
            result.append(Expected(missing, node, step, fact, model, lost, crashes, None, stopped=stopped,
                                   round_the_loop=True))
            continue
        result.append(Expected(missing, node, step, fact, model, lost, crashes, derivation, marks, contrary, stopped))
    return tuple(result)


SHARE_FACTOR = 3.0
SHARE_FLOOR = 1.0
"""The lineage's own share of time (`share`): SHARE_FACTOR times what the verdict took, at least SHARE_FLOOR
seconds. Its optimisation (the run closest to the counterexample) can take far longer than the verdict (3PC
at 7 nodes: 26 s against 0.35 s); stopped at its share, it keeps the closest run found so far."""


def share(verdict_seconds: float, left: float | None = None) -> float:
    """The seconds the lineage of a verdict that took `verdict_seconds` may take: its share (`SHARE_FACTOR`,
    `SHARE_FLOOR`), and no more than what `left` of a --timeout leaves."""
    own = max(SHARE_FLOOR, SHARE_FACTOR * verdict_seconds)
    return own if left is None else min(own, left)


def attach(
    verdict: Verdict, program: Program, instance: Instance, timeout: float | None = None
) -> Verdict:
    """The verdict with the lineage of each missing post fact in its counterexample (`Counterexample.lineage`);
    the verdict itself when it has no counterexample. The lineage grounds and solves a program like the
    verdict's: with a `timeout` shorter than the verdict took, it is not attempted (each entry `stopped`),
    so that a counterexample found is not lost to the deadline of its explanation. With --all's runs
    (`Verdict.witnesses`), runs.json shows the lineage on the counterexample's run; when none of them is
    the counterexample, the first (one with the fewest faults) gets its own lineage."""
    c = verdict.counterexample
    if c is None:
        return verdict
    if timeout is not None and timeout < verdict.seconds:
        timeout = 0.0
    began = time.perf_counter()
    lineage = expected(program, instance, verdict.bounds, c, verdict.pre, verdict.post, timeout)
    witnesses = verdict.witnesses
    if witnesses and c not in witnesses:  # --all found the fewest faults in another run: explain that run too
        left = remaining(timeout, began)
        first = replace(witnesses[0], lineage=expected(program, instance, verdict.bounds, witnesses[0], verdict.pre,
                                                       verdict.post, left))
        witnesses = (first, *witnesses[1:])
    return replace(verdict, counterexample=replace(c, lineage=lineage), witnesses=witnesses)
