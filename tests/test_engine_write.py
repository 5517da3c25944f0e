"""Writing a local run as Parquet (`engine.write_run`, `engine.write_rows`): the rows, their order, atomicity."""

from __future__ import annotations

import json
from collections import Counter

import pyarrow.parquet as pq

from conftest import EXAMPLES
from dedalus2asp import pipeline
from dedalus2asp.runs import engine

TABLES = ("trace", "messages", "outputs")


def reference_order(rows):
    """The documented file order: by the string form of every value, None as ""."""
    return sorted(rows, key=lambda r: tuple("" if v is None else str(v) for v in r))


def as_rows(directory):
    """A written table as tuples, its list values as tuples (as the local engine holds them)."""
    return [tuple(tuple(v) if isinstance(v, list) else v for v in r.values()) for r in engine.read_table(directory)]


def hidden(directory):
    return sorted(p.name for p in directory.rglob(".*"))


def alg1_run(steps=12):
    program, instance, _ = pipeline.load(EXAMPLES / "jcss2014/alg1.ded", EXAMPLES / "jcss2014/alg1.facts")
    # random delays: some messages are still pending (arrives is null); 12 steps: "10" sorts before "2"
    return engine.run(program, engine.from_instance(instance, program), steps, engine.Schedule("random", 3, 5))


def test_local_run_written_row_for_row_in_the_documented_order(tmp_path):
    result = alg1_run()
    info = engine.write_run(result, tmp_path / "run", {"program": "alg1.ded"})
    assert any(m[-1] is None for m in result.messages) and max(t for _, t, _, _ in result.trace) >= 10
    schemas = engine.arrow_schemas()
    for name in TABLES:
        expected = getattr(result, name)
        written = as_rows(tmp_path / "run" / name)
        assert Counter(written) == Counter(expected), name
        assert written == reference_order(expected), name
        assert pq.read_table(tmp_path / "run" / name).schema.equals(schemas[name]), name
        assert info["rows"][name] == len(expected)
    assert info["pending"] == sum(m[-1] is None for m in result.messages)
    on_disk = json.loads((tmp_path / "run" / "run.json").read_text())
    assert on_disk == info and on_disk["program"] == "alg1.ded"
    assert hidden(tmp_path / "run") == []


def test_writing_the_same_run_twice_gives_the_same_files(tmp_path):
    result = alg1_run(6)
    engine.write_run(result, tmp_path / "a", {})
    engine.write_run(result, tmp_path / "b", {})
    engine.write_run(result, tmp_path / "b", {})  # over an existing run: swapped in, the old one removed
    for name in TABLES:
        a, b = (pq.read_table(tmp_path / d / name) for d in "ab")
        assert a.equals(b), name
        assert [p.name for p in (tmp_path / "b" / name).iterdir()] == ["part-00000.parquet"]
    assert hidden(tmp_path / "b") == [] and sorted(p.name for p in (tmp_path / "b").iterdir()) == sorted([*TABLES, "run.json"])


def test_order_of_awkward_values_matches_the_string_order(tmp_path):
    """Quotes, non-ASCII, empty and one-element args, nulls, multi-digit and negative ints, and duplicate rows."""
    trace = [
        ("n2", 10, "r", ("a", "b")),
        ("n2", 2, "r", ("a", "b")),
        ("n2", -1, "r", ("a",)),
        ("n10", 3, "r", ()),
        ("n1", 3, "r", ("it's",)),
        ("n1", 3, "r", ('"q"', "x")),
        ("n1", 3, "r", ("é",)),
        ("n1", 3, "r", ("z",)),
        ("n1", 3, "r", ("a b",)),
        ("n1", 3, "r", ("a", "b")),
        ("n1", 3, "r", ("ab",)),
        ("n1", 3, "r", ("ab",)),
    ]
    messages = [
        ("r", ("a",), "n1", 0, "n2", None),
        ("r", ("a",), "n1", 0, "n2", 1),
        ("r", ("a",), "n1", 0, "n2", 12),
        ("r", ("a",), "n1", 0, "n10", 3),
        ("r", ("a",), "n1", 11, "n2", None),
    ]
    outputs = [("n1", "r", ("b",)), ("n1", "r", ("a",)), ("n1", "q", ("ä", "a"))]
    result = engine.Run("local", trace, messages, outputs, 3, engine.Schedule(), 0.0)
    engine.write_run(result, tmp_path / "run", {})
    for name in TABLES:
        assert as_rows(tmp_path / "run" / name) == reference_order(getattr(result, name)), name


def test_empty_tables(tmp_path):
    result = engine.Run("local", [], [], [], 0, engine.Schedule(), 0.0)
    info = engine.write_run(result, tmp_path / "run", {})
    assert info["rows"] == {name: 0 for name in TABLES} and info["pending"] == 0
    for name in TABLES:
        assert pq.read_table(tmp_path / "run" / name).schema.equals(engine.arrow_schemas()[name])


def test_write_rows_takes_tuples_lists_and_generators(tmp_path):
    schema = engine.arrow_schemas()["messages"]
    rows = [("r", ("a", "b"), "n1", 0, "n2", None), ("r", ["c"], "n2", 1, "n1", 2)]
    engine.write_rows(tmp_path / "x" / "list.parquet", schema, rows)
    engine.write_rows(tmp_path / "x" / "generator.parquet", schema, (r for r in rows))
    engine.write_rows(tmp_path / "x" / "empty.parquet", schema, [])
    for file in ("list", "generator"):
        table = pq.read_table(tmp_path / "x" / f"{file}.parquet")
        assert table.schema.equals(schema)
        assert [tuple(r.values()) for r in table.to_pylist()] == [  # as given: write_rows does not sort
            ("r", ["a", "b"], "n1", 0, "n2", None),
            ("r", ["c"], "n2", 1, "n1", 2),
        ]
    assert pq.read_table(tmp_path / "x" / "empty.parquet").num_rows == 0
    assert hidden(tmp_path / "x") == []
