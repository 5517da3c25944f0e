"""What the Lamport-clock rewrite (tr2009 §6.6, `convert --to lamport`) costs, and what it buys.

    python benchmarks/coordination.py            # the table, and benchmarks/coordination.json
    python benchmarks/coordination.py --quick    # a smoke run (smaller horizons), nothing written

For each program, before and after the rewrite of the asynchronous relations its loci of coordination involve:
the rules, the ground program of `count` (fast encoding, causal-finite, delay bound 1: clingo's ground rules and
atoms), its models and the time to count them, and `cron`'s verdict with its time (both semantics solved). Every
point runs in this process, one after the other; timings depend on the machine: compare the ratios.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from dedalus2asp.questions import cron  # noqa: E402
from dedalus2asp.asp import solve  # noqa: E402
from dedalus2asp.asp.transform import transform  # noqa: E402
from dedalus2asp.bounds import Bounds, Encoding, Network, Semantics  # noqa: E402
from dedalus2asp.lang import coordination, lamport  # noqa: E402
from dedalus2asp.lang.located import LocatedProgram  # noqa: E402
from dedalus2asp.lang.parser import load_instance, load_source, parse_source  # noqa: E402

EXAMPLES = HERE.parent / "examples"
CASES = [  # name, program, input (None: its own facts), horizon, output relations
    ("tplp2016 Fig. 4", "tplp2016/fig4_noncausal.ded", "tplp2016/fig4.facts", 3, None),
    ("jcss2014 Alg. 3", "jcss2014/alg3.ded", "jcss2014/alg3.facts", 3, None),
    ("tplp2016 Ex. 3 (2PC)", "tplp2016/ex3_2pc.ded", "tplp2016/ex3_2pc_small.facts", 3, None),
    ("Molly 2PC", "molly/two_phase_commit.ded", None, 3, ("decision",)),
]


def program_and_input(source, facts):
    located = source if isinstance(source, LocatedProgram) else None
    program = located.program if located else source
    given = load_instance(facts, located.columns if located else None) if facts else None
    return program, (located.instance(given) if located else given)


def measure(source, facts, horizon: int, outputs) -> dict:
    program, instance = program_and_input(source, facts)
    bounds = Bounds(horizon, Semantics.CAUSAL_FINITE, Encoding.FAST, Network(max_delay=1))
    start = time.perf_counter()
    counted = solve.count(transform(program, instance, bounds), progress=False)
    counting = time.perf_counter() - start
    start = time.perf_counter()
    verdict = cron.analyse(program, instance, bounds, outputs)
    return {
        "rules": len(program.rules),
        "ground_rules": counted["ground_rules"],
        "ground_atoms": counted["ground_atoms"],
        "models": counted["models"],
        "count_s": round(counting, 3),
        "consistent": verdict.consistent,
        "tolerant": verdict.tolerant,
        "cron_s": round(time.perf_counter() - start, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="horizon 2 everywhere, write nothing")
    args = parser.parse_args()
    rows = []
    for name, path, facts, horizon, outputs in CASES:
        horizon = 2 if args.quick else horizon
        source = load_source(EXAMPLES / path)
        program = source.program if isinstance(source, LocatedProgram) else source
        relations = coordination.analyse(program).lamport_relations()
        rewritten = parse_source(lamport.rewrite(source, relations).text, str(EXAMPLES / path))
        facts_path = EXAMPLES / facts if facts else None
        before = measure(source, facts_path, horizon, outputs)
        after = measure(rewritten, facts_path, horizon, outputs)
        rows.append({"program": name, "horizon": horizon, "max_delay": 1, "rewritten": list(relations),
                     "before": before, "after": after})
    header = ("program", "T", "rewritten", "rules", "ground rules", "ground atoms", "models", "count s",
              "cron s", "tolerant")
    print(" | ".join(header))
    print(" | ".join("---" for _ in header))
    for row in rows:
        b, a = row["before"], row["after"]
        pair = lambda key: f"{b[key]} → {a[key]}"  # noqa: E731
        print(" | ".join([row["program"], str(row["horizon"]), ", ".join(row["rewritten"]), pair("rules"),
                          pair("ground_rules"), pair("ground_atoms"), pair("models"), pair("count_s"), pair("cron_s"),
                          pair("tolerant")]))
    if not args.quick:
        document = {"machine": platform.platform(), "python": platform.python_version(), "rows": rows}
        (HERE / "coordination.json").write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {HERE / 'coordination.json'}")


if __name__ == "__main__":
    main()
