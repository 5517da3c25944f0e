"""The scaling families of the benchmark: a program of the papers and an input generated per size.

* `alg1`: jcss2014 Alg. 1 (transitive closure broadcast) on the chain v0 → v1 → … → vN, one edge
  per node, over N nodes;
* `2pc`: tplp2016 Ex. 3 (two-phase commit), a coordinator and k agents that all vote yes;
* `alg2`: jcss2014 Alg. 2 (emptiness query) over N nodes, S empty everywhere;
* `fig4`: tplp2016 Fig. 4 on its single node z, the one family that grows in T alone.

Each family sweeps the horizon T at every size (`series`), and counts distinct traces at a few
small points (`count_points`), where the explicit-state explorer can finish too.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

# 4..40 as the issue asks, then on, roughly geometrically, until the budget runs out.
HORIZONS = (4, 6, 8, 12, 16, 20, 24, 32, 40, 48, 64, 80, 96, 128, 160, 192, 256, 320, 384, 512, 640, 768, 1024, 1280, 1536, 2048)


def alg1_chain(n: int) -> str:
    nodes = [f"n{i}" for i in range(1, n + 1)]
    lines = [" ".join(f"Node({x})." for x in nodes)]
    lines += [f"{x} {{ R(v{i - 1}, v{i}). }}" for i, x in enumerate(nodes, 1)]
    return "\n".join(lines) + "\n"


def two_phase_commit(k: int) -> str:
    agents = [f"a{i}" for i in range(1, k + 1)]
    coordinator = "c { coordinator_role(). T(t1). Y(yes). N(no). " + " ".join(f"agent({a})." for a in agents) + " }"
    lines = [coordinator] + [f"{a} {{ agent_role(). Id({a}). coord(c). myVote(t1, yes). }}" for a in agents]
    return "\n".join(lines) + "\n"


def alg2_empty(n: int) -> str:
    nodes = [f"n{i}" for i in range(1, n + 1)]
    lines = [" ".join(f"Node({x})." for x in nodes)] + [f"{x} {{ Id({x}). }}" for x in nodes]
    return "\n".join(lines) + "\n"


def fig4_single(_: int) -> str:
    return "z { Id(z). }\n"


@dataclass(frozen=True)
class Family:
    name: str
    title: str
    program: Path
    size: str  # what the size parameter counts
    sizes: tuple[int, ...]
    instance: Callable[[int], str]
    count_points: tuple[tuple[int, int], ...]  # (size, horizon) where traces are counted

    def facts(self, size: int) -> str:
        return self.instance(size)


FAMILIES = (
    Family(
        "alg1",
        "jcss2014 Alg. 1, transitive closure broadcast, chain over N nodes",
        EXAMPLES / "jcss2014/alg1.ded",
        "N",
        (2, 3, 4, 5),
        alg1_chain,
        ((2, 3), (2, 4), (2, 5), (2, 6)),
    ),
    Family(
        "2pc",
        "tplp2016 Ex. 3, two-phase commit, k agents",
        EXAMPLES / "tplp2016/ex3_2pc.ded",
        "k",
        (1, 2, 3, 4, 5, 6),
        two_phase_commit,
        ((1, 6), (2, 4), (2, 5), (3, 3), (3, 4)),
    ),
    Family(
        "alg2",
        "jcss2014 Alg. 2, emptiness query, N nodes",
        EXAMPLES / "jcss2014/alg2.ded",
        "N",
        (2, 3, 4, 5),
        alg2_empty,
        ((2, 3), (2, 4), (2, 5), (3, 2), (3, 3)),
    ),
    Family(
        "fig4",
        "tplp2016 Fig. 4, one node",
        EXAMPLES / "tplp2016/fig4_noncausal.ded",
        "nodes",
        (1,),
        fig4_single,
        ((1, 6), (1, 8), (1, 10), (1, 12), (1, 14)),
    ),
)
