"""Inputs for tests/refs.rs, written by netCDF4-python (netCDF-C) into
sys.argv[1]: netCDF-4 files with every storage nctk references (chunked
with zlib + shuffle, fletcher32, contiguous, compact-sized scalars,
chunks never written, an unlimited dimension, big-endian, a group) and
classic CDF-1, CDF-2 and CDF-5 files with interleaved record variables."""
import os
import sys

import netCDF4
import numpy as np

out = sys.argv[1]
rng = np.random.default_rng(28)


def nc4(name, contiguous):
    ds = netCDF4.Dataset(os.path.join(out, name), "w", format="NETCDF4")
    ds.title = "references test"
    ds.createDimension("time", None)
    ds.createDimension("y", 6)
    ds.createDimension("x", 10)
    t = ds.createVariable("time", "f8", ("time",))
    t.units = "days since 2000-01-01"
    t[:] = np.arange(5.0)
    x = ds.createVariable("x", "i4", ("x",), contiguous=contiguous)
    x[:] = np.arange(10) * 3
    kw = {} if contiguous else {"zlib": True, "shuffle": True, "chunksizes": (2, 3, 4)}
    temp = ds.createVariable("temp", "f4", ("time", "y", "x"), fill_value=-999.0, **kw)
    temp.units = "K"
    temp.valid_range = np.array([0.0, 400.0], "f4")
    temp[:] = rng.normal(280, 10, (5, 6, 10)).astype("f4")
    big = ds.createVariable("big", "i2", ("y", "x"), endian="big", contiguous=contiguous)
    big[:] = np.arange(60, dtype="i2").reshape(6, 10) - 30
    s = ds.createVariable("scalar", "f8", ())
    s[...] = 3.25
    if not contiguous:
        sparse = ds.createVariable("sparse", "i4", ("y", "x"), chunksizes=(3, 5), fill_value=-1)
        sparse[0:3, 0:5] = np.arange(15).reshape(3, 5)
        f = ds.createVariable("checked", "u2", ("y", "x"), fletcher32=True, chunksizes=(6, 5))
        f[:] = np.arange(60, dtype="u2").reshape(6, 10)
    g = ds.createGroup("forecast")
    g.createDimension("lead", 3)
    w = g.createVariable("wind", "f4", ("lead", "x"), contiguous=contiguous)
    w.long_name = "wind speed"
    w[:] = np.linspace(0, 1, 30, dtype="f4").reshape(3, 10)
    ds.close()


def classic(name, fmt):
    ds = netCDF4.Dataset(os.path.join(out, name), "w", format=fmt)
    ds.history = "classic references"
    ds.createDimension("time", None)
    ds.createDimension("lat", 3)
    ds.createDimension("lon", 4)
    lat = ds.createVariable("lat", "f4", ("lat",))
    lat[:] = [10.0, 20.0, 30.0]
    grid = ds.createVariable("grid", "f8", ("lat", "lon"))
    grid[:] = np.arange(12.0).reshape(3, 4) / 8
    a = ds.createVariable("a", "f8", ("time", "lat", "lon"), fill_value=1e20)
    a.units = "m"
    a[:] = rng.normal(0, 1, (4, 3, 4))
    b = ds.createVariable("b", "i2", ("time", "lon"))
    b[:] = np.arange(16, dtype="i2").reshape(4, 4)
    c = ds.createVariable("c", "i1", ("time",))
    c[:] = [1, -2, 3, -4]
    if fmt == "NETCDF3_64BIT_DATA":
        u = ds.createVariable("u", "u8", ("lat",))
        u[:] = [1, 2**40, 2**63]
    ds.close()


def short(name, fill):
    """A variable shorter than its unlimited dimension (another variable
    has more records), its last chunk reaching past its own extent."""
    ds = netCDF4.Dataset(os.path.join(out, name), "w", format="NETCDF4")
    if not fill:
        ds.set_fill_off()
    ds.createDimension("time", None)
    long = ds.createVariable("long", "i4", ("time",), chunksizes=(2,))
    long[:] = np.arange(5)
    short = ds.createVariable("short", "f4", ("time",), chunksizes=(2,))
    short[0:3] = [1.5, 2.5, 3.5]
    ds.close()


nc4("nc4_chunked.nc", contiguous=False)
short("nc4_short.nc", fill=True)
short("nc4_short_nofill.nc4", fill=False)
nc4("nc4_contiguous.nc", contiguous=True)
classic("cdf1.nc", "NETCDF3_CLASSIC")
classic("cdf2.nc", "NETCDF3_64BIT_OFFSET")
classic("cdf5.nc", "NETCDF3_64BIT_DATA")


def low_level(f, name, data, layout, chunks=None, early=False):
    """A dataset made with HDF5's own property lists (compact layout,
    early allocation: what h5py's high-level API does not ask for)."""
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_layout(layout)
    if chunks:
        dcpl.set_chunk(chunks)
    if early:
        dcpl.set_alloc_time(h5py.h5d.ALLOC_TIME_EARLY)
    space = h5py.h5s.create_simple(data.shape)
    tid = h5py.h5t.py_create(data.dtype)
    ds = h5py.h5d.create(f.id, name.encode(), tid, space, dcpl=dcpl)
    ds.write(h5py.h5s.ALL, h5py.h5s.ALL, np.ascontiguousarray(data))


def chunk_indexes(name, libver):
    """Every chunk index HDF5 writes for `libver`: the latest format's
    single chunk, implicit, fixed array, extensible array and version-2
    B-tree; the earliest's version-1 B-tree. Plus compact data, and
    chunks never written of a dataset with a fill value but no
    `_FillValue` attribute."""
    with h5py.File(os.path.join(out, name), "w", libver=libver) as f:
        grid = np.arange(120, dtype="f8").reshape(10, 12)
        f.create_dataset("fixed", data=grid, chunks=(4, 5), compression="gzip")
        f.create_dataset("single", data=grid, chunks=(10, 12), compression="gzip")
        f.create_dataset(
            "extensible", data=grid, chunks=(3, 12), maxshape=(None, 12), shuffle=True
        )
        f.create_dataset("btree2", data=grid, chunks=(4, 4), maxshape=(None, None))
        low_level(f, "implicit", grid, h5py.h5d.CHUNKED, chunks=(5, 6), early=True)
        low_level(f, "compact", np.arange(6, dtype="i4"), h5py.h5d.COMPACT)
        holes = f.create_dataset("holes", shape=(10, 12), chunks=(5, 6), dtype="i2", fillvalue=-7)
        holes[0:5, 0:6] = 1


import h5py  # noqa: E402  (only the HDF5 files below need it)

chunk_indexes("h5_latest.h5", "latest")
chunk_indexes("h5_earliest.h5", "earliest")
