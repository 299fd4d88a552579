"""Plots in scikit-learn's Display style: metric@k against k.

A display stores its data in ``__init__``, draws in :meth:`plot` (on a given
``ax`` or a new figure) and is built with ``from_predictions`` or
``from_estimator``. matplotlib is imported only when drawing (the ``plot`` extra);
pandas is never needed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .._engine._caller import caller_name, renamed_as
from .._engine._ranking_rows import accepts_ranking_rows
from .._engine._validation import BOOLEAN, NONE, Interval, check_parameter
from .._metrics._registry import MetricSpec, name_without_cutoff, parse_metric
from .._stats._model_values import per_query_values
from .._stats._resampling import (
    BOOTSTRAP_METHODS,
    RESAMPLES,
    as_generator,
    mean_intervals,
)
from ._base import (
    axes,
    check_settings,
    display_from_estimator,
    model_scores,
    per_item,
    plot_names,
)
from ._doc import display_doc


class MetricAtKDisplay:
    """A metric at cutoff k, for k = 1..k_max, for one or several models.

    Build it with :meth:`from_predictions` or :meth:`from_estimator`; the
    constructor only stores data (scikit-learn's Display convention).

    Parameters
    ----------
    k : ndarray of shape (n_k,)
        The cutoffs.
    values : dict of str to ndarray of shape (n_k,)
        Mean metric@k of every model.
    ci_low, ci_high : dict of str to ndarray of shape (n_k,), or None
        Confidence band of every model (None: no band).
    metric : str
        Metric name without cutoff, e.g. ``"ndcg"``; the y-axis reads ``ndcg@k``.
    confidence_level : float or None
        The level of the band, for the legend.

    Attributes
    ----------
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure
    line_ : list of matplotlib Line2D
        One line per model (scikit-learn's Displays name their line artists
        ``line_``); its y data are the values.
    bands_ : list of matplotlib PolyCollection
        One band per model (empty without bands).

    See Also
    --------
    PerQueryMetricDisplay : distribution of a metric over queries.
    PerQueryDifferenceDisplay : per-query difference between two models.
    compare : paired tests and intervals of mean differences.
    """

    def __init__(
        self,
        *,
        k: Any,
        values: Mapping[str, Any],
        ci_low: Mapping[str, Any] | None = None,
        ci_high: Mapping[str, Any] | None = None,
        metric: str = "ndcg",
        confidence_level: float | None = None,
    ) -> None:
        self.k = np.asarray(k)
        self.values = {name: np.asarray(v, dtype=np.float64) for name, v in values.items()}
        self.ci_low = None if ci_low is None else dict(ci_low)
        self.ci_high = None if ci_high is None else dict(ci_high)
        self.metric = metric
        self.confidence_level = confidence_level

    def plot(
        self,
        ax: Any = None,
        *,
        name: str | list[str] | None = None,
        curve_kwargs: Mapping | list[Mapping] | None = None,
        band_kwargs: Mapping | None = None,
        show_bands: bool = True,
    ) -> MetricAtKDisplay:
        """Draw one line per model (with its band) against k.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; a new figure when None.
        name : str or list of str, default=None
            Legend labels, one per model; the stored model names when None.
        curve_kwargs : dict or list of dict, default=None
            Keywords of ``ax.plot`` for every line (a dict) or for each (a list).
        band_kwargs : dict, default=None
            Keywords of ``ax.fill_between`` for the bands (default ``alpha=0.2``, the
            line's colour).
        show_bands : bool, default=True
            Draw the confidence bands when the display has them.

        Returns
        -------
        display : MetricAtKDisplay
        """
        caller = f"{type(self).__name__}.plot"
        check_parameter(caller, "show_bands", show_bands, [BOOLEAN])
        self.ax_, self.figure_ = axes(ax, caller)
        models = list(self.values)
        with renamed_as(caller):
            labels = plot_names(name, models)
            curves = per_item(curve_kwargs, models, "curve_kwargs")
        self.line_, self.bands_ = [], []
        for model, label, extra in zip(models, labels, curves, strict=True):
            kwargs = {"marker": "o", "label": label, **extra}
            (line,) = self.ax_.plot(self.k, self.values[model], **kwargs)
            self.line_.append(line)
            if show_bands and self.ci_low is not None and self.ci_high is not None:
                band = {"alpha": 0.2, "color": line.get_color(), "linewidth": 0}
                band.update(band_kwargs or {})
                self.bands_.append(
                    self.ax_.fill_between(self.k, self.ci_low[model], self.ci_high[model], **band)
                )
        title = None
        if self.bands_ and self.confidence_level is not None:
            title = f"{100 * self.confidence_level:g}% bootstrap band"
        self.ax_.set(xlabel="k", ylabel=f"{self.metric}@k")
        # every k while the labels fit, else matplotlib's integer ticks
        if len(self.k) <= 12:
            self.ax_.set_xticks(self.k)
        else:
            from matplotlib.ticker import MaxNLocator

            self.ax_.xaxis.set_major_locator(MaxNLocator(integer=True))
        self.ax_.legend(title=title)
        return self

    @classmethod
    @accepts_ranking_rows(several_models=True)
    @display_doc("MetricAtKDisplay")
    def from_predictions(
        cls,
        y_true: Any,
        y_score: Any,
        group: Any = None,
        *,
        metric: str = "ndcg",
        k_max: int = 10,
        name: str | None = None,
        confidence_level: float | None = 0.95,
        n_resamples: int = 1000,
        convention: str | None = None,
        ties: str | None = None,
        replace_undefined_by: float | str | None = None,
        relevance_level: float | None = None,
        judged: Any = None,
        doc_id: Any = None,
        random_state: Any = None,
        ax: Any = None,
        curve_kwargs: Mapping | list[Mapping] | None = None,
        band_kwargs: Mapping | None = None,
    ) -> MetricAtKDisplay:
        """Plot metric@k against k from scores.

        Parameters
        ----------
        y_true : array-like
            Relevance labels, as in every metric function.
        y_score : array-like, or mapping of str to array-like, or DataFrame
            One model's scores (an array, 1-D or 2-D), or several models' scores by
            name. A DataFrame means several models, one per column (as in
            :func:`compare`); a single model's 2-D scores must be an array.
        group : array-like or None, default=None
            Query ids, as in every metric function.
        metric : str, default="ndcg"
            A metric name as in :func:`evaluate` without the cutoff, e.g. ``"ndcg"``,
            ``"ndcg(gain=exponential)"``, ``"p"``, ``"recall"``, ``"map"``.
        k_max : int >= 1, default=10
            The largest cutoff; k runs over 1..k_max.
        name : str, default=None
            Name of a single model (``"model"`` when None).
        confidence_level : float in (0, 1) or None, default=0.95
            Level of the percentile bootstrap band over queries (queries resampled
            jointly for all k and models); None draws no band.
        n_resamples : int in [1, 1_000_000], default=1000
            Bootstrap resamples of the band.
        convention, ties, replace_undefined_by, relevance_level : default=None
            As in :func:`evaluate`. Queries that are skipped (or NaN) are left out
            of the mean and of the band.
        [[display_judged_doc_id]]
        random_state : int, numpy Generator or RandomState, or None, default=None
            Seeds the band's resampling.
        ax, curve_kwargs, band_kwargs
            As in :meth:`plot`.

        [[display_returns]]

        Examples
        --------
        [[display_example_imports]]
        >>> y_true = [2, 0, 1, 0, 1, 0]
        >>> qid = [1, 1, 1, 2, 2, 2]
        >>> display = MetricAtKDisplay.from_predictions(
        ...     y_true, {"a": [3, 2, 1, 1, 2, 3], "b": [1, 2, 3, 3, 2, 1]}, qid,
        ...     metric="recall", k_max=3, confidence_level=None)
        >>> display.values["a"].tolist()  # R@1, R@2, R@3 of model a
        [0.25, 0.75, 1.0]
        """
        door = f"{cls.__name__}.from_predictions"
        with renamed_as(door):
            check_parameter(door, "k_max", k_max, [Interval(int, 1, None)])
            check_parameter(
                door,
                "confidence_level",
                confidence_level,
                [Interval(float, 0, 1, closed="neither"), NONE],
            )
            check_parameter(door, "n_resamples", n_resamples, [RESAMPLES])
            settings = check_settings(
                convention=convention,
                ties=ties,
                replace_undefined_by=replace_undefined_by,
                relevance_level=relevance_level,
            )
            base = _parsed_without_cutoff(metric, door)
            if base.params.get("k") is not None:  # another tool's name with a cutoff (P_10)
                raise ValueError(
                    f"The 'metric' parameter of {door} names the metric without a "
                    f"cutoff (the display varies k); got {metric!r}, which is {base}."
                )
            if not base.info.takes_k:
                raise ValueError(
                    f"The 'metric' parameter of {door} must take a cutoff k; "
                    f"{metric!r} does not."
                )
            scores = model_scores(y_score, name)
            ks = np.arange(1, k_max + 1)
            names = [f"{metric}@{k}" for k in ks]
            _, values = per_query_values(
                y_true, scores, group, names, shared=settings,
                judged=judged, doc_id=doc_id,
            )
            n_models, n_k, n_queries = values.shape
            columns = values.reshape(n_models * n_k, n_queries).T
            if confidence_level is None:
                # a column without any value (every query skipped) has mean NaN, silently
                kept = ~np.isnan(columns)
                with np.errstate(invalid="ignore", divide="ignore"):  # 0 / 0: NaN
                    means = np.where(kept, columns, 0.0).sum(axis=0) / kept.sum(axis=0)
                low = high = None
            else:
                rng = as_generator(random_state)
                means, low, high = mean_intervals(
                    columns, n_resamples, confidence_level, BOOTSTRAP_METHODS[0], rng
                )
            models = list(scores)

            def by_model(flat: np.ndarray) -> dict[str, np.ndarray]:
                return {model: flat.reshape(n_models, n_k)[m] for m, model in enumerate(models)}

            display = cls(
                k=ks,
                values=by_model(means),
                ci_low=None if low is None else by_model(low),
                ci_high=None if high is None else by_model(high),
                metric=str(base),
                confidence_level=confidence_level,
            )
        return display.plot(ax=ax, curve_kwargs=curve_kwargs, band_kwargs=band_kwargs)

    @classmethod
    @display_doc("MetricAtKDisplay")
    def from_estimator(
        cls,
        estimator: Any,
        X: Any,
        y: Any,
        group: Any = None,
        *,
        response_method: str = "auto",
        name: str | None = None,
        **kwargs: Any,
    ) -> MetricAtKDisplay:
        """Plot metric@k against k for one fitted estimator or a dict of them.

        Parameters
        ----------
        estimator : estimator or mapping of str to estimator
            Fitted model(s); the score of a row comes from ``response_method`` as in
            :func:`make_ranking_scorer`.
        [[display_rows]]
        response_method : {"auto", "predict", "predict_proba", "decision_function"}
            Where scores come from (``"auto"``: ``predict`` for regressors and
            rankers, the positive-class probability or expected grade for classifiers).
        name : str, default=None
            Label of a single estimator (its class name when None).
        [[display_kwargs]]

        [[display_returns]]
        """
        return display_from_estimator(cls, estimator, X, y, group, response_method, name, kwargs)


def _without_cutoff(metric: Any) -> str:
    door = caller_name()
    if not isinstance(metric, str):
        raise TypeError(
            f"The 'metric' parameter of {door} must be a metric name (str) such as "
            f"'ndcg'. Got {metric!r} instead."
        )
    if "@" in metric:
        raise ValueError(
            f"The 'metric' parameter of {door} names the metric without a cutoff "
            f"(the display varies k); got {metric!r}. Use e.g. 'ndcg' with k_max=10."
        )
    return metric


def _parsed_without_cutoff(metric: Any, door: str) -> MetricSpec:
    """The display's metric, named without a cutoff, parsed.

    Another tool's name that needs a cutoff (trec_eval's ``P``) is refused naming
    ours without one (``'p'``): the name with a cutoff that the alias's own message
    proposes (``'P_10'``) is refused here too.
    """
    text = _without_cutoff(metric)
    ours = name_without_cutoff(text)
    if ours is not None and ours != text:
        raise ValueError(
            f"The 'metric' parameter of {door} names the metric without a cutoff (the "
            f"display varies k): {text!r} needs a cutoff, and without one it is {ours!r}. "
            f"Pass metric={ours!r}."
        )
    return parse_metric(text)
