"""Scorers for model selection and the GroupedRanker estimator."""
