"""Manifests: the jobs of a batch, read from TOML, checked whole, and grids expanded.

A **manifest** lists jobs, one by one (`[[job]]`, scalar values) or as grids
(`[[grid]]`, lists of values: every combination is a job):

    root = "../.."                  # paths are relative to the manifest's folder joined with root
    [defaults]                      # optional, for every job
    timeout = 60
    [[grid]]
    program = ["examples/jcss2014/alg3.ded"]
    input = ["examples/jcss2014/alg3.facts"]  # optional for a located or Molly program with its own facts
    dialect = "auto"                # auto | transparent | located | molly
    task = ["count", "cron"]        # count | cron | models | run | verify
    semantics = ["causal", "choice"]
    horizon = [2, 4]                # or eot = [3, 5]: Molly's end of time N is horizon N - 1
    [[grid]]                        # Molly's question under faults (`verify.verify`)
    program = [["examples/molly/retry_broadcast.ded", "examples/molly/broadcast_assert.ded"]]
    task = "verify"                 # pre, post: the relations of the invariant (default pre, post)
    delivery = "sync"               # async | sync; max_delay for async only
    crashes = [0, 1]
    loss_until = [0, 2]             # or eff = [1, 3]: Molly's F is loss_until F - 1
    [[job]]                         # the same question for every horizon at once (verify --eventual)
    program = ["examples/molly/retry_broadcast.ded", "examples/molly/broadcast_assert.ded"]
    task = "verify"                 # eventual: cron and verify; no horizon or eot beside it
    eventual = true                 # needs delivery = "sync" or a max_delay; records exact and K

Every key has a type and a range (`keys.SCHEMA`): horizon, delay bound and steps
are integers in 0..`bounds.MAX_STEP` (not a boolean, not a float), `models`
an integer in 0..`MAX_MODELS` (clingo's 32-bit limit), `timeout` a number of
seconds in (0, `MAX_TIMEOUT`], `max_ground` the rule instances a job may
ground (`asp.budget`, 0: no limit), the names of tasks, semantics, encodings,
dialects, schedules and deliveries one of theirs, `program` and `input` the paths of
existing files, `nodes` an array of node names (constants), `pre` and `post` relation names. `program` may be an array of paths, several files read as one program
(`pipeline.load`; a Molly protocol and its invariant file): in `[[job]]` and `[defaults]` an
array is that one program, in `[[grid]]` an array gives alternatives, each a path or an array
of paths; a one-file program is the path itself, so its id is as before arrays were allowed. A
manifest is checked whole before any job runs, and every
problem is a diagnostic at the key's `file:line:col` (tomllib gives positions
only for syntax errors, so `KeyPlaces` finds keys by a light scan of the
text); an unknown key comes with the nearest known one. A malformed manifest
stops the batch (exit 2, nothing started); a program that does not parse is
not the manifest's fault, and only its jobs fail (`execute.run_batch`).

Two keys are Molly's spellings of others (`ALIASES`): `eot = N` is `horizon = N - 1` and
`eff = F` is `loss_until = F - 1` (Molly counts time from 1); a table may not give both of a
pair, and the job records the key it stands for. The network keys (delivery, max_delay,
loss_until, crashes, nodes, omission, crash_times, crash_model) make the job's `Network`; the fault keys and `pre`/`post` apply to
the tasks of `APPLIES` only: written in a table whose tasks are all others, a key is an error at
its place; from `[defaults]`, or in a grid that mixes tasks, it is left out of the jobs it does
not apply to. A sync delivery with a delay bound is an error at its key (`bounds.Network`).

A job's id is a hash of its parameters, so the same manifest names the same
jobs. The `program` column of the results writes several files joined by " + "
(`program_name`). A job's horizon, semantics, encoding and delay bound make its `Bounds`
once, here. A `cron` job analyses both semantics itself (jcss2014), so its
semantics is left out: one job, not one per semantics.
"""

from __future__ import annotations

import difflib
import hashlib
import itertools
import json
import math
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from ..bounds import Bounds, Mode, Network
from ..lang.ast import NOWHERE, Span
from ..lang.diagnostics import Diagnostic, DiagnosticError
from .keys import (ALIASES, APPLIES, DEFAULTS, DIALECTS, FAULT_TASKS, KEYS, KNOWN, MAX_JOBS, MAX_MANIFEST, NEW_KEYS, SCHEMA,
                   TASKS, kind_of, path_of)

TABLES = ("root", "defaults", "grid", "job")  # what the top level of a manifest may say

__all__ = ["ALIASES", "APPLIES", "DEFAULTS", "DIALECTS", "FAULT_TASKS", "KEYS", "NEW_KEYS", "SCHEMA", "TASKS", "Job",
           "program_name", "read_manifest", "short_name"]

@dataclass(frozen=True)
class Job:
    """One job: its id, its parameters as the manifest gives them, the resolved files, and its bounds."""

    id: str
    parameters: dict
    program: str
    input: str | None  # None: a located or Molly program that carries its own facts
    bounds: Bounds  # from horizon, semantics, encoding and the network keys (cron: both semantics, whatever this one)
    files: tuple[str, ...]  # the program's files, read as one program; `program` is them joined by " + "


_HEADER = re.compile(r"\s*(\[\[?)\s*([A-Za-z0-9_-]+)\s*\]")
_KEY = re.compile(r"\s*(\"?)([A-Za-z0-9_-]+)\1\s*=")


class KeyPlaces:
    """Where the keys of a manifest are written: a light scan of its lines for table headers and `key =`.

    A table is ("top", 0), ("defaults", 0), ("grid", n) or ("job", n), n counting from 1 in the order
    written. A key not found (written in an inline table, say) is placed at its table's header.
    """

    def __init__(self, text: str):
        self.places: dict[tuple, Span] = {}
        table, counts = ("top", 0), {"grid": 0, "job": 0}
        for number, line in enumerate(text.splitlines(), 1):
            header = _HEADER.match(line)
            if header:
                name = header.group(2)
                if header.group(1) == "[[" and name in counts:
                    counts[name] += 1
                    table = (name, counts[name])
                else:
                    table = (name, 0)
                start = header.start(1) + 1
                self.places.setdefault((*table, None), Span(number, start, number, header.end() + 1 if header.group(1) == "[" else len(line.rstrip()) + 1))
                continue
            key = _KEY.match(line)
            if key:
                start = key.start(2) + 1
                self.places.setdefault((*table, key.group(2)), Span(number, start, number, start + len(key.group(2))))

    def of(self, table: tuple, key: str | None = None) -> Span:
        return self.places.get((*table, key)) or self.places.get((*table, None)) or NOWHERE


class Problems:
    """The manifest's problems, collected: each a diagnostic at its key's place."""

    def __init__(self, path: Path, text: str):
        self.path, self.text, self.places, self.found = path, text, KeyPlaces(text), []

    def add(self, table: tuple, key: str | None, message: str) -> None:
        where = {"top": "", "defaults": "[defaults]: ", "grid": f"grid {table[1]}: ", "job": f"job {table[1]}: "}[table[0]]
        self.found.append(Diagnostic("manifest", where + message, self.places.of(table, key), str(self.path), self.text))

    def raise_if_any(self) -> None:
        if self.found:
            raise DiagnosticError(self.found)


def _manifest_error(path: Path, message: str, span: Span = NOWHERE, text: str = "") -> DiagnosticError:
    return DiagnosticError([Diagnostic("manifest", message, span, str(path), text)])


def _read(path: Path) -> tuple[str, dict]:
    """The manifest's text and its TOML data; a file that cannot be read, is too large or is not TOML is an error."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_MANIFEST + 1)
    except OSError as exc:
        raise _manifest_error(path, f"cannot read the manifest: {exc.strerror or exc}") from None
    if len(raw) > MAX_MANIFEST:
        raise _manifest_error(path, f"the manifest is larger than {MAX_MANIFEST // 2**20} MB")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _manifest_error(path, f"the manifest is not UTF-8 text (byte {exc.start})") from None
    try:
        return text, tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        place = re.search(r" \(at line (\d+), column (\d+)\)$", message)
        span = NOWHERE
        if place:
            message = message[: place.start()]
            line, col = int(place.group(1)), int(place.group(2))
            span = Span(line, col, line, col + 1)
        raise _manifest_error(path, f"not valid TOML: {message}", span, text) from None


def _check_key(problems: Problems, table: tuple, key: str, value, in_grid: bool) -> None:
    if key not in SCHEMA:
        near = difflib.get_close_matches(key, KNOWN, 1)
        hint = f"did you mean {near[0]!r}?" if near else f"known: {', '.join(KNOWN)}"
        problems.add(table, key, f"unknown key {key!r} ({hint})")
        return
    values = _alternatives(key, value, in_grid) if key == "nodes" else value if isinstance(value, list) and in_grid else [value]
    if in_grid and isinstance(value, list) and not value and key != "nodes":
        problems.add(table, key, f"{key} is an empty list: the grid would have no job")
    if isinstance(value, list) and not in_grid and key not in ("program", "nodes"):
        problems.add(table, key, f"{key} takes a single value here; use [[grid]] for lists")
        return
    for v in values:
        message = SCHEMA[key](v)
        if message:
            problems.add(table, key, f"{key} {message}")
            return


def _tables(problems: Problems, data: dict, name: str) -> list[dict]:
    """The tables of `[[name]]` (an array of tables), or none after a problem."""
    value = data.get(name, [])
    if not isinstance(value, list) or not all(isinstance(t, dict) for t in value):
        problems.add(("top", 0), name, f"{name} must be an array of tables ([[{name}]]), not {kind_of(value)}")
        return []
    return value


def _check_files(problems: Problems, root: Path, tables: list[tuple[tuple, dict]]) -> None:
    """Every `program` and `input` names an existing file under root."""
    for table, values in tables:
        for key in ("program", "input"):
            given = values.get(key)
            for v in _files(given) if key == "program" else given if isinstance(given, list) else [given]:
                if isinstance(v, str) and v and path_of(v) is None and not (root / v).is_file():
                    why = "is a directory" if (root / v).is_dir() else "does not exist"
                    problems.add(table, key, f"{key} {str(root / v)!r} {why}")


def _files(value) -> list:
    """The paths a `program` value names (of every alternative, in a grid)."""
    if not isinstance(value, list):
        return [value]
    return [f for item in value for f in (item if isinstance(item, list) else [item])]


def _alternatives(key: str, value, in_grid: bool) -> list:
    """The values a key takes in a table: a grid's list gives alternatives; a `program` that is an array of paths
    is one value (several files, one program), and an array of one path is that path (the id of a one-file job).
    `nodes` is an array of names: in a grid, an array of such arrays gives alternatives, any other value is one."""
    if key == "nodes":
        many = in_grid and isinstance(value, list) and value and all(isinstance(v, list) for v in value)
        return value if many else [value]
    if key != "program":
        return value if isinstance(value, list) and in_grid else [value]
    alternatives = value if isinstance(value, list) and in_grid else [value]
    return [v[0] if isinstance(v, list) and len(v) == 1 else v for v in alternatives]


def program_name(program) -> str:
    """A `program` parameter as the `program` column writes it: a path, or several joined by " + "."""
    return " + ".join(program) if isinstance(program, list) else program


def short_name(column: str, stem: bool = False) -> str:
    """The `program` column's files by their names (or stems), joined by " + " as `program_name` joins them."""
    return " + ".join(Path(f).stem if stem else Path(f).name for f in column.split(" + "))


def _bounds(params: dict) -> Bounds:
    """The job's bounds (an eventual job's in `Mode.EVENTUAL`, its horizon set by the question once it knows K);
    raises ValueError for a network `bounds.Network` refuses (sync delivery with a delay bound), and for an eventual
    job whose network is not finite-state (async without a delay bound)."""
    network = Network(params["delivery"], params["max_delay"], params["loss_until"], params["crashes"], tuple(params["nodes"] or ()),
                      params["omission"], params["crash_times"], params["crash_model"])
    if params["eventual"]:
        if not network.sync and network.max_delay is None:
            raise ValueError("eventual = true needs a finite-state network: delivery = \"sync\" or a max_delay (without "
                             "one a message may stay in flight forever)")
        return Bounds(0, params["semantics"] or DEFAULTS["semantics"], params["encoding"], network, mode=Mode.EVENTUAL)
    return Bounds(params["horizon"], params["semantics"] or DEFAULTS["semantics"], params["encoding"], network)


def _check_aliases(problems: Problems, table: tuple, spec: dict) -> None:
    """A table gives at most one key of each pair `ALIASES` (eot or horizon, eff or loss_until)."""
    for alias, (key, _) in ALIASES.items():
        if alias in spec and key in spec:
            n = "N" if alias == "eot" else "F"
            problems.add(table, alias, f"{alias} {n} is {key} {n}-1: give one of them, not both")


def _resolve(spec: dict, in_grid: bool) -> tuple[dict, dict]:
    """The table with Molly's keys written as the keys they stand for (eot N: horizon N - 1, eff F: loss_until F - 1),
    in the order written, and where each key was written (its own name, or its alias)."""
    resolved, written = {}, {}
    for key, value in spec.items():
        if key in ALIASES:
            target, convert = ALIASES[key]
            resolved[target] = [convert(v) for v in value] if isinstance(value, list) and in_grid else convert(value)
            written[target] = key
        else:
            resolved[key] = value
            written.setdefault(key, key)
    return resolved, written


def _applies(problems: Problems, table: tuple, spec: dict, written: dict, params: dict, tasks: list, refused: set) -> dict:
    """`params` without the keys that do not apply to its task (`APPLIES`), set back to their defaults; a key written
    in a table whose tasks are all such is a problem at its place (once per table and key)."""
    for key, allowed in APPLIES.items():
        if params["task"] in allowed or params[key] == DEFAULTS[key]:
            continue
        if key in spec and not any(t in allowed for t in tasks) and (table, key) not in refused:
            refused.add((table, key))
            what = f"the task {tasks[0]!r}" if len(set(tasks)) == 1 else "the tasks " + ", ".join(map(repr, dict.fromkeys(tasks)))
            problems.add(table, written[key], f"{written[key]} does not apply to {what} (only to {', '.join(allowed)})")
        params[key] = DEFAULTS[key]
    return params


def read_manifest(path: Path) -> list[Job]:
    """The jobs of a manifest, grids expanded in the order their keys are written, without duplicates.

    Every problem of the manifest is collected and raised as one `DiagnosticError` before any job is made.
    """
    path = Path(path)
    text, data = _read(path)
    problems = Problems(path, text)
    root, defaults, given = _checked(problems, path, data)
    problems.raise_if_any()
    jobs = _expanded(problems, root, defaults, given)
    problems.raise_if_any()
    return jobs


def _checked(problems: Problems, path: Path, data: dict) -> tuple[Path, dict, list[tuple[tuple, dict]]]:
    """The manifest's keys checked, every problem added to `problems`: its root, its defaults and its tables
    (each as (("defaults" | "grid" | "job", n), table))."""
    for key in data:
        if key not in TABLES:
            if key in KNOWN:
                message = f"{key!r} is a job key: it goes in [defaults], [[grid]] or [[job]], not at the top level"
            else:
                near = difflib.get_close_matches(key, TABLES + KNOWN, 1)
                hint = f"did you mean {near[0]!r}?" if near else f"known: {', '.join(TABLES)}"
                message = f"unknown top-level key {key!r} ({hint})"
            problems.add(("top", 0), key, message)
    root_value = data.get("root", ".")
    if not isinstance(root_value, str) or "\0" in root_value:
        problems.add(("top", 0), "root", f"root must be a path (a string), not {kind_of(root_value)}")
        root_value = "."
    root = (path.parent / root_value).resolve()
    if not root.is_dir():
        problems.add(("top", 0), "root", f"root {str(root)!r} is not a directory")
    defaults = data.get("defaults", {})
    if not isinstance(defaults, dict):
        problems.add(("top", 0), "defaults", f"defaults must be a table ([defaults]), not {kind_of(defaults)}")
        defaults = {}
    for key, value in defaults.items():
        _check_key(problems, ("defaults", 0), key, value, in_grid=False)
    _check_aliases(problems, ("defaults", 0), defaults)
    given: list[tuple[tuple, dict]] = [(("defaults", 0), defaults)]
    for kind in ("grid", "job"):
        for n, table in enumerate(_tables(problems, data, kind), 1):
            given.append(((kind, n), table))
            for key, value in table.items():
                _check_key(problems, (kind, n), key, value, in_grid=kind == "grid")
            _check_aliases(problems, (kind, n), table)
            for required in ("program", "task"):
                if required not in table and required not in defaults:
                    problems.add((kind, n), None, f"{required!r} is missing" + (f" ({' | '.join(TASKS)})" if required == "task" else ""))
    if len(given) == 1 and not problems.found:
        problems.add(("top", 0), None, "the manifest lists no job ([[job]] or [[grid]])")
    if root.is_dir():
        _check_files(problems, root, given)
    sizes = [math.prod(len(_alternatives(k, v, table[0] == "grid")) for k, v in spec.items()) for table, spec in given[1:]]
    if sum(sizes) > MAX_JOBS:
        table = given[1 + max(range(len(sizes)), key=sizes.__getitem__)][0]
        problems.add(table, None, f"the manifest makes {sum(sizes)} jobs, more than {MAX_JOBS} (this table alone {max(sizes)})")
    return root, defaults, given


def _expanded(problems: Problems, root: Path, defaults: dict, given: list[tuple[tuple, dict]]) -> list[Job]:
    """The jobs of checked tables (`_checked`), grids expanded in the order their keys are written, without
    duplicates; a job whose network cannot be made adds its problem to `problems`."""
    jobs: dict[str, Job] = {}
    defaults, _ = _resolve(defaults, False)
    defaults = {k: _alternatives(k, v, False)[0] for k, v in defaults.items()}
    refused: set = set()
    for table, spec in given[1:]:
        spec, written = _resolve(spec, table[0] == "grid")
        lists = {k: _alternatives(k, v, table[0] == "grid") for k, v in spec.items()}
        tasks = lists.get("task", [defaults.get("task")])
        for values in itertools.product(*lists.values()):
            params = {**DEFAULTS, **defaults, **dict(zip(lists, values))}
            params = _applies(problems, table, spec, written, {k: params.get(k) for k in KEYS}, tasks, refused)
            params["nodes"] = params["nodes"] or None  # no extra node, written [] or not at all: one job
            if params["task"] == "cron":
                params["semantics"] = None  # cron analyses causal-finite and choice both: one job, not one per semantics
            if params["eventual"]:
                if (table, "eventual-horizon") not in refused and ("horizon" in spec or "horizon" in defaults):
                    refused.add((table, "eventual-horizon"))
                    where = "horizon" if "horizon" in spec else "eventual"
                    problems.add(table, written.get(where, where), f"eventual = true answers for every horizon at once: "
                                 f"give it without {written.get('horizon', 'horizon')} (in [defaults] or this table)")
                params["horizon"] = None  # every horizon: one job, its K recorded in its verdict
            try:
                bounds = _bounds(params)
            except ValueError as error:
                if (table, "network") not in refused:
                    refused.add((table, "network"))
                    key = next((k for k in ("max_delay", "delivery", "eventual") if k in spec), None)
                    if params["delivery"] == "sync" and params["max_delay"] is not None:
                        error = (f"delivery 'sync' with max_delay {params['max_delay']}: a delay bound applies to async delivery "
                                 "only (under sync delivery a message that is not lost arrives at the next step)"
                                 + ("; the sync jobs go in a [[grid]] of their own" if table[0] == "grid" else ""))
                    problems.add(table, key, str(error))
                continue
            hashed = {k: v for k, v in params.items() if not (k in NEW_KEYS and v == NEW_KEYS[k])}  # ids as before them
            ident = hashlib.sha256(json.dumps(hashed, sort_keys=True).encode()).hexdigest()[:16]
            source = str(root / params["input"]) if params["input"] else None
            files = tuple(str(root / f) for f in _files(params["program"]))
            jobs.setdefault(ident, Job(ident, params, program_name(list(files)), source, bounds, files))
    return list(jobs.values())
