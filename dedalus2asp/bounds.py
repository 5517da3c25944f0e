"""The bounds of a question: how many steps, which semantics, which encoding, and how messages travel.

A stable model of a Dedalus program (Ameloot et al., *Putting logic-based distributed
systems on stable grounds*, TPLP 2016, §4) is infinite; dedalus2asp answers every question
over a **horizon** T: every node performs the local steps 0..T, and a message arrives at
one of those steps or is still in flight (*pending*) when the horizon ends.

`Network` is one value for how messages travel and what may go wrong: the delivery model
(tplp2016's asynchronous one, or Molly's synchronous rounds), the delay bound, lost messages
and crashes (docs/faults.md). `Bounds` gathers the horizon,
the semantics, the encoding and the network. Both are made once — at the command line or
for a batch job — and passed whole to the compiler, the solver, the explorer and the
inspector, which read what they need from them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum

import clingo

from .lang.ast import Instance

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


class Mode(str, Enum):
    """Which runs a question is about: a value of the question, read by the phases it passes through.

    `bounded`: the run prefixes in which every node performs the steps 0..T (the horizon), every
    message arriving at one of them or pending.
    `eventual`: the infinite runs and what they ultimately hold (jcss2014 §2.5.5: the facts that
    from some step on hold at every step), answered for every horizon at once. So far the explorer
    reads it (`explore --eventual`: the finite graph of configurations, `runs.configurations`, and
    the ultimate outputs read off its strongly connected components, `runs.eventual`); the
    transformation and the questions will read the same value, not a copy of each command.
    """

    BOUNDED = "bounded"
    EVENTUAL = "eventual"


DELIVERIES = ("async", "sync")
"""Delivery models. `async`: a message arrives after any delay (tplp2016 §4.3), bounded by
`max_delay` when one is given. `sync`: Molly's rounds (Alvaro, Rosen, Hellerstein,
*Lineage-driven fault injection*, SIGMOD 2015, §3): a message that is not lost arrives at the
addressee's next step, s + 1 for a message sent at step s."""


CRASH = "crash"
"""The relation crash(y, s), "node y crashes at step s", that holds at every node and step of a
run with crashes (Molly's convention); a program reads it like an input relation."""


def _in_range(what: str, value: int | None) -> None:
    if value is not None and not (isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_STEP):
        raise ValueError(f"the {what} must be an integer between 0 and {MAX_STEP}, not {value!r}")


def node_symbol(name: str) -> clingo.Symbol:
    """A node name of `Network.nodes` as the constant it stands for: `a`, `"a"` or `3`.

    Raises ValueError for anything else (a variable, a compound term, an empty name)."""
    try:
        symbol = clingo.parse_term(name.strip()) if name.strip() else None
    except (RuntimeError, ValueError):
        symbol = None
    constant = symbol is not None and (
        symbol.type in (clingo.SymbolType.String, clingo.SymbolType.Number)
        or (symbol.type is clingo.SymbolType.Function and not symbol.arguments and symbol.name and symbol.positive)
    )
    if not constant:
        raise ValueError(f"a node name must be a constant such as a, \"a\" or 3, not {name!r}")
    return symbol


@dataclass(frozen=True)
class Network:
    """How messages travel, and which faults a run may suffer.

    delivery: the delivery model (`DELIVERIES`): `async` (tplp2016) or `sync` (Molly's rounds:
      a message that is not lost arrives at step s + 1, or is pending when s + 1 > T).
    max_delay: the delay bound D of `async`, or None for none. A message sent at step s arrives
      at a step t <= s + D, and may still be pending at the horizon T only when s + D > T: the
      bounded stand-in for fairness ("every message is eventually delivered").
    loss_until: E, or None for no omission: a message from x to another node y sent at a step
      s < E may be lost — it neither arrives nor is pending (Molly's `--eff F` is E = F - 1, as
      Molly counts time from 1).
    crashes: C: up to C nodes crash, each at a step it chooses; from that step on its messages
      to other nodes are lost, while it keeps its state and its messages to itself (Molly's
      crash-stop model). `crash(y, s)` ("y crashes at step s") then holds at every node and step.
    nodes: names of nodes of the network besides those the input names (Molly's `-N`): each
      becomes a node with no input facts.
    """

    delivery: str = "async"
    max_delay: int | None = None
    loss_until: int | None = None
    crashes: int = 0
    nodes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.delivery not in DELIVERIES:
            raise ValueError(f"the delivery model must be one of {', '.join(DELIVERIES)}, not {self.delivery!r}")
        _in_range("delay bound", self.max_delay)
        if self.delivery == "sync" and self.max_delay is not None:
            raise ValueError(
                "a delay bound applies to async delivery only: under sync delivery every message that is not "
                "lost arrives at the next step (drop --max-delay, or use --delivery async)"
            )
        _in_range("loss window E (messages sent before step E may be lost)", self.loss_until)
        _in_range("number of crashes", self.crashes)
        object.__setattr__(self, "nodes", tuple(self.nodes))
        for name in self.nodes:
            node_symbol(name)
        if len(set(self.nodes)) != len(self.nodes):
            twice = sorted({n for n in self.nodes if self.nodes.count(n) > 1})
            raise ValueError(f"the node list names {', '.join(twice)} more than once")

    @property
    def sync(self) -> bool:
        return self.delivery == "sync"

    @property
    def delay_bound(self) -> int | None:
        """The largest delay: 1 under `sync` (a message arrives at step s + 1), else `max_delay`."""
        return 1 if self.sync else self.max_delay

    @property
    def lossy(self) -> bool:
        """Whether some message may be lost to an omission (a loss window E > 0)."""
        return bool(self.loss_until)

    @property
    def faulty(self) -> bool:
        """Whether a run may lose a message: omissions or crashes."""
        return self.lossy or self.crashes > 0

    def may_pend(self, sent: int, horizon: int) -> bool:
        """Whether a message sent at step `sent` (and not lost) may still be in flight after step `horizon`."""
        bound = self.delay_bound
        return bound is None or sent + bound > horizon

    def may_lose(self, sent: int) -> bool:
        """Whether a message to another node, sent at step `sent` by a node that has not crashed, may be lost."""
        return self.loss_until is not None and sent < self.loss_until

    def populate(self, instance: Instance | None) -> Instance | None:
        """The instance H with a node of no input facts for every name of `nodes` it lacks (Molly's -N)."""
        if not self.nodes:
            return instance
        facts = dict(instance.facts) if instance is not None else {}
        for name in self.nodes:
            facts.setdefault(node_symbol(name), ())
        return Instance(facts) if instance is None else replace(instance, facts=facts)

    def describe(self) -> str:
        """The network in words, for verdicts and reports: "delay ≤ 2", "no delay bound",
        "sync delivery, losses before step 3, ≤ 1 crash"."""
        words = ["sync delivery" if self.sync else "no delay bound" if self.max_delay is None else f"delay ≤ {self.max_delay}"]
        return ", ".join(words + self.fault_words())

    def fault_words(self) -> list[str]:
        """The fault budget in words ([] without faults): "losses before step 3", "≤ 1 crash"."""
        words = []
        if self.lossy:
            words.append(f"losses before step {self.loss_until}")
        if self.crashes:
            words.append(f"≤ {self.crashes} crash" + ("" if self.crashes == 1 else "es"))
        return words

    def as_dict(self) -> dict:
        """The fault keys the JSON outputs add to a bounds' (only those that differ from the fault-free async network)."""
        out: dict = {}
        if self.sync:
            out["delivery"] = self.delivery
        if self.loss_until is not None:
            out["loss_until"] = self.loss_until
        if self.crashes:
            out["crashes"] = self.crashes
        if self.nodes:
            out["nodes"] = list(self.nodes)
        return out


@dataclass(frozen=True)
class Bounds:
    """The horizon T, the semantics, the encoding, the network and the mode of one question."""

    horizon: int
    semantics: Semantics = Semantics.CAUSAL_FINITE
    encoding: Encoding = Encoding.FAST
    network: Network = field(default_factory=Network)
    mode: Mode = Mode.BOUNDED

    def __post_init__(self) -> None:
        _in_range("horizon", self.horizon)
        object.__setattr__(self, "semantics", Semantics(self.semantics))
        object.__setattr__(self, "encoding", Encoding(self.encoding))
        object.__setattr__(self, "mode", Mode(self.mode))

    def describe(self) -> str:
        """The horizon and the network in words: "horizon 3, delay ≤ 2"; "horizon 3" without a bound or faults;
        in the eventual mode "every horizon, sync delivery" (the horizon is not read)."""
        network = self.network
        if self.mode is Mode.EVENTUAL:
            return f"every horizon, {network.describe()}"
        words = [] if not network.sync and network.max_delay is None else [network.describe()]
        if not words:
            words = network.fault_words()
        return ", ".join([f"horizon {self.horizon}", *words])

    def as_dict(self) -> dict:
        """The bounds as the JSON outputs write them (docs/trace-schema.md)."""
        return {
            "semantics": self.semantics.value,
            "encoding": self.encoding.value,
            "horizon": self.horizon,
            "max_delay": self.network.max_delay,
            **self.network.as_dict(),
        }
