"""`verify --split K` (dedalus2asp/questions/verify_split.py): the fault space cut into K parts gives the unsplit verdict.

On the protocols of the Molly library (examples/molly/, Alvaro, Rosen, Hellerstein, *Lineage-driven
fault injection*, SIGMOD 2015) with their invariant files, under sync and async delivery, with and
without counterexamples: for K = 1, 2, 3, 8 the split verdict holds exactly when the unsplit one does,
and its counterexample has the same (fewest) number of faults. The cubes of the parts partition the
runs (every model satisfies exactly one cube), the answer is deterministic, `--all` in parts lists
the unsplit minimal fault sets, a deadline before any answer is "unknown" (exit 3), and one test
runs the parts on Spark executors.
"""

from __future__ import annotations

import json
from functools import cache

import clingo
import pytest
from typer.testing import CliRunner

from conftest import EXAMPLES, HELD, INVARIANTS, VACUOUS
from dedalus2asp import pipeline
from dedalus2asp.asp.transform import transform
from dedalus2asp.bounds import Bounds, Network
from dedalus2asp.cli import app
from dedalus2asp.questions.verify import verify
from dedalus2asp.questions.verify_split import SPLIT_CRASHED, SPLIT_OMITTED, cubes, fault_words, split_rules, varying, verify_split

MOLLY = EXAMPLES / "molly"
runner = CliRunner()

PROTOCOLS = INVARIANTS
FAULTS = {"omissions": dict(loss_until=2), "crash": dict(crashes=1), "both": dict(loss_until=1, crashes=1)}
NETWORKS = {"sync": dict(delivery="sync"), "async": dict(max_delay=1)}
CASES = [(name, network, faults) for name in PROTOCOLS for network in NETWORKS for faults in FAULTS]
HORIZON = {"sync": 5, "async": 4}


def files(name: str) -> list:
    return [MOLLY / f"{name}.ded", MOLLY / f"{PROTOCOLS[name]}.ded"]


@cache
def loaded(name: str):
    program, instance, _ = pipeline.load(files(name))
    return program, instance


def bounds(network: str, faults: str) -> Bounds:
    return Bounds(HORIZON[network], network=Network(**NETWORKS[network], **FAULTS[faults]))


def answer(verdict) -> tuple:
    """What the split must keep: holds, complete, and the number of faults of the counterexample."""
    found = verdict.counterexample
    return verdict.holds, verdict.complete, None if found is None else (found.faults, found.fewest)


@cache
def unsplit(name: str, network: str, faults: str) -> tuple:
    program, instance = loaded(name)
    return answer(verify(program, instance, bounds(network, faults), timeout=120))


@pytest.mark.parametrize("name, network, faults", CASES, ids=[f"{n}-{w}-{f}" for n, w, f in CASES])
def test_split_verdict_is_the_unsplit_one(name, network, faults):
    program, instance = loaded(name)
    expected = unsplit(name, network, faults)
    for parts in (1, 2, 3, 8):
        split = verify_split(program, instance, bounds(network, faults), parts, timeout=120)
        assert answer(split.verdict) == expected, parts
        assert len(split.parts) == parts and split.as_dict()["parts"] == parts
        # holds iff every part holds; the counterexample's faults are the fewest over the parts
        assert split.verdict.holds == all(p.holds for p in split.parts)
        broken = [p.faults for p in split.parts if p.holds is False]
        assert (min(broken) if broken else None) == (expected[2] and expected[2][0])


def test_the_cases_have_answers_both_ways():
    """Both deliveries have protocols that hold and protocols with a counterexample among the cases above."""
    for network in NETWORKS:
        holds = {unsplit(n, w, f)[0] for n, w, f in CASES if w == network}
        assert holds == {True, False}, network


@pytest.mark.parametrize("network", NETWORKS)
def test_the_cubes_partition_the_runs(network):
    """Every run (a model of the fault-injected program) satisfies exactly one cube of exactly one part."""
    program, instance = loaded("two_phase_commit")
    b = Bounds(3, network=Network(**NETWORKS[network], loss_until=1, crashes=1))
    compiled = transform(program, instance, b)
    atoms, split = cubes(varying(compiled), 8, b.network.crashes)
    assert len(atoms) >= 3 and any(a.startswith(SPLIT_CRASHED) for a in atoms) and any(a.startswith(SPLIT_OMITTED) for a in atoms)
    assert sum(map(len, split)) >= 8 and all(split)
    ctl = clingo.Control(["0", "--warn=none"])
    ctl.add("base", [], compiled.text + split_rules(compiled))
    ctl.ground([("base", [])])
    symbols = [clingo.parse_term(a) for a in atoms]
    runs = 0
    with ctl.solve(yield_=True) as handle:
        for model in handle:
            runs += 1
            truth = tuple(model.contains(s) for s in symbols)
            assert sum(cube == truth for part in split for cube in part) == 1, truth
    assert runs > 8


def test_no_cube_has_more_crashes_than_the_bound():
    atoms = [f"{SPLIT_CRASHED}(a)", f"{SPLIT_CRASHED}(b)", f"{SPLIT_CRASHED}(c)", f"{SPLIT_OMITTED}(a,0,b)"]
    chosen, split = cubes(atoms, 8, crashes=1)
    assert chosen == atoms  # 4 cubes of the three crash atoms (none or one crash), then doubled by the omission
    every = [cube for part in split for cube in part]
    assert len(every) == len(set(every)) == 8 and all(sum(cube[:3]) <= 1 for cube in every)
    assert cubes(atoms, 1) == ([], [[()]])
    # without crashes, a crash atom is false in every run: the omission splits
    assert cubes(atoms, 2, crashes=0) == ([atoms[3]], [[(False,)], [(True,)]])
    assert cubes(atoms, 3, crashes=0) == ([atoms[3]], [[(False,)], [(True,)], []])
    with pytest.raises(ValueError):
        cubes(atoms, 0)


def test_the_counterexample_is_deterministic():
    program, instance = loaded("classic_broadcast")
    b = bounds("async", "both")
    first, second = (verify_split(program, instance, b, 8) for _ in range(2))
    assert first.verdict.counterexample.as_dict() == second.verdict.counterexample.as_dict()
    least = min(p.faults for p in first.parts if p.faults is not None)
    assert first.verdict.counterexample.faults == least


def test_progress_counts_the_parts_done():
    program, instance = loaded("two_phase_commit")
    done: list[int] = []
    verify_split(program, instance, bounds("sync", "both"), 3, progress=done.append)
    assert done == [1, 2, 3]


def test_a_deadline_before_any_answer_is_unknown(tmp_path):
    program, instance = loaded("two_phase_commit")
    split = verify_split(program, instance, bounds("sync", "both"), 4, timeout=0)
    assert split.verdict.holds is None and not split.verdict.complete
    assert "unknown" in split.describe() and not all(p.complete for p in split.parts)
    result = runner.invoke(app, ["verify", *map(str, files("two_phase_commit")), "--horizon", "5", "--delivery", "sync",
                                 "--crashes", "1", "--split", "4", "--timeout", "0", "--quiet"])
    assert result.exit_code == 3, result.output
    assert "parts" in result.stdout and "timeout" in result.stderr


def test_cli_split_json_out_and_refusals(tmp_path):
    args = ["verify", *map(str, files("two_phase_commit_timeout")), "--horizon", "5", "--delivery", "sync", "--crashes", "1"]
    whole = json.loads(runner.invoke(app, [*args, "--json"]).stdout)
    result = runner.invoke(app, [*args, "--json", "--split", "3", "--out", str(tmp_path / "runs"), "--quiet"])
    assert result.exit_code == 1, result.output
    split = json.loads(result.stdout)
    assert split["parts"] == 3 and len(split["split"]["parts"]) == 3 and split["split"]["engine"] == "local"
    assert (split["holds"], split["counterexample"]["faults"]) == (whole["holds"], whole["counterexample"]["faults"])
    assert result.stderr == ""
    runs = json.loads((tmp_path / "runs" / "runs.json").read_text())
    assert [r["status"] for r in runs["runs"]] == ["success", "failure"] and (tmp_path / "runs" / "index.html").exists()
    text = runner.invoke(app, [*args, "--split", "3", "--quiet"]).stdout  # the split atoms in words, not as atoms
    said = text.splitlines()[1]
    assert said.startswith("  split into 3 parts (local) on whether ") and " crashes" in said and "_split" not in said
    assert fault_words('_split_omitted(a,0,b)') == "a message from a to b at step 0 is lost"
    for extra, said in ((["--split", "2", "--search-horizon"], "--search-horizon"),
                        (["--engine", "spark"], "--split"), (["--split", "2", "--engine", "mpi"], "--engine"),
                        (["--split", "0"], "--split")):
        refused = runner.invoke(app, [*args, *extra])
        assert refused.exit_code == 2 and refused.stdout == "", extra
        assert refused.stderr.startswith("<command line>: error:") and said in refused.stderr, refused.stderr
        assert "Traceback" not in refused.stderr


ALL = [(name, network) for name in ("classic_broadcast", "two_phase_commit", "retry_broadcast") for network in NETWORKS]


@pytest.mark.parametrize("name, network", ALL, ids=[f"{n}-{w}" for n, w in ALL])
def test_all_in_parts_lists_the_unsplit_minimal_fault_sets(name, network):
    """Each part's minimal fault sets, less those that include another part's, are the unsplit --all's."""
    program, instance = loaded(name)
    b = Bounds(HORIZON[network] - 1, network=Network(**NETWORKS[network], loss_until=2, crashes=1))
    whole = verify(program, instance, b, all_=True, timeout=120)
    assert whole.complete and len(whole.fault_sets) > 1
    for parts in (1, 3, 8):
        split = verify_split(program, instance, b, parts, timeout=120, all_=True).verdict
        assert split.complete and [str(f) for f in split.fault_sets] == [str(f) for f in whole.fault_sets], parts
        assert len(split.witnesses) == len(split.fault_sets)


def fault_sets(document: dict) -> list:
    return [json.dumps(f, sort_keys=True) for f in document["minimal_fault_sets"]]


def test_split_on_spark_from_the_command_line(spark):
    args = ["verify", *map(str, files("simple_broadcast")), "--horizon", "4", "--max-delay", "1", "--loss-until", "1",
            "--crashes", "1", "--json", "--all"]
    whole = json.loads(runner.invoke(app, args).stdout)
    result = runner.invoke(app, [*args, "--split", "4", "--engine", "spark", "--quiet"])
    assert result.exit_code == 1, result.output
    split = json.loads(result.stdout)
    assert split["split"]["engine"] == "spark" and split["parts"] == 4 and split["complete"]
    assert (split["holds"], split["counterexample"]["faults"]) == (whole["holds"], whole["counterexample"]["faults"]) == (False, 1)
    assert sum(p["holds"] is False for p in split["split"]["parts"]) > 1
    assert fault_sets(split) == fault_sets(whole) and len(fault_sets(whole)) > 1


def test_without_faults_one_part_does_the_work():
    """No fault atom varies without --loss-until or --crashes: one cube, the other parts are empty and hold."""
    program, instance = loaded("two_phase_commit")
    b = Bounds(4, network=Network(delivery="sync"))
    split = verify_split(program, instance, b, 3)
    assert split.atoms == () and [p.cubes for p in split.parts] == [1, 0, 0]
    assert answer(split.verdict) == answer(verify(program, instance, b)) == (True, True, None)


def test_help_describes_the_split_options():
    out = runner.invoke(app, ["verify", "--help"], env={"COLUMNS": "200"}).stdout
    for option in ("--split", "--engine", "--master", "--spark-log", "--quiet"):
        assert option in out, option


# VACUOUS and HELD: conftest
PEER_ARGS = ["--horizon", "3", "--delivery", "sync", "--crashes", "1", "--loss-until", "2", "--nodes", "b"]


def peers(tmp_path, text: str):
    (tmp_path / "p.ded").write_text(text)
    program, instance, _ = pipeline.load(tmp_path / "p.ded", None, "molly")
    return program, instance


@pytest.mark.parametrize("text, vacuous", [(VACUOUS, True), (HELD, False)], ids=["vacuous", "held"])
def test_a_split_verdict_says_when_it_holds_vacuously(tmp_path, text, vacuous):
    program, instance = peers(tmp_path, text)
    within = Bounds(3, network=Network("sync", crashes=1, loss_until=2, nodes=("b",)))
    whole = verify(program, instance, within)
    split = verify_split(program, instance, within, 4)
    assert len(split.atoms) == 3 and len(split.parts) == 4  # really split: a crashes, b crashes, a's ping lost
    assert whole.holds and split.verdict.holds and whole.vacuous is split.verdict.vacuous is vacuous
    assert split.as_dict()["vacuous"] is vacuous
    assert split.describe().startswith("holds vacuously: no run has a pre fact" if vacuous else "holds: every pre fact")


def test_cli_split_json_says_vacuous(tmp_path):
    (tmp_path / "p.ded").write_text(VACUOUS)
    result = runner.invoke(app, ["verify", str(tmp_path / "p.ded"), *PEER_ARGS, "--split", "2", "--json", "--quiet"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["vacuous"] is True
    (tmp_path / "p.ded").write_text(HELD)
    result = runner.invoke(app, ["verify", str(tmp_path / "p.ded"), *PEER_ARGS, "--split", "2", "--quiet"])
    assert result.exit_code == 0 and result.stdout.startswith("holds: every pre fact"), result.output


def test_a_split_on_spark_says_when_it_holds_vacuously(tmp_path, spark):
    for text, vacuous in ((VACUOUS, True), (HELD, False)):
        (tmp_path / "p.ded").write_text(text)
        result = runner.invoke(app, ["verify", str(tmp_path / "p.ded"), *PEER_ARGS, "--split", "2", "--engine", "spark",
                                     "--json", "--quiet"])
        assert result.exit_code == 0, result.output
        found = json.loads(result.stdout)
        assert found["split"]["engine"] == "spark" and found["holds"] and found["vacuous"] is vacuous
