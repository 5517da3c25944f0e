"""A bounded model renders in every format byte for byte as it did before lasso models were drawn (issue #29
item 5): golden files in tests/golden/formats, written before that change (`UPDATE_GOLDEN=1` rewrites them).
The SVG diagrams have their own golden files (tests/test_fault_diagrams.py); here the text, JSON, DOT, ITF and
HTML of the same models, one with faults, and runs.json and index.html of a `verify --out` verdict."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from dedalus2asp import formats
from dedalus2asp.bounds import Bounds, Network
from dedalus2asp.formats.molly import index_html, runs_document
from dedalus2asp.questions.verify import fault_free_run, verify

from test_fault_diagrams import BROADCAST, GOLDEN_CASES, models_of
from test_verify import load

GOLDEN = Path(__file__).parent / "golden" / "formats"
MODEL_FORMATS = ("text", "json", "dot", "itf", "html")

CASES = {case: model for case, model in GOLDEN_CASES.items() if case != "alg1-three-nodes"}  # its SVG golden suffices
CASES["broadcast-faults"] = lambda: next(
    m for m in models_of(BROADCAST, None, 2, network=Network(delivery="sync", loss_until=1, crashes=1, crash_times="any"))
    if len(m.lost) == 1 and m.crashes
)


def check(name: str, drawn: str) -> None:
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(drawn, encoding="utf-8")
    assert drawn == path.read_text(encoding="utf-8"), f"{name} changed"


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_bounded_model_renders_as_before(case):
    model = CASES[case]()
    assert not model.is_lasso
    for fmt in MODEL_FORMATS:
        check(f"{case}.{fmt}", formats.render(model, fmt))


def test_verify_out_of_a_bounded_verdict_is_as_before(tmp_path):
    """runs.json and index.html of the one-shot broadcast under one omission."""
    program, instance = load(tmp_path, "one-shot")
    bounds = Bounds(3, network=Network("sync", loss_until=1))
    document = runs_document(verify(program, instance, bounds), fault_free_run(program, instance, bounds))
    assert all("loop_start" not in run and "period" not in run for run in document["runs"])
    check("one-shot.runs.json", json.dumps(document, indent=1, sort_keys=True) + "\n")
    check("one-shot.index.html", index_html(document))
