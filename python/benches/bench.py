"""Benchmarks of the Python package beside its peers, in one run (issue 26).

Run from the repository root, with the package installed in release mode
(``pip install ./python``) and the peers (netCDF4, h5netcdf, hidefix, dask,
distributed)::

    python3 python/benches/bench.py [read] [mfdataset] [dask] [threads] [copy]

(no argument: all). Data lives in ``$NCTK_BENCH_DATA`` (default
``bench-data/``): the 415 MB field ``temp(100, 721, 1440)`` float32 as
netCDF-4 with zlib level 1 + shuffle, chunks (1, 721, 1440)
(``nc4_temp_zlib1_shuffle.nc``, which ``cargo bench -p nctk --bench
hdf5_read`` makes with nccopy), and files this script makes once beside it.
Each section prints a markdown table: best of N wall times and the ratio to
nctk. Values are compared between engines before timing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable

import numpy as np

# Imported (not defined in __main__), so that dask's tokenizing pickles the
# engine by reference, not with the files' data.
sys.path.insert(0, str(Path(__file__).resolve().parent))
import memory_engine  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
DATA = Path(os.environ.get("NCTK_BENCH_DATA", REPO / "bench-data"))
FIELD = DATA / "nc4_temp_zlib1_shuffle.nc"


def best(f: Callable[[], object], runs: int) -> float:
    """The best wall time of ``runs`` calls of ``f``."""
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def table(title: str, rows: list[tuple[str, float]], ours: str = "nctk") -> None:
    """A markdown table of ``rows`` (label, seconds) with each row's ratio
    to the row labelled ``ours``."""
    ref = dict(rows)[ours]
    print(f"\n| {title} | best (s) | vs {ours} |")
    print("| --- | --- | --- |")
    for label, t in rows:
        ratio = "" if label == ours else f"{ours} {t / ref:.2f}x faster"
        print(f"| {label} | {t:.3f} | {ratio} |")
    sys.stdout.flush()


def need_field() -> Path:
    if not FIELD.exists():
        sys.exit(f"{FIELD} is missing: run `cargo bench -p nctk --bench hdf5_read` once to make it")
    return FIELD


def bench_read() -> None:
    """``xr.open_dataset(f, engine=E)["temp"].values`` of the 415 MB field:
    nctk, netcdf4, hidefix, and the same read through the Rust crate."""
    import xarray as xr

    field = need_field()

    def read(engine: str) -> Callable[[], np.ndarray]:
        def run() -> np.ndarray:
            with xr.open_dataset(field, engine=engine, cache=False, mask_and_scale=False) as ds:
                return ds["temp"].values

        return run

    expected = read("netcdf4")()
    for engine in ("nctk", "hidefix"):
        np.testing.assert_array_equal(read(engine)(), expected)
    del expected
    rows = [(engine, best(read(engine), 5)) for engine in ("nctk", "netcdf4", "hidefix")]
    crate = subprocess.run(
        ["cargo", "bench", "-q", "-p", "nctk", "--bench", "read_variable", "--", str(field), "temp", "5"],
        cwd=REPO,
        check=True,
        capture_output=True,
        text=True,
    )
    rows.append(("Rust crate (Variable::get_values)", float(crate.stdout.split()[-1])))
    table('`xr.open_dataset(f, engine=E)["temp"].values`, 415 MB netCDF-4 zlib-1 + shuffle', rows)
    rust = rows[-1][1]
    print(f"\nnctk engine / Rust crate: {rows[0][1] / rust:.2f}")


def small_files(n: int) -> list[Path]:
    """``n`` small netCDF-4 files (one day each of a 4 x 90 x 180 field,
    three variables and coordinates), made once with netCDF4-python."""
    import netCDF4

    folder = DATA / f"small_nc4_{n}"
    files = [folder / f"day_{i:03d}.nc" for i in range(n)]
    if all(f.exists() for f in files):
        return files
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(1)
    for i, f in enumerate(files):
        with netCDF4.Dataset(f, "w") as ds:
            ds.createDimension("time", None)
            ds.createDimension("lat", 90)
            ds.createDimension("lon", 180)
            t = ds.createVariable("time", "f8", ("time",))
            t.units = "hours since 2000-01-01"
            t[:] = np.arange(4) * 6 + 24 * i
            ds.createVariable("lat", "f4", ("lat",))[:] = np.linspace(-89, 89, 90)
            ds.createVariable("lon", "f4", ("lon",))[:] = np.linspace(0, 358, 180)
            for name in ("t2m", "u10", "v10"):
                v = ds.createVariable(name, "f4", ("time", "lat", "lon"), zlib=True, complevel=1)
                v.units = "K" if name == "t2m" else "m s-1"
                v[:] = rng.random((4, 90, 180)).astype("f4")
    return files


def bench_mfdataset() -> None:
    """``xr.open_mfdataset`` of 200 small netCDF-4 files (opening
    dominates), with its floor: the same files already in memory."""
    import xarray as xr

    files = small_files(200)
    engines = {"nctk": "nctk", "netcdf4": "netcdf4", "h5netcdf": "h5netcdf"}
    engines["floor: xarray's own work (files already in memory)"] = memory_engine.load(files)

    def open_all(engine) -> Callable[[], object]:
        def run() -> object:
            with xr.open_mfdataset(files, engine=engine, combine="by_coords") as ds:
                return ds["t2m"].shape

        return run

    shapes = {open_all(e)() for e in engines.values()}
    assert len(shapes) == 1, shapes
    rows = [(label, best(open_all(e), 3)) for label, e in engines.items()]
    table("`xr.open_mfdataset` of 200 small netCDF-4 files", rows)
    times = dict(rows)
    floor = times["floor: xarray's own work (files already in memory)"]
    print(
        f"\nnctk / floor: {times['nctk'] / floor:.2f}; the most any engine can be faster "
        f"than netcdf4 here: {times['netcdf4'] / floor:.2f}x, than h5netcdf: {times['h5netcdf'] / floor:.2f}x"
    )


def bench_dask() -> None:
    """The mean over time of the field with dask: chunks of 10 steps,
    threads on both cores."""
    import dask
    import xarray as xr

    field = need_field()

    def mean(engine: str) -> Callable[[], np.ndarray]:
        def run() -> np.ndarray:
            with dask.config.set(scheduler="threads", num_workers=2):
                with xr.open_dataset(field, engine=engine, chunks={"time": 10}) as ds:
                    return ds["temp"].mean("time").values

        return run

    np.testing.assert_allclose(mean("nctk")(), mean("netcdf4")(), rtol=1e-6)
    rows = [(e, best(mean(e), 3)) for e in ("nctk", "netcdf4")]
    table("mean over time with dask (chunks of 10 steps, 2 threads)", rows)


def two_variables() -> Path:
    """The field's first and last 50 steps as two variables of one netCDF-4
    file (zlib-1 + shuffle, chunks (1, 721, 1440)), made once."""
    import netCDF4

    path = DATA / "nc4_two_vars.nc"
    if path.exists():
        return path
    with netCDF4.Dataset(need_field()) as src, netCDF4.Dataset(path, "w") as dst:
        for name in ("lat", "lon"):
            dst.createDimension(name, len(src.dimensions[name]))
        dst.createDimension("time", 50)
        for i, name in enumerate(("a", "b")):
            v = dst.createVariable(
                name, "f4", ("time", "lat", "lon"), zlib=True, complevel=1, shuffle=True,
                chunksizes=(1, 721, 1440),
            )
            v[:] = src["temp"][i * 50 : (i + 1) * 50]
    return path


def _thread_times() -> tuple[float, float, float]:
    """Best times of one thread reading both variables and of two threads
    reading one each, and the CPU time (user + system) of the fastest
    one-thread read."""
    import resource

    import nctk

    ds = nctk.open(two_variables())

    def one_thread() -> None:
        ds["a"][...]
        ds["b"][...]

    def two_threads() -> None:
        threads = [threading.Thread(target=lambda n=n: ds[n][...]) for n in ("a", "b")]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    def cpu() -> float:
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime + r.ru_stime

    one, one_cpu = float("inf"), 0.0
    for _ in range(3):
        c, t = cpu(), time.perf_counter()
        one_thread()
        wall = time.perf_counter() - t
        if wall < one:
            one, one_cpu = wall, cpu() - c
    return one, best(two_threads, 3), one_cpu


def bench_threads() -> None:
    """Two Python threads reading different variables against one thread
    reading both: as nctk runs (each read decodes on every core), and with
    each read kept to one core (``RAYON_NUM_THREADS=1``), where two threads
    can only be faster if nothing (no lock, no GIL) serializes them. The
    floor of two threads is the one-thread read's CPU time spread over
    every core: no reader can do the same work faster."""
    rows = [("each read on every core (default)", _thread_times())]
    child = subprocess.run(
        [sys.executable, __file__, "_thread_times"],
        env={**os.environ, "RAYON_NUM_THREADS": "1"},
        check=True,
        capture_output=True,
        text=True,
    )
    rows.append(("each read on one core (`RAYON_NUM_THREADS=1`)", tuple(float(x) for x in child.stdout.split()[-3:])))
    cores = os.cpu_count() or 1
    print(
        "\n| two variables of 208 MB, netCDF-4 zlib-1 + shuffle | one thread, a then b (s) "
        "| its CPU time (s) | two threads, one each (s) | two vs one | floor: CPU time / cores (s) | best possible two vs one |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for label, (one, two, cpu) in rows:
        floor = cpu / cores
        print(f"| {label} | {one:.3f} | {cpu:.3f} | {two:.3f} | {one / two:.2f}x | {floor:.3f} | {one / floor:.2f}x |")


#: The engine of the collection copy's peer. netCDF4-python fails on the
#: cluster's worker processes here ("NetCDF: HDF error" / "Can't open HDF5
#: attribute" when they read the files it opened), so h5netcdf reads them.
PEER_ENGINE = "h5netcdf"


def bench_copy() -> None:
    """The parallel copy of 50 files to one Zarr store on a 2-worker
    cluster, against ``xr.open_mfdataset(...).to_zarr(...)`` on it."""
    import nctk
    import xarray as xr
    from dask.distributed import Client, LocalCluster

    files = small_files(50)
    out = Path(tempfile.mkdtemp(prefix="nctk-bench-copy-"))
    try:
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True) as cluster, Client(cluster) as client:

            def ours() -> None:
                target = out / "nctk.zarr"
                shutil.rmtree(target, ignore_errors=True)
                nctk.copy([str(f) for f in files], str(target), concat_dim="time", client=client)

            def theirs() -> None:
                target = out / "xarray.zarr"
                shutil.rmtree(target, ignore_errors=True)
                with xr.open_mfdataset(files, engine=PEER_ENGINE, parallel=True, combine="by_coords") as ds:
                    ds.to_zarr(target, zarr_format=3, compute=True)

            ours()
            theirs()
            with xr.open_zarr(out / "nctk.zarr") as a, xr.open_zarr(out / "xarray.zarr") as b:
                xr.testing.assert_equal(a, b)
            rows = [("nctk", best(ours, 3)), ("xarray open_mfdataset + to_zarr", best(theirs, 3))]
        table("50 files -> one Zarr store on a 2-worker LocalCluster", rows)
    finally:
        shutil.rmtree(out, ignore_errors=True)


SECTIONS = {
    "read": bench_read,
    "mfdataset": bench_mfdataset,
    "dask": bench_dask,
    "threads": bench_threads,
    "copy": bench_copy,
}

if __name__ == "__main__":
    import importlib.metadata as md

    versions = ", ".join(
        f"{p} {md.version(p)}" for p in ("nctk", "xarray", "netCDF4", "h5netcdf", "hidefix", "dask", "numpy")
    )
    print(f"peers: {versions}; {os.cpu_count()} CPUs")
    if sys.argv[1:] == ["_thread_times"]:
        print(*_thread_times())
        sys.exit()
    for name in sys.argv[1:] or list(SECTIONS):
        SECTIONS[name]()
