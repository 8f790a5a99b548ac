"""Inputs for tests/refs.rs's combining tests, written by netCDF4-python
(netCDF-C) into sys.argv[1]: a series of netCDF-4 files and one of
classic files, each a few steps of one time line, and files that do not
line up with the netCDF-4 series (other chunks, a missing variable)."""
import os
import sys

import netCDF4
import numpy as np

out = sys.argv[1]
rng = np.random.default_rng(2028)
STEPS = 3


def series_file(name, fmt, step0, chunks=(1, 3, 4), drop=None):
    ds = netCDF4.Dataset(os.path.join(out, name), "w", format=fmt)
    ds.title = "series"
    ds.source = name  # differs per file: the first file's is the dataset's
    ds.createDimension("time", None)
    ds.createDimension("y", 3)
    ds.createDimension("x", 4)
    # a 1-D record coordinate: netCDF-C chunks it by 512 (netCDF-4), so
    # its chunks do not line up across files and its values are inlined
    t = ds.createVariable("time", "f8", ("time",))
    t.units = "days since 2000-01-01"
    t[:] = np.arange(step0, step0 + STEPS, dtype="f8")
    lat = ds.createVariable("lat", "f4", ("y",))
    lat[:] = [10, 20, 30]
    kw = {"zlib": True, "shuffle": True, "chunksizes": chunks} if fmt == "NETCDF4" else {}
    if drop != "temp":
        temp = ds.createVariable("temp", "f4", ("time", "y", "x"), fill_value=-999.0, **kw)
        temp.units = "K"
        temp[:] = rng.normal(280, 10, (STEPS, 3, 4)).astype("f4")
    flag = ds.createVariable("flag", "i2", ("time",))
    flag[:] = np.arange(step0, step0 + STEPS, dtype="i2") % 5
    ds.close()


for i in range(4):
    series_file(f"nc4_{i}.nc", "NETCDF4", STEPS * i)
    series_file(f"cdf_{i}.nc", "NETCDF3_64BIT_OFFSET", STEPS * i)
series_file("nc4_other_chunks.nc", "NETCDF4", STEPS * 4, chunks=(1, 1, 4))
series_file("nc4_no_temp.nc", "NETCDF4", STEPS * 4, drop="temp")
