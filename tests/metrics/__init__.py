"""Tests of sklearn_rank_metrics/_metrics/ (and its Dask door): the metric functions, the
registry, its names and presets."""
