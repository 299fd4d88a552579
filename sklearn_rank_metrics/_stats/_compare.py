"""Paired comparison of several models on the same queries: :func:`compare`.

Two models' mean NDCG differ by 0.004: is that real? Every model is evaluated on
the same queries, so the comparison is *paired*: the unit of resampling is the
query, and the statistic is the mean over queries of the per-query difference.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

import numpy as np

from .._engine._caller import called_as, renamed_as
from .._engine._frames import frame_of, output_library, returns_frames_like_inputs
from .._engine._ranking_rows import accepts_ranking_rows
from .._engine._validation import NONE, Interval, Options, validate_params
from .._metrics._base import SHARED_SETTINGS, fill_doc
from .._metrics._conventions import preset_name
from .._metrics._evaluate import metric_names
from .._metrics._registry import parse_metric
from .._metrics._settings import Settings
from .._render import _csv, _json, _text
from .._render._table import Table, Verbatim
from ._comparison_table import comparison_tables
from ._model_values import (
    count_error,
    greater_is_better,
    per_query_values,
    score_mapping,
    values_of,
)
from ._per_query_doors import accepts_per_query_values, chosen_metrics, frame_library_of
from ._per_query_values import PerQueryValues
from ._resampling import (
    BOOTSTRAP_METHODS,
    CORRECTIONS,
    RESAMPLES,
    as_generator,
    bootstrap_intervals,
    bootstrap_means,
    sign_flip_pvalues,
)

# --------------------------------------------------------------------------- result


# The parameters and result of to_markdown and to_latex, as a method's docstring text.
_TABLES_LIKE_TO_TEXT = {
    "tables_like_to_text": """Parameters
        ----------
        test, alpha, digits
            As in :meth:`to_text`.

        Returns
        -------
        text : str"""
}

_Method = TypeVar("_Method", bound=Callable)


def _tables_doc(function: _Method) -> _Method:
    fill_doc(function, _TABLES_LIKE_TO_TEXT)
    return function


@dataclass(frozen=True, eq=False)
class ComparisonResult:
    """What :func:`compare` returns.

    Attributes
    ----------
    table : DataFrame, Table or dict of ndarray
        One row per (metric, pair of models); columns ``metric, model_a, model_b,
        n_queries, mean_a, mean_b, mean_difference`` (``mean_a - mean_b``), then
        ``ci_low_<method>, ci_high_<method>`` for every bootstrap method,
        ``p_value_t, p_value_permutation``, ``wins, ties, losses`` (queries where
        ``model_a`` is better than, level with, worse than ``model_b``: above, level,
        below, or below, level, above for a lower-is-better metric such as
        ``"fallout@k"``; values within ``100 eps`` of each other are level; the means,
        differences and intervals keep their sign), ``effect_size`` (paired Cohen's
        :math:`d_z = \\bar d / s_d`, NaN when every difference is equal) and, with a
        ``correction``, ``p_value_t_<correction>, p_value_permutation_<correction>``.
        Every table is of the inputs' frame library: a polars DataFrame for polars
        inputs, a pyarrow Table for pyarrow inputs (or an :class:`AlignedRuns` read
        from such a frame), else a pandas DataFrame when pandas is installed, and
        a dict of arrays without it.
    means : DataFrame, Table or dict of ndarray
        Column ``model`` and one column per metric: the mean over the queries that
        enter the comparison of that metric.
    per_query : DataFrame, Table or dict of ndarray
        Long form: columns ``model``, ``query`` and one per metric (NaN where a query
        is left out).
    confidence_level, n_resamples, methods, correction
        The settings used.
    baseline : str or None
        The model every other one was compared with, or None (every pair).
    settings : Settings or None
        The settings the per-query values were computed with (the convention that
        applied, given or carried by rows read from TREC files, and the settings
        given); None for per-query values computed elsewhere. ``convention`` gives
        the convention's name; :meth:`to_text` ends with it and :meth:`to_json` has it.

    Examples
    --------
    ``"good"`` ranks the relevant row first in each of three queries, ``"bad"``
    third:

    >>> from sklearn_rank_metrics import compare
    >>> y_true = [1, 0, 0, 0, 1, 0, 1, 0, 0]
    >>> qid = [1, 1, 1, 2, 2, 2, 3, 3, 3]
    >>> scores = {"good": [3, 2, 1, 1, 3, 2, 3, 1, 2], "bad": [1, 2, 3, 3, 1, 2, 1, 3, 2]}
    >>> result = compare(y_true, scores, qid, metrics=["mrr", "p@1"], n_resamples=1000,
    ...                  random_state=0)
    >>> result
    ComparisonResult(2 comparisons, confidence_level=0.95, n_resamples=1000,
                     methods=('percentile', 'bca'), correction=None)
    >>> [round(float(value), 4) for value in result.means["mrr"]]  # 1 and 1/3
    [1.0, 0.3333]
    >>> table = result.table
    >>> [(str(metric), int(wins), int(ties), int(losses)) for metric, wins, ties, losses
    ...  in zip(table["metric"], table["wins"], table["ties"], table["losses"])]
    [('mrr', 3, 0, 0), ('p@1', 3, 0, 0)]
    >>> float(table["p_value_permutation"][0])  # 2 of the 2**3 sign patterns
    0.25
    >>> for line in result.to_text().splitlines()[4:7]:  # the means, as printed
    ...     print(line)
       run      mrr     p@1
    a  good  1.0000  1.0000
    b  bad   0.3333  0.0000
    """

    table: Any
    means: Any
    per_query: Any
    confidence_level: float
    n_resamples: int
    methods: tuple[str, ...]
    correction: str | None
    baseline: str | None = None
    _columns: dict[str, np.ndarray] = field(repr=False, compare=False, default_factory=dict)
    _means: dict[str, dict[str, float]] = field(repr=False, compare=False, default_factory=dict)
    # the settings the per-query values were computed with (None: values given whole)
    settings: Settings | None = field(default=None, repr=False, compare=False)

    @property
    def convention(self) -> str | None:
        """The convention the per-query values were computed under (given, or carried
        by rows read from TREC files); None for the package's defaults or for
        per-query values computed elsewhere (:class:`PerQueryValues`)."""
        return None if self.settings is None else preset_name(self.settings.convention)

    def _settings_note(self) -> str:
        note = None if self.settings is None else self.settings.described()
        return "" if note is None else f"\n\n{note}"

    def __repr__(self) -> str:
        n_rows = len(self._columns.get("metric", ()))
        return (
            f"ComparisonResult({n_rows} comparisons, confidence_level={self.confidence_level}, "
            f"n_resamples={self.n_resamples}, methods={self.methods}, "
            f"correction={self.correction!r})"
        )

    def __str__(self) -> str:
        return self.to_text()

    def _tables(self, style: str, test: Any, alpha: Any, digits: Any) -> str:
        # the text ends with the convention's line; Markdown and LaTeX say it in the caption
        note = None if style == "text" or self.settings is None else self.settings.described()
        with renamed_as(f"ComparisonResult.to_{style}"):
            return comparison_tables(
                self._columns, self._means, baseline=self.baseline, correction=self.correction,
                n_resamples=self.n_resamples, test=test, alpha=alpha, digits=digits, style=style,
                note=note,
            )

    def to_text(self, *, test: str = "permutation", alpha: float = 0.05, digits: int = 4) -> str:
        """The comparison as text: runs as rows, metrics as columns, then each comparison.

        Every mean is followed by the letters (as superscripts) of the runs it is
        significantly better than (with more than 25 runs, their numbers in ranges:
        ``0.8770 (2-7,9)``), at level ``alpha``, by the paired randomisation
        test (``test="permutation"``) or the paired t-test (``test="t"``), with the
        p-values of ``correction`` when one was chosen; the caption names the test,
        the level and the correction. Each comparison then shows, per metric, the
        mean difference, the paired effect size :math:`d_z`, the win/tie/loss counts
        over queries and the p-value. Three runs and four metrics fit 100 columns.
        Control characters in run and metric names are shown as escapes (``\\n``).

        Parameters
        ----------
        test : {"permutation", "t"}, default="permutation"
            The p-values that decide the markers.
        alpha : float in (0, 1), default=0.05
            Significance level of the markers: any real number, a NumPy float read
            as the decimal it prints as (``np.float32(0.05)`` is 0.05).
        digits : int in [0, 17], default=4
            Digits of the means and differences after the decimal point (17 show
            every digit a float64 mean in [0.1, 1) has).

        Returns
        -------
        text : str
            Under a convention, a last line names it and the settings given on top of
            it.
        """
        return self._tables("text", test, alpha, digits) + self._settings_note()

    @_tables_doc
    def to_markdown(
        self, *, test: str = "permutation", alpha: float = 0.05, digits: int = 4
    ) -> str:
        """The tables of :meth:`to_text` as Markdown (pipe tables, the caption above).

        Run, metric and baseline names are escaped: ``|``, the backslash and inline
        markup characters get a backslash, line breaks become spaces.

        [[tables_like_to_text]]
        """
        return self._tables("markdown", test, alpha, digits)

    @_tables_doc
    def to_latex(self, *, test: str = "permutation", alpha: float = 0.05, digits: int = 4) -> str:
        """The tables of :meth:`to_text` as a LaTeX ``table`` with booktabs rules.

        Markers are superscripts (``0.8770$^{a}$``; with more than 25 runs
        ``0.8770\\textsuperscript{2--7,9}``); the caption is ``\\caption``.
        Needs ``\\usepackage{booktabs}``. Run, metric and baseline names are
        escaped: every LaTeX special character is printed as written (``\\&``,
        ``\\textbackslash{}``, ...), line breaks become spaces.

        [[tables_like_to_text]]
        """
        return self._tables("latex", test, alpha, digits)

    def to_long_text(self) -> str:
        """Every column of :attr:`table` as aligned text, one line per comparison.

        Returns
        -------
        text : str
        """
        return format_comparison(self._columns, self.confidence_level, self.methods)

    def to_csv(self) -> str:
        """:attr:`table` as CSV text (a header, then one line per comparison).

        Returns
        -------
        text : str
        """
        return _csv.render(list(self._columns), (r.values() for r in self.records()))

    def to_json(self) -> str:
        """The settings, the means and :attr:`table` as JSON (NaN as null).

        Returns
        -------
        text : str
        """
        document = {
            "baseline": self.baseline,
            "convention": self.convention,
            "correction": self.correction,
            "confidence_level": self.confidence_level,
            "n_resamples": self.n_resamples,
            "means": self._means,
            "comparisons": self.records(),
        }
        return _json.render(document)

    def records(self) -> list[dict[str, Any]]:
        """The table as one dict per comparison, with plain Python values."""
        columns = {name: np.asarray(values).tolist() for name, values in self._columns.items()}
        n_rows = len(columns.get("metric", ()))
        return [{name: values[row] for name, values in columns.items()} for row in range(n_rows)]


def _format_number(value: float, p_value: bool = False) -> str:
    if math.isnan(value):
        return "nan"
    if p_value and value < 1e-4:
        return f"{value:.1e}"
    return f"{value:.4f}"


_P_HEADERS = {
    "p_value_t": "p t-test",
    "p_value_permutation": "p perm.",
    "p_value_t_holm": "p t-test Holm",
    "p_value_permutation_holm": "p perm. Holm",
}


def format_comparison(
    columns: dict[str, np.ndarray], confidence_level: float, methods: tuple[str, ...]
) -> str:
    """The comparison table as aligned text (one line per comparison)."""
    level = f"{100 * confidence_level:g}%"
    headers = ["metric", "model_a", "model_b", "n", "mean_a", "mean_b", "diff"]
    headers += [f"{level} CI {method}" for method in methods]
    p_columns = [name for name in columns if name.startswith("p_value")]
    headers += [_P_HEADERS.get(name, name) for name in p_columns]
    rows = []
    for i in range(len(columns["metric"])):
        row: list[str] = [
            str(columns[name][i]) for name in ("metric", "model_a", "model_b", "n_queries")
        ]
        numbers = [_format_number(columns[name][i]) for name in ("mean_a", "mean_b")]
        numbers.append(_format_number(columns["mean_difference"][i]))
        for method in methods:
            low = _format_number(columns[f"ci_low_{method}"][i])
            high = _format_number(columns[f"ci_high_{method}"][i])
            numbers.append(f"[{low}, {high}]")
        numbers += [_format_number(columns[name][i], p_value=True) for name in p_columns]
        rows.append(row + [Verbatim(number) for number in numbers])
    # metric and model names are left-aligned, numbers right-aligned
    return _text.render(None, [Table(headers, rows, left=3)])


# --------------------------------------------------------------------------- compare


def _method_error(error: type[Exception], method: Any) -> Exception:
    return error(
        "The 'method' parameter of compare must be 'percentile', 'bca' or a sequence of "
        f"them. Got {method!r} instead."
    )


def _methods(method: Any) -> tuple[str, ...]:
    try:
        methods = (method,) if isinstance(method, str) else tuple(method)
    except TypeError:
        raise _method_error(TypeError, method) from None
    bad = [m for m in methods if not isinstance(m, str) or m.lower() not in BOOTSTRAP_METHODS]
    if not methods or bad:
        raise _method_error(ValueError, method)
    return tuple(dict.fromkeys(m.lower() for m in methods))


def _pairs(models: list[str], baseline: str | None) -> list[tuple[int, int]]:
    if baseline is None:
        return list(itertools.combinations(range(len(models)), 2))
    if not isinstance(baseline, str):
        raise TypeError(
            f"The 'baseline' parameter of compare must be a model name (str) or None. Got "
            f"{baseline!r} instead."
        )
    if baseline not in models:
        raise ValueError(
            f"The 'baseline' parameter of compare must be one of the models {models}. Got "
            f"{baseline!r} instead."
        )
    b = models.index(baseline)
    return [(a, b) for a in range(len(models)) if a != b]


def _wins_ties_losses(a: np.ndarray, b: np.ndarray, signs: np.ndarray) -> list[np.ndarray]:
    """Queries where ``a`` is better than, level with, worse than ``b``, column by column.

    Better is above for a column of sign 1, below for one of sign -1 (a lower-is-better
    metric). Values within ``100 eps max(|a|, |b|)`` of each other are level, so that
    rounding never turns a tie into a win.
    """
    differences = (a - b) * signs
    tolerance = 100 * np.finfo(np.float64).eps * np.maximum(np.abs(a), np.abs(b))
    wins = np.count_nonzero(differences > tolerance, axis=0)
    losses = np.count_nonzero(differences < -tolerance, axis=0)
    return [wins, len(a) - wins - losses, losses]


def _effect_size(differences: np.ndarray) -> np.ndarray:
    r"""Paired effect size :math:`d_z = \bar d / s_d` (Cohen), column by column.

    :math:`s_d` is the standard deviation of the per-query differences (``ddof=1``);
    NaN with fewer than two queries or when every difference is equal.
    """
    if len(differences) < 2:
        return np.full(differences.shape[1], np.nan)
    spread = np.std(differences, axis=0, ddof=1)
    constant = np.ptp(differences, axis=0) == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        effect = np.mean(differences, axis=0) / spread
    return np.where(constant, np.nan, effect)


def _t_test_pvalues(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The paired t-test of ``scipy.stats.ttest_rel``, column by column.

    ``t = mean(d) / (std(d, ddof=1) / sqrt(n))`` for the differences ``d = a - b``,
    two-sided p-value from Student's t with ``n - 1`` degrees of freedom. Where all
    differences of a column are equal: NaN if they are 0, else 0.0. NaN with one
    query. Computed here rather than by ``ttest_rel``, whose warnings on constant
    columns would need a process-wide warning filter to silence.
    """
    if len(a) < 2:
        return np.full(a.shape[1], np.nan)
    differences = a - b
    n = len(differences)
    spread = np.std(differences, axis=0, ddof=1)
    constant = np.ptp(differences, axis=0) == 0
    with np.errstate(divide="ignore", invalid="ignore"):  # thread-local, unlike warnings
        t = np.mean(differences, axis=0) / (spread / np.sqrt(n))
    # Student's t survival function, as scipy.stats.t.sf computes it (stdtr(df, -t));
    # imported on first use: the command line starts without it
    from scipy.special import stdtr

    p_values = 2.0 * stdtr(n - 1, -np.abs(t))
    p_values[constant] = np.where(differences[0, constant] == 0, np.nan, 0.0)
    return p_values


def _compare_values(
    values: PerQueryValues,
    *,
    metrics: str | Sequence[str] | None,
    baseline: str | None,
    n_resamples: int,
    confidence_level: float,
    method: str | Sequence[str],
    correction: str | None,
    random_state: Any,
) -> ComparisonResult:
    """:func:`compare` of per-query values computed elsewhere (:class:`PerQueryValues`)."""
    with renamed_as("compare"):
        if values.runs == (None,) or len(values.runs) < 2:
            raise ValueError(
                "compare compares two runs at least; the PerQueryValues holds "
                f"{'one unnamed run' if values.runs == (None,) else repr(values.runs)}. Build "
                "it from a mapping {run name: table} or a table with a run column."
            )
        if values.weights is not None:
            raise ValueError(
                "compare counts every query once, but the PerQueryValues carries query "
                "weights; they are not dropped silently. Pass dataclasses.replace(values, "
                "weights=None) to count every query once, or use ranking_report, which "
                "weights the queries."
            )
        models = [str(run) for run in values.runs]
        pairs = _pairs(models, baseline)
        methods = _methods(method)
        names, indices = chosen_metrics(values, metrics)
        for name in names:
            if parse_metric(name).total:
                raise count_error(name)
        rng = as_generator(random_state)
    return _comparison(
        _Compared(models, names, values.query_ids, values.values[:, indices]),
        pairs, methods, n_resamples, confidence_level, rng, correction, baseline,
        frame_library_of(values),
    )


@accepts_per_query_values(
    _compare_values,
    ("scores", "group", "convention", "ties", "replace_undefined_by", "relevance_level",
     "judged", "doc_id"),
)
@returns_frames_like_inputs(("y_true", "scores", "group"))
@accepts_ranking_rows(several_models=True)
@validate_params(
    {
        "n_resamples": [RESAMPLES],
        "confidence_level": [Interval(float, 0, 1, closed="neither")],
        "correction": [Options(*CORRECTIONS), NONE],
        **SHARED_SETTINGS,
    }
)
def compare(
    y_true: Any,
    scores: Mapping[str, Any],
    group: Any = None,
    *,
    metrics: str | Sequence[str] = ("ndcg@10",),
    baseline: str | None = None,
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    method: str | Sequence[str] = ("percentile", "bca"),
    correction: str | None = None,
    convention: str | None = None,
    ties: str | None = None,
    replace_undefined_by: float | str | None = None,
    relevance_level: float | None = None,
    judged: Any = None,
    doc_id: Any = None,
    random_state: Any = None,
) -> ComparisonResult:
    r"""Compare several models on the same queries: differences, intervals, p-values.

    For each metric and each pair of models (every pair, or every model against
    ``baseline``), the per-query difference :math:`d_q = m_a(q) - m_b(q)` is
    computed on every query, and its mean :math:`\bar d` is reported with

    - a bootstrap confidence interval: queries are resampled with replacement
      (jointly for all models and metrics, so the pairing is kept), by the
      percentile and/or the BCa method;
    - the two-sided paired t-test p-value (:func:`scipy.stats.ttest_rel`);
    - the two-sided paired randomisation test p-value: under the null hypothesis
      the two models are exchangeable within a query, so every :math:`d_q` keeps
      or flips its sign with probability 1/2;
    - optionally, Holm's adjustment of both p-values.

    Parameters
    ----------
    y_true : array-like of shape (n_rows,) or (n_queries, n_docs), or PerQueryValues
        Relevance labels, shared by all models. Or, passed whole, a
        :class:`AlignedRuns` (the rows of several runs), or a :class:`PerQueryValues`:
        per-query values computed elsewhere (on Spark, on Dask, by
        ``evaluate(per_query=True)``), two runs at least, unweighted; ``metrics``
        then picks among its metrics (default: all of them), and ``scores``,
        ``group`` and the row-level settings (``convention``, ``ties``,
        ``replace_undefined_by``, ``relevance_level``, ``judged``, ``doc_id``) are
        refused, naming them: they were applied when the values were computed. The
        numbers are those of the rows the values came from.
    scores : mapping of str to array-like, or DataFrame
        Each model's scores (same shape as ``y_true``); a DataFrame gives one model per
        column. At least two models.
    group : array-like of shape (n_rows,), default=None
        Query ids, as in every metric function.
    metrics : str or sequence of str, default=("ndcg@10",)
        Metric names as in :func:`evaluate`, e.g. ``["ndcg@10", "map", "mrr@10"]``.
    baseline : str or None, default=None
        ``None``: every pair ``(a, b)`` with ``a`` before ``b`` in ``scores``.
        A model name: every other model ``a`` against it, ``(a, baseline)``.
    n_resamples : int in [1, 1_000_000], default=10_000
        Bootstrap resamples, and random sign patterns of the randomisation test
        (all :math:`2^n` patterns are enumerated, exactly, when
        :math:`2^n \le` ``n_resamples`` for ``n`` queries).
    confidence_level : float in (0, 1), default=0.95
        Of the two-sided bootstrap intervals.
    method : {"percentile", "bca"} or sequence of them, default=("percentile", "bca")
        Bootstrap interval methods; each adds ``ci_low_<method>, ci_high_<method>``.
    correction : {"holm", "bonferroni", "bh"} or None, default=None
        Adds adjusted p-values ``p_value_t_<correction>`` and
        ``p_value_permutation_<correction>``: Holm's step-down, Bonferroni's, or
        Benjamini and Hochberg's false discovery rate; the family is the comparisons
        of one metric (all pairs, or all models against the baseline).
    convention, ties, replace_undefined_by, relevance_level : default=None
        As in :func:`evaluate`: applied to every metric that has the parameter and
        does not set it in its name.
    judged : array-like of bool, default=None
        Whether each row was judged (for ``bpref`` and ``judged@k``), as in
        :func:`evaluate`; :class:`AlignedRuns` has it as ``.judged``.
    doc_id : array-like, default=None
        Document id of every row, for a ``convention`` that breaks ties by it, as in
        :func:`evaluate`.
    random_state : int, numpy Generator or RandomState, or None, default=None
        Seeds the resampling; an int gives the same result on every call.

    Returns
    -------
    result : ComparisonResult
        ``result.table`` (one row per metric and pair), ``result.means``,
        ``result.per_query``: polars DataFrames for polars inputs (labels, scores
        or query ids), pyarrow Tables for pyarrow inputs, pandas DataFrames
        otherwise (dicts of arrays without pandas); ``print(result)`` shows the
        table as aligned text.

    Notes
    -----
    **Queries.** A paired comparison needs the value of both models on the same
    query. Queries without a relevant row are undefined for every model alike
    (they depend on ``y_true`` only): with the default policy they count 0, as in
    :func:`evaluate`. A query that is left out (``replace_undefined_by="skip"``) or
    NaN for *any* model is left out of that metric's comparison for *all* models,
    and ``n_queries`` counts the queries kept; the means in the table are over
    those queries. Query weights (``sample_weight``, or metrics that weight queries
    such as micro-averaged hit rate) are not supported: every query counts once.

    **Per-query values.** ``compare(PerQueryValues.from_frame(table, ...))``
    compares runs evaluated where the rows are (``sklearn_rank_metrics.spark``,
    ``sklearn_rank_metrics.dask``): only one value per query and run reaches this
    machine. The runs are aligned by query id (a query one run lacks is refused
    when the values are built), and a missing value is read by the policy the values
    were computed with (see :class:`PerQueryValues`).

    **Bootstrap** (Efron & Tibshirani 1993). With :math:`B` resamples and
    :math:`\alpha = (1 - \text{confidence\_level}) / 2`, the percentile interval is
    the :math:`\alpha, 1 - \alpha` quantiles (linear interpolation) of the bootstrap
    means :math:`\bar d^*_b`; BCa shifts those levels to
    :math:`\Phi(\hat z_0 + (\hat z_0 + z)/(1 - \hat a(\hat z_0 + z)))`,
    :math:`z = \Phi^{-1}(\alpha), \Phi^{-1}(1-\alpha)`, with the bias correction
    :math:`\hat z_0 = \Phi^{-1}((\#\{\bar d^* < \bar d\} + \#\{\bar d^* \le \bar d\})
    / 2B)` and the acceleration from the jackknife of the mean, in closed form
    :math:`\hat a = \sum_q (d_q - \bar d)^3 / (6 (\sum_q (d_q - \bar d)^2)^{3/2})`:
    the definitions of :func:`scipy.stats.bootstrap`, with one deliberate deviation:
    in :math:`\hat z_0`, bootstrap means within
    :math:`100\,\epsilon \max(|\bar d|, \overline{|d|})` of :math:`\bar d` count as
    equal to it, where SciPy compares exactly. On discrete metrics (P@5, MRR) many
    resampled means equal :math:`\bar d` in exact arithmetic but miss it by rounding;
    the tolerance keeps them as ties, so :math:`\hat z_0` (and the BCa interval) is
    the one of exact arithmetic, and may differ from SciPy's on such data. When all
    :math:`d_q` are equal the interval is the point :math:`[\bar d, \bar d]`.

    **Randomisation test** (Fisher; for IR, Smucker, Allan & Carterette 2007). With
    :math:`s_q \in \{-1, 1\}` random signs, the null statistics are
    :math:`\frac1n \sum_q s_q d_q`; the two-sided p-value is twice the smaller of
    :math:`P(T \le \bar d)` and :math:`P(T \ge \bar d)`, capped at 1, estimated as
    :math:`(\#\{\cdot\} + 1) / (B + 1)` (exact counts over :math:`2^n` when all
    patterns are enumerated), as :func:`scipy.stats.permutation_test` with
    ``permutation_type="samples"``. Null statistics within
    :math:`100\,\epsilon \max(|\bar d|, \overline{|d|})` of :math:`\bar d` count as
    equal to it, so that rounding never decides a tie.

    **t-test.** :func:`scipy.stats.ttest_rel` on the per-query values, except when
    all differences are equal (zero variance), where the p-value is NaN if they are
    all 0 (no evidence either way) and 0.0 otherwise (every query moves by the same
    non-zero amount), consistent with the point interval; ``ttest_rel`` itself would
    give NaN, 0 or rounding noise there. NaN with a single query.

    **Holm** (1979). Within a family of :math:`m` p-values sorted increasingly,
    :math:`\tilde p_{(i)} = \max_{j \le i} \min(1, (m - j + 1) p_{(j)})`.

    Everything is vectorised: resamples are drawn in chunks of bounded memory, as
    matrices of counts (bootstrap) or of signs (randomisation test), and multiplied
    with the per-query values.

    References
    ----------
    .. [1] B. Efron and R. J. Tibshirani, *An Introduction to the Bootstrap*,
       Chapman & Hall, 1993 (chapter 14: BCa).
    .. [2] S. Holm, "A simple sequentially rejective multiple test procedure",
       Scandinavian Journal of Statistics 6(2), 1979.
    .. [3] M. D. Smucker, J. Allan and B. Carterette, "A comparison of statistical
       significance tests for information retrieval evaluation", CIKM 2007.

    Examples
    --------
    >>> from sklearn_rank_metrics import compare
    >>> y_true = [1, 0, 0, 0, 1, 0, 1, 0, 0]
    >>> qid = [1, 1, 1, 2, 2, 2, 3, 3, 3]
    >>> scores = {"good": [3, 2, 1, 1, 3, 2, 3, 1, 2], "bad": [1, 2, 3, 3, 1, 2, 1, 3, 2]}
    >>> result = compare(y_true, scores, qid, metrics="mrr", n_resamples=1000,
    ...                  method="percentile", random_state=0)
    >>> table = result.table
    >>> round(float(table["mean_difference"][0]), 4)  # 1 - 1/3 on every query
    0.6667
    >>> float(table["p_value_permutation"][0])  # 2 of the 2**3 sign patterns are as extreme
    0.25
    """
    settings = Settings.from_arguments(
        convention=convention,
        ties=ties,
        replace_undefined_by=replace_undefined_by,
        relevance_level=relevance_level,
    )
    with renamed_as("compare"):
        scores = score_mapping(scores, min_models=2)
    models = list(scores)
    pairs = _pairs(models, baseline)
    methods = _methods(method)
    with called_as("compare"):
        names = metric_names(metrics)
    with renamed_as("compare"):
        rng = as_generator(random_state)
        query_ids, values = per_query_values(
            y_true, scores, group, names, shared=settings, judged=judged, doc_id=doc_id
        )
    result = _comparison(
        _Compared(models, names, query_ids, values), pairs, methods, n_resamples,
        confidence_level, rng, correction, baseline, output_library(),
    )
    return replace(result, settings=settings)


def compare_values(
    compared: Mapping[str, Any],
    names: list[str],
    *,
    baseline: str | None,
    n_resamples: int,
    random_state: Any,
    settings: Settings,
) -> ComparisonResult:
    """:func:`compare` at its defaults of the models' details computed elsewhere on
    the same rows (:func:`ranking_report`'s, which checked the rows once for both).

    ``compared``: ``{model: EvaluationDetails}``. Errors and warnings read as
    ``compare``'s.
    """
    models = list(compared)
    with renamed_as("compare"):
        pairs = _pairs(models, baseline)
        methods = _methods(("percentile", "bca"))
        rng = as_generator(random_state)
        query_ids, values = values_of(list(compared.values()), "compare")
    result = _comparison(
        _Compared(models, names, query_ids, values), pairs, methods, n_resamples, 0.95, rng,
        None, baseline, output_library(),
    )
    return replace(result, settings=settings)


@dataclass(frozen=True)
class _Compared:
    """The runs, the metrics and their per-query values, ready for the statistics."""

    models: list[str]
    names: list[str]
    query_ids: np.ndarray
    values: np.ndarray  # (n_models, n_metrics, n_queries), NaN where left out


def _comparison(
    compared: _Compared,
    pairs: list[tuple[int, int]],
    methods: tuple[str, ...],
    n_resamples: int,
    confidence_level: float,
    rng: np.random.Generator,
    correction: str | None,
    baseline: str | None,
    library: str | None,
) -> ComparisonResult:
    """The statistics of every pair and metric, as a :class:`ComparisonResult` whose
    tables are of ``library``."""
    models, names, query_ids, values = (
        compared.models, compared.names, compared.query_ids, compared.values
    )
    signs = np.array([1.0 if greater_is_better(name) else -1.0 for name in names])
    kept, means, results, stats_columns = _statistics(
        values, pairs, methods, n_resamples, confidence_level, rng, signs
    )
    columns = _comparison_columns(names, models, pairs, kept, results, stats_columns, correction)
    n_models, n_queries = len(models), values.shape[2]
    means_columns = {"model": np.asarray(models, dtype=object)}
    means_columns.update({name: means[:, j] for j, name in enumerate(names)})
    per_query = {
        "model": np.repeat(np.asarray(models, dtype=object), n_queries),
        "query": np.tile(query_ids, n_models),
    }
    for j, name in enumerate(names):
        per_query[name] = np.where(kept[j], values[:, j], np.nan).reshape(-1)
    return ComparisonResult(
        table=frame_of(dict(columns), library),
        means=frame_of(means_columns, library),
        per_query=frame_of(per_query, library),
        confidence_level=confidence_level,
        n_resamples=n_resamples,
        methods=methods,
        correction=correction,
        baseline=baseline,
        _columns=columns,
        _means={
            model: {name: float(means[m, j]) for j, name in enumerate(names)}
            for m, model in enumerate(models)
        },
    )


def _statistics(
    values: np.ndarray,
    pairs: list[tuple[int, int]],
    methods: tuple[str, ...],
    n_resamples: int,
    confidence_level: float,
    rng: np.random.Generator,
    signs: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """The kept queries, the means and every pair's statistics, metric by metric.

    ``signs`` holds 1 per greater-is-better metric, -1 per lower-is-better one.

    Returns ``kept`` (n_metrics, n_queries), ``means`` (n_models, n_metrics),
    ``results`` (n_metrics, n_pairs, n_statistics) and the statistics' names.
    """
    n_models, n_metrics, _ = values.shape
    # A query enters a metric's comparison when every model has a value there.
    kept = ~np.isnan(values).any(axis=0)  # (n_metrics, n_queries)
    means = np.full((n_models, n_metrics), np.nan)
    stats_columns = ["mean_a", "mean_b", "mean_difference"]
    stats_columns += [f"ci_{side}_{m}" for m in methods for side in ("low", "high")]
    stats_columns += ["p_value_t", "p_value_permutation"]
    stats_columns += ["wins", "ties", "losses", "effect_size"]
    results = np.full((n_metrics, len(pairs), len(stats_columns)), np.nan)

    # Metrics with the same kept queries share their resamples (usually: all of them).
    masks: dict[bytes, list[int]] = {}
    for j in range(n_metrics):
        masks.setdefault(kept[j].tobytes(), []).append(j)
    for metric_indices in masks.values():
        rows_kept = kept[metric_indices[0]]
        block = values[:, metric_indices][:, :, rows_kept]  # (models, metrics, kept)
        means[:, metric_indices] = block.mean(axis=2) if block.shape[2] else np.nan
        if block.shape[2] == 0:
            continue
        a = block[[p[0] for p in pairs]]  # (pairs, metrics, kept)
        b = block[[p[1] for p in pairs]]
        # columns ordered (metric, pair)
        a_columns = a.transpose(2, 1, 0).reshape(block.shape[2], -1)
        b_columns = b.transpose(2, 1, 0).reshape(block.shape[2], -1)
        differences = a_columns - b_columns
        distribution = bootstrap_means(differences, n_resamples, rng)
        intervals = bootstrap_intervals(differences, distribution, confidence_level, methods)
        del distribution
        out = [a_columns.mean(axis=0), b_columns.mean(axis=0), differences.mean(axis=0)]
        for m in methods:
            out.extend(intervals[m])
        out.append(_t_test_pvalues(a_columns, b_columns))
        out.append(sign_flip_pvalues(differences, n_resamples, rng))
        column_signs = np.repeat(signs[metric_indices], len(pairs))  # (metric, pair)
        out.extend(_wins_ties_losses(a_columns, b_columns, column_signs))
        out.append(_effect_size(differences))
        stacked = np.stack(out, axis=1).reshape(len(metric_indices), len(pairs), -1)
        results[metric_indices] = stacked
    return kept, means, results, stats_columns


def _comparison_columns(
    names: list[str],
    models: list[str],
    pairs: list[tuple[int, int]],
    kept: np.ndarray,
    results: np.ndarray,
    stats_columns: list[str],
    correction: str | None,
) -> dict[str, np.ndarray]:
    """The comparison table's columns: one row per (metric, pair)."""
    rows: dict[str, list] = {"metric": [], "model_a": [], "model_b": [], "n_queries": []}
    for j, name in enumerate(names):
        for a_index, b_index in pairs:
            rows["metric"].append(name)
            rows["model_a"].append(models[a_index])
            rows["model_b"].append(models[b_index])
            rows["n_queries"].append(int(kept[j].sum()))
    columns: dict[str, np.ndarray] = {
        name: np.asarray(value, dtype=object if name != "n_queries" else np.int64)
        for name, value in rows.items()
    }
    flat = results.reshape(len(names) * len(pairs), len(stats_columns))
    for index, name in enumerate(stats_columns):
        columns[name] = flat[:, index]
    for name in ("wins", "ties", "losses"):  # counts (a metric without queries: 0)
        columns[name] = np.nan_to_num(columns[name]).astype(np.int64)
    if correction is not None:
        adjust = CORRECTIONS[correction]
        for name in ("p_value_t", "p_value_permutation"):
            by_metric = results[:, :, stats_columns.index(name)]
            columns[f"{name}_{correction}"] = np.concatenate([adjust(row) for row in by_metric])
    return columns
