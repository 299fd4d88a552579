"""User input to NumPy, checked once: arrays, labels and scores, query ids, weights.

The input layer every entry point shares: array conversion with messages that name
the argument and the first bad row, the one query-id factoriser, per-query weights,
and an estimator's ranking scores (``response_values``: an estimator's output is
user input too). :func:`~._ranked_groups.rank_groups` builds on it.
"""

from __future__ import annotations

import sys
from itertools import repeat
from typing import Any

import numpy as np

from ._caller import caller_name
from ._containers import first_missing, from_dlpack, is_dlpack_array, library_of
from ._errors import RowValueError
from ._mixups import refuse_fractional_ids, sizes_hint
from ._present import present

RESPONSE_METHODS = ("auto", "predict", "predict_proba", "decision_function")


def _from_arrow(value: Any) -> bool:
    """A pyarrow Array or ChunkedArray (whose ``to_numpy`` refuses copies by default)."""
    return library_of(value) == "pyarrow"


def to_numpy(value: Any, name: str) -> np.ndarray:
    """Any array-like to NumPy, without copying when possible; a null is refused.

    Lists, NumPy, pandas (NumPy, nullable and Arrow dtypes), polars, pyarrow
    ``Array`` / ``ChunkedArray``, and arrays of other libraries on the CPU through
    DLPack (Array API arrays, torch, JAX) or ``__array__``. A missing value (null)
    of pandas, polars or pyarrow is refused naming ``name`` and its row; a numeric
    column without nulls (polars, pyarrow, DLPack) is read in place, without a copy.
    """
    _refuse_missing(value, name)
    return _converted(value, name)


def _refuse_missing(value: Any, name: str) -> None:
    """Refuse the first null of a pandas, polars or pyarrow column, naming it and its row.

    The message shows the value as its library shows it (``<NA>``, ``null``).
    """
    missing = first_missing(value)
    if missing is None:
        return
    shape = getattr(value, "shape", None)  # a pyarrow array has a length only
    where = format_index(missing.position, tuple(shape) if shape is not None else (len(value),))
    raise ValueError(
        f"{name} of {caller_name()} must not be missing; got {missing.shown} at {where}, "
        "a missing value (null): drop or fill those rows first."
    )


def _converted(value: Any, name: str) -> np.ndarray:
    """:func:`to_numpy` without the null check: the conversion alone."""
    if hasattr(value, "to_numpy") and not isinstance(value, np.ndarray):
        return _from_frame_library(value, name)
    check_array_like(value, name)
    if np.ma.isMaskedArray(value):
        masked = np.flatnonzero(np.ma.getmaskarray(value).reshape(-1))
        if len(masked):
            raise ValueError(
                f"{name} is a masked array with masked values (the first at flat position "
                f"{int(masked[0])}); the mask is not a missing-value rule here: drop or "
                "fill those rows (e.g. .compressed() on every array, or .filled())."
            )
        return np.ma.getdata(value)
    if is_dlpack_array(value):
        array = from_dlpack(value, name)
        if array is not None:
            return array
    return np.asarray(value)


def first_text(array: np.ndarray) -> int | None:
    """Flat index of the first text value (str or bytes) of ``array``, or None.

    A str or bytes dtype is text throughout; an object array is scanned value by
    value ("0.5" is text, whatever it says).
    """
    if array.dtype.kind in "US":
        return 0 if array.size else None
    if array.dtype.kind != "O":
        return None
    text = np.fromiter(map(isinstance, array.ravel(), repeat((str, bytes))), bool, array.size)
    return first_bad(text)


def _from_frame_library(value: Any, name: str) -> np.ndarray:
    """A pandas, polars or pyarrow column (anything with ``to_numpy``) as NumPy.

    A pyarrow array converts with a copy where Arrow needs one (strings, booleans,
    several chunks); a numeric one without nulls is read in place.
    """
    try:
        if _from_arrow(value):
            return np.asarray(value.to_numpy(zero_copy_only=False))
        return np.asarray(value.to_numpy())
    except (TypeError, ValueError) as error:  # pragma: no cover - exotic pandas
        raise TypeError(f"{name} could not be converted to a NumPy array: {error}") from None


def check_array_like(value: Any, name: str) -> None:
    """Refuse what is no array of rows: text, a scalar, a sparse matrix, an iterator."""
    if isinstance(value, (str, bytes)) or np.isscalar(value):
        raise TypeError(
            f"{name} of {caller_name()} must be an array-like, got {type(value).__name__} "
            "instead."
        )
    if hasattr(value, "tocsr") or hasattr(value, "todense"):  # scipy.sparse
        raise TypeError(
            f"{name} of {caller_name()} must be a dense array-like; got a sparse "
            f"{type(value).__name__} (convert it with .toarray())."
        )
    if not hasattr(value, "__len__") and not hasattr(value, "__array__") and not (
        is_dlpack_array(value)
    ):
        raise TypeError(
            f"{name} of {caller_name()} must be an array-like (list, NumPy array, pandas "
            f"Series); got {type(value).__name__} (a generator or iterator: pass list(...))."
        )


def read_if_dlpack(value: Any, name: str) -> Any:
    """An array of another library read through DLPack (:func:`to_numpy`), else ``value``.

    For checks that take array-likes as they are (scikit-learn's ``check_array``),
    so that a tensor on another device is refused by name, never half-converted.
    """
    return _converted(value, name) if is_dlpack_array(value) else value


def plain_array(value: Any, name: str | None = None) -> np.ndarray:
    """``value`` as NumPy for comparing shapes or ids; the validation names bad values.

    With ``name``, a missing value (null) is refused here, naming it; an array on
    another device, or a tensor that records gradients, is refused either way.
    """
    if name is not None:
        _refuse_missing(value, name)
    if is_dlpack_array(value):
        return _converted(value, name or "value")
    if hasattr(value, "to_numpy") and not isinstance(value, np.ndarray):
        try:
            return _from_frame_library(value, name or "value")
        except TypeError:
            pass
    return np.asarray(value)


def format_index(flat_index: int, shape: tuple) -> str:
    if len(shape) == 1:
        return f"row {flat_index}"
    return f"row {flat_index // shape[1]}, column {flat_index % shape[1]}"


def as_float(value: Any, name: str) -> np.ndarray:
    array = to_numpy(value, name)
    if array.dtype.kind not in "biuf":
        if array.dtype.kind == "O":
            first = first_text(array)
            if first is not None:  # "0.5" is text, whatever it says: as for a str array
                raise TypeError(
                    f"{name} of {caller_name()} must hold numbers; got text "
                    f"{array.ravel()[first]!r} at {format_index(first, array.shape)}."
                )
            try:
                array = array.astype(np.float64)
            except (TypeError, ValueError):
                raise TypeError(
                    f"{name} of {caller_name()} must hold numbers; got values of dtype object "
                    "that are not numbers."
                ) from None
        else:
            raise TypeError(
                f"{name} of {caller_name()} must hold numbers; got dtype {array.dtype} instead."
            )
    return np.asarray(array, dtype=np.float64)


_EXACT_INTEGERS = 2**53  # float64 holds every integer up to this magnitude


def scores_as_float(value: Any) -> np.ndarray:
    """``y_score`` as float64, keeping the order and ties of integer scores exactly.

    Integer scores beyond 2**53 (nanosecond timestamps, hashes) would round to equal
    floats and tie; they are replaced by their dense ranks (one sort), which every
    metric reads the same way, since metrics depend on the order of the scores only.
    """
    array = to_numpy(value, "y_score")
    if array.dtype.kind in "iu" and array.size:
        low, high = array.min(), array.max()
        if high > _EXACT_INTEGERS or low < -_EXACT_INTEGERS:
            _, ranks = np.unique(array, return_inverse=True)
            return ranks.reshape(array.shape).astype(np.float64)
    return as_float(array, "y_score")


def first_bad(mask: np.ndarray) -> int | None:
    flat = np.flatnonzero(mask)
    return int(flat[0]) if len(flat) else None


# the ranking inputs every entry point takes, in the order messages list them
INPUT_NAMES = ("y_true", "y_score", "group", "sample_weight", "judged")


def check_pandas_indexes(arrays: dict[str, Any]) -> None:
    """Refuse pandas inputs whose indexes differ: rows are paired by position here.

    pandas would align such Series by index label; pairing them by position instead
    would be silently wrong, so they must share one index (or be passed as arrays).
    """
    pandas = sys.modules.get("pandas")  # no pandas object exists before its import
    if pandas is None:
        return
    indexed = [(name, value.index) for name, value in arrays.items()
               if isinstance(value, (pandas.Series, pandas.DataFrame))]
    for name, index in indexed[1:]:
        first_name, first_index = indexed[0]
        if not first_index.equals(index):
            raise ValueError(
                f"{first_name} and {name} of {caller_name()} are pandas objects with "
                "different indexes; rows are paired by position, so align them first "
                f"(e.g. {name}.reindex({first_name}.index)) or pass NumPy arrays."
            )


def check_shapes(
    y_true: np.ndarray, y_score: np.ndarray, names: tuple[str, str] = ("y_true", "y_score")
) -> None:
    """Two per-row inputs (``names``: their parameters) of one shape, 1-D or 2-D, not
    empty."""
    first, second = names
    if y_true.ndim not in (1, 2):
        raise ValueError(
            f"{first} of {caller_name()} must be 1-D (flat rows) or 2-D (n_queries, n_docs); "
            f"got {y_true.ndim} dimensions."
        )
    if y_true.shape != y_score.shape:
        raise ValueError(
            f"{first} and {second} of {caller_name()} must have the same shape; "
            f"got {y_true.shape} and {y_score.shape}."
        )
    if y_true.size == 0:
        raise ValueError(f"{first} of {caller_name()} is empty; at least one row is needed.")


def missing_group_error() -> ValueError:
    """The error for flat rows without query ids: never one silent query.

    Treating every row as one query gives plausible, wrong numbers (a mean over one
    "query" instead of the per-query mean), so it must be asked for explicitly.
    """
    return ValueError(
        f"The 'group' parameter of {caller_name()} is required with flat (1-D) y_true: "
        "pass the query id of every row, e.g. group=qid. To score all rows as ONE query "
        "on purpose, say so with group=np.zeros(len(y_true)). scikit-learn's 2-D form "
        "(n_queries, n_docs), one query per row, needs no group. A RankingData (what the "
        "readers return) carries its groups: pass it whole as the first argument."
    )


def check_values(y_true: np.ndarray, y_score: np.ndarray) -> None:
    # A finite sum proves every value finite (a NaN or an infinity would propagate);
    # only when it is not (or overflows) are the rows scanned for the first bad one.
    # The same for NaN scores, where -inf and +inf are allowed and may sum to NaN.
    with np.errstate(over="ignore", invalid="ignore"):
        label_sum = np.add.reduce(y_true, axis=None)
        score_sum = np.add.reduce(y_score, axis=None)
    if np.isfinite(label_sum) and not np.isnan(score_sum):
        return
    bad = first_bad(~np.isfinite(y_true))
    if bad is not None:
        raise ValueError(
            f"y_true of {caller_name()} must be finite; got {y_true.flat[bad]} at "
            f"{format_index(bad, y_true.shape)}."
        )
    _refuse_nan_scores(y_score)


def check_scores(y_score: np.ndarray) -> None:
    """:func:`check_values` of the scores alone, for labels checked before (the same
    rows with another model's scores)."""
    with np.errstate(over="ignore", invalid="ignore"):
        score_sum = np.add.reduce(y_score, axis=None)
    if np.isnan(score_sum):
        _refuse_nan_scores(y_score)


def _refuse_nan_scores(y_score: np.ndarray) -> None:
    bad = first_bad(np.isnan(y_score))
    if bad is not None:
        raise ValueError(
            f"y_score of {caller_name()} must not be NaN; got NaN at "
            f"{format_index(bad, y_score.shape)}."
        )


def query_id_column(X: Any, column: Any, owner: str) -> Any:
    """The query-id column ``column`` of a DataFrame ``X``, or a clear error from ``owner``.

    A pandas ``X`` is read by pandas itself (as before, duplicate or non-string
    column labels included); any other frame narwhals reads eagerly (polars, a
    pyarrow Table, ...) through narwhals, and the column comes back in its library.
    """
    if library_of(X) == "pandas":
        columns = getattr(X, "columns", None)
        if columns is None:  # a Series
            raise _not_a_frame(X, column, owner)
        _check_has_column(list(columns), column, owner)
        return X[column]
    frame = _eager_frame(X, column, owner)
    _check_has_column(frame.columns, column, owner)
    return frame.get_column(column).to_native()


def drop_column(X: Any, column: Any) -> Any:
    """``X`` without ``column``, a frame of the same library (:func:`query_id_column`)."""
    if library_of(X) == "pandas":
        return X.drop(columns=[column])
    import narwhals as nw

    return nw.from_native(X, eager_only=True).drop(column).to_native()


def _eager_frame(X: Any, column: Any, owner: str) -> Any:
    """``X`` as a narwhals eager DataFrame, or the error that says what X must be."""
    import narwhals as nw

    frame = nw.from_native(X, eager_only=True, pass_through=True)
    if not isinstance(frame, nw.DataFrame):
        raise _not_a_frame(X, column, owner)
    return frame


def _not_a_frame(X: Any, column: Any, owner: str) -> TypeError:
    collect = " (a lazy frame: collect it first)" if hasattr(X, "collect") else ""
    return TypeError(
        f"{owner} reads the query ids from column {column!r} of X, so X must be a "
        f"DataFrame (pandas, polars, pyarrow Table, ...); got {type(X).__name__}{collect}."
    )


def _check_has_column(columns: list, column: Any, owner: str) -> None:
    if column not in columns:
        listed = ", ".join(repr(name) for name in columns[:10])
        raise ValueError(
            f"{owner}: X has no column {column!r} of query ids; its columns are "
            f"{listed}{', ...' if len(columns) > 10 else ''}."
        )


def factorize_dense_integers(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Codes of integer ids spanning a range at most a few times the row count.

    A table over ``[min, max]`` maps each id to its rank among the ids present: two
    linear passes instead of the sort inside ``np.unique``. None for sparse ids.
    """
    low, high = int(ids.min()), int(ids.max())
    if high - low >= 2 * len(ids) + 1024:
        return None
    if not low:
        shifted = ids
    elif ids.dtype.kind == "u":
        shifted = ids - ids.dtype.type(low)  # no wrap: every id is >= low
    else:
        shifted = ids.astype(np.int64) - low  # small ints would wrap in their own dtype
    offset_ids = shifted.astype(np.intp, copy=False)
    present = np.zeros(high - low + 1, dtype=bool)
    present[offset_ids] = True
    code_of_value = np.cumsum(present, dtype=np.intp)
    code_of_value -= 1
    # back to the ids' dtype; adding ``low`` there wraps exactly as the subtraction did
    values = np.flatnonzero(present).astype(ids.dtype)
    if low:
        values += ids.dtype.type(low)
    return code_of_value[offset_ids], values


def only_str(values: np.ndarray, *, fast_only: bool = False) -> bool:
    """Whether every entry of an object array is a ``str`` (a subclass too): then none
    is missing, and none is of another type.

    One pass in C where pandas is imported (its ``infer_dtype``, ~5x faster than a
    Python-level pass), else one pass collecting the types, or, with ``fast_only``,
    False at once (for a caller whose general path costs no more than that pass). A
    sufficient test: False sends the caller to its general path, which gives the
    same result.
    """
    if not len(values):
        return True
    pd = sys.modules.get("pandas")
    if pd is not None:
        return bool(pd.api.types.infer_dtype(values, skipna=False) == "string")
    if fast_only:
        return False
    return all(issubclass(kind, str) for kind in set(map(type, values)))


def missing_objects(values: np.ndarray) -> np.ndarray:
    """Which entries of an object array are missing: None, NaN, or pandas' NA / NaT.

    pandas' missing values exist only once pandas is imported: before that (the
    readers' ids, the command line) only None and NaN can occur, found by two
    comparisons NumPy loops over (NaN is the value unequal to itself), without
    importing pandas for them.
    """
    pd = sys.modules.get("pandas")
    if pd is not None:
        return np.asarray(pd.isna(values), dtype=bool)
    try:
        with np.errstate(invalid="ignore"):
            none = np.equal(values, np.array(None, dtype=object))
            return np.asarray(none | np.not_equal(values, values), dtype=bool)
    except (TypeError, ValueError):  # an entry whose comparison is not one bool
        return np.fromiter(
            (item is None or item != item for item in values), dtype=bool, count=len(values)
        )


def factorize_groups(
    group: Any, n_rows: int
) -> tuple[np.ndarray, np.ndarray]:
    """Query ids to codes ``0..n_queries-1`` (in sorted id order) and the distinct ids.

    Errors name the caller (see ``_caller``).
    """
    codes, ids, sizes = factorize_groups_with_sizes(group, n_rows)
    if codes is None:
        codes = np.repeat(np.arange(len(ids)), present(sizes, "sizes"))
    return codes, ids


def factorize_groups_with_sizes(
    group: Any, n_rows: int
) -> tuple[np.ndarray | None, np.ndarray, np.ndarray | None]:
    """:func:`factorize_groups`, plus the rows per query when ids are already sorted.

    When the integer ids are non-decreasing the codes are contiguous: the first item
    is then None (the rows per query say everything) and the third the rows per
    query; otherwise the third is None.
    """
    dtype = getattr(group, "dtype", None)
    if dtype is not None and getattr(dtype, "name", "") == "category":
        codes, ids = _categorical_codes(group)
        return codes, ids, None
    ids_array = _checked_ids(group, n_rows)
    if ids_array.dtype.kind in "biu" and np.all(ids_array[1:] >= ids_array[:-1]):
        starts = np.flatnonzero(ids_array[1:] != ids_array[:-1])
        starts += 1
        starts = np.concatenate(([0], starts))
        sizes = np.diff(starts, append=len(ids_array))
        return None, ids_array[starts], sizes
    if ids_array.dtype.kind in "biu" and len(ids_array):
        dense = factorize_dense_integers(ids_array)
        if dense is not None:
            return dense + (None,)
    if ids_array.dtype.kind == "O" and len(ids_array) > 1:
        runs = _factorize_text_runs(ids_array)
        if runs is not None:
            return runs
    try:
        ids, codes = np.unique(ids_array, return_inverse=True)
    except TypeError:
        raise TypeError(
            f"group of {caller_name()} mixes query ids that cannot be compared "
            "(e.g. ints and strings)."
        ) from None
    return codes.reshape(-1), ids, None


def _factorize_text_runs(
    ids: np.ndarray,
) -> tuple[np.ndarray | None, np.ndarray, np.ndarray | None] | None:
    """String ids whose rows come in runs (a query's rows together, as readers give
    them): the runs' ids sorted, not every row's (:func:`factorize_groups_with_sizes`'s
    result, the same as ``np.unique`` gives); None where the ids are not all ``str``
    or the runs are not much fewer than the rows."""
    starts = np.flatnonzero(ids[1:] != ids[:-1])
    if 2 * len(starts) > len(ids):
        return None
    starts += 1
    starts = np.concatenate(([0], starts))
    run_ids = ids[starts]
    if set(map(type, run_ids)) != {str}:  # a row that is not a str starts a run
        return None
    distinct, run_codes = np.unique(run_ids, return_inverse=True)
    sizes = np.diff(starts, append=len(ids))
    run_codes = run_codes.reshape(-1)
    if len(distinct) == len(run_ids) and np.all(run_codes[1:] > run_codes[:-1]):
        return None, distinct, sizes  # one run per query, queries in id order
    return np.repeat(run_codes, sizes), distinct, None


def _categorical_codes(group: Any) -> tuple[np.ndarray, np.ndarray]:
    """Codes and ids of a pandas Categorical of query ids (the categories used)."""
    categorical = getattr(group, "array", group)
    codes = np.asarray(categorical.codes)
    bad = first_bad(codes < 0)
    if bad is not None:
        raise ValueError(
            f"group of {caller_name()} must not be missing; got a missing id at row {bad}."
        )
    used, codes = np.unique(codes, return_inverse=True)
    return codes.reshape(-1), np.asarray(categorical.categories)[used]


def _checked_ids(group: Any, n_rows: int) -> np.ndarray:
    """The query ids as a 1-D array of one id per row, none missing, of a usable dtype."""
    ids_array = to_numpy(group, "group")
    if ids_array.ndim != 1:
        raise ValueError(
            f"group of {caller_name()} must be 1-D with one query id per row; "
            f"got shape {ids_array.shape}."
        )
    if len(ids_array) != n_rows:
        raise ValueError(
            f"group of {caller_name()} must have one id per row ({n_rows}); "
            f"got {len(ids_array)}.{sizes_hint(ids_array, n_rows)}"
        )
    if ids_array.dtype.kind == "f":
        bad = first_bad(np.isnan(ids_array))
        if bad is not None:
            raise ValueError(f"group of {caller_name()} must not be NaN; got NaN at row {bad}.")
        refuse_fractional_ids(ids_array)  # scores passed as group
    elif ids_array.dtype.kind == "O":
        # ids that are all str miss none (one pass in C, where pandas is imported)
        complete = only_str(ids_array, fast_only=True)
        bad = None if complete else first_bad(missing_objects(ids_array))
        if bad is not None:
            raise ValueError(
                f"group of {caller_name()} must not be missing; "
                f"got {ids_array[bad]!r} at row {bad}."
            )
    elif ids_array.dtype.kind not in "biuUS":
        raise TypeError(
            f"group of {caller_name()} must hold integer or string query ids; "
            f"got dtype {ids_array.dtype}."
        )
    return ids_array


def factorize_text_ids(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes ``0..n-1`` in sorted id order, and the sorted distinct ids (object array).

    For ids that are all ``str`` (the TREC readers'): pandas' hash-based factorize
    when pandas is there, else ``np.unique``; both sort by code point (the byte order
    of UTF-8, trec_eval's ``strcmp``). :func:`factorize_groups` is the general
    factoriser of user input (ints, strings, categoricals), with its checks.
    """
    try:
        import pandas as pd
    except ImportError:
        uniques, codes = np.unique(values, return_inverse=True)
        return codes.reshape(-1), uniques.astype(object)
    codes, uniques = pd.factorize(values)
    uniques = np.asarray(uniques, dtype=object)
    # a fixed-width copy sorts faster than the objects, but takes (number of ids) x
    # (longest id) x 4 bytes: sort the objects when that copy would be mostly padding
    lengths = np.fromiter(map(len, uniques), dtype=np.int64, count=len(uniques))
    if (
        len(uniques) and int(lengths.max()) * len(uniques) > 4 * (int(lengths.sum()) + 64)
    ) or "\x00" in "".join(uniques):  # the copy would drop a trailing NUL ("a\x00" == "a")
        order = np.argsort(uniques, kind="stable")
    else:
        order = np.argsort(uniques.astype(str), kind="stable")
    rank = np.empty(len(order), dtype=np.intp)
    rank[order] = np.arange(len(order))
    return rank[codes], uniques[order]


_FLOAT32_MAX = float(np.finfo(np.float32).max)


def row_weights(
    sample_weight: Any,
    queries: Any,
    two_dimensional: bool,
    single_precision_tool: str | None = None,
) -> np.ndarray | None:
    """``sample_weight`` checked: one weight per row, constant within each query.

    For the 2-D form one weight per query (row of the input). None when no weights
    were given. Errors name the caller, the rule and the first bad row (for weights
    that vary within a query: the first row that differs from its query's first row,
    in input order). ``queries``: the :class:`~._rows.Queries` of the rows.
    ``single_precision_tool``: the convention whose tool stores weights in float32
    (the boosters): the weights are rounded so, a weight float32 cannot hold being
    refused first, by its row (after the cast the checks would only see ``inf``).
    """
    if sample_weight is None:
        return None
    weights = as_float(sample_weight, "sample_weight")
    if single_precision_tool is not None:
        weights = _float32_weights(weights, single_precision_tool)
    n_rows = int(queries.offsets[-1])
    expected = queries.n_queries if two_dimensional else n_rows
    unit = (
        "one weight per query (row of the 2-D input)" if two_dimensional else "one weight per row"
    )
    if weights.ndim != 1 or len(weights) != expected:
        raise ValueError(
            f"sample_weight of {caller_name()} must have {unit}: {expected} values; "
            f"got shape {weights.shape}."
        )
    bad = first_bad(~np.isfinite(weights) | (weights < 0))
    if bad is not None:
        raise ValueError(
            f"sample_weight of {caller_name()} must be finite and >= 0; "
            f"got {weights[bad]} at row {bad}."
        )
    if two_dimensional:
        return weights
    # compare every row with the first row (in input order) of its query
    codes = queries.row_codes()
    first_input_row = np.full(queries.n_queries, n_rows, dtype=np.intp)
    np.minimum.at(first_input_row, codes, np.arange(n_rows, dtype=np.intp))
    reference = weights[first_input_row]
    bad = first_bad(weights != reference[codes])
    if bad is not None:
        raise ValueError(
            f"sample_weight of {caller_name()} must be constant within each query; "
            f"row {bad} has weight {weights[bad]} but row {first_input_row[codes[bad]]} of "
            f"the same query has {reference[codes[bad]]}."
        )
    return weights


def _float32_weights(weights: np.ndarray, tool: str) -> np.ndarray:
    bad = first_bad(~(np.abs(weights) <= _FLOAT32_MAX))  # NaN and infinities too
    if bad is not None:
        raise ValueError(
            f"sample_weight of {caller_name()} must be finite and at most "
            f"{_FLOAT32_MAX:.7g} under convention={tool!r}, which stores weights "
            f"in single precision (float32) as the tool does; got "
            f"{float(weights.flat[bad])!r} at {format_index(bad, weights.shape)}."
        )
    return weights.astype(np.float32).astype(np.float64)


def response_values(estimator: Any, X: Any, response_method: str = "auto") -> np.ndarray:
    """One ranking score per row of ``X`` from a fitted estimator.

    ``"auto"``: ``predict`` for regressors, rankers and any non-classifier; for a
    classifier ``predict_proba`` if it has one, else ``decision_function``.
    ``"predict_proba"``: the probability of ``classes_[1]`` for two classes, and the
    expected grade ``sum_c P(c) * c`` for more (numeric classes only).
    ``"decision_function"``: its 1-D output (binary classifiers).
    """
    from sklearn.base import is_classifier  # scikit-learn only for estimators

    method = response_method
    if method == "auto":
        if not is_classifier(estimator):
            method = "predict"
        elif hasattr(estimator, "predict_proba"):
            method = "predict_proba"
        elif hasattr(estimator, "decision_function"):
            method = "decision_function"
        else:
            raise TypeError(
                f"{type(estimator).__name__} is a classifier without predict_proba or "
                "decision_function, so it gives no ranking score; pass "
                "response_method='predict' to rank by its predicted labels."
            )
    if not hasattr(estimator, method):
        raise TypeError(f"{type(estimator).__name__} has no {method} method to score rows.")
    values = np.asarray(getattr(estimator, method)(X))
    if method == "predict_proba":
        return _proba_to_score(values, np.asarray(estimator.classes_), type(estimator).__name__)
    if values.ndim == 2 and values.shape[1] == 1:
        values = values[:, 0]
    if values.ndim != 1:
        raise ValueError(
            f"{type(estimator).__name__}.{method} returned shape {values.shape}; a ranking "
            "score needs one value per row"
            + (" (use response_method='predict_proba' for the expected grade)." if
               method == "decision_function" else ".")
        )
    return values


def _proba_to_score(proba: np.ndarray, classes: np.ndarray, estimator_name: str) -> np.ndarray:
    if proba.shape[1] == 2:
        return proba[:, 1]
    if classes.dtype.kind not in "biuf":
        raise TypeError(
            f"{estimator_name} has {len(classes)} classes of dtype {classes.dtype}; the "
            "expected grade needs numeric classes."
        )
    return proba @ classes.astype(np.float64)


def judged_mask(judged: Any, y_true: np.ndarray) -> np.ndarray | None:
    """``judged`` as a flat bool array (None when every row is judged).

    A row that was retrieved but never judged must have the label 0: an unjudged
    document has no relevance to count. ``judged=True`` says every row was judged.
    """
    if judged is None:
        return None
    if isinstance(judged, (bool, np.bool_)):
        if judged:
            return None
        raise ValueError(
            f"judged of {caller_name()} must be True (every row was judged) or one "
            f"True/False per row; got {judged!r}."
        )
    array = to_numpy(judged, "judged")
    if array.dtype.kind not in "biu" and not (
        array.dtype.kind == "f" and np.isin(array, (0.0, 1.0)).all()
    ):
        raise TypeError(
            f"judged of {caller_name()} must hold booleans (True: the row was judged); got "
            f"dtype {array.dtype}."
        )
    if array.shape != y_true.shape:
        raise ValueError(
            f"judged of {caller_name()} must have the shape of y_true {y_true.shape}; got "
            f"{array.shape}."
        )
    if array.dtype.kind in "iu" and not np.isin(array, (0, 1)).all():
        row = present(first_bad(~np.isin(array, (0, 1))), "the first bad row")
        raise ValueError(
            f"judged of {caller_name()} must hold True/False (or 1/0); got "
            f"{array.flat[row]} at {format_index(row, array.shape)}."
        )
    mask = array.astype(bool).reshape(-1)
    if mask.all():
        return None
    bad = first_bad(~mask & (y_true.reshape(-1) != 0))
    if bad is not None:
        raise RowValueError(
            f"judged of {caller_name()} is False at {format_index(bad, y_true.shape)}, where "
            f"y_true is {y_true.flat[bad]}; a document nobody judged has the label 0.",
            bad,
        )
    return mask
