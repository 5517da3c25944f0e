"""The HTML report in a real browser: headless Chromium (Debian's `chromium`, installed by `.ci/run`)
renders one spacetime diagram per model. The screenshot is kept in tests/artifacts/ (git-ignored).
A missing browser fails this test: it does not skip."""

from __future__ import annotations

import shutil
import subprocess

from typer.testing import CliRunner

from dedalus2asp.cli import app

from conftest import EXAMPLES, ROOT

ARTIFACTS = ROOT / "tests" / "artifacts"
FIG4 = (EXAMPLES / "tplp2016/fig4_noncausal.ded", EXAMPLES / "tplp2016/fig4.facts")


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    assert found, "chromium is not installed: `apt-get install -y chromium` (.ci/run does it)"
    return found


def headless(browser: str, *args: str) -> subprocess.CompletedProcess:
    command = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def test_report_renders_one_diagram_per_model_in_chromium():
    browser = chromium()
    ARTIFACTS.mkdir(exist_ok=True)
    report = ARTIFACTS / "fig4-choice-report.html"
    result = CliRunner().invoke(
        app,
        ["report", str(FIG4[0]), "--input", str(FIG4[1]), "--horizon", "2", "-s", "choice", "-n", "6", "-o", str(report)],
    )
    assert result.exit_code == 0, result.output

    dom = headless(browser, "--dump-dom", report.as_uri())
    assert dom.returncode == 0, dom.stderr
    # the DOM as the browser built it: six inline SVG diagrams, with their lanes and message arrows
    assert dom.stdout.count("<svg") == 6
    assert dom.stdout.count('class="lane"') == 6
    assert dom.stdout.count('<section class="model"') == 6
    assert "<script" not in dom.stdout

    screenshot = ARTIFACTS / "fig4-choice-report.png"
    screenshot.unlink(missing_ok=True)
    shot = headless(browser, f"--screenshot={screenshot}", "--window-size=1200,1600", report.as_uri())
    assert shot.returncode == 0, shot.stderr
    assert screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert screenshot.stat().st_size > 10_000  # a page with drawings, not a blank one


# -- the pictures' defects, measured in the browser -------------------------------------------------------------

MEASURE = """<script>
const found = [];
for (const svg of document.querySelectorAll("svg.spacetime")) {
  const caption = svg.querySelector("text.caption").getBBox();
  const heads = [];
  for (const path of svg.querySelectorAll("g.message path[marker-end]")) {
    const length = path.getTotalLength(), tip = path.getPointAtLength(length), back = path.getPointAtLength(Math.max(0, length - 6));
    heads.push({id: path.closest("g.message").id, x: tip.x, y: tip.y,
                angle: Math.atan2(tip.y - back.y, tip.x - back.x) * 180 / Math.PI});
  }
  const outputs = [...svg.querySelectorAll("g.output text")].map(t => {
    const box = t.getBBox();
    return {text: t.textContent, right: box.x + box.width};
  });
  found.push({name: svg.dataset.name, width: svg.viewBox.baseVal.width, captionRight: caption.x + caption.width,
              heads, outputs, labels: [...svg.querySelectorAll("g.label text")].map(t => t.textContent)});
}
document.getElementById("measures").textContent = JSON.stringify(found);
</script>"""


def measured(browser: str, drawings: dict[str, str], folder) -> dict[str, dict]:
    """Each SVG drawing laid out by Chromium: its caption's right edge, its arrowheads (tip and direction), its
    output texts and its labels."""
    import json
    import re

    inline = "".join(re.sub(r"<svg ", f'<svg data-name="{name}" ', svg, count=1) for name, svg in drawings.items())
    page = folder / "measure.html"
    page.write_text(f'<!DOCTYPE html><html><body>{inline}<pre id="measures"></pre>{MEASURE}</body></html>',
                    encoding="utf-8")
    dom = headless(browser, "--dump-dom", page.as_uri())
    assert dom.returncode == 0, dom.stderr
    text = re.search(r'<pre id="measures">(.*?)</pre>', dom.stdout, re.S)[1]
    return {d["name"]: d for d in json.loads(text.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">"))}


def hidden_heads(heads: list[dict]) -> list[tuple[str, str]]:
    """Pairs of arrows whose heads lie on each other: the same tip, the same direction (within 12°)."""
    return [(a["id"], b["id"]) for i, a in enumerate(heads) for b in heads[i + 1:]
            if abs(a["x"] - b["x"]) < 2 and abs(a["y"] - b["y"]) < 2
            and abs((a["angle"] - b["angle"] + 180) % 360 - 180) < 12]


def test_the_diagrams_show_every_arrowhead_their_whole_title_and_the_outputs_asked(tmp_path):
    import lassos
    from dedalus2asp import formats

    browser = chromium()
    program = tmp_path / "blink.ded"  # no .output: the outputs are asked with --output-relations
    program.write_text("on()@next :- not on(), id(_).\nlit(X) :- id(X).\nlit(X)@next :- lit(X).\n", encoding="utf-8")
    facts = tmp_path / "blink.facts"
    facts.write_text("a { id(a). }\n", encoding="utf-8")
    ask = ["models", str(program), "--input", str(facts), "--eventual", "--delivery", "sync", "--output-relations", "lit"]
    assert "ultimately: lit(a)" in CliRunner().invoke(app, ask).output  # what the text lists, the picture must draw
    asked = CliRunner().invoke(app, [*ask, "--format", "svg", "-o", str(tmp_path / "asked")])
    assert asked.exit_code == 0, asked.output
    drawings = {
        "sync": formats.render(lassos.solved_molly(), "svg"),  # arrows that wrap under --delivery sync
        "choice": formats.render(lassos.solved_fig4(), "svg"),  # a bundle of A() and B(); arcs that wrap
        "asked": (tmp_path / "asked" / "model-1.svg").read_text(encoding="utf-8"),
    }
    found = measured(browser, drawings, tmp_path)
    for name, drawing in found.items():
        assert drawing["captionRight"] <= drawing["width"], f"{name}: the title is cut off at the right edge"
        assert hidden_heads(drawing["heads"]) == [], f"{name}: an arrowhead lies on another one"
        assert all(o["right"] <= drawing["width"] for o in drawing["outputs"]), name
    assert len(found["sync"]["heads"]) == 9  # every arrow that arrives has its head (the lost one has a cross)
    assert [o["text"] for o in found["asked"]["outputs"]] == ["ultimately: lit(a)"]
    assert "A(), B()" in found["choice"]["labels"] and not any(label.startswith("×") for label in found["choice"]["labels"])


def test_the_verify_page_of_a_lasso_counterexample_says_its_own_loop(tmp_path):
    import json

    browser = chromium()
    retry = [str(EXAMPLES / "molly/retry_broadcast.ded"), str(EXAMPLES / "molly/broadcast_assert.ded")]
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["verify", *retry, "--delivery", "sync", "--eff", "3", "--crashes", "1", "--eventual",
                                      "--out", str(out)])
    assert result.exit_code == 1, result.output
    runs = json.loads((out / "runs.json").read_text(encoding="utf-8"))["runs"]
    failure = next(r for r in runs if r["status"] == "failure")
    # the counterexample lasso has its own steps (0..L+P-1), fewer than K: its end of time is its own
    assert failure["failureSpec"]["eot"] == failure["loop_start"] + failure["period"]
    dom = headless(browser, "--dump-dom", (out / "index.html").as_uri())
    assert dom.returncode == 0, dom.stderr
    assert "loop_start" not in dom.stdout
    last = failure["loop_start"] + failure["period"] - 1
    assert f"steps {failure['loop_start']}..{last} repeat forever" in dom.stdout or f"step {last} repeats" in dom.stdout
