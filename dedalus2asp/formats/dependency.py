"""The predicate dependency graph of a program, with its monotonic components and loci of coordination (the Dedalus
properties draft), as DOT, as an SVG document written by hand, and as an HTML page.

How to read it:

* one **box** per relation, data flowing left to right: a relation stands right of every relation it reads through
  a monotone edge, and of those it reads through a non-monotone one when that edge does not close a cycle; an
  asynchronous relation has a thick border; the input relations (derived by no rule) are named in the caption,
  not drawn: they feed everything and would only cross the picture;
* one grey **frame** per monotonic component with more than one relation (relations that depend on each other
  through monotone edges only);
* one **arrow** per edge body → head: solid for a monotone edge; dashed, with `¬`, for a negation or an aggregate;
  `+` when every rule along it derives at a later step (inductive or asynchronous); an arrow that goes back (a
  cycle through time) bends below the boxes;
* a **locus of coordination** is a thick red arrow labelled with its rule; a transient one (evaluated afresh at every
  step, not a locus) is orange. The caption says whether the program is confluent by the draft's criterion.

Hovering (SVG `<title>`) gives the rules of every edge. `Picture(c)` shows itself in Jupyter.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from .dot import quote
from .svg import GREY, INK, RED

if TYPE_CHECKING:
    from ..lang.coordination import Coordination

ORANGE, FRAME = "#e07000", "#f1f1f1"
COLUMN, ROW, BOX_H, CHAR, PAD, TOP, LEFT = 170, 44, 24, 7.2, 10, 104, 20


def _loci(c: Coordination) -> tuple[dict, dict]:
    """(head, body) → the rule numbers of its loci, and of its transient non-monotone literals."""
    loci, transient = {}, {}
    for x in c.loci:
        loci.setdefault((x.head, x.relation), []).append(x.rule.number)
    for x in c.transient:
        transient.setdefault((x.head, x.relation), []).append(x.rule.number)
    return loci, transient


def dot(c: Coordination) -> str:
    """The graph in DOT (Graphviz): components as clusters, ¬ edges dashed, loci red."""
    loci, transient = _loci(c)
    component = c.component_of()
    lines = ["digraph dependencies {", "  rankdir=LR;", "  node [shape=box, style=rounded, fontname=Helvetica, fontsize=11];",
             "  edge [fontname=Helvetica, fontsize=10];"]
    for i, comp in enumerate(c.components):
        nodes = "; ".join(quote(r) + (" [peripheries=2]" if r in c.asynchronous else "") for r in comp)
        if len(comp) > 1:
            lines.append(f'  subgraph cluster_{i} {{ label="monotonic component"; style="rounded,filled"; '
                         f'fillcolor="{FRAME}"; color="{GREY}"; {nodes}; }}')
        else:
            lines.append(f"  {nodes};")
    for d in c.dependencies:
        attrs = [f"label={quote(d.labels)}"] if d.labels else []
        if not d.monotone:
            attrs.append("style=dashed")
        if (d.head, d.body) in loci:
            attrs += [f'color="{RED}"', f'fontcolor="{RED}"', "penwidth=2.5",
                      f"xlabel={quote('locus: rule ' + ', '.join(map(str, loci[(d.head, d.body)])))}"]
        elif (d.head, d.body) in transient:
            attrs += [f'color="{ORANGE}"', f'fontcolor="{ORANGE}"']
        if component.get(d.head) == component.get(d.body) and d.head != d.body:
            attrs.append("constraint=true")
        attrs.append(f"tooltip={quote('rules ' + ', '.join(map(str, d.rules)))}")
        lines.append(f"  {quote(d.body)} -> {quote(d.head)} [{', '.join(attrs)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def derived(c: Coordination) -> tuple[str, ...]:
    """The relations some rule derives, as first written: the ones the SVG draws (the input relations are named in
    its caption: they feed everything and would only cross the picture)."""
    heads = {d.head for d in c.dependencies}
    return tuple(r for r in c.relations if r in heads)


def layout(c: Coordination) -> dict[str, tuple[float, float, float]]:
    """relation → (x, y, width) of its box. Layers as in a layered (Sugiyama) drawing: a depth-first search from the
    relations in the order they are first written drops the edges that close a cycle, and a relation's column is the
    longest path to it over the others; a column lists its relations component by component."""
    shown = derived(c)
    reads: dict[str, list[str]] = {r: [] for r in shown}
    for d in c.dependencies:
        if d.head in reads and d.body in reads and d.head != d.body:
            reads[d.head].append(d.body)
    feeds: dict[str, list[str]] = {r: [] for r in shown}
    for head, bodies in reads.items():
        for body in bodies:
            feeds[body].append(head)
    state, back = {}, set()
    for root in shown:  # iterative depth-first search: a back edge points into the stack
        if root in state:
            continue
        state[root] = "open"
        stack = [(root, iter(feeds[root]))]
        while stack:
            v, following = stack[-1]
            w = next(following, None)
            if w is None:
                state[v] = "done"
                stack.pop()
            elif state.get(w) == "open":
                back.add((w, v))  # head w reads v, closing a cycle
            elif w not in state:
                state[w] = "open"
                stack.append((w, iter(feeds[w])))
    layer: dict[str, int] = {}

    def column(r: str) -> int:  # longest path over the forward edges, without recursion
        todo = [r]
        while todo:
            v = todo[-1]
            missing = [b for b in reads[v] if (v, b) not in back and b not in layer]
            if missing:
                todo.extend(missing)
                continue
            todo.pop()
            layer[v] = max((layer[b] + 1 for b in reads[v] if (v, b) not in back), default=0)
        return layer[r]

    order = {r: i for i, comp in enumerate(c.components) for r in comp}
    columns: dict[int, list[str]] = {}
    for r in sorted(shown, key=lambda r: order[r]):
        columns.setdefault(column(r), []).append(r)
    boxes = {}
    for col, relations in columns.items():
        y, previous = TOP, None
        for r in relations:
            if previous is not None and order[previous] != order[r]:
                y += PAD  # a gap between components
            boxes[r] = (LEFT + col * COLUMN, y, max(60, CHAR * len(r) + 16))
            y += ROW
            previous = r
    return boxes


def svg(c: Coordination) -> str:
    """The graph as an SVG document (module docstring)."""
    loci, transient = _loci(c)
    boxes = layout(c)
    width = max((x + w for x, _, w in boxes.values()), default=LEFT) + 60
    bottom = max((y for _, y, _ in boxes.values()), default=TOP) + BOX_H
    edges = [d for d in c.dependencies if d.head in boxes and d.body in boxes]
    backs = [d for d in edges if boxes[d.body][0] >= boxes[d.head][0] and d.head != d.body]
    inputs = [r for r in c.relations if r not in boxes]
    height = bottom + 24 + 14 * len(backs) + 40
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
           f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="Helvetica, Arial, sans-serif" font-size="12">',
           "<defs>" + "".join(f'<marker id="arrow-{n}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="9" '
                              f'markerHeight="9" markerUnits="userSpaceOnUse" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{color}"/></marker>'
                              for n, color in (("ink", INK), ("red", RED), ("orange", ORANGE))) + "</defs>",
           f'<rect width="100%" height="100%" fill="white"/>']
    verdict = ("confluent by the properties draft's criterion" if c.confluent else
               f"{len(c.loci)} loci of coordination" if len(c.loci) > 1 else "1 locus of coordination" if c.loci
               else "not shown confluent (see check)")
    out.append(f'<text x="{LEFT}" y="24" font-size="14" font-weight="bold">dependency graph: {escape(verdict)}</text>')
    out.append(f'<text x="{LEFT}" y="42" fill="{GREY}">data flows left to right · ¬ negation or aggregate · + later '
               f'step · red: locus of coordination · thick border: asynchronous</text>')
    for comp in c.components:
        if len(comp) > 1:
            xs = [boxes[r] for r in comp]
            x0, y0 = min(x for x, _, _ in xs) - 6, min(y for _, y, _ in xs) - 6
            x1, y1 = max(x + w for x, _, w in xs) + 6, max(y for _, y, _ in xs) + BOX_H + 6
            out.append(f'<rect x="{x0}" y="{y0}" width="{x1 - x0}" height="{y1 - y0}" rx="8" fill="{FRAME}" '
                       f'stroke="{GREY}" stroke-dasharray="3,2"><title>monotonic component: {escape(", ".join(comp))}</title></rect>')
    lane = bottom + 20
    for d in edges:
        parts, lane = _edge(d, boxes, loci, transient, lane)
        out += parts
    if inputs:
        out.append(f'<text x="{LEFT}" y="{height - 14:.0f}" fill="{GREY}">input relations (not drawn): '
                   f'{escape(", ".join(inputs))}</text>')
    out += _relation_boxes(c, boxes)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _edge(d, boxes: dict, loci: dict, transient, lane: float) -> tuple[list[str], float]:
    """The arrow of a dependency body → head and its label: red at a locus of coordination, orange when
    transient, dashed when not monotone; a loop on one box, an arc over the columns it skips, a curve below
    the boxes (in the next free lane under them, returned) back to an earlier column."""
    parts = []
    bx, by, bw = boxes[d.body]
    hx, hy, _ = boxes[d.head]
    color, marker, widthpx, anchor = INK, "ink", 1.3, "middle"
    label = d.labels
    if (d.head, d.body) in loci:
        color, marker, widthpx = RED, "red", 3
        label = f"{d.labels} locus: rule {', '.join(map(str, loci[(d.head, d.body)]))}"
    elif (d.head, d.body) in transient:
        color, marker = ORANGE, "orange"
    dash = "" if d.monotone else ' stroke-dasharray="6,3"'
    x1, y1 = bx + bw, by + BOX_H / 2
    x2, y2 = hx, hy + BOX_H / 2
    if d.head == d.body:
        path = f"M{bx + bw - 12},{by} C{bx + bw + 10},{by - 26} {bx + bw + 26},{by + 4} {x1},{y1 - 4}"
        lx, ly = bx + bw + 8, by - 12
    elif x2 - x1 > COLUMN:  # past a column: an arc over the boxes between, from top to top
        sx, ex = bx + bw / 2, hx + 14
        top = min(by, hy) - 22 - 9 * ((x2 - x1) // COLUMN)
        path = f"M{sx},{by} C{sx},{top} {ex},{top} {ex},{hy}"
        lx, ly = (sx + ex) / 2, top + (min(by, hy) - top) / 4 - 3
    elif x2 > x1:
        mx = (x1 + x2) / 2
        path = f"M{x1},{y1} C{mx},{y1} {mx},{y2} {x2},{y2}"
        lx, ly = (mx, (y1 + y2) / 2 - 4) if label == d.labels else (x2 - 6, y2 - 9)  # a locus's label at its head
        anchor = "middle" if label == d.labels else "end"
    else:  # back to an earlier column: below the boxes
        lane += 14
        sx, sy, ex, ey = bx + bw / 2, by + BOX_H, hx + 12, hy + BOX_H
        path = f"M{sx},{sy} C{sx},{lane} {ex},{lane} {ex},{ey}"
        lx, ly = (sx + ex) / 2, (sy + 3 * lane) / 4 - 2
    tooltip = f"{d.body} → {d.head}: rules {', '.join(map(str, d.rules))}"
    parts.append(f'<path d="{path}" fill="none" stroke="{color}" stroke-width="{widthpx}"{dash} '
                 f'marker-end="url(#arrow-{marker})"><title>{escape(tooltip)}</title></path>')
    if label:
        parts.append(f'<text x="{lx:.0f}" y="{ly:.0f}" fill="{color}" text-anchor="{anchor}" font-weight="bold" '
                     f'paint-order="stroke" stroke="white" stroke-width="3">{escape(label)}</text>')
    return parts, lane


def _relation_boxes(c: Coordination, boxes: dict) -> list[str]:
    """A box per relation, its border doubled when it is asynchronous."""
    out = []
    for r, (x, y, w) in boxes.items():
        double = r in c.asynchronous
        out.append(f'<rect x="{x}" y="{y}" width="{w}" height="{BOX_H}" rx="5" fill="white" stroke="{INK}"'
                   + (' stroke-width="3" stroke-opacity="0.9"' if double else "") + "/>")
        if double:
            out.append(f'<rect x="{x + 3}" y="{y + 3}" width="{w - 6}" height="{BOX_H - 6}" rx="3" fill="none" stroke="white"/>')
        out.append(f'<text x="{x + w / 2}" y="{y + 16}" text-anchor="middle" fill="{INK}">{escape(r)}'
                   f'<title>{escape(r)}{" (asynchronous)" if double else ""}</title></text>')
    return out


def html(c: Coordination, program: str = "<program>", fragment: bool = False) -> str:
    """The SVG with the list of loci under it; a page, or a fragment for a notebook."""
    items = "".join(f"<li><code>{escape(x.diagnostic.filename)}:{x.diagnostic.line}:{x.diagnostic.col}</code> "
                    f"{escape(x.diagnostic.message)}</li>" for x in c.loci)
    reasons = "".join(f"<li>{escape(r)}</li>" for r in c.reasons())
    body = (f"<h2>{escape(program)}: dependencies and coordination</h2>\n{svg(c)}"
            + (f"<h3>Loci of coordination</h3><ul>{items}</ul>" if items else "<p>No locus of coordination.</p>")
            + ("<p>Confluent by the properties draft's criterion.</p>" if c.confluent else
               f"<h3>Why the criterion does not show it confluent</h3><ul>{reasons}</ul>"))
    if fragment:
        return f"<div>{body}</div>"
    return (f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{escape(program)}: coordination</title>'
            f"<style>body{{font-family:Helvetica,Arial,sans-serif;margin:2em}}code{{font-size:90%}}</style></head>"
            f"<body>{body}</body></html>\n")


class Picture:
    """A coordination analysis that shows itself in Jupyter as its dependency graph."""

    def __init__(self, coordination: Coordination, program: str = "<program>"):
        self.coordination = coordination
        self.program = program

    def _repr_svg_(self) -> str:
        return svg(self.coordination)

    def _repr_html_(self) -> str:
        return html(self.coordination, self.program, fragment=True)
