"""Tests of sklearn_rank_metrics/_sampled/: sampled metrics and their corrections."""
