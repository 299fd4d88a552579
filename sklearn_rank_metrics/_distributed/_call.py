"""One distributed call's arguments, checked once at the door: :class:`DistributedCall`.

Every door (``dask.evaluate``, ``dask.evaluate_per_query``, ``spark.evaluate``,
``spark.evaluate_per_query``, ``spark.per_query_values``, ``RankingMetricEvaluator``)
builds one with :func:`distributed_call` and hands it to its backend, which checks
the frame and its columns and plans the partitions' work: each
:class:`~._plan.PartitionPlan` carries the call to the workers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._engine._caller import caller_name
from .._engine._validation import BOOLEAN, Options
from .._metrics._base import SHARED_SETTINGS
from .._metrics._evaluate import metric_names, metric_settings
from .._metrics._registry import parse_metric
from .._metrics._settings import Settings

# the constraints of the keywords every door takes, for validate_params
CONSTRAINTS = {
    **SHARED_SETTINGS,
    "partitioned_by_query": [BOOLEAN, Options("auto")],
}


@dataclass(frozen=True)
class DistributedCall:
    """The checked arguments of one Dask or Spark call.

    Attributes
    ----------
    metrics : tuple of str
        Metric names as the user wrote them, each parsed once already (and again
        in each partition: a parsed spec holds a ``MappingProxyType``, which does
        not pickle).
    shared : Settings
        ``convention``, ``ties``, ``replace_undefined_by`` and ``relevance_level``,
        checked.
    y_true, y_score, group, sample_weight, judged, doc_id : column labels
        As the door received them (Spark: ``y_score`` may name several columns,
        one run each).
    partitioned_by_query : bool or "auto"
    buckets : int or None
        Spark's hash buckets (None: ``spark.sql.shuffle.partitions``; Dask: None).
    caller : str
        The public function called, for messages (workers run outside its context).

    Plain values only, so that it pickles: each partition's
    :class:`~._plan.PartitionPlan` carries it to the workers.
    """

    metrics: tuple[str, ...]
    shared: Settings
    y_true: Any
    y_score: Any
    group: Any
    sample_weight: Any
    judged: Any
    doc_id: Any
    partitioned_by_query: bool | str
    buckets: int | None
    caller: str

    def needs_row_order(self) -> bool:
        """Whether some metric orders tied rows by input order (``ties="input"``)."""
        return any(
            metric_settings(parse_metric(name), self.shared)[0].get("ties") == "input"
            for name in self.metrics
        )

    def value_columns(self, scores: Sequence[Any]) -> list[Any]:
        """The columns each partition reads besides the query ids, each once."""
        optional = (self.sample_weight, self.doc_id, judged_column(self.judged))
        named = [self.y_true, *scores, *(name for name in optional if name is not None)]
        return list(dict.fromkeys(named))


def distributed_call(
    metrics: Any,
    *,
    y_true: Any,
    y_score: Any,
    group: Any,
    sample_weight: Any,
    judged: Any,
    convention: str | None,
    ties: str | None,
    replace_undefined_by: float | str | None,
    relevance_level: float | None,
    partitioned_by_query: bool | str,
    doc_id: Any = None,
    buckets: int | None = None,
) -> DistributedCall:
    """Check the metric names and the settings (no task runs), and keep the arguments.

    Errors name the public function called
    (:func:`~.._engine._caller.caller_name`). The frame and its columns are the
    backend's to check: Dask's after these checks, Spark's frame before them (each
    door keeps the order its errors have always come in).
    """
    names = metric_names(metrics)
    for name in names:  # a bad name fails before any task runs
        parse_metric(name)
    shared = Settings.from_arguments(
        convention=convention,
        ties=ties,
        replace_undefined_by=replace_undefined_by,
        relevance_level=relevance_level,
    ).checked()
    return DistributedCall(
        metrics=tuple(names),
        shared=shared,
        y_true=y_true,
        y_score=y_score,
        group=group,
        sample_weight=sample_weight,
        judged=judged,
        doc_id=doc_id,
        # NumPy's bools as Python's: the backends test ``is True``
        partitioned_by_query=(
            partitioned_by_query if isinstance(partitioned_by_query, str)
            else bool(partitioned_by_query)
        ),
        buckets=buckets,
        caller=caller_name(),
    )


def judged_column(judged: Any) -> Any:
    """The column of ``judged=``, or None when it says no column (None: judged rows
    unknown; ``True``: every row judged).

    ``True`` is recognised by identity (NumPy's bool too), never by equality: ``1``
    equals ``True`` in Python, and would be read as "every row judged" instead of as
    the column it names.
    """
    if judged is None or (isinstance(judged, (bool, np.bool_)) and bool(judged)):
        return None
    return judged
