"""
Comparing two models with paired tests
======================================

Two rankers are scored on the same test queries and one mean ``NDCG@10`` is higher. Is
the difference real, or would other queries reverse it? Because both models answer
the *same* queries, the right question is about the per-query *differences*:
:func:`~sklearn_rank_metrics.compare` gives their mean with bootstrap confidence
intervals, the paired t-test, the randomisation (sign-flip) test and the win/tie/loss
counts, and :class:`~sklearn_rank_metrics.PerQueryDifferenceDisplay` draws the
difference query by query.
"""

# %%
# Two models on the same queries
# ------------------------------
#
# A ridge regression and a histogram gradient-boosted regressor are fitted on the
# first 200 queries of :func:`~sklearn_rank_metrics.make_ranking` and score the other
# 100. Both are pointwise regressors of the grade; only their ranking of each query's
# documents matters here.

import matplotlib.pyplot as plt
import numpy as np
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.linear_model import Ridge

from sklearn_rank_metrics import (
    PerQueryDifferenceDisplay,
    compare,
    make_ranking,
    ranking_report,
)

X, y, qid = make_ranking(
    n_queries=300, docs_per_query=(5, 30), n_features=8, random_state=1
)
train, test = qid < 200, qid >= 200
y_test, qid_test = y[test], qid[test]
scores = {
    "ridge": Ridge().fit(X[train], y[train]).predict(X[test]),
    "boosted trees": HistGradientBoostingRegressor(random_state=0)
    .fit(X[train], y[train])
    .predict(X[test]),
}
metrics = ["ndcg@10", "map", "mrr@10"]
print(ranking_report(y_test, scores, qid_test, metrics=metrics))

# %%
# The report gives each model's mean and its standard error over queries. Read on
# their own, the two means' 95% intervals (mean plus or minus 1.96 standard errors)
# overlap:

report = ranking_report(
    y_test, scores, qid_test, metrics=["ndcg@10"], output_dict=True
)
intervals = {}
for name, entry in report.items():
    mean, std_err = entry["ndcg@10"]["mean"], entry["ndcg@10"]["std_err"]
    intervals[name] = (mean - 1.96 * std_err, mean + 1.96 * std_err)
    print(
        f"{name:<14} NDCG@10 in "
        f"[{intervals[name][0]:.4f}, {intervals[name][1]:.4f}]"
    )
(low_a, high_a), (low_b, high_b) = intervals.values()
print("the intervals overlap:", bool(low_a <= high_b and low_b <= high_a))

# %%
# Overlapping intervals do not mean "no difference". Each interval carries the
# spread of query *difficulty*: some queries are easy for every model, some hard.
# That spread is shared by the two models, and it cancels in the per-query
# difference. The scatter below shows it: one point per query, the two models'
# NDCG\@10, lying along the diagonal. ``compare`` keeps the per-query values in
# ``result.per_query``.

result = compare(
    y_test,
    scores,
    qid_test,
    metrics=metrics,
    baseline="boosted trees",
    random_state=0,
)
per_query = result.per_query.pivot(
    index="query", columns="model", values="ndcg@10"
)
print(
    "correlation of the two models' per-query NDCG@10:",
    round(float(per_query["ridge"].corr(per_query["boosted trees"])), 3),
)

fig, ax = plt.subplots(figsize=(5, 5))
ax.scatter(per_query["boosted trees"], per_query["ridge"], s=14, alpha=0.7)
ax.plot([0, 1], [0, 1], color="grey", linestyle="--", linewidth=1)
ax.set_xlabel("boosted trees: NDCG@10 of the query")
ax.set_ylabel("ridge: NDCG@10 of the query")
ax.set_title("Per-query NDCG@10 of the two models")
fig.tight_layout()

# %%
# The paired comparison
# ---------------------
#
# ``print(result)`` shows the means with a letter after a run that is significantly
# better than the run with that letter (randomisation test, two-sided, p < 0.05),
# then, per metric, the mean difference, the paired effect size d_z (mean difference
# over the standard deviation of the differences), the win/tie/loss counts over
# queries and the p-value.

print(result)

# %%
# ``result.table`` has every number: the bootstrap intervals of the mean difference
# (queries resampled with replacement, both models together, so the pairing is kept;
# percentile and BCa), the paired t-test and the randomisation-test p-values.

columns = [
    "metric",
    "mean_difference",
    "ci_low_percentile",
    "ci_high_percentile",
    "ci_low_bca",
    "ci_high_bca",
    "p_value_t",
    "p_value_permutation",
    "wins",
    "ties",
    "losses",
]
print(result.table[columns].round(4).to_string(index=False))

# %%
# How to read it:
#
# - For NDCG\@10 and MAP the bootstrap intervals of the mean difference exclude 0 and
#   both tests give small p-values: ridge ranks these queries better, though the
#   two means' own intervals overlap. The paired view removes the shared difficulty.
# - MRR\@10 depends only on the first relevant document, which both models put first
#   on almost every query: the win/tie/loss counts show how few queries differ at
#   all. The mean difference then rests on those few queries. The randomisation test
#   counts sign patterns of exactly those differences, while the t-test assumes a
#   normal mean that a handful of non-zero values does not give; the two p-values in
#   the table differ accordingly. With so few informative queries, trust the
#   randomisation test and the counts.
# - Test several metrics, or several models against one baseline, and the chance of
#   one false alarm grows: ``correction="holm"`` (or ``"bonferroni"``, ``"bh"``)
#   adjusts the p-values within each metric.
#
# Which queries moved
# -------------------
#
# :class:`~sklearn_rank_metrics.PerQueryDifferenceDisplay` sorts the per-query
# differences: gains on the left, losses on the right, ties as the flat middle. A
# mean difference made of many small gains looks different from one made of a few
# large ones, and the queries at the right end are the ones to read to understand
# where the better model still fails.

display = PerQueryDifferenceDisplay.from_predictions(
    y_test,
    scores["ridge"],
    scores["boosted trees"],
    qid_test,
    metric="ndcg@10",
    name="ridge",
    baseline_name="boosted trees",
)
print(
    f"better on {display.n_better} queries, worse on {display.n_worse}, "
    f"tied on {display.n_tied}"
)
worst = np.argsort(display.differences)[:3]
print(
    "largest losses (query id: difference):",
    {
        int(q): round(float(d), 4)
        for q, d in zip(
            display.query_ids[worst], display.differences[worst], strict=True
        )
    },
)

# sphinx_gallery_thumbnail_number = 2
