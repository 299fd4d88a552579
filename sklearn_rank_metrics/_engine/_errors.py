"""The error of one bad input row, so that a caller reading a file can name its line."""

from __future__ import annotations


class RowValueError(ValueError):
    """A ``ValueError`` about one row of the flat input; ``row`` is its 0-based index.

    The command line turns ``row`` into the file and line the row was read from.
    """

    def __init__(self, message: str, row: int) -> None:
        super().__init__(message)
        self.row = row
