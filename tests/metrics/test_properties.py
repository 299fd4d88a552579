"""Property-based tests (hypothesis) over every metric of the registry.

Every metric in ``sklearn_rank_metrics._metrics._registry.METRICS`` is covered, with parameter
variants read from its function's ``_parameter_constraints`` (every ``Options`` value,
plus a few values for numeric and array/callable parameters, see ``EXTRA_VALUES``),
with ``k`` in {None, 1, 3} when the metric takes a cutoff (all three, or one drawn
per example).  A metric added to the registry is picked up automatically; a parameter
without variants, or a metric whose ideal-order value is not classified here, fails
``test_every_registered_metric_is_classified``, and a metric with its own per-query
weight fails property 7 until ``metric_weight`` knows it.

Properties (each written once: the seeded fixed cases of ``test_common.py`` are
``@example`` cases of 1-6, see "Fixed cases"); 1, 2, 3 and 6 compare means under a
drawn ``replace_undefined_by`` policy (0, 1, "skip", nan) and with query weights:

1. shuffling rows (query ids in any order) changes nothing, for the ``ties`` modes
   "average", "optimistic" and "pessimistic";
2. renaming query ids (ints to strings, any injective relabelling, a pandas
   Categorical) changes nothing, and the per-query table follows the renaming;
3. a strictly increasing transform of the finite scores changes nothing (every
   ``ties`` mode); scores come from a small integer grid so that the transform
   keeps distinct scores distinct in floating point (checked);
4. normalised (``bounded_01``) metrics lie in [0, 1], the mean and every per-query
   value, whatever the undefined-query replacement (0 or 1);
5. the ideal order scores exactly 1 where (and only where) the definition says so;
6. 2-D input equals the equivalent flat input with query ids;
7. ``evaluate(..., per_query=True)`` values average to the returned mean, with query
   weights and every ``replace_undefined_by`` policy;
8. ``ties="pessimistic" <= "input" (any input order) <= "optimistic"`` and
   ``"pessimistic" <= "average" <= "optimistic"``, per query, wherever the README
   says the bounds hold.

Inputs are small (1-8 queries of 1-8 rows, labels 0..3, scores from a grid of five
values plus ``-inf`` = unretrieved rows), and every test is derandomised.
"""

from __future__ import annotations

import functools
import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sklearn_rank_metrics import evaluate
from sklearn_rank_metrics._engine._validation import Options
from sklearn_rank_metrics._metrics._registry import METRICS, parse_metric
from tests.support import metric_data

NAMES = sorted(METRICS)
TIES = ("average", "input", "optimistic", "pessimistic")
ORDER_FREE_TIES = ("average", "optimistic", "pessimistic")  # do not read the input order
SCORE_GRID = (0.0, 1.0, 2.0, 3.0, 4.0)
LABELS = (0, 1, 2, 3)
WEIGHTS = (0.5, 1.0, 2.0, 3.0)
NAN_POLICY = math.nan
POLICIES = (0.0, 1.0, "skip", NAN_POLICY)  # replace_undefined_by ("raise" aside)

# Every parameter named here is handled by the properties themselves: k is looped
# over or drawn, ties is drawn (or looped over), replace_undefined_by is property 7's
# subject (other tests use each metric's default), ignore_ties=True is ties="input",
# and sample_weight is drawn with the data.
# A parameter some value of which takes a bounded metric out of [0, 1] (its declared
# value_range: RBP's graded=True) is not varied either: the reference harness and
# tests/test_rbp.py cover those values.
HANDLED = {"k", "ties", "replace_undefined_by", "ignore_ties", "sample_weight"}
UNBOUNDING = {
    parameter
    for info in METRICS.values()
    if info.bounded_01
    for parameter, constraints in info.function._parameter_constraints.items()
    for value in [o for c in constraints if isinstance(c, Options) for o in c.options]
    + [b for c in constraints if str(c) == "a bool" for b in (True, False)]
    if info.value_range({**info.defaults, parameter: value}) != (0.0, 1.0)
}
NOT_VARIED = HANDLED | UNBOUNDING

# Values of parameters that are not (only) a set of options.  The gains are monotone
# in the label, so "higher label first" is also "higher gain first" (properties 5, 8).
EXTRA_VALUES: dict[str, tuple[Any, ...]] = {
    "gain": ([0.0, 1.0, 2.5, 10.0], np.sqrt),
    "log_base": (10.0,),
    "beta": (0.5, 2.0),
    "max_grade": (5.0,),
    "relevance_level": (2.0,),
    "p": (0.5, 0.95),
    "recall": (0.5, 1.0),
    "count_unanswered": (False,),
}


def assert_close(actual, expected, message=""):
    """Equal within rtol=1e-9, atol=1e-12; NaN only equals NaN.

    A mean is NaN where the undefined-query policy makes it so (``nan`` and an
    undefined query, or nothing left to average); invariances must keep that too.
    """
    np.testing.assert_allclose(actual, expected, rtol=1e-9, atol=1e-12, err_msg=message)


# ---------------------------------------------------------------------------
# Variants of every registered metric
# ---------------------------------------------------------------------------


def _is_default(value: Any, default: Any) -> bool:
    scalar = (str, int, float, type(None))
    return isinstance(value, scalar) and isinstance(default, scalar) and value == default


@functools.cache
def defaults_of(name: str) -> dict[str, Any]:
    return METRICS[name].defaults  # (inspect.signature: cached, the tests call it often)


@functools.cache
def variants(name: str) -> list[dict[str, Any]]:
    """The default settings, then each non-default value of each parameter alone."""
    info = METRICS[name]
    defaults = defaults_of(name)
    out: list[dict[str, Any]] = [{}]
    for parameter, constraints in info.function._parameter_constraints.items():
        if parameter in NOT_VARIED or parameter in info.fixed_params:
            continue
        options = [o for c in constraints if isinstance(c, Options) for o in c.options]
        for value in [*options, *EXTRA_VALUES.get(parameter, ())]:
            if not _is_default(value, defaults.get(parameter)):
                out.append({parameter: value})
    return out


def _show(value: Any) -> str:
    if callable(value):
        return value.__name__
    if isinstance(value, list):
        return "array"
    return str(value)


def variant_id(name: str, params: dict[str, Any]) -> str:
    shown = ",".join(f"{key}={_show(value)}" for key, value in params.items())
    return f"{name}({shown})" if shown else name


CUTOFFS = (None, 1, 3)


def k_values(name: str, drawn: Any = CUTOFFS) -> tuple[int | None, ...]:
    """The cutoffs to run: all of ``CUTOFFS``, one drawn by hypothesis, or the tuple of
    cutoffs an ``@example`` gives (None if no k)."""
    if not METRICS[name].takes_k:
        return (None,)
    return drawn if isinstance(drawn, tuple) else (drawn,)


def settings_of(name: str, params: dict[str, Any]) -> dict[str, Any]:
    """Every parameter value in effect: defaults, fixed parameters, the variant."""
    return {**defaults_of(name), **params}


# bpref, Judged@k and RBP's residual / upper bound read which rows were judged: every
# row of these data is judged (judged=True here, and in the ``evaluate`` calls below)
TAKES_JUDGED = {"bpref", "judged", "rbp"}


# A setting given as None is left at the metric's default (the fixed ``@example`` cases)
LEFT_AT_DEFAULT_IF_NONE = ("ties", "replace_undefined_by")


def call(name, params, y_true, y_score, group=None, **kwargs) -> float:
    """The registry metric's public function with its fixed parameters and ``params``.

    ``ties=None`` or ``replace_undefined_by=None``: the keyword is not passed.
    """
    info = METRICS[name]
    kwargs = {
        key: value
        for key, value in kwargs.items()
        if not (value is None and key in LEFT_AT_DEFAULT_IF_NONE)
    }
    if name in TAKES_JUDGED:
        kwargs = {"judged": True, **kwargs}
    return info.function(y_true, y_score, group, **{**info.fixed_params, **params, **kwargs})


def with_k(k: int | None) -> dict[str, int]:
    return {} if k is None else {"k": k}


def metric_text(name: str, params: dict[str, Any], k: int | None, **extra: Any) -> str | None:
    """The ``evaluate`` name of a variant, or None if it has no text form (array gain).

    An ``extra`` setting given as None is left out (the metric's default).
    """
    items = {**params, **{key: value for key, value in extra.items() if value is not None}}
    if not all(isinstance(value, (str, int, float)) for value in items.values()):
        return None
    text = name
    if items:
        text += "(" + ",".join(f"{key}={value}" for key, value in items.items()) + ")"
    return text if k is None else f"{text}@{k}"


TEXT_VARIANTS = {
    name: [params for params in variants(name) if metric_text(name, params, None) is not None]
    for name in NAMES
}


# ---------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Flat:
    """Flat rows: labels, scores, int query ids (any order), per-row query weights.

    ``weight`` None: no ``sample_weight`` is passed (the unweighted fixed cases).
    """

    y_true: np.ndarray
    y_score: np.ndarray
    group: np.ndarray
    weight: np.ndarray | None

    def take(self, rows: np.ndarray) -> Flat:
        weight = None if self.weight is None else self.weight[rows]
        return Flat(self.y_true[rows], self.y_score[rows], self.group[rows], weight)


@dataclass(frozen=True)
class Stats:
    """Per query, in sorted id order (the order of ``evaluate``'s ``query`` column)."""

    ids: np.ndarray
    n_rows: np.ndarray
    n_relevant: np.ndarray
    n_retrieved: np.ndarray
    weight: np.ndarray


def stats_of(data: Flat, relevance_level: float | None = None) -> Stats:
    ids, index = np.unique(data.group, return_inverse=True)
    relevant = data.y_true > 0 if relevance_level is None else data.y_true >= relevance_level
    weight = np.empty(len(ids))
    weight[index] = 1.0 if data.weight is None else data.weight

    def count(values):
        return np.bincount(index, weights=values.astype(float), minlength=len(ids))

    return Stats(
        ids,
        count(np.ones(len(index))),
        count(relevant),
        count(np.isfinite(data.y_score)),
        weight,
    )


def digits(draw, size: int, base: int) -> list[int]:
    """``size`` digits in ``0..base-1`` from one draw (cheap; shrinks towards all 0)."""
    code = draw(st.integers(0, base**size - 1))
    return [(code // base**position) % base for position in range(size)]


def shuffled_rows(draw, n_rows: int) -> np.ndarray:
    """A random row permutation (from one drawn seed)."""
    seed = draw(st.integers(0, 2**32 - 1))
    return np.random.default_rng(seed).permutation(n_rows)


@st.composite
def flat_queries(draw, neg_inf=True, weights=WEIGHTS, ideal=False):
    """1-8 queries of 1-8 rows with distinct int ids, rows of all queries shuffled.

    Labels 0..3; scores from ``SCORE_GRID`` (ties are frequent) and, with ``neg_inf``,
    ``-inf`` (unretrieved rows).  ``ideal``: every query holds a row labelled 3
    (relevant at every relevance level used here) and is scored in label order:
    either ``score = label`` (ties only between equal labels) or distinct scores;
    with ``neg_inf`` some label-0 rows are unretrieved, which keeps the order ideal.
    """
    n_queries = draw(st.integers(1, 8))
    ids = draw(
        st.lists(st.integers(-(10**6), 10**6), min_size=n_queries, max_size=n_queries, unique=True)
    )
    grid = SCORE_GRID + ((-math.inf,) if neg_inf else ())
    y_true, y_score, group, weight = [], [], [], []
    for query in ids:
        size = draw(st.integers(1, 8))
        labels = digits(draw, size, len(LABELS))
        if ideal:
            labels = sorted([3, *labels[1:]], reverse=True)
            if draw(st.booleans()):
                scores = [float(label) for label in labels]
            else:
                scores = [float(size - position) for position in range(size)]
            if neg_inf:
                hidden = digits(draw, size, 2)
                scores = [
                    -math.inf if hide and label == 0 else score
                    for hide, label, score in zip(hidden, labels, scores, strict=True)
                ]
        else:
            scores = [grid[index] for index in digits(draw, size, len(grid))]
        y_true += labels
        y_score += scores
        group += [query] * size
        weight += [draw(st.sampled_from(weights))] * size
    data = Flat(
        np.asarray(y_true, dtype=float),
        np.asarray(y_score, dtype=float),
        np.asarray(group, dtype=np.int64),
        np.asarray(weight, dtype=float),
    )
    return data.take(shuffled_rows(draw, len(y_true)))


@st.composite
def flat_and_permutation(draw):
    data = draw(flat_queries())
    return data, shuffled_rows(draw, len(data.y_true))


def order_keeping_shuffle(draw, group: np.ndarray) -> np.ndarray:
    """A random interleaving of the queries that keeps each query's rows in order."""
    rows = shuffled_rows(draw, len(group))
    for query in np.unique(group):
        positions = np.flatnonzero(group[rows] == query)
        rows[positions] = np.sort(rows[positions])
    return rows


# ---------------------------------------------------------------------------
# Fixed cases: the seeded data of test_common.py, run as ``@example`` cases
# ---------------------------------------------------------------------------

# Each property below is written once, here; its fixed cases (once separate tests of
# test_common.py) are explicit examples of its hypothesis test. In them, ``ties`` or
# ``policy`` None leaves the metric's default, ``cutoff`` is the tuple of cutoffs the
# fixed case ran (None and 3), and a ``Flat`` without weights passes no ``sample_weight``.

FIXED_CUTOFFS = (None, 3)
DEFAULT_SETTINGS = {"ties": None, "cutoff": FIXED_CUTOFFS, "policy": None}


def _flat(data: metric_data.Data, weighted: bool) -> Flat:
    weight = data.sample_weight if weighted else None
    return Flat(data.y_true, data.y_score, data.group, weight)


def _row_orders(n_rows: int) -> list[np.ndarray]:
    """Reversed, then two seeded permutations."""
    rng = np.random.default_rng(12345)
    return [np.arange(n_rows)[::-1], rng.permutation(n_rows), rng.permutation(n_rows)]


def row_order_cases() -> list[dict[str, Any]]:
    """Three seeds, with and without -inf, three row orders, unweighted and weighted;
    then two inputs of few large queries (large tie blocks), weighted."""
    cases = []
    for seed in range(3):
        for neg_inf in (False, True):
            data = metric_data.make_data(seed, neg_inf=neg_inf)
            for rows in _row_orders(len(data.y_true)):
                for weighted in (False, True):
                    case = (_flat(data, weighted), rows)
                    cases.append({"case": case, **DEFAULT_SETTINGS})
    for seed in range(2):
        data = metric_data.make_large_tie_blocks(seed)
        rows = np.random.default_rng(seed).permutation(len(data.y_true))
        case = (_flat(data, True), rows)
        cases.append({"case": case, **DEFAULT_SETTINGS})
    return cases


def relabelling_cases() -> list[dict[str, Any]]:
    """Ids renamed to permuted ints and to strings, unweighted and weighted."""
    cases = []
    for seed in range(2):
        data = metric_data.make_data(seed, neg_inf=True)
        ids = np.unique(data.group).tolist()
        perm = np.random.default_rng(1).permutation(len(ids))
        id_maps = {
            "fixed_ints": dict(zip(ids, (1000 - 17 * perm).tolist(), strict=True)),
            "fixed_strings": dict(zip(ids, [f"query-{p}" for p in perm], strict=True)),
        }
        for kind, id_map in id_maps.items():
            group = np.array([id_map[q] for q in data.group.tolist()])
            for weighted in (False, True):
                case = (_flat(data, weighted), kind, group, id_map)
                cases.append({"case": case, **DEFAULT_SETTINGS})
    return cases


def transform_cases() -> list[dict[str, Any]]:
    """Two seeds (finite scores), four transforms, every ties mode, unweighted."""
    return [
        {
            "data": _flat(metric_data.make_data(seed), False),
            "transform": transform,
            "ties": ties,
            "cutoff": FIXED_CUTOFFS,
            "policy": None,
        }
        for seed in range(2)
        for transform in ("exp", "affine", "arctan", "cube_shift")
        for ties in TIES
    ]


def unit_interval_cases() -> list[dict[str, Any]]:
    """Four seeds, with and without -inf, every ties mode, unweighted."""
    return [
        {
            "data": _flat(metric_data.make_data(seed, neg_inf=neg_inf), False),
            "ties": ties,
            "cutoff": FIXED_CUTOFFS,
        }
        for seed in range(4)
        for neg_inf in (False, True)
        for ties in TIES
    ]


def ideal_order_cases() -> list[dict[str, Any]]:
    """Three seeds of ideal orders: every ties mode unweighted, the default weighted."""
    cases = []
    for seed in range(3):
        data = metric_data.make_ideal(seed)
        assert len(np.unique(data.y_score)) == len(data.y_score)  # one order for every ties
        cases += [{"data": _flat(data, False), "ties": ties} for ties in TIES]
        cases.append({"data": _flat(data, True), "ties": None})
    return cases


def two_dimensional_cases() -> list[dict[str, Any]]:
    """One 8 x 6 input (a query without a relevant row) against its rows flat."""
    y_true, y_score, weight = metric_data.make_2d(seed=4)
    n_queries, n_docs = y_true.shape
    flat = Flat(
        y_true.ravel(),
        y_score.ravel(),
        np.repeat(np.arange(n_queries), n_docs),
        np.repeat(weight, n_docs),
    )
    return [
        {
            "case": (y_true, y_score, weight, flat),
            "ties": ties,
            "weighted": weighted,
            "cutoff": FIXED_CUTOFFS,
            "policy": None,
        }
        for ties in TIES
        for weighted in (False, True)
    ]


def fixed_cases(cases: list[dict[str, Any]]):
    """Decorator: each case an ``@example`` of the hypothesis test, in order."""

    def decorate(test):
        for case in reversed(cases):
            test = example(**case)(test)
        return test

    return decorate


# ---------------------------------------------------------------------------
# What the properties need to know about each metric
# ---------------------------------------------------------------------------


# Per-query weight a metric multiplies into sample_weight (function -> parameter ->
# value -> weight), from the README / docstrings: micro hit rate weights recall by the
# number of relevant rows, GAUC weights by rows or positives on request.
def metric_weight(name: str, params: dict[str, Any], stats: Stats) -> np.ndarray:
    setting = settings_of(name, params)
    function = METRICS[name].function.__name__
    if function == "hit_rate_score" and setting["average"] == "micro":
        return stats.n_relevant
    if function == "group_roc_auc_score":
        return {
            "uniform": np.ones(len(stats.ids)),
            "rows": stats.n_rows,
            "positives": stats.n_relevant,
        }[setting["query_weight"]]
    return np.ones(len(stats.ids))


def undefined_queries(name: str, params: dict[str, Any], stats: Stats) -> np.ndarray:
    """Queries without a relevant row (GAUC: with one class), ties-independent metrics.

    For the gain metrics "no relevant row" is "no row with a positive gain"; every gain
    used here is positive exactly for labels > 0.
    """
    if METRICS[name].function.__name__ == "group_roc_auc_score":
        return (stats.n_relevant == 0) | (stats.n_relevant == stats.n_rows)
    if METRICS[name].always_defined or params.get("part") in ("residual", "upper"):
        return np.zeros(len(stats.n_relevant), dtype=bool)
    if METRICS[name].undefined_without == "non_relevant":  # fall-out
        return stats.n_relevant == stats.n_rows
    return stats.n_relevant == 0


# The two variants whose value is not monotone in the tie order (README, "Ties"):
# there "optimistic" / "pessimistic" mean relevant rows first / last, not max / min.
BOUNDS_DO_NOT_HOLD = {
    ("mean_average_precision_score", "denominator", "n_relevant_in_top_k"),
    ("ndcg_score", "ideal", "top_k"),
}


def bounds_hold(name: str, params: dict[str, Any]) -> bool:
    setting = settings_of(name, params)
    function = METRICS[name].function.__name__
    return not any(f == function and setting.get(p) == v for f, p, v in BOUNDS_DO_NOT_HOLD)


def partly_undefined(name: str, params: dict[str, Any]) -> bool:
    """NDCG with ideal="top_k" is undefined in the tie orders with no gain in the top k."""
    setting = settings_of(name, params)
    return METRICS[name].function.__name__ == "ndcg_score" and setting["ideal"] == "top_k"


# Metrics that make no claim about the ideal order, and why.
NO_IDEAL_CLAIM = {
    # not normalised: the ideal order gives the ideal DCG, not 1
    "dcg_score": "not normalised",
    "idcg_score": "not normalised: the ideal DCG itself",
    # ERR of the ideal order is sum_r R_r / r * prod(1 - R_i) with R(g) = (2^g - 1) /
    # 2^g_max < 1, so it is below 1 for every query
    "expected_reciprocal_rank_score": "stop probability R(g) < 1",
    # the share of judged rows in the top k: not a property of the order
    "judged_at_k_score": "judgement coverage, not the order",
    # the ideal order leaves p^R of the weight past the R relevant rows: below 1
    "rbp_score": "1 - p^R < 1",
    # counts of rows, not a share
    "retrieval_count_score": "a count",
}
# a lower-is-better metric (registry's greater_is_better) scores 0, not 1, in the ideal
# order: its own tests claim that
NO_IDEAL_CLAIM.update(
    {
        info.function.__name__: "lower is better: the ideal order scores 0"
        for info in METRICS.values()
        if not info.greater_is_better
    }
)


def ideal_is_one(name: str, params: dict[str, Any], k: int | None, stats: Stats) -> np.ndarray:
    """Per query: whether the metric equals 1 for the ideal order (False: it is < 1).

    Ideal order: all relevant rows first (by label, higher first), every relevant row
    retrieved, so hits@k = min(n_rel, k).  With ``d`` the precision denominator
    (k, or min(k, n_retrieved); n_retrieved without a cutoff):

    * NDCG (ideal="all" or "top_k", monotone gains): DCG equals the ideal DCG -> 1.
    * MRR, hit rate (macro), MAP with denominator min(k, n_rel) or
      n_relevant_in_top_k: the first rank is relevant / every precision is 1 -> 1.
    * MAP (denominator n_rel), recall, micro hit rate (per query: recall):
      min(n_rel, k) / n_rel -> 1 iff n_rel <= k (precision@k is not 1 if fewer than
      k relevant rows exist, and conversely recall is not 1 if more than k exist).
    * P@k: hits / d -> 1 iff n_rel >= d.
    * F-beta@k: (1 + b^2) hits / (b^2 n_rel + d) with hits <= n_rel, hits <= d -> 1
      iff n_rel == d.
    * GAUC: every positive above every negative -> 1 (one-class queries undefined).
    * R-precision: the R relevant rows fill the first R ranks -> 1.
    * bpref: no non-relevant row above any relevant row, all retrieved -> 1.
    * interpolated precision (every level) and 11pt_avg: every relevant row at
      rank j has precision 1, and all are retrieved -> 1.
    """
    setting = settings_of(name, params)
    function = METRICS[name].function.__name__
    n_rel, n_ret = stats.n_relevant, stats.n_retrieved
    always = np.ones(len(stats.ids), dtype=bool)
    within_k = always if k is None else n_rel <= k
    if k is None:
        d = n_ret
    elif setting.get("denominator") == "k":
        d = np.full(len(stats.ids), float(k))
    else:
        d = np.minimum(k, n_ret)
    if function == "ndcg_score":
        return always
    if function == "mean_average_precision_score":
        return within_k if setting["denominator"] == "n_relevant" else always
    if function in (
        "mean_reciprocal_rank_score", "group_roc_auc_score", "r_precision_score", "bpref_score",
        "interpolated_precision_score", "eleven_point_precision_score",
    ):
        return always
    if function == "precision_at_k_score":
        return n_rel >= d
    if function == "recall_at_k_score":
        return within_k
    if function == "fbeta_at_k_score":
        return n_rel == d
    if function == "hit_rate_score":
        return always if setting["average"] == "macro" else within_k
    raise AssertionError(f"no ideal-order claim for {function}; classify it")


def test_every_registered_metric_is_classified():
    """New metrics and parameters must be placed in the tables above, not skipped."""
    for name in NAMES:
        info = METRICS[name]
        for parameter, constraints in info.function._parameter_constraints.items():
            varied = parameter in NOT_VARIED or parameter in info.fixed_params
            has_options = any(isinstance(c, Options) for c in constraints)
            assert varied or has_options or parameter in EXTRA_VALUES, (name, parameter)
        if info.function.__name__ not in NO_IDEAL_CLAIM:
            stats = Stats(*(np.ones(1) for _ in range(5)))
            for params in variants(name):
                ideal_is_one(name, params, None, stats)  # raises if unclassified


@pytest.mark.parametrize("name", NAMES)
def test_variant_texts_parse_back_to_the_variant(name):
    """Sanity of the test: the evaluate names used below mean the intended variant."""
    assert TEXT_VARIANTS[name], name
    for params in TEXT_VARIANTS[name]:
        for k in k_values(name):
            spec = parse_metric(metric_text(name, params, k, ties="pessimistic"))
            expected = {**METRICS[name].fixed_params, **params, "ties": "pessimistic"}
            assert dict(spec.params) == {**expected, **with_k(k)}


def test_text_name_with_discount_none():
    # The unquoted word none is the discount "none" here, not None.
    y_true, y_score = [1.0, 0.0, 2.0], [0.3, 0.2, 0.1]
    got = evaluate(y_true, y_score, [0, 0, 0], metrics=["dcg(discount=none)@3", "cg@3"])
    assert got["dcg(discount=none)@3"] == got["cg@3"]


# ---------------------------------------------------------------------------
# 1. Row order
# ---------------------------------------------------------------------------

# Every test is parametrised by metric and loops over the metric's variants (and the
# cutoffs, or draws one) inside each example, so one generated input serves them all.
ALL_SKIPPED = "ignore:.*no query is left to average:UserWarning"


def _xyg(data: Flat):
    return data.y_true, data.y_score, data.group


@pytest.mark.filterwarnings(ALL_SKIPPED)  # GAUC of one-class queries only: NaN both times
@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    policy=st.sampled_from(POLICIES),
    cutoff=st.sampled_from(CUTOFFS),
    case=flat_and_permutation(),
    ties=st.sampled_from(ORDER_FREE_TIES),
)
@fixed_cases(row_order_cases())
def test_row_shuffle_does_not_matter(name, case, ties, cutoff, policy):
    data, rows = case
    shuffled = data.take(rows)
    for params in variants(name):
        for k in k_values(name, cutoff):
            kwargs = {"ties": ties, "replace_undefined_by": policy, **with_k(k)}
            expected = call(name, params, *_xyg(data), sample_weight=data.weight, **kwargs)
            got = call(name, params, *_xyg(shuffled), sample_weight=shuffled.weight, **kwargs)
            assert_close(got, expected, f"{variant_id(name, params)} k={k}")


# ---------------------------------------------------------------------------
# 2. Query ids
# ---------------------------------------------------------------------------

RENAMINGS = ("strings", "object_series", "ints", "categorical", "categorical_ints")


@st.composite
def relabelled(draw):
    """Data, a renaming kind, and the renamed group with the id map old -> new."""
    data = draw(flat_queries())
    ids = np.unique(data.group).tolist()
    new = draw(st.lists(st.integers(0, 10**9), min_size=len(ids), max_size=len(ids), unique=True))
    new_ints = dict(zip(ids, new, strict=True))
    kind = draw(st.sampled_from(RENAMINGS))
    strings = np.array([f"q{q}" for q in data.group])  # sorts unlike the ints
    if kind == "strings":
        group, id_map = strings, {q: f"q{q}" for q in ids}
    elif kind == "object_series":
        index = np.arange(len(strings)) + 7  # a non-default index
        group, id_map = pd.Series(strings.astype(object), index=index), {q: f"q{q}" for q in ids}
    elif kind == "ints":
        group, id_map = np.array([new_ints[q] for q in data.group]), new_ints
    elif kind == "categorical":
        # categories in an arbitrary order, with one that no row uses
        categories = [f"q{new_ints[q]}" for q in ids][::-1] + ["unused id"]
        group = pd.Categorical([f"q{new_ints[q]}" for q in data.group], categories=categories)
        id_map = {q: f"q{new_ints[q]}" for q in ids}
    else:
        group, id_map = pd.Categorical(data.group, categories=ids[::-1]), {q: q for q in ids}
    return data, kind, group, id_map


@pytest.mark.filterwarnings(ALL_SKIPPED)
@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=15, deadline=None, derandomize=True)
@given(
    policy=st.sampled_from(POLICIES),
    cutoff=st.sampled_from(CUTOFFS),
    case=relabelled(),
    ties=st.sampled_from(TIES),
)
@fixed_cases(relabelling_cases())
def test_query_relabelling_does_not_matter(name, case, ties, cutoff, policy):
    """The mean (weighted) is unchanged and the per-query table follows the renaming."""
    data, kind, group, id_map = case
    for params in variants(name):
        for k in k_values(name, cutoff):
            kwargs = {
                "ties": ties,
                "replace_undefined_by": policy,
                "sample_weight": data.weight,
                **with_k(k),
            }
            expected = call(name, params, *_xyg(data), **kwargs)
            got = call(name, params, data.y_true, data.y_score, group, **kwargs)
            assert_close(got, expected, f"{variant_id(name, params)} k={k}, ids as {kind}")
    texts = [
        metric_text(name, params, k, ties=ties)
        for params in TEXT_VARIANTS[name]
        for k in k_values(name, cutoff)
    ]
    common = {
        "metrics": texts,
        "replace_undefined_by": NAN_POLICY,
        "per_query": True,
        "judged": True,
    }
    table = evaluate(*_xyg(data), **common)
    ids = np.unique(data.group)
    np.testing.assert_array_equal(table["query"].to_numpy(), ids)
    renamed = evaluate(data.y_true, data.y_score, group, **common).set_index("query")
    assert len(renamed) == len(ids), kind  # an unused category is no query
    rows = renamed.loc[[id_map[q] for q in ids.tolist()]]
    for text in texts:
        assert_close(rows[text].to_numpy(float), table[text].to_numpy(float), f"{kind} {text}")


# ---------------------------------------------------------------------------
# 3. Strictly increasing transforms of the scores
# ---------------------------------------------------------------------------

# On the grid 0..4 each keeps distinct scores distinct in float64 (checked below).
TRANSFORMS = {
    "affine": lambda s: 3.0 * s + 1.0,
    "exp": np.exp,
    "arctan": np.arctan,
    "negative_reciprocal": lambda s: -1.0 / (s + 0.5),
    "tiny_scale_and_shift": lambda s: 1e-6 * s - 1e3,
    "cube_shift": lambda s: (s - 0.45) ** 3,  # (from test_common.py's fixed cases)
}


@pytest.mark.filterwarnings(ALL_SKIPPED)
@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    policy=st.sampled_from(POLICIES),
    cutoff=st.sampled_from(CUTOFFS),
    data=flat_queries(),
    transform=st.sampled_from(sorted(TRANSFORMS)),
    ties=st.sampled_from(TIES),
)
@fixed_cases(transform_cases())
def test_strictly_increasing_score_transform_does_not_matter(
    name, data, transform, ties, cutoff, policy
):
    finite = np.isfinite(data.y_score)
    new_score = data.y_score.copy()  # -inf (unretrieved) stays -inf
    new_score[finite] = TRANSFORMS[transform](data.y_score[finite])
    assert np.isfinite(new_score[finite]).all()
    for compare in (np.greater, np.equal):  # same order, same ties
        np.testing.assert_array_equal(
            compare.outer(new_score, new_score), compare.outer(data.y_score, data.y_score)
        )
    for params in variants(name):
        for k in k_values(name, cutoff):
            kwargs = {
                "ties": ties,
                "replace_undefined_by": policy,
                "sample_weight": data.weight,
                **with_k(k),
            }
            expected = call(name, params, *_xyg(data), **kwargs)
            got = call(name, params, data.y_true, new_score, data.group, **kwargs)
            assert_close(got, expected, f"{variant_id(name, params)} k={k}, {transform}")


# ---------------------------------------------------------------------------
# 4. Normalised metrics lie in [0, 1]
# ---------------------------------------------------------------------------

# Rounding: DCG / ideal DCG of an ideal order can be 1 + 1 ulp (ndcg_score([3, 3], [0, 1])
# is 1.0000000000000002), so the bounds hold up to the tolerance used for all float checks.
EPS = 1e-12
BOUNDED_NAMES = [name for name in NAMES if METRICS[name].bounded_01]


@pytest.mark.parametrize("name", BOUNDED_NAMES)
@settings(max_examples=25, deadline=None, derandomize=True)
@given(cutoff=st.sampled_from(CUTOFFS), data=flat_queries(), ties=st.sampled_from(TIES))
@fixed_cases(unit_interval_cases())
def test_normalised_metrics_lie_in_unit_interval(name, data, ties, cutoff):
    """The mean, and every per-query value, under the replacements 0 and 1."""
    for params in variants(name):
        stats = stats_of(data, settings_of(name, params).get("relevance_level"))
        nothing_to_average = (stats.weight * metric_weight(name, params, stats)).sum() == 0
        for k in k_values(name, cutoff):
            for policy in (0.0, 1.0):
                kwargs = {"ties": ties, "replace_undefined_by": policy, **with_k(k)}
                where = f"{variant_id(name, params)} k={k} policy={policy}"
                if nothing_to_average:  # e.g. micro hit rate without any relevant row
                    with pytest.warns(UserWarning, match="no query is left"):
                        value = call(name, params, *_xyg(data), sample_weight=data.weight, **kwargs)
                    assert math.isnan(value), where
                    continue
                value = call(name, params, *_xyg(data), sample_weight=data.weight, **kwargs)
                assert -EPS <= value <= 1.0 + EPS, (where, value)
    texts = [
        metric_text(name, params, k, ties=ties)
        for params in TEXT_VARIANTS[name]
        for k in k_values(name, cutoff)
    ]
    for policy in (0.0, 1.0):
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", ".*no query is left", UserWarning)  # means unused
            table = evaluate(
                *_xyg(data),
                metrics=texts,
                replace_undefined_by=policy,
                per_query=True,
                judged=True,
            )
        for text in texts:
            values = table[text].to_numpy(float)
            assert ((values >= -EPS) & (values <= 1.0 + EPS)).all(), (text, policy, values)


# ---------------------------------------------------------------------------
# 5. The ideal order scores 1
# ---------------------------------------------------------------------------

IDEAL_NAMES = [name for name in NAMES if METRICS[name].function.__name__ not in NO_IDEAL_CLAIM]


@pytest.mark.parametrize("name", IDEAL_NAMES)
@settings(max_examples=25, deadline=None, derandomize=True)
@given(data=flat_queries(ideal=True), ties=st.sampled_from(TIES))
@fixed_cases(ideal_order_cases())
def test_ideal_order_scores_one(name, data, ties):
    """Exactly 1 where ``ideal_is_one`` says so, below 1 elsewhere.

    The ideal data ties only rows of equal label, so every ties mode sees the same
    order (one is drawn).  Per query (``evaluate``, NaN policy) for the variants with
    a text name, the mean for the others (array / callable gains of NDCG, where the
    claim is unconditional).
    """
    texts = {}
    for params in variants(name):
        stats = stats_of(data, settings_of(name, params).get("relevance_level"))
        for k in k_values(name):
            claim = ideal_is_one(name, params, k, stats)
            if metric_text(name, params, k) is not None:
                texts[metric_text(name, params, k, ties=ties)] = (params, claim, stats)
                continue
            assert claim.all()
            kwargs = {"ties": ties, "replace_undefined_by": NAN_POLICY, **with_k(k)}
            value = call(name, params, *_xyg(data), sample_weight=data.weight, **kwargs)
            assert_close(value, 1.0, f"{variant_id(name, params)} k={k}")
    table = evaluate(
        *_xyg(data),
        metrics=list(texts),
        replace_undefined_by=NAN_POLICY,
        per_query=True,
        judged=True,
    )
    for text, (params, claim, stats) in texts.items():
        undefined = undefined_queries(name, params, stats)
        values = table[text].to_numpy(float)
        np.testing.assert_array_equal(np.isnan(values), undefined, text)
        assert_close(values[claim & ~undefined], 1.0, text)
        assert (values[~claim & ~undefined] < 1.0 - 1e-9).all(), (text, values, claim)


# ---------------------------------------------------------------------------
# 6. 2-D input equals flat input
# ---------------------------------------------------------------------------


def refused_by_scikit_learn(name, y_true, y_score):
    """Whether scikit-learn's own function refuses this 2-D input (NDCG and DCG only).

    ``-inf`` (an unretrieved row here) is given to scikit-learn as a finite score.
    """
    import sklearn.metrics

    function = METRICS[name].function.__name__
    if function not in ("ndcg_score", "dcg_score"):
        return False
    try:
        getattr(sklearn.metrics, function)(y_true, np.where(np.isneginf(y_score), 0.0, y_score))
    except ValueError:
        return True
    return False


@st.composite
def two_dimensional(draw):
    """(n_queries, n_docs) arrays, per-query weights, and the same rows flat.

    The flat rows get string ids and are interleaved across queries, each query's
    rows kept in order (``ties="input"`` reads it).
    """
    n_queries, n_docs = draw(st.integers(1, 8)), draw(st.integers(1, 8))
    grid = (*SCORE_GRID, -math.inf)
    shape = (n_queries, n_docs)
    cells = n_queries * n_docs
    y_true = np.asarray([digits(draw, n_docs, len(LABELS)) for _ in range(n_queries)], float)
    y_score = np.asarray(grid)[[digits(draw, n_docs, len(grid)) for _ in range(n_queries)]]
    weight = np.asarray([draw(st.sampled_from(WEIGHTS)) for _ in range(n_queries)])
    ids = np.array([f"query {draw(st.integers(0, 9))}-{row}" for row in range(n_queries)])
    assert y_true.shape == y_score.shape == shape
    flat = Flat(
        y_true.ravel(),
        y_score.ravel(),
        np.repeat(ids.astype(object), n_docs),
        np.repeat(weight, n_docs),
    )
    assert len(flat.y_true) == cells
    return y_true, y_score, weight, flat.take(order_keeping_shuffle(draw, flat.group))


@pytest.mark.filterwarnings(ALL_SKIPPED)
@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    policy=st.sampled_from(POLICIES),
    cutoff=st.sampled_from(CUTOFFS),
    case=two_dimensional(),
    ties=st.sampled_from(TIES),
    weighted=st.booleans(),
)
@fixed_cases(two_dimensional_cases())
def test_2d_input_equals_flat_input(name, case, ties, weighted, cutoff, policy):
    y_true, y_score, weight, flat = case
    if refused_by_scikit_learn(name, y_true, y_score):
        # NDCG/DCG in the 2-D form refuse what scikit-learn refuses (one document,
        # a binary target type...); the flat form of the same rows is computed
        with pytest.raises(ValueError):
            call(name, {}, y_true, y_score)
        return
    for params in variants(name):
        for k in k_values(name, cutoff):
            kwargs = {"ties": ties, "replace_undefined_by": policy, **with_k(k)}
            got = call(
                name, params, y_true, y_score, sample_weight=weight if weighted else None, **kwargs
            )
            expected = call(
                name, params, *_xyg(flat), sample_weight=flat.weight if weighted else None, **kwargs
            )
            assert_close(got, expected, f"{variant_id(name, params)} k={k}")


# ---------------------------------------------------------------------------
# 7. Per-query values average to the mean
# ---------------------------------------------------------------------------


def expected_mean(values, weights, policy, total=False):
    """The documented aggregation: weighted mean of the kept queries.

    Returns (mean, warns): NaN when a kept value is NaN (the nan policy); NaN with a
    UserWarning when no weight is left (every query skipped, or weights 0). ``total``
    (the counts): the weighted sum, which never warns.
    """
    if total:
        return float(np.sum(values * weights)), False
    kept = ~np.isnan(values) if policy == "skip" else np.ones(len(values), dtype=bool)
    if np.isnan(values[kept]).any():
        return math.nan, False
    total = weights[kept].sum()
    if total == 0:
        return math.nan, True
    return float(np.dot(values[kept], weights[kept]) / total), False


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=15, deadline=None, derandomize=True)
@given(
    cutoff=st.sampled_from(CUTOFFS),
    data=flat_queries(weights=(0.0, *WEIGHTS)),
    ties=st.sampled_from(TIES),
)
def test_per_query_values_average_to_the_mean(name, data, ties, cutoff):
    """Weighted by sample_weight (0 allowed) times the metric's own query weight."""
    texts = {}
    for params in TEXT_VARIANTS[name]:
        stats = stats_of(data, settings_of(name, params).get("relevance_level"))
        for k in k_values(name, cutoff):
            texts[metric_text(name, params, k, ties=ties)] = (params, stats)
    common = {"metrics": list(texts), "sample_weight": data.weight, "judged": True}
    tables = {}
    for policy in POLICIES:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            means = evaluate(*_xyg(data), replace_undefined_by=policy, **common)
        empty = [w for w in caught if "no query is left" in str(w.message)]
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", ".*no query is left", UserWarning)
            table = evaluate(*_xyg(data), replace_undefined_by=policy, per_query=True, **common)
        tables[policy] = table
        expect_warning = False
        for text, (params, stats) in texts.items():
            np.testing.assert_array_equal(table["query"].to_numpy(), stats.ids)
            weights = stats.weight * metric_weight(name, params, stats)
            # a count is summed over queries, unless summary="mean" (ranx's hits)
            total = METRICS[name].total and params.get("summary", "sum") == "sum"
            mean, warns = expected_mean(table[text].to_numpy(float), weights, policy, total)
            assert_close(means[text], mean, f"{text}, policy={policy}")
            expect_warning |= warns
        assert bool(empty) == expect_warning, (policy, [str(w.message) for w in empty])
    # the policies agree on the defined queries and differ exactly on the undefined ones
    for text, (params, stats) in texts.items():
        zero, one, skip, nan = (tables[policy][text].to_numpy(float) for policy in POLICIES)
        undefined = np.isnan(nan)
        np.testing.assert_array_equal(np.isnan(skip), undefined, text)
        assert not np.isnan(zero).any() and not np.isnan(one).any(), text
        assert_close(zero[~undefined], nan[~undefined], text)
        assert_close(one[~undefined], nan[~undefined], text)
        share = one[undefined] - zero[undefined]  # the probability of the undefined orders
        if partly_undefined(name, params):
            # undefined where no gain may reach the top k, at least where there is no gain
            assert undefined[undefined_queries(name, params, stats)].all(), text
            assert ((share > 0) & (share <= 1 + EPS)).all(), (text, share)
            if ties != "average":
                assert_close(share, 1.0, text)
        else:
            np.testing.assert_array_equal(undefined, undefined_queries(name, params, stats), text)
            assert_close(share, 1.0, text)


# ---------------------------------------------------------------------------
# 8. Tie bounds
# ---------------------------------------------------------------------------


@pytest.mark.filterwarnings(ALL_SKIPPED)
@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=25, deadline=None, derandomize=True)
@given(cutoff=st.sampled_from(CUTOFFS), data=flat_queries())
def test_optimistic_average_input_pessimistic_are_ordered(name, data, cutoff):
    """Per query (``evaluate``, NaN policy) where the variant has a text name, else means.

    The rows are in a random order, so ``"input"`` is a random tie order and lies
    between the bounds too.  Not for the two variants the README excepts
    (``BOUNDS_DO_NOT_HOLD``).
    """
    # relevant rows first is the best order: the highest value, or the lowest where
    # lower is better (the registry's greater_is_better)
    best, worst = "optimistic", "pessimistic"
    low_ties, high_ties = (worst, best) if METRICS[name].greater_is_better else (best, worst)
    texts = {}
    for params in variants(name):
        if not bounds_hold(name, params):
            continue
        for k in k_values(name, cutoff):
            if metric_text(name, params, k) is not None:
                texts[k, variant_id(name, params)] = {
                    ties: metric_text(name, params, k, ties=ties) for ties in TIES
                }
                continue
            value = {ties: call(name, params, *_xyg(data), ties=ties, **with_k(k)) for ties in TIES}
            low, high = value[low_ties] - EPS, value[high_ties] + EPS
            for ties in ("average", "input"):
                assert low <= value[ties] <= high, (variant_id(name, params), k, value)
    every_text = [text for group in texts.values() for text in group.values()]
    table = evaluate(
        *_xyg(data),
        metrics=every_text,
        replace_undefined_by=NAN_POLICY,
        per_query=True,
        judged=True,
    )
    for where, by_ties in texts.items():
        value = {ties: table[text].to_numpy(float) for ties, text in by_ties.items()}
        undefined = np.isnan(value["average"])
        for ties in TIES:
            np.testing.assert_array_equal(np.isnan(value[ties]), undefined, by_ties[ties])
        low = value[low_ties][~undefined] - EPS
        high = value[high_ties][~undefined] + EPS
        for ties in ("average", "input"):
            middle = value[ties][~undefined]
            assert ((low <= middle) & (middle <= high)).all(), (where, ties, value)


@pytest.mark.parametrize("name", ["ndcg", "dcg"])
def test_bounds_with_gain_not_monotone_in_label(name):
    # README: "optimistic" puts higher labels first, which is the best case only for a
    # gain that does not decrease with the label. With gain [0, 5, 1, 2], label 3 has
    # a smaller gain than label 1, so "optimistic" is the label order [3, 1] and lies
    # below the average, and "pessimistic" is [1, 3] and lies above it.
    kwargs = {"gain": [0.0, 5.0, 1.0, 2.0]}
    y_true, tied, one = [1.0, 3.0], [0.0, 0.0], [0, 0]
    optimistic = call(name, kwargs, y_true, tied, one, ties="optimistic")
    pessimistic = call(name, kwargs, y_true, tied, one, ties="pessimistic")
    average = call(name, kwargs, y_true, tied, one, ties="average")
    label_3_first = call(name, kwargs, y_true, [0.0, 1.0], one)
    label_1_first = call(name, kwargs, y_true, [1.0, 0.0], one)
    np.testing.assert_allclose(optimistic, label_3_first, rtol=1e-12)
    np.testing.assert_allclose(pessimistic, label_1_first, rtol=1e-12)
    np.testing.assert_allclose(average, (label_3_first + label_1_first) / 2, rtol=1e-12)
    assert optimistic < average < pessimistic


# ---------------------------------------------------------------------------
# 9. A query's value depends on that query alone
# ---------------------------------------------------------------------------


def _probe_and_crowd():
    """A few probe queries, and the same probes among a crowd of 4,000 other queries.

    The probes have small labels (0-1) and come last in sorted id order; the crowd
    has labels up to 4 and many rows before them, so that any scale read from the
    data or any running sum across queries shows up in the probes' values.
    """
    rng = np.random.default_rng(9)
    probe_sizes = rng.integers(1, 40, 25)
    crowd_sizes = rng.integers(1, 60, 4000)
    sizes = np.concatenate([crowd_sizes, probe_sizes])
    group = np.repeat(np.arange(len(sizes)), sizes)
    is_probe = group >= len(crowd_sizes)
    y_true = np.where(is_probe, rng.integers(0, 2, len(group)), rng.integers(0, 5, len(group)))
    y_score = np.round(rng.normal(size=len(group)), 1)  # ties
    y_score[rng.random(len(group)) < 0.05] = -np.inf
    crowd = Flat(y_true.astype(float), y_score, group, np.ones(len(group)))
    # interleave the queries at random, each query's rows kept in order (ties="input")
    keys = rng.random(len(group))
    in_order = np.empty(len(group))
    in_order[np.argsort(group, kind="stable")] = keys[np.lexsort((keys, group))]
    return crowd.take(np.flatnonzero(is_probe)), crowd.take(np.argsort(in_order))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("ties", ["average", "input"])
def test_query_values_do_not_depend_on_other_queries(name, ties):
    probes, crowd = _probe_and_crowd()
    texts = [
        metric_text(name, params, k)
        for params in TEXT_VARIANTS[name]
        for k in ((None, 3) if METRICS[name].takes_k else (None,))
        if "ties" not in params
    ]
    alone = evaluate(
        probes.y_true, probes.y_score, probes.group, metrics=texts, ties=ties,
        replace_undefined_by=NAN_POLICY, per_query=True, judged=True,
    )
    together = evaluate(
        crowd.y_true, crowd.y_score, crowd.group, metrics=texts, ties=ties,
        replace_undefined_by=NAN_POLICY, per_query=True, judged=True,
    )
    together = together[together["query"].isin(alone["query"])].reset_index(drop=True)
    assert together["query"].tolist() == alone["query"].tolist()
    for text in texts:
        np.testing.assert_allclose(
            together[text].to_numpy(), alone[text].to_numpy(), rtol=1e-14, atol=0, err_msg=text
        )
