"""Ranking metrics over query groups that behave like scikit-learn's own metrics.

Every metric takes flat ``(y_true, y_score, group)`` arrays (or scikit-learn's 2-D
form), sorts the rows once by (query, score descending) and computes one value per
query with vectorised NumPy; the functions return the mean over queries.

Importing the package is cheap: each public name is imported from its private
module on first use (PEP 562 ``__getattr__``), so ``import sklearn_rank_metrics``
loads neither NumPy nor scikit-learn, ``from sklearn_rank_metrics import
ndcg_score`` loads what the metrics need and no more (not the statistics, the
readers, the displays or the scorers), and the command line starts under its
Ctrl-C handler. Importing changes no global state (warning filters, scikit-learn's
configuration, NumPy's settings).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._version import __version__ as __version__

if TYPE_CHECKING:  # the names below as type checkers and editors see them
    from ._engine._warnings import SuspiciousInputWarning, TieOrderWarning
    from ._io import (
        AlignedRuns,
        RankingData,
        align_recommendations,
        align_trec_runs,
        read_letor,
        read_recommendations,
        read_table,
        read_trec,
        read_trec_qrels,
        read_trec_run,
    )
    from ._io._datasets import make_ranking
    from ._metrics._agreement import (
        kendall_tau_score,
        overlap_at_k_score,
        rank_biased_overlap,
    )
    from ._metrics._auc import group_roc_auc_score
    from ._metrics._binary import (
        fbeta_at_k_score,
        hit_rate_score,
        mean_average_precision_score,
        mean_reciprocal_rank_score,
        precision_at_k_score,
        r_precision_score,
        recall_at_k_score,
    )
    from ._metrics._counts import retrieval_count_score
    from ._metrics._evaluate import evaluate
    from ._metrics._fallout import fallout_at_k_loss
    from ._metrics._graded import dcg_score, expected_reciprocal_rank_score, idcg_score, ndcg_score
    from ._metrics._interpolated import eleven_point_precision_score, interpolated_precision_score
    from ._metrics._judged import bpref_score, judged_at_k_score
    from ._metrics._rbp import rbp_score
    from ._metrics._streaming import RankingEvaluator
    from ._model_selection._booster_metrics import make_lightgbm_metric, make_xgboost_metric
    from ._model_selection._ranker import GroupedRanker
    from ._model_selection._scorer import (
        ScorerSetupError,
        make_ranking_scorer,
        make_ranking_scorers,
    )
    from ._plot._metric_at_k import MetricAtKDisplay
    from ._plot._per_query_difference import PerQueryDifferenceDisplay
    from ._plot._per_query_metric import PerQueryMetricDisplay
    from ._sampled._estimators import (
        SampledRanks,
        sampled_metric_estimate,
        sampled_metric_table,
        sampled_rank_distribution,
        sampled_ranks,
    )
    from ._stats._compare import ComparisonResult, compare
    from ._stats._per_query_values import PerQueryValues
    from ._stats._report import ranking_report

# the private module of every public name (relative to the package), imported when the
# name is first used; tests/meta/test_imports.py checks it against __all__ and the
# imports above
_MODULES: dict[str, tuple[str, ...]] = {
    "._engine._warnings": ("SuspiciousInputWarning", "TieOrderWarning"),
    "._io": (
        "AlignedRuns",
        "RankingData",
        "align_recommendations",
        "align_trec_runs",
        "read_letor",
        "read_recommendations",
        "read_table",
        "read_trec",
        "read_trec_qrels",
        "read_trec_run",
    ),
    "._io._datasets": ("make_ranking",),
    "._metrics._agreement": (
        "kendall_tau_score", "overlap_at_k_score", "rank_biased_overlap",
    ),
    "._metrics._auc": ("group_roc_auc_score",),
    "._metrics._binary": (
        "fbeta_at_k_score",
        "hit_rate_score",
        "mean_average_precision_score",
        "mean_reciprocal_rank_score",
        "precision_at_k_score",
        "r_precision_score",
        "recall_at_k_score",
    ),
    "._metrics._counts": ("retrieval_count_score",),
    "._metrics._evaluate": ("evaluate",),
    "._metrics._fallout": ("fallout_at_k_loss",),
    "._metrics._graded": (
        "dcg_score",
        "expected_reciprocal_rank_score",
        "idcg_score",
        "ndcg_score",
    ),
    "._metrics._interpolated": ("eleven_point_precision_score", "interpolated_precision_score"),
    "._metrics._judged": ("bpref_score", "judged_at_k_score"),
    "._metrics._rbp": ("rbp_score",),
    "._metrics._streaming": ("RankingEvaluator",),
    "._model_selection._booster_metrics": ("make_lightgbm_metric", "make_xgboost_metric"),
    "._model_selection._ranker": ("GroupedRanker",),
    "._model_selection._scorer": (
        "ScorerSetupError", "make_ranking_scorer", "make_ranking_scorers",
    ),
    "._plot._metric_at_k": ("MetricAtKDisplay",),
    "._plot._per_query_difference": ("PerQueryDifferenceDisplay",),
    "._plot._per_query_metric": ("PerQueryMetricDisplay",),
    "._sampled._estimators": (
        "SampledRanks",
        "sampled_metric_estimate",
        "sampled_metric_table",
        "sampled_rank_distribution",
        "sampled_ranks",
    ),
    "._stats._compare": ("ComparisonResult", "compare"),
    "._stats._per_query_values": ("PerQueryValues",),
    "._stats._report": ("ranking_report",),
}
_MODULE_OF = {name: module for module, names in _MODULES.items() for name in names}

__all__ = [
    "AlignedRuns",
    "ComparisonResult",
    "GroupedRanker",
    "MetricAtKDisplay",
    "PerQueryDifferenceDisplay",
    "PerQueryMetricDisplay",
    "PerQueryValues",
    "RankingData",
    "RankingEvaluator",
    "SampledRanks",
    "ScorerSetupError",
    "SuspiciousInputWarning",
    "TieOrderWarning",
    "align_recommendations",
    "align_trec_runs",
    "bpref_score",
    "compare",
    "dcg_score",
    "eleven_point_precision_score",
    "evaluate",
    "expected_reciprocal_rank_score",
    "fallout_at_k_loss",
    "fbeta_at_k_score",
    "group_roc_auc_score",
    "hit_rate_score",
    "idcg_score",
    "interpolated_precision_score",
    "judged_at_k_score",
    "kendall_tau_score",
    "make_lightgbm_metric",
    "make_ranking",
    "make_ranking_scorer",
    "make_ranking_scorers",
    "make_xgboost_metric",
    "mean_average_precision_score",
    "mean_reciprocal_rank_score",
    "ndcg_score",
    "overlap_at_k_score",
    "precision_at_k_score",
    "r_precision_score",
    "rank_biased_overlap",
    "ranking_report",
    "rbp_score",
    "read_letor",
    "read_recommendations",
    "read_table",
    "read_trec",
    "read_trec_qrels",
    "read_trec_run",
    "recall_at_k_score",
    "retrieval_count_score",
    "sampled_metric_estimate",
    "sampled_metric_table",
    "sampled_rank_distribution",
    "sampled_ranks",
]


def __getattr__(name: str) -> Any:
    """A public name, imported from its module on first use (PEP 562).

    The value is then stored in the package's namespace, so later uses are plain
    attribute lookups; a name that is not public is an ``AttributeError`` as usual.
    """
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The loaded names and every public one, loaded or not (for ``dir()`` and completion)."""
    return sorted({*globals(), *__all__})
