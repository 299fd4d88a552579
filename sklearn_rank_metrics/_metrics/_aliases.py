"""The metric names of trec_eval, ir_measures, ranx and recommender work, each one registry name.

IR and recommender users type the names of the tool they know: trec_eval's
``P_10``, ``ndcg_cut_10``, ``map_cut.5``, ``recip_rank``, ``success_10``;
ir_measures' ``nDCG@10``, ``nDCG(dcg='exp-log2')@10``, ``P(rel=2)@10``, ``R@100``,
``AP@10``, ``RR``, ``Success@10``, ``Rprec(rel=2)``, ``NumRet(rel=2)``,
``IPrec(rel=2)@0.5``; ranx's ``precision@10``, ``ndcg_burges@10``, ``dcg_burges@10``,
``hits@10``, ``map@10-l2``; recommender papers' ``HR@10`` (hit rate) and
ml_metrics' (Kaggle's) ``mapk@10``. Each metric declares its aliases (``@metric(aliases=)``)
and the registry collects them into one table (``_registry.ALIASES``) that maps each
to the registry's text form (``p@10``, ``ndcg(gain=exponential)@10``,
``p(relevance_level=2)@10``), which :func:`~._registry.parse_metric` then parses,
so an alias and its canonical name give the same :class:`~._registry.MetricSpec`
(printed in canonical form).

A name translates to the *measure* only: how a tool breaks ties, scores queries
without relevant rows or casts scores is its convention, chosen separately
(user guide, "Matching other tools"). Interpolated precision names its recall level
with a decimal point (trec_eval's ``iprec_at_recall_0.50``, ir_measures'
``IPrec@0.5``), which the cutoff syntax cannot hold; :data:`_INTERPOLATED` reads
those into ``iprec(recall=0.5)``.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .._engine._caller import caller_name

# ``name``, ``name(params)``, ``name@k``, ``name_k``, ``name.k``, ranx's ``-lN`` suffix
_ALIAS_PATTERN = re.compile(
    r"^(?P<base>[A-Za-z0-9][A-Za-z0-9_-]*?)"
    r"(?:\((?P<params>[^()]*)\))?"
    r"(?:(?:@|(?<=[A-Za-z])[_.])(?P<k>[0-9]+))?"
    r"(?:-l(?P<level>[0-9]+))?$"
)


@dataclass(frozen=True)
class Alias:
    """One name of another tool: its tool, its base name (case-insensitive) and ours.

    ``target`` is the registry name; ``params`` are parameters the alias fixes;
    ``cutoff`` says whether the alias takes ``@k`` / ``_k`` (``"optional"``,
    ``"required"`` or ``"none"``); ``tool_params`` maps the tool's own parameter
    names (``rel``) to ours (``relevance_level``), with value translations;
    ``retarget`` names a tool parameter that, when given, makes the name another
    measure (ir_measures' ``NumRet(rel=2)`` counts the retrieved rows of grade >= 2:
    trec_eval's ``num_rel_ret``, not ``num_ret``).
    """

    tool: str
    base: str
    target: str = ""
    params: tuple[tuple[str, str], ...] = ()
    cutoff: str = "optional"
    tool_params: tuple[tuple[str, str], ...] = (("rel", "relevance_level"),)
    example: str = ""
    retarget: tuple[tuple[str, str], ...] = ()


# ranx's rank-biased precision "rbp.8" (p = 0.8, graded: the label is the gain), with
# its "-lN" relevance level; the digits after the dot are p, not a cutoff
_RANX_RBP = re.compile(r"^rbp\.(?P<p>[0-9]+)(?:-l(?P<level>[0-9]+))?$")

# a tool's parameter value -> ours
_VALUES: dict[tuple[str, str], dict[str, str]] = {
    ("dcg", "gain"): {"log2": "linear", "exp-log2": "exponential"},
}

# trec_eval's "iprec_at_recall_0.50" and ir_measures' "IPrec@0.5" / "IPrec(rel=2)@0.5":
# the recall level
_INTERPOLATED = re.compile(
    r"^(?:iprec_at_recall[_.]|iprec(?:\((?P<params>[^()]*)\))?@)(?P<recall>[0-9]*\.?[0-9]+)$",
    re.IGNORECASE,
)
# ir_measures' IPrec, read by _INTERPOLATED (its @ is a recall level, not a cutoff)
_IPREC = Alias("ir_measures", "IPrec", "iprec", cutoff="none", example="IPrec(rel=2)@0.5")


def translate(
    text: str, registry: Mapping[str, bool], by_base: Mapping[str, Alias]
) -> str | None:
    """The registry text of another tool's metric name, or None if it is not one.

    ``registry`` maps each registry name to whether its metric is graded, ``by_base``
    each alias's base name in lower case to the alias. A registry
    name in other letter case (``MAP``, ``NDCG@10``) or with ranx's ``-lN`` suffix
    (``map@10-l2``: relevance level N) translates too. Raises a ``ValueError`` for
    trec_eval's ``iprec_at_recall`` without a level, for an alias written
    with a cutoff it does not take (or without one it needs), and for ``-lN`` on a
    graded metric (ranx then zeroes the gains below N, which no parameter does here).
    """
    stripped = text.strip()
    special = _special_name(stripped, text)
    if special is not None:
        return special
    match = _ALIAS_PATTERN.match(stripped)
    if match is None:
        return None
    alias = by_base.get(match.group("base").lower())
    target = alias.target if alias is not None else match.group("base").lower()
    if target not in registry:
        return None
    level = match.group("level")
    if level is not None and registry[target]:
        raise ValueError(
            f"Metric {text!r} of {caller_name()}: ranx's -l{level} on a graded metric "
            "zeroes the gains below that grade, which no parameter does here; pass a "
            "gain array to the metric function instead."
        )
    if alias is None:  # a registry name in other letter case, or with ranx's -lN
        return _registry_name(target, match)
    return _alias_text(alias, match, text)


def _special_name(stripped: str, text: str) -> str | None:
    """ranx's ``rbp.8`` and the interpolated precision names, whose digits are no cutoff."""
    ranx_rbp = _RANX_RBP.match(stripped)
    if ranx_rbp is not None:
        params = {"graded": "True", "p": f"0.{ranx_rbp.group('p')}"}
        if ranx_rbp.group("level") is not None:
            params["relevance_level"] = ranx_rbp.group("level")
        return _registry_text("rbp", params, None)
    interpolated = _INTERPOLATED.match(stripped)
    if interpolated is not None:
        params = _tool_params(_IPREC, interpolated.group("params"), text)
        params["recall"] = str(float(interpolated.group("recall")))  # "0.50", "0.5" alike
        return _registry_text("iprec", params, None)
    if stripped.lower() == "iprec_at_recall":
        raise ValueError(
            f"Metric {text!r} of {caller_name()}: trec_eval's iprec_at_recall reports 11 "
            "recall levels; name one, as in 'iprec_at_recall_0.50', or their mean, '11pt_avg'."
        )
    return None


def _registry_name(target: str, match: re.Match[str]) -> str:
    """A registry name written in other letter case, or with ranx's ``-lN`` suffix."""
    params = [match.group("params")] if match.group("params") else []
    if match.group("level") is not None:
        params.append(f"relevance_level={match.group('level')}")
    name = target + (f"({','.join(params)})" if params else "")
    k = match.group("k")
    return name if k is None else f"{name}@{k}"


def _alias_text(alias: Alias, match: re.Match[str], text: str) -> str:
    """The registry text of one alias as written: its cutoff checked, its parameters ours."""
    k = match.group("k")
    if alias.cutoff == "required" and k is None:
        raise ValueError(
            f"Metric {text!r} of {caller_name()}: {alias.tool}'s {alias.base} needs a cutoff, "
            f"as in {alias.example!r}."
        )
    if alias.cutoff == "none" and k is not None:
        raise ValueError(
            f"Metric {text!r} of {caller_name()}: {alias.tool}'s {alias.base} takes no cutoff; "
            f"write {alias.example!r}."
        )
    params = dict(alias.params)
    given = _tool_params(alias, match.group("params"), text)
    params.update(given)
    target = alias.target
    renames = dict(alias.tool_params)
    for key, retarget in alias.retarget:
        if renames[key] in given:
            target = retarget
    if match.group("level") is not None:
        params["relevance_level"] = match.group("level")
    return _registry_text(target, params, k)


def _tool_params(alias: Alias, text_params: str | None, text: str) -> dict:
    """Our parameters from the tool's ``key=value`` list (``rel=2`` -> relevance_level=2)."""
    params = {}
    renames = dict(alias.tool_params)
    for item in (text_params or "").split(","):
        if not item.strip():
            continue
        key, equals, value = (part.strip() for part in item.partition("="))
        if not equals or key not in renames:
            raise ValueError(
                f"Unknown parameter {item.strip()!r} in metric {text!r} of {caller_name()}; "
                f"{alias.tool}'s {alias.base} takes here: {', '.join(renames) or 'none'}."
            )
        ours = renames[key]
        value = value.strip("'\"")
        translations = _VALUES.get((key, ours))
        if translations is not None:
            if value not in translations:
                raise ValueError(
                    f"Parameter {key}={value!r} in metric {text!r} of {caller_name()} is not "
                    f"supported; {key} takes {sorted(translations)}."
                )
            value = translations[value]
        params[ours] = value
    return params


def _registry_text(target: str, params: dict[str, str], k: str | None) -> str:
    text = target
    if params:
        text += "(" + ",".join(f"{key}={value}" for key, value in sorted(params.items())) + ")"
    return text if k is None else f"{text}@{k}"


def suggestions(text: str, registry: Mapping[str, bool], aliases: Sequence[Alias]) -> list[str]:
    """Up to three close names (registry text, cutoff kept) for an unknown ``text``.

    ``registry`` maps each registry name to whether its metric takes a cutoff. The
    base name (lower case, without parameters and cutoff) is matched against the
    registry's names and the aliases' base names (``difflib``), each hit shown as
    registry text with the cutoff given, if that metric takes one (``rprc@10``
    suggests ``rprec``, not ``rprec@10``). The text is cut with string methods, not
    regular expressions, so the work is linear in its length.
    """
    lowered = text.strip().lower()
    end = len(lowered.rstrip("0123456789"))
    base, k = lowered[:end], lowered[end:] or None
    if k is not None and base.endswith(("@", "_", ".")):
        base = base[:-1]
    opening, closing = base.find("("), base.rfind(")")
    if 0 <= opening < closing:  # drop "(params)"
        base = base[:opening] + base[closing + 1 :]
    targets = {name: name for name in registry}
    for alias in aliases:
        name = _registry_text(alias.target, dict(alias.params), None)
        targets.setdefault(alias.base.lower(), name)
    found: list[str] = []
    for hit in difflib.get_close_matches(base, list(targets), n=3, cutoff=0.6):
        name = targets[hit]
        if k is not None and registry[name.partition("(")[0]]:
            name = f"{name}@{k}"
        if name not in found:
            found.append(name)
    return found
