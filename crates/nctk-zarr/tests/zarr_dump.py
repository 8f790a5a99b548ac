# Prints every array of each Zarr v2 store named on the command line as JSON
# lines, as zarr-python reads it: {"store": i, "path": ..., "values": [...]}
# or {"store": i, "path": ..., "error": ...}, i the store's position among
# the arguments (one process for every store: importing zarr costs more
# than reading a corpus store).
import json, math, sys
import numpy as np
import zarr

def enc(x):
    if isinstance(x, (bytes, np.bytes_)):
        return bytes(x).rstrip(b"\0").decode("utf-8", "replace")
    if isinstance(x, (str, np.str_)):
        return str(x)
    if isinstance(x, (bool, np.bool_)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        f = float(x)
        if math.isnan(f):
            return "NaN"
        if math.isinf(f):
            return "Infinity" if f > 0 else "-Infinity"
        return f
    return int(x)

def values(flat):
    """enc of every element: numbers through numpy's tolist (in C; the
    per-element loop took most of the test's time on the large arrays),
    the rest element by element."""
    kind = flat.dtype.kind
    if kind in "iu":
        return flat.tolist()
    if kind == "b":
        return flat.astype(np.int64).tolist()
    if kind == "f" and np.isfinite(flat).all():
        return flat.astype(np.float64).tolist()
    return [enc(x) for x in flat]

def walk(g, prefix, i):
    for name, a in g.arrays():
        path = prefix + "/" + name
        try:
            n = int(np.prod(a.shape)) if a.shape else 1
            data = a[...] if n <= (1 << 22) else a[tuple(slice(0, min(x, 8)) for x in a.shape)]
            flat = np.asarray(data).reshape(-1)
            print(json.dumps({"store": i, "path": path, "values": values(flat)}))
        except Exception as e:
            print(json.dumps({"store": i, "path": path, "error": str(e)[:200]}))
    for name, sub in g.groups():
        walk(sub, prefix + "/" + name, i)

for i, store in enumerate(sys.argv[1:]):
    try:
        if store.endswith(".zip"):
            store = zarr.storage.ZipStore(store, mode="r")
        walk(zarr.open_group(store, mode="r", zarr_format=2), "", i)
    except Exception as e:  # a store zarr-python cannot list: nothing to compare
        print(json.dumps({"store": i, "path": "", "error": str(e)[:200]}))
