"""Ranked item lists against relevant items (the recommender form): :func:`read_recommendations`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ._ranking_data import RankingData


def _is_user_mapping(value: Any) -> bool:
    """A dict, or a pandas Series indexed by user (not a DataFrame)."""
    if isinstance(value, Mapping):
        return True
    return hasattr(value, "index") and hasattr(value, "items") and not hasattr(value, "columns")


def _user_pairs(recommended: Any, relevant: Any) -> tuple[list, list, list]:
    """Aligned (users, recommendation lists, relevant items) from mappings or sequences."""
    mappings = (_is_user_mapping(recommended), _is_user_mapping(relevant))
    if mappings == (True, True):
        recommended_map, relevant_map = dict(recommended.items()), dict(relevant.items())
        only_recommended = [u for u in recommended_map if u not in relevant_map]
        only_relevant = [u for u in relevant_map if u not in recommended_map]
        if only_recommended or only_relevant:
            raise ValueError(
                "read_recommendations: recommended and relevant must have the same users; "
                f"{len(only_recommended)} only in recommended (e.g. {only_recommended[:3]}), "
                f"{len(only_relevant)} only in relevant (e.g. {only_relevant[:3]}). Select "
                "the users to evaluate, and give [] or set() for a user without items."
            )
        users = list(relevant_map)
        return users, [recommended_map[u] for u in users], [relevant_map[u] for u in users]
    if mappings != (False, False):
        raise TypeError(
            "read_recommendations: recommended and relevant must both be mappings "
            "{user: items} or both sequences aligned by position."
        )
    for argument, value in (("recommended", recommended), ("relevant", relevant)):
        if isinstance(value, (str, bytes)) or not hasattr(value, "__len__"):
            raise TypeError(
                f"read_recommendations: {argument} must be a mapping {{user: items}} or a "
                f"sequence with one entry per user; got {type(value).__name__}."
            )
    if len(recommended) != len(relevant):
        raise ValueError(
            f"read_recommendations: recommended has {len(recommended)} users and relevant "
            f"has {len(relevant)}; aligned sequences must have the same length."
        )
    return list(range(len(recommended))), list(recommended), list(relevant)


def _recommended_items(items: Any, user: Any) -> list:
    if (
        isinstance(items, (str, bytes, Mapping, set, frozenset))
        or not hasattr(items, "__len__")
        or (isinstance(items, np.ndarray) and items.ndim != 1)
    ):
        raise TypeError(
            f"read_recommendations: the recommendations of user {user!r} must be an ordered "
            f"sequence of item ids (best first); got {type(items).__name__}."
        )
    listed = list(items.tolist() if isinstance(items, np.ndarray) else items)
    try:
        positions = dict(zip(listed, range(len(listed)), strict=True))
    except TypeError:
        raise TypeError(
            f"read_recommendations: the item ids of user {user!r} must be hashable."
        ) from None
    if len(positions) != len(listed):
        first: dict[Any, int] = {}
        for position, item in enumerate(listed):
            if item in first:
                raise ValueError(
                    f"read_recommendations: user {user!r} has item {item!r} twice in its "
                    f"recommendations, at positions {first[item]} and {position} (0-based)."
                )
            first[item] = position
    return listed


def _relevant_grades(relevant: Any, user: Any) -> dict:
    """``{item: grade}``; a set or sequence of items means grade 1 for each."""
    if isinstance(relevant, Mapping):
        grades = dict(relevant)
        for item, grade in grades.items():
            is_number = isinstance(grade, (int, float, np.integer, np.floating))
            if not is_number or isinstance(grade, (bool, np.bool_)) or not np.isfinite(grade):
                error = ValueError if is_number else TypeError
                raise error(
                    f"read_recommendations: the grade of item {item!r} of user {user!r} must "
                    f"be a finite number; got {grade!r}."
                )
        return grades
    if isinstance(relevant, (str, bytes)) or not hasattr(relevant, "__iter__"):
        raise TypeError(
            f"read_recommendations: the relevant items of user {user!r} must be a set, a "
            f"sequence or a dict {{item: grade}}; got {relevant!r} (wrap a single item as "
            "{item})."
        )
    items = list(relevant.tolist() if isinstance(relevant, np.ndarray) else relevant)
    try:
        grades = dict.fromkeys(items, 1)
    except TypeError:
        raise TypeError(
            f"read_recommendations: the relevant item ids of user {user!r} must be hashable."
        ) from None
    if len(grades) != len(items):
        raise ValueError(
            f"read_recommendations: user {user!r} lists a relevant item more than once."
        )
    if isinstance(relevant, (set, frozenset)):
        try:  # set order changes between runs: sort when the ids allow it
            grades = dict.fromkeys(sorted(items), 1)
        except TypeError:
            pass
    return grades


def _id_array(values: list) -> np.ndarray:
    """Ids as given: a str or int64 array when they are all str or all ints, else object."""
    kinds = {type(value) for value in values}
    if kinds and kinds <= {str, np.str_}:
        return np.array(values, dtype=str)
    if (
        kinds
        and all(issubclass(kind, (int, np.integer)) for kind in kinds)
        and not any(issubclass(kind, (bool, np.bool_)) for kind in kinds)
    ):
        try:
            return np.array(values, dtype=np.int64)
        except OverflowError:
            pass
    return np.fromiter(values, dtype=object, count=len(values))


def read_recommendations(recommended: Any, relevant: Any) -> RankingData:
    """Flat rows from ranked lists of recommended items and the relevant items per user.

    The form of recommender evaluation (``ml_metrics.mapk(actual, predicted, k)``,
    Kaggle's MAP@k and NDCG@k competitions): for each user a ranked list of item
    ids and the set of items that are relevant (or a dict item -> grade).

    Rows, per user: each recommended item, with a score that decreases with its
    position (``len(list) - position``, so ties never occur) and its grade as label
    (0 when not relevant); then each relevant item that was not recommended, with
    score ``-inf`` and its grade: it counts toward recall, the AP denominator
    (including ``min(k, n_relevant)``) and the ideal DCG, never toward a position.

    * A user with relevant items and no recommendations is kept: all its rows are
      ``-inf``, so it scores 0.
    * A user with recommendations and no relevant item is kept: the metric's
      ``replace_undefined_by`` policy decides its value (default 0, as ``ml_metrics``).
    * A user with neither has no row, and is an error (it cannot be represented).
    * An item twice in one recommendation list (or in one list of relevant items) is
      an error naming the user and positions; nothing is deduplicated silently.

    Parameters
    ----------
    recommended : mapping or sequence
        ``{user: [item, ...]}`` with the best item first, or a sequence (list, tuple,
        2-D array) of such lists, one per user.
    relevant : mapping or sequence
        ``{user: items}`` (or a sequence aligned with ``recommended``) where ``items``
        is a set or sequence of relevant item ids (grade 1 each) or a dict
        ``{item: grade}``. Note the order of the arguments: ``mapk(actual,
        predicted)`` takes the relevant items first.

    Returns
    -------
    data : RankingData
        ``y_true`` (grades), ``y_score``, ``group`` (the user ids; positions
        ``0..n_users-1`` for aligned sequences), ``doc_id`` (the item ids). Users
        come in the order of ``relevant``.

    Raises
    ------
    ValueError
        Mappings with different users, aligned sequences of different lengths, a
        duplicate item, a grade that is not a finite number, a user without rows.
    TypeError
        A mapping with a sequence, a str or set as a recommendation list, a single
        item instead of a set of relevant items.

    Examples
    --------
    >>> from sklearn_rank_metrics import mean_average_precision_score, read_recommendations
    >>> recommended = {"u1": ["a", "b", "c"], "u2": ["x", "y"]}
    >>> relevant = {"u1": {"b", "z"}, "u2": {"x"}}
    >>> data = read_recommendations(recommended, relevant)
    >>> data.doc_id.tolist(), data.y_true.tolist(), data.y_score.tolist()
    (['a', 'b', 'c', 'z', 'x', 'y'], [0.0, 1.0, 0.0, 1.0, 1.0, 0.0],
     [3.0, 2.0, 1.0, -inf, 2.0, 1.0])
    >>> mean_average_precision_score(*data, k=2)  # u1: (1/2) / 2 relevant, u2: 1
    0.625
    """
    users, lists, relevant_items = _user_pairs(recommended, relevant)
    labels: list[float] = []
    scores: list[np.ndarray] = []
    items: list = []
    counts: list[int] = []
    for user, user_list, user_relevant in zip(users, lists, relevant_items, strict=True):
        ranked = _recommended_items(user_list, user)
        grades = _relevant_grades(user_relevant, user)
        chosen = set(ranked)
        missed = [item for item in grades if item not in chosen]
        n_rows = len(ranked) + len(missed)
        if n_rows == 0:
            raise ValueError(
                f"read_recommendations: user {user!r} has no recommendations and no "
                "relevant items, so it has no row; leave it out or give it an item."
            )
        labels.extend(grades.get(item, 0) for item in ranked)
        labels.extend(grades[item] for item in missed)
        scores.append(np.arange(len(ranked), 0, -1, dtype=np.float64))
        scores.append(np.full(len(missed), -np.inf))
        items.extend(ranked)
        items.extend(missed)
        counts.append(n_rows)
    if not users:
        raise ValueError("read_recommendations: no user given.")
    return RankingData(
        np.array(labels, dtype=np.float64),
        np.concatenate(scores),
        np.repeat(_id_array(users), counts),
        doc_id=_id_array(items),
    )
