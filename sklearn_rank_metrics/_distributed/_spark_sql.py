"""What every Spark module here uses: a column by its exact name, pandas UDFs without
pyspark's pandas-3 warning, and the pandas dtype query ids travel in.

The Spark half uses the DataFrame API only (no RDD, no ``SparkContext``), so that
Spark Connect is not excluded.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from pyspark.sql import functions as F


@contextmanager
def quiet_pandas_udfs() -> Iterator[None]:
    """Around the package's ``mapInPandas`` and ``applyInPandas`` calls: without pyspark's
    ``FutureWarning`` "PySpark does not yet fully support pandas >= 3.0.0".

    pyspark 4 checks the pandas version each time it makes a pandas UDF (those two
    methods make one per call) and warns under pandas 3, so every call of this
    package printed it. The code it runs here is tested on pandas 3. Only that
    message, raised from pyspark's own modules, inside these calls, is ignored: the
    filters are restored on the way out (the user's own pandas UDFs, and pyspark's
    check when a session starts, still warn).
    """
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore",
            message="PySpark does not yet fully support pandas",
            category=FutureWarning,
            module=r"pyspark\.",
        )
        yield


def column(name: str) -> Any:
    """``F.col`` of a column named ``name`` exactly (dots and backticks included)."""
    return F.col("`" + name.replace("`", "``") + "`")


def id_dtype(query_ids: np.ndarray) -> Any:
    """object for text ids (so that pandas keeps them so), else their own dtype."""
    return object if query_ids.dtype.kind in "OUS" else query_ids.dtype
