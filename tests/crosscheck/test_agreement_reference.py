"""The agreement measures against their reference implementations.

RBO against the test file of Corsi & Urbano's reference implementation (every row,
every tie treatment and score) and against the transcription of their Python code
(``tests/support/agreement_reference.py``) on random rankings with ties and uneven
lists; Kendall's tau-b against SciPy; tau_AP against ircor's tests and its
transcription.
"""

import csv
import gzip
import hashlib
import io
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from sklearn_rank_metrics import kendall_tau_score, rank_biased_overlap
from sklearn_rank_metrics._engine._paired_rows import checked_pair
from sklearn_rank_metrics._metrics._agreement import rbo_per_query
from tests.support import agreement_reference as reference

TEST_FILE = Path(__file__).resolve().parents[1] / "data" / "rbo" / "test.csv.gz"
VARIANTS = [(ties, bound) for ties in "wab" for bound in ("ext", "min", "max", "res")]


def _reference_rows():
    raw = TEST_FILE.read_bytes()
    return list(csv.DictReader(io.StringIO(gzip.decompress(raw).decode())))


ROWS = _reference_rows()


def test_reference_file_is_the_one_described():
    raw = TEST_FILE.read_bytes()
    source = gzip.decompress(raw)
    assert hashlib.sha256(source).hexdigest() == (
        "d39779bf7b38edb27976f39f36e888b9f0db27edc4c77f5ee382d1f00c421a3b"
    )
    assert len(ROWS) == 10_000


def as_scores(x, y):
    """Two reference rankings as two score columns over the union of their items:
    a tie group shares a score, an item missing from a ranking scores -inf there."""
    gx, gy = reference.from_string(x), reference.from_string(y)

    def scores(groups):
        return {item: -rank for rank, group in enumerate(groups)
                for item in ([group] if isinstance(group, str) else group)}

    sx, sy = scores(gx), scores(gy)
    items = sorted(set(sx) | set(sy))
    return (np.array([sx.get(i, -np.inf) for i in items], float),
            np.array([sy.get(i, -np.inf) for i in items], float))


@pytest.fixture(scope="module")
def reference_file_as_queries():
    """The 10,000 rows of the test file as 10,000 queries of one input (query ``i`` is
    row ``i``), checked once, with each row's ``p``."""
    pairs = [as_scores(row["x"], row["y"]) for row in ROWS]
    a = np.concatenate([x for x, _ in pairs])
    b = np.concatenate([y for _, y in pairs])
    group = np.repeat(np.arange(len(pairs)), [len(x) for x, _ in pairs])
    rows = checked_pair(a, b, group)
    assert np.array_equal(rows.query_ids, np.arange(len(ROWS)))  # p in the queries' order
    return rows, np.array([float(row["p"]) for row in ROWS])


@pytest.mark.parametrize(("ties", "bound"), VARIANTS)
def test_every_row_of_the_reference_file(reference_file_as_queries, ties, bound):
    """Every one of the 10,000 rows in every one of the 12 variants: one call per
    variant over all rows as queries, each with its own p, through the layer under
    the public function (its checks and policy aside, the same computation)."""
    rows, p = reference_file_as_queries
    values, defined = rbo_per_query(rows, p=p, depth=None, ties=ties, bound=bound)
    expected = np.array([float(row[f"{ties}.{bound}"]) for row in ROWS])
    assert defined.all()
    np.testing.assert_allclose(values, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize(("ties", "bound"), VARIANTS)
def test_first_rows_of_the_reference_file_through_the_public_function(ties, bound):
    """The public function itself (one call per row: p is one number per call) on the
    first 100 rows."""
    for row in ROWS[:100]:
        a, b = as_scores(row["x"], row["y"])
        value = rank_biased_overlap(a, b, np.zeros(len(a)), p=float(row["p"]), ties=ties,
                                    bound=bound)
        assert value == pytest.approx(float(row[f"{ties}.{bound}"]), abs=1e-12)


def test_first_ranking_is_y_score_a_and_uneven_lists_either_way():
    """The reference takes (x, y); RBO is symmetric, so swapping the columns keeps
    every value, whichever list is the shorter."""
    for row in ROWS[:50]:
        a, b = as_scores(row["x"], row["y"])
        for ties, bound in VARIANTS:
            expected = float(row[f"{ties}.{bound}"])
            value = rank_biased_overlap(b, a, np.zeros(len(a)), p=float(row["p"]), ties=ties,
                                        bound=bound)
            assert value == pytest.approx(expected, abs=1e-12)


def _random_pair(rng, n):
    """Two rankings of up to ``n`` items with ties and rows missing from one of them."""
    a = rng.integers(0, max(2, n // 2), n).astype(float)
    b = rng.integers(0, max(2, n // 2), n).astype(float)
    a[rng.random(n) < 0.25] = -np.inf
    b[rng.random(n) < 0.25] = -np.inf
    both_missing = (a == -np.inf) & (b == -np.inf)
    a[both_missing] = 0.5  # every row in at least one list
    if not np.isfinite(a).any():
        a[0] = 1.0
    if not np.isfinite(b).any():
        b[0] = 1.0
    return a, b


def _as_reference_ranking(scores):
    items = np.flatnonzero(np.isfinite(scores))
    ranking = []
    for value in np.unique(scores[items])[::-1]:
        group = [f"i{i}" for i in items[scores[items] == value]]
        ranking.append(group[0] if len(group) == 1 else set(group))
    return ranking


@pytest.mark.parametrize("p", [0.5, 0.9, 0.98])
def test_random_rankings_with_ties_against_the_transcription(p):
    """Many queries in one call (vectorised over them) against the reference's Python
    code run query by query."""
    rng = np.random.default_rng(int(p * 100))
    pairs = [_random_pair(rng, int(rng.integers(1, 14))) for _ in range(60)]
    a = np.concatenate([x for x, _ in pairs])
    b = np.concatenate([y for _, y in pairs])
    group = np.repeat(np.arange(len(pairs)), [len(x) for x, _ in pairs])
    for ties in "wab":
        expected = {}
        for query, (x, y) in enumerate(pairs):
            expected[query] = reference.rbo(_as_reference_ranking(x), _as_reference_ranking(y),
                                             p, ties=ties)
        for bound in ("ext", "min", "max", "res"):
            table = rank_biased_overlap(a, b, group, p=p, ties=ties, bound=bound,
                                        per_query=True)
            got = np.asarray(table["rbo"])
            want = np.clip([expected[q][bound] for q in range(len(pairs))], 0, 1)
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
            mean = rank_biased_overlap(a, b, group, p=p, ties=ties, bound=bound)
            assert mean == pytest.approx(np.mean(want), abs=1e-12)


def test_input_ties_is_the_reference_on_the_rankings_with_ties_broken():
    rng = np.random.default_rng(5)
    for _ in range(30):
        a, b = _random_pair(rng, 9)
        group = np.zeros(len(a))
        # ties broken by input order: a strictly decreasing score within each tie
        broken_a = np.where(np.isfinite(a), a - np.arange(len(a)) * 1e-3, a)
        broken_b = np.where(np.isfinite(b), b - np.arange(len(b)) * 1e-3, b)
        for bound in ("ext", "min", "max"):
            expected = reference.rbo(_as_reference_ranking(broken_a),
                                     _as_reference_ranking(broken_b), 0.9, ties="w")[bound]
            value = rank_biased_overlap(a, b, group, ties="input", bound=bound)
            assert value == pytest.approx(min(max(expected, 0), 1), abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_kendall_tau_b_is_scipy_per_query(seed):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 30, 40)
    group = np.repeat(np.arange(len(sizes)), sizes)
    a = rng.integers(0, 6, len(group)).astype(float)
    b = rng.integers(0, 6, len(group)).astype(float)
    a[rng.random(len(a)) < 0.1] = -np.inf
    b[rng.random(len(b)) < 0.1] = -np.inf
    table = kendall_tau_score(a, b, group, per_query=True, replace_undefined_by=np.nan)
    expected = [stats.kendalltau(a[group == q], b[group == q]).statistic
                for q in range(len(sizes))]
    np.testing.assert_allclose(np.asarray(table["tau_b"]), expected, rtol=0, atol=1e-12)


def test_kendall_tau_b_shuffled_rows_and_unsorted_query_ids():
    rng = np.random.default_rng(9)
    group = rng.permutation(np.repeat(["q1", "q2", "q3"], 40))
    a, b = rng.normal(size=120), rng.normal(size=120).round(1)
    expected = np.mean([stats.kendalltau(a[group == q], b[group == q]).statistic
                        for q in ("q1", "q2", "q3")])
    assert kendall_tau_score(a, b, group) == pytest.approx(expected, abs=1e-12)


# ircor's tests (tests/testthat/helper_data.R and test_tauAP.R of the commit cited in
# tests/support/agreement_reference.py): tauAP(x, y) to 4 decimals
IRCOR_SETS = [
    ([0.897, 0.372, 0.908, 0.898, 0.661, 0.062, 0.177, 0.384, 0.498, 0.992],
     [0.82, 0.406, 0.817, 0.953, 0.673, 0.073, 0.364, 0.547, 0.589, 0.988], 0.8519),
    ([0.266, 0.573, 0.202, 0.945, 0.629, 0.206, 0.687, 0.77, 0.718, 0.38],
     [0.263, 0.843, 0.728, 0.928, 0.08, 0.114, 0.467, 0.641, 0.973, 0.644], 0.2504),
    ([0.185, 0.573, 0.944, 0.129, 0.468, 0.553, 0.761, 0.405, 0.976, 0.445],
     [0.845, 0.272, 0.275, 0.924, 0.605, 0.334, 0.162, 0.872, 0.018, 0.25], -0.6971),
]


@pytest.mark.parametrize(("x", "y", "expected"), IRCOR_SETS)
def test_tau_ap_on_ircors_tests(x, y, expected):
    value = kendall_tau_score(x, y, np.zeros(len(x)), variant="ap")
    assert value == pytest.approx(expected, abs=5e-5)
    assert value == pytest.approx(reference.tau_ap(x, y), abs=1e-12)


def test_tau_ap_against_the_transcription_on_many_queries():
    rng = np.random.default_rng(3)
    sizes = rng.integers(2, 25, 50)
    group = np.repeat(np.arange(len(sizes)), sizes)
    a, b = rng.permutation(len(group)).astype(float), rng.normal(size=len(group))
    table = kendall_tau_score(a, b, group, variant="ap", per_query=True)
    expected = [reference.tau_ap(a[group == q], b[group == q]) for q in range(len(sizes))]
    np.testing.assert_allclose(np.asarray(table["tau_ap"]), expected, rtol=0, atol=1e-12)
    # the first ranking is the reference: swapping them changes the value
    swapped = kendall_tau_score(b, a, group, variant="ap", per_query=True)
    assert not np.allclose(np.asarray(swapped["tau_ap"]), expected)
