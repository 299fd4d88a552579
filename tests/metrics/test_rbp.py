"""Rank-biased precision, its residual and upper bound.

References: ranx (``rbp.P``, graded gains), ir_measures' ``RBP`` (cwl_eval, binary
gains), cwl_eval's own residual (``-r``: ResEU) per topic, also of topics without a
relevant document, a hand computation of the residual, and enumeration of tie orders.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

from sklearn_rank_metrics import evaluate, rbp_score
from tests.support.qrels_data import dataset

RTOL, ATOL = 1e-9, 1e-12


def tie_free_case(dataset_name):
    flat = dataset(dataset_name)
    order = np.random.default_rng(4).permutation(len(flat.y))
    y, score, group, doc = flat.y[order], flat.score[order], flat.group[order], flat.doc[order]
    qrels, run = {}, {}
    for q, d, label, s in zip(group, doc, y, score, strict=True):
        qrels.setdefault(str(q), {})[str(d)] = int(label)
        if np.isfinite(s):
            run.setdefault(str(q), {})[str(d)] = float(s)
    return (y, score, group), qrels, run


@pytest.mark.parametrize("dataset_name", ["synthetic", "lambdarank"])
def test_graded_rbp_matches_ranx(dataset_name):
    ranx = pytest.importorskip("ranx")
    (y, score, group), qrels, run = tie_free_case(dataset_name)
    names = ["rbp.8", "rbp.5", "rbp.95-l2"]
    tool_run = ranx.Run(run)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        means = ranx.evaluate(ranx.Qrels(qrels), tool_run, names, make_comparable=True, threads=1)
    table = evaluate(y, score, group, metrics=names, convention="ranx", per_query=True)
    for name in names:
        ours = dict(zip(table["query"], table[name], strict=True))
        tool = {q: float(v) for q, v in tool_run.scores[name].items()}
        np.testing.assert_allclose([ours[q] for q in tool], list(tool.values()), RTOL, ATOL)
        assert np.mean(list(ours.values())) == pytest.approx(means[name], rel=RTOL, abs=ATOL)
    assert max(table["rbp.5"]) > 1  # graded gains: RBP is not bounded by 1


@pytest.mark.parametrize("dataset_name", ["synthetic", "lambdarank"])
def test_binary_rbp_matches_ir_measures(dataset_name):
    ir_measures = pytest.importorskip("ir_measures")
    pytest.importorskip("cwl", reason="cwl-eval (the RBP provider of ir_measures) is not installed")
    (y, score, group), qrels, run = tie_free_case(dataset_name)
    qrels_list = [ir_measures.Qrel(q, d, r) for q, docs in qrels.items() for d, r in docs.items()]
    run_list = [ir_measures.ScoredDoc(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    names = ["RBP(p=0.8,rel=1)", "RBP(p=0.5,rel=2)"]
    table = evaluate(y, score, group, metrics=names, convention="ir_measures", per_query=True)
    for name in names:
        measure = ir_measures.parse_measure(name)
        tool = {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels_list, run_list)}
        ours = dict(zip(table["query"], table[name], strict=True))
        np.testing.assert_allclose([ours[q] for q in tool], list(tool.values()), RTOL, ATOL)


def test_residual_and_upper_bound_by_hand():
    # ranks: a (2), b (0), c (1), d unjudged, e (0), f (3); g (1) not retrieved; p = 0.8
    y = [2, 0, 1, 0, 0, 3, 1]
    s = [6, 5, 4, 3, 2, 1, -np.inf]
    judged = [True, True, True, False, True, True, True]
    g = np.zeros(7)  # one query
    value = 0.2 * (1 + 0.8**2 + 0.8**5)  # relevant at ranks 1, 3, 6
    residual = 0.2 * 0.8**3 + 0.8**6  # unjudged rank 4, and every rank after 6
    assert rbp_score(y, s, g, judged=judged) == pytest.approx(value, rel=1e-12)
    got = rbp_score(y, s, g, judged=judged, part="residual")
    assert got == pytest.approx(residual, rel=1e-12)
    got = rbp_score(y, s, g, judged=judged, part="upper")
    assert got == pytest.approx(value + residual, rel=1e-12)
    # at k = 3: nothing unjudged in the top 3, everything after rank 3 is unknown
    assert rbp_score(y, s, g, judged=judged, part="residual", k=3) == pytest.approx(0.8**3)
    with pytest.raises(ValueError, match="part='upper'.* needs graded=False"):
        rbp_score(y, s, g, part="upper", graded=True)


@pytest.mark.parametrize("ties", ["average", "input", "optimistic", "pessimistic"])
def test_every_part_against_enumeration(ties):
    rng = np.random.default_rng(12)
    p = 0.7
    for _ in range(100):
        n = int(rng.integers(1, 7))
        labels = rng.integers(0, 3, n).astype(float)
        judged = (labels > 0) | (rng.random(n) < 0.6)
        score = rng.integers(0, 3, n).astype(float)
        score[rng.random(n) < 0.2] = -np.inf
        k = [None, 1, 3][int(rng.integers(0, 3))]
        rows = sorted(range(n), key=lambda i: -score[i])
        blocks = [list(b) for _, b in itertools.groupby(rows, key=lambda i: score[i])]
        if ties == "average":
            orders = [[i for b in choice for i in b] for choice in
                      itertools.product(*(itertools.permutations(b) for b in blocks))]  # fmt: skip
        else:
            sign = {"input": 0, "optimistic": -1, "pessimistic": 1}[ties]
            orders = [[i for b in blocks for i in sorted(b, key=lambda i: sign * labels[i])]]
        values, residuals = [], []
        for order in orders:
            ranked = [i for i in order if np.isfinite(score[i])]
            depth = len(ranked) if k is None else min(k, len(ranked))
            top = ranked[:depth]
            values.append(sum((1 - p) * p**r * (labels[i] > 0) for r, i in enumerate(top)))
            residuals.append(
                sum((1 - p) * p**r * (not judged[i]) for r, i in enumerate(top)) + p**depth
            )
        common = {"group": np.zeros(n), "judged": judged, "p": p, "k": k, "ties": ties}
        if (labels > 0).any():
            assert rbp_score(labels, score, **common) == pytest.approx(np.mean(values), abs=1e-12)
        # the bound is defined without a relevant row too: RBP 0 plus the residual
        upper = rbp_score(labels, score, part="upper", **common)
        assert upper == pytest.approx(np.mean(values) + np.mean(residuals), abs=1e-12)
        residual = rbp_score(labels, score, part="residual", **common)
        assert residual == pytest.approx(np.mean(residuals), abs=1e-12)


def _collection_with_unjudged_rows(seed, n_queries=40):
    """Flat rows and the same collection as cwl_eval reads it (binary gains).

    Every query retrieves rows (some unjudged: label 0, judged False), some judged
    rows are not retrieved (score -inf), and about a quarter of the queries have no
    relevant row at all (every judged label 0).
    """
    rng = np.random.default_rng(seed)
    y, score, group, judged, qrels, ranked = [], [], [], [], {}, {}
    for q in range(n_queries):
        n = int(rng.integers(1, 9))
        no_relevant = q % 4 == 0
        labels = np.zeros(n) if no_relevant else (rng.random(n) < 0.4).astype(float)
        is_judged = rng.random(n) < 0.7
        labels[~is_judged] = 0.0
        retrieved = rng.random(n) < 0.85
        retrieved[0] = True  # cwl_eval measures the topics of the run only
        scores = np.where(retrieved, rng.permutation(n) + 1.0, -np.inf)
        topic = f"t{q}"
        for i in range(n):
            y.append(labels[i]), score.append(scores[i]), group.append(topic)
            judged.append(bool(is_judged[i]))
            if is_judged[i]:
                qrels.setdefault(topic, {})[f"d{i}"] = labels[i]
        order = [i for i in np.argsort(-scores, kind="stable") if retrieved[i]]
        ranked[topic] = [f"d{i}" for i in order]
    flat = (np.array(y), np.array(score), np.array(group), np.array(judged))
    return flat, qrels, ranked


def _cwl_eval_rbp(qrels, ranked, p):
    """cwl_eval's RBP per topic: expected utility (RBP) and its residual (ResEU)."""
    pytest.importorskip("cwl", reason="cwl-eval is not installed")
    from cwl.ruler.measures.cwl_rbp import RBPCWLMetric
    from cwl.ruler.ranking import RankingMaker
    from cwl.seeker.trec_qrel_handler import TrecQrelHandler

    handler = TrecQrelHandler()
    for topic, docs in qrels.items():
        for doc, gain in docs.items():
            handler.put_value(topic, doc, gain)
    values, residuals = {}, {}
    for topic, docs in ranked.items():
        maker = RankingMaker(topic, handler, max_gain=1.0, min_gain=0.0, max_n=1000)
        for doc in docs:
            maker.add(doc, "Q0")
        metric = RBPCWLMetric(p)
        metric.residuals = True  # cwl_eval -r: the best case (unjudged = gain 1) too
        metric.measure(maker.get_ranking())
        values[topic], residuals[topic] = metric.expected_utility, metric.residual_expected_utility
    return values, residuals


@pytest.mark.parametrize(("seed", "p"), [(0, 0.8), (1, 0.5), (2, 0.95)])
def test_upper_bound_of_a_query_without_relevant_rows_is_its_residual_as_in_cwl_eval(seed, p):
    (y, score, group, judged), qrels, ranked = _collection_with_unjudged_rows(seed)
    tool_value, tool_residual = _cwl_eval_rbp(qrels, ranked, p)
    names = [f"rbp(p={p})", f"rbp(p={p},part=residual)", f"rbp(p={p},part=upper)"]
    common = {"judged": judged, "ties": "input"}
    table = evaluate(y, score, group, metrics=names, per_query=True, **common)
    value, residual, upper = (dict(zip(table["query"], table[n], strict=True)) for n in names)
    no_relevant = [t for t in ranked if not any(g > 0 for g in qrels.get(t, {}).values())]
    assert no_relevant  # the case of issue 31, item 13
    for topic in ranked:
        # cwl_eval stops at rank 1000 and renormalises: differences of order p**1000
        assert value[topic] == pytest.approx(tool_value[topic], abs=1e-12), topic
        assert residual[topic] == pytest.approx(tool_residual[topic], abs=1e-12), topic
        bound = tool_value[topic] + tool_residual[topic]
        assert upper[topic] == pytest.approx(bound, abs=1e-12), topic
    for topic in no_relevant:
        assert tool_value[topic] == 0.0 and upper[topic] == pytest.approx(residual[topic])
    # the means: upper = value + residual (default policy 0, cwl_eval's 0 for RBP)
    means = evaluate(y, score, group, metrics=names, **common)
    tool_upper = np.mean([tool_value[t] + tool_residual[t] for t in ranked])
    assert means[names[2]] == pytest.approx(tool_upper, abs=1e-12)
    assert means[names[2]] == pytest.approx(means[names[0]] + means[names[1]], abs=1e-12)
    function = rbp_score(y, score, group, p=p, part="upper", **common)
    assert function == pytest.approx(tool_upper, abs=1e-12)


def test_policy_applies_to_the_value_only():
    # one query with a relevant row, one without; every row judged, p = 0.5
    y, s, g = [1, 0, 0, 0], [2.0, 1.0, 2.0, 1.0], ["a", "a", "b", "b"]
    common = {"p": 0.5, "judged": True, "ties": "input"}
    # a: RBP 0.5, residual 0.25 (every rank after 2); b: RBP undefined, residual 0.25
    assert rbp_score(y, s, g, part="upper", **common) == pytest.approx((0.75 + 0.25) / 2)
    for policy in (0.0, 1.0, "skip", float("nan"), "raise"):
        got = rbp_score(y, s, g, part="upper", replace_undefined_by=policy, **common)
        assert got == pytest.approx(0.5)
    assert rbp_score(y, s, g, replace_undefined_by="skip", **common) == pytest.approx(0.5)
    assert rbp_score(y, s, g, replace_undefined_by=1.0, **common) == pytest.approx(0.75)
