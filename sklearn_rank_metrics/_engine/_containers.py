"""Columns of other libraries read as NumPy: their nulls, their devices, their tensors.

:func:`~._inputs.to_numpy` converts; this module answers the questions it asks of a
column it does not own, each without a pass over the values in the common case:

* where its first missing value (null) is: pandas extension dtypes (nullable
  ``Int64`` / ``Float64`` / ``boolean``, Arrow dtypes, strings), polars and pyarrow
  count their nulls, so a column without one costs a counter read (pandas: one
  ``isna``, a boolean mask, about 1 ms for 10M rows);
* whether an array from another library (Array API, torch, JAX, CuPy) can be read
  where it lies: through DLPack, only from host (CPU) memory, never from a tensor
  that records gradients; otherwise an error says how to move it.

NumPy arrays and pandas NumPy dtypes are left to the checks of ``_inputs``: a NaN
there is a value, and its messages stay as they were.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ._caller import caller_name

# DLPack device types (dlpack.h) whose memory the CPU reads: np.from_dlpack takes these
_HOST_DEVICES = frozenset({1, 3, 11, 13})  # CPU, CUDA host, ROCm host, CUDA managed
_DEVICE_NAMES = {
    2: "CUDA", 4: "OpenCL", 7: "Vulkan", 8: "Metal", 9: "VPI", 10: "ROCm", 12: "ext_dev",
    14: "oneAPI", 15: "WebGPU", 16: "Hexagon", 17: "MAIA",
}
# how each library copies an array to host memory, ``{}`` being the argument's name
_MOVE_TO_HOST = {
    "torch": "{}.cpu()",
    "jax": "jax.device_get({})",
    "jaxlib": "jax.device_get({})",
    "array_api_strict": "{}.to_device(array_api_strict.Device('CPU_DEVICE'))",
    "cupy": "{}.get()",
}
_MOVE_ANY = "{}.to_device(<the CPU device>) for an Array API array"


class Missing(NamedTuple):
    """The first missing value of a column: its flat position, as its library shows it."""

    position: int
    shown: str


def library_of(value: Any) -> str:
    """The top-level package that defines the type of ``value`` (``"polars"``, ...)."""
    return type(value).__module__.partition(".")[0]


def first_missing(value: Any) -> Missing | None:
    """The first null of a pandas extension, polars or pyarrow column, or None.

    None for everything else, NumPy arrays and pandas NumPy dtypes included: a NaN
    in a float array is a value, which the checks of the metrics name themselves.
    """
    library = library_of(value)
    if library == "pyarrow":
        return _arrow_missing(value)
    if library == "polars":
        return _polars_missing(value)
    if library == "pandas":
        return _pandas_missing(value)
    return None


def _arrow_missing(value: Any) -> Missing | None:
    count = getattr(value, "null_count", 0)  # Array and ChunkedArray: a stored count
    if not isinstance(count, int) or not count:
        return None
    mask = np.asarray(value.is_null(), dtype=bool)  # (error path only: a copy is fine)
    return Missing(int(np.flatnonzero(mask)[0]), "null")


def _polars_missing(value: Any) -> Missing | None:
    counter = getattr(value, "null_count", None)
    count = counter() if callable(counter) else 0  # a Series' count (a frame's is a frame)
    if not isinstance(count, int) or not count:
        return None
    return Missing(int(value.is_null().arg_true()[0]), "null")


def _pandas_missing(value: Any) -> Missing | None:
    dtypes = getattr(value, "dtypes", None)
    if hasattr(value, "columns") and dtypes is not None:  # a DataFrame (2-D input)
        if all(isinstance(dtype, np.dtype) for dtype in dtypes):
            return None
        mask = value.isna().to_numpy(dtype=bool)
    else:
        if isinstance(getattr(value, "dtype", None), np.dtype) or not hasattr(value, "isna"):
            return None
        mask = np.asarray(value.isna(), dtype=bool)
    flat = np.flatnonzero(mask.reshape(-1))
    if not len(flat):
        return None
    position = int(flat[0])
    if mask.ndim == 2:
        shown = value.iat[position // mask.shape[1], position % mask.shape[1]]
    else:
        shown = value.iloc[position] if hasattr(value, "iloc") else value[position]
    return Missing(position, str(shown))


def is_dlpack_array(value: Any) -> bool:
    """An array of another library that exports DLPack (not NumPy's own, nor a mask)."""
    return (
        not isinstance(value, np.ndarray)
        and hasattr(value, "__dlpack__")
        and hasattr(value, "__dlpack_device__")
    )


def check_readable(value: Any, name: str) -> None:
    """Refuse a tensor that records gradients, or an array in another device's memory."""
    device = _other_device(value)
    if getattr(value, "requires_grad", False) is True:
        detached = f"{name}.detach()"
        if device is not None:
            detached = f"{_move_hint(value, detached)} (it is also on device {device})"
        raise TypeError(
            f"{name} of {caller_name()} is a tensor that requires grad; ranking metrics are "
            f"not differentiable: pass {detached}."
        )
    if device is not None:
        raise TypeError(
            f"{name} of {caller_name()} is an array on device {device}; the metrics read "
            f"host (CPU) memory and copy nothing between devices: move it to the CPU "
            f"first, e.g. {_move_hint(value, name)}."
        )


def _other_device(value: Any) -> str | None:
    """How to name the device of ``value``, unless it is the CPU (None)."""
    kind = int(value.__dlpack_device__()[0])
    try:
        device = value.device  # torch, JAX, the Array API: the array's device
    except (AttributeError, ValueError, RuntimeError):  # none, or several (sharded)
        device = None
    shown = str(device) if device is not None and not callable(device) else None
    if kind not in _HOST_DEVICES:
        described = f"DLPack device type {kind}, {_DEVICE_NAMES.get(kind, 'not the CPU')}"
        return f"{shown} ({described})" if shown else described
    if shown is not None and not _is_cpu(device):  # a host buffer of a non-CPU device
        return shown
    return None


def _is_cpu(device: Any) -> bool:
    """torch's ``device.type``, JAX's ``device.platform``, or the name says CPU."""
    if "cpu" in (getattr(device, "type", None), getattr(device, "platform", None)):
        return True
    return "cpu" in str(device).lower()


def _move_hint(value: Any, name: str) -> str:
    return _MOVE_TO_HOST.get(library_of(value), _MOVE_ANY).format(name)


def from_dlpack(value: Any, name: str) -> np.ndarray | None:
    """``value`` read through DLPack without a copy, or None if DLPack cannot.

    The checks of :func:`check_readable` come first. DLPack has no strings and no
    bit-packed booleans; for such arrays the caller falls back to ``__array__``.
    """
    check_readable(value, name)
    try:
        return np.from_dlpack(value)
    except (BufferError, TypeError, ValueError, RuntimeError):
        return None
