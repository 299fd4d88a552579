"""Metric names: spaces inside parameter values, and the messages for common slips.

Each message is checked for the spelling it proposes, and each proposed spelling
is checked to work; the values are computed by hand.
"""

import pytest

from sklearn_rank_metrics import evaluate, mean_average_precision_score
from sklearn_rank_metrics._metrics._registry import parse_metric

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
