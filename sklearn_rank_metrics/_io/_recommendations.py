"""Ranked item lists against relevant items (the recommender form): :func:`read_recommendations`.

Everything is built from flat arrays: the per-user lists are flattened once
(``itertools.chain`` and ``map`` run in C; a top-N matrix, int lists and integer table
columns become one int64 array), items are coded once, and recommended and relevant
items are matched by ``(user, item)`` keys sorted within each user's list (rows of a
2-D array, sorted in cache) and looked up in one vectorised search: never a Python
loop per user or per item, and no sort of all the items at once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import reduce
from itertools import chain, compress, count, filterfalse
from operator import attrgetter, methodcaller
from typing import Any

import numpy as np

from .._engine._document_ids import _text_codes
from .._engine._plain import plain
from ._ranking_data import RankingData

_NOT_A_LIST = (str, bytes, Mapping, set, frozenset)


@dataclass
class _Flat:
    """Items of many users, flattened: user index, item, and a per-item value."""

    user: np.ndarray  # index into the user list, per item
    items: list | np.ndarray  # item ids, in order (an array from a top-N matrix)
    value: np.ndarray | None  # rank order / score (recommended), grade (relevant)
    position: np.ndarray  # 0-based position within the user's list

    def known_value(self) -> np.ndarray:
        """``value`` where it is set: the grades of relevant items, a long table's ranks
        or scores (only a recommended side read from lists has none)."""
        assert self.value is not None, "a recommended side read from lists has no value"
        return self.value


def _is_user_mapping(value: Any) -> bool:
    """A dict, or a pandas Series indexed by user (not a DataFrame)."""
    if isinstance(value, Mapping):
        return True
    return hasattr(value, "index") and hasattr(value, "items") and not hasattr(value, "columns")


def _is_long_table(value: Any) -> bool:
    return hasattr(value, "columns") and hasattr(value, "__getitem__")


def _user_pairs(
    recommended: Any, relevant: Any
) -> tuple[list, list | np.ndarray, list]:
    """Aligned (users, recommendation lists, relevant items) from mappings or sequences."""
    mappings = (_is_user_mapping(recommended), _is_user_mapping(relevant))
    if mappings == (True, True):
        recommended_map, relevant_map = dict(recommended.items()), dict(relevant.items())
        only_recommended = [u for u in recommended_map if u not in relevant_map]
        only_relevant = [u for u in relevant_map if u not in recommended_map]
        if only_recommended or only_relevant:
            raise ValueError(
                "read_recommendations: recommended and relevant must have the same users; "
                f"{len(only_recommended)} only in recommended (e.g. {only_recommended[:3]}), "
                f"{len(only_relevant)} only in relevant (e.g. {only_relevant[:3]}). Select "
                "the users to evaluate, and give [] or set() for a user without items."
            )
        users = list(relevant_map)
        return users, list(map(recommended_map.__getitem__, users)), list(relevant_map.values())
    if mappings != (False, False):
        raise TypeError(
            "read_recommendations: recommended and relevant must both be mappings "
            "{user: items}, both sequences aligned by position, or long tables."
        )
    for argument, value in (("recommended", recommended), ("relevant", relevant)):
        if isinstance(value, (str, bytes)) or not hasattr(value, "__len__"):
            raise TypeError(
                f"read_recommendations: {argument} must be a mapping {{user: items}}, a "
                f"sequence with one entry per user or a long table; got {type(value).__name__}."
            )
    if len(recommended) != len(relevant):
        raise ValueError(
            f"read_recommendations: recommended has {len(recommended)} users and relevant "
            f"has {len(relevant)}; aligned sequences must have the same length."
        )
    if _is_int_matrix(recommended):  # a top-N matrix: kept whole, not split in rows
        return list(range(len(recommended))), recommended, list(relevant)
    return list(range(len(recommended))), list(recommended), list(relevant)


def _is_int_matrix(value: Any) -> bool:
    """A 2-D array of integer ids: the rows it would be split into all take the
    top-N matrix path (see ``_integer_matrix``)."""
    return isinstance(value, np.ndarray) and value.ndim == 2 and value.dtype.kind in "iu"


def _first_user(users: list, bad: np.ndarray) -> Any:
    return users[int(np.flatnonzero(bad)[0])]


def _top_n_matrix(lists: np.ndarray) -> _Flat:
    """Flatten a top-N matrix: one row of item ids per user, best first."""
    n_users, depth = lists.shape
    return _Flat(
        np.repeat(np.arange(n_users), depth),
        lists.ravel() if lists.dtype.kind in "iuU" else lists.ravel().tolist(),
        None,
        np.tile(np.arange(depth), n_users),
    )


def _recommended_lists(users: list, lists: list | np.ndarray) -> _Flat:
    """Flatten the users' ordered recommendation lists (best first)."""
    if isinstance(lists, np.ndarray):  # an integer top-N matrix (``_is_int_matrix``)
        return _top_n_matrix(lists)
    kinds = set(map(type, lists))
    bad_kinds = {k for k in kinds if issubclass(k, _NOT_A_LIST) or not hasattr(k, "__len__")}
    arrays = [k for k in kinds if issubclass(k, np.ndarray)]
    bad = np.fromiter(map(bad_kinds.__contains__, map(type, lists)), bool, len(lists))
    if arrays:
        bad |= np.fromiter(map(np.ndim, lists), np.intp, len(lists)) != 1
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise TypeError(
            f"read_recommendations: the recommendations of user {users[first]!r} must be an "
            "ordered sequence of item ids (best first); got "
            f"{type(lists[first]).__name__}."
        )
    matrix = _integer_matrix(lists, kinds)
    if matrix is not None:  # equal-length integer arrays: one array, no scalar per item
        return _top_n_matrix(matrix)
    lengths = np.fromiter(map(len, lists), np.intp, len(lists))
    user = np.repeat(np.arange(len(lists)), lengths)
    if kinds <= {list, tuple} and set(map(type, chain.from_iterable(lists))) == {int}:
        # Python ints (no bool): one int64 array, as the general path would make of them
        try:
            flat_ints = np.fromiter(chain.from_iterable(lists), np.int64, len(user))
            return _Flat(user, flat_ints, None, _positions(lengths))
        except OverflowError:  # an id beyond int64: the general path
            pass
    # NumPy scalars hash and compare like the Python values: no conversion per list
    flat = list(chain.from_iterable(lists))
    return _Flat(user, flat, None, _positions(lengths))


def _integer_matrix(lists: list, kinds: set) -> np.ndarray | None:
    """The lists as one 2-D array when all are 1-D integer arrays of one length, else None.

    Flattening such lists one NumPy scalar per item costs a Python object each
    (seconds for millions of items); stacked, they take the top-N matrix path, which
    gives the same rows. Checked before: every list is a 1-D array. Integer dtypes
    only, and only those that promote to an integer dtype (``uint64`` with a signed
    type would become float64): text, object, bool and float arrays keep the general
    path, so that no id changes its type or value.
    """
    if kinds != {np.ndarray} or len(set(map(len, lists))) != 1:
        return None
    dtypes = set(map(attrgetter("dtype"), lists))
    if any(dtype.kind not in "iu" for dtype in dtypes):
        return None
    if reduce(np.promote_types, dtypes).kind not in "iu":
        return None
    return np.stack(lists)


def _positions(lengths: np.ndarray) -> np.ndarray:
    starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
    return np.arange(int(lengths.sum())) - starts


def _relevant_sets(users: list, relevant: list) -> _Flat:
    """Flatten the users' relevant items: sets or sequences (grade 1) or dicts of grades."""
    n = len(relevant)
    kinds = set(map(type, relevant))
    map_kinds = {k for k in kinds if issubclass(k, Mapping)}
    is_map = np.fromiter(map(map_kinds.__contains__, map(type, relevant)), bool, n)
    bad_kinds = {
        k for k in kinds
        if not issubclass(k, Mapping)
        and (issubclass(k, (str, bytes)) or not hasattr(k, "__iter__") or not hasattr(k, "__len__"))
    }
    bad = np.fromiter(map(bad_kinds.__contains__, map(type, relevant)), bool, n)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise TypeError(
            f"read_recommendations: the relevant items of user {users[first]!r} must be a "
            f"set, a sequence or a dict {{item: grade}}; got {relevant[first]!r} (wrap a "
            "single item as {item})."
        )
    parts = []
    for mapped in (True, False):  # two groups, not one step per user
        if not map_kinds or map_kinds == kinds:  # one group: no selection
            if bool(map_kinds) != mapped:
                continue
            chosen, user_index = relevant, np.arange(n)
        else:
            chosen = list(compress(relevant, is_map == mapped))
            user_index = np.flatnonzero(is_map == mapped)
        lengths = np.fromiter(map(len, chosen), np.intp, len(chosen))
        if mapped:
            items = list(chain.from_iterable(chosen))
            grades = _grades(list(chain.from_iterable(map(methodcaller("values"), chosen))),
                             np.repeat(user_index, lengths), items, users)
        else:
            items = list(chain.from_iterable(chosen))
            grades = np.ones(len(items))
        parts.append((np.repeat(user_index, lengths), items, grades, _positions(lengths)))
    if len(parts) == 1:
        return _Flat(*parts[0])
    return _Flat(
        np.concatenate([parts[0][0], parts[1][0]]),
        parts[0][1] + parts[1][1],
        np.concatenate([parts[0][2], parts[1][2]]),
        np.concatenate([parts[0][3], parts[1][3]]),
    )


def _grades(values: list, user: np.ndarray, items: list, users: list) -> np.ndarray:
    """Grades as float64; each a finite number (no bool), or an error naming the item."""
    numeric = (int, float, np.integer, np.floating)
    kinds = set(map(type, values))
    wrong = {k for k in kinds if not issubclass(k, numeric) or issubclass(k, (bool, np.bool_))}
    grades = np.full(len(values), np.nan)
    is_wrong = np.fromiter(map(wrong.__contains__, map(type, values)), bool, len(values))
    grades[~is_wrong] = np.fromiter(
        compress(values, ~is_wrong), np.float64, int(np.count_nonzero(~is_wrong))
    )
    bad = is_wrong | ~np.isfinite(grades)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        error = TypeError if is_wrong[first] else ValueError
        raise error(
            f"read_recommendations: the grade of item {items[first]!r} of user "
            f"{users[user[first]]!r} must be a finite number; got {values[first]!r}."
        )
    return grades


def _long_table(
    table: Any, users: dict, *, user: Any, item: Any, value: Any, what: str
) -> _Flat:
    """Rows of a long table ``(user, item[, value])``; new users are added to ``users``."""
    missing = [c for c in (user, item, value) if c is not None and c not in table.columns]
    if missing:
        raise ValueError(
            f"read_recommendations: the {what} table has no column {missing[0]!r}; its "
            f"columns are {list(table.columns)}."
        )
    codes = _user_codes(np.asarray(table[user]), users)
    values = None
    if value is not None:
        values = np.asarray(table[value], dtype=np.float64)
        bad = np.flatnonzero(~np.isfinite(values))
        if len(bad):
            raise ValueError(
                f"read_recommendations: column {value!r} of the {what} table must hold "
                f"finite numbers; got {values[bad[0]]} at row {int(bad[0])}."
            )
    items = np.asarray(table[item])
    if items.dtype.kind == "i" or (items.dtype.kind == "u" and items.dtype.itemsize < 8):
        items = items.astype(np.int64)  # what the general path makes of the Python ints
    else:
        items = items.tolist()
    return _Flat(codes, items, values, np.zeros(len(codes), np.intp))


def _user_codes(user_ids: np.ndarray, users: dict) -> np.ndarray:
    """The code of each row's user, adding new users to ``users`` (the next codes, in
    order of first appearance).

    Rows of one user usually come together: each run of equal ids is looked up once
    (a Python step per run, not per row; rows in no order make one run each).
    """
    if not len(user_ids):
        return np.zeros(0, dtype=np.intp)
    starts = np.flatnonzero(np.concatenate([[True], user_ids[1:] != user_ids[:-1]]))
    run_ids = user_ids[starts].tolist()
    users.update(
        zip(filterfalse(users.__contains__, dict.fromkeys(run_ids)), count(len(users)))
    )
    run_codes = np.fromiter(map(users.__getitem__, run_ids), np.intp, len(run_ids))
    return np.repeat(run_codes, np.diff(np.append(starts, len(user_ids))))


def _code_items(
    items: list | np.ndarray, n_users: int, *, exact: bool = False
) -> tuple[np.ndarray, np.ndarray, bool, bool]:
    """Integer codes of the items (equal ids, equal codes), the ids as an array,
    whether the codes are hashes (equal codes may then, very rarely, be unequal ids)
    and whether they are in the order of the ids (integer ids: the id minus the
    smallest).

    Integer ids are their own codes (offset by the smallest). Text ids are coded by
    Python's 64-bit str hash (``map(hash, ...)`` runs in C; the ids stay an object
    array); callers compare the ids wherever codes match and call again with
    ``exact=True`` on a collision. Ids of other or mixed types, and exact codes, come
    from a dict. No step runs Python code per item.
    """
    array = items if isinstance(items, np.ndarray) else None
    if array is None and len(items):
        kinds = set(map(type, items))  # one kind only (np.asarray would turn 1 into "1")
        if kinds <= {int, np.int64, np.int32} and bool not in kinds:
            try:
                # fromiter: no type discovery per item (int32 alone keeps its dtype)
                array = (np.asarray(items) if np.int32 in kinds
                         else np.fromiter(items, np.int64, len(items)))
            except OverflowError:  # beyond int64: what np.asarray makes of it
                try:
                    array = np.asarray(items)
                except OverflowError:
                    array = None
        elif kinds <= {str, np.str_} and not exact:  # Python's own str hash, in C
            array = np.empty(len(items), dtype=object)
            array[:] = items
            return np.fromiter(map(hash, items), np.int64, len(items)), array, True, False
    if array is not None and array.ndim == 1 and array.dtype.kind in "iu" and len(array):
        low, high = int(array.min()), int(array.max())
        if (high - low + 1) * max(n_users, 1) < 2**62:
            codes = array - low if array.dtype == np.int64 else array.astype(np.int64) - low
            return codes, array, False, True
    listed = items.tolist() if isinstance(items, np.ndarray) else items
    try:
        index = dict.fromkeys(listed)
    except TypeError:
        raise TypeError("read_recommendations: the item ids must be hashable.") from None
    index.update(zip(index, count()))
    codes = np.fromiter(map(index.__getitem__, listed), np.int64, len(listed))
    return codes, (array if array is not None else _id_array(listed)), False, False


def _pair_keys(user: np.ndarray, code: np.ndarray, hashed: bool, width: int) -> np.ndarray:
    """One int64 key per (user, item): exact for dense codes, a mixed hash otherwise."""
    if not hashed:
        keys = user.astype(np.int64)  # a copy: the product goes in place
        keys *= width
        keys += code
        return keys
    mixed = user.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    mixed ^= code.view(np.uint64)
    return mixed.view(np.int64)


def _joined(first: list | np.ndarray, second: list | np.ndarray) -> list | np.ndarray:
    """Two item sequences as one (an array when both are arrays of one kind)."""
    if isinstance(first, np.ndarray) and isinstance(second, np.ndarray):
        if first.dtype.kind == second.dtype.kind and first.dtype.kind in "iuU":
            return np.concatenate([first, second])
    if (
        isinstance(first, np.ndarray)
        and first.dtype.kind in "iu"
        and np.promote_types(first.dtype, np.int64).kind == "i"
        and set(map(type, second)) <= {int, np.int64, np.int32}  # no bool, no text
    ):
        # integer ids on both sides: int64, as ``_code_items`` makes of the joined list,
        # without a Python int per item of the array
        try:
            return np.concatenate([first, np.fromiter(second, np.int64, len(second))])
        except OverflowError:  # an id beyond int64: the general path
            pass
    as_list = [part.tolist() if isinstance(part, np.ndarray) else part for part in (first, second)]
    return as_list[0] + as_list[1]


def _neighbours(
    order: np.ndarray, sorted_keys: np.ndarray, user: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """The pairs of entries with equal keys (and equal ``user``, when given), as
    (earlier, later) entry indices: neighbours in a stable order by key."""
    equal = sorted_keys[1:] == sorted_keys[:-1]
    if user is not None:  # the order is by user, then key
        equal &= user[1:] == user[:-1]
    twice = np.flatnonzero(equal)
    return order[twice], order[twice + 1]


def _key_order(
    keys: np.ndarray, user: np.ndarray, lengths: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The entries by user, then key, then entry, where ``user`` does not decrease
    (each user's entries sorted on their own); else by key, then entry (one stable
    argsort: for dense keys, which grow with the user, the same order). And the
    keys in that order."""
    if len(user) < 2 or bool(np.all(user[1:] >= user[:-1])):
        return _segment_order(keys, lengths)
    order = np.argsort(keys, kind="stable")
    return order, keys[order]


def _segment_order(keys: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The entries ordered by segment, then key, then entry, where the segments are
    consecutive runs of ``lengths`` entries (the users' recommendation lists); and the
    keys in that order.

    Each segment is sorted on its own, as a row of a 2-D array (short rows sort in
    cache, several times faster than one sort of all keys); rows shorter than the
    longest are padded, unless that would take more than twice the memory, when one
    ``lexsort`` orders everything. Where the keys' range leaves room, each key
    carries its position in its low bits and one ``sort`` of the values does the
    work of an argsort (distinct values: the order of equal keys is their positions).
    """
    n_segments = len(lengths)
    if not len(keys):
        return np.zeros(0, dtype=np.intp), keys
    depth = int(lengths.max())
    if n_segments * depth > 2 * len(keys) + 4096:
        order = np.lexsort((keys, np.repeat(np.arange(n_segments), lengths)))
        return order, keys[order]
    starts = np.cumsum(lengths) - lengths
    even = bool((lengths == depth).all())
    filled = None if even else np.arange(depth) < lengths[:, None]
    pad = np.iinfo(np.int64).max
    bits = max(depth - 1, 1).bit_length()
    low, high = int(keys.min()), int(keys.max())
    if high - low >= 2 ** (62 - bits):  # no room for the positions: an argsort
        if even:
            position = np.argsort(keys.reshape(n_segments, depth), axis=1, kind="stable")
            order = (starts[:, None] + position).ravel()
        else:
            rows = np.full((n_segments, depth), pad)
            rows[filled] = keys
            # stable: a key equal to the padding stays before it
            order = np.repeat(starts, lengths) + np.argsort(rows, axis=1, kind="stable")[filled]
        return order, keys[order]
    packed = keys - low  # (key - low) << bits | position
    packed <<= bits
    if even:
        rows = packed.reshape(n_segments, depth)
        rows |= np.arange(depth)
        rows.sort(axis=1)
    else:
        packed |= _positions(lengths)
        rows = np.full((n_segments, depth), pad)
        rows[filled] = packed
        rows.sort(axis=1)  # the padding sorts last
        packed = rows[filled]
    position = packed & ((1 << bits) - 1)
    packed >>= bits
    packed += low
    if even:
        return (starts[:, None] + position.reshape(n_segments, depth)).ravel(), packed
    return np.repeat(starts, lengths) + position, packed


def _lookup(
    sorted_keys: np.ndarray,
    lengths: np.ndarray,
    segment: np.ndarray,
    keys: np.ndarray,
    hashed: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """Where each key is in its segment of ``sorted_keys`` (each segment sorted): the
    indices of the keys found, and their places in ``sorted_keys``.

    Dense keys grow with the segment (the user), so ``sorted_keys`` is sorted as a
    whole: one ``searchsorted``. Hashed keys are sorted within their segments only:
    one binary search for all keys at once, each step halving every key's interval
    (a vectorised gather and compare), ``log2`` of the longest segment steps.
    """
    if not len(sorted_keys) or not len(keys):
        empty = np.zeros(0, dtype=np.intp)
        return empty, empty
    last = len(sorted_keys) - 1
    if not hashed:
        at = np.searchsorted(sorted_keys, keys)
        found = np.flatnonzero(sorted_keys[np.minimum(at, last)] == keys)
        return found, at[found]
    base = (np.cumsum(lengths) - lengths)[segment]
    size = lengths[segment]
    end = base + size
    depth = int(lengths.max())
    even = bool((lengths == depth).all())
    n: Any = depth if even else size.copy()  # the length of each key's interval
    for _ in range(depth.bit_length()):  # the last position below the key, or the first
        half = n >> 1
        index = base + half
        if not even:
            np.minimum(index, last, out=index)  # an empty last segment
        np.add(base, half, out=base, where=sorted_keys[index] < keys)
        n = n - half
    base += sorted_keys[np.minimum(base, last)] < keys  # the first not below the key
    found = np.flatnonzero((base < end) & (sorted_keys[np.minimum(base, last)] == keys))
    return found, base[found]


def _order_recommended(rec: _Flat, by_rank: bool, users: list) -> _Flat:
    """A long table's rows by user, then rank (ascending) or input order (scores)."""
    value = rec.known_value()
    in_order = bool(np.all(rec.user[1:] >= rec.user[:-1]))
    if in_order and (not by_rank or _ranks_increase(rec.user, value)):
        order = None  # the table's rows are in this order already (as tables often are)
    elif not by_rank:
        order = np.argsort(rec.user, kind="stable")
    else:
        order = np.lexsort((value, rec.user))
        tied = np.flatnonzero(
            (rec.user[order][1:] == rec.user[order][:-1])
            & (value[order][1:] == value[order][:-1])
        )
        if len(tied):
            row = int(order[tied[0] + 1])
            raise ValueError(
                f"read_recommendations: user {users[rec.user[row]]!r} has rank "
                f"{value[row]:g} twice in the recommended table; ranks order a list."
            )
    lengths = np.bincount(rec.user, minlength=len(users))
    if order is None:
        return _Flat(rec.user, rec.items, value, _positions(lengths))
    items = (rec.items[order] if isinstance(rec.items, np.ndarray)
             else list(map(rec.items.__getitem__, order.tolist())))
    return _Flat(rec.user[order], items, value[order], _positions(lengths))


def _ranks_increase(user: np.ndarray, rank: np.ndarray) -> bool:
    """Whether the ranks increase strictly within each user's rows (rows by user)."""
    same_user = user[1:] == user[:-1]
    return bool(np.all(rank[1:][same_user] > rank[:-1][same_user]))


def _id_array(values: list) -> np.ndarray:
    """Ids as given: int64 when they are all ints, else an object array.

    Text ids stay objects: a fixed-width ``<U`` copy would take (ids) x (longest id)
    x 4 bytes, gigabytes for one very long id.
    """
    kinds = set(map(type, values))
    if (
        kinds
        and all(issubclass(kind, (int, np.integer)) for kind in kinds)
        and not any(issubclass(kind, (bool, np.bool_)) for kind in kinds)
    ):
        try:
            return np.array(values, dtype=np.int64)
        except OverflowError:
            pass
    return np.fromiter(values, dtype=object, count=len(values))


def read_recommendations(
    recommended: Any,
    relevant: Any,
    *,
    user: Any = "user",
    item: Any = "item",
    rank: Any = None,
    score: Any = None,
    grade: Any = None,
) -> RankingData:
    """Flat rows from ranked lists of recommended items and the relevant items per user.

    The form of recommender evaluation (the input of ``ml_metrics.mapk(actual,
    predicted, k)``, Kaggle's MAP@k and NDCG@k competitions): for each user a ranked
    list of item ids and the set of items that are relevant (or a dict item ->
    grade); or the long tables that recommender pipelines write, one row per
    (user, item).

    Which MAP@k: ``"map@k"`` (and ``mean_average_precision_score(data, k=k)``) is
    trec_eval's ``map_cut_k``: the precisions at the hits in the top ``k`` divided
    by *all* of the user's relevant items. ``ml_metrics.apk`` / ``mapk`` and
    Kaggle's MAP@k divide by ``min(k, number of relevant items)``: write
    ``"mapk@k"`` (the same as ``"map(denominator=min(k,n_relevant))@k"``, or
    ``denominator="min(k,n_relevant)"``). The two differ whenever a user has more
    than ``k`` relevant items, or relevant items past ``k``; ``mapk@k`` equals
    ml_metrics' value for lists without repeated items, a user without relevant
    items scoring 0 in both.

    Rows, per user: each recommended item, with a score that decreases with its
    position (``len(list) - position``, so ties never occur; a long table's own
    scores when it has them) and its grade as label (0 when not relevant); then each
    relevant item that was not recommended, with score ``-inf`` and its grade: it
    counts toward recall, the AP denominator (including ``min(k, n_relevant)``) and
    the ideal DCG, never toward a position.

    * A user with relevant items and no recommendations is kept: all its rows are
      ``-inf``, so it scores 0.
    * A user with recommendations and no relevant item is kept: the metric's
      ``replace_undefined_by`` policy decides its value (default 0, as ``ml_metrics``).
    * A user with neither has no row, and is an error (it cannot be represented).
    * An item twice in one recommendation list (or in one list of relevant items) is
      an error naming the user and positions; nothing is deduplicated silently.
      (``ml_metrics.apk`` counts a repeated item at its first position only, but
      the repeat still takes a position: dropping repeats changes its value.)

    Parameters
    ----------
    recommended : mapping, sequence or DataFrame
        ``{user: [item, ...]}`` with the best item first, a sequence (list, tuple,
        2-D array) of such lists, one per user, or a long table (a pandas DataFrame)
        with one row per recommended item: columns ``user``, ``item`` and ``rank``
        (1 = best; ranks order each list) or ``score`` (higher = better).
    relevant : mapping, sequence or DataFrame
        ``{user: items}`` (or a sequence aligned with ``recommended``) where ``items``
        is a set or sequence of relevant item ids (grade 1 each) or a dict
        ``{item: grade}``; or a long table with columns ``user``, ``item`` and, if
        ``grade`` names one, the grades. Note the order of the arguments:
        ``mapk(actual, predicted)`` takes the relevant items first.
    user, item : column names, default="user", "item"
        The columns of the user ids and the item ids in long tables.
    rank, score : column name or None, default=None
        The column of a long ``recommended`` table that orders each user's items:
        ``rank`` (ascending) or ``score`` (descending). With neither, a column named
        ``"rank"`` is used if there is one, else one named ``"score"``.
    grade : column name or None, default=None
        The column of grades of a long ``relevant`` table; None: grade 1 for every row.

    Returns
    -------
    data : RankingData
        ``y_true`` (grades), ``y_score``, ``group`` (the user ids; positions
        ``0..n_users-1`` for aligned sequences), ``doc_id`` (the item ids). Users
        come in the order of ``relevant`` (with long tables: those of ``relevant``
        in order of first appearance, then users only in ``recommended``, which have
        no relevant item); a user's unrecommended relevant items follow its
        recommended ones, in item-id order (first-appearance order for ids of mixed
        types, which do not sort). No ``convention``: ranked lists have no tied
        scores for a tool to break, and where recommender tools differ otherwise
        (MAP@k's denominator) the metric's name says which (``map@k`` or
        ``mapk@k``), not the file; a long table's tied scores are averaged unless a
        call names a convention.

    Raises
    ------
    ValueError
        Mappings with different users, aligned sequences of different lengths, a
        duplicate item, a grade that is not a finite number, a user without rows, a
        missing column, a repeated rank.
    TypeError
        A mapping with a sequence, a str or set as a recommendation list, a single
        item instead of a set of relevant items, item ids that are not hashable.

    Notes
    -----
    The work is one flattening of the lists, one coding of the item ids and sorts of
    the ``(user, item)`` keys within each user's list: no Python loop over users or
    items: 100,000 users of 50 integer items each take well under a second
    (``benchmarks/bench_recommendations.py`` compares each input form with building
    its flat NumPy arrays from the same objects).

    Examples
    --------
    >>> from sklearn_rank_metrics import mean_average_precision_score, read_recommendations
    >>> from sklearn_rank_metrics import evaluate
    >>> recommended = {"u1": ["a", "b", "c"], "u2": ["x", "y"]}
    >>> relevant = {"u1": {"b", "w", "z"}, "u2": {"x"}}
    >>> data = read_recommendations(recommended, relevant)
    >>> data.doc_id.tolist(), data.y_true.tolist(), data.y_score.tolist()
    (['a', 'b', 'c', 'w', 'z', 'x', 'y'], [0.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0],
     [3.0, 2.0, 1.0, -inf, -inf, 2.0, 1.0])
    >>> mean_average_precision_score(data, k=2)  # trec_eval: u1 (1/2) / 3 relevant, u2 1
    0.5833333333333334
    >>> evaluate(data, metrics=["map@2", "mapk@2"])  # mapk: u1 (1/2) / min(2, 3), u2 1
    {'map@2': 0.5833333333333334, 'mapk@2': 0.625}
    """
    if _is_long_table(recommended) or _is_long_table(relevant):
        rec, rel, users, scored = _from_tables(
            recommended, relevant, user=user, item=item, rank=rank, score=score, grade=grade
        )
    else:
        users, lists, relevant_lists = _user_pairs(recommended, relevant)
        rec = _recommended_lists(users, lists)
        rel = _relevant_sets(users, relevant_lists)
        scored = False
    if not users:
        raise ValueError("read_recommendations: no user given.")
    return _rows(rec, rel, users, scored)


def _from_tables(
    recommended: Any, relevant: Any, **columns: Any
) -> tuple[_Flat, _Flat, list, bool]:
    """Both sides as flat rows when at least one is a long table (users: union)."""
    for argument, value in (("recommended", recommended), ("relevant", relevant)):
        if not _is_long_table(value):
            raise TypeError(
                f"read_recommendations: {argument} must be a long table too when the other "
                "side is one (a DataFrame with one row per user and item)."
            )
    rank, score = columns["rank"], columns["score"]
    if rank is not None and score is not None:
        raise ValueError("read_recommendations: give rank= or score=, not both.")
    if rank is None and score is None:
        if "rank" in recommended.columns:
            rank = "rank"
        elif "score" in recommended.columns:
            score = "score"
        else:
            raise ValueError(
                "read_recommendations: the recommended table needs a rank or score column "
                "(rank= or score=); it has none named 'rank' or 'score'."
            )
    user_codes: dict = {}
    rel = _long_table(relevant, user_codes, user=columns["user"], item=columns["item"],
                      value=columns["grade"], what="relevant")
    if rel.value is None:
        rel.value = np.ones(len(rel.items))
    rec = _long_table(recommended, user_codes, user=columns["user"], item=columns["item"],
                      value=rank if rank is not None else score, what="recommended")
    users = list(user_codes)
    rec = _order_recommended(rec, rank is not None, users)
    rel.position = np.arange(len(rel.items))
    if rank is not None:
        rec.value = None  # positions give the scores, as for lists
    return rec, rel, users, rank is None


def _collide(
    item_ids: np.ndarray, n_rec_rows: int, rel_user: np.ndarray, pairs: list
) -> bool:
    """Whether pairs of rows with equal hashed keys hold different ids, or (relevant
    rows) different users: a hash collision. Rows index recommended rows, then
    relevant ones; two recommended rows, or a recommended row and the relevant row
    found in its user's list, have the same user by construction."""
    for first, second in pairs:
        if not np.array_equal(item_ids[first], item_ids[second]):
            return True
    both_relevant = pairs[1]
    return not np.array_equal(
        rel_user[both_relevant[0] - n_rec_rows], rel_user[both_relevant[1] - n_rec_rows]
    )


def _refuse_repeats(
    rec: _Flat, rel: _Flat, users: list, rec_pairs: tuple, rel_later: np.ndarray
) -> None:
    """An error for the first item listed twice: in a recommendation list (the pair of
    rows with the earliest second row), else among a user's relevant items."""
    if len(rec_pairs[1]):
        which = int(np.argmin(rec_pairs[1]))
        first, second = int(rec_pairs[0][which]), int(rec_pairs[1][which])
        raise ValueError(
            f"read_recommendations: user {plain(users[rec.user[second]])!r} has item "
            f"{plain(rec.items[second])!r} twice in its recommendations, at positions "
            f"{rec.position[first]} and {rec.position[second]} (0-based)."
        )
    if len(rel_later):
        second = int(rel_later.min())
        raise ValueError(
            f"read_recommendations: user {users[rel.user[second]]!r} lists a relevant item "
            f"more than once ({plain(rel.items[second])!r})."
        )


def _by_user_and_id(
    rows: np.ndarray, user: np.ndarray, ids: np.ndarray, codes: np.ndarray, text: bool
) -> np.ndarray:
    """``rows`` ordered by user, then item id (first appearance for ids of mixed
    types, which do not sort). Text ids (``str``, all of them) are ranked in code
    point order by the engine's factoriser, as Python compares them, so that one
    integer sort replaces a sort that compares Python strings."""
    if text and len(rows):
        rank = _text_codes(ids[rows]).astype(np.int64)
        keys = user[rows].astype(np.int64) * (int(rank.max()) + 1) + rank
        ordered = rows[np.argsort(keys, kind="stable")]
        # checked with Python's own comparison, one per row (NumPy's StringDType, which
        # the factoriser uses for non-ASCII ids, ends a string at a NUL on NumPy 2.4)
        same = user[ordered[1:]] == user[ordered[:-1]]
        sorted_ids = ids[ordered]
        if np.all(sorted_ids[1:][same] > sorted_ids[:-1][same]):
            return ordered
    try:
        return rows[np.lexsort((ids[rows], user[rows]))]
    except TypeError:
        return rows[np.lexsort((codes[rows], user[rows]))]


def _rows(
    rec: _Flat, rel: _Flat, users: list, scored: bool, exact: bool = False
) -> RankingData:
    """Match recommended and relevant items by ``(user, item)`` and build the rows.

    Each user's recommended keys are sorted within the user's list (short rows, sorted
    in cache); every relevant key is looked up in its user's list by one vectorised
    binary search; one sort of the relevant keys finds any listed twice. No sort
    covers all the items at once.
    """
    codes, item_ids, hashed, ordered = _code_items(
        _joined(rec.items, rel.items), len(users), exact=exact
    )
    n_rec_rows = len(rec.user)
    width = int(codes.max()) + 1 if len(codes) and not hashed else 1
    rec_key = _pair_keys(rec.user, codes[:n_rec_rows], hashed, width)
    rel_key = _pair_keys(rel.user, codes[n_rec_rows:], hashed, width)
    n_users = len(users)
    n_rec = np.bincount(rec.user, minlength=n_users)
    n_rel = np.bincount(rel.user, minlength=n_users)
    if hashed and len(codes):
        # fewer bits of hash (still 50 or more for lists up to 4096 items), so that
        # each key has room for its position in the sort of its user's list; keys
        # that become equal are compared by id below, as any hash collision
        longest = max(int(n_rec.max()), int(n_rel.max()))
        shift = max(longest - 1, 1).bit_length() + 2
        rec_key >>= shift
        rel_key >>= shift
    # both sides by user, then key: equal neighbours are an item listed twice
    rec_order, sorted_key = _segment_order(rec_key, n_rec)  # rec.user does not decrease
    rec_pairs = _neighbours(rec_order, sorted_key, rec.user if hashed else None)
    rel_order, rel_sorted = _key_order(rel_key, rel.user, n_rel)
    rel_pairs = _neighbours(rel_order, rel_sorted, None)  # users: checked by _collide
    rel_user = rel.user[rel_order]
    hit_sorted, at = _lookup(sorted_key, n_rec, rel_user, rel_sorted, hashed)
    hit_rel, hit_rec = rel_order[hit_sorted], rec_order[at]
    if hashed and _collide(
        item_ids, n_rec_rows, rel.user,
        [rec_pairs, (rel_pairs[0] + n_rec_rows, rel_pairs[1] + n_rec_rows),
         (hit_rec, hit_rel + n_rec_rows)],
    ):
        return _rows(rec, rel, users, scored, exact=True)  # a hash collision
    _refuse_repeats(rec, rel, users, rec_pairs, rel_pairs[1])
    # the grade of every recommended item, and which relevant items were recommended
    labels = np.zeros(n_rec_rows)
    grades = rel.known_value()
    labels[hit_rec] = grades[hit_rel]
    recommended_rel = np.zeros(len(rel_key), bool)
    recommended_rel[hit_sorted] = True
    # the others, in key order: (user, id) order for integer ids
    missed = rel_order[~recommended_rel]
    if not ordered:
        missed = _by_user_and_id(
            missed, rel.user, item_ids[n_rec_rows:], codes[n_rec_rows:], hashed
        )
    missed_user = rel.user[missed]
    n_missed = np.bincount(missed_user, minlength=n_users)
    n_rows = n_rec + n_missed
    if (n_rows == 0).any():
        raise ValueError(
            f"read_recommendations: user {_first_user(users, n_rows == 0)!r} has no "
            "recommendations and no relevant items, so it has no row; leave it out or "
            "give it an item."
        )
    # each user's rows: its recommended items in list order (the order of rec's
    # entries), then its missed ones
    starts = np.cumsum(n_rows) - n_rows
    at_missed = (starts + n_rec)[missed_user] + _positions(n_missed)
    size = int(n_rows.sum())
    is_missed = np.zeros(size, dtype=bool)
    is_missed[at_missed] = True
    is_rec = ~is_missed
    y_true, y_score = np.empty(size), np.empty(size)
    y_true[is_rec], y_true[is_missed] = labels, grades[missed]
    y_score[is_rec] = rec.value if scored else n_rec[rec.user] - rec.position
    y_score[is_missed] = -np.inf
    doc_id = np.empty(size, dtype=item_ids.dtype)
    doc_id[is_rec], doc_id[is_missed] = item_ids[:n_rec_rows], item_ids[n_rec_rows + missed]
    return RankingData(y_true, y_score, np.repeat(_id_array(users), n_rows), doc_id=doc_id)
