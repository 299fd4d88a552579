"""MetricAtKDisplay names its metric without a cutoff: messages propose such a name."""

import pytest

from sklearn_rank_metrics import MetricAtKDisplay

# one query: relevant rows at ranks 1 and 3 of 3
Y, S, Q = [1, 0, 1], [0.9, 0.8, 0.7], [0, 0, 0]


@pytest.mark.parametrize(("metric", "ours"), [("P", "p"), ("ndcg_cut", "ndcg")])
def test_display_proposes_our_name_without_cutoff(metric, ours):
    with pytest.raises(ValueError) as error:
        MetricAtKDisplay.from_predictions(Y, S, Q, metric=metric, k_max=2)
    message = str(error.value)
    assert f"Pass metric={ours!r}." in message
    assert "_10" not in message  # not trec_eval's 'P_10', which the display refuses
    display = MetricAtKDisplay.from_predictions(
        Y, S, Q, metric=ours, k_max=2, confidence_level=None
    )
    # P@1 = 1, P@2 = 1/2; nDCG@1 = 1, nDCG@2 = 1 / (1 + 1/log2(3))
    expected = {"p": [1.0, 0.5], "ndcg": [1.0, 1.0 / (1.0 + 1.0 / 1.584962500721156)]}[ours]
    (values,) = display.values.values()
    assert list(values) == pytest.approx(expected, rel=1e-12)
