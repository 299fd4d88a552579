"""Time ``read_recommendations`` on each input form against building its flat arrays.

``--users`` users (default 100,000), ``--depth`` recommended items each (50), and
``--relevant`` relevant items each (10), half of them among the user's
recommendations; item ids are ints below 1,000,000 (or the text ``"i<id>"``).
Forms (what users hand over):

- top-N matrix: a 2-D int array, one row per user, and a list of sets;
- lists (``ml_metrics.mapk(actual, predicted)``): a list of int lists and a list of
  int lists;
- arrays: a list of 1-D int arrays and a list of sets;
- dict int / dict str: ``{user: [item, ...]}`` and ``{user: {item, ...}}``;
- dict graded: ``{user: [item, ...]}`` and ``{user: {item: grade}}``;
- long tables: pandas DataFrames ``(user, item, rank)`` and ``(user, item)``.

The baseline of each form is the cheapest NumPy construction of the same flat
arrays from the same objects: the item ids of both sides and each item's user
(``np.fromiter`` over ``itertools.chain`` of the lists, ``ravel`` of a matrix,
``np.concatenate`` of arrays, ``to_numpy`` of the columns), without matching anything.
Calls alternate (ours, baseline, ...); the minimum and median wall time of
``--repeats`` runs, the ratio of the medians, and the ratio of the median CPU times
of the process (steadier than wall time on a shared machine) are printed, after the
machine (CPU, NumPy, SIMD).

    python benchmarks/bench_recommendations.py [--users 100000] [--depth 50]
        [--relevant 10] [--repeats 5] [--forms "matrix,lists"]
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from itertools import chain

import numpy as np
from machine import machine_lines
from options import option_parser  # benchmarks/options.py

from sklearn_rank_metrics import read_recommendations

N_ITEMS = 1_000_000


def make_lists(n_users: int, depth: int, n_relevant: int, seed: int = 0) -> tuple:
    """A top-N matrix of distinct items per row, and the relevant ids per user (half
    recommended, half not)."""
    rng = np.random.default_rng(seed)
    stride = N_ITEMS // (depth + n_relevant)  # column j draws from its own id range
    top = (np.arange(depth) * stride) + rng.integers(0, stride, (n_users, depth))
    top = rng.permuted(top, axis=1)
    hits = n_relevant // 2
    others = (np.arange(depth, depth + n_relevant - hits) * stride) + rng.integers(
        0, stride, (n_users, n_relevant - hits)
    )
    relevant = np.concatenate([top[:, :hits], others], axis=1)
    return top, relevant


def _flat_ints(lists: object, total: int) -> np.ndarray:
    return np.fromiter(chain.from_iterable(lists), np.int64, total)  # type: ignore[arg-type]


def _user_index(lists: list) -> np.ndarray:
    return np.repeat(np.arange(len(lists)), np.fromiter(map(len, lists), np.intp, len(lists)))


def forms(top: np.ndarray, relevant: np.ndarray) -> dict[str, tuple[tuple, Callable]]:
    """Each form: the arguments of ``read_recommendations`` and its baseline."""
    n_users, depth = top.shape
    total, total_rel = top.size, relevant.size
    users = [f"u{u}" for u in range(n_users)]
    lists, rel_lists = top.tolist(), relevant.tolist()
    rel_sets = list(map(set, rel_lists))
    arrays = list(top)
    dict_int = (dict(zip(users, lists, strict=True)), dict(zip(users, rel_sets, strict=True)))
    text = [[f"i{item}" for item in row] for row in lists]
    rel_text = [{f"i{item}" for item in row} for row in rel_lists]
    dict_str = (dict(zip(users, text, strict=True)), dict(zip(users, rel_text, strict=True)))
    graded_rel = [dict.fromkeys(row, 2) for row in rel_lists]
    dict_graded = (dict_int[0], dict(zip(users, graded_rel, strict=True)))

    def both_int(rec: object, rel: list) -> tuple:
        values = list(rec.values()) if isinstance(rec, dict) else rec
        rel_values = list(rel.values()) if isinstance(rel, dict) else rel
        return (_flat_ints(values, total), _user_index(values),  # type: ignore[arg-type]
                _flat_ints(rel_values, total_rel), _user_index(rel_values))

    def matrix_base() -> tuple:
        return (top.ravel().copy(), np.repeat(np.arange(n_users), depth),
                _flat_ints(rel_sets, total_rel), _user_index(rel_sets))

    def arrays_base() -> tuple:
        return (np.concatenate(arrays), _user_index(arrays),
                _flat_ints(rel_sets, total_rel), _user_index(rel_sets))

    def str_base() -> tuple:
        rec, rel = (list(side.values()) for side in dict_str)
        return (np.fromiter(chain.from_iterable(rec), object, total), _user_index(rec),
                np.fromiter(chain.from_iterable(rel), object, total_rel), _user_index(rel))

    def graded_base() -> tuple:
        rel = list(dict_graded[1].values())
        grades = np.fromiter(chain.from_iterable(map(dict.values, rel)), np.float64, total_rel)
        return (*both_int(*dict_graded), grades)

    table: dict[str, tuple[tuple, Callable]] = {
        "top-N matrix + list of sets": ((top, rel_sets), matrix_base),
        "list of lists + list of lists": ((lists, rel_lists), lambda: both_int(lists, rel_lists)),
        "list of 1-D arrays + list of sets": ((arrays, rel_sets), arrays_base),
        "dict of int lists + dict of sets": (dict_int, lambda: both_int(*dict_int)),
        "dict of str lists + dict of sets": (dict_str, str_base),
        "dict of int lists + dict of grades": (dict_graded, graded_base),
    }
    try:
        import pandas as pd
    except ImportError:
        print("pandas not installed: long tables skipped")
        return table
    rec_frame = pd.DataFrame({"user": np.repeat(np.arange(n_users), depth),
                              "item": top.ravel(), "rank": np.tile(np.arange(1, depth + 1),
                                                                   n_users)})
    rel_frame = pd.DataFrame({"user": np.repeat(np.arange(n_users), relevant.shape[1]),
                              "item": relevant.ravel()})

    def frames_base() -> tuple:
        return tuple(frame[column].to_numpy() for frame in (rec_frame, rel_frame)
                     for column in ("user", "item"))

    table["long tables (pandas)"] = ((rec_frame, rel_frame), frames_base)
    return table


def main() -> None:
    description = __doc__.splitlines()[0]
    parser = option_parser(description, users=100_000, depth=50, relevant=10, repeats=5,
                           forms="")
    args = parser.parse_args()
    print("\n".join(machine_lines()))
    top, relevant = make_lists(args.users, args.depth, args.relevant)
    table = forms(top, relevant)
    chosen = [name for name in table if not args.forms or any(
        part.strip() in name for part in args.forms.split(","))]
    print(f"{args.users:,} users x {args.depth} recommended items, {args.relevant} relevant "
          f"each ({args.relevant // 2} of them recommended); min / median of {args.repeats}")
    print(f"  {'form':<38s} {'ours (s)':>15s} {'NumPy arrays (s)':>17s} {'ratio':>7s} "
          f"{'CPU ratio':>9s}")
    for name in chosen:
        arguments, baseline = table[name]
        read_recommendations(*arguments)  # warm-up
        ours, base, ours_cpu, base_cpu = [], [], [], []
        for _ in range(args.repeats):
            start, cpu = time.perf_counter(), time.process_time()
            read_recommendations(*arguments)
            ours.append(time.perf_counter() - start)
            ours_cpu.append(time.process_time() - cpu)
            start, cpu = time.perf_counter(), time.process_time()
            baseline()
            base.append(time.perf_counter() - start)
            base_cpu.append(time.process_time() - cpu)
        ratio = statistics.median(ours) / statistics.median(base)
        cpu_ratio = statistics.median(ours_cpu) / statistics.median(base_cpu)
        print(f"  {name:<38s} {min(ours):6.3f} / {statistics.median(ours):6.3f} "
              f"{min(base):7.3f} / {statistics.median(base):6.3f} {ratio:6.1f}x "
              f"{cpu_ratio:8.1f}x")


if __name__ == "__main__":
    main()
