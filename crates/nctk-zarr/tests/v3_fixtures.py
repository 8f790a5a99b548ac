# Writes the Zarr v3 fixtures of the v3 read tests (tests/v3_read.rs) into
# the directory given as the only argument: one `<name>.zarr` directory
# store per case (one zip archive), written by zarr-python 3, xarray's `to_zarr` and
# tensorstore, small enough that the whole set takes a few seconds.
#
# The matrix, sampled (not a full product):
# * dtypes.zarr: every data type zarr-python writes in v3 (bool, int8..int64,
#   uint8..uint64, float16/32/64, string, fixed-length UTF-32, numpy
#   datetime64 and timedelta64), each with edge chunks, some chunks never
#   written (fill), non-default fill values, and a 0-d twin;
#   dtype_{bytes,complex,null_terminated,raw}.zarr: variable-length bytes,
#   complex64/128, null-terminated bytes and raw bytes so;
# * codec_<chain>.zarr: one store per codec chain (bytes both endians,
#   gzip, zstd, blosc lz4/zstd x shuffles, crc32c, transpose, and the
#   numcodecs.* codecs zarr-python writes), an int32 and a float64 array each;
# * shard_<layout>.zarr: sharding with the index at the end or the start,
#   index codecs with and without crc32c, compressed inner chunks, nested
#   sharding, and shards written in part (missing inner chunks and shards);
# * keys_<encoding>.zarr: chunk key encodings default "/" and ".", v2 "."
#   and "/";
# * groups.zarr / groups_consolidated.zarr: nested groups, attributes of
#   every JSON kind, dimension_names set, unset and partly null, 0-d arrays;
#   the second with zarr-python's inline consolidated metadata;
# * zip_groups.zip: groups.zarr in a zip archive (zarr-python's ZipStore);
# * fill_forms.zarr, fill_forms_complex.zarr: fill values as hex bit
#   patterns and "Infinity" (complex pairs of them in the second);
# * xarray_v3.zarr, xarray_v2.zarr: xarray's to_zarr defaults for the same
#   dataset (strings, datetimes, coordinates, CF attributes); the v2 one
#   has `|O` string arrays with the vlen-utf8 filter;
# * twin_v3.zarr, twin_v2.zarr (one group) and twin_groups_v3.zarr,
#   twin_groups_v2.zarr (a subgroup with dimensions of its own): the same
#   arrays written by zarr-python with zarr_format=3 and 2 (v2 with
#   xarray's `_ARRAY_DIMENSIONS`; strings as `|O` with vlen-utf8), whose
#   dumps must be equal;
# * tensorstore.zarr: arrays written by tensorstore's zarr3 driver, sharded
#   and not (the root group by zarr-python: tensorstore writes no groups).
#
# What each store holds is read back by v3_dump.py (the truth).
import sys
import warnings

import numpy as np
import zarr
import zarr.codecs.numcodecs as zn
from zarr.codecs import (
    BloscCodec,
    BytesCodec,
    Crc32cCodec,
    GzipCodec,
    ShardingCodec,
    TransposeCodec,
    ZstdCodec,
)

warnings.filterwarnings("ignore")

OUT = sys.argv[1]
SHAPE = (5, 7)
CHUNKS = (2, 3)


def path(name):
    return f"{OUT}/{name}.zarr"


def ints(dtype, shape=SHAPE):
    """Values spanning the type's range, extremes included."""
    info = np.iinfo(dtype)
    n = int(np.prod(shape))
    v = np.linspace(float(info.min), float(info.max), n, dtype=np.float64)
    v = np.clip(v, info.min, info.max).astype(dtype)
    v.flat[0] = info.min
    v.flat[-1] = info.max
    v.flat[1] = 0
    return v.reshape(shape)


def floats(dtype, shape=SHAPE):
    """Fractions, signed zero, NaN and infinities."""
    n = int(np.prod(shape))
    v = (np.arange(n, dtype=np.float64) - n / 2) * 1.25
    v = v.astype(dtype)
    v[1] = np.nan
    v[2] = np.inf
    v[3] = -np.inf
    v[4] = -0.0
    return v.reshape(shape)


def strings(shape=SHAPE):
    words = ["", "a", "héllo", "日本語", "tab\tnl\n", "x" * 40, "end"]
    n = int(np.prod(shape))
    return np.array([words[i % len(words)] + str(i) * (i % 2) for i in range(n)], dtype=object).reshape(shape)


def array(group, name, data, chunks=CHUNKS, **kw):
    """An array of `data`'s dtype in `group`, all of `data` written."""
    kw.setdefault("dimension_names", ["y", "x"][-data.ndim :] if data.ndim else None)
    a = group.create_array(name, shape=data.shape, dtype=data.dtype, chunks=chunks if data.ndim else (), **kw)
    a[...] = data
    return a


def dtypes():
    top = zarr.open_group(path("dtypes"), mode="w", zarr_format=3)
    cases = {
        "bool": np.arange(35).reshape(SHAPE) % 3 == 0,
        "float16": floats(np.float16),
        "float32": floats(np.float32),
        "float64": floats(np.float64),
        "complex64": (floats(np.float32) + 1j * np.arange(35).reshape(SHAPE)).astype(np.complex64),
        "complex128": floats(np.float64) - 2.5j * np.arange(35).reshape(SHAPE),
        "string": strings(),
        "fixed_utf32": strings().astype("U12"),
        "null_terminated": np.array([s.encode()[:6] for s in strings().flat], dtype="S6").reshape(SHAPE),
        "bytes": np.array([s.encode() for s in strings().flat], dtype=object).reshape(SHAPE),
        "raw_bytes": np.frombuffer(bytes(range(140)), dtype="V4").reshape(SHAPE),
        "datetime64_s": (np.arange(35, dtype=np.int64) * 86_399 - 10**6).astype("datetime64[s]").reshape(SHAPE),
        "datetime64_ms": (np.arange(35, dtype=np.int64) * 3_600_007).astype("datetime64[ms]").reshape(SHAPE),
        "timedelta64_us": (np.arange(35, dtype=np.int64) * -12345).astype("timedelta64[us]").reshape(SHAPE),
    }
    for t in ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]:
        cases[t] = ints(np.dtype(t))
    cases["datetime64_s"].flat[5] = np.datetime64("NaT")
    # Variable-length bytes, complex numbers, null-terminated and raw bytes
    # in stores of their own (types a reader may refuse alone).
    apart = {
        k: zarr.open_group(path("dtype_" + k), mode="w", zarr_format=3)
        for k in ("raw", "null_terminated", "complex", "bytes")
    }

    def home(name):
        return next((g for k, g in apart.items() if k in name), top)

    for name, data in cases.items():
        dtype = "bytes" if name == "bytes" else ("str" if name == "string" else data.dtype)
        g = home(name)
        a = g.create_array(name, shape=SHAPE, chunks=CHUNKS, dtype=dtype, dimension_names=["y", "x"])
        a[...] = data
        # The same type as a scalar, and with chunks left unwritten (fill).
        s = g.create_array(name + "_0d", shape=(), dtype=dtype)
        s[...] = data.flat[6]
        p = g.create_array(name + "_part", shape=SHAPE, chunks=CHUNKS, dtype=dtype, dimension_names=["y", "x"])
        p[1:3, 2:5] = data[1:3, 2:5]
    # Fill values other than the default, in the spec's forms (numbers,
    # "NaN", "-Infinity", a complex pair, a string), chunks left unwritten.
    for name, dtype, fill in [
        ("fill_int16", "int16", -999),
        ("fill_uint64", "uint64", 2**64 - 2),
        ("fill_f32_nan", "float32", np.nan),
        ("fill_f64_neginf", "float64", -np.inf),
        ("fill_f64", "float64", 9.96921e36),
        ("fill_complex128", "complex128", 1.5 - 2j),
        ("fill_str", "str", "missing"),
        ("fill_bool", "bool", True),
    ]:
        a = home(name).create_array(name, shape=SHAPE, chunks=CHUNKS, dtype=dtype, fill_value=fill, dimension_names=["y", "x"])
        a[0, 0:2] = ["w", "v"] if dtype == "str" else [1, 0]


# (name, filters, serializer, compressors, dtypes)
CHAINS = [
    ("bytes_only_le", (), BytesCodec(endian="little"), (), None),
    ("bytes_only_be", (), BytesCodec(endian="big"), (), None),
    ("gzip", (), "auto", (GzipCodec(level=6),), None),
    ("zstd", (), "auto", (ZstdCodec(level=3, checksum=True),), None),
    ("blosc_lz4_shuffle", (), "auto", (BloscCodec(cname="lz4", clevel=5, shuffle="shuffle"),), None),
    ("blosc_zstd_bitshuffle", (), "auto", (BloscCodec(cname="zstd", clevel=3, shuffle="bitshuffle"),), None),
    ("blosc_lz4_noshuffle", (), BytesCodec(endian="big"), (BloscCodec(cname="lz4", shuffle="noshuffle", typesize=4),), None),
    ("crc32c", (), "auto", (Crc32cCodec(),), None),
    ("zstd_crc32c", (), "auto", (ZstdCodec(), Crc32cCodec()), None),
    ("transpose", (TransposeCodec(order=(1, 0)),), "auto", (GzipCodec(),), None),
    ("nc_zlib", (), "auto", (zn.Zlib(level=4),), None),
    ("nc_shuffle_zlib", (), "auto", (zn.Shuffle(elementsize=8), zn.Zlib()), ("int64", "float64")),
    ("nc_delta", (zn.Delta(dtype="<i4"),), "auto", (ZstdCodec(),), ("int32",)),
    ("nc_fixedscaleoffset", (zn.FixedScaleOffset(offset=10, scale=100, dtype="<f8", astype="<i4"),), "auto", (), ("float64",)),
    ("nc_bitround", (zn.BitRound(keepbits=6),), "auto", (ZstdCodec(),), ("float32", "float64")),
    ("nc_quantize", (zn.Quantize(digits=3, dtype="<f8"),), "auto", (), ("float64",)),
    ("nc_fletcher32", (), "auto", (zn.Fletcher32(),), None),
    ("nc_lz4", (), "auto", (zn.LZ4(acceleration=1),), None),
    ("nc_bz2", (), "auto", (zn.BZ2(level=9),), None),
    ("nc_zlib_fletcher32_be", (), BytesCodec(endian="big"), (zn.Zlib(level=1), zn.Fletcher32()), None),
]


def codecs():
    for name, filters, serializer, compressors, types in CHAINS:
        g = zarr.open_group(path("codec_" + name), mode="w", zarr_format=3)
        for t in types or ("int32", "float64"):
            data = ints(np.dtype(t)) if t.startswith("int") else floats(np.dtype(t))
            a = g.create_array(
                t,
                shape=SHAPE,
                chunks=CHUNKS,
                dtype=t,
                filters=filters,
                serializer=serializer,
                compressors=compressors,
                dimension_names=["y", "x"],
            )
            a[...] = data
            # Unwritten chunks read as fill through every chain.
            a[4, :] = a.fill_value


def sharded(g, name, shape, shard, codec, fill=None, write=None):
    kw = {} if fill is None else {"fill_value": fill}
    a = zarr.create(
        store=g.store,
        path=name,
        shape=shape,
        chunks=shard,
        dtype="int32" if fill is None or isinstance(fill, int) else "float64",
        zarr_format=3,
        codecs=[codec],
        dimension_names=["y", "x"][-len(shape) :],
        **kw,
    )
    data = np.arange(int(np.prod(shape)), dtype=a.dtype).reshape(shape) * 3 - 50
    if write is None:
        a[...] = data
    else:
        a[write] = data[write]
    return a


def shards():
    g = zarr.open_group(path("shard_layouts"), mode="w", zarr_format=3)
    # zarr-python's default sharding (index at the end, crc32c on it).
    a = g.create_array("default", shape=(9, 11), chunks=(2, 3), shards=(4, 6), dtype="uint16", dimension_names=["y", "x"])
    a[...] = np.arange(99, dtype="uint16").reshape(9, 11)
    inner = [BytesCodec(endian="little"), ZstdCodec(level=1)]
    sharded(g, "index_end", (9, 11), (4, 6), ShardingCodec(chunk_shape=(2, 3), codecs=inner, index_location="end"))
    sharded(g, "index_start", (9, 11), (4, 6), ShardingCodec(chunk_shape=(2, 3), codecs=inner, index_location="start"))
    sharded(
        g,
        "index_no_crc",
        (9, 11),
        (4, 6),
        ShardingCodec(chunk_shape=(2, 3), codecs=[BytesCodec(endian="big")], index_codecs=[BytesCodec()]),
    )
    sharded(
        g,
        "index_start_be_crc",
        (9, 11),
        (6, 6),
        ShardingCodec(
            chunk_shape=(3, 2),
            codecs=[BytesCodec(), Crc32cCodec()],
            index_codecs=[BytesCodec(endian="big"), Crc32cCodec()],
            index_location="start",
        ),
    )
    sharded(
        g,
        "inner_transpose_gzip",
        (9, 11),
        (4, 6),
        ShardingCodec(chunk_shape=(2, 3), codecs=[TransposeCodec(order=(1, 0)), BytesCodec(), GzipCodec(level=1)]),
    )
    sharded(
        g,
        "nested",
        (9, 11),
        (8, 8),
        ShardingCodec(
            chunk_shape=(4, 4),
            codecs=[ShardingCodec(chunk_shape=(2, 2), codecs=[BytesCodec(), ZstdCodec()], index_location="start")],
        ),
    )
    # Written in part: some inner chunks and whole shards missing.
    sharded(
        g,
        "partial",
        (9, 11),
        (4, 6),
        ShardingCodec(chunk_shape=(2, 3), codecs=inner),
        fill=-7,
        write=(slice(1, 3), slice(2, 7)),
    )
    sharded(
        g,
        "partial_nan",
        (9, 11),
        (4, 6),
        ShardingCodec(chunk_shape=(2, 3), index_location="start"),
        fill=np.nan,
        write=(slice(4, 9), slice(0, 4)),
    )
    # Strings in shards; 1-d; a single shard bigger than the array.
    s = g.create_array("strings", shape=(13,), chunks=(2,), shards=(6,), dtype="str", dimension_names=["n"])
    s[...] = strings((13,))
    one = g.create_array("one_shard", shape=(5, 7), chunks=(2, 2), shards=(8, 8), dtype="float32", dimension_names=["y5", "x7"])
    one[...] = floats(np.float32)


def keys():
    for name, enc in [
        ("default_slash", {"name": "default", "separator": "/"}),
        ("default_dot", {"name": "default", "separator": "."}),
        ("v2_dot", {"name": "v2", "separator": "."}),
        ("v2_slash", {"name": "v2", "separator": "/"}),
    ]:
        g = zarr.open_group(path("keys_" + name), mode="w", zarr_format=3)
        array(g, "a", np.arange(35, dtype="int16").reshape(SHAPE), chunk_key_encoding=enc)
        array(g, "s", np.float64(2.5), chunk_key_encoding=enc)
        sub = g.create_group("sub")
        array(sub, "b", np.arange(30, dtype="uint8").reshape(2, 3, 5), chunks=(1, 2, 2), dimension_names=["t", "y", "x"], chunk_key_encoding=enc)


ATTRS = {
    "text": "héllo wörld",
    "empty_text": "",
    "int": 42,
    "negative": -7,
    "big": 2**40,
    "huge": 2**64 - 1,
    "float": 3.25,
    "float_list": [1.5, -2.0, 1e300],
    "int_list": [1, 2, 3],
    "mixed_list": [1, 2.5],
    "true": True,
    "false": False,
    "bool_list": [True, False],
    "null": None,
    "object": {"k": 1, "nested": {"j": [1, 2]}},
    "string_list": ["a", "b"],
    "empty_list": [],
    "nan_text": "NaN",
}


def groups(name, consolidate, store=None):
    root = zarr.open_group(store or path(name), mode="w", zarr_format=3, attributes=ATTRS)
    array(root, "named", np.arange(35, dtype="int32").reshape(SHAPE), attributes={"units": "m", "scale": 0.5})
    array(root, "unnamed", np.arange(12, dtype="float32").reshape(3, 4), chunks=(2, 2), dimension_names=None)
    array(root, "half_named", np.arange(12, dtype="int64").reshape(3, 4), chunks=(2, 3), dimension_names=[None, "x4"])
    array(root, "scalar", np.float64(-1.5), attributes={"long_name": "a scalar"})
    s = root.create_array("scalar_str", shape=(), dtype="str")
    s[...] = "only"
    g1 = root.create_group("g1", attributes={"level": 1, "tags": ["x", "y"]})
    array(g1, "v", np.arange(7, dtype="uint32"), chunks=(3,), dimension_names=["x"], attributes={"flag": True})
    g2 = g1.create_group("g2", attributes={"level": 2, "obj": {"a": None}})
    array(g2, "w", np.arange(10, dtype="int8").reshape(2, 5), chunks=(2, 2), dimension_names=["t", "z"])
    g1.create_group("empty")
    root.create_group("g3")
    array(root["g3"], "v", np.arange(3, dtype="float64"), chunks=(2,), dimension_names=["x3"])
    if consolidate:
        zarr.consolidate_metadata(path(name))


def zip_store():
    """groups.zarr again, in a zip archive as zarr-python writes one."""
    store = zarr.storage.ZipStore(f"{OUT}/zip_groups.zip", mode="w")
    groups("zip_groups", False, store)
    store.close()


def fill_forms():
    """Fill values in the spec's other JSON forms (hex bit patterns, a
    complex pair of them, "Infinity"), set in zarr.json after writing,
    as zarr-python then reads them; chunks 1 and 2 unwritten. Complex
    numbers in a store of their own."""
    import json

    for store in ("fill_forms", "fill_forms_complex"):
        zarr.open_group(path(store), mode="w", zarr_format=3)
    for name, dtype, fill in [
        ("f64_hex", "float64", "0x4004000000000000"),
        ("f32_hex", "float32", "0xc0200000"),
        ("f16_hex", "float16", "0x3c00"),
        ("f32_inf", "float32", "Infinity"),
        ("c128_hex", "complex128", ["0x3ff0000000000000", "-Infinity"]),
    ]:
        store = path("fill_forms_complex" if dtype.startswith("complex") else "fill_forms")
        a = zarr.open_group(store, mode="r+").create_array(name, shape=(5,), chunks=(2,), dtype=dtype, dimension_names=["n"])
        a[0:2] = [1, 2]
        meta = f"{store}/{name}/zarr.json"
        with open(meta) as f:
            j = json.load(f)
        j["fill_value"] = fill
        with open(meta, "w") as f:
            json.dump(j, f)


def xarray_stores():
    import pandas as pd
    import xarray as xr

    ds = xr.Dataset(
        {
            "temp": (("time", "y", "x"), floats(np.float32, (3, 4, 5)), {"units": "K", "long_name": "temperature"}),
            "count": (("y", "x"), ints(np.dtype("int16"), (4, 5)), {"scale_factor": 0.5}),
            "name": (("x",), np.array(["alpha", "", "γάμμα", "d", "eeeeeeeeee"], dtype=object)),
            "when": (("time",), pd.date_range("2000-01-01", periods=3, freq="6h")),
            "elapsed": (("time",), pd.to_timedelta([0, 90, 3600], unit="s")),
            "flag": ((), np.int8(1), {"flag_meanings": "on off"}),
        },
        coords={"x": np.arange(5) * 10.0, "y": np.array([1, 2, 3, 4], dtype="int32")},
        attrs={"title": "xarray fixture", "history": "written by v3_fixtures.py", "version": 3},
    )
    ds["temp"].encoding["_FillValue"] = -9999.0
    ds.to_zarr(path("xarray_v3"), mode="w", zarr_format=3)
    ds.to_zarr(path("xarray_v2"), mode="w", zarr_format=2)


def twins():
    """The same arrays, attributes and dimensions in v3 and v2 (as xarray
    marks dimensions in v2: `_ARRAY_DIMENSIONS`): twin_v*, one group;
    twin_groups_v*, with a subgroup whose arrays have dimensions of their own."""
    for fmt in (3, 2):
        root = zarr.open_group(path(f"twin_v{fmt}"), mode="w", zarr_format=fmt, attributes={"title": "twin", "n": 3, "vals": [1.5, 2.5]})
        twin_arrays(
            fmt,
            [
                (root, "temp", floats(np.float32), (2, 3), ["y", "x"], {"units": "K"}),
                (root, "count", ints(np.dtype("int32")), (5, 7), ["y", "x"], {}),
                (root, "u8", np.arange(7, dtype="uint8"), (4,), ["x"], {"valid_max": 200}),
                (root, "big", ints(np.dtype("int64"), (7,)), (3,), ["x"], {}),
                (root, "d", np.linspace(-1, 1, 5), (5,), ["y"], {"long_name": "dee"}),
                (root, "names", strings(), (2, 2), ["y", "x"], {"long_name": "names"}),
                (root, "scalar", np.array(7.25), (), [], {"note": "0-d"}),
            ],
        )
        root = zarr.open_group(path(f"twin_groups_v{fmt}"), mode="w", zarr_format=fmt, attributes={"title": "twin with groups"})
        sub = root.create_group("grp", attributes={"about": "a subgroup"})
        twin_arrays(
            fmt,
            [
                (root, "d", np.linspace(-1, 1, 5), (5,), ["y"], {}),
                (sub, "t", np.arange(6, dtype="int16").reshape(2, 3), (1, 3), ["t", "z"], {"positive": "up"}),
                (sub, "names", strings((2, 3)), (2, 2), ["t", "z"], {}),
            ],
        )


def twin_arrays(fmt, arrays):
    for g, name, data, chunks, dims, attrs in arrays:
        dtype = str if data.dtype == object else data.dtype
        if fmt == 2:
            attrs = dict(attrs, _ARRAY_DIMENSIONS=dims)
            a = g.create_array(name, shape=data.shape, chunks=chunks, dtype=dtype, attributes=attrs)
        else:
            a = g.create_array(name, shape=data.shape, chunks=chunks, dtype=dtype, attributes=attrs, dimension_names=dims or None)
        a[...] = data


def tensorstore_store():
    import tensorstore as ts

    root = path("tensorstore")
    zarr.open_group(root, mode="w", zarr_format=3, attributes={"writer": "tensorstore"})
    grid = lambda c: {"name": "regular", "configuration": {"chunk_shape": list(c)}}
    for name, dtype, chunks, codecs, extra in [
        ("plain", "int32", (2, 3), None, {}),
        ("gzip_be", "float64", (2, 3), [{"name": "bytes", "configuration": {"endian": "big"}}, {"name": "gzip", "configuration": {"level": 5}}], {"fill_value": -1.0}),
        (
            "sharded",
            "uint16",
            (4, 6),
            [
                {
                    "name": "sharding_indexed",
                    "configuration": {
                        "chunk_shape": [2, 3],
                        "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "zstd", "configuration": {"level": 1}}],
                        "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
                        "index_location": "end",
                    },
                }
            ],
            {},
        ),
        (
            "sharded_start",
            "float32",
            (4, 6),
            [
                {
                    "name": "sharding_indexed",
                    "configuration": {
                        "chunk_shape": [2, 3],
                        "codecs": [{"name": "bytes", "configuration": {"endian": "big"}}, {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": 4, "blocksize": 0}}],
                        "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
                        "index_location": "start",
                    },
                }
            ],
            {"fill_value": "NaN"},
        ),
    ]:
        meta = {"shape": list(SHAPE), "data_type": dtype, "chunk_grid": grid(chunks), "dimension_names": ["y", "x"], **extra}
        if codecs:
            meta["codecs"] = codecs
        t = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": f"{root}/{name}"}, "metadata": meta}, create=True, delete_existing=True).result()
        data = ints(np.dtype(dtype)) if dtype[0] in "iu" else floats(np.dtype(dtype))
        if name.startswith("sharded"):
            t[0:3, 1:5] = data[0:3, 1:5]
        else:
            t[...] = data


if __name__ == "__main__":
    dtypes()
    codecs()
    shards()
    keys()
    groups("groups", False)
    groups("groups_consolidated", True)
    zip_store()
    fill_forms()
    xarray_stores()
    twins()
    tensorstore_store()
