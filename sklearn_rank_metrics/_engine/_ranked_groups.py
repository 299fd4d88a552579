"""Validate inputs once, factorise query ids, sort once by (query, score descending).

:func:`rank_groups` is the single entry point that turns user input into a
:class:`RankedGroups`: the rows sorted by query, then by score descending, with
query offsets and the tie blocks. The sort (:mod:`._sorting`) keeps the rows of a
block of tied scores in input order, except on its argsort fallback, where the order
inside a block is arbitrary; ``ties="input"`` then restores it from the input row
index, and ``"optimistic"``/``"pessimistic"`` reorder every block by label, so results
never depend on it. Every metric kernel reads that structure; nothing else sorts rows
by score.

:meth:`RankedGroups.arrangement` gives the view a kernel needs for one ``ties``
mode: the labels in rank order and the *blocks* of rows whose order is random.
With ``ties="average"`` the blocks are the runs of exactly equal scores, and every
kernel computes the exact expected value over all orders of each block; with the
other modes the order is fixed and every row is a block of its own, so the same
kernel formulas reduce to the plain metric.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property, partial
from itertools import repeat
from typing import Any

import numpy as np

from ._segments import segment_rows, segment_sums
from ._sorting import positions_in_queries, sort_by_query_then_score

TIES_MODES = ("average", "input", "optimistic", "pessimistic")


class Arrangement:
    """Rows in rank order for one ``ties`` mode, and their random-order blocks.

    Attributes
    ----------
    n_rows : int
        Number of rows.
    labels : ndarray of shape (n_rows,)
        ``y_true`` in rank order.
    permutation : ndarray of shape (n_rows,) or None
        The sorted row (index into :attr:`RankedGroups.order`) at each rank position;
        None when the rank order is the sorted order itself.
    block_of_row : ndarray of shape (n_rows,) or None
        Block index of each row; ``None`` when every row is its own block.
    block_first_row : ndarray of shape (n_blocks,)
        Index (into the sorted rows) of the first row of every block.
    block_size : ndarray of shape (n_rows,)
        Size of the block of each row.
    block_start : ndarray of shape (n_rows,)
        Index (into the sorted rows) of the first row of the row's block.

    offset : ndarray of shape (n_rows,)
        0-based position of each row within its block.

    All but ``n_rows`` and ``permutation`` are built only when a kernel asks:
    ``labels`` and ``block_first_row`` may be given as functions that build them.
    """

    def __init__(
        self,
        n_rows: int,
        labels: np.ndarray | Callable[[], np.ndarray],
        block_first_row: np.ndarray | Callable[[], np.ndarray] | None = None,
        permutation: np.ndarray | None = None,
    ) -> None:
        self.n_rows = n_rows
        self._labels_source = labels
        self._first_rows_source = block_first_row
        self.permutation = permutation

    @cached_property
    def labels(self) -> np.ndarray:
        source = self._labels_source
        return source() if callable(source) else source

    @cached_property
    def _first_rows(self) -> np.ndarray | None:
        source = self._first_rows_source
        return source() if callable(source) else source

    @cached_property
    def block_of_row(self) -> np.ndarray | None:
        if self._first_rows is None:
            return None
        return np.repeat(np.arange(len(self._first_rows)), self._sizes)

    @cached_property
    def _sizes(self) -> np.ndarray:
        return np.diff(self._first_rows, append=self.n_rows)

    @cached_property
    def block_first_row(self) -> np.ndarray:
        return np.arange(self.n_rows) if self.singletons else self._first_rows

    @cached_property
    def block_size(self) -> np.ndarray:
        if self.singletons:
            return np.ones(self.n_rows, dtype=np.intp)
        return self._sizes[self.block_of_row]

    @cached_property
    def block_start(self) -> np.ndarray:
        if self.singletons:
            return np.arange(self.n_rows)
        return self._first_rows[self.block_of_row]

    @cached_property
    def offset(self) -> np.ndarray:
        """0-based position of each row within its block."""
        if self.singletons:
            return np.zeros(self.n_rows, dtype=np.intp)
        return np.arange(self.n_rows) - self.block_start

    @property
    def singletons(self) -> bool:
        return self._first_rows_source is None

    def block_sum(self, values: np.ndarray) -> np.ndarray:
        """Sum of ``values`` over each block, one entry per block."""
        if self.singletons:
            return values
        return np.add.reduceat(values, self.block_first_row)

    def block_total_per_row(self, values: np.ndarray) -> np.ndarray:
        """Sum of ``values`` over the block of each row, broadcast to the rows."""
        if self.singletons:
            return values
        return self.block_sum(values)[self.block_of_row]

    def block_mean_per_row(self, values: np.ndarray) -> np.ndarray:
        """Mean of ``values`` over the block of each row: the expected value at a position."""
        if self.singletons:
            return values
        return self.block_total_per_row(values) / self.block_size


class _OnDemand:
    """A value computed on its first use, then kept.

    It holds only what computing the value needs (never the object that owns it), so
    caching it creates no reference cycle.
    """

    __slots__ = ("_compute", "_value")

    def __init__(self, compute: Callable[[], Any]) -> None:
        self._compute: Callable[[], Any] | None = compute
        self._value: Any = None

    def __call__(self) -> Any:
        if self._compute is not None:
            self._value = self._compute()
            self._compute = None
        return self._value


@dataclass(frozen=True)
class RankedGroups:
    """Rows sorted by (query, score descending), with everything metrics share.

    Attributes
    ----------
    query_ids : ndarray of shape (n_queries,)
        The distinct query ids, in the order of ``np.unique``.
    offsets : ndarray of shape (n_queries + 1,)
        Query ``q`` owns sorted rows ``offsets[q]:offsets[q + 1]``.
    order : ndarray of shape (n_rows,)
        Input row index of every sorted row.
    tied_rows : ndarray of shape (n_tied,) or None
        The sorted rows whose score equals the previous row's within the query (all
        rows of a run of equal scores but its first), ascending; None when no two
        rows of a query tie. (The sorted scores themselves are not kept.)
    n_retrieved : ndarray of shape (n_queries,)
        Rows with a score above ``-inf``; the ``-inf`` rows (judged but not returned)
        always come last in their query.
    query_weight : ndarray of shape (n_queries,)
        ``sample_weight`` per query (ones when none was given).
    input_labels : ndarray of shape (n_rows,)
        ``y_true`` (float64) in input order, for error messages that name a row.
    two_dimensional : bool
        Whether the input was scikit-learn's 2-D ``(n_queries, n_docs)`` form.
    input_order_in_ties : bool
        Whether tied rows of a query are already in input order (the sort guarantees
        it except on its argsort fallback).
    sorted_labels : callable
        Returns :attr:`labels`, gathering them on the first call only.

    Built on demand, so a metric that needs only the relevant rows, or only the top
    k rows, never pays for arrays over all rows that it does not read:

    labels : ndarray of shape (n_rows,)
        ``y_true`` (float64) in sorted order (tied rows in input order, except after
        the sort's argsort fallback, where their order is arbitrary); kept once built.
    query_of_row : ndarray of shape (n_rows,)
        Query index of every sorted row; built anew on each use (one pass), not kept.
    rank : ndarray of shape (n_rows,)
        0-based position of every sorted row within its query; built anew on each use
        (one running sum), not kept: holding 8 bytes per row for the whole call costs
        more than the pass.
    """

    query_ids: np.ndarray
    offsets: np.ndarray
    order: np.ndarray
    tied_rows: np.ndarray | None
    n_retrieved: np.ndarray
    query_weight: np.ndarray
    input_labels: np.ndarray
    two_dimensional: bool
    input_order_in_ties: bool
    sorted_labels: Callable[[], np.ndarray] = field(repr=False, compare=False)
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def n_queries(self) -> int:
        return len(self.offsets) - 1

    @property
    def n_rows(self) -> int:
        return len(self.order)

    @property
    def labels(self) -> np.ndarray:
        return self.sorted_labels()

    @property
    def rank(self) -> np.ndarray:
        return positions_in_queries(self.n_rows_per_query)

    @property
    def query_of_row(self) -> np.ndarray:
        return np.repeat(np.arange(self.n_queries), self.n_rows_per_query)

    def in_rank_order(self, input_values: np.ndarray, ties: str) -> np.ndarray:
        """Per-input-row ``input_values`` in the rank order of :meth:`arrangement` ``(ties)``."""
        permutation = self.arrangement(ties).permutation
        if permutation is None:
            return input_values[self.order]
        return input_values[self.order[permutation]]

    @property
    def n_rows_per_query(self) -> np.ndarray:
        return np.diff(self.offsets)

    def query_sum(self, values: np.ndarray) -> np.ndarray:
        """Sum of per-row ``values`` (in sorted order) over each query."""
        return np.add.reduceat(values, self.offsets[:-1]) if len(values) else values

    def per_row(self, per_query_values: np.ndarray) -> np.ndarray:
        """Broadcast one value per query to the query's rows."""
        return per_query_values[self.query_of_row]

    def depth(self, k: int | None) -> np.ndarray:
        """Effective cutoff of each query: ``min(k, n_retrieved)``."""
        return self.n_retrieved if k is None else np.minimum(self.n_retrieved, k)

    def in_cutoff(self, k: int | None) -> np.ndarray:
        """Whether each sorted row sits at a rank within the cutoff (never a ``-inf`` row)."""
        return self.cached(("in_cutoff", k), lambda: self.rank < self.per_row(self.depth(k)))

    def cutoff_rows(self, k: int | None) -> np.ndarray | None:
        """Indices of the sorted rows within the cutoff, or None when that is every row.

        Query ``q`` contributes rows ``offsets[q] .. offsets[q] + depth[q] - 1``, so
        a kernel that only needs those rows costs O(n_queries * k), not O(n_rows).
        """

        def compute() -> np.ndarray | None:
            depth = self.depth(k)
            if int(depth.sum()) == self.n_rows:
                return None
            return segment_rows(self.offsets[:-1], depth)

        return self.cached(("cutoff_rows", k), compute)

    def cutoff_rank(self, k: int | None) -> np.ndarray:
        """0-based rank of each row of :meth:`cutoff_rows` ``(k)`` in its query (cached)."""
        if self.cutoff_rows(k) is None:
            return self.rank
        return self.cached(("cutoff_rank", k), lambda: positions_in_queries(self.depth(k)))

    def cutoff_sum(self, values: np.ndarray, k: int | None) -> np.ndarray:
        """Per-query sum of ``values`` given at the rows of :meth:`cutoff_rows` ``(k)``.

        Those rows come query by query, ``depth(k)`` of them per query, so the sums
        are segment sums (all rows when ``cutoff_rows(k)`` is None).
        """
        if self.cutoff_rows(k) is None:
            return self.query_sum(values)
        return segment_sums(values, self.depth(k))

    def straddles_cutoff(self, ties: str, k: int | None) -> np.ndarray:
        """Whether each row belongs to a block that starts within the cutoff and ends after it.

        That block (at most one per query) is the only source of randomness in which
        rows fall within the cutoff.
        """
        arrangement = self.arrangement(ties)
        if arrangement.singletons:
            return np.zeros(self.n_rows, dtype=bool)
        block_start_rank = self.block_start_rank(ties)
        depth = self.per_row(self.depth(k))
        return (block_start_rank < depth) & (block_start_rank + arrangement.block_size > depth)

    def block_start_rank(self, ties: str) -> np.ndarray:
        """0-based rank (within its query) of the first row of each row's block (cached)."""
        return self.cached(
            ("block_start_rank", ties), lambda: self.rank - self.arrangement(ties).offset
        )

    @property
    def tie_first_rows(self) -> np.ndarray | None:
        """First sorted row of every run of equal scores within a query (cached; None: no ties)."""
        if self.tied_rows is None:
            return None

        return self.cached(
            "tie_first_rows", partial(_run_starts, self.tied_rows, self.n_rows)
        )

    def arrangement(self, ties: str) -> Arrangement:
        """The rank order and random-order blocks for one ``ties`` mode (cached)."""
        cached = self._cache.get(("arrangement", ties))
        if cached is not None:
            return cached
        has_ties = self.tied_rows is not None
        if ties == "average" and has_ties:
            # built on demand, from the tied rows alone (no reference back to self)
            arrangement = Arrangement(
                self.n_rows, self.sorted_labels, partial(_run_starts, self.tied_rows, self.n_rows)
            )
        elif has_ties and not (ties == "input" and self.input_order_in_ties):
            permutation = self._order_within_tie_blocks(self.tie_first_rows, ties)
            arrangement = Arrangement(
                self.n_rows, self.labels[permutation], permutation=permutation
            )
        else:
            arrangement = Arrangement(self.n_rows, self.sorted_labels)
        self._cache[("arrangement", ties)] = arrangement
        return arrangement

    def _order_within_tie_blocks(self, first_rows: np.ndarray, ties: str) -> np.ndarray:
        """Permutation of the sorted rows that fixes the order inside tie blocks.

        Tied rows are put in input order (needed after the sort's argsort fallback,
        which is not stable), and for the bounds first sorted by label; only rows
        of blocks with more than one row are touched.
        """
        blocks = Arrangement(self.n_rows, self.sorted_labels, first_rows)
        tied = np.flatnonzero(blocks.block_size > 1)
        keys = [self.order[tied]]
        if ties != "input":
            sign = -1.0 if ties == "optimistic" else 1.0
            keys.append(sign * self.labels[tied])
        keys.append(blocks.block_of_row[tied])
        permutation = np.arange(self.n_rows)
        permutation[tied] = tied[np.lexsort(keys)]
        return permutation

    def cached(self, key: Any, compute: Any) -> Any:
        """Memoise an intermediate result shared by several metrics (e.g. in ``evaluate``)."""
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]


def _run_starts(tied_rows: np.ndarray, n_rows: int) -> np.ndarray:
    """First row of every run of equal scores: every row that is not a tied row."""
    starts_run = np.ones(n_rows, dtype=bool)
    starts_run[tied_rows] = False
    return np.flatnonzero(starts_run)


# --------------------------------------------------------------------------- inputs


def _to_numpy(value: Any, name: str) -> np.ndarray:
    """Array-like (list, NumPy, pandas) to NumPy without copying when possible."""
    if hasattr(value, "to_numpy") and not isinstance(value, np.ndarray):
        try:
            return value.to_numpy()
        except (TypeError, ValueError) as error:  # pragma: no cover - exotic pandas
            raise TypeError(f"{name} could not be converted to a NumPy array: {error}") from None
    if isinstance(value, (str, bytes)) or np.isscalar(value):
        raise TypeError(f"{name} must be an array-like, got {type(value).__name__} instead.")
    if hasattr(value, "tocsr") or hasattr(value, "todense"):  # scipy.sparse
        raise TypeError(
            f"{name} must be a dense array-like; got a sparse {type(value).__name__} "
            "(convert it with .toarray())."
        )
    if np.ma.isMaskedArray(value):
        masked = np.flatnonzero(np.ma.getmaskarray(value).reshape(-1))
        if len(masked):
            raise ValueError(
                f"{name} is a masked array with masked values (the first at flat position "
                f"{int(masked[0])}); the mask is not a missing-value rule here: drop or "
                "fill those rows (e.g. .compressed() on every array, or .filled())."
            )
        return np.ma.getdata(value)
    if not hasattr(value, "__len__") and not hasattr(value, "__array__"):
        raise TypeError(
            f"{name} must be an array-like (list, NumPy array, pandas Series); got "
            f"{type(value).__name__} (a generator or iterator: pass list(...))."
        )
    return np.asarray(value)


def _format_index(flat_index: int, shape: tuple) -> str:
    if len(shape) == 1:
        return f"row {flat_index}"
    return f"row {flat_index // shape[1]}, column {flat_index % shape[1]}"


def _as_float(value: Any, name: str, function_name: str) -> np.ndarray:
    array = _to_numpy(value, name)
    if array.dtype.kind not in "biuf":
        if array.dtype.kind == "O":
            text = np.fromiter(map(isinstance, array.ravel(), repeat((str, bytes))), bool,
                               array.size)
            if text.any():  # "0.5" is text, whatever it says: as for a str array
                first = int(np.flatnonzero(text)[0])
                raise TypeError(
                    f"{name} of {function_name} must hold numbers; got text "
                    f"{array.ravel()[first]!r} at {_format_index(first, array.shape)}."
                )
            try:
                array = array.astype(np.float64)
            except (TypeError, ValueError):
                raise TypeError(
                    f"{name} of {function_name} must hold numbers; got values of dtype object "
                    "that are not numbers."
                ) from None
        else:
            raise TypeError(
                f"{name} of {function_name} must hold numbers; got dtype {array.dtype} instead."
            )
    return np.asarray(array, dtype=np.float64)


_EXACT_INTEGERS = 2**53  # float64 holds every integer up to this magnitude


def _scores_as_float(value: Any, function_name: str) -> np.ndarray:
    """``y_score`` as float64, keeping the order and ties of integer scores exactly.

    Integer scores beyond 2**53 (nanosecond timestamps, hashes) would round to equal
    floats and tie; they are replaced by their dense ranks (one sort), which every
    metric reads the same way, since metrics depend on the order of the scores only.
    """
    array = _to_numpy(value, "y_score")
    if array.dtype.kind in "iu" and array.size:
        low, high = array.min(), array.max()
        if high > _EXACT_INTEGERS or low < -_EXACT_INTEGERS:
            _, ranks = np.unique(array, return_inverse=True)
            return ranks.reshape(array.shape).astype(np.float64)
    return _as_float(array, "y_score", function_name)


def _first_bad(mask: np.ndarray) -> int | None:
    flat = np.flatnonzero(mask)
    return int(flat[0]) if len(flat) else None


def _check_pandas_indexes(arrays: dict[str, Any], function_name: str) -> None:
    """Refuse pandas inputs whose indexes differ: rows are paired by position here.

    pandas would align such Series by index label; pairing them by position instead
    would be silently wrong, so they must share one index (or be passed as arrays).
    """
    indexed = [(name, value.index) for name, value in arrays.items()
               if hasattr(value, "index") and hasattr(value, "to_numpy")]
    for name, index in indexed[1:]:
        first_name, first_index = indexed[0]
        if not first_index.equals(index):
            raise ValueError(
                f"{first_name} and {name} of {function_name} are pandas objects with "
                "different indexes; rows are paired by position, so align them first "
                f"(e.g. {name}.reindex({first_name}.index)) or pass NumPy arrays."
            )


def _check_shapes(y_true: np.ndarray, y_score: np.ndarray, function_name: str) -> None:
    if y_true.ndim not in (1, 2):
        raise ValueError(
            f"y_true of {function_name} must be 1-D (flat rows) or 2-D (n_queries, n_docs); "
            f"got {y_true.ndim} dimensions."
        )
    if y_true.shape != y_score.shape:
        raise ValueError(
            f"y_true and y_score of {function_name} must have the same shape; "
            f"got {y_true.shape} and {y_score.shape}."
        )
    if y_true.size == 0:
        raise ValueError(f"y_true of {function_name} is empty; at least one row is needed.")


def _check_values(y_true: np.ndarray, y_score: np.ndarray, function_name: str) -> None:
    # A finite sum proves every value finite (a NaN or an infinity would propagate);
    # only when it is not (or overflows) are the rows scanned for the first bad one.
    # The same for NaN scores, where -inf and +inf are allowed and may sum to NaN.
    with np.errstate(over="ignore", invalid="ignore"):
        label_sum = np.add.reduce(y_true, axis=None)
        score_sum = np.add.reduce(y_score, axis=None)
    if np.isfinite(label_sum) and not np.isnan(score_sum):
        return
    bad = _first_bad(~np.isfinite(y_true))
    if bad is not None:
        raise ValueError(
            f"y_true of {function_name} must be finite; got {y_true.flat[bad]} at "
            f"{_format_index(bad, y_true.shape)}."
        )
    bad = _first_bad(np.isnan(y_score))
    if bad is not None:
        raise ValueError(
            f"y_score of {function_name} must not be NaN; got NaN at "
            f"{_format_index(bad, y_score.shape)}."
        )


def query_id_column(X: Any, column: Any, owner: str) -> Any:
    """The query-id column ``column`` of a pandas ``X``, or a clear error from ``owner``."""
    columns = getattr(X, "columns", None)
    if columns is None:
        raise TypeError(
            f"{owner} reads the query ids from column {column!r} of X, so X must be a pandas "
            f"DataFrame; got {type(X).__name__}."
        )
    if column not in columns:
        listed = ", ".join(repr(name) for name in list(columns)[:10])
        raise ValueError(
            f"{owner}: X has no column {column!r} of query ids; its columns are "
            f"{listed}{', ...' if len(columns) > 10 else ''}."
        )
    return X[column]


def _factorize_dense_integers(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Codes of integer ids spanning a range at most a few times the row count.

    A table over ``[min, max]`` maps each id to its rank among the ids present: two
    linear passes instead of the sort inside ``np.unique``. None for sparse ids.
    """
    low, high = int(ids.min()), int(ids.max())
    if high - low >= 2 * len(ids) + 1024:
        return None
    if not low:
        shifted = ids
    elif ids.dtype.kind == "u":
        shifted = ids - ids.dtype.type(low)  # no wrap: every id is >= low
    else:
        shifted = ids.astype(np.int64) - low  # small ints would wrap in their own dtype
    offset_ids = shifted.astype(np.intp, copy=False)
    present = np.zeros(high - low + 1, dtype=bool)
    present[offset_ids] = True
    code_of_value = np.cumsum(present, dtype=np.intp)
    code_of_value -= 1
    # back to the ids' dtype; adding ``low`` there wraps exactly as the subtraction did
    values = np.flatnonzero(present).astype(ids.dtype)
    if low:
        values += ids.dtype.type(low)
    return code_of_value[offset_ids], values


def _missing_objects(values: np.ndarray) -> np.ndarray:
    """Which entries of an object array are missing: None, NaN, or pandas' NA / NaT."""
    try:
        import pandas as pd
    except ImportError:  # without pandas only None and NaN can occur
        return np.fromiter(
            (item is None or item != item for item in values), dtype=bool, count=len(values)
        )
    return np.asarray(pd.isna(values), dtype=bool)


def _factorize_groups(group: Any, n_rows: int, function_name: str) -> tuple[np.ndarray, np.ndarray]:
    """Query ids to codes ``0..n_queries-1`` (in sorted id order) and the distinct ids."""
    codes, ids, sizes = _factorize_groups_with_sizes(group, n_rows, function_name)
    if codes is None:
        codes = np.repeat(np.arange(len(ids)), sizes)
    return codes, ids


def _factorize_groups_with_sizes(
    group: Any, n_rows: int, function_name: str
) -> tuple[np.ndarray | None, np.ndarray, np.ndarray | None]:
    """:func:`_factorize_groups`, plus the rows per query when ids are already sorted.

    When the integer ids are non-decreasing the codes are contiguous: the first item
    is then None (the rows per query say everything) and the third the rows per
    query; otherwise the third is None.
    """
    dtype = getattr(group, "dtype", None)
    if dtype is not None and getattr(dtype, "name", "") == "category":
        categorical = getattr(group, "array", group)
        codes = np.asarray(categorical.codes)
        bad = _first_bad(codes < 0)
        if bad is not None:
            raise ValueError(
                f"group of {function_name} must not be missing; got a missing id at row {bad}."
            )
        used, codes = np.unique(codes, return_inverse=True)
        ids = np.asarray(categorical.categories)[used]
    else:
        ids_array = _to_numpy(group, "group")
        if ids_array.ndim != 1:
            raise ValueError(
                f"group of {function_name} must be 1-D with one query id per row; "
                f"got shape {ids_array.shape}."
            )
        if len(ids_array) != n_rows:
            raise ValueError(
                f"group of {function_name} must have one id per row ({n_rows}); "
                f"got {len(ids_array)}."
            )
        if ids_array.dtype.kind == "f":
            bad = _first_bad(np.isnan(ids_array))
            if bad is not None:
                raise ValueError(f"group of {function_name} must not be NaN; got NaN at row {bad}.")
        elif ids_array.dtype.kind == "O":
            missing = _missing_objects(ids_array)
            bad = _first_bad(missing)
            if bad is not None:
                raise ValueError(
                    f"group of {function_name} must not be missing; "
                    f"got {ids_array[bad]!r} at row {bad}."
                )
        elif ids_array.dtype.kind not in "biuUS":
            raise TypeError(
                f"group of {function_name} must hold integer or string query ids; "
                f"got dtype {ids_array.dtype}."
            )
        if ids_array.dtype.kind in "biu" and np.all(ids_array[1:] >= ids_array[:-1]):
            starts = np.flatnonzero(ids_array[1:] != ids_array[:-1])
            starts += 1
            starts = np.concatenate(([0], starts))
            sizes = np.diff(starts, append=len(ids_array))
            return None, ids_array[starts], sizes
        if ids_array.dtype.kind in "biu" and len(ids_array):
            dense = _factorize_dense_integers(ids_array)
            if dense is not None:
                return dense + (None,)
        try:
            ids, codes = np.unique(ids_array, return_inverse=True)
        except TypeError:
            raise TypeError(
                f"group of {function_name} mixes query ids that cannot be compared "
                "(e.g. ints and strings)."
            ) from None
    return codes.reshape(-1), ids, None


def _query_weights(
    sample_weight: Any,
    order: np.ndarray,
    offsets: np.ndarray,
    n_queries: int,
    two_dimensional: bool,
    function_name: str,
) -> np.ndarray:
    if sample_weight is None:
        return np.ones(n_queries)
    weights = _as_float(sample_weight, "sample_weight", function_name)
    expected = n_queries if two_dimensional else len(order)
    unit = (
        "one weight per query (row of the 2-D input)" if two_dimensional else "one weight per row"
    )
    if weights.ndim != 1 or len(weights) != expected:
        raise ValueError(
            f"sample_weight of {function_name} must have {unit}: {expected} values; "
            f"got shape {weights.shape}."
        )
    bad = _first_bad(~np.isfinite(weights) | (weights < 0))
    if bad is not None:
        raise ValueError(
            f"sample_weight of {function_name} must be finite and >= 0; "
            f"got {weights[bad]} at row {bad}."
        )
    if two_dimensional:
        return weights
    # Compare every row with the first row (in input order) of its query.
    first_input_row = np.minimum.reduceat(order, offsets[:-1])
    reference = weights[first_input_row]
    codes = np.empty_like(order)
    codes[order] = np.repeat(np.arange(n_queries), np.diff(offsets))
    bad = _first_bad(weights != reference[codes])
    if bad is not None:
        raise ValueError(
            f"sample_weight of {function_name} must be constant within each query; "
            f"row {bad} has weight {weights[bad]} but row {first_input_row[codes[bad]]} of "
            f"the same query has {reference[codes[bad]]}."
        )
    return reference


def rank_groups(
    y_true: Any,
    y_score: Any,
    group: Any = None,
    *,
    sample_weight: Any = None,
    function_name: str = "evaluate",
) -> RankedGroups:
    """Validate inputs and build the :class:`RankedGroups` every metric reads.

    Inputs are never modified: arrays are converted (copied only when their dtype
    is not float64) and the sorted arrays are new.
    """
    _check_pandas_indexes(
        {"y_true": y_true, "y_score": y_score, "group": group, "sample_weight": sample_weight},
        function_name,
    )
    y_true_array = _as_float(y_true, "y_true", function_name)
    y_score_array = _scores_as_float(y_score, function_name)
    _check_shapes(y_true_array, y_score_array, function_name)
    _check_values(y_true_array, y_score_array, function_name)

    two_dimensional = y_true_array.ndim == 2
    if two_dimensional:
        if group is not None:
            raise ValueError(
                f"group of {function_name} must be None for 2-D input (each row of y_true is a "
                "query); pass flat 1-D arrays to use query ids."
            )
        n_queries, n_docs = y_true_array.shape
        codes = None  # contiguous: the sizes say it all
        query_ids = np.arange(n_queries)
        rows_per_query = np.full(n_queries, n_docs)
    elif group is None:
        codes = None
        query_ids = np.zeros(1, dtype=np.intp)
        rows_per_query = np.array([len(y_true_array)])
    else:
        codes, query_ids, rows_per_query = _factorize_groups_with_sizes(
            group, len(y_true_array), function_name
        )

    labels_flat = y_true_array.reshape(-1)
    scores_flat = y_score_array.reshape(-1)
    n_queries = len(query_ids)

    contiguous = codes is None or bool(np.all(codes[1:] >= codes[:-1]))
    if rows_per_query is None:
        rows_per_query = np.bincount(codes, minlength=n_queries)
    offsets = np.zeros(n_queries + 1, dtype=np.intp)
    np.cumsum(rows_per_query, out=offsets[1:])
    order, tied_rows, input_order_in_ties = sort_by_query_then_score(
        codes, scores_flat, offsets, contiguous
    )
    unretrieved = scores_flat == -np.inf
    n_retrieved = rows_per_query.copy()
    if unretrieved.any():
        unretrieved_rows = np.flatnonzero(unretrieved)
        if codes is None:
            query_of_unretrieved = np.searchsorted(offsets, unretrieved_rows, side="right") - 1
        else:
            query_of_unretrieved = codes[unretrieved_rows]
        n_retrieved -= np.bincount(query_of_unretrieved, minlength=n_queries)
    del codes

    query_weight = _query_weights(
        sample_weight, order, offsets, n_queries, two_dimensional, function_name
    )
    return RankedGroups(
        query_ids=query_ids,
        offsets=offsets,
        order=order,
        tied_rows=tied_rows,
        n_retrieved=n_retrieved,
        query_weight=query_weight,
        input_labels=labels_flat,
        two_dimensional=two_dimensional,
        input_order_in_ties=input_order_in_ties,
        sorted_labels=_OnDemand(partial(np.take, labels_flat, order)),
    )
