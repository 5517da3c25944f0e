"""A message of a model and the happens-before relation it makes (tplp2016 §5.2.1): `Message`, read from a
chosen_R atom by `model.decode` (sender and send step, addressee and arrival step or pending, and in a lasso its
unrolled arrival), and `closure`, the transitive closure of the local and message edges."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable

import clingo

from ..lang.ast import show_fact
from ..runs import operational


Point = tuple[clingo.Symbol, int]
"""A local step (x, s) of node x: a point of N × {0..T}."""

GroundFact = tuple[str, tuple[clingo.Symbol, ...]]
"""A fact R(a1..ak) as (R, (a1..ak)), as in `operational`."""


@dataclass(frozen=True)
class Message:
    """A message R(args) sent at step `sent` of `sender`, arriving at step `arrives` of `addressee` (None: pending).

    In a lasso model `unrolled` is the arrival step A on the unrolled infinite run (None in a bounded model), and
    `arrives` the lasso step pos(A): A when A <= T, else L + (A - L) mod P (loop start L, period P). A message
    sent in the loop (`sent` >= L) recurs every period and arrives at A, A+P, ...; it `wraps` when A > T."""

    sender: clingo.Symbol
    sent: int
    addressee: clingo.Symbol
    arrives: int | None
    relation: str
    args: tuple[clingo.Symbol, ...]
    unrolled: int | None = None

    @property
    def wraps(self) -> bool:
        return self.unrolled is not None and self.unrolled != self.arrives

    def key(self) -> tuple:
        """Send order first; pending messages after those that arrive."""
        return (self.sender, self.sent, self.addressee, self.arrives is None, self.arrives or 0, self.relation, self.args)

    @property
    def fact(self) -> str:
        return show_fact(self.relation, self.args)

    @property
    def send(self) -> Point:
        return (self.sender, self.sent)

    @property
    def arrival(self) -> Point | None:
        return None if self.arrives is None else (self.addressee, self.arrives)

    def delivery(self) -> operational.Delivery:
        """The message as `operational.replay` delivers it: (sender, send step, fact)."""
        return (self.sender, self.sent, (self.relation, self.args))

    def buffered(self) -> operational.Message:
        """The message as it sits in a buffer of the operational semantics."""
        return operational.Message(self.sender, self.sent, self.addressee, (self.relation, self.args))

    def as_dict(self) -> dict:
        return {
            "relation": self.relation,
            "args": [str(a) for a in self.args],
            "from": str(self.sender),
            "sent": self.sent,
            "to": str(self.addressee),
            "arrives": self.arrives,
            **({"unrolled": self.unrolled} if self.unrolled is not None else {}),
        }


def closure(edges: Iterable[tuple[Point, Point]]) -> frozenset[tuple[Point, Point]]:
    """The transitive closure of a set of edges (the third condition of tplp2016 §5.2.1)."""
    succ: dict[Point, set[Point]] = defaultdict(set)
    for a, b in edges:
        succ[a].add(b)
    pairs = set()
    for start in list(succ):
        seen: set[Point] = set()
        todo = list(succ[start])
        while todo:
            v = todo.pop()
            if v not in seen:
                seen.add(v)
                todo.extend(succ.get(v, ()))
        pairs.update((start, v) for v in seen)
    return frozenset(pairs)
