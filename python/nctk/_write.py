"""Writing: :func:`create` and the classes of a dataset being written.

The names mirror the Rust crate's define API (``nctk::create``,
``DatasetDef::add_dimension``, ``add_group``, ``add_variable`` with the
``VarDef`` storage setters, ``put_attribute``, ``end_define``, then
``DatasetMut::put_values`` and ``close``)::

    with nctk.create("out.zarr", "netCDF-4") as ds:
        ds.add_dimension("time", None)          # unlimited
        ds.add_dimension("x", 4)
        t = ds.add_variable("t", "f4", ("time", "x"), chunksizes=(1, 4),
                            deflate_level=4, shuffle=True)
        t.attrs["units"] = "K"
        t[0:2] = np.ones((2, 4))
"""

from __future__ import annotations

import os
from typing import Any, Iterator, MutableMapping, Sequence

import numpy as np

from . import _nctk
from ._dataset import Dimension
from ._indexing import parse_key

__all__ = ["WritableDataset", "WritableGroup", "WritableVariable", "create"]

# Formats whose data model is classic: Python ints are stored as int there
# when they fit, as netCDF4-python stores them.
_CLASSIC_MODEL = ("classic", "64-bit offset", "cdf5", "netCDF-4 classic model")


def _is_store(target: str) -> bool:
    """True when ``target`` names an NCZarr / Zarr store (as the crate decides)."""
    if "://" in target or "#mode=" in target:
        return True
    return target.rstrip("/").lower().endswith((".zarr", ".zip"))


def create(
    target: str | os.PathLike,
    format: str | None = None,
    *,
    fill: bool = True,
    layout: str | None = None,
    consolidated: bool = False,
    existing: bool = False,
    write_empty_chunks: bool = False,
    cache_bytes: int | None = None,
    in_memory: bool = False,
) -> "WritableDataset":
    """Creates the dataset ``target`` in define mode (Rust: ``nctk::create_with``).

    ``target`` is a path or a netCDF-C URL: a classic or netCDF-4/HDF5 file,
    or an NCZarr / Zarr store for a netCDF-4 ``format`` (a path ending in
    ``.zarr`` or ``.zip``, ``file:///abs/x.zarr#mode=zarr,v3``,
    ``s3://bucket/key#mode=zarr,s3``).
    ``format`` is named as nccopy's ``-k`` names it: ``classic``,
    ``64-bit offset``, ``cdf5``, ``netCDF-4``, ``netCDF-4 classic model``
    (or ``nc3``, ``nc6``, ``nc5``, ``nc4``, ``nc7``); the default is
    ``netCDF-4`` for a store, ``classic`` otherwise.

    Options: ``fill`` pre-fills variables with their fill value
    (netCDF's ``NC_FILL``; ``False`` is ``NC_NOFILL``). For a store:
    ``layout`` (``nczarr``, the default; ``nczarr490``; ``zarr``: pure Zarr
    v2 with xarray's ``_ARRAY_DIMENSIONS``; ``zarr-noxarray``; ``zarr-v3``;
    ``nczarr-v3``; a URL's modes win), ``consolidated`` (also write
    ``.zmetadata``), ``write_empty_chunks``, ``cache_bytes`` (chunks written
    in part held in memory), ``existing`` (write into the arrays of the
    store already there, which an earlier ``create`` with the same
    definitions made: nothing but chunks is written, in place; for
    writers filling disjoint, chunk-aligned regions at once). For a
    classic file: ``in_memory`` builds it in memory and writes it on close.

    Nothing appears at ``target`` until :meth:`WritableDataset.close`: the
    dataset is written under a temporary name and renamed into place. Used
    as a context manager, the dataset is closed when the block ends, and
    aborted (leaving nothing at ``target``) when it raises.
    """
    target = os.fspath(target)
    if format is None:
        format = "netCDF-4" if _is_store(target) else "classic"
    native = _nctk.create(
        target,
        format,
        fill=fill,
        layout=layout,
        consolidated=consolidated,
        existing=existing,
        write_empty_chunks=write_empty_chunks,
        cache_bytes=cache_bytes,
        in_memory=in_memory,
    )
    return WritableDataset(native, target)


def _type_code(dtype: Any) -> str:
    """The native type code of ``dtype``: ``i1`` ... ``f8``, ``S1`` (char)
    or ``str`` (string)."""
    if dtype is str or (isinstance(dtype, str) and dtype in ("str", "string")):
        return "str"
    dt = np.dtype(dtype)
    if dt.kind in "iuf":
        return f"{dt.kind}{dt.itemsize}"
    if dt.kind == "S" and dt.itemsize == 1:
        return "S1"
    if dt.kind in "UO":
        return "str"
    raise TypeError(
        f"no netCDF type for {dt}: numeric types (i1..i8, u1..u8, f4, f8), S1 (char) or str"
    )


def _attr_value(value: Any, classic: bool) -> tuple[str, Any]:
    """``value`` as the native side takes an attribute: (kind, value)."""
    if isinstance(value, str):
        return "text", value
    if isinstance(value, bytes):
        return "bytes", value
    arr = np.atleast_1d(np.asarray(value))
    if arr.ndim != 1:
        raise ValueError(f"an attribute holds a 1-D array, not one of shape {arr.shape}")
    if arr.dtype.kind in "UO":
        return "strings", [str(x) for x in arr]
    if arr.dtype.kind == "S":
        return "bytes", b"".join(arr.tolist())
    if arr.dtype.kind == "b":
        arr = arr.astype("i1")
    if classic and arr.dtype == np.int64 and arr.size and (
        arr.min() >= np.iinfo(np.int32).min and arr.max() <= np.iinfo(np.int32).max
    ):
        # netCDF4-python stores Python ints as int in a classic file.
        arr = arr.astype("i4")
    code = _type_code(arr.dtype)
    return code, np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("="))


class _Attrs(MutableMapping[str, Any]):
    """The attributes of a group or variable being defined: setting one
    defines it (define mode only); deleting is not supported."""

    def __init__(self, owner: "WritableGroup | WritableVariable") -> None:
        self._owner = owner
        self._values: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        return self._values[name]

    def __setitem__(self, name: str, value: Any) -> None:
        self._owner.put_attribute(name, value)

    def __delitem__(self, name: str) -> None:
        raise NotImplementedError("attributes cannot be deleted from a dataset being written")

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return repr(self._values)


class WritableVariable:
    """A variable of a dataset being written: ``attrs`` (setting one
    defines it), ``put_attribute``, ``var[key] = values``.

    ``key`` is what reading takes (integers, slices with any step,
    ``...``, evenly spaced integer lists); ``values`` is broadcast to the
    selection. Numeric values of any numeric dtype are converted to the
    variable's type with netCDF's rules (a value out of the type's range
    raises ``ValueError``); a masked array is written with its ``_FillValue``
    where masked. ``string`` variables take str (or object) arrays;
    ``char`` variables take ``S1`` arrays, or str/bytes arrays turned into
    characters along the last dimension (as netCDF4-python's
    ``stringtochar``). Writing past the end of an unlimited dimension
    grows it; an open slice on it takes its length from ``values``. The
    first write leaves define mode; the GIL is released while writing.
    """

    def __init__(
        self,
        group: "WritableGroup",
        vid: int,
        name: str,
        code: str,
        dims: Sequence[Dimension],
    ) -> None:
        self._group = group
        self._id = vid
        self._code = code
        self._dims = list(dims)
        #: The variable's name.
        self.name = name
        #: Its full path (``/g/v``).
        self.path = group._child_path(name)
        #: The names of its dimensions.
        self.dimensions: tuple[str, ...] = tuple(d.name for d in dims)
        #: The numpy dtype its values have (``object`` for strings, ``S1`` for char).
        self.dtype = np.dtype(object if code == "str" else code)
        #: Its attributes, as set so far.
        self.attrs = _Attrs(self)

    @property
    def _native(self) -> Any:
        return self._group._native

    @property
    def shape(self) -> tuple[int, ...]:
        """The current shape (unlimited dimensions at the length written)."""
        return tuple(self._native.shape(self._id))

    def put_attribute(self, name: str, value: Any) -> None:
        """Sets an attribute (Rust: ``VarDef::put_attribute``); text becomes
        a ``char`` attribute, a list of str a ``string`` one. ``_FillValue``
        sets the fill value, converted to the variable's type."""
        if name == "_FillValue":
            self.set_fill_value(value)
            return
        kind, v = _attr_value(value, self._group._dataset._classic)
        self._native.put_attribute(self._group._gid, self._id, name, kind, v)
        self.attrs._values[name] = value

    def set_fill_value(self, value: Any) -> None:
        """Sets the fill value (Rust: ``VarDef::set_fill_value``), converted
        to the variable's type."""
        if self._code in ("str", "S1"):
            kind, v = _attr_value(value, False)
        else:
            kind, v = self._code, np.array([value], dtype=self._code)
        self._native.set_fill_value(self._id, kind, v)
        self.attrs._values["_FillValue"] = value

    def _selection_shape(self, key: Any, value: np.ndarray) -> list[int]:
        """The shape to index ``key`` against: the current shape, with
        unlimited dimensions grown to what ``key`` and ``value`` reach."""
        shape = list(self.shape)
        full = key if isinstance(key, tuple) else (key,)
        if any(k is Ellipsis for k in full):
            i = next(i for i, k in enumerate(full) if k is Ellipsis)
            full = full[:i] + (slice(None),) * (len(shape) - len(full) + 1) + full[i + 1:]
        full = full + (slice(None),) * (len(shape) - len(full))
        kept = [i for i, k in enumerate(full) if not isinstance(k, (int, np.integer))]
        for axis, (k, dim) in enumerate(zip(full, self._dims)):
            if not dim.unlimited:
                continue
            if isinstance(k, (int, np.integer)) and k >= 0:
                shape[axis] = max(shape[axis], int(k) + 1)
            elif isinstance(k, slice) and (k.step or 1) > 0:
                start = k.start or 0
                if k.stop is not None:
                    shape[axis] = max(shape[axis], int(k.stop))
                elif start >= 0 and axis in kept:
                    # Align the value's axes with the kept axes from the right.
                    at = value.ndim - (len(kept) - kept.index(axis))
                    n = value.shape[at] if at >= 0 else 1
                    shape[axis] = max(shape[axis], start + n * (k.step or 1) - (k.step or 1) + 1)
        return shape

    def _shaped(self, value: Any, counts: list[int]) -> tuple[str, np.ndarray]:
        """``value`` broadcast to the selection's ``counts`` (the kept axes),
        with the kind the native side takes it as: ``strings``, ``bytes``
        (char) or a numeric type code."""
        if self._code == "str":
            arr = np.asarray(value, dtype=object)
            return "strings", np.broadcast_to(arr, counts)
        if np.ma.isMaskedArray(value):
            if "_FillValue" not in self.attrs:
                raise ValueError(f"masked values for {self.path}, which has no _FillValue")
            value = np.ma.filled(value, self.attrs["_FillValue"])
        arr = np.asarray(value)
        if self._code == "S1":
            if arr.dtype.kind in "US" and arr.dtype != np.dtype("S1"):
                # Text along the last axis, padded with NULs (stringtochar).
                width = counts[-1] if counts else 1
                text = [s.encode() if isinstance(s, str) else bytes(s) for s in arr.reshape(-1)]
                chars = np.asarray(text, dtype=f"S{width}").view("S1")
                arr = chars.reshape(arr.shape + (width,))
            if arr.dtype != np.dtype("S1"):
                raise TypeError(f"{self.path} is a char variable: S1 values or text, not {arr.dtype}")
            return "bytes", np.broadcast_to(arr, counts)
        if arr.dtype.kind == "b":
            arr = arr.astype(self._code)
        if arr.dtype.kind not in "iuf":
            raise TypeError(
                f"{self.path} holds {self.dtype} values: {arr.dtype} values cannot be written to it"
            )
        arr = arr.astype(arr.dtype.newbyteorder("="), copy=False)
        return _type_code(arr.dtype), np.broadcast_to(arr, counts)

    def __setitem__(self, key: Any, value: Any) -> None:
        probe = np.asarray(value, dtype=object if self._code == "str" else None)
        axes = parse_key(key, self._selection_shape(key, probe))
        if any(a.take is not None for a in axes):
            raise IndexError("writes take integers, slices and evenly spaced integer lists")
        kept = [a for a in axes if not a.drop]
        kind, arr = self._shaped(value, [a.count for a in kept])
        flips = tuple(i for i, a in enumerate(kept) if a.reverse)
        if flips:
            arr = np.flip(arr, flips)
        flat = np.ascontiguousarray(arr).reshape(-1)
        data: Any = flat
        if kind == "strings":
            data = [x.decode() if isinstance(x, bytes) else str(x) for x in flat]
        elif kind == "bytes":
            data = flat.tobytes()
        self._native.put(
            self._id,
            [a.start for a in axes],
            [a.count for a in axes],
            [a.stride for a in axes],
            kind,
            data,
        )

    def __repr__(self) -> str:
        return f"<nctk.WritableVariable {self.path!r} {self.dtype} {self.dimensions}>"


class WritableGroup:
    """A group of a dataset being written: ``dimensions``, ``variables``,
    ``groups``, ``attrs``; define in it with :meth:`add_dimension`,
    :meth:`add_group`, :meth:`add_variable` and :meth:`put_attribute`."""

    def __init__(self, dataset: "WritableDataset", gid: int, name: str, parent: "WritableGroup | None") -> None:
        self._dataset = dataset
        self._gid = gid
        #: The group's name (``/`` for the root).
        self.name = name
        self.parent = parent
        #: Its full path.
        self.path = "/" if parent is None else parent._child_path(name)
        #: Its dimensions, by name.
        self.dimensions: dict[str, Dimension] = {}
        self._dim_ids: dict[str, int] = {}
        #: Its variables, by name.
        self.variables: dict[str, WritableVariable] = {}
        #: Its subgroups, by name.
        self.groups: dict[str, WritableGroup] = {}
        #: Its attributes, as set so far.
        self.attrs = _Attrs(self)

    @property
    def _native(self) -> Any:
        return self._dataset._native_writer

    def _child_path(self, name: str) -> str:
        return f"{self.path.rstrip('/')}/{name}"

    def _find_dim(self, name: str) -> tuple[int, Dimension]:
        group: WritableGroup | None = self
        while group is not None:
            if name in group._dim_ids:
                return group._dim_ids[name], group.dimensions[name]
            group = group.parent
        raise ValueError(f"no dimension {name!r} in {self.path} or its parents")

    def add_dimension(self, name: str, size: int | None) -> Dimension:
        """Adds a dimension of length ``size``, unlimited when ``size`` is
        ``None`` (Rust: ``add_dimension_in``, ``add_unlimited_dimension_in``)."""
        if size is not None and (not isinstance(size, (int, np.integer)) or size < 0):
            raise ValueError(f"dimension {name!r}: a length of {size!r}")
        did = self._native.add_dimension(self._gid, name, None if size is None else int(size))
        dim = Dimension(name, 0 if size is None else int(size), size is None, self.path)
        self.dimensions[name] = dim
        self._dim_ids[name] = did
        return dim

    def add_group(self, name: str) -> "WritableGroup":
        """Adds a subgroup (Rust: ``add_group``; netCDF-4 outputs)."""
        gid = self._native.add_group(self._gid, name)
        group = WritableGroup(self._dataset, gid, name, self)
        self.groups[name] = group
        return group

    def add_variable(
        self,
        name: str,
        dtype: Any,
        dimensions: Sequence[str] = (),
        *,
        chunksizes: Sequence[int] | None = None,
        contiguous: bool = False,
        deflate_level: int | None = None,
        shuffle: bool = False,
        codecs: str | None = None,
        filters: str | None = None,
        fletcher32: bool = False,
        endianness: str | None = None,
        string_width: int | None = None,
        fill_value: Any = None,
        no_fill: bool = False,
        attrs: dict[str, Any] | None = None,
    ) -> WritableVariable:
        """Adds a variable (Rust: ``add_variable_of_type_in`` and the
        ``VarDef`` setters).

        ``dtype`` is a numpy dtype (``"f4"``, ``np.int16``, ...), ``"S1"``
        for ``char`` or ``str`` for ``string``; ``dimensions`` are names
        defined in this group or its parents. Storage (netCDF-4 outputs;
        a classic file refuses each with ``NotImplementedError``):
        ``chunksizes`` (``set_chunking``), ``contiguous``, ``deflate_level``
        0..9 with ``shuffle`` (``set_compression``), ``codecs`` (a numcodecs
        JSON chain, ``_Codecs``), ``filters`` (``_Filter`` text such as
        ``"307,9|32015,3"``), ``fletcher32``, ``endianness`` (``little``,
        ``big``), ``string_width``, ``no_fill``. ``fill_value`` sets
        ``_FillValue``; ``attrs`` sets attributes.
        """
        if isinstance(dimensions, str):
            dimensions = (dimensions,)
        dims = [self._find_dim(d) for d in dimensions]
        code = _type_code(dtype)
        vid = self._native.add_variable(self._gid, name, code, [i for i, _ in dims])
        var = WritableVariable(self, vid, name, code, [d for _, d in dims])
        self.variables[name] = var
        storage = dict(
            chunksizes=None if chunksizes is None else [int(c) for c in chunksizes],
            contiguous=contiguous,
            deflate_level=deflate_level,
            shuffle=shuffle,
            codecs=codecs,
            filters=filters,
            fletcher32=fletcher32,
            endianness=endianness,
            string_width=string_width,
            no_fill=no_fill,
        )
        if any(v is not None and v is not False for v in storage.values()):
            self._native.set_storage(vid, **storage)
        if fill_value is not None:
            var.set_fill_value(fill_value)
        for k, v in (attrs or {}).items():
            var.put_attribute(k, v)
        return var

    def put_attribute(self, name: str, value: Any) -> None:
        """Sets an attribute of the group (Rust: ``put_group_attribute``);
        text becomes a ``char`` attribute, a list of str a ``string`` one,
        numbers keep their numpy type (a Python int is ``int64``, or
        ``int`` in a classic file when it fits, as netCDF4-python)."""
        kind, v = _attr_value(value, self._dataset._classic)
        self._native.put_attribute(self._gid, None, name, kind, v)
        self.attrs._values[name] = value

    def __getitem__(self, path: str) -> "WritableVariable | WritableGroup":
        node: WritableGroup = self._dataset if path.startswith("/") else self
        parts = [p for p in path.split("/") if p]
        for i, part in enumerate(parts):
            if i == len(parts) - 1 and part in node.variables:
                return node.variables[part]
            if part not in node.groups:
                raise KeyError(path)
            node = node.groups[part]
        return node

    def __repr__(self) -> str:
        return f"<nctk.WritableGroup {self.path!r}>"


class WritableDataset(WritableGroup):
    """A dataset being written (see :func:`create`): its root group, plus
    :meth:`end_define`, :meth:`sync`, :meth:`close` and :meth:`abort`.
    A context manager: closed when the block ends, aborted on an exception."""

    def __init__(self, native: Any, target: str) -> None:
        self._native_writer = native
        #: The path or URL being written.
        self.target = target
        #: The format, as ``ncdump -k`` names it.
        self.format: str = native.format
        self._classic = self.format in _CLASSIC_MODEL
        super().__init__(self, 0, "/", None)

    def end_define(self) -> None:
        """Leaves define mode (Rust: ``DatasetDef::end_define``); the first
        write does it too. Definitions are refused afterwards."""
        self._native.end_define()

    def sync(self) -> None:
        """netCDF's ``nc_sync`` (Rust: ``DatasetMut::sync``)."""
        self._native.sync()

    def close(self) -> None:
        """Completes the dataset and renames it into place (Rust:
        ``DatasetMut::close``); closing twice does nothing."""
        self._native.close()

    def abort(self) -> None:
        """Drops the dataset unfinished: nothing appears at the target."""
        self._native.abort()

    def isopen(self) -> bool:
        """True until :meth:`close` or :meth:`abort`."""
        return self._native.is_open()

    def __enter__(self) -> "WritableDataset":
        return self

    def __exit__(self, exc_type: Any, *exc: Any) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()

    def __repr__(self) -> str:
        state = "" if self.isopen() else " (closed)"
        return f"<nctk.WritableDataset {self.target!r} ({self.format}){state}>"
