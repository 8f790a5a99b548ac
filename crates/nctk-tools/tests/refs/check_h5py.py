"""Checks nctk's kerchunk references of HDF5 files that netCDF-C cannot
read for want of a filter plugin (tests/refs.rs). sys.argv[1:]: pairs of
(HDF5 file, nctk's reference JSON). For each pair, every dataset of the
root group read through the references (engine "zarr" over fsspec's
reference filesystem, imagecodecs' codecs registered with numcodecs)
holds the values h5py reads from the file (with hdf5plugin's filters).
Prints one line per file checked."""
import sys

import fsspec
import h5py
import hdf5plugin  # noqa: F401 (registers the filters with h5py's HDF5)
import imagecodecs.numcodecs
import numpy as np
import xarray as xr

imagecodecs.numcodecs.register_codecs()

args = sys.argv[1:]
for path, refs_path in zip(args[::2], args[1::2]):
    fs = fsspec.filesystem("reference", fo=refs_path)
    virtual = xr.open_dataset(fs.get_mapper(""), engine="zarr", consolidated=False, zarr_format=2)
    with h5py.File(path, "r") as f:
        names = [n for n, v in f.items() if isinstance(v, h5py.Dataset)]
        assert names, path
        for name in names:
            real = f[name][()]
            got = virtual[name].values
            assert got.dtype == real.dtype and np.array_equal(got, real), name
    print(f"{path}: values agree")
