"""Why does a fact hold at a node and step? Its derivation in a model (lineage).

A fact R(ā) of the trace at (x,s) holds for one of four reasons, read off the
operational semantics of a step (tplp2016 §5.1.3, §5.3.2): the step starts
from I = st(x) ∪ untag(m) and computes D = deduc_P(I), where

* an *input* fact is in H(x): an edb fact, present at every step, or a fact
  `R(ā)@s` written in the program or the input (an input event, tr2009
  Example 3), also when rules derive R as well;
* a *carried* fact is in induc_P(D^{x,s-1}): an inductive rule whose body held
  at the previous step s-1 of x (rule (2) of the transformation);
* an *arrived* fact is a message R(ā) with arrival step s at x (rule (6)),
  sent at (y,t) by an asynchronous rule whose body held there;
* a *deduced* fact comes from a deductive rule whose body holds in D (rule (1));
* a *fault* is a fact `crash(y, s)` ("y crashes at step s"), which holds at every
  node and step of a run where y crashes at s (Molly's convention, docs/faults.md):
  the network's choice, like an arrival step, not the program's.

Deduced facts are explained by the round of the stratified fixpoint
(tplp2016 §3.2.2) in which they first appear, so every positive body fact of
the chosen rule instance appeared earlier and the derivation is well founded
even for recursive rules; a negated body atom is reported as absent. Each
premise is explained in turn, back to input facts.

Issue #18's constructs: a fact of an aggregate head (`tally(c, 3)`) is
derived by a group of valuations, and its premises are the positive body facts
of all of them; arithmetic is evaluated as the rule's instance is (the
evaluator's own); a body atom at a fixed step `p(ā)@k` is a premise at (x,k);
a fact of the global node (`GLOBAL_NODE`) is deduced by a global rule from the
facts of several nodes at its step, each a premise at its own node. A fact written
by a lock-step rule of Molly's (`RuleKind.LOCKSTEP`, under `--delivery sync`) at the
node its head's first argument names is deduced from the facts of several nodes at the
same step, each a premise at its own node, before that node's own deductive rules read it
(`lockstep`). `Derivation` is the tree;
`dedalus2asp.formats` prints it indented (text) or draws it as a lineage graph
(DOT, in the spirit of Molly's provenance diagrams).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Iterator

import clingo

from ..bounds import CRASH
from ..lang.analysis import strata
from ..lang.ast import GLOBAL_NODE, Atom, Instance, Literal, Rule, RuleKind
from ..runs.evaluator import Moment, Plan
from ..runs.local import Node
from .model import GroundFact, Message, Model, Point, show_fact

INPUT, ARRIVED, CARRIED, DEDUCED, FAULT = "input", "arrived", "carried", "deduced", "fault"


@dataclass(frozen=True)
class Reason:
    """One reason why a fact holds at a point: how, by which rule instance (rule, valuation), which message."""

    how: str
    rule: Rule | None = None
    binding: tuple = ()
    message: Message | None = None
    group: tuple[tuple, ...] = ()
    """For an aggregate head: every valuation of the group (each as sorted (variable, value) pairs)."""


@dataclass(frozen=True)
class Derivation:
    """R(ā) at (node, step), why (`reason`), and the derivations of the rule's positive body facts.

    The rule instance is evaluated at `at`: (x,s) for a deduced fact, (x,s-1)
    for a carried one, the sender's step for an arrived one; the `absent`
    (negated, ground) body atoms are absent there, and each premise holds at
    its own point: `at`, or (x,k) for a body atom at step k, or its node for
    a premise of a global rule. `also` names the other reasons, if any. `rule` is
    the rule behind this step: the reason's rule, or for an arrival the
    asynchronous rule that sent the message (None for an input fact).
    """

    node: clingo.Symbol
    step: int
    fact: GroundFact
    reason: Reason
    at: Point | None
    premises: tuple["Derivation", ...]
    absent: tuple[GroundFact, ...]
    also: tuple[Reason, ...] = ()
    rule: Rule | None = None

    @property
    def key(self) -> tuple:
        return (self.node, self.step, self.fact)


class Lineage:
    """The derivations of one model; the reasons at each point are computed once."""

    def __init__(self, model: Model, instance: Instance | None = None):
        """`instance` is H, the facts the model was solved with; without it, only edb facts are inputs
        (the program's own facts of relations that rules also derive would then not be)."""
        if model.program is None:
            raise ValueError("the model does not carry its program: decode it from a Compiled made by transform()")
        self.model = model
        self.program = model.program
        self.edb = set(self.program.edb())
        # the nodes named by --nodes get what every node gets (their own name: Molly's -N)
        self.instance = instance if instance is None else model.bounds.network.populate(instance)
        self.strata = strata(self.program)
        self.inductive = self.program.rules_of(RuleKind.INDUCTIVE)
        self.plan = Plan.of(self.program)
        self.global_strata = tuple(tuple(r for c in stratum for r in c.rules) for stratum in self.plan.globals)
        self.held_by_none = set(self.program.global_relations())
        self.lockstep_rules = self.program.lockstep_rules()
        self.lockstep_reads = {a.predicate for r in self.lockstep_rules for a in (*r.positive, *r.negative)}
        self.node = Node()  # the evaluator at one node, on the model's facts
        self._reasons: dict[Point, dict[GroundFact, list[Reason]]] = {}
        self._derivations: dict[tuple, Derivation] = {}

    def facts(self, node: clingo.Symbol, step: int) -> frozenset[GroundFact]:
        """What the rules at (node, step) read: D^{x,s}; at the global node, also every node's facts of the
        relations global rules read, each with its node as first argument."""
        held = self.model.slice(node, step)
        if node != GLOBAL_NODE:
            return held
        gathered = {(r, (x, *a)) for x in self.model.network for r, a in self.model.slice(x, step) if r in self.plan.observed}
        return held | gathered

    def gathered(self, step: int) -> frozenset[GroundFact]:
        """What the lock-step rules read at `step`: every node's facts of their body relations, each with its
        node as first argument (Molly's one database at one time)."""
        return frozenset((r, (x, *a)) for x in self.model.network for r, a in self.model.slice(x, step)
                         if r in self.lockstep_reads)

    def lockstep(self, node: clingo.Symbol, step: int) -> Iterator[tuple[GroundFact, "Reason"]]:
        """The facts the lock-step rules write at `node` at `step`, each with its rule instance: the instances
        on every node's facts of that step (`gathered`) whose head's first argument is `node`."""
        if not self.lockstep_rules:
            return
        facts = self.gathered(step)
        for rule in self.lockstep_rules:
            for b, (relation, args), group in self.instances(rule, facts):
                if args and args[0] == node:
                    yield (relation, args[1:]), Reason(DEDUCED, rule, tuple(sorted(b.items())), group=group)

    def inputs(self, node: clingo.Symbol, step: int) -> frozenset[GroundFact]:
        """H(x) at step s: the persistent input facts and the events R(ā)@s of the node."""
        if self.instance is None:
            return frozenset(f for f in self.model.slice(node, step) if f[0] in self.edb)
        return frozenset(
            (f.predicate, f.args) for f in self.instance.facts.get(node, ()) if f.step is None or f.step == step
        )

    def faults(self, held: frozenset[GroundFact]) -> list[GroundFact]:
        """The facts `crash(y, s)` among `held` when the run may crash nodes and no rule derives `crash`:
        the faults of the run (`bounds.CRASH`), held at every node and step."""
        if not self.model.bounds.network.crashes or CRASH not in self.edb:
            return []
        return [f for f in held if f[0] == CRASH]

    def moment(self, node: clingo.Symbol, step: int) -> Moment:
        """The step and what (node) held at the earlier steps that body atoms `p(ā)@k` read."""
        return self.node.recall(self.program.rules, self.facts, node, step)

    def instances(self, rule: Rule, facts, at: Moment | None = None) -> Iterator[tuple[dict, GroundFact, tuple]]:
        """Each instance of `rule` on `facts`: its valuation (for an aggregate, of the group's key), the head
        fact it derives, and for an aggregate every valuation of its group."""
        for b, fact, group in self.node.instances(rule, facts, at):
            yield b, fact, tuple(tuple(sorted(m.items())) for m in group)

    def reasons(self, node: clingo.Symbol, step: int) -> dict[GroundFact, list[Reason]]:
        """Every fact of D^{x,s} with its reasons, best first: input, arrived, carried, then deduced by fixpoint round."""
        point = (node, step)
        if point in self._reasons:
            return self._reasons[point]
        held = self.model.slice(node, step)
        found: dict[GroundFact, list[Reason]] = defaultdict(list)
        at = self.moment(node, step)
        if node == GLOBAL_NODE:  # the global rules, on the gathered facts of every node at this step
            read = self.facts(node, step) - held
            strata_ = self.global_strata
        else:
            read = frozenset()
            strata_ = self.strata
            for fact in self.inputs(node, step) & held:  # none at a crashed node
                found[fact].append(Reason(INPUT))
            for fact in self.faults(held):
                found[fact].append(Reason(FAULT))
            for m in self.model.messages:
                if m.arrival == point:
                    found[(m.relation, m.args)].append(Reason(ARRIVED, message=m))
            for fact, reason in self.lockstep(node, step):  # written before the node's own rules read them
                found[fact].append(reason)
            if step > 0:
                before = self.model.slice(node, step - 1)
                for rule in self.inductive:
                    for b, fact, group in self.instances(rule, before, self.moment(node, step - 1)):
                        found[fact].append(Reason(CARRIED, rule, tuple(sorted(b.items())), group=group))
        for stratum in strata_:
            while True:  # one round of the fixpoint: only facts of earlier rounds are premises
                new: dict[GroundFact, list[Reason]] = defaultdict(list)
                known = set(found) | read
                for rule in stratum:
                    for b, fact, group in self.instances(rule, known, at):
                        if fact not in found:
                            new[fact].append(Reason(DEDUCED, rule, tuple(sorted(b.items())), group=group))
                if not new:
                    break
                found.update(new)
        if set(found) != held:
            raise ValueError(
                f"model {self.model.number} at {node}:{step} is not D = deduc_P(st ∪ arrivals): "
                f"{sorted(show_fact(*f) for f in set(found) ^ held)} differ (a bug in dedalus2asp)"
            )
        self._reasons[point] = dict(found)
        return self._reasons[point]

    def derive(self, node: clingo.Symbol, step: int, fact: GroundFact) -> Derivation:
        """The derivation of `fact` at (node, step); ValueError if it does not hold there."""
        if node not in self.model.network and node != GLOBAL_NODE:
            raise ValueError(f"{node} is not a node of the network ({', '.join(map(str, self.model.network))})")
        if not 0 <= step <= self.model.horizon:
            raise ValueError(f"step {step} is outside 0..{self.model.horizon} (the horizon)")
        reasons = self.reasons(node, step)
        if fact not in reasons:
            held = ", ".join(self.model.facts_at(node, step)) or "nothing"
            raise ValueError(
                f"{show_fact(*fact)} does not hold at {node}:{step} in model {self.model.number} "
                f"({node} holds {held} there)"
            )
        key = (node, step, fact)
        if key not in self._derivations:
            reason, *others = reasons[fact]
            at, premises, absent = self._premises(node, step, reason)
            self._derivations[key] = Derivation(
                node, step, fact, reason, at,
                tuple(self.derive(*where, p) for where, p in premises),
                absent, tuple(others), self.rule(reason),
            )
        return self._derivations[key]

    def rule(self, reason: Reason) -> Rule | None:
        """The rule behind a reason: its own, or for an arrival the asynchronous rule that sent the message."""
        if reason.how == ARRIVED:
            rules = self.model.sending_rules[reason.message]
            return rules[0] if rules else None
        return reason.rule

    def _premises(
        self, node, step, reason: Reason
    ) -> tuple[Point | None, list[tuple[Point, GroundFact]], tuple[GroundFact, ...]]:
        """Where the rule instance of `reason` was evaluated, its positive body facts (each with the point
        where it holds) and its absent ones; for an aggregate, those of every valuation of the group."""
        if reason.how in (INPUT, FAULT):
            return None, [], ()
        if reason.how == ARRIVED:
            m = reason.message
            at, rule, bindings = m.send, None, ()
            for candidate in self.model.sending_rules[m][:1]:
                for b, (_, args), group in self.instances(candidate, self.model.slice(*m.send), self.moment(*m.send)):
                    if b.get(candidate.addressee.name) == m.addressee and args == m.args:
                        rule, bindings = candidate, [dict(v) for v in group] or [b]
                        break
            if rule is None:
                return at, [], ()
        else:
            at = (node, step - 1) if reason.how == CARRIED else (node, step)
            rule = reason.rule
            bindings = [dict(v) for v in reason.group] or [dict(reason.binding)]
        premises: dict[tuple[Point, GroundFact], None] = {}
        absent: dict[GroundFact, None] = {}
        literals = [b for b in rule.body if isinstance(b, Literal)]
        spread = rule.kind is RuleKind.LOCKSTEP  # each body atom at the node its first argument names
        for binding in bindings:
            for literal in literals:
                args = self.node.instance(literal.atom, binding)
                where = at if literal.step is None else (at[0], literal.step)
                if literal.negated:
                    absent[(literal.atom.predicate, tuple(ANY if v is None else v for v in args))] = None
                    continue
                held = sorted(self.gathered(where[1]) if spread else self.facts(*where))
                found = next(f for f in held if _matches(literal.atom, args, f))
                premises[self._located(where, found, spread)] = None
        return at, list(premises), tuple(absent)

    def _located(self, where: Point, fact: GroundFact, spread: bool = False) -> tuple[Point, GroundFact]:
        """A premise read at `where`: at the global node, or by a lock-step rule (`spread`), a fact of a node's
        relation is that node's fact."""
        relation, args = fact
        if (where[0] == GLOBAL_NODE or spread) and relation not in self.held_by_none:
            return (args[0], where[1]), (relation, args[1:])
        return where, fact


class _Any:
    """The anonymous variable `_` of an absent (negated) atom: no value of it holds. Not a clingo symbol:
    a symbol pickles as its text, and `_` is no term clingo parses back (a verdict with the lineage of a
    projection, made in the solver's process, could not come back); it pickles as this module's `ANY`."""

    def __repr__(self) -> str:
        return "_"

    __str__ = __repr__

    def __reduce__(self) -> str:
        return "ANY"


ANY = _Any()
"""Printed `_`; equal to no symbol."""


def _matches(atom: Atom, args: tuple, fact: GroundFact) -> bool:
    """Whether `fact` is an instance of `atom` whose arguments are `args` (None: an anonymous `_`, any value)."""
    return fact[0] == atom.predicate and all(v is None or v == w for v, w in zip(args, fact[1]))


def explain(
    model: Model, node: clingo.Symbol, step: int, fact: GroundFact, instance: Instance | None = None
) -> Derivation:
    """The derivation of `fact` at (node, step) in `model`, solved with the input facts H = `instance`
    (see the module docstring and `Lineage`)."""
    return Lineage(model, instance).derive(node, step, fact)


def premises_of(derivation: Derivation) -> Iterator[Derivation]:
    """Every derivation in the tree, depth first, each once."""
    seen: set[tuple] = set()
    todo = [derivation]
    while todo:
        d = todo.pop()
        if d.key not in seen:
            seen.add(d.key)
            yield d
            todo.extend(d.premises)
