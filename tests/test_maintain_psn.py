"""PSN (psn2010 Algorithm 1 with Fig. 2's derivation sets) against recomputation: Definition 8 on every burst
of random DDlog programs, under every scheduler; and a broken maintainer that the check catches."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from dedalus2asp.lang.diagnostics import DiagnosticError
from dedalus2asp.maintain import Base, Burst, Fact, Update, parse_program
from dedalus2asp.maintain.check import definition8
from dedalus2asp.maintain.ddlog import ordered
from dedalus2asp.maintain.dred import DRed
from dedalus2asp.maintain.view import recompute
from dedalus2asp.maintain.pipelined import PSNEngine
from dedalus2asp.maintain.psn import DEL, INS, PSN, base_updates
from dedalus2asp.maintain.schedule import SCHEDULES, Pool

import clingo

NODES = [clingo.Function(n) for n in "abc"]
VARIABLES = "XYZ"


def random_program(rng: random.Random) -> str:
    """2-3 rules over base relations e, f and derived p, q (all binary, location first), recursion linear (a
    body has one derived atom at most: non-linear recursion has so many derivations through cycles that
    PSN's derivation sets multiply beyond a test's time)."""
    rules = []
    for _ in range(rng.randint(2, 3)):
        head = rng.choice("pq")
        body = []
        for k in range(rng.randint(1, 2)):
            relation = rng.choice("ef" if any(r in "pq" for r, _, _ in body) else "efpq")
            body.append((relation, rng.choice(VARIABLES), rng.choice(VARIABLES)))
        used = [v for _, a, b in body for v in (a, b)]
        rules.append(f"{head}(#{rng.choice(used)}, {rng.choice(used)}) :- "
                     + ", ".join(f"{r}(#{a}, {b})" for r, a, b in body) + ";")
    return "\n".join(rules) + "\ne(#a, a);\nf(#a, a);\n"  # e and f are base relations of every program


def random_fact(rng: random.Random) -> Fact:
    return Fact(rng.choice("ef"), (rng.choice(NODES), rng.choice(NODES)))


def random_bursts(rng: random.Random, base: Counter, n: int) -> list[Burst]:
    current = Counter(base)
    bursts = []
    for number in range(1, n + 1):
        updates = []
        for _ in range(rng.randint(1, 4)):
            if current and rng.random() < 0.5:
                fact = rng.choice(sorted(current))
                current[fact] -= 1
                current = +current
                updates.append(Update("-", fact))
            else:
                fact = random_fact(rng)
                current[fact] += 1
                updates.append(Update("+", fact))
        bursts.append(Burst(number, tuple(updates)))
    return bursts


def cases(count: int, seed: int = 0):
    rng = random.Random(seed)
    made = 0
    while made < count:
        try:
            program = parse_program(random_program(rng), "random.ded")
        except DiagnosticError:
            continue  # unsafe or not localizable: draw again
        base = Counter(random_fact(rng) for _ in range(rng.randint(1, 4)))
        base += Counter(program.facts)
        made += 1
        yield program, base, random_bursts(rng, base, 3)


def failures(engine_of, count: int, seed: int = 0) -> list[str]:
    """The programs (and bursts) where an engine's view differs from recomputation after some burst."""
    out = []
    for program, base, bursts in cases(count, seed):
        engine = engine_of()
        engine.start(program, base)
        current = Base(base)
        for burst in bursts:
            engine.apply(burst)
            current.apply(burst)
            wrong = definition8(engine.view(), program, current.facts)
            if wrong:
                out.append(f"{program.text}\n{[str(u) for b in bursts for u in b.updates]}\n{wrong.lines()}")
                break
    return out


def test_dred_keeps_the_set_view_of_random_programs():
    assert failures(DRed, 80, seed=3) == []


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_psn_keeps_the_view_of_random_programs_under_every_schedule(schedule):
    assert failures(lambda: PSNEngine(schedule, seed=7), 200) == []


def test_random_programs_are_recursive_and_not_and_span_several_nodes():
    programs = [p for p, _, _ in cases(200)]
    recursive = [p for p in programs if any(a.predicate in "pq" for r in p.rules for a in r.body)]
    assert 50 < len(recursive) < 200
    assert sum(1 for p in programs if p.auxiliary) > 50  # bodies over several nodes, localized


class DeafPSN(PSN):
    """A broken maintainer: it commits deletions but fires no deletion delta rule, so what a deleted fact
    derived stays in the view."""

    def fire(self, op, item):
        return iter(()) if op == DEL else super().fire(op, item)


class BrokenEngine(PSNEngine):
    def start(self, program, base):
        self.program, self.psn, self.pool = program, DeafPSN(program), Pool("fifo")
        self.initial = self._run(0, base_updates(INS, base))


def test_the_check_fails_on_a_broken_maintainer():
    found = failures(BrokenEngine, 60)
    assert len(found) > 10 and "extra " in found[0]


def test_recompute_agrees_with_clingo_on_the_random_programs():
    """The reference itself, checked against a solver nobody here wrote: the least model as sets."""
    for program, base, _ in cases(40, seed=11):
        asp = "".join(f"{r.head}:-{','.join(map(str, r.body))}." for r in program.rules)
        asp += "".join(f"{f}." for f in base)
        control = clingo.Control(["--warn=none"])
        control.add("base", [], asp)
        control.ground([("base", [])])
        with control.solve(yield_=True) as handle:
            model = {Fact(s.name, tuple(s.arguments)) for s in next(iter(handle)).symbols(atoms=True)}
        assert recompute(program, base).facts == model


def test_a_grid_keeps_one_derivation_per_path():
    """docs/maintain.md: on the 5×5 grid of links right and down, reachable from corner to corner has C(8, 4) = 70
    derivations, and the 200 reachable facts have 862 in all."""
    program = parse_program("reachable(#S, D) :- link(#S, D);\nreachable(#S, D) :- link(#S, Z), reachable(#Z, D);",
                            "r.ded")
    node = lambda i, j: clingo.Function(f"v{i}_{j}")  # noqa: E731
    links = Counter({Fact("link", (node(i, j), node(i + di, j + dj))): 1
                     for i in range(5) for j in range(5) for di, dj in ((1, 0), (0, 1)) if i + di < 5 and j + dj < 5})
    engine = PSNEngine("random", seed=3)
    engine.start(program, links)
    view = engine.view().shown(program)
    reachable = [f for f in view.facts if f.relation == "reachable"]
    assert len(reachable) == 200 and sum(view.counts[f] for f in reachable) == 862
    assert view.count(Fact("reachable", (node(0, 0), node(4, 4)))) == 70
    assert recompute(program, links).counts == view.counts


@pytest.mark.parametrize("engine_of", [lambda: PSNEngine("fifo"), DRed], ids=["psn", "dred"])
def test_a_burst_reads_no_whole_view_and_builds_no_index(engine_of, monkeypatch):
    """A burst costs what it touches: the engine reports what changed from its own commits (the view is never
    built during the burst), and every index its joins use exists before the burst."""
    program = parse_program("reachable(#S, D) :- link(#S, D);\nreachable(#S, D) :- link(#S, Z), reachable(#Z, D);",
                            "r.ded")
    node = [clingo.Function(f"v{i}") for i in range(8)]
    links = Counter({Fact("link", (node[i // 2], node[i])): 1 for i in range(1, 8)})  # a binary tree
    burst = Burst(1, (Update("-", Fact("link", (node[0], node[1]))), Update("+", Fact("link", (node[5], node[7])))))
    after = Base(links)
    after.apply(burst)
    before, now = recompute(program, links).facts, recompute(program, after.facts).facts
    engine = engine_of()
    engine.start(program, links)
    table = engine.psn.K if isinstance(engine, PSNEngine) else engine.V
    indexes = set(table._indexes)
    monkeypatch.setattr(type(engine), "view", lambda self: pytest.fail("the burst built the whole view"))
    inserted, deleted = engine.apply(burst).changes
    assert set(table._indexes) == indexes
    assert (inserted, deleted) == (ordered(now - before), ordered(before - now))
    assert [str(f) for f in inserted] == ["link(v5, v7)", "reachable(v2, v7)", "reachable(v5, v7)"] and len(deleted) == 8
