"""Several runs on the same rows: :func:`align_trec_runs`, :func:`align_recommendations`.

Two TREC runs (or two recommenders' top-N lists) return different documents, so each
reader call gives its own rows. Comparing them needs one set of rows: per query, the
union of the judged documents and of every run's returned documents. Each run scores
the rows it returned and gives ``-inf`` (judged or returned by another run, not by
this one) to the others, which is exactly what a document the run did not return
means in every metric. The queries are those of the qrels (of the held-out items),
for every run: a query a run did not answer has only ``-inf`` rows for it and scores
as ``trec_eval -c`` scores it.

The union is one sort of integer keys over all runs together, never a loop per
query.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from .._engine._validation import BOOLEAN, validate_params
from ._frames import named_runs

# AlignedRuns is defined with RankingData (RankingData.from_frame returns it too) and
# named here as well, where it was defined before (old pickles name this module)
from ._ranking_data import AlignedRuns as AlignedRuns
from ._ranking_data import RankingData, given_doc_id, is_path
from ._recommendations import read_recommendations
from ._trec import join_trec_sources


def run_names(runs: Any, owner: str) -> dict[str, Any]:
    """``{name: source}``: a mapping as given, or file names for a sequence of paths."""
    if isinstance(runs, Mapping):
        result = named_runs(runs, "runs", owner)
    elif isinstance(runs, Sequence) and not isinstance(runs, (str, bytes)):
        if not all(is_path(path) for path in runs):
            raise TypeError(
                f"The 'runs' parameter of {owner} must be a mapping {{name: run}} or a "
                "list of run file paths."
            )
        result = {}
        for index, path in enumerate(runs):
            name = Path(path).name
            result[name if name not in result else f"{name} ({index + 1})"] = path
    else:
        raise TypeError(
            f"The 'runs' parameter of {owner} must be a mapping {{name: run}} or a "
            f"list of run file paths; got {type(runs).__name__}."
        )
    if not result:
        raise ValueError(f"The 'runs' parameter of {owner} must hold at least one run.")
    return result


def _sorted_codes(ids: np.ndarray, what: str) -> tuple[np.ndarray, np.ndarray]:
    """The distinct ids, sorted, and the code of every id; a clear TypeError for ids
    of types that do not sort together (``1`` and ``"x"``): rows are put in id order."""
    try:
        distinct, codes = np.unique(ids, return_inverse=True)
    except TypeError:
        listed = ids.tolist()  # the error path only
        kinds = dict(zip(map(type, listed), listed, strict=True))
        if len(kinds) < 2:
            raise TypeError(
                f"align_recommendations: the {what} ids must be str or int, which sort; "
                f"got {listed[0]!r} ({type(listed[0]).__name__})."
            ) from None
        (first_type, first), (second_type, second) = list(kinds.items())[:2]
        raise TypeError(
            f"align_recommendations: the {what} ids must be of one type, as they are "
            f"sorted to order the rows (all str or all int, in every model and in "
            f"relevant); got {first!r} ({first_type.__name__}) and {second!r} "
            f"({second_type.__name__})."
        ) from None
    return distinct, codes.reshape(-1)


def _run_scores(data: RankingData) -> np.ndarray:
    """A run's scores: both readers of runs give every row one."""
    assert data.y_score is not None, "a run read without scores"
    return data.y_score


def _union(
    datasets: dict[str, RankingData], source: str, *, recommenders: bool = False
) -> AlignedRuns:
    """One row per (query, document) of any run, every run's score on every row."""
    groups = np.concatenate([data.group for data in datasets.values()])
    docs = np.concatenate([data.doc_id for data in datasets.values()])
    group_ids, group_code = _sorted_codes(groups, "user" if recommenders else "query")
    doc_ids, doc_code = _sorted_codes(docs, "item" if recommenders else "document")
    # query ascending, then document id descending (trec_eval's tie order)
    key = group_code.astype(np.int64) * len(doc_ids) + (len(doc_ids) - 1 - doc_code)
    unique_key, row_of = np.unique(key, return_inverse=True)
    n_rows = len(unique_key)
    # every run gives a document of a query the same label (the qrels' or 0)
    y_true = np.zeros(n_rows)
    y_true[row_of] = np.concatenate([data.y_true for data in datasets.values()])
    # and the same judged flag (a judged document is judged for every run)
    judged = None
    if any(data.judged is not None for data in datasets.values()):
        judged = np.zeros(n_rows, dtype=bool)
        judged[row_of] = np.concatenate(
            [
                np.ones(len(data.y_true), bool) if data.judged is None else data.judged
                for data in datasets.values()
            ]
        )
    scores, n_answered, positions = {}, {}, {}
    start = 0
    query_of_row = unique_key // len(doc_ids)
    for name, data in datasets.items():
        rows = row_of[start : start + len(data.y_true)]
        start += len(data.y_true)
        run_scores = _run_scores(data)
        score = np.full(n_rows, -np.inf)
        score[rows] = run_scores
        scores[name] = score
        if data.run_position is not None:  # TREC runs: each run's own order
            position = np.full(n_rows, -1, dtype=np.int64)
            position[rows] = data.run_position
            positions[name] = position
        answered = np.zeros(len(group_ids), dtype=bool)
        answered[query_of_row[rows[np.isfinite(run_scores)]]] = True
        n_answered[name] = int(answered.sum())
    return AlignedRuns(
        y_true,
        scores,
        group_ids[query_of_row],
        doc_ids[len(doc_ids) - 1 - unique_key % len(doc_ids)],
        len(group_ids),
        n_answered,
        {name: data.n_dropped_queries for name, data in datasets.items()},
        source,
        judged,
        # the readers read every run of one call alike (trec_eval for TREC runs)
        convention=next(iter(datasets.values())).convention,
        run_positions=positions,
    )


@validate_params({"single_precision": [BOOLEAN]})
def align_trec_runs(qrels: Any, runs: Any, *, single_precision: bool = False) -> AlignedRuns:
    """Join one TREC qrels with several runs on the same rows, to compare the runs.

    Per query of the qrels, one row for every document that is judged or returned by
    any run. A run's score of a row is its score of the document, or ``-inf`` when
    the run did not return it (a judged document then counts toward the relevant
    rows, never toward a rank; a document only another run returned is a label-0
    row nobody ranks for this run, which changes none of its metrics). Every run is
    averaged over the same queries, those of the qrels: a query a run did not answer
    scores 0 (``trec_eval -c``). Labels and scores follow :func:`read_trec`
    (negative labels kept; scores as written unless ``single_precision=True``).

    Parameters
    ----------
    qrels : str, os.PathLike, binary file object or dict
        A qrels file or ``{query: {docno: label}}``, as in :func:`read_trec`.
    runs : mapping of str to run, or sequence of paths
        ``{name: run file or {query: {docno: score}}}``, or run file paths (named by
        their file names).
    single_precision : bool, default=False
        Round the scores to single precision, as trec_eval 9 (pytrec_eval) does: the
        rows then carry ``convention="pytrec_eval"``, as :func:`read_trec`'s; the
        presets that need it (``convention="pytrec_eval"``) round them themselves.

    Returns
    -------
    aligned : AlignedRuns
        Pass it whole to :func:`compare` and :func:`ranking_report`;
        ``aligned.run(name)`` gives one run's rows. It carries
        ``convention="trec_eval"``, as :func:`read_trec`'s rows do: every entry point
        given it whole computes trec_eval's numbers unless the call names another
        convention (``"none"``: the package's defaults).

    Examples
    --------
    >>> from sklearn_rank_metrics import align_trec_runs, evaluate
    >>> qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 1}}
    >>> runs = {"bm25": {"q1": {"d1": 2.0, "d5": 1.0}},
    ...         "dense": {"q1": {"d2": 3.0, "d1": 1.0}, "q2": {"d3": 1.0}}}
    >>> aligned = align_trec_runs(qrels, runs)
    >>> aligned
    AlignedRuns(n_rows=4, n_queries=2, answered={bm25: 1, dense: 2}, convention='trec_eval')
    >>> aligned.doc_id.tolist(), aligned.scores["bm25"].tolist()
    (['d5', 'd2', 'd1', 'd3'], [1.0, -inf, 2.0, -inf])
    >>> evaluate(aligned.run("bm25"), metrics="map")  # q2 not answered: 0
    {'map': 0.5}
    """
    named = run_names(runs, "align_trec_runs")
    joins = {
        name: join_trec_sources(
            qrels, run, answered_only=False, single_precision=single_precision,
            reader="align_trec_runs", run_name=name,
        )
        for name, run in named.items()
    }
    datasets = {name: join.data for name, join in joins.items()}
    sources = [join.source for join in joins.values()]
    if len(datasets) == 1:
        ((name, data),) = datasets.items()
        aligned = _one_run(name, data, sources[0])
    else:
        aligned = _union(datasets, "; ".join(sources))
    return replace(  # the ids as held: a reader's are made str only when read
        aligned, doc_id=given_doc_id(aligned),
        run_ids={name: join.run_id for name, join in joins.items()},
    )


def _one_run(name: str, data: RankingData, source: str) -> AlignedRuns:
    """One run's joined rows as they are: the join gives one row per (query, document)
    (every reader refuses a pair twice) for every query of the qrels, in
    :func:`_union`'s order (query, then document id descending), so the union of one
    run is its rows; their codes of the document ids in text order come along."""
    scores = _run_scores(data)
    # the rows of a query are contiguous: a query starts where the id changes
    group = data.group
    starts = np.ones(len(group), dtype=bool)
    starts[1:] = group[1:] != group[:-1]
    query_of_row = np.cumsum(starts) - 1
    n_queries = int(query_of_row[-1]) + 1 if len(group) else 0
    answered = np.zeros(n_queries, dtype=bool)
    answered[query_of_row[np.isfinite(scores)]] = True
    return AlignedRuns(
        data.y_true,
        {name: scores},
        group,
        given_doc_id(data),
        n_queries,
        {name: int(answered.sum())},
        {name: data.n_dropped_queries},
        source,
        data.judged,
        convention=data.convention,
        run_positions={} if data.run_position is None else {name: data.run_position},
        _doc_text_codes=data._doc_text_codes,
    )


def align_recommendations(
    recommended: Mapping[str, Any], relevant: Any, **columns: Any
) -> AlignedRuns:
    """Several recommenders' top-N lists against one set of relevant items, on the same rows.

    Per user, one row for every item that is relevant or recommended by any model;
    a model's score of an item follows :func:`read_recommendations` (decreasing with
    the position in its list), ``-inf`` where the model did not recommend it.

    Parameters
    ----------
    recommended : mapping of str to recommendations
        ``{model name: its recommendations}``, each in any form
        :func:`read_recommendations` takes (``{user: [items]}``, aligned lists, or a
        long table).
    relevant : mapping, sequence or long table
        The relevant (held-out) items per user, as in :func:`read_recommendations`.
    **columns
        ``user``, ``item``, ``rank``, ``score``, ``grade``: column names for long
        tables, as in :func:`read_recommendations`.

    Returns
    -------
    aligned : AlignedRuns

    Examples
    --------
    >>> from sklearn_rank_metrics import align_recommendations, evaluate
    >>> relevant = {"ann": {"phone"}, "bob": {"car"}}
    >>> aligned = align_recommendations(
    ...     {"pop": {"ann": ["tv", "phone"], "bob": ["tv", "car"]},
    ...      "knn": {"ann": ["phone"], "bob": ["bike", "car"]}}, relevant)
    >>> aligned  # ann: tv, phone; bob: tv, car, bike
    AlignedRuns(n_rows=5, n_queries=2, answered={pop: 2, knn: 2})
    >>> evaluate(aligned.run("knn"), metrics=["mrr", "hit_rate@1"])  # ranks 1 and 2
    {'mrr': 0.75, 'hit_rate@1': 0.5}
    """
    named = run_names(recommended, "align_recommendations")
    datasets, n_dropped = {}, {}
    for name, given in named.items():
        lists = given
        if isinstance(given, Mapping) and isinstance(relevant, Mapping):
            # a user the model has no list for is a query it did not answer; a user
            # without held-out items is not evaluated (as a run-only query)
            n_dropped[name] = sum(user not in relevant for user in given)
            lists = {user: given.get(user, []) for user in relevant}
        datasets[name] = read_recommendations(lists, relevant, **columns)
    aligned = _union(datasets, f"{len(named)} recommenders", recommenders=True)
    return replace(aligned, n_dropped_queries={name: n_dropped.get(name, 0) for name in named})
