"""User values in messages as the user wrote them (``1``, not ``np.int64(1)``)."""

from __future__ import annotations

from typing import Any

import numpy as np


def plain(value: Any) -> Any:
    """``value`` with NumPy scalars and arrays made Python objects, for messages.

    Since NumPy 2, ``repr`` of a NumPy scalar shows its type (``np.int64(1)``,
    ``np.str_('q1')``), while the user wrote ``1`` or ``'q1'``; ``.tolist()``
    gives the Python value (and a list for an array). Anything else is returned
    as is.
    """
    if isinstance(value, (np.generic, np.ndarray)):
        return value.tolist()
    return value


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` and the noun, singular for one: ``"1 query"``, ``"3 queries"``.

    ``plural`` defaults to the noun with ``s``, or ``ies`` for a noun ending in a
    consonant and ``y`` (query, entry).
    """
    if count == 1:
        return f"{count} {noun}"
    if plural is None:
        consonant_y = noun.endswith("y") and noun[-2:-1] not in "aeiou"
        plural = noun[:-1] + "ies" if consonant_y else noun + "s"
    return f"{count:,} {plural}"
