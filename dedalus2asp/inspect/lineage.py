"""Why was the missing `post` fact of a counterexample expected? Its lineage in a run where it holds.

Molly (Alvaro, Rosen, Hellerstein, *Lineage-driven fault injection*, SIGMOD 2015, §3–4) explains a
violation by the provenance graph of the `post` fact in a run where it does hold: the rules,
facts and messages it was derived from, down to the input facts. A fault that breaks the invariant
must cut that graph — lose one of its messages, or crash one of its nodes before it sent one.

For each `pre` row of a counterexample without its `post` row, `expected` asks the fault-injected
program (`transform` within the SAME bounds: horizon, delivery, delay, loss window, crashes) for a
run in which that `post` row holds, chosen by two priorities:

    :- not _post_row((A1,..,Ak)).                    the missing row, now required
    #minimize { 1@2,... : an omission or a crash }   the fewest faults: the fault-free run when one holds it
    #minimize { 1@1,k : not m_k }                    then the closest to the counterexample: m_k is the
                                                     k-th message of its schedule (chosen_R(x,s,y,t,ā))

With the same bounds rather than `verify.fault_free_run` (one fault-free run, any schedule) because
the row must hold in the run chosen: a row of `pre` may exist only in some schedules, and a
fault-free run need not hold it; and because, under async delivery, the run closest to the
counterexample's schedule differs from it by the faults wherever it can, so that its lineage shows
what the faults took away. Under sync delivery a run is fixed by its faults: the run chosen is the
fault-free one whenever the row holds there.

The post fact is explained there (`explain.Lineage`), and each fact of its derivation is marked by
how it fared in the counterexample (`Mark`): whether it holds there too, what became of its
message (lost to an omission, lost because its sender had crashed, pending, arrived at another
step, never sent), and whether its node had crashed by its step. The text form is a compact tree:
a fact that holds in the counterexample too is a leaf, so the tree stops at the frontier the faults
cut. `as_dict` gives the whole derivation as a graph (facts with ids, premises by id).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from html import escape

import clingo

from ..asp.names import LOST, PENDING
from ..asp.transform import transform
from ..bounds import Bounds
from ..lang.ast import GLOBAL_NODE, Instance, Program
from ..verify import CRASHED, POST_ROW, SILENCED, VIOLATED, Counterexample, Crash, Lost, Missing, Verdict, invariant
from .explain import ARRIVED, CARRIED, INPUT, Derivation, Lineage, premises_of
from .model import Model, decode, show_fact

SAME, LOST_FATE, CRASH_FATE, PENDING_FATE, OTHER_STEP, NOT_SENT = (
    "arrived", "lost", "lost-by-crash", "pending", "arrived-at-another-step", "not-sent"
)
"""What became of a message of the lineage in the counterexample."""


@dataclass(frozen=True)
class Mark:
    """How one fact of the lineage fared in the counterexample.

    `holds`: it holds at the same node and step there too. `message`: for a fact that arrived, what
    became of its message there (one of SAME .. NOT_SENT), and `arrives` its arrival step there when
    it arrived elsewhere in time. `crash`: its node (for an arrival, the sender) had crashed by its
    step (for an arrival, by the send step) in the counterexample."""

    holds: bool
    message: str | None = None
    arrives: int | None = None
    crash: Crash | None = None

    def words(self) -> str:
        parts = []
        if self.message == LOST_FATE:
            parts.append("LOST in the counterexample")
        elif self.message == CRASH_FATE:
            parts.append("LOST in the counterexample: its sender " + (
                "had crashed" if self.crash is None else f"{self.crash.node} had CRASHED at step {self.crash.step}"))
        elif self.message == PENDING_FATE:
            parts.append("still pending at the horizon in the counterexample")
        elif self.message == OTHER_STEP:
            parts.append(f"arrives at step {self.arrives} in the counterexample")
        elif self.message == NOT_SENT:
            parts.append("never sent in the counterexample")
        if self.crash is not None and self.message not in (None, CRASH_FATE):
            parts.append(f"its sender {self.crash.node} had CRASHED at step {self.crash.step} in the counterexample")
        if self.crash is not None and self.message is None:  # a crashed node keeps its local state
            parts = [f"{'holds' if self.holds else 'missing'} in the counterexample, where {self.crash.node} "
                     f"had CRASHED at step {self.crash.step}"]
        elif not parts:
            parts.append("holds in the counterexample too" if self.holds else "missing in the counterexample")
        elif not self.holds:
            parts.append("missing there")
        return "; ".join(parts)

    def as_dict(self) -> dict:
        return {"in_counterexample": self.holds, "message_in_counterexample": self.message,
                "arrives_in_counterexample": self.arrives,
                "crashed_in_counterexample": None if self.crash is None else self.crash.as_dict()}


@dataclass(frozen=True)
class Expected:
    """The lineage of one missing `post` row: the post fact R(ā) at (node, step), the run chosen in which
    it holds (None: no run within the bounds holds it), that run's faults, the fact's derivation
    there and the mark of each fact of the derivation (by `Derivation.key`)."""

    missing: Missing
    node: clingo.Symbol
    step: int
    fact: tuple
    run: Model | None = field(compare=False, repr=False)
    lost: tuple[Lost, ...] = ()
    crashes: tuple[Crash, ...] = ()
    derivation: Derivation | None = field(default=None, compare=False, repr=False)
    marks: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def faults(self) -> int:
        return sum(1 for l in self.lost if not l.by_crash) + len(self.crashes)

    @property
    def where(self) -> str:
        return f"{_node(self.node)}:{self.step}"

    def run_words(self) -> str:
        if self.run is None:
            return "no run within the bounds holds it"
        if not self.faults:
            return "it holds in a run without faults (same bounds, the schedule closest to the counterexample's)"
        faults = [f"lost {l}" for l in self.lost if not l.by_crash] + [f"crash of {c}" for c in self.crashes]
        return f"it holds in a run with {self.faults} fault{'s' * (self.faults != 1)} ({'; '.join(faults)})"

    def tree(self, indent: str = "  ") -> tuple[list[str], dict]:
        """The compact tree, and the rules it names by number: a fact that also holds in the counterexample
        is a leaf; a chain of carry-overs of one fact is one line (`at b:1..4`)."""
        head = f"{indent}why {show_fact(*self.fact)} at {self.where} was expected: {self.run_words()}"
        lines, rules, shown = [head], {}, set()
        if self.derivation is None:
            return lines, rules

        def walk(d: Derivation, depth: int) -> None:
            top, mark = d, self.marks[d.key]
            while (d.reason.how == CARRIED and len(d.premises) == 1 and d.premises[0].fact == d.fact
                   and d.premises[0].node == d.node and self.marks[d.premises[0].key] == mark
                   and d.premises[0].key not in shown and d.key not in shown):
                shown.add(d.key)
                d = d.premises[0]
            pad = indent + "  " * (depth + 1)
            steps = f"{d.step}" if d is top else f"{d.step}..{top.step}"
            where = f"{show_fact(*d.fact)} at {_node(d.node)}:{steps}"
            if d.key in shown and d.premises:
                lines.append(f"{pad}{where}: (above)")
                return
            shown.add(d.key)
            if d.rule is not None:
                rules[d.rule.number] = d.rule
            if top.rule is not None:
                rules[top.rule.number] = top.rule
            carried = "" if d is top else f", carried over to step {top.step} by rule {top.rule.number}"
            lines.append(f"{pad}{where}: {_how(d)}{carried} — {mark.words()}")
            if mark.holds:
                return
            for p in d.premises:
                walk(p, depth + 1)
            for a in d.absent:
                lines.append(f"{pad}  {show_fact(*a)} absent at {_node(d.at[0])}:{d.at[1]}")

        walk(self.derivation, 0)
        return lines, rules

    def as_dict(self) -> dict:
        """The missing row, the post fact, the run chosen and the derivation as a graph: `facts`, each with an
        `id`, its point, how it holds, its rule, its message, its premises (ids) and its absent facts, and
        how it fared in the counterexample; `root` is the post fact's id (null: no run holds it)."""
        ids: dict[tuple, int] = {}
        facts = []
        if self.derivation is not None:
            ordered = list(premises_of(self.derivation))
            ids = {d.key: k for k, d in enumerate(ordered)}
            facts = [_vertex(d, ids, self.marks[d.key]) for d in ordered]
        return {
            "missing": self.missing.as_dict(),
            "post": {"node": None if self.node == GLOBAL_NODE else str(self.node), "step": self.step,
                     "relation": self.fact[0], "args": [str(a) for a in self.fact[1]]},
            "run": None if self.run is None else {
                "faults": self.faults, "lost": [l.as_dict() for l in self.lost], "crashes": [c.as_dict() for c in self.crashes],
            },
            "root": 0 if facts else None,
            "facts": facts,
        }


def describe(entries: tuple[Expected, ...], indent: str = "  ") -> list[str]:
    """The compact trees of the lineage of each missing post fact, then the rules they name, once."""
    lines, rules = [], {}
    for entry in entries:
        more, used = entry.tree(indent)
        lines += more
        rules.update(used)
    return lines + [f"{indent}  rule {n}: {rule}" for n, rule in sorted(rules.items())]


def _node(node: clingo.Symbol) -> str:
    return "global" if node == GLOBAL_NODE else str(node)


def _how(d: Derivation) -> str:
    by = "" if d.rule is None else f" by rule {d.rule.number}"
    if d.reason.how == INPUT:
        return "input fact"
    if d.reason.how == ARRIVED:
        m = d.reason.message
        return f"message from {m.sender}, sent at step {m.sent}{by}"
    if d.reason.how == CARRIED:
        return f"carried over{by}"
    return f"deduced{by}"


def _vertex(d: Derivation, ids: dict, mark: Mark) -> dict:
    m = d.reason.message
    return {
        "id": ids[d.key],
        "fact": show_fact(*d.fact), "relation": d.fact[0], "args": [str(a) for a in d.fact[1]],
        "node": None if d.node == GLOBAL_NODE else str(d.node), "step": d.step,
        "how": d.reason.how,
        "rule": None if d.rule is None else str(d.rule), "rule_number": None if d.rule is None else d.rule.number,
        "message": None if m is None else {"from": str(m.sender), "sent": m.sent, "to": str(m.addressee), "arrives": m.arrives},
        "premises": [ids[p.key] for p in d.premises],
        "absent": [{"fact": show_fact(*a), "node": None if d.at[0] == GLOBAL_NODE else str(d.at[0]), "step": d.at[1]}
                   for a in d.absent],
        **mark.as_dict(),
    }


# ---------------------------------------------------------------------------
# The run where the post row holds, and the marks


def _post_point(program: Program, post: str, row: tuple, horizon: int) -> tuple[clingo.Symbol, int, tuple]:
    """Where the post fact of `row` holds: the global node for a global relation, else the row's first column."""
    if post in program.global_relations():
        return GLOBAL_NODE, horizon, (post, tuple(row))
    return row[0], horizon, (post, tuple(row[1:]))


def _closest(compiled, counterexample: Counterexample) -> str:
    """The fewest faults first (priority 2), then the fewest messages of the counterexample's schedule changed (1)."""
    crashes = compiled.bounds.network.crashes
    lines = ["", "% the lineage: the fewest faults, then the closest to the counterexample's schedule"]
    for chosen, relation in compiled.messages.items():
        w = [f"W{i}" for i in range(1, compiled.arities[relation] + 1)]
        lines.append(f'#minimize {{ 1@2,"{relation}",X,S,Y{"".join("," + v for v in w)} : '
                     f'{chosen}({",".join(["X", "S", "Y", LOST, *w])})' + (f", not {SILENCED}(X,S)" if crashes else "") + " }.")
    if crashes:
        lines.append(f"#minimize {{ 1@2,{CRASHED},Y : {CRASHED}(Y,S) }}.")
    chosen_of = {relation: chosen for chosen, relation in compiled.messages.items()}
    for k, m in enumerate(counterexample.model.messages):
        arrival = PENDING if m.arrives is None else str(m.arrives)
        atom = clingo.Function(chosen_of[m.relation], [m.sender, clingo.Number(m.sent), m.addressee,
                                                        clingo.parse_term(arrival), *m.args])
        lines.append(f"#minimize {{ 1@1,{k} : not {atom} }}.")
    return "\n".join(lines) + "\n"


def _faults_of(model: Model) -> tuple[tuple[Lost, ...], tuple[Crash, ...]]:
    crashes = tuple(Crash(x, s) for x, s in sorted(model.crashes, key=str))
    down = {x: s for x, s in model.crashes}
    lost = tuple(Lost(m.sender, m.sent, m.addressee, m.relation, m.args, m.sender in down and down[m.sender] <= m.sent)
                 for m in sorted(model.lost, key=lambda m: str(m.key())))
    return lost, crashes


def _marks(derivation: Derivation, counterexample: Counterexample) -> dict:
    """The mark of each fact of the derivation: how it fared in the counterexample."""
    cex = counterexample.model
    down = {c.node: c.step for c in counterexample.crashes}
    lost = {(l.sender, l.sent, l.addressee, l.relation, l.args): l for l in counterexample.lost}
    fates = {(m.sender, m.sent, m.addressee, m.relation, m.args): m.arrives for m in cex.messages}
    marks = {}
    for d in premises_of(derivation):
        holds = (d.node, d.step, *d.fact) in cex.trace
        fate = arrives = None
        node, step = d.node, d.step
        if d.reason.how == ARRIVED:
            m = d.reason.message
            key = (m.sender, m.sent, m.addressee, m.relation, m.args)
            node, step = m.sender, m.sent
            if key in lost:
                fate = CRASH_FATE if lost[key].by_crash else LOST_FATE
            elif key not in fates:
                fate = NOT_SENT
            elif fates[key] is None:
                fate = PENDING_FATE
            elif fates[key] == m.arrives:
                fate = SAME
            else:
                fate, arrives = OTHER_STEP, fates[key]
        crash = Crash(node, down[node]) if node in down and down[node] <= step else None
        marks[d.key] = Mark(holds, fate, arrives, crash)
    return marks


def expected(
    program: Program, instance: Instance, bounds: Bounds, counterexample: Counterexample,
    pre: str = "pre", post: str = "post", timeout: float | None = None,
) -> tuple[Expected, ...]:
    """For each missing row of `counterexample`, the run chosen in which its post fact holds and the post
    fact's derivation there, marked by the counterexample (see the module docstring). One grounding;
    one optimisation per missing row, the row an assumption; a row already explained by the run found
    for an earlier row reuses that run."""
    compiled = transform(program, instance, bounds)
    rules = invariant(program, compiled, pre, post).split("% the fewest faults")[0].replace(f":- not {VIOLATED}.", "")
    ctl = clingo.Control(["--opt-mode=opt", "--warn=none"])
    ctl.add("base", [], compiled.text + rules + _closest(compiled, counterexample))
    ctl.ground([("base", [])])
    found: list[tuple[Model, Lineage]] = []
    result = []
    for missing in counterexample.missing:
        node, step, fact = _post_point(program, post, missing.args, bounds.horizon)
        where = next((f for f in found if (node, step, *fact) in f[0].trace), None)
        if where is None:
            row = clingo.Function(POST_ROW, [clingo.Tuple_(missing.args)])
            best: list = []
            with ctl.solve(assumptions=[(row, True)], on_model=lambda m: best.append(m.symbols(atoms=True)), async_=True) as handle:
                if not handle.wait(timeout) if timeout is not None else not handle.wait():
                    handle.cancel()
                handle.get()
            if best:
                model = decode(best[-1], compiled)
                where = (model, Lineage(model, instance))
                found.append(where)
        if where is None:
            result.append(Expected(missing, node, step, fact, None))
            continue
        model, lineage = where
        derivation = lineage.derive(node, step, fact)
        lost, crashes = _faults_of(model)
        result.append(Expected(missing, node, step, fact, model, lost, crashes, derivation, _marks(derivation, counterexample)))
    return tuple(result)


def attach(
    verdict: Verdict, program: Program, instance: Instance, timeout: float | None = None
) -> Verdict:
    """The verdict with the lineage of each missing post fact in its counterexample (`Counterexample.lineage`);
    the verdict itself when it has no counterexample."""
    c = verdict.counterexample
    if c is None:
        return verdict
    lineage = expected(program, instance, verdict.bounds, c, verdict.pre, verdict.post, timeout)
    return replace(verdict, counterexample=replace(c, lineage=lineage))


def html(entry: dict) -> str:
    """One lineage entry of runs.json as a nested list: each fact with how it holds and how it fared in
    the counterexample (a lost message, a crashed node in bold red); a fact shown before is referred to."""
    facts = entry["facts"]
    post = entry["post"]
    title = f'{post["relation"]}({", ".join(post["args"])}) at {post["node"] or "global"}:{post["step"]}'
    if entry["run"] is None:
        return f'<section class="lineage"><h3>{escape(title)}</h3><p>no run within the bounds holds it</p></section>'
    shown: set[int] = set()

    def item(k: int) -> str:
        f = facts[k]
        words = [f["how"] + (f' by rule {f["rule_number"]}' if f["rule_number"] is not None else "")]
        if f["message"] is not None:
            words.append(f'sent by {f["message"]["from"]} at step {f["message"]["sent"]}')
        fate = f["message_in_counterexample"]
        cut = []
        if fate in (LOST_FATE, CRASH_FATE):
            cut.append("lost in the counterexample" + (" (its sender had crashed)" if fate == CRASH_FATE else ""))
        elif fate in (PENDING_FATE, NOT_SENT):
            cut.append({PENDING_FATE: "pending in the counterexample", NOT_SENT: "never sent in the counterexample"}[fate])
        if f["crashed_in_counterexample"] is not None:
            c = f["crashed_in_counterexample"]
            cut.append(f'{c["node"]} crashed at step {c["step"]} in the counterexample')
        state = "holds" if f["in_counterexample"] else "missing"
        label = (f'<span class="fact {state}">{escape(f["fact"])} at {escape(f["node"] or "global")}:{f["step"]}</span> '
                 f'{escape(", ".join(words))}' + "".join(f' <strong class="cut">{escape(w)}</strong>' for w in cut))
        if k in shown and f["premises"]:
            return f"<li>{label} (above)</li>"
        shown.add(k)
        inner = "".join(item(p) for p in f["premises"]) + "".join(
            f'<li class="absent">not {escape(a["fact"])} at {escape(a["node"] or "global")}:{a["step"]}</li>' for a in f["absent"])
        return f"<li>{label}" + (f"<ul>{inner}</ul>" if inner else "") + "</li>"

    run = entry["run"]
    how = "a run without faults" if not run["faults"] else f'a run with {run["faults"]} fault(s)'
    return (f'<section class="lineage"><h3>why {escape(title)} was expected</h3>'
            f"<p>it holds in {how}, within the same bounds; its lineage there:</p><ul>{item(entry['root'])}</ul></section>")
