"""The machine and software lines at the top of every benchmark report."""

from __future__ import annotations

import contextlib
import os
import platform
import re
import subprocess
from pathlib import Path

import numpy as np

import sklearn_rank_metrics

HERE = Path(__file__).resolve().parent


def simd_line() -> str:
    """NumPy's SIMD baseline and the extensions this CPU lets it dispatch to.

    The same facts as ``np.show_runtime()`` ("SIMD Extensions"), on one line: sorts
    dispatch to AVX-512 or AVX2 kernels, so ratios to ``np.argsort`` differ by CPU
    kind. ``NPY_DISABLE_CPU_FEATURES``, if set, is shown too.
    """
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
    found = [name for name in __cpu_dispatch__ if __cpu_features__.get(name)]
    disabled = os.environ.get("NPY_DISABLE_CPU_FEATURES")
    limit = f"; NPY_DISABLE_CPU_FEATURES={disabled}" if disabled else ""
    return (
        f"- NumPy SIMD: baseline {' '.join(__cpu_baseline__)}; dispatched to "
        f"{' '.join(found) or 'none'}{limit}"
    )


def machine_lines(versions: str = "") -> list[str]:
    """Markdown lines: CPU, RAM, OS and huge-page settings, NumPy's SIMD dispatch,
    Python, NumPy, the package and its git commit, then ``versions`` (e.g. "pandas
    3.1.1, dask 2026.8.0")."""
    cpu = "unknown"
    with contextlib.suppress(OSError):
        found = re.search(r"^model name\s*:\s*(.+)$", Path("/proc/cpuinfo").read_text(), re.M)
        cpu = found.group(1).strip() if found else cpu
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
