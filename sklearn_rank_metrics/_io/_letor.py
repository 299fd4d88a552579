"""LETOR / SVMlight files with query ids: :func:`read_letor`."""

from __future__ import annotations

import bz2
import gzip
import io
import os
import re
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .._engine._inputs import response_values
from .._engine._validation import NONE, Interval, validate_params
from ._ranking_data import (
    FLOAT_RE,
    INT_RE,
    RankingData,
    check_path,
    is_path,
    read_decompressed,
    source_name,
)

# a data line (not blank, not a comment) whose comment holds "docid = X"
_DOCID_RE = re.compile(rb"^[ \t]*[^#\s][^#\n]*#[^\n]*?\bdocid\s*=\s*(\S+)", re.MULTILINE)


def _letor_line_problem(fields: list[str], need_qid: bool) -> str | None:
    """What the SVMlight loader would reject in one line (its comment removed)."""
    label = fields[0]
    if not FLOAT_RE.fullmatch(label):
        return f"the label must be a finite number; got {label!r}"
    rest = fields[1:]
    if rest and rest[0].startswith("qid:"):
        if not INT_RE.fullmatch(rest[0][4:]):
            return f"the query id must be an integer; got {rest[0]!r}"
        rest = rest[1:]
    elif need_qid:
        return (
            "no 'qid:' field after the label (for a file whose query sizes are in a "
            "separate .query / .group file, pass group_sizes=, or --group-sizes FILE on "
            "the command line)"
        )
    previous = -1
    for token in rest:
        index, colon, value = token.partition(":")
        if not colon or not INT_RE.fullmatch(index) or int(index) < 0:
            return f"expected 'index:value' with an integer index >= 0; got {token!r}"
        try:
            float(value)
        except ValueError:
            return f"the value of feature {index} is not a number: {value!r}"
        if int(index) <= previous:
            return f"feature indices must increase along the line; got {index} after {previous}"
        previous = int(index)
    return None


# the compressions scikit-learn's loader reads, by suffix
_OPENERS: dict[str, Callable[..., Any]] = {".gz": gzip.open, ".bz2": bz2.open}


def _read_once(path: Any, reader: str) -> bytes:
    """The file's bytes, decompressed by suffix as scikit-learn's loader does.

    Read once: every later step (the loader, the query ids, the error messages)
    reads these bytes, so a file replaced during the read cannot mix two versions.
    A ``.gz`` / ``.bz2`` file may expand to at most ``MAX_EXPANSION`` times its size
    (:func:`read_decompressed`).
    """
    suffix = Path(path).suffix
    opener = _OPENERS.get(suffix)
    with open(path, "rb") as raw:
        if opener is None:
            return raw.read()
        size = os.fstat(raw.fileno()).st_size
        try:
            with opener(raw, "rb") as handle:
                return read_decompressed(handle, size, source_name(path), reader)
        except (OSError, EOFError, zlib.error) as error:
            raise ValueError(
                f"{reader}: {source_name(path)} is not a valid {suffix} file ({error})."
            ) from None


# the start of a data line: its first field (the label), then an optional qid field;
# blank lines and comment lines do not match, as scikit-learn's loader skips them
_DATA_LINE = re.compile(rb"^[ \t]*[^\s#]+(?:[ \t]+qid:([^\s#]*))?", re.MULTILINE)
# the start of any other line: blank, or a comment
_OTHER_LINE = re.compile(rb"^[ \t]*(?:[#\r\n\v\f]|$)", re.MULTILINE)


def _after_break(pattern: re.Pattern[bytes]) -> re.Pattern[bytes]:
    """``pattern`` (anchored at a line start by ``^``) from the line break before the
    line instead: its first character a literal, the regex engine jumps from one
    line break to the next instead of trying every byte (3 to 8 times faster). What
    would end the match is looked at, not consumed, so that a blank line's break
    stays the start of the next line."""
    text = pattern.pattern
    text = text.replace(b"(?:[#\\r\\n\\v\\f]|$)", b"(?=[#\\r\\n\\v\\f]|$)")
    return re.compile(b"\n" + text[1:], pattern.flags)


_DATA_AFTER_BREAK = _after_break(_DATA_LINE)
_OTHER_AFTER_BREAK = _after_break(_OTHER_LINE)
_DOCID_AFTER_BREAK = _after_break(_DOCID_RE)


def _line_findall(data: bytes, pattern: re.Pattern[bytes], after: re.Pattern[bytes]) -> list:
    """``pattern.findall(data)``: the first line by ``pattern``, the others by its
    form ``after`` a line break (the same matches, found faster)."""
    first = pattern.match(data)
    if first is None:
        return after.findall(data)
    # from where the first match ends, as findall goes on (a match may end past a
    # line break, and the line it ends in is then skipped)
    return [first.group(1) or b"", *after.findall(data, first.end())]


def _scan_data_lines(data: bytes) -> tuple[list[bytes], list[bytes]]:
    """The ``qid:`` text of every data line (``b""`` where none), and the docids found.

    Two regular expressions matched in C (``re.findall``), so the cost is linear in
    the file size. The docid pattern starts at a ``#``, so a file without comments
    costs nearly nothing there.
    """
    query_texts = _line_findall(data, _DATA_LINE, _DATA_AFTER_BREAK)
    doc_texts = _line_findall(data, _DOCID_RE, _DOCID_AFTER_BREAK) if b"#" in data else []
    return query_texts, doc_texts


def _data_row_location(data: bytes, name: str) -> Callable[[int], str]:
    """Row ``i`` -> ``"<name>, line L"``: the line of the i-th data line.

    Keeps only the numbers of the other (blank and comment) lines, not the text:
    data line ``i`` is the ``i + 1``-th line number missing from them.
    """
    # usually few; the first line, then each from the line break before it
    starts = [0] if _OTHER_LINE.match(data) else []
    starts += [match.start() + 1 for match in _OTHER_AFTER_BREAK.finditer(data)]
    # the empty line after a final line break follows every data line: it moves none
    # (and a file without other lines needs no scan for line breaks)
    if starts and starts[-1] == len(data):
        starts.pop()
    if starts:
        newlines = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == ord("\n"))
        other = np.searchsorted(newlines, starts) + 1  # their line numbers, sorted
    else:
        other = np.zeros(0, dtype=np.intp)
    data_before = other - 1 - np.arange(len(other))  # data lines before each of them

    def locate(row: int) -> str:
        skipped = int(np.searchsorted(data_before, row, side="right"))
        return f"{name}, line {row + 1 + skipped}"

    return locate


def _letor_query_ids(found: list[bytes]) -> np.ndarray | None:
    """The query ids as int64; an empty array when no line has one.

    None when some lines have a ``qid:`` and others do not, or a query id is not an
    integer: the caller's error path then names the first bad line. Lengths are
    checked first, so the fixed-width copy is at most 19 bytes a row.
    """
    lengths = np.fromiter(map(len, found), dtype=np.int64, count=len(found))
    if not len(found) or not lengths.any():
        return np.zeros(0, dtype=np.int64)
    if int(lengths.max()) > 19:
        return None
    texts = np.array(found, dtype=bytes)
    digits = np.char.lstrip(texts, b"+-")
    signs = np.char.str_len(texts) - np.char.str_len(digits)
    if not bool(np.all(np.char.isdigit(digits) & (signs <= 1))) or bool(
        np.any(np.char.str_len(digits) > 18)
    ):
        return None
    return texts.astype(np.int64)


def _letor_error(
    data: bytes, name: str, need_qid: bool, error: Exception | None = None
) -> ValueError:
    """The first bad line of an SVMlight file, as an error (error path only)."""
    for line_number, raw in enumerate(io.BytesIO(data), start=1):
        fields = raw.split(b"#", 1)[0].decode("utf-8", errors="replace").split()
        if not fields:
            continue
        problem = _letor_line_problem(fields, need_qid)
        if problem is not None:
            return ValueError(f"{name}, line {line_number}: {problem}.")
    return ValueError(f"{name}: {error}" if error is not None else f"{name}: unreadable.")


def _number_lines_error(
    lines: list[str], name: str, kind: str, expected: int, what: str, owner: str,
    error: Exception | None,
) -> ValueError:
    """The first bad line of a one-number-per-line file (error path only)."""
    count, line_number = 0, 0
    for line_number, line in enumerate(lines, start=1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 1:
            return ValueError(
                f"{name}, line {line_number}: expected one {what} per line; "
                f"got {len(fields)} fields."
            )
        text = fields[0]
        if kind == "int":
            if not INT_RE.fullmatch(text) or int(text) < 1:
                return ValueError(
                    f"{name}, line {line_number}: a query size must be an integer >= 1; "
                    f"got {text!r}."
                )
        elif not FLOAT_RE.fullmatch(text) or not np.isfinite(float(text)):
            return ValueError(
                f"{name}, line {line_number}: a {what} must be a finite number; got {text!r}."
            )
        count += int(text) if kind == "int" else 1
        if count > expected:
            return ValueError(
                f"{name}, line {line_number}: more {what}s than the {expected} rows of {owner}."
            )
    if count < expected:
        place = f"line {line_number}" if line_number else "an empty file"
        return ValueError(
            f"{name}, {place}: the file ends with {what}s for {count} rows, but "
            f"{owner} has {expected} rows."
        )
    return ValueError(f"{name}: {error}")


def _read_number_lines(path: Any, kind: str, expected: int, what: str, owner: str) -> np.ndarray:
    """A file of one number per line (predictions, or query sizes with ``kind="int"``)."""
    dtype = np.int64 if kind == "int" else np.float64
    values = None
    error: Exception | None = None
    lines = _read_once(path, "read_letor").decode("utf-8", errors="replace").splitlines()
    try:
        if any(map(str.strip, lines)):  # loadtxt warns on a file without data
            values = np.loadtxt(lines, dtype=dtype, comments=None, ndmin=1)
        else:
            values = np.zeros(0, dtype=dtype)
    except ValueError as caught:
        error = caught
    if values is not None and values.ndim == 1:
        total = int(values.sum()) if kind == "int" else len(values)
        valid = np.all(values >= 1) if kind == "int" else np.all(np.isfinite(values))
        if valid and total == expected:
            return values
    raise _number_lines_error(lines, source_name(path), kind, expected, what, owner, error)


def _letor_doc_ids(found: list[bytes], n_rows: int) -> np.ndarray | None:
    """``#docid = X`` of every data line as str objects, or None when a line has none.

    An object array (not ``<U{longest}``, which would cost rows x longest id x 4
    bytes); decoded in one call, the ids holding no line break.
    """
    if not n_rows or len(found) != n_rows:
        return None
    ids = np.empty(n_rows, dtype=object)
    ids[:] = b"\n".join(found).decode("utf-8", errors="replace").split("\n")
    return ids


def _array_scores(scores: Any, n_rows: int, name: str) -> np.ndarray:
    try:
        values = np.array(scores, dtype=np.float64)  # a copy: inputs are never modified
    except (TypeError, ValueError):
        raise TypeError(
            "The 'scores' parameter of read_letor must be a file path or an array of "
            f"numbers; got {type(scores).__name__}."
        ) from None
    if values.ndim != 1 or len(values) != n_rows:
        raise ValueError(
            f"read_letor: scores must hold one value per row of {name} ({n_rows}); "
            f"got shape {values.shape}."
        )
    bad = np.flatnonzero(np.isnan(values))
    if len(bad):
        raise ValueError(f"read_letor: scores must not be NaN; got NaN at row {bad[0]}.")
    return values


def _letor_groups(group_sizes: Any, n_rows: int, name: str) -> np.ndarray:
    """Query index of every row from per-query sizes (a file or an array)."""
    if is_path(group_sizes):
        check_path(group_sizes, "group_sizes", "read_letor")
        sizes = _read_number_lines(group_sizes, "int", n_rows, "query size", name)
    else:
        sizes = np.asarray(group_sizes)
        if sizes.ndim != 1 or sizes.dtype.kind not in "iu":
            raise TypeError(
                "The 'group_sizes' parameter of read_letor must be a file path or a 1-D "
                f"array of ints; got {type(group_sizes).__name__} of dtype {sizes.dtype}."
            )
        bad = np.flatnonzero(sizes < 1)
        if len(bad):
            raise ValueError(
                f"read_letor: group_sizes must be >= 1; got {sizes[bad[0]]} at position {bad[0]}."
            )
        if int(sizes.sum()) != n_rows:
            raise ValueError(
                f"read_letor: group_sizes add up to {int(sizes.sum())} rows, but {name} "
                f"has {n_rows}."
            )
    return np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)


@validate_params({"n_features": [Interval(int, 1, None), NONE]})
def read_letor(
    path: str | os.PathLike,
    *,
    scores: Any = None,
    model: Any = None,
    n_features: int | None = None,
    group_sizes: Any = None,
) -> RankingData:
    """Read a LETOR / SVMlight file with ``qid:`` fields, and optionally score it.

    Each line is ``label qid:<int> index:value ... [# comment]``, as in LETOR 3.0/4.0,
    MSLR-WEB, Yahoo! LTR and the files of LightGBM, XGBoost and RankLib. Labels and
    features are read by scikit-learn's ``load_svmlight_file``, whose rules apply
    (feature indices increase along a line; 1-based files are detected as with
    ``zero_based="auto"``); the ``qid:`` fields by one linear pass of the package's
    own (the loader's ``query_id=True`` is quadratic in lines). A 1M-line file reads
    in about 1.15 times the loader's own time (the loader, then the scan for the
    ``qid:`` fields).

    Parameters
    ----------
    path : str or os.PathLike
        The SVMlight file.
    scores : str, os.PathLike or array-like of shape (n_rows,), default=None
        The model's scores: a predictions file with one number per line in row order
        (what LightGBM and XGBoost ``predict`` write), or an array.
    model : estimator, default=None
        A fitted estimator that scores ``X``: ``predict`` for regressors and rankers,
        the positive-class probability (or expected grade) for classifiers.
        Not together with ``scores``.
    n_features : int, default=None
        Number of feature columns of ``X``; None takes ``model.n_features_in_`` when
        a model is given, else the largest index in the file.
    group_sizes : str, os.PathLike or array-like of int, default=None
        For files without ``qid:`` (LightGBM's ``.query`` / XGBoost's ``.group``
        layout): the number of rows of each query in row order, as such a file or
        an array. The query ids are then ``0, 1, ...``.

    Returns
    -------
    data : RankingData
        ``y_true`` (labels), ``y_score`` (None without ``scores`` and ``model``),
        ``group`` (int64 query ids), ``X`` (CSR features), ``doc_id`` (the
        ``#docid = X`` comments when every line has one, else None), ``source``.
        No ``convention``: LETOR and SVMlight files are read by tools that disagree
        (LightGBM and XGBoost score a query without relevant rows 1, RankLib and
        scikit-learn 0; the boosters keep tied rows in input order, scikit-learn
        averages them) and hold no scores of any tool, so the package's defaults
        apply until a call names the tool whose numbers it wants
        (``convention="lightgbm"``, ...).

    Raises
    ------
    ValueError
        A line the loader rejects, a line without ``qid:`` (unless ``group_sizes`` is
        given), a predictions file with a non-number or the wrong number of lines:
        the message names the file and the line. A ``.gz`` / ``.bz2`` file that
        expands to more than 100 times its size (or 16 MiB for a small file) is
        refused. The file is read once: every step reads the same bytes.
    OSError
        The path is missing (FileNotFoundError), a directory (IsADirectoryError),
        a symlink loop, or not a regular file (a FIFO, a device such as /dev/null).

    Examples
    --------
    >>> import tempfile, os
    >>> from sklearn_rank_metrics import ndcg_score, read_letor
    >>> folder = tempfile.mkdtemp()
    >>> letor = os.path.join(folder, "test.txt")
    >>> with open(letor, "w") as f:
    ...     _ = f.write("2 qid:1 1:0.5 #docid = a\\n0 qid:1 1:0.1 #docid = b\\n"
    ...                 "1 qid:2 1:0.3 #docid = c\\n0 qid:2 1:0.7 #docid = d\\n")
    >>> data = read_letor(letor, scores=[0.9, 0.1, 0.2, 0.8])
    >>> data.y_true.tolist(), data.group.tolist(), data.doc_id.tolist()
    ([2.0, 0.0, 1.0, 0.0], [1, 1, 2, 2], ['a', 'b', 'c', 'd'])
    >>> round(ndcg_score(data), 4)  # query 1 perfect, query 2: 1 / log2(3)
    0.8155
    """
    check_path(path, "path", "read_letor")
    name = source_name(path)
    if scores is not None and model is not None:
        raise ValueError("read_letor takes scores or model, not both.")
    if model is not None and n_features is None:
        n_features = getattr(model, "n_features_in_", None)
    need_qid = group_sizes is None
    # imported here: importing sklearn.datasets draws from Python's global `random`
    # state, which importing this package must leave alone
    from sklearn.datasets import load_svmlight_file

    data = _read_once(path, "read_letor")  # every step below reads these bytes
    try:
        # query_id=False: scikit-learn's loader is quadratic in lines with query_id=True
        # (1M lines did not finish in 600 s); the ids are read by _letor_query_ids
        X, y_true = load_svmlight_file(
            io.BytesIO(data), n_features=n_features, dtype=np.float64, query_id=False
        )
    except ValueError as error:
        raise _letor_error(data, name, need_qid, error) from error
    n_rows = len(y_true)
    if n_rows == 0:
        raise ValueError(f"{name} holds no data line.")
    if not np.all(np.isfinite(y_true)):
        raise _letor_error(data, name, need_qid)
    query_texts, doc_texts = _scan_data_lines(data)
    group = _letor_group(data, query_texts, group_sizes, n_rows, name)
    locate = _data_row_location(data, name)
    del data, query_texts  # the rows keep no copy of the file
    y_score, name = _letor_scores(scores, model, X, n_rows, name)
    return RankingData(
        np.asarray(y_true, dtype=np.float64),
        y_score,
        group,
        doc_id=_letor_doc_ids(doc_texts, n_rows),
        X=X,
        source=name,
        _row_location=locate,
    )


def _letor_group(
    data: bytes, query_texts: list[bytes], group_sizes: Any, n_rows: int, name: str
) -> np.ndarray:
    """The query id of every row: the ``qid:`` fields, or ``group_sizes`` without them."""
    need_qid = group_sizes is None
    qid = _letor_query_ids(query_texts)
    if need_qid:
        if qid is None or len(qid) != n_rows:
            raise _letor_error(data, name, need_qid)
        return qid
    if qid is not None and len(qid):
        raise ValueError(
            f"read_letor: {name} has 'qid:' fields and group_sizes is given; give the "
            "query ids one way only."
        )
    return _letor_groups(group_sizes, n_rows, name)


def _letor_scores(
    scores: Any, model: Any, X: Any, n_rows: int, name: str
) -> tuple[np.ndarray | None, str]:
    """The rows' scores (from a predictions file, an array or a model, else None),
    and the source's name (a predictions file joins it)."""
    if is_path(scores):
        check_path(scores, "scores", "read_letor")
        y_score = _read_number_lines(scores, "float", n_rows, "prediction", name)
        return y_score, f"{name} + {source_name(scores)}"
    if scores is not None:
        return _array_scores(scores, n_rows, name), name
    if model is None:
        return None, name
    y_score = np.array(response_values(model, X), dtype=np.float64)
    if y_score.shape != (n_rows,):
        raise ValueError(
            f"read_letor: the model gave scores of shape {y_score.shape} for the "
            f"{n_rows} rows of {name}."
        )
    return y_score, name
