"""Bad values swept over every public entry point, not only the metric functions.

``test_common.py`` sweeps its table of bad inputs over every registered metric
function. Here the same kinds of bad rows and bad settings go through the other
doors users take: ``evaluate``, ``ranking_report``, ``compare``, a scorer,
``sklearn_rank_metrics.dask.evaluate``, ``sampled_ranks``, and the command line on
a CSV, Parquet and LETOR file. Each must raise a ``ValueError``/``TypeError`` that
names the argument and the first bad row (the file and its line for files); none may
return a number.
"""

from __future__ import annotations

import contextlib
import io
import re
import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, RegressorMixin

import sklearn_rank_metrics as srm
from sklearn_rank_metrics import RankingData, _cli
from sklearn_rank_metrics import dask as srm_dask

pd = pytest.importorskip("pandas")

Y = np.array([0, 1, 2, 0, 3, 1, 0, 2, 0, 1, 3, 0, 0, 2, 1, 1, 0, 0, 2, 3], dtype=float)
S = np.linspace(0.9, 0.1, 20)
G = np.repeat([11, 12, 13, 14], 5)
W = np.repeat([1.0, 2.0, 0.5, 1.5], 5)
BAD = 7  # not the first row of its query
ROW = rf"\brow {BAD}\b"


def _with(values, value):
    out = np.array(values, dtype=object if isinstance(value, str) else float)
    out[BAD] = value
    return out


def words(*patterns):
    """Regex that requires every pattern, in any order."""
    return "(?s)^" + "".join(f"(?=.*{p})" for p in patterns)


# (case, override, exception, patterns the message must hold)
ROW_CASES = [
    ("nan_y_score", {"y_score": _with(S, np.nan)}, ValueError, [r"\by_score\b", ROW]),
    ("nan_y_true", {"y_true": _with(Y, np.nan)}, ValueError, [r"\by_true\b", ROW]),
    ("inf_y_true", {"y_true": _with(Y, np.inf)}, ValueError, [r"\by_true\b", ROW]),
    ("negative_y_true", {"y_true": _with(Y, -3.0)}, ValueError, [r"\by_true\b", ROW, ">= 0"]),
    ("nan_group", {"group": _with(G, np.nan)}, ValueError, [r"\bgroup\b", ROW]),
    ("text_y_score", {"y_score": _with(S, "x")}, TypeError, [r"\by_score\b", ROW, "'x'"]),
    ("text_y_true", {"y_true": _with(Y, "x")}, TypeError, [r"\by_true\b", ROW, "'x'"]),
    ("short_y_score", {"y_score": S[:-1]}, ValueError, [r"\by_(score|true)\b", r"\b19\b"]),
    ("short_group", {"group": G[:-1]}, ValueError, [r"\bgroup\b", r"\b19\b"]),
    ("nan_weight", {"sample_weight": _with(W, np.nan)}, ValueError, [r"\bsample_weight\b", ROW]),
    ("negative_weight", {"sample_weight": _with(W, -1.0)}, ValueError,
     [r"\bsample_weight\b", ROW]),
    ("weight_varies", {"sample_weight": _with(W, 9.0)}, ValueError,
     [r"\bsample_weight\b", ROW, "constant"]),
]


class _ScoresAsPredictions(RegressorMixin, BaseEstimator):
    """Predicts the first column of X: the scorer then scores the given scores."""

    def fit(self, X, y=None):
        return self

    def predict(self, X):
        return np.asarray(X, dtype=float)[:, 0]


def _evaluate(y_true, y_score, group, sample_weight=None):
    return srm.evaluate(y_true, y_score, group, metrics=["ndcg@3", "map", "gauc"],
                        sample_weight=sample_weight)


def _report(y_true, y_score, group, sample_weight=None):
    return srm.ranking_report(y_true, y_score, group, sample_weight=sample_weight,
                              output_dict=True)


def _compare(y_true, y_score, group, sample_weight=None):
    other = np.asarray(y_score)[::-1].copy()
    return srm.compare(y_true, {"a": y_score, "b": other}, group, n_resamples=20,
                       random_state=0)


def _scorer(y_true, y_score, group, sample_weight=None):
    scorer = srm.make_ranking_scorer("ndcg@3", group=group)
    return scorer(_ScoresAsPredictions(), np.asarray(y_score).reshape(-1, 1), y_true)


def _dask(y_true, y_score, group, sample_weight=None):
    dd = pytest.importorskip("dask.dataframe")
    columns = {"y_true": y_true, "y_score": y_score, "group": group}
    if sample_weight is not None:
        columns["weight"] = sample_weight
    frame = dd.from_pandas(pd.DataFrame(columns), npartitions=2)  # row 7 in part 1
    return srm_dask.evaluate(frame, ["ndcg@3", "map"],
                             sample_weight=None if sample_weight is None else "weight")


def _sampled(y_true, y_score, group, sample_weight=None):
    return srm.sampled_ranks(y_true, y_score, group)


ENTRY_POINTS = {
    "evaluate": (_evaluate, {"weights": True, "graded": True}),
    "ranking_report": (_report, {"weights": True, "graded": True}),
    "compare": (_compare, {"weights": False, "graded": True}),
    "scorer": (_scorer, {"weights": False, "graded": True}),
    "dask": (_dask, {"weights": True, "graded": True, "frame": True}),
    "sampled_ranks": (_sampled, {"weights": False, "graded": False}),
}


def _cases():
    for entry, (_, traits) in ENTRY_POINTS.items():
        for case, override, exception, patterns in ROW_CASES:
            if "sample_weight" in override and not traits["weights"]:
                continue
            if case == "negative_y_true" and not traits["graded"]:
                continue  # sampled_ranks is binary: a negative label is not relevant
            if case == "text_y_score" and entry == "scorer":
                continue  # the scorer's scores come from the estimator, not from X
            if case.startswith("short") and traits.get("frame"):
                continue  # a DataFrame cannot hold columns of different lengths
            expected = patterns
            if case.startswith("text") and traits.get("frame"):
                # Dask turns an object column of text and numbers into strings: the
                # error names the column and the text, not the first row that was text
                expected = patterns[:1] + ["text"]
            yield pytest.param(entry, override, exception, expected, id=f"{entry}-{case}")


def test_the_base_data_is_valid_for_every_entry_point():
    for entry, (call, traits) in ENTRY_POINTS.items():
        y_true = (Y == 3).astype(float) if entry == "sampled_ranks" else Y
        if entry == "sampled_ranks":
            y_true = np.zeros(20)
            y_true[[1, 6, 12, 17]] = 1.0  # one held-out item per user
        call(y_true, S, G, W if traits["weights"] else None)


@pytest.mark.parametrize(("entry", "override", "exception", "patterns"), list(_cases()))
def test_bad_rows_are_named_by_every_entry_point(entry, override, exception, patterns):
    call, _ = ENTRY_POINTS[entry]
    arguments = {"y_true": Y, "y_score": S, "group": G, "sample_weight": None, **override}
    if entry == "sampled_ranks" and "y_true" not in override:
        arguments["y_true"] = np.zeros(20)
        arguments["y_true"][[1, 6, 12, 17]] = 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(exception) as raised:
            call(**arguments)
    message = str(raised.value)
    assert re.search(words(*patterns), message), message


SETTINGS = [
    ("ties", "bogus"),
    ("replace_undefined_by", "bogus"),
    ("replace_undefined_by", 2.0),
    ("relevance_level", float("nan")),
]


@pytest.mark.parametrize(
    ("entry", "setting", "value"),
    [
        (entry, setting, value)
        for entry in ["evaluate", "ranking_report", "compare", "scorer", "dask",
                      "sampled_ranks"]
        for setting, value in SETTINGS
        # sampled_ranks has no replace_undefined_by
        if not (entry == "sampled_ranks" and setting == "replace_undefined_by")
    ],
)
def test_bad_settings_are_refused_by_every_entry_point(entry, setting, value):
    calls = {
        "evaluate": lambda: srm.evaluate(Y, S, G, metrics=["map"], **{setting: value}),
        "ranking_report": lambda: srm.ranking_report(Y, S, G, **{setting: value}),
        "compare": lambda: srm.compare(Y, {"a": S, "b": S[::-1].copy()}, G, n_resamples=10,
                                       **{setting: value}),
        "scorer": lambda: srm.make_ranking_scorer("map", **{setting: value}),
        "dask": lambda: _dask_with(**{setting: value}),
        "sampled_ranks": lambda: srm.sampled_ranks((Y == 3).astype(float), S, G,
                                                   **{setting: value}),
    }
    with pytest.raises(ValueError, match=rf"'{setting}' parameter of"):
        calls[entry]()


def _unclear_error_cases():
    import pandas as pd
    import scipy.sparse

    from sklearn_rank_metrics import evaluate, ndcg_score

    y, s = [1, 0], [0.5, 0.2]
    return [
        (lambda: ndcg_score(y, s, k=2**63), ValueError, "'k' parameter of ndcg_score"),
        (lambda: evaluate(y, s, metrics=["ndcg@99999999999999999999"]), ValueError,
         "cutoff of metric 'ndcg@99999999999999999999' of evaluate"),
        (lambda: evaluate(y, s, metrics=["ndcg@" + "9" * 5000]), ValueError,
         "of evaluate is 5005 characters long; a metric name has at most 256"),
        (lambda: ndcg_score(y, s, pd.Series(["a", pd.NA], dtype="string")), ValueError,
         "group of ndcg_score must not be missing; got <NA> at row 1"),
        (lambda: evaluate(y, s, metrics=None), TypeError, "'metrics' parameter of evaluate"),
        (lambda: evaluate(y, s, metrics=5), TypeError, "'metrics' parameter of evaluate"),
        (lambda: evaluate(y, s, metrics=["map", 5]), TypeError, "got 5 of type int"),
        (lambda: ndcg_score(scipy.sparse.csr_matrix(np.array(y, float)), s, [0, 0]),
         TypeError, "y_true of ndcg_score must be a dense array-like; got a sparse"),
        (lambda: ndcg_score((x for x in y), s), TypeError,
         "y_true of ndcg_score must be an array-like"),
    ]


@pytest.mark.parametrize("index", range(9))
def test_unclear_errors_name_the_argument(index):
    call, error, message = _unclear_error_cases()[index]
    with pytest.raises(error, match=re.escape(message)):
        call()


def _dask_with(**settings):
    dd = pytest.importorskip("dask.dataframe")
    frame = dd.from_pandas(pd.DataFrame({"y_true": Y, "y_score": S, "group": G}),
                           npartitions=2)
    return srm_dask.evaluate(frame, ["map"], **settings)


# ---------------------------------------------------------------------------
# The command line on files: the error names the file and the line (exit 2)
# ---------------------------------------------------------------------------


def run_cli(*arguments):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = _cli.main(["evaluate", *arguments])
    return status, err.getvalue()


def _csv(tmp_path, y_true=Y, y_score=S, group=G):
    path = tmp_path / "runs.csv"
    pd.DataFrame({"group": group, "y_true": y_true, "y_score": y_score}).to_csv(
        path, index=False
    )
    return path


LINE = rf"line {BAD + 2}\b"  # header on line 1


@pytest.mark.parametrize(
    ("override", "metric", "patterns"),
    [
        ({"y_score": _with(S, np.nan)}, "map", ["y_score", LINE]),
        ({"y_score": _with(S, "x")}, "map", ["y_score", LINE, "'x'"]),
        ({"y_true": _with(Y, np.inf)}, "map", ["y_true", LINE]),
        ({"y_true": _with(Y, "x")}, "map", ["y_true", LINE, "'x'"]),
        ({"y_true": _with(Y, -3.0)}, "ndcg@3", ["y_true", LINE, ">= 0"]),
        ({"y_true": _with(Y, 7.0)}, "err", ["y_true", LINE, "max_grade"]),
        ({"group": _with(G, np.nan)}, "map", ["group", LINE, "missing"]),
    ],
)
def test_the_command_line_names_the_line_of_a_bad_row(tmp_path, override, metric, patterns):
    path = _csv(tmp_path, **override)
    status, error = run_cli("--table", str(path), "--metrics", metric)
    assert status == 2
    assert error.count("\n") == 1, error  # one line
    assert re.search(words(re.escape(str(path)), *patterns), error), error


def test_the_command_line_names_the_row_of_a_parquet_file(tmp_path):
    pytest.importorskip("pyarrow")
    path = tmp_path / "runs.parquet"
    pd.DataFrame({"group": G, "y_true": _with(Y, -3.0), "y_score": S}).to_parquet(path)
    status, error = run_cli("--table", str(path), "--metrics", "ndcg")
    assert status == 2
    assert re.search(words(re.escape(str(path)), rf"row {BAD}\b", ">= 0"), error), error


def test_the_command_line_names_the_line_of_a_bad_letor_row(tmp_path):
    # comment and blank lines are not rows: row 1 (label -1) is on line 4
    letor = tmp_path / "test.txt"
    letor.write_text("# a comment\n1 qid:1 1:0\n\n-1 qid:1 1:1\n0 qid:2 1:3\n")
    predictions = tmp_path / "predictions.txt"
    predictions.write_text("0.1\n0.2\n0.3\n")
    status, error = run_cli("--letor", str(letor), "--predictions", str(predictions),
                            "--metrics", "ndcg")
    assert status == 2
    assert re.search(words(re.escape(str(letor)), r"line 4\b", ">= 0"), error), error


@pytest.mark.parametrize(
    ("content", "patterns"),
    [
        (b"group,y_true,y_score\na,1,0.5\na,1,7,0.1\n", [r"line 3\b", "fields"]),
        (b"group,y_true,y_score\na,1,0.5\na,1\n", [r"line 3\b", "fields"]),
        (b"", ["empty"]),
        (b"group,y_true,y_score\n", ["no rows"]),
        (b"group,y_true,y_score\na,1,0.5\nb\xff,1,0.2\n", [r"line 3\b", "UTF-8", "0xff"]),
        (b"group,label,y_score\na,1,0.5\n", ["y_true"]),
    ],
    ids=["extra_field", "missing_field", "zero_bytes", "header_only", "not_utf8",
         "missing_column"],
)
def test_the_command_line_names_the_file_of_a_broken_table(tmp_path, content, patterns):
    path = tmp_path / "broken.csv"
    path.write_bytes(content)
    status, error = run_cli("--table", str(path), "--metrics", "map")
    assert status == 2
    assert re.search(words(re.escape(str(path)), *patterns), error), error


@pytest.mark.parametrize(
    ("option", "value", "pattern"),
    [
        ("--replace-undefined-by", "2", "replace_undefined_by"),
        ("--replace-undefined-by", "-1", "replace_undefined_by"),
        ("--relevance-level", "nan", "relevance_level"),
        ("--digits", "-1", "digits"),
        ("--metrics", "ndcg@0", r"cutoff of metric 'ndcg@0'.*got 0"),
        ("--metrics", "ndcg(gain=exponential,gain=linear)", "twice|more than once"),
    ],
)
def test_the_command_line_refuses_bad_settings_before_printing(tmp_path, option, value,
                                                               pattern):
    path = _csv(tmp_path)
    out = io.StringIO()
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        status = _cli.main(["evaluate", "--table", str(path), option, value])
    assert status == 2
    assert out.getvalue() == ""  # nothing of a report was printed
    assert re.search(pattern, err.getvalue()), err.getvalue()


# ---------------------------------------------------------------------------
# Every preset (convention=) reads its inputs through the engine's one input path
# ---------------------------------------------------------------------------

from sklearn_rank_metrics._metrics._conventions import CONVENTIONS  # noqa: E402
from sklearn_rank_metrics._metrics._registry import METRICS  # noqa: E402

CONVENTION_NAMES = sorted(CONVENTIONS)
MASKED = words("masked", r"\b{}\b")
READS_JUDGMENTS = {"bpref", "judged"}


def _masked(values):
    mask = np.zeros(len(values), dtype=bool)
    mask[BAD] = True
    return np.ma.array(values, mask=mask)


def _metric(name, convention, **arguments):
    info = METRICS[name]
    if name in READS_JUDGMENTS:
        arguments.setdefault("judged", True)
    return info.function(**{**info.fixed_params, **arguments}, convention=convention)


@pytest.mark.parametrize("convention", CONVENTION_NAMES)
@pytest.mark.parametrize("name", sorted(METRICS))
def test_masked_arrays_are_refused_by_every_metric_under_every_preset(name, convention):
    # the presets cast scores to float32, labels to gain 0 ...: each cast used to drop
    # the mask, and the masked row was scored as the value hidden under it
    _metric(name, convention, y_true=Y, y_score=S, group=G)  # the base data is valid
    overrides = {"y_true": _masked(Y), "y_score": _masked(S), "group": _masked(G)}
    if name in READS_JUDGMENTS:
        overrides["judged"] = _masked(np.ones(20, dtype=bool))
    if "sample_weight" in METRICS[name].function.__wrapped__.__code__.co_varnames:
        overrides["sample_weight"] = _masked(W)
    for argument, masked in overrides.items():
        inputs = {"y_true": Y, "y_score": S, "group": G, argument: masked}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(ValueError, match=MASKED.format(argument)):
                _metric(name, convention, **inputs)


def _evaluator(y_true, y_score, group, convention, **options):
    evaluator = srm.RankingEvaluator(["ndcg@3", "map", "gauc"], convention=convention)
    evaluator.update(y_true, y_score, group, **options)
    return evaluator.compute()


PRESET_ENTRY_POINTS = {
    "evaluate": lambda y, s, g, c, **o: srm.evaluate(
        y, s, g, metrics=["ndcg@3", "map", "gauc", "rr@10", "err@10"], convention=c, **o
    ),
    "ranking_report": lambda y, s, g, c, **o: srm.ranking_report(
        y, s, g, convention=c, output_dict=True, **o
    ),
    "compare": lambda y, s, g, c, **o: srm.compare(
        y, {"a": s, "b": np.asarray(s)[::-1].copy()}, g, metrics=["ndcg@3", "map"],
        n_resamples=10, random_state=0, convention=c,
        **{k: v for k, v in o.items() if k != "sample_weight"},
    ),
    "scorer": lambda y, s, g, c, **o: srm.make_ranking_scorer(
        "ndcg@3", group=g, convention=c
    )(_ScoresAsPredictions(), np.asarray(s).reshape(-1, 1), y),
    "RankingEvaluator": lambda y, s, g, c, **o: _evaluator(y, s, g, c, **o),
}


@pytest.mark.parametrize("convention", CONVENTION_NAMES)
@pytest.mark.parametrize("entry", sorted(PRESET_ENTRY_POINTS))
def test_masked_arrays_are_refused_by_every_entry_point_under_every_preset(entry, convention):
    call = PRESET_ENTRY_POINTS[entry]
    arguments = {"y_true": _masked(Y), "y_score": _masked(S)}
    if entry == "scorer":
        arguments.pop("y_score")  # the scorer's scores come from the estimator
    for argument, masked in arguments.items():
        y = masked if argument == "y_true" else Y
        s = masked if argument == "y_score" else S
        # compare names the model whose scores are masked (its scores are a mapping)
        pattern = MASKED.format(argument)
        if (entry, argument) == ("compare", "y_score"):
            pattern = words("masked", r"\bscores\['a'\]")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(ValueError, match=pattern):
                call(y, s, G, convention)


def test_masked_arrays_with_masked_values_are_refused():
    from sklearn_rank_metrics import ndcg_score

    y = np.ma.array([1, 0, 1], mask=[False, True, False])
    one = [0, 0, 0]  # one query
    with pytest.raises(ValueError, match="y_true is a masked array with masked values"):
        ndcg_score(y, [0.1, 0.2, 0.3], one)
    # a masked array without masked values is its data
    assert ndcg_score(np.ma.array([1, 0, 1]), [0.1, 0.2, 0.3], one) == ndcg_score(
        [1, 0, 1], [0.1, 0.2, 0.3], one
    )


# rows tied in score, and document ids that sort them backwards: a preset that breaks
# ties by document id moves every row, and an error must still name the caller's row
TIED = np.repeat([0.5, 0.4, 0.3, 0.2], 5)
DOCS = np.array([f"d{7 * row % 20:02d}" for row in range(20)])  # both text orders move rows
DOC_ID_PRESETS = [name for name in CONVENTION_NAMES if CONVENTIONS[name].ordering.doc_id_order]
DOC_ROW_CASES = [
    ("nan_y_score", {"y_score": _with(TIED, np.nan)}, [r"\by_score\b", ROW]),
    ("nan_y_true", {"y_true": _with(Y, np.nan)}, [r"\by_true\b", ROW]),
    ("nan_group", {"group": _with(G, np.nan)}, [r"\bgroup\b", ROW]),
    ("nan_weight", {"sample_weight": _with(W, np.nan)}, [r"\bsample_weight\b", ROW]),
    ("weight_varies", {"sample_weight": _with(W, 9.0)}, [r"\bsample_weight\b", ROW]),
    ("judged_false_relevant", {"judged": _with(np.ones(20), 0.0) > 0},
     [r"\bjudged\b", rf"row {BAD}\b"]),
]
DOC_ENTRY_POINTS = {
    "evaluate": lambda c, **a: srm.evaluate(
        metrics=["ndcg@3", "map", "rr@10", "bpref"], convention=c, **a
    ),
    "ranking_report": lambda c, **a: srm.ranking_report(
        convention=c, output_dict=True, **a
    ),
    "RankingEvaluator": lambda c, y_true, y_score, group, **a: _evaluator(
        y_true, y_score, group, c, **a
    ),
}


@pytest.mark.parametrize("convention", DOC_ID_PRESETS)
@pytest.mark.parametrize("entry", sorted(DOC_ENTRY_POINTS))
@pytest.mark.parametrize(("case", "override", "patterns"), DOC_ROW_CASES,
                         ids=[case for case, _, _ in DOC_ROW_CASES])
def test_errors_name_the_input_row_when_a_preset_orders_by_doc_id(entry, convention, case,
                                                                  override, patterns):
    assert Y[BAD] != 0  # the unjudged row of judged_false_relevant is relevant
    arguments = {"y_true": Y, "y_score": TIED, "group": G, "doc_id": DOCS,
                 "judged": True, **override}
    call = DOC_ENTRY_POINTS[entry]
    valid = {"y_true": Y, "y_score": TIED, "group": G, "doc_id": DOCS, "judged": True}
    if "sample_weight" in override:
        valid["sample_weight"] = W
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        call(convention, **valid)  # the base data is valid
        with pytest.raises(ValueError) as raised:
            call(convention, **arguments)
    message = str(raised.value)
    assert re.search(words(*patterns), message), message


DATA_ROW = 5  # doc ids d0 d5 d4 d3 d2 d1: both text orders move row 5


def _ranking_data(**override):
    columns = {
        "y_true": np.array([1.0, 0.0, 2.0, 0.0, 1.0, 1.0]),
        "y_score": np.full(6, 0.5),
        "group": np.array(["q1"] * 3 + ["q2"] * 3),
        "doc_id": np.array([f"d{5 * row % 6}" for row in range(6)]),
        "judged": np.ones(6, dtype=bool),
    }
    columns.update(override)
    return RankingData(**columns)


@pytest.mark.parametrize("convention", ["trec_eval", "pytrec_eval", "ir_measures"])
@pytest.mark.parametrize("metric", [srm.ndcg_score, srm.mean_average_precision_score,
                                    srm.bpref_score])
def test_a_metric_names_the_input_row_of_a_ranking_data(metric, convention):
    metric(_ranking_data(), convention=convention)  # the base data is valid
    scores = np.full(6, 0.5)
    scores[DATA_ROW] = np.nan
    with pytest.raises(ValueError, match=rf"(?s)y_score.*\brow {DATA_ROW}\b"):
        metric(_ranking_data(y_score=scores), convention=convention)
    if metric is not srm.bpref_score:
        return  # the others do not read judgments
    unjudged = np.ones(6, dtype=bool)
    unjudged[DATA_ROW] = False  # y_true is 1 there: refused, named by its input row
    with pytest.raises(ValueError, match=rf"(?s)judged.*\brow {DATA_ROW}\b"):
        metric(_ranking_data(judged=unjudged), convention=convention)


BOOSTER_PRESETS = [name for name in CONVENTION_NAMES if CONVENTIONS[name].single_precision_weights]


@pytest.mark.parametrize("convention", BOOSTER_PRESETS)
@pytest.mark.parametrize("entry", ["evaluate", "ranking_report", "metric"])
def test_a_weight_float32_cannot_hold_is_named_before_the_cast(entry, convention):
    weights = _with(W, 1e39)  # float32 would make it inf, and the message "got inf"
    calls = {
        "evaluate": lambda: srm.evaluate(Y, S, G, metrics=["ndcg@3"], convention=convention,
                                         sample_weight=weights),
        "ranking_report": lambda: srm.ranking_report(Y, S, G, convention=convention,
                                                     sample_weight=weights),
        "metric": lambda: srm.ndcg_score(Y, S, G, convention=convention,
                                         sample_weight=weights),
    }
    with pytest.raises(ValueError) as raised:
        calls[entry]()
    message = str(raised.value)
    assert re.search(words(r"\bsample_weight\b", ROW, r"1e\+39", "float32"), message), message


@pytest.mark.parametrize("convention", [None, *CONVENTION_NAMES])
@pytest.mark.parametrize("entry", ["evaluate", "ranking_report", "compare", "RankingEvaluator"])
def test_a_wrong_length_doc_id_is_refused_whether_or_not_a_preset_reads_it(entry, convention):
    calls = {
        "evaluate": lambda: srm.evaluate(Y, S, G, metrics=["ndcg@3"], convention=convention,
                                         doc_id=DOCS[:-1]),
        "ranking_report": lambda: srm.ranking_report(Y, S, G, convention=convention,
                                                     doc_id=DOCS[:-1]),
        "compare": lambda: srm.compare(Y, {"a": S, "b": S[::-1].copy()}, G,
                                       metrics=["ndcg@3"], n_resamples=10,
                                       convention=convention, doc_id=DOCS[:-1]),
        "RankingEvaluator": lambda: srm.RankingEvaluator(["ndcg@3"], convention=convention)
        .update(Y, S, G, doc_id=DOCS[:-1]),
    }
    with pytest.raises(ValueError, match=words("doc_id", r"\b19\b", r"\b20\b")):
        calls[entry]()


@pytest.mark.parametrize("convention", DOC_ID_PRESETS)
@pytest.mark.parametrize("entry", ["evaluate", "RankingEvaluator", "metric"])
def test_a_metric_row_check_names_the_input_row_under_a_doc_id_preset(entry, convention):
    # ERR's max_grade is checked by the metric, on the rows the preset has moved
    labels = _with(Y, 7.0)
    calls = {
        "evaluate": lambda: srm.evaluate(labels, TIED, G, metrics=["map", "err@10"],
                                         convention=convention, doc_id=DOCS),
        "RankingEvaluator": lambda: srm.RankingEvaluator(["err@10"], convention=convention)
        .update(labels, TIED, G, doc_id=DOCS),
        "metric": lambda: srm.expected_reciprocal_rank_score(
            srm.RankingData(labels, TIED, G, doc_id=DOCS), k=10, convention=convention
        ),
    }
    with pytest.raises(ValueError) as raised:
        calls[entry]()
    assert getattr(raised.value, "row", BAD) == BAD
    message = str(raised.value)
    assert re.search(words(r"\by_true\b", ROW, "max_grade"), message), message
