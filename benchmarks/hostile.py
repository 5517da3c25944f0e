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
included); the table gives the seconds, the peak resident memory and the exit status. Prints a
table and writes benchmarks/hostile.json.

    python benchmarks/hostile.py [--size BYTES] [--repeat N]
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
    start = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "dedalus2asp", "check", str(path)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    return seconds, usage.ru_maxrss / 1024, process.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=1_000_000, help="bytes of each program (default 1,000,000)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per case; the fastest counts")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as directory:
        for name, make in CASES.items():
            text = make(args.size)
            path = Path(directory) / "program.ded"
            path.write_text(text, encoding="utf-8")
            runs = [run_check(path) for _ in range(args.repeat)]
            seconds, memory, status = min(runs)
            rows.append({"case": name, "bytes": len(text.encode()), "lines": text.count("\n"),
                         "seconds": round(seconds, 2), "peak_mib": round(memory, 1), "exit": status})
            print(f"{name:<32} {rows[-1]['bytes']:>9} B {rows[-1]['lines']:>7} lines "
                  f"{rows[-1]['seconds']:>7.2f} s {rows[-1]['peak_mib']:>7.1f} MiB  exit {status}", flush=True)
    (HERE / "hostile.json").write_text(json.dumps({"size": args.size, "repeat": args.repeat, "cases": rows}, indent=2) + "\n")
    print(f"wrote {HERE / 'hostile.json'}")


if __name__ == "__main__":
    main()
