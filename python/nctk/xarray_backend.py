"""The xarray engine ``nctk``: ``xr.open_dataset(path, engine="nctk")``.

Every format nctk reads opens in xarray through this engine: classic and
block-compressed classic files, netCDF-4/HDF5 (h5py and h5netcdf files
included), NCZarr and Zarr v2/v3 stores (directories, zips, object stores),
``#mode=bytes`` URLs, ncstream files and cdmremote servers.

Variables are lazy: each is a :class:`NctkBackendArray` that reads what an
index selects natively (outer indexing, any steps), with the GIL released,
and with no lock: nctk reads are thread-safe, so dask's threads read in
parallel. The variables, attributes and encodings are built as xarray's
netcdf4 backend builds them (as its zarr backend does for the fill value of a
Zarr store), and CF decoding is xarray's own.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from xarray.backends.common import (
    AbstractDataStore,
    BackendArray,
    BackendEntrypoint,
    _normalize_path,
    datatree_from_dict_with_io_cleanup,
)
from xarray.backends.store import StoreBackendEntrypoint
from xarray.coding.strings import create_vlen_dtype
from xarray.core import indexing
from xarray.core.utils import FrozenDict, close_on_error, is_remote_uri
from xarray.core.variable import Variable

from ._dataset import Dataset as NctkDataset
from ._dataset import Group as NctkGroup
from ._dataset import Variable as NctkVariable
from ._dataset import _reopen

if TYPE_CHECKING:
    from xarray.core.dataset import Dataset
    from xarray.core.datatree import DataTree

__all__ = ["NctkBackendArray", "NctkBackendEntrypoint", "NctkDataStore"]

#: The first bytes of the files the engine claims by their magic: classic
#: (CDF-1/2/5), HDF5, block-compressed classic and ncstream.
_MAGIC = (b"CDF\x01", b"CDF\x02", b"CDF\x05", b"\x89HDF\r\n\x1a\n", b"\x89NCB\r\n\x1a\n", b"CDFS")
#: File and store name endings the engine claims when it cannot read a magic.
_EXTENSIONS = {".nc", ".nc4", ".cdf", ".h5", ".hdf5", ".zarr"}
#: The objects that make a directory a Zarr store (v2 group or array, v3).
_ZARR_MARKERS = (".zgroup", ".zarray", "zarr.json")

#: Attributes netCDF-C keeps from ``nc_inq_att`` (an NCZarr store shows them).
_HIDDEN_ATTRS = {"_NCProperties", "_IsNetcdf4", "_SuperblockVersion"}

#: HDF5 filter ids of the compressors netCDF4-python's ``filters()`` names.
_ZSTD, _BZIP2, _BLOSC, _SZIP = 32015, 307, 32001, 4
#: Blosc's compressor codes as netCDF4-python names them.
_BLOSC_NAMES = {0: "blosc_lz", 1: "blosc_lz4", 2: "blosc_lz4hc", 3: "blosc_snappy", 4: "blosc_zlib", 5: "blosc_zstd"}


class NctkBackendArray(BackendArray):
    """One variable of an open dataset, read lazily through nctk.

    Indexing reads natively whatever an outer (orthogonal) key selects:
    integers, slices with any step and integer arrays per axis; xarray
    applies the rest of a vectorized key in memory. No lock is taken.
    """

    __slots__ = ("_variable", "_source", "shape", "dtype")

    def __init__(self, variable: NctkVariable | None, source: tuple | None = None,
                 shape: tuple | None = None, dtype: Any = None) -> None:
        self._variable = variable
        if variable is not None:
            ds = variable._dataset
            source = (ds.target, ds.options, variable.path)
            shape = variable.shape
            if variable.kind == "string":
                # xarray's spelling of a vlen string: object with metadata.
                dtype = create_vlen_dtype(str)
            else:
                dtype = variable.dtype
        self._source = source
        self.shape = shape
        self.dtype = dtype

    @property
    def variable(self) -> NctkVariable:
        """The nctk variable read; an array unpickled in another process
        (a dask worker, or the client receiving the datasets its workers
        opened) opens its dataset only when it is first read."""
        if self._variable is None:
            target, options, path = self._source
            self._variable = _reopen(target, options)[path]
        return self._variable

    def __reduce__(self) -> tuple:
        return (NctkBackendArray, (None, self._source, self.shape, self.dtype))

    def _getitem(self, key: tuple) -> np.ndarray:
        return self.variable[key]

    async def _async_getitem(self, key: tuple) -> np.ndarray:
        # The read releases the GIL: a thread reads while the loop runs on.
        return await asyncio.to_thread(self.variable.__getitem__, key)

    def __getitem__(self, key: indexing.ExplicitIndexer) -> np.ndarray:
        return indexing.explicit_indexing_adapter(
            key, self.shape, indexing.IndexingSupport.OUTER, self._getitem
        )

    async def async_getitem(self, key: indexing.ExplicitIndexer) -> np.ndarray:
        """What ``__getitem__`` reads, read in a worker thread (xarray's
        asynchronous loading: ``await ds.load_async()``)."""
        return await indexing.async_explicit_indexing_adapter(
            key, self.shape, indexing.IndexingSupport.OUTER, self._async_getitem
        )


class _Shared:
    """An open nctk dataset shared by the stores of its groups: closed when
    the last of them closes (if this process opened it)."""

    def __init__(self, dataset: NctkDataset, owner: bool = True) -> None:
        self.dataset = dataset
        self._owner = owner
        self._users = 0
        self._lock = threading.Lock()

    def __reduce__(self) -> tuple:
        # Unpickled (a dask worker, another process), the dataset reopens
        # there, shared by that process's readers: closing leaves it open.
        return (_Shared, (self.dataset, False))

    def acquire(self) -> NctkDataset:
        with self._lock:
            self._users += 1
        return self.dataset

    def release(self) -> None:
        with self._lock:
            self._users -= 1
            if self._users == 0 and self._owner:
                self.dataset.close()


class _Unpickled:
    """A data store unpickled in another process: it only closes (nothing)."""

    def __init__(self, source: str) -> None:
        self.source = source

    def close(self) -> None:
        """Nothing to close: the arrays open their datasets themselves."""


class NctkDataStore(AbstractDataStore):
    """One group of an nctk dataset as an xarray data store (read only).

    It hands xarray the variables as the netcdf4 backend does (stored
    values, attributes as stored, encodings from the storage), for
    xarray's CF decoding to decode.
    """

    __slots__ = ("_shared", "_group", "_closed", "source", "use_zarr_fill_value_as_mask")

    def __init__(
        self,
        shared: _Shared,
        group: str | None = None,
        use_zarr_fill_value_as_mask: bool | None = None,
    ) -> None:
        self._shared = shared
        dataset = shared.acquire()
        self._closed = False
        try:
            node = dataset[group or "/"]
        except KeyError:
            node = None
        if not isinstance(node, NctkGroup):
            self.close()
            raise OSError(f"group not found: {group!r} in {dataset.target}")
        self._group: NctkGroup = node
        #: The path or URL the dataset was opened from (``encoding["source"]``).
        self.source: str = dataset.target
        self.use_zarr_fill_value_as_mask = use_zarr_fill_value_as_mask

    @classmethod
    def open(
        cls,
        target: str,
        group: str | None = None,
        use_zarr_fill_value_as_mask: bool | None = None,
        **options: Any,
    ) -> "NctkDataStore":
        """The store of ``group`` of the dataset at ``target``, opened with
        :func:`nctk.open`'s ``options``."""
        return cls(_Shared(NctkDataset(target, **options)), group, use_zarr_fill_value_as_mask)

    def __reduce__(self) -> tuple:
        # A store travels only as a dataset's closer (xarray's open_mfdataset
        # with parallel=True sends the datasets its workers opened back to the
        # client): there it has nothing to close, and opens nothing, since
        # every array reopens its dataset when first read.
        return (_Unpickled, (self.source,))

    @property
    def ds(self) -> NctkGroup:
        """The nctk group this store reads."""
        return self._group

    def get_child_store(self, group: str) -> "NctkDataStore":
        """The store of the subgroup ``group`` of this one."""
        path = self._group.path.rstrip("/") + "/" + group
        return type(self)(self._shared, path, self.use_zarr_fill_value_as_mask)

    def open_store_variable(self, name: str, var: NctkVariable) -> Variable:
        """The xarray variable of ``var``: a lazy array, its stored
        attributes and its encoding."""
        data = indexing.LazilyIndexedArray(NctkBackendArray(var))
        attributes = dict(var.attrs)
        if var.kind == "char" and "_FillValue" in attributes:
            # As the netcdf4 backend: a char fill is bytes.
            attributes["_FillValue"] = np.bytes_(attributes["_FillValue"])
        encoding: dict[str, Any] = {"dtype": _encoded_dtype(var, self._shared.dataset.container)}
        fill = self._zarr_fill_value(var)
        if fill is not None and "_FillValue" not in attributes:
            attributes["_FillValue"] = fill
        if self._shared.dataset.format.startswith("netCDF-4"):
            encoding.update(_filters(var.storage))
            chunks = var.storage["chunksizes"]
            if chunks is None:
                encoding["contiguous"] = True
                encoding["chunksizes"] = None
            else:
                encoding["contiguous"] = False
                encoding["chunksizes"] = tuple(chunks)
                encoding["preferred_chunks"] = dict(zip(var.dimensions, chunks, strict=True))
        if "least_significant_digit" in attributes:
            encoding["least_significant_digit"] = attributes.pop("least_significant_digit")
        encoding["source"] = self.source
        encoding["original_shape"] = var.shape
        return Variable(var.dimensions, data, attributes, encoding)

    def _zarr_fill_value(self, var: NctkVariable) -> Any:
        """A Zarr array's ``fill_value`` as ``_FillValue``, where xarray's
        zarr backend takes it as one: in Zarr v2 (and in v3 only when
        ``use_zarr_fill_value_as_mask``)."""
        fill = var.storage.get("fill_value")
        if fill is None or self._shared.dataset.container != "zarr":
            return None
        mask = self.use_zarr_fill_value_as_mask
        if mask is None:
            mask = not _is_zarr_v3(var.storage)
        return fill if mask else None

    def get_variables(self) -> FrozenDict:
        """The group's variables, lazily read."""
        return FrozenDict(
            (k, self.open_store_variable(k, v)) for k, v in self._group.variables.items()
        )

    def get_attrs(self) -> FrozenDict:
        """The group's attributes, less those netCDF-C hides (an NCZarr
        store's ``_NCProperties``), as netCDF4-python gives them."""
        return FrozenDict((k, v) for k, v in self._group.attrs.items() if k not in _HIDDEN_ATTRS)

    def get_dimensions(self) -> FrozenDict:
        """The dimensions defined in this group, name to length."""
        return FrozenDict((k, v.size) for k, v in self._group.dimensions.items())

    def get_parent_dimensions(self) -> FrozenDict:
        """The dimensions of the enclosing groups (the nearest wins)."""
        dims: dict[str, int] = {}
        group = self._group.parent
        while group is not None:
            for k, v in group.dimensions.items():
                dims.setdefault(k, v.size)
            group = group.parent
        return FrozenDict(dims)

    def get_encoding(self) -> dict[str, Any]:
        """``unlimited_dims``: the group's unlimited dimensions."""
        return {"unlimited_dims": {k for k, v in self._group.dimensions.items() if v.unlimited}}

    def close(self) -> None:
        """Lets go of the dataset (closed when no group store uses it)."""
        if not self._closed:
            self._closed = True
            self._shared.release()


def _encoded_dtype(var: NctkVariable, container: str | None) -> Any:
    """``encoding["dtype"]`` as the netcdf4 backend gives it: ``str`` for
    strings, the base type with the enum's mapping for enums, the stored
    byte order of a netCDF-4 or Zarr number (a classic file's is always
    big-endian, and netCDF4-python says native). Reads return native
    numbers either way."""
    if var.kind == "string":
        return str
    if var.kind == "enum":
        return np.dtype(
            var.dtype, metadata={"enum": dict(var.enum_dict or {}), "enum_name": var.datatype["name"]}
        )
    order = {"big": ">", "little": "<"}.get(var.storage["endianness"] or "")
    if var.kind == "numeric" and order and container in ("hdf5", "zarr") and var.dtype.itemsize > 1:
        return var.dtype.newbyteorder(order)
    return var.dtype


def _filters(storage: dict[str, Any]) -> dict[str, Any]:
    """netCDF4-python's ``Variable.filters()`` from nctk's storage."""
    out: dict[str, Any] = {
        "zlib": False,
        "szip": False,
        "zstd": False,
        "bzip2": False,
        "blosc": False,
        "shuffle": bool(storage["shuffle"]),
        "complevel": 0,
        "fletcher32": bool(storage["fletcher32"]),
    }
    if storage["deflate_level"] is not None:
        out["zlib"] = True
        out["complevel"] = storage["deflate_level"]
    for fid, params in _parse_filter_text(storage["filters"]):
        if fid == _ZSTD:
            out["zstd"] = True
            out["complevel"] = params[0] if params else 0
        elif fid == _BZIP2:
            out["bzip2"] = True
            out["complevel"] = params[0] if params else 0
        elif fid == _BLOSC and len(params) >= 7:
            out["blosc"] = {"compressor": _BLOSC_NAMES.get(params[6], params[6]), "shuffle": params[5]}
            out["complevel"] = params[4]
        elif fid == _SZIP and len(params) >= 2:
            out["szip"] = {"coding": "nn" if params[0] & 32 else "ec", "pixels_per_block": params[1]}
    return out


def _parse_filter_text(text: str | None) -> list[tuple[int, list[int]]]:
    """The filters of a ``_Filter`` text (``"307,9|32015,3"``) as (id,
    parameters); what is not numbers is left out."""
    out = []
    for item in (text or "").split("|"):
        try:
            numbers = [int(x) for x in item.split(",") if x.strip()]
        except ValueError:
            continue
        if numbers:
            out.append((numbers[0], numbers[1:]))
    return out


def _is_zarr_v3(storage: dict[str, Any]) -> bool:
    """True for an array of a Zarr v3 store: its codec chain (``_Codecs``)
    names its codecs by ``name`` (numcodecs' v2 codecs by ``id``)."""
    try:
        codecs = json.loads(storage.get("codecs") or "null")
    except ValueError:
        return False
    if isinstance(codecs, dict):
        codecs = [codecs]
    return isinstance(codecs, list) and any(isinstance(c, dict) and "name" in c for c in codecs)


def _target(filename_or_obj: Any) -> str:
    """The path or URL to open: a str or ``os.PathLike`` (made absolute
    as the other backends do)."""
    if isinstance(filename_or_obj, AbstractDataStore) or not isinstance(filename_or_obj, (str, os.PathLike)):
        raise TypeError(
            f"the nctk engine opens paths and URLs, not {type(filename_or_obj).__name__} objects"
        )
    target = _normalize_path(filename_or_obj)
    return os.fspath(target)


class NctkBackendEntrypoint(BackendEntrypoint):
    """xarray's engine ``nctk``: every format nctk reads (classic,
    netCDF-4/HDF5, NCZarr, Zarr v2/v3, ncstream; local files, object
    stores, HTTP), pure Rust, lazy, thread-safe and lock-free.

    ``xr.open_dataset(path, engine="nctk", group=None, in_memory=False)``;
    ``xr.open_datatree`` and ``xr.open_groups`` open every group.
    """

    description = (
        "Open classic netCDF, netCDF-4/HDF5, NCZarr and Zarr v2/v3 (local, object "
        "stores, HTTP) with nctk, pure Rust, thread-safe and lock-free"
    )
    # The workspace's repository (Cargo.toml), its Python docs.
    url = "https://example.invalid/nctk/blob/main/docs/python.md#xarray"
    supports_groups = True
    open_dataset_parameters: ClassVar[tuple[str, ...]] = (
        "filename_or_obj",
        "drop_variables",
        "group",
        "mask_and_scale",
        "decode_times",
        "concat_characters",
        "decode_coords",
        "use_cftime",
        "decode_timedelta",
        "use_zarr_fill_value_as_mask",
        "in_memory",
    )

    def guess_can_open(self, filename_or_obj: Any) -> bool:
        """True for what nctk reads: a file whose first bytes are a classic,
        HDF5, block-compressed classic or ncstream magic; a directory holding
        a Zarr store; a URL with ``#mode=``; else a name ending in ``.nc``,
        ``.nc4``, ``.cdf``, ``.h5``, ``.hdf5`` or ``.zarr``."""
        if not isinstance(filename_or_obj, (str, os.PathLike)):
            return False
        text = os.fspath(filename_or_obj)
        if isinstance(text, bytes):
            return False
        if "#mode=" in text or text.startswith("cdmremote:"):
            return True
        if not is_remote_uri(text):
            if os.path.isdir(text):
                return any(os.path.exists(os.path.join(text, m)) for m in _ZARR_MARKERS)
            try:
                with open(text, "rb") as f:
                    magic = f.read(8)
            except OSError:
                magic = None
            if magic is not None:
                return magic.startswith(_MAGIC)
        _, ext = os.path.splitext(text.rstrip("/").split("?")[0])
        return ext.lower() in _EXTENSIONS

    def open_dataset(  # type: ignore[override]
        self,
        filename_or_obj: str | os.PathLike[Any],
        *,
        mask_and_scale: bool = True,
        decode_times: bool = True,
        concat_characters: bool = True,
        decode_coords: bool = True,
        drop_variables: str | Iterable[str] | None = None,
        use_cftime: bool | None = None,
        decode_timedelta: bool | None = None,
        group: str | None = None,
        use_zarr_fill_value_as_mask: bool | None = None,
        in_memory: bool = False,
    ) -> "Dataset":
        """The group ``group`` (the root by default) of the dataset at
        ``filename_or_obj`` as an xarray Dataset of lazy variables.

        ``use_zarr_fill_value_as_mask``: as xarray's zarr engine (default:
        a Zarr v2 array's ``fill_value`` is its ``_FillValue``, a v3 one's
        is not). ``in_memory``: read a single file whole first.
        """
        store = NctkDataStore.open(
            _target(filename_or_obj), group, use_zarr_fill_value_as_mask, in_memory=in_memory
        )
        with close_on_error(store):
            return StoreBackendEntrypoint().open_dataset(
                store,
                mask_and_scale=mask_and_scale,
                decode_times=decode_times,
                concat_characters=concat_characters,
                decode_coords=decode_coords,
                drop_variables=drop_variables,
                use_cftime=use_cftime,
                decode_timedelta=decode_timedelta,
            )

    def open_datatree(  # type: ignore[override]
        self, filename_or_obj: str | os.PathLike[Any], **kwargs: Any
    ) -> "DataTree":
        """Every group at and below ``group`` as a DataTree (the keywords
        of :meth:`open_dataset`)."""
        return datatree_from_dict_with_io_cleanup(self.open_groups_as_dict(filename_or_obj, **kwargs))

    def open_groups_as_dict(  # type: ignore[override]
        self,
        filename_or_obj: str | os.PathLike[Any],
        *,
        group: str | None = None,
        use_zarr_fill_value_as_mask: bool | None = None,
        in_memory: bool = False,
        **decoders: Any,
    ) -> dict[str, "Dataset"]:
        """Every group at and below ``group`` as a Dataset, by path
        (relative to ``group``, ``/`` for it); ``decoders`` are
        :meth:`open_dataset`'s decoding keywords."""
        top = NctkDataStore.open(
            _target(filename_or_obj), group, use_zarr_fill_value_as_mask, in_memory=in_memory
        )
        out: dict[str, Dataset] = {}
        with close_on_error(top):
            base = top.ds.path.rstrip("/")
            for node in top.ds.walk():
                store = NctkDataStore(top._shared, node.path, use_zarr_fill_value_as_mask)
                with close_on_error(store):
                    ds = StoreBackendEntrypoint().open_dataset(store, **decoders)
                out["/" + node.path[len(base) :].strip("/")] = ds
        top.close()
        return out
