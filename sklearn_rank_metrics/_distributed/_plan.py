"""What every partition of one Dask or Spark call computes: :class:`PartitionPlan`.

The plan travels to the workers with each task (pickled), so it holds plain values
only; :data:`STATISTICS` are the sums each partition returns per metric.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._call import DistributedCall

# One row of per-partition sums per metric: these columns, in this order.
# "scaled_sum": sum(w * v) * 2**-512, for a weighted_sum that overflows (see
# sklearn_rank_metrics._metrics._aggregate.scaled_sum); "n_undefined": the queries
# undefined in every tie order (all of them: the mean measures nothing, and warns)
STATISTICS = (
    "weighted_sum", "weight", "n_kept", "n_skipped", "n_nan", "scaled_sum", "n_undefined"
)


@dataclass(frozen=True)
class PartitionPlan:
    """What every partition of one call computes for one run; plain values only, so
    that it pickles.

    Attributes
    ----------
    call : DistributedCall
        The call's checked arguments: metric names, settings, column labels, the
        public function's name (a worker runs outside the caller's context).
    y_score : column label
        This run's score column (on Spark, ``call.y_score`` may name several).
    group_on_index : bool
        Whether the query ids are the frame's index (Dask), not the column
        ``call.group``.
    row_order : bool
        Whether the frame carries :data:`ROW_ORDER_COLUMN` (the input row order,
        needed by ``ties="input"`` after a shuffle moved the rows).
    part, frame_kind : str
        What one call of these functions sees, for messages: one ``part``
        ("partition", "bucket") of a ``frame_kind`` ("Dask DataFrame").
    """

    call: DistributedCall
    y_score: Any
    group_on_index: bool
    row_order: bool
    part: str
    frame_kind: str

    def statistic_columns(self) -> list[str]:
        return [
            f"{index}:{name}" for index in range(len(self.call.metrics)) for name in STATISTICS
        ]
