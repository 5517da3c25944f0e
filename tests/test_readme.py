"""The README's two commands are what a newcomer runs and what CI runs: keep them in step."""

from __future__ import annotations

import re

from conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def code_blocks(text: str) -> list[str]:
    return [block.strip() for block in re.findall(r"^```\n(.*?)^```", text, re.M | re.S)]


def test_the_first_command_installs_and_runs_an_example():
    first = code_blocks(README)[0]
    assert first.startswith('pip install -e ".[dev]" && dedalus2asp models examples/')


def test_ci_runs_exactly_the_readme_test_command():
    test_command = code_blocks(README)[1]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()
    assert ci[-1] == test_command


def test_the_test_command_installs_what_the_tests_need():
    tools = (ROOT / "tests" / "tools.sh").read_text(encoding="utf-8")
    assert code_blocks(README)[1].startswith("bash tests/tools.sh && ")
    assert "chromium" in tools and "default-jre-headless" in tools


def test_the_jupyter_front_end_of_the_docs_comes_with_the_dev_extra():
    """The docs say to open the notebooks with `jupyter notebook`: the dev extra installs it."""
    import tomllib

    docs = (ROOT / "docs" / "README.md").read_text(encoding="utf-8")
    assert "jupyter notebook notebooks/" in docs
    dev = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]["dev"]
    assert any(re.match(r"notebook\b", requirement) for requirement in dev)
