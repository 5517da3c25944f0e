"""Shared fixtures: the examples of the papers, each with a small input."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

# The vacuity tests of verify, --split, --search-horizon and batch: pre at a needs a ping at a, and nobody pings a,
# so no run has a pre row (VACUOUS: a vacuous holds); pre at every peer, matched (HELD: a holds that could fail).
PEERS = """
peer("a", "b")@1;
peer(A, B)@next :- peer(A, B);
ping(B, A)@async :- peer(A, B);
post(A) :- peer(A, _);
"""
VACUOUS = PEERS + "pre(A) :- peer(A, _), ping(A, _);\n"
HELD = PEERS + "pre(A) :- peer(A, _);\n"

# (program, small input): small enough to explore every run at horizons 1-3.
SMALL = [
    ("tplp2016/ex1_reachability.ded", "tplp2016/ex1_reachability.facts"),
    ("tplp2016/ex2_ordering.ded", "tplp2016/ex2_ordering.facts"),
    ("tplp2016/ex3_2pc.ded", "tplp2016/ex3_2pc_small.facts"),
    ("tplp2016/fig4_noncausal.ded", "tplp2016/fig4.facts"),
    ("tplp2016/fig5_grouping.ded", "tplp2016/fig5.facts"),
    ("jcss2014/alg1.ded", "jcss2014/alg1.facts"),
    ("jcss2014/alg2.ded", "jcss2014/alg2_nonempty.facts"),
    ("jcss2014/alg3.ded", "jcss2014/alg3.facts"),
    ("jcss2014/alg4.ded", "jcss2014/alg4.facts"),
    ("tr2009/mutable_state.ded", "tr2009/mutable_state.facts"),
    ("tr2009/priority_queue.ded", "tr2009/priority_queue.facts"),
    ("tr2009/broadcast.ded", "tr2009/broadcast.facts"),
]

# the fault-tolerance protocols of the Molly library, each with its invariant file (docs/molly.md)
INVARIANTS = {
    "simple_broadcast": "broadcast_assert",
    "retry_broadcast": "broadcast_assert",
    "ack_broadcast": "broadcast_assert",
    "classic_broadcast": "broadcast_assert",
    "two_phase_commit": "commit_assert",
    "two_phase_commit_timeout": "commit_assert",
}


def example_id(pair: tuple[str, str]) -> str:
    return Path(pair[0]).stem


@pytest.fixture(params=SMALL, ids=[example_id(p) for p in SMALL])
def example(request) -> tuple[Path, Path]:
    program, facts = request.param
    return EXAMPLES / program, EXAMPLES / facts


@pytest.fixture(scope="session")
def spark():
    """One local Spark session for every Spark test (local[2], no UI; 2 shuffle partitions, one per core as `run` has
    them: 4 cost the Spark tests of test_engine.py a fifth more CPU, 206 s against 162 s)."""
    from dedalus2asp.runs.session import spark_session

    session = spark_session("local[2]", partitions=2)
    yield session
    session.stop()


# The long fuzzing run (tests/test_fuzz.py): `pytest -m fuzz --fuzz-examples N`. Without `-m fuzz`, the
# tests marked `fuzz(only_long=True)` are deselected, and the other fuzz tests draw their CI budget.


def pytest_addoption(parser):
    parser.addoption("--fuzz-examples", type=int, default=0,
                     help="inputs per property of tests/test_fuzz.py (default: its CI budget)")
    parser.addoption("--update-docs", action="store_true",
                     help="tests/test_docs.py: rewrite the blocks of the docs that differ to show what the tool prints")


def _only_long(item) -> bool:
    marker = item.get_closest_marker("fuzz")
    return marker is not None and marker.kwargs.get("only_long", False)


def pytest_collection_modifyitems(config, items):
    if "fuzz" in (config.getoption("-m") or ""):
        return
    deselected = [item for item in items if _only_long(item)]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = [item for item in items if not _only_long(item)]
