"""RankingEvaluator: batches of whole queries give the numbers of one evaluate call.

The reference is :func:`evaluate` on all the rows at once (itself checked against the
peers elsewhere), on the real sample and on synthetic queries with ties, unretrieved
rows and queries without relevant rows.
"""

from __future__ import annotations

import numpy as np
import pytest

from sklearn_rank_metrics import RankingEvaluator, evaluate
from tests.support.qrels_data import dataset

METRICS = [
    "ndcg@10", "map", "mrr@10", "p@5", "recall@20", "err@10", "gauc", "rprec", "bpref",
    "hit_rate(average=micro)@5", "num_rel_ret@10", "rbp(p=0.5)",
]  # fmt: skip


def batches_of(group, n_batches, seed):
    """Row indices of ``n_batches`` batches, each of whole queries, rows shuffled."""
    rng = np.random.default_rng(seed)
    queries = np.unique(group)
    owner = dict(zip(queries, rng.integers(0, n_batches, len(queries)), strict=True))
    batch = np.array([owner[q] for q in group])
    return [rng.permutation(np.flatnonzero(batch == b)) for b in range(n_batches)]


@pytest.mark.parametrize("policy", [0.0, "skip", np.nan])
@pytest.mark.parametrize("dataset_name", ["synthetic", "lambdarank"])
def test_batches_give_the_numbers_of_one_call(dataset_name, policy):
    flat = dataset(dataset_name)
    y, score, group = flat.y, flat.tied_score, flat.group
    weights = 1.0 + np.unique(group, return_inverse=True)[1] % 3  # constant within a query
    settings = {"replace_undefined_by": policy, "ties": "average"}
    # every row judged (bpref reads it): said explicitly, in both paths
    expected = evaluate(
        y, score, group, metrics=METRICS, sample_weight=weights, judged=True, **settings
    )
    expected_table = evaluate(
        y, score, group, metrics=METRICS, per_query=True, judged=True, **settings
    )
    evaluator = RankingEvaluator(metrics=METRICS, **settings)
    for rows in batches_of(group, 7, seed=1):
        evaluator.update(
            y[rows], score[rows], group[rows], sample_weight=weights[rows], judged=True
        )
    got = evaluator.compute()
    assert list(got) == METRICS
    np.testing.assert_allclose(list(got.values()), list(expected.values()), rtol=1e-12)
    assert evaluator.n_queries_ == len(np.unique(group))
    # per-query values: the same table (unweighted values, queries sorted)
    unweighted = RankingEvaluator(metrics=METRICS, **settings)
    for rows in batches_of(group, 3, seed=2):
        unweighted.update(y[rows], score[rows], group[rows], judged=True)
    table = unweighted.compute(per_query=True)
    np.testing.assert_array_equal(table["query"], expected_table["query"])
    for name in METRICS:
        np.testing.assert_allclose(table[name], expected_table[name], rtol=1e-12, equal_nan=True)


def test_merged_workers_give_the_numbers_of_one_call():
    flat = dataset("lambdarank")
    y, score, group = flat.y, flat.score, flat.group
    expected = evaluate(y, score, group, metrics=METRICS, convention="trec_eval", judged=True)
    workers = [RankingEvaluator(METRICS, convention="trec_eval") for _ in range(3)]
    for index, batch in enumerate(batches_of(group, 6, seed=3)):
        rows = np.sort(batch)  # trec_eval's tie order is the row order here
        workers[index % 3].update(y[rows], score[rows], group[rows], judged=True)
    merged = workers[0].merge(workers[1]).merge(workers[2])
    np.testing.assert_allclose(
        list(merged.compute().values()), list(expected.values()), rtol=1e-12
    )


def test_a_query_split_over_batches_is_refused():
    evaluator = RankingEvaluator(metrics="mrr")
    evaluator.update([1, 0], [0.9, 0.1], ["a", "a"])
    with pytest.raises(ValueError, match="query 'a' was already evaluated in an earlier batch"):
        evaluator.update([0, 1], [0.9, 0.1], ["a", "b"])
    other = RankingEvaluator(metrics="mrr")
    other.update([1], [0.5], ["a"])
    with pytest.raises(ValueError, match="merge: query 'a' was already evaluated"):
        evaluator.merge(other)
    with pytest.raises(ValueError, match="same metrics and settings"):
        evaluator.merge(RankingEvaluator(metrics="map"))
    with pytest.raises(ValueError, match="no batch was added"):
        RankingEvaluator().compute()


def test_array_likes_with_dunder_array_are_read():
    # CPU tensors expose __array__; so does this stand-in
    class Tensor:
        def __init__(self, values):
            self.values = values

        def __array__(self, dtype=None, copy=None):
            return np.asarray(self.values, dtype=dtype)

    evaluator = RankingEvaluator(metrics=["mrr", "ndcg@2"])
    evaluator.update(Tensor([0.0, 1.0, 1.0]), Tensor([0.9, 0.8, 0.7]), Tensor([1, 1, 2]))
    got = evaluator.compute()
    # query 1: relevant at rank 2 (RR 1/2); query 2: one relevant row at rank 1
    assert got["mrr"] == pytest.approx(0.75)
    assert got == pytest.approx(
        evaluate([0, 1, 1], [0.9, 0.8, 0.7], [1, 1, 2], metrics=["mrr", "ndcg@2"])
    )
