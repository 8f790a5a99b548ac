"""Virtual Zarr: :func:`refs`, kerchunk references to the chunks of
netCDF files (``nctk refs``)."""

from __future__ import annotations

import os
from typing import Any, Sequence

from . import _nctk
from ._copy import _reporter, _TqdmSteps

__all__ = ["refs"]


def refs(
    inputs: str | os.PathLike | Sequence[str | os.PathLike],
    output: str | os.PathLike,
    *,
    concat_dim: str | None = None,
    chunk_bytes: int | None = None,
    format: str | None = None,
    record_size: int | None = None,
    window: int | None = None,
    progress: Any = None,
) -> dict[str, int]:
    """Writes kerchunk's reference JSON (version 1), or its Parquet form, for
    ``inputs`` to ``output`` (Rust: ``nctk_tools::refs::refs``; the CLI's ``nctk refs``).

    Each input is a path or URL nctk opens (netCDF-4/HDF5, classic,
    block-compressed classic, or an NCZarr/Zarr store); the references
    point at a file as given and at a store's chunk objects by absolute
    path or URL, so xarray reads the files through
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
    reader fetches a part of it. ``format`` is ``"json"``, ``"parquet"`` or
    ``"icechunk"`` (default: Parquet for an output named ``*.parq`` or
    ``*.parquet``, Icechunk for ``*.icechunk``, else JSON). The Parquet form
    is a directory fsspec's ``LazyReferenceMapper`` reads
    (``fsspec.filesystem("reference", fo=DIR)``, with pandas and fastparquet
    or pyarrow), ``record_size`` references per file (default 100000, as
    kerchunk's), for millions of references. The Icechunk form is a
    repository (a directory; on-disk spec version 1, which icechunk 1.x for
    Python reads): the same references as virtual chunks of
    branch ``main``, as Zarr v3, each place the inputs live (a local
    directory ``file:///dir/``, a server ``http://host:port/``, a bucket
    ``s3://bucket/``) a virtual chunk container that readers authorise::

        nctk.refs(files, "run.icechunk")
        repo = icechunk.Repository.open(icechunk.local_filesystem_storage("run.icechunk"),
                                        authorize_virtual_chunk_access={"file:///data/run/": None})
        ds = xr.open_zarr(repo.readonly_session("main").store, consolidated=False)

    An Icechunk output may also be a prefix on S3 (``s3://bucket/prefix``,
    ``http://host:9000/bucket/prefix#mode=s3``), reached with the region,
    endpoint and credentials nctk's S3 stores use; a prefix that holds
    anything is refused, and a failure deletes what it wrote. An input on
    S3 is referenced in an Icechunk repository as ``s3://bucket/key``, its
    bucket's container carrying its region and endpoint.

    The inputs are read ``window`` at a time (default 64) and closed, so
    the memory and open files of any number of inputs are those of one
    window (JSON holds its document whole; Parquet files are written as
    their records fill; Icechunk's session holds its changes until the
    commit).

    ``progress=True`` draws a progress bar with tqdm (each input opened,
    then each variable referenced across the inputs, is a step); a callable
    gets ``(event, name, n)``: ``("total", "", steps)`` (again once the
    inputs' variables are counted), ``("advance", input or variable, 1)``,
    ``("finish", "", 0)``. The output is written under a temporary name and
    renamed when complete. Returns ``{"variables": ..., "chunks": ...}``.
    """
    if isinstance(inputs, (str, os.PathLike)):
        inputs = [inputs]
    return _nctk.refs([os.fspath(i) for i in inputs], os.fspath(output), concat_dim=concat_dim,
                       chunk_bytes=chunk_bytes, format=format, record_size=record_size,
                       window=window,
                       progress=_reporter(progress, os.path.basename(os.fspath(output)), _TqdmSteps))
