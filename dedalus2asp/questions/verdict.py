"""The answer of `verify`, as values: the `Verdict` (holds, broken or unknown, within its bounds), its
`Counterexample` run (the `Lost` messages, the `Crash`es, the `Missing` post rows) and, for `--all`, the
minimal `FaultSet`s (Molly's "failure specifications", LDFI §3). The formats and the batch read them through
their attributes and `as_dict`; how they are found (the optimisation over the fault-injected program) is
`verify`'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Iterable

import clingo

from ..bounds import Bounds, Network
from .eventual import Exactness
from ..inspect.model import Model
from ..lang.ast import GLOBAL_NODE


def send_key(message) -> tuple:
    """A message (an `inspect.model.Message` or a `Lost`) by its send: (sender, sent, addressee, relation, args)."""
    return (message.sender, message.sent, message.addressee, message.relation, message.args)


@dataclass(frozen=True)
class Lost:
    """A message R(args) that `sender` sent at its step `sent` to `addressee`, and that was lost: to an
    omission, or (`by_crash`) because its sender had crashed."""

    sender: clingo.Symbol
    sent: int
    addressee: clingo.Symbol
    relation: str
    args: tuple[clingo.Symbol, ...]
    by_crash: bool = False

    def as_dict(self) -> dict:
        return {"from": str(self.sender), "sent": self.sent, "to": str(self.addressee), "relation": self.relation,
                "args": [str(a) for a in self.args], "by_crash": self.by_crash}

    def __str__(self) -> str:
        fact = f"{self.relation}({', '.join(map(str, self.args))})"
        return f"{fact} from {self.sender} at step {self.sent} to {self.addressee}" + (" (crashed)" if self.by_crash else "")


@dataclass(frozen=True)
class Crash:
    """`node` crashed at `step`: from then on its messages to other nodes were lost."""

    node: clingo.Symbol
    step: int

    def as_dict(self) -> dict:
        return {"node": str(self.node), "step": self.step}

    def __str__(self) -> str:
        return f"{self.node} at step {self.step}"


def fault_count(lost: Iterable[Lost], crashes: tuple[Crash, ...], network: Network) -> int:
    """Omissions and crashes: a message lost because its sender had crashed is no fault of its own; when an
    omission cuts a channel (Molly's model), the messages of one channel at one step are one fault."""
    omitted = [l for l in lost if not l.by_crash]
    if network.by_channel:
        return len({(l.sender, l.sent, l.addressee) for l in omitted}) + len(crashes)
    return len(omitted) + len(crashes)


@dataclass(frozen=True)
class Missing:
    """A `pre` row at the last step with no matching `post` row (`args`: the row, a located relation's
    location first); `node`: None (a row names its node in its columns). `step`: in a lasso counterexample
    (eventual mode), the first step of the loop at which the row lacks its post row; None at the last step."""

    node: clingo.Symbol | None
    relation: str
    args: tuple[clingo.Symbol, ...]
    step: int | None = None

    def as_dict(self) -> dict:
        return {"node": None if self.node is None else str(self.node), "relation": self.relation,
                "args": [str(a) for a in self.args], **({} if self.step is None else {"step": self.step})}

    def __str__(self) -> str:
        fact = f"{self.relation}({', '.join(map(str, self.args))})"
        fact = fact if self.node is None else f"{fact} at {self.node}"
        return fact if self.step is None else f"{fact} (at loop step {self.step})"


@dataclass(frozen=True)
class Counterexample:
    """A run that breaks the invariant: its faults, the unmatched `pre` facts, and the run itself.

    `fewest`: the solver proved that no counterexample has fewer faults (False when it was stopped
    before it could). `lineage`: why each missing post fact was expected, its derivation in a run
    where it holds (`lineage.Expected`, one per missing row), once `lineage.attach`
    computed it."""

    lost: tuple[Lost, ...]
    crashes: tuple[Crash, ...]
    missing: tuple[Missing, ...]
    model: Model = field(compare=False, repr=False)
    fewest: bool = True
    lineage: tuple = field(default=(), compare=False, repr=False)

    @property
    def faults(self) -> int:
        return fault_count(self.lost, self.crashes, self.model.bounds.network)

    def as_dict(self) -> dict:
        arrived = [m for m in self.model.messages if m.arrives is not None]
        lost = {send_key(l) for l in self.lost}
        pending = [m for m in self.model.messages if m.arrives is None and send_key(m) not in lost]
        return {
            **({"loop_start": self.model.loop_start, "period": self.model.period} if self.model.is_lasso else {}),
            "lost": [l.as_dict() for l in self.lost],
            "crashes": [c.as_dict() for c in self.crashes],
            "missing": [m.as_dict() for m in self.missing],
            "faults": self.faults,
            "fewest_faults": self.fewest,
            "messages": [
                {"from": str(m.sender), "sent": m.sent, "to": str(m.addressee), "arrives": m.arrives,
                 "relation": m.relation, "args": [str(a) for a in m.args]}
                for m in arrived
            ],
            "pending": [
                {"from": str(m.sender), "sent": m.sent, "to": str(m.addressee), "relation": m.relation,
                 "args": [str(a) for a in m.args]}
                for m in pending
            ],
            "trace": [
                {"node": None if node == GLOBAL_NODE else str(node), "step": step, "relation": relation,
                 "args": [str(a) for a in args]}
                for node, step, relation, args in sorted(self.model.trace, key=lambda f: (str(f[0]), f[1], f[2], f[3]))
            ],
            **({"lineage": [e.as_dict() for e in self.lineage]} if self.lineage else {}),
        }


@dataclass(frozen=True)
class FaultSet:
    """A set of faults (omissions and crashes) with which some run breaks the invariant, and no smaller subset does."""

    omissions: tuple[Lost, ...]
    crashes: tuple[Crash, ...]

    def as_dict(self) -> dict:
        return {"lost": [l.as_dict() for l in self.omissions], "crashes": [c.as_dict() for c in self.crashes]}

    def __str__(self) -> str:
        parts = [f"lost {l}" for l in self.omissions] + [f"crash of {c}" for c in self.crashes]
        return "; ".join(parts) or "no fault"


SHOWN_FAULT_SETS = 5
"""How many minimal fault sets (`verify --all`) the text verdict lists; --json and --out list them all."""


@dataclass(frozen=True)
class Verdict:
    """The answer to `verify`: holds (True), broken (False, with a counterexample) or unknown (None: stopped).

    `complete`: the solver finished (a proof that the invariant holds, or that the counterexample has
    the fewest faults). `searched`: the horizons tried by a search, the last one the verdict's."""

    holds: bool | None
    counterexample: Counterexample | None
    complete: bool
    bounds: Bounds
    pre: str
    post: str
    seconds: float
    searched: tuple[int, ...] = ()
    fault_sets: tuple[FaultSet, ...] | None = None  # --all: the minimal fault sets that break the invariant
    witnesses: tuple[Counterexample, ...] = field(default=(), compare=False, repr=False)  # a run per fault set
    search: str | None = None  # --search-horizon: how the horizons were tried (verify_search: multi-shot or one program each)
    vacuous: bool = False  # it holds since no run within the bounds (a search: at its largest horizon) has a pre row at the last step
    exactness: "Exactness | None" = None  # --eventual: K, the lasso length asked, and whether it is the completeness threshold
    bounded_run: bool = False  # --eventual, deepened: the counterexample is verify --eot K's run, no lasso

    @property
    def eventual(self) -> bool:
        """An answer for the infinite runs (`verify --eventual`), asked of the lassos of K steps."""
        return self.exactness is not None

    def bound_words(self) -> str:
        """The bounds of the verdict in words: "≤ 1 crash, losses before step 3, horizon 5, sync delivery"; an
        eventual verdict has no horizon: "every horizon"."""
        network = self.bounds.network
        words = [f"≤ {network.crashes} crash" + ("" if network.crashes == 1 else "es") if network.crashes else "no crash"]
        words.append(f"losses before step {network.loss_until}" if network.lossy else "no lost message")
        if self.eventual:
            words.append("every horizon")
        else:
            words.append(("horizons " + ", ".join(map(str, self.searched))) if len(self.searched) > 1 else f"horizon {self.bounds.horizon}")
        words.append("sync delivery" if network.sync else ("no delay bound" if network.max_delay is None else f"delay ≤ {network.max_delay}"))
        return ", ".join(words + network.model_words())

    def describe(self) -> str:
        """The verdict in words, with its bounds."""
        if self.eventual:
            return self.describe_eventual()
        invariant = f"every {self.pre} fact has its {self.post} fact at the last step"
        searched = f"  searched: {self.search}\n" if self.search else ""
        if self.holds is None:
            return f"unknown: stopped before an answer ({self.bound_words()}); {invariant}?\n" + searched
        if self.holds and self.vacuous:  # searched: at the largest horizon, T, the last step of its runs
            where = f"at horizon {self.bounds.horizon} " if len(self.searched) > 1 else ""
            return (f"holds vacuously: no run {where}has a {self.pre} fact at the last step, so {invariant} — with "
                    f"{self.bound_words()} (is '{self.pre}' derived where you expect, at nodes of the network?)\n" + searched)
        if self.holds:
            return f"holds: {invariant} — no counterexample with {self.bound_words()}\n" + searched
        c = self.counterexample
        lines = [
            f"counterexample at horizon {self.bounds.horizon} ({self.bound_words()}): "
            f"{', '.join(map(str, c.missing))} without "
            + (f"its {self.post} fact" if len(c.missing) == 1 else f"their {self.post} facts"),
            f"  faults: {c.faults}" + ("" if c.fewest else " (not proven to be the fewest: stopped)")
            + ("" if c.faults or not c.fewest else " — it breaks without any fault"),
        ]
        lines += self._fault_sets_lines("")
        lines += self._faults_and_lineage(c)
        return "\n".join(lines) + "\n" + searched

    def _fault_sets_lines(self, within: str) -> list[str]:
        """With --all: how many minimal fault sets break the invariant (`within`: where they were looked for), the
        first SHOWN_FAULT_SETS of them, and the line that introduces the counterexample."""
        if self.fault_sets is None:
            return []
        n = len(self.fault_sets)
        return [f"  {n} minimal fault set{'s' * (n != 1)} break{'s' * (n == 1)} it{within}"
                + (f"; the first {SHOWN_FAULT_SETS} (all of them in --json and --out):" if n > SHOWN_FAULT_SETS else ":"),
                *(f"    {{{f}}}" for f in self.fault_sets[:SHOWN_FAULT_SETS]),
                "  the counterexample, with the fewest faults:"]

    @staticmethod
    def _faults_and_lineage(c: Counterexample) -> list[str]:
        lines = [f"  lost: {l}" for l in c.lost if not l.by_crash]
        for x in c.crashes:
            silenced = sum(1 for l in c.lost if l.by_crash and l.sender == x.node)
            lines.append(f"  crashed: {x}" + (f" ({silenced} message{'s' * (silenced != 1)} to other nodes lost)" if silenced else ""))
        if c.lineage:
            lines += describe(c.lineage)
        return lines

    def describe_eventual(self) -> str:
        """An eventual verdict in words (`verify --eventual`): holds for every infinite run, holds vacuously, or a
        lasso counterexample; then whether it is exact, with K."""
        invariant = f"every {self.pre} fact is ultimately matched by its {self.post} fact"
        exactness = self.exactness
        how = f"  {exactness.words()}"
        if self.holds is None:
            return (f"unknown: stopped before an answer ({self.bound_words()}); {invariant} in every infinite run?\n"
                    + how + "\n")
        scope = "every infinite run" if exactness.exact else f"every lasso of at most {exactness.K} steps"
        if self.holds and self.vacuous:
            return (f"holds vacuously: in {scope} the {self.pre} facts stop for good after some step, so no {self.pre} "
                    f"fact waits forever for its {self.post} fact — with {self.bound_words()} (is '{self.pre}' derived "
                    "where you expect, at nodes of the network?)\n" + how + "\n")
        if self.holds:
            return (f"holds: {invariant} (from some step on, no step has a {self.pre} fact without its {self.post} fact) "
                    f"in {scope} — no lasso counterexample with {self.bound_words()}\n" + how + "\n")
        c = self.counterexample
        model = c.model
        if self.bounded_run:
            return self._bounded_run(c, invariant)
        lines = [
            f"counterexample, an infinite run ({self.bound_words()}): {', '.join(map(str, c.missing))} without "
            + (f"its {self.post} fact" if len(c.missing) == 1 else f"their {self.post} facts")
            + " at every repetition of the loop",
            f"  lasso: {_steps(0, model.loop_start - 1)} once, then {_steps(model.loop_start, model.horizon)} forever "
            f"(loop start {model.loop_start}, period {model.period})" if model.loop_start else
            f"  lasso: {_steps(0, model.horizon)} forever (loop start 0, period {model.period})",
            f"  faults: {c.faults}" + ("" if c.fewest else " (not proven to be the fewest: "
                                        + ("stopped)" if exactness.exact else f"only among lassos of ≤ {exactness.K} steps)"))
            + ("" if c.faults or not c.fewest else " — it breaks without any fault"),
            "  exact: a lasso is an infinite run, so the invariant fails whatever the horizon"
            + (" (decided by the explorer's configuration graph, explore --eventual --pre/--post: no run breaks it "
               "with fewer faults)" if exactness.exact and exactness.decided_by == "graph" else
               f" (K = {exactness.K}, the completeness threshold: no run breaks it with fewer faults)" if exactness.exact
               else f" (K = {exactness.K} is not the completeness threshold: {exactness.reason})"),
        ]
        lines += self._fault_sets_lines(f" within lassos of ≤ {exactness.K} steps")
        lines += self._faults_and_lineage(c)
        return "\n".join(lines) + "\n"

    def _bounded_run(self, c: Counterexample, invariant: str) -> str:
        """A deepened eventual verdict's counterexample that is no lasso: a run of K steps, as `verify --eot K` finds
        it, whose pre row lacks its post row at the last step; no lasso shows it lacking it forever."""
        steps = self.bounds.horizon + 1
        lines = [
            f"counterexample, a bounded run of {steps} steps ({replace(self, exactness=None).bound_words()}, as "
            f"verify --eot {steps} finds it): "
            f"{', '.join(map(str, c.missing))} without " + (f"its {self.post} fact" if len(c.missing) == 1 else
                                                           f"their {self.post} facts") + " at its last step",
            f"  faults: {c.faults}" + ("" if c.faults else " — it breaks without any fault"),
            f"  bounded, not exact: no lasso of at most {self.exactness.K} steps shows it unmatched forever, so "
            f"whether {invariant} in every infinite run is not known ({self.exactness.reason})",
        ]
        window = self.bounds.network.loss_until
        if window is not None and steps <= window:
            lines.append(f"  its last step, {steps - 1}, lies within the loss window (losses before step {window}): a "
                         f"later step may still deliver the {self.post} fact, so it shows no run that lacks it forever")
        lines += self._fault_sets_lines(f" within runs of {steps} steps")
        return "\n".join(lines + self._faults_and_lineage(c)) + "\n"

    @property
    def exact(self) -> bool | None:
        """Whether an eventual verdict holds of every infinite run: a lasso counterexample always does; "holds" when
        K is the completeness threshold; a bounded run (`bounded_run`) never. None for a bounded verdict."""
        if self.exactness is None:
            return None
        return self.exactness.exact or (self.holds is False and not self.bounded_run)

    def as_dict(self) -> dict:
        network = self.bounds.network
        eventual = {} if self.exactness is None else {
            "mode": "eventual", "exact": self.exact, "K": self.exactness.K,
            "reason": None if self.exact else self.exactness.reason, "threshold_exact": self.exactness.exact,
            "bounded_run": self.bounded_run,
        }
        return {
            "holds": self.holds,
            **eventual,
            **({"vacuous": self.vacuous} if self.holds else {}),
            "counterexample": None if self.counterexample is None else self.counterexample.as_dict(),
            "complete": self.complete,
            "bound": {
                **self.bounds.as_dict(),
                **({"horizon": None, "mode": "eventual"} if self.exactness is not None else {}),
                "delivery": network.delivery,
                "loss_until": network.loss_until,
                "crashes": network.crashes,
                **({"nodes": [str(n) for n in network.nodes]} if network.nodes else {}),  # --nodes (Molly's -N)
                "pre": self.pre,
                "post": self.post,
                **({"searched": list(self.searched)} if self.searched else {}),
                **({"search": self.search} if self.search else {}),
            },
            **({} if self.fault_sets is None else {"minimal_fault_sets": [f.as_dict() for f in self.fault_sets]}),
            "verdict": self.describe().splitlines()[0],
            "seconds": round(self.seconds, 3),
        }


def _steps(first: int, last: int) -> str:
    """"steps 2..4", or "step 2" when there is one."""
    return f"step {first}" if first == last else f"steps {first}..{last}"


def describe(entries: tuple, indent: str = "  ") -> list[str]:
    """The compact trees of the lineage of each missing post fact (`lineage.Expected`), then the rules they name, once."""
    lines, rules = [], {}
    for entry in entries:
        more, used = entry.tree(indent)
        lines += more
        rules.update(used)
    return lines + [f"{indent}  rule {n}: {rule}" for n, rule in sorted(rules.items())]
