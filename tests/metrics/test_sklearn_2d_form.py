"""``ndcg_score`` / ``dcg_score`` in scikit-learn's 2-D form follow scikit-learn itself.

In the form ``(n_queries, n_docs)`` with ``group=None`` both are drop-in
replacements: they return scikit-learn's number where it returns one and refuse
with its exception type where it refuses, with a message that names the argument.
Every reference value here is scikit-learn's own (installed), computed in the test.
"""

import re

import numpy as np
import pytest
import scipy.sparse as sp
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


# ------------------------------------------------------------------ messages


@pytest.mark.parametrize("function", ["ndcg_score", "dcg_score"])
@pytest.mark.parametrize("argument", ["y_true", "y_score"])
def test_a_sparse_matrix_is_refused_by_name(function, argument):
    dense = np.eye(3)
    arrays = {"y_true": dense, "y_score": dense, argument: sp.csr_matrix(dense)}
    with pytest.raises(TypeError):  # scikit-learn refuses it too (InvalidParameterError)
        getattr(skm, function)(arrays["y_true"], arrays["y_score"])
    message = (
        f"{argument} of {function} must be a dense array-like; got a sparse csr_matrix "
        "(convert it with .toarray())."
    )
    with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
        getattr(srm, function)(arrays["y_true"], arrays["y_score"])


@pytest.mark.parametrize(
    "function", ["ndcg_score", "dcg_score", "precision_at_k_score", "mean_average_precision_score"]
)
def test_shapes_that_differ_are_told_as_for_every_metric(function):
    if hasattr(skm, function):  # scikit-learn refuses it with a ValueError too
        with pytest.raises(ValueError):
            getattr(skm, function)(np.ones((2, 5)), np.ones(10))
    message = f"y_true and y_score of {function} must have the same shape; got (2, 5) and (10,)."
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        getattr(srm, function)(np.ones((2, 5)), np.ones(10))


def test_sample_weight_of_the_wrong_length_is_named():
    with pytest.raises(ValueError, match=r"^sample_weight of ndcg_score must have one weight per"):
        srm.ndcg_score(np.eye(3), np.eye(3)[::-1], sample_weight=[1.0, 2.0])


def _text_tables():
    import pandas as pd
    import polars as pl

    letters, digits = [["a", "b"], ["c", "d"]], [["1", "0"], ["0", "1"]]
    return {
        "str array": (np.array(letters), "'a'"),
        "list of str": (letters, "'a'"),
        "bytes array": (np.array(letters, dtype="S1"), "b'a'"),
        "object array of numeric text": (np.array(digits, dtype=object), "'1'"),
        "pandas": (pd.DataFrame(digits), "'1'"),
        "pandas categorical": (pd.DataFrame(letters, dtype="category"), "'a'"),
        "polars": (pl.DataFrame(letters), "'a'"),
    }


@pytest.mark.parametrize("function", ["ndcg_score", "dcg_score"])
@pytest.mark.parametrize("case", list(_text_tables()))
def test_text_in_2d_is_a_value_error_naming_the_cell(function, case):
    table, shown = _text_tables()[case]
    if case == "list of str":  # scikit-learn's own type for text in its 2-D form
        with pytest.raises(ValueError):
            getattr(skm, function)(table, np.ones((2, 2)))
    for argument, arrays in (("y_true", (table, np.ones((2, 2)))), ("y_score", (np.eye(2), table))):
        message = (
            f"{argument} of {function} must hold numbers; got text {shown} at row 0, column 0."
        )
        with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
            getattr(srm, function)(*arrays)
