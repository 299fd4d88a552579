"""Columns from anywhere: every container gives the NumPy numbers, or a clear refusal.

Each input (``y_true``, ``y_score``, ``group``, ``sample_weight``, ``judged``,
``doc_id``) is given in one container at a time: lists, pandas (NumPy, Arrow and
nullable dtypes), polars, pyarrow ``Array`` and ``ChunkedArray``, and Array API arrays
(array_api_strict; torch and JAX take the same DLPack path, shown here by a small
object exposing DLPack the way a torch tensor does). The expected values are those of
the same data as NumPy arrays, which the rest of the suite checks against peer tools.
Also: the nulls of every library refused naming the argument and row, a numeric column
without nulls read in place, and arrays on another device or tensors that record
gradients refused with a message that says what to do.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any

import array_api_strict as xp
import narwhals as nw
import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

from sklearn_rank_metrics import (
    RankingEvaluator,
    compare,
    dcg_score,
    evaluate,
    ndcg_score,
    ranking_report,
)
from sklearn_rank_metrics._engine._inputs import as_float, scores_as_float, to_numpy
from sklearn_rank_metrics._metrics._registry import METRICS

# ---------------------------------------------------------------------------
# The data, as NumPy (the reference)
# ---------------------------------------------------------------------------


def _data(seed: int = 7, n_queries: int = 12) -> dict[str, np.ndarray]:
    """Flat rows of interleaved queries, tied scores, an unjudged share of label-0 rows."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 9, size=n_queries)
    qid = np.repeat(np.arange(n_queries), sizes)
    n_rows = qid.size
    y_true = rng.integers(0, 4, size=n_rows)  # int64: Int64 / int64[pyarrow] columns
    y_true[qid == 1] = 0  # a query without a relevant row
    order = rng.permutation(n_rows)
    weight = rng.uniform(0.5, 2.0, size=n_queries)[qid]
    judged = (y_true != 0) | (rng.random(n_rows) < 0.6)
    doc_id = np.array([f"d{(17 * row) % n_rows:03d}" for row in range(n_rows)])
    return {
        "y_true": y_true[order],
        "y_score": rng.random(n_rows).round(1)[order],  # many ties
        "group": (100 + 7 * qid)[order],
        "sample_weight": weight[order],
        "judged": judged[order],
        "doc_id": doc_id[order],
    }


DATA = _data()
N_ROWS = len(DATA["y_true"])
NAMES = sorted(METRICS)

# ---------------------------------------------------------------------------
# Containers: a NumPy column of any dtype (numbers, bools, text) as each library's
# ---------------------------------------------------------------------------


def _arrow_type(array: np.ndarray) -> pa.DataType:
    return pa.string() if array.dtype.kind == "U" else pa.from_numpy_dtype(array.dtype)


def _nullable(array: np.ndarray) -> pd.Series:
    dtype = {"i": "Int64", "f": "Float64", "b": "boolean", "U": "string"}[array.dtype.kind]
    return pd.Series(array, dtype=dtype)


def _pandas_arrow(array: np.ndarray) -> pd.Series:
    if array.dtype.kind == "U":
        return pd.Series(array, dtype="string[pyarrow]")
    return pd.Series(array, dtype=pd.ArrowDtype(_arrow_type(array)))


def _chunked(array: np.ndarray) -> pa.ChunkedArray:
    cuts = [0, 5, 17, len(array) // 2, len(array)]
    chunks = [array[start:stop] for start, stop in zip(cuts[:-1], cuts[1:], strict=True)]
    return pa.chunked_array([pa.array(chunk, type=_arrow_type(array)) for chunk in chunks])


def _array_api(array: np.ndarray) -> Any:
    if array.dtype.kind == "U":  # the Array API has no text: document ids as ints
        array = np.array([int(text[1:]) for text in array])
    return xp.asarray(array)


CONTAINERS: dict[str, Callable[[np.ndarray], Any]] = {
    "numpy": lambda array: array,
    "list": lambda array: array.tolist(),
    "pandas_numpy": pd.Series,
    "pandas_arrow": _pandas_arrow,
    "pandas_nullable": _nullable,
    "polars": pl.Series,
    "pyarrow": pa.array,
    "pyarrow_chunked": _chunked,
    "array_api_strict": _array_api,
}


def _reference(container: str, name: str) -> np.ndarray:
    """The NumPy column the container holds (array_api_strict: int document ids)."""
    if container == "array_api_strict" and name == "doc_id":
        return np.asarray(_array_api(DATA[name]))
    return DATA[name]


def _call(name: str, columns: dict[str, Any], k: int | None) -> float:
    """Registry metric ``name`` on the columns, with ``judged`` where it takes it."""
    info = METRICS[name]
    params: dict[str, Any] = {**info.fixed_params, "sample_weight": columns["sample_weight"]}
    if "judged" in inspect.signature(info.function).parameters:  # bpref, judged@k, RBP
        params["judged"] = columns["judged"]
    if k is not None:
        params["k"] = k
    return info.function(columns["y_true"], columns["y_score"], columns["group"], **params)


def _table_columns(table: Any) -> dict[str, list]:
    """A per-query table of any frame library, column by column, as Python lists."""
    frame = nw.from_native(table, eager_only=True)
    return {name: frame.get_column(name).to_list() for name in frame.columns}


def _same(actual: Any, expected: Any) -> bool:
    """Exactly equal numbers (NaN equal to NaN): the same float64 arrays, the same sums."""
    return bool(np.array_equal(np.asarray(actual), np.asarray(expected), equal_nan=True))


# ---------------------------------------------------------------------------
# Every container, every metric: the NumPy numbers
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("container", list(CONTAINERS))
def test_every_metric_gives_the_numpy_numbers_from_every_container(container):
    convert = CONTAINERS[container]
    numpy_columns = {name: _reference(container, name) for name in DATA}
    given = {name: convert(values) for name, values in DATA.items()}
    assert not isinstance(given["y_score"], np.ndarray) or container == "numpy"
    wrong = []
    for name in NAMES:
        for k in (None, 3) if METRICS[name].takes_k else (None,):
            expected = _call(name, numpy_columns, k)
            got = _call(name, given, k)
            if not _same(got, expected):
                wrong.append(f"{name}@{k}: {got!r} != {expected!r}")
    assert not wrong, f"{container}: " + "; ".join(wrong)


@pytest.mark.parametrize("container", list(CONTAINERS))
def test_evaluate_per_query_gives_the_numpy_values_from_every_container(container):
    convert = CONTAINERS[container]
    settings = {"metrics": NAMES, "convention": "trec_eval"}
    expected_means = evaluate(
        *(_reference(container, name) for name in ("y_true", "y_score", "group")),
        sample_weight=DATA["sample_weight"], judged=DATA["judged"],
        doc_id=_reference(container, "doc_id"), **settings,
    )
    expected_table = evaluate(
        DATA["y_true"], DATA["y_score"], DATA["group"], sample_weight=DATA["sample_weight"],
        judged=DATA["judged"], doc_id=_reference(container, "doc_id"), per_query=True,
        **settings,
    )
    given = {name: convert(values) for name, values in DATA.items()}
    means = evaluate(
        given["y_true"], given["y_score"], given["group"], sample_weight=given["sample_weight"],
        judged=given["judged"], doc_id=given["doc_id"], **settings,
    )
    table = evaluate(
        given["y_true"], given["y_score"], given["group"], sample_weight=given["sample_weight"],
        judged=given["judged"], doc_id=given["doc_id"], per_query=True, **settings,
    )
    assert list(means) == list(expected_means)
    assert all(_same(means[name], expected_means[name]) for name in means), (means, expected_means)
    got, expected = _table_columns(table), _table_columns(expected_table)
    assert list(got) == list(expected)
    assert got.pop("query") == expected.pop("query") == sorted(set(DATA["group"].tolist()))
    for name, values in expected.items():
        assert _same(got[name], values), name


def test_two_dimensional_array_api_input_gives_the_numpy_numbers():
    y_true = DATA["y_true"][:24].reshape(4, 6).astype(float)
    y_score = DATA["y_score"][:24].reshape(4, 6)
    expected = ndcg_score(y_true, y_score, k=3)
    assert ndcg_score(xp.asarray(y_true), xp.asarray(y_score), k=3) == expected
    columns = xp.asarray(np.asfortranarray(y_score))[:, ::-1][:, ::-1]  # strided view
    assert ndcg_score(xp.asarray(y_true), columns, k=3) == expected


def _other_entry_points(y_true, y_score, other_score, group) -> dict[str, Any]:
    """compare, ranking_report and the streaming evaluator on the same columns."""
    evaluator = RankingEvaluator(metrics=["ndcg@3", "map"])
    evaluator.update(y_true, y_score, group)
    comparison = compare(y_true, {"a": y_score, "b": other_score}, group,
                         metrics=["ndcg@3"], n_resamples=30, random_state=0)
    return {
        "compare": [_table_columns(table) for table in (comparison.table, comparison.per_query)],
        "ranking_report": ranking_report(y_true, y_score, group, metrics=["ndcg@3", "map"],
                                         output_dict=True),
        "RankingEvaluator": evaluator.compute(),
    }


@pytest.mark.parametrize(
    "container", ["polars", "pyarrow_chunked", "pandas_arrow", "array_api_strict"]
)
def test_compare_report_and_streaming_give_the_numpy_values(container):
    convert = CONTAINERS[container]
    other = DATA["y_score"][::-1].copy()
    expected = _other_entry_points(DATA["y_true"], DATA["y_score"], other, DATA["group"])
    got = _other_entry_points(
        convert(DATA["y_true"]), convert(DATA["y_score"]), convert(other), convert(DATA["group"])
    )
    assert repr(got) == repr(expected)


def test_compare_names_the_model_whose_scores_hold_a_null():
    scores = pl.Series([*DATA["y_score"][:3].tolist(), None, *DATA["y_score"][4:].tolist()])
    with pytest.raises(ValueError, match=r"^scores\['b'\] of compare must not be missing; got "
                                         r"null at row 3"):
        compare(DATA["y_true"], {"a": DATA["y_score"], "b": scores}, DATA["group"],
                metrics=["ndcg@3"], n_resamples=10)
    with pytest.raises(ValueError, match=r"^y_score of RankingEvaluator.update must not be "):
        RankingEvaluator(metrics=["map"]).update(DATA["y_true"], scores, DATA["group"])


# ---------------------------------------------------------------------------
# Query ids as text, from each Arrow-backed library
# ---------------------------------------------------------------------------

TEXT_IDS = np.array([f"q{code:02d}" for code in DATA["group"] % 97])
TEXT_ID_CONTAINERS: dict[str, Callable[[np.ndarray], Any]] = {
    "pyarrow_string": pa.array,
    "pyarrow_large_string": lambda ids: pa.array(ids, type=pa.large_string()),
    "pyarrow_string_view": lambda ids: pa.array(ids, type=pa.string_view()),
    "pyarrow_chunked": _chunked,
    "pyarrow_dictionary": lambda ids: pa.array(ids).dictionary_encode(),
    "polars_string": pl.Series,
    "polars_categorical": lambda ids: pl.Series(ids, dtype=pl.Categorical),
    "pandas_string_pyarrow": lambda ids: pd.Series(ids, dtype="string[pyarrow]"),
    "pandas_arrow_string": lambda ids: pd.Series(ids, dtype=pd.ArrowDtype(pa.string())),
    "pandas_arrow_large_string": lambda ids: pd.Series(
        ids, dtype=pd.ArrowDtype(pa.large_string())
    ),
}


@pytest.mark.parametrize("container", list(TEXT_ID_CONTAINERS))
def test_text_query_ids_from_arrow_backed_libraries(container):
    ids = TEXT_ID_CONTAINERS[container](TEXT_IDS)
    expected = evaluate(
        DATA["y_true"], DATA["y_score"], TEXT_IDS, metrics=["ndcg@3", "map"], per_query=True
    )
    got = evaluate(DATA["y_true"], DATA["y_score"], ids, metrics=["ndcg@3", "map"], per_query=True)
    expected_columns, got_columns = _table_columns(expected), _table_columns(got)
    assert [str(query) for query in got_columns.pop("query")] == sorted(set(TEXT_IDS.tolist()))
    expected_columns.pop("query")
    assert all(_same(got_columns[name], expected_columns[name]) for name in expected_columns)
    assert ndcg_score(DATA["y_true"], DATA["y_score"], ids, k=3) == ndcg_score(
        DATA["y_true"], DATA["y_score"], TEXT_IDS, k=3
    )


# ---------------------------------------------------------------------------
# Numeric columns without nulls reach the kernels in place
# ---------------------------------------------------------------------------


def _arrow_values(array: pa.Array) -> np.ndarray:
    """The values buffer of a float64 Arrow array, as NumPy (a view, no copy)."""
    return np.frombuffer(array.buffers()[1], dtype=np.float64)[array.offset:][: len(array)]


def test_polars_and_pyarrow_float64_columns_are_read_without_a_copy():
    scores = np.random.default_rng(0).random(10_000)
    columns = {
        "polars": (pl.Series(scores), lambda series: _arrow_values(series.to_arrow())),
        "pyarrow": (pa.array(scores), _arrow_values),
        "pyarrow one chunk": (pa.chunked_array([scores]), lambda c: _arrow_values(c.chunk(0))),
        "array_api_strict": (xp.asarray(scores), np.from_dlpack),
        "pandas float64[pyarrow]": (
            pd.Series(scores, dtype="float64[pyarrow]"),
            lambda series: _arrow_values(series.array.__arrow_array__().chunk(0)),
        ),
    }
    for label, (column, buffer_of) in columns.items():
        buffer = buffer_of(column)
        assert np.array_equal(buffer, scores), label
        assert np.shares_memory(to_numpy(column, "y_score"), buffer), label
        assert np.shares_memory(as_float(column, "y_score"), buffer), label
        assert np.shares_memory(scores_as_float(column), buffer), label


def test_a_dlpack_tensor_on_the_cpu_is_read_in_place():
    scores = DATA["y_score"].copy()
    tensor = FakeTorchTensor(scores)
    assert np.shares_memory(to_numpy(tensor, "y_score"), scores)
    assert ndcg_score(DATA["y_true"], tensor, DATA["group"], k=3) == ndcg_score(
        DATA["y_true"], scores, DATA["group"], k=3
    )
    assert not hasattr(tensor, "__array__")  # read through DLPack, not __array__


def test_several_chunks_are_copied_once():
    scores = DATA["y_score"]
    chunked = _chunked(scores)
    array = to_numpy(chunked, "y_score")
    assert array.dtype == np.float64
    assert np.array_equal(array, scores)
    assert np.shares_memory(as_float(array, "y_score"), array)  # no second copy


# ---------------------------------------------------------------------------
# Missing values (nulls) are refused, naming the argument and the row
# ---------------------------------------------------------------------------


def _with_null(values: np.ndarray, row: int) -> list:
    listed: list = values.tolist()
    listed[row] = None
    return listed


def _null_containers() -> dict[str, Callable[[np.ndarray, int], Any]]:
    def pandas_dtype(kind: str) -> Callable[[np.ndarray, int], Any]:
        def build(values: np.ndarray, row: int) -> pd.Series:
            if kind == "arrow":
                dtype: Any = (
                    "string[pyarrow]" if values.dtype.kind == "U"
                    else pd.ArrowDtype(_arrow_type(values))
                )
            else:
                dtype = {"i": "Int64", "f": "Float64", "b": "boolean", "U": "string"}[
                    values.dtype.kind
                ]
            return pd.Series(_with_null(values, row), dtype=dtype)

        return build

    return {
        "pandas_arrow": pandas_dtype("arrow"),
        "pandas_nullable": pandas_dtype("nullable"),
        "polars": lambda values, row: pl.Series(_with_null(values, row)),
        "pyarrow": lambda values, row: pa.array(_with_null(values, row), _arrow_type(values)),
        "pyarrow_chunked": lambda values, row: pa.chunked_array(
            [pa.array(_with_null(values, row)[:5], _arrow_type(values)),
             pa.array(_with_null(values, row)[5:], _arrow_type(values))]
        ),
    }


NULL_CONTAINERS = _null_containers()


@pytest.mark.parametrize("container", list(NULL_CONTAINERS))
def test_a_null_in_any_argument_is_refused_naming_it_and_its_row(container):
    build = NULL_CONTAINERS[container]
    for row in (0, 7):  # in the first chunk, and in a later one
        for argument in DATA:
            columns: dict[str, Any] = dict(DATA)
            columns[argument] = build(DATA[argument], row)
            pattern = (
                rf"^{argument} of evaluate must not be missing; got \S+ at row {row}, "
                r"a missing value \(null\)"
            )
            with pytest.raises(ValueError, match=pattern):
                evaluate(
                    columns["y_true"], columns["y_score"], columns["group"],
                    sample_weight=columns["sample_weight"], judged=columns["judged"],
                    doc_id=columns["doc_id"], metrics=["ndcg@3", "bpref"],
                    convention="trec_eval",
                )
        missing = rf"^y_score of ndcg_score must not be missing.* {row},"
        with pytest.raises(ValueError, match=missing):
            ndcg_score(DATA["y_true"], build(DATA["y_score"], row), DATA["group"])


def test_a_null_is_shown_as_its_library_shows_it():
    row_2 = [1.0, 0.0, None, 2.0]
    group = [1, 1, 2, 2]
    shown = {
        "<NA>": pd.Series(row_2, dtype="Float64"),
        "null": pl.Series(row_2),
    }
    for text, column in shown.items():
        with pytest.raises(ValueError, match=f"got {re.escape(text)} at row 2, a missing"):
            ndcg_score([1, 0, 1, 0], column, group)
    with pytest.raises(ValueError, match="got null at row 2, a missing"):
        ndcg_score([1, 0, 1, 0], pa.array(row_2), group)


def test_a_nan_in_a_numpy_float_column_keeps_its_message():
    scores = DATA["y_score"].copy()
    scores[3] = np.nan
    for column in (scores, pd.Series(scores)):  # NumPy dtypes: a NaN is a value
        nan = "y_score of ndcg_score must not be NaN; got NaN at row 3"
        with pytest.raises(ValueError, match=nan):
            ndcg_score(DATA["y_true"], column, DATA["group"])
    labels = DATA["y_true"].astype(float)
    labels[5] = np.nan
    not_finite = r"y_true of ndcg_score must be finite; got nan at row 5\."
    with pytest.raises(ValueError, match=not_finite):
        ndcg_score(labels, DATA["y_score"], DATA["group"])


def test_a_nan_stored_in_an_arrow_float_column_is_a_nan_not_a_null():
    scores = pa.array([0.5, float("nan"), 0.1, 0.2], from_pandas=False)
    assert scores.null_count == 0
    with pytest.raises(ValueError, match="must not be NaN; got NaN at row 1"):
        ndcg_score([1, 0, 1, 0], scores, [1, 1, 2, 2])


# ---------------------------------------------------------------------------
# Arrays on another device, tensors that record gradients
# ---------------------------------------------------------------------------


class DLPackTensor:
    """An array exposing DLPack only, as a torch tensor or a JAX array does.

    ``device_type`` is DLPack's (1: CPU, 2: CUDA); reading it on another device is a
    test failure (``__dlpack__`` raises), as a real GPU array would crash there.
    """

    def __init__(self, array, *, device_type=1, device="cpu", requires_grad=False):
        self._array = array
        self._device_type = device_type
        self.device = device
        self.requires_grad = requires_grad
        self.shape = array.shape

    def __dlpack_device__(self):
        return (self._device_type, 0)

    def __dlpack__(self, **kwargs):
        if self._device_type != 1:
            raise AssertionError("read from another device")
        return self._array.__dlpack__(**kwargs)

    def __len__(self):
        return len(self._array)


class FakeTorchTensor(DLPackTensor):
    __module__ = "torch"


class FakeJaxArray(DLPackTensor):
    __module__ = "jaxlib.xla_extension"


def _refusal(values: Any) -> str:
    with pytest.raises(TypeError) as caught:
        ndcg_score(DATA["y_true"], values, DATA["group"], k=3)
    return str(caught.value)


def test_an_array_api_strict_array_on_another_device_is_refused():
    for name in ("device1", "device2"):
        device = xp.Device(name)
        scores = xp.asarray(DATA["y_score"], device=device)
        message = _refusal(scores)
        assert message.startswith("y_score of ndcg_score is an array on device ")
        assert repr(device) in message
        assert "y_score.to_device(array_api_strict.Device('CPU_DEVICE'))" in message
    with pytest.raises(TypeError, match=r"^judged of evaluate .*device1"):
        evaluate(DATA["y_true"], DATA["y_score"], DATA["group"], metrics=["bpref"],
                 judged=xp.asarray(DATA["judged"], device=xp.Device("device1")))


def test_a_cuda_tensor_is_refused_naming_the_device_and_cpu():
    message = _refusal(FakeTorchTensor(DATA["y_score"], device_type=2, device="cuda:0"))
    assert message == (
        "y_score of ndcg_score is an array on device cuda:0 (DLPack device type 2, CUDA); "
        "the metrics read host (CPU) memory and copy nothing between devices: move it to "
        "the CPU first, e.g. y_score.cpu()."
    )
    group = FakeTorchTensor(DATA["group"], device_type=2, device="cuda:1")
    with pytest.raises(TypeError, match=r"^group of ndcg_score .* cuda:1 .*group\.cpu\(\)"):
        ndcg_score(DATA["y_true"], DATA["y_score"], group)


def test_a_gpu_array_of_jax_or_an_unknown_library_says_how_to_move_it():
    jax_message = _refusal(FakeJaxArray(DATA["y_score"], device_type=2, device="cuda:0"))
    assert "jax.device_get(y_score)" in jax_message
    unknown = _refusal(DLPackTensor(DATA["y_score"], device_type=10, device=None))
    assert "on device DLPack device type 10, ROCm" in unknown
    assert "y_score.to_device(<the CPU device>)" in unknown


def test_a_tensor_that_requires_grad_is_refused_saying_detach():
    message = _refusal(FakeTorchTensor(DATA["y_score"], requires_grad=True))
    assert message == (
        "y_score of ndcg_score is a tensor that requires grad; ranking metrics are not "
        "differentiable: pass y_score.detach()."
    )
    on_gpu = _refusal(
        FakeTorchTensor(DATA["y_score"], device_type=2, device="cuda:0", requires_grad=True)
    )
    assert "pass y_score.detach().cpu() (it is also on device cuda:0" in on_gpu
    with pytest.raises(TypeError, match=r"^sample_weight of evaluate .*sample_weight\.detach\(\)"):
        evaluate(DATA["y_true"], DATA["y_score"], DATA["group"], metrics=["map"],
                 sample_weight=FakeTorchTensor(DATA["sample_weight"], requires_grad=True))


def test_the_scikit_learn_form_reads_and_refuses_tensors_alike():
    # ndcg_score and dcg_score run scikit-learn's checks on 2-D input: same rules there
    y_true = DATA["y_true"][:24].reshape(4, 6).astype(float)
    y_score = DATA["y_score"][:24].reshape(4, 6).copy()
    for function in (ndcg_score, dcg_score):
        name = function.__name__
        expected = function(y_true, y_score, k=3)
        assert function(FakeTorchTensor(y_true), FakeTorchTensor(y_score), k=3) == expected
        on_gpu = FakeTorchTensor(y_score, device_type=2, device="cuda:0")
        with pytest.raises(TypeError, match=rf"^y_score of {name} is an array on device cuda:0"):
            function(y_true, on_gpu)
        with pytest.raises(TypeError, match=rf"^y_true of {name} is a tensor that requires grad"):
            function(FakeTorchTensor(y_true, requires_grad=True), y_score)
        elsewhere = xp.asarray(y_score, device=xp.Device("device1"))
        with pytest.raises(TypeError, match=rf"^y_score of {name} .*'device1'"):
            function(y_true, elsewhere)


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
