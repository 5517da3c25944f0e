"""Consistency and tolerance of non-causality (jcss2014's CRON questions), bounded.

`analyse(program, instance, bounds)` answers, for the output
facts at the last step T united over the nodes (output(M), jcss2014 §2.5.5):

* certain / possible outputs: the cautious / brave consequences over
  `_output(R, w̄)`, an atom the analysis adds for every output fact at step T,
  under `causal-finite` (pure, tplp2016 §4.5) and under `choice` (pure_ch =
  jcss2014's SZ-models, §3.1);
* consistent (jcss2014 §2.5.5): certain = possible under `causal-finite`;
  if not, two witness models: one without a fact f ∈ possible \\ certain and
  one with it (clingo assumptions on `_output`);
* tolerant (jcss2014 §3.2): consistent, and every `choice` model has that
  same output: choice certain = choice possible = causal certain. Every
  causal model is a choice model, so otherwise some choice model lacks a
  certain fact (it is "lost") or has a fact no causal model has ("gained");
  that model is the counterexample, with its messages that arrive at a step
  happening before their send (`inspect.Model.noncausal`): a choice model
  with an acyclic happens-before relation would be a causal model;
* jcss2014 Theorem 4.1: a positive program that is consistent tolerates
  non-causality; the verdict says when it applies.

Every answer holds up to the horizon T of `bounds` and, with the delay bound D of
`bounds.network`, for runs in which every message arrives within D steps: it is
a bounded verdict (the semantics of `bounds` is ignored: both are analysed).

`search(...)` grows the horizon from 1 to T and stops at the smallest one with
a consistency violation or a counterexample. The `causal-finite` side is
solved with `incremental` (multi-shot: each step is grounded once). The
`choice` side is grounded from scratch at each horizon: under `choice` a
message may arrive in the past and support the fact that sent it, a positive
loop through atoms grounded in different steps, which clingo's multi-shot
solving does not check for unfoundedness (measured: jcss2014 Alg. 1 at T = 1
has 30 choice traces, the incremental program 45). Under causality such a
loop closes a cycle of happens-before and #edge removes it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import clingo

from ..asp.incremental import Unrolling, incremental, tuple_term
from ..asp.names import OUTPUT, relation_name
from ..asp.solve import control
from ..asp.transform import Compiled, transform
from ..bounds import Bounds, Encoding, Mode, Semantics
from ..inspect.model import Model, decode, show_fact
from ..lang.ast import Instance, Program
from ..lang.diagnostics import Diagnostic, DiagnosticError
from . import eventual, models
from .eventual import Exactness


class Timeout(Exception):
    """The time limit stopped solving before the answer was known."""


def outputs_of(program: Program, requested: tuple[str, ...] | None = None) -> tuple[str, ...]:
    """out(P): the `--output` relations if given, else the `.output` ones; a user error if none or unknown."""
    chosen = tuple(dict.fromkeys(requested)) if requested else program.output_relations  # each relation once
    schema = program.schema()
    if not chosen:
        raise DiagnosticError(
            [Diagnostic("no-output", "the program declares no output relation: add `.output R.` or pass --output-relations R "
                        f"with R one of its relations: {candidates(program)}", filename=program.filename)]
        )
    unknown = [r for r in chosen if r not in schema]
    if unknown:
        raise DiagnosticError(
            [Diagnostic("unknown-output", f"output relation '{r}' does not occur in the program "
                        f"(its relations: {', '.join(schema)})", filename=program.filename) for r in unknown]
        )
    return chosen


def candidates(program: Program) -> str:
    """The relations `--output` could name, derived ones first (a global relation says so), each with its
    arity as an output fact shows it (a located relation's with its location column)."""
    relations = program.schema()
    derived, held_by_none, located = program.idb(), program.global_relations(), dict(program.locations)
    order = [r for r in relations if r in derived] + [r for r in relations if r not in derived]
    shown = [f"{r}/{relations[r] + (r in located)}" + (" (global)" if r in held_by_none else "") for r in order]
    return ", ".join(shown) or "none"


def fewest_backward(compiled: Compiled) -> str:
    """`#minimize` the messages that arrive at a step number ≤ their send step: a readable counterexample.

    The choice program only uses it to pick its counterexample; certain and possible outputs ignore it.
    """
    lines = []
    for name, relation in compiled.messages.items():
        w = "".join(f",W{i}" for i in range(1, compiled.arities[relation] + 1))
        lines.append(f"#minimize {{ 1,{name},X,S,Y{w} : {name}(X,S,Y,T{w}), T <= S }}.")
    return "\n".join(lines) + "\n"


def output_tuple(arity: int, column: int | None) -> str:
    """(W1,..,Wk) of an output fact; with the node X put back in a located relation's location column."""
    w = [f"W{i}" for i in range(1, arity + 1)]
    if column is not None:
        w.insert(column, "X")
    return tuple_term(w)


def output_rules(outputs: tuple[str, ...], arities: dict[str, int], horizon: int, locations=()) -> str:
    """`_output("R",(W1,..)) :- R(X,T,W1,..).` for every output relation R at step T (output(M), jcss2014 §2.5.5);
    a located program's output facts keep their node X in their location column (`locations`)."""
    lines = []
    columns = dict(locations)
    for r in outputs:
        w = [f"W{i}" for i in range(1, arities[r] + 1)]
        tuple_ = output_tuple(arities[r], columns.get(r))
        lines.append(f'{OUTPUT}("{r}",{tuple_}) :- {relation_name(r)}({",".join(["X", str(horizon), *w])}).')
    return "\n% the output facts at the horizon, united over nodes (jcss2014 §2.5.5)\n" + "\n".join(lines) + f"\n#show {OUTPUT}/2.\n"


def model_output(model: Model, outputs: tuple[str, ...]) -> frozenset[str]:
    """output(M) for the relations `outputs` (jcss2014 §2.5.5), as a set; of a lasso model, its ultimate output
    (the facts held at every step of its loop, `Model.ultimate`), not the facts of its last step."""
    return frozenset(model.ultimate(outputs) if model.is_lasso else model.outputs(outputs))


class Deadline:
    """What remains of a time limit shared by every solve call of an analysis."""

    def __init__(self, seconds: float | None):
        self.end = None if seconds is None else time.perf_counter() + seconds

    def remaining(self) -> float | None:
        return None if self.end is None else max(0.0, self.end - time.perf_counter())


def _solve(ctl: clingo.Control, deadline: Deadline, assumptions=(), on_model=None) -> bool:
    """Solve, stopping at the deadline (Timeout); True when a model was found."""
    with ctl.solve(on_model=on_model, assumptions=list(assumptions), async_=True) as handle:
        if not handle.wait(deadline.remaining()):
            handle.cancel()
            raise Timeout()
        return handle.get().satisfiable


def consequences(ctl: clingo.Control, mode: str, deadline: Deadline, select=lambda s: True) -> frozenset | None:
    """The cautious or brave consequences over the shown `_output` atoms (None: no model)."""
    ctl.configuration.solve.enum_mode = mode
    ctl.configuration.solve.models = 0
    ctl.configuration.solve.opt_mode = "ignore"
    last: list = [None]  # in these modes, the last model holds the consequences

    def on_model(model: clingo.Model) -> None:
        last[0] = model.symbols(shown=True)

    found = _solve(ctl, deadline, on_model=on_model)
    ctl.configuration.solve.enum_mode = "auto"
    return frozenset(s for s in last[0] if select(s)) if found else None


def one_model(ctl: clingo.Control, compiled: Compiled, deadline: Deadline, assumptions, optimize=False) -> Model | None:
    """A model under the assumptions, decoded (None: there is none); with `optimize`, an optimal one."""
    ctl.configuration.solve.models = 0 if optimize else 1  # optimization: models until the optimum is proven
    ctl.configuration.solve.opt_mode = "opt"
    found: list = [None]

    def on_model(model: clingo.Model) -> None:
        found[0] = decode(model.symbols(atoms=True), compiled)

    _solve(ctl, deadline, assumptions, on_model=on_model)
    ctl.configuration.solve.opt_mode = "ignore"
    return found[0]


def _fact(symbol: clingo.Symbol) -> str:
    """`_output("R",(a,b))` as R(a, b)."""
    relation, args = symbol.arguments[-2:]
    return show_fact(relation.string, args.arguments)


@dataclass(frozen=True)
class Consequences:
    """Certain and possible outputs of one semantics, on one grounded program."""

    certain: frozenset[str]
    possible: frozenset[str]
    atoms: dict[str, clingo.Symbol]  # output fact -> its _output atom


class Semantic:
    """The program of P on H within `bounds` (one semantics, one horizon), grounded once, with the output atoms added:
    the output facts at the last step, or in the eventual mode the ultimate ones of the lasso
    (`eventual.ultimate_rules`)."""

    def __init__(self, program: Program, instance: Instance, bounds: Bounds, outputs: tuple[str, ...]):
        compiled = transform(program, instance, bounds)
        if bounds.mode is Mode.EVENTUAL:
            extra = eventual.ultimate_rules(outputs, compiled.arities, program.locations, output_tuple)
        else:
            extra = output_rules(outputs, compiled.arities, bounds.horizon, program.locations)
        self.optimize = not bounds.semantics.causal
        if self.optimize:
            extra += fewest_backward(compiled)
        self.compiled = replace(compiled, text=compiled.text + extra)
        self.control = control(self.compiled)

    def consequences(self, deadline: Deadline) -> Consequences | None:
        certain = consequences(self.control, "cautious", deadline)
        if certain is None:
            return None
        possible = consequences(self.control, "brave", deadline)
        return Consequences(
            frozenset(map(_fact, certain)), frozenset(map(_fact, possible)), {_fact(s): s for s in possible}
        )

    def model(self, atom: clingo.Symbol, value: bool, deadline: Deadline) -> Model:
        return one_model(self.control, self.compiled, deadline, [(atom, value)], self.optimize)


def _sorted(facts) -> list[str] | None:
    return None if facts is None else sorted(facts)


@dataclass
class Verdict:
    """What `analyse` found, within `bounds` (its horizon and network)."""

    bounds: Bounds
    outputs: tuple[str, ...]
    positive: bool
    satisfiable: bool  # some causal-finite model exists
    consistent: bool | None = None
    tolerant: bool | None = None
    certain: frozenset[str] | None = None
    possible: frozenset[str] | None = None
    choice_certain: frozenset[str] | None = None
    choice_possible: frozenset[str] | None = None
    witnesses: list[tuple[Model, frozenset[str]]] = field(default_factory=list)
    counterexample: Model | None = None
    lost: frozenset[str] = frozenset()
    gained: frozenset[str] = frozenset()
    seconds: float = 0.0
    search: dict | None = None
    exactness: Exactness | None = None  # --eventual: the causal threshold K (consistency), and whether it was found
    choice_exactness: Exactness | None = None  # --eventual: the choice threshold (tolerance); None: not asked

    @property
    def eventual(self) -> bool:
        """An answer on ultimate outputs (`cron --eventual`), asked of the lassos of K steps."""
        return self.exactness is not None

    @property
    def K(self) -> int | None:
        """The number of steps of the lassos the answer was asked of (the larger threshold of the two sides)."""
        if self.exactness is None:
            return None
        return max(self.exactness.K, self.choice_exactness.K if self.choice_exactness else 0)

    @property
    def consistency_exact(self) -> bool | None:
        """Whether the consistency answer holds of every infinite run: "not consistent" always does (its two
        witnesses are infinite runs); "consistent" when the causal K is the completeness threshold."""
        if self.exactness is None:
            return None
        return self.exactness.exact or (self.satisfiable and self.consistent is False)

    @property
    def exact(self) -> bool | None:
        """Whether the whole eventual verdict holds of every infinite run: consistency exact and, when it was asked,
        the tolerance (the choice K the completeness threshold of the choice lassos). None for a bounded verdict."""
        if self.exactness is None:
            return None
        # a choice lasso whose ultimate output differs from the (exactly) consistent one is an infinite run: "not
        # tolerant" is exact at any K, as "not consistent" is
        return self.consistency_exact and (self.choice_exactness is None or self.choice_exactness.exact
                                           or self.tolerant is False)

    @property
    def reason(self) -> str:
        """Why an eventual verdict is not exact, in words ("" when it is)."""
        if self.exact or self.exactness is None:
            return ""
        sides = [("causal lassos, consistency", self.exactness), ("choice lassos, tolerance", self.choice_exactness)]
        return "; ".join(f"{side}: {e.reason}" for side, e in sides if e is not None and not e.exact)

    @property
    def theorem(self) -> str | None:
        """jcss2014 Theorem 4.1 (positive and consistent ⇒ tolerant, over unbounded fair runs), when it applies."""
        if not self.positive or not self.satisfiable:
            return None
        if not self.consistent:
            return "positive but not consistent: jcss2014 Theorem 4.1 does not apply"
        if self.eventual and self.exact and self.consistent:
            return ("positive and consistent over every infinite run, and tolerant, as the theorem predicts" if self.tolerant
                    else "positive and consistent over every infinite run, yet not tolerant, which the theorem rules out "
                    "over all fair runs: the eventual mode's runs step in rounds with every delay ≤ D (docs/semantics.md), "
                    "fewer runs than the theorem's, and the difference lies there")
        if self.tolerant:
            return (
                "positive and consistent within these bounds, and tolerant within them, as the theorem "
                "predicts for a positive program that is consistent over unbounded fair runs"
            )
        return (
            "positive and consistent within these bounds, yet not tolerant; the theorem (positive and "
            "consistent over unbounded fair runs ⇒ tolerant) then says that either the program is not "
            "consistent beyond these bounds or this counterexample comes from the bounds (raise the "
            "horizon or the delay bound to tell)"
        )

    @property
    def answer(self) -> bool:
        """Yes (exit 0) only for consistent and tolerant."""
        return bool(self.consistent and self.tolerant)

    @property
    def bound(self) -> str:
        if self.eventual:
            runs = "over every infinite run" if self.exact else f"over the lassos of at most {self.K} steps"
            return f"{runs} with {self.bounds.network.describe()}"
        return f"up to horizon {self.bounds.horizon} with {self.bounds.network.describe()}"

    def sentence(self) -> str:
        """One sentence: what was found, under which bound."""
        if self.eventual:
            return self.eventual_sentence()
        if not self.satisfiable:
            return f"no causal model {self.bound}: nothing to analyse (raise the horizon or the delay bound)"
        if not self.consistent:
            differ = sorted(self.witnesses[0][1] ^ self.witnesses[1][1])
            return f"not consistent: two causal models {self.bound} differ on {', '.join(differ)}"
        if self.tolerant:
            return f"consistent and tolerant: no counterexample {self.bound}"
        change = [f"loses {', '.join(sorted(self.lost))}"] if self.lost else []
        change += [f"gains {', '.join(sorted(self.gained))}"] if self.gained else []
        return (
            f"consistent but not tolerant: a choice model {self.bound} {' and '.join(change)} "
            "through a message that arrives before it was caused"
        )

    def eventual_sentence(self) -> str:
        """`cron --eventual`'s sentence: on ultimate outputs, over every infinite run (exact) or labelled bounded."""
        label = "" if self.exact else "bounded, not exact: "
        network = self.bounds.network.describe()
        if not self.satisfiable:
            runs = f"with {network}" if self.exact else f"among the lassos of at most {self.K} steps with {network}"
            return (f"{label}no infinite causal run {runs}: every run gets stuck (a message can never meet its "
                    "delay bound), so there is no ultimate output to compare")
        if not self.consistent:
            differ = sorted(self.witnesses[0][1] ^ self.witnesses[1][1])
            return f"not consistent: two infinite causal runs (lassos) with {network} ultimately differ on {', '.join(differ)}"
        if not self.exact and self.consistency_exact:  # tolerant within the choice lassos asked, not beyond
            return (f"consistent over every infinite run with {network} (exact); tolerant over the choice lassos of at "
                    f"most {self.choice_exactness.K} steps only (bounded, not exact)")
        if self.tolerant and self.exact:
            return f"consistent and tolerant: every infinite causal and choice run with {network} has the same ultimate output"
        if self.tolerant:
            return (f"{label}consistent and tolerant over the causal and choice lassos of at most {self.K} steps with "
                    f"{network}: they all have the same ultimate output")
        return f"{label}consistent but not tolerant: a choice lasso (an infinite run with {network}) {self._change()}"

    def _change(self) -> str:
        change = [f"ultimately loses {', '.join(sorted(self.lost))}"] if self.lost else []
        change += [f"ultimately gains {', '.join(sorted(self.gained))}"] if self.gained else []
        return f"{' and '.join(change)} through a message that arrives before it was caused"

    def as_dict(self) -> dict:
        counterexample = None
        if self.counterexample is not None:
            counterexample = {
                **self.counterexample.as_dict(),
                "output": sorted(model_output(self.counterexample, self.outputs)),
                "lost": sorted(self.lost),
                "gained": sorted(self.gained),
                "noncausal_messages": [m.as_dict() for m in self.counterexample.noncausal()],
            }
        lasso = lambda m: {"loop_start": m.loop_start, "period": m.period} if m.is_lasso else {}  # noqa: E731
        if counterexample is not None:
            counterexample.update(lasso(self.counterexample))
        return {
            "verdict": self.sentence(),
            "satisfiable": self.satisfiable,
            "consistent": self.consistent,
            "tolerant": self.tolerant,
            "outputs": list(self.outputs),
            "certain": _sorted(self.certain),
            "possible": _sorted(self.possible),
            "choice_certain": _sorted(self.choice_certain),
            "choice_possible": _sorted(self.choice_possible),
            "counterexample": counterexample,
            "witnesses": [{**m.as_dict(), **lasso(m), "output": sorted(out)} for m, out in self.witnesses],
            "positive": self.positive,
            "theorem": self.theorem,
            "bound": ({"horizon": None, "mode": "eventual", "max_delay": self.bounds.network.max_delay,
                       **self.bounds.network.as_dict()} if self.eventual else
                      {"horizon": self.bounds.horizon, "max_delay": self.bounds.network.max_delay}),
            **({} if not self.eventual else {
                "exact": self.exact, "K": self.K, "reason": self.reason or None,
                "consistency": {"exact": self.consistency_exact, **self.exactness.as_dict(), "semantics": "causal-finite"},
                "tolerance": None if self.choice_exactness is None else {
                    "exact": self.choice_exactness.exact, **self.choice_exactness.as_dict(), "semantics": "choice"},
            }),
            "search": self.search,
            "seconds": round(self.seconds, 4),
        }


def analyse(
    program: Program,
    instance: Instance,
    bounds: Bounds,
    outputs: tuple[str, ...] | None = None,
    timeout: float | None = None,
) -> Verdict:
    """Consistency and tolerance of P on H within `bounds` (horizon, encoding, network); raises Timeout."""
    start = time.perf_counter()
    deadline = Deadline(timeout)
    outs = outputs_of(program, outputs)
    verdict = Verdict(bounds, outs, program.positive, satisfiable=False)
    causal = Semantic(program, instance, replace(bounds, semantics=Semantics.CAUSAL_FINITE), outs)
    found = causal.consequences(deadline)
    if found is not None:
        verdict.satisfiable = True
        verdict.certain, verdict.possible = found.certain, found.possible
        choice = Semantic(program, instance, replace(bounds, semantics=Semantics.CHOICE), outs)
        chosen = choice.consequences(deadline)  # every causal model is a choice model: not None
        verdict.choice_certain, verdict.choice_possible = chosen.certain, chosen.possible
        verdict.consistent = found.certain == found.possible
        if not verdict.consistent:
            verdict.tolerant = False  # tolerance asks for consistency first (jcss2014 §3.2)
            f = min(found.possible - found.certain)
            verdict.witnesses = [
                (replace(m, number=i), model_output(m, outs))  # witness i is model i, in the text and the JSON
                for i, m in enumerate((causal.model(found.atoms[f], True, deadline), causal.model(found.atoms[f], False, deadline)), 1)
            ]
        else:
            verdict.tolerant = chosen.certain == chosen.possible == found.certain
            if not verdict.tolerant:
                lost, gained = found.certain - chosen.certain, chosen.possible - found.certain
                fact, value = (min(lost), False) if lost else (min(gained), True)
                model = choice.model(chosen.atoms[fact], value, deadline)
                verdict.counterexample = model
                verdict.lost = found.certain - model_output(model, outs)
                verdict.gained = model_output(model, outs) - found.certain
    verdict.seconds = time.perf_counter() - start
    return verdict


def analyse_eventual(
    program: Program,
    instance: Instance,
    bounds: Bounds,
    outputs: tuple[str, ...] | None = None,
    timeout: float | None = None,
    max_k: int = eventual.MAX_K,
) -> Verdict:
    """Consistency and tolerance on ultimate outputs (`cron --eventual`): `analyse` asked of the lasso models with K
    steps (`Mode.EVENTUAL`), their output facts the ultimate ones (`eventual.ultimate_rules`).

    Consistent: every causal lasso has the same ultimate output. A run that alternates between two loops holds, at
    each node, the intersection of their per-node ultimate sets, which lassos that agree on the output united over
    nodes need not share (f at node a on one loop, at node b on the other: the alternating run holds neither), so
    `per_node` closes the lassos' per-node sets under intersection and lets the explorer decide when that leaves an
    output open. The witnesses shown are the shortest (`shortest_witness`).
    Tolerant: every choice lasso has that output too. Each side is asked at its own threshold (`eventual.threshold`:
    `causal`, and `choice` only when the causal side is consistent, since an inconsistency is exact at any K), both
    at the larger K (one solve at K covers every shorter lasso). Raises Timeout."""
    start = time.perf_counter()
    deadline = Deadline(timeout)
    outs = outputs_of(program, outputs)
    settled = by_confluence(program, instance, bounds, outs, deadline, max_k)
    if settled is not None:
        settled.seconds = time.perf_counter() - start
        return settled
    causal = eventual.threshold(program, instance, replace(bounds, semantics=Semantics.CAUSAL_FINITE), max_k,
                                deadline.remaining())
    verdict = analyse(program, instance, eventual.lasso_bounds(bounds, causal.K), outs, deadline.remaining())
    choice = None
    if verdict.satisfiable and verdict.consistent:
        causal, decided = per_node(program, instance, bounds, Semantics.CAUSAL_FINITE, causal, outs, deadline)
        if decided is not None and len(decided.outputs) > 1:  # the explorer found a run alternating between loops
            longer = analyse(program, instance, eventual.lasso_bounds(bounds, max(decided.explorer_steps, causal.K)), outs,
                             deadline.remaining())  # its lasso, a closed walk through two loops, for the witnesses
            if longer.satisfiable and longer.consistent is False:
                verdict = longer
            else:
                causal = Exactness(causal.K, False, "the explorer finds ultimate outputs "
                                   f"{', '.join('{' + ', '.join(o) + '}' for o in decided.outputs)} (a run alternating "
                                   "between loops), but no lasso of its witnesses' length shows two of them")
    if verdict.satisfiable and verdict.consistent:
        choice = eventual.threshold(program, instance, replace(bounds, semantics=Semantics.CHOICE), max_k,
                                    deadline.remaining())
        choice, _ = per_node(program, instance, bounds, Semantics.CHOICE, replace(choice, K=max(choice.K, causal.K)),
                             outs, deadline)
        if choice.K > causal.K:
            verdict = analyse(program, instance, eventual.lasso_bounds(bounds, choice.K), outs, deadline.remaining())
    verdict = shortest_witness(program, instance, bounds, verdict, outs, deadline)
    verdict.exactness = causal
    verdict.choice_exactness = choice
    verdict.seconds = time.perf_counter() - start
    return verdict


def by_confluence(program: Program, instance: Instance, bounds: Bounds, outputs: tuple[str, ...], deadline: Deadline,
                  max_k: int) -> Verdict | None:
    """The eventual verdict of a confluent program (`models.confluent`): every infinite run, causal or choice, has
    the same ultimate output, so the shortest lassos there are (`models.confluent_steps`) show it, and "consistent
    and tolerant" is exact at their K, with no completeness threshold to find (under a delay bound of 2 the
    messages' delays alone make paths of distinct configurations exponentially long). None when the program is not
    confluent, has no lasso of at most `max_k` steps, or its lassos disagree (which the argument rules out; the
    thresholds then decide, and say what the lassos show)."""
    if not models.confluent(program, instance, bounds.network):
        return None
    k = models.confluent_steps(program, instance, bounds, max_k, deadline.remaining())
    if k is None:
        return None
    verdict = analyse(program, instance, eventual.lasso_bounds(bounds, k), outputs, deadline.remaining())
    if not (verdict.satisfiable and verdict.consistent and verdict.tolerant):
        return None
    verdict.exactness = verdict.choice_exactness = Exactness(k, True, "", "confluence")
    return verdict


def shortest_witness(program: Program, instance: Instance, bounds: Bounds, found: Verdict, outputs: tuple[str, ...],
                     deadline: Deadline) -> Verdict:
    """The verdict with its witnesses as short as they come: two causal lassos that ultimately differ (not
    consistent) or a choice lasso that differs from the consistent output (not tolerant) are infinite runs
    whatever their number of steps (Heljanko and Niemelä, *Bounded LTL model checking with stable models*, TPLP
    2003, §4), so the lassos of k = the fewest steps a lasso can have (`models.first_steps`), k + 1, ... are asked
    until one shows such a witness; the lassos of the verdict's K did, so the search stops there at the latest. A
    lasso of k steps stands for every shorter one, so the first k found is the shortest witness. The outputs, K
    and the exactness stay those of the verdict's K (every run's); a timeout keeps its witnesses."""
    inconsistent = found.satisfiable and found.consistent is False
    intolerant = found.satisfiable and found.consistent and found.tolerant is False
    if not (inconsistent or intolerant):
        return found
    for k in range(max(1, models.first_steps(program, instance)), found.bounds.horizon + 1):
        if deadline.remaining() is not None and deadline.remaining() <= 0:
            break
        try:
            shorter = analyse(program, instance, eventual.lasso_bounds(bounds, k), outputs, deadline.remaining())
        except Timeout:
            break
        if not shorter.satisfiable:
            continue
        if inconsistent and shorter.consistent is False:
            return replace(found, witnesses=shorter.witnesses)
        if intolerant and shorter.consistent and shorter.tolerant is False and shorter.certain == found.certain:
            return replace(found, counterexample=shorter.counterexample, lost=shorter.lost, gained=shorter.gained)
    return found


def per_node(program: Program, instance: Instance, bounds: Bounds, semantics: Semantics, found: Exactness,
             outputs: tuple[str, ...], deadline: Deadline):
    """Whether the lassos of K = `found.K` steps that agree on their ultimate output (united over nodes) decide it
    for every run: a run alternating between loops forever holds, at each node, only the intersection of their
    per-node ultimate sets, so the per-node sets the lassos have (`models.ultimate_outputs`) are closed under
    intersection; when that gives an output beyond theirs, the explorer's graph decides (causal rounds, a small
    graph), else the answer is not exact. Returns the exactness and, when the explorer decided, its answer."""
    if not found.exact:
        return found, None
    side = replace(bounds, semantics=semantics)
    ultimate = models.ultimate_outputs(program, instance, side, outputs, steps=found.K, timeout=deadline.remaining(),
                                       threshold_steps=True)
    if not ultimate.complete:
        return Exactness(found.K, False, ultimate.reason), None
    if not ultimate.exact:
        return Exactness(found.K, False, ultimate.reason), None
    if ultimate.decided_by == "explorer":
        return Exactness(found.K, True, "", "explorer"), ultimate
    return found, None


def search(
    program: Program,
    instance: Instance,
    bounds: Bounds,
    outputs: tuple[str, ...] | None = None,
    timeout: float | None = None,
    incremental_: bool = True,
) -> Verdict:
    """The smallest horizon h in 1..T with a consistency violation, a counterexample or no causal model.

    Each horizon's causal certain/possible outputs come from one multi-shot control
    (`incremental_`, each step grounded once) or, for comparison, from a program grounded from
    scratch; the choice ones are grounded from scratch (see the module docstring). Every program
    is written in the fast encoding, whatever `bounds.encoding`. The verdict at the horizon found
    (or at T) is then `analyse`d in full, for its witnesses or counterexample.
    """
    start = time.perf_counter()
    deadline = Deadline(timeout)
    outs = outputs_of(program, outputs)
    fast = replace(bounds, encoding=Encoding.FAST)
    unrolling = Unrolling(incremental(program, instance, Semantics.CAUSAL_FINITE, bounds.network, outs, bounds.horizon)) if incremental_ and not bounds.network.fail_stop else None
    steps, found = [], None
    for h in range(min(1, bounds.horizon), bounds.horizon + 1):
        began = time.perf_counter()
        causal_at, choice_at = (replace(fast, horizon=h, semantics=s) for s in (Semantics.CAUSAL_FINITE, Semantics.CHOICE))
        if unrolling is not None:
            unrolling.extend(h)
            at_h = lambda s, h=h: s.arguments[0].number == h
            certain = consequences(unrolling.control, "cautious", deadline, at_h)
            possible = None if certain is None else consequences(unrolling.control, "brave", deadline, at_h)
            causal = None if certain is None else (frozenset(map(_fact, certain)), frozenset(map(_fact, possible)))
        else:
            c = Semantic(program, instance, causal_at, outs).consequences(deadline)
            causal = None if c is None else (c.certain, c.possible)
        row = {"horizon": h, "satisfiable": causal is not None, "consistent": None, "tolerant": None}
        if causal is not None:
            row["consistent"] = row["tolerant"] = causal[0] == causal[1]
            if row["consistent"]:
                choice = Semantic(program, instance, choice_at, outs).consequences(deadline)
                row["tolerant"] = choice.certain == choice.possible == causal[0]
        row["seconds"] = round(time.perf_counter() - began, 4)
        steps.append(row)
        if not (row["consistent"] and row["tolerant"]):
            found = h
            break
    searched = time.perf_counter() - start
    remaining = deadline.remaining()
    verdict = analyse(program, instance, fast if found is None else replace(fast, horizon=found), outs, remaining)
    verdict.search = {
        "smallest_horizon": found,
        "incremental": incremental_,
        "horizons": steps,
        "seconds": round(searched, 4),
        "ground_seconds": None if unrolling is None else round(unrolling.ground_seconds, 4),
    }
    verdict.seconds = time.perf_counter() - start
    return verdict
