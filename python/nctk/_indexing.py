"""netCDF4-python's indexing, turned into reads nctk does natively.

A key per axis may be an integer (the axis is dropped), a slice (any step,
negative bounds), ``Ellipsis``, a sequence or array of integers (in any
order, repeated, negative), or a boolean array of the axis's length. Each
axis is indexed independently (outer, or orthogonal, indexing), as in
netCDF4-python and xarray's ``OuterIndexer``.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

__all__ = ["Axis", "parse_key", "read_outer"]

# Integer lists spread wider than this many times their length (plus this
# slack) are read index by index rather than as the range they span.
_SPREAD = 4
_SLACK = 1024


@dataclass(frozen=True)
class Axis:
    """One axis of a selection: what to read and how to shape it after."""

    start: int
    count: int
    stride: int
    #: The axis was indexed by an integer: drop it.
    drop: bool = False
    #: The slice had a negative step: reverse what was read.
    reverse: bool = False
    #: An integer array: positions to take from what was read (``None``: all).
    take: np.ndarray | None = None


def _slice_axis(s: slice, n: int) -> Axis:
    start, stop, step = s.indices(n)
    if step > 0:
        count = max(0, (stop - start + step - 1) // step)
        return Axis(start, count, step)
    count = max(0, (start - stop + (-step) - 1) // (-step))
    if count == 0:
        return Axis(0, 0, 1)
    last = start + (count - 1) * step
    return Axis(last, count, -step, reverse=True)


def _array_axis(key: Any, n: int, axis: int) -> Axis:
    arr = np.asarray(key)
    if arr.dtype == bool:
        if arr.ndim != 1 or arr.shape[0] != n:
            raise IndexError(
                f"boolean index of shape {arr.shape} for axis {axis} of length {n}"
            )
        arr = np.nonzero(arr)[0]
    if arr.ndim != 1:
        raise IndexError(f"index arrays must be one-dimensional (axis {axis})")
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        raise IndexError(f"index array of {arr.dtype} for axis {axis}: integers or booleans only")
    arr = arr.astype(np.int64, copy=True)
    arr[arr < 0] += n
    if arr.size and (arr.min() < 0 or arr.max() >= n):
        raise IndexError(f"index out of range for axis {axis} of length {n}")
    if arr.size == 0:
        return Axis(0, 0, 1)
    if arr.size == 1:
        return Axis(int(arr[0]), 1, 1)
    steps = np.diff(arr)
    if steps[0] > 0 and np.all(steps == steps[0]):
        return Axis(int(arr[0]), int(arr.size), int(steps[0]))
    lo = int(arr.min())
    hi = int(arr.max())
    return Axis(lo, hi - lo + 1, 1, take=arr - lo)


def parse_key(key: Any, shape: Sequence[int]) -> list[Axis]:
    """The axes ``key`` selects of an array of ``shape``."""
    if not isinstance(key, tuple):
        key = (key,)
    rank = len(shape)
    if sum(k is Ellipsis for k in key) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if Ellipsis in [k for k in key if k is Ellipsis]:
        i = next(i for i, k in enumerate(key) if k is Ellipsis)
        fill = rank - (len(key) - 1)
        key = key[:i] + (slice(None),) * max(fill, 0) + key[i + 1 :]
    if rank == 0:
        # A scalar takes () and a whole slice, as netCDF4-python's do.
        if all(isinstance(k, slice) and k == slice(None) for k in key):
            return []
        raise IndexError("a scalar variable takes only [...] or [:]")
    if len(key) > rank:
        raise IndexError(f"too many indices: {len(key)} for {rank} dimensions")
    key = key + (slice(None),) * (rank - len(key))
    axes = []
    for axis, (k, n) in enumerate(zip(key, shape)):
        if isinstance(k, slice):
            axes.append(_slice_axis(k, n))
        elif isinstance(k, (numbers.Integral, np.integer)) and not isinstance(k, bool):
            i = int(k)
            if i < 0:
                i += n
            if not 0 <= i < n:
                raise IndexError(f"index {int(k)} is out of range for axis {axis} of length {n}")
            axes.append(Axis(i, 1, 1, drop=True))
        elif k is None:
            raise IndexError("newaxis (None) is not supported in netCDF indexing")
        else:
            axes.append(_array_axis(k, n, axis))
    return axes


Reader = Callable[[list[int], list[int], list[int]], np.ndarray]


def read_outer(read: Reader, axes: list[Axis]) -> np.ndarray:
    """Reads ``axes`` with ``read(start, count, stride)`` (which returns an
    array of shape ``count``) and shapes the result as numpy's outer
    indexing would."""
    if not axes:
        return read([], [], [])
    sparse = next(
        (
            i
            for i, a in enumerate(axes)
            if a.take is not None and a.count > _SPREAD * a.take.size + _SLACK
        ),
        None,
    )
    if sparse is not None:
        # Index by index along the sparse axis, then into the asked order.
        a = axes[sparse]
        unique, inverse = np.unique(a.take, return_inverse=True)
        parts = [
            read_outer(
                read,
                axes[:sparse] + [Axis(a.start + int(u), 1, 1)] + axes[sparse + 1 :],
            )
            for u in unique
        ]
        out = np.concatenate(parts, axis=_kept_axis(axes, sparse))
        return np.take(out, inverse, axis=_kept_axis(axes, sparse))
    data = read([a.start for a in axes], [a.count for a in axes], [a.stride for a in axes])
    index: list[Any] = []
    for a in axes:
        if a.drop:
            index.append(0)
        elif a.reverse:
            index.append(slice(None, None, -1))
        else:
            index.append(slice(None))
    data = data[tuple(index)]
    kept = [a for a in axes if not a.drop]
    for i, a in enumerate(kept):
        if a.take is not None:
            data = np.take(data, a.take, axis=i)
    return data


def _kept_axis(axes: list[Axis], axis: int) -> int:
    """Where axis ``axis`` is after the dropped axes before it are gone."""
    return sum(1 for a in axes[:axis] if not a.drop)
