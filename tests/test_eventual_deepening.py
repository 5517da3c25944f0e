"""Never weaker than bounded: an eventual answer with no completeness threshold deepens its lassos.

Two programs of our own count with a value the temporal-safety analysis cannot bound (`T + 1` on a cycle, no
comparison; an output relation, so its values are observed and no counter cut applies, `lang.ranges`), so no
threshold is known and the lassos of the default K = 6 steps all "hold":

* STOP counts to 7 and stops; from then on `pre()` holds forever and `post()` never: a lasso of 9 steps shows it,
  bounded `verify --eot 8` finds it too, and no lasso of 6 steps does (its explorer graph closes, so the threshold
  is found after all: finite on its input);
* CLOCK counts forever: `pre()` holds from step 7 on, and no run is a lasso at all, so only the bounded run shows
  it: `verify --eventual` reports the run of `verify --eot 20`, marked as a bounded run, not exact (exit 3), never
  "holds".
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from typer.testing import CliRunner

from dedalus2asp import pipeline
from dedalus2asp.bounds import Bounds, Mode, Network
from dedalus2asp.cli import app
from dedalus2asp.questions import cron_eventual, deepening, eventual, models, verify

COUNT = "count(0) :- start().\npre()@next :- pre().\npost() :- ack().\n"
STOP = COUNT + ("count(T + 1)@next :- count(T), not stop().\ncount(T)@next :- count(T), stop().\n"
                "stop() :- count(7).\nstop()@next :- stop().\npre() :- stop().\n.output count.\n")
CLOCK = COUNT + "count(T + 1)@next :- count(T).\npre() :- count(7).\n.output count.\n"
MATCHED = CLOCK.replace("post() :- ack().", "post() :- pre().")
FACTS = "a { start()@0. }\n"
SYNC = Bounds(0, network=Network("sync"), mode=Mode.EVENTUAL)

runner = CliRunner()


@pytest.fixture
def files(tmp_path):
    def write(program: str, name: str = "p"):
        (tmp_path / f"{name}.ded").write_text(program)
        (tmp_path / f"{name}.facts").write_text(FACTS)
        return str(tmp_path / f"{name}.ded"), str(tmp_path / f"{name}.facts")
    return write


def loaded(paths):
    prog, instance, _ = pipeline.load(*paths)
    return prog, instance


def test_a_lasso_past_the_default_k_is_found(files):
    prog, instance = loaded(files(STOP))
    # its value grows as written, but it stops: the explorer's graph closes on this input, so the program is finite
    # there whatever its syntax says, and the threshold is found (docs/semantics.md, "Finite beyond syntax")
    assert eventual.threshold(prog, instance, SYNC).K == 9 and eventual.threshold(prog, instance, SYNC).exact
    assert verify.verify_at(prog, instance, eventual.lasso_bounds(SYNC, 6)).holds  # the lassos of 6 steps miss it
    assert verify.verify_at(prog, instance, Bounds(7, network=SYNC.network)).holds is False  # verify --eot 8
    found = verify.verify(prog, instance, SYNC)
    assert found.holds is False and not found.bounded_run and found.counterexample.model.is_lasso
    assert found.exact and found.exactness.K == 9


def test_a_counterexample_no_lasso_shows_is_a_bounded_run(files):
    paths = files(CLOCK)
    prog, instance = loaded(paths)
    found = verify.verify(prog, instance, SYNC)
    assert found.holds is False and found.bounded_run and not found.exact
    assert not found.counterexample.model.is_lasso and found.counterexample.model.bounds.horizon == 19
    assert found.exactness.K == deepening.MAX_K  # the lassos were deepened as far as they go, in vain
    text = runner.invoke(app, ["verify", *paths[:1], "-i", paths[1], "--delivery", "sync", "--eventual", "--no-lineage"])
    assert text.exit_code == 3
    assert text.stdout.startswith("counterexample, a bounded run of 20 steps")
    assert "bounded, not exact: no lasso of at most 20 steps shows it unmatched forever" in text.stdout
    as_json = json.loads(runner.invoke(app, ["verify", paths[0], "-i", paths[1], "--delivery", "sync", "--eventual",
                                             "--no-lineage", "--json"]).stdout)
    assert as_json["holds"] is False and as_json["bounded_run"] is True and as_json["exact"] is False


def test_holds_says_the_runs_of_k_steps_hold_too(files):
    prog, instance = loaded(files(MATCHED))
    found = verify.verify(prog, instance, SYNC)
    assert found.holds and not found.exact and found.exactness.K == deepening.MAX_K
    assert "no run of 20 steps breaks it at its last step either (verify --eot 20)" in found.exactness.reason
    assert verify.verify_at(prog, instance, Bounds(19, network=SYNC.network)).holds


def test_deepen_stops_at_a_counterexample_at_max_k_or_at_its_time_limit():
    asked = []

    def ask(k, left):
        asked.append(k)
        return k

    assert deepening.deepen(2, ask, lambda k: k == 5, None) == (5, 5, False) and asked == [3, 4, 5]
    assert deepening.deepen(2, ask, lambda k: False, None, max_k=7) == (7, 7, False)
    assert deepening.deepen(2, ask, lambda k: False, 0.0) == (2, None, True)


def test_deepen_does_not_start_a_k_its_time_limit_would_likely_cut_off(monkeypatch):
    now = [0.0]
    monkeypatch.setattr(deepening.time, "monotonic", lambda: now[0])
    took = {3: 1.0, 4: 1.5, 5: 0.1}

    def ask(k, left):  # K = 4 takes 1.5 s: 2.5 s are left, less than twice that, so K = 5 is not asked
        now[0] += took[k]
        return k

    assert deepening.deepen(2, ask, lambda k: False, 5.0) == (4, 4, True)
    now[0] = 0.0
    assert deepening.deepen(2, ask, lambda k: False, 6.1, max_k=5) == (5, 5, False)  # 3.6 s left after K = 4


def test_cron_names_the_rule_that_counts_forever(files):
    paths = files(CLOCK.replace("pre()@next", ".output pre.\npre()@next"))
    prog, instance = loaded(paths)
    verdict = cron_eventual.analyse_eventual(prog, instance, Bounds(0, network=Network("sync")), timeout=60)
    assert not verdict.satisfiable and verdict.exact is False and verdict.K == deepening.MAX_K
    sentence = verdict.sentence()
    assert "count(T + 1)@next :- count(T)." in sentence and "p.ded:5:" in sentence
    assert "gets stuck" not in sentence
    done = runner.invoke(app, ["cron", paths[0], "-i", paths[1], "--delivery", "sync", "--eventual"])
    assert done.exit_code == 3 and done.stdout.splitlines()[0] == sentence


def test_models_deepen_too(files):
    paths = files(CLOCK)
    prog, instance = loaded(paths)
    found = models.ultimate_outputs(prog, instance, SYNC, ("pre",))
    assert not found.exact and found.steps == deepening.MAX_K and "deepened to K = 20" in found.reason


# a retries m() to b at every step, and b remembers it: finite-state, but a loss window of 30 steps (Molly's rdlog at
# EFF 23 has 22) makes every run pass 30 distinct configurations first, past the 20 steps a search tries by default
RETRY = "m()@async(Y) :- node(Y).\ngot() :- m().\ngot()@next :- got().\npre() :- want().\npost() :- want(), got().\n"
RETRY_FACTS = "a { node(b). }\nb { want(). }\n"
WINDOW = Bounds(0, network=Network("sync", loss_until=30), mode=Mode.EVENTUAL)


def test_a_loss_window_longer_than_the_default_k_is_exact(tmp_path):
    (tmp_path / "r.ded").write_text(RETRY)
    (tmp_path / "r.facts").write_text(RETRY_FACTS)
    prog, instance = loaded((tmp_path / "r.ded", tmp_path / "r.facts"))
    assert models.reach(prog, instance, WINDOW, deepening.MAX_K) == deepening.MAX_K + 30
    assert models.reach(prog, instance, SYNC, deepening.MAX_K) == deepening.MAX_K  # no window: as before
    found = verify.verify(prog, instance, WINDOW)
    assert found.holds and found.exact and found.exactness.K > 30 and not found.bounded_run
    # the runs cut inside the window break it (every retry lost so far): no evidence against the infinite runs
    cut = verify.verify_at(prog, instance, Bounds(19, network=WINDOW.network))
    assert cut.holds is False
    # shown as a deepened answer's bounded run, it says that its last step lies inside the loss window
    shown = replace(cut, bounded_run=True, exactness=eventual.Exactness(20, False, "stopped"))
    assert "its last step, 19, lies within the loss window (losses before step 30)" in shown.describe_eventual()
    assert "loss window" not in replace(shown, bounds=Bounds(39, network=WINDOW.network)).describe_eventual()


# Nemo's CA-2434 in small: n joins through its primary p, which has no data, and once its timer reads 2 through its
# secondary s unless answered; losing that one message leaves n waiting forever. The timer counts up forever as
# written, but it is read only as timerr(2): cut at 3 (lang/ranges), the program is finite-state
NEMO = ("timerr(0) :- do_join().\ntimerr(N + 1)@next :- timerr(N).\njoin(X)@async(Y) :- do_join(), primary(Y), id(X).\n"
        "join(X)@async(Y) :- timerr(2), secondary(Y), id(X), not rsp().\nrsp()@async(X) :- join(X), data().\n"
        "rsp()@next :- rsp().\nwanted()@next :- wanted().\npre() :- wanted().\npost() :- wanted(), rsp().\n")
NEMO_FACTS = "n { do_join()@0. primary(p). secondary(s). wanted()@0. id(n). }\np { }\ns { data(). }\n"


@pytest.mark.parametrize("loss_until, crashes", [(4, 0), (4, 1), (25, 0)])
def test_a_nemo_timer_is_exact_with_its_bounded_verdict(tmp_path, loss_until, crashes):
    (tmp_path / "n.ded").write_text(NEMO)
    (tmp_path / "n.facts").write_text(NEMO_FACTS)
    prog, instance = loaded((tmp_path / "n.ded", tmp_path / "n.facts"))
    network = Network("sync", loss_until=loss_until, crashes=crashes)
    found = verify.verify(prog, instance, Bounds(0, network=network, mode=Mode.EVENTUAL))
    assert found.exactness.exact and found.exactness.K > min(loss_until, 5)  # the threshold, past the window
    assert found.holds is False and not found.bounded_run
    assert found.counterexample.model.is_lasso and found.counterexample.faults == 1  # its post row never comes
    for eot in (6, 8, 10):  # bounded verify past the secondary's answer: the same bug, the same fewest faults
        bounded = verify.verify_at(prog, instance, Bounds(eot - 1, network=network))
        assert bounded.holds is False and bounded.counterexample.faults == 1
