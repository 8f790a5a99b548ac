# Writes HDF5 datasets of every layout and chunk index with h5py into
# sys.argv[1] and prints JSON describing them: shape, chunks, filters as
# HDF5 reports them, and for several hyperslabs the raw bytes h5py reads
# (in the file's byte order), saved beside the files.
import json, os, sys
import numpy as np
import h5py
import hdf5plugin

out = sys.argv[1]
cases = []

def describe(name, path, ds, sels):
    plist = ds.id.get_create_plist()
    filters = [plist.get_filter(i) for i in range(plist.get_nfilters())]
    filters = [[int(a), int(b), [int(v) for v in c], n.decode()] for a, b, c, n in filters]
    fill = np.zeros(1, ds.dtype)
    plist.get_fill_value(fill)
    layout = plist.get_layout()
    case = dict(name=name, file=path, shape=list(ds.shape),
                maxshape=[(-1 if m is None else m) for m in (ds.maxshape or ds.shape)],
                chunks=list(ds.chunks) if ds.chunks else None, itemsize=ds.dtype.itemsize,
                filters=filters, fill=fill.tobytes().hex(), layout=int(layout),
                offset=ds.id.get_offset(), nbytes=int(ds.size * ds.dtype.itemsize), sels=[])
    for k, (start, count, stride) in enumerate(sels):
        idx = tuple(slice(s, s + (c - 1) * t + 1, t) for s, c, t in zip(start, count, stride))
        data = np.ascontiguousarray(ds[idx]).astype(ds.dtype, copy=False)
        p = os.path.join(out, f"{name}.{k}.bin")
        with open(p, "wb") as f:
            f.write(data.tobytes())
        case["sels"].append(dict(start=start, count=count, stride=stride, expect=p))
    cases.append(case)

def whole(shape):
    return (list(0 for _ in shape), list(shape), list(1 for _ in shape))

def make(name, libver, shape, dtype, sels_extra=(), write=None, basic=True, **kw):
    path = os.path.join(out, name + ".h5")
    with h5py.File(path, "w", libver=libver) as f:
        ds = f.create_dataset("v", shape=shape, dtype=dtype, **kw)
        n = int(np.prod(shape))
        vals = (np.arange(n) % 1000 - 300).reshape(shape).astype(dtype)
        if write is None:
            ds[...] = vals
        elif write != "none":
            ds[write] = vals[write]
    with h5py.File(path, "r") as f:
        ds = f["v"]
        basics = [whole(shape), box(shape)] if basic else []
        describe(name, path, ds, basics + list(sels_extra))

E = "earliest"
V = ("v114", "v114")
def box(shape):
    """Every other element from the second on, along every dimension."""
    return ([1] * len(shape), [(s - 2) // 2 + 1 for s in shape], [2] * len(shape))

box2 = [([3, 0], [1, 1], [1, 1]), ([1, 1], [2, 2], [3, 2])]
# B-tree v1 index: partial edge chunks, unwritten chunks, fill, filters
make("btree1_gzip", E, (20, 30), "<f4", box2, write=np.s_[0:14, 0:16], chunks=(7, 8),
     compression="gzip", shuffle=True, fillvalue=-1.5)
make("btree1_be_fletcher", E, (12, 11), ">i4", box2, chunks=(5, 5), fletcher32=True)
make("btree1_deep", E, (200, 60), "<u2", box2 + [([0, 5], [200, 1], [1, 1]), ([150, 40], [3, 2], [1, 1])],
     chunks=(2, 3), write=np.s_[0:140, :], fillvalue=9)
make("btree1_plain", E, (9, 10, 4), "<i2", [([1, 2, 0], [4, 3, 2], [2, 2, 3])], chunks=(2, 3, 4))
# v4 indexes
make("single", V, (6, 7), "<f8", box2, chunks=(6, 7))
make("single_gzip", V, (6, 7), "<f8", box2, chunks=(6, 7), compression="gzip")
make("farray_gzip", V, (30, 20), "<i4", box2, chunks=(4, 3), compression="gzip", write=np.s_[0:9, :])
make("farray_paged", V, (200, 60), "<u2", box2 + [([0, 5], [200, 1], [1, 1])], chunks=(2, 3),
     write=np.s_[0:100, :], fillvalue=9)
make("earray", V, (50, 7), "<f4", box2 + [([0, 2], [50, 1], [1, 1])], chunks=(1, 4),
     maxshape=(None, 7), compression="gzip", shuffle=True)
make("earray_plain_be", V, (300,), ">f8", [([5], [90], [3])], chunks=(1,), maxshape=(None,))
make("btree2", V, (9, 10), "<i2", box2, chunks=(4, 3), maxshape=(None, None), write=np.s_[0:5, :])
make("btree2_gzip_be", V, (9, 10, 3), ">f4", [([1, 2, 0], [4, 3, 2], [2, 2, 2])], chunks=(4, 3, 2),
     maxshape=(None, None, 3), compression="gzip", shuffle=True, fillvalue=2.5, write=np.s_[2:9, 0:4, :])
# HDF5 2.0's newest format (layout message version 5)
L = ("v200", "v200")
make("farray_v200", L, (30, 20), "<i4", box2, chunks=(4, 3), compression="gzip", write=np.s_[0:9, :])
make("earray_v200", L, (50, 7), "<f4", box2, chunks=(1, 4), maxshape=(None, 7), compression="gzip")
make("btree2_v200", L, (9, 10), "<i2", box2, chunks=(4, 3), maxshape=(None, None), compression="gzip")
make("single_v200_gzip", L, (6, 7), "<f8", box2, chunks=(6, 7), compression="gzip")
# contiguous, never written, compact
make("contiguous_be", E, (13, 17), ">i2", box2)
make("contiguous_unwritten", E, (5, 4), "<i4", box2, write="none", fillvalue=7)
# hdf5plugin filters
for fname, f in [("blosc", hdf5plugin.Blosc(cname="lz4", clevel=5, shuffle=hdf5plugin.Blosc.SHUFFLE)),
                 ("zstd", hdf5plugin.Zstd()), ("bzip2", hdf5plugin.BZip2()), ("lz4", hdf5plugin.LZ4())]:
    make("plugin_" + fname, V, (16, 24), "<f4", box2, chunks=(5, 7), **f)

# chunks stored with some filters skipped (per-chunk filter masks)
def masked(name, libver):
    import zlib
    path = os.path.join(out, name + ".h5")
    shape, chunks = (8, 6), (4, 3)
    vals = (np.arange(48) * 7 - 100).reshape(shape).astype("<i4")
    with h5py.File(path, "w", libver=libver) as f:
        ds = f.create_dataset("v", shape=shape, dtype="<i4", chunks=chunks, shuffle=True,
                              compression="gzip", fillvalue=-3)
        ds[4:8, 0:3] = vals[4:8, 0:3]  # through both filters
        raw = vals[0:4, 0:3].tobytes()
        ds.id.write_direct_chunk((0, 0), zlib.compress(raw), filter_mask=1)  # shuffle skipped
        ds.id.write_direct_chunk((0, 3), vals[0:4, 3:6].tobytes(), filter_mask=3)  # both skipped
        # chunk (4, 3) never written: fill
    with h5py.File(path, "r") as f:
        describe(name, path, f["v"], [whole(shape), box(shape)] + box2)

masked("btree1_masks", E)
masked("farray_masks", V)
# a filter nctk has no codec for: reading is an error naming it
make("btree1_szip", E, (10, 8), "<i4", chunks=(5, 4), compression="szip")
cases[-1]["error"] = "filter 4"
# an extensible array large enough for super blocks with paged data blocks
# (70,000 one-element chunks: more than one pass of the reader holds)
make("earray_paged", V, (134000,), "<i1", [([130000], [4000], [1]), ([131000], [200], [7]),
                                          ([60000], [70000], [1])],
     chunks=(1,), maxshape=(None,), basic=False)

# implicit index and compact layout need the low-level API
def lowlevel(name, layout):
    path = os.path.join(out, name + ".h5")
    shape = (10, 10)
    vals = (np.arange(100) * 3).reshape(shape).astype("<i4")
    fid = h5py.h5f.create(path.encode(), h5py.h5f.ACC_TRUNC,
                          fapl=_fapl())
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    if layout == "implicit":
        dcpl.set_chunk((3, 4))
        dcpl.set_alloc_time(h5py.h5d.ALLOC_TIME_EARLY)
    else:
        dcpl.set_layout(h5py.h5d.COMPACT)
    space = h5py.h5s.create_simple(shape, shape)
    dsid = h5py.h5d.create(fid, b"v", h5py.h5t.STD_I32LE, space, dcpl=dcpl)
    dsid.write(h5py.h5s.ALL, h5py.h5s.ALL, vals)
    dsid.close()
    fid.close()
    with h5py.File(path, "r") as f:
        describe(name, path, f["v"], [whole(shape), box(shape)] + box2)

def _fapl():
    fapl = h5py.h5p.create(h5py.h5p.FILE_ACCESS)
    fapl.set_libver_bounds(h5py.h5f.LIBVER_V114, h5py.h5f.LIBVER_V114)
    return fapl

lowlevel("implicit", "implicit")
lowlevel("compact", "compact")
print(json.dumps(cases))
