"""Metric names: spaces inside parameter values, and the messages for common slips.

Each message is checked for the spelling it proposes, and each proposed spelling
is checked to work; the values are computed by hand.

A name of any length is refused in bounded time by its length (the shapes that made
the name's regular expressions backtrack are kept below), and a keyword that is not
a parameter gets the one it resembles, or the list of parameters.
"""

import re

import numpy as np
import pytest

import sklearn_rank_metrics as srm
from sklearn_rank_metrics import evaluate, mean_average_precision_score
from sklearn_rank_metrics._metrics._registry import MAX_METRIC_NAME_LENGTH, parse_metric

# one query: relevant rows at ranks 1 and 3 of 3; two relevant rows
Y, S, Q = [1, 0, 1], [0.9, 0.8, 0.7], [0, 0, 0]


@pytest.mark.parametrize(
    "name",
    [
        "map(denominator=min(k, n_relevant))@2",
        "map(denominator = min(k,n_relevant))@2",
        "map( denominator=min( k , n_relevant ) )@2",
        "map(denominator=min(k,\tn_relevant))@2",
    ],
)
def test_spaces_around_values_and_after_commas(name):
    assert str(parse_metric(name)) == "map(denominator=min(k,n_relevant))@2"
    # AP@2 over min(2, 2) relevant rows: 1/1 (rank 1) / 2 = 0.5
    assert evaluate(Y, S, Q, metrics=[name])[name] == 0.5
    assert mean_average_precision_score(Y, S, Q, k=2, denominator="min(k,n_relevant)") == 0.5


def test_spaces_after_commas_between_parameters():
    name = "ndcg(gain=exponential, ties=input,  discount=log(rank + 1))@10"
    assert str(parse_metric(name)) == "ndcg(gain=exponential,ties=input)@10"


def test_quoted_values_keep_their_spaces():
    # a quoted value is text, exactly: no name has spaces inside, so it is refused
    with pytest.raises(ValueError, match="Got 'min\\(k, n_relevant\\)' instead"):
        parse_metric("map(denominator='min(k, n_relevant)')")


def test_a_cutoff_written_as_a_parameter():
    with pytest.raises(ValueError) as error:
        parse_metric("ndcg(k=10)")
    message = str(error.value)
    assert "Unknown parameter 'k=10'" in message
    assert "the cutoff goes after @: 'ndcg@10'" in message
    assert str(parse_metric("ndcg@10")) == "ndcg@10"
    with pytest.raises(ValueError, match=r"after @: 'ndcg\(gain=exponential\)@10'"):
        parse_metric("ndcg(gain=exponential, k=10)")
    assert str(parse_metric("ndcg(gain=exponential)@10")) == "ndcg(gain=exponential)@10"
    # a metric without a cutoff gets no such advice
    with pytest.raises(ValueError) as error:
        parse_metric("num_rel(k=10)")
    assert "after @" not in str(error.value)


def test_names_separated_by_commas():
    with pytest.raises(ValueError) as error:
        evaluate(Y, S, Q, metrics="map,ndcg_cut_10")
    message = str(error.value)
    assert "It holds 2 metric names separated by commas" in message
    assert "give each name on its own: ['map', 'ndcg_cut_10']" in message
    assert "Did you mean" not in message  # not 'ndcg@10' or 'map@10'
    assert set(evaluate(Y, S, Q, metrics=["map", "ndcg_cut_10"])) == {"map", "ndcg_cut_10"}
    # a part that does not parse: no such advice
    with pytest.raises(ValueError) as error:
        parse_metric("map,nope")
    assert "separated by commas" not in str(error.value)


def test_a_metric_name_gives_each_parameter_once():
    y, s = [1, 0, 2], [0.5, 0.7, 0.9]
    with pytest.raises(ValueError, match="'gain' is given twice"):
        evaluate(y, s, metrics=["ndcg(gain=exponential,gain=linear)@10"])


# ---------------------------------------------------------------------------
# Names of any length: bounded work, suggestions that parse
# ---------------------------------------------------------------------------


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


# ---------------------------------------------------------------------------
# Keywords: scikit-learn's groups=, letter case, the parameters there are
# ---------------------------------------------------------------------------


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
