"""Narrowing ``X | None`` where the code already knows the value was built."""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")


def present(value: T | None, name: str) -> T:
    """``value``, which the caller's own check guarantees is not None.

    For the optional fields (``RankedGroups.tied_rows``, ``Arrangement.block_of_row``,
    ...) read on a path where they exist: the type checker sees the narrowing, and a
    broken guarantee is an internal error naming the field, not an obscure NumPy one.
    """
    if value is None:
        raise RuntimeError(f"internal error: {name} is None where it must exist")
    return value
