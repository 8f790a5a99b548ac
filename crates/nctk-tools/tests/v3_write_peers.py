"""Reads Zarr v3 stores nctk wrote with zarr-python, xarray and tensorstore
and compares them with netCDF4-python's reading of the netCDF file each
was copied from: every variable's raw values (no masking or scaling), its
dimension names and its attributes, in every group.

argv[1]: a JSON list of [source netCDF file, store directory] pairs.
Prints one JSON object per store: {"store", "arrays", "tensorstore",
"problems": [...]}; a store no peer can open is a problem too.
"""

import base64
import json
import struct
import sys
import warnings

import netCDF4
import numpy as np
import tensorstore as ts
import xarray as xr
import zarr

warnings.simplefilter("ignore")


def raw(v):
    """netCDF4-python's values of `v`, not masked or scaled; char as uint8,
    strings as a list."""
    v.set_auto_maskandscale(False)
    if v.dtype == str:
        return np.array(v[...], dtype=object)
    v.set_auto_chartostring(False)
    a = np.asarray(v[...])
    if a.dtype.kind == "S":
        a = a.view("u1")
    return a


def same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    if a.dtype.kind in "OUT" or b.dtype.kind in "OUT":
        return [str(x) for x in a.ravel()] == [str(x) for x in b.ravel()]
    return np.array_equal(a, b, equal_nan=a.dtype.kind == "f")


def as_netcdf4_text(s):
    """nctk carries bytes of char text that are not UTF-8 as the code points
    U+10FF00 + byte; netCDF4-python decodes such bytes as U+FFFD."""
    return "".join("\ufffd" if 0x10FF00 <= ord(c) <= 0x10FFFF else c for c in s)


def attr_same(name, nc_value, xr_value, dtype):
    if isinstance(xr_value, str):
        xr_value = as_netcdf4_text(xr_value)
    if name == "_FillValue" and isinstance(xr_value, str) and dtype.kind == "f":
        xr_value = struct.unpack("<d", base64.b64decode(xr_value))[0]
    if isinstance(nc_value, str):
        return nc_value == xr_value
    # Non-finite numbers are the strings the Zarr v3 spec gives fill values
    # ("NaN", "Infinity", "-Infinity"): bare NaN tokens are not JSON, and
    # tensorstore refuses a zarr.json holding them.
    special = {"NaN": np.nan, "Infinity": np.inf, "-Infinity": -np.inf}
    values = xr_value if isinstance(xr_value, list) else [xr_value]
    values = [special.get(x, x) if isinstance(x, str) else x for x in values]
    want = np.asarray(nc_value).ravel()
    # Compared in the attribute's own float type (a float32 attribute is
    # written as its shortest decimal text).
    as_type = want.dtype if want.dtype.kind == "f" else np.dtype("f8")
    try:
        got = np.asarray(values, dtype=as_type)
    except (TypeError, ValueError):
        return False
    want = want.astype(as_type)
    return got.shape == want.shape and np.array_equal(got, want, equal_nan=True)


def walk(group, path=""):
    yield path, group
    for name, sub in group.groups.items():
        yield from walk(sub, f"{path}/{name}" if path else name)


def check(source, store):
    problems = []
    arrays = via_ts = 0
    nc = netCDF4.Dataset(source)
    root = zarr.open_group(store, mode="r")
    for path, group in walk(nc):
        zg = root[path] if path else root
        ds = xr.open_zarr(store, group=path or None, mask_and_scale=False, decode_times=False)
        for name, value in group.__dict__.items():
            if not attr_same(name, value, ds.attrs.get(name), np.dtype("f8")):
                problems.append(f"{path}: attribute {name}: {ds.attrs.get(name)!r} != {value!r}")
        for name, v in group.variables.items():
            where = f"{path}/{name}"
            arrays += 1
            ref = raw(v)
            za = zg[name]
            if not same(za[...], ref):
                problems.append(f"{where}: zarr-python values {za[...]!r} != {ref!r}")
            names = list(za.metadata.dimension_names or [])
            if names != list(v.dimensions):
                problems.append(f"{where}: dimension_names {names} != {list(v.dimensions)}")
            xv = ds[name]
            if not same(xv.values, ref):
                problems.append(f"{where}: xarray values {xv.values!r} != {ref!r}")
            if list(xv.dims) != list(v.dimensions):
                problems.append(f"{where}: xarray dims {xv.dims} != {v.dimensions}")
            for a in v.ncattrs():
                if not attr_same(a, v.getncattr(a), xv.attrs.get(a, xv.encoding.get(a)), v.dtype if v.dtype != str else np.dtype("O")):
                    problems.append(f"{where}: attribute {a}: {xv.attrs.get(a)!r} != {v.getncattr(a)!r}")
            # tensorstore refuses an array naming one dimension twice
            # ("Dimension label(s) not unique"), as netCDF allows, and has
            # no `string` data type (zarr-python's, for netCDF strings).
            if len(set(v.dimensions)) == len(v.dimensions) and v.dtype != str:
                spec = {"driver": "zarr3", "kvstore": {"driver": "file", "path": f"{store}/{where.lstrip('/')}/"}}
                t = ts.open(spec).result().read().result()
                via_ts += 1
                if not same(t, ref):
                    problems.append(f"{where}: tensorstore values {t!r} != {ref!r}")
    return {"store": store, "arrays": arrays, "tensorstore": via_ts, "problems": problems}


for source, store in json.loads(sys.argv[1]):
    try:
        report = check(source, store)
    except Exception as e:  # a store a peer cannot open at all
        report = {"store": store, "arrays": 0, "tensorstore": 0, "problems": [f"{type(e).__name__}: {e}"]}
    print(json.dumps(report))
