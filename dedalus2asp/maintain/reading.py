"""Reading a program for `maintain`: psn2010's DDlog, or the positive Dedalus that means the same view.

Two notations are read, both in tr2009's located notation (§6.2: the location column marked `#`):

* **DDlog** (psn2010 §2.2): positive rules without time, a body possibly spread over nodes;
  `reachable(#S, D) :- link(#S, Z), reachable(#Z, D);`. A rule whose head is at another node than its
  (localized) body sends the derived fact there.
* **Positive Dedalus whose state is simply persisted.** Read as Dedalus (psn2010 §2.2 with jcss2014 §2.5.5), a DDlog program
  persists every relation (`r(#A, B)@next :- r(#A, B);`, tr2009's persist[r]) and sends every remote
  head as an `@async` message persisted on arrival; its ultimate model (jcss2014: positive, hence
  consistent) is the view. So such a Dedalus program is read back as DDlog: persistence rules are
  dropped, `@async` rules become rules whose head is elsewhere, deductive rules stay. An `@async`
  relation that is not persisted on arrival would hold for one step only: it is refused.

Anything else is refused, each problem with its place (`file:line:col`) and the reason: negation,
aggregates, arithmetic, comparisons, facts at a step, `@next` rules that are not persistence, unsafe
variables, a relation without a location column. Rule localization (`localize`) follows.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ..lang.ast import Aggregate, Arithmetic, Atom, Comparison, Marked, Rule, RuleKind, Span, Timestamped, Variable, printable
from ..lang.diagnostics import Diagnostic, DiagnosticError, raise_if_errors
from ..lang.lexer import read_text
from ..lang.location import location_columns, simply_persists
from ..lang.parser import detect_dialect
from ..lang.statement import numbered, statements
from .ddlog import DDlogProgram, DRule, Fact, ground
from .localize import localize

REFUSED = "maintain keeps the views of positive DDlog programs (psn2010 §2.2)"


def read_program(path: str | Path) -> DDlogProgram:
    """Read the program file `path` (see the module docstring); raise `DiagnosticError` on any problem."""
    return parse_program(read_text(path, "program"), str(path))


def parse_program(text: str, filename: str = "<program>") -> DDlogProgram:
    """Read a DDlog (or simply persisted positive Dedalus) program text; every problem is reported at once."""
    diagnostics: list[Diagnostic] = []

    def error(message: str, span: Span, code: str = "maintain") -> None:
        diagnostics.append(Diagnostic(code, message, span, filename, text))

    if detect_dialect(text) != "located":
        error("maintain reads tr2009's located notation: mark each relation's location column with '#', e.g. "
              "'reachable(#S, D) :- link(#S, Z), reachable(#Z, D);' (`dedalus2asp convert --to located PROG` "
              "writes a location-transparent program so)", Span(1, 1, 1, 2))
        raise DiagnosticError(diagnostics)
    items, _outputs = statements(text, filename, "located.lark", diagnostics)
    for item in items:
        if isinstance(item, tuple):  # ("include", file, span)
            error(f"include \"{printable(item[1])}\": maintain reads one program file", item[2])
    raise_if_errors(diagnostics)
    items = numbered(items)
    columns = location_columns([i.rule if isinstance(i, Timestamped) else i for i in items], error)
    raise_if_errors(diagnostics)
    rules: list[Rule] = []
    facts: list[tuple[Fact, Span]] = []
    persisted: dict[str, Rule] = {}
    messages: list[Rule] = []
    for item in items:
        if isinstance(item, Timestamped):
            error(f"'{item.rule.head}' is a fact at step {item.step}: a DDlog base fact holds until an update "
                  "deletes it (write it without '@k', or as an update)", item.rule.span)
            continue
        if not _plain(item, error):
            continue
        if item.kind is RuleKind.INDUCTIVE:
            if simply_persists(item):
                persisted.setdefault(item.head.predicate, item)
            else:
                error(f"this @next rule is not persistence ('{item.head.predicate}(...)@next :- "
                      f"{item.head.predicate}(...)' with the same distinct variables): {REFUSED}, whose state "
                      "changes by updates only", item.span)
            continue
        if item.kind is RuleKind.ASYNC:
            messages.append(item)
        if not item.body:
            atom = _unmarked(item.head)
            if any(isinstance(a, Variable) for a in atom.args):
                error(f"the fact '{atom}' has a variable: a fact is ground", item.span)
            else:
                facts.append((ground(atom), item.span))
            continue
        rules.append(item)
    for rule in messages:
        if rule.head.predicate not in persisted:
            error(f"'{rule.head.predicate}' is sent with @async but not persisted on arrival: it would hold for one "
                  f"step only, and the view is what holds for ever (add '{rule.head.predicate}(...)@next :- "
                  f"{rule.head.predicate}(...);')", rule.head.span)
    raise_if_errors(diagnostics)
    program = _ddlog(rules, facts, columns, error, filename, text)
    raise_if_errors(diagnostics)
    return program


def _unmarked(atom: Atom) -> Atom:
    return replace(atom, args=tuple(a.term if isinstance(a, Marked) else a for a in atom.args))


def _plain(rule: Rule, error) -> bool:
    """Whether `rule` has only positive atoms over variables and constants; report what else it has."""
    ok = True
    for item in rule.body:
        if isinstance(item, Comparison):
            error(f"the comparison '{item}': {REFUSED}, whose bodies are atoms only", item.span)
            ok = False
        elif item.negated:
            error(f"the negation 'not {item.atom}': {REFUSED}; a deletion can then make facts true, which "
                  "psn2010's delta rules do not follow", item.span)
            ok = False
        elif item.step is not None:
            error(f"the body atom '{item}' is read at a step: {REFUSED}, which have no time", item.span)
            ok = False
    for atom in rule.atoms:
        for a in atom.args:
            inner = a.term if isinstance(a, Marked) else a
            if isinstance(inner, Aggregate):
                error(f"the aggregate '{inner}': {REFUSED} (psn2010 §7 leaves aggregates to future work)", inner.span)
                ok = False
            elif isinstance(inner, Arithmetic):
                error(f"the arithmetic '{inner}': {REFUSED}, over the constants of their facts", inner.span)
                ok = False
    return ok


def _ddlog(rules: list[Rule], facts: list[tuple[Fact, Span]], marked: dict[str, int], report,
           filename: str, text: str) -> DDlogProgram:
    """The DDlog program of the kept rules and facts: arities, location columns, safety, localization."""
    reported = []

    def error(*args) -> None:
        reported.append(args)
        report(*args)

    drules: list[DRule] = []
    fresh = 0
    for n, rule in enumerate(rules, 1):
        atoms = []
        for atom in (rule.head, *(b.atom for b in rule.body)):
            args = []
            for a in _unmarked(atom).args:
                if isinstance(a, Variable) and a.anonymous:
                    fresh += 1
                    a = Variable(f"_{fresh}", a.span)
                args.append(a)
            atoms.append(replace(atom, args=tuple(args)))
        drules.append(DRule(f"r{n}", atoms[0], tuple(atoms[1:]), rule.span))
    arities: dict[str, int] = {}
    first: dict[str, Span] = {}
    for relation, k, span in [(a.predicate, a.arity, a.span) for r in drules for a in (r.head, *r.body)] + [
            (f.relation, len(f.args), span) for f, span in facts]:
        seen = arities.setdefault(relation, k)
        first.setdefault(relation, span)
        if seen != k:
            error(f"'{relation}' has {k} arguments here but {seen} elsewhere: a relation has one arity", span, "arity")
    columns = {p: marked.get(p, 0) for p in arities}
    for p, k in arities.items():
        if k == 0:
            error(f"'{p}' has no argument, so no location column: every DDlog relation is held at a node named by "
                  "one of its arguments", first[p])
    for rule in drules:
        bound = {a.name for atom in rule.body for a in atom.args if isinstance(a, Variable)}
        for a in rule.head.args:
            if isinstance(a, Variable) and a.name not in bound:
                error(f"the variable '{a.name}' of the head of {rule.label} occurs in no body atom (safety: a "
                      "head's variables are bound by the body)", a.span, "unsafe-variable")
    derived = {r.head.predicate for r in drules}
    for fact, span in facts:
        if fact.relation in derived:
            error(f"'{fact}' is a fact of '{fact.relation}', which rules derive: updates and facts are of base "
                  "relations only (psn2010 §2.1)", span)
    if reported:  # an atom may lack its location column: localization would not find it
        return DDlogProgram(tuple(drules), (), columns, arities, frozenset(), frozenset(), (), filename, text)
    localized, auxiliary = localize(tuple(drules), columns, set(arities), error)
    for r in localized:
        arities.setdefault(r.head.predicate, r.head.arity)
    base = frozenset(p for p in arities if p not in derived and p not in auxiliary)
    return DDlogProgram(tuple(drules), localized, columns, arities, base, frozenset(auxiliary),
                        tuple(dict.fromkeys(f for f, _ in facts)), filename, text)
