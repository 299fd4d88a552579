"""Document ids as a tool's tie order: trec_eval and ir_measures compare docnos as text.

trec_eval reads every docno as a string and breaks tied scores with ``strcmp``, so
``"10"`` sorts before ``"9"``; ids given as integers are compared the same way here
(as their decimal text), never as numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from itertools import repeat
from typing import TYPE_CHECKING, Any

import numpy as np

from ._caller import caller_name
from ._inputs import factorize_text_ids, plain_array
from ._warnings import TieOrderWarning, warn_at_caller

if TYPE_CHECKING:
    from ._ranked_groups import RankedGroups

ASCENDING = "ascending"
DESCENDING = "descending"


def _flat(values: Any) -> np.ndarray:
    return plain_array(values)


def check_doc_ids(doc_id: Any, y_true: Any) -> np.ndarray:
    """``doc_id`` as a flat NumPy array of str or int ids, one per row of ``y_true``.

    Every call that is given document ids checks them, whether or not a preset
    then sorts by them: a wrong length or type is an error, never ignored.
    """
    ids = plain_array(doc_id, "doc_id")  # a null is named here, as doc_id
    labels = _flat(y_true)
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
    return ids


def doc_id_orders(doc_id: Any, y_true: Any) -> dict[str, np.ndarray]:
    """Row permutations that put document ids in ascending and descending text order.

    The ids are compared as text by code point (the byte order of UTF-8, trec_eval's
    ``strcmp``), whatever their type. Stable, so a document id given twice keeps its
    input order either way. The ids are checked first (:func:`check_doc_ids`).
    """
    ids = check_doc_ids(doc_id, y_true)
    if ids.dtype.kind not in "US":
        if ids.dtype.kind == "O":
            # the ids as text objects: a fixed-width copy would take (rows) x
            # (longest id) x 4 bytes, gigabytes for one very long id
            codes = factorize_text_ids(np.frompyfunc(str, 1, 1)(ids).astype(object))[0]
        else:
            codes = np.unique(ids.astype(str), return_inverse=True)[1].reshape(-1)
    else:
        codes = np.unique(ids, return_inverse=True)[1].reshape(-1)
    return {
        ASCENDING: np.argsort(codes, kind="stable"),
        DESCENDING: np.argsort(-codes, kind="stable"),
    }


def take_rows(values: Any, order: np.ndarray) -> Any:
    """``values`` (an array-like over rows, or None / True) with its rows in ``order``."""
    if values is None or values is True:
        return values
    return _flat(values)[order]


# the tool (convention name) whose tie order by document id the running metric call
# cannot follow, for lack of ids (tie_order_without_ids)
_TOOL_WITHOUT_IDS: ContextVar[str | None] = ContextVar("tool_without_doc_ids", default=None)


@contextmanager
def tie_order_without_ids(tool: str | None) -> Iterator[None]:
    """Inside the block, the metric's ranking is checked for ``tool``'s tie order (None: not).

    A metric function under a convention that orders ties by document id, called
    without ids: the rows are ranked deeper down (the shared sort), where the tied
    scores become known at no cost.
    """
    token = _TOOL_WITHOUT_IDS.set(tool)
    try:
        yield
    finally:
        _TOOL_WITHOUT_IDS.reset(token)


# what of a row a metric reads (TieReach.reads): its label (graded gains), whether it
# is relevant (binary metrics), whether it was judged (bpref, Judged@k, RBP's residual)
LABEL, RELEVANT, JUDGED = "label", "relevant", "judged"
# where the order of a tied block can change a metric (TieReach.within)
RANKS, TOP_K, FIRST_RELEVANT, HIT = "ranks", "top_k", "first_relevant", "hit"


@dataclass(frozen=True)
class TieReach:
    """Where the order of tied rows can change one metric's value, and what it reads.

    A block of tied rows changes nothing when its rows do not differ in what the
    metric reads (``reads``: ``"label"``, ``"relevant"`` at ``relevance_level``,
    ``"judged"``). Otherwise, with the cutoff ``d = min(k, returned rows)`` of its
    query (``cutoff="relevant"``: ``d = min(R, returned rows)`` with ``R`` the
    query's relevant rows, R-precision's cutoff; ``cutoff="all"``: every row, the
    ``-inf`` ones too, which AUC ranks last), it can change the value where:

    - ``within="ranks"``: it starts above the cutoff (a metric of the positions:
      DCG, AP, ERR, RBP, AUC, ...), unless it lies wholly within the first
      ``same_weight_ranks`` ranks and above the cutoff (ranks a metric weighs
      alike: DCG's discount ``1 / max(1, log_b(i))`` is 1 for ranks ``i <= b``);
    - ``within="top_k"``: it straddles the cutoff, starting above it and ending
      below it (a metric of which rows are in the top ``d``: P, recall, F, CG,
      Judged@k; without a cutoff never);
    - ``within="first_relevant"``: it starts above the cutoff and no relevant row
      ranks before it (reciprocal rank: only the first relevant row counts);
    - ``within="hit"``: it straddles the cutoff, no relevant row ranks before it,
      and its non-relevant rows can fill its positions above the cutoff (hit rate:
      whether a relevant row is in the top ``d``).

    A rule built from the metric's parameters (``@metric(tie_order=)``) gives it;
    :func:`tie_that_matters` reads it against the ranked rows.
    """

    within: str = RANKS
    reads: tuple[str, ...] = (LABEL, JUDGED)
    k: int | None = None
    relevance_level: float | None = None
    cutoff: str = "k"
    same_weight_ranks: int = 1


# a metric's rule: its parameters -> where tie order reaches (None: nowhere)
TieOrderRule = Callable[[Mapping[str, Any]], "TieReach | None"]


def _relevant(labels: np.ndarray, relevance_level: float | None) -> np.ndarray:
    return labels > 0 if relevance_level is None else labels >= relevance_level


def _differs_from_previous(ranked: RankedGroups, tied: np.ndarray, reach: TieReach) -> np.ndarray:
    """Whether each tied (sorted) row differs from the row before it in what is read."""
    now, before = ranked.order[tied], ranked.order[tied - 1]
    labels = ranked.input_labels
    differs = np.zeros(len(tied), dtype=bool)
    if LABEL in reach.reads:
        differs |= labels[now] != labels[before]
    if RELEVANT in reach.reads:
        level = reach.relevance_level
        differs |= _relevant(labels[now], level) != _relevant(labels[before], level)
    if JUDGED in reach.reads and ranked.judged is not None:
        differs |= ranked.judged[now] != ranked.judged[before]
    return differs


def _cutoffs(ranked: RankedGroups, query: np.ndarray, reach: TieReach) -> np.ndarray:
    """The cutoff ``d`` of each of the given queries (see :class:`TieReach`)."""
    if reach.cutoff == "all":  # every row ranks, the -inf ones too (AUC)
        return np.diff(ranked.offsets)[query]
    returned = ranked.n_retrieved[query]
    if reach.cutoff == "relevant":  # R-precision: R, the unretrieved relevant rows too
        relevant = _relevant(ranked.input_labels[ranked.order], reach.relevance_level)
        counts = np.add.reduceat(relevant, ranked.offsets[:-1]) if len(relevant) else relevant
        return np.minimum(returned, counts[query])
    return returned if reach.k is None else np.minimum(returned, reach.k)


def _first_relevant_can_move(
    ranked: RankedGroups,
    blocks: tuple[np.ndarray, np.ndarray, np.ndarray],
    reach: TieReach,
    inside: np.ndarray | None,
) -> np.ndarray:
    """Whether the first relevant row of each query can move with a block's order.

    ``blocks``: ``(start, end, query)`` of blocks that differ in relevance; no
    relevant row may rank before the block. With ``inside`` (the block's positions
    within the cutoff; hit rate), its non-relevant rows must also fill them, so
    that no relevant row is within the cutoff in some order. One pass over the rows.
    """
    start, end, query = blocks
    running = np.concatenate(([0], np.cumsum(_relevant(ranked.labels, reach.relevance_level))))
    can_move = running[start] == running[ranked.offsets[query]]
    if inside is not None:
        non_relevant = (end + 1 - start) - (running[end + 1] - running[start])
        can_move &= non_relevant >= inside
    return can_move


def tie_that_matters(ranked: RankedGroups, reach: TieReach) -> Any:
    """The id of the first query whose tie order can change the metric, or None.

    From the engine's tied rows (no sort, O(tied rows); reciprocal rank adds one
    pass over the rows): the blocks of tied rows that differ in what the metric
    reads, kept where :class:`TieReach` says their order reaches the value.
    ``-inf`` rows (not returned, last in their query) lie below every cutoff but
    ``cutoff="all"``.
    """
    tied = ranked.tied_rows
    if tied is None:
        return None
    # a block: a run of consecutive tied rows, with the row before its first one
    new_block = np.ones(len(tied), dtype=bool)
    new_block[1:] = tied[1:] != tied[:-1] + 1
    firsts = np.flatnonzero(new_block)
    differs = np.logical_or.reduceat(_differs_from_previous(ranked, tied, reach), firsts)
    starts = tied[firsts][differs] - 1
    ends = tied[np.append(firsts[1:], len(tied)) - 1][differs]  # last row, inclusive
    if not len(starts):
        return None
    query = np.searchsorted(ranked.offsets, starts, side="right") - 1
    start_rank, end_rank = starts - ranked.offsets[query], ends - ranked.offsets[query]
    depth = _cutoffs(ranked, query, reach)
    matters = start_rank < depth
    straddles = end_rank >= depth
    if reach.within in (TOP_K, HIT):
        matters &= straddles
    elif reach.within == RANKS and reach.same_weight_ranks > 1:
        matters &= straddles | (end_rank >= reach.same_weight_ranks)
    if reach.within in (FIRST_RELEVANT, HIT):
        kept = np.flatnonzero(matters)
        inside = (depth - start_rank)[kept] if reach.within == HIT else None
        blocks = (starts[kept], ends[kept], query[kept])
        matters[kept] = _first_relevant_can_move(ranked, blocks, reach, inside)
    found = np.flatnonzero(matters)
    if not len(found):
        return None
    query_id = ranked.query_ids[query[found[0]]]
    return query_id.item() if isinstance(query_id, np.generic) else query_id


def tool_without_ids() -> str | None:
    """The convention of the enclosing :func:`tie_order_without_ids` block, if any."""
    return _TOOL_WITHOUT_IDS.get()


def warn_ties_without_ids(ranked: RankedGroups, tool: str, reach: TieReach) -> bool:
    """Warn (:class:`TieOrderWarning`) when tied rows keep an input order the tool would not.

    ``tool``: the convention that orders ties by document id, in a call without ids;
    ``reach``: where the metric's value depends on the order of tied rows.
    Returns whether it warned (tied rows whose order can change the value).
    """
    query = tie_that_matters(ranked, reach)
    if query is None:
        return False
    caller = caller_name()
    warn_at_caller(
        f"{caller}: convention={tool!r} orders tied scores by document id, as the tool does, "
        f"and this call has no document ids, so tied rows (first in query {query!r}) keep "
        "their input order and the result may differ from the tool's. Pass the ids: "
        f"evaluate(..., doc_id=<one id per row>, convention={tool!r}), or the RankingData of "
        f"read_trec whole, as in {caller}(data, ..., convention={tool!r}), not "
        f"{caller}(*data, ...).",
        TieOrderWarning,
    )
    return True
