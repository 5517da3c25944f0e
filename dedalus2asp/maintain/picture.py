"""The spacetime picture of a PSN execution, as an SVG document written by hand.

One horizontal lane per node; time runs to the right, one column per pick (PSN iterations are
sequentialized, psn2010 §3.3, so the columns are the order of the picks across all nodes). A pick is
a dot on the lane of the node that holds the picked fact, labelled with the update (green INS, red
DEL); a discarded deletion (eager discard) is a red cross. Every update a pick derives is an arrow to
the pick that processes it: a message when it goes to another lane. A burst's base updates come in
from the left edge.
"""

from __future__ import annotations

from html import escape

from .psn import Pick

LANE, STEP, LEFT, TOP = 70, 64, 90, 50


def spacetime(run: list[Pick], title: str) -> str:
    nodes = list(dict.fromkeys(str(p.node) for p in run))
    nodes.sort()
    y = {n: TOP + 30 + i * LANE for i, n in enumerate(nodes)}
    x = [LEFT + 40 + i * STEP for i in range(len(run))]
    width = LEFT + 80 + STEP * max(len(run), 1)
    height = TOP + 30 + LANE * len(nodes) + 20
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="psn-run" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif" font-size="11">',
           f"<title>{escape(title)}</title>",
           '<defs><marker id="psn-head" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
           'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#555"/></marker></defs>',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="12" y="22" font-size="14" font-weight="bold">{escape(title)}</text>']
    for n in nodes:
        out.append(f'<g class="lane"><line x1="{LEFT}" y1="{y[n]}" x2="{width - 20}" y2="{y[n]}" stroke="#bbb"/>'
                   f'<text x="12" y="{y[n] + 4}" font-weight="bold">node {escape(n)}</text></g>')
    # which later pick processes each derived update (the first one of that update at its node)
    pending: dict = {}
    arrows = []
    for i, pick in enumerate(run):
        key = pick.update
        if pending.get(key):
            arrows.append((pending[key].pop(0), i))
        else:
            arrows.append((None, i))
        for d in pick.derived:
            pending.setdefault(d, []).append(i)
    for source, target in arrows:
        tx, ty = x[target], y[str(run[target].node)]
        if source is None:
            out.append(f'<line class="base-update" x1="{LEFT}" y1="{ty - 22}" x2="{tx - 6}" y2="{ty - 5}" '
                       'stroke="#999" stroke-dasharray="3,3" marker-end="url(#psn-head)"/>')
            continue
        sx, sy = x[source], y[str(run[source].node)]
        kind = "message" if sy != ty else "local"
        bend = -18 if sy == ty else 0
        out.append(f'<path class="{kind}" d="M{sx},{sy} Q{(sx + tx) / 2},{(sy + ty) / 2 + bend} {tx - 5},{ty}" '
                   f'fill="none" stroke="#555" marker-end="url(#psn-head)"><title>{escape(str(run[target].update))}'
                   '</title></path>')
    for i, pick in enumerate(run):
        px, py = x[i], y[str(pick.node)]
        colour = "#2a7d2a" if pick.update.op == "+" else "#b22"
        label = escape(str(pick.update))
        if pick.discarded:
            out.append(f'<g class="pick discarded"><path d="M{px - 5},{py - 5} L{px + 5},{py + 5} M{px - 5},{py + 5} '
                       f'L{px + 5},{py - 5}" stroke="#b22" stroke-width="2"/><title>pick {i + 1}: {label}, discarded'
                       '</title></g>')
        else:
            out.append(f'<g class="pick"><circle cx="{px}" cy="{py}" r="5" fill="{colour}"/><title>pick {i + 1}: '
                       f'{label}</title></g>')
        out.append(f'<text class="label" x="{px}" y="{py + 18 + (i % 2) * 11}" text-anchor="middle" fill="{colour}">'
                   f'{label}</text>')
        out.append(f'<text x="{px}" y="{TOP + 8}" text-anchor="middle" fill="#888">{i + 1}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
