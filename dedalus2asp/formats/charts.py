"""Reports of result directories: titled sections of tables and line charts, as Rich tables or one HTML page.

A `Report` is a title and `Section`s; a section is a table (columns, rows)
and the `Chart`s drawn from it. `tables` prints a report with Rich; `page`
writes it as one self-contained HTML page, each chart an SVG (`svg_lines`).

A chart's axes are labelled at round numbers (`ticks`): 1, 2 or 5 times a
power of ten apart, four to eight of them, the axis stretched to the first
and last; integers only on an axis whose values are all integers (steps,
horizons, counts); on a log scale, at powers of ten (and 2 and 5 times them
when the values span two decades or fewer). A chart is drawn on a log scale when its
positive values span two orders of magnitude or more (`Chart.log` None), or
when asked.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, field
from typing import Sequence

Point = tuple[float, float]

COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf")
FEWEST_TICKS, MOST_TICKS = 4, 8
LOG_SPAN = 100.0  # the ratio of the largest to the smallest positive value from which a chart is drawn on a log scale


@dataclass(frozen=True)
class Chart:
    """A line chart: one line per named series of (x, y) points; `log`: a log y axis (None: when the values span)."""

    title: str
    xlabel: str
    ylabel: str
    series: dict[str, list[Point]]
    log: bool | None = None


@dataclass(frozen=True)
class Section:
    """A table with a heading, and the charts drawn from it."""

    heading: str
    columns: tuple[str, ...]
    rows: list[tuple]
    charts: tuple[Chart, ...] = ()


@dataclass(frozen=True)
class Report:
    title: str
    sections: list[Section] = field(default_factory=list)


# ---------------------------------------------------------------------------
# Ticks


@dataclass(frozen=True)
class Axis:
    """An axis: its ticks (the first and last are its ends), their labels, and whether it is a log scale."""

    ticks: list[float]
    labels: list[str]
    log: bool = False

    def position(self, value: float) -> float:
        """Where `value` falls between the ends, 0 to 1 (on a log scale, a value ≤ 0 falls on the lower end)."""
        low, high = self.ticks[0], self.ticks[-1]
        if self.log:
            value, low, high = math.log10(max(value, low)), math.log10(low), math.log10(high)
        return (value - low) / (high - low)


def integral(values: Sequence[float]) -> bool:
    """Whether every value is a whole number (steps, horizons, counts): such an axis gets whole-number ticks."""
    return all(float(v).is_integer() for v in values)


def ticks(low: float, high: float, integer: bool = False) -> Axis:
    """Four to eight round ticks covering [low, high], 1, 2 or 5 times a power of ten apart (whole steps when `integer`).

    The step is the smallest such that at most eight ticks cover the range; as
    1, 2 and 5 grow by at most 2.5 at a time, that leaves at least four. A
    narrow integer range is widened to three steps of one.
    """
    if integer and high - low < FEWEST_TICKS - 1:
        low = 0 if 0 <= low and high < FEWEST_TICKS - 1 else high - (FEWEST_TICKS - 1)
        high = low + FEWEST_TICKS - 1
    elif high <= low:
        low, high = (low - 1, high + 1) if low else (0, 1)
    power = math.floor(math.log10((high - low) / MOST_TICKS))
    while True:
        for m in (1, 2, 5):
            step = m * 10.0**power
            if integer and step < 1:
                continue
            first = math.floor(low / step + 1e-9)
            last = max(first + 1, math.ceil(high / step - 1e-9))
            if last - first + 1 <= MOST_TICKS:
                digits = 0 if integer else max(0, -power)
                values = [round(k * step, digits) for k in range(first, last + 1)]
                return Axis(values, [f"{v:,.{digits}f}" for v in values])
        power += 1


def log_ticks(low: float, high: float) -> Axis:
    """Ticks at the powers of ten covering [low, high] (both > 0): with 2 and 5 times them over two decades or
    fewer, every k-th power over more than seven."""
    first, last = math.floor(math.log10(low) + 1e-9), math.ceil(math.log10(high) - 1e-9)
    last = max(last, first + 1)
    decades = last - first
    if decades <= 2:
        values = [m * 10.0**p for p in range(first, last) for m in (1, 2, 5)] + [10.0**last]
    else:
        every = math.ceil(decades / (MOST_TICKS - 1))
        last = first + every * math.ceil(decades / every)
        values = [10.0**p for p in range(first, last + 1, every)]
    return Axis(values, [power_label(v) for v in values], log=True)


def power_label(value: float) -> str:
    """0.01, 20, 50,000 as they are; below 0.001, and a million and above, as powers of ten (2·10⁶)."""
    if 1e-3 <= value < 1e6:
        return f"{value:,g}"
    exponent = math.floor(math.log10(value) + 1e-9)
    mantissa = round(value / 10.0**exponent)
    power = "10" + str(exponent).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))
    return power if mantissa == 1 else f"{mantissa}·{power}"


def y_axis(chart: Chart, values: list[float]) -> Axis:
    """The chart's y axis: a log scale when asked, or when positive values span `LOG_SPAN` or more; else linear from 0."""
    positive = [v for v in values if v > 0]
    spans = bool(positive) and max(positive) / min(positive) >= LOG_SPAN
    if (chart.log is None and spans and len(positive) == len(values)) or (chart.log and positive):
        return log_ticks(min(positive), max(positive))
    return ticks(min(0.0, min(values)), max(values), integral(values))


# ---------------------------------------------------------------------------
# Renderings


def svg_lines(chart: Chart) -> str:
    """A self-contained SVG line chart: one polyline with points per series, both axes with round ticks, a legend."""
    width, height, left, bottom, top, right = 560, 300, 60, 40, 30, 160
    points = [p for ps in chart.series.values() for p in ps] or [(0, 0)]
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    horizontal, vertical = ticks(min(xs), max(xs), integral(xs)), y_axis(chart, ys)

    def sx(x: float) -> float:
        return left + horizontal.position(x) * (width - left - right)

    def sy(y: float) -> float:
        return height - bottom - vertical.position(y) * (height - bottom - top)

    e = html.escape
    middle = (top + height - bottom) / 2
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="11">',
           f'<text x="{width / 2 - right / 2}" y="16" text-anchor="middle" font-size="13">{e(chart.title)}</text>']
    for x, label in zip(horizontal.ticks, horizontal.labels):
        out.append(f'<line class="grid" x1="{sx(x):.1f}" y1="{top}" x2="{sx(x):.1f}" y2="{height - bottom + 4}" stroke="#ddd"/>')
        out.append(f'<text class="xtick" x="{sx(x):.1f}" y="{height - bottom + 16}" text-anchor="middle">{label}</text>')
    for y, label in zip(vertical.ticks, vertical.labels):
        out.append(f'<line class="grid" x1="{left - 4}" y1="{sy(y):.1f}" x2="{width - right}" y2="{sy(y):.1f}" stroke="#ddd"/>')
        out.append(f'<text class="ytick" x="{left - 6}" y="{sy(y) + 4:.1f}" text-anchor="end">{label}</text>')
    ylabel = chart.ylabel + (" (log scale)" if vertical.log else "")
    out += [f'<line x1="{left}" y1="{height - bottom}" x2="{width - right}" y2="{height - bottom}" stroke="black"/>',
            f'<line x1="{left}" y1="{top}" x2="{left}" y2="{height - bottom}" stroke="black"/>',
            f'<text x="{(left + width - right) / 2}" y="{height - 6}" text-anchor="middle">{e(chart.xlabel)}</text>',
            f'<text x="14" y="{middle}" transform="rotate(-90 14 {middle})" text-anchor="middle">{e(ylabel)}</text>']
    for k, (name, ps) in enumerate(sorted(chart.series.items())):
        color = COLORS[k % len(COLORS)]
        ps = sorted(ps)
        out.append(f'<polyline fill="none" stroke="{color}" points="{" ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in ps)}"/>')
        out += [f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="2.5" fill="{color}"><title>{e(name)}: {x:g}, {y:g}</title></circle>' for x, y in ps]
        out.append(f'<text x="{width - right + 10}" y="{top + 14 * k + 10}" fill="{color}">{e(name)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def page(report: Report) -> str:
    """The report as one self-contained HTML page: per section, its charts (SVG), then its table."""
    e = html.escape
    body = [f"<h1>{e(report.title)}</h1>"]
    for section in report.sections:
        body.append(f"<h2>{e(section.heading)}</h2>")
        body += [svg_lines(chart) for chart in section.charts]
        body.append("<table><tr>" + "".join(f"<th>{e(str(c))}</th>" for c in section.columns) + "</tr>")
        body += ["<tr>" + "".join(f"<td>{e('' if v is None else str(v))}</td>" for v in r) + "</tr>" for r in section.rows]
        body.append("</table>")
    style = "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;font-size:12px}"
    return f"<!doctype html><html><head><meta charset='utf-8'><title>{e(report.title)}</title><style>{style}</style></head><body>{''.join(body)}</body></html>\n"


def tables(report: Report, console) -> None:
    """The report's title and tables on a Rich console (the charts are in the HTML page only)."""
    from rich.table import Table

    console.print(report.title)
    for section in report.sections:
        table = Table(title=section.heading)
        for c in section.columns:
            table.add_column(c)
        for r in section.rows:
            table.add_row(*("" if v is None else str(v) for v in r))
        console.print(table)
