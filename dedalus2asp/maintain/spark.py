"""Maintenance on Spark: psn2010's synchronous semi-naive algorithm (Algorithm 2) as DataFrame joins.

psn2010 §4 proves that every PSN execution ends in the view of synchronous semi-naive (SN) maintenance,
Algorithm 2, where all nodes process all their updates in one iteration and then synchronize; §5 extends
both with derivation sets. An SN iteration is a join of the updates with the view: the shape of a Spark
job. Here every relation is a DataFrame (a0 … a{k-1}, S, H, n): a fact, the derivation set S and the
infinite-count set H shared by some of its derivations (psn2010 Fig. 2), and how many derivations have
them. The driver holds no row of a view during maintenance: it sees counts only (one small `collect` of
sums per job); `SparkEngine.view` collects the view only when asked for it (to print it).

* **Updates as signed multisets.** A burst is, per base relation, the facts with a signed count
  (+1 per ⟨INS, f⟩, −1 per ⟨DEL, f⟩). psn2010 §3.2's delta rules

      ⟨U, h⟩ :- b1ν, …, b(i-1)ν, Δbi, b(i+1), …, bn

  are one join per body position i: the relations before i at their new value (old ⊎ Δ, not even
  consolidated: a join is linear in each argument, and a deleted fact's −1 cancels its +1), Δbi, and
  the relations after i at their old value. The head's count is the product of the body's counts and
  its sign that of Δbi (INS or DEL), so each derivation is counted once (psn2010 Lemma 1).
* **Non-recursive relations: counting**, relation by relation in a topological order (merging SN
  iterations, which psn2010 §4's discussion allows). With no recursive component a burst is one Spark
  job: the joins are lazy, and the job that sums what changed computes them.
* **Recursive components** (`algorithm`):
  - "psn": SN rounds with Fig. 2's derivation sets: S of a derived fact is the body facts of its own
    component and their S; a derivation whose head is in its S puts the head into H (a cycle: infinitely
    many derivations); one whose head is already in its H is not sent. The rounds end (Theorem 20) and
    the view is psn2010's, counts included. Derivation sets
    are per derivation: on a routing table, one per path, which grows exponentially with the graph.
  - "dred": DRed (Gupta, Mumick, Subrahmanian, *Maintaining Views Incrementally*, SIGMOD 1993) on
    sets: over-delete what a deleted fact derived, re-derive what keeps a derivation, insert
    semi-naively. Recursive relations hold each fact once (count 1, no S or H), and relations that read
    them count derivations over those facts.
  - Both: a Spark job per batch of rounds (are they empty?), built lazily, 1, 2, then `ROUNDS` at a time
    (`_rounds`).
* **Where the rows live.** Every view, delta and set of derived facts is hash-partitioned on its node
  (the location column: `placed`), and a relation below a recursive component is checkpointed once per burst
  partitioned on the key its rule joins it with (`keyed`). A localized rule's body is at one node, so a round
  joins its delta with them and asks which derived facts are new where the rows lie; it moves (shuffles) one
  thing, its derived facts to their nodes, and never the view.
* **The view as its last compaction plus the deltas since** (`Stored`). A burst does not rewrite the view: its
  last job sums what changed and writes, per relation, the burst's consolidated delta (signed counts, S and H),
  which joins the list of deltas kept since the view's last compaction; the view is their union, not
  consolidated (a fact deleted since has a row +c in the compaction and −c in a delta). psn2010's delta rules
  are linear in each body argument (a derivation's count is the product of its body's counts, and S and H
  depend on a row's annotation only), so joining the rows of a fact one by one and summing gives what joining
  their sum gives: the rounds read the union as they read a consolidated view. What is not linear reads sums:
  the counts before and after a burst (`_changes`), the facts and the infinite ones (`facts`: the union
  consolidated first, so that a fact whose rows cancel is absent and only rows that stay make a fact
  infinite), DRed's question whether a fact is in the view (`absent`: the sum of its rows is positive) and its
  lower relations as sets (`settled`). When a relation's deltas hold more rows than `COMPACT` of its last
  compaction's (both counted by the jobs that wrote them), one job consolidates them into a new compaction
  (`compact`). A burst that deletes a fact that is not there commits nothing: its deltas are dropped. The
  messages counted are the derivations the rounds move: with deltas kept, those through rows that cancel
  (sent and taken back) are among them.
* **Messages.** A localized rule's body is at one node (psn2010 §2.2); a derived update whose node is
  not the body's is a message. The engine counts per node the updates processed and messages sent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import reduce
from typing import Collection, Iterable, Mapping, Sequence

import time
from collections import Counter

import clingo

from ..lang.analysis import strongly_connected
from ..lang.ast import Variable
from ..runs.session import Jobs
from ..runs.spark import cut, is_cut
from .ddlog import DDlogProgram, Fact
from .engine import BurstStats, fill_changes, node_name
from .updates import INSERT, Base, Burst
from .view import View, changes

# ---------------------------------------------------------------------------
# The program as plain data: relations and text values, what the DataFrames hold


@dataclass(frozen=True)
class Term:
    """A variable (`variable`: its name) or a constant (its text, as a fact writes it)."""

    text: str
    variable: bool


@dataclass(frozen=True)
class Pattern:
    """An atom: a relation, its terms, and which of them is the location (the node)."""

    relation: str
    terms: tuple[Term, ...]
    location: int = 0


@dataclass(frozen=True)
class SparkRule:
    """A localized rule: every body atom at the node of the first one; the head anywhere."""

    head: Pattern
    body: tuple[Pattern, ...]


def patterns(program: DDlogProgram) -> tuple[SparkRule, ...]:
    """The localized rules of `program` as `SparkRule`s (constants as the text of their symbol)."""

    def pattern(atom) -> Pattern:
        terms = tuple(Term(a.name, True) if isinstance(a, Variable) else Term(str(a.value), False) for a in atom.args)
        return Pattern(atom.predicate, terms, program.columns.get(atom.predicate, 0))

    return tuple(SparkRule(pattern(r.head), tuple(pattern(b) for b in r.body)) for r in program.localized if r.body)


def components(rules: Sequence[SparkRule]) -> list[tuple[tuple[str, ...], bool]]:
    """The derived relations' strongly connected components, bodies first (a topological order), each with
    whether it is recursive (a cycle through its relations, a self-loop included): `analysis.strongly_connected`
    (Tarjan's algorithm emits a component after every component it reads)."""
    heads = sorted({r.head.relation for r in rules})
    edges = {h: sorted({b.relation for r in rules if r.head.relation == h for b in r.body if b.relation in heads}) for h in heads}
    return [(tuple(sorted(members)), len(members) > 1 or members[0] in edges[members[0]])
            for members in strongly_connected(heads, edges)]


# ---------------------------------------------------------------------------
# The engine on plain data

ALGORITHMS = ("psn", "dred")
ROUNDS = 4
"""The most semi-naive rounds of a recursive component that one Spark job computes (`SparkMaintainer._rounds`)."""
SMALL = 20_000
"""The most base updates of a burst whose deltas are hashed in joins (`SparkMaintainer.hashed`)."""
COMPACT = 0.5
"""A relation's view is compacted when the rows of its deltas exceed this fraction of its last compaction's
(`SparkMaintainer.compact_at`). Every round of a burst streams the whole view past its delta, deltas included, and
a compaction writes the whole view once (what a burst did before the deltas were kept): a smaller fraction
compacts more often, a larger one makes every round read more. Measured at 10,000 edges, twelve 1% bursts kept up
to 38% of the view as deltas at no visible cost a burst, and one at 100,000 edges costs about what a rewrite did,
5 s: docs/maintain.md ("The view kept as deltas, measured")."""


@dataclass(frozen=True)
class Stored:
    """A relation's view as Spark keeps it: `base`, its last compaction (consolidated: one row per fact and
    annotation), and `deltas`, the consolidated changes of the bursts since, each a checkpointed frame; `rows`
    and `delta_rows` count their rows (the jobs that wrote them counted them). The view is the union of them all,
    unconsolidated: a fact may have rows whose counts sum to 0 (deleted since), and is then absent."""

    base: object
    rows: int = 0
    deltas: tuple = ()
    delta_rows: int = 0

    def frame(self):
        return _union([self.base, *self.deltas])

    def add(self, delta, rows: int) -> "Stored":
        """With a burst's consolidated `delta` of `rows` rows: a delta onto an empty view is its new base."""
        if not rows:
            return self
        if not self.rows and not self.deltas:
            return Stored(delta, rows)
        return Stored(self.base, self.rows, (*self.deltas, delta), self.delta_rows + rows)


@dataclass
class Totals:
    """What a burst did, counted on Spark: per relation the facts that appeared and disappeared (as sets),
    per node the updates processed and the messages sent, the rounds of the recursive components and the
    Spark jobs, and the seconds up to each of the burst's jobs from the one before (its planning and its run)
    with the phase each job ends (`phases`: "rounds", DRed's "over-delete" and "re-derive, insert", "deltas": the
    last, which sums what changed and writes the burst's deltas, and "compact");
    `missing`: base deletions of facts that were not there (nothing was committed); `compacted`: the relations
    whose view the burst compacted (`SparkMaintainer.compact`)."""

    inserted: dict[str, int] = field(default_factory=dict)
    deleted: dict[str, int] = field(default_factory=dict)
    updates: dict[str, int] = field(default_factory=dict)
    messages: dict[str, int] = field(default_factory=dict)
    rounds: int = 0
    jobs: int = 0
    missing: int = 0
    seconds: list[float] = field(default_factory=list)
    phases: list[str] = field(default_factory=list)
    compacted: list[str] = field(default_factory=list)


class SparkMaintainer:
    """A view of `rules` on Spark, maintained under bursts of signed base updates (module docstring).

    Every relation is a DataFrame (a0…, S, H, n): a fact, the derivation set S and infinite-count set H of
    its derivations (psn2010 Fig. 2; empty outside recursive components, and always with `dred`), and how
    many derivations have them. `view` is each relation's view as the rules read it: the union of its `stored`
    frames (`Stored`: the last compaction and the deltas since)."""

    compact_at = COMPACT
    """The fraction of a compaction's rows that its deltas' rows may reach before the next (`COMPACT`)."""

    def __init__(self, session, rules: Sequence[SparkRule], arity: Mapping[str, int], locations: Mapping[str, int],
                 algorithm: str = "psn", shown: Iterable[str] | None = None):
        from pyspark.sql import functions as F

        if algorithm not in ALGORITHMS:
            raise ValueError(f"algorithm must be one of {', '.join(ALGORITHMS)}, not {algorithm!r}")
        self.F = F
        self.spark = session
        self.rules = tuple(rules)
        self.arity = dict(arity)
        self._location = {rel: locations.get(rel, 0) for rel in self.arity}
        self.algorithm = algorithm
        self.derived = {r.head.relation for r in self.rules}
        self.shown = set(self.arity if shown is None else shown) | (set(self.arity) - self.derived)
        self.order = components(self.rules)
        self.component = {rel: set(members) if recursive else set() for members, recursive in self.order for rel in members}
        self.stored = {rel: Stored(self.empty(rel)) for rel in self.arity}
        self.view: dict[str, object] = {rel: stored.frame() for rel, stored in self.stored.items()}
        self.bursts = 0
        self.jobs = Jobs(session)
        self._memo: dict = {}

    # -- plans built from columns made once ----------------------------------------------

    memo = True
    """Whether the lists of columns a round's plan is built from are made once per maintainer (`_seq`). False
    makes them anew at every call, as pyspark's `select(*columns)` does: kept to measure what it saves."""

    batch = ROUNDS
    """The most rounds one job computes (`_rounds`)."""

    late_key = True
    """Whether the body facts that go into a derivation set S are made from a join's output (the derivations' own
    columns), not from every row of a body frame before the join (`fire`): the first round streams the whole view."""

    def _seq(self, key, build, names: bool = False):
        """The JVM Seq of the Columns (or, `names`, of the strings) `build()` returns, made once per `key`.

        Every round of a recursive component builds the same plan over other frames: the same projections,
        groupings and join keys. pyspark makes each Column and each Seq of them with a py4j call apiece (a
        `select` of 8 aliased columns: about 30 calls, 25 ms on the shared machine, against one call, 2 ms,
        when its Seq is made once); a Column names its inputs, so one made once serves every frame."""
        seq = self._memo.get(key) if self.memo else None
        if seq is None:
            from pyspark.sql.classic.column import _to_java_column, _to_seq

            seq = _to_seq(self.spark.sparkContext, list(build()), None if names else _to_java_column)
            if self.memo:
                self._memo[key] = seq
        return seq

    def _column(self, key, build):
        """The Column `build()` returns, made once per `key` (`_seq`)."""
        column = self._memo.get(key) if self.memo else None
        if column is None:
            column = build()
            if self.memo:
                self._memo[key] = column
        return column

    def _frame(self, jdf):
        from pyspark.sql.classic.dataframe import DataFrame

        return DataFrame(jdf, self.spark)

    def select(self, df, key, build):
        """`df.select(*build())`, its columns made once per `key`."""
        return self._frame(df._jdf.select(self._seq(("select", key), build)))

    def where(self, df, key, build):
        """`df.where(build())`, the condition made once per `key`."""
        return self._frame(df._jdf.filter(self._column(("where", key), build)._jc))

    def join(self, df, other, on: Sequence[str], how: str):
        """`df.join(other, on=on, how=how)` on columns named alike, the Seq of names made once."""
        on = tuple(on)
        return self._frame(df._jdf.join(other._jdf, self._seq(("on", on), lambda: on, names=True), how))

    def aggregate(self, df, key, by, sums):
        """`df.groupBy(*by()).agg(*sums())`, the columns made once per `key`."""
        grouped = df._jdf.groupBy(self._seq(("by", key), by))
        first = self._column(("sum", key), lambda: sums()[0])
        return self._frame(grouped.agg(first._jc, self._seq(("sums", key), lambda: sums()[1:])))

    # -- frames ------------------------------------------------------------------

    def columns(self, relation: str) -> list[str]:
        return [f"a{i}" for i in range(self.arity[relation])]

    def keys(self, relation: str) -> list[str]:
        return [*self.columns(relation), "S", "H"]

    def empty(self, relation: str):
        return self.frame(relation, [])

    def frame(self, relation: str, rows: Iterable[tuple[tuple[str, ...], int]]):
        """Facts (args as text, signed count) from the driver as a DataFrame, through Arrow (a burst, a small E)."""
        import pyarrow as pa

        rows = list(rows)
        data = {c: pa.array([args[i] for args, _ in rows], type=pa.string()) for i, c in enumerate(self.columns(relation))}
        data["n"] = pa.array([n for _, n in rows], type=pa.int64())
        F = self.F
        none = F.array().cast("array<string>")
        return self.spark.createDataFrame(pa.table(data)).select(*self.columns(relation), none.alias("S"), none.alias("H"), "n")

    def placed(self, df, relation: str):
        """`df` hash-partitioned on the fact's location column (its node: `spark.sql.shuffle.partitions` parts),
        where every view, delta and set of derived facts lives. A grouping by the fact or a join of two placed
        frames on the fact shuffles neither (the node is one of the keys, and the session does not require all
        of a join's keys in its partitioning), and a union of placed frames stays placed; a localized rule's
        body is at one node, so a delta meets the view and the frames it joins where they lie, and a round
        moves once: its derived facts, to their node (psn2010's messages)."""
        if not self.arity[relation]:
            return df
        return self._frame(df._jdf.repartition(self._seq(("placed", relation), lambda: [f"a{self._location[relation]}"])))

    def absent(self, df, known, relation: str):
        """The rows of `df` (small, placed) whose fact is not in `known` (a view: large, placed, unconsolidated:
        a fact is in it if its rows' counts sum to more than 0). An anti-join would hash `known` (Spark builds the
        right side of one); instead a semi-join keeps the rows of `known` whose fact `df` holds, hashing `df` and
        streaming `known` where it lies, their counts are summed (a few rows, where they lie), and `df` loses the
        facts whose sum is positive."""
        F = self.F
        columns = self.columns(relation)
        facts = lambda frame: self.select(frame, ("facts", relation), lambda: columns)  # noqa: E731
        touched = self.join(self.select(known, ("counted", relation), lambda: [*columns, "n"]), self.hashed(facts(df)), columns, "left_semi")
        summed = self.aggregate(touched, ("present", relation), lambda: columns, lambda: [F.sum("n").alias("n")])
        present = self.where(summed, ("positive",), lambda: F.col("n") > 0)
        return self.join(df, self.hashed(facts(present)), columns, "left_anti")

    def hashed(self, df):
        """`df` as the side of a join that Spark hashes (a shuffled hash join: the other side streams, unsorted)
        when the burst is small (`apply`'s `rows`): the delta side then is. A hash table cannot spill, so a large
        burst (the first, a recomputation) joins by sorting, which can."""
        if not self._small:
            return df
        return self._frame(df._jdf.hint("shuffle_hash", self._seq(("hint",), lambda: (), names=True)))

    def consolidated(self, df, relation: str):
        """One row per fact and annotation, the counts summed, those whose count is 0 left out."""
        F = self.F
        summed = self.aggregate(df, ("consolidated", relation), lambda: self.keys(relation), lambda: [F.sum("n").alias("n")])
        return self.where(summed, ("nonzero",), lambda: F.col("n") != 0)

    def settled(self, relation: str):
        """relation's view consolidated: rows whose counts cancel gone (its last compaction, if no delta since)."""
        stored = self.stored[relation]
        return self.consolidated(self.view[relation], relation) if stored.deltas else stored.base

    def as_set(self, df, relation: str):
        """The facts of `df` once each (DRed's sets: every count 1, no annotation)."""
        F = self.F
        none = F.array().cast("array<string>")
        facts = self.select(df, ("facts", relation), lambda: self.columns(relation)).distinct()
        return self.select(facts, ("as_set", relation), lambda: [*self.columns(relation), none.alias("S"), none.alias("H"),
                                                                 F.lit(1).cast("long").alias("n")])

    def fact_key(self, relation: str, values: Sequence):
        """A fact as one string (what S and H hold)."""
        return self.F.concat_ws("\x1f", self.F.lit(relation), *values)

    # -- rule bodies as joins ------------------------------------------------------

    def bind(self, df, pattern: Pattern, i: int, key: bool):
        """The rows of `df` that match `pattern`: one column per variable (v_X), its count, S, H (n_i, S_i,
        H_i) and, if `key`, the fact (k_i)."""
        F = self.F
        seen: dict[str, str] = {}
        for j, term in enumerate(pattern.terms):
            column = F.col(f"a{j}")
            if not term.variable:
                df = self.where(df, ("bind", pattern, j), lambda: column == term.text)
            elif term.text in seen:
                df = self.where(df, ("bind", pattern, j), lambda: column == F.col(seen[term.text]))
            else:
                seen[term.text] = f"a{j}"
        extra = lambda: [self.fact_key(pattern.relation, [F.col(c) for c in self.columns(pattern.relation)]).alias(f"k{i}")] if key else []  # noqa: E731
        return self.select(df, ("bind", pattern, i, key), lambda: [*(F.col(a).alias(f"v_{v}") for v, a in seen.items()), F.col("n").alias(f"n{i}"),
                                                                   F.col("S").alias(f"S{i}"), F.col("H").alias(f"H{i}"), *extra()])

    @staticmethod
    def bound(pattern: Pattern, i: int, key: bool) -> list[str]:
        """The columns of `bind(df, pattern, i, key)`, without asking Spark (a frame's `columns` is a py4j call
        and a parse of its schema)."""
        variables = list(dict.fromkeys(t.text for t in pattern.terms if t.variable))
        return [*(f"v_{v}" for v in variables), f"n{i}", f"S{i}", f"H{i}", *([f"k{i}"] if key else [])]

    def fire(self, rule: SparkRule, frames: Sequence, head_filter=None, small: int | None = None, steady: Collection[str] = ()):
        """The derivations of `rule` with body atom i read from `frames[i]` (psn2010 Fig. 2's fire and pick):
        rows (a0…, S, H, n, sender). n is the product of the body's counts; S the body facts of the head's
        recursive component and their S; H their H, and "*" if a body fact of a lower component has an
        infinite count; a derivation whose head is in its own H is not sent, one whose head is in its S gets
        the head into H. With `head_filter` (facts of the head), only derivations of those (DRed). The side of
        each join that holds `frames[small]` (a delta) or `head_filter` is the one Spark hashes: the other, the
        view, streams past it unsorted. The frames of `steady` relations (the same every round of a recursive
        component) are read placed on their join key (`keyed`), so that a round shuffles its delta only."""
        F = self.F
        variables = [{t.text for t in atom.terms if t.variable} for atom in rule.body]
        frames = [self.keyed(df, atom, variables[i] & (variables[1] if i == 0 and len(variables) > 1 else set().union(*variables[:i])))
                  if atom.relation in steady and i != small else df for i, (df, atom) in enumerate(zip(frames, rule.body))]
        inside = [i for i, b in enumerate(rule.body) if b.relation in self.component[rule.head.relation]] if self.algorithm == "psn" else []
        keyed = [] if self.late_key else inside  # the body facts of S: the rows' own columns, or made after the joins
        parts = [self.bind(df, atom, i, i in keyed) for i, (df, atom) in enumerate(zip(frames, rule.body))]
        columns = [self.bound(atom, i, i in keyed) for i, atom in enumerate(rule.body)]
        if head_filter is not None:
            wanted = [c for c in self.bound(rule.head, -1, False) if c.startswith("v_")]
            parts.insert(0, self.select(self.bind(head_filter, rule.head, -1, False), ("wanted", rule.head), lambda: wanted))
            columns.insert(0, wanted)
            small = -1
        joined, hashed, known = parts[0], small in (-1, 0), list(columns[0])
        for k, part in enumerate(parts[1:], 1):
            shared = [c for c in known if c in columns[k] and c.startswith("v_")]
            known += [c for c in columns[k] if c not in shared]
            if not shared:
                joined = joined.crossJoin(part)
            elif hashed or k == small:
                left, right = (self.hashed(joined), part) if hashed else (joined, self.hashed(part))
                joined, hashed = self.join(left, right, shared, "inner"), True
            else:
                joined = self.join(joined, part, shared, "inner")

        def value(term: Term):
            return F.col(f"v_{term.text}") if term.variable else F.lit(term.text)

        def derivations():
            none = F.array().cast("array<string>")
            n = reduce(lambda a, b: a * b, (F.col(f"n{i}") for i in range(len(rule.body))))
            head = [value(t) for t in rule.head.terms]
            key = self.fact_key(rule.head.relation, head)
            if inside:
                keys = [self.fact_key(rule.body[i].relation, [value(t) for t in rule.body[i].terms]) if self.late_key else F.col(f"k{i}")
                        for i in inside]
                S = F.array_sort(F.array_distinct(F.concat(F.array(*keys), *(F.col(f"S{i}") for i in inside))))
            else:
                S = none
            outside = [i for i in range(len(rule.body)) if i not in inside]
            lower = reduce(lambda a, b: a | b, (F.size(F.col(f"H{i}")) > 0 for i in outside)) if outside else F.lit(False)
            H = F.array_sort(F.array_distinct(F.concat(*(F.col(f"H{i}") for i in inside), F.when(lower, F.array(F.lit("*"))).otherwise(none))))
            return [*(h.alias(f"a{i}") for i, h in enumerate(head)), S.alias("S"), H.alias("H"), n.alias("n"),
                    value(rule.body[0].terms[rule.body[0].location]).alias("sender"), key.alias("key")]

        out = self.select(joined, ("fire", rule, tuple(inside), tuple(keyed)), derivations)
        fired = [*(f"a{i}" for i in range(len(rule.head.terms))), "S", "H", "n", "sender"]
        if inside:
            out = self.where(out, ("acyclic",), lambda: ~F.array_contains("H", F.col("key")))
            return self.select(out, ("cyclic", rule.head.relation), lambda: [
                *fired[:-4], "S", F.when(F.array_contains("S", F.col("key")), F.array_sort(F.array_union("H", F.array("key"))))
                .otherwise(F.col("H")).alias("H"), "n", "sender"])
        return self.select(out, ("fired", rule.head.relation), lambda: fired)

    def keyed(self, df, atom: Pattern, key: set[str]):
        """`df` hash-partitioned on the columns of `atom`'s variables `key`, checkpointed once per burst (the frame
        of a relation below a recursive component, which every round joins with its delta on `key`)."""
        columns = sorted({f"a{next(j for j, t in enumerate(atom.terms) if t.variable and t.text == v)}" for v in key})
        if not columns:
            return df
        if (id(df), tuple(columns)) not in self._keyed:
            self._keyed[id(df), tuple(columns)] = (df, cut(df.repartition(*columns)))
        return self._keyed[id(df), tuple(columns)][1]

    def deltas(self, rule: SparkRule, old: Mapping, new: Mapping, delta: Mapping, at: set[str], steady: Collection[str] = ()) -> list:
        """psn2010's delta rules of `rule` for the body positions i whose relation is in `at` and has a delta:
        the relations before i new, Δ at i, the relations after i old (`steady`: as `fire`)."""
        out = []
        for i, atom in enumerate(rule.body):
            if atom.relation in at and delta.get(atom.relation) is not None:
                frames = [new[b.relation] for b in rule.body[:i]] + [delta[atom.relation]] + [old[b.relation] for b in rule.body[i + 1:]]
                out.append(self.fire(rule, frames, small=i, steady=steady))
        return out

    # -- a burst -----------------------------------------------------------------------

    def apply(self, updates: Mapping[str, object], rows: int | None = None) -> Totals:
        """Maintain the view under one burst: `updates` maps base relations to DataFrames (`frame`) of signed
        counts, `rows` of them in all if known (at most `SMALL`: a small burst, whose deltas Spark hashes). Returns what changed; if a deletion meets a fact that is not there, nothing is committed and
        `missing` counts those facts."""
        F = self.F
        self._tally: list = []
        self._totals: dict[str, int] = {}
        self.jobs.step(self.bursts)
        out = self._out = Totals()
        self._phase = "rounds"
        self._mark = time.perf_counter()
        self._keyed: dict = {}
        self._small = rows is not None and rows <= SMALL
        delta: dict[str, object] = {}
        for relation, df in updates.items():
            if relation in self.derived:
                raise ValueError(f"{relation} is derived: only base relations are updated")
            delta[relation] = cut(self.consolidated(self.placed(df, relation), relation))
        new = {rel: self.view[rel].unionByName(d) for rel, d in delta.items()}
        for members, recursive in self.order:
            if not recursive:
                self._count(members[0], delta, new)
            elif self.algorithm == "psn":
                self._sn(members, delta, new, out)
            else:
                self._dred(members, delta, new, out)
        # the burst's deltas, kept as they are (`Stored`): the burst's last job writes them and counts their rows
        delta = {rel: d if is_cut(d) else cut(d) for rel, d in delta.items()}
        for relation, d in delta.items():
            if relation not in self.shown:
                continue
            changes = self._changes(relation, d)
            if relation not in self.derived:
                self._tally.append(changes.where(F.col("after") < 0).select(F.lit("missing").alias("tag"), F.lit(1).cast("long").alias("v")))
            appear = (F.col("before") <= 0) & (F.col("after") > 0)
            vanish = (F.col("before") > 0) & (F.col("after") <= 0)
            self._tally.append(changes.select(
                F.when(appear, F.lit(f"i:{relation}")).when(vanish, F.lit(f"d:{relation}")).alias("tag"),
                F.lit(1).cast("long").alias("v")).where(F.col("tag").isNotNull()))
        self._phase = "deltas"
        totals = {**self._job([self._rows(df, f"r:{rel}") for rel, df in delta.items()]), **self._totals}
        rows = {tag[2:]: totals.pop(tag) for tag in [t for t in totals if t.startswith("r:")]}
        out.missing = totals.pop("missing", 0)
        for tag, v in totals.items():
            kind, name = tag[0], tag[2:]
            {"i": out.inserted, "d": out.deleted, "u": out.updates, "m": out.messages}[kind][name] = v
        if not out.missing:  # commit: the deltas join the view, which is compacted where they have grown
            for rel, d in delta.items():
                self.stored[rel] = self.stored[rel].add(d, rows.get(rel, 0))
                self.view[rel] = self.stored[rel].frame()
            out.compacted = self.compact()
            self.bursts += 1
        self.jobs.step(None)
        out.jobs = self.jobs.per_step[-1]
        return out

    def _rows(self, df, tag: str):
        """`df`'s rows as (tag, 1): summed by `_job`, its row count."""
        F = self.F
        return self.select(df, ("rows", tag), lambda: [F.lit(tag).alias("tag"), F.lit(1).cast("long").alias("v")])

    def compact(self) -> list[str]:
        """Consolidate the deltas of the relations whose deltas' rows exceed `compact_at` of their last compaction's
        into their views' new last compactions, in one job; the relations compacted."""
        due = [rel for rel, s in self.stored.items() if s.deltas and s.delta_rows > self.compact_at * s.rows]
        if not due:
            return []
        self._phase = "compact"
        fresh = {rel: cut(self.updated(self.stored[rel].base, _union(self.stored[rel].deltas), rel)) for rel in due}
        rows = self._job([self._rows(df, f"c:{rel}") for rel, df in fresh.items()])
        for rel, df in fresh.items():
            self.stored[rel] = Stored(df, rows.get(f"c:{rel}", 0))
            self.view[rel] = df
        return due

    def updated(self, base, d, relation: str):
        """`base` (consolidated, placed) with the rows of `d` (placed) added, consolidated: the facts `d` does not
        touch pass as they are (an anti-join streams `base` past `d`'s facts), those it touches are summed with it.
        Summing the whole view would hash every fact of it; this hashes the change."""
        columns = self.columns(relation)
        touched = self.hashed(d.select(*columns).distinct())
        same = base.join(touched, on=columns, how="left_anti")
        return same.unionByName(self.consolidated(base.join(touched, on=columns, how="left_semi").unionByName(d), relation))

    def _changes(self, relation: str, d):
        """The facts of `d` with their total count before and after (`before`, `after`)."""
        F = self.F
        columns = self.columns(relation)
        change = d.groupBy(*columns).agg(F.sum("n").alias("n"))
        old = self.view[relation].join(self.hashed(change.select(*columns)), on=columns, how="left_semi").groupBy(*columns).agg(F.sum("n").alias("before"))
        joined = change.join(old, on=columns, how="left")
        before = F.coalesce(F.col("before"), F.lit(0).cast("long"))
        return joined.select(*columns, before.alias("before"), (before + F.col("n")).alias("after"))

    def _job(self, tagged: Sequence) -> dict[str, int]:
        """One Spark job: the sums of `v` per `tag` of `tagged` and of the tally so far (updates, messages,
        missing facts: kept for the burst's totals, and the tally emptied). The sums are read in one task per
        partition of each frame: coalesced into one task per core, a task holds the hash tables of all the joins
        it reads until it ends, and the job that writes a 1% burst's deltas at 100,000 edges ran out of memory."""
        parts = [*tagged, *self._tally]
        self._tally = []
        if not parts:
            return {}
        rows = _union(parts).groupBy("tag").agg(self.F.sum("v").alias("v")).collect()
        now = time.perf_counter()
        self._out.seconds.append(now - self._mark)
        self._out.phases.append(self._phase)
        self._mark = now
        sums = {row.tag: int(row.v) for row in rows}
        for tag in [t for t in sums if t[0] in "um" or t == "missing"]:
            self._totals[tag] = self._totals.get(tag, 0) + sums.pop(tag)
        return sums

    def _rounds(self, current: dict, advance, out: Totals) -> None:
        """Semi-naive rounds from `current` (per relation, the updates of the first round) until one derives
        nothing: `advance` makes the next round of a round (and keeps what it needs of it). The rounds are
        built lazily, a batch at a time, and one job counts each round of a batch: a job's fixed cost is paid
        once per batch. A round after the last one is a join of empty frames, cheap but not free (its plan is
        built and its stages run), so the batches grow from one round to `ROUNDS`: a shallow recursion wastes
        at most as many rounds as it has, a deep one pays a job per `ROUNDS` rounds."""
        F = self.F
        size = 1
        while True:
            batch = [current]
            while len(batch) < size:
                batch.append(advance(batch[-1]))
            sizes = self._job([self.select(df, ("size", r, rel), lambda: [F.lit(f"s:{r}:{rel}").alias("tag"), F.lit(1).cast("long").alias("v")])
                               for r, frames in enumerate(batch) for rel, df in frames.items()])
            for r, frames in enumerate(batch):
                out.rounds += 1
                if not any(sizes.get(f"s:{r}:{rel}") for rel in frames):
                    return
            current, size = advance(batch[-1]), min(2 * size, self.batch)

    def _fired(self, raw: Sequence, relation: str):
        """Derivations summed per fact and annotation (a0…, S, H, n), checkpointed; the updates each node
        processes (the derived ones, at the head's node) and the messages each sends (to another node) tallied."""
        F = self.F
        loc = f"a{self._location[relation]}"
        agg = cut(self.aggregate(self.placed(_union(raw), relation), ("_fired", relation), lambda: [*self.keys(relation), "sender"],
                                 lambda: [F.sum("n").alias("n"), F.sum(F.abs("n")).alias("d")]))
        self._tally.append(self.select(agg, ("updates", relation), lambda: [F.concat(F.lit("u:"), F.col(loc)).alias("tag"), F.col("d").alias("v")]))
        sent = self.where(agg, ("sent", relation), lambda: F.col("sender") != F.col(loc))
        self._tally.append(self.select(sent, ("messages",), lambda: [F.concat(F.lit("m:"), F.col("sender")).alias("tag"), F.col("d").alias("v")]))
        return self.consolidated(self.select(agg, ("annotated", relation), lambda: [*self.keys(relation), "n"]), relation)

    def _count(self, relation: str, delta: dict, new: dict) -> None:
        """A non-recursive relation by counting: Σ of psn2010's delta rules over the rules that derive it."""
        raw = [part for rule in self.rules if rule.head.relation == relation
               for part in self.deltas(rule, self.view, {**self.view, **new}, delta, set(delta))]
        if raw:
            delta[relation] = self._fired(raw, relation)  # computed again from its checkpointed sums
            new[relation] = self.view[relation].unionByName(delta[relation])

    def _sn(self, members: tuple[str, ...], delta: dict, new: dict, out: Totals) -> None:
        """A recursive component by synchronous SN (psn2010 Algorithm 2 with Fig. 2's derivation sets): the
        updates of a round fire the delta rules, the next round processes what they derived; one count per
        round (is anything left?). Fig. 2's S and H make it finite (psn2010 Theorem 20)."""
        rules = [r for r in self.rules if r.head.relation in members]
        lower = {b.relation for r in rules for b in r.body if b.relation not in members}
        if not any(delta.get(rel) is not None for rel in lower):
            return
        before = {rel: self.view[rel] for rel in members}
        raw = {rel: [] for rel in members}
        for rule in rules:
            raw[rule.head.relation] += self.deltas(rule, {**self.view, **before}, {**self.view, **new, **before}, delta, lower)
        done = {rel: [] for rel in members}
        state = {"before": before}

        def advance(current: dict) -> dict:
            """The round after `current`: the updates it derives, fired against the view with `current` in it."""
            before = state["before"]
            after = {rel: before[rel].unionByName(current[rel]) if rel in current else before[rel] for rel in members}
            raw = {rel: [] for rel in members}
            for rule in rules:
                raw[rule.head.relation] += self.deltas(rule, {**self.view, **new, **before}, {**self.view, **new, **after}, current,
                                                       set(members), steady=lower)
            for rel, df in current.items():
                done[rel].append(df)
            state["before"] = after
            return {rel: cut(self._fired(parts, rel)) for rel, parts in raw.items() if parts}

        self._rounds({rel: cut(self._fired(parts, rel)) for rel, parts in raw.items() if parts}, advance, out)
        for rel, parts in done.items():
            if parts:
                delta[rel] = cut(self.consolidated(_union(parts), rel))
                new[rel] = self.view[rel].unionByName(delta[rel])

    def _dred(self, members: tuple[str, ...], delta: dict, new: dict, out: Totals) -> None:
        """A recursive component by DRed on sets: over-delete, re-derive, insert (module docstring)."""
        F = self.F
        rules = [r for r in self.rules if r.head.relation in members]
        lower = {b.relation for r in rules for b in r.body if b.relation not in members}
        if not any(delta.get(rel) is not None for rel in lower):
            return
        columns = self.columns
        # the view of a recursive relation is a set already (count 1); the lower ones, read every round, are
        # made sets once per burst
        old = {rel: self.view[rel] if rel in members else cut(self.as_set(self.settled(rel), rel)) for rel in {*lower, *members}}
        plus, minus, after = {}, {}, {}
        for rel in lower:
            after[rel] = old[rel]
            if delta.get(rel) is None:
                continue
            changes = self._changes(rel, delta[rel])
            plus[rel] = cut(self.as_set(changes.where((F.col("before") <= 0) & (F.col("after") > 0)), rel))
            minus[rel] = cut(self.as_set(changes.where((F.col("before") > 0) & (F.col("after") <= 0)), rel))
            after[rel] = cut(old[rel].join(self.hashed(minus[rel].select(*columns(rel))), on=columns(rel), how="left_anti")
                             .unionByName(plus[rel]))

        def distinct_new(raw_by_head: dict, known: dict) -> dict:
            """Per head relation: the facts derived (once each), not in `known` (a list of at most two parts: a
            union of many would be joined part by part, Spark pushing the join through it)."""
            found = {}
            for rel, raw in raw_by_head.items():
                if raw:
                    facts = self.as_set(self._fired(raw, rel), rel)
                    for part in known[rel]:
                        facts = self.absent(facts, part, rel)
                    found[rel] = cut(facts)
            return found

        def fire_all(frames_for, delta_at: Mapping) -> dict:
            raw: dict[str, list] = {rel: [] for rel in members}
            for rule in rules:
                for i, atom in enumerate(rule.body):
                    if atom.relation in delta_at:
                        frames = [delta_at[atom.relation] if j == i else frames_for(b.relation) for j, b in enumerate(rule.body)]
                        raw[rule.head.relation].append(self.fire(rule, frames, small=i, steady=lower))
            return raw

        def rounds(step, first: dict, known: dict) -> dict:
            """Semi-naive rounds from `first`: each round's new facts join the known ones (the facts known before
            the rounds, and those found by them, one frame checkpointed each round); `_rounds` counts them."""
            added = {rel: [] for rel in members}
            before = {rel: len(parts) for rel, parts in known.items()}

            def advance(current: dict) -> dict:
                for rel, df in current.items():
                    added[rel].append(df)
                    found = known[rel][before[rel]:]
                    known[rel] = known[rel][:before[rel]] + [cut(found[0].unionByName(df)) if found else df]
                return distinct_new(step(current), known)

            self._rounds(first, advance, out)
            return added

        # 1. over-delete: what a deleted fact derived, every other atom old
        self._phase = "over-delete"
        seeds = distinct_new(fire_all(lambda rel: old[rel], minus), {rel: [] for rel in members})
        deleted = rounds(lambda d: fire_all(lambda rel: old[rel], d), seeds, {rel: [] for rel in members})
        gone = {rel: cut(_union(parts)) for rel, parts in deleted.items() if parts}
        # 2. re-derive: the over-deleted facts that keep a derivation from what is left
        kept = {rel: cut(old[rel].join(self.hashed(gone[rel].select(*columns(rel))), on=columns(rel), how="left_anti"))
                if rel in gone else old[rel] for rel in members}
        now = {**after, **kept}
        back = {}
        for rel in gone:
            raw = [self.fire(rule, [now[b.relation] for b in rule.body], head_filter=gone[rel]) for rule in rules if rule.head.relation == rel]
            back.update(distinct_new({rel: raw}, {rel: []}))
        # 3. insert semi-naively: the re-derived facts and what inserted facts derive
        self._phase = "re-derive, insert"  # the re-derivation is computed by the first job of the insertion
        known = {rel: [kept[rel]] for rel in members}
        first = distinct_new(fire_all(lambda rel: now[rel], plus), {rel: known[rel] + ([back[rel]] if rel in back else []) for rel in members})
        for rel, df in back.items():
            first[rel] = first[rel].unionByName(df) if rel in first else df
        added = rounds(lambda d: fire_all(lambda rel: _union(known[rel]) if rel in members else now[rel], d), first, known)
        for rel in members:
            ins = _union(added[rel]) if added[rel] else None
            parts = []
            if ins is not None:
                parts.append(ins.join(gone[rel].select(*columns(rel)), on=columns(rel), how="left_anti") if rel in gone else ins)
            if rel in gone:
                lost = gone[rel].join(ins.select(*columns(rel)), on=columns(rel), how="left_anti") if ins is not None else gone[rel]
                parts.append(lost.withColumn("n", F.lit(-1).cast("long")))
            if parts:
                delta[rel] = cut(_union(parts))
                new[rel] = self.view[rel].unionByName(delta[rel])

    # -- reading the view ------------------------------------------------------------------

    def facts(self, relation: str):
        """relation's facts (a0…, n, infinite): n the derivations with an empty H, infinite if one has a
        non-empty H (psn2010 §5: the fact has infinitely many); its view consolidated first (`settled`), so that a
        fact whose rows cancel is absent and only rows that stay make a fact infinite."""
        F = self.F
        return self.settled(relation).groupBy(*self.columns(relation)).agg(
            F.sum(F.when(F.size("H") == 0, F.col("n")).otherwise(0)).alias("n"), (F.max(F.size("H")) > 0).alias("infinite"))


def _union(parts: Sequence):
    return reduce(lambda a, b: a.unionByName(b), parts)


# ---------------------------------------------------------------------------
# The engine `maintain --engine spark` runs (`engine.Engine`)


def make(algorithm: str, schedule: str = "fifo", seed: int = 0, progress=None, master: str | None = None,
         log_level: str | None = None, session=None) -> "SparkEngine":
    """`maintain --engine spark`: psn, dred or recompute on a Spark session (`runs.session.spark_session`, quiet).
    SN processes every update of a round together, so no pick order applies: `schedule` and `seed` are
    not used (every order ends in the same view: psn2010 Corollary 22)."""
    if algorithm not in (*ALGORITHMS, "recompute"):
        raise ValueError(f"--algorithm {algorithm} does not run on --engine spark (psn, dred or recompute do)")
    if session is None:
        from ..runs.session import spark_session

        session = spark_session(master, log_level=log_level)
    return SparkEngine(session, algorithm)


class SparkEngine:
    """`engine.Engine` on Spark: `SparkMaintainer` over a `DDlogProgram`'s localized rules.

    `algorithm` "psn" keeps psn2010's multiset view (counts, derivation sets in recursive components);
    "dred" keeps recursive components as sets (every count 1 there) by DRed; "recompute" computes the
    view of E ⊎ I ∖ D from nothing after each burst (psn's evaluation from an empty view)."""

    name = "spark"

    def __init__(self, session, algorithm: str = "psn"):
        self.session = session
        self.algorithm = algorithm

    def start(self, program: DDlogProgram, base: Counter) -> None:
        self.program = program
        self.base = Base(base)
        self.maintainer = self._fresh()
        self._apply(self.base.facts, 0)

    def _fresh(self) -> SparkMaintainer:
        algorithm = "psn" if self.algorithm == "recompute" else self.algorithm
        return SparkMaintainer(self.session, patterns(self.program), self.program.arities, self.program.columns, algorithm,
                               shown=self.program.relations)

    def apply(self, burst: Burst) -> BurstStats:
        started = time.perf_counter()
        signed: Counter = Counter()
        for u in burst.updates:
            signed[u.fact] += 1 if u.op == INSERT else -1
        if self.algorithm == "recompute":
            before = self.view()
            self.base.apply(burst)
            self.maintainer = self._fresh()
            self.last = self._apply(self.base.facts, burst.number)
            stats = BurstStats(burst.number, updates=dict(Counter(node_name(self.program, u.fact) for u in burst.updates)))
            stats.seconds = time.perf_counter() - started
            return fill_changes(stats, self.program, *changes(before.shown(self.program), self.view().shown(self.program)))
        totals = self._apply(signed, burst.number)
        stats = BurstStats(burst.number)
        shown = [r for r in self.program.relations]
        stats.inserted = {r: v for r, v in totals.inserted.items() if r in shown and v}
        stats.deleted = {r: v for r, v in totals.deleted.items() if r in shown and v}
        processed = Counter(node_name(self.program, u.fact) for u in burst.updates)
        processed.update({_node(k): v for k, v in totals.updates.items()})
        stats.updates = dict(sorted(processed.items()))
        stats.messages = {_node(k): v for k, v in sorted(totals.messages.items()) if v}
        stats.seconds = time.perf_counter() - started
        self.last = totals
        return stats

    def _apply(self, signed: Counter, number: int) -> Totals:
        m = self.maintainer
        by_relation: dict[str, list] = {}
        for fact, n in signed.items():
            if n:
                by_relation.setdefault(fact.relation, []).append((tuple(str(a) for a in fact.args), n))
        totals = m.apply({rel: m.frame(rel, rows) for rel, rows in by_relation.items()}, sum(map(len, by_relation.values())))
        if totals.missing:
            raise ValueError(f"burst {number} deletes {totals.missing} base fact(s) that the view does not hold")
        return totals

    def view(self) -> View:
        """The view, collected to the driver in one job (what `maintain` prints): counts, and the infinite facts."""
        F = self.maintainer.F
        m = self.maintainer
        parts = [m.facts(r).select(F.lit(r).alias("relation"), F.array(*m.columns(r)).alias("args"), "n", "infinite") for r in m.arity]
        counts: dict[Fact, int] = {}
        infinite = set()
        for row in _union(parts).collect():
            fact = Fact(row.relation, tuple(clingo.parse_term(a) for a in row.args))
            if row.infinite:
                infinite.add(fact)
            else:
                counts[fact] = int(row.n)
        return View(counts, frozenset(infinite), multiset=self.algorithm != "dred")  # DRed's counts are 1: a set


def _node(text: str) -> str:
    """A node's value as text (`str` of its symbol) as `engine.node_name` writes it."""
    symbol = clingo.parse_term(text)
    return symbol.string if symbol.type is clingo.SymbolType.String else str(symbol)
