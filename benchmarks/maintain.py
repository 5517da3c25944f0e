"""`maintain` measured: maintenance against recomputation, local and Spark, and messages against DRed.

    python benchmarks/maintain.py                      # 1,000 and 10,000 edges (a few minutes)
    python benchmarks/maintain.py --edges 10000 100000 # the issue's sizes (long on Spark)
    python benchmarks/maintain.py --quick              # 1,000 edges only
    python benchmarks/maintain.py --edges 100000 --bursts 0.01 --no-local --algorithms dred

The program is psn2010 §2.2's routing table (examples/psn2010/reachable.ddlog: `reachable(#S, D) :-
link(#S, D);` and `reachable(#S, D) :- link(#S, Z), reachable(#Z, D);`, localized by the tool). The
graph is sparse and acyclic: node v_i (i > 0) has a link from a node drawn uniformly among v_0 … v_{i-1}
(a random recursive tree, depth about ln n), so E edges give a view of about E·ln E facts. A burst
of p% of E updates is half deletions of links drawn from the graph and half insertions of new links
v_i → v_j (i < j, the graph stays acyclic: every count stays finite). Per size and burst, in one
process, side by side:

* local: `maintain`'s PSN engine (Algorithm 1, fifo schedule; the time of `engine.apply`) against
  recomputing the view of E ⊎ I ∖ D (`view.recompute`);
* Spark (`local[2]`): the Spark engine (`maintain.spark`, psn and dred) against the same engine
  computing the view of E ⊎ I ∖ D from nothing (what `--algorithm recompute` does), with the Spark
  jobs and rounds of each;
* messages per base update: PSN (local), SN with derivation sets (Spark psn) and DRed (Spark dred).

Then where multiset counts grow: derivations per fact (`view.recompute`'s counts: paths in the
graph) as cross links are added to the tree, and Spark's fixed cost per job (a count of one row, a
shuffle of a hundred). Results: a table on standard output and benchmarks/maintain.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

import clingo

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dedalus2asp.maintain import Base, Burst, Fact, Update, read_program  # noqa: E402
from dedalus2asp.maintain.pipelined import PSNEngine  # noqa: E402
from dedalus2asp.maintain.spark import SparkMaintainer, patterns  # noqa: E402
from dedalus2asp.maintain.view import recompute  # noqa: E402

PROGRAM = ROOT / "examples" / "psn2010" / "reachable.ddlog"
BURSTS = (0.001, 0.01, 0.1)


def node(i: int) -> clingo.Symbol:
    return clingo.Function(f"v{i}")


def graph(edges: int, rng: random.Random, cross: float = 0.0) -> Counter:
    """A random recursive tree of `edges` links, plus `cross` · edges links v_i → v_j (i < j)."""
    links = Counter(Fact("link", (node(rng.randrange(i)), node(i))) for i in range(1, edges + 1))
    while sum(links.values()) < edges * (1 + cross):
        i, j = sorted(rng.sample(range(edges + 1), 2))
        links[Fact("link", (node(i), node(j)))] = 1
    return links


def burst(links: Counter, fraction: float, rng: random.Random, size: int) -> Burst:
    """max(2, fraction · |links|) updates: half deletions of present links, half insertions of new acyclic ones."""
    n = max(2, round(fraction * sum(links.values())))
    gone = rng.sample(sorted(links), n // 2)
    new = set()
    while len(new) < n - n // 2:
        i, j = sorted(rng.sample(range(size + 1), 2))
        f = Fact("link", (node(i), node(j)))
        if f not in links:
            new.add(f)
    return Burst(1, tuple([Update("-", f) for f in gone] + [Update("+", f) for f in sorted(new)]))


def seconds(f) -> tuple[float, object]:
    start = time.perf_counter()
    out = f()
    return time.perf_counter() - start, out


def local_point(program, links: Counter, b: Burst) -> dict:
    engine = PSNEngine("fifo")
    start, _ = seconds(lambda: engine.start(program, links))
    maintained, stats = seconds(lambda: engine.apply(b))
    after = Base(links)
    after.apply(b)
    recomputed, view = seconds(lambda: recompute(program, after.facts))
    assert engine.view().shown(program) == view, "local PSN differs from recomputation"
    return {"start": start, "maintain": maintained, "recompute": recomputed,
            "messages": sum(stats.messages.values()), "facts": len(view.facts)}


def rows(links: Counter):
    return [((str(f.args[0]), str(f.args[1])), n) for f, n in links.items()]


def spark_point(session, program, links: Counter, b: Burst, algorithm: str) -> dict:
    def fresh():
        return SparkMaintainer(session, patterns(program), program.arities, program.columns, algorithm, shown=program.relations)

    m = fresh()
    start, _ = seconds(lambda: m.apply({"link": m.frame("link", rows(links))}))
    signed = Counter()
    for u in b.updates:
        signed[u.fact] += 1 if u.op == "+" else -1
    maintained, totals = seconds(lambda: m.apply({"link": m.frame("link", rows(signed))}, len(signed)))
    after = Base(links)
    after.apply(b)
    r = fresh()
    recomputed, again = seconds(lambda: r.apply({"link": r.frame("link", rows(after.facts))}))
    size = m.facts("reachable").count()
    assert size == r.facts("reachable").count(), "Spark maintenance differs from recomputation"
    print(f"  spark {algorithm}: maintained in {totals.rounds} rounds, {totals.jobs} jobs, {stages(m, 1)} stages "
          f"(median {statistics.median(totals.seconds):.2f} s a job); recomputed in {again.rounds} rounds, "
          f"{again.jobs} jobs, {stages(r, 0)} stages (median {statistics.median(again.seconds):.2f} s a job)", flush=True)
    return {"start": start, "maintain": maintained, "recompute": recomputed, "jobs": totals.jobs,
            "recompute_jobs": again.jobs, "stages": stages(m, 1), "recompute_stages": stages(r, 0),
            "rounds": totals.rounds, "recompute_rounds": again.rounds, "messages": sum(totals.messages.values()),
            "reachable": size, "job_seconds": totals.seconds, "recompute_job_seconds": again.seconds}


def stages(m: SparkMaintainer, burst: int) -> int:
    """The Spark stages of the jobs of `m`'s burst `burst` (0: its start), with the status tracker."""
    tracker = m.spark.sparkContext.statusTracker()
    jobs = tracker.getJobIdsForGroup(f"{m.jobs.prefix}-{burst}")
    return sum(len(info.stageIds) for info in map(tracker.getJobInfo, jobs) if info is not None)


def fixed_cost(session) -> dict:
    counts, shuffles = [], []
    for _ in range(5):
        counts.append(seconds(lambda: session.range(1).count())[0])
        df = session.range(100)
        shuffles.append(seconds(lambda: df.groupBy((df.id % 7).alias("k")).count().collect())[0])
    return {"count_one_row": statistics.median(counts), "shuffle_100_rows": statistics.median(shuffles)}


def growth(rng: random.Random, program, edges: int) -> list[dict]:
    out = []
    for cross in (0.0, 0.05, 0.2, 0.5):
        view = recompute(program, graph(edges, rng, cross))
        counts = [c for f, c in view.counts.items() if f.relation == "reachable"]
        out.append({"edges": edges, "cross": cross, "facts": len(counts), "mean": statistics.mean(counts),
                    "max": max(counts), "derivations": sum(counts)})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--edges", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--no-local", action="store_true", help="Spark only")
    parser.add_argument("--algorithms", nargs="+", default=["dred", "psn"])
    parser.add_argument("--bursts", type=float, nargs="+", default=list(BURSTS), help="burst sizes, fractions of E")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "maintain.json")
    args = parser.parse_args()
    sizes = [1000] if args.quick else args.edges
    from dedalus2asp.runs.session import spark_session

    program = read_program(PROGRAM)
    load = os.getloadavg()
    session = spark_session("local[2]")
    result = {"machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "load_before": load,
                          "note": "a shared machine: seven developers' tests and benchmarks ran at the same time"},
              "spark_fixed_cost": fixed_cost(session), "points": [], "growth": growth(random.Random(1), program, 300)}
    print(f"load average before: {load[0]:.1f} (2 cores shared by seven developers: absolute times are noisy, "
          "ratios are measured side by side)")
    print(f"Spark fixed cost per job: count of one row {result['spark_fixed_cost']['count_one_row']:.2f} s, "
          f"a shuffle of 100 rows {result['spark_fixed_cost']['shuffle_100_rows']:.2f} s")
    header = f"{'edges':>7} {'burst':>6} {'engine':<11} {'maintain s':>10} {'recompute s':>11} {'ratio':>6} {'msgs/update':>11} {'jobs':>5}"
    print(header)
    for edges in sizes:
        rng = random.Random(edges)
        links = graph(edges, rng)
        for fraction in args.bursts:
            b = burst(links, fraction, rng, edges)
            updates = len(b.updates)
            points = []
            if not args.no_local:
                points.append(("local psn", local_point(program, links, b)))
            for algorithm in args.algorithms:
                if algorithm == "psn" and edges > 10000:
                    continue  # one row per derivation set: see the growth table
                points.append((f"spark {algorithm}", spark_point(session, program, links, b, algorithm)))
            for name, p in points:
                p.update({"edges": edges, "burst": fraction, "updates": updates, "engine": name,
                          "ratio": p["recompute"] / p["maintain"], "messages_per_update": p["messages"] / updates})
                result["points"].append(p)
                print(f"{edges:>7} {fraction:>6.1%} {name:<11} {p['maintain']:>10.2f} {p['recompute']:>11.2f} "
                      f"{p['ratio']:>5.1f}x {p['messages_per_update']:>11.1f} {p.get('jobs', ''):>5}", flush=True)
            args.out.write_text(json.dumps(result, indent=1))
    print("derivations per reachable fact (paths), 300-edge tree plus cross links:")
    for g in result["growth"]:
        print(f"  cross links {g['cross']:>4.0%}: {g['facts']} facts, mean {g['mean']:.1f}, max {g['max']}, "
              f"{g['derivations']} derivations")
    result["machine"]["load_after"] = os.getloadavg()
    args.out.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
