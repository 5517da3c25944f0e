"""Molly's -N is its whole node list; our --nodes adds nodes to those the input names. A node that holds facts but
that --nodes leaves out is a node here and no node for Molly (no clock: its facts never persist, it sends
nothing): `verify` (every command that takes --nodes) warns, naming the node and what Molly would do with it."""

from __future__ import annotations

from typer.testing import CliRunner

from dedalus2asp.cli import app

# a watcher z, not among the nodes a Molly user would list, tells a and b whom to greet
PROGRAM = """
member("z", "a")@1;
member("z", "b")@1;
member(Z, N)@next :- member(Z, N);
greet(N, Z)@async :- member(Z, N);
greeted(N) :- greet(N, _);
greeted(N)@next :- greeted(N);
pre(N) :- member(_, N);
post(N) :- greeted(N);
"""


def verify(tmp_path, *nodes: str):
    program = tmp_path / "watch.ded"
    program.write_text(PROGRAM, encoding="utf-8")
    return CliRunner().invoke(app, ["verify", str(program), "--eot", "3", "--delivery", "sync", *nodes])


def test_a_node_with_facts_left_out_of_nodes_is_named_with_what_molly_would_do(tmp_path):
    result = verify(tmp_path, "--nodes", "a,b")
    assert result.exit_code == 0, result.output  # here z is a node: it greets a and b, the invariant holds
    warning = next(line for line in result.stderr.splitlines() if "warning" in line)
    assert warning.startswith(f"{tmp_path / 'watch.ded'}:2:1: warning: node \"z\" holds input facts")
    assert "Molly, whose -N lists every node, gives it no clock" in warning and "never persist" in warning


def test_no_warning_when_every_node_with_facts_is_listed(tmp_path):
    result = verify(tmp_path, "--nodes", "a,b,z")
    assert result.exit_code == 0 and "holds input facts" not in result.output, result.output
