"""Tests of sklearn_rank_metrics/_engine/: input checks, sorting, the caller's name."""
