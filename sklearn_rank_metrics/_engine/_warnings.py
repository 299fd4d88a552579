"""Warnings attributed to the user's line, however deep in the package they are raised."""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from types import FrameType

# the package's own source folder: warnings point at the first frame outside it
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


class TieOrderWarning(UserWarning):
    """Tied scores were ordered otherwise than the reproduced tool orders them.

    A ``convention=`` whose tool breaks ties by document id (trec_eval, MLlib ...)
    met tied scores in a call that gave no document ids: the tied rows kept their
    input order, so the number may differ from the tool's. Raised only where some
    order of the tied rows changes the metric's value: rows that differ in what the
    metric reads, at ranks it weighs (a tie below the cutoff, or a tie inside the
    top k of P@k, recall or F, never does; without a cutoff they count the whole
    list).
    """


class SuspiciousInputWarning(UserWarning):
    """The inputs look like a common mistake, which would give a wrong number silently.

    Raised where a real input can look the same, with the likely fix: every query
    holding one row (scores or row ids passed as ``group``), query ids that look like
    query sizes repeated on every row (LightGBM's ``group``), labels that look like
    scores beside scores that look like labels (``y_true`` and ``y_score`` swapped).
    Filter it by class once the input is known to be right::

        warnings.filterwarnings("ignore", category=SuspiciousInputWarning)

    What no real input looks like is refused instead (query ids with a fraction,
    group sizes instead of one id per row).
    """


def undefined_metric_warning() -> type[Warning]:
    """scikit-learn's ``UndefinedMetricWarning``, the category of an undefined mean.

    Imported when a warning is raised, not with the metrics: ``sklearn.exceptions``
    imports all of scikit-learn (over a second of CPU), which the metrics themselves
    never need, so the command line, Dask and Spark workers and ``from
    sklearn_rank_metrics import ndcg_score`` start without it.
    """
    from sklearn.exceptions import UndefinedMetricWarning

    return UndefinedMetricWarning


# where warn_at_caller puts its warnings instead of emitting them (recorded_warnings)
_RECORDED: ContextVar[list[tuple[type[Warning], str]] | None] = ContextVar(
    "recorded_warnings", default=None
)


@contextmanager
def recorded_warnings() -> Iterator[list[tuple[type[Warning], str]]]:
    """Record the package's warnings raised inside the block, as ``(category, text)``,
    instead of emitting them.

    For a worker process (Spark's Python workers), whose warnings would reach its own
    stderr only: the texts travel back with the results and are emitted on the
    caller's side. A context variable, not a ``warnings`` filter: no process-global
    state changes, and other threads keep warning as usual.
    """
    recorded: list[tuple[type[Warning], str]] = []
    token = _RECORDED.set(recorded)
    try:
        yield recorded
    finally:
        _RECORDED.reset(token)


def warn_at_caller(message: str, category: type[Warning]) -> None:
    """``warnings.warn`` attributed to the first caller outside this package.

    A metric is reached through different depths of the package (the metric
    function's decorators, :func:`~sklearn_rank_metrics.evaluate`, the scorers, the
    report, the Dask path, the sampled-metric estimators), so a fixed ``stacklevel``
    points at the user's line on one path only; this walks the call stack up to the
    first frame whose file is not in the package (the user's call, or the library
    that called us, e.g. Dask computing a delayed result). The package's one helper
    for warnings: every ``warnings.warn`` of the package goes through it. Inside
    :func:`recorded_warnings` the warning is recorded instead.
    """
    recorded = _RECORDED.get()
    if recorded is not None:
        recorded.append((category, message))
        return
    level = 2  # stacklevel 2 is the caller of this helper
    frame: FrameType | None = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
        level += 1
    warnings.warn(message, category, stacklevel=level)
