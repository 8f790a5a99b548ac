# The peers' view of an output, for the fault tests: reads one dataset a
# line from stdin, a JSON object {"kind": ..., "path": ...}, and prints one
# JSON line: {"opens": true, "vars": {name: [shape, type, sha256]}} with
# each variable's values (raw: no masking or scaling, little-endian bytes)
# as the peer reads them, or {"opens": false, "error": "..."} when the peer
# cannot open or read it. Kinds: "netcdf" (netCDF4-python, netCDF-C),
# "zarr" (zarr-python: a directory, or a zip with the store at its top or,
# as NCZarr zips are, under the file's stem), "ncstream" (siphon, through
# nctk-ncstream's siphon_messages.py, whose directory is sys.argv[1]: every
# value must be covered by a data message and the stream must end with its
# end mark). Modules are imported at first use.
import hashlib
import json
import os
import sys
import zipfile

import numpy as np


def digest(a):
    a = np.ascontiguousarray(np.asarray(a))
    little = a.astype(a.dtype.newbyteorder("<"), copy=False)
    return [list(a.shape), a.dtype.kind + str(a.dtype.itemsize), hashlib.sha256(little.tobytes()).hexdigest()]


def netcdf(path):
    import netCDF4

    out = {}
    with netCDF4.Dataset(path) as ds:
        for name, v in ds.variables.items():
            v.set_auto_maskandscale(False)
            out[name] = digest(v[...])
    return out


def zarr_(path):
    import zarr

    def arrays(group, prefix, out):
        for name, a in group.arrays():
            out[prefix + name] = digest(a[...])
        for name, sub in group.groups():
            arrays(sub, prefix + name + "/", out)
        return out

    if path.endswith(".zip"):
        from zarr.storage import ZipStore

        with zipfile.ZipFile(path) as z:
            top = {n for n in z.namelist() if "/" not in n}
        inner = "" if top & {"zarr.json", ".zgroup"} else os.path.splitext(os.path.basename(path))[0]
        return arrays(zarr.open_group(ZipStore(path, mode="r"), path=inner, mode="r"), "", {})
    return arrays(zarr.open_group(path, mode="r"), "", {})


def ncstream(path):
    sys.path.insert(0, sys.argv[1])
    import siphon_messages

    shapes, values, covered, ended = {}, {}, {}, False
    for item in siphon_messages.messages(path):
        if item["kind"] == "header":
            for v in item["proto"].root.vars:
                shapes[v.name] = tuple(d.length for d in v.shape)
        elif item["kind"] == "data":
            name = item["var"]
            section = tuple(slice(s, s + n * k, k) for s, n, k in item["section"])
            array = np.asarray(item["array"])
            if name not in values:
                values[name] = np.zeros(shapes[name], dtype=array.dtype)
                covered[name] = np.zeros(shapes[name], dtype=bool)
            values[name][section] = array.reshape(values[name][section].shape)
            covered[name][section] = True
        elif item["kind"] == "ededdede":
            ended = True
        elif item["kind"] in ("error", "unknown"):
            raise ValueError(f"the stream holds {item}")
    if not ended:
        raise ValueError("the stream has no end mark")
    missing = [n for n in shapes if n not in covered or not covered[n].all()]
    if missing:
        raise ValueError(f"values of {missing} are not in the stream")
    return {name: digest(values[name]) for name in shapes}


READERS = {"netcdf": netcdf, "zarr": zarr_, "ncstream": ncstream}

for line in sys.stdin:
    request = json.loads(line)
    try:
        answer = {"opens": True, "vars": READERS[request["kind"]](request["path"])}
    except Exception as e:  # noqa: BLE001 - any failure means "does not open"
        answer = {"opens": False, "error": f"{type(e).__name__}: {e}"}
    print(json.dumps(answer), flush=True)
