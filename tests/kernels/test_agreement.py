"""The agreement kernels, called directly, against brute force and hand computations."""

import itertools

import numpy as np
import pytest

from sklearn_rank_metrics._engine._paired_rows import ranked_list
from sklearn_rank_metrics._kernels import _agreement as kernels


def _lists(codes, a, b, break_ties=False):
    offsets = np.concatenate(([0], np.cumsum(np.bincount(codes))))
    return (ranked_list(codes, offsets, a, break_ties=break_ties),
            ranked_list(codes, offsets, b, break_ties=break_ties))


def test_greater_before_is_the_count_of_earlier_greater_keys():
    rng = np.random.default_rng(0)
    for n in (1, 2, 3, 7, 64, 100):
        keys = rng.integers(0, 5, n)
        expected = [int(np.sum(keys[:i] > keys[i])) for i in range(n)]
        assert kernels.greater_before(keys).tolist() == expected


def test_rbo_by_hand_two_tied_blocks():
    """[(r1 r2) (r3 r4)] with itself, p = 0.9, ties "a": the agreements are
    1/2, 1, 2.5/3, 1 at depths 1..4, then 1 beyond (X_l / l)."""
    codes = np.zeros(4, dtype=np.intp)
    scores = np.array([1.0, 1.0, 0.0, 0.0])
    list_a, list_b = _lists(codes, scores, scores)
    p = 0.9
    expected = (1 - p) / p * (0.5 * p + p**2 + 2.5 / 3 * p**3 + p**4 + p**5 / (1 - p))
    values, defined = kernels.rbo(codes, list_a, list_b, p=p, ties="a", bound="ext")
    assert values[0] == pytest.approx(expected, abs=1e-15) and defined[0]
    values, _ = kernels.rbo(codes, list_a, list_b, p=p, ties="b", bound="ext")
    assert values[0] == pytest.approx(1.0, abs=1e-15)


def test_rbo_query_with_an_empty_list_is_undefined():
    codes = np.array([0, 0, 1, 1])
    a = np.array([2.0, 1.0, -np.inf, -np.inf])
    b = np.array([1.0, 2.0, 1.0, 2.0])
    list_a, list_b = _lists(codes, a, b)
    values, defined = kernels.rbo(codes, list_a, list_b, p=0.9, ties="w", bound="min")
    assert defined.tolist() == [True, False] and values[1] == 0.0


def _kendall_brute(a, b):
    n = len(a)
    numerator = tied_a = tied_b = 0
    for i, j in itertools.combinations(range(n), 2):
        sa, sb = np.sign(a[i] - a[j]), np.sign(b[i] - b[j])
        numerator += sa * sb
        tied_a += sa == 0
        tied_b += sb == 0
    pairs = n * (n - 1) / 2
    return numerator / np.sqrt(pairs - tied_a) / np.sqrt(pairs - tied_b)


def test_kendall_tau_b_against_the_pairs():
    rng = np.random.default_rng(1)
    sizes = rng.integers(2, 12, 30)
    codes = np.repeat(np.arange(len(sizes)), sizes)
    a = rng.integers(0, 4, len(codes)).astype(float)
    b = rng.integers(0, 4, len(codes)).astype(float)
    values, defined = kernels.kendall_tau_b(codes, len(sizes), a, b)
    for q in range(len(sizes)):
        rows = codes == q
        if defined[q]:
            assert values[q] == pytest.approx(_kendall_brute(a[rows], b[rows]), abs=1e-12)
        else:
            assert len(set(a[rows])) == 1 or len(set(b[rows])) == 1


def test_tau_ap_by_hand():
    codes = np.zeros(4, dtype=np.intp)
    a = np.array([4.0, 3.0, 2.0, 1.0])
    values, defined = kernels.tau_ap(codes, 1, a, np.array([3.0, 4.0, 2.0, 1.0]))
    assert values[0] == pytest.approx(2 / 3 * 2 - 1) and defined[0]  # C = 0, 2, 3
    values, defined = kernels.tau_ap(np.zeros(1, dtype=np.intp), 1, a[:1], a[:1])
    assert not defined[0]


def test_first_tie():
    codes = np.array([0, 0, 1, 1, 1])
    assert kernels.first_tie(codes, np.array([1.0, 2.0, 3.0, 1.0, 3.0])) == 2
    assert kernels.first_tie(codes, np.array([1.0, 1.5, 3.0, 1.0, 2.0])) is None


def test_in_top_k_and_overlap_average_over_every_tie_order():
    """The "average" overlap is the mean over all orders of the tied rows of both
    rankings, enumerated."""
    a = np.array([3.0, 2.0, 2.0, 2.0, 1.0, -np.inf])
    b = np.array([2.0, 2.0, 3.0, 1.0, 1.0, 1.0])
    codes = np.zeros(len(a), dtype=np.intp)
    list_a, list_b = _lists(codes, a, b)
    for k in range(1, 7):
        shares = kernels.in_top_k(list_a, k, "average")
        assert shares.sum() == pytest.approx(min(k, 5))
        total = count = 0
        for order_a in itertools.permutations(range(6)):
            if any(a[order_a[i]] < a[order_a[i + 1]] for i in range(5)):
                continue
            top_a = {r for r in order_a[:k] if a[r] > -np.inf}
            for order_b in itertools.permutations(range(6)):
                if any(b[order_b[i]] < b[order_b[i + 1]] for i in range(5)):
                    continue
                total += len(top_a & set(order_b[:k])) / k
                count += 1
        value = kernels.overlap_at_k(codes, 1, list_a, list_b, k, "average")[0]
        assert value == pytest.approx(total / count, abs=1e-12)
    input_a, input_b = _lists(codes, a, b, break_ties=True)
    # input order: a's top 2 rows 0, 1; b's rows 2, 0
    assert kernels.overlap_at_k(codes, 1, input_a, input_b, 2, "input")[0] == 0.5
