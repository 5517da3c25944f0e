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

import re
from dataclasses import dataclass, field, replace
from enum import Enum

import clingo

from .lang.ast import Constant, Fact, Instance, Program

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


OMISSIONS = ("message", "channel")
"""What one omission loses. `message`: one message (two messages from x to y sent at one step may
suffer different fates). `channel`: every message from x to y sent at one step, together — Molly's
model (Alvaro, Rosen, Hellerstein, SIGMOD 2015; its failure specification omits the clock fact of
a channel at a time, so every message on it at that time is lost)."""

CRASH_TIMES = ("any", "after-send")
"""When a node may crash. `any`: at any step 0..T. `after-send`: Molly's candidates — only at a step
0..T-1 (Molly's times up to EOT-1) at or after one at which the node sends a message to another
node; a crash before a node's first message, or at the last step, is the same run for every program
that does not read `crash`, which Molly therefore never proposes."""

CRASH_MODELS = ("clock", "fail-stop")
"""What a crashed node still does. `clock`: Molly's clock rules — it keeps its state, its clock and its
messages to itself; from its crash step on its messages to other nodes are lost. `fail-stop`: it does
nothing from its crash step on — no deductions, no carried facts, no messages, no facts at all."""


CRASH = "crash"
"""The relation crash(y, s), "node y crashes at step s", that holds at every node and step of a
run with crashes (Molly's convention); a program reads it like an input relation."""


def _in_range(what: str, value: int | None) -> None:
    if value is not None and not (isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_STEP):
        raise ValueError(f"the {what} must be an integer between 0 and {MAX_STEP}, not {value!r}")


class NodeNameError(ValueError):
    """A node name of `Network.nodes` that is no constant of the program (`node_symbol`)."""


def node_symbol(name: str, molly: bool = False) -> clingo.Symbol:
    """A node name of `Network.nodes` as the constant it stands for: `a`, `"a"` or `3`.

    `molly`: the name is given to a program in Molly's dialect, whose node names are strings; a bare
    name is the string the program writes (`a`, `C` and `n1` are `"a"`, `"C"` and `"n1"`, as Molly's
    `-N a,C,n1` names them), a quoted one is itself.
    Raises ValueError for anything else (a variable outside Molly's dialect, a compound term, an empty name)."""
    if molly and BARE_NAME.fullmatch(name.strip()):
        return clingo.String(name.strip())
    try:
        symbol = clingo.parse_term(name.strip()) if name.strip() else None
    except (RuntimeError, ValueError):
        symbol = None
    constant = symbol is not None and (
        symbol.type in (clingo.SymbolType.String, clingo.SymbolType.Number)
        or (symbol.type is clingo.SymbolType.Function and not symbol.arguments and symbol.name and symbol.positive)
    )
    if not constant:
        molly_name = "" if molly or not BARE_NAME.fullmatch(name.strip()) else (
            " (in Molly's dialect a bare name is the string the program writes: C is \"C\")")
        raise NodeNameError(f"a node name must be a constant such as a, \"a\" or 3, not {name!r}{molly_name}")
    return symbol


BARE_NAME = re.compile(r"[A-Za-z0-9_]+")
"""A node name as Molly's `-N` writes it: letters, digits and underscores, no quotes."""


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
    omission: what one omission loses (`OMISSIONS`): one `message`, or a whole `channel` (x, s, y)
      — Molly's model, the default under `sync`; `message` is the default under `async`.
    crash_times: when a node may crash (`CRASH_TIMES`): at `any` step, or `after-send` — Molly's
      candidates, the default under `sync`.
    crash_model: what a crashed node still does (`CRASH_MODELS`): `clock` (Molly's clock rules, the
      default) or `fail-stop`.
    """

    delivery: str = "async"
    max_delay: int | None = None
    loss_until: int | None = None
    crashes: int = 0
    nodes: tuple[str, ...] = ()
    omission: str | None = None
    crash_times: str | None = None
    crash_model: str = "clock"

    def __post_init__(self) -> None:
        if self.delivery not in DELIVERIES:
            raise ValueError(f"the delivery model must be one of {', '.join(DELIVERIES)}, not {self.delivery!r}")
        self._fault_model()
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
            if not BARE_NAME.fullmatch(name.strip()):  # a bare name may be Molly's ("C"): `populate` decides
                node_symbol(name)
        if len(set(self.nodes)) != len(self.nodes):
            twice = sorted({n for n in self.nodes if self.nodes.count(n) > 1})
            raise ValueError(f"the node list names {', '.join(twice)} more than once")

    def _fault_model(self) -> None:
        """Resolve the omission and crash-time models to their delivery's defaults (Molly's under `sync`), and check them."""
        omission, crash_times = self.default_fault_model()
        if self.omission is None:
            object.__setattr__(self, "omission", omission)
        if self.crash_times is None:
            object.__setattr__(self, "crash_times", crash_times)
        for what, value, allowed in (
            ("omission model", self.omission, OMISSIONS),
            ("crash times", self.crash_times, CRASH_TIMES),
            ("crash model", self.crash_model, CRASH_MODELS),
        ):
            if value not in allowed:
                raise ValueError(f"the {what} must be one of {', '.join(allowed)}, not {value!r}")

    @property
    def sync(self) -> bool:
        return self.delivery == "sync"

    def default_fault_model(self) -> tuple[str, str]:
        """The omission and crash-time models of the delivery when not given: Molly's (channel, after-send)
        under `sync`, else (message, any)."""
        return ("channel", "after-send") if self.sync else ("message", "any")

    @property
    def by_channel(self) -> bool:
        """Whether an omission loses every message of a channel (x, s, y) together (Molly's model)."""
        return self.lossy and self.omission == "channel"

    @property
    def after_send(self) -> bool:
        """Whether a node crashes only at a step 0..T-1 at or after one at which it sent to another node (Molly's candidates)."""
        return self.crashes > 0 and self.crash_times == "after-send"

    @property
    def fail_stop(self) -> bool:
        """Whether a crashed node does nothing from its crash step on (else Molly's clock rules)."""
        return self.crashes > 0 and self.crash_model == "fail-stop"

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

    def node_symbols(self, instance: Instance | None) -> tuple[clingo.Symbol, ...]:
        """The nodes `nodes` names, as constants of the program of `instance`. Raises ValueError for a name
        that is no constant.

        In Molly's dialect a bare name is spelt as the program spells it (Molly's `-N a,C` names the nodes
        its facts write `"a"` and `"C"`): the string `"a"` if a fact names it so, else the constant `a` if a
        fact names that, else whichever of the two the input's nodes are (strings, as Molly writes them,
        when they are strings or there are none); `C`, which can only be a string, is `"C"`.
        """
        if instance is None or not instance.molly:
            return tuple(node_symbol(name) for name in self.nodes)
        known = set(instance.network) | {a for fs in instance.facts.values() for f in fs for a in f.args}
        strings = all(n.type is clingo.SymbolType.String for n in instance.network)
        chosen = []
        for name in self.nodes:
            bare = name.strip()
            if not BARE_NAME.fullmatch(bare):
                chosen.append(node_symbol(name))
                continue
            constant = clingo.Function(bare) if bare[0].islower() else None
            if clingo.String(bare) in known or constant is None:
                chosen.append(clingo.String(bare))
            elif constant in known or not strings:
                chosen.append(constant)
            else:
                chosen.append(clingo.String(bare))
        return tuple(chosen)

    def populate(self, instance: Instance | None) -> Instance | None:
        """The instance H with a node for every name of `nodes` it lacks (Molly's -N). Such a node has no
        input facts but what every node of a located program gets: `id(x)`, its own name, when the
        program's rules read it (`Instance.identity`), and the facts every node holds (`Instance.everywhere`)."""
        if not self.nodes:
            return instance
        facts = dict(instance.facts) if instance is not None else {}
        identity = instance.identity if instance is not None else None
        everywhere = instance.everywhere if instance is not None else ()
        for node in self.node_symbols(instance):
            facts.setdefault(node, (() if identity is None else (Fact(identity, (node,)),)) + everywhere)
        return Instance(facts) if instance is None else replace(instance, facts=facts)

    def unmentioned(self, program: Program, instance: Instance | None) -> tuple[str, ...]:
        """The names of `nodes` that no fact and no rule of the program mentions: a node nothing sends to
        and nothing reads of, likely a misspelt or misquoted name (`-N n1` where the facts say `"n_1"`)."""
        mentioned = set(instance.network if instance is not None else ())
        for facts in (instance.facts.values() if instance is not None else ()):
            mentioned.update(a for f in facts for a in f.args)
        for rule in program.rules:
            mentioned.update(t.value for atom in rule.atoms for t in atom.args if isinstance(t, Constant))
            mentioned.update(t.value for c in rule.comparisons for t in (c.left, c.right) if isinstance(t, Constant))
        return tuple(name for name, node in zip(self.nodes, self.node_symbols(instance)) if node not in mentioned)

    def unlisted(self, instance: Instance | None) -> tuple[tuple[clingo.Symbol, Fact], ...]:
        """For each node that holds input facts of its own but that `nodes` does not name, its first such fact
        (not `id(x)` nor a fact every node holds). Molly's `-N` is its whole node list: it makes clocks for those
        nodes only, so the facts of another node hold at their time and never persist nor send; here every node
        that holds a fact is a node of the network, whatever `nodes` says."""
        if not self.nodes or instance is None:
            return ()
        listed = set(self.node_symbols(instance))
        common = set(instance.everywhere)
        own = {x: [f for f in facts if f not in common and f.predicate != instance.identity]
               for x, facts in instance.facts.items() if x not in listed}
        return tuple((x, facts[0]) for x, facts in own.items() if facts)

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
        return words + self.model_words()

    def model_words(self) -> list[str]:
        """The fault model in words where it is not the delivery's default ([] when it is): "an omission loses
        one message", "crashes at any step", "fail-stop crashes"."""
        words = []
        omission, crash_times = self.default_fault_model()
        if self.lossy and self.omission != omission:
            words.append("an omission loses " + ("one message" if self.omission == "message" else "a channel"))
        if self.crashes and self.crash_times != crash_times:
            words.append("crashes at any step" if self.crash_times == "any" else "crashes after a send, before the last step")
        if self.fail_stop:
            words.append("fail-stop crashes")
        return words

    def as_dict(self) -> dict:
        """The fault keys the JSON outputs add to a bounds' (only those that differ from the fault-free async network)."""
        out: dict = {}
        if self.sync:
            out["delivery"] = self.delivery
        if self.loss_until is not None:
            out["loss_until"] = self.loss_until
        if self.lossy:
            out["omission"] = self.omission
        if self.crashes:
            out["crashes"] = self.crashes
            out["crash_times"] = self.crash_times
            out["crash_model"] = self.crash_model
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
