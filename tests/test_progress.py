"""The progress reporter of long commands (cli/progress.py): what it writes, and when."""

from __future__ import annotations

import io

from dedalus2asp.cli.progress import Progress, duration


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_into_a_pipe_a_line_every_few_seconds_and_the_last_state():
    out, clock = io.StringIO(), Clock()
    progress = Progress("batch", "job", 4, stream=out, terminal=False, every=5, clock=clock)
    clock.now = 1
    progress.update(1, failed=0)
    assert out.getvalue() == ""  # short work prints nothing
    clock.now = 6
    progress.update(2, failed=1)
    assert out.getvalue() == "batch: job 2 of 4, 1 failed, 6.0 s elapsed, ~6.0 s left\n"
    clock.now = 7
    progress.update(3)
    assert out.getvalue().count("\n") == 1  # not 5 s since the last line
    clock.now = 8
    progress.update(4)
    progress.close()
    progress.close()
    assert out.getvalue().splitlines()[-1] == "batch: job 4 of 4, 1 failed, 8.0 s elapsed"
    assert out.getvalue().count("\n") == 2


def test_short_work_into_a_pipe_prints_nothing_and_quiet_nothing_at_all():
    out, clock = io.StringIO(), Clock()
    with Progress("count", "part", 8, stream=out, terminal=False, clock=clock) as progress:
        progress.advance()
    assert out.getvalue() == ""
    with Progress("run", "step", 3, quiet=True, stream=out, terminal=True, clock=clock) as progress:
        clock.now = 100
        progress.update(2, rows=5)
        progress.note("a note")
    assert out.getvalue() == ""


def test_on_a_terminal_the_line_is_rewritten_in_place():
    out, clock = io.StringIO(), Clock()
    with Progress("run", "step", 10, stream=out, terminal=True, clock=clock) as progress:
        progress.update(1, rows=182016)
        clock.now = 0.05
        progress.update(2, rows=200000)  # within REFRESH: not shown
        clock.now = 2
        progress.update(3, rows=210000)
    text = out.getvalue()
    assert text.startswith("\rrun: step 1 of 10, 182,016 rows, 0.0 s elapsed")
    assert "step 2 of 10" not in text and "\rrun: step 3 of 10, 210,000 rows, 2.0 s elapsed, ~4.7 s left" in text
    assert text.endswith("\n") and text.count("\n") == 1


def test_durations_read_as_seconds_minutes_hours():
    assert [duration(s) for s in (3.04, 245, 3720)] == ["3.0 s", "4 min 05 s", "1 h 02 min"]


def test_into_a_pipe_the_last_state_is_not_written_twice():
    """`maintain` printed "burst 2 of 2, 23.9 s elapsed" twice into a pipe: its last update was due, and `close`
    wrote the same state again."""
    out, clock = io.StringIO(), Clock()
    progress = Progress("maintain", "burst", 2, stream=out, terminal=False, every=5, clock=clock)
    clock.now = 6
    progress.update(1)
    clock.now = 12
    progress.update(2)
    progress.close()
    assert out.getvalue().splitlines() == ["maintain: burst 1 of 2, 6.0 s elapsed, ~6.0 s left",
                                           "maintain: burst 2 of 2, 12.0 s elapsed"]
