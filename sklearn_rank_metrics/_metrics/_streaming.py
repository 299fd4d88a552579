"""Metrics over batches of whole queries: :class:`RankingEvaluator`.

A training or inference loop sees its queries batch by batch. Each ``update`` computes
the batch's per-query values (one validation and sort, every metric's kernel, the
undefined-query policy, as :func:`evaluate`) and keeps only those; ``compute`` forms
the means from all of them. Memory is one value (and weight) per query and metric,
never the rows.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Sequence
from types import SimpleNamespace
from typing import Any

import numpy as np

from .._engine._caller import caller_name, entry_point, renamed_as
from .._engine._frames import frame_of, output_library, returns_frames_like_inputs
from .._engine._inputs import check_pandas_indexes, to_numpy
from .._engine._mixups import warn_one_row_queries
from .._engine._ranking_rows import RankingRows, accepts_ranking_rows
from .._engine._validation import BOOLEAN, Options, check_parameter
from .._render._trec_eval import MeasureValues, trec_eval_lines
from ._aggregate import PerQuery, weighted_mean
from ._evaluate import (
    DEFAULT_METRICS,
    MetricDetail,
    evaluate_details,
    metric_names,
)
from ._registry import parse_metric
from ._settings import Settings

_PER_QUERY = [BOOLEAN, Options("trec_eval")]  # as evaluate's per_query


def _refuse_unnamed_convention(update: Callable[..., Any]) -> Callable[..., Any]:
    """Refuse rows read under a convention the evaluator did not name.

    The evaluator's settings come at construction, before any rows; rows that carry a
    convention (TREC files: ``"trec_eval"``) given to an evaluator built without one
    could mean the tool's numbers (as ``evaluate(data)`` gives them) or the package's:
    the batch is refused with both spellings. An evaluator built with a convention
    (``"none"`` included) applies its own.
    """

    @functools.wraps(update)
    def checked(self: RankingEvaluator, *args: Any, **kwargs: Any) -> Any:
        rows = args[0] if args else kwargs.get("y_true")
        carried = rows.carried()["convention"] if isinstance(rows, RankingRows) else None
        if carried is not None and self.settings.convention is None:
            given = "".join(f", {name}={value!r}" for name, value in self.settings.given().items())
            raise ValueError(
                f"{caller_name()} got a {type(rows).__name__} read under "
                f"convention={carried!r}, but the evaluator was built without a convention, "
                "so the batch could be evaluated two ways. Build it with "
                f"RankingEvaluator(..., convention={carried!r}{given}) for {carried}'s "
                "numbers (as evaluate(data) gives them), or with convention='none'"
                f"{given} for the package's defaults."
            )
        return update(self, *args, **kwargs)

    return checked


class RankingEvaluator:
    """Accumulate ranking metrics over batches of whole queries.

    Parameters
    ----------
    metrics : str or sequence of str, default=("ndcg@10", "map", "mrr@10", "p@10", "recall@10")
        Metric names, as in :func:`evaluate`; each is checked here (an unknown
        name is a ``ValueError`` at construction, not at the first ``update``).
    convention, ties, replace_undefined_by, relevance_level : default=None
        As in :func:`evaluate`.

    Attributes
    ----------
    n_queries_ : int
        Queries seen so far.

    Notes
    -----
    A query's value depends on all its rows, so every batch must hold whole queries:
    a query id that arrives in a second batch (or in both of two merged evaluators)
    is refused with a ``ValueError`` naming it, never averaged as two queries. As
    in one :func:`evaluate` call, the query ids of all batches must be comparable
    with each other: a batch whose ids cannot be compared with the earlier ones
    (``"1"`` after ``1``) is refused with a ``TypeError``, never taken as other
    queries.

    ``update`` and ``merge`` may be called from several threads at once: the check
    that a query is new and its recording happen under one lock (the metrics of a
    batch are computed outside it), so of two concurrent batches holding the same
    query id, one is accepted and the other refused. ``compute`` reads a
    consistent snapshot. An evaluator pickles (without its lock) for other
    processes, whose evaluators :meth:`merge` combines. The
    means of :meth:`compute` are those of one :func:`evaluate` call on all the rows
    (to summation order, about 1e-16 relative). Inputs are anything ``np.asarray``
    reads (NumPy arrays, pandas Series, CPU tensors with ``__array__``).

    Examples
    --------
    >>> from sklearn_rank_metrics import RankingEvaluator
    >>> evaluator = RankingEvaluator(metrics=["mrr", "p@1"])
    >>> evaluator.update([1, 0, 0], [0.9, 0.8, 0.1], [1, 1, 1])  # batch 1: query 1
    >>> evaluator.update([0, 1, 0, 1], [0.9, 0.8, 0.7, 0.1], [2, 2, 3, 3])  # 2 and 3
    >>> evaluator.compute()
    {'mrr': 0.6666666666666666, 'p@1': 0.3333333333333333}
    """

    @entry_point(name="RankingEvaluator")
    def __init__(
        self,
        metrics: str | Sequence[str] = DEFAULT_METRICS,
        *,
        convention: str | None = None,
        ties: str | None = None,
        replace_undefined_by: float | str | None = None,
        relevance_level: float | None = None,
    ) -> None:
        self.metrics = metric_names(metrics)
        for name in self.metrics:  # unknown names and bad parameters, now
            parse_metric(name)
        self.settings = Settings.from_arguments(
            convention=convention,
            ties=ties,
            replace_undefined_by=replace_undefined_by,
            relevance_level=relevance_level,
        ).checked()
        self._query_ids: list[np.ndarray] = []
        self._details: list[dict[str, MetricDetail]] = []
        self._seen: set = set()
        # the frame library of the first batch's inputs: that of the per-query table
        self._frame_library: str | None = None
        # rows of every flat batch: compute judges the whole (every query one row?);
        # scikit-learn's 2-D form has no query ids to mix up (one row each is valid)
        self._n_rows = 0
        self._two_dimensional = False
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        with self._lock:
            state = self.__dict__.copy()
        del state["_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        if "shared" in state:  # pickled before the settings became one object
            state["settings"] = Settings.coerce(state.pop("shared"))
        state.setdefault("_frame_library", None)  # pickled before tables followed the inputs
        state.setdefault("_n_rows", 0)  # pickled before the rows were counted
        state.setdefault("_two_dimensional", False)
        self.__dict__.update(state)
        self._lock = threading.Lock()

    @property
    def n_queries_(self) -> int:
        return len(self._seen)

    @property
    def shared(self) -> dict[str, Any]:
        """The settings as the ``{name: value}`` dict this attribute used to hold."""
        return self.settings.as_dict()

    @entry_point(name="RankingEvaluator.update")
    @_refuse_unnamed_convention
    @returns_frames_like_inputs()
    @accepts_ranking_rows
    def update(
        self,
        y_true: Any,
        y_score: Any,
        group: Any = None,
        *,
        sample_weight: Any = None,
        judged: Any = None,
        doc_id: Any = None,
    ) -> None:
        """Add a batch of whole queries.

        Parameters
        ----------
        y_true, y_score, group
            The batch's rows, as in :func:`evaluate` (a :class:`RankingData` passed
            whole as ``y_true`` gives its scores, query ids, judged rows and
            document ids; rows read under a convention, as TREC files are, need an
            evaluator built with a ``convention``). Flat rows need their query ids,
            even when a batch holds one query.
        sample_weight, judged, doc_id
            As in :func:`evaluate`.
        """
        # pandas inputs pair by position only if they share one index (checked before
        # the conversion drops it); the engine's checked conversion (np.asarray would
        # drop a mask, say)
        check_pandas_indexes({
            "y_true": y_true, "y_score": y_score, "group": group,
            "sample_weight": sample_weight, "judged": judged, "doc_id": doc_id,
        })
        y_true, y_score = to_numpy(y_true, "y_true"), to_numpy(y_score, "y_score")
        group = None if group is None else to_numpy(group, "group")
        details = evaluate_details(
            y_true,
            y_score,
            group,
            metrics=self.metrics,
            shared=self.settings,
            sample_weight=sample_weight,
            means=False,
            doc_id=doc_id,
            judged=judged,
            whole_call=False,  # a batch: some of the queries (compute judges the whole)
        )
        self._add(details.query_ids, details.metrics, "RankingEvaluator.update", output_library())
        with self._lock:
            self._n_rows += int(np.size(y_true))
            self._two_dimensional |= group is None  # 2-D: every row of y_true a query

    def _add(
        self,
        query_ids: np.ndarray,
        details: dict[str, MetricDetail],
        where: str,
        frame_library: str | None,
    ) -> None:
        """Record a batch's queries, unless one was seen before (atomically).

        The first batch recorded gives the frame library of the per-query table.
        """
        ids = query_ids.tolist()
        with self._lock:
            earlier = next((batch for batch in self._query_ids if len(batch)), None)
            if ids and earlier is not None:
                _check_comparable(earlier[:1].tolist()[0], ids[0], where)
            repeated = [q for q in ids if q in self._seen]
            if repeated:
                raise ValueError(
                    f"{where}: query {repeated[0]!r} was already evaluated in an earlier "
                    f"batch ({len(repeated)} such queries). A query's value depends on all "
                    "its rows, so every batch must hold whole queries."
                )
            if not self._details:
                self._frame_library = frame_library
            self._seen.update(ids)
            self._query_ids.append(query_ids)
            self._details.append(details)

    def merge(self, other: RankingEvaluator) -> RankingEvaluator:
        """Add the queries of another evaluator with the same metrics and settings.

        Parameters
        ----------
        other : RankingEvaluator
            An evaluator of other queries (e.g. a parallel worker's).

        Returns
        -------
        self : RankingEvaluator
        """
        if not isinstance(other, RankingEvaluator):
            raise TypeError(
                "RankingEvaluator.merge takes another RankingEvaluator; got "
                f"{type(other).__name__}."
            )
        if other.metrics != self.metrics or other.settings != self.settings:
            raise ValueError(
                "RankingEvaluator.merge needs the same metrics and settings on both sides; "
                f"got {other.metrics} {other.settings.as_dict()} and {self.metrics} "
                f"{self.settings.as_dict()}."
            )
        with other._lock:  # a snapshot; self may be other (its queries are then refused)
            batches = list(zip(other._query_ids, other._details, strict=True))
            library, n_rows = other._frame_library, other._n_rows
            two_dimensional = other._two_dimensional
        for query_ids, details in batches:
            self._add(query_ids, details, "RankingEvaluator.merge", library)
        with self._lock:
            self._n_rows += n_rows
            self._two_dimensional |= two_dimensional
        return self

    @entry_point(name="RankingEvaluator.compute")
    def compute(self, per_query: bool = False) -> Any:
        """The means over every query seen, or the per-query values.

        Parameters
        ----------
        per_query : bool or "trec_eval", default=False
            As in :func:`evaluate`: ``True`` gives a table with a ``query`` column,
            queries sorted, one column per metric; ``"trec_eval"`` the text
            ``trec_eval -q`` prints.

        Returns
        -------
        scores : dict, DataFrame or str
            The means (a dict), the text, or the per-query table in the frame
            library of the first batch's inputs: a polars DataFrame for polars
            inputs, a pyarrow Table for pyarrow inputs, a pandas DataFrame
            otherwise (a dict of NumPy arrays without pandas).
        """
        check_parameter(caller_name(), "per_query", per_query, _PER_QUERY)
        # evaluate's reading: False gives the means, "trec_eval" the text, True the table
        as_table = bool(per_query) and not isinstance(per_query, str)
        with self._lock:
            batch_ids, batch_details = list(self._query_ids), list(self._details)
            n_rows, two_dimensional = self._n_rows, self._two_dimensional
        if not batch_details:
            raise ValueError("RankingEvaluator.compute: no batch was added (call update first).")
        # the batches' mix-up the batches alone cannot tell (every query one row)
        if not two_dimensional:
            warn_one_row_queries(n_rows, len(self._seen))
        query_ids = np.concatenate(batch_ids)
        order = np.argsort(query_ids, kind="stable")
        results, per_query_values = {}, {}
        for name in self.metrics:
            parts = [details[name] for details in batch_details]
            values = np.concatenate([part.values for part in parts])[order]
            per_query_values[name] = values
            if as_table:
                continue
            weights = np.concatenate(
                [np.broadcast_to(part.weights, part.values.shape) for part in parts]
            )[order]
            skipped = np.concatenate([part.skipped for part in parts])[order]
            # every batch's undefined queries, for the warning of a mean over none defined
            kernels = [part.kernel for part in parts if part.kernel is not None]
            combined = PerQuery(
                values,
                np.concatenate([np.asarray(kernel.undefined, np.float64) for kernel in kernels]),
                description=kernels[0].description,
            )
            with renamed_as(f"RankingEvaluator ({name})"):
                results[name] = weighted_mean(values, weights, skipped, parts[0].total, combined)
        if as_table:
            return frame_of({"query": query_ids[order], **per_query_values}, self._frame_library)
        if per_query == "trec_eval":
            measures: dict[str, MeasureValues] = {
                name: SimpleNamespace(
                    values=per_query_values[name],
                    mean=results[name],
                    total=batch_details[0][name].total,
                )
                for name in self.metrics
            }
            return trec_eval_lines(query_ids[order], measures)
        return results


def _check_comparable(earlier: Any, new: Any, where: str) -> None:
    """Refuse a batch whose query ids cannot be compared with the earlier batches'.

    One :func:`evaluate` call refuses such a mix (``1`` and ``"1"``); batches would
    otherwise keep them as two queries, and ``compute`` would concatenate them into
    one array of text (both ``"1"``).
    """
    try:
        earlier < new  # noqa: B015 (the comparison is the check)
    except TypeError:
        raise TypeError(
            f"{where}: group holds query id {new!r} ({type(new).__name__}), which cannot "
            f"be compared with the query ids of earlier batches, such as {earlier!r} "
            f"({type(earlier).__name__}); give every batch query ids of one kind (as one "
            "evaluate call needs)."
        ) from None
