"""The rows of one call, checked and converted once at the door: :class:`Rows`.

Every entry point turns what the user gave (arrays of any library, a
:class:`RankingData` spread out, scikit-learn's 2-D form) into one :class:`Rows`
with :func:`checked_rows`: every check that names an argument and a row runs here,
once, on the caller's row order; the query ids are factorised once, the document ids
(when given) once. What comes after reads checked arrays and never converts or
checks them again:

- a convention reads the rows as its tool does (:class:`Reading`: score precision,
  the value of negative labels, rows scored ``<= 0``, tied rows by document id or by
  the run's own order): :func:`read_rows` gives a new :class:`Rows` (transformed
  columns, rows moved) without a check, and the map back to the caller's rows;
- :func:`rank_rows` sorts them into the :class:`~._ranked_groups.RankedGroups`
  every kernel reads, once per reading.

A new per-row input is a field of :class:`Rows` with its check in
:func:`checked_rows` (and, if a reading moves rows, a line in :func:`_moved`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

import numpy as np

from ._caller import caller_name
from ._document_ids import RUN_ORDER, DocumentIds, check_doc_ids
from ._inputs import (
    INPUT_NAMES,
    as_float,
    check_pandas_indexes,
    check_scores,
    check_shapes,
    check_values,
    factorize_groups_with_sizes,
    judged_mask,
    missing_group_error,
    row_weights,
    scores_as_float,
    to_numpy,
)
from ._mixups import warn_one_row_queries, warn_sizes_per_row, warn_swapped_labels_and_scores
from ._present import present
from ._sorting import sort_by_query_then_score

_FLOAT32_MAX = float(np.finfo(np.float32).max)


@dataclass(frozen=True)
class Queries:
    """The query of every row, factorised once.

    ``codes``: the query index of every row (indexes in sorted id order), or None when
    the rows come query by query (then ``offsets`` say which rows each query owns);
    ``ids``: the distinct query ids; ``rows_per_query`` and ``offsets`` (query ``q``
    holds ``rows_per_query[q]`` rows; with ``codes`` None, rows
    ``offsets[q]:offsets[q + 1]``).
    """

    codes: np.ndarray | None
    ids: np.ndarray
    rows_per_query: np.ndarray
    offsets: np.ndarray

    @property
    def n_queries(self) -> int:
        return len(self.ids)

    @cached_property
    def contiguous(self) -> bool:
        """The rows of each query are consecutive, queries in id order."""
        codes = self.codes
        return codes is None or len(codes) < 2 or bool(np.all(codes[1:] >= codes[:-1]))

    def row_codes(self) -> np.ndarray:
        """The query index of every row (built from the offsets when not kept)."""
        if self.codes is not None:
            return self.codes
        return np.repeat(np.arange(self.n_queries), self.rows_per_query)


def _queries(codes: np.ndarray | None, ids: np.ndarray, sizes: np.ndarray | None,
             n_rows: int) -> Queries:
    n_queries = len(ids)
    if sizes is None and n_queries == n_rows:
        # every query holds one row: one read-only broadcast value, not an array
        sizes = np.broadcast_to(np.intp(1), (n_queries,))
        offsets = np.arange(n_queries + 1)
        return Queries(codes, ids, sizes, offsets)
    if sizes is None:
        sizes = np.bincount(present(codes, "codes"), minlength=n_queries)
    offsets = np.zeros(n_queries + 1, dtype=np.intp)
    np.cumsum(sizes, out=offsets[1:])
    return Queries(codes, ids, sizes, offsets)


@dataclass(frozen=True, eq=False)
class Rows:
    """Checked, converted columns of one call (see the module docstring).

    Attributes
    ----------
    labels, scores : ndarray of shape (n_rows,), float64
        ``y_true`` and ``y_score``, flat (2-D input row by row). Integer scores
        beyond 2**53 are replaced by their dense ranks (they would tie as floats).
    shape : tuple
        The shape of the input: ``(n_rows,)`` for flat rows, ``(n_queries, n_docs)``
        for scikit-learn's 2-D form.
    queries : Queries
        The query of every row.
    query_weight : ndarray of shape (n_queries,)
        Each query's ``sample_weight`` (a broadcast 1 when none was given).
    judged : ndarray of shape (n_rows,), bool, or None
        Whether each row was judged; None when every row was (or nobody said).
    judgments_given : bool
        Whether the caller said which rows were judged.
    doc : DocumentIds or None
        The document ids, checked (their orders are computed on first use, once).
    float_scores : ndarray of shape (n_rows,), float64
        The scores as floats even where ``scores`` holds ranks (integers beyond
        2**53): what a tool that reads scores in single precision rounds.
    """

    labels: np.ndarray
    scores: np.ndarray
    shape: tuple[int, ...]
    queries: Queries
    query_weight: np.ndarray
    judged: np.ndarray | None = None
    judgments_given: bool = False
    doc: DocumentIds | None = None
    float_scores: np.ndarray | None = field(default=None, repr=False)

    @property
    def n_rows(self) -> int:
        return len(self.labels)

    @property
    def two_dimensional(self) -> bool:
        return len(self.shape) == 2

    def with_scores(self, y_score: Any) -> Rows:
        """The same rows with another model's scores, only the scores checked.

        For the entry points that score several models on the same rows
        (:func:`compare`, the report, the displays): the labels, the queries, the
        weights, the judgments and the document ids are checked and factorised once
        for all of them.
        """
        raw = to_numpy(y_score, "y_score")
        scores = scores_as_float(raw)
        labels = self.labels.reshape(self.shape)
        check_shapes(labels, scores)
        check_scores(scores)  # the labels were checked with the rows
        flat = scores.reshape(-1)
        warn_swapped_labels_and_scores(self.labels, flat)
        return replace(self, scores=flat, float_scores=_float_scores(raw, flat))


def _float_scores(raw: np.ndarray, scores: np.ndarray) -> np.ndarray | None:
    """The scores as floats where ``scores`` holds ranks (integers beyond 2**53)."""
    if raw.dtype.kind not in "iu" or scores.dtype == raw.dtype:
        return None
    floats = as_float(raw, "y_score").reshape(-1)
    return None if np.array_equal(floats, scores) else floats


def checked_rows(
    y_true: Any,
    y_score: Any,
    group: Any = None,
    *,
    sample_weight: Any = None,
    judged: Any = None,
    doc_id: Any = None,
    single_precision_weights: str | None = None,
    negative_labels_gain_zero: bool = False,
    whole_call: bool = True,
) -> Rows:
    """Check and convert the inputs of one call, once: the door of every entry point.

    Every error names the function called (:func:`~._caller.caller_name`), the
    argument and the first bad row, in the caller's row order. Nothing is modified.
    ``single_precision_weights``: the convention whose tool stores weights in float32
    (the boosters): the weights are read so (a weight float32 cannot hold is refused
    first, naming the convention). ``negative_labels_gain_zero``: the convention
    reads a negative label as gain 0, so an unjudged row may carry one (a row nobody
    judged has the label 0, which is what the tool reads there).
    ``whole_call=False``: the rows are a part of a call's rows (a Dask or Spark
    partition, a streaming batch), which can look like a mix-up the whole does not
    (every query of a part holding one row), so only swapped labels and scores are
    looked for.
    """
    check_pandas_indexes(
        {
            **dict(zip(INPUT_NAMES, (y_true, y_score, group, sample_weight, judged), strict=True)),
            "doc_id": doc_id,
        }
    )
    labels = as_float(y_true, "y_true")
    raw_scores = to_numpy(y_score, "y_score")
    scores = scores_as_float(raw_scores)
    check_shapes(labels, scores)
    check_values(labels, scores)
    judged_rows = judged_mask(
        judged, np.maximum(labels, 0.0) if negative_labels_gain_zero else labels
    )
    shape = labels.shape
    if len(shape) == 2:
        if group is not None:
            raise ValueError(
                f"group of {caller_name()} must be None for 2-D input (each row of y_true is a "
                "query); pass flat 1-D arrays to use query ids."
            )
        n_queries, n_docs = shape
        queries = _queries(None, np.arange(n_queries), np.full(n_queries, n_docs), labels.size)
    elif group is None:
        raise missing_group_error()
    else:
        queries = _queries(*factorize_groups_with_sizes(group, len(labels)), len(labels))
    labels_flat, scores_flat = labels.reshape(-1), scores.reshape(-1)
    if group is not None and whole_call:
        _warn_if_mixed_up(labels_flat, scores_flat, queries)
    else:
        warn_swapped_labels_and_scores(labels_flat, scores_flat)
    two_dimensional = len(shape) == 2
    weights = row_weights(sample_weight, queries, two_dimensional, single_precision_weights)
    return Rows(
        labels=labels_flat,
        scores=scores_flat,
        shape=shape,
        queries=queries,
        query_weight=_query_weight(weights, queries, two_dimensional),
        judged=judged_rows,
        judgments_given=judged is not None,
        doc=None if doc_id is None else check_doc_ids(doc_id, labels),
        float_scores=_float_scores(raw_scores.reshape(-1), scores_flat),
    )


def _warn_if_mixed_up(labels: np.ndarray, scores: np.ndarray, queries: Queries) -> None:
    """Warn where the inputs look like arguments in the wrong order (:mod:`._mixups`).

    Query ids with a fraction and group sizes of the wrong length are refused
    earlier, where the ids are checked.
    """
    if queries.n_queries == len(labels):
        warn_one_row_queries(len(labels), queries.n_queries)
    else:
        warn_sizes_per_row(queries.ids, queries.rows_per_query)
    warn_swapped_labels_and_scores(labels, scores)


def _query_weight(
    weights: np.ndarray | None, queries: Queries, two_dimensional: bool
) -> np.ndarray:
    """One weight per query from the checked row weights (2-D: one per query given)."""
    if weights is None:
        # every query weighs 1: one read-only broadcast value (the means skip products)
        return np.broadcast_to(np.float64(1.0), (queries.n_queries,))
    if two_dimensional:
        return weights
    reference = np.empty(queries.n_queries)
    reference[queries.row_codes()] = weights  # constant within a query: any row's
    return reference


# --------------------------------------------------------------------------- readings


@dataclass(frozen=True)
class Reading:
    """How a tool reads the rows before any formula sees them (one convention's view).

    ``single_precision``: scores compared as float32; ``minus_infinity_is_a_score``:
    ``-inf`` ranks last like any score (the boosters) instead of meaning "not
    returned"; ``negative_labels_gain_zero``: a negative label is non-relevant with
    gain 0, and with ``negative_labels_judged`` False it also turns unjudged (where
    judgments were given); ``nonpositive_scores``: a row scored ``<= 0`` is
    ``"not_relevant"`` (its label 0) or ``"not_returned"`` (its score ``-inf``);
    ``tie_order``: tied rows by document id (``"ascending"``, ``"descending"``), by
    the run's own order (``"run"``), or None: their input order.
    """

    single_precision: bool = False
    minus_infinity_is_a_score: bool = False
    negative_labels_gain_zero: bool = False
    negative_labels_judged: bool = True
    nonpositive_scores: str | None = None
    tie_order: str | None = None


def read_rows(rows: Rows, reading: Reading) -> tuple[Rows, np.ndarray | None]:
    """The rows as ``reading`` says a tool reads them, and where each row came from.

    New arrays where anything changes (the rows given are shared by every reading of
    the call); no check runs again. The second item maps each row of the result to
    the caller's row when the rows moved (tied rows ordered by document id or by the
    run's order), else None. Without the document ids (or the run's order) the
    rows keep their input order: the caller warns where that can matter.
    """
    labels, judged = _read_labels(rows, reading)
    scores = _read_scores(rows, reading)
    if reading.nonpositive_scores == "not_relevant":
        labels = np.where(scores > 0, labels, 0.0)
    elif reading.nonpositive_scores == "not_returned":
        scores = np.where(scores > 0, scores, -np.inf)
    read = replace(rows, labels=labels, scores=scores, judged=judged, float_scores=None)
    if rows.doc is None or not rows.doc.has_order(reading.tie_order):
        return read, None
    order = _tie_order(read, rows.doc, reading.tie_order)
    if order is None:  # every tied block already in the tool's order
        return read, np.arange(read.n_rows)
    return _moved(read, order), order


def _tie_order(rows: Rows, doc: DocumentIds, direction: Any) -> np.ndarray | None:
    """The rows' order with the rows of every tied block (equal scores in a query)
    ordered as the tool orders them, among the places they hold; every other row
    stays where it is. None when no row moves.

    Ranked by (query, score descending), stably, these rows are then in the order of
    one sort by (query, score descending, the tool's key, input row): the order of
    the ids matters only within a block of tied rows, so only those rows read it
    (its cost grows with the tied rows, not with all rows). The text order of the
    ids is asked for the rows tied once the scores are read as float32 (a superset
    of the tied rows of every reading of these rows whose scores are float64 or
    float32: rounding never parts equal scores), so that the other readings of the
    call find it computed.
    """
    queries = rows.queries
    order, tied, input_order_in_ties = sort_by_query_then_score(
        queries.codes, rows.scores, queries.offsets, queries.contiguous
    )
    if tied is None:
        return None
    # the blocks: a tied row joins the block of the row before it
    joins = np.zeros(rows.n_rows + 1, dtype=bool)
    joins[tied] = True
    in_block = joins[:-1] | joins[1:]
    at = np.flatnonzero(in_block)  # sorted positions of the rows in blocks
    block = np.cumsum(~joins[at])
    members = order[at]
    wanted = None
    if direction != RUN_ORDER:
        wanted = np.zeros(rows.n_rows, dtype=bool)
        wanted[members] = True
        wanted[_float32_tied_rows(rows.scores, order, queries.offsets)] = True
    keys = doc.tie_keys(direction, members, wanted)
    # each block's rows in the tool's order, into the block's places in input order
    if input_order_in_ties:  # a block's members in input order: one stable sort
        places = members
        span = int(keys.max()) - int(keys.min()) + 1 if len(keys) else 1
        if int(block[-1]) < np.iinfo(np.int64).max // span:
            tool_order = members[np.argsort(block * span + (keys - keys.min()), kind="stable")]
        else:  # pragma: no cover - beyond 2**63 (blocks x key range)
            tool_order = members[np.lexsort((members, keys, block))]
    else:
        tool_order = members[np.lexsort((members, keys, block))]
        places = members[np.lexsort((members, block))]
    if np.array_equal(tool_order, places):
        return None
    moved = np.arange(rows.n_rows)
    moved[places] = tool_order
    return moved


def _float32_tied_rows(scores: np.ndarray, order: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """The rows (input indexes) whose score, read as float32, equals the next or the
    previous row's in the order by (query, score descending): rounding keeps that
    order, so the tied blocks of the float32 scores are runs in it."""
    rounded = np.clip(scores[order], -_FLOAT32_MAX, _FLOAT32_MAX).astype(np.float32)
    same = rounded[1:] == rounded[:-1]
    same[offsets[1:-1] - 1] = False  # a query's last row and the next query's first
    tied = np.zeros(len(order), dtype=bool)
    tied[1:] = same
    tied[:-1] |= same
    return order[tied]


def _read_labels(rows: Rows, reading: Reading) -> tuple[np.ndarray, np.ndarray | None]:
    labels, judged = rows.labels, rows.judged
    if not reading.negative_labels_gain_zero:
        return labels, judged
    negative = labels < 0
    if not negative.any():
        return labels, judged
    if not reading.negative_labels_judged and rows.judgments_given:
        judged = ~negative if judged is None else judged & ~negative
    return np.where(negative, 0.0, labels), judged


def _read_scores(rows: Rows, reading: Reading) -> np.ndarray:
    scores = rows.scores
    if reading.single_precision:
        # beyond float32's range the tool sees +-inf; clipping keeps them finite and
        # first / last, tied as the tool ties them
        floats = rows.float_scores if rows.float_scores is not None else scores
        if len(floats) and -_FLOAT32_MAX <= floats.min() and floats.max() <= _FLOAT32_MAX:
            scores = floats  # all finite and within float32's range: nothing to clip
        else:
            finite = np.isfinite(floats)
            scores = np.where(finite, np.clip(floats, -_FLOAT32_MAX, _FLOAT32_MAX), floats)
        scores = scores.astype(np.float32).astype(np.float64)
    if reading.minus_infinity_is_a_score and len(scores) and scores.min() == -np.inf:
        # below every score the tool could hold: ranked last, tied among themselves
        scores = np.where(scores == -np.inf, np.finfo(np.float64).min, scores)
    return scores


def _moved(rows: Rows, order: np.ndarray) -> Rows:
    """The rows in ``order`` (every per-row field moves with them)."""
    queries = rows.queries
    codes = queries.row_codes()[order]
    return replace(
        rows,
        labels=rows.labels[order],
        scores=rows.scores[order],
        queries=Queries(codes, queries.ids, queries.rows_per_query, queries.offsets),
        judged=None if rows.judged is None else rows.judged[order],
        doc=None if rows.doc is None else rows.doc.moved(order),
    )
