"""What every reader returns: :class:`RankingData` (one ranking) or :class:`AlignedRuns`
(several runs on the same rows), and the path checks readers share."""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any, overload

import numpy as np

from .._engine._document_ids import DocumentIds
from .._engine._ranking_rows import RankingRows
from .._engine._text_rows import TextRows, ids_as_given
from .._engine._tools import CONVENTION_NAMES
from ._frames import FrameRows, read_frame


def is_path(value: Any) -> bool:
    """A file path: str or os.PathLike."""
    return isinstance(value, (str, os.PathLike))


def n_rows_of(column: Any) -> int:
    """The length of a column, also of an Array API array (which has no ``len``)."""
    shape = getattr(column, "shape", None)
    return int(shape[0]) if shape else len(column)


def refuse_unpacking_weights(rows: Any) -> None:
    """``*data`` keeps three fields; rows that carry query weights would lose them, and
    every weighted mean would change without a word, so that unpacking is refused."""
    if rows.sample_weight is None:
        return
    kind = type(rows).__name__
    raise TypeError(
        f"This {kind} carries query weights (sample_weight), which unpacking it "
        f"(*data, or y_true, y_score, group = data) would drop. Pass it whole, "
        "evaluate(data, ...), to use them, or the arrays without them on purpose: "
        "evaluate(data.y_true, data.y_score, data.group, ...)."
    )


def source_name(path: Any) -> str:
    """The path as text, for messages."""
    return os.fspath(path)


# a number as the text readers accept it: an optional sign and digits, or a decimal
# with an optional exponent (no "nan", "inf" or hex)
INT_PATTERN = r"[+-]?\d+"
FLOAT_PATTERN = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
INT_RE = re.compile(INT_PATTERN)
FLOAT_RE = re.compile(FLOAT_PATTERN)


def carried_fields(
    rows: Any, scores: str, run_position: Any = None, doc_text_codes: Any = None
) -> dict[str, Any]:
    """What flat rows carry, by the parameter name of the entry points: the labels,
    the scores (``y_score`` of one ranking, ``scores`` of several runs), the query ids,
    the judged flags, the document ids, the weights and the convention they were read
    under.

    With ``run_position`` (the rows' order in the run they were read from), the
    document ids come as a :class:`~.._engine._doc_ids.DocumentIds` that carries it:
    an array-like of the ids, which also gives the tie order of a tool that keeps the
    run's own order (cwl_eval's RBP under ``convention="ir_measures"``), and, with
    ``doc_text_codes`` (a TREC reader's codes of the ids in text order), the order
    trec_eval's ``strcmp`` gives them, which no call then computes again.
    """
    fields = ("y_true", scores, "group", "judged", "doc_id", "sample_weight", "convention")
    carried = {name: getattr(rows, name) for name in fields if name != "doc_id"}
    ids = given_doc_id(rows)  # as held: a reader's ids are not made str here
    codes = text_codes_of(ids, doc_text_codes)
    if ids is not None and (run_position is not None or codes is not None):
        # a reader's TextRows go as they are: the engine reads their codes, not the str
        held = ids if isinstance(ids, TextRows) else np.asarray(ids)
        ids = DocumentIds(held, run_position, codes)
    carried["doc_id"] = ids_as_given(ids)
    return {name: carried[name] for name in fields}


def text_codes_of(doc_id: Any, doc_text_codes: Any) -> np.ndarray | None:
    """The reader's codes of ``doc_id`` in text order, when they are the codes of these
    very ids: ``(ids, codes)`` as the reader made them; rows given other ids since
    (``dataclasses.replace(data, doc_id=...)``) have none, so that a stale order is
    never read."""
    if doc_text_codes is None or doc_id is None:
        return None
    made_for, codes = doc_text_codes
    if made_for is doc_id or (isinstance(made_for, TextRows) and made_for.made() is doc_id):
        return codes  # the reader's ids, held as text or made str since
    return None


class _IdsReadOnFirstUse:
    """The ``doc_id`` attribute of rows: ids held as :class:`TextRows` (the TREC
    readers') are made an object array of str on first read, and kept; any other
    value is returned as given. :func:`given_doc_id` reads the value as held.

    Set on the classes after the dataclass is made (:func:`_doc_id_read_on_first_use`),
    so that the dataclass keeps the field, its default and its place in ``__init__``;
    its ``__init__`` then stores the value through :meth:`__set__`.
    """

    def __get__(self, rows: Any, owner: Any = None) -> Any:
        if rows is None:  # the class's attribute: the field's default, else this
            return vars(owner).get("_doc_id_default", self)
        return ids_as_given(given_doc_id(rows))

    def __set__(self, rows: Any, value: Any) -> None:
        rows.__dict__["_doc_id_given"] = value


def _doc_id_read_on_first_use(cls: type) -> None:
    if "doc_id" in vars(cls):  # the field's default
        cls._doc_id_default = vars(cls)["doc_id"]  # type: ignore[attr-defined]
    cls.doc_id = _IdsReadOnFirstUse()  # type: ignore[attr-defined]


def given_doc_id(rows: Any) -> Any:
    """The ``doc_id`` of rows as held: :class:`TextRows` stay text. Rows pickled
    before ids were held so keep theirs under the field's own name."""
    held = rows.__dict__
    return held["_doc_id_given"] if "_doc_id_given" in held else held.get("doc_id")


def check_convention_name(rows: Any) -> None:
    """A carried convention is a tool's name or None, checked when the rows are made
    (not first at a call that never named one)."""
    convention = rows.convention
    if convention is not None and not isinstance(convention, str):
        raise TypeError(
            f"{type(rows).__name__}: convention must be a tool's name (str, e.g. "
            f"'trec_eval') or None; got {type(convention).__name__}."
        )
    if convention is not None and convention not in (*CONVENTION_NAMES, "none"):
        names = ", ".join(repr(name) for name in CONVENTION_NAMES)
        raise ValueError(
            f"{type(rows).__name__}: convention must be one of {names}, 'none' or None; "
            f"got {convention!r}."
        )


def refuse_unpacking_convention(rows: Any) -> None:
    """``*data`` keeps three arrays; rows read under a tool's convention would lose it,
    and the metrics would give the package's numbers instead of the tool's without a
    word, so that unpacking is refused, showing both spellings."""
    if rows.convention in (None, "none"):  # no tool's numbers to lose
        return
    kind = type(rows).__name__
    raise TypeError(
        f"This {kind} was read under convention={rows.convention!r} (its metrics give "
        f"{rows.convention}'s numbers), which unpacking it (*data, or y_true, y_score, "
        f"group = data) would drop. Pass it whole, evaluate(data, ...), for "
        f"{rows.convention}'s numbers, or the arrays on purpose: evaluate(data.y_true, "
        "data.y_score, data.group, judged=data.judged, ...) for the package's defaults "
        f"(or evaluate(data, convention='none', ...))."
    )


@dataclass(frozen=True, eq=False)
class RankingData(RankingRows):
    """Flat ranking rows read from a file or from Python objects.

    Pass it whole as the first argument of any metric function, :func:`evaluate`,
    :func:`ranking_report`, the displays or :meth:`RankingEvaluator.update`:
    ``evaluate(data, metrics=["bpref", "ndcg@10"])`` uses everything it carries
    (the judged rows, the document ids a ``convention`` breaks ties by). When it has
    no scores (LETOR), give them next to it: ``ndcg_score(data, model.predict(data.X))``.
    It still unpacks as ``y_true, y_score, group = data``, but ``*data`` drops
    ``judged``, ``doc_id`` and ``sample_weight``: the measures that read judgments
    then refuse to run. :meth:`from_frame` reads the rows from any DataFrame by
    column name.

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
    sample_weight : ndarray of shape (n_rows,), float64, or None
        Weight of every row, constant within a query (the query's weight), as
        ``sample_weight=`` of the metric functions; None: every query counts once.
        Entry points that weight every query equally (:func:`compare`, the
        displays) refuse rows that carry weights rather than drop them.
    frame_library : str or None
        The library of the frame the rows were read from (``"pandas"``,
        ``"polars"``, ``"pyarrow"``: :meth:`from_frame`, :func:`read_table` of a
        frame; for a lazy frame, the library it was collected to); None for files
        and arrays. Not shown in the repr.
    convention : str or None
        The convention of the tool that defines the numbers of the source:
        ``"trec_eval"`` for rows read from TREC files (:func:`read_trec`,
        :func:`align_trec_runs`; ``"pytrec_eval"``, trec_eval 9, with
        ``single_precision=True``), so that every entry point given the rows whole
        computes what ``trec_eval`` (and ``rank-metrics evaluate --qrels``) prints;
        None for the other readers (LETOR and SVMlight files, tables, frames and
        recommendation lists come from no single tool), and the package's defaults
        apply. A call's own ``convention=`` wins (``convention="none"``: the
        package's defaults), and so does any setting it gives (``ties=``, ...), on
        top of the convention. Unpacking (``*data``) is refused when it is set.
    run_position : ndarray of shape (n_rows,), int, or None
        TREC runs: the position of each row in the run as read (its line order in
        the file, its order in a dict), ``-1`` for a judged document the run did not
        return; the tie order of a tool that keeps the run's own order (cwl_eval,
        which ir_measures calls for RBP). None for the other readers. Not shown in
        the repr.
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
    sample_weight: np.ndarray | None = None
    frame_library: str | None = field(default=None, repr=False)
    convention: str | None = None
    run_position: np.ndarray | None = field(default=None, repr=False)
    # a TREC reader's (doc_id, its codes in text order: trec_eval's strcmp)
    _doc_text_codes: tuple[np.ndarray, np.ndarray] | None = field(
        default=None, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        check_convention_name(self)
        n_rows = n_rows_of(self.y_true)
        for name in ("y_score", "group", "doc_id", "judged", "sample_weight", "run_position"):
            value = given_doc_id(self) if name == "doc_id" else getattr(self, name)
            if value is not None and n_rows_of(value) != n_rows:
                raise ValueError(
                    f"RankingData: {name} has {n_rows_of(value)} rows but y_true has {n_rows}."
                )

    def __iter__(self) -> Any:
        refuse_unpacking_weights(self)
        refuse_unpacking_convention(self)
        return iter((self.y_true, self.y_score, self.group))

    def carried(self) -> dict[str, Any]:
        """What the rows carry, by the parameter name of the entry points.

        Returns
        -------
        fields : dict of str to ndarray or None
            ``y_true``, ``y_score``, ``group``, ``judged``, ``doc_id``,
            ``sample_weight`` and ``convention``, in that order: the attributes of
            those names (None where the rows carry none): the keyword arguments of
            :func:`evaluate`.

        Examples
        --------
        >>> from sklearn_rank_metrics import RankingData, evaluate
        >>> data = RankingData([1.0, 0.0, 1.0], [0.9, 0.8, 0.1], ["q1", "q1", "q2"])
        >>> list(data.carried())
        ['y_true', 'y_score', 'group', 'judged', 'doc_id', 'sample_weight', 'convention']
        >>> evaluate(**data.carried(), metrics=["ndcg"]) == evaluate(data, metrics=["ndcg"])
        True
        """
        return carried_fields(self, "y_score", self.run_position, self._doc_text_codes)

    @overload
    @classmethod
    def from_frame(
        cls,
        frame: Any,
        *,
        y_true: Hashable = ...,
        y_score: Hashable = ...,
        group: Hashable = ...,
        doc_id: Hashable = ...,
        judged: Hashable = ...,
        sample_weight: Hashable = ...,
    ) -> RankingData: ...

    @overload
    @classmethod
    def from_frame(
        cls,
        frame: Any,
        *,
        y_true: Hashable = ...,
        y_score: list[Any] | Mapping[str, Any],
        group: Hashable = ...,
        doc_id: Hashable = ...,
        judged: Hashable = ...,
        sample_weight: Hashable = ...,
    ) -> AlignedRuns: ...

    @classmethod
    def from_frame(
        cls,
        frame: Any,
        *,
        y_true: Any = "y_true",
        y_score: Any = "y_score",
        group: Any = "group",
        doc_id: Any = None,
        judged: Any = None,
        sample_weight: Any = None,
    ) -> RankingData | AlignedRuns:
        """Ranking rows from the columns of a DataFrame, named once.

        Reads pandas DataFrames (NumPy, nullable or Arrow dtypes), polars DataFrames
        and LazyFrames, pyarrow Tables, DuckDB relations (``duckdb.sql(...)``) and
        any other frame narwhals reads. A lazy frame (polars LazyFrame, DuckDB
        relation) is narrowed to the named columns and collected once. The frame is
        never modified; rows keep its order (a SQL relation's: the order its query
        gives, fixed by an ``ORDER BY``).

        Parameters
        ----------
        frame : DataFrame, LazyFrame, pyarrow.Table, DuckDB relation, ...
            One row per (query, document).
        y_true, y_score, group : column name, default="y_true", "y_score", "group"
            The columns of the labels, the scores and the query ids (the defaults
            of :func:`read_table`; a missing column is an error that lists those
            there are, never a guess). ``y_score=None``: no scores. ``y_score`` as
            a list of columns (``["bm25", "dense"]``, each run named by its
            column) or a dict ``{run name: column}`` gives several runs on the same
            rows, an :class:`AlignedRuns` for :func:`compare` and
            :func:`ranking_report`.
        doc_id : column name, default=None
            Document ids, for a ``convention`` that breaks tied scores by document
            id (as ``doc_id=`` of :func:`evaluate`). Rows are not reordered: with
            several runs too, ``ties="input"`` follows the frame's row order.
        judged : column name, default=None
            Whether each row was judged (booleans, or 1/0), for ``bpref`` and
            ``judged@k``; None: every row was.
        sample_weight : column name, default=None
            Weight of every row, constant within a query (the query's weight), used
            by every metric function, :func:`evaluate` and :func:`ranking_report`.

        Returns
        -------
        data : RankingData, or AlignedRuns for several score columns
            Labels, scores and weights as float64 arrays (a float64 column without
            nulls in one chunk is a read-only view of the frame, not a copy); query
            ids, document ids and judged flags as the frame types them (text as
            ``str`` objects). ``frame_library`` names the frame's library
            (``"pandas"``, ``"polars"``, ``"pyarrow"``; a lazy frame: the library it
            was collected to, e.g. ``"pyarrow"`` for DuckDB).

        Raises
        ------
        ValueError
            A missing column (the message lists the frame's columns); a missing
            value (null, NaN label, NaN score, null id); a label or weight that is
            not finite: the message names the column, the parameter and the first
            bad row (pandas: with its index label). A frame without rows.
        TypeError
            ``frame`` is not a frame narwhals reads; a parameter is not a column
            name (arrays go to the metric functions directly); a label, score or
            weight column that does not hold numbers (pandas object columns are
            parsed as :func:`read_table` parses them).

        Examples
        --------
        >>> import pandas as pd
        >>> from sklearn_rank_metrics import RankingData, evaluate
        >>> frame = pd.DataFrame({"qid": ["a", "a", "b", "b"], "label": [1, 0, 0, 2],
        ...                       "bm25": [0.3, 0.9, 0.1, 0.4], "dense": [0.8, 0.1, 0.1, 0.2]})
        >>> data = RankingData.from_frame(frame, y_true="label", y_score="bm25", group="qid")
        >>> evaluate(data, metrics=["mrr", "p@1"])
        {'mrr': 0.75, 'p@1': 0.5}

        Two score columns, two runs: pass them whole to ``compare(runs, metrics=...)``
        or ``ranking_report(runs)``.

        >>> runs = RankingData.from_frame(frame, y_true="label", y_score=["bm25", "dense"],
        ...                               group="qid")
        >>> runs
        AlignedRuns(n_rows=4, n_queries=2, answered={bm25: 2, dense: 2})
        >>> evaluate(runs.run("dense"), metrics=["mrr", "p@1"])
        {'mrr': 1.0, 'p@1': 1.0}
        """
        columns = {"y_true": y_true, "y_score": y_score, "group": group, "doc_id": doc_id,
                   "judged": judged, "sample_weight": sample_weight}
        return from_frame_rows(read_frame(frame, columns, "RankingData.from_frame"))

    def __repr__(self) -> str:
        try:
            n_queries = len(np.unique(self.group))
        except TypeError:  # ids of mixed types
            n_queries = len(set(self.group.tolist()))
        parts = [f"n_rows={n_rows_of(self.y_true)}", f"n_queries={n_queries}"]
        if self.y_score is None:
            parts.append("y_score=None")
        if self.n_answered_queries is not None and self.n_answered_queries != n_queries:
            parts.append(f"n_answered_queries={self.n_answered_queries}")
        if self.n_dropped_queries:
            parts.append(f"n_dropped_queries={self.n_dropped_queries}")
        if self.source is not None:
            parts.append(f"source={self.source!r}")
        if self.convention is not None:
            parts.append(f"convention={self.convention!r}")
        return f"RankingData({', '.join(parts)})"


_doc_id_read_on_first_use(RankingData)


@dataclass(frozen=True, eq=False)
class AlignedRuns(RankingRows):
    """Several runs' scores on the same rows.

    Pass it whole to :func:`compare` and :func:`ranking_report`
    (``compare(aligned, metrics=["map", "bpref"])``) to compare the runs query by
    query with everything it carries (judged rows, document ids for a
    ``convention``'s tie order); ``.run(name)`` gives one run as a
    :class:`RankingData`. It still unpacks as ``y_true, scores, group = aligned``,
    but that drops ``judged``, ``doc_id`` and ``sample_weight``. The readers of
    several runs build it: :func:`align_trec_runs`, :func:`align_recommendations`,
    and :meth:`RankingData.from_frame` with several score columns.

    A run's metrics on the aligned rows equal its metrics on its own rows
    (:func:`read_trec`, which keeps the same queries by default), except per-query AUC
    (``gauc``), whose candidates are all rows: a document only another run returned
    is a negative this run ranks last.

    Attributes
    ----------
    y_true : ndarray of shape (n_rows,), float64
        Label of every row (0 for a document nobody judged).
    scores : dict of str to ndarray of shape (n_rows,)
        Each run's score of every row, ``-inf`` where the run did not return it.
    group : ndarray of shape (n_rows,)
        Query (user) id of every row; every query of the qrels (held-out items).
    doc_id : ndarray of shape (n_rows,), or None
        Document (item) id of every row, for a ``convention`` that breaks tied scores
        by document id. :func:`align_trec_runs` and :func:`align_recommendations`
        sort the rows by query, then document id descending: trec_eval's tie order
        for ``ties="input"``. :meth:`RankingData.from_frame` keeps the frame's row
        order (``ties="input"`` follows it) and the frame's document ids, or None
        when it names no ``doc_id`` column.
    n_queries : int
        Queries every run is averaged over.
    n_answered : dict of str to int
        Queries each run returned at least one document for; the others score as
        ``trec_eval -c`` scores them (0 for every metric).
    n_dropped_queries : dict of str to int
        Queries only in the run (not in the qrels), left out as trec_eval does.
    source : str or None
        The files (or dicts) the rows come from.
    judged : ndarray of shape (n_rows,), bool, or None
        Whether each row was judged (a document only runs returned was not); pass it
        as ``judged=`` for bpref and Judged@k.
    run_ids : dict of str to str or None
        Each TREC run file's tag, as trec_eval prints it (``runid``: the sixth field
        of the file's last line); None for a run given as a dict, and empty for
        recommenders and frames.
    sample_weight : ndarray of shape (n_rows,), float64, or None
        Weight of every row, constant within a query, from
        :meth:`RankingData.from_frame`; :func:`ranking_report` uses it, while
        :func:`compare` (every query counts once) refuses rows that carry weights.
        None for the TREC and recommender readers.
    frame_library : str or None
        The library of the frame the rows were read from (see
        :attr:`RankingData.frame_library`); None otherwise. Not shown in the repr.
    convention : str or None
        ``"trec_eval"`` for :func:`align_trec_runs`, None for the other readers: see
        :attr:`RankingData.convention`; :meth:`run` passes it on.
    run_positions : dict of str to ndarray
        :func:`align_trec_runs`: each run's position of every row, as
        :attr:`RankingData.run_position` (``-1`` where the run did not return it);
        empty for the other readers. Not shown in the repr.

    Examples
    --------
    Run ``x`` answers topic ``t1`` only; ``y`` answers both and returns ``e``,
    which nobody judged:

    >>> from sklearn_rank_metrics import align_trec_runs, evaluate
    >>> aligned = align_trec_runs(
    ...     {"t1": {"a": 2, "b": 0}, "t2": {"c": 1, "d": 1}},
    ...     {"x": {"t1": {"a": 0.9, "b": 0.1}},
    ...      "y": {"t1": {"b": 0.8, "a": 0.4}, "t2": {"d": 0.7, "e": 0.6}}},
    ... )
    >>> aligned.n_queries, aligned.n_answered
    (2, {'x': 1, 'y': 2})
    >>> aligned.doc_id.tolist(), aligned.y_true.tolist(), aligned.judged.tolist()
    (['b', 'a', 'e', 'd', 'c'], [0.0, 2.0, 0.0, 1.0, 1.0], [True, True, False, True, True])
    >>> aligned.scores["x"].tolist()
    [0.1, 0.9, -inf, -inf, -inf]

    Both runs are averaged over both topics (x: 1 on t1, 0 on t2; y: 1/2 on t1,
    1 on t2):

    >>> {name: evaluate(aligned.run(name), metrics="mrr")["mrr"] for name in aligned.scores}
    {'x': 0.5, 'y': 0.75}
    """

    y_true: np.ndarray
    scores: dict[str, np.ndarray]
    group: np.ndarray
    doc_id: np.ndarray | None
    n_queries: int
    n_answered: dict[str, int]
    n_dropped_queries: dict[str, int]
    source: str | None = None
    judged: np.ndarray | None = None
    run_ids: dict[str, str | None] = field(default_factory=dict)
    sample_weight: np.ndarray | None = None
    frame_library: str | None = field(default=None, repr=False)
    convention: str | None = None
    run_positions: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    # a TREC reader's (doc_id, its codes in text order: trec_eval's strcmp)
    _doc_text_codes: tuple[np.ndarray, np.ndarray] | None = field(
        default=None, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        check_convention_name(self)

    def __iter__(self) -> Any:
        refuse_unpacking_weights(self)
        refuse_unpacking_convention(self)
        return iter((self.y_true, self.scores, self.group))

    def carried(self) -> dict[str, Any]:
        """What the rows carry, by the parameter name of the entry points.

        Returns
        -------
        fields : dict of str to ndarray, dict or None
            ``y_true``, ``scores`` (the dict of runs), ``group``, ``judged``,
            ``doc_id``, ``sample_weight`` and ``convention``, in that order: the
            attributes of those names (None where the rows carry none), the keyword
            arguments of :func:`compare`.
        """
        return carried_fields(
            self, "scores", self.run_positions or None, self._doc_text_codes
        )

    def run(self, name: str) -> RankingData:
        """One run's rows (all aligned rows, its scores) as a :class:`RankingData`.

        Parameters
        ----------
        name : str
            The run's name (a key of ``scores``).

        Returns
        -------
        data : RankingData
            Pass it whole to any metric function or :func:`evaluate`.
        """
        if name not in self.scores:
            raise KeyError(f"AlignedRuns: no run named {name!r}; the runs are {list(self.scores)}.")
        return RankingData(
            self.y_true,
            self.scores[name],
            self.group,
            given_doc_id(self),
            source=self.source,
            judged=self.judged,
            sample_weight=self.sample_weight,
            frame_library=self.frame_library,
            convention=self.convention,
            run_position=self.run_positions.get(name),
            _doc_text_codes=self._doc_text_codes,
        )

    def __repr__(self) -> str:
        answered = ", ".join(f"{name}: {count}" for name, count in self.n_answered.items())
        convention = "" if self.convention is None else f", convention={self.convention!r}"
        return (
            f"AlignedRuns(n_rows={len(self.y_true)}, n_queries={self.n_queries}, "
            f"answered={{{answered}}}{convention})"
        )


_doc_id_read_on_first_use(AlignedRuns)


def from_frame_rows(rows: FrameRows) -> RankingData | AlignedRuns:
    """The object of a frame's rows: one ranking, or several runs on the same rows."""
    values = rows.values
    shared: dict[str, Any] = {
        "doc_id": values.get("doc_id"), "judged": values.get("judged"),
        "sample_weight": values.get("sample_weight"), "source": rows.name,
        "frame_library": rows.library,
    }
    if rows.runs is None:
        return RankingData(values["y_true"], values.get("y_score"), values["group"], **shared)
    return AlignedRuns(
        values["y_true"], rows.runs.scores, values["group"], n_queries=rows.runs.n_queries,
        n_answered=rows.runs.n_answered, n_dropped_queries=dict.fromkeys(rows.runs.scores, 0),
        **shared,
    )


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
