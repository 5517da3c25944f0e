"""The configurations of Molly's own experiments, for `molly_verdicts.py` and `ground_budget.py`.

Molly (Alvaro, Rosen, Hellerstein, *Lineage-driven fault injection*, SIGMOD 2015) ships its programs
under `src/test/resources/examples_ft/` and runs them at the settings below: its test suite
(`CounterexampleSuite.scala`, with the verdict it expects), the paper's table of programs with a
counterexample (`paperexperiments/TableOfCounterexamples.scala`, Fig. 12) and of correct programs
(`paperexperiments/TableOfCorrectPrograms.scala`, Fig. 13); and the case studies of the Nemo debugger
(`numbleroot/nemo`), which their own command lines place under `examples_ft/nemo/`. Each row: the
program files (relative to `examples_ft/`), EOT, EFF, crashes, Molly's `-N` nodes, and Molly's verdict (True: a
counterexample is found). None of Molly's programs is copied here: the scripts read them from a
checkout given on their command line.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple


class Configuration(NamedTuple):
    source: str  # where Molly runs it
    files: tuple[str, ...]
    eot: int
    eff: int
    crashes: int
    nodes: tuple[str, ...]
    counterexample: bool | None  # Molly's verdict; None where Molly states none


ABC = ("a", "b", "c")
ABCD = ("a", "b", "C", "d")
KAFKA = ("a", "b", "c", "C", "Z")


def _rows(source: str, rows) -> list[Configuration]:
    return [Configuration(source, tuple(files), eot, eff, crashes, nodes, found) for files, eot, eff, crashes, nodes, found in rows]


SUITE = _rows("CounterexampleSuite", [
    (("delivery/simplog.ded", "delivery/deliv_assert.ded"), 6, 3, 0, ABC, True),
    (("delivery/rdlog.ded", "delivery/deliv_assert.ded"), 6, 3, 0, ABC, False),
    (("delivery/rdlog.ded", "delivery/deliv_assert.ded"), 6, 3, 1, ABC, True),
    (("delivery/classic_rb.ded", "delivery/deliv_assert.ded"), 6, 3, 0, ABC, True),
    (("delivery/classic_rb.ded", "delivery/deliv_assert.ded"), 6, 0, 2, ABC, False),
    (("delivery/replog.ded", "delivery/deliv_assert.ded"), 6, 3, 0, ABC, False),
    (("delivery/replog.ded", "delivery/deliv_assert.ded"), 6, 3, 1, ABC, False),
    (("delivery/ack_rb.ded", "delivery/deliv_assert.ded"), 6, 3, 1, ABC, False),
    (("commit/2pc.ded", "commit/2pc_assert.ded"), 7, 3, 0, ABCD, False),
    (("commit/2pc.ded", "commit/2pc_assert.ded"), 6, 3, 1, ABCD, True),
    (("commit/2pc.ded", "commit/2pc_assert.ded"), 6, 0, 1, ABCD, True),
    (("commit/2pc.ded", "commit/2pc_assert.ded"), 6, 0, 2, ABCD, True),
    (("commit/2pc.ded", "commit/2pc_assert_optimist.ded"), 6, 0, 1, ABCD, True),
    (("commit/2pc.ded", "commit/2pc_assert_optimist.ded"), 6, 0, 2, ABCD, True),
    (("commit/2pc_timeout.ded", "commit/2pc_assert_optimist.ded"), 6, 0, 1, ABCD, False),
    (("commit/2pc_timeout.ded", "commit/2pc_assert_optimist.ded"), 6, 0, 2, ABCD, False),
    (("commit/2pc_timeout.ded", "commit/2pc_assert.ded"), 6, 0, 1, ABCD, True),
    (("commit/2pc_timeout.ded", "commit/2pc_assert.ded"), 6, 0, 2, ABCD, True),
    (("commit/2pc_ctp.ded", "commit/2pc_assert.ded"), 6, 0, 1, ABCD, True),
    (("commit/2pc_ctp.ded", "commit/2pc_assert.ded"), 6, 0, 2, ABCD, True),
    (("commit/3pc.ded", "commit/2pc_assert.ded"), 8, 0, 1, ABCD, False),
    (("commit/3pc.ded", "commit/2pc_assert.ded"), 8, 0, 2, ABCD, False),
    (("commit/3pc.ded", "commit/2pc_assert.ded"), 9, 7, 1, ABCD, True),
    (("kafka.ded",), 7, 4, 1, KAFKA, True),
    (("kafka.ded",), 7, 4, 0, KAFKA, False),
])

# Fig. 12: the programs with a counterexample, run until the first one (the driver names 2pc, 2pc_ctp and
# 3pc without their folder: they are under commit/)
FIG12 = _rows("Fig. 12 (TableOfCounterexamples)", [
    (("delivery/simplog.ded", "delivery/deliv_assert.ded"), 4, 2, 0, ABC, True),
    (("delivery/rdlog.ded", "delivery/deliv_assert.ded"), 4, 2, 1, ABC, True),
    (("delivery/classic_rb.ded", "delivery/deliv_assert.ded"), 5, 3, 0, ABC, True),
    (("commit/2pc.ded", "commit/2pc_assert.ded"), 5, 0, 1, ABCD, True),
    (("commit/2pc_ctp.ded", "commit/2pc_assert.ded"), 8, 0, 1, ABCD, True),
    (("commit/3pc.ded", "commit/2pc_assert.ded"), 9, 7, 1, ABCD, True),
    (("kafka.ded",), 6, 4, 1, KAFKA, True),
])

# Fig. 13: the correct programs, run until the failure space is covered (rdlog, replog and ack_rb are
# named without their folder delivery/ by the driver)
FIG13 = _rows("Fig. 13 (TableOfCorrectPrograms)", [
    (("delivery/rdlog.ded", "delivery/deliv_assert.ded"), 25, 23, 0, ABC, False),
    (("delivery/replog.ded", "delivery/deliv_assert.ded"), 8, 6, 1, ABC, False),
    (("delivery/ack_rb.ded", "delivery/deliv_assert.ded"), 8, 6, 1, ABC, False),
    (("paxos_synod.ded",), 8, 3, 1, ABC, False),
])

# The case studies of the Nemo debugger (numbleroot/nemo, `case-studies/`): bugs of real systems written for
# Molly, each run by the command line on its second line, which places it under examples_ft/nemo/; each is a bug,
# so Molly finds a counterexample
NEMO = _rows("Nemo case studies", [
    (("nemo/CA-2083-hinted-handoff.ded",), 6, 4, 0, ("n1", "n2"), True),
    (("nemo/CA-2434-bootstrap-synchronization.ded",), 7, 5, 1, ("n1", "n2", "n3", "n4"), True),
    (("nemo/MR-2995-failed-after-expiry.ded",), 8, 4, 1, ("rm", "nm", "am"), True),
    (("nemo/MR-3858-hadoop.ded",), 8, 4, 1, ("am", "w1", "w2"), True),
    (("nemo/ZK-1270-racing-sent-flag.ded",), 6, 3, 0, ("FF", "LL", "A"), True),
    (("nemo/pb_asynchronous.ded",), 6, 4, 1, ("C", "a", "b", "c"), True),
])

ALL = SUITE + FIG12 + FIG13 + NEMO


def examples_ft(molly: str | Path) -> Path:
    """The folder of Molly's programs under a checkout (or the folder itself when given directly)."""
    root = Path(molly)
    for candidate in (root / "src/test/resources/examples_ft", root / "examples_ft", root):
        if (candidate / "delivery").is_dir():
            return candidate
    raise SystemExit(f"{molly}: no examples_ft folder of Molly's programs (give a checkout of palvaro/molly)")
