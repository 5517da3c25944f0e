"""The pipeline, in one place:

    parse → check → transform(semantics, encoding, horizon) → ground/solve → decode

`prepare` runs the first three phases on files; `solve.enumerate_models`
and `solve.count` ground and solve, and `inspect.decode` reads each answer
set back as a trace and its messages.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from . import analysis, inspect, parser, solve, transform
from .ast import Instance, Program
from .diagnostics import Diagnostic, DiagnosticError

PIPELINE = (parser.parse_program, analysis.check, transform.transform, solve.enumerate_models, inspect.decode)


@dataclass(frozen=True)
class Prepared:
    program: Program
    instance: Instance | None
    compiled: transform.Compiled
    warnings: tuple[Diagnostic, ...]


def load(program_path: str | Path, input_path: str | Path | None = None) -> tuple[Program, Instance | None, list[Diagnostic]]:
    """Parse and check a program and (optionally) its input.

    Errors raise one `DiagnosticError` with the problems of both files: a bad
    input does not hide the program's own errors, nor the other way round.
    """
    found: list[Diagnostic] = []
    program = instance = None
    try:
        program = parser.load_program(program_path)
    except DiagnosticError as error:
        found += error.diagnostics
    if input_path is not None:
        try:
            instance = parser.load_instance(input_path)
        except DiagnosticError as error:
            found += error.diagnostics
    if program is not None:
        try:
            warnings = analysis.check(program, instance)
        except DiagnosticError as error:
            found += error.diagnostics
    if found:
        raise DiagnosticError(found)
    return program, instance, warnings


def prepare(
    program_path: str | Path,
    input_path: str | Path | None,
    horizon: int,
    semantics: transform.Semantics = transform.Semantics.CAUSAL_FINITE,
    encoding: transform.Encoding = transform.Encoding.FAST,
    max_delay: int | None = None,
) -> Prepared:
    """parse → check → transform."""
    program, instance, warnings = load(program_path, input_path)
    compiled = transform.transform(program, instance, horizon, semantics, encoding, max_delay)
    return Prepared(program, instance, compiled, tuple(warnings))
