# Prints, as JSON lines, what zarr-python reads from every `*.zarr` store
# (and `*.zip` archive) in the directory given as the only argument (v3 or
# v2, as zarr-python finds): the truth of tests/v3_read.rs.
#
# One line per group:
#   {"store": "x.zarr", "group": "/g", "attributes": {...}}
# and one per array:
#   {"store": "x.zarr", "path": "/g/a", "data_type": ..., "kind": "f",
#    "shape": [...], "values": [...], "fill_value": ...,
#    "cf_fill_value": ... | null (what an xarray `_FillValue` attribute means),
#    "attributes": {...},
#    "dimension_names": [...] | null,
#    "selections": [{"start": [...], "count": [...], "stride": [...],
#                    "values": [...]}]}
# or {"store": ..., "path": ..., "error": "..."} when zarr-python cannot
# read an array. Values are flattened in C order: NaN and infinities as the
# strings "NaN", "Infinity", "-Infinity"; booleans as 0/1; complex numbers
# as [re, im]; strings and fixed-length bytes as strings (UTF-8,
# NUL padding cut); variable-length bytes as lists of byte values;
# datetime64/timedelta64 as their int64 counts (NaT: -2^63). Attributes
# are the JSON zarr-python reads (non-finite floats spelled as strings).
import json
import math
import os
import sys
import warnings

import numpy as np
import zarr

warnings.filterwarnings("ignore")


def enc(x):
    if isinstance(x, (np.datetime64, np.timedelta64)):
        return int(x.astype(np.int64))
    if isinstance(x, np.bytes_):
        # Fixed-length (NUL-padded) bytes: text, as nctk reads `S<n>`.
        return bytes(x).rstrip(b"\0").decode("utf-8", "replace")
    if isinstance(x, bytes):
        return list(x)
    if isinstance(x, (str, np.str_)):
        return str(x)
    if isinstance(x, (bool, np.bool_)):
        return int(x)
    if isinstance(x, (complex, np.complexfloating)):
        return [enc(float(x.real)), enc(float(x.imag))]
    if isinstance(x, (float, np.floating)):
        f = float(x)
        if math.isnan(f):
            return "NaN"
        if math.isinf(f):
            return "Infinity" if f > 0 else "-Infinity"
        return f
    if isinstance(x, np.void):
        return list(x.tobytes())
    return int(x)


def clean(v):
    """Attributes as strict JSON (non-finite floats as strings)."""
    if isinstance(v, float) and not math.isfinite(v):
        return enc(v)
    if isinstance(v, dict):
        return {k: clean(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [clean(x) for x in v]
    return v


def flat(data, kind):
    # A 0-d read of variable-length bytes is a bare `bytes`: kept an object.
    data = np.asarray(data, dtype=object if kind == "O" else None)
    return [enc(x) for x in data.reshape(-1)]


def dtype_kind(a):
    return a.dtype.kind if isinstance(a.dtype, np.dtype) else a.dtype.to_native_dtype().kind


def selections(a):
    """A block in the middle and a strided selection, per dimension."""
    if not a.shape:
        return []
    out = []
    for kind in ("block", "strided"):
        start, count, stride = [], [], []
        for d in a.shape:
            if kind == "block":
                s, st = d // 3, 1
                c = max(1, (d - s + 1) // 2)
            else:
                s, st = min(1, d - 1), 2 if d > 2 else 1
                c = len(range(s, d, st))
            start.append(s)
            count.append(c)
            stride.append(st)
        key = tuple(slice(s, s + (c - 1) * st + 1, st) for s, c, st in zip(start, count, stride))
        out.append({"start": start, "count": count, "stride": stride, "values": flat(a[key], dtype_kind(a))})
    return out


def cf_fill_value(a):
    """The fill value xarray's `_FillValue` attribute means, if any, as
    xarray decodes it (in v3 floats are the base64 of a little-endian
    double; in v2 the attribute is the JSON value)."""
    v = a.attrs.get("_FillValue")
    if v is None:
        return None
    if a.metadata.zarr_format == 3:
        from xarray.backends.zarr import FillValueCoder

        v = FillValueCoder.decode(v, a.dtype)
    return enc(np.array(v, dtype=a.dtype)[()])


def data_type(a):
    meta = a.metadata.to_dict()
    return meta.get("data_type", meta.get("dtype"))


def walk(store, g, prefix):
    print(json.dumps({"store": store, "group": prefix or "/", "attributes": clean(dict(g.attrs))}))
    for name, a in sorted(g.arrays()):
        path = prefix + "/" + name
        try:
            line = {
                "store": store,
                "path": path,
                "data_type": data_type(a),
                "kind": dtype_kind(a),
                "shape": list(a.shape),
                "values": flat(a[...], dtype_kind(a)),
                "fill_value": enc(a.fill_value) if a.fill_value is not None else None,
                "cf_fill_value": cf_fill_value(a),
                "attributes": clean(dict(a.attrs)),
                "dimension_names": list(a.metadata.dimension_names)
                if getattr(a.metadata, "dimension_names", None) is not None
                else None,
                "selections": selections(a),
            }
            print(json.dumps(line))
        except Exception as e:
            print(json.dumps({"store": store, "path": path, "error": repr(e)[:300]}))
    for name, sub in sorted(g.groups()):
        walk(store, sub, prefix + "/" + name)


root = sys.argv[1]
for name in sorted(os.listdir(root)):
    if name.endswith(".zarr"):
        walk(name, zarr.open_group(os.path.join(root, name), mode="r"), "")
    elif name.endswith(".zip"):
        walk(name, zarr.open_group(zarr.storage.ZipStore(os.path.join(root, name), mode="r"), mode="r"), "")
