"""Several models on the same queries: per-query values, resampling, compare, report."""
