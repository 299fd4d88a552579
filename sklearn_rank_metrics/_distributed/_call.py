"""One distributed call's arguments, checked once at the door: :class:`DistributedCall`.

Every door (``dask.evaluate``, ``dask.evaluate_per_query``, ``spark.evaluate``,
``spark.evaluate_per_query``, ``spark.per_query_values``, ``RankingMetricEvaluator``)
builds one with :func:`distributed_call` and hands it to its backend, which checks
the frame and its columns and plans the partitions' work from it
(:meth:`DistributedCall.plan`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .._engine._caller import caller_name
from .._engine._validation import BOOLEAN, Options
from .._metrics._base import SHARED_SETTINGS
from .._metrics._evaluate import metric_names, metric_settings
from .._metrics._registry import parse_metric
from .._metrics._settings import Settings
from ._plan import PartitionPlan, judged_column

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
        Metric names as the user wrote them, each parsed once already.
    shared : Settings
        ``convention``, ``ties``, ``replace_undefined_by`` and ``relevance_level``,
        checked.
    y_true, y_score, group, sample_weight, judged, doc_id : column labels
        As the door received them (Spark: ``y_score`` may name several columns,
        one run each; Dask takes no ``doc_id``, None).
    partitioned_by_query : bool or "auto"
    buckets : int or None
        Spark's hash buckets (None: ``spark.sql.shuffle.partitions``; Dask: None).
    caller : str
        The public function called, for messages (workers run outside its context).
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

    def plan(
        self, *, y_score: Any, group_on_index: bool, row_order: bool, part: str, frame_kind: str
    ) -> PartitionPlan:
        """The :class:`PartitionPlan` of one run (``y_score``: its one score column),
        with what the backend decided: whether the query ids are the index, whether
        the rows carry their input order, and the words of its messages (one
        ``part`` of a ``frame_kind``)."""
        return PartitionPlan(
            metrics=self.metrics,
            shared=self.shared,
            y_true=self.y_true,
            y_score=y_score,
            group=self.group,
            sample_weight=self.sample_weight,
            judged=self.judged,
            group_on_index=group_on_index,
            row_order=row_order,
            caller=self.caller,
            doc_id=self.doc_id,
            part=part,
            frame_kind=frame_kind,
        )


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
    backend's to check.
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
        partitioned_by_query=partitioned_by_query,
        buckets=buckets,
        caller=caller_name(),
    )
