"""Fall-out at k (torchmetrics' ``RetrievalFallOut``): the share of non-relevant rows in the top k.

Expected values come from arithmetic written in the tests, from an enumeration of
every order of the tied rows written here, and from the slow reference
(``tests/support/reference.py``). The comparison with torchmetrics itself (torch is
not a test dependency) ran in a throw-away environment; the commit message gives the
command and the agreement.
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest

from sklearn_rank_metrics import evaluate, fallout_at_k_loss
from sklearn_rank_metrics._metrics._registry import METRICS, parse_metric
from tests.support import reference as ref

TIES = ("average", "input", "optimistic", "pessimistic")


def test_hand_computed_values():
    y = [1, 0, 1, 0, 0]
    s = [0.9, 0.8, 0.7, 0.6, 0.5]  # non-relevant rows at ranks 2, 4, 5: N = 3
    g = [0] * 5
    assert fallout_at_k_loss(y, s, g, k=1) == 0.0
    assert fallout_at_k_loss(y, s, g, k=2) == pytest.approx(1 / 3)
    assert fallout_at_k_loss(y, s, g, k=3) == pytest.approx(1 / 3)
    assert fallout_at_k_loss(y, s, g, k=4) == pytest.approx(2 / 3)
    assert fallout_at_k_loss(y, s, g) == 1.0  # no cutoff: every retrieved row
    # two queries, averaged: (1/2 + 0/1) / 2 at k=1
    assert fallout_at_k_loss(
        [0, 0, 1, 1, 0], [0.9, 0.1, 0.5, 0.9, 0.1], [7, 7, 7, 8, 8], k=1
    ) == pytest.approx(0.25)


def test_relevance_level_decides_what_is_not_relevant():
    y, s, g = [2, 1, 0], [0.9, 0.8, 0.7], [0, 0, 0]
    # label >= 2 relevant: rows 2 and 3 are non-relevant, row 2 at rank 2
    assert fallout_at_k_loss(y, s, g, k=2, relevance_level=2) == pytest.approx(0.5)
    assert fallout_at_k_loss(y, s, g, k=2) == 0.0  # label > 0: row 3 alone, at rank 3


def test_unretrieved_rows_count_in_the_denominator_never_in_the_top_k():
    y, s, g = [0, 1, 0, 0], [0.9, 0.8, -np.inf, -np.inf], [0, 0, 0, 0]
    # N = 3 non-relevant rows, 1 retrieved (rank 1): 1/3 at any cutoff >= 1
    for k in (1, 2, 4, None):
        assert fallout_at_k_loss(y, s, g, k=k) == pytest.approx(1 / 3)


def test_tie_across_the_cutoff_is_the_mean_over_orders():
    # rows 1 (relevant) and 2 (not) tied for rank 1, k=1: N = 2; the non-relevant row
    # is at rank 1 in half of the orders: (1/2) * (1/2) + row 3 never = 1/4
    y, s, g = [1, 0, 0], [0.5, 0.5, 0.1], [0, 0, 0]
    assert fallout_at_k_loss(y, s, g, k=1) == pytest.approx(0.25)
    assert fallout_at_k_loss(y, s, g, k=1, ties="optimistic") == 0.0
    assert fallout_at_k_loss(y, s, g, k=1, ties="pessimistic") == 0.5
    assert fallout_at_k_loss(y, s, g, k=1, ties="input") == 0.0


def _fallout_of_order(labels, k, level):
    """Fall-out@k of one query whose retrieved rows are in ``labels`` rank order."""
    relevant = [label > 0 if level is None else label >= level for label in labels]
    n_non = sum(not r for r in relevant)
    depth = len(labels) if k is None else min(k, len(labels))
    return sum(not r for r in relevant[:depth]) / n_non


def _every_order(y, s):
    """Every order of the rows of one query (scores descending, ties in any order)."""
    blocks = [[i for i in range(len(s)) if s[i] == value] for value in sorted(set(s), reverse=True)]
    for arrangement in itertools.product(*(itertools.permutations(b) for b in blocks)):
        yield [y[i] for block in arrangement for i in block]


@pytest.mark.parametrize("seed", range(30))
def test_average_ties_equal_brute_force_over_tie_orders(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 7))
    y = rng.integers(0, 3, n).astype(float)
    y[rng.integers(0, n)] = 0.0  # at least one non-relevant row: defined
    s = rng.integers(0, 3, n).astype(float)  # few distinct scores: many ties
    level = [None, 2.0][seed % 2]
    if not any((label < 2.0) if level else (label <= 0) for label in y):
        pytest.skip("no non-relevant row at this level")
    for k in (1, 2, 3, None):
        values = [_fallout_of_order(order, k, level) for order in _every_order(list(y), list(s))]
        kwargs = {"k": k, "relevance_level": level, "group": np.zeros(n)}
        assert fallout_at_k_loss(y, s, **kwargs) == pytest.approx(np.mean(values), abs=1e-12)
        assert fallout_at_k_loss(y, s, ties="optimistic", **kwargs) == pytest.approx(min(values))
        assert fallout_at_k_loss(y, s, ties="pessimistic", **kwargs) == pytest.approx(max(values))


@pytest.mark.parametrize("policy", [0.0, 1.0, math.nan, "skip"])
@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("seed", range(6))
def test_matches_the_reference_with_every_policy(seed, ties, policy):
    rng = np.random.default_rng(100 + seed)
    n = 40
    group = rng.integers(0, 8, n)
    y = rng.integers(0, 3, n).astype(float)
    y[group == 3] = 1.0  # query 3 has no non-relevant row: undefined
    s = rng.integers(0, 5, n).astype(float)
    s[rng.random(n) < 0.1] = -np.inf
    weights = rng.uniform(0.5, 2.0, 8)[group]
    for k in (None, 1, 3):
        per_query = ref.reference_per_query("fallout", y, s, group, ties=ties, k=k)
        expected, _ = ref.aggregate(
            per_query, policy, ref.query_weights_from_rows(per_query, weights)
        )
        got = fallout_at_k_loss(
            y, s, group, k=k, ties=ties, replace_undefined_by=policy, sample_weight=weights
        )
        np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12)


def test_a_query_without_non_relevant_rows_follows_the_policy():
    y, s, g = [1, 0, 1, 1], [0.9, 0.8, 0.7, 0.6], [0, 0, 1, 1]  # query 1: all relevant
    assert fallout_at_k_loss(y, s, g, k=1) == 0.0  # (0 + 0) / 2
    assert fallout_at_k_loss(y, s, g, k=2, replace_undefined_by=1.0) == 1.0  # (1 + 1) / 2
    assert fallout_at_k_loss(y, s, g, k=2, replace_undefined_by="skip") == 1.0
    assert math.isnan(fallout_at_k_loss(y, s, g, k=2, replace_undefined_by=math.nan))
    with pytest.raises(ValueError, match="no non-relevant row"):
        fallout_at_k_loss(y, s, g, k=2, replace_undefined_by="raise")


def test_torchmetrics_preset_scores_a_query_without_non_relevant_rows_1():
    # RetrievalFallOut's empty_target_action="pos": query 1 (all relevant) counts 1;
    # query 0 has its non-relevant row at rank 2: 0 at k=1. Mean (0 + 1) / 2
    y, s, g = [1, 0, 1, 1], [0.9, 0.8, 0.7, 0.6], [0, 0, 1, 1]
    assert fallout_at_k_loss(y, s, g, k=1, convention="torchmetrics") == 0.5
    assert fallout_at_k_loss(y, s, g, k=1) == 0.0  # the package's default policy: 0


def test_registered_lower_is_better_and_evaluated_by_name():
    info = METRICS["fallout"]
    assert info.function is fallout_at_k_loss
    assert info.greater_is_better is False
    assert info.undefined_without == "non_relevant"
    assert info.bounded_01 and info.takes_k and not info.ideal_is_one
    assert str(parse_metric("fallout@5")) == "fallout@5"
    rng = np.random.default_rng(3)
    y, s, g = rng.integers(0, 2, 60), rng.random(60), rng.integers(0, 6, 60)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = evaluate(y, s, g, metrics=["fallout@3", "fallout(ties=pessimistic)"])
    assert table["fallout@3"] == fallout_at_k_loss(y, s, g, k=3)
    assert table["fallout(ties=pessimistic)"] == fallout_at_k_loss(y, s, g, ties="pessimistic")


@pytest.mark.parametrize("seed", range(10))
def test_the_ideal_order_scores_zero_while_relevant_rows_fill_the_cutoff(seed):
    # relevant rows first: the top k holds max(0, k - R) non-relevant rows
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 12))
    y = rng.integers(0, 2, n).astype(float)
    y[0], y[1] = 0.0, 1.0  # both kinds: defined
    score = y + rng.random(n) * 0.5  # every relevant row above every other
    n_relevant, n_non = int(y.sum()), int(n - y.sum())
    for k in range(1, n + 1):
        expected = max(0, k - n_relevant) / n_non
        assert fallout_at_k_loss(y, score, np.zeros(n), k=k) == pytest.approx(expected)


def test_parameters_are_validated_with_the_package_messages():
    with pytest.raises(ValueError, match="The 'k' parameter of fallout_at_k_loss must be"):
        fallout_at_k_loss([1, 0], [0.5, 0.4], [0, 0], k=0)
    with pytest.raises(ValueError, match="The 'ties' parameter of fallout_at_k_loss"):
        fallout_at_k_loss([1, 0], [0.5, 0.4], [0, 0], ties="random")
