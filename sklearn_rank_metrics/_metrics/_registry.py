"""One entry per metric, and the text form ``name(param=value,...)@k`` that names it.

The registry feeds :func:`~sklearn_rank_metrics.evaluate`, the scorers, the command
line, Dask, the reports and displays, and the common tests. Parsing is a registry
lookup plus a small splitter, never ``eval``; :class:`MetricSpec` prints back its
canonical text.
"""

from __future__ import annotations

import importlib
import math
import pkgutil
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from .._engine._caller import called_as, caller_name
from .._engine._validation import check_parameter
from ._aliases import Alias, suggestions, translate
from ._declaration import DECLARED, NON_KERNEL_PARAMETERS, MetricInfo

# Importing a module that declares metrics (@metric) registers them: import every
# module of this package, so that a new metric module needs no line here, but those
# that read the registry themselves (they import it, so they come after it).
# tests/metrics/test_registry_imports.py checks that nothing declared is missed.
READS_THE_REGISTRY = frozenset({"_registry", "_evaluate", "_streaming"})
for _module in pkgutil.iter_modules([str(Path(__file__).parent)]):
    if _module.name not in READS_THE_REGISTRY:
        importlib.import_module(f"{__package__}.{_module.name}")

# every metric, from the declarations of the modules imported above
METRICS: Mapping[str, MetricInfo] = MappingProxyType(dict(DECLARED))

# every alias of another tool's name, with its target
ALIASES: tuple[Alias, ...] = (*(alias for info in DECLARED.values() for alias in info.aliases),)
_BY_BASE: Mapping[str, Alias] = MappingProxyType({alias.base.lower(): alias for alias in ALIASES})

_NAME_PATTERN = re.compile(r"^(?P<name>[a-z0-9_]+)(?P<params>\(.*\))?(?:@(?P<k>[0-9]+))?$")


@dataclass(frozen=True)
class MetricSpec:
    """A parsed metric name: the registry entry, its parameters and its cutoff."""

    info: MetricInfo
    params: Mapping[str, Any]

    @property
    def kernel_params(self) -> dict[str, Any]:
        """Every parameter the kernel takes, defaults filled in."""
        values = self.info.defaults
        values.update(self.params)
        return {name: value for name, value in values.items() if name not in NON_KERNEL_PARAMETERS}

    @property
    def reads_judgments(self) -> bool:
        """Whether the metric, with these parameters, reads which rows were judged."""
        rule = self.info.reads_judgments
        if isinstance(rule, bool):
            return rule
        params = self.kernel_params
        return any(params.get(name) in values for name, values in rule)

    @property
    def total(self) -> bool:
        """The summary is the sum over queries (a count whose ``summary`` is not the mean)."""
        return self.info.total and self.kernel_params.get("summary", "sum") == "sum"

    def __str__(self) -> str:
        defaults = self.info.defaults
        shown = {
            name: value
            for name, value in self.params.items()
            if name != "k"
            and name not in self.info.fixed_params
            and (name in self.info.always_shown or not _same(value, defaults.get(name)))
        }
        for name in self.info.always_shown:
            shown.setdefault(name, defaults[name])
        text = self.info.name
        if shown:
            text += "(" + ",".join(f"{name}={_format(shown[name])}" for name in sorted(shown)) + ")"
        if self.params.get("k") is not None:
            text += f"@{self.params['k']}"
        return text


def _same(a: Any, b: Any) -> bool:
    """Equality of two scalar parameter values, NaN equal to NaN."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def _format(value: Any) -> str:
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    return str(value)


def _split_top_level(text: str) -> list[str]:
    """Split ``a=1,b=max(1,log(rank))`` on the commas outside parentheses."""
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for character in text:
        if character == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        depth += {"(": 1, ")": -1}.get(character, 0)
        current.append(character)
    parts.append("".join(current))
    return [part.strip() for part in parts if part.strip()]


# spaces around the punctuation of a formula value: "min(k, n_relevant)"
_FORMULA_SPACES = re.compile(r"\s*([(),+*/])\s*")


def _unspaced(text: str) -> str:
    """An unquoted value without the spaces around its formula punctuation, stripped.

    ``"min(k, n_relevant)"`` is ``"min(k,n_relevant)"`` and ``"log(rank + 1)"`` is
    ``"log(rank+1)"``: the canonical name prints them without spaces.
    """
    return _FORMULA_SPACES.sub(r"\1", text.strip())


def _parse_value(text: str) -> Any:
    """A parameter value from its text; quoted text stays a string, exactly."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    text = _unspaced(text)
    if text.lower() == "nan":
        return math.nan
    if text in ("True", "False"):
        return text == "True"
    if text.lower() == "none":
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


# The longest metric name parse_metric reads. Every name the registry prints with all
# its parameters is under 100 characters; a longer text is refused before any regular
# expression or did-you-mean search runs on it, so the work per name stays bounded.
MAX_METRIC_NAME_LENGTH = 256


def known_names() -> str:
    """The registry's names, sorted, for messages."""
    return ", ".join(sorted(METRICS))


def _shown(text: str, limit: int = 40) -> str:
    """``repr`` of a user's text, cut to its first ``limit`` characters."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + "..."


def _parses(text: str) -> bool:
    """Whether a suggested name parses (a did-you-mean never proposes an invalid name)."""
    try:
        parse_metric(text)
    except (TypeError, ValueError):
        return False
    return True


def parse_metric(text: str) -> MetricSpec:
    """Parse ``"ndcg@10"``, ``"map"``, ``"ndcg(gain=exponential)@10"`` into a spec.

    Every parameter is checked against the public function's declared constraints.
    A name longer than :data:`MAX_METRIC_NAME_LENGTH` (256) characters is refused
    before it is read. Errors name the public function called (``evaluate`` outside
    one; see ``_caller``).
    """
    with called_as("evaluate"):
        return _parsed(text)


def _parsed(text: str) -> MetricSpec:
    """:func:`parse_metric`, its errors naming the caller."""
    _check_text(text)
    match = _NAME_PATTERN.match(text.strip())
    info = METRICS.get(match.group("name")) if match else None
    if match is None or info is None:
        # another tool's name (trec_eval, ir_measures, ranx): the alias table
        translated = translate(text, {name: m.graded for name, m in METRICS.items()}, _BY_BASE)
        if translated is not None:
            return _parsed(translated)
        raise _unknown(text)
    constraints = getattr(info.function, "_parameter_constraints", {})
    params = _named_params(info, match.group("params"), text, constraints)
    if match.group("k") is not None:
        params["k"] = _cutoff(info, match.group("k"), text)
    for name, value in params.items():
        if name in constraints:
            check_parameter(info.function.__name__, name, value, constraints[name])
    return MetricSpec(info, MappingProxyType(params))


def _check_text(text: Any) -> None:
    """A metric name is a str of at most :data:`MAX_METRIC_NAME_LENGTH` characters."""
    if not isinstance(text, str):
        raise TypeError(
            f"A metric name of {caller_name()} must be a str such as 'ndcg@10'; got "
            f"{type(text).__name__} instead."
        )
    if len(text) > MAX_METRIC_NAME_LENGTH:
        raise ValueError(
            f"Metric name {_shown(text)} of {caller_name()} is {len(text)} characters long; "
            f"a metric name has at most {MAX_METRIC_NAME_LENGTH} characters, e.g. 'ndcg@10'."
        )


def _unknown(text: str) -> ValueError:
    """The error for a name neither the registry nor the alias table knows, with hints."""
    close = [
        name
        for name in suggestions(text, {name: m.takes_k for name, m in METRICS.items()}, ALIASES)
        if _parses(name)
    ]
    hint = f" Did you mean {' or '.join(repr(name) for name in close)}?" if close else ""
    several = several_names(text)
    if several is not None:
        hint = f" It holds {len(several)} metric names separated by commas; " + (
            f"separate them by spaces: --metrics {' '.join(several)}."
            if caller_name().startswith("rank-metrics")  # the command line
            else f"give each name on its own: {several!r}."
        )
    return ValueError(
        f"Unknown metric {text!r} for {caller_name()}.{hint} Known names: {known_names()}; "
        "write them as name, name@k or name(param=value,...)@k, e.g. 'ndcg@10', or as "
        "trec_eval, ir_measures, ranx or recommender work name them ('P_10', 'nDCG@10', "
        "'precision@10', 'hits@10', 'HR@10', 'mapk@10')."
    )


def several_names(text: str) -> list[str] | None:
    """The names of ``"map,ndcg_cut_10"`` when it is a comma-separated list of names.

    Commas inside parentheses (``ndcg(gain=linear,ties=input)``) separate parameters,
    not names; None unless there are two parts at least and each one parses.
    """
    parts = _split_top_level(text)
    if len(parts) < 2 or not all(_parses(part) for part in parts):
        return None
    return parts


def _named_params(
    info: MetricInfo,
    written: str | None,
    text: str,
    constraints: Mapping[str, list],
) -> dict[str, Any]:
    """The fixed parameters of ``info``, then those written in ``(key=value,...)``."""
    allowed = set(info.defaults) - set(NON_KERNEL_PARAMETERS) - set(info.fixed_params) - {"k"}
    allowed |= {"replace_undefined_by"}
    params: dict[str, Any] = dict(info.fixed_params)
    for item in _split_top_level(written[1:-1]) if written else ():
        key, equals, value = item.partition("=")
        key = key.strip()
        if not equals or key not in allowed:
            raise ValueError(
                f"Unknown parameter {item!r} in metric {text!r} of {caller_name()}; "
                f"{_cutoff_hint(info, key, value, written)}{info.name} takes: "
                f"{', '.join(sorted(allowed))}."
            )
        if key in params and key not in info.fixed_params:
            raise ValueError(
                f"Parameter {key!r} is given twice in metric {text!r} of {caller_name()}; "
                "give each parameter once."
            )
        params[key] = _parse_value(value)
        if isinstance(params[key], str) or key not in constraints:
            continue
        # An unquoted word that parses as another type (``none`` -> None) but is
        # only valid as text (``discount=none``) stays text.
        try:
            check_parameter(info.function.__name__, key, params[key], constraints[key])
        except (TypeError, ValueError):
            params[key] = _unspaced(value)
    return params


def _cutoff_hint(info: MetricInfo, key: str, value: str, written: str | None) -> str:
    """For ``k=10`` written as a parameter, the name with its cutoff after ``@``."""
    if key != "k" or not info.takes_k or written is None:
        return ""
    items = _split_top_level(written[1:-1])
    others = [item for item in items if item.partition("=")[0].strip() != "k"]
    name = info.name + (f"({','.join(others)})" if others else "")
    return f"the cutoff goes after @: {name + '@' + value.strip()!r}. "


def _cutoff(info: MetricInfo, written: str, text: str) -> int:
    """The ``@k`` of a metric name, an int >= 1 (at most 2**62: :data:`._base.MAX_K`)."""
    if not info.takes_k:
        raise ValueError(f"Metric {info.name!r} of {caller_name()} takes no cutoff; got {text!r}.")
    digits = written.lstrip("0") or "0"
    if len(digits) > 19:  # beyond int64, and int() of thousands of digits refuses
        raise ValueError(
            f"The cutoff of metric {_shown(text)} of {caller_name()} must be an int >= 1; "
            f"got a number of {len(digits)} digits, beyond int64 arithmetic (at most 2**62)."
        )
    k = int(digits)
    if k < 1:
        raise ValueError(
            f"The cutoff of metric {text!r} of {caller_name()} must be an int >= 1; got {k}."
        )
    return k


def peer_names(name: str, tool: str) -> tuple[str, ...]:
    """The base names another tool gives the registry metric ``name`` (reverse lookup).

    ``peer_names("ndcg", "trec_eval") == ("ndcg_cut",)``; empty when the tool has no
    name for it. The benchmarks and cross-check tests read their peers' names here.
    """
    return tuple(alias.base for alias in ALIASES if alias.target == name and alias.tool == tool)


def name_without_cutoff(text: str) -> str | None:
    """Our name, without cutoff, for another tool's name that needs one (``"P"``: ``"p"``).

    For a context that takes names without a cutoff (the metric@k display), where
    the alias's own message (``'P_10'``) would propose a name it refuses. None when
    ``text`` is no such name.
    """
    alias = _BY_BASE.get(text.strip().lower())
    if alias is None or alias.cutoff != "required" or not _parses(alias.example):
        return None
    spec = parse_metric(alias.example)
    params = {name: value for name, value in spec.params.items() if name != "k"}
    return str(MetricSpec(spec.info, MappingProxyType(params)))
