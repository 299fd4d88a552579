"""The per-query difference of a metric between two models, sorted by size ("which
queries got better"): :class:`PerQueryDifferenceDisplay`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .._engine._caller import renamed_as
from .._engine._plain import counted
from .._engine._ranking_rows import accepts_ranking_rows
from .._stats._model_values import greater_is_better
from ._base import axes, estimator_rows, estimator_scores, per_query_metric, with_carried
from ._doc import display_doc


class PerQueryDifferenceDisplay:
    """Per-query difference of a metric between a model and a baseline, sorted by size.

    One bar per query, from the largest improvement (left) to the largest loss
    (right): which queries got better, and by how much. For a lower-is-better
    metric (``"fallout@k"``) an improvement is a negative difference.

    Parameters
    ----------
    differences : ndarray of shape (n_queries,)
        ``metric(model) - metric(baseline)`` per query, sorted from the largest
        improvement: in decreasing order, in increasing order for a lower-is-better
        metric.
    query_ids : ndarray of shape (n_queries,)
        The query of each difference (same order).
    metric : str
    name, baseline_name : str
        Labels of the two models.

    Attributes
    ----------
    n_better, n_worse, n_tied : int
        Queries where the model is better than, worse than, equal to the baseline
        (better: a positive difference, a negative one for a lower-is-better metric).
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure
    bars_ : matplotlib BarContainer
        One bar per query; bar ``i`` has height ``differences[i]``.

    See Also
    --------
    compare : whether the mean difference is significant.
    """

    def __init__(
        self,
        *,
        differences: Any,
        query_ids: Any,
        metric: str,
        name: str = "model",
        baseline_name: str = "baseline",
    ) -> None:
        self.differences = np.asarray(differences, dtype=np.float64)
        self.query_ids = np.asarray(query_ids)
        self.metric = metric
        self.name = name
        self.baseline_name = baseline_name
        # +1 where the model is better, -1 where it is worse, 0 where tied
        self._outcome = np.sign(self.differences).astype(int)
        if not greater_is_better(metric):
            self._outcome = -self._outcome
        self.n_better = int(np.count_nonzero(self._outcome > 0))
        self.n_worse = int(np.count_nonzero(self._outcome < 0))
        self.n_tied = int(np.count_nonzero(self.differences == 0))

    def plot(
        self, ax: Any = None, *, colors: tuple[str, str, str] = ("tab:green", "tab:gray", "tab:red")
    ) -> PerQueryDifferenceDisplay:
        """Draw one bar per query (better / tied / worse coloured by ``colors``).

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; a new figure when None.
        colors : tuple of three colours, default=("tab:green", "tab:gray", "tab:red")
            For queries where the model is better, tied, worse.

        Returns
        -------
        display : PerQueryDifferenceDisplay
        """
        self.ax_, self.figure_ = axes(ax, f"{type(self).__name__}.plot")
        palette = np.array(list(colors), dtype=object)[1 - self._outcome]
        positions = np.arange(1, len(self.differences) + 1)
        self.bars_ = self.ax_.bar(
            positions, self.differences, width=1.0, color=list(palette), linewidth=0
        )
        self.ax_.axhline(0.0, color="black", linewidth=0.8)
        self.ax_.set_xlim(0.5, len(self.differences) + 0.5)
        self.ax_.set(
            xlabel="queries, sorted by difference",
            ylabel=f"{self.metric}: {self.name} - {self.baseline_name}",
            title=(
                f"{self.name} vs {self.baseline_name}\nbetter on {self.n_better}, worse on "
                f"{self.n_worse}, tied on {self.n_tied} of "
                f"{counted(len(self.differences), 'query')}"
            ),
        )
        return self

    @classmethod
    @accepts_ranking_rows
    @display_doc("PerQueryDifferenceDisplay")
    def from_predictions(
        cls,
        y_true: Any,
        y_score: Any,
        y_score_baseline: Any,
        group: Any = None,
        *,
        metric: str = "ndcg@10",
        name: str = "model",
        baseline_name: str = "baseline",
        convention: str | None = None,
        ties: str | None = None,
        replace_undefined_by: float | str | None = None,
        relevance_level: float | None = None,
        judged: Any = None,
        doc_id: Any = None,
        ax: Any = None,
    ) -> PerQueryDifferenceDisplay:
        """Plot the sorted per-query difference between two models' scores.

        Parameters
        ----------
        y_true : array-like
            Relevance labels, as in every metric function.
        y_score, y_score_baseline : array-like
            Scores of the model and of the baseline, row by row.
        group : array-like or None, default=None
            Query ids, as in every metric function.
        metric : str, default="ndcg@10"
            A metric name as in :func:`evaluate`.
        name, baseline_name : str
            Labels of the two models.
        convention, ties, replace_undefined_by, relevance_level : default=None
            As in :func:`evaluate`; a query skipped (or NaN) for either model is left
            out.
        [[display_judged_doc_id]]
        ax : matplotlib Axes, default=None

        [[display_returns]]

        Examples
        --------
        [[display_example_imports]]
        >>> y_true, qid = [1, 0, 0, 1, 1, 0], [1, 1, 2, 2, 3, 3]
        >>> display = PerQueryDifferenceDisplay.from_predictions(
        ...     y_true, [2, 1, 1, 2, 1, 2], [1, 2, 1, 2, 2, 1], qid, metric="mrr")
        >>> display.differences.tolist(), (display.n_better, display.n_worse)
        ([0.5, 0.0, -0.5], (1, 1))
        """
        door = f"{cls.__name__}.from_predictions"
        with renamed_as(door):
            for parameter, label in (("name", name), ("baseline_name", baseline_name)):
                if not isinstance(label, str):
                    raise TypeError(
                        f"The {parameter!r} parameter of {door} must be a str. Got "
                        f"{label!r} instead."
                    )
            if name == baseline_name:
                raise ValueError(
                    f"The 'name' and 'baseline_name' parameters of {door} must differ; "
                    f"both are {name!r}."
                )
            scores = {name: y_score, baseline_name: y_score_baseline}
            metric, query_ids, values = per_query_metric(
                y_true, scores, group, metric, convention=convention, ties=ties,
                replace_undefined_by=replace_undefined_by, relevance_level=relevance_level,
                judged=judged, doc_id=doc_id,
            )
            differences = values[0] - values[1]
            kept = np.flatnonzero(~np.isnan(differences))
            improvements = differences[kept] if greater_is_better(metric) else -differences[kept]
            order = kept[np.argsort(-improvements, kind="stable")]
            display = cls(
                differences=differences[order],
                query_ids=query_ids[order],
                metric=metric,
                name=name,
                baseline_name=baseline_name,
            )
        return display.plot(ax=ax)

    @classmethod
    @display_doc("PerQueryDifferenceDisplay")
    def from_estimator(
        cls,
        estimator: Any,
        baseline_estimator: Any,
        X: Any,
        y: Any,
        group: Any = None,
        *,
        response_method: str = "auto",
        name: str | None = None,
        baseline_name: str | None = None,
        **kwargs: Any,
    ) -> PerQueryDifferenceDisplay:
        """Plot the sorted per-query difference between two fitted estimators.

        Parameters
        ----------
        estimator, baseline_estimator : estimator
            The fitted model and the fitted baseline; the score of a row comes from
            ``response_method`` as in :func:`make_ranking_scorer`.
        [[display_rows]]
        response_method : {"auto", "predict", "predict_proba", "decision_function"}
            Where scores come from, as in :meth:`MetricAtKDisplay.from_estimator`.
        name, baseline_name : str, default=None
            Labels of the two models: the estimators' class names by default
            (``"baseline"`` for the baseline when both have the same class).
        [[display_kwargs]]

        [[display_returns]]
        """
        door = f"{cls.__name__}.from_estimator"
        with renamed_as(door):
            if isinstance(estimator, Mapping) or isinstance(baseline_estimator, Mapping):
                raise TypeError(
                    f"{door} compares two single estimators: 'estimator' and "
                    "'baseline_estimator' must not be mappings."
                )
            X, y, group, carried = estimator_rows(
                {"model": estimator, "baseline": baseline_estimator}, X, y, group
            )
            (name, y_score), = estimator_scores(
                estimator, X, response_method, name
            ).items()
            if baseline_name is None:
                baseline_name = type(baseline_estimator).__name__
                if baseline_name == name:
                    baseline_name = "baseline"
            (baseline_name, y_score_baseline), = estimator_scores(
                baseline_estimator, X, response_method, baseline_name
            ).items()
        return cls.from_predictions(
            y,
            y_score,
            y_score_baseline,
            group,
            name=name,
            baseline_name=baseline_name,
            **with_carried(carried, kwargs),
        )
