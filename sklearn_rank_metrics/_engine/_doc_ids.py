"""Document ids as a tool's tie order: trec_eval and ir_measures compare docnos as text.

trec_eval reads every docno as a string and breaks tied scores with ``strcmp``, so
``"10"`` sorts before ``"9"``; ids given as integers are compared the same way here
(as their decimal text), never as numbers.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from itertools import repeat
from typing import TYPE_CHECKING, Any

import numpy as np

from ._caller import caller_name
from ._inputs import factorize_text_ids, plain_array
from ._warnings import TieOrderWarning, warn_at_caller

if TYPE_CHECKING:
    from ._ranked_groups import RankedGroups

ASCENDING = "ascending"
DESCENDING = "descending"


def _flat(values: Any) -> np.ndarray:
    return plain_array(values)


def check_doc_ids(doc_id: Any, y_true: Any) -> np.ndarray:
    """``doc_id`` as a flat NumPy array of str or int ids, one per row of ``y_true``.

    Every call that is given document ids checks them, whether or not a preset
    then sorts by them: a wrong length or type is an error, never ignored.
    """
    ids = plain_array(doc_id, "doc_id")  # a null is named here, as doc_id
    labels = _flat(y_true)
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
    return ids


def doc_id_orders(doc_id: Any, y_true: Any) -> dict[str, np.ndarray]:
    """Row permutations that put document ids in ascending and descending text order.

    The ids are compared as text by code point (the byte order of UTF-8, trec_eval's
    ``strcmp``), whatever their type. Stable, so a document id given twice keeps its
    input order either way. The ids are checked first (:func:`check_doc_ids`).
    """
    ids = check_doc_ids(doc_id, y_true)
    if ids.dtype.kind not in "US":
        if ids.dtype.kind == "O":
            # the ids as text objects: a fixed-width copy would take (rows) x
            # (longest id) x 4 bytes, gigabytes for one very long id
            codes = factorize_text_ids(np.frompyfunc(str, 1, 1)(ids).astype(object))[0]
        else:
            codes = np.unique(ids.astype(str), return_inverse=True)[1].reshape(-1)
    else:
        codes = np.unique(ids, return_inverse=True)[1].reshape(-1)
    return {
        ASCENDING: np.argsort(codes, kind="stable"),
        DESCENDING: np.argsort(-codes, kind="stable"),
    }


def take_rows(values: Any, order: np.ndarray) -> Any:
    """``values`` (an array-like over rows, or None / True) with its rows in ``order``."""
    if values is None or values is True:
        return values
    return _flat(values)[order]


# the tool (convention name) whose tie order by document id the running metric call
# cannot follow, for lack of ids (tie_order_without_ids)
_TOOL_WITHOUT_IDS: ContextVar[str | None] = ContextVar("tool_without_doc_ids", default=None)


@contextmanager
def tie_order_without_ids(tool: str | None) -> Iterator[None]:
    """Inside the block, the metric's ranking is checked for ``tool``'s tie order (None: not).

    A metric function under a convention that orders ties by document id, called
    without ids: the rows are ranked deeper down (the shared sort), where the tied
    scores become known at no cost.
    """
    token = _TOOL_WITHOUT_IDS.set(tool)
    try:
        yield
    finally:
        _TOOL_WITHOUT_IDS.reset(token)


def ties_among_returned(ranked: RankedGroups) -> Any:
    """The id of the first query whose tie order can matter, or None.

    From the engine's tied rows (no sort), a tie whose order changes nothing is left
    out: one among rows of equal labels (and equally judged), or among rows scored
    ``-inf`` (not returned, last in their query). A run of tied rows holds differing
    rows exactly when one of its rows differs from the row before it.
    """
    tied = ranked.tied_rows
    if tied is None:
        return None
    rows, labels = ranked.order, ranked.input_labels
    differs = labels[rows[tied]] != labels[rows[tied - 1]]
    if ranked.judged is not None:
        differs |= ranked.judged[rows[tied]] != ranked.judged[rows[tied - 1]]
    tied = tied[differs]
    if not len(tied):
        return None
    if int(ranked.n_retrieved.sum()) == ranked.n_rows:
        tied = tied[:1]  # every row returned: the first tie is one
    query = np.searchsorted(ranked.offsets, tied, side="right") - 1
    returned = tied < ranked.offsets[query] + ranked.n_retrieved[query]
    first = int(np.argmax(returned))
    if not returned[first]:
        return None
    query_id = ranked.query_ids[query[first]]
    return query_id.item() if isinstance(query_id, np.generic) else query_id


def tool_without_ids() -> str | None:
    """The convention of the enclosing :func:`tie_order_without_ids` block, if any."""
    return _TOOL_WITHOUT_IDS.get()


def warn_ties_without_ids(ranked: RankedGroups, tool: str) -> bool:
    """Warn (:class:`TieOrderWarning`) when tied rows keep an input order the tool would not.

    ``tool``: the convention that orders ties by document id, in a call without ids.
    Returns whether it warned (tied rows whose order can matter).
    """
    query = ties_among_returned(ranked)
    if query is None:
        return False
    caller = caller_name()
    warn_at_caller(
        f"{caller}: convention={tool!r} orders tied scores by document id, as the tool does, "
        f"and this call has no document ids, so tied rows (first in query {query!r}) keep "
        "their input order and the result may differ from the tool's. Pass the ids: "
        f"evaluate(..., doc_id=<one id per row>, convention={tool!r}), or the RankingData of "
        f"read_trec whole, as in {caller}(data, ..., convention={tool!r}), not "
        f"{caller}(*data, ...).",
        TieOrderWarning,
    )
    return True
