"""The distribution of a metric over queries, for one model or several (histogram or
ECDF): :class:`PerQueryMetricDisplay`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .._engine._caller import renamed_as
from .._engine._ranking_rows import accepts_ranking_rows
from .._engine._validation import Options, check_parameter
from ._base import (
    axes,
    display_from_estimator,
    model_scores,
    per_item,
    per_query_metric,
    plot_names,
)
from ._doc import display_doc

_KINDS = ("hist", "ecdf")


def _bins(values: np.ndarray, bins: Any) -> tuple[np.ndarray, np.ndarray]:
    """Bin edges for counting and the bin centres to draw at.

    With an int ``bins`` and at most that many distinct values (a discrete metric),
    each distinct value is its own bin: the edges lie halfway between neighbouring
    values and the centre is the value itself. Otherwise NumPy's edges and their
    midpoints.
    """
    if isinstance(bins, (int, np.integer)) and not isinstance(bins, bool):
        distinct = np.unique(values)
        if len(distinct) == 1:
            half = 0.05 * max(abs(float(distinct[0])), 1.0)
            return distinct[0] + np.array([-half, half]), distinct
        if len(distinct) <= bins:
            middles = (distinct[1:] + distinct[:-1]) / 2
            edges = np.concatenate(
                [[2 * distinct[0] - middles[0]], middles, [2 * distinct[-1] - middles[-1]]]
            )
            return edges, distinct
    edges = np.histogram_bin_edges(values, bins=bins)
    return edges, (edges[1:] + edges[:-1]) / 2


def _narrowest(centres: np.ndarray) -> float:
    """The smallest distance between neighbouring centres (inf for a single one)."""
    return float(np.min(np.diff(centres))) if len(centres) > 1 else np.inf


class PerQueryMetricDisplay:
    """Distribution of a metric over queries (histogram or ECDF), one or several models.

    Build it with :meth:`from_predictions` or :meth:`from_estimator`.

    Parameters
    ----------
    values : dict of str to ndarray
        Per-query values of every model (queries left out by the undefined-query
        policy are not included).
    metric : str
        Metric name, for the axis label.
    kind : {"hist", "ecdf"}, default="hist"
        Default kind of :meth:`plot`.

    Attributes
    ----------
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure
    artists_ : list
        Per model: the ``BarContainer`` of its histogram (bar heights: the counts per
        bin), or the ``Line2D`` of its ECDF (x data: the sorted values; y data:
        ``i / n``).
    bin_edges_, bin_centres_ : ndarray
        The histogram's bin edges (for counting) and the x position of each bin's
        bars (after a ``kind="hist"`` plot).

    See Also
    --------
    MetricAtKDisplay, PerQueryDifferenceDisplay, evaluate
    """

    def __init__(self, *, values: Mapping[str, Any], metric: str, kind: str = "hist") -> None:
        self.values = {name: np.asarray(v, dtype=np.float64) for name, v in values.items()}
        self.metric = metric
        self.kind = kind

    def plot(
        self,
        ax: Any = None,
        *,
        kind: str | None = None,
        bins: Any = 10,
        name: str | list[str] | None = None,
        plot_kwargs: Mapping | list[Mapping] | None = None,
    ) -> PerQueryMetricDisplay:
        """Draw the histogram or the ECDF of every model's per-query values.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; a new figure when None.
        kind : {"hist", "ecdf"}, default=None
            The stored kind when None.
        bins : int or sequence, default=10
            Histogram bins, computed once over all models' values so that every model
            uses the same bins (``bin_edges_``). With an int and no more distinct
            values than that (a discrete metric: P@k, MRR, a one-relevant-row NDCG),
            one bin per distinct value, drawn centred on it, so that no value falls on
            an edge; otherwise ``numpy.histogram_bin_edges``.
        name : str or list of str, default=None
            Legend labels; the model names when None.
        plot_kwargs : dict or list of dict, default=None
            Keywords of ``ax.bar`` (histogram) / ``ax.step`` (ECDF) for every model (a
            dict) or each (a list). Several models' bars stand side by side in each
            bin, each in its own solid colour, so the legend matches what is drawn.

        Returns
        -------
        display : PerQueryMetricDisplay
        """
        caller = f"{type(self).__name__}.plot"
        kind = self.kind if kind is None else kind
        check_parameter(caller, "kind", kind, [Options(*_KINDS)])
        self.ax_, self.figure_ = axes(ax, caller)
        models = list(self.values)
        with renamed_as(caller):
            labels = plot_names(name, models)
            kwargs_list = per_item(plot_kwargs, models, "plot_kwargs")
        self.artists_ = []
        if kind == "hist":
            pooled = np.concatenate([self.values[model] for model in models])
            self.bin_edges_, self.bin_centres_ = _bins(pooled, bins)
            # each bin's group of bars: centred on the bin, as wide as the narrowest
            # gap between centres allows; the models side by side in solid colours
            group = 0.9 * np.minimum(np.diff(self.bin_edges_), _narrowest(self.bin_centres_))
            share = group / len(models)
            for position, (model, label, extra) in enumerate(
                zip(models, labels, kwargs_list, strict=True)
            ):
                counts, _ = np.histogram(self.values[model], bins=self.bin_edges_)
                kwargs = {"label": label, "align": "edge", **extra}
                container = self.ax_.bar(
                    self.bin_centres_ - group / 2 + position * share, counts, width=share,
                    **kwargs,
                )
                self.artists_.append(container)
            ylabel = "queries"
        else:
            for model, label, extra in zip(models, labels, kwargs_list, strict=True):
                x = np.sort(self.values[model])
                y = np.arange(1, len(x) + 1) / max(len(x), 1)
                kwargs = {"where": "post", "label": label, **extra}
                (line,) = self.ax_.step(x, y, **kwargs)
                self.artists_.append(line)
            ylabel = "share of queries <= value"
        self.ax_.set(xlabel=f"{self.metric} per query", ylabel=ylabel)
        self.ax_.legend()
        return self

    @classmethod
    @accepts_ranking_rows(several_models=True)
    @display_doc("PerQueryMetricDisplay")
    def from_predictions(
        cls,
        y_true: Any,
        y_score: Any,
        group: Any = None,
        *,
        metric: str = "ndcg@10",
        kind: str = "hist",
        bins: Any = 10,
        name: str | None = None,
        convention: str | None = None,
        ties: str | None = None,
        replace_undefined_by: float | str | None = None,
        relevance_level: float | None = None,
        judged: Any = None,
        doc_id: Any = None,
        ax: Any = None,
        plot_kwargs: Mapping | list[Mapping] | None = None,
    ) -> PerQueryMetricDisplay:
        """Plot the per-query distribution of a metric from scores.

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
        metric : str, default="ndcg@10"
            A metric name as in :func:`evaluate`.
        kind : {"hist", "ecdf"}, default="hist"
        bins : int or sequence, default=10
        name : str, default=None
            Name of a single model (``"model"`` when None).
        convention, ties, replace_undefined_by, relevance_level : default=None
            As in :func:`evaluate`; skipped (or NaN) queries are not plotted.
        [[display_judged_doc_id]]
        ax, plot_kwargs
            As in :meth:`plot`.

        [[display_returns]]

        Examples
        --------
        [[display_example_imports]]
        >>> display = PerQueryMetricDisplay.from_predictions(
        ...     [1, 0, 0, 1], [0.9, 0.1, 0.8, 0.2], [1, 1, 2, 2], metric="mrr", kind="ecdf")
        >>> display.artists_[0].get_xdata().tolist()  # sorted reciprocal ranks
        [0.5, 1.0]
        """
        door = f"{cls.__name__}.from_predictions"
        with renamed_as(door):
            check_parameter(door, "kind", kind, [Options(*_KINDS)])
            scores = model_scores(y_score, name)
            metric, _, values = per_query_metric(
                y_true, scores, group, metric, convention=convention, ties=ties,
                replace_undefined_by=replace_undefined_by, relevance_level=relevance_level,
                judged=judged, doc_id=doc_id,
            )
            kept = {model: row[~np.isnan(row)] for model, row in zip(scores, values, strict=True)}
            display = cls(
                values=kept,
                metric=metric,
                kind=kind,
            )
        return display.plot(ax=ax, bins=bins, plot_kwargs=plot_kwargs)

    @classmethod
    @display_doc("PerQueryMetricDisplay")
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
    ) -> PerQueryMetricDisplay:
        """Plot the per-query distribution for one fitted estimator or a dict of them.

        Parameters
        ----------
        estimator : estimator or mapping of str to estimator
            Fitted model(s); the score of a row comes from ``response_method`` as in
            :func:`make_ranking_scorer`.
        [[display_rows]]
        response_method : {"auto", "predict", "predict_proba", "decision_function"}
            Where scores come from, as in :meth:`MetricAtKDisplay.from_estimator`.
        name : str, default=None
            Label of a single estimator (its class name when None).
        [[display_kwargs]]

        [[display_returns]]
        """
        return display_from_estimator(cls, estimator, X, y, group, response_method, name, kwargs)
