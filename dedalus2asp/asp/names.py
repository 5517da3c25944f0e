"""The names a generated program uses besides the user's, and how user text enters it.

One convention keeps the user's relations apart from ours:

* the auxiliary relations of tplp2016 Table 1 (all, time, tsucc, before, hasSender, isSmaller,
  hasMax, rcvInf), our `arrival`, and the message relations cand_R, chosen_R, other_R and
  arrives_R keep the paper's names;
* the names only dedalus2asp's own programs add — the multi-shot program's `_late_R`,
  `_arrived_R`, `_may_R` and the analyses' `_output` — begin with `_` (`INTERNAL`);
* a user relation keeps its own name unless it could collide with those or is not a clingo
  identifier; then it is written `u_<name>` (an injective map: a name that begins with `u_` is
  always prefixed, and no written name begins with `_`).

The paper's new variables x, s, t of a rule are chosen `fresh`, so they never capture a user
variable; user text in a comment goes through `in_comment`.
"""

from __future__ import annotations

import re

from ..lang.ast import printable

AUXILIARY = frozenset({"all", "time", "tsucc", "before", "arrival", "hasSender", "isSmaller", "hasMax", "rcvInf"})
MESSAGE_PREFIXES = ("cand_", "chosen_", "other_", "arrives_")
USER_PREFIX = "u_"
PENDING = "pending"
"""The arrival of a message still in flight at the horizon."""
LOST = "lost"
"""The arrival of a message lost to a fault (docs/faults.md): it neither arrives nor is pending."""
CRASHED = "_crashed"
"""The solver's atom _crashed(y, s): y crashes at step s (templates/faults.lp.j2)."""
SILENCED = "_silenced"
"""The solver's atom _silenced(x, s): x has crashed by step s, so its messages to other nodes are lost."""
LOOP = "_loop"
"""The solver's atom _loop(l) of a lasso model (eventual mode): step l is the first step of the loop, and the
step after the last step is step l again (Heljanko and Niemelä, TPLP 2003: the k-loop encoding)."""
OMITTED = "_omitted"
"""The solver's atom _omitted(x, s, y): the channel from x to y at step s is cut, every message on it
lost (Molly's omissions, `Network.omission` = channel; templates/faults.lp.j2)."""


def omission_key(relation: str, w: list[str], by_channel: bool, step: str = "S") -> str:
    """The tuple by which a `#minimize` counts the omission of a lost message chosen_R(X,step,Y,lost,w):
    once per message, or once per channel (X,step,Y) when an omission cuts a whole channel."""
    if by_channel:
        return f"{OMITTED},X,{step},Y"
    return f'"{relation}",X,{step},Y' + "".join("," + v for v in w)


INTERNAL = "_"
OUTPUT = INTERNAL + "output"

CLINGO_NAME = re.compile(r"[a-z][A-Za-z0-9_]*\Z")
CLINGO_VARIABLE = re.compile(r"_*[A-Z][A-Za-z0-9_]*\Z")


def relation_name(name: str) -> str:
    """The clingo name of user relation `name` (injective, never an auxiliary or internal name)."""
    if CLINGO_NAME.match(name) and name not in AUXILIARY and not name.startswith(MESSAGE_PREFIXES + (USER_PREFIX,)):
        return name
    return USER_PREFIX + name


def message_relation(kind: str, name: str) -> str:
    """cand_R, chosen_R, other_R or arrives_R for user relation R (R written as in the source)."""
    return f"{kind}_{name}"


def internal(kind: str, name: str) -> str:
    """_late_R, _arrived_R or _may_R for user relation R: a name of the multi-shot program."""
    return f"{INTERNAL}{kind}_{name}"


def fresh(base: str, taken: set[str]) -> str:
    """`base`, or `base` with the smallest number appended that is not in `taken`; added to `taken`."""
    name, i = base, 0
    while name in taken:
        name, i = f"{base}{i}", i + 1
    taken.add(name)
    return name


def in_comment(text: str) -> str:
    """User text (a file name, a rule) for a `%` comment line of the generated program.

    A character that could end the line (a newline, a carriage return, ...) is written as its
    escape, so that nothing a user names can turn the rest of a comment into clingo statements.
    clingo's comments are Dedalus's: the escape is the front end's (`lang.ast.printable`).
    """
    return printable(text)
