"""Hostile input to the command line (issue 32): unbounded --resamples, Ctrl-C, a
closed output pipe, comparison options without --baseline, empty standard input,
and the form of warnings.

In-process through ``main([...])`` wherever possible; a subprocess only where a real
signal or a real pipe is the point (few, each bounded by a timeout).
"""

import io
import json
import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest
from sklearn.exceptions import UndefinedMetricWarning

from sklearn_rank_metrics import _cli, read_trec
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


# --------------------------------------------------------------------------- Ctrl-C


def test_interrupt_exits_130_with_one_line(two_runs, capsys, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(_cli, "_evaluate_command", interrupted)
    try:
        status = main(two_runs)
    except KeyboardInterrupt:  # before the fix: the traceback
        status = "KeyboardInterrupt escaped main()"
    assert status == 130
    assert capsys.readouterr().err == "rank-metrics: interrupted\n"


def _wait_until_blocked(process, timeout=60.0):
    """Until ``process`` sleeps (state S) without using CPU for 0.5 s: blocked reading
    its standard input. (A process waiting for a CPU is R, not S.)"""
    stat = Path(f"/proc/{process.pid}/stat")
    deadline = time.monotonic() + timeout
    last, still_since = None, time.monotonic()
    while time.monotonic() < deadline:
        assert process.poll() is None, process.stderr.read()
        fields = stat.read_text().rsplit(")", 1)[1].split()
        state, cpu = fields[0], (fields[11], fields[12])  # utime, stime
        if state != "S" or cpu != last:
            last, still_since = cpu, time.monotonic()
        elif time.monotonic() - still_since > 0.5:
            return
        time.sleep(0.05)
    raise AssertionError("the command never blocked on its standard input")


def _default_sigint():
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_ctrl_c_while_reading_standard_input(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    process = subprocess.Popen(
        [*PYTHON_CLI, "evaluate", "--qrels", str(tmp_path / "qrels.txt"), "--run", "-"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        # a parent that ignores SIGINT (pytest-xdist's workers do) passes that on to
        # its children, and Python then never raises KeyboardInterrupt: restore it
        preexec_fn=_default_sigint,
    )
    try:
        _wait_until_blocked(process)  # standard input stays open: it waits forever
        process.send_signal(signal.SIGINT)
        # wait with standard input still open: communicate() would close it at once,
        # and the read could then end on end-of-file before the signal is handled
        process.wait(timeout=60)
        out, err = process.stdout.read(), process.stderr.read()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdin.close()
        process.stdout.close()
        process.stderr.close()
    assert process.returncode == 130, err
    assert err == "rank-metrics: interrupted\n" and out == ""


# ---------------------------------------------------------------- closed output pipe


class _ClosedPipe(io.StringIO):
    """Standard output whose reader went away (``| head -1``)."""

    def write(self, text):
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self):
        raise BrokenPipeError(32, "Broken pipe")


def test_closed_output_pipe_exits_quietly(two_runs, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdout", _ClosedPipe())
    # before the fix: status 2 (bad input) and "error: Broken pipe"
    assert main(two_runs) == 141
    assert capsys.readouterr().err == ""


def test_closed_output_pipe_in_a_real_pipe(tmp_path):
    # a pipe whose only reader closed before the command wrote anything
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "sys.run").write_text(RUN)
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        result = subprocess.run(
            [*PYTHON_CLI, "evaluate", "--qrels", str(tmp_path / "qrels.txt"), "--run",
             str(tmp_path / "sys.run"), "--per-query", "-"],
            stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=120,
        )
    finally:
        os.close(write_end)
    assert result.returncode == 141 and result.stderr == ""  # 128 + SIGPIPE, as shells


# ------------------------------------------------------------- empty standard input


@pytest.mark.parametrize("mode", [[], ["--answered-only"]])
def test_empty_standard_input_is_refused_as_read_trec_refuses_an_empty_run(tmp_path, capsys,
                                                                          monkeypatch, mode):
    # a run of no line is refused, as trec_eval refuses an empty results file: by
    # read_trec and by --run - given no line, with or without -c, in one line
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(QRELS)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"")))
    status = main(["evaluate", "--qrels", str(qrels), "--run", "-", "--metrics", "map",
                   "--format", "json", *mode])
    captured = capsys.readouterr()
    with pytest.raises(ValueError, match="has no lines") as refused:
        read_trec(qrels, io.BytesIO(b""), answered_only=bool(mode))
    assert status == 2 and captured.out == ""
    # the same sentence after the run's name (<stream> here, stdin there)
    assert str(refused.value).split(" has no lines")[1] in one_error_line(captured)


# ------------------------------------------------------------------------ warnings


def test_warnings_print_as_one_line_of_the_program(tmp_path):
    path = tmp_path / "unjudged.csv"
    path.write_text("group,y_true,y_score\nq,0,0.5\nq,0,0.7\nr,0,0.2\n")
    result = subprocess.run(
        [*PYTHON_CLI, "evaluate", "--table", str(path), "--metrics", "map", "ndcg"],
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 2, result.stderr  # no source line (sys.exit(main()))
    assert lines[0].startswith("rank-metrics: warning: mean_average_precision_score is "
                               "undefined for every one of the 2 queries")
    assert lines[1].startswith("rank-metrics: warning: ndcg_score is undefined")


def test_main_leaves_the_warnings_module_as_it_found_it(tmp_path, capsys):
    path = tmp_path / "unjudged.csv"
    path.write_text("group,y_true,y_score\nq,0,0.5\nq,0,0.7\nr,0,0.2\n")
    before = (warnings.formatwarning, warnings.showwarning, list(warnings.filters))
    # a caller's pytest.warns (or catch_warnings(record=True)) still sees the warning
    with pytest.warns(UndefinedMetricWarning, match="undefined for every one"):
        assert main(["evaluate", "--table", str(path), "--metrics", "map"]) == 0
    assert (warnings.formatwarning, warnings.showwarning, list(warnings.filters)) == before
    assert main(["evaluate", "--table", "missing.csv"]) == 2
    assert (warnings.formatwarning, warnings.showwarning, list(warnings.filters)) == before
    capsys.readouterr()


# --------------------------------------------------------------- the progress line


def test_progress_line_shows_control_characters_in_file_names_as_escapes():
    # "reading <file>" reached the terminal raw: ESC sequences in a file name acted
    stream = io.StringIO()
    with _cli._progress("reading a\x1b[2J\nb.txt", stream=stream, delay=0.0,
                        interval=0.01, force=True):
        time.sleep(0.05)
    text = stream.getvalue()
    assert "\x1b" not in text and "\n" not in text[:-1], repr(text)
    assert text.startswith("\rreading a\\x1b[2J\\nb.txt ... ")
    assert text.endswith("s\n") and "\rreading a\\x1b[2J\\nb.txt ... done in " in text


def test_the_header_counts_one_query_in_the_singular(tmp_path, capsys):
    qrels, run, table = tmp_path / "one.qrels", tmp_path / "two.run", tmp_path / "t.csv"
    qrels.write_text("q 0 a 1\n")
    run.write_text("q Q0 a 1 0.5 x\nz Q0 a 1 0.5 x\n")  # z: only in the run, dropped
    table.write_text("y_true,y_score,group\n1,0.5,1\n")
    assert _cli.main(["evaluate", "--qrels", str(qrels), "--run", str(run),
                      "--metrics", "map"]) == 0
    header = capsys.readouterr().out.split("\n\n", 1)[0]
    assert f"{qrels}: 1 query, every run" in header
    assert "two.run: 1 query only in the run was dropped" in header
    assert "1 queries" not in header
    assert _cli.main(["evaluate", "--table", str(table), "--metrics", "map"]) == 0
    assert capsys.readouterr().out.startswith(f"{table}: y_score: 1 query\n")
