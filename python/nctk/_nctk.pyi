"""Type stubs of the native module ``nctk._nctk`` (see src/*.rs)."""

from typing import Any

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
