"""Seeded TREC files shaped like a web-track run, shared by the TREC benchmarks.

``bench_trec_files.py`` (against trec_eval), ``bench_trec_read.py`` (the reader alone)
and ``bench_doc_ids.py`` (string ids) read the same kind of files: ClueWeb09-style
docnos, scores rounded to 3 decimals (as a run prints them, so some tie), qrels that
judge documents in and out of the run.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

CHUNK = 100  # queries written at a time


def docnos(codes: np.ndarray) -> np.ndarray:
    """ClueWeb09-style docnos (``clueweb09-en0012-34567``) of integer codes below 10**9."""
    return np.char.add(
        np.char.add("clueweb09-en", np.char.zfill((codes // 100_000).astype(str), 4)),
        np.char.add("-", np.char.zfill((codes % 100_000).astype(str), 5)),
    )


def write_trec_files(
    folder: Path, n_queries: int, n_docs: int, n_judged: int, seed: int = 0
) -> tuple[Path, Path]:
    """A run of ``n_queries`` x ``n_docs`` lines (docnos distinct within a query, scores
    to 3 decimals, ranked by score) and qrels judging ``n_judged`` documents a query (two
    thirds of them among the run's top ranks, the rest not in the run), seeded; written a
    chunk of queries at a time. Returns the qrels and run paths."""
    rng = np.random.default_rng(seed)
    run, qrels = folder / "run.txt", folder / "qrels.txt"
    in_run = 2 * n_judged // 3
    with run.open("w") as run_file, qrels.open("w") as qrels_file:
        for first in range(0, n_queries, CHUNK):
            queries = np.arange(first, min(first + CHUNK, n_queries))
            # distinct within a query (a docno twice is an error to trec_eval): the
            # column index in the low digits
            codes = rng.integers(0, 10**8 // n_docs, size=(len(queries), n_docs)) * n_docs
            codes += np.arange(n_docs)
            scores = np.round(rng.random((len(queries), n_docs)) * 10, 3)
            order = np.argsort(-scores, axis=1, kind="stable")
            scores = np.take_along_axis(scores, order, axis=1)
            codes = np.take_along_axis(codes, order, axis=1)
            query_text = np.repeat((queries + 1).astype(str), n_docs)
            ranks = np.tile(np.arange(1, n_docs + 1).astype(str), len(queries))
            lines = [
                f"{q} Q0 {d} {r} {s:.3f} bench\n"
                for q, d, r, s in zip(
                    query_text, docnos(codes.reshape(-1)), ranks, scores.reshape(-1),
                    strict=True,
                )
            ]
            run_file.writelines(lines)
            n_extra = n_judged - in_run
            extra = rng.integers(0, 10**8 // max(n_extra, 1), size=(len(queries), n_extra))
            extra = 10**8 + extra * n_extra + np.arange(n_extra)  # judged, not in the run
            judged = np.concatenate([codes[:, : in_run * 3][:, ::3], extra], axis=1)
            labels = rng.choice([0, 0, 0, 1, 2], size=judged.shape)
            qrels_text = np.repeat((queries + 1).astype(str), judged.shape[1])
            qrels_file.writelines(
                f"{q} 0 {d} {label}\n"
                for q, d, label in zip(qrels_text, docnos(judged.reshape(-1)),
                                       labels.reshape(-1), strict=True)
            )
    return qrels, run
