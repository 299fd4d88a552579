"""Hostile input to the command line (issue 32): unbounded --resamples, Ctrl-C, a
closed output pipe, comparison options without --baseline, empty standard input,
and the form of warnings.

In-process through ``main([...])`` wherever possible; a subprocess only where a real
signal or a real pipe is the point (few, each bounded by a timeout).
"""

import json
import sys

import pytest

from sklearn_rank_metrics import _cli
from sklearn_rank_metrics._cli import main

PYTHON_CLI = [sys.executable, "-m", "sklearn_rank_metrics"]

QRELS = "1 0 d1 1\n1 0 d2 0\n2 0 d3 2\n2 0 d4 0\n3 0 d5 1\n"
RUN = "1 Q0 d2 1 2.0 sys\n1 Q0 d1 2 1.0 sys\n2 Q0 d3 1 1.0 sys\n"


@pytest.fixture
def two_runs(tmp_path):
    """A table with two score columns (for --baseline) and 3 queries."""
    path = tmp_path / "runs.csv"
    path.write_text(
        "group,y_true,a,b\n"
        "q1,1,0.9,0.1\nq1,0,0.2,0.8\n"
        "q2,2,0.5,0.4\nq2,0,0.1,0.6\n"
        "q3,1,0.3,0.3\nq3,0,0.7,0.2\n"
    )
    return ["evaluate", "--table", str(path), "--y-score", "a", "--y-score", "b",
            "--metrics", "map"]


def one_error_line(captured):
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("rank-metrics: error: "), lines[0]
    return lines[0]


# --------------------------------------------------------------------- --resamples


@pytest.mark.parametrize("value", ["1000000000", "1000001", "0", "-5", "10**9"])
def test_resamples_out_of_bounds_is_refused_in_one_line(two_runs, value, capsys):
    # 10**9 resamples ended in a MemoryError traceback (a 37 GB distribution)
    assert main([*two_runs, "--baseline", "a", "--resamples", value]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    line = one_error_line(captured)
    assert "--resamples" in line and "1,000,000" in line and repr(value) in line


def test_resamples_limit_is_inclusive_and_documented():
    parser = _cli._build_parser()
    args = parser.parse_args(["evaluate", "--table", "t.csv", "--resamples", "1000000"])
    assert args.resamples == 1_000_000 == _cli.MAX_RESAMPLES
    assert "1,000,000" in " ".join(
        parser._subparsers._group_actions[0].choices["evaluate"].format_help().split()
    )


# ------------------------------------------------- comparison options need --baseline


@pytest.mark.parametrize(
    "option, value",
    [("--alpha", "0.01"), ("--correction", "holm"), ("--resamples", "50"), ("--seed", "3")],
)
def test_comparison_options_without_baseline_are_refused(two_runs, option, value, capsys):
    # they were accepted and silently ignored
    assert main([*two_runs, option, value]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    line = one_error_line(captured)
    assert f"{option} goes with --baseline" in line


def test_comparison_options_with_baseline_still_apply(two_runs, capsys):
    assert main([*two_runs, "--baseline", "a", "--alpha", "0.2", "--correction", "holm",
                 "--resamples", "40", "--seed", "1", "--format", "json"]) == 0
    comparison = json.loads(capsys.readouterr().out)["comparison"]
    assert len(comparison) == 1 and "p_value_permutation_holm" in comparison[0]
