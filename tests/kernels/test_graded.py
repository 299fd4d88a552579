"""The graded kernels (``_kernels/_graded.py``): DCG, ideal DCG, ERR and their gains.

Called directly, on queries with interleaved rows, tied blocks and an unretrieved
row: by hand for a query without ties, and under ``ties="average"`` against the mean,
over every order of the tied rows (``tests/support/tie_orders.py``), of the metric
computed from its definition here.

Work done block by block over whole queries gives the same numbers for any block size.
The ideal DCG counts labels per (level, query) in blocks of consecutive queries
(``_graded._LEVEL_COUNT_BLOCK_ROWS`` rows each) to keep its temporaries cache-sized;
tiny blocks put many block boundaries into small data, and the result must still be
scikit-learn's NDCG, including when a non-integer label shows up only in a late block
(the counts must then be abandoned for the sorting path).
"""

import math

import numpy as np
import pytest
from sklearn.metrics import ndcg_score as sklearn_ndcg_score

from sklearn_rank_metrics import ndcg_score
from sklearn_rank_metrics._engine._ranked_groups import rank_groups
from sklearn_rank_metrics._kernels import _graded
from tests.support.tie_orders import flat_rows, input_order, per_query


@pytest.mark.parametrize("block_rows", [1, 5, 13, 1 << 17])
@pytest.mark.parametrize("fractional_last_label", [False, True])
def test_ndcg_matches_sklearn_for_any_block_size(monkeypatch, block_rows, fractional_last_label):
    monkeypatch.setattr(_graded, "_LEVEL_COUNT_BLOCK_ROWS", block_rows)
    rng = np.random.default_rng(block_rows)
    y_true = rng.integers(0, 5, (40, 7)).astype(float)
    if fractional_last_label:
        y_true[-1, -1] = 2.5
    y_score = np.round(rng.normal(size=(40, 7)), 1)  # ties too
    for k in (None, 3):
        expected = sklearn_ndcg_score(y_true, y_score, k=k)
        assert ndcg_score(y_true, y_score, k=k) == pytest.approx(expected, rel=1e-12)


# ---------------------------------------------------------------------------
# The kernels called directly: by hand, and by every order of the tied rows
# ---------------------------------------------------------------------------

INF = float("inf")
QUERIES = {
    "a": ([1, 3, 0, 2], [0.9, 0.8, 0.7, 0.6]),
    "b": ([2, 0, 3, 1, 1], [0.9, 0.5, 0.5, 0.5, -INF]),
    "c": ([0, 4, 1], [0.2, 0.2, 0.2]),
}
GAINS = {"linear": lambda y: y, "exponential": lambda y: 2.0**y - 1, "binary": lambda y: y > 0}


def _ranked():
    group, y_true, y_score = flat_rows(QUERIES)
    return rank_groups(y_true.astype(float), y_score.astype(float), group)


def _dcg_of(k, gain):
    def value(labels, scores, order):
        top = [row for row in order if scores[row] > -INF][:k]
        return sum(GAINS[gain](labels[row]) / math.log2(i + 2) for i, row in enumerate(top))

    return value


def _err_of(k, max_grade):
    def value(labels, scores, order):
        total, reach = 0.0, 1.0
        for i, row in enumerate([row for row in order if scores[row] > -INF][:k]):
            stop = (2.0 ** labels[row] - 1) / 2.0**max_grade
            total += reach * stop / (i + 1)
            reach *= 1 - stop
        return total

    return value


def test_discounts_by_hand():
    np.testing.assert_allclose(
        _graded.discount_table(4, "log(rank+1)", 2), [1, 1 / math.log2(3), 1 / 2, 1 / math.log2(5)],
        rtol=1e-15,
    )  # fmt: skip
    # Järvelin and Kekäläinen: 1 / max(1, log_b(i)); with base 2 ranks 1 and 2 both 1
    np.testing.assert_allclose(
        _graded.discount_table(4, "max(1,log(rank))", 2), [1, 1, 1 / math.log2(3), 1 / 2],
        rtol=1e-15,
    )  # fmt: skip
    np.testing.assert_allclose(
        _graded.discount_table(3, "log(rank+1)", 10), [1 / math.log10(i + 1) for i in (1, 2, 3)],
        rtol=1e-15,
    )  # fmt: skip
    np.testing.assert_array_equal(_graded.discount_table(3, "none", 2), [1.0, 1.0, 1.0])


def test_gains_by_hand():
    labels = np.array([0.0, 1.0, 2.0, 3.0])
    np.testing.assert_array_equal(_graded.gain_values(labels, "linear"), labels)
    np.testing.assert_array_equal(_graded.gain_values(labels, "exponential"), [0, 1, 3, 7])
    np.testing.assert_array_equal(_graded.gain_values(labels, "binary"), [0, 1, 1, 1])
    np.testing.assert_array_equal(_graded.gain_values(labels, [0.0, 0.5, 5.0, 9.0]), [0, 0.5, 5, 9])
    np.testing.assert_array_equal(_graded.gain_values(labels, lambda y: y**2), [0, 1, 4, 9])
    with pytest.raises(ValueError, match=r"must be < 1024 with gain='exponential'"):
        _graded.gain_values(np.array([1024.0]), "exponential")
    with pytest.raises(ValueError, match=r"integers in \[0, 1\]; got 2.0 at row 2"):
        _graded.gain_values(labels, [0.0, 1.0])
    model = _graded.GainModel("exponential", "none", 2)
    np.testing.assert_array_equal(model.gains(labels), [0, 1, 3, 7])
    np.testing.assert_array_equal(model.discounts(2), [1.0, 1.0])


@pytest.mark.parametrize("ties", ["average", "input"])
@pytest.mark.parametrize("k", [None, 1, 2, 3])
@pytest.mark.parametrize("gain", ["linear", "exponential", "binary"])
def test_expected_dcg(ties, k, gain):
    model = _graded.GainModel(gain, "log(rank+1)", 2)
    got = _graded.expected_dcg(_ranked(), ties, k, model)
    expected = per_query(QUERIES, _dcg_of(k, gain), ties)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("k", [None, 1, 2, 3])
@pytest.mark.parametrize("gain", ["linear", "exponential"])
def test_ideal_dcg_sorts_every_row_by_gain(k, gain):
    # the unretrieved row of b counts: the ideal ranks every judged row
    model = _graded.GainModel(gain, "log(rank+1)", 2)
    expected = []
    for query in sorted(QUERIES):
        best = sorted(QUERIES[query][0], reverse=True)[:k]
        expected.append(sum(GAINS[gain](y) / math.log2(i + 2) for i, y in enumerate(best)))
    np.testing.assert_allclose(_graded.ideal_dcg(_ranked(), k, model), expected, rtol=1e-12)


@pytest.mark.parametrize("k", [1, 2, 3])
def test_ideal_dcg_of_top_k_sorts_the_rows_placed_within_the_cutoff(k):
    model = _graded.GainModel("linear", "log(rank+1)", 2)
    expected = []
    for query in sorted(QUERIES):
        labels, scores = QUERIES[query]
        top = [row for row in input_order(scores) if scores[row] > -INF][:k]
        best = sorted((labels[row] for row in top), reverse=True)
        expected.append(sum(y / math.log2(i + 2) for i, y in enumerate(best)))
    got = _graded.ideal_dcg_of_top_k(_ranked(), "input", k, model)
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_stop_probability_by_hand():
    got = _graded.stop_probability(np.array([0.0, 1.0, 2.0, 4.0]), 4)
    np.testing.assert_array_equal(got, [0.0, 1 / 16, 3 / 16, 15 / 16])
    assert _graded.stop_probability(np.array([1.0]), 1)[0] == 0.5


@pytest.mark.parametrize("ties", ["average", "input"])
@pytest.mark.parametrize("k", [None, 1, 2, 3])
def test_expected_reciprocal_rank(ties, k):
    got = _graded.expected_reciprocal_rank(_ranked(), ties, k, 4)
    np.testing.assert_allclose(got, per_query(QUERIES, _err_of(k, 4), ties), rtol=1e-12, atol=1e-15)


def test_the_query_without_ties_by_hand():
    # a: labels 1 3 0 2 by rank
    ranked = _ranked()
    linear = _graded.GainModel("linear", "log(rank+1)", 2)
    dcg = _graded.expected_dcg(ranked, "input", None, linear)[0]
    assert dcg == pytest.approx(1 + 3 / math.log2(3) + 2 / math.log2(5), rel=1e-15)
    ideal = _graded.ideal_dcg(ranked, None, linear)[0]
    assert ideal == pytest.approx(3 + 2 / math.log2(3) + 1 / 2, rel=1e-15)
    # ERR with max_grade 4: R = 1/16, 7/16, 0, 3/16
    err = 1 / 16 + (15 / 16) * (7 / 16) / 2 + (15 / 16) * (9 / 16) * (3 / 16) / 4
    assert _graded.expected_reciprocal_rank(ranked, "input", None, 4)[0] == pytest.approx(err)


def test_negative_labels_are_refused_naming_the_row():
    _graded.check_labels_non_negative(_ranked())  # every label >= 0: no error
    ranked = rank_groups([1.0, -2.0, 0.0], [0.3, 0.2, 0.1], np.zeros(3))
    with pytest.raises(ValueError, match=r"must be >= 0 \(graded relevance\); got -2.0 at row 1"):
        _graded.check_labels_non_negative(ranked)


def test_labels_are_scaled_only_in_the_queries_whose_dcg_could_overflow():
    ranked = _ranked()
    assert _graded.labels_scaled_where_dcg_could_overflow(ranked) is ranked
    huge = rank_groups([1e308, 4.0, 3.0, 1.0], [0.4, 0.3, 0.2, 0.1], [0, 0, 1, 1])
    scaled = _graded.labels_scaled_where_dcg_could_overflow(huge)
    # query 0 by 2**-1024 (1e308 = m 2**1024 with 0.5 <= m < 1), exact; query 1 as it was
    np.testing.assert_array_equal(scaled.labels, [np.ldexp(1e308, -1024), 2.0**-1022, 3.0, 1.0])
    np.testing.assert_array_equal(scaled.input_labels, scaled.labels)


GAIN_FORMS = ["linear", "exponential", "binary", [0.0, 1.0, 3.0, 7.5, 20.0], lambda y: y**1.5]


@pytest.mark.parametrize("width", [2, 5, 10])
@pytest.mark.parametrize("k", [None, 1, 3, 10, 15])
@pytest.mark.parametrize("ties", ["input", "optimistic", "average"])
@pytest.mark.parametrize("scores", ["distinct", "ties", "unretrieved"])
def test_queries_of_one_size_give_the_numbers_of_the_general_path(
    monkeypatch, width, k, ties, scores
):
    # queries of one size, all retrieved and each row its own block, read the cutoff
    # rows as the columns of a 2-D array (gains gathered, discounts broadcast): the
    # same numbers as the general path, bit for bit, for every form of gain
    rng = np.random.default_rng(width * 100 + (k or 0))
    n_queries = 300
    group = np.repeat(np.arange(n_queries), width)
    y = rng.integers(0, 5, len(group)).astype(float)
    score = rng.random(len(group))
    if scores == "ties":
        score = np.round(score, 1)
    elif scores == "unretrieved":
        score[rng.random(len(group)) < 0.2] = -np.inf
    columns = []
    for gain in GAIN_FORMS:
        model = _graded.GainModel(gain, "log(rank+1)", 2)
        ranked = rank_groups(y, score, group)
        columns.append((ranked.common_depth(k), _graded.expected_dcg(ranked, ties, k, model)))
    monkeypatch.setattr(type(ranked), "common_depth", lambda self, k: None)
    for gain, (depth, got) in zip(GAIN_FORMS, columns, strict=True):
        model = _graded.GainModel(gain, "log(rank+1)", 2)
        general = _graded.expected_dcg(rank_groups(y, score, group), ties, k, model)
        np.testing.assert_array_equal(got, general)
        # the columns were read wherever every row is retrieved
        expected_depth = None if scores == "unretrieved" else min(k or width, width)
        assert depth == expected_depth


def test_a_kept_ideal_dcg_is_not_changed_through_a_returned_one():
    ranked = _ranked()
    model = _graded.GainModel("exponential", "log(rank+1)", 2)
    first = _graded.ideal_dcg(ranked, 2, model)
    expected = first.copy()
    first[:] = -1.0
    np.testing.assert_array_equal(_graded.ideal_dcg(ranked, 2, model), expected)
