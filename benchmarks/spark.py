"""The Spark data pipeline measured: the relational engine on large inputs, and a sweep of count jobs.

    python benchmarks/spark.py                  # both parts, a few minutes per point at most
    python benchmarks/spark.py --quick          # small sizes only
    python benchmarks/spark.py --edges 1000 10000 --budget 300
    python benchmarks/spark.py --parts 1 --edges 10000 --repeat 3   # item 8's figure: medians of 3, alternating

Part 1 runs jcss2014 Alg. 1 (examples/jcss2014/alg1.ded: transitive closure, every node
broadcasts its closure every step) on generated graphs: 8 nodes, E edges dealt round-robin to
the nodes, the graph a union of disjoint paths of length 2 (so the closure has 1.5 E edges and
every node ends up with all of it), 10 steps, sync schedule. Each point is one
`dedalus2asp run --engine local|spark --quiet` in its own process (Spark: `local[2]`), killed after
`--budget` seconds; the time is the whole process's wall time (JVM start included; with `--repeat N`,
the median of N runs of each engine, local and Spark alternating), next to the
Spark jobs of each step (`run.json`) and the load average before and after the point. Alg. 1 sends 8 copies of its whole closure every step, so the message table has
about 8 · 8 · 1.5 E · steps rows: that, not the joins, is what stops both engines.

Part 2 runs a sweep of 64 `count` jobs (8 example programs × 2 semantics × 2 encodings ×
horizons 1, 2) with `dedalus2asp batch` on `local[1]` and on `local[2]`, each into a fresh
directory; the time is the batch's own (`batch.json`: session start, 64 jobs, results).

Part 3 measures what not deriving persisted facts again buys (`evaluator.Plan.incremental`, tr2009
Alg. 1 / psn2010): the local engine on Alg. 1 with the fixpoint of the positive recursive
component started from the facts new since the previous step, against the same run deriving
everything from scratch at every step, in one process, side by side, on the smaller graphs.

Part 4 counts the models of tplp2016 Example 3 (2PC, small input, horizon 3) once unsplit and once
with `count --split 8 --engine spark` on `local[2]`: the overhead of the split, whole-process wall time.

Results: printed as a table and written to benchmarks/spark.json.
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
NODES = 8
STEPS = 10
from sweep import SWEEP  # noqa: E402 - the same eight examples as benchmarks/sweep.py


def graph(directory: Path, edges: int) -> None:
    """R: `edges` edges, disjoint paths p_i → q_i → r_i, dealt round-robin to n0..n7; Node: every node everywhere."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    directory.mkdir(parents=True)
    nodes, us, vs = [], [], []
    for e in range(edges):
        path, second = divmod(e, 2)
        u, v = (f"p{path}", f"q{path}") if not second else (f"q{path}", f"r{path}")
        nodes.append(f"n{e % NODES}")
        us.append(u)
        vs.append(v)
    pq.write_table(pa.table({"node": nodes, "u": us, "v": vs}), directory / "R.parquet")
    every = [f"n{i}" for i in range(NODES)]
    pq.write_table(pa.table({"node": [x for x in every for _ in every], "y": every * NODES}), directory / "Node.parquet")


def run_point(engine: str, data: Path, out: Path, budget: float) -> dict:
    command = [sys.executable, "-m", "dedalus2asp.cli", "run", str(ROOT / "examples/jcss2014/alg1.ded"),
               "--input", str(data), "--steps", str(STEPS), "--engine", engine, "--out", str(out)]
    env = {**os.environ, "SPARK_MASTER": "local[2]"}
    before = os.getloadavg()[0]
    start = time.perf_counter()
    try:
        done = subprocess.run(command + ["--quiet"], capture_output=True, text=True, timeout=budget, env=env)
    except subprocess.TimeoutExpired:
        return {"status": f"over {budget:.0f} s", "loadavg": [round(before, 1), round(os.getloadavg()[0], 1)]}
    wall = time.perf_counter() - start
    loadavg = [round(before, 1), round(os.getloadavg()[0], 1)]
    if done.returncode != 0:
        return {"status": "failed", "error": (done.stderr or done.stdout)[-400:], "loadavg": loadavg}
    info = json.loads((out / "run.json").read_text())
    seconds = info["timings"]["run"] + info["timings"]["write"]
    return {"status": "ok", "wall": round(wall, 2), "seconds": round(seconds, 2), "load": info["timings"]["load"],
            "timings": info["timings"],
            "rows": info["rows"], "pending": info["pending"], "jobs_per_step": info.get("spark_jobs_per_step"),
            "loadavg": loadavg}


def part1(sizes: list[int], budget: float, scratch: Path, repeat: int = 1) -> list[dict]:
    """Each size: local and Spark alternately, `repeat` times each; the median wall time of each and their ratio."""
    points = []
    stopped = set()
    for edges in sizes:
        data = scratch / f"graph-{edges}"
        graph(data, edges)
        point = {"edges": edges, "local": {}, "spark": {}, "runs": []}
        for r in range(repeat):
            for engine in ("local", "spark"):
                if engine in stopped:
                    point[engine] = {"status": "skipped (stopped at a smaller size)"}
                    continue
                result = run_point(engine, data, scratch / f"run-{engine}-{edges}", budget)
                point["runs"].append({"engine": engine, **result})
                shutil.rmtree(scratch / f"run-{engine}-{edges}", ignore_errors=True)
                print(f"  alg1 E={edges} {engine} ({r + 1} of {repeat}): {result}", flush=True)
                if result["status"] != "ok":
                    stopped.add(engine)
        for engine in ("local", "spark"):
            done = [p for p in point["runs"] if p["engine"] == engine and p["status"] == "ok"]
            if engine not in stopped and done:
                point[engine] = {**done[-1], "wall": round(statistics.median(p["wall"] for p in done), 2),
                                 "walls": [p["wall"] for p in done]}
            elif engine in stopped and not point[engine]:
                point[engine] = next(p for p in point["runs"] if p["engine"] == engine and p["status"] != "ok")
        if point["local"].get("status") == "ok" and point["spark"].get("status") == "ok":
            point["spark_over_local"] = round(point["spark"]["wall"] / point["local"]["wall"], 2)
        points.append(point)
        shutil.rmtree(data, ignore_errors=True)
    return points


def manifest(path: Path) -> int:
    """One grid per (program, input): count × {causal, choice} × {fast, paper} × horizons 1, 2."""
    text = [f'root = "{ROOT}"', "[defaults]", "timeout = 120"]
    for program, facts in SWEEP:
        text += ["[[grid]]", f'program = ["examples/{program}"]', f'input = ["examples/{facts}"]', 'task = ["count"]',
                 'semantics = ["causal", "choice"]', 'encoding = ["fast", "paper"]', "horizon = [1, 2]"]
    path.write_text("\n".join(text) + "\n")
    return len(SWEEP) * 8


def part2(scratch: Path, budget: float) -> dict:
    path = scratch / "sweep.toml"
    jobs = manifest(path)
    result = {"jobs": jobs}
    for master in ("local[1]", "local[2]"):
        out = scratch / f"sweep-{master[6]}"
        command = [sys.executable, "-m", "dedalus2asp.cli", "batch", str(path), "--out", str(out), "--master", master]
        start = time.perf_counter()
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=budget)
        except subprocess.TimeoutExpired:
            result[master] = {"status": f"over {budget:.0f} s"}
            continue
        wall = time.perf_counter() - start
        info = json.loads((out / "batch.json").read_text()) if (out / "batch.json").exists() else {}
        result[master] = {"status": "ok" if done.returncode == 0 else f"exit {done.returncode}",
                          "seconds": info.get("seconds"), "wall": round(wall, 2), "ok": info.get("ok")}
        print(f"  sweep {master}: {result[master]}", flush=True)
        shutil.rmtree(out, ignore_errors=True)
    a, b = result.get("local[1]", {}).get("seconds"), result.get("local[2]", {}).get("seconds")
    if a and b:
        result["speedup"] = round(a / b, 2)
    return result


def part3(sizes: list[int]) -> list[dict]:
    """Local engine, Alg. 1, sync: incremental fixpoints against deriving everything again (same trace)."""
    from dedalus2asp.runs import engine
    from dedalus2asp.lang.parser import load_program

    program = load_program(ROOT / "examples/jcss2014/alg1.ded")
    points = []
    for edges in sizes:
        with tempfile.TemporaryDirectory() as scratch:
            graph(Path(scratch) / "g", edges)
            data = engine.read_directory(Path(scratch) / "g", program)
        point = {"edges": edges}
        traces = []
        for incremental in (True, False):
            result = engine.run(program, data, STEPS, engine.Schedule(), "local", incremental=incremental)
            point["incremental" if incremental else "full"] = round(result.seconds, 2)
            traces.append(sorted(result.trace))
        assert traces[0] == traces[1], "incremental and full evaluation disagree"
        point["full_over_incremental"] = round(point["full"] / point["incremental"], 2)
        print(f"  alg1 E={edges} local: {point}", flush=True)
        points.append(point)
    return points


SPLIT = ("tplp2016/ex3_2pc.ded", "tplp2016/ex3_2pc_small.facts", 3)


def part4(budget: float, parts: int = 8) -> dict:
    """`count` unsplit against `count --split 8 --engine spark` (local[2]), whole-process wall time each."""
    program, facts, horizon = SPLIT
    base = [sys.executable, "-m", "dedalus2asp.cli", "count", str(ROOT / "examples" / program), "--input",
            str(ROOT / "examples" / facts), "--horizon", str(horizon), "--json"]
    result = {"program": program, "horizon": horizon, "parts": parts}
    for name, extra in (("unsplit", []), ("split", ["--split", str(parts), "--engine", "spark", "--master", "local[2]", "--quiet"])):
        before = os.getloadavg()[0]
        start = time.perf_counter()
        try:
            done = subprocess.run(base + extra, capture_output=True, text=True, timeout=budget)
        except subprocess.TimeoutExpired:
            result[name] = {"status": f"over {budget:.0f} s"}
            continue
        wall = time.perf_counter() - start
        counted = json.loads(done.stdout) if done.returncode == 0 else {}
        result[name] = {"status": "ok" if done.returncode == 0 else f"exit {done.returncode}", "wall": round(wall, 2),
                        "models": counted.get("models"), "traces": counted.get("traces"),
                        "loadavg": [round(before, 1), round(os.getloadavg()[0], 1)]}
        print(f"  count {name}: {result[name]}", flush=True)
    if result.get("unsplit", {}).get("wall") and result.get("split", {}).get("wall"):
        result["overhead_s"] = round(result["split"]["wall"] - result["unsplit"]["wall"], 2)
    return result


def spark_start() -> float:
    code = "import time; t=time.perf_counter(); from dedalus2asp.runs.session import spark_session; " \
           "s=spark_session('local[2]'); s.range(1).count(); print(time.perf_counter()-t)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    return round(float(done.stdout.strip().splitlines()[-1]), 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--edges", type=int, nargs="+", default=[300, 1000, 3000, 10000, 30000])
    parser.add_argument("--budget", type=float, default=600.0, help="seconds per point before it is killed")
    parser.add_argument("--repeat", type=int, default=1, help="part 1: runs per engine and size, alternating; medians")
    parser.add_argument("--quick", action="store_true", help="sizes 300 and 1000 only")
    parser.add_argument("--parts", type=int, nargs="+", default=[1, 2, 3, 4], help="which parts to run")
    parser.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "spark.json", help="where the results go")
    args = parser.parse_args()
    sizes = [300, 1000] if args.quick else args.edges
    scratch = Path(tempfile.mkdtemp(prefix="dedalus2asp-spark-"))
    runs, sweep, persisted, split = [], {}, [], {}
    try:
        start = spark_start()
        print(f"Spark session start (local[2], JVM included): {start} s", flush=True)
        if 1 in args.parts:
            print("part 1: jcss2014 Alg. 1, 8 nodes, 10 steps, sync schedule", flush=True)
            runs = part1(sizes, args.budget, scratch, args.repeat)
        if 2 in args.parts:
            print("part 2: 64 count jobs", flush=True)
            sweep = part2(scratch, args.budget * 2)
        if 3 in args.parts:
            print("part 3: persisted facts not derived again (local engine)", flush=True)
            persisted = part3([s for s in sizes if s <= 1000] or [min(sizes)])
        if 4 in args.parts:
            print("part 4: count --split 8 on Spark against the unsplit count", flush=True)
            split = part4(args.budget)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    result = {"machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "loadavg_at_end": os.getloadavg()},
              "command": " ".join(["python", "benchmarks/spark.py", *sys.argv[1:]]), "spark_start": start,
              "alg1": runs, "sweep": sweep, "incremental": persisted, "split": split}
    args.json.write_text(json.dumps(result, indent=2) + "\n")

    print("\n| edges | local wall s | spark wall s | spark / local | Spark jobs per step | trace rows | message rows | load avg |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for p in runs:
        local, spark = p["local"], p["spark"]
        rows = (local if local.get("status") == "ok" else spark).get("rows", {})
        jobs = spark.get("jobs_per_step")
        print(f"| {p['edges']} | {local.get('wall', local['status'])} | {spark.get('wall', spark['status'])} | "
              f"{p.get('spark_over_local', '')} | {', '.join(map(str, jobs)) if jobs else ''} | {rows.get('trace', '')} | "
              f"{rows.get('messages', '')} | {spark.get('loadavg', '')} |")
    if sweep:
        print(f"\nsweep of {sweep['jobs']} count jobs: local[1] {sweep.get('local[1]', {}).get('seconds')} s, "
              f"local[2] {sweep.get('local[2]', {}).get('seconds')} s, speed-up {sweep.get('speedup')}")
    for p in persisted:
        print(f"Alg. 1, E={p['edges']}, local engine: incremental {p['incremental']} s, from scratch {p['full']} s "
              f"({p['full_over_incremental']}×)")
    if split:
        print(f"count {split['program']} horizon {split['horizon']}: unsplit {split.get('unsplit')}, "
              f"--split {split['parts']} on Spark {split.get('split')}, overhead {split.get('overhead_s')} s")
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
