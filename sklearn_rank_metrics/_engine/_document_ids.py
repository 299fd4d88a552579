"""Document ids as a tool's tie order: :class:`DocumentIds`, checked once per call.

trec_eval reads every docno as a string and breaks tied scores with ``strcmp``, so
``"10"`` sorts before ``"9"``; ids given as integers are compared the same way here
(as their decimal text), never as numbers. cwl_eval (ir_measures' RBP) keeps the
order in which the run lists its documents instead: a reader's rows carry that
order beside their ids.
"""

from __future__ import annotations

from itertools import repeat
from typing import Any

import numpy as np

from ._caller import caller_name
from ._inputs import factorize_text_ids, only_str, plain_array
from ._text_rows import TextRows, ids_as_given

ASCENDING = "ascending"
DESCENDING = "descending"
RUN_ORDER = "run"  # the order of the run as read (cwl_eval's tie order)


class DocumentIds:
    """Checked document ids of the rows, with the tie orders a tool reads from them.

    ``ids``: one str or int id per row. ``run_position`` (optional): the position of
    each row in the run it was read from (a run file's line order; ``-1`` for a row
    the run did not return), the tie order of a tool that keeps the run's own order
    (cwl_eval, which ir_measures calls for RBP); for several runs on the same rows, a
    dict ``{run name: positions}``, one of which :meth:`for_run` picks.
    ``text_codes`` (optional): the ids' codes in text order, one integer per row,
    from a reader that has them already (the TREC readers factorise the docnos in
    text order to join qrels and run): equal ids have equal codes and a smaller
    code is a smaller id by code point (trec_eval's ``strcmp`` on UTF-8). Given,
    no text order is computed; the reader vouches for them (only their shape and
    type are checked).

    Passed as ``doc_id=`` it is an array-like of the ids (``np.asarray`` gives them),
    so that a :class:`RankingData` spread out hands its run order along with its ids.
    Only the rows of tied scores need the ids' text order (:meth:`tie_keys`): it is
    computed on first use for the rows asked, and kept, so that the readings of one
    call (and the runs of the same rows) share it.
    """

    __slots__ = ("_at", "_ids", "_position", "_text")

    def __init__(
        self,
        ids: np.ndarray | TextRows,
        run_position: Any = None,
        text_codes: Any = None,
        *,
        shared: _TextCodes | None = None,
        at: np.ndarray | None = None,
    ) -> None:
        # the ids and run positions as given, and, once the rows moved (moved),
        # which of those rows each row is: the ids are never moved themselves (a
        # gather of Python objects, which costs as much as a sort of the rows), only
        # read where asked
        self._ids = ids
        self._position = run_position
        self._at = at
        if shared is None:
            shared = _TextCodes(None if text_codes is None else _given_codes(text_codes, ids))
        # the codes in text order, shared by the runs of the same rows (for_run)
        self._text = shared

    @property
    def ids(self) -> np.ndarray:
        """The id of every row."""
        ids = ids_as_given(self._ids)  # a reader's TextRows: made str now
        return ids if self._at is None else ids[self._at]

    def without_run_order(self) -> DocumentIds:
        """The same ids without the rows' run order (their codes in text order
        shared; a reader's ids still held as text)."""
        return DocumentIds(self._ids, None, shared=self._text, at=self._at)

    @property
    def held_as_text(self) -> bool:
        """Whether the ids are a reader's :class:`TextRows`, not yet made str."""
        return isinstance(self._ids, TextRows) and self._ids.made() is None

    @property
    def run_position(self) -> Any:
        """The position of every row in its run (a dict of them for several runs), or
        None."""
        position = self._position
        if self._at is None or not isinstance(position, np.ndarray):
            return position
        return position[self._at]

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        ids = self.ids
        return ids if dtype is None else ids.astype(dtype)

    def __len__(self) -> int:
        return len(self._ids)

    @property
    def shape(self) -> tuple[int, ...]:
        return self._ids.shape

    @property
    def text_codes(self) -> np.ndarray | None:
        """The codes in text order of every row, when known for every row (given, or
        computed for all of them), else None."""
        text = self._text
        if text.codes is None or text.known is not None:
            return None
        return text.codes if self._at is None else text.codes[self._at]

    def for_run(self, name: Any) -> DocumentIds:
        """The ids with the run order of run ``name`` (several runs on the same rows);
        the codes in text order, once computed, are shared."""
        if not isinstance(self._position, dict):
            return self
        if len(self._position) > 1:
            self._text.every_row = True  # each run ties other rows
        return DocumentIds(
            self._ids, self._position.get(name), shared=self._text, at=self._at
        )

    def has_order(self, direction: str | None) -> bool:
        """Whether these ids give the tie order ``direction`` (the run's order needs
        the rows' positions in the run)."""
        if direction is None:
            return False
        return direction != RUN_ORDER or isinstance(self._position, np.ndarray)

    def tie_keys(
        self, direction: str, rows: np.ndarray, wanted: np.ndarray | None = None
    ) -> np.ndarray:
        """Integer keys of the rows ``rows`` (indexes) in the tie order ``direction``.

        Ordered by key, then by row (a document id given twice keeps its input
        order), the rows are in the order of their ids ascending or descending (as
        text, by code point: trec_eval's ``strcmp``), or in the run's order (rows the
        run did not return, ``-1``, last). ``wanted`` (a boolean mask over all rows,
        a superset of ``rows``): on first use the text order is computed for these
        rows at once, so that the other readings of the call (whose tied rows they
        hold) find it.
        """
        if self._at is not None:  # the rows as given
            rows = self._at[rows]
            if wanted is not None:
                given = np.zeros(len(wanted), dtype=bool)
                given[self._at] = wanted
                wanted = given
        if direction == RUN_ORDER:
            position = self._position[rows]
            return np.where(position < 0, len(self._ids), position)
        codes = self._text.codes_of(self._ids, rows, wanted)
        return codes if direction == ASCENDING else -codes

    def moved(self, order: np.ndarray) -> DocumentIds:
        """The ids of the rows in ``order`` (a permutation of the rows): nothing is
        moved until read; their codes in text order, once computed, are shared."""
        at = order if self._at is None else self._at[order]
        return DocumentIds(self._ids, self._position, shared=self._text, at=at)


class _TextCodes:
    """The ids' codes in text order where they are known: ``codes`` (one per row,
    None before the first use) and ``known`` (the rows whose code is known; None:
    every row). Computed at most twice per call: for the rows a first reading asks
    (its tied rows), then, only if another ranking of the same rows ties rows
    outside them, for every row; ids of several runs (:meth:`DocumentIds.for_run`)
    are computed for every row at once."""

    __slots__ = ("codes", "every_row", "known")

    def __init__(self, codes: np.ndarray | None) -> None:
        self.codes = codes
        self.known: np.ndarray | None = None
        # ids that several runs rank: computed for every row on first use
        self.every_row = False

    def codes_of(
        self, held: np.ndarray | TextRows, rows: np.ndarray, wanted: np.ndarray | None
    ) -> np.ndarray:
        """The codes of ``rows``: on first use computed for ``wanted`` (every row when
        ``wanted`` is None); where a later use finds some missing (another ranking of
        the same rows, tied elsewhere), computed again for every row."""
        codes, known = self.codes, self.known
        if codes is not None and (known is None or known[rows].all()):
            return codes[rows]
        ids = ids_as_given(held)  # str made only when the codes must be computed
        if codes is not None or wanted is None or self.every_row or wanted.all():
            self.codes, self.known = _text_codes(ids), None
        else:
            at = np.flatnonzero(wanted)
            self.codes = np.zeros(len(ids), dtype=np.intp)
            self.codes[at] = _text_codes(ids[at])
            self.known = wanted
        return self.codes[rows]


def _given_codes(codes: Any, ids: np.ndarray | TextRows) -> np.ndarray:
    """A reader's codes in text order, checked for shape and type (the reader vouches
    for their order)."""
    codes = np.asarray(codes)
    if codes.shape != ids.shape or codes.dtype.kind not in "iu":
        raise ValueError(
            f"text_codes must hold one integer per document id ({ids.shape}); got "
            f"{codes.dtype} of shape {codes.shape}."
        )
    return codes.astype(np.intp, copy=False)


def _text_codes(ids: np.ndarray) -> np.ndarray:
    """The ids' codes in text order (by code point), whatever their type: equal ids
    have equal codes, a smaller id (as text) a smaller code (not always the next
    one: ASCII ids may be coded by their bytes, without a sort)."""
    if ids.dtype.kind in "iu":
        return _integer_text_codes(ids)
    if ids.dtype.kind == "S":  # bytes, compared as bytes
        return _codes_of_sortable(ids)
    codes = _ascii_text_codes(ids)
    if codes is not None:
        return codes
    text = _as_string_dtype(ids)
    if text is not None:
        return _codes_of_sortable(text)
    if ids.dtype.kind == "O":
        # the ids as text objects: a fixed-width copy would take (rows) x (longest id)
        # x 4 bytes, gigabytes for one very long id
        return factorize_text_ids(np.frompyfunc(str, 1, 1)(ids).astype(object))[0]
    return np.unique(ids.astype(str), return_inverse=True)[1].reshape(-1)


def _as_string_dtype(ids: np.ndarray) -> np.ndarray | None:
    """The ids as NumPy's variable-width ``StringDType`` (NumPy 2: UTF-8 inside,
    ordered by code point), or None where NumPy has none, cannot hold them (a lone
    surrogate has no UTF-8) or would order them wrongly (an id holding a NUL)."""
    string_dtype = getattr(getattr(np, "dtypes", None), "StringDType", None)
    if string_dtype is None:  # NumPy 1
        return None
    source = ids if ids.dtype.kind in "UO" else ids.astype(str)
    if "\x00" in "".join(map(str, source.tolist())):
        # NumPy 2.4's StringDType compares two texts only up to a NUL they share
        # ("d\x00~" before "d\x00a"): Python's order instead (the caller's fallback)
        return None
    try:
        return source.astype(string_dtype())
    except (UnicodeEncodeError, ValueError, TypeError):
        return None


def _ascii_text_codes(ids: np.ndarray) -> np.ndarray | None:
    """Codes of ``str`` ids that are all ASCII, from their bytes (byte order is code
    point order): the bytes that vary among the ids, each less its smallest value,
    packed into one integer where their ranges fit, which is then the code itself
    (no sort: the tie order sorts the tied rows once, by these codes), else read as
    big-endian 64-bit words, one sort of integers (several times faster than of
    strings) giving dense codes. None for ids that are not all ASCII ``str`` without
    a NUL, or where one long id would make a fixed-width copy mostly padding."""
    if ids.dtype.kind != "O" or not len(ids):
        return None
    data = _ascii_bytes(ids)
    if data is None:
        return None
    low, high = _column_ranges(data)
    # bytes equal in every id order nothing (a shared prefix, a fixed separator)
    varying = np.flatnonzero(low != high)
    if not len(varying):
        return np.zeros(len(ids), dtype=np.intp)
    bits = [int(span).bit_length() for span in high[varying] - low[varying]]
    # codes below 2**62 / rows: the tie order's one key (block x code range) fits
    if sum(bits) + len(ids).bit_length() <= 62:
        return _packed_key(data[:, varying] - low[varying], bits).view(np.intp)
    if sum(bits) <= 64:
        keys = [_packed_key(data[:, varying] - low[varying], bits)]
    else:
        words = -(-len(varying) // 8)
        padded = np.zeros((len(ids), 8 * words), dtype=np.uint8)
        padded[:, : len(varying)] = data[:, varying]
        columns = padded.view(">u8").astype(np.uint64)
        keys = [columns[:, w] for w in range(words)]
    # equal keys are equal ids, whose order the codes do not keep: any sort will do
    order = np.argsort(keys[0]) if len(keys) == 1 else np.lexsort(keys[::-1])
    differs = np.zeros(len(ids) - 1, dtype=bool)
    for key in keys:
        ordered = key[order]
        differs |= ordered[1:] != ordered[:-1]
    return _dense_codes(order, differs)


def _ascii_bytes(ids: np.ndarray) -> np.ndarray | None:
    """The bytes of ``str`` ids that are all ASCII and hold no NUL, one row per id,
    zero-padded to the longest (a shorter id, a prefix of a longer one, comes first,
    as with ``strcmp``), at least one zero column when all are as long. None for other
    ids (or where one long id would make the rows mostly padding).

    One pass over the objects, in C (joining them): the rows of a call's tied rows
    are scattered over the memory of all its ids, so each pass over them costs a
    cache miss per id; what follows reads NumPy arrays only.
    """
    try:
        # (from a list: joining the array itself iterates it item by item, slower)
        joined = "\x00".join(ids.tolist())  # TypeError: an id that is not a str
    except TypeError:
        return None
    if not joined.isascii():  # known to CPython without a pass
        return None
    raw = joined.encode("ascii")
    n_ids = len(ids)
    if raw.count(0) != n_ids - 1:  # an id holds a NUL
        return None
    if (len(raw) + 1) % n_ids == 0:  # maybe all as long (docnos often are)
        flat = np.zeros(len(raw) + 1, dtype=np.uint8)
        flat[:-1] = np.frombuffer(raw, dtype=np.uint8)
        rows = flat.reshape(n_ids, -1)
        if not rows[:, -1].any():  # every NUL ends a row: every id as long
            return rows
    text = np.frombuffer(raw, dtype=np.uint8)
    starts = np.zeros(n_ids, dtype=np.intp)
    starts[1:] = np.flatnonzero(text == 0) + 1
    lengths = np.diff(starts, append=len(text) + 1) - 1
    width = int(lengths.max())
    if width * n_ids > 4 * (len(text) + 64):
        return None
    matrix = np.zeros((n_ids, width), dtype=np.uint8)
    last = max(len(text) - 1, 0)
    for column in range(width):  # column by column: (rows x width) elements in all
        at = starts + column
        np.minimum(at, last, out=at)
        byte = text[at]
        byte[lengths <= column] = 0
        matrix[:, column] = byte
    return matrix


def _column_ranges(data: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The smallest and largest byte of each column of ``data`` (rows x width,
    uint8): reduced over blocks of many rows at once, a reduction over the rows of a
    narrow matrix being one short loop per row."""
    n_rows, width = data.shape
    rows = 256  # rows folded into one long row
    whole = n_rows - n_rows % rows
    low, high = data[whole:].min(axis=0, initial=255), data[whole:].max(axis=0, initial=0)
    if whole:
        block = data[:whole].reshape(-1, rows * width)
        low = np.minimum(low, block.min(axis=0).reshape(rows, width).min(axis=0))
        high = np.maximum(high, block.max(axis=0).reshape(rows, width).max(axis=0))
    return low, high


def _packed_key(columns: np.ndarray, bits: list[int]) -> np.ndarray:
    """One unsigned 64-bit integer per row of ``columns`` (rows x bytes, each byte
    below ``2 ** bits`` of its column), the bytes side by side, the first highest:
    ordered as the rows' bytes are."""
    key = np.zeros(len(columns), dtype=np.uint64)
    byte = np.empty(len(columns), dtype=np.uint64)
    for column, width in enumerate(bits):
        key <<= np.uint64(width)
        np.copyto(byte, columns[:, column])
        key |= byte
    return key


def _codes_of_sortable(values: np.ndarray) -> np.ndarray:
    """Dense codes of ``values`` in their sort order (one sort of the rows)."""
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    return _dense_codes(order, ordered[1:] != ordered[:-1])


def _dense_codes(order: np.ndarray, differs: np.ndarray) -> np.ndarray:
    """Codes from the order of the rows and whether each sorted row differs from the
    previous one."""
    codes = np.empty(len(order), dtype=np.intp)
    if len(order):
        sorted_codes = np.zeros(len(order), dtype=np.intp)
        np.cumsum(differs, out=sorted_codes[1:])
        codes[order] = sorted_codes
    return codes


_POWERS_OF_TEN = 10 ** np.arange(20, dtype=np.uint64)


def _integer_text_codes(ids: np.ndarray) -> np.ndarray:
    """Codes of integer ids in the order of their decimal text, without the text.

    Text order puts every negative id (``"-"``) before every other, and orders the
    digits of the magnitude left-aligned, a shorter one first where one is a prefix
    of the other (``"1" < "10" < "100" < "11" < "9"``): the magnitude scaled to 19
    digits, then its digit count. Magnitudes of 20 digits (unsigned ids from 10**19)
    go through the text.
    """
    negative = ids < 0 if ids.dtype.kind == "i" else np.zeros(len(ids), dtype=bool)
    magnitude = ids.astype(np.uint64)
    if negative.any():
        # two's complement: 0 - (2**64 + x) wraps to -x, also for the most negative
        np.subtract(np.uint64(0), magnitude, out=magnitude, where=negative)
    if len(ids) and int(magnitude.max()) >= 10**19:
        return np.unique(ids.astype(str), return_inverse=True)[1].reshape(-1)
    digits = np.searchsorted(_POWERS_OF_TEN[1:], magnitude, side="right") + 1
    longest = int(digits.max()) if len(ids) else 1
    if longest <= 17:
        # one key: sign | magnitude left-aligned to the longest | digit count (< 32)
        key = magnitude * _POWERS_OF_TEN[longest - digits]
        key *= np.uint64(32)
        key += digits.astype(np.uint64)
        key |= (~negative).astype(np.uint64) << np.uint64(63)
        order = np.argsort(key)  # equal keys are equal ids: any sort will do
    else:
        aligned = magnitude * _POWERS_OF_TEN[19 - digits]
        order = np.lexsort((digits, aligned, ~negative))
    ordered = ids[order]
    return _dense_codes(order, ordered[1:] != ordered[:-1])


def check_doc_ids(doc_id: Any, y_true: Any) -> DocumentIds:
    """``doc_id`` checked: one str or int id per row of a flat ``y_true``.

    Every call that is given document ids checks them, whether or not a preset
    then sorts by them: a wrong length or type is an error, never ignored. A
    :class:`DocumentIds` (a reader's rows spread out) keeps its run order, and its
    codes in text order when the reader gave them (its ids, str it made, are then
    not scanned for their type again).
    """
    run_position = doc_id.run_position if isinstance(doc_id, DocumentIds) else None
    text_codes = doc_id.text_codes if isinstance(doc_id, DocumentIds) else None
    if isinstance(doc_id, DocumentIds) and text_codes is not None and doc_id.held_as_text:
        # a reader's ids with their codes: its str, made only if something reads them
        n_labels = len(plain_array(y_true))
        if len(doc_id) != n_labels:
            raise ValueError(
                f"The 'doc_id' parameter of {caller_name()} has {len(doc_id)} rows but "
                f"y_true has {n_labels}; give one document id per row."
            )
        return doc_id
    if isinstance(doc_id, DocumentIds):
        doc_id = doc_id.ids
    ids = plain_array(doc_id, "doc_id")  # a null is named here, as doc_id
    labels = plain_array(y_true)
    if ids.ndim != 1 or labels.ndim != 1:
        raise ValueError(
            f"The 'doc_id' parameter of {caller_name()} takes flat rows: one id per row of a "
            f"1-D y_true; got doc_id of shape {ids.shape} for y_true of "
            f"{labels.ndim} dimension(s)."
        )
    if len(ids) != len(labels):
        raise ValueError(
            f"The 'doc_id' parameter of {caller_name()} has {len(ids)} rows but y_true has "
            f"{len(labels)}; give one document id per row."
        )
    if ids.dtype.kind == "O":
        if text_codes is not None:  # a reader's ids, coded in text order: its str
            return DocumentIds(ids, run_position, text_codes)
        if only_str(ids):  # docnos: one pass in C where pandas is imported
            return DocumentIds(ids, run_position)
        kinds = np.fromiter(map(isinstance, ids, repeat((str, int))), bool, len(ids))
        if not kinds.all():
            bad = int(np.flatnonzero(~kinds)[0])
            raise TypeError(
                f"The 'doc_id' parameter of {caller_name()} must hold str or int ids; "
                f"got {ids[bad]!r} at row {bad}."
            )
    elif ids.dtype.kind not in "USbiu":
        raise TypeError(
            f"The 'doc_id' parameter of {caller_name()} must hold str or int ids (compared "
            f"as text, as trec_eval compares docnos); got dtype {ids.dtype}."
        )
    return DocumentIds(ids, run_position, text_codes)
