"""The formats registry, and every format of `models --format` through the command line, read back.

JSON with json.loads, ITF with itf-py, ShiViz with its documented regular
expression, SVG with an XML parser, HTML with an HTML parser, DOT by its
edges. Then what the command line writes where: nothing in the current
folder unasked, tables not cut when piped, `--help` text that rich markup
does not eat.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import itf_py
import pytest
from typer.testing import CliRunner

from dedalus2asp import formats, inspect, pipeline
from dedalus2asp.questions import cron
from dedalus2asp.questions.models import ultimate_outputs
from dedalus2asp.bounds import Bounds, Mode, Network, Semantics
from dedalus2asp.cli import app
from dedalus2asp.inspect import explain
from dedalus2asp.lang import analysis, coordination
from dedalus2asp.pipeline import prepare
from dedalus2asp.runs import eventual, eventual_verify

from conftest import EXAMPLES
from test_shiviz import parse as parse_shiviz

FIG4 = (EXAMPLES / "tplp2016/fig4_noncausal.ded", EXAMPLES / "tplp2016/fig4.facts")
TWO_PC = (EXAMPLES / "tplp2016/ex3_2pc.ded", EXAMPLES / "tplp2016/ex3_2pc_yes.facts")
ALG1 = (EXAMPLES / "jcss2014/alg1.ded", EXAMPLES / "jcss2014/alg1.facts")
SVG = "{http://www.w3.org/2000/svg}"
RUNNER = CliRunner()
SCRIPT = shutil.which("dedalus2asp", path=str(Path(sys.executable).parent))


def models_of(files, horizon, semantics=Semantics.CAUSAL, limit=0, max_delay=None) -> inspect.Models:
    prepared = prepare(*files, Bounds(horizon, semantics, network=Network(max_delay=max_delay)))
    found = inspect.enumerate_models(prepared.compiled, limit, progress=False)
    return inspect.Models(tuple(found.models), prepared.compiled.bounds, prepared.instance.network, found.complete)


def models(*args):
    result = RUNNER.invoke(app, ["models", *map(str, args)])
    assert "Traceback" not in result.output, result.output
    return result


# ---------------------------------------------------------------------------
# the registry


def test_every_kind_of_value_has_its_formats():
    two_pc = models_of(TWO_PC, 3, limit=2, max_delay=1)
    model = two_pc[0]
    fig4 = models_of(FIG4, 2, max_delay=1)
    derivation = explain.explain(fig4[0], fig4[0].network[0], 2, ("T", ()))
    verdict = cron.analyse(fig4[0].program, prepare(*FIG4, fig4.bounds).instance, fig4.bounds)
    values = {
        "model": model, "models": two_pc, "derivation": derivation, "run": model.run(), "verdict": verdict,
        "report": analysis.report(model.program), "coordination": coordination.analyse(model.program),
        "eventual": eventual.explore(fig4[0].program, prepare(*FIG4, fig4.bounds).instance,
                                     Bounds(0, network=Network(max_delay=1), mode=Mode.EVENTUAL)),
        "eventual_verdict": eventual_verify.verify(
            *pipeline.load([EXAMPLES / "molly/simple_broadcast.ded", EXAMPLES / "molly/broadcast_assert.ded"])[:2],
            Bounds(0, network=Network("sync", loss_until=1), mode=Mode.EVENTUAL)),
        "ultimate": ultimate_outputs(fig4[0].program, prepare(*FIG4, fig4.bounds).instance,
                                     Bounds(0, network=Network(max_delay=1), mode=Mode.EVENTUAL), ("T",)),
    }
    for kind, value in values.items():
        assert formats.kind_of(value) == kind
        for fmt in formats.FORMATS[kind]:
            if fmt != "shiviz" or kind in ("model", "models"):
                assert formats.render(value, fmt), (kind, fmt)
    assert set(formats.FORMATS) == set(values) | {"count", "exploration", "summary"}
    assert formats.FORMATS["model"] == ("text", "json", "svg", "dot", "html", "itf", "shiviz")
    assert formats.FORMATS["models"] == ("text", "json", "html", "shiviz")


def test_an_unsupported_pair_says_which_formats_there_are():
    (model,) = models_of(FIG4, 2, max_delay=1)
    derivation = explain.explain(model, model.network[0], 2, ("T", ()))
    with pytest.raises(formats.UnsupportedFormat, match="no json rendering of a derivation: its formats are text, dot"):
        formats.render(derivation, "json")
    with pytest.raises(formats.UnsupportedFormat, match="no rendering of a list"):
        formats.render([model], "html")
    with pytest.raises(formats.UnsupportedFormat, match="needs kind="):
        formats.render({"traces": 1}, "text")
    assert formats.render({"traces": 1}, "json", kind="count") == '{\n  "traces": 1\n}\n'


def test_the_text_of_a_model_is_not_cut_without_a_width():
    (model,) = models_of(ALG1, 7, limit=1, max_delay=1)
    lines = formats.render(model, "text").splitlines()
    assert max(map(len, lines)) > 100 and "…" not in "".join(lines)
    assert any(line.count("R(v1, v2)") == 8 for line in lines)  # one cell per step 0..7, none wrapped
    narrow = formats.render(model, "text", width=60).splitlines()
    assert max(map(len, narrow)) <= 60


# ---------------------------------------------------------------------------
# models --format, read back


def test_format_text_is_the_default():
    result = models(*FIG4[:1], "--input", FIG4[1], "--horizon", 2, "--max-delay", 1)
    assert result.exit_code == 0
    assert result.stdout == models(*FIG4[:1], "--input", FIG4[1], "--horizon", 2, "--max-delay", 1, "--format", "text").stdout
    assert "┃ node ┃ step 0 ┃" in result.stdout and result.stdout.endswith("1 model(s) shown\n")


def test_format_json_and_its_alias(tmp_path):
    result = models(*FIG4[:1], "--input", FIG4[1], "--horizon", 1, "-s", "choice", "--format", "json")
    assert result.exit_code == 0
    document = json.loads(result.stdout)
    assert document["schema"] == formats.json.SCHEMA and len(document["models"]) == 10
    assert models(*FIG4[:1], "--input", FIG4[1], "--horizon", 1, "-s", "choice", "--json").stdout == result.stdout
    out = tmp_path / "fig4.json"
    written = models(*FIG4[:1], "--input", FIG4[1], "--horizon", 1, "-s", "choice", "-f", "json", "-o", out)
    assert written.stdout == "" and json.loads(out.read_text()) == document
    both = models(*FIG4[:1], "--input", FIG4[1], "--horizon", 1, "--json", "--format", "svg")
    assert both.exit_code == 2 and "--json is --format json" in both.output


def test_format_itf_one_trace_per_model(tmp_path):
    first = models(*TWO_PC[:1], "--input", TWO_PC[1], "--horizon", 3, "--max-delay", 1, "-n", 3, "-f", "itf")
    assert first.exit_code == 0 and "printed model 1 of 3" in first.stderr
    trace = itf_py.trace_from_json(json.loads(first.stdout))
    assert trace.meta["model"] == 1 and trace.meta["source"] == str(TWO_PC[0]) and len(trace.states) == 4
    out = models(*TWO_PC[:1], "--input", TWO_PC[1], "--horizon", 3, "--max-delay", 1, "-n", 3, "-f", "itf", "-o", tmp_path)
    assert out.exit_code == 0 and out.stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"model-{k}.itf.json" for k in (1, 2, 3)]
    for k in (1, 2, 3):
        trace = itf_py.trace_from_json(json.loads((tmp_path / f"model-{k}.itf.json").read_text()))
        assert trace.meta["model"] == k and trace.vars == ["step", "facts", "sent", "delivered", "in_flight"]


def test_format_shiviz_one_log_for_every_model():
    result = models(*TWO_PC[:1], "--input", TWO_PC[1], "--horizon", 3, "--max-delay", 1, "-n", 3, "-s", "causal", "-f", "shiviz")
    assert result.exit_code == 0
    executions = parse_shiviz(result.stdout)
    assert list(executions) == ["model 1", "model 2", "model 3"]
    assert all(len(events) == 3 * 4 for events in executions.values())  # a point per node and step


def test_format_shiviz_refuses_a_model_into_the_past():
    result = models(*FIG4[:1], "--input", FIG4[1], "--horizon", 1, "-s", "choice", "-n", 0, "-f", "shiviz")
    assert result.exit_code == 2 and result.stdout == ""
    assert "sends messages into the past" in result.stderr and "ShiViz draws causal models only" in result.stderr


def test_format_svg_and_dot_one_document_per_model(tmp_path):
    svg = models(*FIG4[:1], "--input", FIG4[1], "--horizon", 2, "-f", "svg")
    assert svg.exit_code == 0 and ET.fromstring(svg.stdout).tag == f"{SVG}svg"
    assert "printed model 1 of 8" in svg.stderr
    for fmt, suffix in (("svg", ".svg"), ("dot", ".dot")):
        folder = tmp_path / fmt
        assert models(*FIG4[:1], "--input", FIG4[1], "--horizon", 2, "-f", fmt, "-o", folder).exit_code == 0
        assert sorted(p.name for p in folder.iterdir()) == sorted(f"model-{k}{suffix}" for k in range(1, 9))
    for k in range(1, 9):
        ET.fromstring((tmp_path / "svg" / f"model-{k}.svg").read_text())
        dot = (tmp_path / "dot" / f"model-{k}.dot").read_text()
        assert dot.startswith("digraph happens_before {") and re.findall(r'"z:\d" -> "z:\d"', dot)


class Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)


def test_format_html_one_page_for_every_model():
    result = models(*FIG4[:1], "--input", FIG4[1], "--horizon", 2, "-s", "choice", "-n", 4, "-f", "html")
    assert result.exit_code == 0
    parser = Tags()
    parser.feed(result.stdout)
    assert parser.tags.count("svg") == parser.tags.count("section") == 4 and "script" not in parser.tags
    assert f"<title>{FIG4[0].name}: 4 choice model(s)</title>" in result.stdout


def test_no_model_exits_1_in_every_format(tmp_path):
    (tmp_path / "self.ded").write_text("m()@async(X) :- id(X).\n")
    (tmp_path / "self.facts").write_text("z { id(z). }\n")
    for fmt in ("json", "svg", "html"):
        result = models(tmp_path / "self.ded", "--input", tmp_path / "self.facts", "--horizon", 1, "--max-delay", 0, "-f", fmt)
        assert result.exit_code == 1 and "no model" in result.stderr
        if fmt == "json":
            assert json.loads(result.stdout)["models"] == []


# ---------------------------------------------------------------------------
# where commands write, and what a pipe receives


def test_report_of_a_directory_writes_into_it_not_into_the_current_folder(tmp_path, monkeypatch):
    run = tmp_path / "run"
    made = RUNNER.invoke(app, ["run", str(ALG1[0]), "--input", str(ALG1[1]), "--steps", "3", "--out", str(run)])
    assert made.exit_code == 0, made.output
    here = tmp_path / "elsewhere"
    here.mkdir()
    monkeypatch.chdir(here)
    result = RUNNER.invoke(app, ["report", str(run)])
    assert result.exit_code == 0, result.output
    assert (run / "report.html").is_file() and list(here.iterdir()) == []


def test_report_of_a_program_needs_the_page_to_write(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = RUNNER.invoke(app, ["report", str(FIG4[0]), "--input", str(FIG4[1]), "--horizon", "1"])
    assert result.exit_code == 2 and "needs -o FILE.html" in result.output
    assert list(tmp_path.iterdir()) == []


def piped(*args, cwd: Path) -> subprocess.CompletedProcess:
    """The real command with its standard output into a pipe, as `dedalus2asp ... | less` has it."""
    assert SCRIPT is not None, "the dedalus2asp script is not installed next to this interpreter: pip install -e ."
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    done = subprocess.run([SCRIPT, *map(str, args)], cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done


def test_tables_are_not_cut_when_piped(tmp_path):
    done = piped("models", ALG1[0], "--input", ALG1[1], "--horizon", 7, "--max-delay", 1, "-n", 1, cwd=tmp_path)
    assert "…" not in done.stdout
    assert any(line.count("R(v1, v2)") == 8 for line in done.stdout.splitlines())  # 8 steps, every cell whole
    deep = tmp_path / ("a-folder-with-a-long-name-" * 3) / "run"
    piped("run", ALG1[0], "--input", ALG1[1], "--steps", 3, "--out", deep, cwd=tmp_path)
    summary = piped("report", deep, cwd=tmp_path).stdout
    assert "…" not in summary and any(str(ALG1[0]) in line for line in summary.splitlines())


def test_batch_help_shows_the_manifest_tables():
    result = RUNNER.invoke(app, ["batch", "--help"])
    assert result.exit_code == 0 and "[[grid]]" in result.stdout and "[[job]]" in result.stdout
