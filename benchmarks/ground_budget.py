"""The ground budget's estimate (`asp.budget.estimate`) against what clingo grounds, on Molly's programs.

For every configuration of Molly's experiments (`molly_configurations.py`: its test suite, the
paper's Fig. 12/13 and the Nemo case studies), the programs of Fig. 13 at larger EOTs (`SCALE`, EFF =
EOT - 1, as `molly_scale.py` explores them) and every other program of its corpus at EOT 6, EFF 3, one crash: the estimate
of the fault-injected program under `--delivery sync` (Molly's model), the number of rules clingo
grounds (its `lp` statistics after a first model), their ratio, and whether the default budget
(`--max-ground`, 10 million) would refuse it. Each grounding runs in a process of its own,
stopped after `--limit` seconds. Molly's nodes are given as the strings its facts write.

    python benchmarks/ground_budget.py --molly PATH/TO/molly [--limit 120] [--json benchmarks/ground_budget.json]
    python benchmarks/ground_budget.py --molly PATH/TO/molly --delivery async --max-delay 2 \
        --json benchmarks/ground_budget-async.json     # the same configurations under tplp2016's delivery

Measured (issue #31, 2 shared cores): 94 configurations, 86 that load and ground. Before the estimate
followed the steps (`asp.growth`) and counted joins' selectivity: 0 to 1,613 times clingo's rules, 30
outside a factor of ten, Paxos refused at EOT 32 and 40 and counted by the probe at EOT 8. Now: 0.47 to
6.95 times, none outside, none refused, none counted (docs/molly.md).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from molly_configurations import ALL, FIG13, Configuration, examples_ft  # noqa: E402

from dedalus2asp import pipeline  # noqa: E402
from dedalus2asp.asp import budget  # noqa: E402
from dedalus2asp.asp.transform import transform  # noqa: E402
from dedalus2asp.bounds import Bounds, Network  # noqa: E402
from dedalus2asp.lang.diagnostics import DiagnosticError  # noqa: E402


def bounds_of(c: Configuration, delivery: str = "sync", max_delay: int | None = None) -> Bounds:
    network = Network(delivery, max_delay=max_delay, loss_until=max(c.eff - 1, 0), crashes=c.crashes,
                      nodes=tuple(f'"{n}"' for n in c.nodes))
    return Bounds(c.eot - 1, network=network)


def _ground(text: str, out) -> None:
    import clingo

    ctl = clingo.Control(["--warn=none", "1"])
    ctl.add("base", [], text)
    began = time.perf_counter()
    ctl.ground([("base", [])])
    ctl.solve()
    lp = ctl.statistics["problem"]["lp"]
    out.put((int(lp["rules"]), time.perf_counter() - began))


def grounded(text: str, limit: float) -> tuple[int | None, float | None]:
    """The rules clingo grounds for `text` and the seconds it took, or (None, None) past `limit` seconds."""
    out = multiprocessing.Queue()
    process = multiprocessing.Process(target=_ground, args=(text, out))
    process.start()
    process.join(limit)
    if process.is_alive():
        process.kill()
        process.join()
        return None, None
    return out.get() if not out.empty() else (None, None)


def measure(root: Path, c: Configuration, limit: float, delivery: str = "sync", max_delay: int | None = None) -> dict:
    row = {"source": c.source, "files": list(c.files), "eot": c.eot, "eff": c.eff, "crashes": c.crashes,
           "nodes": list(c.nodes)}
    try:
        program, instance, _ = pipeline.load([root / f for f in c.files], None, "molly")
    except DiagnosticError as error:
        return row | {"loads": False, "error": error.diagnostics[0].message[:160]}
    bounds = bounds_of(c, delivery, max_delay)
    began = time.perf_counter()
    estimate = budget.estimate(program, instance, bounds).total
    estimated_in = time.perf_counter() - began
    try:
        text = transform(program, instance, bounds).text
    except DiagnosticError as error:  # e.g. an event beyond the horizon (raft_edb.ded's facts at time 100)
        return row | {"loads": False, "error": error.diagnostics[0].message[:160]}
    rules, seconds = grounded(text, limit)
    began = time.perf_counter()
    try:
        checked = budget.check(program, instance, bounds, budget.DEFAULT_MAX_GROUND)
        verdict = "counted" if checked.total != estimate else "accepted"
    except DiagnosticError:
        verdict = "REFUSED"
    return row | {
        "check": verdict, "check_seconds": round(time.perf_counter() - began, 3),
        "loads": True, "estimate": estimate, "estimate_seconds": round(estimated_in, 4), "ground_rules": rules,
        "ground_seconds": None if seconds is None else round(seconds, 3),
        "ratio": None if not rules else estimate / rules,
        "over_estimate": estimate > budget.DEFAULT_MAX_GROUND, "refused": verdict == "REFUSED",
    }


SCALE = (16, 24, 32, 40)
"""The larger EOTs at which the programs of Fig. 13 are measured too."""


def configurations(root: Path) -> list[Configuration]:
    seen = {c.files for c in ALL}
    rows, done = [], set()
    for c in ALL:
        key = (c.files, c.eot, c.eff, c.crashes)
        if key not in done:
            done.add(key)
            rows.append(c)
    for c in FIG13:  # beyond Molly's EOT, as molly_scale.py explores it (EFF = EOT - 1): Paxos from EOT 32 was refused
        for eot in SCALE:
            if eot > c.eot:
                rows.append(c._replace(source="Fig. 13 programs, larger EOT (molly_scale.py)", eot=eot, eff=eot - 1))
    for path in sorted(root.rglob("*.ded")):
        name = str(path.relative_to(root))
        if (name,) not in seen and not any(name in files for files in seen):
            rows.append(Configuration("corpus, EOT 6 EFF 3 C 1", (name,), 6, 3, 1, (), None))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--molly", required=True, help="a checkout of palvaro/molly (or its examples_ft folder)")
    parser.add_argument("--limit", type=float, default=120.0, help="seconds of grounding per program")
    parser.add_argument("--delivery", choices=("sync", "async"), default="sync",
                        help="sync: Molly's rounds (the default); async: tplp2016's delivery, with --max-delay")
    parser.add_argument("--max-delay", type=int, default=None, help="the delay bound under --delivery async")
    parser.add_argument("--json", default=str(Path(__file__).with_name("ground_budget.json")))
    args = parser.parse_args()
    root = examples_ft(args.molly)
    rows = []
    print(f"{'program':44} {'EOT':>3} {'EFF':>3} {'C':>2} {'estimate':>12} {'ground':>10} {'ratio':>8} budget (s)")
    for c in configurations(root):
        row = measure(root, c, args.limit, args.delivery, args.max_delay)
        rows.append(row)
        name = " + ".join(c.files)[:44]
        if not row["loads"]:
            print(f"{name:44} {c.eot:>3} {c.eff:>3} {c.crashes:>2} does not load: {row['error'][:70]}")
            continue
        rules = "—" if row["ground_rules"] is None else f"{row['ground_rules']:,}"
        ratio = "—" if row["ratio"] is None else f"{row['ratio']:.2f}"
        print(f"{name:44} {c.eot:>3} {c.eff:>3} {c.crashes:>2} {row['estimate']:>12,.0f} {rules:>10} {ratio:>8} "
              f"{row['check']} ({row['check_seconds']:.2f})", flush=True)
    ratios = [r["ratio"] for r in rows if r.get("ratio")]
    summary = {
        "loaded": sum(1 for r in rows if r["loads"]), "configurations": len(rows),
        "refused": sum(1 for r in rows if r.get("refused")), "counted": sum(1 for r in rows if r.get("check") == "counted"),
        "ratio_min": min(ratios, default=None), "ratio_max": max(ratios, default=None),
        "within_10x": sum(1 for x in ratios if 0.1 <= x <= 10), "measured": len(ratios),
    }
    print(json.dumps(summary))
    Path(args.json).write_text(json.dumps({"delivery": args.delivery, "max_delay": args.max_delay, "summary": summary,
                                           "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
