"""`maintain`'s text output: a view by node, what a burst changed, its updates and messages per node."""

from __future__ import annotations

from .ddlog import DDlogProgram, Fact
from .engine import BurstStats
from .view import View

MAX_SHOWN = 60
"""The most facts a view or a change is listed with; beyond, only the counts per relation (`--out` has all)."""


def _per(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "none"


def _fact(view: View, fact: Fact) -> str:
    count = view.count(fact)
    return str(fact) + ("" if count == 1 or not view.multiset else " ×∞" if count is None else f" ×{count}")


def view_lines(view: View, program: DDlogProgram) -> list[str]:
    shown = view.shown(program)
    facts = sorted(shown.facts, key=lambda f: (str(program.node(f)), f.relation, f.args))
    if len(facts) > MAX_SHOWN:
        return [f"  ({len(facts)} facts, more than {MAX_SHOWN}: --out DIR writes them)"]
    by_node: dict[str, list[str]] = {}
    for f in facts:
        by_node.setdefault(str(program.node(f)), []).append(_fact(shown, f))
    return [f"  {node}: {'  '.join(items)}" for node, items in by_node.items()]


def changed_lines(what: str, facts: list[Fact]) -> list[str]:
    if not facts:
        return []
    counts: dict[str, int] = {}
    for f in facts:
        counts[f.relation] = counts.get(f.relation, 0) + 1
    listed = "" if len(facts) > MAX_SHOWN else ": " + "  ".join(map(str, facts))
    return [f"  {what} {_per(counts)}{listed}"]


def sizes(view: View, program: DDlogProgram) -> dict[str, int]:
    """relation → its number of facts in the view (the program's own relations)."""
    counts: dict[str, int] = {}
    for f in view.shown(program).facts:
        counts[f.relation] = counts.get(f.relation, 0) + 1
    return counts


def resize(counts: dict[str, int], inserted: list[Fact], deleted: list[Fact]) -> None:
    for f in inserted:
        counts[f.relation] = counts.get(f.relation, 0) + 1
    for f in deleted:
        counts[f.relation] -= 1


def size(counts: dict[str, int]) -> str:
    return f"{sum(counts.values())} facts ({_per({r: n for r, n in counts.items() if n})})"


def work_lines(stats: BurstStats) -> list[str]:
    return [f"  updates processed per node: {_per(stats.updates)} ({sum(stats.updates.values())} in all)",
            f"  messages sent per node: {_per(stats.messages)} ({sum(stats.messages.values())} in all)"]
