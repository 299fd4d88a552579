"""Tables as CSV text: the csv module quotes what needs quoting."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable
from typing import Any, TextIO


def csv_cell(value: Any) -> str:
    """A value as a CSV field: floats as ``repr`` (every digit), NaN as ``nan``."""
    if isinstance(value, float):
        return "nan" if math.isnan(value) else repr(value)
    return "" if value is None else str(value)


def write(out: TextIO, header: Iterable[Any], rows: Iterable[Iterable[Any]]) -> None:
    """``header`` and ``rows`` to ``out``, every value through :func:`csv_cell`."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([csv_cell(value) for value in header])
    writer.writerows([csv_cell(value) for value in row] for row in rows)


def render(header: Iterable[Any], rows: Iterable[Iterable[Any]]) -> str:
    """:func:`write` into a string."""
    buffer = io.StringIO()
    write(buffer, header, rows)
    return buffer.getvalue()
