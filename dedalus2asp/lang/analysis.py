"""Static analysis: well-formedness (tplp2016 Def. 4.1) and the `check` report.

A Dedalus program is well formed when every rule is safe (every variable of
the head, of a negative literal, of a comparison, and the addressee occurs in
a positive body atom, tplp2016 §4.1.1; a variable inside an expression of a
body atom in another one; `_` in a negated atom is a projection), every
relation has one arity, and the deductive rules are syntactically
stratifiable (tplp2016 §3.2.2), an aggregate counting as a negation of its
body. Global rules are stratified with them; a rule that is not global may
not read a global relation. Inductive and asynchronous rules are otherwise
unrestricted. The rule-by-rule conditions (safety, global reads, arities) are
`safety`'s; the stratification and the report are this module's.

`check` collects every problem before it raises, and returns the warnings
(singleton variables, relations that are never derived and not given as
input, input relations the program does not use, output relations that no
rule derives).
"""

from __future__ import annotations

import difflib
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace

from ..bounds import CRASH
from .ast import Atom, Fact, Instance, Literal, Output, Program, Rule, RuleKind, Variable
from .diagnostics import Diagnostic, Severity, diagnostic_in, in_order, raise_if_errors, rule_name
from .pdg import computed_on_cycle, shortest_path
from .safety import arities, global_reads, safety


def _one_edit(a: str, b: str) -> bool:
    """Whether `a` and `b` differ by one typo: a letter added, dropped, changed (not the first: `rmessage` and
    `smessage` are two relations), or two neighbours swapped (`pings` for `ping`; not `timer_start` for
    `timer_state`, a relation of its own)."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return (len(diff) == 1 and diff[0] > 0) or (len(diff) == 2 and diff[1] == diff[0] + 1
                                                    and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]])
    short, long_ = sorted((a, b), key=len)
    return any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))


def _similar(name: str, candidates) -> str:
    """' (did you mean 'x'?)' for a candidate that differs from `name` in case or by a typo, else ''."""
    candidates = [c for c in candidates if c != name]
    same_case = [c for c in candidates if c.lower() == name.lower()]
    close = same_case or difflib.get_close_matches(name, candidates, n=1, cutoff=0.75)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _same_step_rules(program: Program) -> tuple[Rule, ...]:
    """The rules that derive facts at the step they read: deductive, lock-step and global rules (the global
    rules' heads are global relations, which no deductive rule reads, so the two are stratified apart)."""
    return tuple(r for r in program.rules if r.kind in (RuleKind.DEDUCTIVE, RuleKind.LOCKSTEP, RuleKind.GLOBAL))


def _dependencies(program: Program) -> dict[str, list[tuple[str, bool, Rule, Atom]]]:
    """Edges head <- body of the deductive (and global) rules, between relations that they derive: one
    (body relation, negated or aggregated, rule, atom) per distinct literal of a rule (a rule is told by its identity,
    not hashed whole: a rule of 5,000 literals would be hashed 5,000 times)."""
    deductive = _same_step_rules(program)
    heads = {r.head.predicate for r in deductive}
    deps: dict[str, dict] = defaultdict(dict)
    for rule in deductive:
        aggregated = bool(rule.aggregates)  # aggregation is stratified like negation
        body = (*((a, aggregated) for a in rule.positive), *((a, True) for a in rule.negative))
        for atom, neg in body:
            if atom.predicate in heads:
                deps[rule.head.predicate].setdefault((neg, id(rule), atom), (atom.predicate, neg, rule, atom))
    return defaultdict(list, {head: list(edges.values()) for head, edges in deps.items()})


def strongly_connected(nodes: list, succ: dict) -> list[list]:
    """Strongly connected components (Tarjan), in reverse topological order.

    Tarjan's depth-first search with its own stack of (vertex, successors left), not Python's: a
    chain of a thousand deductive rules is a path a thousand vertices deep.
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack, on, comps = [], set(), []
    for root in nodes:
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        search = [(root, iter(succ.get(root, ())))]
        while search:
            v, successors = search[-1]
            w = next((w for w in successors if w not in index or w in on), None)
            if w is not None and w not in index:  # tree edge: visit w first
                index[w] = low[w] = len(index)
                stack.append(w)
                on.add(w)
                search.append((w, iter(succ.get(w, ()))))
                continue
            if w is not None:  # an edge back into the stack
                low[v] = min(low[v], index[w])
                continue
            search.pop()  # every successor of v is done
            if search:
                parent = search[-1][0]
                low[parent] = min(low[parent], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                comps.append(comp)
    return comps


def stratification(program: Program) -> tuple[dict[str, int], list[Diagnostic]]:
    """A syntactic stratification σ of the deductive rules (tplp2016 §3.2.2), or the cycles through negation."""
    deps = _dependencies(program)
    heads = list(dict.fromkeys(r.head.predicate for r in _same_step_rules(program)))
    succ = {h: sorted({b for b, *_ in deps[h]}) for h in heads}  # head depends on body
    comps = strongly_connected(heads, succ)
    comp_of = {v: i for i, comp in enumerate(comps) for v in comp}
    out = []
    for comp in comps:
        members = set(comp)
        for head in comp:
            for body, neg, rule, atom in sorted(deps[head], key=lambda d: (d[2].number, d[0])):
                if neg and body in members:
                    # head depends on body through the negation, body on head through the path
                    cycle = [head] + shortest_path(succ, body, head, members)
                    negated = atom in rule.negative
                    what = (f"negation of '{body}'" if negated else
                            f"the aggregate '{rule.aggregates[0]}' over '{body}'")
                    out.append(
                        diagnostic_in(
                            program,
                            "not-stratifiable",
                            f"{what} in {rule_name(rule)} closes the cycle "
                            f"{' → '.join(cycle)}; deductive rules must be stratifiable"
                            + ("" if negated else ", and an aggregate is stratified like a negation: its group "
                               "must be complete before it is aggregated")
                            + " (make one of the rules on the cycle @next)",
                            atom.span if negated else rule.aggregates[0].span,
                        )
                    )
    stratum: dict[str, int] = {}
    for comp in comps:  # reverse topological: dependencies first
        level = 1
        for head in comp:
            for body, neg, *_ in deps[head]:
                if comp_of[body] != comp_of[head]:
                    level = max(level, stratum[body] + (1 if neg else 0))
        for head in comp:
            stratum[head] = level
    return stratum, out


def strata(program: Program) -> tuple[tuple[Rule, ...], ...]:
    """The deductive rules grouped by the stratum of their head, lowest first."""
    return _grouped(program, RuleKind.DEDUCTIVE)


def global_strata(program: Program) -> tuple[tuple[Rule, ...], ...]:
    """The global rules grouped by the stratum of their head, lowest first: at each step s they are
    evaluated after every node's deductive rules of step s, over the facts of all nodes."""
    return _grouped(program, RuleKind.GLOBAL)


def _grouped(program: Program, kind: RuleKind) -> tuple[tuple[Rule, ...], ...]:
    stratum, _ = stratification(program)
    groups: dict[int, list[Rule]] = defaultdict(list)
    for rule in program.rules_of(kind):
        groups[stratum[rule.head.predicate]].append(rule)
    return tuple(tuple(groups[k]) for k in sorted(groups))


def outputs(program: Program, requested: tuple[str, ...] | None = None) -> list[Diagnostic]:
    """Every output relation must occur in the program; one that no rule derives is a warning.

    out(P) may name any relation of P (jcss2014 §2.5.5): an input relation is a
    legitimate output (its facts at the last step), so only a relation that
    occurs nowhere is an error, a typo most likely. `requested` checks the
    relations of `--output` instead of the `.output` ones, alike (they have no
    place in the program, so their diagnostics have none).
    """
    derived, schema = program.idb(), program.schema()
    named = program.outputs if requested is None else tuple(Output(r) for r in dict.fromkeys(requested))
    option = "" if requested is None else " (--output)"
    out = []
    for o in named:
        if o.predicate in derived:
            continue
        if o.predicate in schema:
            message = (
                f"output relation '{o.predicate}'{option} is derived by no rule: its output facts are its input "
                f"facts, which is fine if '{o.predicate}' is an input relation"
                + _similar(o.predicate, derived)
            )
            out.append(diagnostic_in(program, "output-not-derived", message, o.span, Severity.WARNING))
        else:
            message = (
                f"output relation '{o.predicate}'{option} is derived by no rule and used nowhere"
                + (_similar(o.predicate, derived) or " (check its spelling, or add a rule that derives it)")
            )
            out.append(diagnostic_in(program, "output-not-derived", message, o.span))
    return out


def warnings(program: Program, instance: Instance | None = None) -> list[Diagnostic]:
    """Singleton variables; with an input: relations read positively but neither derived nor given (a relation
    read only under negation may be empty: the program asks whether it is), input relations not used."""
    out = []
    for rule in program.rules:
        if any(a.function == "sum" for a in rule.aggregates):
            # a sum adds the term once per valuation of ALL the body's variables (clingo's
            # #sum{W,V1,..,Vn : body}): `v(C, V, W)` and `v(C, _, W)` sum differently when two V
            # have the same W, so a variable used once is not a slip there
            continue
        counts = Counter(v.name for v in rule.variables())
        for var in (v for a in rule.positive for v in a.variables()):
            if counts[var.name] == 1 and not var.name.startswith("_"):
                out.append(
                    diagnostic_in(
                        program,
                        "singleton-variable",
                        f"variable '{var.name}' occurs only once in {rule_name(rule)} "
                        "(write '_' if that is intended)",
                        var.span,
                        Severity.WARNING,
                    )
                )
    if instance is not None:
        given = instance.schema()
        derived = program.idb()
        schema = program.schema()
        reported = set()
        for rule in program.rules:
            for atom in rule.positive:
                p = atom.predicate
                if p not in derived and p not in given and p not in reported and p != CRASH:  # crash: the network's (docs/faults.md)
                    reported.add(p)
                    out.append(
                        diagnostic_in(
                            program,
                            "empty-relation",
                            f"relation '{p}' is neither derived by a rule nor given in the input "
                            f"{instance.filename}: it is always empty"
                            + (_similar(p, [q for q in given if q not in schema])
                               or _similar(p, [q for q in derived if _one_edit(p, q)])
                               or " (give it facts in the input)"),
                            atom.span,
                            Severity.WARNING,
                        )
                    )
        for p in given:
            if p not in schema and p not in instance.copied:  # a copied relation is read through its copies
                out.append(
                    Diagnostic(
                        "unused-input",
                        f"input relation '{p}' is not used by the program; its facts are ignored"
                        + _similar(p, schema),
                        _first_fact(instance, p).span,
                        instance.filename,
                        instance.text,
                        Severity.WARNING,
                    )
                )
    return out


def growing_recursion(program: Program) -> list[Diagnostic]:
    """A deductive rule in a recursive cycle (through its positive body) whose head computes a value
    (`p(X + 1) :- p(X).`): each round of the fixpoint may derive a new value, so it may never end."""
    deps = _dependencies(program)
    nodes = sorted({r.head.predicate for r in _same_step_rules(program)})
    succ = {h: [b for b, _, _, _ in deps[h]] for h in nodes}
    component = {p: i for i, c in enumerate(strongly_connected(nodes, succ)) for p in c}
    return [diagnostic_in(
                program, "growing-recursion",
                f"{rule_name(rule)} is recursive and computes a new value '{computed}' in its head: its fixpoint "
                "may not end (bound the value with a comparison in the body, or make the rule @next)",
                computed.span, Severity.WARNING)
            for rule, computed in computed_on_cycle(_same_step_rules(program), component)]


def _first_fact(instance: Instance, predicate: str) -> Fact:
    return next(f for facts in instance.facts.values() for f in facts if f.predicate == predicate)


def check(program: Program, instance: Instance | None = None) -> list[Diagnostic]:
    """All well-formedness checks; raises `DiagnosticError` on errors, returns the warnings."""
    diagnostics = (safety(program) + arities(program, instance) + stratification(program)[1] + global_reads(program)
                   + outputs(program))
    return in_order(raise_if_errors(diagnostics + warnings(program, instance) + growing_recursion(program)))


def unknown_addressees(program: Program, instance: Instance) -> list[Diagnostic]:
    """A warning for each @async rule whose addressee is read from a relation that only input facts give
    (`member(N, M)` with M the addressee), when one of those facts names a node that is not in the network:
    the message has no node to arrive at, and is never sent. Molly's replicas that are no nodes (neither
    holding a fact nor named by `-N`) are met this way; the answer then says nothing about them."""
    network = set(instance.network)
    derived = {r.head.predicate for r in program.rules
               if not (r.kind is RuleKind.INDUCTIVE and len(r.body) == 1 and isinstance(r.body[0], Literal)
                       and r.body[0].atom == r.head and not r.body[0].negated)}
    out, seen = [], set()
    for rule in program.rules_of(RuleKind.ASYNC):
        if rule.addressee is None:
            continue
        for atom in rule.positive:
            if atom.predicate in derived or atom.predicate in seen:
                continue
            places = [i for i, a in enumerate(atom.args) if isinstance(a, Variable) and a.name == rule.addressee.name]
            strangers = sorted({str(f.args[i]) for fs in instance.facts.values() for f in fs
                                if f.predicate == atom.predicate for i in places
                                if i < len(f.args) and f.args[i] not in network})
            if strangers:
                seen.add(atom.predicate)
                out.append(diagnostic_in(
                    program, "unknown-addressee",
                    f"{rule_name(rule)} sends to the '{rule.addressee}' of '{atom.predicate}', whose facts name "
                    f"{', '.join(strangers[:3])}{' and more' if len(strangers) > 3 else ''}: no node of the network, so "
                    "no message is sent there (give each a fact, or name it with --nodes)",
                    atom.span, Severity.WARNING))
    return out


def restrict(instance: Instance, program: Program) -> Instance:
    """H restricted to sch(P): input facts of relations the program does not use are dropped."""
    schema = program.schema()
    return replace(
        instance,
        facts={n: tuple(f for f in fs if f.predicate in schema) for n, fs in instance.facts.items()},
    )


@dataclass(frozen=True)
class Report:
    """What a reader wants to know before solving (the `check` command)."""

    rules: tuple[tuple[int, str, str], ...]  # (number, kind, text)
    idb: dict[str, int]
    edb: dict[str, int]
    strata: tuple[tuple[str, ...], ...]
    async_relations: dict[str, int]
    positive: bool
    outputs: tuple[str, ...]
    warnings: tuple[Diagnostic, ...] = field(default=())
    coordination: "Coordination | None" = None
    """Where the program needs coordination (`lang.coordination`), when the caller analysed it."""

    def as_dict(self) -> dict:
        return {
            "rules": [{"number": n, "kind": k, "rule": t} for n, k, t in self.rules],
            "idb": [f"{p}/{k}" for p, k in self.idb.items()],
            "edb": [f"{p}/{k}" for p, k in self.edb.items()],
            "strata": [list(s) for s in self.strata],
            "async_relations": [f"{p}/{k}" for p, k in self.async_relations.items()],
            "positive": self.positive,
            "outputs": list(self.outputs),
            "warnings": [d.as_dict() for d in self.warnings],
            "coordination": None if self.coordination is None else self.coordination.as_dict(),
        }


def report(program: Program, coordination: "Coordination | None" = None) -> Report:
    """Check `program` and describe it: rule kinds, idb/edb, strata, async relations, positivity, and the
    `coordination` analyses if given (`lang.coordination.analyse`, which reads this module's graphs)."""
    found = check(program)
    stratum, _ = stratification(program)
    levels = defaultdict(list)
    for p, k in stratum.items():
        levels[k].append(p)
    return Report(
        rules=tuple((r.number, r.kind.value, str(r)) for r in program.rules),
        idb=program.idb(),
        edb=program.edb(),
        strata=tuple(tuple(levels[k]) for k in sorted(levels)),
        async_relations=program.async_relations(),
        positive=program.positive,
        outputs=program.output_relations,
        warnings=tuple(found),
        coordination=coordination,
    )
