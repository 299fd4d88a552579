"""The comparison report: corrections, win/tie/loss, effect size, markers, formats.

References: SciPy's ``false_discovery_control`` (Benjamini-Hochberg), hand formulas
(Bonferroni, Cohen's d_z, win/tie/loss counts over the per-query values that
``evaluate`` returns on its own path), pytrec_eval for the trec_eval format.
"""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
from scipy import stats

from sklearn_rank_metrics import compare, evaluate
from sklearn_rank_metrics._stats._resampling import benjamini_hochberg, bonferroni
from tests.stats.test_compare import make_data, per_query

SUPERSCRIPTS = {"a": "ᵃ", "b": "ᵇ", "c": "ᶜ"}
METRICS = ["ndcg@10", "map", "mrr@10", "p@5"]


def test_corrections_by_hand_and_against_scipy():
    p = np.array([0.01, 0.04, 0.03, 0.005, 0.5])
    np.testing.assert_allclose(bonferroni(p), [0.05, 0.2, 0.15, 0.025, 1.0])
    np.testing.assert_allclose(benjamini_hochberg(p), stats.false_discovery_control(p))
    rng = np.random.default_rng(0)
    for _ in range(20):
        p = rng.random(rng.integers(1, 12)) ** 3
        np.testing.assert_allclose(benjamini_hochberg(p), stats.false_discovery_control(p))
    # NaN stays NaN and is not in the family
    with_nan = np.array([0.01, np.nan, 0.04])
    np.testing.assert_allclose(bonferroni(with_nan), [0.02, np.nan, 0.08])
    np.testing.assert_allclose(
        benjamini_hochberg(with_nan)[[0, 2]], stats.false_discovery_control([0.01, 0.04])
    )


@pytest.fixture(scope="module")
def three_models():
    y_true, group, scores = make_data(30, seed=4)
    return y_true, group, scores


@pytest.mark.parametrize("correction", ["bonferroni", "bh"])
def test_compare_corrects_each_metric_as_one_family(three_models, correction):
    y_true, group, scores = three_models
    result = compare(
        y_true, scores, group, metrics=METRICS, n_resamples=200, correction=correction,
        random_state=0,
    )  # fmt: skip
    adjust = {"bonferroni": bonferroni, "bh": benjamini_hochberg}[correction]
    for name in ("p_value_t", "p_value_permutation"):
        raw = np.asarray(result.table[name], dtype=float).reshape(len(METRICS), 3)
        adjusted = np.asarray(result.table[f"{name}_{correction}"], dtype=float)
        np.testing.assert_allclose(adjusted.reshape(len(METRICS), 3), [adjust(r) for r in raw])


def test_wins_ties_losses_and_effect_size_from_the_per_query_values(three_models):
    y_true, group, scores = three_models
    result = compare(y_true, scores, group, metrics=METRICS, n_resamples=50, random_state=0)
    table = result.table
    for metric in METRICS:
        values = per_query(y_true, scores, group, metric)
        for a, b in (("a", "b"), ("a", "c"), ("b", "c")):
            d = values[a] - values[b]
            row = table[(table.metric == metric) & (table.model_a == a) & (table.model_b == b)]
            wins, ties, losses = (int(row[c].iloc[0]) for c in ("wins", "ties", "losses"))
            assert (wins, ties, losses) == ((d > 0).sum(), (d == 0).sum(), (d < 0).sum())
            assert wins + ties + losses == len(d) == 30
            # Cohen's d_z: mean difference over the standard deviation of the differences
            d_z = d.mean() / np.sqrt(((d - d.mean()) ** 2).sum() / (len(d) - 1))
            assert row["effect_size"].iloc[0] == pytest.approx(d_z, rel=1e-12)
    # P@5 on 8-document queries: many queries tie exactly
    assert table[table.metric == "p@5"]["ties"].max() > 5


def test_effect_size_is_nan_when_every_difference_is_equal():
    # MRR, one relevant document ranked 1st by "first" and 3rd by "third": every
    # per-query difference is 1 - 1/3
    y = np.tile([1.0, 0.0, 0.0], 5)
    group = np.repeat(np.arange(5), 3)
    result = compare(
        y, {"first": np.tile([3.0, 2, 1], 5), "third": np.tile([1.0, 3, 2], 5)}, group,
        metrics="mrr", n_resamples=10, random_state=0,
    )  # fmt: skip
    assert np.isnan(result.table["effect_size"][0])
    assert (result.table["wins"][0], result.table["ties"][0], result.table["losses"][0]) == (
        5,
        0,
        0,
    )


def _cells(markdown):
    """The summary table's body rows of a Markdown rendering, as lists of cells."""
    lines = markdown.split("\n\n")[1].splitlines()[2:]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines]


@pytest.mark.parametrize("baseline", [None, "c"])
def test_markers_name_the_runs_each_run_beats(three_models, baseline):
    y_true, group, scores = three_models
    result = compare(
        y_true, scores, group, metrics=METRICS, baseline=baseline, n_resamples=500,
        correction="holm", random_state=0,
    )  # fmt: skip
    table = result.table
    labels = {"a": "a", "b": "b", "c": "c"}  # runs in order: labels a, b, c
    expected = {}
    for _, row in table.iterrows():
        if row["p_value_permutation_holm"] < 0.05:
            pair = (row.model_a, row.model_b)
            better, worse = pair if row.mean_difference > 0 else pair[::-1]
            expected.setdefault((better, row.metric), set()).add(labels[worse])
    assert expected  # the data has significant differences
    means = result.means.set_index("model")
    for cells in _cells(result.to_markdown()):
        label, model, *values = cells
        assert label == labels[model]
        for metric, cell in zip(METRICS, values, strict=True):
            letters = "".join(SUPERSCRIPTS[x] for x in sorted(expected.get((model, metric), ())))
            assert cell == f"{means.loc[model, metric]:.4f}{letters}", (model, metric)
    caption = result.to_markdown().splitlines()[0]
    assert "paired randomisation test" in caption and "Holm correction" in caption
    assert ("against c" in caption) == (baseline == "c")
    # the t-test decides the markers when asked
    assert "paired t-test" in result.to_text(test="t").splitlines()[0]


def test_three_runs_and_four_metrics_fit_100_columns(three_models):
    y_true, group, scores = three_models
    named = {"bm25": scores["a"], "monoT5-rerank": scores["b"], "dense-retriever": scores["c"]}
    result = compare(y_true, named, group, metrics=METRICS, n_resamples=100, random_state=0)
    text = str(result)
    assert max(len(line) for line in text.splitlines()) <= 100
    assert "win/tie/loss" in text and "effect size d_z" in text
    baseline = compare(
        y_true, named, group, metrics=METRICS, baseline="bm25", n_resamples=100, random_state=0,
        correction="bh",
    )  # fmt: skip
    assert max(len(line) for line in str(baseline).splitlines()) <= 100
    assert "Benjamini-Hochberg correction over the 2 comparisons" in str(baseline).replace(
        "\n", " "
    )


def test_latex_csv_and_json(three_models):
    y_true, group, scores = three_models
    named = {"run_a": scores["a"], "run_b": scores["b"]}
    result = compare(
        y_true, named, group, metrics=["ndcg@10", "p@5"], baseline="run_a", n_resamples=200,
        random_state=0,
    )  # fmt: skip
    latex = result.to_latex()
    for command in (r"\toprule", r"\midrule", r"\bottomrule", r"\caption{", r"\begin{tabular}"):
        assert command in latex
    assert "run\\_b" in latex and "run_b" not in latex.replace("run\\_b", "")
    significant = result.table["p_value_permutation"][0] < 0.05
    assert ("$^{a}$" in latex) == significant
    rows = list(csv.reader(io.StringIO(result.to_csv())))
    assert rows[0] == list(result.table.columns)
    assert len(rows) == 1 + 2
    assert float(rows[1][rows[0].index("mean_difference")]) == result.table["mean_difference"][0]
    document = json.loads(result.to_json())
    assert document["baseline"] == "run_a"
    assert document["means"]["run_b"]["p@5"] == result.means.set_index("model").loc["run_b", "p@5"]
    assert len(document["comparisons"]) == 2


def test_trec_eval_per_query_format_matches_pytrec_eval():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    y = np.array([1.0, 0, 2, 0, 1, 1, 0, 0])
    s = np.array([0.9, 0.8, 0.3, 0.7, 0.6, 0.5, 0.4, 0.1])
    qid = np.array(["q1", "q1", "q1", "q2", "q2", "q2", "q3", "q3"])
    doc = [f"d{i}" for i in range(8)]
    text = evaluate(y, s, qid, metrics=["map", "P_5"], per_query="trec_eval")
    qrels = {q: {} for q in qid}
    run = {q: {} for q in qid}
    for q, d, label, score in zip(qid, doc, y, s, strict=True):
        qrels[q][d] = int(label)
        run[q][d] = float(score)
    tool = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P_5"}).evaluate(run)
    expected = [
        f"{name:<22}\t{q}\t{tool[q][name]:.4f}"
        for q in ("q1", "q2", "q3")
        for name in ("map", "P_5")
    ]
    expected.append(f"{'num_q':<22}\tall\t3")  # trec_eval's num_q (m_num_q.c)
    for name in ("map", "P_5"):
        mean = np.mean([tool[q][name] for q in tool])
        expected.append(f"{name:<22}\tall\t{mean:.4f}")
    assert text == "\n".join(expected) + "\n"
    # skipped queries have no line (q3 has no relevant row)
    skipped = evaluate(y, s, qid, metrics="map", per_query="trec_eval", replace_undefined_by="skip")
    assert "\tq3\t" not in skipped and skipped.endswith("all\t0.7083\n")
