"""The one pipeline from a call's inputs to ranked rows, for one metric or many.

Every metric entry point (a metric function, :func:`evaluate` and what calls it:
the report, ``compare``, the displays, the scorers, streaming, Dask and Spark
partitions) goes the same way:

1. :func:`rows_at_door`: the inputs checked and converted once
   (:func:`~.._engine._rows.checked_rows`), with what the call's convention decides
   for every metric at once (weights in float32 for the boosters);
2. :func:`read_for`: per metric, the rows as the convention's tool reads them for
   that metric (:class:`~.._engine._rows.Reading`: score precision, negative labels,
   rows scored ``<= 0``, the tool's tie order), shared by every metric of the same
   ordering;
3. :func:`~.._engine._ranked_groups.rank_rows`: one sort per reading.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._engine._ranked_groups import RankedGroups
from .._engine._rows import Rows, checked_rows, read_rows
from .._engine._shared_sort import ranked_rows
from ._conventions import Convention, Ordering, reading_of, weights_tool


def rows_at_door(
    y_true: Any,
    y_score: Any,
    group: Any,
    *,
    sample_weight: Any = None,
    judged: Any = None,
    doc_id: Any = None,
    convention: Convention | None = None,
    whole_call: bool = True,
) -> Rows:
    """The call's rows, checked once (errors name the caller, the argument and the row).

    ``whole_call=False`` for a part of a call's rows (see
    :func:`~.._engine._rows.checked_rows`).
    """
    return checked_rows(
        y_true,
        y_score,
        group,
        sample_weight=sample_weight,
        judged=judged,
        doc_id=doc_id,
        single_precision_weights=weights_tool(convention),
        negative_labels_gain_zero=convention is not None and convention.negative_labels_gain_zero,
        whole_call=whole_call,
    )


@dataclass(frozen=True)
class Ranked:
    """The rows of one reading, ranked.

    ``rows``: the rows as the tool reads them; ``ranked``: sorted; ``input_rows``: the
    caller's row of each row when the reading moved them (tied rows in the tool's
    order), else None; ``tie_order_followed``: False when the tool orders tied rows
    by document id or by the run's order and the call had no such ids or order (the
    rows kept their input order: the caller warns where that can change a value).
    """

    rows: Rows
    ranked: RankedGroups
    input_rows: np.ndarray | None
    tie_order_followed: bool


def read_for(rows: Rows, convention: Convention | None, ordering: Ordering | None) -> Ranked:
    """The rows read and ranked as ``convention``'s tool does for one ``ordering``.

    Without a convention (or ordering), the rows as checked. Ranked through the
    scorers' shared sort when one is active (``make_ranking_scorers``).
    """
    if convention is None or ordering is None:
        return Ranked(rows, ranked_rows(rows), None, True)
    read, moved = read_rows(rows, reading_of(convention, ordering))
    followed = ordering.doc_id_order is None or moved is not None
    return Ranked(read, ranked_rows(read), moved, followed)
