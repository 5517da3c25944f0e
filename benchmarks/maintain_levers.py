"""The Spark maintainer's per-round levers, side by side in one process: a view of psn2010's routing table built
once per partition count, the same burst maintained from it again and again (the view restored between runs),
with some of `SparkMaintainer`'s levers (`LEVERS`) on, on `spark.sql.shuffle.partitions` parts.

    python benchmarks/maintain_levers.py --edges 10000 --algorithm psn --runs 2:all 2:all-late_key 2:all:8 --repeat 2
    python benchmarks/maintain_levers.py --edges 100000 --algorithm psn --runs 2:all 2:base --repeat 2 --recompute

A run is PARTITIONS:LEVERS[:ROUNDS], LEVERS one of "all", "base" (none), "all-A-B" (all but A and B) or "A+B" (only
A and B), ROUNDS the most rounds a job computes (`SparkMaintainer.batch`, default `ROUNDS`). The graph and burst are benchmarks/maintain.py's (the same seed: its first burst). Each run prints the burst's
wall and the driver JVM's CPU seconds, rounds, jobs, stages and tasks, the reachable facts after it (the same in
every run) and the seconds of each phase and of each job (with --recompute, those of recomputing the view after
the burst with the same levers: psn from an empty view, the fair baseline); the runs go to --out as JSON as they finish, with the
load average.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import maintain as B  # noqa: E402

from dedalus2asp.maintain import Base, read_program  # noqa: E402
from dedalus2asp.maintain.spark import ROUNDS, SparkMaintainer, patterns  # noqa: E402

LEVERS = ("memo", "late_key")
"""`SparkMaintainer`'s class attributes that switch a lever on (True) or off."""


def levers(variant: str) -> dict[str, bool]:
    """The levers a run's LEVERS names on (module docstring)."""
    if variant == "base":
        return dict.fromkeys(LEVERS, False)
    if variant.startswith("all"):
        off = set(variant.split("-")[1:])
        return {lever: lever not in off for lever in LEVERS}
    on = set(variant.split("+"))
    if on - set(LEVERS):
        raise SystemExit(f"unknown lever(s) {', '.join(sorted(on - set(LEVERS)))}: {', '.join(LEVERS)}")
    return {lever: lever in on for lever in LEVERS}


def work(m: SparkMaintainer, burst: int, seen: set[int]) -> tuple[int, int, int]:
    """The jobs, stages and tasks of the jobs of `m`'s burst `burst` not in `seen` (a burst repeated has the same job group)."""
    tracker = m.spark.sparkContext.statusTracker()
    infos = [tracker.getJobInfo(j) for j in tracker.getJobIdsForGroup(f"{m.jobs.prefix}-{burst}") if j not in seen]
    stages = [tracker.getStageInfo(s) for info in infos if info is not None for s in info.stageIds]
    return len(infos), len(stages), sum(s.numTasks for s in stages if s is not None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--edges", type=int, default=100000)
    parser.add_argument("--burst", type=float, default=0.01, help="the burst's size, a fraction of E")
    parser.add_argument("--recompute", action="store_true", help="also recompute the view after the burst in each run")
    parser.add_argument("--algorithm", default="dred")
    parser.add_argument("--runs", nargs="+", default=["2:base", "2:all"], help="PARTITIONS:LEVERS, in this order")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--out", type=Path, default=B.ROOT / "benchmarks" / "maintain-levers.json")
    args = parser.parse_args()
    from dedalus2asp.runs.session import spark_session

    program = read_program(B.PROGRAM)
    rng = random.Random(args.edges)
    links = B.graph(args.edges, rng)
    burst = B.burst(links, args.burst, rng, args.edges)
    signed = Counter()
    for u in burst.updates:
        signed[u.fact] += 1 if u.op == "+" else -1
    session = spark_session("local[2]")
    print(f"load {os.getloadavg()[0]:.1f}", flush=True)
    views = {}
    for parts in sorted({int(run.split(":")[0]) for run in args.runs}):  # a view per partition count
        session.conf.set("spark.sql.shuffle.partitions", str(parts))
        m = SparkMaintainer(session, patterns(program), program.arities, program.columns, args.algorithm, shown=program.relations)
        built, _ = B.seconds(lambda: m.apply({"link": m.frame("link", B.rows(links))}))
        print(f"partitions {parts}: view built in {built:.1f} s, load {os.getloadavg()[0]:.1f}", flush=True)
        views[parts] = (m, dict(m.view), dict(m.stored), m.bursts)  # the view and how it is stored
    after = Base(links)
    after.apply(burst)
    out = []
    for _ in range(args.repeat):
        for run in args.runs:
            parts, variant, *batch = run.split(":")
            SparkMaintainer.batch = int(batch[0]) if batch else ROUNDS
            session.conf.set("spark.sql.shuffle.partitions", parts)
            m, view, stored, bursts = views[int(parts)]
            for lever, on in levers(variant).items():
                setattr(SparkMaintainer, lever, on)
            m.view, m.stored, m.bursts = dict(view), dict(stored), bursts
            seen = set(session.sparkContext.statusTracker().getJobIdsForGroup(f"{m.jobs.prefix}-{bursts}"))
            cpu = B.jvm_seconds(session)
            wall, totals = B.seconds(lambda: m.apply({"link": m.frame("link", B.rows(signed))}, len(signed)))
            cpu = B.jvm_seconds(session) - cpu
            jobs, stages, tasks = work(m, bursts, seen)
            size = m.facts("reachable").count()
            recomputed = None
            if args.recompute:
                r = SparkMaintainer(session, patterns(program), program.arities, program.columns, "psn", shown=program.relations)
                recomputed, _ = B.seconds(lambda: r.apply({"link": r.frame("link", B.rows(after.facts))}))
                assert r.facts("reachable").count() == size, "maintenance differs from recomputation"
            phases: dict[str, float] = {}
            for phase, s in zip(totals.phases, totals.seconds):
                phases[phase] = phases.get(phase, 0) + s
            print(f"{run}: burst {wall:.1f} s, JVM CPU {cpu:.1f} s, {totals.rounds} rounds, {jobs} jobs, {stages} stages, "
                  f"{tasks} tasks, reachable {size}, phases " + ", ".join(f"{p} {s:.1f} s" for p, s in phases.items())
                  + f"; jobs {' '.join(f'{s:.2f}' for s in totals.seconds)}"
                  + (f"; recomputed in {recomputed:.1f} s" if recomputed is not None else "") + f"; load {os.getloadavg()[0]:.1f}", flush=True)
            out.append({"run": run, "wall": wall, "cpu": cpu, "rounds": totals.rounds, "jobs": jobs, "stages": stages,
                        "tasks": tasks, "reachable": size, "phases": phases, "recompute": recomputed,
                        "job_seconds": totals.seconds, "load": os.getloadavg()[0]})
            args.out.write_text(json.dumps({"args": {k: str(v) for k, v in vars(args).items()}, "runs": out}, indent=1))
    for lever in LEVERS:
        setattr(SparkMaintainer, lever, True)
    SparkMaintainer.batch = ROUNDS


if __name__ == "__main__":
    main()
