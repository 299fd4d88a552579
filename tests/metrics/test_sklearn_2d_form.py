"""``ndcg_score`` / ``dcg_score`` in scikit-learn's 2-D form follow scikit-learn itself.

In the form ``(n_queries, n_docs)`` with ``group=None`` both are drop-in
replacements: they return scikit-learn's number where it returns one and refuse
with its exception type where it refuses, with a message that names the argument.
Every reference value here is scikit-learn's own (installed), computed in the test.
"""

import re

import numpy as np
import pytest
from sklearn import metrics as skm

import sklearn_rank_metrics as srm

RNG = np.random.default_rng(44)
NEGATIVE_LABELS = [
    (RNG.integers(-3, 4, (n, m)).astype(float), RNG.integers(0, 3, (n, m)).astype(float))
    for n, m in [(1, 2), (3, 4), (5, 6), (4, 3), (2, 5)]
]


@pytest.mark.parametrize("k", [None, 1, 2, 3])
@pytest.mark.parametrize(("y_true", "y_score"), NEGATIVE_LABELS)
def test_dcg_sums_negative_labels_as_scikit_learn(y_true, y_score, k):
    expected = skm.dcg_score(y_true, y_score, k=k)  # tied scores averaged, like ours
    assert srm.dcg_score(y_true, y_score, k=k) == pytest.approx(expected, rel=1e-12)
    assert srm.dcg_score(y_true, y_score, k=k, convention="sklearn") == pytest.approx(
        expected, rel=1e-12
    )
    weights = np.linspace(0.5, 2.0, len(y_true))
    assert srm.dcg_score(y_true, y_score, k=k, sample_weight=weights) == pytest.approx(
        skm.dcg_score(y_true, y_score, k=k, sample_weight=weights), rel=1e-12
    )
    name = "dcg" if k is None else f"dcg@{k}"
    assert srm.evaluate(y_true, y_score, metrics=[name])[name] == pytest.approx(
        expected, rel=1e-12
    )


def test_dcg_of_a_query_of_negative_labels_only_is_negative_as_in_scikit_learn():
    y_true, y_score = np.array([[-1.0, -2.0], [0.0, 0.0]]), np.array([[0.2, 0.1], [0.3, 0.4]])
    expected = skm.dcg_score(y_true, y_score)
    assert expected < 0
    assert srm.dcg_score(y_true, y_score) == pytest.approx(expected, rel=1e-12)
    # without ties scikit-learn's ignore_ties=True ranks as ours does
    assert srm.dcg_score(y_true, y_score, ignore_ties=True) == pytest.approx(
        skm.dcg_score(y_true, y_score, ignore_ties=True), rel=1e-12
    )


@pytest.mark.parametrize(("y_true", "y_score"), NEGATIVE_LABELS)
def test_ndcg_refuses_negative_labels_as_scikit_learn(y_true, y_score):
    y_true = y_true.copy()
    y_true[0, 0] = -1.0
    with pytest.raises(ValueError) as theirs:
        skm.ndcg_score(y_true, y_score)
    with pytest.raises(ValueError, match=re.escape(str(theirs.value))):
        srm.ndcg_score(y_true, y_score)


def test_flat_rows_keep_the_package_rule_for_negative_labels():
    with pytest.raises(ValueError, match=r"y_true of dcg_score must be >= 0.*got -1.0 at row 0"):
        srm.dcg_score([-1.0, 2.0], [0.2, 0.1], [0, 0])
    # other gains than scikit-learn's linear one refuse in 2-D as well
    with pytest.raises(ValueError, match=r"must be >= 0.*row 0, column 0"):
        srm.dcg_score(np.array([[-1.0, 2.0]]), np.array([[0.2, 0.1]]), gain="exponential")
