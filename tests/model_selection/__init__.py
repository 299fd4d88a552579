"""Tests of sklearn_rank_metrics/_model_selection/: scorers, GroupedRanker, booster metrics."""
