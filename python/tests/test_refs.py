"""nctk.refs: netCDF files as virtual Zarr. xarray opening nctk's kerchunk
references (engine "zarr" over fsspec's reference filesystem) reads what
``xr.open_mfdataset`` reads from the files (engine "netcdf4") for local
files combined along time; inputs that do not line up raise ValueError
naming the file and the variable, for local files and for 24 netCDF-4
files on moto's S3 server (the references point at the objects' URLs).
The same references of local files as an Icechunk repository (an output
named ``*.icechunk``, a directory or a prefix on moto's S3) read the same
through icechunk for Python, and as
kerchunk's Parquet form (``format="parquet"``, a few references per file)
through fsspec's ``LazyReferenceMapper``."""

from __future__ import annotations

import json
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


def _virtual(refs: Path, remote_protocol: str | None = None) -> "xr.Dataset":
    """xarray's dataset of the references in ``refs``; chunks on a server
    are read through fsspec's asynchronous filesystem of ``remote_protocol``
    (zarr 3 reads a reference filesystem asynchronously)."""
    if remote_protocol is None:
        fs = fsspec.filesystem("reference", fo=str(refs))
        store = fs.get_mapper("")
    else:
        from zarr.storage import FsspecStore

        fs = fsspec.filesystem("reference", fo=str(refs), remote_protocol=remote_protocol,
                               asynchronous=True, remote_options={"asynchronous": True})
        store = FsspecStore(fs, read_only=True)
    return xr.open_dataset(store, engine="zarr", consolidated=False, zarr_format=2).load()


def _expected(files: list[Path]) -> "xr.Dataset":
    return xr.open_mfdataset(
        files, engine="netcdf4", combine="nested", concat_dim="time",
        data_vars="minimal", coords="minimal", compat="override",
    ).load()


def test_files_on_s3_read_as_open_mfdataset(moto, files: list[Path], tmp_path: Path) -> None:
    moto.bucket("virtual")
    # published as data centres publish their archives: readable by anyone
    # at the URL the references hold
    urls = [moto.upload(p, "virtual", p.name, public=True) + "#mode=bytes,s3" for p in files]
    out = tmp_path / "virtual.json"
    summary = nctk.refs(urls, out)
    assert summary["variables"] == 3
    refs = json.loads(out.read_text())["refs"]
    # each chunk points at its object's own URL (without netCDF-C's fragment)
    first = refs["t2m/0.0.0"]
    assert first[0] == urls[0].split("#")[0], first
    virtual = _virtual(out, remote_protocol="http")
    assert virtual.sizes["time"] == 2 * N_FILES
    xr.testing.assert_identical(virtual, _expected(files))


def _icechunk(repo: Path, container: str) -> "xr.Dataset":
    """xarray's dataset of branch ``main`` of nctk's Icechunk repository
    ``repo``, the chunks under ``container`` authorised."""
    icechunk = need("icechunk")
    storage = icechunk.local_filesystem_storage(str(repo))
    repository = icechunk.Repository.open(storage,
                                          authorize_virtual_chunk_access={container: None})
    store = repository.readonly_session("main").store
    return xr.open_dataset(store, engine="zarr", consolidated=False, zarr_format=3).load()


def test_an_icechunk_repository_reads_as_open_mfdataset(files: list[Path], tmp_path: Path) -> None:
    repo = tmp_path / "local.icechunk"
    summary = nctk.refs(files, repo)
    assert summary["variables"] == 3
    folder = "file://" + str(files[0].parent.resolve()) + "/"
    xr.testing.assert_identical(_icechunk(repo, folder), _expected(files))


def test_an_icechunk_repository_on_s3_reads_as_open_mfdataset(
    moto, files: list[Path], tmp_path: Path
) -> None:
    icechunk = need("icechunk")
    moto.bucket("repos")
    url = f"{moto.endpoint}/repos/run.icechunk#mode=s3"
    summary = nctk.refs(files, url, window=5)
    assert summary["variables"] == 3
    # a prefix that holds a repository is not written again
    with pytest.raises(OSError, match=r"run\.icechunk"):
        nctk.refs(files, url)
    storage = icechunk.s3_storage(
        bucket="repos", prefix="run.icechunk", endpoint_url=moto.endpoint, region="us-east-1",
        allow_http=True, force_path_style=True, access_key_id="testing",
        secret_access_key="testing",
    )
    folder = "file://" + str(files[0].parent.resolve()) + "/"
    repository = icechunk.Repository.open(storage, authorize_virtual_chunk_access={folder: None})
    store = repository.readonly_session("main").store
    virtual = xr.open_dataset(store, engine="zarr", consolidated=False, zarr_format=3).load()
    xr.testing.assert_identical(virtual, _expected(files))


def test_parquet_references_read_as_open_mfdataset(files: list[Path], tmp_path: Path) -> None:
    need("fastparquet")
    out = tmp_path / "local"
    # four inputs open at a time: the Parquet files are written as their
    # rows come
    summary = nctk.refs(files, out, format="parquet", record_size=5, window=4)
    assert summary["variables"] == 3
    # t2m: one chunk a step, two steps a file, five chunks a Parquet file
    assert sorted(p.name for p in (out / "t2m").iterdir()) == [
        f"refs.{k}.parq" for k in range(-(-N_FILES * 2 // 5))
    ]
    xr.testing.assert_identical(_virtual(out), _expected(files))


def test_progress_counts_inputs_then_variables(files: list[Path], tmp_path: Path) -> None:
    events: list[tuple[str, str, int]] = []
    nctk.refs(files, tmp_path / "progress.json", progress=lambda *e: events.append(e))
    assert [e for e in events if e[0] == "total"] == [
        ("total", "", N_FILES), ("total", "", N_FILES + 3)
    ]
    steps = [name for event, name, _ in events if event == "advance"]
    assert sorted(steps[:N_FILES]) == sorted(str(f) for f in files)
    assert sorted(steps[N_FILES:]) == ["lat", "t2m", "time"]
    assert events[-1] == ("finish", "", 0)


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
