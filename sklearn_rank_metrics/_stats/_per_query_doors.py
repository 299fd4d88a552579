"""The doors of :func:`compare` and :func:`ranking_report` for per-query values.

:func:`accepts_per_query_values` lets either take a :class:`PerQueryValues` as its
first argument (refusing the row-level arguments next to it); :func:`chosen_metrics`
and :func:`frame_library_of` read what the call asks of the values.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any

from .._engine._caller import caller_name, renamed_as
from .._engine._ranking_rows import bind_call
from .._engine._validation import check_parameter
from .._metrics._evaluate import metric_names
from ._per_query_values import PerQueryValues

# the libraries a table can come back in (those of _engine._frames.frame_of)
_OUTPUT_LIBRARIES = ("pandas", "polars", "pyarrow")


def chosen_metrics(
    values: PerQueryValues, metrics: str | Sequence[str] | None
) -> tuple[list[str], list[int]]:
    """The metric names asked for (None: all) and their positions in ``values.metrics``;
    a name the values do not hold is a ValueError naming the caller."""
    if metrics is None:
        return list(values.metrics), list(range(len(values.metrics)))
    names = metric_names(metrics)
    unknown = [name for name in names if name not in values.metrics]
    if unknown:
        raise ValueError(
            f"The 'metrics' parameter of {caller_name()} names {unknown[0]!r}, which the "
            f"PerQueryValues does not hold; it holds {list(values.metrics)}. Leave "
            "'metrics' out to use them all."
        )
    return names, [values.metrics.index(name) for name in names]


# the parameters of compare and ranking_report that apply to rows, not to per-query values
_ROW_HINTS = {
    "replace_undefined_by": "pass it to PerQueryValues.from_frame, which reads the values "
    "by it",
    "convention": "pass it to PerQueryValues.from_frame, which reads the values by it",
}


def accepts_per_query_values(
    values_function: Callable[..., Any], row_parameters: tuple[str, ...]
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Let ``compare`` or ``ranking_report`` take a :class:`PerQueryValues` first.

    The call is bound to the decorated function's signature and its parameter
    constraints are checked (``_parameter_constraints``); ``row_parameters`` (the
    scores, the query ids, the row-level settings) given next to the values are
    refused, naming them; the other arguments, defaults filled, go to
    ``values_function(values, ...)``, with ``metrics=None`` when not given (every
    metric of the values). Calls with rows pass through untouched.
    """

    def decorate(function: Callable[..., Any]) -> Callable[..., Any]:
        signature = inspect.signature(function)
        constraints = getattr(function, "_parameter_constraints", {})
        shown = function.__name__

        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            first = args[0] if args else kwargs.get("y_true")
            if not isinstance(first, PerQueryValues):
                return function(*args, **kwargs)
            with renamed_as(shown):
                bound = bind_call(signature, args, kwargs)
                given = dict(bound.arguments)
                _refuse_row_arguments(given, row_parameters)
                for name, value in given.items():
                    if name in constraints:
                        check_parameter(shown, name, value, constraints[name])
            bound.apply_defaults()
            arguments = {
                name: value for name, value in bound.arguments.items()
                if name != "y_true" and name not in row_parameters
            }
            if "metrics" not in given:
                arguments["metrics"] = None
            return values_function(first, **arguments)

        return wrapper

    return decorate


def _refuse_row_arguments(given: dict[str, Any], row_parameters: tuple[str, ...]) -> None:
    named = [name for name in row_parameters if given.get(name) is not None]
    if not named:
        return
    listed = ", ".join(f"{name}=" for name in named)
    hints = [_ROW_HINTS[name] for name in named if name in _ROW_HINTS]
    hint = f" ({hints[0]})" if hints else ""
    raise ValueError(
        f"{caller_name()} got a PerQueryValues as its first argument and also {listed}; "
        "those apply to ranking rows, and the values are computed already, so they do not "
        f"apply. Leave them out{hint}, or pass the rows instead of the values."
    )


def frame_library_of(values: PerQueryValues) -> str | None:
    """The library of the tables returned for ``values`` (None: pandas, as for arrays)."""
    library = values.frame_library
    return library if library in _OUTPUT_LIBRARIES else None
