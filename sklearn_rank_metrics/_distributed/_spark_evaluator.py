"""``RankingMetricEvaluator``: one metric of the registry as a Spark ML ``Evaluator``.

Re-exported by :mod:`sklearn_rank_metrics.spark` (its public path, also the one saved
by ``save`` and by pickle). It computes as :func:`sklearn_rank_metrics.spark.evaluate`
does. Pickles made before this module moved here name its converters
(:func:`_metric_name`, :func:`_undefined_policy`) by their old module,
``sklearn_rank_metrics._spark_evaluator``, which stays importable for them.
"""

from __future__ import annotations

import math
from typing import Any

from pyspark import keyword_only
from pyspark.ml.evaluation import Evaluator
from pyspark.ml.param import Param, Params, TypeConverters
from pyspark.ml.param.shared import HasLabelCol, HasPredictionCol, HasWeightCol
from pyspark.ml.util import DefaultParamsReadable, DefaultParamsWritable

from .._engine._caller import called_as
from .._metrics._registry import parse_metric
from ._call import distributed_call
from ._spark_checks import IDS, LABELS, NUMBERS, check_column, check_frame
from ._spark_run import spark_means

# pyspark.ml.evaluation.RankingEvaluator's metric names, and what they are here (with
# convention="spark" for MLlib's exact settings)
_MLLIB_NAMES = {
    "meanAveragePrecision": "map",
    "meanAveragePrecisionAtK": "map(denominator=min(k,n_relevant))@k",
    "precisionAtK": "p@k",
    "ndcgAtK": "ndcg@k",
    "recallAtK": "recall@k",
}


def _metric_name(value: Any) -> str:
    """A metric name of the registry that is a mean (not a count), checked when set."""
    name = TypeConverters.toString(value)
    if name in _MLLIB_NAMES:
        raise ValueError(
            f"The 'metricName' parameter of RankingMetricEvaluator takes this package's "
            f"metric names; {name!r} is MLlib RankingEvaluator's name: use "
            f"metricName={_MLLIB_NAMES[name]!r} (k a number, e.g. 10), with "
            "convention='spark' for MLlib's own settings."
        )
    spec = parse_metric(name)
    if spec.total:
        raise ValueError(
            f"The 'metricName' parameter of RankingMetricEvaluator must be a metric that "
            f"is averaged over queries; {name!r} is a count summed over queries."
        )
    return name


def _undefined_policy(value: Any) -> str:
    """``replaceUndefinedBy`` as text: a number, "nan", "skip" or "raise"."""
    text = TypeConverters.toString(value)
    if text not in ("skip", "raise"):
        try:
            float(text)
        except ValueError:
            raise ValueError(
                "The 'replaceUndefinedBy' parameter of RankingMetricEvaluator must be a "
                f"number, 'nan', 'skip' or 'raise' (as text); got {text!r}."
            ) from None
    return text


class RankingMetricEvaluator(
    Evaluator,
    HasLabelCol,
    HasPredictionCol,
    HasWeightCol,
    DefaultParamsReadable,
    DefaultParamsWritable,
):
    """Evaluator of one ranking metric over the queries of a Spark DataFrame.

    For ``CrossValidator`` and ``TrainValidationSplit``: :meth:`!evaluate` returns
    :func:`sklearn_rank_metrics.spark.evaluate`'s mean of ``metricName`` over the
    queries of ``queryCol``, the same number as the in-memory
    :func:`sklearn_rank_metrics.evaluate` on those rows.

    Parameters
    ----------
    metricName : str, default="ndcg@10"
        A metric name as :func:`sklearn_rank_metrics.evaluate` takes it (``"map"``,
        ``"mrr@10"``, ``"fallout@10"``, ...); the counts (``num_rel``, ...) are refused.
    labelCol, predictionCol, queryCol : str, default="label", "prediction", "query"
        Columns of relevance labels, model scores and query ids.
    weightCol : str or None, default=None
        Column of query weights (constant within a query).
    convention, ties : str or None, default=None
        As in :func:`sklearn_rank_metrics.evaluate`.
    replaceUndefinedBy : str or None, default=None
        The undefined-query policy as text: a number (``"0"``), ``"nan"``,
        ``"skip"`` or ``"raise"``.
    relevanceLevel : float or None, default=None
        As ``relevance_level`` of :func:`sklearn_rank_metrics.evaluate`.

    Notes
    -----
    :meth:`isLargerBetter` is the registry's direction of the metric (False for
    fall-out). ``CrossValidator`` splits rows at random unless given ``foldCol``:
    give every query one fold, the Spark counterpart of scikit-learn's
    ``GroupKFold``::

        folds = df.withColumn("fold", F.pmod(F.xxhash64("query"), F.lit(3)).cast("int"))
        CrossValidator(estimator=..., estimatorParamMaps=..., numFolds=3,
                       foldCol="fold", evaluator=RankingMetricEvaluator(metricName="map"))

    ``TrainValidationSplit`` has no ``foldCol`` and splits rows, so a query lands on
    both sides: prefer ``CrossValidator`` with ``foldCol``. ``save`` / ``load``
    keep every parameter (``DefaultParamsWritable``).

    Examples
    --------
    >>> from sklearn_rank_metrics.spark import RankingMetricEvaluator
    >>> evaluator = RankingMetricEvaluator(metricName="mrr@10", queryCol="qid")
    >>> evaluator.getMetricName(), evaluator.isLargerBetter()
    ('mrr@10', True)
    >>> RankingMetricEvaluator(metricName="fallout@10").isLargerBetter()
    False
    """

    _input_kwargs: dict[str, Any]  # set by keyword_only

    metricName: Param[str] = Param(
        Params._dummy(),
        "metricName",
        "ranking metric name, as sklearn_rank_metrics.evaluate takes it",
        typeConverter=_metric_name,
    )
    queryCol: Param[str] = Param(
        Params._dummy(), "queryCol", "query id column name", typeConverter=TypeConverters.toString
    )
    convention: Param[str] = Param(
        Params._dummy(),
        "convention",
        "tool whose conventions to follow (sklearn_rank_metrics.evaluate's convention)",
        typeConverter=TypeConverters.toString,
    )
    ties: Param[str] = Param(
        Params._dummy(), "ties", "how tied scores count", typeConverter=TypeConverters.toString
    )
    replaceUndefinedBy: Param[str] = Param(
        Params._dummy(),
        "replaceUndefinedBy",
        "undefined-query policy: a number, 'nan', 'skip' or 'raise', as text",
        typeConverter=_undefined_policy,
    )
    relevanceLevel: Param[float] = Param(
        Params._dummy(),
        "relevanceLevel",
        "smallest label of a relevant row",
        typeConverter=TypeConverters.toFloat,
    )

    @keyword_only
    def __init__(
        self,
        *,
        metricName: str = "ndcg@10",
        labelCol: str = "label",
        predictionCol: str = "prediction",
        queryCol: str = "query",
        weightCol: str | None = None,
        convention: str | None = None,
        ties: str | None = None,
        replaceUndefinedBy: str | None = None,
        relevanceLevel: float | None = None,
    ) -> None:
        super().__init__()
        self._setDefault(
            metricName="ndcg@10", labelCol="label", predictionCol="prediction", queryCol="query"
        )
        self._set(**self._given(self._input_kwargs))

    @keyword_only
    def setParams(
        self,
        *,
        metricName: str = "ndcg@10",
        labelCol: str = "label",
        predictionCol: str = "prediction",
        queryCol: str = "query",
        weightCol: str | None = None,
        convention: str | None = None,
        ties: str | None = None,
        replaceUndefinedBy: str | None = None,
        relevanceLevel: float | None = None,
    ) -> RankingMetricEvaluator:
        """Set the parameters given (the same keywords as the constructor).

        Parameters
        ----------
        metricName, labelCol, predictionCol, queryCol, weightCol : str or None
            See the class.
        convention, ties, replaceUndefinedBy, relevanceLevel : str, float or None
            See the class.

        Returns
        -------
        self : RankingMetricEvaluator
        """
        return self._set(**self._given(self._input_kwargs))

    @staticmethod
    def _given(kwargs: dict[str, Any]) -> dict[str, Any]:
        """The keywords passed, without those left None (a Param unset)."""
        return {name: value for name, value in kwargs.items() if value is not None}

    def setMetricName(self, value: str) -> RankingMetricEvaluator:
        """Set ``metricName``; returns self.

        Parameters
        ----------
        value : str
            A metric name as :func:`sklearn_rank_metrics.evaluate` takes it.

        Returns
        -------
        self : RankingMetricEvaluator
        """
        return self._set(metricName=value)

    def getMetricName(self) -> str:
        """The metric name."""
        return self.getOrDefault(self.metricName)

    def setQueryCol(self, value: str) -> RankingMetricEvaluator:
        """Set ``queryCol``; returns self.

        Parameters
        ----------
        value : str
            The column of query ids.

        Returns
        -------
        self : RankingMetricEvaluator
        """
        return self._set(queryCol=value)

    def getQueryCol(self) -> str:
        """The query id column."""
        return self.getOrDefault(self.queryCol)

    def isLargerBetter(self) -> bool:
        """Whether a larger value is better: the registry's direction of the metric."""
        return bool(parse_metric(self.getMetricName()).info.greater_is_better)

    def _optional(self, param: Param) -> Any:
        return self.getOrDefault(param) if self.isDefined(param) else None

    def _policy(self) -> float | str | None:
        text = self._optional(self.replaceUndefinedBy)
        if text is None or text in ("skip", "raise"):
            return text
        value = float(text)
        return math.nan if math.isnan(value) else value

    def _columns(self) -> list[tuple[Param, tuple[type, ...]]]:
        """The column params that are set, with the Spark types they take."""
        columns = [
            (self.labelCol, LABELS),
            (self.predictionCol, NUMBERS),
            (self.queryCol, IDS),
            (self.weightCol, NUMBERS),
        ]
        return [(param, kinds) for param, kinds in columns if self.isDefined(param)]

    def _evaluate(self, dataset: Any) -> float:
        """``sklearn_rank_metrics.spark.evaluate(dataset, [metricName], ...)``."""
        name = self.getMetricName()
        with called_as("RankingMetricEvaluator"):
            check_frame(dataset, "dataset")
            for param, kinds in self._columns():  # errors name this class's params
                check_column(dataset, param.name, self.getOrDefault(param), kinds)
            call = distributed_call(
                [name],
                y_true=self.getLabelCol(),
                y_score=self.getPredictionCol(),
                group=self.getQueryCol(),
                sample_weight=self._optional(self.weightCol),
                judged=None,
                convention=self._optional(self.convention),
                ties=self._optional(self.ties),
                replace_undefined_by=self._policy(),
                relevance_level=self._optional(self.relevanceLevel),
                partitioned_by_query="auto",
            )
            scores = spark_means(dataset, call)
        return float(scores[name])


RankingMetricEvaluator.__module__ = "sklearn_rank_metrics.spark"  # the path save writes
