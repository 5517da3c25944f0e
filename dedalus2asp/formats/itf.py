"""A model (or a counterexample) as an ITF trace: the Informal Trace Format of Apalache and Quint.

ITF (Apalache ADR-015, "Informal Trace Format in JSON") writes an execution as JSON: a
list of states, each a map from variable names to values; integers are
`{"#bigint": "k"}`, sets `{"#set": [...]}`, maps `{"#map": [[key, value], ...]}`,
records JSON objects. Tools that read it: Quint and Apalache's trace viewers, itf-py,
itf-rs.

The trace of a model has one state per global step k = 0..T, every node at its local
step k (tplp2016 §5.1.5: the trace of a run, D^{x,k} for every node x):

* `step`: k;
* `facts`: a map from each node to the set of facts it holds at step k;
* `sent`: the messages sent at step k, by any node;
* `delivered`: the messages that arrive at step k (at their addressee's step k);
* `in_flight`: the messages sent at a step ≤ k that arrive after step k or are still
  pending at the horizon; in state T these are exactly the pending messages;
* `global` (only when some global fact holds): the set of facts of global relations at step k,
  derived by global rules (Molly's assertions), which read every node at step k and are held by
  no node.

A fact is a record `{"relation": "vote", "args": ["t1", "a1", "yes"]}` (arguments as
Dedalus writes them); a message a record `{"relation", "args", "sender", "sent",
"addressee"}`: what a buffer holds (tplp2016 §5.1.1), without its arrival, which the
state it is delivered in says. Steps are local: a message may arrive at a step number
below the one it was sent at (its addressee is behind), and is then delivered in an
earlier state than it is sent in, and never in flight. The trace's `#meta` holds the
model's number, semantics, encoding, horizon, delay bound, nodes, outputs and its
messages into the past (`Model.noncausal`, with their arrival step).

A lasso model (eventual mode: steps L..T repeat forever, the step after T being step L)
is an ITF lasso trace: ITF's trace field `loop` is the index of the state the last state
goes on to (L), as Apalache and Quint write a lasso and itf-py and itf-rs read it; `#meta`
repeats it as `loop`, with the `period` P and the `ultimate` outputs. The states L..T
stand for every pass of the loop: a message that arrives after T is delivered at its loop
step L + (A − L) mod P, and is in flight from its send to T and, on the next pass, from L
until that step. The facts of the states repeat exactly; a buffer's messages repeat as the
facts they carry (the eventual mode compares arrivals by addressee, relation and
arguments), their send steps being those of the pass the lasso writes.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Iterable

import clingo

from ..lang.ast import GLOBAL_NODE

if TYPE_CHECKING:
    from ..inspect.model import Message, Model

VARS = ("step", "facts", "sent", "delivered", "in_flight")
FORMAT_DESCRIPTION = "https://apalache-mc.org/docs/adr/015adr-trace.html"


def bigint(k: int) -> dict:
    return {"#bigint": str(k)}


def itf_set(values: Iterable) -> dict:
    """An ITF set, its elements in a fixed order (by their JSON text) so that equal sets print alike."""
    return {"#set": sorted(values, key=lambda v: json.dumps(v, sort_keys=True))}


def fact(relation: str, args: Iterable[clingo.Symbol]) -> dict:
    return {"relation": relation, "args": [str(a) for a in args]}


def message(m: Message) -> dict:
    """A message as a buffer holds it: relation, arguments, sender, send step, addressee."""
    return {**fact(m.relation, m.args), "sender": str(m.sender), "sent": bigint(m.sent), "addressee": str(m.addressee)}


def in_flight(m: Message, k: int) -> bool:
    """Sent at a step ≤ k and arriving after step k, or pending."""
    return m.sent <= k and (m.arrives is None or m.arrives > k)


def in_flight_in_lasso(model: Model, m: Message, k: int) -> bool:
    """In a lasso: in flight at step k on some pass of the loop, at an unrolled step u = k + nP (n ≥ 0; u = k in
    the prefix) with sent ≤ u < the unrolled arrival A (`Message.unrolled`)."""
    if m.unrolled is None or k < model.loop_start or m.sent < model.loop_start:
        return m.sent <= k and (m.unrolled is None or m.unrolled > k)
    first = k + max(0, -(-(m.sent - k) // model.period)) * model.period  # the first u ≥ sent with u ≡ k (mod P)
    return first < m.unrolled


def state(model: Model, k: int) -> dict:
    """Global step k: what every node holds, and the messages sent, delivered and in flight."""
    return {
        "#meta": {"index": k},
        "step": bigint(k),
        "facts": {"#map": [[str(x), itf_set(fact(r, a) for r, a in model.slice(x, k))] for x in model.network]},
        "sent": itf_set(message(m) for m in model.messages if m.sent == k),
        "delivered": itf_set(message(m) for m in model.messages if m.arrives == k),
        "in_flight": itf_set(message(m) for m in model.messages
                             if (in_flight_in_lasso(model, m, k) if model.is_lasso else in_flight(m, k))),
    } | ({"global": itf_set(fact(r, a) for r, a in model.slice(GLOBAL_NODE, k))} if model.has_global else {})


def trace(model: Model, source: str | None = None) -> dict:
    """The ITF trace of `model` (see the module docstring); `source` names the program it comes from."""
    bounds = model.bounds
    meta = {
        "format": "ITF",
        "format-description": FORMAT_DESCRIPTION,
        "source": source or "dedalus2asp",
        "description": f"model {model.number} of a Dedalus program, one state per global step",
        "model": model.number,
        "semantics": bounds.semantics.value,
        "encoding": bounds.encoding.value,
        "horizon": model.horizon,
        "max_delay": bounds.network.max_delay,
        "nodes": [str(x) for x in model.network],
        "outputs": list(model.outputs()),
        "noncausal": [m.as_dict() for m in model.noncausal()],
    }
    if model.is_lasso:
        meta["description"] = (f"model {model.number} of a Dedalus program, a lasso: one state per global step, "
                               f"states {model.loop_start}..{model.horizon} repeating forever")
        meta |= {"loop": model.loop_start, "period": model.period, "ultimate": list(model.ultimate())}
    names = list(VARS) + (["global"] if model.has_global else [])
    states = [state(model, k) for k in range(model.horizon + 1)]
    if model.is_lasso:  # ITF's lasso: the state after the last is states[loop]
        return {"#meta": meta, "vars": names, "loop": model.loop_start, "states": states}
    return {"#meta": meta, "vars": names, "states": states}


def itf_json(model: Model, source: str | None = None) -> str:
    """The trace as the text of a `.itf.json` file."""
    return json.dumps(trace(model, source), indent=1, ensure_ascii=False) + "\n"
