"""Aligned runs in a one-run call: the refusal shows the spelling that works.

PerQueryDifferenceDisplay compares one run with a baseline, so ``.run(name)`` alone
cannot feed it: its message names ``y_score_baseline=``, and that spelling gives the
hand-computed per-query differences.
"""

import re

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from sklearn_rank_metrics import (  # noqa: E402
    PerQueryDifferenceDisplay,
    align_trec_runs,
    ndcg_score,
)

QRELS = {"q1": {"a": 1, "b": 0, "c": 2}, "q2": {"d": 1, "e": 0}}
RUNS = {
    "bm25": {"q1": {"a": 0.5, "b": 0.4, "c": 0.1}, "q2": {"d": 0.3, "e": 0.6}},
    "dense": {"q1": {"a": 0.2, "b": 0.1, "c": 0.9}, "q2": {"d": 0.8, "e": 0.1}},
}


def test_difference_display_refusal_names_the_baseline_spelling():
    aligned = align_trec_runs(QRELS, RUNS)
    with pytest.raises(TypeError, match=re.escape(
        "aligned.run('dense'), y_score_baseline=aligned.scores['bm25'], name='dense', "
        "baseline_name='bm25'"
    )):
        PerQueryDifferenceDisplay.from_predictions(aligned, metric="map")


def test_the_suggested_spelling_gives_the_hand_computed_differences():
    aligned = align_trec_runs(QRELS, RUNS)
    display = PerQueryDifferenceDisplay.from_predictions(
        aligned.run("dense"), y_score_baseline=aligned.scores["bm25"],
        name="dense", baseline_name="bm25", metric="map",
    )
    plt.close("all")
    # q1: dense ranks c, a, b -> AP (1/1 + 2/2) / 2 = 1; bm25 ranks a, b, c -> (1/1 + 2/3) / 2
    # q2: dense ranks d first -> 1; bm25 ranks e, d -> 1/2
    assert sorted(display.differences) == pytest.approx(sorted([1 - 5 / 6, 1 - 1 / 2]))


def test_a_one_run_metric_still_suggests_run():
    aligned = align_trec_runs(QRELS, RUNS)
    with pytest.raises(TypeError, match=re.escape("pick one with .run(name), e.g. ndcg_score(")):
        ndcg_score(aligned)
