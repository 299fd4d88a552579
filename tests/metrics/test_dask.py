"""sklearn_rank_metrics.dask against the in-memory evaluate, on scattered and partitioned data.

The reference is :func:`sklearn_rank_metrics.evaluate` on the same rows in memory
(itself checked against trec_eval, scikit-learn and others elsewhere), plus a few
values written as arithmetic. Most tests use the threaded scheduler; one module-scoped
``LocalCluster`` of two worker processes runs the distributed case (p2p shuffle).
"""

from __future__ import annotations

import dataclasses
import math
import re
import subprocess
import sys
import warnings

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from dask.delayed import Delayed
from distributed import Client, LocalCluster
from sklearn.exceptions import UndefinedMetricWarning

from sklearn_rank_metrics import evaluate as evaluate_in_memory
from sklearn_rank_metrics._distributed._call import DistributedCall
from sklearn_rank_metrics._distributed._layout import (
    first_shared_query,
    query_parts,
    ranges_are_disjoint,
)
from sklearn_rank_metrics._distributed._partition import (
    ROW_ORDER_COLUMN,
    add_row_order,
    partition_table,
)
from sklearn_rank_metrics._distributed._plan import PartitionPlan
from sklearn_rank_metrics._engine._warnings import TieOrderWarning
from sklearn_rank_metrics._metrics._registry import METRICS, parse_metric
from sklearn_rank_metrics._metrics._settings import Settings
from sklearn_rank_metrics.dask import evaluate, evaluate_per_query

# names with parameters and cutoffs chosen by hand, then every other registered metric
# (from the registry: a new metric joins the Dask tests by being declared)
CHOSEN_METRICS = [
    "ndcg@10",
    "ndcg(gain=exponential,discount=max(1,log(rank)))@5",
    "dcg@10",
    "cg@5",
    "err@10",
    "map",
    "map(denominator=min(k,n_relevant))@10",
    "mrr@10",
    "p@5",
    "p(denominator=min(k,n_retrieved))@5",
    "recall@10",
    "rprec",
    "bpref",
    "iprec(recall=0.5)",
    "11pt_avg",
    "judged@5",
    "rbp(p=0.5)@10",
    "num_rel",
    "num_ret@5",
    "num_rel_ret@5",
    "idcg@10",
    "f1@5",
    "fbeta(beta=2.0)@5",
    "hit_rate@3",
    "hit_rate(average=micro)@3",
    "gauc",
    "gauc(query_weight=positives)",
]
_CHOSEN = {parse_metric(name).info.name for name in CHOSEN_METRICS}
ALL_METRICS = CHOSEN_METRICS + [
    f"{name}@5" if METRICS[name].takes_k else name
    for name in sorted(METRICS)
    if name not in _CHOSEN
]
POLICIES = [0.0, 1.0, math.nan, "skip"]
TIES = ["average", "input", "optimistic", "pessimistic"]
TOLERANCE = 1e-12


@pytest.fixture(autouse=True)
def threaded_scheduler(request):
    if "cluster_client" in request.fixturenames:
        yield
        return
    with dask.config.set(scheduler="threads"):
        yield


def make_frame(seed: int = 0, n_queries: int = 120, shuffle_rows: bool = True) -> pd.DataFrame:
    """Queries of 1 to 30 rows, graded labels, many tied scores, some ``-inf`` scores,
    queries without a relevant row and one-class queries, a per-query weight."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 31, n_queries)
    group = np.repeat(rng.permutation(10 * n_queries)[:n_queries] + 1000, sizes)
    n_rows = len(group)
    y_true = rng.integers(0, 4, n_rows).astype(np.float64)
    y_true[rng.random(n_rows) < 0.4] = 0.0
    query_kind = rng.integers(0, 6, n_queries)
    kind = np.repeat(query_kind, sizes)
    y_true[kind == 0] = 0.0  # no relevant row: undefined
    y_true[kind == 1] = np.maximum(y_true[kind == 1], 1.0)  # one class: gauc undefined
    y_score = np.round(rng.normal(size=n_rows), 1)  # many ties
    y_score[rng.random(n_rows) < 0.05] = -np.inf
    weight = np.repeat(rng.integers(0, 4, n_queries).astype(np.float64), sizes)
    frame = pd.DataFrame(
        {"qid": group, "label": y_true, "score": y_score, "weight": weight, "other": 1}
    )
    if shuffle_rows:
        frame = frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    return frame


# bpref and Judged@k read which rows were judged: every row of these frames was
# (judged=True, unless a test passes its own)


def in_memory(frame: pd.DataFrame, metrics=ALL_METRICS, *, weighted=False, **params):
    params = {"judged": True, **params}
    return evaluate_in_memory(
        frame["label"],
        frame["score"],
        frame["qid"],
        metrics=metrics,
        sample_weight=frame["weight"] if weighted else None,
        **params,
    )


def on_dask(ddf, metrics=ALL_METRICS, *, weighted=False, **params):
    params = {"judged": True, **params}
    return evaluate(
        ddf,
        metrics,
        y_true="label",
        y_score="score",
        group="qid",
        sample_weight="weight" if weighted else None,
        **params,
    )


def assert_same_means(got: dict, expected: dict) -> None:
    assert list(got) == list(expected)
    for name in expected:
        assert type(got[name]) is float, name
        if math.isnan(expected[name]):
            assert math.isnan(got[name]), name
        else:
            assert got[name] == pytest.approx(expected[name], rel=0, abs=TOLERANCE), name


def assert_same_table(got: pd.DataFrame, expected: pd.DataFrame) -> None:
    got = got.sort_values("query").reset_index(drop=True)
    assert list(got.columns) == list(expected.columns)
    assert np.array_equal(
        np.asarray(got["query"], dtype=object), np.asarray(expected["query"], dtype=object)
    )
    for name in expected.columns[1:]:
        assert got[name].dtype == np.float64
        np.testing.assert_allclose(got[name], expected[name], rtol=0, atol=TOLERANCE)


def is_shuffled(table) -> bool:
    return any("Rearrange" in type(node).__name__ for node in table.expr.walk())


def scattered(frame: pd.DataFrame, npartitions: int = 7):
    """Rows of each query spread over many partitions (the frame is in random order)."""
    return dd.from_pandas(frame, npartitions=npartitions, sort=False)


def test_metric_list_covers_the_registry():
    assert {parse_metric(name).info.name for name in ALL_METRICS} == set(METRICS)


def test_scattered_queries_really_span_partitions():
    frame = make_frame()
    ddf = scattered(frame)
    per_partition = ddf.map_partitions(lambda part: part[["qid"]].drop_duplicates()).compute()
    assert per_partition["qid"].duplicated().sum() > 50
    assert is_shuffled(
        evaluate_per_query(ddf, ["map"], y_true="label", y_score="score", group="qid")
    )


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("policy", POLICIES, ids=["0", "1", "nan", "skip"])
def test_scattered_equals_in_memory(ties, policy):
    frame = make_frame(seed=1)
    got = on_dask(scattered(frame), ties=ties, replace_undefined_by=policy)
    expected = in_memory(frame, ties=ties, replace_undefined_by=policy)
    assert_same_means(got, expected)
    if policy != "skip" and not (isinstance(policy, float) and math.isnan(policy)):
        assert all(not math.isnan(value) for value in got.values())


@pytest.mark.parametrize("policy", POLICIES, ids=["0", "1", "nan", "skip"])
def test_sample_weight_and_relevance_level(policy):
    frame = make_frame(seed=2)
    params = {"replace_undefined_by": policy, "relevance_level": 2}
    got = on_dask(scattered(frame, 5), weighted=True, **params)
    expected = in_memory(frame, weighted=True, **params)
    assert_same_means(got, expected)
    if isinstance(policy, float) and math.isnan(policy):
        # every metric has undefined queries (without a row of label >= 2), except
        # Judged@k, defined for every query, and fall-out, undefined only without a
        # non-relevant row, which no query of this frame lacks
        defined = {
            name: parse_metric(name).info.always_defined
            or parse_metric(name).info.undefined_without == "non_relevant"
            for name in got
        }
        assert all(math.isnan(value) != defined[name] for name, value in got.items())
        return
    unweighted = in_memory(frame, **params)
    assert all(not math.isnan(value) for value in got.values())
    assert any(not math.isclose(expected[name], unweighted[name]) for name in expected)


def test_mean_by_hand():
    # query 1: relevant row at rank 2 -> RR 1/2; query 2: rank 1 -> RR 1; query 3: no
    # relevant row. Weights 1, 3, 5: skip -> (0.5 + 3) / 4, zero -> (0.5 + 3 + 0) / 9.
    frame = pd.DataFrame(
        {
            "qid": [3, 1, 2, 1, 3, 2],
            "label": [0, 1, 1, 0, 0, 0],
            "score": [0.2, 0.4, 0.9, 0.8, 0.1, 0.3],
            "weight": [5.0, 1.0, 3.0, 1.0, 5.0, 3.0],
        }
    )
    ddf = dd.from_pandas(frame, npartitions=3, sort=False)
    skip = on_dask(ddf, ["mrr"], weighted=True, replace_undefined_by="skip")
    zero = on_dask(ddf, ["mrr"], weighted=True, replace_undefined_by=0.0)
    assert skip["mrr"] == pytest.approx(3.5 / 4, abs=1e-15)
    assert zero["mrr"] == pytest.approx(3.5 / 9, abs=1e-15)


def test_err_of_a_query_does_not_depend_on_its_partition():
    # queries 0-99 graded 0-3, queries 100-199 graded 0-1: each partition holds one
    # kind, so a scale read from the data (the old max_grade=None) differed by partition
    rng = np.random.default_rng(5)
    qid = np.repeat(np.arange(200), 10)
    label = np.where(qid < 100, rng.integers(0, 4, 2000), rng.integers(0, 2, 2000))
    frame = pd.DataFrame(
        {"qid": qid, "label": label.astype(float), "score": rng.random(2000), "weight": 1.0}
    )
    ddf = dd.from_pandas(frame, npartitions=2, sort=True)
    assert ddf.npartitions == 2
    metrics = ["err@10", "err(max_grade=3)@10"]
    expected, in_memory_warnings = record(in_memory, frame, metrics)
    got, dask_warnings = record(on_dask, ddf, metrics)
    assert_same_means(got, expected)
    # ERR's binary-labels warning reads the labels of one partition here: it is said so
    assert in_memory_warnings == []
    ((category, text),) = dask_warnings
    assert category is UndefinedMetricWarning and text.startswith("evaluate: every label is")
    assert text.endswith("[Raised in 1 of the 2 partitions of the Dask DataFrame, each about "
                         "its own rows]")
    # and each half alone gives the values it has inside the whole
    whole = evaluate_per_query(ddf, metrics, y_true="label", y_score="score", group="qid")
    whole = whole.compute().sort_values("query")
    half = in_memory(frame[frame.qid >= 100], metrics, per_query=True)
    np.testing.assert_array_equal(whole["err@10"].iloc[100:], half["err@10"])


def test_raise_policy_names_an_undefined_query():
    frame = make_frame(seed=3)
    undefined = set(frame.groupby("qid")["label"].max().loc[lambda s: s == 0].index)
    assert undefined
    with pytest.raises(ValueError, match="is undefined for query") as error:
        on_dask(scattered(frame), ["map"], replace_undefined_by="raise")
    named = re.search(r"for query (?:np\.int64\()?(\d+)", str(error.value)).group(1)
    assert int(named) in undefined
    assert "partition of the Dask DataFrame" in str(error.value)
    defined = frame[~frame["qid"].isin(undefined)]
    got = on_dask(scattered(defined), ["map", "ndcg@10"], replace_undefined_by="raise")
    assert_same_means(got, in_memory(defined, ["map", "ndcg@10"], replace_undefined_by="raise"))


def test_already_partitioned_by_index_divisions():
    frame = make_frame(seed=4)
    ddf = dd.from_pandas(frame.set_index("qid"), npartitions=6)
    assert ddf.known_divisions
    table = evaluate_per_query(
        ddf, ALL_METRICS, y_true="label", y_score="score", group="qid", judged=True
    )
    assert not is_shuffled(table)
    assert_same_table(table.compute(), in_memory(frame, per_query=True))
    # ties="input" follows the row order of the Dask DataFrame (here: after its sort)
    got = on_dask(ddf, weighted=True, ties="input")
    in_dask_order = ddf.compute().reset_index()
    assert_same_means(got, in_memory(in_dask_order, weighted=True, ties="input"))


def test_already_partitioned_by_disjoint_id_ranges_and_by_the_user():
    frame = make_frame(seed=5, shuffle_rows=False)  # rows of a query contiguous
    ids = frame["qid"].to_numpy()
    # one partition per id range, no query split: "auto" proves it and skips the shuffle
    bounds = np.quantile(np.unique(ids), [0.25, 0.5, 0.75])
    parts = np.searchsorted(bounds, ids)
    ranged = dd.from_map(lambda i: frame[parts == i], range(4))
    table = evaluate_per_query(
        ranged, ALL_METRICS, y_true="label", y_score="score", group="qid", judged=True
    )
    assert not is_shuffled(table)
    assert_same_table(table.compute(), in_memory(frame, per_query=True))
    # hash-like partitions (overlapping ranges): "auto" shuffles, True trusts the user
    hashed = dd.from_map(lambda i: frame[ids % 4 == i].sample(frac=1.0, random_state=i), range(4))
    auto = evaluate_per_query(hashed, ["map"], y_true="label", y_score="score", group="qid")
    trusted = evaluate_per_query(
        hashed, ["map"], y_true="label", y_score="score", group="qid", partitioned_by_query=True
    )
    assert is_shuffled(auto) and not is_shuffled(trusted)
    expected = in_memory(frame)
    assert_same_means(on_dask(hashed), expected)
    assert_same_means(on_dask(hashed, partitioned_by_query=True), expected)
    assert_same_means(on_dask(hashed, partitioned_by_query=False), expected)


def test_auto_shuffles_sorted_data_whose_queries_straddle_partitions():
    frame = make_frame(seed=6, shuffle_rows=False).sort_values("qid", kind="stable")
    ddf = dd.from_pandas(frame.reset_index(drop=True), npartitions=7, sort=False)
    table = evaluate_per_query(ddf, ["map"], y_true="label", y_score="score", group="qid")
    assert is_shuffled(table)  # neighbouring partitions share their boundary query
    assert_same_means(on_dask(ddf), in_memory(frame))
    # a wrong claim is refused, naming the first query that straddles two partitions
    parts = [set(part["qid"].compute()) for part in ddf.partitions]
    shared = sorted(
        (qid, one, other)
        for one in range(len(parts))
        for other in range(one + 1, len(parts))
        for qid in parts[one] & parts[other]
    )
    assert shared
    qid, one, other = shared[0]
    with pytest.raises(ValueError, match=f"query {qid} has rows in partitions {one} and {other} "):
        on_dask(ddf, ["ndcg@10"], partitioned_by_query=True)


# issue 44, item 6: the issue's call. Its frame is not shown there; this one has four
# queries of four rows with graded labels, and the same reshuffle into 2 partitions.
ISSUE_FRAME = pd.DataFrame(
    {
        "group": [1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4],
        "y_true": [2, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 2, 1, 0],
        "y_score": [0.9, 0.8, 0.3, 0.1, 0.7, 0.6, 0.5, 0.2, 0.4, 0.9, 0.3, 0.8, 0.6, 0.5, 0.7, 0.1],
    }
)


def test_partitioned_by_query_true_on_split_queries_is_refused():
    frame = ISSUE_FRAME
    # the reference is the in-memory evaluate (the non-distributed path) on the same rows
    expected = evaluate_in_memory(
        frame["y_true"], frame["y_score"], frame["group"], metrics=["ndcg@3", "map"]
    )
    ddf = dd.from_pandas(frame.sample(frac=1, random_state=1), 2, sort=False)
    parts = [set(part["group"]) for part in ddf.partitions]
    assert parts[0] & parts[1] == {1, 2, 3, 4}  # every query is split
    message = (
        r"The 'partitioned_by_query' parameter of evaluate is True, but query 1 has rows in "
        r"partitions 0 and 1 of the Dask DataFrame: .* Leave partitioned_by_query at 'auto' "
        r"\(or pass False\) .* repartition the data by query first \(ddf.shuffle\(on='group'\)\)"
    )
    # before: {'ndcg@3': 0.6655, 'map': 0.6354}, each half of a query scored as a query
    for flag in (True, np.True_):  # NumPy's True too: it used to skip the check
        with pytest.raises(ValueError, match=message):
            evaluate(ddf, ["ndcg@3", "map"], partitioned_by_query=flag)
        with pytest.raises(ValueError, match=message):
            evaluate_per_query(ddf, ["ndcg@3", "map"], partitioned_by_query=flag)
    lazy = evaluate(ddf, ["ndcg@3", "map"], partitioned_by_query=True, compute=False)
    with pytest.raises(ValueError, match=message):
        lazy.compute()
    # the fixes the message names give the in-memory means
    assert_same_means(evaluate(ddf, ["ndcg@3", "map"]), expected)
    assert_same_means(evaluate(ddf, ["ndcg@3", "map"], partitioned_by_query=False), expected)
    repartitioned = ddf.shuffle(on="group")
    assert_same_means(
        evaluate(repartitioned, ["ndcg@3", "map"], partitioned_by_query=True), expected
    )


def test_partitioned_by_query_true_names_the_one_query_split():
    # whole queries in hash-like partitions (overlapping id ranges), then one row of
    # query 1007 moved to partition 2: only that query is in two partitions
    frame = make_frame(seed=15, shuffle_rows=False)
    ids = np.unique(frame["qid"])
    part = np.searchsorted(ids, frame["qid"]) % 3
    moved = np.flatnonzero(frame["qid"] == ids[7])
    assert part[moved[0]] == 1 and len(moved) > 1
    part[moved[0]] = 2
    pieces = [frame[part == number] for number in range(3)]
    ddf = dd.from_map(lambda number: pieces[number], range(3))
    for call in (on_dask, lambda *a, **k: evaluate_per_query(*a, **k, y_true="label",
                                                             y_score="score", group="qid")):
        with pytest.raises(ValueError, match=f"query {ids[7]} has rows in partitions 1 and 2 "):
            call(ddf, ["map"], partitioned_by_query=True)
    part[moved[0]] = 1  # put back: no query split, no error, the in-memory means
    pieces = [frame[part == number] for number in range(3)]
    ddf = dd.from_map(lambda number: pieces[number], range(3))
    assert_same_means(on_dask(ddf, partitioned_by_query=True), in_memory(frame))


@pytest.mark.parametrize("kind", ["str", "category", "unknown category", "index"])
def test_partitioned_by_query_true_check_reads_every_kind_of_id(kind):
    frame = make_frame(seed=16, n_queries=40)
    frame["qid"] = "q" + frame["qid"].astype(str)
    if kind.endswith("category"):
        frame["qid"] = frame["qid"].astype("category")
    by_query = frame.sort_values("qid", kind="stable")
    if kind == "index":
        whole = dd.from_pandas(by_query.set_index("qid"), npartitions=4)
        split = dd.from_pandas(frame.set_index("qid"), npartitions=4, sort=False)
    else:
        codes = by_query["qid"].astype(str).map(hash) % 4
        whole = dd.from_map(lambda i: by_query[codes == i], range(4))
        split = scattered(frame, 4)
    if kind == "unknown category":  # each partition codes the ids its own way
        whole = whole.assign(qid=whole["qid"].cat.as_unknown())
        split = split.assign(qid=split["qid"].cat.as_unknown())
    assert_same_means(on_dask(whole, partitioned_by_query=True), in_memory(frame))
    with pytest.raises(ValueError, match="query 'q[0-9]+' has rows in partitions [0-9] and"):
        on_dask(split, ["map"], partitioned_by_query=True)


def test_partitioned_by_query_true_check_is_exact_on_random_layouts():
    # brute force: every layout of a few queries' rows over partitions (some empty),
    # the check raises exactly when some id is in two partitions, and names the
    # smallest such id with its two smallest partitions
    rng = np.random.default_rng(17)
    frame = make_frame(seed=17, n_queries=6, shuffle_rows=False)
    outcomes = []
    for _ in range(25):
        n_parts = int(rng.integers(2, 5))
        part = rng.integers(0, n_parts, len(frame))
        whole = rng.random() < 0.5
        if whole:  # every query in one partition
            query_part = {qid: int(rng.integers(0, n_parts)) for qid in np.unique(frame["qid"])}
            part = frame["qid"].map(query_part).to_numpy()
        pieces = [frame[part == number] for number in range(n_parts)]
        ddf = dd.from_map(lambda number, pieces=pieces: pieces[number], range(n_parts))
        in_parts = {
            qid: sorted({int(number) for number in part[frame["qid"] == qid]})
            for qid in np.unique(frame["qid"])
        }
        split = sorted(qid for qid, parts in in_parts.items() if len(parts) > 1)
        assert not (whole and split)
        outcomes.append(bool(split))
        if not split:
            assert_same_means(on_dask(ddf, ["map", "ndcg@5"], partitioned_by_query=True),
                              in_memory(frame, ["map", "ndcg@5"]))
            continue
        first, (one, other) = split[0], in_parts[split[0]][:2]
        with pytest.raises(
            ValueError, match=f"query {first} has rows in partitions {one} and {other} "
        ):
            on_dask(ddf, ["map", "ndcg@5"], partitioned_by_query=True)
    assert 5 <= sum(outcomes) <= 20  # both outcomes, many times


def test_first_shared_query():
    def parts(ids, number):
        return query_parts(pd.Series(ids), number)

    assert first_shared_query([]) is None
    assert first_shared_query([parts([3, 1], 0), parts([], 1), parts([2, 4], 2)]) is None
    assert first_shared_query([parts([3, 1], 0), parts([5, 3, 1], 1), parts([1], 2)]) == (1, 0, 1)
    assert first_shared_query([parts(["b", "a"], 0), parts(["c", "b"], 3)]) == ("b", 0, 3)
    # categoricals with different codes for one id, and nulls (refused elsewhere)
    left = pd.Series(["x", "y", None], dtype="category")
    right = pd.Series(["y"], dtype=pd.CategoricalDtype(["y", "x"]))
    assert first_shared_query([query_parts(left, 0), query_parts(right, 1)]) == ("y", 0, 1)
    assert first_shared_query([parts([1.0, np.nan], 0), parts([np.nan], 1)]) is None


# dask's read_parquet(index=...) calls set_index(inplace=True), deprecated in pandas 3
@pytest.mark.filterwarnings("ignore:The inplace keyword in DataFrame.set_index:DeprecationWarning")
def test_parquet_divisions_with_a_query_in_two_files_are_not_trusted(tmp_path):
    # read_parquet(calculate_divisions=True) reports strictly increasing divisions
    # although the boundary query of each file continues in the next file
    frame = make_frame(seed=14, shuffle_rows=False).sort_values("qid", kind="stable")
    ids = np.unique(frame["qid"])
    for index, (low, high) in enumerate([(0, 40), (39, 80), (79, len(ids))]):
        part = frame[frame["qid"].isin(ids[low:high])]
        if index:  # the first id of this file keeps only some of its rows here
            first = part.index[part["qid"] == ids[low]]
            part = part.drop(first[: len(first) // 2])
        part.to_parquet(tmp_path / f"part-{index}.parquet", index=False)
    ddf = dd.read_parquet(tmp_path, index="qid", calculate_divisions=True)
    assert ddf.known_divisions
    assert list(ddf.divisions) == sorted(set(ddf.divisions))
    stored = ddf.compute().reset_index()
    assert stored.groupby("qid").size().sum() == len(stored)
    table = evaluate_per_query(ddf, ["map"], y_true="label", y_score="score", group="qid")
    assert is_shuffled(table)
    assert_same_means(on_dask(ddf, ties="input"), in_memory(stored, ties="input"))


@pytest.mark.parametrize("policy", [0.0, "skip"])
def test_per_query_equals_in_memory_table(policy):
    frame = make_frame(seed=7)
    table = evaluate_per_query(
        scattered(frame),
        ALL_METRICS,
        y_true="label",
        y_score="score",
        group="qid",
        judged=True,
        ties="input",
        replace_undefined_by=policy,
    )
    assert isinstance(table, dd.DataFrame)
    expected = in_memory(frame, ties="input", replace_undefined_by=policy, per_query=True)
    got = table.compute()
    assert len(got) == frame["qid"].nunique()
    assert_same_table(got, expected)
    if policy == "skip":
        assert got["map"].isna().sum() == expected["map"].isna().sum() > 0


def test_empty_partitions():
    frame = make_frame(seed=8)
    ids = np.sort(frame["qid"].unique())
    low, high = ids[len(ids) // 4], ids[3 * len(ids) // 4]
    keep = (frame["qid"] < low) | (frame["qid"] > high)
    filtered = dd.from_pandas(frame.set_index("qid"), npartitions=8)
    filtered = filtered.map_partitions(lambda part: part[(part.index < low) | (part.index > high)])
    assert filtered.known_divisions
    lengths = filtered.map_partitions(len).compute().to_list()
    assert 0 in lengths and sum(lengths) == keep.sum()
    assert_same_means(on_dask(filtered), in_memory(frame[keep]))
    table = evaluate_per_query(
        filtered, ["map", "gauc"], y_true="label", y_score="score", group="qid"
    ).compute()
    assert_same_table(table, in_memory(frame[keep], ["map", "gauc"], per_query=True))
    with_empty = dd.from_map(lambda i: frame.iloc[:0] if i % 2 else frame[i::8], range(8))
    assert_same_means(
        on_dask(with_empty), in_memory(pd.concat([frame[i::8] for i in (0, 2, 4, 6)]))
    )
    everything = scattered(frame)
    nothing = everything[everything["label"] > 99]
    with pytest.raises(ValueError, match="y_true of evaluate is empty"):
        on_dask(nothing)


@pytest.mark.parametrize("kind", ["str", "object", "category", "unknown category", "index"])
def test_string_and_categorical_ids(kind):
    frame = make_frame(seed=9)
    frame["qid"] = "q" + frame["qid"].astype(str)
    expected_means = in_memory(frame)
    expected_table = in_memory(frame, ["map", "ndcg@10"], per_query=True)
    if kind == "object":
        frame["qid"] = frame["qid"].astype(object)
    if kind.endswith("category"):
        frame["qid"] = frame["qid"].astype("category")
    if kind == "index":
        ddf = dd.from_pandas(frame.set_index("qid"), npartitions=5)
    else:
        ddf = scattered(frame, 5)
    if kind == "unknown category":
        ddf = ddf.assign(qid=ddf["qid"].cat.as_unknown())
    assert_same_means(on_dask(ddf), expected_means)
    table = evaluate_per_query(
        ddf, ["map", "ndcg@10"], y_true="label", y_score="score", group="qid"
    ).compute()
    if kind.endswith("category"):
        assert isinstance(table["query"].dtype, pd.CategoricalDtype)
    assert_same_table(table.assign(query=table["query"].astype(str)), expected_table)


def test_compute_false_returns_a_delayed_for_one_pass():
    frame = make_frame(seed=10)
    ddf = scattered(frame)
    lazy_a = on_dask(ddf, ["ndcg@10", "map"], compute=False)
    lazy_b = on_dask(ddf, ["gauc"], compute=False, partitioned_by_query=False)
    assert isinstance(lazy_a, Delayed)
    got_a, got_b = dask.compute(lazy_a, lazy_b)
    assert_same_means(got_a, in_memory(frame, ["ndcg@10", "map"]))
    assert_same_means(got_b, in_memory(frame, ["gauc"]))


def test_no_query_left_warns_like_in_memory():
    frame = make_frame(seed=11)
    frame["label"] = 0.0
    with pytest.warns(UserWarning, match="no query is left to average"):
        expected = in_memory(frame, ["map"], replace_undefined_by="skip")
    with pytest.warns(UserWarning, match="mean_average_precision_score: no query is left"):
        got = on_dask(scattered(frame), ["map"], replace_undefined_by="skip")
    assert math.isnan(got["map"]) and math.isnan(expected["map"])
    # a partition with no kept query must not warn when the global mean is defined
    frame = make_frame(seed=11).sort_values("qid")
    frame.loc[frame["qid"] < frame["qid"].median(), "label"] = 0.0
    ddf = dd.from_pandas(frame.set_index("qid"), npartitions=4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = on_dask(ddf, ["map"], replace_undefined_by="skip")
    assert_same_means(got, in_memory(frame, ["map"], replace_undefined_by="skip"))


def record(call, *args, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call(*args, **kwargs)
    return result, [(warning.category, str(warning.message)) for warning in caught]


def test_warnings_once_per_call_with_the_in_memory_text():
    # issue 44, item 12: each partition warned on its own (4 partitions: 4 warnings),
    # and the mean's warnings had other texts or were missing
    rng = np.random.default_rng(18)
    frame = pd.DataFrame({"qid": rng.integers(0, 40, 800), "label": rng.integers(0, 2, 800)})
    frame["score"] = np.round(rng.normal(size=800), 1)
    cases = [
        (frame, ["err@10"], {}),  # binary labels with ERR's 0-4 scale, in every partition
        (frame.assign(label=0.0), ["map"], {"replace_undefined_by": "skip"}),  # nothing left
        (frame.assign(label=0.0), ["map", "ndcg@5"], {}),  # every query undefined: 0.0
    ]
    for data, metrics, params in cases:
        expected, in_memory_warnings = record(in_memory, data, metrics, **params)
        got, dask_warnings = record(on_dask, scattered(data, 4), metrics, **params)
        assert_same_means(got, expected)
        assert len(in_memory_warnings) == len(metrics if not params else [1])  # the reference
        assert dask_warnings == in_memory_warnings, (metrics, params)
    # a warning whose text names one partition's query: once, saying so
    _, in_memory_warnings = record(in_memory, frame, ["map"], convention="trec_eval")
    _, dask_warnings = record(on_dask, scattered(frame, 4), ["map"], convention="trec_eval")
    assert [category for category, _ in dask_warnings] == [TieOrderWarning]
    assert [category for category, _ in in_memory_warnings] == [TieOrderWarning]
    assert dask_warnings[0][1].endswith(
        "[Raised in 4 of the 4 partitions of the Dask DataFrame, each about its own rows; "
        "its counts and query ids are one's]"
    )
    head = in_memory_warnings[0][1].split("(first in query")[0]
    assert dask_warnings[0][1].startswith(head)


def test_errors():
    frame = make_frame(seed=12)
    ddf = scattered(frame, 3)
    with pytest.raises(TypeError, match="'ddf' parameter .* dask.dataframe.DataFrame"):
        evaluate(frame, ["map"])
    with pytest.raises(ValueError, match=r"'y_score' parameter .* 'y_score'.*'qid', 'label'"):
        evaluate(ddf, ["map"], y_true="label", group="qid")
    with pytest.raises(ValueError, match="'group' parameter of evaluate names column 'query'"):
        evaluate_per_query(ddf, ["map"], y_true="label", y_score="score", group="query")
    with pytest.raises(ValueError, match="'sample_weight' parameter .* 'w'"):
        evaluate(ddf, y_true="label", y_score="score", group="qid", sample_weight="w")
    with pytest.raises(ValueError, match="'ties' parameter of evaluate"):
        on_dask(ddf, ties="random")
    with pytest.raises(ValueError, match="'partitioned_by_query' parameter of evaluate"):
        on_dask(ddf, partitioned_by_query="yes")
    with pytest.raises(TypeError, match="'compute' parameter of evaluate"):
        on_dask(ddf, compute="no")
    with pytest.raises(ValueError, match="Unknown metric 'ndgc@10'"):
        on_dask(ddf, ["ndgc@10"])
    with pytest.raises(ValueError, match="names \\['map'\\] more than once"):
        on_dask(ddf, ["map", "map"])
    with pytest.raises(ValueError, match="at least one metric"):
        on_dask(ddf, [])
    bad = frame.copy()
    bad.loc[5, "score"] = np.nan
    with pytest.raises(ValueError, match="y_score of evaluate must not be NaN.*one partition"):
        on_dask(scattered(bad, 3))
    # a score column of text is refused by Dask as by evaluate (it was converted there)
    text = frame.assign(score=frame["score"].astype(str).astype(object))
    with pytest.raises(TypeError, match="y_score of evaluate must hold numbers; got text"):
        in_memory(text, ["map"])
    with pytest.raises(TypeError, match="y_score of evaluate must hold numbers; got text"):
        on_dask(scattered(text, 3), ["map"])
    bad = frame.copy()
    bad.loc[bad["qid"] == bad.loc[0, "qid"], "weight"] = [1.0] + [2.0] * (
        (bad["qid"] == bad.loc[0, "qid"]).sum() - 1
    )
    if (bad["qid"] == bad.loc[0, "qid"]).sum() > 1:
        with pytest.raises(ValueError, match="constant within each query"):
            on_dask(scattered(bad, 3), weighted=True)


def test_row_order_key_restores_input_order_for_input_ties():
    # The partition function sorts rows back by the key before ranking, so a shuffle
    # that reorders tied rows cannot change ties="input". All scores tie; in input
    # order the relevant row is 4th (RR 1/4, P@1 0), in reversed order 1st (RR 1, P@1 1).
    frame = pd.DataFrame(
        {"qid": [1, 1, 1, 1], "label": [0.0, 0.0, 0.0, 2.0], "score": [0.5, 0.5, 0.5, 0.5]}
    )
    keyed = add_row_order(frame, partition_info={"number": 3})
    assert keyed[ROW_ORDER_COLUMN].to_list() == [(3 << 32) + i for i in range(4)]
    call = DistributedCall(
        metrics=("mrr", "p@1"),
        shared=Settings(ties="input"),
        y_true="label",
        y_score="score",
        group="qid",
        sample_weight=None,
        judged=None,  # not said: mrr and p@1 do not read it
        doc_id=None,
        partitioned_by_query=False,
        buckets=None,
        caller="evaluate",
    )
    plan = PartitionPlan(
        call,
        y_score="score",
        group_on_index=False,
        row_order=True,
        part="partition",
        frame_kind="Dask DataFrame",
    )
    reversed_rows = keyed.iloc[::-1]
    table = partition_table(reversed_rows, plan)
    assert table[["mrr", "p@1"]].to_numpy().tolist() == [[0.25, 0.0]]
    table = partition_table(reversed_rows, dataclasses.replace(plan, row_order=False))
    assert table[["mrr", "p@1"]].to_numpy().tolist() == [[1.0, 1.0]]


def test_ranges_are_disjoint():
    assert ranges_are_disjoint([(3, 1, 4), (0, None, None), (2, 5, 9)])
    assert ranges_are_disjoint([(2, 5, 9), (3, 1, 4)])
    assert not ranges_are_disjoint([(3, 1, 5), (2, 5, 9)])
    assert not ranges_are_disjoint([(3, "a", "c"), (2, "b", "d")])
    assert ranges_are_disjoint([(3, "a", "b"), (2, "c", "d")])
    assert not ranges_are_disjoint([(3, 1, 2), (2, "c", "d")])


def test_importing_the_package_does_not_import_dask_and_missing_dask_is_explained():
    code = (
        "import sys; import sklearn_rank_metrics; assert 'dask' not in sys.modules\n"
        "sys.modules['dask'] = None\n"
        "try:\n    import sklearn_rank_metrics.dask\n"
        "except ImportError as error:\n    print(error)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert 'pip install "sklearn-rank-metrics[dask]"' in result.stdout
    # the plain packages too, for a user who installed from a checkout
    assert 'pip install "dask[dataframe]" distributed pandas pyarrow' in result.stdout


@pytest.fixture(scope="module")
def cluster_client():
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        yield client


def test_local_cluster_of_two_processes(cluster_client):
    frame = make_frame(seed=13, n_queries=300)
    ddf = scattered(frame, 8)
    for ties in ("input", "average"):
        got = on_dask(ddf, weighted=True, ties=ties, replace_undefined_by="skip")
        assert_same_means(
            got, in_memory(frame, weighted=True, ties=ties, replace_undefined_by="skip")
        )
    table = evaluate_per_query(
        ddf, ALL_METRICS, y_true="label", y_score="score", group="qid", judged=True, ties="input"
    )
    assert_same_table(table.compute(), in_memory(frame, ties="input", per_query=True))
    workers = cluster_client.run(lambda: __import__("os").getpid())
    assert len(set(workers.values())) == 2
    lazy = on_dask(ddf, ["gauc"], compute=False)
    assert_same_means(cluster_client.compute(lazy).result(), in_memory(frame, ["gauc"]))


def test_judged_one_is_a_column_name_never_true():
    # 1 == True in Python: judged=1 names column 1 (and is refused when there is none),
    # while True and NumPy's True say that every row was judged
    frame = dd.from_pandas(
        pd.DataFrame({"y_true": [1, 0, 1, 0], "y_score": [0.4, 0.3, 0.2, 0.1],
                      "group": [1, 1, 2, 2]}), npartitions=1,
    )
    with pytest.raises(ValueError, match=r"'judged' parameter of evaluate names column 1"):
        evaluate(frame, ["bpref"], judged=1)
    for every_row in (True, np.True_):
        assert evaluate(frame, ["bpref"], judged=every_row) == {"bpref": 1.0}


def test_the_run_order_warning_says_a_frame_carries_no_run_order():
    # RBP under ir_measures follows the run file's line order, which only a
    # RankingData of read_trec carries: the warning must not promise it to Dask
    frame = pd.DataFrame({
        "group": [1, 1, 1], "y_true": [0, 1, 1], "y_score": [1.0, 1.0, 1.0],
        "doc": ["a", "b", "c"],
    })
    with dask.config.set(scheduler="synchronous"), pytest.warns(TieOrderWarning) as record:
        evaluate(dd.from_pandas(frame, npartitions=1), ["RBP(p=0.8,rel=1)"], doc_id="doc",
                 convention="ir_measures")
    message = str(record[0].message)
    assert "orders tied scores as the run file lists them" in message
    assert "a Dask or Spark DataFrame carries no run order" in message


@pytest.mark.parametrize("parameter", ["y_true", "doc_id", "sample_weight", "judged"])
def test_an_array_given_for_a_column_name_is_refused_by_its_parameter(parameter):
    # a hurried user passes the values (or a list of names) where Dask takes a label
    frame = pd.DataFrame({"group": [1, 1], "y_true": [1, 0], "y_score": [0.5, 0.4]})
    with pytest.raises(TypeError, match=f"The '{parameter}' parameter of evaluate must "
                       "name a column of the Dask DataFrame .* got list"):
        evaluate(dd.from_pandas(frame, npartitions=1), ["map"], **{parameter: ["y_true"]})
