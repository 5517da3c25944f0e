"""Pictures of models: spacetime SVG, happens-before DOT, HTML report, notebook reprs, and the commands
`models --svg`, `report` and `replay`."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import pytest
from typer.testing import CliRunner

from dedalus2asp import inspect
from dedalus2asp import formats
from dedalus2asp.formats import html, svg
from dedalus2asp.cli import app
from dedalus2asp.pipeline import prepare
from dedalus2asp.bounds import Bounds, Network, Semantics

from conftest import EXAMPLES

SVG = "{http://www.w3.org/2000/svg}"
FIG4 = (EXAMPLES / "tplp2016/fig4_noncausal.ded", EXAMPLES / "tplp2016/fig4.facts")
ALG1_LARGE = (EXAMPLES / "jcss2014/alg1.ded", EXAMPLES / "jcss2014/alg1-large.facts")


def models_of(files, horizon, semantics=Semantics.CAUSAL, limit=0, max_delay=None):
    compiled = prepare(*files, Bounds(horizon, semantics, network=Network(max_delay=max_delay))).compiled
    return inspect.enumerate_models(compiled, limit, progress=False).models


def groups(root, cls: str) -> list:
    return [g for g in root.iter() if cls in (g.get("class") or "").split()]


def messages_drawn(root, cls: str = "message") -> int:
    """Messages drawn by the arrows of class `cls`: an arrow bundles `data-count` messages."""
    return sum(int(g.get("data-count")) for g in groups(root, cls))


def parse(svg: str):
    return ET.fromstring(svg)  # fails on anything that is not well-formed XML


def fig4_into_the_past():
    (model,) = [
        m for m in models_of(FIG4, 2, Semantics.CHOICE)
        if {(x.relation, x.sent): x.arrives for x in m.messages} == {("A", 0): 1, ("A", 1): None, ("A", 2): None, ("B", 1): 0}
    ]
    return model


def test_spacetime_diagram_of_a_choice_model_shows_the_message_into_the_past():
    model = fig4_into_the_past()
    root = parse(formats.render(model, "svg"))
    assert root.tag == f"{SVG}svg"
    assert len(groups(root, "lane")) == 1
    assert len(groups(root, "tick")) == 3
    assert len(groups(root, "message")) == 4
    pending = groups(root, "pending")
    noncausal = groups(root, "noncausal")
    assert len(pending) == 2 and len(noncausal) == 1  # B(); A() is on the cycle but causal
    for g in noncausal:
        path = g.find(f"{SVG}path")
        assert path.get("stroke") == svg.RED and float(path.get("stroke-width")) >= 3 and path.get("stroke-dasharray")
        (label,) = [x for x in groups(root, "label") if x.get("data-for") == g.get("id")]
        assert label.find(f"{SVG}text").text.startswith("into the past: ")
    assert groups(root, "output") == []  # B() blocks T()


def test_spacetime_diagram_marks_outputs_and_pending_messages():
    (model,) = models_of(FIG4, 2, max_delay=1)
    root = parse(formats.render(model, "svg"))
    (output,) = groups(root, "output")
    assert "T()" in "".join(output.itertext())
    assert messages_drawn(root, "pending") == len(model.pending) == 2  # A() and B(), sent at z:2: one arrow
    assert groups(root, "noncausal") == []
    # a pending arrow runs to the end of the lane, past the last step
    lane_end = float(groups(root, "lane")[0].get("x2"))
    last_tick = max(float(c.get("cx")) for g in groups(root, "tick") for c in g.iter(f"{SVG}circle"))
    for g in groups(root, "pending"):
        end_x = float(re.findall(r"[-\d.]+", g.find(f"{SVG}path").get("d"))[-2])
        assert end_x == pytest.approx(lane_end) and end_x > last_tick


@pytest.mark.parametrize("horizon", [3, 10, 20])
def test_spacetime_diagram_of_three_nodes_scales_to_horizon_20(horizon):
    """jcss2014 Alg. 1 on three nodes: one lane per node, a tick per step, an arrow per message."""
    (model,) = models_of(ALG1_LARGE, horizon, limit=1, max_delay=2)
    root = parse(formats.render(model, "svg"))
    assert len(groups(root, "lane")) == 3
    assert len(groups(root, "tick")) == 3 * (horizon + 1)
    assert messages_drawn(root) == len(model.messages) > 0
    assert messages_drawn(root, "pending") == len(model.pending)
    ticks = sorted({float(c.get("cx")) for g in groups(root, "tick") for c in g.iter(f"{SVG}circle")})
    # 100 px per step at every horizon: a long run is wider (the report scrolls it), not denser
    assert {round(b - a) for a, b in zip(ticks, ticks[1:])} == {100}
    assert root.get("viewBox") == f"0 0 {root.get('width')} {root.get('height')}"


def test_six_nodes_stay_apart(tmp_path):
    (tmp_path / "p.ded").write_text("p()@async(Y) :- go(), n(Y).\n")
    (tmp_path / "p.facts").write_text("n(a). n(b). n(c). n(d). n(e). n(f).\na { go(). }\nb { }\nc { }\nd { }\ne { }\nf { }\n")
    (model,) = models_of((tmp_path / "p.ded", tmp_path / "p.facts"), 2, limit=1)
    root = parse(formats.render(model, "svg"))
    lanes = sorted(float(g.get("y1")) for g in groups(root, "lane"))
    assert len(lanes) == 6 and min(b - a for a, b in zip(lanes, lanes[1:])) >= 100
    assert messages_drawn(root) == len(model.messages) == 18


def test_happens_before_dot_is_transitively_reduced():
    (model,) = models_of(FIG4, 2, max_delay=1)
    dot = formats.render(model, "dot")
    edges = re.findall(r'"(\w+:\d)" -> "(\w+:\d)"', dot)
    # A() z:0 → z:1 and A(), B() z:1 → z:2 coincide with local edges: only the two local edges remain
    assert edges == [("z:0", "z:1"), ("z:1", "z:2")]
    assert 'label="A()"' in dot and 'label="A(), B()"' in dot
    cyclic = formats.render(fig4_into_the_past(), "dot")
    assert f'color="{svg.RED}"' in cyclic and '"z:1" -> "z:0"' in cyclic


def test_happens_before_dot_of_two_nodes_keeps_only_covering_edges():
    for model in models_of((EXAMPLES / "jcss2014/alg1.ded", EXAMPLES / "jcss2014/alg1.facts"), 3, limit=30):
        dot = formats.render(model, "dot")
        edges = {tuple(e) for e in re.findall(r'"(\w+:\d)" -> "(\w+:\d)"', dot)}
        hb = {(f"{x}:{s}", f"{y}:{t}") for ((x, s), (y, t)) in model.happens_before}
        assert edges <= hb
        # the closure of the drawn edges is ≺ again
        assert inspect.closure(((e[0], e[1]) for e in edges)) == hb


class Counter(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: dict[str, int] = {}
        self.sources: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        self.sources += [v for k, v in attrs if k in ("src", "href") and v and not v.startswith("#")]


def test_html_report_is_self_contained():
    models = models_of(FIG4, 2)
    page = html.page(models, "Fig. 4 <causal>", ["a note & more"])
    counter = Counter()
    counter.feed(page)
    assert counter.tags["svg"] == len(models) == 8
    assert counter.tags["section"] == 8
    assert counter.sources == []  # no external resource, no script
    assert "script" not in counter.tags
    assert "<title>Fig. 4 &lt;causal&gt;</title>" in page and "a note &amp; more" in page
    for diagram in re.findall(r"<svg.*?</svg>", page, flags=re.S):
        parse(diagram)


def test_notebook_reprs():
    model = fig4_into_the_past()
    assert model._repr_svg_().startswith("<svg")
    assert model._repr_html_().count("<svg") == 1
    found = models_of(FIG4, 2)
    collection = inspect.Models(tuple(found), found[0].bounds, found[0].network)
    assert len(collection) == 8 and collection._repr_html_().count("<svg") == 8
    assert inspect.Models((), found[0].bounds, found[0].network)._repr_html_() == "<p>No models.</p>"


def run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def test_models_svg_writes_one_diagram_per_model(tmp_path):
    result = run("models", FIG4[0], "--input", FIG4[1], "--horizon", 2, "--svg", tmp_path / "out")
    assert result.exit_code == 0, result.output
    files = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert files == [f"model-{k}.svg" for k in range(1, 9)]
    for k in range(1, 9):
        parse((tmp_path / "out" / f"model-{k}.svg").read_text())


def test_report_command(tmp_path):
    out = tmp_path / "report.html"
    result = run("report", FIG4[0], "--input", FIG4[1], "--horizon", 2, "-s", "choice", "-n", 5, "-o", out)
    assert result.exit_code == 0, result.output
    assert out.read_text().count("<svg") == 5
    missing = run("report", FIG4[0], "-o", out)
    assert missing.exit_code == 2 and "needs --horizon T" in missing.output
    no_input = run("report", FIG4[0], "--horizon", 2, "-o", out)
    assert no_input.exit_code == 2 and "no input instance: give --input F" in no_input.output


def test_replay_command_agrees_and_refuses_a_model_into_the_past():
    ok = run("replay", FIG4[0], "--input", FIG4[1], "--horizon", 2, "--model", 3)
    assert ok.exit_code == 0, ok.output
    assert "transitions in a linear extension of happens-before" in ok.stdout
    assert "  0. z:0 receives nothing" in ok.stdout
    assert "replayed: the same trace" in ok.stdout
    past = fig4_into_the_past()
    bad = run("replay", FIG4[0], "--input", FIG4[1], "--horizon", 2, "-s", "choice", "--model", past.number)
    assert bad.exit_code == 1, bad.output
    assert "sends messages into the past" in bad.stdout and "stands for no run" in bad.stdout
    beyond = run("replay", FIG4[0], "--input", FIG4[1], "--horizon", 2, "--model", 9)
    assert beyond.exit_code == 2 and "--model 9: there are only 8 model(s)" in beyond.output


def test_readme_pictures_are_the_commands_output(tmp_path):
    """docs/fig4-*.svg are what the README's commands write (regenerate them if this fails)."""
    causal = run("models", FIG4[0], "--input", FIG4[1], "--horizon", 2, "--max-delay", 1, "-s", "causal", "--svg", tmp_path / "c")
    choice = run("models", FIG4[0], "--input", FIG4[1], "--horizon", 2, "-s", "choice", "-n", 0, "--svg", tmp_path / "h")
    assert causal.exit_code == choice.exit_code == 0
    docs = EXAMPLES.parent / "docs"
    assert (tmp_path / "c" / "model-1.svg").read_text() == (docs / "fig4-causal.svg").read_text()
    assert (tmp_path / "h" / "model-382.svg").read_text() == (docs / "fig4-choice.svg").read_text()
    assert "into the past: B()" in (docs / "fig4-choice.svg").read_text()
