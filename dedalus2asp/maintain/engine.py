"""What a maintenance engine implements, what it reports per burst, and the engine that recomputes.

An engine keeps the view of one program while bursts of updates come (psn2010 §3.1):

    engine.start(program, base)   # program: `ddlog.DDlogProgram` (its `.localized` rules are what runs);
                                  # base: Counter[Fact] → multiplicity, E; the view of E is computed
    stats = engine.apply(burst)   # `updates.Burst`; returns `BurstStats` once the system quiesces
    view = engine.view()          # `view.View`: facts with their counts (finite ones), infinite ones

`Recompute` is the reference: it recomputes the view of E ⊎ I ∖ D after every burst
(`view.recompute`, on the program as written). Its "updates" are the base updates of the burst, at the
node of each fact, and it sends no message.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Protocol

from .ddlog import DDlogProgram, Fact, ordered
from .updates import Base, Burst
from .view import View, changes, recompute


@dataclass
class BurstStats:
    """What one burst did: per relation the facts it inserted into and deleted from the view (as a set,
    the program's own relations), per node the updates processed (picked) and the messages sent (updates
    derived for another node), and its wall-clock seconds."""

    burst: int
    inserted: dict[str, int] = field(default_factory=dict)
    deleted: dict[str, int] = field(default_factory=dict)
    updates: dict[str, int] = field(default_factory=dict)
    messages: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    changes: tuple[list[Fact], list[Fact]] | None = field(default=None, repr=False)
    """The facts inserted into and deleted from the view (the program's own relations, sorted; `fill_changes`
    sets them); None if the engine leaves them to a comparison of its views before and after the burst."""

    def as_json(self) -> dict:
        return {"burst": self.burst, "inserted": self.inserted, "deleted": self.deleted, "updates": self.updates,
                "messages": self.messages, "seconds": round(self.seconds, 6)}


class Engine(Protocol):
    name: str

    def start(self, program: DDlogProgram, base: Counter) -> None: ...

    def apply(self, burst: Burst) -> BurstStats: ...

    def view(self) -> View: ...


def per_relation(facts: list[Fact]) -> dict[str, int]:
    """relation → how many of `facts`."""
    return dict(Counter(f.relation for f in facts))


def fill_changes(stats: BurstStats, program: DDlogProgram, inserted: list[Fact], deleted: list[Fact]) -> BurstStats:
    """`stats` with the facts the burst inserted and deleted, and their number per relation (auxiliary
    relations left out)."""
    inserted = ordered(f for f in inserted if f.relation not in program.auxiliary)
    deleted = ordered(f for f in deleted if f.relation not in program.auxiliary)
    stats.inserted, stats.deleted = per_relation(inserted), per_relation(deleted)
    stats.changes = (inserted, deleted)
    return stats


def symbol_name(node) -> str:
    """A node as a key of the JSON output (a string as itself, other values as written)."""
    return node.string if node.type.name == "String" else str(node)


def node_name(program: DDlogProgram, fact: Fact) -> str:
    """The node of `fact` as a key of the JSON output."""
    return symbol_name(program.node(fact))


class Recompute:
    """`--algorithm recompute`: the view of E ⊎ I ∖ D, recomputed from scratch after each burst."""

    name = "recompute"

    def start(self, program: DDlogProgram, base: Counter) -> None:
        self.program = program
        self.base = Base(base)
        self._view = recompute(program, self.base.facts)

    def apply(self, burst: Burst) -> BurstStats:
        started = time.perf_counter()
        before = self._view
        self.base.apply(burst)
        self._view = recompute(self.program, self.base.facts)
        stats = BurstStats(burst.number, updates=dict(Counter(node_name(self.program, u.fact) for u in burst.updates)))
        stats.seconds = time.perf_counter() - started
        return fill_changes(stats, self.program, *changes(before, self._view))

    def view(self) -> View:
        return self._view
