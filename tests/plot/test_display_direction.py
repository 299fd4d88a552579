"""PerQueryDifferenceDisplay reads the metric's declared direction (fall-out: lower).

Three queries of labels [1, 0, 0]; the model ranks the relevant row first in query
0 (fall-out@1 = 0, the baseline 1/2), a non-relevant one first in query 1 (1/2, the
baseline 0) and ties the baseline in query 2 (0 both): by hand, better on 1 query,
worse on 1, tied on 1.
"""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.colors import to_rgba  # noqa: E402

from sklearn_rank_metrics import PerQueryDifferenceDisplay  # noqa: E402

Y = [1, 0, 0] * 3
GROUP = [0, 0, 0, 1, 1, 1, 2, 2, 2]
MODEL = [3, 2, 1, 2, 3, 1, 3, 2, 1]
BASELINE = [2, 3, 1, 3, 2, 1, 3, 2, 1]


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def test_fallout_difference_counts_a_drop_as_better():
    display = PerQueryDifferenceDisplay.from_predictions(
        Y, MODEL, BASELINE, GROUP, metric="fallout@1"
    )
    # model - baseline, from the largest improvement (the largest drop) to the largest loss
    assert display.differences.tolist() == [-0.5, 0.0, 0.5]
    assert display.query_ids.tolist() == [0, 2, 1]
    assert (display.n_better, display.n_worse, display.n_tied) == (1, 1, 1)
    colours = [bar.get_facecolor() for bar in display.bars_]
    assert colours == [to_rgba("tab:green"), to_rgba("tab:gray"), to_rgba("tab:red")]
    assert "better on 1, worse on 1, tied on 1" in display.ax_.get_title()


def test_greater_is_better_metric_keeps_its_order():
    display = PerQueryDifferenceDisplay.from_predictions(Y, MODEL, BASELINE, GROUP, metric="mrr@1")
    assert display.differences.tolist() == [1.0, 0.0, -1.0]
    assert display.query_ids.tolist() == [0, 2, 1]
    assert (display.n_better, display.n_worse, display.n_tied) == (1, 1, 1)
    colours = [bar.get_facecolor() for bar in display.bars_]
    assert colours == [to_rgba("tab:green"), to_rgba("tab:gray"), to_rgba("tab:red")]


def test_display_made_by_hand_reads_the_direction():
    display = PerQueryDifferenceDisplay(
        differences=np.array([-0.25, -0.5]), query_ids=np.array([7, 8]), metric="fallout@5"
    )
    assert (display.n_better, display.n_worse) == (2, 0)
