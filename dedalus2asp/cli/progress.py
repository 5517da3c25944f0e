"""Progress of long work on standard error: steps of a run, parts of a split count, jobs of a batch.

One reporter for every long command, so they all read the same:

    run: step 4 of 10, 182,016 rows, 12.3 s elapsed, ~18.4 s left
    count: part 3 of 8, 3.1 s elapsed, ~5.2 s left
    batch: job 17 of 64, 1 failed, 40.2 s elapsed, ~1 min 51 s left

Interface (`Progress`):

* `Progress(label, unit, total, quiet=False)`: `label` names the command, `unit` the
  thing counted ("step", "part", "job"), `total` how many there are (None: unknown,
  then no estimate).
* `update(done, **counts)`: `done` units are finished; each keyword is a count shown
  after it as "VALUE NAME" in the order given (`rows=182016` → "182,016 rows",
  `failed=1` → "1 failed"). `advance(n=1, **counts)` is `update(done + n, ...)`.
* `close()` (or leaving a `with Progress(...)` block): the last state, on its own line.
* `note(text)`: a line of its own (e.g. "job j12 failed: ..."), unless quiet.

Where it goes: on a terminal the line is rewritten in place (at most 10 times a
second); into a pipe or a file (a batch log, a notebook, a test) a line at most
every `every` seconds (5 by default) and the last state at `close` if a line was
written before, so a short piece of work prints nothing. `quiet=True` (the
commands' `--quiet`, `QuietOpt`) prints nothing at all. The estimate of what is
left is the elapsed time per unit done times the units left.
"""

from __future__ import annotations

import sys
import time
from typing import Callable, TextIO

import typer

QuietOpt = typer.Option(False, "--quiet", "-q", help="No progress on standard error")

REFRESH = 0.1
"""Seconds between two rewrites of the line on a terminal."""


def duration(seconds: float) -> str:
    """A duration for a reader: `12.3 s`, `4 min 05 s`, `1 h 02 min`."""
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(int(round(seconds)), 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


class Progress:
    """Reports `done` of `total` units of `label` on standard error (see the module's docstring)."""

    def __init__(
        self,
        label: str,
        unit: str,
        total: int | None = None,
        quiet: bool = False,
        every: float = 5.0,
        stream: TextIO | None = None,
        terminal: bool | None = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.label, self.unit, self.total = label, unit, total
        self.quiet, self.every = quiet, every
        self.stream = stream if stream is not None else sys.stderr
        self.terminal = terminal if terminal is not None else _is_terminal(self.stream)
        self.clock = clock
        self.start = clock()
        self.done = 0
        self.counts: dict[str, int] = {}
        self._shown_at: float | None = None  # when a line was last written
        self._width = 0  # of the line on a terminal, to blank what a shorter one leaves
        self._closed = False
        self._last = ""  # the last line written

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def line(self) -> str:
        """The current state as one line (without a newline)."""
        parts = [f"{self.label}: {self.unit} {self.done}" + (f" of {self.total}" if self.total is not None else "")]
        parts += [f"{value:,} {name}" for name, value in self.counts.items()]
        elapsed = self.clock() - self.start
        parts.append(f"{duration(elapsed)} elapsed")
        if self.total is not None and 0 < self.done < self.total:
            parts.append(f"~{duration(elapsed / self.done * (self.total - self.done))} left")
        return ", ".join(parts)

    def update(self, done: int, **counts: int) -> None:
        """`done` units finished, with the current `counts`; shown if it is time to."""
        self.done = done
        self.counts.update(counts)
        if self.quiet:
            return
        now = self.clock()
        wait = REFRESH if self.terminal else self.every
        if self._shown_at is None and not self.terminal:
            due = now - self.start >= wait
        else:
            due = self._shown_at is None or now - self._shown_at >= wait
        if due:
            self._show(now)

    def advance(self, n: int = 1, **counts: int) -> None:
        self.update(self.done + n, **counts)

    def note(self, text: str) -> None:
        """A line of its own (a failure, a warning about the work), unless quiet."""
        if self.quiet:
            return
        if self.terminal and self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self._width = 0
            self._shown_at = None
        self.stream.write(text + "\n")
        self.stream.flush()

    def close(self) -> None:
        """The last state on its own line (into a pipe only if a line was written before, and not again when that
        line already says it)."""
        if self.quiet or self._closed or (self._shown_at is None and not self.terminal):
            return
        self._closed = True
        if self.terminal or self.line() != self._last:
            self._show(self.clock())
        if self.terminal:
            self.stream.write("\n")
            self.stream.flush()
        self._shown_at = None
        self._width = 0

    def _show(self, now: float) -> None:
        text = self._last = self.line()
        if self.terminal:
            self.stream.write("\r" + text + " " * max(0, self._width - len(text)))
            self._width = len(text)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()
        self._shown_at = now


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
