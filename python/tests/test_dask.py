"""dask.distributed past one machine: ``xr.open_mfdataset(urls,
engine="nctk", parallel=True, chunks={})`` of 52 netCDF-4 files on moto's S3
server, on a LocalCluster of two worker processes on loopback (the same
code as on a real cluster). Each worker opens its files itself; the graph
holds no data; a reduction equals the one engine="netcdf4" computes from
local copies."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest

import nctk

from conftest import need

xr = need("xarray")
distributed = need("distributed")

N_FILES = 52


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> list[Path]:
    """52 netCDF-4 files, two time steps each, written by xarray."""
    folder = tmp_path_factory.mktemp("mf")
    rng = np.random.default_rng(5)
    paths = []
    for i in range(N_FILES):
        ds = xr.Dataset(
            {
                "t2m": (("time", "lat", "lon"), rng.random((2, 18, 36)).astype("f4")),
                "flag": (("time",), np.array([i % 3, 1], dtype="i2")),
            },
            coords={
                "time": np.array([2 * i, 2 * i + 1], dtype="f8"),
                "lat": np.linspace(-85, 85, 18),
                "lon": np.linspace(0, 350, 36),
            },
            attrs={"source": f"file {i}"},
        )
        ds["t2m"].attrs["units"] = "K"
        path = folder / f"part_{i:03d}.nc"
        ds.to_netcdf(path, engine="netcdf4", encoding={"t2m": {"zlib": True, "complevel": 1}})
        paths.append(path)
    return paths


def test_open_mfdataset_on_a_cluster_over_s3(moto, files: list[Path]) -> None:
    moto.bucket("mfdataset")
    urls = [moto.upload(p, "mfdataset", p.name) + "#mode=bytes,s3" for p in files]
    with xr.open_mfdataset(files, engine="netcdf4", combine="by_coords") as local:
        expected = local["t2m"].mean("time").values
        expected_flag = local["flag"].sum().values
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=2, processes=True, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        ds = xr.open_mfdataset(urls, engine="nctk", parallel=True, chunks={}, combine="by_coords")
        assert ds.sizes["time"] == 2 * N_FILES
        # The workers opened the files; the client, which got their
        # datasets back, opened none of them.
        assert not nctk._dataset._REOPENED
        # The graph names files, not values: a few KB per file at most.
        graph = pickle.dumps(dict(ds["t2m"].data.__dask_graph__()))
        assert len(graph) < 8_000 * N_FILES, len(graph)
        with distributed.get_task_stream(client) as stream:
            mean = ds["t2m"].mean("time").compute()
            flag = ds["flag"].sum().compute()
        # Both worker processes read files (each opens its own).
        assert len({task["worker"] for task in stream.data}) == 2
        ds.close()
    np.testing.assert_array_equal(mean.values, expected)
    assert flag.values == expected_flag
