"""The eventual questions (#29 item 4): `cron --eventual`, `verify --eventual` and the batch's `eventual = true` jobs.

First the contract of the one shared --eventual option (exactly one of --horizon, --eot and --eventual; a
finite-state network; exit 2 with a precise message otherwise) and of the manifest key, which need no solving;
then the answers themselves on the papers' and Molly's examples, each asked of the lasso models at the
completeness threshold K and checked to be exact.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from dedalus2asp import pipeline
from dedalus2asp.asp.transform import transform
from dedalus2asp.batch import execute, invariants, report
from dedalus2asp.batch.manifest import read_manifest
from dedalus2asp.bounds import Bounds, Mode, Network, Semantics
from dedalus2asp.cli import app
from dedalus2asp.inspect import enumerate_models, explain
from dedalus2asp.lang.diagnostics import DiagnosticError
from dedalus2asp.questions import cron, cron_eventual, eventual, models, verify
from dedalus2asp.questions.cron import model_output
from dedalus2asp.questions.eventual import lasso_bounds
from dedalus2asp.runs import eventual_verify

from conftest import HELD, INVARIANTS, VACUOUS

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
ALG4 = [str(EXAMPLES / "jcss2014" / "alg4.ded"), "-i", str(EXAMPLES / "jcss2014" / "alg4.facts")]
RETRY = [str(EXAMPLES / "molly" / "retry_broadcast.ded"), str(EXAMPLES / "molly" / "broadcast_assert.ded")]
runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args))


# ---------------------------------------------------------------------------
# --eventual: one option, its exclusions


EVERY = [("cron", ALG4), ("verify", RETRY), ("models", ALG4), ("count", ALG4)]  # the commands with the one --eventual


@pytest.mark.parametrize("command, program", EVERY)
@pytest.mark.parametrize("horizon", [["--horizon", "3"], ["--eot", "4"]])
def test_eventual_excludes_a_horizon(command, program, horizon):
    result = run(command, *program, "--delivery", "sync", "--eventual", *horizon)
    assert result.exit_code == 2
    assert "--eventual answers for every horizon at once" in result.output
    assert f"give it without {' '.join(horizon)}" in result.output


@pytest.mark.parametrize("command, program", EVERY)
def test_a_horizon_or_eventual_is_required(command, program):
    result = run(command, *program)
    assert result.exit_code == 2
    assert "--horizon T" in result.output and "--eventual" in result.output


@pytest.mark.parametrize("command, program", [("cron", ALG4), ("verify", RETRY)])
def test_eventual_needs_a_finite_state_network(command, program):
    result = run(command, *program, "--eventual")  # async, no delay bound
    assert result.exit_code == 2
    assert "--eventual needs a finite-state network" in result.output
    assert "--max-delay D" in result.output


@pytest.mark.parametrize("extra, named", [(["--split", "2"], "--split"), (["--search-horizon"], "--search-horizon")])
def test_verify_eventual_refuses_horizon_options(extra, named):
    result = run("verify", *RETRY, "--delivery", "sync", "--eventual", *extra)
    assert result.exit_code == 2
    assert f"give it without {named}" in result.output


def test_cron_eventual_refuses_search_horizon():
    result = run("cron", *ALG4, "--max-delay", "1", "--eventual", "--search-horizon")
    assert result.exit_code == 2 and "give it without --search-horizon" in result.output


def test_count_keeps_its_short_horizon():
    assert run("count", *ALG4, "-T", "1", "--json").exit_code == 0


@pytest.mark.parametrize("command", ["cron", "verify"])
def test_help_names_eventual(command):
    result = run(command, "--help")
    assert result.exit_code == 0
    assert "--eventual" in result.output


# ---------------------------------------------------------------------------
# the manifest's eventual key


def manifest(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "batch.toml"
    path.write_text(f'root = "{ROOT}"\n' + body)
    return path


ALG4_JOB = '[[job]]\nprogram = "examples/jcss2014/alg4.ded"\ninput = "examples/jcss2014/alg4.facts"\n'


def test_manifest_eventual_jobs(tmp_path):
    jobs = read_manifest(manifest(tmp_path, ALG4_JOB + 'task = "cron"\nmax_delay = 1\neventual = true\n'
                                  + ALG4_JOB + 'task = "cron"\nmax_delay = 1\nhorizon = 3\n'))
    eventual, bounded = jobs
    assert eventual.bounds.mode is Mode.EVENTUAL and eventual.parameters["horizon"] is None
    assert bounded.bounds.mode is Mode.BOUNDED and bounded.parameters["eventual"] is False
    assert eventual.id != bounded.id


@pytest.mark.parametrize("body, message", [
    ('task = "cron"\nmax_delay = 1\neventual = true\nhorizon = 3\n', "answers for every horizon at once: give it without horizon"),
    ('task = "cron"\nmax_delay = 1\neventual = true\neot = 3\n', "give it without eot"),
    ('task = "cron"\neventual = true\n', "eventual = true needs a finite-state network"),
    ('task = "count"\nmax_delay = 1\neventual = true\n', "eventual does not apply to the task 'count'"),
    ('task = "cron"\nmax_delay = 1\neventual = "yes"\n', "eventual must be true or false, not the string 'yes'"),
])
def test_manifest_eventual_errors(tmp_path, body, message):
    with pytest.raises(DiagnosticError) as error:
        read_manifest(manifest(tmp_path, ALG4_JOB + body))
    assert any(message in d.message for d in error.value.diagnostics), [d.message for d in error.value.diagnostics]


# ---------------------------------------------------------------------------
# verify --eventual: Molly's protocols, no EOT to guess

SIMPLE = [str(EXAMPLES / "molly" / "simple_broadcast.ded"), str(EXAMPLES / "molly" / "broadcast_assert.ded")]
SYNC = ["--delivery", "sync", "--eff", "3"]


def answer(*args: str, code: int | None) -> dict:
    """The JSON answer of a command, which must end with exit status `code` (None: 0 or 1, a verdict either way)."""
    result = run(*args, "--json")
    assert result.exit_code in ((0, 1) if code is None else (code,)), result.output
    return json.loads(result.stdout)


def test_retry_broadcast_bounded_counterexample_is_a_cut_short_run():
    """The issue's case: at EOT 3 the retry has not happened yet (a counterexample), at EOT 4 it has; the eventual
    verdict says it holds, exactly, with the threshold K, and no EOT."""
    assert answer("verify", *RETRY, *SYNC, "--eot", "3", code=1)["holds"] is False
    assert answer("verify", *RETRY, *SYNC, "--eot", "4", code=0)["holds"] is True
    found = answer("verify", *RETRY, *SYNC, "--eventual", code=0)
    assert found["holds"] is True and found["vacuous"] is False
    assert found["exact"] is True and found["threshold_exact"] is True and found["reason"] is None
    assert found["mode"] == "eventual" and found["bound"]["horizon"] is None and found["K"] >= 2
    text = run("verify", *RETRY, *SYNC, "--eventual").stdout
    assert text.startswith("holds: every pre fact is ultimately matched by its post fact")
    assert f"exact: lassos of up to K = {found['K']} steps cover every infinite run" in text


def test_simple_broadcast_lasso_counterexample_with_lineage():
    """One omission breaks the one-shot broadcast forever: a lasso whose loop has pre(x, "hello") and never
    post(x, "hello"), with the fewest faults (one) and the lineage of the missing post fact."""
    found = answer("verify", *SIMPLE, *SYNC, "--eventual", code=1)
    assert found["holds"] is False and found["exact"] is True
    c = found["counterexample"]
    assert c["faults"] == 1 and c["fewest_faults"] is True and len(c["lost"]) == 1
    assert 0 <= c["loop_start"] and c["loop_start"] + c["period"] == found["K"]
    (missing,) = c["missing"]
    assert missing["relation"] == "pre" and missing["step"] >= c["loop_start"]
    lost_to = c["lost"][0]["to"]
    assert missing["args"][0] == lost_to  # the member whose copy was lost never logs
    (why,) = c["lineage"]
    text = run("verify", *SIMPLE, *SYNC, "--eventual").stdout
    assert "counterexample, an infinite run" in text and "at every repetition of the loop" in text
    assert f"(loop start {c['loop_start']}, period {c['period']})" in text
    assert "it holds in a lasso without faults" in text and "LOST in the counterexample" in text


def test_eventual_vacuous_holds(tmp_path):
    """pre at a needs a ping at a, and nobody pings a: no run has a pre row in its loop."""
    program = tmp_path / "vacuous.ded"
    program.write_text(VACUOUS)
    found = answer("verify", str(program), "--delivery", "sync", "--eventual", code=0)
    assert found["holds"] is True and found["vacuous"] is True and found["exact"] is True
    assert run("verify", str(program), "--delivery", "sync", "--eventual").stdout.startswith(
        "holds vacuously: in every infinite run the pre facts stop for good after some step")


def test_eventual_held_is_not_vacuous(tmp_path):
    program = tmp_path / "held.ded"
    program.write_text(HELD)
    found = answer("verify", str(program), "--delivery", "sync", "--eventual", code=0)
    assert found["holds"] is True and found["vacuous"] is False


def test_verify_eventual_out(tmp_path):
    """--out DIR writes what bounded verify writes; each lasso run says where its loop starts."""
    out = tmp_path / "runs"
    result = run("verify", *SIMPLE, *SYNC, "--eventual", "--out", str(out))
    assert result.exit_code == 1, result.output
    document = json.loads((out / "runs.json").read_text())
    assert document["exact"] is True and document["K"] >= 2 and document["bound"]["mode"] == "eventual"
    statuses = [r["status"] for r in document["runs"]]
    assert statuses == ["success", "failure"]
    for r in document["runs"]:
        assert r["loop_start"] + r["period"] == r["failureSpec"]["eot"] <= document["K"]  # a run's own steps
    jsonschema.validate(document, json.loads((ROOT / "docs" / "runs-schema.json").read_text()))
    page = (out / "index.html").read_text()
    assert "every horizon: lasso runs of at most K =" in page and "repeat forever" in page
    assert (out / "run-1.svg").is_file()


# ---------------------------------------------------------------------------
# cron --eventual: jcss2014's questions on ultimate outputs

FIG4 = [str(EXAMPLES / "tplp2016" / "fig4_noncausal.ded"), "-i", str(EXAMPLES / "tplp2016" / "fig4.facts")]
ALG1 = [str(EXAMPLES / "jcss2014" / "alg1.ded"), "-i", str(EXAMPLES / "jcss2014" / "alg1.facts")]
ALG2 = [str(EXAMPLES / "jcss2014" / "alg2.ded"), "-i", str(EXAMPLES / "jcss2014" / "alg2_nonempty.facts")]


def test_alg4_not_consistent_under_delay_2():
    found = answer("cron", *ALG4, "--max-delay", "2", "--eventual", code=1)
    assert found["consistent"] is False and found["exact"] is True
    assert found["consistency"]["exact"] is True
    assert sorted(tuple(w["output"]) for w in found["witnesses"]) == [(), ("T()",)]
    # the shortest witnesses: A() and B() apart forever needs a loop of two steps after step 0 (3 steps); the
    # explorer's graph decided (no threshold was searched); the witnesses are infinite runs, so the text says
    # "whatever K" and no threshold words
    assert [w["loop_start"] + w["period"] for w in found["witnesses"]] == [3, 3]
    line = next(l for l in run("cron", *ALG4, "--max-delay", "2", "--eventual").stdout.splitlines() if "whatever K" in l)
    assert "threshold" not in line and "exact" in line


def test_alg4_no_shorter_witness_than_three_steps():
    """The shortest-witness search starts at the fewest steps a lasso can have: 2 steps show no inconsistency."""
    prog, instance, _ = pipeline.load(*[Path(p) for p in (ALG4[0], ALG4[2])], "auto")
    two = cron.analyse(prog, instance, eventual.lasso_bounds(Bounds(0, network=Network(max_delay=2)), 2))
    assert two.consistent is not False


def test_alg4_consistent_under_delay_1():
    """Under delay ≤ 1 A() and B() meet at step 1 in every causal run: "consistent" is the exact answer."""
    found = answer("cron", *ALG4, "--max-delay", "1", "--eventual", code=1)  # exit 1: not tolerant (below)
    assert found["consistent"] is True and found["consistency"]["exact"] is True
    assert found["certain"] == found["possible"] == ["T()"]
    assert run("cron", *ALG4, "--max-delay", "1", "--eventual").stdout.startswith("consistent")


ALG3 = [str(EXAMPLES / "jcss2014" / "alg3.ded"), "-i", str(EXAMPLES / "jcss2014" / "alg3.facts")]


@pytest.mark.parametrize("program", [FIG4, ALG3], ids=["fig4", "alg3"])
def test_fig4_and_alg3_not_tolerant(program):
    found = answer("cron", *program, "--max-delay", "1", "--eventual", code=1)
    assert found["consistent"] is True and found["tolerant"] is False and found["exact"] is True
    assert found["counterexample"]["lost"] == ["T()"] and found["counterexample"]["period"] >= 1
    # into the past on the unrolled run (A <= s): not a loop message that arrives in the loop's next turn
    backward = found["counterexample"]["noncausal_messages"]
    assert backward and all(m["unrolled"] <= m["sent"] for m in backward)
    assert all(m["unrolled"] > m["sent"] for m in found["counterexample"]["messages"] if m["unrolled"] is not None
               and (m["from"], m["sent"], m["relation"]) not in {(b["from"], b["sent"], b["relation"]) for b in backward})


@pytest.mark.parametrize("program", [ALG1, ALG2], ids=["alg1", "alg2"])
def test_positive_algorithms_tolerant(program):
    found = answer("cron", *program, "--max-delay", "1", "--eventual", code=0)
    assert found["consistent"] is True and found["tolerant"] is True
    assert found["consistency"]["exact"] is True
    # the tolerance is exact when the choice lassos have a threshold; otherwise it says why and K
    tolerance = found["tolerance"]
    assert tolerance["exact"] is True or (tolerance["reason"] and found["exact"] is False and found["reason"])


BLINK = ".output on.\non()@next :- not on(), id(_).\nid(x)@next :- id(x).\n"


def test_blinking_light_has_no_ultimate_output(tmp_path):
    """The issue's blinking light: on() is certain at horizon 3 and absent at 4; ultimately it is no output at all."""
    program, facts = tmp_path / "blink.ded", tmp_path / "blink.facts"
    program.write_text(BLINK)
    facts.write_text("x { id(x). }\n")
    bounded = answer("cron", str(program), "-i", str(facts), "--delivery", "sync", "--horizon", "3", code=0)
    assert bounded["certain"] == ["on()"]
    found = answer("cron", str(program), "-i", str(facts), "--delivery", "sync", "--eventual", code=0)
    assert found["certain"] == found["possible"] == [] and found["exact"] is True and found["tolerant"] is True
    # a lasso whose last step has on() holds it ultimately only if every loop step does: model_output reads the loop
    prog, instance, _ = pipeline.load(program, facts, "auto")
    compiled = transform(prog, instance, lasso_bounds(Bounds(0, network=Network("sync")), 4))
    lassos = enumerate_models(compiled, 0).models
    last = [m for m in lassos if "on()" in m.outputs(("on",))]
    assert last and all(model_output(m, ("on",)) == frozenset() for m in last)


# ---------------------------------------------------------------------------
# verify --eventual against the explorer's eventual verdict (runs.eventual_verify: the configuration graph)


@pytest.mark.parametrize("eff, crashes", [(3, 0), (3, 1), (0, 1)])
@pytest.mark.parametrize("protocol", ["simple_broadcast", "retry_broadcast", "ack_broadcast", "classic_broadcast",
                                      "two_phase_commit", "two_phase_commit_timeout"])
def test_verify_eventual_agrees_with_the_explorer(protocol, eff, crashes):
    """The solver's lasso verdict and the explorer's graph verdict: the same holds/vacuous, the same fewest faults,
    the same completeness threshold K (Molly's protocols under sync, Molly's fault model)."""
    files = [EXAMPLES / "molly" / f"{protocol}.ded", EXAMPLES / "molly" / f"{INVARIANTS[protocol]}.ded"]
    program, instance, _ = pipeline.load(files, None, "auto")
    bounds = Bounds(0, network=Network("sync", None, eff - 1 if eff else None, crashes), mode=Mode.EVENTUAL)
    solver, explorer = verify.verify(program, instance, bounds), eventual_verify.verify(program, instance, bounds)
    assert solver.exact is True and explorer.holds is not None
    assert (solver.holds, solver.vacuous) == (explorer.holds, explorer.vacuous)
    assert (solver.counterexample.faults if solver.counterexample else None) == explorer.faults
    if explorer.threshold_exact:
        assert solver.exactness.K == explorer.threshold


# ---------------------------------------------------------------------------
# the batch's eventual jobs: each records exact and K; a bad one its error, the others finish


def test_eventual_jobs_record_exact_and_k(tmp_path):
    text = (
        '[[job]]\nprogram = ["examples/molly/retry_broadcast.ded", "examples/molly/broadcast_assert.ded"]\n'
        'task = "verify"\ndelivery = "sync"\neff = 3\neventual = true\n'
        '[[job]]\nprogram = ["examples/molly/simple_broadcast.ded", "examples/molly/broadcast_assert.ded"]\n'
        'task = "verify"\ndelivery = "sync"\neff = 3\neventual = true\npost = "nothing"\n'  # a bad invariant
        + ALG4_JOB + 'task = "cron"\nmax_delay = 2\neventual = true\n'
    )
    jobs = read_manifest(manifest(tmp_path, text))
    rows = {j.id: execute.execute_job(j)[0] for j in jobs}
    retry, bad, alg4 = (rows[j.id] for j in jobs)
    assert retry["status"] == "ok" and retry["holds"] is True and retry["horizon"] is None
    found = json.loads(retry["verdicts"])
    assert found["eventual"] is True and found["exact"] is True and found["K"] >= 2
    assert invariants.words(retry) == f"holds eventually, exact (K = {found['K']})"
    assert bad["status"] == "error" and "no relation 'nothing'" in bad["error"] and "give the key post" in bad["error"]
    cron = json.loads(alg4["verdicts"])
    assert alg4["status"] == "ok" and cron["consistent"] is False and cron["exact"] is True and cron["K"] >= 2
    assert report.verdict(alg4) == f"not consistent, not tolerant eventually, exact (K = {cron['K']})"
    summary = invariants.summary(jobs, rows)
    assert summary["jobs"] == 2 and summary["hold"] == 1 and summary["unknown"] == 1
    assert [r.get("K") for r in summary["results"]] == [found["K"], None]


@pytest.mark.parametrize("question", [
    ["verify", *SIMPLE, *SYNC, "--eventual", "--no-lineage"],
    ["verify", *RETRY, *SYNC, "--eventual"],
    ["cron", *FIG4, "--max-delay", "1", "--eventual"],
], ids=["simple", "retry", "fig4"])
def test_both_encodings_give_the_same_eventual_verdict(question):
    fast, paper = (answer(*question, "--encoding", e, code=None) for e in ("fast", "paper"))
    for key in ("holds", "vacuous", "consistent", "tolerant", "exact", "K"):
        assert fast.get(key) == paper.get(key), key
    if fast.get("counterexample") and "faults" in fast["counterexample"]:
        assert fast["counterexample"]["faults"] == paper["counterexample"]["faults"]


def test_a_derivation_round_the_loop_is_said_not_drawn(monkeypatch):
    """On a lasso, a message of the loop may arrive in the loop's next turn at a step at or before its send; a
    derivation through it can lead back to its own fact. The lineage says so instead of failing (forced here)."""
    def cyclic(self, node, step, fact):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(explain.Lineage, "derive", cyclic)
    found = answer("verify", *SIMPLE, *SYNC, "--eventual", code=1)
    (why,) = found["counterexample"]["lineage"]
    assert why["round_the_loop"] is True and why["root"] is None and why["run"] is not None
    assert "its derivation goes round the lasso's loop" in run("verify", *SIMPLE, *SYNC, "--eventual").stdout


def test_no_infinite_run(tmp_path):
    """A node that sends itself a message under delay ≤ 0 has no infinite causal run: said, exit 1."""
    program, facts = tmp_path / "stuck.ded", tmp_path / "stuck.facts"
    program.write_text("A()@async(X) :- Id(X).\nT() :- A().\n.output T.\n")
    facts.write_text("x { Id(x). }\n")
    found = answer("cron", str(program), "-i", str(facts), "--max-delay", "0", "--eventual", code=1)
    assert found["satisfiable"] is False and found["exact"] is True
    result = run("cron", str(program), "-i", str(facts), "--max-delay", "0", "--eventual")
    assert result.stdout.startswith("no infinite causal run with delay ≤ 0: every run gets stuck")


# ---------------------------------------------------------------------------
# Exactness from the per-node ultimate sets; the shortest witnesses

CLASSIC = [EXAMPLES / "molly" / "classic_broadcast.ded", EXAMPLES / "molly" / "broadcast_assert.ded"]


def test_verify_eventual_counterexample_is_the_shortest_with_the_fewest_faults():
    """Classic broadcast, losses before step 1 and one crash: the threshold is K = 6, the fewest faults found there;
    the counterexample shown is a lasso of 3 steps with as few faults, and no lasso of 2 steps has one."""
    program, instance, _ = pipeline.load(CLASSIC, None, "auto")
    bounds = Bounds(0, network=Network("sync", None, 1, 1), mode=Mode.EVENTUAL)
    found = verify.verify(program, instance, bounds)
    at_k = verify.verify_at(program, instance, eventual.lasso_bounds(bounds, found.exactness.K))
    c = found.counterexample
    assert found.exact and c.fewest and c.faults == at_k.counterexample.faults
    assert c.model.loop_start + c.model.period == 3 < found.exactness.K
    two = verify.verify_at(program, instance, eventual.lasso_bounds(bounds, 2)).counterexample
    assert two is None or two.faults > c.faults


def test_per_node_ultimate_sets_closed_under_intersection():
    """f at node a only on one loop, at node b only on another: both output {f}; a run alternating between them
    holds f at neither node, output {}, which the closure of the per-node sets shows and the outputs do not."""
    at_a, at_b = frozenset({("a", "f", ())}), frozenset({("b", "f", ())})
    shown = lambda items: tuple(sorted({f"{r}()" for _, r, _ in items}))  # noqa: E731 (united over nodes)
    assert models.alternations({at_a, at_b}, shown) == {()}
    assert models.alternations({at_a, at_a | at_b}, shown) == set()  # a ⊆ a ∪ b: nothing new
    assert models.alternations({at_a}, shown) == set()


def test_common_cases_stay_exact_decided_by_the_solver(monkeypatch):
    """Alg. 4 under delay ≤ 1: one ultimate output, the lassos' per-node sets closed under intersection add none,
    so the solver decides, exactly, in cron --eventual (consistency) and count --eventual. cron --eventual asks the
    explorer's graph first, which decides it alone; without the graph (a limit of 0) the solver does."""
    found = answer("cron", *ALG4, "--max-delay", "1", "--eventual", code=1)
    assert found["consistency"]["exact"] is True and found["consistency"]["decided_by"] == "graph"
    monkeypatch.setattr(models, "GRAPH_LIMIT", 0)
    found = answer("cron", *ALG4, "--max-delay", "1", "--eventual", code=1)
    assert found["consistency"]["exact"] is True and found["consistency"]["decided_by"] == "solver"
    counted = answer("count", *ALG4, "--max-delay", "1", "--eventual", code=None)
    assert counted["exact"] is True and counted["decided_by"] == "solver"


def test_explorer_decides_in_the_solver_s_words():
    """`models.explorer_decides` (what settles an alternation the per-node sets leave open) gives the explorer's
    exact outputs written as the solver's lassos write them, so the outputs only an alternating run holds are told
    apart from those a lasso has; under the choice semantics, which the explorer does not build, it gives none."""
    prog, instance, _ = pipeline.load(*[Path(p) for p in (ALG4[0], ALG4[2])], "auto")
    bounds = Bounds(0, network=Network(max_delay=2))
    solver = models.ultimate_outputs(prog, instance, bounds, ("T",))
    explored = models.explorer_decides(prog, instance, bounds, ("T",))
    assert explored is not None and set(explored.ultimate_outputs) == set(solver.outputs) == {(), ("T()",)}
    assert models.explorer_decides(prog, instance, Bounds(0, Semantics.CHOICE, network=Network(max_delay=2)), ("T",)) is None


def test_cron_consistent_lassos_but_the_explorer_finds_more(monkeypatch):
    """When the explorer (asked because the per-node sets left an output open) finds two ultimate outputs but no
    lasso of its witnesses' length shows two, "consistent" is not exact and the reason says so. The explorer's
    answer is stood in for (Alg. 4 under delay ≤ 1 has one ultimate output): the branch is what is tested."""
    real = models.ultimate_outputs

    def open_alternation(*args, **kwargs):
        found = real(*args, **kwargs)
        if not found.bounds.semantics.causal:
            return found
        return models.Ultimate(((), ("T()",)), found.lassos, found.steps, True, found.bounds, "", True,
                               found.relations, "explorer", 3)

    monkeypatch.setattr(models, "ultimate_outputs", open_alternation)
    monkeypatch.setattr(models, "GRAPH_LIMIT", 0)  # the solver's path, not the graph's
    prog, instance, _ = pipeline.load(*[Path(p) for p in (ALG4[0], ALG4[2])], "auto")
    verdict = cron_eventual.analyse_eventual(prog, instance, Bounds(0, network=Network(max_delay=1)))
    assert verdict.consistent is True and verdict.consistency_exact is False
    assert "the explorer finds ultimate outputs {}, {T()}" in verdict.reason
