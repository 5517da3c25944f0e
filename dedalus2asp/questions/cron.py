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

The same questions on ultimate outputs, over infinite runs (`cron --eventual`), are `cron_eventual`'s; their
verdict is this module's `Verdict` with its `exactness` set.
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
from ..lang.lamport import undo
from . import eventual
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
    original: "Verdict | None" = None
    """On a Lamport rewrite (`lamport.undo`): the verdict on the program it was made from, within the same bounds."""
    clock: str | None = None
    """On a Lamport rewrite asked --eventual: the rule that advances its clock (`lamport.clock_rule`), named."""
    growing: str | None = None  # --eventual: a rule that computes new values without bound, `file:line:col: rule`
    runs: list = field(default_factory=list)
    """--eventual, not consistent through a run whose nodes' clocks drift apart (`free_clocks.verdict`): the two
    explorer runs (`runs.eventual.Lasso`, each with its ultimate output) that differ, instead of two lasso models."""
    bounded_horizon: int | None = None
    """--eventual, not tolerant by a bounded run: the horizon T at which bounded `cron -T T` finds the choice model
    `counterexample` (`cron_eventual.bounded_tolerance`); no infinite choice run was shown to differ, so not exact."""

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
    def tolerance_exact(self) -> bool | None:
        """Whether the tolerance answer holds of every infinite run (None: not asked): "not tolerant" always does (a
        choice lasso whose ultimate output differs from the consistent one is an infinite run, at any K, as "not
        consistent" is); "tolerant" when the choice K is the completeness threshold of the choice lassos."""
        if self.choice_exactness is None:
            return None
        return self.choice_exactness.exact or (self.satisfiable and self.consistent and self.tolerant is False
                                               and self.bounded_horizon is None)

    @property
    def exact(self) -> bool | None:
        """Whether the whole eventual verdict holds of every infinite run: consistency exact and, when it was asked,
        the tolerance. None for a bounded verdict. The text and the JSON both say this value, and each side's."""
        if self.exactness is None:
            return None
        return self.consistency_exact and self.tolerance_exact is not False

    @property
    def reason(self) -> str:
        """Why an eventual verdict is not exact, in words ("" when it is)."""
        if self.exact or self.exactness is None:
            return ""
        sides = [("causal lassos, consistency", self.exactness, self.consistency_exact),
                 ("choice lassos, tolerance", self.choice_exactness, self.tolerance_exact)]
        return "; ".join(f"{side}: {e.reason}" for side, e, exact in sides if e is not None and not exact)

    def side(self, exactness: Exactness, exact: bool, semantics: str) -> dict:
        """One side's exactness in the JSON: a side made exact by its witness (an infinite run, whatever K) says so."""
        found = exactness.as_dict()
        if exact and not exactness.exact:
            found.update(exact=True, reason=None, decided_by="witness")
        return {**found, "semantics": semantics}

    @property
    def theorem(self) -> str | None:
        """jcss2014 Theorem 4.1 (positive and consistent ⇒ tolerant, over unbounded fair runs), when it applies."""
        if not self.positive or not self.satisfiable:
            return None
        if not self.consistent:
            return "positive but not consistent: jcss2014 Theorem 4.1 does not apply"
        if self.eventual and self.exact and self.consistent and not self.tolerant and self._grouped():
            return ("positive and consistent over every infinite run, yet not tolerant: the choice run shown receives "
                    "infinitely many messages at one step (every pass of its loop sends one that arrives before the "
                    "loop), tplp2016 §4.4.3's infinite grouping, which the causal-finite semantics excludes (rules "
                    "(11)-(14)) and the choice semantics allows; the difference with the theorem lies there")
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

    def _grouped(self) -> bool:
        """Whether the counterexample is a certified choice run (`runs.choice_certificate`) whose loop sends a message
        that arrives before the loop: on every pass one more arrives at that step, infinitely many in all."""
        m = self.counterexample
        certified = self.choice_exactness is not None and self.choice_exactness.decided_by == "choice-over-certified"
        return bool(certified and m is not None and m.is_lasso and any(
            x.sent >= m.loop_start and x.unrolled is not None and x.unrolled < m.loop_start for x in m.messages))

    @property
    def answer(self) -> bool:
        """Yes (exit 0) only for consistent and tolerant, and, on a Lamport rewrite, an original that is consistent:
        the rewrite removes causal runs, so its own consistency does not clear a race of the original."""
        return bool(self.consistent and self.tolerant and (self.original is None or self.original.consistent))

    def original_sentence(self) -> str | None:
        """On a Lamport rewrite: the original's verdict, and what it means for the rewrite's (None otherwise)."""
        if self.original is None:
            return None
        said = f"the original program (the Lamport rewrite undone): {self.original.sentence()}"
        if self.original.satisfiable and not self.original.consistent:
            return (said + ". That is a race, not non-causality: the rewrite delivers a message only at a step after "
                    "its send step, which removes causal runs, so the rewrite's answer does not clear the original")
        return said

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
            if self.clock is not None:  # a Lamport rewrite: its clock, not the network, leaves no lasso
                return (f"{label}no infinite causal run {runs}: the rewrite's Lamport clock grows by one at every step "
                        f"({self.clock}), so no run returns to a state it was in and none has an ultimate output "
                        "(the bounded cron answers the rewrite; the original's eventual answer follows)")
            elif self.growing:  # the cause is the values, not the delays
                return (f"{label}no infinite causal run {runs}: a value grows without bound at {self.growing} (a clock "
                        "that counts forever never repeats a configuration, so no run is a lasso), so there is no "
                        "ultimate output to compare")
            return (f"{label}no infinite causal run {runs}: every run gets stuck (a message can never meet its "
                    "delay bound), so there is no ultimate output to compare")
        if not self.consistent and self.runs:
            differ = sorted(self.runs[0][1] ^ self.runs[1][1])
            return (f"not consistent: an infinite causal run with {network} whose nodes' clocks drift apart for its "
                    f"first steps ultimately differs from a run in rounds on {', '.join(differ)}")
        if not self.consistent:
            differ = sorted(self.witnesses[0][1] ^ self.witnesses[1][1])
            return f"not consistent: two infinite causal runs (lassos) with {network} ultimately differ on {', '.join(differ)}"
        drift = self.exactness.free_clocks
        if drift is not None and not self.consistency_exact:
            tolerance = (f"and tolerant {self._tolerated(self.K)}" if self.tolerant
                         else f"but not tolerant: a choice lasso (an infinite run) {self._change()}"
                         if self.bounded_horizon is None else f"but not tolerant (bounded: {self._bounded()})")
            return (f"not exact: consistent over every infinite run in rounds with {network}"
                    + (f" and over those whose nodes' clocks drift apart up to step {drift} (then in rounds)" if drift >= 0
                       else "") + f", {tolerance}")
        if self.bounded_horizon is not None:  # a bounded choice model differs; an infinite run's prefix when latched
            if self.tolerance_exact:
                return f"consistent but not tolerant: {self._bounded()}"
            return f"consistent but not tolerant (bounded: {self._bounded()})"
        if not self.exact and self.consistency_exact:  # tolerant within the choice lassos asked, not beyond
            label = "not exact" if self.choice_exactness.decided_by == "choice-graph" else "bounded, not exact"
            return (f"consistent over every infinite run with {network} (exact); tolerant "
                    f"{self._tolerated(self.choice_exactness.K)} only ({label})")
        if self.tolerant and self.exact:
            return f"consistent and tolerant: every infinite causal and choice run with {network} has the same ultimate output"
        if self.tolerant:
            return (f"{label}consistent and tolerant over the causal and choice lassos of at most {self.K} steps with "
                    f"{network}: they all have the same ultimate output")
        return f"{label}consistent but not tolerant: a choice lasso (an infinite run with {network}) {self._change()}"

    def _tolerated(self, K: int) -> str:
        """Over which choice runs "tolerant" was found, in words (the lassos of at most K steps, unless the choice runs'
        graph decided)."""
        if self.choice_exactness is not None and self.choice_exactness.decided_by == "choice-graph":
            d = self.bounds.network.max_delay
            return f"over every choice run whose messages arrive at most {d} step{'s' * (d != 1)} before their send"
        return f"over the choice lassos of at most {K} steps"

    def _bounded(self) -> str:
        """A bounded counterexample to tolerance, in words (`bounded_horizon`); with `decided_by == "latched"` the
        prefix of an infinite choice run (`cron_eventual.latched`)."""
        said = (f"a choice model up to horizon {self.bounded_horizon} with {self.bounds.network.describe()} "
                f"{self._change(ultimately=False)}, as cron -T {self.bounded_horizon} finds it")
        if self.choice_exactness is not None and self.choice_exactness.decided_by == "latched":
            return (f"{said}; what it gains persists once derived (persist rule), so every infinite choice run that "
                    "continues it ultimately has it, and no causal run does")
        return f"{said}; no infinite choice run was shown to differ"

    def _change(self, ultimately: bool = True) -> str:
        how = "ultimately " if ultimately else ""
        change = [f"{how}loses {', '.join(sorted(self.lost))}"] if self.lost else []
        change += [f"{how}gains {', '.join(sorted(self.gained))}"] if self.gained else []
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
            **({"runs": [{**run.as_dict(), "output": sorted(out)} for run, out in self.runs]} if self.runs else {}),
            "positive": self.positive,
            "theorem": self.theorem,
            "bound": ({"horizon": None, "mode": "eventual", "max_delay": self.bounds.network.max_delay,
                       **self.bounds.network.as_dict()} if self.eventual else
                      {"horizon": self.bounds.horizon, "max_delay": self.bounds.network.max_delay}),
            **({} if not self.eventual else {
                "exact": self.exact, "K": self.K, "reason": self.reason or None,
                "consistency": self.side(self.exactness, self.consistency_exact, "causal-finite"),
                "tolerance": None if self.choice_exactness is None else {**self.side(
                    self.choice_exactness, self.tolerance_exact, "choice"),
                    **({} if self.bounded_horizon is None else {"bounded_horizon": self.bounded_horizon})},
            }),
            **({"growing": self.growing} if self.growing else {}),
            "search": self.search,
            **({} if self.original is None else {"original": self.original.as_dict()}),
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
    original = undo(program)
    if original is not None and bounds.mode is not Mode.EVENTUAL:  # analyse_eventual asks the original itself
        verdict.original = analyse(original, instance, bounds, outs, deadline.remaining())
    verdict.seconds = time.perf_counter() - start
    return verdict


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
