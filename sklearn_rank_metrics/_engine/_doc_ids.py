"""Where the order of tied rows can change a metric, and the warning when a tool's
tie order cannot be followed.

A tool breaks tied scores its own way (trec_eval by document id, cwl_eval by the
run's order: :mod:`._document_ids`); a call without those ids keeps the input order,
which changes a metric only where tied rows that differ in what it reads stand
where it weighs them (:class:`TieReach`, :func:`tie_that_matters`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ._caller import caller_name
from ._document_ids import DESCENDING, RUN_ORDER
from ._warnings import TieOrderWarning, warn_at_caller

if TYPE_CHECKING:
    from ._ranked_groups import RankedGroups


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


def warn_ties_without_ids(
    ranked: RankedGroups, tool: str, reach: TieReach, direction: str = DESCENDING
) -> bool:
    """Warn (:class:`TieOrderWarning`) when tied rows keep an input order the tool would not.

    ``tool``: the convention whose tool orders ties by document id (``direction``
    ascending or descending) or by the run's own order (``"run"``), in a call without
    them; ``reach``: where the metric's value depends on the order of tied rows.
    Returns whether it warned (tied rows whose order can change the value).
    """
    query = tie_that_matters(ranked, reach)
    if query is None:
        return False
    caller = caller_name()
    if direction == RUN_ORDER:
        message = (
            f"{caller}: convention={tool!r} orders tied scores as the run file lists them "
            f"(cwl_eval's order, as ir_measures does for this measure), and this call has no "
            f"run order, so tied rows (first in query {query!r}) keep their input order and "
            "the result may differ from the tool's. Pass the RankingData of read_trec "
            f"(or align_trec_runs) whole, as in {caller}(data, ...): it keeps each run's "
            "order (the in-memory functions only: a Dask or Spark DataFrame carries no "
            "run order)."
        )
    else:
        message = (
            f"{caller}: convention={tool!r} orders tied scores by document id, as the tool "
            f"does, and this call has no document ids, so tied rows (first in query "
            f"{query!r}) keep their input order and the result may differ from the tool's. "
            f"Pass the ids: evaluate(..., doc_id=<one id per row>, convention={tool!r}), or "
            f"the RankingData of read_trec whole, which carries them: {caller}(data, ...), "
            f"not {caller}(*data, ...)."
        )
    warn_at_caller(message, TieOrderWarning)
    return True
