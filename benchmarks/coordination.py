"""What the Lamport-clock rewrite (tr2009 §6.6, `convert --to lamport`) costs, and what it buys.

    python benchmarks/coordination.py            # the table, and benchmarks/coordination.json
    python benchmarks/coordination.py --quick    # a smoke run (smaller horizons), nothing written

For each program, before and after the rewrite of the asynchronous relations its loci of coordination involve:
the rules, the ground program of `count` (fast encoding, causal-finite, delay bound 1: clingo's ground rules and
atoms), its models and the time to count them, and `cron`'s verdict with its time (both semantics solved). Every
point runs in this process, one after the other; timings depend on the machine: compare the ratios.

    python benchmarks/coordination.py --loci [--molly DIR] [--before REV]

The loci of coordination that `check` reports on examples/ and on Molly's corpus (DIR: a checkout of palvaro/molly or
its `examples_ft` folder, read in Molly's dialect), before and after issue 38, side by side: the analysis of the
git revision REV (default: the one before issue 38) against this one's, with the relations `convert --to lamport`
would rewrite and whether the program is temporally stratifiable. The table, and benchmarks/coordination_loci.json.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from dedalus2asp import pipeline  # noqa: E402
from dedalus2asp.lang.diagnostics import DiagnosticError  # noqa: E402
from dedalus2asp.questions import cron  # noqa: E402
from dedalus2asp.asp import solve  # noqa: E402
from dedalus2asp.asp.transform import transform  # noqa: E402
from dedalus2asp.bounds import Bounds, Encoding, Network, Semantics  # noqa: E402
from dedalus2asp.lang import coordination, lamport  # noqa: E402
from dedalus2asp.lang.located import LocatedProgram  # noqa: E402
from dedalus2asp.lang.parser import load_instance, load_source, parse_source  # noqa: E402

EXAMPLES = HERE.parent / "examples"
CASES = [  # name, program, input (None: its own facts), horizon, output relations
    ("tplp2016 Fig. 4", "tplp2016/fig4_noncausal.ded", "tplp2016/fig4.facts", 3, None),
    ("jcss2014 Alg. 3", "jcss2014/alg3.ded", "jcss2014/alg3.facts", 3, None),
    ("tplp2016 Ex. 3 (2PC)", "tplp2016/ex3_2pc.ded", "tplp2016/ex3_2pc_small.facts", 3, None),
    ("Molly 2PC", "molly/two_phase_commit.ded", None, 3, ("decision",)),
]


def program_and_input(source, facts):
    located = source if isinstance(source, LocatedProgram) else None
    program = located.program if located else source
    given = load_instance(facts, located.columns if located else None) if facts else None
    return program, (located.instance(given) if located else given)


def measure(source, facts, horizon: int, outputs) -> dict:
    program, instance = program_and_input(source, facts)
    bounds = Bounds(horizon, Semantics.CAUSAL_FINITE, Encoding.FAST, Network(max_delay=1))
    start = time.perf_counter()
    counted = solve.count(transform(program, instance, bounds), progress=False)
    counting = time.perf_counter() - start
    start = time.perf_counter()
    verdict = cron.analyse(program, instance, bounds, outputs)
    return {
        "rules": len(program.rules),
        "ground_rules": counted["ground_rules"],
        "ground_atoms": counted["ground_atoms"],
        "models": counted["models"],
        "count_s": round(counting, 3),
        "consistent": verdict.consistent,
        "tolerant": verdict.tolerant,
        "cron_s": round(time.perf_counter() - start, 3),
    }


BEFORE = "6056ee7"  # the revision before issue 38


def analysis_of(revision: str):
    """lang/coordination.py as it was at `revision` (git), imported beside today's modules (its siblings)."""
    text = subprocess.run(["git", "show", f"{revision}:dedalus2asp/lang/coordination.py"], cwd=HERE.parent,
                          capture_output=True, text=True, check=True).stdout
    spec = importlib.util.spec_from_loader("dedalus2asp.lang._coordination_before", loader=None)
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "dedalus2asp.lang"
    sys.modules[spec.name] = module  # dataclasses look their module up
    exec(compile(text, f"{revision}:coordination.py", "exec"), module.__dict__)
    return module


def loci(analysis, program, carried) -> dict:
    facts = [f for fs in (carried.facts.values() if carried else ()) for f in fs]
    # what check passes: before issue 38 every relation with a fact at a fixed step, now `events_of`
    events = (coordination.events_of(program, facts) if analysis is coordination else
              {f.predicate for f in facts if f.step is not None})
    c = analysis.analyse(program, events)
    return {"loci": [f"{x.rule.number}:{'¬' if not x.aggregate else 'agg '}{x.relation}" for x in c.loci],
            "stratifiable": c.temporally_stratifiable, "lamport": list(c.lamport_relations()),
            "positive": not any(r.negative for r in program.rules)}


def programs(molly: Path | None):
    """(name, path, dialect) of every program of examples/ and of Molly's corpus."""
    for path in sorted(EXAMPLES.glob("*/*.ded")):
        yield f"examples/{path.relative_to(EXAMPLES)}", path, "auto"
    if molly is not None:
        folder = next((f for f in (molly / "src/test/resources/examples_ft", molly / "examples_ft", molly) if f.is_dir()))
        for path in sorted(folder.rglob("*.ded")):
            yield f"molly/{path.relative_to(folder)}", path, "molly"


def compare_loci(molly: Path | None, revision: str) -> None:
    before = analysis_of(revision)
    rows, failed = [], []
    for name, path, dialect in programs(molly):
        try:
            program, carried, _ = pipeline.load(path, dialect=dialect)
        except DiagnosticError as error:
            failed.append((name, str(error.diagnostics[0].message)[:80]))
            continue
        old, new = loci(before, program, carried), loci(coordination, program, carried)
        new["positive"] = program.positive
        rows.append({"program": name, "before": old, "after": new})
    header = ("program", "loci before", "loci after", "stratifiable", "positive", "convert --to lamport rewrites")
    print(" | ".join(header))
    print(" | ".join("---" for _ in header))
    pair = lambda b, a: str(a) if a == b else f"{b} → {a}"  # noqa: E731
    for row in rows:
        b, a = row["before"], row["after"]
        listed = lambda x: ", ".join(x) or "none"  # noqa: E731
        print(" | ".join([row["program"], listed(b["loci"]), listed(a["loci"]) + (" (same)" if a["loci"] == b["loci"] else ""),
                          pair(b["stratifiable"], a["stratifiable"]), pair(b["positive"], a["positive"]),
                          pair(listed(b["lamport"]), listed(a["lamport"]))]))
    changed = sum(r["before"] != r["after"] for r in rows)
    print(f"{len(rows)} programs, {changed} changed; not loaded: {', '.join(n for n, _ in failed) or 'none'}")
    document = {"before": revision, "machine": platform.platform(), "rows": rows,
                "not_loaded": [{"program": n, "error": e} for n, e in failed]}
    (HERE / "coordination_loci.json").write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {HERE / 'coordination_loci.json'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="horizon 2 everywhere, write nothing")
    parser.add_argument("--loci", action="store_true", help="the loci before and after issue 38, side by side")
    parser.add_argument("--molly", type=Path, default=None, help="with --loci: a checkout of palvaro/molly (or examples_ft)")
    parser.add_argument("--before", default=BEFORE, help="with --loci: the git revision to compare with")
    args = parser.parse_args()
    if args.loci:
        compare_loci(args.molly, args.before)
        return
    rows = []
    for name, path, facts, horizon, outputs in CASES:
        horizon = 2 if args.quick else horizon
        source = load_source(EXAMPLES / path)
        program = source.program if isinstance(source, LocatedProgram) else source
        relations = coordination.analyse(program).lamport_relations()
        rewritten = parse_source(lamport.rewrite(source, relations).text, str(EXAMPLES / path))
        facts_path = EXAMPLES / facts if facts else None
        before = measure(source, facts_path, horizon, outputs)
        after = measure(rewritten, facts_path, horizon, outputs)
        rows.append({"program": name, "horizon": horizon, "max_delay": 1, "rewritten": list(relations),
                     "before": before, "after": after})
    header = ("program", "T", "rewritten", "rules", "ground rules", "ground atoms", "models", "count s",
              "cron s", "tolerant")
    print(" | ".join(header))
    print(" | ".join("---" for _ in header))
    for row in rows:
        b, a = row["before"], row["after"]
        pair = lambda key: f"{b[key]} → {a[key]}"  # noqa: E731
        print(" | ".join([row["program"], str(row["horizon"]), ", ".join(row["rewritten"]), pair("rules"),
                          pair("ground_rules"), pair("ground_atoms"), pair("models"), pair("count_s"), pair("cron_s"),
                          pair("tolerant")]))
    if not args.quick:
        document = {"machine": platform.platform(), "python": platform.python_version(), "rows": rows}
        (HERE / "coordination.json").write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {HERE / 'coordination.json'}")


if __name__ == "__main__":
    main()
