"""The distributed backends: Dask and Spark, behind :mod:`sklearn_rank_metrics.dask` and
:mod:`sklearn_rank_metrics.spark`.

The public modules are the doors: written-out signatures and docstrings. Everything
they do happens here, where Dask and Spark share one path:

* ``_call``: the checked arguments of one call, built once at the door;
* ``_plan``: what every partition computes (:class:`~._plan.PartitionPlan`, pickled
  to the workers);
* ``_layout``: whether every query's rows sit in one partition;
* ``_partition``: what each partition (Spark: bucket) runs, the in-memory kernels on
  whole queries, in pandas and NumPy only;
* ``_means``: the means, formed once from every partition's sums;
* ``_worker_warnings``: the workers' warnings, emitted once on the caller's side;
* ``_spark_*``: the Spark half: checks on the driver (``_spark_checks``), where the
  queries sit (``_spark_layout``), the plan of one call (``_spark_prepare``), its jobs
  (``_spark_run``), what each bucket runs in a Python worker (``_spark_buckets``), the
  ``pyspark.ml`` evaluator (``_spark_evaluator``) and the helpers they share
  (``_spark_sql``).

This ``__init__`` imports nothing: a Dask worker unpickling a partition function
never imports Spark, nor the reverse.
"""
