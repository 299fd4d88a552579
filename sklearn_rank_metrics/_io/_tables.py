"""CSV, TSV and Parquet tables or DataFrames, by column: :func:`read_table`.

CSV and TSV files are decompressed once and parsed by pandas' C reader when pandas is
installed and every row has the header's number of fields (checked on the bytes), and
by the standard library's :mod:`csv` module otherwise (no pandas, or quoted fields);
both apply the same rules and give the same rows, so the base install (NumPy, SciPy,
scikit-learn) reads tables too.
Parquet files need pandas and pyarrow. A DataFrame of any library narwhals reads
takes :meth:`RankingData.from_frame`'s path (``_frames.py``), as do the columns of
the pandas frames parsed from CSV and Parquet files.
"""

from __future__ import annotations

import bz2
import codecs
import csv
import gzip
import io
import lzma
import os
import zipfile
import zlib
from collections.abc import Callable, Mapping
from operator import itemgetter
from pathlib import Path
from typing import Any, cast

import numpy as np

from ._frames import (
    as_frame,
    check_columns,
    check_numbers,
    not_a_frame,
    pandas_columns,
    read_columns,
    read_frame,
)
from ._ranking_data import (
    RankingData,
    check_path,
    from_frame_rows,
    is_path,
    read_decompressed,
    source_name,
)

_COMPRESSIONS = (".gz", ".bz2", ".zip", ".xz", ".zst")
_SEPARATORS = {".csv": ",", ".tsv": "\t"}  # the text formats, by suffix
_TABLE_FORMATS = (*_SEPARATORS, ".parquet")
# the single-stream compressions, by suffix (.zip and .zst are read apart)
_OPENERS: dict[str, Callable[..., Any]] = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}


def _import_pandas(reader: str, what: str) -> Any:
    try:
        import pandas as pd
    except ImportError:
        raise ImportError(
            f"{reader} needs pandas for {what}: pip install "
            "\"sklearn-rank-metrics[pandas]\" (or pip install pandas)"
        ) from None
    return pd


def _pandas_if_installed() -> Any:
    try:
        import pandas as pd
    except ImportError:
        return None
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


def _read_file_frame(
    path: Any, wanted: dict[str, Any], pd: Any, raw: bytes | None = None
) -> tuple[Any, str, Any]:
    """A Parquet or CSV/TSV file's needed columns as a pandas DataFrame, the source
    name and a row -> "where" function.

    A CSV/TSV file comes as its ``raw`` bytes (decompressed), which pandas parses.
    """
    name = source_name(path)
    suffix = _table_suffix(path)
    if suffix == ".parquet":
        return _parquet_frame(path, wanted, pd, name)
    if raw is None:  # read_table passes the bytes it has read already
        raw = _raw_bytes(path, name)
    return _csv_frame(raw, _SEPARATORS[suffix], wanted, pd, name)


def _parquet_frame(path: Any, wanted: dict[str, Any], pd: Any, name: str) -> tuple[Any, str, Any]:
    """:func:`_read_frame` of a Parquet file (pyarrow reads its schema and columns)."""
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise ImportError(
            "read_table needs pyarrow for Parquet files: pip install "
            "\"sklearn-rank-metrics[parquet]\" (or pip install pandas pyarrow)"
        ) from None
    try:
        schema = pq.read_schema(path)
    except Exception as error:  # pyarrow's ArrowInvalid and OSError subclasses
        raise ValueError(
            f"read_table: {name} is not a readable Parquet file ({error})."
        ) from None
    available = [c for c in schema.names if not c.startswith("__index_level_")]
    check_columns(available, list(wanted.items()), name, "read_table")
    frame = pd.read_parquet(path, columns=list(dict.fromkeys(wanted.values())))
    return frame, name, lambda i: f"row {i}"


def _csv_frame(
    raw: bytes, sep: str, wanted: dict[str, Any], pd: Any, name: str
) -> tuple[Any, str, Any]:
    """:func:`_read_frame` of a CSV/TSV file's bytes, by pandas' C parser."""
    try:
        available = list(pd.read_csv(io.BytesIO(raw), sep=sep, nrows=0).columns)
        check_columns(available, list(wanted.items()), name, "read_table")
        ids = [wanted[key] for key in ("group", "doc_id") if key in wanted]
        frame = pd.read_csv(
            io.BytesIO(raw),
            sep=sep,
            usecols=list(dict.fromkeys(wanted.values())),
            dtype={column: str for column in ids},
            skip_blank_lines=False,  # keeps row i on line i + 2, so errors can name the line
        )
    except UnicodeDecodeError:
        raise _not_utf8(raw, name) from None
    except pd.errors.EmptyDataError:
        raise ValueError(f"read_table: {name} is empty; it needs a header line.") from None
    filled = np.flatnonzero(frame.notna().any(axis=1).to_numpy())
    frame = frame.iloc[: filled[-1] + 1 if len(filled) else 0]  # blank lines at the end
    return frame, name, lambda i: f"line {i + 2}"


# the texts pandas.read_csv reads as missing by default; the text path follows it
_MISSING_TEXT = frozenset(
    ["", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND",
     "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"]
)


def _raw_bytes(path: Any, name: str) -> bytes:
    """The file's bytes, decompressed by its suffix (both parsers read these).

    A compressed file may expand to at most ``MAX_EXPANSION`` (100) times its size,
    or 16 MiB for a small one (:func:`read_decompressed`); past that it is refused.
    """
    suffix = Path(path).suffix.lower()
    size = os.stat(path).st_size
    if suffix == ".zip":
        try:
            with zipfile.ZipFile(path) as archive:
                members = archive.namelist()
                if len(members) != 1:
                    raise ValueError(
                        f"read_table: {name} must hold exactly one file; it holds "
                        f"{len(members)}."
                    )
                with archive.open(members[0]) as member:
                    return read_decompressed(member, size, name, "read_table")
        except (zipfile.BadZipFile, EOFError, OSError, zlib.error) as error:
            raise ValueError(f"read_table: {name} is not a valid .zip file ({error}).") from None
    if suffix == ".zst":
        try:
            import zstandard
        except ImportError:
            raise ImportError(
                "read_table needs zstandard for .zst files: pip install zstandard"
            ) from None
        with open(path, "rb") as handle:
            try:
                reader = zstandard.ZstdDecompressor().stream_reader(handle)
                return read_decompressed(reader, size, name, "read_table")
            except zstandard.ZstdError as error:
                raise ValueError(
                    f"read_table: {name} is not a valid .zst file ({error})."
                ) from None
    if suffix not in _OPENERS:
        with open(path, "rb") as handle:
            return handle.read()
    try:
        with _OPENERS[suffix](path, "rb") as handle:
            return read_decompressed(handle, size, name, "read_table")
    except (OSError, EOFError, lzma.LZMAError, zlib.error) as error:
        raise ValueError(f"read_table: {name} is not a valid {suffix} file ({error}).") from None


def _check_field_counts(raw: bytes, sep: str, name: str) -> bool:
    """Every non-blank line has the header's number of fields (a file without quotes).

    Counted on the bytes with array operations: the separators per line. A line ends
    at ``\n``, ``\r\n`` or a lone ``\r`` (old Mac files), as in pandas' parser, which
    would otherwise read a row with an extra field without a word. Returns
    False for a file with quote characters, whose fields may hold separators or
    line breaks; the standard-library parser then reads it (it checks every row).
    """
    if b'"' in raw:
        return False
    buffer = np.frombuffer(raw, dtype=np.uint8)
    if not len(buffer):
        return True
    newline, carriage = buffer == ord("\n"), buffer == ord("\r")
    carriage[:-1] &= ~newline[1:]  # the \r of \r\n is not a line end of its own
    ends = np.flatnonzero(newline | carriage)
    if buffer[-1] not in (ord("\n"), ord("\r")):
        ends = np.append(ends, len(buffer))
    starts = np.concatenate([[0], ends[:-1] + 1])
    lengths = ends - starts
    last = buffer[np.minimum(starts, len(buffer) - 1)]
    blank = (lengths == 0) | ((lengths == 1) & (last == ord("\r")))
    separators = np.flatnonzero(buffer == ord(sep))
    fields = np.bincount(np.searchsorted(ends, separators), minlength=len(ends)) + 1
    wrong = np.flatnonzero(~blank & (fields != fields[0]))
    if len(wrong):
        line = int(wrong[0]) + 1
        raise ValueError(
            f"{name}, line {line}: has {fields[line - 1]} fields but the header has "
            f"{fields[0]}."
        )
    return True


def _read_text_table(raw: bytes, sep: str, wanted: dict[str, Any], name: str) -> tuple[dict, int]:
    """The wanted columns of a CSV/TSV file as lists of text, and the number of data rows.

    The standard library's reader, used when pandas is not installed and for files
    with quoted fields. Blank lines
    read as rows of missing values (blank lines at the end are dropped); any other
    row must have as many fields as the header.
    """
    text = io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8-sig", newline="")
    try:
        rows = list(csv.reader(text, delimiter=sep))
    except UnicodeDecodeError:
        raise _not_utf8(raw, name) from None
    except csv.Error as error:
        raise ValueError(f"read_table: {name} is not a valid table ({error}).") from None
    if not rows:
        raise ValueError(f"read_table: {name} is empty; it needs a header line.")
    header = rows[0]
    check_columns(header, list(wanted.items()), name, "read_table")
    n_fields = np.fromiter(map(len, rows), dtype=np.intp, count=len(rows))[1:]
    filled = np.flatnonzero(n_fields)
    n_rows = int(filled[-1]) + 1 if len(filled) else 0
    n_fields = n_fields[:n_rows]
    wrong = np.flatnonzero((n_fields != len(header)) & (n_fields != 0))
    if len(wrong):
        i = int(wrong[0])
        raise ValueError(
            f"{name}, line {i + 2}: has {n_fields[i]} fields but the header has "
            f"{len(header)}."
        )
    data = rows[1 : n_rows + 1]
    blank = np.flatnonzero(n_fields == 0)
    if len(blank):
        data = [row if row else [""] * len(header) for row in data]
    columns = {}
    for column in dict.fromkeys(wanted.values()):  # at most four columns
        columns[column] = list(map(itemgetter(header.index(column)), data))
    return columns, n_rows


def _numbers_from_text(
    texts: list, column: Any, parameter: str, where: Any, name: str
) -> np.ndarray:
    """``float`` of every text, with pandas' missing texts as NaN; the rules of column_numbers."""
    n = len(texts)
    missing = np.fromiter(map(_MISSING_TEXT.__contains__, texts), dtype=bool, count=n)
    underscored = np.fromiter(map(str.__contains__, texts, ["_"] * n), dtype=bool, count=n)
    bad_text = underscored.copy()
    values = np.full(n, np.nan)
    readable = np.flatnonzero(~missing & ~underscored)
    try:
        values[readable] = np.fromiter(
            map(float, map(texts.__getitem__, readable)), dtype=np.float64, count=len(readable)
        )
    except ValueError:  # find the first text that is not a number (error path only)
        for i in readable:
            try:
                values[i] = float(texts[i])
            except ValueError:
                bad_text[i] = True
                break
    check_numbers(values, bad_text, lambda i: repr(texts[i]), column, parameter, where, name)
    return values


def _typed_ids(texts: np.ndarray) -> np.ndarray:
    """Ids read as text, as int64 when every one is an integer written canonically.

    Canonical: an optional ``-`` and up to 18 digits without a leading zero (``0``,
    ``17``, ``-3``), so the text and the integer say the same; ``"007"``, ``"+7"``,
    ``"7.0"`` or one non-integer id keep the whole column as text. Integer ids then
    sort as numbers (per-query tables, comparisons), as in the Python API.
    """
    if len(texts) == 0:
        return texts
    # no canonical id is longer than 19 characters; checked first, so the fixed-width
    # copy below is at most 76 bytes a row whatever the longest id
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    if int(lengths.max()) > 19:
        return texts
    text = np.asarray(texts, dtype=str)
    digits = np.char.lstrip(text, "-")
    lengths = np.char.str_len(digits)
    canonical = (
        np.char.isdigit(digits)
        & (np.char.str_len(text) - lengths <= 1)  # one sign at most
        & (lengths <= 18)
        & (~np.char.startswith(digits, "0") | (digits == "0"))
        & (text != "-0")
    )
    if not bool(canonical.all()):
        return texts
    return text.astype(np.int64)


def _ids_from_text(texts: list, column: Any, parameter: str, where: Any, name: str) -> np.ndarray:
    n = len(texts)
    missing = np.fromiter(map(_MISSING_TEXT.__contains__, texts), dtype=bool, count=n)
    first = np.flatnonzero(missing)
    if len(first):
        raise ValueError(
            f"{name}, {where(int(first[0]))}: column {column!r} ({parameter}) has a missing value."
        )
    ids = np.empty(n, dtype=object)
    ids[:] = texts
    return _typed_ids(ids)


def read_table(
    path_or_frame: Any,
    *,
    y_true: Any = "y_true",
    y_score: Any = "y_score",
    group: Any = "group",
    doc_id: Any = None,
) -> RankingData:
    """Read flat ranking rows from a CSV, TSV or Parquet file or a DataFrame, by column.

    CSV and TSV files need nothing beyond the base install: pandas' C parser reads
    them when pandas is installed, the standard library's :mod:`csv` module otherwise,
    with the same rules and results. Parquet files need pandas
    (``pip install sklearn-rank-metrics[pandas]``) and pyarrow
    (``pip install sklearn-rank-metrics[parquet]``). A DataFrame is read as
    :meth:`RankingData.from_frame` reads it (one score column here; several give
    several runs there), with no library beyond the frame's own.

    Parameters
    ----------
    path_or_frame : str, os.PathLike or DataFrame
        A ``.csv`` (comma-separated) or ``.tsv`` (tab-separated) file with a header
        line, a ``.parquet`` file (the format is taken from the suffix; a compression
        suffix such as ``.gz`` may follow), or a DataFrame (not modified): pandas,
        polars (or a LazyFrame), a pyarrow Table, a DuckDB relation, or any frame
        narwhals reads.
    y_true, y_score, group : column names, default="y_true", "y_score", "group"
        The columns of the labels, the scores and the query ids. ``y_score=None``:
        the table has no scores.
    doc_id : column name, default=None
        The column of document ids, if any.

    Returns
    -------
    data : RankingData
        ``y_true`` and ``y_score`` as float64; ``group`` and ``doc_id`` as the source
        types them (DataFrame, Parquet); ``frame_library`` names a DataFrame's
        library (None for files). CSV/TSV ids are read as text and become int64
        when every id of the column is an integer written canonically (``-?[1-9][0-9]*``
        or ``0``, at most 18 digits); otherwise they stay text, so ``"007"`` stays
        ``"007"``. No ``convention`` (a table comes from no one tool): the
        package's defaults apply unless a call names one.

    Raises
    ------
    ValueError
        A missing column (the message lists the columns there are); a label that is
        not a finite number, a score that is NaN or not a number, or a missing id: the
        message names the file and the line (CSV: data row ``i`` is line ``i + 2``;
        blank lines count, except at the end) or the row (Parquet, DataFrame; a null
        is a missing value as NaN is). A
        compressed file that expands to more than 100 times its size (or 16 MiB,
        for a file under 168 KB) is refused, so memory stays in proportion to the
        file: decompress such a file and pass the plain one.
    OSError
        The path is missing (FileNotFoundError), a directory (IsADirectoryError),
        a symlink loop, or not a regular file (a FIFO, a device such as /dev/null).
    TypeError
        ``path_or_frame`` is neither a path nor a frame; a column name that is not a
        str (several score columns: :meth:`RankingData.from_frame`); a frame's label
        or score column that does not hold numbers (pandas text columns are parsed).
    ImportError
        pandas is not installed and the input is a Parquet file or a ``.zst`` file;
        pyarrow is not installed and the input is a Parquet file.

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
    columns = {"y_true": y_true, "y_score": y_score, "group": group, "doc_id": doc_id}
    if not is_path(path_or_frame):
        return _frame_table(path_or_frame, columns)
    wanted = {parameter: column for parameter, column in columns.items() if column is not None}
    check_path(path_or_frame, "path_or_frame", "read_table")
    suffix = _table_suffix(path_or_frame)
    raw = None
    if suffix != ".parquet":
        name, sep = source_name(path_or_frame), _SEPARATORS[suffix]
        raw = _raw_bytes(path_or_frame, name)
        # pandas' fast parser for files whose every row has the header's number
        # of fields (checked on the bytes); the csv module otherwise
        if _pandas_if_installed() is None or not _check_field_counts(raw, sep, name):
            return _read_text_table_data(raw, name, sep, wanted)
    pd = _import_pandas("read_table", "Parquet files")
    frame, name, where = _read_file_frame(path_or_frame, wanted, pd, raw)
    if len(frame) == 0:
        raise ValueError(f"read_table: {name} has no rows.")
    # the frame's columns are read as those of any DataFrame, rows named by line
    values = read_columns(pandas_columns(frame, name, where), wanted, "read_table")
    if suffix != ".parquet":  # ids of a text file were read as text
        values["group"] = _typed_ids(values["group"])
        if "doc_id" in values:
            values["doc_id"] = _typed_ids(values["doc_id"])
    return RankingData(
        values["y_true"], values.get("y_score"), values["group"], doc_id=values.get("doc_id"),
        source=name, _row_location=lambda i: f"{name}, {where(i)}",
    )


def _frame_table(frame: Any, columns: dict[str, Any]) -> RankingData:
    """:func:`read_table` of a DataFrame: :meth:`RankingData.from_frame`'s path."""
    if as_frame(frame, "read_table") is None:
        raise not_a_frame(
            frame, "path_or_frame", "read_table", also="a file path (str or os.PathLike) or "
        )
    if isinstance(columns["y_score"], (list, Mapping)):
        raise TypeError(
            "The 'y_score' parameter of read_table must be one column name; for several "
            "score columns (several runs), use RankingData.from_frame(frame, "
            "y_score=[...])."
        )
    return cast(RankingData, from_frame_rows(read_frame(frame, columns, "read_table")))


def _not_utf8(raw: bytes, name: str) -> ValueError:
    """The error for a file that is not UTF-8, naming the line of the first bad byte."""
    body = raw[3:] if raw.startswith(codecs.BOM_UTF8) else raw
    try:
        body.decode("utf-8")
    except UnicodeDecodeError as error:
        before = body[: error.start]
        line = before.count(b"\n") + 1
        column = error.start - (before.rfind(b"\n") + 1) + 1
        return ValueError(
            f"read_table: {name}, line {line}: not UTF-8 text (byte "
            f"0x{body[error.start]:02x} at column {column}); save the file as UTF-8."
        )
    return ValueError(f"read_table: {name} is not UTF-8 text.")  # pragma: no cover


def _read_text_table_data(
    raw: bytes, name: str, sep: str, wanted: dict[str, Any]
) -> RankingData:
    """:func:`read_table` of a CSV/TSV file by the standard library's reader."""
    texts, n_rows = _read_text_table(raw, sep, wanted, name)
    if n_rows == 0:
        raise ValueError(f"read_table: {name} has no rows.")

    def where(i: int) -> str:
        return f"line {i + 2}"

    values = {
        parameter: (_numbers_from_text if parameter in ("y_true", "y_score") else _ids_from_text)(
            texts[column], column, parameter, where, name
        )
        for parameter, column in wanted.items()
    }
    return RankingData(
        values["y_true"], values.get("y_score"), values["group"],
        doc_id=values.get("doc_id"), source=name,
        _row_location=lambda i: f"{name}, {where(i)}",
    )
