"""Tests of the polars-only environment (no pandas, no pyarrow): see ``run``."""
