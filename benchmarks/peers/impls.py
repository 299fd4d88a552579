"""The columns of the tables: one adapter class per implementation.

Each adapter turns flat NumPy rows into a zero-argument call that computes one metric
(or, for ``evaluate``, every metric the tool has) end to end, the tool's own conversions
included. The lower bounds (``np.argsort``, ``np.lexsort``) and ours come first, then
one class per peer tool. The tools' metric names come from :func:`.names.peer_name`.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from sklearn_rank_metrics import (
    evaluate,
    group_roc_auc_score,
    mean_average_precision_score,
    mean_reciprocal_rank_score,
    ndcg_score,
    precision_at_k_score,
)

from .data import METRICS, TEN_METRICS, Data, padded, query_dicts, rows_by_query
from .names import peer_metrics, peer_name

Call = Callable[[], Any]


class NotApplicable(Exception):
    """The implementation has no such metric; the message says why."""


def our_calls(metric: str, data: Data, **params: Any) -> Call:
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


def _name(tool: str, metric: str) -> str:
    """The name of ``metric`` in ``tool`` (:func:`.names.peer_name`); NotApplicable if none."""
    name = peer_name(tool, metric)
    if name is None:
        raise NotApplicable(f"{tool} has no {metric}")
    return name


def _references(metrics: list[str], reference: Callable[[str], str] = str) -> dict[str, Any]:
    """An adapter's ``references``: each timed metric among the tool's ``metrics``, and
    ``evaluate`` as all of them, checked against our value under ``reference(metric)``
    (a key of :data:`.checks.REFERENCES`)."""
    checked = {metric: reference(metric) for metric in metrics}
    return {**{m: checked[m] for m in METRICS if m in checked}, "evaluate": checked}


def _results(metric: str, values: dict[str, Any]) -> Any:
    """What a call returns: every value for ``evaluate``, else the one of ``metric``."""
    return values if metric == "evaluate" else values[metric]


class Impl:
    """One column of the tables: something that computes the metrics from flat arrays."""

    key = ""
    label = ""
    kind = "peer"  # "bound", "ours" or "peer"
    modules: tuple[str, ...] = ()
    per_data_set = False  # one timing per data set (lower bounds, conversions)
    timed = True  # False: used only for the memory table
    depends_on = ""  # key of an implementation whose skip implies this one's
    # metric -> key of checks.REFERENCES (or, for "evaluate", {our name: key}) for the check
    references: dict[str, Any] = {}
    notes: dict[str, str] = {}  # metric -> why it is not available

    def prepare(self, metric: str, data: Data) -> Call:
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

    def prepare(self, metric: str, data: Data) -> Call:
        return lambda: np.argsort(data.y_score)


class Lexsort(Impl):
    """Sorting rows by (query, score) with np.lexsort, the naive grouped sort."""

    key, label, kind, per_data_set = "lexsort", "np.lexsort", "bound", True

    def prepare(self, metric: str, data: Data) -> Call:
        return lambda: np.lexsort((data.y_score, data.qid))


class Ours(Impl):
    """sklearn_rank_metrics with default settings (ties="average")."""

    key, label, kind = "ours", "ours", "ours"

    def prepare(self, metric: str, data: Data) -> Call:
        return our_calls(metric, data)


class OursTiesInput(Impl):
    """Our NDCG@10 with ties="input", to price the tie averaging."""

    key, label, kind = "ours_input", "ours ties=input", "ours"
    notes = {m: "timed for NDCG@10 only" for m in METRICS if m != "ndcg@10"}

    def prepare(self, metric: str, data: Data) -> Call:
        self.not_applicable(metric)
        return our_calls(metric, data, ties="input")


# ---------------------------------------------------------------------------
# pandas and scikit-learn, as a user writes them
# ---------------------------------------------------------------------------


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
    references = _references(list(TEN_METRICS))

    def prepare(self, metric: str, data: Data) -> Call:
        import pandas as pd
        from sklearn.metrics import average_precision_score, ndcg_score

        y, s, q = data.y_true, data.y_score, data.qid
        if metric == "evaluate":

            def ten() -> dict[str, float]:
                frame = pd.DataFrame({"qid": q, "y": y, "s": s})
                max_grade = float(frame["y"].max())
                table = frame.groupby("qid").apply(
                    lambda g: pd.Series(
                        _query_ten(g["y"].to_numpy(), g["s"].to_numpy(), max_grade),
                        index=TEN_METRICS,
                    )
                )
                return {name: float(value) for name, value in table.mean().items()}

            return ten
        function = {
            "ndcg@10": lambda a, b: ndcg_score([a], [b], k=10),
            "map": lambda a, b: average_precision_score(a > 0, b),
            "mrr@10": _query_mrr10,
            "p@10": lambda a, b: (a[np.argsort(-b, kind="stable")[:10]] > 0).sum() / 10,
            "gauc": _query_auc,
        }[metric]

        def per_query() -> float:
            frame = pd.DataFrame({"qid": q, "y": y, "s": s})
            values = frame.groupby("qid").apply(
                lambda g: function(g["y"].to_numpy(), g["s"].to_numpy())
            )
            return float(values.mean())

        return per_query


SKLEARN_CONVENTIONS = {"map": "map,undefined=1"}


class SklearnPadded(Impl):
    """scikit-learn's 2-D metrics on the rows padded to one row per query."""

    key, label = "sklearn", "sklearn padded"
    modules = ("sklearn",)
    # label_ranking_average_precision_score scores a query without relevant rows 1
    references = _references(["ndcg@10", "ndcg", "map"], lambda m: SKLEARN_CONVENTIONS.get(m, m))
    notes = {
        "mrr@10": "scikit-learn has no MRR",
        "p@10": "scikit-learn has no precision@k for rankings",
        "gauc": "padding rows would enter roc_auc_score as negatives",
    }

    def prepare(self, metric: str, data: Data) -> Call:
        from sklearn.metrics import label_ranking_average_precision_score, ndcg_score

        self.not_applicable(metric)

        def call() -> Any:
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


# ---------------------------------------------------------------------------
# IR evaluation tools
# ---------------------------------------------------------------------------

RANX_METRICS = peer_metrics("ranx", TEN_METRICS)


def ranx_objects(data: Data) -> tuple[Any, Any]:
    """ranx's Qrels and Run of the rows (the Run sorts each query at construction)."""
    import ranx

    qrels, run = query_dicts(data)
    return ranx.Qrels(qrels), ranx.Run(run)


def ranx_compute(metric: str, qrels: Any, run: Any) -> Any:
    """ranx.evaluate on ready Qrels and Run, the result in our metric names."""
    import ranx

    if metric != "evaluate":
        return float(ranx.evaluate(qrels, run, _name("ranx", metric)))
    theirs = {ours: _name("ranx", ours) for ours in RANX_METRICS}
    values = ranx.evaluate(qrels, run, list(theirs.values()))
    return {ours: float(values[name]) for ours, name in theirs.items()}


class RanxConvert(Impl):
    """ranx, part one: flat arrays to dicts to ``Qrels`` and ``Run``."""

    key, label, per_data_set = "ranx_convert", "ranx convert", True
    modules = ("ranx",)

    def prepare(self, metric: str, data: Data) -> Call:
        def call() -> None:
            data.cache["ranx"] = ranx_objects(data)  # for ranx compute, timed after this

        return call


class RanxCompute(Impl):
    """ranx, part two: ``ranx.evaluate`` on the converted objects."""

    key, label, depends_on = "ranx_compute", "ranx compute", "ranx_convert"
    modules = ("ranx",)
    references = _references(RANX_METRICS)
    notes = {"gauc": "ranx has no AUC"}

    def prepare(self, metric: str, data: Data) -> Call:
        self.not_applicable(metric)

        def call() -> Any:
            if "ranx" not in data.cache:  # not timed here unless ranx convert did not run
                data.cache["ranx"] = ranx_objects(data)
            return ranx_compute(metric, *data.cache["ranx"])

        return call


class RanxEndToEnd(RanxCompute):
    """Conversion and computation in one call: for the memory table only."""

    key, label, timed, depends_on = "ranx", "ranx", False, ""

    def prepare(self, metric: str, data: Data) -> Call:
        self.not_applicable(metric)
        return lambda: ranx_compute(metric, *ranx_objects(data))


# trec_eval's recip_rank has no cutoff: it stands in for MRR@10, checked against our MRR
TREC_STAND_INS = {"mrr@10": "mrr"}
TREC_METRICS = [m for m in TEN_METRICS if peer_name("trec_eval", TREC_STAND_INS.get(m, m))]


class PytrecEval(Impl):
    """trec_eval through pytrec_eval, dict conversion included."""

    key, label = "pytrec_eval", "pytrec_eval"
    modules = ("pytrec_eval",)
    references = _references(TREC_METRICS, lambda m: TREC_STAND_INS.get(m, m))
    notes = {"gauc": "trec_eval has no AUC"}

    def prepare(self, metric: str, data: Data) -> Call:
        import pytrec_eval

        self.not_applicable(metric)
        wanted = TREC_METRICS if metric == "evaluate" else [metric]
        # our name -> (trec_eval measure, its key in the results: "P.10" -> "P_10")
        measures = {m: _name("trec_eval", TREC_STAND_INS.get(m, m)) for m in wanted}
        keys = {m: measure.replace(".", "_") for m, measure in measures.items()}

        def call() -> Any:
            qrels, run = query_dicts(data)
            evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(measures.values()))
            per_query = evaluator.evaluate(run)
            values = {
                m: float(np.mean([row[keys[m]] for row in per_query.values()])) for m in wanted
            }
            return _results(metric, values)

        return call


TORCH_METRICS = peer_metrics("torchmetrics", TEN_METRICS)
TORCH_CONVENTIONS = {"map@10": "map@10,in_top_k"}
_TORCH_NAME = re.compile(r"(?P<name>\w+)(?:\((?:top_k=(?P<top_k>\d+))?\))?")


def torch_spec(metric: str) -> tuple[str, dict[str, int], bool]:
    """(torchmetrics.retrieval class, its arguments, whether it takes binary targets) of
    ``metric``: every retrieval metric takes binary targets but NDCG, which takes grades."""
    name = _name("torchmetrics", metric)
    match = _TORCH_NAME.fullmatch(name)
    if match is None:
        raise ValueError(f"not a torchmetrics class with arguments: {name!r}")
    params = {} if match["top_k"] is None else {"top_k": int(match["top_k"])}
    return match["name"], params, match["name"] != "RetrievalNormalizedDCG"


class Torchmetrics(Impl):
    """torchmetrics' retrieval metrics on CPU tensors made from the arrays."""

    key, label = "torchmetrics", "torchmetrics"
    modules = ("torch", "torchmetrics")
    # RetrievalMAP(top_k=10) divides by the relevant rows in the top 10
    references = _references(TORCH_METRICS, lambda m: TORCH_CONVENTIONS.get(m, m))

    def prepare(self, metric: str, data: Data) -> Call:
        import torch
        import torchmetrics.retrieval

        wanted = TORCH_METRICS if metric == "evaluate" else [metric]
        specs = {name: torch_spec(name) for name in wanted}

        def call() -> Any:
            preds = torch.from_numpy(data.y_score)
            indexes = torch.from_numpy(data.qid)
            graded = torch.from_numpy(data.y_true)
            binary = torch.from_numpy(data.y_true > 0)
            values = {}
            for name, (class_name, params, is_binary) in specs.items():
                scorer = getattr(torchmetrics.retrieval, class_name)(**params)
                scorer.update(preds, binary if is_binary else graded, indexes=indexes)
                values[name] = float(scorer.compute())
            return _results(metric, values)

        return call


# ---------------------------------------------------------------------------
# Gradient boosting libraries: their own metric of the given scores
# ---------------------------------------------------------------------------


class Booster(Impl):
    """A gradient boosting library's own ranking metrics of the scores, evaluated before
    any boosting round: rows grouped by query, the scores as the initial margin.

    ``key`` is the tool's name in :mod:`.names` and its module; ``reference_prefix``
    names the booster's convention in :data:`.checks.REFERENCES`, against which each of
    its metrics is checked. A subclass says how the library computes its metrics
    (:meth:`own_metrics`).
    """

    reference_prefix = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.modules = (cls.key,)
        prefix = cls.reference_prefix + ":"
        cls.references = _references(peer_metrics(cls.key, TEN_METRICS), prefix.__add__)

    def prepare(self, metric: str, data: Data) -> Call:
        self.not_applicable(metric)
        wanted = peer_metrics(self.key, TEN_METRICS) if metric == "evaluate" else [metric]

        def call() -> Any:
            y, s, q, sizes = rows_by_query(data)
            # "@n" (every row of a query): the longest query's size
            longest = f"@{int(sizes.max())}"
            theirs = {m: _name(self.key, m).replace("@n", longest) for m in wanted}
            got = self.own_metrics(y, s, q, sizes, theirs)
            return _results(metric, {m: got[name] for m, name in theirs.items()})

        return call

    def own_metrics(
        self, y: np.ndarray, s: np.ndarray, q: np.ndarray, sizes: np.ndarray, theirs: dict
    ) -> dict[str, float | None]:
        """The library's values of the metrics named ``theirs.values()``, by their names
        (a name missing: an error; a value None: not reported, which the check flags)."""
        raise NotImplementedError


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


class XGBoost(Booster):
    """XGBoost's own ranking metrics of the scores (zero boosting rounds)."""

    key, label, reference_prefix = "xgboost", "XGBoost", "xgb"
    notes = {
        "mrr@10": "XGBoost has no MRR",
        "gauc": "XGBoost's auc with query groups is not the mean per-query ROC AUC "
        "(a perfectly ordered query scores about 0.67)",
    }

    def own_metrics(self, y, s, q, sizes, theirs):
        """Graded labels for NDCG, binary ones for MAP and P@k: one DMatrix each."""
        values = {}
        for binary in (False, True):
            names = [name for name in theirs.values() if name.startswith("ndcg") != binary]
            if names:
                values.update(_xgboost_eval(y, s, q, names, binary))
        return values


class LightGBM(Booster):
    """LightGBM's own ranking metrics of the scores (no boosting round)."""

    key, label, reference_prefix = "lightgbm", "LightGBM", "lgb"
    notes = {
        "mrr@10": "LightGBM has no MRR",
        "p@10": "LightGBM has no precision@k",
        "gauc": "LightGBM's AUC is over all rows, not per query",
    }

    def own_metrics(self, y, s, q, sizes, theirs):
        """Each metric at each cutoff ``eval_at`` ("ndcg@10": metric "ndcg", cutoff 10)."""
        import lightgbm

        split = [name.split("@") for name in theirs.values()]
        names = list(dict.fromkeys(name for name, _ in split))
        eval_at = [int(k) for k in dict.fromkeys(k for _, k in split)]
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
        return {name: got.get(name) for name in theirs.values()}  # None: not reported


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
# the peers end to end (ranx: conversion and computation), as the report compares them
PEER_KEYS = ("pandas", "sklearn", "ranx", "pytrec_eval", "torchmetrics", "xgboost", "lightgbm")
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
