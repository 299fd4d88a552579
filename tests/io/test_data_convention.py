"""Rows read from TREC files carry trec_eval's convention, through every entry point.

The same TREC files gave two answers: ``rank-metrics evaluate --qrels q --run r``
applied trec_eval's convention, ``evaluate(read_trec(q, r))`` the package's defaults
(ties averaged). The rows now carry ``convention="trec_eval"`` and every entry point
given them whole applies it when the call names no convention.

Expected values: pytrec_eval (trec_eval 9) on the same files. The scores are exact
in float32 (0.5, 0.25, ...), so trec_eval 9 and 10 rank them alike, and the measures
here (map, recip_rank, P_2, ndcg_cut_3, bpref) are computed alike by both. Every
query is answered, so ``-c`` (our default) and pytrec_eval average the same queries.
"""

from __future__ import annotations

import io
import json
import warnings

import numpy as np
import pytest

from sklearn_rank_metrics import (
    PerQueryMetricDisplay,
    RankingData,
    RankingEvaluator,
    align_trec_runs,
    bpref_score,
    compare,
    evaluate,
    mean_average_precision_score,
    mean_reciprocal_rank_score,
    ndcg_score,
    precision_at_k_score,
    ranking_report,
    read_letor,
    read_recommendations,
    read_table,
    read_trec,
    read_trec_qrels,
    read_trec_run,
)
from sklearn_rank_metrics._cli import main as cli_main

pytrec_eval = pytest.importorskip("pytrec_eval")

QRELS = """\
q1 0 d1 1
q1 0 d2 0
q1 0 d3 2
q1 0 d4 0
q2 0 e1 1
q2 0 e2 0
q2 0 e3 1
q3 0 f1 0
q3 0 f2 1
q3 0 f9 0
"""
# tied scores in every query; d5 and f3 are unjudged (bpref skips them)
RUN = """\
q1 Q0 d1 1 0.5 tied
q1 Q0 d2 2 0.5 tied
q1 Q0 d5 3 0.5 tied
q1 Q0 d3 4 0.25 tied
q1 Q0 d4 5 0.25 tied
q2 Q0 e1 1 0.75 tied
q2 Q0 e2 2 0.75 tied
q2 Q0 e3 3 0.75 tied
q3 Q0 f1 1 0.125 tied
q3 Q0 f2 2 0.125 tied
q3 Q0 f3 3 0.125 tied
"""
TREC_MEASURES = {  # trec_eval's name -> ours
    "map": "map",
    "recip_rank": "mrr",
    "P_2": "p@2",
    "ndcg_cut_3": "ndcg@3",
    "bpref": "bpref",
}


@pytest.fixture
def files(tmp_path):
    qrels, run = tmp_path / "tied.qrels", tmp_path / "tied.run"
    qrels.write_text(QRELS)
    run.write_text(RUN)
    return str(qrels), str(run)


@pytest.fixture
def trec_eval_means(files):
    """What trec_eval prints (pytrec_eval's per-query values, averaged)."""
    qrels, run = files
    tool = pytrec_eval.RelevanceEvaluator(read_trec_qrels(qrels), set(TREC_MEASURES))
    values = tool.evaluate(read_trec_run(run))
    assert sorted(values) == ["q1", "q2", "q3"]
    return {ours: np.mean([v[theirs] for v in values.values()])
            for theirs, ours in TREC_MEASURES.items()}


def _close(got, expected):
    assert set(got) == set(expected)
    for name, value in expected.items():
        assert got[name] == pytest.approx(value, rel=1e-12), name


def test_the_data_differs_between_conventions(files, trec_eval_means):
    # the test is meaningful: on these rows the package's defaults give other numbers
    data = read_trec(*files)
    defaults = evaluate(data, metrics=list(trec_eval_means), convention="none")
    assert defaults["map"] != pytest.approx(trec_eval_means["map"])
    assert defaults["mrr"] != pytest.approx(trec_eval_means["mrr"])


def test_command_line_and_api_give_trec_eval_numbers(files, trec_eval_means, capsys):
    qrels, run = files
    assert cli_main(["evaluate", "--qrels", qrels, "--run", run, "--format", "json",
                     "--metrics", *TREC_MEASURES]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["convention"] == "trec_eval"
    # printed under our canonical names (recip_rank as mrr, P_2 as p@2, ...)
    printed = {name: v["mean"] for name, v in document["results"]["tied.run"].items()}
    _close(printed, trec_eval_means)

    data = read_trec(qrels, run)
    assert data.convention == "trec_eval"
    _close(evaluate(data, metrics=list(trec_eval_means)), trec_eval_means)
    table = evaluate(data, metrics=list(trec_eval_means), per_query=True)
    _close({name: float(np.mean(table[name])) for name in trec_eval_means}, trec_eval_means)


def test_every_metric_function_applies_the_carried_convention(files, trec_eval_means):
    data = read_trec(*files)
    got = {
        "map": mean_average_precision_score(data),
        "mrr": mean_reciprocal_rank_score(data),
        "p@2": precision_at_k_score(data, k=2),
        "ndcg@3": ndcg_score(data, k=3),
        "bpref": bpref_score(data),
    }
    _close(got, trec_eval_means)


def test_reports_comparisons_streams_and_displays_apply_it(files, trec_eval_means):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    qrels, run = files
    names = list(trec_eval_means)
    data = read_trec(qrels, run)
    report = ranking_report(data, metrics=names, output_dict=True)
    _close({name: stats["mean"] for name, stats in report.items()}, trec_eval_means)

    aligned = align_trec_runs(qrels, {"tied": run, "again": run})
    assert aligned.convention == aligned.run("tied").convention == "trec_eval"
    _close(evaluate(aligned.run("tied"), metrics=names), trec_eval_means)
    means = compare(aligned, metrics=names, n_resamples=10, random_state=0).means
    for name in names:
        assert means[name].tolist() == pytest.approx([trec_eval_means[name]] * 2, rel=1e-12)

    evaluator = RankingEvaluator(names, convention="trec_eval")
    evaluator.update(data)
    _close(evaluator.compute(), trec_eval_means)

    display = PerQueryMetricDisplay.from_predictions(data, metric="map")
    assert np.mean(display.values[next(iter(display.values))]) == pytest.approx(
        trec_eval_means["map"], rel=1e-12
    )
    matplotlib.pyplot.close("all")


def test_an_explicit_convention_or_setting_wins(files):
    data = read_trec(*files)
    arrays = (data.y_true, data.y_score, data.group)
    carried = {"judged": data.judged, "doc_id": data.doc_id}
    names = ["map", "mrr", "ndcg@3"]
    # "none": the package's defaults, as the bare arrays give them
    assert evaluate(data, metrics=names, convention="none") == evaluate(
        *arrays, metrics=names, judged=data.judged
    )
    # another tool's convention
    assert evaluate(data, metrics=names, convention="pytrec_eval") == evaluate(
        *arrays, metrics=names, convention="pytrec_eval", **carried
    )
    # a setting given on top of the carried convention, as on top of a named one
    averaged = evaluate(data, metrics=names, ties="average")
    assert averaged == evaluate(
        *arrays, metrics=names, convention="trec_eval", ties="average", **carried
    )
    assert averaged != evaluate(data, metrics=names)
    assert mean_reciprocal_rank_score(data, ties="average") == averaged["mrr"]


def test_reports_say_which_convention_applied(files):
    data = read_trec(*files)
    text = ranking_report(data, metrics=["map"])
    assert "convention: trec_eval 10" in text
    given = ranking_report(data, metrics=["map"], ties="average")
    assert "convention: trec_eval 10" in given and "(given: ties='average')" in given
    assert "convention" not in ranking_report(data, metrics=["map"], convention="none")
    arrays = (data.y_true, data.y_score, data.group)
    assert "convention" not in ranking_report(*arrays, metrics=["map"])


def test_comparisons_say_which_convention_applied(files):
    qrels, run = files
    aligned = align_trec_runs(qrels, {"tied": run, "again": run})
    result = compare(aligned, metrics=["map"], n_resamples=10, random_state=0)
    assert result.convention == "trec_eval"
    assert result.to_text().endswith(
        "convention: trec_eval 10: float64 scores, ties by docno descending, relevant = "
        "label >= 1, empty query 0, iprec cutoff round(X*R)"
    )
    assert json.loads(result.to_json())["convention"] == "trec_eval"
    # the formats papers take the tables in say it in the caption
    assert "Convention: trec\\_eval 10" in result.to_markdown()
    assert "Convention: trec\\_eval 10" in result.to_latex()
    report = ranking_report(aligned, metrics=["map"], as_frame=False)
    assert report.endswith("iprec cutoff round(X*R)")
    plain = compare(aligned, metrics=["map"], n_resamples=10, random_state=0, convention="none")
    assert plain.convention is None and "convention" not in plain.to_text()
    assert "onvention" not in plain.to_markdown() + plain.to_latex()
    # the report with a comparison says it once, at the end
    text = ranking_report(aligned, metrics=["map"], baseline="tied", n_resamples=10)
    assert text.count("convention: trec_eval 10") == 1
    assert text.rstrip().endswith("iprec cutoff round(X*R)")


def test_the_command_line_header_names_the_convention(files, capsys):
    qrels, run = files
    assert cli_main(["evaluate", "--qrels", qrels, "--run", run, "--metrics", "map"]) == 0
    assert "convention: trec_eval 10" in capsys.readouterr().out
    for style in ("markdown", "latex"):  # in the caption
        assert cli_main(["evaluate", "--qrels", qrels, "--run", run, "--metrics", "map",
                         "--format", style]) == 0
        assert "Convention: trec\\_eval 10" in capsys.readouterr().out
    assert cli_main(["evaluate", "--qrels", qrels, "--run", run, "--metrics", "map",
                     "--convention", "none", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["convention"] == "none"


def test_unpacking_the_rows_is_refused_with_both_spellings(files):
    data = read_trec(*files)
    with pytest.raises(TypeError) as refused:
        evaluate(*data, metrics=["map"])
    message = str(refused.value)
    assert "convention='trec_eval'" in message
    assert "evaluate(data, ...)" in message and "evaluate(data.y_true, data.y_score" in message
    # carried() hands over everything, the convention included
    names = ["map", "mrr"]
    assert evaluate(**data.carried(), metrics=names) == evaluate(data, metrics=names)


def test_an_evaluator_without_a_convention_refuses_the_rows(files):
    data = read_trec(*files)
    with pytest.raises(ValueError, match=r"RankingEvaluator\(\.\.\., convention='trec_eval'\)"):
        RankingEvaluator(["map"]).update(data)
    # its settings are kept in the spelling it shows
    with pytest.raises(ValueError, match=r"convention='trec_eval', ties='average'\)"):
        RankingEvaluator(["map"], ties="average").update(data)
    evaluator = RankingEvaluator(["map"], convention="none")
    evaluator.update(data)
    assert evaluator.compute() == evaluate(data, metrics=["map"], convention="none")


def test_other_readers_carry_no_convention(tmp_path):
    letor = tmp_path / "a.letor"
    letor.write_text("1 qid:1 1:0.5\n0 qid:1 1:0.1\n")
    assert read_letor(str(letor)).convention is None
    recommendations = read_recommendations({"u": ["a", "b"]}, {"u": {"b"}})
    assert recommendations.convention is None
    table = tmp_path / "rows.csv"
    table.write_text("y_true,y_score,group\n1,0.5,1\n0,0.5,1\n")
    assert read_table(str(table)).convention is None
    # their tied rows get the package's default (the expected value over tie orders)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert mean_reciprocal_rank_score(read_table(str(table))) == 0.75


def test_a_convention_must_be_a_name():
    with pytest.raises(TypeError, match="convention must be a tool's name"):
        RankingData([1.0], [0.5], [1], convention=1)
    rows = RankingData([1.0, 0.0], [0.5, 0.5], [1, 1], doc_id=["a", "b"], convention="trec_eval")
    assert mean_reciprocal_rank_score(rows) == 0.5  # b (docno descending) first
    # a misspelt name is refused when the rows are made, not at a call that named none
    with pytest.raises(ValueError, match=r"RankingData: convention must be one of .*"
                       r"got 'trec-eval'"):
        RankingData([1.0], [0.5], [1], convention="trec-eval")
    # rows that carry "none" (the package's defaults) unpack: nothing would be lost
    y, s, g = RankingData([1.0, 0.0], [0.5, 0.2], [1, 1], convention="none")
    assert "convention='trec_eval'" in repr(rows)


def test_stdin_run_is_read_like_a_file(files, capsys, monkeypatch):
    # the command line's standard input path carries the same convention
    qrels, run = files
    with open(run, "rb") as handle:
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(handle.read())))
    assert cli_main(["evaluate", "--qrels", qrels, "--run", "-", "--metrics", "map",
                     "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["convention"] == "trec_eval"
    assert document["results"]["stdin"]["map"]["mean"] == pytest.approx(
        evaluate(read_trec(qrels, run), metrics=["map"])["map"], rel=1e-12
    )


def test_rows_rounded_to_float32_carry_trec_eval_9s_convention():
    # single_precision=True reads the run as trec_eval 9 (pytrec_eval) does; the rows
    # carried trec_eval 10's convention, which mixed 10's interpolated-precision cutoff
    # round(X*R) with 9's float32 scores. Relevant rows at ranks 1, 4, 8, 9, 10, 11;
    # recall 0.2 of 6 relevant: 10's round(1.2) = 1 takes the best precision from the
    # first relevant row on (1/1), 9's floor(1.2 + 0.9) = 2 from the second (6/11)
    qrels = {"q": {f"r{i}": 1 for i in range(6)}}
    run = {"q": {doc: score for doc, score in zip(
        ["r0", "n0", "n1", "r1", "n2", "n3", "n4", "r2", "r3", "r4", "r5"],
        [11.0, 10.0, 9.0, 8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0], strict=True,
    )}}
    tool = pytrec_eval.RelevanceEvaluator(qrels, {"iprec_at_recall"}).evaluate(run)["q"]
    expected = tool["iprec_at_recall_0.20"]
    assert expected == pytest.approx(6 / 11)
    for data in (read_trec(qrels, run, single_precision=True),
                 align_trec_runs(qrels, {"x": run}, single_precision=True).run("x")):
        assert data.convention == "pytrec_eval"
        got = evaluate(data, metrics=["iprec_at_recall_0.20"])["iprec_at_recall_0.20"]
        assert got == pytest.approx(expected, rel=1e-12)
    assert read_trec(qrels, run).convention == "trec_eval"


def test_rows_with_features_keep_their_convention_in_scorers_and_displays():
    # a reader's rows with features (.X) scored by an estimator: the scorer and the
    # displays apply what the rows carry (the convention, the document ids), as
    # evaluate does on the same rows with the estimator's scores
    pytest.importorskip("matplotlib")
    import matplotlib
    import scipy.sparse as sp
    from sklearn.tree import DecisionTreeRegressor

    from sklearn_rank_metrics import make_ranking_scorer

    matplotlib.use("Agg")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = rng.integers(0, 3, 60).astype(float)
    group = np.repeat(np.arange(6), 10)
    doc = np.array([f"d{i:02d}" for i in rng.permutation(60)], dtype=object)
    model = DecisionTreeRegressor(max_depth=1).fit(X, y)  # two distinct scores: ties
    data = RankingData(y, None, group, doc_id=doc, X=sp.csr_matrix(X), convention="trec_eval")
    scored = RankingData(y, model.predict(X), group, doc_id=doc, convention="trec_eval")
    expected = evaluate(scored, metrics=["map"])["map"]
    # by hand: trec_eval's order is score descending, then docno descending
    order = np.lexsort((-np.argsort(np.argsort(doc)), -model.predict(X), group))
    assert expected == pytest.approx(evaluate(
        y[order], model.predict(X)[order], group[order], metrics=["map"], ties="input"
    )["map"], rel=1e-12)
    assert expected != pytest.approx(evaluate(scored, metrics=["map"], convention="none")["map"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the document ids come along: no tie warning
        assert make_ranking_scorer("map")(model, data) == pytest.approx(expected, rel=1e-12)
        display = PerQueryMetricDisplay.from_estimator(model, data, None, metric="map")
    assert np.mean(next(iter(display.values.values()))) == pytest.approx(expected, rel=1e-12)
    # the scorer's own convention wins
    assert make_ranking_scorer("map", convention="none")(model, data) == pytest.approx(
        evaluate(scored, metrics=["map"], convention="none")["map"], rel=1e-12
    )
    matplotlib.pyplot.close("all")
