"""What Molly users know, written for `verify --out DIR`: runs.json (docs/runs-schema.json) and index.html.

`runs_document` writes the failure-free run (when there is one) and the counterexample runs of a
`verify` verdict as Molly (Alvaro, Rosen, Hellerstein, *Lineage-driven fault injection*, SIGMOD 2015)
writes its runs, times counted from 1; `index_html` is the page over that document, each run with its
faults, its spacetime diagram and the lineage of each missing post fact (`lineage.html`). Both read
the verdict and the models through their attributes.

A run that is a lasso (the eventual mode: steps L..T repeat forever) also has `loop_start` (the step L)
and `period` (P = T + 1 − L); a message of it that arrives on the loop's next pass keeps its unrolled
`receiveTime` (after the eot) and has `loopReceiveTime`, the time of the loop step it comes back to.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from ..lang.ast import GLOBAL_NODE
from .lineage import html

if TYPE_CHECKING:
    from ..bounds import Bounds
    from ..inspect.model import Model
    from ..questions.verdict import Crash, Lost, Verdict

RUNS_SCHEMA = "dedalus2asp/runs/1"


def _molly_time(step: int) -> int:
    return step + 1


def _run(number: int, status: str, model: Model, bounds: Bounds, lost: tuple[Lost, ...], crashes: tuple[Crash, ...]) -> dict:
    """One run as Molly's runs.json has it (times are Molly's, counted from 1: step s is time s + 1)."""
    network = bounds.network
    tables: dict[str, list[list]] = {}
    for node, step, relation, args in sorted(model.trace, key=lambda f: (f[2], str(f[0]), f[1], tuple(map(str, f[3])))):
        row = ([] if node == GLOBAL_NODE else [str(node)]) + [str(a) for a in args] + [_molly_time(step)]
        tables.setdefault(relation, []).append(row)
    lasso = {"loop_start": model.loop_start, "period": model.period} if model.is_lasso else {}
    return {
        "iteration": number,
        "status": status,
        **lasso,  # a lasso (verify --eventual): steps loop_start..eot-1 (Molly's times loop_start+1..eot) repeat forever
        "failureSpec": {
            "eot": _molly_time(model.horizon),  # a lasso's own steps, which may be fewer than K
            "eff": 0 if not network.lossy else network.loss_until + 1,
            "maxCrashes": network.crashes,
            "nodes": [str(x) for x in model.network],
            "crashes": [{"node": str(c.node), "time": _molly_time(c.step)} for c in crashes],
            "omissions": [{"from": str(l.sender), "to": str(l.addressee), "time": _molly_time(l.sent),
                           "table": l.relation, "args": [str(a) for a in l.args]} for l in lost if not l.by_crash],
        },
        "model": {"tables": tables},
        "messages": [
            {"table": m.relation, "from": str(m.sender), "to": str(m.addressee), "sendTime": _molly_time(m.sent),
             "receiveTime": None if m.arrives is None else _molly_time(m.unrolled if m.wraps else m.arrives),
             "args": [str(a) for a in m.args], **({"loopReceiveTime": _molly_time(m.arrives)} if m.wraps else {})}
            for m in model.messages
        ],
    }


def runs_document(verdict: Verdict, success: Model | None) -> dict:
    """runs.json: the failure-free run (when there is one) and the counterexample runs, one per minimal fault
    set with --all, as Molly writes them; with the verdict and its bounds."""
    runs = []
    if success is not None:
        runs.append(_run(len(runs), "success", success, verdict.bounds, (), ()))
    for found in verdict.witnesses or ((verdict.counterexample,) if verdict.counterexample else ()):
        runs.append(_run(len(runs), "failure", found.model, verdict.bounds, found.lost, found.crashes))
        lineage = found.lineage or (verdict.counterexample.lineage if found == verdict.counterexample else ())
        if lineage:
            runs[-1]["lineage"] = [e.as_dict() for e in lineage]
    answer = verdict.as_dict()
    eventual = {key: answer[key] for key in ("exact", "K", "reason") if key in answer}
    return {"schema": RUNS_SCHEMA, "verdict": verdict.describe().splitlines()[0], "holds": verdict.holds,
            "complete": verdict.complete, **eventual, "bound": answer["bound"], "runs": runs}


def _clocks(time: int) -> str:
    """A Molly time of runs.json as the page says it: "step 2 (Molly's time 3)", the diagrams' clock first."""
    return f"step {time - 1} (Molly's time {time})"


def _loop_steps(start: int, period: int) -> str:
    """"steps 3..4 repeat", or "step 2 repeats" for a loop of one step."""
    return f"step {start} repeats" if period == 1 else f"steps {start}..{start + period - 1} repeat"


def _scope(document: dict) -> str:
    """What the runs of the page cover: the horizon, or (verify --eventual) the lassos of K steps, each run's loop."""
    if "K" in document:
        exact = ("exact: K is the completeness threshold, every infinite run is covered" if document["exact"]
                 else f"bounded, not exact: {document['reason']}")
        return (f'<p>every horizon: lasso runs of at most K = {document["K"]} steps, each run with the steps of its '
                f"loop, which repeat forever ({escape(exact)}); Molly's times count from 1, time t is step t - 1; ")
    return (f'<p>horizon {document["bound"]["horizon"]}: steps 0..{document["bound"]["horizon"]} (Molly\'s eot '
            f'{document["bound"]["horizon"] + 1}: its times count from 1, time t is step t - 1), ')


def index_html(document: dict) -> str:
    """index.html of `verify --out DIR`: the verdict and, per run of runs.json, its status, its faults, its
    spacetime diagram (run-K.svg beside it) and, for a counterexample, the lineage of each missing post
    fact as a nested list; a page that opens from disk, without scripts."""
    rows = []
    for run in document["runs"]:
        spec = run["failureSpec"]
        # the diagrams and the command line count steps from 0; runs.json keeps Molly's times (from 1)
        faults = [f"crash of {c['node']} at {_clocks(c['time'])}" for c in spec["crashes"]]
        faults += [f"{o['table']} from {o['from']} to {o['to']} lost at {_clocks(o['time'])}" for o in spec["omissions"]]
        k = run["iteration"]
        loop = "" if "loop_start" not in run else (
            f"; {_loop_steps(run['loop_start'], run['period'])} forever (loop start {run['loop_start']}, period {run['period']})")
        lineage = run.get("lineage", ())
        rows.append(
            f'<section class="run {escape(run["status"])}"><h2>run {k}: {escape(run["status"])}</h2>'
            f'<p>{escape(("; ".join(faults) or "no fault") + loop)}</p>'
            f'<img src="run-{k}.svg" alt="the spacetime diagram of run {k}">'
            + (f'<p class="explains">the lineage below explains run {k}, the counterexample drawn above: why each '
               "missing post fact was expected there</p>" if lineage else "")
            + "".join(html(entry, f"{k}-{n}") for n, entry in enumerate(lineage)) + "</section>"
        )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>verify</title>'
        "<style>body{font-family:sans-serif;margin:2em} .failure h2{color:#b00} .success h2{color:#070}"
        " img{max-width:100%;border:1px solid #ccc} .lineage li{margin:.15em 0} .fact.missing{color:#b00}"
        " .fact.holds{color:#070} .cut{color:#b00} .absent{color:#777}</style></head><body>"
        f"<h1>{escape(document['verdict'])}</h1>"
        + _scope(document) +
        f'pre: {escape(document["bound"]["pre"])}, post: {escape(document["bound"]["post"])}; the runs in '
        '<a href="runs.json">runs.json</a></p>' + "".join(rows) + "</body></html>\n"
    )
