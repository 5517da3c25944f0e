"""The bounds of a question: how many steps, which semantics, which encoding, and how messages travel.

A stable model of a Dedalus program (Ameloot et al., *Putting logic-based distributed
systems on stable grounds*, TPLP 2016, §4) is infinite; dedalus2asp answers every question
over a **horizon** T: every node performs the local steps 0..T, and a message arrives at
one of those steps or is still in flight (*pending*) when the horizon ends.

`Network` is one value for how messages travel: the delivery model and the delay bound
(and, as the fault model grows, lost messages and crashes). `Bounds` gathers the horizon,
the semantics, the encoding and the network. Both are made once — at the command line or
for a batch job — and passed whole to the compiler, the solver, the explorer and the
inspector, which read what they need from them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

MAX_STEP = 2**30
"""The largest horizon and delay bound: clingo's integers have 32 bits, and the generated
programs add a step and a delay (S+D) or a step and one (tsucc)."""


class Semantics(str, Enum):
    """The three transformations of tplp2016 §4: pure_ch (§4.3), pure_ca (§4.4) and pure (§4.5)."""

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
    """How the program is written: rule by rule as in tplp2016 (`paper`), or with clingo's constructs (`fast`)."""

    PAPER = "paper"
    FAST = "fast"


DELIVERIES = ("async",)
"""Delivery models. `async`: a message arrives after any delay (tplp2016 §4.3), bounded by
`max_delay` when one is given."""


def _in_range(what: str, value: int | None) -> None:
    if value is not None and not (isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_STEP):
        raise ValueError(f"the {what} must be an integer between 0 and {MAX_STEP}, not {value!r}")


@dataclass(frozen=True)
class Network:
    """How messages travel.

    delivery: the delivery model (`DELIVERIES`).
    max_delay: the delay bound D, or None for none. A message sent at step s arrives at a
      step t <= s + D, and may still be pending at the horizon T only when s + D > T: the
      bounded stand-in for fairness ("every message is eventually delivered").
    """

    delivery: str = "async"
    max_delay: int | None = None

    def __post_init__(self) -> None:
        if self.delivery not in DELIVERIES:
            raise ValueError(f"the delivery model must be one of {', '.join(DELIVERIES)}, not {self.delivery!r}")
        _in_range("delay bound", self.max_delay)

    def may_pend(self, sent: int, horizon: int) -> bool:
        """Whether a message sent at step `sent` may still be in flight after step `horizon`."""
        return self.max_delay is None or sent + self.max_delay > horizon

    def describe(self) -> str:
        """The network in words, for verdicts and reports: "delay ≤ 2", "no delay bound"."""
        return "no delay bound" if self.max_delay is None else f"delay ≤ {self.max_delay}"


@dataclass(frozen=True)
class Bounds:
    """The horizon T, the semantics, the encoding and the network of one question."""

    horizon: int
    semantics: Semantics = Semantics.CAUSAL_FINITE
    encoding: Encoding = Encoding.FAST
    network: Network = field(default_factory=Network)

    def __post_init__(self) -> None:
        _in_range("horizon", self.horizon)
        object.__setattr__(self, "semantics", Semantics(self.semantics))
        object.__setattr__(self, "encoding", Encoding(self.encoding))

    def describe(self) -> str:
        """The horizon and the delay bound in words: "horizon 3, delay ≤ 2"; "horizon 3" without a bound."""
        return f"horizon {self.horizon}" + ("" if self.network.max_delay is None else f", {self.network.describe()}")

    def as_dict(self) -> dict:
        """The bounds as the JSON outputs write them (docs/trace-schema.md)."""
        return {
            "semantics": self.semantics.value,
            "encoding": self.encoding.value,
            "horizon": self.horizon,
            "max_delay": self.network.max_delay,
        }
