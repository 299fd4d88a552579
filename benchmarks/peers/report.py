"""The Markdown report (``RESULTS-<level>.md``): machine, README table, targets, timings,
value checks and memory."""

from __future__ import annotations

import datetime
import importlib
import importlib.metadata
import math
import os

from machine import (
    DISABLE_VARIABLE,
    DISPATCH_LEVELS,
    dispatch_level,
    machine_lines,
    unlimited_dispatch_level,
)

from .checks import TOLERANCE
from .data import METRIC_TITLES, METRICS, SERIES, TEN_METRICS, Series
from .impls import IMPL_BY_KEY, PEER_DISTRIBUTIONS, PEER_KEYS, TIMED
from .memory import Memory
from .timing import (
    MAX_REPEATS,
    MIN_REPEATS,
    PEER_MAX_REPEATS,
    SLOW_CALL,
    VERY_SLOW_CALL,
    Bench,
    Result,
)

LIMITS = {"single": 1.5, "evaluate": 2.5, "ties": 1.2, "bytes_per_row": 64}


def _seconds(value: float) -> str:
    """Seconds with three significant digits."""
    return f"{value:.3g}"


class Verdicts:
    """Counts the target checks as it words each one."""

    def __init__(self) -> None:
        self.passed = 0
        self.checked = 0

    def __call__(self, ok: bool) -> str:
        """'pass' or '**FAIL**', counted."""
        self.checked += 1
        self.passed += ok
        return "pass" if ok else "**FAIL**"


def machine() -> list[str]:
    """Markdown lines that describe the machine and the software versions."""
    lines = machine_lines()
    versions = []
    for module, distribution in PEER_DISTRIBUTIONS.items():
        try:
            version = importlib.metadata.version(distribution)
            importlib.import_module(module)
            versions.append(f"{distribution} {version}")
        except Exception as error:
            versions.append(f"{distribution}: not available ({type(error).__name__})")
    lines.append("- Peers: " + ", ".join(versions))
    return lines


def dispatch_note(level: str) -> str:
    """The header line on NumPy's dispatch level, and whether this run was limited."""
    line = (
        f"- NumPy dispatch level: **{level}** (one report per level: "
        f"{', '.join(f'RESULTS-{name}.md' for name in reversed(DISPATCH_LEVELS))}; "
        "np.argsort and the other sorts run AVX-512, AVX2 or baseline kernels)"
    )
    disabled = os.environ.get(DISABLE_VARIABLE)
    if disabled:
        line += (
            f"; **dispatch limited** by {DISABLE_VARIABLE}={disabled}: without it, "
            f"NumPy dispatches to {unlimited_dispatch_level()} on this machine"
        )
    return line


class Report:
    """Turns the results into Markdown."""

    def __init__(self, bench: Bench, memory: list[Memory]):
        self.bench = bench
        self.plan = bench.plan
        self.results = bench.results
        self.memory = memory
        sizes = self.sizes = bench.plan.sizes
        target_sizes = [n for n in sizes["base"] if n >= 1_000_000]
        self.target_sizes = target_sizes or list(sizes["base"][-1:])

    def get(self, series: str, n_rows: int, metric: str, key: str) -> Result | None:
        """The Result of one cell, if that cell was attempted."""
        return self.results.get((series, n_rows, metric, key))

    def seconds(self, series: str, n_rows: int, metric: str, key: str) -> float | None:
        """Median end-to-end seconds; ranx adds its conversion to its computation."""
        if key == "ranx":
            convert = self.get(series, n_rows, "*", "ranx_convert")
            compute = self.get(series, n_rows, metric, "ranx_compute")
            if convert and compute and convert.median and compute.median:
                return convert.median + compute.median
            return None
        if IMPL_BY_KEY[key].per_data_set:
            metric = "*"
        result = self.get(series, n_rows, metric, key)
        return result.median if result else None

    def argsort_seconds(self, series: str, n_rows: int) -> float:
        """The ratios' denominator: the median of np.argsort on the data set."""
        seconds = self.seconds(series, n_rows, "*", "argsort")
        if seconds is None:
            raise RuntimeError(f"np.argsort was not timed on {series}, {n_rows:,} rows")
        return seconds

    def cell(self, series: str, n_rows: int, metric: str, key: str) -> str:
        """'seconds (ratio to argsort)' or the reason there is no time."""
        result = self.get(series, n_rows, "*" if IMPL_BY_KEY[key].per_data_set else metric, key)
        if result is None:
            return ""
        if result.median is None:
            short = {"n/a": "–", "missing": "not installed", "error": "error"}
            if result.status == "skipped" and result.projected is not None:
                return f"skip (~{result.projected:.0f} s)"
            if result.status == "skipped":
                return "skip"
            return short.get(result.status, result.status)
        base = self.argsort_seconds(series, n_rows)
        text = f"{_seconds(result.median)} ({result.median / base:.1f}×)"
        if result.agrees is False:
            text += " ≠"
        return text

    def timing_table(self, series: Series) -> list[str]:
        """One row per (size, metric), one column per implementation."""
        heads = ["rows", "metric", "np.argsort s"] + [impl.label for impl in TIMED[1:]]
        lines = ["| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
        for n_rows in self.sizes.get(series.key, ()):
            if (series.key, n_rows) not in self.bench.n_queries:
                continue
            base = self.argsort_seconds(series.key, n_rows)
            for metric in METRICS:
                cells = [f"{n_rows:,}", METRIC_TITLES[metric], _seconds(base)]
                cells += [self.cell(series.key, n_rows, metric, impl.key) for impl in TIMED[1:]]
                lines.append("| " + " | ".join(cells) + " |")
        return lines

    def skip_notes(self, series: Series) -> list[str]:
        """Why cells are empty (skipped, error), one line per (size, implementation)."""
        lines = []
        for n_rows in self.sizes.get(series.key, ()):
            limit = self.plan.limit(series, n_rows)
            for impl in TIMED:
                projected: list[str] = []
                other: dict[str, list[str]] = {}
                errors: list[str] = []
                for metric in ("*", *METRICS):
                    result = self.get(series.key, n_rows, metric, impl.key)
                    if result is None:
                        continue
                    name = "all" if metric == "*" else METRIC_TITLES[metric]
                    if result.status == "skipped" and result.projected is not None:
                        projected.append(f"{name} ~{result.projected:.0f} s ({result.source})")
                    elif result.status == "skipped":
                        other.setdefault(result.note, []).append(name)
                    elif result.status == "error":
                        errors.append(f"{name}: {result.note}")
                head = f"- {n_rows:,} rows, {impl.label}: "
                if projected:
                    lines.append(
                        head + f"skipped, projected > {limit:.2g} s: " + "; ".join(projected)
                    )
                for note, names in other.items():
                    lines.append(head + f"skipped ({note}): " + ", ".join(names))
                if errors:
                    lines.append(head + "error: " + "; ".join(errors))
        return lines

    def fastest_peer(self, series: str, n_rows: int, metric: str) -> tuple[str, float, bool]:
        """(label, seconds, measured) of the fastest peer; projected if none was measured."""
        timed = []
        for key in PEER_KEYS:
            seconds = self.seconds(series, n_rows, metric, key)
            result = self.get(series, n_rows, metric, "ranx_compute" if key == "ranx" else key)
            if seconds is not None and result is not None and result.agrees is not False:
                timed.append((seconds, IMPL_BY_KEY[key].label))
        if timed:
            seconds, label = min(timed)
            return label, seconds, True
        projected = []
        for impl in TIMED:
            result = self.get(series, n_rows, metric, impl.key)
            if impl.kind == "peer" and result is not None and result.projected is not None:
                projected.append((result.projected, impl.label))
        if projected:
            seconds, label = min(projected)
            return label, seconds, False
        return "", math.nan, False

    def targets(self) -> tuple[list[str], int, int]:
        """Target tables: (lines, passed, checked)."""
        verdict = Verdicts()
        heads = ["series", "target", "rows"] + [METRIC_TITLES[m] for m in METRICS]
        lines = ["| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
        for series in SERIES[:4]:
            for n_rows in self.target_sizes:
                if (series.key, n_rows) in self.bench.n_queries:
                    lines += self.target_rows(series, n_rows, verdict)
        memory_lines = self.memory_targets(verdict)
        if memory_lines:
            lines += ["", "| series | metric | rows | peak extra memory |", "|---|---|---|---|"]
            lines += memory_lines
        return lines, verdict.passed, verdict.checked

    def target_rows(self, series: Series, n_rows: int, verdict: Verdicts) -> list[str]:
        """The rows of one data set: against the fastest peer, argsort and ties="input"."""
        base = self.argsort_seconds(series.key, n_rows)
        peer_row, ratio_row, ties_row = [], [], []
        for metric in METRICS:
            ours = self.seconds(series.key, n_rows, metric, "ours")
            if ours is None:
                peer_row.append("no time")
                ratio_row.append("no time")
                ties_row.append("")
                continue
            peer_row.append(self.peer_target(series, n_rows, metric, ours, verdict))
            limit = LIMITS["evaluate" if metric == "evaluate" else "single"]
            ratio = ours / base
            ratio_row.append(f"{verdict(ratio <= limit)} {ratio:.2f}× (≤ {limit})")
            inputs = self.seconds(series.key, n_rows, metric, "ours_input")
            if inputs is not None and not series.tied:
                share = ours / inputs
                ties_row.append(f"{verdict(share <= LIMITS['ties'])} {share:.2f}×")
            else:
                ties_row.append("")
        return [
            f"| {series.key} | {name} | {n_rows:,} | " + " | ".join(row) + " |"
            for name, row in (
                ("≤ fastest peer", peer_row),
                ("≤ 1.5× (2.5× evaluate) argsort", ratio_row),
                ("ties=average ≤ 1.2× ties=input", ties_row),
            )
            if any(row)
        ]

    def peer_target(
        self, series: Series, n_rows: int, metric: str, ours: float, verdict: Verdicts
    ) -> str:
        """Ours against the fastest peer, or 'no peer'."""
        label, fastest, measured = self.fastest_peer(series.key, n_rows, metric)
        if not label:
            return "no peer"
        how = "" if measured else " projected"
        return (
            f"{verdict(ours <= fastest)} {_seconds(ours)} vs {_seconds(fastest)} s{how} ({label})"
        )

    def memory_targets(self, verdict: Verdicts) -> list[str]:
        """Our peak extra memory per row against the limit, one line per case."""
        lines = []
        for memory in self.memory:
            if memory.impl == "ours" and memory.peak is not None:
                per_row = memory.peak / memory.n_rows
                ok = per_row <= LIMITS["bytes_per_row"]
                lines.append(
                    f"| {memory.series} | {METRIC_TITLES[memory.metric]} | {memory.n_rows:,} | "
                    f"{verdict(ok)} {per_row:.1f} B/row (≤ 64) |"
                )
        return lines

    def readme_table(self) -> list[str]:
        """The 1M-row (or largest) tie-free table: implementations by metrics."""
        sizes = self.sizes["base"]
        n_rows = 1_000_000 if 1_000_000 in sizes else sizes[-1]
        base = self.argsort_seconds("base", n_rows)
        heads = ["implementation"] + [METRIC_TITLES[m] for m in METRICS]
        lines = [
            f"{n_rows:,} rows, {self.bench.n_queries[('base', n_rows)]:,} queries, tie-free "
            f"scores; median seconds (ratio to one np.argsort of the scores, "
            f"{_seconds(base)} s).",
            "",
            "| " + " | ".join(heads) + " |",
            "|" + "---|" * len(heads),
        ]
        rows = [
            ("sklearn_rank_metrics", "ours"),
            ('sklearn_rank_metrics, ties="input"', "ours_input"),
            ("pandas groupby + scikit-learn", "pandas"),
            ("scikit-learn on padded 2-D", "sklearn"),
            ("ranx (convert + compute)", "ranx"),
            ("ranx (compute only)", "ranx_compute"),
            ("pytrec_eval", "pytrec_eval"),
            ("torchmetrics (CPU)", "torchmetrics"),
            ("XGBoost (own metric)", "xgboost"),
            ("LightGBM (own metric)", "lightgbm"),
            ("np.lexsort((score, qid))", "lexsort"),
            ("np.argsort(score)", "argsort"),
        ]
        for title, key in rows:
            cells = []
            for metric in METRICS:
                if key == "ranx":
                    seconds = self.seconds("base", n_rows, metric, "ranx")
                    if seconds is None:
                        compute = self.cell("base", n_rows, metric, "ranx_compute")
                        convert = self.cell("base", n_rows, metric, "ranx_convert")
                        cells.append(compute if compute == "–" else convert)
                    else:
                        cells.append(f"{_seconds(seconds)} ({seconds / base:.1f}×)")
                else:
                    cells.append(self.cell("base", n_rows, metric, key))
            lines.append(f"| {title} | " + " | ".join(cells) + " |")
        return lines

    def checks_table(self) -> list[str]:
        """Value checks on tie-free data: largest |difference| per peer and metric."""
        heads = ["peer"] + [METRIC_TITLES[m] for m in METRICS]
        lines = ["| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
        for impl in TIMED:
            if impl.kind != "peer" or not impl.references:
                continue
            cells = []
            for metric in METRICS:
                found = [
                    result
                    for (series, _, m, key), result in self.results.items()
                    if m == metric and key == impl.key and result.agrees is not None
                ]
                if not found:
                    cells.append("–" if metric not in impl.references else "not run")
                    continue
                bad = [result for result in found if not result.agrees]
                worst = max(found, key=lambda result: float(result.diff or 0.0))
                where = f" {worst.diff_name}" if worst.diff_name else ""
                if bad:
                    series_names = sorted(
                        {key[0] for key, r in self.results.items() if any(r is b for b in bad)}
                    )
                    verdict = f"**no** on {len(bad)} of {len(found)} ({', '.join(series_names)})"
                else:
                    verdict = f"yes ({len(found)} data sets)"
                cells.append(f"{verdict}, max {worst.diff:.1e}{where}")
            label = "ranx" if impl.key == "ranx_compute" else impl.label
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
        return lines

    def memory_table(self) -> list[str]:
        """Peak extra memory per call, fresh subprocess per row."""
        lines = [
            "| implementation | metric | series | rows | peak extra RSS MiB | "
            "peak traced MiB | bytes per row |",
            "|---|---|---|---|---|---|---|",
        ]
        for memory in self.memory:
            impl = IMPL_BY_KEY[memory.impl]
            metric = "sort" if memory.metric == "*" else METRIC_TITLES[memory.metric]
            if memory.error:
                tail = f"{memory.error} | | |"
            else:
                rss = "n/a" if memory.rss is None else f"{memory.rss / 2**20:.1f}"
                traced = "n/a" if memory.traced is None else f"{memory.traced / 2**20:.1f}"
                peak = memory.peak  # None: no /proc/self/clear_refs and not traced (a peer)
                per_row = "n/a" if peak is None else f"{peak / memory.n_rows:.1f}"
                tail = f"{rss} | {traced} | {per_row}"
            lines.append(
                f"| {impl.label} | {metric} | {memory.series} | {memory.n_rows:,} | {tail} |"
            )
        return lines

    def markdown(self, command: str, started: datetime.datetime, runtime: float, load: str) -> str:
        """The whole report (RESULTS-<level>.md)."""
        target_lines, passed, checked = self.targets()
        level, limited = dispatch_level(), bool(os.environ.get(DISABLE_VARIABLE))
        budget = self.plan.budget
        budget_text = f"{budget:.0f} s" if budget < 120 else f"{budget / 60:.0f} min"
        out = [
            "# Benchmark: sklearn_rank_metrics against its peers "
            f"(NumPy dispatch {level}{', limited' if limited else ''})",
            "",
            "Generated by `benchmarks/bench_peers.py`; do not edit by hand.",
            "",
            f"- Command: `{command}`",
            f"- Date: {started:%Y-%m-%d %H:%M} UTC; runtime {runtime / 60:.1f} min, of which "
            f"{self.bench.import_seconds:.0f} s imports and {self.bench.warm_up_seconds:.0f} s "
            f"warm-up (ranx's numba JIT), both outside the {budget_text} time budget; "
            f"1-minute load average {load} (other work on the machine slows the "
            "multi-threaded peers most)",
            dispatch_note(level),
            *machine(),
            "",
            "## How to read",
            "",
            "Every call starts from flat NumPy arrays `(y_true, y_score, qid)` and includes the "
            "conversions each tool needs: the data frame (pandas loop), padding to 2-D "
            "(scikit-learn), dicts and `Qrels`/`Run` objects (ranx, pytrec_eval), tensors "
            "(torchmetrics), sorting rows by query and building the `DMatrix`/`Dataset` "
            "(XGBoost, LightGBM: their own metric of the given scores, evaluated before any "
            "boosting round). ranx is timed in two parts, after a warm-up call that compiles "
            "its numba code: *convert* (dicts, `Qrels`, `Run`, which sorts each query) and "
            "*compute* (`ranx.evaluate`).",
            "",
            "The calls on one data set run interleaved in rounds (A B C, then C A B, ...), "
            "each round in a new seeded random order, so that no call always follows the "
            "same one (at 10M rows, the call right after `np.lexsort` pays about 0.9 s of "
            "system time for the kernel compacting the memory lexsort freed). Each cell is the "
            f"median of {MIN_REPEATS} to {MAX_REPEATS} calls for ours and the lower bounds "
            f"(about {self.plan.ours_seconds:g} s of calls per cell) and of 1 to "
            f"{PEER_MAX_REPEATS} for a peer (about {self.plan.peer_seconds:g} s, at least one "
            "call) and, in brackets, its ratio to the median of "
            "`np.argsort(y_score)` on the same data. `np.lexsort((y_score, qid))` is the "
            "sort a grouped ranking needs if done naively. Ours and NumPy run on one thread; "
            "XGBoost, LightGBM, ranx (numba) and torch use their default thread counts (all "
            "cores), with `OMP_WAIT_POLICY=PASSIVE` (unless set otherwise) so that their idle "
            "threads do not spin into the next timed call.",
            "",
            "Queries have about 100 rows (ids drawn at random, so sizes vary), labels 0-4 with "
            "half of them 0. Tie-free scores are distinct in float32; tied data rounds 30% of "
            "the scores to nine values. A peer call whose time, projected from the next "
            "smaller size, exceeds a limit is skipped (`skip (~N s)`: the projection; the "
            "notes below each table give the source and the limit); the fixed cost of a "
            "call (measured on 2,000 rows) is not scaled. The shapes *one "
            "query* and *one-row queries* run at 10k and 100k rows first (the first "
            "projected from the base series), to project the 10M-row case. "
            f"Past {budget_text} of timing after the warm-up, the remaining peer calls are "
            "skipped and ours and the lower bounds are timed once (the notes say so). "
            "`–`: the tool has no such metric. `≠`: the value differs from ours under "
            "matching settings (see Value checks). Calls of ours above "
            f"{SLOW_CALL:g} s run twice, above {VERY_SLOW_CALL:g} s once.",
            "",
            "Row *evaluate, 10 metrics*: ours computes " + ", ".join(TEN_METRICS) + " in one "
            "call; each peer computes the subset it has in its natural way: pandas loop all "
            "10 (ndcg, AP and AUC with scikit-learn, the rest NumPy), scikit-learn padded 3 "
            "(ndcg@10, ndcg, LRAP), ranx 8 and pytrec_eval 8 (no ERR, no AUC; trec_eval's "
            "recip_rank has no cutoff), torchmetrics 9 (no ERR), XGBoost 5 (ndcg@10, ndcg, "
            "map, map@10, pre@10; graded and binary labels need two DMatrix), LightGBM 4 "
            "(ndcg@10, ndcg, map@10, map). In the pandas loop MRR@10 and P@10 are NumPy "
            "(scikit-learn has neither).",
            "",
            "## README table",
            "",
            *self.readme_table(),
            "",
            "## Targets",
            "",
            f"{passed} of {checked} checks pass. Single metric: no slower than the fastest "
            "peer and ≤ 1.5× one np.argsort of the scores; ten-metric evaluate ≤ 2.5×; "
            'ties="average" ≤ 1.2× ties="input" (NDCG@10, tie-free); peak extra memory '
            "≤ 64 bytes per row. The fastest peer is taken end to end (ranx: convert + "
            "compute); `projected` means no peer ran at that size and the fastest "
            "projection stands in.",
            "",
            *target_lines,
            "",
            "## Timings",
        ]
        for series in SERIES:
            if not any(key == series.key for key, _ in self.bench.n_queries):
                continue
            out += ["", f"### {series.title}", "", *self.timing_table(series)]
            notes = self.skip_notes(series)
            if notes:
                out += ["", *notes]
        out += [
            "",
            "## Value checks",
            "",
            f"On tie-free data every peer's value is compared with ours under the settings "
            f'that reproduce it (README "Matching other tools"; LightGBM/XGBoost: '
            f'exponential gain, ties="input", replace_undefined_by=1.0, XGBoost on float32 '
            f"scores; trec_eval's recip_rank against our MRR without cutoff). Agreement: "
            f"|difference| < {TOLERANCE:g} on every data set where the peer ran.",
            "",
            *self.checks_table(),
            "",
            "## Memory",
            "",
            "Peak extra memory of one call beyond its inputs, each row in a fresh subprocess "
            "after a warm-up call on tiny data: the peak resident set size (reset through "
            "/proc/self/clear_refs just before the call) minus the resident size before it, "
            "and, for ours and NumPy, the peak of a second call under tracemalloc (exact for "
            "NumPy arrays, blind to C++ allocations). Bytes per row use the larger of the two.",
            "",
            *self.memory_table(),
            "",
        ]
        return "\n".join(out)


# ---------------------------------------------------------------------------
