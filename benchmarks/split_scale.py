"""`verify --split K --engine local` against the unsplit `verify` as the network grows (issue #31).

The acknowledged broadcast of `examples/molly/ack_broadcast.ded` with its agreement invariant
(`broadcast_assert.ded`), its membership written for N nodes (a broadcasts, every node knows every
other), at EOT 6, `--eff 4`, one crash, `--max-delay 1`: for each N, the whole command's wall-clock
seconds unsplit and split into K parts solved in turn on one machine, each in its own process, and
the verdicts (which must agree). A part solves the same optimisation under its cubes of fault atoms:
in turn, the parts do at least the work of one solve, so `--engine local` cannot be faster by more
than the luck of a part that finds a small counterexample early; what it can do is not lose much.

    python benchmarks/split_scale.py [--nodes 5,10,20] [--parts 4] [--budget 600] [--options "--eot 6 ..."]
        [--json benchmarks/split_scale.json]
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

ROOT = Path(__file__).resolve().parent.parent
MOLLY = ROOT / "examples" / "molly"
OPTIONS = ["--eot", "6", "--eff", "4", "--crashes", "1", "--max-delay", "1"]


def program(n: int) -> str:
    """ack_broadcast.ded with its membership for n nodes n0..n{n-1} in place of a, b, c."""
    text = (MOLLY / "ack_broadcast.ded").read_text()
    lines = [l for l in text.splitlines() if not l.startswith(("member(a", "member(b", "member(c", "broadcast(a"))]
    nodes = [f"n{i}" for i in range(n)]
    facts = [f"member({x}, {y})@1;" for x in nodes for y in nodes if x != y] + ['broadcast(n0, "hello")@1;']
    return "\n".join(facts + lines) + "\n"


def run(files: list[str], extra: list[str], budget: float, options: list[str] = OPTIONS) -> dict:
    command = [sys.executable, "-m", "dedalus2asp", "verify", *files, *options, "--json", "--quiet", "--no-lineage", *extra]
    before = os.getloadavg()[0]
    began = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=budget)
    except subprocess.TimeoutExpired:
        return {"status": f"over {budget:.0f} s"}
    answer = json.loads(done.stdout) if done.returncode in (0, 1) else {}
    return {"status": "ok" if answer else f"exit {done.returncode}: {done.stderr.strip()[-200:]}",
            "wall": round(time.perf_counter() - began, 2), "seconds": answer.get("seconds"), "holds": answer.get("holds"),
            "faults": (answer.get("counterexample") or {}).get("faults"), "loadavg": round(before, 1),
            "split_atoms": len((answer.get("split") or {}).get("atoms", []))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", default="5,10,20")
    parser.add_argument("--parts", type=int, default=4)
    parser.add_argument("--budget", type=float, default=600.0, help="seconds per verify process")
    parser.add_argument("--options", default=" ".join(OPTIONS), help="the bounds of the question (default: %(default)s)")
    parser.add_argument("--json", default=str(Path(__file__).with_name("split_scale.json")))
    args = parser.parse_args()
    options = args.options.split()
    rows = []
    print(f"{'N':>3} {'unsplit (s)':>12} {'split ' + str(args.parts) + ' local (s)':>18} {'ratio':>6} verdict")
    with tempfile.TemporaryDirectory() as scratch:
        for n in map(int, args.nodes.split(",")):
            prog = Path(scratch) / f"ack{n}.ded"
            prog.write_text(program(n))
            files = [str(prog), str(MOLLY / "broadcast_assert.ded")]
            row = {"nodes": n, "parts": args.parts, "options": options,
                   "unsplit": run(files, [], args.budget, options),
                   "local": run(files, ["--split", str(args.parts), "--engine", "local"], args.budget, options)}
            rows.append(row)
            u, s = row["unsplit"], row["local"]
            ratio = f"{s['wall'] / u['wall']:.2f}" if "wall" in u and "wall" in s else "—"
            verdicts = {(r.get("holds"), r.get("faults")) for r in (u, s) if "holds" in r}
            print(f"{n:>3} {u.get('wall', u['status']):>12} {s.get('wall', s['status']):>18} {ratio:>6} {verdicts}", flush=True)
    Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
