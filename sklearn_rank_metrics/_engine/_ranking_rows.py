"""Objects that carry ranking rows, passed whole as an entry point's first argument.

A reader's :class:`~sklearn_rank_metrics.RankingData` (and :class:`AlignedRuns`)
carries more than ``(y_true, y_score, group)``: which rows were judged, the document
ids a tool breaks ties by. Unpacking it with ``*data`` drops those silently, so every
entry point takes the object itself as ``y_true`` and :func:`expand_rows` hands each
field to the parameter of that name. Whatever could be read two ways (a field the
object carries and the call also gives) is refused with both spellings.
"""

from __future__ import annotations

import difflib
import functools
import inspect
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ._caller import caller_name, renamed_as


class RankingRows:
    """Base of the objects that carry flat ranking rows (RankingData, AlignedRuns).

    :meth:`carried` returns what the object holds, by parameter name: ``y_true``,
    ``group``, ``judged`` (None: every row was judged), ``doc_id``,
    ``sample_weight`` (None: every query counts once), ``convention`` (the tool
    whose numbers the source means, ``"trec_eval"`` for TREC files; None: the
    package's defaults), and either ``y_score`` (one ranking; None when the source
    has no scores) or ``scores`` (several runs, ``{name: scores}``).
    """

    __slots__ = ()

    def carried(self) -> dict[str, Any]:  # pragma: no cover - every subclass defines it
        raise NotImplementedError


class CarriedRows(RankingRows):
    """Rows built from the fields a :class:`RankingRows` carries, with other scores.

    For a caller that scores a reader's rows with an estimator (the scorers): passed
    whole to a metric function, the rows hand over everything the reader's object
    carried (judged flags, document ids and their run order, the convention), as
    the object itself would.
    """

    __slots__ = ("_fields",)

    def __init__(self, **fields: Any) -> None:
        self._fields = fields

    def carried(self) -> dict[str, Any]:
        return dict(self._fields)


def _is_models_mapping(value: Any) -> bool:
    """Several named models' scores: a mapping or a DataFrame (one column a model)."""
    return isinstance(value, Mapping) or hasattr(value, "columns")


def _refuse_twice(kind: str, name: str, how: str) -> ValueError:
    return ValueError(
        f"{caller_name()} got a {kind} as its first argument and also {name}=; the "
        f"{kind} carries its own {name}, so the call could mean two things. {how}"
    )


def refuse_frame_without_scores(arguments: Mapping[str, Any]) -> None:
    """A whole DataFrame as ``y_true`` and no scores: its columns must be named.

    A DataFrame of labels next to a DataFrame of scores of the same shape is
    scikit-learn's 2-D form (one query per row) and passes; a frame alone is a table
    of rows whose label, score and query columns nobody named, so the call is refused
    with the two spellings that name them.
    """
    data = arguments.get("y_true")
    if isinstance(data, np.ndarray) or not hasattr(type(data), "columns"):
        return
    if any(arguments.get(name) is not None for name in ("y_score", "scores")):
        return
    shown = caller_name()
    raise TypeError(
        f"{shown} got a {type(data).__name__} as y_true and no scores; name its columns: "
        f"{shown}(RankingData.from_frame(frame, y_true='label', y_score='score', "
        f"group='qid'), ...), or pass them as arrays: {shown}(frame['label'], "
        "frame['score'], frame['qid'], ...)."
    )


def expand_rows(
    arguments: Mapping[str, Any],
    accepted: Mapping[str, Any] | frozenset[str],
    several_models: bool = False,
) -> tuple[dict[str, Any], Any]:
    """The call's arguments with a :class:`RankingRows` first argument spread out.

    Parameters
    ----------
    arguments : mapping
        The arguments the call gave, by parameter name (``BoundArguments.arguments``).
    accepted : collection of str
        The parameter names of the entry point.
    several_models : bool, default=False
        Whether the entry point's scores parameter (``scores`` or ``y_score``) takes
        several models' scores (``{name: scores}``), which an :class:`AlignedRuns`
        fills.

    Returns
    -------
    arguments : dict
        ``y_true``, the scores, ``group``, ``judged`` (``True`` when the object says
        every row was judged), ``doc_id``, ``sample_weight`` and ``convention`` (when
        the call names none) filled from the object, for the parameters the entry
        point has. An object that carries
        weights is refused by an entry point without ``sample_weight``.
    doc_id : array or None
        The object's document ids when the entry point has no ``doc_id`` parameter
        (a convention may still order ties by them), else None.
    """
    arguments = dict(arguments)
    data = arguments.get("y_true")
    if not isinstance(data, RankingRows):
        refuse_frame_without_scores(arguments)
        return arguments, None
    kind = type(data).__name__
    carried = data.carried()
    arguments["y_true"] = carried["y_true"]

    _fill_scores(arguments, carried, accepted, kind, several_models)
    if arguments.get("group") is not None:
        raise _refuse_twice(
            kind, "group",
            f"Pass {caller_name()}(data, ...) for its query ids, or the arrays "
            f"{caller_name()}(data.y_true, data.y_score, group) for others.",
        )
    arguments["group"] = carried["group"]

    _fill_convention(arguments, carried.get("convention"), accepted)
    extra_doc_id = None
    for name in ("judged", "doc_id", "sample_weight"):
        value = carried.get(name)
        if name == "judged" and value is None:
            value = True  # the reader says every row was judged
        if name not in accepted:
            if name == "doc_id":
                extra_doc_id = value
            elif name == "sample_weight" and value is not None:
                raise _unweighted(kind)
            continue
        if arguments.get(name) is not None and value is not None:
            raise _refuse_twice(
                kind, name,
                f"Pass {caller_name()}(data, ...) to use its {name}, or the arrays "
                f"with {name}= for another.",
            )
        if value is not None:
            arguments[name] = value
    return arguments, extra_doc_id


def _fill_convention(
    arguments: dict[str, Any], carried: str | None, accepted: Mapping[str, Any] | frozenset[str]
) -> None:
    """The convention the rows were read under, unless the call names one.

    TREC files mean trec_eval's numbers: the rows carry ``"trec_eval"``, and every
    entry point with a ``convention`` parameter applies it when the call gives none
    (the command line does the same). A convention the call gives wins
    (``convention="none"``: the package's defaults), and so do the settings it gives
    (``ties=``, ...) on top of the carried convention, as on top of any convention.
    An entry point without the parameter computes no metric of the rows (sampled
    ranks have their own tie rule; :class:`RankingEvaluator` checks its own).
    """
    if carried is not None and "convention" in accepted and arguments.get("convention") is None:
        arguments["convention"] = carried


def _unweighted(kind: str) -> ValueError:
    """The error for weighted rows given to an entry point where every query counts once."""
    return ValueError(
        f"{caller_name()} counts every query once, but the {kind} carries query weights "
        f"(sample_weight); they are not dropped silently. Pass "
        f"dataclasses.replace(data, sample_weight=None) to count every query once, or use "
        "evaluate or ranking_report, which weight the queries."
    )


def _one_run_please(
    scores: Mapping[str, Any], kind: str, accepted: Mapping[str, Any] | frozenset[str]
) -> str:
    """The refusal of several runs by a function that ranks by one (or one against a baseline)."""
    names = list(scores) or ["name"]
    model, baseline = names[-1], names[0]
    runs = ", ".join(map(repr, scores))
    if "y_score_baseline" in accepted:
        return (
            f"{caller_name()} compares one run with a baseline, but the {kind} holds "
            f"several runs ({runs}) and names neither: pick the run with .run(name) and the "
            f"baseline's scores with y_score_baseline=, e.g. {caller_name()}("
            f"aligned.run({model!r}), y_score_baseline=aligned.scores[{baseline!r}], "
            f"name={model!r}, baseline_name={baseline!r}, ...)."
        )
    return (
        f"{caller_name()} ranks by one set of scores, but the {kind} holds several "
        f"runs ({runs}); pick one with .run(name), e.g. {caller_name()}("
        f"aligned.run({baseline!r}), ...), or compare them with compare(aligned, ...) or "
        "ranking_report(aligned, ...)."
    )


def _fill_scores(
    arguments: dict[str, Any],
    carried: Mapping[str, Any],
    accepted: Mapping[str, Any] | frozenset[str],
    kind: str,
    several_models: bool,
) -> None:
    """Put the object's scores (one run's, or several runs') under the scores parameter."""
    score_parameter = "scores" if "scores" in accepted else "y_score"
    given = arguments.get(score_parameter)
    if "scores" in carried:  # several runs (AlignedRuns)
        if not several_models:
            raise TypeError(_one_run_please(carried["scores"], kind, accepted))
        if given is not None:
            raise _refuse_twice(
                kind, score_parameter,
                f"Pass {caller_name()}(aligned, ...) for its runs, or "
                f"{caller_name()}(aligned.y_true, {{'name': scores, ...}}, aligned.group, "
                "judged=aligned.judged) for other scores.",
            )
        arguments[score_parameter] = carried["scores"]
    elif given is None:
        if carried["y_score"] is None:
            raise ValueError(
                f"{caller_name()} got a {kind} without scores (its source has none): "
                f"pass them next to it, {caller_name()}(data, model.predict(data.X))."
            )
        arguments[score_parameter] = carried["y_score"]
    elif carried["y_score"] is not None and not (
        several_models and _is_models_mapping(given)
    ):
        # the scores of several named models are unambiguous next to one run's
        raise _refuse_twice(
            kind, score_parameter,
            f"Pass {caller_name()}(data, ...) to use its scores, or "
            f"{caller_name()}(data.y_true, y_score, data.group, judged=data.judged) "
            "for others.",
        )



def bind_call(
    signature: inspect.Signature,
    args: tuple[Any, ...],
    kwargs: Mapping[str, Any],
    hint: str = "",
) -> inspect.BoundArguments:
    """``signature.bind_partial(*args, **kwargs)``, or a TypeError that helps.

    Python's message (``got an unexpected keyword argument 'groups'``) names neither
    the function nor what it takes. This one starts with the caller's name and, for
    each keyword the function does not take, proposes its closest parameter names
    (``difflib``, any letter case: ``groups=`` -> ``group=``, ``K=`` -> ``k=``), or
    lists the parameters when none is close. ``hint`` is appended. The one helper of
    the metric functions (``with_convention``) and of the entry points that take
    ranking rows (:func:`accepts_ranking_rows`).
    """
    try:
        return signature.bind_partial(*args, **kwargs)
    except TypeError as error:
        raise TypeError(call_error(signature, kwargs, caller_name(), error) + hint) from None


def call_error(
    signature: inspect.Signature,
    kwargs: Mapping[str, Any],
    shown: str,
    error: TypeError,
) -> str:
    """The message of :func:`bind_call`: the function, Python's reason, a did-you-mean.

    ``shown`` names the function called (a metric function's own name, even inside
    ``evaluate``), so it is passed, not read from the caller.
    """
    parameters = signature.parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return f"{shown}: {error}."
    names = [
        name
        for name, parameter in parameters.items()
        if name not in ("self", "cls")
        and parameter.kind
        not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.POSITIONAL_ONLY)
    ]
    by_lower = {name.lower(): name for name in names}
    message = f"{shown}: {error}."
    listed = False
    for unknown in (name for name in kwargs if name not in parameters):
        close = difflib.get_close_matches(unknown.lower(), list(by_lower), n=2, cutoff=0.6)
        if close:
            options = " or ".join(f"{by_lower[name]}=" for name in close)
            message += f" Did you mean {options} instead of {unknown}=?"
        elif not listed:
            message += f" {shown} takes: {', '.join(f'{name}=' for name in names)}."
            listed = True
    return message


def accepts_ranking_rows(
    function: Callable | None = None, *, several_models: bool = False
) -> Any:
    """Let an entry point take a :class:`RankingRows` object as its first argument.

    The object's fields go to the parameters of the same names (:func:`expand_rows`);
    calls with arrays pass through untouched. ``several_models``: the scores parameter
    takes ``{name: scores}`` (see :func:`expand_rows`).
    """
    if function is None:
        return functools.partial(accepts_ranking_rows, several_models=several_models)
    signature = inspect.signature(function)
    accepted = frozenset(signature.parameters)
    shown = function.__qualname__  # the decorated function's, whoever calls it

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with renamed_as(shown):
            bound = bind_call(signature, args, kwargs).arguments
            if isinstance(bound.get("y_true"), RankingRows):
                spread: dict[str, Any] | None = expand_rows(bound, accepted, several_models)[0]
            else:
                refuse_frame_without_scores(bound)
                spread = None
        if spread is None:
            return function(*args, **kwargs)
        return function(**spread)

    return wrapper


def estimator_inputs(
    X: Any, y: Any, group: Any
) -> tuple[Any, Any, Any, dict[str, Any]]:
    """Features, labels, query ids and the other carried fields, for scoring a model.

    ``X`` may be a :class:`RankingRows` object with features (``.X``, as
    :func:`read_letor` gives them): its labels and query ids are used (``y`` and
    ``group`` must then be left out), and ``judged`` / ``doc_id`` (and
    ``convention``, when the rows carry one, for the caller to apply where the call
    names none) come back in the dict. Any other ``X`` passes through with ``y``,
    ``group`` and an empty dict. Errors name the caller (see ``_caller``).
    """
    if not isinstance(X, RankingRows):
        return X, y, group, {}
    return _carried_inputs(X, y, group)


def _carried_inputs(X: RankingRows, y: Any, group: Any) -> tuple[Any, Any, Any, dict[str, Any]]:
    """:func:`estimator_inputs` for a :class:`RankingRows` ``X``."""
    kind = type(X).__name__
    if y is not None or group is not None:
        raise ValueError(
            f"{caller_name()} got a {kind} as X and also y or group; it carries its own "
            f"labels and query ids, so the call could mean two things. Pass it alone, "
            f"(estimator, data), or (estimator, data.X, y, group) for other labels or ids."
        )
    carried = X.carried()
    if carried["sample_weight"] is not None:  # never dropped silently
        raise ValueError(
            f"{caller_name()} does not read the query weights (sample_weight) of a {kind} "
            "passed as X; pass dataclasses.replace(data, sample_weight=None) and give the "
            "weights as sample_weight= where the call takes them."
        )
    features = getattr(X, "X", None)
    if features is None or "y_score" not in carried:
        raise ValueError(
            f"{caller_name()} got a {kind} without features (.X is None) as X; the "
            "estimator needs features to score the rows (read_letor gives them)."
        )
    judged = True if carried["judged"] is None else carried["judged"]
    extra = {"judged": judged, "doc_id": carried["doc_id"]}
    if carried.get("convention") is not None:  # applied where the call names none
        extra["convention"] = carried["convention"]
    return features, carried["y_true"], carried["group"], extra
