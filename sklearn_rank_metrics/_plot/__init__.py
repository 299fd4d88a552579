"""Displays, as scikit-learn's metrics/_plot: one display per module."""
