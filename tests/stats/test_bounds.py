"""The upper bounds of ``digits`` and ``n_resamples``: one constant each, the same on
every entry point (the ``to_*`` methods, ``ranking_report``, ``compare``, the command
line), refused in the package's message shape before any work or memory is spent."""

from __future__ import annotations

import re

import numpy as np
import pytest

from sklearn_rank_metrics import compare
from sklearn_rank_metrics._cli import main
from sklearn_rank_metrics._render import MAX_DIGITS

Y_TRUE = [1, 0, 0, 0, 1, 0, 1, 0, 0]
QID = [1, 1, 1, 2, 2, 2, 3, 3, 3]
SCORES = {"good": [3, 2, 1, 1, 3, 2, 3, 1, 2], "bad": [1, 2, 3, 3, 1, 2, 1, 3, 2]}


@pytest.fixture(scope="module")
def result():
    return compare(Y_TRUE, SCORES, QID, metrics=["mrr"], n_resamples=20, random_state=0)


def test_max_digits_is_the_least_that_shows_every_digit_of_a_mean():
    # a float64 has at most 17 significant digits: every value in [0.1, 1) (a metric's
    # mean) reads back exactly from 17 digits after the point, not always from 16
    values = np.random.default_rng(0).uniform(0.1, 1.0, 20_000)
    assert all(float(f"{value:.{MAX_DIGITS}f}") == value for value in values)
    assert not all(float(f"{value:.{MAX_DIGITS - 1}f}") == value for value in values)
    assert MAX_DIGITS == 17


@pytest.mark.parametrize("method", ["to_text", "to_markdown", "to_latex"])
def test_comparison_tables_refuse_digits_above_the_bound(result, method):
    render = getattr(result, method)
    assert f"{1 / 3:.17f}" in render(digits=MAX_DIGITS)  # the bound itself is fine
    expected = (
        f"The 'digits' parameter of ComparisonResult.{method} must be an int in the range "
        f"[0, {MAX_DIGITS}]. Got {MAX_DIGITS + 1} instead."
    )
    for digits in (MAX_DIGITS + 1, 10**9):  # 10**9: gigabytes of zeros before the bound
        with pytest.raises(ValueError, match=re.escape(expected.replace(str(MAX_DIGITS + 1),
                                                                        str(digits)))):
            render(digits=digits)


def test_cli_digits_uses_the_same_bound(tmp_path, capsys):
    (tmp_path / "t.csv").write_text("group,y_true,y_score\n1,1,2\n1,0,1\n2,1,1\n2,0,2\n")
    table = ["evaluate", "--table", str(tmp_path / "t.csv"), "--metrics", "mrr"]
    assert main([*table, "--digits", str(MAX_DIGITS)]) == 0
    assert " 0.75000000000000000 " in capsys.readouterr().out  # (1 + 1/2) / 2
    assert main([*table, "--digits", str(MAX_DIGITS + 1)]) == 2
    err = capsys.readouterr().err
    assert f"--digits: must be an int from 0 to {MAX_DIGITS}" in err, err
    assert f"got '{MAX_DIGITS + 1}'" in err


def test_the_documented_bound_is_the_constant():
    from pathlib import Path

    from sklearn_rank_metrics import ComparisonResult

    assert f"digits : int in [0, {MAX_DIGITS}]" in ComparisonResult.to_text.__doc__
    page = Path(__file__).resolve().parents[2] / "docs" / "user_guide" / "command_line.rst"
    assert f"(0 to {MAX_DIGITS}: a float64" in page.read_text()


def test_ranking_report_refuses_digits_above_the_bound():
    from sklearn_rank_metrics import ranking_report

    text = ranking_report(Y_TRUE, SCORES["good"], QID, metrics=["mrr"], digits=MAX_DIGITS)
    assert f" {1:.{MAX_DIGITS}f} " in text
    expected = (
        "The 'digits' parameter of ranking_report must be an int in the range "
        f"[0, {MAX_DIGITS}]. Got {MAX_DIGITS + 1} instead."
    )
    with pytest.raises(ValueError, match=re.escape(expected)):
        ranking_report(Y_TRUE, SCORES["good"], QID, metrics=["mrr"], digits=MAX_DIGITS + 1)
    assert f"digits : int in [0, {MAX_DIGITS}]" in ranking_report.__doc__


# --------------------------------------------------------------------------- n_resamples


def test_compare_refuses_more_resamples_than_the_command_line_allows():
    from sklearn_rank_metrics import _cli
    from sklearn_rank_metrics._stats import _resampling

    bound = _resampling.MAX_RESAMPLES
    assert _cli.MAX_RESAMPLES is bound  # one constant, read by both doors
    # before: 10**9 resamples was a MemoryError (the bootstrap keeps every mean)
    for n_resamples in (bound + 1, 10**9):
        expected = (
            "The 'n_resamples' parameter of compare must be an int in the range "
            f"[1, {bound}]. Got {n_resamples} instead."
        )
        with pytest.raises(ValueError, match=re.escape(expected)):
            compare(Y_TRUE, SCORES, QID, metrics=["mrr"], n_resamples=n_resamples)


def test_compare_of_per_query_values_has_the_same_bound():
    from sklearn_rank_metrics import PerQueryValues, evaluate

    tables = {
        name: evaluate(Y_TRUE, scores, QID, metrics=["mrr"], per_query=True)
        for name, scores in SCORES.items()
    }
    values = PerQueryValues.from_frame(tables)
    with pytest.raises(ValueError, match=r"'n_resamples' parameter of compare .* Got 10+ "):
        compare(values, n_resamples=10**9)


def test_metric_at_k_display_band_has_the_same_bound():
    from sklearn_rank_metrics import MetricAtKDisplay
    from sklearn_rank_metrics._stats._resampling import MAX_RESAMPLES

    with pytest.raises(
        ValueError,
        match=re.escape(
            "The 'n_resamples' parameter of MetricAtKDisplay.from_predictions must be an "
            f"int in the range [1, {MAX_RESAMPLES}]."
        ),
    ):
        MetricAtKDisplay.from_predictions(Y_TRUE, SCORES, QID, n_resamples=10**9)


def test_ranking_report_names_itself_for_too_many_resamples():
    # before: compare's message (the call ranking_report makes), or none without a baseline
    from sklearn_rank_metrics import ranking_report
    from sklearn_rank_metrics._stats._resampling import MAX_RESAMPLES

    for baseline in ("good", None):
        with pytest.raises(ValueError, match=re.escape(
            "The 'n_resamples' parameter of ranking_report must be an int in the range "
            f"[1, {MAX_RESAMPLES}]. Got {10**9} instead."
        )):
            ranking_report(Y_TRUE, SCORES, QID, metrics=["mrr"], baseline=baseline,
                           n_resamples=10**9)


def test_the_documented_resamples_bound_is_the_constant():
    from sklearn_rank_metrics import MetricAtKDisplay, ranking_report
    from sklearn_rank_metrics._stats._resampling import MAX_RESAMPLES

    documented = f"n_resamples : int in [1, {MAX_RESAMPLES:_}]"
    for function in (compare, ranking_report, MetricAtKDisplay.from_predictions):
        assert documented in function.__doc__, function
