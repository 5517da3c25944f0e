"""Results as JSON for programs: the versioned trace document, and the dictionaries of the other results.

A set of models is the document of docs/trace-schema.md (`dedalus2asp/trace/1`):
the bounds of the question, the nodes, whether the enumeration finished, and
every model as `Model.as_dict` gives it (trace, messages with their sending
rules and whether they go into the past, happens-before, outputs). One model
is that document with one model. A CRON verdict and a check report are their
`as_dict()`; a count and an exploration are already dictionaries.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..bounds import Bounds
    from ..inspect.model import Model, Models

SCHEMA = "dedalus2asp/trace/1"
"""The version of the trace document (docs/trace-schema.md)."""


def document(models: Models) -> dict:
    """Models as the versioned JSON document of docs/trace-schema.md."""
    return trace_document(models, models.bounds, models.network, models.complete)


def trace_document(models, bounds: Bounds, network, complete: bool = True) -> dict:
    """The document of docs/trace-schema.md for `models`, found within `bounds` on `network`."""
    return {
        "schema": SCHEMA,
        **bounds.as_dict(),
        "nodes": [str(n) for n in network],
        "complete": complete,
        "models": [m.as_dict() for m in models],
    }


def dumps(value) -> str:
    return json.dumps(value, indent=2) + "\n"


def models(models: Models) -> str:
    return dumps(document(models))


def model(model: Model) -> str:
    return dumps(trace_document([model], model.bounds, model.network))


def as_dict(value) -> str:
    """A value that says what it is as a dictionary: a CRON verdict, a check report."""
    return dumps(value.as_dict())
