"""`--check`: psn2010 Definition 8 after every burst.

A maintainer is correct on a burst when its view equals the view recomputed from E ⊎ I ∖ D
(`view.recompute`, from the program as written, not its localization): the same facts, and the
same count for every fact whose count is finite (and the same facts infinite).
"""

from __future__ import annotations

from collections import Counter

from .ddlog import DDlogProgram
from .view import Difference, View, difference, recompute


def definition8(maintained: View, program: DDlogProgram, base: Counter) -> Difference:
    """How `maintained` differs from the view of `base` (empty when Definition 8 holds)."""
    return difference(maintained.shown(program), recompute(program, base))
