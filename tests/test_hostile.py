"""Hostile input (issue #20): what a fuzzing campaign found in the front end, each pinned by its reproducer.

Every reproducer is a user error: the command exits with status 2, prints a
`file:line:col: error:` line (or `file: error:` for a problem of the whole
file), nothing on standard output and no traceback, in bounded time and
memory. Before the fixes they gave a traceback (integers of more than 4,300
digits, a RecursionError in stratification or in the JSON decoder), ran out
of memory (`persist[p, 99999999999]`, `check /dev/zero`), merged or dropped
facts silently (JSON duplicate keys, nodes "1" and "01"), or let a file name
write statements into `convert`'s output.

How fast a large program is read, with and without errors, is measured by
`benchmarks/hostile.py`, not here.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import clingo
import pytest
from typer.testing import CliRunner

from dedalus2asp.cli import app
from dedalus2asp.lang import analysis, lexer, literals, parser
from dedalus2asp.lang.ast import Span, printable
from dedalus2asp.lang.diagnostics import MAX_SHOWN, Diagnostic, DiagnosticError, format_diagnostic, position
from dedalus2asp.lang.facts import parse_json
from dedalus2asp.lang.facts_json import MAX_JSON_DEPTH
from dedalus2asp.lang.parser import parse_program
from dedalus2asp.lang.statement import MAX_ARITY

BIG = "9" * 5000  # more digits than Python converts (4,300)
QUERY = "p(X) :- q(X).\n"


def cli(*args: str):
    """Run the command line in this process; an exception other than an exit is a failure of the test."""
    result = CliRunner().invoke(app, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def assert_user_error(result, file: Path | str, place: tuple[int, int] | None = None) -> str:
    """Exit status 2, nothing on stdout, no traceback, and an error about `file`: at line:col `place`,
    or about the whole file when `place` is None. Returns stderr."""
    err = result.stderr
    assert result.exit_code == 2, err
    assert result.stdout == ""
    assert "Traceback" not in err
    if place is None:
        assert any(line.startswith(f"{file}: error: ") for line in err.splitlines()), err
    else:
        assert any(line.startswith(f"{file}:{place[0]}:{place[1]}: error: ") for line in err.splitlines()), err
    return err


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# ---------------------------------------------------------------------------
# Integers of more than 4,300 digits, and event steps


@pytest.mark.parametrize(
    "program, input_name, input_text, where",
    [
        (f"p(X) :- q(X, {BIG}).\n", None, None, ("program", (1, 14))),
        ("p(X) :- q(X, Y).\n", "in.facts", f"a {{ q(1, {BIG}). }}\n", ("input", (1, 10))),
        ("p(X) :- q(X).\n", "in.facts", f"{BIG} {{ q(1). }}\n", ("input", (1, 1))),
        ("p(X) :- q(X).\n", "in.facts", f"a {{ q(1)@{BIG}. }}\n", ("input", (1, 9))),
        ("p(X) :- q(X).\n", "in.facts", "a { q(1)@1073741825. }\n", ("input", (1, 9))),
        (f"q(#a, 1)@{BIG}.\np(#L, X) :- q(#L, X).\n", None, None, ("program", (1, 9))),
        (f"persist[p, {BIG}].\n", None, None, ("program", (1, 12))),
        ("p(X) :- q(X).\n", "in.json", '{"nodes": {"a": {"q": [[%s]]}}}' % BIG, ("input", (1, 25))),
        ("p(X) :- q(X).\n", "in.json", '{"nodes": {"a": {"q@%s": [[1]]}}}' % BIG, ("input", None)),
        ("p(X) :- q(X).\n", "in.json", '{"nodes": {"%s": {"q": [[1]]}}}' % BIG, ("input", None)),
    ],
    ids=["program", "facts-value", "facts-node", "facts-event", "facts-event-beyond-max-step", "located-event",
         "persist-arity", "json-value", "json-event-key", "json-node-key"],
)
def test_a_long_integer_is_a_diagnostic(tmp_path, program, input_name, input_text, where):
    prog = write(tmp_path / "p.ded", program)
    args = ["compile", str(prog), "--horizon", "1"]
    if input_name is not None:
        args += ["--input", str(write(tmp_path / input_name, input_text))]
    which, place = where
    err = assert_user_error(cli(*args), prog if which == "program" else tmp_path / input_name, place)
    assert "out of range" in err or "too large" in err
    assert BIG not in err.splitlines()[0]  # the message quotes a long literal by its ends


def test_leading_zeros_do_not_count():
    program = parse_program(f"p(X) :- q(X, {'0' * 5000}7).\n")
    assert program.rules[0].body[0].atom.args[1].value == clingo.Number(7)


@pytest.mark.parametrize("token, value", [("2147483647", 2147483647), ("-2147483648", -2147483648), ("-0", 0),
                                          ("2147483648", None), ("-2147483649", None), ("9" * 11, None), (BIG, None)])
def test_bounded_int(token, value):
    assert literals.bounded_int(token, *literals.INT_RANGE) == value


# ---------------------------------------------------------------------------
# persist[p, k]: a few bytes asking for billions of variables


def test_a_huge_persist_arity_is_a_diagnostic(tmp_path):
    prog = write(tmp_path / "persist.ded", "persist[p, 99999999999].")  # 7.9 GB, then MemoryError, before
    err = assert_user_error(cli("check", str(prog)), prog, (1, 12))
    assert f"at most {MAX_ARITY}" in err


def test_persist_arity_bound():
    assert parse_program(f"persist[p, {MAX_ARITY}].").rules[0].head.arity == MAX_ARITY
    with pytest.raises(DiagnosticError, match="too large"):
        parse_program(f"persist[p, {MAX_ARITY + 1}].")
    with pytest.raises(DiagnosticError, match="is negative"):
        parse_program("persist[p, -3].")


# ---------------------------------------------------------------------------
# Recursion over the size of a program


def test_a_long_chain_of_deductive_rules_is_stratified(tmp_path):
    # p0 :- p1, p1 :- p2, ...: the depth-first search of stratification goes 1,200 deep
    text = "".join(f"p{i}(X) :- p{i + 1}(X).\n" for i in range(1200)) + "p1200(X) :- q(X).\n" + "r(X) :- q(X), not p0(X).\n"
    prog = write(tmp_path / "chain.ded", text)
    result = cli("check", str(prog))
    assert result.exit_code == 0, result.stderr
    strata = analysis.report(parse_program(text)).strata
    assert len(strata) == 2 and strata[1] == ("r",)


def test_strongly_connected_components_of_a_deep_graph():
    n = 100_000
    succ = {f"v{i}": [f"v{i + 1}"] for i in range(n)}
    succ[f"v{n}"] = ["v0"]  # one cycle through every vertex
    comps = analysis.strongly_connected([f"v{i}" for i in range(n + 1)], succ)
    assert len(comps) == 1 and len(comps[0]) == n + 1
    chain = {f"v{i}": [f"v{i + 1}"] for i in range(n)}
    comps = analysis.strongly_connected([f"v{i}" for i in range(n + 1)], chain)
    assert comps == [[f"v{i}"] for i in range(n, -1, -1)]  # reverse topological: dependencies first


def test_a_cycle_through_negation_in_a_long_chain_is_reported():
    text = "".join(f"p{i}(X) :- p{i + 1}(X), q(X).\n" for i in range(1500)) + "p1500(X) :- q(X), not p0(X).\n"
    with pytest.raises(DiagnosticError) as caught:
        analysis.check(parse_program(text))
    (diag,) = caught.value.diagnostics
    assert diag.code == "not-stratifiable" and "p1500 → p0" in diag.message


def test_includes_are_bounded(tmp_path):
    # each file includes the next twice: 2^12 reads without a bound
    for i in range(12):
        write(tmp_path / f"f{i}.ded", f'include "f{i + 1}.ded";\ninclude "f{i + 1}.ded";\n')
    write(tmp_path / "f12.ded", "p(#L, X) :- q(#L, X).\n")
    result = cli("check", str(tmp_path / "f0.ded"))
    assert result.exit_code == 2 and result.stdout == "" and "Traceback" not in result.stderr
    first = result.stderr.splitlines()[0]
    assert re.match(rf"{re.escape(str(tmp_path))}/f\d+\.ded:\d+:1: error: 'f\d+\.ded' is not read: the program has "
                    rf"included {parser.MAX_INCLUDES} files already", first), first


def test_a_deep_chain_of_includes_is_read(tmp_path):
    for i in range(200):
        write(tmp_path / f"f{i}.ded", f'include "f{i + 1}.ded";\n')
    write(tmp_path / "f200.ded", "p(#L, X) :- q(#L, X).\n")
    result = cli("check", str(tmp_path / "f0.ded"))
    assert result.exit_code == 0, result.stderr


# ---------------------------------------------------------------------------
# JSON: depth, duplicate keys, node names


def test_deep_json_is_a_diagnostic_with_its_place(tmp_path):
    prog = write(tmp_path / "p.ded", QUERY)
    data = write(tmp_path / "deep.json", "[" * 2000 + "]" * 2000)
    assert_user_error(cli("compile", str(prog), "-i", str(data), "-T", "1"), data, (1, MAX_JSON_DEPTH + 1))


def test_brackets_in_strings_do_not_nest():
    text = '{"nodes": {"a": {"q": [["%s"]]}}}' % ("[" * 1000)
    assert parse_json(text).facts[clingo.Function("a")][0].args == (clingo.String("[" * 1000),)


@pytest.mark.parametrize(
    "text, message",
    [
        ('{"nodes": {"a": {"q": [[1]]}, "a": {"q": [[2]]}}}', "node 'a' is given twice"),
        ('{"nodes": {"a": {"q": [[1]], "q": [[2]]}}}', "node 'a', relation 'q': given twice"),
        ('{"nodes": {"a": {}}, "nodes": {"b": {}}}', "'nodes' is given twice at the top level"),
    ],
    ids=["node", "relation", "top"],
)
def test_a_json_key_given_twice_is_an_error(tmp_path, text, message):
    prog = write(tmp_path / "p.ded", QUERY)
    data = write(tmp_path / "dup.json", text)
    assert message in assert_user_error(cli("compile", str(prog), "-i", str(data), "-T", "0"), data)


def test_a_located_json_key_given_twice_is_an_error():
    with pytest.raises(DiagnosticError, match="'\"facts\"', relation 'q': given twice|relation 'q': given twice"):
        parse_json('{"facts": {"q": [["a", 1]], "q": [["a", 2]]}}', columns={"q": 0})


def test_node_keys_1_and_01_are_two_nodes():
    instance = parse_json('{"nodes": {"1": {"q": [[1]]}, "01": {"q": [[2]]}, "-0": {}, "-7": {}}}')
    assert set(instance.facts) == {clingo.Number(1), clingo.String("01"), clingo.String("-0"), clingo.Number(-7)}
    assert instance.facts[clingo.Number(1)][0].args == (clingo.Number(1),)
    assert instance.facts[clingo.String("01")][0].args == (clingo.Number(2),)


def test_a_located_value_names_the_node_of_the_same_key():
    instance = parse_json('{"facts": {"q": [["01", 5]]}, "nodes": {"01": {}}}', columns={"q": 0})
    assert set(instance.facts) == {clingo.String("01")}


# ---------------------------------------------------------------------------
# Files that are too large or are not text


def test_dev_zero_is_refused(tmp_path):
    err = assert_user_error(cli("check", "/dev/zero"), "/dev/zero")
    assert "larger than 64 MiB" in err


def test_a_large_file_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(lexer, "MAX_SOURCE_BYTES", 1000)
    prog = write(tmp_path / "big.ded", QUERY * 100)
    assert "larger than 0 MiB" in assert_user_error(cli("check", str(prog)), prog)
    monkeypatch.setattr(lexer, "MAX_SOURCE_BYTES", 2000)
    assert parse_program(lexer.read_text(prog, "program")).rules


@pytest.mark.parametrize("data, place", [(b"p(X) :- q(X).\nr(\x00).\n", (2, 3)), (b"p(X) :- q(\xff).\n", (1, 11))])
def test_a_file_that_is_not_text_is_refused(tmp_path, data, place):
    prog = tmp_path / "bin.ded"
    prog.write_bytes(data)
    assert_user_error(cli("check", str(prog)), prog, place)


# ---------------------------------------------------------------------------
# Error recovery: right places, at most MAX_ERRORS per file


def test_positions_after_lexical_errors_are_right():
    lines = [f"p{i}(X) :- q(X, {i})." for i in range(50)]
    text = "\n".join(("~ " if i % 7 == 3 else "") + line + (" ;" if i % 11 == 5 else "") for i, line in enumerate(lines))
    with pytest.raises(DiagnosticError) as caught:
        parse_program(text)
    assert len(caught.value.diagnostics) == 7 + 5  # every "~" and every ";"
    for diag in caught.value.diagnostics:
        line_start = sum(len(line) + 1 for line in text.split("\n")[: diag.line - 1])
        assert text[line_start + diag.col - 1] in "~;", diag


def test_many_errors_stop_after_max_errors(tmp_path):
    prog = write(tmp_path / "many.ded", "~\n" * 1000 + QUERY)
    err = assert_user_error(cli("check", str(prog)), prog, (1, 1))
    assert err.count(": error: ") == lexer.MAX_ERRORS
    assert f"{prog}:{lexer.MAX_ERRORS + 1}:1: note: too many errors" in err


@pytest.mark.parametrize("text", [". " * 1000, "p(X) :- . " * 1000])
def test_many_syntax_errors_stop_after_max_errors(text):
    with pytest.raises(DiagnosticError) as caught:
        parse_program(text)
    assert sum(d.is_error for d in caught.value.diagnostics) == lexer.MAX_ERRORS
    assert caught.value.diagnostics[-1].code == "too-many-errors"


def test_many_semicolons_in_values_stop_after_max_errors(tmp_path):
    prog = write(tmp_path / "p.ded", QUERY)
    data = write(tmp_path / "in.facts", "a { q(" + ";" * 5000 + "). }\n")
    err = assert_user_error(cli("compile", str(prog), "-i", str(data), "-T", "0"), data, (1, 7))
    assert err.count(": error: ") <= 2 * lexer.MAX_ERRORS and "too many errors" in err


def test_line_starts_and_positions():
    text = "ab\n\ncd\n"
    assert [position(text, i) for i in range(len(text) + 1)] == [
        (1, 1), (1, 2), (1, 3), (2, 1), (3, 1), (3, 2), (3, 3), (4, 1)
    ]


# ---------------------------------------------------------------------------
# Injection through convert, and diagnostics that stay on their lines


def test_a_file_name_with_a_line_break_adds_no_rule(tmp_path):
    name = tmp_path / "z\nmarked(#L, U) :- R(#L, U, _V).\n%.ded"
    write(name, "p(#L, X) :- q(#L, X).\n")
    result = cli("convert", str(name))
    assert result.exit_code == 0, result.stderr
    assert [str(r) for r in parse_program(result.stdout).rules] == ["p(X) :- q(X)."]
    assert result.stdout.splitlines()[0].startswith("% ") and "\\n" in result.stdout.splitlines()[0]


def test_a_transparent_file_name_with_a_line_break_adds_no_rule(tmp_path):
    name = tmp_path / "z\nmarked(X) :- p(X).\n%.ded"
    write(name, "p(X) :- q(X).\n")
    result = cli("convert", str(name))
    assert result.exit_code == 0, result.stderr
    located = parser.parse_source(result.stdout, dialect="located")
    assert [str(r) for r in located.program.rules] == ["p(X) :- q(X)."]


def test_an_include_name_with_a_line_break_stays_in_its_comment(tmp_path):
    include = 'a\n#script (python)\nimport os\n#end.\n%'
    write(tmp_path / include, "r(#L, X) :- q(#L, X).\n")
    prog = write(tmp_path / "main.ded", 'include "a\\n#script (python)\\nimport os\\n#end.\\n%";\np(#L, X) :- r(#L, X).\n')
    result = cli("convert", str(prog))
    assert result.exit_code == 0, result.stderr
    assert not any(line.startswith("#") for line in result.stdout.splitlines())
    assert [str(r) for r in parse_program(result.stdout).rules] == ["r(X) :- q(X).", "p(X) :- r(X)."]
    control = clingo.Control()
    control.add("base", [], result.stdout)  # no #script: clingo reads comments and two rules


def test_an_include_name_with_a_line_break_does_not_split_its_diagnostic(tmp_path):
    prog = write(tmp_path / "missing.ded", 'include "nope\\nfile:1:1: error: fake";\np(#L, X) :- q(#L, X).\n')
    err = assert_user_error(cli("check", str(prog)), prog, (1, 1))
    lines = err.splitlines()
    assert lines[0].startswith(f"{prog}:1:1: error: cannot read included file 'nope\\nfile:1:1: error: fake': there is no ")
    assert lines[1].startswith("    include") and lines[2].strip().startswith("^")


def test_a_diagnostic_escapes_its_file_name_and_shows_control_characters():
    diag = Diagnostic("syntax", "bad", Span(1, 3, 1, 4), "a\nb\x1b[31m", "p(\x1b~).")
    first, source, caret = format_diagnostic(diag).split("\n")
    assert first == "a\\nb\\x1b[31m:1:3: error: bad"
    assert source == "    p(\ufffd~)." and caret == "      ^"
    assert printable("a\u2028b\tc") == "a\\u2028b\\tc"


def test_a_long_source_line_is_shown_around_its_caret():
    text = "p(X) :- q(X, " + "1, " * 5000 + "~)."
    diag = Diagnostic("syntax", "bad", Span(1, text.index("~") + 1, 1, text.index("~") + 2), "f", text)
    _, source, caret = format_diagnostic(diag).split("\n")
    assert len(source) <= MAX_SHOWN + 6
    assert source[caret.index("^")] == "~"


def test_convert_output_of_every_shipped_located_program_reads_back():
    for path in sorted(Path(__file__).resolve().parent.parent.glob("examples/**/*.ded")):
        source = parser.load_source(path)
        if isinstance(source, parser.LocatedProgram):
            from dedalus2asp.lang.convert import transparent_text

            if source.program.global_relations() or any(  # a global rule, an atom at a fixed step: no transparent notation
                    b.step is not None for r in source.program.rules for b in r.body if hasattr(b, "step")):
                with pytest.raises(ValueError, match="cannot write it"):  # an error that says so
                    transparent_text(source)
                continue
            assert len(parse_program(transparent_text(source)).rules) == len(source.program.rules)


def test_json_messages_quote_long_values_by_their_ends():
    text = json.dumps({"nodes": {"a": {"q": [[list(range(5000))]]}}})
    with pytest.raises(DiagnosticError) as caught:
        parse_json(text)
    assert len(str(caught.value)) < 400
    assert re.search(r"a value must be a string or an integer, not \[0, 1, 2", str(caught.value))


def test_top_level_facts_do_not_multiply_without_bound(tmp_path):
    # 5,000 top-level facts and 5,000 empty blocks: 25 million facts, from 45 kB
    prog = write(tmp_path / "p.ded", QUERY)
    data = write(tmp_path / "in.facts", "".join(f"q({i}).\n" for i in range(5000)) + "".join(f"n{i} {{ }}\n" for i in range(5000)))
    err = assert_user_error(cli("compile", str(prog), "-i", str(data), "-T", "0"), data)
    assert "more than 10,000,000 facts" in err


def test_a_rule_with_thousands_of_literals_is_checked():
    # each literal's dependency edge used to hash the whole rule: quadratic (5,000 literals: 30 s)
    text = "p(X) :- r(X), " + "p(X), " * 5000 + "not p(X)."
    with pytest.raises(DiagnosticError) as caught:
        analysis.check(parse_program(text))
    assert [d.code for d in caught.value.diagnostics] == ["not-stratifiable"]


def test_a_statement_of_more_than_max_statement_tokens_is_refused(tmp_path):
    # a 6 MB rule of a million body atoms took 168 s and 4.4 GB
    prog = write(tmp_path / "long.ded", "p(X) :- " + "q(X), " * 30_000 + "r(X).\nok(X) :- q(X).\n")
    err = assert_user_error(cli("check", str(prog)), prog, (1, 1))
    assert f"more than {lexer.MAX_STATEMENT_TOKENS:,} tokens" in err and err.count(": error: ") == 1
    data = write(tmp_path / "long.facts", "a { q(" + "1, " * 60_000 + "1). r(1). }\n")
    err = assert_user_error(cli("compile", str(write(tmp_path / "p.ded", QUERY)), "-i", str(data), "-T", "0"), data, (1, 5))
    assert f"more than {lexer.MAX_STATEMENT_TOKENS:,} tokens" in err


# ---------------------------------------------------------------------------
# The command line: bad option values, internal errors, Ctrl-C

EX1 = Path(__file__).resolve().parent.parent / "examples/tplp2016/ex1_reachability"
PROGRAM_AND_INPUT = [str(EX1.with_suffix(".ded")), "--input", str(EX1.with_suffix(".facts"))]

BAD_OPTIONS = [  # (command, extra arguments, the option the error must name)
    ("compile", ["-T", "x"], "--horizon"),
    ("compile", ["-T", "-1"], "--horizon"),
    ("compile", ["-T", ""], "--horizon"),
    ("compile", ["-T", "99999999999"], "--horizon"),
    ("compile", ["-T", "1.5"], "--horizon"),
    ("compile", ["-T", "1", "-D", "-1"], "--max-delay"),
    ("compile", ["-T", "1", "--semantics", "foo"], "--semantics"),
    ("compile", ["-T", "1", "--encoding", "nope"], "--encoding"),
    ("compile", ["-T", "1", "--dialect", "prolog"], "--dialect"),
    ("models", ["-T", "1", "-n", "-1"], "--models"),
    ("models", ["-T", "1", "-n", "2147483648"], "--models"),
    ("models", ["-T", "1", "--format", "nope"], "--format"),
    ("models", ["-T", "1", "--timeout", "abc"], "--timeout"),
    ("models", ["-T", "1", "--timeout", "-1"], "--timeout"),
    ("models", ["-T", "1", "--timeout", "nan"], "--timeout"),
    ("models", ["-T", "1", "--timeout", "inf"], "--timeout"),
    ("models", ["-T", "1", "--max-ground", "-5"], "--max-ground"),
    ("models", ["-T", "1", "--max-memory", "lots"], "--max-memory"),
    ("models", ["-T", "1", "--max-memory", "1K"], "--max-memory"),
    ("models", ["-T", "1", "--bogus"], "--bogus"),
    ("models", ["-T", "1", "-n"], "-n"),
    ("models", [], "--horizon"),
    ("report", ["-T", "1", "-n", "2147483648", "-o", "r.html"], "--models"),
    ("replay", ["-T", "1", "--model", "2147483648"], "--model"),
    ("replay", ["-T", "1", "--model", "0"], "--model"),
    ("explain", ["-T", "1", "--model", "2147483648", "--fact", "covered()", "--at", "a:1"], "--model"),
    ("count", ["-T", "1", "--split", "1000000000"], "--split"),
    ("count", ["-T", "1", "--split", "0"], "--split"),
    ("count", ["-T", "1", "--traces-only=maybe"], "--traces-only"),
    ("explore", ["-T", "1", "--max-states", "0"], "--max-states"),
    ("cron", ["-T", "1", "--encoding", "x"], "--encoding"),
    ("nosuchcommand", [], "nosuchcommand"),
]


@pytest.mark.parametrize("command, extra, option", BAD_OPTIONS, ids=[f"{c}{''.join(e)}" for c, e, _ in BAD_OPTIONS])
def test_a_bad_option_value_is_a_command_line_diagnostic(command, extra, option):
    args = [command] if command == "nosuchcommand" else [command, *PROGRAM_AND_INPUT]
    result = cli(*args, *extra)
    err = result.stderr
    assert result.exit_code == 2 and result.stdout == "", err
    first = err.splitlines()[0]
    assert re.match(r"(<command line>|--[a-z-]+): error: ", first), err
    assert option in first, err
    assert "╭" not in err and "Traceback" not in err and "Usage:" not in err


def test_option_errors_name_what_is_accepted():
    err = cli("compile", *PROGRAM_AND_INPUT, "-T", "1", "--semantics", "foo").stderr
    assert "'choice', 'causal', 'causal-finite'" in err
    err = cli("compile", *PROGRAM_AND_INPUT, "-T", "99999999999").stderr
    assert "1073741824" in err
    err = cli("models", *PROGRAM_AND_INPUT, "-T", "1", "--max-memory", "1K").stderr
    assert "2G" in err and "64M" in err


def test_an_unexpected_exception_is_an_internal_error_of_one_line(monkeypatch):
    from dedalus2asp.asp import transform

    def broken(*args, **kwargs):
        raise ValueError("a bug\nof ours")

    monkeypatch.setattr(transform, "transform", broken)
    result = cli("compile", *PROGRAM_AND_INPUT, "-T", "1")
    assert result.exit_code == 70 and result.stdout == ""
    assert result.stderr == ("dedalus2asp: internal error: ValueError: a bug of ours "
                             "(please report it: run again with --debug for the trace)\n")
    debug = cli("--debug", "compile", *PROGRAM_AND_INPUT, "-T", "1")
    assert debug.exit_code == 70 and "Traceback" in debug.stderr and 'raise ValueError("a bug' in debug.stderr
    assert debug.stderr.rstrip().endswith("(please report it: run again with --debug for the trace)")


def test_ctrl_c_exits_130_without_a_trace(monkeypatch):
    from dedalus2asp.asp import solve

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(solve, "enumerate_models", interrupted)
    result = cli("models", *PROGRAM_AND_INPUT, "-T", "1")
    assert result.exit_code == 130 and result.stderr == "interrupted\n" and result.stdout == ""


# ---------------------------------------------------------------------------
# Bounded work: the grounding budget, --timeout through grounding, --max-memory


def blow_up(tmp_path: Path, facts: int) -> list[str]:
    """p(A,B,C,D) :- r(A), r(B), r(C), r(D). over `facts` facts of r: facts^4 instances per step."""
    prog = write(tmp_path / "blow.ded", "p(A,B,C,D) :- r(A), r(B), r(C), r(D).\n")
    data = write(tmp_path / "blow.facts", "a { " + " ".join(f"r({i})." for i in range(facts)) + " }\n")
    return [str(prog), "--input", str(data)]


@pytest.mark.parametrize("command", ["models", "count", "replay", "cron"])
def test_the_grounding_budget_refuses_a_blow_up_with_the_rule_to_blame(tmp_path, command):
    # 60 facts: 142 s and 5.2 GB of grounding before the budget
    args = blow_up(tmp_path, 60)
    start = time.process_time()  # CPU time: the machine may be loaded
    result = cli(command, *args, "-T", "1", *(["--output-relations", "p"] if command == "cron" else []))
    assert time.process_time() - start < 1.0
    err = assert_user_error(result, tmp_path / "blow.ded", (1, 1))
    assert "12,960,000 valuation(s) of its body" in err and "--max-ground" in err


def test_the_grounding_budget_refuses_a_long_horizon_with_the_asynchronous_rule_to_blame():
    # count -T 100000 on tplp2016 Example 1: 8 GB in 88 s before the budget
    start = time.process_time()
    result = cli("count", *PROGRAM_AND_INPUT, "-T", "100000", "--timeout", "5")
    assert time.process_time() - start < 1.0
    err = assert_user_error(result, EX1.with_suffix(".ded"), (31, 1))
    assert "marked(U)@async(Y)" in err and "candidate arrival step(s)" in err and "bound --max-delay" in err


def test_the_paper_encoding_of_happens_before_is_blamed_on_the_command_line():
    result = cli("count", *PROGRAM_AND_INPUT, "-T", "400", "-D", "1", "--encoding", "paper")
    err = assert_user_error(result, "<command line>")
    assert "transitivity of happens-before" in err and "--encoding fast" in err


def test_max_ground_0_is_no_limit_and_a_small_one_refuses_anything():
    assert cli("count", *PROGRAM_AND_INPUT, "-T", "1", "--max-ground", "0").exit_code == 0
    result = cli("count", *PROGRAM_AND_INPUT, "-T", "1", "--max-ground", "10")
    assert result.exit_code == 2 and "above the budget of 10 (--max-ground N; 0: no limit)" in result.stderr


def _shipped_questions():
    """Every shipped example program with each of its inputs (or the facts it carries)."""
    root = Path(__file__).resolve().parent.parent / "examples"
    for program in sorted(root.rglob("*.ded")):
        stem = str(program.with_suffix(""))
        inputs = sorted(Path(p) for p in {*map(str, root.rglob("*.facts")), *map(str, root.rglob("*.json"))}
                        if p.startswith(stem))
        yield from ((program, data) for data in inputs or [None])


def test_no_shipped_example_is_refused_under_the_default_budget():
    from dedalus2asp import pipeline
    from dedalus2asp.asp import budget
    from dedalus2asp.bounds import Bounds, Encoding, Network, Semantics

    estimated = 0
    for program, data in _shipped_questions():
        try:
            prog, instance, _ = pipeline.load(program, data)
        except DiagnosticError:
            continue  # a program that needs another input, or one still being written
        for horizon in (1, 3, 5, 10):
            for semantics in Semantics:
                for encoding in Encoding:
                    for delay in (None, 1):
                        bounds = Bounds(horizon, semantics, encoding, Network(max_delay=delay))
                        total = budget.check(prog, instance, bounds, budget.DEFAULT_MAX_GROUND).total
                        assert total < budget.DEFAULT_MAX_GROUND / 10, (program, data, bounds)
        estimated += 1
    assert estimated >= 20


def test_the_estimate_counts_the_new_constructs():
    from dedalus2asp.asp import budget
    from dedalus2asp.bounds import Bounds, Encoding, Network, Semantics

    text = ("vote(#L, V) :- ballot(#L, V).\ntally(#L, count<V>) :- vote(#L, V).\nnext(#L, N + 1) :- tally(#L, N), N < 5.\n"
            "early(#L, V) :- ballot(#L, V)@0.\npost(\"t\", X) :- vote(A1, X), vote(A2, X), A1 != A2;\n"
            "ballot(#a, 1)@0.\nballot(#b, 2)@0.\n")
    source = parser.parse_source(text, "located")
    prog, instance = source.program, source.instance(None)
    assert [r.kind.value for r in prog.rules][-1] == "global"
    bounds = Bounds(4, Semantics.CAUSAL, Encoding.FAST, Network())
    found = budget.estimate(prog, instance, bounds)
    assert budget.domain(prog, instance, bounds) >= 2 * 5  # two computed head arguments, 5 steps each
    post = next(p for p in found.parts if p.rule is not None and p.rule.kind.value == "global")
    # ballot is an event at step 0 that no rule carries, so vote holds at step 0 only: there, vote at 2 nodes
    # (A1, X), then vote(A2, X) with X bound, 1/2 of its 2 rows (X takes 2 values): 2 valuations in the run
    assert post.size == 2 * 1 and "0.4 valuation(s) of its body over all nodes × 5 step(s)" in post.what


def test_timeout_kills_the_solver_while_it_grounds(tmp_path):
    # 40^4 = 2.6 million instances a step, over the budget's check with --max-ground 0: grounding takes
    # far longer than the timeout, and clingo cannot interrupt it
    args = blow_up(tmp_path, 40)
    start = time.perf_counter()
    result = cli("count", *args, "-T", "1", "--max-ground", "0", "--timeout", "1")
    assert time.perf_counter() - start < 1 + 10  # the grace of asp.solve.isolated, and a loaded machine
    assert result.exit_code == 3 and result.stdout == "", result.stderr
    assert result.stderr.startswith("timeout: stopped after 1 s, before an answer: clingo was still grounding")


def test_max_memory_turns_running_out_of_memory_into_exit_3(tmp_path):
    args = blow_up(tmp_path, 40)
    result = cli("models", *args, "-T", "1", "--max-ground", "0", "--max-memory", "256M")
    assert result.exit_code == 3 and result.stdout == "", result.stderr
    assert result.stderr.startswith("out of memory: the solver needed more than --max-memory 256M")


def test_the_answer_is_the_same_in_the_solvers_process():
    plain = cli("count", *PROGRAM_AND_INPUT, "-T", "2", "--json")
    bounded = cli("count", *PROGRAM_AND_INPUT, "-T", "2", "--json", "--timeout", "60", "--max-memory", "2G")
    strip = lambda out: {k: v for k, v in json.loads(out).items() if k != "seconds"}  # noqa: E731
    assert plain.exit_code == bounded.exit_code == 0 and strip(plain.stdout) == strip(bounded.stdout)
    models = cli("models", *PROGRAM_AND_INPUT, "-T", "1", "--json", "--timeout", "60")
    assert models.exit_code == 0 and models.stdout == cli("models", *PROGRAM_AND_INPUT, "-T", "1", "--json").stdout


def test_check_prints_a_file_name_with_a_line_break_on_one_line(tmp_path):
    prog = write(tmp_path / "a\nmarked(X) :- q(X).\n.ded", QUERY)
    result = cli("check", str(prog))
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0] == f"{printable(str(prog))}: 1 rule(s), well formed"


def _raises(error: Exception, timeout=None):
    raise error


class Unpicklable(Exception):
    """An exception that cannot be rebuilt from its arguments (its message): it does not survive pickling."""

    def __init__(self, code: str, message: str):
        super().__init__(f"{code}: {message}")


def test_what_the_solvers_process_raises_is_raised_again():
    from dedalus2asp.asp import solve
    from dedalus2asp.lang.diagnostics import Diagnostic

    with pytest.raises(solve.SolveError, match="parsing failed"):
        solve.isolated(_raises, solve.SolveError("parsing failed"), timeout=30)
    # a diagnostic (an input event beyond the horizon, found as the program is written) comes back as itself
    with pytest.raises(DiagnosticError, match="an error") as raised:
        solve.isolated(_raises, DiagnosticError([Diagnostic("x", "an error")]), timeout=30, max_memory=2**31)
    assert [d.code for d in raised.value.diagnostics] == ["x"]
    # an exception that does not survive pickling comes back as a RuntimeError that says what it was
    with pytest.raises(RuntimeError, match="Unpicklable: x: an error"):
        solve.isolated(_raises, Unpicklable("x", "an error"), timeout=30, max_memory=2**31)


def test_a_hostile_value_stays_data_in_every_document(tmp_path):
    """A string value that is markup in SVG/HTML and a quote in DOT: each writer escapes it for its language."""
    import xml.dom.minidom
    from html.parser import HTMLParser

    program = tmp_path / "h.ded"
    program.write_text("msg(X)@async(Y) :- say(X), peer(Y).\ngot(X) :- msg(X).\n")
    data = tmp_path / "h.facts"
    data.write_text('a { say("</text><script>alert(1)</script>\\" & \'"). peer(b). }\nb { }\n')
    common = (str(program), "-i", str(data), "-T", "1", "-D", "1", "-n", "1", "--format")
    svg = cli("models", *common, "svg")
    assert svg.exit_code == 0, svg.stderr
    document = xml.dom.minidom.parseString(svg.stdout)
    assert not document.getElementsByTagName("script")
    assert any("alert(1)" in t.data for t in _texts(document))  # shown, as text

    class Tags(HTMLParser):
        def __init__(self):
            super().__init__()
            self.tags = []

        def handle_starttag(self, tag, attrs):
            self.tags.append(tag)

    page = cli("models", *common, "html")
    assert page.exit_code == 0, page.stderr
    tags = Tags()
    tags.feed(page.stdout)
    assert "script" not in tags.tags and "alert(1)" in page.stdout
    dot = cli("models", *common, "dot")
    assert dot.exit_code == 0, dot.stderr
    assert '[label="msg(\\"</text><script>alert(1)</script>\\\\\\" & \'\\")"]' in dot.stdout


def _texts(node):
    for child in node.childNodes:
        if child.nodeType == child.TEXT_NODE:
            yield child
        else:
            yield from _texts(child)


def _fresh_symbols(timeout=None):
    """Symbols that exist only in the process that makes them: a name never seen before, a string, a tuple."""
    import uuid

    import clingo

    name = "fresh_" + uuid.uuid4().hex
    return [clingo.Function(name, [clingo.String('a"b\\c\nd'), clingo.Tuple_([clingo.Number(-3), clingo.Function("g", [], False)])])]


def test_a_symbol_made_in_the_solvers_process_arrives_as_itself():
    """A clingo symbol pickles as a pointer into its own process's symbol table unless the package says otherwise:
    a counterexample made in the forked solver would come back as garbage, or crash its reader."""
    import pickle

    from dedalus2asp.asp import solve

    (symbol,) = solve.isolated(_fresh_symbols, timeout=30)
    assert symbol.name.startswith("fresh_") and len(symbol.name) == 38
    assert str(symbol.arguments[0]) == '"a\\"b\\\\c\\nd"' and str(symbol.arguments[1]) == "(-3,-g)"
    assert pickle.loads(pickle.dumps(symbol)) == symbol


def test_a_program_the_estimate_overrates_is_counted_not_refused():
    """Above the budget, clingo grounds the program for at most `budget.PROBE_SECONDS` in a process of its own:
    what it grounds within the budget is counted and answered (Molly's Paxos model: 10,238 rules where the
    estimate said millions), what it does not is refused as before."""
    from dedalus2asp import pipeline
    from dedalus2asp.asp import budget
    from dedalus2asp.bounds import Bounds

    program, instance, _ = pipeline.load(EX1.with_suffix(".ded"), EX1.with_suffix(".facts"))
    estimated = budget.estimate(program, instance, Bounds(1)).total
    ground = budget.measured(program, instance, Bounds(1))
    assert ground is not None and ground < 100 < estimated
    assert cli("count", *PROGRAM_AND_INPUT, "-T", "1", "--max-ground", "100").exit_code == 0
    result = cli("count", *PROGRAM_AND_INPUT, "-T", "1", "--max-ground", str(ground - 1))
    assert result.exit_code == 2 and "above the budget" in result.stderr


def test_the_estimate_counts_nodes_once_and_aggregates_by_their_groups():
    """`--nodes` names the input already has add no node; a count, a min or a max takes no more values than the
    column it aggregates, and a relation carried unchanged to the next step is as large as what makes it."""
    from dedalus2asp.asp import budget
    from dedalus2asp.bounds import Bounds, Network
    from dedalus2asp.lang.facts import parse_facts

    text = ("votes(V) :- ballot(V).\nvotes(V)@next :- votes(V).\nn(count<V>) :- votes(V).\nbest(max<V>) :- votes(V).\n"
            "both(V, N, B) :- votes(V), n(N), best(B).\n")
    program = parser.parse_program(text, "v.ded")
    instance = parse_facts("a { ballot(1). ballot(2). ballot(3). }\nb { }\n", "v.facts")
    plain = budget.estimate(program, instance, Bounds(3))
    assert budget.estimate(program, instance, Bounds(3, network=Network(nodes=("a", "b")))).total == plain.total
    assert budget.estimate(program, instance, Bounds(3, network=Network(nodes=("a", "b", "c")))).total > plain.total
    values = budget.columns(program, instance, budget.domain(program, instance, Bounds(3)), 2)
    assert values[("n", 0)] == values[("best", 0)] == values[("votes", 0)] == 3
    both = next(p for p in plain.parts if p.rule is not None and p.rule.head.predicate == "both")
    assert both.size == 3 * 2 * 4  # three votes, one count and one best per node and step: 3 × 2 nodes × 4 steps
