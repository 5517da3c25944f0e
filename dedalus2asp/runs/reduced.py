"""The traces-only search: `explore(..., mode="traces")` over reduced configurations.

The exact search (`operational`) tells configurations apart by who sent each
buffered message; when a fact is sent again at every step it meets far more
configurations than there are traces. The reduced search forgets the senders,
keeps of the copies of a fact to a node only what can still make a difference
to the trace (their deadlines, and how many can still arrive at distinct
steps), and delivers, per fact, either no copy or its j earliest-deadline
copies. It reaches the same set of traces, and only those.

The reduction, and why it reaches exactly the traces of the exact search
(`operational.explore(..., mode="exact")`). Fix P, H, T and D (D = ∞
without a delay bound). For a configuration C let Fut(C) be the set of the
tuples of node histories at the end of the complete continuations of C:
those in which every node reaches T + 1 steps and no message misses its
deadline. The exact search collects Fut(start).

(0) Senders do not matter. The legal moves from C and their effect on
the histories depend on a buffered message (x, s, y, f) only through y,
f and its deadline dl = s + D, read as ∞ if D = ∞ or s + D > T: what
y computes depends on untag(m), the set of facts delivered; a message
is forced exactly at step dl of y, and one with s + D > T is never
forced and may stay pending, as with no bound; the abandon check
concerns messages being sent, whose deadline is fixed by their send
step. So Fut(C) is a function of the histories and, for each node y
and fact f, the multiset M of deadlines of the copies of f in bf(y). If
y's next step is t, each d ∈ M is ≥ t (a copy is forced at step dl).

For such M let g(u) = |{d ∈ M : d ≥ u}| for t ≤ u ≤ T (∞ ≥ u),
g(T+1) = 0, h(u) = min{v - u + g(v) : u ≤ v ≤ T+1}, i.e. h(T+1) = 0 and
h(u) = min(g(u), 1 + h(u+1)), and d_min = min M (∞ if M has no finite
deadline). key(M) = (d_min, h). Without a delay bound M is k copies of
∞ and h(u) = min(k, T + 1 - u): only min(k, steps left) matters.

(1) Which copies arrive where. In a complete continuation ρ of C, let
S ⊆ [t, T] be the steps of y at which ρ delivers some copy from M.
(a) Every finite deadline is met, so if d_min < ∞ then S ≠ ∅ and
min S ≤ d_min. (b) The copies delivered at distinct steps are distinct:
S has a system of distinct representatives (SDR) c_u ∈ M, d(c_u) ≥ u.
The sets {d ∈ M : d ≥ u} form a chain, so (Hall on a chain: the k
latest steps of S need k copies available at the earliest of them) an
SDR exists iff |S ∩ [u, T]| ≤ g(u) for every u, iff |S ∩ [u, T]| ≤ h(u)
for every u: h ≤ g, and |S ∩ [u, T]| ≤ (v - u) + |S ∩ [v, T]| ≤ v - u + g(v)
for every v ≥ u.

(2) Equal keys, equal futures. Let C' be C with M replaced by M',
key(M') = key(M). From a complete continuation ρ of C build ρ' from
C': the same transitions, delivering the same messages, except for the
copies from M: by (1) and h(M) = h(M'), S has an SDR c'_u in M'; deliver
c'_u at step u for u ∈ S, and every other copy of M' with a finite
deadline at step min S (this exists and min S ≤ d_min(M) = d_min(M') ≤
its deadline: M has a finite deadline too); the other copies of
deadline ∞ stay pending. At every transition ρ' delivers the same set
of facts as ρ, hence (by induction along the run) computes the same D,
state and messages, and meets the same abandon checks: ρ' is a complete
continuation of C' with the same histories. By symmetry
Fut(C) = Fut(C'); applied to each (y, f) in turn, configurations with the
same histories and the same key(M) everywhere have the same Fut.

(3) Domination. Say M₂ dominates M₁ if some injection ι: M₁ → M₂ has
ι(d) ≥ d and every element of M₂ outside ι(M₁) is ∞. If C₂ is C₁ with
M₂ for M₁ (for one or more (y, f)) then Fut(C₁) ⊆ Fut(C₂): replay a
continuation of C₁ from C₂, delivering the copy ι(c) whenever it
delivers c (in time: ι(c) ≥ c) and never the others (∞, so never
forced): the same facts arrive at every transition.

(R) Reduced moves. Node y at step t, and for each fact f its copies
d₁ ≤ … ≤ d_k, k_t of them with deadline t (forced) and k_fin finite:
deliver none (only if k_t = 0) or the j earliest, for
max(1, k_t) ≤ j ≤ max(1, k_fin). Any move delivers some X ⊆ M for each
f, with X ⊇ the forced copies; say |X| = j. Delivering the j earliest
instead delivers the same facts, so computes the same D, state and
messages, and leaves the k - j latest copies, which dominate M \\ X
(pair the i-th smallest of each). If j > max(1, k_fin), the
max(1, k_fin) earliest deliver the same facts and leave a superset
whose extra copies are all ∞, which dominates too. By (3), the target of
any move has a Fut included in that of a reduced move's target, and a
reduced move is a move: Fut(C) = ∪ Fut(target) over the reduced moves.
Delivering one copy per fact is not enough with a delay bound: with
copies of deadlines t and t + 1, only delivering both at step t gives
f at step t and (if no other copy comes) not at step t + 1. Without a
bound every copy is ∞ and the reduced moves deliver 0 or 1 copy of f.

(N) Normalisation. After each move, a node keeps, per fact and deadline
d, at most w = min(d, T) - t + 1 copies (t its next step): one per step
at which they may arrive. This keeps key(M): say n > w copies of d are
cut to w (∞ counts as d = T here). g(v) drops by n - w only for v ≤ d,
where g(v) ≥ n + g(d+1), so the term v - u + g(v) of h(u) becomes
≥ v - u + w + g(d+1) ≥ (d + 1) - u + g(d+1) (as v ≥ t), the term for
v = d + 1, which is unchanged; so h is unchanged, and d_min too (w ≥ 1
as d ≥ t). A node that has taken all its steps keeps nothing, and
without a bound a buffer is a multiset of facts whose counts are capped
at the steps left: it is its own key.

The search visits each (histories, key(M) for every node and fact) once,
expanding the first representative it meets. Every configuration it
builds is reached from start by moves, each followed by a normalisation,
which keeps Fut (N, 2); so it collects only elements of Fut(start).
Conversely, by induction on the steps left (fixed by the histories): an
expanded C has Fut(C) = ∪ Fut(N(target)) over its reduced moves (R, N,
2); each N(target) was expanded itself or has the key of an expanded
configuration, with the same Fut (2) and fewer steps left than C; so
all of Fut(C) is collected. Hence the traces collected are exactly
those of the exact search. (A test checks (1), (2) and (N) exhaustively on one
fact for T = 3, and the two searches against each other.)

Faults (docs/faults.md). A lost message never enters a buffer, so losses change only which
messages are sent (`System.outcomes`), never the argument above. Under sync delivery a copy
sent at step s arrives at step s + 1 exactly: its deadline d = s + 1 is its only arrival step
(never, past the horizon). The copies of a fact then matter only through the set of their
deadlines (f arrives at each), which is the key; normalisation keeps one copy per deadline;
and the one move per fact at step t delivers the copies of deadline t, or none if there are none.
"""

from __future__ import annotations

from itertools import product
from typing import Callable, Iterator, NamedTuple

from ..bounds import Bounds
from .transitions import GroundFact, System

Deadlines = tuple[int, ...]
"""The deadlines of the buffered copies of one fact at one node, sorted; horizon + 1 stands for "none"."""


class Held(NamedTuple):
    """One node's part of a reduced configuration: like `Part`, with the buffer as copies per fact.

    `copies` holds (fact, deadlines) for every fact with a buffered copy.
    """

    history: tuple[frozenset[GroundFact], ...]
    state: frozenset[GroundFact]
    copies: frozenset[tuple[GroundFact, Deadlines]]


class Reduced:
    """The reduced transition system of `search_traces`, for one system and its bounds (horizon, delay bound)."""

    def __init__(self, network: System, bounds: Bounds):
        self.network = network
        self.horizon = bounds.horizon
        self.max_delay = bounds.network.delay_bound  # D (1 under sync), read in the inner loops
        self.sync = bounds.network.sync
        self.never = self.horizon + 1  # the deadline of a copy that is never forced and may stay pending
        self._kept: dict[tuple[Deadlines, int], Deadlines] = {}
        self._keys: dict[tuple[Deadlines, int], tuple[int, tuple[int, ...]]] = {}
        self._options: dict[tuple[Deadlines, int], tuple[tuple[bool, Deadlines], ...]] = {}

    def start(self) -> tuple[Held, ...]:
        return tuple(Held((), facts, frozenset()) for facts in self.network.inputs)

    def deadline(self, s: int) -> int:
        """The deadline of a message sent at step s: s + D (s + 1 under sync), or `never` without a bound or past the horizon."""
        if self.max_delay is None or s + self.max_delay > self.horizon:
            return self.never
        return s + self.max_delay

    def normalise(self, deadlines: Deadlines, t: int) -> Deadlines:
        """At most min(d, T) - t + 1 copies of each deadline d, for a node whose next step is t (step (N))."""
        memo = (deadlines, t)
        kept = self._kept.get(memo)
        if kept is None and self.sync:
            kept = self._kept[memo] = tuple(sorted(set(deadlines)))
        if kept is None:
            out: list[int] = []
            for d in sorted(set(deadlines)):
                out += [d] * min(deadlines.count(d), min(d, self.horizon) - t + 1)
            kept = self._kept[memo] = tuple(out)
        return kept

    def class_key(self, deadlines: Deadlines, t: int) -> tuple[int, tuple[int, ...]]:
        """key(M) = (d_min, h) of the copies M = `deadlines` at a node whose next step is t (see the module docstring)."""
        memo = (deadlines, t)
        key = self._keys.get(memo)
        if key is None:
            h: list[int] = []
            below = 0  # h(u + 1), h(T + 1) = 0
            for u in range(self.horizon, t - 1, -1):
                g = sum(1 for d in deadlines if d >= u)
                below = min(g, 1 + below)
                h.append(below)
            key = self._keys[memo] = (deadlines[0], tuple(reversed(h)))
        return key

    def key(self, config: tuple[Held, ...]) -> tuple:
        """What the visited set remembers of a reduced configuration: histories and key(M) of every M."""
        if self.max_delay is None or self.sync:  # the normalised buffer is its own key
            return tuple((local.history, local.copies) for local in config)
        return tuple(
            (local.history, frozenset((f, self.class_key(d, len(local.history))) for f, d in local.copies))
            for local in config
        )

    def options(self, deadlines: Deadlines, t: int) -> tuple[tuple[bool, Deadlines], ...]:
        """The reduced choices for one fact at step t (step (R)): (delivered?, deadlines of the copies left)."""
        memo = (deadlines, t)
        options = self._options.get(memo)
        if options is None:
            forced = deadlines.count(t)  # every deadline is ≥ t
            finite = sum(1 for d in deadlines if d < self.never)
            options = [] if forced else [(False, deadlines)]
            if self.sync:  # only the copies of deadline t can arrive, and they must
                options += [(True, deadlines[forced:])] if forced else []
            else:
                options += [(True, deadlines[j:]) for j in range(max(1, forced), max(1, finite) + 1)]
            options = self._options[memo] = tuple(options)
        return options

    def successors(self, config: tuple[Held, ...]) -> Iterator[tuple[Held, ...]]:
        """The targets of the reduced moves from `config`, normalised."""
        horizon, max_delay = self.horizon, self.max_delay
        for i, local in enumerate(config):
            t = len(local.history)
            if t > horizon:
                continue
            held = sorted(local.copies)
            facts = [f for f, _ in held]
            sent_deadline = self.deadline(t)
            for choice in product(*(self.options(deadlines, t) for _, deadlines in held)):
                step = self.network.act(i, local.state.union([f for f, (on, _) in zip(facts, choice) if on]), t)
                self.network.record(i, local.history + (step.deduced,), step)
                for travelling in self.network.outcomes(i, t, step.sent):  # one per choice of lost messages
                    buffers = {i: {f: rest for f, (_, rest) in zip(facts, choice) if rest}}
                    for j, sent in travelling:
                        if max_delay is not None and (t + 1 if j == i else len(config[j].history)) > t + max_delay:
                            break  # a message sent to a node that has passed its deadline
                        buffer = buffers.get(j)
                        if buffer is None:
                            buffer = buffers[j] = dict(config[j].copies)
                        for f in sent:
                            buffer[f] = tuple(sorted(buffer.get(f, ()) + (sent_deadline,)))
                    else:
                        target = list(config)
                        for j, buffer in buffers.items():
                            history, state = (local.history + (step.deduced,), step.state) if j == i else config[j][:2]
                            t_j = len(history)
                            copies = ((f, self.normalise(deadlines, t_j)) for f, deadlines in buffer.items())
                            target[j] = Held(history, state, frozenset((f, kept) for f, kept in copies if kept))
                        yield tuple(target)


def search_traces(
    network: System, bounds: Bounds, visit: Callable[[set, tuple], bool]
) -> tuple[dict[tuple, tuple[Held, ...]], int]:
    """Depth first over the reduced configurations: one end configuration per trace, and the number visited.

    `visit(visited, key)` records a key and says whether it is new (the
    search's state limit is the caller's). See the module docstring for the
    reduction and why it reaches exactly the traces of the exact search.
    """
    reduced = Reduced(network, bounds)
    start = reduced.start()
    visited = {reduced.key(start)}
    ends: dict[tuple, tuple[Held, ...]] = {}
    stack = [reduced.successors(start)]
    while stack:
        config = next(stack[-1], None)
        if config is None:
            stack.pop()
            continue
        if not visit(visited, reduced.key(config)):
            continue
        if all(len(local.history) == bounds.horizon + 1 for local in config):
            ends[tuple(local.history for local in config)] = config
            continue
        stack.append(reduced.successors(config))
    return ends, len(visited)
