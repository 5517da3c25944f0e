"""`check` on large programs, with and without errors: the cost of error recovery (issue #20).

A lexical error used to make reading quadratic: every token after it had its line and column
recounted from the start of the file, and the rest of the text was copied for each error. Now a
line-start table gives every position, lark goes on from where it stopped without a copy, and a
reader stops after 100 errors; an error should cost no more than the text around it.

Cases, each about 1 MB (`--size`):

* `facts`: one rule and ~60,000 facts `edge(nI, nJ).`, well formed;
* `facts, one error`: the same with a stray `~` on the first line;
* `facts, an error every 10 lines`: reading stops after 100 errors;
* `rules, one error`: ~28,000 rules `pI(X) :- q(X, Y), r(Y, I).` after a stray `~`.

Each case runs `dedalus2asp check` in its own process (the interpreter's start, ~0.5 s, is
included); the table gives the seconds, the peak resident memory and the exit status.

Then bounded work (`--bounded`): the blow-ups of issue #20 refused by the grounding budget
(`asp.budget`, exit 2), and the solver's process stopped by `--timeout` while it grounds or by
`--max-memory` (exit 3); peak memory is the largest of the command's processes.

* `four-way join, 60 facts`: `count` of `p(A,B,C,D) :- r(A), r(B), r(C), r(D).` at -T 1
  (142 s and 5.2 GB before the budget);
* `Example 1 at -T 100000`: `count --timeout 5` on tplp2016 Example 1 (88 s and 8 GB before);
* `four-way join, 40 facts, no budget, --timeout 2`: grounding killed at the deadline;
* `four-way join, 40 facts, no budget, --max-memory 512M`: out of memory, exit 3.

Prints the tables and writes benchmarks/hostile.json.

    python benchmarks/hostile.py [--size BYTES] [--repeat N] [--bounded-only]
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

HERE = Path(__file__).resolve().parent


def facts_program(size: int, error_every: int | None = None, first_error: bool = False) -> str:
    lines = ["path(X, Y) :- edge(X, Y)."]
    i = 0
    while sum(map(len, lines)) + len(lines) < size:
        stray = (first_error and i == 0) or (error_every is not None and i % error_every == 0)
        lines.append(("~ " if stray else "") + f"edge(n{i}, n{i + 1}).")
        i += 1
    return "\n".join(lines) + "\n"


def rules_program(size: int) -> str:
    lines = ["~"]
    i = 0
    while sum(map(len, lines)) + len(lines) < size:
        lines.append(f"p{i}(X) :- q(X, Y), r(Y, {i}).")
        i += 1
    return "\n".join(lines) + "\n"


CASES = {
    "facts": lambda size: facts_program(size),
    "facts, one error": lambda size: facts_program(size, first_error=True),
    "facts, an error every 10 lines": lambda size: facts_program(size, error_every=10),
    "rules, one error": rules_program,
}


def run_check(path: Path) -> tuple[float, float, int]:
    """(seconds, peak resident MiB, exit status) of `dedalus2asp check path` in a process of its own."""
    return run_command(["check", str(path)])[:3]


def run_command(args: list[str]) -> tuple[float, float, int, float]:
    """(seconds, peak resident MiB of the process and the children it waited for, exit status, CPU seconds) of
    `dedalus2asp ARGS` (on a loaded machine the CPU seconds say what the command cost, the wall clock what it waited)."""
    start = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "dedalus2asp", *args],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    return seconds, usage.ru_maxrss / 1024, process.returncode, usage.ru_utime + usage.ru_stime


EX1 = HERE.parent / "examples/tplp2016/ex1_reachability"


def join(directory: Path, facts: int) -> list[str]:
    """p(A,B,C,D) :- r(A), r(B), r(C), r(D). over `facts` facts of r, as PROG --input F."""
    prog, data = directory / f"join{facts}.ded", directory / f"join{facts}.facts"
    prog.write_text("p(A,B,C,D) :- r(A), r(B), r(C), r(D).\n", encoding="utf-8")
    data.write_text("a { " + " ".join(f"r({i})." for i in range(facts)) + " }\n", encoding="utf-8")
    return [str(prog), "--input", str(data)]


BOUNDED = {
    "four-way join, 60 facts": lambda d: ["count", *join(d, 60), "-T", "1"],
    "Example 1 at -T 100000": lambda d: ["count", f"{EX1}.ded", "--input", f"{EX1}.facts", "-T", "100000", "--timeout", "5"],
    "four-way join, 40 facts, no budget, --timeout 2": lambda d: ["count", *join(d, 40), "-T", "1", "--max-ground", "0",
                                                                  "--timeout", "2"],
    "four-way join, 40 facts, no budget, --max-memory 512M": lambda d: ["count", *join(d, 40), "-T", "1", "--max-ground", "0",
                                                                        "--max-memory", "512M"],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=1_000_000, help="bytes of each program (default 1,000,000)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per case; the fastest counts")
    parser.add_argument("--bounded-only", action="store_true", help="only the cases of bounded work")
    args = parser.parse_args()
    rows, bounded = [], []
    with tempfile.TemporaryDirectory() as directory:
        for name, make in ({} if args.bounded_only else CASES).items():
            text = make(args.size)
            path = Path(directory) / "program.ded"
            path.write_text(text, encoding="utf-8")
            runs = [run_check(path) for _ in range(args.repeat)]
            seconds, memory, status = min(runs)
            rows.append({"case": name, "bytes": len(text.encode()), "lines": text.count("\n"),
                         "seconds": round(seconds, 2), "peak_mib": round(memory, 1), "exit": status})
            print(f"{name:<32} {rows[-1]['bytes']:>9} B {rows[-1]['lines']:>7} lines "
                  f"{rows[-1]['seconds']:>7.2f} s {rows[-1]['peak_mib']:>7.1f} MiB  exit {status}", flush=True)
        for name, make in BOUNDED.items():
            runs = [run_command(make(Path(directory))) for _ in range(args.repeat)]
            seconds, memory, status, cpu = min(runs)
            bounded.append({"case": name, "seconds": round(seconds, 2), "cpu_seconds": round(cpu, 2),
                            "peak_mib": round(memory, 1), "exit": status})
            print(f"{name:<56} {seconds:>7.2f} s ({cpu:.2f} s CPU) {memory:>7.1f} MiB  exit {status}", flush=True)
    report = {"size": args.size, "repeat": args.repeat, "cases": rows, "bounded": bounded}
    if args.bounded_only and (HERE / "hostile.json").exists():
        report = {**json.loads((HERE / "hostile.json").read_text()), "bounded": bounded}
    (HERE / "hostile.json").write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {HERE / 'hostile.json'}")


if __name__ == "__main__":
    main()
