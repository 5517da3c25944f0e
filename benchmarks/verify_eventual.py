"""How long `verify --eventual` takes on Molly's protocols, beside bounded `verify` at EOT = K, and whether the
solver's eventual verdict agrees with the explorer's.

    python benchmarks/verify_eventual.py            # every protocol with an invariant file at every budget
    python benchmarks/verify_eventual.py --quick    # one budget

Issue #29 asks `verify --eventual` to stay within 10 times the time of bounded `verify` at EOT = K (the lasso
length it answers at, the completeness threshold) and within 10 s for the whole command. Per protocol and fault
budget (sync delivery, Molly's fault model; the budgets of docs/molly.md's verify table), this prints:

* the eventual verdict (H holds, H° vacuously, V violated with its fewest faults), K and whether it is exact;
* the seconds of the question itself (`questions.verify.verify` in the eventual mode: the threshold search and
  one optimisation at K), of bounded verify at horizon K - 1 (Molly's EOT K), and their ratio;
* the seconds of the whole command `dedalus2asp verify --eventual` (a fresh process: imports, parsing, lineage);
* the explorer's verdict (`runs.eventual_verify`, the configuration graph) and whether both agree.

Writes benchmarks/verify_eventual.json (not with --quick). Timings depend on the machine.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from dedalus2asp import pipeline  # noqa: E402
from dedalus2asp.bounds import Bounds, Mode, Network  # noqa: E402
from dedalus2asp.questions import verify  # noqa: E402
from dedalus2asp.runs import eventual_verify  # noqa: E402

PROTOCOLS = {
    "simple_broadcast": "broadcast_assert", "retry_broadcast": "broadcast_assert", "ack_broadcast": "broadcast_assert",
    "classic_broadcast": "broadcast_assert", "two_phase_commit": "commit_assert",
    "two_phase_commit_timeout": "commit_assert",
}
BUDGETS = [(None, 0), (2, 0), (None, 1), (1, 1)]  # (loss window E: Molly's --eff E+1, crashes)
QUICK = [(2, 1)]


def seconds(question, *args):
    began = time.perf_counter()
    answer = question(*args)
    return answer, time.perf_counter() - began


def words(holds, vacuous, faults) -> str:
    return "H°" if holds and vacuous else "H" if holds else f"V{faults}" if holds is False else "?"


def point(protocol: str, loss_until: int | None, crashes: int) -> dict:
    files = [ROOT / "examples" / "molly" / f"{protocol}.ded", ROOT / "examples" / "molly" / f"{PROTOCOLS[protocol]}.ded"]
    program, instance, _ = pipeline.load(files, None, "auto")
    network = Network("sync", None, loss_until, crashes)
    eventual, t_eventual = seconds(verify.verify, program, instance, Bounds(0, network=network, mode=Mode.EVENTUAL))
    K = eventual.exactness.K
    bounded, t_bounded = seconds(verify.verify, program, instance, Bounds(K - 1, network=network))
    explorer = eventual_verify.verify(program, instance, Bounds(0, network=network, mode=Mode.EVENTUAL))
    command = [sys.executable, "-m", "dedalus2asp", "verify", *map(str, files), "--delivery", "sync", "--eventual",
               "--crashes", str(crashes)] + ([] if loss_until is None else ["--loss-until", str(loss_until)])
    began = time.perf_counter()
    subprocess.run(command, cwd=ROOT, capture_output=True, check=False)
    t_command = time.perf_counter() - began
    faults = eventual.counterexample.faults if eventual.counterexample else None
    solver = words(eventual.holds, eventual.vacuous, faults)
    return {
        "protocol": protocol, "loss_until": loss_until, "crashes": crashes,
        "verdict": solver, "K": K, "exact": eventual.exact,
        "eventual_seconds": round(t_eventual, 3), "bounded_seconds": round(t_bounded, 3),
        "bounded_verdict": words(bounded.holds, bounded.vacuous, bounded.counterexample.faults if bounded.counterexample else None),
        "ratio": round(t_eventual / t_bounded, 1), "command_seconds": round(t_command, 2),
        "explorer": words(explorer.holds, explorer.vacuous, explorer.faults),
        "agree": solver == words(explorer.holds, explorer.vacuous, explorer.faults),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    quick = parser.parse_args().quick
    rows = []
    print(f"{'protocol':26s} {'E':>2s} {'C':>1s} {'verdict':7s} {'K':>3s} exact {'eventual':>9s} {'EOT=K':>7s} "
          f"{'ratio':>5s} {'command':>8s} explorer")
    for protocol in PROTOCOLS:
        for loss_until, crashes in QUICK if quick else BUDGETS:
            row = point(protocol, loss_until, crashes)
            rows.append(row)
            e = "-" if loss_until is None else str(loss_until)
            print(f"{protocol:26s} {e:>2s} {crashes:1d} {row['verdict']:7s} {row['K']:3d} {str(row['exact']):5s} "
                  f"{row['eventual_seconds']:8.3f}s {row['bounded_seconds']:6.3f}s {row['ratio']:5.1f} "
                  f"{row['command_seconds']:7.2f}s {row['explorer']}{'' if row['agree'] else '  DIFFERS'}")
    worst = max(r["ratio"] for r in rows)
    slowest = max(r["command_seconds"] for r in rows)
    print(f"largest ratio {worst} (issue #29: ≤ 10), slowest whole command {slowest} s (≤ 10 s); "
          f"{sum(r['agree'] for r in rows)}/{len(rows)} agree with the explorer")
    if not quick:
        document = {"machine": platform.platform(), "python": platform.python_version(), "rows": rows}
        (HERE / "verify_eventual.json").write_text(json.dumps(document, indent=2) + "\n")


if __name__ == "__main__":
    main()
