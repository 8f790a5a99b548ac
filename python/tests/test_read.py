"""nctk.open against netCDF4-python (netCDF-C 4.10.1) and zarr-python on the
conformance corpus: structure, attributes typed as netCDF4-python types
them, every variable's values, and indexing of every kind."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import nctk

from conftest import corpus_dir, missing, need

netCDF4 = need("netCDF4")


# Values netCDF-C does not define: it returns uninitialized memory for them.
UNDEFINED = {
    # Never written, fill off, no storage allocated.
    ("f03tst_open_mem.nc", "/var2"),
}


def _netcdf_files() -> list[Path]:
    """Every upstream netCDF binary of the corpus, and every fifth file
    netCDF-C's ncgen made from the corpus CDL (all three classic kinds)."""
    root = corpus_dir()
    if not root.is_dir():
        return []
    upstream = sorted(
        p
        for sub in ("netcdf-c", "netcdf-java", "xarray", "scipy")
        for p in (root / sub).rglob("*.nc")
        if p.is_file()
    )
    generated = sorted((root / "generated" / "from-cdl").rglob("*.nc"))[::5]
    return upstream + generated


def _peer(path: Path):
    """netCDF4-python's view of ``path``: raw values (no masking, scaling or
    char-to-string), or ``None`` when netCDF-C refuses the file."""
    try:
        ds = netCDF4.Dataset(path)
    except OSError:
        return None
    ds.set_auto_maskandscale(False)
    ds.set_auto_chartostring(False)
    return ds


def assert_same_value(ours, theirs, what: str) -> None:
    """An attribute or array of nctk equals netCDF4-python's, type included."""
    if isinstance(theirs, str) or isinstance(theirs, list):
        assert ours == theirs, what
        return
    theirs_arr = np.asarray(theirs)
    ours_arr = np.asarray(ours)
    if theirs_arr.dtype.kind == "O":
        assert ours_arr.dtype.kind == "O", what
        assert ours_arr.shape == theirs_arr.shape, what
        for a, b in zip(ours_arr.ravel(), theirs_arr.ravel()):
            assert_same_value(a, b, what)
        return
    assert ours_arr.dtype == theirs_arr.dtype, f"{what}: {ours_arr.dtype} != {theirs_arr.dtype}"
    assert ours_arr.shape == theirs_arr.shape, f"{what}: {ours_arr.shape} != {theirs_arr.shape}"
    if theirs_arr.dtype.names:
        # Field by field: the padding between fields holds whatever the
        # writer left there.
        for field in theirs_arr.dtype.names:
            assert_same_value(ours_arr[field], theirs_arr[field], f"{what}.{field}")
    elif theirs_arr.dtype.kind == "f":
        np.testing.assert_array_equal(ours_arr, theirs_arr, err_msg=what)
    else:
        assert ours_arr.tobytes() == theirs_arr.tobytes(), what
    assert type(ours) is type(theirs) or isinstance(ours, np.ndarray), (
        f"{what}: {type(ours)} != {type(theirs)}"
    )


def _compare_group(ours: nctk.Group, theirs, where: str) -> None:
    assert list(ours.dimensions) == list(theirs.dimensions), where
    for name, dim in theirs.dimensions.items():
        assert ours.dimensions[name].size == dim.size, f"{where}/{name}"
        assert ours.dimensions[name].isunlimited() == dim.isunlimited(), f"{where}/{name}"
    assert ours.ncattrs() == theirs.ncattrs(), where
    for name in theirs.ncattrs():
        assert_same_value(ours.attrs[name], theirs.getncattr(name), f"{where} :{name}")
    assert list(ours.variables) == list(theirs.variables), where
    for name, var in theirs.variables.items():
        mine = ours.variables[name]
        what = f"{where}/{name}"
        assert mine.dimensions == var.dimensions, what
        assert mine.shape == var.shape, what
        assert mine.ncattrs() == var.ncattrs(), what
        for a in var.ncattrs():
            assert_same_value(mine.attrs[a], var.getncattr(a), f"{what}:{a}")
        if (var._grp.filepath().rsplit("/", 1)[-1], mine.path) in UNDEFINED:
            continue
        expected = var[...]
        if isinstance(expected, np.ma.MaskedArray):
            expected = expected.data
        assert_same_value(mine[...], np.asarray(expected), what)
    assert list(ours.groups) == list(theirs.groups), where
    for name, sub in theirs.groups.items():
        _compare_group(ours.groups[name], sub, f"{where}/{name}")


@pytest.mark.parametrize("path", _netcdf_files(), ids=lambda p: p.name)
def test_reads_as_netcdf4_python_does(path: Path) -> None:
    peer = _peer(path)
    if peer is None:
        with pytest.raises((OSError, ValueError, NotImplementedError)):
            nctk.open(path)
        return
    with peer, nctk.open(path) as ds:
        assert ds.format == {
            "NETCDF3_CLASSIC": "classic",
            "NETCDF3_64BIT_OFFSET": "64-bit offset",
            "NETCDF3_64BIT_DATA": "cdf5",
            "NETCDF4": "netCDF-4",
            "NETCDF4_CLASSIC": "netCDF-4 classic model",
        }[peer.data_model]
        _compare_group(ds, peer, "")


@pytest.mark.parametrize("cdl", ["ref_niltest.cdl", "ref_tst_h_scalar.cdl"])
def test_null_strings_read_as_netcdf4_python_does(corpus: Path, tmp_path: Path, cdl: str) -> None:
    """Null strings (ncdump's ``NIL``) in data and attributes of files
    netCDF-C's ncgen writes read as netCDF4-python reads them: ``""``."""
    ncgen = shutil.which("ncgen")
    if ncgen is None:
        missing("netCDF-C's ncgen")
    nc = tmp_path / "nil.nc"
    source = corpus / "netcdf-c" / "ncdump" / "cdl" / cdl
    subprocess.run([ncgen, "-k", "nc4", "-o", str(nc), str(source)], check=True)
    peer = _peer(nc)
    with peer, nctk.open(nc) as ds:
        assert ds.ncattrs() == peer.ncattrs()
        for name in peer.ncattrs():
            assert_same_value(ds.attrs[name], peer.getncattr(name), f":{name}")
        for name, var in peer.variables.items():
            mine = ds.variables[name]
            for a in var.ncattrs():
                assert_same_value(mine.attrs[a], var.getncattr(a), f"{name}:{a}")
            # Element by element: netCDF4-python gives a scalar string
            # variable as a bare `str`, nctk as a 0-d object array.
            ours = np.asarray(mine[...]).ravel().tolist()
            assert ours == np.asarray(var[...]).ravel().tolist(), name


def test_the_corpus_is_swept(corpus: Path) -> None:
    """The parametrized sweep above is not empty (it would pass vacuously)."""
    assert len(_netcdf_files()) > 100


KEYS = [
    (0,),
    (-1, slice(None, None, 3)),
    (slice(1, 4), slice(None, None, -2)),
    (Ellipsis, 2),
    ([3, 0, 0, 2], slice(None)),
    (slice(None), np.array([True, False, True, True, False, False])),
    (slice(-3, None), [5, 1]),
    (np.int64(1), Ellipsis, slice(4, 0, -1)),
]


@pytest.fixture(scope="module")
def grid(tmp_path_factory) -> Path:
    """A chunked, compressed netCDF-4 file and its values, written by
    netCDF4-python."""
    path = tmp_path_factory.mktemp("grid") / "grid.nc"
    values = np.arange(5 * 6, dtype="f8").reshape(5, 6) * 1.5
    with netCDF4.Dataset(path, "w") as ds:
        ds.createDimension("t", None)
        ds.createDimension("x", 6)
        v = ds.createVariable("v", "f8", ("t", "x"), zlib=True, chunksizes=(2, 4))
        v[:] = values
    return path


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_indexing_as_numpy_outer_indexing(grid: Path, key) -> None:
    with netCDF4.Dataset(grid) as peer, nctk.open(grid) as ds:
        expected = peer["v"][key]
        got = ds["v"][key]
        np.testing.assert_array_equal(got, np.ma.getdata(expected))
        assert np.shape(got) == np.shape(expected)


def test_sparse_integer_index_reads_only_what_it_asks(tmp_path: Path) -> None:
    """Indices far apart along a long axis: the values of those indices, in
    the order and with the repeats asked (as netCDF4-python)."""
    path = tmp_path / "long.nc"
    with netCDF4.Dataset(path, "w") as nc:
        nc.createDimension("n", 200_000)
        nc.createVariable("v", "i4", ("n",))[:] = np.arange(200_000, dtype="i4")
    with nctk.open(path) as ds:
        idx = [199_999, 3, 100_000, 3]
        np.testing.assert_array_equal(ds["v"][idx], np.array(idx, dtype="i4"))


def test_bad_keys_raise_index_error(grid: Path) -> None:
    with nctk.open(grid) as ds:
        v = ds["v"]
        for key in [(5,), (0, 6), (0, 0, 0), (slice(None), [7]), (None,)]:
            with pytest.raises(IndexError):
                v[key]
