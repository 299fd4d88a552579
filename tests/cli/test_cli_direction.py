"""The command line's --baseline markers and win/tie/loss read the declared direction.

The data of tests/stats/test_direction.py: "good" has the lower fall-out@1 (better)
and the higher nDCG@1 on 8 of 10 queries, level on 2 (by hand).
"""

import csv
import json

import numpy as np

from sklearn_rank_metrics._cli import main

N_QUERIES = 10


def _table(path):
    y = np.tile([1, 0, 0, 0], N_QUERIES)
    group = np.repeat(np.arange(N_QUERIES), 4)
    good = np.tile([4.0, 3.0, 2.0, 1.0], N_QUERIES)
    bad = good.copy()
    bad[: 4 * 8] = np.tile([1.0, 4.0, 3.0, 2.0], 8)
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["query", "grade", "good", "bad"])
        for row in zip(group, y, good, bad, strict=True):
            writer.writerow([f"q{row[0]}", *(repr(float(v)) for v in row[1:])])
    return path


def _arguments(path, *extra):
    return [
        "evaluate", "--table", str(path), "--group", "query", "--y-true", "grade",
        "--y-score", "good", "--y-score", "bad", "--baseline", "bad",
        "--metrics", "fallout@1", "ndcg@1", "--resamples", "1024", *extra,
    ]  # fmt: skip


def test_baseline_markers_credit_the_lower_fallout(tmp_path, capsys):
    path = _table(tmp_path / "scores.csv")
    assert main(_arguments(path)) == 0
    lines = capsys.readouterr().out.split("Paired comparison", 1)[1].splitlines()
    good = next(line for line in lines if line.split()[:2] == ["a", "good"])
    bad = next(line for line in lines if line.split()[:2] == ["b", "bad"])
    assert good.split()[2:] == ["0.0000ᵇ", "1.0000ᵇ"]
    assert bad.split()[2:] == ["0.2667", "0.2000"]
    wins = next(line for line in lines if "win/tie/loss" in line)
    assert wins.split()[-2:] == ["8/2/0", "8/2/0"]


def test_baseline_json_wins_read_the_direction(tmp_path, capsys):
    path = _table(tmp_path / "scores.csv")
    assert main(_arguments(path, "--format", "json")) == 0
    rows = json.loads(capsys.readouterr().out)["comparison"]
    fallout = next(row for row in rows if row["metric"] == "fallout@1")
    assert (fallout["wins"], fallout["ties"], fallout["losses"]) == (8, 2, 0)
