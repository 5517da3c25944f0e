"""Graphs in DOT (Graphviz): the happens-before relation of a model, and the lineage of a derivation.

* `happens_before`: ≺ of a model (tplp2016 §5.2.1), transitively reduced (the
  Hasse diagram of the partial order of a causal model), one row per node;
  lost messages end in a red ×, crashes are red notes on the crash point (issue #19).
  A lasso model (eventual mode) is drawn as its edges instead (`lasso`): its
  happens-before is that of the infinite run, which the drawing folds onto
  steps 0..T.
* `lineage`: a derivation (`inspect.explain`) as a graph from premises to
  conclusions, in the spirit of Molly's provenance diagrams.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

from ..lang.ast import show_fact
from .svg import BLUE, RED, SHADE, loop_sentence
from .text import ARRIVED, FAULT, INPUT

if TYPE_CHECKING:
    from ..inspect.explain import Derivation
    from ..inspect.model import Model


def quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def happens_before(model: Model) -> str:
    """≺ of `model` in DOT, transitively reduced; one cluster (a row) per node.

    For a causal model ≺ is a strict partial order and the edges drawn are
    its covering pairs (a ≺ b with no c between), each a local or a message
    edge. A choice model may have cycles, where the reduction is not unique:
    then every local and message edge is drawn, the non-causal ones red.
    """
    if model.loop_start is not None:
        return lasso(model)
    hb = model.happens_before
    cyclic = any((a, a) in hb for a in model.points())
    into_past = {(m.send, m.arrival) for m in model.noncausal()}
    labels = defaultdict(list)
    for m in model.messages:
        if m.arrival is not None:
            labels[(m.send, m.arrival)].append(m.fact)
    pairs = {(a, b) for a, b, _ in model.edges() if a != b}
    if not cyclic:
        pairs = {(a, b) for (a, b) in hb if not any((a, c) in hb and (c, b) in hb for c in model.points())}
    name = lambda p: quote(f"{p[0]}:{p[1]}")
    lines = ["digraph happens_before {", "  rankdir=LR;", "  node [shape=circle, fontname=Helvetica, fontsize=10];"]
    for i, x in enumerate(model.network):
        points = " ".join(name((x, s)) for s in range(model.horizon + 1))
        lines.append(f"  subgraph cluster_{i} {{ label={quote(str(x))}; {points}; }}")
    for a, b in sorted(pairs):
        attrs = []
        if (a, b) in labels:
            attrs.append(f"label={quote(', '.join(labels[(a, b)]))}")
        if (a, b) in into_past:
            attrs.append(f'color="{RED}", fontcolor="{RED}", style=dashed, penwidth=2.5')
        lines.append(f"  {name(a)} -> {name(b)}" + (f" [{', '.join(attrs)}]" if attrs else "") + ";")
    lines += _faults(model, name)
    lines.append("}")
    return "\n".join(lines) + "\n"


def lasso(model: Model) -> str:
    """A lasso model in DOT: one row per node, the loop's points L..T filled pale blue, every local and message
    edge of steps 0..T, a bold blue back edge (x,T) → (x,L) on every row ("step T+1 = step L"), and each message
    that arrives after T as a blue edge to its loop step, marked "next pass"; messages into the past red and
    dashed, faults as in a bounded model. The graph's label says which steps repeat."""
    L, T = model.loop_start, model.horizon
    into_past = set(model.noncausal())
    name = lambda p: quote(f"{p[0]}:{p[1]}")  # noqa: E731
    lines = ["digraph lasso {", "  rankdir=LR;", "  node [shape=circle, fontname=Helvetica, fontsize=10];",
             f"  label={quote('a lasso: ' + loop_sentence(L, T))}; labelloc=t; fontname=Helvetica;"]
    for i, x in enumerate(model.network):
        points = "; ".join(name((x, s)) + (f' [style=filled, fillcolor="{SHADE}", color="{BLUE}"]' if s >= L else "")
                          for s in range(T + 1))
        lines.append(f"  subgraph cluster_{i} {{ label={quote(str(x))}; {points}; }}")
    for x in model.network:
        lines += [f"  {name((x, s))} -> {name((x, s + 1))};" for s in range(T)]
        lines.append(f'  {name((x, T))} -> {name((x, L))} [color="{BLUE}", fontcolor="{BLUE}", style=bold, '
                     f"label={quote(f'step {T + 1} = step {L}')}, constraint=false];")
    edges: dict[tuple, list[str]] = defaultdict(list)
    for m in model.messages:
        if m.arrives is not None:
            edges[(m.send, m.arrival, m.wraps, m in into_past)].append(m.fact)
    for (a, b, wraps, past), facts in sorted(edges.items()):
        label = ", ".join(facts) + (" (next pass)" if wraps else "")
        attrs = [f"label={quote(label)}"]
        if wraps:
            attrs.append(f'color="{BLUE}", fontcolor="{BLUE}", constraint=false')
        if past:
            attrs.append(f'color="{RED}", fontcolor="{RED}", style=dashed, penwidth=2.5')
        lines.append(f"  {name(a)} -> {name(b)} [{', '.join(attrs)}];")
    lines += _faults(model, name)
    lines.append("}")
    return "\n".join(lines) + "\n"


def _faults(model: Model, name) -> list[str]:
    """Issue #19's faults, which are no edges of ≺: a lost message is a dashed red edge from its send
    point to a red cross of its own; a crash a red note "y crashes at step s" tied to the point (y, s)."""
    lines = []
    lost = defaultdict(list)
    for m in model.lost:
        lost[(m.send, m.addressee)].append(m.fact)
    for i, ((send, addressee), facts) in enumerate(sorted(lost.items(), key=lambda kv: (kv[0][0], kv[0][1]))):
        cross = f"lost{i}"
        lines.append(f'  {cross} [shape=none, label="×", fontcolor="{RED}", fontsize=18, tooltip={quote(f"lost, to {addressee}")}];')
        lines.append(f'  {name(send)} -> {cross} [label={quote(", ".join(facts) + f" (to {addressee}, lost)")}, '
                     f'color="{RED}", fontcolor="{RED}", style=dashed, arrowhead=none];')
    for i, (node, step) in enumerate(model.crashes):
        note = f"crash{i}"
        lines.append(f'  {note} [shape=box, style=filled, fillcolor="{RED}", fontcolor=white, '
                     f'label={quote(f"{node} crashes at step {step}")}];')
        lines.append(f'  {note} -> {name((node, step))} [color="{RED}", style=bold, arrowhead=tee];')
    return lines


def lineage(derivation: Derivation) -> str:
    """The lineage graph in DOT: one vertex per fact at a point, edges from premises to conclusions.

    Input facts are boxes, faults (`crash`) dashed red boxes, absent (negated) facts dashed grey, message
    arrivals bold blue edges labelled with the sending rule.
    """
    ids: dict[tuple, str] = {}
    vertices: list[str] = []
    edges: list[str] = []

    def vertex(key: tuple, label: str, attrs: str) -> str:
        if key not in ids:
            ids[key] = f"f{len(ids)}"
            vertices.append(f"  {ids[key]} [label={quote(label)}{attrs}];")
        return ids[key]

    def walk(d: Derivation) -> str:
        seen = d.key in ids
        shape = {INPUT: ", shape=box", FAULT: ', shape=box, style=dashed, color="#c0392b"'}.get(d.reason.how, "")
        me = vertex(d.key, f"{show_fact(*d.fact)}\n{d.node}:{d.step}", shape)
        if seen:
            return me
        label = f"rule {d.rule.number}" if d.rule is not None else d.reason.how
        style = ', style=bold, color="#1f5fbf"' if d.reason.how == ARRIVED else ""
        if d.reason.how == ARRIVED:
            label = f"message, {label}"
        for p in d.premises:
            edges.append(f"  {walk(p)} -> {me} [label={quote(label)}{style}];")
        for a in d.absent:
            absent = vertex(("absent", d.at, a), f"not {show_fact(*a)}\n{d.at[0]}:{d.at[1]}", ', style=dashed, color=grey, fontcolor=grey')
            edges.append(f"  {absent} -> {me} [label={quote(label)}, style=dashed, color=grey];")
        if d.reason.how == ARRIVED and not d.premises and not d.absent:
            m = d.reason.message
            sender = vertex(("send", m.send), f"{m.sender}:{m.sent}", ", shape=point")
            edges.append(f"  {sender} -> {me} [label={quote(label)}{style}];")
        return me

    walk(derivation)
    return "digraph lineage {\n  rankdir=BT;\n  node [fontname=Helvetica];\n" + "\n".join(vertices + edges) + "\n}\n"
