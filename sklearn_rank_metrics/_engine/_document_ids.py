"""Document ids as a tool's tie order: :class:`DocumentIds`, checked once per call.

trec_eval reads every docno as a string and breaks tied scores with ``strcmp``, so
``"10"`` sorts before ``"9"``; ids given as integers are compared the same way here
(as their decimal text), never as numbers. cwl_eval (ir_measures' RBP) keeps the
order in which the run lists its documents instead: a reader's rows carry that
order beside their ids.
"""

from __future__ import annotations

from itertools import repeat
from typing import Any

import numpy as np

from ._caller import caller_name
from ._inputs import factorize_text_ids, plain_array

ASCENDING = "ascending"
DESCENDING = "descending"
RUN_ORDER = "run"  # the order of the run as read (cwl_eval's tie order)


class DocumentIds:
    """Checked document ids of the rows, with the tie orders a tool reads from them.

    ``ids``: one str or int id per row. ``run_position`` (optional): the position of
    each row in the run it was read from (a run file's line order; ``-1`` for a row
    the run did not return), the tie order of a tool that keeps the run's own order
    (cwl_eval, which ir_measures calls for RBP); for several runs on the same rows, a
    dict ``{run name: positions}``, one of which :meth:`for_run` picks.

    Passed as ``doc_id=`` it is an array-like of the ids (``np.asarray`` gives them),
    so that a :class:`RankingData` spread out hands its run order along with its ids.
    The orders are computed on first use and kept: the ids are factorised once per
    call, whichever orderings its metrics need.
    """

    __slots__ = ("_run_order", "_text_orders", "ids", "run_position")

    def __init__(
        self,
        ids: np.ndarray,
        run_position: Any = None,
        text_orders: dict[str, np.ndarray] | None = None,
    ) -> None:
        self.ids = ids
        self.run_position = run_position
        # the orders by id, shared by the runs of the same rows (for_run)
        self._text_orders: dict[str, np.ndarray] = {} if text_orders is None else text_orders
        self._run_order: np.ndarray | None = None

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self.ids if dtype is None else self.ids.astype(dtype)

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def shape(self) -> tuple[int, ...]:
        return self.ids.shape

    def for_run(self, name: Any) -> DocumentIds:
        """The ids with the run order of run ``name`` (several runs on the same rows);
        the orders by id, once computed, are shared."""
        if not isinstance(self.run_position, dict):
            return self
        return DocumentIds(self.ids, self.run_position.get(name), self._text_orders)

    def order(self, direction: str | None) -> np.ndarray | None:
        """The row permutation of a tie order: ids ascending or descending (as text, by
        code point: trec_eval's ``strcmp``), or the run's order; None for ``None`` or
        for the run's order of rows that carry none."""
        if direction is None:
            return None
        if direction == RUN_ORDER:
            if not isinstance(self.run_position, np.ndarray):
                return None
            if self._run_order is None:
                # rows the run did not return (-1) go last: they rank last anyway
                key = np.where(self.run_position < 0, len(self.ids), self.run_position)
                self._run_order = np.argsort(key, kind="stable")
            return self._run_order
        if direction not in self._text_orders:
            codes = _text_codes(self.ids)
            # stable, so a document id given twice keeps its input order either way
            self._text_orders[ASCENDING] = np.argsort(codes, kind="stable")
            self._text_orders[DESCENDING] = np.argsort(-codes, kind="stable")
        return self._text_orders[direction]

    def moved(self, order: np.ndarray) -> DocumentIds:
        """The ids of the rows in ``order`` (their tie orders recomputed if needed)."""
        position = self.run_position
        if isinstance(position, np.ndarray):
            position = position[order]
        return DocumentIds(self.ids[order], position)


def _text_codes(ids: np.ndarray) -> np.ndarray:
    """The ids' codes in text order (by code point), whatever their type."""
    if ids.dtype.kind in "US":
        return np.unique(ids, return_inverse=True)[1].reshape(-1)
    if ids.dtype.kind == "O":
        # the ids as text objects: a fixed-width copy would take (rows) x (longest id)
        # x 4 bytes, gigabytes for one very long id
        return factorize_text_ids(np.frompyfunc(str, 1, 1)(ids).astype(object))[0]
    return np.unique(ids.astype(str), return_inverse=True)[1].reshape(-1)


def check_doc_ids(doc_id: Any, y_true: Any) -> DocumentIds:
    """``doc_id`` checked: one str or int id per row of a flat ``y_true``.

    Every call that is given document ids checks them, whether or not a preset
    then sorts by them: a wrong length or type is an error, never ignored. A
    :class:`DocumentIds` (a reader's rows spread out) keeps its run order.
    """
    run_position = doc_id.run_position if isinstance(doc_id, DocumentIds) else None
    if isinstance(doc_id, DocumentIds):
        doc_id = doc_id.ids
    ids = plain_array(doc_id, "doc_id")  # a null is named here, as doc_id
    labels = plain_array(y_true)
    if ids.ndim != 1 or labels.ndim != 1:
        raise ValueError(
            f"The 'doc_id' parameter of {caller_name()} takes flat rows: one id per row of a "
            f"1-D y_true; got doc_id of shape {ids.shape} for y_true of "
            f"{labels.ndim} dimension(s)."
        )
    if len(ids) != len(labels):
        raise ValueError(
            f"The 'doc_id' parameter of {caller_name()} has {len(ids)} rows but y_true has "
            f"{len(labels)}; give one document id per row."
        )
    if ids.dtype.kind == "O":
        kinds = np.fromiter(map(isinstance, ids, repeat((str, int))), bool, len(ids))
        if not kinds.all():
            bad = int(np.flatnonzero(~kinds)[0])
            raise TypeError(
                f"The 'doc_id' parameter of {caller_name()} must hold str or int ids; "
                f"got {ids[bad]!r} at row {bad}."
            )
    elif ids.dtype.kind not in "USbiu":
        raise TypeError(
            f"The 'doc_id' parameter of {caller_name()} must hold str or int ids (compared "
            f"as text, as trec_eval compares docnos); got dtype {ids.dtype}."
        )
    return DocumentIds(ids, run_position)
