"""The command line: ``python -m sklearn_rank_metrics`` / ``rank-metrics``.

``evaluate`` reads a table, a LETOR file with predictions, or TREC qrels with one or
more runs, and prints :func:`ranking_report` as text, JSON or CSV; ``demo`` runs the
demonstration. Bad input exits with status 2 and one line on stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import sys
import textwrap
import threading
import time
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO

from ._engine._caller import called_as, renamed_as
from ._engine._errors import RowValueError
from ._engine._plain import counted
from ._engine._present import present
from ._metrics._conventions import CONVENTIONS
from ._metrics._evaluate import details_of_rows, plan_metrics
from ._metrics._reading import rows_at_door
from ._metrics._registry import METRICS, parse_metric
from ._metrics._settings import Settings
from ._render import MAX_DIGITS, _csv, _json
from ._render._escape import text as escape_text
from ._render._trec_eval import trec_eval_lines
from ._stats._compare import compare
from ._stats._report import REPORT_METRICS, RankingReport, summarize, with_note
from ._stats._resampling import MAX_RESAMPLES  # --resamples at most, as compare's
from ._version import __version__

PROGRAM = "rank-metrics"
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report a command stopped by Ctrl-C
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE: the reader of the output went away (| head)

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


def _metric_names_for_help() -> str:
    """Every registry name, ``name[@k]`` where it takes a cutoff: read, not hand-kept."""
    return ", ".join(f"{name}[@k]" if info.takes_k else name for name, info in METRICS.items())


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
        help=f"metric names as in evaluate(): {_metric_names_for_help()}, with parameters "
        "as 'name(param=value)@k', or as trec_eval, ir_measures and ranx name them (P_10, "
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
                         help="digits after the decimal point in the text report "
                         f"(0 to {MAX_DIGITS})")
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
    """Run the command line; return the exit status.

    The console script and ``python -m`` call it through ``__main__.main``, which
    imports this module under the same Ctrl-C handling.
    """
    # warnings as 'rank-metrics: warning: ...' while main runs, restored on return.
    # formatwarning, not showwarning: a caller that records warnings (pytest.warns,
    # catch_warnings(record=True)) still receives them, unformatted
    formatted_by = warnings.formatwarning
    warnings.formatwarning = _format_warning
    try:
        args = _build_parser().parse_args(argv)
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


@dataclass
class LoadedRuns:
    """What the files gave: every run's scores and the facts the report shows.

    ``data`` holds the rows every run shares (labels, query ids; ``None`` when each
    run brings its own rows, ``--answered-only``: then ``runs`` maps a name to that
    run's :class:`RankingData`). The TREC facts are ``None`` for a table or LETOR file.
    """

    source: str
    runs: dict[str, Any]
    data: Any = None
    answered_only: bool | None = None
    n_qrels_queries: int | None = None
    n_answered: Mapping[str, int | None] | None = None
    n_dropped_queries: dict[str, int] | None = None
    run_ids: dict[str, str | None] = field(default_factory=dict)

    @property
    def convention(self) -> str | None:
        """The convention the rows were read under (TREC files: ``"trec_eval"``)."""
        rows = self.data if self.data is not None else next(iter(self.runs.values()))
        return getattr(rows, "convention", None)


# the run options of each source
_RUN_OPTIONS = (("y_score", "table"), ("predictions", "letor"), ("run", "qrels"))


def _source(args: argparse.Namespace) -> str:
    """The one source given (table, letor or qrels), its options checked."""
    chosen = [name for name in ("table", "letor", "qrels") if getattr(args, name)]
    if len(chosen) != 1:
        raise _BadInput("give exactly one of --table, --letor, --qrels")
    source = chosen[0]
    owners = [*_RUN_OPTIONS, ("keep_unretrieved_queries", "qrels"), ("answered_only", "qrels")]
    for option, owner in owners:
        if getattr(args, option) and source != owner:
            raise _BadInput(f"--{option.replace('_', '-')} goes with --{owner}")
    if args.answered_only and args.keep_unretrieved_queries:
        raise _BadInput("--answered-only and -c (--keep-unretrieved-queries) contradict")
    if args.group_sizes and source != "letor":
        raise _BadInput("--group-sizes goes with --letor")
    return source


def _load_runs(args: argparse.Namespace) -> LoadedRuns:
    """Read the source and the runs the arguments name."""
    loader = {"table": _load_table, "letor": _load_letor, "qrels": _load_qrels}
    return loader[_source(args)](args)


def _load_table(args: argparse.Namespace) -> LoadedRuns:
    """--table: one score column per run, on the same rows."""
    from ._io import read_table

    columns = args.y_score or ["y_score"]
    _resolve_baseline(args, {column: column for column in columns}, "--y-score")
    runs = {}
    for column in columns:
        with _progress(f"reading {args.table}"):
            data = read_table(args.table, y_true=args.y_true, y_score=column, group=args.group)
        runs[column] = data.y_score
    return LoadedRuns(args.table, runs, data)


def _load_letor(args: argparse.Namespace) -> LoadedRuns:
    """--letor: one predictions file per run, on the file's rows."""
    from ._io import read_letor

    if not args.predictions:
        raise _BadInput("--letor needs at least one --predictions file")
    names = _run_names(args.predictions)
    _resolve_baseline(args, names, "--predictions")
    runs = {}
    for name, path in names.items():
        with _progress(f"reading {args.letor} with {path}"):
            data = read_letor(args.letor, scores=path, group_sizes=args.group_sizes)
        runs[name] = data.y_score
    return LoadedRuns(args.letor, runs, data)


def _load_qrels(args: argparse.Namespace) -> LoadedRuns:
    """--qrels: TREC runs, each on its own rows (--answered-only) or all aligned on
    the qrels' queries (trec_eval -c)."""
    if not args.run:
        raise _BadInput("--qrels needs at least one --run file")
    if args.run.count("-") > 1:
        raise _BadInput("--run - (standard input) can be given once")
    names = _run_names(args.run)
    _resolve_baseline(args, names, "--run")
    named = {name: sys.stdin.buffer if path == "-" else path for name, path in names.items()}
    if args.answered_only:
        return _load_answered_only(args.qrels, named)
    return _load_aligned(args.qrels, named)


def _load_answered_only(qrels: str, named: dict[str, Any]) -> LoadedRuns:
    """Each run on its own rows and the queries it answers (trec_eval without -c)."""
    from ._io._trec import join_trec_sources

    joins: dict[str, Any] = {}
    for name, run in named.items():
        with _progress(f"reading {qrels} and {name}"):
            joins[name] = join_trec_sources(qrels, run, answered_only=True, single_precision=False)
    return LoadedRuns(
        qrels,
        {name: join.data for name, join in joins.items()},
        None,
        True,
        n_qrels_queries=next(reversed(joins.values())).n_qrels_queries,  # the same qrels
        n_answered={name: join.data.n_answered_queries for name, join in joins.items()},
        n_dropped_queries={name: join.data.n_dropped_queries for name, join in joins.items()},
        run_ids={name: join.run_id for name, join in joins.items()},
    )


def _load_aligned(qrels: str, named: dict[str, Any]) -> LoadedRuns:
    """Every run on the same rows and the qrels' queries (trec_eval -c)."""
    from ._io import align_trec_runs

    with _progress(f"reading {qrels} and {len(named)} run(s)"):
        aligned = align_trec_runs(qrels, named)
    return LoadedRuns(
        qrels,
        dict(aligned.scores),
        aligned,
        False,
        n_qrels_queries=aligned.n_queries,
        n_answered=aligned.n_answered,
        n_dropped_queries=aligned.n_dropped_queries,
        run_ids=aligned.run_ids,
    )


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


@dataclass
class EvaluatedRuns:
    """Every run's summaries (for the report), details (per query) and query count."""

    summaries: dict[str, dict[str, Any]] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)
    query_counts: dict[str, int] = field(default_factory=dict)


def _evaluate_command(args: argparse.Namespace, out: TextIO) -> None:
    """Parse the metrics and settings, load the runs, evaluate them, render the report."""
    _comparison_options(args)
    # names as trec_eval, ir_measures or ranx write them are printed in canonical form
    given_names = list(args.metrics)
    with renamed_as("rank-metrics evaluate"):
        args.metrics = [str(parse_metric(name)) for name in args.metrics]
    policy = _policy(args.replace_undefined_by)
    loaded = _load_runs(args)
    if args.convention is None:  # the rows' own, as evaluate(data): TREC files trec_eval's
        args.convention = loaded.convention or "none"
    settings = {
        "convention": args.convention,
        "ties": args.ties,
        "replace_undefined_by": policy,
        "relevance_level": args.relevance_level,
    }
    evaluated = _evaluate_runs(args.metrics, loaded, settings)
    if args.per_query and args.per_query != "-":
        _write_per_query(args.per_query, evaluated.details)
    comparison = None
    if args.baseline is not None:
        comparison = _compare_runs(args, loaded.data, loaded.runs, settings)
    if args.format == "trec_eval":  # trec_eval -q, run after run
        _print_trec_eval(out, given_names, evaluated, loaded.run_ids)
    else:
        report = RankingReport(
            evaluated.summaries, comparison, args.baseline, args.digits, name_one_model=False
        )
        _print_report(out, args, report, loaded, evaluated.query_counts, settings)
    if args.per_query == "-":  # standard output, after the report
        out.write("\n")
        _write_per_query(out, evaluated.details)


def _evaluate_runs(
    metrics: list[str], loaded: LoadedRuns, settings: dict[str, Any]
) -> EvaluatedRuns:
    """Every run's details, the shared rows checked once; a bad row is named by its
    file and line."""
    evaluated = EvaluatedRuns()
    with called_as("rank-metrics evaluate"):
        plan = plan_metrics(metrics, settings)
    shared = None  # the rows every run scores (a table, LETOR, TREC runs aligned)
    for name, scores in loaded.runs.items():
        # TREC runs without -c each bring their own rows (the run and the qrels)
        run_data = scores if loaded.data is None else loaded.data
        y_score = scores.y_score if loaded.data is None else scores
        try:
            with called_as("rank-metrics evaluate"):
                if shared is None:
                    rows = rows_at_door(
                        run_data.y_true, y_score, run_data.group,
                        judged=getattr(run_data, "judged", None),
                        doc_id=_document_ids(run_data), convention=plan.convention,
                    )
                    shared = rows if loaded.data is not None else None
                else:
                    rows = shared.with_scores(y_score)
                if rows.doc is not None:  # each TREC run with its own line order
                    rows = replace(rows, doc=rows.doc.for_run(name))
                details = details_of_rows(rows, plan)
        except RowValueError as error:  # name the file and line of the row
            locate = getattr(run_data, "_row_location", None)
            if locate is None:
                raise
            raise _BadInput(f"{locate(error.row)}: {error}") from None
        evaluated.summaries[name] = {m: summarize(d) for m, d in details.metrics.items()}
        evaluated.details[name] = details
        evaluated.query_counts[name] = len(set(run_data.group.tolist()))
    return evaluated


def _document_ids(rows: Any, run: str | None = None) -> Any:
    """The rows' document ids as they carry them (with each TREC run's line order,
    the tie order of cwl_eval), for run ``run`` of several; None for a table."""
    if not hasattr(rows, "carried"):
        return None
    ids = rows.carried()["doc_id"]
    return ids.for_run(run) if run is not None and hasattr(ids, "for_run") else ids


def _print_trec_eval(
    out: TextIO, given_names: list[str], evaluated: EvaluatedRuns, run_ids: dict[str, Any]
) -> None:
    """trec_eval -q's lines, run after run, the measures as the user named them (P_10)."""
    for name, details in evaluated.details.items():
        named = dict(zip(given_names, details.metrics.values(), strict=True))
        out.write(trec_eval_lines(details.query_ids, named, run_id=run_ids.get(name)))


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
        result = compare(
            data.y_true,
            runs,
            data.group,
            metrics=args.metrics,
            baseline=args.baseline,
            correction=args.correction,
            judged=getattr(data, "judged", None),
            # the tie order of a convention that orders ties by document id
            doc_id=_document_ids(data),
            n_resamples=args.resamples,
            random_state=args.seed,
            **settings,
        )
    # the header above the report names the convention once, for every table
    return dataclasses.replace(result, settings=None)


def _digits(text: str) -> int:
    """``--digits``: an int from 0 to :data:`MAX_DIGITS` (that of every ``digits=``),
    checked when the arguments are read (before any output)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= MAX_DIGITS:
        raise argparse.ArgumentTypeError(
            f"must be an int from 0 to {MAX_DIGITS} (a float64 has {MAX_DIGITS} "
            f"significant digits); got {text!r}"
        )
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
    report: RankingReport,
    loaded: LoadedRuns,
    query_counts: dict[str, int],
    settings: dict[str, Any],
) -> None:
    """The report in ``--format`` (every format but trec_eval)."""
    if args.format == "json":
        out.write(_json_report(args.convention, report, loaded, query_counts) + "\n")
    elif args.format == "csv":
        out.write(report.to_csv())
    elif args.format in ("markdown", "latex"):
        counts = ", ".join(f"{name}: {count}" for name, count in query_counts.items())
        which = "each run answered in" if loaded.answered_only else "of"
        caption = with_note(
            f"Means over the queries {which} {loaded.source} ({counts}).",
            Settings.from_arguments(**settings),
        )
        render = report.to_markdown if args.format == "markdown" else report.to_latex
        text = render(caption=caption, alpha=args.alpha, digits=args.digits)
        out.write(text if text.endswith("\n") else text + "\n")  # LaTeX ends with one
    else:
        header = _text_header(settings, loaded, query_counts)
        out.write("\n".join(header) + "\n\n")
        out.write(report.to_text(alpha=args.alpha, digits=args.digits) + "\n")


def _json_report(
    convention: str, report: RankingReport, loaded: LoadedRuns, query_counts: dict[str, int]
) -> str:
    """The source's facts, the results and the comparison as one JSON document."""
    document: dict[str, Any] = {
        "source": loaded.source,
        "convention": convention,
        "n_queries": query_counts,
        "answered_only": loaded.answered_only,
        "n_qrels_queries": loaded.n_qrels_queries,
        "n_answered_queries": loaded.n_answered,
        "n_dropped_queries": loaded.n_dropped_queries,
        "results": report.summaries,
    }
    if report.comparison is not None:
        document["comparison"] = report.comparison.records()
    return _json.render(document)


def _text_header(
    settings: dict[str, Any], loaded: LoadedRuns, query_counts: dict[str, int]
) -> list[str]:
    """The lines above the text report: the source, its queries, the convention, and
    the queries dropped from each run. File and run names are shown through
    :func:`._render._escape.text` (control characters as escapes): a name cannot
    break a line or reach the terminal as a control sequence."""
    source = escape_text(loaded.source)
    if loaded.n_answered is not None:  # TREC runs: say which queries each mean is over
        n_queries = counted(present(loaded.n_qrels_queries, "n_qrels_queries"), "query")
        answered = ", ".join(
            f"{escape_text(name)} {count}" for name, count in loaded.n_answered.items()
        )
        if loaded.answered_only:
            lines = [f"{source}: {n_queries}; each run "
                     "averaged over the queries it answered, as trec_eval without -c "
                     f"(answered: {answered})"]
        else:
            lines = [f"{source}: {n_queries}, every run "
                     "averaged over all of them, a query it did not answer at 0 as "
                     f"trec_eval -c (answered: {answered})"]
    else:
        lines = [f"{source}: " + ", ".join(
            f"{escape_text(name)}: {counted(count, 'query')}"
            for name, count in query_counts.items()
        )]
    described = Settings.from_arguments(**settings).described()
    if described is not None:
        lines.append(described)
    for name, count in (loaded.n_dropped_queries or {}).items():
        if count:
            lines.append(
                f"{escape_text(name)}: {counted(count, 'query')} only in the run "
                f"{'was' if count == 1 else 'were'} dropped "
                "(as trec_eval)"
            )
    return lines


def _write_per_query(destination: str | TextIO, per_query: dict[str, Any]) -> None:
    """One row per (run, query): run, query, then one column per metric."""
    metrics = list(next(iter(per_query.values())).metrics)
    rows = (
        [run, query, *(float(details.metrics[metric].values[position]) for metric in metrics)]
        for run, details in per_query.items()
        for position, query in enumerate(details.query_ids.tolist())
    )
    with contextlib.ExitStack() as stack:
        handle = (
            stack.enter_context(open(destination, "w", newline=""))
            if isinstance(destination, str)
            else destination
        )
        _csv.write(handle, ["run", "query", *metrics], rows)


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
    Control characters in ``what`` (a file name) are shown as escapes.
    """
    what = escape_text(what)
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
