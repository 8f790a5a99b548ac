"""The xarray engine ``nctk`` against xarray's own engines.

Each file or store opened with ``engine="nctk"`` must be identical
(``xarray.testing.assert_identical``: values, dimensions, coordinates,
attributes) to what the peer engine for its kind opens, with the same
encodings where the peer gives them: ``netcdf4`` for netCDF files,
``h5netcdf`` for HDF5 files written by h5py, ``zarr`` for Zarr stores. The
corpus is sampled (one peer open per file): every format and type kind,
not every file.
"""

from __future__ import annotations

import asyncio
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conftest import corpus_dir, missing, need

xr = need("xarray")
netCDF4 = need("netCDF4")
nctk_backend = pytest.importorskip("nctk.xarray_backend")

#: The encodings that matter, as the netcdf4 and h5netcdf engines name them.
NC_ENCODINGS = (
    "chunksizes",
    "preferred_chunks",
    "contiguous",
    "dtype",
    "_FillValue",
    "zlib",
    "complevel",
    "shuffle",
    "fletcher32",
    "szip",
    "zstd",
    "bzip2",
    "blosc",
    "source",
    "original_shape",
)

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning", "ignore::UserWarning")


def _equal(a: Any, b: Any) -> bool:
    """Encoding values equal, NaN equal to NaN, dtypes with their metadata."""
    if isinstance(a, np.dtype) or isinstance(b, np.dtype):
        return a == b and getattr(a, "metadata", None) == getattr(b, "metadata", None)
    if isinstance(a, (float, np.floating)) and isinstance(b, (float, np.floating)):
        return (np.isnan(a) and np.isnan(b)) or a == b
    return bool(np.all(a == b)) and np.shape(a) == np.shape(b)


def assert_same(ours: Any, peer: Any, keys: tuple[str, ...] = NC_ENCODINGS) -> None:
    """``ours`` and ``peer`` identical, with the same encodings ``keys``
    (each the peer gives) and the same unlimited dimensions."""
    ours.load()
    peer.load()
    xr.testing.assert_identical(ours, peer)
    for name, var in peer.variables.items():
        for key in keys:
            if key in var.encoding:
                got = ours[name].encoding.get(key, "<missing>")
                assert _equal(got, var.encoding[key]), (name, key, got, var.encoding[key])
    if "unlimited_dims" in peer.encoding:
        assert ours.encoding["unlimited_dims"] == peer.encoding["unlimited_dims"]


def open_pair(path: Any, peer: str, peer_kwargs: dict | None = None, **kwargs: Any):
    """The dataset through nctk and through the peer engine."""
    ours = xr.open_dataset(path, engine="nctk", **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = xr.open_dataset(path, engine=peer, **kwargs, **(peer_kwargs or {}))
    return ours, theirs


def corpus_path(rel: str) -> Path:
    path = corpus_dir() / rel
    if not path.exists():
        missing(f"the corpus entry {rel}")
    return path


# --- files and stores written here, by the peers --------------------------


def write_netcdf4(path: Path) -> None:
    """A netCDF-4 file of every kind the netcdf4 engine hands xarray:
    compression, chunking, fletcher32, contiguous, big-endian, packed,
    times, char with ``_Encoding``, strings, an enum, a scalar, an
    unlimited dimension, and nested groups using their parents' dimensions."""
    with netCDF4.Dataset(path, "w", format="NETCDF4") as ds:
        ds.title = "nctk xarray engine test"
        ds.setncattr_string("strings", ["a", "bc"])
        ds.createDimension("time", None)
        ds.createDimension("y", 6)
        ds.createDimension("x", 8)
        ds.createDimension("nchar", 5)
        t = ds.createVariable("time", "f8", ("time",))
        t.units = "days since 2000-01-01"
        t[:] = np.arange(4) * 1.5
        temp = ds.createVariable(
            "temp", "f4", ("time", "y", "x"), zlib=True, complevel=2, shuffle=True,
            chunksizes=(1, 3, 4), fill_value=-999.0,
        )
        temp.units = "K"
        data = np.arange(4 * 6 * 8, dtype="f4").reshape(4, 6, 8)
        data[1, 2, 3] = -999.0
        temp[:] = data
        packed = ds.createVariable("packed", "i2", ("y", "x"), contiguous=True, fill_value=np.int16(-1))
        packed.scale_factor = 0.5
        packed.add_offset = 10.0
        packed[:] = np.arange(48, dtype="i2").reshape(6, 8)
        checked = ds.createVariable("checked", "u4", ("x",), fletcher32=True, chunksizes=(8,))
        checked[:] = np.arange(8, dtype="u4") * 1000
        big = ds.createVariable("big", "i8", ("x",), endian="big")
        big[:] = np.arange(8) - 4
        name = ds.createVariable("name", "S1", ("y", "nchar"))
        name._Encoding = "utf-8"
        name.set_auto_chartostring(False)
        words = [b"alpha", b"beta", b"gamma", b"delta", "\u00e9".encode(), b""]
        name[:] = np.array(words, dtype="S5").view("S1").reshape(6, 5)
        label = ds.createVariable("label", str, ("y",))
        label[:] = np.array(["one", "two", "three", "", "f\u00fcnf", "six"], dtype=object)
        cloud_t = ds.createEnumType("u1", "cloud_t", {"clear": 0, "cumulus": 1, "stratus": 2, "missing": 255})
        cloud = ds.createVariable("cloud", cloud_t, ("x",), fill_value=255)
        cloud[:] = np.array([0, 1, 2, 255, 1, 1, 0, 2], dtype="u1")
        scalar = ds.createVariable("scalar", "f8", ())
        scalar[...] = 3.25
        g1 = ds.createGroup("g1")
        g1.createDimension("z", 3)
        g1.group_attr = np.int32(7)
        gv = g1.createVariable("gv", "f8", ("z", "x"), zlib=True, complevel=1, chunksizes=(3, 2))
        gv[:] = np.arange(24.0).reshape(3, 8)
        g2 = g1.createGroup("g2")
        deep = g2.createVariable("deep", "i4", ("z",))
        deep[:] = [1, 2, 3]


def write_h5py(path: Path) -> None:
    """An HDF5 file as h5py writes one: dimension scales, gzip + shuffle,
    fletcher32 with an HDF5 fill value, a dataset with no scales (phony
    dimensions) and variable-length strings."""
    h5py = need("h5py")
    with h5py.File(path, "w") as f:
        f.attrs["title"] = "h5py file"
        f.attrs["version"] = np.int32(2)
        x = f.create_dataset("x", data=np.arange(8.0))
        x.make_scale("x")
        y = f.create_dataset("y", data=np.arange(5, dtype="i4"))
        y.make_scale("y")
        v = f.create_dataset(
            "v", data=np.arange(40, dtype="f4").reshape(5, 8), chunks=(5, 4),
            compression="gzip", compression_opts=3, shuffle=True,
        )
        v.dims[0].attach_scale(y)
        v.dims[1].attach_scale(x)
        v.attrs["units"] = "m"
        w = f.create_dataset("w", data=np.arange(8, dtype="u2"), fillvalue=9, fletcher32=True, chunks=(4,))
        w.dims[0].attach_scale(x)
        f.create_dataset("phony", data=np.arange(6, dtype="i8").reshape(2, 3))
        f.create_dataset("s", data=np.array(["ab", "cde", ""], dtype=h5py.string_dtype()))


def write_zarr3(path: Path) -> None:
    """A Zarr v3 store written by xarray and zarr-python: chunks, shards,
    times, strings, a ``_FillValue``, and an array with a ``fill_value``
    and chunks never written."""
    zarr = need("zarr")
    times = np.array(["2000-01-01", "2000-01-02", "2000-01-03", "2000-01-04"], dtype="datetime64[ns]")
    ds = xr.Dataset(
        {
            "temp": (("time", "y", "x"), np.arange(192, dtype="f4").reshape(4, 6, 8), {"units": "K"}),
            "count": (("y", "x"), np.arange(48, dtype="i2").reshape(6, 8), {"flag": np.int32(1)}),
            "label": (("y",), np.array(["one", "two", "three", "", "f\u00fcnf", "six"], dtype=object)),
        },
        coords={"time": ("time", times), "x": np.arange(8) * 0.5},
        attrs={"title": "zarr v3", "n": 3},
    )
    ds["temp"].encoding.update(chunks=(2, 3, 4), _FillValue=np.float32(-1.0))
    ds["count"].encoding.update(chunks=(2, 8), shards=(6, 8))
    ds.to_zarr(path, zarr_format=3, mode="w", consolidated=False)
    group = zarr.open_group(path, mode="a", zarr_format=3)
    raw = group.create_array(
        "raw", shape=(5, 7), chunks=(2, 3), dtype="u2", fill_value=7, dimension_names=("p", "q")
    )
    raw[:3, :] = np.arange(21, dtype="u2").reshape(3, 7)


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The netCDF-4, h5py and Zarr v3 files written by the peers."""
    d = tmp_path_factory.mktemp("xarray-engine")
    paths = {"nc4": d / "kinds.nc", "h5": d / "h5py.h5", "zarr3": d / "v3.zarr"}
    write_netcdf4(paths["nc4"])
    write_h5py(paths["h5"])
    write_zarr3(paths["zarr3"])
    return paths


# --- identical to the peers -----------------------------------------------

#: Classic files (CDF-1, CDF-2, CDF-5; ncgen's and other writers') against
#: engine="netcdf4": numeric types of every width, unsigned and 64-bit
#: (CDF-5), char with fills and NULs, unlimited dimensions, NaN fills,
#: packed values and times.
CLASSIC = [
    "generated/from-cdl/netcdf-c/ncdump/cdl/small.nc3.nc",
    "generated/from-cdl/netcdf-c/ncdump/cdl/fills.nc5.nc",
    "generated/from-cdl/netcdf-c/ncdump/cdl/ref_tst_nans.nc6.nc",
    "generated/from-cdl/netcdf-c/ncdump/cdl/tst_chararray.nc5.nc",
    "generated/from-cdl/netcdf-c/ncdump/cdl/ref_tst_nul3.nc3.nc",
    "generated/from-cdl/netcdf-c/ncdump/cdl/unlimtest1.nc6.nc",
    "generated/from-cdl/netcdf-c/ncdump/cdl/pres_temp_4D.nc3.nc",
    "generated/from-cdl/netcdf-c/ncdump/cdl/ref_tst_utf8.nc5.nc",
    "generated/from-cdl/netcdf-c/ncdump/cdl/n3time.nc3.nc",
    "scipy/scipy/io/tests/data/example_3_maskedvals.nc",
    "xarray/xarray/tests/data/bears.nc",
]

#: netCDF-4/HDF5 files of the corpus against engine="netcdf4": every
#: atomic type with fills, compounds (nested, with array fields), an enum,
#: provenance attributes.
NETCDF4 = [
    "netcdf-c/ncdump/ref_nc_test_netcdf4_4_0.nc",
    "netcdf-c/ncdump/ref_tst_compounds2.nc",
    "netcdf-c/ncdump/ref_tst_compounds4.nc",
    "netcdf-c/ncdump/ref_tst_irish_rover.nc",
    "netcdf-c/ncdump/ref_provenance_v1.nc",
    "netcdf-c/ncdump/ref_no_ncproperty.nc",
]

#: NCZarr and Zarr v2 stores against engine="zarr": netCDF-C's NCZarr
#: (groups, fills, dimensions), xarray's (``_ARRAY_DIMENSIONS``, times),
#: zarr-python's (Fortran order, which netCDF-C 4.9.0 reads wrong;
#: partial and missing chunks; a null fill; every codec).
ZARR2 = [
    "generated/from-cdl/netcdf-c/nczarr_test/ref_groups_regular.nczarr",
    "generated/from-cdl/netcdf-c/nczarr_test/ref_misc1.zarr",
    "generated/from-cdl/netcdf-c/ncdump/cdl/pres_temp_4D.u2f.nczarr",
    "generated/from-cdl/netcdf-c/ncdump/cdl/ref_tst_nans.zarr",
    "generated/other-writers/xarray-zarr2/sample_nocomp.zarr",
    "generated/other-writers/zarr-python-v2/cases/f8_2d_F.zarr",
    "generated/other-writers/zarr-python-v2/cases/f8_null_fill.zarr",
    "generated/other-writers/zarr-python-v2/cases/i4_partial_chunks.zarr",
    "generated/other-writers/zarr-python-v2/codecs.zarr",
]


def _zarr_keys(ours: Any, peer: Any) -> None:
    """The encodings the zarr engine gives that say the same as ours:
    ``preferred_chunks``, ``chunks`` (our ``chunksizes``), ``dtype`` and
    ``_FillValue``. Strings are left out: zarr-python reads them as numpy's
    StringDType with their encoding, while xarray decodes the netCDF
    engines' object strings to ``<U`` with a new encoding (as netcdf4's)."""
    for name, var in peer.variables.items():
        enc = ours[name].encoding
        if var.encoding["dtype"].kind == "T":
            continue
        assert enc["preferred_chunks"] == var.encoding["preferred_chunks"], name
        assert tuple(enc["chunksizes"]) == tuple(var.encoding["chunks"]), name
        assert _equal(enc["dtype"], var.encoding["dtype"]), name
        if "_FillValue" in var.encoding:
            assert _equal(enc["_FillValue"], var.encoding["_FillValue"]), name


@pytest.mark.parametrize("rel", CLASSIC + NETCDF4)
def test_netcdf_files_match_netcdf4(rel: str) -> None:
    ours, theirs = open_pair(corpus_path(rel), "netcdf4")
    assert_same(ours, theirs)


def test_unwritten_hdf5_data_matches_h5netcdf() -> None:
    # netCDF-C (the netCDF4 wheel) returns uninitialised memory for var2,
    # whose storage was never allocated (the values change run to run);
    # h5py reads the HDF5 fill value, 0, as nctk does.
    path = corpus_path("netcdf-c/nc_test/f03tst_open_mem.nc")
    ours, theirs = open_pair(path, "h5netcdf")
    assert_same(ours, theirs)


@pytest.mark.parametrize("rel", ZARR2)
def test_zarr_v2_stores_match_zarr(rel: str) -> None:
    ours, theirs = open_pair(corpus_path(rel), "zarr", peer_kwargs={"consolidated": False})
    assert_same(ours, theirs, keys=())
    _zarr_keys(ours, theirs)


def test_nczarr_char_matches_its_classic_twin() -> None:
    # zarr-python 3 cannot read netCDF-C's `|S1` char arrays (it fails
    # reshaping them), so a char store is checked against the classic file
    # ncgen made from the same CDL, read by netCDF-C. Only chunking differs.
    base = "generated/from-cdl/netcdf-c/ncdump/cdl/tst_chararray"
    ours = xr.open_dataset(corpus_path(base + ".nczarr"), engine="nctk")
    theirs = xr.open_dataset(corpus_path(base + ".nc3.nc"), engine="netcdf4")
    xr.testing.assert_identical(ours.load(), theirs.load())


def test_written_netcdf4_matches_netcdf4(written: dict[str, Path]) -> None:
    ours, theirs = open_pair(written["nc4"], "netcdf4")
    assert_same(ours, theirs)
    assert ours["big"].encoding["dtype"] == np.dtype(">i8")
    assert ours.encoding["unlimited_dims"] == {"time"}


def test_h5py_file_matches_h5netcdf(written: dict[str, Path]) -> None:
    # phony_dims="sort" names dimensions without scales as netCDF-C does.
    ours, theirs = open_pair(written["h5"], "h5netcdf", peer_kwargs={"phony_dims": "sort"})
    assert_same(ours, theirs)


def test_zarr_v3_matches_zarr(written: dict[str, Path]) -> None:
    ours, theirs = open_pair(written["zarr3"], "zarr", peer_kwargs={"consolidated": False})
    assert_same(ours, theirs, keys=())
    _zarr_keys(ours, theirs)
    # A v3 fill_value is no mask (xarray's zarr engine's default) unless asked.
    assert "_FillValue" not in ours["raw"].encoding
    masked = xr.open_dataset(written["zarr3"], engine="nctk", use_zarr_fill_value_as_mask=True)
    assert np.isnan(masked["raw"].values[3:, :]).all()
    assert ours["count"].encoding["chunksizes"] == (2, 8)


# --- groups, drop_variables -----------------------------------------------


def test_datatree_matches_netcdf4(written: dict[str, Path]) -> None:
    ours = xr.open_datatree(written["nc4"], engine="nctk")
    theirs = xr.open_datatree(written["nc4"], engine="netcdf4")
    xr.testing.assert_identical(ours.load(), theirs.load())
    assert ours["g1/gv"].encoding["chunksizes"] == (3, 2)
    groups = xr.open_groups(written["nc4"], engine="nctk", group="g1")
    assert sorted(groups) == ["/", "/g2"]
    xr.testing.assert_identical(groups["/g2"].load(), theirs["g1/g2"].to_dataset(inherit=False).load())


@pytest.mark.parametrize("group", ["g1", "/g1/g2"])
def test_group_matches_netcdf4(written: dict[str, Path], group: str) -> None:
    ours, theirs = open_pair(written["nc4"], "netcdf4", group=group)
    assert_same(ours, theirs)


def test_missing_group_raises(written: dict[str, Path]) -> None:
    with pytest.raises(OSError, match="nope"):
        xr.open_dataset(written["nc4"], engine="nctk", group="nope")


def test_drop_variables_matches_netcdf4(written: dict[str, Path]) -> None:
    ours, theirs = open_pair(written["nc4"], "netcdf4", drop_variables=["temp", "label"])
    assert "temp" not in ours.variables
    assert_same(ours, theirs)


# --- lazy indexing ----------------------------------------------------------

P = xr.DataArray([0, 2, 5], dims="points")
KEYS = [
    {"time": 1},
    {"time": -1, "y": slice(1, 5, 2)},
    {"x": slice(None, None, -1)},
    {"x": slice(6, 0, -3), "y": slice(None, None, -2)},
    {"y": [4, 0, 2, 2]},
    {"x": np.array([True, False, False, True, True, False, False, True])},
    {"time": [3, 0], "y": [1, 5], "x": [7, 0, 3]},
    {"y": P, "x": P + 1},
    {"time": slice(1, None), "x": [-1, -8]},
]


@pytest.mark.parametrize("key", KEYS, ids=range(len(KEYS)))
@pytest.mark.parametrize("kind", ["nc4", "zarr3"])
def test_lazy_indexing_equals_eager(written: dict[str, Path], kind: str, key: dict) -> None:
    lazy = xr.open_dataset(written[kind], engine="nctk")
    eager = lazy.load().copy(deep=True)
    lazy = xr.open_dataset(written[kind], engine="nctk")
    xr.testing.assert_identical(lazy.isel(key).load(), eager.isel(key))
    # Indexing twice composes before reading.
    twice = lazy.isel(x=slice(1, None)).isel(key if "x" not in key else {k: v for k, v in key.items() if k != "x"})
    ref = eager.isel(x=slice(1, None)).isel(key if "x" not in key else {k: v for k, v in key.items() if k != "x"})
    xr.testing.assert_identical(twice.load(), ref)


def test_sel_equals_eager(written: dict[str, Path]) -> None:
    lazy = xr.open_dataset(written["nc4"], engine="nctk")
    eager = xr.open_dataset(written["nc4"], engine="nctk").load()
    sel = {"time": slice("2000-01-02", "2000-01-05")}
    xr.testing.assert_identical(lazy.sel(sel).load(), eager.sel(sel))
    z = xr.open_dataset(written["zarr3"], engine="nctk")
    ze = z.load().copy(deep=True)
    z = xr.open_dataset(written["zarr3"], engine="nctk")
    xr.testing.assert_identical(z.sel(x=[3.0, 0.5], method="nearest").load(), ze.sel(x=[3.0, 0.5], method="nearest"))


def test_async_load_equals_load(written: dict[str, Path]) -> None:
    # xarray's char-to-string decoding has no asynchronous path: leave it out.
    eager = xr.open_dataset(written["nc4"], engine="nctk").drop_vars("name").load()
    lazy = xr.open_dataset(written["nc4"], engine="nctk").drop_vars("name")
    loaded = asyncio.run(lazy.isel(y=[5, 1]).load_async())
    xr.testing.assert_identical(loaded, eager.isel(y=[5, 1]))


# --- dask: stored chunks, no lock -----------------------------------------


def test_chunks_follow_stored_chunks(written: dict[str, Path]) -> None:
    need("dask")
    ds = xr.open_dataset(written["nc4"], engine="nctk", chunks={})
    assert ds["temp"].chunks == ((1, 1, 1, 1), (3, 3), (4, 4))
    eager = xr.open_dataset(written["nc4"], engine="nctk").load()
    xr.testing.assert_identical(ds.compute(scheduler="threads"), eager)
    z = xr.open_dataset(written["zarr3"], engine="nctk", chunks={})
    assert z["temp"].chunks == ((2, 2), (3, 3), (4, 4))
    xr.testing.assert_identical(
        z.compute(scheduler="threads"), xr.open_dataset(written["zarr3"], engine="zarr").load()
    )


def test_to_netcdf_keeps_encodings(written: dict[str, Path], tmp_path: Path) -> None:
    ds = xr.open_dataset(written["nc4"], engine="nctk")
    out = tmp_path / "copy.nc"
    ds.to_netcdf(out, engine="netcdf4")
    with netCDF4.Dataset(out) as nc:
        assert nc["temp"].chunking() == [1, 3, 4]
        assert nc["temp"].filters()["zlib"] and nc["temp"].filters()["complevel"] == 2
        assert nc.dimensions["time"].isunlimited()
    xr.testing.assert_identical(xr.open_dataset(out, engine="nctk").load(), ds.load())


# --- guess_can_open --------------------------------------------------------


def test_guess_can_open(written: dict[str, Path], tmp_path: Path) -> None:
    engine = nctk_backend.NctkBackendEntrypoint()
    can = engine.guess_can_open
    assert can(corpus_path(CLASSIC[0]))  # CDF-1 magic
    assert can(str(written["nc4"]))  # HDF5 magic
    assert can(written["h5"])
    assert can(written["zarr3"])  # zarr.json
    assert can(corpus_path(ZARR2[0]))  # NCZarr: .zgroup
    assert can(corpus_path(ZARR2[-2]) / "i4_partial_chunks")  # an array: .zarray
    assert can("s3://bucket/store#mode=zarr,s3")
    assert can("https://example.com/f.nc")
    assert can(tmp_path / "not-yet.nc4")
    text = tmp_path / "notes.nc"
    text.write_text("plain text")
    assert not can(text)  # a magic, not an extension, decides
    assert not can(tmp_path)  # a directory without Zarr metadata
    assert not can(tmp_path / "x.txt")
    assert not can(b"CDF\x01")


def test_pickled_dataset_reads_the_same(written: dict[str, Path]) -> None:
    # What dask.distributed sends to workers: the lazy dataset, reopened there.
    import pickle

    ds = xr.open_dataset(written["nc4"], engine="nctk", chunks={})
    copy = pickle.loads(pickle.dumps(ds))
    xr.testing.assert_identical(copy.load(), xr.open_dataset(written["nc4"], engine="netcdf4").load())
    copy.close()
    xr.testing.assert_identical(ds.load(), copy)  # closing the copy leaves ours open
