"""Hostile metric names and keywords (issue 32): bounded work, valid suggestions, clear errors."""

from __future__ import annotations

import re

import numpy as np
import pytest

import sklearn_rank_metrics as srm
from sklearn_rank_metrics._metrics._registry import MAX_METRIC_NAME_LENGTH, parse_metric

# Shapes that made the name regular expressions backtrack (quadratic before the limit):
# a long run of digits after a name-like start, of parentheses, of separators.
_HOSTILE = {
    "letters": "a" * 100_000,
    "digits_after_at": "ndcg@" + "1" * 100_000 + "x",
    "digits_after_underscore": "x_" + "1" * 100_000 + "!",
    "iprec_level": "iprec@" + "1" * 100_000 + "x",
    "parentheses": "ndcg(" + "(" * 100_000,
    "params": "ndcg(" + "a=1," * 25_000 + ")",
}


@pytest.mark.parametrize("text", list(_HOSTILE.values()), ids=list(_HOSTILE))
def test_a_100000_character_name_is_refused_by_its_length(text):
    with pytest.raises(ValueError, match=r"has at most 256 characters") as info:
        parse_metric(text)
    message = str(info.value)
    assert f"is {len(text)} characters long" in message
    assert len(message) < 300  # the name is cut, not echoed whole


def test_the_limit_is_above_every_canonical_name():
    # a long name with every parameter written out
    longest = (
        "ndcg(discount=log(rank+1),gain=exponential,ideal=all,replace_undefined_by=0.0,"
        "ties=input)@1000"
    )
    assert len(longest) < MAX_METRIC_NAME_LENGTH
    parse_metric(longest)
    # a name of exactly the limit is read (and refused as unknown, with its own message)
    with pytest.raises(ValueError, match="Unknown metric"):
        parse_metric("q" * MAX_METRIC_NAME_LENGTH)


def test_evaluate_refuses_a_long_name_too():
    y_true, y_score, group = np.array([1, 0]), np.array([0.2, 0.1]), np.array([1, 1])
    with pytest.raises(ValueError, match=r"evaluate is 50006 characters long"):
        srm.evaluate(y_true, y_score, group, metrics=["ndcg@" + "1" * 50_000 + "x"])


@pytest.mark.parametrize(
    ("typo", "suggested"),
    [("precison@10", "'p@10'"), ("ndgc@10", "'ndcg@10'"), ("recal@5", "'recall@5'"),
     ("ndcg_cut10", "'ndcg@10'"), ("bpre", "'bpref'"), ("gau", "'gauc'")],
)
def test_ordinary_typos_still_get_suggestions(typo, suggested):
    with pytest.raises(ValueError, match=rf"Did you mean {re.escape(suggested)}"):
        parse_metric(typo)


@pytest.mark.parametrize(
    ("typo", "suggested", "never"),
    [("rprc@10", "'rprec'", "rprec@10"), ("iprc@3", "'iprec'", "iprec@3"),
     ("bpre@3", "'bpref'", "bpref@3"), ("gau@5", "'gauc'", "gauc@5"),
     ("11pt_av@5", "'11pt_avg'", "11pt_avg@5")],
)
def test_suggestions_drop_a_cutoff_the_metric_does_not_take(typo, suggested, never):
    with pytest.raises(ValueError, match=rf"Did you mean {re.escape(suggested)}") as info:
        parse_metric(typo)
    assert repr(never) not in str(info.value)


@pytest.mark.parametrize(
    "typo",
    ["rprc@10", "iprc@3", "bpre@3", "num_rl@4", "mpk@10", "hts@5", "precison@10", "P10",
     "sucess", "ndcg_cut10", "judge@5", "11pt@3", "rbpp@10", "fbta@5", "hitrat@1"],
)
def test_every_suggestion_parses(typo):
    with pytest.raises(ValueError, match="Unknown metric") as info:
        parse_metric(typo)
    hint = re.search(r"Did you mean (.*?)\? Known", str(info.value))
    assert hint is not None
    for name in re.findall(r"'([^']*)'", hint.group(1)):
        parse_metric(name)  # raises if a suggestion is not a valid name


@pytest.mark.parametrize("text", ["11PT_AVG", "11Pt_Avg", "11pt_AVG"])
def test_11pt_avg_in_any_letter_case(text):
    assert str(parse_metric(text)) == "11pt_avg"


def _rows():
    y_true = np.array([1, 0, 2, 0, 1, 0])
    y_score = np.array([0.9, 0.8, 0.1, 0.7, 0.3, 0.2])
    group = np.array([1, 1, 1, 2, 2, 2])
    return y_true, y_score, group


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda y, s, q: srm.ndcg_score(y, s, groups=q), "ndcg_score"),
        (lambda y, s, q: srm.precision_at_k_score(y, s, groups=q, k=2), "precision_at_k_score"),
        (lambda y, s, q: srm.evaluate(y, s, groups=q, metrics=["ndcg"]), "evaluate"),
        (lambda y, s, q: srm.compare(y, {"a": s, "b": -s}, groups=q), "compare"),
        (lambda y, s, q: srm.ranking_report(y, {"a": s}, groups=q), "ranking_report"),
        (
            lambda y, s, q: srm.MetricAtKDisplay.from_predictions(y, s, groups=q),
            "MetricAtKDisplay.from_predictions",
        ),
    ],
)
def test_scikit_learns_groups_spelling_gets_did_you_mean_group(call, name):
    y_true, y_score, group = _rows()
    pattern = rf"^{re.escape(name)}: .*'groups'\. Did you mean group= instead of groups=\?"
    with pytest.raises(TypeError, match=pattern):
        call(y_true, y_score, group)


def test_keyword_suggestions_ignore_letter_case_and_list_parameters_otherwise():
    y_true, y_score, group = _rows()
    with pytest.raises(TypeError, match=r"Did you mean k= instead of K=\?"):
        srm.ndcg_score(y_true, y_score, group, K=2)
    with pytest.raises(TypeError, match=r"Did you mean metrics= instead of metric=\?"):
        srm.evaluate(y_true, y_score, group, metric=["ndcg"])
    with pytest.raises(TypeError, match=r"ndcg_score takes: y_true=, y_score=, group=, k="):
        srm.ndcg_score(y_true, y_score, group, zzz=1)


def test_the_sampled_estimate_outside_its_range_is_refused():
    # issue 32: no longer a warning (which pointed at this line), a ValueError
    ranks = np.r_[np.ones(50, int), np.full(50, 3), np.full(100, 60)]
    with pytest.raises(ValueError, match="so it is refused"):
        srm.sampled_metric_estimate(
            ranks, n_negatives=100, n_items=10_000, metric="hit_rate", k=10,
            estimator="minimal_bias",
        )


def test_the_dask_warning_points_at_the_callers_line():
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    from sklearn_rank_metrics.dask import evaluate as evaluate_dask

    frame = pd.DataFrame({"label": [0.0] * 4, "score": [1.0, 2, 3, 4], "qid": [1, 1, 2, 2]})
    ddf = dd.from_pandas(frame, npartitions=2, sort=False)
    with pytest.warns(UserWarning, match="no query is left") as record:
        evaluate_dask(
            ddf, ["map"], y_true="label", y_score="score", group="qid",
            replace_undefined_by="skip",
        )
    assert [warning.filename for warning in record] == [__file__]


def test_every_warning_of_the_package_goes_through_warn_at_caller():
    # a fixed stacklevel points at the user's line on one call path only
    from pathlib import Path

    package = Path(srm.__file__).parent
    helper = package / "_engine" / "_warnings.py"
    fixed = [
        f"{path.relative_to(package)}:{number}"
        for path in sorted(package.rglob("*.py"))
        if path != helper
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "warnings.warn(" in line or "stacklevel=" in line
    ]
    assert fixed == []


@pytest.mark.parametrize(
    ("group", "shown"),
    [(np.array([1, 1, 2, 2]), "query 2 "), (np.array([1.0, 1.0, 2.0, 2.0]), "query 2.0 "),
     (np.array(["a", "a", "b", "b"]), "query 'b' ")],
)
def test_messages_show_query_ids_as_written_not_numpy_reprs(group, shown):
    y_true, y_score = np.array([1, 0, 0, 0]), np.array([0.3, 0.2, 0.1, 0.4])
    with pytest.raises(ValueError, match="is undefined for query") as info:
        srm.ndcg_score(y_true, y_score, group, replace_undefined_by="raise")
    assert shown in str(info.value)
    assert "np." not in str(info.value)


def test_read_table_names_a_dataframe_index_as_written():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(
        {"label": [1, 0, "x", 0], "score": [1.0, 2, 3, 4], "qid": [1, 1, 2, 2]},
        index=[10, 11, 12, 13],
    )
    with pytest.raises(ValueError, match=r"row 2 \(index 12\)") as info:
        srm.read_table(frame, y_true="label", y_score="score", group="qid")
    assert "np." not in str(info.value)
