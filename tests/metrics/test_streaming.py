"""RankingEvaluator: batches of whole queries give the numbers of one evaluate call.

The reference is :func:`evaluate` on all the rows at once (itself checked against the
peers elsewhere), on the real sample and on synthetic queries with ties, unretrieved
rows and queries without relevant rows.
"""

from __future__ import annotations

import pickle
import threading

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


# ---------------------------------------------------------------------------
# Batches that cannot be one evaluate call, threads, pickles, settings
# ---------------------------------------------------------------------------


def test_evaluator_refuses_query_ids_of_another_kind_in_a_later_batch():
    evaluator = RankingEvaluator(metrics=["mrr"])
    evaluator.update([1, 0], [0.9, 0.1], group=[1, 1])
    # one evaluate call refuses ints mixed with strings; two batches kept "1" and 1
    # as two queries (and compute turned both into the text "1")
    mixed = (
        r"group holds query id '1' \(str\), which cannot be compared with the query ids "
        r"of earlier batches, such as 1 \(int\)"
    )
    with pytest.raises(TypeError, match=mixed):
        evaluator.update([0, 1], [0.9, 0.1], group=["1", "1"])
    with pytest.raises(TypeError, match="cannot be compared"):
        evaluate([1, 0, 0, 1], [0.9, 0.1, 0.9, 0.1], np.array([1, 1, "1", "1"], dtype=object),
                 metrics=["mrr"])  # fmt: skip
    assert evaluator.n_queries_ == 1
    assert evaluator.compute() == {"mrr": 1.0}
    # comparable kinds are one kind: 2.0 after 1 is another query, 1.0 the same
    evaluator.update([0, 1], [0.9, 0.1], group=[2.0, 2.0])
    with pytest.raises(ValueError, match="query 1.0 was already evaluated"):
        evaluator.update([0, 1], [0.9, 0.1], group=[1.0, 1.0])
    assert evaluator.compute() == {"mrr": pytest.approx((1 + 0.5) / 2, rel=1e-15)}
    # merge: the same rule
    other = RankingEvaluator(metrics=["mrr"])
    other.update([1, 0], [0.9, 0.1], group=[b"q", b"q"])
    with pytest.raises(TypeError, match=r"RankingEvaluator.merge: group holds query id b'q'"):
        evaluator.merge(other)


def test_evaluator_accepts_one_of_two_concurrent_batches_of_one_query():
    # Both threads check that query 5 is new before either records it: each reads
    # the set, then waits inside the membership test until the other has read it
    # too (or 1 s passes, when the check and the record are atomic and the other
    # thread waits outside them).
    barrier = threading.Barrier(2)

    class MeetingSet(set):
        def __contains__(self, item):
            found = super().__contains__(item)
            try:
                barrier.wait(timeout=1.0)
            except threading.BrokenBarrierError:
                pass
            return found

    evaluator = RankingEvaluator(metrics=["mrr"])
    evaluator._seen = MeetingSet()
    outcomes = []

    def update(labels):
        try:
            evaluator.update(labels, [0.9, 0.1], group=[5, 5])
            outcomes.append("accepted")
        except ValueError as error:
            assert "query 5 was already evaluated" in str(error)
            outcomes.append("refused")

    threads = [threading.Thread(target=update, args=(labels,)) for labels in ([1, 0], [0, 1])]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["accepted", "refused"]
    assert evaluator.n_queries_ == 1
    assert len(evaluator.compute(per_query=True)["query"]) == 1


def test_evaluator_pickles_and_merges_after_a_round_trip():
    evaluator = RankingEvaluator(metrics=["mrr"])
    evaluator.update([0, 1], [0.9, 0.1], group=[1, 1])
    copy = pickle.loads(pickle.dumps(evaluator))  # the lock is not pickled
    copy.update([1, 0], [0.9, 0.1], group=[2, 2])
    with pytest.raises(ValueError, match="merge: query 1 was already evaluated"):
        evaluator.merge(copy)
    # MRR by hand: query 1 -> 1/2, query 2 -> 1
    merged = RankingEvaluator(metrics=["mrr"]).merge(copy)
    assert merged.compute() == {"mrr": pytest.approx(0.75, rel=1e-15)}


def test_evaluator_checks_metric_names_at_construction():
    with pytest.raises(ValueError, match="Unknown metric 'nonsense@3' for RankingEvaluator"):
        RankingEvaluator(metrics=["mrr", "nonsense@3"])
    with pytest.raises(ValueError, match="'gain' parameter"):
        RankingEvaluator(metrics=["ndcg(gain=cubic)@10"])


def test_evaluator_compute_per_query_takes_what_evaluate_takes():
    evaluator = RankingEvaluator(metrics=["mrr"])
    evaluator.update([1, 0, 0], [0.9, 0.8, 0.1], group=[1, 1, 1])
    evaluator.update([0, 1, 0, 1], [0.9, 0.8, 0.7, 0.1], group=[2, 2, 3, 3])
    for bad in ("yes", "TREC_EVAL", 1, [True], None):
        with pytest.raises((TypeError, ValueError), match="'per_query' parameter of "
                           "RankingEvaluator.compute must be a bool or a str among"):  # fmt: skip
            evaluator.compute(per_query=bad)
    # trec_eval -q's layout: "%-22s\t%s\t%6.4f"; MRR by hand: 1, 1/2, 1/2, mean 2/3
    name = "mrr".ljust(22)
    assert evaluator.compute(per_query="trec_eval") == (
        f"{name}\t1\t1.0000\n{name}\t2\t0.5000\n{name}\t3\t0.5000\n"
        f"{'num_q'.ljust(22)}\tall\t3\n{name}\tall\t0.6667\n"
    )
    table = evaluator.compute(per_query=np.True_)
    np.testing.assert_array_equal(np.asarray(table["mrr"]), [1.0, 0.5, 0.5])
    assert evaluator.compute(per_query=np.False_) == {"mrr": pytest.approx(2 / 3, rel=1e-15)}


def test_two_dimensional_batches_of_one_row_per_query_do_not_warn_of_a_mix_up():
    # scikit-learn's 2-D form has no query ids: (n, 1) is n queries of one document,
    # as evaluate reads it without a word; flat rows with one row per query still warn
    import warnings

    from sklearn_rank_metrics import SuspiciousInputWarning

    rng = np.random.default_rng(0)
    evaluator = RankingEvaluator(["p@1"])
    evaluator.update(np.ones((200, 1)), rng.random((200, 1)))
    with warnings.catch_warnings():
        warnings.simplefilter("error", SuspiciousInputWarning)
        assert evaluator.compute() == {"p@1": 1.0}
        assert evaluate(np.ones((200, 1)), rng.random((200, 1)), metrics="p@1") == {"p@1": 1.0}
    flat = RankingEvaluator(["p@1"])
    flat.update(np.ones(200), rng.random(200), np.arange(200))
    with pytest.warns(SuspiciousInputWarning, match="every one of the 200 queries holds one"):
        flat.compute()


def test_a_batch_of_pandas_objects_with_different_indexes_is_refused():
    # paired by position, misaligned Series would give a silent wrong number
    pd = pytest.importorskip("pandas")
    index = [10, 11, 12, 13]
    y = pd.Series([1, 0, 0, 1], index=index)
    qid = pd.Series([1, 1, 2, 2], index=index)
    scores = pd.Series([0.9, 0.1, 0.2, 0.8], index=index[::-1])
    evaluator = RankingEvaluator(["p@1"])
    with pytest.raises(ValueError, match="y_true and y_score of RankingEvaluator.update are "
                       "pandas objects with different indexes"):
        evaluator.update(y, scores, qid)
    evaluator.update(y, scores.reindex(index), qid)
    assert evaluator.compute() == evaluate(y, scores.reindex(index), qid, metrics="p@1")
