"""What every partition of one Dask or Spark call computes: :class:`PartitionPlan`.

The plan travels to the workers with each task (pickled), so it holds plain values
only; :data:`STATISTICS` are the sums each partition returns per metric.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._metrics._settings import Settings

# One row of per-partition sums per metric: these columns, in this order.
# "scaled_sum": sum(w * v) * 2**-512, for a weighted_sum that overflows (see
# sklearn_rank_metrics._metrics._aggregate.scaled_sum); "n_undefined": the queries
# undefined in every tie order (all of them: the mean measures nothing, and warns)
STATISTICS = (
    "weighted_sum", "weight", "n_kept", "n_skipped", "n_nan", "scaled_sum", "n_undefined"
)


@dataclass(frozen=True)
class PartitionPlan:
    """What every partition computes; plain values only, so that it pickles.

    Attributes
    ----------
    metrics : tuple of str
        Metric names as the user wrote them (parsed again in each partition: a
        parsed spec holds a ``MappingProxyType``, which does not pickle).
    shared : Settings
        ``convention``, ``ties``, ``replace_undefined_by`` and ``relevance_level``
        for every metric.
    y_true, y_score, group, sample_weight : column labels
        ``group`` is read from the index when ``group_on_index``.
    judged : column label, True or None
        The column saying whether each row was judged, ``True`` (every row was), or
        None (not said: the measures that read judgments refuse to run).
    group_on_index : bool
    row_order : bool
        Whether the frame carries :data:`ROW_ORDER_COLUMN` (the input row order,
        needed by ``ties="input"`` after a shuffle moved the rows).
    caller : str
        Name used in error messages.
    doc_id : column label or None
        The column of document ids (tie order of a ``convention`` whose tool orders
        tied rows by document id).
    part, frame_kind : str
        What one call of these functions sees, for messages: one ``part``
        ("partition", "bucket") of a ``frame_kind`` ("Dask DataFrame").
    """

    metrics: tuple[str, ...]
    shared: Settings
    y_true: Any
    y_score: Any
    group: Any
    sample_weight: Any
    judged: Any
    group_on_index: bool
    row_order: bool
    caller: str
    doc_id: Any = None
    part: str = "partition"
    frame_kind: str = "Dask DataFrame"

    def statistic_columns(self) -> list[str]:
        return [f"{index}:{name}" for index in range(len(self.metrics)) for name in STATISTICS]


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
