"""Aligning the runs of per-query values by query id, never by position.

The columns read from the tables (:class:`~._per_query_tables.TableRead`) become one
array of shape (n_runs, n_metrics, n_queries) over the sorted query ids, with one
weight per query: every run must hold every query exactly once, with the same weight.
"""

from __future__ import annotations

import numpy as np

from .._engine._caller import caller_name
from .._engine._plain import plain
from ._per_query_checks import of_run, shown, sorted_ids
from ._per_query_tables import TableRead


def aligned(
    reads: list[TableRead], names: list[str], run_names: tuple[str | None, ...], weighted: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Every run's values over the sorted query ids, aligned by id (never by position)."""
    ids = _same_kind_ids([read.roles["query"] for read in reads])
    run_codes = _run_codes(reads, run_names)
    kept = run_codes >= 0
    distinct, codes = sorted_ids(ids[kept])
    run_codes = run_codes[kept]
    _check_one_value_per_query(distinct, codes, run_codes, run_names)
    values = np.full((len(run_names), len(names), len(distinct)), np.nan)
    for j, name in enumerate(names):
        column = np.concatenate([read.metrics[name] for read in reads])[kept]
        values[run_codes, j, codes] = column
    weights = None
    if weighted:
        given = np.concatenate([read.roles["weight"] for read in reads])[kept]
        weights = _query_weights(given, distinct, codes, run_codes, run_names)
    return distinct, values, weights


def _same_kind_ids(arrays: list[np.ndarray]) -> np.ndarray:
    """The query ids of every table, which must all be numbers or all text."""
    kinds = {"number" if array.dtype.kind in "biuf" else "text" for array in arrays}
    if len(kinds) > 1:
        raise TypeError(
            f"{caller_name()}: some tables hold numeric query ids and others text ids; runs "
            "are aligned by query id, so give every table the same id type."
        )
    if len(arrays) == 1:
        return arrays[0]
    if kinds == {"text"}:
        return np.concatenate([array.astype(object) for array in arrays])
    return np.concatenate(arrays)


def _run_codes(reads: list[TableRead], run_names: tuple[str | None, ...]) -> np.ndarray:
    """The run of every row, as its position in ``run_names`` (-1: a run not asked for)."""
    run_column = reads[0].run_column
    if len(reads) > 1 or run_column is None:
        return np.concatenate(
            [np.full(len(read.roles["query"]), i, dtype=np.intp) for i, read in enumerate(reads)]
        )
    distinct, codes = run_column
    position = np.array(
        [run_names.index(name) if name in run_names else -1 for name in distinct],
        dtype=np.intp,
    )
    return position[codes]


def _check_one_value_per_query(
    distinct: np.ndarray, codes: np.ndarray, run_codes: np.ndarray, run_names: tuple
) -> None:
    """Every run holds every query exactly once."""
    n_queries = len(distinct)
    counts = np.bincount(run_codes * n_queries + codes, minlength=len(run_names) * n_queries)
    counts = counts.reshape(len(run_names), n_queries)
    twice = np.argwhere(counts > 1)
    if len(twice):
        r, q = twice[0]
        raise ValueError(
            f"{caller_name()}: query {shown(distinct[q])} is there {int(counts[r, q])} times"
            f"{of_run(run_names[r])}; a run holds one value per query."
        )
    absent = np.argwhere(counts == 0)
    if len(absent):
        r, q = absent[0]
        n_absent = int((counts[r] == 0).sum())
        raise ValueError(
            f"{caller_name()}: run {run_names[r]!r} has no row for query "
            f"{shown(distinct[q])} ({n_absent} of the {n_queries} queries of the runs); "
            "runs are compared on the same queries, aligned by query id. Filter the tables "
            "to the queries they share first (an inner join on the query column), or give "
            "the run its value there."
        )


def _query_weights(
    given: np.ndarray, distinct: np.ndarray, codes: np.ndarray, run_codes: np.ndarray,
    run_names: tuple,
) -> np.ndarray:
    """One weight per query, the same in every run (else a ValueError naming the query)."""
    weights = np.empty(len(distinct))
    weights[codes] = given
    differ = np.flatnonzero(given != weights[codes])
    if len(differ):
        row = int(differ[0])
        raise ValueError(
            f"{caller_name()}: query {shown(distinct[codes[row]])} has weight "
            f"{plain(given[row])!r}{of_run(run_names[run_codes[row]])} and "
            f"{plain(weights[codes[row]])!r} in another run; a query weighs the same in "
            "every run."
        )
    return weights
