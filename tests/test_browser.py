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
