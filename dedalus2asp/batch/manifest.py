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
    task = ["count", "cron"]        # count | cron | models | run
    semantics = ["causal", "choice"]
    horizon = [2, 4]

Every key has a type and a range (`SCHEMA`): horizon, delay bound and steps
are integers in 0..`bounds.MAX_STEP` (not a boolean, not a float), `models`
an integer in 0..`MAX_MODELS` (clingo's 32-bit limit), `timeout` a number of
seconds in (0, `MAX_TIMEOUT`], `max_ground` the rule instances a job may
ground (`asp.budget`, 0: no limit), the names of tasks, semantics, encodings,
dialects and schedules one of theirs, `program` and `input` the paths of
existing files. `program` may be an array of paths, several files read as one program
(`pipeline.load`; a Molly protocol and its invariant file): in `[[job]]` and `[defaults]` an
array is that one program, in `[[grid]]` an array gives alternatives, each a path or an array
of paths; a one-file program is the path itself, so its id is as before arrays were allowed. A
manifest is checked whole before any job runs, and every
problem is a diagnostic at the key's `file:line:col` (tomllib gives positions
only for syntax errors, so `KeyPlaces` finds keys by a light scan of the
text); an unknown key comes with the nearest known one. A malformed manifest
stops the batch (exit 2, nothing started); a program that does not parse is
not the manifest's fault, and only its jobs fail (`execute.run_batch`).

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
from typing import Any, Callable

from ..asp.budget import DEFAULT_MAX_GROUND
from ..bounds import MAX_STEP, Bounds, Encoding, Network, Semantics
from ..lang.ast import NOWHERE, Span
from ..lang.diagnostics import Diagnostic, DiagnosticError
from ..runs.schedule import SCHEDULES

TASKS = ("count", "cron", "models", "run")
DIALECTS = ("auto", "transparent", "located", "molly")
MAX_MODELS = 2**31 - 1  # clingo's models limit is a 32-bit integer
MAX_TIMEOUT = 10**7  # seconds (about 115 days): beyond it a wait on the job's process overflows
MAX_SEED = 2**63 - 1  # the jobs table stores the seed as int64
MAX_GROUND = 2**63 - 1
MAX_MANIFEST = 16 * 2**20  # bytes
MAX_JOBS = 100_000  # jobs of one manifest, grids expanded
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
    "max_ground": DEFAULT_MAX_GROUND,  # rule instances a job may ground (asp.budget; 0: no limit)
}
KEYS = ("program", "input", "task", *DEFAULTS)
NEW_KEYS = {"dialect": "auto", "max_ground": DEFAULT_MAX_GROUND}  # keys added later: at these values, left out of ids
TABLES = ("root", "defaults", "grid", "job")


def _integer(low: int, high: int) -> Callable[[Any], str | None]:
    def check(value):
        if isinstance(value, bool) or not isinstance(value, int):
            return f"must be an integer, not {_kind(value)}"
        return None if low <= value <= high else f"must be between {low} and {high}, not {value}"
    return check


def _choice(allowed) -> Callable[[Any], str | None]:
    allowed = tuple(allowed)

    def check(value):
        if not isinstance(value, str):
            return f"must be one of {', '.join(allowed)}, not {_kind(value)}"
        if value in allowed:
            return None
        near = difflib.get_close_matches(value, allowed, 1)
        return f"must be one of {', '.join(allowed)}, not {value!r}" + (f" (did you mean {near[0]!r}?)" if near else "")
    return check


def _path(value) -> str | None:
    if not isinstance(value, str):
        return f"must be a path (a string), not {_kind(value)}"
    if not value:
        return "must be a path, not an empty string"
    return "must not contain a NUL character" if "\0" in value else None


def _program(value) -> str | None:
    """A program: a path, or an array of paths read as one program (`pipeline.load`)."""
    if not isinstance(value, list):
        return _path(value)
    if not value:
        return "must be a path or an array of paths, not an empty array"
    for item in value:
        message = _path(item)
        if message:
            return message
    return None


def _seconds(value) -> str | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"must be a number of seconds, not {_kind(value)}"
    if not (0 < value <= MAX_TIMEOUT) or math.isnan(value):
        return f"must be more than 0 and at most {MAX_TIMEOUT} seconds, not {value}"
    return None


SCHEMA: dict[str, Callable[[Any], str | None]] = {
    "program": _program,
    "input": _path,
    "task": _choice(TASKS),
    "semantics": _choice(s.value for s in Semantics),
    "encoding": _choice(e.value for e in Encoding),
    "dialect": _choice(DIALECTS),
    "horizon": _integer(0, MAX_STEP),
    "max_delay": _integer(0, MAX_STEP),
    "steps": _integer(1, MAX_STEP),
    "schedule": _choice(SCHEDULES),
    "seed": _integer(-MAX_SEED - 1, MAX_SEED),
    "models": _integer(0, MAX_MODELS),
    "timeout": _seconds,
    "max_ground": _integer(0, MAX_GROUND),
}


def _kind(value) -> str:
    """A TOML value's kind in words: "the string 'x'", "a boolean", "an array"."""
    if isinstance(value, str):
        return f"the string {value!r}"
    names = {bool: "a boolean", int: "an integer", float: "a float", list: "an array", dict: "a table"}
    return names.get(type(value), f"a {type(value).__name__}")


@dataclass(frozen=True)
class Job:
    """One job: its id, its parameters as the manifest gives them, the resolved files, and its bounds."""

    id: str
    parameters: dict
    program: str
    input: str | None  # None: a located or Molly program that carries its own facts
    bounds: Bounds  # from horizon, semantics, encoding and max_delay (cron: both semantics, whatever this one)
    files: tuple[str, ...] = ()  # the program's files, read as one program; `program` is them joined by " + "


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
        near = difflib.get_close_matches(key, KEYS, 1)
        hint = f"did you mean {near[0]!r}?" if near else f"known: {', '.join(KEYS)}"
        problems.add(table, key, f"unknown key {key!r} ({hint})")
        return
    values = value if isinstance(value, list) and in_grid else [value]
    if in_grid and isinstance(value, list) and not value:
        problems.add(table, key, f"{key} is an empty list: the grid would have no job")
    if isinstance(value, list) and not in_grid and key != "program":
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
        problems.add(("top", 0), name, f"{name} must be an array of tables ([[{name}]]), not {_kind(value)}")
        return []
    return value


def _check_files(problems: Problems, root: Path, tables: list[tuple[tuple, dict]]) -> None:
    """Every `program` and `input` names an existing file under root."""
    for table, values in tables:
        for key in ("program", "input"):
            given = values.get(key)
            for v in _files(given) if key == "program" else given if isinstance(given, list) else [given]:
                if isinstance(v, str) and v and _path(v) is None and not (root / v).is_file():
                    why = "is a directory" if (root / v).is_dir() else "does not exist"
                    problems.add(table, key, f"{key} {str(root / v)!r} {why}")


def _files(value) -> list:
    """The paths a `program` value names (of every alternative, in a grid)."""
    if not isinstance(value, list):
        return [value]
    return [f for item in value for f in (item if isinstance(item, list) else [item])]


def _alternatives(key: str, value, in_grid: bool) -> list:
    """The values a key takes in a table: a grid's list gives alternatives; a `program` that is an array of paths
    is one value (several files, one program), and an array of one path is that path (the id of a one-file job)."""
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
    return Bounds(params["horizon"], params["semantics"] or DEFAULTS["semantics"], params["encoding"],
                  Network(max_delay=params["max_delay"]))


def read_manifest(path: Path) -> list[Job]:
    """The jobs of a manifest, grids expanded in the order their keys are written, without duplicates.

    Every problem of the manifest is collected and raised as one `DiagnosticError` before any job is made.
    """
    path = Path(path)
    text, data = _read(path)
    problems = Problems(path, text)
    for key in data:
        if key not in TABLES:
            if key in KEYS:
                message = f"{key!r} is a job key: it goes in [defaults], [[grid]] or [[job]], not at the top level"
            else:
                near = difflib.get_close_matches(key, TABLES + KEYS, 1)
                hint = f"did you mean {near[0]!r}?" if near else f"known: {', '.join(TABLES)}"
                message = f"unknown top-level key {key!r} ({hint})"
            problems.add(("top", 0), key, message)
    root_value = data.get("root", ".")
    if not isinstance(root_value, str) or "\0" in root_value:
        problems.add(("top", 0), "root", f"root must be a path (a string), not {_kind(root_value)}")
        root_value = "."
    root = (path.parent / root_value).resolve()
    if not root.is_dir():
        problems.add(("top", 0), "root", f"root {str(root)!r} is not a directory")
    defaults = data.get("defaults", {})
    if not isinstance(defaults, dict):
        problems.add(("top", 0), "defaults", f"defaults must be a table ([defaults]), not {_kind(defaults)}")
        defaults = {}
    for key, value in defaults.items():
        _check_key(problems, ("defaults", 0), key, value, in_grid=False)
    given: list[tuple[tuple, dict]] = [(("defaults", 0), defaults)]
    for kind in ("grid", "job"):
        for n, table in enumerate(_tables(problems, data, kind), 1):
            given.append(((kind, n), table))
            for key, value in table.items():
                _check_key(problems, (kind, n), key, value, in_grid=kind == "grid")
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
    problems.raise_if_any()

    jobs: dict[str, Job] = {}
    defaults = {k: _alternatives(k, v, False)[0] for k, v in defaults.items()}
    for table, spec in given[1:]:
        lists = {k: _alternatives(k, v, table[0] == "grid") for k, v in spec.items()}
        for values in itertools.product(*lists.values()):
            params = {**DEFAULTS, **defaults, **dict(zip(lists, values))}
            params = {k: params.get(k) for k in KEYS}
            if params["task"] == "cron":
                params["semantics"] = None  # cron analyses causal-finite and choice both: one job, not one per semantics
            hashed = {k: v for k, v in params.items() if not (k in NEW_KEYS and v == NEW_KEYS[k])}  # ids as before them
            ident = hashlib.sha256(json.dumps(hashed, sort_keys=True).encode()).hexdigest()[:16]
            source = str(root / params["input"]) if params["input"] else None
            files = tuple(str(root / f) for f in _files(params["program"]))
            jobs.setdefault(ident, Job(ident, params, program_name(list(files)), source, _bounds(params), files))
    return list(jobs.values())
