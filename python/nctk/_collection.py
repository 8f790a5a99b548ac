"""A collection of files into one Zarr store, in parallel:
:func:`copy_collection` (``nctk.copy(sources, target, concat_dim=...)``).

The target's metadata is written once, from the sources' metadata (the
variables along ``concat_dim`` at the sum of the sources' lengths); then
one task per source writes its own region of the target: a thread, or a
dask task on the client's cluster. Each task opens its source and the
target by URL itself (only the small plan travels) and writes into the
store in place (``nctk.create(..., existing=True)``). The regions never
share a chunk: chunks along ``concat_dim`` divide every source's offset.
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any, Iterable

import numpy as np

from ._dataset import Dataset, open
from ._write import WritableDataset, create

__all__ = ["copy_collection"]

# Chunks along the concatenated dimension hold at most about this many bytes
# when the caller does not choose them, and a task reads about this much at once.
_CHUNK_BYTES = 32 << 20


def _same(a: Any, b: Any) -> bool:
    """Attribute values compared as values (arrays element-wise, NaN equal)."""
    if isinstance(a, (str, bytes)) or isinstance(b, (str, bytes)):
        return a == b
    x, y = np.asarray(a), np.asarray(b)
    if x.shape != y.shape or x.dtype.kind != y.dtype.kind:
        return False
    if x.dtype.kind == "f":
        return bool(np.array_equal(x, y, equal_nan=True))
    return bool(np.array_equal(x, y))


def _describe(source: str, concat_dim: str) -> dict[str, Any]:
    """What the plan needs of one source: its variables and dimensions."""
    with open(source) as ds:
        if ds.groups:
            raise NotImplementedError(f"{source}: a collection copy takes datasets without groups")
        if concat_dim not in ds.dimensions:
            raise ValueError(f"{source} has no dimension {concat_dim!r} to concatenate along")
        variables = {}
        for name, v in ds.variables.items():
            if v.kind not in ("numeric", "char", "string"):
                raise NotImplementedError(
                    f"{source}: variable {name} is of a {v.kind} type, which a collection "
                    "copy does not take"
                )
            code = "str" if v.kind == "string" else ("S1" if v.kind == "char" else v.dtype.str[1:])
            variables[name] = {
                "dtype": code,
                "dims": list(v.dimensions),
                "shape": list(v.shape),
                "attrs": dict(v.attrs),
                "chunks": v.storage.get("chunksizes"),
                "itemsize": v.dtype.itemsize if v.kind != "string" else 8,
            }
        return {
            "length": ds.dimensions[concat_dim].size,
            "dims": {d.name: d.size for d in ds.dimensions.values()},
            "attrs": dict(ds.attrs),
            "vars": variables,
        }


def _check_alike(first: dict, other: dict, source: str, concat_dim: str) -> None:
    """Refuses a source whose definitions differ from the first's where
    the concatenation needs them equal."""
    for dim, size in first["dims"].items():
        if dim != concat_dim and other["dims"].get(dim) != size:
            raise ValueError(
                f"{source}: dimension {dim} has length {other['dims'].get(dim)}, "
                f"the first source's {size}"
            )
    if set(first["vars"]) != set(other["vars"]):
        raise ValueError(
            f"{source}: variables {sorted(other['vars'])} differ from the first source's "
            f"{sorted(first['vars'])}"
        )
    for name, v in first["vars"].items():
        w = other["vars"][name]
        if (v["dtype"], v["dims"]) != (w["dtype"], w["dims"]):
            raise ValueError(f"{source}: variable {name} differs in type or dimensions")
        if concat_dim in v["dims"]:
            for key in set(v["attrs"]) | set(w["attrs"]):
                if key not in v["attrs"] or key not in w["attrs"] or not _same(
                    v["attrs"][key], w["attrs"][key]
                ):
                    raise ValueError(
                        f"{source}: attribute {name}:{key} differs from the first source's, "
                        "so the stored values would not concatenate (give the sources one "
                        "encoding, such as one time unit)"
                    )


def _concat_chunk(step: int, row_bytes: int) -> int:
    """The largest divisor of ``step`` whose chunk holds at most
    ``_CHUNK_BYTES`` (at least 1)."""
    best = 1
    for d in range(1, math.isqrt(step) + 1):
        if step % d == 0:
            for c in (d, step // d):
                if c * row_bytes <= _CHUNK_BYTES and c > best:
                    best = c
    return best


def _plan(
    descs: list[dict], sources: list[str], concat_dim: str, chunks: dict[str, int] | None,
    storage: dict[str, Any],
) -> dict[str, Any]:
    """The target's definitions, from the sources' descriptions."""
    first = descs[0]
    for d, s in zip(descs[1:], sources[1:]):
        _check_alike(first, d, s, concat_dim)
    lengths = [d["length"] for d in descs]
    offsets = [0] + list(np.cumsum(lengths[:-1]).tolist())
    chunks = dict(chunks or {})
    if concat_dim in chunks:
        step = int(chunks[concat_dim])
        bad = [s for s, o in zip(sources, offsets) if o % step]
        if bad:
            raise ValueError(
                f"chunks of {step} along {concat_dim} would be shared by two sources' regions "
                f"({bad[0]} starts at {offsets[sources.index(bad[0])]}): choose a length that "
                f"divides each source's offset (their lengths are {lengths})"
            )
    else:
        step = math.gcd(*lengths[:-1]) if len(lengths) > 1 else lengths[0]
    total = sum(lengths)
    dims = [(name, total if name == concat_dim else size) for name, size in first["dims"].items()]
    sizes = dict(dims)
    variables = []
    for name, v in first["vars"].items():
        along = concat_dim in v["dims"]
        var_chunks = None
        if v["dims"]:
            var_chunks = [
                int(chunks.get(d, (v["chunks"] or [sizes[d]] * len(v["dims"]))[i]))
                for i, d in enumerate(v["dims"])
            ]
            var_chunks = [max(1, min(c, sizes[d])) for c, d in zip(var_chunks, v["dims"])]
            if along and concat_dim not in chunks:
                axis = v["dims"].index(concat_dim)
                row = v["itemsize"] * int(np.prod([c for i, c in enumerate(var_chunks) if i != axis]))
                var_chunks[axis] = _concat_chunk(max(step, 1), max(row, 1))
            elif along:
                var_chunks[v["dims"].index(concat_dim)] = step
        variables.append(
            {"name": name, "dtype": v["dtype"], "dims": v["dims"], "attrs": v["attrs"],
             "chunks": var_chunks, "concat": along}
        )
    return {
        "dims": dims, "attrs": first["attrs"], "vars": variables, "storage": storage,
        "offsets": offsets, "lengths": lengths, "concat_dim": concat_dim,
    }


def _define(ds: WritableDataset, plan: dict[str, Any]) -> None:
    """Defines the target as ``plan`` says (the same calls for the metadata
    and for every task, so that each task's writer matches the store)."""
    for name, size in plan["dims"]:
        ds.add_dimension(name, size)
    for name, value in plan["attrs"].items():
        ds.put_attribute(name, value)
    for v in plan["vars"]:
        ds.add_variable(v["name"], v["dtype"], v["dims"], chunksizes=v["chunks"],
                        attrs=v["attrs"], **plan["storage"])


def _slabs(src: Dataset, v: dict[str, Any], concat_dim: str) -> Iterable[tuple[int, np.ndarray]]:
    """The source variable's values along ``concat_dim`` in slabs of whole
    target chunks: (start, values)."""
    var = src[v["name"]]
    axis = v["dims"].index(concat_dim)
    n = var.shape[axis]
    chunk = v["chunks"][axis]
    row = max(1, var.dtype.itemsize * int(np.prod(var.shape)) // max(n, 1))
    step = chunk * max(1, _CHUNK_BYTES // max(row * chunk, 1))
    for start in range(0, n, step):
        key = [slice(None)] * len(v["dims"])
        key[axis] = slice(start, min(start + step, n))
        yield start, var[tuple(key)]


def _write_region(source: str, target: str, create_kw: dict[str, Any], plan: dict[str, Any],
                  offset: int) -> int:
    """One task: writes ``source``'s values of the variables along the
    concatenated dimension to its region of the store ``target``, starting
    at ``offset``; the bytes written."""
    concat_dim = plan["concat_dim"]
    written = 0
    with open(source) as src, create(target, "netCDF-4", existing=True, **create_kw) as ds:
        _define(ds, plan)
        for v in plan["vars"]:
            if not v["concat"]:
                continue
            axis = v["dims"].index(concat_dim)
            out = ds.variables[v["name"]]
            for start, values in _slabs(src, v, concat_dim):
                key = [slice(None)] * len(v["dims"])
                key[axis] = slice(offset + start, offset + start + values.shape[axis])
                out[tuple(key)] = values
                written += values.nbytes
    return written


def _target(target: str | os.PathLike, zarr_format: int) -> tuple[str, dict[str, Any]]:
    """The target's URL and the options of ``create`` for it."""
    text = os.fspath(target)
    if zarr_format not in (2, 3):
        raise ValueError(f"zarr_format is 2 or 3, not {zarr_format!r}")
    if "://" in text and "#mode=" not in text and text.startswith("s3://"):
        text += "#mode=zarr,s3" + (",v3" if zarr_format == 3 else "")
    layout = "zarr-v3" if zarr_format == 3 else "zarr"
    return text, {"layout": layout, "consolidated": zarr_format == 2}


def copy_collection(
    sources: list[str | os.PathLike],
    target: str | os.PathLike,
    *,
    concat_dim: str = "time",
    client: Any = None,
    progress: Any = None,
    zarr_format: int = 3,
    chunks: dict[str, int] | None = None,
    deflate: int | None = None,
    shuffle: bool = False,
    codecs: str | None = None,
) -> dict[str, Any]:
    """Copies ``sources`` (paths or URLs of datasets alike but for their
    length along ``concat_dim``) into one Zarr store ``target`` (a
    directory, or an ``s3://`` URL; ``zarr_format`` 2 or 3, consolidated),
    concatenated along ``concat_dim`` in the order given: what
    ``xr.open_mfdataset(sources, combine="nested", concat_dim=...)`` reads.

    The metadata is written first, from all sources' metadata (attributes
    of the first source); then one task per source writes its region: a
    thread (``client=None``) or a task on a ``dask.distributed`` client's
    cluster (``client.map``; each task opens its source and the target
    itself). Variables without ``concat_dim`` are taken from the first
    source. Values are copied as stored (no CF decoding), so a variable's
    attributes (time units, scale factors) must be the same in every
    source, else the copy is refused before anything is written.

    Chunks: ``chunks`` ({dim: length}) chooses them; along ``concat_dim``
    the length must divide every source's offset (else ``ValueError``), so
    no two tasks write one chunk. By default each variable keeps its
    first source's chunks on the other dimensions (the whole dimension
    when contiguous) and takes along ``concat_dim`` the largest divisor of
    the sources' common length that keeps a chunk within 32 MiB.
    Compression: ``deflate`` (zlib level) with ``shuffle``, or ``codecs``
    (a numcodecs JSON chain). ``progress=True`` draws a tqdm bar of
    sources done.

    A failed task leaves the target incomplete (its metadata and the
    regions written); the first error is raised. Returns ``sources``,
    ``bytes`` (written by the tasks) and ``shape`` ({dim: length}).
    """
    names = [os.fspath(s) for s in sources]
    if not names:
        raise ValueError("a collection copy needs at least one source")
    url, create_kw = _target(target, zarr_format)
    storage: dict[str, Any] = {"codecs": codecs}
    if deflate is not None or shuffle:
        storage.update(deflate_level=deflate, shuffle=shuffle)
    with ThreadPoolExecutor(max_workers=min(8, len(names))) as pool:
        descs = list(pool.map(lambda s: _describe(s, concat_dim), names))
    plan = _plan(descs, names, concat_dim, chunks, storage)
    with open(names[0]) as first, create(url, "netCDF-4", fill=False, **create_kw) as ds:
        _define(ds, plan)
        for v in plan["vars"]:
            if not v["concat"]:
                ds.variables[v["name"]][...] = first[v["name"]][...]
    bar = _bar(progress, len(names))
    try:
        written = _run(names, url, create_kw, plan, client, bar)
    finally:
        if bar is not None:
            bar.close()
    return {"sources": len(names), "bytes": written, "shape": dict(plan["dims"])}


def _bar(progress: Any, total: int) -> Any:
    """A tqdm bar of sources done, when ``progress`` is true."""
    if not progress:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, unit="file", desc="nctk.copy")


def _run(names: list[str], url: str, create_kw: dict[str, Any], plan: dict[str, Any],
         client: Any, bar: Any) -> int:
    """Runs one task per source, on threads or on the client's cluster;
    the bytes they wrote."""
    offsets = plan["offsets"]
    if client is None:
        with ThreadPoolExecutor(max_workers=min(os.cpu_count() or 1, len(names))) as pool:
            futures = [pool.submit(_write_region, s, url, create_kw, plan, o)
                       for s, o in zip(names, offsets)]
            return _gather(as_completed(futures), bar)
    from distributed import as_completed as dask_completed

    futures = client.map(_write_region, names, [url] * len(names), [create_kw] * len(names),
                         [plan] * len(names), offsets, pure=False)
    return _gather(dask_completed(futures), bar)


def _gather(done: Iterable[Any], bar: Any) -> int:
    """The sum of the finished futures' results (the first failure raises)."""
    total = 0
    for future in done:
        total += future.result()
        if bar is not None:
            bar.update(1)
    return total
