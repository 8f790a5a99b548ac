"""The peers of the zarr_v3_read bench on one Zarr v3 store: the array
`temp` read whole by zarr-python 3 (default codec pipeline), by zarr-python
with the zarrs codec pipeline, and by tensorstore, each best of 3 with the
open included. Prints one JSON object: the versions, and per reader its
best time in seconds and the checksum (every 9973rd value summed as f64).

Usage: zarr_v3_peers.py STORE
"""
import json
import platform
import sys
import time
from importlib.metadata import version

import numpy as np
import tensorstore as ts
import zarr

store = sys.argv[1]


def checksum(a):
    return float(np.asarray(a).reshape(-1)[::9973].astype("f8").sum())


def best_of_3(read):
    best, a = 1e30, None
    for _ in range(3):
        t0 = time.perf_counter()
        a = read()
        best = min(best, time.perf_counter() - t0)
    return {"seconds": best, "checksum": checksum(a)}


def zarr_python():
    return zarr.open_array(store, path="temp", mode="r")[:]


def tensorstore():
    spec = {"driver": "zarr3", "kvstore": {"driver": "file", "path": store + "/temp"}}
    # A fresh context each time: no cache carried over between reads.
    return ts.open(spec, read=True, context=ts.Context()).result().read().result()


versions = {p: version(p) for p in ("zarr", "zarrs", "tensorstore", "numcodecs", "numpy")}
versions["python"] = platform.python_version()
out = {"versions": versions}
out["zarr-python"] = best_of_3(zarr_python)
with zarr.config.set({"codec_pipeline.path": "zarrs.ZarrsCodecPipeline"}):
    pipeline = type(zarr.open_array(store, path="temp", mode="r")._async_array.codec_pipeline)
    assert pipeline.__name__ == "ZarrsCodecPipeline", pipeline
    out["zarr-python + zarrs"] = best_of_3(zarr_python)
out["tensorstore"] = best_of_3(tensorstore)
print(json.dumps(out))
