"""The kernels that tell judged rows apart (``_kernels/_judged.py``), called directly.

bpref as trec_eval defines it (``m_bpref.c``): with ``R`` judged relevant rows and
``N`` judged non-relevant ones, each retrieved relevant row with ``n`` judged
non-relevant retrieved rows above it adds ``1 - min(n, R) / min(N, R)`` (1 when
``N = 0``), divided by ``R``; a negative label is in the pool but unjudged
(``form_res_rels.c``). Judged@k: the judged rows among the ``min(k, n_retrieved)``
top ones. By hand for a query without ties; under ``ties="average"`` the mean over
every order of the tied rows (``tests/support/tie_orders.py``).
"""

import numpy as np
import pytest

from sklearn_rank_metrics._engine._ranked_groups import rank_groups
from sklearn_rank_metrics._kernels import _judged
from tests.support.tie_orders import flat_rows, input_order, per_query

INF = float("inf")
# query id: (labels, scores, judged)
QUERIES = {
    "a": ([1, 0, 0, 1, 0, 1], [0.9, 0.8, 0.7, 0.6, 0.5, -INF], [1, 1, 0, 1, 1, 1]),
    "b": ([0, 1, -2, 1, 0, 0], [0.5, 0.5, 0.5, 0.4, 0.3, 0.3], [1, 1, 1, 1, 1, 0]),
    "c": ([0, 0], [0.2, 0.1], [1, 1]),  # no relevant row: bpref 0
}


def _ranked():
    group, y_true, y_score, judged = flat_rows(QUERIES)
    return rank_groups(y_true.astype(float), y_score.astype(float), group, judged=judged == 1)


def _bpref(labels, scores, judged, order):
    in_pool = [bool(j) and y >= 0 for y, j in zip(labels, judged, strict=True)]
    relevant = sum(p and y > 0 for p, y in zip(in_pool, labels, strict=True))
    non_relevant = sum(p and y <= 0 for p, y in zip(in_pool, labels, strict=True))
    total, above = 0.0, 0
    for row in order:
        if scores[row] == -INF or not in_pool[row]:
            continue
        if labels[row] > 0:
            cap = min(non_relevant, relevant)
            total += 1 - min(above, relevant) / cap if cap else 1.0
        else:
            above += 1
    return total / relevant if relevant else 0.0


def _judged_at(k):
    def value(labels, scores, judged, order):
        top = [row for row in order if scores[row] > -INF][:k]
        return sum(bool(judged[row]) for row in top) / len(top) if top else 0.0

    return value


@pytest.mark.parametrize("ties", ["average", "input"])
def test_bpref_and_its_counts(ties):
    got, n_relevant, n_non_relevant = _judged.bpref(_ranked(), ties, None)
    np.testing.assert_allclose(got, per_query(QUERIES, _bpref, ties), rtol=1e-12, atol=1e-15)
    # a: R 3 (one unretrieved), N 2 (the unjudged row is neither); b: the -2 is unjudged
    np.testing.assert_array_equal(n_relevant, [3, 2, 0])
    np.testing.assert_array_equal(n_non_relevant, [2, 2, 2])


@pytest.mark.parametrize("ties", ["average", "input"])
@pytest.mark.parametrize("k", [None, 1, 2, 3, 10])
def test_judged_at_k(ties, k):
    got = _judged.judged_at_k(_ranked(), ties, k)
    np.testing.assert_allclose(got, per_query(QUERIES, _judged_at(k), ties), rtol=1e-12, atol=1e-15)


def test_the_query_without_ties_by_hand():
    ranked = _ranked()
    # a: relevant at ranks 1 (no judged non-relevant above) and 4 (one above: rank 2;
    # rank 3 is unjudged), the third relevant row unretrieved: (1 + 1 - 1/2) / 3
    assert _judged.bpref(ranked, "input", None)[0][0] == pytest.approx(1.5 / 3, rel=1e-15)
    assert _judged.judged_at_k(ranked, "input", 3)[0] == 2 / 3
    assert _judged.judged_at_k(ranked, "input", None)[0] == 4 / 5  # 5 retrieved rows


def test_judged_flags_in_rank_order():
    ranked = _ranked()
    flags = _judged.judged_in_rank_order(ranked, "input")
    expected = []
    for query in sorted(QUERIES):
        _, scores, judged = QUERIES[query]
        expected += [bool(judged[row]) for row in input_order(scores)]
    np.testing.assert_array_equal(flags, expected)
    every_row = rank_groups([1.0, 0.0], [0.2, 0.1], [0, 0])  # no mask: every row judged
    np.testing.assert_array_equal(_judged.judged_in_rank_order(every_row, "input"), [True, True])
