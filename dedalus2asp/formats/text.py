"""Results as text for a reader: what the commands print.

A model is a node × step table of the facts each node holds (tplp2016 §5.1.5),
with a last row `global` for the facts of global relations (held by no node),
then its messages (sender@step → addressee@arrival step, the rule that sent
each, those sent into the past marked) and its outputs. A lasso model (the
eventual mode) heads the columns of its loop "step k (loop)", says under the
table which steps repeat ("step T+1 = step L"), writes a message that arrives
after T with the loop step it comes back to, and gives its ultimate outputs. A set of models is
each model in turn and how many there are; a CRON verdict is its sentence and
what supports it (jcss2014); a derivation an indented tree; a run (tplp2016
§5.3.2) its transitions; a check report, a count and an exploration a few lines; the summary of a result directory its tables.

Tables are drawn by rich. `width` is the width of the terminal the text goes
to: a cell longer than its share of it wraps. Without one (the text goes to a
pipe or a file) no line is cut. `color` keeps rich's styles (bold headings) as
terminal escapes.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Iterable

import clingo
from rich.console import Console
from rich.table import Table

from ..bounds import Semantics
from ..lang.ast import show_fact
from ..lang.diagnostics import format_diagnostic
from ..questions.eventual import CONFLUENCE, INTERLEAVINGS
from . import charts
from .svg import loop_sentence

if TYPE_CHECKING:
    from ..bounds import Bounds
    from ..questions.cron import Verdict
    from ..questions.models import Ultimate
    from ..inspect.explain import Derivation, Reason
    from ..inspect.model import Model, Models
    from ..runs.eventual import Eventual
    from ..runs.eventual_verify import EventualVerdict
    from ..inspect.run import Run
    from ..lang.analysis import Report
    from ..lang.coordination import Coordination

UNBOUNDED = 1_000_000
"""The width of a console whose lines are never cut."""


def console(width: int | None = None, color: bool = False) -> Console:
    """A rich console that writes into a string (`console.file.getvalue()`); user text is never markup."""
    return Console(
        file=io.StringIO(), width=width or UNBOUNDED, force_terminal=color, color_system="auto" if color else None,
        highlight=False, markup=False, emoji=False, soft_wrap=True,
    )


def print_model(model: Model, out: Console) -> None:
    """The node × step table of a model's facts, its messages, its faults (lost messages, crashes) and its outputs;
    for a lasso, its loop marked, and its ultimate outputs."""
    lasso = model.loop_start is not None
    shape = f"a lasso of {model.horizon + 1} steps" if lasso else f"horizon {model.horizon}"
    table = Table(title=f"model {model.number} ({model.bounds.semantics.value}, {shape})", show_lines=True)
    table.add_column("node", style="bold")
    for step in range(model.horizon + 1):
        table.add_column(f"step {step}" + (" (loop)" if lasso and step >= model.loop_start else ""))
    for node in model.network:
        table.add_row(str(node), *("\n".join(model.facts_at(node, step)) for step in range(model.horizon + 1)))
    if model.has_global:
        table.add_section()
        table.add_row("global", *("\n".join(model.global_at(step)) for step in range(model.horizon + 1)))
    out.print(table)
    if lasso:
        prefix = ("no prefix" if model.loop_start == 0 else "step 0 is the prefix" if model.loop_start == 1
                  else f"steps 0–{model.loop_start - 1} are the prefix")
        out.print(f"loop: {loop_sentence(model.loop_start, model.horizon)}; {prefix}")
    if model.messages:
        out.print("messages (sender@step → addressee@arrival step):")
        into_past = set(model.noncausal())
        rules = model.sending_rules
        for m in model.messages:
            arrival = f"{m.addressee} pending" if m.arrives is None else f"{m.addressee}@{m.arrives}"
            if m.wraps:
                arrival = f"{m.addressee}@{m.unrolled} = {m.addressee}@{m.arrives} on the loop's next pass"
            by = f"  [rule {', '.join(str(r.number) for r in rules[m])}]" if rules[m] else ""
            warning = "   ← sent into the past (non-causal)" if m in into_past else ""
            out.print(f"  {m.fact}: {m.sender}@{m.sent} → {arrival}{by}{warning}")
    else:
        out.print("messages: none")
    if model.lost:
        out.print("lost messages (sender@step → addressee; they neither arrive nor are pending):")
        for m in model.lost:
            out.print(f"  {m.fact}: {m.sender}@{m.sent} → {m.addressee} lost")
    for node, step in model.crashes:
        out.print(f"crash: {node} crashes at step {step} (from then on its messages to other nodes are lost)")
    if model.program is not None and model.program.output_relations:
        if lasso:
            out.print(f"ultimate outputs (they hold at every step of the loop): {', '.join(model.ultimate()) or 'none'}")
        else:
            out.print(f"outputs at step {model.horizon}: {', '.join(model.outputs()) or 'none'}")


def model(model: Model, width: int | None = None, color: bool = False) -> str:
    out = console(width, color)
    print_model(model, out)
    return out.file.getvalue()


def models(models: Models, width: int | None = None, color: bool = False) -> str:
    """Every model in turn, then how many (and whether a timeout stopped the enumeration)."""
    out = console(width, color)
    for m in models:
        print_model(m, out)
    out.print(f"{len(models)} model(s) shown" + ("" if models.complete else " (stopped by the timeout)"))
    return out.file.getvalue()


def facts(shown: Iterable[str]) -> str:
    return ", ".join(sorted(shown)) or "none"


def search(verdict: Verdict) -> str:
    """The horizons `cron --search-horizon` tried, and what each gave."""
    rows = "; ".join(
        f"{r['horizon']}: "
        + ("no causal model" if not r["satisfiable"] else "inconsistent" if not r["consistent"]
           else "tolerant" if r["tolerant"] else "counterexample")
        for r in verdict.search["horizons"]
    )
    smallest = verdict.search["smallest_horizon"]
    return (
        f"search: {'smallest horizon with a violation: ' + str(smallest) if smallest is not None else 'no violation'}"
        f" ({rows}; {verdict.search['seconds']} s"
        + (", causal side solved incrementally" if verdict.search["incremental"] else "") + ")"
    )


def loop_words(model: Model) -> str:
    """", steps 2..4 repeating forever" of a lasso model; "" for a bounded one."""
    if not model.is_lasso:
        return ""
    return f" (steps {model.loop_start}..{model.horizon} repeating forever: loop start {model.loop_start}, period {model.period})"


def verdict(verdict: Verdict, width: int | None = None, color: bool = False) -> str:
    """A CRON verdict in one sentence, then what supports it: outputs, witnesses, a counterexample."""
    out = console(width, color)
    out.print(verdict.sentence())
    if verdict.original_sentence():
        out.print(verdict.original_sentence())
    if verdict.search is not None:
        out.print(search(verdict))
    if not verdict.satisfiable:
        return out.file.getvalue()
    if verdict.eventual:
        e, c = verdict.exactness, verdict.choice_exactness
        if e.decided_by == "confluence" and c is not None and c.decided_by == "confluence":
            out.print(f"consistency and tolerance (causal and choice lassos): {e.words()}")
        elif verdict.runs:  # two runs of the explorer: one in rounds, one whose clocks drift apart first
            out.print("exact: the two runs below are infinite causal runs (tplp2016 §5.1: each node on its own clock, "
                      "every message within the delay bound) whose ultimate outputs differ")
        elif verdict.satisfiable and verdict.consistent is False:  # exact at any K
            # the witnesses decide: they are infinite runs, so no threshold is needed (its words are for "consistent")
            out.print("exact, whatever K: the two causal lassos below are infinite runs whose ultimate outputs differ")
        else:
            out.print(f"consistency (causal lassos): {e.words()}")
        if c is not None and c.decided_by == "confluence":
            pass  # said with consistency
        elif c is not None and c.decided_by == "choice-over-certified":
            out.print(f"tolerance (choice runs): {c.words()}")
        elif c is not None and verdict.tolerant is False and verdict.bounded_horizon is None:  # exact at any K
            out.print("tolerance (choice lassos): exact, whatever K: the choice lasso below is an infinite run whose "
                      "ultimate output differs")
        elif c is not None:
            out.print(f"tolerance (choice lassos): {c.words()}")
        out.print(f"output relations: {', '.join(verdict.outputs)} (ultimate facts: held at every step of the loop, "
                  "united over nodes)")
    else:
        out.print(f"output relations: {', '.join(verdict.outputs)} (facts at step {verdict.bounds.horizon}, united over nodes)")
    what, run = ("ultimately ", "lasso") if verdict.eventual else ("", "model")
    kind = "ultimate output" if verdict.eventual else "output"
    out.print(f"  certain  (causal-finite): {facts(verdict.certain)}")
    out.print(f"  possible (causal-finite): {facts(verdict.possible)}")
    out.print(f"  certain  (choice):        {facts(verdict.choice_certain)}")
    out.print(f"  possible (choice):        {facts(verdict.choice_possible)}")
    if verdict.theorem:
        out.print(f"jcss2014 Theorem 4.1: {verdict.theorem}")
    for i, (witness, output) in enumerate(verdict.witnesses, 1):
        out.print(f"witness {i}: a causal {run}{loop_words(witness)} with {kind} {{{', '.join(sorted(output))}}}")
        print_model(witness, out)
    for i, (lasso, output) in enumerate(verdict.runs, 1):
        how = "whose nodes' clocks drift apart first" if lasso.free_clocks else "in rounds"
        out.print(f"witness {i}: a causal run {how}, with ultimate output {{{', '.join(sorted(output))}}}")
        for line in explored_run(lasso):
            out.print(line)
    if verdict.counterexample is not None:
        counterexample = verdict.counterexample
        if verdict.bounded_horizon is not None:  # --eventual, but bounded cron's model: no lasso
            what, run = "", f"model (bounded, as cron -T {verdict.bounded_horizon} finds it)"
        change = ([f"{what}loses {facts(verdict.lost)}"] if verdict.lost else []) + (
            [f"{what}gains {facts(verdict.gained)}"] if verdict.gained else []
        )
        out.print(f"counterexample: a choice {run}{loop_words(counterexample)} that {' and '.join(change)}")
        print_model(counterexample, out)
        out.print("messages into the past (they arrive at their send step or at one that happens before it):")
        for m in counterexample.noncausal():
            out.print(f"  {m.fact}: sent by {m.sender} at step {m.sent}, arrives at {m.addressee} at step {m.arrives}")
        chosen = verdict.choice_exactness
        if chosen is not None and chosen.decided_by == "choice-over-certified" and counterexample.is_lasso:
            steps = f"{counterexample.loop_start}..{counterexample.horizon}"
            out.print(f"on every later pass of the loop, each message it sends at or before its send step arrives as "
                      f"shown for the loop's steps {steps}, shifted by the period, unless it arrives before the loop: "
                      "then at that same step, where its fact is received already")
    out.print(f"({verdict.seconds:.2f} s)")
    return out.file.getvalue()


# The reasons of a derivation (`inspect.explain.Reason.how`).
INPUT, ARRIVED, CARRIED, FAULT = "input", "arrived", "carried", "fault"


def why(d: Derivation) -> str:
    by = f" by rule {d.rule.number}: {d.rule}" if d.rule is not None else ""
    how = d.reason.how
    if how == INPUT:
        return "input fact"
    if how == FAULT:
        return "a fault of the run (a crash the network chose)"
    if how == ARRIVED:
        m = d.reason.message
        return f"arrived from {m.sender} (sent at {m.sender}:{m.sent}){by}"
    if how == CARRIED:
        return f"carried over from {d.node}:{d.step - 1}{by}"
    return f"deduced{by}"


def also(reason: Reason, node: clingo.Symbol, step: int) -> str:
    if reason.how == ARRIVED:
        return f"arrived from {reason.message.sender}:{reason.message.sent}"
    if reason.how == CARRIED:
        return f"carried over from {node}:{step - 1} by rule {reason.rule.number}"
    return f"{reason.how} by rule {reason.rule.number}" if reason.rule else reason.how


def derivation(derivation: Derivation) -> str:
    """The derivation as an indented tree; a fact explained once is referred to further down."""
    lines: list[str] = []
    shown: set[tuple] = set()

    def walk(d: Derivation, depth: int) -> None:
        pad = "  " * depth
        head = f"{pad}{show_fact(*d.fact)} at {d.node}:{d.step}"
        if d.key in shown and d.premises:
            lines.append(f"{head}: (explained above)")
            return
        shown.add(d.key)
        others = f"  [also {'; '.join(also(r, d.node, d.step) for r in d.also)}]" if d.also else ""
        lines.append(f"{head}: {why(d)}{others}")
        for p in d.premises:
            walk(p, depth + 1)
        for a in d.absent:
            lines.append(f"{pad}  {show_fact(*a)} absent at {d.at[0]}:{d.at[1]}")

    walk(derivation, 0)
    return "\n".join(lines) + "\n"


def run(run: Run) -> str:
    """The run, transition by transition: what it delivers and sends, and the buffers after it."""
    lines = []
    for t, after in zip(run.transitions, run.configurations[1:]):
        got = ", ".join(f"{m.fact} from {m.sender}:{m.sent}" for m in t.delivered) or "nothing"
        lines.append(f"{t.index:>3}. {t.node}:{t.step} receives {got}")
        if (t.node, t.step) in run.crashes:
            lines.append(f"       {t.node} crashes: from this step on its messages to other nodes are lost")
        for m in t.sent:
            where = "pending" if m.arrives is None else f"{m.addressee}:{m.arrives}"
            lines.append(f"       sends {m.fact} to {m.addressee} (arrives {where})")
        for m in t.lost:
            lines.append(f"       sends {m.fact} to {m.addressee} (lost)")
        buffered = "; ".join(f"{x}: {', '.join(m.fact for m in ms)}" for x, ms in after.buffers.items() if ms)
        if buffered:
            lines.append(f"       buffers: {buffered}")
    return "".join(line + "\n" for line in lines)


def report(report: Report, program: str = "<program>") -> str:
    """What `check` says of a program: rules, relations, strata, asynchronous relations, positivity, CRON."""
    listed = lambda relations: ", ".join(f"{p}/{k}" for p, k in relations.items()) or "none"
    lines = [f"{program}: {len(report.rules)} rule(s), well formed"]
    lines += [f"  rule {number:>2} {kind:<12} {text}" for number, kind, text in report.rules]
    lines += [
        f"idb: {listed(report.idb)}",
        f"edb: {listed(report.edb)}",
        "strata of the deductive rules: "
        + ("; ".join(f"{i}: {', '.join(s)}" for i, s in enumerate(report.strata, 1)) or "none"),
        f"asynchronous relations: {listed(report.async_relations)}",
        "positive: yes (no negation, no aggregate: if consistent, it tolerates non-causality, jcss2014 Theorem 4.1)"
        if report.positive
        else "positive: no (uses negation or an aggregate)",
        f"output relations: {', '.join(report.outputs) or 'none declared (.output R.)'}",
    ]
    if report.coordination is not None:
        lines += coordination(report.coordination)
    return "".join(line + "\n" for line in lines)


def coordination(c: Coordination) -> list[str]:
    """The lines of `check` on coordination (the Dedalus properties draft): temporal stratification and safety, the
    monotonic components, the loci of coordination, and the confluence criterion; every finding with its position."""
    indent = lambda d: "    " + format_diagnostic(d).replace("\n", "\n    ")  # noqa: E731
    lines = ["coordination (Dedalus properties draft; `dedalus2asp cron` checks it on an input):"]
    lines.append("  temporally stratifiable: yes (no negation or aggregate of a deductive rule is on a cycle of "
                 "same-step rules, tr2009 Def. 3)" if c.temporally_stratifiable else "  temporally stratifiable: no")
    lines += [indent(d) for d in c.cycles]
    if c.temporally_safe:
        lines.append("  temporally safe: yes (no rule computes new values without bound)")
    elif c.finite_when_cut:
        lines.append("  temporally safe: no, but every value that grows is a counter the eventual mode cuts "
                     "(value ranges below): finite-state")
    else:
        lines.append("  temporally safe: no (some relation grows without bound: no finite eventual model)")
    lines += [indent(d) for d in c.unbounded]
    if c.values:
        lines.append("  value ranges (relations with a computed column):")
        lines += [f"    {relation}: {kind} ({why})" for relation, kind, why in c.values]
    lines.append("  monotonic components (dependencies first): "
                 + " ".join("{" + ", ".join(comp) + "}" for comp in c.components))
    if not c.asynchronous:
        lines.append("  asynchronous relations: none, so no locus of coordination")
    elif not c.loci:
        lines.append("  loci of coordination: none")
    else:
        lines.append(f"  loci of coordination: {len(c.loci)}")
        lines += [indent(x.diagnostic) for x in c.loci]
    lines += [indent(x.diagnostic) for x in c.transient]
    lines += [indent(d) for d in c.unsettled]
    if c.confluent:
        theorem = " and positive (jcss2014 Theorem 4.1)" if c.positive else ""
        lines.append(f"  confluent by the properties draft's criterion{theorem}: no locus, every asynchronous relation "
                     "simply persisted, every relation carried to a later step only grows"
                     + (f" (assuming no input events besides those of {', '.join(c.events)})" if c.events else
                        " (for inputs without events, facts that hold at one step only)"))
    else:
        lines.append("  confluent by the properties draft's criterion: not shown")
        lines += [f"    - {reason}" for reason in c.reasons()]
    if c.lamport_relations() and c.lockstep:
        lines.append(f"  `dedalus2asp convert --to lamport` would change nothing: the lock-step rules "
                     f"({', '.join(map(str, c.lockstep))}) run with synchronous delivery only, where every message arrives "
                     "at its receiver's next step, so no run is non-causal (tr2009 §6.6)")
    elif c.lamport_relations():
        lines.append(f"  `dedalus2asp convert --to lamport` would rewrite: {', '.join(c.lamport_relations())} (tr2009 §6.6)")
    if c.clocked:
        lines.append(f"  already waiting for a Lamport clock (tr2009 §6.6): {', '.join(c.clocked)}")
    return lines


def summary(report: charts.Report, width: int | None = None, color: bool = False) -> str:
    """The summary of a result directory: its title and tables (the charts are in its HTML page only)."""
    out = console(width, color)
    charts.tables(report, out)
    return out.file.getvalue()


def count(result: dict, bounds: Bounds) -> str:
    """`solve.count`'s result in one line: models (unless only traces were counted) and distinct traces."""
    models_ = "" if result["models"] is None else f"{result['models']} model(s), "
    return (
        f"{models_}{result['traces']} distinct trace(s) ({bounds.semantics.value}, {bounds.describe()}; "
        f"{result['seconds']} s)\n"
    )


def exploration(summary: dict, bounds: Bounds) -> str:
    """What the operational explorer found in one line: distinct traces (and run prefixes), configurations."""
    prefixes = f" over {summary['runs']} distinct run prefix(es)" if "runs" in summary else ""
    return (
        f"{summary['traces']} distinct trace(s){prefixes}; {summary['states']} configurations explored "
        f"({bounds.describe()})\n"
    )


def eventual(result: Eventual) -> str:
    """What `explore --eventual` found: the graph's size, whether the answer is exact, the threshold K, and the
    distinct ultimate outputs, each with the shape of its witness lasso (prefix L, loop P)."""
    if not result.graph_complete:
        return (f"eventual answer ({result.bounds.describe()}): stopped after {result.configurations} configurations, "
                f"before the graph was complete: no ultimate output is known\nexact: no, {result.reason}\n")
    chosen = result.bounds.semantics is Semantics.CHOICE  # the choice runs' graph (runs.choice)
    lines = [
        f"eventual answer ({'choice runs, ' if chosen else ''}{result.bounds.describe()}): {result.configurations} "
        f"configurations, {result.edges} transitions, {result.components} strongly connected component(s) with a cycle",
        ("exact: yes, every infinite run's ultimate output is listed"
         + ("" if result.free_clocks is None else f" ({INTERLEAVINGS}; {result.interleavings} configurations of them)")
         if result.exact else f"exact: no, {result.reason}"),
    ]
    if result.threshold is not None:
        lines.append(f"completeness threshold K = {result.threshold}" if result.threshold_exact else
                     f"completeness threshold K ≤ {result.threshold} (an upper bound: the heaviest chain of components)")
    if result.exact and not result.infinite_runs:
        lines.append("no infinite run: every run gets stuck (a message can never meet its delay bound)")
    lines.append(f"{len(result.ultimate_outputs)} distinct ultimate output(s):")
    for k, (output, lasso) in enumerate(zip(result.ultimate_outputs, result.witnesses), 1):
        drift = (f"a run whose clocks drift apart ({len(lasso.free_clocks)} single steps with free clocks), then "
                 if lasso.free_clocks else "")
        lines.append(f"  {k}. {', '.join(output) or '(none)'}   {drift}lasso: prefix {lasso.loop_start}, loop {lasso.period} "
                     "transition(s)")
    if result.ultimate_outputs and chosen:  # consistency is the causal runs' question; the choice runs' is tolerance
        lines.append("the choice runs: " + ("they have different ultimate outputs" if result.consistent is False else
                                            "every one has the same ultimate output" if result.consistent else
                                            "those listed have the same ultimate output (not exact: see above)"))
    elif result.ultimate_outputs:
        lines.append("consistent: yes, every infinite run has the same ultimate output" if result.consistent else
                     "consistent: no, the infinite runs have different ultimate outputs (jcss2014 §2.5.5)"
                     if result.consistent is False else
                     "consistent: over the runs listed (not exact: see above)")
        lines.append(f"certain: {', '.join(result.certain) or '(none)'}")
        lines.append(f"possible: {', '.join(result.possible) or '(none)'}")
    return "".join(line + "\n" for line in lines)


def ultimate(result: Ultimate, width: int | None = None, color: bool = False) -> str:
    """What `models --eventual` found: whether the answer is exact (the threshold K, or why not), the distinct
    ultimate outputs, and for each a lasso that has it (its loop start L and period P, then its table)."""
    out = console(width, color)
    out.print(f"eventual answer ({result.bounds.semantics.value}, {result.bounds.describe()}), lassos of K = {result.steps} step(s)")
    if result.exact and result.decided_by == "confluence":
        out.print(f"exact: yes, {CONFLUENCE}")
    elif result.exact and result.decided_by == "graph":
        out.print("exact: yes, decided by the explorer's configuration graph (explore --eventual): its strongly "
                  "connected parts give every infinite run's ultimate output"
                  + ("" if result.free_clocks is None else f" ({INTERLEAVINGS})")
                  + "; the lassos shown have its witnesses' length")
    elif result.exact and result.decided_by == "explorer":
        out.print("exact: yes, decided by the explorer's configuration graph (explore --eventual): the lassos' per-node "
                  "ultimate sets left open what a run alternating between loops holds")
    elif result.free_clocks is not None:
        out.print(f"exact: no, {result.reason}")
    else:
        out.print(f"exact: yes, K is the completeness threshold" if result.exact else
                  f"exact: no (bounded: the lassos of {result.steps} steps only), {result.reason}")
    for k, (output, lasso) in enumerate(zip(result.outputs, result.lassos), 1):
        prefix = "no prefix" if lasso.loop_start == 0 else f"prefix steps 0..{lasso.loop_start - 1}"
        out.print(f"{k}. ultimately: {', '.join(output) or '(none)'}   lasso: {prefix}, "
                  f"loop steps {lasso.loop_start}..{lasso.horizon} (period {lasso.period}), then step {lasso.loop_start} again")
        print_model(lasso, out)
    runs = dict(result.drifted)
    for k, output in enumerate(result.outputs[len(result.lassos):], len(result.lassos) + 1):
        if output in runs:
            out.print(f"{k}. ultimately: {', '.join(output) or '(none)'}   (only a run whose nodes' clocks drift apart "
                      "first holds it: no lasso in rounds shows it)")
            for line in explored_run(runs[output]):
                out.print(line)
            continue
        out.print(f"{k}. ultimately: {', '.join(output) or '(none)'}   (only a run alternating between the loops above "
                  "holds it: no lasso of K steps shows it; explore --eventual shows its witness)")
    out.print(f"{len(result.outputs)} distinct ultimate output(s)" + ("" if result.complete else " (stopped by the timeout)"))
    if result.outputs:
        out.print(f"certain: {', '.join(result.certain) or '(none)'}")
        out.print(f"possible: {', '.join(result.possible) or '(none)'}")
    return out.file.getvalue()


def eventual_verdict(verdict: EventualVerdict) -> str:
    """What `explore --eventual --pre/--post` found: the verdict over infinite runs, the graph's size and K, and a
    counterexample lasso's faults, its missing rows and where its loop repeats them."""
    where = verdict.bounds.describe()
    size = (f"{verdict.configurations} configurations, {verdict.edges} transitions, {verdict.components} strongly "
            "connected component(s) with a cycle")
    if verdict.holds is None:
        return (f"eventual verdict ({where}): stopped after {verdict.configurations} configurations, before the graph "
                f"was complete: unknown\nexact: no, {verdict.reason}\n")
    lines = []
    if verdict.holds and verdict.vacuous:
        lines.append(f"holds vacuously: from some step on, no run has any {verdict.pre} row, so there is nothing to "
                     f"match ({where})")
    elif verdict.holds:
        runs = "every infinite run in rounds" if verdict.in_rounds else "every infinite run"
        lines.append(f"holds: in {runs}, from some step on every {verdict.pre} row has its {verdict.post} "
                     f"row ({where})")
    else:
        lasso = verdict.witness
        lines.append(f"violated: a run in which {', '.join(verdict.missing)} lack(s) the matching {verdict.post} row "
                     f"at infinitely many steps ({where})")
        lines.append(f"  faults: {verdict.faults} (the fewest of any such run)" if verdict.faults else
                     "  faults: 0 — it breaks without any fault")
        lines.append(f"  lasso: steps 0..{lasso.loop_start - 1 if lasso.loop_start else 0} then the loop of steps "
                     f"{lasso.loop_start}..{lasso.loop_start + lasso.period - 1} repeated forever; unmatched at step "
                     f"{verdict.violated_at} (and every {lasso.period} step(s) after)" if lasso.loop_start else
                     f"  lasso: the loop of steps 0..{lasso.period - 1} repeated forever; unmatched at step "
                     f"{verdict.violated_at} (and every {lasso.period} step(s) after)")
        for node, step in verdict.crashes:
            lines.append(f"  crashed: {node} at step {step}")
        for message in verdict.lost:
            lines.append(f"  lost: {message}")
    lines.append(f"exact: no, {verdict.reason} ({size})" if verdict.in_rounds else f"exact: yes ({size})")
    if verdict.threshold is not None:
        lines.append(f"completeness threshold K = {verdict.threshold}" if verdict.threshold_exact else
                     f"completeness threshold K ≤ {verdict.threshold} (an upper bound: the heaviest chain of components)")
    return "".join(line + "\n" for line in lines)


def explored_run(lasso, indent: str = "  ") -> list[str]:
    """A run of the explorer (`runs.eventual.Lasso`) as lines: its free-clock prefix when it has one (one node's step
    at a time, each node on its own clock: tplp2016 §5.1.3), the messages then in flight, and its rounds, the loop's
    marked, each node's step as node@step with the facts it derived and the messages it received and sent."""
    lines = []
    if lasso.free_clocks:
        lines.append(f"{indent}free clocks (one node's step at a time, each node on its own clock):")
        for row in lasso.free_clocks:
            lines.append(f"{indent}  {_node_step(row['node'], row)}")
        for message in lasso.in_flight:
            lines.append(f"{indent}  in flight: {message}")
    shape = (f"then in rounds (every node's next step in each): " if lasso.free_clocks else "in rounds: ")
    shape += (f"{lasso.loop_start} round(s), then " if lasso.loop_start else "") + f"a loop of {lasso.period} round(s) repeating forever:"
    lines.append(indent + shape)
    for k, step in enumerate(lasso.steps):
        mark = "loop " if k >= lasso.loop_start else "     "
        cells = [_node_step(x, node) for x, node in step["nodes"].items()]
        crashes = f"; crashes {', '.join(step['crashes'])}" if step["crashes"] else ""
        lines.append(f"{indent}  {mark}{' | '.join(cells)}{crashes}")
    return lines


def _node_step(x: str, node: dict) -> str:
    """One node's step of an explorer run: "b@0: fresh(2); received msg(1) from a@0; sent ..."."""
    parts = [", ".join(node["facts"]) or "(nothing derived)"]
    if node["received"]:
        parts.append(f"received {', '.join(node['received'])}")
    if node["sent"]:
        parts.append(f"sent {', '.join(node['sent'])}")
    if node.get("lost"):
        parts.append(f"lost {', '.join(node['lost'])}")
    return f"{x}@{node['step']}: " + "; ".join(parts)
