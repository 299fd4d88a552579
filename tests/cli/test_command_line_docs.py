"""The user guide's command-line page: every console block runs and prints what it shows.

``docs/user_guide/command_line.rst`` shows ``rank-metrics evaluate`` commands in
``.. code-block:: console`` blocks, each ``$ rank-metrics ...`` line followed by the
output. This test runs the page's Python doctests in a temporary directory (they write
the files the commands read), then every command through the console script's entry
point, and compares its standard output with the block, line by line.
"""

from __future__ import annotations

import doctest
import io
import re
import shlex
from pathlib import Path

import pytest

from sklearn_rank_metrics._cli import main

PAGE = Path(__file__).resolve().parents[2] / "docs" / "user_guide" / "command_line.rst"
CONSOLE = re.compile(r"^\.\. code-block:: console\n\n((?:   .*\n|\n)+)", re.MULTILINE)


def console_examples(text: str) -> list[tuple[str, list[str]]]:
    """``(command, expected output lines)`` of every ``$`` line of the console blocks."""
    examples: list[tuple[str, list[str]]] = []
    for block in CONSOLE.findall(text):
        for indented in block.rstrip("\n").split("\n"):
            line = indented[3:]
            if line.startswith("$ "):
                examples.append((line[2:], []))
            else:
                examples[-1][1].append(line.rstrip())
    return examples


EXAMPLES = console_examples(PAGE.read_text())


def test_the_page_has_console_examples_of_each_input():
    commands = " ".join(command for command, _ in EXAMPLES)
    assert len(EXAMPLES) >= 5
    for option in ("--qrels", "--table", "--letor", "--baseline", "--format trec_eval"):
        assert option in commands, option


@pytest.fixture
def page_files(tmp_path, monkeypatch):
    """Run the page's Python examples (which write the files) in a temporary directory."""
    monkeypatch.chdir(tmp_path)
    text = PAGE.read_text()
    test = doctest.DocTestParser().get_doctest(text, {}, PAGE.name, str(PAGE), 0)
    report = io.StringIO()
    result = doctest.DocTestRunner().run(test, out=report.write)
    assert result.attempted > 0 and result.failed == 0, report.getvalue()
    return tmp_path


@pytest.mark.parametrize(("command", "expected"), EXAMPLES, ids=[c[:60] for c, _ in EXAMPLES])
def test_console_example_prints_what_the_page_shows(page_files, capsys, command, expected):
    argv = shlex.split(command)
    assert argv[0] == "rank-metrics"
    status = main(argv[1:])
    captured = capsys.readouterr()
    assert status in (0, None), captured.err
    printed = [line.rstrip() for line in captured.out.rstrip("\n").split("\n")]
    assert printed == expected
