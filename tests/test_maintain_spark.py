"""`maintain --engine spark`: the Spark engine (psn2010 Algorithm 2 as joins, and DRed) keeps the same view as the
local PSN engine (Algorithm 1) and as recomputation — counts where finite, infinite facts, what each burst inserted
and deleted — on recursive and non-recursive programs over several nodes.

The suite's time: Spark's cost is its jobs (a fixed cost each), so every case here is small and does as much as
it can per job: the module shares conftest's session (no JVM start of its own), each program gets one burst of
insertions and deletions together, and the local engines, the Spark engines and recomputation read the same one."""

from __future__ import annotations

from collections import Counter

import clingo
import pytest

from dedalus2asp.maintain import Base, Burst, Fact, Update, parse_program, read_program
from dedalus2asp.maintain.check import definition8
from dedalus2asp.maintain.pipelined import PSNEngine
from dedalus2asp.maintain.spark import SparkEngine, components, patterns, make
from dedalus2asp.maintain.view import View, recompute

from conftest import EXAMPLES
from test_maintain_psn import cases


def fact(text: str) -> Fact:
    symbol = clingo.parse_term(text)
    return Fact(symbol.name, tuple(symbol.arguments))


def burst(text: str) -> Burst:
    """A burst from a line like "+link(a, b) -link(c, a)"."""
    return Burst(1, tuple(Update(u[0], fact(u[1:])) for u in text.split()))


def test_spark_psn_and_dred_keep_the_views_of_local_psn_and_of_recomputation_on_a_ring(spark):
    """psn2010 §2.2's reachability on a ring of two nodes (infinitely many derivations) and a tail, then a burst that
    breaks the ring and adds a link (finitely many derivations, counted): Spark's psn holds the local PSN engine's
    facts, counts and infinite facts before and after, and says the same inserted/deleted; Spark's DRed holds
    recomputation's facts as a set with fewer messages; both pass Definition 8, which a view short of one fact
    fails."""
    program = read_program(EXAMPLES / "psn2010" / "reachable.ddlog")
    base = Counter([fact("link(a,b)"), fact("link(b,a)"), fact("link(b,c)")])
    update = burst("-link(b,a) +link(a,c)")
    local, psn, dred = PSNEngine("random", seed=3), SparkEngine(spark, "psn"), SparkEngine(spark, "dred")
    for engine in (local, psn, dred):
        engine.start(program, base)
    assert local.view().infinite and psn.view() == local.view()  # the ring: every reachable fact infinite
    a, b, d = local.apply(update), psn.apply(update), dred.apply(update)
    after = Base(base)
    after.apply(update)
    remote = psn.view()
    assert remote == local.view() and not remote.infinite
    assert (b.inserted, b.deleted) == (a.inserted, a.deleted) == (d.inserted, d.deleted)
    assert remote.counts[fact("reachable(a,c)")] == 2  # via link(a,c) and via b: counted
    assert not definition8(remote, program, after.facts)
    short = View({f: n for f, n in remote.counts.items() if f != fact("reachable(a,c)")}, remote.infinite)
    assert definition8(short, program, after.facts)  # the check can fail
    sets = dred.view()
    assert sets.shown(program).facts == recompute(program, after.facts).facts
    assert not sets.multiset and not definition8(sets, program, after.facts)  # --check compares sets
    assert not sets.infinite and set(sets.counts.values()) == {1}
    assert 0 < sum(d.messages.values()) < sum(b.messages.values())  # no derivation sets to send


def test_spark_counts_derivations_of_a_non_recursive_program_as_local_psn_in_one_job(spark):
    """Two and three hops (psn2010 §3.3): multiset counts maintained by counting, one Spark job per burst (and one
    where it compacts the view)."""
    program = read_program(EXAMPLES / "psn2010" / "hops.ddlog")
    base = Counter(fact(f"link({x},{y})") for x, y in ["ab", "ad", "dc", "bc", "ch", "fg"])
    update = burst("+link(d,f) +link(a,f) -link(a,b) +link(a,b) +link(a,b) -link(c,h)")
    local, remote = PSNEngine("random", seed=3), SparkEngine(spark, "psn")
    local.start(program, base)
    remote.start(program, base)
    view = remote.view()
    assert view == local.view() and view.counts[fact("hop(a,c)")] == 2  # via b and via d (§3.3)
    a, b = local.apply(update), remote.apply(update)
    view = remote.view()
    assert view == local.view() and view.counts[fact("hop(a,c)")] == 3  # link(a,b) twice, and d
    assert (b.inserted, b.deleted) == (a.inserted, a.deleted)
    last = remote.last
    assert last.phases[0] == "deltas" and set(last.phases[1:]) <= {"compact"} and last.jobs == len(last.phases)  # one job, and a compaction


def test_spark_agrees_with_recomputation_on_a_random_program(spark):
    """A random program of the local engine's tests (three nodes), one burst of insertions and deletions."""
    [(program, base, updates)] = cases(1, seed=11)
    engine = SparkEngine(spark, "psn")
    engine.start(program, base)
    engine.apply(updates[0])
    current = Base(base)
    current.apply(updates[0])
    wrong = definition8(engine.view(), program, current.facts)
    assert not wrong, (program.text, wrong.lines())


def test_components_are_in_topological_order_and_know_recursion():
    program = parse_program("p(#X, Y) :- e(#X, Y);\nq(#X, Y) :- p(#X, Y);\nq(#X, Y) :- q(#X, Z), e(#Z, Y);\n"
                            "r(#X, Y) :- q(#X, Y);\n", "t.ded")
    order = components(patterns(program))
    position = {rel: i for i, (members, _) in enumerate(order) for rel in members}
    recursive = {rel: rec for members, rec in order for rel in members}
    assert position["p"] < position["q"] < position["r"]  # bodies first
    assert (recursive["p"], recursive["q"], recursive["r"]) == (False, True, False)


def test_make_refuses_what_spark_does_not_run():
    with pytest.raises(ValueError, match="eager-discard"):
        make("eager-discard")


def test_spark_views_kept_as_deltas_follow_local_psn_burst_by_burst(spark):
    """Small bursts on psn2010's reachability, over a ring x ⇄ y (infinitely many derivations) and a chain
    c0 → c1 → c2 → c3, that delete facts and insert them again while the view is kept as its last compaction and
    the deltas since (a fact's rows cancel across them), break the ring and make it again: after every burst Spark's
    psn holds the local engine's view (counts, infinite facts) and says the same inserted/deleted per relation, and
    Spark's DRed (which asks whether a fact is in the view: its rows' sum), over the first two bursts, holds the
    same facts; the run crosses compactions and keeps deltas over bursts."""
    program = read_program(EXAMPLES / "psn2010" / "reachable.ddlog")
    base = Counter(fact(f"link({a},{b})") for a, b in [("x", "y"), ("y", "x"), ("c0", "c1"), ("c1", "c2"), ("c2", "c3")])
    lines = ["-link(c2,c3)", "+link(c2,c3)", "-link(y,x)", "+link(y,x) +link(c2,x)", "-link(c2,x) -link(c2,c3)"]
    local, psn, dred = PSNEngine("fifo"), SparkEngine(spark, "psn"), SparkEngine(spark, "dred")
    for engine in (local, psn, dred):
        engine.start(program, base)
    for engine in (psn, dred):
        engine.maintainer.compact_at = 0.5  # a compaction every few bursts on a view this small
    compacted, infinite = [], []
    for k, line in enumerate(lines, 1):
        b = Burst(k, burst(line).updates)
        a, p = local.apply(b), psn.apply(b)
        view = local.view()
        assert psn.view() == view, line
        assert (p.inserted, p.deleted) == (a.inserted, a.deleted), line
        if k <= 2:  # a fact deleted, then inserted again while its deletion is a delta of the view
            d = dred.apply(b)
            assert dred.view().facts == view.facts and (d.inserted, d.deleted) == (a.inserted, a.deleted), line
        compacted.append(bool(psn.last.compacted))
        infinite.append(bool(view.infinite))
    assert any(infinite) and not all(infinite)  # the ring broken, and made again
    assert any(compacted) and not all(compacted), compacted


def test_the_view_is_compacted_when_its_deltas_outgrow_a_fraction_of_it(spark):
    """The compaction policy: a chain of two-hop paths, a burst after another toggling one link. After every burst
    each relation's deltas hold at most `compact_at` of its last compaction's rows; some bursts keep their deltas,
    others compact (never and always both fail), and the counts stay the local engine's."""
    program = read_program(EXAMPLES / "psn2010" / "hops.ddlog")
    base = Counter(fact(f"link(v{i},v{i + 1})") for i in range(6))
    local, remote = PSNEngine("fifo"), SparkEngine(spark, "psn")
    local.start(program, base)
    remote.start(program, base)
    compacted = []
    for k in range(1, 5):
        b = burst(("-" if k % 2 else "+") + "link(v5,v6)")
        local.apply(b)
        remote.apply(b)
        m = remote.maintainer
        assert all(s.delta_rows <= m.compact_at * s.rows for s in m.stored.values())
        compacted.append(bool(remote.last.compacted))
    assert any(compacted) and not all(compacted), compacted
    assert remote.view() == local.view()
