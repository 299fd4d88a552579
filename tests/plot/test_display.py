"""Displays: the plotted data equal the metric values; labels, legend, PNG output."""

import sys
import warnings

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from sklearn.dummy import DummyRegressor  # noqa: E402
from sklearn.linear_model import LinearRegression  # noqa: E402

from sklearn_rank_metrics import (  # noqa: E402
    MetricAtKDisplay,
    PerQueryDifferenceDisplay,
    PerQueryMetricDisplay,
    evaluate,
)


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def make_data(n_queries=40, docs_per_query=7, seed=0):
    rng = np.random.default_rng(seed)
    n = n_queries * docs_per_query
    y_true = rng.integers(0, 3, n)
    group = np.repeat(np.arange(n_queries), docs_per_query)
    scores = {"good": y_true + rng.normal(size=n), "weak": y_true + 3 * rng.normal(size=n)}
    return y_true, group, scores


def evaluate_per_query(y_true, y_score, group, metric, **kwargs):
    table = evaluate(y_true, y_score, group, metrics=[metric], per_query=True, **kwargs)
    return np.asarray(table[metric], dtype=float)


def legend_texts(ax):
    return [text.get_text() for text in ax.get_legend().get_texts()]


def assert_png(path):
    assert path.exists() and path.stat().st_size > 1000
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# --------------------------------------------------------------------------- metric@k


def test_metric_at_k_lines_equal_evaluate_and_bands_are_bootstrap_percentiles(tmp_path):
    y_true, group, scores = make_data()
    display = MetricAtKDisplay.from_predictions(
        y_true, scores, group, metric="ndcg", k_max=5, n_resamples=300, random_state=0
    )
    assert [line.get_label() for line in display.line_] == ["good", "weak"]
    assert legend_texts(display.ax_) == ["good", "weak"]
    assert display.ax_.get_xlabel() == "k"
    assert display.ax_.get_ylabel() == "ndcg@k"
    assert "95% bootstrap band" in display.ax_.get_legend().get_title().get_text()

    # Reference band: the same query draws (all 2 models x 5 cutoffs share them).
    per_query = np.column_stack([
        evaluate_per_query(y_true, scores[model], group, f"ndcg@{k}")
        for model in ("good", "weak") for k in range(1, 6)
    ])
    drawn = np.random.default_rng(0).integers(0, 40, size=(300, 40), dtype=np.int32)
    resampled = per_query[drawn].mean(axis=1)
    low, high = np.percentile(resampled, [2.5, 97.5], axis=0)
    for m, (model, line) in enumerate(zip(("good", "weak"), display.line_, strict=True)):
        expected = [
            evaluate(y_true, scores[model], group, metrics=[f"ndcg@{k}"])[f"ndcg@{k}"]
            for k in range(1, 6)
        ]
        np.testing.assert_array_equal(line.get_xdata(), [1, 2, 3, 4, 5])
        np.testing.assert_allclose(line.get_ydata(), expected, rtol=1e-12)
        np.testing.assert_allclose(display.ci_low[model], low[5 * m : 5 * m + 5], rtol=1e-10)
        np.testing.assert_allclose(display.ci_high[model], high[5 * m : 5 * m + 5], rtol=1e-10)
        band_y = display.bands_[m].get_paths()[0].vertices[:, 1]
        np.testing.assert_allclose(band_y.min(), display.ci_low[model].min())
        np.testing.assert_allclose(band_y.max(), display.ci_high[model].max())
    display.figure_.savefig(tmp_path / "ndcg_at_k.png")
    assert_png(tmp_path / "ndcg_at_k.png")


def test_metric_at_k_from_estimator_and_on_given_axes():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] > 0).astype(int) + (X[:, 1] > 1)
    group = np.repeat(np.arange(20), 6)
    linear = LinearRegression().fit(X, y)
    dummy = DummyRegressor().fit(X, y)
    fig, ax = plt.subplots()
    display = MetricAtKDisplay.from_estimator(
        {"linear": linear, "constant": dummy}, X, y, group, metric="p", k_max=4,
        confidence_level=None, ax=ax,
    )
    assert display.ax_ is ax and display.figure_ is fig
    assert display.bands_ == [] and display.ci_low is None
    for model, line in zip((linear, dummy), display.line_, strict=True):
        expected = [
            evaluate(y, model.predict(X), group, metrics=[f"p@{k}"])[f"p@{k}"]
            for k in range(1, 5)
        ]
        np.testing.assert_allclose(line.get_ydata(), expected, rtol=1e-12)
    single = MetricAtKDisplay.from_estimator(linear, X, y, group, k_max=3, n_resamples=50)
    assert legend_texts(single.ax_) == ["LinearRegression"]
    # plot again with other labels and keywords
    single.plot(name="ridge-like", curve_kwargs={"color": "black", "linestyle": "--"})
    assert single.line_[0].get_label() == "ridge-like"
    assert single.line_[0].get_linestyle() == "--"


def test_metric_at_k_skips_queries_like_evaluate():
    y_true, group, scores = make_data(seed=3)
    y_true = y_true.copy()
    y_true[group < 6] = 0
    display = MetricAtKDisplay.from_predictions(
        y_true, scores["good"], group, metric="recall", k_max=3, name="m",
        replace_undefined_by="skip", n_resamples=50, random_state=0,
    )
    expected = [
        evaluate(y_true, scores["good"], group, metrics=[f"recall@{k}"],
                 replace_undefined_by="skip")[f"recall@{k}"]
        for k in (1, 2, 3)
    ]
    np.testing.assert_allclose(display.line_[0].get_ydata(), expected, rtol=1e-12)
    assert np.all(display.ci_low["m"] <= display.values["m"])
    assert np.all(display.values["m"] <= display.ci_high["m"])


def test_metric_at_k_band_kwargs_and_show_bands_false():
    y_true, group, scores = make_data(n_queries=20, seed=8)
    display = MetricAtKDisplay.from_predictions(
        y_true, scores, group, metric="p", k_max=3, n_resamples=100, random_state=0,
        band_kwargs={"color": "red", "alpha": 0.5},
    )
    assert len(display.bands_) == 2
    for band in display.bands_:  # the keywords override the defaults (line colour, 0.2)
        np.testing.assert_allclose(band.get_facecolor()[0], matplotlib.colors.to_rgba("red", 0.5))
    assert display.ax_.get_legend().get_title().get_text() == "95% bootstrap band"
    fig, ax = plt.subplots()
    display.plot(ax=ax, show_bands=False)
    assert display.bands_ == [] and len(ax.collections) == 0  # nothing filled
    assert len(display.line_) == 2 and display.ci_low is not None  # the data are kept
    assert display.ax_.get_legend().get_title().get_text() == ""  # no band, no band title
    np.testing.assert_allclose(display.line_[0].get_ydata(), display.values["good"])


def test_metric_at_k_without_any_defined_query_warns_nothing():
    # every query without a relevant row, skipped: every mean is NaN, silently
    y_true, group, scores = make_data(n_queries=6, seed=9)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        display = MetricAtKDisplay.from_predictions(
            np.zeros_like(y_true), scores, group, k_max=3, confidence_level=None,
            replace_undefined_by="skip",
        )
    for model in scores:
        assert np.isnan(display.values[model]).all() and display.values[model].shape == (3,)


def test_dataframe_scores_are_one_model_per_column():
    import pandas as pd

    y_true, group, scores = make_data(n_queries=15, seed=10)
    frame = MetricAtKDisplay.from_predictions(
        y_true, pd.DataFrame(scores), group, k_max=3, confidence_level=None
    )
    assert list(frame.values) == ["good", "weak"]
    for model in scores:
        expected = [
            evaluate(y_true, scores[model], group, metrics=[f"ndcg@{k}"])[f"ndcg@{k}"]
            for k in (1, 2, 3)
        ]
        np.testing.assert_allclose(frame.values[model], expected, rtol=1e-12)


# --------------------------------------------------------------------------- per query


def test_per_query_histogram_heights_and_ecdf_data(tmp_path):
    y_true, group, scores = make_data(seed=4)
    display = PerQueryMetricDisplay.from_predictions(
        y_true, scores, group, metric="ndcg@5", bins=8
    )
    values = {m: evaluate_per_query(y_true, s, group, "ndcg@5") for m, s in scores.items()}
    pooled = np.concatenate(list(values.values()))
    assert len(np.unique(pooled)) > 8  # continuous enough: NumPy's edges
    edges = np.histogram_bin_edges(pooled, bins=8)
    np.testing.assert_array_equal(display.bin_edges_, edges)
    colours = []
    for model, container in zip(scores, display.artists_, strict=True):
        heights = [patch.get_height() for patch in container.patches]
        np.testing.assert_array_equal(heights, np.histogram(values[model], bins=edges)[0])
        colours.append({patch.get_facecolor() for patch in container.patches})
        assert all(patch.get_alpha() in (None, 1.0) for patch in container.patches)
    # side by side, one solid colour per model, and the legend shows those colours
    assert all(len(c) == 1 for c in colours) and colours[0] != colours[1]
    legend = display.ax_.get_legend()
    assert [h.get_facecolor() for h in legend.legend_handles] == [c.pop() for c in colours]
    first, second = display.artists_
    assert all(a.get_x() + a.get_width() <= b.get_x() + 1e-12
               for a, b in zip(first.patches, second.patches, strict=True))
    assert legend_texts(display.ax_) == ["good", "weak"]
    assert display.ax_.get_xlabel() == "ndcg@5 per query"
    display.figure_.savefig(tmp_path / "hist.png")
    assert_png(tmp_path / "hist.png")

    display.plot(kind="ecdf")
    for model, line in zip(scores, display.artists_, strict=True):
        np.testing.assert_allclose(line.get_xdata(), np.sort(values[model]))
        np.testing.assert_allclose(line.get_ydata(), np.arange(1, 41) / 40)
    assert display.ax_.get_ylabel() == "share of queries <= value"
    display.figure_.savefig(tmp_path / "ecdf.png")
    assert_png(tmp_path / "ecdf.png")


def test_discrete_metric_values_sit_at_bin_centres(tmp_path):
    # P@5 per query takes the values 0, 0.2, ..., 1: one bin per value, centred on it,
    # whatever the floating-point rounding of 0.6 (which NumPy's ten equal bins of
    # [0, 1] would put on an edge)
    y_true, group, scores = make_data(seed=4)
    display = PerQueryMetricDisplay.from_predictions(y_true, scores, group, metric="p@5")
    for model, container in zip(scores, display.artists_, strict=True):
        values = evaluate_per_query(y_true, scores[model], group, "p@5")
        distinct, counts = np.unique(values, return_counts=True)
        centres = display.bin_centres_
        pooled = np.unique(np.concatenate(
            [evaluate_per_query(y_true, s, group, "p@5") for s in scores.values()]
        ))
        np.testing.assert_allclose(centres, pooled, atol=1e-12)
        heights = np.array([patch.get_height() for patch in container.patches])
        np.testing.assert_array_equal(heights[np.searchsorted(pooled, distinct)], counts)
        assert heights.sum() == len(values)
    display.figure_.savefig(tmp_path / "discrete.png")
    assert_png(tmp_path / "discrete.png")


def test_ecdf_plot_kwargs_may_set_label_and_where():
    y_true, group, scores = make_data(n_queries=12, seed=11)
    display = PerQueryMetricDisplay.from_predictions(
        y_true, scores, group, metric="mrr", kind="ecdf",
        plot_kwargs={"label": "custom", "where": "pre", "color": "black"},
    )
    assert [line.get_label() for line in display.artists_] == ["custom", "custom"]
    assert all(line.get_drawstyle() == "steps-pre" for line in display.artists_)
    display.plot(kind="ecdf", plot_kwargs=[{"label": "one"}, {"where": "mid"}])
    assert [line.get_label() for line in display.artists_] == ["one", "weak"]
    assert [line.get_drawstyle() for line in display.artists_] == ["steps-post", "steps-mid"]
    values = evaluate_per_query(y_true, scores["weak"], group, "mrr")
    np.testing.assert_allclose(display.artists_[1].get_xdata(), np.sort(values))


def test_per_query_distribution_from_estimator_leaves_out_skipped_queries():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 2))
    y = (X[:, 0] > 0.5).astype(int)
    group = np.repeat(np.arange(10), 6)
    model = LinearRegression().fit(X, y)
    display = PerQueryMetricDisplay.from_estimator(
        model, X, y, group, metric="map", kind="ecdf", replace_undefined_by="skip"
    )
    expected = evaluate_per_query(y, model.predict(X), group, "map", replace_undefined_by="skip")
    expected = np.sort(expected[~np.isnan(expected)])
    np.testing.assert_allclose(display.artists_[0].get_xdata(), expected)
    assert legend_texts(display.ax_) == ["LinearRegression"]


def test_difference_display_bars_are_sorted_per_query_differences(tmp_path):
    y_true, group, scores = make_data(seed=6)
    display = PerQueryDifferenceDisplay.from_predictions(
        y_true, scores["good"], scores["weak"], group, metric="ndcg@5",
        name="good", baseline_name="weak",
    )
    query_ids = np.asarray(evaluate(y_true, scores["good"], group, per_query=True)["query"])
    difference = evaluate_per_query(y_true, scores["good"], group, "ndcg@5") - (
        evaluate_per_query(y_true, scores["weak"], group, "ndcg@5")
    )
    heights = np.array([bar.get_height() for bar in display.bars_])
    np.testing.assert_allclose(heights, np.sort(difference)[::-1], atol=1e-15)
    np.testing.assert_allclose(
        difference[np.searchsorted(query_ids, display.query_ids)], heights, atol=1e-15
    )
    n_better, n_worse = int((difference > 0).sum()), int((difference < 0).sum())
    assert (display.n_better, display.n_worse) == (n_better, n_worse)
    assert display.n_tied == 40 - n_better - n_worse
    assert f"better on {n_better}, worse on {n_worse}" in display.ax_.get_title()
    assert display.ax_.get_ylabel() == "ndcg@5: good - weak"
    first = matplotlib.colors.to_rgba("tab:green")
    assert display.bars_[0].get_facecolor() == first  # the largest gain is drawn green
    display.figure_.savefig(tmp_path / "difference.png")
    assert_png(tmp_path / "difference.png")


def test_difference_display_from_estimator():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(80, 2))
    y = (X[:, 0] + 0.3 * rng.normal(size=80) > 0).astype(int)
    group = np.repeat(np.arange(16), 5)
    linear, dummy = LinearRegression().fit(X, y), DummyRegressor().fit(X, y)
    display = PerQueryDifferenceDisplay.from_estimator(linear, dummy, X, y, group, metric="mrr")
    expected = evaluate_per_query(y, linear.predict(X), group, "mrr") - evaluate_per_query(
        y, dummy.predict(X), group, "mrr"
    )
    np.testing.assert_allclose(display.differences, np.sort(expected)[::-1], atol=1e-15)
    assert display.name == "LinearRegression" and display.baseline_name == "DummyRegressor"


# --------------------------------------------------------------------------- errors


def test_missing_matplotlib_says_how_to_install(monkeypatch):
    y_true, group, scores = make_data(n_queries=5)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match=r"pip install \"sklearn-rank-metrics\[plot\]\""):
        MetricAtKDisplay.from_predictions(y_true, scores, group, k_max=2, n_resamples=10)


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda d: MetricAtKDisplay.from_predictions(*d, metric="ndcg@10"), ValueError,
         "without a cutoff"),
        (lambda d: MetricAtKDisplay.from_predictions(*d, metric="gauc"), ValueError,
         "must take a cutoff"),
        (lambda d: MetricAtKDisplay.from_predictions(*d, k_max=0), ValueError, "'k_max'"),
        (lambda d: MetricAtKDisplay.from_predictions(*d, confidence_level=2.0), ValueError,
         "'confidence_level'"),
        (lambda d: MetricAtKDisplay.from_predictions(*d, name="x"), ValueError,
         r"^The 'name' parameter of MetricAtKDisplay.from_predictions must be None when "
         r"'y_score' holds several models .* Got 'x' instead\.$"),
        (lambda d: MetricAtKDisplay.from_estimator(
            {"a": DummyRegressor(), "b": DummyRegressor()}, d[1]["good"][:, None], d[0], d[2],
            name="x"), ValueError,
         r"^The 'name' parameter of MetricAtKDisplay.from_estimator must be None when "
         r"'estimator' is a mapping .* Got 'x' instead\.$"),
        (lambda d: PerQueryMetricDisplay.from_predictions(*d, kind="box"), ValueError,
         "'kind'"),
        (lambda d: PerQueryMetricDisplay.from_predictions(*d, ties="random"), ValueError,
         "'ties'"),
        (lambda d: PerQueryMetricDisplay.from_predictions(*d, metric=5), TypeError,
         "'metric'"),
        (lambda d: PerQueryDifferenceDisplay.from_predictions(
            d[0], d[1]["good"], d[1]["weak"], d[2], name="m", baseline_name="m"), ValueError,
         "must differ"),
        (lambda d: PerQueryDifferenceDisplay.from_predictions(
            d[0], d[1]["good"], d[1]["weak"][:-1], d[2]), ValueError, "model 'baseline'"),
    ],
)
def test_bad_parameters(call, error, match):
    y_true, group, scores = make_data(n_queries=5)
    with pytest.raises(error, match=match):
        call((y_true, scores, group))


def test_plot_keyword_lists_must_match_the_models():
    y_true, group, scores = make_data(n_queries=5)
    display = MetricAtKDisplay.from_predictions(
        y_true, scores, group, k_max=2, confidence_level=None
    )
    with pytest.raises(
        ValueError,
        match=r"^The 'name' parameter of MetricAtKDisplay.plot must give 2 name\(s\) \(one per "
        r"model\)\. Got \['only one'\] instead\.$",
    ):
        display.plot(name=["only one"])
    with pytest.raises(ValueError, match="'curve_kwargs' parameter"):
        display.plot(curve_kwargs=[{"color": "red"}])


@pytest.mark.parametrize(
    "display, module",
    [
        (MetricAtKDisplay, "sklearn_rank_metrics._plot._metric_at_k"),
        (PerQueryMetricDisplay, "sklearn_rank_metrics._plot._per_query_metric"),
        (PerQueryDifferenceDisplay, "sklearn_rank_metrics._plot._per_query_difference"),
    ],
)
def test_one_display_per_module_at_the_pickle_path_of_the_changelog(display, module):
    # the module is the pickle path: a move must be written in the CHANGELOG
    assert display.__module__ == module
    defined = [
        name
        for name, value in vars(sys.modules[module]).items()
        if isinstance(value, type) and value.__module__ == module and name.endswith("Display")
    ]
    assert defined == [display.__name__]


def test_displays_pickle_with_their_data():
    import pickle

    at_k = MetricAtKDisplay(k=[1, 2], values={"a": [0.5, 0.75]}, metric="recall")
    per_query = PerQueryMetricDisplay(values={"a": [0.0, 1.0]}, metric="mrr", kind="ecdf")
    difference = PerQueryDifferenceDisplay(
        differences=[0.5, 0.0, -0.5], query_ids=[1, 2, 3], metric="mrr"
    )
    restored = [pickle.loads(pickle.dumps(d)) for d in (at_k, per_query, difference)]
    assert restored[0].values["a"].tolist() == [0.5, 0.75] and restored[0].metric == "recall"
    assert restored[1].values["a"].tolist() == [0.0, 1.0] and restored[1].kind == "ecdf"
    assert restored[2].differences.tolist() == [0.5, 0.0, -0.5]
    assert (restored[2].n_better, restored[2].n_worse, restored[2].n_tied) == (1, 1, 1)
