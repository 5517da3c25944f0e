"""The lineage of a missing `post` row as a value (`questions.lineage` finds it): `Mark`, how a fact of one run's
derivation fared in the other run (held there, its message lost, lost by a crash, pending, arrived at another
step, never sent; its node crashed), and `Expected`, the post fact, the run chosen in which it holds, that run's
faults and the derivation, with its compact text tree and its JSON graph (docs/runs-schema.json)."""

from __future__ import annotations

from dataclasses import dataclass, field

import clingo

from ..lang.ast import GLOBAL_NODE
from .verdict import Crash, Lost, Missing, fault_count
from ..inspect.explain import ARRIVED, CARRIED, FAULT, INPUT, Derivation
from ..inspect.model import Model, show_fact


SAME, LOST_FATE, CRASH_FATE, PENDING_FATE, OTHER_STEP, NOT_SENT = (
    "arrived", "lost", "lost-by-crash", "pending", "arrived-at-another-step", "not-sent"
)
"""What became of a message of one run in the other run."""

EXPECTED, COUNTEREXAMPLE = "expected", "counterexample"
"""The two runs a lineage reads: the one where the post fact holds, and the counterexample."""

RUN_NAMES = {EXPECTED: "the expected run", COUNTEREXAMPLE: "the counterexample"}


def other_run(side: str) -> str:
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
            todo.extend((other_run(side), self.contrary[(side, d.key, a)]) for a in d.absent if (side, d.key, a) in self.contrary)
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
            lines.append(f"{pad}{where}: {_how(d)}{carried} — {mark.words(RUN_NAMES[other_run(side)])}")
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
                lines.append(f"{absent} — but HOLDS in {RUN_NAMES[other_run(side)]}, so the rule does not fire there:")
                walk(other_run(side), blocked, depth + 2)

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
                       "because": None if blocked is None else ids[(other_run(side), blocked.key)]})
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
