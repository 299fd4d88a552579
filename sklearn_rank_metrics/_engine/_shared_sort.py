"""One sort for several metrics of the same predictions: the scorers' shared sort.

scikit-learn calls each scorer of a multi-metric ``scoring=`` dict on its own, with
the same ``y`` and the same (recomputed) predictions. The scorers made together by
``make_ranking_scorers`` share one :class:`SharedSort`: while a scorer runs, the
sort it belongs to is active (a context variable, so threads and tasks never see
each other's), and :func:`ranked_groups` hands the next scorer of the set the
inputs already sorted, when its inputs are equal, bit for bit, to those sorted.

An entry is kept until every scorer of the set has used it, or until the next
call with other inputs, and a scorer never reuses an entry twice: called again,
it sorts again. The entry keeps copies of the inputs it compares against, so
changing an array in place between two calls is seen.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._ranked_groups import RankedGroups, rank_groups


@dataclass
class _Entry:
    inputs: tuple[np.ndarray | None, ...]
    ranked: RankedGroups
    used: set[int] = field(default_factory=set)


def _comparable(value: Any) -> np.ndarray | None:
    """The input as an array whose equality means bit-for-bit equality (floats as ints)."""
    if value is None:
        return None
    array = np.asarray(value)
    if array.dtype.kind in "fc":
        array = np.ascontiguousarray(array)
        array = array.view(f"u{array.dtype.itemsize}") if array.dtype.kind == "f" else array
    return array


def _equal(stored: np.ndarray | None, new: np.ndarray | None) -> bool:
    if stored is None or new is None:
        return stored is None and new is None
    same_kind = stored.dtype == new.dtype and stored.shape == new.shape
    return same_kind and bool(np.array_equal(stored, new))


class SharedSort:
    """The last sorted inputs of a set of scorers (see the module docstring)."""

    def __init__(self, n_users: int) -> None:
        self.n_users = n_users
        self._entry: _Entry | None = None
        self._lock = threading.Lock()

    def ranked(self, user: int, inputs: tuple[Any, Any, Any, Any]) -> RankedGroups:
        """The sorted ``(y_true, y_score, group, sample_weight)`` for scorer ``user``."""
        comparable = tuple(_comparable(value) for value in inputs)
        with self._lock:
            entry = self._entry
        if (
            entry is not None
            and user not in entry.used
            and all(_equal(a, b) for a, b in zip(entry.inputs, comparable, strict=True))
        ):
            with self._lock:
                entry.used.add(user)
                if len(entry.used) >= self.n_users and self._entry is entry:
                    self._entry = None  # every scorer has had it: free the memory
            return entry.ranked
        y_true, y_score, group, sample_weight = inputs
        ranked = rank_groups(y_true, y_score, group, sample_weight=sample_weight)
        copies = tuple(None if array is None else array.copy() for array in comparable)
        with self._lock:
            self._entry = _Entry(copies, ranked, {user}) if self.n_users > 1 else None
        return ranked

    def __getstate__(self) -> dict[str, Any]:
        # a pickled scorer (joblib workers) starts with no entry and its own lock
        return {"n_users": self.n_users}

    def __setstate__(self, state: dict[str, Any]) -> None:
        SharedSort.__init__(self, state["n_users"])


_ACTIVE: ContextVar[tuple[SharedSort, int] | None] = ContextVar("shared_sort", default=None)


@contextlib.contextmanager
def sharing_sort(shared: SharedSort | None, user: int) -> Iterator[None]:
    """Within the block, metric functions sort through ``shared`` as scorer ``user``."""
    if shared is None:
        yield
        return
    token = _ACTIVE.set((shared, user))
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def ranked_groups(
    y_true: Any,
    y_score: Any,
    group: Any,
    *,
    sample_weight: Any,
    judged: Any = None,
) -> RankedGroups:
    """:func:`rank_groups`, through the active shared sort if there is one.

    A ``judged`` mask is not part of what the scorers share: with one, the rows are
    sorted here.
    """
    active = _ACTIVE.get()
    if active is None or judged is not None:
        return rank_groups(
            y_true,
            y_score,
            group,
            sample_weight=sample_weight,
            judged=judged,
        )
    shared, user = active
    return shared.ranked(user, (y_true, y_score, group, sample_weight))
