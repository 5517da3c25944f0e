"""The eventual questions (#29 item 4): `cron --eventual`, `verify --eventual` and the batch's `eventual = true` jobs.

First the contract of the one shared --eventual option (exactly one of --horizon, --eot and --eventual; a
finite-state network; exit 2 with a precise message otherwise) and of the manifest key, which need no solving;
then the answers themselves on the papers' and Molly's examples, each asked of the lasso models at the
completeness threshold K and checked to be exact.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dedalus2asp.batch.manifest import read_manifest
from dedalus2asp.bounds import Mode
from dedalus2asp.cli import app
from dedalus2asp.lang.diagnostics import DiagnosticError

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
ALG4 = [str(EXAMPLES / "jcss2014" / "alg4.ded"), "-i", str(EXAMPLES / "jcss2014" / "alg4.facts")]
RETRY = [str(EXAMPLES / "molly" / "retry_broadcast.ded"), str(EXAMPLES / "molly" / "broadcast_assert.ded")]
runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args))


# ---------------------------------------------------------------------------
# --eventual: one option, its exclusions


@pytest.mark.parametrize("command, program", [("cron", ALG4), ("verify", RETRY)])
@pytest.mark.parametrize("horizon", [["--horizon", "3"], ["--eot", "4"]])
def test_eventual_excludes_a_horizon(command, program, horizon):
    result = run(command, *program, "--delivery", "sync", "--eventual", *horizon)
    assert result.exit_code == 2
    assert "--eventual answers for every horizon at once" in result.output
    assert f"give it without {' '.join(horizon)}" in result.output


@pytest.mark.parametrize("command, program", [("cron", ALG4), ("verify", RETRY)])
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
