"""Pictures of models: happens-before graphs (DOT) and HTML reports; the spacetime diagram is `svg`'s.

Everything is drawn from an `inspect.Model` and written by hand as plain text,
without a dependency:

* `spacetime_svg` (from `svg`): a Lamport (spacetime) diagram, a lane per node and
  an arrow per message (tplp2016 §5.2.1), which stays legible at a few nodes and
  a dozen steps.
* `happens_before_dot`: ≺ of the model, transitively reduced (the Hasse
  diagram of the partial order of a causal model).
* `report_html`: a self-contained page for a set of models (no script, no
  network): a table of the models, then each one's diagram (scrolled sideways
  when it is wider than the page), per-step state and messages. `model_html`
  and `models_html` are the notebook fragments.
"""

from __future__ import annotations

from collections import defaultdict
from html import escape
from typing import Iterable, Sequence

from ..inspect.model import Model, trace_table
from .svg import RED, caption, spacetime_svg

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


def _quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def happens_before_dot(model: Model) -> str:
    """≺ of `model` in DOT, transitively reduced; one cluster (a row) per node.

    For a causal model ≺ is a strict partial order and the edges drawn are
    its covering pairs (a ≺ b with no c between), each a local or a message
    edge. A choice model may have cycles, where the reduction is not unique:
    then every local and message edge is drawn, the non-causal ones red.
    """
    hb = model.happens_before
    cyclic = any((a, a) in hb for a in model.points())
    into_past = {(m.send, m.arrival) for m in model.noncausal()}
    labels = defaultdict(list)
    for m in model.messages:
        if m.arrival is not None:
            labels[(m.send, m.arrival)].append(m.fact)
    pairs = {(a, b) for a, b, _ in model.edges() if a != b}
    if not cyclic:
        pairs = {(a, b) for (a, b) in hb if not any((a, c) in hb and (c, b) in hb for c in model.points())}
    name = lambda p: _quote(f"{p[0]}:{p[1]}")
    lines = ["digraph happens_before {", "  rankdir=LR;", "  node [shape=circle, fontname=Helvetica, fontsize=10];"]
    for i, x in enumerate(model.network):
        points = " ".join(name((x, s)) for s in range(model.horizon + 1))
        lines.append(f"  subgraph cluster_{i} {{ label={_quote(str(x))}; {points}; }}")
    for a, b in sorted(pairs):
        attrs = []
        if (a, b) in labels:
            attrs.append(f"label={_quote(', '.join(labels[(a, b)]))}")
        if (a, b) in into_past:
            attrs.append(f'color="{RED}", fontcolor="{RED}", style=dashed, penwidth=2.5')
        lines.append(f"  {name(a)} -> {name(b)}" + (f" [{', '.join(attrs)}]" if attrs else "") + ";")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _state_table(model: Model) -> str:
    rows = ["<table class=\"state\"><tr><th>node</th>"]
    rows += [f"<th>step {s}</th>" for s in range(model.horizon + 1)]
    rows.append("</tr>")
    for node, steps in trace_table(model).items():
        cells = "".join(f'<td class="facts">{"<br>".join(map(escape, facts))}</td>' for facts in steps.values())
        rows.append(f"<tr><th>{escape(str(node))}</th>{cells}</tr>")
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
        rows.append(
            f"<tr><td><code>{escape(m.fact)}</code></td><td>{escape(str(m.sender))}:{m.sent}</td>"
            f"<td>{escape(str(m.addressee))}</td><td>{'pending' if m.arrives is None else m.arrives}</td>"
            f"<td>{rule}</td><td>{flag}</td></tr>"
        )
    rows.append("</table>")
    return "".join(rows)


def model_html(model: Model) -> str:
    """One model as an HTML fragment: its diagram, its per-step state, its messages and outputs."""
    outputs = ", ".join(model.outputs()) or "none"
    return (
        f'<section class="model" id="model-{model.number}"><h2>{escape(caption(model))}</h2>'
        f'<div class="diagram">{spacetime_svg(model)}</div>'
        f"<h3>State per step</h3>{_state_table(model)}"
        f"<h3>Messages</h3>{_messages_table(model)}"
        f"<p>Outputs at step {model.horizon}: <code>{escape(outputs)}</code></p></section>"
    )


def _summary(models: Sequence[Model]) -> str:
    rows = [
        "<table class=\"summary\"><tr><th>model</th><th>messages</th><th>pending</th><th>into the past</th>"
        "<th>outputs at the horizon</th></tr>"
    ]
    for m in models:
        into_past = len(m.noncausal())
        past = f'<span class="noncausal">{into_past}</span>' if into_past else "0"
        rows.append(
            f'<tr><td><a href="#model-{m.number}">model {m.number}</a></td><td>{len(m.messages)}</td>'
            f"<td>{len(m.pending)}</td><td>{past}</td><td><code>{escape(', '.join(m.outputs()) or '—')}</code></td></tr>"
        )
    rows.append("</table>")
    return "".join(rows)


def models_html(models: Iterable[Model]) -> str:
    """A set of models as an HTML fragment: the summary table, then every model."""
    models = list(models)
    if not models:
        return "<p>No models.</p>"
    return _summary(models) + "".join(model_html(m) for m in models)


def report_html(models: Iterable[Model], title: str, notes: Iterable[str] = ()) -> str:
    """A self-contained HTML page (inline SVG and CSS, no script, no network) for a set of models."""
    models = list(models)
    intro = "".join(f"<p>{escape(n)}</p>" for n in notes)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{escape(title)}</title><style>{STYLE}</style></head>\n<body>"
        f"<h1>{escape(title)}</h1>{intro}<p>{len(models)} model(s).</p>\n{models_html(models)}\n</body></html>\n"
    )
