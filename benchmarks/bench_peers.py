"""Time our ranking metrics side by side with the tools people use instead.

Run (from the repository root, with the ``bench`` extra installed)::

    python benchmarks/bench_peers.py                      # full run, see "Files" below
    python benchmarks/bench_peers.py --quick              # small sizes only, prints the tables
    python benchmarks/bench_peers.py --output somewhere.md
    python benchmarks/bench_peers.py --quick --limit-dispatch baseline  # NumPy without AVX2

Files: the full run writes ``benchmarks/RESULTS-<level>.md``, ``<level>`` being the
highest SIMD level NumPy dispatches to in the run (``avx512``, ``avx2`` or
``baseline``, from ``machine.dispatch_level``; the header gives the CPU model and
NumPy's SIMD extensions as ``np.show_runtime()`` reports them). Where NumPy dispatches
to AVX-512, the full run then runs itself again in a subprocess with
``NPY_DISABLE_CPU_FEATURES`` set to the found AVX-512 targets and writes
``RESULTS-avx2.md`` too, labelled as limited in its header (``--no-avx2-rerun``: not).
``--limit-dispatch avx2|baseline`` sets that variable and re-executes the script, to
time a lower level on any machine (``--output`` names the file; with ``--output`` the
AVX2 rerun writes ``<name>-avx2.md``). ``--quick`` writes no file unless ``--output``
is given, and never reruns. ``benchmarks/RESULTS.md`` is an older report, from before
the files per level.

Every timed call goes end to end from flat NumPy arrays ``(y_true, y_score, qid)``,
including the conversions each tool needs (data frames, padding, dicts, tensors,
DMatrix/Dataset, sorting rows by query). In one process, the calls on one data set
run interleaved in rounds, each in a new seeded random order, and the tables give
medians and the ratio to one ``np.argsort(y_score)`` of the same data. Peak extra
memory is measured in a fresh subprocess per (implementation, size). A peer that is
not installed, has no such metric, or would take too long (projected from the next
smaller size) is reported in the tables with the reason, never dropped silently. The
warm-up (imports, first calls, ranx's numba JIT: 45 s on 2 cores with numba's cache
cold, 8 s warm) is timed apart; the time budget for the peers starts after it.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import datetime
import gc
import importlib
import json
import math
import os
import re
import statistics
import subprocess
import sys
import time
import tracemalloc
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Idle OpenMP threads (XGBoost, LightGBM, torch) sleep instead of busy-waiting: with
# the default spin, they keep burning the cores for a while after their call and slow
# whatever is timed next (measured: evaluate 0.100 s after LightGBM vs 0.085 s with
# passive waiting, LightGBM itself unchanged). Read when each OpenMP runtime starts,
# so it is set before any peer is imported; an explicit setting wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np  # noqa: E402
from machine import (  # noqa: E402  (benchmarks/machine.py)
    DISABLE_VARIABLE,
    DISPATCH_LEVELS,
    dispatch_level,
    limited_environment,
    machine_lines,
    unlimited_dispatch_level,
)

from sklearn_rank_metrics import (  # noqa: E402
    evaluate,
    expected_reciprocal_rank_score,
    group_roc_auc_score,
    hit_rate_score,
    mean_average_precision_score,
    mean_reciprocal_rank_score,
    ndcg_score,
    precision_at_k_score,
    recall_at_k_score,
)

HERE = Path(__file__).resolve().parent
ROWS_PER_QUERY = 100
SIZES = (10_000, 100_000, 1_000_000, 10_000_000)
QUICK_SIZES = (10_000, 100_000)
# the shapes "one query of all rows" and "one-row queries": probe sizes, then the case. A
# projection from the base series to another shape can miss a cost that grows faster with
# the query size (ranx on one query is quadratic), so the probes start small.
SPECIAL_SIZES = (10_000, 100_000, 10_000_000)
METRICS = ("ndcg@10", "map", "mrr@10", "p@10", "gauc", "evaluate")
METRIC_TITLES = {
    "ndcg@10": "NDCG@10",
    "map": "MAP",
    "mrr@10": "MRR@10",
    "p@10": "P@10",
    "gauc": "AUC per query",
    "evaluate": "evaluate, 10 metrics",
}
TEN_METRICS = (
    "ndcg@10",
    "ndcg",
    "map",
    "map@10",
    "mrr@10",
    "p@10",
    "recall@10",
    "hit_rate@10",
    "err@10",
    "gauc",
)
LABEL_PROBABILITIES = (0.5, 0.25, 0.13, 0.08, 0.04)  # labels 0..4
TIED_SHARE = 0.3
TOLERANCE = 1e-6  # "value agrees": |peer - ours with matching settings| < TOLERANCE
MAX_REPEATS = 15
MIN_REPEATS = 3  # for ours and the lower bounds; 2 above SLOW_CALL seconds a call,
SLOW_CALL = 2.0  # and 1 above VERY_SLOW_CALL
VERY_SLOW_CALL = 6.0
PEER_MAX_REPEATS = 5


# ---------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Series:
    """A family of data sets timed at several sizes."""

    key: str
    title: str
    shape: str  # "queries" (~100 rows each), "one-query" or "one-row"
    tied: bool
    shuffled: bool
    max_call: float  # a peer call projected to take longer than this is skipped ...
    max_call_large: float  # ... or this, above 1M rows


SERIES = (
    Series("base", "tie-free scores, contiguous query ids", "queries", False, False, 25, 8),
    Series("tied", "30% tied scores, contiguous query ids", "queries", True, False, 4, 3),
    Series("shuffled", "tie-free scores, shuffled query ids", "queries", False, True, 4, 3),
    Series("tied-shuffled", "30% tied scores, shuffled query ids", "queries", True, True, 4, 3),
    Series("one-query", "one query holding every row (tie-free)", "one-query", False, False, 8, 4),
    Series("one-row", "one-row queries (tie-free)", "one-row", False, False, 8, 4),
)
SERIES_BY_KEY = {series.key: series for series in SERIES}


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
class Data:
    """Flat rows of one data set, plus a cache for conversions shared by several calls."""

    series: Series
    n_rows: int
    n_queries: int
    y_true: np.ndarray
    y_score: np.ndarray
    qid: np.ndarray
    cache: dict = field(default_factory=dict)


def make_data(series: Series, n_rows: int, seed: int = 0) -> Data:
    """Labels 0..4 (half of them 0), scores correlated with them, integer query ids.

    Tie-free scores are distinct in float64 and float32 (ranks / n_rows), so that the
    value checks against XGBoost (float32 margins) and trec_eval (float32 scores) hold.
    With ``tied``, 30% of the rows get a score rounded to one of nine values, which
    ties them with about three other rows of their query. ``shuffled`` permutes the rows.
    """
    rng = np.random.default_rng([seed, n_rows])
    if series.shape == "queries":
        n_groups = max(1, n_rows // ROWS_PER_QUERY)
        qid = np.sort(rng.integers(0, n_groups, n_rows))
        n_queries = int(np.count_nonzero(np.diff(qid))) + 1
    elif series.shape == "one-query":
        qid, n_queries = np.zeros(n_rows, dtype=np.int64), 1
    else:
        qid, n_queries = np.arange(n_rows, dtype=np.int64), n_rows
    y_true = rng.choice(len(LABEL_PROBABILITIES), n_rows, p=LABEL_PROBABILITIES)
    y_true = y_true.astype(np.float64)
    latent = y_true + rng.normal(0.0, 1.5, n_rows)
    y_score = np.empty(n_rows)
    y_score[np.argsort(latent)] = np.arange(n_rows) / n_rows
    if series.tied:
        tied = rng.random(n_rows) < TIED_SHARE
        y_score[tied] = np.round(y_score[tied] * 8.0) / 8.0
    if series.shuffled:
        order = rng.permutation(n_rows)
        y_true, y_score, qid = y_true[order], y_score[order], qid[order]
    return Data(series, n_rows, n_queries, y_true, y_score, qid)


def rows_by_query(data: Data) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(y_true, y_score, qid, sizes)`` with the rows of each query contiguous.

    What the boosters need: rows sorted by query (stable, so tied scores keep their
    input order) and the size of each query. Already grouped ids are not re-sorted.
    """
    y, s, q = data.y_true, data.y_score, data.qid
    if len(q) > 1 and not np.all(q[1:] >= q[:-1]):
        order = np.argsort(q, kind="stable")
        y, s, q = y[order], s[order], q[order]
    starts = np.flatnonzero(np.concatenate(([True], q[1:] != q[:-1])))
    sizes = np.diff(np.append(starts, len(q)))
    return y, s, q, sizes


DOC_ID_OFFSET = 100_000_000


def query_dicts(data: Data) -> tuple[dict, dict]:
    """TREC-style ``{query: {doc: label}}`` and ``{query: {doc: score}}``.

    Document ids are the row numbers plus 10**8, so that they all have the same length:
    ranx's numba code is compiled for each string length, and the warm-up covers one.
    """
    order = np.argsort(data.qid, kind="stable")
    q = data.qid[order]
    starts = np.flatnonzero(np.concatenate(([True], q[1:] != q[:-1])))
    ends = np.append(starts[1:], len(q))
    docs = (order + DOC_ID_OFFSET).astype(str).tolist()  # one width: one ranx JIT type
    labels = data.y_true[order].astype(np.int64).tolist()
    scores = data.y_score[order].tolist()
    names = q[starts].astype(str).tolist()
    qrels, run = {}, {}
    for name, start, end in zip(names, starts.tolist(), ends.tolist(), strict=True):
        qrels[name] = dict(zip(docs[start:end], labels[start:end], strict=True))
        run[name] = dict(zip(docs[start:end], scores[start:end], strict=True))
    return qrels, run


# ---------------------------------------------------------------------------
# Implementations
# ---------------------------------------------------------------------------


class NotApplicable(Exception):
    """The implementation has no such metric; the message says why."""


# our value with the settings that reproduce a peer: (function, kwargs, float32 scores)
Reference = tuple[Callable[..., float], dict, bool]

REFERENCES: dict[str, Reference] = {
    "ndcg@10": (ndcg_score, {"k": 10}, False),
    "ndcg": (ndcg_score, {}, False),
    "map": (mean_average_precision_score, {}, False),
    "map@10": (mean_average_precision_score, {"k": 10}, False),
    "mrr@10": (mean_reciprocal_rank_score, {"k": 10}, False),
    "mrr": (mean_reciprocal_rank_score, {}, False),
    "p@10": (precision_at_k_score, {"k": 10}, False),
    "recall@10": (recall_at_k_score, {"k": 10}, False),
    "hit_rate@10": (hit_rate_score, {"k": 10}, False),
    "err@10": (expected_reciprocal_rank_score, {"k": 10}, False),
    "gauc": (group_roc_auc_score, {}, False),
    "map,undefined=1": (mean_average_precision_score, {"replace_undefined_by": 1.0}, False),
    "map@10,in_top_k": (
        mean_average_precision_score,
        {"k": 10, "denominator": "n_relevant_in_top_k"},
        False,
    ),
}
BOOSTER = {"ties": "input", "replace_undefined_by": 1.0}  # both boosters (README)
for _k, _at in ((10, "@10"), (None, "")):
    _ndcg = {"k": _k, "gain": "exponential", **BOOSTER}
    _map = {"k": _k, "denominator": "min(k,n_relevant)", **BOOSTER}
    for _booster, _float32 in (("lgb", False), ("xgb", True)):  # XGBoost: float32 margins
        REFERENCES[f"{_booster}:ndcg{_at}"] = (ndcg_score, _ndcg, _float32)
        REFERENCES[f"{_booster}:map{_at}"] = (mean_average_precision_score, _map, _float32)
REFERENCES["xgb:p@10"] = (
    precision_at_k_score,
    {"k": 10, "denominator": "min(k,n_retrieved)", "ties": "input"},
    True,
)


def _shuffled(tasks: list, shuffler: np.random.Generator) -> list:
    """The tasks in a new random order (one round of interleaved calls)."""
    return [tasks[index] for index in shuffler.permutation(len(tasks))]


def our_calls(metric: str, data: Data, **params: Any) -> Callable[[], Any]:
    """Our public function for ``metric`` with default settings (plus ``params``)."""
    y, s, q = data.y_true, data.y_score, data.qid
    functions = {
        "ndcg@10": lambda: ndcg_score(y, s, q, k=10, **params),
        "map": lambda: mean_average_precision_score(y, s, q, **params),
        "mrr@10": lambda: mean_reciprocal_rank_score(y, s, q, k=10, **params),
        "p@10": lambda: precision_at_k_score(y, s, q, k=10, **params),
        "gauc": lambda: group_roc_auc_score(y, s, q, **params),
        "evaluate": lambda: evaluate(y, s, q, metrics=list(TEN_METRICS), **params),
    }
    return functions[metric]


class Impl:
    """One column of the tables: something that computes the metrics from flat arrays."""

    key = ""
    label = ""
    kind = "peer"  # "bound", "ours" or "peer"
    modules: tuple[str, ...] = ()
    per_data_set = False  # one timing per data set (lower bounds, conversions)
    timed = True  # False: used only for the memory table
    depends_on = ""  # key of an implementation whose skip implies this one's
    # metric -> key of REFERENCES (or, for "evaluate", {our name: key}) for the check
    references: dict[str, Any] = {}
    notes: dict[str, str] = {}  # metric -> why it is not available

    def prepare(self, metric: str, data: Data) -> Callable[[], Any]:
        """A zero-argument call timed end to end; raises NotApplicable."""
        raise NotImplementedError

    def missing(self) -> str:
        """Why the implementation cannot run here ('' if it can)."""
        for module in self.modules:
            try:
                importlib.import_module(module)
            except Exception as error:  # ImportError, or a broken installation
                return f"{module} not importable: {type(error).__name__}: {error}"
        return ""

    def not_applicable(self, metric: str) -> None:
        """Raise NotApplicable if ``metric`` is one this implementation lacks."""
        if metric in self.notes:
            raise NotApplicable(self.notes[metric])


class Argsort(Impl):
    """The lower bound: one unstable sort of the scores (the ratio's denominator)."""

    key, label, kind, per_data_set = "argsort", "np.argsort", "bound", True

    def prepare(self, metric, data):
        return lambda: np.argsort(data.y_score)


class Lexsort(Impl):
    """Sorting rows by (query, score) with np.lexsort, the naive grouped sort."""

    key, label, kind, per_data_set = "lexsort", "np.lexsort", "bound", True

    def prepare(self, metric, data):
        return lambda: np.lexsort((data.y_score, data.qid))


class Ours(Impl):
    """sklearn_rank_metrics with default settings (ties="average")."""

    key, label, kind = "ours", "ours", "ours"

    def prepare(self, metric, data):
        return our_calls(metric, data)


class OursTiesInput(Impl):
    """Our NDCG@10 with ties="input", to price the tie averaging."""

    key, label, kind = "ours_input", "ours ties=input", "ours"
    notes = {m: "timed for NDCG@10 only" for m in METRICS if m != "ndcg@10"}

    def prepare(self, metric, data):
        self.not_applicable(metric)
        return our_calls(metric, data, ties="input")


def _query_ten(y: np.ndarray, s: np.ndarray, max_grade: float) -> list[float]:
    """The ten metrics of one query, as a user of scikit-learn and NumPy writes them."""
    from sklearn.metrics import average_precision_score, ndcg_score, roc_auc_score

    order = np.argsort(-s, kind="stable")
    relevant = y[order] > 0
    n_relevant = int(relevant.sum())
    top = relevant[:10]
    precision = np.cumsum(relevant) / np.arange(1, len(relevant) + 1)
    hits = np.flatnonzero(top)
    gain = (2.0 ** y[order][:10] - 1.0) / 2.0**max_grade
    stop = np.concatenate(([1.0], np.cumprod(1.0 - gain)[:-1]))
    one_class = n_relevant in (0, len(y))
    return [
        ndcg_score([y], [s], k=10) if len(y) > 1 else np.nan,
        ndcg_score([y], [s]) if len(y) > 1 else np.nan,
        average_precision_score(y > 0, s) if n_relevant else 0.0,
        (precision[:10] * top).sum() / n_relevant if n_relevant else 0.0,
        1.0 / (hits[0] + 1) if len(hits) else 0.0,
        top.sum() / 10,
        top.sum() / n_relevant if n_relevant else 0.0,
        float(top.any()),
        float((gain * stop / np.arange(1, len(gain) + 1)).sum()),
        np.nan if one_class else roc_auc_score(y > 0, s),
    ]


def _query_mrr10(y: np.ndarray, s: np.ndarray) -> float:
    """Reciprocal rank of the first relevant row in the top 10 of one query (NumPy)."""
    hits = np.flatnonzero(y[np.argsort(-s, kind="stable")[:10]] > 0)
    return 1.0 / (hits[0] + 1) if len(hits) else 0.0


def _query_auc(y: np.ndarray, s: np.ndarray) -> float:
    """scikit-learn's ROC AUC of one query; NaN when it has one class."""
    from sklearn.metrics import roc_auc_score

    positive = y > 0
    return roc_auc_score(positive, s) if 0 < positive.sum() < len(y) else np.nan


class PandasLoop(Impl):
    """``df.groupby("qid").apply(...)`` with scikit-learn's metric on each query."""

    key, label = "pandas", "pandas loop"
    modules = ("pandas", "sklearn")
    references = {
        "ndcg@10": "ndcg@10",
        "map": "map",
        "mrr@10": "mrr@10",
        "p@10": "p@10",
        "gauc": "gauc",
        "evaluate": {name: name for name in TEN_METRICS},
    }

    def prepare(self, metric, data):
        import pandas as pd
        from sklearn.metrics import average_precision_score, ndcg_score

        y, s, q = data.y_true, data.y_score, data.qid

        def per_query(function):
            def call():
                frame = pd.DataFrame({"qid": q, "y": y, "s": s})
                values = frame.groupby("qid").apply(
                    lambda g: function(g["y"].to_numpy(), g["s"].to_numpy())
                )
                return float(values.mean())

            return call

        if metric == "ndcg@10":
            return per_query(lambda a, b: ndcg_score([a], [b], k=10))
        if metric == "map":
            return per_query(lambda a, b: average_precision_score(a > 0, b))
        if metric == "mrr@10":
            return per_query(_query_mrr10)
        if metric == "p@10":
            return per_query(lambda a, b: (a[np.argsort(-b, kind="stable")[:10]] > 0).sum() / 10)
        if metric == "gauc":
            return per_query(_query_auc)

        def ten():
            frame = pd.DataFrame({"qid": q, "y": y, "s": s})
            max_grade = float(frame["y"].max())
            table = frame.groupby("qid").apply(
                lambda g: pd.Series(
                    _query_ten(g["y"].to_numpy(), g["s"].to_numpy(), max_grade), index=TEN_METRICS
                )
            )
            return {name: float(value) for name, value in table.mean().items()}

        return ten


def padded(data: Data) -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's 2-D form: one row per query, padded with label 0 and the lowest score.

    Padding rows rank below every real row and have no gain, so NDCG and AP are unchanged.
    """
    order = np.argsort(data.qid, kind="stable")
    q = data.qid[order]
    starts = np.flatnonzero(np.concatenate(([True], q[1:] != q[:-1])))
    sizes = np.diff(np.append(starts, len(q)))
    row = np.repeat(np.arange(len(starts)), sizes)
    column = np.arange(len(q)) - np.repeat(starts, sizes)
    y_2d = np.zeros((len(starts), int(sizes.max())))
    s_2d = np.full(y_2d.shape, data.y_score.min() - 1.0)
    y_2d[row, column] = data.y_true[order]
    s_2d[row, column] = data.y_score[order]
    return y_2d, s_2d


class SklearnPadded(Impl):
    """scikit-learn's 2-D metrics on the rows padded to one row per query."""

    key, label = "sklearn", "sklearn padded"
    modules = ("sklearn",)
    references = {
        "ndcg@10": "ndcg@10",
        "map": "map,undefined=1",
        "evaluate": {"ndcg@10": "ndcg@10", "ndcg": "ndcg", "map": "map,undefined=1"},
    }
    notes = {
        "mrr@10": "scikit-learn has no MRR",
        "p@10": "scikit-learn has no precision@k for rankings",
        "gauc": "padding rows would enter roc_auc_score as negatives",
    }

    def prepare(self, metric, data):
        from sklearn.metrics import label_ranking_average_precision_score, ndcg_score

        self.not_applicable(metric)

        def call():
            y_2d, s_2d = padded(data)
            if metric == "ndcg@10":
                return ndcg_score(y_2d, s_2d, k=10)
            if metric == "map":
                return label_ranking_average_precision_score(y_2d > 0, s_2d)
            return {
                "ndcg@10": ndcg_score(y_2d, s_2d, k=10),
                "ndcg": ndcg_score(y_2d, s_2d),
                "map": label_ranking_average_precision_score(y_2d > 0, s_2d),
            }

        return call


RANX_NAMES = {
    "ndcg@10": "ndcg@10",
    "ndcg": "ndcg",
    "map": "map",
    "map@10": "map@10",
    "mrr@10": "mrr@10",
    "p@10": "precision@10",
    "recall@10": "recall@10",
    "hit_rate@10": "hit_rate@10",
}


def ranx_objects(data: Data) -> tuple[Any, Any]:
    """ranx's Qrels and Run of the rows (the Run sorts each query at construction)."""
    import ranx

    qrels, run = query_dicts(data)
    return ranx.Qrels(qrels), ranx.Run(run)


def ranx_compute(metric: str, qrels: Any, run: Any) -> Any:
    """ranx.evaluate on ready Qrels and Run, the result in our metric names."""
    import ranx

    if metric != "evaluate":
        return float(ranx.evaluate(qrels, run, RANX_NAMES[metric]))
    values = ranx.evaluate(qrels, run, list(RANX_NAMES.values()))
    return {ours: float(values[theirs]) for ours, theirs in RANX_NAMES.items()}


class RanxConvert(Impl):
    """ranx, part one: flat arrays to dicts to ``Qrels`` and ``Run``."""

    key, label, per_data_set = "ranx_convert", "ranx convert", True
    modules = ("ranx",)

    def prepare(self, metric, data):
        def call():
            data.cache["ranx"] = ranx_objects(data)  # for ranx compute, timed after this

        return call


class RanxCompute(Impl):
    """ranx, part two: ``ranx.evaluate`` on the converted objects."""

    key, label, depends_on = "ranx_compute", "ranx compute", "ranx_convert"
    modules = ("ranx",)
    references = {
        **{m: m for m in ("ndcg@10", "map", "mrr@10", "p@10")},
        "evaluate": {name: name for name in RANX_NAMES},
    }
    notes = {"gauc": "ranx has no AUC"}

    def prepare(self, metric, data):
        self.not_applicable(metric)

        def call():
            if "ranx" not in data.cache:  # not timed here unless ranx convert did not run
                data.cache["ranx"] = ranx_objects(data)
            return ranx_compute(metric, *data.cache["ranx"])

        return call


class RanxEndToEnd(RanxCompute):
    """Conversion and computation in one call: for the memory table only."""

    key, label, timed, depends_on = "ranx", "ranx", False, ""

    def prepare(self, metric, data):
        self.not_applicable(metric)
        return lambda: ranx_compute(metric, *ranx_objects(data))


TREC_NAMES = {  # our name -> (trec_eval measure, key in its results)
    "ndcg@10": ("ndcg_cut.10", "ndcg_cut_10"),
    "ndcg": ("ndcg", "ndcg"),
    "map": ("map", "map"),
    "map@10": ("map_cut.10", "map_cut_10"),
    "mrr@10": ("recip_rank", "recip_rank"),
    "p@10": ("P.10", "P_10"),
    "recall@10": ("recall.10", "recall_10"),
    "hit_rate@10": ("success.10", "success_10"),
}


class PytrecEval(Impl):
    """trec_eval through pytrec_eval, dict conversion included."""

    key, label = "pytrec_eval", "pytrec_eval"
    modules = ("pytrec_eval",)
    references = {
        "ndcg@10": "ndcg@10",
        "map": "map",
        "mrr@10": "mrr",  # trec_eval's recip_rank has no cutoff
        "p@10": "p@10",
        "evaluate": {**{name: name for name in TREC_NAMES}, "mrr@10": "mrr"},
    }
    notes = {"gauc": "trec_eval has no AUC"}

    def prepare(self, metric, data):
        import pytrec_eval

        self.not_applicable(metric)
        wanted = list(TREC_NAMES) if metric == "evaluate" else [metric]

        def call():
            qrels, run = query_dicts(data)
            evaluator = pytrec_eval.RelevanceEvaluator(qrels, {TREC_NAMES[m][0] for m in wanted})
            per_query = evaluator.evaluate(run)
            values = {
                m: float(np.mean([row[TREC_NAMES[m][1]] for row in per_query.values()]))
                for m in wanted
            }
            return values if metric == "evaluate" else values[metric]

        return call


TORCH_METRICS = {  # our name -> (torchmetrics class name, kwargs, binary target)
    "ndcg@10": ("RetrievalNormalizedDCG", {"top_k": 10}, False),
    "ndcg": ("RetrievalNormalizedDCG", {}, False),
    "map": ("RetrievalMAP", {}, True),
    "map@10": ("RetrievalMAP", {"top_k": 10}, True),
    "mrr@10": ("RetrievalMRR", {"top_k": 10}, True),
    "p@10": ("RetrievalPrecision", {"top_k": 10}, True),
    "recall@10": ("RetrievalRecall", {"top_k": 10}, True),
    "hit_rate@10": ("RetrievalHitRate", {"top_k": 10}, True),
    "gauc": ("RetrievalAUROC", {}, True),
}


class Torchmetrics(Impl):
    """torchmetrics' retrieval metrics on CPU tensors made from the arrays."""

    key, label = "torchmetrics", "torchmetrics"
    modules = ("torch", "torchmetrics")
    references = {
        **{m: m for m in ("ndcg@10", "map", "mrr@10", "p@10", "gauc")},
        "evaluate": {**{name: name for name in TORCH_METRICS}, "map@10": "map@10,in_top_k"},
    }

    def prepare(self, metric, data):
        import torch
        import torchmetrics.retrieval

        wanted = list(TORCH_METRICS) if metric == "evaluate" else [metric]

        def call():
            preds = torch.from_numpy(data.y_score)
            indexes = torch.from_numpy(data.qid)
            graded = torch.from_numpy(data.y_true)
            binary = torch.from_numpy(data.y_true > 0)
            values = {}
            for name in wanted:
                class_name, params, is_binary = TORCH_METRICS[name]
                scorer = getattr(torchmetrics.retrieval, class_name)(**params)
                scorer.update(preds, binary if is_binary else graded, indexes=indexes)
                values[name] = float(scorer.compute())
            return values if metric == "evaluate" else values[metric]

        return call


def _xgboost_eval(y, s, q, names: list[str], binary: bool) -> dict[str, float]:
    """XGBoost's own metrics of the scores: zero boosting rounds, scores as base margin."""
    import xgboost

    label = (y > 0).astype(np.float32) if binary else y
    matrix = xgboost.DMatrix(np.zeros((len(y), 1), np.float32), label=label, qid=q, base_margin=s)
    objective = "rank:map" if binary else "rank:ndcg"
    params = {"objective": objective, "eval_metric": names}
    booster = xgboost.train(params, matrix, num_boost_round=0)
    text = booster.eval(matrix, name="d")
    return {name: float(value) for name, value in re.findall(r"d-([^\s:]+):(\S+)", text)}


XGB_NAMES = {  # our name -> (XGBoost metric, binary labels); "@n": every row of a query
    "ndcg@10": ("ndcg@10", False),
    "ndcg": ("ndcg@n", False),  # plain "ndcg" and "map" stop at XGBoost's default k (32)
    "map": ("map@n", True),
    "map@10": ("map@10", True),
    "p@10": ("pre@10", True),
}


class XGBoost(Impl):
    """XGBoost's own ranking metrics of the scores (zero boosting rounds)."""

    key, label = "xgboost", "XGBoost"
    modules = ("xgboost",)
    references = {
        "ndcg@10": "xgb:ndcg@10",
        "map": "xgb:map",
        "p@10": "xgb:p@10",
        "evaluate": {name: f"xgb:{name}" for name in XGB_NAMES},
    }
    notes = {
        "mrr@10": "XGBoost has no MRR",
        "gauc": "XGBoost's auc with query groups is not the mean per-query ROC AUC "
        "(a perfectly ordered query scores about 0.67)",
    }

    def prepare(self, metric, data):
        self.not_applicable(metric)
        wanted = list(XGB_NAMES) if metric == "evaluate" else [metric]

        def call():
            y, s, q, sizes = rows_by_query(data)
            longest = str(int(sizes.max()))
            values = {}
            for binary in (False, True):
                names = [m for m in wanted if XGB_NAMES[m][1] == binary]
                theirs = [XGB_NAMES[m][0].replace("@n", "@" + longest) for m in names]
                if names:
                    got = _xgboost_eval(y, s, q, theirs, binary)
                    values.update({m: got[name] for m, name in zip(names, theirs, strict=True)})
            return values if metric == "evaluate" else values[metric]

        return call


class LightGBM(Impl):
    """LightGBM's own ranking metrics of the scores (no boosting round)."""

    key, label = "lightgbm", "LightGBM"
    modules = ("lightgbm",)
    references = {
        "ndcg@10": "lgb:ndcg@10",
        "map": "lgb:map",
        "evaluate": {name: f"lgb:{name}" for name in ("ndcg@10", "ndcg", "map@10", "map")},
    }
    notes = {
        "mrr@10": "LightGBM has no MRR",
        "p@10": "LightGBM has no precision@k",
        "gauc": "LightGBM's AUC is over all rows, not per query",
    }

    def prepare(self, metric, data):
        import lightgbm

        self.not_applicable(metric)

        def call():
            y, s, _, sizes = rows_by_query(data)
            longest = int(sizes.max())  # map@k with k >= every query's size is MAP
            if metric == "ndcg@10":
                names, eval_at = ["ndcg"], [10]
            elif metric == "map":
                names, eval_at = ["map"], [longest]
            else:
                names, eval_at = ["ndcg", "map"], [10, longest]
            dataset = lightgbm.Dataset(
                np.zeros((len(y), 1), np.float32),
                label=y,
                group=sizes,
                init_score=s,
                params={"verbose": -1},
            )
            params = {"objective": "none", "metric": names, "eval_at": eval_at, "verbose": -1}
            booster = lightgbm.Booster(params=params, train_set=dataset)
            got = {name: float(value) for _, name, value, _ in booster.eval_train()}
            ours = {
                "ndcg@10": got.get("ndcg@10"),
                "ndcg": got.get(f"ndcg@{longest}"),
                "map@10": got.get("map@10"),
                "map": got.get(f"map@{longest}"),
            }
            if metric == "evaluate":
                return ours
            return ours[metric]

        return call


IMPLS: tuple[Impl, ...] = (
    Argsort(),
    Lexsort(),
    Ours(),
    OursTiesInput(),
    PandasLoop(),
    SklearnPadded(),
    RanxConvert(),
    RanxCompute(),
    PytrecEval(),
    Torchmetrics(),
    XGBoost(),
    LightGBM(),
    RanxEndToEnd(),
)
IMPL_BY_KEY = {impl.key: impl for impl in IMPLS}
TIMED = [impl for impl in IMPLS if impl.timed]
PEER_DISTRIBUTIONS = {  # module -> distribution name for the version
    "pandas": "pandas",
    "sklearn": "scikit-learn",
    "ranx": "ranx",
    "pytrec_eval": "pytrec-eval-terrier",
    "torch": "torch",
    "torchmetrics": "torchmetrics",
    "xgboost": "xgboost-cpu",
    "lightgbm": "lightgbm",
    "numba": "numba",
}


# ---------------------------------------------------------------------------
# Timing
# ---------------------------------------------------------------------------


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


def _seconds(value: float) -> str:
    """Seconds with three significant digits."""
    return f"{value:.3g}"


def _compare(value: Any, reference: Any) -> tuple[bool, float, str]:
    """(agrees, largest |difference|, where) of two metric values or dicts of them."""
    if isinstance(reference, dict):
        if not isinstance(value, dict) or set(value) != set(reference):
            return False, math.inf, "metric names"
        pairs = [(name, value[name], reference[name]) for name in reference]
    else:
        pairs = [("", value, reference)]
    diffs = []
    for name, got, want in pairs:
        if got is None or want is None:
            diffs.append((math.inf, name))
        elif math.isnan(got) and math.isnan(want):
            diffs.append((0.0, name))
        else:
            diff = abs(got - want)
            diffs.append((math.inf if math.isnan(diff) else diff, name))
    worst, name = max(diffs)
    return worst < TOLERANCE, worst, name


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
                for metric in ("*",) if impl.per_data_set else METRICS:
                    times = []
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
                    if len(times) == 2:
                        self.overhead[(series.shape == "one-query", impl.key, metric)] = times[1]
        # the libraries' objects stay alive: keep them out of every later collection
        gc.collect()
        gc.freeze()
        self.started = time.perf_counter()
        self.warm_up_seconds = self.started - started

    def project(self, impl: Impl, metric: str, data: Data) -> tuple[float, str] | None:
        """Projected seconds of one call, from the largest smaller size already timed.

        Within a series rows and queries grow together; for the shapes with one query
        or one-row queries without a smaller size, the base series at the same number
        of rows stands in, scaled by the larger of the row and query ratios. The fixed
        cost of a call (from the warm-up) does not grow; the rest grows as n log n.
        """
        series = data.series
        measured = [
            (n, result.median)
            for (key, n, m, name), result in self.results.items()
            if key == series.key
            and m == metric
            and name == impl.key
            and result.median
            and n < data.n_rows
        ]
        source = series.key
        if not measured:
            source = "base"
            measured = [
                (n, result.median)
                for (key, n, m, name), result in self.results.items()
                if key == "base"
                and m == metric
                and name == impl.key
                and result.median
                and n <= data.n_rows
            ]
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
        tasks = []
        for impl in TIMED:
            for metric in ("*",) if impl.per_data_set else METRICS:
                key = (series.key, n_rows, metric, impl.key)
                result = self.results[key] = Result()
                if self.missing[impl.key]:
                    result.status, result.note = "missing", self.missing[impl.key]
                    continue
                if impl.depends_on:
                    parent = self.results.get((series.key, n_rows, "*", impl.depends_on))
                    if parent is not None and parent.status != "ok":
                        result.status = parent.status
                        result.note = f"ranx convert {parent.status}"
                        continue
                if metric in impl.notes:
                    result.status, result.note = "n/a", impl.notes[metric]
                    continue
                if late and impl.kind == "peer":
                    result.status = "skipped"
                    result.note = (
                        f"the run's time budget ({self.plan.budget:.0f} s after the warm-up) "
                        "was used up"
                    )
                    continue
                projected = self.project(impl, metric, data) if impl.kind == "peer" else None
                limit = self.plan.limit(series, n_rows)
                if projected is not None and projected[0] > limit:
                    result.status = "skipped"
                    result.projected, result.source = projected
                    result.note = f"projected {projected[0]:.2g} s > {limit:.2g} s"
                    continue
                try:
                    call = impl.prepare(metric, data)
                except NotApplicable as error:
                    result.status, result.note = "n/a", str(error)
                    continue
                except Exception as error:
                    result.status, result.note = "error", f"{type(error).__name__}: {error}"
                    continue
                tasks.append((result, impl, metric, call))
        wanted = {}
        gc.collect()
        # Every round runs the calls in a new (seeded) random order, so that no call
        # always follows the same one: at 10M rows, the call right after np.lexsort
        # pays about 0.9 s of system time for the kernel compacting the memory
        # lexsort freed.
        shuffler = np.random.default_rng([n_rows, len(tasks)])
        for result, impl, _, call in _shuffled(tasks, shuffler):  # round 1: also the value
            try:
                start = time.perf_counter()
                value = call()
                result.times.append(time.perf_counter() - start)
            except Exception as error:
                result.status, result.note = "error", f"{type(error).__name__}: {error}"[:200]
                continue
            result.value = None if impl.per_data_set else value  # no sorted arrays kept
            del value
            if impl.kind == "peer":
                share = math.ceil(self.plan.peer_seconds / result.times[0])
                wanted[id(result)] = min(PEER_MAX_REPEATS, share)
            else:
                share = math.ceil(self.plan.ours_seconds / result.times[0])
                first = result.times[0]
                least = 1 if first > VERY_SLOW_CALL else 2 if first > SLOW_CALL else MIN_REPEATS
                wanted[id(result)] = 1 if late else min(MAX_REPEATS, max(least, share))
        for round_number in range(1, max(wanted.values(), default=1)):
            gc.collect()
            for result, _, _, call in _shuffled(tasks, shuffler):
                if wanted.get(id(result), 0) > round_number:
                    try:
                        start = time.perf_counter()
                        call()
                        result.times.append(time.perf_counter() - start)
                    except Exception as error:  # keep the timings so far, say what happened
                        result.note = f"call {round_number + 1}: {type(error).__name__}: {error}"
                        wanted[id(result)] = 0
        if check:
            self.check(data, tasks)
        self.report(data, time.perf_counter() - started)

    def check(self, data: Data, tasks: list) -> None:
        """Compare each peer's value with ours under the settings that reproduce it."""
        ours: dict[str, float] = {}

        def reference(name: str) -> float:
            if name not in ours:
                function, params, float32 = REFERENCES[name]
                score = data.y_score.astype(np.float32) if float32 else data.y_score
                ours[name] = function(data.y_true, score, data.qid, **params)
            return ours[name]

        for result, impl, metric, _ in tasks:
            spec = impl.references.get(metric)
            if spec is None or result.value is None:
                continue
            if isinstance(spec, dict):
                want = {name: reference(ref) for name, ref in spec.items()}
            else:
                want = reference(spec)
            result.agrees, result.diff, result.diff_name = _compare(result.value, want)

    def report(self, data: Data, seconds: float) -> None:
        """One progress line per metric: our time and every peer's, as ratios to argsort."""
        series, n_rows = data.series, data.n_rows
        base = self.results[(series.key, n_rows, "*", "argsort")].median
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


# ---------------------------------------------------------------------------
# Peak extra memory, one fresh subprocess per call
# ---------------------------------------------------------------------------


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
    peers = ("pandas", "sklearn", "ranx", "pytrec_eval", "torchmetrics", "xgboost", "lightgbm")
    return cases + [(peer, "ndcg@10", "base", 1_000_000) for peer in peers]


def _status_bytes(field_name: str) -> int:
    """A memory field of /proc/self/status (VmRSS, VmHWM) in bytes."""
    with open("/proc/self/status") as status:
        match = re.search(rf"^{field_name}:\s+(\d+) kB", status.read(), re.MULTILINE)
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
    out = {}
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
            [sys.executable, str(Path(__file__).resolve()), "--memory-child", spec],
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


# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------

PEER_KEYS = ("pandas", "sklearn", "ranx", "pytrec_eval", "torchmetrics", "xgboost", "lightgbm")
LIMITS = {"single": 1.5, "evaluate": 2.5, "ties": 1.2, "bytes_per_row": 64}


def machine() -> list[str]:
    """Markdown lines that describe the machine and the software versions."""
    lines = machine_lines()
    versions = []
    for module, distribution in PEER_DISTRIBUTIONS.items():
        try:
            version = importlib.metadata.version(distribution)
            importlib.import_module(module)
            versions.append(f"{distribution} {version}")
        except Exception as error:
            versions.append(f"{distribution}: not available ({type(error).__name__})")
    lines.append("- Peers: " + ", ".join(versions))
    return lines


def dispatch_note(level: str) -> str:
    """The header line on NumPy's dispatch level, and whether this run was limited."""
    line = (
        f"- NumPy dispatch level: **{level}** (one report per level: "
        f"{', '.join(f'RESULTS-{name}.md' for name in reversed(DISPATCH_LEVELS))}; "
        "np.argsort and the other sorts run AVX-512, AVX2 or baseline kernels)"
    )
    disabled = os.environ.get(DISABLE_VARIABLE)
    if disabled:
        line += (
            f"; **dispatch limited** by {DISABLE_VARIABLE}={disabled}: without it, "
            f"NumPy dispatches to {unlimited_dispatch_level()} on this machine"
        )
    return line


class Report:
    """Turns the results into Markdown."""

    def __init__(self, bench: Bench, memory: list[Memory]):
        self.bench = bench
        self.plan = bench.plan
        self.results = bench.results
        self.memory = memory
        sizes = self.sizes = bench.plan.sizes
        target_sizes = [n for n in sizes["base"] if n >= 1_000_000]
        self.target_sizes = target_sizes or list(sizes["base"][-1:])

    def get(self, series: str, n_rows: int, metric: str, key: str) -> Result | None:
        """The Result of one cell, if that cell was attempted."""
        return self.results.get((series, n_rows, metric, key))

    def seconds(self, series: str, n_rows: int, metric: str, key: str) -> float | None:
        """Median end-to-end seconds; ranx adds its conversion to its computation."""
        if key == "ranx":
            convert = self.get(series, n_rows, "*", "ranx_convert")
            compute = self.get(series, n_rows, metric, "ranx_compute")
            if convert and compute and convert.median and compute.median:
                return convert.median + compute.median
            return None
        if IMPL_BY_KEY[key].per_data_set:
            metric = "*"
        result = self.get(series, n_rows, metric, key)
        return result.median if result else None

    def cell(self, series: str, n_rows: int, metric: str, key: str) -> str:
        """'seconds (ratio to argsort)' or the reason there is no time."""
        base = self.seconds(series, n_rows, "*", "argsort")
        result = self.get(series, n_rows, "*" if IMPL_BY_KEY[key].per_data_set else metric, key)
        if result is None:
            return ""
        if result.median is None:
            short = {"n/a": "–", "missing": "not installed", "error": "error"}
            if result.status == "skipped" and result.projected is not None:
                return f"skip (~{result.projected:.0f} s)"
            if result.status == "skipped":
                return "skip"
            return short.get(result.status, result.status)
        text = f"{_seconds(result.median)} ({result.median / base:.1f}×)"
        if result.agrees is False:
            text += " ≠"
        return text

    def timing_table(self, series: Series) -> list[str]:
        """One row per (size, metric), one column per implementation."""
        heads = ["rows", "metric", "np.argsort s"] + [impl.label for impl in TIMED[1:]]
        lines = ["| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
        for n_rows in self.sizes.get(series.key, ()):
            if (series.key, n_rows) not in self.bench.n_queries:
                continue
            base = self.seconds(series.key, n_rows, "*", "argsort")
            for metric in METRICS:
                cells = [f"{n_rows:,}", METRIC_TITLES[metric], _seconds(base)]
                cells += [self.cell(series.key, n_rows, metric, impl.key) for impl in TIMED[1:]]
                lines.append("| " + " | ".join(cells) + " |")
        return lines

    def skip_notes(self, series: Series) -> list[str]:
        """Why cells are empty (skipped, error), one line per (size, implementation)."""
        lines = []
        for n_rows in self.sizes.get(series.key, ()):
            limit = self.plan.limit(series, n_rows)
            for impl in TIMED:
                projected, other, errors = [], {}, []
                for metric in ("*", *METRICS):
                    result = self.get(series.key, n_rows, metric, impl.key)
                    if result is None:
                        continue
                    name = "all" if metric == "*" else METRIC_TITLES[metric]
                    if result.status == "skipped" and result.projected is not None:
                        projected.append(f"{name} ~{result.projected:.0f} s ({result.source})")
                    elif result.status == "skipped":
                        other.setdefault(result.note, []).append(name)
                    elif result.status == "error":
                        errors.append(f"{name}: {result.note}")
                head = f"- {n_rows:,} rows, {impl.label}: "
                if projected:
                    lines.append(
                        head + f"skipped, projected > {limit:.2g} s: " + "; ".join(projected)
                    )
                for note, names in other.items():
                    lines.append(head + f"skipped ({note}): " + ", ".join(names))
                if errors:
                    lines.append(head + "error: " + "; ".join(errors))
        return lines

    def fastest_peer(self, series: str, n_rows: int, metric: str) -> tuple[str, float, bool]:
        """(label, seconds, measured) of the fastest peer; projected if none was measured."""
        timed = []
        for key in PEER_KEYS:
            seconds = self.seconds(series, n_rows, metric, key)
            result = self.get(series, n_rows, metric, "ranx_compute" if key == "ranx" else key)
            if seconds is not None and result is not None and result.agrees is not False:
                timed.append((seconds, IMPL_BY_KEY[key].label))
        if timed:
            seconds, label = min(timed)
            return label, seconds, True
        projected = []
        for impl in TIMED:
            result = self.get(series, n_rows, metric, impl.key)
            if impl.kind == "peer" and result is not None and result.projected is not None:
                projected.append((result.projected, impl.label))
        if projected:
            seconds, label = min(projected)
            return label, seconds, False
        return "", math.nan, False

    def targets(self) -> tuple[list[str], int, int]:
        """Target tables: (lines, passed, checked)."""
        lines, passed, checked = [], 0, 0

        def verdict(ok: bool) -> str:
            nonlocal passed, checked
            checked += 1
            passed += ok
            return "pass" if ok else "**FAIL**"

        heads = ["series", "target", "rows"] + [METRIC_TITLES[m] for m in METRICS]
        lines += ["| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
        for series in SERIES[:4]:
            for n_rows in self.target_sizes:
                if (series.key, n_rows) not in self.bench.n_queries:
                    continue
                base = self.seconds(series.key, n_rows, "*", "argsort")
                peer_row, ratio_row, ties_row = [], [], []
                for metric in METRICS:
                    ours = self.seconds(series.key, n_rows, metric, "ours")
                    if ours is None:
                        peer_row.append("no time")
                        ratio_row.append("no time")
                        ties_row.append("")
                        continue
                    label, fastest, measured = self.fastest_peer(series.key, n_rows, metric)
                    if not label:
                        peer_row.append("no peer")
                    else:
                        ok = ours <= fastest
                        how = "" if measured else " projected"
                        peer_row.append(
                            f"{verdict(ok)} {_seconds(ours)} vs {_seconds(fastest)} s{how} "
                            f"({label})"
                        )
                    limit = LIMITS["evaluate" if metric == "evaluate" else "single"]
                    ratio = ours / base
                    ratio_row.append(f"{verdict(ratio <= limit)} {ratio:.2f}× (≤ {limit})")
                    inputs = self.seconds(series.key, n_rows, metric, "ours_input")
                    if inputs is not None and not series.tied:
                        share = ours / inputs
                        ties_row.append(f"{verdict(share <= LIMITS['ties'])} {share:.2f}×")
                    else:
                        ties_row.append("")
                for name, row in (
                    ("≤ fastest peer", peer_row),
                    ("≤ 1.5× (2.5× evaluate) argsort", ratio_row),
                    ("ties=average ≤ 1.2× ties=input", ties_row),
                ):
                    if any(row):
                        lines.append(
                            f"| {series.key} | {name} | {n_rows:,} | " + " | ".join(row) + " |"
                        )
        memory_lines = []
        for memory in self.memory:
            if memory.impl == "ours" and memory.peak is not None:
                per_row = memory.peak / memory.n_rows
                ok = per_row <= LIMITS["bytes_per_row"]
                memory_lines.append(
                    f"| {memory.series} | {METRIC_TITLES[memory.metric]} | {memory.n_rows:,} | "
                    f"{verdict(ok)} {per_row:.1f} B/row (≤ 64) |"
                )
        if memory_lines:
            lines += ["", "| series | metric | rows | peak extra memory |", "|---|---|---|---|"]
            lines += memory_lines
        return lines, passed, checked

    def readme_table(self) -> list[str]:
        """The 1M-row (or largest) tie-free table: implementations by metrics."""
        sizes = self.sizes["base"]
        n_rows = 1_000_000 if 1_000_000 in sizes else sizes[-1]
        base = self.seconds("base", n_rows, "*", "argsort")
        heads = ["implementation"] + [METRIC_TITLES[m] for m in METRICS]
        lines = [
            f"{n_rows:,} rows, {self.bench.n_queries[('base', n_rows)]:,} queries, tie-free "
            f"scores; median seconds (ratio to one np.argsort of the scores, "
            f"{_seconds(base)} s).",
            "",
            "| " + " | ".join(heads) + " |",
            "|" + "---|" * len(heads),
        ]
        rows = [
            ("sklearn_rank_metrics", "ours"),
            ('sklearn_rank_metrics, ties="input"', "ours_input"),
            ("pandas groupby + scikit-learn", "pandas"),
            ("scikit-learn on padded 2-D", "sklearn"),
            ("ranx (convert + compute)", "ranx"),
            ("ranx (compute only)", "ranx_compute"),
            ("pytrec_eval", "pytrec_eval"),
            ("torchmetrics (CPU)", "torchmetrics"),
            ("XGBoost (own metric)", "xgboost"),
            ("LightGBM (own metric)", "lightgbm"),
            ("np.lexsort((score, qid))", "lexsort"),
            ("np.argsort(score)", "argsort"),
        ]
        for title, key in rows:
            cells = []
            for metric in METRICS:
                if key == "ranx":
                    seconds = self.seconds("base", n_rows, metric, "ranx")
                    if seconds is None:
                        compute = self.cell("base", n_rows, metric, "ranx_compute")
                        convert = self.cell("base", n_rows, metric, "ranx_convert")
                        cells.append(compute if compute == "–" else convert)
                    else:
                        cells.append(f"{_seconds(seconds)} ({seconds / base:.1f}×)")
                else:
                    cells.append(self.cell("base", n_rows, metric, key))
            lines.append(f"| {title} | " + " | ".join(cells) + " |")
        return lines

    def checks_table(self) -> list[str]:
        """Value checks on tie-free data: largest |difference| per peer and metric."""
        heads = ["peer"] + [METRIC_TITLES[m] for m in METRICS]
        lines = ["| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
        for impl in TIMED:
            if impl.kind != "peer" or not impl.references:
                continue
            cells = []
            for metric in METRICS:
                found = [
                    result
                    for (series, _, m, key), result in self.results.items()
                    if m == metric and key == impl.key and result.agrees is not None
                ]
                if not found:
                    cells.append("–" if metric not in impl.references else "not run")
                    continue
                bad = [result for result in found if not result.agrees]
                worst = max(found, key=lambda result: result.diff)
                where = f" {worst.diff_name}" if worst.diff_name else ""
                if bad:
                    series_names = sorted(
                        {key[0] for key, r in self.results.items() if any(r is b for b in bad)}
                    )
                    verdict = f"**no** on {len(bad)} of {len(found)} ({', '.join(series_names)})"
                else:
                    verdict = f"yes ({len(found)} data sets)"
                cells.append(f"{verdict}, max {worst.diff:.1e}{where}")
            label = "ranx" if impl.key == "ranx_compute" else impl.label
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
        return lines

    def memory_table(self) -> list[str]:
        """Peak extra memory per call, fresh subprocess per row."""
        lines = [
            "| implementation | metric | series | rows | peak extra RSS MiB | "
            "peak traced MiB | bytes per row |",
            "|---|---|---|---|---|---|---|",
        ]
        for memory in self.memory:
            impl = IMPL_BY_KEY[memory.impl]
            metric = "sort" if memory.metric == "*" else METRIC_TITLES[memory.metric]
            if memory.error:
                tail = f"{memory.error} | | |"
            else:
                rss = "n/a" if memory.rss is None else f"{memory.rss / 2**20:.1f}"
                traced = "n/a" if memory.traced is None else f"{memory.traced / 2**20:.1f}"
                tail = f"{rss} | {traced} | {memory.peak / memory.n_rows:.1f}"
            lines.append(
                f"| {impl.label} | {metric} | {memory.series} | {memory.n_rows:,} | {tail} |"
            )
        return lines

    def markdown(self, command: str, started: datetime.datetime, runtime: float, load: str) -> str:
        """The whole report (RESULTS-<level>.md)."""
        target_lines, passed, checked = self.targets()
        level, limited = dispatch_level(), bool(os.environ.get(DISABLE_VARIABLE))
        budget = self.plan.budget
        budget_text = f"{budget:.0f} s" if budget < 120 else f"{budget / 60:.0f} min"
        out = [
            "# Benchmark: sklearn_rank_metrics against its peers "
            f"(NumPy dispatch {level}{', limited' if limited else ''})",
            "",
            "Generated by `benchmarks/bench_peers.py`; do not edit by hand.",
            "",
            f"- Command: `{command}`",
            f"- Date: {started:%Y-%m-%d %H:%M} UTC; runtime {runtime / 60:.1f} min, of which "
            f"{self.bench.import_seconds:.0f} s imports and {self.bench.warm_up_seconds:.0f} s "
            f"warm-up (ranx's numba JIT), both outside the {budget_text} time budget; "
            f"1-minute load average {load} (other work on the machine slows the "
            "multi-threaded peers most)",
            dispatch_note(level),
            *machine(),
            "",
            "## How to read",
            "",
            "Every call starts from flat NumPy arrays `(y_true, y_score, qid)` and includes the "
            "conversions each tool needs: the data frame (pandas loop), padding to 2-D "
            "(scikit-learn), dicts and `Qrels`/`Run` objects (ranx, pytrec_eval), tensors "
            "(torchmetrics), sorting rows by query and building the `DMatrix`/`Dataset` "
            "(XGBoost, LightGBM: their own metric of the given scores, evaluated before any "
            "boosting round). ranx is timed in two parts, after a warm-up call that compiles "
            "its numba code: *convert* (dicts, `Qrels`, `Run`, which sorts each query) and "
            "*compute* (`ranx.evaluate`).",
            "",
            "The calls on one data set run interleaved in rounds (A B C, then C A B, ...), "
            "each round in a new seeded random order, so that no call always follows the "
            "same one (at 10M rows, the call right after `np.lexsort` pays about 0.9 s of "
            "system time for the kernel compacting the memory lexsort freed). Each cell is the "
            f"median of {MIN_REPEATS} to {MAX_REPEATS} calls for ours and the lower bounds "
            f"(about {self.plan.ours_seconds:g} s of calls per cell) and of 1 to "
            f"{PEER_MAX_REPEATS} for a peer (about {self.plan.peer_seconds:g} s, at least one "
            "call) and, in brackets, its ratio to the median of "
            "`np.argsort(y_score)` on the same data. `np.lexsort((y_score, qid))` is the "
            "sort a grouped ranking needs if done naively. Ours and NumPy run on one thread; "
            "XGBoost, LightGBM, ranx (numba) and torch use their default thread counts (all "
            "cores), with `OMP_WAIT_POLICY=PASSIVE` (unless set otherwise) so that their idle "
            "threads do not spin into the next timed call.",
            "",
            "Queries have about 100 rows (ids drawn at random, so sizes vary), labels 0-4 with "
            "half of them 0. Tie-free scores are distinct in float32; tied data rounds 30% of "
            "the scores to nine values. A peer call whose time, projected from the next "
            "smaller size, exceeds a limit is skipped (`skip (~N s)`: the projection; the "
            "notes below each table give the source and the limit); the fixed cost of a "
            "call (measured on 2,000 rows) is not scaled. The shapes *one "
            "query* and *one-row queries* run at 10k and 100k rows first (the first "
            "projected from the base series), to project the 10M-row case. "
            f"Past {budget_text} of timing after the warm-up, the remaining peer calls are "
            "skipped and ours and the lower bounds are timed once (the notes say so). "
            "`–`: the tool has no such metric. `≠`: the value differs from ours under "
            "matching settings (see Value checks). Calls of ours above "
            f"{SLOW_CALL:g} s run twice, above {VERY_SLOW_CALL:g} s once.",
            "",
            "Row *evaluate, 10 metrics*: ours computes " + ", ".join(TEN_METRICS) + " in one "
            "call; each peer computes the subset it has in its natural way: pandas loop all "
            "10 (ndcg, AP and AUC with scikit-learn, the rest NumPy), scikit-learn padded 3 "
            "(ndcg@10, ndcg, LRAP), ranx 8 and pytrec_eval 8 (no ERR, no AUC; trec_eval's "
            "recip_rank has no cutoff), torchmetrics 9 (no ERR), XGBoost 5 (ndcg@10, ndcg, "
            "map, map@10, pre@10; graded and binary labels need two DMatrix), LightGBM 4 "
            "(ndcg@10, ndcg, map@10, map). In the pandas loop MRR@10 and P@10 are NumPy "
            "(scikit-learn has neither).",
            "",
            "## README table",
            "",
            *self.readme_table(),
            "",
            "## Targets",
            "",
            f"{passed} of {checked} checks pass. Single metric: no slower than the fastest "
            "peer and ≤ 1.5× one np.argsort of the scores; ten-metric evaluate ≤ 2.5×; "
            'ties="average" ≤ 1.2× ties="input" (NDCG@10, tie-free); peak extra memory '
            "≤ 64 bytes per row. The fastest peer is taken end to end (ranx: convert + "
            "compute); `projected` means no peer ran at that size and the fastest "
            "projection stands in.",
            "",
            *target_lines,
            "",
            "## Timings",
        ]
        for series in SERIES:
            if not any(key == series.key for key, _ in self.bench.n_queries):
                continue
            out += ["", f"### {series.title}", "", *self.timing_table(series)]
            notes = self.skip_notes(series)
            if notes:
                out += ["", *notes]
        out += [
            "",
            "## Value checks",
            "",
            f"On tie-free data every peer's value is compared with ours under the settings "
            f'that reproduce it (README "Matching other tools"; LightGBM/XGBoost: '
            f'exponential gain, ties="input", replace_undefined_by=1.0, XGBoost on float32 '
            f"scores; trec_eval's recip_rank against our MRR without cutoff). Agreement: "
            f"|difference| < {TOLERANCE:g} on every data set where the peer ran.",
            "",
            *self.checks_table(),
            "",
            "## Memory",
            "",
            "Peak extra memory of one call beyond its inputs, each row in a fresh subprocess "
            "after a warm-up call on tiny data: the peak resident set size (reset through "
            "/proc/self/clear_refs just before the call) minus the resident size before it, "
            "and, for ours and NumPy, the peak of a second call under tracemalloc (exact for "
            "NumPy arrays, blind to C++ allocations). Bytes per row use the larger of the two.",
            "",
            *self.memory_table(),
            "",
        ]
        return "\n".join(out)


# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------


def main() -> None:
    """Parse the command line, run the timings and the memory cases, write the report."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="small sizes only (about 1 min)")
    parser.add_argument(
        "--output",
        type=Path,
        default=None,
        help="Markdown report (default: benchmarks/RESULTS-<dispatch level>.md; --quick "
        "writes none)",
    )
    parser.add_argument("--no-memory", action="store_true", help="skip the memory table")
    parser.add_argument(
        "--limit-dispatch",
        choices=DISPATCH_LEVELS[:-1],
        help="re-execute with NPY_DISABLE_CPU_FEATURES set so that NumPy dispatches no "
        "higher than this level (nothing to do if it dispatches no higher already)",
    )
    parser.add_argument(
        "--no-avx2-rerun",
        action="store_true",
        help="where NumPy dispatches to AVX-512, do not rerun the full run limited to AVX2",
    )
    parser.add_argument("--memory-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_child:
        print(json.dumps(memory_child(json.loads(args.memory_child))))
        return
    if args.limit_dispatch:
        limit_dispatch(args.limit_dispatch)
    warnings.simplefilter("ignore")
    started = datetime.datetime.now(datetime.timezone.utc)
    load_before = os.getloadavg()[0]
    clock = time.perf_counter()

    def log(line: str) -> None:
        print(f"[{time.perf_counter() - clock:6.0f} s] {line}", flush=True)

    plan = QUICK if args.quick else FULL
    sizes = plan.sizes
    level = dispatch_level()
    disabled = os.environ.get(DISABLE_VARIABLE)
    log(f"NumPy dispatch level {level}" + (f", {DISABLE_VARIABLE}={disabled}" if disabled else ""))
    bench = Bench(plan, log)
    log(f"imports of the peers: {bench.import_seconds:.1f} s")
    for key, reason in bench.missing.items():
        if reason:
            log(f"{IMPL_BY_KEY[key].label}: not available ({reason})")
    log("warming up (first calls, numba JIT of ranx)")
    bench.warm_up()
    log(f"warm-up: {bench.warm_up_seconds:.1f} s; the {plan.budget:.0f} s time budget starts now")
    for n_rows in sorted({n for values in sizes.values() for n in values}):
        for series in SERIES:
            if n_rows in sizes[series.key]:
                # value checks on tie-free data, above 1M rows on the base series only
                check = not series.tied and (n_rows <= 1_000_000 or series.key == "base")
                bench.run(series, n_rows, check=check)
    memory = []
    if not args.no_memory:
        for case in memory_cases(args.quick):
            reason = bench.missing[case[0]]
            if reason:
                memory.append(Memory(*case, error=f"not installed ({reason})"))
                continue
            memory.append(measure_memory(case))
            last = memory[-1]
            peak = "?" if last.peak is None else f"{last.peak / last.n_rows:.1f} B/row"
            log(f"memory {case[0]} {case[1]} {case[2]} {case[3]:,}: {peak} {last.error}")
    runtime = time.perf_counter() - clock
    command = "python " + " ".join([Path(sys.argv[0]).as_posix(), *sys.argv[1:]])
    report = Report(bench, memory)
    load = f"{load_before:.2f} at the start, {os.getloadavg()[0]:.2f} at the end"
    text = report.markdown(command, started, runtime, load)
    print(text)
    output = args.output
    if output is None and not args.quick:
        output = HERE / f"RESULTS-{level}.md"
    if output is not None:
        output.write_text(text)
        log(f"wrote {output}")
    log(f"done in {runtime / 60:.1f} min ({runtime:.0f} s)")
    if level == "avx512" and not args.quick and not args.no_avx2_rerun:
        rerun_avx2(args, log)


def limit_dispatch(level: str) -> None:
    """Re-execute this script with NPY_DISABLE_CPU_FEATURES limiting NumPy to ``level``.

    NumPy reads the variable once, at import, so the limit needs a new process. Returns
    (and the run goes on) when NumPy dispatches no higher than ``level`` already.
    """
    env = limited_environment(level)
    if env is None:
        return
    if env[DISABLE_VARIABLE] == os.environ.get(DISABLE_VARIABLE):  # would loop for ever
        sys.exit(f"cannot limit NumPy's dispatch to {level}: {dispatch_level()} remains")
    print(f"{DISABLE_VARIABLE}={env[DISABLE_VARIABLE]}: re-executing", flush=True)
    os.execve(sys.executable, [sys.executable, *sys.argv], env)


def rerun_avx2(args: argparse.Namespace, log: Callable[[str], None]) -> None:
    """The full run again in a subprocess, with NumPy limited to AVX2 (RESULTS-avx2.md)."""
    command = [sys.executable, str(Path(__file__).resolve()), "--limit-dispatch", "avx2"]
    command += ["--no-avx2-rerun"] + (["--no-memory"] if args.no_memory else [])
    if args.output is not None:
        command += ["--output", str(args.output.with_stem(args.output.stem + "-avx2"))]
    log("rerun limited to AVX2: " + " ".join(command[1:]))
    done = subprocess.run(command, check=False)
    if done.returncode:
        log(f"the AVX2 rerun failed (exit {done.returncode})")


if __name__ == "__main__":
    main()
