"""The geometry of the spacetime diagram (`svg`): where its lanes, ticks, arrows and labels go.

A **bundle** is the messages sent at one point to one addressee that arrive at one step
(or are all pending, or all lost): one arrow. The **layout** gives a lane's y and a step's
x; a bundle's **curve** is its arrow (a line, bent round the ticks it would cross; an arc
on one lane; a loop at its own step); its **label** sits at the first free spot along it
(`placement`), or every arrow gets a key number when one finds no room. `svg` writes the
document from these; nothing here writes SVG.

In a **lasso** model (eventual mode: steps L..T are the loop, and the step after T is step L
again) a message that arrives after T **wraps**: its arrow is the one it would have on the
unrolled run, to step A > T, cut where it leaves the loop's last column (half a step after T)
and each piece after a cut moved back by one period P, so that it leaves the loop on the right
and comes back in on the left to its loop step L + (A − L) mod P (`wrapped`).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Sequence

import clingo

from .placement import Box, Placer, candidates
from ..lang.ast import GLOBAL_NODE

if TYPE_CHECKING:
    from ..inspect.model import Message, Model, Point


STEP = 100
"""Width of one step, in pixels: the same at every horizon."""
LANE_GAP = 130
TOP = 74
LEFT = 100
"""The x of step 0 (more when a node's name is long)."""
NAME_CHARS = 16
BEYOND = 0.6 * STEP
"""How far after step T a pending arrow ends."""
FONT = 11
KEY_FONT = 10
LABEL_CHARS = 26
LOST_AT = 0.6
"""How far towards its addressee's next step a lost message's arrow goes before its cross."""


def short(text: str, width: int = LABEL_CHARS) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


# -- bundles ------------------------------------------------------------------


@dataclass(frozen=True)
class Bundle:
    """The messages sent at one point to one addressee that arrive at one step (or are all pending): one arrow."""

    send: Point
    addressee: clingo.Symbol
    arrives: int | None
    messages: tuple[Message, ...]
    noncausal: bool
    lost: bool = False
    silenced: bool = False
    """Lost because its sender had crashed (not an omission of its own)."""
    loop_step: int | None = None
    """In a lasso: the loop step a message that arrives after T (`arrives` is then its unrolled arrival,
    `Message.unrolled`) comes back in at, on the loop's next pass; None when it arrives within 0..T."""

    @property
    def wraps(self) -> bool:
        return self.loop_step is not None

    @property
    def pending(self) -> bool:
        return self.arrives is None and not self.lost

    def ends(self) -> str:
        """The arrow's ends as "x:s → y:t" (or "y, pending", "y, lost")."""
        where = (f"{self.addressee}, lost" if self.lost else f"{self.addressee}, pending" if self.pending
                 else f"{self.addressee}:{self.arrives}")
        if self.wraps:
            where += f" (= {self.addressee}:{self.loop_step}, the loop's next pass)"
        return f"{self.send[0]}:{self.send[1]} → {where}"

    def tooltip(self) -> str:
        count = "1 message" if len(self.messages) == 1 else f"{len(self.messages)} messages"
        note = "\ninto the past: its arrival happens before its send (non-causal)" if self.noncausal else ""
        if self.lost:
            why = "its sender had crashed" if self.silenced else "an omission"
            note = f"\nlost ({why}): it neither arrives nor is pending"
        return f"{count} {self.ends()}{note}\n" + "\n".join(m.fact for m in self.messages)


def bundles(model: Model) -> tuple[Bundle, ...]:
    """The model's messages grouped by (send point, addressee, arrival step, non-causal), in send order;
    then its lost messages, grouped by (send point, addressee). In a lasso, a bundle that arrives after T
    knows its loop step."""
    into_past = set(model.noncausal())
    groups: dict[tuple, list[Message]] = defaultdict(list)
    for m in model.messages:  # a message that wraps by its unrolled arrival: where its arrow heads
        groups[(m.send, m.addressee, m.unrolled if m.wraps else m.arrives, m in into_past)].append(m)
    return tuple(
        Bundle(send, addressee, arrives, tuple(ms), noncausal, loop_step=ms[0].arrives if ms[0].wraps else None)
        for (send, addressee, arrives, noncausal), ms in groups.items()
    ) + tuple(
        Bundle(send, addressee, None, tuple(ms), False, lost=True,
               silenced=model.crashed_by(*send))
        for (send, addressee), ms in _group_lost(model).items()
    )


def _group_lost(model: Model) -> dict[tuple, list[Message]]:
    groups: dict[tuple, list[Message]] = defaultdict(list)
    for m in model.lost:
        groups[(m.send, m.addressee)].append(m)
    return groups


# -- geometry -----------------------------------------------------------------


@dataclass(frozen=True)
class Layout:
    """Where things go: a lane's y, a step's x, and the size of the drawing area; for a lasso, where its
    loop starts, and a higher top (room for the back-arrow over the step numbers)."""

    lanes: dict
    horizon: int
    left: float = LEFT
    top: float = TOP
    loop_start: int | None = None

    @property
    def period(self) -> int | None:
        return None if self.loop_start is None else self.horizon + 1 - self.loop_start

    @property
    def loop_left(self) -> float:
        """The left edge of the loop's columns: half a step before step L."""
        return self.x(self.loop_start - 0.5)

    @property
    def loop_right(self) -> float:
        """The right edge of the loop's columns, where the run leaves step T for step L: half a step after T."""
        return self.x(self.horizon + 0.5)

    def x(self, step: float) -> float:
        return self.left + step * STEP

    @property
    def lane_end(self) -> float:
        return self.x(self.horizon) + BEYOND

    @property
    def bottom(self) -> float:
        return max(self.lanes.values(), default=TOP) + 62


def lane_owners(model: Model) -> list:
    """The lanes' owners: the nodes, then `GLOBAL_NODE` when some global fact holds (the facts of global
    relations, derived by global rules that read every node at one step: no node holds them)."""
    return list(model.network) + ([GLOBAL_NODE] if model.has_global else [])


def lane_name(x) -> str:
    return "global" if x == GLOBAL_NODE else short(str(x), NAME_CHARS)


LASSO_TOP = 30
"""How much lower a lasso's lanes and step numbers sit: the room of its back-arrow."""


def layout(model: Model) -> Layout:
    longest = max((len(lane_name(x)) for x in lane_owners(model)), default=0)
    top = TOP if model.loop_start is None else TOP + LASSO_TOP
    lanes = {x: top + 56 + i * LANE_GAP for i, x in enumerate(lane_owners(model))}
    return Layout(lanes, model.horizon, max(LEFT, 50 + 0.6 * 13 * longest), top, model.loop_start)


@dataclass(frozen=True)
class Curve:
    """A line (2 points), a quadratic (3) or a cubic Bézier curve (4 points)."""

    points: tuple[tuple[float, float], ...]

    @property
    def d(self) -> str:
        (x0, y0), *rest = self.points
        command = {1: "L", 2: "Q", 3: "C"}[len(rest)]
        return f"M{x0:.1f},{y0:.1f} {command}" + " ".join(f"{x:.1f},{y:.1f}" for x, y in rest)

    def at(self, t: float) -> tuple[float, float]:
        """The point at parameter t (de Casteljau)."""
        points = list(self.points)
        while len(points) > 1:
            points = [((1 - t) * a[0] + t * b[0], (1 - t) * a[1] + t * b[1]) for a, b in zip(points, points[1:])]
        return points[0]

    def split(self, t: float) -> tuple[Curve, Curve]:
        """The curve cut at parameter t into two curves of the same degree (de Casteljau)."""
        left, right, points = [self.points[0]], [self.points[-1]], list(self.points)
        while len(points) > 1:
            points = [((1 - t) * a[0] + t * b[0], (1 - t) * a[1] + t * b[1]) for a, b in zip(points, points[1:])]
            left.append(points[0])
            right.append(points[-1])
        return Curve(tuple(left)), Curve(tuple(reversed(right)))

    def shifted(self, dx: float) -> Curve:
        return Curve(tuple((x + dx, y) for x, y in self.points))

    def samples(self, spacing: float = 5) -> list[tuple[float, float]]:
        length = sum(math.dist(a, b) for a, b in zip(self.points, self.points[1:]))
        n = max(2, int(length / spacing))
        return [self.at(i / n) for i in range(n + 1)]


WRAP_LIFT = 26
"""How much higher than an ordinary arc on its lane the arc of a message that wraps runs: its piece coming
back in at the loop's left edge would otherwise lie on the arcs of the steps there."""


def curve(b: Bundle, geo: Layout, lift_more: float = 0) -> Curve:
    """The arrow of a bundle.

    Between lanes a straight line, bent when it would run through a tick of a lane it
    crosses; on one lane an arc above the lane forwards in time and below it backwards;
    a message arriving at its own send step is a loop above the lane. A lost message heads
    for its addressee's lane and stops on it `LOST_AT` of the way to its next step (where its cross
    goes, on that lane).
    """
    (x, s) = b.send
    x1, y1 = geo.x(s), geo.lanes[x]
    if b.lost:  # the cross sits on the addressee's own lane, so a lost a→c never reads as a message to b
        x2, y2 = geo.x(s + 1), geo.lanes[b.addressee]
        return Curve(((x1, y1), (x1 + LOST_AT * (x2 - x1), y2)))
    x2 = geo.lane_end if b.pending else geo.x(b.arrives)
    y2 = geo.lanes[b.addressee]
    if y1 == y2 and x1 == x2:
        return Curve(((x1, y1), (x1 - 46, y1 - 64), (x1 + 46, y1 - 64), (x2, y2)))
    if y1 == y2:
        span = min(abs(x2 - x1) / STEP, 6)
        lift = -(24 + 9 * span + lift_more) if x2 > x1 else 24 + 9 * span + lift_more
        return Curve(((x1, y1), (x1, y1 + lift), (x2, y2 + lift), (x2, y2)))
    if _crosses_a_tick(x1, y1, x2, y2, geo):
        return Curve(((x1, y1), ((x1 + x2) / 2 + 0.4 * STEP, (y1 + y2) / 2), (x2, y2)))
    return Curve(((x1, y1), (x2, y2)))


def wrapped(b: Bundle, geo: Layout) -> tuple[Curve, ...]:
    """The pieces of the arrow of a bundle that arrives after T in a lasso (`b.wraps`).

    Its curve on the unrolled run (from the send to step A > T, as `curve` draws it) is cut at every
    x where the unrolled run leaves the loop's last column, T + 1/2, T + 1/2 + P, ...; the k-th piece
    after a cut is moved back by k periods. The first piece leaves the loop on the right, the last
    comes in on the left and ends at the loop step L + (A − L) mod P, bowed (`_bent`) so that it does not lie on the
    arrow of the message sent one period earlier. The unrolled run has a tick at every step up to A, each of which
    lands on a tick of the loop once moved back: the arrow is bent round those too."""
    whole = curve(b, replace(geo, horizon=max(geo.horizon, b.arrives)), WRAP_LIFT)
    pieces, shift, edge = [], 0.0, geo.loop_right
    while whole.points[-1][0] > edge + 0.5:
        low, high = 0.0, 1.0  # the unrolled arrow runs rightwards: bisect for the cut
        for _ in range(40):
            mid = (low + high) / 2
            low, high = (mid, high) if whole.at(mid)[0] < edge else (low, mid)
        piece, whole = whole.split((low + high) / 2)
        pieces.append(piece.shifted(shift))
        shift -= geo.period * STEP
        edge += geo.period * STEP
    pieces.append(_bent(whole.shifted(shift)))
    return tuple(pieces)


REENTRY_BEND = 0.25
"""How far the piece of a wrapping arrow that comes back into the loop bows from its chord, per unit of length."""


def _bent(piece: Curve) -> Curve:
    """The piece that comes back in on the left, bowed: moved back by whole periods, a straight piece lies
    exactly on the arrow of the message sent one period earlier to the same loop step (under sync delivery
    there always is one), and its head would hide that arrow's head. Bowed to the right of its direction, it
    arrives at an angle of about 27° to it. An arc on one lane, lifted higher than the arcs there (`WRAP_LIFT`),
    still comes down onto its tick vertically, as they all do: its last control point is moved back by half the
    piece's width, so that it comes in aslant."""
    if len(piece.points) == 4:
        (x0, _), p1, (x2, y2), end = piece.points
        return Curve((piece.points[0], p1, (x2 - (end[0] - x0) / 2, y2), end))
    if len(piece.points) != 2:
        return piece  # a bend round a tick already leaves the straight arrows' paths
    (x0, y0), (x1, y1) = piece.points
    dx, dy = x1 - x0, y1 - y0
    length = math.hypot(dx, dy)
    if length < 1:
        return piece
    bow = REENTRY_BEND * length
    control = ((x0 + x1) / 2 - bow * dy / length, (y0 + y1) / 2 + bow * dx / length)
    return Curve(((x0, y0), control, (x1, y1)))


def _crosses_a_tick(x1: float, y1: float, x2: float, y2: float, geo: Layout) -> bool:
    low, high = sorted((y1, y2))
    for y in geo.lanes.values():
        if low < y < high:
            x = x1 + (x2 - x1) * (y - y1) / (y2 - y1)
            if any(abs(x - geo.x(s)) < 12 for s in range(geo.horizon + 1)):
                return True
    return False


# -- labels -------------------------------------------------------------------


ALONG = (0.5, 0.42, 0.58, 0.34, 0.66, 0.26, 0.74, 0.2, 0.8, 0.14, 0.86)
"""Where a label may sit along its arrow, from the middle outwards."""


def spots(c: Curve, width: float, height: float) -> list[Box]:
    """Boxes for a label along an arrow: centred on it, then nudged off it; above a loop, not inside it."""
    points = [c.at(t) for t in ALONG]
    if c.points[0] == c.points[-1]:
        return candidates(points, width, height, (-(height / 2 + 4), 0))
    return candidates(points, width, height, (0, -(height / 2 + 3), height / 2 + 3))


def label_text(b: Bundle) -> str:
    """What a bundle's label says when it fits: its fact(s), its count, "into the past"."""
    counts = Counter(m.fact for m in b.messages)  # "×2 A(), B()" would read as two A() and one B()
    text = ", ".join(fact if n == 1 else f"{fact} ×{n}" for fact, n in counts.items())
    if len(text) > LABEL_CHARS:
        first, n = next(iter(counts.items()))
        text = short(first, LABEL_CHARS - 8) + (f" ×{n}" if n > 1 else "")
        if len(counts) > 1:
            text = f"{short(first, 12)}{f' ×{n}' if n > 1 else ''} +{len(b.messages) - n} more"
    return f"into the past: {text}" if b.noncausal else text


def key_numbers(arrows: Sequence[tuple[Bundle, Curve]]) -> dict[int, int]:
    """The key number of each arrow that arrives, 1, 2, ... in send order (pending arrows have none)."""
    arriving = [i for i, (b, _) in enumerate(arrows) if not b.pending]
    return {i: number for number, i in enumerate(arriving, start=1)}


@dataclass(frozen=True)
class Label:
    """A placed label: its text, its box, and whether it is a key number (dense diagrams)."""

    text: str
    box: Box
    keyed: bool

    @property
    def centre(self) -> tuple[float, float]:
        return ((self.box[0] + self.box[2]) / 2, (self.box[1] + self.box[3]) / 2)


def place_labels(arrows: Sequence[tuple[Bundle, Curve]], placer: Placer) -> tuple[dict[int, Label], bool]:
    """Labels for the arrows that arrive: texts on their arrows when all fit, key numbers otherwise.

    Returns the label of each arrow index (an arrow without room for even a number has
    none: its key row and tooltip still name it) and whether the diagram is keyed.
    """
    order = sorted(
        (i for i, (b, _) in enumerate(arrows) if not b.pending),
        key=lambda i: math.dist(arrows[i][1].points[0], arrows[i][1].points[-1]),
    )
    saved = placer.snapshot()
    labels: dict[int, Label] = {}
    for i in order:
        text = label_text(arrows[i][0])
        width, height = 0.6 * FONT * len(text), 1.05 * FONT
        box = placer.place(spots(arrows[i][1], width, height), i, clean_only=True)
        if box is None:
            break
        labels[i] = Label(text, box, False)
    else:
        return labels, False
    placer.restore(saved)
    labels = {}
    numbers = key_numbers(arrows)
    for i in order:
        b = arrows[i][0]
        text = str(numbers[i]) if len(b.messages) == 1 else f"{numbers[i]} ×{len(b.messages)}"
        width, height = 0.6 * KEY_FONT * len(text) + 6, KEY_FONT + 5
        box = placer.place(spots(arrows[i][1], width, height), i)
        if box is not None:
            labels[i] = Label(text, box, True)
    return labels, True
