"""compare and ranking_report of per-query values computed elsewhere (PerQueryValues).

The expected numbers are always compare / ranking_report on the NumPy rows themselves;
the values come from evaluate(per_query=True) tables of each model in pandas, polars
and pyarrow, from a long pyarrow table with nulls (what Spark's per-query table gives
through toArrow()), and from Dask's per-query table.
"""

import dataclasses
import math
import pickle
import re

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

from sklearn_rank_metrics import PerQueryValues, compare, evaluate, ranking_report
from sklearn_rank_metrics._metrics._evaluate import evaluate_details
from sklearn_rank_metrics._metrics._registry import parse_metric
from sklearn_rank_metrics._stats._per_query_checks import weights_queries

METRICS = ["ndcg@5", "mrr", "p@3", "map", "fallout@3"]
POLICIES = [None, "skip", math.nan]


def make_rows(n_queries=30, docs=6, seed=0):
    """Rows with queries without a relevant row (undefined) and ids out of order."""
    rng = np.random.default_rng(seed)
    n = n_queries * docs
    y_true = rng.integers(0, 3, n) * (rng.random(n) < 0.4)
    group = np.repeat((np.arange(n_queries) * 7919) % 1009, docs)
    scores = {
        "bm25": y_true + rng.normal(size=n),
        "dense": y_true + 2.0 * rng.normal(size=n),
        "random": rng.normal(size=n),
    }
    # one weight per query, constant within it
    weight = np.repeat(rng.integers(1, 4, n_queries).astype(float), docs)
    return y_true, scores, group, weight


def in_library(array, library):
    if library == "polars":
        return pl.Series(array)
    if library == "pyarrow":
        return pa.array(array)
    return pd.Series(array)


def tables(y_true, scores, group, library, **settings):
    """evaluate(per_query=True) of every model, as a table of ``library``."""
    return {
        name: evaluate(
            in_library(y_true, library), s, group, metrics=METRICS, per_query=True, **settings
        )
        for name, s in scores.items()
    }


def as_numpy(column):
    if hasattr(column, "to_numpy"):
        return np.asarray(column.to_numpy())
    return np.asarray(column)


def assert_same_tables(expected, got):
    """Same columns, same values (exactly: the same numbers and resamples)."""
    names = list(expected.columns)
    assert list(getattr(got, "column_names", got.columns)) == names
    for name in names:
        a, b = as_numpy(expected[name]), as_numpy(got[name])
        if a.dtype.kind == "f":
            np.testing.assert_array_equal(a, b.astype(float), err_msg=name)
        else:
            assert a.tolist() == b.tolist(), name


def assert_same_reports(expected, got, undefined_known=True):
    assert list(expected) == list(got)
    for run, by_metric in expected.items():
        assert list(by_metric) == list(got[run])
        for metric, stats in by_metric.items():
            mine = dict(got[run][metric])
            wanted = dict(stats)
            if not undefined_known:
                assert math.isnan(mine.pop("n_undefined"))
                del wanted["n_undefined"]
            assert list(wanted) == list(mine), (run, metric)
            for key, value in wanted.items():
                if isinstance(value, float) and math.isnan(value):
                    assert math.isnan(mine[key]), (run, metric, key)
                else:
                    assert mine[key] == value, (run, metric, key)


# --------------------------------------------------------------------------- equality


@pytest.mark.parametrize("library", ["pandas", "polars", "pyarrow"])
@pytest.mark.parametrize("policy", POLICIES, ids=["default", "skip", "nan"])
def test_compare_and_report_equal_those_of_the_rows(library, policy):
    y_true, scores, group, _ = make_rows()
    settings = {} if policy is None else {"replace_undefined_by": policy}
    values = PerQueryValues.from_frame(tables(y_true, scores, group, library, **settings),
                                       **settings)
    assert values.runs == ("bm25", "dense", "random")
    assert values.frame_library == library

    for baseline in (None, "dense"):
        expected = compare(y_true, scores, group, metrics=METRICS, baseline=baseline,
                           n_resamples=300, correction="holm", random_state=3, **settings)
        got = compare(values, baseline=baseline, n_resamples=300, correction="holm",
                      random_state=3)
        # the tables come back in the values' library; compare them as pandas
        assert_same_tables(expected.table, pl.DataFrame(got.table).to_pandas()
                           if library == "pyarrow" else got.table)
        assert expected.to_text() == got.to_text()
        if library == "pandas":
            assert_same_tables(expected.means, got.means)
            assert_same_tables(expected.per_query, got.per_query)
        else:
            assert type(got.table).__module__.startswith(library)

    report = ranking_report(y_true, scores, group, metrics=METRICS, output_dict=True, **settings)
    mine = ranking_report(values, output_dict=True)
    assert_same_reports(report, mine, undefined_known=policy is not None)
    with_baseline = ranking_report(y_true, scores, group, metrics=METRICS, baseline="bm25",
                                   n_resamples=200, random_state=0, output_dict=True, **settings)
    mine = ranking_report(values, baseline="bm25", n_resamples=200, random_state=0,
                          output_dict=True)
    assert_same_reports(with_baseline, mine, undefined_known=policy is not None)


def test_query_weights_give_the_weighted_report():
    y_true, scores, group, weight = make_rows(seed=1)
    expected = ranking_report(y_true, scores, group, metrics=METRICS, sample_weight=weight,
                              replace_undefined_by="skip", output_dict=True)
    # a long table (query, run, weight, metrics), rows shuffled: aligned by query id
    frames = []
    for name, table in tables(y_true, scores, group, "pandas",
                              replace_undefined_by="skip").items():
        frame = table.assign(run=name)
        frame["weight"] = pd.Series(weight, index=group).groupby(level=0).first()[
            frame["query"]].to_numpy()
        frames.append(frame)
    long = pd.concat(frames).sample(frac=1.0, random_state=0)
    values = PerQueryValues.from_frame(long, run="run", weight="weight",
                                       runs=["bm25", "dense", "random"],
                                       replace_undefined_by="skip")
    assert values.weights is not None
    assert_same_reports(expected, ranking_report(values, output_dict=True))
    # the weights are per query, not per row: the unweighted report differs
    unweighted = ranking_report(dataclasses.replace(values, weights=None), output_dict=True)
    assert unweighted["bm25"]["mrr"]["mean"] != expected["bm25"]["mrr"]["mean"]


def test_a_long_arrow_table_with_nulls_as_spark_collects_it():
    """Spark's per-query table: query, run, weight, null where skipped, NaN where nan."""
    y_true, scores, group, weight = make_rows(seed=2)
    runs = {"bm25": scores["bm25"], "dense": scores["dense"]}
    for policy in ("skip", math.nan):
        columns = {"query": [], "run": [], "weight": []}
        columns.update({name: [] for name in METRICS})
        for name, s in runs.items():
            details = evaluate_details(y_true, s, group, metrics=METRICS, sample_weight=weight,
                                       shared={"replace_undefined_by": policy})
            columns["query"] += details.query_ids.tolist()
            columns["run"] += [name] * len(details.query_ids)
            columns["weight"] += details.metrics["mrr"].weights.tolist()
            for metric, detail in details.metrics.items():
                # Spark: null where skipped, NaN where the nan policy says NaN
                columns[metric] += [
                    None if skipped else value
                    for value, skipped in zip(detail.values.tolist(), detail.skipped.tolist(),
                                              strict=True)
                ]
        table = pa.table(columns)
        n_undefined = ranking_report(y_true, runs, group, metrics="mrr", output_dict=True)[
            "bm25"]["mrr"]["n_undefined"]
        assert n_undefined > 0
        assert table.column("mrr").null_count == (2 * n_undefined if policy == "skip" else 0)
        values = PerQueryValues.from_frame(table, run="run", weight="weight",
                                           runs=list(runs), replace_undefined_by=policy)
        expected = ranking_report(y_true, runs, group, metrics=METRICS, sample_weight=weight,
                                  replace_undefined_by=policy, output_dict=True)
        assert_same_reports(expected, ranking_report(values, output_dict=True))
        unweighted = dataclasses.replace(values, weights=None)
        expected = compare(y_true, runs, group, metrics=METRICS, replace_undefined_by=policy,
                           n_resamples=200, random_state=5)
        got = compare(unweighted, n_resamples=200, random_state=5)
        assert_same_tables(expected.table, pl.DataFrame(got.table).to_pandas())


def test_dask_per_query_tables():
    import dask
    import dask.dataframe as dd

    y_true, scores, group, _ = make_rows(seed=4)
    frame = pd.DataFrame({"group": group, "y_true": y_true, **scores})
    ddf = dd.from_pandas(frame, npartitions=3)
    from sklearn_rank_metrics.dask import evaluate_per_query

    with dask.config.set(scheduler="sync"):
        per_run = {
            name: evaluate_per_query(ddf, METRICS, y_score=name, replace_undefined_by="skip")
            for name in scores
        }
        values = PerQueryValues.from_frame(per_run, replace_undefined_by="skip")
    expected = ranking_report(y_true, scores, group, metrics=METRICS,
                              replace_undefined_by="skip", output_dict=True)
    assert_same_reports(expected, ranking_report(values, output_dict=True))


def test_lazy_frames_and_dicts_of_columns():
    y_true, scores, group, _ = make_rows(seed=5)
    polars_tables = tables(y_true, scores, group, "polars")
    lazy = PerQueryValues.from_frame({k: t.lazy() for k, t in polars_tables.items()})
    plain = PerQueryValues.from_frame(
        {k: {c: t[c].to_numpy() for c in t.columns} for k, t in polars_tables.items()}
    )
    assert lazy.frame_library == "polars" and plain.frame_library is None
    np.testing.assert_array_equal(lazy.values, plain.values)
    np.testing.assert_array_equal(lazy.query_ids, np.unique(group))
    expected = evaluate(y_true, scores["dense"], group, metrics=METRICS, per_query=True)
    np.testing.assert_array_equal(plain.values[1], expected[METRICS].to_numpy().T)


def test_counts_are_summed_in_the_report_and_refused_by_compare():
    y_true, scores, group, _ = make_rows(seed=6)
    metrics = ["num_rel_ret@5", "p@5"]
    per_run = {
        name: evaluate(y_true, s, group, metrics=metrics, per_query=True)
        for name, s in scores.items()
    }
    values = PerQueryValues.from_frame(per_run)
    expected = ranking_report(y_true, scores, group, metrics=metrics, output_dict=True)
    got = ranking_report(values, output_dict=True)
    # a count is defined for every query, so its undefined queries are known (none)
    assert got["bm25"]["num_rel_ret@5"] == expected["bm25"]["num_rel_ret@5"]
    assert got["bm25"]["num_rel_ret@5"]["mean"] == expected["bm25"]["num_rel_ret@5"]["mean"] > 1
    assert math.isnan(got["bm25"]["p@5"]["n_undefined"])  # the default policy hides them
    with pytest.raises(ValueError, match=r"compare must name metrics averaged.*num_rel_ret@5"):
        compare(values, n_resamples=10)
    result = compare(values, metrics="p@5", n_resamples=10, random_state=0)
    assert list(as_numpy(result.table["metric"])) == ["p@5"] * 3


# --------------------------------------------------------------------------- alignment


def test_runs_are_aligned_by_query_id_not_position():
    y_true, scores, group, _ = make_rows(seed=7)
    per_run = tables(y_true, scores, group, "pyarrow")
    shuffled = {
        name: table.take(np.random.default_rng(i).permutation(table.num_rows))
        for i, (name, table) in enumerate(per_run.items())
    }
    a, b = PerQueryValues.from_frame(per_run), PerQueryValues.from_frame(shuffled)
    np.testing.assert_array_equal(a.values, b.values)
    np.testing.assert_array_equal(a.query_ids, b.query_ids)


def test_a_query_missing_from_one_run_is_refused():
    y_true, scores, group, _ = make_rows(seed=8)
    per_run = tables(y_true, scores, group, "polars")
    per_run["dense"] = per_run["dense"].filter(pl.col("query") != int(group[0]))
    with pytest.raises(ValueError, match=rf"run 'dense' has no row for query {group[0]} "
                                         r"\(1 of the 30 queries"):
        PerQueryValues.from_frame(per_run)
    per_run["dense"] = pl.concat([per_run["dense"], per_run["dense"].head(1)])
    with pytest.raises(ValueError, match=r"is there 2 times \(run 'dense'\)"):
        PerQueryValues.from_frame(per_run)


def test_query_ids_of_different_types_are_refused():
    first = pd.DataFrame({"query": [1, 2], "mrr": [1.0, 0.5]})
    second = pd.DataFrame({"query": ["1", "2"], "mrr": [1.0, 0.5]})
    with pytest.raises(TypeError, match="numeric query ids and others text ids"):
        PerQueryValues.from_frame({"a": first, "b": second})


def test_weights_must_agree_between_runs():
    table = pa.table({"query": [1, 2, 1, 2], "run": ["a", "a", "b", "b"],
                      "w": [1.0, 2.0, 1.0, 3.0], "mrr": [1.0, 0.5, 0.5, 0.5]})
    with pytest.raises(ValueError, match=r"query 2 has weight 2.0 \(run 'a'\) and 3.0 in "):
        PerQueryValues.from_frame(table, run="run", weight="w")
    bad = table.set_column(2, "w", pa.array([1.0, None, 1.0, 3.0]))
    with pytest.raises(ValueError, match=r"column 'w' \(weight\).*a missing value at row 1"):
        PerQueryValues.from_frame(bad, run="run", weight="w")


# --------------------------------------------------------------------------- missing values


def test_a_missing_value_needs_the_policy_it_was_computed_with():
    y_true, scores, group, _ = make_rows(seed=9)
    # pandas holds NaN for a skipped query and for the nan policy alike
    skipped = evaluate(y_true, scores["bm25"], group, metrics=["mrr"], per_query=True,
                       replace_undefined_by="skip")
    with pytest.raises(ValueError, match=r"'mrr' has no value \(null or NaN\) for query .*"
                                         r"policy is 0\.0.*Pass the replace_undefined_by"):
        PerQueryValues.from_frame(skipped)
    as_skipped = PerQueryValues.from_frame(skipped, replace_undefined_by="skip")
    as_nan = PerQueryValues.from_frame(skipped, replace_undefined_by=math.nan)
    rows = ranking_report(y_true, scores["bm25"], group, metrics="mrr", output_dict=True,
                          replace_undefined_by="skip")
    assert ranking_report(as_skipped, output_dict=True) == rows
    assert math.isnan(ranking_report(as_nan, output_dict=True)["mrr"]["mean"])
    # "raise" leaves no query undefined, so no value may be missing
    with pytest.raises(ValueError, match="policy is 'raise'"):
        PerQueryValues.from_frame(skipped, replace_undefined_by="raise")
    # a metric name that sets its own policy keeps it, as in evaluate
    renamed = skipped.rename(columns={"mrr": "mrr(replace_undefined_by=skip)"})
    values = PerQueryValues.from_frame(renamed)
    assert values.policies == ("skip",)
    assert values.skipped.sum() == rows["mrr"]["n_skipped"]


def test_a_convention_that_sets_the_policy():
    rng = np.random.default_rng(10)
    y_true = rng.integers(0, 2, 60)
    y_true[:6] = 1  # query 0: one class only, NaN under scikit-learn's convention
    group = np.repeat(np.arange(10), 6)
    score = rng.normal(size=60)
    with pytest.warns(Warning, match="roc_auc_score"):
        table = evaluate(y_true, score, group, metrics=["gauc"], convention="sklearn",
                         per_query=True)
        expected = ranking_report(y_true, score, group, metrics="gauc", convention="sklearn",
                                  output_dict=True)
    values = PerQueryValues.from_frame(table, convention="sklearn")
    assert values.policies[0] != values.policies[0]  # NaN
    assert_same_reports({None: expected}, {None: ranking_report(values, output_dict=True)})
    assert expected["gauc"]["n_undefined"] >= 1 and math.isnan(expected["gauc"]["mean"])
    # gauc's own policy is "skip": read without the convention, the NaN is a skipped query,
    # as the rows give it without the convention
    plain = ranking_report(PerQueryValues.from_frame(table), output_dict=True)
    assert plain == ranking_report(y_true, score, group, metrics="gauc", output_dict=True)


def test_infinite_values_and_metrics_weighting_queries_are_refused():
    table = pd.DataFrame({"query": [1, 2], "dcg": [1.0, np.inf]})
    with pytest.raises(ValueError, match="'dcg' is inf for query 2"):
        PerQueryValues.from_frame(table)
    for name in ("hit_rate(average=micro)@3", "gauc(query_weight=rows)"):
        table = pd.DataFrame({"query": [1, 2], name: [1.0, 0.5]})
        with pytest.raises(ValueError, match="weights queries itself"):
            PerQueryValues.from_frame(table)
    with pytest.raises(ValueError, match="Unknown metric|not a|unknown"):
        PerQueryValues.from_frame(pd.DataFrame({"query": [1], "n_rows": [3.0]}))


def test_the_static_rule_for_metrics_that_weight_queries_matches_the_engine():
    rng = np.random.default_rng(11)
    y_true, score, group = rng.integers(0, 2, 40), rng.normal(size=40), np.repeat(range(8), 5)
    names = ["hit_rate@3", "hit_rate(average=micro)@3", "gauc", "gauc(query_weight=rows)",
             "gauc(query_weight=positives)", "mrr", "ndcg@5"]
    details = evaluate_details(y_true, score, group, metrics=names, shared={},
                               sample_weight=None)
    for name in names:
        expected = details.metrics[name].weights_queries
        assert weights_queries(parse_metric(name).kernel_params) == expected, name


# --------------------------------------------------------------------------- the doors


def test_row_settings_next_to_the_values_are_refused_by_name():
    y_true, scores, group, weight = make_rows(seed=12)
    values = PerQueryValues.from_frame(tables(y_true, scores, group, "pandas"))
    with pytest.raises(ValueError, match=r"compare got a PerQueryValues .* also ties=, "
                                         r"judged=;"):
        compare(values, ties="input", judged=True)
    with pytest.raises(ValueError, match=r"also replace_undefined_by=;.*from_frame"):
        compare(values, replace_undefined_by="skip")
    with pytest.raises(ValueError, match=r"ranking_report got a PerQueryValues .* also "
                                         r"sample_weight=, doc_id="):
        ranking_report(values, sample_weight=weight, doc_id=np.arange(len(weight)))
    with pytest.raises(ValueError, match=r"also y_score=, group="):
        ranking_report(values, scores, group)
    with pytest.raises(ValueError, match="n_resamples"):
        compare(values, n_resamples=0)
    with pytest.raises(TypeError, match=r"compare: .*Did you mean metrics="):
        compare(values, metric="mrr")


def test_metric_selection_and_run_checks():
    y_true, scores, group, _ = make_rows(seed=13)
    values = PerQueryValues.from_frame(tables(y_true, scores, group, "pandas"))
    report = ranking_report(values, metrics=["mrr", "p@3"], output_dict=True)
    assert list(report["bm25"]) == ["mrr", "p@3"]
    with pytest.raises(ValueError, match=r"names 'ndcg@10', which the PerQueryValues does "
                                         r"not hold"):
        compare(values, metrics="ndcg@10")
    with pytest.raises(ValueError, match="must be one of the models"):
        compare(values, baseline="bm26")
    one = PerQueryValues.from_frame(tables(y_true, scores, group, "pandas")["bm25"])
    assert one.runs == (None,)
    assert list(ranking_report(one, output_dict=True)) == METRICS  # one model: by metric
    with pytest.raises(ValueError, match="compare compares two runs at least"):
        compare(one)
    weighted = dataclasses.replace(values, weights=np.ones(len(values.query_ids)))
    with pytest.raises(ValueError, match="compare counts every query once"):
        compare(weighted)
    with pytest.raises(ValueError, match="cannot be combined with the query weights"):
        ranking_report(weighted, baseline="bm25")


def test_run_column_names_and_order():
    table = pl.DataFrame({"query": [1, 2, 1, 2, 1, 2], "run": ["b", "b", "a", "a", "c", "c"],
                          "mrr": [1.0, 0.5, 0.5, 0.5, 0.0, 1.0]})
    assert PerQueryValues.from_frame(table, run="run").runs == ("a", "b", "c")
    columns = {name: table[name].to_numpy() for name in table.columns}
    for source in (table, table.to_pandas(), table.to_arrow(), columns):
        chosen = PerQueryValues.from_frame(source, run="run", runs=["c", "a"])
        assert chosen.runs == ("c", "a")
        np.testing.assert_array_equal(chosen.values[:, 0], [[0.0, 1.0], [0.5, 0.5]])
    with pytest.raises(ValueError, match="'runs' names 'd'"):
        PerQueryValues.from_frame(table, run="run", runs=["d"])
    with pytest.raises(TypeError, match=r"run names \(str\); got 1"):
        PerQueryValues.from_frame(table.with_columns(pl.lit(1).alias("run")), run="run")
    with pytest.raises(ValueError, match=r"no column 'qid' \(the 'query' parameter\)"):
        PerQueryValues.from_frame(table, query="qid", run="run")
    with pytest.raises(TypeError, match="must be a DataFrame"):
        PerQueryValues.from_frame(np.zeros(3))


def test_the_object_is_frozen_and_keeps_copies():
    table = pd.DataFrame({"query": ["x", "y"], "mrr": [1.0, 0.5]})
    values = PerQueryValues.from_frame(table)
    assert not values.values.flags.writeable
    table.loc[0, "mrr"] = 0.0
    assert values.values[0, 0, 0] == 1.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        values.weights = None  # type: ignore[misc]
    copy = pickle.loads(pickle.dumps(values))
    np.testing.assert_array_equal(copy.values, values.values)
    with pytest.raises(ValueError, match=r"values must have shape"):
        PerQueryValues(np.array([1, 2]), np.zeros((1, 1, 3)), ("mrr",), (0.0,))
    with pytest.raises(ValueError, match="query 1 is there twice"):
        PerQueryValues(np.array([1, 1]), np.zeros((1, 1, 2)), ("mrr",), (0.0,))


def test_pickles_name_the_module_that_has_always_defined_the_class():
    # the class stays where pickles made before the module was split by job look for it
    values = PerQueryValues.from_frame({"query": [1, 2], "mrr": [1.0, 0.5]})
    stream = pickle.dumps(values, protocol=2)  # protocol 2 names module and class in full
    assert b"sklearn_rank_metrics._stats._per_query_values" in stream
    assert PerQueryValues.__module__ == "sklearn_rank_metrics._stats._per_query_values"
    restored = pickle.loads(stream)
    assert repr(restored) == repr(values)
    np.testing.assert_array_equal(restored.query_ids, values.query_ids)


@pytest.mark.parametrize("library", ["pandas", "polars", "pyarrow"])
def test_text_query_ids_sort_as_evaluate_sorts_them(library):
    y_true, scores, group, _ = make_rows(seed=14)
    text = np.array([f"q{'x' * (i % 3)}{i}" for i in group], dtype=object)
    runs = {"bm25": scores["bm25"], "random": scores["random"]}
    per_run = {
        name: evaluate(in_library(y_true, library), s, in_library(text, library),
                       metrics=["mrr", "ndcg@5"], per_query=True)
        for name, s in runs.items()
    }
    values = PerQueryValues.from_frame(per_run)
    expected = compare(y_true, runs, text, metrics=["mrr", "ndcg@5"], n_resamples=200,
                       random_state=2)
    got = compare(values, n_resamples=200, random_state=2)
    assert expected.to_text() == got.to_text()
    assert as_numpy(got.per_query["query"]).tolist() == as_numpy(
        expected.per_query["query"]).tolist()
    np.testing.assert_array_equal(as_numpy(got.table["ci_low_bca"]),
                                  as_numpy(expected.table["ci_low_bca"]))


@pytest.mark.parametrize("metric, values, shown", [
    ("mrr", [1.0, -0.2, 0.5], "-0.2"),          # a reciprocal rank is in [0, 1]
    ("ndcg@10", [0.5, 1.7, 0.5], "1.7"),
    ("num_rel", [3.0, 4.5, 1.0], "4.5"),         # a count is a whole number
])
def test_values_outside_the_metric_range_are_refused(metric, values, shown):
    tables = {
        "a": pd.DataFrame({"query": [1, 2, 3], metric: values}),
        "b": pd.DataFrame({"query": [1, 2, 3], metric: [0.0, 1.0, 1.0]}),
    }
    with pytest.raises(ValueError, match=rf"{re.escape(repr(metric))} is {re.escape(shown)} "
                                         r"for query \d+ \(run 'a'\), outside its range"):
        PerQueryValues.from_frame(tables)


def test_duplicated_metric_columns_are_refused():
    table = pa.table([[1, 2], [1.0, 0.5], [0.5, 0.25]], names=["query", "mrr", "mrr"])
    with pytest.raises(ValueError, match=r"from_frame: the Table has duplicated column names "
                                         r"\(.*'mrr' 2 times\)"):
        PerQueryValues.from_frame(table)
    import duckdb
    relation = duckdb.sql("SELECT * FROM (VALUES (1, 1.0, 0.5), (2, 0.5, 0.25)) t(query, mrr, x)")
    with pytest.raises(ValueError, match="the table has 2 columns named 'mrr' \\(a metric\\)"):
        PerQueryValues.from_frame(relation.project("query, mrr, x AS mrr"))


_IDS = {
    "sorted ints": np.array([1, 1, 2, 5, 5, 9]),
    "dense ints": np.array([7, 3, 5, 3, 4]),
    "sparse ints": np.array([10**12, -5, 7, -5]),
    "small ints": np.array([-3, 100, 2, -3], dtype=np.int8),
    "uints": np.array([2**64 - 1, 3, 2**63], dtype=np.uint64),
    "bools": np.array([True, False, True]),
    "whole floats": np.array([3.0, -1.0, np.inf, 3.0]),
    "fractional floats": np.array([1.5, 0.5, 1.5]),
    "text": np.array(["q10", "q9", "Q1", "é", "q9"]),
    "text objects": np.array(["q10", "q9", "Q1", "é"], dtype=object),
    "bytes": np.array([b"b", b"a", b"b"]),
    "int objects": np.array([3, 1, 2, 1], dtype=object),
    "dates": np.array(["2020-01-02", "2020-01-01", "2020-01-02"], dtype="M8[D]"),
    "one id": np.array([4]),
}


@pytest.mark.parametrize("ids", list(_IDS.values()), ids=list(_IDS))
def test_query_ids_sort_and_code_as_np_unique_sorts_them(ids):
    from sklearn_rank_metrics._stats._per_query_checks import sorted_ids

    distinct, codes = sorted_ids(ids)
    expected, expected_codes = np.unique(ids, return_inverse=True)
    assert distinct.dtype == expected.dtype
    assert distinct.tolist() == expected.tolist()
    assert codes.tolist() == expected_codes.reshape(-1).tolist()


def test_query_ids_and_run_names_are_coded_by_the_engines_factorisers(monkeypatch):
    from sklearn_rank_metrics._stats import _per_query_checks, _per_query_tables

    calls = []

    def counted(module, name):
        function = getattr(module, name)

        def wrapper(*args, **kwargs):
            calls.append(name)
            return function(*args, **kwargs)

        monkeypatch.setattr(module, name, wrapper)

    counted(_per_query_checks, "factorize_groups")
    counted(_per_query_tables, "factorize_text_ids")
    table = {
        "query": np.array(["q2", "q1", "q1", "q2"]),
        "run": np.array(["bm25", "bm25", "dense", "dense"]),
        "mrr": np.array([1.0, 0.5, 0.25, 1.0]),
    }
    values = PerQueryValues.from_frame(table, run="run")
    assert values.query_ids.tolist() == ["q1", "q2"] and values.runs == ("bm25", "dense")
    assert values.values[:, 0].tolist() == [[0.5, 1.0], [0.25, 1.0]]
    assert set(calls) == {"factorize_groups", "factorize_text_ids"}, calls
