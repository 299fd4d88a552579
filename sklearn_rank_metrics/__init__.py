"""Ranking metrics over query groups that behave like scikit-learn's own metrics.

Every metric takes flat ``(y_true, y_score, group)`` arrays (or scikit-learn's 2-D
form), sorts the rows once by (query, score descending) and computes one value per
query with vectorised NumPy; the functions return the mean over queries.
"""

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
from ._model_selection._scorer import make_ranking_scorer, make_ranking_scorers
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
from ._version import __version__ as __version__

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
    "make_lightgbm_metric",
    "make_ranking",
    "make_ranking_scorer",
    "make_ranking_scorers",
    "make_xgboost_metric",
    "mean_average_precision_score",
    "mean_reciprocal_rank_score",
    "ndcg_score",
    "precision_at_k_score",
    "r_precision_score",
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

