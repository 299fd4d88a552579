"""
Metrics at k: NDCG@k, P@k and R@k across cutoffs
=================================================

A single cutoff (``NDCG@10``) answers one question: how good is the top 10. Users of a
search page see the top 3, a re-ranker reads the top 100, and two models can swap
places between those. :class:`~sklearn_rank_metrics.MetricAtKDisplay` draws a metric
at every cutoff k = 1..k_max for several models, with a bootstrap band over queries.
"""

# %%
# Two models
# ----------
#
# Queries from :func:`~sklearn_rank_metrics.make_ranking` have graded labels 0-4
# driven by the first three of eight features. One ridge regression sees all
# features, another only the first two, so it misses part of the signal. Both are
# fitted on 200 queries and score 100 others, whose sizes range from 5 to 40
# documents.

import matplotlib.pyplot as plt
import numpy as np
from sklearn.linear_model import Ridge

from sklearn_rank_metrics import MetricAtKDisplay, evaluate, make_ranking

X, y, qid = make_ranking(
    n_queries=300, docs_per_query=(5, 40), n_features=8, random_state=2
)
train, test = qid < 200, qid >= 200
y_test, qid_test = y[test], qid[test]
scores = {
    "all features": Ridge().fit(X[train], y[train]).predict(X[test]),
    "first two features": Ridge()
    .fit(X[train, :2], y[train])
    .predict(X[test, :2]),
}
relevant_per_query = np.bincount(qid_test - qid_test.min(), weights=y_test >= 2)
print(
    f"{len(np.unique(qid_test))} test queries; "
    "documents of grade 2 or more per query: "
    f"median {np.median(relevant_per_query):.0f}, "
    f"min {relevant_per_query.min():.0f}, max {relevant_per_query.max():.0f}"
)

# %%
# One display per metric
# ----------------------
#
# ``metric`` is a name as :func:`~sklearn_rank_metrics.evaluate` takes it, without
# the cutoff: ``"ndcg"``, ``"p"`` (precision), ``"recall"``. The band is a 95%
# percentile bootstrap over queries (the queries are resampled once for all k and
# both models); ``random_state`` fixes it. P@k and R@k are binary: by default a
# document is relevant when its label is above 0, which is half of the documents
# here; ``relevance_level=2`` asks for grade 2 or more (the counts printed above).
# NDCG uses the grades themselves.

k_max = 20
fig, axes = plt.subplots(1, 3, figsize=(13, 4), sharex=True)
displays = {}
for metric, ax in zip(["ndcg", "p", "recall"], axes, strict=True):
    level = None if metric == "ndcg" else 2
    displays[metric] = MetricAtKDisplay.from_predictions(
        y_test,
        scores,
        qid_test,
        metric=metric,
        k_max=k_max,
        relevance_level=level,
        random_state=0,
        ax=ax,
    )
axes[0].set_title("NDCG@k: graded, discounted")
axes[1].set_title("P@k: share of grade >= 2 in the top k")
axes[2].set_title("R@k: share of grade >= 2 found")
fig.tight_layout()

# %%
# The curves' values are in ``display.values`` (one array per model, for
# ``display.k``); a few cutoffs:

cutoffs = [1, 3, 5, 10, 20]
for metric, display in displays.items():
    for name, values in display.values.items():
        row = "  ".join(
            f"@{k}={values[display.k == k][0]:.3f}" for k in cutoffs
        )
        print(f"{metric:<7}{name:<20}{row}")

# %%
# They are the means :func:`~sklearn_rank_metrics.evaluate` gives at each cutoff:

print(evaluate(y_test, scores["all features"], qid_test, metrics=["ndcg@10"]))
print(
    evaluate(
        y_test,
        scores["all features"],
        qid_test,
        metrics=["p@10", "recall@10"],
        relevance_level=2,
    )
)

# %%
# Reading the three panels
# ------------------------
#
# - **P@k falls** with k once k passes the number of relevant documents of a
#   query: the top k then holds all of them and k minus that many others, so P@k
#   can at best be their number over k. P@k divides by k even when the query has
#   fewer than k documents (trec_eval's ``P_k``; ``p(denominator=min(k,n_retrieved))``
#   divides by the list's length instead).
# - **R@k rises** towards 1: once k reaches a query's size every relevant document
#   is in the top k, whatever the model. The curves of all models meet at large k,
#   so recall at a cutoff larger than most queries says little about a model. It
#   stays below 1 at k = 20 here because some queries are longer than 20, and a
#   query without a document of grade 2 (the minimum printed above) has no recall
#   at all: it is undefined, and counts 0 under the default
#   ``replace_undefined_by=0.0`` (``"skip"`` leaves it out).
# - **NDCG@k** need not be monotone in k: a larger k counts the errors further down
#   the list, and also gives the ideal ranking (the denominator) more room. Its
#   curve is the one that uses the grades: the other two see only "grade 2 or more".
# - The gap between the models (printed below, model with all features minus the
#   other) is not the same at every cutoff; reading it at the depth your users see
#   is the point of the plot. Where the bands overlap, use
#   :func:`~sklearn_rank_metrics.compare` before concluding: each band is the
#   uncertainty of one model's mean, not of the difference between the two, which
#   is much smaller on the same queries (see
#   :ref:`sphx_glr_auto_examples_plot_compare_two_models.py`).

for metric, display in displays.items():
    gap = display.values["all features"] - display.values["first two features"]
    print(f"{metric:<7} gap at k=1..{k_max}: {np.round(gap, 3)}")
