"""Results as HTML: a self-contained report page of a set of models, and the fragments a notebook shows.

A page has no script and fetches nothing (inline SVG and CSS): a table of the
models (messages, pending, into the past, outputs), then each model's
spacetime diagram (`svg`, scrolled sideways when it is wider than the page),
its state per step and its messages. `report` writes the page of the models of
one question, with a note saying which and how to read the diagrams;
`model_fragment` and `models_fragment` are what `inspect.Model` and
`inspect.Models` show in a notebook.

A lasso model (the eventual mode) says which steps repeat under its diagram,
shades its loop's columns in the state table ("step k (loop)"), gives each
message that arrives after T the loop step it comes back to, and its ultimate
outputs instead of those at the last step; a page of lassos has a loop column
in its summary and says how to read the loop. Bounded pages are unchanged.
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Sequence

from .svg import SHADE, caption, loop_sentence, spacetime_svg

if TYPE_CHECKING:
    from ..inspect.model import Model, Models
    from ..questions.models import Ultimate

STYLE = """
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 0.6em 0 1.2em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; vertical-align: top; text-align: left; font-size: 0.9em; }
th { background: #f3f3f3; }
td.facts { font-family: ui-monospace, Menlo, Consolas, monospace; white-space: nowrap; }
.noncausal { color: #d40000; font-weight: bold; }
section.model { border-top: 2px solid #ddd; margin-top: 2em; padding-top: 0.5em; }
.diagram { overflow-x: auto; }
code { font-family: ui-monospace, Menlo, Consolas, monospace; }
"""


def _state_table(model: Model) -> str:
    """The facts of every node at every step, and a last row `global` for the facts of global relations
    (derived by global rules, which read all nodes at one step) when there are any."""
    looped = (lambda s: False) if model.loop_start is None else (lambda s: s >= model.loop_start)
    shade = lambda s: f' class="loop" style="background:{SHADE}"' if looped(s) else ""  # noqa: E731
    td = lambda s: f'<td class="facts loop" style="background:{SHADE}">' if looped(s) else '<td class="facts">'  # noqa: E731
    rows = ["<table class=\"state\"><tr><th>node</th>"]
    rows += [f"<th{shade(s)}>step {s}{' (loop)' if looped(s) else ''}</th>" for s in range(model.horizon + 1)]
    rows.append("</tr>")
    for node in model.network:
        steps = (model.facts_at(node, step) for step in range(model.horizon + 1))
        cells = "".join(f'{td(s)}{"<br>".join(map(escape, facts))}</td>' for s, facts in enumerate(steps))
        rows.append(f"<tr><th>{escape(str(node))}</th>{cells}</tr>")
    if model.has_global:
        steps = (model.global_at(step) for step in range(model.horizon + 1))
        cells = "".join(f'{td(s)}{"<br>".join(map(escape, facts))}</td>' for s, facts in enumerate(steps))
        rows.append(f'<tr class="global"><th title="facts of global relations, held by no node">global</th>{cells}</tr>')
    rows.append("</table>")
    return "".join(rows)


def _messages_table(model: Model) -> str:
    if not model.messages:
        return "<p>No messages.</p>"
    into_past = set(model.noncausal())
    rules = model.sending_rules
    rows = ["<table class=\"messages\"><tr><th>message</th><th>from</th><th>to</th><th>arrives</th><th>rule</th><th></th></tr>"]
    for m in model.messages:
        flag = '<span class="noncausal">into the past</span>' if m in into_past else ""
        rule = ", ".join(f"{r.number}" for r in rules[m])
        arrives = "pending" if m.arrives is None else m.arrives
        if m.wraps:
            arrives = f'{m.unrolled} <span class="wraps">= step {m.arrives}, the loop\'s next pass</span>'
        rows.append(
            f"<tr><td><code>{escape(m.fact)}</code></td><td>{escape(str(m.sender))}:{m.sent}</td>"
            f"<td>{escape(str(m.addressee))}</td><td>{arrives}</td>"
            f"<td>{rule}</td><td>{flag}</td></tr>"
        )
    rows.append("</table>")
    return "".join(rows)


def _faults(model: Model) -> str:
    """The model's faults (issue #19): its lost messages and crashed nodes; nothing when it has none."""
    if not model.lost and not model.crashes:
        return ""
    rows = ['<h3>Faults</h3><table class="faults"><tr><th>fault</th><th>message</th><th>from</th><th>to</th></tr>']
    for m in model.lost:
        rows.append(f'<tr class="lost"><td>lost</td><td><code>{escape(m.fact)}</code></td>'
                    f"<td>{escape(str(m.sender))}:{m.sent}</td><td>{escape(str(m.addressee))}</td></tr>")
    for node, step in model.crashes:
        rows.append(f'<tr class="crash"><td>crash</td><td colspan="3">{escape(str(node))} crashes at step {step}: '
                    "from then on its messages to other nodes are lost</td></tr>")
    rows.append("</table>")
    return "".join(rows)


def model_fragment(model: Model) -> str:
    """One model as an HTML fragment: its diagram, its per-step state, its messages, its faults and outputs
    (a lasso: which steps repeat, and its ultimate outputs)."""
    if model.loop_start is None:
        loop, outputs = "", f"<p>Outputs at step {model.horizon}: <code>{escape(', '.join(model.outputs()) or 'none')}</code></p>"
    else:
        loop = (f'<p class="loop">A lasso: {escape(loop_sentence(model.loop_start, model.horizon))}; the steps before '
                f"step {model.loop_start} happen once.</p>")
        outputs = ("<p>Ultimate outputs (they hold at every step of the loop): "
                   f"<code>{escape(', '.join(model.ultimate()) or 'none')}</code></p>")
    return (
        f'<section class="model" id="model-{model.number}"><h2>{escape(caption(model))}</h2>'
        f'<div class="diagram">{spacetime_svg(model)}</div>{loop}'
        f"<h3>State per step</h3>{_state_table(model)}"
        f"<h3>Messages</h3>{_messages_table(model)}"
        f"{_faults(model)}"
        f"{outputs}</section>"
    )


def _fault_words(model: Model) -> str:
    """A model's faults in a few words: "2 lost; c crashes at step 1" ("—" for none)."""
    words = ([f"{len(model.lost)} lost"] if model.lost else []) + [f"{x} crashes at step {s}" for x, s in model.crashes]
    return "; ".join(words) or "—"


def _summary(models: Sequence[Model]) -> str:
    """One row per model; a faults column when some model has faults (issue #19); a loop column when some
    model is a lasso, whose outputs are its ultimate ones."""
    faults = any(m.lost or m.crashes for m in models)
    lassos = any(m.is_lasso for m in models)
    rows = [
        "<table class=\"summary\"><tr><th>model</th><th>messages</th><th>pending</th><th>into the past</th>"
        + ("<th>faults</th>" if faults else "") + ("<th>loop</th>" if lassos else "")
        + ("<th>outputs (ultimate for a lasso)</th>" if lassos else "<th>outputs at the horizon</th>") + "</tr>"
    ]
    for m in models:
        into_past = len(m.noncausal())
        past = f'<span class="noncausal">{into_past}</span>' if into_past else "0"
        rows.append(
            f'<tr><td><a href="#model-{m.number}">model {m.number}</a></td><td>{len(m.messages)}</td>'
            f"<td>{len(m.pending)}</td><td>{past}</td>" + (f"<td>{escape(_fault_words(m))}</td>" if faults else "")
            + (f"<td>{escape(_loop_words(m))}</td>" if lassos else "")
            + f"<td><code>{escape(', '.join(m.ultimate() if m.is_lasso else m.outputs()) or '—')}</code></td></tr>"
        )
    rows.append("</table>")
    return "".join(rows)


def _loop_words(model: Model) -> str:
    """A lasso's loop in a few words, "steps 3–4 (prefix 0–2)"; "—" for a bounded model."""
    if model.loop_start is None:
        return "—"
    L, T = model.loop_start, model.horizon
    steps = f"step {L}" if L == T else f"steps {L}–{T}"
    prefix = "" if L == 0 else " (prefix 0)" if L == 1 else f" (prefix 0–{L - 1})"
    return steps + prefix


def models_fragment(models: Iterable[Model]) -> str:
    """A set of models as an HTML fragment: the summary table, then every model."""
    models = list(models)
    if not models:
        return "<p>No models.</p>"
    return _summary(models) + "".join(model_fragment(m) for m in models)


def page(models: Iterable[Model], title: str, notes: Iterable[str] = ()) -> str:
    """A self-contained HTML page (inline SVG and CSS, no script, no network) for a set of models."""
    models = list(models)
    intro = "".join(f"<p>{escape(n)}</p>" for n in notes)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{escape(title)}</title><style>{STYLE}</style></head>\n<body>"
        f"<h1>{escape(title)}</h1>{intro}<p>{len(models)} model(s).</p>\n{models_fragment(models)}\n</body></html>\n"
    )


GUIDE = (
    "Each diagram has one lane per node and a tick per local step; an arrow is a message from its send step to its "
    "arrival step (tplp2016 §5.2.1). Grey dotted arrows are pending at the horizon; thick dashed red arrows arrive "
    "before they were sent (non-causal); green boxes mark output facts at the last step. Hover a step for its facts."
)
"""How to read the diagrams of a report."""

LASSO_GUIDE = (
    "A lasso is an infinite run written over steps 0..T: the shaded steps L..T (the loop) repeat forever, the step "
    "after T being step L again (the blue back-arrow). A blue arrow that leaves the loop on the right and comes back "
    "in on the left is a message that arrives on the loop's next pass. Green boxes mark the ultimate outputs, which "
    "hold at every step of the loop."
)
"""How to read the loop of a lasso, in a report of lasso models."""


def report(models: Models, program: str | None = None, input: str | None = None) -> str:
    """The page of the models of one question: which program, input and bounds, how to read it, then the models.

    `program` and `input` name the files the models come from, when they
    come from files.
    """
    bounds = models.bounds
    semantics = bounds.semantics.value
    where = (
        f"{semantics} semantics ({bounds.encoding.value} encoding), horizon {bounds.horizon}, {bounds.network.describe()}."
    )
    if any(m.is_lasso for m in models):
        where = f"{semantics} semantics ({bounds.encoding.value} encoding), lasso models, {bounds.network.describe()}."
    notes = [f"Program {program}, input {input}: {where}" if program is not None else where[0].upper() + where[1:], GUIDE]
    if any(m.is_lasso for m in models):
        notes.append(LASSO_GUIDE)
    if not models.complete:
        notes.append(f"The enumeration was stopped by the timeout after {len(models)} model(s).")
    name = f"{Path(program).name}: " if program is not None else ""
    return page(models, f"{name}{len(models)} {semantics} model(s)", notes)


def ultimate(result: Ultimate, fragment: bool = False) -> str:
    """What `models --eventual` found, as a page or a notebook fragment: whether the answer is exact (K, or why
    not), a table of the distinct ultimate outputs, then for each one the lasso that has it (`model_fragment`)."""
    exact = ("Exact: decided by the choice runs' graphs (explore --eventual --semantics choice); the lassos shown "
             "have the window graph's witnesses' length." if result.exact and result.decided_by == "choice-graph"
             else f"Exact: K = {result.steps} is the completeness threshold, every infinite run is covered." if result.exact
             else f"Not exact: {result.reason}" if result.free_clocks is not None
             else f"Not exact (the lassos of K = {result.steps} steps only): {result.reason}")
    rows = ['<table class="ultimate"><tr><th></th><th>ultimate output</th><th>its lasso</th><th>loop</th></tr>']
    for k, (output, lasso) in enumerate(zip(result.outputs, result.lassos), 1):
        rows.append(f'<tr><td>{k}</td><td><code>{escape(", ".join(output) or "(none)")}</code></td>'
                    f'<td><a href="#model-{lasso.number}">model {lasso.number}</a></td><td>{escape(_loop_words(lasso))}</td></tr>')
    certified = dict(result.certified)
    for k, output in enumerate(result.outputs[len(result.lassos):], len(result.lassos) + 1):  # no lasso shows these
        rows.append(f'<tr><td>{k}</td><td><code>{escape(", ".join(output) or "(none)")}</code></td><td>none</td><td>'
                    + ("a certified choice run, its messages from further back than the window" if output in certified
                       else "a run no lasso of K steps shows") + "</td></tr>")
    rows.append("</table>")
    words = lambda facts: escape(", ".join(facts) or "(none)")  # noqa: E731
    body = (f"<p>{escape(exact)}</p><p>{len(result.outputs)} distinct ultimate output(s)"
            + ("" if result.complete else " (stopped by the timeout)") + f"; certain: <code>{words(result.certain)}</code>, "
            f"possible: <code>{words(result.possible)}</code>.</p>" + "".join(rows)
            + "".join(model_fragment(lasso) for lasso in result.lassos))
    if fragment:
        return body
    title = f"{len(result.outputs)} ultimate output(s), {result.bounds.semantics.value}, {result.bounds.describe()}"
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{escape(title)}</title><style>{STYLE}</style></head>\n<body><h1>{escape(title)}</h1>"
            f"<p>{escape(LASSO_GUIDE)}</p>{body}\n</body></html>\n")


def model(model: Model, fragment: bool = False) -> str:
    """One model: a notebook fragment, or a page of its own."""
    return model_fragment(model) if fragment else page([model], caption(model))


def models(models: Models, fragment: bool = False, program: str | None = None, input: str | None = None) -> str:
    """A set of models: a notebook fragment, or the report page (see `report`)."""
    return models_fragment(models) if fragment else report(models, program, input)
