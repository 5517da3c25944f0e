"""Layers look down: the package's imports, all of them, read with `ast`.

The phases stand in one order, each importing only from its own layer and those below:

    lang ← asp ← runs ← inspect ← questions ← formats ← cli, batch

`bounds.py` (the values of a question's bounds) stands with `lang` at the bottom: the front end
reads the largest step and the crash relation's name from it. `pipeline.py` (parse → check →
transform) stands with `asp`. Every import counts: at the top of a module, inside a function,
under `TYPE_CHECKING`; an import placed inside a function to dodge a cycle is still a cycle.

`python tests/test_layers.py` prints the signs of the design the tests below do not enforce
(modules over 500 lines, functions over 60) beside the ones they do (import cycles, imports up the
order, private names imported from another module).
"""

from __future__ import annotations

import ast
from pathlib import Path

from dedalus2asp.lang.analysis import strongly_connected

PACKAGE = Path(__file__).resolve().parent.parent / "dedalus2asp"

LAYERS = ("lang", "asp", "runs", "inspect", "questions", "formats", "cli")
"""The phases, lowest first."""

PLACED = {"": "lang", "bounds": "lang", "pipeline": "asp", "maintain": "questions", "batch": "cli", "__main__": "cli"}
"""Where the modules outside the phases' subpackages stand (by their first name under the package)."""

LONG_MODULE = 500
LONG_FUNCTION = 60


def modules() -> dict[str, Path]:
    """Every module of the package by its dotted name."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = ["dedalus2asp", *path.relative_to(PACKAGE).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> list[tuple[str, list[str], int]]:
    """The package's modules that `name` imports, each with the names it takes and the line."""
    found = []
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(a.name, [], node.lineno) for a in node.names if a.name.split(".")[0] == "dedalus2asp"]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            if target.split(".")[0] != "dedalus2asp":
                continue
            taken = [a.name for a in node.names]
            submodules = [n for n in taken if f"{target}.{n}" in known]
            found += [(f"{target}.{n}", [], node.lineno) for n in submodules]
            rest = [n for n in taken if n not in submodules]
            if rest or not submodules:
                found.append((target, rest, node.lineno))
    return found


def graph() -> dict[str, list[tuple[str, list[str], int]]]:
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def layer(name: str) -> int:
    parts = name.split(".")[1:]
    first = parts[0] if parts else ""
    return LAYERS.index(PLACED.get(first, first))


def upward() -> list[str]:
    return [f"{m}:{line} imports {t} ({LAYERS[layer(t)]} above {LAYERS[layer(m)]})"
            for m, edges in graph().items() for t, _, line in edges if layer(t) > layer(m)]


def private() -> list[str]:
    return [f"{m}:{line} imports {t}.{n}"
            for m, edges in graph().items() for t, names, line in edges if t != m
            for n in names + [t.rsplit(".", 1)[-1]] if n.startswith("_") and not n.startswith("__")]


def cycles() -> list[list[str]]:
    """The strongly connected components of more than one module (the package's own Tarjan,
    `lang.analysis.strongly_connected`), and the modules that import themselves."""
    imported = graph()
    edges = {m: sorted({t for t, _, _ in e if t in imported}) for m, e in imported.items()}
    return [sorted(c) for c in strongly_connected(list(edges), edges) if len(c) > 1 or c[0] in edges[c[0]]]


def long_modules() -> list[tuple[str, int]]:
    lines = {m: len(p.read_text(encoding="utf-8").splitlines()) for m, p in modules().items()}
    return sorted(((m, n) for m, n in lines.items() if n > LONG_MODULE), key=lambda x: -x[1])


def long_functions() -> list[tuple[str, int]]:
    found = []
    for m, path in modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > LONG_FUNCTION:
                    found.append((f"{m}.{node.name}", length))
    return sorted(found, key=lambda x: -x[1])


def test_no_import_cycle():
    assert cycles() == []


def test_imports_look_down():
    assert upward() == []


def test_no_private_name_crosses_a_module():
    assert private() == []


def test_the_walk_sees_imports_inside_functions():
    """The walk reads every import: `cli.solve` imports `count --split`'s module inside `count` (Spark is slow to load)."""
    assert any(t == "dedalus2asp.questions.count" for t, _, _ in graph()["dedalus2asp.cli.solve"])


if __name__ == "__main__":
    found = {"modules over 500 lines": long_modules(), "functions over 60 lines": long_functions(),
             "private cross-module imports": private(), "import cycles": cycles(), "imports up the layer order": upward()}
    for title, items in found.items():
        print(f"{title}: {len(items)}")
        for item in items:
            print("   ", *item) if isinstance(item, tuple) else print("   ", item)
