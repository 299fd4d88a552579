"""The warnings raised in the workers, emitted once on the caller's side."""

from __future__ import annotations

import builtins
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from .._engine import _warnings
from .._engine._warnings import SuspiciousInputWarning, recorded_warnings, warn_at_caller
from ._plan import PartitionPlan

_SEPARATOR = "\x1f"  # between a warning's category and its text
_CATEGORY_MODULES = ("builtins", "sklearn.exceptions")


@contextmanager
def captured_warnings() -> Iterator[list[str]]:
    """Record the package's warnings raised inside the block as
    ``"<category path>\x1f<text>"`` (:func:`~.._engine._warnings.recorded_warnings`).

    For a worker, whose warnings would reach its own stderr only: the texts travel
    back with the partition's sums and :func:`warn_once` emits them on the caller's side.
    """
    texts: list[str] = []
    with recorded_warnings() as recorded:
        yield texts
    texts.extend(
        f"{category.__module__}.{category.__qualname__}{_SEPARATOR}{message}"
        for category, message in recorded
    )


def _category(path: str) -> type[Warning]:
    """The warning class named by ``path`` (builtins, ours or scikit-learn's), else UserWarning."""
    module, _, name = path.rpartition(".")
    found: Any = None
    if module == "builtins":
        found = getattr(builtins, name, None)
    elif module == _warnings.__name__:
        found = getattr(_warnings, name, None)
    elif module in _CATEGORY_MODULES:
        from sklearn import exceptions

        found = getattr(exceptions, name, None)
    return found if isinstance(found, type) and issubclass(found, Warning) else UserWarning


# the parts of a warning's text that name one partition's things: numbers, quoted ids
_PARTICULARS = re.compile(r"""'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|\d+(?:\.\d+)?""")


def warn_once(recorded: Sequence[str], plan: PartitionPlan, n_parts: int) -> None:
    """Emit each kind of warning recorded by :func:`captured_warnings` once.

    Warnings whose texts differ only in their numbers and quoted ids (one partition's
    counts and queries) are one kind. When each of the ``n_parts`` partitions that
    held rows raised the same text, it is emitted as it is: the in-memory call's
    warning. Otherwise the first text is emitted, saying that it is about one
    partition's rows and how many partitions raised it; a
    :class:`SuspiciousInputWarning` (inputs that look mixed up) only when every
    partition raised it, since one partition's rows can look so where the whole
    input does not.
    """
    kinds: dict[tuple[str, str], list[str]] = {}
    for entry in recorded:
        path, _, text = entry.partition(_SEPARATOR)
        kinds.setdefault((path, _PARTICULARS.sub("#", text)), []).append(text)
    for (path, _), texts in kinds.items():
        text = texts[0]
        if _category(path) is SuspiciousInputWarning and len(texts) != n_parts:
            # a part of the rows can look like a mix-up the whole does not (every query
            # of one partition holding one row): said only when every partition said it
            continue
        if len(texts) != n_parts or len(set(texts)) > 1:
            text += (
                f" [Raised in {len(texts)} of the {n_parts} {plan.part}s of the "
                f"{plan.frame_kind}, each about its own rows"
            )
            text += "; its counts and query ids are one's]" if len(set(texts)) > 1 else "]"
        warn_at_caller(text, _category(path))
