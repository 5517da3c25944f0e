"""Manifests: the jobs of a batch, read from TOML, checked, and grids expanded.

A **manifest** lists jobs, one by one (`[[job]]`, scalar values) or as grids
(`[[grid]]`, lists of values: every combination is a job):

    root = "../.."                  # paths are relative to the manifest's folder joined with root
    [defaults]                      # optional, for every job
    timeout = 60
    [[grid]]
    program = ["examples/jcss2014/alg3.ded"]
    input = ["examples/jcss2014/alg3.facts"]  # optional for a located or Molly program with its own facts
    dialect = "auto"                # auto | transparent | located | molly
    task = ["count", "cron"]        # count | cron | models | run
    semantics = ["causal", "choice"]
    horizon = [2, 4]

A job's id is a hash of its parameters, so the same manifest names the same
jobs. A job's horizon, semantics, encoding and delay bound make its `Bounds`
once, here; a bad value is a manifest error. A `cron` job analyses both
semantics itself (jcss2014), so its semantics is left out: one job, not one
per semantics.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..bounds import Bounds, Encoding, Network, Semantics
from ..lang.diagnostics import Diagnostic, DiagnosticError
from ..runs import engine

TASKS = ("count", "cron", "models", "run")
DEFAULTS: dict[str, Any] = {
    "semantics": "causal-finite",
    "encoding": "fast",
    "dialect": "auto",  # auto | transparent | located | molly (parser.parse_source)
    "horizon": 2,
    "max_delay": None,
    "steps": None,  # run: steps 0..steps-1; default horizon + 1
    "schedule": "sync",
    "seed": 0,
    "models": 10,  # models: how many (0: all)
    "timeout": 60.0,
}
KEYS = ("program", "input", "task", *DEFAULTS)
DIALECTS = ("auto", "transparent", "located", "molly")


@dataclass(frozen=True)
class Job:
    """One job: its id, its parameters as the manifest gives them, the resolved files, and its bounds."""

    id: str
    parameters: dict
    program: str
    input: str | None  # None: a located or Molly program that carries its own facts
    bounds: Bounds  # from horizon, semantics, encoding and max_delay (cron: both semantics, whatever this one)


def _manifest_error(path: Path, message: str) -> DiagnosticError:
    return DiagnosticError([Diagnostic("manifest", message, filename=str(path))])


def _check_values(path: Path, where: str, params: dict) -> None:
    unknown = sorted(set(params) - set(KEYS))
    if unknown:
        raise _manifest_error(path, f"{where}: unknown key(s) {', '.join(unknown)} (known: {', '.join(KEYS)})")
    if not params.get("program"):
        raise _manifest_error(path, f"{where}: 'program' is missing")
    choices = {"task": TASKS, "semantics": [s.value for s in Semantics], "encoding": [e.value for e in Encoding],
               "schedule": engine.SCHEDULES, "dialect": DIALECTS}
    for key, allowed in choices.items():
        if params.get(key) is not None and params[key] not in allowed:
            raise _manifest_error(path, f"{where}: {key} = {params[key]!r} is not one of {', '.join(allowed)}")
    if "task" not in params:
        raise _manifest_error(path, f"{where}: 'task' is missing ({' | '.join(TASKS)})")


def _bounds(path: Path, where: str, params: dict) -> Bounds:
    """The job's bounds, made once from its manifest keys; a bad horizon or delay bound is a manifest error."""
    try:
        network = Network(max_delay=params["max_delay"])
        return Bounds(params["horizon"], params["semantics"] or DEFAULTS["semantics"], params["encoding"], network)
    except ValueError as exc:
        raise _manifest_error(path, f"{where}: {exc}") from None


def read_manifest(path: Path) -> list[Job]:
    """The jobs of a manifest, grids expanded in the order their keys are written, without duplicates."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise _manifest_error(path, f"cannot read the manifest: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise _manifest_error(path, f"not valid TOML: {exc}") from None
    unknown = sorted(set(data) - {"root", "defaults", "grid", "job"})
    if unknown:
        raise _manifest_error(path, f"unknown top-level key(s) {', '.join(unknown)} (known: root, defaults, grid, job)")
    root = (path.parent / data.get("root", ".")).resolve()
    defaults = {**DEFAULTS, **data.get("defaults", {})}
    specs: list[tuple[str, dict]] = []
    for n, grid in enumerate(data.get("grid", []), 1):
        lists = {k: v if isinstance(v, list) else [v] for k, v in grid.items()}
        for values in itertools.product(*lists.values()):
            specs.append((f"grid {n}", dict(zip(lists, values))))
    for n, job in enumerate(data.get("job", []), 1):
        if any(isinstance(v, list) for v in job.values()):
            raise _manifest_error(path, f"job {n}: a [[job]] takes single values; use [[grid]] for lists")
        specs.append((f"job {n}", dict(job)))
    if not specs:
        raise _manifest_error(path, "the manifest lists no job ([[job]] or [[grid]])")
    jobs: dict[str, Job] = {}
    for where, spec in specs:
        params = {**defaults, **spec}
        _check_values(path, where, params)
        params = {k: params.get(k) for k in KEYS}
        if params["task"] == "cron":
            params["semantics"] = None  # cron analyses causal-finite and choice both: one job, not one per semantics
        hashed = {k: v for k, v in params.items() if not (k == "dialect" and v == "auto")}  # the ids of before the key
        ident = hashlib.sha256(json.dumps(hashed, sort_keys=True).encode()).hexdigest()[:16]
        given = str(root / params["input"]) if params["input"] else None
        jobs.setdefault(ident, Job(ident, params, str(root / params["program"]), given, _bounds(path, where, params)))
    return list(jobs.values())
