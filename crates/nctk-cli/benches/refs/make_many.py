"""Many small inputs for the memory figures of docs/benchmarks.md
("Virtual references (issue 28)", many inputs), written by netCDF4-python
(netCDF-C) into sys.argv[1]: sys.argv[2] netCDF-4 files of one time line,
each three steps of three float32 variables (time, y=20, x=30) in zlib
chunks of (1, 10, 10), and the time coordinate (netCDF-C's default
chunks, so nctk inlines it)."""
import os
import sys

import netCDF4
import numpy as np

out, n = sys.argv[1], int(sys.argv[2])
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(1)
for i in range(n):
    with netCDF4.Dataset(os.path.join(out, f"{i:05d}.nc"), "w") as ds:
        ds.createDimension("time", None)
        ds.createDimension("y", 20)
        ds.createDimension("x", 30)
        t = ds.createVariable("time", "f8", ("time",))
        t.units = "days since 2000-01-01"
        t[:] = np.arange(3 * i, 3 * i + 3)
        for name in ("temp", "rh", "wind"):
            v = ds.createVariable(name, "f4", ("time", "y", "x"), zlib=True, chunksizes=(1, 10, 10))
            v[:] = rng.normal(size=(3, 20, 30)).astype("f4")
