"""For each (engine, truth, refs) triple of the arguments: xarray opening
the references (fsspec's reference filesystem, Zarr v2) gives the
variables, dimensions, types and values xarray gives for `truth` itself
(a store with engine "zarr", a classic file with engine "netcdf4"), both
read without masking or scaling. Prints "<refs> agree" or what differs."""

import sys

import fsspec
import numpy as np
import xarray as xr

args = sys.argv[1:]
for engine, truth, refs in zip(args[0::3], args[1::3], args[2::3]):
    fs = fsspec.filesystem("reference", fo=refs)
    got = xr.open_dataset(
        fs.get_mapper(""),
        engine="zarr",
        consolidated=False,
        zarr_format=2,
        mask_and_scale=False,
    )
    kw = {"consolidated": False} if engine == "zarr" else {}
    want = xr.open_dataset(truth, engine=engine, mask_and_scale=False, **kw)
    problems = []
    if set(got.variables) != set(want.variables):
        problems.append(f"variables {sorted(got.variables)} != {sorted(want.variables)}")
    for name in want.variables:
        if name not in got.variables:
            continue
        g, w = got[name], want[name]
        # an NCZarr scalar is a Zarr array of shape [1] to xarray itself
        if g.ndim == w.ndim and g.dims != w.dims:
            problems.append(f"{name}: dims {g.dims} != {w.dims}")
        if g.dtype != w.dtype:
            problems.append(f"{name}: dtype {g.dtype} != {w.dtype}")
        gv, wv = g.values.ravel(), w.values.ravel()
        nan = gv.dtype.kind in "fc"
        if gv.shape != wv.shape or not np.array_equal(gv, wv, equal_nan=nan):
            problems.append(f"{name}: values {gv!r} != {wv!r}")
    print(f"{refs} " + ("; ".join(problems) if problems else "agree"))
