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


def test_first_command_installs_and_runs_the_demo_in_a_clean_environment(tmp_path):
    checkout = tmp_path / "checkout"
    _copy_of_the_repository(checkout)
    completed = subprocess.run(
        ["bash", "-c", COMMANDS[0]],
        cwd=checkout, capture_output=True, text=True, timeout=900,
        env=_environment_outside_any_virtualenv(),
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    output = completed.stdout
    # the demo's steps: data, tuning, report against random, the command line on a file
    assert "make_ranking: 300 queries" in output
    assert "<- best" in output
    assert "ranking_report on the held-out queries" in output
    assert "$ rank-metrics evaluate --table" in output
    report_lines = [line.split() for line in output.splitlines()]
    tuned = [line for line in report_lines if line[:3] == ["ndcg@10", "tuned", "model"]]
    random = [line for line in report_lines if line[:1] == ["random"]]
    assert tuned and random
    # tuned model beats random ranking on NDCG@10 in the report and in the CLI's report
    assert float(tuned[0][3]) > float(random[0][1]) + 0.2
    # the install also put the console script in the new environment
    script = subprocess.run(
        [str(checkout / ".venv" / "bin" / "rank-metrics"), "evaluate", "--help"],
        capture_output=True, text=True, timeout=120,
    )
    assert script.returncode == 0 and "--qrels" in script.stdout
