"""The command line, run as a subprocess and in-process, against the library calls.

Hostile input too: unbounded --resamples, comparison options without --baseline,
Ctrl-C, a closed output pipe, empty standard input, and the form of warnings;
in-process through ``main([...])`` wherever possible, a subprocess only where a real
signal or a real pipe is the point (few, each bounded by a timeout).
"""

import csv
import io
import json
import math
import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.exceptions import UndefinedMetricWarning

from sklearn_rank_metrics import _cli, evaluate, make_ranking, ranking_report, read_trec
from sklearn_rank_metrics._cli import _progress, main

METRICS = ["ndcg@10", "map", "mrr@10", "p@5", "recall@10"]


def run_cli(*arguments):
    """``python -m sklearn_rank_metrics ...`` in a fresh interpreter."""
    return subprocess.run(
        [sys.executable, "-m", "sklearn_rank_metrics", *arguments],
        capture_output=True,
        text=True,
        timeout=120,
    )


def assert_same_report(from_cli, expected):
    """JSON numbers (NaN as null) equal the library's dict."""
    assert list(from_cli) == list(expected)
    for metric, stats in expected.items():
        for key, value in stats.items():
            got = from_cli[metric][key]
            if isinstance(value, float) and math.isnan(value):
                assert got is None
            else:
                assert got == pytest.approx(value, rel=0, abs=1e-12), (metric, key)


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """A CSV with a query column, labels and two models' scores (30% tied)."""
    X, y, qid = make_ranking(60, (3, 25), 4, shuffle=True, random_state=0)
    rng = np.random.default_rng(0)
    good = np.round(X[:, :3].sum(axis=1), 1)
    noise = rng.random(len(y))
    path = tmp_path_factory.mktemp("cli") / "scores.csv"
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["query", "grade", "good model", "noise"])
        for row in zip(qid, y, good, noise, strict=True):
            writer.writerow([f"q{row[0]}", *(repr(float(v)) for v in row[1:])])
    return path, y, good, noise, np.array([f"q{q}" for q in qid])


def test_table_json_equals_ranking_report(table):
    path, y, good, noise, qid = table
    result = run_cli(
        "evaluate", "--table", str(path), "--group", "query", "--y-true", "grade",
        "--y-score", "good model", "--y-score", "noise", "--format", "json",
        "--metrics", *METRICS,
    )
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["n_queries"] == {"good model": 60, "noise": 60}
    for name, scores in (("good model", good), ("noise", noise)):
        expected = ranking_report(y, scores, qid, metrics=METRICS, output_dict=True)
        assert_same_report(document["results"][name], expected)
    # the good model is far better than noise (the data has a planted signal)
    results = document["results"]
    assert results["good model"]["ndcg@10"]["mean"] > results["noise"]["ndcg@10"]["mean"] + 0.2


def test_text_and_csv_formats_carry_the_same_numbers(table, capsys):
    path, y, good, _, qid = table
    common = ["evaluate", "--table", str(path), "--group", "query", "--y-true", "grade",
              "--y-score", "good model", "--metrics", "ndcg@10", "gauc"]
    expected = ranking_report(y, good, qid, metrics=["ndcg@10", "gauc"], output_dict=True)

    assert main([*common, "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [(row["run"], row["metric"]) for row in rows] == [
        ("good model", "ndcg@10"), ("good model", "gauc")
    ]
    for row in rows:
        stats = expected[row["metric"]]
        assert float(row["mean"]) == stats["mean"]  # repr round-trips
        assert float(row["std_err"]) == stats["std_err"]
        assert int(row["n_skipped"]) == stats["n_skipped"]

    assert main([*common, "--digits", "3"]) == 0
    text = capsys.readouterr().out
    assert "60 queries" in text.splitlines()[0]
    table_lines = [line.split() for line in text.splitlines() if line.startswith(("ndcg", "gauc"))]
    assert [line[0] for line in table_lines] == ["ndcg@10", "gauc"]
    for line in table_lines:
        assert float(line[1]) == pytest.approx(expected[line[0]]["mean"], abs=5e-4)


def test_per_query_csv_equals_evaluate(table, tmp_path, capsys):
    path, y, good, noise, qid = table
    out = tmp_path / "per_query.csv"
    assert main(["evaluate", "--table", str(path), "--group", "query", "--y-true", "grade",
                 "--y-score", "good model", "--y-score", "noise", "--metrics", "ndcg@10",
                 "map", "--per-query", str(out), "--replace-undefined-by", "skip"]) == 0
    capsys.readouterr()
    rows = list(csv.DictReader(open(out)))
    assert len(rows) == 120
    for name, scores in (("good model", good), ("noise", noise)):
        expected = evaluate(y, scores, qid, metrics=["ndcg@10", "map"], per_query=True,
                            replace_undefined_by="skip")
        got = [row for row in rows if row["run"] == name]
        assert [row["query"] for row in got] == list(expected["query"])
        for metric in ("ndcg@10", "map"):
            values = np.array([float(row[metric]) for row in got])
            np.testing.assert_array_equal(values, np.asarray(expected[metric]))


def test_letor_with_predictions(tmp_path):
    letor = tmp_path / "test.txt"
    letor.write_text(
        "2 qid:1 1:0.5 2:1\n0 qid:1 1:0.1\n1 qid:1 2:0.3\n"
        "0 qid:7 1:1\n1 qid:7 1:2\n"
    )
    predictions = tmp_path / "model.txt"
    predictions.write_text("0.9\n0.8\n0.1\n0.3\n0.7\n")
    result = run_cli("evaluate", "--letor", str(letor), "--predictions", str(predictions),
                     "--metrics", "mrr", "p@1", "ndcg@2", "--format", "json")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)["results"]["model.txt"]
    # by hand: query 1 ranks labels (2, 0, 1), query 7 ranks (1, 0)
    assert document["mrr"]["mean"] == 1.0
    assert document["p@1"]["mean"] == 1.0
    ideal_1 = 2 + 1 / math.log2(3)  # linear gains 2 then 1, discount log2(rank + 1)
    dcg_1 = 2 + 0 / math.log2(3)
    assert document["ndcg@2"]["mean"] == pytest.approx((dcg_1 / ideal_1 + 1.0) / 2, abs=1e-12)


def test_letor_without_qid_and_a_group_sizes_file(tmp_path):
    # the real sample as LightGBM ships it: no qid:, a .query file of rows per query
    from sklearn.linear_model import Ridge

    from sklearn_rank_metrics import evaluate
    from tests.support import lambdarank

    X, y, qid, sizes = lambdarank.load("test")
    X_train, y_train, _, _ = lambdarank.load("train")
    scores = Ridge().fit(X_train, y_train).predict(X)
    predictions = tmp_path / "ridge.txt"
    np.savetxt(predictions, scores, fmt="%.17g")
    folder = lambdarank.DATA_DIR
    arguments = ["evaluate", "--letor", str(folder / "rank.test.gz"), "--predictions",
                 str(predictions), "--metrics", "ndcg@10", "map", "--format", "json"]
    result = run_cli(*arguments, "--group-sizes", str(folder / "rank.test.query.gz"))
    assert result.returncode == 0, result.stderr
    got = json.loads(result.stdout)["results"]["ridge.txt"]
    expected = evaluate(y, scores, qid, metrics=["ndcg@10", "map"])
    for name, value in expected.items():
        assert got[name]["mean"] == pytest.approx(value, rel=1e-12)
        assert got[name]["n_queries"] == len(sizes)
    missing = run_cli(*arguments)
    assert missing.returncode == 2 and "--group-sizes FILE" in missing.stderr
    wrong = run_cli("evaluate", "--table", "t.csv", "--group-sizes", "x.query")
    assert wrong.returncode == 2 and "--group-sizes goes with --letor" in wrong.stderr


QRELS = """\
1 0 d1 2
1 0 d2 0
1 0 d3 1
1 0 d9 1
2 0 d4 1
2 0 d5 0
3 0 d8 1
"""
RUN = """\
1 Q0 d1 1 3.0 run
1 Q0 d2 2 2.0 run
1 Q0 d7 3 1.0 run
1 Q0 d3 4 0.5 run
2 Q0 d5 1 2.0 run
2 Q0 d4 2 1.0 run
4 Q0 d6 1 1.0 run
"""


def test_trec_runs_match_pytrec_eval(tmp_path, capsys):
    import pytrec_eval

    qrels_path, run_path = tmp_path / "qrels.txt", tmp_path / "system.run"
    qrels_path.write_text(QRELS)
    run_path.write_text(RUN)
    # the default (and -c) averages over the qrels' queries, as trec_eval -c;
    # --answered-only over the queries the run answers, as trec_eval without -c
    for flag, keep in (([], True), (["-c"], True), (["--answered-only"], False)):
        assert main(["evaluate", "--qrels", str(qrels_path), "--run", str(run_path),
                     "--metrics", "map", "ndcg", "p@5", "--format", "json", *flag]) == 0
        document = json.loads(capsys.readouterr().out)
        assert document["n_dropped_queries"] == {"system.run": 1}  # query 4: run only
        got = document["results"]["system.run"]
        qrels = pytrec_eval.parse_qrel(io.StringIO(QRELS))
        run = pytrec_eval.parse_run(io.StringIO(RUN))
        per_query = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg", "P_5"}).evaluate(run)
        n_queries = 3 if keep else 2  # query 3 is only in the qrels: 0 with -c (trec_eval -c)
        if keep:
            assert document["n_answered_queries"] == {"system.run": 2}
        for ours, theirs in (("map", "map"), ("ndcg", "ndcg"), ("p@5", "P_5")):
            expected = sum(values[theirs] for values in per_query.values()) / n_queries
            assert got[ours]["mean"] == pytest.approx(expected, abs=1e-12), (ours, keep)
            assert got[ours]["n_queries"] == n_queries


def test_run_from_standard_input_and_per_query_to_standard_output(tmp_path):
    qrels_path, run_path = tmp_path / "qrels.txt", tmp_path / "system.run"
    qrels_path.write_text(QRELS)
    run_path.write_text(RUN)
    common = ["evaluate", "--qrels", str(qrels_path), "--metrics", "map", "ndcg"]
    from_file = run_cli(*common, "--run", str(run_path), "--per-query",
                        str(tmp_path / "per_query.csv"))
    piped = subprocess.run(
        [sys.executable, "-m", "sklearn_rank_metrics", *common, "--run", "-",
         "--per-query", "-"],
        input=RUN, capture_output=True, text=True, timeout=120,
    )
    assert from_file.returncode == 0 and piped.returncode == 0, piped.stderr
    report, per_query = piped.stdout.split("\nrun,query,", 1)
    # the same report, the run named "stdin" instead of its file name
    assert report.strip() == from_file.stdout.strip().replace("system.run", "stdin")
    written = (tmp_path / "per_query.csv").read_text()
    assert ("run,query," + per_query).strip() == written.strip().replace("system.run", "stdin")
    assert not (tmp_path / "-").exists() and not os.path.exists("-")
    twice = run_cli(*common, "--run", "-", "--run", "-")
    assert twice.returncode == 2 and "--run - (standard input) can be given once" in twice.stderr


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["evaluate"], "exactly one of --table, --letor, --qrels"),
        (["evaluate", "--table", "missing.csv"], "missing.csv"),
        (["evaluate", "--qrels", "q.txt"], "--qrels needs at least one --run"),
        (["evaluate", "--letor", "x.txt"], "--letor needs at least one --predictions"),
        (["evaluate", "--table", "t.csv", "--run", "r"], "--run goes with --qrels"),
        (["evaluate", "--table", "t.csv", "--format", "xml"], "invalid choice: 'xml'"),
        (["evaluate", "--table", "t.csv", "--replace-undefined-by", "zero"],
         "--replace-undefined-by must be"),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
        ([], "the following arguments are required: COMMAND"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(arguments, message, capsys):
    assert main(arguments) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("rank-metrics: error: ")
    assert message in lines[0]


@pytest.fixture(scope="module")
def small_csv(tmp_path_factory):
    path = tmp_path_factory.mktemp("settings") / "t.csv"
    path.write_text("group,y_true,y_score\nq,1,0.5\nq,0,0.7\nr,0,0.2\nr,2,0.9\n")
    return path


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--replace-undefined-by", "2"], "'replace_undefined_by' parameter of rank-metrics"),
        (["--replace-undefined-by", "0.5"], "'replace_undefined_by' parameter"),
        (["--replace-undefined-by", "-1"], "'replace_undefined_by' parameter"),
        (["--replace-undefined-by", "inf"], "'replace_undefined_by' parameter"),
        (["--relevance-level", "nan"], "'relevance_level' parameter of rank-metrics"),
        (["--digits", "-1"], "--digits: must be an int from 0 to 17"),
    ],
)
def test_cli_settings_are_checked_as_in_python_before_any_output(small_csv, arguments, message):
    result = run_cli("evaluate", "--table", str(small_csv), "--metrics", "ndcg", "map", *arguments)
    assert result.returncode == 2
    assert result.stdout == ""  # nothing of the report is printed
    assert message in result.stderr and result.stderr.count("\n") == 1


def test_the_same_settings_are_refused_by_the_python_api():
    y, s, g = [1, 0, 0, 2], [0.5, 0.7, 0.2, 0.9], ["q", "q", "r", "r"]
    with pytest.raises(ValueError, match="'replace_undefined_by' parameter of evaluate"):
        evaluate(y, s, g, metrics=["ndcg"], replace_undefined_by=2.0)
    with pytest.raises(ValueError, match="'relevance_level' parameter of ranking_report"):
        ranking_report(y, s, g, relevance_level=float("nan"))


def test_bad_file_content_exits_2_naming_the_file(table, tmp_path):
    path = table[0]
    result = run_cli("evaluate", "--table", str(path), "--group", "query", "--y-true",
                     "grade", "--y-score", "no such column")
    assert result.returncode == 2 and result.stdout == ""
    assert len(result.stderr.splitlines()) == 1
    assert "no such column" in result.stderr and "scores.csv" in result.stderr
    bad_metric = run_cli("evaluate", "--table", str(path), "--group", "query", "--y-true",
                         "grade", "--y-score", "noise", "--metrics", "ndgc@10")
    assert bad_metric.returncode == 2 and "ndgc" in bad_metric.stderr
    assert len(bad_metric.stderr.splitlines()) == 1


def test_help_lists_every_option():
    result = run_cli("evaluate", "--help")
    assert result.returncode == 0
    for option in ("--table", "--y-true", "--y-score", "--group", "--letor", "--predictions",
                   "--qrels", "--run", "--keep-unretrieved-queries", "--metrics", "--ties",
                   "--replace-undefined-by", "--relevance-level", "--format", "--digits",
                   "--per-query", "--baseline", "--resamples", "--seed", "--group-sizes"):
        assert option in result.stdout
    top = run_cli("--help")
    assert "evaluate" in top.stdout and "demo" in top.stdout and "Exit status" in top.stdout


def test_metrics_help_names_every_registry_metric():
    from sklearn_rank_metrics._metrics._registry import METRICS

    help_text = " ".join(run_cli("evaluate", "--help").stdout.split())
    listed = help_text.split("metric names as in evaluate():", 1)[1].split("with parameters", 1)[0]
    names = {item.strip().removesuffix("[@k]") for item in listed.split(",") if item.strip()}
    assert names == set(METRICS)


def test_progress_shows_elapsed_time_only_for_slow_steps():
    stream = io.StringIO()
    with _progress("reading big.txt", stream=stream, delay=0.05, interval=0.05, force=True):
        time.sleep(0.3)
    text = stream.getvalue()
    assert "reading big.txt ... " in text and text.endswith("s\n") and "done in" in text
    quiet = io.StringIO()
    with _progress("reading small.txt", stream=quiet, delay=5.0, force=True):
        pass
    assert quiet.getvalue() == ""
    # not a terminal and not forced: nothing, however slow
    piped = io.StringIO()
    with _progress("reading big.txt", stream=piped, delay=0.0, interval=0.01):
        time.sleep(0.05)
    assert piped.getvalue() == ""


def test_progress_line_shows_control_characters_in_file_names_as_escapes():
    # "reading <file>" reached the terminal raw: ESC sequences in a file name acted
    stream = io.StringIO()
    with _cli._progress("reading a\x1b[2J\nb.txt", stream=stream, delay=0.0,
                        interval=0.01, force=True):
        time.sleep(0.05)
    text = stream.getvalue()
    assert "\x1b" not in text and "\n" not in text[:-1], repr(text)
    assert text.startswith("\rreading a\\x1b[2J\\nb.txt ... ")
    assert text.endswith("s\n") and "\rreading a\\x1b[2J\\nb.txt ... done in " in text


def test_baseline_comparison_equals_compare(table, capsys):
    from sklearn_rank_metrics import compare

    path, y, good, noise, qid = table
    assert main(["evaluate", "--table", str(path), "--group", "query", "--y-true", "grade",
                 "--y-score", "good model", "--y-score", "noise", "--baseline", "noise",
                 "--metrics", "ndcg@10", "map", "--resamples", "500", "--seed", "3",
                 "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["comparison"]
    expected = compare(y, {"good model": good, "noise": noise}, qid, metrics=["ndcg@10", "map"],
                       baseline="noise", n_resamples=500, random_state=3).table
    assert [(row["metric"], row["model_a"], row["model_b"]) for row in rows] == [
        ("ndcg@10", "good model", "noise"), ("map", "good model", "noise")
    ]
    for position, row in enumerate(rows):
        for column in ("mean_difference", "ci_low_bca", "ci_high_percentile", "p_value_t",
                       "p_value_permutation"):
            assert row[column] == pytest.approx(float(expected[column][position]), abs=1e-12)
    assert main(["evaluate", "--table", str(path), "--group", "query", "--y-true", "grade",
                 "--y-score", "good model", "--y-score", "noise", "--baseline", "noise",
                 "--metrics", "ndcg@10", "--resamples", "200"]) == 0
    text = capsys.readouterr().out
    assert "Paired comparison with 'noise'" in text
    # the comparison table: runs as rows (good model: a, noise: b), then the comparison
    comparison = text.split("Paired comparison", 1)[1].splitlines()
    assert any(line.split()[:3] == ["a", "good", "model"] for line in comparison)
    difference = next(line for line in comparison if "difference" in line)
    assert difference.split()[:7] == ["a", "good", "model", "vs", "b", "noise", "difference"]
    # csv: the report, a blank line, then the comparison table's columns
    assert main(["evaluate", "--table", str(path), "--group", "query", "--y-true", "grade",
                 "--y-score", "good model", "--y-score", "noise", "--baseline", "noise",
                 "--metrics", "ndcg@10", "--resamples", "200", "--format", "csv"]) == 0
    report, comparison = capsys.readouterr().out.split("\n\n")
    rows = list(csv.DictReader(io.StringIO(comparison)))
    assert [(row["metric"], row["model_a"], row["model_b"]) for row in rows] == [
        ("ndcg@10", "good model", "noise")
    ]
    assert report.splitlines()[0].startswith("run,metric,mean")


def test_integer_query_ids_give_the_api_numbers(table, tmp_path, capsys):
    # integer ids in the file stay integers, so per-query order and the resampling
    # (and with it every interval and p-value) are those of the API on the same ids
    from sklearn_rank_metrics import compare

    _, y, good, noise, qid = table
    numbers = np.array([int(q[1:]) for q in qid])  # 0..59: as text "10" < "9"
    path = tmp_path / "int_ids.csv"
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["query", "grade", "good model", "noise"])
        for row in zip(numbers, y, good, noise, strict=True):
            writer.writerow([row[0], *(repr(float(v)) for v in row[1:])])
    assert main(["evaluate", "--table", str(path), "--group", "query", "--y-true", "grade",
                 "--y-score", "good model", "--y-score", "noise", "--baseline", "noise",
                 "--metrics", "ndcg@10", "--resamples", "300", "--seed", "5",
                 "--format", "json", "--per-query", str(tmp_path / "per_query.csv")]) == 0
    (row,) = json.loads(capsys.readouterr().out)["comparison"]
    expected = compare(y, {"good model": good, "noise": noise}, numbers, metrics=["ndcg@10"],
                       baseline="noise", n_resamples=300, random_state=5).table
    for column in ("mean_difference", "ci_low_percentile", "ci_high_bca", "p_value_permutation"):
        assert row[column] == float(expected[column][0]), column
    with open(tmp_path / "per_query.csv", newline="") as handle:
        queries = [line["query"] for line in csv.DictReader(handle)]
    assert queries[:12] == [str(q) for q in range(12)]  # numeric order, not 0, 1, 10, 11


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--baseline", "other"], "--baseline 'other' is not one of the runs"),
        (["--baseline", "noise", "--format", "trec_eval"], "with --format text, json, csv"),
        (["--baseline", "noise", "--alpha", "1.5"], "--alpha must be in (0, 1)"),
    ],
)
def test_baseline_errors(table, extra, message, capsys):
    path = table[0]
    assert main(["evaluate", "--table", str(path), "--group", "query", "--y-true", "grade",
                 "--y-score", "good model", "--y-score", "noise", *extra]) == 2
    assert message in capsys.readouterr().err


@pytest.fixture
def two_runs(tmp_path):
    """A table with two score columns (for --baseline) and 3 queries."""
    path = tmp_path / "runs.csv"
    path.write_text(
        "group,y_true,a,b\n"
        "q1,1,0.9,0.1\nq1,0,0.2,0.8\n"
        "q2,2,0.5,0.4\nq2,0,0.1,0.6\n"
        "q3,1,0.3,0.3\nq3,0,0.7,0.2\n"
    )
    return ["evaluate", "--table", str(path), "--y-score", "a", "--y-score", "b",
            "--metrics", "map"]


def one_error_line(captured):
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("rank-metrics: error: "), lines[0]
    return lines[0]


@pytest.mark.parametrize("value", ["1000000000", "1000001", "0", "-5", "10**9"])
def test_resamples_out_of_bounds_is_refused_in_one_line(two_runs, value, capsys):
    # 10**9 resamples ended in a MemoryError traceback (a 37 GB distribution)
    assert main([*two_runs, "--baseline", "a", "--resamples", value]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    line = one_error_line(captured)
    assert "--resamples" in line and "1,000,000" in line and repr(value) in line


def test_resamples_limit_is_inclusive_and_documented():
    parser = _cli._build_parser()
    args = parser.parse_args(["evaluate", "--table", "t.csv", "--resamples", "1000000"])
    assert args.resamples == 1_000_000 == _cli.MAX_RESAMPLES
    assert "1,000,000" in " ".join(
        parser._subparsers._group_actions[0].choices["evaluate"].format_help().split()
    )


@pytest.mark.parametrize(
    "option, value",
    [("--alpha", "0.01"), ("--correction", "holm"), ("--resamples", "50"), ("--seed", "3")],
)
def test_comparison_options_without_baseline_are_refused(two_runs, option, value, capsys):
    # they were accepted and silently ignored
    assert main([*two_runs, option, value]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    line = one_error_line(captured)
    assert f"{option} goes with --baseline" in line


def test_comparison_options_with_baseline_still_apply(two_runs, capsys):
    assert main([*two_runs, "--baseline", "a", "--alpha", "0.2", "--correction", "holm",
                 "--resamples", "40", "--seed", "1", "--format", "json"]) == 0
    comparison = json.loads(capsys.readouterr().out)["comparison"]
    assert len(comparison) == 1 and "p_value_permutation_holm" in comparison[0]


# the markers and win/tie/loss read each metric's declared direction. The data of
# tests/stats/test_direction.py: "good" has the lower fall-out@1 (better) and the
# higher nDCG@1 on 8 of 10 queries, level on 2 (by hand)
N_QUERIES = 10


def _direction_table(path):
    y = np.tile([1, 0, 0, 0], N_QUERIES)
    group = np.repeat(np.arange(N_QUERIES), 4)
    good = np.tile([4.0, 3.0, 2.0, 1.0], N_QUERIES)
    bad = good.copy()
    bad[: 4 * 8] = np.tile([1.0, 4.0, 3.0, 2.0], 8)
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["query", "grade", "good", "bad"])
        for row in zip(group, y, good, bad, strict=True):
            writer.writerow([f"q{row[0]}", *(repr(float(v)) for v in row[1:])])
    return path


def _direction_arguments(path, *extra):
    return [
        "evaluate", "--table", str(path), "--group", "query", "--y-true", "grade",
        "--y-score", "good", "--y-score", "bad", "--baseline", "bad",
        "--metrics", "fallout@1", "ndcg@1", "--resamples", "1024", *extra,
    ]  # fmt: skip


def test_baseline_markers_credit_the_lower_fallout(tmp_path, capsys):
    path = _direction_table(tmp_path / "scores.csv")
    assert main(_direction_arguments(path)) == 0
    lines = capsys.readouterr().out.split("Paired comparison", 1)[1].splitlines()
    good = next(line for line in lines if line.split()[:2] == ["a", "good"])
    bad = next(line for line in lines if line.split()[:2] == ["b", "bad"])
    assert good.split()[2:] == ["0.0000ᵇ", "1.0000ᵇ"]
    assert bad.split()[2:] == ["0.2667", "0.2000"]
    wins = next(line for line in lines if "win/tie/loss" in line)
    assert wins.split()[-2:] == ["8/2/0", "8/2/0"]


def test_baseline_json_wins_read_the_direction(tmp_path, capsys):
    path = _direction_table(tmp_path / "scores.csv")
    assert main(_direction_arguments(path, "--format", "json")) == 0
    rows = json.loads(capsys.readouterr().out)["comparison"]
    fallout = next(row for row in rows if row["metric"] == "fallout@1")
    assert (fallout["wins"], fallout["ties"], fallout["losses"]) == (8, 2, 0)


OTHER_RUN = """1 Q0 d2 1 3.0 other
1 Q0 d9 2 2.0 other
2 Q0 d4 1 1.0 other
3 Q0 d5 1 1.0 other
"""


def test_trec_runs_compared_on_the_qrels_queries(tmp_path, capsys):
    # two runs that return different documents and answer different queries: both
    # are averaged over the qrels' three queries, and --baseline compares them there
    import pytrec_eval

    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "a.run").write_text(RUN)
    (tmp_path / "b.run").write_text(OTHER_RUN)
    common = ["evaluate", "--qrels", str(tmp_path / "qrels.txt"), "--run",
              str(tmp_path / "a.run"), "--run", str(tmp_path / "b.run"), "--metrics", "map",
              "P_5"]
    assert main([*common, "--baseline", "b.run", "--resamples", "50", "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    qrels = pytrec_eval.parse_qrel(io.StringIO(QRELS))
    expected = {}
    for name, text in (("a.run", RUN), ("b.run", OTHER_RUN)):
        tool = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P_5"}).evaluate(
            pytrec_eval.parse_run(io.StringIO(text))
        )
        expected[name] = {m: sum(tool.get(q, {}).get(m, 0.0) for q in qrels) / len(qrels)
                          for m in ("map", "P_5")}
        assert document["n_queries"][name] == len(qrels) == 3
    assert document["n_answered_queries"] == {"a.run": 2, "b.run": 3}
    for name in expected:
        got = document["results"][name]
        assert got["map"]["mean"] == pytest.approx(expected[name]["map"], abs=1e-12)
        assert got["p@5"]["mean"] == pytest.approx(expected[name]["P_5"], abs=1e-12)
    (row,) = [r for r in document["comparison"] if r["metric"] == "map"]
    assert row["mean_difference"] == pytest.approx(
        expected["a.run"]["map"] - expected["b.run"]["map"], abs=1e-12
    )
    assert row["n_queries"] == 3
    # the text header says how many queries each run answered
    assert main(common) == 0
    assert (
        "3 queries, every run averaged over all of them, a query it did not answer at 0 as "
        "trec_eval -c (answered: a.run 2, b.run 3)"
    ) in capsys.readouterr().out
    # side by side over different query sets only when asked, and never compared
    assert main([*common, "--answered-only", "--baseline", "b.run"]) == 2
    assert "drop --answered-only" in capsys.readouterr().err
    assert main([*common, "--answered-only", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["n_queries"] == {"a.run": 2, "b.run": 3}


def test_trec_eval_names_on_the_command_line_print_in_canonical_form(tmp_path):
    import pytrec_eval

    qrels_path, run_path = tmp_path / "qrels.txt", tmp_path / "system.run"
    qrels_path.write_text(QRELS)
    run_path.write_text(RUN)
    result = run_cli("evaluate", "--qrels", str(qrels_path), "--run", str(run_path),
                     "--metrics", "map_cut_5", "ndcg_cut_5", "P_5", "recip_rank", "-c",
                     "--format", "json")
    assert result.returncode == 0, result.stderr
    got = json.loads(result.stdout)["results"]["system.run"]
    assert sorted(got) == ["map@5", "mrr", "ndcg@5", "p@5"]
    qrels = pytrec_eval.parse_qrel(io.StringIO(QRELS))
    run = pytrec_eval.parse_run(io.StringIO(RUN))
    names = {"map_cut_5": "map@5", "ndcg_cut_5": "ndcg@5", "P_5": "p@5", "recip_rank": "mrr"}
    per_query = pytrec_eval.RelevanceEvaluator(
        qrels, {"map_cut.5", "ndcg_cut.5", "P.5", "recip_rank"}
    ).evaluate(run)
    for theirs, ours in names.items():
        expected = sum(values[theirs] for values in per_query.values()) / 3  # -c: 3 queries
        assert got[ours]["mean"] == pytest.approx(expected, abs=1e-12), theirs
    typo = run_cli("evaluate", "--qrels", str(qrels_path), "--run", str(run_path),
                   "--metrics", "precison@5")
    assert typo.returncode == 2 and "Did you mean 'p@5'" in typo.stderr


TIED_QRELS = """1 0 a 1
1 0 b 0
1 0 c 2
2 0 a 1
2 0 b 0
2 0 c 0
"""
# query 1: a and b tie; query 2: a and b differ only beyond float32 (a higher in
# float64), so trec_eval 9 (float scores) ties them and puts b first by docno
# descending, while trec_eval 10 (double) ranks a first
TIED_RUN = """1 Q0 a 1 0.5 run
1 Q0 b 2 0.5 run
1 Q0 c 3 0.1 run
2 Q0 a 1 0.25000000001 run
2 Q0 b 2 0.25 run
2 Q0 c 3 0.1 run
"""


def test_trec_files_default_to_the_trec_eval_convention(tmp_path, capsys):
    import pytrec_eval

    qrels_path, run_path = tmp_path / "qrels.txt", tmp_path / "tied.run"
    qrels_path.write_text(TIED_QRELS)
    run_path.write_text(TIED_RUN)
    qrels = pytrec_eval.parse_qrel(io.StringIO(TIED_QRELS))
    run = pytrec_eval.parse_run(io.StringIO(TIED_RUN))
    tool = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P_1", "recip_rank"}).evaluate(run)
    common = ["evaluate", "--qrels", str(qrels_path), "--run", str(run_path),
              "--metrics", "map", "P_1", "recip_rank"]
    assert main([*common, "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["convention"] == "trec_eval"
    got = document["results"]["tied.run"]
    # by hand, trec_eval 10 (scores in double precision): query 1 ties a and b, b
    # first by docno descending (RR 1/2, P@1 0); query 2 ranks a first (RR 1, P@1 1)
    assert got["mrr"]["mean"] == 0.75 and got["p@1"]["mean"] == 0.5
    # trec_eval 9 (pytrec_eval) reads scores as float: query 2 ties too
    assert main([*common, "--convention", "pytrec_eval", "--format", "json"]) == 0
    got = json.loads(capsys.readouterr().out)["results"]["tied.run"]
    for ours, theirs in (("map", "map"), ("p@1", "P_1"), ("mrr", "recip_rank")):
        expected = sum(values[theirs] for values in tool.values()) / 2
        assert got[ours]["mean"] == pytest.approx(expected, abs=1e-12), ours
    # by hand: both queries rank b (not relevant) before a (relevant): RR 1/2, P@1 0
    assert got["mrr"]["mean"] == 0.5 and got["p@1"]["mean"] == 0.0
    # the header says which convention; "none" averages the ties instead
    assert main(common) == 0
    header = capsys.readouterr().out.split("\n\n")[0].splitlines()
    (line,) = [line for line in header if line.startswith("convention: ")]
    # the preset is about ties, precision and levels; the query set is the first line's
    assert line.startswith("convention: trec_eval") and "-c" not in line
    assert main([*common, "--convention", "none", "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["convention"] == "none"
    # query 1: (1 + 1/2) / 2 over the two orders of a and b; query 2: a first, 1
    # (read_trec keeps the scores as written)
    assert document["results"]["tied.run"]["mrr"]["mean"] == (0.75 + 1.0) / 2
    # an explicit option wins over the preset
    assert main([*common, "--ties", "optimistic", "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["results"]["tied.run"]["mrr"]["mean"] == 1.0


def test_trec_eval_markdown_and_latex_formats(tmp_path, capsys):
    import pytrec_eval

    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "a.run").write_text(RUN)
    (tmp_path / "b.run").write_text(OTHER_RUN)
    common = ["evaluate", "--qrels", str(tmp_path / "qrels.txt"), "--run",
              str(tmp_path / "a.run"), "--run", str(tmp_path / "b.run"), "--metrics", "map",
              "P_5"]
    # trec_eval -q's lines run after run: the measures as named, every qrels query
    # (-c), then runid (the run's tag), num_q and "all" (layout: test_trec_eval_layout)
    assert main([*common, "--format", "trec_eval"]) == 0
    lines = capsys.readouterr().out.splitlines()
    qrels = pytrec_eval.parse_qrel(io.StringIO(QRELS))
    expected = []
    for tag, text in (("run", RUN), ("other", OTHER_RUN)):
        tool = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P_5"}).evaluate(
            pytrec_eval.parse_run(io.StringIO(text))
        )
        values = {
            m: {q: tool.get(q, {}).get(m, 0.0) for q in sorted(qrels)} for m in ("map", "P_5")
        }
        expected += [f"{m:<22}\t{q}\t{values[m][q]:.4f}" for q in sorted(qrels) for m in values]
        expected += [f"{'runid':<22}\tall\t{tag}", f"{'num_q':<22}\tall\t3"]
        expected += [f"{m:<22}\tall\t{np.mean(list(values[m].values())):.4f}" for m in values]
    assert lines == expected
    # Markdown: runs as rows, metrics as columns; with --baseline, the comparison's tables
    assert main([*common, "--format", "markdown"]) == 0
    text = capsys.readouterr().out
    assert "| a | a.run |" in text and "| b | b.run |" in text and "---:" in text
    assert main([*common, "--format", "latex", "--baseline", "a.run", "--resamples", "50"]) == 0
    latex = capsys.readouterr().out
    assert r"\toprule" in latex and "paired randomisation test" in latex
    assert "b.run vs a a.run" in latex


# ---------------------------------------------------------------------------
# Issue 31, item 7: one query set for the command line and the Python API, a header
# that says which, and trec_eval -q's own layout
# ---------------------------------------------------------------------------

# six queries in the qrels (12 has no line in the run: unanswered), one only in the
# run (99, dropped); ids whose byte order ("10" < "7") is not their numeric order
SIX_QRELS = """\
10 0 d1 1
10 0 d2 0
10 0 d3 1
11 0 d4 1
11 0 d5 0
12 0 d6 1
12 0 d7 1
7 0 d8 0
7 0 d9 1
8 0 d10 1
9 0 d11 0
9 0 d12 2
"""
# no tied scores; trec_eval keeps the tag of the file's last line as its runid
FIVE_RUN = """\
10 Q0 d2 1 3.0 tagA
10 Q0 d1 2 2.0 tagA
10 Q0 d99 3 1.0 tagA
11 Q0 d5 1 2.0 tagA
11 Q0 d4 2 1.0 tagA
7 Q0 d9 1 1.0 tagA
8 Q0 d1 1 5.0 tagA
8 Q0 d10 2 4.0 tagA
8 Q0 d3 3 3.0 tagA
9 Q0 d11 1 2.0 tagA
9 Q0 d12 2 1.0 tagA
99 Q0 d1 1 1.0 tagB
"""
# AP by hand: 10: relevant at rank 2 of 2 relevant, 1/2 / 2 = 0.25; 11: 1/2; 12: not
# answered, 0; 7: 1; 8: 1/2; 9: 1/2. P@5: one relevant in each answered top 5.
SIX_AP = {"10": 0.25, "11": 0.5, "12": 0.0, "7": 1.0, "8": 0.5, "9": 0.5}


@pytest.fixture
def six_queries(tmp_path):
    (tmp_path / "qrels.txt").write_text(SIX_QRELS)
    (tmp_path / "five.run").write_text(FIVE_RUN)
    return tmp_path / "qrels.txt", tmp_path / "five.run"


def test_cli_and_read_trec_average_over_the_same_queries(six_queries, capsys):
    import pytrec_eval

    from sklearn_rank_metrics import align_trec_runs, read_trec

    qrels_path, run_path = six_queries
    qrels = pytrec_eval.parse_qrel(io.StringIO(SIX_QRELS))
    tool = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P_5"}).evaluate(
        pytrec_eval.parse_run(io.StringIO(FIVE_RUN))
    )
    assert {q: v["map"] for q, v in tool.items()} == {q: v for q, v in SIX_AP.items() if v}
    # the default: trec_eval -c, pytrec_eval's mean with the unanswered query at 0
    c_map = sum(v["map"] for v in tool.values()) / 6
    assert c_map == pytest.approx(sum(SIX_AP.values()) / 6, abs=1e-15)
    data = read_trec(qrels_path, run_path)
    aligned = align_trec_runs(qrels_path, [run_path])
    api = evaluate(data.y_true, data.y_score, data.group, metrics=["map", "P_5"],
                   convention="trec_eval", doc_id=data.doc_id)
    assert api["map"] == pytest.approx(c_map, abs=1e-12)
    assert api["P_5"] == pytest.approx(sum(v["P_5"] for v in tool.values()) / 6, abs=1e-12)
    assert len(np.unique(data.group)) == aligned.n_queries == 6
    assert data.n_answered_queries == aligned.n_answered["five.run"] == 5
    assert "n_queries=6, n_answered_queries=5, n_dropped_queries=1" in repr(data)
    assert main(["evaluate", "--qrels", str(qrels_path), "--run", str(run_path),
                 "--metrics", "map", "P_5", "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["results"]["five.run"]["map"]["mean"] == pytest.approx(api["map"], abs=1e-15)
    assert document["n_queries"] == {"five.run": 6}
    assert document["answered_only"] is False
    assert document["n_answered_queries"] == {"five.run": 5}
    # the other spelling: the queries the run answered (trec_eval without -c)
    answered = read_trec(qrels_path, run_path, answered_only=True)
    api = evaluate(answered.y_true, answered.y_score, answered.group, metrics=["map"],
                   convention="trec_eval", doc_id=answered.doc_id)
    assert api["map"] == pytest.approx(sum(v["map"] for v in tool.values()) / 5, abs=1e-12)
    assert main(["evaluate", "--qrels", str(qrels_path), "--run", str(run_path),
                 "--metrics", "map", "--format", "json", "--answered-only"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["results"]["five.run"]["map"]["mean"] == pytest.approx(api["map"], abs=1e-15)
    assert document["n_queries"] == {"five.run": 5}
    assert document["answered_only"] is True
    assert document["n_qrels_queries"] == 6


def test_the_header_says_which_queries_are_averaged(six_queries, capsys):
    qrels_path, run_path = six_queries
    common = ["evaluate", "--qrels", str(qrels_path), "--run", str(run_path), "--metrics",
              "map"]
    assert main(common) == 0
    header = capsys.readouterr().out.split("\n\n")[0].splitlines()
    assert header[0] == (
        f"{qrels_path}: 6 queries, every run averaged over all of them, a query it did not "
        "answer at 0 as trec_eval -c (answered: five.run 5)"
    )
    assert main([*common, "--answered-only"]) == 0
    header = capsys.readouterr().out.split("\n\n")[0].splitlines()
    assert header[0] == (
        f"{qrels_path}: 6 queries; each run averaged over the queries it answered, as "
        "trec_eval without -c (answered: five.run 5)"
    )
    # no line claims trec_eval -c (the convention is about ties and levels only)
    assert not any("-c" in line and "without -c" not in line for line in header)
    assert main([*common, "--answered-only", "--format", "markdown"]) == 0
    # Markdown escapes the "_" of the path (issue 32)
    assert f"Means over the queries each run answered in {qrels_path} (five.run: 5)." in (
        capsys.readouterr().out.replace("\\_", "_")
    )


def test_the_header_counts_one_query_in_the_singular(tmp_path, capsys):
    qrels, run, table = tmp_path / "one.qrels", tmp_path / "two.run", tmp_path / "t.csv"
    qrels.write_text("q 0 a 1\n")
    run.write_text("q Q0 a 1 0.5 x\nz Q0 a 1 0.5 x\n")  # z: only in the run, dropped
    table.write_text("y_true,y_score,group\n1,0.5,1\n")
    assert _cli.main(["evaluate", "--qrels", str(qrels), "--run", str(run),
                      "--metrics", "map"]) == 0
    header = capsys.readouterr().out.split("\n\n", 1)[0]
    assert f"{qrels}: 1 query, every run" in header
    assert "two.run: 1 query only in the run was dropped" in header
    assert "1 queries" not in header
    assert _cli.main(["evaluate", "--table", str(table), "--metrics", "map"]) == 0
    assert capsys.readouterr().out.startswith(f"{table}: y_score: 1 query\n")


# trec_eval 10 -q -c, written from its source (trec_eval.c evaluates every qrels
# query, the unanswered one with an empty ranking, and prints each query's lines in
# the loop; then the summary in measures.c's order: runid, num_q, then num_rel before
# map before P; "%-22s\t%s\t%6.4f", counts "%ld"; queries sorted by strcmp). Values:
# SIX_AP and P@5 by hand above, num_rel counted in SIX_QRELS.
TREC_EVAL_C_TEXT = """\
num_rel               \t10\t2
map                   \t10\t0.2500
P_5                   \t10\t0.2000
num_rel               \t11\t1
map                   \t11\t0.5000
P_5                   \t11\t0.2000
num_rel               \t12\t2
map                   \t12\t0.0000
P_5                   \t12\t0.0000
num_rel               \t7\t1
map                   \t7\t1.0000
P_5                   \t7\t0.2000
num_rel               \t8\t1
map                   \t8\t0.5000
P_5                   \t8\t0.2000
num_rel               \t9\t1
map                   \t9\t0.5000
P_5                   \t9\t0.2000
runid                 \tall\ttagB
num_q                 \tall\t6
num_rel               \tall\t8
map                   \tall\t0.4583
P_5                   \tall\t0.1667
"""
# trec_eval without -c: the answered queries only (map 2.75 / 5, P_5 1.0 / 5)
TREC_EVAL_TEXT = """\
num_rel               \t10\t2
map                   \t10\t0.2500
P_5                   \t10\t0.2000
num_rel               \t11\t1
map                   \t11\t0.5000
P_5                   \t11\t0.2000
num_rel               \t7\t1
map                   \t7\t1.0000
P_5                   \t7\t0.2000
num_rel               \t8\t1
map                   \t8\t0.5000
P_5                   \t8\t0.2000
num_rel               \t9\t1
map                   \t9\t0.5000
P_5                   \t9\t0.2000
runid                 \tall\ttagB
num_q                 \tall\t5
num_rel               \tall\t6
map                   \tall\t0.5500
P_5                   \tall\t0.2000
"""


def test_trec_eval_layout(six_queries, capsys):
    import pytrec_eval

    qrels_path, run_path = six_queries
    common = ["evaluate", "--qrels", str(qrels_path), "--run", str(run_path), "--metrics",
              "num_rel", "map", "P_5", "--format", "trec_eval"]
    assert main(common) == 0
    assert capsys.readouterr().out == TREC_EVAL_C_TEXT
    assert main([*common, "--answered-only"]) == 0
    assert capsys.readouterr().out == TREC_EVAL_TEXT
    # the per-query values are pytrec_eval's, the unanswered query's those of the
    # empty ranking trec_eval -c evaluates (pytrec_eval given one unjudged document)
    qrels = pytrec_eval.parse_qrel(io.StringIO(SIX_QRELS))
    run = pytrec_eval.parse_run(io.StringIO(FIVE_RUN))
    run["12"] = {"not-a-document": 1.0}
    tool = pytrec_eval.RelevanceEvaluator(qrels, {"num_rel", "map", "P_5"}).evaluate(run)
    for line in TREC_EVAL_C_TEXT.splitlines():
        name, query, value = line.split("\t")
        if query != "all" and name.strip() != "num_rel":
            assert value == f"{tool[query][name.strip()]:6.4f}", line
        elif query != "all":
            assert value == f"{tool[query]['num_rel']:.0f}", line


# ---------------------------------------------------------------------------
# Issue 31, item 12: --baseline takes what --run (--predictions) took
# ---------------------------------------------------------------------------


def test_baseline_accepts_the_run_path_as_typed_or_the_name_shown(six_queries, tmp_path,
                                                                  capsys):
    qrels_path, run_path = six_queries
    other = tmp_path / "other.run"
    other.write_text(FIVE_RUN.replace("10 Q0 d2 1 3.0", "10 Q0 d2 1 0.5"))
    common = ["evaluate", "--qrels", str(qrels_path), "--run", str(run_path), "--run",
              str(other), "--metrics", "map", "--resamples", "20", "--format", "json"]
    comparisons = []
    # the name shown, the path as typed, or the same file spelled another way
    respelled = str(run_path.parent / "." / ".." / run_path.parent.name / run_path.name)
    for baseline in (str(run_path), "five.run", respelled):
        assert main([*common, "--baseline", baseline]) == 0
        comparisons.append(json.loads(capsys.readouterr().out)["comparison"])
    assert comparisons[0] == comparisons[1] == comparisons[2]
    (row,) = comparisons[0]
    assert (row["model_a"], row["model_b"]) == ("other.run", "five.run")
    # the text report names the run as it is shown
    assert main([*common[:-2], "--baseline", str(run_path)]) == 0
    assert "Paired comparison with 'five.run':" in capsys.readouterr().out
    # anything else is refused before a file is read, naming both spellings
    for wrong in ("./five.run", "five", str(tmp_path / "missing.run")):
        assert main([*common, "--baseline", wrong]) == 2
        assert capsys.readouterr().err == (
            f"rank-metrics: error: --baseline {wrong!r} is not one of the runs: give a "
            f"run's name ('five.run', 'other.run') or its --run as given "
            f"({str(run_path)!r}, {str(other)!r})\n"
        )
    # runs whose file names repeat are shown by their paths: those are their names
    twin = tmp_path / "twin"
    twin.mkdir()
    (twin / "five.run").write_text(FIVE_RUN)
    assert main(["evaluate", "--qrels", str(qrels_path), "--run", str(run_path), "--run",
                 str(twin / "five.run"), "--metrics", "map", "--resamples", "20",
                 "--format", "json", "--baseline", str(twin / "five.run")]) == 0
    (row,) = json.loads(capsys.readouterr().out)["comparison"]
    assert row["model_b"] == str(twin / "five.run")


def test_baseline_accepts_a_predictions_path(tmp_path, capsys):
    letor = tmp_path / "test.txt"
    letor.write_text("1 qid:1 1:0.5\n0 qid:1 1:0.1\n0 qid:2 1:0.3\n1 qid:2 1:0.2\n")
    (tmp_path / "a.txt").write_text("0.9\n0.1\n0.2\n0.8\n")
    (tmp_path / "b.txt").write_text("0.1\n0.9\n0.8\n0.2\n")
    common = ["evaluate", "--letor", str(letor), "--predictions", str(tmp_path / "a.txt"),
              "--predictions", str(tmp_path / "b.txt"), "--metrics", "mrr", "--resamples",
              "20", "--format", "json", "--baseline"]
    assert main([*common, str(tmp_path / "b.txt")]) == 0
    (row,) = json.loads(capsys.readouterr().out)["comparison"]
    # by hand: a ranks the relevant row first in both queries (RR 1), b second (1/2)
    assert (row["model_a"], row["model_b"], row["mean_difference"]) == ("a.txt", "b.txt", 0.5)


# ---------------------------------------------------------------------------
# The process: Ctrl-C, a closed output pipe, empty standard input, warnings
# ---------------------------------------------------------------------------


PYTHON_CLI = [sys.executable, "-m", "sklearn_rank_metrics"]
SMALL_QRELS = "1 0 d1 1\n1 0 d2 0\n2 0 d3 2\n2 0 d4 0\n3 0 d5 1\n"
SMALL_RUN = "1 Q0 d2 1 2.0 sys\n1 Q0 d1 2 1.0 sys\n2 Q0 d3 1 1.0 sys\n"


def test_interrupt_exits_130_with_one_line(two_runs, capsys, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(_cli, "_evaluate_command", interrupted)
    try:
        status = main(two_runs)
    except KeyboardInterrupt:  # before the fix: the traceback
        status = "KeyboardInterrupt escaped main()"
    assert status == 130
    assert capsys.readouterr().err == "rank-metrics: interrupted\n"


def _wait_until_blocked(process, timeout=60.0):
    """Until ``process`` sleeps (state S) without using CPU for 0.5 s: blocked reading
    its standard input. (A process waiting for a CPU is R, not S.)"""
    stat = Path(f"/proc/{process.pid}/stat")
    deadline = time.monotonic() + timeout
    last, still_since = None, time.monotonic()
    while time.monotonic() < deadline:
        assert process.poll() is None, process.stderr.read()
        fields = stat.read_text().rsplit(")", 1)[1].split()
        state, cpu = fields[0], (fields[11], fields[12])  # utime, stime
        if state != "S" or cpu != last:
            last, still_since = cpu, time.monotonic()
        elif time.monotonic() - still_since > 0.5:
            return
        time.sleep(0.05)
    raise AssertionError("the command never blocked on its standard input")


def _default_sigint():
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_ctrl_c_while_reading_standard_input(tmp_path):
    (tmp_path / "qrels.txt").write_text(SMALL_QRELS)
    process = subprocess.Popen(
        [*PYTHON_CLI, "evaluate", "--qrels", str(tmp_path / "qrels.txt"), "--run", "-"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        # a parent that ignores SIGINT (pytest-xdist's workers do) passes that on to
        # its children, and Python then never raises KeyboardInterrupt: restore it
        preexec_fn=_default_sigint,
    )
    try:
        _wait_until_blocked(process)  # standard input stays open: it waits forever
        process.send_signal(signal.SIGINT)
        # wait with standard input still open: communicate() would close it at once,
        # and the read could then end on end-of-file before the signal is handled
        process.wait(timeout=60)
        out, err = process.stdout.read(), process.stderr.read()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdin.close()
        process.stdout.close()
        process.stderr.close()
    assert process.returncode == 130, err
    assert err == "rank-metrics: interrupted\n" and out == ""


class _ClosedPipe(io.StringIO):
    """Standard output whose reader went away (``| head -1``)."""

    def write(self, text):
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self):
        raise BrokenPipeError(32, "Broken pipe")


def test_closed_output_pipe_exits_quietly(two_runs, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdout", _ClosedPipe())
    # before the fix: status 2 (bad input) and "error: Broken pipe"
    assert main(two_runs) == 141
    assert capsys.readouterr().err == ""


def test_closed_output_pipe_in_a_real_pipe(tmp_path):
    # a pipe whose only reader closed before the command wrote anything
    (tmp_path / "qrels.txt").write_text(SMALL_QRELS)
    (tmp_path / "sys.run").write_text(SMALL_RUN)
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        result = subprocess.run(
            [*PYTHON_CLI, "evaluate", "--qrels", str(tmp_path / "qrels.txt"), "--run",
             str(tmp_path / "sys.run"), "--per-query", "-"],
            stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=120,
        )
    finally:
        os.close(write_end)
    assert result.returncode == 141 and result.stderr == ""  # 128 + SIGPIPE, as shells


@pytest.mark.parametrize("mode", [[], ["--answered-only"]])
def test_empty_standard_input_is_refused_as_read_trec_refuses_an_empty_run(tmp_path, capsys,
                                                                          monkeypatch, mode):
    # a run of no line is refused, as trec_eval refuses an empty results file: by
    # read_trec and by --run - given no line, with or without -c, in one line
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(SMALL_QRELS)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"")))
    status = main(["evaluate", "--qrels", str(qrels), "--run", "-", "--metrics", "map",
                   "--format", "json", *mode])
    captured = capsys.readouterr()
    with pytest.raises(ValueError, match="has no lines") as refused:
        read_trec(qrels, io.BytesIO(b""), answered_only=bool(mode))
    assert status == 2 and captured.out == ""
    # the same sentence after the run's name (<stream> here, stdin there)
    assert str(refused.value).split(" has no lines")[1] in one_error_line(captured)


def test_warnings_print_as_one_line_of_the_program(tmp_path):
    path = tmp_path / "unjudged.csv"
    path.write_text("group,y_true,y_score\nq,0,0.5\nq,0,0.7\nr,0,0.2\n")
    result = subprocess.run(
        [*PYTHON_CLI, "evaluate", "--table", str(path), "--metrics", "map", "ndcg"],
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 2, result.stderr  # no source line (sys.exit(main()))
    assert lines[0].startswith("rank-metrics: warning: mean_average_precision_score is "
                               "undefined for every one of the 2 queries")
    assert lines[1].startswith("rank-metrics: warning: ndcg_score is undefined")


def test_main_leaves_the_warnings_module_as_it_found_it(tmp_path, capsys):
    path = tmp_path / "unjudged.csv"
    path.write_text("group,y_true,y_score\nq,0,0.5\nq,0,0.7\nr,0,0.2\n")
    before = (warnings.formatwarning, warnings.showwarning, list(warnings.filters))
    # a caller's pytest.warns (or catch_warnings(record=True)) still sees the warning
    with pytest.warns(UndefinedMetricWarning, match="undefined for every one"):
        assert main(["evaluate", "--table", str(path), "--metrics", "map"]) == 0
    assert (warnings.formatwarning, warnings.showwarning, list(warnings.filters)) == before
    assert main(["evaluate", "--table", "missing.csv"]) == 2
    assert (warnings.formatwarning, warnings.showwarning, list(warnings.filters)) == before
    capsys.readouterr()
