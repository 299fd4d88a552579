"""A short demonstration: ``python -m sklearn_rank_metrics.demo`` (or ``rank-metrics demo``).

1. Makes synthetic queries with :func:`make_ranking` (graded labels that depend on
   a few features).
2. Tunes a scikit-learn regressor with ``GridSearchCV`` over ``GroupKFold``, scored by
   mean NDCG@10 over the queries of each fold.
3. Prints :func:`ranking_report` for the tuned model against a random ranking on
   held-out queries.
4. Writes those scores to a CSV file and evaluates it with the command line (run as
   ``python -m sklearn_rank_metrics`` in a child process, as a user would type it).

Everything runs in the base install (NumPy, SciPy, scikit-learn). The exit status is
0 only when every step succeeded; a failing step exits with its own non-zero status.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import sklearn
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.model_selection import GridSearchCV, GroupKFold, GroupShuffleSplit

from . import make_ranking, make_ranking_scorer, ranking_report

METRICS = ["ndcg@10", "map", "mrr@10", "p@5", "recall@10"]


def main() -> int:
    """Run the demonstration, print what each step does, and return the exit status."""
    started = time.perf_counter()
    X, y, qid = make_ranking(
        n_queries=300, docs_per_query=(10, 40), n_features=10, noise=1.5, random_state=0
    )
    train, test = next(GroupShuffleSplit(test_size=0.3, random_state=0).split(X, y, qid))
    print(
        f"make_ranking: {len(np.unique(qid))} queries, {len(y)} rows, labels 0..4; "
        f"{len(np.unique(qid[test]))} queries held out\n"
    )

    search = GridSearchCV(
        HistGradientBoostingRegressor(max_iter=60, random_state=0),
        {"max_depth": [2, 4], "learning_rate": [0.05, 0.2]},
        cv=GroupKFold(3),  # whole queries per fold
        scoring=make_ranking_scorer("ndcg@10"),  # mean NDCG@10 over each fold's queries
    )
    # metadata routing sends the query ids to GroupKFold and to the scorer; the context
    # keeps scikit-learn's global configuration unchanged
    with sklearn.config_context(enable_metadata_routing=True):
        search.fit(X[train], y[train], groups=qid[train])
    print("GridSearchCV(HistGradientBoostingRegressor, cv=GroupKFold(3), scoring=ndcg@10)")
    for params, score in zip(
        search.cv_results_["params"], search.cv_results_["mean_test_score"], strict=True
    ):
        best = "  <- best" if params == search.best_params_ else ""
        print(f"  {params}  ndcg@10 {score:.4f}{best}")

    scores = {
        "tuned model": search.predict(X[test]),
        "random": np.random.default_rng(1).random(len(test)),
    }
    print("\nranking_report on the held-out queries:\n")
    print(ranking_report(y[test], scores, qid[test], metrics=METRICS))

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "held_out.csv"
        _write_csv(path, qid[test], y[test], scores)
        arguments = [
            "evaluate", "--table", str(path), "--group", "qid", "--y-true", "label",
            "--y-score", "tuned model", "--y-score", "random", "--metrics", "ndcg@10", "map",
        ]
        shown = " ".join(f"'{a}'" if " " in a else a for a in arguments)
        print(
            f"\nThe same scores as a CSV file, from the command line:\n$ rank-metrics {shown}",
            flush=True,
        )
        command = [sys.executable, "-m", "sklearn_rank_metrics", *arguments]
        status = subprocess.run(command).returncode
    if status != 0:
        print(f"\ndemo: the command line failed with exit status {status}", file=sys.stderr)
        return status
    print(f"\n(demo ran in {time.perf_counter() - started:.1f} s)")
    return 0


def _write_csv(path: Path, qid: np.ndarray, label: np.ndarray, scores: dict) -> None:
    columns = {"qid": qid, "label": label, **scores}
    header = ",".join(columns)
    rows = np.column_stack([np.asarray(column, dtype=np.float64) for column in columns.values()])
    np.savetxt(path, rows, delimiter=",", header=header, comments="", fmt="%.17g")


if __name__ == "__main__":
    sys.exit(main())
