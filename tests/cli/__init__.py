"""Tests of the command line (sklearn_rank_metrics/_cli.py)."""
