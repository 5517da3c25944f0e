"""A non-editable install must work: the grammars, templates and encodings travel with the wheel.

The test builds a wheel of the project (a copy of the source tree, so the
build leaves nothing behind in the repository) and compares its contents
with the directory listing of `dedalus2asp/`, `templates/` and
`encodings/`: a template or encoding added to the repository but left out of
the packaging makes it fail. Build isolation fetches setuptools from the
package index.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Where each packaged folder of the repository lands in the wheel (pyproject.toml's package-dir).
PACKAGED = {"dedalus2asp": "dedalus2asp", "templates": "dedalus2asp/templates", "encodings": "dedalus2asp/encodings"}
JUNK = shutil.ignore_patterns(".git", "build", "dist", "*.egg-info", "__pycache__", "*.pyc", ".pytest_cache", ".hypothesis", ".venv*", ".ci-venv")


def repository_files(folder: str) -> set[str]:
    return {
        p.relative_to(ROOT / folder).as_posix()
        for p in (ROOT / folder).rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    }


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    shutil.copytree(ROOT, source, ignore=JUNK)
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(work / "dist"), str(source)],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (built,) = (work / "dist").glob("dedalus2asp-*.whl")
    with zipfile.ZipFile(built) as archive:
        yield archive


def test_the_repository_has_what_must_be_packaged():
    assert {"lang/dedalus.lark", "lang/facts.lark", "cli/__init__.py"} <= repository_files("dedalus2asp")
    assert any(name.endswith(".j2") for name in repository_files("templates"))
    assert any(name.endswith(".lp") for name in repository_files("encodings"))


@pytest.mark.parametrize("folder", PACKAGED)
def test_wheel_holds_every_file_of_the_packaged_folders(wheel, folder):
    names = set(wheel.namelist())
    missing = {f"{PACKAGED[folder]}/{name}" for name in repository_files(folder)} - names
    assert not missing, f"left out of the wheel: {sorted(missing)} (see pyproject.toml [tool.setuptools])"


def test_wheel_holds_the_grammars_templates_and_encodings(wheel):
    names = set(wheel.namelist())
    assert {"dedalus2asp/lang/dedalus.lark", "dedalus2asp/lang/facts.lark"} <= names
    assert any(n.startswith("dedalus2asp/templates/") and n.endswith(".j2") for n in names)
    assert any(n.startswith("dedalus2asp/encodings/") and n.endswith(".lp") for n in names)


def test_wheel_declares_the_console_script(wheel):
    (entry_points,) = [n for n in wheel.namelist() if n.endswith(".dist-info/entry_points.txt")]
    text = wheel.read(entry_points).decode("utf-8")
    assert "[console_scripts]" in text
    assert "dedalus2asp = dedalus2asp.cli:main" in text
