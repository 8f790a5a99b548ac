"""Reads stores nctk wrote with a peer library and prints every variable's
values as JSON: {store: {"/path/var": [[value, count]...]} or {"error": text}},
the values in runs of equal ones (large arrays of fill values stay small).

usage: write_peers.py netcdf4|zarr|xarray STORE...

Chars (and 1-byte strings) become byte codes, longer byte strings text,
NaN the string "NaN"; masking and CF decoding are off.
"""
import itertools
import json
import math
import sys


def norm(a):
    """The array's values in JSON form, as runs [[value, count]...]."""
    return [[v, sum(1 for _ in run)] for v, run in itertools.groupby(values(a))]


def values(a):
    import numpy as np
    a = np.asarray(a)
    out = []
    flat = a.reshape(-1)
    if a.dtype.kind == "S" and a.dtype.itemsize == 1:
        return [x[0] if len(x) else 0 for x in flat.tolist()]
    if a.dtype.kind in "SO":
        return [x.decode("utf-8") if isinstance(x, bytes) else str(x) for x in flat.tolist()]
    if a.dtype.kind == "U":
        return [str(x) for x in flat.tolist()]
    for x in flat.tolist():
        if isinstance(x, float) and math.isnan(x):
            out.append("NaN")
        elif isinstance(x, float) and math.isinf(x):
            out.append("Infinity" if x > 0 else "-Infinity")
        else:
            out.append(x)
    return out


def netcdf4(path):
    import netCDF4
    out = {}
    ds = netCDF4.Dataset("file://" + path + "#mode=nczarr,file")
    ds.set_auto_maskandscale(False)

    def walk(g, prefix):
        for name, v in g.variables.items():
            v.set_auto_chartostring(False)
            out[prefix + "/" + name] = norm(v[...])
        for name, sub in g.groups.items():
            walk(sub, prefix + "/" + name)

    walk(ds, "")
    ds.close()
    return out


def zarr_(path):
    import zarr
    out = {}
    store = path
    if path.endswith(".zip"):
        from zarr.storage import ZipStore
        store = ZipStore(path, mode="r")
    root = zarr.open_group(store, mode="r", zarr_format=2)

    def walk(g, prefix):
        for name, a in g.arrays():
            out[prefix + "/" + name] = norm(a[...])
        for name, sub in g.groups():
            walk(sub, prefix + "/" + name)

    walk(root, "")
    return out


def xarray_(path):
    import xarray
    out = {}
    ds = xarray.open_dataset(path, engine="zarr", consolidated=False, decode_cf=False,
                             mask_and_scale=False, decode_times=False)
    for name, v in ds.variables.items():
        out["/" + str(name)] = norm(v.values)
    return out


def isolated(fn, path):
    """Runs fn(path) in a forked child, so a crash in the C library is
    that store's error rather than the end of the run."""
    import os
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            data = json.dumps(fn(path))
        except Exception as e:  # noqa: BLE001 - reported to the Rust side
            data = json.dumps({"error": repr(e)})
        with os.fdopen(w, "w") as f:
            f.write(data)
        os._exit(0)
    os.close(w)
    with os.fdopen(r) as f:
        text = f.read()
    _, status = os.waitpid(pid, 0)
    if status != 0 or not text:
        return {"error": "reader crashed (wait status %d)" % status}
    return json.loads(text)


def main():
    kind, paths = sys.argv[1], sys.argv[2:]
    fn = {"netcdf4": netcdf4, "zarr": zarr_, "xarray": xarray_}[kind]
    if kind == "netcdf4":
        import netCDF4  # noqa: F401 - imported once, before forking
        result = {p: isolated(fn, p) for p in paths}
    else:
        # zarr-python's event loop does not survive fork; it raises, never crashes.
        result = {}
        for p in paths:
            try:
                result[p] = fn(p)
            except Exception as e:  # noqa: BLE001 - reported to the Rust side
                result[p] = {"error": repr(e)}
    json.dump(result, sys.stdout)


main()
