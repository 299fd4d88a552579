"""ERR under ``ties="average"`` (``_kernels/_err_ties.py``): the subset means of tied blocks.

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

import itertools
import math
from fractions import Fraction
from math import comb

import numpy as np
import pytest

from sklearn_rank_metrics import expected_reciprocal_rank_score
from sklearn_rank_metrics._kernels import _err_ties


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
    got = _err_ties.subset_product_means(
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
    one = np.zeros(len(y_true))
    got = expected_reciprocal_rank_score(y_true, y_score, one, k=k, max_grade=max_grade)
    assert got == pytest.approx(float(err), rel=1e-12)


def _exact_err_of_tied_query(labels, max_grade):
    """ERR (no cutoff) of one query whose rows are all tied: sum_t (e_t - e_{t+1}) / (t+1)."""
    means = _exact_subset_means(_keep(labels, max_grade), len(labels))
    return sum((means[t] - means[t + 1]) / (t + 1) for t in range(len(labels)))


@pytest.mark.parametrize(
    ("n_rows", "zero_share"),
    [
        (150, 0.7),  # few stopping rows among many label-0 ones: the mixture with the ones
        (300, 0.0),  # 300 stopping rows: the subset means end at the negligible depth
        (200, 0.97),  # six stopping rows: e_t falls slowly, every position is computed
    ],
)
def test_err_of_a_large_tied_query_without_cutoff_is_exact(n_rows, zero_share):
    rng = np.random.default_rng(n_rows)
    labels = np.where(rng.random(n_rows) < zero_share, 0, rng.integers(1, 5, n_rows))
    expected = _exact_err_of_tied_query(labels, 4)
    got = expected_reciprocal_rank_score(
        labels.astype(float), np.zeros(n_rows), np.zeros(n_rows), max_grade=4
    )
    assert got == pytest.approx(float(expected), rel=1e-11)


def test_err_of_a_million_tied_rows_in_100_blocks_is_bounded_and_exact():
    # The shape of the hostile-input report: one query of 1M rows with 100 distinct
    # scores, ties="average", no cutoff (it asked for 82 GB before). Each block holds
    # 10,000 rows of which r have label g, the rest label 0. The reference takes
    # another route than the library's subset means: the user stops at the block's
    # (c+1)-th row of label g with probability q**c (1 - q), q = 1 - R(g), and that
    # row's position p is the (c+1)-th smallest of a random r-subset of 0..m-1:
    # P(p = t) = C(t, c) C(m-1-t, r-c-1) / C(m, r).
    import tracemalloc

    from scipy.special import gammaln

    def log_comb(n, k):
        return gammaln(n + 1.0) - gammaln(k + 1.0) - gammaln(n - k + 1.0)

    n_blocks, m, max_grade = 100, 10_000, 4
    rng = np.random.default_rng(7)
    grade = rng.integers(1, 5, n_blocks)
    n_relevant = rng.integers(1, 25, n_blocks)
    labels = np.zeros((n_blocks, m))
    for b in range(n_blocks):  # the test builds its data per block; the library does not
        labels[b, rng.choice(m, n_relevant[b], replace=False)] = grade[b]
    scores = np.repeat(np.arange(n_blocks, 0, -1.0), m)
    keep = 1.0 - (2.0**grade - 1.0) / 2.0**max_grade

    t = np.arange(m, dtype=float)[None, :]
    expected, reach = 0.0, 1.0
    for b in range(n_blocks):
        r, q = n_relevant[b], keep[b]
        c = np.arange(r, dtype=float)[:, None]
        log_p = log_comb(t, c) + log_comb(m - 1.0 - t, r - c - 1.0) - log_comb(m, r)
        valid = (t >= c) & (m - 1.0 - t >= r - c - 1.0)
        position = np.where(valid, np.exp(np.where(valid, log_p, 0.0)), 0.0)
        expected += reach * np.sum(q**c * (1 - q) * position / (b * m + t + 1.0))
        reach *= q**r

    one = np.zeros(labels.size)  # one query, said with one group id

    tracemalloc.start()
    try:
        got = expected_reciprocal_rank_score(
            labels.ravel(), scores, one, ties="average", max_grade=max_grade
        )
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert got == pytest.approx(expected, rel=1e-9)
    assert peak < 400 * 2**20, f"peak {peak / 2**20:.0f} MiB"


def _subset_mean_by_enumeration(keep, size):
    """e_t: the mean, over every t-subset of the block's rows, of the product of their x."""
    products = [math.prod(subset) for subset in itertools.combinations(keep, size)]
    return sum(products) / len(products)


def test_stopping_chances_by_enumeration_of_the_subsets():
    # three blocks, some rows with x = 1 (label 0: the user never stops there)
    blocks = [[Fraction(1, 2), Fraction(15, 16), Fraction(1)],
              [Fraction(1, 4)],
              [Fraction(1), Fraction(13, 16), Fraction(1), Fraction(1, 16)]]  # fmt: skip
    keep = np.array([float(x) for block in blocks for x in block])
    sizes = np.array([len(block) for block in blocks])
    owner = np.repeat(np.arange(len(blocks)), sizes)
    offset = np.concatenate([np.arange(size) for size in sizes])
    got = _err_ties.stopping_chances(keep, sizes, owner, offset)
    expected = [
        _subset_mean_by_enumeration(block, t) - _subset_mean_by_enumeration(block, t + 1)
        for block in blocks
        for t in range(len(block))
    ]
    np.testing.assert_allclose(got, [float(e) for e in expected], rtol=1e-13, atol=1e-16)
    # only some positions asked for: the same values there
    some = _err_ties.stopping_chances(keep, sizes, owner[[0, 5, 7]], offset[[0, 5, 7]])
    np.testing.assert_allclose(some, [float(expected[i]) for i in (0, 5, 7)], rtol=1e-13)
    assert len(_err_ties.stopping_chances(keep, sizes, owner[:0], offset[:0])) == 0
