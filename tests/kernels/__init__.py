"""Tests of sklearn_rank_metrics/_kernels/: the per-query arithmetic."""
