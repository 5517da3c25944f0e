"""The sizes of a program's relations at a node, step by step, as clingo grounds them: what the ground budget reads.

The ground budget (`budget.estimate`) needs, for each relation R, how many facts of R a node may hold at a
step, and for each rule how many valuations its body has, summed over the steps. clingo grounds a Dedalus
program step after step (tplp2016 §4.3: every atom carries its step), so its ground program grows with
what each step may hold: an event `R(ā)@k` (tr2009 Example 3) holds at step k only, a relation that a rule
carries to the next step (tr2009's persistence, `carries`) accumulates what arrives, and what an @next or
@async rule makes at one step holds at the next. `derive_sizes` follows the steps so, from the input facts
(`input_at`), with the sizes of one rule's output (`made`) and of a rule body (`body`) given by the budget.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ..lang.analysis import strongly_connected
from ..lang.ast import Instance, Program, Rule, RuleKind

ROUNDS = 64
"""The steps followed one by one (`derive_sizes`); later steps are taken to hold what the last did."""

WORK = 20_000
"""At most this many rule bodies are counted in all (a step counts every rule): a program of thousands of rules
is followed for fewer steps (at least two), so that the estimate stays a fraction of a second."""

HUGE = 10.0**30  # sizes are floats, capped here

SAME_STEP = (RuleKind.DEDUCTIVE, RuleKind.LOCKSTEP, RuleKind.GLOBAL)


def carries(rule: Rule) -> bool:
    """Whether the rule only carries facts of its own relation to the next step, unchanged: an inductive rule
    whose head has the arguments of one of its positive body atoms of the same relation (tr2009's persistence,
    with any filters: `seed(A, S)@next :- seed(A, S), notin update_seed(A)`)."""
    return rule.kind is RuleKind.INDUCTIVE and any(
        a.predicate == rule.head.predicate and a.args == rule.head.args for a in rule.positive
    )


def input_at(instance: Instance | None) -> dict[int | None, dict[str, float]]:
    """The input facts of each relation at the node holding most of them, by step: None for the facts of every
    step, k for the events R(ā)@k, which hold at step k only (Molly writes every fact as an event at time 1)."""
    found: dict[int | None, dict[str, float]] = {}
    if instance is None:
        return found
    for facts in instance.facts.values():
        here: dict[tuple[int | None, str], set] = {}
        for fact in facts:
            here.setdefault((fact.step, fact.predicate), set()).add(fact.args)
        for (step, name), distinct in here.items():
            at = found.setdefault(step, {})
            at[name] = max(at.get(name, 0.0), float(len(distinct)))
    return found


@dataclass
class _Steps:
    """What a step of `derive_sizes` reads: the rules that make each relation (carries apart), the components of
    the deductive rules' graph in the order they read each other (with whether each recurses within a step),
    the input relations, and the input facts by step."""

    program: Program
    events: dict[int | None, dict[str, float]]
    by_head: dict[str, list[Rule]] = field(default_factory=dict)
    carried: set[str] = field(default_factory=set)
    within: list[tuple[list[str], bool]] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    inputs: list[str] = field(default_factory=list)

    def __post_init__(self):
        derived = self.program.idb()
        succ: dict[str, list[str]] = {}
        for rule in self.program.rules:
            if carries(rule):
                self.carried.add(rule.head.predicate)
                continue
            self.by_head.setdefault(rule.head.predicate, []).append(rule)
            if rule.kind in SAME_STEP:
                for atom in rule.positive:
                    succ.setdefault(atom.predicate, []).append(rule.head.predicate)
        self.names = list(derived)
        for component in reversed(strongly_connected(list({*derived, *succ}), succ)):  # sources first
            component = [name for name in component if name in derived]
            inside = set(component)
            recursive = any(a.predicate in inside for name in component for r in self.by_head.get(name, ())
                            if r.kind in SAME_STEP for a in r.positive)
            self.within.append((component, recursive))
        self.inputs = [n for n in dict.fromkeys(name for at in self.events.values() for name in at) if n not in derived]
        self.names += self.inputs  # input relations that hold at some steps only, or that a rule carries

    def held(self, name: str, k: int, before: dict[str, float]) -> float:
        """The input facts of R at step k, and what R held at the step before (`before`) if a rule carries it."""
        always = self.events.get(None, {}).get(name, 0.0)
        now = always + self.events.get(k, {}).get(name, 0.0)
        return now + (max(0.0, before[name] - always) if k and name in self.carried else 0.0)

    def step(self, k: int, sizes: dict[str, float], made, cap, body, found: list[dict[int, float]]) -> dict[int, float]:
        """`sizes` at step k, from `sizes` at the step before and the valuations of the rules (by `id`) at the
        steps before, the last first (`found`: one step under synchronous delivery, the steps of the delay window
        under asynchronous delivery, where a message sent at any of them may arrive at k); returns the valuations
        of every rule at step k (`body`, once per rule)."""
        before = dict(sizes)
        now: dict[int, float] = {}
        for name in self.inputs:
            sizes[name] = min(cap(name), min(HUGE, self.held(name, k, before)))
        for component, recursive in self.within:
            for name in component:
                if recursive:  # a recursion within a step reaches every combination of its columns' values
                    sizes[name] = cap(name)
                    continue
                new = 0.0
                for rule in self.by_head.get(name, ()):
                    if rule.kind in SAME_STEP:
                        now[id(rule)] = body(rule)
                        new += made(rule, now[id(rule)])
                    elif rule.kind is RuleKind.ASYNC:  # what was sent within the delay window
                        new += sum(made(rule, at[id(rule)]) for at in found)
                    elif found:  # what the @next rules made at the step before
                        new += made(rule, found[0][id(rule)])
                sizes[name] = min(cap(name), min(HUGE, self.held(name, k, before) + new))
        for rule in self.program.rules:
            if id(rule) not in now:
                now[id(rule)] = body(rule)
        return now


def derive_sizes(program: Program, sizes: dict[str, float], made: Callable[[Rule, float], float],
                 cap: Callable[[str], float], steps: int, events: dict[int | None, dict[str, float]],
                 body: Callable[[Rule], float], window: int = 1) -> list[float]:
    """Fill `sizes` with the facts of each relation at a node, its mean over the steps of a run, by following the
    steps one by one from the input facts, as clingo grounds them. At each step the relations come in the order
    in which the deductive rules read each other (the strongly connected components of that graph, sources
    first): a relation has its input facts of that step (`events`, by `input_at`), what its deductive rules make
    of this step's sizes (`made`, from a rule's valuations by `body`, which reads `sizes`) and what its @next
    and @async rules made of the step before; a relation that a rule carries to the next step unchanged
    (`carries`) keeps its facts of the step before as well, so what arrives or is made at each step
    accumulates. A recursion within a step (a transitive closure) can reach every combination of its columns'
    values (`cap`), and so is every size capped. The first `ROUNDS` steps are followed (fewer for thousands of
    rules, `WORK`); later ones repeat the last (the sizes are bounded by the caps, and most are steady by
    then), and so do the steps after a steady one (the sizes of the step before, no event to come). A message
    sent at one of the `window` steps before may arrive (1 under synchronous delivery). Returns
    the valuations of each rule's body (`body`, from the sizes of each step) summed over the steps: relations
    that hold at the same steps (an event and what it causes) are counted together, not as the product of
    their means."""
    run = _Steps(program, events)
    for name in run.names:
        sizes[name] = 0.0
    last_event = max((k for k in events if k is not None), default=0)
    total = {name: 0.0 for name in run.names}
    valuations = {id(rule): 0.0 for rule in program.rules}
    found: list[dict[int, float]] = []  # the valuations of the steps before, the last first
    rounds = max(2, min(ROUNDS, WORK // max(1, len(program.rules))))
    k = 0
    while k < steps:
        before = dict(sizes)
        now = run.step(k, sizes, made, cap, body, found)
        found = [now, *found][:window]
        # steady: no event to come, the sizes of the step before and the same valuations over the whole delay
        # window, so every later step is this one
        steady = k > last_event and sizes == before and len(found) == window and all(at == now for at in found)
        weight = steps - k if steady or k == rounds - 1 else 1
        for name in run.names:
            total[name] += sizes[name] * weight
        for rule in program.rules:
            valuations[id(rule)] += now[id(rule)] * weight
        k += weight
    for name in run.names:
        sizes[name] = total[name] / max(1, steps)
    return [valuations[id(rule)] for rule in program.rules]
