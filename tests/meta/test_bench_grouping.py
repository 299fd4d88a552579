"""The benchmark harness groups rows for the boosters as ``np.argsort(kind="stable")`` would.

``benchmarks/peers/data.py`` sorts query ids by 16-bit radix digits, so that the
boosters' timed calls do not pay for a slow 64-bit stable sort; the order must be the
stable argsort's exactly (ties in input order), or the boosters would score other rows.
"""

import numpy as np
import pytest

from benchmarks.peers.data import _stable_order_of_ids


@pytest.mark.parametrize(
    "ids",
    [
        np.random.default_rng(0).integers(0, 1000, 5000),  # one digit
        np.random.default_rng(1).integers(-7, 300_000, 5000),  # two digits, negative low
        np.random.default_rng(2).integers(0, 2**40, 500),  # too wide: plain argsort
        np.random.default_rng(3).integers(0, 3, 50).astype(np.uint8),
        np.random.default_rng(4).random(200),  # not integers
        np.zeros(0, dtype=np.int64),
    ],
)
def test_radix_grouping_is_the_stable_argsort(ids):
    assert np.array_equal(_stable_order_of_ids(ids), np.argsort(ids, kind="stable"))
