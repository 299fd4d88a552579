"""Tests of sklearn_rank_metrics/_stats/: compare, the comparison table, ranking_report."""
