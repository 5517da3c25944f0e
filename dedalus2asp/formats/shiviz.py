"""Causal models as a ShiViz log (Beschastnikh et al., "Debugging distributed systems", CACM 2016).

ShiViz draws an execution from a text log in which every event carries its host and a
vector clock, a JSON object from host names to counters. A log file starts with the
regular expression that parses it and the one that separates executions; we write
ShiViz's default, one event per two lines:

    (?<event>.*)\\n(?<host>\\S*) (?<clock>{.*})

then one execution per model, each after a line `=== model K ===`.

An event is a point (x, s) of the model: node x performing its step s (tplp2016 §5.1),
with what it receives and sends there. Its clock V(x,s) counts, for every node y, the
points of y that happen before or at (x,s):

    V(x,s)[y] = 1 + max{t | (y,t) ≼ (x,s)}   (absent when there is none)

so V(x,s)[x] = s+1 (ShiViz wants each host's own counter to run 1, 2, 3, ...), and
V(e) < V(f) exactly when e ≺ f, the model's happens-before relation (§5.2.1): a
predecessor's points are all predecessors (≺ is transitive and contains the local
edges), and a point's own counter is above every predecessor's. This needs ≺ to be a
strict partial order: a model with a message into the past (`Model.noncausal`, a cycle
of ≺) has no vector clocks and is refused.

A lasso model (eventual mode) is logged over its steps 0..T, the prefix and one pass of
the loop; a message that arrives on the loop's next pass (`Message.wraps`) is no edge of
those steps, so its send says where it arrives and no event of this pass receives it.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from typing import TYPE_CHECKING, Iterable

if TYPE_CHECKING:
    from ..inspect.model import Model, Point

REGEX = r"(?<event>.*)\n(?<host>\S*) (?<clock>{.*})"
"""ShiViz's default log parsing regular expression (its named groups are written `(?<name>...)`)."""
DELIMITER = r"=== (?<trace>model \d+) ==="
"""The line between two executions; its `trace` group names the execution."""


def hosts(model: Model) -> dict:
    """Each node's host name: its name with whitespace as `_` (the regex reads a host as `\\S*`)."""
    names = {x: re.sub(r"\s", "_", str(x)) for x in model.network}
    if len(set(names.values())) < len(names):
        raise ValueError(f"model {model.number}: two nodes have the same ShiViz host name once spaces become '_'")
    return names


def clocks(model: Model) -> dict[Point, dict[str, int]]:
    """The vector clock of every point (x, s) (see the module docstring), without zero entries.

    Raises ValueError when the model sends messages into the past.
    """
    if model.noncausal():
        into_past = ", ".join(f"{m.fact} {m.sender}:{m.sent} → {m.addressee}:{m.arrives}" for m in model.noncausal())
        raise ValueError(
            f"model {model.number} sends messages into the past ({into_past}): its happens-before relation has a "
            "cycle, which no vector clocks can order"
        )
    name = hosts(model)
    latest: dict[Point, dict] = defaultdict(dict)
    for (y, t), (x, s) in model.happens_before:
        seen = latest[(x, s)]
        seen[name[y]] = max(seen.get(name[y], 0), t + 1)
    return {(x, s): {**latest[(x, s)], name[x]: s + 1} for x, s in model.points()}


def event(model: Model, point: Point) -> str:
    """What node x does at step s, on one line: the messages it receives and sends."""
    x, s = point
    received = [f"{m.fact} from {m.sender}:{m.sent}" for m in model.messages if m.arrival == point and not m.wraps]
    sent = [
        f"{m.fact} to {m.addressee} " + ("(pending)" if m.arrives is None else
                                         f"(arrives {m.addressee}:{m.unrolled} = {m.addressee}:{m.arrives}, the loop's next pass)"
                                         if m.wraps else f"(arrives {m.addressee}:{m.arrives})")
        for m in model.messages
        if m.send == point
    ]
    parts = ([f"receives {', '.join(received)}"] if received else []) + ([f"sends {', '.join(sent)}"] if sent else [])
    return f"{x}:{s} " + ("; ".join(parts) if parts else "local step")


def execution(model: Model) -> list[str]:
    """The model's events, two lines each, in a run order (a linear extension of ≺, tplp2016 §5.3.2)."""
    vectors, name = clocks(model), hosts(model)
    lines = []
    for point in model.linear_extension():
        lines += [event(model, point), f"{name[point[0]]} {json.dumps(vectors[point], sort_keys=True)}"]
    return lines


def shiviz_log(models: Iterable[Model]) -> str:
    """A ShiViz input file for causal models: the parsing regex, the delimiter, then one execution per model."""
    lines = [REGEX, DELIMITER]
    for model in models:
        lines += [f"=== model {model.number} ===", *execution(model)]
    return "\n".join(lines) + "\n"
