"""The transformations of tplp2016 §4.3–4.5, bounded to a horizon.

`transform(program, instance, bounds)` writes the clingo program of P on decl(H), restricted to
the steps 0..T of `bounds.horizon` (§4.3.2): `choice` is pure_ch(P), rules (1)–(6); `causal` is
pure_ca(P), rules (1), (2), (4)–(10); `causal-finite` is pure(P), with rules (11)–(14) as well.
A deductive rule `R(u) :- B.` becomes `R(X,S,u) :- B^{X,S}.` (1), an inductive one
`R(u)@next :- B.` becomes `R(X,T,u) :- B^{X,S}, tsucc(S,T).` (2), an asynchronous one
`R(u)@async(Y) :- B.` becomes `cand_R(X,S,Y,T,u) :- B^{X,S}, all(Y), arrival(T).` (3), with
`not before(Y,T,X,S)` under causality (9). The `paper` encoding writes the rules as they stand;
the `fast` one writes (3)–(5) as one choice rule per message and (7)–(10) as clingo's `#edge`
acyclicity, and leaves out (11)–(14), which prune nothing within a finite horizon: the same
models up to auxiliary atoms (tests/test_fast.py). The delay bound of `bounds.network` limits
the arrivals. Program-independent rules come from `encodings/*.lp`, program-dependent ones from
`templates/*.j2`, each under its rule number.
Aggregates, arithmetic, `_` in negated atoms, body atoms at a step and global rules (issue #18) are
written by `views` for every template (docs/encodings.md); a global relation's facts are held by
node `()`, so its predicate keeps the shape R(node, step, ā) of every other relation.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from importlib import resources

from ..bounds import CRASH, Bounds, Encoding, Mode, Network
from ..lang import ranges
from ..lang.analysis import restrict
from ..lang.ast import Instance, Literal, Program
from ..lang.diagnostics import Diagnostic, DiagnosticError, Severity, diagnostic_in, rule_name
from ..lang.located import check_events
from .names import SILENCED, in_comment, message_relation, relation_name
from .relations import MessageView, carried_relations, persisted
from .views import environment, keys, projections, rule_view


def encoding(name: str) -> str:
    """A program-independent part from `encodings/`."""
    return resources.files("dedalus2asp.encodings").joinpath(name).read_text(encoding="utf-8")


@dataclass(frozen=True)
class Compiled:
    """A generated clingo program, the bounds it was written for, and the names needed to read its models back."""

    text: str
    relations: dict[str, str]  # clingo name -> user relation name, for sch(P)
    arities: dict[str, int]  # user relation name -> arity
    messages: dict[str, str]  # chosen_R clingo name -> user relation R
    bounds: Bounds
    # the fast encoding at the level of traces (templates/traces.lp.j2): the same traces, fewer
    # models; what `count` enumerates to count traces. None for the paper encoding and for choice.
    trace_text: str | None = None
    # P itself, for the inspector: which asynchronous rule sent a message, outputs, explanations
    program: Program | None = field(default=None, compare=False, repr=False)
    # what the reader should know about this program within these bounds (`late_steps`)
    warnings: tuple[Diagnostic, ...] = field(default=(), compare=False, repr=False)

    def projection(self) -> str:
        """`#project R/k.` for every relation of sch(P) (k with location and step): enumerate traces, not models."""
        return "".join(f"\n#project {name}/{self.arities[rel] + 2}." for name, rel in self.relations.items()) + "\n"

    def counting_traces(self) -> str:
        """The program whose projective enumeration counts the traces: `trace_text` when there is one."""
        return (self.text if self.trace_text is None else self.trace_text) + self.projection()


TRACE_LEVEL_HEADER = (
    "% At the level of traces (templates/traces.lp.j2): the same traces as the fast encoding, fewer\n"
    "% models; count them with: python -m clingo FILE 0 --project\n"
)


def _input_fact(node, fact, fail_stop: bool = False) -> str:
    """`R(x,S,ā) :- time(S).` for an input fact of x; `R(x,k,ā).` for an event R(ā)@k (tr2009 Example 3).
    Under fail-stop crashes (docs/faults.md) a crashed node holds no input fact from its crash step on:
    `R(x,S,ā) :- time(S), not _silenced(x,S).`"""
    step = "S" if fact.step is None else str(fact.step)
    atom = f"{relation_name(fact.predicate)}({','.join([str(node), step, *map(str, fact.args)])})"
    if fail_stop:
        up = f"not {SILENCED}({node},{step})"
        return f"{atom} :- time(S), {up}." if fact.step is None else f"{atom} :- {up}."
    return f"{atom} :- time(S)." if fact.step is None else f"{atom}."


def decl(instance: Instance, horizon: int, fail_stop: bool = False) -> str:
    """decl(H) restricted to steps 0..T (tplp2016 §4.3.2), extended with timestamped events.

    An input fact R(ā) of node x gives R(x,s,ā) for every s ≤ T; an event
    R(ā)@k gives R(x,k,ā) only (tr2009 Example 3: the EDB of Dedalus is
    timestamped, and persistence rules make a fact last).
    """
    check_events(instance, horizon)
    inputs = [(node, [_input_fact(node, f, fail_stop) for f in facts]) for node, facts in instance.facts.items()]
    events = any(f.step is not None for facts in instance.facts.values() for f in facts)
    return environment().get_template("decl.lp.j2").render(
        horizon=horizon, nodes=[str(n) for n in instance.network], inputs=inputs, events=events
    )


def _header(program: Program, bounds: Bounds, path: bool = False) -> str:
    """The comment lines that open the program: what it is, and how to run it."""
    horizon, semantics, d = bounds.horizon, bounds.semantics, bounds.network.max_delay
    delay = "" if d is None else f", delay bound D = {d}"
    delay += "".join(f", {words}" for words in (["sync delivery"] if bounds.network.sync else []) + bounds.network.fault_words())
    written = "with clingo's choice rules and #edge acyclicity" if bounds.encoding is Encoding.FAST else "rule by rule"
    if bounds.mode is Mode.EVENTUAL:
        written = "with clingo's choice rules" if bounds.encoding is Encoding.FAST else "rule by rule"
        what = (f"the loop-free paths of {horizon + 1} configurations (unsatisfiable: every lasso of at most "
                f"{horizon} steps is enough)" if path else
                f"its lasso models of {horizon + 1} steps: steps 0..{horizon}, the step after {horizon} is step L again, _loop(L)")
        return "\n".join([
            f"% {semantics.paper_name} of {in_comment(program.filename)}: the {semantics.value} semantics of tplp2016 §4,",
            f"% written {written} ({bounds.encoding.value} encoding), eventual mode{delay}:",
            f"% {what}. The nodes step in rounds (docs/semantics.md, Lasso models).",
            "% Generated by dedalus2asp; run it with: python -m clingo FILE 0",
        ]) + "\n"
    return "\n".join([
        f"% {semantics.paper_name} of {in_comment(program.filename)}: the {semantics.value} semantics of tplp2016 §4,",
        f"% written {written} ({bounds.encoding.value} encoding), over horizon T = {horizon}{delay}.",
        f"% Every node performs local steps 0..{horizon}; a message arrives at a step or stays pending.",
        "% Generated by dedalus2asp; run it with: python -m clingo FILE 0",
    ]) + "\n"


def late_steps(program: Program, horizon: int) -> tuple[Diagnostic, ...]:
    """A warning for every body atom `p(ā)@k` with k beyond the horizon: its rule never fires (a rule
    instance at step s reads step k only when k <= s)."""
    return tuple(
        Diagnostic(
            "step-beyond-horizon",
            f"this atom of rule {rule.number} reads step {item.step}, beyond the horizon {horizon}: the rule never "
            f"fires within it, since a node cannot read its future (raise --horizon to at least {item.step})",
            item.span, program.filename, program.text, Severity.WARNING,
        )
        for rule in program.rules
        for item in rule.body
        if isinstance(item, Literal) and item.step is not None and item.step > horizon
    )


def _lines(parts: list[str]) -> str:
    return "\n".join(p.rstrip("\n") + "\n" for p in parts)


def read_steps(program: Program, instance: Instance | None) -> int:
    """The largest step number P or H reads (an input event R(ā)@k, a body atom p(ā)@k), -1 when none: a
    lasso's loop starts after it, else that step would recur in every period."""
    steps = [f.step for facts in (instance.facts.values() if instance is not None else ()) for f in facts if f.step is not None]
    steps += [i.step for r in program.rules for i in r.body if isinstance(i, Literal) and i.step is not None]
    return max(steps, default=-1)


def clock_cap(network: Network, first: int) -> int:
    """The step at which a lasso configuration's clock stops counting (`lasso.lp.j2`): the end of the loss window and
    one past the last step read by number (`first`, from `read_steps`). No rule, input or fault reads a later step
    number, and the configurations before it are pairwise distinct, so every run passes this many in a row."""
    return max(network.loss_until or 0, first + 1)


def lockstep_ready(program: Program, network: Network) -> None:
    """Raise `DiagnosticError` when P has lock-step rules (Molly's writes into another node within a step,
    `ast.RuleKind.LOCKSTEP`) and the delivery is not `sync`: a lock-step rule makes step s of its head's node
    the very step s of its body's nodes, which Molly's rounds are and tplp2016's asynchronous runs, where each
    node takes its steps on its own, are not."""
    if network.sync:
        return
    raise DiagnosticError([diagnostic_in(
        program, "lockstep-async",
        f"{rule_name(rule)} writes '{rule.head.predicate}' at the node its first column names from what holds at "
        "other nodes at the same step (a lock-step rule, as Molly's one database per time reads it): that needs "
        "every node's step s to be round s of one clock, Molly's rounds; give --delivery sync",
        rule.span) for rule in program.lockstep_rules()])


def transform(program: Program, instance: Instance | None, bounds: Bounds, path: bool = False) -> Compiled:
    """Write the clingo program for P on H (or, without H, P alone with `time(0..T)`) within `bounds`.

    In the eventual mode (`bounds.mode` is `Mode.EVENTUAL`) it is the lasso program over the steps
    0..K-1, K = horizon + 1, its loop start chosen by the solver (`_loop(L)`, templates/lasso.lp.j2); with
    `path`, the loop-free path program of the completeness threshold (satisfiable iff some run has K
    pairwise distinct configurations in a row from the start). A lock-step rule needs `--delivery sync`
    (`lockstep_ready`)."""
    if program.lockstep_rules():
        lockstep_ready(program, bounds.network)
    if bounds.mode is Mode.EVENTUAL:
        return _lasso(program, instance, bounds, path)
    if path:
        raise ValueError("the loop-free path program belongs to the eventual mode")
    env = environment()
    horizon, semantics = bounds.horizon, bounds.semantics
    fast = bounds.encoding is Encoding.FAST
    parts = [_header(program, bounds)]
    instance = bounds.network.populate(instance)  # the nodes named by --nodes (docs/faults.md)
    if instance is not None:
        parts.append(decl(restrict(instance, program), horizon, bounds.network.fail_stop))
    else:
        parts.append(
            f"% decl(H) is not included: add all/1 and the input facts R(x,S,a..) for S in 0..{horizon}.\n"
            f"time(0..{horizon}).\n"
        )
    parts.append(encoding("time.lp"))
    if not fast:
        parts.append(encoding("arrival.lp"))  # the fast encoding writes the domain into its choice rules
    globals_ = frozenset(program.global_relations())
    rules = [rule_view(r, globals_, k) for r, k in zip(program.rules, keys(program))]
    parts.append(env.get_template("rules.lp.j2").render(
        rules=rules, projections=projections(program), causal=semantics.causal, fast=fast,
        fail_stop=bounds.network.fail_stop, lasso=False,
    ))
    kept = persisted(program)
    messages = [MessageView(r, k, r in kept) for r, k in program.async_relations().items()]
    options = dict(
        messages=messages, causal=semantics.causal, finite=semantics.finite, network=bounds.network, horizon=horizon,
        crash=relation_name(CRASH) if program.schema().get(CRASH) == 2 else None,  # crash(y, s), docs/faults.md
    )
    prefix = "fast_" if fast else ""
    tail = [encoding(f"{prefix}causal.lp")] if semantics.causal else []
    tail += [encoding(f"{prefix}finite.lp")] if semantics.finite else []
    trace_text = None
    # under fail-stop crashes a copy a node sends itself may land where the node is down, which the
    # trace-level program's reasoning about copies (templates/traces.lp.j2) does not cover
    if fast and semantics.causal and not bounds.network.fail_stop:
        traces = env.get_template("traces.lp.j2").render(**options)
        trace_text = _lines([parts[0] + TRACE_LEVEL_HEADER, *parts[1:], traces, *tail])
    parts += [env.get_template("fast.lp.j2" if fast else "messages.lp.j2").render(**options), *tail]
    return _compiled(program, bounds, parts, messages, horizon, trace_text)


def _compiled(program: Program, bounds: Bounds, parts: list[str], messages, horizon: int,
              trace_text: str | None = None) -> Compiled:
    """The generated program's text and how to read its models: the clingo names of P's relations and messages."""
    relations = program.schema()
    return Compiled(
        text=_lines(parts),
        relations={relation_name(r): r for r in relations},
        arities=relations,
        messages={message_relation("chosen", m.relation): m.relation for m in messages},
        bounds=bounds,
        trace_text=trace_text,
        program=program,
        warnings=late_steps(program, horizon),
    )


def lasso_ready(bounds: Bounds) -> None:
    """Raise ValueError when `bounds` (eventual mode) has no finite-state lasso program: async delivery without
    a delay bound (a message may stay in flight forever), or a lasso of no step."""
    if bounds.network.delay_bound is None:
        raise ValueError(
            "asynchronous delivery without a delay bound is not finite-state (a message may stay in flight forever): "
            "give --max-delay D, or --delivery sync")


def _lasso(program: Program, instance: Instance | None, bounds: Bounds, path: bool) -> Compiled:
    """The eventual mode's program: the rules of P as in the bounded one, the inductive heads through _next_R,
    and templates/lasso.lp.j2 for the loop, the messages and the faults (docs/semantics.md, Lasso models)."""
    env = environment()
    horizon, semantics, network = bounds.horizon, bounds.semantics, bounds.network
    lasso_ready(bounds)
    program = ranges.cut(program, network.populate(instance))  # counters saturate past their constants (lang/ranges)
    fast = bounds.encoding is Encoding.FAST
    parts = [_header(program, bounds, path)]
    instance = network.populate(instance)
    first = read_steps(program, instance)
    if instance is not None and path:  # an event past the path's last round has not happened yet: the capped clock tells
        instance = replace(instance, facts={n: tuple(f for f in fs if f.step is None or f.step <= horizon)
                                            for n, fs in instance.facts.items()})
    if instance is not None:
        parts.append(decl(restrict(instance, program), horizon, network.fail_stop))
    else:
        parts.append(
            f"% decl(H) is not included: add all/1 and the input facts R(x,S,a..) for S in 0..{horizon}.\n"
            f"time(0..{horizon}).\n"
        )
    parts.append(encoding("time.lp"))
    globals_ = frozenset(program.global_relations())
    rules = [rule_view(r, globals_, k) for r, k in zip(program.rules, keys(program))]
    parts.append(env.get_template("rules.lp.j2").render(
        rules=rules, projections=projections(program), causal=semantics.causal, fast=fast,
        fail_stop=network.fail_stop, lasso=True,
    ))
    kept = persisted(program)
    messages = [MessageView(r, k, r in kept) for r, k in program.async_relations().items()]
    carried = carried_relations(program)
    given = [(c, node, f) for c in carried for node, facts in (instance.facts.items() if instance else ())
             for f in facts if f.predicate == c.relation and f.step is None]
    parts.append(env.get_template("lasso.lp.j2").render(
        given=[c.given(str(node), "".join("," + str(a) for a in f.args)) + "." for c, node, f in given],
        given_relations={c.relation for c, _, _ in given},
        messages=messages, carried=carried, causal=semantics.causal, finite=semantics.finite,
        network=network, horizon=horizon, paper=not fast, path=path, first=first,
        cap=clock_cap(network, first),
        crash=relation_name(CRASH) if program.schema().get(CRASH) == 2 else None,
    ))
    if semantics.causal:
        parts.append(encoding("lasso_causal.lp" if fast else "causal.lp"))
    if semantics.finite:
        parts.append(encoding("fast_finite.lp" if fast else "finite.lp"))
    return _compiled(program, bounds, parts, messages, horizon)
