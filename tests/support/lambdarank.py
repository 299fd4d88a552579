"""Loader for the real learning-to-rank sample shipped in ``tests/data/lambdarank``.

The four files of LightGBM's ``examples/lambdarank`` are vendored gzip-compressed in
the repository (source, hashes and licence in ``tests/data/lambdarank/README.md``)
and read compressed. The environment variable ``SKLEARN_RANK_METRICS_DATA`` may name
another ``data`` folder that holds a ``lambdarank/`` folder of the same files.
"""

import os
from functools import cache
from pathlib import Path

import numpy as np
from sklearn.datasets import load_svmlight_file

DATA_DIR = Path(
    os.environ.get("SKLEARN_RANK_METRICS_DATA", Path(__file__).resolve().parents[1] / "data")
) / "lambdarank"


@cache
def _load(split):
    data_file = DATA_DIR / f"rank.{split}.gz"
    if not data_file.exists():
        raise FileNotFoundError(
            f"The learning-to-rank sample is missing: {data_file}. It is part of the "
            "repository (tests/data/lambdarank); SKLEARN_RANK_METRICS_DATA, if set, must "
            "name a folder that holds lambdarank/."
        )
    X, y = load_svmlight_file(str(data_file), n_features=300)
    sizes = np.loadtxt(DATA_DIR / f"rank.{split}.query.gz", dtype=np.int64)
    qid = np.repeat(np.arange(len(sizes)), sizes)
    return X.toarray(), y, qid, sizes


def load(split="test"):
    """``(X, y, qid, sizes)`` of ``rank.train`` or ``rank.test`` as fresh dense arrays.

    ``X`` is (n_rows, 300) float, ``y`` the grades 0..4, ``qid`` the query index of
    every row (queries are contiguous in the files), ``sizes`` the rows per query.
    """
    X, y, qid, sizes = _load(split)
    return X.copy(), y.copy(), qid.copy(), sizes.copy()
