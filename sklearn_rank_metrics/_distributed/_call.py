"""The door's side of a distributed call: its arguments, checked before any task runs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._metrics._evaluate import metric_names, metric_settings
from .._metrics._registry import parse_metric
from .._metrics._settings import Settings


def checked_metric_names(metrics: Any) -> list[str]:
    """The metric names, each parsed here so that a bad name fails before any task runs."""
    names = metric_names(metrics)
    for name in names:
        parse_metric(name)
    return names


def needs_row_order(names: Sequence[str], shared: Settings) -> bool:
    """Whether some metric orders tied rows by input order (``ties="input"``)."""
    return any(
        metric_settings(parse_metric(name), shared)[0].get("ties") == "input" for name in names
    )
