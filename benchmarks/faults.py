"""verify against fault enumeration (issue #19): one solver call against one run per fault set.

Molly (Alvaro, Rosen, Hellerstein, *Lineage-driven fault injection*, SIGMOD 2015) answers "does the
invariant survive every fault set within the bounds?" by running one execution per fault
hypothesis. The explicit alternative here does exactly that with the local run engine: every set of
omitted channels (sender, step, addressee) sent before step E and every crash plan of at most C
nodes, one sync run each (`Schedule.omissions`, `Schedule.crashes`), the invariant checked on the
last step of each. `verify` asks the same question once of the fault-injected program
(docs/faults.md). Family: a broadcast that retransmits at every step from node n0 to n0..n{N-1},
with "every node has the message at the last step" as its invariant (it holds when E < T: the last
retransmission gets through), growing in nodes N, end of time (EOT = T + 1) and loss window.

    python benchmarks/faults.py [--limit SECONDS] [--json OUT] [--split K] [--split-only] [--master URL]

Prints, per point, the number of fault sets (Molly's estimate of the combinations: crash plans
times the subsets of the N(N-1)E channels), the seconds of enumeration (or "-" past --limit, with
the extrapolated time), the seconds of verify and their ratio. Both must give the same verdict.

Then (unless --split 0) `verify --split K` (8 by default) against the unsplit `verify`, on the
protocols of examples/molly/ at Molly's sizes and on the largest point of the family: each as a
command in its own process (whole-process wall time, and the seconds the command reports), once
unsplit, once split in turn (`--engine local`) and once on Spark (`--engine spark --master URL`,
local[2] by default: the JVM's start is in its wall time). The three verdicts (holds, and the
number of faults of the counterexample) must be equal. `--split-only` skips the parts before.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from itertools import combinations
from math import comb

from dedalus2asp.bounds import Bounds, Network
from dedalus2asp.lang.facts import parse_facts
from dedalus2asp.lang.parser import parse_program
from dedalus2asp.runs import engine
from dedalus2asp.runs.schedule import Schedule
from dedalus2asp.runs.transitions import crash_plans
from dedalus2asp.questions.verify import verify

RETRANSMIT = """
% retransmit forever: n0 sends its message to every member at every step
sending(M) :- start(M).
sending(M)@next :- sending(M).
bcast(M)@async(Y) :- sending(M), member(Y).
got(M) :- bcast(M).
got(M)@next :- got(M).
"""
PROGRAM = RETRANSMIT + """\
% the invariant, as rows (node, message): every node expects the message and should have got it
pre(M) :- msg(M).
post(M) :- got(M).
"""

POINTS = [  # (nodes, horizon T, loss window E, crashes C)
    (3, 2, 1, 0), (3, 3, 1, 0), (3, 2, 1, 1), (3, 3, 2, 0), (4, 2, 1, 0), (3, 4, 3, 0), (4, 3, 2, 0), (5, 3, 2, 0),
]
MOLLY_SIZED = [  # Molly-sized questions, verify only: (nodes, T, E, C, network)
    (4, 8, 7, 2, "sync"), (5, 8, 7, 2, "sync"), (5, 8, 7, 0, "sync"), (5, 8, 7, 1, "sync"),
    (4, 8, 7, 2, "async, delay ≤ 1"), (5, 5, 4, 1, "async, delay ≤ 1"),
]


def instance(n: int):
    nodes = [f"n{i}" for i in range(n)]
    text = " ".join(f"member({x})." for x in nodes) + " msg(hi).\n"
    text += "n0 { start(hi)@0. }\n" + "".join(f"{x} {{ }}\n" for x in nodes[1:])
    return parse_facts(text, "broadcast.facts")


def fault_sets(n: int, horizon: int, loss_until: int, crashes: int) -> int:
    """Molly's count of fault combinations: crash plans times the subsets of omitted channels."""
    plans = sum(comb(n, k) * (horizon + 1) ** k for k in range(min(crashes, n) + 1))
    return plans * 2 ** (n * (n - 1) * loss_until)


def enumerate_faults(program, facts, n, horizon, loss_until, crashes, limit):
    """One run per fault set with the local engine; (holds, runs done, seconds, finished)."""
    nodes = tuple(str(x) for x in facts.network)
    channels = [(x, s, y) for x in nodes for y in nodes if x != y for s in range(loss_until)]
    data = engine.from_instance(facts, program)
    began, done = time.perf_counter(), 0
    for plan in crash_plans(nodes, crashes, horizon):
        for k in range(len(channels) + 1):
            for omitted in combinations(channels, k):
                run = engine.run(program, data, horizon + 1, Schedule(crashes=tuple(plan.items()), omissions=omitted))
                done += 1
                last = {(x, r, args) for x, s, r, args in run.trace if s == horizon}
                if any(r == "pre" and (x, "post", args) not in last for x, r, args in last):
                    return False, done, time.perf_counter() - began, True
                if time.perf_counter() - began > limit:
                    return None, done, time.perf_counter() - began, False
    return True, done, time.perf_counter() - began, True


ROOT = Path(__file__).resolve().parent.parent
MOLLY = ROOT / "examples" / "molly"
SPLIT_POINTS = [  # (files, options): Molly-sized questions of the library, and the family's largest point
    (["two_phase_commit_timeout.ded", "commit_assert.ded"], ["--eot", "9", "--eff", "7", "--crashes", "2", "--max-delay", "1"]),
    (["classic_broadcast.ded", "broadcast_assert.ded"], ["--eot", "9", "--eff", "7", "--crashes", "2", "--delivery", "sync"]),
    (["ack_broadcast.ded", "broadcast_assert.ded"], ["--eot", "9", "--eff", "7", "--crashes", "1", "--max-delay", "1"]),
    (["ack_broadcast.ded", "broadcast_assert.ded"], ["--eot", "9", "--eff", "7", "--delivery", "sync"]),  # it holds
    (None, ["--eot", "9", "--eff", "7", "--crashes", "2", "--delivery", "sync"]),  # the retry family, 5 nodes
]


def split_points(parts: int, master: str, budget: float) -> list[dict]:
    """`verify` unsplit, `--split K --engine local` and `--split K --engine spark`, each in its own process."""
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        family = Path(scratch) / "retry.ded"
        family.write_text(PROGRAM)
        facts = Path(scratch) / "retry.facts"
        nodes = [f"n{i}" for i in range(5)]
        facts.write_text(" ".join(f"member({x})." for x in nodes) + " msg(hi).\nn0 { start(hi)@0. }\n"
                         + "".join(f"{x} {{ }}\n" for x in nodes[1:]))
        for names, options in SPLIT_POINTS:
            files = [str(MOLLY / n) for n in names] if names else [str(family), "--input", str(facts), "--dialect", "transparent"]
            label = (names[0] if names else "retry family, 5 nodes") + " " + " ".join(options)
            row = {"point": label, "parts": parts}
            for name, extra in (("unsplit", []), ("local", ["--split", str(parts), "--engine", "local"]),
                                ("spark", ["--split", str(parts), "--engine", "spark", "--master", master])):
                command = [sys.executable, "-m", "dedalus2asp", "verify", *files, *options, "--json", "--quiet", *extra]
                before = os.getloadavg()[0]
                began = time.perf_counter()
                try:
                    done = subprocess.run(command, capture_output=True, text=True, timeout=budget)
                except subprocess.TimeoutExpired:
                    row[name] = {"status": f"over {budget:.0f} s"}
                    continue
                wall = time.perf_counter() - began
                answer = json.loads(done.stdout) if done.returncode in (0, 1) else {}
                found = answer.get("counterexample")
                row[name] = {"status": "ok" if answer else f"exit {done.returncode}: {done.stderr.strip()[-200:]}",
                             "wall": round(wall, 2), "seconds": answer.get("seconds"), "holds": answer.get("holds"),
                             "faults": found and found["faults"], "loadavg": [round(before, 1), round(os.getloadavg()[0], 1)]}
            verdicts = {(r["holds"], r["faults"]) for r in (row.get(k, {}) for k in ("unsplit", "local", "spark")) if "holds" in r}
            assert len(verdicts) <= 1, (label, row)
            rows.append(row)
            shown = "  ".join(f"{k} {row[k].get('wall', '-')} s wall ({row[k].get('seconds', row[k]['status'])} s)"
                              for k in ("unsplit", "local", "spark"))
            print(f"{label}\n    {shown}  verdict {verdicts.pop() if verdicts else '-'}", flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=float, default=600.0, help="seconds of enumeration per point (default 600)")
    parser.add_argument("--json", help="write the rows to this file")
    parser.add_argument("--split", type=int, default=8, help="parts of verify --split against the unsplit verify (0: skip)")
    parser.add_argument("--split-only", action="store_true", help="only verify --split against the unsplit verify")
    parser.add_argument("--master", default="local[2]", help="Spark master of verify --split --engine spark")
    parser.add_argument("--budget", type=float, default=900.0, help="seconds per verify process (default 900)")
    args = parser.parse_args()
    program = parse_program(PROGRAM, "retry.ded")
    rows = []
    if args.split_only:
        rows = split_points(args.split, args.master, args.budget)
        if args.json:
            with open(args.json, "w", encoding="utf-8") as out:
                json.dump(rows, out, indent=2)
        return
    print(f"{'N':>2} {'EOT':>3} {'E':>2} {'C':>2} {'fault sets':>12} {'enumeration s':>14} {'verify s':>9} {'ratio':>8}  verdict")
    for n, horizon, loss_until, crashes in POINTS:
        facts = instance(n)
        sets = fault_sets(n, horizon, loss_until, crashes)
        began = time.perf_counter()
        verdict = verify(program, facts, Bounds(horizon, network=Network("sync", loss_until=loss_until, crashes=crashes)))
        seconds = time.perf_counter() - began
        holds, done, spent, finished = enumerate_faults(program, facts, n, horizon, loss_until, crashes, args.limit)
        if finished:
            assert holds == verdict.holds, (n, horizon, loss_until, crashes)
        estimate = spent if finished else spent / done * sets
        ratio = estimate / seconds
        shown = f"{spent:14.2f}" if finished else f"{'>' + format(args.limit, '.0f'):>6} (~{estimate:,.0f})"
        print(f"{n:>2} {horizon + 1:>3} {loss_until:>2} {crashes:>2} {sets:>12,} {shown:>14} {seconds:9.2f} "
              f"{ratio:8.1f}{'' if finished else '*'}  {verdict.describe().splitlines()[0][:60]}")
        rows.append({"nodes": n, "eot": horizon + 1, "loss_until": loss_until, "crashes": crashes, "fault_sets": sets,
                     "enumeration_seconds": spent, "enumeration_finished": finished, "runs": done,
                     "estimated_enumeration_seconds": estimate, "verify_seconds": seconds, "ratio": ratio,
                     "holds": verdict.holds})
    print("* enumeration stopped at --limit: its time is extrapolated from the runs done")
    print(f"\nMolly-sized questions (verify only)\n{'N':>2} {'EOT':>3} {'E':>2} {'C':>2} {'network':<17} {'verify s':>9}  verdict")
    for n, horizon, loss_until, crashes, kind in MOLLY_SIZED:
        network = (Network("sync", loss_until=loss_until, crashes=crashes) if kind == "sync"
                   else Network(max_delay=1, loss_until=loss_until, crashes=crashes))
        began = time.perf_counter()
        verdict = verify(program, instance(n), Bounds(horizon, network=network))
        seconds = time.perf_counter() - began
        print(f"{n:>2} {horizon + 1:>3} {loss_until:>2} {crashes:>2} {kind:<17} {seconds:9.2f}  "
              f"{verdict.describe().splitlines()[0][:70]}")
        rows.append({"nodes": n, "eot": horizon + 1, "loss_until": loss_until, "crashes": crashes, "network": kind,
                     "verify_seconds": seconds, "holds": verdict.holds, "molly_sized": True})
    if args.split:
        print(f"\nverify --split {args.split} (in turn and on Spark, {args.master}) against the unsplit verify")
        rows += split_points(args.split, args.master, args.budget)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(rows, out, indent=2)


if __name__ == "__main__":
    main()
