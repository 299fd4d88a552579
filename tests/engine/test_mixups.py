"""Arguments in the wrong order, and LightGBM's group sizes for query ids (issue 44, item 5).

``ndcg_score(y_true, y_score, group)`` takes three arrays of one length, so a call
with them in another order gives a number, silently wrong. The engine's input
validation (one place, so every entry point) refuses what no real input looks like
and warns with :class:`SuspiciousInputWarning` where a real input can look the same,
each time with the fix. The right numbers here come from the same call with the
arguments in order, and the data from LightGBM's learning-to-rank sample (its query
file holds the group sizes), ``make_ranking``, TREC-style qrels and runs, and the
cross-checks' data: none of them may raise the warning.
"""

from __future__ import annotations

import re
import warnings
from contextlib import contextmanager

import numpy as np
import pytest
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.linear_model import Ridge

import sklearn_rank_metrics as srm
from sklearn_rank_metrics import SuspiciousInputWarning, evaluate, make_ranking
from tests.support import lambdarank


@contextmanager
def no_warning():
    """Fail on any SuspiciousInputWarning inside the block."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", SuspiciousInputWarning)
        yield


@pytest.fixture(scope="module")
def letor():
    """LightGBM's lambdarank sample: test rows scored by a Ridge fitted on the train rows."""
    X_train, y_train, _, _ = lambdarank.load("train")
    X, y, qid, sizes = lambdarank.load("test")
    scores = Ridge(alpha=1.0).fit(X_train, y_train).predict(X)
    return y, scores, qid, sizes


# ----------------------------------------------------------------- refused


def test_scores_passed_as_group_are_refused_with_the_order(letor):
    y, scores, qid, _ = letor
    message = (
        "group of ndcg_score must hold query ids (integers or strings); got "
        f"{float(scores[0])!r} at row 0, a number with a fraction: were scores (or labels) "
        "passed as group? The order is ndcg_score(y_true, y_score, group)"
    )
    with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
        srm.ndcg_score(y, qid, scores, k=10)  # the issue's ndcg_score(y_true, qid, y_score)
    # the first row with a fraction is named, after whole-numbered ones
    with pytest.raises(ValueError, match=r"got 2\.5 at row 2"):
        srm.ndcg_score([1, 0, 1], [0.3, 0.2, 0.1], [1.0, 2.0, 2.5])


def test_float_query_ids_without_a_fraction_are_ids(letor):
    y, scores, qid, _ = letor
    with no_warning():
        assert srm.ndcg_score(y, scores, qid.astype(float), k=10) == srm.ndcg_score(
            y, scores, qid, k=10
        )


def test_lightgbm_group_sizes_are_refused_with_the_repeat_fix(letor):
    y, scores, qid, sizes = letor
    with pytest.raises(ValueError) as error:
        srm.ndcg_score(y, scores, sizes, k=10)
    message = str(error.value)
    assert message.startswith(
        f"group of ndcg_score must have one id per row ({len(y)}); got {len(sizes)}. "
        f"They sum to {len(y)}, the number of rows: LightGBM's group sizes"
    )
    assert "group=np.repeat(np.arange(len(sizes)), sizes)" in message
    # the fix the message shows gives the number of the query ids
    fixed = np.repeat(np.arange(len(sizes)), sizes)
    assert srm.ndcg_score(y, scores, fixed, k=10) == srm.ndcg_score(y, scores, qid, k=10)


def test_the_issue_group_of_three_sizes():
    y, s = np.tile([2.0, 1, 0, 0, 1, 0, 0, 0, 0, 1], 3), np.linspace(1, 0, 30)
    with pytest.raises(ValueError, match=r"got 3\. They sum to 30, the number of rows") as e:
        srm.ndcg_score(y, s, [10, 10, 10])
    assert "np.repeat(np.arange(len(sizes)), sizes)" in str(e.value)
    with pytest.raises(ValueError, match=r"they must sum to 30 \(they sum to 20\)"):
        srm.ndcg_score(y, s, [10, 10])


# ------------------------------------------------------------------ warned


def test_scores_and_labels_swapped_warn(letor):
    y, scores, qid, _ = letor
    probability = 1 / (1 + np.exp(-scores))  # scores >= 0, as NDCG's labels must be
    right = srm.ndcg_score(y, probability, qid, k=10)
    with pytest.warns(SuspiciousInputWarning) as record:
        swapped = srm.ndcg_score(probability, y, qid, k=10)  # ndcg_score(y_score, y_true, qid)
    assert swapped != pytest.approx(right)  # the silent wrong number the warning is for
    message = str(record[0].message)
    assert message.startswith(
        f"ndcg_score: y_true looks like scores ({len(y)} distinct values with fractions in "
        f"{len(y)} rows) and y_score like labels (whole numbers in [0, 4]): were they swapped?"
    )
    assert "ndcg_score(y_true, y_score, group): the labels first" in message


def test_every_query_of_one_row_warns(letor):
    y, scores, _, _ = letor
    row_ids = np.arange(len(y))
    with pytest.warns(SuspiciousInputWarning, match=(
        rf"^ndcg_score: every one of the {len(y)} queries holds one row, so nothing is "
        r"ranked .*was something else passed as group \(scores, row ids\)\?"
    )):
        srm.ndcg_score(y, scores, row_ids, k=10)
    with no_warning():  # one query of one row: nothing suspicious
        srm.ndcg_score([1.0], [0.5], [0])


def test_sizes_repeated_on_every_row_warn(letor):
    y, scores, qid, sizes = letor
    with pytest.warns(SuspiciousInputWarning, match=(
        r"^ndcg_score: group looks like query sizes repeated on every row, not query ids"
    )) as record:
        merged = srm.ndcg_score(y, scores, np.repeat(sizes, sizes), k=10)
    assert merged != pytest.approx(srm.ndcg_score(y, scores, qid, k=10))
    assert "group=np.repeat(np.arange(len(sizes)), sizes)" in str(record[0].message)
    # genuine ids from 1 do not divide their sizes: no warning
    with no_warning():
        srm.ndcg_score(y, scores, qid + 1, k=10)
        srm.ndcg_score(y, scores, qid + 1000, k=10)


def test_ids_that_divide_their_sizes_by_chance_do_not_warn():
    # ids 1 and 2 with sizes 2 and 4 could be sizes, but two such ids prove nothing
    with no_warning():
        srm.ndcg_score([1, 0, 1, 0, 0, 1], np.linspace(1, 0, 6), [1, 1, 2, 2, 2, 2])
        srm.ndcg_score(np.arange(30) % 3, np.linspace(1, 0, 30), np.full(30, 10))


# ---------------------------------------------------- every entry point


class FirstColumn(RegressorMixin, BaseEstimator):
    """A fitted "model" whose scores are the first column of X."""

    def fit(self, X, y):
        return self

    def predict(self, X):
        return np.asarray(X)[:, 0]


def _entry_points():
    """Every door of flat rows, each as ``call(y_true, y_score, group)``."""
    from sklearn_rank_metrics import dask as srm_dask

    def scorer(y, s, g):
        X = np.asarray(s, dtype=float).reshape(-1, 1)
        return srm.make_ranking_scorer("ndcg@10")(FirstColumn(), X, y, group=g)

    def streaming(y, s, g):
        evaluator = srm.RankingEvaluator(["ndcg@10"])
        evaluator.update(y, s, g)
        return evaluator.compute()

    def dask(y, s, g):
        import dask.dataframe as dd
        import pandas as pd

        frame = pd.DataFrame({"y": y, "s": s, "g": g})
        return srm_dask.evaluate(dd.from_pandas(frame, npartitions=1), ["ndcg@10"],
                                 y_true="y", y_score="s", group="g")

    return {
        "metric function": lambda y, s, g: srm.ndcg_score(y, s, g, k=10),
        "evaluate": lambda y, s, g: evaluate(y, s, g, metrics=["ndcg@10"]),
        "ranking_report": lambda y, s, g: srm.ranking_report(y, s, g, metrics=["ndcg@10"]),
        "compare": lambda y, s, g: srm.compare(y, {"a": s, "b": s[::-1].copy()}, g,
                                               metrics=["ndcg@10"], n_resamples=10),
        "scorer": scorer,
        "streaming": streaming,
        "dask": dask,
    }


@pytest.mark.parametrize("door", list(_entry_points()))
def test_every_entry_point_refuses_and_warns(door, letor):
    call = _entry_points()[door]
    y, scores, qid, sizes = letor
    with pytest.raises(ValueError, match="a number with a fraction: were scores"):
        call(y, qid.astype(float), scores)
    if door != "dask":  # a column of a frame has a row's length
        with pytest.raises(ValueError, match=r"np\.repeat\(np\.arange\(len\(sizes\)\), sizes\)"):
            call(y, scores, sizes)
    with pytest.warns(SuspiciousInputWarning, match="every one of the"):
        call(y, scores, np.arange(len(y)))
    with no_warning():
        call(y, scores, qid)


# -------------------------------------------------------- no false alarm


def test_no_false_alarm_on_the_real_sample(letor):
    y, scores, qid, _ = letor
    with no_warning():
        evaluate(y, scores, qid, metrics=["ndcg@10", "map", "mrr", "p@5", "err@10"])
        evaluate(y, np.round(scores), qid, metrics=["ndcg@10"])  # whole-numbered scores
        evaluate(y / 4, scores, qid, metrics=["ndcg@10"])  # labels with fractions
        X_train, y_train, qid_train, _ = lambdarank.load("train")
        evaluate(y_train, X_train[:, 0], qid_train, metrics=["ndcg@10"])


def test_no_false_alarm_on_make_ranking():
    for seed in range(5):
        X, y, qid = make_ranking(n_queries=50, docs_per_query=(2, 30), random_state=seed)
        with no_warning():
            evaluate(y, X[:, 0], qid, metrics=["ndcg@10", "map"])


def test_no_false_alarm_on_trec_runs():
    from tests.support.qrels_data import dataset

    for name in ("synthetic", "lambdarank", "lambdarank_top10"):
        data = dataset(name)
        for scores in (data.score, data.tied_score):
            with no_warning():
                evaluate(data.y, scores, data.group, metrics=["ndcg@10", "map"],
                         doc_id=data.doc, convention="trec_eval")
                # through the reader too
                evaluate(srm.read_trec(*_qrels_and_run(data, scores)), metrics=["ndcg@10"])


def _qrels_and_run(data, scores):
    qrels, run = {}, {}
    for y, score, query, doc in zip(data.y, scores, data.group, data.doc, strict=True):
        qrels.setdefault(str(query), {})[str(doc)] = int(y)
        if score > -np.inf:
            run.setdefault(str(query), {})[str(doc)] = float(score)
    return qrels, run


def test_a_part_of_the_rows_is_not_judged_alone():
    # 30 queries of 5 rows and 20 of one: no mix-up in memory, nor when the one-row
    # queries arrive alone in a Dask partition or a streaming batch (a part of the
    # rows can look like every query holds one row where the whole does not)
    import dask.dataframe as dd
    import pandas as pd

    from sklearn_rank_metrics import RankingEvaluator
    from sklearn_rank_metrics.dask import evaluate as dask_evaluate

    rng = np.random.default_rng(0)
    group = np.r_[np.repeat(np.arange(30), 5), np.arange(30, 50)]
    y = rng.integers(0, 2, len(group)).astype(float)
    s = rng.random(len(group))
    frame = pd.DataFrame({"y_true": y, "y_score": s, "group": group})
    with warnings.catch_warnings():
        warnings.simplefilter("error", SuspiciousInputWarning)
        expected = srm.evaluate(y, s, group, metrics=["map"])
        parts = dd.concat([dd.from_pandas(frame[frame.group < 30], npartitions=1),
                           dd.from_pandas(frame[frame.group >= 30], npartitions=1)])
        got = dask_evaluate(parts, ["map"])
        evaluator = RankingEvaluator(["map"])
        for batch in (group < 30, group >= 30):
            evaluator.update(y[batch], s[batch], group[batch])
        streamed = evaluator.compute()
    assert got["map"] == pytest.approx(expected["map"], rel=1e-12)
    assert streamed["map"] == pytest.approx(expected["map"], rel=1e-12)
