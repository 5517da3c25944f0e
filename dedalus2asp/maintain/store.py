"""`--out DIR`: the view and counts after every burst as Parquet, and a checkpoint to resume from.

After burst k (0 is the view of E) the directory gets

* `views/burst-000k.parquet`: node, relation, args (the values as written, location column
  included), count (null where it is infinite);
* `base.parquet`: relation, args, count: the base E ⊎ I ∖ D after burst k;
* `checkpoint.json`: what the run is (hashes of the program, the input and the updates, the
  algorithm, schedule and seed), the last completed burst k and the JSON of bursts 1..k,

each written to a temporary file and renamed, the checkpoint last, so a run killed at any point leaves
the state of its last completed burst. A run started again with the same `--out` resumes there: the
engine starts from that base (its view is the view after burst k, by psn2010 Definition 8, which
`--check` verifies) and applies bursts k+1, ...
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from pathlib import Path

import clingo

from .ddlog import DDlogProgram, Fact
from .view import View


def fingerprint(*paths: Path | None) -> str:
    """A hash of the files (a directory: its files in order) a run reads."""
    digest = hashlib.sha256()
    for path in paths:
        if path is None:
            digest.update(b"-")
            continue
        for file in sorted(path.rglob("*")) if path.is_dir() else [path]:
            if file.is_file():
                digest.update(file.name.encode() + b"\0" + file.read_bytes())
    return digest.hexdigest()


def _write_table(path: Path, columns: dict) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    pq.write_table(pa.table(columns), temporary)
    os.replace(temporary, path)


def write_view(directory: Path, burst: int, view: View, program: DDlogProgram) -> None:
    shown = view.shown(program)
    facts = sorted(shown.facts, key=lambda f: (f.relation, f.args))
    _write_table(directory / "views" / f"burst-{burst:04d}.parquet", {
        "node": [str(program.node(f)) for f in facts],
        "relation": [f.relation for f in facts],
        "args": [[str(a) for a in f.args] for f in facts],
        "count": [shown.count(f) for f in facts],
    })


def write_checkpoint(directory: Path, base: Counter, run: dict, burst: int, bursts: list[dict]) -> None:
    facts = sorted(base, key=lambda f: (f.relation, f.args))
    _write_table(directory / "base.parquet", {
        "relation": [f.relation for f in facts],
        "args": [[str(a) for a in f.args] for f in facts],
        "count": [base[f] for f in facts],
    })
    temporary = directory / "checkpoint.tmp"
    temporary.write_text(json.dumps({**run, "burst": burst, "bursts": bursts}, indent=1), encoding="utf-8")
    os.replace(temporary, directory / "checkpoint.json")


def read_checkpoint(directory: Path) -> dict | None:
    path = directory / "checkpoint.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def read_base(directory: Path) -> Counter:
    import pyarrow.parquet as pq

    table = pq.read_table(directory / "base.parquet").to_pydict()
    return Counter({Fact(r, tuple(clingo.parse_term(a) for a in args)): n
                    for r, args, n in zip(table["relation"], table["args"], table["count"])})
