"""Invariants under faults: does every `pre` fact have its `post` fact at the last step, whatever is lost and whoever crashes?

Molly (Alvaro, Rosen, Hellerstein, *Lineage-driven fault injection*, SIGMOD 2015, §3) asks of a
protocol and its invariant file: in every run within the failure bounds, "for every row in
`pre` there is a matching row in `post`" at the end of time. Molly answers it for synchronous
rounds by running one execution per fault hypothesis; `verify` asks it once of the fault-injected
program (`transform` within `bounds.network`, docs/faults.md), whose models are the runs of every
fault set and every schedule at once (tplp2016 Theorem 4, bounded):

    _pre_row((A1,..,Ak)) :- pre((),T,A1..Ak).       T the horizon; a global relation at node ()
    _post_row((A1,..,Ak)) :- post(A1,T,A2..Ak).     a located relation: its location is the first column
    _missing(R) :- _pre_row(R), not _post_row(R).   _violated :- _missing(R).   :- not _violated.

A model is a counterexample run. Among them the solver minimises the number of faults (lost
messages plus crashed nodes), so the counterexample shown needs the fewest faults. No model: the
invariant holds — within the bounds, which the verdict states ("no counterexample with ≤ 1 crash,
losses before step 3, horizon 5, sync delivery"), never bare. Rows are compared as Molly reads them, the
location column of a located relation first: pre(b, "hello") of an invariant file's global rule
is matched by post(b, "hello"), global as well, or by the fact post("hello") held by node b.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import replace

import clingo

from ..asp.incremental import tuple_term
from ..asp.names import CRASHED, LOOP, LOST, OMITTED, SILENCED, omission_key, relation_name
from ..asp.transform import Compiled, transform
from ..bounds import Bounds, Mode, Semantics
from ..inspect.model import Model, decode
from ..lang.ast import Instance, Program
from ..runs import eventual_verify
from ..runs.drift import may_drift
from . import deepening, eventual, models
from .models import first_steps
from .verdict import Counterexample, Crash, FaultSet, Lost, Missing, Verdict

MISSING = "_missing"
MISSING_AT = "_missing_at"  # eventual mode: _missing_at(R, S), the pre row R has no post row at loop step S
PRE_ROW, POST_ROW = "_pre_row", "_post_row"
VIOLATED = "_violated"
CHECK_PRE, HAS_PRE = "_check_pre", "_has_pre"  # the vacuity check: is there a run with a pre row at all?
FAULT = "_fault"


class InvariantError(ValueError):
    """The program cannot be asked the question: no relation `pre` or `post`, or different arities."""


def _relation(program: Program, name: str, option: str) -> int:
    arities = program.schema()
    if name not in arities:
        known = ", ".join(sorted(program.idb())) or "none"
        raise InvariantError(
            f"the program has no relation '{name}' to verify (give {option} R; the relations its rules derive: {known})"
        )
    return arities[name]


def _row(program: Program, name: str, option: str) -> tuple[int, bool]:
    """The width of a row of `name` as Molly reads it (the location column first for a located relation), and whether it is global."""
    arity = _relation(program, name, option)
    is_global = name in program.global_relations()
    return arity + (0 if is_global else 1), is_global


def invariant_rows(program: Program, pre: str, post: str) -> tuple[int, bool, bool]:
    """The width k of a row of `pre` and of `post` (a pre row is matched by the post row with the same
    columns), and whether each relation is global; `InvariantError` when their widths differ."""
    (k, pre_global), (k_post, post_global) = _row(program, pre, "--pre"), _row(program, post, "--post")
    if k_post != k:
        raise InvariantError(
            f"a row of '{pre}' has {k} column{'s' * (k != 1)} and one of '{post}' {k_post} (a located relation's "
            "location column counts): a pre row is matched by the post row with the same columns"
        )
    return k, pre_global, post_global


def row_atoms(program: Program, pre: str, post: str, step: str) -> tuple[str, str, str]:
    """The row term (A1,..,Ak) and the atoms that read a `pre` row and a `post` row at `step` (a number, or a
    variable of the caller's rule): a global relation's row is its arguments, a located one's its location column
    followed by its arguments (`invariant_rows` checks the two relations)."""
    k, pre_global, post_global = invariant_rows(program, pre, post)
    columns = [f"A{i}" for i in range(1, k + 1)]

    def reads(name: str, is_global: bool) -> str:
        node, args = ("()", columns) if is_global else (columns[0], columns[1:])
        return f"{relation_name(name)}({','.join([node, step, *args])})"

    return tuple_term(columns), reads(pre, pre_global), reads(post, post_global)


def invariant(program: Program, compiled: Compiled, pre: str, post: str) -> str:
    """The rules that make a model a counterexample (`violation`), and the fewest faults its optimum (see the
    module docstring)."""
    return violation(program, compiled, pre, post) + fewest_faults(compiled)


def violation(program: Program, compiled: Compiled, pre: str, post: str) -> str:
    """The rules that make a model a counterexample: a pre row at the last step without its post row; in the
    eventual mode (`eventual_violation`), a pre row without its post row at some step of the loop.

    A row of a relation is its fact as Molly reads it: a global relation's arguments, or a located
    relation's location column followed by its arguments; a pre row needs the same post row."""
    if compiled.bounds.mode is Mode.EVENTUAL:
        return eventual_violation(program, compiled, pre, post)
    horizon = compiled.bounds.horizon
    row, pre_atom, post_atom = row_atoms(program, pre, post, str(horizon))

    lines = [
        "",
        f"% verify: a model is a run in which some {pre} row has no matching {post} row at step {horizon}",
        f"{PRE_ROW}({row}) :- {pre_atom}.",
        f"{POST_ROW}({row}) :- {post_atom}.",
        f"{MISSING}(R) :- {PRE_ROW}(R), not {POST_ROW}(R).",
        f"{VIOLATED} :- {MISSING}(R).",
        f":- not {VIOLATED}.",
    ]
    return "\n".join(lines) + "\n"


def eventual_violation(program: Program, compiled: Compiled, pre: str, post: str) -> str:
    """The rules that make a lasso model (eventual mode) a counterexample: some step S of the loop L..K-1 has a pre
    row R without its post row. The loop repeats forever, so in the infinite run R lacks its post row at
    infinitely many steps: R is never ultimately matched (the LTL property FG(pre → post) fails), which is
    "bounded verify has a counterexample at EOT t for infinitely many t". A lasso whose loop has no pre row at all
    satisfies the invariant from L on.

        _pre_row(R,S) :- pre(X,S,..), _loop(L), S >= L.     _post_row(R,S) :- post(X,S,..).
        _missing_at(R,S) :- _pre_row(R,S), not _post_row(R,S).   _missing(R) :- _missing_at(R,_).
        _violated :- _missing(R).   :- not _violated."""
    row, pre_atom, post_atom = row_atoms(program, pre, post, "S")

    lines = [
        "",
        f"% verify --eventual: a model is a lasso in which some {pre} row has no matching {post} row at a step of",
        "% the loop, so at infinitely many steps of the infinite run (Heljanko and Niemelä, Bounded LTL model",
        "% checking with stable models, TPLP 2003: the loop steps are the ones a k-loop visits forever)",
        f"{PRE_ROW}({row},S) :- {pre_atom}, {LOOP}(L), S >= L.",
        f"{POST_ROW}({row},S) :- {post_atom}.",
        f"{MISSING_AT}(R,S) :- {PRE_ROW}(R,S), not {POST_ROW}(R,S).",
        f"{MISSING}(R) :- {MISSING_AT}(R,_).",
        f"{VIOLATED} :- {MISSING}(R).",
        f":- not {VIOLATED}.",
    ]
    return "\n".join(lines) + "\n"


def fewest_faults(compiled: Compiled) -> str:
    """The optimum of `invariant`: the fewest omissions and crashes."""
    lines = [
        "% the fewest faults: omissions (a message lost while its sender is up) and crashed nodes; the",
        "% weight-0 element makes it an optimisation even when no fault can happen (clingo stops at the",
        "% first model of a program without a #minimize, not proving it the fewest)",
        "#minimize { 0,_none : #true }.",
    ]
    for chosen, relation in compiled.messages.items():
        w = [f"W{i}" for i in range(1, compiled.arities[relation] + 1)]
        lines.append(f'#minimize {{ 1,{omission_key(relation, w, compiled.bounds.network.by_channel)} : '
                     f'{chosen}({",".join(["X", "S", "Y", LOST, *w])})'
                     + (f", not {SILENCED}(X,S)" if compiled.bounds.network.crashes else "") + " }.")
    if compiled.bounds.network.crashes:
        lines.append(f"#minimize {{ 1,{CRASHED},Y : {CRASHED}(Y,S) }}.")
    return "\n".join(lines) + "\n"


def counterexample_of(symbols: list[clingo.Symbol], compiled: Compiled, pre: str, fewest: bool) -> Counterexample:
    lost, crashes, missing = [], [], []
    silenced = {(a.arguments[0], a.arguments[1]) for a in symbols if a.name == SILENCED and len(a.arguments) == 2}
    for atom in symbols:
        args = atom.arguments
        if atom.name in compiled.messages and len(args) >= 4 and args[3].match(LOST, 0):
            by_crash = (args[0], args[1]) in silenced
            lost.append(Lost(args[0], args[1].number, args[2], compiled.messages[atom.name], tuple(args[4:]), by_crash))
        elif atom.name == CRASHED and len(args) == 2:
            crashes.append(Crash(args[0], args[1].number))
        elif atom.name == MISSING and len(args) == 1 and not any(
                a.name == MISSING_AT and a.arguments[0] == args[0] for a in symbols):
            missing.append(Missing(None, pre, tuple(args[0].arguments)))
        elif atom.name == MISSING_AT and len(args) == 2:  # eventual: one entry per row, at its first loop step
            first = min(a.arguments[1].number for a in symbols if a.name == MISSING_AT and a.arguments[0] == args[0])
            if args[1].number == first:
                missing.append(Missing(None, pre, tuple(args[0].arguments), first))
    key = lambda x: tuple(map(str, x.as_dict().values()))  # noqa: E731
    return Counterexample(
        tuple(sorted(lost, key=key)), tuple(sorted(crashes, key=key)), tuple(sorted(missing, key=key)),
        decode(symbols, compiled), fewest,
    )


def verify(
    program: Program, instance: Instance, bounds: Bounds, pre: str = "pre", post: str = "post",
    timeout: float | None = None, all_: bool = False,
) -> Verdict:
    """Ask the fault-injected program for a run that breaks the invariant, with the fewest faults (see the module
    docstring); with `all_`, list the minimal fault sets that break it too (`minimal_fault_sets`). In the eventual
    mode (`bounds.mode`), ask it of the infinite runs: `verify_eventual`.

    Raises InvariantError when `pre` or `post` is not a relation of the program or their arities differ."""
    if bounds.mode is Mode.EVENTUAL:
        return verify_eventual(program, instance, bounds, pre, post, timeout, all_)
    return verify_at(program, instance, bounds, pre, post, timeout, all_)


def remaining(timeout: float | None, began: float) -> float | None:
    """What is left of `timeout` seconds since `began` (`time.perf_counter`), never below 0; None: no limit."""
    return None if timeout is None else max(timeout - (time.perf_counter() - began), 0.0)


def verify_eventual(
    program: Program, instance: Instance, bounds: Bounds, pre: str = "pre", post: str = "post",
    timeout: float | None = None, all_: bool = False, max_k: int = deepening.MAX_K,
) -> Verdict:
    """Every pre row ultimately matched in every infinite run with the faults of `bounds.network`, or a lasso
    counterexample in which some pre row lacks its post row at a step of the loop (`eventual_violation`), the
    fewest faults first: asked once of the lasso models with K steps, K the completeness threshold
    (`eventual.threshold`; bounded, `Exactness.exact` False, when its search stops). The verdict carries K and
    whether it is exact; a counterexample is an infinite run whatever K, its faults the fewest only when exact."""
    began = time.perf_counter()
    invariant_rows(program, pre, post)  # a bad --pre/--post before any solving
    graphed = None if all_ else by_graph(program, instance, bounds, pre, post, timeout, began)
    if graphed is not None:
        return graphed
    exactness = eventual.threshold(program, instance, bounds, max_k, timeout)
    left = remaining(timeout, began)
    verdict = verify_at(program, instance, eventual.lasso_bounds(bounds, exactness.K), pre, post, left, all_)
    if verdict.holds and not exactness.exact:
        left = remaining(timeout, began)
        verdict, exactness = never_weaker(program, instance, bounds, pre, post, verdict, exactness, left, all_, max_k)
    elif verdict.holds and may_drift(program, instance, bounds.network):
        left = remaining(timeout, began)
        verdict, exactness = drifting(program, instance, bounds, pre, post, verdict, exactness, left, all_)
    if verdict.bounded_run:
        return replace(verdict, exactness=exactness, seconds=time.perf_counter() - began)
    c = verdict.counterexample
    if c is not None and c.fewest:
        verdict = shortest(program, instance, bounds, exactness.K, verdict, pre, post, timeout, began)
        c = verdict.counterexample
    if c is not None and not exactness.exact:
        c = replace(c, fewest=False)  # the fewest among the lassos of ≤ K steps only
    return replace(verdict, counterexample=c, exactness=exactness, seconds=time.perf_counter() - began)


def by_graph(program: Program, instance: Instance, bounds: Bounds, pre: str, post: str, timeout: float | None,
             began: float) -> Verdict | None:
    """The explorer's exact verdict (`runs.eventual_verify`, `explore --eventual --pre --post`) where it is the cheaper
    procedure, as `models.graph_first` is for the ultimate outputs: under a delay bound, with no fault (the
    threshold's loop-free paths grow exponentially with D: a 50-configuration graph under delay ≤ 3 that the explorer
    decides in a second kept the threshold search for minutes), for the runs (causal-finite), when the graph closes
    within `models.EXPLORER_LIMIT` configurations and says "holds" of every run or shows a counterexample lasso; a
    "holds" of the runs in rounds only (the clocks may drift) is then checked against the others as `drifting` checks
    the lassos', not exact. The counterexample is then the solver's, among the lassos of as many steps as the
    explorer's witness (`shortest` shortens it); "holds" is the lassos' of the fewest steps, vacuous as the graph
    says. None otherwise (or when
    the solver disagrees with the graph, which the eventual Theorem 4 rules out: the thresholds answer)."""
    network = bounds.network
    if (network.sync or bounds.semantics is not Semantics.CAUSAL_FINITE or network.loss_until is not None
            or network.crashes or instance is None):
        return None
    try:
        found = eventual_verify.verify(program, instance, bounds, pre, post, models.EXPLORER_LIMIT)
    except ValueError:
        return None
    if found.holds is None:
        return None
    K = first_steps(program, instance)
    if found.holds is False:
        K = max(K, found.witness.loop_start + found.witness.period)
    left = remaining(timeout, began)
    verdict = verify_at(program, instance, eventual.lasso_bounds(bounds, K), pre, post, left)
    if verdict.holds is not found.holds or not verdict.complete:
        return None
    exactness = eventual.Exactness(K, True, "", "graph")
    if verdict.holds and found.in_rounds:  # decided for the runs in rounds; those whose clocks drift: bounded
        left = remaining(timeout, began)
        verdict, exactness = drifting(program, instance, bounds, pre, post, replace(verdict, vacuous=found.vacuous),
                                      exactness, left, False)
    elif verdict.holds:
        verdict = replace(verdict, vacuous=found.vacuous)
    else:
        verdict = shortest(program, instance, bounds, K, verdict, pre, post, timeout, began)
    return replace(verdict, exactness=exactness, seconds=time.perf_counter() - began)


def drifting(program: Program, instance: Instance, bounds: Bounds, pre: str, post: str, found: Verdict,
             exactness: eventual.Exactness, timeout: float | None, all_: bool):
    """An exact "holds" of the lassos, which are runs in rounds, where the nodes' clocks may drift apart
    (`runs.drift.may_drift`; docs/semantics.md, "Decision: the rounds"): not exact, and checked against the runs
    with free clocks by bounded `verify --eot N`, N = K + D (the runs of as many steps as the lassos, and the
    delay bound), whose counterexample is the verdict, marked a bounded run, as `never_weaker` marks it."""
    n = exactness.K + (bounds.network.delay_bound or 0)
    run = verify_at(program, instance, replace(bounds, horizon=n - 1, mode=Mode.BOUNDED), pre, post, timeout, all_)
    said = (f"others checked at the last step of their first {n} steps only (verify --eot {n}" + (
        ", which finds a counterexample)" if run.holds is False else ", which finds none)" if run.holds else
        ", stopped by the time limit)"))
    drift = replace(exactness, exact=False, free_clocks=-1,
                    reason=f"the nodes' clocks may drift apart: runs in rounds decided exactly, {said}")
    return (replace(run, bounded_run=True), drift) if run.holds is False else (found, drift)


def never_weaker(program: Program, instance: Instance, bounds: Bounds, pre: str, post: str, found: Verdict,
                 exactness: eventual.Exactness, timeout: float | None, all_: bool, max_k: int):
    """A bounded "holds" (no completeness threshold) made never weaker than bounded `verify`: the lassos are
    deepened past the K asked (`deepening.deepen`, to `max_k` steps past the loss window (`models.reach`) or the
    time limit) until one is a counterexample (an
    infinite run: exact whatever K). If none is, bounded `verify --eot K` is asked at the deepest K reached, the
    runs of as many steps as those lassos, which lassos do not cover (a counter that grows forever has no lasso at
    all): a counterexample there is the verdict, marked a bounded run (`Verdict.bounded_run`: not shown to lack its
    post row forever, so not exact). Else `found`'s "holds", over the deepest lassos and the runs of K steps. The
    runs of fewer steps are not asked: one cut before its post row arrives (the retry broadcast at EOT 3,
    docs/faults.md) stands for no infinite run, and a K that deepens further asks a later EOT."""
    began = time.monotonic()

    def lasso(k: int, left: float) -> Verdict | None:
        answer = verify_at(program, instance, eventual.lasso_bounds(bounds, k), pre, post, left, all_)
        return None if answer.holds is None else answer

    broken = lambda answer: answer.holds is False  # noqa: E731
    K, answer, stopped = deepening.deepen(exactness.K, lasso, broken, timeout,
                                          models.reach(program, instance, bounds, max_k))
    deepest = exactness.deepened(K, stopped, answer is not None and broken(answer))
    if answer is not None and broken(answer):
        return answer, deepest
    left = None if timeout is None else max(timeout - (time.monotonic() - began), 0.0)
    run = verify_at(program, instance, replace(bounds, horizon=K - 1, mode=Mode.BOUNDED), pre, post, left, all_)
    if run.holds is False:
        return replace(run, bounded_run=True), deepest
    said = ("no run of {K} steps breaks it at its last step either (verify --eot {K})" if run.holds else
            "verify --eot {K} was stopped by the time limit").format(K=K)
    return answer or found, replace(deepest, reason=f"{deepest.reason}; {said}")


def shortest(program: Program, instance: Instance, bounds: Bounds, K: int, found: Verdict, pre: str, post: str,
             timeout: float | None, began: float) -> Verdict:
    """The shortest lasso among the counterexamples with the fewest faults: the lassos of K steps found the fewest
    faults n; the lassos of k < K steps (every shorter one among them) cannot have fewer, so the first k from the
    fewest steps a lasso can have (`models.first_steps`) whose optimum has n faults gives the shortest
    counterexample with n faults (Heljanko and Niemelä, *Bounded LTL model checking with stable models*, TPLP 2003,
    §4: a witness found at k is an infinite run, whatever k). A timeout keeps the one of K steps."""
    fewest = found.counterexample.faults
    for k in range(max(1, first_steps(program, instance)), K):
        left = None if timeout is None else timeout - (time.perf_counter() - began)
        if left is not None and left <= 0:
            break
        c = verify_at(program, instance, eventual.lasso_bounds(bounds, k), pre, post, left).counterexample
        if c is not None and c.fewest and c.faults == fewest:  # the verdict's K, and fault sets (--all), stay K's
            return replace(found, counterexample=c)
    return found


def verify_at(
    program: Program, instance: Instance, bounds: Bounds, pre: str = "pre", post: str = "post",
    timeout: float | None = None, all_: bool = False,
) -> Verdict:
    """`verify` within `bounds` as they are: its horizon, or in the eventual mode the lassos of horizon + 1 steps."""
    began = time.perf_counter()
    compiled = transform(program, instance, bounds)
    ctl = grounded(compiled.text + vacuity(invariant(program, compiled, pre, post), bounds.mode is Mode.EVENTUAL))
    best, complete = optimum(ctl, timeout)
    seconds = time.perf_counter() - began
    if not best and complete:
        vacuous = not optimum_with_pre(ctl, None if timeout is None else max(timeout - seconds, 0.0))
        return Verdict(True, None, True, bounds, pre, post, time.perf_counter() - began,
                       fault_sets=() if all_ else None, vacuous=vacuous)
    if best:
        found = counterexample_of(best[-1], compiled, pre, complete)
        sets = None
        if all_:
            left = None if timeout is None else max(timeout - seconds, 0.0)
            found_sets, finished = minimal_fault_sets(program, instance, bounds, pre, post, left, runs=True)
            sets, witnesses = tuple(f for f, _ in found_sets), tuple(w for _, w in found_sets)
            complete = complete and finished
            return Verdict(False, found, complete, bounds, pre, post, time.perf_counter() - began, fault_sets=sets,
                           witnesses=witnesses)
        return Verdict(False, found, complete, bounds, pre, post, time.perf_counter() - began)
    return Verdict(True if complete else None, None, complete, bounds, pre, post, seconds, fault_sets=() if all_ and complete else None)


def vacuity(rules: str, eventual: bool = False) -> str:
    """The rules of `invariant` with a switch, the external atom `_check_pre` (false unless assigned): on, a
    model is any run with a pre row at the last step (`eventual`: at a step of the loop), violated or not. Off,
    the models are `invariant`'s."""
    rows = f"{PRE_ROW}(_,_)" if eventual else f"{PRE_ROW}(_)"
    return rules.replace(
        f":- not {VIOLATED}.",
        f":- not {VIOLATED}, not {CHECK_PRE}.\n#external {CHECK_PRE}.\n{HAS_PRE} :- {rows}.\n"
        f":- {CHECK_PRE}, not {HAS_PRE}.", 1)


def optimum_with_pre(ctl: clingo.Control, timeout: float | None, switch: clingo.Symbol | None = None) -> bool:
    """Whether some run of `ctl` (`vacuity`'s rules) has a pre row at the last step; True when stopped (not
    known to be vacuous). `switch`: the external that turns the check on, `_check_pre` unless given (the
    multi-shot search has one per horizon)."""
    switch = clingo.Function(CHECK_PRE) if switch is None else switch
    found: list[bool] = []

    def first(_model) -> bool:  # one run suffices: stop there, no optimisation
        found.append(True)
        return False

    ctl.assign_external(switch, True)
    try:
        with ctl.solve(async_=True, on_model=first) as handle:
            finished = handle.wait(timeout) if timeout is not None else handle.wait()
            if not finished:
                handle.cancel()
            handle.get()
    finally:
        ctl.assign_external(switch, False)
    return bool(found) or not finished


def grounded(text: str) -> clingo.Control:
    """A control for an optimisation (`--opt-mode=opt`) with `text` as its base program, grounded."""
    ctl = clingo.Control(["--opt-mode=opt", "--warn=none"])
    ctl.add("base", [], text)
    ctl.ground([("base", [])])
    return ctl


def optimum(ctl: clingo.Control, timeout: float | None, assumptions=()) -> tuple[list[list[clingo.Symbol]], bool]:
    """Solve `ctl` (an optimisation) within `timeout` seconds, under `assumptions` ((atom, truth) pairs, as
    clingo takes them): the models found, each better than the one before (the last is optimal when the
    search was complete), and whether it was."""
    best: list[list[clingo.Symbol]] = []
    with ctl.solve(assumptions=list(assumptions), async_=True, on_model=lambda m: best.append(m.symbols(atoms=True))) as handle:
        finished = handle.wait(timeout) if timeout is not None else handle.wait()
        if not finished:
            handle.cancel()
        result = handle.get()
    return best, bool(finished) and result.exhausted


def _faults(compiled: Compiled) -> str:
    """`_fault(F)` for each fault of a model (an omission, or a crash), and their number minimised."""
    crashes = compiled.bounds.network.crashes
    lines = ["", "% --all: the faults of a run, fewest first"]
    for chosen, relation in compiled.messages.items():
        w = [f"W{i}" for i in range(1, compiled.arities[relation] + 1)]
        row = tuple_term(w)
        lines.append(f'{FAULT}(omission(X,S,Y,"{relation}",{row})) :- {chosen}({",".join(["X", "S", "Y", LOST, *w])})'
                     + (f", not {SILENCED}(X,S)" if crashes else "") + ".")
    if crashes:
        lines.append(f"{FAULT}(crash(Y,S)) :- {CRASHED}(Y,S).")
    if compiled.bounds.network.by_channel:  # an omission cuts a channel: its messages are one fault
        lines.append(f"#minimize {{ 1,{OMITTED},X,S,Y : {FAULT}(omission(X,S,Y,_,_)); 1,F : {FAULT}(F), F = crash(_,_) }}.")
    else:
        lines.append(f"#minimize {{ 1,F : {FAULT}(F) }}.")
    lines.append("#minimize { 0,_none : #true }.  % an optimisation even when no fault can happen (see invariant)")
    return "\n".join(lines) + "\n"


def fault_set_of(symbols: list[clingo.Symbol]) -> tuple[FaultSet, list[clingo.Symbol]]:
    omissions, crashes, atoms = [], [], []
    for atom in symbols:
        if atom.name == FAULT and len(atom.arguments) == 1:
            atoms.append(atom)
            fault = atom.arguments[0]
            if fault.name == "crash":
                crashes.append(Crash(fault.arguments[0], fault.arguments[1].number))
            else:
                x, s, y, relation, row = fault.arguments
                omissions.append(Lost(x, s.number, y, relation.string, tuple(row.arguments)))
    return FaultSet(tuple(sorted(omissions, key=str)), tuple(sorted(crashes, key=str))), atoms


def minimal_fault_sets(
    program: Program, instance: Instance, bounds: Bounds, pre: str = "pre", post: str = "post",
    timeout: float | None = None, runs: bool = False,
):
    """Every subset-minimal set of faults with which some run breaks the invariant, fewest first, and
    whether the enumeration finished (False: stopped by `timeout`, with the sets found so far).

    One optimisation per set: the run with the fewest faults among those whose faults include no set
    found before (each found set is then forbidden with its supersets). A set found this way is
    subset-minimal: a smaller breaking set would include no found set either, and have come first.
    With `runs`, each set comes with a run it breaks (a `Counterexample`), as pairs."""
    began = time.perf_counter()
    compiled = transform(program, instance, bounds)
    ctl = grounded(fault_sets_program(program, compiled, pre, post))
    models, finished = fault_set_models(ctl, None if timeout is None else timeout - (time.perf_counter() - began))
    found = [(fault_set_of(m)[0], counterexample_of(m, compiled, pre, True)) if runs else fault_set_of(m)[0] for m in models]
    if not finished:
        return tuple(found), False
    size = (lambda f: (len(f[0].omissions) + len(f[0].crashes), str(f[0]))) if runs else (
        lambda f: (len(f.omissions) + len(f.crashes), str(f)))
    return tuple(sorted(found, key=size)), True


def fault_sets_program(program: Program, compiled: Compiled, pre: str, post: str) -> str:
    """The program whose optimal models have the fewest faults among the counterexamples (`_fault(F)` atoms)."""
    return compiled.text + violation(program, compiled, pre, post) + _faults(compiled)


_FOUND = itertools.count(1)


def fault_set_models(ctl: clingo.Control, timeout: float | None, assumptions=()) -> tuple[list[list[clingo.Symbol]], bool]:
    """The enumeration of `minimal_fault_sets` on `ctl` (`fault_sets_program`, grounded; under `assumptions`,
    clingo's (atom, truth) pairs, if any): one optimal model per minimal set, in the order found, and whether
    it finished within `timeout` seconds. Each set found is forbidden with its supersets (rules added to `ctl`)."""
    began = time.perf_counter()
    assumptions = list(assumptions)
    found: list[list[clingo.Symbol]] = []
    while True:
        left = None if timeout is None else timeout - (time.perf_counter() - began)
        if left is not None and left <= 0:
            return found, False
        best, complete = optimum(ctl, left, assumptions)
        if not complete:
            return found, False
        if not best:
            return found, True
        found.append(best[-1])
        atoms = fault_set_of(best[-1])[1]
        if not atoms:
            return found, True  # it breaks without any fault: the one minimal set is the empty one
        part = f"found{next(_FOUND)}"  # a part name of its own, in each call on the same control
        ctl.add(part, [], ":- " + ", ".join(str(a) for a in atoms) + ".")
        ctl.ground([(part, [])])


# ---------------------------------------------------------------------------
# What Molly users know: the failure-free run of runs.json (formats/molly.py writes it)


def fault_free_run(program: Program, instance: Instance, bounds: Bounds, pre: str = "pre", post: str = "post") -> Model | None:
    """A run without any fault in which the invariant holds (Molly's first, failure-free run), or None."""
    compiled = transform(program, instance, replace(bounds, network=replace(bounds.network, loss_until=None, crashes=0)))
    rules = violation(program, compiled, pre, post).replace(f":- not {VIOLATED}.", f":- {VIOLATED}.")
    ctl = clingo.Control(["1", "--warn=none"])
    ctl.add("base", [], compiled.text + rules)
    ctl.ground([("base", [])])
    found: list[Model] = []
    ctl.solve(on_model=lambda m: found.append(decode(m.symbols(atoms=True), compiled)))
    return found[0] if found else None
