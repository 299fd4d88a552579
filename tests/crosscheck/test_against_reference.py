"""The package's public metric functions against the slow reference (tests/support/reference.py).

Seeded random data: many small queries (1-8 rows), scores drawn from a few distinct
values (many ties, some +inf, some -inf = unretrieved rows), labels 0..3, some queries
without relevant rows, non-contiguous shuffled query ids (ints, or strings).
Every variant is run for k in {None, 1, 3, 5}, every ties mode, every
replace_undefined_by policy, with and without sample_weight.  For the optimistic and
pessimistic modes the result must also be the brute-force max / min over all tie
orders (except for the two variants where relevant-first is not the best order).
"""

import contextlib
import functools
import math
import re
import warnings
from dataclasses import dataclass, field

import numpy as np
import pytest

from tests.support import reference as ref

RTOL, ATOL = 1e-10, 1e-12
INF = math.inf
KS = [None, 1, 3, 5]
POLICIES = [0.0, 1.0, np.nan, "skip", "raise"]
POLICY_IDS = ["zero", "one", "nan", "skip", "raise"]


def public(name):
    """Public function of the package, imported lazily so that this file always
    collects, even while the package is incomplete."""
    import sklearn_rank_metrics

    return getattr(sklearn_rank_metrics, name)


# ---------------------------------------------------------------------------
# Variants: (reference metric, public function, parameters)
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Variant:
    metric: str  # name in reference.METRIC_FUNCTIONS / reference_per_query
    function: str  # public function of sklearn_rank_metrics
    params: dict = field(default_factory=dict, hash=False)
    takes_k: bool = True
    # False where relevant-first is not the best order of a tie block
    relevant_first_is_max: bool = True
    # True where a query can be undefined in some tie orders only
    partially_undefined: bool = False


def _v(metric, function, **params):
    return Variant(metric, function, params)


VARIANTS = {
    # DCG
    "dcg": _v("dcg", "dcg_score"),
    "dcg-exponential": _v("dcg", "dcg_score", gain="exponential"),
    "dcg-gain_list": _v("dcg", "dcg_score", gain=[0.0, 1.0, 3.0, 10.0]),
    "dcg-gain_list_g0_positive": _v("dcg", "dcg_score", gain=[0.5, 1.0, 2.0, 4.0]),
    "dcg-gain_sqrt": _v("dcg", "dcg_score", gain=np.sqrt),
    "dcg-jarvelin": _v("dcg", "dcg_score", discount="max(1,log(rank))"),
    "dcg-cg": _v("dcg", "dcg_score", discount="none"),
    "dcg-log10": _v("dcg", "dcg_score", log_base=10),
    "dcg-jarvelin_ln": _v("dcg", "dcg_score", discount="max(1,log(rank))", log_base=math.e),
    # IDCG
    "idcg": _v("idcg", "idcg_score"),
    "idcg-exponential": _v("idcg", "idcg_score", gain="exponential"),
    "idcg-gain_list": _v("idcg", "idcg_score", gain=[0.0, 1.0, 3.0, 10.0]),
    "idcg-jarvelin_log10": _v("idcg", "idcg_score", discount="max(1,log(rank))", log_base=10),
    "idcg-cg": _v("idcg", "idcg_score", discount="none"),
    # NDCG
    "ndcg": _v("ndcg", "ndcg_score"),
    "ndcg-exponential": _v("ndcg", "ndcg_score", gain="exponential"),
    "ndcg-gain_array": _v("ndcg", "ndcg_score", gain=np.array([0.0, 1.0, 3.0, 10.0])),
    "ndcg-gain_square": _v("ndcg", "ndcg_score", gain=np.square),
    "ndcg-jarvelin": _v("ndcg", "ndcg_score", discount="max(1,log(rank))"),
    "ndcg-no_discount": _v("ndcg", "ndcg_score", discount="none"),
    "ndcg-ideal_top_k": Variant(
        "ndcg",
        "ndcg_score",
        {"ideal": "top_k"},
        relevant_first_is_max=False,
        partially_undefined=True,
    ),
    "ndcg-ideal_top_k-exponential": Variant(
        "ndcg",
        "ndcg_score",
        {"ideal": "top_k", "gain": "exponential"},
        relevant_first_is_max=False,
        partially_undefined=True,
    ),
    # AP
    "map": _v("map", "mean_average_precision_score"),
    "map-min_k_n_rel": _v("map", "mean_average_precision_score", denominator="min(k,n_relevant)"),
    "map-n_rel_in_top_k": Variant(
        "map",
        "mean_average_precision_score",
        {"denominator": "n_relevant_in_top_k"},
        relevant_first_is_max=False,
    ),
    "map-explicit_n_relevant-level2": _v(
        "map", "mean_average_precision_score", denominator="n_relevant", relevance_level=2
    ),
    # RR
    "mrr": _v("mrr", "mean_reciprocal_rank_score"),
    "mrr-level2": _v("mrr", "mean_reciprocal_rank_score", relevance_level=2),
    # precision / recall / F-beta
    "precision": _v("precision", "precision_at_k_score"),
    "precision-min_k_n_retrieved": _v(
        "precision", "precision_at_k_score", denominator="min(k,n_retrieved)"
    ),
    "precision-level2": _v("precision", "precision_at_k_score", relevance_level=2),
    "recall": _v("recall", "recall_at_k_score"),
    "recall-level3": _v("recall", "recall_at_k_score", relevance_level=3),
    "rprec": Variant("rprec", "r_precision_score", {}, takes_k=False),
    "rprec-level2": Variant("rprec", "r_precision_score", {"relevance_level": 2}, takes_k=False),
    "bpref": Variant("bpref", "bpref_score", {}, takes_k=False),
    "bpref-level2": Variant("bpref", "bpref_score", {"relevance_level": 2}, takes_k=False),
    "judged": _v("judged", "judged_at_k_score"),
    "iprec-0": Variant("iprec", "interpolated_precision_score", {}, takes_k=False),
    "iprec-0.5": Variant(
        "iprec", "interpolated_precision_score", {"recall": 0.5}, takes_k=False
    ),
    "iprec-0.3-level2": Variant(
        "iprec",
        "interpolated_precision_score",
        {"recall": 0.3, "relevance_level": 2},
        takes_k=False,
    ),
    "iprec-1": Variant("iprec", "interpolated_precision_score", {"recall": 1.0}, takes_k=False),
    "11pt_avg": Variant("eleven_point", "eleven_point_precision_score", {}, takes_k=False),
    "rbp": _v("rbp", "rbp_score"),
    "rbp-graded-level2": _v("rbp", "rbp_score", p=0.5, graded=True, relevance_level=2),
    "rbp-residual": _v("rbp", "rbp_score", p=0.9, part="residual"),
    "rbp-upper": _v("rbp", "rbp_score", part="upper"),
    "num_rel": Variant("counts", "retrieval_count_score", {"count": "relevant"}, takes_k=False),
    "num_ret": _v("counts", "retrieval_count_score", count="retrieved"),
    "num_rel_ret-level2": _v("counts", "retrieval_count_score", relevance_level=2),
    "f1": _v("fbeta", "fbeta_at_k_score"),
    "fbeta-0.5-min_k_n_retrieved": _v(
        "fbeta", "fbeta_at_k_score", beta=0.5, denominator="min(k,n_retrieved)"
    ),
    "fbeta-2-level2": _v("fbeta", "fbeta_at_k_score", beta=2.0, relevance_level=2),
    # fall-out: relevant rows first is its minimum (lower is better)
    "fallout": Variant("fallout", "fallout_at_k_loss", {}, relevant_first_is_max=False),
    "fallout-level2": Variant(
        "fallout", "fallout_at_k_loss", {"relevance_level": 2}, relevant_first_is_max=False
    ),
    # hit rate
    "hit_rate": _v("hit_rate", "hit_rate_score"),
    "hit_rate-level2": _v("hit_rate", "hit_rate_score", relevance_level=2, average="macro"),
    "hit_rate-micro": _v("hit_rate", "hit_rate_score", average="micro"),
    # ERR
    "err": _v("err", "expected_reciprocal_rank_score"),
    "err-max_grade3": _v("err", "expected_reciprocal_rank_score", max_grade=3),
    "err-max_grade5": _v("err", "expected_reciprocal_rank_score", max_grade=5),
}
AUC_VARIANTS = {
    "gauc": Variant("gauc", "group_roc_auc_score", {}, takes_k=False),
    "gauc-rows": Variant("gauc", "group_roc_auc_score", {"query_weight": "rows"}, takes_k=False),
    "gauc-positives": Variant(
        "gauc", "group_roc_auc_score", {"query_weight": "positives"}, takes_k=False
    ),
    "gauc-uniform-level2": Variant(
        "gauc",
        "group_roc_auc_score",
        {"query_weight": "uniform", "relevance_level": 2},
        takes_k=False,
    ),
}
ALL_VARIANTS = {**VARIANTS, **AUC_VARIANTS}


# ---------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------

SCORE_LEVELS = np.array([-2.5, -1.0, 0.25, 0.5, 3.0, INF])


@dataclass
class Data:
    y_true: np.ndarray
    y_score: np.ndarray
    base_qid: np.ndarray  # int query id of each row (the reference uses these)
    query_weight: dict  # base id -> weight

    def group(self, kind):
        if kind == "int":
            return self.base_qid.copy()
        return np.array([f"q{q}" for q in self.base_qid], dtype=object)

    def sample_weight(self):
        return np.array([self.query_weight[q] for q in self.base_qid])

    def subset(self, mask):
        return Data(self.y_true[mask], self.y_score[mask], self.base_qid[mask], self.query_weight)


def make_data(seed=20240611, n_queries=40):
    rng = np.random.default_rng(seed)
    ids = rng.choice(np.arange(-40, 2000), size=n_queries, replace=False)
    y_true, y_score, qid = [], [], []
    for i, q in enumerate(ids):
        size = int(rng.integers(1, 9))
        levels = rng.choice(SCORE_LEVELS, size=int(rng.integers(1, 4)), replace=False)
        scores = rng.choice(levels, size=size)
        scores[rng.random(size) < 0.15] = -INF
        labels = rng.choice(4, size=size, p=[0.45, 0.25, 0.18, 0.12])
        if i % 6 == 0:
            labels[:] = 0  # no relevant row
        elif i == 1:
            scores[:] = -INF  # nothing retrieved, one relevant row
            labels[0] = 2
        elif i == 2:
            labels[:] = rng.integers(1, 4, size=size)  # only relevant rows
        y_true.append(labels)
        y_score.append(scores)
        qid.append(np.full(size, q))
    y_true = np.concatenate(y_true)
    y_score = np.concatenate(y_score)
    qid = np.concatenate(qid)
    perm = rng.permutation(len(y_true))
    weights = {int(q): float(w) for q, w in zip(ids, rng.uniform(0.5, 3.0, len(ids)), strict=True)}
    return Data(y_true[perm].astype(np.int64), y_score[perm], qid[perm], weights)


DATA = make_data()
assert np.max(DATA.y_true) == 3


# ---------------------------------------------------------------------------
# Cached reference results
# ---------------------------------------------------------------------------


def metric_params(variant, k):
    params = dict(variant.params)
    if variant.takes_k:
        params["k"] = k
    return params


@functools.cache
def _average_on(vid, k, data_key):
    variant = ALL_VARIANTS[vid]
    data = _DATA_BY_KEY[data_key]
    return ref.reference_per_query(
        variant.metric,
        data.y_true,
        data.y_score,
        data.base_qid,
        ties="average",
        with_bounds=True,
        **metric_params(variant, k),
    )


_DATA_BY_KEY = {"full": DATA}


@functools.cache
def data_key_for(vid, k, ties):
    """Which data a test runs on.

    For ndcg with ideal="top_k" and ties="average", queries that are undefined in
    some tie orders only (ideal DCG of the top k empty in some orders) are dropped:
    SPEC does not say how such a query is averaged.  They are tested on their own in
    ``test_ndcg_top_k_partially_undefined_query``.
    """
    variant = ALL_VARIANTS[vid]
    if not (variant.partially_undefined and ties == "average"):
        return "full"
    pq = _average_on(vid, k, "full")
    partial = pq.qids[(pq.undefined_fraction > 0) & (pq.undefined_fraction < 1)]
    if len(partial) == 0:
        return "full"
    key = f"{vid}-{k}-without-partial"
    _DATA_BY_KEY[key] = DATA.subset(~np.isin(DATA.base_qid, partial))
    return key


@functools.cache
def reference_for(vid, k, ties):
    """PerQuery of the reference (average mode carries the tie-order bounds)."""
    variant = ALL_VARIANTS[vid]
    key = data_key_for(vid, k, ties)
    if ties == "average":
        return _average_on(vid, k, key)
    data = _DATA_BY_KEY[key]
    return ref.reference_per_query(
        variant.metric,
        data.y_true,
        data.y_score,
        data.base_qid,
        ties=ties,
        **metric_params(variant, k),
    )


# ---------------------------------------------------------------------------
# Checking one call
# ---------------------------------------------------------------------------


def names_query(message, qids):
    """True if the message names one of the query ids (as a whole token)."""
    for q in qids:
        token = re.escape(str(q))
        if re.search(rf"(?<![\w.]){token}(?![\w.])", message):
            return True
    return False


def judged_all(variant):
    """``judged=True`` for the measures that read judgments (bpref, Judged@k, RBP's
    residual and upper bound): the reference reads every row as judged."""
    reads = variant.function in ("bpref_score", "judged_at_k_score") or variant.params.get(
        "part"
    ) in ("residual", "upper")
    return {"judged": True} if reads else {}


def call_package(variant, data, k, ties, policy, weighted, id_kind, **extra):
    kwargs = dict(variant.params)
    kwargs.update(judged_all(variant))
    if variant.takes_k:
        kwargs["k"] = k
    if ties is not None:
        kwargs["ties"] = ties
    kwargs["replace_undefined_by"] = policy
    if weighted:
        kwargs["sample_weight"] = data.sample_weight()
    kwargs.update(extra)
    func = public(variant.function)
    return func(data.y_true.copy(), data.y_score.copy(), data.group(id_kind), **kwargs)


def check(variant, data, pq, k, ties, policy, weighted, id_kind, bound_values=None, **extra):
    """Compare the package with the reference aggregate of ``pq``."""
    query_weight = ref.query_weights_from_rows(pq, data.sample_weight()) if weighted else None
    undefined_ids = pq.qids[pq.undefined_fraction > 0]
    if id_kind == "str":
        undefined_ids = [f"q{q}" for q in undefined_ids]
    if policy == "raise" and len(undefined_ids):
        with pytest.raises(ValueError) as excinfo:
            call_package(variant, data, k, ties, policy, weighted, id_kind, **extra)
        assert names_query(str(excinfo.value), undefined_ids), (
            f"the error {excinfo.value!s} names none of the undefined queries "
            f"{list(undefined_ids)[:5]}..."
        )
        return
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        expected, _ = ref.aggregate(
            pq, policy, query_weight, total=variant.metric in ref.TOTAL_METRICS
        )
    got = call_package(variant, data, k, ties, policy, weighted, id_kind, **extra)
    assert isinstance(got, float)
    np.testing.assert_allclose(got, expected, rtol=RTOL, atol=ATOL)
    if caught:  # every query skipped: only possible with "skip"
        assert math.isnan(got)
    for name, values in (bound_values or {}).items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            bound, _ = ref.aggregate(
                pq, policy, query_weight, values=values, total=variant.metric in ref.TOTAL_METRICS
            )
        np.testing.assert_allclose(
            got, bound, rtol=RTOL, atol=ATOL, err_msg=f"not the brute-force {name} over tie orders"
        )


DATA_CASES = {"int_ids": ("int", False), "str_ids-weighted": ("str", True)}


def is_nan_policy(policy):
    return isinstance(policy, float) and math.isnan(policy)


def policies_of(vid):
    """The (policy, id) pairs a variant is checked under, in ``POLICIES`` order.

    Left out: the micro hit rate with the nan policy (an open reading of SPEC, tested
    on its own in test_hit_rate_micro_nan_policy).
    """
    micro = ALL_VARIANTS[vid].params.get("average") == "micro"
    return [
        (policy, pid)
        for policy, pid in zip(POLICIES, POLICY_IDS, strict=True)
        if not (micro and is_nan_policy(policy))
    ]


def matrix(variant_ids, ks):
    """Every (variant, k, ties, data case), as pytest params with readable ids.

    The undefined-query policies are looped over inside each item (``run_case``):
    the reference of a (variant, k, ties) is computed once and serves them all.
    """
    out = []
    for vid in variant_ids:
        for k in ks:
            for ties in ref.TIES:
                for case_id, case in DATA_CASES.items():
                    kid = "" if k is False else f"-k{k}"
                    out.append(
                        pytest.param(
                            vid,
                            None if k is False else k,
                            ties,
                            case,
                            id=f"{vid}{kid}-{ties}-{case_id}",
                        )
                    )
    return out


@contextlib.contextmanager
def policy_named(pid):
    """Every failure inside names the undefined-query policy it was checked under."""
    try:
        yield
    except (AssertionError, pytest.fail.Exception) as error:
        raise AssertionError(f"replace_undefined_by={pid}: {error}") from error


def run_case(vid, k, ties, case):
    id_kind, weighted = case
    variant = ALL_VARIANTS[vid]
    data = _DATA_BY_KEY[data_key_for(vid, k, ties)]
    pq = reference_for(vid, k, ties)
    bounds = None
    if ties in ("optimistic", "pessimistic") and variant.relevant_first_is_max:
        avg = reference_for(vid, k, "average")
        # same queries, same order of queries, same undefined flags (0 or 1)
        assert np.array_equal(avg.qids, pq.qids)
        assert np.array_equal(avg.undefined_fraction, pq.undefined_fraction)
        bounds = {"max": avg.maxs} if ties == "optimistic" else {"min": avg.mins}
    for policy, pid in policies_of(vid):
        with policy_named(pid):
            check(variant, data, pq, k, ties, policy, weighted, id_kind, bound_values=bounds)


@pytest.mark.parametrize(("vid", "k", "ties", "case"), matrix(VARIANTS, KS))
def test_metric_against_reference(vid, k, ties, case):
    run_case(vid, k, ties, case)


@pytest.mark.parametrize(("vid", "k", "ties", "case"), matrix(AUC_VARIANTS, [False]))
def test_group_roc_auc_against_reference(vid, k, ties, case):
    run_case(vid, k, ties, case)


# ---------------------------------------------------------------------------
# Defaults, ignore_ties, group=None, 2-D input, all skipped
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("vid", list(ALL_VARIANTS))
def test_defaults_are_average_ties_and_default_policy(vid):
    variant = ALL_VARIANTS[vid]
    data = _DATA_BY_KEY[data_key_for(vid, None, "average")]
    pq = reference_for(vid, None, "average")
    expected, _ = ref.aggregate(
        pq, "skip" if variant.metric == "gauc" else 0.0, total=variant.metric in ref.TOTAL_METRICS
    )
    got = public(variant.function)(
        data.y_true, data.y_score, data.group("int"), **variant.params, **judged_all(variant)
    )
    np.testing.assert_allclose(got, expected, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("k", KS, ids=[f"k{k}" for k in KS])
@pytest.mark.parametrize(
    "vid", ["dcg", "dcg-exponential", "ndcg", "ndcg-jarvelin", "ndcg-ideal_top_k"]
)
def test_ignore_ties_is_input_order(vid, k):
    variant = ALL_VARIANTS[vid]
    pq = reference_for(vid, k, "input")
    check(variant, DATA, pq, k, None, 0.0, False, "int", ignore_ties=True)


def test_inputs_are_not_modified():
    y_true, y_score, group = DATA.y_true.copy(), DATA.y_score.copy(), DATA.group("str")
    group_before = group.copy()
    for vid, variant in ALL_VARIANTS.items():
        ties = "input" if variant.partially_undefined else "average"
        public(variant.function)(
            y_true, y_score, group, ties=ties, **variant.params, **judged_all(variant)
        )
        assert np.array_equal(y_true, DATA.y_true), vid
        assert np.array_equal(y_score, DATA.y_score), vid
        assert np.array_equal(group, group_before), vid


@pytest.mark.parametrize("ties", ref.TIES)
@pytest.mark.parametrize(
    "vid", ["ndcg", "map", "mrr", "precision", "recall", "f1", "hit_rate", "err-max_grade3", "gauc"]
)
def test_group_none_is_refused_and_one_id_is_one_query(vid, ties):
    """Flat rows without group are an error (issue 31); one query is said with one id."""
    variant = ALL_VARIANTS[vid]
    y_true = np.array([0, 2, 1, 0, 3, 1, 0])
    y_score = np.array([0.5, 0.5, 2.0, -INF, 0.5, 2.0, 1.0])
    params = metric_params(variant, 3)
    with pytest.raises(
        ValueError,
        match=rf"'group' parameter of {variant.function} is required with flat \(1-D\) y_true"
        r".*group=np\.zeros\(len\(y_true\)\)",
    ):
        public(variant.function)(y_true, y_score, ties=ties, **params)
    expected, _ = ref.reference_mean(variant.metric, y_true, y_score, None, ties=ties, **params)
    got = public(variant.function)(y_true, y_score, np.zeros(len(y_true)), ties=ties, **params)
    np.testing.assert_allclose(got, expected, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("ties", ["average", "input"])
@pytest.mark.parametrize(
    "vid",
    [
        "dcg",
        "ndcg",
        "ndcg-exponential",
        "map",
        "mrr",
        "precision",
        "recall",
        "fbeta-2-level2",
        "hit_rate",
        "err",
        "gauc-rows",
    ],
)
def test_two_dimensional_input(vid, ties, weighted):
    """group=None with 2-D input: each row of the matrix is a query 0..n-1."""
    variant = ALL_VARIANTS[vid]
    rng = np.random.default_rng(7)
    n_queries, n_docs = 12, 5
    y_true = rng.choice(4, size=(n_queries, n_docs), p=[0.5, 0.25, 0.15, 0.1])
    y_true[3] = 0
    y_true[0, 0] = 3
    y_score = rng.choice([-INF, 0.0, 1.0, 2.5], size=(n_queries, n_docs))
    weights = rng.uniform(0.5, 2.0, size=n_queries)
    params = metric_params(variant, 3)
    if variant.metric == "gauc":
        params.pop("k", None)
    group = np.repeat(np.arange(n_queries), n_docs)
    expected, _ = ref.reference_mean(
        variant.metric,
        y_true.ravel(),
        y_score.ravel(),
        group,
        ties=ties,
        sample_weight=np.repeat(weights, n_docs) if weighted else None,
        **params,
    )
    got = public(variant.function)(
        y_true, y_score, ties=ties, sample_weight=weights if weighted else None, **params
    )
    np.testing.assert_allclose(got, expected, rtol=RTOL, atol=ATOL)


# (with a gain table whose G[0] > 0 every row has a positive gain, and Judged@k is
# defined for every query: never undefined)
@pytest.mark.parametrize(
    "vid",
    [
        v
        for v in ALL_VARIANTS
        if v not in ("dcg-gain_list_g0_positive", "judged", "rbp-residual", "rbp-upper")
        and ALL_VARIANTS[v].metric != "counts"
    ],
)
def test_every_query_skipped_gives_nan_and_warns(vid):
    variant = ALL_VARIANTS[vid]
    y_true = np.array([0, 0, 0, 0])
    y_score = np.array([1.0, 2.0, 2.0, -INF])
    group = np.array([5, 9, 5, 9])
    if variant.metric == "gauc":
        y_true = np.array([1, 0, 1, 0])  # one class per query
        group = np.array([5, 9, 5, 9])
    if variant.metric == "fallout":
        y_true = np.array([2, 2, 2, 2])  # no non-relevant row (at level 2 either)
    params = metric_params(variant, 3)
    if variant.metric == "err":
        params["max_grade"] = 3
    if variant.partially_undefined:  # keep this test about the policy, not about ties
        params["ties"] = "input"
    with pytest.warns(UserWarning):
        got = public(variant.function)(
            y_true, y_score, group, replace_undefined_by="skip", **params, **judged_all(variant)
        )
    assert math.isnan(got)


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("k", KS, ids=[f"k{k}" for k in KS])
def test_hit_rate_micro_nan_policy(k, weighted):
    """average="micro" with replace_undefined_by=nan.

    SPEC: nan makes the mean nan, and micro is "per-query recall@k weighted by
    n_rel_q * sample_weight_q".  A query without relevant rows has weight 0 but
    value nan, and 0 * nan is nan: reading taken, the result is nan whenever a query
    has no relevant row (the same rule as for every other metric).
    """
    variant = ALL_VARIANTS["hit_rate-micro"]
    pq = reference_for("hit_rate-micro", k, "average")
    assert np.any(pq.undefined_fraction > 0)
    check(variant, DATA, pq, k, "average", np.nan, weighted, "int")


# ---------------------------------------------------------------------------
# The case SPEC leaves open, with the reading taken by the reference
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        pytest.param(0.0, (0.5 + 1) / 2, id="zero"),
        pytest.param(1.0, (1 + 1) / 2, id="one"),
        pytest.param(np.nan, np.nan, id="nan"),
        pytest.param("skip", 1.0, id="skip"),
        pytest.param("raise", None, id="raise"),
    ],
)
def test_ndcg_top_k_partially_undefined_query(policy, expected):
    """ndcg ideal="top_k", ties="average", a tied (relevant, irrelevant) pair and k=1.

    Query 17: in order (rel, irr) NDCG = 1; in order (irr, rel) the ideal DCG of the
    top 1 is 0, so the query is undefined in that order.  Reading taken: the policy
    value stands in for the undefined orders (0.0 -> 1/2, 1.0 -> 1); nan, "skip" and
    "raise" treat the query as undefined because it is undefined in at least one order.
    Query 42 (labels 1, 0 with distinct scores) is always defined: NDCG 1.
    """
    y_true = np.array([1, 0, 1, 0])
    y_score = np.array([1.0, 1.0, 2.0, 1.0])
    group = np.array([17, 17, 42, 42])
    kwargs = {"k": 1, "ideal": "top_k", "ties": "average", "replace_undefined_by": policy}
    func = public("ndcg_score")
    if policy == "raise":
        with pytest.raises(ValueError) as excinfo:
            func(y_true, y_score, group, **kwargs)
        assert names_query(str(excinfo.value), [17]), str(excinfo.value)
        with pytest.raises(ValueError):
            ref.reference_mean("ndcg", y_true, y_score, group, **kwargs)
        return
    got = func(y_true, y_score, group, **kwargs)
    np.testing.assert_allclose(got, expected, rtol=RTOL, atol=ATOL)
    # the reference agrees with the arithmetic above
    ref_value, _ = ref.reference_mean("ndcg", y_true, y_score, group, **kwargs)
    np.testing.assert_allclose(ref_value, expected, rtol=RTOL, atol=ATOL)
