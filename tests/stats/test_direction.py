"""compare / ranking_report read each metric's declared direction (fall-out: lower).

Ten queries of labels [1, 0, 0, 0]; "good" ranks the relevant row first in every
query (fall-out@1 = 0, nDCG@1 = 1); "bad" ranks a non-relevant row first in the
first eight (fall-out@1 = 1/3, nDCG@1 = 0) and as "good" in the last two. By hand:
"good" is better on 8 queries and level on 2, for both metrics; the exact paired
randomisation p-value is 2 / 2**8 (two of the 256 sign patterns of the 8 non-zero
differences are as extreme).
"""

import numpy as np
import pytest

from sklearn_rank_metrics import compare, ranking_report
from sklearn_rank_metrics._stats._comparison_table import _better
from sklearn_rank_metrics._stats._model_values import greater_is_better

N_QUERIES = 10
Y = np.tile([1, 0, 0, 0], N_QUERIES)
GROUP = np.repeat(np.arange(N_QUERIES), 4)
GOOD = np.tile([4.0, 3.0, 2.0, 1.0], N_QUERIES)
BAD = GOOD.copy()
BAD[: 4 * 8] = np.tile([1.0, 4.0, 3.0, 2.0], 8)
METRICS = ["fallout@1", "ndcg@1"]


def _result(**options):
    return compare(
        Y, {"good": GOOD, "bad": BAD}, GROUP, metrics=METRICS, baseline="bad",
        n_resamples=1024, random_state=0, **options,
    )  # fmt: skip


def test_declared_direction_of_names():
    assert greater_is_better("fallout@10") is False
    assert greater_is_better("fallout(ties=pessimistic)") is False
    assert greater_is_better("ndcg@10") is True
    assert greater_is_better("a label of my own") is True


def test_wins_count_the_lower_fallout():
    columns = _result()._columns
    assert list(columns["metric"]) == METRICS
    np.testing.assert_allclose(columns["mean_a"], [0.0, 1.0])
    np.testing.assert_allclose(columns["mean_b"], [8 / 3 / N_QUERIES, 2 / N_QUERIES])
    # the difference keeps its sign (good - bad); the wins read the direction
    np.testing.assert_allclose(columns["mean_difference"], [-8 / 30, 0.8])
    assert list(columns["wins"]) == [8, 8]
    assert list(columns["ties"]) == [2, 2]
    assert list(columns["losses"]) == [0, 0]


def test_markers_credit_the_lower_fallout():
    result = _result()
    assert float(result._columns["p_value_permutation"][0]) == pytest.approx(2 / 256)
    better = _better(result._columns, "p_value_permutation", 0.05, {"good": 0, "bad": 1})
    assert better == {("good", "fallout@1"): {1}, ("good", "ndcg@1"): {1}}
    lines = result.to_text().splitlines()
    good = next(line for line in lines if line.split()[:2] == ["a", "good"])
    bad = next(line for line in lines if line.split()[:2] == ["b", "bad"])
    assert good.split()[2:] == ["0.0000ᵇ", "1.0000ᵇ"]
    assert bad.split()[2:] == ["0.2667", "0.2000"]
    assert "8/2/0    8/2/0" in result.to_text()
    assert "0.0000$^{b}$" in result.to_latex()


def test_ranking_report_comparison_reads_the_direction():
    report = ranking_report(
        Y, {"good": GOOD, "bad": BAD}, GROUP, metrics=METRICS, baseline="bad", output_dict=True
    )
    fallout = report["good"]["fallout@1"]
    assert (fallout["wins"], fallout["ties"], fallout["losses"]) == (8, 2, 0)
    assert fallout["mean_difference"] == pytest.approx(-8 / 30)
