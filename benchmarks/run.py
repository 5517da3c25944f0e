"""What the fast encoding buys: the scaling families of `families.py`, both encodings side by side.

    python benchmarks/run.py                 # the full run, about 10 minutes
    python benchmarks/run.py --quick         # a smoke run, about 1 minute
    python benchmarks/run.py --budget 120    # more time per encoding per family

For every family, size and encoding, the horizon T grows along `families.HORIZONS` until the
encoding has spent its budget (`--budget` seconds per encoding, family and size, counted over all
the points of the sweep); the largest T that finished is the horizon it *reached*. The paper
encoding goes first; the fast one stops early once it has reached REACH_CAP times the paper's
horizon, which is all the comparison needs. Every point runs in a child process (killed when the
budget runs out, and limited in memory) and measures, with clingo's Python API:

* transform: writing the program (dedalus2asp.asp.transform);
* ground: `Control.ground`; rules and atoms: `statistics['problem']['lp']`;
* solve: `Control.solve` to the first model (clingo option `1`);
* first model: the sum of the above and of parsing the program (`Control.add`).

At a few small points per family it also counts the distinct traces, three ways: projective
enumeration with each encoding, as `dedalus2asp count --traces-only` does (`solve.count`: the
fast encoding counts on its program at the level of traces, templates/traces.lp.j2), and the
explicit-state explorer `operational.explore(..., mode="traces")` as the baseline; the three
counts must agree (bounded Theorem 4). Each method counts once in this process before the
measurements (`warm_up`), so no time includes compiling templates or grammars, and a count
under 0.2 s is the best of five (`count_traces`). Separately it
measures the target point jcss2014 Alg. 1 with N = 4, T = 24.

The semantics is `causal-finite` (the default) without a delay bound. Results go to
benchmarks/results/<timestamp>.json (git-ignored) and to benchmarks/latest.json and
benchmarks/latest.png; the table is printed. The plot needs matplotlib (the `dev` extra).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import platform
import resource
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import clingo  # noqa: E402

from dedalus2asp.asp import solve  # noqa: E402
from dedalus2asp.runs import operational
from dedalus2asp.lang.analysis import restrict  # noqa: E402
from dedalus2asp.lang.facts import parse_facts  # noqa: E402
from dedalus2asp.lang.parser import load_program  # noqa: E402
from dedalus2asp.asp.transform import transform  # noqa: E402
from dedalus2asp.bounds import Bounds, Encoding, Semantics  # noqa: E402
from families import FAMILIES, HORIZONS, Family, alg1_chain  # noqa: E402

SEMANTICS = Semantics.CAUSAL_FINITE
ENCODINGS = (Encoding.PAPER, Encoding.FAST)
MEMORY = 8 * 2**30  # address-space limit of a child process, bytes
REACH_CAP = 8  # the fast sweep stops at this many times the paper's horizon
REPEATS, REPEAT_BELOW = 5, 0.2  # a trace count under 0.2 s is the best of 5


# --- measurements, each in a child process -----------------------------------------------------


def first_model(program_path: str, facts: str, horizon: int, encoding: str) -> dict:
    """Transform, ground and solve to the first model; times in seconds, clingo's statistics."""
    program = load_program(program_path)
    instance = parse_facts(facts, "benchmark.facts")
    start = time.perf_counter()
    compiled = transform(program, instance, Bounds(horizon, SEMANTICS, Encoding(encoding)))
    transformed = time.perf_counter()
    ctl = clingo.Control(["1"], logger=lambda code, message: None)
    ctl.add("base", [], compiled.text)
    parsed = time.perf_counter()
    ctl.ground([("base", [])])
    grounded = time.perf_counter()
    result = ctl.solve()
    solved = time.perf_counter()
    lp = ctl.statistics["problem"]["lp"]
    return {
        "transform": transformed - start,
        "ground": grounded - parsed,
        "solve": solved - grounded,
        "first_model": solved - start,
        "rules": int(lp["rules"]),
        "atoms": int(lp["atoms"]),
        "satisfiable": bool(result.satisfiable),
    }


def count_traces(program_path: str, facts: str, horizon: int, method: str) -> dict:
    """The number of distinct traces and the time to count them: projective enumeration or `explore`.

    A count that takes less than REPEAT_BELOW seconds is repeated, up to REPEATS times in all, and
    the shortest time is kept (as `timeit` does): at a few milliseconds a single time says more
    about the freshly forked process (its first writes to shared pages) than about the method.
    "runs" says how many counts the time is the best of.
    """
    program = load_program(program_path)
    instance = parse_facts(facts, "benchmark.facts")
    best, runs = math.inf, 0
    while runs < REPEATS and (runs == 0 or best < REPEAT_BELOW):
        start = time.perf_counter()
        if method == "explore":
            explored = operational.explore(program, restrict(instance, program), Bounds(horizon), mode="traces", max_states=10**8)
            traces, states = len(explored.traces), explored.states
        else:
            compiled = transform(program, instance, Bounds(horizon, SEMANTICS, Encoding(method)))
            traces = solve.count(compiled, progress=False, models=False)["traces"]
            states = None
        best, runs = min(best, time.perf_counter() - start), runs + 1
    return {"traces": traces, "states": states, "seconds": best, "runs": runs}


def _child(connection, function, args) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
    try:
        connection.send(("ok", function(*args)))
    except MemoryError:
        connection.send(("memory", None))
    except Exception as exc:  # clingo reports std::bad_alloc as RuntimeError
        connection.send(("memory" if "alloc" in str(exc) else f"error: {exc}", None))


def isolated(function, args, timeout: float) -> tuple[str, dict | None]:
    """Run function(*args) in a child process: ("ok", result), ("timeout", None), ("memory", None), ..."""
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(send, function, args))
    child.start()
    send.close()
    status, result = ("timeout", None)
    if receive.poll(max(timeout, 0.0)):
        try:
            status, result = receive.recv()
        except EOFError:
            status = "crashed"
    child.kill()
    child.join()
    return status, result


# --- the sweeps ---------------------------------------------------------------------------------


def sweep(family: Family, size: int, encoding: Encoding, budget: float, horizons, log, cap=None) -> dict:
    """Grow T until the budget is spent (or past `cap`); every point, and the largest T that finished."""
    facts = family.facts(size)
    points, reached, stopped = [], None, "end of the horizons"
    spent = 0.0
    for horizon in horizons:
        if cap is not None and horizon > cap:
            stopped = f"{REACH_CAP}× paper"
            break
        remaining = budget - spent
        if remaining <= 0:
            stopped = "budget"
            break
        start = time.perf_counter()
        status, result = isolated(first_model, (str(family.program), facts, horizon, encoding.value), remaining)
        spent += time.perf_counter() - start
        if status != "ok":
            stopped = status
            log(f"  {family.name} {family.size}={size} {encoding.value:5} T={horizon}: {status}")
            break
        points.append({"horizon": horizon, **result})
        reached = horizon
        log(
            f"  {family.name} {family.size}={size} {encoding.value:5} T={horizon}: "
            f"{result['rules']} rules, first model {result['first_model']:.2f} s"
        )
    return {
        "family": family.name,
        "size": size,
        "encoding": encoding.value,
        "points": points,
        "reached": reached,
        "stopped": stopped,
        "seconds": spent,
        "exponent": growth_exponent(points),
        "exponent_upper_half": growth_exponent(points[len(points) // 2 :]),
    }


def growth_exponent(points: list[dict]) -> float | None:
    """Least-squares slope of log(ground rules) against log(T)."""
    xs = [math.log(p["horizon"]) for p in points]
    ys = [math.log(p["rules"]) for p in points]
    if len(xs) < 2:
        return None
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def warm_up() -> None:
    """Count once with every method in this process, so that the children forked for the measurements
    find jinja's compiled templates and lark's grammars ready: one-off start-up costs of a process,
    which a session that counts more than once (a notebook, a batch) pays once."""
    family = next(f for f in FAMILIES if f.name == "fig4")
    for method in ("paper", "fast", "explore"):
        count_traces(str(family.program), family.facts(1), 1, method)


def counts(family: Family, points, timeout: float, log) -> list[dict]:
    rows = []
    for size, horizon in points:
        row = {"family": family.name, "size": size, "horizon": horizon}
        for method in ("paper", "fast", "explore"):
            status, result = isolated(count_traces, (str(family.program), family.facts(size), horizon, method), timeout)
            row[method] = result if status == "ok" else {"status": status}
        found = {row[m]["traces"] for m in ("paper", "fast", "explore") if "traces" in row[m]}
        row["agree"] = len(found) <= 1
        log(
            f"  count {family.name} {family.size}={size} T={horizon}: "
            + ", ".join(f"{m} {_cell(row[m])}" for m in ("paper", "fast", "explore"))
        )
        rows.append(row)
    return rows


def _cell(result: dict) -> str:
    return f"{result['traces']} in {result['seconds']:.3f} s" if "traces" in result else result["status"]


# --- report ---------------------------------------------------------------------------------------


def ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a and b else None


def targets(target: dict, series: list[dict], count_rows: list[dict]) -> dict:
    paper, fast = target.get("paper"), target.get("fast")
    out = {
        "alg1_N4_T24_rules_ratio": ratio(paper and paper["rules"], fast and fast["rules"]),
        "alg1_N4_T24_first_model_ratio": ratio(paper and paper["first_model"], fast and fast["first_model"]),
    }
    reach = {}
    for s in series:
        if s["encoding"] == "fast":
            other = next(p for p in series if p["encoding"] == "paper" and (p["family"], p["size"]) == (s["family"], s["size"]))
            reach[f"{s['family']}/{s['size']}"] = {
                "paper": other["reached"],
                "fast": s["reached"],
                "fast_stopped": s["stopped"],
                "ratio": ratio(s["reached"], other["reached"]),
            }
    out["horizon_reached"] = reach
    both = [r for r in count_rows if "seconds" in r["explore"] and "seconds" in r["fast"]]
    out["count_speedup_vs_explore"] = {
        f"{r['family']}/{r['size']}/T{r['horizon']}": ratio(r["explore"]["seconds"], r["fast"]["seconds"]) for r in both
    }
    # below a second, both sides are mostly start-up (parsing, grounding, building the search)
    out["count_speedup_vs_explore_over_1s"] = {
        f"{r['family']}/{r['size']}/T{r['horizon']}": ratio(r["explore"]["seconds"], r["fast"]["seconds"])
        for r in both
        if r["explore"]["seconds"] >= 1.0
    }
    return out


def print_report(data: dict, all_points: bool = False) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=max(130, Console().width), highlight=False)
    sweep_table = Table(title=f"first model, {data['semantics']}, budget {data['budget']} s per encoding, family and size")
    for column in ("family", "size", "T", "paper rules", "fast rules", "rules ×", "paper s", "fast s", "time ×"):
        sweep_table.add_column(column, justify="right")
    for family in data["families"]:
        for size in family["sizes"]:
            paper = _series(data, family["name"], size, "paper")
            fast = _series(data, family["name"], size, "fast")
            by_t = {p["horizon"]: p for p in paper["points"]}
            # by default: the horizons both encodings reached, and the largest the fast one reached
            shown = [p for p in fast["points"] if all_points or p["horizon"] in by_t or p is fast["points"][-1]]
            for point in shown:
                other = by_t.get(point["horizon"])
                sweep_table.add_row(
                    family["name"],
                    f"{family['size']}={size}",
                    str(point["horizon"]),
                    f"{other['rules']:,}" if other else "—",
                    f"{point['rules']:,}",
                    _x(other and other["rules"], point["rules"]),
                    f"{other['first_model']:.2f}" if other else "—",
                    f"{point['first_model']:.2f}",
                    _x(other and other["first_model"], point["first_model"]),
                )
    console.print(sweep_table)

    reach_table = Table(
        title="largest horizon reached in the budget; growth exponent of ground rules in T (all points / upper half of T)"
    )
    for column in ("family", "size", "paper T", "fast T", "×", "paper exponent", "fast exponent", "fast stopped by"):
        reach_table.add_column(column, justify="right")
    for family in data["families"]:
        for size in family["sizes"]:
            paper = _series(data, family["name"], size, "paper")
            fast = _series(data, family["name"], size, "fast")
            reach_table.add_row(
                family["name"],
                f"{family['size']}={size}",
                str(paper["reached"]),
                str(fast["reached"]),
                _x(fast["reached"], paper["reached"]),
                f"{_f(paper['exponent'])} / {_f(paper['exponent_upper_half'])}",
                f"{_f(fast['exponent'])} / {_f(fast['exponent_upper_half'])}",
                fast["stopped"],
            )
    console.print(reach_table)

    count_table = Table(title="counting distinct traces (seconds; explore = explicit-state baseline)")
    for column in ("family", "size", "T", "traces", "paper s", "fast s", "explore s", "explore/fast"):
        count_table.add_column(column, justify="right")
    for row in data["counts"]:
        traces = next((row[m]["traces"] for m in ("fast", "paper", "explore") if "traces" in row[m]), "—")
        count_table.add_row(
            row["family"],
            str(row["size"]),
            str(row["horizon"]),
            f"{traces:,}" + ("" if row["agree"] else " (DISAGREE)") if traces != "—" else "—",
            *(f"{row[m]['seconds']:.3f}" if "seconds" in row[m] else row[m]["status"] for m in ("paper", "fast", "explore")),
            _x(row["explore"].get("seconds"), row["fast"].get("seconds")),
        )
    console.print(count_table)

    t = data["targets"]
    target = data["target_point"]
    console.print(
        f"target point alg1 N=4 T=24: paper {_point(target.get('paper'))}; fast {_point(target.get('fast'))}",
        highlight=False,
    )
    console.print(
        f"  rules ratio {_x(t['alg1_N4_T24_rules_ratio'], 1)} (target ≥ 20×), "
        f"first-model ratio {_x(t['alg1_N4_T24_first_model_ratio'], 1)} (target ≥ 15×)",
        highlight=False,
    )
    reach = {k: r["ratio"] for k, r in t["horizon_reached"].items() if r["ratio"]}
    console.print(
        f"  horizon reached, fast/paper (target ≥ 3×): min {_x(min(reach.values(), default=None), 1)}; "
        + ", ".join(f"{k} {_x(v, 1)}" for k, v in reach.items()),
        highlight=False,
    )
    for key, title in (("count_speedup_vs_explore", "all points"), ("count_speedup_vs_explore_over_1s", "points where explore takes ≥ 1 s")):
        speed = t[key]
        console.print(
            f"  trace counting, explore/fast (target ≥ 10×), {title}: min {_x(min(speed.values(), default=None), 1)}; "
            + ", ".join(f"{k} {_x(v, 1)}" for k, v in speed.items()),
            highlight=False,
        )


def _series(data: dict, family: str, size: int, encoding: str) -> dict:
    return next(s for s in data["series"] if (s["family"], s["size"], s["encoding"]) == (family, size, encoding))


def _x(a, b) -> str:
    return f"{a / b:.1f}×" if a and b else "—"


def _f(value) -> str:
    return "—" if value is None else f"{value:.2f}"


def _point(point: dict | None) -> str:
    if not point or "rules" not in point:
        return (point or {}).get("status", "not run")
    return f"{point['rules']:,} rules, ground {point['ground']:.2f} s, first model {point['first_model']:.2f} s"


def plot(data: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    families = data["families"]
    figure, axes = plt.subplots(2, len(families), figsize=(4.2 * len(families), 7.5), squeeze=False)
    colours = {"paper": "tab:red", "fast": "tab:blue"}
    for column, family in enumerate(families):
        top, bottom = axes[0][column], axes[1][column]
        for size in family["sizes"]:
            for encoding in ("paper", "fast"):
                points = _series(data, family["name"], size, encoding)["points"]
                if not points:
                    continue
                ts = [p["horizon"] for p in points]
                shade = 0.35 + 0.65 * (family["sizes"].index(size) + 1) / len(family["sizes"])
                style = dict(color=colours[encoding], alpha=shade, marker="o", markersize=3)
                label = f"{encoding} {family['size']}={size}"
                top.plot(ts, [p["rules"] for p in points], label=label, **style)
                bottom.plot(ts, [p["first_model"] for p in points], label=label, **style)
        for ax in (top, bottom):
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("horizon T")
            ax.grid(True, which="both", alpha=0.2)
        top.set_title(family["title"], fontsize=9)
        top.set_ylabel("ground rules")
        bottom.set_ylabel("seconds to the first model")
        top.legend(fontsize=6, ncol=2)
    figure.suptitle(f"dedalus2asp: paper vs fast encoding ({data['semantics']}, budget {data['budget']} s)")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


# --- main -----------------------------------------------------------------------------------------


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--budget", type=float, default=None, help="seconds per encoding, family and size (default 20; 3 with --quick)"
    )
    parser.add_argument("--quick", action="store_true", help="a smoke run: small budget, few points, about a minute")
    parser.add_argument("--families", default=",".join(f.name for f in FAMILIES), help="comma-separated subset")
    parser.add_argument("--count-timeout", type=float, default=None, help="seconds per trace count (default 30; 5 with --quick)")
    parser.add_argument("--no-plot", action="store_true", help="skip the PNG")
    parser.add_argument("--all-points", action="store_true", help="print every horizon of the fast sweeps (the JSON has them all)")
    args = parser.parse_args(argv)

    budget = args.budget if args.budget is not None else (3.0 if args.quick else 20.0)
    count_timeout = args.count_timeout if args.count_timeout is not None else (5.0 if args.quick else 30.0)
    chosen = [f for f in FAMILIES if f.name in args.families.split(",")]
    horizons = HORIZONS[:8] if args.quick else HORIZONS

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    started = time.perf_counter()
    warm_up()
    series, count_rows = [], []
    for family in chosen:
        log(f"{family.name}: {family.title}")
        sizes = family.sizes[:2] if args.quick else family.sizes
        for size in sizes:
            paper = sweep(family, size, Encoding.PAPER, budget, horizons, log)
            cap = REACH_CAP * paper["reached"] if paper["reached"] else None
            series += [paper, sweep(family, size, Encoding.FAST, budget, horizons, log, cap)]
        points = family.count_points[:2] if args.quick else family.count_points
        count_rows += counts(family, points, count_timeout, log)

    target_point = {}
    if not args.quick:
        log("target point: alg1, N = 4, T = 24")
        program = str(next(f for f in FAMILIES if f.name == "alg1").program)
        for encoding in ENCODINGS:
            status, result = isolated(first_model, (program, alg1_chain(4), 24, encoding.value), 600)
            target_point[encoding.value] = result if status == "ok" else {"status": status}

    data = {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "machine": {"python": platform.python_version(), "clingo": clingo.__version__, "cpus": os.cpu_count(), "platform": platform.platform()},
        "semantics": SEMANTICS.value,
        "budget": budget,
        "quick": args.quick,
        "families": [
            {"name": f.name, "title": f.title, "size": f.size, "sizes": list(f.sizes[:2] if args.quick else f.sizes)}
            for f in chosen
        ],
        "series": series,
        "counts": count_rows,
        "target_point": target_point,
    }
    data["targets"] = targets(target_point, series, count_rows)
    data["seconds"] = round(time.perf_counter() - started, 1)

    results = HERE / "results"
    results.mkdir(exist_ok=True)
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    text = json.dumps(data, indent=1)
    (results / f"{stamp}.json").write_text(text)
    if not args.quick:
        (HERE / "latest.json").write_text(text)
    print_report(data, args.all_points)
    if not args.no_plot:
        png = (results / f"{stamp}.png") if args.quick else (HERE / "latest.png")
        plot(data, png)
        log(f"wrote {png}")
    log(f"wrote {results / f'{stamp}.json'}" + ("" if args.quick else " and benchmarks/latest.json") + f" in {data['seconds']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
