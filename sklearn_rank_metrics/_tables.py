"""CSV, TSV and Parquet tables or DataFrames, by column: :func:`read_table`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ._ranking_data import RankingData, check_path, source_name

_COMPRESSIONS = (".gz", ".bz2", ".zip", ".xz", ".zst")
_TABLE_FORMATS = {".csv": ",", ".tsv": "\t", ".parquet": None}


def _import_pandas(function_name: str) -> Any:
    try:
        import pandas as pd
    except ImportError:
        raise ImportError(
            f"{function_name} needs pandas: pip install sklearn-rank-metrics[pandas]"
        ) from None
    return pd


def _table_suffix(path: Any) -> str:
    suffixes = [suffix.lower() for suffix in Path(path).suffixes]
    if suffixes and suffixes[-1] in _COMPRESSIONS:
        suffixes = suffixes[:-1]
    suffix = suffixes[-1] if suffixes else ""
    if suffix not in _TABLE_FORMATS:
        raise ValueError(
            f"read_table: cannot tell the format of {source_name(path)!r} from its suffix; "
            "use .csv, .tsv or .parquet (optionally compressed, e.g. .csv.gz), or pass a "
            "DataFrame."
        )
    return suffix


def _check_columns(available: list, wanted: dict[str, Any], name: str) -> None:
    for parameter, column in wanted.items():
        if column not in available:
            listed = ", ".join(repr(c) for c in available[:20])
            more = ", ..." if len(available) > 20 else ""
            raise ValueError(
                f"{name} has no column {column!r} (the {parameter!r} parameter of "
                f"read_table); its columns are {listed}{more}."
            )


def _read_frame(path_or_frame: Any, wanted: dict[str, Any], pd: Any) -> tuple[Any, str, Any]:
    """The needed columns, the source name and a row -> "where" function."""
    columns = list(dict.fromkeys(wanted.values()))
    if hasattr(path_or_frame, "columns") and hasattr(path_or_frame, "iloc"):
        frame = path_or_frame
        _check_columns(list(frame.columns), wanted, "the DataFrame")
        index = frame.index
        return frame[columns], "the DataFrame", lambda i: f"row {i} (index {index[i]!r})"
    check_path(path_or_frame, "path_or_frame", "read_table")
    name = source_name(path_or_frame)
    suffix = _table_suffix(path_or_frame)
    if suffix == ".parquet":
        try:
            import pyarrow.parquet as pq
        except ImportError:
            raise ImportError(
                "read_table needs pyarrow for Parquet files: "
                "pip install sklearn-rank-metrics[parquet]"
            ) from None
        available = [
            c for c in pq.read_schema(path_or_frame).names if not c.startswith("__index_level_")
        ]
        _check_columns(available, wanted, name)
        frame = pd.read_parquet(path_or_frame, columns=columns)
        return frame, name, lambda i: f"row {i}"
    sep = _TABLE_FORMATS[suffix]
    available = list(pd.read_csv(path_or_frame, sep=sep, nrows=0).columns)
    _check_columns(available, wanted, name)
    ids = [wanted[key] for key in ("group", "doc_id") if key in wanted]
    frame = pd.read_csv(
        path_or_frame,
        sep=sep,
        usecols=columns,
        dtype={column: str for column in ids},
        skip_blank_lines=False,  # keeps row i on line i + 2, so errors can name the line
    )
    filled = np.flatnonzero(frame.notna().any(axis=1).to_numpy())
    frame = frame.iloc[: filled[-1] + 1 if len(filled) else 0]  # blank lines at the end
    return frame, name, lambda i: f"line {i + 2}"


def _numeric_column(frame: Any, column: Any, parameter: str, where: Any, name: str, pd: Any):
    series = frame[column]
    if series.dtype.kind in "biuf":
        values = series.to_numpy(dtype=np.float64, na_value=np.nan)
    else:
        values = pd.to_numeric(series, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    bad = np.isnan(values) if parameter == "y_score" else ~np.isfinite(values)
    first = np.flatnonzero(bad)
    if len(first):
        i = int(first[0])
        rule = "a number (not NaN)" if parameter == "y_score" else "a finite number"
        raise ValueError(
            f"{name}, {where(i)}: column {column!r} ({parameter}) must hold {rule}; "
            f"got {series.iloc[i]!r}."
        )
    return values


def _id_column(frame: Any, column: Any, parameter: str, where: Any, name: str) -> np.ndarray:
    series = frame[column]
    first = np.flatnonzero(series.isna().to_numpy())
    if len(first):
        raise ValueError(
            f"{name}, {where(int(first[0]))}: column {column!r} ({parameter}) has a missing value."
        )
    return series.to_numpy()


def read_table(
    path_or_frame: Any,
    *,
    y_true: Any = "y_true",
    y_score: Any = "y_score",
    group: Any = "group",
    doc_id: Any = None,
) -> RankingData:
    """Read flat ranking rows from a CSV, TSV or Parquet file or a DataFrame, by column.

    Needs pandas (``pip install sklearn-rank-metrics[pandas]``); Parquet also needs
    pyarrow (``pip install sklearn-rank-metrics[parquet]``).

    Parameters
    ----------
    path_or_frame : str, os.PathLike or pandas.DataFrame
        A ``.csv`` (comma-separated) or ``.tsv`` (tab-separated) file with a header
        line, a ``.parquet`` file (the format is taken from the suffix; a compression
        suffix such as ``.gz`` may follow), or a DataFrame (not modified).
    y_true, y_score, group : column names, default="y_true", "y_score", "group"
        The columns of the labels, the scores and the query ids. ``y_score=None``:
        the table has no scores.
    doc_id : column name, default=None
        The column of document ids, if any.

    Returns
    -------
    data : RankingData
        ``y_true`` and ``y_score`` as float64, ``group`` and ``doc_id`` as read
        (CSV ids are read as text, so ``"007"`` stays ``"007"``).

    Raises
    ------
    ValueError
        A missing column (the message lists the columns there are); a label that is
        not a finite number, a score that is NaN or not a number, or a missing id: the
        message names the file and the line (CSV: data row ``i`` is line ``i + 2``;
        blank lines count, except at the end) or the row (Parquet, DataFrame).
    ImportError
        pandas, or pyarrow for Parquet, is not installed.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn_rank_metrics import read_table
    >>> frame = pd.DataFrame({"qid": ["a", "a", "b"], "label": [1, 0, 2],
    ...                       "pred": [0.3, 0.9, 0.1]})
    >>> data = read_table(frame, y_true="label", y_score="pred", group="qid")
    >>> data.y_true.tolist(), data.y_score.tolist(), data.group.tolist()
    ([1.0, 0.0, 2.0], [0.3, 0.9, 0.1], ['a', 'a', 'b'])
    """
    pd = _import_pandas("read_table")
    wanted = {"y_true": y_true, "group": group}
    if y_score is not None:
        wanted["y_score"] = y_score
    if doc_id is not None:
        wanted["doc_id"] = doc_id
    frame, name, where = _read_frame(path_or_frame, wanted, pd)
    if len(frame) == 0:
        raise ValueError(f"read_table: {name} has no rows.")
    labels = _numeric_column(frame, y_true, "y_true", where, name, pd)
    scores = None
    if y_score is not None:
        scores = _numeric_column(frame, y_score, "y_score", where, name, pd)
    ids = _id_column(frame, group, "group", where, name)
    docs = None if doc_id is None else _id_column(frame, doc_id, "doc_id", where, name)
    return RankingData(labels, scores, ids, doc_id=docs, source=name)
