"""Reading: :func:`open` and the classes of an open dataset."""

from __future__ import annotations

import threading
import weakref
from typing import Any, Iterator, Mapping

import numpy as np

from . import _nctk
from ._indexing import parse_key, read_outer
from ._types import dtype_of

__all__ = ["Dataset", "Group", "Variable", "Dimension", "open"]

# Datasets reopened by unpickling, shared per process by target and options,
# so that a dask worker opens each file once however many tasks it gets.
_REOPENED: "weakref.WeakValueDictionary[tuple, Dataset]" = weakref.WeakValueDictionary()
_REOPEN_LOCK = threading.Lock()


def open(target: str | Any, **options: Any) -> "Dataset":
    """Opens the dataset at ``target`` for reading.

    ``target`` is a path (``str`` or ``os.PathLike``) or a URL as netCDF-C
    takes it: a classic, block-compressed classic, netCDF-4/HDF5 or ncstream
    file; an NCZarr or Zarr v2/v3 store (a directory, a ``.zip``, or
    ``s3://``, ``gs://``, ``https://`` with ``#mode=zarr``/``#mode=nczarr``);
    a file over HTTP or S3 with ``#mode=bytes``; a cdmremote server
    (``cdmremote:http://host/path``).

    Options: ``in_memory=True`` reads a single file whole into memory first
    (``nccopy -r``). Object stores take their credentials and settings from
    the environment, as described in docs/cloud.md.

    The dataset is a context manager; it is closed when the ``with`` block
    ends or when it is garbage collected.
    """
    return Dataset(target, **options)


def _reopen(target: str, options: dict[str, Any]) -> "Dataset":
    key = (target, tuple(sorted(options.items())))
    with _REOPEN_LOCK:
        ds = _REOPENED.get(key)
        if ds is None or ds._native is None:
            ds = Dataset(target, **options)
            _REOPENED[key] = ds
        return ds


def _variable(target: str, options: dict[str, Any], path: str) -> "Variable":
    return _reopen(target, options)[path]


class Dimension:
    """A dimension: ``name``, ``size`` (the current length of an unlimited
    one) and whether it is unlimited (``isunlimited()``, as netCDF4-python)."""

    __slots__ = ("name", "size", "unlimited", "group_path")

    def __init__(self, name: str, size: int, unlimited: bool, group_path: str) -> None:
        self.name = name
        self.size = size
        self.unlimited = unlimited
        self.group_path = group_path

    def __len__(self) -> int:
        return self.size

    def isunlimited(self) -> bool:
        """True for an unlimited (record) dimension."""
        return self.unlimited

    def __repr__(self) -> str:
        kind = "unlimited " if self.unlimited else ""
        return f"<nctk.Dimension {kind}{self.name!r}, size = {self.size}>"


class Variable:
    """A variable of an open dataset.

    ``var[key]`` reads the values ``key`` selects, as netCDF4-python takes
    keys (integers, slices with any step, ``...``, integer lists and
    boolean arrays per axis), as a numpy array of the stored values:
    no masking, no scaling (xarray and the user decide). Reads release the
    GIL; any number of threads may read one dataset at once.
    """

    def __init__(self, dataset: "Dataset", desc: dict[str, Any]) -> None:
        self._dataset = dataset
        self._id: int = desc["id"]
        #: The variable's name.
        self.name: str = desc["name"]
        #: The variable's full path (``/g/v``; ``/v`` in the root group).
        self.path: str = desc["path"]
        #: The names of its dimensions, outermost first.
        self.dimensions: tuple[str, ...] = tuple(desc["dimensions"])
        #: Its shape (current lengths of unlimited dimensions).
        self.shape: tuple[int, ...] = tuple(desc["shape"])
        self._type: dict[str, Any] = desc["type"]
        #: The numpy dtype of what reads return: a structured dtype for a
        #: compound, ``object`` for strings and vlens, ``S1`` for char, the
        #: base integer type for an enum, ``V<n>`` for opaque.
        self.dtype: np.dtype = dtype_of(self._type["dtype"])
        #: The attributes, in definition order, typed as netCDF4-python
        #: gives them.
        self.attrs: dict[str, Any] = dict(desc["attrs"])
        #: How the variable is stored: ``layout`` (contiguous, chunked,
        #: compact), ``chunksizes``, ``shards``, ``deflate_level``,
        #: ``shuffle``, ``fletcher32``, ``filters`` (``_Filter`` text),
        #: ``codecs`` (``_Codecs`` text), ``endianness``, ``no_fill``,
        #: ``fill_value`` (a Zarr array's ``fill_value``, or ``None``).
        self.storage: dict[str, Any] = desc["storage"]

    # netCDF4-python's names for the same facts.
    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return len(self.shape)

    @property
    def size(self) -> int:
        """The number of values."""
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def kind(self) -> str:
        """The type's kind: numeric, char, string, compound, vlen, enum or opaque."""
        return self._type["kind"]

    @property
    def datatype(self) -> dict[str, Any]:
        """The type's description: ``kind``, ``dtype`` and, for user-defined
        types, ``name``, ``base`` (vlen) and ``members`` (enum)."""
        return self._type

    @property
    def enum_dict(self) -> dict[str, int] | None:
        """An enum's members, name to value (``None`` for other types)."""
        return self._type.get("members")

    def ncattrs(self) -> list[str]:
        """The attributes' names (netCDF4-python's spelling)."""
        return list(self.attrs)

    def getncattr(self, name: str) -> Any:
        """The attribute ``name`` (netCDF4-python's spelling)."""
        return self.attrs[name]

    def chunking(self) -> str | list[int]:
        """``'contiguous'`` or the chunk lengths, as netCDF4-python says."""
        chunks = self.storage["chunksizes"]
        return "contiguous" if chunks is None else list(chunks)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a scalar variable")
        return self.shape[0]

    def _read(self, start: list[int], count: list[int], stride: list[int]) -> np.ndarray:
        native = self._dataset._native_or_raise()
        if self._type["kind"] == "numeric":
            out = np.empty(count, dtype=self.dtype)
            native.read_into(self._id, start, count, stride, out.reshape(-1).view(np.uint8))
            return out
        flat = native.read(self._id, start, count, stride)
        return flat.reshape(count)

    def __getitem__(self, key: Any) -> np.ndarray:
        return read_outer(self._read, parse_key(key, self.shape))

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        values = self[...]
        return values if dtype is None else values.astype(dtype)

    def __reduce__(self) -> tuple:
        ds = self._dataset
        return (_variable, (ds.target, ds.options, self.path))

    def __repr__(self) -> str:
        dims = ", ".join(f"{d}={n}" for d, n in zip(self.dimensions, self.shape))
        return f"<nctk.Variable {self.path} {self.dtype} ({dims})>"


class Group:
    """A group: ``dimensions``, ``variables``, ``groups`` (each a dict by
    name), ``attrs``; ``group["name"]`` or ``group["a/b/v"]`` looks a
    variable or group up by (relative) path."""

    def __init__(self, dataset: "Dataset", desc: dict[str, Any], parent: "Group | None") -> None:
        self._dataset = dataset
        #: The group's name (``"/"`` for the root).
        self.name: str = desc["name"] or "/"
        #: The group's full path.
        self.path: str = desc["path"]
        #: Its parent group (``None`` for the root).
        self.parent = parent
        #: Dimensions defined in this group, by name.
        self.dimensions: dict[str, Dimension] = {
            d["name"]: Dimension(d["name"], d["size"], d["unlimited"], self.path)
            for d in desc["dimensions"]
        }
        #: Variables of this group, by name.
        self.variables: dict[str, Variable] = {
            v["name"]: Variable(dataset, v) for v in desc["variables"]
        }
        #: The group's attributes (global attributes for the root).
        self.attrs: dict[str, Any] = dict(desc["attrs"])
        #: Subgroups, by name.
        self.groups: dict[str, Group] = {
            g["name"]: Group(dataset, g, self) for g in desc["groups"]
        }

    def ncattrs(self) -> list[str]:
        """The attributes' names (netCDF4-python's spelling)."""
        return list(self.attrs)

    def getncattr(self, name: str) -> Any:
        """The attribute ``name`` (netCDF4-python's spelling)."""
        return self.attrs[name]

    def __getitem__(self, path: str) -> "Variable | Group":
        node: Group = self
        if path.startswith("/"):
            node = self._dataset
            path = path[1:]
        parts = [p for p in path.split("/") if p]
        if not parts:
            return node
        for i, part in enumerate(parts):
            last = i == len(parts) - 1
            if last and part in node.variables:
                return node.variables[part]
            if part in node.groups:
                node = node.groups[part]
                continue
            raise KeyError(f"no variable or group {path!r} in {self.path}")
        return node

    def __contains__(self, path: str) -> bool:
        try:
            self[path]
        except KeyError:
            return False
        return True

    def walk(self) -> Iterator["Group"]:
        """This group and every group below it, depth first."""
        yield self
        for g in self.groups.values():
            yield from g.walk()

    def __repr__(self) -> str:
        return (
            f"<nctk.Group {self.path}: {len(self.dimensions)} dimensions, "
            f"{len(self.variables)} variables, {len(self.groups)} groups>"
        )


class Dataset(Group):
    """An open dataset (see :func:`nctk.open`): its root group, plus
    ``format`` (as ``ncdump -k`` prints it), ``target`` and ``close()``.

    Datasets and their variables pickle: they reopen from their target and
    options where they are unpickled (a dask worker, another process).
    """

    def __init__(self, target: str | Any, **options: Any) -> None:
        #: The path or URL the dataset was opened from.
        self.target: str = str(target) if not isinstance(target, str) else target
        #: The options it was opened with.
        self.options: dict[str, Any] = dict(options)
        unknown = set(options) - {"in_memory"}
        if unknown:
            raise TypeError(f"unknown option(s) for nctk.open: {', '.join(sorted(unknown))}")
        self._native: Any = _nctk.open(self.target, **options)
        desc = self._native.describe()
        #: The format as ``ncdump -k`` prints it (``classic``,
        #: ``64-bit offset``, ``cdf5``, ``netCDF-4``, ``netCDF-4 classic model``).
        self.format: str = desc["format"]
        #: What holds the dataset: ``classic``, ``hdf5``, ``zarr`` (NCZarr
        #: and Zarr v2/v3), ``ncstream``, ``compressed`` (block-compressed
        #: classic), ``cdmremote`` or ``other``; ``None`` when unknown.
        self.container: str | None = desc["container"]
        super().__init__(self, desc["root"], None)

    def _native_or_raise(self) -> Any:
        native = self._native
        if native is None:
            raise ValueError(f"the dataset {self.target} is closed")
        return native

    def close(self) -> None:
        """Closes the dataset; reading its variables then raises ValueError."""
        self._native = None

    def isopen(self) -> bool:
        """True until :meth:`close`."""
        return self._native is not None

    def __enter__(self) -> "Dataset":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __reduce__(self) -> tuple:
        return (_reopen, (self.target, self.options))

    def __repr__(self) -> str:
        state = "" if self.isopen() else " (closed)"
        return f"<nctk.Dataset {self.target!r} ({self.format}){state}>"


