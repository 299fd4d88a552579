"""The package builds and installs as a release would.

``python -m build`` makes an sdist and a wheel from a copy of the repository; the
wheel holds the package and ``py.typed`` and nothing else (no tests, no data);
``twine check`` accepts both; the wheel installs into a new virtual environment
(base dependencies only) where the demonstration runs and every version source
agrees.
"""

import subprocess
import sys
import zipfile

import sklearn_rank_metrics
from tests.meta.test_readme import (
    _copy_of_the_repository,
    _environment_outside_any_virtualenv,
    demo_sections,
)


def run(command, **kwargs):
    completed = subprocess.run(command, capture_output=True, text=True, timeout=900, **kwargs)
    assert completed.returncode == 0, (command, completed.stdout[-2000:], completed.stderr[-3000:])
    return completed.stdout


def test_wheel_and_sdist_build_check_install_and_run(tmp_path):
    checkout = tmp_path / "checkout"
    _copy_of_the_repository(checkout)
    dist = tmp_path / "dist"
    run([sys.executable, "-m", "build", "--outdir", str(dist), str(checkout)])
    (wheel,) = dist.glob("*.whl")
    (sdist,) = dist.glob("*.tar.gz")
    version = sklearn_rank_metrics.__version__
    assert wheel.name == f"sklearn_rank_metrics-{version}-py3-none-any.whl"
    assert sdist.name == f"sklearn_rank_metrics-{version}.tar.gz"

    names = zipfile.ZipFile(wheel).namelist()
    package = [name for name in names if name.startswith("sklearn_rank_metrics/")]
    info = f"sklearn_rank_metrics-{version}.dist-info/"
    metadata = [name for name in names if name.startswith(info)]
    assert sorted(package + metadata) == sorted(names)  # nothing beside the two folders
    assert "sklearn_rank_metrics/py.typed" in package
    assert {"sklearn_rank_metrics/__init__.py", "sklearn_rank_metrics/demo.py"} <= set(package)
    assert all(name.endswith((".py", "py.typed")) for name in package)  # no data, no tests
    assert f"{info}licenses/LICENSE" in metadata
    wheel_metadata = zipfile.ZipFile(wheel).read(f"{info}METADATA").decode()
    assert f"\nVersion: {version}\n" in wheel_metadata
    assert "\nLicense-Expression: BSD-3-Clause\n" in wheel_metadata

    checked = run([sys.executable, "-m", "twine", "check", "--strict", str(wheel), str(sdist)])
    assert checked.count("PASSED") == 2

    environment = tmp_path / "venv"
    plain = _environment_outside_any_virtualenv()
    run([sys.executable, "-m", "venv", str(environment)], env=plain)
    python = str(environment / "bin" / "python")
    run([python, "-m", "pip", "install", "--quiet", str(wheel)], env=plain)
    # run from an empty folder so that only the installed wheel can be imported
    workdir = tmp_path / "elsewhere"
    workdir.mkdir()
    output = run([python, "-m", "sklearn_rank_metrics.demo"], cwd=workdir, env=plain)
    python_report, cli_report = demo_sections(output)
    assert len(python_report) == 10 and len(cli_report) == 4
    assert all(python_report[key] == value for key, value in cli_report.items())
    located = run(
        [python, "-c", "import sklearn_rank_metrics as m; print(m.__version__, m.__file__)"],
        cwd=workdir, env=plain,
    ).split()
    assert located[0] == version and str(environment) in located[1]
    script = run([str(environment / "bin" / "rank-metrics"), "--version"], cwd=workdir, env=plain)
    assert script.strip() == f"rank-metrics {version}"
