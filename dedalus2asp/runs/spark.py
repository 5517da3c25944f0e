"""The evaluator's back end on Spark DataFrames (`run --engine spark`), designed for Spark.

`Spark` implements `backend.Backend` after BigDatalog's parallel semi-naive
evaluation (Shkapsky, Yang, Interlandi, Chiu, Condie, Zaniolo, *Big Data Analytics
with Datalog Queries on Spark*, SIGMOD 2016): the evaluator (`evaluator.deduc`)
runs each recursive component semi-naively, and this back end makes each of its
operators a cheap, lazy DataFrame operation, so that a step of the run is a few
Spark jobs:

* **One DataFrame per relation**, with one column per argument: the facts of R/k
  at every node are a DataFrame (node, a0, ..., a{k-1}) (`Relations`); a scan
  reads only its relation, with no filter on a relation name. A relation with no
  fact has no DataFrame, and an atom that reads it is an empty table the
  optimizer folds away.
* **Values as order-preserving keys** (`keys`). Every cell (the node included) is a
  string whose byte order is clingo's order on terms, so `<`, min and max are plain
  string comparisons, equality is string equality, and a join compares strings.
  Values are decoded (`keys.decode`) only when a run's tables are written.
* **Partitioned by the node.** Every input relation is hash-partitioned by its
  node column, and Spark is told (`spark.sql.requireAllClusterKeysForCoPartition`
  off) that tables partitioned by the node are co-partitioned for every join on
  the node and more columns: every join of a rule body is on the node, so the
  large relations are joined without a shuffle. No relation is broadcast
  (`spark.sql.autoBroadcastJoinThreshold` off): a broadcast is a Spark job of its
  own, and a join of co-partitioned tables needs none.
* **Jobs only where a result is needed.** Tables are lazy; a set of facts that a
  step reuses (its I, a semi-naive delta, a stratum's result, D, the messages it
  sends: read when delivered and again when the run is written) is locally
  checkpointed lazily: it is computed once, by the first job that needs it, and
  its lineage is cut there. Planning a checkpoint costs the driver about 0.15 s,
  more than most steps' data, so there are few: the step's I once
  (`evaluator.execute`), a relation a stratum derives, the delta of a round
  (not the new facts an incremental start begins with: in most steps there are
  none). The jobs of a step are then one per round of a recursive component (is
  the delta empty? `empty` counts every relation of it in one job), where the
  incremental start's round (`since`) also checks that nothing of the previous D
  is missing and counts I; and one that counts D (`rows`, the progress of `run`)
  unless a count already has. A steady step of jcss2014 Alg. 1, where nothing new
  arrives, is two jobs. `Jobs` counts them per step with the status tracker.

Messages are kept per relation too (sender, sent, addressee, arrives, a0...).
`session.spark_session` makes the session (log level, no console progress bar, the JVM's options).
"""

from __future__ import annotations

import re
from collections import defaultdict
from functools import reduce
from typing import Iterable, Iterator, Sequence

from ..lang.ast import GLOBAL_NODE, Arithmetic, Atom, Comparison, Constant, Variable
from .body import Aggregation, Pattern
from .keys import decode, decode_column, encode, encode_column, number, number_key, wrap
from .local import EventRow
from .schedule import Schedule
from .session import Jobs
from .values import value

FACTS_SCHEMA = "node string, relation string, args array<string>"
"""The long form of input facts (`engine.read_directory` with Spark): values as text."""

MISSING, HELD = "", "\x00"
"""The tags of a missing fact and (before its relation) of a fact held in `Spark.since`'s count (no relation
is named so)."""


# ---------------------------------------------------------------------------
# Facts: one DataFrame per relation


class Relations(dict):
    """Facts at every node: relation -> DataFrame (node, a0, ..., a{k-1}) of keys; no entry, no fact.

    `counts`, once a job has counted them, the rows of each relation.
    """

    counts: dict[str, int] | None = None
    materialized: bool = False


class Spark:
    """`backend.Backend` on DataFrames: one per relation, keys in clingo's order, partitioned by the node."""

    name = "spark"

    def __init__(self, session, network: Sequence[str], facts, events: Iterable[EventRow] = (), schema: dict[str, int] | None = None):
        from pyspark.sql import functions as F

        self.F = F
        self.spark = session
        self.partitions = int(session.conf.get("spark.sql.shuffle.partitions"))
        self.network = tuple(network)
        self._keys = [encode(x) for x in self.network]
        self._nodes = cut(self._partitioned(_local_frame(session, ["node"], [(k,) for k in self._keys])))
        self._input = self._relations_of(facts, schema or {})
        at: dict[int, list] = defaultdict(list)
        for node, relation, args, step in events:
            at[step].append((node, relation, args))
        self._events = {t: self.union([self._input, self._from_rows(rows)]) for t, rows in at.items()}
        self._max_delay = 1
        self._global = encode(value(GLOBAL_NODE))
        self._observer = _local_frame(session, ["node"], [(self._global,)])
        self.jobs = Jobs(session)

    # -- input -------------------------------------------------------------------

    def _frame(self, arity: int, rows: Sequence[tuple]):
        """Rows of keys (node, a0, ...) as a DataFrame, through Arrow: the data goes to the JVM, so reading
        it starts no Python worker (a DataFrame made from a Python list is a Python RDD)."""
        return _local_frame(self.spark, ["node", *(f"a{i}" for i in range(arity))], rows)

    def _from_rows(self, rows: Iterable[tuple]) -> Relations:
        """(node, relation, args) rows of text as `Relations` (small: events, a located program's facts)."""
        grouped: dict[str, set[tuple]] = defaultdict(set)
        for node, relation, args in rows:
            grouped[relation].add((encode(node), *map(encode, args)))
        out = Relations()
        for relation, keys in grouped.items():
            arity = len(next(iter(keys))) - 1
            out[relation] = self._partitioned(self._frame(arity, sorted(keys)))
        return out

    def _relations_of(self, facts, schema: dict[str, int]) -> Relations:
        """The input H: rows of text, or a DataFrame in the long form `FACTS_SCHEMA`, split by relation."""
        if not hasattr(facts, "schema"):
            out = self._from_rows(facts)
            for relation in out:
                out[relation] = cut(out[relation])
            return out
        F = self.F
        out = Relations()
        for relation, arity in sorted(schema.items()):
            df = facts.where(F.col("relation") == relation).select(
                encode_column(F, F.col("node")).alias("node"),
                *(encode_column(F, F.get(F.col("args"), i)).alias(f"a{i}") for i in range(arity)),
            )
            out[relation] = cut(self._partitioned(df).distinct())
        return out

    def _partitioned(self, df):
        return df.repartition(self.partitions, "node")

    def _empty(self, columns: Sequence[str]):
        return _local_frame(self.spark, columns, [])

    # -- the evaluator's operators (backend.Backend) --------------------------

    def input(self, t: int) -> Relations:
        """H(x) at step t: the persistent input facts and the events R(ā)@t."""
        return self._events.get(t, self._input)

    def nodes(self):
        return self._nodes

    def _column(self, name: str) -> str:
        return f"v_{name}"

    def scan(self, facts: Relations, p: Pattern):
        F = self.F
        columns = ["node", *(self._column(name) for name, _ in p.columns)]
        df = facts.get(p.relation)
        if df is None:
            return self._empty(columns)
        for i, c in p.constants:
            df = df.where(F.col(f"a{i}") == encode(value(c)))
        for i, j in p.same:
            df = df.where(F.col(f"a{i}") == F.col(f"a{j}"))
        return df.select("node", *(F.col(f"a{i}").alias(self._column(name)) for name, i in p.columns))

    def join(self, a, b):
        shared = [c for c in a.columns if c in b.columns]
        return a.join(_hashed(b), on=shared, how="inner")

    def _term(self, term):
        """A constant or a column (`Body.of` has made every expression a column of its own) as a key column."""
        F = self.F
        if isinstance(term, Constant):
            return F.lit(encode(value(term.value)))
        if isinstance(term, Variable):
            return F.col(self._column(term.name))
        raise NotSupported(f"the term '{term}' is not supported by the spark engine")

    def _integer(self, term):
        """An integer expression as a long column with clingo's semantics (`values.arithmetic`): 32-bit
        integers that wrap around, `/` and `%` truncating toward zero; null where it has no value (a division
        by zero, an operand that is a name or a string)."""
        F = self.F
        if not isinstance(term, Arithmetic):
            return number(F, self._term(term))
        right = self._integer(term.right)
        if term.left is None:
            return wrap(F, -right)
        left = self._integer(term.left)
        if term.op in ("+", "-", "*"):
            return wrap(F, {"+": left + right, "-": left - right, "*": left * right}[term.op])
        remainder = left % right  # Java's remainder: truncated, the sign of the dividend, as C's and clingo's
        if term.op == "/":
            return F.when(right != 0, wrap(F, ((left - remainder) / right).cast("long")))  # exact: a whole quotient
        if term.op == "%":
            return F.when(right != 0, wrap(F, remainder))
        raise NotSupported(f"the operator '{term.op}' is not supported by the spark engine")

    def extend(self, table, name: str, term):
        """`table` with the column `name`: the value of `term` per row; a row where it has none is left out."""
        F = self.F
        column = number_key(F, self._integer(term)) if isinstance(term, Arithmetic) else self._term(term)
        out = table.withColumn(self._column(name), column)
        return out.where(F.col(self._column(name)).isNotNull()) if isinstance(term, Arithmetic) else out

    def compare(self, table, c: Comparison):
        a, b = self._term(c.left), self._term(c.right)
        condition = {"=": a == b, "!=": a != b, "<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}[c.op]
        return table.where(condition)  # keys compare in clingo's order

    def antijoin(self, table, facts: Relations, p: Pattern):
        if p.relation not in facts:
            return table
        present = self.scan(facts, p)
        return _without(table, present)

    def aggregate(self, table, keys: Sequence[str], aggregations: Sequence[Aggregation]):
        """One row per group (node, keys) of the distinct rows: count distinct values, sum of the integers over
        the distinct rows (wrapped to 32 bits; 0 when there is none), min and max of the keys (clingo's order)."""
        F = self.F
        parts = []
        for function, column, result in aggregations:
            c = F.col(self._column(column))
            if function == "count":
                part = number_key(F, F.count_distinct(c).cast("long"))
            elif function == "sum":
                part = number_key(F, wrap(F, F.coalesce(F.sum(number(F, c)), F.lit(0).cast("long"))))
            elif function in ("min", "max"):
                part = (F.min if function == "min" else F.max)(c)
            else:
                raise NotSupported(f"the aggregate '{function}' is not supported by the spark engine")
            parts.append(part.alias(self._column(result)))
        groups = ["node", *(self._column(k) for k in keys)]
        return table.distinct().groupBy(*groups).agg(*parts)

    def bindings(self, table) -> Iterator[dict]:
        names = [c for c in table.columns if c != "node"]
        return ({name[2:]: decode(row[name]) for name in names} for row in table.collect())

    def heads(self, table, head: Atom) -> Relations:
        return Relations({head.predicate: table.select("node", *(self._term(t).alias(f"a{i}") for i, t in enumerate(head.args)))})

    def sends(self, table, head: Atom, addressee: Variable) -> Relations:
        """The messages `head` per row, from the row's node to the value of `addressee`."""
        F = self.F
        out = table.select(
            F.col("node").alias("sender"),
            F.col(self._column(addressee.name)).alias("addressee"),
            *(self._term(t).alias(f"a{i}") for i, t in enumerate(head.args)),
        )
        return Relations({head.predicate: out})

    def gather(self, facts: Relations, relations) -> Relations:
        """Every fact R(ā) of `relations` at node x as R(x, ā) at the global node (what a global rule reads)."""
        F = self.F
        out = Relations()
        for relation, df in facts.items():
            if relation in relations:
                args = _args_of(df)
                out[relation] = df.select(
                    F.lit(self._global).alias("node"), F.col("node").alias("a0"),
                    *(F.col(a).alias(f"a{i + 1}") for i, a in enumerate(args)),
                )
        return out

    def observer(self):
        """One empty valuation at the global node."""
        return self._observer

    def union(self, parts: Sequence[Relations]) -> Relations:
        grouped: dict[str, list] = defaultdict(list)
        for part in parts:
            for relation, df in part.items():
                grouped[relation].append(df)
        return Relations({r: reduce(lambda a, b: a.unionByName(b), dfs) for r, dfs in grouped.items()})

    def union_sends(self, parts: Sequence[Relations]) -> Relations:
        return self.union(parts)

    def minus(self, a: Relations, b: Relations) -> Relations:
        """The facts of `a` not in `b`, distinct, checkpointed lazily (a delta is read by the next round)."""
        return Relations({relation: cut(_without(df, b.get(relation)).distinct()) for relation, df in a.items()})

    def restrict(self, facts: Relations, relations) -> Relations:
        return Relations({r: df for r, df in facts.items() if r in relations})

    def silence(self, facts: Relations, nodes: Sequence[str], keep) -> Relations:
        down = [encode(x) for x in nodes]
        return Relations({r: df if r in keep else df.where(~self.F.col("node").isin(down)) for r, df in facts.items()})

    def since(self, facts: Relations, previous: Relations, relations) -> Relations | None:
        """The facts of `relations` in `facts` not in `previous`, or None if a fact of `previous` of
        `relations` is missing from `facts`, in one job that counts the missing facts, the new ones of each
        relation and, if `facts` is materialized, its own (`count`). The new facts are not checkpointed: in
        the usual step of a run there are none, and a checkpoint costs the driver more than computing them
        again once for the next round."""
        F = self.F
        new = Relations()
        missing, tagged = [], []
        for relation, df in facts.items():
            if relation not in relations:
                continue
            new[relation] = _without(df, previous.get(relation)).distinct()
            tagged.append(new[relation].select(F.lit(relation).alias("relation")))
        for relation, df in previous.items():
            if relation in relations:
                missing.append(_without(df, facts.get(relation)).select(F.lit(MISSING).alias("relation")))
        held = facts.materialized and facts.counts is None
        if held:
            tagged += [df.select(F.lit(HELD + relation).alias("relation")) for relation, df in facts.items()]
        counts = self._counts([*tagged, *missing])
        if held:
            facts.counts = {r: counts.get(HELD + r, 0) for r in facts}
        if counts.get(MISSING):
            return None
        new.counts = {r: counts.get(r, 0) for r in new}
        return new

    def _counts(self, tagged: Sequence) -> dict[str, int]:
        """The rows of each tag of `tagged` (frames of one column, `relation`), in one job; {} for no frame."""
        if not tagged:
            return {}
        rows = reduce(lambda a, b: a.unionByName(b), tagged).groupBy("relation").count().collect()
        return {row.relation: row["count"] for row in rows}

    def count(self, facts: Relations) -> dict[str, int]:
        """The rows of each relation of `facts`, in one job (which also computes their lazy checkpoints)."""
        if facts.counts is None:
            F = self.F
            counts = self._counts([df.select(F.lit(relation).alias("relation")) for relation, df in facts.items()])
            facts.counts = {r: counts.get(r, 0) for r in facts}
        return facts.counts

    def empty(self, facts: Relations) -> bool:
        return not any(self.count(facts).values())

    def materialize(self, facts: Relations) -> Relations:
        """Distinct facts, checkpointed lazily: computed by the first job that reads them, and then kept.

        Only the relations whose DataFrame is new are checkpointed (planning one costs the driver more
        than most steps' data): a relation that a stratum did not derive keeps its checkpointed frame."""
        if facts.materialized:
            return facts
        out = Relations({r: cut(df.distinct()) if not is_cut(df) else df for r, df in facts.items()})
        out.materialized = True
        return out

    def deliver(self, messages: Sequence[Relations], t: int) -> Relations:
        """untag(m) of the messages arriving at t: only the tables of the last `max_delay` steps can hold one."""
        F = self.F
        parts = []
        for part in messages[max(0, t - self._max_delay):t]:
            parts.append(Relations({
                relation: df.where(F.col("arrives") == t).select(F.col("addressee").alias("node"), *_args_of(df))
                for relation, df in part.items()
            }))
        return self.union(parts)  # not distinct: the same fact may arrive from several senders or steps, and
        # the step's I (`evaluator.execute`), which holds them, is made distinct and kept by `materialize`

    def schedule(self, sent: Relations, t: int, steps: int, schedule: Schedule) -> Relations:
        """Messages sent at t, to nodes of N only, with their arrival step (null past the last step)."""
        F = self.F
        self._max_delay = max(self._max_delay, schedule.max_delay if schedule.kind == "random" else 1)
        out = Relations()
        for relation, df in sent.items():
            args = _args_of(df)
            addressee = F.col("addressee")  # to nodes of N only; each message once, at its addressee's partition
            df = df.where(addressee.isin(self._keys)).repartition(self.partitions, "addressee").distinct()
            lost = self._lost(schedule, t)
            if lost is not None:
                df = df.where(~lost)
            if schedule.kind == "sync":
                delay = F.lit(1)
            else:  # Schedule.delay, in SQL: the same SHA-256 of the same identity string (of the values as text)
                identity = F.concat_ws(
                    "\x1f",
                    F.lit(str(schedule.seed)),
                    F.lit(relation),
                    F.concat_ws("\x1e", F.array(*(decode_column(F, F.col(a)) for a in args)).cast("array<string>")),
                    decode_column(F, F.col("sender")),
                    F.lit(str(t)),
                    decode_column(F, F.col("addressee")),
                )
                digits = F.conv(F.substring(F.sha2(identity, 256), 1, 15), 16, 10).cast("long")
                delay = F.lit(1) + F.pmod(digits, F.lit(schedule.max_delay))
            arrives = (F.lit(t) + delay).cast("int")
            out[relation] = cut(df.select(
                "sender",
                F.lit(t).cast("int").alias("sent"),
                "addressee",
                F.when(arrives < steps, arrives).otherwise(F.lit(None)).cast("int").alias("arrives"),
                *args,
            ))  # checkpointed lazily: computed once (by the step that delivers them), read again when written
        return out

    def _lost(self, schedule: Schedule, t: int):
        """`Schedule.lost` for the messages sent at t, as a condition on (sender, addressee); None: none is lost."""
        F = self.F
        crashed = [encode(x) for x, s in getattr(schedule, "crashes", ()) if s <= t]
        omitted = [(encode(x), encode(y)) for x, s, y in getattr(schedule, "omissions", ()) if s == t]
        if not crashed and not omitted:
            return None
        sender, addressee = F.col("sender"), F.col("addressee")
        condition = sender.isin(crashed) if crashed else F.lit(False)
        for x, y in omitted:
            condition = condition | ((sender == x) & (addressee == y))
        return (sender != addressee) & condition

    # -- a run's tables (engine.run) ---------------------------------------------

    def _key_array(self, df):
        return self.F.array(*(self.F.col(a) for a in _args_of(df))).cast("array<string>").alias("args")

    def _decoded(self, parts, columns: Sequence[str], schema: str):
        """The union of `parts` (rows of keys), decoded once: the expressions that decode are built for the
        union rather than for each part (each is many calls into the JVM, more than the rows of a small part)."""
        F = self.F
        if not parts:
            return self.spark.createDataFrame(self.spark.sparkContext.emptyRDD(), schema)
        union = reduce(lambda a, b: a.unionByName(b), parts)
        text = {c: decode_column(F, F.col(c)).alias(c) for c in ("node", "sender", "addressee")}
        text["args"] = F.transform(F.col("args"), lambda k: decode_column(F, k)).alias("args")
        return union.select(*(text.get(c, c) for c in columns))

    def trace(self, deduced: Sequence[Relations]):
        """The trace (node, step, relation, args) of the D of each step, values as text."""
        F = self.F
        parts = [
            df.select("node", F.lit(t).cast("int").alias("step"), F.lit(relation).alias("relation"), self._key_array(df))
            for t, d in enumerate(deduced) for relation, df in d.items()
        ]
        columns = ("node", "step", "relation", "args")
        return self._decoded(parts, columns, "node string, step int, relation string, args array<string>")

    def messages(self, parts: Sequence[Relations]):
        F = self.F
        frames = [
            df.select(F.lit(relation).alias("relation"), self._key_array(df), "sender", "sent", "addressee", "arrives")
            for part in parts for relation, df in part.items()
        ]
        columns = ("relation", "args", "sender", "sent", "addressee", "arrives")
        return self._decoded(
            frames, columns, "relation string, args array<string>, sender string, sent int, addressee string, arrives int"
        )

    def outputs(self, facts: Relations, relations: Iterable[str]):
        """The rows (node, relation, args) of `facts` of `relations`, values as text."""
        F = self.F
        parts = [
            df.select("node", F.lit(relation).alias("relation"), self._key_array(df))
            for relation, df in facts.items() if relation in set(relations)
        ]
        return self._decoded(parts, ("node", "relation", "args"), "node string, relation string, args array<string>")


def cut(df):
    """`df` checkpointed lazily (computed by the first job that reads it, kept, its lineage cut), marked so."""
    out = df.localCheckpoint(eager=False)
    out._dedalus2asp_cut = True
    return out


def _hashed(df):
    """`df` as the side a join builds a hash table of (Spark's shuffle_hash hint): no sort of either side."""
    return df.hint("shuffle_hash")


def _without(df, other):
    """The rows of `df` with no row of `other` equal on `other`'s columns (all of them `df`'s); `df` if `other` is None."""
    return df if other is None else df.join(_hashed(other), on=list(other.columns), how="left_anti")


def is_cut(df) -> bool:
    """Whether `df` is a checkpoint `cut` made."""
    return getattr(df, "_dedalus2asp_cut", False)


def _local_frame(session, columns: Sequence[str], rows: Sequence[tuple]):
    """A DataFrame of string columns from rows in the driver, through an Arrow table (no Python RDD)."""
    import pyarrow as pa

    data = {c: pa.array([row[i] for row in rows], type=pa.string()) for i, c in enumerate(columns)}
    return session.createDataFrame(pa.table(data) if columns else pa.table({}))


def _args_of(df) -> list[str]:
    """The argument columns a0, a1, ... of a table of facts or messages, in order."""
    return sorted((c for c in df.columns if re.fullmatch(r"a\d+", c)), key=lambda c: int(c[1:]))


class NotSupported(Exception):
    """A construct of the program that the Spark engine cannot evaluate (the command reports it, exit 2)."""
