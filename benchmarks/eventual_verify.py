"""`verify --eventual` against bounded `verify` at EOT = K on Molly's protocols, whole commands, side by side.

    python benchmarks/eventual_verify.py                  # every protocol at every budget, best of 3
    python benchmarks/eventual_verify.py --quick          # two budgets, best of 1, no JSON
    python benchmarks/eventual_verify.py --large-eot 12   # the convergence check at another EOT
    python benchmarks/eventual_verify.py --profile        # where the time goes, in process; the fix measured
    python benchmarks/eventual_verify.py --max-delay 1    # async within one step (benchmarks/eventual_verify_delay1.json)
    python benchmarks/eventual_verify.py --molly DIR      # Molly's configurations: never weaker than bounded

`verify --eventual` (docs/faults.md) answers over the infinite runs: it finds the completeness threshold K by
"loop-free path" programs of K configurations, then asks once for a lasso counterexample of K steps (steps
0..K-1; the loop start L chosen by the solver). Bounded `verify --eot K` asks the same question of the runs cut
at Molly's end of time K, also steps 0..K-1 (`--eot N` is `--horizon N-1`): the same number of steps, so the
ratio of the two times is what the threshold iteration and the lasso constraints cost. The target of issue #29
("Performance"): the eventual command within 10× the bounded one at EOT = K, and at most 10 s whole-command.

For each protocol of examples/molly/ with an invariant file (broadcast_assert.ded for the four broadcasts,
commit_assert.ded for the two 2PCs; the other programs of the folder state no invariant, so `verify` has
nothing to ask of them) under `--delivery sync` with Molly's fault model (the sync defaults: an omission cuts a
channel, a node crashes at or after a step at which it sent, a crashed node keeps its clock), at the budgets of
docs/molly.md's verify table — none; losses before step 2 (Molly's `--eff 3`); one crash; losses before step 1
and one crash — and a larger one, losses before step 4 and two crashes (benchmarks/eventual.py's). With
`--max-delay D`, under async delivery within D steps instead (docs/molly.md's second table; async's fault
defaults: an omission loses one message, a node may crash at any step; the eventual mode steps the nodes in
rounds, docs/semantics.md):

1. `dedalus2asp verify PROG INV --eventual --delivery sync [--loss-until E] [--crashes C] --json`, whole
   command (the interpreter's start included): the verdict, exact, K, the fewest faults, its own seconds;
2. `dedalus2asp verify PROG INV --eot K ...` with that K, whole command, interleaved with 1 (eventual, bounded,
   eventual, bounded, ...), best of `--repeat` each: the ratio of the two bests;
3. once, bounded `verify --eot LARGE` (16 by default: above every K here), the verdict bounded verify converges to: it must be the
   eventual one, with the same fewest faults (a disagreement is printed with both answers and recorded);
4. once, `explore --eventual --pre pre --post post --json`: the explorer's graph size (configurations,
   transitions) and its K.

With `--molly DIR` (a checkout of palvaro/molly, the Nemo case studies under its examples_ft/nemo/ where present),
instead: every configuration of Molly's suite and paper tables (`molly_configurations.py`), `verify --eventual`
(with `--eff`, `--crashes` and `--nodes` as Molly's drivers give them) beside bounded `verify --eot EOT` at Molly's
EOT, once each, whole commands: the eventual answer must never be a "holds" where the bounded one finds a
counterexample (benchmarks/eventual_verify_molly.json, with the load average at the start and the end; a
configuration whose files the checkout lacks is listed as missing, never skipped silently).

Verdicts: H holds, H° holds vacuously, Vn violated with n faults at the fewest (Vn/b: a bounded run, no lasso). Prints the table and writes
benchmarks/eventual_verify.json (not with --quick). Timings depend on the machine (two cores shared with other
jobs here): compare the ratios of one run, measured side by side.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
MOLLY = HERE.parent / "examples" / "molly"
BROADCAST_ASSERT, COMMIT_ASSERT = "broadcast_assert.ded", "commit_assert.ded"
PROTOCOLS = [  # (program, its invariant file)
    ("simple_broadcast.ded", BROADCAST_ASSERT), ("retry_broadcast.ded", BROADCAST_ASSERT),
    ("classic_broadcast.ded", BROADCAST_ASSERT), ("ack_broadcast.ded", BROADCAST_ASSERT),
    ("two_phase_commit.ded", COMMIT_ASSERT), ("two_phase_commit_timeout.ded", COMMIT_ASSERT),
]
BUDGETS = [(None, 0), (2, 0), (None, 1), (1, 1), (4, 2)]  # (loss window E, crashes C): docs/molly.md's table, and more
QUICK_BUDGETS = [(None, 0), (1, 1)]
LARGE_EOT = 16
TIMEOUT = 300.0
TARGET_RATIO, TARGET_SECONDS = 10.0, 10.0


DELIVERY = ["--delivery", "sync"]
"""The network of every command: Molly's rounds, or with --max-delay D tplp2016's asynchronous delivery within D
(in the eventual mode in rounds, docs/semantics.md), the second table of docs/molly.md."""

FAULT_MODEL = {"--delivery": "Molly's fault model (omission channel, crash-times after-send, crash-model clock)",
               "--max-delay": "async's fault model (omission message, crash-times any, crash-model clock)"}


def command(question: str, files: list[Path], loss_until: int | None, crashes: int, *extra: str) -> list[str]:
    """The whole command line: `dedalus2asp QUESTION FILES --delivery sync [faults] EXTRA --json`."""
    faults = (["--loss-until", str(loss_until)] if loss_until is not None else []) + ["--crashes", str(crashes)]
    return [sys.executable, "-m", "dedalus2asp", question, *map(str, files), *DELIVERY, *faults, *extra, "--json"]


def timed(line: list[str]) -> dict:
    """Run one whole command; its wall-clock seconds, exit status and JSON answer (or the last line of its error)."""
    began = time.perf_counter()
    try:
        done = subprocess.run(line, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return {"exit": None, "seconds": None, "error": f"stopped after {TIMEOUT:.0f} s"}
    seconds = time.perf_counter() - began
    out: dict = {"exit": done.returncode, "seconds": round(seconds, 3)}
    if done.returncode in (0, 1, 3):
        out["answer"] = json.loads(done.stdout)
    else:
        lines = done.stderr.strip().splitlines()
        out["error"] = (lines[-1] if lines else f"exit {done.returncode}")[:200]
    return out


def verdict(answer: dict | None) -> dict | None:
    """What a row keeps of a `verify --json` answer: holds, vacuous, the fewest faults, and for --eventual exact, K;
    with the solver's own seconds (the answer's `seconds`: from the load to the verdict, no interpreter start)."""
    if answer is None:
        return None
    c = answer.get("counterexample") or {}
    kept = {"holds": answer["holds"], "vacuous": answer.get("vacuous", False), "faults": c.get("faults"),
            "solver_seconds": answer.get("seconds")}
    if answer.get("mode") == "eventual":
        kept |= {"exact": answer["exact"], "K": answer["K"], "reason": answer.get("reason"),
                 "loop_start": c.get("loop_start"), "period": c.get("period")}
    return kept


def word(v: dict | None) -> str:
    if v is None or "holds" not in v:
        return "—"
    if v["holds"] is None:
        return "?"
    return ("H°" if v["vacuous"] else "H") if v["holds"] else f"V{v['faults']}" + ("/b" if v.get("bounded_run") else "")


def molly(directory: str, json_path: str) -> None:
    """Molly's configurations: `verify --eventual` beside bounded `verify --eot EOT`, whole commands, once each."""
    sys.path.insert(0, str(HERE))
    from molly_configurations import ALL, examples_ft

    root = examples_ft(directory)
    load = {"start": os.getloadavg()}  # two cores shared with other jobs: the times say little without it
    print("verify --eventual beside bounded verify --eot EOT at Molly's settings, --delivery sync, whole commands")
    print(f"load average at the start: {' '.join(f'{x:.2f}' for x in load['start'])} (1, 5, 15 min)")
    print(f"{'configuration':<44} {'EOT':>3} {'EFF':>3} {'C':>2} | {'Molly':>5} {'@EOT':>5} {'s':>6} | "
          f"{'eventual':>8} {'exact':>5} {'K':>3} {'s':>6} | weaker?")
    rows, missing = [], []
    for c in ALL:
        files = [root / f for f in c.files]
        name = "+".join(Path(f).stem for f in c.files)
        if not all(f.exists() for f in files):  # a checkout without Nemo's case studies: said, not skipped silently
            missing.append({"configuration": name, "source": c.source, "eot": c.eot, "eff": c.eff, "crashes": c.crashes,
                            "missing": [str(f) for f in c.files if not (root / f).exists()]})
            print(f"{name[:44]:<44} {c.eot:>3} {c.eff:>3} {c.crashes:>2} | not in {root}: {missing[-1]['missing']}")
            continue
        base = [sys.executable, "-m", "dedalus2asp", "verify", *map(str, files), "--delivery", "sync", "--eff",
                str(c.eff), "--crashes", str(c.crashes), "--nodes", ",".join(c.nodes), "--no-lineage", "--json"]
        bounded, ev = timed(base + ["--eot", str(c.eot)]), timed(base + ["--eventual"])
        b, e = verdict(bounded.get("answer")), verdict(ev.get("answer"))
        if e is not None:
            e["bounded_run"] = ev["answer"].get("bounded_run", False)
        weaker = bool(b and e and b["holds"] is False and e["holds"])
        rows.append({"configuration": name, "source": c.source, "eot": c.eot, "eff": c.eff, "crashes": c.crashes,
                     "nodes": list(c.nodes), "molly_counterexample": c.counterexample,
                     "bounded": (b or {"error": bounded.get("error")}) | {"seconds": bounded["seconds"]},
                     "eventual": (e or {"error": ev.get("error")}) | {"seconds": ev["seconds"]}, "weaker": weaker})
        molly_word = "—" if c.counterexample is None else "V" if c.counterexample else "H"
        print(f"{name[:44]:<44} {c.eot:>3} {c.eff:>3} {c.crashes:>2} | {molly_word:>5} {word(b):>5} "
              f"{bounded['seconds'] or 0:>6.2f} | {word(e):>8} {('yes' if e and e['exact'] else 'no'):>5} "
              f"{(e or {}).get('K') or '—':>3} {ev['seconds'] or 0:>6.2f} | {'WEAKER' if weaker else 'no'}", flush=True)
    summary = {"configurations": len(rows), "missing": len(missing), "weaker": sum(r["weaker"] for r in rows),
               "exact": sum(1 for r in rows if r["eventual"].get("exact")),
               "bounded_runs": sum(1 for r in rows if r["eventual"].get("bounded_run")),
               "max_eventual_seconds": max((r["eventual"]["seconds"] or 0 for r in rows), default=None)}
    load["end"] = os.getloadavg()
    print(json.dumps(summary, indent=1))
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in load['end'])} (1, 5, 15 min)")
    Path(json_path).write_text(json.dumps({"machine": platform.machine(), "cpus": os.cpu_count(), "load": load,
                                           "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                                           "summary": summary, "rows": rows, "missing": missing}, indent=1) + "\n",
                                          encoding="utf-8")


def best(runs: list[dict]) -> float | None:
    times = [r["seconds"] for r in runs if r.get("seconds") is not None]
    return min(times) if times else None


def best_solver(runs: list[dict]) -> float | None:
    """The least of the answers' own seconds (the solver side, no interpreter start) over the runs."""
    times = [r["answer"]["seconds"] for r in runs if r.get("answer", {}).get("seconds") is not None]
    return round(min(times), 3) if times else None


def point(program: str, invariant: str, loss_until: int | None, crashes: int, repeat: int, large_eot: int) -> dict:
    """One protocol at one fault budget: eventual and bounded at EOT = K interleaved, best of `repeat`; the
    bounded verdict at `large_eot`; the explorer's graph."""
    files = [MOLLY / program, MOLLY / invariant]
    row: dict = {"protocol": program, "invariant": invariant, "loss_until": loss_until, "crashes": crashes}
    eventual_line = command("verify", files, loss_until, crashes, "--eventual")
    first = timed(eventual_line)
    if "answer" not in first:
        return row | {"error": first["error"]}
    K = first["answer"]["K"]
    bounded_line = command("verify", files, loss_until, crashes, "--eot", str(K))  # steps 0..K-1, the lasso's steps
    eventual_runs, bounded_runs = [first], []
    for i in range(repeat):
        bounded_runs.append(timed(bounded_line))
        if i + 1 < repeat:
            eventual_runs.append(timed(eventual_line))
    last = bounded_runs[-1]
    row["eventual"] = verdict(first["answer"]) | {"seconds": best(eventual_runs), "solver_seconds": best_solver(eventual_runs),
                                                  "runs": [r["seconds"] for r in eventual_runs]}
    row["bounded_at_K"] = (verdict(last.get("answer")) or {"error": last.get("error")}) | {
        "eot": K, "seconds": best(bounded_runs), "solver_seconds": best_solver(bounded_runs), "runs": [r["seconds"] for r in bounded_runs]}
    large = timed(command("verify", files, loss_until, crashes, "--eot", str(large_eot)))
    row["bounded_large"] = (verdict(large.get("answer")) or {"error": large.get("error")}) | {
        "eot": large_eot, "seconds": large["seconds"]}
    graph = timed(command("explore", files, loss_until, crashes, "--eventual", "--pre", "pre", "--post", "post"))
    if "answer" in graph:
        g = graph["answer"]
        row["explorer"] = {"holds": g["holds"], "vacuous": g["vacuous"], "faults": g["faults"],
                           "configurations": g["configurations"], "edges": g["edges"], "threshold": g["threshold"],
                           "threshold_exact": g["threshold_exact"], "seconds": graph["seconds"]}
    else:
        row["explorer"] = {"error": graph["error"]}
    e, b = row["eventual"]["seconds"], row["bounded_at_K"]["seconds"]
    row["ratio"] = round(e / b, 2) if e and b else None
    se, sb = row["eventual"]["solver_seconds"], row["bounded_at_K"].get("solver_seconds")
    row["solver_ratio"] = round(se / sb, 2) if se and sb else None  # without the interpreter's start
    row["meets_target"] = bool(row["ratio"] is not None and row["ratio"] <= TARGET_RATIO and e <= TARGET_SECONDS)
    same = lambda v: v is not None and "holds" in v and (v["holds"], v["vacuous"], v["faults"]) == (  # noqa: E731
        row["eventual"]["holds"], row["eventual"]["vacuous"], row["eventual"]["faults"])
    row["agrees_with_large_eot"] = same(row["bounded_large"])
    row["agrees_with_explorer"] = same(row["explorer"]) if "holds" in row["explorer"] else None
    if not row["agrees_with_large_eot"]:
        row["disagreement"] = {"eventual": first["answer"], "bounded_large": large.get("answer")}
    return row


DISTINCT = ":- time(I), time(J), I < J, not _differ(I,J)."
"""The path program's constraint that every two of its rounds have different configurations."""


def threshold_one_grounding(prog, instance, bounds, rounds: int) -> tuple[int | None, float]:
    """The fix proposed for the threshold search, measured: the path program grounded once, at `rounds` rounds,
    with the distinctness constraint only among the rounds before k (an external `_upto(k)`), solved for
    k = 1, 2, ... until unsatisfiable. Same answer as one program per k: the configurations of the rounds before
    k do not depend on what comes after, and every run prefix extends to `rounds` rounds (a crash at round k - 1
    or later shows in no configuration before k). (K or None when every k up to `rounds` has a path, seconds.)"""
    import clingo

    from dedalus2asp.asp import transform
    from dedalus2asp.questions import models

    began = time.perf_counter()
    text = transform.transform(prog, instance, models.eventual_bounds(bounds, rounds), True).text
    if DISTINCT not in text:
        raise ValueError("the path program no longer has the distinctness constraint this measurement rewrites")
    text = text.replace(DISTINCT, ":- _upto(K), time(I), time(J), I < J, J < K, not _differ(I,J).\n"
                        f"#external _upto(1..{rounds}).")
    ctl = clingo.Control(["1"], logger=lambda code, message: None)
    ctl.add("base", [], text)
    ctl.ground([("base", [])])
    for k in range(1, rounds + 1):
        if k > 1:
            ctl.assign_external(clingo.Function("_upto", [clingo.Number(k - 1)]), False)
        ctl.assign_external(clingo.Function("_upto", [clingo.Number(k)]), True)
        if not ctl.solve().satisfiable:
            return max(k - 1, models.first_steps(prog, instance)), round(time.perf_counter() - began, 3)
    return None, round(time.perf_counter() - began, 3)


def profile(program: str, invariant: str, loss_until: int | None, crashes: int, max_delay: int | None = None) -> dict:
    """Where the time of one point goes, in process (no interpreter start): the load; the threshold search, each
    "loop-free path of k configurations" program transformed, grounded and solved (`questions.models.threshold`
    does the same, k = 1, 2, ... up to the first unsatisfiable one); the lasso program at K; the lineage of a
    counterexample; and bounded verify at EOT K with its lineage. Seconds, and the ground size of the largest
    programs (clingo's `lp` statistics)."""
    import clingo

    sys.path.insert(0, str(HERE.parent))
    from dedalus2asp import pipeline
    from dedalus2asp.asp import transform
    from dedalus2asp.bounds import Bounds, Mode, Network
    from dedalus2asp.questions import eventual, lineage, models, verify

    def clock(what, *args):
        began = time.perf_counter()
        out = what(*args)
        return out, round(time.perf_counter() - began, 3)

    def ground_size(text: str) -> tuple[int, float, float]:
        ctl = clingo.Control(["1"], logger=lambda code, message: None)
        began = time.perf_counter()
        ctl.add("base", [], text)
        ctl.ground([("base", [])])
        grounded = time.perf_counter() - began
        ctl.solve()
        solved = time.perf_counter() - began - grounded
        return int(ctl.statistics["problem"]["lp"]["rules"]), round(grounded, 3), round(solved, 3)

    (prog, instance, _), load = clock(pipeline.load, [MOLLY / program, MOLLY / invariant], None, "auto")
    network = Network("sync", None, loss_until, crashes) if max_delay is None else Network(
        "async", max_delay, loss_until, crashes)
    bounds = Bounds(0, network=network, mode=Mode.EVENTUAL)
    out: dict = {"protocol": program, "loss_until": loss_until, "crashes": crashes, "load": load, "paths": []}
    exactness, out["threshold"] = clock(eventual.threshold, prog, instance, bounds)
    for k in range(1, exactness.K + 2):  # the same programs again, one by one: transform, ground, solve
        path, t = clock(transform.transform, prog, instance, models.eventual_bounds(bounds, k), True)
        rules, grounded, solved = ground_size(path.text)
        out["paths"].append({"k": k, "transform": t, "ground": grounded, "solve": solved, "rules": rules})
    K = exactness.K
    lasso, out["lasso_verify"] = clock(verify.verify_at, prog, instance, eventual.lasso_bounds(bounds, K), "pre", "post")
    lasso_text = transform.transform(prog, instance, eventual.lasso_bounds(bounds, K)).text
    out["lasso_rules"] = ground_size(lasso_text)[0]
    _, out["lasso_lineage"] = clock(lineage.attach, lasso, prog, instance) if lasso.holds is False else (None, 0.0)
    flat = Bounds(K - 1, network=network)  # --eot K: steps 0..K-1
    bounded, out["bounded_verify"] = clock(verify.verify_at, prog, instance, flat, "pre", "post")
    out["bounded_rules"] = ground_size(transform.transform(prog, instance, flat).text)[0]
    _, out["bounded_lineage"] = clock(lineage.attach, bounded, prog, instance) if bounded.holds is False else (None, 0.0)
    out["K"], out["exact"] = K, exactness.exact
    out["ratio"] = round((out["threshold"] + out["lasso_verify"]) / max(out["bounded_verify"], 1e-3), 1)
    from dedalus2asp.questions.eventual import MAX_K
    one_K, out["one_grounding"] = threshold_one_grounding(prog, instance, bounds, MAX_K + 1)
    out["one_grounding_same_K"] = one_K == K
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="two fault budgets, best of 1, no JSON")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each timed command (the best is kept)")
    parser.add_argument("--large-eot", type=int, default=LARGE_EOT, help="the EOT bounded verify converges at")
    parser.add_argument("--json", default=str(HERE / "eventual_verify.json"))
    parser.add_argument("--max-delay", type=int, default=None, metavar="D",
                        help="async delivery within D steps instead of sync (the JSON gets a suffix: _delay<D>)")
    parser.add_argument("--profile", action="store_true",
                        help="instead: where the time goes at each point, in process (threshold per k, lasso, lineage)")
    parser.add_argument("--molly", metavar="DIR", default=None,
                        help="instead: Molly's configurations, eventual beside bounded at Molly's EOT (a checkout)")
    args = parser.parse_args()
    if args.molly is not None:
        molly(args.molly, str(HERE / "eventual_verify_molly.json") if args.json == parser.get_default("json") else args.json)
        return
    if args.max_delay is not None:
        global DELIVERY
        DELIVERY = ["--max-delay", str(args.max_delay)]
        if args.json == parser.get_default("json"):
            args.json = str(HERE / f"eventual_verify_delay{args.max_delay}.json")
    if args.profile:
        print(f"{'protocol':<28} {'E':>2} {'C':>2} {'K':>3} | {'load':>5} {'thresh':>6} {'k':>3} {'transf':>6} {'ground':>6} {'solve':>6} "
              f"{'lasso':>5} {'lin':>5} | {'@K':>5} {'lin':>5} | {'ratio':>5} | {'1-gr':>5} | {'rules lasso / @K':>16}")
        for program, invariant in PROTOCOLS:
            for loss_until, crashes in QUICK_BUDGETS if args.quick else BUDGETS:
                p = profile(program, invariant, loss_until, crashes, args.max_delay)
                total = {part: sum(q[part] for q in p["paths"]) for part in ("transform", "ground", "solve")}
                paths = f"{len(p['paths']):>3} {total['transform']:>6.2f} {total['ground']:>6.2f} {total['solve']:>6.2f}"
                print(f"{program.removesuffix('.ded'):<28} {loss_until or 0:>2} {crashes:>2} {p['K']:>3} | "
                      f"{p['load']:>5.2f} {p['threshold']:>6.2f} {paths} {p['lasso_verify']:>5.2f} "
                      f"{p['lasso_lineage']:>5.2f} | {p['bounded_verify']:>5.2f} {p['bounded_lineage']:>5.2f} | "
                      f"{p['ratio']:>5.1f} | {p['one_grounding']:>5.2f}{'' if p['one_grounding_same_K'] else '≠K'} | "
                      f"{p['lasso_rules']:>7} / {p['bounded_rules']:<7}", flush=True)
        return
    repeat = 1 if args.quick else args.repeat
    print(f"verify --eventual against bounded verify --eot K, whole commands, best of {repeat}, {' '.join(DELIVERY)}, "
          f"{FAULT_MODEL[DELIVERY[0]]}; verdicts: H holds, H° vacuously, Vn violated with n faults")
    print(f"{'protocol':<28} {'E':>2} {'C':>2} | {'eventual':>8} {'@K':>4} {f'@{args.large_eot}':>4} {'exact':>5} "
          f"{'K':>3} | {'configs':>7} {'edges':>6} {'K':>3} | {'ev s':>6} {'(solver)':>8} {'@K s':>6} {'(solver)':>8} {'ratio':>5} "
          f"{'(solver)':>8} {'target':>6}")
    rows = []
    for program, invariant in PROTOCOLS:
        for loss_until, crashes in QUICK_BUDGETS if args.quick else BUDGETS:
            row = point(program, invariant, loss_until, crashes, repeat, args.large_eot)
            rows.append(row)
            head = f"{program.removesuffix('.ded'):<28} {loss_until or 0:>2} {crashes:>2}"
            if "error" in row:
                print(f"{head} | {row['error'][:90]}", flush=True)
                continue
            ev, at_k, large, g = row["eventual"], row["bounded_at_K"], row["bounded_large"], row["explorer"]
            graph = (f"{g['configurations']:>7} {g['edges']:>6} {('=' if g['threshold_exact'] else '≤') + str(g['threshold']):>3}"
                     if "configurations" in g else f"{'error':>18}")
            print(f"{head} | {word(ev):>8} {word(at_k):>4} {word(large):>4} {'yes' if ev['exact'] else 'no':>5} "
                  f"{ev['K']:>3} | {graph} | {ev['seconds']:>6.2f} {ev['solver_seconds']:>8.2f} "
                  f"{at_k['seconds'] or 0:>6.2f} {at_k.get('solver_seconds') or 0:>8.2f} {row['ratio'] or 0:>5.2f} "
                  f"{row['solver_ratio'] or 0:>8.2f} {'met' if row['meets_target'] else 'MISSED':>6}"
                  + ("" if row["agrees_with_large_eot"] else f"  DISAGREES with EOT {args.large_eot}"), flush=True)
    decided = [r for r in rows if "error" not in r]
    summary = {
        "points": len(rows), "decided": len(decided),
        "meet_target": sum(1 for r in decided if r["meets_target"]),
        "missed": [f"{r['protocol']} E={r['loss_until']} C={r['crashes']}: {r['eventual']['seconds']} s, "
                   f"ratio {r['ratio']}" for r in decided if not r["meets_target"]],
        "max_ratio": max((r["ratio"] for r in decided if r["ratio"]), default=None),
        "max_solver_ratio": max((r["solver_ratio"] for r in decided if r["solver_ratio"]), default=None),
        "max_eventual_seconds": max((r["eventual"]["seconds"] for r in decided), default=None),
        "agree_with_large_eot": sum(1 for r in decided if r["agrees_with_large_eot"]),
        "agree_with_explorer": sum(1 for r in decided if r["agrees_with_explorer"]),
        "errors": [f"{r['protocol']} E={r['loss_until']} C={r['crashes']}: {r['error']}" for r in rows if "error" in r],
    }
    print(json.dumps(summary, indent=1))
    if not args.quick:
        document = {"machine": platform.machine(), "cpus": os.cpu_count(), "python": platform.python_version(),
                    "delivery": " ".join(DELIVERY), "fault_model": FAULT_MODEL[DELIVERY[0]], "repeat": repeat,
                    "large_eot": args.large_eot,
                    "target": {"ratio": TARGET_RATIO, "seconds": TARGET_SECONDS}, "summary": summary, "rows": rows}
        Path(args.json).write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
