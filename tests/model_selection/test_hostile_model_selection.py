"""Hostile input for the model-selection tools (issue 32, round 3).

Booster metrics, GroupedRanker's eval sets, RankingEvaluator and scorers: every bad
input gets a ValueError/TypeError naming the argument, nothing is silently dropped
or guessed. Expected values are hand computations written out here.
"""

import pickle
import threading

import numpy as np
import pytest
from sklearn.base import BaseEstimator

from sklearn_rank_metrics import (
    GroupedRanker,
    RankingEvaluator,
    evaluate,
    make_lightgbm_metric,
    make_ranking_scorer,
    make_ranking_scorers,
    make_xgboost_metric,
    ndcg_score,
)

# ---------------------------------------------------------------------------
# Booster metrics
# ---------------------------------------------------------------------------

Y4 = np.array([0.0, 1.0, 1.0, 0.0])
SCORE4 = np.array([0.9, 0.8, 0.7, 0.1])
# MRR by hand: query 1 (rows 0-1) has its relevant row at rank 2 -> 1/2;
# query 2 (rows 2-3) at rank 1 -> 1


@pytest.mark.parametrize("n_weights", [0, 3, 5, 2])
def test_lightgbm_metric_refuses_row_weights_of_another_length(n_weights):
    metric = make_lightgbm_metric("mrr@10")
    weight = np.arange(1.0, n_weights + 1)
    if n_weights == 0:  # LightGBM's "no weights"
        assert metric(Y4, SCORE4, weight, np.array([2, 2]))[1] == pytest.approx(0.75)
        return
    # 2 is the number of queries: LightGBM holds one weight per row, never per query
    with pytest.raises(ValueError, match=f"weights hold {n_weights} values but the dataset "
                       "has 4 rows in 2 queries; give one weight per row"):
        metric(Y4, SCORE4, weight, np.array([2, 2]))


def test_lightgbm_metric_row_weights_with_an_empty_last_query():
    # row weights 1, 1 | 3, 3 | (none): query weights 1 and 3, the empty query has
    # no row; (1 * 1/2 + 3 * 1) / (1 + 3) = 0.875
    metric = make_lightgbm_metric("mrr@10")
    weight = np.array([1.0, 1.0, 3.0, 3.0])
    for sizes in ([2, 2, 0], [2, 0, 2], [0, 2, 2]):
        name, value, greater = metric(Y4, SCORE4, weight, np.array(sizes))
        assert value == pytest.approx(0.875, rel=1e-15), sizes
    # the mean of a query's row weights: (1 + 3) / 2 = 2 and 2 -> the plain mean
    value = metric(Y4, SCORE4, np.array([1.0, 3.0, 3.0, 1.0]), np.array([2, 2, 0]))[1]
    assert value == pytest.approx(0.75, rel=1e-15)


def test_xgboost_metric_takes_one_weight_per_query_group():
    xgboost = pytest.importorskip("xgboost")
    metric = make_xgboost_metric("mrr@10")
    dmatrix = xgboost.DMatrix(
        np.zeros((4, 1)), label=Y4, qid=np.array([0, 0, 1, 1]), weight=np.array([1.0, 3.0])
    )
    # (1 * 1/2 + 3 * 1) / 4
    assert metric(SCORE4, dmatrix)[1] == pytest.approx(0.875, rel=1e-15)


class _FakeDMatrix:
    """What XGBoostMetric reads of a DMatrix, with weights of any length."""

    def __init__(self, weight):
        self.weight = weight

    def get_uint_info(self, field):
        return np.array([0, 2, 4], dtype=np.uint32)

    def get_label(self):
        return Y4

    def get_weight(self):
        return self.weight


def test_xgboost_metric_refuses_weights_that_are_not_per_query():
    metric = make_xgboost_metric("mrr@10")
    with pytest.raises(ValueError, match="weights hold 4 values.*one weight per query"):
        metric(SCORE4, _FakeDMatrix(np.ones(4)))
    assert metric(SCORE4, _FakeDMatrix(np.array([], np.float32)))[1] == pytest.approx(0.75)


@pytest.mark.parametrize("factory", [make_lightgbm_metric, make_xgboost_metric])
def test_booster_metric_name_is_checked(factory):
    owner = factory.__name__
    for bad in (3, b"ndcg", ["ndcg"]):
        with pytest.raises(TypeError, match=f"'name' parameter of {owner} must be a str"):
            factory("ndcg@10", name=bad)
    # a NUL ends a C string, a zero-width space or a DEL hides in the log
    for bad, shown in (("a\x00b", r"'\\x00'"), ("a\u200bb", r"'\\u200b'"),
                       ("a\x7fb", r"'\\x7f'"), ("a\tb", r"'\\t'"), ("a b", "' '"),
                       ("a:b", "':'"), ("", "it is empty")):  # fmt: skip
        with pytest.raises(ValueError, match=f"'name' parameter of {owner}.*{shown}"):
            factory("ndcg@10", name=bad)
    assert factory("ndcg@10", name="ndcg_10(ours)").name == "prefer_max(ndcg_10(ours))"
    assert factory("ndcg@10", name="nDCG-é").name == "prefer_max(nDCG-é)"


# ---------------------------------------------------------------------------
# GroupedRanker's eval sets
# ---------------------------------------------------------------------------


class _RecordingRanker(BaseEstimator):
    """A ranker that takes group sizes and keeps what fit received."""

    def fit(self, X, y, group=None, eval_set=None, eval_group=None):
        self.y_, self.eval_set_, self.eval_group_ = y, eval_set, eval_group
        self.n_features_in_ = np.asarray(X).shape[1]
        return self

    def predict(self, X):
        return np.asarray(X)[:, 0]


X4 = np.array([[1.0], [2.0], [3.0], [4.0]])
QID4 = np.array([7, 7, 8, 8])


@pytest.mark.parametrize("n_labels", [3, 5])
def test_grouped_ranker_refuses_eval_labels_of_another_length(n_labels):
    # 5 labels for 4 rows were cut to 4, 3 labels raised a bare IndexError
    y_eval = np.arange(n_labels) % 2
    with pytest.raises(ValueError, match=rf"eval set 1\): eval_set\[1\]'s X has 4 rows but "
                       rf"eval_set\[1\]'s y has {n_labels} labels"):  # fmt: skip
        GroupedRanker(_RecordingRanker()).fit(
            X4, Y4, QID4, eval_set=[(X4, Y4), (X4, y_eval)], eval_group=[QID4, QID4]
        )
    with pytest.raises(ValueError, match=f"X has 4 rows but y has {n_labels} labels"):
        GroupedRanker(_RecordingRanker()).fit(X4, y_eval, QID4)


def test_grouped_ranker_eval_labels_of_another_length_with_lightgbm():
    lightgbm = pytest.importorskip("lightgbm")
    ranker = GroupedRanker(lightgbm.LGBMRanker(n_estimators=2, verbose=-1))
    with pytest.raises(ValueError, match=r"eval_set\[0\]'s y has 5 labels"):
        ranker.fit(X4, Y4, QID4, eval_set=[(X4, np.array([0, 1, 1, 0, 1]))], eval_group=[QID4])


def test_grouped_ranker_eval_group_must_agree_with_the_group_column():
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame({"qid": QID4, "f": X4[:, 0]})
    ranker = GroupedRanker(_RecordingRanker(), group_column="qid")
    # the training rows refuse the conflict ...
    with pytest.raises(ValueError, match=r"group= and column 'qid' of X, and they differ in "
                       r"1 of 4 rows \(first: row 1, 8 and 7\)"):  # fmt: skip
        ranker.fit(frame, Y4, [7, 8, 8, 8])
    # ... and so does an eval set, whose eval_group used to win silently
    conflict = (
        r"\(eval set 0\) got eval_group\[0\] and column 'qid' of X, and they differ in "
        r"4 of 4 rows \(first: row 0, 8 and 7\)"
    )
    with pytest.raises(ValueError, match=conflict):
        ranker.fit(frame, Y4, eval_set=[(frame, Y4)], eval_group=[[8, 8, 7, 7]])
    with pytest.raises(ValueError, match=r"eval_group\[0\] with 3 query ids and column 'qid' "
                       "of X with 4"):  # fmt: skip
        ranker.fit(frame, Y4, eval_set=[(frame, Y4)], eval_group=[[7, 7, 8]])
    with pytest.raises(ValueError, match=r"first: row 0, '7' and 7"):
        ranker.fit(frame, Y4, eval_set=[(frame, Y4)], eval_group=[["7", "7", "8", "8"]])
    # agreeing ids are taken: rows sorted by query, sizes 2 and 2
    model = ranker.fit(frame, Y4, eval_set=[(frame, Y4[::-1])], eval_group=[QID4])
    np.testing.assert_array_equal(model.ranker_.eval_group_[0], [2, 2])
    np.testing.assert_array_equal(model.ranker_.eval_set_[0][1], Y4[::-1])


# ---------------------------------------------------------------------------
# RankingEvaluator
# ---------------------------------------------------------------------------


def test_evaluator_refuses_query_ids_of_another_kind_in_a_later_batch():
    evaluator = RankingEvaluator(metrics=["mrr"])
    evaluator.update([1, 0], [0.9, 0.1], group=[1, 1])
    # one evaluate call refuses ints mixed with strings; two batches kept "1" and 1
    # as two queries (and compute turned both into the text "1")
    mixed = (
        r"group holds query id '1' \(str\), which cannot be compared with the query ids "
        r"of earlier batches, such as 1 \(int\)"
    )
    with pytest.raises(TypeError, match=mixed):
        evaluator.update([0, 1], [0.9, 0.1], group=["1", "1"])
    with pytest.raises(TypeError, match="cannot be compared"):
        evaluate([1, 0, 0, 1], [0.9, 0.1, 0.9, 0.1], np.array([1, 1, "1", "1"], dtype=object),
                 metrics=["mrr"])  # fmt: skip
    assert evaluator.n_queries_ == 1
    assert evaluator.compute() == {"mrr": 1.0}
    # comparable kinds are one kind: 2.0 after 1 is another query, 1.0 the same
    evaluator.update([0, 1], [0.9, 0.1], group=[2.0, 2.0])
    with pytest.raises(ValueError, match="query 1.0 was already evaluated"):
        evaluator.update([0, 1], [0.9, 0.1], group=[1.0, 1.0])
    assert evaluator.compute() == {"mrr": pytest.approx((1 + 0.5) / 2, rel=1e-15)}
    # merge: the same rule
    other = RankingEvaluator(metrics=["mrr"])
    other.update([1, 0], [0.9, 0.1], group=[b"q", b"q"])
    with pytest.raises(TypeError, match=r"RankingEvaluator.merge: group holds query id b'q'"):
        evaluator.merge(other)


def test_evaluator_accepts_one_of_two_concurrent_batches_of_one_query():
    # Both threads check that query 5 is new before either records it: each reads
    # the set, then waits inside the membership test until the other has read it
    # too (or 1 s passes, when the check and the record are atomic and the other
    # thread waits outside them).
    barrier = threading.Barrier(2)

    class MeetingSet(set):
        def __contains__(self, item):
            found = super().__contains__(item)
            try:
                barrier.wait(timeout=1.0)
            except threading.BrokenBarrierError:
                pass
            return found

    evaluator = RankingEvaluator(metrics=["mrr"])
    evaluator._seen = MeetingSet()
    outcomes = []

    def update(labels):
        try:
            evaluator.update(labels, [0.9, 0.1], group=[5, 5])
            outcomes.append("accepted")
        except ValueError as error:
            assert "query 5 was already evaluated" in str(error)
            outcomes.append("refused")

    threads = [threading.Thread(target=update, args=(labels,)) for labels in ([1, 0], [0, 1])]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["accepted", "refused"]
    assert evaluator.n_queries_ == 1
    assert len(evaluator.compute(per_query=True)["query"]) == 1


def test_evaluator_pickles_and_merges_after_a_round_trip():
    evaluator = RankingEvaluator(metrics=["mrr"])
    evaluator.update([0, 1], [0.9, 0.1], group=[1, 1])
    copy = pickle.loads(pickle.dumps(evaluator))  # the lock is not pickled
    copy.update([1, 0], [0.9, 0.1], group=[2, 2])
    with pytest.raises(ValueError, match="merge: query 1 was already evaluated"):
        evaluator.merge(copy)
    # MRR by hand: query 1 -> 1/2, query 2 -> 1
    merged = RankingEvaluator(metrics=["mrr"]).merge(copy)
    assert merged.compute() == {"mrr": pytest.approx(0.75, rel=1e-15)}


def test_evaluator_checks_metric_names_at_construction():
    with pytest.raises(ValueError, match="Unknown metric 'nonsense@3' for RankingEvaluator"):
        RankingEvaluator(metrics=["mrr", "nonsense@3"])
    with pytest.raises(ValueError, match="'gain' parameter"):
        RankingEvaluator(metrics=["ndcg(gain=cubic)@10"])


def test_evaluator_compute_per_query_takes_what_evaluate_takes():
    evaluator = RankingEvaluator(metrics=["mrr"])
    evaluator.update([1, 0, 0], [0.9, 0.8, 0.1], group=[1, 1, 1])
    evaluator.update([0, 1, 0, 1], [0.9, 0.8, 0.7, 0.1], group=[2, 2, 3, 3])
    for bad in ("yes", "TREC_EVAL", 1, [True], None):
        with pytest.raises((TypeError, ValueError), match="'per_query' parameter of "
                           "RankingEvaluator.compute must be a bool or a str among"):  # fmt: skip
            evaluator.compute(per_query=bad)
    # trec_eval -q's layout: "%-22s\t%s\t%6.4f"; MRR by hand: 1, 1/2, 1/2, mean 2/3
    name = "mrr".ljust(22)
    assert evaluator.compute(per_query="trec_eval") == (
        f"{name}\t1\t1.0000\n{name}\t2\t0.5000\n{name}\t3\t0.5000\n"
        f"{'num_q'.ljust(22)}\tall\t3\n{name}\tall\t0.6667\n"
    )
    table = evaluator.compute(per_query=np.True_)
    np.testing.assert_array_equal(np.asarray(table["mrr"]), [1.0, 0.5, 0.5])
    assert evaluator.compute(per_query=np.False_) == {"mrr": pytest.approx(2 / 3, rel=1e-15)}


# ---------------------------------------------------------------------------
# Scorers
# ---------------------------------------------------------------------------


def test_scorer_checks_convention_when_made():
    # it was accepted, and the first score raised inside a search
    shape = "The 'convention' parameter of ndcg_score must be a str among"
    with pytest.raises(ValueError, match=shape):
        make_ranking_scorer("ndcg@10", convention="trec-eval")
    with pytest.raises(ValueError, match=shape):
        make_ranking_scorer(ndcg_score, convention="bogus")
    with pytest.raises(TypeError, match=shape):
        make_ranking_scorer("ndcg@10", convention=3)
    with pytest.raises(ValueError, match="'convention' parameter of mean_average_precision"):
        make_ranking_scorers(["map", "ndcg@10"], convention="bogus")
    # a user's function keeps its own parameters
    def custom(y_true, y_score, group, sample_weight=None, **kwargs):
        return 0.0

    assert make_ranking_scorer(custom, convention="mine").metric_params == {"convention": "mine"}
    # a good one scores as the metric function does (hand value: the relevant row
    # ranks second, NDCG = (1 / log2(3)) / 1)
    scorer = make_ranking_scorer("ndcg@10", convention="trec_eval", group=[1, 1])
    model = _RecordingRanker().fit(np.array([[0.9], [0.1]]), [0, 1])
    assert scorer(model, np.array([[0.9], [0.1]]), np.array([0, 1])) == pytest.approx(
        1 / np.log2(3), rel=1e-15
    )


class _WeightedRecordingRanker(_RecordingRanker):
    def fit(self, X, y, group=None, eval_set=None, eval_group=None, eval_sample_weight=None):
        self.eval_sample_weight_ = eval_sample_weight
        return super().fit(X, y, group, eval_set=eval_set, eval_group=eval_group)


def test_grouped_ranker_refuses_per_eval_set_arrays_of_another_length():
    ranker = GroupedRanker(_WeightedRecordingRanker())
    fit = dict(eval_set=[(X4, Y4)], eval_group=[np.array([8, 7, 8, 7])])
    # 3 weights for 4 rows in 2 queries were passed on unsorted
    with pytest.raises(ValueError, match=r"eval_sample_weight\[0\] has 3 values but eval "
                       "set 0 has 4 rows in 2 queries"):  # fmt: skip
        ranker.fit(X4, Y4, QID4, eval_sample_weight=[np.ones(3)], **fit)
    # one entry per eval set (zip's own message before)
    with pytest.raises(ValueError, match="1 eval sets but 2 entries in eval_sample_weight"):
        ranker.fit(X4, Y4, QID4, eval_sample_weight=[np.ones(4), np.ones(4)], **fit)
    with pytest.raises(TypeError, match="'eval_sample_weight' parameter.*list"):
        ranker.fit(X4, Y4, QID4, eval_sample_weight=3.0, **fit)
    # per row: sorted with the rows (queries 7 then 8, rows 1, 3, 0, 2)
    model = ranker.fit(X4, Y4, QID4, eval_sample_weight=[np.array([1.0, 2, 3, 4])], **fit)
    np.testing.assert_array_equal(model.ranker_.eval_sample_weight_[0], [2, 4, 1, 3])
    # per query (XGBoost's form): in sorted query order, as given
    model = ranker.fit(X4, Y4, QID4, eval_sample_weight=[np.array([5.0, 6.0])], **fit)
    np.testing.assert_array_equal(model.ranker_.eval_sample_weight_[0], [5, 6])
    model = ranker.fit(X4, Y4, QID4, eval_sample_weight=[None], **fit)
    assert model.ranker_.eval_sample_weight_ == [None]
