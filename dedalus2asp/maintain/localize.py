"""Rule localization (psn2010 §2.2, after Loo et al., *Declarative networking*, SIGMOD 2006).

A rule whose body reads several nodes cannot be fired by one node alone. Localization rewrites it
into a chain of rules whose bodies are each at one node: the body atoms are grouped by their
location term ℓ1, ..., ℓk, and group i joins its atoms with what groups 1..i-1 found and sends the
bindings still needed to the node of group i+1 as a fact of a new relation:

    r2: reachable(#S, D) :- link(#S, Z), reachable(#Z, D);
  becomes
    r2-1: r2_aux(#Z, S) :- link(#S, Z);
    r2-2: reachable(#S, D) :- r2_aux(#Z, S), reachable(#Z, D);

(psn2010 writes `r2-2: aux(@S,Z,D) :- reachable(@Z,D), link(@Z,S)`, which reads the link Z→S at Z and
so assumes that links are symmetric; the chain above needs no such assumption.) The groups are
ordered so that the node of each next group is known by then: ℓ(i+1) is a constant or a variable
bound by groups 1..i. Among such orders the one that ends at the head's node is preferred (the head
is then derived where it is held), then the one closest to the written order. The new relation
`rN_aux` (`rN_auxI` for longer chains) is located at ℓ(i+1) and carries the variables of groups
1..i that the later groups or the head use. Each step preserves the number of derivations of every
fact (a sum of products over a projection is the product of the sums), so the localized program has
the view and the multiset counts of the original on the original relations.
"""

from __future__ import annotations

from itertools import permutations
from typing import Callable, Mapping

from ..lang.ast import Atom, Span, Variable
from .ddlog import DRule, atom_text

MAX_LOCATIONS = 6
"""The most distinct locations one rule body may read (the orders tried are their permutations)."""


def localize(rules: tuple[DRule, ...], columns: dict[str, int], taken: set[str],
             error: Callable[[str, Span], None]) -> tuple[tuple[DRule, ...], set[str]]:
    """The localized rules of `rules` and the auxiliary relations they add.

    `columns` gets the location column (0) of every auxiliary relation; `taken` are the program's
    relation names, which the new ones avoid. A body whose locations cannot be ordered is reported to
    `error` with the atom whose node no other atom names.
    """
    out: list[DRule] = []
    auxiliary: set[str] = set()
    for rule in rules:
        groups = _groups(rule, columns)
        if len(groups) <= 1:
            out.append(rule)
            continue
        order = _order(rule, groups, columns, error)
        if order is None:
            continue
        names = _aux_names(rule.label, len(order) - 1, taken)
        auxiliary.update(names)
        out.extend(_chain(rule, [groups[loc] for loc in order], order, names, columns))
    return tuple(out), auxiliary


def _location(atom: Atom, columns: Mapping[str, int]):
    return atom.args[columns.get(atom.predicate, 0)]


def _groups(rule: DRule, columns: Mapping[str, int]) -> dict:
    """location term → the body atoms at it, in written order."""
    groups: dict = {}
    for atom in rule.body:
        groups.setdefault(_location(atom, columns), []).append(atom)
    return groups


def _names(atoms) -> set[str]:
    return {a.name for atom in atoms for a in atom.args if isinstance(a, Variable)}


def _order(rule: DRule, groups: dict, columns: Mapping[str, int], error) -> list | None:
    """The order of the body's locations the chain follows (see the module docstring), or None."""
    locations = list(groups)
    if len(locations) > MAX_LOCATIONS:
        error(f"{rule.label} reads {len(locations)} locations: rule localization orders at most {MAX_LOCATIONS}; "
              "split the rule", rule.span)
        return None
    head_at = _location(rule.head, columns)
    valid = []
    for order in permutations(locations):
        bound: set[str] = set()
        ok = True
        for i, loc in enumerate(order):
            if i and isinstance(loc, Variable) and loc.name not in bound:
                ok = False
                break
            bound |= _names(groups[loc])
        if ok:
            valid.append(order)
    if not valid:
        lonely = [loc for loc in locations if isinstance(loc, Variable)
                  and all(loc.name not in _names(groups[other]) for other in locations if other != loc)]
        lonely.sort(key=lambda loc: loc == head_at)  # the head's node is where the chain would end
        atom = groups[lonely[0]][0]
        error(f"{rule.label}: no other body atom names the node {lonely[0]} of '{atom_text(atom, columns)}', so no node can send "
              f"it the bindings it needs (rule localization, psn2010 §2.2, needs the address: add an atom "
              f"that relates {lonely[0]} to another body atom's node)", atom.span)
        return None
    return list(min(valid, key=lambda o: (o[-1] != head_at, [locations.index(loc) for loc in o])))


def _aux_names(label: str, k: int, taken: set[str]) -> list[str]:
    stem = label.replace("-", "_")
    names = [f"{stem}_aux"] if k == 1 else [f"{stem}_aux{i}" for i in range(1, k + 1)]
    out = []
    for name in names:
        while name in taken:
            name += "_"
        taken.add(name)
        out.append(name)
    return out


def _chain(rule: DRule, groups: list[list[Atom]], order: list, names: list[str], columns: dict[str, int]) -> list[DRule]:
    """The rules `label-1` ... `label-k` of the chain through `groups` (at `order`'s locations)."""
    out: list[DRule] = []
    carried: Atom | None = None
    seen: set[str] = set()
    for i, group in enumerate(groups):
        body = ([carried] if carried is not None else []) + group
        seen |= _names(group)
        if i == len(groups) - 1:
            out.append(DRule(f"{rule.label}-{i + 1}", rule.head, tuple(body), rule.span))
            break
        later = _names([a for g in groups[i + 1:] for a in g]) | _names([rule.head])
        nxt = order[i + 1]
        keep = [n for n in _ordered_names(rule) if n in seen and n in later and not (isinstance(nxt, Variable) and n == nxt.name)]
        head = Atom(names[i], (nxt, *(Variable(n) for n in keep)))
        columns[names[i]] = 0
        out.append(DRule(f"{rule.label}-{i + 1}", head, tuple(body), rule.span))
        carried = head
    return out


def _ordered_names(rule: DRule) -> list[str]:
    """The rule's variables in order of first occurrence in the body, then the head."""
    out: dict[str, None] = {}
    for atom in (*rule.body, rule.head):
        for a in atom.args:
            if isinstance(a, Variable):
                out.setdefault(a.name)
    return list(out)
