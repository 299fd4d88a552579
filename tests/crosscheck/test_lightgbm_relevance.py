"""``convention="lightgbm"`` counts a row relevant as LightGBM's MAP does: label > 0.5.

LightGBM's ``map_metric.hpp`` stores labels as float32 (``label_t``) and counts a
row relevant when ``label > 0.5f``, both for the hits and for the number of
relevant rows of a query (``npos``); its NDCG refuses labels that are not integers.
The reference values are LightGBM's own (``lightgbm_eval`` of the booster
cross-checks: the metric of the init scores before any boosting round), and a hand
computation for the measures LightGBM does not have.
"""

import numpy as np
import pytest

import sklearn_rank_metrics as srm
from sklearn_rank_metrics import evaluate
from tests.crosscheck.test_crosscheck_boosters import booster_map, lightgbm_eval

KS = (1, 2, 3, 5)


def test_the_review_case():
    # query 1: the 0.3 row is below 0.5 for LightGBM: no relevant row, MAP 1;
    # query 2: its relevant row at rank 2: (1/2) / min(2, 1); mean (1 + 0.5) / 2
    y, score, qid = [0.3, 0, 1, 0], [0.5, 0.9, 0.4, 0.8], [1, 1, 2, 2]
    tool = lightgbm_eval(np.asarray(y), np.asarray(score), [2, 2], "map", [2])["map@2"]
    assert tool == 0.75
    assert evaluate(y, score, qid, metrics=["map@2"], convention="lightgbm") == {
        "map@2": tool
    }
    got = srm.mean_average_precision_score(y, score, qid, k=2, convention="lightgbm")
    assert got == tool


# labels either side of LightGBM's float32 threshold: 0.5 + 2**-25 rounds to 0.5
# (not relevant), the next float64 above it to 0.50000006 (relevant)
BOUNDARY = [
    0.3,
    0.5,
    0.5 + 2.0**-25,
    float(np.nextafter(0.5 + 2.0**-25, 1.0)),
    0.50000001,
    0.5000001,
    0.7,
    -1.0,
    2.0,
]


@pytest.mark.parametrize("label", BOUNDARY)
def test_one_fractional_label_against_lightgbm(label):
    # the label in question on the top row of query 1, or alone below two
    # non-relevant rows in query 2; query 3 always has a relevant row
    y = np.array([label, 0, 1, 0, 0, label, 1, 0, 0])
    score = np.array([0.9, 0.5, 0.1, 0.9, 0.8, 0.7, 0.3, 0.6, 0.2])
    sizes = [3, 3, 3]
    qid = np.repeat([1, 2, 3], 3)
    tool = lightgbm_eval(y, score, sizes, "map", KS)
    names = [f"map@{k}" for k in KS]
    ours = evaluate(y, score, qid, metrics=names, convention="lightgbm")
    assert ours == pytest.approx({name: tool[name] for name in names}, rel=1e-12, abs=0)
    for k in KS:
        got = srm.mean_average_precision_score(y, score, qid, k=k, convention="lightgbm")
        assert got == pytest.approx(tool[f"map@{k}"], rel=1e-12, abs=0)


def test_random_fractional_labels_against_lightgbm():
    rng = np.random.default_rng(36)
    sizes = rng.integers(1, 9, size=60)
    n = int(sizes.sum())
    y = rng.choice([0.0, 0.2, 0.5, 0.6, 1.0, 1.5, 3.0], size=n)
    score = rng.integers(0, 5, size=n).astype(float)  # ties in input order
    qid = np.repeat(np.arange(len(sizes)), sizes)
    tool = lightgbm_eval(y, score, sizes, "map", KS)
    names = [f"map@{k}" for k in KS]
    ours = evaluate(y, score, qid, metrics=names, convention="lightgbm")
    assert ours == pytest.approx({name: tool[name] for name in names}, rel=1e-9, abs=0)
    # the former rule (relevant = label > 0) gives another number on these labels
    assert any(
        booster_map(y, score, qid, k) != pytest.approx(tool[f"map@{k}"]) for k in KS
    )


def test_other_binary_metrics_read_the_same_relevance():
    # LightGBM has no P@k; by hand with label > 0.5: query 1's top two rows hold
    # no relevant row (0 at 0.9, 0.3 at 0.5), query 2's one (1 at 0.4): (0 + 1/2) / 2
    y, score, qid = [0.3, 0, 1, 0], [0.5, 0.9, 0.4, 0.8], [1, 1, 2, 2]
    got = evaluate(y, score, qid, metrics=["p@2", "recall@2"], convention="lightgbm")
    # recall: query 1 has no relevant row (0 by default), query 2 finds its one
    assert got == {"p@2": 0.25, "recall@2": 0.5}


def test_explicit_relevance_level_wins():
    # relevance_level=0.2: query 1's 0.3 row (rank 2) is relevant: (1/2) / 1;
    # query 2 as before, 0.5; mean 0.5
    y, score, qid = [0.3, 0, 1, 0], [0.5, 0.9, 0.4, 0.8], [1, 1, 2, 2]
    got = evaluate(
        y, score, qid, metrics=["map@2"], convention="lightgbm", relevance_level=0.2
    )
    assert got == {"map@2": 0.5}
    # a metric function's explicit None: relevant = label > 0, the same 0.5
    got = srm.mean_average_precision_score(
        y, score, qid, k=2, convention="lightgbm", relevance_level=None
    )
    assert got == 0.5
