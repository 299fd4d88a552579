"""Bad input at the edges: each a clear error or a correct result, never a silent one.

One test per finding of the hostile-input review that this file covers: the command
line's settings go through the Python API's checks, no public function changes
process-wide state (warning filters, NumPy's error state, Python's ``random``) from
any thread, and a metric name gives each parameter once.
"""

import re
import subprocess
import sys
import threading
import warnings

import numpy as np
import pytest
from scipy import stats

from sklearn_rank_metrics import compare, evaluate, ranking_report
from sklearn_rank_metrics._stats._compare import _t_test_pvalues


def run_cli(*arguments):
    return subprocess.run(
        [sys.executable, "-m", "sklearn_rank_metrics", *arguments],
        capture_output=True, text=True, timeout=120,
    )


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    path = tmp_path_factory.mktemp("hostile") / "t.csv"
    path.write_text("group,y_true,y_score\nq,1,0.5\nq,0,0.7\nr,0,0.2\nr,2,0.9\n")
    return path


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--replace-undefined-by", "2"], "'replace_undefined_by' parameter of rank-metrics"),
        (["--replace-undefined-by", "0.5"], "'replace_undefined_by' parameter"),
        (["--replace-undefined-by", "-1"], "'replace_undefined_by' parameter"),
        (["--replace-undefined-by", "inf"], "'replace_undefined_by' parameter"),
        (["--relevance-level", "nan"], "'relevance_level' parameter of rank-metrics"),
        (["--digits", "-1"], "--digits: must be an int from 0 to 17"),
    ],
)
def test_cli_settings_are_checked_as_in_python_before_any_output(table, arguments, message):
    result = run_cli("evaluate", "--table", str(table), "--metrics", "ndcg", "map", *arguments)
    assert result.returncode == 2
    assert result.stdout == ""  # nothing of the report is printed
    assert message in result.stderr and result.stderr.count("\n") == 1


def test_the_same_settings_are_refused_by_the_python_api():
    y, s, g = [1, 0, 0, 2], [0.5, 0.7, 0.2, 0.9], ["q", "q", "r", "r"]
    with pytest.raises(ValueError, match="'replace_undefined_by' parameter of evaluate"):
        evaluate(y, s, g, metrics=["ndcg"], replace_undefined_by=2.0)
    with pytest.raises(ValueError, match="'relevance_level' parameter of ranking_report"):
        ranking_report(y, s, g, relevance_level=float("nan"))


def test_a_metric_name_gives_each_parameter_once():
    y, s = [1, 0, 2], [0.5, 0.7, 0.9]
    with pytest.raises(ValueError, match="'gain' is given twice"):
        evaluate(y, s, metrics=["ndcg(gain=exponential,gain=linear)@10"])


def test_t_test_p_values_equal_scipys_without_warnings():
    rng = np.random.default_rng(0)
    a, b = rng.random((30, 4)), rng.random((30, 4))
    b[:, 2] = a[:, 2] - 0.25  # constant differences
    b[:, 3] = a[:, 3]  # no difference at all
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning at all from ours
        ours = _t_test_pvalues(a, b)
    theirs = stats.ttest_rel(a[:, :2], b[:, :2], axis=0).pvalue
    np.testing.assert_allclose(ours[:2], theirs, rtol=1e-10)
    assert ours[2] == 0.0 and np.isnan(ours[3])


def test_no_process_wide_state_changes_from_concurrent_calls():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 3, 400).astype(float)
    g = np.repeat(np.arange(40), 10)
    scores = {"a": rng.random(400), "b": rng.random(400), "same": np.zeros(400)}
    filters_before, errors_before = list(warnings.filters), np.geterr()
    failures = []

    def work():
        try:
            compare(y, scores, g, metrics=["ndcg@5", "map"], n_resamples=200, random_state=0)
            ranking_report(y, scores, g, baseline="same", n_resamples=200, random_state=0)
        except Exception as error:  # pragma: no cover - reported below
            failures.append(error)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures
    assert list(warnings.filters) == filters_before
    assert np.geterr() == errors_before


def test_importing_changes_no_global_state():
    # the libraries it builds on are imported first (SciPy, for one, adds warning
    # filters when imported): what is checked is what importing this package adds
    code = (
        "import numpy, scipy.sparse, scipy.special, scipy.stats, sklearn.base, pandas\n"
        "import sklearn.utils, sklearn.model_selection, sklearn.metrics, dask.dataframe\n"
        "import random, sys; random.seed(0); expected = random.random(); random.seed(0)\n"
        "import numpy as np; np.seterr(all='warn'); before = np.geterr()\n"
        "import warnings; filters = list(warnings.filters)\n"
        "import sklearn_rank_metrics, sklearn_rank_metrics.dask\n"
        "assert random.random() == expected, 'random state advanced'\n"
        "assert np.geterr() == before and list(warnings.filters) == filters\n"
        "assert 'sklearn.datasets' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def _unclear_error_cases():
    import pandas as pd
    import scipy.sparse

    from sklearn_rank_metrics import ndcg_score

    y, s = [1, 0], [0.5, 0.2]
    return [
        (lambda: ndcg_score(y, s, k=2**63), ValueError, "'k' parameter of ndcg_score"),
        (lambda: evaluate(y, s, metrics=["ndcg@99999999999999999999"]), ValueError,
         "cutoff of metric 'ndcg@99999999999999999999' of evaluate"),
        (lambda: evaluate(y, s, metrics=["ndcg@" + "9" * 5000]), ValueError,
         "of evaluate is 5005 characters long; a metric name has at most 256"),
        (lambda: ndcg_score(y, s, pd.Series(["a", pd.NA], dtype="string")), ValueError,
         "group of ndcg_score must not be missing; got <NA> at row 1"),
        (lambda: evaluate(y, s, metrics=None), TypeError, "'metrics' parameter of evaluate"),
        (lambda: evaluate(y, s, metrics=5), TypeError, "'metrics' parameter of evaluate"),
        (lambda: evaluate(y, s, metrics=["map", 5]), TypeError, "got 5 of type int"),
        (lambda: ndcg_score(scipy.sparse.csr_matrix(np.array(y, float)), s, [0, 0]),
         TypeError, "y_true of ndcg_score must be a dense array-like; got a sparse"),
        (lambda: ndcg_score((x for x in y), s), TypeError,
         "y_true of ndcg_score must be an array-like"),
    ]


@pytest.mark.parametrize("index", range(9))
def test_unclear_errors_name_the_argument(index):
    call, error, message = _unclear_error_cases()[index]
    with pytest.raises(error, match=re.escape(message)):
        call()


def test_paths_that_are_directories_or_not_parquet(tmp_path):
    from sklearn_rank_metrics import read_letor, read_table

    with pytest.raises(IsADirectoryError, match=re.escape(f"'{tmp_path}' is a directory")):
        read_table(tmp_path)
    with pytest.raises(IsADirectoryError, match="is a directory, not a file"):
        read_letor(tmp_path)
    fake = tmp_path / "fake.parquet"
    fake.write_bytes(b"not parquet")
    with pytest.raises(ValueError, match=re.escape(f"read_table: {fake} is not a readable")):
        read_table(fake)


def test_sampled_estimates_refuse_a_pass_over_a_huge_catalogue():
    from sklearn_rank_metrics import sampled_metric_estimate, sampled_metric_table

    for estimator in ("rank_distribution", "bias_variance", "minimal_bias"):
        with pytest.raises(ValueError, match=r"n_items=1,000,000,000,000 full ranks"):
            sampled_metric_estimate([1, 2, 3], n_negatives=100, n_items=10**12,
                                    metric="hit_rate", k=10, estimator=estimator)
    with pytest.raises(ValueError, match="takes one pass over all n_items"):
        sampled_metric_table(n_negatives=100, n_items=10**12, metric="ndcg")
    # the naive metric and the rescaled rank need no pass: they answer at once
    assert sampled_metric_estimate([1, 2, 3], n_negatives=100, n_items=10**12,
                                   metric="hit_rate", k=2, estimator="naive") == 2 / 3


def test_masked_arrays_with_masked_values_are_refused():
    from sklearn_rank_metrics import ndcg_score

    y = np.ma.array([1, 0, 1], mask=[False, True, False])
    one = [0, 0, 0]  # one query
    with pytest.raises(ValueError, match="y_true is a masked array with masked values"):
        ndcg_score(y, [0.1, 0.2, 0.3], one)
    # a masked array without masked values is its data
    assert ndcg_score(np.ma.array([1, 0, 1]), [0.1, 0.2, 0.3], one) == ndcg_score(
        [1, 0, 1], [0.1, 0.2, 0.3], one
    )


def test_pandas_inputs_with_different_indexes_are_refused():
    import pandas as pd

    from sklearn_rank_metrics import ndcg_score

    labels = pd.Series([1, 0, 1, 0], index=[10, 11, 12, 13])
    scores = pd.Series([0.1, 0.2, 0.3, 0.4], index=[13, 12, 11, 10])
    with pytest.raises(ValueError, match="y_true and y_score of ndcg_score are pandas objects"):
        ndcg_score(labels, scores)
    groups = pd.Series([1, 1, 2, 2])  # default index
    with pytest.raises(ValueError, match="y_true and group of evaluate"):
        evaluate(labels, scores.reindex(labels.index), groups, metrics=["ndcg"])
    # aligned by label: labels (1, 0) get scores (0.4, 0.3) and (0.2, 0.1), RR 1 and 1;
    # paired by position they would get (0.1, 0.2) and (0.3, 0.4), RR 1/2 and 1/2
    aligned = evaluate(labels, scores.reindex(labels.index),
                       groups.set_axis(labels.index), metrics=["mrr"])
    assert aligned["mrr"] == 1.0
    by_position = evaluate(labels.to_numpy(), scores.to_numpy(), groups.to_numpy(),
                           metrics=["mrr"])
    assert by_position["mrr"] == 0.5


def test_integer_scores_beyond_two_to_the_53_rank_exactly():
    from sklearn_rank_metrics import ndcg_score, sampled_ranks

    # nanosecond timestamps: distinct as integers, equal as float64
    stamps = [1700000000000000001, 1700000000000000002, 1700000000000000003]
    assert float(stamps[0]) == float(stamps[2])
    one = [0, 0, 0]  # one query
    assert ndcg_score([0, 0, 1], stamps, one) == 1.0  # the relevant row has the largest score
    assert ndcg_score([1, 0, 0], stamps, one) == pytest.approx(1 / np.log2(4))
    huge = np.array([2**63 - 1, 2**63 - 2, 5], dtype=np.int64)
    assert evaluate([1, 0, 0], huge, one, metrics=["mrr", "gauc"]) == {"mrr": 1.0, "gauc": 1.0}
    assert sampled_ranks([0, 1, 0], stamps, one).rank.tolist() == [2]


def test_overflow_is_an_error_or_a_stable_value():
    from sklearn_rank_metrics import dcg_score, fbeta_at_k_score, ndcg_score

    y, s, g = [1, 0, 1, 0], [0.4, 0.3, 0.2, 0.1], [1, 1, 2, 2]
    with pytest.raises(ValueError, match="must be < 1024 with gain='exponential'"):
        ndcg_score([1024, 0], [0.1, 0.2], [0, 0], gain="exponential")
    with pytest.raises(ValueError, match="must be < 1024 with gain='exponential'"):
        dcg_score([1100, 0], [0.1, 0.2], [0, 0], gain="exponential")
    one = [0] * 4  # one query
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an error, not a warning and then a number
        with pytest.raises(ValueError, match="overflows float64.*divide y_true"):
            dcg_score([1e308] * 4, [0.1, 0.2, 0.3, 0.4], one)
        # NDCG with linear gain is scale-invariant: labels near the largest float give
        # the NDCG of the labels divided by 1e308 (the label-1 row ranks first),
        # also with ideal="top_k", and beside a query of ordinary labels
        discount = 1 / np.log2(np.arange(2, 6))
        expected = (1e-308 + discount[1:].sum()) / (discount[:3].sum() + 1e-308 * discount[3])
        huge, scores = [1e308] * 3 + [1], [0.1, 0.2, 0.3, 0.4]
        assert ndcg_score(huge, scores, one) == pytest.approx(expected, rel=1e-15)
        got = ndcg_score(huge, scores, one, ideal="top_k", k=4)
        assert got == pytest.approx(expected, rel=1e-15)
        assert ndcg_score(huge, scores, one) == ndcg_score(np.ldexp(huge, -1024), scores, one)
        both = evaluate(huge + [0, 1], scores + [0.2, 0.1], [1] * 4 + [2] * 2,
                        metrics=["ndcg"], per_query=True)
        np.testing.assert_allclose(np.asarray(both["ndcg"]), [expected, 1 / np.log2(3)])
    with pytest.raises(ValueError, match="'log_base' parameter of dcg_score"):
        dcg_score(y, s, g, log_base=np.inf)
    with pytest.raises(ValueError, match="'beta' parameter of fbeta_at_k_score"):
        fbeta_at_k_score(y, s, g, k=2, beta=np.inf)
    # a finite beta whose square overflows was a bare OverflowError: refused, naming beta
    for beta in (1e200, 1e160):
        with pytest.raises(ValueError, match=r"'beta' parameter of fbeta_at_k_score.*1e\+150"):
            fbeta_at_k_score(y, s, g, k=2, beta=beta)
    # a beta near the largest accepted weighs recall alone: one query of two relevant
    # rows, one of them in the top 1: P@1 = 1, R@1 = 1/2, F = (1 + b^2) / (2 b^2 + 1)
    assert fbeta_at_k_score([1, 1, 0, 0], s, one, k=1, beta=1e149) == 0.5
    # weights near the largest float, and denormal ones: the weighted mean by hand
    # (query 1: RR 1; query 2: RR 1/2)
    y2 = [1, 0, 0, 1]
    assert evaluate(y2, s, g, metrics=["mrr"], sample_weight=[5e307] * 4)["mrr"] == 0.75
    tiny = [1e-320, 1e-320, 3e-320, 3e-320]
    assert evaluate(y2, s, g, metrics=["mrr"], sample_weight=tiny)["mrr"] == (1 + 1.5) / 4


def test_a_value_outside_the_metric_range_is_never_returned():
    # the aggregation layer checks every per-query value against the metric's range:
    # a kernel defect (simulated here) raises instead of reaching the mean
    from sklearn_rank_metrics._engine._caller import called_as
    from sklearn_rank_metrics._metrics import _aggregate

    def with_values(values, undefined=(0.0, 0.0)):
        return _aggregate.PerQuery(np.array(values), np.array(undefined))

    ranked_ids = np.array([1, 2])

    class Ranked:
        query_ids = ranked_ids
        query_weight = np.ones(2)

    for values in ([1.5, 0.5], [0.5, -0.25], [np.nan, 0.5], [np.inf, 0.5]):
        with called_as("mrr"), pytest.raises(
            RuntimeError, match="^mrr computed .*outside the metric's range.*defect"
        ):
            _aggregate.aggregate(with_values(values), Ranked(), 0.0)
    # an undefined query's placeholder is not checked; rounding in the last bits is clipped
    assert _aggregate.aggregate(with_values([np.nan, 0.5], (1.0, 0.0)), Ranked(), "skip") == 0.5
    assert _aggregate.aggregate(with_values([1 + 2**-52, 1.0]), Ranked(), 0.0) == 1.0
    dcg = _aggregate.PerQuery(np.array([7.5, 2.0]), np.zeros(2), value_range=(0.0, np.inf))
    assert _aggregate.aggregate(dcg, Ranked(), 0.0) == 4.75


def test_read_letor_never_asks_the_loader_for_query_ids(tmp_path, monkeypatch):
    # scikit-learn's load_svmlight_file(query_id=True) appends per line and grows
    # quadratically (100k lines 4.4 s, 400k 65 s); read_letor takes the query ids from
    # its own linear pass and asks the loader for labels and features only
    import sklearn.datasets

    from sklearn_rank_metrics import read_letor

    calls = []
    real = sklearn.datasets.load_svmlight_file

    def recording(*args, **kwargs):
        calls.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(sklearn.datasets, "load_svmlight_file", recording)
    path = tmp_path / "small.txt"
    path.write_text("2 qid:7 1:0.5 2:1\n0 qid:7 1:0.1\n1 qid:9 2:3\n")
    data = read_letor(path)
    assert calls and all(not call.get("query_id", False) for call in calls)
    assert data.group.tolist() == [7, 7, 9]
    assert data.y_true.tolist() == [2.0, 0.0, 1.0]
