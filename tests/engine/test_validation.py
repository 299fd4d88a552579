"""The declared-parameter checks (``_engine/_validation.py``): the one message shape.

A rule is printed as users read it (``an int >= 1``); a bound that exists only to
keep arithmetic inside int64 (the cutoff's 2**62) is never printed as the rule, and
a value beyond it is told why it fails.
"""

import re

import numpy as np
import pytest

import sklearn_rank_metrics as srm
from sklearn_rank_metrics._engine._validation import Interval, check_parameter

Y, S, Q = [1, 0, 2, 0], [0.4, 0.3, 0.2, 0.1], [1, 1, 2, 2]
BIG = str(2**62)


@pytest.mark.parametrize("k", [0, -3])
@pytest.mark.parametrize(
    "function", [srm.ndcg_score, srm.precision_at_k_score, srm.mean_average_precision_score]
)
def test_the_k_rule_reads_k_at_least_one(function, k):
    message = (
        f"The 'k' parameter of {function.__name__} must be an int >= 1 or None. "
        f"Got {k} instead."
    )
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        function(Y, S, Q, k=k)


def test_a_k_beyond_int64_arithmetic_says_why():
    with pytest.raises(ValueError) as error:
        srm.ndcg_score(Y, S, Q, k=2**63)
    message = str(error.value)
    assert message.startswith(
        "The 'k' parameter of ndcg_score must be an int >= 1 or None. "
        f"Got {2**63} instead: a cutoff above 2**62"
    )
    assert "k=None for no cutoff" in message
    assert srm.ndcg_score(Y, S, Q, k=2**62) == srm.ndcg_score(Y, S, Q)  # the limit itself


@pytest.mark.parametrize(
    ("name", "shown"),
    [("ndcg@0", "got 0."), ("ndcg@" + "9" * 20, "got a number of 20 digits")],
)
def test_a_cutoff_in_a_metric_name_reads_k_at_least_one(name, shown):
    with pytest.raises(ValueError, match=r"must be an int >= 1; ") as error:
        srm.evaluate(Y, S, Q, metrics=[name])
    assert shown in str(error.value)
    assert BIG not in str(error.value)


def test_a_type_error_names_the_rule_without_the_limit():
    with pytest.raises(TypeError, match=r"must be an int >= 1 or None\. Got 'ten' instead\.$"):
        srm.ndcg_score(Y, S, Q, k="ten")


def test_interval_without_a_note_prints_both_bounds():
    both = r"must be an int in the range \[1, 5\]\. Got 6 instead\.$"
    with pytest.raises(ValueError, match=both):
        check_parameter("f", "n", 6, [Interval(int, 1, 5)])
    with pytest.raises(ValueError, match=r"must be an int >= 1\. Got 6 instead: too big\.$"):
        check_parameter("f", "n", 6, [Interval(int, 1, 5, beyond=": too big")])
    check_parameter("f", "n", np.int64(5), [Interval(int, 1, 5, beyond=": too big")])
