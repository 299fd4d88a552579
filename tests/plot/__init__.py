"""Tests of sklearn_rank_metrics/_plot/: the displays."""
