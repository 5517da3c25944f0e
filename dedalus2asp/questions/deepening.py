"""Never weaker than bounded: an eventual answer with no completeness threshold deepens its lassos.

Where no threshold K is known (`questions.eventual`: a program that computes new values, the choice semantics under
a delay bound, a search that stopped), the lassos of one K say nothing of the longer ones, and a bounded question
(`verify --eot K`, `cron --horizon`) may find what they miss. So `verify`, `cron` and `models --eventual` ask the
lassos of K + 1, K + 2, ... steps in turn, as `verify --search-horizon` grows its horizon, until a counterexample
(exact whatever K: a lasso is an infinite run), `MAX_K`, or the time limit, and report the deepest K reached
(`verify` then asks `verify --eot K` at that K too: `questions.verify.never_weaker`).
"""

from __future__ import annotations

import time
from typing import Callable, TypeVar

T = TypeVar("T")

MAX_K = 20
"""The longest lasso (in steps) the threshold search of `cron --eventual` and `verify --eventual` tries before it
answers bounded, and the deepest a bounded answer deepens to: the lasso programs grow with K, and the choice lassos
of Alg. 4 took 87 s at K = 24."""

DEEPEN_SECONDS = 5.0
"""How long a bounded eventual answer deepens its lassos when no time limit (`--timeout`) is given."""


def deepen(start: int, ask: Callable[[int, float], T | None], done: Callable[[T], bool], timeout: float | None,
           max_k: int = MAX_K) -> tuple[int, T | None, bool]:
    """Ask K = `start` + 1, `start` + 2, ... (`ask(K, seconds left)`, None when its time ran out) until an answer is
    `done` (a counterexample), K reaches `max_k`, or the time limit (`timeout`, else `DEEPEN_SECONDS`) stops it.
    A lasso program grows with K, so the next K takes at least as long as the last, and on Molly's protocols often
    several times as long: when less time is left than twice the last K took, it stops there rather than start what
    the limit would likely cut off (the time spent on it would be lost; the caller says the K reached). Returns the
    deepest K answered (`start` if none), its answer (None if none) and whether the time limit stopped it."""
    end = time.monotonic() + (DEEPEN_SECONDS if timeout is None else timeout)
    K, found, last = start, None, 0.0
    for k in range(start + 1, max_k + 1):
        began = time.monotonic()
        left = end - began
        answer = ask(k, left) if left > 2 * last else None
        if answer is None:
            return K, found, True
        K, found, last = k, answer, time.monotonic() - began
        if done(answer):
            break
    return K, found, False


def how_far(K: int, stopped: bool, found: bool = False) -> str:
    """How far `deepen` went, in words: "deepened to K = 20, the largest K it tries"."""
    why = "where it found a counterexample" if found else "where its time limit stopped it" if stopped else \
        "the largest K it tries"
    return f"deepened to K = {K}, {why}"
