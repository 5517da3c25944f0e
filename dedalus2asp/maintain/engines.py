"""Which engine `maintain --engine E --algorithm A` runs.

* `psn` (default): psn2010's Algorithm 1 with Fig. 2's cycle detection (`pipelined.PSNEngine`);
* `recompute`: the view recomputed from scratch after each burst (`engine.Recompute`);
* `dred`: delete, re-derive, insert (Gupta, Mumick, Subrahmanian 1993), set semantics (`dred.DRed`);
* `eager-discard`: PSN that discards a deletion finding nothing to delete instead of letting it wait,
  as Liu et al. (ICDE 2009) do; correct only over FIFO channels (psn2010's last section), kept to
  show the failure (`--schedule reversed --check`).

`--engine spark` is the Spark engine of `spark` (synchronous semi-naive evaluation, psn2010
Algorithm 2, as joins), when that module is present; it also runs `dred` (DRed on sets for recursive
components, Gupta, Mumick, Subrahmanian 1993).
"""

from __future__ import annotations

from typing import Callable

from .dred import DRed
from .engine import Engine, Recompute
from .pipelined import PSNEngine

ALGORITHMS = ("psn", "recompute", "dred", "eager-discard")
ENGINES = ("local", "spark")


def make(engine: str, algorithm: str, schedule: str = "fifo", seed: int = 0,
         progress: Callable[[int, int], None] | None = None, **spark_options) -> Engine:
    """The engine for the options; ValueError with the reason for a combination that does not exist."""
    if engine not in ENGINES:
        raise ValueError(f"--engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    if algorithm not in ALGORITHMS:
        raise ValueError(f"--algorithm must be one of {', '.join(ALGORITHMS)}, not {algorithm!r}")
    if engine == "spark":
        try:
            from . import spark
        except ImportError:
            raise ValueError("the Spark engine of maintain is not part of this installation (dedalus2asp/maintain/spark.py)") from None
        return spark.make(algorithm, schedule=schedule, seed=seed, progress=progress, **spark_options)
    if algorithm == "recompute":
        return Recompute()
    if algorithm == "dred":
        return DRed()
    return PSNEngine(schedule, seed, eager=algorithm == "eager-discard", progress=progress)
