"""What an aggregate costs: a vote counter with `count<A>` against the same count unrolled by hand.

    python benchmarks/aggregates.py            # the full run, a few minutes on 2 cores
    python benchmarks/aggregates.py --quick    # a smoke run, seconds

N agents each send one ballot (yes or no, alternately) to a counter c at Molly's time 1 (our step
0); c keeps the ballots and, at every step, tallies each option (issue #18). The program is
generated in Molly's dialect in three variants that derive the same `tally` facts:

* `aggregate`: `tally(C, X, count<A>) :- ballots(C, A, X);` — one clingo `#count` per group and
  step in the generated program;
* `chain`: the count unrolled by hand along the agents a1..aN, as one would write it without
  aggregates: `cnt(C, X, i, K + 1)` from `cnt(C, X, i-1, K)` when a_i voted X, `cnt(C, X, i, K)`
  when it did not (`notin`), two rules per agent; `tally` is `cnt` after the last agent;
* `subsets`: "at least k distinct voters" by k body atoms with `A1 < A2 < ... < Ak`, for every k,
  and `tally(C, X, k)` when at least k and not at least k+1: the textbook rewriting, whose
  grounding grows with the number of subsets (2^N), run up to `--subsets-up-to` agents.

Each point (variant, N, horizon T) is measured in a child process with a time limit
(`dedalus2asp.asp.solve.isolated`): transform (writing the clingo program, fast encoding,
causal-finite, delay bound 1), ground (`Control.ground`), the ground rules and atoms
(`statistics['problem']['lp']`), and solve to the first model. At the smallest points the three
variants are checked to have the same traces of `tally` (all of them, projective enumeration),
so the comparison is between programs that mean the same thing.

Prints a table and writes benchmarks/aggregates.json (not with --quick). Timings depend on the machine: compare the
ratios, not the seconds.
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

import clingo  # noqa: E402

from dedalus2asp import inspect  # noqa: E402
from dedalus2asp.asp import solve  # noqa: E402
from dedalus2asp.asp.transform import transform  # noqa: E402
from dedalus2asp.bounds import Bounds, Encoding, Network, Semantics  # noqa: E402
from dedalus2asp.lang import analysis  # noqa: E402
from dedalus2asp.lang.parser import parse_source  # noqa: E402

VARIANTS = ("aggregate", "chain", "subsets")
DELAY = 1
BOUNDS = dict(semantics=Semantics.CAUSAL_FINITE, encoding=Encoding.FAST, network=Network(max_delay=DELAY))

COMMON = """\
ballot(C, A, X)@async :- ballot_of(A, C, X);
ballots(C, A, X) :- ballot(C, A, X);
ballots(C, A, X)@next :- ballots(C, A, X);
option(C, X)@next :- option(C, X);
"""


def facts(n: int) -> str:
    """The ballots of agents a1..aN at the counter c (yes and no alternately), and c's options."""
    lines = [f"ballot_of(a{i}, c, {'yes' if i % 2 else 'no'})@1;" for i in range(1, n + 1)]
    return "\n".join(lines + ["option(c, yes)@1;", "option(c, no)@1;"]) + "\n"


def aggregate(n: int) -> str:
    return facts(n) + COMMON + "tally(C, X, count<A>) :- ballots(C, A, X);\n"


def chain(n: int) -> str:
    """cnt(C, X, i, K): K of the agents a1..ai voted X; a1..aN by name, as a hand-written program must."""
    rules = ["cnt(C, X, 0, 0) :- option(C, X);"]
    for i in range(1, n + 1):
        rules.append(f"cnt(C, X, {i}, K + 1) :- cnt(C, X, {i - 1}, K), ballots(C, a{i}, X);")
        rules.append(f"cnt(C, X, {i}, K) :- cnt(C, X, {i - 1}, K), notin ballots(C, a{i}, X);")
    rules.append(f"tally(C, X, K) :- cnt(C, X, {n}, K), K > 0;")
    return facts(n) + COMMON + "\n".join(rules) + "\n"


def subsets(n: int) -> str:
    """at_least(C, X, k): k distinct agents voted X, as k atoms in increasing order of their names."""
    rules = []
    for k in range(1, n + 1):
        atoms = ", ".join(f"ballots(C, A{j}, X)" for j in range(1, k + 1))
        order = "".join(f", A{j} < A{j + 1}" for j in range(1, k))
        rules.append(f"at_least(C, X, {k}) :- {atoms}{order};")
    for k in range(1, n):
        rules.append(f"tally(C, X, {k}) :- at_least(C, X, {k}), notin at_least(C, X, {k + 1});")
    rules.append(f"tally(C, X, {n}) :- at_least(C, X, {n});")
    return facts(n) + COMMON + "\n".join(rules) + "\n"


GENERATE = {"aggregate": aggregate, "chain": chain, "subsets": subsets}


def compiled(variant: str, n: int, horizon: int):
    program, instance = parse(variant, n)
    return transform(program, instance, Bounds(horizon, **BOUNDS))


def parse(variant: str, n: int):
    """The variant's IR and input, checked as every command checks them (a bad program raises)."""
    source = parse_source(GENERATE[variant](n), f"<{variant} {n}>", "molly")
    program, instance = source.program, source.instance(None)
    analysis.check(program, instance)
    return program, instance


def first_model(variant: str, n: int, horizon: int, timeout: float | None = None) -> dict:
    """Transform, ground and solve to the first model; seconds and clingo's statistics (`timeout`: `solve.isolated`'s)."""
    start = time.perf_counter()
    program = compiled(variant, n, horizon)
    transformed = time.perf_counter()
    ctl = clingo.Control(["1"], logger=lambda code, message: None)
    ctl.add("base", [], program.text)
    parsed = time.perf_counter()
    ctl.ground([("base", [])])
    grounded = time.perf_counter()
    result = ctl.solve()
    solved = time.perf_counter()
    lp = ctl.statistics["problem"]["lp"]
    return {
        "transform": round(transformed - start, 4),
        "ground": round(grounded - parsed, 4),
        "solve": round(solved - grounded, 4),
        "rules": int(lp["rules"]),
        "atoms": int(lp["atoms"]),
        "satisfiable": bool(result.satisfiable),
    }


def tally_traces(variant: str, n: int, horizon: int) -> frozenset:
    """Every trace of the variant restricted to `tally`: the three variants must have the same set."""
    found = inspect.traces(compiled(variant, n, horizon), timeout=300)
    assert found.complete
    return frozenset(frozenset(f for f in m.trace if f[2] == "tally") for m in found.models)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes only (a smoke run)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per point (default 120)")
    parser.add_argument("--subsets-up-to", type=int, default=24, help="largest N of the subsets variant (default 24)")
    args = parser.parse_args()
    agents = (2, 4, 8) if args.quick else (2, 4, 8, 16, 20, 24, 32, 64, 128)
    horizons = (4, 8) if args.quick else (4, 8, 16)

    checks = []
    for n, horizon in ((2, 2), (3, 2), (4, 3)):
        same = len({tally_traces(v, n, horizon) for v in VARIANTS}) == 1
        checks.append({"agents": n, "horizon": horizon, "same_tally_traces": same})
        print(f"N = {n}, T = {horizon}: the three variants have {'the same' if same else 'DIFFERENT'} traces of tally")
        if not same:
            raise SystemExit("the variants disagree: the comparison would be meaningless")

    rows = []
    print(f"\n{'N':>3} {'T':>3} | {'variant':<9} | {'rules':>9} {'atoms':>9} | {'transform':>9} {'ground':>8} {'solve':>8} |"
          f" rules, ground+solve vs aggregate")
    for n in agents:
        for horizon in horizons:
            base = None
            for variant in VARIANTS:
                if variant == "subsets" and n > args.subsets_up_to:
                    continue
                row = {"variant": variant, "agents": n, "horizon": horizon, "max_delay": DELAY}
                try:
                    row.update(solve.isolated(first_model, variant, n, horizon, timeout=args.timeout))
                except solve.Stopped as stopped:
                    row["stopped"] = str(stopped) or "timeout"
                rows.append(row)
                if "stopped" in row:
                    print(f"{n:>3} {horizon:>3} | {variant:<9} | stopped after {args.timeout:.0f} s ({row['stopped']})")
                    continue
                total = row["ground"] + row["solve"]
                if variant == "aggregate":
                    base = (row["rules"], total)
                ratio = f"{row['rules'] / base[0]:6.1f}x {total / base[1]:7.1f}x" if base and base[1] else ""
                print(
                    f"{n:>3} {horizon:>3} | {variant:<9} | {row['rules']:>9} {row['atoms']:>9} | {row['transform']:>8.3f}s "
                    f"{row['ground']:>7.3f}s {row['solve']:>7.3f}s | {ratio}",
                    flush=True,
                )
    out = HERE / "aggregates.json"
    document = {
        "machine": {"python": platform.python_version(), "clingo": clingo.__version__, "platform": platform.platform()},
        "semantics": BOUNDS["semantics"].value, "encoding": BOUNDS["encoding"].value, "max_delay": DELAY,
        "timeout": args.timeout, "checks": checks, "rows": rows,
    }
    if not args.quick:
        out.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {out}")


if __name__ == "__main__":
    main()
