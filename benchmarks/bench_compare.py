"""Time `compare` against SciPy on the same per-query differences.

One paired comparison of two models over 10,000 queries with 10,000 resamples:
ours computes the per-query NDCG@10 of both models (one sort each), the percentile
and BCa bootstrap intervals, the paired t-test and the sign-flip randomisation test.
SciPy gets the per-query differences for free (computed beforehand) and runs
``scipy.stats.bootstrap`` (percentile, then BCa; ``vectorized=True``),
``scipy.stats.permutation_test`` (``permutation_type="samples"``, vectorised) and
``scipy.stats.ttest_rel``. Calls alternate (ours, SciPy, ours, ...); the medians and
their ratio are printed. Peak memory is not compared (both chunk their resamples).

    python benchmarks/bench_compare.py [--queries 10000] [--resamples 10000] [--repeats 3]
"""

from __future__ import annotations

import statistics
import time

import numpy as np
from options import option_parser  # benchmarks/options.py
from scipy import stats

from sklearn_rank_metrics import compare, evaluate


def make_data(n_queries: int, docs_per_query: int = 10, seed: int = 0):
    rng = np.random.default_rng(seed)
    group = np.repeat(np.arange(n_queries), docs_per_query)
    y_true = rng.integers(0, 4, len(group)).astype(float)
    scores = {
        "a": y_true + 2.0 * rng.normal(size=len(group)),
        "b": y_true + 2.1 * rng.normal(size=len(group)),
    }
    return y_true, scores, group


def ours(y_true, scores, group, n_resamples):
    return compare(
        y_true, scores, group, metrics="ndcg@10", n_resamples=n_resamples, random_state=0
    )


def scipy_calls(differences, n_resamples):
    """The same statistics from SciPy, on precomputed per-query differences."""
    rng = np.random.default_rng(0)
    data = (differences,)
    percentile = stats.bootstrap(
        data, np.mean, n_resamples=n_resamples, method="percentile", vectorized=True,
        random_state=rng,
    )
    bca = stats.bootstrap(
        data, np.mean, n_resamples=n_resamples, method="BCa", vectorized=True,
        random_state=rng,
    )

    def mean_difference(x, y, axis):
        return np.mean(x - y, axis=axis)

    permutation = stats.permutation_test(
        (differences, np.zeros_like(differences)), mean_difference,
        permutation_type="samples", n_resamples=n_resamples, vectorized=True,
        random_state=rng,
    )
    t_test = stats.ttest_rel(differences, np.zeros_like(differences))
    return percentile, bca, permutation, t_test


def main() -> None:
    parser = option_parser(__doc__.splitlines()[0], queries=10_000, resamples=10_000, repeats=3)
    args = parser.parse_args()

    y_true, scores, group = make_data(args.queries)
    per_query = evaluate(y_true, scores["a"], group, metrics="ndcg@10", per_query=True)
    other = evaluate(y_true, scores["b"], group, metrics="ndcg@10", per_query=True)
    differences = np.asarray(per_query["ndcg@10"]) - np.asarray(other["ndcg@10"])

    result = ours(y_true, scores, group, args.resamples)
    scipy_result = scipy_calls(differences, args.resamples)
    table = result.table
    print(f"mean difference        ours {float(table['mean_difference'][0]):+.6f}  "
          f"scipy {differences.mean():+.6f}")
    print(f"p (t-test)             ours {float(table['p_value_t'][0]):.6f}  "
          f"scipy {scipy_result[3].pvalue:.6f}")
    print(f"p (randomisation)      ours {float(table['p_value_permutation'][0]):.4f}  "
          f"scipy {scipy_result[2].pvalue:.4f}  (Monte-Carlo, different draws)")
    scipy_bca = scipy_result[1].confidence_interval
    print(f"95% BCa interval       ours [{float(table['ci_low_bca'][0]):.5f}, "
          f"{float(table['ci_high_bca'][0]):.5f}]  "
          f"scipy [{scipy_bca.low:.5f}, {scipy_bca.high:.5f}]  (different draws)")

    times: dict[str, list[float]] = {"ours": [], "scipy": []}
    for _ in range(args.repeats):
        start = time.perf_counter()
        ours(y_true, scores, group, args.resamples)
        times["ours"].append(time.perf_counter() - start)
        start = time.perf_counter()
        scipy_calls(differences, args.resamples)
        times["scipy"].append(time.perf_counter() - start)
    ours_median = statistics.median(times["ours"])
    scipy_median = statistics.median(times["scipy"])
    print(
        f"\n{args.queries:,} queries x {args.resamples:,} resamples, median of {args.repeats}:\n"
        f"  compare (per-query NDCG@10 of 2 models + both intervals + t + randomisation): "
        f"{ours_median:.2f} s\n"
        f"  SciPy on precomputed differences (bootstrap x2 + permutation_test + ttest_rel): "
        f"{scipy_median:.2f} s\n"
        f"  ratio ours / SciPy: {ours_median / scipy_median:.2f}"
    )


if __name__ == "__main__":
    main()
