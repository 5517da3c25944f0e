"""The keys a job of a manifest may say: each one's default, type and range, and the tasks it applies to.

`SCHEMA` checks a value and says what is wrong with it in words ("must be an integer, not the
string 'x'"); `manifest.read_manifest` places the words at the key's `file:line:col`. `DEFAULTS`
gives every job key its value when no table does; `NEW_KEYS` are those added after result
directories existed, left out of a job's id at their defaults so that older directories still
resume. `ALIASES` are Molly's spellings (Alvaro, Rosen, Hellerstein, *Lineage-driven fault
injection*, SIGMOD 2015, §3; Molly counts time from 1): `eot = N` is `horizon = N - 1`,
`eff = F` is `loss_until = F - 1`. `APPLIES` names the tasks a fault key, `pre`/`post` or `eventual` is for.
"""

from __future__ import annotations

import difflib
import math
import re
from typing import Any, Callable

from ..asp.budget import DEFAULT_MAX_GROUND
from ..bounds import CRASH_MODELS, CRASH_TIMES, DELIVERIES, MAX_STEP, OMISSIONS, Encoding, Semantics, node_symbol
from ..runs.schedule import SCHEDULES

TASKS = ("count", "cron", "models", "run", "verify")
DIALECTS = ("auto", "transparent", "located", "molly")
MAX_MODELS = 2**31 - 1  # clingo's models limit is a 32-bit integer
MAX_TIMEOUT = 10**7  # seconds (about 115 days): beyond it a wait on the job's process overflows
MAX_SEED = 2**63 - 1  # the jobs table stores the seed as int64
MAX_GROUND = 2**63 - 1
MAX_MANIFEST = 16 * 2**20  # bytes
MAX_JOBS = 100_000  # jobs of one manifest, grids expanded
DEFAULTS: dict[str, Any] = {
    "semantics": "causal-finite",
    "encoding": "fast",
    "dialect": "auto",  # auto | transparent | located | molly (parser.parse_source)
    "horizon": 2,
    "max_delay": None,
    "steps": None,  # run: steps 0..steps-1; default horizon + 1
    "schedule": "sync",
    "seed": 0,
    "models": 10,  # models: how many (0: all)
    "timeout": 60.0,
    "max_ground": DEFAULT_MAX_GROUND,  # rule instances a job may ground (asp.budget; 0: no limit)
    "delivery": "async",  # the network (bounds.Network): async | sync
    "loss_until": None,  # E: messages to other nodes sent before step E may be lost
    "crashes": 0,  # up to C nodes crash
    "nodes": None,  # names of nodes besides those of the input (Molly's -N)
    "omission": None,  # message | channel (default: channel under sync, Molly's; message under async)
    "crash_times": None,  # any | after-send (default: after-send under sync, Molly's; any under async)
    "crash_model": "clock",  # clock (Molly's) | fail-stop
    "pre": "pre",  # verify: the relation whose rows need a match at the last step
    "post": "post",  # verify: the relation that matches them
    "eventual": False,  # cron, verify: answer for the infinite runs (every horizon; exact and K recorded), not at horizon
}
KEYS = ("program", "input", "task", *DEFAULTS)
ALIASES: dict[str, tuple[str, Callable[[int], int]]] = {
    "eot": ("horizon", lambda n: n - 1),  # Molly's end of time N: steps 0..N-1
    "eff": ("loss_until", lambda f: max(f - 1, 0)),  # Molly's end of finite failures F (as --eff)
}
KNOWN = (*KEYS, *ALIASES)
NEW_KEYS = {  # keys added later: at these values, left out of ids
    "dialect": "auto", "max_ground": DEFAULT_MAX_GROUND, "delivery": "async", "loss_until": None, "crashes": 0, "nodes": None,
    "pre": "pre", "post": "post", "omission": None, "crash_times": None, "crash_model": "clock", "eventual": False,
}
FAULT_TASKS = ("count", "cron", "models", "verify")  # the tasks that solve the fault-injected program
EVENTUAL_TASKS = ("cron", "verify")  # the tasks a job may ask with eventual = true (cron --eventual, verify --eventual)
APPLIES = {"delivery": FAULT_TASKS, "loss_until": FAULT_TASKS, "crashes": FAULT_TASKS, "nodes": FAULT_TASKS,
           "omission": FAULT_TASKS, "crash_times": FAULT_TASKS, "crash_model": FAULT_TASKS,
           "pre": ("verify",), "post": ("verify",), "eventual": EVENTUAL_TASKS}


def _integer(low: int, high: int) -> Callable[[Any], str | None]:
    def check(value):
        if isinstance(value, bool) or not isinstance(value, int):
            return f"must be an integer, not {kind_of(value)}"
        return None if low <= value <= high else f"must be between {low} and {high}, not {value}"
    return check


def _choice(allowed) -> Callable[[Any], str | None]:
    allowed = tuple(allowed)

    def check(value):
        if not isinstance(value, str):
            return f"must be one of {', '.join(allowed)}, not {kind_of(value)}"
        if value in allowed:
            return None
        near = difflib.get_close_matches(value, allowed, 1)
        return f"must be one of {', '.join(allowed)}, not {value!r}" + (f" (did you mean {near[0]!r}?)" if near else "")
    return check


def path_of(value) -> str | None:
    if not isinstance(value, str):
        return f"must be a path (a string), not {kind_of(value)}"
    if not value:
        return "must be a path, not an empty string"
    return "must not contain a NUL character" if "\0" in value else None


def _program(value) -> str | None:
    """A program: a path, or an array of paths read as one program (`pipeline.load`)."""
    if not isinstance(value, list):
        return path_of(value)
    if not value:
        return "must be a path or an array of paths, not an empty array"
    for item in value:
        message = path_of(item)
        if message:
            return message
    return None


def _nodes(value) -> str | None:
    """The names of nodes (`bounds.Network.nodes`): an array of constants, none twice."""
    if not isinstance(value, list):
        return f"must be an array of node names, not {kind_of(value)}"
    for item in value:
        if not isinstance(item, str):
            return f"must be an array of node names (strings), not one with {kind_of(item)}"
        try:
            node_symbol(item)
        except ValueError:
            return f"must name constants such as a, \"a\" or 3, not {item!r}"
    twice = sorted({n for n in value if value.count(n) > 1})
    return f"must not name {', '.join(map(repr, twice))} twice" if twice else None


_RELATION = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _relation(value) -> str | None:
    if not isinstance(value, str):
        return f"must be a relation name, not {kind_of(value)}"
    return None if _RELATION.match(value) else f"must be a relation name (letters, digits and '_'), not {value!r}"


def _boolean(value) -> str | None:
    return None if isinstance(value, bool) else f"must be true or false, not {kind_of(value)}"


def _seconds(value) -> str | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"must be a number of seconds, not {kind_of(value)}"
    if not (0 < value <= MAX_TIMEOUT) or math.isnan(value):
        return f"must be more than 0 and at most {MAX_TIMEOUT} seconds, not {value}"
    return None


SCHEMA: dict[str, Callable[[Any], str | None]] = {
    "program": _program,
    "input": path_of,
    "task": _choice(TASKS),
    "semantics": _choice(s.value for s in Semantics),
    "encoding": _choice(e.value for e in Encoding),
    "dialect": _choice(DIALECTS),
    "horizon": _integer(0, MAX_STEP),
    "max_delay": _integer(0, MAX_STEP),
    "steps": _integer(1, MAX_STEP),
    "schedule": _choice(SCHEDULES),
    "seed": _integer(-MAX_SEED - 1, MAX_SEED),
    "models": _integer(0, MAX_MODELS),
    "timeout": _seconds,
    "max_ground": _integer(0, MAX_GROUND),
    "delivery": _choice(DELIVERIES),
    "loss_until": _integer(0, MAX_STEP),
    "crashes": _integer(0, MAX_STEP),
    "nodes": _nodes,
    "omission": _choice(OMISSIONS),
    "crash_times": _choice(CRASH_TIMES),
    "crash_model": _choice(CRASH_MODELS),
    "pre": _relation,
    "post": _relation,
    "eventual": _boolean,
    "eot": _integer(1, MAX_STEP + 1),
    "eff": _integer(0, MAX_STEP),
}


def kind_of(value) -> str:
    """A TOML value's kind in words: "the string 'x'", "a boolean", "an array"."""
    if isinstance(value, str):
        return f"the string {value!r}"
    names = {bool: "a boolean", int: "an integer", float: "a float", list: "an array", dict: "a table"}
    return names.get(type(value), f"a {type(value).__name__}")
