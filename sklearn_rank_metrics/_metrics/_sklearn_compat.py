"""scikit-learn's own input checks of ``ndcg_score`` / ``dcg_score``, for its 2-D form.

In scikit-learn's form (``group=None``, ``(n_queries, n_docs)`` arrays) these two
functions are drop-in replacements, so they refuse what scikit-learn refuses, with
its exception types and messages. Their declarations run :func:`like_scikit_learn`
before ranking.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from .._engine._caller import caller_name
from .._engine._inputs import (
    check_array_like,
    check_shapes,
    first_text,
    format_index,
    read_if_dlpack,
    to_numpy,
)


def like_scikit_learn(metric_function: str) -> Callable[[Mapping[str, Any]], None]:
    """The ``check`` of ``@metric`` for ``metric_function``: scikit-learn's checks, 2-D only."""

    def check(arguments: Mapping[str, Any]) -> None:
        if arguments["group"] is None:
            _check_like_scikit_learn(
                metric_function,
                arguments["y_true"],
                arguments["y_score"],
                arguments["sample_weight"],
            )

    return check


def _check_like_scikit_learn(
    metric_function: str, y_true: Any, y_score: Any, sample_weight: Any
) -> None:
    """scikit-learn's own input checks of its ``ndcg_score`` / ``dcg_score``, for 2-D input.

    In scikit-learn's form (``group=None``, ``(n_queries, n_docs)`` arrays) these
    functions are drop-in replacements, so they refuse what scikit-learn refuses,
    with its exception types: non-numeric or non-finite arrays, inconsistent shapes,
    target types other than multilabel-indicator / continuous-multioutput /
    multiclass-multioutput, and for NDCG negative labels or a single document per
    query. Where scikit-learn's message does not name the argument (a sparse matrix,
    shapes that differ, text) the message is this package's, which names it and the
    first bad cell; elsewhere it is scikit-learn's own. DCG sums negative labels as
    negative gains, as scikit-learn's ``dcg_score`` does (the kernel's rule for 2-D
    input with linear gain). One rule of this package stays: a ``-inf`` score is a
    judged row that was not retrieved. The flat form keeps its own documented rules
    (labels >= 0).
    """
    # sparse matrices, scalars and iterators are refused by name, in any shape
    check_array_like(y_true, "y_true")
    check_array_like(y_score, "y_score")
    # another library's arrays (DLPack) are read here, or refused (device, gradients)
    y_true, y_score = read_if_dlpack(y_true, "y_true"), read_if_dlpack(y_score, "y_score")
    if np.ndim(y_true) != 2:
        return
    if _passes_scikit_learn_checks(metric_function, y_true, y_score, sample_weight):
        return
    from sklearn.utils import check_array
    from sklearn.utils.multiclass import type_of_target

    labels, scores = to_numpy(y_true, "y_true"), to_numpy(y_score, "y_score")
    check_shapes(labels, scores)  # "must have the same shape; got (2, 5) and (10,)"
    _refuse_text(labels, "y_true")
    _refuse_text(scores, "y_score")
    labels = check_array(labels, ensure_2d=False)
    if scores.dtype.kind == "f":  # -inf is this package's unretrieved row, not an error
        scores = np.where(scores == -np.inf, 0.0, scores)
    check_array(scores, ensure_2d=False)
    # sample_weight: its length is checked, by name, with the other inputs
    if metric_function == "ndcg_score":
        if labels.min() < 0:
            raise ValueError("ndcg_score should not be used on negative y_true values.")
        if labels.shape[1] <= 1:
            raise ValueError(
                "Computing NDCG is only meaningful when there is more than 1 document. "
                f"Got {labels.shape[1]} instead."
            )
    target = type_of_target(labels, input_name="y_true")
    supported = ("multilabel-indicator", "continuous-multioutput", "multiclass-multioutput")
    if target not in supported:
        raise ValueError(f"Only {supported} formats are supported. Got {target} instead")


def _refuse_text(array: np.ndarray, name: str) -> None:
    """Text in scikit-learn's 2-D form: a ValueError (as scikit-learn's) naming the cell."""
    first = first_text(array)
    if first is not None:
        value = array.flat[first]
        shown = value.item() if isinstance(value, np.generic) else value
        raise ValueError(
            f"{name} of {caller_name()} must hold numbers; got text {shown!r} at "
            f"{format_index(first, array.shape)}."
        )


def _passes_scikit_learn_checks(
    metric_function: str, y_true: Any, y_score: Any, sample_weight: Any
) -> bool:
    """Whether :func:`_check_like_scikit_learn` would pass, told from a few reductions.

    True for plain numeric NumPy arrays of the same 2-D shape with at least one
    query and two documents, finite labels (>= 0 for NDCG) and finite or ``-inf``
    scores, without ``sample_weight``: every check scikit-learn makes passes for
    them (any such ``y_true`` is multilabel-indicator, multiclass-multioutput or
    continuous-multioutput), so its validation, about 1 ms, is skipped.
    """
    numeric = all(
        type(array) is np.ndarray and array.dtype.kind in "biuf" for array in (y_true, y_score)
    )
    if not numeric or sample_weight is not None or y_true.shape != y_score.shape:
        return False
    if y_true.shape[0] < 1 or y_true.shape[1] < 2:
        return False
    if y_true.dtype.kind == "f" and not np.isfinite(y_true).all():
        return False
    if metric_function == "ndcg_score" and y_true.min() < 0:
        return False
    if y_score.dtype.kind == "f":
        return bool((np.isfinite(y_score) | (y_score == -np.inf)).all())
    return True
