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
