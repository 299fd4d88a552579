"""The package version: the one place it is written.

``pyproject.toml`` reads it for the distribution's metadata, ``__init__`` re-exports
it as ``sklearn_rank_metrics.__version__`` and ``rank-metrics --version`` prints it.
"""

__version__ = "0.1.0.dev0"
