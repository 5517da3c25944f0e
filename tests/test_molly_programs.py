"""Molly's programs as Molly runs them (issue #31): the nodes of `--nodes` (Molly's `-N`), spelt as Molly
spells them, a counterexample whose program reads `crash`, and the other corners where Molly's
conventions and tplp2016's meet. Every program here is small and our own.
"""

from __future__ import annotations

import json
import subprocess
import sys

import clingo
import pytest

from dedalus2asp import inspect, pipeline
from dedalus2asp.asp.transform import transform
from dedalus2asp.bounds import Bounds, Network
from dedalus2asp.runs import operational
from dedalus2asp.questions import lineage
from dedalus2asp.questions.verify import verify

# a asks b; b answers with its own name: a rule at b that uses b's location as a value needs b to know it
PING = """
peer("a", "b")@1;
peer(A, B)@next :- peer(A, B);
ping(B, A)@async :- peer(A, B);
pong(A, B)@async :- ping(B, A);
got(A, B) :- pong(A, B);
got(A, B)@next :- got(A, B);
pre(A) :- peer(A, _);
post(A) :- got(A, _);
"""


def _cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "dedalus2asp", *args], capture_output=True, text=True, cwd=cwd)


def _load(tmp_path, text: str, name: str = "p.ded"):
    (tmp_path / name).write_text(text)
    program, instance, _ = pipeline.load(tmp_path / name, None, "molly")
    return program, instance


# --- item 1: a node named only by --nodes knows its own name ------------------------------------------------


@pytest.mark.parametrize("names", [('"a"', '"b"'), ("a", "b")], ids=["quoted", "bare"])
def test_a_node_named_only_by_the_option_answers(tmp_path, names):
    """b holds no fact: only --nodes names it. It must still learn id("b"), as a node with facts does, or
    it never answers and the invariant breaks with no fault (before: "faults: 0")."""
    program, instance = _load(tmp_path, PING)
    assert [str(n) for n in instance.network] == ['"a"']
    assert verify(program, instance, Bounds(3, network=Network("sync", nodes=names))).holds
    lost = verify(program, instance, Bounds(3, network=Network("sync", loss_until=2, nodes=names)))
    assert lost.holds is False and lost.counterexample.faults == 2  # not vacuous: two lost messages break it


def test_the_explorer_and_the_solver_agree_on_option_nodes(tmp_path):
    """Bounded Theorem 4 with a node of --nodes: the operational runs give b its name as the solver does."""
    program, instance = _load(tmp_path, PING)
    bounds = Bounds(3, network=Network("sync", loss_until=2, nodes=("a", "b")))
    traces = operational.explore(program, instance, bounds, mode="traces").traces

    def broken(trace) -> bool:  # pre(A) and post(A) are held by node A
        last = {(x, r, a) for x, s, r, a in trace if s == 3}
        return any(r == "pre" and (x, "post", a) not in last for x, r, a in last)

    answered = [t for t in traces if any(r == "pong" and x == clingo.String("a") for x, _, r, _ in t)]
    assert answered and any(map(broken, traces)) and not all(map(broken, traces))
    assert verify(program, instance, bounds).holds is not any(map(broken, traces))


# --- item 2: node names as Molly spells them -----------------------------------------------------------------


def test_bare_names_are_the_strings_the_program_writes(tmp_path):
    """Molly's -N a,b,C: in Molly's dialect a bare name is the string the facts write, so `b` and `C` add no
    node beside "b" and "C" (before: `C` was refused, and `n1` beside "n1" made a second node)."""
    program, instance = _load(tmp_path, 'peer("a", "C")@1;\npeer(A, B)@next :- peer(A, B);\n'
                                        'ping(B, A)@async :- peer(A, B);\n')
    populated = Network(nodes=("a", "C", "d")).populate(instance)
    assert [str(n) for n in populated.network] == ['"a"', '"C"', '"d"']
    assert populated.facts[clingo.String("C")][0].predicate == "id"  # C knows its name: rules use it as a value


def test_bare_names_follow_a_program_of_bare_constants(tmp_path):
    """A Molly program may write its nodes as constants (member(a, b)): a bare name is then that constant."""
    program, instance = _load(tmp_path, "member(a, b)@1;\nmember(N, M)@next :- member(N, M);\n")
    assert [str(n) for n in Network(nodes=("a", "b", "e")).populate(instance).network] == ["a", "b", "e"]


def test_option_names_that_nothing_mentions_are_warned_of(tmp_path):
    (tmp_path / "p.ded").write_text(PING)
    done = _cli("verify", "p.ded", "--horizon", "2", "--delivery", "sync", "--nodes", "a,b,zed", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "p.ded: warning: --nodes names 'zed', which no fact or rule of the program mentions" in done.stderr
    assert "'b'" not in done.stderr.split("warning: --nodes")[0]  # b is mentioned by a fact: no warning


def test_an_upper_case_name_outside_molly_is_refused(tmp_path):
    (tmp_path / "p.ded").write_text("p(X)@async(Y) :- p(X), peer(Y).\n")
    (tmp_path / "p.facts").write_text("a { p(1). peer(b). }\n")
    done = _cli("count", "p.ded", "--input", "p.facts", "--horizon", "1", "--nodes", "b,C", cwd=tmp_path)
    assert done.returncode == 2 and "node name" in done.stderr and "Traceback" not in done.stderr


# --- item 5: a counterexample of a program that reads crash ---------------------------------------------------

UP = """
up("a")@1;
up(N)@next :- up(N), notin crash(N, N, _);
pre(N) :- up(N)@1;
post(N) :- up(N);
"""


def test_the_lineage_of_a_program_that_reads_crash(tmp_path):
    """crash(x, y, s) holds at every node and step of a run where y crashes at s: a fault, the lineage's own
    kind of reason (before: exit 70, "not D = deduc_P(...)")."""
    program, instance = _load(tmp_path, UP)
    # a never sends: Molly's crash candidates (after-send, the sync default) would never crash it, so any step
    bounds = Bounds(3, network=Network("sync", crashes=1, crash_times="any"))
    verdict = lineage.attach(verify(program, instance, bounds), program, instance, None)
    assert verdict.holds is False
    text = verdict.describe()
    assert "a fault of the run (a crash)" in text and "crash(\"a\", _) absent" in text
    done = _cli("verify", "p.ded", "--horizon", "3", "--delivery", "sync", "--crashes", "1", "--crash-times", "any",
                "--out", "out", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    runs = json.loads((tmp_path / "out" / "runs.json").read_text())
    assert "fault" in json.dumps(runs)


# --- item 4: a variable only under notin ------------------------------------------------------------------------

LONELY = """
p("a", 1)@1; p("a", 2)@1; q("a", 7, 1)@1;
r(N, X) :- p(N, X), notin q(N, T, X);
"""


def test_a_variable_only_under_notin_is_projected_away(tmp_path):
    """Molly's Raft: `notin commit(Node, Term, Idx)` with Term bound nowhere means no commit(Node, _, Idx):
    r("a", 1) does not hold (q("a", 7, 1) does), r("a", 2) does; a warning says so at its line and column."""
    program, instance = _load(tmp_path, LONELY)
    [rule] = program.rules
    assert str(rule) == "r(X) :- p(X), not q(_, X)."
    traces = operational.explore(program, instance, Bounds(0), mode="traces").traces
    assert {(r, tuple(map(str, a))) for t in traces for _, _, r, a in t if r == "r"} == {("r", ("2",))}
    done = _cli("check", "p.ded", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "p.ded:3:32: warning: 'T' occurs only in the negated atom of rule 4" in done.stderr
    (tmp_path / "t.ded").write_text("r(X) :- p(X), not q(T, X).\n")  # tplp2016's dialect: still unsafe
    assert _cli("check", "t.ded", cwd=tmp_path).returncode == 2


# --- item 3: rules that read another node's static facts (Molly's one global database) ------------------------

# after Molly's Kafka model: the client C tells every node Z that some node M lists as its zookeeper
REGISTRY = """
client("C")@1;
zookeeper("a", "Z")@1; zookeeper("C", "Z")@1; zookeeper("Z", "Z")@1;
zookeeper(M, Z)@next :- zookeeper(M, Z);
client(C)@next :- client(C);
clients(Z, C)@async :- client(C), zookeeper(M, Z);
clients(Z, C)@next :- clients(Z, C);
pre(C) :- client(C);
post(C) :- clients(_, C);
"""


def _asp_traces(program, instance, bounds) -> set:
    found = inspect.traces(transform(program, instance, bounds), timeout=120)
    assert found.complete
    return {m.trace for m in found.models}


def test_a_message_rule_reads_another_nodes_static_facts(tmp_path):
    """At each step C sends clients(C) to "Z", whom a (and C, and Z) list: C reads zookeeper at a and Z as Molly
    reads its global database. The message is C's: lost on the channel C→Z, never sent once C has crashed."""
    program, instance = _load(tmp_path, REGISTRY)
    [rule] = [r for r in program.rules if r.head.predicate == "clients" and r.kind.value == "asynchronous"]
    assert str(rule) == "clients(C)@async(Z) :- client(), zookeeper_everywhere(M, Z), id(C)."
    sync = Bounds(2, network=Network("sync"))
    [trace] = operational.explore(program, instance, sync, mode="traces").traces
    z, c = clingo.String("Z"), clingo.String("C")
    assert (z, 1, "clients", (c,)) in trace and (clingo.String("a"), 1, "clients", (c,)) not in trace
    assert verify(program, instance, sync).holds
    crashed = verify(program, instance, Bounds(2, network=Network("sync", crashes=1)))
    assert crashed.holds is False and [str(x.node) for x in crashed.counterexample.crashes] == ['"C"']
    done = _cli("check", "p.ded", cwd=tmp_path)
    assert done.returncode == 0 and "p.ded:6:35: warning: rule 7 runs at 'C' but reads 'zookeeper(M, Z)' at 'M'" in done.stderr
    assert "not used by the program" not in done.stderr  # zookeeper is read, through its copies


@pytest.mark.parametrize("network", [Network("sync", loss_until=1, crashes=1), Network(max_delay=1, loss_until=1)],
                         ids=["sync-loss1-crash1", "D1-loss1"])
def test_remote_reads_keep_bounded_theorem_4(tmp_path, network):
    """The copies are input facts and the rewritten rules are located ones: the explorer and the solver agree."""
    program, instance = _load(tmp_path, REGISTRY + LOCAL_WRITE)
    bounds = Bounds(2, network=network)
    explored = set(operational.explore(program, instance, bounds, mode="traces").traces)
    assert explored and _asp_traces(program, instance, bounds) == explored


# a deductive rule that writes at the head's node what another node's static facts say (Molly's ramp encoding),
# kept by an @next rule: read at the head's node, from the copies
LOCAL_WRITE = """
knows(Host, Z) :- zookeeper(D, Z), client(D), peer(D, Host);
peer("C", "a")@1; peer(A, B)@next :- peer(A, B);
knows(H, Z)@next :- knows(H, Z);
"""


def test_a_deductive_rule_writes_at_its_heads_node(tmp_path):
    program, instance = _load(tmp_path, REGISTRY + LOCAL_WRITE)
    [trace] = operational.explore(program, instance, Bounds(1, network=Network("sync")), mode="traces").traces
    a = clingo.String("a")
    assert {(x, s, r, a_) for x, s, r, a_ in trace if r == "knows"} == {
        (a, 0, "knows", (clingo.String("Z"),)), (a, 1, "knows", (clingo.String("Z"),))}


def test_a_remote_write_of_what_the_run_derives_is_a_lock_step_rule(tmp_path):
    """Only static relations are copied. A deductive rule that writes at another node what the run derives
    (Molly's gstore: `ja(Leader, ...) :- j_buf(Server, ...)`) is read as Molly reads it, a lock-step rule: `check`
    loads it with one warning at that rule, which says what it means and that it needs --delivery sync, also
    when an included file's rule reads what it writes (tests/test_lockstep.py solves such programs)."""
    (tmp_path / "more.ded").write_text('kept(B, A)@next :- got(B, A);\n')
    (tmp_path / "p.ded").write_text('include "more.ded";\ngo("a", "b")@1;\nseen(A, B) :- go(A, B);\n'
                                    'got(B, A) :- seen(A, B);\ngot(B, A)@next :- got(B, A);\n')
    done = _cli("check", "p.ded", cwd=tmp_path)
    assert done.returncode == 0 and "Traceback" not in done.stderr
    assert ": error: " not in done.stderr
    warnings = [line for line in done.stderr.splitlines() if "lock-step" in line]
    assert len(warnings) == 1 and warnings[0].startswith("p.ded:4:1: warning: rule 4 writes 'got' at 'B' (its first "
                                                          "column) from what holds at 'A' at the same step")
    assert "--delivery sync" in warnings[0]
    assert "rule  4 lock-step    got(B, A) :- seen(A, B)." in done.stdout


def test_a_remote_write_whose_head_names_no_node_is_one_error_at_its_rule(tmp_path):
    """A lock-step rule writes its head at the node its first column names: a head without one, kept by an
    @next rule, is still refused, with one error at the write that says why and what to write instead."""
    (tmp_path / "p.ded").write_text('go("a", "b")@1;\nseen(A, B) :- go(A, B);\nflag() :- seen(A, B);\n'
                                    'flag()@next :- flag();\n')
    done = _cli("check", "p.ded", cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    errors = [line for line in done.stderr.splitlines() if ": error: " in line]
    assert len(errors) == 1 and errors[0].startswith(
        "p.ded:3:1: error: rule 3 writes 'flag' from what the run derives at 'A' at the same time ('seen')")
    assert "rule 4 (@next, line 4) derives 'flag'" in errors[0] and "its head has no location column" in errors[0]


# --- Molly's corpus: an include Molly cannot read either ---------------------------------------------------------


def test_an_include_nobody_can_read_says_where_it_looked(tmp_path):
    """Molly reads an include relative to the first program's folder; dedalus2asp also relative to the
    including file. A file found by neither is a clear error naming both places."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "p.ded").write_text('include "util/timer.ded";\np("a")@1;\n')
    done = _cli("check", "sub/p.ded", cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith("sub/p.ded:1:1: error: cannot read included file 'util/timer.ded': there is no "
                                  "'sub/util/timer.ded'")
    assert "Molly cannot read it either" in done.stderr
    (tmp_path / "sub" / "util").mkdir()
    (tmp_path / "sub" / "util" / "timer.ded").write_text("t(N)@next :- t(N);\n")
    assert _cli("check", "sub/p.ded", cwd=tmp_path).returncode == 0


# --- item 9: a Molly program carries its facts ---------------------------------------------------------------------


def test_run_needs_no_input_for_a_molly_program(tmp_path):
    """`run` on a Molly program: its facts suffice, --nodes names the rest, and a facts file that only names
    nodes (`b { }`) names the program's "b" (before: --input was required, and `b` was a second node)."""
    (tmp_path / "p.ded").write_text(PING)
    (tmp_path / "nodes.facts").write_text("a { }\nb { }\n")
    pongs = {}
    for name, extra in [("own", []), ("nodes", ["--nodes", "b"]), ("file", ["--input", "nodes.facts"])]:
        done = _cli("run", "p.ded", "--steps", "3", "--out", name, *extra, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        pongs[name] = done.stdout.split(": ")[1].split("; wrote")[0]
    assert pongs["own"].startswith("9 trace facts, 0 messages")  # b is no node: nobody answers
    assert pongs["nodes"] == pongs["file"] and ", 5 messages" in pongs["nodes"]
    (tmp_path / "q.ded").write_text("p(X)@async :- q(X);\n")
    missing = _cli("run", "q.ded", "--steps", "2", "--out", "q", "--dialect", "molly", cwd=tmp_path)
    assert missing.returncode == 2 and "no input instance" in missing.stderr


# --- item 10: what a new user meets around verify ------------------------------------------------------------------

# the replica "b" is no node: pre never holds at the last step (the peer fact is an event at step 0 only)
VACUOUS = """
peer("a", "b")@1;
ping(B, A)@async :- peer(A, B);
pre(A) :- peer(A, _);
post(A) :- ping(A, _);
"""


def test_a_verdict_that_holds_vacuously_says_so(tmp_path):
    program, instance = _load(tmp_path, VACUOUS)
    vacuous = verify(program, instance, Bounds(2, network=Network("sync")))
    assert vacuous.holds and vacuous.vacuous
    assert vacuous.describe().startswith("holds vacuously: no run has a pre fact at the last step")
    assert vacuous.as_dict()["vacuous"] is True
    program, instance = _load(tmp_path, PING)
    real = verify(program, instance, Bounds(3, network=Network("sync", nodes=("b",))))
    assert real.holds and not real.vacuous and real.as_dict()["vacuous"] is False
    assert real.describe().startswith("holds: every pre fact") and "no crash, no lost message" in real.describe()


def test_messages_to_a_name_that_is_no_node_are_warned_of(tmp_path):
    (tmp_path / "p.ded").write_text(VACUOUS)
    done = _cli("verify", "p.ded", "--horizon", "2", "--delivery", "sync", "--json", cwd=tmp_path)
    assert "p.ded:3:21: warning: rule 2 sends to the 'B' of 'peer', whose facts name \"b\": no node" in done.stderr
    assert json.loads(done.stdout)["vacuous"] is True
    named = _cli("verify", "p.ded", "--horizon", "2", "--delivery", "sync", "--nodes", "b", cwd=tmp_path)
    assert "no node of the network" not in named.stderr


def test_a_misspelt_relation_gets_a_did_you_mean(tmp_path):
    (tmp_path / "p.ded").write_text(PING.replace("got(A, B) :- pong(A, B);", "got(A, B) :- pongs(A, B);"))
    done = _cli("check", "p.ded", cwd=tmp_path)
    assert done.returncode == 0 and "relation 'pongs' is neither derived" in done.stderr
    assert "(did you mean 'pong'?)" in done.stderr


def test_all_prints_a_count_and_the_first_fault_sets(tmp_path):
    """--all: the count and the first few minimal fault sets in the text; every one of them in --json."""
    fan = 'peer("a", "b")@1; peer("a", "c")@1; peer("a", "d")@1; peer("a", "e")@1; peer("a", "f")@1; peer("a", "g")@1;\n'
    (tmp_path / "p.ded").write_text(fan + "got(B, A)@async :- peer(A, B);\ngot(B, A)@next :- got(B, A);\n"
                                    "pre(B) :- peer(_, B)@1;\npost(B) :- got(B, _);\n")
    args = ["verify", "p.ded", "--horizon", "2", "--delivery", "sync", "--eff", "2", "--all", "--nodes", "b,c,d,e,f,g"]
    text = _cli(*args, cwd=tmp_path).stdout
    assert "6 minimal fault sets break it; the first 5 (all of them in --json and --out):" in text
    assert text.count("    {lost ") == 5
    document = json.loads(_cli(*args, "--json", cwd=tmp_path).stdout)
    assert len(document["minimal_fault_sets"]) == 6


def test_the_out_page_speaks_of_steps_with_mollys_times_beside(tmp_path):
    """One clock on the page of `verify --out`, the diagrams' (steps from 0), Molly's time in parentheses; the
    lineage says which run it explains."""
    (tmp_path / "p.ded").write_text(UP)
    done = _cli("verify", "p.ded", "--horizon", "3", "--delivery", "sync", "--crashes", "1", "--crash-times", "any",
                "--out", "out", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    page = (tmp_path / "out" / "index.html").read_text()
    assert "horizon 3: steps 0..3 (Molly's eot 4" in page
    assert "crash of &quot;a&quot; at step 3 (Molly&#x27;s time 4)" in page and "at time" not in page
    assert "the lineage below explains run 1, the counterexample drawn above" in page


def test_crash_read_anywhere_is_read_at_home(tmp_path):
    """crash(x, y, s) holds at every node x: `crash(_, B, _)` in a rule that must run at A reads A's copy of it."""
    program, instance = _load(tmp_path, 'peer("a", "b")@1;\npeer(A, B)@next :- peer(A, B);\n'
                                        'dead(A, B) :- peer(A, B), crash(_, B, _);\ndead(A, B)@next :- dead(A, B);\n')
    assert "dead(B) :- peer(B), crash(B, _)." in [str(r) for r in program.rules]
    bounds = Bounds(2, network=Network("sync", crashes=1, nodes=("b",), crash_times="any"))  # b never sends
    explored = set(operational.explore(program, instance, bounds, mode="traces").traces)
    assert _asp_traces(program, instance, bounds) == explored
    assert any(r == "dead" for t in explored for _, _, r, _ in t) and not all(
        any(r == "dead" for _, _, r, _ in t) for t in explored)


def test_run_on_tables_gives_every_node_the_copies(tmp_path):
    """`run --input DIR`: the copies of the program's own facts join the tables at every node, as with a .facts
    input; a table of a copied relation is refused (its copies would be a table per node)."""
    (tmp_path / "p.ded").write_text(REGISTRY.replace('client("C")@1;', ""))
    (tmp_path / "q.ded").write_text(REGISTRY)
    (tmp_path / "tables").mkdir()
    (tmp_path / "tables" / "client.csv").write_text("C\n")
    (tmp_path / "zk").mkdir()
    (tmp_path / "zk" / "zookeeper.csv").write_text("a,Z\n")
    tables = _cli("run", "p.ded", "--input", "tables", "--steps", "3", "--out", "t", cwd=tmp_path)
    own = _cli("run", "q.ded", "--steps", "3", "--out", "o", cwd=tmp_path)
    assert tables.returncode == own.returncode == 0, tables.stderr + own.stderr
    assert ", 3 messages (1 pending)" in tables.stdout and tables.stdout.split(";")[0] == own.stdout.split(";")[0]
    refused = _cli("run", "q.ded", "--input", "zk", "--steps", "3", "--out", "z", cwd=tmp_path)
    assert refused.returncode == 2 and "cannot come from a table" in refused.stderr and "Traceback" not in refused.stderr


def test_convert_writes_the_copies_with_the_facts(tmp_path):
    """The location-transparent program of `convert` reads the copies: its input block of each node holds them."""
    (tmp_path / "p.ded").write_text(REGISTRY.replace("pre(C) :- client(C);\npost(C) :- clients(_, C);\n", ""))
    done = _cli("convert", "p.ded", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    blocks = [line for line in done.stdout.splitlines() if line.startswith("%   ")]
    assert len(blocks) == 3 and all('zookeeper_everywhere("a", "Z")@0.' in b for b in blocks)


def test_an_inductive_rule_reads_another_nodes_static_facts(tmp_path):
    """`@next` whose head is at another node than its body: it runs at its head's node and reads the copies of
    the body's static facts, at the same step, as Molly does; the explorer and the solver agree under
    omissions and a crash."""
    text = REGISTRY + 'watch(Z, M)@next :- zookeeper(M, Z), client(M);\nwatch(Z, M)@next :- watch(Z, M);\n'
    program, instance = _load(tmp_path, text)
    [rule] = [r for r in program.rules if r.head.predicate == "watch" and "everywhere" in str(r)]
    assert str(rule) == "watch(M)@next :- zookeeper_everywhere(M, Z), client_everywhere(M), id(Z)."
    [trace] = operational.explore(program, instance, Bounds(1, network=Network("sync")), mode="traces").traces
    assert (clingo.String("Z"), 1, "watch", (clingo.String("C"),)) in trace
    bounds = Bounds(2, network=Network("sync", loss_until=1, crashes=1))
    assert _asp_traces(program, instance, bounds) == set(operational.explore(program, instance, bounds, mode="traces").traces)
