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

The declarations carry most trec_eval names and some of ranx's (``@metric(aliases=)``):
:func:`peer_name` reads those from the registry (``peer_names``), so a new metric
with its aliases declared needs no line here. :data:`PEER_NAMES` keeps only what the
declarations cannot say: a tool's name that equals ours (ranx's ``ndcg@10``,
trec_eval's ``map``), torchmetrics' classes and the XGBoost / LightGBM ``@n`` forms.
"""

from __future__ import annotations

import re

from sklearn_rank_metrics._metrics._registry import METRICS

PEER_NAMES: dict[str, dict[str, str]] = {
    "ndcg@10": {
        "ranx": "ndcg@10",
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
        "torchmetrics": "RetrievalMAP(top_k=10)",
        "xgboost": "map@10",
        "lightgbm": "map@10",
    },
    "mrr@10": {"ranx": "mrr@10", "torchmetrics": "RetrievalMRR(top_k=10)"},
    "p@10": {
        "torchmetrics": "RetrievalPrecision(top_k=10)",
        "xgboost": "pre@10",
    },
    "recall@10": {
        "ranx": "recall@10",
        "torchmetrics": "RetrievalRecall(top_k=10)",
    },
    "hit_rate@10": {
        "ranx": "hit_rate@10",
        "torchmetrics": "RetrievalHitRate(top_k=10)",
    },
    "gauc": {"torchmetrics": "RetrievalAUROC"},
}

# how a tool writes a cutoff after a declared name: trec_eval's measure as
# pytrec_eval takes it (``P.10``), ranx's metric string (``precision@10``)
CUTOFF_SEPARATOR = {"trec_eval": ".", "ranx": "@"}

_PLAIN = re.compile(r"^(?P<name>[a-z0-9_]+)(?:@(?P<k>[0-9]+))?$")


def declared_peer_name(tool: str, metric: str) -> str | None:
    """The name of ``metric`` in ``tool`` from the declarations' aliases, or None.

    Only a plain ``name`` or ``name@k`` of the registry, and only an alias that fixes no
    parameter and takes the cutoff as ``metric`` does (trec_eval's ``P`` for ``p@10``,
    ``set_P`` for ``p``); the first such alias in declaration order.
    """
    match = _PLAIN.match(metric)
    if match is None or tool not in CUTOFF_SEPARATOR or match["name"] not in METRICS:
        return None
    fits = ("required", "optional") if match["k"] else ("none", "optional")
    for alias in METRICS[match["name"]].aliases:  # the registry's peer_names, in full
        if alias.tool == tool and not alias.params and alias.cutoff in fits:
            return alias.base + (CUTOFF_SEPARATOR[tool] + match["k"] if match["k"] else "")
    return None


def peer_name(tool: str, metric: str) -> str | None:
    """The name of our ``metric`` in ``tool``: from the declarations, else from
    :data:`PEER_NAMES`; None if the tool has no such measure."""
    declared = declared_peer_name(tool, metric)
    if declared is not None:
        return declared
    return PEER_NAMES.get(metric, {}).get(tool)


def peer_metrics(tool: str, metrics: tuple[str, ...]) -> list[str]:
    """Those of ``metrics`` that ``tool`` has, in their order."""
    return [metric for metric in metrics if peer_name(tool, metric) is not None]
