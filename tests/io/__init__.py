"""Tests of sklearn_rank_metrics/_io/: the readers, aligned runs, make_ranking."""
