"""Every rendering of a result, chosen through one registry: `render(value, format, **options)`.

The value's kind and the format's name choose a writer, a function that
returns the text of a document:

| kind | value | formats |
| --- | --- | --- |
| `model` | `inspect.Model` | text, json, svg, dot, html, itf, shiviz |
| `models` | `inspect.Models` (the models of one question) | text, json, html, shiviz |
| `verdict` | `cron.Verdict` | text, json |
| `derivation` | `inspect.explain.Derivation` | text, dot |
| `run` | `inspect.run.Run` | text |
| `report` | `lang.analysis.Report` (`check`) | text, json |
| `coordination` | `lang.coordination.Coordination` (`check --graph`) | text, json, dot, svg, html |
| `count` | the dictionary of `asp.solve.count` | text, json |
| `exploration` | the summary of `explore` (a dictionary) | text, json |
| `eventual` | `runs.eventual.Eventual`, what `explore --eventual` found | text, json |
| `ultimate` | `questions.models.Ultimate`, what `models --eventual` found | text, json, html |
| `eventual_verdict` | `runs.eventual_verify.EventualVerdict`, what `explore --eventual --pre/--post` found | text, json |
| `summary` | `charts.Report`, the summary of a `run` or `batch` directory | text, html |

The writers live in one module per format: `text` (for a reader, rich tables),
`json` (the trace document of docs/trace-schema.md), `svg` (the spacetime
diagram, docs/diagrams.md), `dot` (happens-before, lineage), `html` (the
report page, notebook fragments), `itf` and `shiviz` (docs/exports.md), `dependency` (the
dependency graph of `check --graph`, docs/coordination.md);
`charts` draws the summaries of result directories; `molly` writes runs.json
and index.html of `verify --out DIR`, `lineage` the lineages on that page.
svg, dot and itf documents hold one model each: a set of models is written
model by model (`models --format svg -o DIR`). A lasso model (the eventual mode)
renders in every model format with its loop: which steps repeat, the step after
the last being the loop's first again, and its ultimate outputs (docs/inspecting.md).

Options a writer takes: `width` and `color` (text of models, verdicts, summaries),
`fragment` (html: a notebook fragment instead of a page), `program` and
`input` (html of models: the files they come from), `source` (itf), `bounds`
(text of a count or an exploration), `program` (text of a check report, html of a
coordination). A
dictionary has no kind of its own: `render(result, "text", kind="count", bounds=b)`.

The formats read the values through their attributes and import the values'
modules only for type checking, with one exception: this module registers
`render` in `inspect.model.NOTEBOOK`, so that a model shows itself in a notebook
through this registry (the formats stand above `inspect`, which does not
import them).
"""

from __future__ import annotations

from typing import Callable

from ..inspect.model import NOTEBOOK
from . import charts, dependency, dot, html, itf, json, shiviz, svg, text


class UnsupportedFormat(ValueError):
    """A value, or a format, that has no writer."""


KINDS = {
    "dedalus2asp.inspect.model.Model": "model",
    "dedalus2asp.inspect.model.Models": "models",
    "dedalus2asp.questions.cron.Verdict": "verdict",
    "dedalus2asp.inspect.explain.Derivation": "derivation",
    "dedalus2asp.inspect.run.Run": "run",
    "dedalus2asp.lang.analysis.Report": "report",
    "dedalus2asp.lang.coordination.Coordination": "coordination",
    "dedalus2asp.formats.charts.Report": "summary",
    "dedalus2asp.runs.eventual.Eventual": "eventual",
    "dedalus2asp.questions.models.Ultimate": "ultimate",
    "dedalus2asp.runs.eventual_verify.EventualVerdict": "eventual_verdict",
}
"""The kind of each class of values, by its qualified name."""

WRITERS: dict[tuple[str, str], Callable[..., str]] = {
    ("model", "text"): text.model,
    ("model", "json"): json.model,
    ("model", "svg"): svg.spacetime_svg,
    ("model", "dot"): dot.happens_before,
    ("model", "html"): html.model,
    ("model", "itf"): itf.itf_json,
    ("model", "shiviz"): lambda model: shiviz.shiviz_log([model]),
    ("models", "text"): text.models,
    ("models", "json"): json.models,
    ("models", "html"): html.models,
    ("models", "shiviz"): shiviz.shiviz_log,
    ("verdict", "text"): text.verdict,
    ("verdict", "json"): json.as_dict,
    ("derivation", "text"): text.derivation,
    ("derivation", "dot"): dot.lineage,
    ("run", "text"): text.run,
    ("report", "text"): text.report,
    ("report", "json"): json.as_dict,
    ("coordination", "text"): lambda c: "".join(line + "\n" for line in text.coordination(c)),
    ("coordination", "json"): json.as_dict,
    ("coordination", "dot"): dependency.dot,
    ("coordination", "svg"): dependency.svg,
    ("coordination", "html"): dependency.html,
    ("count", "text"): text.count,
    ("count", "json"): json.dumps,
    ("exploration", "text"): text.exploration,
    ("exploration", "json"): json.dumps,
    ("eventual", "text"): text.eventual,
    ("eventual", "json"): json.as_dict,
    ("ultimate", "text"): text.ultimate,
    ("ultimate", "json"): json.as_dict,
    ("ultimate", "html"): html.ultimate,
    ("eventual_verdict", "text"): text.eventual_verdict,
    ("eventual_verdict", "json"): json.as_dict,
    ("summary", "text"): text.summary,
    ("summary", "html"): charts.page,
}

FORMATS: dict[str, tuple[str, ...]] = {kind: tuple(f for (k, f) in WRITERS if k == kind) for kind, _ in WRITERS}
"""The formats of each kind of value, e.g. FORMATS["derivation"] == ("text", "dot")."""

SUFFIXES = {"text": ".txt", "json": ".json", "svg": ".svg", "dot": ".dot", "html": ".html", "itf": ".itf.json", "shiviz": ".log"}
"""The file name ending of a document in each format."""


def kind_of(value) -> str:
    """The kind of `value` (see the table above), from its class."""
    for cls in type(value).__mro__:
        name = f"{cls.__module__}.{cls.__qualname__}"
        if name in KINDS:
            return KINDS[name]
    raise UnsupportedFormat(
        f"no rendering of a {type(value).__name__}: the registry renders {', '.join(FORMATS)} "
        "(a dictionary needs kind=, a list of models an inspect.Models)"
    )


def render(value, fmt: str, kind: str | None = None, **options) -> str:
    """`value` as a document in format `fmt`: the writer registered for (its kind, `fmt`) applied with `options`.

    Raises UnsupportedFormat for a kind that has no such format; a writer
    may raise ValueError for a value it cannot write (a ShiViz log of a model
    that sends messages into the past).
    """
    kind = kind or kind_of(value)
    if kind not in FORMATS:
        raise UnsupportedFormat(f"no kind of value is called {kind!r}: the kinds are {', '.join(FORMATS)}")
    writer = WRITERS.get((kind, fmt))
    if writer is None:
        raise UnsupportedFormat(f"no {fmt} rendering of a {kind}: its formats are {', '.join(FORMATS[kind])}")
    return writer(value, **options)


NOTEBOOK["render"] = render
