"""The machine and software lines at the top of every benchmark report."""

from __future__ import annotations

import contextlib
import json
import os
import platform
import re
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


# NumPy's names for the x86 dispatch targets of each level (NumPy 2.x groups them as
# X86_V3 and X86_V4; NumPy 1.x dispatched to AVX2, AVX512F, AVX512_SKX ... one by one)
DISPATCH_LEVELS = ("baseline", "avx2", "avx512")
DISABLE_VARIABLE = "NPY_DISABLE_CPU_FEATURES"


def simd_features(env: dict[str, str] | None = None) -> dict[str, list[str]]:
    """NumPy's SIMD extensions as ``np.show_runtime()`` reports them: ``baseline`` (always
    used), ``found`` (dispatch targets this run uses) and ``not_found`` (dispatch targets
    the CPU lacks, or disabled by ``NPY_DISABLE_CPU_FEATURES``, which NumPy reads once at
    import: a disabled target shows as False in ``__cpu_features__``).

    With ``env``, the answer of a fresh interpreter with that environment instead of this
    process (e.g. to see what the CPU offers without the limit).
    """
    if env is not None:
        done = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--simd-json"],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
            env=env,
        )
        return json.loads(done.stdout)
    try:
        from numpy._core._multiarray_umath import (
            __cpu_baseline__,
            __cpu_dispatch__,
            __cpu_features__,
        )
    except ImportError:  # NumPy < 2
        from numpy.core._multiarray_umath import (
            __cpu_baseline__,
            __cpu_dispatch__,
            __cpu_features__,
        )
    return {
        "baseline": list(__cpu_baseline__),
        "found": [name for name in __cpu_dispatch__ if __cpu_features__.get(name)],
        "not_found": [name for name in __cpu_dispatch__ if not __cpu_features__.get(name)],
    }


def _rank(name: str) -> int:
    """0, 1 or 2: the index in DISPATCH_LEVELS of one NumPy SIMD feature name."""
    if name == "X86_V4" or name.startswith("AVX512"):
        return 2
    return 1 if name in ("X86_V3", "AVX2") else 0


def dispatch_level(simd: dict[str, list[str]] | None = None) -> str:
    """The highest SIMD level NumPy dispatches to in this run: "avx512" (X86_V4,
    AVX512_SKX, AVX512_ICL, ... found or in the baseline), "avx2" (X86_V3 or AVX2) or
    "baseline" (neither, also every non-x86 CPU). Dispatch targets disabled by
    ``NPY_DISABLE_CPU_FEATURES`` do not count. Names the results files of benchmarks
    (sorts dispatch to AVX-512 or AVX2 kernels, so ratios to ``np.argsort`` differ).
    """
    simd = simd_features() if simd is None else simd
    return DISPATCH_LEVELS[max(map(_rank, simd["baseline"] + simd["found"]), default=0)]


def unlimited_dispatch_level() -> str:
    """The dispatch level of this CPU without ``NPY_DISABLE_CPU_FEATURES`` (a subprocess
    when the variable is set)."""
    if not os.environ.get(DISABLE_VARIABLE):
        return dispatch_level()
    env = {name: value for name, value in os.environ.items() if name != DISABLE_VARIABLE}
    return dispatch_level(simd_features(env))


def features_above(level: str, simd: dict[str, list[str]] | None = None) -> list[str]:
    """The dispatch targets found in this run that lie above ``level``: the names to add to
    ``NPY_DISABLE_CPU_FEATURES`` so that NumPy dispatches no higher (for "baseline",
    every found target). Targets in NumPy's baseline cannot be disabled and are left out.
    """
    rank = DISPATCH_LEVELS.index(level)
    simd = simd_features() if simd is None else simd
    return [name for name in simd["found"] if rank == 0 or _rank(name) > rank]


def limited_environment(level: str) -> dict[str, str] | None:
    """``os.environ`` plus ``NPY_DISABLE_CPU_FEATURES`` extended to limit NumPy's dispatch
    to ``level``; None if this run dispatches no higher already."""
    if DISPATCH_LEVELS.index(dispatch_level()) <= DISPATCH_LEVELS.index(level):
        return None
    disabled = os.environ.get(DISABLE_VARIABLE, "").replace(",", " ").split()
    names = disabled + [name for name in features_above(level) if name not in disabled]
    return {**os.environ, DISABLE_VARIABLE: " ".join(names)}


def simd_line() -> str:
    """NumPy's SIMD baseline, the extensions it dispatches to and its dispatch level.

    The same facts as ``np.show_runtime()`` ("simd_extensions": baseline, found,
    not_found), on one line: sorts dispatch to AVX-512 or AVX2 kernels, so ratios to
    ``np.argsort`` differ by CPU kind. ``NPY_DISABLE_CPU_FEATURES``, if set, is shown
    with the level this CPU reaches without it.
    """
    simd = simd_features()
    level = dispatch_level(simd)
    line = (
        f"- NumPy SIMD (np.show_runtime): baseline {' '.join(simd['baseline']) or 'none'}; "
        f"found {' '.join(simd['found']) or 'none'}; "
        f"not found {' '.join(simd['not_found']) or 'none'}; dispatch level {level}"
    )
    disabled = os.environ.get(DISABLE_VARIABLE)
    if disabled:
        unlimited = unlimited_dispatch_level()
        effect = "no effect on the level" if unlimited == level else f"{unlimited} without it"
        line += f", **limited** by {DISABLE_VARIABLE}={disabled} ({effect})"
    return line


def machine_lines(versions: str = "") -> list[str]:
    """Markdown lines: CPU, RAM, OS and huge-page settings, NumPy's SIMD dispatch,
    Python, NumPy, the package and its git commit, then ``versions`` (e.g. "pandas
    3.1.1, dask 2026.8.0")."""
    import sklearn_rank_metrics  # not at the top: ``--simd-json`` needs NumPy only

    cpu = "unknown"
    with contextlib.suppress(OSError):
        info = Path("/proc/cpuinfo").read_text()
        found = re.search(r"^model name\s*:\s*(.+)$", info, re.M)
        cpu = found.group(1).strip() if found else cpu
        # a virtual machine may show a bare "AMD EPYC": family and model tell the generation
        family = re.search(r"^cpu family\s*:\s*(\d+)$", info, re.M)
        model = re.search(r"^model\s*:\s*(\d+)$", info, re.M)
        if family and model:
            cpu += f" (family {family.group(1)}, model {model.group(1)})"
    ram = "unknown"
    with contextlib.suppress(OSError, AttributeError):
        found = re.search(r"^MemTotal:\s+(\d+) kB", Path("/proc/meminfo").read_text(), re.M)
        ram = f"{int(found.group(1)) / 2**20:.1f} GiB"
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else "?"
    commit = "unknown"
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        commit = subprocess.run(
            ["git", "-C", str(HERE), "describe", "--always", "--dirty"],
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        ).stdout.strip()
    # NumPy asks for transparent huge pages on large arrays; with defrag=madvise the
    # kernel may compact memory inside the page fault, which shows up as system time
    # and as slow outliers of NumPy-heavy calls at 10M rows (not of the boosters' C++)
    hugepages = "unknown"
    with contextlib.suppress(OSError):
        folder = Path("/sys/kernel/mm/transparent_hugepage")
        hugepages = (
            f"enabled {(folder / 'enabled').read_text().strip()}, "
            f"defrag {(folder / 'defrag').read_text().strip()}"
        )
    extra = f", {versions}" if versions else ""
    return [
        f"- CPU: {cpu}; {os.cpu_count()} logical cores ({usable} usable); RAM {ram}",
        f"- OS: {platform.platform()}; transparent huge pages: {hugepages}",
        simd_line(),
        f"- Python {platform.python_version()}, NumPy {np.__version__}{extra}, "
        f"sklearn_rank_metrics {sklearn_rank_metrics.__version__} (git {commit})",
    ]


if __name__ == "__main__":
    if sys.argv[1:] == ["--simd-json"]:  # for simd_features(env)
        print(json.dumps(simd_features()))
    else:
        print("\n".join(machine_lines()))
