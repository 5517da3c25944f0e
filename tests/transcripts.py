"""The docs' shell transcripts as tests: every fenced block of README.md, docs/*.md and examples/README.md whose
first line is a `$ command` runs, and what it prints must be what the block shows.

Parsing is sybil's (`RawFencedCodeBlockLexer` for the fences, `SkipParser` for `<!-- skip: next "reason" -->`, whose
reason pytest's `-ra` prints); this module only says what a transcript is and how its output is compared:

* a line `$ COMMAND` (continued by a trailing backslash) is a command, the lines after it up to the next `$` its
  output: standard output and standard error as a terminal shows them, interleaved;
* a line that is only `...` (indented or not) stands for any number of lines, none included; `...` inside a line
  stands for any text on that line;
* durations (`0.0109 s`, `1 min 05 s`) compare equal whatever their value; the path of the scratch directory the
  block runs in, and of the repository, are removed; progress lines (`count: part 3 of 8, ... elapsed`, written
  on standard error only when work lasts over 5 s) are dropped;
* a block of commands none of which shows output (a list of commands to try) is run and must not fail (exit 0 or
  1), its output not compared.

Each block runs in its own scratch directory holding links to the repository's `examples/`, `tests/` and
`benchmarks/`, so a page's relative paths work and the files a command writes stay out of the repository; with
MOLLY=DIR (Molly's `src/test/resources/examples_ft`) the entries of DIR are linked there too, and the blocks that
run Molly's own programs, skipped without it, run. A command
`dedalus2asp ARGS` runs in this process (typer's CliRunner: no interpreter start-up per command); anything else
(a pipe, a redirection, a loop) runs under bash with this interpreter's `dedalus2asp` on PATH.

`update(...)` rewrites a block so that it shows what the commands print, keeping each `...` elision where it still
matches; `pytest tests/test_docs.py --update-docs` applies it to every page.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from sybil import Document, Example, Region, Sybil
from sybil.parsers.markdown import SkipParser
from sybil.parsers.markdown.lexers import RawFencedCodeBlockLexer

ROOT = Path(__file__).resolve().parent.parent
PAGES = ["README.md", "docs/*.md", "examples/README.md"]
LINKED = ("examples", "tests", "benchmarks")

ELISION = "..."
DURATION = re.compile(r"\b\d+(?:\.\d+)? (?:h \d+ min|min \d+ s|s|ms)\b")
PROGRESS = re.compile(r"^\w+: \w+ [\d,]+\b.*\belapsed\b")
SHELL = set("|&;<>()$`*?[]{}~")


@dataclasses.dataclass
class Command:
    text: str  # as the page shows it, without "$ " (continuation lines joined by their backslashes)
    lines: list[str]  # the page's lines of the command, "$ " included
    expected: list[str]  # the output the page shows


@dataclasses.dataclass
class Transcript:
    commands: list[Command]
    prefix: str  # the indentation of the fence (a block inside a list item)

    @property
    def shows_output(self) -> bool:
        return any(command.expected for command in self.commands)

    def render(self, outputs: list[list[str]]) -> str:
        lines = [line for command, output in zip(self.commands, outputs) for line in command.lines + output]
        return "".join(self.prefix + line + "\n" if line else "\n" for line in lines)


def parse_transcript(source: str, prefix: str = "") -> Transcript | None:
    """The commands and shown outputs of a block; None unless its first line is a `$ ` command."""
    lines = source.rstrip("\n").split("\n")
    if not lines or not lines[0].startswith("$ "):
        return None
    commands: list[Command] = []
    continued = False
    for line in lines:
        if continued:
            commands[-1].lines.append(line)
            commands[-1].text += "\n" + line
        elif line.startswith("$ "):
            commands.append(Command(line[2:], [line], []))
        else:
            commands[-1].expected.append(line)
        continued = line.endswith("\\") and not commands[-1].expected
    return Transcript(commands, prefix)


# ---- comparing -------------------------------------------------------------------------------------------------

def normalise(text: str, scratch: Path | None = None) -> list[str]:
    """What the tool printed, as it is compared: scratch and repository paths removed, progress lines dropped,
    trailing blanks stripped."""
    for path in filter(None, (scratch, ROOT)):
        text = text.replace(f"{path}/", "").replace(str(path), ".")
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return [line for line in lines if not PROGRESS.match(line)]


def is_elision(line: str) -> bool:
    return line.strip() == ELISION


def line_pattern(expected: str) -> re.Pattern:
    pieces = DURATION.sub("\0", expected.rstrip()).split(ELISION)
    return re.compile(".*?".join(re.escape(piece).replace("\0", DURATION.pattern) for piece in pieces))


def line_matches(expected: str, actual: str) -> bool:
    return line_pattern(expected).fullmatch(actual) is not None


def align(expected: list[str], actual: list[str]) -> list[str]:
    """The lines a page should show for `actual`: `expected` where it still matches (its elisions, its durations),
    what the tool printed where it does not. An alignment of the lines that keeps as many shown lines as possible,
    then changes as few as possible: an elision takes any lines at no cost; a line shown but not printed, printed
    but not shown, or shown in place of another costs 1 (a changed line is shown in place, not dropped before an
    elision); a shown line that matches a printed one gains more than all changes can cost."""
    n, m = len(expected), len(actual)
    gain = n + m + 1
    same = [[line_matches(e, a) for a in actual] if not is_elision(e) else [] for e in expected]
    cost = [[0] * (m + 1) for _ in range(n + 1)]
    for j in range(m + 1):
        cost[n][j] = m - j
    for i in range(n - 1, -1, -1):
        for j in range(m, -1, -1):
            if is_elision(expected[i]):
                cost[i][j] = min(cost[i + 1][j], cost[i][j + 1] if j < m else m)
            else:
                best = 1 + cost[i + 1][j]
                if j < m:
                    best = min(best, 1 + cost[i][j + 1], (-gain if same[i][j] else 1) + cost[i + 1][j + 1])
                cost[i][j] = best
    shown, i, j = [], 0, 0
    while i < n or j < m:
        if i == n:
            shown.append(actual[j])
            j += 1
        elif is_elision(expected[i]):
            if j < m and cost[i][j] == cost[i][j + 1]:
                j += 1  # elided
            else:
                shown.append(expected[i])
                i += 1
        elif j < m and cost[i][j] == (-gain if same[i][j] else 1) + cost[i + 1][j + 1]:
            shown.append(expected[i] if same[i][j] else actual[j])  # the same, or changed in place
            i, j = i + 1, j + 1
        elif cost[i][j] == 1 + cost[i + 1][j]:
            i += 1  # no longer printed
        else:
            shown.append(actual[j])
            j += 1
    return shown


def matches(expected: list[str], actual: list[str]) -> bool:
    return align(expected, actual) == expected


def difference(expected: list[str], actual: list[str]) -> str:
    """A unified diff of what the page shows against what it should show."""
    import difflib

    return "\n".join(difflib.unified_diff(expected, align(expected, actual), "shown", "printed", lineterm=""))


# ---- running ---------------------------------------------------------------------------------------------------

@contextlib.contextmanager
def scratch_directory():
    """A directory for one block's commands, with links to the repository's folders its paths name."""
    with tempfile.TemporaryDirectory(prefix="docs-") as name:
        scratch = Path(name)
        for folder in LINKED:
            (scratch / folder).symlink_to(ROOT / folder)
        for entry in molly_programs():
            if not (scratch / entry.name).exists():
                (scratch / entry.name).symlink_to(entry)
        yield scratch


def molly_programs() -> list[Path]:
    """The entries of Molly's `src/test/resources/examples_ft` when the environment variable MOLLY names that folder
    (the blocks that run Molly's own programs are skipped without it; they are not ours to ship)."""
    folder = os.environ.get("MOLLY")
    return sorted(Path(folder).iterdir()) if folder else []


def in_process(command: str) -> list[str] | None:
    """The arguments of `dedalus2asp ARGS` when the shell has nothing to do (no pipe, redirection, loop, variable or
    pattern outside quotes)."""
    unquoted = re.sub(r"'[^']*'|\"[^\"]*\"", "", command.split(" #")[0])
    if SHELL & set(unquoted):
        return None
    words = shlex.split(command.replace("\\\n", " "), comments=True)
    return words[1:] if words and words[0] == "dedalus2asp" else None


def run(command: str, scratch: Path) -> tuple[int, str]:
    """Exit status and output (standard output and error interleaved) of one command run in `scratch`."""
    arguments = in_process(command)
    if arguments is None:
        env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
        done = subprocess.run(["bash", "-c", command], cwd=scratch, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=600)
        return done.returncode, done.stdout
    from typer.testing import CliRunner

    from dedalus2asp.cli import app

    here = Path.cwd()
    os.chdir(scratch)
    try:
        result = CliRunner().invoke(app, arguments)
    finally:
        os.chdir(here)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.output


@dataclasses.dataclass
class Outcome:
    transcript: Transcript
    outputs: list[list[str]]  # what each command printed, normalised
    statuses: list[int]

    def failures(self) -> str:
        """Empty when the block shows what its commands print; else what differs, command by command."""
        report = []
        for command, output, status in zip(self.transcript.commands, self.outputs, self.statuses):
            if status not in (0, 1, 2, 3) or (not self.transcript.shows_output and status not in (0, 1)):
                report.append(f"$ {command.text}\nexit status {status}:\n" + "\n".join(output))
            elif self.transcript.shows_output and not matches(command.expected, output):
                printed = "\n".join(output[:80] + ([f"[... {len(output) - 80} more lines]"] if len(output) > 80 else []))
                report.append(f"$ {command.text}\n{difference(command.expected, output)}\nprinted:\n{printed}")
        return "\n\n".join(report)

    def updated(self) -> str:
        """The block's text showing what its commands print, each elision kept where it still matches."""
        return self.transcript.render([align(c.expected, o) for c, o in zip(self.transcript.commands, self.outputs)])


def run_transcript(transcript: Transcript) -> Outcome:
    outputs, statuses = [], []
    with scratch_directory() as scratch:
        for command in transcript.commands:
            status, output = run(command.text, scratch)
            outputs.append(normalise(output, scratch))
            statuses.append(status)
    return Outcome(transcript, outputs, statuses)


# ---- sybil -----------------------------------------------------------------------------------------------------

@dataclasses.dataclass
class Block:
    transcript: Transcript
    start: int  # where the block's text (after the opening fence line) starts in the page
    end: int


UPDATES: dict[str, list[tuple[int, int, str]]] = {}
"""In update mode, per page: (start, end, new text) of each block that differs."""


class TranscriptParser:
    """A sybil parser: the regions of a page's fenced blocks (no info string, or `console`) that are transcripts."""

    lexer = RawFencedCodeBlockLexer(info_pattern=re.compile(r"(?:console|shell-session)?$\n", re.MULTILINE))

    def __init__(self, update: bool = False):
        self.update = update

    def __call__(self, document: Document):
        for lexed in self.lexer(document):
            text = document.text
            prefix = text[lexed.start:text.index("`", lexed.start)] if "`" in text[lexed.start:lexed.end] else ""
            transcript = parse_transcript(lexed.lexemes["source"], prefix if not prefix.strip() else "")
            if transcript is None:
                continue
            start = lexed.start + lexed.lexemes["source"].offset
            end = text.rfind("\n", 0, lexed.end) + 1  # the closing fence's line
            yield Region(lexed.start, lexed.end, Block(transcript, start, end), self.evaluate)

    def evaluate(self, example: Example) -> str | None:
        block: Block = example.parsed
        outcome = run_transcript(block.transcript)
        failures = outcome.failures()
        if failures and self.update and outcome.transcript.shows_output:
            UPDATES.setdefault(example.path, []).append((block.start, block.end, outcome.updated()))
            return None
        return failures or None


def pages() -> list[Path]:
    return sorted({path for pattern in PAGES for path in ROOT.glob(pattern)})


def sybil(update: bool = False) -> Sybil:
    return Sybil(parsers=[SkipParser(), TranscriptParser(update)], path=str(ROOT), patterns=PAGES)


def examples(page: Path, update: bool = False) -> list[list[Example]]:
    """The page's transcripts, each with the skip directives since the one before (evaluated first, in order)."""
    groups, pending = [], []
    document = sybil(update).parse(page)
    document.namespace["MOLLY"] = os.environ.get("MOLLY")  # `<!-- skip: next if(not MOLLY, reason="...") -->`
    for example in document:
        pending.append(example)
        if isinstance(example.parsed, Block):
            groups.append(pending)
            pending = []
    return groups


def apply_updates() -> list[str]:
    """Write the blocks recorded in update mode into their pages; the pages rewritten."""
    written = []
    for path, edits in sorted(UPDATES.items()):
        text = Path(path).read_text(encoding="utf-8")
        for start, end, new in sorted(edits, reverse=True):
            text = text[:start] + new + text[end:]
        Path(path).write_text(text, encoding="utf-8")
        written.append(path)
    UPDATES.clear()
    return written
