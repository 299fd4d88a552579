"""Ranking metrics on a Spark DataFrame, computed where the data lives.

:func:`evaluate` returns the same ``{name: mean}`` mapping as the in-memory
:func:`sklearn_rank_metrics.evaluate`, :func:`evaluate_per_query` a Spark DataFrame of
per-query values, and :class:`RankingMetricEvaluator` is a
``pyspark.ml.evaluation.Evaluator`` for ``CrossValidator``. No row is collected to the
driver: the rows of each query meet in one bucket (a hash of the query id), each
bucket runs the vectorised in-memory kernels on all of its queries at once in a Python
worker, and returns a few sums per metric; the means are formed from those sums.

Needs the ``spark`` extra: ``python -m pip install ".[spark]"`` from a clone of the
repository, or ``python -m pip install "sklearn-rank-metrics[spark]"`` from a package
index (pyspark 4, which needs Python >= 3.11 and a Java 17 or 21 runtime, pandas and
pyarrow). The Python
workers must import this package: set ``PYSPARK_PYTHON`` to the interpreter that has it.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from functools import partial
from typing import Any

try:  # the workers' frames are pandas, moved as Arrow batches
    for _module in ("pyspark.sql", "pandas", "pyarrow"):
        importlib.import_module(_module)
except ImportError as error:  # pragma: no cover - exercised without the extra only
    raise ImportError(
        "sklearn_rank_metrics.spark needs pyspark>=4.0 (Python>=3.11), pandas and pyarrow: "
        "pip install \"sklearn-rank-metrics[spark]\" (or pip install pyspark pandas pyarrow) "
        f"({error})"
    ) from error

from pyspark.sql import DataFrame

from ._distributed._call import CONSTRAINTS, distributed_call
from ._distributed._spark_checks import check_frame
from ._distributed._spark_evaluator import RankingMetricEvaluator
from ._distributed._spark_run import spark_means, spark_table, spark_values
from ._engine._caller import entry_point
from ._engine._validation import NONE, Interval, validate_params
from ._metrics._base import fill_doc
from ._metrics._evaluate import DEFAULT_METRICS
from ._stats._per_query_values import PerQueryValues

__all__ = ["RankingMetricEvaluator", "evaluate", "evaluate_per_query", "per_query_values"]

_CONSTRAINTS = {**CONSTRAINTS, "buckets": [Interval(int, 1, None), NONE]}


# the parameters the functions share, in their docstrings (through fill_doc)
_FRAGMENTS = {
    "spark_parameters": """df : pyspark.sql.DataFrame
        One row per (query, document) pair, in any order and partitioning.
    metrics : str or sequence of str, default=("ndcg@10", "map", "mrr@10", "p@10", "recall@10")
        Metric names as in :func:`sklearn_rank_metrics.evaluate` (``"ndcg@10"``,
        ``"map(denominator=min(k,n_relevant))@10"``, ``"gauc"``, ...).
    y_true : str, default="y_true"
        Column of relevance labels (numbers or booleans).
    y_score : str or list of str, default="y_score"
        Column of model scores; a list names several runs (models), computed in one
        pass over the rows: each run is ranked on its own column.
    group : str, default="group"
        Column of query ids (integers or strings).
    sample_weight : str or None, default=None
        Column of query weights: one per row, constant within each query.
    judged : str, True or None, default=None
        For the measures that read judgments (bpref, Judged@k, RBP's residual and
        bound): the column of booleans saying whether each row was judged, or
        ``True`` when every row was. With None those measures refuse to run.
    doc_id : str or None, default=None
        Column of document ids: the tie order of a ``convention`` whose tool orders
        tied rows by document id (trec_eval), as in the in-memory ``evaluate``.
    convention, ties, replace_undefined_by, relevance_level : default=None
        As in :func:`sklearn_rank_metrics.evaluate`: applied to every metric that has
        the parameter, unless its name sets it. ``ties="input"`` follows the row
        order of ``df`` at the call, partition by partition, which the shuffle keeps
        through an int64 row key (``monotonically_increasing_id``); a DataFrame whose
        plan is not deterministic (a ``repartition`` without columns after a
        shuffle, say) has no order to keep. ``replace_undefined_by="raise"`` raises
        a ValueError naming an undefined query of one bucket (the in-memory version
        names the smallest undefined id; here it may be another one).
    partitioned_by_query : bool or "auto", default="auto"
        Whether every query's rows already sit in one partition of ``df``. ``True``:
        no shuffle, and a query id found in two partitions is a ValueError naming
        the first such id and two of its partitions (:func:`evaluate` checks it in
        the job that forms the sums: each partition also returns its distinct ids,
        and Spark counts them; the per-query functions check it when called, one
        more job over the group column). ``False``: always shuffle by query.
        ``"auto"``: no shuffle when one aggregation of the group column shows that
        the partitions' ``[min, max]`` id ranges do not overlap
        (``repartitionByRange`` on the query id, or data written sorted by query);
        otherwise shuffle. The ``"auto"`` check runs when this function is called.
    buckets : int or None, default=None
        Number of hash buckets of query ids the rows are shuffled into; None:
        ``spark.sql.shuffle.partitions``. A bucket is one pandas frame in one Python
        worker (about 200 bytes per row): aim at about a million rows per bucket.""",
}


@entry_point
@validate_params(_CONSTRAINTS)
@partial(fill_doc, fragments=_FRAGMENTS)
def evaluate(
    df: Any,
    metrics: str | Sequence[str] = DEFAULT_METRICS,
    *,
    y_true: str = "y_true",
    y_score: str | Sequence[str] = "y_score",
    group: str = "group",
    sample_weight: str | None = None,
    judged: str | bool | None = None,
    doc_id: str | None = None,
    convention: str | None = None,
    ties: str | None = None,
    replace_undefined_by: float | str | None = None,
    relevance_level: float | None = None,
    partitioned_by_query: bool | str = "auto",
    buckets: int | None = None,
) -> dict[str, Any]:
    """Mean of several ranking metrics over the queries of a Spark DataFrame.

    The result equals :func:`sklearn_rank_metrics.evaluate` on the same rows held in
    memory (up to floating-point summation order, about 1e-15), for every metric
    name and setting. One Spark job (two with the ``"auto"`` check); one row of sums
    per bucket reaches the driver.

    Parameters
    ----------
    [[spark_parameters]]

    Returns
    -------
    scores : dict
        Each metric name, as given, mapped to a float; with several score columns,
        each column name mapped to such a dict.

    Raises
    ------
    ValueError, TypeError
        Bad columns and settings before any Spark job runs; bad rows (a NaN score,
        a weight not constant within a query, ...) and ``replace_undefined_by="raise"``
        with the in-memory message, which says that its row numbers and counts are
        those of one bucket.

    See Also
    --------
    evaluate_per_query : The per-query values as a Spark DataFrame.
    sklearn_rank_metrics.evaluate : The in-memory version.
    sklearn_rank_metrics.dask.evaluate : The same on a Dask DataFrame.

    Notes
    -----
    Each bucket :math:`b` runs the in-memory kernels on all of its queries at once
    and returns, per metric, over its queries :math:`q` not skipped by
    ``replace_undefined_by="skip"``: :math:`S_b = \\sum_q w_q v_q`,
    :math:`W_b = \\sum_q w_q`, the number of such queries, of skipped queries and of
    NaN values, :math:`S_b \\cdot 2^{-512}` (the mean is formed from it when
    :math:`\\sum_b S_b` overflows, as in memory) and the number of queries
    undefined in every tie order (for the mean's warning): seven sums. The driver
    adds them (one row per bucket), and

    .. math::

        \\text{mean} = \\frac{\\sum_b S_b}{\\sum_b W_b}

    is exactly the in-memory weighted mean. As there, a NaN value (the ``nan``
    policy) makes the mean NaN, and the mean's warnings are the in-memory ones, with
    their texts (``UndefinedMetricWarning``: no query left to average, the mean
    NaN; every query undefined, the mean only the policy's value). A warning raised
    in the workers (ERR's binary-labels warning, say) is emitted once here: as it
    is, the in-memory text, when every bucket that held rows raised that text;
    otherwise saying in how many buckets it was raised, each about its own rows (a
    warning that reads every row in memory reads one bucket's rows here).

    Costs, for :math:`n` rows: the shuffle moves every row of the needed columns
    once (query id, label, score, weight, judged, doc id, plus 8 bytes of row key
    with ``ties="input"``: 20-60 bytes per row for numeric ids), each bucket sorts
    its rows once and returns :math:`7 \\times` (runs :math:`\\times` metrics)
    floats (and its warnings): one such row per bucket reaches the driver, which
    adds them (with ``partitioned_by_query=True``, Spark adds them, beside the
    partitions' query lists, and one row reaches the driver). Already partitioned
    data (``partitioned_by_query``) skips the shuffle. ``benchmarks/bench_spark.py``
    measures it (``SPARK_RESULTS.md``) and estimates it for a cluster.

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> from sklearn_rank_metrics.spark import evaluate
    >>> spark = SparkSession.builder.master("local[2]").getOrCreate()  # doctest: +SKIP
    >>> df = spark.createDataFrame(
    ...     [(1, 2, 0.9), (2, 0, 0.3), (1, 0, 0.8), (2, 1, 0.7), (1, 1, 0.1), (2, 0, 0.2)],
    ...     ["qid", "label", "score"],
    ... )  # doctest: +SKIP
    >>> evaluate(df, ["mrr", "p@1", "recall@2"], y_true="label", y_score="score",
    ...          group="qid")  # doctest: +SKIP
    {'mrr': 1.0, 'p@1': 1.0, 'recall@2': 0.75}
    """
    check_frame(df)
    call = distributed_call(
        metrics, y_true=y_true, y_score=y_score, group=group, sample_weight=sample_weight,
        judged=judged, doc_id=doc_id, convention=convention, ties=ties,
        replace_undefined_by=replace_undefined_by, relevance_level=relevance_level,
        partitioned_by_query=partitioned_by_query, buckets=buckets,
    )
    return spark_means(df, call)


@entry_point
@validate_params(_CONSTRAINTS)
@partial(fill_doc, fragments=_FRAGMENTS)
def evaluate_per_query(
    df: Any,
    metrics: str | Sequence[str] = DEFAULT_METRICS,
    *,
    y_true: str = "y_true",
    y_score: str | Sequence[str] = "y_score",
    group: str = "group",
    sample_weight: str | None = None,
    judged: str | bool | None = None,
    doc_id: str | None = None,
    convention: str | None = None,
    ties: str | None = None,
    replace_undefined_by: float | str | None = None,
    relevance_level: float | None = None,
    partitioned_by_query: bool | str = "auto",
    buckets: int | None = None,
) -> DataFrame:
    """Per-query values of several ranking metrics, as a lazy Spark DataFrame.

    Parameters
    ----------
    [[spark_parameters]]

    Returns
    -------
    table : pyspark.sql.DataFrame
        One row per query (per query and run with several score columns), in no
        particular order; columns:

        - ``query``: the query id, of the group column's type;
        - ``run`` (string, only when ``y_score`` is a list): the score column;
        - ``weight`` (double, only with ``sample_weight``): the query's weight;
        - one double column per metric name, as given (names with dots or
          parentheses need backticks in ``F.col``): **null** where
          ``replace_undefined_by="skip"`` skipped the query, **NaN** where the
          ``nan`` policy made the value NaN. So ``F.avg`` of a column reproduces
          the ``skip`` mean (it leaves nulls out) and is NaN under ``nan``, as the
          in-memory mean is. (The in-memory and Dask tables hold NaN for both.)

        After ``orderBy("query")`` and ``toPandas()`` it equals
        ``sklearn_rank_metrics.evaluate(..., per_query=True)`` (with nulls as NaN).
        Only the ``"auto"`` check runs now; the values are computed when the table
        is, and an error in a bucket (a NaN score, ``"raise"``) then reaches you as
        pyspark's ``PythonException`` whose message ends with the package's
        message; :func:`evaluate` raises the package's ValueError or TypeError itself.

    See Also
    --------
    evaluate : The means, combined from per-bucket sums.

    Examples
    --------
    >>> from sklearn_rank_metrics.spark import evaluate_per_query
    >>> df = spark.createDataFrame(
    ...     [(1, 0, 0.9), (1, 1, 0.1), (2, 1, 0.5), (2, 0, 0.5)],
    ...     ["group", "y_true", "y_score"],
    ... )  # doctest: +SKIP
    >>> evaluate_per_query(df, ["mrr", "p@1"]).orderBy("query").show()  # doctest: +SKIP
    +-----+----+---+
    |query| mrr|p@1|
    +-----+----+---+
    |    1| 0.5|0.0|
    |    2|0.75|0.5|
    +-----+----+---+
    """
    check_frame(df)
    call = distributed_call(
        metrics, y_true=y_true, y_score=y_score, group=group, sample_weight=sample_weight,
        judged=judged, doc_id=doc_id, convention=convention, ties=ties,
        replace_undefined_by=replace_undefined_by, relevance_level=relevance_level,
        partitioned_by_query=partitioned_by_query, buckets=buckets,
    )
    return spark_table(df, call)


@entry_point
@validate_params(_CONSTRAINTS)
@partial(fill_doc, fragments=_FRAGMENTS)
def per_query_values(
    df: Any,
    metrics: str | Sequence[str] = DEFAULT_METRICS,
    *,
    y_true: str = "y_true",
    y_score: str | Sequence[str] = "y_score",
    group: str = "group",
    sample_weight: str | None = None,
    judged: str | bool | None = None,
    doc_id: str | None = None,
    convention: str | None = None,
    ties: str | None = None,
    replace_undefined_by: float | str | None = None,
    relevance_level: float | None = None,
    partitioned_by_query: bool | str = "auto",
    buckets: int | None = None,
) -> PerQueryValues:
    """Per-query values computed on Spark, brought to the driver for paired statistics.

    :func:`evaluate_per_query`'s table, collected with ``toArrow()`` (one row per
    query and run: queries, never rows, reach the driver) and read by
    :meth:`sklearn_rank_metrics.PerQueryValues.from_frame` with the policy and
    convention it was computed with, so that a skipped query (null) is left out and a
    ``nan``-policy value stays NaN. Pass the result whole to
    :func:`sklearn_rank_metrics.compare` or :func:`sklearn_rank_metrics.ranking_report`:
    their numbers equal those of the same calls on the rows in memory.

    Parameters
    ----------
    [[spark_parameters]]

    Returns
    -------
    values : sklearn_rank_metrics.PerQueryValues
        Every query's value of every metric for every run (each score column of
        ``y_score``; one unnamed run for a single column), with the query weights
        when ``sample_weight`` is given. The tables of ``compare`` and
        ``ranking_report(as_frame=True)`` on it are pandas DataFrames.

    See Also
    --------
    evaluate_per_query : The same values as a lazy Spark DataFrame.

    Examples
    --------
    Two runs as two score columns; ``"bad"`` ranks the relevant row second in
    queries 1 and 2 and first in query 3:

    >>> from sklearn_rank_metrics import compare
    >>> from sklearn_rank_metrics.spark import per_query_values
    >>> df = spark.createDataFrame(
    ...     [(1, 1, 0.9, 0.2), (1, 0, 0.3, 0.8), (2, 1, 0.7, 0.1), (2, 0, 0.2, 0.6),
    ...      (3, 1, 0.8, 0.4), (3, 0, 0.5, 0.3)],
    ...     ["group", "y_true", "good", "bad"],
    ... )  # doctest: +SKIP
    >>> values = per_query_values(
    ...     df, ["mrr", "p@1"], y_score=["good", "bad"]
    ... )  # doctest: +SKIP
    >>> values  # doctest: +SKIP
    PerQueryValues(3 queries, runs=('good', 'bad'), metrics=('mrr', 'p@1'), weighted=False)
    >>> compare(values, n_resamples=1000, random_state=0).means  # doctest: +SKIP
      model       mrr       p@1
    0  good  1.000000  1.000000
    1   bad  0.666667  0.333333
    """
    check_frame(df)
    call = distributed_call(
        metrics, y_true=y_true, y_score=y_score, group=group, sample_weight=sample_weight,
        judged=judged, doc_id=doc_id, convention=convention, ties=ties,
        replace_undefined_by=replace_undefined_by, relevance_level=relevance_level,
        partitioned_by_query=partitioned_by_query, buckets=buckets,
    )
    return spark_values(df, call)
