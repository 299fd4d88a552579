"""The shared arithmetic of the kernels (``_kernels/_combinatorics.py``).

Log binomials, the hypergeometric pmf and the safe division, against Python's exact
integers and fractions and against scipy.stats.
"""

import math

import numpy as np


def test_log_binomial_by_betaln_against_exact_integers():
    # math.log of Python's exact big-integer binomial; the error the docstring states
    from sklearn_rank_metrics._kernels._combinatorics import log_comb_by_betaln

    n = np.array([0, 5, 60, 2000, 2000, 4000, 20000])
    k = np.array([0, 2, 30, 1, 1000, 3999, 3])
    exact = [math.log(math.comb(int(a), int(b))) for a, b in zip(n, k, strict=True)]
    np.testing.assert_allclose(log_comb_by_betaln(n, k), exact, rtol=0, atol=5e-11)
    assert abs(log_comb_by_betaln(np.array([2000]), np.array([1]))[0] - math.log(2000)) < 1e-12
    assert np.isneginf(log_comb_by_betaln(np.array([3, 3]), np.array([-1, 4]))).all()
