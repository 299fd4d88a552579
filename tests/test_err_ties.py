"""ERR under ``ties="average"``: the subset means of tied blocks, small and large.

A block of ``m`` tied rows with continuation probabilities ``x_i = 1 - R_i`` reaches
position ``t`` of the block with probability ``e_t``: the mean, over the t-subsets
of its rows, of their product, which is ``E_t / C(m, t)`` with ``E_t`` the t-th
elementary symmetric polynomial, the coefficient of ``z**t`` in ``prod (1 + x_i z)``.
The reference expands that product exactly with fractions (the ``x_i`` are dyadic:
``R(g) = (2**g - 1) / 2**max_grade``), independently of both kernels: blocks of up to
64 rows are built a row at a time, larger ones by pairwise merging. Blocks too large
for a brute-force enumeration of tie orders (tested in ``test_against_reference``)
are checked here.
"""

from fractions import Fraction
from math import comb

import numpy as np
import pytest

from sklearn_rank_metrics import _gain_kernels, expected_reciprocal_rank_score


def _exact_subset_means(keep: list[Fraction], degree: int) -> list[Fraction]:
    coefficients = [Fraction(1)]  # of prod (1 + x z), lowest degree first
    for x in keep:
        coefficients = [
            (coefficients[d] if d < len(coefficients) else 0)
            + (x * coefficients[d - 1] if d >= 1 else 0)
            for d in range(len(coefficients) + 1)
        ]
    m = len(keep)
    return [
        coefficients[d] / comb(m, d) if d <= m else Fraction(0) for d in range(degree + 1)
    ]


def _keep(labels, max_grade):
    return [1 - Fraction(2 ** int(g) - 1, 2**max_grade) for g in labels]


@pytest.mark.parametrize("sizes", [[1, 2, 3, 7, 13], [64, 65, 1, 100], [70, 80]])
def test_subset_means_match_the_exact_expansion(sizes):
    rng = np.random.default_rng(len(sizes))
    degree = 12
    labels = rng.integers(0, 4, sum(sizes))
    keep = _keep(labels, 3)
    got = _gain_kernels._subset_product_means(
        np.array([float(x) for x in keep]), np.array(sizes), degree
    )
    start = 0
    for block, size in enumerate(sizes):
        expected = _exact_subset_means(keep[start : start + size], degree)
        np.testing.assert_allclose(got[block], [float(e) for e in expected], rtol=1e-12, atol=0)
        start += size


@pytest.mark.parametrize("n_tied", [10, 90])
def test_err_of_one_tied_block_is_the_exact_expectation(n_tied):
    # one query: two distinct leading rows, then n_tied tied rows (64 or fewer take
    # the row-by-row path, more the merging path). With S the probability of passing
    # the leading rows, the block's position t (0-based) adds S (e_t - e_{t+1}) / (2 + t + 1)
    rng = np.random.default_rng(n_tied)
    max_grade, k = 3, 8
    lead = [3, 1]
    tied = rng.integers(0, 4, n_tied)
    y_true = np.concatenate((lead, tied)).astype(float)
    y_score = np.concatenate(([2.0, 1.5], np.full(n_tied, 0.5)))
    stop = [Fraction(2**g - 1, 2**max_grade) for g in lead]
    err = stop[0] + (1 - stop[0]) * stop[1] / 2
    reach = (1 - stop[0]) * (1 - stop[1])
    means = _exact_subset_means(_keep(tied, max_grade), k - 2)
    err += sum(reach * (means[t] - means[t + 1]) / (t + 3) for t in range(k - 2))
    got = expected_reciprocal_rank_score(y_true, y_score, k=k, max_grade=max_grade)
    assert got == pytest.approx(float(err), rel=1e-12)
