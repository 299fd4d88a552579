"""Common tests, run over every metric of the registry.

* every public ``*_score`` function is classified in the registry;
* on fixed data with ties: inputs are never modified; array-likes (lists, pandas)
  work like NumPy arrays; the result is a float; no RuntimeWarning leaks;
* the undefined-query policy (``replace_undefined_by``) behaves the same way in
  every metric;
* ``evaluate`` agrees with the individual functions;
* one table of bad inputs swept over every metric (type, message);
* a deliberately broken metric fails the invariance checks, so the checks can fail.

The invariances (row order, query ids, strictly increasing transforms of the scores,
range of the bounded metrics, the ideal ranking, 2-D input equals flat input) are
written once, in ``test_properties.py``: the fixed cases that were written here are
``@example`` cases of its hypothesis tests (data from ``tests/support/metric_data.py``).
"""

import math
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import sklearn_rank_metrics as srm
from sklearn_rank_metrics import evaluate, ndcg_score
from sklearn_rank_metrics._metrics._registry import METRICS
from tests.support.metric_data import make_2d, make_data

NAMES = sorted(METRICS)
TIES = ["average", "input", "optimistic", "pessimistic"]

# metrics whose value for a perfect ranking is exactly 1 when every query has a
# relevant row (with k=None), keyed by public function name
IDEAL_IS_ONE = {
    "ndcg_score",
    "mean_average_precision_score",
    "mean_reciprocal_rank_score",
    "recall_at_k_score",
    "r_precision_score",
    "hit_rate_score",
    "group_roc_auc_score",
    "bpref_score",
    "interpolated_precision_score",
    "eleven_point_precision_score",
}


def approx(value):
    return pytest.approx(value, rel=1e-9, abs=1e-12)


# the metrics that always read which rows were judged (bpref, Judged@k: the registry
# says which): in these tests every row was (judged=True), unless a test passes its
# own mask
READS_JUDGMENTS = {name for name, info in METRICS.items() if info.reads_judgments is True}


def call(name, y_true, y_score, group=None, **kwargs):
    """Call registry metric ``name`` with its fixed parameters plus ``kwargs``."""
    info = METRICS[name]
    if name in READS_JUDGMENTS:
        kwargs = {"judged": True, **kwargs}
    return info.function(y_true, y_score, group, **{**info.fixed_params, **kwargs})


def k_values(name):
    return [None, 3] if METRICS[name].takes_k else [None]


NAME_K = [(name, k) for name in NAMES for k in k_values(name)]
NAME_K_IDS = [f"{name}-k={k}" for name, k in NAME_K]


def with_k(k):
    return {} if k is None else {"k": k}


# ---------------------------------------------------------------------------
# Data (tests/support/metric_data.py)
# ---------------------------------------------------------------------------


def queries_of(data):
    """Per unique query (np.unique order): its weight."""
    ids = np.unique(data.group)
    weights = np.array([data.sample_weight[data.group == q][0] for q in ids])
    return ids, weights


# ---------------------------------------------------------------------------
# Registry
# ---------------------------------------------------------------------------


def test_every_public_score_function_is_registered():
    # scikit-learn's naming: *_score is greater-is-better, *_loss lower-is-better
    # the agreement of two rankings (no labels) is not a metric of evaluate yet
    agreement = {"kendall_tau_score", "overlap_at_k_score"}
    public = {name for name in srm.__all__ if name.endswith(("_score", "_loss"))} - agreement
    assert public, "sklearn_rank_metrics.__all__ lists no *_score function"
    registered = {info.function for info in METRICS.values()}
    missing = sorted(name for name in public if getattr(srm, name) not in registered)
    assert not missing, f"public metrics missing from the registry: {missing}"


def best_and_worst_ranking_values(name):
    """The metric (at k=1 if it takes a cutoff) of relevant rows first, and last.

    One query, labels 2, 1, 0, 0, ranked in label order, then in reverse.
    """
    y_true, group = np.array([2, 1, 0, 0]), np.zeros(4, dtype=int)
    k = {"k": 1} if METRICS[name].takes_k else {}
    best = call(name, y_true, np.array([4.0, 3.0, 2.0, 1.0]), group, **k)
    worst = call(name, y_true, np.array([1.0, 2.0, 3.0, 4.0]), group, **k)
    return best, worst


def test_best_and_worst_ranking_values_tell_the_direction():
    # hand computations: P@1 is 1 then 0; fall-out@1 (2 non-relevant rows) 0 then 1/2;
    # IDCG@1 does not depend on the ranking: the gain 2 at rank 1
    assert best_and_worst_ranking_values("p") == (1.0, 0.0)
    assert best_and_worst_ranking_values("fallout") == (0.0, 0.5)
    assert best_and_worst_ranking_values("idcg") == (2.0, 2.0)


@pytest.mark.parametrize("name", NAMES)
def test_function_name_suffix_reads_the_declared_direction(name):
    info = METRICS[name]
    suffix = "_score" if info.greater_is_better else "_loss"
    assert info.function.__name__.endswith(suffix), (name, info.function.__name__)


@pytest.mark.parametrize("name", NAMES)
def test_registry_entry_is_consistent(name):
    info = METRICS[name]
    assert info.name == name
    function = info.function.__name__
    assert function in srm.__all__ and getattr(srm, function) is info.function
    assert isinstance(info.fixed_params, dict)
    # classification expected from the definitions (DESIGN.md of the project)
    # the direction, read from the metric's values rather than from a list of names:
    # lower is better where the best ranking scores below the worst one (fall-out, the
    # share of the non-relevant rows in the top k), higher is better everywhere else
    best, worst = best_and_worst_ranking_values(name)
    assert info.greater_is_better is (best >= worst), (best, worst)
    # dcg, cg, idcg: not normalised; the counts: sums of rows
    plain_sums = function in {"dcg_score", "idcg_score", "retrieval_count_score"}
    assert info.bounded_01 is (not plain_sums)
    assert info.graded is (
        function in {"ndcg_score", "dcg_score", "idcg_score", "expected_reciprocal_rank_score"}
    )
    # per-query AUC ranks every row; R-precision's cutoff is each query's own R;
    # bpref reads every retrieved row
    assert info.takes_k is (
        function
        not in {
            "group_roc_auc_score",
            "r_precision_score",
            "bpref_score",
            "interpolated_precision_score",
            "eleven_point_precision_score",
        }
        and info.fixed_params.get("count") != "relevant"  # num_rel counts every row
    )
    assert info.total is (function == "retrieval_count_score")


# ---------------------------------------------------------------------------
# Two invariance checks as helpers, so that the broken-metric tests below show they
# can fail (the invariances over every metric: test_properties.py)
# ---------------------------------------------------------------------------


def check_row_order_invariance(metric, data, **kwargs):
    """Permuting the rows (with ties="average") does not change the value."""
    expected = metric(data.y_true, data.y_score, data.group, **kwargs)
    n = len(data.y_true)
    rng = np.random.default_rng(12345)
    for perm in [np.arange(n)[::-1], rng.permutation(n), rng.permutation(n)]:
        if "sample_weight" in kwargs:
            kwargs = {**kwargs, "sample_weight": data.sample_weight[perm]}
        got = metric(data.y_true[perm], data.y_score[perm], data.group[perm], **kwargs)
        assert got == approx(expected), f"row permutation changed {expected!r} to {got!r}"


def check_query_renaming_invariance(metric, data):
    """Renaming the query ids (permuted ints, strings) does not change the value."""
    ids = np.unique(data.group)
    perm = np.random.default_rng(1).permutation(len(ids))
    as_ints = dict(zip(ids, 1000 - 17 * perm, strict=True))
    as_strings = dict(zip(ids, [f"query-{p}" for p in perm], strict=True))
    for weight in (None, data.sample_weight):
        expected = metric(data.y_true, data.y_score, data.group, sample_weight=weight)
        for mapping in (as_ints, as_strings):
            renamed = np.array([mapping[q] for q in data.group])
            got = metric(data.y_true, data.y_score, renamed, sample_weight=weight)
            assert got == approx(expected), f"renaming changed {expected!r} to {got!r}"


def test_registry_declares_which_metrics_score_one_on_a_perfect_ranking():
    declared = {info.function.__name__ for info in METRICS.values() if info.ideal_is_one}
    assert declared == IDEAL_IS_ONE


@pytest.mark.parametrize("name", NAMES)
def test_inputs_are_not_modified_and_read_only_inputs_work(name):
    data = make_data(2, neg_inf=True)
    arrays = {
        "y_true": data.y_true.copy(),
        "y_score": data.y_score.copy(),
        "group": data.group.copy(),
        "sample_weight": data.sample_weight.copy(),
    }
    copies = {key: value.copy() for key, value in arrays.items()}
    expected = call(
        name,
        arrays["y_true"],
        arrays["y_score"],
        arrays["group"],
        sample_weight=arrays["sample_weight"],
    )
    for key, value in arrays.items():
        np.testing.assert_array_equal(value, copies[key], err_msg=f"{key} was modified")
        assert value.dtype == copies[key].dtype
        value.setflags(write=False)
    got = call(
        name,
        arrays["y_true"],
        arrays["y_score"],
        arrays["group"],
        sample_weight=arrays["sample_weight"],
    )
    assert got == approx(expected)

    y_true, y_score, weight = make_2d(seed=5)
    before = (y_true.copy(), y_score.copy(), weight.copy())
    for array in (y_true, y_score, weight):
        array.setflags(write=False)
    call(name, y_true, y_score, sample_weight=weight)
    for array, copy in zip((y_true, y_score, weight), before, strict=True):
        np.testing.assert_array_equal(array, copy)


def _as_list(data):
    return data.y_true.tolist(), data.y_score.tolist(), data.group.tolist()


def _as_series(data):
    # realistic DataFrame columns: a shared, shuffled, non-default index
    index = np.random.default_rng(0).permutation(len(data.y_true)) + 50
    return tuple(pd.Series(a, index=index) for a in (data.y_true, data.y_score, data.group))


def _as_string_series_group(data):
    return data.y_true, data.y_score, pd.Series([f"q{q}" for q in data.group])


def _as_categorical_group(data):
    return data.y_true, data.y_score, pd.Categorical(data.group)


def _as_categorical_group_with_unused_category(data):
    labels = [f"q{q}" for q in data.group]
    categories = ["an unused id", *sorted(set(labels), reverse=True)]
    return data.y_true, data.y_score, pd.Categorical(labels, categories=categories)


def _as_categorical_series_group(data):
    return data.y_true, data.y_score, pd.Series(data.group, dtype="category")


ARRAY_LIKES = {
    "list": _as_list,
    "series": _as_series,
    "string_series_group": _as_string_series_group,
    "categorical_group": _as_categorical_group,
    "categorical_group_unused_category": _as_categorical_group_with_unused_category,
    "categorical_series_group": _as_categorical_series_group,
}


@pytest.mark.parametrize("kind", sorted(ARRAY_LIKES))
@pytest.mark.parametrize("name", NAMES)
def test_array_likes_work_like_numpy(name, kind):
    data = make_data(3, neg_inf=True)
    expected = call(name, data.y_true, data.y_score, data.group)
    y_true, y_score, group = ARRAY_LIKES[kind](data)
    assert call(name, y_true, y_score, group) == approx(expected)


@pytest.mark.parametrize("name", NAMES)
def test_returns_python_float(name):
    data = make_data(4)
    values = [
        call(name, data.y_true, data.y_score, data.group),
        call(name, data.y_true, data.y_score, data.group, sample_weight=data.sample_weight),
        # one query, said with a group of one id
        call(name, data.y_true.tolist(), data.y_score.tolist(), [0] * len(data.y_true)),
        call(name, *make_2d(4)[:2]),
    ]
    for value in values:
        assert type(value) is float, type(value)


@pytest.mark.parametrize("name", [name for name in NAMES if METRICS[name].takes_k])
def test_numpy_integer_k_is_accepted(name):
    data = make_data(5)
    expected = call(name, data.y_true, data.y_score, data.group, k=3)
    assert call(name, data.y_true, data.y_score, data.group, k=np.int64(3)) == approx(expected)


@pytest.mark.parametrize("name, k", NAME_K, ids=NAME_K_IDS)
def test_valid_input_raises_no_runtime_warning(name, k):
    # numerical noise (log(0), inf - inf, 0/0) must not leak to the user
    for seed in range(3):
        for neg_inf in (False, True):
            data = make_data(seed, neg_inf=neg_inf)
            for ties in TIES:
                with warnings.catch_warnings():
                    warnings.simplefilter("error", RuntimeWarning)
                    call(name, data.y_true, data.y_score, data.group, ties=ties, **with_k(k))


# ---------------------------------------------------------------------------
# Undefined queries: one policy keyword with the same choices everywhere
# ---------------------------------------------------------------------------


def undefined_label(name):
    """The label of every row of a query the metric leaves undefined (registry's rule).

    0: no relevant row (one class for AUC); 1: no non-relevant row (fall-out).
    """
    return 1.0 if METRICS[name].undefined_without == "non_relevant" else 0.0


def make_one_undefined_query(empty_label=0.0):
    """Five queries with both relevant and non-relevant rows, and "q-empty" with one kind.

    Every row of "q-empty" has ``empty_label``: with 0 (no relevant row, one class) the
    query is undefined for every metric that needs a relevant row, with 1 for those
    that need a non-relevant one.
    """
    rng = np.random.default_rng(6)
    y_true, y_score, group = [], [], []
    for name in ["q-a", "q-b", "q-empty", "q-c", "q-d", "q-e"]:
        labels = rng.integers(0, 4, size=6).astype(float)
        labels[:2] = [0.0, 2.0]
        if name == "q-empty":
            labels[:] = empty_label
        y_true.extend(labels)
        y_score.extend(rng.random(6).round(1))
        group.extend([name] * 6)
    return np.array(y_true), np.array(y_score), np.array(group)


@pytest.mark.parametrize("name", NAMES)
def test_replace_undefined_by_policies(name):
    y_true, y_score, group = make_one_undefined_query(undefined_label(name))
    n_queries = len(np.unique(group))

    def value(**kwargs):
        return call(name, y_true, y_score, group, **kwargs)

    zero, one, skip = (
        value(replace_undefined_by=0.0),
        value(replace_undefined_by=1.0),
        value(replace_undefined_by="skip"),
    )
    if METRICS[name].always_defined:  # Judged@k: no query is undefined, no policy applies
        assert zero == one == skip == value(replace_undefined_by=np.nan)
        assert value(replace_undefined_by="raise") == zero
        return
    assert math.isnan(value(replace_undefined_by=np.nan))
    if METRICS[name].fixed_params.get("average") != "micro":
        # the undefined query counts as 0, as 1, or not at all
        assert one - zero == approx(1.0 / n_queries)
        assert skip == approx(zero * n_queries / (n_queries - 1))
    default = value()
    if METRICS[name].function.__name__ == "group_roc_auc_score":
        assert default == approx(skip)
    else:
        assert default == approx(zero)
    with pytest.raises(ValueError, match="q-empty"):
        value(replace_undefined_by="raise")


@pytest.mark.parametrize("name", NAMES)
def test_all_queries_skipped_gives_nan_with_warning(name):
    y_true = np.full(8, undefined_label(name))
    y_score = np.linspace(0.0, 1.0, 8)
    group = np.repeat([1, 2], 4)
    if METRICS[name].always_defined:  # nothing is skipped (Judged@k, the counts)
        assert not math.isnan(call(name, y_true, y_score, group, replace_undefined_by="skip"))
        return
    with pytest.warns(UserWarning):
        value = call(name, y_true, y_score, group, replace_undefined_by="skip")
    assert math.isnan(value)


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


# ---------------------------------------------------------------------------
# evaluate
# ---------------------------------------------------------------------------

# metric text -> (public function, keywords), written from the metric definitions, not
# from the registry
EVALUATE_CASES = {
    "ndcg@10": ("ndcg_score", {"k": 10}),
    "ndcg@3": ("ndcg_score", {"k": 3}),
    "ndcg(gain=exponential)@10": ("ndcg_score", {"k": 10, "gain": "exponential"}),
    "dcg@10": ("dcg_score", {"k": 10}),
    "cg@10": ("dcg_score", {"k": 10, "discount": "none"}),
    "map": ("mean_average_precision_score", {}),
    "map@100": ("mean_average_precision_score", {"k": 100}),
    "mrr@10": ("mean_reciprocal_rank_score", {"k": 10}),
    "p@5": ("precision_at_k_score", {"k": 5}),
    "recall@20": ("recall_at_k_score", {"k": 20}),
    "f1@10": ("fbeta_at_k_score", {"k": 10, "beta": 1.0}),
    "fbeta(beta=2)@5": ("fbeta_at_k_score", {"k": 5, "beta": 2.0}),
    "hit_rate@10": ("hit_rate_score", {"k": 10}),
    "err@20": ("expected_reciprocal_rank_score", {"k": 20}),
    "gauc": ("group_roc_auc_score", {}),
}
BINARY_CASES = ["map", "mrr@10", "p@5", "recall@20", "f1@10", "hit_rate@10", "gauc"]


def direct(text, data, **kwargs):
    function, params = EVALUATE_CASES[text]
    return getattr(srm, function)(data.y_true, data.y_score, data.group, **params, **kwargs)


def evaluate_data():
    return make_data(7, n_queries=15, max_docs=30, neg_inf=True)


@pytest.mark.parametrize("weighted", [False, True])
def test_evaluate_equals_individual_calls(weighted):
    data = evaluate_data()
    extra = {"sample_weight": data.sample_weight} if weighted else {}
    texts = list(EVALUATE_CASES)
    result = evaluate(data.y_true, data.y_score, data.group, metrics=texts, **extra)
    assert isinstance(result, dict)
    assert set(result) == set(texts)
    for text in texts:
        assert type(result[text]) is float
        assert result[text] == direct(text, data, **extra), text


def test_evaluate_default_metrics():
    data = evaluate_data()
    result = evaluate(data.y_true, data.y_score, data.group)
    assert set(result) == {"ndcg@10", "map", "mrr@10", "p@10", "recall@10"}
    assert result["p@10"] == srm.precision_at_k_score(data.y_true, data.y_score, data.group, k=10)
    assert result["ndcg@10"] == direct("ndcg@10", data)


@pytest.mark.parametrize(
    "keywords",
    [
        {"ties": "pessimistic"},
        {"ties": "optimistic"},
        {"replace_undefined_by": "skip"},
        {"replace_undefined_by": 1.0},
    ],
    ids=lambda kw: "-".join(f"{k}={v}" for k, v in kw.items()),
)
def test_evaluate_forwards_common_keywords(keywords):
    data = evaluate_data()
    texts = list(EVALUATE_CASES)
    result = evaluate(data.y_true, data.y_score, data.group, metrics=texts, **keywords)
    for text in texts:
        assert result[text] == direct(text, data, **keywords), text


def test_evaluate_forwards_relevance_level_to_binary_metrics():
    data = evaluate_data()
    result = evaluate(
        data.y_true, data.y_score, data.group, metrics=BINARY_CASES, relevance_level=2
    )
    for text in BINARY_CASES:
        assert result[text] == direct(text, data, relevance_level=2), text


@pytest.mark.parametrize("bad", ["bogus@5", "ndgc@10", "nDCG_at_10"])
def test_evaluate_unknown_name_lists_known_names(bad):
    data = evaluate_data()
    with pytest.raises(ValueError) as excinfo:
        evaluate(data.y_true, data.y_score, data.group, metrics=["ndcg@10", bad])
    message = str(excinfo.value)
    missing = [name for name in METRICS if not re.search(rf"\b{re.escape(name)}\b", message)]
    assert not missing, f"message does not list {missing}: {message!r}"


def test_evaluate_per_query_table_weighted_mean_equals_float():
    data = evaluate_data()
    data = data._replace(group=np.array([f"q{q:03d}" for q in data.group]))
    texts = ["ndcg@10", "map", "mrr@10", "p@5", "recall@20", "err@20", "dcg@10", "gauc"]
    means = evaluate(
        data.y_true, data.y_score, data.group, metrics=texts, sample_weight=data.sample_weight
    )
    table = evaluate(
        data.y_true,
        data.y_score,
        data.group,
        metrics=texts,
        sample_weight=data.sample_weight,
        per_query=True,
    )
    table = pd.DataFrame(table)
    ids, weights = queries_of(data)
    np.testing.assert_array_equal(np.asarray(table["query"]), ids)
    assert set(table.columns) == {"query", *texts}
    for text in texts:
        values = np.asarray(table[text], dtype=float)
        kept = ~np.isnan(values)
        assert kept.any()
        mean = np.sum(weights[kept] * values[kept]) / np.sum(weights[kept])
        assert mean == approx(means[text]), text
    # gauc skips the one-class queries (NaN rows), the others replace them by 0
    assert np.isnan(np.asarray(table["gauc"], dtype=float)).any()
    assert not np.isnan(np.asarray(table["ndcg@10"], dtype=float)).any()


# ---------------------------------------------------------------------------
# One table of bad inputs, swept over every metric
# ---------------------------------------------------------------------------

N_ROWS = 20
BAD_ROW = 7  # not the first row of its query
BASE = {
    "y_true": np.array([0, 1, 2, 0, 3, 1, 0, 2, 0, 1, 3, 0, 0, 2, 1, 1, 0, 0, 2, 3], dtype=float),
    "y_score": np.array(
        [
            0.1,
            0.5,
            0.5,
            0.2,
            0.9,
            0.3,
            0.3,
            0.8,
            0.3,
            0.1,
            0.7,
            0.7,
            0.2,
            0.2,
            0.6,
            0.4,
            0.4,
            0.9,
            0.1,
            0.5,
        ]
    ),
    "group": np.repeat([11, 12, 13, 14], 5),
}
WEIGHT = np.repeat([1.0, 2.0, 0.5, 1.5], 5)


def _set(array, row, value):
    out = np.asarray(array, dtype=float).copy()
    out[row] = value
    return out


def words(*patterns):
    """Regex that requires every pattern, in any order."""
    return "(?s)^" + "".join(f"(?=.*{p})" for p in patterns)


ROW = rf"\b{BAD_ROW}\b"
Y_TRUE, Y_SCORE, GROUP, SW = r"\by_true\b", r"\by_score\b", r"\bgroup\b", r"\bsample_weight\b"
# (id, override of the keyword arguments, exception, message regex, applies to)
ERRORS = [
    (
        "nan_in_y_score",
        {"y_score": _set(BASE["y_score"], BAD_ROW, np.nan)},
        ValueError,
        words(Y_SCORE, ROW),
        "all",
    ),
    (
        "nan_in_y_true",
        {"y_true": _set(BASE["y_true"], BAD_ROW, np.nan)},
        ValueError,
        words(Y_TRUE, ROW),
        "all",
    ),
    (
        "inf_in_y_true",
        {"y_true": _set(BASE["y_true"], BAD_ROW, np.inf)},
        ValueError,
        words(Y_TRUE, ROW),
        "all",
    ),
    (
        "negative_y_true",
        {"y_true": _set(BASE["y_true"], BAD_ROW, -3.0)},
        ValueError,
        words(Y_TRUE, ROW),
        "graded",
    ),
    (
        "string_y_true",
        {"y_true": np.array(list("abcdefghijklmnopqrst"))},
        TypeError,
        words(Y_TRUE),
        "all",
    ),
    (
        "string_y_score",
        {"y_score": np.array(list("abcdefghijklmnopqrst"))},
        TypeError,
        words(Y_SCORE),
        "all",
    ),
    (
        "y_score_length",
        {"y_score": BASE["y_score"][:-1]},
        ValueError,
        words(r"\b(y_score|y_true)\b", rf"\b{N_ROWS - 1}\b"),
        "all",
    ),
    (
        "group_length",
        {"group": BASE["group"][:-1]},
        ValueError,
        words(GROUP, rf"\b{N_ROWS - 1}\b"),
        "all",
    ),
    (
        "sample_weight_length",
        {"sample_weight": WEIGHT[:-1]},
        ValueError,
        words(SW, rf"\b{N_ROWS - 1}\b"),
        "all",
    ),
    (
        "empty",
        {"y_true": np.array([]), "y_score": np.array([]), "group": np.array([])},
        ValueError,
        words(r"\b(y_true|y_score)\b"),
        "all",
    ),
    ("k_zero", {"k": 0}, ValueError, words(r"\bk\b", r"\b0\b"), "k"),
    ("k_negative", {"k": -2}, ValueError, words(r"\bk\b", r"-2\b"), "k"),
    ("k_float", {"k": 1.5}, TypeError, words(r"\bk\b", r"1\.5"), "k"),
    ("k_string", {"k": "3"}, TypeError, words(r"\bk\b", r"\b3\b"), "k"),
    ("ties_bogus", {"ties": "bogus"}, ValueError, words(r"\bties\b", "bogus"), "all"),
    ("ties_int", {"ties": 3}, TypeError, words(r"\bties\b", r"\b3\b"), "all"),
    (
        "replace_undefined_by_bogus",
        {"replace_undefined_by": "bogus"},
        ValueError,
        words(r"\breplace_undefined_by\b", "bogus"),
        "all",
    ),
    (
        "sample_weight_not_constant_in_query",
        {"sample_weight": _set(WEIGHT, BAD_ROW, 9.0)},
        ValueError,
        # row 7 is the first row (input order) whose weight differs from its query's
        words(SW, ROW),
        "all",
    ),
    (
        "nan_in_sample_weight",
        {"sample_weight": _set(WEIGHT, BAD_ROW, np.nan)},
        ValueError,
        words(SW, ROW),
        "all",
    ),
    (
        "nan_in_group",
        {"group": _set(BASE["group"], BAD_ROW, np.nan)},
        ValueError,
        words(GROUP, ROW),
        "all",
    ),
    (
        "2d_input_with_group",
        {
            "y_true": BASE["y_true"].reshape(4, 5),
            "y_score": BASE["y_score"].reshape(4, 5),
            "group": np.arange(4),
        },
        ValueError,
        words(GROUP),
        "all",
    ),
]


def _applies(name, scope):
    info = METRICS[name]
    return scope == "all" or (scope == "k" and info.takes_k) or (scope == "graded" and info.graded)


ERROR_CASES = [
    pytest.param(name, override, exc, regex, id=f"{name}-{case}")
    for name in NAMES
    for case, override, exc, regex, scope in ERRORS
    if _applies(name, scope)
]


def test_base_of_error_table_is_valid():
    for name in NAMES:
        call(name, BASE["y_true"], BASE["y_score"], BASE["group"], sample_weight=WEIGHT)
    assert BASE["group"][BAD_ROW] == BASE["group"][BAD_ROW - 1]


@pytest.mark.parametrize("name, override, exception, regex", ERROR_CASES)
def test_error_table(name, override, exception, regex):
    kwargs = {**BASE, **override}
    y_true, y_score, group = kwargs.pop("y_true"), kwargs.pop("y_score"), kwargs.pop("group")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(exception) as excinfo:
            call(name, y_true, y_score, group, **kwargs)
    message = str(excinfo.value)
    assert re.search(regex, message), f"message {message!r} does not match {regex!r}"


# ---------------------------------------------------------------------------
# The checks can fail: a deliberately broken metric is caught
# ---------------------------------------------------------------------------


def _ndcg_without_tie_averaging(y_true, y_score, group=None, **kwargs):
    return srm.ndcg_score(y_true, y_score, group, **{**kwargs, "ties": "input"})


def _ndcg_with_misaligned_weights(y_true, y_score, group=None, *, sample_weight=None):
    # A plausible aggregation bug: per-query values in sorted-id order, but the
    # weights taken in order of first appearance.
    y_true, y_score, group = np.asarray(y_true), np.asarray(y_score), np.asarray(group)
    ids, first = np.unique(group, return_index=True)
    values = [
        srm.ndcg_score(y_true[group == q], y_score[group == q], group[group == q]) for q in ids
    ]
    if sample_weight is None:
        sample_weight = np.ones(len(y_true))
    weights = np.asarray(sample_weight)[np.sort(first)]
    return float(np.average(values, weights=weights))


def test_row_order_check_detects_a_metric_without_tie_averaging():
    data = make_data(0)
    check_row_order_invariance(srm.ndcg_score, data)  # the real metric passes
    with pytest.raises(AssertionError):
        check_row_order_invariance(_ndcg_without_tie_averaging, data)


def test_renaming_check_detects_misaligned_query_weights():
    data = make_data(1)
    check_query_renaming_invariance(srm.ndcg_score, data)  # the real metric passes
    with pytest.raises(AssertionError):
        check_query_renaming_invariance(_ndcg_with_misaligned_weights, data)


def test_a_value_outside_the_metric_range_is_never_returned():
    # the aggregation layer checks every per-query value against the metric's range:
    # a kernel defect (simulated here) raises instead of reaching the mean
    from sklearn_rank_metrics._engine._caller import called_as
    from sklearn_rank_metrics._metrics import _aggregate

    def with_values(values, undefined=(0.0, 0.0)):
        return _aggregate.PerQuery(np.array(values), np.array(undefined))

    ranked_ids = np.array([1, 2])

    class Ranked:
        query_ids = ranked_ids
        query_weight = np.ones(2)

    for values in ([1.5, 0.5], [0.5, -0.25], [np.nan, 0.5], [np.inf, 0.5]):
        with called_as("mrr"), pytest.raises(
            RuntimeError, match="^mrr computed .*outside the metric's range.*defect"
        ):
            _aggregate.aggregate(with_values(values), Ranked(), 0.0)
    # an undefined query's placeholder is not checked; rounding in the last bits is clipped
    assert _aggregate.aggregate(with_values([np.nan, 0.5], (1.0, 0.0)), Ranked(), "skip") == 0.5
    assert _aggregate.aggregate(with_values([1 + 2**-52, 1.0]), Ranked(), 0.0) == 1.0
    dcg = _aggregate.PerQuery(np.array([7.5, 2.0]), np.zeros(2), value_range=(0.0, np.inf))
    assert _aggregate.aggregate(dcg, Ranked(), 0.0) == 4.75


def test_ndcg_of_a_perfect_order_is_exactly_one():
    # Equal labels: every order is ideal, so NDCG is 1 by hand; the DCG and ideal DCG
    # sums add the same terms in different orders and may differ by one rounding step.
    assert ndcg_score([3, 3], [0, 1], [0, 0]) == 1.0
    assert ndcg_score([3, 3], [0, 1], [0, 0], k=1, ideal="top_k") == 1.0
    assert ndcg_score([0.1, 0.7, 0.7, 0.2], [4, 3, 2, 1], [0, 0, 0, 0]) <= 1.0


@pytest.mark.parametrize(
    "ids",
    [
        np.array([5, 3, 5, -2, 3]),
        np.array([10**12, 3, 3]),
        np.array([True, False, True]),
        np.array([7], dtype=np.uint8),
        np.array([2, 2, 1], dtype=np.int16),
        np.array([2**63 + 5, 2**63 + 1], dtype=np.uint64),
        np.array([-128, 127, 0], dtype=np.int8),
        np.array([-(2**63), -(2**63) + 3, -(2**63)]),
        np.random.default_rng(0).integers(-50, 50, 1000),
    ],
)
def test_integer_query_ids_factorize_like_np_unique(ids):
    # The dense-table path for unsorted integer ids must give np.unique's codes and ids.
    from sklearn_rank_metrics._engine._inputs import factorize_groups

    codes, values = factorize_groups(ids, len(ids))
    expected_values, expected_codes = np.unique(ids, return_inverse=True)
    np.testing.assert_array_equal(codes, expected_codes)
    np.testing.assert_array_equal(values, expected_values)
    assert values.dtype == expected_values.dtype


# ---------------------------------------------------------------------------
# One row per query: the engine's and kernels' shortcuts for that shape
# ---------------------------------------------------------------------------

ONE_ROW_TEXTS = [
    "ndcg@10", "ndcg(gain=exponential)", "ndcg(ideal=top_k)@3", "dcg@10", "cg@5", "idcg@10",
    "err@10", "map", "map(denominator=min(k,n_relevant))@10", "mrr@10", "p@5",
    "p(denominator=min(k,n_retrieved))@5", "recall@10", "rprec", "f1@10", "hit_rate@10",
    "hit_rate(average=micro)@10", "gauc", "bpref", "judged@3", "iprec(recall=0.5)", "11pt_avg",
]


# one-row queries on purpose: the shape SuspiciousInputWarning asks about
@pytest.mark.filterwarnings("ignore::sklearn_rank_metrics.SuspiciousInputWarning")
@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("weighted", [False, True])
def test_one_row_queries_take_the_values_of_the_general_path(ties, weighted):
    # every query of one row triggers the shortcuts; one query of two rows beside them
    # turns them off, and a query's value depends on that query alone
    rng = np.random.default_rng(11)
    n = 60
    y_true = rng.integers(0, 5, n).astype(float)
    y_score = rng.random(n)
    y_score[rng.random(n) < 0.2] = -np.inf  # judged, not retrieved
    group = rng.permutation(n) + 100
    weight = rng.uniform(0.5, 2.0, n) if weighted else None
    # every row is judged (judged=True): bpref and judged@3 read it
    settings = {"ties": ties, "replace_undefined_by": np.nan, "per_query": True, "judged": True}
    alone = evaluate(
        y_true, y_score, group, metrics=ONE_ROW_TEXTS, sample_weight=weight, **settings
    )
    extra = (
        np.append(y_true, [1.0, 2.0]),
        np.append(y_score, [0.5, 0.5]),
        np.append(group, [7, 7]),
        None if weight is None else np.append(weight, [1.0, 1.0]),
    )
    beside = evaluate(*extra[:3], metrics=ONE_ROW_TEXTS, sample_weight=extra[3], **settings)
    beside = beside[beside["query"] != 7].reset_index(drop=True)
    pd.testing.assert_frame_equal(alone, beside, rtol=1e-12, atol=1e-15)
    assert alone["gauc"].isna().all()  # one class per query: AUC undefined everywhere
    # and the means, with the default policies, equal the general path's
    with pytest.warns(UserWarning, match="no query is left to average"):  # gauc
        means = evaluate(y_true, y_score, group, metrics=ONE_ROW_TEXTS, ties=ties, judged=True)
    for text in ONE_ROW_TEXTS:
        values = alone[text].to_numpy()
        if text != "gauc" and not np.isnan(values).all():
            kept = values[~np.isnan(values)]
            expected = evaluate(
                y_true,
                y_score,
                group,
                metrics=[text],
                ties=ties,
                replace_undefined_by="skip",
                judged=True,
            )[text]
            assert expected == pytest.approx(kept.mean(), rel=1e-12), text
    assert set(means) == set(ONE_ROW_TEXTS)
