"""nctk: pure-Rust netCDF for Python.

Read classic netCDF (CDF-1/2/5), block-compressed classic, netCDF-4/HDF5,
ncstream, NCZarr and Zarr v2/v3 datasets, locally, on object stores (S3,
GCS, Azure), over HTTP (``#mode=bytes``) and from cdmremote servers, with no
C library underneath::

    import nctk
    with nctk.open("in.nc") as ds:
        temp = ds["temp"][0, :, ::2]

``xr.open_dataset(path, engine="nctk")`` reads through nctk in xarray.
``nctk.create`` writes datasets with the define API; ``nctk.copy`` copies
them as nccopy does, or a collection of files into one Zarr store;
``nctk.refs`` publishes files as virtual Zarr (kerchunk references).
"""

from ._copy import copy
from ._dataset import Dataset, Dimension, Group, Variable, open
from ._errors import CorruptDataError, NctkError
from ._refs import refs
from ._nctk import __version__
from ._write import WritableDataset, WritableGroup, WritableVariable, create

__all__ = [
    "CorruptDataError",
    "Dataset",
    "Dimension",
    "Group",
    "NctkError",
    "Variable",
    "WritableDataset",
    "WritableGroup",
    "WritableVariable",
    "__version__",
    "copy",
    "create",
    "open",
    "refs",
]
