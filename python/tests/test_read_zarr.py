"""nctk.open on Zarr stores against zarr-python: the zarr-python v2
fixtures and edge cases of the corpus, and Zarr v3 stores zarr-python 3
writes here (sharded, every codec kind, strings)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import nctk

from conftest import corpus_dir, need

zarr = need("zarr")


def _v2_stores() -> list[Path]:
    """The zarr-python fixture store, and xarray's and zarr-python's v2 cases."""
    root = corpus_dir()
    if not root.is_dir():
        return []
    cases = root / "generated" / "other-writers" / "zarr-python-v2" / "cases"
    return [root / "zarr-python" / "fixture"] + sorted(cases.glob("*.zarr"))


def _arrays(group, prefix: str = ""):
    """Every array of a zarr-python group, by path."""
    for name, arr in group.arrays():
        yield f"{prefix}/{name}", arr
    for name, sub in group.groups():
        yield from _arrays(sub, f"{prefix}/{name}")


def _compare(store: Path, url: str | None = None) -> int:
    """Every array of ``store`` that nctk exposes reads as zarr-python reads
    it; the number compared."""
    group = zarr.open_group(store, mode="r")
    compared = 0
    with nctk.open(url or store) as ds:
        for path, arr in _arrays(group):
            if path not in ds:
                continue
            var = ds[path]
            expected = arr[...]
            got = var[...]
            assert got.shape == expected.shape, path
            if expected.dtype.kind in "US":
                # Fixed-width strings read as netCDF strings (v2 `|S`/`<U`
                # as char or string, as netCDF-C maps them).
                continue
            if expected.dtype == bool:
                expected = expected.astype("u1") if got.dtype == np.uint8 else expected.astype("i1")
            np.testing.assert_array_equal(got, expected, err_msg=f"{store}{path}")
            compared += 1
    return compared


@pytest.mark.parametrize("store", _v2_stores(), ids=lambda p: p.name)
def test_v2_reads_as_zarr_python(store: Path) -> None:
    if store.suffix != ".zarr" and not (store / ".zgroup").exists():
        pytest.skip("not a group store")
    try:
        zarr.open_group(store, mode="r")
    except Exception:
        with pytest.raises((OSError, ValueError, NotImplementedError)):
            nctk.open(store)
        return
    try:
        ds = nctk.open(store)
    except (ValueError, NotImplementedError) as e:
        # nctk refuses what netCDF-C refuses too, by name (the .err files).
        assert (store.parent / f"{store.name}.err").exists(), f"{store}: {e}"
        return
    ds.close()
    _compare(store)


def test_v2_fixtures_compare_values(corpus: Path) -> None:
    assert _compare(corpus / "zarr-python" / "fixture") > 50


@pytest.fixture(scope="module")
def v3_store(tmp_path_factory) -> Path:
    """A Zarr v3 group written by zarr-python 3: numbers of every width,
    bool, sharded and unsharded, gzip/zstd/crc32c, strings, a fill value,
    dimension names, a nested group."""
    path = tmp_path_factory.mktemp("v3") / "x.zarr"
    root = zarr.open_group(path, mode="w", zarr_format=3)
    rng = np.random.default_rng(7)
    for dtype in ["i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8", "f4", "f8"]:
        a = root.create_array(
            f"n_{dtype}",
            shape=(7, 9),
            chunks=(3, 4),
            dtype=dtype,
            dimension_names=["y", "x"],
            fill_value=3,
        )
        a[:5] = (rng.random((5, 9)) * 100).astype(dtype)
    sharded = root.create_array(
        "sharded",
        shape=(20, 12),
        chunks=(2, 3),
        shards=(10, 6),
        dtype="f4",
        dimension_names=["t", "x2"],
        compressors=zarr.codecs.ZstdCodec(level=1),
    )
    sharded[:] = rng.random((20, 12)).astype("f4")
    gz = root.create_array(
        "gz",
        shape=(11,),
        chunks=(4,),
        dtype="i4",
        dimension_names=["k"],
        compressors=zarr.codecs.GzipCodec(),
    )
    gz[:] = np.arange(11, dtype="i4") * -3
    flags = root.create_array("flags", shape=(5,), chunks=(2,), dtype=bool, dimension_names=["f"])
    flags[:] = [True, False, True, True, False]
    sub = root.create_group("sub")
    s = sub.create_array("s", shape=(4,), chunks=(2,), dtype=str, dimension_names=["m"])
    s[:] = np.array(["a", "", "über", "zz"], dtype=object)
    return path


def test_v3_reads_as_zarr_python(v3_store: Path) -> None:
    group = zarr.open_group(v3_store, mode="r")
    with nctk.open(v3_store) as ds:
        for path, arr in _arrays(group):
            got = ds[path][...]
            expected = arr[...]
            if expected.dtype.kind == "T" or expected.dtype == object:
                assert list(got.ravel()) == list(np.asarray(expected, dtype=object).ravel()), path
                continue
            if expected.dtype == bool:
                # Zarr's bool reads as netCDF-C reads it: a byte of 0 or 1.
                expected = expected.astype(got.dtype)
            np.testing.assert_array_equal(got, expected, err_msg=path)
        assert ds["sharded"].storage["shards"] == [10, 6]
        assert ds["sharded"].storage["chunksizes"] == [2, 3]
        # Selections of a sharded array cross shards and inner chunks.
        np.testing.assert_array_equal(
            ds["sharded"][3:17:4, ::-5], group["sharded"][...][3:17:4, ::-5]
        )
