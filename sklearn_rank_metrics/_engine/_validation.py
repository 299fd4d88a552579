"""Declared parameter constraints and the one error-message shape.

Every public function declares the allowed values of its keyword parameters with
:func:`validate_params`. A value that no constraint accepts raises::

    The 'k' parameter of ndcg_score must be an int >= 1 or None. Got 0 instead.

as a ``TypeError`` when no constraint accepts the value's *type*, and as a
``ValueError`` when the type is right but the value is not.
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np


class _Constraint:
    """One allowed kind of value for a parameter."""

    def type_matches(self, value: Any) -> bool:
        raise NotImplementedError

    def is_satisfied_by(self, value: Any) -> bool:
        return self.type_matches(value)

    def note(self, value: Any) -> str:
        """More about why ``value`` fails, where the rule as printed does not say it."""
        return ""

    def __str__(self) -> str:
        raise NotImplementedError


class _NoneConstraint(_Constraint):
    def type_matches(self, value: Any) -> bool:
        return value is None

    def __str__(self) -> str:
        return "None"


class Interval(_Constraint):
    """A number of type ``kind`` (``int`` or ``float``) in a range.

    ``float`` accepts ints as well; bools are never numbers here. ``beyond``: the
    right bound is a technical limit no real value meets (``k`` stays inside int64
    arithmetic), so the rule is printed without it (``an int >= 1``), and a value
    above it gets this note instead.
    """

    def __init__(
        self,
        kind: type,
        left: float | None,
        right: float | None,
        *,
        closed: str = "both",
        beyond: str | None = None,
    ) -> None:
        self.kind = kind
        self.left = left
        self.right = right
        self.closed = closed
        self.beyond = beyond

    def type_matches(self, value: Any) -> bool:
        if isinstance(value, (bool, np.bool_)):
            return False
        abstract = numbers.Integral if self.kind is int else numbers.Real
        return isinstance(value, abstract)

    def is_satisfied_by(self, value: Any) -> bool:
        if not self.type_matches(value):
            return False
        if not math.isfinite(float(value)):  # NaN, and infinity: no bound is infinite
            return False
        left_closed = self.closed in ("both", "left")
        right_closed = self.closed in ("both", "right")
        if self.left is not None and (
            value < self.left or (value == self.left and not left_closed)
        ):
            return False
        if self.right is not None and (
            value > self.right or (value == self.right and not right_closed)
        ):
            return False
        return True

    def note(self, value: Any) -> str:
        if self.beyond is None or self.right is None or not self.type_matches(value):
            return ""
        return self.beyond if math.isfinite(float(value)) and value > self.right else ""

    def __str__(self) -> str:
        kind = "an int" if self.kind is int else "a float"
        left_op = ">=" if self.closed in ("both", "left") else ">"
        right_op = "<=" if self.closed in ("both", "right") else "<"
        if self.beyond is not None:  # the right bound is a limit, told by note()
            return str(Interval(self.kind, self.left, None, closed=self.closed))
        if self.left is not None and self.right is not None:
            left_bracket = "[" if self.closed in ("both", "left") else "("
            right_bracket = "]" if self.closed in ("both", "right") else ")"
            return f"{kind} in the range {left_bracket}{self.left}, {self.right}{right_bracket}"
        if self.left is not None:
            return f"{kind} {left_op} {self.left}"
        if self.right is not None:
            return f"{kind} {right_op} {self.right}"
        return kind


class Options(_Constraint):
    """One of a fixed set of values (strings, or numbers where ``nan`` is allowed)."""

    def __init__(self, *options: Any) -> None:
        self.options = options

    def _is_string_options(self) -> bool:
        return all(isinstance(option, str) for option in self.options)

    def type_matches(self, value: Any) -> bool:
        if self._is_string_options():
            return isinstance(value, str)
        return any(_same_type_family(value, option) for option in self.options)

    def is_satisfied_by(self, value: Any) -> bool:
        return any(_option_equals(value, option) for option in self.options)

    def __str__(self) -> str:
        shown = ", ".join(_show(option) for option in self.options)
        return f"a str among {{{shown}}}" if self._is_string_options() else f"one of {{{shown}}}"


class HasMethods(_Constraint):
    """A callable (scikit-learn's ``HasMethods("__call__")``; this port takes no methods)."""

    def type_matches(self, value: Any) -> bool:
        return callable(value)

    def __str__(self) -> str:
        return "a callable"


class Boolean(_Constraint):
    """``True`` or ``False`` (NumPy bools too)."""

    def type_matches(self, value: Any) -> bool:
        return isinstance(value, (bool, np.bool_))

    def __str__(self) -> str:
        return "a bool"


class ArrayLike(_Constraint):
    """A list, tuple or NumPy array (checked in detail by the caller)."""

    def type_matches(self, value: Any) -> bool:
        return isinstance(value, (list, tuple, np.ndarray))

    def __str__(self) -> str:
        return "an array-like"


class InstanceOf(_Constraint):
    """An instance of a class (e.g. a ``RandomState`` or a tuple), named in messages."""

    def __init__(self, kind: type | tuple[type, ...], description: str) -> None:
        self.kind = kind
        self.description = description

    def type_matches(self, value: Any) -> bool:
        return isinstance(value, self.kind)

    def __str__(self) -> str:
        return self.description


NONE = _NoneConstraint()
BOOLEAN = Boolean()
CALLABLE = HasMethods()
ARRAY_LIKE = ArrayLike()


def _same_type_family(value: Any, option: Any) -> bool:
    if isinstance(option, str):
        return isinstance(value, str)
    if isinstance(value, (bool, np.bool_)):
        return False
    return isinstance(value, numbers.Real)


def _option_equals(value: Any, option: Any) -> bool:
    if not _same_type_family(value, option):
        return False
    if isinstance(option, str):
        return value == option
    if isinstance(option, float) and math.isnan(option):
        return math.isnan(float(value))
    return float(value) == float(option)


def _show(value: Any) -> str:
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    return repr(value)


def check_parameter(owner: str, name: str, value: Any, constraints: list) -> None:
    """Raise the package's error if ``value`` satisfies none of ``constraints``.

    ``owner`` names the function whose parameter ``name`` is: given, not read from
    the caller, since it is not always the caller (``validate_params`` gives the
    decorated function's; ``check_parameter(caller_name(), ...)`` the caller's).
    """
    if any(constraint.is_satisfied_by(value) for constraint in constraints):
        return
    allowed = [str(constraint) for constraint in constraints]
    if len(allowed) > 1:
        allowed_text = ", ".join(allowed[:-1]) + " or " + allowed[-1]
    else:
        allowed_text = allowed[0]
    notes = "".join(constraint.note(value) for constraint in constraints)
    message = (
        f"The {name!r} parameter of {owner} must be {allowed_text}. "
        f"Got {_show(value)} instead{notes}."
    )
    if any(constraint.type_matches(value) for constraint in constraints):
        raise ValueError(message)
    raise TypeError(message)


def validate_params(constraints: Mapping[str, list]) -> Callable:
    """Decorate a public function so that its declared parameters are checked first.

    The constraints stay readable on the function as ``_parameter_constraints``.
    """

    def decorator(function: Callable) -> Callable:
        signature = inspect.signature(function)

        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            bound = signature.bind(*args, **kwargs)
            for name, value in bound.arguments.items():
                if name in constraints:
                    check_parameter(function.__name__, name, value, constraints[name])
            return function(*args, **kwargs)

        wrapper.__dict__["_parameter_constraints"] = dict(constraints)
        return wrapper

    return decorator
