"""The fast encoding as a multi-shot program: the horizon grows one step at a time.

`incremental(program, instance, semantics, network, outputs)`, for the
causal semantics and the delay bound of `network`, writes
`templates/incremental.lp.j2`: `#program base.` (the network, and `_may_R`)
and `#program step(_t).`, every rule of the fast encoding (transform.py)
about step _t of every node: decl(H) at _t (tplp2016 §4.3.2), the deductive
rules at _t (1), the inductive rules from _t-1 to _t (2), the messages sent
at _t (3) and the arrivals chosen at _t (4)-(6), the #edge of happens-before
(7)-(10). `Unrolling.extend(T)` grounds step(0)..step(T) once each; after it
the control has the models of `transform` at horizon T in the fast encoding, up to
the auxiliary atoms: the same number of models and the same traces
(tests/test_cron.py checks it at every horizon on several examples).

What changes when the horizon grows is made an `#external` of the step
before: a message sent at step k may arrive at a step t <= k of another
node, so R(y,t,w), grounded at step t, gains a support at step k. `_late_R(y,t,w,k)` (some R(w) sent at a step >= k
arrives at step t of y) is defined at step k and reads `_late_R(y,t,w,k+1)`,
an external until step k+1 defines it; at the horizon it stays false. Its
domain `_may_R` is an over-approximation of what R can carry: the least
model of P without negation, time and place on the union of the inputs
(`may`), of the rules that feed the message relations. A message not arrived by the horizon is the one-shot's pending one.

Under sync delivery (Molly's rounds) a message arrives at the step after its send: no `_late_R`,
no `_may_R`, and no `#edge` (happens-before follows the step numbers). Faults (docs/faults.md):
a message chooses `lost` at its send step; crashes are chosen step by step (`_crashed(Y,_t)`),
or, for a program that reads `crash(y, s)` at every step, as a crash plan in `base`
(`crash_plan`, used by `verify --search-horizon`, dedalus2asp/questions/verify_search.py).

Only causal semantics: under `choice` a message may arrive in the past and
support the very fact that sent it, a positive loop through atoms grounded
in different steps, and clingo's multi-shot solving does not check such a
loop for unfoundedness (measured: jcss2014 Alg. 1 at T = 1 has 30 choice
traces, this program without #edge 45). Under causality the loop closes a
cycle of happens-before, which #edge rules out.

Names the generated program adds begin with `_` (`_late_R`, `_arrived_R`,
`_may_R`, `_output`: names.INTERNAL): no user relation's clingo name does
(names.relation_name), so they cannot collide.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import clingo

from ..bounds import CRASH, Network, Semantics
from ..lang.ast import Aggregate, Arithmetic, Instance, Literal, Program, RuleKind
from .names import fresh, in_comment, internal, message_relation, relation_name
from .transform import lockstep_ready
from .views import environment, keys, projections, rule_view, term

LAST = "_last"
"""The external _last(t) of the multi-shot program: t is the horizon being solved (Molly's crash candidates
exclude a crash at the last step, `Network.crash_times`)."""


def tuple_term(terms: list[str]) -> str:
    """A clingo tuple term: (), (a,), (a,b)."""
    return "(" + ",".join(terms) + ("," if len(terms) == 1 else "") + ")"


@dataclass(frozen=True)
class IncrementalMessage:
    """Relation R sent by asynchronous rules, for `incremental.lp.j2` (W1..Wk stand for w̄)."""

    relation: str
    arity: int

    @property
    def _w(self) -> list[str]:
        return [f"W{i}" for i in range(1, self.arity + 1)]

    def _atom(self, name: str, args: list[str]) -> str:
        return f"{name}({','.join(args + self._w)})"

    def cand(self, x: str, s: str, y: str) -> str:
        return self._atom(message_relation("cand", self.relation), [x, s, y])

    def chosen(self, x: str, s: str, y: str, t: str) -> str:
        return self._atom(message_relation("chosen", self.relation), [x, s, y, t])

    def arrived(self, x: str, s: str, y: str, t: str) -> str:
        return self._atom(internal("arrived", self.relation), [x, s, y, t])

    def late(self, y: str, t: str, k: str) -> str:
        return f"{internal('late', self.relation)}({','.join([y, t, *self._w, k])})"

    @property
    def may(self) -> str:
        return internal("may", self.relation) + (f"({','.join(self._w)})" if self.arity else "")

    @property
    def arrive(self) -> str:
        return self._atom(relation_name(self.relation), ["Y", "_t"])


@dataclass(frozen=True)
class OutputView:
    """`_output(_t,"R",(W1,..)) :- R(X,_t,W1,..).`: output relation R at step _t, united over nodes (jcss2014 §2.5.5)."""

    relation: str
    arity: int
    column: int | None = None  # a located relation's location column: the node X goes back there

    @property
    def tuple(self) -> str:
        w = [f"W{i}" for i in range(1, self.arity + 1)]
        if self.column is not None:
            w.insert(self.column, "X")
        return tuple_term(w)

    @property
    def atom(self) -> str:
        return f"{relation_name(self.relation)}({','.join(['X', '_t'] + [f'W{i}' for i in range(1, self.arity + 1)])})"


def _counted(program: Program, rules=None) -> bool:
    """Whether a rule head computes a value (an expression or an aggregate): the values of P without
    time may then grow without end (`count(N+1)@next :- count(N).`), and `may` counts hops."""
    return any(isinstance(a, (Arithmetic, Aggregate)) for r in (program.rules if rules is None else rules) for a in r.head.args)


def _feeding(program: Program, relations) -> set[str]:
    """The relations `relations` read, directly or not, through positive body atoms (with themselves): all
    that their tuples in `may` depend on, negation being dropped there."""
    needed, todo = set(relations), list(relations)
    while todo:
        name = todo.pop()
        for rule in program.rules:
            if rule.head.predicate == name:
                for atom in rule.positive:
                    if atom.predicate not in needed:
                        needed.add(atom.predicate)
                        todo.append(atom.predicate)
    return needed


def may(
    program: Program, instance: Instance, horizon: int | None = None, only=None,
) -> dict[str, set[tuple[clingo.Symbol, ...]]]:
    """An over-approximation of every tuple each relation can hold, at any node and step.

    With `only` (relation names), the over-approximation of those relations, from the rules of the
    relations they read (`_feeding`); the other relations' sets are then empty. A clock elsewhere
    in the program (`clock(T + 1)@next :- clock(T).`) no longer makes it count hops.

    The least model of P with negation dropped and every rule read as deductive, on the union of
    H(x) over the nodes: a stable model of pure_ch(P) (tplp2016 §4.3) derives a fact of R(x,s,w̄) only
    through a rule whose positive body holds, so w̄ is in it.

    When a head computes a value (an expression, an aggregate), that least model can be infinite,
    so every tuple carries the number of inductive and asynchronous rules it took, at most
    |N|·(T+1) - 1 for horizon T: each such rule crosses an edge of happens-before, whose chains
    within the horizon visit each of the |N|·(T+1) local steps at most once under causality. An
    aggregate may take any value its function can give on a part of what the body can hold:
    `count` 1..the number of values, `sum` from the sum of the negative terms to that of the
    positive ones, `min` and `max` any of the values.
    """
    needed = set(program.schema()) if only is None else _feeding(program, only)
    chosen = [(rule, key) for rule, key in zip(program.rules, keys(program)) if rule.head.predicate in needed]
    hops = _counted(program, [rule for rule, _ in chosen])
    if hops and horizon is None:
        raise ValueError("a program whose heads compute values needs the horizon to bound its _may_R")
    bound = len(instance.network) * ((horizon or 0) + 1) - 1 if hops else None
    lines = []
    for node_facts in instance.facts.values():
        for f in node_facts:
            if f.predicate in needed:
                lines.append(f"{relation_name(f.predicate)}({'0,' if hops else ''}{tuple_term([str(a) for a in f.args])}).")
    if hops:  # a tuple reached within n hops is reached within n+1
        lines += [f"{relation_name(r)}(N+1,W) :- {relation_name(r)}(N,W), N < {bound}." for r in program.schema() if r in needed]
    for rule, key in chosen:
        if rule.kind is not RuleKind.GLOBAL:  # only global rules read what a global rule derives
            lines += _may_rule(rule, key, bound)
    ctl = clingo.Control(["--warn=none"])
    ctl.add("base", [], "\n".join(lines))
    ctl.ground([("base", [])])
    relations = program.schema()
    names = {relation_name(r): r for r in relations}
    found: dict[str, set] = {r: set() for r in relations}
    for atom in ctl.symbolic_atoms:
        symbol = atom.symbol
        if symbol.name in names and len(symbol.arguments) == 1 + hops:
            found[names[symbol.name]].add(tuple(symbol.arguments[-1].arguments))
    return found


def _inputs(instance: Instance, relations) -> list[str]:
    """decl(H) at step _t (tplp2016 §4.3.2); an input event R(ā)@k (tr2009 Example 3) at step k only."""
    return [
        f"{relation_name(f.predicate)}({','.join([str(node), '_t', *map(str, f.args)])})"
        + ("" if f.step is None else f" :- _t = {f.step}")
        for node, facts in instance.facts.items()
        for f in facts
        if f.predicate in relations
    ]


def _may_rule(rule, key: int, bound: int | None) -> list[str]:
    """The rule of `may` for a rule of P: its positive body and comparisons; with a hop `bound`, every
    atom's hop count first, one more in the head of an inductive or asynchronous rule."""
    view = rule_view(rule, key=key)
    taken = set(view.variables.values()) | {view.x, view.s, view.t, *view.aggregates.values(), *view.groups.values()}
    n = "" if bound is None else fresh("N", taken)

    def atom(predicate: str, terms: list[str], hop: str = n) -> str:
        return f"{relation_name(predicate)}({hop + ',' if hop else ''}{tuple_term(terms)})"

    body = [atom(b.atom.predicate, [term(t, view) for t in b.atom.args]) for b in rule.body
            if isinstance(b, Literal) and not b.negated]
    body += [f"{term(c.left, view)} {c.op} {term(c.right, view)}" for c in rule.comparisons]
    lines, extra = [], []
    for i, a in enumerate(rule.head.args):
        if isinstance(a, Aggregate):  # any value the function gives on a part of what the body holds
            v, name = view.aggregates[i], internal("may_agg", f"r{key}_{i}")
            c, u, k, lo, hi = (fresh(v + suffix, taken) for suffix in "CUKLH")
            lines.append(f"{name}({n},{term(a.term, view)},{tuple_term(_variables(rule, view))})"
                         + (f" :- {', '.join(body)}." if body else "."))
            extra += {
                "count": [f"{c} = #count{{ {u} : {name}({n},{u},{k}) }}", f"{v} = 1..{c}"],
                "sum": [f"{lo} = #sum{{ {u},{k} : {name}({n},{u},{k}), {u} < 0 }}",
                        f"{hi} = #sum{{ {u},{k} : {name}({n},{u},{k}), {u} > 0 }}", f"{v} = {lo}..{hi}"],
            }.get(a.function, [f"{name}({n},{v},_)"])
    hop = n
    if bound is not None and rule.kind in (RuleKind.INDUCTIVE, RuleKind.ASYNC):
        hop, extra = f"{n}+1", extra + [f"{n} < {bound}"]
    guard = [f"{n} = 0..{bound}"] if bound is not None and not body else []
    premise = guard + body + extra
    head = atom(rule.head.predicate, [view.aggregates.get(i) or term(a, view) for i, a in enumerate(rule.head.args)], hop)
    return lines + [head + (" :- " + ", ".join(premise) if premise else "") + "."]


def _variables(rule, view) -> list[str]:
    """The clingo variables of the rule's positive body atoms, in order (the valuation `sum` counts)."""
    names: list[str] = []
    for atom in rule.positive:
        for v in atom.variables():
            if not v.anonymous and view.variables[v.name] not in names:
                names.append(view.variables[v.name])
    return names


@dataclass(frozen=True)
class Incremental:
    """A multi-shot program (`base`, `step(_t)`) and the names needed to read its models back."""

    text: str
    relations: dict[str, str]  # clingo name -> user relation, as in transform.Compiled
    arities: dict[str, int]
    messages: dict[str, str]
    semantics: Semantics
    network: Network


def incremental(
    program: Program,
    instance: Instance,
    semantics: Semantics = Semantics.CAUSAL_FINITE,
    network: Network = Network(),
    outputs: tuple[str, ...] = (),
    horizon: int | None = None,
    crash_plan: bool = False,
) -> Incremental:
    """Write the multi-shot version of the fast encoding of P on H (rules (11)-(14) prune nothing within a finite horizon).

    A program whose heads compute values (expressions, aggregates) needs `horizon`, the last step
    the program will be grounded for: it bounds `_may_R` (see `may`).

    Crashes are chosen step by step (`_crashed(Y,_t)` at step _t), so a program that reads
    `crash(y, s)` at steps before s cannot be written that way: it is refused, unless `crash_plan`,
    which chooses the crash plan in `base`, every crash at a step 0..`horizon` (`crash(y, s)` then
    holds at every step grounded). A model at a horizon h < `horizon` may then crash a node after
    h: the caller keeps the models of horizon h to the plans whose crashes are at steps <= h
    (`verify_search` does so under its assumption for h: `:- _crashed(Y,S), S > h.`).
    """
    _check_writable(program, semantics, network, horizon)
    instance = network.populate(instance)  # the nodes named by --nodes (docs/faults.md)
    reads_crash = crash_reading(program, network, horizon, crash_plan)
    relations = program.schema()
    async_relations = program.async_relations()
    # under sync a message arrives at the step after its send, never at a step grounded before: no
    # _late_R, so no domain _may_R to compute (it is the costly part of a long horizon with values computed)
    reachable = {} if network.sync else may(program, instance, horizon, only=async_relations)
    messages = [IncrementalMessage(r, k) for r, k in async_relations.items()]
    text = environment().get_template("incremental.lp.j2").render(
        filename=in_comment(program.filename),
        semantics=semantics.value,
        nodes=[str(n) for n in instance.network],
        may=may_facts(messages, reachable),
        projection=[f"{relation_name(r)}({','.join(['X', '_t', *(f'W{i}' for i in range(1, k + 1))])})" for r, k in relations.items()],
        projections=projections(program),
        inputs=_inputs(instance, relations),
        rules=step_rules(program),
        messages=messages,
        network=network,
        plan=horizon if network.crashes and crash_plan else None,
        crash=relation_name(CRASH) if reads_crash else None,
        outputs=[OutputView(r, relations[r], dict(program.locations).get(r)) for r in outputs],
    )
    return Incremental(
        text=text,
        relations={relation_name(r): r for r in relations},
        arities=relations,
        messages={message_relation("chosen", m.relation): m.relation for m in messages},
        semantics=semantics,
        network=network,
    )


def _check_writable(program: Program, semantics: Semantics, network: Network, horizon: int | None) -> None:
    """Refuse what the multi-shot program does not write: non-causal semantics, fail-stop crashes, values
    computed in heads without the last horizon; and a lock-step rule without sync delivery (`DiagnosticError`,
    `transform.lockstep_ready`): under sync it is written at step _t as in the one-shot program."""
    if program.lockstep_rules():
        lockstep_ready(program, network)
    if not semantics.causal:
        raise ValueError("the incremental program is written for causal semantics only")
    if network.fail_stop:
        raise ValueError("the multi-shot program does not write fail-stop crashes (drop --search-horizon, or use --crash-model clock)")
    if horizon is None and _counted(program):
        raise ValueError("a program whose heads compute values needs the horizon to bound its _may_R")


def crash_reading(program: Program, network: Network, horizon: int | None, crash_plan: bool) -> bool:
    """Whether the program reads crash(y, s) under crashes; refused unless the crash plan is chosen in base
    (`crash_plan`, which needs the last horizon): a node may crash after the step being grounded."""
    reads_crash = network.crashes > 0 and program.schema().get(CRASH) == 2
    if crash_plan and horizon is None:
        raise ValueError("a crash plan chosen in base needs the last horizon the program will be grounded for")
    if reads_crash and not crash_plan:
        raise ValueError(
            "the multi-shot program cannot give crash(y, s) at every step: a node may crash after the step being "
            "grounded (drop --search-horizon, or do not read crash in the program)"
        )
    return reads_crash


def step_rules(program: Program) -> list[tuple]:
    """The views of each rule at step _t: its body at _t, and for an inductive rule at _t-1 as well."""
    globals_ = frozenset(program.global_relations())
    rules = []
    for rule, key in zip(program.rules, keys(program)):
        view = rule_view(rule, globals_, key)
        now = replace(view, s="_t")
        rules.append((now, replace(view, s="(_t-1)") if rule.kind is RuleKind.INDUCTIVE else now))
    return rules


def may_facts(messages: list[IncrementalMessage], reachable: dict) -> list[str]:
    """The facts `_may_R(w)` of the values `may` found each message relation may carry."""
    return [
        internal("may", m.relation) + (f"({','.join(map(str, w))})" if w else "")
        for m in messages
        for w in sorted(reachable.get(m.relation, ()))
    ]


class Unrolling:
    """A clingo control over an `Incremental` program, grounded up to the current horizon."""

    def __init__(self, program: Incremental, arguments: list[str] = (), project: bool = False):
        self.program = program
        self.project = project
        self.control = clingo.Control(
            ["--warn=none", *arguments, *(["--project=project"] if project else [])]
        )
        self.control.add("base", [], program.text)  # its #program directives split base and step(_t)
        self.horizon = -1
        self.ground_seconds = 0.0

    def extend(self, horizon: int) -> None:
        """Ground the steps up to `horizon` that are not grounded yet (base with step 0)."""
        start = time.perf_counter()
        parts = [("base", [])] if self.horizon < 0 else []
        for t in range(self.horizon + 1, horizon + 1):
            parts += [("step", [clingo.Number(t)])] + ([("project", [clingo.Number(t)])] if self.project else [])
        if parts:
            self.control.ground(parts)
        if self.program.network.after_send:  # Molly's crash candidates: no crash at the last step (_last(_t))
            for t in range(horizon):
                self.control.assign_external(clingo.Function(LAST, [clingo.Number(t)]), False)
            self.control.assign_external(clingo.Function(LAST, [clingo.Number(horizon)]), True)
        self.horizon = max(self.horizon, horizon)
        self.ground_seconds += time.perf_counter() - start
