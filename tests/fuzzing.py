"""Hypothesis strategies for hostile input (issue #20), used by tests/test_fuzz.py.

Four kinds of input, each drawn three ways:

* programs: token soup (Dedalus's tokens, its near misses and stray
  characters, in any order), mutations of the shipped examples (a span
  deleted, duplicated or moved, a token inserted, a character replaced, the
  text cut short), and grammar-valid oddities (names that collide with the
  generated program's, the edges of clingo's integers, escapes, long bodies,
  `persist` of any arity, messages to oneself);
* `.facts` inputs: token soup, mutations, and well-formed blocks with odd
  node names, values and events;
* JSON inputs: any JSON value, inputs of the right shape with odd keys and
  values, and textual mutations (cut short, a key repeated, deep nesting);
* batch manifests (TOML): valid ones, mutated ones, and keys of every type.

Everything is text (or bytes, for the few inputs that must not be UTF-8):
tests/test_fuzz.py writes it to a file and runs the command line on it.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
EXAMPLE_PROGRAMS = sorted(EXAMPLES.glob("**/*.ded"))
EXAMPLE_FACTS = sorted(EXAMPLES.glob("**/*.facts"))

HUGE = "9" * 4400  # more digits than Python converts

# ---------------------------------------------------------------------------
# Pieces of text

NAMES = ["p", "q", "r", "node", "id", "all", "time", "tsucc", "arrival", "cand_p", "u_p", "not", "notin", "persist",
         "include", "a", "b", "c", "x1", "pending", "_output"]
VARIABLES = ["X", "Y", "Z", "_", "_X", "L", "S", "T", "X0", "Me"]
INTEGERS = ["0", "1", "-1", "42", "2147483647", "-2147483648", "2147483648", "-2147483649", "007", "-0", HUGE]
STRINGS = ['"s"', '""', '"a b"', '"a\\nb"', '"q\\"uote"', '"back\\\\slash"', '"\\q"', '"tab\there"', '"not"',
           '"é✓"', '"unterminated', '"%"', '"#script (python)"']
PUNCTUATION = ["(", ")", ",", ".", ":-", "<-", "←", "@next", "@async", "@async(Y)", "•", "|", "!", "¬", "#", ";",
               "[", "]", "{", "}", "=", "!=", "<", "<=", ">", ">=", "≠", "==", ".output", "@3", "@0", "@99999999999",
               f"@{HUGE}", "persist[", "include \"x.ded\";"]
NOISE = ["%c\n", "% c\n", "// c\n", "/* c */", "/* c", "*/", "~", "&", "'", "\\", "\n", " ", "\t", "\r", "\r\n",
         "\x0c", "\u2028", "\u202e", "\x1b[31m", "\ufeff", "\xa0", "$", "?", "^", "`"]

# ---------------------------------------------------------------------------
# Programs


def token_soup(tokens: list[str]) -> st.SearchStrategy[str]:
    """Tokens in any order, with or without spaces, and now and then any text at all."""
    piece = st.one_of(st.sampled_from(tokens), st.sampled_from(tokens), st.text(max_size=4))
    return st.builds(lambda parts, sep: sep.join(parts), st.lists(piece, max_size=60), st.sampled_from(["", " ", "\n"]))


PROGRAM_TOKENS = NAMES + VARIABLES + INTEGERS + STRINGS + PUNCTUATION + NOISE


@st.composite
def mutated(draw, texts: list[str], inserts: list[str]) -> str:
    """One of `texts` with one to five mutations."""
    text = draw(st.sampled_from(texts))
    for _ in range(draw(st.integers(1, 5))):
        n = len(text)
        i = draw(st.integers(0, n))
        j = draw(st.integers(i, min(n, i + 40)))
        kind = draw(st.sampled_from(["delete", "duplicate", "insert", "replace", "cut", "move", "swap-lines"]))
        if kind == "delete":
            text = text[:i] + text[j:]
        elif kind == "duplicate":
            text = text[:j] + text[i:j] + text[j:]
        elif kind == "insert":
            text = text[:i] + draw(st.sampled_from(inserts)) + text[i:]
        elif kind == "replace" and i < n:
            text = text[:i] + draw(st.characters(codec="utf-8")) + text[i + 1 :]
        elif kind == "cut":
            text = text[:i]
        elif kind == "move":
            k = draw(st.integers(0, len(text) - (j - i)))
            rest = text[:i] + text[j:]
            text = rest[:k] + text[i:j] + rest[k:]
        elif kind == "swap-lines":
            lines = text.split("\n")
            a, b = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
            lines[a], lines[b] = lines[b], lines[a]
            text = "\n".join(lines)
    return text


def _read(paths: list[Path]) -> list[str]:
    return [p.read_text(encoding="utf-8") for p in paths]


# Grammar-valid oddities: a relation, an argument, a rule.
relation = st.sampled_from(NAMES[:-7] + ["Edge", "R", "pp_q", "a" * 80, "cand_", "other_x", "u_u_", "chosen_q"])
constant = st.one_of(
    st.sampled_from(["a", "b", "zz", '"s"', '"a\\nb"', '"\\\\"', '"é"', '"#end."']),
    st.integers(-(2**31), 2**31 - 1).map(str),
)


@st.composite
def odd_rule(draw) -> str:
    """A well-formed rule, fact, `persist` or `.output`, with odd names and values."""
    kind = draw(st.sampled_from(["deductive", "next", "async", "fact", "persist", "output", "negation"]))
    arity = draw(st.integers(0, 4))
    args = lambda: ", ".join(draw(st.sampled_from(["X", "Y", "_"])) if i else "X" for i in range(arity))  # noqa: E731
    head_rel, body_rel = draw(relation), draw(relation)
    call = lambda rel, a: f"{rel}({a})" if arity else rel  # noqa: E731
    body = f"{call(body_rel, args())}, node(Y)" if arity else f"{body_rel}, node(Y)"
    if kind == "fact":
        values = ", ".join(draw(constant) for _ in range(arity))
        return f"{call(head_rel, values)}."
    if kind == "persist":
        k = draw(st.one_of(st.integers(0, 300), st.sampled_from([-1, 255, 256, 2**40])))
        delete = draw(st.one_of(st.none(), relation))
        return f"persist[{head_rel}, {delete + ', ' if delete else ''}{k}]."
    if kind == "output":
        return f".output {head_rel}, {body_rel}."
    head = call(head_rel, ", ".join("X" for _ in range(arity)))
    if kind == "next":
        return f"{head}@next :- {body}."
    if kind == "async":
        return f"{head}@async(Y) :- {body}."
    if kind == "negation":
        return f"{head} :- {body}, not {call(draw(relation), ', '.join('X' for _ in range(arity)))}, X != {draw(constant)}."
    return f"{head} :- {body}."


odd_program = st.lists(odd_rule(), max_size=12).map("\n".join)

programs = st.one_of(
    token_soup(PROGRAM_TOKENS),
    mutated(_read(EXAMPLE_PROGRAMS), PROGRAM_TOKENS),
    odd_program,
)

# ---------------------------------------------------------------------------
# .facts inputs

FACTS_TOKENS = NAMES + VARIABLES + INTEGERS + STRINGS + ["(", ")", ",", ".", ";", "{", "}", "@1", "@0", f"@{HUGE}",
                                                       "@99999999999", "@"] + NOISE


@st.composite
def odd_facts(draw) -> str:
    """Well-formed blocks and top-level facts, with odd node names, values and events."""
    node = st.one_of(st.sampled_from(["a", "b", "1", "01", '"n"', '"a b"', "not", "-3", "2147483648"]),
                     st.integers(-5, 5).map(str))
    fact = st.builds(
        lambda rel, values, step: f"{rel}({', '.join(values)}){step}.",
        st.sampled_from(["q", "edge", "p", "id"]),
        st.lists(constant, min_size=1, max_size=3),
        st.sampled_from(["", "", "@0", "@1", "@7", "@1073741824", "@1073741825"]),
    )
    blocks = st.lists(st.builds(lambda n, fs: f"{n} {{ {' '.join(fs)} }}", node, st.lists(fact, max_size=4)),
                      max_size=5)
    return "\n".join(draw(st.lists(fact, max_size=3)) + draw(blocks))


facts_inputs = st.one_of(
    token_soup(FACTS_TOKENS),
    mutated(_read(EXAMPLE_FACTS), FACTS_TOKENS),
    odd_facts(),
)

# ---------------------------------------------------------------------------
# JSON inputs

json_scalar = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**33), 2**33), st.integers(-(10**40), 10**40),
    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=6),
    st.sampled_from(["a", "not", "1", "01", "é", "a\nb", "X"]),
)
json_any = st.recursive(json_scalar, lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=4), c, max_size=4),
                        max_leaves=20)
node_key = st.one_of(st.sampled_from(["a", "b", "1", "01", "-0", "-7", "not", "", " a", "a\nb", "9" * 40]), st.text(max_size=4))
relation_key = st.one_of(
    st.sampled_from(["q", "edge", "q@1", "q@0", "q@99999999999", f"q@{HUGE}", "Q", "q@", "1q", "q@-1", "q r", "_"]),
    st.text(max_size=4),
)
value = st.one_of(st.sampled_from([1, -1, 2**31, -(2**31) - 1, "a", "not", "01", True, None, 1.5, [], {}]), json_scalar)
shaped = st.one_of(
    st.builds(lambda nodes: {"nodes": nodes},
              st.dictionaries(node_key, st.dictionaries(relation_key, st.lists(st.lists(value, max_size=3), max_size=3),
                                                        max_size=3), max_size=4)),
    st.builds(lambda facts, nodes: {"facts": facts, "nodes": nodes},
              st.dictionaries(relation_key, st.lists(st.lists(value, max_size=3), max_size=3), max_size=3),
              st.dictionaries(node_key, st.just({}), max_size=2)),
)


@st.composite
def json_mutated(draw) -> str:
    """A JSON text cut short, with a key repeated, or nested deep."""
    text = json.dumps(draw(shaped))
    kind = draw(st.sampled_from(["cut", "repeat", "deep", "big-number"]))
    if kind == "cut":
        return text[: draw(st.integers(0, len(text)))]
    if kind == "repeat":  # the first object's first key written twice
        i = text.find("{", 1)
        j = text.find(",", i) if i > 0 else -1
        return text if j < 0 else text[: j + 1] + text[i + 1 : j + 1] + text[j + 1 :]
    if kind == "deep":
        depth = draw(st.integers(50, 3000))
        return text.replace('[[', "[" * depth + "[", 1).replace("]]", "]" * depth + "]", 1)
    return text.replace("1", HUGE, 1)


json_inputs = st.one_of(json_any.map(json.dumps), shaped.map(json.dumps), json_mutated())

# ---------------------------------------------------------------------------
# Batch manifests (TOML)


def toml_value(value) -> str:
    """A Python value written as a TOML value (an inline table for a dict)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf") if math.isinf(value) else repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a TOML basic string: JSON's escapes
    if isinstance(value, list):
        return "[" + ", ".join(map(toml_value, value)) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {toml_value(v)}" for k, v in value.items()) + "}"
    return str(value)  # a date or a time: TOML writes them bare


MANIFEST_KEYS = ["program", "input", "task", "semantics", "encoding", "dialect", "horizon", "max_delay", "steps",
                 "schedule", "seed", "models", "timeout"]
GOOD_VALUES = {
    "program": st.sampled_from(["examples/jcss2014/alg3.ded", "examples/tplp2016/fig4_noncausal.ded", "nope.ded"]),
    "input": st.sampled_from(["examples/jcss2014/alg3.facts", "examples/tplp2016/fig4.facts"]),
    "task": st.sampled_from(["count", "cron", "models", "run", "solve"]),
    "semantics": st.sampled_from(["causal", "choice", "causal-finite", "pure"]),
    "encoding": st.sampled_from(["fast", "paper", "slow"]),
    "dialect": st.sampled_from(["auto", "transparent", "located", "molly", "prolog"]),
    "horizon": st.integers(-2, 5),
    "max_delay": st.integers(-1, 3),
    "steps": st.integers(-1, 6),
    "schedule": st.sampled_from(["sync", "random", "chaos"]),
    "seed": st.integers(-5, 5),
    "models": st.integers(-1, 5),
    "timeout": st.floats(-1, 100, allow_nan=False),
}
any_toml = st.recursive(
    st.one_of(st.booleans(), st.integers(-(2**63), 2**63 - 1), st.floats(), st.text(max_size=8), st.dates(),
              st.datetimes(), st.times()),
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.sampled_from(MANIFEST_KEYS + ["x"]), c, max_size=3),
    max_leaves=6,
)


@st.composite
def manifest_tables(draw, hostile: bool) -> str:
    """A manifest: `root`, `[defaults]`, `[[grid]]` and `[[job]]` tables; `hostile` gives keys values of any type."""
    def values(key: str, in_grid: bool):
        if key not in GOOD_VALUES or (hostile and draw(st.booleans())):
            return draw(any_toml)
        good = GOOD_VALUES[key]
        return draw(st.lists(good, min_size=1, max_size=2) if in_grid else good)

    def table(in_grid: bool) -> dict:
        keys = draw(st.lists(st.sampled_from(MANIFEST_KEYS + (["x", "Horizon"] if hostile else [])), max_size=8, unique=True))
        return {k: values(k, in_grid) for k in ["program", "task", *keys]}

    lines = [f"root = {toml_value(draw(any_toml) if hostile and draw(st.booleans()) else str(ROOT))}"]
    if draw(st.booleans()):
        lines += ["[defaults]", *(f"{k} = {toml_value(v)}" for k, v in table(False).items() if k not in ("program", "task"))]
    for _ in range(draw(st.integers(0, 2))):
        lines += ["[[grid]]", *(f"{k} = {toml_value(v)}" for k, v in table(True).items())]
    for _ in range(draw(st.integers(0 if hostile else 1, 2))):
        lines += ["[[job]]", *(f"{k} = {toml_value(v)}" for k, v in table(False).items())]
    if hostile and draw(st.booleans()):  # a top-level key of the wrong kind
        key = draw(st.sampled_from(["root", "defaults", "grid", "job", "other"]))
        lines.insert(0, f"{key} = {toml_value(draw(any_toml))}")
    return "\n".join(lines) + "\n"


SWEEP = (EXAMPLES / "batch" / "sweep.toml").read_text(encoding="utf-8").replace('"../.."', json.dumps(str(ROOT)))
manifests = st.one_of(
    manifest_tables(hostile=False),
    manifest_tables(hostile=True),
    mutated([SWEEP], ["[[grid]]", "[[job]]", "[defaults]", "=", '"', "[", "]", "horizon = ", "task = \"run\"", "\n",
                      "{", "}", "1e999", "9" * 30]),
)
