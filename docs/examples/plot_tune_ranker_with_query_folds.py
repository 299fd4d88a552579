"""
Tuning a ranker with query folds
================================

A ranking model is judged query by query: ``NDCG@10`` is computed on the documents of one
query and averaged over queries. Cross-validation has to respect that unit. This
example tunes LightGBM's :class:`~lightgbm.LGBMRanker` with
:class:`~sklearn.model_selection.GridSearchCV` over
:class:`~sklearn.model_selection.GroupKFold` and the ``NDCG@10`` scorer of
:func:`~sklearn_rank_metrics.make_ranking_scorer`, and shows what a plain
:class:`~sklearn.model_selection.KFold` does instead: it cuts every query into pieces,
scores the pieces, and so estimates something else than the score on new queries.
"""

# %%
# Queries, and queries held out
# -----------------------------
#
# :func:`~sklearn_rank_metrics.make_ranking` makes queries of 10 to 40 documents with
# graded labels 0-4 that depend on the first three of ten features. The first 150
# queries are for training and tuning; the other 350 are held out, whole: they stand
# for the new queries the tuned model will meet, and give the score each candidate
# really achieves (many of them, so that this score is precise).

import matplotlib.pyplot as plt
import numpy as np
import sklearn
from lightgbm import LGBMRanker
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, GroupKFold, KFold

from sklearn_rank_metrics import (
    GroupedRanker,
    make_ranking,
    make_ranking_scorer,
    ndcg_score,
    ranking_report,
)

X, y, qid = make_ranking(
    n_queries=500, docs_per_query=(10, 40), n_features=10, random_state=0
)
train, test = qid < 150, qid >= 150
X_train, y_train, qid_train = X[train], y[train], qid[train]
print(
    f"{len(np.unique(qid_train))} training queries ({train.sum()} rows), "
    f"{len(np.unique(qid[test]))} held-out queries ({test.sum()} rows)"
)

# %%
# What the two kinds of folds hold
# --------------------------------
#
# Take the first split of each splitter. ``GroupKFold`` puts every query whole on one
# side. ``KFold`` deals rows, so a test fold holds a few rows of nearly every query,
# and the rest of each query is in the training rows. The reports below score the
# test rows of each first fold with a fixed ranking (the sum of the three
# informative features) and count the queries the fold holds and how many of them
# are *undefined*: no relevant document among their rows, so NDCG is 0/0 and counts
# as 0 (scikit-learn's convention, ``replace_undefined_by=0.0``).

signal = X_train[:, :3].sum(axis=1)
splitters = {
    "GroupKFold": GroupKFold(n_splits=5),
    "KFold": KFold(n_splits=5, shuffle=True, random_state=0),
}
for name, splitter in splitters.items():
    groups = (
        qid_train if name == "GroupKFold" else None
    )  # KFold takes no groups
    fit_rows, test_rows = next(splitter.split(X_train, y_train, groups))
    shared = np.intersect1d(qid_train[fit_rows], qid_train[test_rows])
    rows_per_query = len(test_rows) / len(np.unique(qid_train[test_rows]))
    print(
        f"{name}: test queries also in training: {len(shared)}; "
        f"test rows per query: {rows_per_query:.1f}"
    )
    print(
        ranking_report(
            y_train[test_rows],
            signal[test_rows],
            qid_train[test_rows],
            metrics=["ndcg@10"],
        )
    )

# %%
# With ``KFold`` the fold's "queries" are fragments of about a fifth of a query
# (the rows-per-query figures above): many hold no relevant document at all (the
# ``undefined`` column) and score 0, and the others are short lists where NDCG\@10
# covers every row. Either way it is not the task the model will face: ranking a
# whole query it has never seen.
#
# Tuning with query folds
# -----------------------
#
# :class:`~sklearn_rank_metrics.GroupedRanker` wraps the ranker: LightGBM wants the
# rows of each query together and their sizes at fit time, which cross-validation
# does not give; the wrapper sorts the rows by query and passes the sizes. With
# scikit-learn's metadata routing on, the one ``groups=qid_train`` argument feeds the
# folds, the wrapper and the scorer (sliced to each fold). A scikit-learn regressor
# (say :class:`~sklearn.ensemble.HistGradientBoostingRegressor`) needs no wrapper:
# the scorer alone takes the query ids.
#
# We tune the number of boosting rounds. A search over ``KFold`` folds with a
# ``GroupedRanker`` stops at its first score: the wrapper keeps the queries it was
# fitted on, so the scorer sees a fold that scores part of a training query and
# refuses it (an error that names ``GroupKFold`` and that ``error_score`` cannot turn
# into NaN). To show what such a search would have measured, the ``KFold`` curve is
# computed by hand, fold by fold, with :func:`~sklearn_rank_metrics.ndcg_score`.

sklearn.set_config(enable_metadata_routing=True)

ranker = GroupedRanker(
    LGBMRanker(
        learning_rate=0.1,
        num_leaves=15,
        min_child_samples=10,
        n_jobs=1,
        verbose=-1,
    )
)
grid = {"ranker__n_estimators": [5, 10, 20, 40, 80, 160]}
scorer = make_ranking_scorer(
    "ndcg@10"
)  # mean NDCG@10 over the queries of a fold

n_estimators = np.array(grid["ranker__n_estimators"])
search = GridSearchCV(ranker, grid, cv=splitters["GroupKFold"], scoring=scorer)
search.fit(X_train, y_train, groups=qid_train)
split_scores = [f"split{fold}_test_score" for fold in range(5)]
fold_scores = {
    "GroupKFold": np.array([search.cv_results_[key] for key in split_scores])
}


def by_hand(splitter, n):
    """NDCG@10 of every test fold: what a search over ``splitter`` scores."""
    scores = []
    for fit, test in splitter.split(X_train, y_train):
        model = clone(ranker).set_params(ranker__n_estimators=n)
        model.fit(X_train[fit], y_train[fit], group=qid_train[fit])
        predicted = model.predict(X_train[test])
        scores.append(
            ndcg_score(y_train[test], predicted, qid_train[test], k=10)
        )
    return scores


fold_scores["KFold"] = np.array(
    [by_hand(splitters["KFold"], n) for n in n_estimators]
).T
for name, scores in fold_scores.items():
    best = int(np.argmax(scores.mean(axis=0)))
    print(
        f"{name:<10} best n_estimators={n_estimators[best]}, "
        f"CV NDCG@10 {scores.mean(axis=0)[best]:.4f}"
    )

# %%
# The score on new queries
# ------------------------
#
# Each candidate is refitted on all training queries and scored on the held-out
# queries: what each setting would really give. ``group=`` passes the query ids to
# ``GroupedRanker.fit`` directly, outside a search.

held_out = []
for n in n_estimators:
    model = clone(ranker).set_params(ranker__n_estimators=n)
    model.fit(X_train, y_train, group=qid_train)
    held_out.append(
        ndcg_score(y[test], model.predict(X[test]), qid[test], k=10)
    )
held_out = np.array(held_out)

print("n_estimators       ", n_estimators)
for name, scores in fold_scores.items():
    print(f"CV ({name:<10})    ", scores.mean(axis=0).round(4))
print("held-out queries   ", held_out.round(4))
for name, scores in fold_scores.items():
    pick = n_estimators[np.argmax(scores.mean(axis=0))]
    print(
        f"{name} picks n_estimators={pick}: held-out NDCG@10 "
        f"{held_out[n_estimators == pick][0]:.4f}"
    )

# %%
# The figure draws the three rows of numbers above; the error bars are the standard
# deviation of the five fold scores.
#
# - The ``KFold`` curve lies below the held-out one at every candidate, and is
#   flatter: it is the mean NDCG\@10 of query fragments, a part of which have no
#   relevant document and score 0, scored by models trained on the other fragments
#   of the same queries. It estimates another quantity than the score on new queries.
# - The ``GroupKFold`` curve estimates the right quantity, with the noise of 150
#   training queries (its error bars) and the optimism of keeping the best of six
#   candidates. Compare the two picks' held-out scores in the output above with the
#   spread of the held-out curve: where the curve is this flat, which of the top
#   candidates wins is within that noise.
# - The leak that ``KFold`` opens is real when queries differ in what makes a
#   document relevant (as in real search logs): a model that has seen 80% of a
#   query's documents can learn that query's taste and score its other 20% well,
#   which it can never do for a new query. The synthetic queries here share one
#   relevance model, so there is nothing query-specific to learn; on data with such
#   tastes, ``KFold`` inflates the score of models that memorise queries and favours
#   them.
#   ``GroupKFold`` (or :class:`~sklearn.model_selection.GroupShuffleSplit`,
#   :class:`~sklearn.model_selection.StratifiedGroupKFold`) rules it out by
#   construction.

fig, ax = plt.subplots(figsize=(7, 4.5))
for (name, scores), marker in zip(fold_scores.items(), ("o", "s"), strict=True):
    ax.errorbar(
        n_estimators,
        scores.mean(axis=0),
        yerr=scores.std(axis=0),
        marker=marker,
        capsize=3,
        label=f"CV over {name}",
    )
ax.plot(
    n_estimators, held_out, marker="^", color="black", label="held-out queries"
)
ax.set_xscale("log")
ax.set_xlabel("n_estimators (boosting rounds)")
ax.set_ylabel("NDCG@10")
ax.set_title("LGBMRanker: cross-validated and held-out NDCG@10")
ax.legend()
fig.tight_layout()

# %%
# Metadata routing is a global scikit-learn setting; we restore its default so the
# rest of the session is unchanged. Without routing, make ``X`` a DataFrame with a
# query-id column, name it with ``group_column=`` in both
# :class:`~sklearn_rank_metrics.GroupedRanker` (which drops it before the ranker
# sees ``X``) and :func:`~sklearn_rank_metrics.make_ranking_scorer`, and pass
# ``groups=`` to ``search.fit`` for the folds.

sklearn.set_config(enable_metadata_routing=False)
