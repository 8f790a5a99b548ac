# Writes an HDF5 fixture with h5py and prints h5py's own description of it
# (objects, links, attributes with raw bytes, dataset shapes and fill
# values) as JSON: the truth the meta_h5py tests compare nctk-hdf5 with.
# Usage: python3 h5py_fixture.py SCENARIO PATH
import json
import sys

import h5py
import numpy as np

scenario, path = sys.argv[1], sys.argv[2]

LIBVER = {
    "sb0": "earliest",
    "sb1": "earliest",
    "sb2": ("v108", "v108"),
    "sb3": ("v110", "v110"),
    "dense": ("v110", "v110"),
    "dense_name_order": ("v110", "v110"),
    "latest": "latest",
    "sohm": ("v110", "v110"),
    "wide": ("v110", "v110"),
    "userblock_sb0": "earliest",
    "userblock_sb3": ("v110", "v110"),
    "sb3_istore_k": ("v110", "v110"),
}[scenario]


def hdf5_library():
    """The HDF5 library h5py links (for calls h5py does not wrap)."""
    import ctypes
    import glob
    import os

    libs = os.path.join(os.path.dirname(h5py.__file__), "..", "h5py.libs", "libhdf5-*.so*")
    return ctypes.CDLL(sorted(glob.glob(libs))[0])


def open_file():
    if scenario in ("sb1", "sb3_istore_k"):
        import ctypes

        lib = hdf5_library()  # h5py has no set_istore_k
        fcpl = h5py.h5p.create(h5py.h5p.FILE_CREATE)
        if lib.H5Pset_istore_k(ctypes.c_int64(fcpl.id), ctypes.c_uint(64)) < 0:
            raise SystemExit("H5Pset_istore_k failed")
        fapl = h5py.h5p.create(h5py.h5p.FILE_ACCESS)
        if scenario == "sb1":
            fapl.set_libver_bounds(h5py.h5f.LIBVER_EARLIEST, h5py.h5f.LIBVER_V18)
        else:
            fapl.set_libver_bounds(h5py.h5f.LIBVER_V110, h5py.h5f.LIBVER_V110)
        fid = h5py.h5f.create(path.encode(), h5py.h5f.ACC_TRUNC, fcpl=fcpl, fapl=fapl)
        return h5py.File(fid)
    if scenario == "sohm":
        import ctypes

        # Shared object header messages of every kind, however small: one
        # index, heap-stored (h5py does not wrap H5Pset_shared_mesg_*).
        lib = hdf5_library()
        fcpl = h5py.h5p.create(h5py.h5p.FILE_CREATE)
        fid = ctypes.c_int64(fcpl.id)
        all_kinds = (1 << 1) | (1 << 3) | (1 << 5) | (1 << 11) | (1 << 12)
        if lib.H5Pset_shared_mesg_nindexes(fid, ctypes.c_uint(1)) < 0:
            raise SystemExit("H5Pset_shared_mesg_nindexes failed")
        if lib.H5Pset_shared_mesg_index(fid, ctypes.c_uint(0), ctypes.c_uint(all_kinds), ctypes.c_uint(0)) < 0:
            raise SystemExit("H5Pset_shared_mesg_index failed")
        fapl = h5py.h5p.create(h5py.h5p.FILE_ACCESS)
        fapl.set_libver_bounds(h5py.h5f.LIBVER_V110, h5py.h5f.LIBVER_V110)
        return h5py.File(h5py.h5f.create(path.encode(), h5py.h5f.ACC_TRUNC, fcpl=fcpl, fapl=fapl))
    if scenario.startswith("userblock"):
        # A user block before the superblock: every address is relative to it.
        size = 512 if scenario.endswith("sb0") else 2048
        f = h5py.File(path, "w", libver=LIBVER, userblock_size=size)
        return f
    return h5py.File(path, "w", libver=LIBVER)


def fill(f):
    track = scenario != "dense_name_order"
    root = f
    # Attributes of every class on the root.
    root.attrs["int_be"] = np.array([1, -2, 300], dtype=">i4")
    root.attrs["u8"] = np.uint8(200)
    root.attrs["f64"] = np.array([1.5, -2.25], dtype="<f8")
    root.attrs["f32_be"] = np.array([3.25], dtype=">f4")
    root.attrs["fixed_str"] = np.bytes_(b"hello")
    root.attrs["vlen_str"] = "gr\u00fcn"
    root.attrs["vlen_strs"] = np.array(["a", "bcd", ""], dtype=h5py.string_dtype())
    cmp_t = np.dtype([("x", "<i2"), ("y", ">f8"), ("name", "S3"), ("arr", "<i4", (2, 2))])
    root.attrs["compound"] = np.array(
        [(1, 2.5, b"ab", [[1, 2], [3, 4]]), (-1, 0.5, b"xyz", [[5, 6], [7, 8]])], dtype=cmp_t
    )
    enum_t = h5py.enum_dtype({"RED": 0, "GREEN": 1, "BLUE": 42}, basetype="i1")
    root.attrs.create("enum", np.array([42, 0], dtype="i1"), dtype=enum_t)
    root.attrs["opaque"] = np.void(b"\x01\x02\x03\x04")
    root.attrs.create("vlen_int", np.array([np.array([1, 2, 3], "i2"), np.array([4], "i2")], dtype=object),
                      dtype=h5py.vlen_dtype("i2"))
    root.attrs.create("empty", h5py.Empty("f4"))
    inner = np.dtype([("p", "<u2"), ("q", ">i8")])
    outer = np.dtype([("tag", "u1"), ("in", inner), ("ins", inner, (2,))])
    root.attrs["nested"] = np.array([(7, (1, -2), [(3, 4), (5, 6)])], dtype=outer)
    root.attrs.create("array", np.array([[1.0, 2.0, 3.0]]), dtype=h5py.h5t.array_create(h5py.h5t.IEEE_F64BE, (3,)))
    root.attrs["scalar_f"] = np.float32(7.0)
    bits = h5py.h5a.create(f.id, b"bitfield", h5py.h5t.STD_B16BE, h5py.h5s.create_simple((3,)))
    bits.write(np.array([1, 2, 0x8001], dtype=">u2"), mtype=h5py.h5t.STD_B16BE)
    # A committed type, used by a dataset and an attribute.
    f["named_t"] = np.dtype([("a", "<i4"), ("b", "<f4")])
    named = f["named_t"]
    named.attrs["about"] = np.int16(5)
    # Groups: many links (several symbol nodes in old-style files; dense
    # storage in new-style ones).
    g = f.create_group("many", track_order=track)
    for i in range(20):
        g.create_group(f"sub{(i * 7) % 20:02d}")
    g.attrs.create("typed", np.array([(1, 2.0)], dtype=named.dtype), dtype=named)
    # Many attributes (dense storage in new-style files), in an order unlike name order.
    a = f.create_group("attrs", track_order=track)
    for i in range(12):
        a.attrs[f"att{(i * 5) % 12:02d}"] = np.arange(i + 1, dtype="<i8")
    # Links of every kind.
    f["soft"] = h5py.SoftLink("/many/sub03")
    f["ext"] = h5py.ExternalLink("other.h5", "/some/path")
    f.attrs["refs"] = np.array([g.ref, a.ref], dtype=h5py.ref_dtype)
    # Datasets: contiguous with a fill value, chunked and unlimited, compact, committed type.
    d = f.create_dataset("contig", shape=(3, 4), dtype=">i2", fillvalue=-7)
    d[0, :] = [1, 2, 3, 4]
    d.attrs["units"] = np.bytes_(b"m")
    c = f.create_dataset("chunked", shape=(5,), maxshape=(None,), chunks=(2,), dtype="<f4", fillvalue=9.5)
    c[:3] = [1, 2, 3]
    f.create_dataset("typed", shape=(2,), dtype=named)
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_layout(h5py.h5d.COMPACT)
    sid = h5py.h5s.create_simple((4,))
    h5py.h5d.create(f.id, b"compact", h5py.h5t.NATIVE_INT8, sid, dcpl=dcpl)
    if scenario in ("dense", "dense_name_order"):
        big = f.create_group("big", track_order=track)
        big.attrs["huge"] = np.arange(30000, dtype="<i4")
        for i in range(10):
            big.attrs[f"z{9 - i}"] = np.int32(i)


def fill_wide(f):
    # Thousands of links and hundreds of attributes: B-tree v2 internal
    # nodes and fractal heaps with indirect blocks.
    f.create_dataset("target", data=np.arange(3))
    for track in (True, False):
        g = f.create_group(f"wide_{track}", track_order=track)
        for i in range(3000):
            g[f"l{(i * 7919) % 3000:04d}"] = h5py.SoftLink("/target")
        for i in range(600):
            g.attrs[f"a{(i * 331) % 600:03d}"] = np.arange(i % 7 + 1, dtype="<i2")


def type_desc(tid):
    d = {"class": tid.get_class(), "size": tid.get_size()}
    if tid.get_class() in (h5py.h5t.INTEGER, h5py.h5t.FLOAT, h5py.h5t.BITFIELD):
        d["big_endian"] = tid.get_order() == h5py.h5t.ORDER_BE
    if tid.get_class() == h5py.h5t.INTEGER:
        d["signed"] = tid.get_sign() == h5py.h5t.SGN_2
    if tid.get_class() == h5py.h5t.COMPOUND:
        d["members"] = [
            [tid.get_member_name(i).decode(), tid.get_member_offset(i)] for i in range(tid.get_nmembers())
        ]
    if tid.get_class() == h5py.h5t.ENUM:
        d["members"] = [
            [tid.get_member_name(i).decode(), tid.get_member_value(i)] for i in range(tid.get_nmembers())
        ]
    if tid.get_class() == h5py.h5t.OPAQUE:
        d["tag"] = tid.get_tag().decode()
    if tid.get_class() == h5py.h5t.STRING:
        d["vlen"] = tid.is_variable_str()
    if tid.get_class() == h5py.h5t.ARRAY:
        d["dims"] = list(tid.get_array_dims())
    d["committed"] = tid.committed()
    return d


def attrs_desc(obj):
    out = []
    for name in obj.attrs:
        aid = obj.attrs.get_id(name)
        e = {"name": name, "type": type_desc(aid.get_type())}
        space = aid.get_space()
        e["space"] = space.get_simple_extent_type()
        e["dims"] = list(space.shape) if space.get_simple_extent_type() == h5py.h5s.SIMPLE else []
        tid = aid.get_type()
        v = obj.attrs[name]
        if isinstance(v, h5py.Empty):
            pass
        elif tid.get_class() == h5py.h5t.STRING and tid.is_variable_str():
            vals = np.ravel(np.asarray(v, dtype=object))
            e["strings"] = [s.decode() if isinstance(s, bytes) else s for s in vals]
        elif tid.get_class() == h5py.h5t.REFERENCE:
            e["targets"] = [obj.file[r].name for r in np.ravel(v)]
        elif tid.get_class() == h5py.h5t.VLEN:
            e["sequences"] = [np.asarray(s).tobytes().hex() for s in np.ravel(np.asarray(v, dtype=object))]
        else:
            # The file's bytes: read with the file type as the memory type.
            n = int(np.prod(aid.shape)) if aid.shape else 1
            buf = np.empty(n * tid.get_size(), dtype="u1")
            aid.read(buf, mtype=tid)
            e["raw"] = buf.tobytes().hex()
        out.append(e)
    return out


def describe(f):
    objects = {}

    def visit(path, obj):
        d = {"attrs": attrs_desc(obj)}
        try:
            cpl = obj.id.get_create_plist()
            d["attrs_ordered"] = bool(cpl.get_attr_creation_order() & h5py.h5p.CRT_ORDER_TRACKED)
        except AttributeError:
            d["attrs_ordered"] = False
        if isinstance(obj, h5py.Group):
            d["kind"] = "Group"
            links = []
            for name in obj.keys():
                link = obj.get(name, getlink=True)
                if isinstance(link, h5py.SoftLink):
                    links.append([name, "soft", link.path])
                elif isinstance(link, h5py.ExternalLink):
                    links.append([name, "external", link.filename, link.path])
                else:
                    links.append([name, "hard"])
            d["links"] = links
        elif isinstance(obj, h5py.Dataset):
            d["kind"] = "Dataset"
            d["type"] = type_desc(obj.id.get_type())
            d["dims"] = list(obj.shape)
            d["max_dims"] = [-1 if m is None else m for m in obj.maxshape]
            plist = obj.id.get_create_plist()
            if plist.fill_value_defined() == h5py.h5d.FILL_VALUE_USER_DEFINED:
                fv = np.zeros((1,), dtype=obj.id.dtype)
                plist.get_fill_value(fv)
                d["fill"] = fv.tobytes().hex()
        else:
            d["kind"] = "NamedDatatype"
            d["type"] = type_desc(obj.id)
        objects["/" + path if path else "/"] = d

    visit("", f)
    f.visititems(visit)
    objects["#superblock"] = f.id.get_create_plist().get_version()[0]
    import ctypes

    k = ctypes.c_uint(0)
    fcpl = f.id.get_create_plist()  # kept alive while the library reads it
    if hdf5_library().H5Pget_istore_k(ctypes.c_int64(fcpl.id), ctypes.byref(k)) < 0:
        raise SystemExit("H5Pget_istore_k failed")
    objects["#istore_k"] = k.value
    return objects


with open_file() as f:
    if scenario == "wide":
        fill_wide(f)
    else:
        fill(f)
with h5py.File(path, "r") as f:
    json.dump(describe(f), sys.stdout, indent=1, sort_keys=True)
