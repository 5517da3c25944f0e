"""A batch sweep of count jobs on Spark, local[1] against local[2], side by side in one run.

    python benchmarks/sweep.py                       # 64 jobs on local[1] then local[2]
    python benchmarks/sweep.py --repeat 2            # each master twice, alternating
    python benchmarks/sweep.py --masters 'local[1]' 'local[2]' spark://host:7077
    python benchmarks/sweep.py --horizons 1 2        # the smaller sweep (jobs of a few ms)
    python benchmarks/sweep.py --heavy --repeat 3    # twelve count jobs of seconds each (`HEAVY`)
    python benchmarks/sweep.py --medium --repeat 3   # the twelve before them, under a second each (`MEDIUM`)
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

The same from CPU seconds, which a busy machine distorts far less than wall time: each point's whole
process session (`_timed`, from /proc) and each job's process in the one process. With J the jobs' CPU,
O the rest of the one process and S what the batch on local[1] spends beyond the one process, local[2]
on two idle cores is predicted (S + O + J) / (S + O + the jobs on two cores, `makespan`) times faster
than local[1]: a lower bound, as S is counted as serial though the JVM spreads its start over threads.

Results: a table on stdout and benchmarks/sweep.json (with the machine, the load and the command).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import threading
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


MEDIUM = [
    ("jcss2014/alg2.ded", "jcss2014/alg2_nonempty.facts", "choice", 3, None),
    ("jcss2014/alg4.ded", "jcss2014/alg4.facts", "choice", 3, None),
    ("tplp2016/ex2_ordering.ded", "tplp2016/ex2_ordering.facts", "choice", 3, None),
    ("tplp2016/fig5_grouping.ded", "tplp2016/fig5.facts", "choice", 5, None),
    ("tplp2016/ex3_2pc.ded", "tplp2016/ex3_2pc_small.facts", "choice", 4, None),
    ("tplp2016/fig4_noncausal.ded", "tplp2016/fig4.facts", "choice", 3, None),
]
"""The previous heavy sweep (`--medium`): each (program, input, semantics, horizon, max_delay) in both
encodings, twelve `count` jobs of 46,651 to 390,625 models, the longest first. Written as jobs of one to ten
seconds; the solver has since got faster, and they take 0.2 to 1 s each (8.8 s in all in one process on the
idle machine), less than Spark's start."""

HEAVY = [
    ("tplp2016/fig5_grouping.ded", "tplp2016/fig5.facts", "choice", 6, None),
    ("tplp2016/fig4_noncausal.ded", "tplp2016/fig4.facts", "choice", 4, 3),
    ("tplp2016/ex3_2pc.ded", "tplp2016/ex3_2pc_small.facts", "choice", 5, None),
    ("tplp2016/ex1_reachability.ded", "tplp2016/ex1_reachability.facts", "causal", 4, None),
    ("tplp2016/ex2_ordering.ded", "tplp2016/ex2_ordering.facts", "causal", 5, None),
    ("jcss2014/alg4.ded", "jcss2014/alg4.facts", "causal", 5, None),
]
"""The heavy sweep (`--heavy`): each (program, input, semantics, horizon, max_delay) in both encodings,
twelve `count` jobs of 518,400 to 2,097,152 models, about 1.5 to 7.5 s each in one process (40 s in all,
measured as CPU seconds), the longest first: Spark starts a batch's jobs in the manifest's order, so a long job
listed last leaves the other core idle at the end. Jobs that outweigh Spark's start, as issue 37's item 8
meant its twelve jobs "of about 5 s each"."""

SETS = {"heavy": HEAVY, "medium": MEDIUM}


def twelve_manifest(entries: list[tuple], timeout: float) -> str:
    """`HEAVY` or `MEDIUM` as a manifest: one job per entry and encoding."""
    lines = [f"root = {json.dumps(str(ROOT / 'examples'))}", "[defaults]", f"timeout = {timeout}"]
    for program, facts, semantics, horizon, delay in entries:
        lines += ["[[grid]]", f'program = ["{program}"]', f'input = ["{facts}"]', 'task = ["count"]',
                  f'semantics = ["{semantics}"]', 'encoding = ["fast", "paper"]', f"horizon = [{horizon}]"]
        lines += [] if delay is None else [f"max_delay = [{delay}]"]
    return "\n".join(lines) + "\n"


def manifest(horizons: list[int], timeout: float) -> str:
    """The sweep as a manifest: one grid per program (semantics × encodings × horizons)."""
    lines = [f"root = {json.dumps(str(ROOT / 'examples'))}", "[defaults]", f"timeout = {timeout}"]
    for program, facts in SWEEP:
        lines += ["[[grid]]", f'program = ["{program}"]', f'input = ["{facts}"]', 'task = ["count"]',
                  'semantics = ["causal", "choice"]', 'encoding = ["fast", "paper"]', f"horizon = {horizons}"]
    return "\n".join(lines) + "\n"


def _session_cpu(session: int, seen: dict[int, float]) -> bool:
    """Record in `seen` the CPU seconds (user + system, Linux /proc) of every process of `session`; whether any
    is left."""
    tick = os.sysconf("SC_CLK_TCK")
    alive = False
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == session:
            alive = alive or fields[0] != "Z"
            seen[int(stat.parent.name)] = (int(fields[11]) + int(fields[12])) / tick
    return alive


def _timed(command: list[str]) -> tuple[subprocess.CompletedProcess, dict]:
    """Run `command` in a session of its own: its outcome, its wall time, the CPU seconds of every process of
    that session (the JVM, Spark's Python workers and the jobs' processes, sampled from /proc every 0.1 s until
    the last has ended: a process shorter than that is missed), and the load average before and after it."""
    before = os.getloadavg()
    start = time.perf_counter()
    seen: dict[int, float] = {}
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True) as process:
        reader = threading.Thread(target=lambda: setattr(process, "output", process.communicate()), daemon=True)
        reader.start()
        while process.poll() is None:
            _session_cpu(process.pid, seen)
            time.sleep(0.1)
        wall = time.perf_counter() - start
        reader.join()
    deadline = time.monotonic() + 60
    while _session_cpu(process.pid, seen) and time.monotonic() < deadline:  # the JVM outlives its Python driver a little
        time.sleep(0.1)
    done = subprocess.CompletedProcess(command, process.returncode, *process.output)
    return done, {"wall_s": round(wall, 2), "cpu_s": round(sum(seen.values()), 2), "load_before": [round(x, 2) for x in before],
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
import json, resource, sys
from pathlib import Path
from dedalus2asp.batch import execute
from dedalus2asp.batch.manifest import read_manifest
out = Path(sys.argv[2])
cpu = []
for job in read_manifest(Path(sys.argv[1])):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    execute.run_and_write(str(out), job)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu.append(round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 3))
print(json.dumps(cpu))
"""


def serial(path: Path, out: Path) -> dict:
    """The same jobs one after another in one Python process, without Spark: what the jobs themselves cost
    (the part two cores can share), with the interpreter's start and the same writes as a batch; and the CPU
    seconds of each job's process, in the manifest's order."""
    done, timing = _timed([sys.executable, "-c", SERIAL, str(path), str(out)])
    if done.returncode != 0:
        raise SystemExit(f"the jobs in one process failed (exit {done.returncode}):\n{done.stderr[-2000:]}")
    jobs = _jobs(out)
    return {"master": "none (one process)", **timing, "jobs": len(jobs["counts"]), **jobs,
            "job_cpu_s": json.loads(done.stdout.splitlines()[-1])}


def makespan(seconds: list[float], cores: int) -> float:
    """When the last of jobs of these `seconds` ends on `cores` cores that take them in order, each to the first
    core free (how Spark hands a stage's tasks to the executor's cores)."""
    free = [0.0] * cores
    for s in seconds:
        free[free.index(min(free))] += s
    return max(free)


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
    parser.add_argument("--heavy", action="store_const", const="heavy", dest="set",
                        help="the twelve jobs of HEAVY (about 5 s each) instead of the 64 of SWEEP")
    parser.add_argument("--medium", action="store_const", const="medium", dest="set",
                        help="the twelve jobs of MEDIUM (the heavy sweep before HEAVY: 0.2 to 1.7 s each)")
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
        path.write_text(twelve_manifest(SETS[args.set], args.timeout) if args.set else manifest(args.horizons, args.timeout))
        points = []
        for r in range(args.repeat):
            for master in args.masters:
                result = point(path, master, scratch / f"out-{r}-{len(points)}")
                print(f"{master:>12}  {result['wall_s']:8.2f} s wall  {result['batch_s']:8.2f} s batch  "
                      f"{result['job_s']:8.2f} s in jobs  {result['cpu_s']:8.2f} s CPU  load {result['load_before'][0]:.2f} -> {result['load_after'][0]:.2f}",
                      flush=True)
                points.append(result)
        alone = None if args.no_serial else serial(path, scratch / "serial")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    reference = points[0]["counts"]
    same = all(p["counts"] == reference for p in points)
    best = {m: statistics.median(p["wall_s"] for p in points if p["master"] == m) for m in args.masters}  # medians
    cpu = {m: statistics.median(p["cpu_s"] for p in points if p["master"] == m) for m in args.masters}
    bound = None
    if alone is not None:
        same = same and alone["counts"] == reference
        print(f"{alone['master']:>12}  {alone['wall_s']:8.2f} s wall  {alone['job_s']:8.2f} s in jobs  "
              f"{alone['cpu_s']:8.2f} s CPU; each job's CPU s: {alone['job_cpu_s']}")
        # Amdahl: W, the jobs in one process (interpreter included), is what two cores can share; S, what
        # a batch adds on one core (the JVM, Spark's Python workers), is not
        work, fixed = alone["wall_s"], best[args.masters[0]] - alone["wall_s"]  # medians
        bound = {"work_s": work, "serial_s": round(fixed, 2), "best_speedup_on_2_cores": round((fixed + work) / (fixed + work / 2), 2)}
        # the same from CPU seconds, which a busy machine distorts far less than wall time: J, the jobs' own
        # processes; O, the rest of the one process; S, what the batch on local[1] spent beyond the one process.
        # On an idle machine of two cores local[1] takes S + O + J, local[2] S + O + the jobs on two cores
        # (`makespan`, in the manifest's order): S counted as if all of it were serial (the JVM's own threads
        # make it less), so the speed-up predicted is a lower bound.
        jobs_cpu = sum(alone["job_cpu_s"])
        own, extra = alone["cpu_s"] - jobs_cpu, cpu[args.masters[0]] - alone["cpu_s"]
        two = makespan(alone["job_cpu_s"], 2)
        bound["cpu"] = {"jobs_s": round(jobs_cpu, 2), "one_process_rest_s": round(own, 2), "batch_adds_s": round(extra, 2),
                        "jobs_on_2_cores_s": round(two, 2),
                        "predicted_speedup_on_2_idle_cores": round((extra + own + jobs_cpu) / (extra + own + two), 2)}
    label = args.set.upper() if args.set else f"horizons {args.horizons}"
    print(f"\n{points[0]['jobs']} count jobs, {label}; same counts on every point: {same}")
    print("| master | median wall (s) | speed-up over " + args.masters[0] + " | median CPU (s) |\n| --- | --- | --- | --- |")
    for master, seconds in best.items():
        print(f"| {master} | {seconds:.2f} | {best[args.masters[0]] / seconds:.2f}× | {cpu[master]:.2f} |")
    if bound is not None:
        c = bound["cpu"]
        print(f"jobs in one process W = {bound['work_s']} s; what a batch on {args.masters[0]} adds S = {bound['serial_s']} s; "
              f"at most (S + W) / (S + W/2) = {bound['best_speedup_on_2_cores']}× on two cores")
        print(f"CPU: the jobs J = {c['jobs_s']} s ({c['jobs_on_2_cores_s']} s on two cores in order), the rest of one process "
              f"O = {c['one_process_rest_s']} s, what a batch on {args.masters[0]} adds S = {c['batch_adds_s']} s: "
              f"(S + O + J) / (S + O + J on two cores) = {c['predicted_speedup_on_2_idle_cores']}× on two idle cores")
    record = {
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version()},
        "horizons": args.set.upper() if args.set else args.horizons, "same_counts": same, "median_wall_s": best,
        "median_cpu_s": cpu, "points": [{k: v for k, v in p.items() if k != "counts"} for p in points],
        "one_process": None if alone is None else {k: v for k, v in alone.items() if k != "counts"}, "amdahl": bound,
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    args.json.write_text(json.dumps(record, indent=2) + "\n")
    print(f"wrote {args.json}")
    if not same:
        raise SystemExit("the points found different counts")


if __name__ == "__main__":
    main()
