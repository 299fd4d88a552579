"""ranking_report against the slow reference and hand-computed standard errors."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from sklearn_rank_metrics import ranking_report
from tests.support.reference import reference_mean


def _data(seed=0, n_queries=40):
    rng = np.random.default_rng(seed)
    group = rng.integers(0, n_queries, 600)
    y_true = rng.choice([0, 0, 0, 1, 2], size=600).astype(float)
    y_true[group < 4] = 0  # queries without a relevant row
    y_score = np.round(rng.random(600), 1)  # ties
    return y_true, y_score, group


def _parse(text):
    """Rows of the text report: label cells, then the five numbers."""
    lines = text.splitlines()
    assert lines[0].split() == ["mean", "std", "err", "queries", "undefined", "skipped"]
    assert lines[1] == ""
    return [line.split() for line in lines[2:]]


@pytest.mark.parametrize(
    "metric, reference_name, params",
    [
        ("ndcg@10", "ndcg", {"k": 10}),
        ("map", "map", {}),
        ("mrr@5", "mrr", {"k": 5}),
        ("p@3", "precision", {"k": 3}),
        ("recall@10", "recall", {"k": 10}),
    ],
)
@pytest.mark.parametrize("policy", [None, "skip"])
def test_mean_std_err_and_counts_match_the_reference(metric, reference_name, params, policy):
    y_true, y_score, group = _data()
    report = ranking_report(
        y_true, y_score, group, metrics=[metric], replace_undefined_by=policy, output_dict=True
    )[metric]
    mean, per_query = reference_mean(
        reference_name,
        y_true,
        y_score,
        group,
        replace_undefined_by=0.0 if policy is None else policy,
        **params,
    )
    per_query = np.asarray(per_query, dtype=float)
    n_without_relevant = sum(not np.any(y_true[group == q] > 0) for q in np.unique(group))
    kept = per_query[~np.isnan(per_query)]
    assert report["mean"] == pytest.approx(mean, abs=1e-12)
    assert report["std_err"] == pytest.approx(stats.sem(kept), abs=1e-12)
    assert report["n_undefined"] == n_without_relevant == 4
    assert report["n_skipped"] == (4 if policy == "skip" else 0)
    assert report["n_queries"] == len(np.unique(group)) - report["n_skipped"]


def test_weighted_standard_error_by_hand():
    y_true = [1, 0, 0, 1, 1, 0, 0, 0, 1]
    y_score = [3, 2, 1, 3, 2, 1, 3, 2, 1]
    group = [0, 0, 0, 1, 1, 1, 2, 2, 2]
    weights = [1, 1, 1, 2, 2, 2, 3, 3, 3]  # query weights 1, 2, 3
    report = ranking_report(
        y_true, y_score, group, metrics="mrr", sample_weight=weights, output_dict=True
    )["mrr"]
    values, w = np.array([1.0, 1.0, 1.0 / 3.0]), np.array([1.0, 2.0, 3.0])
    mean = (1 * 1 + 2 * 1 + 3 / 3) / 6
    spread = sum(wq**2 * (vq - mean) ** 2 for vq, wq in zip(values, w, strict=True)) * 3 / 2
    assert report["mean"] == pytest.approx(mean)
    assert report["std_err"] == pytest.approx(math.sqrt(spread) / 6)


def test_text_report_has_the_dict_numbers():
    y_true, y_score, group = _data(1)
    metrics = ["ndcg@10", "map", "gauc"]
    as_dict = ranking_report(y_true, y_score, group, metrics=metrics, output_dict=True)
    rows = _parse(ranking_report(y_true, y_score, group, metrics=metrics, digits=3))
    assert [row[0] for row in rows] == metrics
    for row in rows:
        stats_ = as_dict[row[0]]
        assert float(row[1]) == pytest.approx(stats_["mean"], abs=5e-4)
        assert float(row[2]) == pytest.approx(stats_["std_err"], abs=5e-4)
        assert len(row[1].split(".")[1]) == 3
        assert [int(cell) for cell in row[3:]] == [
            stats_["n_queries"],
            stats_["n_undefined"],
            stats_["n_skipped"],
        ]
    # gauc skips one-class queries by default: the 4 queries without a relevant row at least
    assert as_dict["gauc"]["n_skipped"] >= 4
    assert as_dict["gauc"]["n_skipped"] == as_dict["gauc"]["n_undefined"]


def test_several_models_side_by_side():
    y_true, y_score, group = _data(2)
    other = np.random.default_rng(9).random(len(y_true))
    models = {"model": y_score, "random": other}
    metrics = ["ndcg@10", "map"]
    both = ranking_report(y_true, models, group, metrics=metrics, output_dict=True)
    assert list(both) == ["model", "random"]
    for name, scores in models.items():
        single = ranking_report(y_true, scores, group, metrics=metrics, output_dict=True)
        assert both[name] == single
    rows = _parse(ranking_report(y_true, models, group, metrics=metrics))
    # the metric name only on its first line; the model names under each metric
    assert [row[:2] for row in rows[::2]] == [["ndcg@10", "model"], ["map", "model"]]
    assert [row[0] for row in rows[1::2]] == ["random", "random"]
    assert float(rows[1][1]) == pytest.approx(both["random"]["ndcg@10"]["mean"], abs=5e-5)
    assert float(rows[2][2]) == pytest.approx(both["model"]["map"]["mean"], abs=5e-5)


def test_dataframe_of_model_scores_and_dataframe_output():
    y_true, y_score, group = _data(2)
    other = np.random.default_rng(9).random(len(y_true))
    models = {"model": y_score, "random": other}
    metrics = ["ndcg@10", "map"]
    frame_in = pd.DataFrame(models, index=np.arange(len(y_true))[::-1])
    as_dict = ranking_report(y_true, models, group, metrics=metrics, output_dict=True)
    # a DataFrame of scores is the same models as the mapping (as compare takes them)
    assert ranking_report(y_true, frame_in, group, metrics=metrics, output_dict=True) == as_dict
    assert ranking_report(y_true, frame_in, group, metrics=metrics) == ranking_report(
        y_true, models, group, metrics=metrics
    )
    table = ranking_report(y_true, frame_in, group, metrics=metrics, as_frame=True)
    assert isinstance(table, pd.DataFrame)
    assert list(table.columns) == [
        "model", "metric", "mean", "std_err", "n_queries", "n_undefined", "n_skipped"
    ]
    assert table[["metric", "model"]].values.tolist() == [
        ["ndcg@10", "model"], ["ndcg@10", "random"], ["map", "model"], ["map", "random"]
    ]
    for row in table.to_dict("records"):
        expected = as_dict[row["model"]][row["metric"]]
        assert {key: row[key] for key in expected} == expected
    # one model: no model column; with a baseline, the comparison's columns
    single = ranking_report(y_true, y_score, group, metrics=metrics, as_frame=True)
    assert list(single.columns[:2]) == ["metric", "mean"] and len(single) == 2
    compared = ranking_report(
        y_true, frame_in, group, metrics=metrics, as_frame=True, baseline="random",
        n_resamples=200, random_state=0,
    )
    assert compared["p_value_t"].isna().tolist() == [False, True, False, True]
    with pytest.raises(ValueError, match="not both"):
        ranking_report(y_true, frame_in, group, output_dict=True, as_frame=True)


def test_one_query_has_no_standard_error():
    report = ranking_report([1, 0], [0.2, 0.1], [0, 0], metrics="mrr", output_dict=True)["mrr"]
    assert report["mean"] == 1.0 and math.isnan(report["std_err"])
    assert report["n_queries"] == 1


def test_errors():
    with pytest.raises(ValueError, match="'digits' parameter of ranking_report"):
        ranking_report([1, 0], [0.2, 0.1], digits=-1)
    with pytest.raises(ValueError, match="'y_score' parameter of ranking_report is an empty"):
        ranking_report([1, 0], {}, [0, 0])
    with pytest.raises(ValueError, match="'metrics' parameter of ranking_report names"):
        ranking_report([1, 0], [0.2, 0.1], metrics=["map", "map"])
    with pytest.raises(ValueError, match="y_score"):
        ranking_report([1, 0], [0.2, np.nan], [0, 0])


def test_baseline_adds_the_paired_comparison():
    y_true, y_score, group = _data(3)
    rng = np.random.default_rng(4)
    models = {"model": y_score, "noisy": y_score + rng.normal(0, 0.3, len(y_score))}
    report = ranking_report(
        y_true, models, group, metrics=["ndcg@10", "map"], baseline="noisy",
        n_resamples=500, random_state=0, output_dict=True,
    )
    # only the compared model gets the comparison; the baseline's entry is unchanged
    assert "mean_difference" not in report["noisy"]["map"]
    for metric, name in (("ndcg@10", "ndcg"), ("map", "map")):
        params = {"k": 10} if name == "ndcg" else {}
        _, ours = reference_mean(name, y_true, y_score, group, **params)
        _, theirs = reference_mean(name, y_true, models["noisy"], group, **params)
        entry = report["model"][metric]
        assert entry["mean_difference"] == pytest.approx(np.mean(ours - theirs), abs=1e-12)
        assert entry["p_value_t"] == pytest.approx(stats.ttest_rel(ours, theirs).pvalue)
        assert entry["ci_low_percentile"] < entry["mean_difference"] < entry[
            "ci_high_percentile"
        ]
        assert 0 < entry["p_value_permutation"] <= 1
    text = ranking_report(
        y_true, models, group, metrics=["ndcg@10", "map"], baseline="noisy",
        n_resamples=500, random_state=0,
    )
    assert "Paired comparison with 'noisy'" in text
    comparison = text.split("Paired comparison", 1)[1]
    # runs as rows (model: a, noisy: b), then the comparison's differences per metric
    difference = next(line for line in comparison.splitlines() if "difference" in line)
    assert difference.split()[:6] == ["a", "model", "vs", "b", "noisy", "difference"]
    assert difference.split()[6:] == [
        f"{report['model'][metric]['mean_difference']:+.4f}" for metric in ("ndcg@10", "map")
    ]


def test_baseline_errors():
    y_true, y_score, group = _data(3)
    with pytest.raises(ValueError, match="needs 'y_score' to be a mapping"):
        ranking_report(y_true, y_score, group, baseline="model")
    with pytest.raises(ValueError, match="cannot be combined with 'sample_weight'"):
        ranking_report(y_true, {"a": y_score, "b": -y_score}, group, baseline="b",
                       sample_weight=np.ones(len(y_true)))
    with pytest.raises(ValueError, match="'baseline' parameter of compare must be one of"):
        ranking_report(y_true, {"a": y_score, "b": -y_score}, group, baseline="c")


def test_default_metrics_are_the_issue_list():
    # ndcg@10, map, mrr (whole ranking), p@10, recall@10; mrr differs from mrr@10 here
    y_true = [0] * 12 + [1]
    y_score = list(range(13, 0, -1))  # the relevant row is ranked 13th
    report = ranking_report(y_true, y_score, [0] * 13, output_dict=True)
    assert list(report) == ["ndcg@10", "map", "mrr", "p@10", "recall@10"]
    assert report["mrr"]["mean"] == pytest.approx(1 / 13)
