"""``mapk@k`` is ml_metrics' (Kaggle's) MAP@k on read_recommendations data (issue 31, item 11).

ml_metrics is not installable here, so its ``apk`` is written below from its
documentation: over the first ``k`` predicted items, the precision at each position
that holds an actual item (counted at its first occurrence only), summed and divided
by ``min(len(actual), k)``; 0 when ``actual`` is empty. ``mapk`` is the mean of
``apk`` over users. trec_eval's ``map_cut_k`` (our ``map@k``) divides by
``len(actual)`` instead.
"""

import numpy as np
import pytest

import sklearn_rank_metrics as srm


def apk_by_hand(actual, predicted, k, denominator="ml_metrics"):
    actual = set(actual)
    if not actual:
        return 0.0
    seen, hits, total = set(), 0, 0.0
    for position, item in enumerate(predicted[:k], start=1):
        if item in actual and item not in seen:
            hits += 1
            total += hits / position
        seen.add(item)
    return total / (min(len(actual), k) if denominator == "ml_metrics" else len(actual))


def _users(seed, n_users=300, n_items=40):
    """Lists without repeats; some users with no actual item, some with no prediction."""
    rng = np.random.default_rng(seed)
    recommended, relevant = {}, {}
    for user in range(n_users):
        n_predicted = int(rng.integers(0, 16))
        n_actual = int(rng.integers(0, 14)) if user % 7 else 0  # every 7th: nothing relevant
        if n_predicted == 0 and n_actual == 0:
            n_predicted = 3  # a user with neither cannot be represented
        recommended[f"u{user}"] = [f"i{i}" for i in rng.permutation(n_items)[:n_predicted]]
        relevant[f"u{user}"] = {f"i{i}" for i in rng.permutation(n_items)[:n_actual]}
    return recommended, relevant


@pytest.mark.parametrize("k", [1, 3, 10, 20])
@pytest.mark.parametrize("seed", [0, 1])
def test_mapk_is_ml_metrics_mapk_on_recommendation_lists(seed, k):
    recommended, relevant = _users(seed)
    expected = np.mean([apk_by_hand(relevant[u], recommended[u], k) for u in recommended])
    data = srm.read_recommendations(recommended, relevant)
    name = f"mapk@{k}"
    assert srm.evaluate(data, metrics=[name])[name] == pytest.approx(expected, rel=1e-12)
    same = srm.mean_average_precision_score(data, k=k, denominator="min(k,n_relevant)")
    assert same == pytest.approx(expected, rel=1e-12)
    # map@k is trec_eval's map_cut_k: the same sum over all relevant items
    trec = np.mean([apk_by_hand(relevant[u], recommended[u], k, "all") for u in recommended])
    got = srm.evaluate(data, metrics=[f"map@{k}"])[f"map@{k}"]
    assert got == pytest.approx(trec, rel=1e-12)
    if k < 14:  # some user has more than k relevant items: trec_eval divides by more
        assert trec < expected


def test_a_repeated_prediction_is_refused_not_deduplicated():
    # ml_metrics counts a repeat at its first position only, but the repeat keeps its
    # position: dropping it would change the value, so the reader refuses it
    assert apk_by_hand({"a", "b"}, ["a", "a", "b"], 3) == pytest.approx((1 + 2 / 3) / 2)
    assert apk_by_hand({"a", "b"}, ["a", "b"], 3) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="u1"):
        srm.read_recommendations({"u1": ["a", "a", "b"]}, {"u1": {"a", "b"}})


def test_users_without_relevant_items_score_zero_in_both():
    data = srm.read_recommendations({"u1": ["a", "b"], "u2": ["c"]}, {"u1": {"b"}, "u2": set()})
    # u1: (1/2) / min(2, 1) = 1/2; u2: 0 as ml_metrics; mean 1/4
    assert srm.evaluate(data, metrics=["mapk@2"])["mapk@2"] == pytest.approx(0.25)
