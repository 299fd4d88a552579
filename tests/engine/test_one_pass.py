"""One pass in: every entry point checks its rows and factorises their ids once per call.

The door (``_engine._rows.checked_rows``) converts and checks the labels, factorises
the query ids and checks the document ids; the document ids' text order is computed
once, on first use. Spies count, per call, the label conversions (``as_float`` of
``y_true``), the query-id factorisations (``factorize_groups_with_sizes``), the
document-id factorisations (``_document_ids._text_codes``) and the score
conversions. Before this structure, ``evaluate`` under ``convention="ir_measures"``
(three orderings) checked the rows three times and factorised the ids three times,
``compare`` and the report once per model.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

import sklearn_rank_metrics as srm
from sklearn_rank_metrics._engine import _document_ids, _inputs, _rows

N_QUERIES, DOCS = 6, 8


@pytest.fixture
def counts(monkeypatch):
    """Counter of the spied steps, reset by the test as it goes."""
    counter: Counter = Counter()
    real_as_float = _inputs.as_float
    real_factorize = _inputs.factorize_groups_with_sizes
    real_text_codes = _document_ids._text_codes
    real_scores = _inputs.scores_as_float

    def as_float(value, name):
        counter[f"as_float:{name}"] += 1
        return real_as_float(value, name)

    def factorize(group, n_rows):
        counter["query ids"] += 1
        return real_factorize(group, n_rows)

    def text_codes(ids):
        counter["document ids"] += 1
        return real_text_codes(ids)

    def scores_as_float(value):
        counter["scores"] += 1
        return real_scores(value)

    monkeypatch.setattr(_rows, "as_float", as_float)
    monkeypatch.setattr(_rows, "factorize_groups_with_sizes", factorize)
    monkeypatch.setattr(_rows, "scores_as_float", scores_as_float)
    monkeypatch.setattr(_document_ids, "_text_codes", text_codes)
    return counter


def _trec(n_runs=1):
    rng = np.random.default_rng(0)
    qrels, runs = {}, {f"r{i}": {} for i in range(n_runs)}
    for q in range(N_QUERIES):
        docs = [f"doc-{q}-{d}" for d in range(DOCS)]
        qrels[f"q{q}"] = {d: int(rng.integers(0, 3)) for d in docs}
        for run in runs.values():
            run[f"q{q}"] = {d: float(rng.integers(0, 3)) for d in docs}  # ties
    return qrels, runs


def _once(counter, scores=1):
    assert counter["as_float:y_true"] == 1, counter
    assert counter["query ids"] == 1, counter
    assert counter["document ids"] <= 1, counter
    assert counter["scores"] == scores, counter


METRICS = ["ndcg@5", "map", "RR@10", "RR", "ERR@5", "RBP(p=0.8,rel=1)", "bpref", "P_5"]


def test_evaluate_under_a_convention_of_three_orderings(counts):
    qrels, runs = _trec()
    data = srm.read_trec(qrels, runs["r0"])
    counts.clear()
    srm.evaluate(data, metrics=METRICS, convention="ir_measures")  # three orderings
    _once(counts)
    # the reader's codes of the docnos in text order serve every ordering: none is
    # computed; the same ids without them are ordered once, for two orderings
    assert counts["document ids"] == 0
    counts.clear()
    srm.evaluate(data.y_true, data.y_score, data.group, doc_id=np.asarray(data.doc_id),
                 judged=data.judged, metrics=METRICS, convention="ir_measures")
    _once(counts)
    assert counts["document ids"] == 1


def test_a_metric_function_under_a_convention(counts):
    qrels, runs = _trec()
    data = srm.read_trec(qrels, runs["r0"])
    counts.clear()
    srm.ndcg_score(data, k=5, convention="ir_measures")
    _once(counts)


@pytest.mark.parametrize("entry", ["compare", "ranking_report", "report_baseline",
                                   "display", "command_line"])
def test_several_runs_on_the_same_rows(counts, entry, tmp_path, capsys):
    qrels, runs = _trec(n_runs=3)
    aligned = srm.align_trec_runs(qrels, runs)
    counts.clear()
    if entry == "compare":
        srm.compare(aligned, metrics=METRICS[:4], n_resamples=10, random_state=0)
    elif entry == "ranking_report":
        srm.ranking_report(aligned, metrics=METRICS)
    elif entry == "report_baseline":
        srm.ranking_report(aligned, metrics=METRICS[:4], baseline="r0", n_resamples=10,
                           random_state=0)
    elif entry == "display":
        pytest.importorskip("matplotlib")
        import matplotlib

        matplotlib.use("Agg")
        srm.PerQueryMetricDisplay.from_predictions(aligned, metric="map")
        matplotlib.pyplot.close("all")
    else:
        from sklearn_rank_metrics._cli import main

        qrels_file = tmp_path / "q.qrels"
        qrels_file.write_text("".join(f"{q} 0 {d} {label}\n" for q, docs in qrels.items()
                                      for d, label in docs.items()))
        options = []
        for name, run in runs.items():
            path = tmp_path / f"{name}.run"
            path.write_text("".join(f"{q} Q0 {d} 1 {s} {name}\n" for q, docs in run.items()
                                    for d, s in docs.items()))
            options += ["--run", str(path)]
        counts.clear()
        assert main(["evaluate", "--qrels", str(qrels_file), *options, "--metrics", "map",
                     "--convention", "ir_measures"]) == 0
        capsys.readouterr()
    _once(counts, scores=3)


def test_streaming_checks_each_batch_once(counts):
    rng = np.random.default_rng(1)
    evaluator = srm.RankingEvaluator(["ndcg@5", "map"], convention="trec_eval")
    for batch in range(3):
        group = np.repeat(np.arange(batch * 4, batch * 4 + 4), 5)
        counts.clear()
        evaluator.update(rng.integers(0, 3, 20), rng.random(20), group,
                         doc_id=[f"d{i}" for i in range(20)])
        _once(counts)


def test_a_scorer_checks_its_fold_once(counts):
    from sklearn.linear_model import Ridge

    X, y, qid = srm.make_ranking(n_queries=10, random_state=0)
    model = Ridge().fit(X, y)
    scorer = srm.make_ranking_scorer("ndcg@10", group=qid)
    counts.clear()
    scorer(model, X, y)
    _once(counts)


def test_a_dask_partition_checks_its_rows_once(counts):
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    from sklearn_rank_metrics.dask import evaluate as dask_evaluate

    rng = np.random.default_rng(2)
    frame = pd.DataFrame({
        "group": np.repeat(np.arange(8), 5), "y_true": rng.integers(0, 3, 40),
        "y_score": rng.integers(0, 3, 40).astype(float), "doc": [f"d{i}" for i in range(40)],
    })
    ddf = dd.from_pandas(frame, npartitions=2, sort=True)  # queries 0-3, 4-7
    counts.clear()
    with dask.config.set(scheduler="synchronous"):
        dask_evaluate(ddf, METRICS[:4], convention="ir_measures", doc_id="doc",
                      partitioned_by_query=True)
    # each partition's rows checked, and their ids factorised, once
    assert counts["as_float:y_true"] == 2, counts
    assert counts["query ids"] == 2, counts
    assert counts["scores"] == 2, counts
    assert counts["document ids"] == 2, counts
