"""The comparison table users know from ranx and PyTerrier, as text, Markdown or LaTeX.

Runs as rows, metrics as columns, each mean followed by the letters of the runs it
is significantly better than (ranx's notation), with a caption naming the test, the
level and the correction; then, for each comparison, the mean difference, the paired
effect size, the win/tie/loss counts and the p-value per metric.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .._engine._caller import caller_name
from .._engine._plain import counted
from .._engine._validation import Interval, Options, check_parameter
from .._render import DIGITS, FORMATS, render
from .._render._table import Cell, Marks, Part, Table, Verbatim
from ._model_values import greater_is_better

# run labels: the letters that have a superscript form (no "q"); with more runs, numbers
_LETTERS = "abcdefghijklmnoprstuvwxyz"
_TESTS = {
    "permutation": ("p_value_permutation", "paired randomisation test"),
    "t": ("p_value_t", "paired t-test"),
}
_CORRECTION_NAMES = {
    "holm": "Holm",
    "bonferroni": "Bonferroni",
    "bh": "Benjamini-Hochberg",
}
_SHORT_CORRECTION_NAMES = {"holm": "Holm", "bonferroni": "Bonferroni", "bh": "BH"}


def run_labels(n_runs: int) -> list[str]:
    """``a, b, c, ...`` up to 25 runs (no ``q``: it has no superscript), else ``1, 2, ...``."""
    if n_runs <= len(_LETTERS):
        return list(_LETTERS[:n_runs])
    return [str(i + 1) for i in range(n_runs)]


def _ranges(numbers: list[int]) -> str:
    """Sorted run numbers as ranges: ``[2, 3, 4, 7, 9, 10]`` -> ``2-4,7,9-10``."""
    parts = []
    start = previous = numbers[0]
    for number in [*numbers[1:], None]:
        if number is not None and number == previous + 1:
            previous = number
            continue
        parts.append(str(start) if start == previous else f"{start}-{previous}")
        if number is not None:
            start = previous = number
    return ",".join(parts)


def _marks(losers: set[int], n_runs: int) -> Part:
    """The marker after a mean: the labels of the runs (positions ``losers``) it beats.

    Up to 25 runs, the letters, as superscripts (``$^{ab}$`` in LaTeX); with more runs,
    the run numbers in ranges, in parentheses (``(2-7,9)``; a superscript in LaTeX),
    so that a run that beats 29 others reads ``(2-30)``, not a string of digits.
    """
    if not losers:
        return Verbatim("")
    ordered = sorted(losers)
    if n_runs <= len(_LETTERS):
        return Marks("".join(_LETTERS[i] for i in ordered), letters=True)
    return Marks(_ranges([i + 1 for i in ordered]), letters=False)


def _number(value: object, digits: int, sign: bool = False) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "nan"
    return f"{value:+.{digits}f}" if sign else f"{value:.{digits}f}"


def _p_value(value: float) -> str:
    if math.isnan(value):
        return "nan"
    return f"{value:.1e}" if value < 1e-4 else f"{value:.4f}"


def comparison_tables(
    columns: dict[str, np.ndarray],
    means: dict[str, dict[str, float]],
    *,
    baseline: str | None,
    correction: str | None,
    n_resamples: int,
    test: str,
    alpha: float,
    digits: int,
    style: str,
    note: str | None = None,
) -> str:
    """The summary table and the per-comparison details in one format.

    Every run, metric and baseline name is escaped for ``style`` (:mod:`.._render._escape`).
    ``note`` (the convention that applied) ends the caption.
    """
    owner = caller_name("comparison_tables")
    check_parameter(owner, "test", test, [Options(*_TESTS)])
    check_parameter(owner, "alpha", alpha, [Interval(float, 0, 1, closed="neither")])
    check_parameter(owner, "digits", digits, [DIGITS])
    alpha = _as_float(alpha)
    digits = int(digits)
    if style not in FORMATS:
        raise ValueError(f"The format must be one of {FORMATS}; got {style!r}.")
    models = list(means)
    metrics = list(next(iter(means.values()))) if means else []
    labels = dict(zip(models, run_labels(len(models)), strict=True))
    p_column, test_name = _TESTS[test]
    if correction is not None:
        p_column = f"{p_column}_{correction}"
    better = _better(columns, p_column, alpha, {model: i for i, model in enumerate(models)})
    caption = _caption(
        columns, models, baseline, correction, n_resamples, test_name, alpha, len(models)
    )
    if note is not None:
        caption += f" {note[0].upper()}{note[1:]}."
    summary = Table(
        ["", "run", *metrics],
        [
            [
                Verbatim(labels[model]),
                model,
                *(
                    (
                        Verbatim(_number(means[model][metric], digits)),
                        _marks(better.get((model, metric), set()), len(models)),
                    )
                    for metric in metrics
                ),
            ]
            for model in models
        ],
        left=2,
    )
    p_label = ("p t-test " if test == "t" else "p perm. ") + (
        f"({_SHORT_CORRECTION_NAMES[correction]})" if correction else ""
    )
    details = _detail_rows(columns, metrics, labels, p_column, p_label.strip(), digits)
    tables = [summary, Table(["comparison", "", *metrics], details, left=2)]
    return render(style, caption, tables if details else tables[:1])


def _better(
    columns: dict[str, np.ndarray], p_column: str, alpha: float, position: dict[str, int]
) -> dict[tuple[str, str], set[int]]:
    """(model, metric) -> the positions of the runs it is significantly better than.

    Better: a greater mean, or a lower one for a lower-is-better metric (fall-out).
    """
    better: dict[tuple[str, str], set[int]] = {}
    for i in range(len(columns["metric"])):
        p = float(columns[p_column][i])
        if math.isnan(p) or p >= alpha:
            continue
        a, b = columns["model_a"][i], columns["model_b"][i]
        a_higher = columns["mean_difference"][i] > 0
        a_better = a_higher if greater_is_better(columns["metric"][i]) else not a_higher
        winner, loser = (a, b) if a_better else (b, a)
        better.setdefault((winner, columns["metric"][i]), set()).add(position[loser])
    return better


def _detail_rows(
    columns: dict[str, np.ndarray],
    metrics: list[str],
    labels: dict[str, str],
    p_column: str,
    p_label: str,
    digits: int,
) -> list[list[Cell]]:
    """Four rows per comparison: the difference, d_z, win/tie/loss and the p-value."""
    by_pair: dict[tuple[str, str], dict[str, int]] = {}
    for i in range(len(columns["metric"])):
        by_pair.setdefault((columns["model_a"][i], columns["model_b"][i]), {})[
            columns["metric"][i]
        ] = i
    rendered: list[tuple[Cell, Callable[[int], str]]] = [
        (Verbatim("difference"), lambda i: _number(columns["mean_difference"][i], digits, True)),
        ("effect size d_z", lambda i: _number(columns["effect_size"][i], 2, True)),
        (
            Verbatim("win/tie/loss"),
            lambda i: f"{columns['wins'][i]}/{columns['ties'][i]}/{columns['losses'][i]}",
        ),
        (p_label, lambda i: _p_value(float(columns[p_column][i]))),
    ]
    rows: list[list[Cell]] = []
    for (a, b), by_metric in by_pair.items():
        name: Cell = (Verbatim(f"{labels[a]} "), a, Verbatim(f" vs {labels[b]} "), b)
        for position, (label, value) in enumerate(rendered):
            cells = [Verbatim(value(by_metric[m]) if m in by_metric else "") for m in metrics]
            rows.append([name if position == 0 else Verbatim(""), label, *cells])
    return rows


def _as_float(alpha: Any) -> float:
    """A real number as a Python float; a NumPy float as the decimal it prints as.

    ``np.float32(0.05)`` is ``0.0500000007...`` in binary; the level meant is 0.05, so
    that a p-value of exactly 0.05 is not significant at either.
    """
    if isinstance(alpha, np.floating):
        return float(np.format_float_positional(alpha, unique=True, trim="-"))
    return float(alpha)


def means_table(
    means: dict[str, dict[str, float]], caption: str | None, *, digits: int, style: str
) -> str:
    """Runs as rows, metrics as columns, without markers (no comparison).

    The caption, run and metric names are escaped for ``style`` (:mod:`.._render._escape`).
    """
    check_parameter("means_table", "digits", digits, [DIGITS])
    if style not in FORMATS:
        raise ValueError(f"The format must be one of {FORMATS}; got {style!r}.")
    models = list(means)
    metrics = list(next(iter(means.values()))) if means else []
    rows: list[list[Cell]] = [
        [
            Verbatim(label),
            model,
            *(Verbatim(_number(means[model][metric], digits)) for metric in metrics),
        ]
        for label, model in zip(run_labels(len(models)), models, strict=True)
    ]
    return render(style, caption, [Table(["", "run", *metrics], rows, left=2)])


def _caption(
    columns: dict[str, np.ndarray],
    models: Sequence[str],
    baseline: str | None,
    correction: str | None,
    n_resamples: int,
    test_name: str,
    alpha: float,
    n_runs: int,
) -> str:
    counts = sorted(set(np.asarray(columns["n_queries"]).tolist()))
    queries = (
        counted(counts[0], "query") if len(counts) == 1
        else f"{counts[0]} to {counts[-1]} queries"
    )
    against = f"against {baseline}" if baseline is not None else "between every pair of runs"
    family = len(models) - 1 if baseline is not None else len(models) * (len(models) - 1) // 2
    corrected = (
        f"{_CORRECTION_NAMES[correction]} correction over the {family} comparison"
        f"{'s' if family > 1 else ''} of each metric"
        if correction
        else "no correction for multiple comparisons"
    )
    if "randomisation" in test_name:
        if counts and 2 ** counts[-1] <= n_resamples:
            test_name += ", exact (every sign pattern)"
        else:
            test_name += f", {n_resamples} random sign patterns"
    markers = (
        "A letter after a mean: significantly better than the run with that letter."
        if n_runs <= len(_LETTERS)
        else "Run numbers after a mean: significantly better than the runs with those numbers."
    )
    return (
        f"Two-sided {test_name}, {against}; p < {alpha:g}, {corrected}. {markers} "
        f"Means over {queries}."
    )
