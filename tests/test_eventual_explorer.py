"""The eventual explorer (`explore --eventual`): the configuration graph and the ultimate outputs of the infinite runs.

Three kinds of checks:

* the graph against the bounded explorer (`operational.explore`, which shares only the rule
  evaluator and `System` with it): the traces of the paths of T+1 transitions from the start are
  exactly the bounded run prefixes' traces under sync with losses and crashes (every crash model)
  and under a delay bound on one node; with two nodes or more under a delay bound the rounds are a
  restriction (a message never reaches a node at a step ≤ its send step), checked as inclusion
  and, exactly, against a brute-force round-by-round simulation (`round_traces`) that picks each
  message's arrival round instead of keeping slacks;
* the ultimate outputs against their definition, by brute force over every strongly connected set
  of transitions of small graphs, and against the bounded answers at a large horizon;
* the papers' and Molly's examples, with the answers issue #29 asks for, and the command line.
"""

from __future__ import annotations

import json
from itertools import combinations, product
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from dedalus2asp import pipeline
from dedalus2asp.bounds import Bounds, Mode, Network
from dedalus2asp.cli import app
from dedalus2asp.lang.analysis import restrict
from dedalus2asp.lang.ast import show_fact
from dedalus2asp.lang.facts import parse_facts
from dedalus2asp.runs import eventual, operational
from dedalus2asp.lang.diagnostics import DiagnosticError
from dedalus2asp.runs.configurations import ConfigurationLimit, Graph
from dedalus2asp.runs.transitions import System

from conftest import EXAMPLES
from test_theorem4 import inputs, rules, well_formed

BLINK = ".output on.\non()@next :- not on(), id(_).\n"
ONE = "a { id(a). }\n"
# a broadcasts msg() to b and c at every step (start() is an input fact, so it holds at every step)
RETRY = ".output got.\nmsg()@async(Y) :- start(), node(Y).\ngot(X) :- msg(), id(X).\ngot(X)@next :- got(X).\n"
# the same, sent once, at step 0
ONCE = RETRY.replace("start(), node(Y)", "start(), not sent(), node(Y)") + "sent()@next :- start().\nsent()@next :- sent().\n"
THREE = "a { id(a). start(). node(b). node(c). }\nb { id(b). }\nc { id(c). }\n"
# a node that sends itself A() at every step; p() in a step where one arrives, q() in a step where none does
CHOICE = ".output p, q.\nA()@async(X) :- id(X).\np() :- A().\nq() :- id(_), not A().\n"
ALG4 = (EXAMPLES / "jcss2014/alg4.ded", EXAMPLES / "jcss2014/alg4.facts")
FIG4 = (EXAMPLES / "tplp2016/fig4_noncausal.ded", EXAMPLES / "tplp2016/fig4.facts")
RETRY_MOLLY = EXAMPLES / "molly/retry_broadcast.ded"


@pytest.fixture
def files(tmp_path):
    def write(program: str, facts: str) -> tuple[Path, Path]:
        (tmp_path / "p.ded").write_text(program, encoding="utf-8")
        (tmp_path / "p.facts").write_text(facts, encoding="utf-8")
        return tmp_path / "p.ded", tmp_path / "p.facts"
    return write


def loaded(program: Path, facts: Path | None):
    prog, instance, _ = pipeline.load(program, facts, "auto")
    return prog, instance


def answer(program: Path, facts: Path | None, outputs=None, limit: int = 100_000, **network) -> eventual.Eventual:
    prog, instance = loaded(program, facts)
    return eventual.explore(prog, instance, Bounds(0, network=Network(**network), mode=Mode.EVENTUAL), limit, outputs)


def graph_of(program: Path, facts: Path | None, **network) -> Graph:
    prog, instance = loaded(program, facts)
    network = Network(**network)
    graph = Graph(prog, restrict(network.populate(instance), prog), network)
    graph.build(100_000)
    return graph


# ---------------------------------------------------------------------------
# The graph against the bounded explorer


def path_traces(graph: Graph, horizon: int, crash_last: bool = True) -> set[frozenset]:
    """The traces of every path of horizon+1 transitions (rounds) from the start; `crash_last` False leaves out the
    paths with a crash in the last round (Molly's crash candidates crash at steps 0..T-1 in a bounded run)."""
    names, traces = graph.names, set()
    stack = [(0, 0, frozenset())]
    while stack:
        v, step, trace = stack.pop()
        if step == horizon + 1:
            traces.add(trace)
            continue
        for w, label in graph.edges[v]:
            if not crash_last and step == horizon and graph.configurations[w].crashed != graph.configurations[v].crashed:
                continue
            facts = {(names[i], step, *graph.system.fact(f)) for i, d in enumerate(graph.labels[label]) if d for f in d}
            stack.append((w, step + 1, trace | facts))
    return traces


def bounded_traces(program: Path, facts: Path | None, horizon: int, **network) -> set[frozenset]:
    prog, instance = loaded(program, facts)
    found = operational.explore(prog, restrict(instance, prog), Bounds(horizon, network=Network(**network)), mode="traces")
    return {frozenset(t for t in trace if t[0] in instance.network or t[0] in network.get("nodes", ())) for trace in found.traces}


# a and b relay a token back and forth, each logging what it got; a starts it at step 0
RELAY = (".output got.\ntok()@async(Y) :- start(), peer(Y).\ntok()@async(Y) :- tok(), peer(Y).\n"
         "got(X) :- tok(), id(X).\n")
PAIR = "a { id(a). start(). peer(b). }\nb { id(b). peer(a). }\n"
CASES = [
    ("blink", BLINK, ONE, 3, {"delivery": "sync"}),
    ("retry-losses", RETRY, THREE, 2, {"delivery": "sync", "loss_until": 2}),
    ("retry-losses-message", RETRY, THREE, 2, {"delivery": "sync", "loss_until": 2, "omission": "message"}),
    ("once-crash", ONCE, THREE, 2, {"delivery": "sync", "crashes": 1, "crash_times": "any"}),
    ("once-losses-crash", ONCE, THREE, 2, {"delivery": "sync", "loss_until": 1, "crashes": 1, "crash_times": "any"}),
    ("once-crash-after-send", ONCE, THREE, 2, {"delivery": "sync", "crashes": 1}),
    ("relay-crash-after-send", RELAY, PAIR, 3, {"delivery": "sync", "crashes": 1}),
    ("relay-fail-stop", RELAY, PAIR, 3, {"delivery": "sync", "crashes": 1, "crash_times": "any", "crash_model": "fail-stop"}),
    ("relay-fail-stop-after-send", RELAY, PAIR, 3, {"delivery": "sync", "crashes": 1, "crash_model": "fail-stop"}),
    ("choice-D2", CHOICE, "z { id(z). }\n", 3, {"max_delay": 2}),
]


@pytest.mark.parametrize("name,program,facts,horizon,network", CASES, ids=[c[0] for c in CASES])
def test_paths_are_the_bounded_run_prefixes(files, name, program, facts, horizon, network):
    """Under sync rounds lose nothing: the paths are exactly the bounded run prefixes, with every fault model (Molly's
    crash candidates crash at steps 0..T-1 in a bounded run: a fail-stop crash at step T is left out)."""
    paths = files(program, facts)
    graph = graph_of(*paths, **network)
    assert path_traces(graph, horizon, crash_last=network.get("crash_times") == "any") == bounded_traces(*paths, horizon, **network)


def round_traces(program: Path, facts: Path | None, horizon: int, **network) -> set[frozenset]:
    """The traces of every round-by-round run of horizon+1 rounds, by brute force: each message that travels picks its
    arrival round s+1..s+D when it is sent; each round picks the crashes (Molly's candidates: a node that has sent to
    another node, in this round too under the clock model) and the losses (`System.outcomes`)."""
    prog, instance = loaded(program, facts)
    network = Network(**network)
    system = System(prog, restrict(network.populate(instance), prog), network)
    names, bound, n = system.names, network.delay_bound, len(system.names)
    found = set()

    def run(t, states, pending, crashed, sent, trace):
        if t == horizon + 1:
            found.add(trace)
            return
        alive = [i for i in range(n) if i not in crashed]
        for k in range(min(network.crashes - len(crashed), len(alive)) + 1):
            for crashes in combinations(alive, k):
                down = crashed | set(crashes)
                steps = []
                for i in range(n):
                    arrived = frozenset(f for j, at, f in pending if j == i and at == t)
                    silent = network.fail_stop and i in down
                    steps.append(system.silent(i) if silent else system.step(i, states[i].union(arrived), t))
                sends = [any(j != i for j, _ in step.sent) for i, step in enumerate(steps)]
                if network.after_send and any(
                        i not in sent and not (sends[i] and not network.fail_stop) for i in crashes):
                    continue
                now_sent = sent | {i for i in range(n) if sends[i]}
                trace_t = trace | {(names[i], t, *system.fact(f)) for i, step in enumerate(steps) for f in step.deduced}
                later = [m for m in pending if m[1] > t]
                for chosen in product(*(list(system.outcomes(i, t, steps[i].sent, i in down)) for i in range(n))):
                    messages = [(j, f) for travelled in chosen for j, fs in travelled for f in fs]
                    for arrivals in product(range(t + 1, t + bound + 1), repeat=len(messages)):
                        new = later + [(j, at, f) for (j, f), at in zip(messages, arrivals)]
                        run(t + 1, [step.state for step in steps], new, down, now_sent, trace_t)

    run(0, list(system.inputs), [], frozenset(), frozenset(), frozenset())
    return found


ROUND_CASES = [
    ("relay-D2", RELAY, PAIR, 3, {"max_delay": 2}),
    ("retry-D2-losses", RETRY, THREE, 2, {"max_delay": 2, "loss_until": 1}),
    ("once-D2-crash", ONCE, THREE, 2, {"max_delay": 2, "crashes": 1}),
    ("relay-D2-fail-stop-after-send", RELAY, PAIR, 3, {"max_delay": 2, "crashes": 1, "crash_times": "after-send",
                                                       "crash_model": "fail-stop"}),
    ("relay-sync-channel", RELAY, PAIR, 3, {"delivery": "sync", "loss_until": 2}),
]


@pytest.mark.parametrize("name,program,facts,horizon,network", ROUND_CASES, ids=[c[0] for c in ROUND_CASES])
def test_paths_are_the_round_by_round_runs(files, name, program, facts, horizon, network):
    """Under a delay bound with two nodes or more: the paths are exactly the runs in rounds (a brute-force simulation),
    and each is a run of tplp2016's interleaving semantics (the bounded explorer)."""
    paths = files(program, facts)
    rounds = path_traces(graph_of(*paths, **network), horizon)
    assert rounds == round_traces(*paths, horizon, **network)
    if "crashes" not in network:  # the bounded explorer's crash plans may crash at step T, which changes no trace
        assert rounds <= bounded_traces(*paths, horizon, **network)


def test_rounds_leave_out_a_receiver_behind_its_sender(files):
    """The restriction of the rounds: tplp2016's interleavings let b, still at its step 0, receive what a sent at its
    step 0 (b's clock behind a's); in rounds a message arrives at a later round, so b never holds got(b) at step 0."""
    paths = files(RELAY, PAIR)
    early = lambda traces: any(("b", 0, "got(b)") in {(str(x), s, show_fact(r, a)) for x, s, r, a in trace}  # noqa: E731
                               for trace in traces)
    assert early(bounded_traces(*paths, 1, max_delay=1))
    assert not early(path_traces(graph_of(*paths, max_delay=1), 1))


@pytest.mark.parametrize("paths,network,horizon", [(ALG4, {"max_delay": 2}, 3), (FIG4, {"max_delay": 2}, 3), (ALG4, {"max_delay": 1}, 3)])
def test_paths_are_the_bounded_run_prefixes_of_the_papers(paths, network, horizon):
    assert path_traces(graph_of(*paths, **network), horizon) == bounded_traces(*paths, horizon, **network)


def test_input_events_and_the_capped_clock():
    """tr2009 Example 3: input events at steps 1, 2 and 4. The clock is capped just past the last event, and the
    paths are still the bounded run prefixes at horizons beyond it."""
    paths = (EXAMPLES / "tr2009/example3_events.ded", EXAMPLES / "tr2009/example3_events.facts")
    graph = graph_of(*paths, delivery="sync")
    assert graph.cap == 5
    assert path_traces(graph, 6) == bounded_traces(*paths, 6, delivery="sync")


# ---------------------------------------------------------------------------
# Ultimate outputs against their definition


def brute_force(graph: Graph, outputs: set[str]) -> set[tuple[str, ...]]:
    """ult(E) for every strongly connected set E of transitions, by trying every subset of each component's transitions."""
    components = eventual.strongly_connected(len(graph.configurations), lambda v: [w for w, _ in graph.edges[v]])
    found = set()
    for component in components:
        inside = [(v, w, label) for v in component for w, label in graph.edges[v] if w in component]
        assert len(inside) <= 14, "too many transitions to try every subset"
        for size in range(1, len(inside) + 1):
            for chosen in combinations(inside, size):
                nodes = {v for v, _, _ in chosen} | {w for _, w, _ in chosen}
                succ = {v: [w for u, w, _ in chosen if u == v] for v in nodes}
                if len(eventual.strongly_connected(len(nodes), _indexed(succ))) != 1:
                    continue  # not strongly connected: no run uses exactly these transitions infinitely often
                per_node: dict[int, set] = {}
                for _, _, label in chosen:
                    for i, d in enumerate(graph.labels[label]):
                        if d is not None:
                            mine = {f for f in d if f[0] in outputs}
                            per_node[i] = mine if i not in per_node else per_node[i] & mine
                found.add(tuple(sorted({show_fact(*graph.system.fact(f)) for fs in per_node.values() for f in fs})))
    return found


def _indexed(succ: dict[int, list[int]]):
    order = sorted(succ)
    position = {v: k for k, v in enumerate(order)}
    return lambda k: [position[w] for w in succ[order[k]]]


SMALL_GRAPHS = [
    ("blink", BLINK, ONE, {"delivery": "sync"}, {"on"}),
    ("choice-D1", CHOICE, "z { id(z). }\n", {"max_delay": 1}, {"p", "q"}),
    ("choice-D2", CHOICE, "z { id(z). }\n", {"max_delay": 2}, {"p", "q"}),
    ("once-losses", ONCE, THREE, {"delivery": "sync", "loss_until": 1}, {"got"}),
    ("once-crash", ONCE, THREE, {"delivery": "sync", "crashes": 1, "crash_times": "any"}, {"got"}),
]


@pytest.mark.parametrize("name,program,facts,network,outputs", SMALL_GRAPHS, ids=[c[0] for c in SMALL_GRAPHS])
def test_ultimate_outputs_are_those_of_every_strongly_connected_set(files, name, program, facts, network, outputs):
    paths = files(program, facts)
    result = answer(*paths, **network)
    assert result.exact
    assert set(result.ultimate_outputs) == brute_force(graph_of(*paths, **network), outputs)


def test_alternating_between_two_cycles_holds_what_both_hold():
    """Two cycles through configuration 0: one always holds p (q sometimes), the other always q (p sometimes).
    Each simple cycle ultimately holds one of them; a run that alternates holds neither, and only the union of
    the two cycles, which is no simple cycle, shows it."""
    p, q = ("p", ()), ("q", ())
    kept = [(frozenset({p}),), (frozenset({q}),), (frozenset({p, q}),)]
    edges = [[(1, 0), (2, 1)], [(0, 2)], [(0, 2)]]
    found, exact = eventual.ultimate_sets(edges, kept, [[0, 1, 2]])
    assert exact
    assert {frozenset(f for _, f in items) for items in found} == {frozenset({p}), frozenset({q}), frozenset()}


def test_witness_loop_holds_exactly_its_output(files):
    """Each witness lasso's loop, read step by step, ultimately holds exactly the output it stands for."""
    result = answer(*files(CHOICE, "z { id(z). }\n"), max_delay=2)
    assert len(result.ultimate_outputs) >= 2
    for output, lasso in zip(result.ultimate_outputs, result.witnesses):
        loop = lasso.steps[lasso.loop_start:]
        assert len(loop) == lasso.period >= 1
        held = set.intersection(*({f for f in step["nodes"]["z"]["facts"] if f[0] in "pq"} for step in loop))
        assert tuple(sorted(held)) == output


def test_ultimately_certain_facts_hold_at_a_large_horizon_in_every_bounded_run(files):
    """Under sync without crashes a run is deterministic from the end of the loss window on, so at a horizon T past
    the loss window plus the number of configurations every bounded run is on its cycle: its output at T contains
    the ultimate output of that run (one of the list), and so every ultimately certain fact. At a small horizon it
    need not (a lost message not yet resent): the bounded answer is not the eventual one."""
    for program, ultimate in ((RETRY, [("got(b)", "got(c)")]),
                              (ONCE, [(), ("got(b)",), ("got(c)",), ("got(b)", "got(c)")])):
        paths = files(program, THREE)
        result = answer(*paths, delivery="sync", loss_until=2)
        assert result.exact and list(result.ultimate_outputs) == ultimate
        horizon = 2 + result.configurations
        for trace in bounded_traces(*paths, horizon, delivery="sync", loss_until=2):
            at_t = {show_fact(t[2], t[3]) for t in trace if t[1] == horizon and t[2] == "got"}
            assert set(result.certain) <= at_t
            assert any(set(output) <= at_t for output in result.ultimate_outputs)
    small = bounded_traces(*files(RETRY, THREE), 1, delivery="sync", loss_until=2)
    assert any("got(b)" not in {show_fact(t[2], t[3]) for t in trace if t[1] == 1} for trace in small)


# ---------------------------------------------------------------------------
# Random programs (tests/test_theorem4.py's generator: relations p/1, q/1, r/2 over the inputs e/2, p/1, nd/1)

NETWORKS = [{"delivery": "sync"}, {"delivery": "sync", "loss_until": 1}, {"delivery": "sync", "crashes": 1, "crash_times": "any"},
            {"delivery": "sync", "crashes": 1}, {"delivery": "sync", "crashes": 1, "crash_model": "fail-stop"},
            {"max_delay": 1}, {"max_delay": 2}]


def random_graph(rule_texts, facts, network):
    program = well_formed("\n".join(rule_texts))
    assume(program is not None)
    instance = parse_facts(facts, "random.facts")
    network = Network(**network)
    try:
        graph = Graph(program, restrict(instance, program), network)
        graph.build(3_000)
    except (ConfigurationLimit, DiagnosticError):  # too large, or an input arity the program reads otherwise
        assume(False)
    return program, instance, network, graph


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.lists(rules(), min_size=1, max_size=3), inputs(), st.sampled_from(NETWORKS))
def test_random_programs_paths_are_the_bounded_run_prefixes(rule_texts, facts, network):
    program, instance, network, graph = random_graph(rule_texts, facts, network)
    try:
        bounded = operational.explore(program, restrict(instance, program), Bounds(2, network=network), 20_000, mode="traces")
    except operational.StateLimitExceeded:
        assume(False)
    rounds = path_traces(graph, 2, crash_last=network.crash_times == "any")
    if network.sync or len(graph.names) == 1:
        assert rounds == set(bounded.traces)
    else:  # the rounds restrict tplp2016's interleavings (test_rounds_leave_out_a_receiver_behind_its_sender)
        assert rounds <= set(bounded.traces)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.lists(rules(), min_size=1, max_size=3), inputs(), st.sampled_from(NETWORKS))
def test_random_programs_ultimate_outputs_by_brute_force(rule_texts, facts, network):
    program, instance, network, graph = random_graph(rule_texts, facts, network)
    components = eventual.strongly_connected(len(graph.configurations), lambda v: [w for w, _ in graph.edges[v]])
    assume(all(sum(w in c for v in c for w, _ in graph.edges[v]) <= 10 for c in components))
    outputs = ("p", "q")
    result = eventual.explore(program, instance, Bounds(0, network=network, mode=Mode.EVENTUAL), 3_000, outputs)
    assert result.exact
    assert set(result.ultimate_outputs) == brute_force(graph, set(outputs))
    if len(graph.configurations) <= 12:  # K: the most configurations on a path of distinct ones from the start
        longest = longest_simple_path(graph)
        assert result.threshold >= longest and (not result.threshold_exact or result.threshold == longest)


def longest_simple_path(graph: Graph) -> int:
    """The most configurations on a path of distinct configurations from the start, by trying every path."""
    best, stack = 1, [(0, frozenset({0}))]
    while stack:
        v, visited = stack.pop()
        best = max(best, len(visited))
        stack += [(w, visited | {w}) for w, _ in graph.edges[v] if w not in visited]
    return best


# ---------------------------------------------------------------------------
# The examples of issue #29


def test_blinking_light_has_no_ultimate_output_though_on_is_certain_at_horizon_3(files):
    paths = files(BLINK, ONE)
    result = answer(*paths, delivery="sync")
    assert result.exact and result.ultimate_outputs == ((),)
    assert (result.witnesses[0].loop_start, result.witnesses[0].period) == (0, 2)
    assert all(("a", 3, "on()") in {(str(x), s, show_fact(r, args)) for x, s, r, args in trace}
               for trace in bounded_traces(*paths, 3, delivery="sync"))


def test_persisted_broadcast_every_member_ultimately_holds_it(files):
    result = answer(*files(RETRY, THREE), delivery="sync")
    assert result.exact and result.ultimate_outputs == (("got(b)", "got(c)"),)
    assert result.threshold_exact and result.threshold == result.configurations  # a chain into one self-loop


def test_retry_broadcast_is_ultimately_delivered_despite_omissions():
    result = answer(RETRY_MOLLY, None, ("log",), delivery="sync", loss_until=3)
    assert result.exact
    assert result.ultimate_outputs == (('log(a, "hello")', 'log(b, "hello")', 'log(c, "hello")'),)


def test_molly_crash_candidates_and_fail_stop():
    """Molly's crash candidates (the sync default): a node crashes at or after a step at which it sent to another node.
    Only a sends in retry_broadcast, so only a may crash; under the clock model as early as step 0 (its sends of that
    step are lost), and the members' logs never come. Under fail-stop a crashed node holds nothing, and its crash step
    is silent, so a crashes at step 1 at the earliest, after its first copies got out: then only a lacks its log.
    With crashes at any step, a fail-stop a crashing at step 0 leaves no log anywhere, and a crashed member lacks its own."""
    clock = answer(RETRY_MOLLY, None, ("log",), delivery="sync", crashes=1)
    assert clock.exact and clock.ultimate_outputs == (('log(a, "hello")',), ('log(a, "hello")', 'log(b, "hello")', 'log(c, "hello")'))
    stop = answer(RETRY_MOLLY, None, ("log",), delivery="sync", crashes=1, crash_model="fail-stop")
    assert stop.exact and stop.ultimate_outputs == (('log(b, "hello")', 'log(c, "hello")'),
                                                    ('log(a, "hello")', 'log(b, "hello")', 'log(c, "hello")'))
    anytime = answer(RETRY_MOLLY, None, ("log",), delivery="sync", crashes=1, crash_times="any", crash_model="fail-stop")
    assert anytime.exact and set(anytime.ultimate_outputs) == {
        (), ('log(a, "hello")', 'log(b, "hello")'), ('log(a, "hello")', 'log(c, "hello")'), ('log(b, "hello")', 'log(c, "hello")'),
        ('log(a, "hello")', 'log(b, "hello")', 'log(c, "hello")')}


def test_a_crash_makes_a_post_never_come():
    result = answer(RETRY_MOLLY, None, ("log",), delivery="sync", crashes=1, crash_times="any")
    assert result.exact and ('log(a, "hello")',) in result.ultimate_outputs
    lasso = result.witnesses[result.ultimate_outputs.index(('log(a, "hello")',))]
    assert any("a" in step["crashes"] for step in lasso.steps[:lasso.loop_start + 1])


def test_a_witness_shows_the_lost_message():
    """Molly's one-shot broadcast with omissions: the run in which c never logs lost the one message to c."""
    result = answer(EXAMPLES / "molly/simple_broadcast.ded", None, ("log",), delivery="sync", loss_until=1)
    assert result.exact and len(result.ultimate_outputs) == 4
    lasso = result.witnesses[result.ultimate_outputs.index(('log(a, "hello")', 'log(b, "hello")'))]
    first = lasso.steps[0]["nodes"]["a"]
    assert first["lost"] == ['deliver("hello") to c'] and first["sent"] == ['deliver("hello") to b']


def test_alg4_is_not_consistent_under_delay_2_and_is_under_delay_1():
    twice = answer(*ALG4, max_delay=2)
    assert twice.ultimate_outputs == ((), ("T()",)) and twice.consistent is False
    once = answer(*ALG4, max_delay=1)
    assert once.exact and once.ultimate_outputs == (("T()",),) and once.consistent is True


@pytest.mark.parametrize("paths", [ALG4, FIG4])
def test_the_threshold_is_the_longest_path_of_distinct_configurations(paths):
    """Under D = 2 the components hold several configurations, so K comes from the pruned search: the same as trying
    every path."""
    result = answer(*paths, max_delay=2)
    assert result.threshold_exact and result.threshold == longest_simple_path(graph_of(*paths, max_delay=2))


@pytest.mark.parametrize("delay", [1, 2])
def test_fig4_under_causal_delivery_ultimately_outputs_T(delay):
    result = answer(*FIG4, max_delay=delay)
    assert result.exact and result.ultimate_outputs == (("T()",),)


def test_no_infinite_run_when_no_message_can_meet_its_deadline():
    """D = 0 and a node that sends itself a message at every step: no transition at all, so no infinite run."""
    result = answer(*ALG4, max_delay=0)
    assert result.exact and not result.infinite_runs and result.ultimate_outputs == ()


def test_value_invention_is_not_exact(files):
    result = answer(*files(".output c.\nc(N + 1)@next :- c(N).\n", "a { c(0). }\n"), delivery="sync", limit=50)
    assert not result.exact and "more than 50 configurations" in result.reason and "computes new values" in result.reason


def test_two_nodes_under_a_delay_bound_are_finite_in_rounds(files):
    """Two blinking nodes under async with a delay bound: in rounds neither runs ahead of the other, so the graph is
    two configurations (with exact offsets it had no end). The relay: a sends a token at every step and b echoes each;
    under D = 1 both get one at every step from step 2 on; under D = 2 the tokens may come in pairs every other
    step, so got(a), or both, may be absent at infinitely many steps — but got(a) never holds for good without got(b)."""
    result = answer(*files(BLINK, "a { id(a). }\nb { id(b). }\n"), max_delay=1, limit=200)
    assert result.exact and result.configurations == 2 and result.ultimate_outputs == ((),)
    assert answer(*files(RELAY, PAIR), max_delay=1).ultimate_outputs == (("got(a)", "got(b)"),)
    relay = answer(*files(RELAY, PAIR), max_delay=2, limit=2_000)
    assert relay.exact and relay.ultimate_outputs == ((), ("got(b)",), ("got(a)", "got(b)"))


def test_refusals(files):
    with pytest.raises(ValueError, match="not finite-state"):
        answer(*files(BLINK, ONE))
    with pytest.raises(ValueError, match="crash"):
        answer(*files(".output d.\nd(Y) :- crash(Y, S).\nm()@async(Y) :- node(Y).\n", THREE), delivery="sync", crashes=1,
               crash_times="any")
    prog, instance = loaded(*files(BLINK, ONE))
    with pytest.raises(ValueError, match="eventual"):
        eventual.explore(prog, instance, Bounds(3, network=Network("sync")))


def test_tarjan_is_iterative():
    """A chain of 200000 configurations closing into one cycle: no recursion limit, one component."""
    n = 200_000
    components = eventual.strongly_connected(n, lambda v: [(v + 1) % n])
    assert len(components) == 1 and len(components[0]) == n
    chain = eventual.strongly_connected(n, lambda v: [v + 1] if v + 1 < n else [])
    assert len(chain) == n and chain[0] == [n - 1]  # a component before the ones that reach it


# ---------------------------------------------------------------------------
# The command line

RUNNER = CliRunner()
ALG4_CLI = (ALG4[0], "--input", ALG4[1])


def invoke(*args):
    result = RUNNER.invoke(app, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.stdout + result.stderr
    return result


def test_cli_json():
    result = invoke("explore", *ALG4_CLI, "--eventual", "--max-delay", "2", "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["ultimate_outputs"] == [[], ["T()"]] and data["exact"] is True and data["possible"] == ["T()"]
    assert data["configurations"] > 0 and data["edges"] > 0 and data["threshold"] >= 1
    assert [set(w) >= {"loop_start", "period", "steps"} for w in data["witnesses"]] == [True, True]


def test_cli_text():
    result = invoke("explore", RETRY_MOLLY, "--eventual", "--delivery", "sync", "--loss-until", "3", "--output-relations", "log")
    assert result.exit_code == 0, result.stderr
    assert "exact: yes" in result.stdout and '1. log(a, "hello"), log(b, "hello"), log(c, "hello")' in result.stdout


def test_cli_not_exact_exits_3(files):
    program, facts = files(".output c.\nc(N + 1)@next :- c(N).\n", "a { c(0). }\n")
    result = invoke("explore", program, "--input", facts, "--eventual",
                    "--delivery", "sync", "--max-states", "20", "--json")
    data = json.loads(result.stdout)
    assert result.exit_code == 3 and data["exact"] is False and data["ultimate_outputs"] is None and data["certain"] is None
    text = invoke("explore", program, "--input", facts, "--eventual", "--delivery", "sync", "--max-states", "20")
    assert text.exit_code == 3 and "no ultimate output is known" in text.stdout and "exact: no" in text.stdout


@pytest.mark.parametrize("args,message", [
    (["--eventual"], "not finite-state"),
    (["--eventual", "--max-delay", "1", "--horizon", "2"], "without --horizon"),
    (["--eventual", "--max-delay", "1", "--runs"], "without --horizon"),
    (["--max-delay", "1"], "give the horizon"),
    (["--horizon", "2", "--output-relations", "T"], "goes with --eventual"),
    (["--eventual", "--max-delay", "1", "--output-relations", "Nope"], "does not occur"),
])
def test_cli_refusals(args, message):
    result = invoke("explore", *ALG4_CLI, *args)
    assert result.exit_code == 2 and message in result.stderr and result.stdout == ""


def test_cli_refuses_a_global_output():
    """Molly's invariant relations are global: derived from all nodes at one step, not held by a node."""
    result = invoke("explore", RETRY_MOLLY, EXAMPLES / "molly/broadcast_assert.ded", "--eventual", "--delivery", "sync",
                    "--output-relations", "pre")
    assert result.exit_code == 2 and "'pre' is global" in result.stderr


@pytest.mark.parametrize("command", ["models", "count", "cron", "verify"])
def test_other_commands_refuse_eventual(command):
    result = invoke(command, *ALG4_CLI, "--horizon", "2", "--eventual")
    assert result.exit_code == 2 and "--eventual" in result.stderr
