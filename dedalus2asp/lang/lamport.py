"""The Lamport-clock rewrite of tr2009 §6.6: messages that cannot arrive before their cause.

tr2009 §6.6 rewrites an asynchronous rule `p(A, B)@async ← q(A, B)` into

    p_wait(A, B, N)@async ← q(A, B)@N;
    p_wait(A, B, N)@next  ← p_wait(A, B, N)@M, N ≥ M;
    p(A, B)@next          ← p_wait(A, B, N)@M, N < M;

the message carries its sender's step N (an *entanglement*, tr2009 §6.5.2); one that arrives "from the
future" (N ≥ the receiver's step M) waits in `p_wait` until the receiver's clock has passed N. Our
Dedalus has no step variable, so the rewrite keeps each node's step in a relation, the clock:

    lamport_clock(0) :- not lamport_ticked().          % step 0: no earlier step ticked
    lamport_ticked()@next :- lamport_clock(_N).
    lamport_clock(N + 1)@next :- lamport_clock(N).     % one more at every step

and, for every asynchronous rule `p(ū)@async(Y) :- body.` of a chosen relation p,

    p_wait(ū, S)@async(Y) :- body, lamport_clock(S).            % the send step travels with p
    p_wait(X̄, S)@next :- p_wait(X̄, S), lamport_clock(C), S >= C.  % from the future: wait
    p(X̄) :- p_wait(X̄, S), lamport_clock(C), S < C.               % delivered once the clock passed S

One difference from the paper, on purpose: p is derived at the first step whose clock exceeds S (a
deductive rule), not at the step after it (tr2009's `@next`). A message that arrives causally at a
later step of its sender's own node is then used at its arrival step, as in the original program, so
the causal models keep their timing; the paper's `@next` would delay every message by one step and
change the output at a bounded horizon.

What it guarantees: every use of a rewritten message at step t of its receiver has t > S, its send step
(Lamport's clock condition, with the step as the clock: "advancing the clock" by waiting). When every
asynchronous relation is rewritten, a choice model (tplp2016 pure_ch, messages may arrive in the past) of
the rewritten program has the same user facts as a causal run of the original in which each message
arrives at max(its arrival, S + 1): along every message the step grows, so that run's happens-before is
acyclic. With a delay bound D ≥ 1 that run respects the bound. So the rewritten program's outputs are
outputs of causal runs of the original: if the original is consistent, the rewrite tolerates
non-causality with the same output (the `cron` tests check it on tplp2016 Fig. 4, jcss2014 Alg. 3 and
random programs).

What it does not guarantee: the nodes' step counters are independent (tplp2016), so a message sent at
a's step 0 may arrive causally at b's step 0; the rewrite forbids that run. It removes causal runs, and
a program whose causal runs disagree (a race) may come out consistent. `undo` recovers the original
from a rewrite, and `cron` gives the original's verdict beside the rewrite's. (A clock carried as data,
max(own, S) + 1 at a receipt, would keep every causal run, but clingo would have to ground its values
along every possible round trip, through the past too, without bound.)

Tie-breaking: Lamport clocks order all events totally by appending a node identifier to equal clock
values (tr2009 §6.6). The rewrite needs no total order, only that a message is used after its send
step: two nodes at the same step stay concurrent, as runs already allow (tplp2016 §5.1).

Finiteness: the clock grows without bound (the rewritten program is not temporally safe, and `check`
says so); within a horizon T it takes the values 0..T, T + 1 ground atoms a node.

The rewrite works on the program's text: each rewritten asynchronous rule is replaced where it stands,
with a comment above it, and the clock and the receiving rules are appended; everything else (comments,
macros, facts, the dialect: location-transparent, tr2009 located with `#`, or Molly) stays as written.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .ast import Atom, Comparison, Literal, Marked, Program, Rule, RuleKind, Span, Variable, printable
from .diagnostics import line_starts
from .located import LocatedProgram

SECTION = "tr2009 §6.6"
CITATION = 'Alvaro et al., "Dedalus: Datalog in time and space", tr2009 §6.6 (Lamport clocks)'


@dataclass(frozen=True)
class Rewrite:
    """The rewritten program's text, the relations rewritten, and the names the rewrite introduced."""

    text: str
    relations: tuple[str, ...]
    waits: dict[str, str]
    clock: str


def _fresh(name: str, taken: set[str]) -> str:
    """`name`, or `name_1`, `name_2`, ...: the first one not in `taken` (which it joins)."""
    candidate, k = name, 0
    while candidate in taken:
        k += 1
        candidate = f"{name}_{k}"
    taken.add(candidate)
    return candidate


def _slice(starts: tuple[int, ...], span: Span) -> tuple[int, int]:
    """The offsets of `span` in a text whose lines start at `starts`."""
    return starts[span.line - 1] + span.col - 1, starts[span.end_line - 1] + span.end_col - 1


class _Dialect:
    """How the input writes a rule: comment, terminator, addressee, location column, marks."""

    def __init__(self, source: Program | LocatedProgram):
        self.located = source if isinstance(source, LocatedProgram) else None
        self.name = "transparent" if self.located is None else self.located.dialect
        self.comment = "//" if self.name == "molly" else "%"
        self.end = "." if self.name == "transparent" else ";"

    def at(self, term: str) -> str:
        """The location argument of a generated atom: `#L` (tr2009), `L` (Molly)."""
        return f"#{term}" if self.name == "located" else term

    def atom(self, relation: str, args: list[str], location: str | None, column: int = 0) -> str:
        """`relation(args)` with the location term (if the dialect has one) at `column`."""
        if self.located is not None and location is not None:
            args = args[:column] + [self.at(location)] + args[column:]
        return f"{relation}({', '.join(args)})"

    def rules(self) -> tuple[Rule, ...]:
        return self.located.source if self.located is not None else ()

    def column(self, relation: str) -> int:
        return self.located.columns.get(relation, 0) if self.located is not None else 0


def _location(rule: Rule, dialect: _Dialect) -> str | None:
    """The location term ℓ of a located source rule's body (every body atom has it, tr2009 §6.2)."""
    if dialect.located is None:
        return None
    for item in rule.body:
        if isinstance(item, Literal) and item.atom.args:
            term = item.atom.args[dialect.column(item.atom.predicate)]
            return str(term.term if isinstance(term, Marked) else term)
    raise ValueError(f"rule {rule.number} '{rule}' has no body atom with a location: it cannot read the clock")


def _variable(name: str, taken: set[str]) -> str:
    """`name`, or `name1`, `name2`, ...: the first one not in `taken` (variables of the rule, relations, names made)."""
    return next(n for n in (name, *(f"{name}{i}" for i in range(1, 1000))) if n not in taken)


def _variables(rule: Rule) -> set[str]:
    names = {v.name for v in rule.variables()}
    for atom in rule.atoms:
        for a in atom.args:
            if isinstance(a, Marked):
                names.add(str(a.term))
    return names


def rewrite(source: Program | LocatedProgram, relations: tuple[str, ...]) -> Rewrite:
    """The program of `source` with tr2009 §6.6's Lamport clocks on the asynchronous `relations` (module docstring).

    `source` is what `parser.load_source` read (its text and spans are the file's). Raises ValueError for a
    relation that no asynchronous rule sends, and for a rewritten rule that lies in an included file.
    """
    program = source.program if isinstance(source, LocatedProgram) else source
    dialect = _Dialect(source)
    sent = program.async_relations()
    unknown = [r for r in relations if r not in sent]
    if unknown:
        raise ValueError(f"'{unknown[0]}' is not sent by an asynchronous rule (the asynchronous relations: "
                         f"{', '.join(sent) or 'none'})")
    text, c = program.text, dialect.comment
    taken = set(program.schema()) | set(dialect.located.columns if dialect.located else ())
    if dialect.located is not None and dialect.located.identity:
        taken.add(dialect.located.identity)
    clock, ticked = _fresh("lamport_clock", taken), _fresh("lamport_ticked", taken)
    start = _fresh("lamport_start", taken) if dialect.located is not None else None
    waits = {r: _fresh(f"{r}_wait", taken) for r in relations}
    if not relations:
        header = f"{c} {printable(program.filename)}: nothing rewritten, no asynchronous relation is involved in a locus of coordination (Lamport clocks, {SECTION})\n"
        return Rewrite(header + text, (), {}, clock)
    senders = [r for r in (dialect.rules() or program.rules) if r.kind is RuleKind.ASYNC and r.head.predicate in waits]
    starts = line_starts(text)
    edits = []
    for rule in senders:
        if rule.span.source is not None:
            where = f"{printable(rule.span.source[0])}:{rule.span.line}"
            raise ValueError(f"the asynchronous rule that sends '{rule.head.predicate}' is in the included file {where}: "
                             f"rewrite that file itself (dedalus2asp convert --to lamport {printable(rule.span.source[0])})")
        begin, end = _slice(starts, rule.span)
        written = text[begin:end]
        head_begin, head_end = _slice(starts, rule.head.span)
        head = text[head_begin:head_end]
        inner = head[head.index("(") + 1:head.rindex(")")].strip() if "(" in head else ""
        step = _variable("S", _variables(rule) | taken)
        where = _location(rule, dialect)
        clock_atom = dialect.atom(clock, [step], where)
        new_head = f"{waits[rule.head.predicate]}({inner + ', ' if inner else ''}{step})"
        last = _slice(starts, rule.body[-1].span)[1]  # the clock joins the body there, before any comment
        new = written[:head_begin - begin] + new_head + text[head_end:last] + f", {clock_atom}" + text[last:end]
        note = (f"{c} Lamport clocks ({SECTION}): this rule sent {rule.head.predicate} directly; now the message carries "
                f"its send step {step} (an entanglement, tr2009 §6.5.2)\n{c} and waits in "
                f"{waits[rule.head.predicate]} until the receiver's clock has passed {step} (rules at the end).\n")
        edits.append((begin, end, note + new))
    out, last = [], 0
    for begin, end, new in sorted(edits):
        out.append(text[last:begin])
        out.append(new)
        last = end
    out.append(text[last:])
    body = _without_intolerance("".join(out), c)
    if not body.endswith("\n"):
        body += "\n"
    return Rewrite(_header(program, relations, c) + body + _appended(program, dialect, waits, clock, ticked, start),
                   tuple(relations), waits, clock)


def _without_intolerance(text: str, c: str) -> str:
    """`text` without its comment paragraphs that say the program does not tolerate non-causality (jcss2014 Alg. 3's
    header): the rewrite is meant to make that false, and `cron` tells whether it did."""
    lines, out, paragraph = text.split("\n"), [], []

    def flush():
        words = " ".join(line.strip()[len(c):] for line in paragraph).lower().split()
        if "not tolerate non-causality" in " ".join(words):
            out.append(f"{c} (A remark of the original that it does not tolerate non-causality is dropped here: the "
                       "rewrite is meant to; `dedalus2asp cron` tells.)")
        else:
            out.extend(paragraph)
        paragraph.clear()

    for line in lines:
        if line.strip().startswith(c) and line.strip() != c:
            paragraph.append(line)
        else:
            flush()
            out.append(line)
    flush()
    return "\n".join(out)


def _header(program: Program, relations: tuple[str, ...], c: str) -> str:
    return (f"{c} {printable(program.filename)} with Lamport clocks on {', '.join(relations)}: "
            f"dedalus2asp convert --to lamport ({SECTION}).\n")


def _appended(program: Program, d: _Dialect, waits: dict[str, str], clock: str, ticked: str, start: str | None) -> str:
    c, e = d.comment, d.end
    arity = program.schema()
    names = set(arity) | set(waits.values()) | {clock, ticked, start}  # a variable is never named like a relation
    # the generated rules' variables; no user variable occurs in these rules. L: the location (located dialects)
    L, N, S, C = (_variable(v, names) for v in ("L", "N", "S", "C"))
    lines = ["", f"{c} ---- Lamport clocks: {CITATION} ----",
             f"{c} Each node's clock is its local step: 0 at the first step (no step ticked before it), then one more at",
             f"{c} every step. It grows without bound: within a horizon T it takes the values 0..T.",
             f"{c} No ties to break (tr2009 appends a node identifier to order all events): a message need only be used",
             f"{c} after its send step, and two nodes at the same step stay concurrent."]
    if d.located is None:
        lines += [f"{clock}(0) :- not {ticked}(){e}"]
    else:
        lines += [f"{c} ({start} names the node; the location used as a value gives the rule the node's identity.)",
                  f"{d.atom(start, [L], L)} :- not {d.atom(ticked, [], L)}{e}",
                  f"{d.atom(clock, ['0'], L)} :- {d.atom(start, ['_Me'], L)}{e}"]
    lines += [f"{d.atom(ticked, [], L if d.located else None)}@next :- {d.atom(clock, ['_N'], L if d.located else None)}{e}",
              f"{d.atom(clock, [f'{N} + 1'], L if d.located else None)}@next :- {d.atom(clock, [N], L if d.located else None)}{e}"]
    for relation, wait in waits.items():
        args = [_variable(f"X{i}", names) for i in range(1, arity[relation] + 1)]
        column = d.column(relation)
        where = L if d.located else None
        message = d.atom(wait, args + [S], where, column)
        now = d.atom(clock, [C], where)
        lines += [
            f"{c} {relation} arrives in {wait} with {S}, its sender's step. A message from the future ({S} >= the "
            f"receiver's clock {C})",
            f"{c} waits: the receiver's clock advances by waiting ({SECTION}).",
            f"{message}@next :- {message}, {now}, {S} >= {C}{e}",
            f"{c} It is delivered at the first step whose clock exceeds {S}, so no derivation from it precedes its cause",
            f"{c} (tr2009 writes @next here: one step later; see docs/coordination.md).",
            f"{d.atom(relation, args, where, column)} :- {message}, {now}, {S} < {C}{e}",
        ]
    return "\n".join(lines) + "\n"


def _delivery(rule: Rule) -> tuple[str, str] | None:
    """(W, K) when `rule` is a rewrite's delivery `R(X̄) :- W(X̄, S), K(C), S < C.`, else None."""
    literals = [b for b in rule.body if isinstance(b, Literal)]
    comparisons = rule.comparisons
    if rule.kind is not RuleKind.DEDUCTIVE or len(literals) != 2 or len(comparisons) != 1 or any(x.negated for x in literals):
        return None
    message, clock = literals
    test = comparisons[0]
    if not (message.atom.args and len(clock.atom.args) == 1 and test.op == "<"):
        return None
    stamp, now = message.atom.args[-1], clock.atom.args[0]
    same = [str(a) for a in message.atom.args[:-1]] == [str(a) for a in rule.head.args]
    if same and isinstance(stamp, Variable) and isinstance(now, Variable) and (str(test.left), str(test.right)) == (str(stamp), str(now)):
        return message.atom.predicate, clock.atom.predicate
    return None


def clock_rule(program: Program) -> Rule | None:
    """On a rewrite: the rule that advances the Lamport clock at every step (`K(N + 1)@next :- K(N).`), which makes
    every run of the rewrite infinite-state (no lasso repeats a state); None on another program."""
    clocks = {k for rule in program.rules if (wk := _delivery(rule)) and wk[0] in program.async_relations() for k in wk[1:]}
    return next((r for r in program.rules_of(RuleKind.INDUCTIVE) if r.head.predicate in clocks), None)


def undo(program: Program) -> Program | None:
    """The program a Lamport rewrite (`rewrite`) was made from, or None when `program` is no rewrite.

    Every asynchronous relation W delivered by a rule `R(X̄) :- W(X̄, S), K(C), S < C.` was R: its sending rules
    get back the head R(ū) (the send step S dropped) and lose their clock atom K(S); the waiting and delivering
    rules of W go, and so do the clock's rules (K and the relations only they read). `cron` answers the original's
    question beside the rewrite's with it: the rewrite removes causal runs, and may hide a race."""
    sent = program.async_relations()
    found = {w: (rule.head.predicate, k) for rule in program.rules if (wk := _delivery(rule)) and (w := wk[0]) in sent
             for k in (wk[1],)}
    if not found:
        return None
    clock = {k for _, k in found.values()}
    heads = {r.head.predicate for r in program.rules}
    todo = list(clock)
    while todo:  # the clock's machinery: the relations its rules read (its tick, its start)
        relation = todo.pop()
        for rule in (r for r in program.rules if r.head.predicate == relation):
            for atom in rule.atoms[1:]:
                if atom.predicate not in clock and atom.predicate in heads and atom.predicate not in sent:
                    clock.add(atom.predicate)
                    todo.append(atom.predicate)
    rules = []
    for rule in program.rules:
        head = rule.head.predicate
        if head in clock or head in found and rule.kind is not RuleKind.ASYNC or _delivery(rule) in {
                (w, k) for w, (_, k) in found.items()}:
            continue
        if head in found and rule.kind is RuleKind.ASYNC:
            stamp = str(rule.head.args[-1])
            body = tuple(b for b in rule.body if not (isinstance(b, Literal) and b.atom.predicate in clock
                                                       and [str(a) for a in b.atom.args] == [stamp]))
            rule = replace(rule, head=Atom(found[head][0], rule.head.args[:-1], rule.head.span), body=body)
        rules.append(rule)
    return replace(program, rules=tuple(rules))
