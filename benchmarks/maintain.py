"""`maintain` measured: maintenance against recomputation, local and Spark, and messages against DRed.

    python benchmarks/maintain.py                      # 1,000 and 10,000 edges (a few minutes)
    python benchmarks/maintain.py --edges 10000 100000 # the issue's sizes (long on Spark)
    python benchmarks/maintain.py --quick              # 1,000 edges only
    python benchmarks/maintain.py --edges 100000 --bursts 0.01 0.001 0.1 --no-local --out benchmarks/maintain-100000.json
    python benchmarks/maintain.py --edges 10000 --no-spark   # the local rows only

The JSON keeps the rows of an earlier run that this one does not measure (local and Spark rows may come
from separate runs).

The program is psn2010 §2.2's routing table (examples/psn2010/reachable.ddlog: `reachable(#S, D) :-
link(#S, D);` and `reachable(#S, D) :- link(#S, Z), reachable(#Z, D);`, localized by the tool). The
graph is sparse and acyclic: node v_i (i > 0) has a link from a node drawn uniformly among v_0 … v_{i-1}
(a random recursive tree, depth about ln n), so E edges give a view of about E·ln E facts. A burst
of p% of E updates is half deletions of links drawn from the graph and half insertions of new links
v_i → v_j (i < j, the graph stays acyclic: every count stays finite). Per size and burst, in one
process, side by side:

* local: `maintain`'s PSN engine (Algorithm 1, fifo schedule; the time of `engine.apply`) and its DRed
  against recomputing the view of E ⊎ I ∖ D (`view.recompute`: semi-naive evaluation that keeps the ground
  instances it finds, then counts derivations in topological order), with the facts of the view the
  burst changed and the updates the engine processed (picks);
* Spark (`local[2]`): the Spark engine (`maintain.spark`, psn and dred) maintaining `--consecutive` bursts
  of the size one after another (5; the first is the local rows' burst), their mean per burst with the
  compactions of the view that happened in them (the engine keeps a view as its last compaction plus the
  deltas since: a burst may leave work to a later one, so one burst alone would flatter it), against the
  same engine computing the view after the last burst from nothing (what `--algorithm recompute` does),
  then the smallest burst (a link between two new nodes, inserted then deleted), with the Spark
  jobs, stages and rounds of each, the seconds of each phase of the burst and the CPU seconds of the
  driver's JVM (which runs the tasks: steadier than wall time on a shared machine);
* messages per base update: PSN (local), SN with derivation sets (Spark psn) and DRed (local and Spark).

Then where multiset counts grow: derivations per fact (`view.recompute`'s counts: paths in the
graph) as cross links are added to a 1,000-link tree, with a 1% burst maintained there by PSN (one
copy per derivation) and DRed (sets) against recomputing; and Spark's fixed cost per job (a count of
one row, a shuffle of a hundred); and n×n grids, where derivations grow fastest (`grids`). Results: a
table on standard output and benchmarks/maintain.json.
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
from dedalus2asp.maintain.dred import DRed  # noqa: E402
from dedalus2asp.maintain.pipelined import PSNEngine  # noqa: E402
from dedalus2asp.maintain.spark import SparkMaintainer, patterns  # noqa: E402
from dedalus2asp.maintain.view import difference, recompute  # noqa: E402

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


def local_point(program, links: Counter, b: Burst, engine_of, repeat: int = 1) -> dict:
    """A fresh engine (local PSN or DRed) started on `links` maintaining `b`, against recomputing the view after
    `b`, each `repeat` times (the medians); `changed`: the facts of the view the burst inserted or deleted,
    `picks`: the updates processed."""
    after = Base(links)
    after.apply(b)
    starts, maintains, recomputes = [], [], []
    for _ in range(repeat):
        engine = engine_of()
        starts.append(seconds(lambda: engine.start(program, links))[0])
        maintained, stats = seconds(lambda: engine.apply(b))
        maintains.append(maintained)
        recomputed, view = seconds(lambda: recompute(program, after.facts))
        recomputes.append(recomputed)
        assert not difference(engine.view().shown(program), view), "local maintenance differs from recomputation"
        del engine
    return {"start": statistics.median(starts), "maintain": statistics.median(maintains),
            "recompute": statistics.median(recomputes), "repeat": repeat, "messages": sum(stats.messages.values()),
            "picks": sum(stats.updates.values()), "changed": sum(map(len, stats.changes)), "facts": len(view.facts)}


def rows(links: Counter):
    return [((str(f.args[0]), str(f.args[1])), n) for f, n in links.items()]


def jvm_seconds(session) -> float:
    """The CPU seconds (user and system) the driver's JVM has used so far (it runs the tasks in local mode): on a
    shared machine a steadier measure of work than wall time, which other processes stretch."""
    fields = Path(f"/proc/{session.sparkContext._gateway.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def spark_point(session, program, links: Counter, bursts: list[Burst], algorithm: str, compact: float | None = None) -> dict:
    """The Spark maintainer started on `links` maintaining `bursts` one after another (a view is kept as its last
    compaction plus the deltas since, so a burst may defer work to a later one: the mean per burst counts the
    compactions that happened), against the same engine computing the view after the last burst from nothing.
    `compact`: the maintainer's `compact_at` (None: `spark.COMPACT`)."""
    def fresh():
        return SparkMaintainer(session, patterns(program), program.arities, program.columns, algorithm, shown=program.relations)

    def timed(f):
        cpu = jvm_seconds(session)
        wall, out = seconds(f)
        return wall, jvm_seconds(session) - cpu, out

    m = fresh()
    if compact is not None:
        m.compact_at = compact
    start, _ = seconds(lambda: m.apply({"link": m.frame("link", rows(links))}))
    after = Base(links)
    walls, cpus, every, kept = [], [], [], []
    for b in bursts:
        signed = Counter()
        for u in b.updates:
            signed[u.fact] += 1 if u.op == "+" else -1
        wall, cpu, totals = timed(lambda: m.apply({"link": m.frame("link", rows(signed))}, len(signed)))
        walls.append(wall)
        cpus.append(cpu)
        every.append(totals)
        kept.append(m.stored["reachable"].delta_rows / m.stored["reachable"].rows)  # the deltas kept, a fraction of the view
        after.apply(b)
    maintained, maintained_cpu = statistics.mean(walls), statistics.mean(cpus)
    compactions = sum(bool(t.compacted) for t in every)
    r = fresh()
    recomputed, recomputed_cpu, again = timed(lambda: r.apply({"link": r.frame("link", rows(after.facts))}))
    size = m.facts("reachable").count()
    assert size == r.facts("reachable").count(), "Spark maintenance differs from recomputation"
    floor = smallest_burst(m, len(links) + 1)
    depth = round(statistics.mean(t.rounds for t in every)) - 1  # the last round derives nothing
    deep = smallest_burst(m, len(links) + 1, depth)
    jobs = [t.jobs for t in every]
    print(f"  spark {algorithm}: {len(bursts)} bursts in {', '.join(f'{w:.1f}' for w in walls)} s, mean {maintained:.2f} s, "
          f"{compactions} compacting (deltas kept after each: {', '.join(f'{k:.0%}' for k in kept)} of reachable's rows); {sum(t.rounds for t in every)} rounds, {sum(jobs)} jobs, {stages(m, 1, len(bursts))} stages "
          f"(median {statistics.median(s for t in every for s in t.seconds):.2f} s a job); recomputed in {again.rounds} rounds, "
          f"{again.jobs} jobs, {stages(r, 0)} stages (median {statistics.median(again.seconds):.2f} s a job); the JVM's CPU "
          f"{maintained_cpu:.1f} s a burst against {recomputed_cpu:.1f} s ({recomputed_cpu / maintained_cpu:.1f}x); "
          f"load {os.getloadavg()[0]:.1f}", flush=True)
    phases: dict[str, list[float]] = {}
    for t in every:
        for phase, s in zip(t.phases, t.seconds):
            phases.setdefault(phase, []).append(s)
    print("  all bursts: " + "; ".join(f"{phase} {sum(s):.1f} s in {len(s)} jobs" for phase, s in phases.items()), flush=True)
    for what, bursts_ in (("the smallest burst (a link between two new nodes)", floor),
                          (f"a chain of {depth} new links (as deep as the bursts, {depth * (depth + 1) // 2} facts)", deep)):
        print(f"  {what}: " + "; ".join(
            f"{name} {f['seconds']:.1f} s, {f['rounds']} rounds, {f['jobs']} jobs{', compacting' if f['compacted'] else ''}"
            for name, f in bursts_.items()), flush=True)
    return {"deep_burst": deep, "deep_links": depth, "start": start, "maintain": maintained, "bursts": len(bursts), "burst_seconds": walls,
            "compactions": compactions, "kept": kept, "first": walls[0], "phases": {phase: sum(s) / len(bursts) for phase, s in phases.items()},
            "recompute": recomputed, "maintain_jvm_cpu": maintained_cpu, "recompute_jvm_cpu": recomputed_cpu,
            "jobs": round(statistics.mean(jobs), 1), "compact_at": m.compact_at, "recompute_jobs": again.jobs, "stages": stages(m, 1, len(bursts)) / len(bursts),
            "recompute_stages": stages(r, 0), "rounds": statistics.mean(t.rounds for t in every),
            "recompute_rounds": again.rounds, "messages": statistics.mean(sum(t.messages.values()) for t in every),
            "reachable": size, "job_seconds": [t.seconds for t in every], "job_phases": [t.phases for t in every],
            "recompute_job_seconds": again.seconds, "smallest_burst": floor,
            "partitions": int(session.conf.get("spark.sql.shuffle.partitions"))}


def stages(m: SparkMaintainer, burst: int, bursts: int = 1) -> int:
    """The Spark stages of the jobs of `m`'s bursts `burst` … `burst + bursts - 1` (0: its start), with the status
    tracker."""
    tracker = m.spark.sparkContext.statusTracker()
    jobs = [j for k in range(burst, burst + bursts) for j in tracker.getJobIdsForGroup(f"{m.jobs.prefix}-{k}")]
    return sum(len(info.stageIds) for info in map(tracker.getJobInfo, jobs) if info is not None)


def fixed_cost(session) -> dict:
    """Spark's fixed cost per job, the medians of five: a job of no task (a count of an empty frame, which Spark
    still runs as a job of one stage), a count of one row, a shuffle of 100 rows (two stages)."""
    empties, counts, shuffles = [], [], []
    for _ in range(5):
        empties.append(seconds(lambda: session.range(0).count())[0])
        counts.append(seconds(lambda: session.range(1).count())[0])
        df = session.range(100)
        shuffles.append(seconds(lambda: df.groupBy((df.id % 7).alias("k")).count().collect())[0])
    return {"empty_job": statistics.median(empties), "count_one_row": statistics.median(counts),
            "shuffle_100_rows": statistics.median(shuffles)}


def smallest_burst(m: SparkMaintainer, edges: int, length: int = 1) -> dict:
    """A burst's floor on `m`'s view: the insertion of a chain of `length` links between nodes the graph does not
    have, and its deletion again. One link derives one fact: the fewest rounds and jobs a burst takes. A chain
    derives length·(length+1)/2 facts in `length` rounds, a few facts a round: the floor of a burst that deep,
    whatever its size (the rounds of SN maintenance, psn2010 Algorithm 2, follow its deepest derivation)."""
    out = {}
    for name, n in (("insert", 1), ("delete", -1)):
        link = Counter({Fact("link", (node(edges + i), node(edges + i + 1))): n for i in range(1, length + 1)})
        wall, totals = seconds(lambda: m.apply({"link": m.frame("link", rows(link))}, 1))
        out[name] = {"seconds": wall, "rounds": totals.rounds, "jobs": totals.jobs, "job_seconds": totals.seconds,
                     "job_phases": totals.phases, "compacted": totals.compacted}
    return out


def growth(rng: random.Random, program, edges: int, fraction: float = 0.01) -> list[dict]:
    """Derivations per reachable fact (paths) as cross links are added to a tree of `edges` links, and what
    they cost: a burst of `fraction` maintained by PSN (one copy per derivation) and by DRed (sets), against
    recomputing."""
    out = []
    for cross in (0.0, 0.05, 0.2, 0.5):
        links = graph(edges, rng, cross)
        view = recompute(program, links)
        counts = [c for f, c in view.counts.items() if f.relation == "reachable"]
        b = burst(links, fraction, rng, edges)
        psn, dred = local_point(program, links, b, lambda: PSNEngine("fifo")), local_point(program, links, b, DRed)
        out.append({"edges": edges, "cross": cross, "facts": len(counts), "mean": statistics.mean(counts),
                    "max": max(counts), "derivations": sum(counts), "burst": fraction, "updates": len(b.updates),
                    "psn": psn["maintain"], "psn_picks": psn["picks"], "dred": dred["maintain"],
                    "dred_picks": dred["picks"], "recompute": psn["recompute"]})
    return out


def grids(program, sizes=(5, 6, 7, 8)) -> list[dict]:
    """Where counts grow fastest: on an n×n grid of links right and down, `reachable` from corner to corner has
    C(2n−2, n−1) derivations, and PSN keeps a copy of every fact per derivation. Per n: the derivations, PSN
    building the view (its copies) and maintaining a burst that deletes the link out of the top-left corner to
    the right, against DRed (sets) and recomputing."""
    def at(i, j):
        return clingo.Function(f"v{i}_{j}")

    out = []
    for n in sizes:
        links = Counter({Fact("link", (at(i, j), at(i + di, j + dj))): 1 for i in range(n) for j in range(n)
                         for di, dj in ((1, 0), (0, 1)) if i + di < n and j + dj < n})
        b = Burst(1, (Update("-", Fact("link", (at(0, 0), at(0, 1)))),))
        derivations = sum(c for f, c in recompute(program, links).counts.items() if f.relation == "reachable")
        psn, dred = local_point(program, links, b, lambda: PSNEngine("fifo")), local_point(program, links, b, DRed)
        out.append({"n": n, "derivations": derivations, "psn_start": psn["start"], "psn": psn["maintain"],
                    "psn_picks": psn["picks"], "dred_start": dred["start"], "dred": dred["maintain"],
                    "dred_picks": dred["picks"], "recompute": psn["recompute"], "changed": psn["changed"]})
    return out


def merged(earlier: dict, result: dict) -> dict:
    """`result` and the points of an `earlier` result that this run did not measure (another engine, size or
    burst), so that local and Spark rows measured in separate runs stay in one file."""
    measured = {(p["edges"], p["burst"], p["engine"]) for p in result["points"]}
    kept = [{"machine": earlier.get("machine"), **p} for p in earlier.get("points", [])
            if (p["edges"], p["burst"], p["engine"]) not in measured]  # each with the machine it was measured on
    result = {**result, "points": kept + result["points"]}
    for key in ("spark_fixed_cost", "growth", "grids"):
        if key not in result and key in earlier:
            result[key] = earlier[key]
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--edges", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--no-local", action="store_true", help="Spark only")
    parser.add_argument("--no-spark", action="store_true", help="local engines only (no Spark session)")
    parser.add_argument("--algorithms", nargs="+", default=["dred", "psn"])
    parser.add_argument("--bursts", type=float, nargs="+", default=list(BURSTS), help="burst sizes, fractions of E")
    parser.add_argument("--repeat", type=int, default=1, help="local rows: the median of this many runs")
    parser.add_argument("--consecutive", type=int, default=5,
                        help="Spark rows: this many bursts of the same size one after another (the mean, compactions included)")
    parser.add_argument("--compact", type=float, nargs="+", default=None,
                        help="Spark rows: compact a view when its deltas' rows exceed this fraction of it (spark.COMPACT); "
                             "several: a row each, side by side (0: every burst)")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "maintain.json")
    args = parser.parse_args()
    sizes = [1000] if args.quick else args.edges
    earlier = json.loads(args.out.read_text()) if args.out.exists() else {}

    program = read_program(PROGRAM)
    load = os.getloadavg()
    result = {"machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "load_before": load,
                          "note": "a shared machine: other developers' tests and benchmarks ran at the same time"},
              "points": []}
    print(f"load average before: {load[0]:.1f} (2 cores shared with other developers: absolute times are noisy, "
          "ratios are measured side by side)")
    session = None
    if not args.no_spark:
        from dedalus2asp.runs.session import spark_session

        session = spark_session("local[2]")
        result["spark_fixed_cost"] = fixed_cost(session)
        print(f"Spark fixed cost per job: an empty job {result['spark_fixed_cost']['empty_job']:.2f} s, count of one row "
              f"{result['spark_fixed_cost']['count_one_row']:.2f} s, a shuffle of 100 rows "
              f"{result['spark_fixed_cost']['shuffle_100_rows']:.2f} s")
    if not args.no_local:
        result["growth"] = growth(random.Random(1), program, 1000)
        result["grids"] = grids(program)
    header = (f"{'edges':>7} {'burst':>6} {'engine':<11} {'maintain s':>10} {'recompute s':>11} {'ratio':>6} "
              f"{'msgs/update':>11} {'jobs':>5} {'changed':>7} {'picks':>7}")
    print(header)
    for edges in sizes:
        rng = random.Random(edges)
        links = graph(edges, rng)
        for fraction in args.bursts:
            b = burst(links, fraction, rng, edges)
            updates = len(b.updates)
            following, current, more = [b], Base(links), random.Random(f"{edges} {fraction}")
            while len(following) < args.consecutive:  # the Spark rows' bursts after the first
                current.apply(following[-1])
                following.append(burst(current.facts, fraction, more, edges))
            points = []
            if not args.no_local:
                points.append(("local psn", lambda: local_point(program, links, b, lambda: PSNEngine("fifo"), args.repeat)))
                points.append(("local dred", lambda: local_point(program, links, b, DRed, args.repeat)))
            for algorithm in [] if session is None else args.algorithms:
                for compact in args.compact or [None]:
                    points.append((f"spark {algorithm}" + ("" if compact is None else f" {compact:g}"),
                                   lambda algorithm=algorithm, compact=compact: spark_point(session, program, links, following, algorithm, compact)))
            for name, measure in points:  # each row printed and written as soon as it is measured
                p = measure()
                p.update({"edges": edges, "burst": fraction, "updates": updates, "engine": name,
                          "ratio": p["recompute"] / p["maintain"], "messages_per_update": p["messages"] / updates,
                          "load": os.getloadavg()})
                result["points"].append(p)
                print(f"{edges:>7} {fraction:>6.1%} {name:<11} {p['maintain']:>10.2f} {p['recompute']:>11.2f} "
                      f"{p['ratio']:>5.1f}x {p['messages_per_update']:>11.1f} {p.get('jobs', ''):>5} "
                      f"{p.get('changed', ''):>7} {p.get('picks', ''):>7}", flush=True)
                args.out.write_text(json.dumps(merged(earlier, result), indent=1))
    if "growth" in result:
        g = result["growth"][0]
        print(f"derivations per reachable fact (paths), {g['edges']}-edge tree plus cross links, and a "
              f"{g['burst']:.0%} burst ({g['updates']} updates) maintained by PSN and DRed against recomputing:")
        for g in result["growth"]:
            print(f"  cross links {g['cross']:>4.0%}: {g['facts']} facts, mean {g['mean']:.1f}, max {g['max']}, "
                  f"{g['derivations']} derivations; psn {g['psn']:.3f} s ({g['psn_picks']} picks), dred "
                  f"{g['dred']:.3f} s ({g['dred_picks']} picks), recompute {g['recompute']:.3f} s")
    if "grids" in result:
        print("n×n grids of links right and down (derivations of reachable), a burst deleting one corner link:")
        for g in result["grids"]:
            print(f"  n = {g['n']}: {g['derivations']} derivations; build psn {g['psn_start']:.2f} s, dred "
                  f"{g['dred_start']:.2f} s; burst psn {g['psn']:.3f} s ({g['psn_picks']} picks), dred {g['dred']:.3f} s "
                  f"({g['dred_picks']} picks), recompute {g['recompute']:.3f} s; {g['changed']} facts changed")
    result["machine"]["load_after"] = os.getloadavg()
    args.out.write_text(json.dumps(merged(earlier, result), indent=1))


if __name__ == "__main__":
    main()
