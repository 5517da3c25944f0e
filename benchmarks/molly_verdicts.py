"""`verify --delivery sync` at the configurations of Molly's own experiments, against Molly's verdicts.

Molly (Alvaro, Rosen, Hellerstein, *Lineage-driven fault injection*, SIGMOD 2015) states a verdict for
each row of its test suite (`CounterexampleSuite.scala`) and of the paper's tables (Fig. 12: programs
with a counterexample; Fig. 13: correct programs); `molly_configurations.py` lists them. For each:
`dedalus2asp verify FILES --eot N --eff F --crashes C --nodes N1,... --delivery sync --json` (Molly's
fault model, our default under sync), its verdict and whether it is Molly's, and the whole command's
wall-clock seconds (the interpreter's start included) with the lineage of a counterexample and without
it (`--no-lineage`). A program that does not load (exit 2) is reported with the first line of its
error. With `--fail-stop`, also the verdict under `--crash-model fail-stop` (docs/molly.md: 3PC).
Molly's `-N` names are passed as the strings its facts write (`"C"`).

    python benchmarks/molly_verdicts.py --molly PATH/TO/molly [--timeout 120] [--json benchmarks/molly_verdicts.json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from molly_configurations import ALL, Configuration, examples_ft  # noqa: E402


def verify(root: Path, c: Configuration, timeout: float, *extra: str) -> dict:
    nodes = ",".join(f'"{n}"' for n in c.nodes)
    command = [sys.executable, "-m", "dedalus2asp", "verify", *(str(root / f) for f in c.files), "--eot", str(c.eot),
               "--eff", str(c.eff), "--crashes", str(c.crashes), "--nodes", nodes, "--delivery", "sync", "--json",
               "--timeout", str(timeout), *extra]
    began = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    seconds = time.perf_counter() - began
    out: dict = {"exit": done.returncode, "seconds": round(seconds, 2)}
    if done.returncode in (0, 1):
        answer = json.loads(done.stdout)
        out["counterexample"] = not answer["holds"]
        out["faults"] = (answer["counterexample"] or {}).get("faults")
        out["solve_seconds"] = answer.get("seconds")
    else:
        lines = [l for l in done.stderr.splitlines() if "error" in l] or done.stderr.splitlines()[-1:]
        out["error"] = (lines[0] if lines else "")[:200]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--molly", required=True, help="a checkout of palvaro/molly (or its examples_ft folder)")
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--fail-stop", action="store_true", help="also verify under --crash-model fail-stop")
    parser.add_argument("--json", default=str(Path(__file__).with_name("molly_verdicts.json")))
    args = parser.parse_args()
    root = examples_ft(args.molly)
    rows = []
    print(f"{'source':34} {'program':40} {'EOT':>3} {'EFF':>3} {'C':>2} {'Molly':>6} {'ours':>6} agree {'s':>6} {'s, no lineage':>13}"
          + ("  fail-stop" if args.fail_stop else ""))
    for c in ALL:
        row = {"source": c.source, "files": list(c.files), "eot": c.eot, "eff": c.eff, "crashes": c.crashes,
               "nodes": list(c.nodes), "molly": c.counterexample}
        row["verify"] = verify(root, c, args.timeout)
        row["no_lineage"] = verify(root, c, args.timeout, "--no-lineage")
        if args.fail_stop:
            row["fail_stop"] = verify(root, c, args.timeout, "--crash-model", "fail-stop", "--no-lineage")
        ours = row["verify"].get("counterexample")
        row["agrees"] = None if ours is None else ours == c.counterexample
        rows.append(row)
        word = lambda found: "—" if found is None else ("cex" if found else "holds")  # noqa: E731
        name = " + ".join(Path(f).name for f in c.files)[:40]
        status = {True: "yes", False: "NO", None: f"exit {row['verify']['exit']}"}[row["agrees"]]
        line = (f"{c.source[:34]:34} {name:40} {c.eot:>3} {c.eff:>3} {c.crashes:>2} {word(c.counterexample):>6} "
                f"{word(ours):>6} {status:5} {row['verify']['seconds']:>6.2f} {row['no_lineage']['seconds']:>13.2f}")
        if args.fail_stop:
            line += f"  {word(row['fail_stop'].get('counterexample'))}"
        if "error" in row["verify"]:
            line += f"  {row['verify']['error'][:90]}"
        print(line, flush=True)
    decided = [r for r in rows if r["agrees"] is not None]
    summary = {
        "configurations": len(rows), "decided": len(decided), "agree": sum(1 for r in decided if r["agrees"]),
        "disagree": [f"{r['source']}: {' + '.join(r['files'])} EOT {r['eot']} EFF {r['eff']} C {r['crashes']}"
                     for r in decided if not r["agrees"]],
        "not_decided": [f"{' + '.join(r['files'])}: {r['verify'].get('error', 'exit %d' % r['verify']['exit'])}"
                        for r in rows if r["agrees"] is None],
        "max_seconds": max((r["verify"]["seconds"] for r in decided), default=None),
        # the verdict alone, where the lineage failed (exit 70: issue #31 item 5, the lineage of a run that reads crash)
        "agree_without_lineage": sum(1 for r in rows if r["no_lineage"].get("counterexample") == r["molly"]),
        "decided_without_lineage": sum(1 for r in rows if "counterexample" in r["no_lineage"]),
    }
    print(json.dumps(summary, indent=1))
    Path(args.json).write_text(json.dumps({"summary": summary, "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
