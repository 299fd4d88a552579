"""One sort for several metrics of the same predictions: the scorers' shared sort.

scikit-learn calls each scorer of a multi-metric ``scoring=`` dict on its own, with
the same ``y`` and the same (recomputed) predictions. The scorers made together by
``make_ranking_scorers`` share one :class:`SharedSort`: while a scorer runs, the
sort it belongs to is active (a context variable, so threads and tasks never see
each other's), and :func:`ranked_rows` hands the next scorer of the set the rows
already sorted, when its checked rows are equal, bit for bit, to those sorted (each
scorer still checks its inputs: scikit-learn calls it on its own).

An entry is kept until every scorer of the set has used it, or until the next
call with other rows, and a scorer never reuses an entry twice: called again, it
sorts again. The entry keeps copies of the columns it compares against.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._ranked_groups import RankedGroups, rank_rows
from ._rows import Rows


@dataclass
class _Entry:
    columns: tuple[np.ndarray, ...]
    ranked: RankedGroups
    used: set[int] = field(default_factory=set)


def _columns(rows: Rows) -> tuple[np.ndarray, ...]:
    """What the sort of ``rows`` depends on, as arrays whose equality means bit-for-bit
    equality (floats compared as integers)."""
    queries = rows.queries
    codes = queries.offsets if queries.codes is None else queries.codes
    judged = np.zeros(0, bool) if rows.judged is None else rows.judged
    arrays = (rows.labels, rows.scores, codes, np.asarray(queries.ids), rows.query_weight, judged)
    return tuple(_comparable(array) for array in arrays) + (
        np.asarray([len(rows.shape), rows.judgments_given]),
    )


def _comparable(array: np.ndarray) -> np.ndarray:
    if array.dtype.kind == "f":
        array = np.ascontiguousarray(array)
        return array.view(f"u{array.dtype.itemsize}")
    return array


def _equal(stored: np.ndarray, new: np.ndarray) -> bool:
    same_kind = stored.dtype == new.dtype and stored.shape == new.shape
    return same_kind and bool(np.array_equal(stored, new))


class SharedSort:
    """The last sorted rows of a set of scorers (see the module docstring)."""

    def __init__(self, n_users: int) -> None:
        self.n_users = n_users
        self._entry: _Entry | None = None
        self._lock = threading.Lock()

    def ranked(self, user: int, rows: Rows) -> RankedGroups:
        """The sorted ``rows`` for scorer ``user``."""
        columns = _columns(rows)
        with self._lock:
            entry = self._entry
        if (
            entry is not None
            and user not in entry.used
            and all(_equal(a, b) for a, b in zip(entry.columns, columns, strict=True))
        ):
            with self._lock:
                entry.used.add(user)
                if len(entry.used) >= self.n_users and self._entry is entry:
                    self._entry = None  # every scorer has had it: free the memory
            return entry.ranked
        ranked = rank_rows(rows)
        copies = tuple(array.copy() for array in columns)
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


def ranked_rows(rows: Rows) -> RankedGroups:
    """:func:`~._ranked_groups.rank_rows`, through the active shared sort if there is one."""
    active = _ACTIVE.get()
    if active is None:
        return rank_rows(rows)
    shared, user = active
    return shared.ranked(user, rows)
