"""``convention=``: every setting another tool decides, in one word.

A preset fills in the parameters a caller did not give (explicit arguments and
parameters written in a metric's name always win) and prepares the inputs the way
the tool reads them: scores cast to single precision, ``-inf`` as an ordinary score,
weights in single precision, negative labels as gain 0, and tied rows ordered by
document id where the tool breaks ties that way (when document ids are given;
otherwise tied rows keep their input order, which the TREC readers make trec_eval's,
and a call whose tied rows could score otherwise warns: :func:`warn_unordered_ties`).

Each preset is one row of the documentation's generated convention table, and the
cross-check suite (``tests/crosscheck/``) runs it against the tool itself.

``"spark"`` (``tests/crosscheck/test_crosscheck_spark.py``) reproduces MLlib's
``RankingMetrics`` (``ndcgAt``, ``precisionAt``, ``recallAt``,
``meanAveragePrecision``, ``meanAveragePrecisionAt``) and ``RankingEvaluator``,
which read per query a list of predicted ids in rank order and a set of
ground-truth ids. From flat rows, the list is the rows with a finite score by score
descending, and the set the rows with ``y_true > 0``; a ground-truth row scored
``-inf`` is a relevant item never predicted. What MLlib does and the preset copies
or says:

* one ground truth per call: NDCG's binary gain counts ``y_true > 0``, so for
  another threshold the labels are ``y_true >= level`` (0 or 1). P@k, R@k and MAP
  read ``relevance_level`` too, but a ``relevance_level`` given to ``evaluate``
  beside a metric of binary gain is an error (:func:`check_binary_gain_level`):
  it would give NDCG and MAP two ground truths;

* a query whose ground truth is empty scores 0 in every measure and stays in the
  mean; MLlib writes ``WARN RankingMetrics: Empty ground truth set, check input
  data`` to the JVM log per query and call, and nothing reaches Python;
* MLlib has no ties: it takes the list order. The preset orders tied rows by
  document id ascending (compared as text: ``"d10"`` before ``"d9"``, integers
  too), the order ``ORDER BY score DESC, doc_id`` gives for string ids, or keeps
  their input order without document ids;
* ``ndcgAt`` is binary (``gain="binary"``, ``1 / ln(i + 1)``: the base cancels),
  its ideal over ``min(k, |ground truth|)`` rows (``ideal="all"``). Since Spark 3.4
  Scala also takes a relevance array (gain ``2**rel - 1``, ideal in the array's
  order); PySpark's ``RankingMetrics`` drops it and ``RankingEvaluator`` has no
  such column, so from Python NDCG is the binary one;
* a predicted list may repeat an id, which then counts twice (``([1, 1, 2], {1})``:
  P@3 = 2/3, MAP 2.0); rows with unique document ids cannot say this;
* the mean over queries is unweighted (``RDD.mean()``); here ``sample_weight``
  still weights queries, and MLlib's number is the one without it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np

from .._engine._caller import caller_name
from .._engine._doc_ids import TieOrderRule, TieReach, warn_ties_without_ids
from .._engine._document_ids import ASCENDING, DESCENDING
from .._engine._errors import RowValueError
from .._engine._ranked_groups import RankedGroups
from .._engine._rows import Reading
from .._engine._tools import CONVENTION_NAMES
from .._engine._validation import NONE, Options, check_parameter


@dataclass(frozen=True)
class Ordering:
    """How one tool reads the rows of a query before any formula sees them.

    ``single_precision``: scores compared as float32. ``doc_id_order``: tied rows
    ordered by document id (``"descending"`` / ``"ascending"``, byte order), or
    ``None`` for their input order. ``nonpositive_scores``: what a row scored
    ``<= 0`` is (torchmetrics): ``"not_relevant"`` (its label becomes 0),
    ``"not_returned"`` (its score becomes ``-inf``), or ``None`` (a row like any).
    ``negative_labels_judged``: under a preset that reads negative labels as gain 0
    (``Convention.negative_labels_gain_zero``), whether such a row still counts as
    judged for the measures that read judgments (bpref, Judged@k, RBP's residual).
    trec_eval (``form_res_rels.c``) keeps a negative qrels grade in the pool but
    not judged (``RELVALUE_UNJUDGED``): bpref skips it, ``unj@k`` and ``rbp_resid``
    count it unjudged. ir_measures' own Judged@k and cwl_eval's RBP, and ranx's
    bpref, count it judged (non-relevant).
    """

    single_precision: bool = False
    doc_id_order: str | None = None
    nonpositive_scores: str | None = None
    negative_labels_judged: bool = True


OrderingRule = Ordering | Callable[[Mapping[str, Any]], Ordering | None]


@dataclass(frozen=True)
class Provider:
    """How one tool computes one metric, declared with the metric (``@metric(providers=)``).

    ``params``: the values the tool decides for this metric's parameters; they
    override the convention's ``params`` (``denominator`` means different things for
    MAP and P@k). ``ordering``: the tool's precision and tie order for this metric,
    an :class:`Ordering`, or ``ordering(params) -> Ordering | None`` when it depends
    on the parameters (ir_measures picks a provider per measure); ``None`` keeps the
    convention's.
    """

    params: Mapping[str, Any] = field(default_factory=dict)
    ordering: OrderingRule | None = None


# function name -> tool name -> Provider, filled by the metrics' declarations
PROVIDERS: dict[str, dict[str, Provider]] = {}
_NO_PROVIDER = Provider()


def register_providers(metric_function: str, providers: Mapping[str, Provider]) -> None:
    """Record a declared metric's providers (``@metric`` calls it)."""
    unknown = set(providers) - set(CONVENTIONS)
    if unknown:
        raise ValueError(f"{metric_function} declares providers of unknown tools {sorted(unknown)}")
    PROVIDERS[metric_function] = dict(providers)


@dataclass(frozen=True)
class Convention:
    """One tool's settings.

    Attributes
    ----------
    name : str
        The word users pass: ``convention="trec_eval"``.
    description : str
        What the preset reproduces, for messages and the CLI header.
    params : mapping
        Parameter values for every metric function that has the parameter; a
        metric's declared :class:`Provider` for this tool overrides them.
    ordering : Ordering
        Score precision and tie order for every metric, unless the metric's
        declared :class:`Provider` for this tool gives its own.
    minus_infinity_is_a_score : bool
        ``-inf`` ranks last like any score (the boosters) instead of meaning "not
        returned".
    single_precision_weights : bool
        Query weights read as float32 (the boosters).
    negative_labels_gain_zero : bool
        A negative label (TREC's -2 for spam) is non-relevant with gain 0; whether
        it still counts as judged is ``Ordering.negative_labels_judged``.
    """

    name: str
    description: str
    params: Mapping[str, Any]
    ordering: Ordering = Ordering()
    minus_infinity_is_a_score: bool = False
    single_precision_weights: bool = False
    negative_labels_gain_zero: bool = False

    def settings(self, metric_function: str, accepted: Any) -> dict[str, Any]:
        """The preset's values of the parameters ``metric_function`` accepts."""
        values = {**self.params, **self._provider(metric_function).params}
        return {name: value for name, value in values.items() if name in accepted}

    def ordering_of(self, metric_function: str, params: Mapping[str, Any]) -> Ordering:
        """Score precision and tie order of one metric with its final parameters."""
        rule = self._provider(metric_function).ordering
        special = rule(params) if callable(rule) else rule
        return self.ordering if special is None else special

    def _provider(self, metric_function: str) -> Provider:
        """What the metric declared for this tool (nothing: the convention's defaults)."""
        return PROVIDERS.get(metric_function, {}).get(self.name, _NO_PROVIDER)


class ToolNaN(float):
    """NaN as a preset's value for an undefined query, where the tool warns about it.

    scikit-learn's ``roc_auc_score`` returns NaN with an ``UndefinedMetricWarning``
    for one class; the ``"sklearn"`` preset gives such a query NaN too, and this
    value (a NaN to every check and computation) says that it must warn as the tool
    does (:func:`warn_tool_nan`). A NaN the caller passes stays silent: asked for.
    """

    tool: str

    def __new__(cls, tool: str) -> ToolNaN:
        value = super().__new__(cls, "nan")
        value.tool = tool
        return value


def warn_tool_nan(
    policy: Any,
    n_undefined: int | None = None,
    n_queries: int = 0,
    description: str = "",
) -> None:
    """Warn (``UndefinedMetricWarning``) when the preset's ``ToolNaN`` made queries NaN.

    ``n_undefined`` None: unknown, the caller only saw a NaN mean.
    """
    if not isinstance(policy, ToolNaN) or n_undefined == 0:
        return
    from ._aggregate import undefined_metric_warning, warn_at_caller

    which = (
        "some queries"
        if n_undefined is None
        else f"{n_undefined} of {n_queries} queries ({description})"
    )
    warn_at_caller(
        f"{caller_name()} is undefined for {which}; the convention gives them NaN, as "
        f"{policy.tool} does (with this warning), so the mean is NaN. Pass "
        "replace_undefined_by='skip' to average the defined queries only, or a number "
        "to give the undefined ones that value.",
        undefined_metric_warning(),
    )


# what trec_eval decides (user guide, "Matching other tools")
_TREC_EVAL_PARAMS = {
    "ties": "input",
    "replace_undefined_by": 0.0,
    "relevance_level": 1.0,
    "gain": "linear",
    "discount": "log(rank+1)",
    "log_base": 2,
    "ideal": "all",
}
# a negative qrels grade: in the pool but not judged, gain 0 (form_res_rels.c);
# trec_eval 10 reads scores as double, trec_eval 9 as float
_TREC_EVAL_10_ORDERING = Ordering(doc_id_order=DESCENDING, negative_labels_judged=False)
_TREC_EVAL_9_ORDERING = Ordering(
    single_precision=True, doc_id_order=DESCENDING, negative_labels_judged=False
)


# what LightGBM and XGBoost decide: a query without a relevant row scores 1 in their
# NDCG and MAP only (XGBoost's pre@k scores it 0, our default)
_BOOSTER_PARAMS = {
    "ties": "input",
    "relevance_level": None,
    "gain": "exponential",
    "discount": "log(rank+1)",
    "ideal": "all",
}

# LightGBM's MAP (map_metric.hpp) counts a row relevant when its label, stored as a
# float32 (label_t), is > 0.5f. A float64 label rounds to a float32 above 0.5 exactly
# when it is above the midpoint 0.5 + 2**-25 (the midpoint itself rounds to even, 0.5),
# so y_true >= this level is LightGBM's rule on the caller's float64 labels. Its NDCG
# refuses labels that are not integers, so the level changes no number LightGBM gives.
LIGHTGBM_RELEVANCE_LEVEL = float(np.nextafter(0.5 + 2.0**-25, 1.0))
_LIGHTGBM_PARAMS = {**_BOOSTER_PARAMS, "relevance_level": LIGHTGBM_RELEVANCE_LEVEL}

# what MLlib's RankingMetrics (and ml.evaluation.RankingEvaluator) decide, from lists
# (predicted ids in rank order, ground-truth id set): relevance is binary (a row is in
# the ground-truth set or not), a query with an empty set scores 0 and stays in the
# plain mean (with a JVM log line per query), the list order is the only order (no
# ties: from flat rows, the rows by score descending, tied rows by document id
# ascending with doc_id, else in input order). ndcgAt divides by ln(i + 1), so NDCG
# is any base's; the ideal is over min(k, |ground truth|) rows (ideal="all").
_SPARK_PARAMS = {
    "ties": "input",
    "replace_undefined_by": 0.0,
    "relevance_level": None,
    "gain": "binary",
    "discount": "log(rank+1)",
    "log_base": 2,
    "ideal": "all",
}

# the tools of the trec_eval family, and the boosters, as named in providers=
TREC_TOOLS = ("trec_eval", "pytrec_eval", "ir_measures", "ranx")
BOOSTERS = ("lightgbm", "xgboost")


CONVENTIONS: Mapping[str, Convention] = MappingProxyType(
    {
        convention.name: convention
        for convention in (
            Convention(
                "trec_eval",
                "trec_eval 10: float64 scores, ties by docno descending, relevant = label >= 1, "
                "empty query 0, iprec cutoff round(X*R)",
                _TREC_EVAL_PARAMS,
                _TREC_EVAL_10_ORDERING,
                negative_labels_gain_zero=True,
            ),
            Convention(
                "pytrec_eval",
                "trec_eval 9 (pytrec_eval): float32 scores, ties by docno descending, "
                "relevant = label >= 1, empty query 0, iprec cutoff floor(X*R+0.9)",
                _TREC_EVAL_PARAMS,
                _TREC_EVAL_9_ORDERING,
                negative_labels_gain_zero=True,
            ),
            Convention(
                "ir_measures",
                "ir_measures: as pytrec_eval; RR@k (msmarco), ERR@k and nDCG exp-log2 (gdeval) in "
                "float64",
                _TREC_EVAL_PARAMS,
                _TREC_EVAL_9_ORDERING,
                negative_labels_gain_zero=True,
            ),
            Convention(
                "ranx",
                "ranx: ties in input order, relevant = label >= 1, empty query 0",
                {**_TREC_EVAL_PARAMS},
                negative_labels_gain_zero=True,
            ),
            Convention(
                "sklearn",
                "scikit-learn: ties averaged, linear gain, empty query 0 (AUC: NaN)",
                {
                    "ties": "average",
                    "replace_undefined_by": 0.0,
                    "relevance_level": None,
                    "gain": "linear",
                    "discount": "log(rank+1)",
                    "log_base": 2,
                    "ideal": "all",
                },
            ),
            Convention(
                "lightgbm",
                "LightGBM: gain 2^y - 1, ties in input order, empty query 1, MAP / min(k, rel), "
                "relevant = label > 0.5 (float32), -inf a score",
                _LIGHTGBM_PARAMS,
                minus_infinity_is_a_score=True,
                single_precision_weights=True,
            ),
            Convention(
                "xgboost",
                "XGBoost: float32 scores, gain 2^y - 1, ties in input order, empty query 1, P@k "
                "/ min(k, n)",
                _BOOSTER_PARAMS,
                Ordering(single_precision=True),
                minus_infinity_is_a_score=True,
                single_precision_weights=True,
            ),
            Convention(
                "torchmetrics",
                "torchmetrics: float32 scores, NDCG ties averaged, AP@k / relevant in top k, "
                "score <= 0 not relevant",
                {
                    "ties": "input",
                    "replace_undefined_by": 0.0,
                    "relevance_level": None,
                    "gain": "linear",
                    "discount": "log(rank+1)",
                    "ideal": "all",
                },
                Ordering(single_precision=True),
            ),
            Convention(
                "spark",
                "Spark MLlib RankingMetrics: binary gain (relevant = label > 0), "
                "ties by document id ascending (else input order), empty query 0, P@k / k, "
                "MAP@k / min(k, relevant)",
                _SPARK_PARAMS,
                Ordering(doc_id_order=ASCENDING),
                negative_labels_gain_zero=True,
            ),
        )
    }
)

if tuple(CONVENTIONS) != CONVENTION_NAMES:  # pragma: no cover - a declaration's slip
    raise RuntimeError(f"_engine/_tools.py lists {CONVENTION_NAMES}, not {tuple(CONVENTIONS)}")

# "none": the package's own defaults, said on purpose: it wins over the convention a
# RankingData carries (TREC files carry "trec_eval"), where None means "not given"
NO_CONVENTION = "none"
CONVENTION = [Options(*CONVENTIONS, NO_CONVENTION), NONE]


def preset_name(convention: str | None) -> str | None:
    """The preset a checked ``convention`` names: None for None and ``"none"``."""
    return None if convention == NO_CONVENTION else convention

DOC_CONVENTION = """convention : {"trec_eval", "pytrec_eval", "ir_measures", "ranx", \
"sklearn", "lightgbm", "xgboost", "torchmetrics", "spark", "none"} or None, default=None
        Reproduce another tool: sets every parameter that tool decides and the
        call does not give (ties, the undefined-query policy, gain, denominators,
        what counts as relevant) and reads the inputs as the tool does (scores as
        float32 for pytrec_eval, ir_measures, XGBoost and torchmetrics; ``-inf`` as
        an ordinary score for the boosters). ``"trec_eval"`` is trec_eval 10
        (scores in double precision, iprec cutoff ``round(X*R)``);
        ``"pytrec_eval"`` is trec_eval 9.0.x, which every pytrec_eval release
        builds (float32 scores, ``floor(X*R+0.9)``). ``"spark"`` is Spark MLlib's
        ``RankingMetrics`` and ``RankingEvaluator``: binary gain (a row is in the
        ground truth when ``y_true > 0``; for another threshold pass the labels
        ``y_true >= level``; PySpark drops MLlib's relevance array, so graded NDCG
        is Scala-only), ``P@k / k``, ``MAP@k / min(k, relevant)``, a query without
        relevant rows scores 0 and stays in the mean (MLlib only logs a JVM
        warning); MLlib ranks the list it is given, so tied rows are ordered by
        document id ascending; MLlib's mean is unweighted (``sample_weight`` still
        applies) and its lists may repeat an id, which flat rows cannot. Explicit
        arguments win. Without document ids, tied rows keep their input order
        where the tool orders them by document id (the TREC readers give
        trec_eval's order). None: the convention a :class:`RankingData` passed
        whole was read under (``"trec_eval"`` for TREC files), else the package's
        defaults; ``"none"``: the package's defaults, whatever the rows carry.
        See the user guide, :ref:`Matching other tools <matching_other_tools>`, and
        the generated :ref:`convention table <convention-table>`."""


def check_binary_gain_level(
    metric: str, kernel_params: Mapping[str, Any], chosen: Mapping[str, Any]
) -> None:
    """A ``relevance_level`` that a metric of ``gain="binary"`` cannot read is an error.

    The binary gain counts ``y_true > 0`` relevant, and the DCG family has no
    ``relevance_level`` (its other gains grade every label): given to ``evaluate``
    (or any entry point of the shared settings), the level would make the binary
    measures count ``y_true >= level`` and NDCG ``y_true > 0``, two ground truths in
    one call, where MLlib (``convention="spark"``) has one. ``metric``: its name,
    ``chosen``: the values it was given, ``kernel_params``: those its kernel reads.
    """
    level = chosen.get("relevance_level")
    gain = kernel_params.get("gain")
    if level is None or "relevance_level" in kernel_params:
        return
    if not (isinstance(gain, str) and gain == "binary"):
        return
    raise ValueError(
        f"{caller_name()}: {metric} with gain='binary' counts a row relevant when y_true > 0 "
        f"and does not read relevance_level={level!r}, which the other metrics read as y_true >= "
        f"{level!r}. For one threshold in every metric (MLlib's ground truth at that "
        f"level), pass the labels as y_true >= {level!r} (0 or 1) and no relevance_level."
    )


def check_convention(value: Any) -> Convention | None:
    """The preset named ``value`` (None for None and ``"none"``), or the caller's error."""
    check_parameter(caller_name(), "convention", value, CONVENTION)
    name = preset_name(value)
    return None if name is None else CONVENTIONS[name]


def reading_of(convention: Convention, ordering: Ordering) -> Reading:
    """How the convention's tool reads the rows for a metric of this ordering.

    :func:`~.._engine._rows.read_rows` applies it to the rows checked at the door:
    scores as float32 for pytrec_eval, ir_measures (most measures), XGBoost and
    torchmetrics; ``-inf`` as an ordinary score for the boosters; negative labels as
    gain 0 (and, for trec_eval's pool, unjudged) for the TREC tools and Spark; rows
    scored ``<= 0`` as torchmetrics reads them; tied rows by document id or by the
    run's own order where the tool breaks ties so.
    """
    return Reading(
        single_precision=ordering.single_precision,
        minus_infinity_is_a_score=convention.minus_infinity_is_a_score,
        negative_labels_gain_zero=convention.negative_labels_gain_zero,
        negative_labels_judged=ordering.negative_labels_judged,
        nonpositive_scores=ordering.nonpositive_scores,
        tie_order=ordering.doc_id_order,
    )


def weights_tool(convention: Convention | None) -> str | None:
    """The convention, when its tool stores query weights in float32 (the door reads
    the weights so, :func:`~.._engine._rows.checked_rows`)."""
    if convention is None or not convention.single_precision_weights:
        return None
    return convention.name


def in_input_rows(error: RowValueError, order: np.ndarray) -> RowValueError:
    """``error`` about row ``error.row`` of rows permuted by ``order``, naming the input row.

    The metrics' own row checks (ERR's ``max_grade``, a gain array's range) run on
    the rows a doc-id preset has moved: the row they name is ``order[row]`` of the
    caller's input (and the command line's file line follows ``row``).
    """
    row = int(order[error.row])
    message = re.sub(rf"\brow {error.row}\b", f"row {row}", str(error), count=1)
    return RowValueError(message, row)


def reach_of_tie_order(rule: TieOrderRule, kernel_params: Mapping[str, Any]) -> TieReach | None:
    """Where a metric with these kernel parameters can depend on the order of tied rows.

    Only ``ties="input"`` keeps that order (the other modes average over it or fix
    it by label); then the metric's declared rule (``@metric(tie_order=)``) says
    where the order reaches its value: None where it never does (a count over every
    returned row, the ideal DCG), else a :class:`TieReach` that the ranked rows are
    checked against (P@k only when a tied block straddles the cutoff, ...).
    """
    if kernel_params.get("ties", "input") != "input":
        return None
    return rule(kernel_params)


def warn_unordered_ties(
    convention: str | None,
    rankings: Iterable[
        tuple[Ordering | None, Mapping[str, Any], RankedGroups, TieOrderRule, bool]
    ],
) -> None:
    """Warn once when a tool's tie order met tied scores the call cannot order so.

    ``rankings``: per metric, its input ordering, its kernel parameters, the rows
    ranked for it, its tie-order rule and whether its tie order was followed (the
    rows moved into the tool's order: document ids, or the run's order, were
    there). Each ranking is looked at from the engine's tied rows (no sort), only
    for a metric whose value the order of tied rows can change there
    (:func:`reach_of_tie_order`).
    """
    if convention is None:
        return
    seen: set[tuple[int, TieReach]] = set()
    for ordering, kernel_params, ranked, rule, followed in rankings:
        if ordering is None or ordering.doc_id_order is None or followed:
            continue
        reach = reach_of_tie_order(rule, kernel_params)
        if reach is None or (id(ranked), reach) in seen:
            continue
        seen.add((id(ranked), reach))
        if warn_ties_without_ids(ranked, convention, reach, ordering.doc_id_order):
            return
