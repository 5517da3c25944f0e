"""What `check` says of a DDlog program: its relations and its rule localization (psn2010 §2.2)."""

from __future__ import annotations

from .ddlog import DDlogProgram, DRule, rule_text


def recursive_relations(program: DDlogProgram) -> list[str]:
    """The derived relations on a cycle of the dependency graph (psn2010 §2.1: a recursive program has one)."""
    edges = {r: set() for r in program.derived}
    for rule in program.rules:
        edges[rule.head.predicate] |= {a.predicate for a in rule.body if a.predicate in edges}
    out = []
    for start in edges:
        seen, todo = set(), list(edges[start])
        while todo:
            r = todo.pop()
            if r not in seen:
                seen.add(r)
                todo.extend(edges[r])
        if start in seen:
            out.append(start)
    return out


def message_to(rule: DRule, program: DDlogProgram):
    """The head's location term if the head is at another node than the (localized) body, else None."""
    head = program.location(rule.head)
    return head if rule.body and program.location(rule.body[0]) != head else None


def _signature(program: DDlogProgram, relations) -> str:
    return ", ".join(f"{r}/{program.arities[r]}" for r in relations) or "none"


def text(program: DDlogProgram, filename: str) -> str:
    recursive = recursive_relations(program)
    derived = [r for r in program.relations if r in program.derived]
    lines = [
        f"{filename}: a DDlog program (psn2010 §2.2) of {len(program.rules)} rule(s), for `dedalus2asp maintain`",
        f"base relations: {_signature(program, [r for r in program.relations if r in program.base])}",
        f"derived relations: {_signature(program, derived)}",
        f"recursive: {'yes (' + ', '.join(recursive) + ')' if recursive else 'no'}",
        "rule localization (psn2010 §2.2): each body at one node; a head at another node is a message",
    ]
    width = max(len(r.label) for r in program.localized) if program.localized else 0
    for rule in program.localized:
        to = message_to(rule, program)
        lines.append(f"  {rule.label.ljust(width)}  {rule_text(rule, program.columns)}"
                     + (f"   % sent to {to}" if to is not None else ""))
    if program.auxiliary:
        lines.append(f"auxiliary relations (not in the view): {_signature(program, sorted(program.auxiliary))}")
    return "\n".join(lines)


def as_json(program: DDlogProgram) -> dict:
    return {
        "ddlog": True,
        "base": sorted(program.base),
        "derived": sorted(program.derived),
        "recursive": recursive_relations(program),
        "localized": [{"label": r.label, "rule": rule_text(r, program.columns),
                       "message": message_to(r, program) is not None} for r in program.localized],
        "auxiliary": sorted(program.auxiliary),
    }
