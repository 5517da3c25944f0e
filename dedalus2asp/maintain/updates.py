"""Base facts and bursts of updates: what `maintain` reads besides the program.

psn2010 §3.1's bursty model: updates ⟨INS, f⟩ / ⟨DEL, f⟩ of base facts come in bursts, and the system
quiesces between bursts. A burst is a multiset: it may delete a fact its own insertions add, and it
may delete a fact only as often as the base holds it then (`D ⊆ E ⊎ I`, psn2010 Theorem 13), which
`Base.apply` checks, naming the deletion's place.

Three forms, each a sequence of bursts:

* **text**: one located fact a line in the `.facts` notation, `+` inserts and `-` deletes it
  (`+link(a, b).`, `-link(a, c).`), a line `---` ends a burst; `%` and `//` comments;
* **JSON**: `{"bursts": [{"insert": {"link": [["a", "b"]]}, "delete": {"link": [["a", "c"]]}}, ...]}`,
  tuples with their location column, values as in a JSON input (an integer is a number, a name a
  name, any other string a string);
* **Parquet**, for large bursts: a table `R.parquet` per relation R (a directory of them, or one
  file), with the columns `burst` (1, 2, ...), `op` (`+` or `-`) and then R's arguments in order, each
  cell a constant as `run` reads tables (a string that spells an integer is that number).

The base E (`--input`) is a located input as `run` reads it (`.facts` or JSON), the program's own facts
joining it.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import clingo

from ..lang.ast import NOWHERE, Span
from ..lang.diagnostics import Diagnostic, DiagnosticError, raise_if_errors
from ..lang.facts import load_instance
from ..lang.facts_json import json_value
from ..lang.lexer import read_text
from .ddlog import DDlogProgram, Fact

INSERT, DELETE = "+", "-"


@dataclass(frozen=True)
class Update:
    """⟨INS, f⟩ (`op` "+") or ⟨DEL, f⟩ (`op` "-") of a base fact, and where it is written."""

    op: str
    fact: Fact
    span: Span = field(default=NOWHERE, compare=False)

    def __str__(self) -> str:
        return f"{self.op}{self.fact}"


@dataclass(frozen=True)
class Burst:
    """The updates of one burst, numbered from 1, and the file they were read from."""

    number: int
    updates: tuple[Update, ...]
    filename: str = "<updates>"
    text: str = field(default="", repr=False, compare=False)

    @property
    def inserted(self) -> Counter:
        return Counter(u.fact for u in self.updates if u.op == INSERT)

    @property
    def deleted(self) -> Counter:
        return Counter(u.fact for u in self.updates if u.op == DELETE)


class Base:
    """The multiset E of base facts, updated burst by burst (E ⊎ I ∖ D)."""

    def __init__(self, facts: Counter) -> None:
        self.facts = Counter({f: n for f, n in facts.items() if n > 0})

    def apply(self, burst: Burst) -> None:
        """E ⊎ I ∖ D; a deletion of a fact that E ⊎ I does not hold (as often) is an error at its place."""
        after = self.facts + burst.inserted
        problems = []
        for u in burst.updates:
            if u.op == DELETE:
                if after[u.fact] <= 0:
                    problems.append(Diagnostic(
                        "delete-missing", f"burst {burst.number} deletes '{u.fact}', which is not in the view at that "
                        "point (the base before the burst and the burst's insertions do not hold it"
                        + (" that often" if self.facts[u.fact] or burst.inserted[u.fact] else "") + ")",
                        u.span, burst.filename, burst.text))
                else:
                    after[u.fact] -= 1
        raise_if_errors(problems)
        self.facts = +after


# ---------------------------------------------------------------------------
# reading


def read_base(path: str | Path | None, program: DDlogProgram) -> Counter:
    """E: the program's own facts and those of the located input `path` (`.facts` or JSON)."""
    facts = Counter(program.facts)
    if path is None:
        return facts
    instance = load_instance(path, program.columns)
    problems = []
    for node, local in instance.facts.items():
        for f in local:
            k = program.columns.get(f.predicate, 0)
            fact = Fact(f.predicate, f.args[:k] + (node,) + f.args[k:])
            problem = _not_base(fact, program)
            if problem:
                problems.append(Diagnostic("maintain-input", problem, f.span, instance.filename, instance.text))
            else:
                facts[fact] = 1
    raise_if_errors(problems)
    return facts


def _not_base(fact: Fact, program: DDlogProgram) -> str | None:
    """Why `fact` cannot be a base fact or updated, if it cannot."""
    if fact.relation in program.derived or fact.relation in program.auxiliary:
        return (f"'{fact}' is a fact of '{fact.relation}', which rules derive: the base and its updates are facts "
                "of base relations only (psn2010 §2.1)")
    if fact.relation not in program.arities:
        return f"'{fact.relation}' is no relation of the program (its relations: {', '.join(program.relations)})"
    if len(fact.args) != program.arities[fact.relation]:
        return (f"'{fact}' has {len(fact.args)} arguments, but the program uses '{fact.relation}' with "
                f"{program.arities[fact.relation]}")
    return None


def read_updates(path: str | Path, program: DDlogProgram) -> list[Burst]:
    """The bursts of the updates file (text, JSON) or Parquet table(s) `path`."""
    p = Path(path)
    if p.is_dir() or p.suffix == ".parquet":
        return _parquet(p, program)
    text = read_text(p, "updates")
    if p.suffix == ".json" or text.lstrip().startswith("{"):
        return _json(text, str(p), program)
    return parse_updates(text, str(p), program)


_LINE = re.compile(r"\s*(?P<op>[+-])\s*(?P<name>[a-z][A-Za-z0-9_]*)\s*\((?P<args>.*)\)\s*[.;]?\s*$")
_VALUE = re.compile(r'\s*#?\s*(?:(?P<int>-?[0-9]+)|(?P<name>[a-z][A-Za-z0-9_]*)|(?P<str>"(?:\\.|[^"\\])*"))\s*(?:,|$)')
_COMMENT = re.compile(r'%.*$|//.*$')


def parse_updates(text: str, filename: str, program: DDlogProgram) -> list[Burst]:
    """The bursts of the text form (see the module docstring); every problem is reported at once."""
    problems: list[Diagnostic] = []
    bursts: list[Burst] = []
    current: list[Update] = []
    for n, raw in enumerate(text.split("\n"), 1):
        line = _strip_comment(raw)
        if not line.strip():
            continue
        if line.strip() == "---":
            bursts.append(Burst(len(bursts) + 1, tuple(current), filename, text))
            current = []
            continue
        col = len(line) - len(line.lstrip()) + 1
        update, problem = _line_update(line)
        if update is not None:
            fact = Fact(update[1], update[2])
            problem = _not_base(fact, program)
            if problem is None:
                current.append(Update(update[0], fact, Span(n, col, n, len(line.rstrip()) + 1)))
                continue
        problems.append(Diagnostic("updates", problem, Span(n, col, n, len(line.rstrip()) + 1), filename, text))
    if current or not bursts:
        bursts.append(Burst(len(bursts) + 1, tuple(current), filename, text))
    raise_if_errors(problems)
    return bursts


def _strip_comment(line: str) -> str:
    """`line` without its `%` or `//` comment (outside double-quoted strings)."""
    inside = False
    i = 0
    while i < len(line):
        c = line[i]
        if c == "\\" and inside:
            i += 2
            continue
        if c == '"':
            inside = not inside
        elif not inside and (c == "%" or line.startswith("//", i)):
            return line[:i]
        i += 1
    return line


def _line_update(line: str) -> tuple[tuple | None, str | None]:
    """(op, relation, args) of an update line, or (None, what is wrong)."""
    match = _LINE.match(line)
    if match is None:
        return None, ("expected one update a line: '+' or '-' and a located fact, e.g. '+link(a, b).' or "
                      "'-link(a, c).', or '---' between bursts")
    args: list[clingo.Symbol] = []
    rest = match["args"]
    while rest.strip():
        value = _VALUE.match(rest)
        if value is None:
            return None, (f"cannot read the value at '{rest.strip()[:20]}': a value is a lower-case name, an integer "
                          "or a double-quoted string")
        if value["int"] is not None:
            args.append(json_value(int(value["int"])) if -2**31 <= int(value["int"]) < 2**31 else clingo.String(value["int"]))
        elif value["name"] is not None:
            args.append(clingo.Function(value["name"]))
        else:
            args.append(clingo.String(re.sub(r"\\(.)", r"\1", value["str"][1:-1])))
        rest = rest[value.end():]
    return (match["op"], match["name"], tuple(args)), None


def parse_fact(text: str, program: DDlogProgram, what: str = "--explain") -> Fact:
    """A located fact of the program written as in the `.facts` notation (`reachable(a, d)`)."""
    update, problem = _line_update("+" + text)
    fact = Fact(update[1], update[2]) if update is not None else None
    if fact is not None and (fact.relation not in program.arities or program.arities[fact.relation] != len(fact.args)):
        problem = f"'{fact}' is no fact of the program's relations ({', '.join(program.relations)})"
    if problem:
        raise DiagnosticError([Diagnostic("bad-option", f"{what} {text!r}: {problem}", filename="<command line>")])
    return fact


def _json(text: str, filename: str, program: DDlogProgram) -> list[Burst]:
    problems: list[Diagnostic] = []

    def error(message: str) -> None:
        problems.append(Diagnostic("updates", message, NOWHERE, filename, text))

    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        problems.append(Diagnostic("updates", f"invalid JSON: {exc.msg}", Span(exc.lineno, exc.colno, exc.lineno, exc.colno + 1),
                                   filename, text))
        raise DiagnosticError(problems) from None
    shape = '{"bursts": [{"insert": {"<relation>": [[<value>, ...], ...]}, "delete": {...}}, ...]}'
    if not isinstance(data, dict) or not isinstance(data.get("bursts"), list):
        error(f"expected an object {shape}")
        raise DiagnosticError(problems)
    bursts = []
    for b, burst in enumerate(data["bursts"], 1):
        updates: list[Update] = []
        if not isinstance(burst, dict) or set(burst) - {"insert", "delete"}:
            error(f"burst {b}: expected an object with \"insert\" and/or \"delete\", as in {shape}")
            continue
        for key, op in (("insert", INSERT), ("delete", DELETE)):
            relations = burst.get(key, {})
            if not isinstance(relations, dict):
                error(f"burst {b}, \"{key}\": expected an object mapping relation names to lists of tuples")
                continue
            for relation, tuples in relations.items():
                if not isinstance(tuples, list) or not all(isinstance(t, list) for t in tuples):
                    error(f"burst {b}, \"{key}\", relation {relation!r}: expected a list of tuples, each a list of values")
                    continue
                for t in tuples:
                    try:
                        fact = Fact(relation, tuple(json_value(v) for v in t))
                    except ValueError as exc:
                        error(f"burst {b}, \"{key}\", relation {relation!r}: {exc}")
                        continue
                    problem = _not_base(fact, program)
                    if problem:
                        error(f"burst {b}, \"{key}\": {problem}")
                    else:
                        updates.append(Update(op, fact))
        bursts.append(Burst(b, tuple(updates), filename, text))
    raise_if_errors(problems)
    return bursts


def _cell(value) -> clingo.Symbol:
    """A table cell as a constant, as `run` reads tables: a string that spells an integer is that number."""
    if isinstance(value, str) and re.fullmatch(r"-?(0|[1-9][0-9]*)", value) and -2**31 <= int(value) < 2**31:
        return clingo.Number(int(value))
    return json_value(value)


def _parquet(path: Path, program: DDlogProgram) -> list[Burst]:
    import pyarrow.parquet as pq

    files = sorted(path.glob("*.parquet")) if path.is_dir() else [path]
    if not files:
        raise DiagnosticError([Diagnostic("updates", "the directory holds no .parquet table of updates (R.parquet: "
                                          "burst, op and R's arguments)", filename=str(path))])
    problems: list[Diagnostic] = []
    found: dict[int, list[Update]] = {}
    for file in files:
        relation = file.stem
        try:
            table = pq.read_table(file)
        except Exception as exc:  # pyarrow raises many kinds; the user gets its message
            problems.append(Diagnostic("updates", f"cannot read table '{relation}': {exc}", filename=str(file)))
            continue
        names = table.column_names
        if names[:2] != ["burst", "op"]:
            problems.append(Diagnostic("updates", f"table '{relation}' has the columns {names}: an updates table has "
                                       "'burst', 'op' and then the relation's arguments", filename=str(file)))
            continue
        columns = [c.to_pylist() for c in table.columns]
        for row, (burst, op, *values) in enumerate(zip(*columns), 1):
            try:
                fact = Fact(relation, tuple(_cell(v) for v in values))
            except ValueError as exc:
                problems.append(Diagnostic("updates", f"row {row}: {exc}", Span(row, 3, row, 4), str(file)))
                continue
            problem = (f"'op' is {op!r}: '+' inserts, '-' deletes" if op not in (INSERT, DELETE) else
                       f"'burst' is {burst!r}: bursts are numbered 1, 2, ..." if not isinstance(burst, int) or burst < 1
                       else _not_base(fact, program))
            if problem:
                problems.append(Diagnostic("updates", f"row {row}: {problem}", Span(row, 1, row, 2), str(file)))
            else:
                found.setdefault(burst, []).append(Update(op, fact, Span(row, 1, row, 2, (str(file), ""))))
    raise_if_errors(problems)
    last = max(found, default=1)
    return [Burst(b, tuple(found.get(b, ())), str(path)) for b in range(1, last + 1)]
