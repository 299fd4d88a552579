"""The old home of :class:`sklearn_rank_metrics.spark.RankingMetricEvaluator`, kept for
old pickles.

A pickled evaluator names the class by its public path (``sklearn_rank_metrics.spark``),
but the converters of its params (``metricName``, ``replaceUndefinedBy``) by the
module that defined them, which was this one. They now live in
:mod:`sklearn_rank_metrics._distributed._spark_evaluator`; this module names them
(and the class) again, so that those pickles still load. Importing it needs pyspark,
as unpickling an evaluator always did.
"""

from __future__ import annotations

from ._distributed._spark_evaluator import RankingMetricEvaluator as RankingMetricEvaluator
from ._distributed._spark_evaluator import _metric_name as _metric_name
from ._distributed._spark_evaluator import _undefined_policy as _undefined_policy
