"""The PSN engine: Algorithm 1 (`psn.PSN`) run to quiescence after each burst, in a scheduler's order.

Each node has a queue (`schedule.Pool` holds them all, and picks in the schedule's order). A burst's
base updates enter the queue of the node that holds each fact; every update a pick derives for a fact
held elsewhere is a message to that node. A deletion that cannot be picked yet waits aside until the
insertion it deletes is committed; if only such deletions are left, PSN is stuck, which Corollary 22
rules out (the engine says so rather than hang). The view of E is built the same way: the insertion
of every base fact, run to quiescence.
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Callable

from .ddlog import DDlogProgram
from .engine import BurstStats, fill_changes, symbol_name as _name
from .join import collector_paused, interned
from .psn import DEL, INS, PSN, Annotated, Pick, PUpdate, base_updates
from .schedule import Pool
from .updates import Burst
from .view import View


class Stuck(RuntimeError):
    """Deletions wait for insertions that will never come (impossible for PSN: Corollary 22)."""


class PSNEngine:
    """`--algorithm psn` (and, with `eager`, the FIFO-only eager discard of deletions)."""

    name = "psn"

    def __init__(self, schedule: str = "fifo", seed: int = 0, eager: bool = False,
                 progress: Callable[[int, int], None] | None = None, trace: list | None = None) -> None:
        self.schedule, self.seed, self.eager = schedule, seed, eager
        self.progress = progress
        self.trace = trace  # if a list: every pick of the bursts (not of the view of E) is appended, a `psn.Pick`
        self.symbols: dict = {}  # the values of the facts that entered, each once (`join.interned`)

    def start(self, program: DDlogProgram, base: Counter) -> None:
        self.program = program
        self.psn = PSN(program, self.eager)
        self.pool = Pool(self.schedule, self.seed)
        with collector_paused():
            base = Counter({interned(f, self.symbols): n for f, n in base.items()})
            self.initial = self._run(0, base_updates(INS, base))

    def apply(self, burst: Burst) -> BurstStats:
        """The burst run to quiescence; what it inserted into and deleted from the view are the facts whose
        copies went from none to some, or from some to none (`PSN.touched`): work of the burst's size."""
        self.psn.touched = {}
        with collector_paused():
            updates = [PUpdate(u.op, Annotated(interned(u.fact, self.symbols))) for u in burst.updates]
            stats = self._run(burst.number, updates)
            now = {f: bool(self.psn.copies(f)) for f in self.psn.touched}
            return fill_changes(stats, self.program, [f for f, had in self.psn.touched.items() if not had and now[f]],
                                [f for f, had in self.psn.touched.items() if had and not now[f]])

    def view(self) -> View:
        return self.psn.view()

    def _run(self, number: int, updates: list[PUpdate]) -> BurstStats:
        started = time.perf_counter()
        stats = BurstStats(number)
        waiting: dict = {}
        picked: dict = {}  # node → picks there
        messages: dict = {}  # node → updates it derived for another node
        psn, pool, program = self.psn, self.pool, self.program
        for u in updates:
            pool.add(u, u.op == DEL)
        picks = 0
        while pool:
            u = pool.take()
            pickable = psn.pickable(u)
            if not pickable and not self.eager:
                key = u.item.picked()
                waiting.setdefault((key.fact, key.S, key.H), []).append(u)
                continue
            node = program.node(u.item.fact)
            derived = psn.iterate(u) if pickable else []  # under eager, an unpickable deletion is discarded
            picked[node] = picked.get(node, 0) + 1
            for d in derived:
                to = program.node(d.item.fact)
                if to is not node and to != node:  # (the values are interned: mostly the same object)
                    messages[node] = messages.get(node, 0) + 1
                pool.add(d, d.op == DEL)
            if self.trace is not None and number:
                self.trace.append(Pick(node, u, tuple(derived), discarded=not pickable))
            if u.op == INS and waiting:
                item = u.item.picked()
                for w in waiting.pop((item.fact, item.S, item.H), ()):
                    pool.add(w, True)
            picks += 1
            if self.progress is not None and picks % 10_000 == 0:
                self.progress(picks, len(pool))
        if waiting:
            raise Stuck(f"PSN is stuck: {sum(map(len, waiting.values()))} deletion(s) wait for insertions that never come")
        stats.updates = {_name(n): k for n, k in picked.items()}
        stats.messages = {_name(n): k for n, k in messages.items()}
        stats.seconds = time.perf_counter() - started
        return stats
