"""Sort once by (query, score descending): :class:`RankedGroups` from checked input.

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
from typing import Any

import numpy as np

from ._caller import caller_name
from ._present import present
from ._rows import Rows, checked_rows
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

    @property
    def _tied_first_rows(self) -> np.ndarray:
        """The first row of every block, on the paths where blocks exist."""
        return present(self._first_rows, "Arrangement.block_first_row")

    @property
    def _row_block(self) -> np.ndarray:
        """:attr:`block_of_row`, on the paths where blocks exist."""
        return present(self.block_of_row, "Arrangement.block_of_row")

    @cached_property
    def _sizes(self) -> np.ndarray:
        return np.diff(self._tied_first_rows, append=self.n_rows)

    @cached_property
    def block_first_row(self) -> np.ndarray:
        return np.arange(self.n_rows) if self.singletons else self._tied_first_rows

    @cached_property
    def block_size(self) -> np.ndarray:
        if self.singletons:
            return np.ones(self.n_rows, dtype=np.intp)
        return self._sizes[self._row_block]

    @cached_property
    def block_start(self) -> np.ndarray:
        if self.singletons:
            return np.arange(self.n_rows)
        return self._tied_first_rows[self._row_block]

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
    judged : ndarray of shape (n_rows,), bool, or None
        In input order: whether each row was judged (``judged=`` of the metric); None
        when every row was. Only bpref and Judged@k read it: every other metric takes
        an unjudged row (label 0) as non-relevant, as trec_eval does.
    judgments_given : bool
        Whether the caller said which rows were judged (a mask, ``judged=True``, or a
        :class:`RankingData`); the measures that read judgments refuse to run
        without it (:meth:`require_judgments`).

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
    judged: np.ndarray | None = field(default=None, repr=False, compare=False)
    judgments_given: bool = field(default=False, repr=False, compare=False)
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def n_queries(self) -> int:
        return len(self.offsets) - 1

    def require_judgments(self, measure: str) -> None:
        """Refuse to read judgments nobody gave: "every row judged" is never assumed.

        A reader's :class:`RankingData` knows which rows were judged; ``*data`` or
        bare arrays do not, and treating every row as judged changes bpref, Judged@k
        and RBP's residual without a word.
        """
        if self.judgments_given:
            return
        raise ValueError(
            f"{measure} of {caller_name()} reads which rows were judged, and none were "
            "given. Pass the reader's RankingData whole as the first argument (e.g. "
            f"{caller_name()}(data, ...), not *data), or judged=<bool per row>, or "
            "judged=True if every row was judged."
        )

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
        if self.one_row_per_query:
            return np.arange(self.n_queries)
        return np.repeat(np.arange(self.n_queries), self.n_rows_per_query)

    @property
    def one_row_per_query(self) -> bool:
        """Whether every query holds exactly one row (then rows and queries coincide).

        No query of flat input is empty, and 2-D input gives every query the same
        number of rows, so equal counts of rows and queries mean one row each.
        """
        return self.n_rows == self.n_queries

    def in_rank_order(self, input_values: np.ndarray, ties: str) -> np.ndarray:
        """Per-input-row ``input_values`` in the rank order of :meth:`arrangement` ``(ties)``."""
        permutation = self.arrangement(ties).permutation
        if permutation is None:
            return input_values[self.order]
        return input_values[self.order[permutation]]

    @property
    def n_rows_per_query(self) -> np.ndarray:
        """Rows of every query (cached, read-only)."""

        def compute() -> np.ndarray:
            if self.one_row_per_query:  # a broadcast 1: no array of n_queries
                return np.broadcast_to(np.intp(1), (self.n_queries,))
            sizes = np.diff(self.offsets)
            sizes.flags.writeable = False
            return sizes

        return self.cached("n_rows_per_query", compute)

    def query_sum(self, values: np.ndarray) -> np.ndarray:
        """Sum of per-row ``values`` (in sorted order) over each query (a new array)."""
        if self.one_row_per_query:
            return np.array(values)
        return np.add.reduceat(values, self.offsets[:-1]) if len(values) else values

    def query_any(self, flags: np.ndarray) -> np.ndarray:
        """Whether any of the per-row boolean ``flags`` (in sorted order) is set in each
        query (a bool per query; the ``flags`` themselves for one-row queries)."""
        if self.one_row_per_query or not len(flags):
            return flags
        return np.logical_or.reduceat(flags, self.offsets[:-1])

    def per_row(self, per_query_values: np.ndarray) -> np.ndarray:
        """Broadcast one value per query to the query's rows (a new array)."""
        if self.one_row_per_query:
            return np.array(per_query_values)
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

    def common_depth(self, k: int | None) -> int | None:
        """The cutoff depth ``d`` of every query, when the sorted rows form a 2-D array.

        That is when every query holds the same number ``m`` of rows and retrieved all
        of them: the rows of :meth:`cutoff_rows` ``(k)`` are then the first ``d = min(k,
        m)`` columns of the sorted rows seen as an ``(n_queries, m)`` array, at ranks
        ``0 .. d - 1``. None otherwise (or with one row per query). Whether every
        query holds ``m`` rows is cached (the layout's); the retrieved rows are
        compared at each call (one comparison per query).
        """
        width = self.cached("common_width", self._common_width)
        if width is None or not np.all(self.n_retrieved == width):
            return None
        return width if k is None else min(k, width)

    def _common_width(self) -> int | None:
        if self.one_row_per_query or not self.n_rows:
            return None
        width = self.n_rows // self.n_queries
        return width if width * self.n_queries == self.n_rows and np.all(
            self.n_rows_per_query == width
        ) else None

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
        tied_rows = self.tied_rows
        if ties == "average" and tied_rows is not None:
            # built on demand, from the tied rows alone (no reference back to self)
            arrangement = Arrangement(
                self.n_rows, self.sorted_labels, partial(_run_starts, tied_rows, self.n_rows)
            )
        elif tied_rows is not None and not (ties == "input" and self.input_order_in_ties):
            first_rows = present(self.tie_first_rows, "RankedGroups.tie_first_rows")
            permutation = self._order_within_tie_blocks(first_rows, ties)
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
        keys.append(blocks._row_block[tied])
        permutation = np.arange(self.n_rows)
        permutation[tied] = tied[np.lexsort(keys)]
        return permutation

    def cache_keys(self) -> list[Any]:
        """The keys of the intermediates cached so far."""
        return list(self._cache)

    def forget_cached(self, kept_keys: set, keep: frozenset = frozenset()) -> None:
        """Drop the intermediates cached since ``kept_keys`` were, except those whose
        name (a key, or a tuple key's first item) is in ``keep``."""
        for key in list(self._cache):
            name = key[0] if isinstance(key, tuple) else key
            if key not in kept_keys and name not in keep:
                del self._cache[key]

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

_CHECK_CHUNK = 1 << 16


def _non_decreasing(codes: np.ndarray) -> bool:
    """Whether ``codes`` never decrease: checked chunk by chunk, stopping at the first
    decrease (scattered ids are told apart in one chunk, not a pass over every row)."""
    for start in range(0, len(codes) - 1, _CHECK_CHUNK):
        stop = min(start + _CHECK_CHUNK + 1, len(codes))
        if not np.all(codes[start + 1 : stop] >= codes[start : stop - 1]):
            return False
    return True



def rank_groups(
    y_true: Any,
    y_score: Any,
    group: Any = None,
    *,
    sample_weight: Any = None,
    judged: Any = None,
) -> RankedGroups:
    """Validate inputs and build the :class:`RankedGroups` every metric reads.

    :func:`~._rows.checked_rows`, then :func:`rank_rows`: for a caller that ranks
    its rows once, as they are (the kernels' tests, the scorers' shared sort).
    Inputs are never modified: arrays are converted (copied only when their dtype
    is not float64) and the sorted arrays are new.
    """
    rows = checked_rows(y_true, y_score, group, sample_weight=sample_weight, judged=judged)
    return rank_rows(rows)


def rank_rows(rows: Rows) -> RankedGroups:
    """Sort checked rows by (query, score descending): the one sort of a reading.

    No check runs here: :func:`~._rows.checked_rows` made them at the door.
    """
    queries = rows.queries
    scores = rows.scores
    n_queries = queries.n_queries
    order, tied_rows, input_order_in_ties = sort_by_query_then_score(
        queries.codes, scores, queries.offsets, queries.contiguous
    )
    n_retrieved = queries.rows_per_query
    # one reduction tells most calls that no row scores -inf (no mask of every row)
    if len(scores) and scores.min() == -np.inf:
        unretrieved = scores == -np.inf
        n_retrieved = np.array(n_retrieved, dtype=np.intp)  # a new array of this call's own
        unretrieved_rows = np.flatnonzero(unretrieved)
        if queries.codes is None:
            query_of_unretrieved = (
                np.searchsorted(queries.offsets, unretrieved_rows, side="right") - 1
            )
        else:
            query_of_unretrieved = queries.codes[unretrieved_rows]
        n_retrieved -= np.bincount(query_of_unretrieved, minlength=n_queries)
    return RankedGroups(
        query_ids=queries.ids,
        offsets=queries.offsets,
        order=order,
        tied_rows=tied_rows,
        n_retrieved=n_retrieved,
        query_weight=rows.query_weight,
        input_labels=rows.labels,
        two_dimensional=rows.two_dimensional,
        input_order_in_ties=input_order_in_ties,
        sorted_labels=_OnDemand(partial(np.take, rows.labels, order)),
        judged=rows.judged,
        judgments_given=rows.judgments_given,
    )
