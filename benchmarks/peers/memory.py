"""Peak extra memory of one call beyond its inputs, one fresh subprocess per call.

The parent runs ``bench_peers.py --memory-child <spec>`` for each case
(:func:`measure_memory`); the child (:func:`memory_child`) prints its figures as JSON.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import json
import os
import re
import subprocess
import sys
import tracemalloc
import warnings
from dataclasses import dataclass

from . import SCRIPT
from .data import SERIES_BY_KEY, make_data
from .impls import IMPL_BY_KEY, PEER_KEYS


@dataclass
class Memory:
    """Peak extra memory of one call beyond its inputs, or why it is unknown."""

    impl: str
    metric: str
    series: str
    n_rows: int
    rss: int | None = None  # peak resident set size during the call minus before it
    traced: int | None = None  # peak of allocations seen by tracemalloc (NumPy reports)
    error: str = ""

    @property
    def peak(self) -> int | None:
        """The larger of the two measures."""
        known = [value for value in (self.rss, self.traced) if value is not None]
        return max(known) if known else None


def memory_cases(quick: bool) -> list[tuple[str, str, str, int]]:
    """(implementation, metric, series, rows) measured for the memory table."""
    if quick:
        cases = [("argsort", "*", "base", 100_000)]
        cases += [("ours", m, "base", 100_000) for m in ("ndcg@10", "evaluate")]
        peers = ("xgboost", "lightgbm")
        return cases + [(peer, "ndcg@10", "base", 100_000) for peer in peers]
    cases = []
    cases += [("argsort", "*", "base", n) for n in (1_000_000, 10_000_000)]
    cases += [("lexsort", "*", "base", 1_000_000)]
    for n_rows in (1_000_000, 10_000_000):
        cases += [("ours", m, "base", n_rows) for m in ("ndcg@10", "evaluate")]
    cases += [("ours", m, "base", 1_000_000) for m in ("map", "mrr@10", "p@10", "gauc")]
    cases += [("ours", m, "tied-shuffled", 1_000_000) for m in ("ndcg@10", "evaluate")]
    return cases + [(peer, "ndcg@10", "base", 1_000_000) for peer in PEER_KEYS]


def _status_bytes(field_name: str) -> int:
    """A memory field of /proc/self/status (VmRSS, VmHWM) in bytes."""
    with open("/proc/self/status") as status:
        match = re.search(rf"^{field_name}:\s+(\d+) kB", status.read(), re.MULTILINE)
    assert match is not None, f"no {field_name} in /proc/self/status"
    return int(match.group(1)) * 1024


def _settle() -> None:
    """Collect garbage and give free heap memory back to the system."""
    gc.collect()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)


def memory_child(spec: dict) -> dict:
    """In a fresh process: build the data, warm up on tiny data, measure one call.

    The peak resident set size is reset through /proc/self/clear_refs (Linux) right
    before the call, so that building the inputs does not hide the call's own peak.
    For ours and NumPy, a second call runs under tracemalloc, which sees NumPy's
    allocations exactly (even pages an array never touches); the peers allocate mostly
    in C++ or as many small Python objects, which only the resident size shows.
    """
    warnings.simplefilter("ignore")
    impl = IMPL_BY_KEY[spec["impl"]]
    series = SERIES_BY_KEY[spec["series"]]
    impl.prepare(spec["metric"], make_data(series, 2_000, seed=1))()
    data = make_data(series, spec["n_rows"])
    call = impl.prepare(spec["metric"], data)
    out: dict[str, int | str] = {}
    _settle()
    try:
        before = _status_bytes("VmRSS")
        with open("/proc/self/clear_refs", "w") as clear:
            clear.write("5")
    except OSError as error:
        out["rss_error"] = str(error)
    else:
        call()
        out["rss"] = _status_bytes("VmHWM") - before
    if impl.kind != "peer":  # the peers allocate mostly outside tracemalloc's view
        _settle()
        tracemalloc.start()
        call()
        out["traced"] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return out


def measure_memory(case: tuple[str, str, str, int]) -> Memory:
    """Run memory_child in a subprocess for one case."""
    impl, metric, series, n_rows = case
    memory = Memory(impl, metric, series, n_rows)
    spec = json.dumps({"impl": impl, "metric": metric, "series": series, "n_rows": n_rows})
    # a fixed mmap threshold: large arrays come from and go back to the system at once
    env = {**os.environ, "MALLOC_MMAP_THRESHOLD_": "131072"}
    try:
        done = subprocess.run(
            [sys.executable, str(SCRIPT), "--memory-child", spec],
            capture_output=True,
            text=True,
            timeout=300,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired:
        memory.error = "timed out after 300 s"
        return memory
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines() or ["no output"]
        memory.error = f"exit {done.returncode}: {lines[-1][:160]}"
        return memory
    out = json.loads(done.stdout.strip().splitlines()[-1])
    memory.rss, memory.traced = out.get("rss"), out.get("traced")
    return memory
