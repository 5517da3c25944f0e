"""The ShiViz log against ShiViz's documented input grammar: the default parsing regex (its named
groups in Python syntax), JSON vector clocks, own counters 1, 2, 3, ... per host, and clock order
equal to the model's happens-before relation."""

from __future__ import annotations

import json
import re

import pytest

from dedalus2asp import inspect
from dedalus2asp.bounds import Bounds, Encoding, Network, Semantics
from dedalus2asp.formats import shiviz
from dedalus2asp.pipeline import prepare

from conftest import EXAMPLES

TWO_PC = (EXAMPLES / "tplp2016/ex3_2pc.ded", EXAMPLES / "tplp2016/ex3_2pc_yes.facts")
ALG1_LARGE = (EXAMPLES / "jcss2014/alg1.ded", EXAMPLES / "jcss2014/alg1-large.facts")
FIG4 = (EXAMPLES / "tplp2016/fig4_noncausal.ded", EXAMPLES / "tplp2016/fig4.facts")
DOCUMENTED = r"(?<event>.*)\n(?<host>\S*) (?<clock>{.*})"  # ShiViz's default, as its input page gives it


def models_of(files, horizon, semantics=Semantics.CAUSAL, limit=1, max_delay=None, encoding=Encoding.FAST):
    bounds = Bounds(horizon, semantics, encoding, Network(max_delay=max_delay))
    return inspect.enumerate_models(prepare(*files, bounds).compiled, limit, progress=False).models


def python_regex(shiviz_regex: str) -> re.Pattern:
    """ShiViz writes named groups as in JavaScript, (?<name>...); Python as (?P<name>...)."""
    return re.compile(re.sub(r"\(\?<(\w+)>", r"(?P<\1>", shiviz_regex))


def parse(log: str) -> dict[str, list[tuple[str, str, dict]]]:
    """The executions of a ShiViz file, as ShiViz reads it: regex, delimiter, then the log split at delimiters."""
    regex, delimiter, body = log.split("\n", 2)
    assert regex == DOCUMENTED
    before_first, *parts = python_regex(delimiter).split(body)  # the `trace` group's text between the chunks
    assert before_first.strip() == ""
    executions = {}
    for label, chunk in zip(parts[0::2], parts[1::2]):
        events = [(m["event"], m["host"], json.loads(m["clock"])) for m in python_regex(regex).finditer(chunk)]
        assert len(events) == chunk.strip().count("\n") // 2 + 1  # every line pair is an event
        executions[label] = events
    return executions


CASES = {
    "2pc": lambda: models_of(TWO_PC, 3, limit=3, max_delay=1),
    "2pc-no-delay-bound": lambda: models_of(TWO_PC, 3, limit=2),
    "2pc-paper-encoding": lambda: models_of(TWO_PC, 2, limit=2, encoding=Encoding.PAPER),  # ≺ from `before` atoms
    "alg1-three-nodes": lambda: models_of(ALG1_LARGE, 3, max_delay=1),
}


@pytest.mark.parametrize("case", CASES)
def test_clock_order_is_happens_before(case):
    models = CASES[case]()
    executions = parse(shiviz.shiviz_log(models))
    assert list(executions) == [f"model {m.number}" for m in models]
    for model in models:
        events = executions[f"model {model.number}"]
        hosts = {str(x) for x in model.network}
        assert len(events) == len(model.points())
        points = {}
        for text, host, clock in events:
            assert host in hosts and set(clock) <= hosts and host in clock
            assert all(isinstance(v, int) and 1 <= v <= model.horizon + 1 for v in clock.values())
            assert text.startswith(f"{host}:{clock[host] - 1}")
            points[(host, clock[host] - 1)] = clock
        # own counters run 1, 2, ..., T+1 on every host
        assert set(points) == {(str(x), s) for x, s in model.points()}

        def before(a: dict, b: dict) -> bool:
            return all(a[h] <= b.get(h, 0) for h in a) and a != b

        hb = {((str(x), s), (str(y), t)) for (x, s), (y, t) in model.happens_before}
        order = {(p, q) for p in points for q in points if before(points[p], points[q])}
        assert order == hb


def test_events_say_what_is_received_and_sent():
    (model,) = models_of(TWO_PC, 3, max_delay=1)
    events = parse(shiviz.shiviz_log([model]))["model 1"]
    m = next(m for m in model.messages if m.arrives is not None)
    arrival = next(text for text, host, clock in events if host == str(m.addressee) and clock[host] == m.arrives + 1)
    assert "receives" in arrival and f"{m.fact} from {m.sender}:{m.sent}" in arrival
    send = next(text for text, host, clock in events if host == str(m.sender) and clock[host] == m.sent + 1)
    assert f"{m.fact} to {m.addressee} (arrives {m.addressee}:{m.arrives})" in send


def test_a_model_with_a_message_into_the_past_has_no_vector_clocks():
    past = next(m for m in models_of(FIG4, 2, Semantics.CHOICE, limit=0) if m.noncausal())
    with pytest.raises(ValueError, match="sends messages into the past .* no vector clocks"):
        shiviz.shiviz_log([past])
