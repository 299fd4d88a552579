"""The benchmark's peer names (benchmarks/peers/names.py), half read from the declarations.

``peer_name`` takes trec_eval's and ranx's names from the metrics' declared aliases
and the rest from its table. The expected names are the tools' own spellings (the
measures of pytrec_eval, ranx's metric strings, torchmetrics' classes, XGBoost's
``eval_metric``, LightGBM's ``metric@eval_at``), the table the benchmark kept by hand
before the aliases were declared.
"""

import pytest

from benchmarks.peers.names import declared_peer_name, peer_metrics, peer_name

TOOLS = ("ranx", "trec_eval", "torchmetrics", "xgboost", "lightgbm")

EXPECTED = {
    "ndcg@10": {
        "ranx": "ndcg@10",
        "trec_eval": "ndcg_cut.10",
        "torchmetrics": "RetrievalNormalizedDCG(top_k=10)",
        "xgboost": "ndcg@10",
        "lightgbm": "ndcg@10",
    },
    "ndcg": {
        "ranx": "ndcg",
        "trec_eval": "ndcg",
        "torchmetrics": "RetrievalNormalizedDCG",
        "xgboost": "ndcg@n",
        "lightgbm": "ndcg@n",
    },
    "map": {
        "ranx": "map",
        "trec_eval": "map",
        "torchmetrics": "RetrievalMAP",
        "xgboost": "map@n",
        "lightgbm": "map@n",
    },
    "map@10": {
        "ranx": "map@10",
        "trec_eval": "map_cut.10",
        "torchmetrics": "RetrievalMAP(top_k=10)",
        "xgboost": "map@10",
        "lightgbm": "map@10",
    },
    "mrr": {"trec_eval": "recip_rank"},
    "mrr@10": {"ranx": "mrr@10", "torchmetrics": "RetrievalMRR(top_k=10)"},
    "p@10": {
        "ranx": "precision@10",
        "trec_eval": "P.10",
        "torchmetrics": "RetrievalPrecision(top_k=10)",
        "xgboost": "pre@10",
    },
    "recall@10": {
        "ranx": "recall@10",
        "trec_eval": "recall.10",
        "torchmetrics": "RetrievalRecall(top_k=10)",
    },
    "hit_rate@10": {
        "ranx": "hit_rate@10",
        "trec_eval": "success.10",
        "torchmetrics": "RetrievalHitRate(top_k=10)",
    },
    "gauc": {"torchmetrics": "RetrievalAUROC"},
    "err@10": {},
    "evaluate": {},
}


@pytest.mark.parametrize("metric", sorted(EXPECTED))
def test_peer_names_of_the_benchmarked_metrics(metric):
    assert {tool: peer_name(tool, metric) for tool in TOOLS} == {
        tool: EXPECTED[metric].get(tool) for tool in TOOLS
    }


def test_peer_metrics_keeps_the_order_and_drops_what_a_tool_lacks():
    metrics = ("ndcg@10", "mrr", "mrr@10", "gauc")
    assert peer_metrics("trec_eval", metrics) == ["ndcg@10", "mrr"]
    assert peer_metrics("ranx", metrics) == ["ndcg@10", "mrr@10"]


def test_declared_names_follow_the_cutoff_of_the_alias():
    # trec_eval: "P" takes a cutoff, "set_P" none; recip_rank has no cutoff form
    assert declared_peer_name("trec_eval", "p@5") == "P.5"
    assert declared_peer_name("trec_eval", "p") == "set_P"
    assert declared_peer_name("trec_eval", "mrr@10") is None
    # ranx's ndcg_burges fixes gain=exponential: not the name of plain ndcg
    assert declared_peer_name("ranx", "ndcg@10") is None
    # a tool whose cutoff form the module does not know, and a text with parameters
    assert declared_peer_name("ir_measures", "p@10") is None
    assert declared_peer_name("trec_eval", "p(relevance_level=2)@10") is None
