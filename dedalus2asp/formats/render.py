"""Pictures of models: spacetime diagrams (SVG), happens-before graphs (DOT), HTML reports.

Everything is drawn from an `inspect.Model` and written by hand as plain text,
without a dependency:

* `spacetime_svg`: a Lamport (spacetime) diagram. One horizontal lane per node,
  a tick per local step 0..T, an arrow per message from its send step to its
  arrival step (tplp2016 §5.2.1: the message edges of happens-before). A
  pending message (SPEC §2) runs off the end of its addressee's lane; a
  message whose arrival happens before its send (`Model.noncausal`) is a thick
  dashed red arrow labelled "into the past"; the output facts (SPEC §3) are
  marked at the last step. Each step's facts are its tooltip.
* `happens_before_dot`: ≺ of the model, transitively reduced (the Hasse
  diagram of the partial order of a causal model).
* `report_html`: a self-contained page for a set of models (no script, no
  network): a table of the models, then each one's diagram, per-step state
  and messages. `model_html` and `models_html` are the notebook fragments.
"""

from __future__ import annotations

from collections import defaultdict
from html import escape
from typing import Iterable, Sequence

from ..inspect.model import Message, Model, trace_table

LANE_GAP = 130
TOP = 48
LEFT = 92
RIGHT = 150
INK = "#222"
RED = "#d40000"
GREEN = "#1b7f3b"
GREY = "#8a8a8a"

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


def _x(step: int, dx: float) -> float:
    return LEFT + step * dx


def _step_width(horizon: int) -> float:
    return 110 if horizon <= 5 else 80 if horizon <= 10 else 56


def _short(text: str, width: int = 14) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def spacetime_svg(model: Model) -> str:
    """The spacetime diagram of `model` as an SVG document (see the module docstring).

    Classes name what the elements stand for: `lane` (one per node), `tick`
    (one per step), `message` (one per message; also `pending` or
    `noncausal`), `output` (output facts at the last step).
    """
    dx = _step_width(model.horizon)
    lanes = {x: TOP + 86 + i * LANE_GAP for i, x in enumerate(model.network)}
    width = max(LEFT + model.horizon * dx + RIGHT, 720)
    height = TOP + 86 + max(len(lanes) - 1, 0) * LANE_GAP + 110
    uid = f"m{model.number}"
    into_past = set(model.noncausal())
    outputs = _outputs_by_node(model)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="spacetime" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="Helvetica, Arial, sans-serif" font-size="12">',
        f"<title>{escape(f'model {model.number}: spacetime diagram')}</title>",
        "<defs>",
        *(
            f'<marker id="{uid}-{name}" viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" '
            f'markerWidth="{size}" markerHeight="{size}" '
            f'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{color}"/></marker>'
            for name, color, size in (("arrow", INK, 9), ("past", RED, 13), ("pending", GREY, 9))
        ),
        "</defs>",
        f'<rect width="{width:.0f}" height="{height:.0f}" fill="white"/>',
        f'<text x="12" y="22" font-size="14" font-weight="bold">{escape(_title(model))}</text>',
    ]
    parts.append(f'<text x="{LEFT - 24}" y="{TOP:.0f}" text-anchor="end" fill="{GREY}">step</text>')
    for s in range(model.horizon + 1):
        parts.append(f'<text x="{_x(s, dx):.1f}" y="{TOP:.0f}" text-anchor="middle" fill="{GREY}">{s}</text>')
    for x, y in lanes.items():
        end = _x(model.horizon, dx) + 56
        parts.append(f'<text x="{LEFT - 24}" y="{y + 4}" text-anchor="end" font-weight="bold">{escape(_short(str(x)))}</text>')
        parts.append(f'<line class="lane" x1="{LEFT - 16}" y1="{y}" x2="{end:.1f}" y2="{y}" stroke="{INK}" stroke-width="1.5"/>')
        for s in range(model.horizon + 1):
            facts = model.facts_at(x, s)
            tip = f"{x}:{s}\n" + ("\n".join(facts) if facts else "(no facts)")
            parts.append(
                f'<g class="tick"><title>{escape(tip)}</title>'
                f'<circle cx="{_x(s, dx):.1f}" cy="{y}" r="4.5" fill="{INK if facts else "white"}" stroke="{INK}"/></g>'
            )
        if outputs.get(x):
            label = ", ".join(outputs[x])
            parts.append(
                f'<g class="output"><title>{escape(f"output facts of {x} at step {model.horizon}: {label}")}</title>'
                f'<rect x="{_x(model.horizon, dx) - 8:.1f}" y="{y - 8}" width="16" height="16" rx="3" fill="none" '
                f'stroke="{GREEN}" stroke-width="2.5"/>'
                f'<text x="{_x(model.horizon, dx):.1f}" y="{y + 24}" text-anchor="middle" fill="{GREEN}" '
                f'font-weight="bold">{escape(_short(label, 28))}</text></g>'
            )
    bends: dict[tuple, int] = defaultdict(int)
    for m in model.messages:
        key = (m.send, m.arrival)
        parts.append(_arrow(m, lanes, dx, model.horizon, bends[key], m in into_past, uid))
        bends[key] += 1
    waiting = defaultdict(list)
    for m in model.pending:
        waiting[m.addressee].append(f"{m.fact} from {m.sender}:{m.sent}")
    for x, items in waiting.items():
        parts.append(
            f'<g class="pending-count"><title>{escape(chr(10).join(items))}</title>'
            f'<text x="{_x(model.horizon, dx) + 70:.1f}" y="{lanes[x] + 4}" fill="{GREY}">{len(items)} pending</text></g>'
        )
    parts.append(_legend(height - 22, uid))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _title(model: Model) -> str:
    delay = "" if model.max_delay is None else f", delay ≤ {model.max_delay}"
    return f"model {model.number} ({model.semantics}, horizon {model.horizon}{delay})"


def _outputs_by_node(model: Model) -> dict:
    wanted = set(model.program.output_relations) if model.program is not None else set()
    found = defaultdict(list)
    for x in model.network:
        found[x] = [f for f in model.facts_at(x, model.horizon) if f.split("(", 1)[0] in wanted]
    return found


def _arrow(m: Message, lanes: dict, dx: float, horizon: int, k: int, noncausal: bool, uid: str) -> str:
    """One message: a curve between lanes, an arc on its sender's lane, off the lane's end when pending.

    On one lane an arc goes above the lane forwards in time and below it
    backwards; `k` bends the k-th of several messages with the same ends.
    """
    x1, y1 = _x(m.sent, dx), lanes[m.sender]
    y2 = lanes[m.addressee]
    pending = m.arrives is None
    x2 = _x(horizon, dx) + 64 if pending else _x(m.arrives, dx)
    bend = 18 * k
    if y1 == y2 and x1 == x2:
        path = f"M{x1:.1f},{y1} c-34,{56 + bend} 34,{56 + bend} 0,0"
        lx, ly = x1 + 16, y1 + 52 + bend
    elif y1 == y2:
        span = min(abs(x2 - x1) / dx, 5)
        lift = -(24 + 10 * span + bend) if x2 > x1 else 24 + 10 * span + bend
        path = f"M{x1:.1f},{y1} C{x1:.1f},{y1 + lift:.1f} {x2:.1f},{y2 + lift:.1f} {x2:.1f},{y2}"
        lx, ly = (x1 + x2) / 2, y1 + lift * 0.75 + (-5 if lift < 0 else 14)
    else:
        cx, cy = (x1 + x2) / 2 + bend, (y1 + y2) / 2 - bend
        path = f"M{x1:.1f},{y1} Q{cx:.1f},{cy:.1f} {x2:.1f},{y2}"
        lx, ly = (x1 + 3 * x2) / 4 + 6 + bend / 2, (y1 + 3 * y2) / 4 - 4 - bend / 2
    where = "pending" if pending else f"{m.addressee}:{m.arrives}"
    tip = f"{m.fact}: {m.sender}:{m.sent} → {where}"
    if noncausal:
        cls, stroke, width, dash, marker = "message noncausal", RED, 3.2, ' stroke-dasharray="9 5"', "past"
        tip += " (non-causal: its arrival happens before its send)"
        label = f'<text x="{lx:.1f}" y="{ly:.1f}" font-size="11" fill="{RED}" font-weight="bold" text-anchor="middle">into the past: {escape(_short(m.fact, 24))}</text>'
    elif pending:
        cls, stroke, width, dash, marker = "message pending", GREY, 1.3, ' stroke-dasharray="2 4"', "pending"
        label = ""  # one count per lane end instead (see spacetime_svg)
    else:
        cls, stroke, width, dash, marker = "message", INK, 1.4, "", "arrow"
        label = f'<text x="{lx:.1f}" y="{ly:.1f}" font-size="11" text-anchor="middle">{escape(_short(m.fact, 24))}</text>'
    return (
        f'<g class="{cls}"><title>{escape(tip)}</title>'
        f'<path d="{path}" fill="none" stroke="{stroke}" stroke-width="{width}"{dash} marker-end="url(#{uid}-{marker})"/>'
        f"{label}</g>"
    )


def _legend(y: float, uid: str) -> str:
    items = [
        (f'<line x1="0" y1="0" x2="26" y2="0" stroke="{INK}" stroke-width="1.4" marker-end="url(#{uid}-arrow)"/>', "message"),
        (f'<line x1="0" y1="0" x2="26" y2="0" stroke="{GREY}" stroke-width="1.4" stroke-dasharray="2 4" marker-end="url(#{uid}-pending)"/>', "pending at the horizon"),
        (f'<line x1="0" y1="0" x2="26" y2="0" stroke="{RED}" stroke-width="3.2" stroke-dasharray="9 5" marker-end="url(#{uid}-past)"/>', "into the past (non-causal)"),
        (f'<rect x="7" y="-7" width="14" height="14" rx="3" fill="none" stroke="{GREEN}" stroke-width="2.5"/>', "output at the last step"),
    ]
    out, x = [f'<g class="legend" transform="translate(12,{y:.0f})" font-size="11">'], 0
    for mark, text in items:
        out.append(f'<g transform="translate({x},0)">{mark}<text x="34" y="4">{escape(text)}</text></g>')
        x += 44 + 6.5 * len(text)
    out.append("</g>")
    return "".join(out)


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
        f'<section class="model" id="model-{model.number}"><h2>{escape(_title(model))}</h2>'
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
