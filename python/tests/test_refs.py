"""nctk.refs: netCDF files as virtual Zarr. xarray opening nctk's kerchunk
references (engine "zarr" over fsspec's reference filesystem) reads what
``xr.open_mfdataset`` reads from the files (engine "netcdf4") for local
files combined along time; inputs that do not line up raise ValueError
naming the file and the variable. (Files on S3 referenced by their HTTP
URLs: next, fsspec's reference filesystem over HTTP needs its async
options.)"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import nctk

from conftest import need

xr = need("xarray")
fsspec = need("fsspec")
netCDF4 = need("netCDF4")

N_FILES = 24


def _write(path: Path, i: int, chunks: tuple[int, int, int] = (1, 6, 12)) -> None:
    """One file of the time line: two steps, a zlib field, a fixed coordinate."""
    rng = np.random.default_rng(i)
    with netCDF4.Dataset(path, "w", format="NETCDF4") as ds:
        ds.source = f"file {i}"
        ds.createDimension("time", None)
        ds.createDimension("lat", 6)
        ds.createDimension("lon", 12)
        t = ds.createVariable("time", "f8", ("time",))
        t.units = "hours since 2026-01-01"
        t[:] = [2 * i, 2 * i + 1]
        lat = ds.createVariable("lat", "f4", ("lat",))
        lat[:] = np.linspace(-75, 75, 6)
        t2m = ds.createVariable("t2m", "f4", ("time", "lat", "lon"), zlib=True,
                                chunksizes=chunks, fill_value=-1e30)
        t2m.units = "K"
        t2m[:] = rng.normal(280, 5, (2, 6, 12)).astype("f4")


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> list[Path]:
    folder = tmp_path_factory.mktemp("refs")
    paths = [folder / f"part_{i:02d}.nc" for i in range(N_FILES)]
    for i, p in enumerate(paths):
        _write(p, i)
    return paths


def _virtual(refs: Path) -> "xr.Dataset":
    fs = fsspec.filesystem("reference", fo=str(refs))
    return xr.open_dataset(fs.get_mapper(""), engine="zarr", consolidated=False,
                           zarr_format=2).load()


def _expected(files: list[Path]) -> "xr.Dataset":
    return xr.open_mfdataset(
        files, engine="netcdf4", combine="nested", concat_dim="time",
        data_vars="minimal", coords="minimal", compat="override",
    ).load()


def test_local_files_and_a_misfit(files: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "local.json"
    nctk.refs(files[:3], out, concat_dim="time")
    xr.testing.assert_identical(_virtual(out), _expected(files[:3]))
    misfit = tmp_path / "misfit.nc"
    _write(misfit, 99, chunks=(1, 3, 12))
    bad = tmp_path / "bad.json"
    with pytest.raises(ValueError, match=r"misfit\.nc.*t2m"):
        nctk.refs([files[0], misfit], bad)
    assert not bad.exists()
