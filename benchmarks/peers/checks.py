"""Value checks: each peer's value against ours under the settings that reproduce it.

:data:`REFERENCES` names our function and settings for each convention a peer follows
(README, "Matching other tools"); an adapter's ``references`` point into it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

import sklearn_rank_metrics as srm

from .data import Data

TOLERANCE = 1e-6  # "value agrees": |peer - ours with matching settings| < TOLERANCE

# our value with the settings that reproduce a peer: (function, kwargs, float32 scores)
Reference = tuple[Callable[..., float], dict, bool]

# our names, with default settings: "name@k" is the function of "name" with k
FUNCTIONS = {
    "ndcg": srm.ndcg_score,
    "map": srm.mean_average_precision_score,
    "mrr": srm.mean_reciprocal_rank_score,
    "p": srm.precision_at_k_score,
    "recall": srm.recall_at_k_score,
    "hit_rate": srm.hit_rate_score,
    "err": srm.expected_reciprocal_rank_score,
    "gauc": srm.group_roc_auc_score,
}
PLAIN = (
    *("ndcg@10", "ndcg", "map", "map@10", "mrr@10", "mrr", "p@10", "recall@10"),
    *("hit_rate@10", "err@10", "gauc"),
)
REFERENCES: dict[str, Reference] = {}
for _plain in PLAIN:
    _base, _, _cutoff = _plain.partition("@")
    REFERENCES[_plain] = (FUNCTIONS[_base], {"k": int(_cutoff)} if _cutoff else {}, False)
# scikit-learn's label_ranking_average_precision_score; torchmetrics' RetrievalMAP(top_k)
REFERENCES["map,undefined=1"] = (
    srm.mean_average_precision_score,
    {"replace_undefined_by": 1.0},
    False,
)
REFERENCES["map@10,in_top_k"] = (
    srm.mean_average_precision_score,
    {"k": 10, "denominator": "n_relevant_in_top_k"},
    False,
)
BOOSTER = {"ties": "input", "replace_undefined_by": 1.0}  # both boosters (README)
for _k, _at in ((10, "@10"), (None, "")):
    _ndcg = {"k": _k, "gain": "exponential", **BOOSTER}
    _map = {"k": _k, "denominator": "min(k,n_relevant)", **BOOSTER}
    for _booster, _float32 in (("lgb", False), ("xgb", True)):  # XGBoost: float32 margins
        REFERENCES[f"{_booster}:ndcg{_at}"] = (srm.ndcg_score, _ndcg, _float32)
        REFERENCES[f"{_booster}:map{_at}"] = (srm.mean_average_precision_score, _map, _float32)
REFERENCES["xgb:p@10"] = (
    srm.precision_at_k_score,
    {"k": 10, "denominator": "min(k,n_retrieved)", "ties": "input"},
    True,
)


def compare(value: Any, reference: Any) -> tuple[bool, float, str]:
    """(agrees, largest |difference|, where) of two metric values or dicts of them."""
    if isinstance(reference, dict):
        if not isinstance(value, dict) or set(value) != set(reference):
            return False, math.inf, "metric names"
        pairs = [(name, value[name], reference[name]) for name in reference]
    else:
        pairs = [("", value, reference)]
    diffs = []
    for name, got, want in pairs:
        if got is None or want is None:
            diffs.append((math.inf, name))
        elif math.isnan(got) and math.isnan(want):
            diffs.append((0.0, name))
        else:
            diff = abs(got - want)
            diffs.append((math.inf if math.isnan(diff) else diff, name))
    worst, name = max(diffs)
    return worst < TOLERANCE, worst, name


class Expected:
    """Our values on one data set under each reference's settings, computed once each."""

    def __init__(self, data: Data):
        self.data = data
        self.values: dict[str, float] = {}

    def __call__(self, spec: str | dict[str, str]) -> Any:
        """Our value for a reference key, or a dict of them for a dict of keys."""
        if isinstance(spec, dict):
            return {name: self(key) for name, key in spec.items()}
        if spec not in self.values:
            function, params, float32 = REFERENCES[spec]
            data = self.data
            score = data.y_score.astype(np.float32) if float32 else data.y_score
            self.values[spec] = function(data.y_true, score, data.qid, **params)
        return self.values[spec]
