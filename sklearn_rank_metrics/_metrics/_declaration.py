"""``@metric(...)``: a public metric declared once, beside its function.

One decorator over a written-out signature (IDEs, :mod:`inspect` and the docstring
test read it) whose body is only the docstring. The declaration carries every fact
about the metric that another part of the package needs:

- its registry name(s) and flags (:class:`MetricInfo`): the registry collects them;
- its parameter constraints: the shared ones come from the parameter names
  (:data:`SHARED_CONSTRAINTS`: ``k``, ``ties``, ``replace_undefined_by``, ...), the
  metric's own are given;
- its value range as a function of its parameters (``value_range=``), which the
  range check of every per-query value and the property tests read;
- its names in other tools (``aliases=``), which the alias table collects;
- each tool's parameters, tie order and precision (``providers=``), which the
  conventions read.

A call fills nothing by hand: the decorator binds the arguments once, applies the
convention, validates the parameters, names the caller for error messages
(:func:`~.._engine._caller.called_as`) and runs :func:`~._base.score`.
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from .._engine._caller import called_as, caller_name
from .._engine._doc_ids import TieOrderRule
from .._engine._errors import RowValueError
from .._engine._ranked_groups import RankedGroups
from .._engine._ranking_rows import call_error, expand_rows
from .._engine._validation import ARRAY_LIKE, BOOLEAN, CALLABLE, Interval, Options, check_parameter
from .._kernels._graded import DISCOUNTS, GAINS
from ._aggregate import PerQuery, aggregate
from ._aliases import Alias
from ._base import (
    ANY_RANK,
    RELEVANCE_LEVEL,
    REPLACE_UNDEFINED_BY,
    TIES,
    K,
    fill_doc,
    resolve_ignore_ties,
)
from ._conventions import (
    Convention,
    Ordering,
    Provider,
    check_convention,
    in_input_rows,
    register_providers,
    warn_tool_nan,
    warn_unordered_ties,
)
from ._reading import read_for, rows_at_door

Constraints = Mapping[str, list]
ValueRange = Callable[[Mapping[str, Any]], tuple[float, float]]

# Constraints that come with a parameter's name, whatever the metric.
SHARED_CONSTRAINTS: Constraints = MappingProxyType(
    {
        "k": K,
        "ties": TIES,
        "replace_undefined_by": REPLACE_UNDEFINED_BY,
        "relevance_level": RELEVANCE_LEVEL,
        "gain": [Options(*GAINS), CALLABLE, ARRAY_LIKE],
        "discount": [Options(*DISCOUNTS)],
        "ignore_ties": [BOOLEAN],
        "log_base": [Interval(float, 1, None, closed="neither")],
    }
)

# Parameters of a public function that are not the kernel's.
NON_KERNEL_PARAMETERS = (
    "y_true",
    "y_score",
    "group",
    "sample_weight",
    "replace_undefined_by",
    "ignore_ties",
    "convention",
    "judged",
)



def unit_interval(params: Mapping[str, Any]) -> tuple[float, float]:
    """The range of a normalised metric: [0, 1] whatever its parameters."""
    return (0.0, 1.0)


def non_negative(params: Mapping[str, Any]) -> tuple[float, float]:
    """The range of a sum of gains or rows: [0, inf)."""
    return (0.0, math.inf)


@dataclass(frozen=True)
class MetricInfo:
    """What the package knows about one registry name of a declared metric.

    Attributes
    ----------
    name : str
        Canonical text name (``"ndcg"``, ``"map"``, ...).
    function : callable
        The public function.
    per_query : callable
        Its kernel: ``per_query(ranked, **params) -> PerQuery``, the declared value
        range set on the result.
    fixed_params : mapping
        Parameters the name fixes (``cg`` is ``dcg`` with ``discount="none"``).
    greater_is_better : bool
        The direction: True for the ``*_score`` functions, False for the ``*_loss``
        ones (fall-out); the scorers, the booster metrics, ``compare`` and the
        difference display read it.
    value_range : callable
        ``value_range(params) -> (low, high)``: the range of every per-query value
        with the metric's (kernel) parameters.
    graded : bool
        Uses graded labels (gains) rather than relevant / not relevant.
    takes_k : bool
        Has a cutoff ``k``.
    ideal_is_one : bool
        A perfect ranking scores exactly 1 (without a cutoff, every query holding a
        relevant row): NDCG, AP, RR, recall, hit rate, AUC; not DCG, ERR, P or F.
    always_defined : bool
        Defined for every query, also without a relevant row (Judged@k measures how
        much of the top k is judged), so ``replace_undefined_by`` never applies.
    undefined_without : {"relevant", "non_relevant"}
        What a query needs to be defined (unless ``always_defined``): a relevant row
        (every metric but one), or a non-relevant row (fall-out, the share of them
        ranked in the top k).
    total : bool
        Summed over queries, not averaged (trec_eval's counts), unless the name
        sets ``summary=mean`` (ranx's ``hits``): :attr:`MetricSpec.total` decides.
    always_shown : tuple of str
        Parameters the canonical text prints even at their default
        (``iprec(recall=0.0)``: the level is the measure).
    reads_judgments : tuple of (str, tuple) pairs, or True
        The metric reads which rows were judged (bpref, Judged@k): ``True``, or only
        when a parameter takes one of some values (RBP with ``part`` ``"residual"``
        or ``"upper"``); :attr:`MetricSpec.reads_judgments` decides.
    aliases : tuple of Alias
        Its names in other tools.
    tie_order : callable
        ``tie_order(kernel_params) -> TieReach | None``: where the order of tied
        rows can change its value (None: nowhere), for the warning of a convention
        that orders ties by document ids a call lacks (:class:`TieOrderWarning`).
    """

    name: str
    function: Callable
    per_query: Callable
    fixed_params: Mapping[str, Any] = field(default_factory=dict)
    greater_is_better: bool = True
    value_range: ValueRange = unit_interval
    graded: bool = False
    takes_k: bool = True
    ideal_is_one: bool = False
    always_defined: bool = False
    undefined_without: str = "relevant"
    total: bool = False
    always_shown: tuple[str, ...] = ()
    reads_judgments: bool | tuple[tuple[str, tuple[Any, ...]], ...] = False
    aliases: tuple[Alias, ...] = ()
    tie_order: TieOrderRule = ANY_RANK

    @property
    def defaults(self) -> dict[str, Any]:
        """The public function's keyword defaults, the fixed parameters applied."""
        values = dict(keyword_defaults(self.function))
        values.update(self.fixed_params)
        return values

    @property
    def bounded_01(self) -> bool:
        """Values lie in [0, 1] at the default parameters."""
        return self.value_range(self.defaults) == (0.0, 1.0)


@dataclass(frozen=True)
class Variant:
    """Another registry name of a declared function: its fixed parameters and flags."""

    name: str
    fixed_params: Mapping[str, Any] = field(default_factory=dict)
    flags: Mapping[str, Any] = field(default_factory=dict)


@functools.cache
def keyword_defaults(function: Callable) -> Mapping[str, Any]:
    """Keyword defaults of a public function (read once: ``inspect`` is slow)."""
    parameters = inspect.signature(function).parameters
    return MappingProxyType(
        {
            name: parameter.default
            for name, parameter in parameters.items()
            if parameter.default is not inspect.Parameter.empty and name != "group"
        }
    )


# every registry name declared so far, in declaration order; the registry collects it
DECLARED: dict[str, MetricInfo] = {}


@dataclass(frozen=True)
class _Declaration:
    """What a call needs: the function's signature, constraints, kernel and checks."""

    name: str
    signature: inspect.Signature
    constraints: Constraints
    per_query: Callable[..., PerQuery]
    check: Callable[[Mapping[str, Any]], None] | None
    tie_order: TieOrderRule = ANY_RANK

    @functools.cached_property
    def accepted(self) -> frozenset[str]:
        """The parameter names."""
        return frozenset(self.signature.parameters)

    @functools.cached_property
    def defaults(self) -> dict[str, Any]:
        """Every parameter's default (``group`` included)."""
        return {
            name: parameter.default
            for name, parameter in self.signature.parameters.items()
            if parameter.default is not inspect.Parameter.empty
        }


def metric(
    name: str,
    per_query: Callable[..., PerQuery],
    *,
    constraints: Constraints | None = None,
    value_range: ValueRange = unit_interval,
    aliases: Sequence[Alias] = (),
    providers: Mapping[str | tuple[str, ...], Provider] | None = None,
    fixed_params: Mapping[str, Any] | None = None,
    variants: Sequence[Variant] = (),
    check: Callable[[Mapping[str, Any]], None] | None = None,
    doc_fragments: Mapping[str, str] | None = None,
    tie_order: TieOrderRule = ANY_RANK,
    **flags: Any,
) -> Callable[[Callable], Callable]:
    """Declare the public metric ``name`` computed per query by ``per_query``.

    Parameters
    ----------
    name : str
        Its registry name.
    per_query : callable
        ``per_query(ranked, **kernel_params) -> PerQuery``.
    constraints : mapping, default=None
        Constraints of the metric's own parameters; those of the shared parameter
        names (:data:`SHARED_CONSTRAINTS`) are added for every one the signature has.
    value_range : callable, default=unit_interval
        ``value_range(kernel_params) -> (low, high)``.
    aliases : sequence of Alias
        Its names in other tools (an alias without ``target`` names ``name``).
    providers : mapping of tool name (or tuple of names) to Provider
        Each convention's parameters and tie order / precision for this metric.
    fixed_params : mapping, default=None
        Parameters ``name`` fixes.
    variants : sequence of Variant
        Other registry names of the same function (``cg`` is ``dcg`` without
        discount), with their fixed parameters and flags.
    check : callable, default=None
        ``check(arguments)``, run on the validated arguments before ranking
        (scikit-learn's own checks of its 2-D form).
    doc_fragments : mapping, default=None
        Docstring fragments of this metric's own (``[[name]]`` markers), beside the
        shared ones.
    tie_order : callable, default=ANY_RANK
        ``tie_order(kernel_params) -> TieReach | None``: where the order of tied rows
        can change the value (:func:`._base.tie_order`), so that a convention's tie
        order by document id warns only where it matters.
    **flags
        The :class:`MetricInfo` flags (``graded``, ``takes_k``, ...).
    """

    def decorate(function: Callable) -> Callable:
        fill_doc(function, doc_fragments)
        signature = inspect.signature(function)
        kernel = _ranged(per_query, value_range, function.__name__)
        declaration = _Declaration(
            function.__name__,
            signature,
            _constraints_of(signature, constraints or {}),
            kernel,
            check,
            tie_order,
        )

        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with called_as(declaration.name):
                return _call(declaration, args, kwargs)

        # read by parse_metric and the common tests, as validate_params leaves it
        wrapper.__dict__["_parameter_constraints"] = dict(declaration.constraints)
        register_providers(function.__name__, _by_tool(providers or {}))
        entries = [Variant(name, dict(fixed_params or {}), flags), *variants]
        for entry in entries:
            if entry.name in DECLARED:
                raise ValueError(f"@metric: the name {entry.name!r} is declared twice")
            DECLARED[entry.name] = MetricInfo(
                entry.name,
                wrapper,
                kernel,
                dict(entry.fixed_params),
                value_range=value_range,
                aliases=tuple(
                    replace(alias, target=alias.target or name)
                    for alias in aliases
                    if (alias.target or name) == entry.name
                ),
                tie_order=tie_order,
                **{**flags, **entry.flags},
            )
        return wrapper

    return decorate


def _constraints_of(signature: inspect.Signature, own: Constraints) -> dict[str, list]:
    """The shared constraints of the signature's parameter names, then the metric's own."""
    shared = {
        name: constraint
        for name, constraint in SHARED_CONSTRAINTS.items()
        if name in signature.parameters and name not in own
    }
    unknown = set(own) - set(signature.parameters)
    if unknown:
        raise TypeError(f"@metric: constraints for parameters not in the signature: {unknown}")
    return {**shared, **own}


def _by_tool(providers: Mapping[str | tuple[str, ...], Provider]) -> dict[str, Provider]:
    """``{("a", "b"): p}`` as ``{"a": p, "b": p}``."""
    out: dict[str, Provider] = {}
    for tools, provider in providers.items():
        for tool in (tools,) if isinstance(tools, str) else tools:
            out[tool] = provider
    return out


def _ranged(
    per_query: Callable[..., PerQuery], value_range: ValueRange, metric_function: str
) -> Callable[..., PerQuery]:
    """The kernel as the registry holds it: the caller named, the declared range set.

    Errors name the public function called, else the metric function (a kernel
    called directly: the Dask partitions, the tests).
    """

    def kernel(ranked: RankedGroups, **params: Any) -> PerQuery:
        with called_as(metric_function):
            values = per_query(ranked, **params)
        declared = value_range(params)
        low, high = values.value_range
        if values.value_range == declared or (low < declared[0] and high >= declared[1]):
            return values  # a range the kernel widened for its data (2-D signed DCG)
        return replace(values, value_range=declared)

    kernel.__name__ = kernel.__qualname__ = getattr(per_query, "__name__", "kernel")
    kernel.__dict__["__wrapped__"] = per_query
    return kernel


def _call(declaration: _Declaration, args: tuple, kwargs: dict[str, Any]) -> Any:
    """A call of a declared metric: bind, apply the convention, validate, score."""
    try:
        given = declaration.signature.bind_partial(*args, **kwargs).arguments
    except TypeError as error:
        hint = (
            " Document ids go to evaluate(..., doc_id=), or come with a RankingData passed whole."
            if "doc_id" in kwargs
            else ""
        )
        message = call_error(declaration.signature, kwargs, declaration.name, error)
        raise TypeError(message + hint) from None
    # a RankingData passed whole gives every field it carries (expand_rows)
    arguments, doc_id = expand_rows(given, declaration.accepted)
    convention = check_convention(arguments.get("convention"))
    ordering = None
    if convention is not None:
        arguments["convention"] = None
        for parameter, value in convention.settings(
            declaration.name, declaration.accepted
        ).items():
            if parameter == "ties" and arguments.get("ignore_ties"):
                continue  # scikit-learn's ignore_ties=True already chose the tie order
            arguments.setdefault(parameter, value)
        ordering = convention.ordering_of(declaration.name, arguments)
    result = _scored(declaration, arguments, convention, ordering, doc_id)
    if convention is not None and isinstance(result, float) and math.isnan(result):
        warn_tool_nan(arguments.get("replace_undefined_by"))
    return result


def _scored(
    declaration: _Declaration,
    arguments: Mapping[str, Any],
    convention: Convention | None,
    ordering: Ordering | None,
    doc_id: Any,
) -> float:
    """Validate the parameters and the rows (once), read them as the convention's
    tool does, rank, and score: the pipeline :func:`evaluate` runs for many metrics
    (:mod:`._reading`)."""
    bound = declaration.signature.bind(**arguments)
    for parameter, value in bound.arguments.items():
        if parameter in declaration.constraints:
            check_parameter(caller_name(), parameter, value, declaration.constraints[parameter])
    values = {**declaration.defaults, **bound.arguments}
    if declaration.check is not None and convention is None:
        declaration.check(values)  # scikit-learn's own checks of its 2-D form
    if "ignore_ties" in values:
        values["ties"] = resolve_ignore_ties(values["ignore_ties"], values["ties"])
    kernel_params = {
        parameter: value
        for parameter, value in values.items()
        if parameter not in NON_KERNEL_PARAMETERS
    }
    rows = rows_at_door(
        values["y_true"],
        values["y_score"],
        values["group"],
        sample_weight=values.get("sample_weight"),
        judged=values.get("judged"),
        doc_id=values.get("doc_id", doc_id),
        convention=convention,
    )
    ranked = read_for(rows, convention, ordering)
    if declaration.check is not None and convention is not None:
        # scikit-learn's checks of its 2-D form, on what the convention's tool reads
        read = ranked.rows
        declaration.check({
            **values,
            "y_true": read.labels.reshape(read.shape),
            "y_score": read.scores.reshape(read.shape),
        })
    if convention is not None:
        warn_unordered_ties(
            convention.name,
            [(ordering, kernel_params, ranked.ranked, declaration.tie_order,
              ranked.tie_order_followed)],
        )
    try:
        per_query = declaration.per_query(ranked.ranked, **kernel_params)
    except RowValueError as error:
        if ranked.input_rows is None:
            raise
        raise in_input_rows(error, ranked.input_rows) from None
    return aggregate(per_query, ranked.ranked, values["replace_undefined_by"])
