"""What every reader returns: :class:`RankingData`, and the path checks readers share."""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._engine._ranking_rows import RankingRows


def is_path(value: Any) -> bool:
    """A file path: str or os.PathLike."""
    return isinstance(value, (str, os.PathLike))


def source_name(path: Any) -> str:
    """The path as text, for messages."""
    return os.fspath(path)


# a number as the text readers accept it: an optional sign and digits, or a decimal
# with an optional exponent (no "nan", "inf" or hex)
INT_PATTERN = r"[+-]?\d+"
FLOAT_PATTERN = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
INT_RE = re.compile(INT_PATTERN)
FLOAT_RE = re.compile(FLOAT_PATTERN)


def carried_fields(rows: Any, scores: str) -> dict[str, Any]:
    """What flat rows carry, by the parameter name of the entry points: the labels,
    the scores (``y_score`` of one ranking, ``scores`` of several runs), the query ids,
    the judged flags and the document ids."""
    fields = ("y_true", scores, "group", "judged", "doc_id")
    return {name: getattr(rows, name) for name in fields}


@dataclass(frozen=True, eq=False)
class RankingData(RankingRows):
    """Flat ranking rows read from a file or from Python objects.

    Pass it whole as the first argument of any metric function, :func:`evaluate`,
    :func:`ranking_report`, the displays or :meth:`RankingEvaluator.update`:
    ``evaluate(data, metrics=["bpref", "ndcg@10"])`` uses everything it carries
    (the judged rows, the document ids a ``convention`` breaks ties by). When it has
    no scores (LETOR), give them next to it: ``ndcg_score(data, model.predict(data.X))``.
    It still unpacks as ``y_true, y_score, group = data``, but ``*data`` drops
    ``judged`` and ``doc_id``: the measures that read judgments then refuse to run.

    Attributes
    ----------
    y_true : ndarray of shape (n_rows,), float64
        Relevance label of every row.
    y_score : ndarray of shape (n_rows,), float64, or None
        Score of every row (higher ranks earlier; ``-inf``: judged but not returned),
        or None when the source has no scores.
    group : ndarray of shape (n_rows,)
        Query (or user) id of every row: int64 for LETOR, the ids as given otherwise.
    doc_id : ndarray of shape (n_rows,) or None
        Document (or item) id of every row, where the format has them.
    X : scipy.sparse.csr_matrix or None
        LETOR features, else None.
    n_dropped_queries : int
        TREC: queries of the run without qrels, dropped as trec_eval drops them.
    source : str or None
        The file name(s) the rows come from.
    judged : ndarray of shape (n_rows,), bool, or None
        Whether each row was judged (TREC: a run document missing from the qrels was
        not); ``None`` when every row was. Pass it as ``judged=`` to
        :func:`evaluate`, :func:`bpref_score` or :func:`judged_at_k_score`.
    n_answered_queries : int or None
        TREC: queries the run returned at least one document for. The others of the
        rows (all ``-inf``, every metric 0, as ``trec_eval -c``) are averaged too; the
        repr shows the count when it differs from ``n_queries``. None for other
        sources.
    """

    y_true: np.ndarray
    y_score: np.ndarray | None
    group: np.ndarray
    doc_id: np.ndarray | None = None
    X: Any = None
    n_dropped_queries: int = 0
    source: str | None = None
    judged: np.ndarray | None = None
    n_answered_queries: int | None = None
    # where row i was read, e.g. "results.csv, line 9" (file readers only)
    _row_location: Callable[[int], str] | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        n_rows = len(self.y_true)
        for name in ("y_score", "group", "doc_id", "judged"):
            value = getattr(self, name)
            if value is not None and len(value) != n_rows:
                raise ValueError(
                    f"RankingData: {name} has {len(value)} rows but y_true has {n_rows}."
                )

    def __iter__(self) -> Any:
        return iter((self.y_true, self.y_score, self.group))

    def carried(self) -> dict[str, Any]:
        """What the rows carry, by the parameter name of the entry points."""
        return carried_fields(self, "y_score")

    def __repr__(self) -> str:
        try:
            n_queries = len(np.unique(self.group))
        except TypeError:  # ids of mixed types
            n_queries = len(set(self.group.tolist()))
        parts = [f"n_rows={len(self.y_true)}", f"n_queries={n_queries}"]
        if self.y_score is None:
            parts.append("y_score=None")
        if self.n_answered_queries is not None and self.n_answered_queries != n_queries:
            parts.append(f"n_answered_queries={self.n_answered_queries}")
        if self.n_dropped_queries:
            parts.append(f"n_dropped_queries={self.n_dropped_queries}")
        if self.source is not None:
            parts.append(f"source={self.source!r}")
        return f"RankingData({', '.join(parts)})"


def check_path(path: Any, argument: str, reader: str) -> None:
    """A path names a regular file (or a symlink to one), else a clear OSError.

    A missing file is FileNotFoundError, a directory IsADirectoryError, a symlink
    loop and a FIFO, socket or device (``/dev/null``, a named pipe) an OSError that
    says so: each is "does not exist" to ``Path.is_file``. ``reader`` names the
    reader in the messages (given, not the caller's: the command line and other
    readers call it too).
    """
    if not is_path(path):
        raise TypeError(
            f"The {argument!r} parameter of {reader} must be a file path (str or "
            f"os.PathLike); got {type(path).__name__}."
        )
    name = source_name(path)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise FileNotFoundError(f"{reader}: the file {name!r} does not exist.") from None
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise OSError(
                f"{reader}: {name!r} is a symlink loop (too many levels of symbolic "
                "links), not a file."
            ) from None
        raise OSError(f"{reader}: cannot read {name!r} ({error.strerror}).") from None
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(f"{reader}: {name!r} is a directory, not a file.")
    if not stat.S_ISREG(mode):
        kind = (
            "a FIFO (named pipe)" if stat.S_ISFIFO(mode)
            else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "a socket" if stat.S_ISSOCK(mode)
            else "not a regular file"
        )
        raise OSError(
            f"{reader}: {name!r} is not a regular file: it is {kind}; give the path "
            "of a file (the command line reads standard input from '-')."
        )


# a compressed file may expand to at most this many times its own size (and to at
# least 16 MiB whatever its size): decompressed text costs memory in proportion, so
# a small file that expands to gigabytes is refused instead of exhausting memory
MAX_EXPANSION = 100
MIN_EXPANDED_BYTES = 16 * 2**20
_CHUNK_BYTES = 1 << 24


def read_decompressed(handle: Any, compressed_bytes: int, name: str, reader: str) -> bytes:
    """All of ``handle`` (a decompressing reader), refused past the expansion limit.

    Read in blocks, so no more than the limit (plus one block) is ever held: at most
    ``max(MAX_EXPANSION * compressed_bytes, MIN_EXPANDED_BYTES)`` bytes.
    """
    limit = max(MAX_EXPANSION * compressed_bytes, MIN_EXPANDED_BYTES)
    chunks: list[bytes] = []
    total = 0
    while True:
        chunk = handle.read(min(_CHUNK_BYTES, limit + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:
            raise ValueError(
                f"{reader}: {name} expands to more than {limit:,} bytes when "
                f"decompressed ({MAX_EXPANSION} times its {compressed_bytes:,} bytes, or "
                f"{MIN_EXPANDED_BYTES // 2**20} MiB for a small file); refused so that "
                "memory stays in proportion to the file. Decompress it and pass the "
                "plain file if it is what you meant to read."
            )
    return b"".join(chunks)
