"""Every format and place nctk reads, from Python: one dataset (written by
netCDF4-python) stored as each format nctk reads and put where nctk reads
it, read back through ``nctk.open`` as netCDF4-python reads the source."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import nctk

from conftest import need

netCDF4 = need("netCDF4")


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    """A CDF-5 file: record and fixed variables of several types, attributes."""
    path = tmp_path_factory.mktemp("places") / "source.nc"
    rng = np.random.default_rng(11)
    with netCDF4.Dataset(path, "w", format="NETCDF3_64BIT_DATA") as ds:
        ds.createDimension("time", None)
        ds.createDimension("y", 30)
        ds.createDimension("x", 40)
        ds.title = "places"
        t = ds.createVariable("time", "f8", ("time",))
        t.units = "days since 2000-01-01"
        t[:] = np.arange(6)
        v = ds.createVariable("temp", "f4", ("time", "y", "x"))
        v.units = "K"
        v[:] = rng.random((6, 30, 40)).astype("f4") * 300
        ds.createVariable("mask", "i1", ("y", "x"))[:] = rng.integers(0, 2, (30, 40))
        ds.createVariable("count", "u8", ("x",))[:] = np.arange(40, dtype="u8") ** 5
    return path


def assert_reads_as_source(target: str | Path, source: Path) -> None:
    """``target`` opened with nctk holds the source's variables, values and
    attributes (as netCDF4-python reads the source)."""
    with nctk.open(target) as ds, netCDF4.Dataset(source) as peer:
        peer.set_auto_maskandscale(False)
        assert sorted(ds.variables) == sorted(peer.variables), target
        for name, var in peer.variables.items():
            got = ds[name]
            assert got.dimensions == var.dimensions, (target, name)
            np.testing.assert_array_equal(got[...], np.asarray(var[...]), err_msg=f"{target} {name}")
            for a in var.ncattrs():
                assert got.attrs[a] == var.getncattr(a), (target, name, a)
        assert ds.attrs["title"] == "places"


def run(cli: Path, *args: str) -> None:
    done = subprocess.run([str(cli), *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_classic(source: Path) -> None:
    assert_reads_as_source(source, source)
    assert nctk.open(source).format == "cdf5"


def test_in_memory(source: Path) -> None:
    with nctk.open(source, in_memory=True) as ds:
        assert ds.options == {"in_memory": True}
    assert_reads_as_source(str(source), source)


@pytest.mark.parametrize(
    "name, args",
    [
        ("compressed.nc", ["-k", "compressed"]),
        ("stream.ncs", []),
        ("nczarr.zarr", ["-k", "nc4"]),
        ("store.zip", ["-k", "nc4"]),
        ("v3.zarr", []),
    ],
)
def test_formats_nctk_writes(nctk_cli: Path, source: Path, tmp_path: Path, name: str, args: list[str]) -> None:
    out = tmp_path / name
    target = f"file://{out}#mode=zarr,v3" if name == "v3.zarr" else str(out)
    run(nctk_cli, "copy", *args, str(source), target)
    assert_reads_as_source(target if name == "v3.zarr" else out, source)


def test_netcdf4_hdf5(source: Path, tmp_path: Path) -> None:
    """The same dataset as netCDF-4/HDF5, written by netCDF-C (nccopy)."""
    nccopy = shutil.which("nccopy")
    if nccopy is None:
        pytest.fail("nccopy (netcdf-bin) is not installed")
    out = tmp_path / "nc4.nc"
    subprocess.run([nccopy, "-k", "nc4", "-d", "1", "-s", str(source), str(out)], check=True)
    assert_reads_as_source(out, source)
    assert nctk.open(out).format == "netCDF-4"


def test_s3_mode_bytes_and_zarr(moto, nctk_cli: Path, source: Path, tmp_path: Path) -> None:
    """On moto's S3 server: the classic file over ``#mode=bytes``, and an
    NCZarr store over ``#mode=nczarr,s3`` that nctk copy wrote there."""
    moto.bucket("places")
    url = moto.upload(source, "places", "source.nc")
    # `,s3`: signed S3 requests to this host (a bare `#mode=bytes` URL is
    # plain HTTP, which moto answers 403 for a private object).
    assert_reads_as_source(url + "#mode=bytes,s3", source)
    store = f"{moto.endpoint}/places/store.zarr#mode=nczarr,s3"
    run(nctk_cli, "copy", "-k", "nc4", str(source), store)
    assert_reads_as_source(store, source)


def test_cdmremote(nctk_cli: Path, source: Path, tmp_path: Path) -> None:
    """A cdmremote server (``nctk serve``) on loopback."""
    served = tmp_path / "served"
    served.mkdir()
    shutil.copy(source, served / "source.nc")
    server = subprocess.Popen(
        [str(nctk_cli), "serve", "--port", "0", str(served)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = server.stdout.readline()
        address = next(w for w in line.split() if w.startswith("http://"))
        base = address.rstrip("/").removesuffix("/cdmremote")
        assert_reads_as_source(f"cdmremote:{base}/cdmremote/source.nc", source)
    finally:
        server.terminate()
        server.wait(10)
