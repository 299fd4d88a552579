"""Slow, deliberately simple reference implementation of the metrics, from their definitions.

Written only from the formulas (README and docstrings), independently of the package, so the
package can be tested against it.  Everything is plain Python loops over one query
at a time; clarity is preferred over speed everywhere.

Conventions used throughout this module
---------------------------------------
* Ranks are 1-based.  A row with ``y_score == -inf`` is "unretrieved": it never
  occupies a rank, but it counts for the number of relevant rows, for the ideal DCG
  and (as a block tied at the very bottom) for the per-query AUC.
* A per-query metric function has the signature
  ``f(ranked, unretrieved, **params) -> (value, undefined)`` where ``ranked`` holds
  the labels (``y_true`` values) of the retrieved rows in rank order and
  ``unretrieved`` the labels of the ``-inf`` rows (in their tie order, which only
  matters for the AUC).  ``undefined`` is True when the spec calls the query
  undefined (no relevant row, or one class for the AUC); ``value`` is then a
  placeholder (0.0) that the aggregation replaces according to
  ``replace_undefined_by``.
"""

import itertools
import math
import warnings
from collections import namedtuple
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

TIES = ("average", "input", "optimistic", "pessimistic")
FIXED_ORDER_TIES = ("input", "optimistic", "pessimistic")
POLICIES = (0.0, 1.0, np.nan, "skip", "raise")


# ---------------------------------------------------------------------------
# Ordering of one query
# ---------------------------------------------------------------------------


def order_rows(y_true, y_score, ties="input", include_unretrieved=False):
    """Ranking of ONE query as a list of row indices (0-based, into the inputs).

    Rows are sorted by score descending.  Rows with exactly equal scores are put
    in input order ("input"), by ``y_true`` descending then input order
    ("optimistic") or by ``y_true`` ascending then input order ("pessimistic").

    Only retrieved rows (score > -inf) are returned unless ``include_unretrieved``
    is True; then the ``-inf`` rows follow at the end, ordered by the same tie rule
    (they form one tie block).
    """
    y_true = [float(v) for v in y_true]
    y_score = [float(v) for v in y_score]
    if ties not in FIXED_ORDER_TIES:
        raise ValueError(f"order_rows needs a fixed-order ties mode, got {ties!r}")
    rows = [i for i in range(len(y_score)) if include_unretrieved or y_score[i] > -math.inf]

    def key(i):
        if ties == "input":
            return (-y_score[i], i)
        if ties == "optimistic":
            return (-y_score[i], -y_true[i], i)
        return (-y_score[i], y_true[i], i)

    return sorted(rows, key=key)


def split_ranked(y_true, y_score, ties):
    """(ranked labels, unretrieved labels) of one query for a fixed ties mode."""
    order = order_rows(y_true, y_score, ties, include_unretrieved=True)
    ranked = [float(y_true[i]) for i in order if y_score[i] > -math.inf]
    unretrieved = [float(y_true[i]) for i in order if y_score[i] == -math.inf]
    return ranked, unretrieved


# ---------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------


def depth_of(k, n_retrieved):
    """Effective cutoff: min(k, n_retrieved); k=None means n_retrieved."""
    if k is None:
        return n_retrieved
    return min(k, n_retrieved)


def is_relevant(label, relevance_level=None):
    """Binary relevance: y_true > 0, or y_true >= relevance_level if given."""
    if relevance_level is None:
        return label > 0
    return label >= relevance_level


def gain_of(label, gain="linear"):
    """Gain of one label: linear, exponential (2**y - 1), binary (1 if y > 0 else 0),
    array G[y] or callable."""
    if isinstance(gain, str):
        if gain == "linear":
            return float(label)
        if gain == "exponential":
            return 2.0 ** float(label) - 1.0
        if gain == "binary":
            return 1.0 if label > 0 else 0.0
        raise ValueError(f"unknown gain {gain!r}")
    if callable(gain):
        return float(np.asarray(gain(np.array([float(label)])))[0])
    table = list(gain)
    index = int(label)
    if index != label or not 0 <= index < len(table):
        raise ValueError(f"label {label} is not a valid index into the gain array")
    return float(table[index])


def discount_of(rank, discount="log(rank+1)", log_base=2):
    """Discount factor of a 1-based rank."""
    if discount == "log(rank+1)":
        return 1.0 / (math.log(rank + 1) / math.log(log_base))
    if discount == "max(1,log(rank))":
        return 1.0 / max(1.0, math.log(rank) / math.log(log_base))
    if discount == "none":
        return 1.0
    raise ValueError(f"unknown discount {discount!r}")


def _hits_at(ranked, depth, relevance_level):
    return sum(1 for label in ranked[:depth] if is_relevant(label, relevance_level))


def _n_relevant(ranked, unretrieved, relevance_level):
    return sum(1 for label in ranked + unretrieved if is_relevant(label, relevance_level))


# ---------------------------------------------------------------------------
# Per-query metrics: f(ranked, unretrieved, **params) -> (value, undefined)
# ---------------------------------------------------------------------------


def dcg(ranked, unretrieved, *, k=None, gain="linear", discount="log(rank+1)", log_base=2):
    """DCG@k = sum_{i=1}^{depth} g_(i) * disc(i); undefined if no row has gain > 0."""
    ranked, unretrieved = list(ranked), list(unretrieved)
    undefined = not any(gain_of(y, gain) > 0 for y in ranked + unretrieved)
    depth = depth_of(k, len(ranked))
    value = 0.0
    for rank in range(1, depth + 1):
        value += gain_of(ranked[rank - 1], gain) * discount_of(rank, discount, log_base)
    return value, undefined


def cg(ranked, unretrieved, *, k=None, gain="linear"):
    """Cumulative gain = DCG without discount."""
    return dcg(ranked, unretrieved, k=k, gain=gain, discount="none")


def ideal_dcg(
    ranked, unretrieved, *, k=None, gain="linear", discount="log(rank+1)", ideal="all", log_base=2
):
    """Ideal DCG of one query.

    ideal="all": all rows (also -inf ones) sorted by gain descending, truncated at
    min(k, n_rows) (k=None: no truncation, every row).
    ideal="top_k": only the gains of the rows at ranks 1..depth, re-sorted.
    """
    ranked, unretrieved = list(ranked), list(unretrieved)
    if ideal == "all":
        gains = [gain_of(y, gain) for y in ranked + unretrieved]
        cut = len(gains) if k is None else min(k, len(gains))
    elif ideal == "top_k":
        depth = depth_of(k, len(ranked))
        gains = [gain_of(y, gain) for y in ranked[:depth]]
        cut = depth
    else:
        raise ValueError(f"unknown ideal {ideal!r}")
    gains = sorted(gains, reverse=True)[:cut]
    return sum(g * discount_of(rank, discount, log_base) for rank, g in enumerate(gains, start=1))


def idcg(ranked, unretrieved, *, k=None, gain="linear", discount="log(rank+1)", log_base=2):
    """IDCG@k: ``ideal_dcg`` with ideal="all"; undefined if no row has gain > 0."""
    rows = list(ranked) + list(unretrieved)
    undefined = not any(gain_of(y, gain) > 0 for y in rows)
    value = ideal_dcg(ranked, unretrieved, k=k, gain=gain, discount=discount, log_base=log_base)
    return value, undefined


def ndcg(ranked, unretrieved, *, k=None, gain="linear", discount="log(rank+1)", ideal="all"):
    """NDCG@k = DCG@k / IDCG@k (log base 2); undefined when IDCG == 0."""
    value, _ = dcg(ranked, unretrieved, k=k, gain=gain, discount=discount, log_base=2)
    idcg = ideal_dcg(
        ranked, unretrieved, k=k, gain=gain, discount=discount, ideal=ideal, log_base=2
    )
    if idcg == 0:
        return 0.0, True
    return value / idcg, False


def ap(ranked, unretrieved, *, k=None, relevance_level=None, denominator="n_relevant"):
    """AP@k = (1/D) sum_{i <= depth, row i relevant} hits@i / i."""
    ranked, unretrieved = list(ranked), list(unretrieved)
    n_rel = _n_relevant(ranked, unretrieved, relevance_level)
    depth = depth_of(k, len(ranked))
    hits = 0
    total = 0.0
    for rank in range(1, depth + 1):
        if is_relevant(ranked[rank - 1], relevance_level):
            hits += 1
            total += hits / rank
    if denominator == "n_relevant":
        denom = n_rel
    elif denominator == "min(k,n_relevant)":
        denom = n_rel if k is None else min(k, n_rel)
    elif denominator == "n_relevant_in_top_k":
        denom = hits
    else:
        raise ValueError(f"unknown denominator {denominator!r}")
    value = total / denom if denom > 0 else 0.0
    return value, n_rel == 0


def rr(ranked, unretrieved, *, k=None, relevance_level=None):
    """1 / rank of the first relevant row if that rank <= depth, else 0."""
    ranked, unretrieved = list(ranked), list(unretrieved)
    n_rel = _n_relevant(ranked, unretrieved, relevance_level)
    depth = depth_of(k, len(ranked))
    value = 0.0
    for rank in range(1, depth + 1):
        if is_relevant(ranked[rank - 1], relevance_level):
            value = 1.0 / rank
            break
    return value, n_rel == 0


def precision(ranked, unretrieved, *, k=None, relevance_level=None, denominator="k"):
    """P@k = hits@k / k ("k"; k=None -> n_retrieved) or hits@k / min(k, n_retrieved).

    A zero denominator (nothing retrieved) gives 0.
    """
    ranked, unretrieved = list(ranked), list(unretrieved)
    n_rel = _n_relevant(ranked, unretrieved, relevance_level)
    depth = depth_of(k, len(ranked))
    hits = _hits_at(ranked, depth, relevance_level)
    if denominator == "k":
        denom = len(ranked) if k is None else k
    elif denominator == "min(k,n_retrieved)":
        denom = depth
    else:
        raise ValueError(f"unknown denominator {denominator!r}")
    value = hits / denom if denom > 0 else 0.0
    return value, n_rel == 0


def recall(ranked, unretrieved, *, k=None, relevance_level=None):
    """R@k = hits@k / n_rel."""
    ranked, unretrieved = list(ranked), list(unretrieved)
    n_rel = _n_relevant(ranked, unretrieved, relevance_level)
    hits = _hits_at(ranked, depth_of(k, len(ranked)), relevance_level)
    if n_rel == 0:
        return 0.0, True
    return hits / n_rel, False


def fbeta(ranked, unretrieved, *, k=None, beta=1.0, relevance_level=None, denominator="k"):
    """F = (1 + b^2) P R / (b^2 P + R); 0 when hits@k = 0."""
    p, undefined = precision(
        ranked, unretrieved, k=k, relevance_level=relevance_level, denominator=denominator
    )
    r, _ = recall(ranked, unretrieved, k=k, relevance_level=relevance_level)
    hits = _hits_at(list(ranked), depth_of(k, len(ranked)), relevance_level)
    if hits == 0:
        return 0.0, undefined
    b2 = beta * beta
    return (1 + b2) * p * r / (b2 * p + r), undefined


def rprec(ranked, unretrieved, *, relevance_level=None):
    """R-precision: hits in the first min(R, n_retrieved) ranks / R (trec_eval Rprec)."""
    ranked, unretrieved = list(ranked), list(unretrieved)
    n_rel = _n_relevant(ranked, unretrieved, relevance_level)
    if n_rel == 0:
        return 0.0, True
    return _hits_at(ranked, min(n_rel, len(ranked)), relevance_level) / n_rel, False


def bpref(ranked, unretrieved, *, relevance_level=None):
    """bpref with every row judged (trec_eval): each retrieved relevant row adds
    1 - min(n, R) / min(N, R), n the non-relevant rows above it (1 when N = 0); / R."""
    ranked, unretrieved = list(ranked), list(unretrieved)
    n_rel = _n_relevant(ranked, unretrieved, relevance_level)
    n_non = len(ranked) + len(unretrieved) - n_rel
    if n_rel == 0:
        return 0.0, True
    total, above = 0.0, 0
    for label in ranked:
        if is_relevant(label, relevance_level):
            total += 1.0 if n_non == 0 else 1.0 - min(above, n_rel) / min(n_non, n_rel)
        else:
            above += 1
    return total / n_rel, False


def iprec(ranked, unretrieved, *, recall=0.0, relevance_level=None):
    """Interpolated precision at recall level X (trec_eval iprec_at_recall_X):
    the best precision at a rank at or below the c-th relevant retrieved row,
    c = max(1, int(X R + 0.9)); 0 when fewer than c relevant rows are retrieved."""
    ranked, unretrieved = list(ranked), list(unretrieved)
    n_rel = _n_relevant(ranked, unretrieved, relevance_level)
    if n_rel == 0:
        return 0.0, True
    c = max(1, int(recall * n_rel + 0.9))
    best, seen = 0.0, 0
    for rank, label in enumerate(ranked, start=1):
        if is_relevant(label, relevance_level):
            seen += 1
            if seen >= c:
                best = max(best, seen / rank)
    return best, False


def eleven_point(ranked, unretrieved, *, relevance_level=None):
    """trec_eval 11pt_avg: the mean of iprec at recall 0.0, 0.1, ..., 1.0."""
    levels = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
    values = [iprec(ranked, unretrieved, recall=x, relevance_level=relevance_level)
              for x in levels]
    total = 0.0
    for value, _ in values:
        total += value
    return total / len(levels), values[0][1]


def judged(ranked, unretrieved, *, k=None):
    """Judged@k with every row judged: 1 when the query retrieved a row, else 0."""
    return (1.0 if depth_of(k, len(list(ranked))) else 0.0), False


def rbp(ranked, unretrieved, *, k=None, p=0.8, graded=False, relevance_level=None,
        part="value"):  # fmt: skip
    """RBP = (1 - p) sum_{i <= d} p^(i-1) g_i (every row judged: residual = p^d)."""
    ranked, unretrieved = list(ranked), list(unretrieved)
    n_rel = _n_relevant(ranked, unretrieved, relevance_level)
    depth = depth_of(k, len(ranked))
    value = 0.0
    for i, label in enumerate(ranked[:depth]):
        if is_relevant(label, relevance_level):
            value += (1 - p) * p**i * (label if graded else 1.0)
    residual = p**depth
    if part == "residual":
        return residual, False
    if part == "upper":  # defined without a relevant row too (cwl_eval's EU + ResEU)
        return value + residual, False
    return value, n_rel == 0


def counts(ranked, unretrieved, *, k=None, count="relevant_retrieved", relevance_level=None):
    """trec_eval's counts of one query: relevant rows (all), retrieved rows in the
    cutoff, or relevant rows among those; defined for every query, summed over queries."""
    ranked, unretrieved = list(ranked), list(unretrieved)
    if count == "relevant":
        return float(_n_relevant(ranked, unretrieved, relevance_level)), False
    depth = depth_of(k, len(ranked))
    if count == "retrieved":
        return float(depth), False
    return float(_hits_at(ranked, depth, relevance_level)), False


def fallout(ranked, unretrieved, *, k=None, relevance_level=None):
    """Fall-out@k = non-relevant rows in the first min(k, n_retrieved) ranks / all
    non-relevant rows (unretrieved ones included); undefined without a non-relevant row."""
    n_non_relevant = sum(
        1 for y in list(ranked) + list(unretrieved) if not is_relevant(y, relevance_level)
    )
    if n_non_relevant == 0:
        return 0.0, True
    depth = depth_of(k, len(ranked))
    in_top = sum(1 for y in ranked[:depth] if not is_relevant(y, relevance_level))
    return in_top / n_non_relevant, False


def hit(ranked, unretrieved, *, k=None, relevance_level=None):
    """Macro hit rate of one query: 1 if hits@k >= 1 else 0."""
    ranked, unretrieved = list(ranked), list(unretrieved)
    n_rel = _n_relevant(ranked, unretrieved, relevance_level)
    hits = _hits_at(ranked, depth_of(k, len(ranked)), relevance_level)
    return (1.0 if hits >= 1 else 0.0), n_rel == 0


def err(ranked, unretrieved, *, k=None, max_grade):
    """ERR@k = sum_{r<=depth} (1/r) R_r prod_{i<r} (1 - R_i), R(g) = (2^g-1)/2^max_grade.

    Undefined when no label (retrieved or not) is > 0.  ``max_grade`` must be a
    number here; ``reference_per_query`` resolves max_grade=None to max(y_true).
    """
    ranked, unretrieved = list(ranked), list(unretrieved)
    undefined = not any(y > 0 for y in ranked + unretrieved)
    depth = depth_of(k, len(ranked))
    value = 0.0
    not_stopped = 1.0
    for rank in range(1, depth + 1):
        r_prob = (2.0 ** ranked[rank - 1] - 1.0) / 2.0**max_grade
        value += not_stopped * r_prob / rank
        not_stopped *= 1.0 - r_prob
    return value, undefined


def auc(ranked, unretrieved, *, relevance_level=None):
    """AUC of one query for one strict total order: ranked rows, then -inf rows.

    Share of (relevant, non-relevant) pairs in which the relevant row comes first.
    Undefined with only one class.  (Ties are handled by the caller: by enumerating
    tie orders, or by the order it chose; ``auc_pairwise`` is the direct formula.)
    """
    labels = list(ranked) + list(unretrieved)
    rel = [is_relevant(y, relevance_level) for y in labels]
    n_pos = sum(rel)
    n_neg = len(rel) - n_pos
    if n_pos == 0 or n_neg == 0:
        return 0.0, True
    good = 0
    for i in range(len(labels)):
        for j in range(i + 1, len(labels)):
            if rel[i] and not rel[j]:
                good += 1
    return good / (n_pos * n_neg), False


def auc_pairwise(y_true, y_score, *, ties="average", relevance_level=None):
    """Per-query AUC straight from scores, counting every (pos, neg) pair.

    pos score > neg score: 1; lower: 0; equal (including both -inf): 1/2 for
    "average", 1 for "optimistic", 0 for "pessimistic", and for "input" 1 if the
    positive row comes first in the input, else 0.
    """
    rel = [is_relevant(float(y), relevance_level) for y in y_true]
    s = [float(v) for v in y_score]
    pos = [i for i in range(len(s)) if rel[i]]
    neg = [i for i in range(len(s)) if not rel[i]]
    if not pos or not neg:
        return 0.0, True
    total = 0.0
    for i in pos:
        for j in neg:
            if s[i] > s[j]:
                total += 1.0
            elif s[i] == s[j]:
                total += {
                    "average": 0.5,
                    "optimistic": 1.0,
                    "pessimistic": 0.0,
                    "input": 1.0 if i < j else 0.0,
                }[ties]
    return total / (len(pos) * len(neg)), False


# ---------------------------------------------------------------------------
# Brute force over tie orders
# ---------------------------------------------------------------------------


def tie_blocks(y_score):
    """Row indices of each block of exactly equal scores, best block first.

    Includes the block of -inf rows (last), which only the AUC looks at.
    """
    by_score = {}
    for i, s in enumerate(y_score):
        by_score.setdefault(float(s), []).append(i)
    return [by_score[s] for s in sorted(by_score, reverse=True)]


def tie_order_values(metric_fn, y_true, y_score, **params):
    """(value, undefined) of ``metric_fn`` for every order of every tie block.

    Each block (rows with exactly equal score) is permuted with
    ``itertools.permutations`` and the blocks are combined with
    ``itertools.product``.  Metrics depend on the labels in ranked order only, so
    the permutations of a block are reduced to the distinct label sequences they
    produce: each distinct sequence of a block arises from the same number of row
    permutations (the product of the factorials of the label multiplicities), hence
    the plain mean over distinct sequences equals the mean over all row orders, and
    min/max are unchanged.
    """
    y_true = [float(v) for v in y_true]
    y_score = [float(v) for v in y_score]
    blocks = tie_blocks(y_score)
    block_choices = []
    for block in blocks:
        labels = [y_true[i] for i in block]
        block_choices.append(sorted(set(itertools.permutations(labels))))
    n_retrieved = sum(1 for s in y_score if s > -math.inf)
    results = []
    for combo in itertools.product(*block_choices):
        labels_in_order = [y for block in combo for y in block]
        ranked = labels_in_order[:n_retrieved]
        unretrieved = labels_in_order[n_retrieved:]
        value, undefined = metric_fn(ranked, unretrieved, **params)
        results.append((float(value), bool(undefined)))
    return results


def expected_over_tie_orders(metric_fn, y_true, y_score, *, undefined_value=np.nan, **params):
    """(mean, min, max) of the metric over all tie orders of one query.

    Orders in which the metric is undefined contribute ``undefined_value``
    (nan by default, so an undefined query gives nan).
    """
    values = [
        undefined_value if u else v
        for v, u in tie_order_values(metric_fn, y_true, y_score, **params)
    ]
    return (math.fsum(values) / len(values), min(values), max(values))


# ---------------------------------------------------------------------------
# Whole input: per-query values and the aggregated mean
# ---------------------------------------------------------------------------

METRIC_FUNCTIONS = {
    "dcg": dcg,
    "ndcg": ndcg,
    "cg": cg,
    "idcg": idcg,
    "map": ap,
    "mrr": rr,
    "precision": precision,
    "recall": recall,
    "rprec": rprec,
    "fbeta": fbeta,
    "hit_rate": hit,
    "err": err,
    "gauc": auc,
    "bpref": bpref,
    "judged": judged,
    "rbp": rbp,
    "iprec": iprec,
    "eleven_point": eleven_point,
    "counts": counts,
    "fallout": fallout,
}

# metrics summed over queries instead of averaged
TOTAL_METRICS = {"counts"}


# ---------------------------------------------------------------------------
# Which variants of each registry metric the cross-check runs
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Checked:
    """One parameter variant of a registry metric, run against its reference function.

    ``params`` are added to the registry name's fixed parameters.
    ``relevant_first_is_max``: whether relevant rows first is the best order of a tie
    block (None: as the registry's ``greater_is_better`` says);
    ``partially_undefined``: a query can be undefined in some tie orders only.
    """

    params: Mapping[str, Any] = field(default_factory=dict)
    relevant_first_is_max: bool | None = None
    partially_undefined: bool = False


def _c(**params):
    return Checked(params)


# The reference function of a registry name, where the names differ (key of
# METRIC_FUNCTIONS); a name missing here is its own reference function's name.
REFERENCE_OF = {
    "p": "precision",
    "f1": "fbeta",
    "11pt_avg": "eleven_point",
    "cg": "dcg",  # the registry's cg is dcg_score with discount="none"
    "num_rel": "counts",
    "num_ret": "counts",
    "num_rel_ret": "counts",
}

# The variants run per registry name (variant id -> Checked). A name missing here runs
# one variant, its fixed parameters only, under its own name: a new metric adds a line
# only for extra parameter variants.
CHECKED_VARIANTS: dict[str, dict[str, Checked]] = {
    "dcg": {
        "dcg": _c(),
        "dcg-exponential": _c(gain="exponential"),
        "dcg-gain_list": _c(gain=[0.0, 1.0, 3.0, 10.0]),
        "dcg-gain_list_g0_positive": _c(gain=[0.5, 1.0, 2.0, 4.0]),
        "dcg-gain_sqrt": _c(gain=np.sqrt),
        "dcg-jarvelin": _c(discount="max(1,log(rank))"),
        "dcg-log10": _c(log_base=10),
        "dcg-jarvelin_ln": _c(discount="max(1,log(rank))", log_base=math.e),
        "dcg-binary": _c(gain="binary"),
    },
    "cg": {"dcg-cg": _c()},
    "idcg": {
        "idcg": _c(),
        "idcg-exponential": _c(gain="exponential"),
        "idcg-gain_list": _c(gain=[0.0, 1.0, 3.0, 10.0]),
        "idcg-jarvelin_log10": _c(discount="max(1,log(rank))", log_base=10),
        "idcg-cg": _c(discount="none"),
        "idcg-binary": _c(gain="binary"),
    },
    "ndcg": {
        "ndcg": _c(),
        "ndcg-exponential": _c(gain="exponential"),
        "ndcg-gain_array": _c(gain=np.array([0.0, 1.0, 3.0, 10.0])),
        "ndcg-gain_square": _c(gain=np.square),
        "ndcg-jarvelin": _c(discount="max(1,log(rank))"),
        "ndcg-no_discount": _c(discount="none"),
        "ndcg-ideal_top_k": Checked(
            {"ideal": "top_k"}, relevant_first_is_max=False, partially_undefined=True
        ),
        "ndcg-ideal_top_k-exponential": Checked(
            {"ideal": "top_k", "gain": "exponential"},
            relevant_first_is_max=False,
            partially_undefined=True,
        ),
        # MLlib's ndcgAt (convention="spark")
        "ndcg-binary": _c(gain="binary"),
        "ndcg-ideal_top_k-binary": Checked(
            {"ideal": "top_k", "gain": "binary"},
            relevant_first_is_max=False,
            partially_undefined=True,
        ),
    },
    "map": {
        "map": _c(),
        "map-min_k_n_rel": _c(denominator="min(k,n_relevant)"),
        "map-n_rel_in_top_k": Checked(
            {"denominator": "n_relevant_in_top_k"}, relevant_first_is_max=False
        ),
        "map-explicit_n_relevant-level2": _c(denominator="n_relevant", relevance_level=2),
    },
    "mrr": {"mrr": _c(), "mrr-level2": _c(relevance_level=2)},
    "p": {
        "precision": _c(),
        "precision-min_k_n_retrieved": _c(denominator="min(k,n_retrieved)"),
        "precision-level2": _c(relevance_level=2),
    },
    "recall": {"recall": _c(), "recall-level3": _c(relevance_level=3)},
    "rprec": {"rprec": _c(), "rprec-level2": _c(relevance_level=2)},
    "bpref": {"bpref": _c(), "bpref-level2": _c(relevance_level=2)},
    "iprec": {
        "iprec-0": _c(),
        "iprec-0.5": _c(recall=0.5),
        "iprec-0.3-level2": _c(recall=0.3, relevance_level=2),
        "iprec-1": _c(recall=1.0),
    },
    "rbp": {
        "rbp": _c(),
        "rbp-graded-level2": _c(p=0.5, graded=True, relevance_level=2),
        "rbp-residual": _c(p=0.9, part="residual"),
        "rbp-upper": _c(part="upper"),
    },
    "num_rel_ret": {"num_rel_ret-level2": _c(relevance_level=2)},
    "fbeta": {
        "fbeta-0.5-min_k_n_retrieved": _c(beta=0.5, denominator="min(k,n_retrieved)"),
        "fbeta-2-level2": _c(beta=2.0, relevance_level=2),
    },
    "fallout": {"fallout": _c(), "fallout-level2": _c(relevance_level=2)},
    "hit_rate": {
        "hit_rate": _c(),
        "hit_rate-level2": _c(relevance_level=2, average="macro"),
        "hit_rate-micro": _c(average="micro"),
    },
    "err": {
        "err": _c(),
        "err-max_grade3": _c(max_grade=3),
        "err-max_grade5": _c(max_grade=5),
    },
    "gauc": {
        "gauc": _c(),
        "gauc-rows": _c(query_weight="rows"),
        "gauc-positives": _c(query_weight="positives"),
        "gauc-uniform-level2": _c(query_weight="uniform", relevance_level=2),
    },
}


def checked_variants(name):
    """The variants of registry name ``name`` the cross-check runs (id -> Checked)."""
    return CHECKED_VARIANTS.get(name, {name: Checked()})


PerQuery = namedtuple(
    "PerQuery",
    ["qids", "rows", "value0", "undefined_fraction", "extra_weight", "mins", "maxs"],
)
PerQuery.__doc__ = """Per-query reference results.

qids: sorted unique query ids; rows: row indices of each query (input order);
value0: per-query value with undefined orders counted as 0;
undefined_fraction: share of the tie orders in which the query is undefined (0 or 1
for fixed orders, may lie in between for ndcg ideal="top_k" with ties="average");
extra_weight: metric-specific query weight (AUC query_weight, micro hit rate n_rel);
mins / maxs: min / max over tie orders (0.0 placeholder when undefined in every
order, nan when undefined in some orders only), or None.
"""


def _split_params(metric, params):
    """Separate aggregation-only parameters from the per-query metric parameters."""
    params = dict(params)
    extra = {}
    if metric == "gauc":
        extra["query_weight"] = params.pop("query_weight", "uniform")
    if metric == "hit_rate":
        extra["average"] = params.pop("average", "macro")
    return params, extra


def _query_value(fn, yt, ys, ties, metric_params, results):
    """(value with undefined orders as 0, fraction of undefined orders) of one query.

    ties="average": the mean over the tie orders ``results``; else the one order.
    """
    if ties == "average":
        value = math.fsum(0.0 if u else v for v, u in results) / len(results)
        return value, sum(u for _, u in results) / len(results)
    ranked, unretrieved = split_ranked(yt, ys, ties)
    v, u = fn(ranked, unretrieved, **metric_params)
    return (0.0 if u else v), (1.0 if u else 0.0)


def _bounds(results):
    """Brute-force (min, max) over the tie orders of one query."""
    n_undef = sum(u for _, u in results)
    if n_undef == 0:
        return min(v for v, _ in results), max(v for v, _ in results)
    if n_undef == len(results):  # placeholder 0, replaced by aggregate
        return 0.0, 0.0
    return np.nan, np.nan  # undefined in some orders only: no meaningful bound


def _extra_weight(metric, extra, n_rows, n_rel):
    """The metric's own weight of one query (GAUC's query_weight, micro hit rate)."""
    if metric == "gauc":
        mode = extra["query_weight"]
        return {"uniform": 1.0, "rows": float(n_rows), "positives": float(n_rel)}[mode]
    if metric == "hit_rate" and extra["average"] == "micro":
        return float(n_rel)
    return 1.0


def reference_per_query(
    metric, y_true, y_score, group=None, *, ties="average", with_bounds=False, **params
):
    """Per-query values of ``metric`` for flat 1-D input (group=None: one query).

    ties="average" uses the brute-force mean over tie orders; the fixed modes use
    ``order_rows``.  ``with_bounds`` adds the brute-force min and max per query.
    """
    y_true = np.asarray(y_true, dtype=float).ravel()
    y_score = np.asarray(y_score, dtype=float).ravel()
    if group is None:
        group = np.zeros(len(y_true), dtype=int)
    group = np.asarray(group).ravel()
    metric_params, extra = _split_params(metric, params)
    if metric == "err" and metric_params.get("max_grade") is None:
        metric_params["max_grade"] = 4.0  # the documented default: a fixed scale, 0..4
    fn = METRIC_FUNCTIONS[metric]
    if metric == "hit_rate" and extra["average"] == "micro":
        # sum_q hits_q / sum_q n_rel_q == recall@k weighted by n_rel
        fn = recall

    qids = np.unique(group)
    rows_list, value0, frac, extra_w, mins, maxs = [], [], [], [], [], []
    for q in qids:
        rows = np.flatnonzero(group == q)
        yt = [float(v) for v in y_true[rows]]
        ys = [float(v) for v in y_score[rows]]
        results = None
        if ties == "average" or with_bounds:
            results = tie_order_values(fn, yt, ys, **metric_params)
        value, fraction = _query_value(fn, yt, ys, ties, metric_params, results)
        value0.append(value)
        frac.append(fraction)
        if with_bounds:
            low, high = _bounds(results)
            mins.append(low)
            maxs.append(high)
        rows_list.append(rows)
        level = metric_params.get("relevance_level")
        n_rel = sum(1 for y in yt if is_relevant(y, level))
        extra_w.append(_extra_weight(metric, extra, len(rows), n_rel))
    return PerQuery(
        qids=qids,
        rows=rows_list,
        value0=np.array(value0),
        undefined_fraction=np.array(frac),
        extra_weight=np.array(extra_w),
        mins=np.array(mins) if with_bounds else None,
        maxs=np.array(maxs) if with_bounds else None,
    )


def query_weights_from_rows(per_query, sample_weight):
    """Per-query weights from per-row sample weights (must be constant per query)."""
    if sample_weight is None:
        return np.ones(len(per_query.qids))
    sample_weight = np.asarray(sample_weight, dtype=float).ravel()
    out = []
    for q, rows in zip(per_query.qids, per_query.rows, strict=True):
        w = sample_weight[rows]
        if np.any(w != w[0]):
            raise ValueError(f"sample_weight is not constant within query {q!r}")
        out.append(float(w[0]))
    return np.array(out)


def _policy_value(policy, value0, fraction, qid):
    """(value, kept) of one query under the undefined-query policy."""
    undefined_somewhere = fraction > 0
    if isinstance(policy, str):
        if not undefined_somewhere:
            return value0, True
        if policy == "raise":
            raise ValueError(f"query {qid!r} has an undefined metric value")
        if policy != "skip":
            raise ValueError(f"unknown policy {policy!r}")
        return np.nan, False
    if math.isnan(policy):
        return (np.nan if undefined_somewhere else value0), True
    return value0 + fraction * float(policy), True


def aggregate(per_query, replace_undefined_by=0.0, query_weight=None, values=None, total=False):
    """Apply the undefined-query policy and return (mean, per-query values).

    ``values`` (optional) overrides ``per_query.value0`` (used for min/max bounds).
    Numeric policy r: value = value0 + undefined_fraction * r (the mean over tie
    orders where undefined orders are worth r).  nan / "skip" / "raise": a query is
    undefined if it is undefined in at least one tie order.
    Mean = sum(w * v) / sum(w) over the kept queries, w = sample weight * extra
    weight (``total``: sum(w * v)).  Per-query values of skipped queries are nan in
    the returned array.
    """
    value0 = per_query.value0 if values is None else np.asarray(values, float)
    frac = per_query.undefined_fraction
    n = len(per_query.qids)
    if query_weight is None:
        query_weight = np.ones(n)
    weights = np.asarray(query_weight, dtype=float) * per_query.extra_weight
    per_q = np.empty(n)
    keep = np.ones(n, dtype=bool)
    for i in range(n):
        per_q[i], keep[i] = _policy_value(
            replace_undefined_by, value0[i], frac[i], per_query.qids[i]
        )
    if not keep.any():
        warnings.warn("every query was skipped", UserWarning, stacklevel=2)
        return np.nan, per_q
    num = 0.0
    den = 0.0
    for i in range(n):
        if keep[i]:
            num += weights[i] * per_q[i]
            den += weights[i]
    if total:
        return num, per_q
    if den == 0:
        return np.nan, per_q
    return num / den, per_q


def reference_mean(
    metric,
    y_true,
    y_score,
    group=None,
    *,
    ties="average",
    replace_undefined_by=None,
    sample_weight=None,
    **params,
):
    """Reference value of the public function for ``metric``: (mean, per-query).

    replace_undefined_by=None means the metric's default: "skip" for "gauc",
    0.0 for every other metric.
    """
    if replace_undefined_by is None:
        replace_undefined_by = "skip" if metric == "gauc" else 0.0
    pq = reference_per_query(metric, y_true, y_score, group, ties=ties, **params)
    return aggregate(pq, replace_undefined_by, query_weights_from_rows(pq, sample_weight))
