"""nctk.create: datasets written through the define API, read back by the
peers (netCDF4-python, zarr-python, xarray) as the values written, with
the storage asked for; errors raise the exception their kind calls for; an
aborted dataset leaves nothing behind."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

import nctk
from conftest import need

CLASSIC = {"classic": "NETCDF3_CLASSIC", "64-bit offset": "NETCDF3_64BIT_OFFSET",
           "cdf5": "NETCDF3_64BIT_DATA"}
# The files nctk.create writes, by nccopy's name of the format and
# netCDF4-python's data model.
FILES = CLASSIC | {"netCDF-4": "NETCDF4"}

TEMP = np.arange(24, dtype="f8").reshape(2, 3, 4) / 4


def _define(ds: nctk.WritableDataset, storage: dict | None = None) -> None:
    """The test dataset: an unlimited and two fixed dimensions, a float
    field with a fill value, a short converted from doubles, char text."""
    ds.add_dimension("time", None)
    ds.add_dimension("y", 3)
    ds.add_dimension("x", 4)
    ds.attrs["title"] = "written by nctk"
    ds.put_attribute("version", 3)
    t = ds.add_variable("temp", "f4", ("time", "y", "x"), fill_value=-999.0,
                        **(storage or {}))
    t.attrs["units"] = "K"
    t.put_attribute("valid_range", np.array([0, 100], dtype="f4"))
    ds.add_variable("code", np.int16, ("x",))
    ds.add_variable("name", "S1", ("y", "x"))


def _write(ds: nctk.WritableDataset) -> None:
    ds["temp"][0:2] = TEMP  # float64 converted to float, time grows to 2
    ds["temp"][3, :, ::-1] = TEMP[0]  # record 3 grows time to 4, record 2 stays fill
    ds["code"][:] = np.array([1.0, -2.0, 3.0, 4.0])
    ds["name"][:] = np.array(["ab", "cde", "f"])


def _expected_temp() -> np.ndarray:
    out = np.full((4, 3, 4), -999.0, dtype="f4")
    out[0:2] = TEMP
    out[3] = TEMP[0][:, ::-1]
    return out


@pytest.mark.parametrize("kind", sorted(FILES))
def test_files_read_back_by_netcdf4(tmp_path: Path, kind: str) -> None:
    netCDF4 = need("netCDF4")
    path = tmp_path / "out.nc"
    with nctk.create(path, kind) as ds:
        _define(ds)
        _write(ds)
    with netCDF4.Dataset(path) as nc:
        nc.set_auto_mask(False)
        assert nc.data_model == FILES[kind]
        assert nc.dimensions["time"].isunlimited() and len(nc.dimensions["time"]) == 4
        assert nc.title == "written by nctk" and nc.version == 3
        np.testing.assert_array_equal(nc["temp"][:], _expected_temp())
        assert nc["temp"].units == "K" and nc["temp"]._FillValue == np.float32(-999.0)
        np.testing.assert_array_equal(nc["temp"].valid_range, [0, 100])
        assert nc["code"].dtype == np.int16
        np.testing.assert_array_equal(nc["code"][:], [1, -2, 3, 4])
        nc["name"].set_auto_chartostring(False)
        assert [b"".join(r).decode() for r in nc["name"][:]] == ["ab", "cde", "f"]


def test_nczarr_store_read_back_by_netcdf4(tmp_path: Path) -> None:
    netCDF4 = need("netCDF4")
    path = tmp_path / "out.zarr"
    storage = {"chunksizes": (1, 3, 2), "deflate_level": 5, "shuffle": True}
    with nctk.create(path, "netCDF-4") as ds:
        _define(ds, storage)
        g = ds.add_group("forecast")
        g.add_dimension("step", 2)
        g.add_variable("lead", "i4", ("step", "x"), contiguous=True)[:] = np.arange(8).reshape(2, 4)
        _write(ds)
    with netCDF4.Dataset(f"file://{path}#mode=nczarr,file") as nc:
        nc.set_auto_mask(False)
        temp = nc["temp"]
        np.testing.assert_array_equal(temp[:], _expected_temp())
        assert temp.chunking() == [1, 3, 2]
        filters = temp.filters()
        assert filters["zlib"] and filters["complevel"] == 5 and filters["shuffle"]
        np.testing.assert_array_equal(nc["forecast/lead"][:], np.arange(8).reshape(2, 4))
        assert nc.title == "written by nctk"


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_zarr_stores_read_back_by_zarr_and_xarray(tmp_path: Path, zarr_format: int) -> None:
    zarr = need("zarr")
    xr = need("xarray")
    path = tmp_path / "out.zarr"
    layout = "zarr" if zarr_format == 2 else "zarr-v3"
    with nctk.create(path, "netCDF-4", layout=layout, consolidated=zarr_format == 2) as ds:
        _define(ds, {"chunksizes": (1, 3, 2), "deflate_level": 3})
        ds.add_variable("label", str, ("y",))[:] = ["one", "two", "three"]
        _write(ds)
    group = zarr.open_group(str(path), mode="r", zarr_format=zarr_format)
    temp = group["temp"]
    assert temp.chunks == (1, 3, 2)
    np.testing.assert_array_equal(temp[:], _expected_temp())
    if zarr_format == 2:
        assert temp.metadata.compressor.get_config() == {"id": "zlib", "level": 3}
    else:
        names = [type(c).__name__ for c in temp.metadata.codecs]
        assert "GzipCodec" in names or any("zlib" in repr(c).lower() for c in temp.metadata.codecs)
    # Zarr v2 stores strings as fixed-width bytes (as netCDF-C), v3 as zarr's strings.
    labels = [x.decode() if isinstance(x, bytes) else str(x) for x in group["label"][:]]
    assert labels == ["one", "two", "three"]
    opened = xr.open_zarr(path, zarr_format=zarr_format, mask_and_scale=False)
    assert opened["temp"].dims == ("time", "y", "x")
    assert opened["temp"].attrs["units"] == "K"
    np.testing.assert_array_equal(opened["code"].values, [1, -2, 3, 4])


def test_store_options_and_storage_seen_by_netcdf4(tmp_path: Path) -> None:
    """fill, write_empty_chunks, cache_bytes, fletcher32 and byte order."""
    netCDF4 = need("netCDF4")
    path = tmp_path / "opts.zarr"
    with nctk.create(path, fill=False, write_empty_chunks=True, cache_bytes=1 << 16) as ds:
        ds.add_dimension("x", 6)
        v = ds.add_variable("v", "u2", "x", chunksizes=[3], fletcher32=True, endianness="big")
        empty = ds.add_variable("empty", "i4", "x", chunksizes=[3])
        v[:] = np.arange(6)
        empty[:] = np.full(6, -2147483647)  # the default fill value, stored all the same
    assert sorted(os.listdir(path / "empty")) == [".zarray", ".zattrs", "0", "1"]
    with netCDF4.Dataset(f"file://{path}#mode=nczarr,file") as nc:
        np.testing.assert_array_equal(nc["v"][:], np.arange(6))
        assert nc["v"].filters()["fletcher32"] and nc["v"].endian() == "big"


def test_abort_on_exception_leaves_nothing(tmp_path: Path) -> None:
    for name in ("a.nc", "a.zarr"):
        target = tmp_path / name
        with pytest.raises(RuntimeError, match="boom"):
            with nctk.create(target) as ds:
                _define(ds)
                _write(ds)
                raise RuntimeError("boom")
        assert not target.exists()
    assert os.listdir(tmp_path) == []


def test_abort_keeps_what_was_there(tmp_path: Path) -> None:
    target = tmp_path / "keep.nc"
    with nctk.create(target) as ds:
        ds.add_dimension("x", 2)
        ds.add_variable("old", "i4", "x")[:] = [7, 8]
    ds = nctk.create(target)
    ds.add_dimension("x", 2)
    ds.add_variable("new", "i4", "x")[:] = [1, 2]
    ds.abort()
    with nctk.open(target) as back:
        assert list(back.variables) == ["old"]
    assert sorted(os.listdir(tmp_path)) == ["keep.nc"]


def test_errors_raise_the_right_exceptions(tmp_path: Path) -> None:
    ds = nctk.create(tmp_path / "e.nc", "classic")
    ds.add_dimension("x", 3)
    with pytest.raises(ValueError, match="no dimension 'nope'"):
        ds.add_variable("v", "f4", ("nope",))
    with pytest.raises(NotImplementedError):
        ds.add_group("g")  # a classic file holds no groups
    with pytest.raises(NotImplementedError):
        ds.add_variable("c", "f4", ("x",), chunksizes=(1,))
    with pytest.raises(ValueError):
        ds.add_dimension("x", 4)  # defined twice
    with pytest.raises(TypeError):
        ds.add_variable("b", np.complex64, ("x",))
    v = ds.add_variable("v", "i2", ("x",))
    with pytest.raises(ValueError):
        v[:] = np.ones(4)  # the wrong shape
    with pytest.raises(ValueError):
        v[:] = np.array([1e9, 0, 0])  # out of range for a short
    with pytest.raises(IndexError):
        v[5] = 1
    v[:] = [1, 2, 3]
    with pytest.raises(ValueError, match="before the first values"):
        ds.add_dimension("late", 1)
    ds.close()
    assert not ds.isopen()
    with pytest.raises(ValueError, match="closed"):
        v[:] = [4, 5, 6]
    ds.close()  # closing twice does nothing
    with pytest.raises(ValueError, match="invalid output format"):
        nctk.create(tmp_path / "x.nc", "netCDF-5")
    with nctk.open(tmp_path / "e.nc") as back:
        np.testing.assert_array_equal(back["v"][:], [1, 2, 3])


def test_existing_store_takes_regions_and_refuses_other_definitions(tmp_path: Path) -> None:
    """existing=True writes chunks into the store an earlier create made
    with the same definitions (zarr-python reads both regions), and
    refuses a store whose arrays differ or that is not there."""
    zarr = need("zarr")
    path = tmp_path / "regions.zarr"

    def define(ds: nctk.WritableDataset, n: int = 6) -> nctk.WritableVariable:
        ds.add_dimension("x", n)
        return ds.add_variable("v", "i4", "x", chunksizes=[3])

    with nctk.create(path, layout="zarr") as ds:
        define(ds)
    for start in (3, 0):
        with nctk.create(path, layout="zarr", existing=True) as ds:
            define(ds)[start:start + 3] = np.arange(start, start + 3)
    np.testing.assert_array_equal(zarr.open_array(str(path / "v"), mode="r")[:], np.arange(6))
    with pytest.raises(ValueError, match="differs from the definitions"):
        with nctk.create(path, layout="zarr", existing=True) as ds:
            define(ds, 7)
    with pytest.raises(FileNotFoundError):
        with nctk.create(tmp_path / "absent.zarr", layout="zarr", existing=True) as ds:
            define(ds)
    np.testing.assert_array_equal(zarr.open_array(str(path / "v"), mode="r")[:], np.arange(6))
