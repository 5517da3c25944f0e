"""Schedulers: the order in which PSN picks updates (psn2010 §3.3: any order, one update at a time).

Each node has a queue of the updates sent to it; a scheduler decides which node steps next and which
of its updates it picks, i.e. which pending update is picked next among all nodes'. Channels reorder
(psn2010 §3.1), so any choice is allowed; the view they end in is the same (Corollary 22):

* `fifo`: the update that has waited longest (FIFO channels, one global order of arrival);
* `reversed`: the newest update first (every channel reorders as much as it can);
* `random`: a pending update chosen uniformly, from a seeded generator;
* `adversarial`: insertions before deletions, newest first: a deletion waits as long as possible,
  so that insertions fire against facts that are about to go — the conflicting updates that
  psn2010 Lemmas 15–17 cancel out — and the most work is done.

A deletion that cannot be picked yet (its copy is not in K) is put aside by the engine and handed
back when the insertion it waits for is committed.
"""

from __future__ import annotations

import random
from collections import deque

SCHEDULES = ("fifo", "reversed", "random", "adversarial")


class Pool:
    """Pending updates, taken in the order of a schedule."""

    def __init__(self, schedule: str, seed: int = 0) -> None:
        if schedule not in SCHEDULES:
            raise ValueError(f"unknown schedule {schedule!r}: one of {', '.join(SCHEDULES)}")
        self.schedule = schedule
        self.random = random.Random(seed)
        self.items: deque | list = deque() if schedule == "fifo" else []
        self.deletions: list = []  # adversarial only: kept apart from the insertions

    def __len__(self) -> int:
        return len(self.items) + len(self.deletions)

    def add(self, item, deletion: bool = False) -> None:
        (self.deletions if deletion and self.schedule == "adversarial" else self.items).append(item)

    def take(self):
        if self.schedule == "fifo":
            return self.items.popleft()
        if self.schedule == "reversed":
            return self.items.pop()
        if self.schedule == "adversarial":
            return self.items.pop() if self.items else self.deletions.pop()
        i = self.random.randrange(len(self.items))
        self.items[i], self.items[-1] = self.items[-1], self.items[i]
        return self.items.pop()
