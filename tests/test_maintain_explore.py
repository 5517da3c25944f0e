"""Every PSN execution (every order of picks) of small programs: one view at the end, the recomputed one
(psn2010 Corollary 22), and every execution ends (Theorem 20); eager discarding of deletions ends wrong
once updates are reordered (psn2010's last section), and the explorer shows that execution."""

from __future__ import annotations

from collections import Counter

from dedalus2asp.maintain import Base, Burst, parse_updates, read_base, read_program, recompute
from dedalus2asp.maintain.explore import TooLarge, explore, run_lines
from dedalus2asp.maintain.picture import spacetime
from dedalus2asp.maintain.view import difference

from conftest import EXAMPLES
from test_maintain_psn import cases

PSN = EXAMPLES / "psn2010"


def agrees(program, base, burst, found) -> bool:
    expected = Base(base)
    expected.apply(burst)
    return len(found.finals) == 1 and not difference(found.views[0].shown(program), recompute(program, expected.facts))


def test_every_order_of_the_two_and_three_hop_example_ends_in_the_recomputed_view():
    program = read_program(PSN / "hops.ddlog")
    base = read_base(PSN / "hops.facts", program)
    burst = parse_updates((PSN / "hops.updates").read_text(), "hops.updates", program)[0]
    found = explore(program, base, burst)
    assert (found.executions, found.states, found.longest, found.stuck) == (28_828_800, 510, 16, 0)
    assert agrees(program, base, burst, found)


def test_the_p_q_cycle_ends_in_every_order():
    program = read_program(PSN / "cycle.ddlog")
    a = parse_updates("+a(0).\n", "u", program)[0].inserted
    for text, base, executions in [("+a(0).\n", Counter(), 1), ("-a(0).\n+a(0).\n+a(0).\n", a, 126_126)]:
        burst = parse_updates(text, "u", program)[0]
        found = explore(program, base, burst)
        assert found.executions == executions and found.stuck == 0 and agrees(program, base, burst, found)


def test_random_small_programs_have_one_view_at_the_end_of_every_execution():
    explored = executions = 0
    for program, base, bursts in cases(40, seed=21):
        burst = Burst(1, bursts[0].updates[:3])
        try:
            found = explore(program, base, burst, limit=3_000)
        except TooLarge:
            continue
        assert found.stuck == 0 and agrees(program, base, burst, found), program.text
        explored += 1
        executions += found.executions
    assert explored >= 30 and executions > 1_000


def test_eager_discard_ends_wrong_when_the_deletion_is_picked_first():
    program = read_program(PSN / "cycle.ddlog")
    burst = parse_updates((PSN / "cycle.updates").read_text(), "cycle.updates", program)[0]
    found = explore(program, Counter(), burst, eager=True)
    wrong = [(v, run) for v, run in found.finals.values() if v.facts]
    assert len(found.finals) == 4 and len(wrong) == 3  # the right view is empty (psn2010 Appendix A)
    view, run = next((v, r) for v, r in wrong if len(v.facts) == 3)
    assert sorted(map(str, view.facts)) == ["a(0)", "p(1)", "q(2)"]
    assert run_lines(run)[0] == "  pick 1 at node 0: DEL a(0): discarded (nothing to delete)"
    svg = spacetime(run, "eager discard")
    assert svg.count('class="pick discarded"') == 1 and svg.count('class="message"') == 4
    assert explore(program, Counter(), burst).finals.keys().__len__() == 1  # PSN proper: the deletion waits
