"""TREC qrels and run files, and the nested dicts of pytrec_eval and ranx, as flat rows.

A qrels line is ``query iteration docno label`` (4 fields, label an integer, negative
ones allowed); a run line is ``query Q0 docno rank score tag`` (6 fields, and any
after the tag are ignored, as trec_eval ignores them and the rank and the tag). Fields
are separated by whitespace; blank lines and comment lines (first non-blank character
``#``, as in trec_eval's test files) are skipped.

Files are read by a NumPy reader (no Python object per line; NumPy alone, so every
install has it), which takes spaces, tabs, runs of them, ``\n``, ``\r\n`` and ``\r``
line ends, blank and comment lines, fields after the tag and UTF-8 ids. A file it
does not take (a NUL byte, other whitespace such as ``\v`` or a no-break space, an
id so long that a byte matrix of the ids would outgrow the file) or any bad line
goes to ``pandas.read_csv`` when pandas is installed, then to a plain Python reader,
which states the rules, reads the file or names the first bad line. A document that
appears twice in one query is an error (trec_eval and pytrec_eval refuse it too);
nothing is repaired silently.

:func:`join_trec` turns qrels + run into flat rows in the order that makes
``ties="input"`` reproduce trec_eval. The public readers :func:`read_trec`,
:func:`read_trec_qrels` and :func:`read_trec_run` are at the end of this module and
are re-exported by the ``_io`` package.
"""

from __future__ import annotations

import codecs
import csv
import io
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .._engine._inputs import factorize_text_ids
from .._engine._plain import counted
from .._engine._text_rows import TextRows, decoded_texts
from .._engine._validation import BOOLEAN, validate_params
from ._ranking_data import FLOAT_RE, INT_RE, RankingData, check_path, is_path, source_name

# the text of a number as the readers accept it: no "nan", "inf", "1_000" or hex
_FLOAT32_MAX = float(np.finfo(np.float32).max)
_INT64_MAX = 2**63 - 1

# kind -> (number of fields, index of the docno, index of the value, what the value is)
_LAYOUT = {
    "qrels": (4, 2, 3, "an integer relevance label"),
    "run": (6, 2, 4, "a finite score"),
}
_LINE_FORMAT = {
    "qrels": "query iteration docno label",
    "run": "query Q0 docno rank score tag",
}


@dataclass(frozen=True)
class TrecTable:
    """One qrels or run as flat columns: query id, docno, label (int64) or score (float64).

    ``tag`` is a run file's tag as trec_eval reports it (its ``runid``): the sixth
    field of the last line; None for qrels, dicts and empty files.
    """

    query: np.ndarray
    doc: np.ndarray
    value: np.ndarray
    source: str
    tag: str | None = None
    # read without the check that no (query, docno) pair is given twice, which the
    # join makes (check_pairs_now makes it before any other error is raised)
    pairs_unchecked: bool = False


# --------------------------------------------------------------------------- files


def _line_problem(fields: list[str], kind: str) -> str | None:
    """What is wrong with one non-blank line, or None."""
    n_fields, _, value_index, what = _LAYOUT[kind]
    if len(fields) != n_fields and not (kind == "run" and len(fields) > n_fields):
        at_least = " at least" if kind == "run" else ""
        return (
            f"expected{at_least} {n_fields} fields ({_LINE_FORMAT[kind]}), got "
            f"{len(fields)}: {' '.join(fields)!r}"
        )
    text = fields[value_index]
    if kind == "qrels":
        if not INT_RE.fullmatch(text) or abs(int(text)) > _INT64_MAX:
            return f"the label must be {what}; got {text!r}"
        return None
    if not FLOAT_RE.fullmatch(text) or not abs(float(text)) <= _FLOAT32_MAX:
        return (
            f"the score must be {what} (at most {_FLOAT32_MAX:.4g} in absolute value, "
            "the float32 limit: trec_eval 9 and pytrec_eval read scores in single "
            f"precision); got {text!r}"
        )
    return None


def _scan_trec_file(data: bytes, name: str, kind: str) -> TrecTable:
    """Plain Python reader: the reference rules, and the first bad line in the error."""
    _, doc_index, value_index, _ = _LAYOUT[kind]
    queries: list[str] = []
    docs: list[str] = []
    values: list[str] = []
    first_line: dict[tuple[str, str], int] = {}
    tag = None
    for line_number, raw in enumerate(data.splitlines(), start=1):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise ValueError(f"{name}, line {line_number}: not UTF-8 text ({error}).") from None
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        problem = _line_problem(fields, kind)
        if problem is not None:
            raise ValueError(f"{name}, line {line_number}: {problem}.")
        key = (fields[0], fields[doc_index])
        if key in first_line:
            raise ValueError(
                f"{name}, line {line_number}: document {key[1]!r} of query {key[0]!r} "
                f"appears twice (first on line {first_line[key]})."
            )
        first_line[key] = line_number
        if kind == "run":
            tag = fields[5]
        queries.append(fields[0])
        docs.append(fields[doc_index])
        values.append(fields[value_index])
    dtype = np.int64 if kind == "qrels" else np.float64
    return TrecTable(
        _text_objects(queries),
        _text_objects(docs),
        np.array([int(v) if kind == "qrels" else float(v) for v in values], dtype=dtype),
        name,
        tag,
    )


def _text_objects(texts: list[str]) -> np.ndarray:
    """The ids as an object array: a fixed-width ``<U`` copy would take (rows) x
    (longest id) x 4 bytes, gigabytes for one very long docno."""
    ids = np.empty(len(texts), dtype=object)
    ids[:] = texts
    return ids


def _all_integer_text(values: np.ndarray) -> bool:
    """Every entry is an optional sign and digits (``INT_PATTERN``), checked in C.

    False for a text longer than 20 characters (the fixed-width copy checked here is
    then at most 80 bytes a row; the plain reader reads such a label or refuses it).
    """
    lengths = np.fromiter(map(len, values), dtype=np.int64, count=len(values))
    if len(lengths) and int(lengths.max()) > 20:
        return False
    text = np.asarray(values, dtype=str)
    unsigned = np.char.lstrip(text, "+-")
    one_sign_at_most = np.char.str_len(text) - np.char.str_len(unsigned) <= 1
    return bool(np.all(np.char.isdigit(unsigned) & one_sign_at_most))


def _read_trec_file_pandas(data: bytes, name: str, kind: str, pd: Any) -> TrecTable | None:
    """The vectorised reader; None when anything is off (the scanner then reads the file)."""
    n_fields, doc_index, value_index, _ = _LAYOUT[kind]
    dtype = np.int64 if kind == "qrels" else np.float64
    # scores are parsed by the C reader; labels are text first, as pandas would take
    # "1.0" for the integer 1 where trec_eval's parsers want an integer
    value_dtype = object if kind == "qrels" else dtype
    try:
        frame = pd.read_csv(
            io.BytesIO(data),
            sep=r"\s+",
            header=None,
            dtype={i: value_dtype if i == value_index else object for i in range(n_fields)},
            na_filter=False,
            quoting=csv.QUOTE_NONE,
            encoding="utf-8",
            engine="c",
        )
    except pd.errors.EmptyDataError:
        empty = np.array([], dtype=object)
        return TrecTable(empty, empty, np.array([], dtype=dtype), name)
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError, TypeError, OverflowError):
        return None
    if frame.shape[1] != n_fields or frame[value_index].dtype != value_dtype:
        return None
    if bool(frame[0].str.startswith("#").any()):  # comment lines
        return None
    # whitespace separates fields, so only a short line leaves one empty: the last
    if bool((frame[n_fields - 1] == "").to_numpy().any()):
        return None
    if kind == "qrels":
        labels = frame[value_index]
        if not _all_integer_text(labels.to_numpy()):
            return None
        try:
            values = labels.astype(np.int64).to_numpy()
        except (OverflowError, ValueError):
            return None
        if bool(np.any(values == np.iinfo(np.int64).min)):
            return None  # -2**63: beyond the plain reader's limit, which names the line
    else:
        values = frame[value_index].to_numpy()
        if not bool(np.all(np.abs(values) <= _FLOAT32_MAX)):
            return None
    if bool(frame.duplicated([0, doc_index]).any()):
        return None
    return TrecTable(
        frame[0].to_numpy(dtype=object),
        frame[doc_index].to_numpy(dtype=object),
        values,
        name,
        str(frame[5].iat[-1]) if kind == "run" and len(frame) else None,
    )


# --------------------------------------------------------------------------- fast reader
#
# The bytes of a file are cut into fields with NumPy (no Python object per line): the
# separators are found in one pass, and each field of the lines becomes a column of a
# zero-padded byte matrix (one row per line). Query ids and docnos stay such "text
# matrices" until the join, which factorises them in byte order (trec_eval's strcmp)
# by sorting their bytes as 64-bit words and makes one str per distinct id. The rules
# are the plain reader's: any line it would refuse, and any file outside what this
# reader takes (NUL bytes, whitespace other than spaces, tabs and line ends, a very long
# id), sends the file to the other readers, which read it or name the first bad line.

_SPACE, _NEWLINE, _HASH = ord(" "), ord("\n"), ord("#")
# whitespace that str.split() splits at besides spaces, tabs and line ends, and NUL
# (a text matrix pads with it); a file holding any goes to the other readers
_OTHER_BYTES = (b"\x00", b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e", b"\x1f")
_OTHER_SPACES = re.compile("[\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")
_TAB_TO_SPACE = bytes.maketrans(b"\t", b" ")


def _other_whitespace(data: bytes) -> bool:
    """Whether the file holds whitespace that ``str.split`` splits at besides spaces,
    tabs and line ends (vertical tab, form feed, the separators, no-break space, ...)."""
    if any(byte in data for byte in _OTHER_BYTES[1:]):  # NUL is no whitespace
        return True
    if data.isascii():
        return False
    try:
        return _OTHER_SPACES.search(data.decode("utf-8")) is not None
    except UnicodeDecodeError:
        return False  # either reader names the line
_LABEL_BYTES = np.zeros(256, dtype=bool)
_LABEL_BYTES[list(b"0123456789+-")] = True
_SCORE_BYTES = np.zeros(256, dtype=bool)
_SCORE_BYTES[list(b"0123456789+-.eE")] = True
_SIGNS = np.zeros(256, dtype=bool)
_SIGNS[list(b"+-")] = True


_CHUNK = 1 << 24  # bytes of a file scanned at a time, to bound the temporary masks


def _separators(data: bytes) -> np.ndarray:
    """The positions of the spaces and line ends (int32 below 2 GiB), found a chunk at
    a time: the masks of a whole file would take several times its size."""
    buffer = np.frombuffer(data, dtype=np.uint8)
    dtype = np.int32 if len(buffer) < 2**31 else np.int64
    found = []
    for begin in range(0, len(buffer), _CHUNK):  # a few passes per file, not per line
        piece = buffer[begin : begin + _CHUNK]
        found.append(
            (np.flatnonzero((piece == _SPACE) | (piece == _NEWLINE)) + begin).astype(dtype)
        )
    return np.concatenate(found) if found else np.zeros(0, dtype=dtype)


def _normalized(data: bytes) -> tuple[bytes, np.ndarray] | None:
    """The file with single spaces between fields, ``\\n`` ending every line and no
    blank line, and the positions of its spaces and line ends; None for a file the
    fast reader does not take."""
    if any(byte in data for byte in _OTHER_BYTES):
        return None
    if not data.isascii():
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return None  # the plain reader names the line
        if _OTHER_SPACES.search(text):
            return None
    if b"\r" in data:  # a line ends at \n, \r\n or a lone \r, as in bytes.splitlines
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    if b"\t" in data:
        data = data.translate(_TAB_TO_SPACE)
    if data and not data.endswith(b"\n"):
        data += b"\n"
    separators = _separators(data)
    if len(separators) == 0 or (separators[0] > 0 and bool(np.all(np.diff(separators) > 1))):
        return data, separators  # no empty field: the common case, nothing to squeeze
    buffer = np.frombuffer(data, dtype=np.uint8)
    space, newline = buffer == _SPACE, buffer == _NEWLINE
    # keep the first space after a field, then drop spaces before a line end, then
    # blank lines
    keep = ~space
    keep[1:] |= space[1:] & ~space[:-1] & ~newline[:-1]
    buffer = buffer[keep]
    before_newline = np.append(buffer[1:] == _NEWLINE, True)
    buffer = buffer[~((buffer == _SPACE) & before_newline)]
    newline = buffer == _NEWLINE
    blank = newline.copy()
    blank[1:] &= newline[:-1]
    data = buffer[~blank].tobytes()
    return data, _separators(data)


def _text_matrix(
    buffer: np.ndarray, start: np.ndarray, stop: np.ndarray, limit: int, multiple: int = 1
) -> Any:
    """``buffer[start[i]:stop[i]]`` as row ``i`` of a zero-padded uint8 matrix; None
    when the matrix would take more than ``limit`` bytes (one very long id).

    ``start`` increases (fields of successive lines). Each row is copied from the
    window of ``width`` bytes at its start (the longest field, rounded up to a
    ``multiple``); the last rows, whose window would run past the end, from a padded
    copy of the end of the buffer.
    """
    length = stop - start
    width = max(int(length.max()) if len(length) else 0, 1)
    width += -width % multiple
    if width * len(length) > limit:
        return None
    inside = int(np.searchsorted(start, len(buffer) - width, side="right"))
    if inside == len(start):
        matrix = np.lib.stride_tricks.sliding_window_view(buffer, width)[start]
    else:
        matrix = np.empty((len(start), width), dtype=np.uint8)
        if inside:
            windows = np.lib.stride_tricks.sliding_window_view(buffer, width)
            matrix[:inside] = windows[start[:inside]]
        base = int(start[inside])
        end = np.zeros(len(buffer) - base + width, dtype=np.uint8)
        end[: len(buffer) - base] = buffer[base:]
        matrix[inside:] = np.lib.stride_tricks.sliding_window_view(end, width)[
            start[inside:] - base
        ]
    for column in range(int(length.min()) if len(length) else width, width):
        matrix[length <= column, column] = 0  # past each text's end: one pass per byte
    return matrix


def _read_values(matrix: np.ndarray, kind: str) -> np.ndarray | None:
    """The labels (int64) or scores (float64) of a value matrix; None unless every
    text is one the plain reader takes (INT_PATTERN, FLOAT_PATTERN, in range)."""
    if len(matrix) == 0:
        return np.array([], dtype=np.int64 if kind == "qrels" else np.float64)
    if kind == "qrels":
        # INT_PATTERN: digits after one optional sign, at most 19 of them
        if matrix.shape[1] > 20 or not bool(
            np.all(_LABEL_BYTES[matrix] | (matrix == 0))
            and not np.any(_SIGNS[matrix[:, 1:]])
        ):
            return None
        texts = np.ascontiguousarray(matrix).view(f"S{matrix.shape[1]}").reshape(-1)
        try:
            labels = texts.astype(np.int64)  # int() of each text: a sign alone is refused
        except (ValueError, OverflowError):
            return None
        if bool(np.any(labels == np.iinfo(np.int64).min)):
            return None  # beyond the plain reader's limit of 2**63 - 1 in absolute value
        return labels
    # float() of texts made of these bytes takes exactly FLOAT_PATTERN
    if matrix.shape[1] > 64 or not bool(np.all(_SCORE_BYTES[matrix] | (matrix == 0))):
        return None
    try:
        scores = _scores(matrix)
    except ValueError:
        return None
    if not bool(np.all(np.abs(scores) <= _FLOAT32_MAX)):
        return None
    return scores


def _scores(matrix: np.ndarray) -> np.ndarray:
    """float() of every text of a score matrix, correctly rounded.

    Texts of at most 15 digits without exponent (``-12.375``) are read with integer
    arithmetic: the digits as an integer below 2**53 over a power of ten up to 1e15,
    both exact in float64, so the one division rounds correctly (Clinger's fast path),
    as float() does. Other texts are read by float() through NumPy's cast.
    """
    columns = np.ascontiguousarray(matrix.T)  # one row per byte position
    digits = columns - np.uint8(ord("0"))
    is_digit = digits <= 9
    n_digits = np.count_nonzero(is_digit, axis=0)
    simple = (
        ~np.any((columns == ord("e")) | (columns == ord("E")), axis=0)
        & ~np.any(_SIGNS[columns[1:]], axis=0)
        & (np.count_nonzero(columns == ord("."), axis=0) <= 1)
        & (n_digits >= 1)
        & (n_digits <= 15)
    )
    del n_digits
    mantissa = np.zeros(len(matrix), dtype=np.int64)
    decimals = np.zeros(len(matrix), dtype=np.int8)
    after_point = np.zeros(len(matrix), dtype=bool)
    taken = np.empty(len(matrix), dtype=bool)
    for position in range(len(columns)):  # one pass per byte of the longest score
        np.logical_and(is_digit[position], simple, out=taken)
        np.multiply(mantissa, 10, out=mantissa, where=taken)
        np.add(mantissa, digits[position], out=mantissa, where=taken)
        decimals += taken & after_point
        after_point |= columns[position] == ord(".")
    del digits, is_digit, taken, after_point
    scores = np.power(10.0, decimals)
    np.divide(mantissa, scores, out=scores)
    scores[columns[0] == ord("-")] *= -1
    other = np.flatnonzero(~simple)
    if len(other):
        texts = np.ascontiguousarray(matrix[other]).view(f"S{matrix.shape[1]}").reshape(-1)
        scores[other] = texts.astype(np.float64)
    return scores


def _empty_table(name: str, kind: str) -> TrecTable:
    empty = np.array([], dtype=object)
    return TrecTable(empty, empty, np.array([], np.int64 if kind == "qrels" else np.float64), name)


def _fast_trec_file(
    data: bytes, name: str, kind: str, check_pairs: bool = True
) -> TrecTable | None:
    """The vectorised reader; None when the file is not one it takes as it is.

    ``check_pairs=False`` leaves the check that no (query, docno) pair is given twice
    to the caller (:func:`join_trec`'s sort finds such pairs for free); the table
    then says so (``pairs_unchecked``).
    """
    n_fields, doc_index, value_index, _ = _LAYOUT[kind]
    read = _normalized(data)
    if read is None:
        return None
    normalized, separators = read
    buffer = np.frombuffer(normalized, dtype=np.uint8)
    if len(buffer) == 0:
        return _empty_table(name, kind)
    # index into separators of each line's end and first separator, as int32 too
    line_end = np.flatnonzero(buffer[separators] == _NEWLINE).astype(separators.dtype)
    first = np.empty_like(line_end)
    first[0], first[1:] = 0, line_end[:-1] + 1
    line_start = np.empty_like(line_end)
    line_start[0], line_start[1:] = 0, separators[line_end[:-1]] + 1
    # a comment line's first field starts with "#"
    comment = buffer[line_start] == _HASH
    if bool(comment.any()):
        line_end, first, line_start = line_end[~comment], first[~comment], line_start[~comment]
    if len(line_end) == 0:
        return _empty_table(name, kind)
    fields = line_end - first + 1
    if bool(np.any(fields < n_fields if kind == "run" else fields != n_fields)):
        return None
    del fields, line_end, comment
    tag = None
    if kind == "run":  # the tag of the last line
        start, stop = separators[first[-1] + 4] + 1, separators[first[-1] + 5]
        tag = normalized[start:stop].decode("utf-8")

    # a matrix of ids at most 4 times the file: else one long id would pad every row
    limit = 4 * len(buffer) + 4096
    # ids 8 bytes a row at a time (_pair_twice reads them as 64-bit words)
    query, doc, value_matrix = (
        _text_matrix(
            buffer,
            line_start if index == 0 else separators[first + index - 1] + 1,
            separators[first + index],
            limit,
            multiple,
        )
        for index, multiple in ((0, 8), (doc_index, 8), (value_index, 1))
    )
    del separators, first, line_start
    if query is None or doc is None or value_matrix is None:
        return None
    values = _read_values(value_matrix, kind)
    if values is None or (check_pairs and _pair_twice(query, doc)):
        return None
    return TrecTable(query, doc, values, name, tag, pairs_unchecked=not check_pairs)


def _pair_twice(query: np.ndarray, doc: np.ndarray) -> bool:
    """Whether some (query, docno) pair may occur twice: a 64-bit hash of both, sorted.

    Equal pairs hash equal; two different pairs hash equal with odds of about
    ``n**2 / 2**65`` (3e-8 for a million lines), and then the plain reader reads the
    file and finds no pair twice: slower, never wrong.
    """
    state = np.full(len(query), 0x243F6A8885A308D3, dtype=np.uint64)
    for matrix in (query, doc):  # rows of a multiple of 8 bytes (_fast_trec_file)
        words = matrix.view(np.uint64)
        for column in range(words.shape[1]):  # one pass per 8 bytes of the widest id
            state ^= words[:, column]
            state *= np.uint64(0x9E3779B97F4A7C15)
            state ^= state >> np.uint64(31)
    state.sort()
    return bool(np.any(state[1:] == state[:-1]))


def _text_codes(matrices: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Codes ``0..n-1`` of the rows of the text matrices (stacked), in byte order
    (trec_eval's strcmp, code point order), the distinct texts (a text matrix, in
    code order: :func:`_decoded` makes them str), and the permutation that sorts the
    rows so.

    The rows become 64-bit words that compare as the texts do (_packed_words). Runs of
    equal rows (a file lists each query's lines together) are sorted as one row.
    """
    width = max(matrix.shape[1] for matrix in matrices)
    n_rows = sum(len(matrix) for matrix in matrices)
    if n_rows == 0:
        return np.zeros(0, dtype=np.intp), np.zeros((0, 1), np.uint8), np.zeros(0, np.intp)
    columns = np.zeros((width, n_rows), dtype=np.uint8)  # one row per byte position
    row = 0
    for matrix in matrices:
        columns[: matrix.shape[1], row : row + len(matrix)] = matrix.T
        row += len(matrix)
    words, bits = _packed_words(columns)
    del columns
    starts = np.flatnonzero(_differs_from_previous(words))
    if len(starts) <= n_rows // 2:
        # sort the first row of each run of equal rows; the runs then stay together
        by_run, new_run = _sorted_rows([word[starts] for word in words], bits)
        lengths = np.diff(np.append(starts, n_rows))[by_run]
        ends = np.cumsum(lengths)
        order = np.repeat(starts[by_run] - ends + lengths, lengths) + np.arange(n_rows)
        new = np.zeros(n_rows, dtype=bool)
        new[(ends - lengths)[new_run]] = True
    else:
        order, new = _sorted_rows(words, bits)
    del words
    codes = np.empty(n_rows, dtype=np.intp)
    codes[order] = np.cumsum(new) - 1
    return codes, _stacked_rows(matrices, width, order[new]), order


def _stacked_rows(matrices: list[np.ndarray], width: int, rows: np.ndarray) -> np.ndarray:
    """Rows ``rows`` of the matrices stacked (each padded with NUL to ``width``),
    taken from each matrix: the stacked copy of them all is never made."""
    taken = np.zeros((len(rows), width), dtype=np.uint8)
    step = max((1 << 20) // width, 1)
    for begin in range(0, len(rows), step):  # chunks of a MiB, to bound the copies
        wanted = rows[begin : begin + step]
        offset = 0
        for matrix in matrices:
            at = np.flatnonzero((wanted >= offset) & (wanted < offset + len(matrix)))
            taken[begin + at, : matrix.shape[1]] = np.take(
                matrix, wanted[at] - offset, axis=0
            )
            offset += len(matrix)
    return taken


def _differs_from_previous(words: list[np.ndarray]) -> np.ndarray:
    """Whether each row differs from the row before it (the first row: True)."""
    same = np.ones(len(words[0]), dtype=bool)
    for word in words:
        same[1:] &= word[1:] == word[:-1]
    same[0] = False
    return ~same


def _sorted_rows(words: list[np.ndarray], bits: int) -> tuple[np.ndarray, np.ndarray]:
    """The permutation sorting the rows by their words (the last one of ``bits`` bits),
    and whether each sorted row is the first of its value."""
    n_rows = len(words[0])
    row_bits = max(n_rows - 1, 1).bit_length()
    if len(words) == 1 and bits + row_bits <= 64:
        # the row number in the low bits: a sort of numbers, faster than an argsort
        keyed = words[0] << np.uint64(row_bits)
        keyed |= np.arange(n_rows, dtype=np.uint64)
        keyed.sort()
        order = (keyed & np.uint64((1 << row_bits) - 1)).view(np.int64).astype(np.intp)
        keyed >>= np.uint64(row_bits)
        return order, _differs_from_previous([keyed])
    # least significant word first, each pass after the first stable
    order = np.argsort(words[-1])
    for word in words[-2::-1]:
        order = order[np.argsort(word[order], kind="stable")]
    return order, _differs_from_previous([word[order] for word in words])


def _packed_words(columns: np.ndarray) -> tuple[list[np.ndarray], int]:
    """Texts (one byte position per row of ``columns``) as 64-bit words whose order,
    word after word, is the byte order of the texts (at least one word), and the
    number of bits used in the last.

    Byte positions equal in every text are left out (they change neither equality nor
    order); each other one becomes the rank of its byte among the bytes there, in as
    few bits as they need, packed most significant first.
    """
    varying = np.flatnonzero(columns.min(axis=1) != columns.max(axis=1))
    words: list[np.ndarray] = []
    word = np.zeros(columns.shape[1], dtype=np.uint64)
    used = 0
    for position in varying:  # one pass per byte position, not per row
        values = columns[position]
        present = np.bincount(values, minlength=256) > 0
        rank = (np.cumsum(present) - 1).astype(np.uint64)
        bits = int(np.count_nonzero(present) - 1).bit_length()
        if used + bits > 64:
            words.append(word)
            word, used = np.zeros(columns.shape[1], dtype=np.uint64), 0
        word = (word << np.uint64(bits)) | rank[values]
        used += bits
    words.append(word)
    return words, used


def _as_objects(ids: np.ndarray) -> np.ndarray:
    """Ids as an object array of str: a text matrix decoded, object arrays as they are."""
    if ids.ndim == 1:
        return ids
    codes, distinct, _ = _text_codes([ids])
    return decoded_texts(distinct)[codes]


def read_trec_file(source: Any, kind: str, check_pairs: bool = True) -> TrecTable:
    """Read a qrels (``kind="qrels"``) or run (``kind="run"``) file into flat columns.

    ``source`` is a path or a binary file object (such as ``sys.stdin.buffer``).
    ``check_pairs=False``: a file (not a stream, which cannot be read again to name
    the line) may be returned with the check for pairs given twice left to the
    caller (:func:`check_pairs_now`).
    """
    if hasattr(source, "read"):
        name = str(getattr(source, "name", "<stream>"))
        data = source.read()
        if isinstance(data, str):
            data = data.encode("utf-8")
    else:
        name = source_name(source)
        check_path(source, kind, f"the TREC {kind} reader")
        data = Path(source).read_bytes()
    # a byte order mark is no part of the first query id (pandas drops it; so does
    # the plain reader, which reads files with comments or extra fields)
    data = data.removeprefix(codecs.BOM_UTF8)
    table = _fast_trec_file(data, name, kind, check_pairs or hasattr(source, "read"))
    if table is not None:
        return table
    if _other_whitespace(data):
        # pandas splits fields at spaces and tabs only, the plain reader (str.split)
        # at these too: one reading of the file, whether pandas is installed or not
        return _scan_trec_file(data, name, kind)
    try:
        import pandas as pd
    except ImportError:
        return _scan_trec_file(data, name, kind)
    table = _read_trec_file_pandas(data, name, kind, pd)
    if table is not None:
        return table
    return _scan_trec_file(data, name, kind)  # comments, extra fields, or the first error


# --------------------------------------------------------------------------- dicts


def _dict_table(nested: Any, kind: str, argument: str) -> TrecTable:
    """Validate a nested ``{query: {docno: value}}`` dict and flatten it."""
    if not isinstance(nested, Mapping):
        raise TypeError(
            f"{argument} must be a file path or a dict {{query: {{docno: value}}}}; "
            f"got {type(nested).__name__}."
        )
    query_names: list[str] = []
    counts: list[int] = []
    docs: list[str] = []
    values: list[np.ndarray] = []
    for query, ranking in nested.items():
        if not isinstance(query, str):
            raise TypeError(f"{argument}: query ids must be str; got {query!r}.")
        if not isinstance(ranking, Mapping):
            raise TypeError(
                f"{argument}[{query!r}] must be a dict {{docno: value}}; "
                f"got {type(ranking).__name__}."
            )
        names = list(ranking)
        bad = next((doc for doc in names if not isinstance(doc, str)), None)
        if bad is not None:
            raise TypeError(f"{argument}[{query!r}]: docnos must be str; got {bad!r}.")
        given = list(ranking.values())
        numbers = np.asarray(given)
        if len(numbers) and numbers.dtype.kind not in ("iu" if kind == "qrels" else "iuf"):
            position = _first_wrong_type(given, kind)
            expected = "an int label" if kind == "qrels" else "a number"
            raise TypeError(
                f"{argument}[{query!r}][{names[position]!r}] must be {expected}; "
                f"got {given[position]!r}."
            )
        if kind == "run" and len(numbers):
            floats = numbers.astype(np.float64)
            wrong = np.flatnonzero(~(np.abs(floats) <= _FLOAT32_MAX))
            if len(wrong):
                raise ValueError(
                    f"{argument}[{query!r}][{names[wrong[0]]!r}] must be a finite score (at "
                    f"most {_FLOAT32_MAX:.4g} in absolute value); got {given[wrong[0]]!r}."
                )
        query_names.append(query)
        counts.append(len(names))
        docs.extend(names)
        values.append(numbers)
    dtype = np.int64 if kind == "qrels" else np.float64
    return TrecTable(
        np.repeat(_text_objects(query_names), counts),
        _text_objects(docs),
        np.concatenate(values).astype(dtype) if values else np.array([], dtype=dtype),
        f"the {argument} dict",
    )


def _first_wrong_type(values: list, kind: str) -> int:
    for position, value in enumerate(values):
        is_bool = isinstance(value, (bool, np.bool_))
        if kind == "qrels":
            ok = isinstance(value, (int, np.integer)) and not is_bool
        else:
            ok = isinstance(value, (int, float, np.integer, np.floating)) and not is_bool
        if not ok:
            return position
    return 0  # pragma: no cover - only called when a value has the wrong type


def trec_table(source: Any, kind: str, argument: str, check_pairs: bool = True) -> TrecTable:
    """A qrels or run from a file path, a binary file object or a nested dict
    (``check_pairs``: as :func:`read_trec_file`'s)."""
    if is_path(source) or hasattr(source, "read"):
        return read_trec_file(source, kind, check_pairs)
    return _dict_table(source, kind, argument)


def check_pairs_now(table: TrecTable, source: Any, kind: str) -> None:
    """Make the check a table was read without (:func:`read_trec_file`'s
    ``check_pairs=False``): a pair given twice is refused as the reader refuses it,
    naming the file and the line."""
    if table.pairs_unchecked and _pair_twice(table.query, table.doc):
        read_trec_file(source, kind)  # raises, naming the line
        raise AssertionError(f"{table.source}: a pair given twice that no reader finds")


def to_nested_dict(table: TrecTable) -> dict[str, dict[str, Any]]:
    """``{query: {docno: value}}``, queries sorted, docnos in their input order."""
    if len(table.query) == 0:
        return {}
    if table.query.ndim == 1:
        codes, queries = factorize_text_ids(table.query)
        docs = table.doc
    else:  # the NumPy reader's text matrices
        codes, query_texts, _ = _text_codes([table.query])
        queries = decoded_texts(query_texts)
        docs = _as_objects(table.doc)
    order = np.argsort(codes, kind="stable")
    starts = np.searchsorted(codes[order], np.arange(len(queries)))
    ends = np.append(starts[1:], len(order))
    docs = docs[order].tolist()
    values = table.value[order].tolist()
    return {
        query: dict(zip(docs[start:end], values[start:end], strict=True))
        for query, start, end in zip(queries.tolist(), starts, ends, strict=True)
    }


# --------------------------------------------------------------------------- join


def _joint_codes(
    first: np.ndarray, second: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Codes in text order of the ids of two tables (stacked), the distinct ids, and
    the permutation that sorts the ids (None when not at hand).

    Text matrices (the fast reader's) are factorised as bytes (the distinct ids are a
    text matrix then: :func:`_decoded` makes them str); ids of dicts or of the other
    readers as str objects.
    """
    if all(ids.ndim == 2 or len(ids) == 0 for ids in (first, second)):
        matrices = [ids if ids.ndim == 2 else np.empty((0, 1), np.uint8)
                    for ids in (first, second)]
        # stacked, every id is padded to the longest of both files: bounded as each
        # file's matrix is (one long id in a small qrels would pad every run line)
        width = max(matrix.shape[1] for matrix in matrices)
        if width * sum(len(matrix) for matrix in matrices) <= 4 * sum(
            matrix.size for matrix in matrices
        ) + 4096:
            return _text_codes(matrices)
    codes, ids = factorize_text_ids(np.concatenate([_as_objects(first), _as_objects(second)]))
    return codes, ids, None


@dataclass(frozen=True)
class JoinedRows:
    y_true: np.ndarray
    y_score: np.ndarray
    group: np.ndarray
    doc_id: Any  # TextRows, or a read-only object array of str (ids of dicts)
    n_dropped_queries: int
    judged: np.ndarray
    n_qrels_queries: int
    n_run_queries: int
    n_answered_queries: int
    # each row's position in the run as read (file line order; -1: not returned)
    run_position: np.ndarray
    # each row's docno code in text order (trec_eval's strcmp)
    doc_code: np.ndarray


class _PairGivenTwice(Exception):
    """A (query, docno) pair is in one file twice (:func:`join_trec_sources` lets
    the reader name its line)."""


def _pairs(
    order: np.ndarray, query_code: np.ndarray, doc_code: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For rows in ``order`` (by query, then docno): whether each row's (query,
    docno) equals the next row's, whether it equals a neighbour's, and the query
    codes in that order.

    A pair of equal neighbours is then a qrels row and a run row: the join refuses
    a pair given twice in one file first.
    """
    ordered_query = query_code[order]
    ordered_doc = doc_code[order]
    equal_next = np.zeros(len(order), dtype=bool)
    equal_next[:-1] = ordered_doc[1:] == ordered_doc[:-1]
    del ordered_doc
    equal_next[:-1] &= ordered_query[1:] == ordered_query[:-1]
    paired = equal_next.copy()
    paired[1:] |= equal_next[:-1]
    return equal_next, paired, ordered_query


def join_trec(
    tables: list[TrecTable], *, answered_only: bool, single_precision: bool
) -> JoinedRows:
    """Flat rows of qrels + run (``tables``, in that order), sorted by query, then
    docno descending.

    Run rows take their qrels label (0 when unjudged; a negative grade is kept); qrels rows missing
    from the run get score ``-inf``. Queries only in the run are dropped and counted;
    queries only in the qrels (the run did not answer them) are kept, all rows
    ``-inf``, unless ``answered_only``.

    The list is emptied: once the ids are coded, the tables' id matrices (most of
    their memory) are dropped before the rows are built, unless the caller holds
    the tables elsewhere.
    """
    qrels, run = tables
    tables.clear()
    n_qrels = len(qrels.query)
    query_code, query_ids, _ = _joint_codes(qrels.query, run.query)
    qrels_query, run_query = query_code[:n_qrels], query_code[n_qrels:]
    in_qrels = np.zeros(len(query_ids), dtype=bool)
    in_qrels[qrels_query] = True
    in_run = np.zeros(len(query_ids), dtype=bool)
    in_run[run_query] = True
    n_dropped = int(np.count_nonzero(in_run & ~in_qrels))
    kept = in_qrels & (in_run | (not answered_only))

    doc_code, doc_ids, by_doc = _joint_codes(qrels.doc, run.doc)
    labels, run_scores = qrels.value, run.value
    del qrels, run
    if query_ids.ndim == 2:  # a few distinct ids: str objects now, shared by the rows
        query_ids = decoded_texts(query_ids)
    # every row sorted by query, then docno descending: the order of the rows
    # returned, in which a run row and the qrels row of the same pair are neighbours
    n_docs = max(len(doc_ids), 1)
    if by_doc is not None and len(query_ids) <= 2**16:
        # the rows by docno descending, then by query: a stable radix sort of 16 bits
        by_doc = by_doc[::-1]
        order = by_doc[np.argsort(np.take(query_code.astype(np.uint16), by_doc), kind="stable")]
    else:
        order = np.argsort(query_code.astype(np.int64) * n_docs + (n_docs - 1 - doc_code))
    del by_doc
    from_run = order >= n_qrels
    equal_next, paired, ordered_query = _pairs(order, query_code, doc_code)
    if bool(np.any(equal_next[:-1] & (from_run[:-1] == from_run[1:]))) or bool(
        np.any(equal_next[:-1] & equal_next[1:])
    ):  # two equal pairs from one file (or three in a row: one file has two)
        raise _PairGivenTwice
    # a run row takes the label of its qrels neighbour (0 when the document is not
    # judged); that qrels row then goes, the other qrels rows get the score -inf
    kept_rows = np.flatnonzero(kept[ordered_query] & (from_run | ~paired))
    del ordered_query
    rows = order[kept_rows]
    rows_run = from_run[kept_rows]
    label = np.zeros(len(rows), dtype=np.float64)
    label[~rows_run] = labels[rows[~rows_run]]
    judged_run = rows_run & paired[kept_rows]
    judged = ~rows_run | judged_run
    with_label = np.flatnonzero(judged_run)
    at = kept_rows[with_label]
    label[with_label] = labels[order[np.where(equal_next[at], at + 1, at - 1)]]
    scores = np.full(len(rows), -np.inf)
    run_position = np.where(rows_run, rows - n_qrels, -1)
    scores[rows_run] = run_scores[run_position[rows_run]]
    if single_precision:
        scores[rows_run] = scores[rows_run].astype(np.float32).astype(np.float64)
    row_doc_code = doc_code[rows]
    if doc_ids.ndim == 2:  # docnos stay bytes until something reads them as str
        row_doc_ids: Any = TextRows(doc_ids, row_doc_code)
    else:
        row_doc_ids = doc_ids[row_doc_code]
        row_doc_ids.flags.writeable = False
    return JoinedRows(
        label,
        scores,
        query_ids[query_code[rows]],
        row_doc_ids,
        n_dropped,
        judged,  # a run document missing from the qrels was never judged
        int(np.count_nonzero(in_qrels)),
        int(np.count_nonzero(in_run)),
        int(np.count_nonzero(in_qrels & in_run)),
        run_position,
        row_doc_code,
    )


# --------------------------------------------------------------------------- public


def read_trec_qrels(path_or_dict: Any) -> dict[str, dict[str, int]]:
    """Read TREC qrels into the nested dict ``{query: {docno: label}}``.

    Parameters
    ----------
    path_or_dict : str, os.PathLike or dict
        A qrels file, one ``query iteration docno label`` line per judgement (fields
        separated by whitespace, the label an integer, blank lines skipped), or a
        nested dict, which is validated and copied.

    Returns
    -------
    qrels : dict of str to dict of str to int
        Queries in sorted order, documents in file order; the format of
        ``pytrec_eval.parse_qrel`` and ``ranx.Qrels.to_dict``.

    Raises
    ------
    ValueError
        A line without exactly 4 fields, a label that is not an integer, or a document
        judged twice in one query; the message names the file and the line.

    Examples
    --------
    >>> from sklearn_rank_metrics import read_trec_qrels
    >>> read_trec_qrels({"q1": {"d1": 2, "d2": 0}})
    {'q1': {'d1': 2, 'd2': 0}}
    """
    return to_nested_dict(trec_table(path_or_dict, "qrels", "qrels"))


def read_trec_run(path_or_dict: Any) -> dict[str, dict[str, float]]:
    """Read a TREC run into the nested dict ``{query: {docno: score}}``.

    Parameters
    ----------
    path_or_dict : str, os.PathLike or dict
        A run file, one ``query Q0 docno rank score tag`` line per retrieved document
        (6 fields; the rank and tag are ignored, as trec_eval ignores them), or a
        nested dict, which is validated and copied.

    Returns
    -------
    run : dict of str to dict of str to float
        Queries in sorted order, documents in file order, scores as written (double
        precision); the format of ``pytrec_eval.parse_run`` and ``ranx.Run.to_dict``.

    Raises
    ------
    ValueError
        A line without exactly 6 fields, a score that is not a finite number or is
        larger than about 3.4e38 in absolute value (float32's limit: trec_eval 9 and
        pytrec_eval read scores in single precision, so such a score would be infinite
        there; trec_eval 10 reads double precision, but the reader applies one rule
        to every convention), or a document listed twice in one query; the message
        names the file and line.

    Examples
    --------
    >>> from sklearn_rank_metrics import read_trec_run
    >>> read_trec_run({"q1": {"d1": 0.5, "d2": 1.5}})
    {'q1': {'d1': 0.5, 'd2': 1.5}}
    """
    return to_nested_dict(trec_table(path_or_dict, "run", "run"))


@dataclass(frozen=True)
class TrecJoin:
    """:func:`read_trec`'s rows and what the command line reports beside them."""

    data: RankingData
    run_id: str | None
    n_qrels_queries: int
    source: str  # the qrels and the run, as named in messages


def join_trec_sources(
    qrels: Any,
    run: Any,
    *,
    answered_only: bool,
    single_precision: bool,
    reader: str = "read_trec",
    run_name: str | None = None,
) -> TrecJoin:
    """Read and join one qrels and one run (the body of :func:`read_trec`).

    ``reader`` names the public function in the messages (:func:`align_trec_runs`
    and the command line join each run with this too), ``run_name`` the run among
    several (None: the run's source alone names it).
    """
    # pairs given twice are found by the join's sort, not by a sort of each file;
    # an error the files have is raised as reading them one after the other would
    qrels_table = trec_table(qrels, "qrels", "qrels", check_pairs=False)
    try:
        run_table = trec_table(run, "run", "run", check_pairs=False)
    except Exception:  # any error of the run comes after the qrels' own
        check_pairs_now(qrels_table, qrels, "qrels")
        raise
    source = f"{qrels_table.source} + {run_table.source}"
    shown = run_table.source if run_name is None else f"{run_name!r} ({run_table.source})"
    if not len(run_table.query):
        check_pairs_now(qrels_table, qrels, "qrels")
        # an empty results file is a broken pipeline far more often than a system that
        # answered nothing; trec_eval refuses it too ("Cannot read results file")
        raise ValueError(
            f"{reader}: the run {shown} has no lines, so there is nothing to "
            "evaluate (trec_eval refuses an empty results file too)."
        )
    tag, qrels_source = run_table.tag, qrels_table.source
    unchecked = [  # files read without the check for pairs given twice
        (table_source, kind)
        for table, table_source, kind in ((qrels_table, qrels, "qrels"), (run_table, run, "run"))
        if table.pairs_unchecked
    ]
    tables = [qrels_table, run_table]
    del qrels_table, run_table  # join_trec drops the id matrices once they are coded
    try:
        rows = join_trec(tables, answered_only=answered_only, single_precision=single_precision)
    except _PairGivenTwice:
        for table_source, kind in unchecked:
            read_trec_file(table_source, kind)  # the file with the pair names its line
        raise AssertionError("a pair given twice that no reader finds") from None
    # the rows carry their docnos' codes in text order (trec_eval's tie order): an id
    # changed in place would keep a stale code, so the ids are read-only (a copy, or
    # dataclasses.replace(data, doc_id=...), gives rows ordered by the new ids); they
    # are made str on first read (TextRows)
    # a run that shares no query with the qrels is a mistake (query ids written
    # differently, the wrong file), never a run scoring 0
    if len(rows.y_true) == 0 or rows.n_answered_queries == 0:
        raise ValueError(
            f"{reader}: no query of the run {shown} "
            f"({counted(rows.n_run_queries, 'query')}) is in "
            f"{qrels_source} ({counted(rows.n_qrels_queries, 'query')}), "
            "so there is nothing to evaluate; check that both write the query ids the "
            "same way."
        )
    data = RankingData(
        rows.y_true,
        rows.y_score,
        rows.group,
        doc_id=rows.doc_id,
        n_dropped_queries=rows.n_dropped_queries,
        source=source,
        judged=rows.judged,
        n_answered_queries=rows.n_answered_queries,
        # TREC files mean trec_eval's numbers, through every entry point (the command
        # line's default convention with --qrels is the same); scores rounded to float32
        # mean trec_eval 9's, pytrec_eval's
        convention="pytrec_eval" if single_precision else "trec_eval",
        run_position=rows.run_position,
        _doc_text_codes=(rows.doc_id, rows.doc_code),
    )
    return TrecJoin(data, tag, rows.n_qrels_queries, source)


@validate_params({"answered_only": [BOOLEAN], "single_precision": [BOOLEAN]})
def read_trec(
    qrels: Any,
    run: Any,
    *,
    answered_only: bool = False,
    single_precision: bool = False,
) -> RankingData:
    """Join TREC qrels and a run into flat rows that reproduce trec_eval.

    Every judged or retrieved document of a query becomes one row:

    * a run document takes its qrels label, or 0 when it is not in the qrels; a
      negative label (TREC Web's -2 for spam, say) is kept as it is: every metric
      reads it as not relevant, the presets (``convention="trec_eval"`` ...) as gain
      0, and bpref (with trec_eval's ``unj`` and ``rbp_resid``) as in the pool but
      not judged, as trec_eval reads it; ir_measures' Judged@k counts it judged.
      With ``convention="none"`` the graded metrics (NDCG, DCG, ERR) refuse a
      negative label: name the convention of the tool the numbers should match;
    * a qrels document missing from the run gets the score ``-inf`` (judged, not
      returned: it counts toward recall, the AP denominator and the ideal DCG);
    * a query only in the run is dropped and counted in ``n_dropped_queries``, as
      trec_eval ignores it;
    * a query only in the qrels (the run returned nothing for it) is kept, as
      ``trec_eval -c`` keeps it: its rows are all ``-inf`` and every metric scores it
      0. ``answered_only=True`` drops it instead (trec_eval without ``-c``).

    The queries are those of the qrels by default because averaging over the
    answered queries only rewards a system for skipping hard topics, and two runs
    that answer different queries would be averaged over different query sets; TREC
    reports ``trec_eval -c``. The command line (``rank-metrics evaluate --qrels``),
    :func:`align_trec_runs` and this function share this default.

    Parameters
    ----------
    qrels : str, os.PathLike, binary file object or dict
        A qrels file (a path, or an open binary file such as ``sys.stdin.buffer``) or
        ``{query: {docno: label}}`` (see :func:`read_trec_qrels`).
    run : str, os.PathLike, binary file object or dict
        A run file (path or open binary file) or ``{query: {docno: score}}`` (see
        :func:`read_trec_run`).
    answered_only : bool, default=False
        Keep only the queries the run answers (trec_eval without ``-c``, and
        pytrec_eval): the mean is then over those queries.
    single_precision : bool, default=False
        Round the scores to single precision, so that scores equal in float32 tie, as
        in trec_eval 9 (what pytrec_eval builds): the rows then carry
        ``convention="pytrec_eval"`` (trec_eval 9's numbers, its interpolated
        precision cutoff included), not ``"trec_eval"``. The default keeps the scores
        as written: trec_eval 10 reads them in double precision, and
        ``convention="pytrec_eval"`` (or ``"ir_measures"``) rounds them itself.

    Returns
    -------
    data : RankingData
        ``y_true`` (labels), ``y_score``, ``group`` (query ids, str), ``doc_id``
        (docnos, str), ``judged``, ``n_dropped_queries``, ``n_answered_queries``
        (queries the run returned a document for; the repr shows it when some query
        of the rows was not answered), ``source`` and ``convention="trec_eval"``:
        passed whole, the rows give trec_eval's numbers in every entry point (the
        metric functions, :func:`evaluate`, :func:`ranking_report`, :func:`compare`,
        the displays), the numbers ``rank-metrics evaluate --qrels`` prints, when the
        call names no convention; ``convention=`` names another (``"none"``: the
        package's defaults, ties averaged), and a setting the call gives (``ties=``,
        ...) wins over trec_eval's. Unpacking the rows (``*data``) is refused, as it
        would drop that convention. Rows are sorted by query, then docno descending:
        trec_eval breaks score ties by docno descending, so ``ties="input"`` on the
        arrays reproduces trec_eval's ranking too.

    Raises
    ------
    ValueError
        A malformed file (naming the file and line), or no query left to evaluate
        (a non-empty run that answers none of the qrels' queries).

    Examples
    --------
    >>> from sklearn_rank_metrics import mean_average_precision_score, read_trec
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 1}, "q2": {"d9": 1}}
    >>> run = {"q1": {"d1": 0.75, "d2": 0.5, "d4": 0.5}, "q3": {"d1": 1.0}}
    >>> data = read_trec(qrels, run)
    >>> data
    RankingData(n_rows=5, n_queries=2, n_answered_queries=1, n_dropped_queries=1,
                source='the qrels dict + the run dict', convention='trec_eval')
    >>> data.doc_id.tolist(), data.y_true.tolist(), data.y_score.tolist()
    (['d4', 'd3', 'd2', 'd1', 'd9'], [0.0, 1.0, 0.0, 1.0, 1.0], [0.5, -inf, 0.5, 0.75, -inf])
    >>> mean_average_precision_score(data)  # trec_eval: q1 (1/1 + 0) / 2; q2 0
    0.25
    >>> mean_average_precision_score(read_trec(qrels, run, answered_only=True))  # q1 only
    0.5

    The tie of d2 and d4 (both 0.5) is broken as trec_eval breaks it (docno
    descending: d4, a non-relevant document, first); the package's default averages
    over both orders:

    >>> from sklearn_rank_metrics import mean_reciprocal_rank_score
    >>> qrels, run = {"q1": {"d2": 1}}, {"q1": {"d2": 0.5, "d4": 0.5}}
    >>> mean_reciprocal_rank_score(read_trec(qrels, run))  # trec_eval: d4, d2
    0.5
    >>> mean_reciprocal_rank_score(read_trec(qrels, run), convention="none")  # (1 + 1/2) / 2
    0.75
    """
    return join_trec_sources(
        qrels, run, answered_only=answered_only, single_precision=single_precision
    ).data
