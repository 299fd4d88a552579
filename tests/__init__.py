"""The test suite of sklearn_rank_metrics (a package, so that tests.support imports)."""
