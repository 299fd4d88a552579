"""The settings every multi-metric entry point shares: one frozen :class:`Settings`.

``evaluate``, :class:`RankingEvaluator`, the scorers, the Dask functions, ``compare``
and ``ranking_report`` take the same four keywords (``convention``, ``ties``,
``replace_undefined_by``, ``relevance_level``) and apply each to every metric that
has the parameter and does not set it in its own name. The door builds one
:class:`Settings` with :meth:`Settings.from_arguments` and passes it inward; the
public keywords stay as they are.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, fields
from typing import Any

from .._engine._caller import caller_name
from .._engine._validation import check_parameter
from ._base import SHARED_SETTINGS
from ._conventions import CONVENTIONS, preset_name


@dataclass(frozen=True)
class Settings:
    """``convention``, ``ties``, ``replace_undefined_by`` and ``relevance_level``.

    ``None`` leaves each metric its own default (or its convention's preset).
    Hashable and picklable, for Dask's task graph and for pickled evaluators.
    """

    convention: str | None = None
    ties: str | None = None
    replace_undefined_by: float | str | None = None
    relevance_level: float | None = None

    @classmethod
    def from_arguments(
        cls,
        *,
        convention: str | None = None,
        ties: str | None = None,
        replace_undefined_by: float | str | None = None,
        relevance_level: float | None = None,
    ) -> Settings:
        """The settings from an entry point's keywords (not checked: see :meth:`checked`)."""
        return cls(convention, ties, replace_undefined_by, relevance_level)

    @classmethod
    def coerce(cls, shared: Settings | Mapping[str, Any]) -> Settings:
        """A :class:`Settings`, from one or from a ``{name: value}`` dict of the four."""
        if isinstance(shared, Settings):
            return shared
        return cls.from_arguments(**shared)

    def checked(self) -> Settings:
        """``self``, after each setting passed the checks of ``evaluate``'s keywords.

        Errors name the public function called
        (:func:`~sklearn_rank_metrics._engine._caller.caller_name`).
        """
        for name, value in self.items():
            check_parameter(caller_name(), name, value, SHARED_SETTINGS[name])
        return self

    def items(self) -> Iterator[tuple[str, Any]]:
        """``(name, value)`` pairs in the order of the keywords."""
        return ((field.name, getattr(self, field.name)) for field in fields(self))

    def as_dict(self) -> dict[str, Any]:
        """``{name: value}`` for all four, as the entry points built it by hand."""
        return dict(self.items())

    def described(self) -> str | None:
        """The convention that applies and the settings given on top of it, as the
        reports and the command line's header show them; None without a convention.

        >>> Settings("trec_eval", ties="average").described()  # doctest: +ELLIPSIS
        "convention: trec_eval 10: float64 scores, ... (given: ties='average')"
        """
        name = preset_name(self.convention)
        if name is None:
            return None
        given = ", ".join(
            f"{setting}={value!r}" for setting, value in self.items()
            if value is not None and setting != "convention"
        )
        return f"convention: {CONVENTIONS[name].description}" + (
            f" (given: {given})" if given else ""
        )

    def given(
        self, accepted: Collection[str] | None = None, named: Collection[str] = ()
    ) -> dict[str, Any]:
        """The settings given (not ``None``) that apply to one metric.

        ``accepted``: the metric's parameters (``None``: any); ``named``: those its
        name sets itself (``"ndcg(ties=input)@10"``), which keep the name's value.
        """
        return {
            name: value
            for name, value in self.items()
            if value is not None
            and (accepted is None or name in accepted)
            and name not in named
        }
