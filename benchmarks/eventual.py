"""How large the eventual explorer's configuration graph is on Molly's protocols, and how long it takes.

    python benchmarks/eventual.py            # every protocol at every fault budget, about five minutes on 2 cores (the two infinite graphs take most)
    python benchmarks/eventual.py --quick    # the fault-free and the smallest faulty budget, seconds

`explore --eventual` (docs/semantics.md, "The eventual semantics") builds the graph of the
normalised configurations of a protocol's infinite runs and reads the ultimate outputs off its
strongly connected components. Each protocol of examples/molly/ (with its own facts, or its
.facts file) is run under sync delivery, Molly's rounds, with Molly-like fault budgets: none; losses
before step 2 (Molly's --EFF 3); that and one crash; losses before step 4 and two crashes (--EFF 5,
--crashes 2), a crash at any step (`--crash-times any`: the graph does not follow Molly's crash
candidates, which are the sync default of the bounded questions). The output relations are every relation a node derives (the hardest case for the
search of ultimate sets: the protocols declare none, their invariants are global). A protocol that
reads crash/2 is refused under crashes (the crash step is not capped), and a point stops at
MAX_CONFIGURATIONS or TIME_LIMIT seconds: heartbeat and vote_counter count steps in a relation
(`tick(N, T + 1)@next`), value invention, so their graphs are infinite. broadcast_simple and timer
have no input of their own and are left out. A last row (not with --quick) is a graph of 10^5
configurations: three nodes counting modulo 43, 47 and 53 (`COUNTERS`).

Per point: configurations, transitions, strongly connected components with a cycle, distinct ultimate
outputs, whether the answer is exact, the threshold K (an upper bound, or K itself when marked =),
and the seconds (graph and ultimate outputs together). Prints a table and writes
benchmarks/eventual.json (not with --quick). Timings depend on the machine: compare the sizes.
"""

from __future__ import annotations

import argparse
import json
import platform
import signal
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from dedalus2asp import pipeline  # noqa: E402
from dedalus2asp.bounds import Bounds, Mode, Network  # noqa: E402
from dedalus2asp.runs import eventual  # noqa: E402

MOLLY = HERE.parent / "examples" / "molly"
PROTOCOLS = [
    ("simple_broadcast.ded", None), ("retry_broadcast.ded", None), ("classic_broadcast.ded", None),
    ("ack_broadcast.ded", None), ("broadcast.ded", "broadcast.facts"),
    ("reliable_delivery.ded", "reliable_delivery.facts"), ("heartbeat.ded", None),
    ("countdown.ded", None), ("vote_counter.ded", None), ("two_phase_commit.ded", None),
    ("two_phase_commit_timeout.ded", None),
]
BUDGETS = [(None, 0), (2, 0), (2, 1), (4, 2)]  # (loss window E, crashes C)
QUICK_BUDGETS = [(None, 0), (2, 0)]
MAX_CONFIGURATIONS = 50_000
TIME_LIMIT = 30


class OutOfTime(Exception):
    pass


def point(program: str, facts: str | None, loss_until: int | None, crashes: int) -> dict:
    prog, instance, _ = pipeline.load(MOLLY / program, MOLLY / facts if facts else None, "auto")
    outputs = tuple(r for r in prog.idb() if r not in prog.global_relations())
    bounds = Bounds(0, network=Network("sync", loss_until=loss_until, crashes=crashes, crash_times="any"), mode=Mode.EVENTUAL)
    row = {"protocol": program, "loss_until": loss_until, "crashes": crashes, "outputs": list(outputs)}

    def stop(*_):
        raise OutOfTime

    signal.signal(signal.SIGALRM, stop)
    signal.alarm(TIME_LIMIT)
    began = time.perf_counter()
    try:
        result = eventual.explore(prog, instance, bounds, MAX_CONFIGURATIONS, outputs)
    except ValueError as refused:
        return row | {"refused": str(refused)}
    except OutOfTime:
        return row | {"refused": f"stopped after {TIME_LIMIT} s"}
    finally:
        signal.alarm(0)
    return row | summary(result) | {"seconds": round(time.perf_counter() - began, 3)}


def summary(result: eventual.Eventual) -> dict:
    """What a row records of an answer: the graph's size, the number of ultimate outputs, the threshold."""
    return {"configurations": result.configurations, "edges": result.edges, "components": result.components,
            "ultimate_outputs": len(result.ultimate_outputs), "exact": result.exact, "threshold": result.threshold,
            "threshold_exact": result.threshold_exact}


COUNTERS = """.output zero.
c(M)@next :- c(N), succ(N, M).
c(0)@next :- init(), not running().
running()@next :- init().
zero() :- c(0).
"""
"""Three nodes count modulo 43, 47 and 53 in step: one cycle of 43 · 47 · 53 = 107113 configurations, the scale
of graph the explorer must handle (the iterative Tarjan, the search of ultimate sets, a witness of 10^5 steps)."""


def counters() -> dict:
    with tempfile.TemporaryDirectory() as scratch:
        program, facts = Path(scratch) / "counters.ded", Path(scratch) / "counters.facts"
        program.write_text(COUNTERS, encoding="utf-8")
        facts.write_text("".join(f"{x} {{ init(). " + " ".join(f"succ({i}, {(i + 1) % n})." for i in range(n)) + " }\n"
                                 for x, n in (("a", 43), ("b", 47), ("c", 53))), encoding="utf-8")
        prog, instance, _ = pipeline.load(program, facts, "auto")
        began = time.perf_counter()
        result = eventual.explore(prog, instance, Bounds(0, network=Network("sync"), mode=Mode.EVENTUAL))
        seconds = time.perf_counter() - began
    return {"protocol": "counters 43×47×53", "loss_until": None, "crashes": 0} | summary(result) | {
        "witness_steps": len(result.witnesses[0].steps), "seconds": round(seconds, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="two fault budgets, no JSON")
    quick = parser.parse_args().quick
    print(f"{'protocol':<30} {'E':>2} {'C':>2} {'configs':>8} {'edges':>8} {'SCCs':>5} {'outs':>5} {'exact':>5} "
          f"{'K':>7} {'seconds':>8}")
    rows = []
    for program, facts in PROTOCOLS:
        for loss_until, crashes in QUICK_BUDGETS if quick else BUDGETS:
            row = point(program, facts, loss_until, crashes)
            rows.append(row)
            head = f"{program:<30} {loss_until or 0:>2} {crashes:>2}"
            if "refused" in row:
                print(f"{head} {row['refused'][:70]}")
                continue
            k = ("=" if row["threshold_exact"] else "≤") + str(row["threshold"]) if row["threshold"] is not None else "-"
            print(f"{head} {row['configurations']:>8} {row['edges']:>8} {row['components']:>5} {row['ultimate_outputs']:>5} "
                  f"{'yes' if row['exact'] else 'no':>5} {k:>7} {row['seconds']:>8.3f}", flush=True)
    if not quick:
        row = counters()
        rows.append(row)
        print(f"{row['protocol']:<30} {0:>2} {0:>2} {row['configurations']:>8} {row['edges']:>8} {row['components']:>5} "
              f"{row['ultimate_outputs']:>5} {'yes' if row['exact'] else 'no':>5} {'≤' + str(row['threshold']):>7} "
              f"{row['seconds']:>8.3f}  (a witness of {row['witness_steps']} steps)")
        document = {"machine": platform.machine(), "python": platform.python_version(), "delivery": "sync",
                    "max_configurations": MAX_CONFIGURATIONS, "time_limit": TIME_LIMIT, "points": rows}
        (HERE / "eventual.json").write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
