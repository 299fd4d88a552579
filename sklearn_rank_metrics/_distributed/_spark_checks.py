"""The Spark door's checks on the driver, before any Spark job: the frame, and each
column named with a type its parameter takes."""

from __future__ import annotations

from typing import Any

from pyspark.sql import DataFrame
from pyspark.sql import types as T

from .._engine._caller import caller_name
from .._io._frames import refuse_shared_columns
from ._call import DistributedCall, judged_column


def check_frame(df: Any, parameter: str = "df") -> None:
    if not isinstance(df, DataFrame):
        raise TypeError(
            f"The {parameter!r} parameter of {caller_name()} must be a pyspark.sql.DataFrame; got "
            f"{type(df).__name__}. For data in memory use sklearn_rank_metrics.evaluate, "
            "or make one with spark.createDataFrame."
        )


def check_column(df: DataFrame, parameter: str, name: Any, kinds: tuple[type, ...]) -> None:
    """Error naming ``parameter`` unless ``name`` is a column of ``df`` of one of ``kinds``."""
    if not isinstance(name, str) or name not in df.columns:
        listed = ", ".join(repr(existing) for existing in df.columns[:20])
        more = ", ..." if len(df.columns) > 20 else ""
        raise ValueError(
            f"The {parameter!r} parameter of {caller_name()} names column {name!r}, which "
            f"the Spark DataFrame does not have. Its columns are {listed}{more}."
        )
    data_type = df.schema[name].dataType
    if not isinstance(data_type, kinds):
        wanted = " or ".join(_TYPE_WORDS[kind] for kind in kinds)
        raise TypeError(
            f"The {parameter!r} parameter of {caller_name()} names column {name!r} of type "
            f"{data_type.simpleString()}; it must hold {wanted}."
        )


_TYPE_WORDS: dict[type, str] = {
    T.NumericType: "numbers",
    T.BooleanType: "booleans",
    T.AtomicType: "ids (numbers or strings)",
}
NUMBERS = (T.NumericType,)
LABELS = (T.NumericType, T.BooleanType)
IDS = (T.AtomicType,)


def score_columns(y_score: Any) -> tuple[list[str], bool]:
    """The score columns, and whether ``y_score`` named several (one run each)."""
    if isinstance(y_score, str):
        return [y_score], False
    if not isinstance(y_score, (list, tuple)) or not y_score:
        raise TypeError(
            f"The 'y_score' parameter of {caller_name()} must be a column name or a "
            f"non-empty list of column names (one run each); got {y_score!r}."
        )
    if len(set(y_score)) != len(y_score):
        raise ValueError(
            f"The 'y_score' parameter of {caller_name()} names a column more than once: "
            f"{list(y_score)!r}."
        )
    return list(y_score), True


def check_columns(df: DataFrame, call: DistributedCall, scores: list[str]) -> None:
    """Every column named exists and has a type the parameter takes."""
    check_column(df, "group", call.group, IDS)
    check_column(df, "y_true", call.y_true, LABELS)
    for score in scores:
        check_column(df, "y_score", score, NUMBERS)
    if call.sample_weight is not None:
        check_column(df, "sample_weight", call.sample_weight, NUMBERS)
    if judged_column(call.judged) is not None:
        check_column(df, "judged", call.judged, LABELS)
    if call.doc_id is not None:
        check_column(df, "doc_id", call.doc_id, IDS)
    named = [("group", call.group), ("y_true", call.y_true)]
    named += [("y_score", score) for score in scores]
    named += [(parameter, value) for parameter, value in
              (("sample_weight", call.sample_weight), ("doc_id", call.doc_id))
              if value is not None]
    refuse_shared_columns(named, caller_name())
