"""How large the eventual explorer's configuration graph is on Molly's protocols and the papers' examples, and how long it takes.

    python benchmarks/eventual.py            # every protocol at every fault budget and the papers' examples under D = 1, 2
    python benchmarks/eventual.py --quick    # the fault-free and the smallest faulty budget, seconds

`explore --eventual` (docs/semantics.md, "The eventual semantics") builds the graph of the
normalised configurations of a program's infinite runs (nodes stepping in rounds) and reads the
ultimate outputs off its strongly connected components; with `--pre/--post` it gives the
invariant verdict over infinite runs (`runs/eventual_verify.py`, the oracle of `verify --eventual`).

* **Molly's protocols**: each program of examples/molly/ with an input (its own facts, or its
  .facts file), under sync delivery with Molly's fault model (the sync defaults: an omission cuts
  a channel, a node crashes at or after a step at which it sent), at the budgets of docs/molly.md's
  verify table — none; losses before step 2 (Molly's --EFF 3); one crash; losses before step 1 and
  one crash — and a larger one, losses before step 4 and two crashes. Per point the ultimate outputs
  of every relation a node derives (the hardest case for the search of ultimate sets: the protocols
  declare none, their invariants are global) and, for the protocols with an invariant file
  (broadcast_assert.ded, commit_assert.ded), the eventual verdict with its fewest faults (its graph
  remembers what the global rules read at fixed steps, so it may be larger). broadcast_simple and
  timer have no input of their own (other programs include them) and are left out.
* **The papers' examples** (examples/jcss2014, examples/tplp2016) under async with a delay bound
  D = 1 and D = 2, in rounds: the ultimate outputs of their `.output` relations and whether they
  are consistent (jcss2014: one ultimate output).

A point stops at MAX_CONFIGURATIONS or TIME_LIMIT seconds: heartbeat and vote_counter count steps
in a relation (`tick(N, T + 1)@next`), value invention, so their graphs are infinite. A last row
(not with --quick) is a graph of 10^5 configurations: three nodes counting modulo 43, 47 and 53
(`COUNTERS`).

Per point: configurations, transitions, strongly connected components with a cycle, distinct ultimate
outputs, whether the answer is exact, the threshold K (an upper bound, or K itself when marked =),
consistency, the verdict (H holds, H° vacuously, V violated with its fewest faults) with its own
graph's size and K, and the seconds. Prints the tables and writes benchmarks/eventual.json (not with
--quick). Timings depend on the machine: compare the sizes.
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
from dedalus2asp.runs import eventual, eventual_verify  # noqa: E402

EXAMPLES = HERE.parent / "examples"
MOLLY = EXAMPLES / "molly"
BROADCAST_ASSERT, COMMIT_ASSERT = "broadcast_assert.ded", "commit_assert.ded"
PROTOCOLS = [  # (program, its input, its invariant file)
    ("simple_broadcast.ded", None, BROADCAST_ASSERT), ("retry_broadcast.ded", None, BROADCAST_ASSERT),
    ("classic_broadcast.ded", None, BROADCAST_ASSERT), ("ack_broadcast.ded", None, BROADCAST_ASSERT),
    ("broadcast.ded", "broadcast.facts", None), ("broadcast_transparent.ded", "broadcast_transparent.facts", None),
    ("reliable_delivery.ded", "reliable_delivery.facts", None),
    ("reliable_delivery_transparent.ded", "reliable_delivery_transparent.facts", None), ("heartbeat.ded", None, None),
    ("countdown.ded", None, None), ("vote_counter.ded", None, None), ("two_phase_commit.ded", None, COMMIT_ASSERT),
    ("two_phase_commit_timeout.ded", None, COMMIT_ASSERT),
]
BUDGETS = [(None, 0), (2, 0), (None, 1), (1, 1), (4, 2)]  # (loss window E, crashes C): docs/molly.md's table, and more
QUICK_BUDGETS = [(None, 0), (2, 0)]
PAPERS = [  # (program, input) under --max-delay 1 and 2
    ("jcss2014/alg1.ded", "jcss2014/alg1.facts"), ("jcss2014/alg2.ded", "jcss2014/alg2_empty.facts"),
    ("jcss2014/alg2.ded", "jcss2014/alg2_nonempty.facts"), ("jcss2014/alg3.ded", "jcss2014/alg3.facts"),
    ("jcss2014/alg3.ded", "jcss2014/alg3_empty.facts"), ("jcss2014/alg4.ded", "jcss2014/alg4.facts"),
    ("tplp2016/ex1_reachability.ded", "tplp2016/ex1_reachability.facts"),
    ("tplp2016/ex1_reachability.ded", "tplp2016/ex1_unreachable.facts"),
    ("tplp2016/ex2_ordering.ded", "tplp2016/ex2_ordering.facts"), ("tplp2016/ex3_2pc.ded", "tplp2016/ex3_2pc_yes.facts"),
    ("tplp2016/ex3_2pc.ded", "tplp2016/ex3_2pc_no.facts"), ("tplp2016/fig4_noncausal.ded", "tplp2016/fig4.facts"),
    ("tplp2016/fig5_grouping.ded", "tplp2016/fig5.facts"),
]
DELAYS = (1, 2)
MAX_CONFIGURATIONS = 50_000
TIME_LIMIT = 20


class OutOfTime(Exception):
    pass


def timed(question, *args):
    """(the answer, the seconds), or (the reason it was refused or stopped, None)."""
    def stop(*_):
        raise OutOfTime

    signal.signal(signal.SIGALRM, stop)
    signal.alarm(TIME_LIMIT)
    began = time.perf_counter()
    try:
        return question(*args), round(time.perf_counter() - began, 3)
    except ValueError as refused:
        return str(refused), None
    except OutOfTime:
        return f"stopped after {TIME_LIMIT} s", None
    finally:
        signal.alarm(0)


def point(program: str, facts: str | None, invariant: str | None, loss_until: int | None, crashes: int) -> dict:
    """One protocol at one budget: its ultimate outputs and, with an invariant file, its eventual verdict."""
    prog, instance, _ = pipeline.load(MOLLY / program, MOLLY / facts if facts else None, "auto")
    outputs = tuple(r for r in prog.idb() if r not in prog.global_relations())
    bounds = Bounds(0, network=Network("sync", loss_until=loss_until, crashes=crashes), mode=Mode.EVENTUAL)
    row = {"protocol": program, "loss_until": loss_until, "crashes": crashes, "outputs": list(outputs)}
    result, seconds = timed(eventual.explore, prog, instance, bounds, MAX_CONFIGURATIONS, outputs)
    if seconds is None:
        return row | {"refused": result}
    row |= summary(result) | {"seconds": seconds}
    if invariant:
        checked = pipeline.load([MOLLY / program, MOLLY / invariant], MOLLY / facts if facts else None, "auto")[:2]
        verdict, seconds = timed(eventual_verify.verify, *checked, bounds, "pre", "post", MAX_CONFIGURATIONS)
        row["invariant"] = invariant
        row["verify"] = {"refused": verdict} if seconds is None else {
            "holds": verdict.holds, "vacuous": verdict.vacuous, "faults": verdict.faults,
            "configurations": verdict.configurations, "edges": verdict.edges, "threshold": verdict.threshold,
            "threshold_exact": verdict.threshold_exact, "seconds": seconds}
    return row


def paper_point(program: str, facts: str, delay: int) -> dict:
    """One example of the papers under --max-delay `delay`: its ultimate outputs (of its .output relations)."""
    prog, instance, _ = pipeline.load(EXAMPLES / program, EXAMPLES / facts, "auto")
    bounds = Bounds(0, network=Network(max_delay=delay), mode=Mode.EVENTUAL)
    row = {"program": program, "input": facts, "max_delay": delay, "outputs": list(prog.output_relations)}
    result, seconds = timed(eventual.explore, prog, instance, bounds, MAX_CONFIGURATIONS)
    if seconds is None:
        return row | {"refused": result}
    return row | summary(result) | {"seconds": seconds}


def summary(result: eventual.Eventual) -> dict:
    """What a row records of an answer: the graph's size, the number of ultimate outputs, the threshold."""
    return {"configurations": result.configurations, "edges": result.edges, "components": result.components,
            "ultimate_outputs": len(result.ultimate_outputs), "exact": result.exact, "threshold": result.threshold,
            "threshold_exact": result.threshold_exact, "consistent": result.consistent}


def k_of(row: dict) -> str:
    return ("=" if row["threshold_exact"] else "≤") + str(row["threshold"]) if row.get("threshold") is not None else "-"


def verdict_of(row: dict) -> str:
    check = row.get("verify")
    if check is None:
        return ""
    if "refused" in check:
        return check["refused"][:40]
    shown = "?" if check["holds"] is None else ("H°" if check["vacuous"] else "H") if check["holds"] else f"V{check['faults']}"
    return f"{shown:>3} {check['configurations']:>6} {k_of(check):>5} {check['seconds']:>7.3f}"


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
    print("Molly's protocols, sync delivery, Molly's fault model; verdict: H holds (H° vacuously), Vn violated with n faults")
    print(f"{'protocol':<36} {'E':>2} {'C':>2} {'configs':>8} {'edges':>8} {'SCCs':>5} {'outs':>5} {'exact':>5} "
          f"{'K':>6} {'seconds':>8} | {'ver':>3} {'configs':>6} {'K':>5} {'seconds':>7}")
    rows = []
    for program, facts, invariant in PROTOCOLS:
        for loss_until, crashes in QUICK_BUDGETS if quick else BUDGETS:
            row = point(program, facts, invariant, loss_until, crashes)
            rows.append(row)
            head = f"{program:<36} {loss_until or 0:>2} {crashes:>2}"
            if "refused" in row:
                print(f"{head} {row['refused'][:70]}")
                continue
            print(f"{head} {row['configurations']:>8} {row['edges']:>8} {row['components']:>5} {row['ultimate_outputs']:>5} "
                  f"{'yes' if row['exact'] else 'no':>5} {k_of(row):>6} {row['seconds']:>8.3f} | {verdict_of(row)}", flush=True)
    papers = []
    print("\nThe papers' examples, async in rounds with a delay bound D; consistent: one ultimate output")
    print(f"{'program':<32} {'input':<24} {'D':>2} {'configs':>8} {'edges':>8} {'outs':>5} {'cons':>4} {'exact':>5} "
          f"{'K':>6} {'seconds':>8}")
    for program, facts in PAPERS[:2] if quick else PAPERS:
        for delay in DELAYS:
            row = paper_point(program, facts, delay)
            papers.append(row)
            head = f"{program:<32} {Path(facts).name:<24} {delay:>2}"
            if "refused" in row:
                print(f"{head} {row['refused'][:70]}")
                continue
            consistent = "-" if row["consistent"] is None else "yes" if row["consistent"] else "no"
            print(f"{head} {row['configurations']:>8} {row['edges']:>8} {row['ultimate_outputs']:>5} {consistent:>4} "
                  f"{'yes' if row['exact'] else 'no':>5} {k_of(row):>6} {row['seconds']:>8.3f}", flush=True)
    if not quick:
        row = counters()
        rows.append(row)
        print(f"\n{row['protocol']:<36} {0:>2} {0:>2} {row['configurations']:>8} {row['edges']:>8} {row['components']:>5} "
              f"{row['ultimate_outputs']:>5} {'yes' if row['exact'] else 'no':>5} {k_of(row):>6} "
              f"{row['seconds']:>8.3f}  (a witness of {row['witness_steps']} steps)")
        document = {"machine": platform.machine(), "python": platform.python_version(), "delivery": "sync",
                    "fault_model": "Molly's (omission channel, crash-times after-send, crash-model clock)",
                    "max_configurations": MAX_CONFIGURATIONS, "time_limit": TIME_LIMIT, "points": rows,
                    "papers": papers}
        (HERE / "eventual.json").write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
