"""When a message of a run arrives: the schedule of the run engine.

In a run of the engine all nodes step together, and a message sent at step t
arrives at step t + d of its addressee:

* `sync`: d = 1, every message arrives at the addressee's next step;
* `random`: d in 1..D drawn from the SHA-256 of the message's identity and the
  seed, so that the same seed gives the same run on any back end and any
  partitioning.

Every arrival is later than its send in one global clock, so no message arrives
at a step that happens before its send: every such run is causal (tplp2016
§5.1.4).

A schedule may also name the faults of its run, as Molly's failure specification does
(docs/faults.md): `crashes`, the nodes that crash and the step of each, from which on their
messages to other nodes are lost; and `omissions`, the (sender, send step, addressee) channels
whose messages of that step are lost. `lost` says whether a message is; a back end drops such a
message instead of scheduling it. Under `fail_stop` (`--crash-model fail-stop`) a node that has crashed
(`down`) also holds nothing from its crash step on but the run's crash facts: it derives, carries and
sends nothing, and a message that arrives there is not received (`evaluator.execute`). `with_faults` draws them from the seed within a fault budget (the
bounds of `verify`: losses before step E, up to C crashes), so that `run --seed` picks one run of
the fault space and every back end computes that same run.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from typing import Sequence

SCHEDULES = ("sync", "random")


@dataclass(frozen=True)
class Schedule:
    """When a message arrives: `sync` at the next step, `random` 1..max_delay steps later by a seeded hash."""

    kind: str = "sync"
    max_delay: int = 1
    seed: int = 0
    crashes: tuple[tuple[str, int], ...] = ()  # (node, crash step)
    omissions: tuple[tuple[str, int, str], ...] = ()  # (sender, send step, addressee)
    fail_stop: bool = False  # a crashed node does nothing more (docs/faults.md), else Molly's clock rules

    def __post_init__(self):
        object.__setattr__(self, "crashes", tuple(sorted((str(x), int(s)) for x, s in self.crashes)))
        object.__setattr__(self, "omissions", tuple(sorted((str(x), int(s), str(y)) for x, s, y in self.omissions)))
        if len({x for x, _ in self.crashes}) != len(self.crashes):
            raise ValueError("a node crashes at most once: the crashes of a schedule name each node once")
        if any(s < 0 for _, s in self.crashes) or any(s < 0 for _, s, _ in self.omissions):
            raise ValueError("the steps of crashes and omissions are 0, 1, 2, ...")
        if self.kind not in SCHEDULES:
            raise ValueError(f"the schedule must be one of {', '.join(SCHEDULES)}, not {self.kind!r}")
        if self.max_delay < 1:
            raise ValueError(f"the delay bound of a schedule must be 1 or more, not {self.max_delay}")

    def lost(self, sender: str, sent: int, addressee: str) -> bool:
        """Whether the messages `sender` sends at step `sent` to `addressee` are lost: an omission on that
        channel at that step, or a sender crashed at or before `sent` (never a message to oneself)."""
        if sender == addressee:
            return False
        if any(x == sender and s <= sent for x, s in self.crashes):
            return True
        return (sender, sent, addressee) in self._omitted

    def down(self, step: int) -> tuple[str, ...]:
        """The nodes that do nothing at `step` under fail-stop crashes: those crashed at or before it (none under
        Molly's clock rules, where a crashed node keeps deducing and only its messages to others are lost)."""
        return tuple(x for x, s in self.crashes if s <= step) if self.fail_stop else ()

    @property
    def _omitted(self) -> frozenset[tuple[str, int, str]]:
        return frozenset(self.omissions)

    def with_faults(self, network: Sequence[str], steps: int, loss_until: int = 0, crashes: int = 0) -> Schedule:
        """This schedule with faults drawn from its seed within a budget: up to `crashes` crashes, and omissions
        on the channels (x, s, y), x != y, of the steps s < `loss_until` (docs/faults.md).

        The nodes are ordered by the SHA-256 of (seed, "crash", node); each of the first `crashes` crashes at
        step h mod (steps + 1) for h the hash of (seed, "crash step", node), where the step `steps` (after the
        run) means it does not crash. A channel is omitted when the hash of (seed, "omission", x, s, y) is even,
        unless its sender has crashed by then. The same seed, network and budget give the same faults."""
        def draw(*parts: object) -> int:
            text = "\x1f".join(map(str, (self.seed, *parts)))
            return int(hashlib.sha256(text.encode()).hexdigest()[:15], 16)

        nodes = sorted(map(str, network))
        chosen = sorted(nodes, key=lambda x: (draw("crash", x), x))[:crashes]
        crashed = {x: draw("crash step", x) % (steps + 1) for x in chosen}
        crashed = {x: s for x, s in crashed.items() if s < steps}
        omissions = [
            (x, s, y)
            for x in nodes for s in range(min(loss_until, steps)) for y in nodes
            if x != y and not (x in crashed and crashed[x] <= s) and draw("omission", x, s, y) % 2 == 0
        ]
        return replace(self, crashes=(*self.crashes, *crashed.items()), omissions=(*self.omissions, *omissions))

    def identity(self, relation: str, args: tuple[str, ...], sender: str, sent: int, addressee: str) -> str:
        """The string that is hashed: seed, relation, args, sender, send step, addressee."""
        return "\x1f".join((str(self.seed), relation, "\x1e".join(args), sender, str(sent), addressee))

    def delay(self, relation: str, args: tuple[str, ...], sender: str, sent: int, addressee: str) -> int:
        """1 for `sync`; for `random` 1 + (the first 60 bits of SHA-256 of the identity) mod max_delay."""
        if self.kind == "sync":
            return 1
        digest = hashlib.sha256(self.identity(relation, args, sender, sent, addressee).encode()).hexdigest()
        return 1 + int(digest[:15], 16) % self.max_delay
