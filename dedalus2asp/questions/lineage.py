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

The text form is a compact tree: a fact that holds in both runs is a leaf, so the tree stops at
the frontier the faults cut. `as_dict` gives the whole derivation as a graph (facts with ids,
premises by id, absent atoms pointing to their derivation in the other run), as runs.json and
`verify --json` carry it (docs/runs-schema.json); `formats.lineage` draws it in index.html.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import clingo

from ..asp.names import CRASHED, LOST, PENDING, SILENCED, omission_key
from ..asp.transform import transform
from ..bounds import Bounds
from ..lang.ast import GLOBAL_NODE, Instance, Program
from .verdict import Counterexample, Crash, Lost, Missing, Verdict, fault_count, send_key
from .verify import POST_ROW, VIOLATED, grounded, optimum, violation
from ..inspect.explain import ANY, ARRIVED, CARRIED, FAULT, INPUT, Derivation, Lineage
from ..inspect.model import Model, decode, show_fact

SAME, LOST_FATE, CRASH_FATE, PENDING_FATE, OTHER_STEP, NOT_SENT = (
    "arrived", "lost", "lost-by-crash", "pending", "arrived-at-another-step", "not-sent"
)
"""What became of a message of one run in the other run."""

EXPECTED, COUNTEREXAMPLE = "expected", "counterexample"
"""The two runs a lineage reads: the one where the post fact holds, and the counterexample."""

RUN_NAMES = {EXPECTED: "the expected run", COUNTEREXAMPLE: "the counterexample"}


def _other(side: str) -> str:
    return COUNTEREXAMPLE if side == EXPECTED else EXPECTED


@dataclass(frozen=True)
class Mark:
    """How a fact of one run's derivation fared in the other run (for the expected run's facts: in the
    counterexample).

    `holds`: it holds at the same node and step there too. `message`: for a fact that arrived, what
    became of its message there (one of SAME .. NOT_SENT), and `arrives` its arrival step there when
    it arrived at another step. `crash`: its node (for an arrival, the sender) had crashed by its
    step (for an arrival, by the send step) there."""

    holds: bool
    message: str | None = None
    arrives: int | None = None
    crash: Crash | None = None

    def words(self, there: str = RUN_NAMES[COUNTEREXAMPLE]) -> str:
        """The mark in words; `there`: the name of the other run."""
        parts = []
        if self.message == LOST_FATE:
            parts.append(f"LOST in {there}")
        elif self.message == CRASH_FATE:
            parts.append(f"LOST in {there}: its sender " + (
                "had crashed" if self.crash is None else f"{self.crash.node} had CRASHED at step {self.crash.step}"))
        elif self.message == PENDING_FATE:
            parts.append(f"still pending at the horizon in {there}")
        elif self.message == OTHER_STEP:
            parts.append(f"arrives at step {self.arrives} in {there}")
        elif self.message == NOT_SENT:
            parts.append(f"never sent in {there}")
        if self.crash is not None and self.message not in (None, CRASH_FATE):
            parts.append(f"its sender {self.crash.node} had CRASHED at step {self.crash.step} in {there}")
        if self.crash is not None and self.message is None:  # a crashed node keeps its local state
            parts = [f"{'holds' if self.holds else 'missing'} in {there}, where {self.crash.node} "
                     f"had CRASHED at step {self.crash.step}"]
        elif not parts:
            parts.append(f"holds in {there} too" if self.holds else f"missing in {there}")
        elif not self.holds:
            parts.append("missing there")
        return "; ".join(parts)

    def as_dict(self) -> dict:
        return {"in_other_run": self.holds, "message_in_other_run": self.message, "arrives_in_other_run": self.arrives,
                "crashed_in_other_run": None if self.crash is None else self.crash.as_dict()}


@dataclass(frozen=True)
class Expected:
    """The lineage of one missing `post` row: the post fact R(ā) at (node, step), the run chosen in which
    it holds (None: no run within the bounds holds it), that run's faults, and the post fact's
    derivation there.

    The derivation's facts are marked by how they fared in the counterexample (`marks`, by (run,
    `Derivation.key`)). A negated body atom that is absent in the expected run but holds in the
    counterexample blocked the rule there: `contrary[(run, key, atom)]` is that fact's derivation in
    the counterexample, its facts marked by how they fared in the expected run, and so on back and
    forth (each fact of each run once): the why-not of the counterexample, down to what it lost."""

    missing: Missing
    node: clingo.Symbol
    step: int
    fact: tuple
    run: Model | None = field(compare=False, repr=False)
    lost: tuple[Lost, ...] = ()
    crashes: tuple[Crash, ...] = ()
    derivation: Derivation | None = field(default=None, compare=False, repr=False)
    marks: dict = field(default_factory=dict, compare=False, repr=False)
    contrary: dict = field(default_factory=dict, compare=False, repr=False)
    stopped: bool = False
    """The timeout stopped the search for a run holding the post fact: `run` is the best found, or None."""
    round_the_loop: bool = False
    """A lasso's derivation that goes round its loop (`Message.wraps`: a message of the loop arrives in the next
    turn at a lasso step at or before its send, whose premises lead back to the same fact): not drawn."""

    @property
    def faults(self) -> int:
        """Counted as the counterexample's faults are (`verdict.fault_count`): a cut channel is one fault."""
        return 0 if self.run is None else fault_count(self.lost, self.crashes, self.run.bounds.network)

    @property
    def where(self) -> str:
        return f"{_node(self.node)}:{self.step}"

    def run_words(self) -> str:
        lasso = self.missing.step is not None  # verify --eventual: the expected run is a lasso of the same K steps
        run, bounds = ("a lasso", "same K steps") if lasso else ("a run", "same bounds")
        if self.run is None:
            return (f"the timeout stopped the search for {run} where it holds" if self.stopped
                    else f"no {run[2:]} within the bounds holds it (nothing led to expect it)")
        stopped = " (stopped by the timeout: not proven the closest)" if self.stopped else ""
        if self.round_the_loop:
            stopped += ("; its derivation goes round the lasso's loop (a message of the loop arrives in the loop's next "
                        "turn and leads back to this fact), which a tree of the lasso's steps cannot draw")
        loop = "" if not lasso else f", its loop from step {self.run.loop_start}"
        if not self.faults:
            return f"it holds in {run} without faults ({bounds}{loop}, the schedule closest to the counterexample's){stopped}"
        faults = [f"lost {l}" for l in self.lost if not l.by_crash] + [f"crash of {c}" for c in self.crashes]
        return f"it holds in {run} with {self.faults} fault{'s' * (self.faults != 1)} ({'; '.join(faults)}{loop}){stopped}"

    def derivations(self) -> list[tuple[str, Derivation]]:
        """Every derivation of the lineage, the post fact's first, each (run, derivation) once."""
        if self.derivation is None:
            return []
        seen, order, todo = set(), [], [(EXPECTED, self.derivation)]
        while todo:
            side, d = todo.pop(0)
            if (side, d.key) in seen:
                continue
            seen.add((side, d.key))
            order.append((side, d))
            todo.extend((side, p) for p in d.premises)
            todo.extend((_other(side), self.contrary[(side, d.key, a)]) for a in d.absent if (side, d.key, a) in self.contrary)
        return order

    def tree(self, indent: str = "  ") -> tuple[list[str], dict]:
        """The compact tree, and the rules it names by number: a fact that also holds in the other run
        is a leaf; a chain of carry-overs of one fact is one line (`at b:1..4`); an absent atom that
        holds in the other run is followed by its derivation there."""
        head = (f"{indent}why {show_fact(*self.fact)} at {self.where} was expected: {self.run_words()}" if self.run is not None
                else f"{indent}no lineage for {show_fact(*self.fact)} at {self.where}: {self.run_words()}")
        lines, rules, shown = [head], {}, set()
        if self.derivation is None:
            return lines, rules

        def walk(side: str, d: Derivation, depth: int) -> None:
            top, mark = d, self.marks[(side, d.key)]
            while (d.reason.how == CARRIED and len(d.premises) == 1 and d.premises[0].fact == d.fact
                   and d.premises[0].node == d.node and self.marks[(side, d.premises[0].key)] == mark
                   and (side, d.premises[0].key) not in shown and (side, d.key) not in shown and not d.absent):
                shown.add((side, d.key))
                d = d.premises[0]
            pad = indent + "  " * (depth + 1)
            steps = f"{d.step}" if d is top else f"{d.step}..{top.step}"
            where = f"{show_fact(*d.fact)} at {_node(d.node)}:{steps}"
            if (side, d.key) in shown and d.premises:
                lines.append(f"{pad}{where}: (above)")
                return
            shown.add((side, d.key))
            for r in (d.rule, top.rule):
                if r is not None:
                    rules[r.number] = r
            carried = "" if d is top else f", carried over to step {top.step} by rule {top.rule.number}"
            lines.append(f"{pad}{where}: {_how(d)}{carried} — {mark.words(RUN_NAMES[_other(side)])}")
            if mark.holds:
                return
            for p in d.premises:
                walk(side, p, depth + 1)
            for a in d.absent:
                absent = f"{pad}  {show_fact(*a)} absent at {_node(d.at[0])}:{d.at[1]}"
                blocked = self.contrary.get((side, d.key, a))
                if blocked is None:
                    lines.append(absent)
                    continue
                lines.append(f"{absent} — but HOLDS in {RUN_NAMES[_other(side)]}, so the rule does not fire there:")
                walk(_other(side), blocked, depth + 2)

        walk(EXPECTED, self.derivation, 0)
        return lines, rules

    def as_dict(self) -> dict:
        """The missing row, the post fact, the run chosen and the derivation as a graph: `facts`, each with an
        `id`, its run, its point, how it holds, its rule, its message, its premises (ids), its absent
        facts (`because`: the id of an absent fact's derivation in the other run, where it holds) and
        how it fared in the other run; `root` is the post fact's id (null: no run holds it)."""
        order = self.derivations()
        ids = {(side, d.key): k for k, (side, d) in enumerate(order)}
        facts = [_vertex(side, d, ids, self.marks[(side, d.key)], self.contrary) for side, d in order]
        return {
            "missing": self.missing.as_dict(),
            "post": {"node": _json_node(self.node), "step": self.step,
                     "relation": self.fact[0], "args": [str(a) for a in self.fact[1]]},
            "run": None if self.run is None else {
                "faults": self.faults, "lost": [l.as_dict() for l in self.lost], "crashes": [c.as_dict() for c in self.crashes],
            },
            "root": 0 if facts else None,
            "facts": facts,
            "stopped": self.stopped,
            **({"round_the_loop": True} if self.round_the_loop else {}),
        }


def _node(node: clingo.Symbol) -> str:
    return "global" if node == GLOBAL_NODE else str(node)


def _json_node(node: clingo.Symbol) -> str | None:
    """A node as runs.json writes it: null for the global node."""
    return None if node == GLOBAL_NODE else str(node)


def _how(d: Derivation) -> str:
    by = "" if d.rule is None else f" by rule {d.rule.number}"
    if d.reason.how == INPUT:
        return "input fact"
    if d.reason.how == FAULT:
        return "a fault of the run (a crash)"
    if d.reason.how == ARRIVED:
        m = d.reason.message
        return f"message from {m.sender}, sent at step {m.sent}{by}"
    if d.reason.how == CARRIED:
        return f"carried over from step {d.step - 1}{by}"
    return f"deduced{by}"


def _vertex(side: str, d: Derivation, ids: dict, mark: Mark, contrary: dict) -> dict:
    m = d.reason.message
    absent = []
    for a in d.absent:
        blocked = contrary.get((side, d.key, a))
        absent.append({"fact": show_fact(*a), "node": _json_node(d.at[0]), "step": d.at[1],
                       "in_other_run": blocked is not None,
                       "because": None if blocked is None else ids[(_other(side), blocked.key)]})
    return {
        "id": ids[(side, d.key)],
        "run": side,
        "fact": show_fact(*d.fact), "relation": d.fact[0], "args": [str(a) for a in d.fact[1]],
        "node": _json_node(d.node), "step": d.step,
        "how": d.reason.how,
        "rule": None if d.rule is None else str(d.rule), "rule_number": None if d.rule is None else d.rule.number,
        "message": None if m is None else {"from": str(m.sender), "sent": m.sent, "to": str(m.addressee), "arrives": m.arrives},
        "premises": [ids[(side, p.key)] for p in d.premises],
        "absent": absent,
        **mark.as_dict(),
    }


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
        other = lineages[_other(side)]
        marks[(side, d.key)] = _mark(d, runs[_other(side)])
        todo.extend((side, p) for p in d.premises)
        if marks[(side, d.key)].holds:
            continue  # a leaf of the lineage: what holds in both runs is no part of the difference
        for a in d.absent:
            found = _holding(other, d.at, a)
            if found is not None:
                blocked = other.derive(*found[0], found[1])
                contrary[(side, d.key, a)] = blocked
                todo.append((_other(side), blocked))
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
            left = None if timeout is None else max(timeout - (time.perf_counter() - began), 0.0)
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
        left = None if timeout is None else max(timeout - (time.perf_counter() - began), 0.0)
        first = replace(witnesses[0], lineage=expected(program, instance, verdict.bounds, witnesses[0], verdict.pre,
                                                       verdict.post, left))
        witnesses = (first, *witnesses[1:])
    return replace(verdict, counterexample=replace(c, lineage=lineage), witnesses=witnesses)
