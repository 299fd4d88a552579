"""The timings: every implementation on each data set, interleaved in rounds.

:class:`Bench` keeps one :class:`Result` per (series, rows, metric, implementation).
A peer call projected (from a smaller size) to take longer than the plan's limit is
skipped; past the plan's time budget the peers are skipped and ours timed once.
"""

from __future__ import annotations

import gc
import math
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from .checks import Expected, compare
from .data import (
    METRICS,
    QUICK_SIZES,
    SERIES,
    SERIES_BY_KEY,
    SIZES,
    SPECIAL_SIZES,
    Data,
    Series,
    make_data,
)
from .impls import IMPLS, TIMED, Call, Impl, NotApplicable

MAX_REPEATS = 15
MIN_REPEATS = 3  # for ours and the lower bounds; 2 above SLOW_CALL seconds a call,
SLOW_CALL = 2.0  # and 1 above VERY_SLOW_CALL
VERY_SLOW_CALL = 6.0
PEER_MAX_REPEATS = 5


@dataclass(frozen=True)
class Plan:
    """What one run times: sizes per series, time spent per cell, the skip limit."""

    sizes: dict[str, tuple[int, ...]]
    ours_seconds: float  # about this much timing per cell for ours and the lower bounds
    peer_seconds: float  # ... and for a peer (at least one call)
    limit_scale: float  # multiplies Series.max_call
    budget: float  # seconds after the warm-up: past this, remaining peer calls are
    # skipped and ours timed once
    quick: bool = False
    base_limit: float | None = None  # replaces the scaled limit on the base series

    def limit(self, series: Series, n_rows: int) -> float:
        """Seconds above which a projected peer call is skipped."""
        if self.base_limit is not None and series.key == "base":
            return self.base_limit
        large = n_rows > 1_000_000
        return (series.max_call_large if large else series.max_call) * self.limit_scale


FULL = Plan(
    # 10M rows: the base series and the worst case (tied and shuffled) only
    sizes={
        "base": SIZES,
        "tied": SIZES[:-1],
        "shuffled": SIZES[:-1],
        "tied-shuffled": SIZES,
        "one-query": SPECIAL_SIZES,
        "one-row": SPECIAL_SIZES,
    },
    ours_seconds=1.0,
    peer_seconds=0.25,
    limit_scale=1.0,
    budget=10 * 60.0,
)
QUICK = Plan(
    sizes={s.key: QUICK_SIZES if s.key == "base" else QUICK_SIZES[:1] for s in SERIES},
    ours_seconds=0.2,
    peer_seconds=0.1,
    limit_scale=0.1,
    budget=45.0,  # after the warm-up; the timings take about 30 s on 2 cores
    quick=True,
    # every installed peer on the base series at 10k and 100k rows (slowest: the pandas
    # loop's ten metrics, about 8 s at 100k rows on 2 cores); the other shapes stay small
    base_limit=15.0,
)


@dataclass
class Result:
    """The timings of one implementation on one metric and data set, or why there are none."""

    status: str = "ok"  # "ok", "n/a", "skipped", "error" or "missing"
    note: str = ""
    times: list[float] = field(default_factory=list)
    value: Any = None
    agrees: bool | None = None  # None: not checked
    diff: float | None = None
    diff_name: str = ""  # for evaluate: the metric with the largest difference
    projected: float | None = None  # for a skipped call: the projection and its source
    source: str = ""

    @property
    def median(self) -> float | None:
        """Median seconds, or None without timings."""
        return statistics.median(self.times) if self.times else None


class Task(NamedTuple):
    """One timed cell: its Result, the implementation, the metric and the call."""

    result: Result
    impl: Impl
    metric: str
    call: Call


def _shuffled(tasks: list[Task], shuffler: np.random.Generator) -> list[Task]:
    """The tasks in a new random order (one round of interleaved calls)."""
    return [tasks[index] for index in shuffler.permutation(len(tasks))]


def _cells(impl: Impl) -> tuple[str, ...]:
    """The metrics an implementation is timed on ("*": once per data set)."""
    return ("*",) if impl.per_data_set else METRICS


def _error(error: Exception) -> str:
    """An exception as a note."""
    return f"{type(error).__name__}: {error}"


class Bench:
    """Runs the data sets one after the other and keeps every Result."""

    def __init__(self, plan: Plan, log: Callable[[str], None]):
        self.plan = plan
        self.log = log
        self.results: dict[tuple[str, int, str, str], Result] = {}
        self.n_queries: dict[tuple[str, int], int] = {}
        started = time.perf_counter()
        self.missing = {impl.key: impl.missing() for impl in IMPLS}  # imports the peers
        self.import_seconds = time.perf_counter() - started
        self.overhead: dict[tuple[bool, str, str], float] = {}
        self.started = time.perf_counter()  # reset after the warm-up: the budget's start
        self.warm_up_seconds = 0.0

    def warm_up(self) -> None:
        """Call everything on tiny data: imports, lazy set-ups, ranx's numba JIT.

        The second call on 2,000 rows is the fixed cost of a call, which the projections
        keep out of their scaling; measured on one query for the one-query shape (where a
        per-query cost of the base series would pass for a fixed one) and on 20 queries
        for the others (XGBoost pays about 70 ms once it has several queries).
        """
        started = time.perf_counter()
        for series in (SERIES[0], SERIES_BY_KEY["one-query"]):
            data = make_data(series, 2_000, seed=1)
            for impl in IMPLS:
                if self.missing[impl.key]:
                    continue
                for metric in _cells(impl):
                    times = self._two_calls(impl, metric, data)
                    if len(times) == 2:
                        self.overhead[(series.shape == "one-query", impl.key, metric)] = times[1]
        # the libraries' objects stay alive: keep them out of every later collection
        gc.collect()
        gc.freeze()
        self.started = time.perf_counter()
        self.warm_up_seconds = self.started - started

    def _two_calls(self, impl: Impl, metric: str, data: Data) -> list[float]:
        """The seconds of two calls in a row (fewer if the metric is not there or fails)."""
        times: list[float] = []
        for _ in range(2):
            try:
                call = impl.prepare(metric, data)
                start = time.perf_counter()
                call()
            except NotApplicable:
                break
            except Exception as error:  # reported when it happens on real data
                self.log(f"  warm-up: {impl.label} {metric}: {type(error).__name__}")
                break
            times.append(time.perf_counter() - start)
        return times

    def _measured(
        self, series: str, impl: Impl, metric: str, at_most: int
    ) -> list[tuple[int, float]]:
        """(rows, median seconds) of the cells of ``series`` timed at up to ``at_most`` rows."""
        return [
            (n, result.median)
            for (key, n, m, name), result in self.results.items()
            if key == series and m == metric and name == impl.key and result.median and n <= at_most
        ]

    def project(self, impl: Impl, metric: str, data: Data) -> tuple[float, str] | None:
        """Projected seconds of one call, from the largest smaller size already timed.

        Within a series rows and queries grow together; for the shapes with one query
        or one-row queries without a smaller size, the base series at the same number
        of rows stands in, scaled by the larger of the row and query ratios. The fixed
        cost of a call (from the warm-up) does not grow; the rest grows as n log n.
        """
        series = data.series
        source = series.key
        measured = self._measured(source, impl, metric, data.n_rows - 1)
        if not measured:
            source = "base"
            measured = self._measured(source, impl, metric, data.n_rows)
        if not measured:
            return None
        n_ref, seconds = max(measured)
        rows = data.n_rows / n_ref
        queries = data.n_queries / self.n_queries[(source, n_ref)]
        growth = max(rows, queries) * max(1.0, math.log(data.n_rows) / math.log(n_ref))
        shape = series.shape == "one-query"
        fixed = min(seconds, self.overhead.get((shape, impl.key, metric), 0.0))
        where = f"{seconds:.2g} s at {n_ref:,} rows" + ("" if source == series.key else " (base)")
        if fixed >= 0.01:
            where += f", {fixed:.2g} s of it fixed"
        return fixed + (seconds - fixed) * growth, where

    def run(self, series: Series, n_rows: int, check: bool) -> None:
        """Time every implementation on one data set, interleaved, then check values."""
        started = time.perf_counter()
        late = started - self.started > self.plan.budget
        data = make_data(series, n_rows)
        self.n_queries[(series.key, n_rows)] = data.n_queries
        tasks = self._tasks(data, late)
        gc.collect()
        # Every round runs the calls in a new (seeded) random order, so that no call
        # always follows the same one: at 10M rows, the call right after np.lexsort
        # pays about 0.9 s of system time for the kernel compacting the memory
        # lexsort freed.
        shuffler = np.random.default_rng([n_rows, len(tasks)])
        wanted = self._first_round(tasks, shuffler, late)
        self._more_rounds(tasks, shuffler, wanted)
        if check:
            self.check(data, tasks)
        self.report(data, time.perf_counter() - started)

    def _tasks(self, data: Data, late: bool) -> list[Task]:
        """A Result for every cell of the data set; the cells to time, with their calls."""
        tasks = []
        for impl in TIMED:
            for metric in _cells(impl):
                outcome = self._untimed(impl, metric, data, late) or self._prepare(
                    impl, metric, data
                )
                result = outcome if isinstance(outcome, Result) else Result()
                self.results[(data.series.key, data.n_rows, metric, impl.key)] = result
                if not isinstance(outcome, Result):
                    tasks.append(Task(result, impl, metric, outcome))
        return tasks

    def _untimed(self, impl: Impl, metric: str, data: Data, late: bool) -> Result | None:
        """Why a cell is not timed (missing, n/a, skipped), or None if it is."""
        if self.missing[impl.key]:
            return Result("missing", self.missing[impl.key])
        if impl.depends_on:
            parent = self.results.get((data.series.key, data.n_rows, "*", impl.depends_on))
            if parent is not None and parent.status != "ok":
                return Result(parent.status, f"ranx convert {parent.status}")
        if metric in impl.notes:
            return Result("n/a", impl.notes[metric])
        if impl.kind != "peer":
            return None
        if late:
            budget = f"the run's time budget ({self.plan.budget:.0f} s after the warm-up)"
            return Result("skipped", budget + " was used up")
        projected = self.project(impl, metric, data)
        limit = self.plan.limit(data.series, data.n_rows)
        if projected is None or projected[0] <= limit:
            return None
        note = f"projected {projected[0]:.2g} s > {limit:.2g} s"
        return Result("skipped", note, projected=projected[0], source=projected[1])

    @staticmethod
    def _prepare(impl: Impl, metric: str, data: Data) -> Call | Result:
        """The call to time, or a Result saying why there is none (n/a, error)."""
        try:
            return impl.prepare(metric, data)
        except NotApplicable as error:
            return Result("n/a", str(error))
        except Exception as error:
            return Result("error", _error(error))

    def _first_round(
        self, tasks: list[Task], shuffler: np.random.Generator, late: bool
    ) -> dict[int, int]:
        """Call each task once, keeping its value; the number of calls each one gets."""
        wanted = {}
        for result, impl, _, call in _shuffled(tasks, shuffler):
            try:
                start = time.perf_counter()
                value = call()
                result.times.append(time.perf_counter() - start)
            except Exception as error:
                result.status, result.note = "error", _error(error)[:200]
                continue
            result.value = None if impl.per_data_set else value  # no sorted arrays kept
            del value
            wanted[id(result)] = self._repeats(impl, result.times[0], late)
        return wanted

    def _repeats(self, impl: Impl, first: float, late: bool) -> int:
        """How many calls a cell gets, from the seconds of its first call."""
        if impl.kind == "peer":
            return min(PEER_MAX_REPEATS, math.ceil(self.plan.peer_seconds / first))
        share = math.ceil(self.plan.ours_seconds / first)
        least = 1 if first > VERY_SLOW_CALL else 2 if first > SLOW_CALL else MIN_REPEATS
        return 1 if late else min(MAX_REPEATS, max(least, share))

    @staticmethod
    def _more_rounds(
        tasks: list[Task], shuffler: np.random.Generator, wanted: dict[int, int]
    ) -> None:
        """The rounds after the first, each in a new order, until each cell has its calls."""
        for round_number in range(1, max(wanted.values(), default=1)):
            gc.collect()
            for result, _, _, call in _shuffled(tasks, shuffler):
                if wanted.get(id(result), 0) > round_number:
                    try:
                        start = time.perf_counter()
                        call()
                        result.times.append(time.perf_counter() - start)
                    except Exception as error:  # keep the timings so far, say what happened
                        result.note = f"call {round_number + 1}: {_error(error)}"
                        wanted[id(result)] = 0

    @staticmethod
    def check(data: Data, tasks: list[Task]) -> None:
        """Compare each peer's value with ours under the settings that reproduce it."""
        expected = Expected(data)
        for result, impl, metric, _ in tasks:
            spec = impl.references.get(metric)
            if spec is None or result.value is None:
                continue
            result.agrees, result.diff, result.diff_name = compare(result.value, expected(spec))

    def report(self, data: Data, seconds: float) -> None:
        """One progress line per metric: our time and every peer's, as ratios to argsort."""
        series, n_rows = data.series, data.n_rows
        base = self.results[(series.key, n_rows, "*", "argsort")].median
        if base is None:
            raise RuntimeError(f"np.argsort was not timed on {series.key}, {n_rows:,} rows")
        self.log(
            f"{series.title}, {n_rows:,} rows, {data.n_queries:,} queries "
            f"({seconds:.0f} s); np.argsort {base:.3g} s"
        )
        for metric in ("*", *METRICS):
            parts = []
            for impl in TIMED:
                result = self.results.get((series.key, n_rows, metric, impl.key))
                if result is None or result.status == "n/a":
                    continue
                if result.median is None:
                    parts.append(f"{impl.label} {result.status}")
                    continue
                mark = {True: "", False: " DIFFERS", None: ""}[result.agrees]
                parts.append(f"{impl.label} {result.median / base:.1f}x{mark}")
            self.log(f"  {metric:9s} " + ", ".join(parts))
