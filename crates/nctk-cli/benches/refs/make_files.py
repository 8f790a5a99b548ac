"""The inputs of benches/refs_speed.rs, written by netCDF4-python
(netCDF-C) into sys.argv[1]: sys.argv[2] netCDF-4 files of one time line,
each ten steps of ten variables float32 (time, y=100, x=100) in chunks of
(1, 10, 10) with zlib level 1: 1,000 chunks per variable, and the time
coordinate. A file is renamed into place when complete, so an
interrupted run resumes."""
import os
import sys

import netCDF4
import numpy as np

out, n = sys.argv[1], int(sys.argv[2])
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(28)
for i in range(n):
    path = os.path.join(out, f"f{i:03d}.nc")
    if os.path.exists(path):
        continue
    tmp = path + ".tmp"
    with netCDF4.Dataset(tmp, "w", format="NETCDF4") as ds:
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
    os.rename(tmp, path)
