"""numpy dtypes of netCDF types, as netCDF4-python makes them."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["dtype_of"]


def dtype_of(spec: Any) -> np.dtype:
    """The numpy dtype of a type description's ``dtype`` (what the native
    module gives): a type code, or a compound's ``names``/``formats``/
    ``offsets``/``itemsize`` dictionary, nested compounds included. A
    compound has its native (C, ``align=True``) layout, as netCDF4-python
    makes it."""
    if not isinstance(spec, dict):
        return np.dtype(spec)
    formats = []
    for f in spec["formats"]:
        if isinstance(f, tuple):
            formats.append((dtype_of(f[0]), f[1]))
        else:
            formats.append(dtype_of(f))
    fields = {**spec, "formats": formats}
    return np.dtype(fields, align=True)
