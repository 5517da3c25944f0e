"""Printing a program in the other notation: `dedalus2asp convert`.

`transparent_text` writes a located or Molly program (tr2009 §6.2, read by `located`) in the
location-transparent notation of tplp2016 §4.1; `located_text` writes a location-transparent
program in the located notation, location specifier first and marked `#`. Reading is `located`'s.
"""

from __future__ import annotations

from dataclasses import replace

from .ast import Aggregate, Arithmetic, Atom, Comparison, Literal, Marked, Output, Program, Rule, RuleKind, Variable, printable
from .located import LocatedProgram


def transparent_text(located: LocatedProgram) -> str:
    """The location-transparent program (tplp2016 §4.1) equivalent to a located one.

    User text in a comment (the file name, a rule's origin) goes through `ast.printable`: a name with a
    line break adds no statement. The rules and facts are Dedalus text: names are identifiers, and
    strings are written with their escapes.
    """
    held_by_none = located.program.global_relations()
    if held_by_none:
        rule = located.program.rules_of(RuleKind.GLOBAL)[0]
        raise ValueError(
            f"rule {rule.number} '{rule}' reads several nodes (a global rule, like an assertion): the "
            "location-transparent notation of tplp2016 cannot write it, since there a rule reads the facts of "
            "its own node only"
        )
    for rule in located.program.lockstep_rules():
        raise ValueError(
            f"rule {rule.number} '{rule}' writes at the node its first column names what holds at other nodes at the "
            "same step (a lock-step rule, Molly's one database per time): the location-transparent notation of "
            "tplp2016 cannot write it, since there a rule reads and writes the facts of its own node only"
        )
    stepped = next((r for r in located.program.rules for b in r.body if isinstance(b, Literal) and b.step is not None),
                   None)
    if stepped is not None:
        raise ValueError(
            f"rule {stepped.number} '{stepped}' reads a body atom at a fixed step: the location-transparent "
            "notation of tplp2016 cannot write it (a rule there reads the step it is at)"
        )
    lines = [
        f"% {printable(located.program.filename)} in the location-transparent notation of tplp2016 (dedalus2asp convert).",
        "% The location column of every relation is dropped: "
        + ", ".join(f"{p} (argument {k + 1})" for p, k in sorted(located.columns.items())),
    ]
    if located.identity is not None:
        lines.append(
            f"% {located.identity}(X) tells a node its own name: dedalus2asp adds the input fact "
            f"{located.identity}(x) to every node x."
        )
    lines += _outputs(located.program.outputs)
    lines += [_rule_text(r) for r in located.program.rules]
    if located.facts:
        lines.append("% The facts of the program, as an input (one block per node):")
        for node, facts in located.facts.items():
            lines.append(f"%   {printable(f'{node} {{ ' + ' '.join(f'{f}.' for f in facts) + ' }')}")
    return "\n".join(lines) + "\n"


def _written(node):
    """`node` as Dedalus text writes it outside Molly's dialect: the modulo is clingo's `\\`, since `%`
    begins a comment there."""
    if isinstance(node, Arithmetic):
        return replace(node, op="\\" if node.op == "%" else node.op, left=_written(node.left), right=_written(node.right))
    if isinstance(node, Aggregate):
        return replace(node, term=_written(node.term))
    if isinstance(node, (Atom,)):
        return replace(node, args=tuple(_written(a) for a in node.args))
    if isinstance(node, Marked):
        return replace(node, term=_written(node.term))
    if isinstance(node, Literal):
        return replace(node, atom=_written(node.atom))
    if isinstance(node, Comparison):
        return replace(node, left=_written(node.left), right=_written(node.right))
    if isinstance(node, Rule):
        return replace(node, head=_written(node.head), body=tuple(_written(b) for b in node.body))
    return node


def _outputs(outputs: tuple[Output, ...]) -> list[str]:
    return [f".output {', '.join(o.predicate for o in outputs)}."] if outputs else []


def _rule_text(rule: Rule) -> str:
    return str(_written(rule)) + (f"   % {printable(rule.origin)}" if rule.origin else "")


def located_text(program: Program) -> str:
    """The located program (tr2009 §6.2, location specifier first and marked `#`) equivalent to `program`.

    Every body atom and every deductive or @next head gets the location
    variable L of the rule's node (a fresh name), an @async head the
    addressee. A rule without body atoms runs at every node with no way to
    name it: it has no located equivalent, and a `ValueError` names it.
    User text in a comment goes through `ast.printable`, as in `transparent_text`.
    """
    lines = [f"% {printable(program.filename)} in the located notation of tr2009 §6.2 (dedalus2asp convert)."]
    lines += _outputs(program.outputs)
    for rule in program.rules:
        if not any(isinstance(b, Literal) for b in rule.body):
            raise ValueError(
                f"rule {rule.number} '{rule}' has no body atom: it has no located equivalent "
                "(give it a positive atom, e.g. an input relation every node holds)"
            )
        taken = {v.name for v in rule.variables() if not v.anonymous}
        name = next(n for n in ("L", *(f"L{i}" for i in range(1, len(taken) + 2))) if n not in taken)
        here = Marked(Variable(name))
        at = lambda atom, where: replace(atom, args=(where, *atom.args))  # noqa: E731
        body = tuple(replace(b, atom=at(b.atom, here)) if isinstance(b, Literal) else b for b in rule.body)
        if rule.kind is RuleKind.ASYNC:
            head, annotation = at(rule.head, Marked(rule.addressee)), "@async"
        else:
            head, annotation = at(rule.head, here), "@next" if rule.kind is RuleKind.INDUCTIVE else ""
        items = ", ".join(str(_written(b)) for b in body)
        lines.append(f"{_written(head)}{annotation} :- {items}." + (f"   % {printable(rule.origin)}" if rule.origin else ""))
    return "\n".join(lines) + "\n"
