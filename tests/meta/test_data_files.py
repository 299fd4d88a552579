"""The vendored learning-to-rank sample is the one its README describes.

Each file's sha256 is checked as stored (``.gz``) and uncompressed (the hash of the
source repository's file), and the row, query and label counts that
``tests/data/lambdarank/README.md`` states are recomputed from the files.
"""

import gzip
import hashlib
import re
from pathlib import Path

import numpy as np
import pytest

from tests.support import lambdarank

FOLDER = Path(__file__).resolve().parents[1] / "data" / "lambdarank"
TABLE_ROW = re.compile(r"^\| `(rank\.[a-z.]+\.gz)` \|.*\| `([0-9a-f]{64})` \| `([0-9a-f]{64})` \|$")


def _hashes_in_readme():
    rows = [TABLE_ROW.match(line) for line in (FOLDER / "README.md").read_text().splitlines()]
    return {row[1]: (row[2], row[3]) for row in rows if row}


def test_readme_lists_every_file_and_nothing_else():
    shipped = {path.name for path in FOLDER.glob("*.gz")}
    assert set(_hashes_in_readme()) == shipped == {
        "rank.train.gz", "rank.train.query.gz", "rank.test.gz", "rank.test.query.gz"
    }


@pytest.mark.parametrize("name", sorted(_hashes_in_readme()))
def test_file_hashes(name):
    stored, source = _hashes_in_readme()[name]
    raw = (FOLDER / name).read_bytes()
    assert hashlib.sha256(raw).hexdigest() == stored
    assert hashlib.sha256(gzip.decompress(raw)).hexdigest() == source


@pytest.mark.parametrize(
    ("split", "n_rows", "n_queries", "label_counts", "sizes_range"),
    [
        ("train", 3005, 201, [645, 1211, 858, 222, 69], (1, 27)),
        ("test", 768, 50, [206, 256, 252, 44, 10], (6, 24)),
    ],
)
def test_counts_stated_in_the_readme(split, n_rows, n_queries, label_counts, sizes_range):
    X, y, qid, sizes = lambdarank.load(split)
    assert X.shape == (n_rows, 300)
    assert len(sizes) == n_queries and sizes.sum() == n_rows
    assert (sizes.min(), sizes.max()) == sizes_range
    assert np.bincount(y.astype(int)).tolist() == label_counts
    assert np.array_equal(qid, np.repeat(np.arange(n_queries), sizes))
