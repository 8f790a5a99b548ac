"""nctk.copy: one dataset with nccopy's options (the same result as
netCDF-C's nccopy, by ncdump and netCDF4-python), the progress reports,
and a collection of files copied into one Zarr v2/v3 store on threads and
on a dask.distributed cluster (what xr.open_mfdataset reads)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import nctk
from conftest import missing, need

FROM_CDL = Path("generated/from-cdl/netcdf-c")
C0 = FROM_CDL / "ncgen/c0.nc3.nc"
PRES = FROM_CDL / "examples/CDL/pres_temp_4D.nc3.nc"
N3TIME = FROM_CDL / "ncdump/cdl/n3time.nc3.nc"


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        missing(f"netCDF-C's {name}")
    return path


def _dump(path: Path) -> str:
    """ncdump's text without its first line (which names the file)."""
    out = subprocess.run([_tool("ncdump"), str(path)], capture_output=True, text=True, check=True)
    return out.stdout.split("\n", 1)[1]


@pytest.mark.parametrize(
    "source, options, flags",
    [
        (C0, {"kind": "64-bit offset"}, ["-k", "2"]),
        (PRES, {"kind": "cdf5", "fix_unlimited": True}, ["-k", "5", "-u"]),
        (C0, {"variables_only": ["cr", "ir", "dr"]}, ["-V", "cr,ir,dr"]),
        (N3TIME, {"buffer_size": "1K", "write_in_memory": True, "fill": True},
         ["-m", "1K", "-w"]),
    ],
    ids=["c0-k2", "pres-k5-u", "c0-V", "n3time-m-w"],
)
def test_copy_equals_nccopy(corpus: Path, tmp_path: Path, source: Path, options: dict,
                            flags: list[str]) -> None:
    src = corpus / source
    ours, theirs = tmp_path / "ours.nc", tmp_path / "theirs.nc"
    summary = nctk.copy(src, ours, **options)
    subprocess.run([_tool("nccopy"), *flags, str(src), str(theirs)], check=True)
    assert _dump(ours) == _dump(theirs)
    kind = subprocess.run([_tool("ncdump"), "-k", str(theirs)], capture_output=True,
                          text=True, check=True).stdout.strip()
    assert summary["kind"] == kind


def test_copy_to_netcdf4_store_keeps_nccopy_chunking_and_compression(
    corpus: Path, tmp_path: Path
) -> None:
    """-k nc4 -d 4 -s -c: nctk's NCZarr store and nccopy's netCDF-4 file
    hold the same values in the same chunks with the same filters, as
    netCDF4-python reads them."""
    netCDF4 = need("netCDF4")
    src = corpus / PRES
    ours, theirs = tmp_path / "ours.zarr", tmp_path / "theirs.nc"
    nctk.copy(src, ours, kind="netCDF-4", deflate=4, shuffle=True,
              chunking={"time": 1, "level": 2})
    subprocess.run([_tool("nccopy"), "-k", "nc4", "-d", "4", "-s", "-c", "time/1,level/2",
                    str(src), str(theirs)], check=True)
    with netCDF4.Dataset(theirs) as a, netCDF4.Dataset(f"file://{ours}#mode=nczarr,file") as b:
        assert list(a.variables) == list(b.variables)
        for name in a.variables:
            va, vb = a[name], b[name]
            va.set_auto_mask(False)
            vb.set_auto_mask(False)
            np.testing.assert_array_equal(va[:], vb[:])
            assert va.chunking() == vb.chunking()
            assert va.filters() == vb.filters()
            assert va.ncattrs() == vb.ncattrs()


def test_progress_callable_and_tqdm(corpus: Path, tmp_path: Path, capsys) -> None:
    events: list[tuple[str, str, int]] = []
    summary = nctk.copy(corpus / N3TIME, tmp_path / "a.nc",
                        progress=lambda *e: events.append(e), buffer_size=4096)
    assert events[0][0] == "start" and events[-1][0] == "finish"
    advances = [e for e in events if e[0] == "advance"]
    assert len(advances) > 1
    assert sum(e[2] for e in advances) == events[0][2] == summary["bytes"]
    need("tqdm")
    nctk.copy(corpus / N3TIME, tmp_path / "b.nc", progress=True)
    err = capsys.readouterr().err
    assert "100%" in err and "b.nc" in err
    assert _dump(tmp_path / "a.nc") == _dump(tmp_path / "b.nc")


def test_bad_options(corpus: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="invalid output format: nope"):
        nctk.copy(corpus / C0, tmp_path / "x.nc", kind="nope")
    with pytest.raises(ValueError, match="deflat"):
        nctk.copy(corpus / C0, tmp_path / "x.nc", deflate=12)
    with pytest.raises(TypeError, match="unknown option"):
        nctk.copy(corpus / C0, tmp_path / "x.nc", colour="blue")
    with pytest.raises(FileNotFoundError):
        nctk.copy(tmp_path / "absent.nc", tmp_path / "x.nc")
    assert not (tmp_path / "x.nc").exists()


# The collection copy.

LENGTHS = [6, 6, 6, 6, 6, 4]


@pytest.fixture(scope="module")
def sources(tmp_path_factory) -> list[str]:
    """Six small netCDF-4 files written by xarray, a time series split
    along time (one time encoding, as a collection of a run has)."""
    xr = need("xarray")
    pd = need("pandas")
    root = tmp_path_factory.mktemp("collection")
    n = sum(LENGTHS)
    rng = np.random.default_rng(26)
    temp = rng.normal(280, 5, (n, 3, 4)).astype("f4")
    temp[5, 1, 2] = np.nan
    ds = xr.Dataset(
        {
            "temp": (("time", "lat", "lon"), temp, {"units": "K", "long_name": "temperature"}),
            "count": (("time",), np.arange(n, dtype="i4")),
        },
        coords={
            "time": pd.date_range("2001-01-01", periods=n, freq="6h"),
            "lat": [10.0, 20.0, 30.0],
            "lon": [0.0, 90.0, 180.0, 270.0],
        },
        attrs={"title": "collection test", "source": "nctk tests"},
    )
    paths, start = [], 0
    for i, length in enumerate(LENGTHS):
        path = root / f"part{i}.nc"
        ds.isel(time=slice(start, start + length)).to_netcdf(
            path, encoding={"time": {"units": "hours since 2001-01-01", "dtype": "i8"}}
        )
        paths.append(str(path))
        start += length
    return paths


def _check_equals_mfdataset(sources: list[str], target: Path, zarr_format: int) -> None:
    xr = need("xarray")
    expected = xr.open_mfdataset(sources, combine="nested", concat_dim="time").load()
    got = xr.open_zarr(target, zarr_format=zarr_format).load()
    xr.testing.assert_identical(got, expected)


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_collection_on_threads(sources: list[str], tmp_path: Path, zarr_format: int) -> None:
    zarr = need("zarr")
    target = tmp_path / "all.zarr"
    summary = nctk.copy(sources, target, concat_dim="time", zarr_format=zarr_format,
                        deflate=1, shuffle=True, progress=True)
    assert summary["shape"]["time"] == sum(LENGTHS)
    _check_equals_mfdataset(sources, target, zarr_format)
    # Chunks along time divide every source's offset (gcd 6), so no chunk is shared.
    assert zarr.open_array(str(target / "temp"), mode="r").chunks[0] == 6


def test_collection_refuses_shared_chunks_and_unlike_sources(
    sources: list[str], tmp_path: Path
) -> None:
    target = tmp_path / "bad.zarr"
    with pytest.raises(ValueError, match="shared by two sources"):
        nctk.copy(sources, target, chunks={"time": 4})
    xr = need("xarray")
    odd = tmp_path / "odd.nc"
    xr.open_dataset(sources[0]).to_netcdf(
        odd, encoding={"time": {"units": "hours since 1990-01-01", "dtype": "i8"}}
    )
    with pytest.raises(ValueError, match="attribute time:units differs"):
        nctk.copy([sources[0], str(odd)], target)
    assert not target.exists()


@pytest.fixture(scope="module")
def client():
    distributed = need("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       host="127.0.0.1", dashboard_address=None)
    with cluster, distributed.Client(cluster) as c:
        yield c


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_collection_on_dask_cluster(sources: list[str], tmp_path: Path, client,
                                    zarr_format: int) -> None:
    target = tmp_path / "all.zarr"
    summary = nctk.copy(sources, target, concat_dim="time", client=client,
                        zarr_format=zarr_format)
    assert summary["sources"] == len(sources)
    _check_equals_mfdataset(sources, target, zarr_format)
    # Each task ran on a worker process, not here: the cluster's two worker
    # processes (a worker the scheduler lost for a missed heartbeat on a
    # loaded machine comes back within the timeout).
    client.wait_for_workers(2, timeout=60)
    assert len(client.scheduler_info()["workers"]) == 2


def test_collection_to_s3(sources: list[str], monkeypatch) -> None:
    """The target on an S3 server (moto): written by one task per source,
    read back by xarray through s3fs."""
    moto_server = need("moto.server")
    boto3 = need("boto3")
    need("s3fs")
    xr = need("xarray")
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0)
    server.start()
    try:
        host, port = server.get_host_and_port()
        endpoint = f"http://{host}:{port}"
        for name, value in {"AWS_ACCESS_KEY_ID": "key", "AWS_SECRET_ACCESS_KEY": "secret",
                            "AWS_REGION": "us-east-1"}.items():
            monkeypatch.setenv(name, value)
        boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1").create_bucket(
            Bucket="nctk-test")
        nctk.copy(sources, f"{endpoint}/nctk-test/all.zarr#mode=zarr,s3,v3", zarr_format=3)
        got = xr.open_zarr(
            "s3://nctk-test/all.zarr", zarr_format=3,
            storage_options={"endpoint_url": endpoint, "key": "key", "secret": "secret"},
        ).load()
        expected = xr.open_mfdataset(sources, combine="nested", concat_dim="time").load()
        xr.testing.assert_identical(got, expected)
    finally:
        server.stop()
