"""`dedalus2asp maintain` and `check` on DDlog programs: outputs, errors, --check, --json, --out and resuming."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import clingo
from typer.testing import CliRunner

from dedalus2asp.cli import app
from dedalus2asp.lang.facts import load_instance
from dedalus2asp.maintain import read_program

from conftest import EXAMPLES

PSN = EXAMPLES / "psn2010"
RUNNER = CliRunner()


def invoke(*args: str):
    return RUNNER.invoke(app, [str(a) for a in args])


def reachable(*more: str):
    return invoke("maintain", PSN / "reachable.ddlog", "--input", PSN / "reachable.facts",
                  "--updates", PSN / "reachable.updates", *more)


def test_check_shows_the_localization_of_a_ddlog_program():
    result = invoke("check", PSN / "reachable.ddlog")
    assert result.exit_code == 0
    assert "  r2-1  r2_aux(#Z, S) :- link(#S, Z);   % sent to Z\n" in result.stdout


def test_json_view_is_an_input_maintain_reads_and_every_schedule_agrees(tmp_path):
    views = set()
    for schedule in ("fifo", "reversed", "random", "adversarial"):
        result = reachable("--json", "--check", "--schedule", schedule)
        assert result.exit_code == 0, result.output
        document = json.loads(result.stdout)
        assert document["check"] is True and [b["burst"] for b in document["bursts"]] == [1, 2]
        assert document["bursts"][0]["deleted"]["link"] == [["c", "a"]]
        assert set(document["bursts"][1]) >= {"inserted", "deleted", "updates", "messages", "seconds"}
        views.add(json.dumps(document["view"]))
    assert len(views) == 1
    path = tmp_path / "view.json"
    path.write_text(views.pop())
    instance = load_instance(path, read_program(PSN / "reachable.ddlog").columns)
    assert len(instance.facts[clingo.Function("a")]) == 5  # link(a, b|d), reachable(a, b|c|d)


def test_explain_names_the_deleted_link_that_took_a_derivation_away():
    result = reachable("--explain", "reachable(a, d)")
    assert result.exit_code == 0
    assert "reachable(a, d): 2 derivation(s) now\n  uses {link(a, d)}\n" in result.stdout
    assert "burst 1 took away the derivation using {link(a, b), link(b, c), link(c, a)" in result.stdout
    assert result.stdout.rstrip().endswith(": deleted link(c, a)")


def test_eager_discard_fails_the_check_on_reordered_messages(tmp_path):
    updates = tmp_path / "u.txt"
    updates.write_text("+a(0).\n-a(0).\n")
    result = invoke("maintain", PSN / "cycle.ddlog", "--updates", updates, "--algorithm", "eager-discard",
                    "--schedule", "reversed", "--check")
    assert result.exit_code == 1
    assert "check: the view differs from the view recomputed from E ⊎ I ∖ D:\n    extra a(0)" in result.stdout
    assert invoke("maintain", PSN / "cycle.ddlog", "--updates", updates, "--schedule", "reversed", "--check").exit_code == 0


def test_errors_have_their_place_and_exit_2(tmp_path):
    updates = tmp_path / "u.txt"
    updates.write_text("+link(a, e).\n---\n-link(a, e).\n-link(a, e).\n")
    result = invoke("maintain", PSN / "reachable.ddlog", "--input", PSN / "reachable.facts", "--updates", updates)
    assert result.exit_code == 2
    assert f"{updates}:4:1: error: burst 2 deletes 'link(a, e)', which is not in the view at that point" in result.stderr
    program = tmp_path / "p.ded"
    program.write_text("p(#X) :- q(#X), not r(#X);\n")
    result = invoke("maintain", program, "--updates", updates)
    assert result.exit_code == 2 and f"{program}:1:17: error: the negation 'not r(#X)'" in result.stderr
    assert "Traceback" not in result.output


def chain(tmp_path, n: int, bursts: int):
    """A chain of n links, and bursts that take one link away and put it back (no cycle: a cycle gives a
    reachable fact of a long chain very many derivations through it)."""
    program, facts, updates = tmp_path / "r.ded", tmp_path / "r.facts", tmp_path / "r.updates"
    program.write_text((PSN / "reachable.ddlog").read_text())
    facts.write_text("".join(f"link(n{i}, n{i + 1}).\n" for i in range(n)))
    lines = []
    for b in range(bursts):
        i = (7 * b) % n
        lines += [f"-link(n{i}, n{i + 1}).", "---", f"+link(n{i}, n{i + 1}).", "---"]
    updates.write_text("\n".join(lines) + "\n")
    return program, facts, updates


def test_a_killed_run_resumes_from_its_last_completed_burst(tmp_path):
    program, facts, updates = chain(tmp_path, 20, 20)
    arguments = ["maintain", str(program), "--input", str(facts), "--updates", str(updates), "--json", "--quiet"]
    whole = json.loads(invoke(*arguments).stdout)
    command = [sys.executable, "-m", "dedalus2asp", *arguments]
    out = tmp_path / "out"
    process = subprocess.Popen(command + ["--out", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    checkpoint = out / "checkpoint.json"
    deadline = time.time() + 60
    while time.time() < deadline:
        if checkpoint.exists() and json.loads(checkpoint.read_text())["burst"] >= 3:
            break
        time.sleep(0.005)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    killed_at = json.loads(checkpoint.read_text())["burst"]
    assert 3 <= killed_at < 40, "the run was not killed in the middle"
    resumed = subprocess.run(command + ["--out", str(out)], capture_output=True, text=True, check=True)
    document = json.loads(resumed.stdout)
    assert document["view"] == whole["view"]
    assert [b["inserted"] for b in document["bursts"]] == [b["inserted"] for b in whole["bursts"]]
    assert json.loads(checkpoint.read_text())["burst"] == 40


def test_explore_counts_every_execution_and_draws_the_wrong_one(tmp_path):
    result = invoke("maintain", PSN / "hops.ddlog", "--input", PSN / "hops.facts", "--updates", PSN / "hops.updates",
                    "--explore")
    assert result.exit_code == 0
    assert result.stdout.startswith("burst 1: 28,828,800 executions (every order of picks), 510 states")
    picture = tmp_path / "eager.svg"
    result = invoke("maintain", PSN / "cycle.ddlog", "--updates", PSN / "cycle.updates", "--algorithm", "eager-discard",
                    "--explore", "--svg", picture)
    assert result.exit_code == 1
    assert "    pick 1 at node 0: DEL a(0): discarded (nothing to delete)\n" in result.stdout
    assert 'class="pick discarded"' in picture.read_text()


def test_too_many_derivations_stop_with_exit_3(tmp_path, monkeypatch):
    import dedalus2asp.maintain.psn as psn

    monkeypatch.setattr(psn, "MAX_COPIES", 20)
    result = reachable()
    assert result.exit_code == 3
    assert "maintain: stopped while building the view of the base: the view has more than 20 derivations" in result.stderr


def test_svg_draws_the_run_of_the_bursts(tmp_path):
    picture = tmp_path / "run.svg"
    assert reachable("--svg", picture, "--quiet").exit_code == 0
    svg = picture.read_text()
    assert svg.count('class="pick"') == 23 and 'class="message"' in svg and "DEL link(c, a)" in svg
