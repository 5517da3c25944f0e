"""Showing a lasso model (issue #29 item 5): each format says which steps repeat. Text marks the loop's columns and
says "step T+1 = step L"; JSON has `loop_start`, `period` and the `ultimate` outputs; the SVG shades the loop across
every lane, draws a labelled back-arrow from step T to step L, and draws a message that arrives after T to its loop
step, leaving on the right and coming back in on the left; DOT, HTML, ITF (ITF's `loop`) and verify's runs.json
say the same. The lassos are those of tests/lassos.py; bounded models are unchanged (tests/test_bounded_formats.py)."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from dataclasses import replace
from itertools import combinations
from types import SimpleNamespace

import itf_py
import jsonschema
import pytest

import lassos
from conftest import ROOT
from test_svg import SVG, groups, texts  # the diagrams' geometry, read as test_svg reads it
from dedalus2asp import formats
from dedalus2asp.bounds import Bounds, Network, Semantics
from dedalus2asp.formats import arrows, itf, placement
from dedalus2asp.formats.molly import index_html, runs_document
from dedalus2asp.inspect import Models
from dedalus2asp.pipeline import prepare
from dedalus2asp.questions.models import ultimate_outputs


@pytest.fixture(scope="module")
def models():
    return {"molly": lassos.molly(), "fig4": lassos.solved_fig4(), "fig4-sync": lassos.fig4_sync()}


def numbers(d: str) -> list[float]:
    return [float(v) for v in re.findall(r"-?[\d.]+", d)]


def test_the_lassos_are_what_they_say(models):
    m = models["molly"]
    assert (m.loop_start, m.period, m.horizon, m.is_lasso) == (3, 2, 4, True)
    assert [(x.sent, x.unrolled, x.arrives) for x in m.messages if x.wraps] == [(4, 5, 3), (4, 5, 3)]
    assert all(x.unrolled == x.arrives for x in m.messages if not x.wraps)
    assert [(str(x.sender), x.sent, str(x.addressee)) for x in m.lost] == [("a", 0, "b")]
    f = models["fig4"]
    assert (f.loop_start, f.period) == (2, 2) and f.ultimate() == ()
    assert {(x.relation, x.sent, x.arrives) for x in f.noncausal()} == {("B", 1, 0), ("B", 3, 2)}
    assert [(x.relation, x.sent, x.unrolled, x.arrives) for x in f.messages if x.wraps] == [("A", 3, 4, 2)]
    assert models["fig4-sync"].ultimate() == ("T()",) and models["fig4-sync"].period == 1


# -- text and JSON ----------------------------------------------------------------


def test_text_marks_the_loop(models):
    text = formats.render(models["molly"], "text")
    header = next(line for line in text.splitlines() if "step 0" in line)
    assert re.findall(r"step (\d) \(loop\)", header) == ["3", "4"] and "step 2 (loop)" not in header
    assert "loop: steps 3–4 repeat forever (step 5 = step 3); steps 0–2 are the prefix" in text
    assert text.count("a@4 → b@5 = b@3 on the loop's next pass") == 1
    assert "outputs at step" not in text
    sync = formats.render(models["fig4-sync"], "text")
    assert "loop: step 3 repeats forever (step 4 = step 3)" in sync
    assert "ultimate outputs (they hold at every step of the loop): T()" in sync
    choice = formats.render(models["fig4"], "text")
    assert "B(): z@3 → z@2  [rule 2]   ← sent into the past" in choice and "A(): z@3 → z@4 = z@2 on the loop's next pass" in choice


def test_json_has_the_loop_and_the_ultimate_outputs(models):
    document = json.loads(formats.render(models["molly"], "json"))
    [model] = document["models"]
    assert (model["loop_start"], model["period"], model["ultimate"]) == (3, 2, [])
    wrapping = [x for x in model["messages"] if x["wraps"]]
    assert [(x["sent"], x["unrolled"], x["arrives"]) for x in wrapping] == [(4, 5, 3), (4, 5, 3)]
    assert all(x["unrolled"] == x["arrives"] for x in model["messages"] if not x["wraps"])
    sync = json.loads(formats.render(models["fig4-sync"], "json"))["models"][0]
    assert (sync["loop_start"], sync["period"], sync["ultimate"]) == (3, 1, ["T()"])
    choice = json.loads(formats.render(models["fig4"], "json"))["models"][0]
    assert sorted((x["sent"], x["arrives"]) for x in choice["messages"] if x["noncausal"]) == [(1, 0), (3, 2)]


# -- the spacetime diagram --------------------------------------------------------


@pytest.mark.parametrize("case", ["molly", "fig4", "fig4-sync"])
def test_the_loop_is_shaded_across_every_lane(models, case):
    m = models[case]
    geo = arrows.layout(m)
    root = ET.fromstring(formats.render(m, "svg"))
    [band] = groups(root, "loop-band")
    assert (band.get("data-from"), band.get("data-to")) == (str(m.loop_start), str(m.horizon))
    rect = band.find(f"{SVG}rect")
    x0, y0 = float(rect.get("x")), float(rect.get("y"))
    x1, y1 = x0 + float(rect.get("width")), y0 + float(rect.get("height"))
    # the columns of steps L..T, and no other step's tick
    assert x0 == pytest.approx(geo.x(m.loop_start - 0.5), abs=0.1) and x1 == pytest.approx(geo.x(m.horizon + 0.5), abs=0.1)
    assert all(y0 < y < y1 for y in geo.lanes.values())
    assert len(band.findall(f"{SVG}line")) == 2  # the seams
    # the loop's step numbers are blue, the prefix's grey
    numbers_row = {t.text: t.get("fill") for t in root.iter(f"{SVG}text")
                   if t.text and t.text.isdigit() and float(t.get("y")) == geo.top - 14}
    assert len(numbers_row) == m.horizon + 1
    assert {s for s, fill in numbers_row.items() if fill == "#1f5fae"} == {str(s) for s in range(m.loop_start, m.horizon + 1)}


@pytest.mark.parametrize("case", ["molly", "fig4", "fig4-sync"])
def test_a_labelled_back_arrow_runs_from_the_last_step_to_the_loop_start(models, case):
    m = models[case]
    geo = arrows.layout(m)
    root = ET.fromstring(formats.render(m, "svg"))
    [back] = groups(root, "loop-back")
    assert (back.get("data-from"), back.get("data-to")) == (str(m.horizon), str(m.loop_start))
    path = back.find(f"{SVG}path")
    points = numbers(path.get("d"))
    start, end = points[:2], points[-2:]
    assert "marker-end" in path.attrib
    assert end[1] < geo.top - 14 - 11  # it ends over the step numbers, pointing down at step L
    if m.period > 1:
        assert start[0] == pytest.approx(geo.x(m.horizon)) and end[0] == pytest.approx(geo.x(m.loop_start))
    else:
        assert abs(start[0] - geo.x(m.horizon)) < 10 and abs(end[0] - geo.x(m.loop_start)) < 10
    label = "".join(back.find(f"{SVG}text").itertext())
    assert f"(step {m.horizon + 1} = step {m.loop_start})" in label
    assert "forever" in label


@pytest.mark.parametrize("case", ["molly", "fig4", "fig4-sync"])
def test_a_message_after_the_last_step_wraps_to_its_loop_step(models, case):
    m = models[case]
    geo = arrows.layout(m)
    root = ET.fromstring(formats.render(m, "svg"))
    wrapping = groups(root, "wraps")
    expected = {(x.send, x.addressee, x.unrolled, x.arrives) for x in m.messages if x.wraps}
    assert len(wrapping) == len(expected) > 0
    drawn = sorted(int(g.get("data-loop-step")) for g in wrapping)
    assert drawn == sorted(a for *_, a in expected)
    for g in wrapping:
        first, *_, last = g.findall(f"{SVG}path")
        leave, back = numbers(first.get("d"))[-2:], numbers(last.get("d"))[:2]
        assert leave[0] == pytest.approx(geo.loop_right, abs=0.2)  # it leaves on the right seam ...
        assert back[0] == pytest.approx(geo.loop_left, abs=0.2)  # ... and comes back in on the left one
        assert leave[1] == pytest.approx(back[1], abs=0.2)
        assert "marker-end" in last.attrib and "marker-end" not in first.attrib
        end = numbers(last.get("d"))[-2:]
        assert end[0] == pytest.approx(geo.x(int(g.get("data-loop-step"))), abs=0.2)
        assert len(g.findall(f"{SVG}circle")) == 2  # the cut ends
        assert "the loop's next pass" in g.find(f"{SVG}title").text
    assert groups(root, "pending") == []


def test_a_loop_send_arriving_in_the_prefix_is_drawn_into_the_past():
    """A choice lasso whose B(), sent at loop step 1, arrives at prefix step 0: an arrow into the past, no wrap."""
    m = lassos.fig4()
    geo = arrows.layout(m)
    root = ET.fromstring(formats.render(m, "svg"))
    into_past = groups(root, "noncausal")
    assert len(into_past) == 2 and not any(g.get("data-loop-step") for g in into_past)
    starts_ends = sorted((numbers(g.find(f"{SVG}path").get("d"))[0], numbers(g.find(f"{SVG}path").get("d"))[-2])
                         for g in into_past)
    assert starts_ends == [(pytest.approx(geo.x(1)), pytest.approx(geo.x(0))), (pytest.approx(geo.x(2)), pytest.approx(geo.x(1)))]
    assert [int(g.get("data-loop-step")) for g in groups(root, "wraps")] == [1]


def test_a_message_that_wraps_twice_is_cut_twice():
    """Delay 2 over a loop of one step: sent at T, it arrives at T + 2, which is step L after two passes."""
    m = lassos.fig4_sync()
    late = replace(m, messages=tuple(replace(x, unrolled=5) if x.sent == 3 and x.relation == "A" else x for x in m.messages))
    geo = arrows.layout(late)
    [bundle] = [b for b in arrows.bundles(late) if b.wraps and b.arrives == 5]
    pieces = arrows.wrapped(bundle, geo)
    assert len(pieces) == 3 and bundle.loop_step == 3
    for piece in pieces:
        assert all(geo.loop_left - 0.5 <= x <= geo.loop_right + 0.5 for x, _ in piece.samples())
    assert pieces[-1].points[-1][0] == pytest.approx(geo.x(3))


def test_a_wrapping_arrow_is_bent_round_the_loop_ticks_it_would_cross():
    """a→c sent at step 4 arriving at step 6 (a delay of 2): on the unrolled run it crosses b's lane at step 5, which
    is b's tick 3 once moved back a period; the arrow is bent there, as a bounded one is round a tick it would cross."""
    m = lassos.molly()
    late = replace(m, messages=tuple(replace(x, unrolled=6, arrives=4) if x.sent == 4 and str(x.addressee) == "c" else x
                                     for x in m.messages))
    geo = arrows.layout(late)
    [bundle] = [b for b in arrows.bundles(late) if b.arrives == 6]
    b_lane = geo.lanes[[x for x in late.network if str(x) == "b"][0]]
    near = [(x, y) for piece in arrows.wrapped(bundle, geo) for x, y in piece.samples(1) if abs(y - b_lane) < 1]
    assert near and all(min(abs(x - geo.x(s)) for s in range(late.horizon + 1)) > 8 for x, _ in near)


@pytest.mark.parametrize("case", ["molly", "fig4", "fig4-sync"])
def test_no_two_texts_of_a_lasso_overlap(models, case):
    root = ET.fromstring(formats.render(models[case], "svg"))
    boxes = [(t, b) for t, b in texts(root) if t.strip()]
    assert not [(a, b) for (a, ba), (b, bb) in combinations(boxes, 2) if placement.overlap(ba, bb)]


@pytest.mark.parametrize("horizon, loop_start", [(9, 8), (9, 9), (1, 0), (0, 0), (12, 2)])
def test_the_back_arrow_and_its_label_fit_any_loop(models, horizon, loop_start):
    """A loop at the end of a long lasso, a loop of one step at its end, a loop from step 0, one of 11 steps:
    the label lies within the diagram, and clear of every other text."""
    m = replace(models["fig4-sync"], bounds=replace(models["fig4-sync"].bounds, horizon=horizon), loop_start=loop_start,
                messages=())
    root = ET.fromstring(formats.render(m, "svg"))
    width = float(root.get("width"))
    [back] = groups(root, "loop-back")
    label = "".join(back.find(f"{SVG}text").itertext())
    boxes = [(t, b) for t, b in texts(root) if t.strip()]
    [(_, box)] = [(t, b) for t, b in boxes if t == label]
    assert 0 <= box[0] and box[2] <= width
    assert not [t for t, b in boxes if t != label and placement.overlap(b, box)]


def test_the_ultimate_outputs_are_boxed_at_every_loop_step(models):
    m = models["fig4-sync"]
    geo = arrows.layout(m)
    root = ET.fromstring(formats.render(m, "svg"))
    [out] = groups(root, "ultimate")
    boxes = out.findall(f"{SVG}rect")
    assert [float(r.get("x")) + 8 for r in boxes] == [pytest.approx(geo.x(s)) for s in range(m.loop_start, m.horizon + 1)]
    assert "ultimately: T()" in "".join(out.itertext())
    legend = "".join(groups(root, "legend")[0].itertext())
    assert "the loop: these steps repeat forever" in legend and "pending at the horizon" not in legend
    assert "arrives on the loop's next pass" in legend  # A() and B() sent at step 3 wrap
    nothing_wraps = replace(m, messages=tuple(x for x in m.messages if not x.wraps))
    legend = "".join(groups(ET.fromstring(formats.render(nothing_wraps, "svg")), "legend")[0].itertext())
    assert "the loop: these steps repeat forever" in legend and "the loop's next pass" not in legend


# -- DOT, HTML, ITF, the notebook ---------------------------------------------------


def test_dot_folds_the_lasso_with_a_back_edge_per_node(models):
    m = models["molly"]
    dot = formats.render(m, "dot")
    assert dot.startswith("digraph lasso {") and "steps 3–4 repeat forever (step 5 = step 3)" in dot
    for x in "abc":
        assert f'"{x}:4" -> "{x}:3" [color="#1f5fae", fontcolor="#1f5fae", style=bold, label="step 5 = step 3", constraint=false];' in dot
        assert re.search(rf'"{x}:3" \[style=filled', dot) and not re.search(rf'"{x}:2" \[style=filled', dot)
    assert dot.count("(next pass)") == 2 and '"a:4" -> "b:3" [label="deliver(\\"hello\\") (next pass)"' in dot
    assert not re.search(r'"[abc]:[5-9]"', dot)  # every point is a step of the lasso
    assert "lost0" in dot
    assert "penwidth" not in dot  # no message into the past under sync
    choice = formats.render(models["fig4"], "dot")
    assert choice.count("style=dashed, penwidth=2.5") == 2 and '"z:3" -> "z:2" [label="A() (next pass)"' in choice


def test_html_says_which_steps_repeat(models):
    page = formats.render(models["molly"], "html")
    assert "A lasso: steps 3–4 repeat forever (step 5 = step 3)" in page
    assert page.count('class="loop" style="background:') == 2  # the two loop columns' headers
    assert "5 <span class=\"wraps\">= step 3, the loop's next pass</span>" in page
    assert 'class="loop-band"' in page and 'class="loop-back"' in page
    report = formats.render(Models(tuple(models.values()), models["molly"].bounds, models["molly"].network), "html")
    assert "<th>loop</th>" in report and "steps 3–4 (prefix 0–2)" in report and "step 3 (prefix 0–2)" in report
    assert "the shaded steps L..T (the loop) repeat forever" in report
    assert "<code>T()</code>" in report  # fig4-sync's ultimate output in the summary


def test_itf_is_a_lasso_trace(models):
    m = models["molly"]
    document = json.loads(formats.render(m, "itf"))
    assert document["loop"] == 3 and document["#meta"]["loop"] == 3 and document["#meta"]["period"] == 2
    trace = itf_py.trace_from_json(document)
    assert trace.loop == 3 and len(trace.states) == m.horizon + 1
    # the state after the last is state 3: its facts are those step 5 would have
    wrapped = {(x.relation, str(x.sender), x.sent, str(x.addressee)) for x in m.messages if x.wraps}
    as_keys = lambda records: {(r["relation"], r["sender"], int(r["sent"]["#bigint"]), r["addressee"]) for r in records}  # noqa: E731
    states = document["states"]
    assert wrapped <= as_keys(states[3]["delivered"]["#set"]) and wrapped <= as_keys(states[4]["in_flight"]["#set"])
    assert not wrapped & as_keys(states[4]["delivered"]["#set"])
    assert json.loads(formats.render(models["fig4-sync"], "itf"))["#meta"]["ultimate"] == ["T()"]


def test_itf_in_flight_on_the_next_pass():
    """A message sent at T that arrives two steps later over a loop of two steps is in flight at T and, on the next
    pass, at L, then delivered at L + 1."""
    m = lassos.molly()  # L = 3, T = 4
    late = replace(m, messages=tuple(replace(x, unrolled=6, arrives=4) if x.sent == 4 and str(x.addressee) == "b" else x
                                     for x in m.messages))
    [x] = [x for x in late.messages if x.unrolled == 6]
    assert [k for k in range(5) if itf.in_flight_in_lasso(late, x, k)] == [3, 4]
    states = json.loads(itf.itf_json(late))["states"]
    assert [k for k, s in enumerate(states) if any(r["addressee"] == "b" and r["sent"] == {"#bigint": "4"}
                                                   for r in s["delivered"]["#set"])] == [4]


def test_shiviz_logs_one_pass_of_the_loop(models):
    log = formats.render(models["molly"], "shiviz")
    assert 'a:4 sends deliver("hello") to b (arrives b:5 = b:3, the loop\'s next pass)' in log
    assert "from a:4" not in log  # no event of this pass receives what a sends at step 4
    assert 'b:3 receives deliver("hello") from a:2' in log


def test_a_lasso_shows_its_loop_in_a_notebook(models):
    m = models["fig4"]
    assert 'class="loop-band"' in m._repr_svg_() and "A lasso: steps 2–3 repeat forever" in m._repr_html_()


# -- verify --out ------------------------------------------------------------------


def test_runs_json_and_page_of_a_lasso_counterexample(models):
    m = models["molly"]
    found = SimpleNamespace(model=m, lost=(SimpleNamespace(sender=m.lost[0].sender, addressee=m.lost[0].addressee,
                                                           sent=0, relation="deliver", args=m.lost[0].args, by_crash=False),),
                            crashes=(), lineage=())
    bound = {"semantics": "causal-finite", "encoding": "fast", "horizon": 4, "max_delay": None, "delivery": "sync",
             "loss_until": 1, "crashes": 0, "pre": "pre", "post": "post"}
    verdict = SimpleNamespace(bounds=m.bounds, witnesses=(), counterexample=found, holds=False, complete=True,
                              describe=lambda: "a lasso counterexample",
                              as_dict=lambda: {"exact": True, "K": 5, "reason": None, "bound": bound})
    document = runs_document(verdict, lassos.fig4_sync())
    jsonschema.validate(document, json.loads((ROOT / "docs" / "runs-schema.json").read_text()))
    success, failure = document["runs"]
    assert (failure["loop_start"], failure["period"], failure["failureSpec"]["eot"]) == (3, 2, 5)
    assert (success["loop_start"], success["period"]) == (3, 1)
    assert [(x["sendTime"], x["receiveTime"], x["loopReceiveTime"]) for x in failure["messages"] if "loopReceiveTime" in x] \
        == [(5, 6, 4), (5, 6, 4)]
    assert all("loopReceiveTime" not in x for x in success["messages"] if x["receiveTime"] <= 4)
    page = index_html(document)
    assert "steps 3..4 repeat forever (loop start 3, period 2)" in page and "lasso runs of at most K = 5 steps" in page


# -- the eventual mode's own models, in Chromium --------------------------------------


def test_the_hand_built_lassos_are_models_of_the_eventual_encoding():
    """tests/lassos.py writes lassos by hand from bounded models; the eventual mode's program (the `lasso`
    encoding) has the same ones among its lassos of K steps, with the same loop, trace and arrivals."""
    assert lassos.solved_molly().messages == lassos.molly().messages
    [sync] = lassos.solved(*lassos.FIG4, lassos.fig4_sync().bounds)
    hand = lassos.fig4_sync()
    assert (sync.loop_start, sync.trace, sync.messages) == (hand.loop_start, hand.trace, hand.messages)
    fig4 = lassos.solved_fig4()
    assert {(x.sent, x.unrolled) for x in fig4.noncausal()} == {(1, 0), (3, 2)} and fig4.ultimate() == ()


def test_a_lasso_report_in_chromium(tmp_path):
    """The page of two lassos of the encoding, as headless Chromium builds its DOM: one band, one back-arrow
    and the wrapped arrows per diagram survive, and the loop is said in words."""
    from test_browser import chromium, headless

    molly, fig4 = lassos.solved_molly(), lassos.solved_fig4()
    page = tmp_path / "lassos.html"
    page.write_text(formats.render(Models((molly, fig4), molly.bounds, molly.network), "html"), encoding="utf-8")
    dom = headless(chromium(), "--dump-dom", page.as_uri())
    assert dom.returncode == 0, dom.stderr
    assert dom.stdout.count('class="loop-band"') == 2 and dom.stdout.count('class="loop-back"') == 2
    assert dom.stdout.count('class="message wraps') == 3  # a→b and a→c at step 4; A() at step 3
    assert "steps 3–4 repeat forever (step 5 = step 3)" in dom.stdout
    assert "steps 2–3 repeat forever (step 4 = step 2)" in dom.stdout


def test_the_answer_of_models_eventual_as_a_page():
    """questions.models.ultimate_outputs (models --eventual) on Fig. 4 under choice, lassos of 3 steps: a page that
    says it is not exact, lists the distinct ultimate outputs, and draws one lasso per output with its loop."""
    bounds = Bounds(2, Semantics.CHOICE, network=Network(max_delay=1))
    prepared = prepare(*lassos.FIG4, bounds)
    result = ultimate_outputs(prepared.program, prepared.instance, bounds, ("T",), steps=3)
    page = formats.render(result, "html")
    assert "Not exact (the lassos of K = 3 steps only)" in page
    assert page.count('<section class="model"') == len(result.outputs) == page.count('class="loop-band"') >= 2
    assert all(f"<code>{', '.join(o) or '(none)'}</code>" in page for o in result.outputs)
    assert formats.render(result, "html", fragment=True).startswith("<p>Not exact")
