"""`maintain`: views of distributed recursive programs kept up to date under insertions and deletions.

After Nigam, Jia, Loo and Scedrov, *Maintaining Distributed Recursive Views Incrementally* (2010,
"psn2010"): a DDlog program (positive Datalog whose relations each have a location column) is
localized (§2.2), and its view is maintained by pipelined semi-naive evaluation (PSN, Algorithm 1)
with derivation sets S and infinite-count sets H (§5, Fig. 2) while bursts of base updates arrive.

Modules, one concern each:

* `ddlog`: facts (`Fact`) and rules (`DRule`) of a program (`DDlogProgram`);
* `reading`: a program file → `DDlogProgram` (DDlog, or positive Dedalus that is simply persisted);
* `localize`: rule localization (psn2010 §2.2);
* `updates`: the base E and bursts of updates (`Update`, `Burst`, `Base`), as text, JSON, Parquet;
* `join`: indexed tables and body joins;
* `view`: `View` (facts with counts), `recompute` (the reference view), `difference` (Definition 8);
* `engine`: the engine interface below, `BurstStats`, and `Recompute`.

The interface an engine implements (`engine.Engine`)
----------------------------------------------------

    engine.start(program, base)
        program: a `DDlogProgram`. `program.localized` are the rules to run, each with its body at
            one node (`program.location(atom)` is an atom's location term); `program.columns[r]` is
            relation r's location column, so a fact f is held by `program.node(f)`;
            `program.base` are the base relations, `program.auxiliary` the relations localization
            added (not shown in a view).
        base: `collections.Counter` of `Fact` (relation, args with the location column) → its
            multiplicity in E. The engine computes the view of E.
    stats = engine.apply(burst)
        burst: an `updates.Burst`, already checked (`updates.Base.apply`: no deletion of a fact E ⊎ I
            does not hold). `burst.updates` are `Update(op, fact)`, op "+" (INS) or "-" (DEL).
        Returns a `BurstStats` once the system has quiesced: `changes`, the facts of the program's own
            relations the burst added to / removed from the view (as a set), and `inserted` / `deleted`,
            relation → how many (`engine.fill_changes` sets the three from the two lists of facts, which
            `view.changes(before, after)` gives where nothing better is at hand; `changes` None: the command
            compares `view()` before and after the burst itself); `updates`, node → the updates
            it processed; `messages`, node → the updates it derived for another node; `seconds`.
    view = engine.view()
        A `view.View`: `counts` fact → its number of derivations (multiset semantics) for the facts with
        finitely many, `infinite` the facts with infinitely many (a derivation through a cycle, psn2010
        §5). It may include auxiliary facts; `View.shown(program)` drops them. Definition 8 holds when
        `view.difference(engine.view().shown(p), view.recompute(p, E ⊎ I ∖ D))` is empty.

Nodes are named as in the JSON input (`engine.node_name`). `recompute(program, base)` is the
reference every engine is checked against; it evaluates the program as written, not its localization.
"""

from .ddlog import DDlogProgram, DRule, Fact
from .engine import BurstStats, Engine, Recompute
from .reading import parse_program, read_program
from .updates import Base, Burst, Update, parse_updates, read_base, read_updates
from .view import View, difference, recompute

__all__ = [
    "Base", "Burst", "BurstStats", "DDlogProgram", "DRule", "Engine", "Fact", "Recompute", "Update", "View",
    "difference", "parse_program", "parse_updates", "read_base", "read_program", "read_updates", "recompute",
]
