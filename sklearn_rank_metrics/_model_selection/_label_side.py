"""The label side of a booster's dataset, computed once and checked at every call.

A booster evaluates its metrics on the same datasets at every boosting round, with
new predictions and the same labels, query groups and weights. What depends only on
those (the checked and converted labels, the query layout, the query weights, and
the intermediates of the kernels that read labels alone: the rows per label level
and query that give the ideal DCG, the relevant rows per query) is kept here, per
dataset, and reused while the dataset's labels, groups and weights are unchanged.

Never scored with a stale label side: every call compares the labels, the group
sizes and the weights it is given with private copies of those the entry was built
from, element by element (:func:`numpy.array_equal`: one pass at memory speed, a
small fraction of the sort the scores need anyway). A hash or a sample of the rows
could miss a change; a full comparison cannot. The identity of the dataset only
decides which entry is compared first.

Memory stays bounded: an entry lives while its dataset lives (a weak reference;
LightGBM's ``Dataset``, XGBoost's ``DMatrix`` and NumPy arrays take one), and at
most :data:`MAX_DATASETS` entries are kept per metric (the least recently used goes
first). An object that takes no weak reference is not cached.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._engine._ranked_groups import RankedGroups

# A training evaluates a few datasets (train and valid sets; lgb.cv: two per fold)
MAX_DATASETS = 16

# The intermediates a RankedGroups caches that depend on the labels and the query
# layout alone, never on the order of the rows within a query (so never on the
# scores): the rows per (label level, query) of the ideal DCG and the ideal DCG
# itself, the gain of each row (in input order), the relevant rows per query
# (unretrieved ones included), the first negative label in input order, the rows
# per query and whether every query holds as many (then the discount of each row
# of the cutoff). Nothing that depends on the scores may be listed here.
LABEL_ONLY_KEYS = (
    "label_level_counts",
    "ideal_dcg",
    "input_gains",
    "n_relevant",
    "first_negative_label",
    "n_rows_per_query",
    "common_width",
    "column_discounts",
)


# The intermediates that depend on the query layout and on which rows were
# retrieved (scored above -inf), never on the order of the retrieved rows: the
# sorted rows within each cutoff, their ranks and discounts, whether each row is
# within it. They are kept only when every row was retrieved at the call that
# built them, and reused only at a call where every row is retrieved again (then
# both are the layout's alone).
RETRIEVED_ONLY_KEYS = ("cutoff_rows", "cutoff_rank", "cutoff_discounts", "in_cutoff")


def _name(key: Any) -> Any:
    return key[0] if isinstance(key, tuple) else key


def is_label_only(key: Any) -> bool:
    """Whether a RankedGroups cache key names an intermediate of the labels alone."""
    return _name(key) in LABEL_ONLY_KEYS


def every_row_retrieved(ranked: RankedGroups) -> bool:
    """Whether no row of ``ranked`` scores ``-inf`` (one comparison per query)."""
    return bool(np.array_equal(ranked.n_retrieved, ranked.n_rows_per_query))


def _private_copy(values: Any) -> np.ndarray | None:
    """A copy of ``values`` the caller cannot change (None stays None)."""
    if values is None:
        return None
    copy = np.array(values, copy=True)
    copy.flags.writeable = False
    return copy


def _same(given: Any, kept: np.ndarray | None) -> bool:
    """Whether ``given`` holds exactly the values ``kept`` holds (shape and values)."""
    if given is None or kept is None:
        return given is None and kept is None
    given = np.asarray(given)
    # equal NaNs never match: a NaN label is refused, never cached
    return given.shape == kept.shape and bool(np.array_equal(given, kept))


class LabelSide:
    """One dataset's label side: the inputs it was built from, and what was built.

    ``state`` is what the metric keeps (its checked rows and the kernels' label-only
    intermediates); it is reused only while :meth:`matches` the call's inputs.
    """

    __slots__ = ("_labels", "_sizes", "_weight", "_source", "state")

    def __init__(self, labels: Any, sizes: Any, weight: Any, state: Any) -> None:
        self._labels = _private_copy(labels)
        self._sizes = _private_copy(sizes)
        self._weight = _private_copy(weight)
        self._source: weakref.ref | None = None
        self.state = state

    def matches(self, labels: Any, sizes: Any, weight: Any) -> bool:
        """Whether the call's labels, group sizes and weights are those of the entry."""
        return (
            _same(sizes, self._sizes)
            and _same(weight, self._weight)
            and _same(labels, self._labels)
        )

    def source(self) -> Any:
        return None if self._source is None else self._source()


def _other_live(kept: Any, source: Any) -> bool:
    """Whether an entry's dataset ``kept`` is alive and not ``source``."""
    return kept is not None and kept is not source


class LabelSideCache:
    """A metric's label sides, one per live dataset, at most :data:`MAX_DATASETS`.

    Not pickled (the metric's ``__getstate__`` leaves it out): a copy of the metric
    starts empty.
    """

    def __init__(self, limit: int = MAX_DATASETS) -> None:
        self._entries: list[LabelSide] = []  # most recently used last
        # reentrant: a weak reference's callback can run (garbage collection) while
        # this thread holds the lock
        self._lock = threading.RLock()
        self._limit = limit

    def __len__(self) -> int:
        return len(self._entries)

    def find(self, source: Any, labels: Any, sizes: Any, weight: Any) -> LabelSide | None:
        """The entry built from these labels, sizes and weights, or None.

        The entry of ``source`` (the dataset) is compared first; an entry of another
        dataset with the same values is as good (its label side is the same).
        """
        with self._lock:
            entries = sorted(self._entries, key=lambda entry: entry.source() is not source)
        for entry in entries:
            if entry.matches(labels, sizes, weight):
                self._touch(entry)
                return entry
        return None

    def store(
        self, source: Any, labels: Any, sizes: Any, weight: Any, state: Any
    ) -> LabelSide | None:
        """Keep ``state`` for ``source``'s inputs (replacing the entry of ``source``)."""
        try:
            entry = LabelSide(labels, sizes, weight, state)
            entry._source = weakref.ref(source, self._forget_source)
        except TypeError:  # no weak reference to it: not cached, never kept alive
            return None
        with self._lock:
            # by identity (``in`` would compare arrays by value)
            self._entries = [kept for kept in self._entries if _other_live(kept.source(), source)]
            self._entries.append(entry)
            del self._entries[: max(0, len(self._entries) - self._limit)]
        return entry

    def clear(self) -> None:
        with self._lock:
            self._entries = []

    def _touch(self, entry: LabelSide) -> None:
        with self._lock:
            if entry in self._entries:
                self._entries.remove(entry)
                self._entries.append(entry)

    def _forget_source(self, _reference: weakref.ref) -> None:
        """Drop the entries whose dataset is gone (a weak reference's callback)."""
        with self._lock:
            self._entries = [kept for kept in self._entries if kept.source() is not None]


@dataclass(frozen=True)
class Seeds:
    """What a RankedGroups of a dataset cached that the next ones can reuse.

    ``labels``: the labels the metric read (its RankedGroups' ``input_labels``).
    They are the dataset's checked labels, or the labels as a convention's tool reads
    them, which can depend on the scores (torchmetrics reads a row scored ``<= 0`` as
    not relevant): the seeds go only where the labels read are these again.
    """

    labels: np.ndarray
    label_only: dict
    retrieved_only: dict | None  # None: some row was not retrieved at that call


def seeds_of(ranked: RankedGroups) -> Seeds:
    """The label-only (and, when every row was retrieved, layout-only) intermediates."""
    cache = ranked._cache
    label_only = {key: value for key, value in cache.items() if is_label_only(key)}
    retrieved_only = None
    if every_row_retrieved(ranked):
        retrieved_only = {
            key: value for key, value in cache.items() if _name(key) in RETRIEVED_ONLY_KEYS
        }
    return Seeds(ranked.input_labels, label_only, retrieved_only)


def plant(ranked: RankedGroups, seeds: Seeds) -> None:
    """Put ``seeds`` into the cache of ``ranked``, a ranking of the same query layout.

    Nothing unless ``ranked`` read the same labels (the same array, or equal ones);
    the retrieved-only ones only when every row of ``ranked`` is retrieved, as at
    the call that built them.
    """
    labels = ranked.input_labels
    if labels is not seeds.labels and not np.array_equal(labels, seeds.labels):
        return
    cache = ranked._cache
    for key, value in seeds.label_only.items():
        cache.setdefault(key, value)
    if seeds.retrieved_only is not None and every_row_retrieved(ranked):
        for key, value in seeds.retrieved_only.items():
            cache.setdefault(key, value)
