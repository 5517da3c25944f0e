"""Static analysis: well-formedness (tplp2016 Def. 4.1) and the `check` report.

A Dedalus program is well formed when every rule is safe (every variable of
the head, of a negative literal, of a comparison, and the addressee occurs in
a positive body atom, tplp2016 §4.1.1; a variable inside an expression of a
body atom in another one; `_` in a negated atom is a projection), every
relation has one arity, and the deductive rules are syntactically
stratifiable (tplp2016 §3.2.2), an aggregate counting as a negation of its
body. Global rules are stratified with them; a rule that is not global may
not read a global relation. Inductive and asynchronous rules are otherwise
unrestricted.

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
from .ast import Arithmetic, Atom, Fact, arity_in, Instance, Literal, Output, Program, Rule, RuleKind, Variable
from .diagnostics import Diagnostic, Severity, in_order, raise_if_errors


def _diag(program: Program, code: str, message: str, span, severity=Severity.ERROR, notes=()) -> Diagnostic:
    return Diagnostic(code, message, span, program.filename, program.text, severity, tuple(notes))


def rule_name(rule: Rule) -> str:
    """How messages name a rule: `rule 3`, or `rule 3 (persist[p, 1])` for a rule a macro wrote."""
    return f"rule {rule.number}" + (f" ({rule.origin})" if rule.origin else "")


def _arguments(k: int) -> str:
    return f"{k} argument" + ("" if k == 1 else "s")


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


def _binding(atom: Atom) -> set[str]:
    """The variables a positive body atom binds: its arguments that are variables (not those inside an
    expression: `p(X + 1)` binds no X, clingo cannot invert an expression)."""
    return {a.name for a in atom.args if isinstance(a, Variable) and not a.anonymous}


def _places(rule: Rule) -> list[tuple[str, str, Variable]]:
    """(where, what, variable) for every variable occurrence that a positive body atom must bind."""
    places = [("head", f"'{rule.head}'", v) for v in rule.head.variables()]
    if rule.addressee is not None:
        places.append(("addressee", "", rule.addressee))
    places += [("negative literal", f"'not {a}'", v) for a in rule.negative for v in a.variables()
               if not v.anonymous]  # `_` in a negated atom is a projection: no value of it holds
    places += [("comparison", f"'{c}'", v) for c in rule.comparisons for v in c.variables()]
    places += [("expression", f"'{e}' of '{a}'", v) for a in rule.positive for e in a.args
               if isinstance(e, Arithmetic) for v in e.variables()]
    return places


def safety(program: Program) -> list[Diagnostic]:
    """Every variable outside the positive body atoms must occur in one of them, as an argument of its own.

    A variable of the head (also in an expression or an aggregate), of a negated atom, of a comparison,
    the addressee, and a variable inside an expression of a positive body atom (`p(X + 1)`, which needs
    X from another atom) must be bound; `_` in a negated atom is a projection (`not p(X, _)`: no
    p(X, v) holds), and in the head or a comparison is an error."""
    out = []
    for rule in program.rules:
        bound = set().union(*(_binding(a) for a in rule.positive))
        reported = set()
        for where, what, var in _places(rule):
            if var.anonymous:
                out.append(
                    _diag(
                        program,
                        "anonymous-variable",
                        f"'_' in the {where} {what + ' ' if what else ''}of {rule_name(rule)}: an anonymous "
                        "variable may only stand in a body atom (name it, and bind it in a positive atom)",
                        var.span,
                    )
                )
            elif var.name not in bound and (where, what, var.name) not in reported:
                reported.add((where, what, var.name))
                if where == "addressee":
                    message = (
                        f"the addressee '{var.name}' of {rule_name(rule)} occurs in no positive body atom: "
                        f"a message needs a known destination (bind '{var.name}' in a positive body atom, "
                        f"e.g. node({var.name}))"
                    )
                elif where == "expression":
                    message = (
                        f"unsafe variable '{var.name}' in the expression {what} of {rule_name(rule)}: a variable "
                        f"inside an expression must be bound by another positive body atom, where it is an "
                        f"argument of its own (add one that binds '{var.name}')"
                    )
                else:
                    inside = " (inside an expression)" if _in_expression(rule, var) else ""
                    message = (
                        f"unsafe variable '{var.name}'{inside} in the {where} {what} of {rule_name(rule)}: "
                        f"it occurs in no positive body atom (add a positive atom that binds '{var.name}')"
                    )
                out.append(_diag(program, "unsafe-variable", message, var.span))
        if rule.aggregates and not rule.body:
            out.append(_diag(program, "aggregate", f"the aggregate '{rule.aggregates[0]}' of {rule_name(rule)} has "
                             "no body to aggregate over (an aggregate groups the body's valuations)",
                             rule.aggregates[0].span))
    return out


def _in_expression(rule: Rule, var: Variable) -> bool:
    """Whether this occurrence of `var` is inside an arithmetic expression of `rule`."""
    terms = [*rule.head.args, *(t for c in rule.comparisons for t in (c.left, c.right))]
    terms += [a.term for a in rule.aggregates]
    return any(isinstance(t, Arithmetic) and any(v is var for v in t.variables()) for t in terms)


def global_reads(program: Program) -> list[Diagnostic]:
    """A global relation (the head of a global rule, held by no node) may be read by global rules only:
    a node cannot see the other nodes' facts, so nothing a node does may depend on it."""
    held_by_none = program.global_relations()
    out = []
    for rule in program.rules:
        if rule.kind is RuleKind.GLOBAL:
            continue
        for item in rule.body:
            if isinstance(item, Literal) and item.atom.predicate in held_by_none:
                out.append(_diag(
                    program,
                    "global-read",
                    f"{rule_name(rule)} ({rule.kind.value}) reads '{item.atom.predicate}', a global relation "
                    "(derived by a rule whose body reads several nodes, like an assertion): a global relation "
                    "is held by no node, so only rules that read several nodes may read it; nothing a node does "
                    "may depend on it, not even what it sends",
                    item.atom.span,
                ))
    return out


def arities(program: Program, instance: Instance | None = None) -> list[Diagnostic]:
    """One arity per relation, in the program and between program and input."""
    out, first = [], {}
    held_by_none = program.global_relations()
    for rule in program.rules:
        for atom in rule.atoms:
            arity = arity_in(rule, atom, held_by_none)
            seen, seen_arity = first.setdefault(atom.predicate, (atom, arity))
            if seen_arity != arity:
                out.append(
                    _diag(
                        program,
                        "arity",
                        f"relation '{atom.predicate}' has {_arguments(arity)} here but "
                        f"{_arguments(seen_arity)} where it is first used; a relation has one arity "
                        "(rename one of them, or fix the arguments)",
                        atom.span,
                        notes=[
                            _diag(
                                program,
                                "arity",
                                f"'{atom.predicate}' is first used here, with {_arguments(seen_arity)}",
                                seen.span,
                                Severity.NOTE,
                            )
                        ],
                    )
                )
    if instance is not None:
        reported = set()
        for facts in instance.facts.values():
            for fact in facts:
                atom, arity = first.get(fact.predicate, (None, 0))
                if atom is not None and arity != len(fact.args) and fact.predicate not in reported:
                    reported.add(fact.predicate)
                    out.append(
                        Diagnostic(
                            "input-arity",
                            f"input fact '{fact}' has {_arguments(len(fact.args))} but the program "
                            f"uses '{fact.predicate}' with {_arguments(arity)} (the input and the "
                            "program must agree on the arity)",
                            fact.span,
                            instance.filename,
                            instance.text,
                            notes=(
                                _diag(
                                    program,
                                    "arity",
                                    f"'{fact.predicate}' is used here, with {_arguments(arity)}",
                                    atom.span,
                                    Severity.NOTE,
                                ),
                            ),
                        )
                    )
    return out


def _same_step_rules(program: Program) -> tuple[Rule, ...]:
    """The rules that derive facts at the step they read: deductive and global rules (the global rules'
    heads are global relations, which no deductive rule reads, so the two are stratified apart)."""
    return tuple(r for r in program.rules if r.kind in (RuleKind.DEDUCTIVE, RuleKind.GLOBAL))


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


def strongly_connected(nodes: list[str], succ: dict[str, list[str]]) -> list[list[str]]:
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


def _path(succ: dict[str, list[str]], start: str, goal: str, allowed: set[str]) -> list[str]:
    """A shortest path start -> goal inside `allowed` (breadth first)."""
    previous, frontier = {start: None}, [start]
    while frontier and goal not in previous:
        nxt = []
        for v in frontier:
            for w in succ.get(v, ()):
                if w in allowed and w not in previous:
                    previous[w] = v
                    nxt.append(w)
        frontier = nxt
    path, v = [], goal
    while v is not None:
        path.append(v)
        v = previous[v]
    return path[::-1]


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
                    cycle = [head] + _path(succ, body, head, members)
                    negated = atom in rule.negative
                    what = (f"negation of '{body}'" if negated else
                            f"the aggregate '{rule.aggregates[0]}' over '{body}'")
                    out.append(
                        _diag(
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
            out.append(_diag(program, "output-not-derived", message, o.span, Severity.WARNING))
        else:
            message = (
                f"output relation '{o.predicate}'{option} is derived by no rule and used nowhere"
                + (_similar(o.predicate, derived) or " (check its spelling, or add a rule that derives it)")
            )
            out.append(_diag(program, "output-not-derived", message, o.span))
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
                    _diag(
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
                        _diag(
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
    out = []
    for rule in _same_step_rules(program):
        computed = next((a for a in rule.head.args if isinstance(a, Arithmetic)), None)
        head = rule.head.predicate
        compared = any(not isinstance(b, Literal) for b in rule.body)  # a comparison may bound it
        if computed is not None and not compared and any(a.predicate in component and component[a.predicate] == component[head]
                                        for a in rule.positive):
            out.append(_diag(
                program, "growing-recursion",
                f"{rule_name(rule)} is recursive and computes a new value '{computed}' in its head: its fixpoint "
                "may not end (bound the value with a comparison in the body, or make the rule @next)",
                getattr(computed, "span", None) or rule.head.span, Severity.WARNING,
            ))
    return out


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
                out.append(_diag(
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
