"""Virtual Zarr: :func:`refs`, kerchunk references to the chunks of
netCDF files (``nctk refs``)."""

from __future__ import annotations

import os
from typing import Sequence

from . import _nctk

__all__ = ["refs"]


def refs(
    inputs: str | os.PathLike | Sequence[str | os.PathLike],
    output: str | os.PathLike,
    *,
    concat_dim: str | None = None,
    chunk_bytes: int | None = None,
    format: str | None = None,
    record_size: int | None = None,
) -> dict[str, int]:
    """Writes kerchunk's reference JSON (version 1), or its Parquet form, for
    ``inputs`` to ``output`` (Rust: ``nctk_tools::refs::refs``; the CLI's ``nctk refs``).

    Each input is a path or URL nctk opens (netCDF-4/HDF5 or classic); the
    references point at it as given, so xarray reads the files through
    ``fsspec``'s reference filesystem without copying a byte::

        nctk.refs(sorted(glob.glob("run/*.nc")), "run.json")
        fs = fsspec.filesystem("reference", fo="run.json")
        ds = xr.open_dataset(fs.get_mapper(""), engine="zarr", consolidated=False)

    Several inputs are one dataset along ``concat_dim`` (default: the first
    input's unlimited dimension), as kerchunk's ``MultiZarrToZarr`` combines
    them; inputs that do not line up raise ``ValueError`` naming the file
    and the variable. ``chunk_bytes`` cuts a variable stored whole and raw
    (a classic file's fixed variable, an HDF5 contiguous dataset) into
    chunks of at most that many bytes along its first dimension, so that a
    reader fetches a part of it. ``format`` is ``"json"`` or ``"parquet"``
    (default: Parquet for an output named ``*.parq`` or ``*.parquet``, else
    JSON); the Parquet form is a directory fsspec's ``LazyReferenceMapper``
    reads (``fsspec.filesystem("reference", fo=DIR)``, with pandas and
    fastparquet or pyarrow), ``record_size`` references per file (default
    100000, as kerchunk's), for millions of references. The output is
    written under a temporary name and renamed when complete. Returns ``{"variables": ..., "chunks": ...}``.
    """
    if isinstance(inputs, (str, os.PathLike)):
        inputs = [inputs]
    return _nctk.refs([os.fspath(i) for i in inputs], os.fspath(output), concat_dim=concat_dim,
                       chunk_bytes=chunk_bytes, format=format, record_size=record_size)
