"""Settings that would give a plausible but meaningless number warn (issue 31, item 8).

ERR's default 0-4 grade scale on binary labels, and a mean over queries none of
which is defined (``relevance_level`` above every label), are numbers a user cannot
tell from a measurement. Both warn with ``UndefinedMetricWarning`` (filterable),
from every entry point, pointing at the user's line; a legitimate call never warns.
Expected values are hand computations written here.
"""

import math
import warnings

import numpy as np
import pytest
from sklearn.exceptions import UndefinedMetricWarning

import sklearn_rank_metrics as srm
from sklearn_rank_metrics._metrics._registry import parse_metric

# two queries, binary labels, each ranked perfectly (its one relevant row first)
Y_BINARY = np.array([1.0, 0.0, 0.0, 1.0, 0.0])
Y_SCORE = np.array([0.9, 0.5, 0.1, 0.8, 0.2])
GROUP = np.array([1, 1, 1, 2, 2])


def _no_warning(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning fails the test
        return function(*args, **kwargs)


# --------------------------------------------------------------------- ERR scale


def test_err_default_scale_on_binary_labels_warns_in_the_function():
    with pytest.warns(UndefinedMetricWarning, match=r"max_grade=1") as record:
        value = srm.expected_reciprocal_rank_score(Y_BINARY, Y_SCORE, GROUP, k=10)
    # the value is still the documented 0-4 scale: R(1) = (2 - 1) / 16 at rank 1
    assert value == pytest.approx(1 / 16, rel=1e-15)
    assert "max_grade was not given" in str(record[0].message)
    assert record[0].filename == __file__  # points at the user's call


def test_err_default_scale_on_binary_labels_warns_in_evaluate_and_scorers():
    with pytest.warns(UndefinedMetricWarning, match=r"max_grade=1") as record:
        means = srm.evaluate(Y_BINARY, Y_SCORE, GROUP, metrics=["err@10"])
    assert means["err@10"] == pytest.approx(1 / 16, rel=1e-15)
    assert record[0].filename == __file__
    with pytest.warns(UndefinedMetricWarning, match=r"max_grade=1"):
        srm.evaluate(Y_BINARY, Y_SCORE, GROUP, metrics=["ERR@10"])  # ir_measures' name
    with pytest.warns(UndefinedMetricWarning, match=r"max_grade=1"):
        srm.evaluate(Y_BINARY, Y_SCORE, GROUP, metrics=["err@10"], per_query=True)

    class Scores:  # an estimator whose predictions are Y_SCORE
        def predict(self, X):
            return Y_SCORE

        def __sklearn_tags__(self):
            from sklearn.utils import Tags, TargetTags

            return Tags(estimator_type="regressor", target_tags=TargetTags(required=True))

    scorer = srm.make_ranking_scorer("err@10", group=GROUP)
    with pytest.warns(UndefinedMetricWarning, match=r"max_grade=1"):
        value = scorer(Scores(), np.zeros((len(Y_BINARY), 1)), Y_BINARY)
    assert value == pytest.approx(1 / 16, rel=1e-15)
    quiet = srm.make_ranking_scorer("err(max_grade=1)@10", group=GROUP)
    assert _no_warning(quiet, Scores(), np.zeros((len(Y_BINARY), 1)), Y_BINARY) == 0.5


def test_err_binary_labels_with_a_declared_scale_do_not_warn():
    # max_grade=1: R(1) = 1/2, each query's relevant row at rank 1 scores 1/2
    value = _no_warning(
        srm.expected_reciprocal_rank_score, Y_BINARY, Y_SCORE, GROUP, k=10, max_grade=1
    )
    assert value == pytest.approx(0.5, rel=1e-15)
    # an explicit max_grade=4: a 0-4 collection whose sample holds only grades 0, 1
    value = _no_warning(
        srm.expected_reciprocal_rank_score, Y_BINARY, Y_SCORE, GROUP, k=10, max_grade=4
    )
    assert value == pytest.approx(1 / 16, rel=1e-15)
    means = _no_warning(
        srm.evaluate, Y_BINARY, Y_SCORE, GROUP, metrics=["err(max_grade=1)@10", "err(max_grade=4)"]
    )
    assert means == pytest.approx({"err(max_grade=1)@10": 0.5, "err(max_grade=4)": 1 / 16})


def test_err_default_scale_on_graded_labels_does_not_warn():
    # a legitimate 0-4 call: labels 0..2 present (no 3 or 4 in this sample)
    y_true = np.array([2.0, 1.0, 0.0, 0.0, 1.0])
    value = _no_warning(srm.expected_reciprocal_rank_score, y_true, Y_SCORE, GROUP)
    # query 1: R = 3/16, 1/16 at ranks 1, 2; query 2 (labels 1 at rank 2, 0 at rank 1 ... ):
    # scores 0.8 (label 0), 0.2 (label 1): 1/16 at rank 2
    q1 = 3 / 16 + (1 - 3 / 16) * (1 / 16) / 2
    q2 = (1 / 16) / 2
    assert value == pytest.approx((q1 + q2) / 2, rel=1e-15)
    _no_warning(srm.evaluate, y_true, Y_SCORE, GROUP, metrics=["err@10"])


def test_err_canonical_text_shows_a_declared_scale():
    assert str(parse_metric("err@10")) == "err@10"
    assert parse_metric("err@10").kernel_params["max_grade"] is None
    assert str(parse_metric("err(max_grade=4)@10")) == "err(max_grade=4)@10"
    assert str(parse_metric("err(max_grade=1)@10")) == "err(max_grade=1)@10"


def test_err_warning_does_not_set_the_scale_from_the_data():
    # one query graded 0-3 in the call does not change the binary query's value
    y_true = np.array([1.0, 0.0, 3.0, 0.0])
    y_score = np.array([0.9, 0.1, 0.9, 0.1])
    group = np.array([1, 1, 2, 2])
    table = _no_warning(srm.evaluate, y_true, y_score, group, metrics=["err"], per_query=True)
    assert np.asarray(table["err"]) == pytest.approx([1 / 16, 7 / 16], rel=1e-15)


# ------------------------------------------------- a mean over no defined query


def test_relevance_level_above_every_label_warns_in_the_function():
    with pytest.warns(UndefinedMetricWarning, match=r"relevance_level") as record:
        value = srm.mean_average_precision_score(Y_BINARY, Y_SCORE, GROUP, relevance_level=2)
    assert value == 0.0  # the default policy's value, now with a warning
    message = str(record[0].message)
    assert "every one of the 2 queries" in message and "replace_undefined_by" in message
    assert record[0].filename == __file__


@pytest.mark.parametrize("metric", ["map", "ndcg@10", "p@3", "mrr", "recall@2", "hit_rate@1"])
def test_relevance_level_above_every_label_warns_in_evaluate(metric):
    y_true = np.array([1.0, 0.0, 0.0, 0.0, 0.0])  # only query 1 has a relevant row
    with pytest.warns(UndefinedMetricWarning, match=r"relevance_level.*replace_undefined_by"):
        means = srm.evaluate(y_true * 0, Y_SCORE, GROUP, metrics=[metric])
    assert means[metric] == 0.0
    if metric != "ndcg@10":
        with pytest.warns(UndefinedMetricWarning, match=r"undefined for every one"):
            srm.evaluate(y_true, Y_SCORE, GROUP, metrics=[metric], relevance_level=2)
    _no_warning(srm.evaluate, y_true, Y_SCORE, GROUP, metrics=[metric])  # one query defined


def test_policy_one_over_no_defined_query_warns_too():
    with pytest.warns(UndefinedMetricWarning, match=r"mean 1 is only the value"):
        value = srm.mean_reciprocal_rank_score(
            Y_BINARY, Y_SCORE, GROUP, relevance_level=2, replace_undefined_by=1.0
        )
    assert value == 1.0


def test_explicit_policies_over_no_defined_query():
    # nan is already a visible answer: no warning
    value = _no_warning(
        srm.mean_average_precision_score,
        Y_BINARY,
        Y_SCORE,
        GROUP,
        relevance_level=2,
        replace_undefined_by=math.nan,
    )
    assert math.isnan(value)
    with pytest.raises(ValueError, match="is undefined for query"):
        srm.mean_average_precision_score(
            Y_BINARY, Y_SCORE, GROUP, relevance_level=2, replace_undefined_by="raise"
        )
    with pytest.warns(UndefinedMetricWarning, match="no query is left to average.*relevance_level"):
        value = srm.mean_average_precision_score(
            Y_BINARY, Y_SCORE, GROUP, relevance_level=2, replace_undefined_by="skip"
        )
    assert math.isnan(value)


def test_some_defined_query_or_always_defined_metric_does_not_warn():
    # query 2 has no relevant row, query 1 has one: a mean over one defined query
    y_true = np.array([1.0, 0.0, 0.0, 0.0, 0.0])
    assert _no_warning(srm.mean_average_precision_score, y_true, Y_SCORE, GROUP) == 0.5
    # the counts and Judged@k are defined for every query
    zeros = np.zeros(5)
    _no_warning(srm.evaluate, zeros, Y_SCORE, GROUP, metrics=["num_rel", "judged@2"], judged=True)


def test_err_with_no_positive_label_names_the_undefined_mean():
    # every label 0: ERR is undefined everywhere (not the binary-scale warning)
    with pytest.warns(UndefinedMetricWarning, match=r"no row with a label > 0") as record:
        value = srm.expected_reciprocal_rank_score(np.zeros(5), Y_SCORE, GROUP, max_grade=1)
    assert value == 0.0 and len(record) == 1


def test_booster_err_decides_its_scale_once_not_per_query():
    # XGBoost's scikit-learn wrapper calls the metric one query at a time: a query of
    # a 0-4 collection with only grades 0 and 1 must not warn as if the data were binary
    xgboost = pytest.importorskip("xgboost")
    X, y, qid = srm.make_ranking(
        n_queries=60, docs_per_query=(5, 30), n_features=8, random_state=0
    )
    per_query_max = [y[qid == q].max() for q in np.unique(qid)]
    assert max(per_query_max) == 4 and min(per_query_max) <= 1  # such queries exist
    with pytest.warns(UndefinedMetricWarning, match=r"err\(max_grade=1\)@10") as record:
        metric = srm.make_xgboost_metric("err@10")
    assert len(record) == 1 and record[0].filename == __file__
    model = xgboost.XGBRanker(n_estimators=3, eval_metric=metric, n_jobs=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.fit(X, y, qid=qid, eval_set=[(X, y)], eval_qid=[qid], verbose=False)
    # R(g) = (2^g - 1) / 16 on the 0-4 scale: the recorded values are within ERR's range
    history = model.evals_result()["validation_0"]["prefer_max(err@10)"]
    assert len(history) == 3 and all(0.0 < value <= 1.0 for value in history)
    _no_warning(srm.make_lightgbm_metric, "err(max_grade=4)@10")


def test_streaming_compare_and_displays_warn_when_no_query_is_defined():
    # relevance_level 2 above every binary label: no query has a relevant row
    settings = {"metrics": ["map"], "relevance_level": 2}
    evaluator = srm.RankingEvaluator(**settings)
    evaluator.update(Y_BINARY, Y_SCORE, GROUP)
    with pytest.warns(UndefinedMetricWarning, match=r"RankingEvaluator \(map\).*relevance_level"):
        assert evaluator.compute() == {"map": 0.0}
    with pytest.warns(UndefinedMetricWarning, match=r"compare \(map\) is undefined"):
        srm.compare(Y_BINARY, {"a": Y_SCORE, "b": -Y_SCORE}, GROUP, n_resamples=10,
                    random_state=0, **settings)  # fmt: skip
    # a defined query: no warning, and the evaluator's mean is the hand value
    defined = srm.RankingEvaluator(metrics=["map"])
    defined.update(Y_BINARY, Y_SCORE, GROUP)
    expected = srm.evaluate(Y_BINARY, Y_SCORE, GROUP, metrics=["map"])
    assert _no_warning(defined.compute) == expected
