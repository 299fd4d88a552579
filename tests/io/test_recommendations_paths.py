"""read_recommendations: every path of the matching against a brute-force reference.

The matching sorts each user's keys on its own (rows of a 2-D array: even lists,
padded ragged lists, an argsort when the keys leave no room for positions, a lexsort
when padding would double the memory), looks the relevant keys up (searchsorted for
integer ids, a segmented binary search for hashed text ids), and orders the missed
items by id (integer keys, or text ranks). Each case below takes one of those paths;
every row is compared with a plain-Python reference written from the docstring.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from sklearn_rank_metrics import read_recommendations
from sklearn_rank_metrics._io import _recommendations


def reference_rows(users, recommended_of, relevant_of):
    """(user, item, label, score) rows: each recommended item in list order, scored
    ``len(list) - position`` and labelled with its grade (0 if not relevant); then the
    relevant items not recommended, sorted by id, scored ``-inf``."""
    rows = []
    for user in users:
        listed = list(recommended_of(user))
        relevant = relevant_of(user)
        grades = dict(relevant) if isinstance(relevant, dict) else dict.fromkeys(relevant, 1)
        for position, item in enumerate(listed):
            rows.append((user, item, float(grades.get(item, 0)), float(len(listed) - position)))
        missed = sorted(item for item in grades if item not in set(listed))
        rows.extend((user, item, float(grades[item]), -math.inf) for item in missed)
    return rows


def rows_of(data):
    return list(zip(data.group.tolist(), data.doc_id.tolist(), data.y_true.tolist(),
                    data.y_score.tolist(), strict=True))


def check(recommended, relevant):
    data = read_recommendations(recommended, relevant)
    if isinstance(relevant, dict):
        expected = reference_rows(list(relevant), recommended.__getitem__, relevant.__getitem__)
    else:
        expected = reference_rows(range(len(relevant)), recommended.__getitem__,
                                  relevant.__getitem__)
    assert rows_of(data) == expected
    return data


def random_lists(seed, n_users=60, depth=(0, 12), n_relevant=(0, 6), catalog=40):
    """Distinct items per user, lengths drawn from the ranges; relevant items partly
    recommended."""
    rng = np.random.default_rng(seed)
    recommended, relevant = [], []
    for _ in range(n_users):
        items = rng.permutation(catalog)
        k = int(rng.integers(depth[0], depth[1] + 1))
        r = int(rng.integers(n_relevant[0], n_relevant[1] + 1))
        recommended.append(items[:k].tolist())
        chosen = rng.choice(items[: k + r], size=min(r, k + r), replace=False).tolist()
        relevant.append(chosen)
        if not k and not r:  # a user needs a row
            relevant[-1] = [int(items[0])]
    return recommended, relevant


@pytest.mark.parametrize("seed", range(4))
def test_ragged_int_lists_match_the_reference(seed):
    recommended, relevant = random_lists(seed)
    check(recommended, [set(r) for r in relevant])  # padded rows, sets
    check(recommended, relevant)  # relevant lists
    check([tuple(r) for r in recommended], relevant)  # tuples take the int fast path
    graded = [{item: (i % 3) + 1 for i, item in enumerate(r)} for r in relevant]
    check(recommended, graded)


@pytest.mark.parametrize("seed", range(3))
def test_text_ids_match_the_reference(seed):
    recommended, relevant = random_lists(seed)
    # shared prefixes, non-ASCII, a NUL and an astral character: Python's str order
    names = ["d", "d\x00", "d\x00a", "é", "e", "D", "\U0001f600", "dd", "d1", "d10", "d9"]
    text = {i: names[i % len(names)] + "~" * (i // len(names)) for i in range(40)}
    assert len(set(text.values())) == 40
    users = [f"u{u}" for u in range(len(recommended))]
    rec = {u: [text[i] for i in r] for u, r in zip(users, recommended, strict=True)}
    rel = {u: {text[i] for i in r} for u, r in zip(users, relevant, strict=True)}
    check(rec, rel)
    check(rec, {u: [text[i] for i in r] for u, r in zip(users, relevant, strict=True)})


def test_even_lists_and_a_matrix_match_the_reference():
    recommended, relevant = random_lists(7, depth=(9, 9))
    matrix = np.array(recommended)
    data = check(matrix, [set(r) for r in relevant])
    assert data.doc_id.dtype == np.int64
    small = check(matrix.astype(np.int16), relevant)  # ids keep their values, as int64
    assert small.doc_id.dtype == np.int64
    check(list(matrix), relevant)  # 1-D arrays, stacked


def test_very_unequal_lists_take_the_lexsort_path(monkeypatch):
    recommended, relevant = random_lists(3, n_users=30, depth=(1, 3))
    recommended[5] = list(range(100, 400))  # one long list: padding would be 10x
    order_calls = []
    original = np.lexsort

    def spy(keys, *args, **kwargs):
        order_calls.append(len(keys[0]))
        return original(keys, *args, **kwargs)

    monkeypatch.setattr(_recommendations.np, "lexsort", spy)
    check(recommended, relevant)
    assert sum(len(r) for r in recommended) in order_calls


def test_ids_far_apart_take_the_argsort_path(monkeypatch):
    # int ids 2**53 apart: their keys (user x width + id) fit in int64 but leave no
    # room for the positions, so each user's list is argsorted
    rows_sorted = []
    original = np.argsort

    def spy(values, *args, **kwargs):
        rows_sorted.append(kwargs.get("axis", -1) == 1)
        return original(values, *args, **kwargs)

    monkeypatch.setattr(_recommendations.np, "argsort", spy)
    recommended, relevant = random_lists(5, n_users=8)
    spread = [[i * 2**53 for i in r] for r in recommended]
    check(spread, [{i * 2**53 for i in r} for r in relevant])
    assert any(rows_sorted)
    rows_sorted.clear()
    even = [[i * 2**53 for i in r] for r in random_lists(5, n_users=8, depth=(6, 6))[0]]
    check(even, [set(e[:2]) | {41 * 2**53} for e in even])
    assert any(rows_sorted)


def test_mixed_sets_and_dicts_match_the_reference():
    # two groups of relevant containers: their users do not come in order (one
    # stable argsort orders the relevant keys)
    recommended, relevant = random_lists(11)
    mixed = [set(r) if u % 2 else dict.fromkeys(r, 2) for u, r in enumerate(relevant)]
    check(recommended, mixed)
    users = [f"u{u}" for u in range(len(recommended))]
    text = {u: [f"i{i}" for i in r] for u, r in zip(users, recommended, strict=True)}
    text_rel = {u: ({f"i{i}" for i in r} if n % 2 else dict.fromkeys((f"i{i}" for i in r), 3))
                for n, (u, r) in enumerate(zip(users, relevant, strict=True))}
    check(text, text_rel)


def test_int_lists_beyond_int64_or_with_bools_take_the_general_path():
    data = check([[1, 2**64], [3]], [{2**64}, {3}])
    assert data.doc_id.tolist() == [1, 2**64, 3]
    flags = read_recommendations([[True, 2], [3]], [{2}, {3}])
    assert [type(item) for item in flags.doc_id.tolist()] == [bool, int, int]
    assert flags.y_true.tolist() == [0, 1, 1]


def test_repeats_are_refused_on_every_path():
    with pytest.raises(ValueError, match=r"user 'u2' has item 'b' twice .* positions 1 and 3"):
        read_recommendations({"u1": ["a"], "u2": ["a", "b", "c", "b", "b"]},
                             {"u1": {"a"}, "u2": {"b"}})
    with pytest.raises(ValueError, match=r"user 1 has item 7 twice .* positions 0 and 2"):
        read_recommendations([[1, 2], [7, 8, 7, 7], [5]], [{1}, {8}, {5}])
    with pytest.raises(ValueError, match=r"user 1 has item 7 twice .* positions 1 and 2"):
        read_recommendations(np.array([[1, 2, 3], [9, 7, 7]]), [{1}, {8}])
    with pytest.raises(ValueError, match=r"user 'u1' lists a relevant item more than once"
                                         r" \('x'\)"):
        read_recommendations({"u0": ["a"], "u1": ["b"]}, {"u0": ["a"], "u1": ["x", "y", "x"]})
    with pytest.raises(ValueError, match=r"user 2 lists a relevant item more than once \(4\)"):
        read_recommendations([[1], [2], [3]], [[1], {2: 1}, [4, 5, 4]])


def test_text_ids_survive_colliding_hashes(monkeypatch):
    # every id hashes alike: the keys of all items agree, and only the ids can tell
    recommended, relevant = random_lists(2, n_users=12)
    rec = {f"u{u}": [f"i{i}" for i in r] for u, r in enumerate(recommended)}
    rel = {f"u{u}": {f"i{i}" for i in r} for u, r in enumerate(relevant)}
    expected = check(rec, rel)
    monkeypatch.setattr(_recommendations, "hash", lambda item: 12345, raising=False)
    assert rows_of(read_recommendations(rec, rel)) == rows_of(expected)


@pytest.mark.parametrize("shuffle", [False, True])
def test_long_tables_in_order_or_not_match_the_reference(shuffle):
    pd = pytest.importorskip("pandas")
    recommended, relevant = random_lists(4, n_users=25, depth=(1, 8), n_relevant=(1, 5))
    rec_rows = [(f"u{u}", item, rank) for u, items in enumerate(recommended)
                for rank, item in enumerate(items, start=1)]
    rel_rows = [(f"u{u}", item) for u, items in enumerate(relevant) for item in items]
    rec_table = pd.DataFrame(rec_rows, columns=["user", "item", "rank"])
    rel_table = pd.DataFrame(rel_rows, columns=["user", "item"]).astype({"item": "int32"})
    if shuffle:
        rec_table = rec_table.sample(frac=1.0, random_state=0)
        rel_table = rel_table.sample(frac=1.0, random_state=1)
    data = read_recommendations(rec_table, rel_table)
    users = list(dict.fromkeys(rel_table["user"]))  # relevant's users first, then others
    users += [u for u in dict.fromkeys(rec_table["user"]) if u not in set(users)]
    lists = {f"u{u}": items for u, items in enumerate(recommended)}
    sets = {f"u{u}": set(items) for u, items in enumerate(relevant)}
    expected = reference_rows(users, lambda u: lists.get(u, []), lambda u: sets.get(u, set()))
    assert rows_of(data) == expected
    assert data.doc_id.dtype == np.int64
    with pytest.raises(ValueError, match="has rank 2 twice"):
        read_recommendations(rec_table.assign(rank=2), rel_table)
