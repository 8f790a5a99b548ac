"""An xarray engine whose files are already in memory, for the floor of
``open_mfdataset`` in bench.py: each file's variables and attributes (read
once, before timing) behind lazily indexed arrays in an
``InMemoryDataStore``, decoded by xarray as every store is. Opening through
it costs only xarray's own work (CF decoding, indexes, dask arrays,
combining), which every engine pays."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import xarray as xr
from xarray.backends import BackendArray, BackendEntrypoint
from xarray.backends.memory import InMemoryDataStore
from xarray.backends.store import StoreBackendEntrypoint
from xarray.core import indexing

#: The files served, by name: (variables, attributes).
FILES: dict[str, tuple[dict, dict]] = {}


class Held(BackendArray):
    """Values in memory, indexed lazily as a backend's are."""

    def __init__(self, values: np.ndarray) -> None:
        self.values, self.shape, self.dtype = values, values.shape, values.dtype

    def __getitem__(self, key):
        return indexing.explicit_indexing_adapter(
            key, self.shape, indexing.IndexingSupport.OUTER, lambda k: self.values[k]
        )


class MemoryEngine(BackendEntrypoint):
    """Serves :data:`FILES`."""

    def open_dataset(self, filename_or_obj, *, drop_variables=None, **kwargs):
        variables, attrs = FILES[str(filename_or_obj)]
        store = InMemoryDataStore(variables=dict(variables), attributes=dict(attrs))
        return StoreBackendEntrypoint().open_dataset(store, drop_variables=drop_variables, **kwargs)


def load(files: list[Path]) -> type[MemoryEngine]:
    """Reads ``files`` (with netCDF4, undecoded) into :data:`FILES`; the engine."""
    for f in files:
        with xr.open_dataset(f, engine="netcdf4", decode_cf=False) as ds:
            variables = {
                k: xr.Variable(v.dims, indexing.LazilyIndexedArray(Held(v.values)), v.attrs, v.encoding)
                for k, v in ds.variables.items()
            }
            FILES[str(f)] = (variables, dict(ds.attrs))
    return MemoryEngine
