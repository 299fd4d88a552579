"""Loader for the real learning-to-rank sample in ``../shared/data/lambdarank``.

The sample is read where it lies (never copied into the repository). Its folder is
``<repository>/../shared/data/lambdarank`` unless the environment variable
``SKLEARN_RANK_METRICS_DATA`` names the ``data`` folder elsewhere.
"""

import os
from functools import cache
from pathlib import Path

import numpy as np
from sklearn.datasets import load_svmlight_file

DATA_DIR = Path(
    os.environ.get(
        "SKLEARN_RANK_METRICS_DATA", Path(__file__).resolve().parents[1].parent / "shared" / "data"
    )
) / "lambdarank"


@cache
def _load(split):
    data_file = DATA_DIR / f"rank.{split}"
    if not data_file.exists():
        raise FileNotFoundError(
            f"The learning-to-rank sample is missing: {data_file}. Set "
            "SKLEARN_RANK_METRICS_DATA to the folder that holds lambdarank/."
        )
    X, y = load_svmlight_file(str(data_file), n_features=300)
    sizes = np.loadtxt(DATA_DIR / f"rank.{split}.query", dtype=np.int64)
    qid = np.repeat(np.arange(len(sizes)), sizes)
    return X.toarray(), y, qid, sizes


def load(split="test"):
    """``(X, y, qid, sizes)`` of ``rank.train`` or ``rank.test`` as fresh dense arrays.

    ``X`` is (n_rows, 300) float, ``y`` the grades 0..4, ``qid`` the query index of
    every row (queries are contiguous in the files), ``sizes`` the rows per query.
    """
    X, y, qid, sizes = _load(split)
    return X.copy(), y.copy(), qid.copy(), sizes.copy()
