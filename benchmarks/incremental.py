"""`cron --search-horizon`: multi-shot (incremental) against grounding every horizon from scratch.

For each family and size, the search runs over horizons 1..T with a delay bound D = 1 on inputs
where the search reaches T (the program is consistent and tolerant at every horizon; checked):

* `causal`: the causal-finite side only, certain and possible outputs at each horizon, from one
  multi-shot control (`incremental`, each step grounded once) or from the fast program grounded
  anew at each horizon;
* `search`: the whole search, whose choice side is grounded from scratch in both modes (see
  dedalus2asp/questions/cron.py for why the choice program is not multi-shot); only where it reaches T
  (alg1 and 2pc have a bounded violation at horizon 1: a message still in flight).

Prints a table and writes benchmarks/incremental.json.

    python benchmarks/incremental.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from families import EXAMPLES, alg1_chain, alg2_empty, two_phase_commit  # noqa: E402

from dedalus2asp.questions import cron  # noqa: E402
from dedalus2asp.asp.incremental import Unrolling, incremental  # noqa: E402
from dedalus2asp.lang.facts import parse_facts  # noqa: E402
from dedalus2asp.lang.parser import load_program  # noqa: E402
from dedalus2asp.bounds import Bounds, Encoding, Network, Semantics  # noqa: E402

FAMILIES = {
    "alg1": ("jcss2014/alg1.ded", alg1_chain),
    "2pc": ("tplp2016/ex3_2pc.ded", two_phase_commit),
    "alg2": ("jcss2014/alg2.ded", alg2_empty),
}
DELAY = 1
NETWORK = Network(max_delay=DELAY)


class EarlyStop(Exception):
    """The search found a violation before T: nothing to compare."""


def causal_side(program, instance, horizon: int, incremental_: bool) -> float:
    """Seconds to get the causal certain and possible outputs at every horizon 1..T."""
    start = time.perf_counter()
    deadline = cron.Deadline(None)
    outs = program.output_relations
    if incremental_:
        unrolling = Unrolling(incremental(program, instance, Semantics.CAUSAL_FINITE, NETWORK, outs))
        for h in range(1, horizon + 1):
            unrolling.extend(h)
            at_h = lambda s, h=h: s.arguments[0].number == h
            cron.consequences(unrolling.control, "cautious", deadline, at_h)
            cron.consequences(unrolling.control, "brave", deadline, at_h)
    else:
        for h in range(1, horizon + 1):
            bounds = Bounds(h, Semantics.CAUSAL_FINITE, Encoding.FAST, NETWORK)
            cron.Semantic(program, instance, bounds, outs).consequences(deadline)
    return time.perf_counter() - start


def search_side(program, instance, horizon: int, incremental_: bool) -> float:
    """Seconds of the search itself (the final full analysis left out); it must reach T."""
    found = cron.search(program, instance, Bounds(horizon, network=NETWORK), incremental_=incremental_).search
    if found["smallest_horizon"] is not None:
        raise EarlyStop(found["smallest_horizon"])
    return found["seconds"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes only (a smoke run)")
    args = parser.parse_args()
    points = (
        [("alg1", 3, 4), ("2pc", 2, 4), ("alg2", 3, 4)]
        if args.quick
        else [("alg1", 3, 12), ("alg1", 4, 16), ("2pc", 3, 16), ("2pc", 4, 24), ("alg2", 2, 24), ("alg2", 3, 16), ("alg2", 3, 24), ("alg2", 4, 24)]
    )
    rows = []
    print(f"{'family':<6} {'N':>2} {'T':>3} | {'causal scratch':>14} {'incremental':>11} {'saving':>6} | {'search scratch':>14} {'incremental':>11} {'saving':>6}")
    for family, size, horizon in points:
        path, generate = FAMILIES[family]
        program = load_program(EXAMPLES / path)
        instance = parse_facts(generate(size), f"<{family} {size}>")
        row = {"family": family, "size": size, "horizon": horizon, "max_delay": DELAY}
        for side, measure in (("causal", causal_side), ("search", search_side)):
            try:
                scratch = measure(program, instance, horizon, False)
                multi = measure(program, instance, horizon, True)
            except EarlyStop as stop:
                row[side] = {"stopped_at": stop.args[0]}
                continue
            row[side] = {"scratch_seconds": round(scratch, 3), "incremental_seconds": round(multi, 3),
                         "speedup": round(scratch / multi, 2) if multi else None}
        rows.append(row)
        c, s = row["causal"], row["search"]
        search = (
            f"{s['scratch_seconds']:>13.2f}s {s['incremental_seconds']:>10.2f}s {s['speedup']:>5.1f}x"
            if "speedup" in s else f"stops at horizon {s['stopped_at']}"
        )
        print(
            f"{family:<6} {size:>2} {horizon:>3} | {c['scratch_seconds']:>13.2f}s {c['incremental_seconds']:>10.2f}s"
            f" {c['speedup']:>5.1f}x | {search}",
            flush=True,
        )
    out = Path(__file__).resolve().parent / "incremental.json"
    out.write_text(json.dumps({"delay": DELAY, "rows": rows}, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
