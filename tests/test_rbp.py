"""Rank-biased precision, its residual and upper bound.

References: ranx (``rbp.P``, graded gains), ir_measures' ``RBP`` (cwl_eval, binary
gains), a hand computation of the residual, and enumeration of tie orders.
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
    value = 0.2 * (1 + 0.8**2 + 0.8**5)  # relevant at ranks 1, 3, 6
    residual = 0.2 * 0.8**3 + 0.8**6  # unjudged rank 4, and every rank after 6
    assert rbp_score(y, s, judged=judged) == pytest.approx(value, rel=1e-12)
    assert rbp_score(y, s, judged=judged, part="residual") == pytest.approx(residual, rel=1e-12)
    got = rbp_score(y, s, judged=judged, part="upper")
    assert got == pytest.approx(value + residual, rel=1e-12)
    # at k = 3: nothing unjudged in the top 3, everything after rank 3 is unknown
    assert rbp_score(y, s, judged=judged, part="residual", k=3) == pytest.approx(0.8**3)
    with pytest.raises(ValueError, match="part='upper'.* needs graded=False"):
        rbp_score(y, s, part="upper", graded=True)


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
        common = {"judged": judged, "p": p, "k": k, "ties": ties}
        if (labels > 0).any():
            assert rbp_score(labels, score, **common) == pytest.approx(np.mean(values), abs=1e-12)
            upper = rbp_score(labels, score, part="upper", **common)
            assert upper == pytest.approx(np.mean(values) + np.mean(residuals), abs=1e-12)
        residual = rbp_score(labels, score, part="residual", **common)
        assert residual == pytest.approx(np.mean(residuals), abs=1e-12)
