"""The inputs of benches/refs_speed.rs, written by netCDF4-python
(netCDF-C) into sys.argv[1]: sys.argv[2] files of one time line, of the
kind sys.argv[3] names:

  netcdf4 (the default): netCDF-4 files f000.nc..., each ten steps of ten
    variables float32 (time, y=100, x=100) in chunks of (1, 10, 10) with
    zlib level 1: 1,000 chunks per variable, and the time coordinate;
  classic: CDF-2 files (NETCDF3_64BIT_OFFSET) c000.nc..., each 100
    records of eight float32 record variables (time, y=25, x=40), 4,000
    bytes per record each, the records interleaved as classic files store
    them; the record coordinate time (float64) and three fixed variables
    (lat(y), lon(x), orography(y, x)).

A file is renamed into place when complete, so an interrupted run
resumes."""
import os
import sys

import netCDF4
import numpy as np


def netcdf4(ds, i, rng):
    ds.title = "references benchmark"
    ds.createDimension("time", None)
    ds.createDimension("y", 100)
    ds.createDimension("x", 100)
    t = ds.createVariable("time", "f8", ("time",), chunksizes=(10,))
    t.units = "days since 2000-01-01"
    t[:] = np.arange(10 * i, 10 * i + 10)
    for v in range(10):
        var = ds.createVariable(f"v{v}", "f4", ("time", "y", "x"), zlib=True,
                                complevel=1, chunksizes=(1, 10, 10))
        var.units = "K"
        var[:] = rng.normal(size=(10, 100, 100)).astype("f4")


def classic(ds, i, rng, records=100, ny=25, nx=40, nvars=8):
    ds.title = "classic references benchmark"
    ds.createDimension("time", None)
    ds.createDimension("y", ny)
    ds.createDimension("x", nx)
    lat = ds.createVariable("lat", "f4", ("y",))
    lat.units = "degrees_north"
    lat[:] = np.linspace(-60, 60, ny)
    lon = ds.createVariable("lon", "f4", ("x",))
    lon.units = "degrees_east"
    lon[:] = np.linspace(0, 351, nx)
    oro = ds.createVariable("orography", "f4", ("y", "x"))
    oro.units = "m"
    oro[:] = rng.uniform(0, 3000, size=(ny, nx)).astype("f4")
    t = ds.createVariable("time", "f8", ("time",))
    t.units = "hours since 2000-01-01"
    t[:] = np.arange(records * i, records * (i + 1))
    for v in range(nvars):
        var = ds.createVariable(f"v{v}", "f4", ("time", "y", "x"))
        var.units = "K"
        var[:] = rng.normal(size=(records, ny, nx)).astype("f4")


KINDS = {"netcdf4": ("f", "NETCDF4", netcdf4, 28),
         "classic": ("c", "NETCDF3_64BIT_OFFSET", classic, 3)}
out, n = sys.argv[1], int(sys.argv[2])
prefix, fmt, write, seed = KINDS[sys.argv[3] if len(sys.argv) > 3 else "netcdf4"]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(seed)
for i in range(n):
    path = os.path.join(out, f"{prefix}{i:03d}.nc")
    if os.path.exists(path):
        continue
    tmp = path + ".tmp"
    with netCDF4.Dataset(tmp, "w", format=fmt) as ds:
        write(ds, i, rng)
    os.rename(tmp, path)
