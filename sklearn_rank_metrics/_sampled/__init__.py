"""Metrics from sampled negatives: sampled ranks, the rank model, estimators."""
