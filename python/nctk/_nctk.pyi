"""Type stubs of the native module ``nctk._nctk`` (see src/*.rs)."""

from typing import Any, Callable

import numpy as np
import numpy.typing as npt

__version__: str

class NativeDataset:
    """An open dataset, shared by the Python objects made from it."""

    def describe(self) -> dict[str, Any]:
        """``format`` and ``root``: the dataset's groups, dimensions,
        variables (``id``, ``name``, ``path``, ``dimensions``, ``shape``,
        ``type``, ``attrs``, ``storage``) and attributes."""
    def read_into(
        self,
        var: int,
        start: list[int],
        count: list[int],
        stride: list[int],
        out: npt.NDArray[np.uint8],
    ) -> None:
        """Reads a numeric variable's selection into ``out`` (a contiguous
        ``uint8`` view of an array of the variable's type), GIL released."""
    def read(
        self, var: int, start: list[int], count: list[int], stride: list[int]
    ) -> npt.NDArray[Any]:
        """Reads any variable's selection as a flat numpy array."""

def open(target: str, in_memory: bool = False) -> NativeDataset:
    """Opens ``target`` (a path or netCDF-C URL) for reading."""

class NativeWriter:
    """A dataset being written (see ``nctk.create``): define mode, then data
    mode after ``end_define``; ids are the schema's group, dimension and
    variable numbers."""

    def add_dimension(self, group: int, name: str, size: int | None) -> int:
        """Defines a dimension (``None``: unlimited) in ``group``; its id."""
    def add_group(self, parent: int, name: str) -> int:
        """Defines a subgroup of ``parent``; its id."""
    def add_variable(self, group: int, name: str, dtype: str, dims: list[int]) -> int:
        """Defines a variable of netCDF type ``dtype`` (its CDL name) over
        dimensions ``dims``; its id."""
    def set_storage(
        self,
        var: int,
        chunksizes: list[int] | None = None,
        contiguous: bool = False,
        deflate_level: int | None = None,
        shuffle: bool = False,
        codecs: str | None = None,
        filters: str | None = None,
        fletcher32: bool = False,
        endianness: str | None = None,
        string_width: int | None = None,
        no_fill: bool = False,
    ) -> None:
        """Sets how ``var`` is stored (chunking, filters, byte order, fill)."""
    def set_fill_value(self, var: int, kind: str, value: Any) -> None:
        """Sets ``var``'s fill value (``kind``: how ``value`` is given)."""
    def put_attribute(self, group: int, var: int | None, name: str, kind: str, value: Any) -> None:
        """Sets an attribute of ``group`` or of variable ``var``."""
    def shape(self, var: int) -> list[int]:
        """The variable's current shape."""
    def end_define(self) -> None:
        """Leaves define mode."""
    def in_define_mode(self) -> bool:
        """True until ``end_define`` (or the first write)."""
    def put(
        self,
        var: int,
        start: list[int],
        count: list[int],
        stride: list[int],
        kind: str,
        data: Any,
    ) -> None:
        """Writes ``data`` into the selection of ``var``, GIL released."""
    def sync(self) -> None:
        """Writes what is held so far (the dataset stays open)."""
    def close(self) -> None:
        """Completes the dataset and moves it into place."""
    def abort(self) -> None:
        """Drops the dataset: nothing is left at the target."""
    @property
    def format(self) -> str:
        """The format being written, as ``ncdump -k`` names it."""
    def is_open(self) -> bool:
        """True until ``close`` or ``abort``."""

def create(
    target: str,
    format: str,
    fill: bool = True,
    layout: str | None = None,
    consolidated: bool = False,
    existing: bool = False,
    write_empty_chunks: bool = False,
    cache_bytes: int | None = None,
    in_memory: bool = False,
) -> NativeWriter:
    """Creates a dataset at ``target`` in ``format`` (nccopy's ``-k``
    names), in define mode."""

def copy(input: str, output: str, **options: Any) -> dict[str, Any]:
    """``nctk copy``: nccopy's options by name (see ``nctk.copy``); a
    summary of what was copied."""

def refs(
    inputs: list[str], output: str, *, concat_dim: str | None = None,
    chunk_bytes: int | None = None, format: str | None = None,
    record_size: int | None = None, window: int | None = None,
    progress: Callable[[str, str, int], None] | None = None,
) -> dict[str, int]:
    """``nctk refs``: kerchunk references of ``inputs`` (JSON or Parquet),
    or an Icechunk repository (see ``nctk.refs``), reporting to
    ``progress``; the number of variables and chunks referenced."""
