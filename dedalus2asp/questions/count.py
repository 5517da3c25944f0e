"""Split enumeration: one enumeration cut into K disjoint parts, counted in turn or on Spark executors.

The parts are cubes of assumptions on trace atoms (atoms of sch(P)^LT,
tplp2016 §5.1.5) whose truth varies between models (brave minus cautious
consequences, earliest step first): two models in different parts differ on a
trace atom, so their traces differ too, and the parts' counts of models *and*
of distinct traces add up to the whole (splitting on arrival atoms would keep
models apart but not traces: two models with different arrivals may share a
trace). `count --split K` uses `split_count`.
"""

from __future__ import annotations

import itertools
import math
import threading
import time
import uuid
from dataclasses import replace
from typing import Callable

import clingo

from ..runs.session import spark_session
from ..asp import solve
from ..asp.transform import Compiled


def _varying(compiled: Compiled) -> list[str]:
    """The trace atoms (sch(P)^LT) true in some model and false in another, earliest step first."""
    found = {}
    for mode in ("brave", "cautious"):
        ctl = solve.control(compiled, [f"--enum-mode={mode}", "0"])
        last: list[clingo.Symbol] = []
        with ctl.solve(yield_=True) as handle:
            for model in handle:
                last = model.symbols(atoms=True)
        found[mode] = {s for s in last if s.name in compiled.relations and len(s.arguments) >= 2}
    varying = found["brave"] - found["cautious"]
    return [str(s) for s in sorted(varying, key=lambda s: (s.arguments[1], str(s)))]


def cubes(compiled: Compiled, parts: int) -> tuple[list[str], list[list[tuple[bool, ...]]]]:
    """The split atoms and, per part, its cubes (truth values of those atoms); the cubes of all parts partition."""
    if parts < 1:
        raise ValueError(f"the number of parts must be 1 or more, not {parts}")
    atoms = _varying(compiled)[: max(0, math.ceil(math.log2(parts)))] if parts > 1 else []
    every = list(itertools.product((True, False), repeat=len(atoms)))
    return atoms, [every[i::parts] for i in range(parts)]


def count_part(compiled: Compiled, atoms: list[str], part: list[tuple[bool, ...]], models: bool = True) -> dict:
    """Models (unless `models` is False) and distinct traces of the models that satisfy one of the cubes of `part`."""
    symbols = [clingo.parse_term(a) for a in atoms]
    result = {"models": 0 if models else None, "traces": 0, "cubes": len(part)}
    for key, project in (("models", False), ("traces", True))[0 if models else 1 :]:
        ctl = solve.control(compiled, ["0"], project=project, by_trace=project)
        for cube in part:
            counter = [0]

            def on_model(model: clingo.Model, counter=counter) -> None:
                counter[0] += 1

            ctl.solve(assumptions=list(zip(symbols, cube)), on_model=on_model)
            result[key] += counter[0]
    return result


def split_count(
    compiled: Compiled,
    parts: int,
    engine_name: str = "local",
    spark=None,
    master: str | None = None,
    models: bool = True,
    progress: Callable[[int], None] | None = None,
) -> dict:
    """Count models (unless `models` is False) and traces as `parts` disjoint enumerations (on Spark executors
    with engine "spark"). `progress(k)` is called as k parts are done (on Spark: polled every half second)."""
    start = time.perf_counter()
    atoms, split = cubes(compiled, parts)
    payload = replace(compiled, program=None)  # P holds clingo symbols, which do not pickle
    report = progress or (lambda done: None)
    if engine_name == "spark":
        session = spark if spark is not None else spark_session(master)
        rdd = session.sparkContext.parallelize(list(enumerate(split)), numSlices=parts).map(
            lambda item: (item[0], count_part(payload, atoms, item[1], models))
        )
        counts = [c for _, c in sorted(collect_watched(session, rdd, report, "count --split"))]
    else:
        counts = []
        for part in split:
            counts.append(count_part(payload, atoms, part, models))
            report(len(counts))
    return {
        "models": sum(c["models"] for c in counts) if models else None,
        "traces": sum(c["traces"] for c in counts),
        "complete": True,
        **compiled.bounds.as_dict(),
        "split": parts,
        "engine": engine_name,
        "split_atoms": atoms,
        "parts": counts,
        "seconds": round(time.perf_counter() - start, 4),
    }


def collect_watched(session, rdd, report: Callable[[int], None], description: str, every: float = 0.5) -> list:
    """`rdd.collect()` (one task per part) in a job group of its own (`description` names it in Spark),
    reporting its finished tasks as it goes (`count --split`, `verify --split`)."""
    context = session.sparkContext
    group = f"dedalus2asp-split-{uuid.uuid4().hex}"
    result: dict = {}

    def collect() -> None:
        context.setJobGroup(group, description)
        try:
            result["rows"] = rdd.collect()
        except BaseException as error:  # re-raised in the caller's thread
            result["error"] = error

    worker = threading.Thread(target=collect, daemon=True)
    worker.start()
    tracker = context.statusTracker()
    while worker.is_alive():
        worker.join(every)
        done = 0
        for job in tracker.getJobIdsForGroup(group):
            info = tracker.getJobInfo(job)
            for stage in info.stageIds if info else ():
                stage_info = tracker.getStageInfo(stage)
                done += stage_info.numCompletedTasks if stage_info else 0
        report(done)
    if "error" in result:
        raise result["error"]
    report(len(result["rows"]))
    return result["rows"]
