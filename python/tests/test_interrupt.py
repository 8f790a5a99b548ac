"""Ctrl-C stops a long read within a second: a read of a 128 MB file from
moto's S3 server over ``#mode=bytes`` (seconds long) is interrupted with
SIGINT and the process raises KeyboardInterrupt and exits promptly."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np

from conftest import need

READER = textwrap.dedent(
    """
    import sys, time, nctk
    ds = nctk.open(sys.argv[1])
    v = ds["v"]
    print("reading", flush=True)
    t = time.monotonic()
    try:
        v[...]
    except KeyboardInterrupt:
        print("interrupted", flush=True)
        raise
    print(f"done {time.monotonic() - t:.2f}", flush=True)
    """
)


def test_ctrl_c_stops_a_long_read_within_a_second(moto, tmp_path: Path) -> None:
    netCDF4 = need("netCDF4")
    path = tmp_path / "big.nc"
    with netCDF4.Dataset(path, "w", format="NETCDF3_64BIT_OFFSET") as ds:
        ds.createDimension("t", 32)
        ds.createDimension("x", 1 << 20)
        ds.createVariable("v", "f4", ("t", "x"))[:] = np.ones((32, 1 << 20), "f4")
    moto.bucket("interrupt")
    url = moto.upload(path, "interrupt", "big.nc") + "#mode=bytes,s3"
    child = subprocess.Popen(
        [sys.executable, "-c", READER, url],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )
    assert child.stdout.readline().strip() == "reading"
    time.sleep(1.0)
    assert child.poll() is None, "the read ended within a second: too short to interrupt"
    sent = time.monotonic()
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=30)
    elapsed = time.monotonic() - sent
    assert "interrupted" in out, (out, err)
    assert "KeyboardInterrupt" in err
    assert elapsed < 1.0, f"the read stopped {elapsed:.2f} s after Ctrl-C"
