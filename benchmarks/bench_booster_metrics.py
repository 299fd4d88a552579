"""Cost per boosting round of our metrics inside LightGBM and XGBoost, against their own.

A validation set of ``--queries`` queries of ``--docs`` rows (graded labels 0-4) is
evaluated the way each booster does at every round, with new scores at each round
(so nothing of the score side can be reused), for ``--rounds`` rounds, the
evaluations interleaved round by round; the report gives the median of each:

* LightGBM: its built-in ``ndcg@10`` (``Booster.eval_train`` of a booster whose init
  score is the scores) against ``make_lightgbm_metric("ndcg@10",
  convention="lightgbm")`` called as ``feval(preds, dataset)``; the same metric with
  its per-dataset label side dropped before each call (what every round cost before
  it was kept); and the score side alone: the engine's sort by (query, score).
* XGBoost: its built-in ``ndcg@10`` (``Booster.eval`` of zero rounds with the scores
  as base margin) against ``make_xgboost_metric("ndcg@10", convention="xgboost")`` as
  ``custom_metric(predt, dmatrix)``.

Then a real training loop (``--train-rounds`` rounds of LambdaRank on 5 random
features, one thread, the training set evaluated at every round): LightGBM with its
built-in ``ndcg@10`` and with ours as ``feval`` (XGBoost alike: ``custom_metric``),
``--repeats`` interleaved runs. Each round's evaluation is timed where the library
runs it (LightGBM's ``Booster.__inner_eval``, XGBoost's ``Booster.eval_set``, which
for a custom metric also predicts the dataset), ours alone around its call, and
LightGBM's ``Booster.__inner_predict``, which copies the scores out for any ``feval``. The
histories of the built-in metric and ours are compared (LightGBM: to 1e-12;
XGBoost: to its 6 printed decimals).

``--min-docs m`` (m > 0) gives the queries uneven sizes instead, drawn uniformly from
``m`` to ``--docs`` rows (the same sizes in both parts).

Run: ``python bench_booster_metrics.py --queries 10000 --docs 100``; many small
queries: ``--queries 100000 --docs 10``, and 1M rows in queries of 2 to 20 rows:
``--queries 90909 --min-docs 2 --docs 20``. On an AVX-512 machine also with
``NPY_DISABLE_CPU_FEATURES="AVX512_ICL X86_V4"``.
"""

from __future__ import annotations

import contextlib
import time

import numpy as np
from machine import machine_lines
from options import option_parser  # benchmarks/options.py


def timed(function) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def query_sizes(args) -> np.ndarray:
    """Rows per query: ``--docs`` each, or uneven from ``--min-docs`` to ``--docs``."""
    if args.min_docs <= 0:
        return np.full(args.queries, args.docs)
    return np.random.default_rng(2).integers(args.min_docs, args.docs + 1, args.queries)


def per_evaluation(args, lgb, xgb) -> list[tuple[str, float, float | None]]:
    """Medians of interleaved evaluations, new scores at each round."""
    from sklearn_rank_metrics import make_lightgbm_metric, make_xgboost_metric
    from sklearn_rank_metrics._engine._sorting import sort_by_query_then_score

    rng = np.random.default_rng(0)
    sizes = query_sizes(args)
    n_rows = int(sizes.sum())
    y = rng.choice(5, size=n_rows, p=[0.5, 0.2, 0.15, 0.1, 0.05]).astype(float)
    scores = rng.random(n_rows)
    features = np.zeros((n_rows, 1))
    offsets = np.concatenate(([0], np.cumsum(sizes)))

    dataset = lgb.Dataset(features, label=y, group=sizes, init_score=scores,
                          params={"verbose": -1, "num_threads": 1})  # fmt: skip
    booster = lgb.Booster(
        params={"objective": "none", "metric": "ndcg", "eval_at": [10], "verbose": -1,
                "num_threads": 1},
        train_set=dataset,
    )  # fmt: skip
    ours = make_lightgbm_metric("ndcg@10", convention="lightgbm")
    uncached = make_lightgbm_metric("ndcg@10", convention="lightgbm")
    kept = getattr(uncached, "_label_sides", None)  # None: a version without the cache
    qid = np.repeat(np.arange(args.queries), sizes)
    dmatrix = xgb.DMatrix(features, label=y, qid=qid, base_margin=scores, nthread=1)
    xgb_booster = xgb.train(
        {"objective": "rank:ndcg", "eval_metric": "ndcg@10", "nthread": 1}, dmatrix, 0
    )
    xgb_ours = make_xgboost_metric("ndcg@10", convention="xgboost")

    times: dict[str, list[float]] = {}
    for _ in range(args.rounds):
        new = rng.random(n_rows)  # this round's predictions
        new32 = new.astype(np.float32)
        calls = {
            "LightGBM ndcg@10 (built-in)": booster.eval_train,
            "LightGBM feval ours, label side kept": lambda new=new: ours(new, dataset),
            "score side alone: the engine's sort": lambda new=new: sort_by_query_then_score(
                None, new, offsets, True
            ),
            "XGBoost ndcg@10 (built-in)": lambda: xgb_booster.eval(dmatrix),
            "XGBoost custom_metric ours, label side kept": lambda new32=new32: xgb_ours(
                new32, dmatrix
            ),
        }
        if kept is not None:

            def computed_anew(new=new):
                kept.clear()
                uncached(new, dataset)

            calls["LightGBM feval ours, label side computed anew"] = computed_anew
        for label, call in calls.items():
            times.setdefault(label, []).append(timed(call))
    medians = {label: float(np.median(values)) for label, values in times.items()}
    lgb_builtin = medians["LightGBM ndcg@10 (built-in)"]
    xgb_builtin = medians["XGBoost ndcg@10 (built-in)"]
    return [
        (label, took, took / (xgb_builtin if label.startswith("XGBoost") else lgb_builtin))
        for label, took in medians.items()
    ]


class Timed:
    """A callable (or a method, through :meth:`patch`) that records each call's time."""

    def __init__(self, function):
        self.function = function
        self.times: list[float] = []

    def __call__(self, *args, **kwargs):
        start = time.perf_counter()
        try:
            return self.function(*args, **kwargs)
        finally:
            self.times.append(time.perf_counter() - start)

    def __getattr__(self, name):  # the metric's name (XGBoost reads __name__)
        return getattr(self.function, name)

    def method(self):
        """A function to set on a class in place of the method (bound as one)."""

        def timed_method(*args, **kwargs):
            return self(*args, **kwargs)

        return timed_method


@contextlib.contextmanager
def timed_method(cls, name: str):
    """``cls.name`` replaced, for the block, by a :class:`Timed` of it."""
    timed_function = Timed(getattr(cls, name))
    setattr(cls, name, timed_function.method())
    try:
        yield timed_function
    finally:
        setattr(cls, name, timed_function.function)


def training_loop(args, lgb, xgb) -> tuple[list[tuple[str, float, float | None]], list[str]]:
    """Per-round evaluation cost inside real training, and the histories compared.

    Each round's evaluation is timed where the library does it: LightGBM's
    ``Booster.__inner_eval`` (built-in metrics and ``feval`` of one dataset), XGBoost's
    ``Booster.eval_set`` (built-in metrics, then for a custom metric a prediction of
    the dataset and the metric); ours is also timed alone, around its call.
    """
    from sklearn_rank_metrics import make_lightgbm_metric, make_xgboost_metric

    rng = np.random.default_rng(1)
    sizes = query_sizes(args)
    n_rows = int(sizes.sum())
    features = rng.random((n_rows, 5))
    y = np.minimum(4, np.floor(features[:, 0] * 3 + rng.random(n_rows) * 2)).astype(float)
    params = {"objective": "lambdarank", "verbose": -1, "num_threads": 1, "num_leaves": 7,
              "min_data_in_leaf": 50}  # fmt: skip
    rounds = args.train_rounds
    times: dict[str, list[float]] = {}

    def lightgbm(kind: str):
        dataset = lgb.Dataset(features, label=y, group=sizes, params={"verbose": -1})
        record: dict = {}
        extra: dict = {"metric": "ndcg", "eval_at": [10]}
        feval = None
        if kind == "ours":
            extra = {"metric": "None"}
            feval = Timed(make_lightgbm_metric("ndcg@10", convention="lightgbm"))
        # __inner_predict: what LightGBM does for any feval, copy the scores out
        with timed_method(lgb.Booster, "_Booster__inner_eval") as evaluation, timed_method(
            lgb.Booster, "_Booster__inner_predict"
        ) as prediction:
            lgb.train({**params, **extra}, dataset, num_boost_round=rounds,
                      valid_sets=[dataset], valid_names=["train"], feval=feval,
                      callbacks=[lgb.record_evaluation(record)])  # fmt: skip
        times.setdefault(f"LightGBM {kind} scores to feval", []).extend(prediction.times)
        return evaluation.times, feval.times if feval else [], record["train"]

    def xgboost(kind: str):
        dmatrix = xgb.DMatrix(features, label=y, qid=np.repeat(np.arange(len(sizes)), sizes),
                              nthread=1)  # fmt: skip
        record: dict = {}
        xparams = {"objective": "rank:ndcg", "nthread": 1, "max_depth": 3}
        metric = None
        if kind == "built-in":
            xparams["eval_metric"] = "ndcg@10"
        else:  # else XGBoost adds its default metric (ndcg@32) beside ours
            xparams["disable_default_eval_metric"] = 1
            metric = Timed(make_xgboost_metric("ndcg@10", convention="xgboost"))
        with timed_method(xgb.Booster, "eval_set") as evaluation:
            xgb.train(xparams, dmatrix, rounds, evals=[(dmatrix, "train")], evals_result=record,
                      custom_metric=metric, verbose_eval=False)  # fmt: skip
        return evaluation.times, metric.times if metric else [], record["train"]

    histories: dict[str, dict] = {}
    for _ in range(args.repeats):
        for library, run in (("LightGBM", lightgbm), ("XGBoost", xgboost)):
            for kind in ("built-in", "ours"):
                evaluations, alone, history = run(kind)
                times.setdefault(f"{library} {kind}", []).extend(evaluations)
                times.setdefault(f"{library} ours alone", []).extend(alone)
                histories[f"{library} {kind}"] = history
    return training_results(times), compared(histories)


def training_results(times: dict[str, list[float]]) -> list[tuple[str, float, float | None]]:
    """The median evaluation per round of each run kind, and the ratios to the built-in."""
    medians = {label: float(np.median(values)) for label, values in times.items()}
    results = []
    for library, where in (("LightGBM", "__inner_eval"), ("XGBoost", "eval_set")):
        builtin = medians[f"{library} built-in"]
        ours = medians[f"{library} ours"]
        alone = medians[f"{library} ours alone"]
        results.append((f"{library} {where}, built-in ndcg@10", builtin, 1.0))
        results.append((f"{library} {where}, ours", ours, ours / builtin))
        results.append((f"{library} ours alone (the callable)", alone, alone / builtin))
        if library == "LightGBM":  # LightGBM's own cost of calling any feval
            copy = medians["LightGBM ours scores to feval"]
            results.append(("LightGBM __inner_predict (scores to feval)", copy, copy / builtin))
    return results


def compared(histories: dict[str, dict]) -> list[str]:
    """The largest difference between the built-in history and ours, per booster."""
    checks = []
    for library, tolerance in (("LightGBM", 1e-12), ("XGBoost", 1e-6)):
        builtin = histories[f"{library} built-in"]
        ours = histories[f"{library} ours"]
        (builtin_values,) = builtin.values()
        ((name, our_values),) = ours.items()
        difference = np.max(np.abs(np.subtract(builtin_values, our_values)))
        verdict = "equal" if difference <= tolerance else "DIFFERENT"
        checks.append(
            f"{library}: {len(builtin_values)} rounds, {name} against the built-in: "
            f"largest difference {difference:.2g} ({verdict} to {tolerance:g})"
        )
    return checks


def main() -> None:
    parser = option_parser(
        __doc__.splitlines()[0], queries=10_000, docs=100, min_docs=0, rounds=50, train_rounds=50,
        repeats=3,
    )  # fmt: skip
    args = parser.parse_args()

    import lightgbm as lgb
    import xgboost as xgb

    evaluations = per_evaluation(args, lgb, xgb)
    training, checks = training_loop(args, lgb, xgb) if args.train_rounds else ([], [])

    print("\n".join(machine_lines()))
    sizes = query_sizes(args)
    shape = f"{args.docs}" if args.min_docs <= 0 else f"{args.min_docs} to {args.docs} rows"
    print(f"\n{int(sizes.sum()):,} rows, {args.queries:,} queries of {shape}; one thread")
    print(f"\nOne evaluation: median of {args.rounds} interleaved rounds, new scores each round\n")
    results = evaluations
    width = max(len(label) for label, _, _ in evaluations + training)
    print(f"{'evaluation'.ljust(width)}  milliseconds  / built-in")
    for label, took, ratio in results:
        print(f"{label.ljust(width)}  {took * 1e3:12.2f}  {ratio:10.2f}")
    if training:
        print(
            f"\nTraining: median evaluation per round, {args.train_rounds} rounds x "
            f"{args.repeats} interleaved runs\n"
        )
        for label, took, ratio in training:
            print(f"{label.ljust(width)}  {took * 1e3:12.2f}  {ratio:10.2f}")
        print()
        print("\n".join(checks))


if __name__ == "__main__":
    main()
