"""RankingReport: the object ranking_report builds, with ComparisonResult's to_* methods.

Expected values by hand: two queries, MRR 1 and 1/2 (mean 0.75, standard error
std([1, 0.5], ddof=1) / sqrt(2) = 0.25).
"""

import json
import math

import pytest

from sklearn_rank_metrics import compare, ranking_report
from sklearn_rank_metrics._stats._report import RankingReport

Y_TRUE = [1, 0, 0, 1]
GROUP = [1, 1, 2, 2]
SCORES = {"good": [0.9, 0.1, 0.8, 0.2], "bad": [0.1, 0.9, 0.8, 0.2]}  # MRR: 1, 1/2; 1/2, 1/2
STATS = {"mean": 0.75, "std_err": 0.25, "n_queries": 2, "n_undefined": 0, "n_skipped": 0}


def report(**kwargs):
    return RankingReport({"good": {"mrr": dict(STATS)}}, **kwargs)


def test_to_dict_and_to_text_are_what_ranking_report_returns():
    for scores in (SCORES, SCORES["good"]):
        dictionary = ranking_report(Y_TRUE, scores, GROUP, metrics="mrr", output_dict=True)
        text = ranking_report(Y_TRUE, scores, GROUP, metrics="mrr")
        summaries = dictionary if isinstance(scores, dict) else {None: dictionary}
        assert RankingReport(summaries).to_dict() == dictionary
        assert RankingReport(summaries).to_text() == text
    assert dictionary == {"mrr": pytest.approx(STATS)}


def test_to_text_by_hand():
    assert report().to_text() == (
        "              mean  std err  queries  undefined  skipped\n"
        "\n"
        "mrr  good   0.7500   0.2500        2          0        0"
    )
    # the command line's single run: no model column
    assert report(name_one_model=False, digits=2).to_text().splitlines()[2] == (
        "mrr   0.75     0.25        2          0        0"
    )


def test_to_csv_and_to_json_by_hand():
    assert report().to_csv() == (
        "run,metric,mean,std_err,n_queries,n_undefined,n_skipped\n"
        "good,mrr,0.75,0.25,2,0,0\n"
    )
    nan = RankingReport({"a,b": {"mrr": {**STATS, "std_err": math.nan}}})
    assert nan.to_csv().splitlines()[1] == '"a,b",mrr,0.75,nan,2,0,0'
    assert json.loads(nan.to_json()) == {"results": {"a,b": {"mrr": {**STATS, "std_err": None}}}}


def test_to_markdown_and_to_latex_show_the_means_with_escaped_names():
    hostile = RankingReport({"a|b": {"p_1": {**STATS}}}, digits=2)
    assert hostile.to_markdown(caption="Means.") == (
        "Means.\n\n|  | run | p\\_1 |\n| --- | --- | ---: |\n| a | a\\|b | 0.75 |"
    )
    latex = hostile.to_latex()
    assert r"a & a\textbar{}b & 0.75 \\" in latex and r"p\_1" in latex
    assert r"\caption" not in latex


def test_a_comparison_is_in_every_format():
    result = ranking_report(Y_TRUE, SCORES, GROUP, metrics="mrr", baseline="bad",
                            n_resamples=10, random_state=0, output_dict=True)
    assert result["good"]["mrr"]["mean_difference"] == pytest.approx(0.75 - 0.5)
    text = ranking_report(Y_TRUE, SCORES, GROUP, metrics="mrr", baseline="bad",
                          n_resamples=10, random_state=0)
    assert "\n\nPaired comparison with 'bad':\n\n" in text


def test_the_comparison_formats_take_compare_s_display_parameters():
    comparison = compare(Y_TRUE, SCORES, GROUP, metrics="mrr", baseline="bad",
                         n_resamples=10, random_state=0)
    summaries = {"good": {"mrr": dict(STATS)}, "bad": {"mrr": {**STATS, "mean": 0.5}}}
    report = RankingReport(summaries, comparison, "bad")
    for test, alpha, digits in (("t", 0.3, 2), ("permutation", 0.05, None)):
        shown = 4 if digits is None else digits
        assert report.to_text(test=test, alpha=alpha, digits=digits).endswith(
            comparison.to_text(test=test, alpha=alpha, digits=shown)
        )
        assert report.to_markdown(test=test, alpha=alpha, digits=digits) == (
            comparison.to_markdown(test=test, alpha=alpha, digits=shown)
        )
        assert report.to_latex(test=test, alpha=alpha, digits=digits) == (
            comparison.to_latex(test=test, alpha=alpha, digits=shown)
        )
