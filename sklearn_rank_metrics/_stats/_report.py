"""A text report of several ranking metrics: :func:`ranking_report`."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

import numpy as np

from .._engine._caller import called_as, renamed_as
from .._engine._frames import frame_of, output_library, returns_frames_like_inputs
from .._engine._ranking_rows import accepts_ranking_rows
from .._engine._validation import BOOLEAN, NONE, InstanceOf, validate_params
from .._metrics._aggregate import weighted_mean
from .._metrics._base import SHARED_SETTINGS
from .._metrics._conventions import preset_name
from .._metrics._evaluate import MetricDetail, plan_metrics
from .._metrics._registry import parse_metric
from .._metrics._settings import Settings
from .._render import DIGITS, _csv, _json, _text
from .._render._table import Cell, Table, Verbatim
from ._compare import ComparisonResult, compare, compare_values
from ._comparison_table import means_table
from ._model_values import models_details, score_mapping
from ._per_query_doors import accepts_per_query_values, chosen_metrics, frame_library_of
from ._per_query_values import PerQueryValues
from ._resampling import RESAMPLES

# the report's default: MRR over the whole ranking (evaluate's default cuts it at 10)
REPORT_METRICS = ("ndcg@10", "map", "mrr", "p@10", "recall@10")
_COLUMNS = ("mean", "std_err", "n_queries", "n_undefined", "n_skipped")
_HEADERS = ("mean", "std err", "queries", "undefined", "skipped")

Summaries: TypeAlias = dict[Any, dict[str, dict[str, Any]]]


@dataclass(frozen=True, eq=False)
class RankingReport:
    """What :func:`ranking_report` computes, with the ``to_*`` of :class:`ComparisonResult`.

    Attributes
    ----------
    summaries : dict
        ``{model: {metric: {"mean", "std_err", "n_queries", "n_undefined",
        "n_skipped"}}}``; the model ``None`` for one model's scores given alone.
    comparison : ComparisonResult or None
        The comparison with ``baseline``, if one was asked for.
    baseline : str or None
    digits : int
        Digits of the text report.
    name_one_model : bool
        Whether the text report names a single model (the command line does not).
    frame_library : {"pandas", "polars", "pyarrow"} or None
        The frame library of :meth:`to_frame` (that of the inputs); None: pandas.
    settings : Settings or None
        The settings the metrics were computed with: the convention that applied
        (given, or carried by a :class:`RankingData` read from TREC files) and the
        settings given on top of it. The text report says them under its table and
        the JSON document gives ``"convention"`` when a convention applied.
    """

    summaries: Summaries
    comparison: ComparisonResult | None = None
    baseline: str | None = None
    digits: int = 4
    name_one_model: bool = True
    frame_library: str | None = None
    settings: Settings | None = None

    @property
    def convention(self) -> str | None:
        """The convention that applied (``"trec_eval"``, ...), None for the package's
        defaults."""
        return None if self.settings is None else preset_name(self.settings.convention)

    def _settings_note(self) -> str:
        note = None if self.settings is None else self.settings.described()
        return "" if note is None else f"\n\n{note}"

    def _with_comparison(self) -> Summaries:
        """A copy of the summaries; with a comparison, each compared model's metric
        entry has the comparison's columns too."""
        summaries = {
            model: {metric: dict(stats) for metric, stats in by_metric.items()}
            for model, by_metric in self.summaries.items()
        }
        if self.comparison is not None:
            _add_comparison(summaries, self.comparison)
        return summaries

    def to_dict(self) -> Summaries:
        """ranking_report's ``output_dict=True``: ``{metric: {...}}`` for one model
        given alone, else ``{model: {metric: {...}}}``."""
        summaries = self._with_comparison()
        return summaries[None] if None in summaries else summaries

    def to_frame(self) -> Any:
        """ranking_report's ``as_frame=True``: one row per (model,) metric, as a table
        of :attr:`frame_library`."""
        return _report_frame(self._with_comparison(), self.frame_library)

    def _shown(self) -> Summaries:
        if len(self.summaries) == 1 and not self.name_one_model:
            return {None: next(iter(self.summaries.values()))}
        return self.summaries

    def to_text(
        self, *, test: str = "permutation", alpha: float = 0.05, digits: int | None = None
    ) -> str:
        """The report table, then the comparison's tables, if any.

        ``test``, ``alpha`` and ``digits`` are those of :meth:`ComparisonResult.to_text`;
        ``digits`` also sets the report table's (default: :attr:`digits` for the report
        table, 4 for the comparison, as ``ComparisonResult.to_text``).
        """
        text = format_report(self._shown(), self.digits if digits is None else digits)
        if self.comparison is None or self.comparison.settings is None:
            text += self._settings_note()  # else the comparison's text ends with it
        if self.comparison is not None:
            text += f"\n\nPaired comparison with {self.baseline!r}:\n\n"
            text += self.comparison.to_text(
                test=test, alpha=alpha, digits=4 if digits is None else digits
            )
        return text

    def _means_or_comparison(
        self, style: str, caption: str | None, test: str, alpha: float, digits: int | None
    ) -> str:
        if self.comparison is not None:
            comparison = self.comparison
            render = comparison.to_markdown if style == "markdown" else comparison.to_latex
            return render(test=test, alpha=alpha, digits=4 if digits is None else digits)
        means = {
            model: {metric: stats["mean"] for metric, stats in by_metric.items()}
            for model, by_metric in self.summaries.items()
        }
        digits = self.digits if digits is None else digits
        return means_table(means, with_note(caption, self.settings), digits=digits, style=style)

    def to_markdown(
        self,
        *,
        caption: str | None = None,
        test: str = "permutation",
        alpha: float = 0.05,
        digits: int | None = None,
    ) -> str:
        """The means, runs as rows and metrics as columns, under ``caption``; with a
        comparison, :meth:`ComparisonResult.to_markdown` (``test``, ``alpha``,
        ``digits``) instead. ``digits`` as in :meth:`to_text`."""
        return self._means_or_comparison("markdown", caption, test, alpha, digits)

    def to_latex(
        self,
        *,
        caption: str | None = None,
        test: str = "permutation",
        alpha: float = 0.05,
        digits: int | None = None,
    ) -> str:
        """:meth:`to_markdown` as a LaTeX ``table`` (booktabs)."""
        return self._means_or_comparison("latex", caption, test, alpha, digits)

    def to_csv(self) -> str:
        """One line per model and metric (``run, metric, mean, ...``); with a comparison,
        :meth:`ComparisonResult.to_csv` after an empty line."""
        rows = [
            [run, metric, *stats.values()]
            for run, by_metric in self.summaries.items()
            for metric, stats in by_metric.items()
        ]
        text = _csv.render(["run", "metric", *_COLUMNS], rows)
        if self.comparison is not None:
            text += "\n" + self.comparison.to_csv()
        return text

    def to_json(self) -> str:
        """The summaries (and the comparison's records) as JSON, NaN as null."""
        document: dict[str, Any] = {"results": self.summaries}
        if self.convention is not None:
            document["convention"] = self.convention
        if self.comparison is not None:
            document["comparison"] = self.comparison.records()
        return _json.render(document)


def with_note(caption: str | None, settings: Settings | None) -> str | None:
    """The caption, ended by the convention that applied (a caption of its own when
    there is none); the caption as it is without a convention."""
    note = None if settings is None else settings.described()
    if note is None:
        return caption
    sentence = f"{note[0].upper()}{note[1:]}."
    return sentence if caption is None else f"{caption} {sentence}"


def standard_error(detail: MetricDetail) -> float:
    """Standard error of the weighted mean over the queries kept in the mean.

    .. math::

        \\mathrm{SE} = \\frac{\\sqrt{\\tfrac{n}{n-1}\\sum_q w_q^2 (v_q - \\bar v)^2}}
        {\\sum_q w_q},

    which is ``std(v, ddof=1) / sqrt(n)`` for equal weights. NaN with fewer than two
    queries (or when the mean is NaN). For a count summed over queries (``total``)
    the sum is ``sum(w) * mean``, so its standard error is ``sum(w) * SE``.
    """
    kept = ~detail.skipped
    values = detail.values[kept]
    weights = np.broadcast_to(detail.weights, detail.values.shape)[kept]
    n_used = int(np.count_nonzero(weights))
    if n_used < 2 or math.isnan(detail.mean):
        return math.nan
    mean = detail.mean / weights.sum() if detail.total else detail.mean
    # elementwise products and a sum, not np.dot: BLAS would start threads for it
    spread = np.sum(weights**2 * (values - mean) ** 2) * n_used / (n_used - 1)
    error = math.sqrt(spread) / weights.sum()
    return float(error * weights.sum() if detail.total else error)


def summarize(detail: MetricDetail) -> dict[str, float | int]:
    n_skipped = int(detail.skipped.sum())
    return {
        "mean": detail.mean,
        "std_err": standard_error(detail),
        "n_queries": int(len(detail.values) - n_skipped),
        "n_undefined": int(detail.undefined.sum()),
        "n_skipped": n_skipped,
    }


def _refuse_dict_and_frame(output_dict: bool, as_frame: bool) -> None:
    if output_dict and as_frame:
        raise ValueError(
            "ranking_report returns a dict (output_dict=True) or a DataFrame (as_frame=True), "
            "not both."
        )


def _returned(report: RankingReport, output_dict: bool, as_frame: bool) -> Any:
    """What ranking_report returns: the table, the dict or the text of ``report``."""
    if as_frame:
        return report.to_frame()
    return report.to_dict() if output_dict else report.to_text()


def _report_values(
    values: PerQueryValues,
    *,
    metrics: str | Sequence[str] | None,
    digits: int,
    output_dict: bool,
    as_frame: bool,
    baseline: str | None,
    n_resamples: int,
    random_state: Any,
) -> Any:
    """:func:`ranking_report` of per-query values computed elsewhere (:class:`PerQueryValues`)."""
    with renamed_as("ranking_report"):
        _refuse_dict_and_frame(output_dict, as_frame)
        if baseline is not None and (values.runs == (None,) or len(values.runs) < 2):
            raise ValueError(
                "The 'baseline' parameter of ranking_report needs the PerQueryValues to hold "
                "at least two named runs."
            )
        if baseline is not None and values.weights is not None:
            raise ValueError(
                "The 'baseline' comparison of ranking_report weights every query equally; "
                "it cannot be combined with the query weights the PerQueryValues carries."
            )
        names, indices = chosen_metrics(values, metrics)
        skipped, undefined = values.skipped, values.undefined
        summaries: Summaries = {
            run: {
                name: _values_summary(
                    name, values.values[r, j], values.weights, skipped[r, j], undefined[r, j]
                )
                for name, j in zip(names, indices, strict=True)
            }
            for r, run in enumerate(values.runs)
        }
    comparison = None
    if baseline is not None:
        comparison = compare(
            values, metrics=names, baseline=baseline, n_resamples=n_resamples,
            random_state=random_state,
        )
    report = RankingReport(
        summaries, comparison, baseline, digits, frame_library=frame_library_of(values)
    )
    return _returned(report, output_dict, as_frame)


def _values_summary(
    name: str,
    values: np.ndarray,
    weights: np.ndarray | None,
    skipped: np.ndarray,
    undefined: np.ndarray,
) -> dict[str, float | int]:
    """:func:`summarize` of one run's values of one metric; ``n_undefined`` is NaN where
    the policy replaced undefined queries by a number (which queries were is unknown)."""
    spec = parse_metric(name)
    if weights is None:  # every query weighs 1, as the engine's broadcast 1
        weights = np.broadcast_to(np.float64(1.0), values.shape)
    with renamed_as(spec.info.function.__name__):  # as evaluate's mean names it
        mean = weighted_mean(values, weights, skipped, spec.total)
    known = not np.isnan(undefined).any()
    detail = MetricDetail(
        values, weights, undefined > 0 if known else np.zeros(len(values), dtype=bool),
        skipped, mean, False, spec.total,
    )
    summary = summarize(detail)
    if not known:
        summary["n_undefined"] = math.nan
    return summary


@accepts_per_query_values(
    _report_values,
    ("y_score", "group", "convention", "ties", "replace_undefined_by", "relevance_level",
     "sample_weight", "judged", "doc_id"),
)
@returns_frames_like_inputs()
@accepts_ranking_rows(several_models=True)
@validate_params(
    {
        **SHARED_SETTINGS,
        "digits": [DIGITS],
        "output_dict": [BOOLEAN],
        "as_frame": [BOOLEAN],
        "baseline": [InstanceOf(str, "a model name (str)"), NONE],
        "n_resamples": [RESAMPLES],
    }
)
def ranking_report(
    y_true: Any,
    y_score: Any,
    group: Any = None,
    *,
    metrics: str | Sequence[str] = REPORT_METRICS,
    convention: str | None = None,
    ties: str | None = None,
    replace_undefined_by: float | str | None = None,
    relevance_level: float | None = None,
    sample_weight: Any = None,
    judged: Any = None,
    doc_id: Any = None,
    digits: int = 4,
    output_dict: bool = False,
    as_frame: bool = False,
    baseline: str | None = None,
    n_resamples: int = 10_000,
    random_state: Any = None,
) -> Any:
    """Build a text report of ranking metrics, like scikit-learn's ``classification_report``.

    For every metric: the mean over queries (as :func:`evaluate` returns it), its
    standard error over queries, the number of queries in the mean, the number where
    the metric is undefined (no relevant row; for ``gauc`` one class only) and the
    number skipped by ``replace_undefined_by="skip"``. With the default policy
    (``0.0``) undefined queries count as 0 and stay in the mean. For the counts
    (``num_rel``, ``num_ret``, ``num_rel_ret``) the "mean" is their sum over queries,
    as trec_eval reports them, and the standard error is that of the sum.

    The standard error of the (weighted) mean :math:`\\bar v = \\sum_q w_q v_q / \\sum_q w_q`
    over the :math:`n` queries in the mean is

    .. math::

        \\mathrm{SE} = \\frac{\\sqrt{\\tfrac{n}{n-1}\\sum_q w_q^2 (v_q - \\bar v)^2}}
        {\\sum_q w_q},

    i.e. ``std(v, ddof=1) / sqrt(n)`` with equal weights. It describes the spread of
    the mean over queries drawn from the same population; to compare two models on
    the same queries use a paired test, not overlapping error bars.

    Parameters
    ----------
    y_true : array-like, or PerQueryValues
        Relevance labels, as in every metric function (flat rows, or 2-D). Or, passed
        whole, a :class:`PerQueryValues`: per-query values computed elsewhere (on
        Spark, on Dask, by ``evaluate(per_query=True)``), with their query weights;
        ``metrics`` then picks among its metrics (default: all of them), and
        ``y_score``, ``group``, ``sample_weight`` and the row-level settings
        (``convention``, ``ties``, ``replace_undefined_by``, ``relevance_level``,
        ``judged``, ``doc_id``) are refused, naming them. The numbers are those of the
        rows the values came from, except ``n_undefined``, which is NaN (unknown)
        where the policy replaced undefined queries by a number (``0.0``, ``1.0``):
        the values do not say which queries those were.
    y_score : array-like, mapping of str to array-like, or DataFrame
        Scores of one model, or several models' scores on the same rows, reported
        side by side (grouped by metric): a mapping ``name -> scores`` or a pandas
        DataFrame with one column per model (as :func:`compare` takes them).
    group : array-like or None, default=None
        Query ids of flat rows, as in every metric function (None for 2-D input).
    metrics : str or sequence of str, default=("ndcg@10", "map", "mrr", "p@10", "recall@10")
        Metric names as in :func:`evaluate`.
    convention, ties, replace_undefined_by, relevance_level : default=None
        Applied to every metric that has the parameter, as in :func:`evaluate`
        (rows read from TREC files carry ``convention="trec_eval"``). The text
        report names the convention that applied, and the settings given on top
        of it, under its table.
    sample_weight : array-like, default=None
        Query weights, as in every metric function.
    judged : array-like of bool, default=None
        Whether each row was judged (for ``bpref`` and ``judged@k``), as in
        :func:`evaluate`.
    doc_id : array-like, default=None
        Document id of every row, for a ``convention`` that breaks ties by it, as in
        :func:`evaluate`.
    digits : int in [0, 17], default=4
        Digits after the decimal point in the text report.
    output_dict : bool, default=False
        Return a dict instead of text: ``{metric: {"mean", "std_err", "n_queries",
        "n_undefined", "n_skipped"}}`` for one model, ``{model: {metric: {...}}}``
        for several.
    as_frame : bool, default=False
        Return a table instead of text: one row per metric (and model), columns
        ``metric`` (``model`` first, with several models), ``mean``, ``std_err``,
        ``n_queries``, ``n_undefined``, ``n_skipped`` and, with ``baseline``, the
        comparison's columns (NaN on the baseline's rows). A polars DataFrame for
        polars inputs, a pyarrow Table for pyarrow inputs, else a pandas DataFrame
        (which then needs pandas).
    baseline : str or None, default=None
        With several models: also compare every other model with this one on the
        same queries (:func:`compare`: mean per-query difference, percentile and BCa
        bootstrap intervals, paired t-test and randomisation-test p-values). The text
        report gets a second table; in the dict, each other model's metric entry gets
        ``compare``'s columns (``mean_difference``, ``ci_low_percentile``, ...,
        ``p_value_permutation``).
    n_resamples : int in [1, 1_000_000], default=10_000
        Resamples of the comparison (with ``baseline``).
    random_state : int, numpy Generator or RandomState, or None, default=None
        Seeds the comparison's resampling (with ``baseline``).

    Returns
    -------
    report : str, dict, or a DataFrame or Table
        The text; with ``output_dict=True`` the dict; with ``as_frame=True`` a
        table of the inputs' frame library (polars in, polars out; pyarrow in,
        pyarrow out; pandas otherwise).

    See Also
    --------
    evaluate : the means only, or the per-query values with ``per_query=True``.

    Examples
    --------
    >>> from sklearn_rank_metrics import ranking_report
    >>> y_true = [2, 0, 1, 0, 1, 0, 0, 0]
    >>> y_score = [0.9, 0.8, 0.1, 0.3, 0.7, 0.2, 0.5, 0.4]
    >>> qid = [1, 1, 1, 2, 2, 2, 3, 3]
    >>> print(ranking_report(y_true, y_score, qid, metrics=["mrr", "p@1"]))
           mean  std err  queries  undefined  skipped
    <BLANKLINE>
    mrr   0.6667   0.3333        3          1        0
    p@1   0.6667   0.3333        3          1        0
    >>> ranking_report(y_true, y_score, qid, metrics="mrr",
    ...                replace_undefined_by="skip", output_dict=True)["mrr"]["n_queries"]
    2
    """
    settings = Settings.from_arguments(
        convention=convention,
        ties=ties,
        replace_undefined_by=replace_undefined_by,
        relevance_level=relevance_level,
    )
    _refuse_dict_and_frame(output_dict, as_frame)
    models: dict[Any, Any]  # None: one model's scores given alone
    if isinstance(y_score, Mapping) or hasattr(y_score, "columns"):
        with renamed_as("ranking_report"):
            models = score_mapping(y_score, min_models=0, parameter="y_score")
        if not models:
            raise ValueError(
                "The 'y_score' parameter of ranking_report is an empty mapping (or a "
                "DataFrame without columns); it needs at least one model's scores."
            )
    else:
        models = {None: y_score}
    if baseline is not None and (None in models or len(models) < 2):
        raise ValueError(
            "The 'baseline' parameter of ranking_report needs 'y_score' to be a mapping of "
            "at least two models' scores."
        )
    if baseline is not None and sample_weight is not None:
        raise ValueError(
            "The 'baseline' comparison of ranking_report weights every query equally; "
            "it cannot be combined with 'sample_weight'."
        )
    with called_as("ranking_report"):
        plan = plan_metrics(metrics, settings)
        # the rows checked once, each model's scores on their own (a TREC run keeps its
        # own line order); the comparison reads the same per-query values
        details = models_details(
            y_true, models, group, plan, judged=judged, doc_id=doc_id,
            sample_weight=sample_weight, means=True,
        )
    summaries: Summaries = {
        name: {metric: summarize(d) for metric, d in model.metrics.items()}
        for name, model in details.items()
    }
    comparison = None
    if baseline is not None:
        comparison = compare_values(
            details, plan.names, baseline=baseline, n_resamples=n_resamples,
            random_state=random_state, settings=settings,
        )
    report = RankingReport(
        summaries, comparison, baseline, digits, frame_library=output_library(),
        settings=settings,
    )
    return _returned(report, output_dict, as_frame)


def _report_frame(summaries: dict[Any, dict[str, dict[str, Any]]], library: str | None) -> Any:
    """The report as a table of ``library`` (pandas for None): one row per (model,)
    metric, in the text report's order."""
    metrics = list(next(iter(summaries.values())))
    records = [
        {**({} if model is None else {"model": model}), "metric": metric, **by_metric[metric]}
        for metric in metrics
        for model, by_metric in summaries.items()
    ]
    frame = frame_of(_record_columns(records), library)
    if isinstance(frame, dict):  # no frame library in the inputs, and pandas missing
        raise ImportError(
            "ranking_report(as_frame=True) needs pandas: pip install "
            "\"sklearn-rank-metrics[pandas]\" (or pip install pandas), or polars or pyarrow "
            "inputs for a table of that library"
        )
    return frame


def _record_columns(records: list[dict[str, Any]]) -> dict[str, np.ndarray]:
    """The records as columns, as ``pandas.DataFrame.from_records`` reads them.

    Columns in order of first appearance; a value a record lacks is NaN; names are
    an object column, whole numbers an int64 column, a column with NaN float64.
    """
    names = list(dict.fromkeys(name for record in records for name in record))
    columns = {}
    for name in names:
        values = [record.get(name, math.nan) for record in records]
        text = all(isinstance(value, str) for value in values)
        columns[name] = np.asarray(values, dtype=object if text else None)
    return columns


def _add_comparison(summaries: dict, comparison: Any) -> None:
    """Each compared model's metric entry gets the comparison's columns."""
    shown = {"metric", "model_a", "model_b", "n_queries", "mean_a", "mean_b"}
    for record in comparison.records():
        entry = summaries[record["model_a"]][record["metric"]]
        entry.update({name: value for name, value in record.items() if name not in shown})


def report_table(summaries: dict[Any, dict[str, dict[str, float | int]]], digits: int) -> Table:
    """One row per metric (and model: a model column only when there are several)."""
    several = None not in summaries
    metric_names = list(next(iter(summaries.values())))
    rows: list[list[Cell]] = []
    for metric in metric_names:
        for position, (model, by_metric) in enumerate(summaries.items()):
            stats = by_metric[metric]
            cells = [
                f"{stats['mean']:.{digits}f}",
                f"{stats['std_err']:.{digits}f}",
                *(str(stats[column]) for column in _COLUMNS[2:]),
            ]
            name = metric if position == 0 else Verbatim("")
            label: list[Cell] = [name, str(model)] if several else [metric]
            rows.append(label + [Verbatim(cell) for cell in cells])
    n_labels = 2 if several else 1
    return Table([Verbatim("")] * n_labels + list(_HEADERS), rows, left=n_labels)


def format_report(summaries: dict[Any, dict[str, dict[str, float | int]]], digits: int) -> str:
    """Labels left-aligned, numbers right-aligned, an empty line under the header.

    Metric and model names are shown through :func:`.._render._escape.text` (control
    characters as escapes), so that a name cannot break a line.
    """
    table = report_table(summaries, digits)
    return _text.render(None, [table], gap=3, blank_after_header=True)
