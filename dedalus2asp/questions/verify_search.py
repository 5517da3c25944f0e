"""`verify --search-horizon`: the smallest horizon with a counterexample, one multi-shot program for every horizon.

Molly's question (Alvaro, Rosen, Hellerstein, *Lineage-driven fault injection*, SIGMOD 2015, §3)
asked at horizons 0, 1, ..., T in turn, stopping at the first with a counterexample. Grounding one
fault-injected program per horizon grounds step 0 T + 1 times; here the multi-shot fast encoding
(`asp.incremental`, as `cron --search-horizon` uses it) grounds every step once, and the
invariant of horizon h is a part of its own that holds only under an external, `_query(h)`:

    #program check(h).
    #external _query(h).
    _pre_row(h,(A1,..,Ak)) :- pre((),h,A1..Ak).        as verify.invariant, at step h
    _post_row(h,(A1,..,Ak)) :- post(A1,h,A2..Ak).
    _missing(h,R) :- _pre_row(h,R), not _post_row(h,R).
    _violated(h) :- _missing(h,R).   :- _query(h), not _violated(h).
    :- _query(h), _crashed(Y,S), S > h.                 only with a crash plan chosen in base

Horizon h is solved with `_query(h)` true (an optimisation: the fewest faults, the `#minimize`
of `verify.invariant` written per step, `#program faults(_t)`), then `_query(h)` is released
(false for good) and steps h + 1 and check(h + 1) are grounded. The models under `_query(h)` are
the counterexample runs at horizon h: after step h the control holds the one-shot program of
horizon h (tests/test_faults.py), whose arrivals from later steps (`_late_R`) are externals still
false. So the answer is the one-program-per-horizon one: the same smallest horizon, the same
fewest faults (tests/test_verify_search.py checks it on the Molly library).

A program that reads `crash(y, s)` under crashes gets its crash plan chosen in `base`, at steps
0..T, and `:- _query(h), _crashed(Y,S), S > h.` keeps horizon h to the plans of the one-shot
program. Under `--semantics choice` (which the multi-shot program does not support, see
`asp.incremental`) the search grounds one program per horizon, and says so (`Verdict.search`).
`--all` lists the minimal fault sets at the horizon found with `verify.minimal_fault_sets`.

A search that holds at every horizon holds vacuously when no run at the largest horizon, T, has a
`pre` row at step T (a run at a smaller horizon may have one, and it was matched): the plain
`verify`'s vacuity at T, asked of the same control under the external `_check_pre(T)`, which
lifts `:- _query(T), not _violated(T)` and asks for a pre row instead (`verify.optimum_with_pre`).
"""

from __future__ import annotations

import time
from dataclasses import replace

import clingo

from ..asp.incremental import Unrolling, incremental
from ..asp.names import CRASHED, LOST, PENDING, SILENCED, internal, message_relation, omission_key
from ..asp.transform import Compiled
from ..bounds import CRASH, Bounds, Encoding, Semantics
from ..lang.ast import Instance, Program
from ..lang.located import check_events
from .verdict import Verdict
from .verify import (CHECK_PRE, HAS_PRE, MISSING, POST_ROW, PRE_ROW, VIOLATED, counterexample_of, optimum,
                     optimum_with_pre, minimal_fault_sets, remaining, row_atoms, verify)

QUERY = "_query"

MULTI_SHOT = "multi-shot"
PER_HORIZON = "one program per horizon"


def check_part(program: Program, pre: str, post: str, plan: bool = False) -> str:
    """`#program check(h).`: the invariant at step h, under the external `_query(h)` (see the module docstring)."""
    row, pre_atom, post_atom = row_atoms(program, pre, post, "h")

    return "\n".join([
        "",
        "#program check(h).",
        f"% verify at horizon h: a model is a run in which some {pre} row has no matching {post} row at step h",
        f"#external {QUERY}(h).",
        f"#external {CHECK_PRE}(h).  % the vacuity check at h (verify.vacuity): any run with a pre row at step h",
        f"{PRE_ROW}(h,{row}) :- {pre_atom}.",
        f"{POST_ROW}(h,{row}) :- {post_atom}.",
        f"{MISSING}(h,R) :- {PRE_ROW}(h,R), not {POST_ROW}(h,R).",
        f"{VIOLATED}(h) :- {MISSING}(h,R).",
        f":- {QUERY}(h), not {VIOLATED}(h), not {CHECK_PRE}(h).",
        f"{HAS_PRE}(h) :- {PRE_ROW}(h,_).",
        f":- {CHECK_PRE}(h), not {HAS_PRE}(h).",
        *([f":- {QUERY}(h), {CRASHED}(Y,S), S > h.  % the crash plans of horizon h"] if plan else []),
        "",
    ])


def faults_part(messages: dict[str, str], arities: dict[str, int], crashes: int, plan: bool, by_channel: bool = False) -> str:
    """`#program faults(_t).`: verify's fewest faults, the messages lost at step _t (by an omission: not
    while the sender is silenced) and the nodes crashed at step _t (with a plan, in `base`: `#program plan.`)."""
    lines = ["", "#program faults(_t).", "% the fewest faults: omissions at step _t and the crashes"]
    for chosen, relation in messages.items():
        w = [f"W{i}" for i in range(1, arities[relation] + 1)]
        lines.append(f'#minimize {{ 1,{omission_key(relation, w, by_channel, "_t")} : '
                     f'{chosen}({",".join(["X", "_t", "Y", LOST, *w])})'
                     + (f", not {SILENCED}(X,_t)" if crashes else "") + " }.")
    if crashes and not plan:
        lines.append(f"#minimize {{ 1,{CRASHED},Y : {CRASHED}(Y,_t) }}.")
    lines.append("#program plan.")
    lines.append("#minimize { 0,_none : #true }.  % an optimisation even when no fault can happen (verify.invariant)")
    if crashes and plan:
        lines.append(f"#minimize {{ 1,{CRASHED},Y : {CRASHED}(Y,S) }}.")
    return "\n".join(lines) + "\n"


def _at(symbols: list[clingo.Symbol], horizon: int, compiled: Compiled) -> list[clingo.Symbol]:
    """The atoms of a multi-shot model as the one-shot program of `horizon` has them: `_missing(h,R)` as
    `_missing(R)`, and a message sent, neither arrived by `horizon` nor lost, as chosen_R(x,s,y,pending,w̄)."""
    cand = {message_relation("cand", r): chosen for chosen, r in compiled.messages.items()}
    arrived_name = {internal("arrived", r): chosen for chosen, r in compiled.messages.items()}
    out, done, cands = [], set(), []
    for atom in symbols:
        name = atom.name  # each read of a symbol's name or arguments is a call into clingo: once each
        if name == MISSING:
            args = atom.arguments
            if len(args) == 2:
                if args[0].number == horizon:
                    out.append(clingo.Function(MISSING, [args[1]]))
                continue
        out.append(atom)
        if name in arrived_name:  # _arrived_R(x,s,y,t,w̄): arrived by step t
            args = atom.arguments
            if args[3].number == horizon:
                done.add((arrived_name[name], *args[:3], *args[4:]))
        elif name in compiled.messages:
            args = atom.arguments
            if args[3].match(LOST, 0):
                done.add((name, *args[:3], *args[4:]))
        elif name in cand:
            cands.append((cand[name], atom.arguments))
    for chosen, args in cands:
        if (chosen, *args) not in done:
            out.append(clingo.Function(chosen, [*args[:3], clingo.Function(PENDING), *args[3:]]))
    return out


def search(
    program: Program, instance: Instance, bounds: Bounds, pre: str = "pre", post: str = "post",
    timeout: float | None = None, all_: bool = False, multi_shot: bool = True,
) -> Verdict:
    """The smallest horizon 0..T with a counterexample, or the verdict at T if none (see the module docstring).

    `multi_shot=False`, or `--semantics choice`, grounds one program per horizon (`verify.verify` at each)."""
    began = time.perf_counter()
    if not multi_shot or not bounds.semantics.causal or bounds.network.fail_stop:
        why = "" if multi_shot else " (asked for)"
        if bounds.network.fail_stop:
            why = " (--crash-model fail-stop: the multi-shot program does not write it)"
        if not bounds.semantics.causal:
            why = f" (--semantics {bounds.semantics.value}: the multi-shot program is written for causal semantics only)"
        return _per_horizon(program, instance, bounds, pre, post, timeout, all_, began, PER_HORIZON + why)
    check_events(instance, bounds.horizon)  # an event past T happens at no horizon searched: as verify at T says
    network = bounds.network
    plan = bool(network.crashes) and program.schema().get(CRASH) == 2
    inc = incremental(program, instance, Semantics.CAUSAL_FINITE, network, horizon=bounds.horizon, crash_plan=plan)
    text = inc.text + check_part(program, pre, post, plan) + faults_part(inc.messages, inc.arities, network.crashes, plan, network.by_channel)
    unrolling = Unrolling(replace(inc, text=text), ["--opt-mode=opt"])
    tried: list[int] = []
    for h in range(bounds.horizon + 1):
        step = clingo.Number(h)
        unrolling.extend(h)
        unrolling.control.ground([("faults", [step]), ("check", [step])] + ([("plan", [])] if h == 0 else []))
        query = clingo.Function(QUERY, [step])
        unrolling.control.assign_external(query, True)
        tried.append(h)
        left = remaining(timeout, began)
        best, complete = optimum(unrolling.control, left)
        at_h = replace(bounds, horizon=h)
        if best:
            compiled = Compiled("", inc.relations, inc.arities, inc.messages, replace(at_h, encoding=Encoding.FAST),
                                program=program)
            found = counterexample_of(_at(best[-1], h, compiled), compiled, pre, complete)
            verdict = Verdict(False, found, complete, at_h, pre, post, 0.0)
            if all_:
                left = remaining(timeout, began)
                sets, finished = minimal_fault_sets(program, instance, at_h, pre, post, left, runs=True)
                verdict = replace(verdict, complete=complete and finished, fault_sets=tuple(f for f, _ in sets),
                                  witnesses=tuple(w for _, w in sets))
            break
        verdict = Verdict(True if complete else None, None, complete, at_h, pre, post, 0.0,
                          fault_sets=() if all_ and complete else None)
        if not complete:
            break
        if h == bounds.horizon:  # it holds at every horizon: vacuously, if no run at T has a pre row at step T
            left = remaining(timeout, began)
            switch = clingo.Function(CHECK_PRE, [step])
            verdict = replace(verdict, vacuous=not optimum_with_pre(unrolling.control, left, switch))
            break
        unrolling.control.release_external(query)
    return replace(verdict, seconds=time.perf_counter() - began, searched=tuple(tried), search=MULTI_SHOT)


def _per_horizon(program, instance, bounds, pre, post, timeout, all_, began, how: str) -> Verdict:
    """One fault-injected program per horizon k..T (`verify.verify`), up to the first counterexample; k is the
    step of the last input event (the one-shot program refuses an event beyond its horizon), 0 without one."""
    events = [f.step for facts in instance.facts.values() for f in facts if f.step is not None]
    first = min(max(events, default=0), bounds.horizon)  # past T: verify at T says why
    if first:
        how += f" (from horizon {first}, the step of the last input event)"
    tried: list[int] = []
    verdict = None
    for horizon in range(first, bounds.horizon + 1):
        left = remaining(timeout, began)
        tried.append(horizon)
        verdict = verify(program, instance, replace(bounds, horizon=horizon), pre, post, left, all_)
        if verdict.holds is not True:
            break
    return replace(verdict, seconds=time.perf_counter() - began, searched=tuple(tried), search=how)
