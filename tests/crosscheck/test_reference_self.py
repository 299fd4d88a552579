"""Tests of the slow reference implementation (tests/support/reference.py) itself.

Expected values are written as arithmetic from the SPEC formulas, so that the
reference can be trusted when the package is compared with it.
"""

import itertools
import math

import numpy as np
import pytest

from tests.support import reference as ref

INF = math.inf
L2 = math.log2


def approx(x):
    return pytest.approx(x, rel=1e-12, abs=1e-14)


def defined(result):
    """Value of a (value, undefined) pair that must be defined."""
    value, undefined = result
    assert not undefined
    return value


def undefined(result):
    _, is_undefined = result
    return is_undefined


# ---------------------------------------------------------------------------
# order_rows
# ---------------------------------------------------------------------------


def test_order_rows_all_modes():
    y_true = [0, 2, 1, 3, 5]
    y_score = [0.5, 0.5, 1.0, 0.5, -INF]
    assert ref.order_rows(y_true, y_score, "input") == [2, 0, 1, 3]
    assert ref.order_rows(y_true, y_score, "optimistic") == [2, 3, 1, 0]
    assert ref.order_rows(y_true, y_score, "pessimistic") == [2, 0, 1, 3]


def test_order_rows_equal_labels_keep_input_order():
    y_true = [1, 1, 0, 1]
    y_score = [2.0, 2.0, 2.0, 2.0]
    assert ref.order_rows(y_true, y_score, "input") == [0, 1, 2, 3]
    assert ref.order_rows(y_true, y_score, "optimistic") == [0, 1, 3, 2]
    assert ref.order_rows(y_true, y_score, "pessimistic") == [2, 0, 1, 3]


def test_order_rows_infinite_scores():
    y_true = [1, 0, 0, 1, 0]
    y_score = [-INF, 1.0, INF, -INF, -INF]
    assert ref.order_rows(y_true, y_score, "input") == [2, 1]
    assert ref.order_rows(y_true, y_score, "input", include_unretrieved=True) == [2, 1, 0, 3, 4]
    assert ref.order_rows(y_true, y_score, "optimistic", include_unretrieved=True) == [
        2,
        1,
        0,
        3,
        4,
    ]
    assert ref.order_rows(y_true, y_score, "pessimistic", include_unretrieved=True) == [
        2,
        1,
        4,
        0,
        3,
    ]
    assert ref.split_ranked(y_true, y_score, "pessimistic") == ([0.0, 0.0], [0.0, 1.0, 1.0])


def test_order_rows_rejects_average():
    with pytest.raises(ValueError):
        ref.order_rows([1], [1.0], "average")


# ---------------------------------------------------------------------------
# DCG / CG
# ---------------------------------------------------------------------------


def test_dcg_linear():
    assert defined(ref.dcg([3, 2, 0, 1], [])) == approx(
        3 / L2(2) + 2 / L2(3) + 0 / L2(4) + 1 / L2(5)
    )


def test_dcg_cutoff_and_short_run():
    assert defined(ref.dcg([3, 2, 0, 1], [], k=2)) == approx(3 / L2(2) + 2 / L2(3))
    # run shorter than k: only the ranks that exist count
    assert defined(ref.dcg([1, 2], [], k=5)) == approx(1 + 2 / L2(3))


def test_dcg_exponential_array_callable_gains():
    labels = [3, 2, 0, 1]
    assert defined(ref.dcg(labels, [], gain="exponential")) == approx(7 + 3 / L2(3) + 0 + 1 / L2(5))
    assert defined(ref.dcg(labels, [], gain=[0, 1, 3, 10])) == approx(
        10 + 3 / L2(3) + 0 + 1 / L2(5)
    )
    assert defined(ref.dcg(labels, [], gain=np.sqrt)) == approx(
        math.sqrt(3) + math.sqrt(2) / L2(3) + 0 + 1 / L2(5)
    )


def test_dcg_discounts_and_log_base():
    labels = [3, 2, 1, 1]
    # Jarvelin & Kekalainen: ranks 1 and 2 undiscounted for base 2
    assert defined(ref.dcg(labels, [], discount="max(1,log(rank))")) == approx(
        3 + 2 + 1 / L2(3) + 1 / L2(4)
    )
    assert defined(ref.dcg(labels, [], discount="none")) == approx(3 + 2 + 1 + 1)
    assert defined(ref.dcg(labels, [], log_base=10)) == approx(
        3 / math.log10(2) + 2 / math.log10(3) + 1 / math.log10(4) + 1 / math.log10(5)
    )
    # base e: ln(2) < 1 so ranks 1, 2 undiscounted, then 1/ln(rank)
    assert defined(ref.dcg(labels, [], discount="max(1,log(rank))", log_base=math.e)) == approx(
        3 + 2 + 1 / math.log(3) + 1 / math.log(4)
    )
    # base 10: every rank < 10 is undiscounted
    assert defined(ref.dcg(labels, [], discount="max(1,log(rank))", log_base=10)) == approx(7)


def test_dcg_unretrieved_and_undefined():
    # the unretrieved relevant row makes the query defined but adds nothing
    assert defined(ref.dcg([0, 1], [3])) == approx(0 + 1 / L2(3))
    assert undefined(ref.dcg([0, 0], [0]))
    assert ref.dcg([0, 0], [0])[0] == 0.0
    assert undefined(ref.dcg([], [0]))
    assert defined(ref.dcg([], [2])) == 0.0
    # undefined means "no row with gain > 0": a gain table with G[0] > 0
    assert defined(ref.dcg([0, 0], [], gain=[0.5, 1, 2, 4])) == approx(0.5 + 0.5 / L2(3))


def test_cg():
    assert defined(ref.cg([3, 2, 0, 1], [], k=3)) == approx(3 + 2 + 0)
    assert defined(ref.cg([3, 2, 0, 1], [5])) == approx(6)
    assert defined(ref.cg([1, 2], [], k=3, gain="exponential")) == approx(1 + 3)


# ---------------------------------------------------------------------------
# NDCG
# ---------------------------------------------------------------------------


def test_ndcg_linear():
    assert defined(ref.ndcg([3, 2, 0, 1], [])) == approx(
        (3 + 2 / L2(3) + 0 / L2(4) + 1 / L2(5)) / (3 + 2 / L2(3) + 1 / L2(4) + 0 / L2(5))
    )
    assert defined(ref.ndcg([2, 3, 0, 1], [], k=2)) == approx((2 + 3 / L2(3)) / (3 + 2 / L2(3)))
    assert defined(ref.ndcg([3, 2, 1, 0], [])) == approx(1.0)


def test_ndcg_unretrieved_relevant_row_counts_in_ideal():
    assert defined(ref.ndcg([0, 1], [2])) == approx((1 / L2(3)) / (2 + 1 / L2(3) + 0 / L2(4)))
    assert defined(ref.ndcg([1], [2], k=1)) == approx(1 / 2)
    # k=None: the ideal uses every row, not only n_retrieved of them
    assert defined(ref.ndcg([1], [1])) == approx(1 / (1 + 1 / L2(3)))
    # k larger than the query: ideal truncated at n_rows
    assert defined(ref.ndcg([1, 0], [1], k=10)) == approx(1 / (1 + 1 / L2(3)))
    # nothing retrieved at all
    assert defined(ref.ndcg([], [3])) == 0.0


def test_ndcg_gains_and_discounts():
    assert defined(ref.ndcg([1, 2], [], gain="exponential")) == approx(
        (1 + 3 / L2(3)) / (3 + 1 / L2(3))
    )
    assert defined(ref.ndcg([1, 3], [], gain=[0, 1, 3, 10])) == approx(
        (1 + 10 / L2(3)) / (10 + 1 / L2(3))
    )
    assert defined(ref.ndcg([1, 2], [], gain=np.square)) == approx(
        (1 + 4 / L2(3)) / (4 + 1 / L2(3))
    )
    assert defined(ref.ndcg([1, 2, 3], [], discount="max(1,log(rank))")) == approx(
        (1 + 2 + 3 / L2(3)) / (3 + 2 + 1 / L2(3))
    )
    assert defined(ref.ndcg([0, 1, 2], [], k=2, discount="none")) == approx((0 + 1) / (2 + 1))


def test_ndcg_ideal_top_k():
    # ideal from the gains of the model's own top 2 only: [0, 2] -> [2, 0]
    assert defined(ref.ndcg([0, 2, 1, 3], [], k=2, ideal="top_k")) == approx(
        (0 + 2 / L2(3)) / (2 + 0 / L2(3))
    )
    # compare ideal="all" on the same ranking
    assert defined(ref.ndcg([0, 2, 1, 3], [], k=2)) == approx((2 / L2(3)) / (3 + 2 / L2(3)))
    # the unretrieved relevant row is ignored by ideal="top_k"
    assert defined(ref.ndcg([0, 1], [3], ideal="top_k")) == approx((1 / L2(3)) / 1)
    # relevant rows exist but none in the top k: ideal DCG is 0 -> undefined
    assert undefined(ref.ndcg([0, 0, 3], [], k=2, ideal="top_k"))
    assert not undefined(ref.ndcg([0, 0, 3], [], k=2, ideal="all"))


def test_ndcg_undefined():
    assert undefined(ref.ndcg([0, 0], [0]))
    assert undefined(ref.ndcg([0], [], gain="exponential"))
    assert undefined(ref.ndcg([], [0], ideal="top_k"))


# ---------------------------------------------------------------------------
# AP
# ---------------------------------------------------------------------------


def test_ap_n_relevant():
    assert defined(ref.ap([1, 0, 1, 0], [])) == approx((1 / 1 + 2 / 3) / 2)
    assert defined(ref.ap([1, 0, 1], [1])) == approx((1 / 1 + 2 / 3) / 3)
    assert defined(ref.ap([0, 1, 1], [], k=2)) == approx((1 / 2) / 2)
    assert defined(ref.ap([1], [1], k=5)) == approx(1 / 2)
    assert defined(ref.ap([], [1])) == 0.0


def test_ap_min_k_n_relevant():
    kw = {"denominator": "min(k,n_relevant)"}
    assert defined(ref.ap([0, 1, 1, 1], [], k=2, **kw)) == approx((1 / 2) / 2)
    assert defined(ref.ap([0, 1, 1, 1], [], **kw)) == approx((1 / 2 + 2 / 3 + 3 / 4) / 3)
    assert defined(ref.ap([1, 0, 0, 0, 1], [], k=3, **kw)) == approx((1 / 1) / 2)
    assert defined(ref.ap([1], [1], k=5, **kw)) == approx(1 / 2)
    assert defined(ref.ap([1], [1], k=1, **kw)) == approx(1 / 1)


def test_ap_n_relevant_in_top_k():
    kw = {"denominator": "n_relevant_in_top_k"}
    assert defined(ref.ap([0, 1, 1, 1], [], k=2, **kw)) == approx((1 / 2) / 1)
    assert defined(ref.ap([0, 0, 1], [], k=2, **kw)) == 0.0
    assert defined(ref.ap([1], [1], k=5, **kw)) == approx(1.0)
    assert defined(ref.ap([1, 0, 1], [1, 1], **kw)) == approx((1 + 2 / 3) / 2)


def test_ap_relevance_level_and_undefined():
    assert defined(ref.ap([1, 2, 3], [], relevance_level=2)) == approx((1 / 2 + 2 / 3) / 2)
    assert undefined(ref.ap([1, 1], [1], relevance_level=2))
    assert undefined(ref.ap([0, 0], [0]))
    assert ref.ap([0, 0], [0])[0] == 0.0


# ---------------------------------------------------------------------------
# RR, precision, recall, F-beta, hit rate
# ---------------------------------------------------------------------------


def test_rr():
    assert defined(ref.rr([0, 0, 1], [])) == approx(1 / 3)
    assert defined(ref.rr([0, 0, 1], [], k=2)) == 0.0
    assert defined(ref.rr([1, 3], [], relevance_level=2)) == approx(1 / 2)
    assert defined(ref.rr([0], [1])) == 0.0
    assert defined(ref.rr([2], [], k=5)) == 1.0
    assert undefined(ref.rr([0, 0], []))


def test_precision():
    assert defined(ref.precision([1, 0, 1], [], k=5)) == approx(2 / 5)
    assert defined(ref.precision([1, 0, 1], [], k=5, denominator="min(k,n_retrieved)")) == approx(
        2 / 3
    )
    assert defined(ref.precision([1, 0, 1], [])) == approx(2 / 3)
    assert defined(ref.precision([1, 0, 1], [], k=2)) == approx(1 / 2)
    assert defined(ref.precision([1, 0, 1], [], k=2, denominator="min(k,n_retrieved)")) == approx(
        1 / 2
    )
    # unretrieved relevant rows are never hits
    assert defined(ref.precision([0], [1], k=1)) == 0.0
    assert defined(ref.precision([1, 0], [1], k=3)) == approx(1 / 3)
    # nothing retrieved: zero denominator gives 0
    assert defined(ref.precision([], [1])) == 0.0
    assert defined(ref.precision([], [1], k=3, denominator="min(k,n_retrieved)")) == 0.0
    assert defined(ref.precision([1, 2], [], k=2, relevance_level=2)) == approx(1 / 2)
    assert undefined(ref.precision([0, 0], [], k=1))


def test_recall():
    assert defined(ref.recall([1, 0, 1], [1], k=2)) == approx(1 / 3)
    assert defined(ref.recall([1, 0, 1], [1])) == approx(2 / 3)
    assert defined(ref.recall([1], [], k=5)) == 1.0
    assert defined(ref.recall([3, 1], [2], relevance_level=2)) == approx(1 / 2)
    assert undefined(ref.recall([0], [0]))


def test_fbeta():
    p, r = 1 / 2, 1 / 3
    assert defined(ref.fbeta([1, 0, 1], [1], k=2)) == approx(2 * p * r / (p + r))
    assert defined(ref.fbeta([1, 0, 1], [1], k=2, beta=2.0)) == approx(
        (1 + 4) * p * r / (4 * p + r)
    )
    assert defined(ref.fbeta([1, 0, 1], [1], k=2, beta=0.5)) == approx(
        (1 + 0.25) * p * r / (0.25 * p + r)
    )
    p, r = 2 / 3, 2 / 2
    assert defined(ref.fbeta([1, 0, 1], [], k=5, denominator="min(k,n_retrieved)")) == approx(
        2 * p * r / (p + r)
    )
    p, r = 2 / 5, 2 / 2
    assert defined(ref.fbeta([1, 0, 1], [], k=5)) == approx(2 * p * r / (p + r))
    assert defined(ref.fbeta([0, 1], [], k=1)) == 0.0
    assert undefined(ref.fbeta([0, 0], [], k=1))


def test_hit():
    assert defined(ref.hit([0, 0, 1], [], k=2)) == 0.0
    assert defined(ref.hit([0, 0, 1], [], k=3)) == 1.0
    assert defined(ref.hit([0, 0, 1], [])) == 1.0
    assert defined(ref.hit([0], [1])) == 0.0
    assert defined(ref.hit([1, 2], [], relevance_level=2)) == 1.0
    assert undefined(ref.hit([0, 0], [0]))


# ---------------------------------------------------------------------------
# ERR
# ---------------------------------------------------------------------------


def test_err():
    r = [7 / 8, 0 / 8, 1 / 8]  # labels 3, 0, 1 with max_grade 3
    assert defined(ref.err([3, 0, 1], [], max_grade=3)) == approx(
        r[0] / 1 + (1 - r[0]) * r[1] / 2 + (1 - r[0]) * (1 - r[1]) * r[2] / 3
    )
    assert defined(ref.err([3, 0, 1], [], k=1, max_grade=3)) == approx(7 / 8)
    r = [7 / 16, 1 / 16]  # max_grade 4
    assert defined(ref.err([3, 1], [], max_grade=4)) == approx(r[0] + (1 - r[0]) * r[1] / 2)
    assert defined(ref.err([1, 3], [], k=5, max_grade=3)) == approx(1 / 8 + (7 / 8) * (7 / 8) / 2)
    assert defined(ref.err([0], [2], max_grade=3)) == 0.0
    assert undefined(ref.err([0, 0], [0], max_grade=3))


# ---------------------------------------------------------------------------
# AUC
# ---------------------------------------------------------------------------


def test_auc_fixed_order():
    # pairs (pos, neg): pos@1 before both negatives, pos@3 before neg@4 only
    assert defined(ref.auc([1, 0, 1, 0], [])) == approx(3 / 4)
    # unretrieved rows come after every retrieved row
    assert defined(ref.auc([0, 1], [1, 0])) == approx(2 / 4)
    assert defined(ref.auc([0, 2, 1], [], relevance_level=2)) == approx(1 / 2)
    assert undefined(ref.auc([1, 1], [1]))
    assert undefined(ref.auc([0], [0]))


def test_auc_pairwise_tie_rules():
    y_true = [0, 1, 1, 0]
    y_score = [1.0, 2.0, -INF, -INF]
    # pos(2) vs neg(1): 1, pos(2) vs neg(-inf): 1, pos(-inf) vs neg(1): 0,
    # pos(-inf) vs neg(-inf): tie
    assert defined(ref.auc_pairwise(y_true, y_score)) == approx((1 + 1 + 0 + 0.5) / 4)
    assert defined(ref.auc_pairwise(y_true, y_score, ties="optimistic")) == approx(3 / 4)
    assert defined(ref.auc_pairwise(y_true, y_score, ties="pessimistic")) == approx(2 / 4)
    assert defined(ref.auc_pairwise(y_true, y_score, ties="input")) == approx(3 / 4)
    assert defined(ref.auc_pairwise([0, 1], [1.0, 1.0])) == approx(0.5)
    assert undefined(ref.auc_pairwise([1, 1], [1.0, 2.0]))


# ---------------------------------------------------------------------------
# Brute force over tie orders, by hand
# ---------------------------------------------------------------------------


def test_tie_average_ap_pair():
    # orders (rel, irr): AP 1; (irr, rel): AP 1/2
    mean, lo, hi = ref.expected_over_tie_orders(ref.ap, [1, 0], [0.3, 0.3])
    assert (mean, lo, hi) == (approx(0.75), approx(0.5), approx(1.0))


def test_tie_average_by_hand_other_metrics():
    assert ref.expected_over_tie_orders(ref.dcg, [1, 0], [1.0, 1.0])[0] == approx(
        (1 + 1 / L2(3)) / 2
    )
    # block after an untied first row
    assert ref.expected_over_tie_orders(ref.dcg, [2, 1, 0], [5.0, 1.0, 1.0])[0] == approx(
        2 + (1 / L2(3) + 1 / L2(4)) / 2
    )
    both = (1 + 2 / L2(3)) / (2 + 1 / L2(3))
    assert ref.expected_over_tie_orders(ref.ndcg, [2, 1], [1.0, 1.0])[:2] == (
        approx((1 + both) / 2),
        approx(both),
    )
    assert ref.expected_over_tie_orders(ref.rr, [0, 1, 0], [4.0, 4.0, 4.0])[0] == approx(
        (1 / 1 + 1 / 2 + 1 / 3) / 3
    )
    assert ref.expected_over_tie_orders(ref.precision, [1, 0], [1.0, 1.0], k=1)[0] == approx(0.5)
    assert ref.expected_over_tie_orders(ref.hit, [1, 0, 0], [1.0, 1.0, 1.0], k=1)[0] == approx(
        1 / 3
    )
    assert ref.expected_over_tie_orders(ref.err, [3, 1], [0.0, 0.0], max_grade=3)[0] == approx(
        ((7 / 8 + (1 / 8) * (1 / 8) / 2) + (1 / 8 + (7 / 8) * (7 / 8) / 2)) / 2
    )
    # the -inf rows are one tie block for the AUC
    assert ref.expected_over_tie_orders(ref.auc, [1, 0], [-INF, -INF])[0] == approx(0.5)
    # -inf rows never enter the ranking: a tie between them changes nothing else
    assert ref.expected_over_tie_orders(ref.recall, [1, 0, 1], [2.0, -INF, -INF])[:] == (
        approx(0.5),
        approx(0.5),
        approx(0.5),
    )
    # a query undefined in every order gives nan
    assert math.isnan(ref.expected_over_tie_orders(ref.ap, [0, 0], [1.0, 1.0])[0])
    assert ref.expected_over_tie_orders(ref.ap, [0, 0], [1.0, 1.0], undefined_value=1.0) == (
        1.0,
        1.0,
        1.0,
    )


def test_tie_relevant_first_is_not_always_best():
    # the two variants for which "optimistic" is not the maximum over tie orders
    y_true, y_score = [1, 0, 1, 0], [3.0, 2.0, 1.0, 1.0]
    fn_kw = {"k": 3, "denominator": "n_relevant_in_top_k"}
    ranked, unretrieved = ref.split_ranked(y_true, y_score, "optimistic")
    assert defined(ref.ap(ranked, unretrieved, **fn_kw)) == approx((1 + 2 / 3) / 2)
    assert ref.expected_over_tie_orders(ref.ap, y_true, y_score, **fn_kw)[2] == approx(1.0)

    y_true, y_score = [1, 3, 0], [2.0, 1.0, 1.0]
    ranked, unretrieved = ref.split_ranked(y_true, y_score, "optimistic")
    assert defined(ref.ndcg(ranked, unretrieved, k=2, ideal="top_k")) == approx(
        (1 + 3 / L2(3)) / (3 + 1 / L2(3))
    )
    assert ref.expected_over_tie_orders(ref.ndcg, y_true, y_score, k=2, ideal="top_k")[2] == approx(
        1.0
    )


def test_ndcg_top_k_average_partially_undefined():
    # tied (relevant, irrelevant) pair and k=1: order (1, 0) gives 1; order (0, 1)
    # has an empty ideal DCG (undefined).
    results = ref.tie_order_values(ref.ndcg, [1, 0], [1.0, 1.0], k=1, ideal="top_k")
    assert sorted(results) == [(0.0, True), (1.0, False)]
    pq = ref.reference_per_query("ndcg", [1, 0], [1.0, 1.0], k=1, ideal="top_k")
    assert ref.aggregate(pq, 0.0)[0] == approx(0.5)
    assert ref.aggregate(pq, 1.0)[0] == approx(1.0)
    assert math.isnan(ref.aggregate(pq, np.nan)[0])
    with pytest.warns(UserWarning):
        assert math.isnan(ref.aggregate(pq, "skip")[0])
    with pytest.raises(ValueError):
        ref.aggregate(pq, "raise")


# ---------------------------------------------------------------------------
# Brute force against independent code paths, on random small queries
# ---------------------------------------------------------------------------

GAIN_METRICS = [
    (ref.dcg, {}),
    (ref.dcg, {"gain": "exponential", "discount": "max(1,log(rank))"}),
    (ref.dcg, {"gain": [0, 1, 3, 10], "k": 2}),
    (ref.ndcg, {"k": 3}),
    (ref.ndcg, {"gain": np.sqrt, "discount": "none"}),
    (ref.err, {"max_grade": 3, "k": 2}),
    (ref.err, {"max_grade": 5}),
]
BINARY_METRICS = [
    (ref.ap, {}),
    (ref.ap, {"k": 2, "denominator": "min(k,n_relevant)"}),
    (ref.rr, {"k": 3}),
    (ref.precision, {"k": 3}),
    (ref.precision, {"k": 5, "denominator": "min(k,n_retrieved)"}),
    (ref.recall, {"k": 2, "relevance_level": 2}),
    (ref.fbeta, {"k": 2, "beta": 2.0}),
    (ref.hit, {"k": 1}),
    (ref.auc, {}),
    (ref.auc, {"relevance_level": 2}),
]


def random_queries(n, seed):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        size = int(rng.integers(1, 7))
        y_true = rng.choice([0, 0, 1, 2, 3], size=size)
        y_score = rng.choice([-INF, 0.5, 1.0, 2.0, INF], size=size)
        yield [float(v) for v in y_true], [float(v) for v in y_score]


def naive_row_permutations(metric_fn, y_true, y_score, **params):
    """Every row order of every tie block, without collapsing equal labels."""
    blocks = ref.tie_blocks(y_score)
    n_retrieved = sum(1 for s in y_score if s > -INF)
    values = []
    for combo in itertools.product(*[itertools.permutations(b) for b in blocks]):
        order = [i for block in combo for i in block]
        labels = [y_true[i] for i in order]
        value, is_undefined = metric_fn(labels[:n_retrieved], labels[n_retrieved:], **params)
        values.append(np.nan if is_undefined else value)
    return np.mean(values), np.min(values), np.max(values)


@pytest.mark.parametrize(("fn", "params"), GAIN_METRICS + BINARY_METRICS)
def test_distinct_label_orders_equal_all_row_orders(fn, params):
    for y_true, y_score in random_queries(40, seed=1):
        expected = naive_row_permutations(fn, y_true, y_score, **params)
        got = ref.expected_over_tie_orders(fn, y_true, y_score, **params)
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize(("fn", "params"), GAIN_METRICS + BINARY_METRICS)
def test_optimistic_and_pessimistic_orders_are_the_bounds(fn, params):
    for y_true, y_score in random_queries(60, seed=2):
        mean, lo, hi = ref.expected_over_tie_orders(fn, y_true, y_score, **params)
        if math.isnan(mean):
            continue
        best = fn(*ref.split_ranked(y_true, y_score, "optimistic"), **params)[0]
        worst = fn(*ref.split_ranked(y_true, y_score, "pessimistic"), **params)[0]
        given = fn(*ref.split_ranked(y_true, y_score, "input"), **params)[0]
        assert best == approx(hi)
        assert worst == approx(lo)
        assert lo - 1e-12 <= given <= hi + 1e-12
        assert lo - 1e-12 <= mean <= hi + 1e-12


@pytest.mark.parametrize("ties", ref.TIES)
@pytest.mark.parametrize("relevance_level", [None, 2])
def test_auc_in_order_agrees_with_pairwise_formula(ties, relevance_level):
    for y_true, y_score in random_queries(80, seed=3):
        direct = ref.auc_pairwise(y_true, y_score, ties=ties, relevance_level=relevance_level)
        pq = ref.reference_per_query(
            "gauc", y_true, y_score, ties=ties, relevance_level=relevance_level
        )
        assert bool(pq.undefined_fraction[0]) == direct[1]
        if not direct[1]:
            assert pq.value0[0] == approx(direct[0])


def test_tie_average_of_linear_metrics_is_the_mean_gain_per_block():
    # DCG is linear in the gains: the expectation puts the block's mean gain at
    # every rank of the block (a second, independent way to get the average).
    for y_true, y_score in random_queries(60, seed=4):
        blocks = [b for b in ref.tie_blocks(y_score) if y_score[b[0]] > -INF]
        expected = 0.0
        rank = 0
        for block in blocks:
            mean_gain = sum(2 ** y_true[i] - 1 for i in block) / len(block)
            for _ in block:
                rank += 1
                if rank <= 3:
                    expected += mean_gain / L2(rank + 1)
        value = ref.expected_over_tie_orders(
            ref.dcg, y_true, y_score, k=3, gain="exponential", undefined_value=0.0
        )[0]
        assert value == approx(expected)


# ---------------------------------------------------------------------------
# Aggregation: policies, weights, groups
# ---------------------------------------------------------------------------


def flat_example():
    # query "b": labels (1, 0, 1) scores (3, 2, 1) -> AP (1 + 2/3) / 2
    # query "a": labels (0, 0) -> undefined
    # query "c": labels (0, 1) scores (5, -inf) -> AP 0 (relevant row unretrieved)
    # rows of the queries are interleaved
    group = np.array(["b", "a", "c", "b", "a", "c", "b"])
    y_true = np.array([1, 0, 0, 0, 0, 1, 1])
    y_score = np.array([3.0, 1.0, 5.0, 2.0, 0.0, -INF, 1.0])
    return y_true, y_score, group


def test_reference_mean_policies():
    y_true, y_score, group = flat_example()
    ap_b = (1 + 2 / 3) / 2
    mean, per_q = ref.reference_mean("map", y_true, y_score, group)
    assert mean == approx((0 + ap_b + 0) / 3)
    np.testing.assert_allclose(per_q, [0.0, ap_b, 0.0])  # order of np.unique: a, b, c
    assert ref.reference_mean("map", y_true, y_score, group, replace_undefined_by=1.0)[0] == approx(
        (1 + ap_b + 0) / 3
    )
    assert math.isnan(
        ref.reference_mean("map", y_true, y_score, group, replace_undefined_by=np.nan)[0]
    )
    mean, per_q = ref.reference_mean("map", y_true, y_score, group, replace_undefined_by="skip")
    assert mean == approx((ap_b + 0) / 2)
    assert math.isnan(per_q[0])
    with pytest.raises(ValueError, match="'a'"):
        ref.reference_mean("map", y_true, y_score, group, replace_undefined_by="raise")


def test_reference_mean_sample_weight():
    y_true, y_score, group = flat_example()
    weight_of = {"a": 2.0, "b": 3.0, "c": 0.5}
    sample_weight = np.array([weight_of[g] for g in group])
    ap_b = (1 + 2 / 3) / 2
    mean, _ = ref.reference_mean("map", y_true, y_score, group, sample_weight=sample_weight)
    assert mean == approx((2.0 * 0 + 3.0 * ap_b + 0.5 * 0) / (2.0 + 3.0 + 0.5))
    mean, _ = ref.reference_mean(
        "map", y_true, y_score, group, sample_weight=sample_weight, replace_undefined_by=1.0
    )
    assert mean == approx((2.0 * 1 + 3.0 * ap_b + 0.5 * 0) / (2.0 + 3.0 + 0.5))
    mean, _ = ref.reference_mean(
        "map", y_true, y_score, group, sample_weight=sample_weight, replace_undefined_by="skip"
    )
    assert mean == approx((3.0 * ap_b + 0.5 * 0) / (3.0 + 0.5))
    bad = sample_weight.copy()
    bad[0] = 7.0
    with pytest.raises(ValueError):
        ref.reference_mean("map", y_true, y_score, group, sample_weight=bad)


def test_reference_mean_all_skipped_warns():
    with pytest.warns(UserWarning):
        mean, _ = ref.reference_mean(
            "ndcg", [0, 0, 0], [1.0, 2.0, 3.0], [1, 2, 1], replace_undefined_by="skip"
        )
    assert math.isnan(mean)


def test_reference_mean_tie_average_and_fixed_orders():
    # one query: tied (relevant, irrelevant) pair, then a relevant row
    y_true, y_score = [0, 1, 1], [1.0, 1.0, 0.0]
    assert ref.reference_mean("map", y_true, y_score)[0] == approx(
        ((1 + 2 / 3) / 2 + (1 / 2 + 2 / 3) / 2) / 2
    )
    assert ref.reference_mean("map", y_true, y_score, ties="input")[0] == approx(
        (1 / 2 + 2 / 3) / 2
    )
    assert ref.reference_mean("map", y_true, y_score, ties="optimistic")[0] == approx(
        (1 + 2 / 3) / 2
    )
    assert ref.reference_mean("map", y_true, y_score, ties="pessimistic")[0] == approx(
        (1 / 2 + 2 / 3) / 2
    )
    pq = ref.reference_per_query("map", y_true, y_score, with_bounds=True)
    assert pq.mins[0] == approx((1 / 2 + 2 / 3) / 2)
    assert pq.maxs[0] == approx((1 + 2 / 3) / 2)


def test_reference_mean_int_groups_and_gauc_weights():
    # query 10: labels (1, 0, 0) scores (1, 2, 0) -> AUC 1/2, 3 rows, 1 positive
    # query -3: labels (1, 1, 0, 0) scores (4, 1, 1, -inf) -> AUC (1 + 1 + 0.5 + 1) / 4
    # query 7: labels (1,) -> one class, skipped by default
    group = np.array([10, -3, 7, 10, -3, 10, -3, -3])
    y_true = np.array([1, 1, 1, 0, 1, 0, 0, 0])
    y_score = np.array([1.0, 4.0, 0.3, 2.0, 1.0, 0.0, 1.0, -INF])
    auc_10, auc_m3 = 1 / 2, (1 + 1 + 0.5 + 1) / 4
    mean, per_q = ref.reference_mean("gauc", y_true, y_score, group)
    assert mean == approx((auc_10 + auc_m3) / 2)
    np.testing.assert_allclose(per_q, [auc_m3, np.nan, auc_10])  # ids sorted: -3, 7, 10
    assert ref.reference_mean("gauc", y_true, y_score, group, query_weight="rows")[0] == approx(
        (3 * auc_10 + 4 * auc_m3) / 7
    )
    assert ref.reference_mean("gauc", y_true, y_score, group, query_weight="positives")[
        0
    ] == approx((1 * auc_10 + 2 * auc_m3) / 3)
    assert ref.reference_mean("gauc", y_true, y_score, group, replace_undefined_by=0.0)[
        0
    ] == approx((auc_10 + auc_m3 + 0) / 3)
    assert ref.reference_mean("gauc", y_true, y_score, group, ties="optimistic")[0] == approx(
        (auc_10 + 1) / 2
    )
    assert ref.reference_mean("gauc", y_true, y_score, group, ties="pessimistic")[0] == approx(
        (auc_10 + 3 / 4) / 2
    )


def test_reference_mean_hit_rate_micro_and_macro():
    # query 1: labels (1, 1, 0) scores (1, 3, 2), k=1 -> hits 1 of 2
    # query 2: labels (0, 1) scores (2, 1), k=1 -> hits 0 of 1 (k=2: 1 of 1)
    # query 3: no relevant row
    group = [1, 2, 1, 3, 2, 1]
    y_true = [1, 0, 1, 0, 1, 0]
    y_score = [1.0, 2.0, 3.0, 1.0, 1.0, 2.0]
    assert ref.reference_mean("hit_rate", y_true, y_score, group, k=1)[0] == approx((1 + 0 + 0) / 3)
    assert ref.reference_mean("hit_rate", y_true, y_score, group, k=1, average="micro")[
        0
    ] == approx((1 + 0) / (2 + 1))
    # k=2: query 2's relevant row is at rank 2
    assert ref.reference_mean("hit_rate", y_true, y_score, group, k=2, average="micro")[
        0
    ] == approx((1 + 1) / (2 + 1))
    assert ref.reference_mean("hit_rate", y_true, y_score, group, k=3, average="micro")[
        0
    ] == approx((2 + 1) / (2 + 1))


def test_reference_mean_err_max_grade_default_is_the_fixed_scale_0_to_4():
    # no max_grade: g_max = 4 whatever the labels (R(1) = 1/16, R(3) = 7/16)
    group = [1, 1, 2]
    y_true = [1, 0, 3]
    y_score = [1.0, 2.0, 0.0]
    expected = ((1 / 16) / 2 + 7 / 16) / 2
    assert ref.reference_mean("err", y_true, y_score, group)[0] == approx(expected)
