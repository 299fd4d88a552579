"""Issue 32 (hostile input, round 3): the readers' memory, line endings, BOM, single
read, path errors and mixed id types.

Every test here failed before its fix (checked against the previous commit).
"""

from __future__ import annotations

import gzip
import re
import tracemalloc

import pytest

from sklearn_rank_metrics import (
    evaluate,
    read_recommendations,
    read_table,
    read_trec,
)

LONG = 5000  # characters of the one hostile id
N_ROWS = 10_000


def _peak_bytes(call):
    """Peak traced allocation (bytes) while ``call()`` runs."""
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# --------------------------------------------------------------------------- memory


def _trec_files(tmp_path):
    """A run of N_ROWS rows (100 queries) whose first docno has LONG characters."""
    run, qrels = tmp_path / "long.run", tmp_path / "long.qrels"
    lines = [
        f"q{i // 100} Q0 {'D' * LONG if i == 0 else f'doc{i}'} {i % 100 + 1} "
        f"{1.0 / (i % 100 + 1)} tag\n"
        for i in range(N_ROWS)
    ]
    run.write_text("".join(lines))
    qrels.write_text("".join(f"q{i // 100} 0 doc{i} {i % 3}\n" for i in range(0, N_ROWS, 7)))
    return qrels, run


def test_a_long_docno_costs_memory_in_proportion_to_the_run(tmp_path):
    # before: every docno was copied as <U5000 (N_ROWS x 5000 x 4 bytes = 200 MB) when
    # joining, and again when a convention sorted the docnos
    qrels, run = _trec_files(tmp_path)
    size = run.stat().st_size + qrels.stat().st_size

    def read_and_evaluate():
        data = read_trec(qrels, run)
        assert data.doc_id[-1] == "D" * LONG or "D" * LONG in data.doc_id.tolist()
        evaluate(data, metrics=["ndcg@10"], convention="trec_eval")

    assert _peak_bytes(read_and_evaluate) < 30 * size


def test_a_long_docno_in_a_file_with_comments_costs_memory_in_proportion(tmp_path):
    # the plain reader (a comment line sends the file there) built <U5000 arrays too
    qrels, run = _trec_files(tmp_path)
    run.write_text("# a comment\n" + run.read_text())
    size = run.stat().st_size + qrels.stat().st_size
    assert _peak_bytes(lambda: read_trec(qrels, run)) < 30 * size


def test_a_long_id_in_a_csv_costs_memory_in_proportion(tmp_path):
    # before: _typed_ids copied the ids as <U5000 to check whether they are integers
    path = tmp_path / "long.csv"
    rows = [f"{'G' * LONG if i == 0 else i // 10},{i % 2},{i / N_ROWS}" for i in range(N_ROWS)]
    path.write_text("group,y_true,y_score\n" + "\n".join(rows) + "\n")
    size = path.stat().st_size
    data = read_table(path, group="group")
    assert data.group[0] == "G" * LONG and data.group[1] == "0"  # text: not all integers
    assert _peak_bytes(lambda: read_table(path, group="group")) < 30 * size


def test_a_long_user_id_costs_memory_in_proportion():
    users = {("U" * LONG if u == 0 else f"u{u}"): [f"i{u}", "x"] for u in range(N_ROWS // 2)}
    relevant = {user: {"x"} for user in users}
    data = read_recommendations(users, relevant)
    assert data.group[0] == "U" * LONG
    # before: 300 MB (the user ids as <U5000, repeated for every row); now about 360
    # bytes a user, whatever the longest id
    assert _peak_bytes(lambda: read_recommendations(users, relevant)) < 1000 * len(users)


def test_a_small_gz_that_expands_to_a_lot_is_refused(tmp_path):
    # before: decompressed whole (a 249 KB file reached 6.3 GB of memory)
    path = tmp_path / "bomb.csv.gz"
    with gzip.open(path, "wb", compresslevel=9) as handle:
        handle.write(b"group,y_true,y_score\n")
        for _ in range(4):
            handle.write(b"q1,1,0.5\n" * 1_000_000)  # 36 MB, compressed to ~70 KB
    size = path.stat().st_size
    message = (
        f"read_table: {path} expands to more than {16 * 2**20:,} bytes when decompressed "
        f"(100 times its {size:,} bytes, or 16 MiB for a small file)"
    )
    peak = []

    def read():
        with pytest.raises(ValueError, match=re.escape(message)):
            read_table(path, group="group")

    peak.append(_peak_bytes(read))
    assert peak[0] < 2 * (16 * 2**20 + 2**24)  # the limit and one block, at most twice


def test_a_gz_within_the_limit_reads(tmp_path):
    path = tmp_path / "ok.csv.gz"
    with gzip.open(path, "wb") as handle:
        handle.write(b"group,y_true,y_score\nq1,1,0.5\nq1,0,0.25\n")
    data = read_table(path, group="group")
    assert data.y_score.tolist() == [0.5, 0.25]
