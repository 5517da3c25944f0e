"""The spacetime (Lamport) diagram of a model, as an SVG document written by hand.

How to read it:

* one horizontal **lane** per node, a **tick** per local step 0..T at a fixed step width
  (a long run is wider, not denser: the HTML report scrolls it sideways); a filled tick
  holds facts, listed in its tooltip;
* one **arrow** per message from its send point (x,s) to its arrival point (y,t): the
  message edges of happens-before (tplp2016 §5.2.1). Messages with the same send point
  and the same arrival point are **bundled** into one thicker arrow with their count
  ("×3"); every arrow's tooltip lists its messages;
* a **pending** message, still in flight at the horizon (§4.3.1: its arrival is beyond
  T), is a dotted grey arrow that leaves the last step towards its addressee's lane; the
  lane's end counts them;
* a message whose arrival happens before its send (`Model.noncausal`, what rule (9) of
  pure_ca forbids, §4.4.1) is a thick dashed red arrow; one arriving at its own send
  step is a loop above the lane;
* a **lost** message (issue #19's omissions, or sent by a crashed node to another node: it
  neither arrives nor is pending) is a dashed red arrow from its send point towards its
  addressee's next step that stops `LOST_AT` of the way there, at a cross (×);
* a **crash** "y crashes at step s" is a red bar across y's lane just before its tick s:
  from step s on, y's messages to other nodes are lost;
* the **output** facts at step T (jcss2014 §2.5.5) are boxed in green at the last tick
  and listed after the lane's end;
* when some global fact holds (a global rule, Molly's assertion over several nodes, derived
  it), a last dashed lane `global` holds the global facts of every step: no node holds them
  and no message reaches them.

A **lasso** model (the eventual mode: an infinite run written over steps 0..T, steps L..T
repeating forever, the step after T being step L again) is drawn over the same lanes, and:

* the loop's steps L..T are **shaded** across every lane (one pale blue band, its edges
  dashed blue lines), and their step numbers are blue; after the last one the step row says
  "T+1 = L";
* a blue **back-arrow** over the step numbers runs from step T back to step L, labelled
  "step T+1 = step L: steps L–T repeat forever";
* a message that arrives after T, on the loop's next pass, **wraps**: a blue arrow that
  leaves the loop at its right edge and comes back in at its left edge to its loop step
  L + (A − L) mod P, both cut ends marked by a small open circle (`arrows.wrapped`);
* a message into the past is one that arrives at a step no later than its send step (the
  eventual mode's rounds, `Model.noncausal`), drawn as in a bounded model;
* there is nothing pending, and the **ultimate** output facts (jcss2014 §2.5.5: those that
  hold at every step of the loop) are boxed in green at every loop tick and listed after the
  lane's end.

Labels never overlap each other nor the ticks and names (`placement`): each one sits on
its own arrow at the first free spot along it that no other arrow runs through. When
one finds no such spot, the diagram is *dense*: every arrow gets a small number instead,
keyed to a table under the diagram. Hovering (SVG `<title>`) gives the details
everywhere; there is no script.

Where things go (the bundles, the layout, the arrows' curves, the labels' places) is
`arrows`'; this module writes the document.
"""

from __future__ import annotations

import math
from collections import defaultdict
from html import escape
from typing import TYPE_CHECKING, Sequence

from .arrows import (FONT, KEY_FONT, Bundle, Curve, Label, Layout, bundles, curve, key_numbers, lane_name,
                     lane_owners, layout, place_labels, short, wrapped)
from .placement import Placer, text_box
from ..lang.ast import GLOBAL_NODE

if TYPE_CHECKING:
    from ..inspect.model import Model


INK = "#222"
RED = "#d40000"
BLUE = "#1f5fae"
"""The loop of a lasso: its back-arrow, its step numbers, the messages that wrap."""
SHADE = "#e6effa"
"""The band behind a lasso's loop steps."""
GREEN = "#1b7f3b"
GREY = "#8a8a8a"
FAINT = "#ececec"
PALE = "#b4b4b4"
ROW = 16
CROSS = 5
"""Half the width of a lost message's cross."""
CRASH_BEFORE = 10
"""How far before its tick s a crash bar sits (the node is down from step s on)."""
CRASH_HALF = 15
"""Half the height of a crash bar."""
TITLE_EM = 0.6
"""The width of a character of the bold caption, per unit of font size (Helvetica's widest common letters, digits
and punctuation average below it): the diagram is as wide as its caption, which is never cut off."""


def caption(model: Model) -> str:
    """The model's heading: number, semantics, horizon and delay bound; for a lasso, its loop."""
    if model.loop_start is not None:
        return (f"model {model.number} ({model.bounds.semantics.value}, {model.bounds.network.describe()}): "
                f"a lasso, {loop_sentence(model.loop_start, model.horizon)}")
    return f"model {model.number} ({model.bounds.semantics.value}, {model.bounds.describe()})"


def loop_sentence(loop_start: int, horizon: int) -> str:
    """A lasso's loop in words: "steps 2–4 repeat forever (step 5 = step 2)"."""
    steps = f"step {loop_start} repeats" if loop_start == horizon else f"steps {loop_start}–{horizon} repeat"
    return f"{steps} forever (step {horizon + 1} = step {loop_start})"


# -- drawing --------------------------------------------------------------------


def _defs(uid: str, lasso: bool = False) -> str:
    marks = (("arrow", INK, 9), ("past", RED, 13), ("pending", PALE, 8)) + ((("loop", BLUE, 10),) if lasso else ())
    return "<defs>" + "".join(
        f'<marker id="{uid}-{name}" viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" '
        f'markerWidth="{size}" markerHeight="{size}" orient="auto-start-reverse">'
        f'<path d="M0,0 L10,5 L0,10 z" fill="{color}"/></marker>'
        for name, color, size in marks
    ) + "</defs>"


def _text(x: float, y: float, text: str, placer: Placer | None = None, size: float = FONT,
          anchor: str = "middle", attrs: str = "") -> str:
    if placer is not None:
        placer.block(text_box(x, y, text, size, anchor))
    return f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}"{attrs}>{escape(text)}</text>'


def _steps(geo: Layout, placer: Placer) -> list[str]:
    """The step numbers above (and, with three lanes or more, below) the lanes, and a faint line per step."""
    rows = [geo.top - 14] + ([geo.bottom - 26] if len(geo.lanes) >= 3 else [])
    parts = [f'<line x1="{geo.x(s):.1f}" y1="{geo.top - 8}" x2="{geo.x(s):.1f}" y2="{geo.bottom - 40:.1f}" '
             f'stroke="{FAINT}"/>' for s in range(geo.horizon + 1)]
    looped = (lambda s: False) if geo.loop_start is None else (lambda s: s >= geo.loop_start)
    colour = lambda s: f' fill="{BLUE}" font-weight="bold"' if looped(s) else f' fill="{GREY}"'  # noqa: E731
    for y in rows:
        parts.append(_text(geo.left - 30, y, "step", placer, anchor="end", attrs=f' fill="{GREY}"'))
        parts += [_text(geo.x(s), y, str(s), placer, attrs=colour(s)) for s in range(geo.horizon + 1)]
        if geo.loop_start is None:
            parts.append(_text(geo.lane_end, y, f"> {geo.horizon}", placer, attrs=f' fill="{GREY}" font-style="italic"'))
        else:
            parts.append(_text(geo.lane_end + 8, y, f"{geo.horizon + 1} = {geo.loop_start}", placer,
                               attrs=f' fill="{BLUE}" font-style="italic"'))
    return parts


def _loop_band(geo: Layout) -> list[str]:
    """A lasso's loop shaded across every lane: one band over the columns of steps L..T, from the step numbers
    above the lanes to those below (drawn under everything), its two edges dashed blue lines: the seam where the
    run leaves step T on the right and comes back to step L on the left."""
    x0, x1 = geo.loop_left, geo.loop_right
    y0, y1 = geo.top - 27, geo.bottom - 18
    edge = f'stroke="{BLUE}" stroke-width="1.2" stroke-dasharray="4 4" stroke-opacity="0.7"'
    return [f'<g class="loop-band" data-from="{geo.loop_start}" data-to="{geo.horizon}">'
            f'<title>the loop: steps {geo.loop_start}–{geo.horizon} repeat forever, on every lane</title>'
            f'<rect x="{x0:.1f}" y="{y0:.1f}" width="{x1 - x0:.1f}" height="{y1 - y0:.1f}" fill="{SHADE}"/>'
            f'<line class="loop-edge" x1="{x0:.1f}" y1="{y0:.1f}" x2="{x0:.1f}" y2="{y1:.1f}" {edge}/>'
            f'<line class="loop-edge" x1="{x1:.1f}" y1="{y0:.1f}" x2="{x1:.1f}" y2="{y1:.1f}" {edge}/></g>']


def _back_arrow(geo: Layout, uid: str, placer: Placer) -> tuple[str, float]:
    """A lasso's back-arrow over the step numbers, from step T to step L, labelled with the loop; returns it and
    the right edge of its label (which the diagram must be wide enough for)."""
    T, L = geo.horizon, geo.loop_start
    low, high = geo.top - 28, geo.top - 52  # just over the step numbers; the level of the bend
    xT, xL = geo.x(T), geo.x(L)
    words = loop_sentence(L, T)
    size = 12
    width = 0.6 * size * len(words)
    if L == T:  # a loop of one step: a small loop over its own number, the label beside it (left if it fits)
        d = f"M{xT + 6:.1f},{low} C{xT + 34:.1f},{high - 8} {xT - 34:.1f},{high - 8} {xT - 6:.1f},{low}"
        label_x, anchor, y = (xT - 30, "end", high) if xT - 30 - width >= 12 else (xT + 30, "start", high)
    else:
        r = 10
        d = (f"M{xT:.1f},{low} L{xT:.1f},{high + r} Q{xT:.1f},{high} {xT - r:.1f},{high} L{xL + r:.1f},{high} "
             f"Q{xL:.1f},{high} {xL:.1f},{high + r} L{xL:.1f},{low}")
        label_x, anchor, y = max((xT + xL) / 2, 12 + width / 2), "middle", high - 6
    placer.block((min(xL, xT) - 34, high - 10, max(xL, xT) + 34, low))
    halo = ' stroke="white" stroke-width="4" stroke-linejoin="round" paint-order="stroke"'
    label = _text(label_x, y, words, placer, size, anchor, f' fill="{BLUE}" font-weight="bold"{halo}')
    right = text_box(label_x, y, words, size, anchor)[2]
    return (f'<g class="loop-back" data-from="{T}" data-to="{L}"><title>{escape("the run goes on from step " + str(T) + " to step " + str(L) + " again: " + words)}</title>'
            f'<path d="{d}" fill="none" stroke="{BLUE}" stroke-width="2.2" marker-end="url(#{uid}-loop)"/>{label}</g>', right)


def _lanes(model: Model, geo: Layout, placer: Placer) -> list[str]:
    """Per node: its name (again every 10 steps on a long lane), its lane and its ticks."""
    parts = []
    for x, y in geo.lanes.items():
        name = lane_name(x)
        parts.append(_text(geo.left - 30, y + 4, name, placer, 13, "end", ' font-weight="bold"'))
        for s in range(10, geo.horizon + 1, 10):
            parts.append(_text(geo.x(s - 0.5), y - 6, name, placer, 10, attrs=f' fill="{GREY}"'))
        dashes = ' stroke-dasharray="6 4"' if x == GLOBAL_NODE else ""
        parts.append(f'<line class="lane{" global" if dashes else ""}" x1="{geo.left - 20}" y1="{y}" '
                     f'x2="{geo.lane_end:.1f}" y2="{y}" stroke="{INK}" stroke-width="1.5"{dashes}/>')
        placer.block((geo.left - 20, y - 2, geo.lane_end, y + 2))
        for s in range(geo.horizon + 1):
            facts = model.facts_at(x, s)
            tip = f"{lane_name(x)}:{s}\n" + ("\n".join(facts) if facts else "(no facts)")
            cx = geo.x(s)
            placer.block((cx - 7, y - 7, cx + 7, y + 7))
            parts.append(f'<g class="tick"><title>{escape(tip)}</title><circle cx="{cx:.1f}" cy="{y}" r="4.5" '
                         f'fill="{INK if facts else "white"}" stroke="{INK}"/></g>')
    return parts


def _outputs_by_node(model: Model) -> dict:
    """Each lane's output facts at the last step; in a lasso its ultimate ones, held at every loop step."""
    wanted = model.out
    if model.loop_start is None:
        return {x: [f for f in model.facts_at(x, model.horizon) if f.split("(", 1)[0] in wanted] for x in lane_owners(model)}
    loop = range(model.loop_start, model.horizon + 1)
    return {x: [f for f in model.facts_at(x, model.horizon) if f.split("(", 1)[0] in wanted
                and all(f in model.facts_at(x, s) for s in loop)] for x in lane_owners(model)}


def _lane_ends(model: Model, geo: Layout, placer: Placer) -> tuple[list[str], float]:
    """After each lane's end: how many messages to it are pending, and its output facts (boxed at the last tick).

    Returns the parts and the width they need.
    """
    waiting = defaultdict(list)
    for m in model.pending:
        waiting[m.addressee].append(f"{m.fact} from {m.sender}:{m.sent}")
    parts, width, x0 = [], 0.0, geo.lane_end + 12
    for x, items in waiting.items():
        text = f"{len(items)} pending"
        count = _text(x0, geo.lanes[x] + 4, text, placer, anchor="start", attrs=f' fill="{GREY}"')
        parts.append(f'<g class="pending-count"><title>{escape(chr(10).join(items))}</title>{count}</g>')
        width = max(width, 0.6 * FONT * len(text))
    lasso = model.loop_start is not None
    boxed = range(model.loop_start, model.horizon + 1) if lasso else (model.horizon,)
    for x, facts in _outputs_by_node(model).items():
        if not facts:
            continue
        y = geo.lanes[x]
        lines = _wrap(["ultimately:" if lasso else "output:", *facts], 30)
        if len(lines) > 4:  # the rest is in the tooltip
            lines = lines[:3] + [short(lines[3] + " …", 30)]
        texts = "".join(_text(x0, y + 22 + ROW * k + (8 if lasso else 0), line, placer, anchor="start",
                              attrs=f' fill="{GREEN}" font-weight="bold"') for k, line in enumerate(lines))
        width = max(width, *(0.6 * FONT * len(line) for line in lines))
        tip = (f"ultimate output facts of {lane_name(x)} (they hold at every step of the loop, "
               f"{model.loop_start}–{model.horizon}): " if lasso else f"output facts of {lane_name(x)} at step {model.horizon}: ")
        boxes = "".join(f'<rect x="{geo.x(s) - 8:.1f}" y="{y - 8}" width="16" height="16" rx="3" fill="none" stroke="{GREEN}" '
                        f'stroke-width="2.5"/>' for s in boxed)
        parts.append(f'<g class="output{" ultimate" if lasso else ""}"><title>{escape(tip + ", ".join(facts))}</title>'
                     f'{boxes}{texts}</g>')
    return parts, width


def _wrap(words: Sequence[str], width: int) -> list[str]:
    """Words joined by ", " (after the first) into lines of at most `width` characters."""
    lines = [words[0]]
    for word in words[1:]:
        glue = " " if lines[-1].endswith(":") else ", "
        if len(lines[-1]) + len(glue) + len(word) <= width:
            lines[-1] += glue + word
        else:
            lines[-1] += "," if not lines[-1].endswith(":") else ""
            lines.append(short(word, width))
    return lines


def _style(b: Bundle) -> tuple[str, str, float, str, str]:
    """class, colour, stroke width, dash and marker of a bundle's arrow."""
    thick = 0.8 * math.log2(len(b.messages))
    if b.noncausal:
        return "message noncausal", RED, 3.2 + thick, ' stroke-dasharray="9 5"', "past"
    if b.lost:
        return "message lost", RED, 1.4 + thick, ' stroke-dasharray="5 3"', ""
    if b.pending:
        return "message pending", PALE, 1.0 + thick / 2, ' stroke-dasharray="2 3"', "pending"
    if b.wraps:
        return "message wraps", BLUE, 1.6 + thick, "", "loop"
    return "message", INK, 1.4 + thick, "", "arrow"


def _arrow(b: Bundle, c: Curve, uid: str, index: int) -> str:
    cls, colour, width, dash, marker = _style(b)
    cls += " bundle" if len(b.messages) > 1 else ""
    end = f' marker-end="url(#{uid}-{marker})"' if marker else ""
    return (
        f'<g class="{cls}" id="{uid}-a{index}" data-count="{len(b.messages)}"><title>{escape(b.tooltip())}</title>'
        f'<path d="{c.d}" fill="none" stroke="{colour}" stroke-width="{width:.1f}"{dash}{end}/>'
        + (_cross(*c.points[-1]) if b.lost else "") + "</g>"
    )


def _wrapped_arrow(b: Bundle, pieces: Sequence[Curve], uid: str, index: int) -> str:
    """A message arriving on the loop's next pass: its pieces (`arrows.wrapped`), the last with the arrowhead,
    every cut end (where it leaves the loop on the right, where it comes back in on the left) an open circle."""
    cls, colour, width, dash, marker = _style(b)
    cls += " bundle" if len(b.messages) > 1 else ""
    paths = "".join(
        f'<path d="{c.d}" fill="none" stroke="{colour}" stroke-width="{width:.1f}"{dash}'
        + (f' marker-end="url(#{uid}-{marker})"' if k == len(pieces) - 1 else "") + "/>"
        for k, c in enumerate(pieces)
    )
    cuts = [c.points[-1] for c in pieces[:-1]] + [c.points[0] for c in pieces[1:]]
    ends = "".join(f'<circle class="wrap-end" cx="{x:.1f}" cy="{y:.1f}" r="3.2" fill="white" stroke="{colour}" '
                   f'stroke-width="1.6"/>' for x, y in cuts)
    return (f'<g class="{cls}" id="{uid}-a{index}" data-count="{len(b.messages)}" data-loop-step="{b.loop_step}">'
            f'<title>{escape(b.tooltip())}</title>{paths}{ends}</g>')


def _cross(x: float, y: float) -> str:
    """The × where a lost message's arrow stops."""
    return (f'<path class="cross" d="M{x - CROSS:.1f},{y - CROSS:.1f} L{x + CROSS:.1f},{y + CROSS:.1f} '
            f'M{x - CROSS:.1f},{y + CROSS:.1f} L{x + CROSS:.1f},{y - CROSS:.1f}" stroke="{RED}" stroke-width="2.4"/>')


def _crashes(model: Model, geo: Layout, placer: Placer) -> list[str]:
    """A bar across the lane of each node that crashes, just before the tick of its crash step."""
    parts = []
    for node, step in model.crashes:
        if node not in geo.lanes:
            continue
        x, y = geo.x(step) - CRASH_BEFORE, geo.lanes[node]
        placer.block((x - 3, y - CRASH_HALF, x + 3, y + CRASH_HALF))
        parts.append(f'<g class="crash" data-node="{escape(str(node))}" data-step="{step}">'
                     f'<title>{escape(f"{node} crashes at step {step}")}</title>'
                     f'<line x1="{x:.1f}" y1="{y - CRASH_HALF}" x2="{x:.1f}" y2="{y + CRASH_HALF}" stroke="{RED}" '
                     f'stroke-width="4"/></g>')
    return parts


def _label(b: Bundle, label: Label, uid: str, index: int) -> str:
    """A label on top of every arrow: text with a white halo, or a key number in a small box."""
    colour = RED if b.noncausal or b.lost else BLUE if b.wraps else INK
    x, y = label.centre
    head = f'<g class="label" data-for="{uid}-a{index}"><title>{escape(b.tooltip())}</title>'
    if label.keyed:
        x0, y0, x1, y1 = label.box
        return (head + f'<rect x="{x0 + 1.5:.1f}" y="{y0 + 1.5:.1f}" width="{x1 - x0 - 3:.1f}" height="{y1 - y0 - 3:.1f}" '
                f'rx="3" fill="white" stroke="{colour}"/>'
                + _text(x, y + 0.35 * KEY_FONT, label.text, size=KEY_FONT, attrs=f' fill="{colour}" font-weight="bold"')
                + "</g>")
    halo = ' stroke="white" stroke-width="3.5" stroke-linejoin="round" paint-order="stroke"'
    bold = ' font-weight="bold"' if b.noncausal else ""
    return head + _text(x, y + 0.3 * FONT, label.text, attrs=f' fill="{colour}"{halo}{bold}') + "</g>"


def _legend(top: float, width: float, uid: str, lost: bool = False, crash: bool = False,
            lasso: bool = False, wraps: bool = False) -> tuple[str, float]:
    """What the marks mean, in rows as wide as the diagram (the fault marks only when the model has
    them, the loop's marks only for a lasso, which has nothing pending, and its wrapping arrow only when one
    is drawn); returns the legend and its height."""
    items = [
        (f'<line x1="0" y1="0" x2="26" y2="0" stroke="{INK}" stroke-width="1.4" marker-end="url(#{uid}-arrow)"/>', "message"),
        (f'<line x1="0" y1="0" x2="26" y2="0" stroke="{INK}" stroke-width="3" marker-end="url(#{uid}-arrow)"/>',
         "×n: n messages, same send and arrival"),
        (f'<line x1="0" y1="0" x2="26" y2="0" stroke="{PALE}" stroke-width="1" stroke-dasharray="2 3" '
         f'marker-end="url(#{uid}-pending)"/>', "pending at the horizon"),
        (f'<line x1="0" y1="0" x2="26" y2="0" stroke="{RED}" stroke-width="3.2" stroke-dasharray="9 5" '
         f'marker-end="url(#{uid}-past)"/>', "into the past (non-causal)"),
        (f'<rect x="7" y="-7" width="14" height="14" rx="3" fill="none" stroke="{GREEN}" stroke-width="2.5"/>',
         "output at the last step"),
    ]
    if lasso:
        items = [item for item in items if item[1] not in ("pending at the horizon", "output at the last step")]
        items[1:1] = [
            (f'<rect x="0" y="-9" width="26" height="18" fill="{SHADE}"/><line x1="0" y1="-9" x2="0" y2="9" stroke="{BLUE}" '
             f'stroke-dasharray="4 4"/><line x1="26" y1="-9" x2="26" y2="9" stroke="{BLUE}" stroke-dasharray="4 4"/>',
             "the loop: these steps repeat forever"),
        ] + ([
            (f'<line x1="0" y1="0" x2="12" y2="0" stroke="{BLUE}" stroke-width="1.6"/>'
             f'<circle cx="12" cy="0" r="3.2" fill="white" stroke="{BLUE}" stroke-width="1.6"/>'
             f'<circle cx="18" cy="0" r="3.2" fill="white" stroke="{BLUE}" stroke-width="1.6"/>'
             f'<line x1="18" y1="0" x2="30" y2="0" stroke="{BLUE}" stroke-width="1.6" marker-end="url(#{uid}-loop)"/>',
             "arrives on the loop's next pass (out on the right, back in on the left)"),
        ] if wraps else [])
        items.append((f'<rect x="7" y="-7" width="14" height="14" rx="3" fill="none" stroke="{GREEN}" stroke-width="2.5"/>',
                      "ultimate output (holds at every loop step)"))
    if lost:
        items.append((f'<line x1="0" y1="0" x2="20" y2="0" stroke="{RED}" stroke-width="1.4" stroke-dasharray="5 3"/>'
                      + _cross(20, 0), "lost message"))
    if crash:
        items.append((f'<line x1="0" y1="0" x2="26" y2="0" stroke="{INK}" stroke-width="1.5"/><line x1="13" y1="-9" '
                      f'x2="13" y2="9" stroke="{RED}" stroke-width="4"/>', "crash: lost from then on"))
    out, x, y = [f'<g class="legend" transform="translate(12,{top:.0f})">'], 0.0, 0.0
    for mark, text in items:
        room = 34 + 0.6 * FONT * len(text)
        if x > 0 and x + room > width - 24:
            x, y = 0.0, y + 20
        out.append(f'<g transform="translate({x:.0f},{y:.0f})">{mark}{_text(34, 4, text, anchor="start")}</g>')
        x += room + 22
    out.append("</g>")
    return "".join(out), y + 20


def _key_table(arrows: Sequence[tuple[Bundle, Curve]], labels: dict[int, Label], top: float, width: float,
               uid: str) -> tuple[str, float]:
    """The key of a dense diagram: one row per numbered arrow, in columns; returns the table and its height."""
    rows = []
    for i, number in key_numbers(arrows).items():
        b = arrows[i][0]
        mark = "" if i in labels else " (no room on its arrow)"
        past = "into the past: " if b.noncausal else ""
        rows.append((b, f"{number}. {b.ends()}{mark}: {past}" + ", ".join(m.fact for m in b.messages)))
    if not rows:
        return "", 0.0
    columns = max(1, int((width - 24) // 460))
    column = (width - 24) / columns
    per = math.ceil(len(rows) / columns)
    chars = int((column - 16) / (0.6 * FONT))
    parts = [f'<g class="key" transform="translate(12,{top:.0f})">',
             _text(0, 0, "Key: arrows by number (hover a row for all its messages)", anchor="start", attrs=' font-weight="bold"')]
    for k, (b, text) in enumerate(rows):
        x, y = column * (k // per), ROW * (1 + k % per)
        row = _text(x, y, short(text, chars), anchor="start", attrs=f' fill="{RED if b.noncausal or b.lost else INK}"')
        parts.append(f'<g class="key-row"><title>{escape(b.tooltip())}</title>{row}</g>')
    parts.append("</g>")
    return "".join(parts), ROW * (per + 1) + 8


def spacetime_svg(model: Model) -> str:
    """The spacetime diagram of `model` as an SVG document (see the module docstring).

    Classes name what the elements stand for: `lane` (one per node), `tick` (one per
    step), `message` (one per arrow, `data-count` messages; also `bundle` when there are
    several, `pending`, `noncausal` or `lost`; a lost one holds a `cross`), `crash` (one per
    crashed node, `data-node` and `data-step`), `label`, `output` (output facts at the last step),
    `pending-count`, `legend` and `key`; in a lasso also `loop-band` (one per lane, `data-lane`),
    `loop-back` (the back-arrow, `data-from` T and `data-to` L), `message wraps` (`data-loop-step`,
    with a `wrap-end` circle at each cut) and `output ultimate`.
    """
    geo, placer, uid = layout(model), Placer(), f"m{model.number}"
    lasso = model.loop_start is not None
    body = _steps(geo, placer) + _lanes(model, geo, placer) + _crashes(model, geo, placer)
    back_right = 0.0
    if lasso:
        back, back_right = _back_arrow(geo, uid, placer)
        body = _loop_band(geo) + body + [back]
    ends, end_width = _lane_ends(model, geo, placer)
    pieces = {}
    arrows = []
    for b in bundles(model):
        if b.wraps:  # the label goes on the piece that arrives
            pieces[len(arrows)] = wrapped(b, geo)
            arrows.append((b, pieces[len(arrows)][-1]))
        else:
            arrows.append((b, curve(b, geo)))
    for i, (b, c) in enumerate(arrows):
        if not b.pending:  # pending arrows are faint: a label may sit on them
            for piece in pieces.get(i, (c,)):
                placer.add_ink(i, piece.samples())
    labels, keyed = place_labels(arrows, placer)
    title = caption(model)
    width = max(geo.lane_end + 24 + max(end_width, 60), 760, back_right + 12, 24 + TITLE_EM * 14 * len(title))
    table, table_height = _key_table(arrows, labels, geo.bottom + 28, width, uid) if keyed else ("", 0.0)
    legend, legend_height = _legend(geo.bottom + 8 + table_height + 12, width, uid, bool(model.lost), bool(model.crashes),
                                    lasso, bool(pieces))
    height = geo.bottom + 8 + table_height + 12 + legend_height
    order = sorted(range(len(arrows)), key=lambda i: not arrows[i][0].pending)  # pending ones underneath
    draw = lambda i: _wrapped_arrow(arrows[i][0], pieces[i], uid, i) if i in pieces else _arrow(arrows[i][0], arrows[i][1], uid, i)  # noqa: E731
    return "\n".join([
        f'<svg xmlns="http://www.w3.org/2000/svg" class="spacetime" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="Helvetica, Arial, sans-serif" font-size="{FONT}">',
        f"<title>{escape(title + ': spacetime diagram')}</title>",
        _defs(uid, lasso),
        f'<rect width="{width:.0f}" height="{height:.0f}" fill="white"/>',
        f'<text class="caption" x="12" y="22" font-size="14" font-weight="bold">{escape(title)}</text>',
        *body,
        *(draw(i) for i in order),
        *ends,
        *(_label(arrows[i][0], label, uid, i) for i, label in sorted(labels.items())),
        table,
        legend,
        "</svg>",
    ]) + "\n"
