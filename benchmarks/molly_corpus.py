"""Molly's corpus: does every program of Molly's `examples_ft` load?

    python benchmarks/molly_corpus.py --molly DIR            # DIR: a checkout of palvaro/molly
    python benchmarks/molly_corpus.py --molly DIR --out F    # the table as JSON in F

Measured (issue #31), 54 files of `examples_ft` and the 6 Nemo case studies beside them, on 2 shared cores:
40 of the 54 loaded before this round's Molly work, 56 of the 60 load now; the 4 left include a file that
Molly's own rule (relative to the first program's folder) does not find either (`chain_replication`,
`fake_zk2`, `pipeline`, `util/heartbeat`: a clear error names where it looked). `gstore/gstore`, which writes
at another node what the run derives there at the same time, loads with a warning at that rule
(gstore.ded:30:1): a lock-step rule, solved under `--delivery sync` (docs/molly.md).

Molly (Alvaro, Rosen, Hellerstein, *Lineage-driven fault injection*, SIGMOD 2015) ships its test
programs under `src/test/resources/examples_ft/`. Each file is given on its own to `dedalus2asp
check` (as Molly is given one file, whose includes it reads relative to that file's folder), in a
child process, and the table says its exit status, its time, how many warnings it printed, and the
first error. The programs are not part of this repository: give the folder of a checkout (or of
`examples_ft` itself). A timing goes here, not in a test (docs/development.md).
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

CORPUS = Path("src/test/resources/examples_ft")


def corpus(root: Path) -> Path:
    """The `examples_ft` folder of a Molly checkout `root` (or of a folder that holds it, or `root` itself)."""
    for folder in (root / CORPUS, root / CORPUS.name):
        if folder.is_dir():
            return folder
    return root


def programs(folder: Path) -> list[Path]:
    """Every program file of the corpus: `*.ded`, and the `.ded.orig` copies Molly keeps beside them."""
    return sorted(p for p in folder.rglob("*") if p.is_file() and (p.suffix == ".ded" or p.name.endswith(".ded.orig")))


def check(folder: Path, program: Path, timeout: float) -> dict:
    """`dedalus2asp check PROGRAM` in a child process, from the corpus folder: status, seconds, warnings, first error."""
    began = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "-m", "dedalus2asp", "check", str(program.relative_to(folder))],
                              cwd=folder, capture_output=True, text=True, timeout=timeout)
        status, err = done.returncode, done.stderr
    except subprocess.TimeoutExpired:
        status, err = None, ""
    lines = err.splitlines()
    return {
        "program": str(program.relative_to(folder)),
        "status": status,
        "seconds": round(time.perf_counter() - began, 3),
        "warnings": sum(": warning: " in line for line in lines),
        "error": next((line for line in lines if ": error: " in line), None),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--molly", type=Path, required=True, help="a checkout of palvaro/molly, or its examples_ft folder")
    parser.add_argument("--out", type=Path, default=None, help="write the table as JSON here")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per program")
    args = parser.parse_args(argv)
    folder = corpus(args.molly)
    found = programs(folder)
    if not found:
        print(f"no program under {folder}", file=sys.stderr)
        return 2
    rows = [check(folder, p, args.timeout) for p in found]
    width = max(len(r["program"]) for r in rows)
    for r in rows:
        status = "timeout" if r["status"] is None else str(r["status"])
        print(f"{r['program']:<{width}}  {status:>7}  {r['seconds']:7.2f} s  {r['warnings']:3} warning(s)"
              + (f"  {r['error'][:120]}" if r["error"] else ""))
    loaded = sum(r["status"] == 0 for r in rows)
    print(f"{loaded} of {len(rows)} programs load (check exits 0)")
    if args.out is not None:
        args.out.write_text(json.dumps({"machine": platform.platform(), "python": platform.python_version(),
                                        "corpus": str(folder), "loaded": loaded, "programs": rows}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
