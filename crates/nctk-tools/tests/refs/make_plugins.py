"""HDF5 inputs of tests/refs.rs written with hdf5plugin's filters, into
sys.argv[1]: `plugins.h5` (zstd, blosc, bzip2: filters numcodecs reads),
`lz4.h5` (HDF5's LZ4 framing, which imagecodecs' lz4h5 codec reads) and
`skipped.h5` (a chunk written past its deflate filter: filter mask 1)."""
import os
import sys

import h5py
import hdf5plugin
import numpy as np

out = sys.argv[1]
grid = np.arange(200, dtype="f4").reshape(10, 20) / 7

with h5py.File(os.path.join(out, "plugins.h5"), "w") as f:
    f.create_dataset("zstd", data=grid, chunks=(5, 10), **hdf5plugin.Zstd(clevel=3))
    f.create_dataset(
        "blosc",
        data=grid,
        chunks=(5, 10),
        **hdf5plugin.Blosc(cname="lz4", clevel=5, shuffle=hdf5plugin.Blosc.SHUFFLE),
    )
    f.create_dataset("bzip2", data=grid, chunks=(5, 10), **hdf5plugin.BZip2(blocksize=9))

with h5py.File(os.path.join(out, "lz4.h5"), "w") as f:
    f.create_dataset("packed", data=grid, chunks=(5, 10), **hdf5plugin.LZ4())

with h5py.File(os.path.join(out, "skipped.h5"), "w") as f:
    d = f.create_dataset("mixed", shape=(10, 20), dtype="f4", chunks=(5, 20), compression="gzip")
    d[0:5] = grid[0:5]
    d.id.write_direct_chunk((5, 0), grid[5:10].tobytes(), filter_mask=1)
