"""The spacetime diagram at scale: no overlapping labels, bundles that add up, every message reachable
by its tooltip, keyed labels when dense, the loop of a message that arrives at its send step, 5 × 12."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter
from itertools import combinations

import pytest

from dedalus2asp import inspect
from dedalus2asp.bounds import Bounds, Network, Semantics
from dedalus2asp.formats import html, placement, svg
from dedalus2asp.pipeline import prepare

from conftest import EXAMPLES

SVG = "{http://www.w3.org/2000/svg}"

RING = """% gossip around a ring: every node forwards what it has seen to its successor
seen(X)@async(Y) :- seen(X), succ(Y).
seen(X)@next :- seen(X).
"""
NODES = ["n1", "n2", "n3", "n4", "n5"]


def models_of(program, facts, horizon, semantics=Semantics.CAUSAL, limit=1, max_delay=None):
    compiled = prepare(program, facts, Bounds(horizon, semantics, network=Network(max_delay=max_delay))).compiled
    return inspect.enumerate_models(compiled, limit, progress=False).models


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    """The sizes users reported, a five-node ring at horizon 12, and a choice model with a loop."""
    ring = tmp_path_factory.mktemp("ring")
    (ring / "ring.ded").write_text(RING)
    (ring / "ring.facts").write_text(
        "".join(f"{n} {{ seen({n}). succ({NODES[(i + 1) % 5]}). }}\n" for i, n in enumerate(NODES))
    )
    fig4 = models_of(EXAMPLES / "tplp2016/fig4_noncausal.ded", EXAMPLES / "tplp2016/fig4.facts", 2, Semantics.CHOICE, 0)
    return {
        "2pc": models_of(EXAMPLES / "tplp2016/ex3_2pc.ded", EXAMPLES / "tplp2016/ex3_2pc_yes.facts", 3)[0],
        "alg1": models_of(EXAMPLES / "jcss2014/alg1.ded", EXAMPLES / "jcss2014/alg1.facts", 4)[0],
        "alg1-three-nodes": models_of(EXAMPLES / "jcss2014/alg1.ded", EXAMPLES / "jcss2014/alg1-large.facts", 4)[0],
        "ring-5x12": models_of(ring / "ring.ded", ring / "ring.facts", 12, max_delay=1)[0],
        "loop": next(m for m in fig4 if any(x.arrives == x.sent for x in m.messages) and m.outputs()),
    }


CASES = ["2pc", "alg1", "alg1-three-nodes", "ring-5x12", "loop"]


def groups(root, cls: str) -> list:
    return [g for g in root.iter() if cls in (g.get("class") or "").split()]


def texts(root):
    """Every <text> with its box, from its own geometry: 0.6 × font size per character, translations applied."""
    found = []

    def walk(element, dx, dy, size):
        size = float(element.get("font-size", size))
        move = re.match(r"translate\(([-\d.]+),([-\d.]+)\)", element.get("transform", ""))
        if move:
            dx, dy = dx + float(move.group(1)), dy + float(move.group(2))
        if element.tag == f"{SVG}text":
            content = "".join(element.itertext())
            box = placement.text_box(float(element.get("x")) + dx, float(element.get("y")) + dy, content, size,
                               element.get("text-anchor", "start"))
            found.append((content, box))
        for child in element:
            walk(child, dx, dy, size)

    walk(root, 0.0, 0.0, 16.0)
    return found


def diagram(model):
    return ET.fromstring(svg.spacetime_svg(model))


@pytest.mark.parametrize("case", CASES)
def test_no_two_texts_overlap(cases, case):
    root = diagram(cases[case])
    boxes = texts(root)
    clashes = [(a, b) for (a, ba), (b, bb) in combinations(boxes, 2) if placement.overlap(ba, bb)]
    assert clashes == []
    # nor does a label cover a tick
    ticks = [(float(c.get("cx")) - 4.5, float(c.get("cy")) - 4.5, float(c.get("cx")) + 4.5, float(c.get("cy")) + 4.5)
             for g in groups(root, "tick") for c in g.iter(f"{SVG}circle")]
    labels = [box for g in groups(root, "label") for _, box in texts(g)]
    assert not any(placement.overlap(label, tick) for label in labels for tick in ticks)


def arrow_messages(root) -> Counter:
    """(ends, fact) of every message as the arrows' tooltips list them."""
    found = Counter()
    for g in groups(root, "message"):
        head, *facts = g.find(f"{SVG}title").text.split("\n")
        facts = [f for f in facts if not f.startswith("into the past")]
        count, ends = re.match(r"(\d+) messages? (.*)$", head).groups()
        assert int(count) == int(g.get("data-count")) == len(facts)
        found.update((ends, f) for f in facts)
    return found


@pytest.mark.parametrize("case", CASES)
def test_bundles_add_up_and_every_message_is_in_a_tooltip(cases, case):
    model = cases[case]
    root = diagram(model)
    assert sum(int(g.get("data-count")) for g in groups(root, "message")) == len(model.messages)
    expected = Counter(
        (f"{m.sender}:{m.sent} → " + (f"{m.addressee}, pending" if m.arrives is None else f"{m.addressee}:{m.arrives}"),
         m.fact)
        for m in model.messages
    )
    assert arrow_messages(root) == expected
    # one arrow per (send point, addressee, arrival): parallel messages share one
    assert len(groups(root, "message")) == len({(m.send, m.addressee, m.arrives) for m in model.messages})
    for cls in ("message", "tick", "label", "output", "pending-count"):
        assert all(g.find(f"{SVG}title") is not None for g in groups(root, cls))


def test_the_2pc_diagram_labels_its_votes_on_their_arrows(cases):
    root = diagram(cases["2pc"])
    assert groups(root, "key") == []
    labels = {g.find(f"{SVG}text").text for g in groups(root, "label")}
    assert labels == {"vote(t1, a1, yes)", "vote(t1, a2, yes)"}


@pytest.mark.parametrize("case", ["alg1-three-nodes", "ring-5x12"])
def test_a_dense_diagram_numbers_its_arrows_and_keys_them_below(cases, case):
    model = cases[case]
    root = diagram(model)
    (key,) = groups(root, "key")
    rows = [g.find(f"{SVG}text").text for g in groups(root, "key-row")]
    arriving = [g for g in groups(root, "message") if "pending" not in g.get("class").split()]
    assert len(rows) == len(arriving)
    numbered = {}
    for row in rows:
        number, ends = re.match(r"(\d+)\. (\S+ → [^\s:]+:\d+)", row).groups()
        numbered[int(number)] = ends
    assert sorted(numbered) == list(range(1, len(arriving) + 1))
    # every arriving arrow carries its number (and its count when it bundles several)
    by_arrow = {g.get("data-for"): g.find(f"{SVG}text").text for g in groups(root, "label")}
    for g in arriving:
        count = int(g.get("data-count"))
        number, *times = by_arrow[g.get("id")].split(" ×")
        assert times == ([] if count == 1 else [str(count)])
        ends = g.find(f"{SVG}title").text.split("\n")[0].split(" ", 2)[2]
        assert numbered[int(number)] == ends


def test_five_nodes_twelve_steps_are_readable(cases):
    root = diagram(cases["ring-5x12"])
    lanes = sorted(float(g.get("y1")) for g in groups(root, "lane"))
    assert len(lanes) == 5 and min(b - a for a, b in zip(lanes, lanes[1:])) >= 100
    assert len(groups(root, "tick")) == 5 * 13
    assert all(float(size) >= 10 for size in re.findall(r'font-size="([\d.]+)"', ET.tostring(root, encoding="unicode")))
    assert "no room on its arrow" not in ET.tostring(root, encoding="unicode")  # every arrow carries its number
    assert float(root.get("width")) <= 1500


def test_a_message_arriving_at_its_send_step_is_a_loop_above_the_lane_clear_of_the_output(cases):
    model = cases["loop"]
    root = diagram(model)
    (lane,) = groups(root, "lane")
    y = float(lane.get("y1"))
    (loop,) = [g for g in groups(root, "noncausal") if g.find(f"{SVG}title").text.split("\n")[0].endswith("z:2 → z:2")]
    points = [float(v) for v in re.findall(r"[-\d.]+", loop.find(f"{SVG}path").get("d"))]
    xs, ys = points[0::2], points[1::2]
    assert max(ys) == pytest.approx(y) and min(ys) < y - 30  # above the lane
    (output,) = groups(root, "output")
    loop_box = (min(xs), min(ys), max(xs), max(ys))
    assert not any(placement.overlap(box, loop_box) for _, box in texts(output))
    assert "T()" in "".join(output.itertext())


def test_the_report_scrolls_a_wide_diagram_and_has_no_script(cases):
    page = html.page([cases["ring-5x12"]], "ring")
    assert '<div class="diagram"><svg' in page and ".diagram { overflow-x: auto; }" in page
    assert "<script" not in page
