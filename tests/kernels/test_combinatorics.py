"""The shared arithmetic of the kernels (``_kernels/_combinatorics.py``).

Log binomials, the hypergeometric pmf and the safe division, against Python's exact
integers and fractions and against scipy.stats.
"""

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats


def test_log_binomial_by_betaln_against_exact_integers():
    # math.log of Python's exact big-integer binomial; the error the docstring states
    from sklearn_rank_metrics._kernels._combinatorics import log_comb_by_betaln

    n = np.array([0, 5, 60, 2000, 2000, 4000, 20000])
    k = np.array([0, 2, 30, 1, 1000, 3999, 3])
    exact = [math.log(math.comb(int(a), int(b))) for a, b in zip(n, k, strict=True)]
    np.testing.assert_allclose(log_comb_by_betaln(n, k), exact, rtol=0, atol=5e-11)
    assert abs(log_comb_by_betaln(np.array([2000]), np.array([1]))[0] - math.log(2000)) < 1e-12
    assert np.isneginf(log_comb_by_betaln(np.array([3, 3]), np.array([-1, 4]))).all()


N = np.array([0, 1, 5, 6, 10, 30, 30, 3, 3])
R = np.array([0, 1, 2, 6, 3, 15, 0, -1, 4])  # the last two outside 0..n


def _exact_log_comb(n, r):
    return [math.log(math.comb(int(a), int(b))) if 0 <= b <= a else -math.inf
            for a, b in zip(n, r, strict=True)]  # fmt: skip


def test_log_comb_against_exact_integers():
    from sklearn_rank_metrics._kernels._combinatorics import log_comb

    np.testing.assert_allclose(log_comb(N, R), _exact_log_comb(N, R), rtol=1e-13, atol=1e-13)


def test_log_comb_of_integers_from_a_table_of_log_factorials():
    from sklearn_rank_metrics._kernels._combinatorics import log_comb_of_integers, log_factorials

    table = log_factorials(30)
    np.testing.assert_allclose(table, [math.lgamma(i + 1) for i in range(31)], rtol=1e-15)
    assert table[0] == 0.0 and table[5] == pytest.approx(math.log(120), rel=1e-15)
    got = log_comb_of_integers(N, R, table)
    np.testing.assert_allclose(got, _exact_log_comb(N, R), rtol=1e-13, atol=1e-13)


def test_comb_ratio_against_fractions():
    from sklearn_rank_metrics._kernels._combinatorics import comb_ratio

    # C(m - t, r - 1) / C(m, r): the first relevant row of a tied block at offset t
    m, r = 7, 3
    t = np.arange(1, 6)
    expected = [Fraction(math.comb(m - int(a), r - 1), math.comb(m, r)) for a in t]
    np.testing.assert_allclose(comb_ratio(m - t, np.full(5, r - 1), m, r),
                               [float(e) for e in expected], rtol=1e-13)  # fmt: skip
    assert sum(expected) == 1  # the first relevant row is somewhere in 1..m - r + 1
    assert comb_ratio(np.array([2]), np.array([3]), np.array([5]), np.array([2]))[0] == 0.0


def test_hypergeometric_pmf_is_scipys():
    from sklearn_rank_metrics._kernels._combinatorics import hypergeometric_pmf

    j = np.arange(-1, 6)
    got = hypergeometric_pmf(j, np.full(7, 12), np.full(7, 5), np.full(7, 4))
    np.testing.assert_allclose(got, stats.hypergeom.pmf(j, 12, 5, 4), rtol=1e-13, atol=1e-15)
    assert got.sum() == pytest.approx(1.0, rel=1e-14)


def test_safe_divide_gives_0_where_the_denominator_is_not_positive():
    from sklearn_rank_metrics._kernels._combinatorics import safe_divide

    numerator = np.array([1.0, 2.0, 3.0, 4.0])
    denominator = np.array([2.0, 0.0, -1.0, 8.0])
    np.testing.assert_array_equal(safe_divide(numerator, denominator), [0.5, 0.0, 0.0, 0.5])
    np.testing.assert_array_equal(safe_divide(numerator, np.array([2.0, 4, 1, 8])),
                                  [0.5, 0.5, 3.0, 0.5])  # fmt: skip
    out = numerator.copy()  # in place, into the numerator itself
    assert safe_divide(out, denominator, out=out) is out
    np.testing.assert_array_equal(out, [0.5, 0.0, 0.0, 0.5])
    np.testing.assert_array_equal(safe_divide(np.array([3, 4]), np.array([0, 2])), [0.0, 2.0])
