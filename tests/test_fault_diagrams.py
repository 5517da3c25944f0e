"""Issue #19's faults in the pictures of a model: a lost message is an arrow that ends in a cross partway,
a crash a bar across the crashed node's lane; the text, HTML and DOT renderings name them too; and a
diagram without faults is byte for byte what it was before faults were drawn (golden files in
tests/golden/svg, written before this change; `UPDATE_GOLDEN=1` rewrites them)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from dataclasses import replace
from itertools import combinations
from pathlib import Path

import pytest

from dedalus2asp import inspect
from dedalus2asp import formats
from dedalus2asp.bounds import Bounds, Network, Semantics
from dedalus2asp.formats import arrows, html, placement, svg
from dedalus2asp.pipeline import prepare

from conftest import EXAMPLES

SVG = "{http://www.w3.org/2000/svg}"
GOLDEN = Path(__file__).parent / "golden" / "svg"
BROADCAST = EXAMPLES / "molly/simple_broadcast.ded"


def models_of(program, facts, horizon, semantics=Semantics.CAUSAL_FINITE, network=Network(), limit=0):
    compiled = prepare(program, facts, Bounds(horizon, semantics, network=network)).compiled
    return inspect.enumerate_models(compiled, limit, progress=False).models


def groups(root, cls: str) -> list:
    return [g for g in root.iter() if cls in (g.get("class") or "").split()]


def numbers(d: str) -> list[float]:
    return [float(v) for v in re.findall(r"-?[\d.]+", d)]


@pytest.fixture(scope="module")
def faulty():
    """The one-shot broadcast from a to b and c under Molly's rounds, losses before step 1, one crash at any step
    (a crash bar on c, which never sends, is not among Molly's crash candidates: `crash_times="any"`)."""
    return models_of(BROADCAST, None, 2, network=Network(delivery="sync", loss_until=1, crashes=1, crash_times="any"))


def pick(models, lost: int, crashed: tuple[str, int] | None):
    """The model with `lost` lost messages where `crashed` (node, step) is the crash, or none crashes."""
    return next(m for m in models if len(m.lost) == lost
                and [(str(x), s) for x, s in m.crashes] == ([crashed] if crashed else []))


def test_the_model_carries_its_lost_messages_and_crashes(faulty):
    # under sync a message is lost or arrives at the next step; the crash of a at 0 loses both
    m = pick(faulty, 2, ("a", 0))
    assert {(str(l.sender), l.sent, str(l.addressee), l.fact) for l in m.lost} == {
        ("a", 0, "b", 'deliver("hello")'), ("a", 0, "c", 'deliver("hello")')}
    assert [(str(x), s) for x, s in m.crashes] == [("a", 0)]
    assert m.messages == () and all(l.arrives is None for l in m.lost)
    # the fault-free model has none
    (clean,) = [m for m in faulty if not m.lost and not m.crashes]
    assert len(clean.messages) == 2


def test_a_lost_message_ends_in_a_cross_partway_and_a_crash_is_a_bar(faulty):
    m = pick(faulty, 1, ("c", 1))
    (lost,) = m.lost
    (crash_node, crash_step) = m.crashes[0]
    root = ET.fromstring(svg.spacetime_svg(m))  # well-formed
    geo = arrows.layout(m)
    # the arrow: from the send point to the addressee's lane, stopping there LOST_AT of the way to its next step
    (arrow,) = groups(root, "lost")
    assert "message" in arrow.get("class").split() and arrow.get("data-count") == "1"
    x1, y1, x2, y2 = numbers(arrow.find(f"{SVG}path").get("d"))
    sx, sy = geo.x(lost.sent), geo.lanes[lost.sender]
    tx, ty = geo.x(lost.sent + 1), geo.lanes[lost.addressee]
    assert (x1, y1) == pytest.approx((sx, sy), abs=0.06)
    assert (x2, y2) == pytest.approx((sx + arrows.LOST_AT * (tx - sx), ty), abs=0.06)
    assert arrow.find(f"{SVG}path").get("marker-end") is None  # no arrowhead: it arrives nowhere
    # the cross: two strokes through the arrow's end, at no receive point
    (cross,) = groups(arrow, "cross")
    xs = numbers(cross.get("d"))
    assert (sum(xs[0::2]) / 4, sum(xs[1::2]) / 4) == pytest.approx((x2, y2), abs=0.06)
    # on the addressee's own lane (a lost a→c never reads as a message to b), between two of its ticks
    assert [n for n, y in geo.lanes.items() if abs(y2 - y) < 10] == [lost.addressee]
    assert not any(abs(x2 - geo.x(step)) < 10 for step in range(m.horizon + 1))
    assert "lost (an omission)" in arrow.find(f"{SVG}title").text and 'deliver("hello")' in arrow.find(f"{SVG}title").text
    # labelled like the other messages (here keyed: a label or a key row names it)
    labels = {g.get("data-for"): "".join(g.itertext()) for g in groups(root, "label")}
    assert arrow.get("id") in labels
    # the crash: a bar across c's lane just before its tick of the crash step, with its title
    (bar,) = [g for g in groups(root, "crash") if g.tag == f"{SVG}g"]
    assert bar.find(f"{SVG}title").text == f"{crash_node} crashes at step {crash_step}"
    assert (bar.get("data-node"), bar.get("data-step")) == (str(crash_node), str(crash_step))
    line = bar.find(f"{SVG}line")
    lane = geo.lanes[crash_node]
    assert float(line.get("x1")) == float(line.get("x2")) == pytest.approx(geo.x(crash_step) - svg.CRASH_BEFORE)
    assert float(line.get("y1")) < lane < float(line.get("y2"))
    # the legend explains both marks
    legend = "".join(groups(root, "legend")[0].itertext())
    assert "lost message" in legend and "crash" in legend


def test_texts_still_do_not_overlap_with_faults(faulty):
    from test_svg import texts

    for m in (pick(faulty, 2, ("a", 0)), pick(faulty, 1, ("c", 1)), pick(faulty, 1, None)):
        root = ET.fromstring(svg.spacetime_svg(m))
        boxes = texts(root)
        assert [(a, b) for (a, ba), (b, bb) in combinations(boxes, 2) if placement.overlap(ba, bb)] == []


def test_a_crash_under_async_delivery_silences_the_sender(tmp_path):
    network = Network(max_delay=1, crashes=1)
    models = models_of(BROADCAST, None, 2, network=network)
    m = next(m for m in models if [(str(x), s) for x, s in m.crashes] == [("a", 0)])
    assert len(m.lost) == 2 and not m.messages
    root = ET.fromstring(svg.spacetime_svg(m))
    assert [len(groups(g, "cross")) for g in groups(root, "lost")] == [1, 1]
    assert all("lost (its sender had crashed)" in g.find(f"{SVG}title").text for g in groups(root, "lost"))
    assert len([g for g in groups(root, "crash") if g.tag == f"{SVG}g"]) == 1


def test_text_html_and_dot_name_the_faults(faulty):
    m = pick(faulty, 1, ("c", 1))
    (lost,) = m.lost
    text = formats.render(m, "text")
    assert f'lost messages' in text and f"{lost.fact}: a@0 → {lost.addressee} lost" in text
    assert f"crash: c crashes at step {m.crashes[0][1]}" in text
    page = formats.render(m, "html")
    report = html.page(faulty, "faults")
    assert "<th>faults</th>" in report and "1 lost; c crashes at step 1" in report
    assert '<table class="faults">' in page and f"c crashes at step {m.crashes[0][1]}" in page
    assert page.count('class="message lost"') == 1 and page.count('<g class="crash"') == 1
    dot = formats.render(m, "dot")
    assert 'label="×"' in dot and f'"c crashes at step {m.crashes[0][1]}"' in dot
    if shutil.which("dot"):
        subprocess.run(["dot", "-Tsvg"], input=dot, text=True, check=True, capture_output=True)
    data = m.as_dict()
    assert data["lost"] == [{"relation": "deliver", "args": ['"hello"'], "from": "a", "sent": 0, "to": str(lost.addressee)}]
    assert data["crashes"] == [{"node": "c", "step": 1}]
    # a model without faults says nothing about them
    clean = pick(faulty, 0, None)
    assert "lost" not in formats.render(clean, "text") and "crash" not in formats.render(clean, "text")
    assert 'class="faults"' not in formats.render(clean, "html")
    assert "×" not in formats.render(clean, "dot")
    assert clean.as_dict()["lost"] == clean.as_dict()["crashes"] == []
    fault_free = models_of(BROADCAST, None, 2, network=Network(delivery="sync"), limit=1)[0]
    assert "lost" not in fault_free.as_dict() and "crashes" not in fault_free.as_dict()


def test_the_faults_are_all_that_changes_the_diagram(faulty):
    m = pick(faulty, 1, ("c", 1))
    bare = ET.fromstring(svg.spacetime_svg(replace(m, lost=(), crashes=())))
    assert groups(bare, "cross") == groups(bare, "crash") == groups(bare, "lost") == []
    assert "lost message" not in "".join(groups(bare, "legend")[0].itertext())
    # and the arrows of the messages that were not lost are drawn as they were
    full = ET.fromstring(svg.spacetime_svg(m))
    kept = [ET.tostring(g) for g in groups(full, "message") if "lost" not in g.get("class").split()]
    assert kept and kept == [ET.tostring(g) for g in groups(bare, "message")]


GOLDEN_CASES = {
    "broadcast-sync": lambda: models_of(BROADCAST, None, 2, network=Network(delivery="sync"), limit=1)[0],
    "broadcast-async": lambda: models_of(BROADCAST, None, 2, network=Network(max_delay=1), limit=1)[0],
    "2pc": lambda: models_of(EXAMPLES / "tplp2016/ex3_2pc.ded", EXAMPLES / "tplp2016/ex3_2pc_yes.facts", 3,
                             Semantics.CAUSAL, limit=1)[0],
    "alg1-three-nodes": lambda: models_of(EXAMPLES / "jcss2014/alg1.ded", EXAMPLES / "jcss2014/alg1-large.facts", 4,
                                          Semantics.CAUSAL, limit=1)[0],
    "fig4-choice": lambda: models_of(EXAMPLES / "tplp2016/fig4_noncausal.ded", EXAMPLES / "tplp2016/fig4.facts", 2,
                                     Semantics.CHOICE, limit=3)[2],
}


@pytest.mark.parametrize("case", sorted(GOLDEN_CASES))
def test_a_diagram_without_faults_is_unchanged(case):
    drawn = svg.spacetime_svg(GOLDEN_CASES[case]())
    path = GOLDEN / f"{case}.svg"
    if os.environ.get("UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(drawn)
    assert drawn == path.read_text()


def test_the_fault_marks_survive_in_chromium(faulty, tmp_path):
    """The HTML report of a run with a lost message and a crash, as headless Chromium builds its DOM."""
    from test_browser import chromium, headless

    m = pick(faulty, 1, ("c", 1))
    page = tmp_path / "faults.html"
    page.write_text(formats.render(m, "html"), encoding="utf-8")
    dom = headless(chromium(), "--dump-dom", page.as_uri())
    assert dom.returncode == 0, dom.stderr
    assert dom.stdout.count('class="message lost"') == 1 and dom.stdout.count('class="cross"') >= 1
    assert dom.stdout.count('<g class="crash"') == 1 and "c crashes at step 1" in dom.stdout
    assert '<table class="faults">' in dom.stdout
