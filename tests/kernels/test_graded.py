"""The graded kernels (``_kernels/_graded.py``): DCG, ideal DCG, ERR and their gains.

Work done block by block over whole queries gives the same numbers for any block size.
The ideal DCG counts labels per (level, query) in blocks of consecutive queries
(``_graded._LEVEL_COUNT_BLOCK_ROWS`` rows each) to keep its temporaries cache-sized;
tiny blocks put many block boundaries into small data, and the result must still be
scikit-learn's NDCG, including when a non-integer label shows up only in a late block
(the counts must then be abandoned for the sorting path).
"""

import numpy as np
import pytest
from sklearn.metrics import ndcg_score as sklearn_ndcg_score

from sklearn_rank_metrics import ndcg_score
from sklearn_rank_metrics._kernels import _graded


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
