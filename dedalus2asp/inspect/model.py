"""Decoding answer sets back into what they stand for (tplp2016 §5.2–5.3).

An answer set of the generated program becomes a `Model`:

* its trace: the facts of sch(P) each node holds at each step (§5.1.5);
* its messages, from the chosen_R atoms: relation and arguments, sender and
  send step, addressee and arrival step, or pending when the arrival lies
  beyond the horizon (§4.3.1), and the asynchronous rule(s) of P that sent
  each one (`Model.sending_rules`);
* its happens-before relation ≺ (§5.2.1, §5.3.1): the transitive closure of
  the local edges (x,s) → (x,s+1) and the message edges (x,s) → (y,t). It is
  read from the `before` atoms when the encoding has them (the paper encoding
  of a causal semantics, rules (7), (8), (10)) and recomputed from the edges
  otherwise; both give the same relation (the tests check it);
* its non-causal messages: those whose arrival (y,t) happens before their
  send (x,s), exactly what rule (9) of pure_ca forbids (§4.4.1);
* its global facts: those of the global relations (assertions over several
  nodes, issue #18), held by no node: node `GLOBAL_NODE` in the trace, node
  `()` in the generated program;
* its outputs: the facts of the output relations at the last step, united
  over the nodes (jcss2014 §2.5.5); in a located or Molly program a fact keeps
  its node in its location column (issue #18);
* the operational run it stands for (§5.3.2, `Model.run`, built by `run`).

Auxiliary atoms are filtered out. `Models` is the models of one question (one
program, input and `Bounds`). Both display themselves in a notebook once `dedalus2asp.formats`, which draws
every picture and text of them, is imported (`NOTEBOOK`).
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Callable, Iterable, Iterator, Mapping

import clingo

from ..asp import solve
from ..asp.names import CRASHED, LOOP, LOST, PENDING
from ..asp.transform import Compiled
from ..bounds import Bounds, Encoding
from ..lang.ast import GLOBAL_NODE, Program, Rule, RuleKind, Trace, TraceFact, show_fact
from ..runs.local import Node
from .message import GroundFact, Message, Point, closure
from .run import Run, run_of

NOTEBOOK: dict[str, Callable[..., str]] = {}
"""How models show themselves in a notebook (IPython's `_repr_svg_` and `_repr_html_`): `dedalus2asp.formats`,
which draws every picture and stands above this module, registers its `render` here under "render" when
it is imported. Until then a model shows as its `repr`."""


def _notebook(value, fmt: str, **options) -> str | None:
    render = NOTEBOOK.get("render")
    return None if render is None else render(value, fmt, **options)


@dataclass(frozen=True)
class Model:
    """One stable model, seen as a trace, its messages and its happens-before relation.

    `lost` are the messages the network lost (issue #19's faults, docs/faults.md),
    with `arrives` None: they are not in `messages`, since they neither arrive
    nor are pending. `crashes` are the pairs (y, s), "y crashes at step s".
    Both are empty without faults.

    `before` holds the pairs of the model's `before` atoms when the encoding
    has them (paper encoding, causal semantics), else None. `bounds` are
    those of the program the model comes from. `program` is P,
    when the compiled program carries it: it names the sending rules and the
    outputs, and lets `run` and `explain` work.
    """

    number: int
    trace: Trace
    messages: tuple[Message, ...]
    network: tuple[clingo.Symbol, ...]
    bounds: Bounds
    before: frozenset[tuple[Point, Point]] | None = field(default=None, compare=False, repr=False)
    program: Program | None = field(default=None, compare=False, repr=False)
    lost: tuple[Message, ...] = ()
    crashes: tuple[tuple[clingo.Symbol, int], ...] = ()
    loop_start: int | None = None
    """A lasso model (eventual mode): steps 0..loop_start-1 are the prefix, steps loop_start..T the loop, and
    the step after T is step loop_start again; None for a bounded model."""
    output_relations: tuple[str, ...] | None = field(default=None, compare=False)
    """out(P) as the question asked it (`--output-relations`); None: P's `.output` relations."""

    @property
    def out(self) -> frozenset[str]:
        """out(P): the relations whose facts are the model's outputs (`output_relations`, else P's `.output`)."""
        if self.output_relations is not None:
            return frozenset(self.output_relations)
        return frozenset(self.program.output_relations) if self.program is not None else frozenset()

    @property
    def horizon(self) -> int:
        """T: every node of the model performs the local steps 0..T."""
        return self.bounds.horizon

    @property
    def period(self) -> int | None:
        """P = T + 1 - L, the number of steps in the loop of a lasso model; None for a bounded model."""
        return None if self.loop_start is None else self.horizon + 1 - self.loop_start

    @property
    def is_lasso(self) -> bool:
        """The model is a lasso: an infinite, ultimately periodic run written over its steps 0..T."""
        return self.loop_start is not None

    def ultimate(self, relations: Iterable[str] | None = None) -> tuple[str, ...]:
        """The ultimate facts of a lasso (jcss2014 §2.5.5: from some step on they hold at every step): those that
        hold at every step of the loop, united over nodes, of `relations` (default: `out`, as `outputs`)."""
        if self.loop_start is None:
            raise ValueError("a bounded model has no ultimate facts: only a lasso model (eventual mode) has them")
        wanted = set(relations) if relations is not None else self.out
        loop = range(self.loop_start, self.horizon + 1)
        held: dict[tuple, set[int]] = defaultdict(set)
        for x, s, r, a in self.trace:
            if r in wanted and s >= self.loop_start:
                held[(x, r, a)].add(s)
        return tuple(sorted({self.output_fact(x, r, a) for (x, r, a), steps in held.items() if len(steps) == len(loop)}))

    # -- the trace -----------------------------------------------------------

    def facts_at(self, node: clingo.Symbol, step: int) -> list[str]:
        """The facts `node` holds at `step`, sorted (`GLOBAL_NODE`: the global facts of the step)."""
        return sorted(show_fact(r, a) for (x, s, r, a) in self.trace if x == node and s == step)

    def global_at(self, step: int) -> list[str]:
        """The global facts of `step`, sorted: those of the global relations, held by no node."""
        return self.facts_at(GLOBAL_NODE, step)

    @property
    def has_global(self) -> bool:
        """Some global fact holds: a global rule (an assertion over several nodes) derived it."""
        return any(x == GLOBAL_NODE for (x, _, _, _) in self.trace)

    @cached_property
    def _slices(self) -> Mapping[Point, frozenset[GroundFact]]:
        slices: dict[Point, set[GroundFact]] = defaultdict(set)
        for x, s, r, a in self.trace:
            slices[(x, s)].add((r, a))
        return {point: frozenset(facts) for point, facts in slices.items()}

    def slice(self, node: clingo.Symbol, step: int) -> frozenset[GroundFact]:
        """D^{x,s}: what node x holds at step s, as (relation, args) (tplp2016 §5.1.5)."""
        return self._slices.get((node, step), frozenset())

    def outputs(self, relations: Iterable[str] | None = None) -> tuple[str, ...]:
        """output(M) = {R(ā) | R ∈ out(P), R(x,T,ā) ∈ M for some x}: at the last step, united over nodes (jcss2014 §2.5.5).

        out(P) is `relations` when given, else `out` (the relations asked, or P's `.output` ones).
        """
        wanted = set(relations) if relations is not None else self.out
        return tuple(sorted({
            self.output_fact(x, r, a) for (x, s, r, a) in self.trace if s == self.horizon and r in wanted
        }))

    def output_fact(self, node: clingo.Symbol, relation: str, args: tuple[clingo.Symbol, ...]) -> str:
        """An output fact R(ā) of `node`; in a located or Molly program with the node put back in R's
        location column (`log(b, "hello")`: which node holds it is what a broadcast is about)."""
        column = dict(self.program.locations).get(relation) if self.program is not None else None
        if column is None:
            return show_fact(relation, args)
        return show_fact(relation, (*args[:column], node, *args[column:]))

    # -- messages ------------------------------------------------------------

    @property
    def pending(self) -> tuple[Message, ...]:
        """The messages still in flight at the horizon: their arrival lies beyond T (tplp2016 §4.3.1)."""
        return tuple(m for m in self.messages if m.arrives is None)

    def crashed_by(self, node: clingo.Symbol, step: int) -> bool:
        """Whether `node` crashes at some step s <= `step` (docs/faults.md): from s on, its messages to
        other nodes are lost."""
        return any(x == node and s <= step for x, s in self.crashes)

    @cached_property
    def sending_rules(self) -> Mapping[Message, tuple[Rule, ...]]:
        """For each message, the asynchronous rules of P whose body holds at the send step and derive it.

        A message R(ā) to y sent at (x,s) is a chosen_R(x,s,y,t,ā) atom, and
        chosen_R comes from cand_R, whose body is the rule's body at (x,s)
        (tplp2016 rules (3)/(9)). Several rules may send R; each of them is
        evaluated (as async_P, §5.1.2) on D^{x,s}, and those deriving the
        message are returned. Empty when the model does not carry P.
        """
        if self.program is None:
            return {m: () for m in self.messages}
        rules = self.program.rules_of(RuleKind.ASYNC)
        sends: dict[tuple[Point, Rule], frozenset] = {}
        found = {}
        for m in self.messages:
            matching = []
            for rule in rules:
                if rule.head.predicate != m.relation:
                    continue
                key = (m.send, rule)
                if key not in sends:
                    node = Node()
                    sends[key] = node.async_((rule,), self.slice(*m.send), node.recall((rule,), self.slice, *m.send))
                if (m.addressee, (m.relation, m.args)) in sends[key]:
                    matching.append(rule)
            found[m] = tuple(matching)
        return found

    # -- happens-before (tplp2016 §5.2.1, §5.3.1) -----------------------------

    def points(self) -> list[Point]:
        """N × {0..T}, node by node."""
        return [(x, s) for x in self.network for s in range(self.horizon + 1)]

    def edges(self) -> list[tuple[Point, Point, str]]:
        """The local edges (x,s) → (x,s+1) and the message edges (x,s) → (y,t), with their kind."""
        local = [((x, s), (x, s + 1), "local") for x in self.network for s in range(self.horizon)]
        # a lasso's message that wraps arrives at a later step of the unrolled run than 0..T: no edge among them
        return local + [(m.send, m.arrival, "message") for m in self.messages if m.arrival is not None and not m.wraps]

    def recomputed_happens_before(self) -> frozenset[tuple[Point, Point]]:
        """≺ as the smallest transitive relation containing the local and message edges (§5.2.1)."""
        return closure((a, b) for a, b, _ in self.edges())

    @cached_property
    def happens_before(self) -> frozenset[tuple[Point, Point]]:
        """≺_M: from the `before` atoms where the model has them (§5.3.1), recomputed from the edges otherwise."""
        return self.before if self.before is not None else self.recomputed_happens_before()

    def noncausal(self) -> tuple[Message, ...]:
        """Messages sent into the past: the arrival (y,t) happens before the send (x,s).

        This is the condition ¬before(y,t,x,s) of rule (9) (tplp2016 §4.4.1),
        so a causal model has none (§5.3.1 Claim 5). In a choice model a
        message into the past closes a cycle of ≺, on which every arrival
        happens before its send; to name the message that closes it, ≺ is
        built from the local edges and the message edges taken in order of
        their send step: a message whose arrival already happens before its
        send is flagged and its edge left out. In tplp2016 Fig. 4, A() sent at
        z:0 arriving at z:1 is causal and B() sent at z:1 arriving at z:0 is not.

        In a lasso model (eventual mode) every node takes step k in round k, so a message goes into the past
        exactly when it arrives at a step no later than its send step on the unrolled run (`Message.unrolled`
        ≤ s, the choice semantics' arrivals from s − D on); a message that wraps (arrives after T, on the loop's
        next pass) arrives later than it was sent, even when its lasso step is at or before its send step.
        """
        if self.is_lasso:
            # the lasso's runs step in rounds (docs/semantics.md): on the unrolled run a message sent at step s and
            # arriving at step A is caused iff A > s. A wrapping message (`Message.wraps`: A lies in the next turn of
            # the loop) is shown at a lasso step at or before its send, yet goes forward: not into the past.
            return tuple(m for m in sorted(self.messages, key=lambda m: (m.sent, m.key()))
                         if m.unrolled is not None and m.unrolled <= m.sent)
        succ: dict[Point, set[Point]] = defaultdict(set)
        for a, b, kind in self.edges():
            if kind == "local":
                succ[a].add(b)

        def reaches(start: Point, goal: Point) -> bool:
            seen, todo = {start}, [start]
            while todo:
                v = todo.pop()
                if v == goal:
                    return True
                todo.extend(w for w in succ[v] if w not in seen and not seen.add(w))
            return False

        flagged = []
        for m in sorted(self.messages, key=lambda m: (m.sent, m.key())):
            if m.arrival is None:
                continue
            if reaches(m.arrival, m.send):
                flagged.append(m)
            else:
                succ[m.send].add(m.arrival)
        return tuple(flagged)

    # -- the run it stands for (tplp2016 §5.3.2) ------------------------------

    def linear_extension(self) -> tuple[Point, ...]:
        """A strict total order <_M on N × {0..T} extending ≺_M, earliest step first among the ready points.

        Raises ValueError when ≺ has a cycle (a model with messages into the
        past stands for no run).
        """
        succ: dict[Point, set[Point]] = defaultdict(set)
        indegree = {p: 0 for p in self.points()}
        for a, b, _ in self.edges():
            if b not in succ[a]:
                succ[a].add(b)
                indegree[b] += 1
        position = {x: i for i, x in enumerate(self.network)}
        ready = [(s, position[x], x) for (x, s), d in indegree.items() if d == 0]
        heapq.heapify(ready)
        order = []
        while ready:
            s, _, x = heapq.heappop(ready)
            order.append((x, s))
            for b in succ[(x, s)]:
                indegree[b] -= 1
                if indegree[b] == 0:
                    heapq.heappush(ready, (b[1], position[b[0]], b[0]))
        if len(order) < len(indegree):
            into_past = ", ".join(f"{m.fact} {m.sender}:{m.sent} → {m.addressee}:{m.arrives}" for m in self.noncausal())
            raise ValueError(
                f"model {self.number} sends messages into the past ({into_past}): its happens-before relation "
                "has a cycle, so it stands for no run (tplp2016 §5.3 needs a causal model)"
            )
        return tuple(order)

    def run(self) -> Run:
        """The run prefix R built from M (tplp2016 §5.3.2): transitions in the order <_M, configurations between.

        See `run.run_of`. Needs P (the inductive rules give the states);
        raises ValueError when M sends messages into the past.
        """
        return run_of(self)

    # -- as data, and in a notebook ---------------------------------------------

    def as_dict(self) -> dict:
        """The model as the JSON of docs/trace-schema.md (`dedalus2asp/trace/1`); `lost` and `crashes`
        only when the network has faults; `loop_start`, `period` and the `ultimate` outputs only for a lasso,
        whose every message also says whether it `wraps` (arrives on the loop's next pass: `arrives` is then
        its loop step, `unrolled` the step after T where it arrives)."""
        into_past = set(self.noncausal())
        rules = self.sending_rules
        lasso = self.loop_start is not None
        return {
            "number": self.number,
            "trace": [
                {"node": str(x), "step": s, "relation": r, "args": [str(v) for v in a]}
                for (x, s, r, a) in sorted(self.trace)
                if x != GLOBAL_NODE
            ],
            "global": [
                {"step": s, "relation": r, "args": [str(v) for v in a]}
                for (x, s, r, a) in sorted(self.trace)
                if x == GLOBAL_NODE
            ],
            "messages": [
                {
                    **m.as_dict(),
                    "noncausal": m in into_past,
                    "rule": [{"number": r.number, "text": str(r)} for r in rules[m]],
                    **({"wraps": m.wraps} if lasso else {}),
                }
                for m in self.messages
            ],
            "happens_before": [[str(x), s, str(y), t] for ((x, s), (y, t)) in sorted(self.happens_before)],
            "outputs": list(self.outputs()),
            **({"loop_start": self.loop_start, "period": self.period, "ultimate": list(self.ultimate())} if lasso else {}),
            **({
                "lost": [{k: v for k, v in m.as_dict().items() if k != "arrives"} for m in self.lost],
                "crashes": [{"node": str(x), "step": s} for x, s in self.crashes],
            } if self.bounds.network.faulty else {}),
        }

    def _repr_svg_(self) -> str | None:
        return _notebook(self, "svg")

    def _repr_html_(self) -> str | None:
        return _notebook(self, "html", fragment=True)


@dataclass(frozen=True)
class Models:
    """The models found for one question: one program and input within `bounds`, on `network`.

    `complete` is False when the enumeration stopped early (a timeout). It is
    a sequence of its models, and displays itself as an HTML report in a notebook.
    """

    models: tuple[Model, ...]
    bounds: Bounds
    network: tuple[clingo.Symbol, ...]
    complete: bool = True

    def __iter__(self) -> Iterator[Model]:
        return iter(self.models)

    def __len__(self) -> int:
        return len(self.models)

    def __getitem__(self, index: int) -> Model:
        return self.models[index]

    def _repr_html_(self) -> str | None:
        return _notebook(self, "html", fragment=True)


def _int(symbol: clingo.Symbol) -> int | None:
    return symbol.number if symbol.type is clingo.SymbolType.Number else None


def decode(symbols: Iterable[clingo.Symbol], compiled: Compiled, number: int = 1) -> Model:
    """Read a model's trace, messages and `before` atoms from its atoms; everything else auxiliary is dropped."""
    trace: set[TraceFact] = set()
    messages = []
    lost = []
    crashes = set()
    network: set[clingo.Symbol] = set()
    before = set()
    loop_start = None
    for atom in symbols:
        name, args = atom.name, atom.arguments
        if name in compiled.relations and len(args) == compiled.arities[compiled.relations[name]] + 2:
            trace.add((args[0], args[1].number, compiled.relations[name], tuple(args[2:])))
        elif name in compiled.messages and len(args) >= 4 and args[3].match(LOST, 0):  # not one of the run's (docs/faults.md)
            lost.append(Message(args[0], args[1].number, args[2], None, compiled.messages[name], tuple(args[4:])))
        elif name in compiled.messages and len(args) >= 4:
            arrival = args[3]
            arrives = None if arrival.type is clingo.SymbolType.Function and arrival.name == PENDING else _int(arrival)
            messages.append(
                Message(args[0], args[1].number, args[2], arrives, compiled.messages[name], tuple(args[4:]))
            )
        elif name == "all" and len(args) == 1:
            network.add(args[0])
        elif name == CRASHED and len(args) == 2 and args[1].type is clingo.SymbolType.Number:
            crashes.add((args[0], args[1].number))
        elif name == LOOP and len(args) == 1 and args[0].type is clingo.SymbolType.Number:
            loop_start = args[0].number
        elif name == "before" and len(args) == 4:
            before.add(((args[0], args[1].number), (args[2], args[3].number)))
    has_before = compiled.bounds.encoding is Encoding.PAPER and compiled.bounds.semantics.causal
    if loop_start is not None:
        messages = [_lasso_arrival(m, loop_start, compiled.bounds.horizon) for m in messages]
    return Model(
        number=number,
        trace=frozenset(trace),
        messages=tuple(sorted(messages, key=Message.key)),
        network=tuple(sorted(network)),
        bounds=compiled.bounds,
        before=frozenset(before) if has_before else None,
        program=compiled.program,
        lost=tuple(sorted(lost, key=Message.key)),
        crashes=tuple(sorted(crashes, key=lambda c: (c[1], c[0]))),
        loop_start=loop_start,
    )


def _lasso_arrival(m: Message, loop: int, horizon: int) -> Message:
    """A lasso's message: its unrolled arrival A kept in `unrolled`, `arrives` the lasso step pos(A)."""
    a = m.arrives
    return m if a is None else replace(m, arrives=a if a <= horizon else loop + (a - loop) % (horizon + 1 - loop), unrolled=a)


def enumerate_models(compiled: Compiled, limit: int = 0, **options) -> solve.Enumeration:
    """`asp.solve.enumerate_models` (the same options), each model decoded as it is found."""
    return solve.enumerate_models(compiled, limit, read=lambda symbols, number: decode(symbols, compiled, number), **options)


def traces(compiled: Compiled, timeout: float | None = None, progress: bool = False) -> solve.Enumeration:
    """Every distinct trace, one decoded model each (projective enumeration)."""
    return enumerate_models(compiled, 0, project=True, timeout=timeout, progress=progress, what="traces")
