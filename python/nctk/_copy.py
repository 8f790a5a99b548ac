"""Copying: :func:`copy`, nccopy's copy of one dataset (options as keyword
arguments, an optional progress bar), or a collection of files into one
Zarr store in parallel (``nctk._collection``)."""

from __future__ import annotations

import os
from typing import Any, Callable, Sequence

from . import _nctk

__all__ = ["copy"]

# Keyword arguments of copy(): (native option, nccopy flag, how the value is given).
_OPTIONS: dict[str, tuple[str, str, str]] = {
    "kind": ("kind", "-k", "text"),
    "deflate": ("deflate", "-d", "text"),
    "shuffle": ("shuffle", "-s", "flag"),
    "chunking": ("chunkspecs", "-c", "specs"),
    "shards": ("shards", "--shards", "specs"),
    "filters": ("filters", "-F", "list"),
    "fix_unlimited": ("fix_unlimited", "-u", "flag"),
    "write_in_memory": ("write_in_memory", "-w", "flag"),
    "read_in_memory": ("read_in_memory", "-r", "flag"),
    "variables": ("vars", "-v", "names"),
    "variables_only": ("vars_only", "-V", "names"),
    "groups": ("groups", "-g", "names"),
    "groups_only": ("groups_only", "-G", "names"),
    "buffer_size": ("buffer", "-m", "text"),
    "chunk_cache_size": ("chunk_cache", "-h", "text"),
    "chunk_cache_elems": ("chunk_cache_elems", "-e", "text"),
    "min_chunk_size": ("min_chunk", "-M", "text"),
    "fill": ("fill", "-Xf", "flag"),
    "write_empty_chunks": ("write_empty_chunks", "-Z", "flag"),
    "codec": ("codec", "--codec", "text"),
    "block_size": ("block_size", "--block-size", "text"),
    "no_shuffle": ("no_shuffle", "--no-shuffle", "flag"),
}


def _specs(value: Any) -> list[str]:
    """A chunk or shard specification as ``-c`` takes it: a string
    (``"time/1,x/100"`` or ``"var:1,100"``), a list of them, or a dict of
    dimension lengths (``{"time": 1, "x": 100}``)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [",".join(f"{dim}/{int(n)}" for dim, n in value.items())]
    return [str(v) for v in value]


def _native_options(options: dict[str, Any]) -> dict[str, Any]:
    """``copy``'s keyword arguments as the native copy takes them."""
    unknown = set(options) - set(_OPTIONS)
    if unknown:
        raise TypeError(
            f"unknown option(s) for nctk.copy: {', '.join(sorted(unknown))} "
            f"(options: {', '.join(_OPTIONS)})"
        )
    out: dict[str, Any] = {}
    for name, value in options.items():
        native, _flag, how = _OPTIONS[name]
        if value is None:
            continue
        if how == "flag":
            out[native] = bool(value)
        elif how == "text":
            out[native] = str(value)
        elif how == "specs":
            out[native] = _specs(value)
        elif how == "list":
            out[native] = [value] if isinstance(value, str) else [str(v) for v in value]
        else:  # names
            out[native] = value if isinstance(value, str) else ",".join(value)
    return out


class _TqdmReport:
    """Draws the copy's progress, in bytes, with tqdm."""

    def __init__(self, desc: str) -> None:
        self._desc = desc
        self._bar: Any = None

    def __call__(self, event: str, name: str, nbytes: int) -> None:
        if event == "start":
            from tqdm.auto import tqdm

            self._bar = tqdm(total=nbytes, unit="B", unit_scale=True, desc=self._desc)
        elif event == "advance" and self._bar is not None:
            self._bar.set_postfix_str(name, refresh=False)
            self._bar.update(nbytes)
        elif event == "finish" and self._bar is not None:
            self._bar.close()


class _TqdmSteps:
    """Draws the progress of ``nctk.refs`` (inputs opened, variables
    referenced), in steps, with tqdm; the total grows once the inputs'
    variables are counted."""

    def __init__(self, desc: str) -> None:
        self._desc = desc
        self._bar: Any = None

    def __call__(self, event: str, name: str, n: int) -> None:
        if event == "total":
            if self._bar is None:
                from tqdm.auto import tqdm

                self._bar = tqdm(total=n, desc=self._desc)
            else:
                self._bar.total = n
                self._bar.refresh()
        elif event == "advance" and self._bar is not None:
            self._bar.set_postfix_str(name, refresh=False)
            self._bar.update(n)
        elif event == "finish" and self._bar is not None:
            self._bar.close()


def _reporter(
    progress: Any, desc: str, bar: Callable[[str], Callable[[str, str, int], None]] = _TqdmReport
) -> Callable[[str, str, int], None] | None:
    """The callable ``progress`` asks for: ``True`` a tqdm bar (tqdm must
    be installed; ``bar`` draws it), a callable itself, ``None``/``False``
    none."""
    if progress is None or progress is False:
        return None
    if progress is True:
        try:
            import tqdm  # noqa: F401
        except ImportError as e:
            raise ImportError("progress=True draws a bar with tqdm: pip install tqdm") from e
        return bar(desc)
    if callable(progress):
        return progress
    raise TypeError(f"progress must be True, False, None or a callable, not {progress!r}")


def copy(
    source: str | os.PathLike | Sequence[str | os.PathLike],
    target: str | os.PathLike,
    *,
    progress: Any = None,
    concat_dim: str = "time",
    client: Any = None,
    **options: Any,
) -> dict[str, Any]:
    """Copies ``source`` to ``target`` as nccopy (``nctk copy``) does, or a
    collection of files into one Zarr store.

    One dataset: ``source`` and ``target`` are paths or netCDF-C URLs as
    :func:`nctk.open` and :func:`nctk.create` take them (the target's name
    picks a classic file, an NCZarr / Zarr store or an ncstream); the
    target appears complete or not at all. nccopy's options are keyword
    arguments:

    ================== ======= ==========================================
    keyword            nccopy  value
    ================== ======= ==========================================
    kind               -k      ``classic``, ``64-bit offset``, ``cdf5``,
                               ``netCDF-4``, ``netCDF-4 classic model``,
                               ``compressed`` (or nc3, nc6, nc5, nc4, nc7)
    deflate            -d      level 0..9
    shuffle            -s      bool
    chunking           -c      ``"dim/n,..."``, ``"var:n,..."``, a list of
                               them, or ``{"dim": n}``
    shards             --shards as ``chunking`` (Zarr v3 outputs)
    filters            -F      a filter spec or a list of them
    fix_unlimited      -u      bool
    write_in_memory    -w      bool
    read_in_memory     -r      bool
    variables          -v      names (a list or ``"a,b"``)
    variables_only     -V      names
    groups             -g      names
    groups_only        -G      names
    buffer_size        -m      bytes (int, or ``"5M"``)
    chunk_cache_size   -h      bytes
    chunk_cache_elems  -e      count
    min_chunk_size     -M      bytes
    fill               -Xf     bool
    write_empty_chunks -Z      bool
    codec              --codec ``-k compressed``'s codec
    block_size         --block-size ``-k compressed``'s block size
    no_shuffle         --no-shuffle bool
    ================== ======= ==========================================

    ``progress=True`` draws a progress bar with tqdm (installed with the
    ``progress`` extra); a callable gets ``(event, name, nbytes)`` with
    event ``start`` (total bytes), ``advance`` (a variable's bytes copied)
    and ``finish``. The GIL is released while copying. Returns the
    summary: ``kind``, ``variables``, ``bytes``, ``stored_chunks``,
    ``input_data_ends_at``.

    A collection: ``source`` a list of paths or URLs, ``target`` a Zarr v2
    or v3 store (a directory or an ``s3://`` URL): see
    :func:`nctk._collection.copy_collection` for ``concat_dim``, ``client``
    and its options (``zarr_format``, ``chunks``, ``deflate``,
    ``shuffle``, ``codecs``).
    """
    if not isinstance(source, (str, os.PathLike)):
        from ._collection import copy_collection

        return copy_collection(
            list(source), target, concat_dim=concat_dim, client=client, progress=progress,
            **options,
        )
    if client is not None:
        raise TypeError("client= is for a collection copy (a list of sources)")
    src, dst = os.fspath(source), os.fspath(target)
    report = _reporter(progress, os.path.basename(dst.rstrip("/")) or dst)
    return _nctk.copy(src, dst, progress=report, **_native_options(options))
