"""The package's warnings: every one goes through warn_at_caller, which points at the
user's line (also through Dask); recorded_warnings keeps them for a worker to send
back, with no process-global warnings filter touched; public calls on several threads
at once leave the warnings filters and NumPy's error state as they found them."""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest
from sklearn.exceptions import UndefinedMetricWarning

import sklearn_rank_metrics
from sklearn_rank_metrics import compare, ranking_report
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


def test_no_process_wide_state_changes_from_concurrent_calls():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 3, 400).astype(float)
    g = np.repeat(np.arange(40), 10)
    scores = {"a": rng.random(400), "b": rng.random(400), "same": np.zeros(400)}
    filters_before, errors_before = list(warnings.filters), np.geterr()
    failures = []

    def work():
        try:
            compare(y, scores, g, metrics=["ndcg@5", "map"], n_resamples=200, random_state=0)
            ranking_report(y, scores, g, baseline="same", n_resamples=200, random_state=0)
        except Exception as error:  # pragma: no cover - reported below
            failures.append(error)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures
    assert list(warnings.filters) == filters_before
    assert np.geterr() == errors_before


def test_the_dask_warning_points_at_the_callers_line():
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    from sklearn_rank_metrics.dask import evaluate as evaluate_dask

    frame = pd.DataFrame({"label": [0.0] * 4, "score": [1.0, 2, 3, 4], "qid": [1, 1, 2, 2]})
    ddf = dd.from_pandas(frame, npartitions=2, sort=False)
    with pytest.warns(UserWarning, match="no query is left") as record:
        evaluate_dask(
            ddf, ["map"], y_true="label", y_score="score", group="qid",
            replace_undefined_by="skip",
        )
    assert [warning.filename for warning in record] == [__file__]


def test_every_warning_of_the_package_goes_through_warn_at_caller():
    # a fixed stacklevel points at the user's line on one call path only
    from pathlib import Path

    package = Path(sklearn_rank_metrics.__file__).parent
    helper = package / "_engine" / "_warnings.py"
    fixed = [
        f"{path.relative_to(package)}:{number}"
        for path in sorted(package.rglob("*.py"))
        if path != helper
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "warnings.warn(" in line or "stacklevel=" in line
    ]
    assert fixed == []
