"""Writes `temp(100, 721, 1440)` float32 from the classic bench's CDF-5 file
as a Zarr v3 store with zarr-python 3: inner chunks (1, 721, 1440), zstd
level 1 (zarr-python's ZstdCodec(level=1)), unsharded or in shards
(10, 721, 1440), with xarray's dimension names.

Usage: zarr_v3_make.py OUT SRC SHARD_T (SHARD_T 0: unsharded)
"""
import sys
import warnings

import netCDF4
import zarr
from zarr.codecs import ZstdCodec

out, src, shard_t = sys.argv[1], sys.argv[2], int(sys.argv[3])
v = netCDF4.Dataset(src)["temp"]
v.set_auto_maskandscale(False)
nt, ny, nx = v.shape
root = zarr.open_group(out, mode="w", zarr_format=3)
a = root.create_array(
    "temp",
    shape=(nt, ny, nx),
    chunks=(1, ny, nx),
    shards=(shard_t, ny, nx) if shard_t else None,
    dtype="<f4",
    compressors=ZstdCodec(level=1),
    fill_value=0.0,
    dimension_names=["time", "lat", "lon"],
)
step = shard_t or 1
for t in range(0, nt, step):
    a[t : t + step] = v[t : t + step]
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # "consolidated metadata is not part of the v3 spec"
    zarr.consolidate_metadata(out)
print("ok")
