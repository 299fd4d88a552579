"""recorded_warnings: the package's warnings kept for a worker to send back, with no
process-global warnings filter touched."""

from __future__ import annotations

import threading
import warnings

import pytest
from sklearn.exceptions import UndefinedMetricWarning

from sklearn_rank_metrics._engine._warnings import recorded_warnings, warn_at_caller


def test_warnings_inside_the_block_are_recorded_not_emitted():
    filters_before = list(warnings.filters)
    with warnings.catch_warnings(record=True) as emitted:
        warnings.simplefilter("always")
        with recorded_warnings() as recorded:
            warn_at_caller("query 3 is undefined", UndefinedMetricWarning)
            warn_at_caller("query 3 is undefined", UndefinedMetricWarning)  # each kept
        warn_at_caller("after the block", UserWarning)
    assert recorded == [(UndefinedMetricWarning, "query 3 is undefined")] * 2
    assert [str(warning.message) for warning in emitted] == ["after the block"]
    assert warnings.filters == filters_before


def test_another_thread_keeps_warning_while_one_records():
    started, release = threading.Event(), threading.Event()
    recorded: list = []

    def worker() -> None:
        with recorded_warnings() as inside:
            started.set()
            release.wait(5)
            warn_at_caller("in the worker", UserWarning)
        recorded.extend(inside)

    thread = threading.Thread(target=worker)
    thread.start()
    started.wait(5)
    with pytest.warns(UserWarning, match="in the main thread"):
        warn_at_caller("in the main thread", UserWarning)
    release.set()
    thread.join(5)
    assert recorded == [(UserWarning, "in the worker")]
