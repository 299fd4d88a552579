"""The public function a call came in through, so that errors can name it.

Error messages name the function the user called (``The 'k' parameter of ndcg_score
must be ...``). Instead of passing that name down through every layer, the public
function records it in a context variable on entry and the code that raises reads it:
:func:`called_as` (or the :func:`entry_point` decorator) sets it, :func:`caller_name`
reads it. The outermost public function wins: ``evaluate`` calling a metric function
still reports errors as ``evaluate``'s. A context variable is private to its thread
and asyncio task, so concurrent calls never see each other's name.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar, cast, overload

_CALLER: ContextVar[str | None] = ContextVar("sklearn_rank_metrics_caller", default=None)

F = TypeVar("F", bound=Callable[..., Any])


def caller_name(default: str = "this function") -> str:
    """The public function the current call came in through (``default`` outside one)."""
    name = _CALLER.get()
    return default if name is None else name


@contextmanager
def called_as(name: str) -> Iterator[None]:
    """Name the public function for the errors raised inside the ``with`` block.

    An enclosing public function that already named itself keeps its name.
    """
    if _CALLER.get() is not None:
        yield
        return
    token = _CALLER.set(name)
    try:
        yield
    finally:
        _CALLER.reset(token)


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


def named(function_name: str | None) -> str:
    """``function_name`` where a caller still passes it, else :func:`caller_name`.

    The bridge while some callers still relay the name: the lead removes the relayed
    ``function_name`` parameters once every branch has its entry points.
    """
    return function_name or caller_name()
