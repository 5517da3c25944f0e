"""Placing labels without overlaps: the box a text covers, and a placer that hands out free spots.

A text of n characters at font size f is taken to be 0.6·f·n wide and f high
(0.8·f above its baseline, 0.25·f below): generous for Helvetica and Arial, so boxes
that do not overlap here do not overlap on screen. `Placer` keeps the boxes already
taken (ticks, names, labels) and the arrows' ink on a grid; a label goes to the first
candidate spot that is free, preferring one that no other arrow runs through.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Iterable, Sequence

Box = tuple[float, float, float, float]
"""(x0, y0, x1, y1): the rectangle a text or a mark covers."""


def text_box(x: float, y: float, text: str, size: float = 11, anchor: str = "middle") -> Box:
    """The box of `text` drawn at (x, y) with its baseline at y: 0.6 × size per character."""
    width = 0.6 * size * len(text)
    x0 = x - width / 2 if anchor == "middle" else x - width if anchor == "end" else x
    return (x0, y - 0.8 * size, x0 + width, y + 0.25 * size)


def overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def candidates(points: Sequence[tuple[float, float]], width: float, height: float,
               shifts: Sequence[float] = (0,)) -> list[Box]:
    """Boxes of the given size, with a margin, centred on each point, for each vertical shift in turn."""
    pad = 2.5
    return [
        (x - width / 2 - pad, y + dy - height / 2 - pad, x + width / 2 + pad, y + dy + height / 2 + pad)
        for dy in shifts
        for x, y in points
    ]


class Placer:
    """Boxes already taken, and the arrows' ink, on a grid; `place` takes the first free candidate.

    A free candidate that no other arrow runs through is preferred, so that a label is
    not read as another arrow's.
    """

    CELL = 40

    def __init__(self) -> None:
        self.boxes: dict[tuple[int, int], list[Box]] = defaultdict(list)
        self.ink: dict[tuple[int, int], list[tuple[float, float, int]]] = defaultdict(list)

    def _cells(self, box: Box) -> Iterable[tuple[int, int]]:
        for i in range(int(box[0] // self.CELL), int(box[2] // self.CELL) + 1):
            for j in range(int(box[1] // self.CELL), int(box[3] // self.CELL) + 1):
                yield (i, j)

    def snapshot(self) -> dict:
        """The boxes taken so far, to `restore` after a placement that is given up."""
        return {cell: list(boxes) for cell, boxes in self.boxes.items()}

    def restore(self, snapshot: dict) -> None:
        self.boxes = defaultdict(list, {cell: list(boxes) for cell, boxes in snapshot.items()})

    def block(self, box: Box) -> None:
        for cell in self._cells(box):
            self.boxes[cell].append(box)

    def add_ink(self, owner: int, points: Iterable[tuple[float, float]]) -> None:
        for x, y in points:
            self.ink[(int(x // self.CELL), int(y // self.CELL))].append((x, y, owner))

    def free(self, box: Box) -> bool:
        return not any(overlap(box, other) for cell in self._cells(box) for other in self.boxes[cell])

    def clean(self, box: Box, owner: int) -> bool:
        return not any(
            o != owner and box[0] <= x <= box[2] and box[1] <= y <= box[3]
            for cell in self._cells(box)
            for x, y, o in self.ink[cell]
        )

    def place(self, candidates: Iterable[Box], owner: int, clean_only: bool = False) -> Box | None:
        """The first free candidate no other arrow runs through, else (unless `clean_only`) the first free one."""
        free = [b for b in candidates if self.free(b)]
        chosen = next((b for b in free if self.clean(b, owner)), None if clean_only or not free else free[0])
        if chosen is not None:
            self.block(chosen)
        return chosen
