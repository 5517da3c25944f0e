"""The transformations of tplp2016 §4.3–4.5, bounded to a horizon (SPEC §2).

`transform(program, instance, horizon, semantics, encoding)` writes the clingo program

* `choice` = pure_ch(P) (§4.3.1): rules (1)–(6);
* `causal` = pure_ca(P) (§4.4.1): rules (1), (2), (4)–(10);
* `causal-finite` = pure(P) (§4.5.1): pure_ca(P) and rules (11)–(14);

on decl(H) restricted to steps 0..T (§4.3.2). Per Dedalus rule:

* deductive `R(u) :- B.` becomes `R(X,S,u) :- B^{X,S}.` (1);
* inductive `R(u)@next :- B.` becomes `R(X,T,u) :- B^{X,S}, tsucc(S,T).` (2);
* asynchronous `R(u)@async(Y) :- B.` becomes
  `cand_R(X,S,Y,T,u) :- B^{X,S}, all(Y), arrival(T).` (3), with
  `not before(Y,T,X,S)` added under causality (9).

Two encodings write these semantics (SPEC §2 "Encodings"). `paper` writes
rules (1)–(14) as they stand. `fast` keeps (1), (2) and (6) and the same
decl(H), but writes the rest with clingo's own constructs:

* the asynchronous rule becomes `cand_R(X,S,Y,u) :- B^{X,S}, all(Y).`, the
  paper's cand_R without its candidate arrival step (the message is sent;
  any arrival is a candidate), and the choice of one arrival per message,
  rules (3)–(5), becomes the choice rule
  `1 { chosen_R(X,S,Y,T,w) : ... } 1 :- cand_R(X,S,Y,w).`, linear in T per
  message where other_R is quadratic;
* causality, rules (7)–(10), becomes clingo's `#edge` acyclicity over the
  local edges (x,s)→(x,s+1) and the message edges (x,s)→(y,t), in place
  of the transitive `before` that grounds in O((N·T)³);
* the arrival domain leaves out what can never hold: on the sender's own
  node an arrival at or before the send step (a cycle, under causality),
  and what the delay bound forbids;
* rules (11)–(14) prune nothing within a finite horizon (SPEC §2), so
  `causal-finite` is written as `causal`.

A model of either encoding is fixed by its arrivals α (one per sent message,
a step or pending): the paper's stable models are the α whose happens-before
graph is acyclic, and so are the fast ones. Both therefore have the same
models up to auxiliary atoms, and `inspect.decode` reads the same trace and
messages from both (tests/test_fast.py checks it).

For counting traces under causality the fast encoding has a second form,
`Compiled.trace_text` (templates/traces.lp.j2): the copies of R(w) that a
node sends to itself get no arrival each; `arrives_R(y,t,w)` chooses
the steps R(w) arrives at, and constraints keep the choices some assignment
of the copies reaches (Hall's condition on intervals; a landing step or
pending for every copy). It has the traces of `text`, not its models
(tests/test_traces.py), so only `solve.count` and `compile --traces` use it.

The constructs were chosen by measurement (jcss2014 Alg. 1 on a chain over
N = 4 nodes, T = 24, `causal`; ground rules, then seconds to ground and to
the first model): `#edge` 183k, 0.4 + 0.4 s; `before` as the transitive
closure of the chosen edges with `:- before(X,S,X,S).` 1.1M, 1.8 + 2.2 s;
the length of the longest path into each step, bounded by N·(T+1), 935k,
1.5 + 1.4 s; the paper encoding 3.9M, 10.7 + 13.2 s. The choice rule's two
conditions for a real step (to another node; to the sender itself, later)
are disjoint: overlapping ones (`X != Y`; `S < T`) take about 15% longer.
benchmarks/run.py compares the encodings on four families.

Program-independent rules come from `encodings/*.lp`, program-dependent ones
from `templates/*.j2`; each generated rule is preceded by its rule number.

Names: the paper's auxiliary relations (Table 1: all, time, tsucc, before,
cand_R, chosen_R, other_R, hasSender, isSmaller, hasMax, rcvInf, and our
`arrival` and `arrives_R`) keep their names; a user relation keeps its own name unless it
could collide with them or is not a clingo identifier, in which case it is
written `u_<name>` (an injective map: names starting with `u_` are always
prefixed). The paper's new variables x, s, t are chosen fresh for each rule,
so they never capture a user variable.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum
from functools import lru_cache
from importlib import resources

import jinja2

from ..lang.analysis import restrict
from ..lang.ast import Atom, Comparison, Constant, Instance, Literal, Program, Rule, RuleKind, Term, Variable
from ..lang.located import check_events


class Semantics(str, Enum):
    """The three transformations of tplp2016 §4 (SPEC §2)."""

    CHOICE = "choice"
    CAUSAL = "causal"
    CAUSAL_FINITE = "causal-finite"

    @property
    def causal(self) -> bool:
        return self is not Semantics.CHOICE

    @property
    def finite(self) -> bool:
        return self is Semantics.CAUSAL_FINITE

    @property
    def paper_name(self) -> str:
        return {"choice": "pure_ch(P)", "causal": "pure_ca(P)", "causal-finite": "pure(P)"}[self.value]


class Encoding(str, Enum):
    """How the program is written (SPEC §2): rule by rule as in tplp2016, or with clingo's constructs."""

    PAPER = "paper"
    FAST = "fast"


# The auxiliary relations of tplp2016 Table 1 (and `arrival`, SPEC §2).
AUXILIARY = frozenset(
    {"all", "time", "tsucc", "before", "arrival", "hasSender", "isSmaller", "hasMax", "rcvInf"}
)
MESSAGE_PREFIXES = ("cand_", "chosen_", "other_", "arrives_")
USER_PREFIX = "u_"
PENDING = "pending"

_CLINGO_NAME = re.compile(r"[a-z][A-Za-z0-9_]*\Z")
_CLINGO_VARIABLE = re.compile(r"_*[A-Z][A-Za-z0-9_]*\Z")


def relation_name(name: str) -> str:
    """The clingo name of user relation `name` (injective, never an auxiliary name)."""
    if (
        _CLINGO_NAME.match(name)
        and name not in AUXILIARY
        and not name.startswith(MESSAGE_PREFIXES + (USER_PREFIX,))
    ):
        return name
    return USER_PREFIX + name


def message_relation(kind: str, name: str) -> str:
    """cand_R, chosen_R or other_R for user relation R (R written as in the source)."""
    return f"{kind}_{name}"


def _fresh(base: str, taken: set[str]) -> str:
    if base not in taken:
        taken.add(base)
        return base
    i = 0
    while f"{base}{i}" in taken:
        i += 1
    taken.add(f"{base}{i}")
    return f"{base}{i}"


@dataclass(frozen=True)
class RuleView:
    """One Dedalus rule prepared for `rules.lp.j2`."""

    rule: Rule
    variables: dict[str, str]  # user variable -> clingo variable
    x: str
    s: str
    t: str

    @property
    def number(self) -> int:
        return self.rule.number

    @property
    def origin(self) -> str | None:
        return None if self.rule.origin is None else in_comment(self.rule.origin)

    @property
    def source(self) -> str:
        return in_comment(str(self.rule))

    @property
    def kind(self) -> str:
        return {RuleKind.DEDUCTIVE: "deductive", RuleKind.INDUCTIVE: "inductive", RuleKind.ASYNC: "async"}[
            self.rule.kind
        ]

    @property
    def head(self) -> Atom:
        return self.rule.head

    @property
    def positive(self) -> bool:
        return bool(self.rule.positive)

    @property
    def y(self) -> str:
        return self.variables[self.rule.addressee.name]


def rule_view(rule: Rule) -> RuleView:
    """Map the rule's variables to clingo variables and pick fresh x, s, t."""
    mapping: dict[str, str] = {}
    taken: set[str] = set()
    for var in rule.variables():
        if var.anonymous or var.name in mapping:
            continue
        clingo_name = var.name if _CLINGO_VARIABLE.match(var.name) else "V" + var.name
        mapping[var.name] = _fresh(clingo_name, taken)
    return RuleView(rule, mapping, _fresh("X", taken), _fresh("S", taken), _fresh("T", taken))


@dataclass(frozen=True)
class MessageView:
    """Relation R sent by asynchronous rules, for `messages.lp.j2` and `fast.lp.j2` (variables X, S, Y, T, W1..Wk)."""

    relation: str
    arity: int
    persists: bool = False  # P has the simple persistence rule R(ū)@next :- R(ū). (see `persisted`)

    @property
    def _w(self) -> str:
        return "".join(f",W{i}" for i in range(1, self.arity + 1))

    def _message(self, kind: str, t: str | None) -> str:
        arrival = "" if t is None else f",{t}"
        return f"{message_relation(kind, self.relation)}(X,S,Y{arrival}{self._w})"

    def cand(self, t: str | None = None) -> str:
        """cand_R(X,S,Y,t,W..); without t, the fast encoding's cand_R(X,S,Y,W..): sent, arrival not yet chosen."""
        return self._message("cand", t)

    def chosen(self, t: str) -> str:
        return self._message("chosen", t)

    def other(self, t: str) -> str:
        return self._message("other", t)

    def arrives(self, t: str) -> str:
        """arrives_R(Y,t,W..) of the program at the level of traces (traces.lp.j2): R arrives at step t of Y."""
        return f"{message_relation('arrives', self.relation)}(Y,{t}{self._w})"

    def at(self, t: str) -> str:
        """R(Y,t,W..): R holds at step t of the addressee."""
        return f"{relation_name(self.relation)}(Y,{t}{self._w})"

    @property
    def arrive(self) -> str:
        return self.at("T")


def persisted(program: Program) -> set[str]:
    """The relations R with a simple persistence rule `R(ū)@next :- R(ū).`, ū distinct variables
    (tr2009 §3.1): every R(w) that holds at a step holds at every later one."""
    found = set()
    for rule in program.rules:
        if rule.kind is not RuleKind.INDUCTIVE or len(rule.body) != 1 or not isinstance(rule.body[0], Literal):
            continue
        head, body = rule.head, rule.body[0]
        names = [a.name for a in head.args if isinstance(a, Variable) and not a.anonymous]
        if (
            not body.negated
            and body.atom.predicate == head.predicate
            and len(names) == head.arity == len(set(names))
            and [str(a) for a in body.atom.args] == names
        ):
            found.add(head.predicate)
    return found


def _term(term: Term, view: RuleView) -> str:
    if isinstance(term, Variable):
        return "_" if term.anonymous else view.variables[term.name]
    return str(term.value)


def _lt(atom: Atom, view: RuleView, x: str, s: str) -> str:
    """atom^{x,s}: the atom with location specifier x and timestamp s prepended (tplp2016 §4.2)."""
    args = [x, s] + [_term(a, view) for a in atom.args]
    return f"{relation_name(atom.predicate)}({','.join(args)})"


def _body(view: RuleView) -> str:
    """B^{x,s}: the body with location and timestamp added to every atom; comparisons unchanged."""
    parts = []
    for item in view.rule.body:
        if isinstance(item, Literal):
            parts.append(("not " if item.negated else "") + _lt(item.atom, view, view.x, view.s))
        else:
            parts.append(f"{_term(item.left, view)} {item.op} {_term(item.right, view)}")
    return ", ".join(parts)


def _cand(view: RuleView, arrival: bool = True) -> str:
    """cand_R(x,s,y,t,u) of rules (3) and (9); without t, the fast encoding's cand_R(x,s,y,u)."""
    args = [view.x, view.s, view.y, *([view.t] if arrival else [])] + [_term(a, view) for a in view.head.args]
    return f"{message_relation('cand', view.head.predicate)}({','.join(args)})"


@lru_cache(maxsize=None)
def _environment() -> jinja2.Environment:
    def load(name: str) -> str:
        return resources.files("dedalus2asp.templates").joinpath(name).read_text(encoding="utf-8")

    env = jinja2.Environment(
        loader=jinja2.FunctionLoader(load),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.globals.update(body=_body, cand=_cand, lt=lambda view, atom, x, s: _lt(atom, view, x, s))
    return env


def encoding(name: str) -> str:
    """A program-independent part from `encodings/`."""
    return resources.files("dedalus2asp.encodings").joinpath(name).read_text(encoding="utf-8")


@dataclass(frozen=True)
class Compiled:
    """A generated clingo program and the names needed to read its models back."""

    text: str
    relations: dict[str, str]  # clingo name -> user relation name, for sch(P)
    arities: dict[str, int]  # user relation name -> arity
    messages: dict[str, str]  # chosen_R clingo name -> user relation R
    horizon: int
    semantics: Semantics
    encoding: Encoding
    max_delay: int | None
    # the fast encoding at the level of traces (templates/traces.lp.j2): the same traces, fewer
    # models; what `count` enumerates to count traces. None for the paper encoding and for choice.
    trace_text: str | None = None
    # P itself, for the inspector: which asynchronous rule sent a message, outputs, explanations
    program: Program | None = field(default=None, compare=False, repr=False)

    def projection(self) -> str:
        """`#project R/k.` for every relation of sch(P) (k with location and step): enumerate traces, not models."""
        return "".join(f"\n#project {name}/{self.arities[rel] + 2}." for name, rel in self.relations.items()) + "\n"

    def counting_traces(self) -> str:
        """The program whose projective enumeration counts the traces: `trace_text` when there is one."""
        return (self.text if self.trace_text is None else self.trace_text) + self.projection()


# The largest horizon and delay bound: clingo's integers have 32 bits, and the programs add a
# step and a delay (S+D) or a step and one (tsucc).
MAX_STEP = 2**30


def in_comment(text: str) -> str:
    """User text (a file name, a rule) for a `%` comment line of the generated program.

    A character that could end the line (a newline, a carriage return, ...) is written as its
    escape, so that nothing a user names can turn the rest of a comment into clingo statements
    (SPEC §2).
    """
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


TRACE_LEVEL_HEADER = (
    "% At the level of traces (templates/traces.lp.j2): the same traces as the fast encoding, fewer\n"
    "% models; count them with: python -m clingo FILE 0 --project\n"
)


def _input_fact(node, fact) -> str:
    """`R(x,S,ā) :- time(S).` for an input fact of x; `R(x,k,ā).` for an event R(ā)@k (tr2009 Example 3)."""
    step = "S" if fact.step is None else str(fact.step)
    atom = f"{relation_name(fact.predicate)}({','.join([str(node), step, *map(str, fact.args)])})"
    return f"{atom} :- time(S)." if fact.step is None else f"{atom}."


def decl(instance: Instance, horizon: int) -> str:
    """decl(H) restricted to steps 0..T (tplp2016 §4.3.2), extended with timestamped events.

    An input fact R(ā) of node x gives R(x,s,ā) for every s ≤ T; an event
    R(ā)@k gives R(x,k,ā) only (tr2009 Example 3: the EDB of Dedalus is
    timestamped, and persistence rules make a fact last).
    """
    check_events(instance, horizon)
    inputs = [(node, [_input_fact(node, f) for f in facts]) for node, facts in instance.facts.items()]
    events = any(f.step is not None for facts in instance.facts.values() for f in facts)
    return _environment().get_template("decl.lp.j2").render(
        horizon=horizon, network=[str(n) for n in instance.network], inputs=inputs, events=events
    )


def transform(
    program: Program,
    instance: Instance | None,
    horizon: int,
    semantics: Semantics = Semantics.CAUSAL_FINITE,
    encoding_: Encoding = Encoding.FAST,
    max_delay: int | None = None,
) -> Compiled:
    """Write the clingo program for P on H (or, without H, P alone with `time(0..T)`)."""
    if not 0 <= horizon <= MAX_STEP:
        raise ValueError(f"the horizon must be between 0 and {MAX_STEP}, not {horizon}")
    if max_delay is not None and not 0 <= max_delay <= MAX_STEP:
        raise ValueError(f"the delay bound must be between 0 and {MAX_STEP}, not {max_delay}")
    env = _environment()
    views = [rule_view(r) for r in program.rules]

    fast = encoding_ is Encoding.FAST
    delay = "" if max_delay is None else f", delay bound D = {max_delay}"
    written = "with clingo's choice rules and #edge acyclicity" if fast else "rule by rule"
    header = [
        f"% {semantics.paper_name} of {in_comment(program.filename)}: the {semantics.value} semantics of tplp2016 §4,",
        f"% written {written} ({encoding_.value} encoding), over horizon T = {horizon}{delay}.",
        f"% Every node performs local steps 0..{horizon}; a message arrives at a step or stays pending.",
        "% Generated by dedalus2asp; run it with: python -m clingo FILE 0",
    ]
    parts = ["\n".join(header) + "\n"]
    if instance is not None:
        parts.append(decl(restrict(instance, program), horizon))
    else:
        parts.append(
            f"% decl(H) is not included: add all/1 and the input facts R(x,S,a..) for S in 0..{horizon}.\n"
            f"time(0..{horizon}).\n"
        )
    parts.append(encoding("time.lp"))
    if not fast:
        parts.append(encoding("arrival.lp"))  # the fast encoding writes the domain into its choice rules
    parts.append(env.get_template("rules.lp.j2").render(rules=views, causal=semantics.causal, fast=fast))
    kept = persisted(program)
    messages = [MessageView(r, k, r in kept) for r, k in program.async_relations().items()]
    options = dict(messages=messages, causal=semantics.causal, finite=semantics.finite, max_delay=max_delay, horizon=horizon)
    prefix = "fast_" if fast else ""
    tail = [encoding(f"{prefix}causal.lp")] if semantics.causal else []
    tail += [encoding(f"{prefix}finite.lp")] if semantics.finite else []
    messages_part = env.get_template("fast.lp.j2" if fast else "messages.lp.j2").render(**options)
    trace_text = None
    if fast and semantics.causal:
        trace_parts = [*parts, env.get_template("traces.lp.j2").render(**options), *tail]
        trace_parts[0] += TRACE_LEVEL_HEADER
        trace_text = "\n".join(p.rstrip("\n") + "\n" for p in trace_parts)
    parts += [messages_part, *tail]
    schema = program.schema()
    return Compiled(
        trace_text=trace_text,
        text="\n".join(p.rstrip("\n") + "\n" for p in parts),
        relations={relation_name(r): r for r in schema},
        arities=dict(schema),
        messages={message_relation("chosen", m.relation): m.relation for m in messages},
        horizon=horizon,
        semantics=semantics,
        encoding=encoding_,
        max_delay=max_delay,
        program=program,
    )
