"""Ranking metrics on a Dask DataFrame, computed where the data lives.

:func:`evaluate` returns the same ``{name: mean}`` mapping as the in-memory
:func:`sklearn_rank_metrics.evaluate`, and :func:`evaluate_per_query` a Dask DataFrame
of per-query values. No row is collected to one process: each partition runs the
vectorised in-memory kernels on all of its queries at once and returns a few sums per
metric; the means are formed from those sums.

All rows of a query must sit in one partition. When that is not known, the rows are
shuffled by query id (hash partitioning) first; see the Notes of :func:`evaluate` for
what that and the check that may avoid it cost.

Needs the ``dask`` extra: ``python -m pip install ".[dask]"`` from a clone of the
repository, or ``python -m pip install "sklearn-rank-metrics[dask]"`` from a package
index (or ``python -m pip install "dask[dataframe]" distributed pandas pyarrow``).
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from functools import partial
from typing import Any

try:  # imported by the Dask half; named here, where the message says what to install
    for _module in ("dask", "dask.dataframe", "pandas"):
        importlib.import_module(_module)
except ImportError as error:  # pragma: no cover - exercised without the extra only
    raise ImportError(
        "sklearn_rank_metrics.dask needs Dask (dask[dataframe], distributed) and pandas: "
        "pip install \"sklearn-rank-metrics[dask]\" (or pip install \"dask[dataframe]\" "
        f"distributed pandas pyarrow) ({error})"
    ) from error

from ._distributed._call import CONSTRAINTS, distributed_call
from ._distributed._dask import dask_means, dask_table
from ._engine._caller import entry_point
from ._engine._validation import BOOLEAN, validate_params
from ._metrics._base import fill_doc
from ._metrics._evaluate import DEFAULT_METRICS

__all__ = ["evaluate", "evaluate_per_query"]

# the parameters the functions share, in their docstrings (through fill_doc)
_FRAGMENTS = {
    "dask_parameters": """ddf : dask.dataframe.DataFrame
        One row per (query, document) pair.
    metrics : str or sequence of str, default=("ndcg@10", "map", "mrr@10", "p@10", "recall@10")
        Metric names as in :func:`sklearn_rank_metrics.evaluate` (``"ndcg@10"``,
        ``"map(denominator=min(k,n_relevant))@10"``, ``"gauc"``, ...).
    y_true, y_score : column label, default="y_true", "y_score"
        Columns of relevance labels and model scores.
    group : column label, default="group"
        Column of query ids (ints, strings or categorical), or the name of the index.
    sample_weight : column label or None, default=None
        Column of query weights: one per row, constant within each query.
    judged : column label, True or None, default=None
        For the measures that read judgments (bpref, Judged@k, RBP's residual and
        bound): the column of booleans saying whether each row was judged, or
        ``True`` when every row was. With None those measures refuse to run: they
        never assume every row was judged.
    doc_id : column label or None, default=None
        Column of document ids: the tie order of a ``convention`` whose tool orders
        tied rows by document id (trec_eval), as in the in-memory ``evaluate``.
    convention, ties, replace_undefined_by, relevance_level : default=None
        As in :func:`sklearn_rank_metrics.evaluate`: applied to every metric that has
        the parameter, unless its name sets it. ``ties="input"`` follows the row
        order of ``ddf`` (partition by partition), which the shuffle keeps through an
        int64 row key. ``replace_undefined_by="raise"`` raises a ValueError naming an
        undefined query, from the partition where it was found (the in-memory
        version names the smallest undefined id; here it may be another one).
    partitioned_by_query : bool or "auto", default="auto"
        Whether every query's rows already sit in one partition. ``True``: no
        shuffle, and a query id found in two partitions is a ValueError naming the
        first such id and two of its partitions (each partition lists its distinct
        ids; :func:`evaluate` compares the lists in the task that adds the sums, with
        no extra pass, and raises when the result is computed;
        :func:`evaluate_per_query` compares them when called, one more pass over the
        group column). ``False``: always shuffle by query. ``"auto"``: no shuffle
        when one pass over the group column (or index) shows that the partitions'
        ``[min, max]`` id ranges do not overlap (data written or ``set_index``-ed by
        query); otherwise shuffle. Known divisions alone are not trusted:
        ``read_parquet`` with ``calculate_divisions=True`` reports them even when a
        query straddles two files. The ``"auto"`` check runs when this function is
        called, also with ``compute=False``.""",
}


@entry_point
@validate_params({**CONSTRAINTS, "compute": [BOOLEAN]})
@partial(fill_doc, fragments=_FRAGMENTS)
def evaluate(
    ddf: Any,
    metrics: str | Sequence[str] = DEFAULT_METRICS,
    *,
    y_true: Any = "y_true",
    y_score: Any = "y_score",
    group: Any = "group",
    sample_weight: Any = None,
    judged: Any = None,
    doc_id: Any = None,
    convention: str | None = None,
    ties: str | None = None,
    replace_undefined_by: float | str | None = None,
    relevance_level: float | None = None,
    partitioned_by_query: bool | str = "auto",
    compute: bool = True,
) -> Any:
    """Mean of several ranking metrics over the queries of a Dask DataFrame.

    The result equals :func:`sklearn_rank_metrics.evaluate` on the same rows held in
    memory (up to floating-point summation order, about 1e-15), for every metric
    name and setting.

    Parameters
    ----------
    [[dask_parameters]]
    compute : bool, default=True
        ``False`` returns a :class:`dask.delayed.Delayed` whose result is the
        mapping; pass several to one :func:`dask.compute` (or ``Client.compute``) to
        evaluate them in one pass over shared inputs.

    Returns
    -------
    scores : dict or dask.delayed.Delayed
        Each metric name, as given, mapped to a float.

    See Also
    --------
    evaluate_per_query : The per-query values as a Dask DataFrame.
    sklearn_rank_metrics.evaluate : The in-memory version.

    Notes
    -----
    Each partition :math:`p` runs the in-memory kernels on all of its queries at once
    and returns, per metric, over its queries :math:`q` not skipped by
    ``replace_undefined_by="skip"``: :math:`S_p = \\sum_q w_q v_q`,
    :math:`W_p = \\sum_q w_q`, the number of such queries, of skipped queries and of
    NaN values, :math:`S_p \\cdot 2^{-512}` (the mean is formed from it when
    :math:`\\sum_p S_p` overflows, as in memory) and the number of queries
    undefined in every tie order (for the mean's warning): seven sums. One task
    adds them (a few hundred bytes per partition), and

    .. math::

        \\text{mean} = \\frac{\\sum_p S_p}{\\sum_p W_p}

    is exactly the in-memory weighted mean. As there, a NaN value (the ``nan``
    policy) makes the mean NaN, and the mean's warnings are the in-memory ones, with
    their texts (``UndefinedMetricWarning``: no query left to average, the mean
    NaN; every query undefined, the mean only the policy's value). A warning raised
    in the partitions (ERR's binary-labels warning, say) is emitted once per call:
    as it is, the in-memory text, when every partition that held rows raised that
    text; otherwise saying in how many partitions it was raised, each about its
    own rows (a warning that reads every row in memory reads one partition's rows
    here). With ``compute=False`` they are emitted where the final task runs.

    Costs, for :math:`n` rows in :math:`P` partitions:

    - *already partitioned*: one read of the needed columns; each partition sorts
      its rows once, O((n/P) log(n/P)), and sends :math:`7 \\times` (number of
      metrics) floats (and its warnings) to the task that adds them.
    - *the* ``"auto"`` *check*: one extra read of the group column only (three values
      per partition reach the client).
    - *the* ``partitioned_by_query=True`` *check*: each partition's distinct query ids
      (from its sort) go with its sums to the task that adds them, which compares
      them: memory for one id per query there, nothing more reaches the client.
    - *the shuffle*: every row of the needed columns (query id, label, score, weight,
      plus an int64 row key when a metric uses ``ties="input"``) crosses the network
      once (17-40 bytes per row for numeric columns), and is buffered on the workers
      (p2p: on local disk) while the shuffle runs. ``set_index`` would cost more (a
      quantile pass and a sort); hash partitioning is enough here.

    Examples
    --------
    >>> import dask
    >>> import dask.dataframe as dd
    >>> import pandas as pd
    >>> from sklearn_rank_metrics.dask import evaluate
    >>> frame = pd.DataFrame({
    ...     "qid": [1, 2, 1, 2, 1, 2],
    ...     "label": [2, 0, 0, 1, 1, 0],
    ...     "score": [0.9, 0.3, 0.8, 0.7, 0.1, 0.2],
    ... })
    >>> ddf = dd.from_pandas(frame, npartitions=3, sort=False)
    >>> with dask.config.set(scheduler="threads"):
    ...     evaluate(ddf, ["mrr", "p@1", "recall@2"], y_true="label", y_score="score",
    ...              group="qid")
    {'mrr': 1.0, 'p@1': 1.0, 'recall@2': 0.75}
    """
    call = distributed_call(
        metrics, y_true=y_true, y_score=y_score, group=group, sample_weight=sample_weight,
        judged=judged, doc_id=doc_id, convention=convention, ties=ties,
        replace_undefined_by=replace_undefined_by, relevance_level=relevance_level,
        partitioned_by_query=partitioned_by_query,
    )
    return dask_means(ddf, call, compute=compute)


@entry_point(name="evaluate")  # the name its messages have always used
@validate_params(CONSTRAINTS)
@partial(fill_doc, fragments=_FRAGMENTS)
def evaluate_per_query(
    ddf: Any,
    metrics: str | Sequence[str] = DEFAULT_METRICS,
    *,
    y_true: Any = "y_true",
    y_score: Any = "y_score",
    group: Any = "group",
    sample_weight: Any = None,
    judged: Any = None,
    doc_id: Any = None,
    convention: str | None = None,
    ties: str | None = None,
    replace_undefined_by: float | str | None = None,
    relevance_level: float | None = None,
    partitioned_by_query: bool | str = "auto",
) -> Any:
    """Per-query values of several ranking metrics, as a lazy Dask DataFrame.

    Parameters
    ----------
    [[dask_parameters]]

    Returns
    -------
    table : dask.dataframe.DataFrame
        A ``query`` column (in the dtype of the group column) and one float64
        column per metric name; NaN where a query was skipped by
        ``replace_undefined_by="skip"`` or undefined under ``nan``. One row per
        query, sorted by query id within each partition, not across partitions;
        the index restarts at 0 in each partition and divisions are unknown. After
        sorting by ``query`` it equals ``sklearn_rank_metrics.evaluate(...,
        per_query=True)``. Only the ``"auto"`` check (see :func:`evaluate`) runs
        now; the values are computed when the result is.

    See Also
    --------
    evaluate : The means, combined from per-partition sums.

    Examples
    --------
    >>> import dask
    >>> import dask.dataframe as dd
    >>> import pandas as pd
    >>> from sklearn_rank_metrics.dask import evaluate_per_query
    >>> frame = pd.DataFrame({
    ...     "group": [1, 1, 2, 2], "y_true": [0, 1, 1, 0], "y_score": [0.9, 0.1, 0.5, 0.5],
    ... })
    >>> table = evaluate_per_query(dd.from_pandas(frame, npartitions=2), ["mrr", "p@1"])
    >>> with dask.config.set(scheduler="threads"):
    ...     print(table.compute().sort_values("query").to_string(index=False))
     query  mrr  p@1
         1 0.50  0.0
         2 0.75  0.5
    """
    call = distributed_call(
        metrics, y_true=y_true, y_score=y_score, group=group, sample_weight=sample_weight,
        judged=judged, doc_id=doc_id, convention=convention, ties=ties,
        replace_undefined_by=replace_undefined_by, relevance_level=relevance_level,
        partitioned_by_query=partitioned_by_query,
    )
    return dask_table(ddf, call)
