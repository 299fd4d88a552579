"""The comparison table users know from ranx and PyTerrier, as text, Markdown or LaTeX.

Runs as rows, metrics as columns, each mean followed by the letters of the runs it
is significantly better than (ranx's notation), with a caption naming the test, the
level and the correction; then, for each comparison, the mean difference, the paired
effect size, the win/tie/loss counts and the p-value per metric.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._engine._validation import Interval, Options, check_parameter
from . import _escape

# run labels: the letters that have a superscript form (no "q"); with more runs, numbers
_LETTERS = "abcdefghijklmnoprstuvwxyz"
_SUPERSCRIPT = dict(zip(_LETTERS, "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻ", strict=True))
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
FORMATS = ("text", "markdown", "latex")
ESCAPE = {"text": _escape.text, "markdown": _escape.markdown, "latex": _escape.latex}


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


def _marks(losers: set[int], n_runs: int, style: str) -> str:
    """The marker after a mean: the labels of the runs (positions ``losers``) it beats.

    Up to 25 runs, the letters, as superscripts (``$^{ab}$`` in LaTeX); with more runs,
    the run numbers in ranges, in parentheses (``(2-7,9)``; a superscript in LaTeX),
    so that a run that beats 29 others reads ``(2-30)``, not a string of digits.
    """
    if not losers:
        return ""
    ordered = sorted(losers)
    if n_runs <= len(_LETTERS):
        letters = "".join(_LETTERS[i] for i in ordered)
        if style == "latex":
            return f"$^{{{letters}}}$"
        return "".join(_SUPERSCRIPT[c] for c in letters)
    numbers = _ranges([i + 1 for i in ordered])
    if style == "latex":
        return rf"\textsuperscript{{{numbers.replace('-', '--')}}}"
    return f" ({numbers})"


def _number(value: float, digits: int, sign: bool = False) -> str:
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
    function_name: str = "comparison_tables",
) -> str:
    """The summary table and the per-comparison details in one format.

    Every run, metric and baseline name is escaped for ``style`` (:mod:`._escape`).
    """
    check_parameter(function_name, "test", test, [Options(*_TESTS)])
    check_parameter(function_name, "alpha", alpha, [Interval(float, 0, 1, closed="neither")])
    check_parameter(function_name, "digits", digits, [Interval(int, 0, None)])
    alpha = _as_float(alpha)
    digits = int(digits)
    if style not in FORMATS:
        raise ValueError(f"The format must be one of {FORMATS}; got {style!r}.")
    escape = ESCAPE[style]
    models = list(means)
    metrics = list(next(iter(means.values()))) if means else []
    labels = dict(zip(models, run_labels(len(models)), strict=True))
    position = {model: i for i, model in enumerate(models)}
    p_column, test_name = _TESTS[test]
    if correction is not None:
        p_column = f"{p_column}_{correction}"
    n_rows = len(columns["metric"])
    better: dict[tuple[str, str], set[int]] = {}  # (model, metric) -> the runs it beats
    for i in range(n_rows):
        p = float(columns[p_column][i])
        if math.isnan(p) or p >= alpha:
            continue
        a, b = columns["model_a"][i], columns["model_b"][i]
        winner, loser = (a, b) if columns["mean_difference"][i] > 0 else (b, a)
        better.setdefault((winner, columns["metric"][i]), set()).add(position[loser])

    caption = _caption(
        columns, models, baseline, correction, n_resamples, test_name, alpha, len(models)
    )
    summary_header = ["", "run", *(escape(metric) for metric in metrics)]
    summary_rows = [
        [
            labels[model],
            escape(model),
            *(
                _number(means[model][metric], digits)
                + _marks(better.get((model, metric), set()), len(models), style)
                for metric in metrics
            ),
        ]
        for model in models
    ]
    detail_header = ["comparison", "", *summary_header[2:]]
    detail_rows = []
    p_label = ("p t-test " if test == "t" else "p perm. ") + (
        f"({_SHORT_CORRECTION_NAMES[correction]})" if correction else ""
    )
    by_pair: dict[tuple[str, str], dict[str, int]] = {}
    for i in range(n_rows):
        by_pair.setdefault((columns["model_a"][i], columns["model_b"][i]), {})[
            columns["metric"][i]
        ] = i
    for (a, b), rows in by_pair.items():
        name = f"{labels[a]} {escape(a)} vs {labels[b]} {escape(b)}"

        def cells(render: Any, rows: dict[str, int] = rows) -> list[str]:
            return [render(rows[metric]) if metric in rows else "" for metric in metrics]

        detail_rows += [
            [
                name,
                "difference",
                *cells(lambda i: _number(columns["mean_difference"][i], digits, sign=True)),
            ],
            [
                "",
                escape("effect size d_z"),
                *cells(lambda i: _number(columns["effect_size"][i], 2, True)),
            ],
            [
                "",
                "win/tie/loss",
                *cells(
                    lambda i: f"{columns['wins'][i]}/{columns['ties'][i]}/{columns['losses'][i]}"
                ),
            ],
            ["", escape(p_label.strip()), *cells(lambda i: _p_value(float(columns[p_column][i])))],
        ]
    render = {"text": _text, "markdown": _markdown, "latex": _latex}[style]
    return render(escape(caption), summary_header, summary_rows, detail_header, detail_rows)


def _as_float(alpha: Any) -> float:
    """A real number as a Python float; a NumPy float as the decimal it prints as.

    ``np.float32(0.05)`` is ``0.0500000007...`` in binary; the level meant is 0.05, so
    that a p-value of exactly 0.05 is not significant at either.
    """
    if isinstance(alpha, np.floating):
        return float(np.format_float_positional(alpha, unique=True, trim="-"))
    return float(alpha)


def means_table(
    means: dict[str, dict[str, float]], caption: str, *, digits: int, style: str
) -> str:
    """Runs as rows, metrics as columns, without markers (no comparison).

    The caption, run and metric names are escaped for ``style`` (:mod:`._escape`).
    """
    check_parameter("means_table", "digits", digits, [Interval(int, 0, None)])
    if style not in FORMATS:
        raise ValueError(f"The format must be one of {FORMATS}; got {style!r}.")
    escape = ESCAPE[style]
    models = list(means)
    metrics = list(next(iter(means.values()))) if means else []
    header = ["", "run", *(escape(metric) for metric in metrics)]
    rows = [
        [label, escape(model), *(_number(means[model][metric], digits) for metric in metrics)]
        for label, model in zip(run_labels(len(models)), models, strict=True)
    ]
    render = {"text": _text, "markdown": _markdown, "latex": _latex}[style]
    return render(escape(caption), header, rows, [], [])


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
        f"{counts[0]} queries" if len(counts) == 1 else f"{counts[0]} to {counts[-1]} queries"
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


def aligned_lines(header: list[str], rows: list[list[str]], left: int) -> list[str]:
    """Columns padded to their widest cell: the first ``left`` left-aligned, the rest right."""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = []
    for row in [header, *rows]:
        cells = [
            text.ljust(width) if i < left else text.rjust(width)
            for i, (text, width) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(cells).rstrip())
    return lines


def _text(caption, summary_header, summary_rows, detail_header, detail_rows) -> str:
    lines = textwrap.wrap(caption, 100, break_on_hyphens=False)
    lines += [""] + aligned_lines(summary_header, summary_rows, left=2)
    if detail_rows:
        lines += [""] + aligned_lines(detail_header, detail_rows, left=2)
    return "\n".join(lines)


def _markdown_table(header: list[str], rows: list[list[str]], left: int) -> list[str]:
    def line(cells: list[str]) -> str:
        return "| " + " | ".join(cells) + " |"

    rule = ["---" if i < left else "---:" for i in range(len(header))]
    return [line(header), "| " + " | ".join(rule) + " |", *(line(row) for row in rows)]


def _markdown(caption, summary_header, summary_rows, detail_header, detail_rows) -> str:
    lines = [caption, ""] + _markdown_table(summary_header, summary_rows, left=2)
    if detail_rows:
        lines += [""] + _markdown_table(detail_header, detail_rows, left=2)
    return "\n".join(lines)


def _latex_table(header: list[str], rows: list[list[str]], left: int) -> list[str]:
    spec = "l" * left + "r" * (len(header) - left)
    lines = [rf"\begin{{tabular}}{{{spec}}}", r"\toprule"]
    lines.append(" & ".join(header) + r" \\")
    lines.append(r"\midrule")
    lines += [" & ".join(row) + r" \\" for row in rows]
    lines += [r"\bottomrule", r"\end{tabular}"]
    return lines


def _latex(caption, summary_header, summary_rows, detail_header, detail_rows) -> str:
    lines = [r"% \usepackage{booktabs}", r"\begin{table}", r"\centering"]
    lines.append(rf"\caption{{{caption}}}")
    lines += _latex_table(summary_header, summary_rows, left=2)
    if detail_rows:
        lines += [r"\medskip", ""] + _latex_table(detail_header, detail_rows, left=2)
    lines.append(r"\end{table}")
    return "\n".join(lines)
