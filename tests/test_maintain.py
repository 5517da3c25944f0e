"""`maintain`'s reading of programs and updates, rule localization, and the recomputed reference view."""

from __future__ import annotations

from collections import Counter

import clingo
import pytest

from dedalus2asp.lang.diagnostics import DiagnosticError
from dedalus2asp.maintain import Base, Fact, parse_program, parse_updates, recompute
from dedalus2asp.maintain.ddlog import rule_text

from conftest import EXAMPLES

REACHABLE = """reachable(#S, D) :- link(#S, D);
reachable(#S, D) :- link(#S, Z), reachable(#Z, D);
"""


def fact(text: str) -> Fact:
    symbol = clingo.parse_term(text)
    return Fact(symbol.name, tuple(symbol.arguments))


def base(*texts: str) -> Counter:
    return Counter(fact(t) for t in texts)


def errors(text: str) -> list[str]:
    with pytest.raises(DiagnosticError) as info:
        parse_program(text, "p.ded")
    return [f"{d.line}:{d.col}: {d.message}" for d in info.value.diagnostics]


def test_localization_of_r2_is_a_chain_ending_at_the_body_that_names_no_other_node():
    program = parse_program(REACHABLE, "p.ded")
    assert [f"{r.label}: {rule_text(r, program.columns)}" for r in program.localized] == [
        "r1: reachable(#S, D) :- link(#S, D);",
        "r2-1: r2_aux(#Z, S) :- link(#S, Z);",
        "r2-2: reachable(#S, D) :- r2_aux(#Z, S), reachable(#Z, D);",
    ]
    assert program.base == {"link"} and program.auxiliary == {"r2_aux"}


def test_localization_of_three_locations_carries_only_the_variables_needed_later():
    program = parse_program("t(#A, D) :- e(#A, B), e(#B, C), e(#C, D);", "p.ded")
    texts = [rule_text(r, program.columns) for r in program.localized]
    assert texts == ["r1_aux1(#B, A) :- e(#A, B);", "r1_aux2(#C, A) :- r1_aux1(#B, A), e(#B, C);",
                     "t(#A, D) :- r1_aux2(#C, A), e(#C, D);"]


def test_a_body_whose_node_no_other_atom_names_cannot_be_localized():
    assert errors("h(#S) :- a(#S, X), b(#Z, X);") == [
        "1:20: r1: no other body atom names the node Z of 'b(#Z, X)', so no node can send it the bindings it needs "
        "(rule localization, psn2010 §2.2, needs the address: add an atom that relates Z to another body atom's node)"]


@pytest.mark.parametrize("text, expected", [
    ("p(#X) :- q(#X), not r(#X);", "1:17: the negation 'not r(#X)'"),
    ("p(#X, count<Y>) :- q(#X, Y);", "1:7: the aggregate 'count<Y>'"),
    ("p(#X)@next :- q(#X);", "1:1: this @next rule is not persistence"),
    ("p(#X, Y) :- q(#X, Y), Y != X;", "1:23: the comparison 'Y != X'"),
    ("m(#Y, X)@async :- q(#X, Y);", "1:1: 'm' is sent with @async but not persisted on arrival"),
    ("p(X) :- q(X).", "1:1: maintain reads tr2009's located notation"),
    ("p(#X, Y) :- q(#X);", "1:7: the variable 'Y' of the head of r1 occurs in no body atom"),
])
def test_what_is_not_ddlog_is_refused_with_its_place(text, expected):
    assert errors(text)[0].startswith(expected)


def test_simply_persisted_dedalus_reads_as_the_ddlog_program():
    dedalus = """link(#S, D)@next :- link(#S, D);
    reachable(#S, D) :- link(#S, D);
    reachable(#S, D)@next :- reachable(#S, D);
    hop(#Z, S)@async :- link(#S, Z);
    hop(#Z, S)@next :- hop(#Z, S);
    reachable(#S, D)@async :- hop(#Z, S), reachable(#Z, D);
    """
    program = parse_program(dedalus, "p.ded")
    e = base("link(a,b)", "link(b,c)")
    assert recompute(program, e).facts == recompute(parse_program(REACHABLE, "p.ded"), e).facts | {
        fact("hop(b,a)"), fact("hop(c,b)")}


def test_recompute_counts_derivations_and_marks_those_through_a_cycle_infinite():
    program = parse_program(REACHABLE, "p.ded")
    view = recompute(program, base("link(a,b)", "link(b,c)", "link(a,c)", "link(c,d)", "link(d,c)"))
    assert view.count(fact("reachable(a,b)")) == 1
    assert view.count(fact("reachable(a,c)")) is None  # a -> c -> d -> c -> ... : infinitely many
    assert view.count(fact("reachable(b,a)")) == 0
    dag = recompute(program, base("link(a,b)", "link(b,c)", "link(a,c)"))
    assert dag.count(fact("reachable(a,c)")) == 2 and not dag.infinite


def test_the_paper_two_and_three_hop_view_has_its_counts():
    # psn2010 §3.3: Hop = {(a,c), (a,c), (d,h), (b,h)}, Tri_hop = {(a,h), (a,h)}
    program = parse_program((EXAMPLES / "psn2010" / "hops.ddlog").read_text(), "hops.ddlog")
    view = recompute(program, base(*(f"link({x},{y})" for x, y in ["ab", "ad", "dc", "bc", "ch", "fg"])))
    hops = {str(f): c for f, c in view.counts.items() if f.relation != "link"}
    assert hops == {"hop(a, c)": 2, "hop(d, h)": 1, "hop(b, h)": 1, "tri_hop(a, h)": 2}


def test_updates_text_bursts_and_a_deletion_of_a_missing_fact_is_an_error_at_its_place():
    program = parse_program(REACHABLE, "p.ded")
    bursts = parse_updates("+link(a, b).\n-link(a, b).  % gone again\n---\n\n-link(a, b).\n", "u.txt", program)
    assert [[str(u) for u in b.updates] for b in bursts] == [["+link(a, b)", "-link(a, b)"], ["-link(a, b)"]]
    e = Base(Counter())
    e.apply(bursts[0])
    with pytest.raises(DiagnosticError) as info:
        e.apply(bursts[1])
    d = info.value.diagnostics[0]
    assert (d.line, d.col) == (5, 1) and "deletes 'link(a, b)', which is not in the view" in d.message


@pytest.mark.parametrize("line, expected", [
    ("+reachable(a, b).", "'reachable(a, b)' is a fact of 'reachable', which rules derive"),
    ("+link(a).", "'link(a)' has 1 arguments, but the program uses 'link' with 2"),
    ("link(a, b).", "expected one update a line"),
    ("+lnk(a, b).", "'lnk' is no relation of the program"),
])
def test_bad_update_lines(line, expected):
    with pytest.raises(DiagnosticError) as info:
        parse_updates("+link(a, b).\n" + line + "\n", "u.txt", parse_program(REACHABLE, "p.ded"))
    d = info.value.diagnostics[0]
    assert d.line == 2 and d.message.startswith(expected)


def test_updates_as_json_and_as_parquet_read_as_the_text_form(tmp_path):
    import json

    import pyarrow as pa
    import pyarrow.parquet as pq

    from dedalus2asp.maintain import read_updates

    program = parse_program(REACHABLE, "p.ded")
    text = tmp_path / "u.txt"
    text.write_text("+link(a, b).\n-link(c, 1).\n---\n+link(b, \"x y\").\n")
    document = tmp_path / "u.json"
    document.write_text(json.dumps({"bursts": [{"insert": {"link": [["a", "b"]]}, "delete": {"link": [["c", 1]]}},
                                               {"insert": {"link": [["b", "x y"]]}}]}))
    tables = tmp_path / "tables"
    tables.mkdir()
    pq.write_table(pa.table({"burst": [1, 1, 2], "op": ["+", "-", "+"], "a": ["a", "c", "b"], "b": ["b", "1", "x y"]}),
                   tables / "link.parquet")
    as_text = [sorted(map(str, b.updates)) for b in read_updates(text, program)]
    assert as_text == [["+link(a, b)", "-link(c, 1)"], ['+link(b, "x y")']]
    assert [sorted(map(str, b.updates)) for b in read_updates(document, program)] == as_text
    # a table's cells are strings: "1" is the number 1, as in `run`'s tables
    assert [sorted(map(str, b.updates)) for b in read_updates(tables, program)] == as_text
    pq.write_table(pa.table({"burst": [1], "op": ["x"], "a": ["a"], "b": ["b"]}), tables / "link.parquet")
    with pytest.raises(DiagnosticError) as info:
        read_updates(tables, program)
    assert "row 1: 'op' is 'x': '+' inserts, '-' deletes" in info.value.diagnostics[0].message


def test_every_program_of_the_repository_is_read_or_refused_with_diagnostics():
    """No program makes the DDlog reading fail otherwise (a nullary atom has no location column; an arity clash
    leaves an atom without one): `check` falls back on it for every program Dedalus refuses."""
    from conftest import ROOT

    from dedalus2asp.maintain import read_program

    read = refused = 0
    for path in sorted((ROOT / "tests" / "bad").glob("*.ded")) + sorted(EXAMPLES.rglob("*.ded")) + sorted(EXAMPLES.rglob("*.ddlog")):
        try:
            read_program(path)
            read += 1
        except DiagnosticError:
            refused += 1
    assert read >= 4 and refused > 50
    assert errors("p(A, #B) :- q(#A, B);\nr(#X) :- p(X);") == [
        "2:10: 'p' has 1 arguments here but 2 elsewhere: a relation has one arity"]


def test_recompute_matches_a_constant_of_a_body_atom_only_with_itself():
    """A fact is the first body atom's match only where it has the atom's constants (here `b` of `link(#S, b)`)."""
    program = parse_program("to_b(#S) :- link(#S, b);\nvia_b(#S, D) :- link(#S, b), link(#b, D);", "p.ded")
    view = recompute(program, base("link(a,b)", "link(a,c)", "link(b,d)", "link(c,d)"))
    assert {str(f) for f in view.facts if f.relation != "link"} == {"to_b(a)", "via_b(a, d)"}
