"""Ids held as text bytes until something reads them as str: :class:`TextRows`.

A million docnos as Python ``str`` objects take some 80 MiB and 0.15 s to make; as
the bytes of their distinct texts, a fraction of that. The TREC readers hold a
file's docnos so; a call that never reads them as ``str`` (``evaluate`` of a
reader's rows, whose tie order comes with the rows as codes in text order) never
makes the objects, and whatever reads ``doc_id`` gets the same object array it
always did, made on first read.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

_NEWLINE = ord("\n")
_DECODE_BYTES = 1 << 24  # bytes of texts decoded at a time, to bound the copies
_FIRST_READ = threading.Lock()  # threads reading the same ids first get one array


def decoded_texts(matrix: np.ndarray) -> np.ndarray:
    """The rows of a text matrix (one UTF-8 text per row, padded with NUL bytes) as
    an object array of str.

    A text holds no NUL byte and no line end (the readers split lines and fields on
    them), so the rows are joined with line ends, the padding dropped, and the whole
    decoded and split once per chunk: a few passes in C, no Python loop per text.
    """
    n_texts, width = matrix.shape
    texts = np.empty(n_texts, dtype=object)
    step = max(_DECODE_BYTES // (width + 1), 1)
    for begin in range(0, n_texts, step):  # a few chunks, to bound the copies
        rows = matrix[begin : begin + step]
        ended = np.zeros((len(rows), width + 1), dtype=np.uint8)
        ended[:, :width] = rows
        ended[np.arange(len(rows)), np.count_nonzero(rows, axis=1)] = _NEWLINE
        text = ended.tobytes().replace(b"\0", b"").decode("utf-8")
        texts[begin : begin + len(rows)] = text.split("\n")[: len(rows)]
    return texts


class TextRows:
    """One id per row, held as text bytes and made ``str`` objects on first read.

    ``texts``: the distinct ids, one NUL-padded UTF-8 text per row of a uint8
    matrix; ``codes``: the index of each row's id among them (the readers' codes in
    text order). :meth:`objects` gives the ids as a read-only object array of str,
    made once and kept (then the bytes go). It has the length and shape of that
    array, so that a check of the number of rows never makes the objects.
    """

    __slots__ = ("_objects", "_texts", "codes")

    def __init__(self, texts: np.ndarray, codes: np.ndarray) -> None:
        self._texts: np.ndarray | None = texts
        self._objects: np.ndarray | None = None
        self.codes = codes

    def __len__(self) -> int:
        return len(self.codes)

    @property
    def shape(self) -> tuple[int, ...]:
        return self.codes.shape

    def objects(self) -> np.ndarray:
        """The ids as an object array of str (read-only), made on the first call."""
        made, texts = self._objects, self._texts
        if made is not None:
            return made
        if texts is not None:  # else another thread made them meanwhile
            ids = decoded_texts(texts)[self.codes]
            ids.flags.writeable = False
            with _FIRST_READ:
                if self._objects is None:
                    self._objects, self._texts = ids, None
        assert self._objects is not None
        return self._objects

    def made(self) -> np.ndarray | None:
        """The object array if :meth:`objects` made it already, else None."""
        return self._objects

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        ids = self.objects()
        return ids if dtype is None else ids.astype(dtype)


def ids_as_given(ids: Any) -> Any:
    """``ids`` as an array: the objects of :class:`TextRows`, anything else as it is."""
    return ids.objects() if isinstance(ids, TextRows) else ids
