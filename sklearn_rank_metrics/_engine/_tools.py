"""The names of the tools whose conventions the package reproduces.

The conventions themselves (what each tool decides) are declared in
``_metrics/_conventions.py``, which checks that it defines exactly these; the names
live here so that the layers below the metrics (the readers' rows) can check a
convention a :class:`RankingData` carries when it is made.
"""

CONVENTION_NAMES = (
    "trec_eval",
    "pytrec_eval",
    "ir_measures",
    "ranx",
    "sklearn",
    "lightgbm",
    "xgboost",
    "torchmetrics",
    "spark",
)
