"""Every `$ dedalus2asp ...` block of README.md, docs/*.md and examples/README.md with its output is a test
(tests/transcripts.py says how a block is read and compared). `pytest tests/test_docs.py --update-docs` rewrites
the blocks that differ to show what the tool prints, keeping their `...` elisions where they still match."""

from __future__ import annotations

import unittest

import pytest
from sybil.example import SybilFailure

import transcripts
from transcripts import ROOT, align, matches


def page_blocks() -> list:
    return [pytest.param(page, group[-1].parsed.start, id=f"{page.relative_to(ROOT)}:{group[-1].line}")
            for page in transcripts.pages() for group in transcripts.examples(page)]


@pytest.fixture(scope="module")
def update(request):
    yield request.config.getoption("--update-docs")
    for page in transcripts.apply_updates():
        print(f"rewrote {page}")


def evaluate(group) -> None:
    """The skip directives before a block, then the block; a skip's reason is the test's (`-ra` prints it)."""
    try:
        for example in group:
            example.evaluate()
    except unittest.SkipTest as skip:
        pytest.skip(str(skip))


@pytest.mark.parametrize(("page", "start"), page_blocks())
def test_the_page_shows_what_the_command_prints(page, start, update):
    evaluate(next(g for g in transcripts.examples(page, update) if g[-1].parsed.start == start))


# ---- the harness itself --------------------------------------------------------------------------------------

PAGE = """Some text.

```
$ dedalus2asp explore examples/tplp2016/fig4_noncausal.ded --input examples/tplp2016/fig4.facts --horizon 2
6 distinct trace(s); 10 configurations explored (horizon 2)
$ dedalus2asp check examples/tplp2016/fig4_noncausal.ded
examples/tplp2016/fig4_noncausal.ded: 5 rule(s), well formed
...
output relations: T
...
```

<!-- skip: next "not ours to ship" -->
```
$ dedalus2asp check missing.ded
missing.ded: 1 rule(s), well formed
```
"""


def page_examples(tmp_path, text: str, update: bool = False):
    path = tmp_path / "page.md"
    path.write_text(text, encoding="utf-8")
    return path, transcripts.examples(path, update)


def test_a_changed_line_fails_and_update_mode_restores_it(tmp_path):
    _, groups = page_examples(tmp_path, PAGE)
    evaluate(groups[0])  # the page as the tool prints it
    changed = PAGE.replace("10 configurations", "11 configurations")
    path, groups = page_examples(tmp_path, changed)
    with pytest.raises(SybilFailure) as failure:
        evaluate(groups[0])
    assert "-6 distinct trace(s); 11 configurations explored (horizon 2)" in str(failure.value)
    assert "+6 distinct trace(s); 10 configurations explored (horizon 2)" in str(failure.value)
    _, groups = page_examples(tmp_path, changed, update=True)
    evaluate(groups[0])
    assert transcripts.apply_updates() == [str(path)]
    assert path.read_text(encoding="utf-8") == PAGE  # the elisions kept, the changed line put back


def test_a_skipped_block_says_why(tmp_path):
    _, groups = page_examples(tmp_path, PAGE)
    with pytest.raises(pytest.skip.Exception, match="not ours to ship"):
        evaluate(groups[1])


def test_elisions_durations_and_dropped_lines():
    printed = ["a", "b", "c (0.0109 s)", "d"]
    assert matches(["a", "...", "d"], printed)
    assert matches(["a", "b", "c (1.5 s)", "d"], printed)  # any duration
    assert matches(["a", "b", "c ...", "..."], printed)
    assert not matches(["a", "c (0.1 s)", "d"], printed)  # a line dropped without `...`
    assert not matches(["a", "b", "c (0.1 s)"], printed)
    assert align(["a", "...", "x", "d"], printed) == ["a", "...", "d"]  # a line no longer printed goes
    assert align(["a", "b", "c", "d"], printed) == ["a", "b", "c (0.0109 s)", "d"]  # a changed one, in place
    assert align(["a", "...", "c (9 s)"], printed) == ["a", "...", "c (9 s)", "d"]  # the elision kept


def test_every_transcript_block_of_the_docs_is_collected():
    """Each fenced block that starts with a `$ ` command is a test: none escapes the parser."""
    import re

    shown = sum(len(re.findall(r"^ *```\n *\$ ", page.read_text(encoding="utf-8"), re.M))
                for page in transcripts.pages())
    assert len(page_blocks()) == shown > 40
