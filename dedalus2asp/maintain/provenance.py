"""`--explain FACT`: which derivations support a fact now, and which deleted base fact took each of the
others away.

PSN's view holds a fact once per derivation, annotated with its derivation set S (psn2010 §5): the
facts the derivation uses. A derivation the view held before a burst and not after was taken away by
the burst's deletions of base facts in its S (a derivation with none of them in S cannot be deleted:
its facts are all still there).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from .ddlog import DDlogProgram, Fact


@dataclass
class Provenance:
    """The derivations of `fact` (as (S, H) with a multiplicity) now, and those taken away, burst by burst."""

    fact: Fact
    now: Counter = field(default_factory=Counter)
    taken: list[tuple[int, tuple, list[Fact]]] = field(default_factory=list)  # burst, (S, H), deleted base facts

    def follow(self, burst: int, deleted: Counter, after: dict) -> None:
        """Record the burst: `after` are the fact's copies {(S, H): n} once it quiesced; `deleted` its base deletions."""
        before, after = self.now, Counter(after)
        for copy, n in (before - after).items():
            culprits = sorted((f for f in deleted if f in copy[0]), key=lambda f: (f.relation, f.args))
            self.taken.extend([(burst, copy, culprits)] * n)
        self.now = after

    def lines(self, program: DDlogProgram) -> list[str]:
        def shown(S) -> str:
            return "{" + ", ".join(str(f) for f in sorted(S, key=lambda f: (f.relation, f.args))
                                   if f.relation not in program.auxiliary) + "}"

        total = sum(self.now.values())
        infinite = any(h for _, h in self.now)
        out = [f"{self.fact}: " + ("not in the view" if not total else
                                   f"{total} derivation(s) now" + (" (infinitely many: one goes through a cycle)" if infinite else ""))]
        for (S, H), n in sorted(self.now.items(), key=lambda c: (len(c[0][0]), shown(c[0][0]))):
            cycle = f", cycle through {shown(H)}" if H else ""
            out.append(f"  uses {shown(S)}" + (f" ×{n}" if n > 1 else "") + cycle)
        for burst, (S, _), culprits in self.taken:
            by = " and ".join(str(f) for f in culprits) or "no deleted base fact"
            out.append(f"  burst {burst} took away the derivation using {shown(S)}: deleted {by}")
        return out
