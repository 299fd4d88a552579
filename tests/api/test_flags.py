"""Every flag of every public entry point is checked, as ``read_trec`` checks its own.

A flag given as ``"no"`` (or ``"False"``, ``0``) is truthy in Python: read as a bool it
silently means True (``align_trec_runs(single_precision="no")`` rounded the scores to
float32). The sweep finds the flags from the signatures (a ``bool`` default, or
``bool`` in the annotation) of every public function, method and class, in
``sklearn_rank_metrics``, ``sklearn_rank_metrics.dask`` and
``sklearn_rank_metrics.spark``, and must find a call for each in ``CALLS`` (the Spark
ones in ``tests/spark/test_spark_flags.py``), so a new flag without a check fails here.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import sklearn_rank_metrics as srm
from sklearn_rank_metrics import dask as srm_dask
from sklearn_rank_metrics import spark as srm_spark

Y, S, G = [1, 0, 1, 0], [0.4, 0.3, 0.2, 0.1], [1, 1, 2, 2]
QRELS, RUN = {"q": {"a": 1}}, {"q": {"a": 1.0}}
NOT_FLAGS = ("no", "False", 0, 1, "")
SPARK_FLAGS = {
    ("spark.evaluate", "judged"), ("spark.evaluate", "partitioned_by_query"),
    ("spark.evaluate_per_query", "judged"), ("spark.evaluate_per_query", "partitioned_by_query"),
    ("spark.per_query_values", "judged"), ("spark.per_query_values", "partitioned_by_query"),
}


def _public_callables():
    """(name, callable) of every public function, class and public method."""
    for module, prefix in ((srm, ""), (srm_dask, "dask."), (srm_spark, "spark.")):
        names = getattr(module, "__all__", None) or [
            name for name, value in vars(module).items()
            if not name.startswith("_")
            and getattr(value, "__module__", None) == module.__name__
        ]
        for name in names:
            value = getattr(module, name)
            if inspect.isclass(value):
                yield f"{prefix}{name}", value
                for attribute in list(vars(value)):
                    if attribute.startswith("_") or not callable(getattr(value, attribute)):
                        continue
                    yield f"{prefix}{name}.{attribute}", getattr(value, attribute)
            elif callable(value):
                yield f"{prefix}{name}", value


def _flags():
    found = set()
    for name, function in _public_callables():
        try:
            parameters = inspect.signature(function).parameters
        except (TypeError, ValueError):
            continue
        for parameter, spec in parameters.items():
            if isinstance(spec.default, bool) or "bool" in str(spec.annotation):
                found.add((name, parameter))
    return found


def _display():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    return srm.MetricAtKDisplay.from_predictions(Y, S, G, metric="ndcg", k_max=2)


def _evaluator():
    evaluator = srm.RankingEvaluator(["map"])
    evaluator.update(Y, S, G)
    return evaluator


def _dask_frame():
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    return dd.from_pandas(pd.DataFrame({"y_true": Y, "y_score": S, "group": G}), npartitions=1)


def _sampled_ranks():
    return srm.sampled_ranks([1, 0, 0, 1, 0, 0], [0.3, 0.2, 0.1, 0.3, 0.2, 0.1],
                             [1, 1, 1, 2, 2, 2]).rank


# (entry point, flag) -> a call with the flag set to ``value``
CALLS = {
    ("MetricAtKDisplay.plot", "show_bands"): lambda v: _display().plot(show_bands=v),
    ("RankingEvaluator.compute", "per_query"): lambda v: _evaluator().compute(per_query=v),
    ("align_trec_runs", "single_precision"):
        lambda v: srm.align_trec_runs(QRELS, {"x": RUN}, single_precision=v),
    ("dcg_score", "ignore_ties"): lambda v: srm.dcg_score(Y, S, G, ignore_ties=v),
    ("ndcg_score", "ignore_ties"): lambda v: srm.ndcg_score(Y, S, G, ignore_ties=v),
    ("evaluate", "per_query"): lambda v: srm.evaluate(Y, S, G, per_query=v),
    ("make_ranking", "shuffle"): lambda v: srm.make_ranking(5, shuffle=v),
    ("make_ranking", "coef"): lambda v: srm.make_ranking(5, coef=v),
    ("make_ranking_scorer", "greater_is_better"):
        lambda v: srm.make_ranking_scorer("map", greater_is_better=v),
    ("make_ranking_scorer", "allow_split_queries"):
        lambda v: srm.make_ranking_scorer("map", allow_split_queries=v),
    ("make_ranking_scorers", "allow_split_queries"):
        lambda v: srm.make_ranking_scorers(["map"], allow_split_queries=v),
    ("ranking_report", "output_dict"): lambda v: srm.ranking_report(Y, S, G, output_dict=v),
    ("ranking_report", "as_frame"): lambda v: srm.ranking_report(Y, S, G, as_frame=v),
    ("rbp_score", "graded"): lambda v: srm.rbp_score(Y, S, G, graded=v),
    ("rank_biased_overlap", "per_query"):
        lambda v: srm.rank_biased_overlap(S, Y, G, per_query=v),
    ("kendall_tau_score", "per_query"): lambda v: srm.kendall_tau_score(S, Y, G, per_query=v),
    ("overlap_at_k_score", "per_query"):
        lambda v: srm.overlap_at_k_score(S, Y, G, k=1, per_query=v),
    ("read_trec", "answered_only"): lambda v: srm.read_trec(QRELS, RUN, answered_only=v),
    ("read_trec", "single_precision"): lambda v: srm.read_trec(QRELS, RUN, single_precision=v),
    ("retrieval_count_score", "count_unanswered"):
        lambda v: srm.retrieval_count_score(Y, S, G, count="relevant", count_unanswered=v),
    ("sampled_metric_estimate", "per_query"):
        lambda v: srm.sampled_metric_estimate(_sampled_ranks(), n_negatives=2, n_items=10,
                                              per_query=v),
    ("sampled_metric_estimate", "return_std_err"):
        lambda v: srm.sampled_metric_estimate(_sampled_ranks(), n_negatives=2, n_items=10,
                                              return_std_err=v),
    ("dask.evaluate", "partitioned_by_query"):
        lambda v: srm_dask.evaluate(_dask_frame(), ["map"], partitioned_by_query=v),
    ("dask.evaluate", "compute"): lambda v: srm_dask.evaluate(_dask_frame(), ["map"], compute=v),
    ("dask.evaluate_per_query", "partitioned_by_query"):
        lambda v: srm_dask.evaluate_per_query(_dask_frame(), ["map"], partitioned_by_query=v),
}


def test_every_flag_has_a_call_in_the_sweep():
    assert _flags() == set(CALLS) | SPARK_FLAGS


@pytest.mark.parametrize("entry", sorted(CALLS), ids=lambda entry: ".".join(entry))
@pytest.mark.parametrize("value", NOT_FLAGS, ids=repr)
def test_a_value_that_is_not_a_bool_is_refused_naming_the_flag(entry, value):
    _, flag = entry
    with pytest.raises((TypeError, ValueError), match=rf"'{flag}' parameter of "):
        CALLS[entry](value)


@pytest.mark.parametrize("entry", sorted(CALLS), ids=lambda entry: ".".join(entry))
def test_the_bools_are_accepted(entry):
    # NumPy's bool too, as scikit-learn's "boolean" constraint takes it
    if entry == ("ranking_report", "as_frame"):
        pytest.importorskip("pandas")
    values = (False, True, np.bool_(False))
    if entry == ("make_ranking_scorer", "greater_is_better"):
        values = (True, np.bool_(True))  # False contradicts 'map''s declared direction
    for value in values:
        CALLS[entry](value)
