"""Dumps netCDF files as JSON through netCDF-C (Python netCDF4), for comparing
with nctk. Per file: format, dims, global and variable attributes, and per
variable its data (hex) as big-endian bytes. Errors are reported, not raised."""
import json
import sys

import netCDF4
import numpy as np


def attr_json(x):
    if isinstance(x, str):
        return {"text": x}
    if isinstance(x, bytes):
        return {"text": x.decode("utf-8", "replace")}
    a = np.atleast_1d(np.asarray(x))
    if a.dtype.kind in "SU":
        return {"text": "".join(a.astype(str))}
    return {"dtype": a.dtype.str[1:], "hex": a.astype(a.dtype.newbyteorder(">")).tobytes().hex()}


def dump(path):
    ds = netCDF4.Dataset(path)
    ds.set_auto_maskandscale(False)
    ds.set_always_mask(False)
    out = {"format": ds.data_model, "dims": [], "attrs": {}, "vars": {}}
    for name, d in ds.dimensions.items():
        out["dims"].append([name, len(d), d.isunlimited()])
    for a in ds.ncattrs():
        out["attrs"][a] = attr_json(ds.getncattr(a))
    for name, v in ds.variables.items():
        v.set_auto_chartostring(False)
        data = np.asarray(v[...])
        if data.dtype.kind == "S":
            raw = data.tobytes()
        else:
            raw = data.astype(data.dtype.newbyteorder(">")).tobytes()
        out["vars"][name] = {
            "dims": list(v.dimensions),
            "shape": list(v.shape),
            "attrs": {a: attr_json(v.getncattr(a)) for a in v.ncattrs()},
            "hex": raw.hex(),
            "nbytes": len(raw),
        }
    ds.close()
    return out


result = {}
for p in sys.argv[1:]:
    try:
        result[p] = dump(p)
    except Exception as e:  # noqa: BLE001
        result[p] = {"error": str(e)}
json.dump(result, sys.stdout)
