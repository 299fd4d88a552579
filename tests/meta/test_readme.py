"""The README: its metric table, its two set-up commands, and its Python examples.

Part 1. The README's metric table names every registered metric (every public name has
its page in the API reference: tests/meta/test_docs.py).

Part 2. The README's two set-up commands: CI runs the second; this runs the first, clean.
The first command (install the package, run the demonstration) runs in a copy of the
repository with a new virtual environment, exactly as written, so it cannot rot.

Part 3. The README's Python examples run as written and print what the README shows.
All ```python blocks run in order in one fresh interpreter (later examples continue
earlier ones, and an example may change scikit-learn's global configuration). A
block followed by a ```text block must print exactly that text.
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import sklearn

from sklearn_rank_metrics._metrics._registry import METRICS

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()

# ---------------------------------------------------------------------------
# Part 1: the metric table names every registered metric and public function
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(METRICS))
def test_registered_name_is_in_readme_table(name):
    assert re.search(rf"`{name}(@k)?`", README), f"README table lacks {name!r}"


# ---------------------------------------------------------------------------
# Part 2: the two set-up commands
# ---------------------------------------------------------------------------

SETUP_SECTION = README.split("## Two commands for a fresh machine", 1)[1].split("\n## ", 1)[0]
COMMANDS = re.findall(r"```bash\n(.*?)\n```", SETUP_SECTION, re.DOTALL)


def test_readme_has_two_setup_commands_and_ci_runs_the_second():
    assert len(COMMANDS) == 2
    ci_lines = (ROOT / ".ci" / "run").read_text().strip().splitlines()
    assert ci_lines[-1] == COMMANDS[1]


def _copy_of_the_repository(destination: Path) -> None:
    """Tracked and untracked-but-not-ignored files, as a fresh checkout would have."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout.splitlines()
    for name in listed:
        source = ROOT / name
        if source.is_file():
            target = destination / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


def _environment_outside_any_virtualenv() -> dict:
    """This process's environment as a new shell would have it: no active venv."""
    environment = dict(os.environ)
    active = environment.pop("VIRTUAL_ENV", None)
    if active:
        environment["PATH"] = os.pathsep.join(
            entry for entry in environment["PATH"].split(os.pathsep)
            if not entry.startswith(active)
        )
    environment.pop("PYTHONPATH", None)
    return environment


REPORT_ROW = re.compile(
    r"^(?P<metric>\S+)?\s+(?P<model>tuned model|random)\s+(?P<mean>\d\.\d{4})\s+"
    r"(?P<stderr>\d\.\d{4})\s+(?P<queries>\d+)\s+(?P<undefined>\d+)\s+(?P<skipped>\d+)$"
)


def report_rows(text):
    """``{(metric, model): (mean, queries)}`` of a report printed as text."""
    rows, metric = {}, None
    for line in text.splitlines():
        match = REPORT_ROW.match(line)
        if match:
            metric = match["metric"] or metric
            rows[metric, match["model"]] = (float(match["mean"]), int(match["queries"]))
    return rows


def demo_sections(output):
    """The Python report and the command line's report of the demo's output."""
    python_part = output.split("ranking_report on the held-out queries", 1)[1]
    python_part, cli_part = python_part.split("$ rank-metrics evaluate --table", 1)
    return report_rows(python_part), report_rows(cli_part)


def test_first_command_installs_and_runs_the_demo_in_a_clean_environment(tmp_path):
    checkout = tmp_path / "checkout"
    _copy_of_the_repository(checkout)
    completed = subprocess.run(
        ["bash", "-c", COMMANDS[0]],
        cwd=checkout, capture_output=True, text=True, timeout=900,
        env=_environment_outside_any_virtualenv(),
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert "rank-metrics: error" not in completed.stderr, completed.stderr[-3000:]
    output = completed.stdout
    # the base install: NumPy, SciPy and scikit-learn, no pandas or other extra
    python = str(checkout / ".venv" / "bin" / "python")
    for extra in ("pandas", "matplotlib", "pyarrow", "dask"):
        probe = subprocess.run([python, "-c", f"import {extra}"], capture_output=True)
        assert probe.returncode != 0, f"{extra} is installed by the base command"
    # the demo's steps: data, tuning, report against random, the command line on a file
    assert "make_ranking: 300 queries" in output
    assert "<- best" in output
    assert "(demo ran in" in output
    python_report, cli_report = demo_sections(output)
    metrics = ["ndcg@10", "map", "mrr@10", "p@5", "recall@10"]
    models = ("tuned model", "random")
    assert set(python_report) == {(metric, model) for metric in metrics for model in models}
    assert all(queries == 90 for _, queries in python_report.values())
    # the command line read the CSV file (no pandas) and printed the same numbers
    assert set(cli_report) == {(metric, model) for metric in ("ndcg@10", "map") for model in models}
    for key, value in cli_report.items():
        assert value == python_report[key]
    # every metric is a mean over queries, inside [0, 1]; tuning beats a random ranking
    assert all(0.0 <= mean <= 1.0 for mean, _ in python_report.values())
    for metric in metrics:
        assert python_report[metric, "tuned model"][0] > python_report[metric, "random"][0] + 0.1
    # the README's first example prints what the README shows after this install
    first_example, shown = _examples()[0]
    printed = subprocess.run(
        [python, "-c", first_example], capture_output=True, text=True, timeout=120,
        cwd=tmp_path, env=_environment_outside_any_virtualenv(),
    )
    assert printed.returncode == 0, printed.stderr[-3000:]
    assert printed.stdout.strip() == shown
    # the install also put the console script in the new environment
    script = subprocess.run(
        [str(checkout / ".venv" / "bin" / "rank-metrics"), "evaluate", "--help"],
        capture_output=True, text=True, timeout=120,
    )
    assert script.returncode == 0 and "--qrels" in script.stdout


def test_demo_exits_non_zero_when_a_step_fails(monkeypatch, capsys):
    from sklearn_rank_metrics import demo

    real_run = subprocess.run  # other libraries (joblib) start processes too

    def failing_command_line(command, **kwargs):
        if command[1:3] != ["-m", "sklearn_rank_metrics"]:
            return real_run(command, **kwargs)
        assert "--table" in command
        return subprocess.CompletedProcess(command, returncode=2)

    monkeypatch.setattr(demo.subprocess, "run", failing_command_line)
    assert demo.main() == 2
    assert "the command line failed with exit status 2" in capsys.readouterr().err


# ---------------------------------------------------------------------------
# Part 3: the Python examples run as written
# ---------------------------------------------------------------------------

BLOCK = re.compile(r"```(python|text)\n(.*?)```", re.DOTALL)
MARKER = "----- end of README example -----"


def _examples():
    """(code, expected output or None) for every python block, in order."""
    blocks = [(match.group(1), match.group(2), match.start(), match.end())
              for match in BLOCK.finditer(README)]
    examples = []
    for index, (kind, text, _, end) in enumerate(blocks):
        if kind != "python":
            continue
        following = blocks[index + 1] if index + 1 < len(blocks) else None
        adjacent = following is not None and README[end:following[2]].strip() == ""
        expected = following[1].strip() if adjacent and following[0] == "text" else None
        examples.append((text, expected))
    return examples


def test_readme_has_a_checked_example():
    examples = _examples()
    assert sum(expected is not None for _, expected in examples) >= 1


def test_readme_examples_print_what_the_readme_shows():
    examples = _examples()
    program = f"\nprint({MARKER!r})\n".join(code for code, _ in examples)
    program += f"\nprint({MARKER!r})\n"
    completed = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=False
    )
    assert completed.returncode == 0, completed.stderr
    outputs = completed.stdout.split(MARKER + "\n")[:-1]
    assert len(outputs) == len(examples)
    if tuple(int(part) for part in sklearn.__version__.split(".")[:2]) < (1, 9):
        pytest.skip(
            "The README's numbers come from scikit-learn >= 1.9, whose GroupKFold breaks "
            "ties between equal-sized queries stably; older versions build other folds."
        )
    for (code, expected), output in zip(examples, outputs, strict=True):
        if expected is not None:
            assert output.strip() == expected, f"README example:\n{code}\nprinted:\n{output}"
