"""The evaluator's back end on Spark DataFrames (`run --engine spark`).

`Spark` implements `evaluator.Backend` with the same operators as `local.Local`,
on DataFrames: facts are rows (node, relation, args) with args an
`array<string>`, a table of valuations has the columns node, v_X, v_Y, ... Values
are text (`values.Text`, as the user writes them), and `<` is clingo's order on
terms written in SQL (`Spark.less`, the counterpart of `values.order`). Every
table a step keeps is checkpointed (its lineage cut); `spark_session` makes the
session.
"""

from __future__ import annotations

import os
import sys
from collections import defaultdict
from functools import reduce
from typing import Iterable, Iterator, Sequence

from ..lang.ast import Atom, Comparison, Constant, Variable
from .evaluator import Pattern
from .local import EventRow
from .schedule import Schedule
from .values import value

FACTS_SCHEMA = "node string, relation string, args array<string>"
SENT_SCHEMA = "relation string, args array<string>, sender string, addressee string"
MESSAGES_SCHEMA = "relation string, args array<string>, sender string, sent int, addressee string, arrives int"


def spark_session(master: str | None = None, partitions: int | None = None):
    """The SparkSession (created once): `master`, else $SPARK_MASTER, else local[*]; UI off, case-sensitive columns."""
    os.environ.setdefault("PYSPARK_PYTHON", _python())
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", _python())
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.master(master or os.environ.get("SPARK_MASTER") or "local[*]")
        .appName("dedalus2asp")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.adaptive.enabled", os.environ.get("DEDALUS2ASP_SPARK_AQE", "false"))
        .config("spark.sql.caseSensitive", "true")
        .config("spark.driver.memory", os.environ.get("DEDALUS2ASP_DRIVER_MEMORY", "4g"))
        .config("spark.sql.shuffle.partitions", str(partitions or 8))
    )
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session


def _python() -> str:
    return sys.executable


class Spark:
    """The same operators on DataFrames; every table a step keeps is checkpointed (its lineage cut)."""

    name = "spark"

    def __init__(self, session, network: Sequence[str], facts, events: Iterable[EventRow] = ()):
        from pyspark.sql import functions as F

        self.F = F
        self.spark = session
        session.conf.set("spark.sql.caseSensitive", "true")
        self.network = tuple(network)
        self._nodes = session.createDataFrame([(x,) for x in self.network], "node string").localCheckpoint()
        if not hasattr(facts, "schema"):
            facts = session.createDataFrame([(n, r, list(a)) for n, r, a in facts], FACTS_SCHEMA)
        self._input = facts.localCheckpoint()
        at: dict[int, list] = defaultdict(list)
        for node, relation, args, step in events:
            at[step].append((node, relation, list(args)))
        self._events = {
            t: self._input.unionByName(session.createDataFrame(rows, FACTS_SCHEMA)).localCheckpoint() for t, rows in at.items()
        }

    def _column(self, name: str) -> str:
        return "node" if name == "node" else f"v_{name}"

    def input(self, t: int):
        """H(x) at step t: the persistent input facts and the events R(ā)@t."""
        return self._events.get(t, self._input)

    def nodes(self):
        return self._nodes

    def scan(self, facts, p: Pattern):
        F = self.F

        def arg(i):  # `get` is null past the end: filters may run before the relation test
            return F.get(F.col("args"), i)

        df = facts.where(F.col("relation") == p.relation)
        for i, c in p.constants:
            df = df.where(arg(i) == value(c))
        for i, j in p.same:
            df = df.where(arg(i) == arg(j))
        return df.select("node", *(arg(i).alias(self._column(name)) for name, i in p.columns))

    def join(self, a, b):
        shared = [c for c in a.columns if c in b.columns]
        return a.join(b, on=shared, how="inner")

    def _term(self, term):
        F = self.F
        return F.lit(value(term.value)) if isinstance(term, Constant) else F.col(self._column(term.name))

    def less(self, a, b):
        """clingo's `<` (numbers < names < strings) as a column expression; see `values.order`."""
        F = self.F

        def kind(c):
            return F.when(c.startswith('"'), 2).when(c.rlike(r"^-?(0|[1-9][0-9]*)$"), 0).otherwise(1)

        def text(c):
            return F.when(c.startswith('"'), F.regexp_replace(c.substr(F.lit(2), F.length(c) - 2), r"\\(.)", "$1")).otherwise(c)

        ka, kb = kind(a), kind(b)
        return (ka < kb) | (
            (ka == kb)
            & (((ka == 0) & (a.cast("long") < b.cast("long"))) | ((ka != 0) & (text(a) < text(b))))
        )

    def compare(self, table, c: Comparison):
        a, b = self._term(c.left), self._term(c.right)
        condition = {
            "=": lambda: a == b,
            "!=": lambda: a != b,
            "<": lambda: self.less(a, b),
            ">": lambda: self.less(b, a),
            "<=": lambda: self.less(a, b) | (a == b),
            ">=": lambda: self.less(b, a) | (a == b),
        }[c.op]()
        return table.where(condition)

    def antijoin(self, table, facts, p: Pattern):
        present = self.scan(facts, p)
        return table.join(present, on=list(present.columns), how="left_anti")

    def bindings(self, table) -> Iterator[dict]:
        names = [c for c in table.columns if c != "node"]
        return ({name[2:]: row[name] for name in names} for row in table.collect())

    def heads(self, table, head: Atom):
        F = self.F
        args = F.array(*(self._term(t) for t in head.args)).cast("array<string>")
        return table.select("node", F.lit(head.predicate).alias("relation"), args.alias("args"))

    def sends(self, table, head: Atom, addressee: Variable):
        F = self.F
        args = F.array(*(self._term(t) for t in head.args)).cast("array<string>")
        return table.select(
            F.lit(head.predicate).alias("relation"),
            args.alias("args"),
            F.col("node").alias("sender"),
            F.col(self._column(addressee.name)).alias("addressee"),
        )

    def _union(self, parts, schema):
        if not parts:
            return self.spark.createDataFrame([], schema)
        return reduce(lambda a, b: a.unionByName(b), parts)

    def union(self, parts):
        return self._union(list(parts), FACTS_SCHEMA)

    def union_sends(self, parts):
        return self._union(parts, SENT_SCHEMA)

    def minus(self, a, b):
        return a.subtract(b).localCheckpoint()

    def restrict(self, facts, relations):
        return facts.where(self.F.col("relation").isin(sorted(relations)))

    def contains(self, facts, previous, relations) -> bool:
        return self.restrict(previous, relations).subtract(facts).isEmpty()

    def empty(self, facts) -> bool:
        return facts.isEmpty()

    def materialize(self, facts):
        if getattr(facts, "_materialized", False):
            return facts
        done = facts.distinct().localCheckpoint()
        done._materialized = True
        return done

    def deliver(self, messages, t: int):
        F = self.F
        parts = [
            m.where(F.col("arrives") == t).select(F.col("addressee").alias("node"), "relation", "args")
            for m in messages
        ]
        return self.union(parts)

    def schedule(self, sent, t: int, steps: int, schedule: Schedule):
        """Messages sent at t, to nodes of N only, with their arrival step (null past the last step)."""
        F = self.F
        sent = sent.distinct().join(self._nodes.withColumnRenamed("node", "addressee"), "addressee", "left_semi")
        if schedule.kind == "sync":
            delay = F.lit(1)
        else:  # Schedule.delay, in SQL: the same SHA-256 of the same identity string
            identity = F.concat_ws(
                "\x1f",
                F.lit(str(schedule.seed)),
                F.col("relation"),
                F.concat_ws("\x1e", F.col("args")),
                F.col("sender"),
                F.lit(str(t)),
                F.col("addressee"),
            )
            digits = F.conv(F.substring(F.sha2(identity, 256), 1, 15), 16, 10).cast("long")
            delay = F.lit(1) + F.pmod(digits, F.lit(schedule.max_delay))
        arrives = (F.lit(t) + delay).cast("int")
        return sent.select(
            "relation",
            "args",
            "sender",
            F.lit(t).cast("int").alias("sent"),
            "addressee",
            F.when(arrives < steps, arrives).otherwise(F.lit(None)).cast("int").alias("arrives"),
        ).localCheckpoint()

    # -- a run's tables (engine.run) ---------------------------------------------

    def trace(self, deduced):
        """The trace (node, step, relation, args) of the D of each step."""
        F = self.F
        parts = [d.select("node", F.lit(t).cast("int").alias("step"), "relation", "args") for t, d in enumerate(deduced)]
        return self._union(parts, "node string, step int, relation string, args array<string>")

    def messages(self, parts):
        return self._union(parts, MESSAGES_SCHEMA)

    def outputs(self, facts, relations: Iterable[str]):
        """The rows (node, relation, args) of `facts` of `relations`."""
        return facts.where(self.F.col("relation").isin(sorted(relations))).select("node", "relation", "args")
