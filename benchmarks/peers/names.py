"""Our metric names in each peer tool: the one table, read through :func:`peer_name`.

:data:`PEER_NAMES` maps each metric the benchmark times, in our registry's text form
(``ndcg@10``, ``map``, ``p@10``...), to its name in each tool that has it, written as
that tool spells it:

- ``ranx``: the metric string of ``ranx.evaluate`` (``precision@10``);
- ``trec_eval``: the measure of ``pytrec_eval.RelevanceEvaluator`` (``P.10``, trec_eval's
  ``-m P.10``); its results name it with ``_`` for ``.`` (``P_10``);
- ``torchmetrics``: the class of ``torchmetrics.retrieval`` and its arguments
  (``RetrievalPrecision(top_k=10)``);
- ``xgboost``: the ``eval_metric`` (``pre@10``);
- ``lightgbm``: the ``metric`` and its ``eval_at`` cutoff, as LightGBM reports it
  (``ndcg@10``).

For XGBoost and LightGBM, ``@n`` stands for a cutoff at the longest query, which makes
``ndcg@n`` NDCG over every row (the adapters fill it in for each data set). A tool
absent from a metric's row has no such measure. A name is the *measure* only: how a
tool breaks ties, scores queries without relevant rows or casts scores is its
convention, which :mod:`.checks` matches (README, "Matching other tools").

Once each metric's declaration carries its names in other tools (``aliases=``), this
table becomes a reverse lookup of those declarations: :func:`peer_name` is the only
reader, so that change stays inside this module.
"""

from __future__ import annotations

PEER_NAMES: dict[str, dict[str, str]] = {
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
        # plain "ndcg" and "map" stop at XGBoost's default cutoff (32)
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
}


def peer_name(tool: str, metric: str) -> str | None:
    """The name of our ``metric`` in ``tool`` (a key of the rows of :data:`PEER_NAMES`),
    or None if the tool has no such measure."""
    return PEER_NAMES.get(metric, {}).get(tool)


def peer_metrics(tool: str, metrics: tuple[str, ...]) -> list[str]:
    """Those of ``metrics`` that ``tool`` has, in their order."""
    return [metric for metric in metrics if peer_name(tool, metric) is not None]
