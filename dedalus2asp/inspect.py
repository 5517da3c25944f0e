"""Decoding answer sets back into what they stand for (tplp2016 §5.2–5.3).

An answer set of the generated program becomes a `Model`: its trace (the
facts of sch(P) each node holds at each step, §5.1.5) and its messages (from
the chosen_R atoms: relation and arguments, sender and send step, addressee
and arrival step or pending, §4.3.1). Auxiliary atoms are filtered out.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable

import clingo

from .ast import Trace, TraceFact
from .transform import PENDING, Compiled


@dataclass(frozen=True)
class Message:
    """A message R(args) sent at step `sent` of `sender`, arriving at step `arrives` of `addressee` (None: pending)."""

    sender: clingo.Symbol
    sent: int
    addressee: clingo.Symbol
    arrives: int | None
    relation: str
    args: tuple[clingo.Symbol, ...]

    def key(self) -> tuple:
        """Send order first; pending messages after those that arrive."""
        return (self.sender, self.sent, self.addressee, self.arrives is None, self.arrives or 0, self.relation, self.args)

    @property
    def fact(self) -> str:
        return f"{self.relation}({', '.join(map(str, self.args))})"

    def as_dict(self) -> dict:
        return {
            "relation": self.relation,
            "args": [str(a) for a in self.args],
            "from": str(self.sender),
            "sent": self.sent,
            "to": str(self.addressee),
            "arrives": self.arrives,
        }


@dataclass(frozen=True)
class Model:
    """One stable model, seen as a trace and its messages."""

    number: int
    trace: Trace
    messages: tuple[Message, ...]
    network: tuple[clingo.Symbol, ...]
    horizon: int
    semantics: str

    def facts_at(self, node: clingo.Symbol, step: int) -> list[str]:
        """The facts `node` holds at `step`, sorted."""
        return sorted(
            f"{r}({', '.join(map(str, a))})" for (x, s, r, a) in self.trace if x == node and s == step
        )

    def noncausal(self) -> tuple[Message, ...]:
        """Messages sent into the past: their arrival step happens before their send step.

        Happens-before (tplp2016 §5.2.1) is built from the local edges (x,s)->(x,s+1) and the
        message edges, taking messages in order of their send step: a message whose arrival
        already reaches its send is flagged and its edge left out, so one message into the past
        does not make every message on its cycle suspect. A causal model has none (tplp2016
        §4.4.1 rule (9)); a choice model may (§4.3.3).
        """
        succ: dict[tuple, set[tuple]] = defaultdict(set)
        for node in self.network:
            for step in range(self.horizon):
                succ[(node, step)].add((node, step + 1))

        def reaches(start: tuple, goal: tuple) -> bool:
            seen, todo = {start}, [start]
            while todo:
                v = todo.pop()
                if v == goal:
                    return True
                todo.extend(w for w in succ.get(v, ()) if w not in seen and not seen.add(w))
            return False

        flagged = []
        for m in sorted(self.messages, key=lambda m: (m.sent, m.key())):
            if m.arrives is None:
                continue
            if reaches((m.addressee, m.arrives), (m.sender, m.sent)):
                flagged.append(m)
            else:
                succ[(m.sender, m.sent)].add((m.addressee, m.arrives))
        return tuple(flagged)

    def as_dict(self) -> dict:
        into_past = set(self.noncausal())
        return {
            "number": self.number,
            "trace": [
                {"node": str(x), "step": s, "relation": r, "args": [str(v) for v in a]}
                for (x, s, r, a) in sorted(self.trace)
            ],
            "messages": [{**m.as_dict(), "noncausal": m in into_past} for m in self.messages],
        }


def _int(symbol: clingo.Symbol) -> int | None:
    return symbol.number if symbol.type is clingo.SymbolType.Number else None


def decode(symbols: Iterable[clingo.Symbol], compiled: Compiled, number: int = 1) -> Model:
    """Read a model's trace and messages from its atoms; everything auxiliary is dropped."""
    trace: set[TraceFact] = set()
    messages = []
    network: set[clingo.Symbol] = set()
    for atom in symbols:
        name, args = atom.name, atom.arguments
        if name in compiled.relations and len(args) == compiled.arities[compiled.relations[name]] + 2:
            trace.add((args[0], args[1].number, compiled.relations[name], tuple(args[2:])))
        elif name in compiled.messages and len(args) >= 4:
            arrival = args[3]
            arrives = None if arrival.type is clingo.SymbolType.Function and arrival.name == PENDING else _int(arrival)
            messages.append(
                Message(args[0], args[1].number, args[2], arrives, compiled.messages[name], tuple(args[4:]))
            )
        elif name == "all" and len(args) == 1:
            network.add(args[0])
    return Model(
        number=number,
        trace=frozenset(trace),
        messages=tuple(sorted(messages, key=Message.key)),
        network=tuple(sorted(network)),
        horizon=compiled.horizon,
        semantics=compiled.semantics.value,
    )


def trace_table(model: Model) -> dict[clingo.Symbol, dict[int, list[str]]]:
    """node -> step -> facts, for every node of the network and every step 0..T."""
    table: dict = defaultdict(dict)
    for node in model.network:
        for step in range(model.horizon + 1):
            table[node][step] = model.facts_at(node, step)
    return table


def render_text(model: Model, console) -> None:
    """Print a model as a node × step table of facts and a list of messages (rich)."""
    from rich.table import Table

    table = Table(title=f"model {model.number} ({model.semantics}, horizon {model.horizon})", show_lines=True)
    table.add_column("node", style="bold")
    for step in range(model.horizon + 1):
        table.add_column(f"step {step}")
    for node, steps in trace_table(model).items():
        table.add_row(str(node), *("\n".join(facts) for facts in steps.values()))
    console.print(table)
    if model.messages:
        console.print("messages (sender@step → addressee@arrival step):")
        into_past = set(model.noncausal())
        for m in model.messages:
            arrival = f"{m.addressee} pending" if m.arrives is None else f"{m.addressee}@{m.arrives}"
            warning = "   ← sent into the past (non-causal)" if m in into_past else ""
            console.print(f"  {m.fact}: {m.sender}@{m.sent} → {arrival}{warning}", highlight=False)
    else:
        console.print("messages: none")
