"""Shared docstring text: the ``[[name]]`` markers that :func:`fill_doc` fills.

The one templating routine of the package. Each layer keeps its own fragments (the
metrics' parameters in ``_metrics._base``, the displays' prose in ``_plot._doc``, the
sampled metrics' references in ``_sampled._model``) and fills its docstrings with
:func:`fill_doc`, so that the copies of a long shared paragraph cannot drift.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TypeVar

F = TypeVar("F", bound=Callable)

_MARKER = re.compile(r"\[\[(\w+)\]\]")


def fill_doc(function: F, fragments: Mapping[str, str]) -> F:
    """Replace the ``[[name]]`` markers of ``function``'s docstring by ``fragments[name]``.

    The fragments are inserted in the mapping's order, so a fragment may hold the
    marker of a later one. A marker left with no fragment is a ValueError at import:
    a typo never reaches the docs. Returns ``function``, its ``__doc__`` replaced.
    """
    doc = function.__doc__ or ""
    for name, text in fragments.items():
        doc = doc.replace(f"[[{name}]]", text)
    leftover = _MARKER.search(doc)
    if leftover:
        raise ValueError(
            f"fill_doc: the docstring of {function.__qualname__} has the marker "
            f"{leftover.group(0)} but there is no fragment {leftover.group(1)!r}."
        )
    function.__doc__ = doc
    return function
