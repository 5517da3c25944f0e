"""A batch sweep of count jobs on Spark, local[1] against local[2], side by side in one run.

    python benchmarks/sweep.py                       # 64 jobs on local[1] then local[2]
    python benchmarks/sweep.py --repeat 2            # each master twice, alternating
    python benchmarks/sweep.py --masters 'local[1]' 'local[2]' spark://host:7077
    python benchmarks/sweep.py --horizons 1 2        # the smaller sweep (jobs of a few ms)
    python benchmarks/sweep.py --heavy --repeat 3    # twelve count jobs of seconds each (`HEAVY`)
    python benchmarks/sweep.py --jvm-cpu 2 --json benchmarks/sweep-jvm.json   # the batch JVM's options

The sweep: the eight example programs of `SWEEP` (tplp2016 Ex. 1-3, Fig. 4 and 5; jcss2014
Alg. 2-4) × semantics causal and choice × encodings fast and paper × horizons 2 and 3 = 64
`count` jobs, from a few milliseconds to about 1.6 s each (the choice semantics at horizon 3:
up to 390,625 models). Each point is one `dedalus2asp batch MANIFEST --out DIR --master M
--quiet` in its own process and a fresh directory; its time is the whole process's wall time
(Python and the JVM started, every job run and written), next to `batch.json`'s own seconds (the
same without the interpreter's start). The load average of the machine is read before and after
each point: the speed-up of local[2] over local[1] is only what the two cores give when nobody
else uses them. Every point must find the same models and traces per job as the first one.

Last, the same jobs run one after another in one Python process without Spark (`--no-serial`
skips it): W, its wall time, is what two cores can share; S = (median local[1] point) − W is what
a batch adds that they cannot (the JVM's start, Spark's Python workers), so that local[2] is at
most (S + W) / (S + W/2) times faster than local[1] (Amdahl's law), printed with the table.

Results: a table on stdout and benchmarks/sweep.json (with the machine, the load and the command).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SWEEP = [
    ("tplp2016/ex1_reachability.ded", "tplp2016/ex1_reachability.facts"),
    ("tplp2016/ex2_ordering.ded", "tplp2016/ex2_ordering.facts"),
    ("tplp2016/ex3_2pc.ded", "tplp2016/ex3_2pc_small.facts"),
    ("tplp2016/fig4_noncausal.ded", "tplp2016/fig4.facts"),
    ("tplp2016/fig5_grouping.ded", "tplp2016/fig5.facts"),
    ("jcss2014/alg2.ded", "jcss2014/alg2_nonempty.facts"),
    ("jcss2014/alg3.ded", "jcss2014/alg3.facts"),
    ("jcss2014/alg4.ded", "jcss2014/alg4.facts"),
]


HEAVY = [
    ("jcss2014/alg2.ded", "jcss2014/alg2_nonempty.facts", 3),
    ("jcss2014/alg4.ded", "jcss2014/alg4.facts", 3),
    ("tplp2016/ex2_ordering.ded", "tplp2016/ex2_ordering.facts", 3),
    ("tplp2016/fig5_grouping.ded", "tplp2016/fig5.facts", 5),
    ("tplp2016/ex3_2pc.ded", "tplp2016/ex3_2pc_small.facts", 4),
    ("tplp2016/fig4_noncausal.ded", "tplp2016/fig4.facts", 3),
]
"""The heavy sweep (`--heavy`): each (program, input, horizon) under the choice semantics in both encodings,
twelve `count` jobs of about one to ten seconds each (117,649 to 390,625 models, the last two programs
fewer), the longest first: Spark starts a batch's jobs in the manifest's order, so a long job listed last
leaves the other core idle at the end. A sweep whose jobs outweigh Spark's start."""


def heavy_manifest(timeout: float) -> str:
    """`HEAVY` as a manifest: one job per (program, horizon) and encoding, choice semantics."""
    lines = [f"root = {json.dumps(str(ROOT / 'examples'))}", "[defaults]", f"timeout = {timeout}"]
    for program, facts, horizon in HEAVY:
        lines += ["[[grid]]", f'program = ["{program}"]', f'input = ["{facts}"]', 'task = ["count"]',
                  'semantics = ["choice"]', 'encoding = ["fast", "paper"]', f"horizon = [{horizon}]"]
    return "\n".join(lines) + "\n"


def manifest(horizons: list[int], timeout: float) -> str:
    """The sweep as a manifest: one grid per program (semantics × encodings × horizons)."""
    lines = [f"root = {json.dumps(str(ROOT / 'examples'))}", "[defaults]", f"timeout = {timeout}"]
    for program, facts in SWEEP:
        lines += ["[[grid]]", f'program = ["{program}"]', f'input = ["{facts}"]', 'task = ["count"]',
                  'semantics = ["causal", "choice"]', 'encoding = ["fast", "paper"]', f"horizon = {horizons}"]
    return "\n".join(lines) + "\n"


def _timed(command: list[str]) -> tuple[subprocess.CompletedProcess, dict]:
    """Run `command`: its outcome, and its wall time with the load average before and after it."""
    before = os.getloadavg()
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    wall = time.perf_counter() - start
    return done, {"wall_s": round(wall, 2), "load_before": [round(x, 2) for x in before],
                  "load_after": [round(x, 2) for x in os.getloadavg()]}


def _jobs(out: Path) -> dict:
    """The `jobs` table of a result directory: the seconds inside jobs, and each job's counts."""
    import pyarrow.parquet as pq

    rows = pq.read_table(out / "jobs").to_pylist()
    return {"job_s": round(sum(r["seconds"] for r in rows), 2),
            "counts": {r["id"]: (r["status"], r["models"], r["traces"]) for r in rows}}


def point(path: Path, master: str, out: Path) -> dict:
    """One batch in its own process: wall time, batch.json, the load average around it, the counts per job."""
    done, timing = _timed([sys.executable, "-m", "dedalus2asp", "batch", str(path), "--out", str(out), "--master", master,
                           "--quiet"])
    if done.returncode not in (0, 1):
        raise SystemExit(f"batch on {master} failed (exit {done.returncode}):\n{done.stderr[-2000:]}")
    info = json.loads((out / "batch.json").read_text())
    return {"master": master, **timing, "batch_s": info["seconds"], "jobs": info["jobs"], "ok": info["ok"],
            "error": info["error"], "timeout": info["timeout"], **_jobs(out)}


SERIAL = """
import sys
from pathlib import Path
from dedalus2asp.batch import execute
from dedalus2asp.batch.manifest import read_manifest
out = Path(sys.argv[2])
for job in read_manifest(Path(sys.argv[1])):
    execute.run_and_write(str(out), job)
"""


def serial(path: Path, out: Path) -> dict:
    """The same jobs one after another in one Python process, without Spark: what the jobs themselves cost
    (the part two cores can share), with the interpreter's start and the same writes as a batch."""
    done, timing = _timed([sys.executable, "-c", SERIAL, str(path), str(out)])
    if done.returncode != 0:
        raise SystemExit(f"the jobs in one process failed (exit {done.returncode}):\n{done.stderr[-2000:]}")
    jobs = _jobs(out)
    return {"master": "none (one process)", **timing, "jobs": len(jobs["counts"]), **jobs}


JVM_CPU = """
import os, sys, time
from pyspark import SparkContext
from dedalus2asp.runs.session import spark_session
start = time.perf_counter()
session = spark_session("local[2]", java_options=sys.argv[1])
session.sparkContext.parallelize(range(12), 12).map(lambda i: __import__("dedalus2asp.batch.execute") and i).collect()
fields = open(f"/proc/{SparkContext._gateway.proc.pid}/stat").read().rsplit(")", 1)[1].split()
print((int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"), time.perf_counter() - start)
"""


def jvm_cpu(repeat: int) -> list[dict]:
    """The JVM's CPU seconds (Linux /proc) and the wall time of a batch-like session: start, one job of twelve
    Python tasks that import the batch's modules; with both compilers and with C1 only (`PYTHON_TASKS`)."""
    from dedalus2asp.runs.session import JAVA_OPTIONS, PYTHON_TASKS

    points = []
    for _ in range(repeat):
        for options in (JAVA_OPTIONS, PYTHON_TASKS):
            load = os.getloadavg()[0]
            done = subprocess.run([sys.executable, "-c", JVM_CPU, options], capture_output=True, text=True, check=True)
            cpu, wall = map(float, done.stdout.split())
            points.append({"java_options": options, "jvm_cpu_s": round(cpu, 1), "wall_s": round(wall, 1), "load": round(load, 1)})
            print(f"{options:>45}  JVM CPU {cpu:6.1f} s  wall {wall:6.1f} s  load {load:.1f}", flush=True)
    return points


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--masters", nargs="+", default=["local[1]", "local[2]"])
    parser.add_argument("--horizons", nargs="+", type=int, default=[2, 3])
    parser.add_argument("--heavy", action="store_true", help="the twelve jobs of HEAVY instead of the 64 of SWEEP")
    parser.add_argument("--repeat", type=int, default=1, help="points per master, alternating")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds of solving per job")
    parser.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "sweep.json")
    parser.add_argument("--no-serial", action="store_true", help="skip the jobs run one after another in one process")
    parser.add_argument("--jvm-cpu", type=int, metavar="N", help="only compare the JVM's options for a batch, N times")
    args = parser.parse_args()
    if args.jvm_cpu:
        record = {"command": " ".join([Path(sys.executable).name, *sys.argv]), "jvm_cpu": jvm_cpu(args.jvm_cpu)}
        args.json.write_text(json.dumps(record, indent=2) + "\n")
        return

    scratch = Path(tempfile.mkdtemp(prefix="sweep-"))
    try:
        path = scratch / "sweep.toml"
        path.write_text(heavy_manifest(args.timeout) if args.heavy else manifest(args.horizons, args.timeout))
        points = []
        for r in range(args.repeat):
            for master in args.masters:
                result = point(path, master, scratch / f"out-{r}-{len(points)}")
                print(f"{master:>12}  {result['wall_s']:8.2f} s wall  {result['batch_s']:8.2f} s batch  "
                      f"{result['job_s']:8.2f} s in jobs  load {result['load_before'][0]:.2f} -> {result['load_after'][0]:.2f}",
                      flush=True)
                points.append(result)
        alone = None if args.no_serial else serial(path, scratch / "serial")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    reference = points[0]["counts"]
    same = all(p["counts"] == reference for p in points)
    best = {m: statistics.median(p["wall_s"] for p in points if p["master"] == m) for m in args.masters}  # medians
    bound = None
    if alone is not None:
        same = same and alone["counts"] == reference
        print(f"{alone['master']:>12}  {alone['wall_s']:8.2f} s wall  {alone['job_s']:8.2f} s in jobs")
        # Amdahl: W, the jobs in one process (interpreter included), is what two cores can share; S, what
        # a batch adds on one core (the JVM, Spark's Python workers), is not
        work, fixed = alone["wall_s"], best[args.masters[0]] - alone["wall_s"]  # medians
        bound = {"work_s": work, "serial_s": round(fixed, 2), "best_speedup_on_2_cores": round((fixed + work) / (fixed + work / 2), 2)}
    print(f"\n{points[0]['jobs']} count jobs, {'HEAVY' if args.heavy else f'horizons {args.horizons}'}; same counts on every point: {same}")
    print("| master | median wall (s) | speed-up over " + args.masters[0] + " |\n| --- | --- | --- |")
    for master, seconds in best.items():
        print(f"| {master} | {seconds:.2f} | {best[args.masters[0]] / seconds:.2f}× |")
    if bound is not None:
        print(f"jobs in one process W = {bound['work_s']} s; what a batch on {args.masters[0]} adds S = {bound['serial_s']} s; "
              f"at most (S + W) / (S + W/2) = {bound['best_speedup_on_2_cores']}× on two cores")
    record = {
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version()},
        "horizons": "HEAVY" if args.heavy else args.horizons, "same_counts": same, "median_wall_s": best,
        "points": [{k: v for k, v in p.items() if k != "counts"} for p in points],
        "one_process": None if alone is None else {k: v for k, v in alone.items() if k != "counts"}, "amdahl": bound,
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    args.json.write_text(json.dumps(record, indent=2) + "\n")
    print(f"wrote {args.json}")
    if not same:
        raise SystemExit("the points found different counts")


if __name__ == "__main__":
    main()
