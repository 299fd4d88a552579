"""
How ties change a score
=======================

When two documents of a query get exactly the same score, the ranking does not say
which comes first, yet NDCG and MAP need an order. Ties are more common than one
might think: scores rounded when a run file is written, scores cast to float32, and
tree models, which give every document in a leaf the same value. This example
measures how much the tie order moves ``NDCG@10`` and MAP, with the four ``ties`` modes
of the package's metrics:

- ``"average"`` (the default): the exact expected value over all orders of the tied
  documents, in closed form;
- ``"optimistic"`` / ``"pessimistic"``: tied documents with higher / lower labels
  first, the best and worst case;
- ``"input"``: tied documents keep the order of the rows as given.
"""

# %%
# A model's scores, rounded
# -------------------------
#
# A ridge regression ranks 100 held-out queries of
# :func:`~sklearn_rank_metrics.make_ranking`. Its scores are distinct, so all four
# modes agree. We then round the scores to fewer and fewer decimals, as a run file
# written with ``%.2f`` would, and evaluate each version with each mode.

import matplotlib.pyplot as plt
import numpy as np
from sklearn.linear_model import Ridge
from sklearn.tree import DecisionTreeRegressor

from sklearn_rank_metrics import evaluate, make_ranking

X, y, qid = make_ranking(
    n_queries=300, docs_per_query=(10, 40), n_features=8, random_state=3
)
train, test = qid < 200, qid >= 200
y_test, qid_test = y[test], qid[test]
score = Ridge().fit(X[train], y[train]).predict(X[test])
print(f"scores from {score.min():.2f} to {score.max():.2f}")

modes = ["average", "optimistic", "pessimistic", "input"]
metrics = ["ndcg@10", "map"]


def tied_share(score, group):
    """Share of rows whose score equals another's in the same query."""
    _, inverse, counts = np.unique(
        np.column_stack([group, score]),
        axis=0,
        return_inverse=True,
        return_counts=True,
    )
    return float(np.mean(counts[inverse.ravel()] > 1))


def by_mode(y_true, score, group):
    """Mean NDCG@10 and MAP under every ties mode: {mode: {metric: value}}."""
    return {
        mode: evaluate(y_true, score, group, metrics=metrics, ties=mode)
        for mode in modes
    }


def report(label, score):
    """Print a row: share of tied rows, NDCG@10 per mode; return by_mode."""
    result = by_mode(y_test, score, qid_test)
    cells = "".join(f"{result[mode]['ndcg@10']:<13.4f}" for mode in modes)
    print(f"{label:<12}{tied_share(score, qid_test):>6.1%}  {cells}".rstrip())
    return result


header = f"{'NDCG@10':<12}{'tied':>6}  " + "  ".join(f"{m:<11}" for m in modes)
decimals = [4, 3, 2, 1, 0]
results = {}
print(header)
for d in decimals:
    results[d] = report(f"{d} decimals", np.round(score, d))

# %%
# The figure plots these values, NDCG\@10 on the left, MAP on the right. With four
# decimals nothing is tied and the modes agree. As the rounding coarsens, the
# optimistic and pessimistic values move apart: their gap is how much of the score
# the tie order alone decides. ``"average"`` stays between them, the value every tie
# order gives on average. ``"input"`` sits wherever the rows' order puts it: here the
# rows come in a random order within each query, so it lands near the average, by
# luck of that order.
#
# The dashed line is ``"input"`` again, on the same rows sorted by label, best
# first, as files joined from judgements often are. It is the optimistic value:
# the tie order quietly becomes the answer.

order = np.lexsort((-y_test, qid_test))  # by query, then label descending
sorted_input = {
    d: evaluate(
        y_test[order],
        np.round(score, d)[order],
        qid_test[order],
        metrics=metrics,
        ties="input",
    )
    for d in decimals
}
print(
    "input, rows sorted by label:",
    {d: round(sorted_input[d]["ndcg@10"], 4) for d in decimals},
)

fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
for ax, metric in zip(axes, metrics, strict=True):
    for mode, marker in zip(modes, "os^D", strict=True):
        ax.plot(
            decimals,
            [results[d][mode][metric] for d in decimals],
            marker=marker,
            label=f'ties="{mode}"',
        )
    ax.plot(
        decimals,
        [sorted_input[d][metric] for d in decimals],
        linestyle="--",
        color="grey",
        label='ties="input", rows sorted by label',
    )
    ax.set_xticks(decimals)
    ax.invert_xaxis()
    ax.set_xlabel("decimals kept in the scores")
    ax.set_ylabel(metric)
    ax.set_title(f"{metric} of rounded scores")
axes[0].legend()
fig.tight_layout()

# %%
# Float32 scores
# --------------
#
# Some tools read scores as single-precision floats (pytrec_eval, XGBoost,
# torchmetrics): 24 bits, about 7 significant decimal digits. Scores with a large
# common offset, like a first-stage retrieval score plus a small re-ranking
# adjustment, lose their differences: near 1,000, neighbouring float32 values are
# 2**-14 (about 0.00006) apart. Below, the score is 1,000 plus a thousandth of the
# ridge score: distinct in float64, partly tied in float32.

shifted = 1_000 + score * 1e-3
print(header)
for name, values in (
    ("float64", shifted),
    ("float32", shifted.astype(np.float32)),
):
    report(name, values)

# %%
# Tree-model scores
# -----------------
#
# A regression tree with 8 leaves can give only 8 different scores: every query's
# documents fall into a few tied blocks. Boosted ensembles of small trees give more
# values, but few trees of few leaves still tie often.

tree = DecisionTreeRegressor(max_leaf_nodes=8, random_state=0).fit(
    X[train], y[train]
)
tree_score = tree.predict(X[test])
tree_result = by_mode(y_test, tree_score, qid_test)
print(
    f"{len(np.unique(tree_score))} distinct scores; "
    f"{tied_share(tree_score, qid_test):.1%} of rows tied"
)
for mode in modes:
    print(
        f'ties="{mode}":'.ljust(22),
        {m: round(v, 4) for m, v in tree_result[mode].items()},
    )

# %%
# The gap between the optimistic and pessimistic lines above is the range of values
# the same scores can get, depending only on the tie order. Report
# ``ties="average"`` (what a random tie order gives on average, and the only value
# that does not depend on the order of the rows) and, when the gap is large, report
# it too: the scores do not rank those documents.
#
# Which tools do what
# -------------------
#
# scikit-learn's :func:`~sklearn.metrics.ndcg_score` and
# :func:`~sklearn.metrics.dcg_score` average over tied orders like ``"average"``
# (``ignore_ties=True`` keeps an arbitrary order); its
# :func:`~sklearn.metrics.average_precision_score` treats a tied block as a
# single threshold, which is the AP of no order at all. trec_eval, pytrec_eval and,
# for most measures, ir_measures break ties by document id, descending, after
# reading the scores (as float32 in trec_eval 9, which pytrec_eval builds); LightGBM
# and XGBoost keep the rows' input order (XGBoost after casting the scores to
# float32); ranx leaves the order to an unstable sort, so it is unspecified;
# torchmetrics averages NDCG over ties and keeps input order for its other
# metrics. The same run can thus get different numbers from different tools, all
# correct for their convention. The ``convention=`` argument reproduces each tool's
# choices (except ranx's order, which is not reproducible);
# :doc:`/user_guide/ties` explains the modes and when they matter, and
# :doc:`/reference/conventions` lists every tool's settings.
