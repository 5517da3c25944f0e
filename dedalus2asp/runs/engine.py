"""The run engine: one run of a possibly large system, its input tables and its output tables.

`operational` explores every run of a small system; this module computes *one*
run, with the relational evaluator (`evaluator.execute`) on a back end: `Local`
on Python sets (`--engine local`, the reference) or `Spark` on DataFrames
(`--engine spark`). All nodes step together, and a message arrives when the
`Schedule` says: every such run is causal (tplp2016 §5.1.4), and its trace is
the trace of a model of pure(P) (Theorem 4 (i)). A message is identified by
(relation, args, sender, sent, addressee); messages still in flight after the
last step are pending (arrives = None).

Values are text, a clingo symbol as the user writes it (`v1`, `42`, `"a b"`;
`values.Text`). The input H comes from a .facts or JSON instance
(`from_instance`) or a directory of CSV or Parquet tables (`read_directory`);
`run` computes the run, and `write_run` writes its trace, messages and outputs
as Parquet with a `run.json` beside them.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
import uuid
from dataclasses import dataclass, field
from functools import reduce
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import clingo

from ..lang.ast import Fact, Instance, Program
from ..lang.diagnostics import Diagnostic, DiagnosticError
from .evaluator import Plan, execute, one_node_at_a_time
from .local import EventRow, FactRow, Local
from .schedule import SCHEDULES, Schedule
from .session import spark_session
from .spark import FACTS_SCHEMA, Spark
from .values import cell, value

ENGINES = ("local", "spark")

__all__ = [  # what the command line and batch jobs use; Schedule, SCHEDULES and spark_session come from their modules
    "ENGINES", "SCHEDULES", "Schedule", "spark_session",
    "Input", "from_instance", "read_directory",
    "Run", "run",
    "arrow_schemas", "write_rows", "write_run", "read_table", "program_hash",
]


# ---------------------------------------------------------------------------
# Inputs: .facts, JSON, or a directory of tables


@dataclass
class Input:
    """A distributed database instance H for the engine: the network and its fact rows (or a Spark DataFrame)."""

    network: tuple[str, ...]
    rows: list[FactRow] | None = None
    frame: Any = None  # a Spark DataFrame (node, relation, args), for a directory read by Spark
    source: str = ""
    events: list[EventRow] = field(default_factory=list)  # R(ā)@k: at step k only

    def facts(self):
        return self.frame if self.frame is not None else self.rows


def from_instance(instance: Instance, program: Program) -> Input:
    """H restricted to sch(P), as rows; its events R(ā)@k as rows with their step."""
    schema = program.schema()
    rows, events = _rows_and_events((x, f) for x, facts in instance.facts.items() for f in facts if f.predicate in schema)
    return Input(tuple(map(value, instance.network)), rows, source=instance.filename, events=events)


def _rows_and_events(facts: Iterable[tuple[clingo.Symbol, Fact]]) -> tuple[list[FactRow], list[EventRow]]:
    """(node, fact) pairs as fact rows and, for the events R(ā)@k, event rows with their step."""
    rows: list[FactRow] = []
    events: list[EventRow] = []
    for x, f in facts:
        row = (value(x), f.predicate, tuple(map(value, f.args)))
        if f.step is None:
            rows.append(row)
        else:
            events.append((*row, f.step))
    return rows, events


def _tables(directory: Path) -> dict[str, Path]:
    tables = {}
    for path in sorted(directory.iterdir()):
        if path.name.startswith((".", "_")):
            continue
        stem = path.name.split(".")[0]
        if path.suffix in (".csv", ".parquet") or path.is_dir():
            tables[stem] = path
    return tables


def _table_error(path: Path, message: str) -> DiagnosticError:
    return DiagnosticError([Diagnostic("input-table", message, filename=str(path))])


def read_directory(directory: Path, program: Program, spark=None, located=None) -> Input:
    """One CSV (no header) or Parquet table per relation, named after it; the first column is the node.

    The network is every node named in a node column. Cells become
    constants by `cell`. Tables of relations that P does not use are
    ignored; a table whose width is not 1 + the relation's arity is an error.

    For a located program (`located`, a `located.LocatedProgram` whose IR is
    `program`) a relation's node is its location column, as in a located
    `.facts` input, and the program's own facts and id(x) join the tables
    (`_with_program_facts`).
    """
    schema = program.schema()
    tables = _tables(directory)
    if not tables:
        raise _table_error(directory, "the input directory holds no .csv or .parquet table")
    identity = located.identity if located is not None else None
    if identity is not None and identity in tables:
        raise _table_error(tables[identity], located.identity_clash(f"has a table '{identity}'", "the table"))
    copied = next((r for r in (located.copies if located is not None else ()) if r in tables), None)
    if copied is not None:  # its copies at every node (Molly's remote reads) would be a table per node
        raise _table_error(tables[copied], f"the program reads '{copied}' at other nodes than its own (Molly's one "
                           "database: every node holds a copy of its facts, docs/molly.md), so it cannot come from "
                           "a table: give its facts in the program or a .facts input")
    at = {relation: (located.columns if located is not None else {}).get(relation, 0) for relation in tables}
    data = _read_local(tables, schema, directory, at) if spark is None else _read_spark(tables, schema, directory, spark, at)
    return data if located is None else _with_program_facts(data, located, spark)


def _with_program_facts(data: Input, source, spark=None) -> Input:
    """A located program's own facts (and events) join table input `data`, and every node x gets the
    identity fact id(x) when a rule needs it (as `located.LocatedProgram.instance` does for .facts)."""
    identity = source.identity
    network = tuple(dict.fromkeys([*data.network, *map(value, source.facts)]))
    rows, events = _rows_and_events((x, f) for x, facts in source.facts.items() for f in facts)
    rows += [(x, identity, (x,)) for x in network] if identity is not None else []
    copies = source.copied({x: list(facts) for x, facts in source.facts.items()})  # every node holds them
    holding = set(map(value, source.facts))  # the program's nodes hold them among their facts already
    more_rows, more_events = _rows_and_events((x, f) for x in network if x not in holding for f in copies)
    rows, events = rows + more_rows, events + more_events
    events = data.events + events
    if data.frame is None:
        return Input(network, data.rows + rows, source=data.source, events=events)
    extra = spark.createDataFrame([(x, r, list(a)) for x, r, a in rows], FACTS_SCHEMA)
    return Input(network, frame=data.frame.unionByName(extra), source=data.source, events=events)


def _check_width(path: Path, relation: str, width: int, schema: dict[str, int]) -> None:
    if width != schema[relation] + 1:
        raise _table_error(
            path,
            f"table '{relation}' has {width} column(s) but the program uses '{relation}' with "
            f"{schema[relation]} argument(s): it needs the node and then {schema[relation]} column(s)",
        )


def _read_local(tables: dict[str, Path], schema: dict[str, int], directory: Path, at: dict[str, int]) -> Input:
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    rows: list[FactRow] = []
    network: dict[str, None] = {}
    for relation, path in tables.items():
        try:
            if path.suffix == ".csv":
                table = pcsv.read_csv(
                    path,
                    read_options=pcsv.ReadOptions(autogenerate_column_names=True),
                    convert_options=pcsv.ConvertOptions(column_types={}, strings_can_be_null=False),
                )
            else:
                table = pq.read_table(path)
        except Exception as exc:  # pyarrow raises many kinds; the user gets the message
            raise _table_error(path, f"cannot read table '{relation}': {exc}") from None
        columns = [[cell(str(v)) for v in c.to_pylist()] for c in table.columns]
        if not columns:
            continue
        if relation not in schema:
            for x in columns[0]:
                network.setdefault(x)
            continue
        _check_width(path, relation, len(columns), schema)
        node = at[relation]
        columns.insert(0, columns.pop(node))
        for x in columns[0]:
            network.setdefault(x)
        rows += [(x, relation, tuple(args)) for x, *args in zip(*columns)]
    return Input(tuple(network), rows, source=str(directory))


def _read_spark(tables: dict[str, Path], schema: dict[str, int], directory: Path, spark, at: dict[str, int]) -> Input:
    from pyspark.sql import functions as F

    def normal(c):
        plain = c.rlike(r"^(-?(0|[1-9][0-9]{0,8})|[a-z][A-Za-z0-9_]*)$") & (c != "not")  # as `cell`
        quoted = F.concat(F.lit('"'), F.regexp_replace(F.regexp_replace(c, r"\\", r"\\\\"), '"', '\\\\"'), F.lit('"'))
        return F.when(plain, c).otherwise(quoted)

    parts, nodes = [], []
    for relation, path in tables.items():
        reader = spark.read.option("header", "false")
        df = reader.csv(str(path)) if path.suffix == ".csv" else reader.parquet(str(path))
        if relation not in schema:
            nodes.append(df.select(normal(F.col(df.columns[0]).cast("string")).alias("node")))
            continue
        _check_width(path, relation, len(df.columns), schema)
        order = [df.columns[at[relation]]] + [c for i, c in enumerate(df.columns) if i != at[relation]]
        df = df.select(*(F.col(c).cast("string").alias(f"c{i}") for i, c in enumerate(order)))
        nodes.append(df.select(normal(F.col("c0")).alias("node")))
        parts.append(
            df.select(
                normal(F.col("c0")).alias("node"),
                F.lit(relation).alias("relation"),
                F.array(*(normal(F.col(f"c{i}")) for i in range(1, len(df.columns)))).cast("array<string>").alias("args"),
            )
        )
    network = tuple(r.node for r in reduce(lambda a, b: a.union(b), nodes).distinct().orderBy("node").collect())
    frame = reduce(lambda a, b: a.unionByName(b), parts) if parts else spark.createDataFrame([], FACTS_SCHEMA)
    return Input(network, frame=frame, source=str(directory))


# ---------------------------------------------------------------------------
# A run, end to end


@dataclass
class Run:
    """A computed run: its trace (node, step, relation, args), messages and outputs at the last step.

    In memory for the local back end (lists of rows), DataFrames for Spark. `rows`: the trace rows of
    each step; `jobs`: the Spark jobs of each step (None for the local engine).
    """

    engine: str
    trace: Any
    messages: Any
    outputs: Any
    steps: int
    schedule: Schedule
    seconds: float
    rows: list[int] = field(default_factory=list)
    jobs: list[int] | None = None


def run(
    program: Program,
    data: Input,
    steps: int,
    schedule: Schedule = Schedule(),
    engine: str = "local",
    spark=None,
    incremental: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> Run:
    """Compute one run of P on H with `steps` steps under `schedule`, on the `engine` back end.

    `progress(k, rows)` is called when step k - 1 is done, with the trace rows of steps 0..k-1.
    """
    one_node_at_a_time(program, f"the {engine} run engine")
    plan = Plan.of(program, incremental)
    start = time.perf_counter()
    if engine == "local":
        if data.rows is None:
            raise ValueError("the local engine needs an input read as rows")
        backend = Local(data.network, data.rows, data.events)
    elif engine == "spark":
        session = spark if spark is not None else spark_session()
        backend = Spark(session, data.network, data.facts(), data.events, program.schema())
        backend.jobs.step(0)
    else:
        raise ValueError(f"the engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    rows: list[int] = []

    def on_step(t: int, d) -> None:
        rows.append(sum(backend.count(d).values()) if engine == "spark" else sum(map(len, d.values())))
        if engine == "spark":
            backend.jobs.step(t + 1 if t + 1 < steps else None)
        if progress is not None:
            progress(t + 1, sum(rows))

    try:
        deduced, sent = execute(backend, plan, steps, schedule, on_step)
    finally:
        if engine == "spark":
            backend.jobs.step(None)
    trace, messages = backend.trace(deduced), backend.messages(sent)
    outputs = backend.outputs(deduced[-1], plan.outputs)
    jobs = backend.jobs.per_step if engine == "spark" else None
    return Run(engine, trace, messages, outputs, steps, schedule, time.perf_counter() - start, rows, jobs)


# ---------------------------------------------------------------------------
# Parquet


def arrow_schemas():
    import pyarrow as pa

    args = pa.list_(pa.string())
    return {
        "trace": pa.schema([("node", pa.string()), ("step", pa.int32()), ("relation", pa.string()), ("args", args)]),
        "messages": pa.schema(
            [
                ("relation", pa.string()),
                ("args", args),
                ("sender", pa.string()),
                ("sent", pa.int32()),
                ("addressee", pa.string()),
                ("arrives", pa.int32()),
            ]
        ),
        "outputs": pa.schema([("node", pa.string()), ("relation", pa.string()), ("args", args)]),
    }


def _columns(rows: Sequence[tuple], width: int) -> list[list]:
    """Rows as `width` columns (one list comprehension per column: much faster than `zip(*rows)` on many rows)."""
    return [[row[i] for row in rows] for i in range(width)]


def _arrow_table(schema, columns: Sequence[Sequence]):
    """Columns (in schema order; list values as tuples or lists) as an Arrow table of `schema`."""
    import pyarrow as pa

    return pa.table([pa.array(column, type=f.type) for column, f in zip(columns, schema)], schema=schema)


def _row_order(table, columns: Sequence[tuple]):
    """The indices that sort `table` like `sorted(rows, key=lambda r: tuple("" if v is None else str(v) for v in r))`.

    Scalar columns are compared as strings in Arrow (ints cast, null as ""; UTF-8 byte order is code point
    order); a list column by `str` of its Python value in `columns` (e.g. "('a', 'b')"). The sort is stable."""
    import pyarrow as pa
    import pyarrow.compute as pc

    keys = []
    for i, f in enumerate(table.schema):
        if pa.types.is_list(f.type) or pa.types.is_large_list(f.type):
            key = pa.array(["" if v is None else str(v) for v in columns[i]], type=pa.string())
        else:
            key = pc.fill_null(pc.cast(table.column(i), pa.string()), "")
        keys.append((f"k{i}", key))
    keyed = pa.table(dict(keys))
    return pc.sort_indices(keyed, sort_keys=[(name, "ascending") for name, _ in keys])


def _write_table(path: Path, table) -> None:
    """`table` as one Parquet file `path`, written to a hidden temporary name and renamed (atomic)."""
    import pyarrow.parquet as pq

    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.parent / f".tmp-{uuid.uuid4().hex}-{path.name}"
    pq.write_table(table, temporary)
    os.replace(temporary, path)


def write_rows(path: Path, schema, rows: Iterable[tuple]) -> None:
    """Rows as one Parquet file `path`, written to a hidden temporary name and renamed (atomic)."""
    rows = rows if isinstance(rows, (list, tuple)) else list(rows)
    _write_table(path, _arrow_table(schema, _columns(rows, len(schema.names))))


def _swap(staged: Path, target: Path) -> None:
    """Replace directory `target` by `staged` (each rename atomic; a reader sees the old or the new table)."""
    if target.exists():
        old = target.parent / f".old-{uuid.uuid4().hex}-{target.name}"
        os.replace(target, old)
        os.replace(staged, target)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.replace(staged, target)


def write_run(result: Run, out: Path, metadata: dict) -> dict:
    """Write `trace`, `messages`, `outputs` (Parquet directories) and `run.json` into `out`; returns run.json."""
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    schemas = arrow_schemas()
    tables = {"trace": result.trace, "messages": result.messages, "outputs": result.outputs}
    counts = {}
    for name, data in tables.items():
        staged = out / f".staged-{uuid.uuid4().hex}-{name}"
        if result.engine == "local":
            rows = data if isinstance(data, (list, tuple)) else list(data)
            columns = _columns(rows, len(schemas[name].names))
            table = _arrow_table(schemas[name], columns)
            _write_table(staged / "part-00000.parquet", table.take(_row_order(table, columns)))
            counts[name] = len(rows)
        else:
            data.write.mode("overwrite").parquet(str(staged))
            counts[name] = None
        _swap(staged, out / name)
    if result.engine == "spark":
        counts = {name: _rows(out / name) for name in tables}
    pending = _pending(out / "messages")
    info = {
        **metadata,
        "engine": result.engine,
        "steps": result.steps,
        "schedule": result.schedule.kind,
        "max_delay": result.schedule.max_delay if result.schedule.kind == "random" else 1,
        "seed": result.schedule.seed,
        "rows": counts,
        "pending": pending,
        **({"spark_jobs_per_step": result.jobs} if result.jobs is not None else {}),
        "timings": {**metadata.get("timings", {}), "run": round(result.seconds, 4), "write": round(time.perf_counter() - start, 4)},
    }
    temporary = out / f".tmp-{uuid.uuid4().hex}-run.json"
    temporary.write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    os.replace(temporary, out / "run.json")
    return info


def _rows(directory: Path) -> int:
    import pyarrow.dataset as ds

    return ds.dataset(directory, format="parquet").count_rows()


def _pending(directory: Path) -> int:
    import pyarrow.dataset as ds

    return ds.dataset(directory, format="parquet").count_rows(filter=ds.field("arrives").is_null())


def read_table(directory: Path) -> list[dict]:
    """A Parquet table (a directory of parts, or one file) as a list of rows (dicts)."""
    import pyarrow.dataset as ds

    return ds.dataset(directory, format="parquet").to_table().to_pylist()


def program_hash(program: Program) -> str:
    return hashlib.sha256(program.text.encode()).hexdigest()
