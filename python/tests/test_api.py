"""The package's behaviour apart from values: errors as the exceptions
their kind calls for, many threads reading one dataset, pickling to other
processes, closing."""

from __future__ import annotations

import concurrent.futures
import json
import multiprocessing
import pickle
from pathlib import Path

import numpy as np
import pytest

import nctk

from conftest import need

netCDF4 = need("netCDF4")


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> Path:
    """A netCDF-4 file of three compressed, chunked variables, written by
    netCDF4-python."""
    path = tmp_path_factory.mktemp("api") / "sample.nc"
    rng = np.random.default_rng(3)
    with netCDF4.Dataset(path, "w") as ds:
        ds.createDimension("t", None)
        ds.createDimension("y", 40)
        ds.createDimension("x", 50)
        for name in ("a", "b", "c"):
            v = ds.createVariable(name, "f4", ("t", "y", "x"), zlib=True, chunksizes=(1, 20, 25))
            v[:] = rng.random((12, 40, 50)).astype("f4")
            v.units = "K"
    return path


def test_missing_file_is_file_not_found(tmp_path: Path) -> None:
    missing = tmp_path / "missing.nc"
    with pytest.raises(FileNotFoundError, match="missing.nc"):
        nctk.open(missing)


def test_corrupt_file_is_corrupt_data_naming_file_and_offset(tmp_path: Path, sample: Path) -> None:
    """A classic file cut inside its header: nctk.CorruptDataError (an
    OSError, as netCDF4-python raises for corrupt files) naming the file
    and an offset."""
    classic = tmp_path / "classic.nc"
    with netCDF4.Dataset(classic, "w", format="NETCDF3_CLASSIC") as ds:
        ds.createDimension("x", 4)
        ds.createVariable("v", "i4", ("x",))[:] = np.arange(4)
        ds.title = "a title long enough to cut"
    cut = tmp_path / "cut.nc"
    cut.write_bytes(classic.read_bytes()[:40])
    with pytest.raises(nctk.CorruptDataError, match=r"cut\.nc.*(byte|offset) \d+") as e:
        nctk.open(cut)
    assert isinstance(e.value, OSError) and isinstance(e.value, nctk.NctkError)
    # netCDF-C refuses it too.
    with pytest.raises(OSError):
        netCDF4.Dataset(cut)


def test_unknown_codec_is_not_implemented_naming_array_and_codec(tmp_path: Path) -> None:
    zarr = need("zarr")
    store = tmp_path / "x.zarr"
    root = zarr.open_group(store, mode="w", zarr_format=2)
    root.create_array("v", shape=(4,), chunks=(2,), dtype="i4")[:] = [1, 2, 3, 4]
    meta_path = store / "v" / ".zarray"
    meta = json.loads(meta_path.read_text())
    meta["compressor"] = {"id": "nosuchcodec"}
    meta_path.write_text(json.dumps(meta))
    with nctk.open(store) as ds:
        with pytest.raises(NotImplementedError, match="nosuchcodec"):
            ds["v"][...]


def test_reading_a_closed_dataset_is_value_error(sample: Path) -> None:
    ds = nctk.open(sample)
    v = ds["a"]
    ds.close()
    assert not ds.isopen()
    with pytest.raises(ValueError, match="closed"):
        v[0]


def test_unknown_option_is_type_error(sample: Path) -> None:
    with pytest.raises(TypeError, match="colour"):
        nctk.open(sample, colour="red")


def test_many_threads_read_one_dataset(sample: Path) -> None:
    """Eight threads reading slabs of three variables of one dataset at once
    get what netCDF4-python reads, one slab at a time."""
    with netCDF4.Dataset(sample) as peer:
        expected = {n: peer[n][...].data for n in ("a", "b", "c")}
    keys = [(n, t) for n in ("a", "b", "c") for t in range(12)] * 4
    with nctk.open(sample) as ds, concurrent.futures.ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda k: ds[k[0]][k[1], 3:37, ::3], keys))
    for (name, t), got in zip(keys, results):
        np.testing.assert_array_equal(got, expected[name][t, 3:37, ::3])


def _read_pickled(blob: bytes) -> float:
    obj = pickle.loads(blob)
    if isinstance(obj, nctk.Dataset):
        obj = obj["b"]
    return float(obj[...].astype("f8").sum())


def test_datasets_and_variables_pickle_to_other_processes(sample: Path) -> None:
    with nctk.open(sample) as ds, netCDF4.Dataset(sample) as peer:
        expected = float(peer["b"][...].data.astype("f8").sum())
        blobs = [pickle.dumps(ds), pickle.dumps(ds["b"])]
        # Small: the target and options, not the values.
        assert all(len(b) < 1000 for b in blobs)
        ctx = multiprocessing.get_context("spawn")
        with concurrent.futures.ProcessPoolExecutor(2, mp_context=ctx) as pool:
            sums = list(pool.map(_read_pickled, blobs))
    assert sums == [expected, expected]


def test_attributes_and_storage(sample: Path) -> None:
    with nctk.open(sample) as ds, netCDF4.Dataset(sample) as peer:
        v = ds["a"]
        assert v.attrs == {"units": "K"}
        assert v.chunking() == peer["a"].chunking()
        filters = peer["a"].filters()
        assert v.storage["deflate_level"] == filters["complevel"]
        assert v.storage["shuffle"] == filters["shuffle"]
        assert ds.dimensions["t"].isunlimited() and len(ds.dimensions["t"]) == 12
        assert ds.format == "netCDF-4"


def test_access_refused_is_permission_error() -> None:
    """A server that answers 403 (an HTTP server on loopback): the URL and
    the refusal in a PermissionError."""
    import http.server
    import threading

    class Refuse(http.server.BaseHTTPRequestHandler):
        def _refuse(self) -> None:
            self.send_response(403)
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_GET = do_HEAD = _refuse

        def log_message(self, *args) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Refuse)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_port}/private.nc#mode=bytes"
        with pytest.raises(PermissionError, match="private.nc"):
            nctk.open(url)
    finally:
        server.shutdown()
