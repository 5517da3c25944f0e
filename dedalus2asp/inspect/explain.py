"""Why does a fact hold at a node and step? Its derivation in a model (lineage).

A fact R(ā) of the trace at (x,s) holds for one of four reasons, read off the
operational semantics of a step (tplp2016 §5.1.3, §5.3.2): the step starts
from I = st(x) ∪ untag(m) and computes D = deduc_P(I), where

* an *input* fact is in H(x) (an edb fact, present at every step);
* a *carried* fact is in induc_P(D^{x,s-1}): an inductive rule whose body held
  at the previous step s-1 of x (rule (2) of the transformation);
* an *arrived* fact is a message R(ā) with arrival step s at x (rule (6)),
  sent at (y,t) by an asynchronous rule whose body held there;
* a *deduced* fact comes from a deductive rule whose body holds in D (rule (1)).

Deduced facts are explained by the round of the stratified fixpoint
(tplp2016 §3.2.2) in which they first appear, so every positive body fact of
the chosen rule instance appeared earlier and the derivation is well founded
even for recursive rules; a negated body atom is reported as absent. Each
premise is explained in turn, back to input facts. `Derivation` is the tree;
`dedalus2asp.formats` prints it indented (text) or draws it as a lineage graph
(DOT, in the spirit of Molly's provenance diagrams).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Iterator

import clingo

from ..lang.analysis import strata
from ..lang.ast import Atom, Rule, RuleKind
from ..runs.local import Node
from .model import GroundFact, Message, Model, Point, show_fact

INPUT, ARRIVED, CARRIED, DEDUCED = "input", "arrived", "carried", "deduced"


@dataclass(frozen=True)
class Reason:
    """One reason why a fact holds at a point: how, by which rule instance (rule, valuation), which message."""

    how: str
    rule: Rule | None = None
    binding: tuple = ()
    message: Message | None = None


@dataclass(frozen=True)
class Derivation:
    """R(ā) at (node, step), why (`reason`), and the derivations of the rule's positive body facts.

    The premises and the `absent` (negated, ground) body atoms are evaluated
    at `at`: (x,s) for a deduced fact, (x,s-1) for a carried one, the sender's
    step for an arrived one. `also` names the other reasons, if any. `rule` is
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

    def __init__(self, model: Model):
        if model.program is None:
            raise ValueError("the model does not carry its program: decode it from a Compiled made by transform()")
        self.model = model
        self.program = model.program
        self.edb = set(self.program.edb())
        self.strata = strata(self.program)
        self.inductive = self.program.rules_of(RuleKind.INDUCTIVE)
        self.node = Node()  # the evaluator at one node, on the model's facts
        self._reasons: dict[Point, dict[GroundFact, list[Reason]]] = {}
        self._derivations: dict[tuple, Derivation] = {}

    def instances(self, rule: Rule, facts) -> Iterator[tuple[dict, GroundFact]]:
        """Each satisfying valuation of `rule` on `facts`, with the head fact it derives."""
        for b in self.node.valuations(rule, facts):
            yield b, (rule.head.predicate, self.node.instance(rule.head, b))

    def reasons(self, node: clingo.Symbol, step: int) -> dict[GroundFact, list[Reason]]:
        """Every fact of D^{x,s} with its reasons, best first: input, arrived, carried, then deduced by fixpoint round."""
        point = (node, step)
        if point in self._reasons:
            return self._reasons[point]
        held = self.model.slice(node, step)
        found: dict[GroundFact, list[Reason]] = defaultdict(list)
        for fact in held:
            if fact[0] in self.edb:
                found[fact].append(Reason(INPUT))
        for m in self.model.messages:
            if m.arrival == point:
                found[(m.relation, m.args)].append(Reason(ARRIVED, message=m))
        if step > 0:
            before = self.model.slice(node, step - 1)
            for rule in self.inductive:
                for b, fact in self.instances(rule, before):
                    found[fact].append(Reason(CARRIED, rule, tuple(sorted(b.items()))))
        for stratum in self.strata:
            while True:  # one round of the fixpoint: only facts of earlier rounds are premises
                new: dict[GroundFact, list[Reason]] = defaultdict(list)
                known = set(found)
                for rule in stratum:
                    for b, fact in self.instances(rule, known):
                        if fact not in found:
                            new[fact].append(Reason(DEDUCED, rule, tuple(sorted(b.items()))))
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
        if node not in self.model.network:
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
                tuple(self.derive(*at, p) for p in premises),
                absent, tuple(others), self.rule(reason),
            )
        return self._derivations[key]

    def rule(self, reason: Reason) -> Rule | None:
        """The rule behind a reason: its own, or for an arrival the asynchronous rule that sent the message."""
        if reason.how == ARRIVED:
            rules = self.model.sending_rules[reason.message]
            return rules[0] if rules else None
        return reason.rule

    def _premises(self, node, step, reason: Reason) -> tuple[Point | None, list[GroundFact], tuple[GroundFact, ...]]:
        """Where the rule instance of `reason` was evaluated, its positive body facts and its absent ones."""
        if reason.how == INPUT:
            return None, [], ()
        if reason.how == ARRIVED:
            m = reason.message
            at, rule, binding = m.send, None, None
            for candidate in self.model.sending_rules[m][:1]:
                for b, (_, args) in self.instances(candidate, self.model.slice(*m.send)):
                    if b[candidate.addressee.name] == m.addressee and args == m.args:
                        rule, binding = candidate, b
                        break
            if rule is None:
                return at, [], ()
        else:
            at = (node, step - 1) if reason.how == CARRIED else (node, step)
            rule, binding = reason.rule, dict(reason.binding)
        held = sorted(self.model.slice(*at))
        positive = [next(f for f in held if _matches(a, self.node.instance(a, binding), f)) for a in rule.positive]
        absent = tuple((a.predicate, tuple(ANY if v is None else v for v in self.node.instance(a, binding))) for a in rule.negative)
        return at, positive, absent


ANY = clingo.Function("_")
"""Printed for an anonymous variable `_` of an absent (negated) atom: no value of it holds."""


def _matches(atom: Atom, args: tuple, fact: GroundFact) -> bool:
    """Whether `fact` is an instance of `atom` whose arguments are `args` (None: an anonymous `_`, any value)."""
    return fact[0] == atom.predicate and all(v is None or v == w for v, w in zip(args, fact[1]))


def explain(model: Model, node: clingo.Symbol, step: int, fact: GroundFact) -> Derivation:
    """The derivation of `fact` at (node, step) in `model` (see the module docstring)."""
    return Lineage(model).derive(node, step, fact)


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
