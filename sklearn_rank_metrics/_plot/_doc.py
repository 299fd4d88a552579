"""Docstring text that the displays' ``from_predictions`` and ``from_estimator`` share.

:func:`display_doc` fills the ``[[display_...]]`` markers of a method's docstring,
and the ``[[display]]`` marker (the class's name) inside them, through
:func:`~.._engine._docs.fill_doc`, so that the copies cannot drift. The fragments are
written as they stand in a method's docstring (continuation lines at its indentation).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from .._engine._docs import fill_doc

F = TypeVar("F", bound=Callable)

_FRAGMENTS = {
    "display_judged_doc_id": """\
judged : array-like of bool or True, default=None
            Whether each row was judged, for the measures that read it (bpref,
            Judged@k), as in :func:`evaluate`.
        doc_id : array-like, default=None
            Document id of every row, for a ``convention`` that breaks ties by it.""",
    "display_rows": """\
X : array-like or DataFrame
            Features of the rows.
        y : array-like
            Relevance labels.
        group : array-like, default=None
            Query id of every row.""",
    "display_kwargs": """\
**kwargs
            The keywords of :meth:`from_predictions`.""",
    "display_returns": """\
Returns
        -------
        display : [[display]]""",
    "display_example_imports": """\
>>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from sklearn_rank_metrics import [[display]]""",
}


def display_doc(display: str) -> Callable[[F], F]:
    """Fill the ``[[display_...]]`` markers of a method of the class named ``display``."""

    def decorate(function: F) -> F:
        # the [[display]] markers come in with the fragments: filled after them
        return fill_doc(function, {**_FRAGMENTS, "display": display})

    return decorate
