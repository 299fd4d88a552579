"""Ranking metrics over query groups that behave like scikit-learn's own metrics.

Every metric takes flat ``(y_true, y_score, group)`` arrays (or scikit-learn's 2-D
form), sorts the rows once by (query, score descending) and computes one value per
query with vectorised NumPy; the functions return the mean over queries.
"""

from ._auc import group_roc_auc_score
from ._binary_metrics import (
    fbeta_at_k_score,
    hit_rate_score,
    mean_average_precision_score,
    mean_reciprocal_rank_score,
    precision_at_k_score,
    recall_at_k_score,
)
from ._datasets import make_ranking
from ._evaluate import evaluate
from ._gain_metrics import dcg_score, expected_reciprocal_rank_score, ndcg_score
from ._ranker import GroupedRanker
from ._report import ranking_report
from ._scorer import make_ranking_scorer, make_ranking_scorers

__all__ = [
    "GroupedRanker",
    "dcg_score",
    "evaluate",
    "expected_reciprocal_rank_score",
    "fbeta_at_k_score",
    "group_roc_auc_score",
    "hit_rate_score",
    "make_ranking",
    "make_ranking_scorer",
    "make_ranking_scorers",
    "mean_average_precision_score",
    "mean_reciprocal_rank_score",
    "ndcg_score",
    "precision_at_k_score",
    "ranking_report",
    "recall_at_k_score",
]

__version__ = "0.1.0.dev0"
