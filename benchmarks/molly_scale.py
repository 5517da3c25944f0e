"""How far `verify` goes on Molly's correct programs within Molly's time limit (SIGMOD 2015, Fig. 13).

Molly (Alvaro, Rosen, Hellerstein, *Lineage-driven fault injection*, SIGMOD 2015) reports, for each
correct program of its Fig. 13 (`paperexperiments/TableOfCorrectPrograms.scala`), the largest EOT and
EFF whose failure space it covered in 120 s; `molly_configurations.FIG13` holds those settings. Here, for
each of those programs, with its crashes and nodes and with EFF = EOT - 1 (omissions at every step but
the last), `dedalus2asp verify --delivery sync` runs at EOT = Molly's, then at larger EOTs (growing by
`--step`) until one is not decided within the budget (exit 3) or `--max-eot` is reached; the largest
EOT decided within the budget is reported beside Molly's, with the verdict and whole-command seconds of
every point (the interpreter's start included, the lineage off: a correct program has none to draw).

    python benchmarks/molly_scale.py --molly PATH/TO/molly [--budget 120] [--step 4] [--max-eot 40] [--max-ground 0]

A point the ground budget refuses (exit 2) ends the program's row; `--max-ground 0` measures the solver alone.

Measured on a machine of two cores; the times depend on what else runs (the JSON keeps the load averages).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from molly_configurations import FIG13, examples_ft  # noqa: E402
from molly_verdicts import verify  # noqa: E402


def scale(root: Path, configuration, budget: float, step: int, max_eot: int, extra: tuple[str, ...]) -> dict:
    """The points of one program: EOT from Molly's upwards by `step`, EFF = EOT - 1, until one is not decided."""
    points, largest, eot = [], None, configuration.eot
    while eot <= max_eot:
        point = configuration._replace(eot=eot, eff=eot - 1)
        found = verify(root, point, budget, "--no-lineage", *extra)
        points.append({"eot": eot, "eff": eot - 1, **found})
        print(f"  EOT {eot:>3} EFF {eot - 1:>3}: exit {found['exit']}, {found['seconds']:.1f} s", flush=True)
        if found["exit"] not in (0, 1) or found["seconds"] > budget:
            break
        largest = eot
        eot += step
    return {"files": list(configuration.files), "crashes": configuration.crashes, "nodes": list(configuration.nodes),
            "molly_eot": configuration.eot, "molly_eff": configuration.eff, "largest_eot": largest,
            "reached_max": largest is not None and largest + step > max_eot, "points": points}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--molly", required=True, help="a checkout of palvaro/molly (or its examples_ft folder)")
    parser.add_argument("--budget", type=float, default=120.0, help="seconds one point may take (Molly's: 120)")
    parser.add_argument("--step", type=int, default=4, help="how much EOT grows from one point to the next")
    parser.add_argument("--max-eot", type=int, default=40, help="the largest EOT tried")
    parser.add_argument("--max-ground", type=int, default=None,
                        help="passed to verify (0: no ground budget); by default the tool's own budget, which may refuse a point")
    parser.add_argument("--json", default=str(Path(__file__).with_name("molly_scale.json")))
    args = parser.parse_args()
    if args.step < 1 or args.max_eot < 1 or args.budget <= 0:
        parser.error("--step, --max-eot and --budget must be positive")
    root = examples_ft(args.molly)
    rows = []
    for configuration in FIG13:
        print(" + ".join(Path(f).name for f in configuration.files), flush=True)
        extra = () if args.max_ground is None else ("--max-ground", str(args.max_ground))
        rows.append(scale(root, configuration, args.budget, args.step, args.max_eot, extra))
    print(f"\n{'program':34} {'C':>2} {'Molly EOT/EFF':>13} {'ours: largest EOT decided':>26}")
    for row in rows:
        name = " + ".join(Path(f).name for f in row["files"])[:34]
        ours = "none" if row["largest_eot"] is None else f"{row['largest_eot']}" + (" (the largest tried)" if row["reached_max"] else "")
        print(f"{name:34} {row['crashes']:>2} {str(row['molly_eot']) + '/' + str(row['molly_eff']):>13} {ours:>26}")
    document = {"budget": args.budget, "step": args.step, "max_eot": args.max_eot, "max_ground": args.max_ground, "machine": platform.machine(),
                "cpus": os.cpu_count(), "load": os.getloadavg(), "rows": rows}
    Path(args.json).write_text(json.dumps(document, indent=1) + "\n")
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
