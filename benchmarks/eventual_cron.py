"""`cron --eventual` on the papers' configurations: exact or not, decided how, and how long, beside the graph's size.

    python benchmarks/eventual_cron.py            # every example of examples/tplp2016 and examples/jcss2014 with its inputs, D = 1, 2
    python benchmarks/eventual_cron.py --quick    # D = 1 only
    python benchmarks/eventual_cron.py --only ex3_2pc   # the rows of programs whose name has it, merged into the JSON

The last row is the issue's finding B (`p()@async(Y) :- id(Y).` on two nodes, D = 3).

Per configuration (a program, one of its inputs — the `-large` ones left out — and a delay bound D): the
explorer's causal graph (`explore --eventual`: configurations, transitions, seconds), where the nodes' clocks may
drift apart the fair asynchronous interleavings (`runs/interleavings.py`, the `explore --eventual` that asks them and
follows the free clocks: their configurations, whether they certify the list, seconds), the choice runs' graph with
debts (`runs/choice.py`, within `models.GRAPH_LIMIT` configurations and `GRAPH_SECONDS`, as `cron` builds it: its
size, seconds, ultimate outputs), its over-approximation (`runs/choice_over.py`, the same limits: size, seconds,
whether it closed) and the
answer of
`cron --eventual` (`questions.cron_eventual.analyse_eventual`, the whole procedure: confluence, the explorer's
graph where it closes, the solver's thresholds, deepening): consistent, tolerant, exact per side, decided by
what, seconds; and the ratio of the two times, measured side by side in one run; then the whole command
(`dedalus2asp cron PROGRAM --input FACTS --eventual --max-delay D`, start-up and printing included): its seconds and
exit status. Each `cron` is given
TIME_LIMIT seconds, as `cron --timeout`. Prints the table and writes benchmarks/eventual_cron.json (not with
--quick). Timings depend on the machine (2 shared cores here): compare the ratios.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from dedalus2asp import pipeline  # noqa: E402
from dedalus2asp.bounds import Bounds, Mode, Network  # noqa: E402
from dedalus2asp.questions import cron_eventual, models  # noqa: E402
from dedalus2asp.questions.cron import Timeout  # noqa: E402
from dedalus2asp.runs import choice, choice_over, eventual  # noqa: E402

EXAMPLES = HERE.parent / "examples"
TIME_LIMIT = 60.0


FINDING_B = (".output p.\np()@async(Y) :- id(Y).\n", "a { id(a). id(b). }\nb { id(a). id(b). }\n")
"""The issue's finding B, measured under D = 3: two nodes that message each other at every step."""


def configurations(delays: tuple[int, ...]):
    for paper in ("tplp2016", "jcss2014"):
        for program in sorted((EXAMPLES / paper).glob("*.ded")):
            stem = program.stem.split("_")[0]
            for facts in sorted((EXAMPLES / paper).glob(f"{stem}*.facts")):
                if "-large" not in facts.stem:
                    for d in delays:
                        yield program, facts, d


def measure(program_path: Path, facts: Path, d: int) -> dict:
    program, instance = pipeline.load(program_path, facts)[:2]
    bounds = Bounds(1, mode=Mode.EVENTUAL, network=Network(max_delay=d))
    began = time.perf_counter()
    graph = eventual.explore(program, instance, bounds, max_configurations=1_000_000, seconds=TIME_LIMIT)
    explored = time.perf_counter() - began
    row = {"program": f"{program_path.parent.name}/{program_path.name}", "input": facts.name, "D": d,
           "configurations": graph.configurations, "transitions": graph.edges, "graph_exact": graph.exact,
           "graph_outputs": [list(o) for o in graph.ultimate_outputs] if graph.graph_complete else None,
           "explore_seconds": round(explored, 3)}
    began = time.perf_counter()  # the fair asynchronous interleavings (runs/interleavings.py), where clocks may drift
    over = eventual.explore(program, instance, bounds, max_configurations=1_000_000, seconds=TIME_LIMIT, free_clocks=True)
    row.update(interleavings=over.interleavings, interleavings_seconds=round(time.perf_counter() - began, 3),
               free_clocks_exact=over.exact if over.free_clocks is not None else None)
    began = time.perf_counter()
    try:  # the choice runs' graph with debts (runs/choice.py), which decides tolerance where it closes
        chosen = choice.explore_choice(program, instance, bounds, models.GRAPH_LIMIT, seconds=models.GRAPH_SECONDS)
        row.update(choice_configurations=chosen.configurations, choice_exact=chosen.exact,
                   choice_outputs=[list(o) for o in chosen.ultimate_outputs] if chosen.graph_complete else None)
    except ValueError as refused:
        row.update(choice_configurations=None, choice_exact=False, choice_outputs=None, choice_refused=str(refused))
    row["choice_seconds"] = round(time.perf_counter() - began, 3)
    began = time.perf_counter()
    try:  # its over-approximation (runs/choice_over.py), which proves "tolerant" where it has the causal output only
        over = choice.explore_choice(program, instance, bounds, models.GRAPH_LIMIT, seconds=models.GRAPH_SECONDS,
                                     make=choice_over.OverGraph)
        row.update(over_configurations=over.configurations, over_exact=over.exact)
    except ValueError:
        row.update(over_configurations=None, over_exact=False)
    row["over_seconds"] = round(time.perf_counter() - began, 3)
    began = time.perf_counter()
    try:
        v = cron_eventual.analyse_eventual(program, instance, bounds, timeout=TIME_LIMIT)
    except Timeout:
        row.update(cron="timeout", cron_seconds=round(time.perf_counter() - began, 3))
        return row
    row.update(cron_seconds=round(time.perf_counter() - began, 3), consistent=v.consistent, tolerant=v.tolerant,
               exact=v.exact, consistency=v.exactness.as_dict() if v.exactness else None,
               tolerance=v.choice_exactness.as_dict() if v.choice_exactness else None)
    row["ratio"] = round(row["cron_seconds"] / max(explored, 1e-3), 1)
    began = time.perf_counter()  # the whole command, as a user runs it (start-up, loading, the answer printed)
    done = subprocess.run([sys.executable, "-m", "dedalus2asp", "cron", str(program_path), "--input", str(facts),
                           "--eventual", "--max-delay", str(d)],
                          capture_output=True, text=True)
    row.update(command_seconds=round(time.perf_counter() - began, 3), command_exit=done.returncode)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", help="only the programs whose file name has this; their rows replace the JSON's")
    args = parser.parse_args()
    rows = []
    header = (f"{'configuration':44} {'D':>2} {'confs':>7} {'explore s':>9} {'inter':>5} {'inter s':>7} {'choice':>7} "
              f"{'choice s':>8} {'over':>7} {'over s':>7} {'cron s':>7} {'ratio':>6} {'cmd s':>6} exit  verdict")
    print(header)
    extra = Path(tempfile.mkdtemp()) / "findings"  # the row is named findings/finding_b.ded, not after the temp dir
    extra.mkdir()
    (extra / "finding_b.ded").write_text(FINDING_B[0])
    (extra / "finding_b.facts").write_text(FINDING_B[1])
    points = [*configurations((1,) if args.quick else (1, 2)), (extra / "finding_b.ded", extra / "finding_b.facts", 3)]
    if args.only:
        points = [p for p in points if args.only in p[0].name]
    for program, facts, d in points:
        row = measure(program, facts, d)
        rows.append(row)
        decided = "/".join(str((side or {}).get("decided_by") or "-") for side in (row.get("consistency"), row.get("tolerance")))
        verdict = ("timeout" if row.get("cron") == "timeout" else
                   f"consistent={row['consistent']} tolerant={row['tolerant']} exact={row['exact']} ({decided})")
        drift = (row.get("consistency") or {}).get("free_clocks")
        verdict += "" if drift is None else f" [clocks may drift: free clocks followed to T = {drift}]"
        print(f"{row['program'] + ' ' + row['input']:44} {d:>2} {row['configurations']:>7} {row['explore_seconds']:>9} "
              f"{str(row['interleavings'] or '-'):>5} {row['interleavings_seconds']:>7} "
              f"{str(row['choice_configurations']):>7} {row['choice_seconds']:>8} "
              f"{str(row['over_configurations']) + ('' if row['over_exact'] else '+'):>7} {row['over_seconds']:>7} "
              f"{row.get('cron_seconds', '-'):>7} "
              f"{row.get('ratio', '-'):>6} {row.get('command_seconds', '-'):>6} {row.get('command_exit', '-'):>4}  {verdict}",
              flush=True)
    if args.only:
        old = json.loads((HERE / "eventual_cron.json").read_text())["rows"]
        key = lambda r: (r["program"], r["input"], r["D"])  # noqa: E731
        new = {key(r): r for r in rows}
        rows = [new.pop(key(r), r) for r in old] + list(new.values())
    exact = sum(1 for r in rows if r.get("exact"))
    print(f"exact: {exact} of {len(rows)}")
    if not args.quick:
        out = {"machine": platform.platform(), "python": platform.python_version(), "time_limit": TIME_LIMIT,
               "rows": rows}
        (HERE / "eventual_cron.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
