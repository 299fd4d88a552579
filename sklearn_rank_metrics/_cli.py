"""The command line: ``python -m sklearn_rank_metrics`` / ``rank-metrics``.

``evaluate`` reads a table, a LETOR file with predictions, or TREC qrels with one or
more runs, and prints :func:`ranking_report` as text, JSON or CSV; ``demo`` runs the
demonstration. Bad input exits with status 2 and one line on stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import math
import os
import sys
import textwrap
import threading
import time
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

from ._engine._errors import RowValueError
from ._metrics._conventions import CONVENTIONS
from ._metrics._evaluate import evaluate_details
from ._metrics._registry import parse_metric
from ._render._trec_eval import trec_eval_lines
from ._stats._compare import compare
from ._stats._comparison_table import means_table
from ._stats._report import REPORT_METRICS, format_report, summarize
from ._version import __version__

PROGRAM = "rank-metrics"
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report a command stopped by Ctrl-C
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE: the reader of the output went away (| head)

# --resamples at most: the bootstrap keeps and sorts every resampled mean, 8 bytes
# each per metric and compared run (at the limit 16 MB per pair and metric, and
# n_resamples x n_queries draws: about 12 s for 200 queries, 5 metrics, 2 pairs)
MAX_RESAMPLES = 1_000_000

# options of the --baseline comparison alone, with their defaults: given without
# --baseline they would be ignored, so they are refused (None marks "not given")
COMPARISON_DEFAULTS = {"alpha": 0.05, "correction": None, "resamples": 10_000, "seed": 0}


class _Parser(argparse.ArgumentParser):
    """argparse with the package's one-line error (usage errors also exit 2)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise _BadInput(f"{message} (see '{self.prog} --help')")


class _BadInput(Exception):
    """Input the command cannot use; reported in one line, exit status 2."""


OUTPUT_FORMATS = ("text", "json", "csv", "markdown", "latex", "trec_eval")


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROGRAM,
        description=textwrap.fill(
            "Ranking metrics over query groups (NDCG, MAP, MRR, P@k, recall@k, ERR, "
            "per-query AUC) for files: a CSV/TSV/Parquet table, a LETOR/SVMlight file "
            "with predictions, or TREC qrels with runs.",
            width=79,
            break_on_hyphens=False,
        ),
        epilog=(
            "Examples:\n"
            "  rank-metrics evaluate --table results.csv --group qid --y-true label "
            "--y-score model_a --y-score model_b\n"
            "  rank-metrics evaluate --letor test.txt --predictions preds.txt "
            "--metrics ndcg@10 map\n"
            "  rank-metrics evaluate --qrels qrels.txt --run bm25.run --run dense.run "
            "--format json\n"
            "  rank-metrics demo\n"
            "Exit status: 0 on success, 2 on bad input or arguments (one line on stderr),\n"
            "  130 when interrupted (Ctrl-C), 141 when the output pipe closes early."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"{PROGRAM} {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    evaluate = commands.add_parser(
        "evaluate",
        help="evaluate rankings read from files and print a report",
        description=textwrap.fill(
            "Evaluate one or several rankings of the same queries and print, for every "
            "metric and run, the mean over queries, its standard error, and the number "
            "of queries evaluated, undefined (no relevant row) and skipped. Give exactly "
            "one of --table, --letor or --qrels.",
            width=79,
            break_on_hyphens=False,
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sources = evaluate.add_argument_group("input (exactly one of --table, --letor, --qrels)")
    sources.add_argument(
        "--table",
        metavar="PATH",
        help="CSV (.csv), TSV (.tsv) or Parquet (.parquet, needs the 'parquet' extra) table "
        "with one row per (query, document)",
    )
    sources.add_argument("--y-true", default="y_true", metavar="COLUMN",
                         help="--table: the relevance label column (default: y_true)")
    sources.add_argument("--y-score", action="append", metavar="COLUMN",
                         help="--table: a score column; repeat for several runs side by "
                         "side (default: y_score)")
    sources.add_argument("--group", default="group", metavar="COLUMN",
                         help="--table: the query id column (default: group)")
    sources.add_argument(
        "--letor",
        metavar="PATH",
        help="LETOR / SVMlight file with 'qid:' (labels and query ids)",
    )
    sources.add_argument("--group-sizes", metavar="PATH",
                         help="--letor: a LightGBM .query / XGBoost .group file (rows per "
                         "query, one number per line) for a file without 'qid:'")
    sources.add_argument("--predictions", action="append", metavar="PATH",
                         help="--letor: a predictions file, one score per line in the "
                         "file's row order; repeat for several runs")
    sources.add_argument("--qrels", metavar="PATH",
                         help="TREC qrels file: 'query 0 document relevance' per line")
    sources.add_argument("--run", action="append", metavar="PATH",
                         help="--qrels: a TREC run file 'query Q0 document rank score tag'; "
                         "repeat for several runs; '-' reads standard input")
    sources.add_argument(
        "-c", "--keep-unretrieved-queries", action="store_true",
        help="--qrels: every run is averaged over every query of the qrels, a query it "
        "does not answer at 0 (trec_eval -c); the default, kept for trec_eval users",
    )
    sources.add_argument(
        "--answered-only", action="store_true",
        help="--qrels: average each run over the queries it answers (trec_eval without "
        "-c, pytrec_eval): several runs' means are then over different query sets",
    )

    options = evaluate.add_argument_group("metrics and output")
    options.add_argument(
        "--metrics", nargs="+", default=list(REPORT_METRICS), metavar="NAME",
        help="metric names as in evaluate(): ndcg, ndcg@k, dcg@k, cg@k, idcg@k, err@k, map, "
        "map@k, mrr, mrr@k, p@k, recall@k, rprec, f1@k, fbeta@k, hit_rate@k, gauc, bpref, "
        "judged@k, rbp@k, num_rel, num_ret, num_rel_ret, with parameters as "
        "'name(param=value)@k', or as trec_eval, ir_measures and ranx name them (P_10, "
        "nDCG@10, precision@10) (default: %(default)s)",
    )
    options.add_argument(
        "--convention", choices=[*CONVENTIONS, "none"], metavar="TOOL",
        help="reproduce a tool's numbers: set every option it decides and that is not "
        f"given ({', '.join(CONVENTIONS)}, or none; default: trec_eval with --qrels, "
        "none otherwise); explicit options win",
    )
    options.add_argument("--ties", choices=["average", "input", "optimistic", "pessimistic"],
                         help="how tied scores are ranked (default: each metric's own, "
                         "'average': the expectation over all tie orders)")
    options.add_argument("--replace-undefined-by", metavar="POLICY",
                         help="queries where a metric is undefined (no relevant row): "
                         "0, 1, nan, skip or raise (default: each metric's own)")
    options.add_argument("--relevance-level", type=float, metavar="LEVEL",
                         help="binary metrics call a row relevant when its label is >= LEVEL "
                         "(default: label > 0)")
    options.add_argument("--format", choices=list(OUTPUT_FORMATS), default="text",
                         help="report format on stdout: text, json, csv, markdown, latex "
                         "(booktabs), or trec_eval (trec_eval -q's per-query lines, then "
                         "runid, num_q and the 'all' lines, run after run; default: text)")
    options.add_argument("--digits", type=_digits, default=4,
                         help="digits after the decimal point in the text report (>= 0)")
    options.add_argument("--per-query", metavar="PATH",
                         help="also write every query's value of every metric and run to "
                         "this CSV file ('-': to standard output, after the report)")
    options.add_argument(
        "--baseline", metavar="RUN",
        help="several runs (--table, --letor or --qrels): compare every other run with this one on "
        "the same queries: the comparison table with significance letters, differences, "
        "effect sizes, win/tie/loss, bootstrap intervals, paired t-test and randomisation "
        "test (text, json, csv, markdown and latex formats)",
    )
    options.add_argument("--correction", choices=["holm", "bonferroni", "bh"],
                         help="--baseline: adjust the p-values for the comparisons of each "
                         "metric (Holm, Bonferroni, Benjamini-Hochberg)")
    options.add_argument("--alpha", type=float, metavar="LEVEL",
                         help="--baseline: significance level of the markers "
                         f"(default: {COMPARISON_DEFAULTS['alpha']})")
    options.add_argument("--resamples", type=_resamples, metavar="N",
                         help="--baseline: bootstrap resamples and random sign patterns, "
                         f"1 to {MAX_RESAMPLES:,} (memory grows with N; "
                         f"default: {COMPARISON_DEFAULTS['resamples']})")
    options.add_argument("--seed", type=int,
                         help="--baseline: seed of the resampling "
                         f"(default: {COMPARISON_DEFAULTS['seed']})")

    commands.add_parser(
        "demo",
        help="fit a model on synthetic data, tune it, report it against a random ranking",
        description="Run the demonstration (python -m sklearn_rank_metrics.demo).",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (also used by the console script)."""
    parser = _build_parser()
    # warnings as 'rank-metrics: warning: ...' while main runs, restored on return.
    # formatwarning, not showwarning: a caller that records warnings (pytest.warns,
    # catch_warnings(record=True)) still receives them, unformatted
    formatted_by = warnings.formatwarning
    warnings.formatwarning = _format_warning
    try:
        args = parser.parse_args(argv)
        if args.command == "demo":
            from .demo import main as demo_main

            status = demo_main()
        else:
            _evaluate_command(args, sys.stdout)
            status = 0
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's exit
        return status
    except _BadInput as error:
        _fail(str(error))
        return EXIT_BAD_INPUT
    except BrokenPipeError:  # quietly, as the Python docs recommend (signal module)
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except (ValueError, TypeError, KeyError, OSError, ImportError) as error:
        _fail(_one_line(error))
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:  # Ctrl-C: one line, no traceback
        print(f"{PROGRAM}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        warnings.formatwarning = formatted_by


def _format_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    line: str | None = None,
) -> str:
    """One line, ``rank-metrics: warning: <message>`` (no source file and line)."""
    return f"{PROGRAM}: warning: {' '.join(str(message).split())}\n"


def _silence_stdout() -> None:
    """Point standard output's file descriptor at the null device, so that the
    interpreter's last flush of what is still buffered does not fail again."""
    try:
        descriptor = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a file (a caller's StringIO)
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, descriptor)
    finally:
        os.close(devnull)


def _fail(message: str) -> None:
    print(f"{PROGRAM}: error: {message}", file=sys.stderr)


def _one_line(error: BaseException) -> str:
    text = str(error.args[0]) if isinstance(error, KeyError) and error.args else str(error)
    if isinstance(error, OSError) and error.filename is not None:
        text = f"{error.strerror or text}: {error.filename}"
    return " ".join(text.split())


def _load_runs(args: argparse.Namespace) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    """Labels, query ids, ``{run name: scores}`` and facts about the source."""
    chosen = [name for name in ("table", "letor", "qrels") if getattr(args, name)]
    if len(chosen) != 1:
        raise _BadInput("give exactly one of --table, --letor, --qrels")
    source = chosen[0]
    for option, owner in (("y_score", "table"), ("predictions", "letor"), ("run", "qrels")):
        if getattr(args, option) and source != owner:
            raise _BadInput(f"--{option.replace('_', '-')} goes with --{owner}")
    if args.keep_unretrieved_queries and source != "qrels":
        raise _BadInput("--keep-unretrieved-queries goes with --qrels")
    if args.answered_only and source != "qrels":
        raise _BadInput("--answered-only goes with --qrels")
    if args.answered_only and args.keep_unretrieved_queries:
        raise _BadInput("--answered-only and -c (--keep-unretrieved-queries) contradict")
    if args.group_sizes and source != "letor":
        raise _BadInput("--group-sizes goes with --letor")

    from ._io import align_trec_runs, read_letor, read_table
    from ._io._trec import join_trec_sources

    facts: dict[str, Any] = {}
    if source == "table":
        columns = args.y_score or ["y_score"]
        _resolve_baseline(args, {column: column for column in columns}, "--y-score")
        runs = {}
        for column in columns:
            with _progress(f"reading {args.table}"):
                data = read_table(
                    args.table, y_true=args.y_true, y_score=column, group=args.group
                )
            runs[column] = data.y_score
        facts["source"] = args.table
    elif source == "letor":
        if not args.predictions:
            raise _BadInput("--letor needs at least one --predictions file")
        names = _run_names(args.predictions)
        _resolve_baseline(args, names, "--predictions")
        runs = {}
        for name, path in names.items():
            with _progress(f"reading {args.letor} with {path}"):
                data = read_letor(args.letor, scores=path, group_sizes=args.group_sizes)
            runs[name] = data.y_score
        facts["source"] = args.letor
    else:
        if not args.run:
            raise _BadInput("--qrels needs at least one --run file")
        if args.run.count("-") > 1:
            raise _BadInput("--run - (standard input) can be given once")
        names = _run_names(args.run)
        _resolve_baseline(args, names, "--run")
        named = {name: sys.stdin.buffer if path == "-" else path for name, path in names.items()}
        facts["source"] = args.qrels
        facts["answered_only"] = args.answered_only
        if args.answered_only:  # each run on its own rows and queries (trec_eval)
            runs = {}
            for name, run in named.items():
                with _progress(f"reading {args.qrels} and {name}"):
                    join = join_trec_sources(
                        args.qrels, run, answered_only=True, single_precision=False
                    )
                runs[name] = join.data
                facts.setdefault("n_dropped_queries", {})[name] = join.data.n_dropped_queries
                facts.setdefault("n_answered", {})[name] = join.data.n_answered_queries
                facts.setdefault("run_ids", {})[name] = join.run_id
                facts["n_qrels_queries"] = join.n_qrels_queries
            return None, runs, facts
        # every run on the same rows and the qrels' queries (trec_eval -c)
        with _progress(f"reading {args.qrels} and {len(named)} run(s)"):
            aligned = align_trec_runs(args.qrels, named)
        facts["n_dropped_queries"] = aligned.n_dropped_queries
        facts["n_answered"] = aligned.n_answered
        facts["run_ids"] = aligned.run_ids
        facts["n_qrels_queries"] = aligned.n_queries
        return aligned, dict(aligned.scores), facts
    return data, runs, facts


def _run_names(paths: Sequence[str]) -> dict[str, str]:
    """Short names for runs: file names (``stdin`` for ``-``), or whole paths when
    file names repeat."""
    names = ["stdin" if path == "-" else Path(path).name for path in paths]
    if len(set(names)) < len(names):
        names = list(paths)
    if len(set(names)) < len(names):
        raise _BadInput(f"the same file is given twice: {sorted(paths)}")
    return dict(zip(names, paths, strict=True))


def _resolve_baseline(args: argparse.Namespace, runs: dict[str, str], option: str) -> None:
    """Make ``args.baseline`` the name of a run, from that name or from the text given
    to ``option`` for the run (a path as typed); checked before any file is read."""
    if args.baseline is None or args.baseline in runs:
        return
    # the same file however it is spelled (./a.run, dir/../a.run), but never a guess
    # between two files: paths compare by their real location
    wanted = os.path.realpath(args.baseline)
    given = [name for name, text in runs.items() if text == args.baseline] or [
        name for name, text in runs.items() if text != "-" and os.path.realpath(text) == wanted
    ]
    if given:
        (args.baseline,) = given
        return
    shown = ", ".join(repr(name) for name in runs)
    typed = ", ".join(repr(text) for name, text in runs.items() if text != name)
    raise _BadInput(
        f"--baseline {args.baseline!r} is not one of the runs: give a run's name ({shown})"
        + (f" or its {option} as given ({typed})" if typed else "")
    )


def _comparison_options(args: argparse.Namespace) -> None:
    """Refuse --alpha, --correction, --resamples and --seed without --baseline (they
    would change nothing); then fill in the defaults of those not given."""
    for name, default in COMPARISON_DEFAULTS.items():
        if getattr(args, name) is None:
            setattr(args, name, default)
        elif args.baseline is None:
            raise _BadInput(
                f"--{name} goes with --baseline (it sets the comparison of the runs, "
                "which --baseline RUN asks for)"
            )


def _evaluate_command(args: argparse.Namespace, out: TextIO) -> None:
    _comparison_options(args)
    # names as trec_eval, ir_measures or ranx write them are printed in canonical form
    given_names = list(args.metrics)
    args.metrics = [
        str(parse_metric(name, function_name="rank-metrics evaluate")) for name in args.metrics
    ]
    if args.convention is None:  # TREC files are read as trec_eval reads them
        args.convention = "trec_eval" if args.qrels else "none"
    settings = {
        "convention": None if args.convention == "none" else args.convention,
        "ties": args.ties,
        "replace_undefined_by": _policy(args.replace_undefined_by),
        "relevance_level": args.relevance_level,
    }
    data, runs, facts = _load_runs(args)
    results: dict[str, dict[str, Any]] = {}
    per_query: dict[str, Any] = {}
    query_counts: dict[str, int] = {}
    for name, scores in runs.items():
        # TREC runs each bring their own rows (the union of the run and the qrels)
        run_data = scores if data is None else data
        y_score = scores.y_score if data is None else scores
        try:
            details = evaluate_details(
                run_data.y_true,
                y_score,
                run_data.group,
                metrics=args.metrics,
                shared=settings,
                sample_weight=None,
                function_name="rank-metrics evaluate",
                doc_id=getattr(run_data, "doc_id", None),
                judged=getattr(run_data, "judged", None),
            )
        except RowValueError as error:  # name the file and line of the row
            locate = getattr(run_data, "_row_location", None)
            if locate is None:
                raise
            raise _BadInput(f"{locate(error.row)}: {error}") from None
        results[name] = {metric: summarize(d) for metric, d in details.metrics.items()}
        per_query[name] = details
        query_counts[name] = len(set(run_data.group.tolist()))
    if args.per_query and args.per_query != "-":
        _write_per_query(args.per_query, per_query)
    if args.baseline is not None:
        facts["comparison"] = _compare_runs(args, data, runs, settings)
    if args.format == "trec_eval":  # trec_eval -q, run after run
        run_ids = facts.get("run_ids", {})
        for name, details in per_query.items():
            # the measures as the user named them (P_10 stays P_10)
            named = dict(zip(given_names, details.metrics.values(), strict=True))
            out.write(trec_eval_lines(details.query_ids, named, run_id=run_ids.get(name)))
    else:
        _print_report(out, args, results, facts, query_counts)
    if args.per_query == "-":  # standard output, after the report
        out.write("\n")
        _write_per_query(out, per_query)


def _compare_runs(
    args: argparse.Namespace, data: Any, runs: dict[str, Any], settings: dict[str, Any]
) -> Any:
    """compare() of every run against --baseline; runs must share their rows."""
    if data is None:
        raise _BadInput(
            "--baseline compares runs on the same queries; drop --answered-only"
        )
    if args.format == "trec_eval":
        raise _BadInput("--baseline prints its comparison with --format text, json, csv, "
                        "markdown or latex")
    if not 0 < args.alpha < 1:
        raise _BadInput(f"--alpha must be in (0, 1); got {args.alpha}")
    if len(runs) < 2:
        raise _BadInput("--baseline needs at least two runs")
    with _progress(f"comparing runs ({args.resamples:,} resamples)"):
        return compare(
            data.y_true,
            runs,
            data.group,
            metrics=args.metrics,
            baseline=args.baseline,
            correction=args.correction,
            judged=getattr(data, "judged", None),
            n_resamples=args.resamples,
            random_state=args.seed,
            **settings,
        )


def _digits(text: str) -> int:
    """``--digits``: an int >= 0, checked when the arguments are read (before any output)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be an int >= 0; got {text!r}")
    return value


def _resamples(text: str) -> int:
    """``--resamples``: an int from 1 to :data:`MAX_RESAMPLES`, checked when the
    arguments are read (before any file is read or any memory is taken)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= MAX_RESAMPLES:
        raise argparse.ArgumentTypeError(
            f"must be an int from 1 to {MAX_RESAMPLES:,} (the bootstrap keeps every "
            f"resample in memory); got {text!r}"
        )
    return value


def _policy(text: str | None) -> float | str | None:
    if text is None or text in ("skip", "raise"):
        return text
    try:
        return float(text)
    except ValueError:
        raise _BadInput(
            f"--replace-undefined-by must be 0, 1, nan, skip or raise; got {text!r}"
        ) from None


def _print_report(
    out: TextIO,
    args: argparse.Namespace,
    results: dict[str, dict[str, Any]],
    facts: dict[str, Any],
    query_counts: dict[str, int],
) -> None:
    if args.format == "json":
        document = {
            "source": facts["source"],
            "convention": args.convention,
            "n_queries": query_counts,
            "answered_only": facts.get("answered_only"),
            "n_qrels_queries": facts.get("n_qrels_queries"),
            "n_answered_queries": facts.get("n_answered"),
            "n_dropped_queries": facts.get("n_dropped_queries"),
            "results": results,
        }
        if "comparison" in facts:
            document["comparison"] = facts["comparison"].records()
        out.write(json.dumps(_json_safe(document), indent=2) + "\n")
        return
    if args.format == "csv":
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["run", "metric", "mean", "std_err", "n_queries", "n_undefined",
                         "n_skipped"])
        for run, by_metric in results.items():
            for metric, stats in by_metric.items():
                writer.writerow([run, metric, *(_cell(value) for value in stats.values())])
        if "comparison" in facts:  # a second table, after a blank line
            out.write("\n" + facts["comparison"].to_csv())
        return
    if args.format in ("markdown", "latex"):
        comparison = facts.get("comparison")
        if comparison is not None:
            render = comparison.to_markdown if args.format == "markdown" else comparison.to_latex
            out.write(render(alpha=args.alpha, digits=args.digits) + "\n")
            return
        means = {run: {m: s["mean"] for m, s in stats.items()} for run, stats in results.items()}
        counts = ", ".join(f"{name}: {count}" for name, count in query_counts.items())
        which = "each run answered in" if facts.get("answered_only") else "of"
        caption = f"Means over the queries {which} {facts['source']} ({counts})."
        out.write(means_table(means, caption, digits=args.digits, style=args.format) + "\n")
        return
    if "n_answered" in facts:  # TREC runs: say which queries each mean is over
        answered = ", ".join(f"{name} {count}" for name, count in facts["n_answered"].items())
        if facts["answered_only"]:
            lines = [f"{facts['source']}: {facts['n_qrels_queries']} queries; each run "
                     "averaged over the queries it answered, as trec_eval without -c "
                     f"(answered: {answered})"]
        else:
            lines = [f"{facts['source']}: {facts['n_qrels_queries']} queries, every run "
                     "averaged over all of them, a query it did not answer at 0 as "
                     f"trec_eval -c (answered: {answered})"]
    else:
        lines = [f"{facts['source']}: " + ", ".join(
            f"{name}: {count} queries" for name, count in query_counts.items()
        )]
    if args.convention != "none":
        lines.append(f"convention: {CONVENTIONS[args.convention].description}")
    for name, count in (facts.get("n_dropped_queries") or {}).items():
        if count:
            lines.append(f"{name}: {count} queries only in the run were dropped (as trec_eval)")
    out.write("\n".join(lines) + "\n\n")
    # the text table comes from ranking_report's own formatter, from the same numbers
    summaries = {None: next(iter(results.values()))} if len(results) == 1 else results
    out.write(format_report(summaries, args.digits) + "\n")
    if "comparison" in facts:
        out.write(
            f"\nPaired comparison with {args.baseline!r}:\n\n"
            f"{facts['comparison'].to_text(alpha=args.alpha, digits=args.digits)}\n"
        )


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return "nan" if math.isnan(value) else repr(value)
    return str(value)


def _json_safe(value: Any) -> Any:
    """NaN becomes null (JSON has no NaN)."""
    if isinstance(value, dict):
        return {key: _json_safe(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_json_safe(item) for item in value]
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _write_per_query(destination: str | TextIO, per_query: dict[str, Any]) -> None:
    """One row per (run, query): run, query, then one column per metric."""
    with contextlib.ExitStack() as stack:
        handle = destination
        if isinstance(destination, str):
            handle = stack.enter_context(open(destination, "w", newline=""))
        writer = csv.writer(handle, lineterminator="\n")
        first = next(iter(per_query.values()))
        metrics = list(first.metrics)
        writer.writerow(["run", "query", *metrics])
        for run, details in per_query.items():
            columns = [details.metrics[metric].values for metric in metrics]
            for position, query in enumerate(details.query_ids.tolist()):
                writer.writerow(
                    [run, query, *(_cell(float(column[position])) for column in columns)]
                )


@contextlib.contextmanager
def _progress(
    what: str,
    *,
    stream: TextIO | None = None,
    delay: float = 2.0,
    interval: float = 1.0,
    force: bool = False,
) -> Iterator[None]:
    """Show ``what ... N s`` on stderr while a step runs longer than ``delay`` seconds.

    Only on a terminal (or with ``force``), so piped output and logs stay clean.
    """
    stream = sys.stderr if stream is None else stream
    if not (force or getattr(stream, "isatty", lambda: False)()):
        yield
        return
    done = threading.Event()
    started = time.perf_counter()
    shown = []

    def show() -> None:
        if done.wait(delay):
            return
        while True:
            stream.write(f"\r{what} ... {time.perf_counter() - started:.0f} s")
            stream.flush()
            shown.append(True)
            if done.wait(interval):
                return

    thread = threading.Thread(target=show, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
        if shown:
            stream.write(f"\r{what} ... done in {time.perf_counter() - started:.1f} s\n")
            stream.flush()
