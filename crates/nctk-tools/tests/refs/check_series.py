"""Checks nctk's references combining several files along time
(tests/refs.rs). sys.argv[1]: the references (JSON files or Parquet
directories, several separated by os.pathsep); sys.argv[2:]: the files in
order. xarray opening the references (engine "zarr" over fsspec's
reference filesystem) gives the values and attributes of
`xr.open_mfdataset` of the files (engine "netcdf4") combined along time
as kerchunk's MultiZarrToZarr combines them: variables without time and
attributes from the first file. Prints "agree"."""
import sys
import warnings

import fsspec
import xarray as xr

warnings.simplefilter("ignore")
import os

all_refs, files = sys.argv[1].split(os.pathsep), sys.argv[2:]
real = xr.open_mfdataset(
    files, engine="netcdf4", combine="nested", concat_dim="time",
    data_vars="minimal", coords="minimal", compat="override",
).load()
for refs in all_refs:
    fs = fsspec.filesystem("reference", fo=refs)
    virtual = xr.open_dataset(fs.get_mapper(""), engine="zarr", consolidated=False, zarr_format=2).load()
    assert virtual.sizes["time"] == 3 * len(files), virtual.sizes
    xr.testing.assert_identical(virtual, real)
print("agree")
