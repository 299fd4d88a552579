"""Issue 32, round 3: inputs at scale (read_recommendations) and means of huge values."""

from __future__ import annotations

import numpy as np
import pytest

from sklearn_rank_metrics import (
    RankingEvaluator,
    dcg_score,
    evaluate,
    rbp_score,
    read_recommendations,
)
from sklearn_rank_metrics._io import _recommendations
from sklearn_rank_metrics._metrics._aggregate import (
    mean_of_scaled_sum,
    scaled_sum,
    weighted_mean,
)


def _same_data(a, b):
    for field in ("y_true", "y_score", "group", "doc_id"):
        left, right = getattr(a, field), getattr(b, field)
        assert left.dtype == right.dtype, field
        assert left.tolist() == right.tolist(), field


# ---------------------------------------------------------------- read_recommendations


def test_equal_length_int_arrays_take_the_matrix_path(monkeypatch):
    # before: every item became a NumPy scalar in a Python list (100k users x 50 items:
    # 4 s); now the arrays are stacked into one 2-D array
    stacked = []
    original = _recommendations._integer_matrix

    def spy(lists, kinds):
        result = original(lists, kinds)
        stacked.append(result is not None)
        return result

    monkeypatch.setattr(_recommendations, "_integer_matrix", spy)
    read_recommendations([np.array([3, 1, 2]), np.array([5, 4, 6])], [{1}, {6: 2, 7: 1}])
    assert stacked == [True]


def _general_path(monkeypatch):
    monkeypatch.setattr(_recommendations, "_integer_matrix", lambda lists, kinds: None)


@pytest.mark.parametrize("dtypes", [("int64", "int64"), ("int32", "int64"), ("uint8", "int16")])
def test_fast_path_gives_the_rows_of_the_general_path(monkeypatch, dtypes):
    recommended = [np.array([3, 1, 2], dtype=dtypes[0]), np.array([5, 4, 6], dtype=dtypes[1]),
                   np.array([7, 8, 9], dtype=dtypes[0])]
    relevant = [{1, 9}, {6: 2, 7: 1}, set()]
    fast = read_recommendations(recommended, relevant)
    # by hand: user 0 rows 3 1 2 then missed 9; user 1 rows 5 4 6 then missed 7
    assert fast.group.tolist() == [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2]
    assert fast.doc_id.tolist() == [3, 1, 2, 9, 5, 4, 6, 7, 7, 8, 9]
    assert fast.y_true.tolist() == [0, 1, 0, 1, 0, 0, 2, 1, 0, 0, 0]
    assert fast.y_score.tolist() == [3, 2, 1, -np.inf, 3, 2, 1, -np.inf, 3, 2, 1]
    _general_path(monkeypatch)
    _same_data(fast, read_recommendations(recommended, relevant))


def test_fast_path_as_a_mapping_gives_the_rows_of_the_general_path(monkeypatch):
    recommended = {"b": np.array([10, 20]), "a": np.array([30, 10])}
    relevant = {"a": {10: 3}, "b": [20, 40]}
    fast = read_recommendations(recommended, relevant)
    assert fast.group.tolist() == ["a", "a", "b", "b", "b"]
    assert fast.doc_id.tolist() == [30, 10, 10, 20, 40]
    assert fast.y_true.tolist() == [0, 3, 0, 1, 1]
    _general_path(monkeypatch)
    _same_data(fast, read_recommendations(recommended, relevant))


def test_fast_path_refuses_a_duplicate_naming_user_and_positions():
    with pytest.raises(ValueError, match=r"user 1 has item 4 twice .* positions 0 and 2"):
        read_recommendations([np.array([1, 2, 3]), np.array([4, 5, 4])], [{1}, {4}])


@pytest.mark.parametrize(
    "recommended",
    [
        [np.array([1, 2, 3]), np.array([4, 5])],  # mixed lengths
        [np.array([1, 2]), [4, 5]],  # an array and a list
        [np.array([1, 2]), np.array([4.0, 5.0])],  # an int and a float array
        [np.array([1, 2], dtype=np.uint64), np.array([4, 5])],  # would promote to float
    ],
)
def test_other_containers_keep_the_general_path(recommended):
    assert _recommendations._integer_matrix(recommended, set(map(type, recommended))) is None
    data = read_recommendations(recommended, [{2}, {5}])
    n0 = len(recommended[0])
    assert data.group.tolist() == [0] * n0 + [1] * len(recommended[1])
    assert [int(v) for v in data.doc_id] == [int(v) for v in list(recommended[0]) +
                                             list(recommended[1])]
    assert data.y_true.tolist() == [float(v == 2) for v in recommended[0]] + [
        float(v == 5) for v in recommended[1]
    ]


def test_mixed_lengths_rows_and_errors():
    recommended = [np.array([1, 2, 3]), np.array([9]), np.array([], dtype=np.int64)]
    data = read_recommendations(recommended, [{3}, {9: 2}, {4}])
    assert data.group.tolist() == [0, 0, 0, 1, 2]
    assert data.doc_id.tolist() == [1, 2, 3, 9, 4]
    assert data.y_true.tolist() == [0, 0, 1, 2, 1]
    assert data.y_score.tolist() == [3, 2, 1, 1, -np.inf]
    with pytest.raises(ValueError, match=r"user 1 has item 9 twice .* positions 0 and 1"):
        read_recommendations([np.array([1, 2, 3]), np.array([9, 9])], [{3}, {9}])
    with pytest.raises(TypeError, match="user 1 must be an ordered sequence"):
        read_recommendations([np.array([1, 2]), np.array([[1, 2]])], [{1}, {1}])
    with pytest.raises(TypeError, match="user 0 must be an ordered sequence"):
        read_recommendations([{1, 2}, np.array([1, 2])], [{1}, {1}])
    with pytest.raises(ValueError, match="user 1 has no recommendations and no relevant"):
        read_recommendations([np.array([1]), np.array([], dtype=np.int64)], [{1}, set()])


def test_integer_ids_joined_without_python_ints_give_the_same_ids():
    # a top-N matrix with relevant ids beyond the matrix's own dtype
    top = np.array([[1, 2], [3, 4]], dtype=np.int32)
    data = read_recommendations(top, [{2, 2**40}, {3: 1}])
    assert data.doc_id.dtype == np.int64
    assert data.doc_id.tolist() == [1, 2, 2**40, 3, 4]
    assert data.y_true.tolist() == [0, 1, 1, 1, 0]
    huge = read_recommendations(top, [{2, 2**70}, {3}])  # beyond int64: object ids
    assert huge.doc_id.tolist() == [1, 2, 2**70, 3, 4]
    booleans = read_recommendations(top, [{True}, {3}])  # True == 1, as in Python
    assert booleans.y_true.tolist() == [1, 0, 1, 0]


# ---------------------------------------------------------------- means of huge values

BIG = 1.7e308  # two of these overflow float64 when summed


def _rbp_by_hand(grades, p):
    """Graded RBP of one query, ranked as given: (1 - p) * sum_i p**(i-1) * g_i."""
    return sum((1 - p) * p**i * g for i, g in enumerate(grades))  # no partial sum overflows


def test_rbp_mean_of_huge_values_is_finite():
    # before: inf (the sum of the per-query values overflowed, not their mean)
    one_query = _rbp_by_hand([BIG] * 3, 0.5)  # 0.875 * 1.7e308
    assert one_query == pytest.approx(1.4875e308, rel=1e-15)
    got = rbp_score([BIG] * 6, [3, 2, 1] * 2, group=[0, 0, 0, 1, 1, 1], graded=True, p=0.5)
    assert got == pytest.approx(one_query, rel=1e-15)
    # two different queries: (0.875 + 0.5) / 2 * 1.7e308
    second = _rbp_by_hand([BIG, 0, 0], 0.5)
    got = rbp_score([BIG] * 4 + [0, 0], [3, 2, 1] * 2, group=[0, 0, 0, 1, 1, 1],
                    graded=True, p=0.5)
    assert got == pytest.approx((one_query / 2 + second / 2), rel=1e-15)
    assert got == pytest.approx(1.16875e308, rel=1e-15)


def test_dcg_mean_of_huge_values_is_finite():
    # one row per query: DCG = label / log2(2) = label
    got = dcg_score([1.5e308, BIG], [1.0, 1.0], group=[0, 1])
    assert got == pytest.approx(1.6e308, rel=1e-15)
    got = evaluate([1.5e308, BIG], [1.0, 1.0], group=[0, 1], metrics=["dcg"])["dcg"]
    assert got == pytest.approx(1.6e308, rel=1e-15)
    largest = np.finfo(np.float64).max
    # three queries at the largest float: the mean is that float, not inf (nor past it)
    assert dcg_score([largest] * 3, [1.0] * 3, group=[0, 1, 2]) == largest


def test_weighted_mean_of_huge_values_is_finite():
    # explicit weights (scaled to 1/2 each) still overflowed with six queries
    labels = [BIG] * 6
    got = dcg_score(labels, [1.0] * 6, group=np.arange(6), sample_weight=[1.0, 3.0] * 3)
    assert got == pytest.approx(BIG, rel=1e-15)
    # (1.7e308 * 1 + 1.5e308 * 3) / 4 = 1.55e308
    got = dcg_score([BIG, 1.5e308], [1.0, 1.0], group=[0, 1], sample_weight=[1.0, 3.0])
    assert got == pytest.approx(1.55e308, rel=1e-15)


def test_streaming_mean_of_huge_values_is_finite():
    evaluator = RankingEvaluator(["dcg"])
    evaluator.update([BIG, 1.5e308], [1.0, 1.0], [0, 1])
    evaluator.update([1.6e308], [1.0], [2])
    assert evaluator.compute()["dcg"] == pytest.approx(1.6e308, rel=1e-15)


def test_weighted_mean_direct():
    ones = np.broadcast_to(np.float64(1), (3,))  # the engine's "every weight 1"
    none = np.zeros(3, bool)
    assert weighted_mean(np.array([BIG, BIG, 1.4e308]), ones, none) == pytest.approx(
        1.6e308, rel=1e-15
    )
    # a value that is inf itself: the mean is inf, as before
    assert weighted_mean(np.array([np.inf, BIG, BIG]), ones, none) == np.inf
    # a skipped huge value is left out
    assert weighted_mean(np.array([BIG, BIG, np.nan]), ones, np.array([0, 0, 1], bool)) == BIG


def test_ordinary_means_are_unchanged():
    ones = np.broadcast_to(np.float64(1), (3,))
    none = np.zeros(3, bool)
    # numpy sums three values in order: ((0.1 + 0.2) + 0.3) / 3
    assert weighted_mean(np.array([0.1, 0.2, 0.3]), ones, none) == (0.1 + 0.2 + 0.3) / 3
    weights = np.array([1.0, 2.0, 4.0])  # scaled by 2**-3: exact
    expected = (0.1 * 0.125 + 0.2 * 0.25 + 0.3 * 0.5) / (0.125 + 0.25 + 0.5)
    assert weighted_mean(np.array([0.1, 0.2, 0.3]), weights, none) == expected


@pytest.mark.parametrize("npartitions", [1, 3])
def test_dask_mean_of_huge_values_is_finite(npartitions):
    # before: inf, from the sum within a partition (1) or across partitions (3)
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    from sklearn_rank_metrics.dask import evaluate as dask_evaluate

    frame = pd.DataFrame({"y_true": [BIG, 1.5e308, 1.6e308], "y_score": [1.0] * 3,
                          "group": [0, 1, 2]})
    ddf = dd.from_pandas(frame, npartitions=npartitions)
    # one row per query: DCG = label; (1.7 + 1.5 + 1.6) / 3 = 1.6
    got = dask_evaluate(ddf, ["dcg"], group="group")["dcg"]
    assert got == pytest.approx(1.6e308, rel=1e-15)
    ddf = dd.from_pandas(frame.assign(w=[1.0, 1.0, 2.0]), npartitions=npartitions)
    weighted = dask_evaluate(ddf, ["dcg"], group="group", sample_weight="w")["dcg"]
    # (1.7 + 1.5 + 2 * 1.6) / 4 = 1.6 (times 1e308); 2 * 1.6e308 overflows by itself
    assert weighted == pytest.approx(1.6e308, rel=1e-15)


def test_scaled_mean_helpers():
    largest = np.finfo(np.float64).max
    # three times the largest float, scaled: the mean is the largest float, not past it
    assert mean_of_scaled_sum(scaled_sum(np.full(3, largest)), 3.0) == largest
    assert mean_of_scaled_sum(scaled_sum(np.array([BIG, -BIG, BIG])), 3.0) == pytest.approx(
        BIG / 3, rel=1e-15
    )
    assert mean_of_scaled_sum(scaled_sum(np.array([np.inf, BIG])), 2.0) == np.inf
