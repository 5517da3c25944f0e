"""`verify --search-horizon`: one multi-shot program against one program per horizon (issue #19).

Both find the smallest horizon 0..T with a counterexample (Molly's question: Alvaro, Rosen,
Hellerstein, *Lineage-driven fault injection*, SIGMOD 2015, §3), with the fewest faults; the
multi-shot way (dedalus2asp/questions/verify_search.py) grounds each step once, the other grounds steps
0..h again for every horizon h. Family: a broadcast that retransmits at every step from n0 to
n0..n{N-1}, with "every node has the message" as its invariant from step G = E + 1 on (a clock
gates `pre`: before G the invariant asks nothing), so a search without a counterexample goes
through every horizon. Without crashes it holds (the retransmission of step E cannot be lost);
with a crash, n0 crashing at step 0 breaks it at horizon G.

    python benchmarks/search_horizon.py [--json OUT] [--points K]

Prints, per point, the seconds of each way and their ratio; both must give the same answer (the
same horizons tried, verdict and fewest faults), which the script asserts.
"""

from __future__ import annotations

import argparse
import json
import os
import time

from dedalus2asp.bounds import Bounds, Network
from dedalus2asp.lang.facts import parse_facts
from dedalus2asp.lang.parser import parse_program
from dedalus2asp.questions.verify_search import search
from faults import RETRANSMIT  # noqa: E402 - the broadcast of benchmarks/faults.py, with a clock

PROGRAM = RETRANSMIT + """\
clock(T + 1)@next :- clock(T).
% the invariant, as rows (node, message), from step G on: every node should have got the message
pre(M) :- msg(M), clock(T), T >= {gate}.
post(M) :- got(M).
"""

POINTS = [  # (nodes N, horizon T, loss window E, crashes C, delivery)
    (4, 8, 6, 0, "sync"), (5, 8, 7, 2, "sync"), (6, 12, 10, 0, "sync"), (8, 10, 8, 1, "sync"), (8, 16, 14, 1, "sync"),
    (3, 5, 3, 0, "async, delay ≤ 1"), (4, 8, 6, 1, "async, delay ≤ 1"), (4, 10, 8, 1, "async, delay ≤ 2"),
]


def instance(n: int):
    nodes = [f"n{i}" for i in range(n)]
    text = " ".join(f"member({x})." for x in nodes) + " msg(hi).\n"
    text += "n0 { start(hi)@0. clock(0)@0. }\n" + "".join(f"{x} {{ clock(0)@0. }}\n" for x in nodes[1:])
    return parse_facts(text, "broadcast.facts")


def answer(verdict) -> tuple:
    found = verdict.counterexample
    return verdict.holds, verdict.searched, None if found is None else found.faults


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the rows to this file")
    parser.add_argument("--points", type=int, default=len(POINTS), help="only the first K points")
    args = parser.parse_args()
    rows = []
    warm = parse_program(PROGRAM.format(gate=1), "warm.ded")  # the templates compiled once, before any timing
    for network in (Network("sync", loss_until=1), Network(max_delay=1, loss_until=1)):
        search(warm, instance(2), Bounds(1, network=network))
        search(warm, instance(2), Bounds(1, network=network), multi_shot=False)
    print(f"{'N':>2} {'T':>2} {'E':>2} {'C':>2} {'network':<17} {'multi-shot s':>12} {'per horizon s':>13} {'ratio':>6}  answer")
    for n, horizon, loss_until, crashes, kind in POINTS[: args.points]:
        program = parse_program(PROGRAM.format(gate=loss_until + 1), "retry_gated.ded")
        network = (Network("sync", loss_until=loss_until, crashes=crashes) if kind == "sync"
                   else Network(max_delay=1, loss_until=loss_until, crashes=crashes))
        bounds = Bounds(horizon, network=network)
        load = os.getloadavg()[0]
        began = time.perf_counter()
        multi = search(program, instance(n), bounds)
        multi_seconds = time.perf_counter() - began
        began = time.perf_counter()
        each = search(program, instance(n), bounds, multi_shot=False)
        each_seconds = time.perf_counter() - began
        assert answer(multi) == answer(each), (n, horizon, loss_until, crashes, kind, answer(multi), answer(each))
        holds, searched, faults = answer(multi)
        said = "holds" if holds else f"breaks at {searched[-1]} with {faults} fault(s)" if holds is False else "unknown"
        print(f"{n:>2} {horizon:>2} {loss_until:>2} {crashes:>2} {kind:<17} {multi_seconds:12.2f} {each_seconds:13.2f} "
              f"{each_seconds / multi_seconds:6.1f}  {said} (load {load:.1f})", flush=True)
        rows.append({"nodes": n, "horizon": horizon, "loss_until": loss_until, "crashes": crashes, "network": kind,
                     "multi_shot_seconds": round(multi_seconds, 3), "per_horizon_seconds": round(each_seconds, 3),
                     "holds": holds, "searched": list(searched), "faults": faults, "load": round(load, 1)})
    print("ratio: per horizon / multi-shot; load: the 1-minute load average of the machine (2 cores) before the point")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(rows, out, indent=2)


if __name__ == "__main__":
    main()
