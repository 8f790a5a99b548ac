# Writes szip-compressed HDF5 datasets with h5py into sys.argv[1], then saves
# every chunk as HDF5 stored it (read_direct_chunk: the 4-byte size and the
# AEC stream) beside the bytes h5py decodes for it, in the file's byte
# order; prints JSON: per dataset its stored szip parameters and the chunks.
import json, os, sys
import numpy as np
import h5py

out = sys.argv[1]
rng = np.random.default_rng(121)
cases = []

def make(name, dtype, chunk, nchunks, opts, vals):
    dt = np.dtype(dtype)
    shape = tuple(c * n for c, n in zip(chunk, nchunks))
    path = os.path.join(out, name + ".h5")
    with h5py.File(path, "w") as f:
        ds = f.create_dataset("v", shape=shape, dtype=dt, chunks=chunk, compression="szip",
                              compression_opts=opts)
        ds[...] = vals(shape).astype(dt)
    with h5py.File(path, "r") as f:
        ds = f["v"]
        plist = ds.id.get_create_plist()
        fid, flags, params, _ = plist.get_filter(0)
        assert fid == 4
        chunks = []
        for k, idx in enumerate(np.ndindex(*nchunks)):
            start = tuple(i * c for i, c in zip(idx, chunk))
            mask, raw = ds.id.read_direct_chunk(start)
            sel = tuple(slice(s, s + c) for s, c in zip(start, chunk))
            want = np.ascontiguousarray(ds[sel]).astype(dt, copy=False).tobytes()
            rp, wp = (os.path.join(out, f"{name}.{k}.{x}") for x in ("raw", "want"))
            open(rp, "wb").write(raw)
            open(wp, "wb").write(want)
            chunks.append(dict(mask=int(mask), raw=rp, want=wp))
        cases.append(dict(name=name, params=[int(p) for p in params], chunks=chunks))

def smooth(shape):
    return (np.arange(int(np.prod(shape))) % 1000 - 300).reshape(shape)

def walk(shape):
    return rng.normal(0, 3, shape).cumsum(axis=-1) * 50

def zeros(shape):
    return np.zeros(shape)

for order in "<>":
    for t in ["i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f4", "f8"]:
        dt = np.dtype(order + t)
        if dt.kind == "f":
            noisy = lambda s: rng.normal(0, 1e3, s)
        else:
            info = np.iinfo(dt)
            noisy = lambda s, info=info, dt=dt: rng.integers(
                info.min, info.max, s, dtype=dt.newbyteorder("="), endpoint=True)
        bo = "le" if order == "<" else "be"
        make(f"{bo}{t}_nn8", dt, (5, 4), (2, 2), ("nn", 8), smooth)
        make(f"{bo}{t}_ec8_noisy", dt, (5, 4), (2, 2), ("ec", 8), noisy)
        make(f"{bo}{t}_nn16_walk", dt, (6, 16), (2, 1), ("nn", 16), walk)
        make(f"{bo}{t}_nn32_pad", dt, (4, 50), (1, 2), ("nn", 32), walk)
make("f4_ec16_zeros", "<f4", (8, 64), (1, 1), ("ec", 16), zeros)
make("i2_nn8_long", "<i2", (3000,), (2,), ("nn", 8), walk)  # scanlines of 8 * 128
make("f8_nn32_one_line", ">f8", (40,), (1,), ("nn", 32), walk)
print(json.dumps(cases))
