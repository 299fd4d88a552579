"""The Spark entry points' flags, in the sweep of ``tests/api/test_flags.py``.

``judged`` (a column name, or True: every row judged) and ``partitioned_by_query``
(True, False or "auto") must refuse any other value, naming the parameter, before a
Spark job starts.
"""

from __future__ import annotations

import pytest

from sklearn_rank_metrics import spark as srm_spark
from tests.api.test_flags import NOT_FLAGS, SPARK_FLAGS, G, S, Y

pytestmark = pytest.mark.xdist_group("spark")

ENTRIES = {
    "spark.evaluate": lambda frame, **kw: srm_spark.evaluate(frame, ["map"], **kw),
    "spark.evaluate_per_query": lambda frame, **kw: srm_spark.evaluate_per_query(
        frame, ["map"], **kw
    ),
    "spark.per_query_values": lambda frame, **kw: srm_spark.per_query_values(
        frame, ["map"], **kw
    ),
}


@pytest.fixture(scope="module")
def frame(spark):
    return spark.createDataFrame(
        [(float(y), float(s), int(g)) for y, s, g in zip(Y, S, G, strict=True)],
        ["y_true", "y_score", "group"],
    )


@pytest.mark.parametrize("entry", sorted(SPARK_FLAGS), ids=".".join)
@pytest.mark.parametrize("value", [v for v in NOT_FLAGS if v != ""], ids=repr)
def test_a_spark_flag_refuses_what_is_not_one(frame, entry, value):
    name, flag = entry
    with pytest.raises((TypeError, ValueError), match=rf"\b{flag}\b"):
        ENTRIES[name](frame, **{flag: value})
