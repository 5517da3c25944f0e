"""Molly's dialect of located Dedalus: what Molly's programs mean that tplp2016's do not say.

Molly (Alvaro et al., *Lineage-driven fault injection*, SIGMOD 2015) reads a
located program over one global database. `located.locate` reads a program of
Molly's dialect through these steps, each with a warning:

* **`notin` projections** (`projected`): a variable that occurs once, in a
  negated atom, is that atom's `_`;
* **remote-state copies** (`remote_reads`): a rule that reads a *static*
  relation (`static_relations`) at another node reads every node's copy of it,
  `R_everywhere(x, ā)`, where the rule would otherwise be refused;
  `remote_write` finds the rule that writes at one node what the run derives at another, which
  cannot be read so;
* **lock-step rules** (`lockstep_relations`, `lockstep_warning`): such a write, when its head has a
  location column, is read as Molly reads it, a `RuleKind.LOCKSTEP` rule (its head holds at the node
  its first column names at the very step its body holds), which only Molly's rounds
  (`--delivery sync`) give a meaning; a write whose head has no node is refused (`remote_write_message`);
* **Molly's built-in relations** (`MOLLY_RELATIONS`, `molly_warnings`), which
  mean nothing in tplp2016's semantics.

How an input spells Molly's nodes (strings) is `LocatedProgram.spelt`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Mapping

from ..bounds import CRASH
from .ast import Atom, Literal, Marked, Rule, RuleKind, Term, Timestamped, Variable
from .diagnostics import Severity
from .location import global_relations, location_of, simply_persists, unmarked_atom, unmarked_term

# Molly's built-in relations, which mean nothing in tplp2016's semantics.
MOLLY_RELATIONS = {
    "clock": "Molly's model of message delivery (clock(From, To, SendTime, ReceiveTime)); here the stable-model "
    "semantics chooses every arrival itself (tplp2016 §4.3), so",
}


def projected(statement: Rule | Timestamped, error) -> Rule | Timestamped:
    """Molly's reading of a variable that occurs once in a rule, as an argument of a negated atom: that
    atom's `_`. Molly's Raft writes `commit_indx(Node, Idx)@next :- commit_indx(Node, Idx), notin
    commit(Node, Term, Idx);` with `Term` bound nowhere, and means "no commit(Node, _, Idx)"; elsewhere
    such a variable is unsafe (tplp2016's safety). A warning names each one."""
    if isinstance(statement, Timestamped):
        return replace(statement, rule=projected(statement.rule, error))
    rule = statement
    counts: dict[str, int] = {}
    for var in rule.variables():
        counts[var.name] = counts.get(var.name, 0) + 1
    lonely = {a.name for b in rule.body if isinstance(b, Literal) and b.negated for a in b.atom.args
              if isinstance(unmarked_term(a), Variable) and not unmarked_term(a).anonymous and counts[unmarked_term(a).name] == 1}
    if not lonely:
        return rule

    def project(term):
        plain = unmarked_term(term)
        if not (isinstance(plain, Variable) and plain.name in lonely):
            return term
        error("projected-variable",
              f"'{plain.name}' occurs only in the negated atom of rule {rule.number}: Molly reads it as '_' (no "
              f"fact of any value there), and so does dedalus2asp in Molly's dialect (write '_' to say so)",
              plain.span, Severity.WARNING)
        anonymous = Variable("_", plain.span)
        return replace(term, term=anonymous) if isinstance(term, Marked) else anonymous

    body = tuple(replace(b, atom=replace(b.atom, args=tuple(project(a) for a in b.atom.args)))
                 if isinstance(b, Literal) and b.negated else b for b in rule.body)
    return replace(rule, body=body)


def molly_warnings(rules: list[Rule], error) -> None:
    seen = set()
    for rule in rules:
        for atom in rule.atoms:
            why = MOLLY_RELATIONS.get(atom.predicate)
            if why is not None and atom.predicate not in seen:
                seen.add(atom.predicate)
                error(
                    "molly-relation",
                    f"'{atom.predicate}' is {why} '{atom.predicate}' is an ordinary relation here: empty unless the "
                    "input gives it",
                    atom.span,
                    Severity.WARNING,
                )


def static_relations(rules: list[Rule]) -> frozenset[str]:
    """The relations whose facts are known before any run: no rule derives them but the identity persistence
    `r(A, B)@next :- r(A, B)`. Their facts are those written in the program and the input, at the steps
    written there, kept when the relation persists: every node could know them at every step."""
    derived: set[str] = set()
    for rule in rules:
        if any(isinstance(b, Literal) for b in rule.body) or rule.kind is not RuleKind.DEDUCTIVE:
            if not simply_persists(rule):
                derived.add(rule.head.predicate)
    return frozenset({a.predicate for r in rules for a in r.atoms} - derived - {CRASH})  # crash: the run's faults


def _copy_name(relation: str, taken: set[str]) -> str:
    name, i = f"{relation}_everywhere", 1
    while name in taken:
        i += 1
        name = f"{relation}_everywhere{i}"
    taken.add(name)
    return name


def remote_reads(
    statements: list[Rule | Timestamped], marked: Mapping[str, int], error, lockstep: frozenset[str] = frozenset()
) -> tuple[list[Rule | Timestamped], dict[str, str]]:
    """Molly's one global database, for the rules that read another node's static relations.

    Molly locates a rule at its first body atom (an @async rule's sender) or, for a deductive or @next
    rule, writes its head wherever its first column says, and evaluates the other body atoms over its one
    database at the same time (Alvaro et al., *Lineage-driven fault injection*, SIGMOD 2015, §4; Molly's
    `AST.scala`). tplp2016's nodes read their own facts only. The two agree when the atoms read at another
    node are of a *static* relation (`static_relations`): its facts at every step are known before the run,
    so every node can hold a copy, `R_everywhere(x, ā)` for the fact R(ā) of node x
    (`LocatedProgram.instance` writes the copies, and the identity persistence of R is written for them).
    Kafka's `clients(Z, C)@async :- client(C), zookeeper(M, Z);` is read as the message from C
    `clients(Z, C)@async :- client(C), zookeeper_everywhere(C, M, Z);`, lost if channel C→Z is cut, not
    sent if C has crashed, as in Molly.

    Rewritten so, with a warning: an @next or @async rule whose body atoms are at several nodes, an @next
    rule whose head is at another node than its body, and a deductive rule that would otherwise be
    global (it reads several nodes) while its relation is kept, sent or read by such a rule, since a
    global relation observes a run and never steers it. The rule
    runs at its head's node (deductive, @next) or its first positive body atom's (@async). An atom of a
    relation that is not static, read at another node, is left as it is (an error of `check`).
    A lock-step rule (of a relation of `lockstep`, `lockstep_relations`) reads every node at its step as it is,
    and is left so. Returns the statements and the copies (relation → copy relation).
    """
    rules = [s.rule if isinstance(s, Timestamped) else s for s in statements]
    static = static_relations(rules)
    held = global_relations(rules, marked, lockstep)
    steering = {r.head.predicate for r in rules if r.kind is not RuleKind.DEDUCTIVE and r.head.predicate in held}
    for rule in rules:
        if rule.kind is not RuleKind.DEDUCTIVE:
            steering |= _read_at_home(rule, marked, held, _home(rule, marked, held))
    changed = True
    while changed:
        changed = False
        for rule in rules:
            if rule.kind is RuleKind.DEDUCTIVE and rule.head.predicate in steering:
                more = _read_at_home(rule, marked, held, location_of(unmarked_atom(rule.head), marked)) - steering
                steering |= more
                changed = changed or bool(more)
    taken = {a.predicate for r in rules for a in r.atoms}
    copies: dict[str, str] = {}
    out: list[Rule | Timestamped] = []
    for statement in statements:
        rule = statement.rule if isinstance(statement, Timestamped) else statement
        lock_step = rule.kind is RuleKind.DEDUCTIVE and rule.head.predicate in lockstep and reads_elsewhere(rule, marked)
        rewritten = rule if isinstance(statement, Timestamped) or lock_step else _read_remote(
            rule, marked, static, steering, copies, taken, error)
        out.append(rewritten if not isinstance(statement, Timestamped) else statement)
    number = max((r.number for r in rules), default=0)
    for relation, copy in copies.items():
        if any(simply_persists(r) and r.head.predicate == relation for r in rules):
            number += 1
            arity = next(a.arity for r in rules for a in r.atoms if a.predicate == relation) + 1
            names = tuple(Variable(f"A{i + 1}") for i in range(arity))
            atom = Atom(copy, names)
            out.append(Rule(atom, RuleKind.INDUCTIVE, (Literal(atom),), number=number,
                            origin=f"the identity persistence of '{relation}', for its copies"))
    return out, copies


def _home(rule: Rule, marked, held) -> Term | None:
    """Where an @next or @async rule runs once its global relations are located: at its first positive body
    atom of a relation that is not global, else at its first body atom."""
    literals = [b for b in rule.body if isinstance(b, Literal)]
    first = next((b for b in literals if not b.negated and b.atom.predicate not in held), literals[0] if literals else None)
    return None if first is None else location_of(unmarked_atom(first.atom), marked)


def _read_at_home(rule: Rule, marked, held, home: Term | None) -> set[str]:
    """The global relations `rule` reads at its node `home`: located at home, they would be local reads."""
    return {b.atom.predicate for b in rule.body if isinstance(b, Literal) and b.atom.predicate in held
            and home is not None and location_of(unmarked_atom(b.atom), marked) == home}


def remote_write(rules: list[Rule], marked, relation: str, held: frozenset[str]) -> Rule | None:
    """The deductive rule that makes the global relation `relation` global by reading, at another node than
    its head's, a relation the run derives (Molly's one database at one time), following the global relations
    the rules of `relation` read (`global_relations` (c), (d)); None when no such rule is the cause."""
    static = static_relations(rules)
    seen, todo = set(), [relation]
    while todo:
        name = todo.pop(0)
        if name in seen:
            continue
        seen.add(name)
        for rule in rules:
            if rule.kind is not RuleKind.DEDUCTIVE or rule.head.predicate != name:
                continue
            if _derived_elsewhere(rule, marked, static, held):
                return rule
            todo += [b.atom.predicate for b in rule.body if isinstance(b, Literal) and b.atom.predicate in held]
    return None


def _steering(rules: list[Rule], held: frozenset[str]) -> list[str]:
    """The global relations that a node's rules keep, send or read (`RemoteWrites.derives`, `.reads`), in order."""
    found: dict[str, None] = {}
    for rule in rules:
        if rule.head.predicate in held:
            if rule.kind is not RuleKind.DEDUCTIVE:
                found.setdefault(rule.head.predicate)
            continue
        for b in rule.body:
            if isinstance(b, Literal) and b.atom.predicate in held:
                found.setdefault(b.atom.predicate)
    return list(found)


def lockstep_relations(rules: list[Rule], marked) -> frozenset[str]:
    """The relations written by Molly's lock-step rules: the heads of the rules that `remote_write` finds (a
    deductive rule writing at its head's node what the run derives at another, the head's relation then kept,
    sent or read by the nodes), when the head has a node to be held at (its location column, not `_`).

    Such a relation is located (`global_relations(..., located=)`), so the relations computed from it at its
    node are located too; found again until no more: gstore's `ja(Leader, Server, Id, Yid, "R") :- next(Server,
    Id), j_buf(Server, Leader, Id, Group), ...` makes `ja` located, and then `begin_delete(Leader, Server, Id) :-
    ja(Leader, _, Id, _, "R"), ...`, all at Leader, is an ordinary rule of Leader."""
    located: set[str] = set()
    while True:
        held = global_relations(rules, marked, frozenset(located))
        roots = [remote_write(rules, marked, relation, held) for relation in _steering(rules, held)]
        new = {root.head.predicate for root in roots if root is not None and _has_node(root, marked)} - located
        if not new:
            return frozenset(located)
        located |= new


def _has_node(rule: Rule, marked) -> bool:
    home = location_of(unmarked_atom(rule.head), marked)
    return home is not None and not (isinstance(home, Variable) and home.anonymous)


def reads_elsewhere(rule: Rule, marked) -> bool:
    """Whether the deductive `rule` reads some body atom at another node than its head's: a lock-step rule when
    its head's relation is one of `lockstep_relations`."""
    home = location_of(unmarked_atom(rule.head), marked)
    return any(location_of(unmarked_atom(b.atom), marked) != home for b in rule.body if isinstance(b, Literal))


def lockstep_warning(rule: Rule, marked) -> str:
    """What a lock-step rule means, and what it needs (`lockstep_relations`)."""
    home = location_of(unmarked_atom(rule.head), marked)
    places = list(dict.fromkeys(str(location_of(unmarked_atom(b.atom), marked)) for b in rule.body
                                if isinstance(b, Literal) and location_of(unmarked_atom(b.atom), marked) != home))
    where = ", ".join(f"'{p}'" for p in places)
    return (
        f"rule {rule.number} writes '{rule.head.predicate}' at '{home}' (its first column) from what holds at {where} "
        "at the same step: a lock-step rule. Molly evaluates a deductive rule over one database of all nodes per "
        f"time (its DedalusRewrites gives the head the body's time and no place), so '{home}' holds the fact at "
        "the very step the body holds, as if the nodes computed each round together. That needs every node's "
        "step s to be round s of one clock: give --delivery sync (Molly's rounds) to verify, models, count and cron; "
        "under async delivery, and in explore and run (one node's step at a time), it is refused. Write the "
        "head with @async to send the fact instead (it arrives a step later)"
    )


def _derived_elsewhere(rule: Rule, marked, static, held) -> list[str]:
    """The relations, derived by the run and held by nodes, that `rule` reads at another node than its head's."""
    home = location_of(unmarked_atom(rule.head), marked)
    return sorted({b.atom.predicate for b in rule.body if isinstance(b, Literal) and b.atom.predicate not in static
                   and b.atom.predicate not in held and b.atom.predicate != CRASH
                   and location_of(unmarked_atom(b.atom), marked) != home})


def remote_write_message(root: Rule, marked, rules: list[Rule], held: frozenset[str], uses: list[str]) -> str:
    """Why the rule `root` (`remote_write`) is refused: it reads what the run derives at another node, as a
    lock-step rule does (`lockstep_relations`), but its head names no node to hold the fact at."""
    home = location_of(unmarked_atom(root.head), marked)
    derived = _derived_elsewhere(root, marked, static_relations(rules), held)
    places = sorted({str(location_of(unmarked_atom(b.atom), marked)) for b in root.body
                     if isinstance(b, Literal) and b.atom.predicate in derived})
    where = f"at '{places[0]}'" if len(places) == 1 else "at other nodes (" + ", ".join(f"'{p}'" for p in places) + ")"
    head = "has no location column" if home is None else f"is at '{home}', which names no node"
    return (
        f"rule {root.number} writes '{root.head.predicate}' from what the run derives {where} at the same time "
        f"({', '.join(map(repr, derived))}), and the run keeps, sends or reads it at a node "
        f"({'; '.join(uses[:4])}{f'; and {len(uses) - 4} more' if len(uses) > 4 else ''}); but its head {head}. "
        "Molly evaluates a deductive rule over one database of all nodes per time (its DedalusRewrites gives the "
        "head the body's time and no place); dedalus2asp reads such a write as a lock-step rule, which writes the "
        "head at the node its first column names (docs/molly.md), and this head names none. Give the head a first "
        "column naming the node that holds it, or send the fact with @async (under --delivery sync it arrives "
        "one step later)"
    )


class RemoteWrites:
    """Molly's remote writes of derived state (`remote_write`) met while a program is read, each with the rules
    that keep, send or read the relation it makes global: one error each, at the write (`report`)."""

    def __init__(self, rules: list[Rule], marked, held: frozenset[str]):
        self.rules, self.marked, self.held = rules, marked, held
        self.found: dict[int, tuple[Rule, list[str]]] = {}

    def _note(self, relation: str, use: str) -> bool:
        root = remote_write(self.rules, self.marked, relation, self.held)
        if root is not None:
            self.found.setdefault(root.number, (root, []))[1].append(use)
        return root is not None

    def derives(self, rule: Rule) -> bool:
        """Whether the @next or @async `rule` derives a global relation made global by a remote write (noted)."""
        kind = "@next" if rule.kind is RuleKind.INDUCTIVE else "@async"
        return self._note(rule.head.predicate, f"rule {rule.number} ({kind}, {_where(rule.head.span)}) derives "
                                               f"'{rule.head.predicate}'")

    def reads(self, rule: Rule) -> bool:
        """Whether the located `rule` reads a global relation made global by a remote write (noted)."""
        kind = {RuleKind.INDUCTIVE: "@next", RuleKind.ASYNC: "@async"}.get(rule.kind, "deductive")
        found = False
        for b in rule.body:
            if isinstance(b, Literal) and b.atom.predicate in self.held:
                found |= self._note(b.atom.predicate, f"rule {rule.number} ({kind}, {_where(b.atom.span)}) reads "
                                                      f"'{b.atom.predicate}'")
        return found

    def report(self, error) -> None:
        for root, uses in self.found.values():
            error("remote-write", remote_write_message(root, self.marked, self.rules, self.held, uses), root.span)


def _where(span) -> str:
    """The line of a span, with its file when it is another than the program's (an included file)."""
    return f"{span.source[0] + ' ' if span.source is not None else ''}line {span.line}"


def _read_remote(rule: Rule, marked, static, steering, copies: dict[str, str], taken: set[str], error) -> Rule:
    """`rule` with its atoms of static relations read at another node replaced by their copies (`remote_reads`)."""
    literals = [b for b in rule.body if isinstance(b, Literal)]
    places = [location_of(unmarked_atom(b.atom), marked) for b in literals]
    if None in places or not literals:
        return rule
    if rule.kind is RuleKind.DEDUCTIVE:
        if rule.head.predicate not in steering:
            return rule
    elif len(set(places)) == 1 and (rule.kind is RuleKind.ASYNC or location_of(unmarked_atom(rule.head), marked) in places):
        return rule  # at one node, and an @next head there too
    if rule.kind is RuleKind.ASYNC:
        home = next((p for b, p in zip(literals, places) if not b.negated), places[0])
    else:
        home = location_of(unmarked_atom(rule.head), marked)
        if home is None:
            return rule
    remote = [(b, p) for b, p in zip(literals, places) if p != home and (b.atom.predicate in static or b.atom.predicate == CRASH)]
    if not remote or isinstance(home, Variable) and home.anonymous:
        return rule
    replaced = {}
    for b, _ in remote:
        relation = b.atom.predicate
        if relation == CRASH:  # crash(y, s) holds at every node: read it at home (`crash(_, B, _)` is `crash(A, B, _)`)
            atom = unmarked_atom(b.atom)
            replaced[id(b)] = replace(b, atom=replace(atom, args=(home, *atom.args[1:])))
            continue
        if relation not in copies:
            copies[relation] = _copy_name(relation, taken)
        atom = unmarked_atom(b.atom)
        replaced[id(b)] = replace(b, atom=Atom(copies[relation], (home, *atom.args), atom.span))
    remote = [(b, p) for b, p in remote if b.atom.predicate != CRASH]
    if not remote:
        return replace(rule, body=tuple(replaced.get(id(b), b) for b in rule.body))
    first = remote[0][0]
    error("remote-read",
          f"rule {rule.number} runs at '{home}' but reads '{first.atom}' at '{location_of(unmarked_atom(first.atom), marked)}'"
          f"{' and more' if len(remote) > 1 else ''}: it reads remote state, as Molly's one global database does; "
          f"'{first.atom.predicate}' holds only the facts the program writes, so every node reads its copy "
          f"'{copies[first.atom.predicate]}' (a tplp2016 node reads its own facts only)",
          first.atom.span, Severity.WARNING)
    return replace(rule, body=tuple(replaced.get(id(b), b) for b in rule.body))
