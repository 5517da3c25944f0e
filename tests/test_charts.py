"""Line charts of reports: round ticks on both axes, integers for integer data, a log scale for data that span."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

from hypothesis import given, strategies as st

from dedalus2asp.formats.charts import Chart, Report, Section, log_ticks, page, svg_lines, ticks

SVG = "{http://www.w3.org/2000/svg}"


def tick_labels(svg: str) -> dict[str, list[str]]:
    """The tick labels of a chart's x and y axes, as drawn."""
    root = ET.fromstring(svg)
    return {axis: [t.text for t in root.iter(f"{SVG}text") if t.get("class") == f"{axis}tick"] for axis in ("x", "y")}


def number(label: str) -> float:
    return float(label.replace(",", ""))


def test_steps_and_counts_get_integer_ticks():
    """A run's facts per step (steps 0..11, counts 2..6): four to eight whole-number ticks on each axis."""
    series = {"T": [(s, min(6, 2 + s)) for s in range(12)], "R": [(s, 2) for s in range(12)]}
    labels = tick_labels(svg_lines(Chart("facts per step", "step", "facts", series)))
    for axis in ("x", "y"):
        assert 4 <= len(labels[axis]) <= 8, labels
        assert all(label.lstrip("-").isdigit() for label in labels[axis]), labels
    assert labels["x"] == ["0", "2", "4", "6", "8", "10", "12"]
    assert labels["y"] == ["0", "1", "2", "3", "4", "5", "6"]


def test_few_horizons_still_get_four_integer_ticks():
    """Horizons 1..3 (the batch summary's x axis): no fractional horizon, at least four ticks."""
    labels = tick_labels(svg_lines(Chart("seconds", "horizon", "seconds", {"a": [(1, 0.21), (2, 0.2), (3, 0.47)]})))
    assert labels["x"] == ["0", "1", "2", "3"]
    assert labels["y"] == ["0.0", "0.1", "0.2", "0.3", "0.4", "0.5"]


def test_counts_that_span_orders_of_magnitude_are_on_a_log_scale():
    series = {"choice": [(1, 37), (2, 1045), (3, 52801)], "causal": [(1, 1), (2, 1), (3, 1)]}
    svg = svg_lines(Chart("models by horizon", "horizon", "models", series))
    labels = tick_labels(svg)
    assert [number(label) for label in labels["y"]] == [1, 10, 100, 1000, 10_000, 100_000]
    assert "(log scale)" in svg
    # asked for a log scale, a count of 0 sits on the lowest tick rather than breaking the chart
    zero = tick_labels(svg_lines(Chart("m", "horizon", "models", {"a": [(1, 0), (2, 3), (3, 7)]}, log=True)))
    assert [number(label) for label in zero["y"]] == [1, 2, 5, 10]


def test_a_report_page_draws_its_charts():
    chart = Chart("messages per step", "step", "messages", {"sent": [(0, 4), (1, 8)]})
    html = page(Report("run", [Section("per step", ("step", "sent"), [(0, 4), (1, 8)], (chart,))]))
    assert html.count("<svg") == 1 and "<td>8</td>" in html


@given(st.floats(-1e6, 1e6), st.floats(1e-3, 1e6), st.booleans())
def test_ticks_are_round_and_cover_the_range(low, span, integer):
    if integer:
        low, span = math.floor(low), max(0, math.ceil(span))
    high = low + span
    axis = ticks(low, high, integer)
    values = axis.ticks
    assert 4 <= len(values) <= 8
    step = values[1] - values[0]
    assert values[0] <= low + 1e-6 * step and values[-1] >= high - 1e-6 * step  # to rounding
    mantissa = step / 10 ** math.floor(math.log10(step) + 1e-9)
    assert any(math.isclose(mantissa, m, rel_tol=1e-6) for m in (1, 2, 5))
    assert all(math.isclose(b - a, step, rel_tol=1e-6, abs_tol=1e-9) for a, b in zip(values, values[1:]))
    if integer:
        assert all(v.is_integer() for v in values) and step >= 1


@given(st.floats(1e-6, 1e12), st.floats(1.0, 1e12))
def test_log_ticks_are_powers_of_ten_that_cover_the_range(low, factor):
    high = low * factor
    axis = log_ticks(low, high)
    assert axis.log and 4 <= len(axis.ticks) <= 8
    assert axis.ticks[0] <= low * (1 + 1e-9) and axis.ticks[-1] >= high * (1 - 1e-9)
