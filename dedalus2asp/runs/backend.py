"""The relational operators a rule evaluator runs on: the `Backend` protocol.

Every operator of the evaluator (`evaluator`) is a method of the back end: `local.Local`
holds facts in Python sets, `spark.Spark` in DataFrames. How a back end holds a
value is its own business (`values`): the evaluator never looks at one.
"""

from __future__ import annotations

from typing import Any, Iterator, Protocol, Sequence, TypeVar

from ..lang.ast import Atom, Comparison, Term, Variable
from .body import Aggregation, Pattern
from .schedule import Schedule

Facts = TypeVar("Facts")  # facts at every node: (node, relation, args)
Table = TypeVar("Table")  # valuations at every node: (node, variables...)
Sent = TypeVar("Sent")  # messages sent at one step: (relation, args, sender, addressee)
Messages = TypeVar("Messages")  # messages with their send and arrival steps


class Backend(Protocol[Facts, Table, Sent, Messages]):
    """The relational operators the evaluator runs on; a back end chooses the types and the values.

    Tables have the node as their first column and one column per variable
    (named after it); joins are natural joins on the shared columns. Column
    names starting with `FRESH` are made up by `Body.of` (expressions and
    aggregate results).
    """

    def nodes(self) -> Table:
        """One empty valuation per node: the body table of a rule without positive atoms."""
        ...

    def scan(self, facts: Facts, pattern: Pattern) -> Table:
        """The valuations of one atom: the facts of its relation that match `pattern`, as (node, its variables)."""
        ...

    def join(self, left: Table, right: Table) -> Table:
        """The natural join on the shared columns (the node and the shared variables)."""
        ...

    def extend(self, table: Table, name: str, term: Term) -> Table:
        """`table` with a new last column `name`: the value of `term` per row (issue #18).

        `term` is a constant, a column (`Variable`) or an `Arithmetic`
        expression over columns and constants, evaluated with clingo's integer
        semantics (`values.arithmetic`: 32-bit integers that wrap around, `/`
        and `%` truncating toward zero); a row where the expression has no
        value (a division by zero, an operand that is a name or a string) is
        left out of the result.
        """
        ...

    def compare(self, table: Table, comparison: Comparison) -> Table:
        """The rows that satisfy `comparison` (its sides are columns or constants), with `<` as clingo's order on terms."""
        ...

    def antijoin(self, table: Table, facts: Facts, pattern: Pattern) -> Table:
        """The rows with no fact matching `pattern` (with the row's node and values) in `facts`."""
        ...

    def aggregate(self, table: Table, keys: Sequence[str], aggregations: Sequence[Aggregation]) -> Table:
        """One row per group of the distinct rows of `table`: columns (node, *keys, result of each aggregation).

        A group is the rows with the same node and values of the `keys`
        columns; a group exists only if it has a row (an empty group yields no
        fact). For each (function, column, result): `count` the number of
        distinct values of `column` in the group; `sum` the sum of `column`
        over the group's distinct rows (clingo's `#sum{T,V1..Vn : body}`: the
        same value twice counts twice when the valuations differ), over its
        integer values only (a name or string is ignored, as clingo does),
        wrapped to 32 bits; `min`/`max` the least/greatest value of `column`
        in clingo's order on terms (so min over strings works).
        """
        ...

    def bindings(self, table: Table) -> Iterator[dict[str, Any]]:
        """Each row as a valuation: variable name -> value (the node left out)."""
        ...

    def heads(self, table: Table, head: Atom) -> Facts:
        """The fact `head` per row, at the row's node (its arguments are columns and constants)."""
        ...

    def sends(self, table: Table, head: Atom, addressee: Variable) -> Sent:
        """The message `head` per row, from the row's node to the value of `addressee`."""
        ...

    def gather(self, facts: Facts, relations: set[str]) -> Facts:
        """What a global rule reads (issue #18): every fact R(ā) of `relations` at a node x as the fact R(x, ā)
        of the global node (`ast.GLOBAL_NODE`, as a value of the back end). Facts of other relations are left out."""
        ...

    def observer(self) -> Table:
        """One empty valuation at the global node: the body table of a global rule without positive atoms."""
        ...

    def union(self, parts: Sequence[Facts]) -> Facts:
        """The union of `parts`; `union([])` is the empty set of facts (what a body atom of a future step reads)."""
        ...

    def union_sends(self, parts: Sequence[Sent]) -> Sent: ...

    def minus(self, facts: Facts, other: Facts) -> Facts: ...

    def restrict(self, facts: Facts, relations: set[str]) -> Facts:
        """The facts of `relations` only."""
        ...

    def silence(self, facts: Facts, nodes: Sequence[str], keep: set[str]) -> Facts:
        """`facts` without those at `nodes` (nodes as the schedule names them), but for the relations `keep`:
        the state of nodes down under fail-stop crashes, which hold only the run's crash facts (docs/faults.md)."""
        ...

    def since(self, facts: Facts, previous: Facts, relations: set[str]) -> Facts | None:
        """The facts of `relations` in `facts` that are not in `previous`, if `facts` holds every fact of
        `previous` of `relations`; None if it does not (the incremental start of `_fixpoint`)."""
        ...

    def empty(self, facts: Facts) -> bool: ...

    def materialize(self, facts: Facts) -> Facts:
        """`facts` computed and kept (a back end that evaluates lazily cuts its lineage here)."""
        ...

    def input(self, step: int) -> Facts:
        """H(x) at every node x at `step`: its input facts and its input events R(ā)@step (tr2009 Example 3)."""
        ...

    def deliver(self, messages: Sequence[Messages], step: int) -> Facts:
        """untag(m): the facts of the messages arriving at `step`, at their addressees."""
        ...

    def schedule(self, sent: Sent, step: int, steps: int, schedule: Schedule) -> Messages:
        """The messages `sent` at `step` to nodes of the network (others are dropped, tplp2016 §5.1.3), with
        their arrival steps by `schedule`; one arriving at or after `steps` is pending."""
        ...
