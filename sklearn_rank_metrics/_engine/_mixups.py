"""Inputs that look like a common mistake: arguments in the wrong order, sizes for ids.

``ndcg_score(y_true, y_score, group)`` takes three arrays of one length, so passing
them in another order, or LightGBM's group *sizes* where query ids belong, gives a
number, silently wrong. The engine's input validation looks for the traces each
mistake leaves, cheaply (vectorised, a few passes at most, and the costly ones only
behind cheap gates), and:

- refuses what no real input looks like: query ids that are numbers with a
  fraction (scores passed as ``group``), group sizes instead of one id per row
  (an error anyway; its message shows the fix);
- warns (:class:`~._warnings.SuspiciousInputWarning`) where a real input can look
  the same: every query holding one row (scores or row ids passed as ``group``;
  also a benchmark's shape), ids that look like query sizes repeated on every row,
  labels that look like scores beside scores that look like labels.

Every check names the call's public function and shows the likely fix.
"""

from __future__ import annotations

import math

import numpy as np

from ._caller import caller_name
from ._warnings import SuspiciousInputWarning, warn_at_caller

# scores that look like labels: whole numbers in [0, MAX_GRADE] (LightGBM's default
# label_gain covers the grades 0-30)
MAX_GRADE = 31
# rows looked at first, before a full pass, when most inputs fail a check early
_PROBE = 1024
# the warnings look at inputs of at least this many rows: a handful of rows is read by
# eye, and a few one-row queries or fractional labels beside grades are no pattern
MIN_ROWS = 10
# ids that look like sizes repeated per row: the product of the distinct ids >= 2 must
# reach this, so that ids which happen to divide their queries' sizes do not warn
# (for genuine ids each id v divides its size with probability about 1 / v)
_SIZES_EVIDENCE = 1000.0


def _shown(value: float) -> str:
    return repr(int(value)) if float(value).is_integer() else repr(float(value))


def call_order() -> str:
    """The call as it should read, for the messages."""
    return f"{caller_name()}(y_true, y_score, group)"


def refuse_fractional_ids(ids: np.ndarray) -> None:
    """Float query ids with a fraction (``1.5``) are scores or labels passed as ``group``.

    No dataset numbers its queries ``1.5``; a model's scores do look like that, so the
    call is refused with the order of the arguments and, for ids that truly are such
    numbers, how to pass them. Integer-valued floats (a pandas column that held a
    missing value) are ids like any.
    """
    fractional = np.flatnonzero(np.floor(ids) != ids)
    if not len(fractional):
        return
    row = int(fractional[0])
    raise ValueError(
        f"group of {caller_name()} must hold query ids (integers or strings); got "
        f"{ids[row].item()!r} at row {row}, a number with a fraction: were scores (or labels) "
        f"passed as group? The order is {call_order()}, one query id per row. If these "
        "really are ids, pass them as strings or codes: "
        "group=np.unique(group, return_inverse=True)[1]."
    )


def sizes_hint(ids: np.ndarray, n_rows: int) -> str:
    """The fix for LightGBM's group sizes passed as ``group`` (one value per query).

    Empty unless ``ids`` are positive whole numbers, fewer than the rows: then they
    may be sizes, and the message says so (and whether they sum to the rows).
    """
    if len(ids) >= n_rows or ids.dtype.kind not in "iuf" or not len(ids):
        return ""
    if not bool(np.all((ids >= 1) & (np.floor(ids) == ids))):
        return ""
    total = float(np.sum(ids, dtype=np.float64))
    fix = "the query id of every row is group=np.repeat(np.arange(len(sizes)), sizes)."
    if total == n_rows:
        return (
            f" They sum to {n_rows}, the number of rows: LightGBM's group sizes (rows per "
            f"query)? Then {fix}"
        )
    return (
        f" If they are LightGBM's group sizes (rows per query), they must sum to {n_rows} "
        f"(they sum to {_shown(total)}); then {fix}"
    )


def warn_one_row_queries(n_rows: int, n_queries: int) -> None:
    """Every query holds one row: every ranking metric is then the label of its row.

    Scores or row ids passed as ``group`` do this; so may a deliberate benchmark,
    hence a warning, from :data:`MIN_ROWS` rows on.
    """
    if n_queries != n_rows or n_rows < MIN_ROWS:
        return
    warn_at_caller(
        f"{caller_name()}: every one of the {n_queries} queries holds one row, so nothing "
        "is ranked (each query's value is its row's label): was something else passed as "
        f"group (scores, row ids)? The order is {call_order()}, one query id per row, "
        "shared by the rows of a query.",
        SuspiciousInputWarning,
    )


def warn_sizes_per_row(query_ids: np.ndarray, rows_per_query: np.ndarray) -> None:
    """Query ids that look like query sizes repeated on every row of the query.

    With ``group`` holding each row's query size, queries of equal size merge into
    one. The trace: every id ``v`` is a whole number >= 1 and covers a multiple of
    ``v`` rows, some id ``v >= 2`` covers at least ``2 v`` rows (merged queries), and
    the distinct ids are varied enough (their product >= 1000) that genuine ids
    dividing their queries' sizes by chance are unlikely. O(queries).
    """
    if query_ids.dtype.kind not in "iuf" or len(query_ids) < 1:
        return
    ids = query_ids.astype(np.float64, copy=False)
    if ids.min() < 1:
        return
    sizes = np.asarray(rows_per_query, dtype=np.float64)
    for stop in (_PROBE, len(ids)):  # genuine ids usually fail among the first queries
        part, rows = ids[:stop], sizes[:stop]
        if not bool(np.all(np.floor(part) == part)) or bool(np.any(np.fmod(rows, part))):
            return
    large = ids >= 2
    merged = large & (sizes >= 2 * ids)
    if not merged.any() or float(np.sum(np.log(ids[large]))) < math.log(_SIZES_EVIDENCE):
        return
    first = int(np.flatnonzero(merged)[0])
    warn_at_caller(
        f"{caller_name()}: group looks like query sizes repeated on every row, not query "
        f"ids: every id v covers a multiple of v rows (id {_shown(ids[first])}: "
        f"{int(sizes[first])} rows), so queries of equal size would be scored as one. "
        "With LightGBM's group sizes (rows per query, in row order), the query ids are "
        "group=np.repeat(np.arange(len(sizes)), sizes).",
        SuspiciousInputWarning,
    )


def _whole_in_range(values: np.ndarray, low: float, high: float) -> bool:
    """Every value is a whole number in ``[low, high]`` (a probe first, then all)."""
    for part in (values[:_PROBE], values):
        if not len(part):
            return False
        if part.min() < low or part.max() > high or bool(np.any(np.floor(part) != part)):
            return False
    return True


def warn_swapped_labels_and_scores(labels: np.ndarray, scores: np.ndarray) -> None:
    """Labels that look like scores beside scores that look like labels.

    ``y_true`` holding distinct values with a fraction in at least half of its rows
    (a model's scores: as many distinct values as rows, less the ties of a tree
    model or of scores clipped at 0), and ``y_score`` only whole numbers in
    ``[0, 31]`` (grades), is ``(y_score, y_true)`` passed as ``(y_true, y_score)``.
    Continuous labels with graded scores look the same, hence a warning. The scores
    are looked at first (min, max, then a probe), so that the usual input costs two
    reductions; the distinct labels (a sort) are counted only when everything else
    fits.
    """
    flat_scores = scores.reshape(-1)
    if len(flat_scores) < MIN_ROWS:
        return
    retrieved = flat_scores[flat_scores > -np.inf] if flat_scores.min() == -np.inf else flat_scores
    if not _whole_in_range(retrieved, 0, MAX_GRADE):
        return
    flat_labels = labels.reshape(-1)
    fractions = flat_labels[np.floor(flat_labels) != flat_labels]
    if 2 * len(fractions) < len(flat_labels):
        return
    n_distinct = len(np.unique(fractions))
    if 2 * n_distinct < len(flat_labels):
        return
    warn_at_caller(
        f"{caller_name()}: y_true looks like scores ({n_distinct} distinct values with "
        f"fractions in {len(flat_labels)} rows) and y_score like labels (whole numbers in "
        f"[{_shown(retrieved.min())}, {_shown(retrieved.max())}]): were they swapped? The "
        f"order is {call_order()}: the labels first.",
        SuspiciousInputWarning,
    )
