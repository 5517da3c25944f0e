"""The lineage of a missing `post` fact (an entry of runs.json's `lineage`, docs/runs-schema.json) as a
page fragment: a nested list, what `verify --out DIR`'s index.html (`molly.index_html`) shows per missing fact.

It reads the JSON document, not the values of `dedalus2asp.questions.lineage` (whose `Expected.as_dict`
writes it): each fact of the expected run, green if it holds in the counterexample too, red if not,
a lost message or a crashed node in bold red; behind a negated atom that holds in the other run,
its derivation there (each fact coloured by the first run); a fact shown before is referred to.
"""

from __future__ import annotations

from html import escape

THERE = {"expected": "the counterexample", "counterexample": "the expected run"}
"""The other run of a fact of each run (the `run` of a fact of the lineage)."""


def _how(f: dict) -> list[str]:
    """How a fact of the lineage holds: its reason and rule, and for a message its sender and send step."""
    words = [f["how"] + (f' by rule {f["rule_number"]}' if f["rule_number"] is not None else "")]
    if f["message"] is not None:
        words.append(f'sent by {f["message"]["from"]} at step {f["message"]["sent"]}')
    return words


def _cuts(f: dict) -> list[str]:
    """What the other run did to a fact of the lineage: its message lost, pending or never sent, its node crashed."""
    there = THERE[f["run"]]
    fate, cut = f["message_in_other_run"], []
    c = f["crashed_in_other_run"]
    if fate == "lost":
        cut.append(f"lost in {there}")
    elif fate == "lost-by-crash":
        cut.append(f"lost in {there}: its sender " + ("had crashed" if c is None else f'{c["node"]} had crashed at step {c["step"]}'))
    elif fate in ("pending", "not-sent"):
        cut.append(f"pending in {there}" if fate == "pending" else f"never sent in {there}")
    if c is not None and fate != "lost-by-crash":
        cut.append(f'{c["node"]} had crashed at step {c["step"]} in {there}')
    return cut


def _title(entry: dict) -> str:
    post = entry["post"]
    return f'{post["relation"]}({", ".join(post["args"])}) at {post["node"] or "global"}:{post["step"]}'


def html(entry: dict, uid: str = "0") -> str:
    """One lineage entry of runs.json as a nested list: each fact with how it holds and how it fared in the
    other run (a lost message, a crashed node in bold red); an absent atom that holds in the other run
    is followed by its derivation there; a fact shown before is referred to."""
    facts = entry["facts"]
    title = _title(entry)
    if entry["run"] is None:
        why = ("the timeout stopped the search for a run where it holds" if entry["stopped"]
               else "no run within the bounds holds it (nothing led to expect it)")
        return f'<section class="lineage"><h3>no lineage for {escape(title)}</h3><p>{why}</p></section>'
    shown: set[int] = set()

    def item(k: int) -> str:
        f = facts[k]
        there = THERE[f["run"]]
        words = _how(f)
        cut = _cuts(f)
        state = "holds" if f["in_other_run"] else "missing"
        label = (("<em>in the counterexample:</em> " if f["run"] == "counterexample" else "")
                 + f'<span class="fact {state}" title="{state} in {there}">{escape(f["fact"])} at '
                 f'{escape(f["node"] or "global")}:{f["step"]}</span> {escape(", ".join(words))}'
                 + "".join(f' <strong class="cut">{escape(w)}</strong>' for w in cut))
        if k in shown and (f["premises"] or f["absent"]):
            return f"<li>{label} (above)</li>"
        shown.add(k)
        inner = "" if f["in_other_run"] else "".join(item(p) for p in f["premises"])
        for a in ([] if f["in_other_run"] else f["absent"]):
            where = f'not {escape(a["fact"])} at {escape(a["node"] or "global")}:{a["step"]}'
            if a["because"] is None:
                inner += f'<li><span class="absent">{where}</span></li>'
            else:
                inner += (f'<li><span class="absent">{where}</span>, <strong class="cut">but it holds in {there}</strong>:'
                          f'<ul>{item(a["because"])}</ul></li>')
        return f"<li>{label}" + (f"<ul>{inner}</ul>" if inner else "") + "</li>"

    run = entry["run"]
    how = "a run without faults" if not run["faults"] else f'a run with {run["faults"]} fault(s)'
    return (f'<section class="lineage"><h3>why {escape(title)} was expected</h3>'
            f"<p>it holds in {how} within the same bounds (the expected run); its lineage there, each fact "
            "green if it holds in the counterexample too, red if not; behind a negated atom that holds in the "
            "counterexample, its derivation there, each fact green if it holds in the expected run too, red if "
            f"not:</p>{graph(entry, uid)}<details><summary>the same as a list</summary><ul>{item(entry['root'])}</ul>"
            "</details></section>")


# ---------------------------------------------------------------------------
# The lineage graph as SVG, in the spirit of Molly's provenance diagrams

CHAR, LINE, PAD, GAP, PITCH, WIDEST = 6.4, 14, 8, 16, 86, 66
"""Font metrics (px per character, per line), box padding, the gap between boxes of a layer, the
distance between layers, the longest label line (characters) before it is cut."""


def _cut_text(text: str) -> str:
    return text if len(text) <= WIDEST else text[: WIDEST - 1] + "…"


def graph(entry: dict, uid: str = "0") -> str:
    """The lineage as an SVG graph: the post fact on top, each fact a box above its premises (an arrow
    from each premise up to what it derives), green if it holds in the other run, red if not; a
    negated atom that holds in the other run is a dashed box whose dashed arrow comes from its
    derivation there. As the list, the graph stops at the facts that hold in both runs."""
    boxes, below, layer, order = _walk(entry)
    size, at, width, height = _place(boxes, layer, order)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="lineage-graph" width="{width:.0f}" height="{height:.0f}" '
           f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="sans-serif" font-size="11">',
           f'<defs><marker id="up-{escape(uid)}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
           'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#555"/></marker></defs>']
    for v in order:
        for kid, dashed in below[v]:
            (x1, y1), (x2, y2) = at[kid], at[v]
            out.append(f'<line x1="{x1 + size[kid][0] / 2:.1f}" y1="{y1:.1f}" x2="{x2 + size[v][0] / 2:.1f}" '
                       f'y2="{y2 + size[v][1]:.1f}" stroke="#555"' + (' stroke-dasharray="4 3"' if dashed else "")
                       + f' marker-end="url(#up-{escape(uid)})"/>')
    fills = {"holds": ("#eaf6ea", "#070"), "missing": ("#fdecea", "#b00"), "absent": ("#fff", "#777")}
    for v in order:
        lines, kind, tip = boxes[v]
        fill, stroke = fills[kind.split()[0]]
        (x, y), (w, h) = at[v], size[v]
        dash = ' stroke-dasharray="4 3"' if kind == "absent" or kind.endswith("cx") else ""
        out.append(f'<g class="{escape(kind)}"><title>{escape(tip)}</title>'
                   f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="4" fill="{fill}" stroke="{stroke}"{dash}/>')
        for n, text in enumerate(lines):
            style = ' font-weight="bold"' if n == 0 else (' fill="#b00" font-weight="bold"' if n >= 2 or kind == "absent" else "")
            out.append(f'<text x="{x + PAD:.1f}" y="{y + PAD / 2 + LINE * (n + 1) - 3:.1f}"{style}>{escape(_cut_text(text))}</text>')
        out.append("</g>")
    return "\n".join(out + ["</svg>"])


def _walk(entry: dict) -> tuple[dict, dict, dict, list]:
    """The vertices of the graph breadth first from the post fact: each one's box (its lines, class and tooltip),
    its premises below it (with whether the arrow is dashed), its layer, and the order they were reached."""
    facts = entry["facts"]
    boxes: dict[object, tuple[list[str], str, str]] = {}  # vertex -> (lines, class, tooltip)
    below: dict[object, list[tuple[object, bool]]] = {}  # vertex -> its premises (vertex, dashed)
    layer: dict[object, int] = {}
    todo, order = [(("fact", entry["root"]), 0)], []
    while todo:  # breadth first; a fact that holds in both runs is a leaf, drawn once per conclusion
        v, depth = todo.pop(0)
        if v in layer:
            continue
        layer[v], kids = depth, []
        order.append(v)
        if v[0] in ("fact", "leaf"):
            f = facts[v[1]]
            there = THERE[f["run"]]
            first = ("cx: " if f["run"] == "counterexample" else "") + f'{f["fact"]} at {f["node"] or "global"}:{f["step"]}'
            lines = [first, ", ".join(_how(f))] + _cuts(f)
            state = "holds" if f["in_other_run"] else "missing"
            boxes[v] = (lines, state + (" cx" if f["run"] == "counterexample" else ""), f"{first}: {state} in {there}")
            if not f["in_other_run"]:
                kids = [(("leaf", p, v) if facts[p]["in_other_run"] else ("fact", p), False) for p in f["premises"]]
                kids += [(("absent", v[1], k), True) for k, a in enumerate(f["absent"]) if a["because"] is not None]
        else:
            _, parent, k = v
            a, there = facts[parent]["absent"][k], THERE[facts[parent]["run"]]
            text = f'not {a["fact"]} at {a["node"] or "global"}:{a["step"]}'
            boxes[v] = ([text, f"but it holds in {there}"], "absent", text)
            kids = [(("leaf", a["because"], v) if facts[a["because"]]["in_other_run"] else ("fact", a["because"]), True)]
        below[v] = kids
        todo.extend((kid, depth + 1) for kid, _ in kids)
    return boxes, below, layer, order


def _place(boxes: dict, layer: dict, order: list) -> tuple[dict, dict, float, float]:
    """Each box's size and top-left corner, a layer a row centred under the one above; and the drawing's size."""
    rows: dict[int, list] = {}
    for v in order:
        rows.setdefault(layer[v], []).append(v)
    size = {v: (max(len(_cut_text(t)) for t in lines) * CHAR + 2 * PAD, len(lines) * LINE + PAD)
            for v, (lines, _, _) in boxes.items()}
    widths = {d: sum(size[v][0] for v in row) + GAP * (len(row) - 1) for d, row in rows.items()}
    width = max(widths.values()) + 2 * GAP
    at: dict[object, tuple[float, float]] = {}
    for d, row in rows.items():
        x = (width - widths[d]) / 2
        for v in row:
            at[v] = (x, GAP + d * PITCH)
            x += size[v][0] + GAP
    height = GAP + max(rows) * PITCH + max(size[v][1] for v in order) + GAP
    return size, at, width, height
