"""The README's two set-up commands: CI runs the second; this runs the first, clean.

The first command (install the package, run the demonstration) runs in a copy of the
repository with a new virtual environment, exactly as written, so it cannot rot.
"""

import os
import re
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
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
