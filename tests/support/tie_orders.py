"""Every order of one query's tied rows: brute-force expectations for the kernel tests.

A kernel's ``ties="average"`` value is the mean of the metric over every order of the
rows whose scores are exactly equal; these helpers enumerate those orders (one
``itertools.permutations`` per block of equal scores, the ``-inf`` rows last as one
block), so that a test can compute the metric of each order from its definition and
take the mean. Independent of the package.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Sequence
from functools import partial

import numpy as np


def rank_orders(scores: Sequence[float]) -> Iterator[list[int]]:
    """Row indices in rank order, once for every order of every block of equal scores.

    The first order yielded keeps each block in input order (``ties="input"``).
    """
    by_score: dict[float, list[int]] = {}
    for row, score in enumerate(scores):
        by_score.setdefault(float(score), []).append(row)
    blocks = [by_score[score] for score in sorted(by_score, reverse=True)]
    for combination in itertools.product(*(itertools.permutations(b) for b in blocks)):
        yield [row for block in combination for row in block]


def input_order(scores: Sequence[float]) -> list[int]:
    """The rank order with tied rows in input order."""
    return next(rank_orders(scores))


def mean_over_orders(value: Callable[[list[int]], float], scores: Sequence[float]) -> float:
    """The mean of ``value(order)`` over :func:`rank_orders` (exact sum of floats)."""
    values = [value(order) for order in rank_orders(scores)]
    return math.fsum(values) / len(values)


def flat_rows(queries: dict) -> tuple:
    """``(group, *columns)`` arrays of ``{query id: (column, ...)}``, the queries' rows
    taken in turn (so the kernels see them interleaved), each query's rows in order."""
    longest = max(len(columns[0]) for columns in queries.values())
    rows = [
        (query, *(column[i] for column in columns))
        for i in range(longest)
        for query, columns in queries.items()
        if i < len(columns[0])
    ]
    return tuple(np.array([row[j] for row in rows]) for j in range(len(rows[0])))


def per_query(queries: dict, value: Callable[..., float], ties: str) -> list[float]:
    """``value(*columns, order)`` of every query of ``{id: (labels, scores, ...)}``, in
    sorted id order: its mean over every tie order (``"average"``), or of the input
    order (``"input"``)."""
    expected = []
    for query in sorted(queries):
        columns = queries[query]
        scores = columns[1]
        if ties == "average":
            of_order = partial(_of_order, value, columns)
            expected.append(mean_over_orders(of_order, scores))
        elif ties == "input":
            expected.append(value(*columns, input_order(scores)))
        else:
            raise ValueError(ties)
    return expected


def _of_order(value: Callable[..., float], columns: tuple, order: list[int]) -> float:
    return value(*columns, order)
