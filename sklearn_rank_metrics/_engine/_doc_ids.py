"""Document ids as a tool's tie order: trec_eval and ir_measures compare docnos as text.

trec_eval reads every docno as a string and breaks tied scores with ``strcmp``, so
``"10"`` sorts before ``"9"``; ids given as integers are compared the same way here
(as their decimal text), never as numbers.
"""

from __future__ import annotations

from itertools import repeat
from typing import Any

import numpy as np

from ._caller import caller_name
from ._inputs import factorize_text_ids, plain_array

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
