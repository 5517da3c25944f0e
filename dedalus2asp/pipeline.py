"""The pipeline, in one place:

    parse → check → transform(bounds) → ground/solve → decode

`load` parses (`lang.parser`) and checks (`lang.analysis`) a program and its input; `prepare`
adds the transformation (`asp.transform`) within the bounds (`bounds.Bounds`: horizon,
semantics, encoding, network) made once by the caller. `asp.solve.enumerate_models` and
`asp.solve.count` ground and solve, and `inspect.decode` reads each answer set back as a
trace and its messages (`inspect.enumerate_models` does both). Every command of the CLI goes this way.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence, Union

from .asp import transform
from .bounds import Bounds
from .lang import analysis, parser
from .lang.ast import Instance, Program
from .lang.diagnostics import Diagnostic, DiagnosticError
from .lang.located import LocatedProgram

@dataclass(frozen=True)
class Prepared:
    program: Program
    instance: Instance | None
    compiled: transform.Compiled
    warnings: tuple[Diagnostic, ...]


ProgramPaths = Union[str, Path, Sequence[Union[str, Path]]]
"""A program: one file, or several read as one (a Molly protocol and its invariant file, `parser.parse_sources`).
A path that carries `files` (`cli.options.ProgramFiles`) stands for those files."""


def load(
    program_path: ProgramPaths, input_path: str | Path | None = None, dialect: str = "auto"
) -> tuple[Program, Instance | None, list[Diagnostic]]:
    """Parse and check a program (one file or several read as one) and (optionally) its input.

    `dialect` is `auto`, `transparent`, `located` or `molly` (`parser.parse_source`):
    a located or Molly program is read into its location-transparent IR, its
    input is located, and the facts written in the program join the input
    (`located.LocatedProgram.instance`). Errors raise one `DiagnosticError`
    with the problems of both files: a bad input does not hide the program's
    own errors, nor the other way round.
    """
    found: list[Diagnostic] = []
    program = instance = source = None
    warnings: list[Diagnostic] = []
    try:
        source = parser.load_source(program_path, dialect)
    except DiagnosticError as error:
        found += error.diagnostics
    located = source if isinstance(source, LocatedProgram) else None
    program = located.program if located is not None else source
    if input_path is not None:
        try:
            columns = located.columns if located is not None else None
            if source is None and parser.dialect_of(program_path, dialect) != "transparent":
                columns = {}  # the program has errors: read its input as located, first columns
            instance = parser.load_instance(input_path, columns)
        except DiagnosticError as error:
            found += error.diagnostics
    if located is not None and not found:
        warnings += located.warnings
        try:
            instance = located.instance(instance)
        except DiagnosticError as error:
            found += error.diagnostics
    if program is not None:
        try:
            warnings += analysis.check(program, instance)
        except DiagnosticError as error:
            found += error.diagnostics
    if found:
        raise DiagnosticError(found)
    return program, instance, warnings


def prepare(
    program_path: ProgramPaths,
    input_path: str | Path | None,
    bounds: Bounds,
    dialect: str = "auto",
) -> Prepared:
    """parse → check → transform."""
    program, instance, warnings = load(program_path, input_path, dialect)
    compiled = transform.transform(program, instance, bounds)
    return Prepared(program, instance, compiled, tuple(warnings) + compiled.warnings)
