"""The public function a call came in through, so that errors can name it.

Error messages name the function the user called (``The 'k' parameter of ndcg_score
must be ...``). Instead of passing that name down through every layer, the public
function records it in a context variable on entry and the code that raises reads it:
:func:`called_as` (or the :func:`entry_point` decorator) sets it, :func:`caller_name`
reads it. The outermost public function wins: ``evaluate`` calling a metric function
still reports errors as ``evaluate``'s. A context variable is private to its thread
and asyncio task, so concurrent calls never see each other's name.

Where a message must name something other than the caller, on purpose:

* :func:`renamed_as` overrides the name for an inner block, whatever the enclosing
  caller: ``evaluate`` reports a metric's undefined queries, empty averages and
  range defects under the metric function's name (``ndcg_score is undefined for
  query ...``); :func:`~._ranking_rows.accepts_ranking_rows` names the decorated
  function; the streaming evaluator's means name ``RankingEvaluator (<metric>)``.
* A few functions take the name as an argument, since it is not the caller's:
  :func:`~._validation.check_parameter` (``owner``: ``validate_params`` gives the
  decorated function's, a scorer the metric function's; the caller's is
  ``check_parameter(caller_name(), ...)``), :func:`~._ranking_rows.call_error`
  (the metric function called), :func:`~._inputs.query_id_column` (``owner``), and
  the file readers' helpers in ``_io`` (``reader``: the reader, even when the
  command line or another reader calls it).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from contextlib import AbstractContextManager
from contextvars import ContextVar, Token
from typing import Any, TypeVar, cast, overload

_CALLER: ContextVar[str | None] = ContextVar("sklearn_rank_metrics_caller", default=None)

F = TypeVar("F", bound=Callable[..., Any])


def caller_name(default: str = "this function") -> str:
    """The public function the current call came in through (``default`` outside one)."""
    name = _CALLER.get()
    return default if name is None else name


class _Naming:
    """The ``with`` block of :func:`called_as` and :func:`renamed_as`.

    A class rather than a generator: every public call enters a few of these, and
    a generator-based context manager costs several times as much.
    """

    __slots__ = ("_name", "_override", "_token")

    def __init__(self, name: str | None, override: bool) -> None:
        self._name = name
        self._override = override
        self._token: Token[str | None] | None = None

    def __enter__(self) -> None:
        if self._name is not None and (self._override or _CALLER.get() is None):
            self._token = _CALLER.set(self._name)

    def __exit__(self, *exc_info: object) -> None:
        if self._token is not None:
            _CALLER.reset(self._token)
            self._token = None


def called_as(name: str) -> AbstractContextManager[None]:
    """Name the public function for the errors raised inside the ``with`` block.

    An enclosing public function that already named itself keeps its name.
    """
    return _Naming(name, override=False)


def renamed_as(name: str | None) -> AbstractContextManager[None]:
    """Name ``name`` for the errors raised inside the ``with`` block, overriding any caller.

    For a message that names something other than the public function called (the
    metric whose values ``evaluate`` averages, say). ``None`` keeps the current name.
    """
    return _Naming(name, override=True)


@overload
def entry_point(function: F, /) -> F: ...


@overload
def entry_point(*, name: str) -> Callable[[F], F]: ...


def entry_point(function: F | None = None, /, *, name: str | None = None) -> Any:
    """Decorate a public function so that errors raised inside it name it.

    ``@entry_point`` names the function; ``@entry_point(name="RankingEvaluator.update")``
    gives the name its messages use (a method's, say).
    """
    if function is None:
        return functools.partial(_named_entry_point, name=name)
    return _named_entry_point(function, name=name)


def _named_entry_point(function: F, name: str | None) -> F:
    shown = function.__name__ if name is None else name

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with called_as(shown):
            return function(*args, **kwargs)

    return cast(F, wrapper)
