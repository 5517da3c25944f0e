"""Grounding and solving the generated programs with clingo.

`count` gives the number of stable models and the number of distinct traces;
the latter by clingo's projective enumeration onto sch(P)^LT (a trace is a
model restricted to the user's relations with location and step, tplp2016
§5.1.5). `enumerate_models` enumerates answer sets and keeps each as
clingo gives it, or as a reader makes it (`inspect.enumerate_models` decodes
each into an `inspect.Model`). Long enumerations report progress on stderr after a second
and stop at a timeout, saying so.

clingo stops *solving* at a timeout, but not *grounding*; `isolated` runs a
question in a child process that is killed at its deadline, and whose address
space can be limited (`--max-memory`), so that neither a long grounding nor an
out-of-memory outlives the command's bounds: `Stopped` says which one ended it.
"""

from __future__ import annotations

import multiprocessing
import pickle
import resource
import sys
import time
from dataclasses import dataclass, field
from typing import Callable

import clingo

from .transform import Compiled


class SolveError(Exception):
    """clingo rejected the generated program (a bug in dedalus2asp, reported as such)."""


class Stopped(Exception):
    """The solver's process was stopped before an answer: its deadline passed while clingo was
    grounding (which it cannot interrupt), or it ran out of the memory `--max-memory` allows."""


GRACE = 1.0
"""Seconds past its timeout a question's process may take to hand over what it found (clingo stops
solving at the timeout by itself); after that it is killed."""


def isolated(call: Callable, *args, timeout: float | None = None, max_memory: int | None = None, **kwargs):
    """`call(*args, timeout=timeout, **kwargs)`, in a child process when there is a timeout or a memory limit.

    The child's address space may grow by `max_memory` bytes (`RLIMIT_AS`); the child is killed
    `GRACE` seconds after the timeout. Raises `Stopped` when the child was killed or ran out of memory;
    re-raises what the call raised otherwise. Without either limit the call runs in this process.
    """
    if timeout is None and max_memory is None:
        return call(*args, timeout=timeout, **kwargs)
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(send, max_memory, call, args, {"timeout": timeout, **kwargs}), daemon=True)
    child.start()
    send.close()
    try:
        if not receive.poll(None if timeout is None else min(timeout + GRACE, 2**31 // 1000)):  # a C int of ms
            raise Stopped(
                f"timeout: stopped after {timeout:g} s, before an answer: clingo was still grounding, which it cannot "
                "interrupt (lower --horizon, or raise --timeout)"
            )
        status, value = receive.recv()
    except EOFError:  # the child died without an answer
        child.join(1.0)
        raise Stopped(_died(child.exitcode, max_memory)) from None
    finally:
        child.kill()
        child.join()
        receive.close()
    if status == "memory":
        raise Stopped(_died(None, max_memory))
    if status == "error":
        raise value
    return value


def _died(exitcode: int | None, max_memory: int | None) -> str:
    if max_memory is not None:
        return (f"out of memory: the solver needed more than --max-memory {_size(max_memory)}, and was stopped before "
                "an answer (lower --horizon, or raise --max-memory)")
    return f"stopped before an answer: the solver's process ended without one (exit code {exitcode}; out of memory?)"


def _size(n: int) -> str:
    for unit, scale in (("G", 2**30), ("M", 2**20), ("K", 2**10)):
        if n % scale == 0:
            return f"{n // scale}{unit}"
    return str(n)


def _child(connection, max_memory: int | None, call: Callable, args: tuple, kwargs: dict) -> None:
    """The child of `isolated`: its memory limited, it sends ("ok", value), ("memory", None) or ("error", exception)."""
    if max_memory is not None:
        limit = _address_space() + max_memory
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        answer = ("ok", call(*args, **kwargs))
    except MemoryError:
        answer = ("memory", None)
    except Exception as error:  # noqa: BLE001 - handed to the parent, which raises it
        answer = ("memory", None) if "bad_alloc" in str(error) else ("error", _portable(error))
    try:
        connection.send(answer)
    except MemoryError:
        connection.send(("memory", None))
    except Exception as error:  # noqa: BLE001 - a value that does not pickle
        connection.send(("error", RuntimeError(f"{type(error).__name__}: {error}")))
    connection.close()


def _address_space() -> int:
    """This process's address space in bytes (0 where /proc is missing).

    A forked child starts with its parent's address space, which in a long-lived process (a notebook,
    a test session that has loaded Spark's Python side) may already exceed the limit: `--max-memory`
    bounds what the solver adds to it.
    """
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            return int(statm.read().split()[0]) * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        return 0


def _portable(error: Exception) -> Exception:
    """The exception itself if it survives pickling (its class rebuilt from its arguments), else a RuntimeError saying it."""
    try:
        pickle.loads(pickle.dumps(error))
        return error
    except Exception:  # noqa: BLE001
        return RuntimeError(f"{type(error).__name__}: {error}")


@dataclass
class Enumeration:
    """What an enumeration found, and whether it finished."""

    models: list = field(default_factory=list)
    count: int = 0
    complete: bool = True
    seconds: float = 0.0
    statistics: dict = field(default_factory=dict)


def _progress(what: str) -> Callable[[int, float], None]:
    """A running count on stderr: rewritten in place on a terminal, a line every 5 s otherwise."""
    tty = sys.stderr.isatty()
    last = [0.0]

    def report(count: int, elapsed: float) -> None:
        if tty and elapsed - last[0] >= 0.25:
            print(f"\r  {what}: {count} so far ({elapsed:.1f} s)", end="", file=sys.stderr, flush=True)
            last[0] = elapsed
        elif not tty and elapsed - last[0] >= 5.0:
            print(f"  {what}: {count} so far ({elapsed:.0f} s)", file=sys.stderr, flush=True)
            last[0] = elapsed

    return report


def control(compiled: Compiled, arguments: list[str] = (), project: bool = False, by_trace: bool = False) -> clingo.Control:
    """A clingo control with the program loaded and grounded.

    `by_trace` loads the program at the level of traces (`Compiled.trace_text`, when the encoding
    has one): the same traces, fewer models, so only for counting traces.
    """
    messages: list[str] = []

    def logger(code: clingo.MessageCode, message: str) -> None:
        if code not in (clingo.MessageCode.AtomUndefined, clingo.MessageCode.GlobalVariable):
            messages.append(message)

    if by_trace and not project:
        raise ValueError("the program at the level of traces has the traces of the models, not the models")
    ctl = clingo.Control([*arguments, *(["--project=project"] if project else [])], logger=logger)
    text = compiled.counting_traces() if by_trace else compiled.text + (compiled.projection() if project else "")
    try:
        ctl.add("base", [], text)
        ctl.ground([("base", [])])
    except RuntimeError as exc:
        raise SolveError(f"clingo could not ground the generated program: {exc}; {' '.join(messages)}") from None
    return ctl


def enumerate_models(
    compiled: Compiled,
    limit: int = 0,
    project: bool = False,
    timeout: float | None = None,
    keep: bool = True,
    progress: bool = True,
    what: str = "models",
    by_trace: bool = False,
    read: Callable[[list[clingo.Symbol], int], object] | None = None,
) -> Enumeration:
    """Enumerate up to `limit` models (0: all), optionally projected onto the trace.

    `keep` keeps each model: its atoms as clingo gives them, or what `read` makes of them and of the
    model's number (`inspect.enumerate_models` decodes them); `progress` prints a running count on
    stderr once the enumeration has taken more than a second; `by_trace`
    enumerates the program at the level of traces (see `control`).
    """
    if by_trace and keep:
        raise ValueError("the program at the level of traces does not decode: it lacks the messages")
    start = time.perf_counter()  # the timeout counts grounding too
    ctl = control(compiled, [str(limit)], project=project, by_trace=by_trace)
    result = Enumeration()
    report = _progress(what) if progress else None

    def on_model(model: clingo.Model) -> None:
        result.count += 1
        if keep:
            symbols = model.symbols(atoms=True)
            result.models.append(symbols if read is None else read(symbols, result.count))

    with ctl.solve(on_model=on_model, async_=True) as handle:
        shown = False
        while not handle.wait(0.1):
            elapsed = time.perf_counter() - start
            if timeout is not None and elapsed > timeout:
                handle.cancel()
                result.complete = False
                break
            if report is not None and elapsed > 1.0:
                report(result.count, elapsed)
                shown = True
        handle.get()
        if shown and sys.stderr.isatty():
            print(file=sys.stderr)
    result.seconds = time.perf_counter() - start
    result.statistics = _statistics(ctl)
    return result


def _statistics(ctl: clingo.Control) -> dict:
    """The size of the ground program (clingo's lp statistics)."""
    lp = ctl.statistics.get("problem", {}).get("lp", {})
    return {"rules": int(lp.get("rules", 0)), "atoms": int(lp.get("atoms", 0))}


def count(compiled: Compiled, timeout: float | None = None, progress: bool = True, models: bool = True) -> dict:
    """The number of stable models and of distinct traces (projective enumeration).

    With `models=False` only the traces are counted ("models" is None): under
    `choice` there can be millions of models for a few hundred traces. Under
    causality the fast encoding counts the traces on its program at the level
    of traces (`Compiled.trace_text`), which does not enumerate one by one the
    copies of a message that reach the same steps; "ground_rules" and
    "ground_atoms" are those of the program that counted the models, or,
    without models, of the one that counted the traces.
    """
    start = time.perf_counter()
    counted = enumerate_models(compiled, 0, timeout=timeout, keep=False, progress=progress, what="models") if models else None
    remaining = timeout if timeout is None or counted is None else max(0.0, timeout - counted.seconds)
    traces = enumerate_models(
        compiled, 0, project=True, timeout=remaining, keep=False, progress=progress, what="traces", by_trace=True
    )
    return {
        "models": counted.count if counted is not None else None,
        "traces": traces.count,
        "complete": (counted is None or counted.complete) and traces.complete,
        **compiled.bounds.as_dict(),
        "ground_rules": (counted or traces).statistics["rules"],
        "ground_atoms": (counted or traces).statistics["atoms"],
        "seconds": round(time.perf_counter() - start, 4),
    }
