"""Safety and arities: the rule-by-rule conditions of a well-formed program (tplp2016 Def. 4.1).

Every variable of the head, of a negative literal, of a comparison, and the
addressee occurs in a positive body atom (tplp2016 §4.1.1; a variable inside
an expression of a body atom in another one; `_` in a negated atom is a
projection): `safety`. A rule that is not global reads no global relation:
`global_reads`. Every relation has one arity, in the program and its input:
`arities`. The condition on the whole program, stratification, and the
report of `check` are `analysis`'s.
"""

from __future__ import annotations

from .ast import Arithmetic, Atom, arity_in, Instance, Literal, Program, Rule, RuleKind, Variable
from .diagnostics import Diagnostic, Severity, diagnostic_in, rule_name


def _arguments(k: int) -> str:
    return f"{k} argument" + ("" if k == 1 else "s")


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
                    diagnostic_in(
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
                out.append(diagnostic_in(program, "unsafe-variable", message, var.span))
        if rule.aggregates and not rule.body:
            out.append(diagnostic_in(program, "aggregate", f"the aggregate '{rule.aggregates[0]}' of {rule_name(rule)} has "
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
                out.append(diagnostic_in(
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
                    diagnostic_in(
                        program,
                        "arity",
                        f"relation '{atom.predicate}' has {_arguments(arity)} here but "
                        f"{_arguments(seen_arity)} where it is first used; a relation has one arity "
                        "(rename one of them, or fix the arguments)",
                        atom.span,
                        notes=[
                            diagnostic_in(
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
                                diagnostic_in(
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
