"""Split verification (`verify --split K`): the fault space cut into K parts, solved in turn or on Spark executors.

`verify` asks the fault-injected program (docs/faults.md) for a counterexample run with the fewest
faults (Alvaro, Rosen, Hellerstein, *Lineage-driven fault injection*, SIGMOD 2015, §3: a `pre` fact
without its `post` fact at the last step). Here the same optimisation is asked K times, each under
the cubes of assumptions of one part, on atoms that name the faults of a run:

    _split_crashed(Y)      :- _crashed(Y,S).                                 Y crashes at some step
    _split_omitted(X,S,Y)  :- chosen_R(X,S,Y,lost,W1..Wn), not _silenced(X,S).  an omission on X→Y at step S

(`chosen_R` for every message relation R; without crashes the omission rule has no `not _silenced`).
The rules only name what a model already holds, so they change no model. The split atoms are the
first of those whose truth varies between runs (true in some run, false in another: brave minus
cautious consequences of the program without the invariant, as `count --split` picks trace atoms),
crashes first, then omissions by step, until their truth assignments (cubes) number K or more —
leaving out the cubes with more crashed nodes than the bound C, which have no run; the cubes are
dealt to the K parts in turn. Every run satisfies exactly one cube, so the parts partition the runs, and

* the invariant holds iff it holds in every part (no part has a counterexample);
* the fewest faults of a counterexample is the least over the parts of each part's fewest; the one
  shown is that of the first part (then first cube) with that number, so the answer is deterministic;
* the answer is complete iff every part is; a part stopped by the deadline (`timeout`, shared by all
  parts; the start of Spark's JVM is not counted) leaves the invariant unknown unless another part
  found a counterexample.

So the verdict — holds, and the number of faults of its counterexample — is the unsplit `verify`'s. It
holds vacuously when no part has a run with a pre row at the last step: a question of the runs, not of
the cubes, so it is asked once of the unsplit program (`vacuous`) when every part holds, as `verify` asks it.
With `--all`, each part lists the minimal fault sets of its runs, and those that include another
part's set are dropped (`minimal`): the unsplit list. A part returns text, truth values and numbers
only: clingo's own pickling of a symbol is a pointer into the process that made it (the package
registers a pickling as text, in its `__init__`; the parts do not depend on it).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Callable

import clingo

from ..asp import solve
from ..asp.names import CRASHED, LOST, SILENCED
from ..asp.transform import Compiled, transform
from ..bounds import Bounds
from ..lang.ast import Instance, Program
from .verdict import Counterexample, FaultSet, Verdict
from .verify import (counterexample_of, fault_set_of, optimum, optimum_with_pre, fault_set_models, fault_sets_program,
                     grounded, invariant, vacuity)

SPLIT_CRASHED = "_split_crashed"
SPLIT_OMITTED = "_split_omitted"
ENGINES = ("local", "spark")


@dataclass(frozen=True)
class Part:
    """What one part found: `holds` True (no counterexample under its cubes), False (`faults`: the fewest of
    its counterexamples) or None (stopped before an answer); `complete`: its search finished."""

    index: int
    cubes: int
    holds: bool | None
    complete: bool
    faults: int | None
    seconds: float

    def as_dict(self) -> dict:
        return {"part": self.index + 1, "cubes": self.cubes, "holds": self.holds, "complete": self.complete,
                "faults": self.faults, "seconds": round(self.seconds, 3)}


@dataclass(frozen=True)
class SplitVerdict:
    """The combined verdict of the parts (the unsplit `verify`'s), with the split atoms and each part's answer."""

    verdict: Verdict
    atoms: tuple[str, ...]
    parts: tuple[Part, ...]
    engine: str

    def describe(self) -> str:
        done = sum(1 for p in self.parts if p.complete)
        broken = sum(1 for p in self.parts if p.holds is False)
        line = (f"  split into {len(self.parts)} part{'s' * (len(self.parts) != 1)} ({self.engine}) on whether "
                f"{', '.join(map(fault_words, self.atoms)) or 'no fault'}: {done} of {len(self.parts)} finished, "
                f"{broken} with a counterexample\n")
        first, *rest = self.verdict.describe().splitlines(keepends=True)
        return "".join([first, line, *rest])  # after the verdict's line, before the faults and their lineage

    def as_dict(self) -> dict:
        return {**self.verdict.as_dict(), "parts": len(self.parts),
                "split": {"engine": self.engine, "atoms": list(self.atoms), "parts": [p.as_dict() for p in self.parts]}}


def fault_words(atom: str) -> str:
    """A split atom as the text verdict says it: `_split_crashed(a)` is "a crashes", `_split_omitted(a,0,b)`
    is "a message from a to b at step 0 is lost" (the JSON keeps the atoms)."""
    symbol = clingo.parse_term(atom)
    if symbol.name == SPLIT_CRASHED:
        return f"{symbol.arguments[0]} crashes"
    sender, step, addressee = symbol.arguments
    return f"a message from {sender} to {addressee} at step {step} is lost"


def split_rules(compiled: Compiled) -> str:
    """The atoms that name a run's faults (see the module docstring): a crashed node, an omission on a channel at a step."""
    crashes = compiled.bounds.network.crashes
    lines = ["", "% verify --split: the faults of a run, named for the cubes of the parts"]
    for chosen, relation in compiled.messages.items():
        w = [f"W{i}" for i in range(1, compiled.arities[relation] + 1)]
        lines.append(f"{SPLIT_OMITTED}(X,S,Y) :- {chosen}({','.join(['X', 'S', 'Y', LOST, *w])})"
                     + (f", not {SILENCED}(X,S)" if crashes else "") + ".")
    if crashes:
        lines.append(f"{SPLIT_CRASHED}(Y) :- {CRASHED}(Y,S).")
    return "\n".join(lines) + "\n"


def _order(atom: clingo.Symbol) -> tuple:
    """Crashes first (by node), then omissions by step, sender, addressee."""
    if atom.name == SPLIT_CRASHED:
        return (0, 0, str(atom))
    return (1, atom.arguments[1].number, str(atom))


def varying(compiled: Compiled) -> list[str]:
    """The split atoms that some run may make true, crashes first, then omissions by step: the split atoms of the
    ground program that are not facts (clingo's symbolic atoms, no solving). An atom that is false in every run
    after all only leaves some cubes without a run, and the cubes still partition the runs.

    (The brave and cautious consequences, which tell exactly which atoms vary, did not converge within the
    deadline at large points and then left the parts no time: issue #31.)"""
    ctl = clingo.Control(["--warn=none"])
    ctl.add("base", [], compiled.text + split_rules(compiled))
    ctl.ground([("base", [])])
    found = [a.symbol for signature in ((SPLIT_CRASHED, 1), (SPLIT_OMITTED, 3))
             for a in ctl.symbolic_atoms.by_signature(*signature) if not a.is_fact]
    return [str(s) for s in sorted(found, key=_order)]


def cubes(atoms: list[str], parts: int, crashes: int = 0) -> tuple[list[str], list[list[tuple[bool, ...]]]]:
    """The split atoms (the first of `atoms`, until there are `parts` cubes or no atom left) and per part its
    cubes (truth values of those atoms), dealt in turn. A cube with more than `crashes` crashed nodes has no
    run and is left out: the cubes still partition the runs."""
    if parts < 1:
        raise ValueError(f"the number of parts must be 1 or more, not {parts}")
    chosen: list[str] = []
    every: list[tuple[bool, ...]] = [()]
    for atom in atoms:
        if len(every) >= parts:
            break
        crash = atom.startswith(SPLIT_CRASHED + "(")
        crashed = [a.startswith(SPLIT_CRASHED + "(") for a in chosen]
        grown = [cube + (value,) for cube in every for value in (False, True)
                 if not (value and crash and sum(v and c for v, c in zip(cube, crashed)) >= crashes)]
        if len(grown) > len(every):  # else the atom is false in every run left: it splits nothing
            chosen.append(atom)
            every = grown
    return chosen, [every[i::parts] for i in range(parts)]


def solve_part(
    compiled: Compiled, text: str, atoms: list[str], part: list[tuple[bool, ...]], deadline: float | None,
    pre: str, ctl: clingo.Control | None = None,
) -> dict:
    """The fewest-faults counterexample under one part's cubes: {"holds", "complete", "faults", "cube", "model"
    (the atoms of the run, as text: a clingo symbol pickles as a pointer), "seconds"}. `ctl`: the program already
    grounded (in turn, one grounding serves every part); else `text` is grounded here (on an executor)."""
    began = time.perf_counter()
    if ctl is None and part:
        ctl = grounded(text)
    symbols = [clingo.parse_term(a) for a in atoms]
    best, complete = None, True
    for k, cube in enumerate(part):
        left = None if deadline is None else deadline - time.time()
        if left is not None and left <= 0:
            complete = False
            break
        models, finished = optimum(ctl, left, zip(symbols, cube))
        complete = complete and finished
        if models:
            faults = counterexample_of(models[-1], compiled, pre, finished).faults
            if best is None or faults < best[0]:
                best = (faults, k, models[-1])
    return {
        "holds": False if best else (True if complete else None),
        "complete": complete,
        "faults": best[0] if best else None,
        "cube": best[1] if best else None,
        "model": [str(s) for s in best[2]] if best else None,
        "seconds": time.perf_counter() - began,
    }


def sets_part(
    sets_text: str, atoms: list[str], part: list[tuple[bool, ...]], deadline: float | None,
) -> tuple[list[list[str]], bool]:
    """`--all` in one part: the minimal fault sets of its cubes' runs (`fault_set_models` under each cube's
    assumptions, on one grounding of `sets_text`: a set found in one cube is forbidden with its supersets in
    the next, which only skips sets that are not minimal), one model per set as text, and whether it finished."""
    if not part:
        return [], True
    ctl = grounded(sets_text)
    symbols = [clingo.parse_term(a) for a in atoms]
    found: list[list[str]] = []
    for cube in part:
        left = None if deadline is None else deadline - time.time()
        if left is not None and left <= 0:
            return found, False
        models, finished = fault_set_models(ctl, left, zip(symbols, cube))
        found += [[str(s) for s in model] for model in models]
        if not finished:
            return found, False
    return found, True


def _task(payload: Compiled, text: str, sets_text: str | None, atoms: list[str], part: list[tuple[bool, ...]],
          deadline: float | None, pre: str, ctl: clingo.Control | None = None) -> dict:
    """One part: its optimisation (`solve_part`) and, with `sets_text` (--all) and a counterexample, its fault sets."""
    result = solve_part(payload, text, atoms, part, deadline, pre, ctl)
    if sets_text is not None and result["holds"] is False:
        result["sets"], result["sets_complete"] = sets_part(sets_text, atoms, part, deadline)
    return result


def vacuous(found: list[dict], deadline: float | None, ctl: clingo.Control | None = None, text: str = "") -> bool:
    """Whether the parts' verdict holds vacuously: every part holds and no run at all has a pre row at the last step.

    A pre row in any run is what matters, whichever cube the run satisfies, so it is one check of the unsplit
    program (`verify.optimum_with_pre`, on `ctl`, or on `text` grounded here: `vacuity`'s rules), made only when
    every part holds. Stopped by the deadline, it is not known to be vacuous: False."""
    if not found or not all(r["holds"] is True for r in found):
        return False
    left = None if deadline is None else max(deadline - time.time(), 0.0)
    return not optimum_with_pre(ctl if ctl is not None else grounded(text), left)


def _in_turn(payload: Compiled, text: str, sets_text: str | None, parts: int, pre: str,
             report: Callable[[int], None], timeout: float | None = None) -> tuple[list[str], list, list[dict], bool]:
    """The split atoms, the cubes of each part, what each part found and whether the verdict is vacuous (`vacuous`),
    the parts and the vacuity check solved in turn on one grounding. Only text, truth values and numbers: it may run
    in the solver's own process (`asp.solve.isolated`), and a clingo symbol made there means nothing here."""
    deadline = None if timeout is None else time.time() + timeout
    atoms, split = cubes(varying(payload), parts, payload.bounds.network.crashes)
    ctl = grounded(text)
    found = []
    for part in split:
        found.append(_task(payload, text, sets_text, atoms, part, deadline, pre, ctl))
        report(len(found))
    return atoms, split, found, vacuous(found, deadline, ctl)


def verify_split(
    program: Program, instance: Instance, bounds: Bounds, parts: int, pre: str = "pre", post: str = "post",
    timeout: float | None = None, engine: str = "local", spark=None, master: str | None = None,
    log_level: str | None = None, progress: Callable[[int], None] | None = None, all_: bool = False,
    max_memory: int | None = None,
) -> SplitVerdict:
    """`verify` as `parts` optimisations over disjoint cubes of fault atoms (see the module docstring), in turn
    (engine "local": in a process of its own with a `timeout` or `max_memory`, `asp.solve.isolated`) or as one
    Spark task per part (engine "spark"); `progress(k)` as k parts are done. With `all_`, the minimal fault
    sets too: each part's, less those that include another part's set (`minimal`).

    Raises InvariantError (from `invariant`) when `pre` or `post` is not a relation or their arities differ."""
    if engine not in ENGINES:
        raise ValueError(f"the engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    began = time.perf_counter()
    compiled = transform(program, instance, bounds)
    text = compiled.text + vacuity(invariant(program, compiled, pre, post)) + split_rules(compiled)
    sets_text = fault_sets_program(program, compiled, pre, post) + split_rules(compiled) if all_ else None
    payload = replace(compiled, program=None)  # P holds clingo symbols: a symbol is a pointer, valid in this process only
    report = progress or (lambda done: None)
    if engine == "spark":
        from .count import collect_watched
        from ..runs.session import spark_session

        deadline = None if timeout is None else time.time() + timeout
        atoms, split = cubes(varying(compiled), parts, bounds.network.crashes)
        starting = time.time()
        session = spark if spark is not None else spark_session(master, log_level=log_level)
        if deadline is not None:  # the JVM's start is not the parts' time
            deadline += time.time() - starting
        rdd = session.sparkContext.parallelize(list(enumerate(split)), numSlices=parts).map(
            lambda item: (item[0], _task(payload, text, sets_text, atoms, item[1], deadline, pre))
        )
        found = [r for _, r in sorted(collect_watched(session, rdd, report, "verify --split"), key=lambda r: r[0])]
        empty = vacuous(found, deadline, text=text)  # in the driver: one grounding, only when every part holds
    else:
        atoms, split, found, empty = solve.isolated(_in_turn, payload, text, sets_text, parts, pre, report,
                                                    timeout=timeout, max_memory=max_memory)
    combined = combine(found, split, atoms, compiled, bounds, pre, post, engine, time.perf_counter() - began, all_)
    return replace(combined, verdict=replace(combined.verdict, vacuous=empty))


def _faults_of(found: FaultSet) -> frozenset:
    return frozenset(found.omissions) | frozenset(found.crashes)


def minimal(sets: list[tuple[FaultSet, Counterexample]]) -> list[tuple[FaultSet, Counterexample]]:
    """The sets that include no other set of `sets` (each once, its first run kept), fewest faults first.

    The parts' minimal fault sets, so combined, are the whole's: a set minimal in the whole is minimal in
    the part of a run it breaks, and one that is minimal in its part only includes a smaller set that is
    minimal in the whole, found in its own part."""
    kept: dict[frozenset, tuple[FaultSet, Counterexample]] = {}
    for pair in sets:
        kept.setdefault(_faults_of(pair[0]), pair)
    return sorted((pair for faults, pair in kept.items() if not any(other < faults for other in kept)),
                  key=lambda pair: (len(_faults_of(pair[0])), str(pair[0])))


def combine(
    found: list[dict], split: list[list[tuple[bool, ...]]], atoms: list[str], compiled: Compiled, bounds: Bounds,
    pre: str, post: str, engine: str, seconds: float, all_: bool = False,
) -> SplitVerdict:
    """The parts' answers as one verdict: holds iff every part holds, complete iff every part is, the
    counterexample with the fewest faults (the first part's on a tie); with `all_`, the minimal fault sets."""
    complete = all(r["complete"] for r in found)
    broken = [(r["faults"], i) for i, r in enumerate(found) if r["holds"] is False]
    if broken:
        _, i = min(broken)
        symbols = [clingo.parse_term(a) for a in found[i]["model"]]
        counterexample = counterexample_of(symbols, compiled, pre, complete)
        if all_:
            models = [[clingo.parse_term(a) for a in model] for r in found for model in r.get("sets", ())]
            sets = minimal([(fault_set_of(m)[0], counterexample_of(m, compiled, pre, True)) for m in models])
            complete = complete and all(r.get("sets_complete", True) for r in found)
            verdict = Verdict(False, counterexample, complete, bounds, pre, post, seconds,
                              fault_sets=tuple(f for f, _ in sets), witnesses=tuple(w for _, w in sets))
        else:
            verdict = Verdict(False, counterexample, complete, bounds, pre, post, seconds)
    else:
        verdict = Verdict(True if complete else None, None, complete, bounds, pre, post, seconds,
                          fault_sets=() if all_ and complete else None)
    parts = tuple(Part(i, len(split[i]), r["holds"], r["complete"], r["faults"], r["seconds"]) for i, r in enumerate(found))
    return SplitVerdict(verdict, tuple(atoms), parts, engine)
