"""Checks nctk's kerchunk references (tests/refs.rs). sys.argv[1:]: pairs
of (netCDF file, nctk's reference JSON). For each pair:

* xarray opening the references (engine "zarr" over fsspec's reference
  filesystem), every group, gives the values and attributes xarray gives
  for the file itself (engine "netcdf4");
* for an HDF5 file, the chunk references (key, url, offset, length) are
  kerchunk's SingleHdf5ToZarr's for the same file (nothing inlined).

A pair (netCDF file, nctk's Icechunk repository, a ``.icechunk``
directory): xarray opening the repository's branch ``main`` with icechunk
for Python (Zarr v3, the chunks' directory authorised), every group, gives
what xarray gives for the file itself.

A pair (netCDF file, nctk's Parquet references, a ``.parq`` directory):
xarray opening them through fsspec's LazyReferenceMapper gives the values
and attributes xarray gives for the file itself.

Prints one line per file checked."""
import json
import sys

import warnings

import fsspec
import xarray as xr


def groups(refs):
    return sorted(k[: -len(".zgroup")].rstrip("/") for k in refs if k.endswith(".zgroup"))


def check_values(path, refs_path, refs):
    # zarr 3 lists no arrays of a group below the root through the
    # reference filesystem's root: each group is opened at its own mapper
    fs = fsspec.filesystem("reference", fo=refs_path)
    for g in groups(refs):
        virtual = xr.open_dataset(
            fs.get_mapper(g), engine="zarr", consolidated=False, zarr_format=2
        ).load()
        real = xr.open_dataset(path, engine="netcdf4", group=g or None).load()
        # A variable with no _FillValue whose chunks were never all written
        # has its fill as the .zarray's fill_value, which xarray over Zarr
        # masks and netCDF does not call missing: compared undecoded.
        unmasked = [
            name
            for name, v in real.variables.items()
            if "_FillValue" not in v.encoding
            and json.loads(refs[f"{g}/{name}/.zarray".lstrip("/")])["fill_value"] is not None
        ]
        if unmasked:
            raw_virtual = xr.open_dataset(
                fs.get_mapper(g), engine="zarr", consolidated=False, zarr_format=2,
                mask_and_scale=False,
            )
            raw_real = xr.open_dataset(path, engine="netcdf4", group=g or None, mask_and_scale=False)
            for name in unmasked:
                assert raw_virtual[name].dtype == raw_real[name].dtype, name
                assert (raw_virtual[name].values == raw_real[name].values).all(), name
            virtual = virtual.drop_vars(unmasked)
            real = real.drop_vars(unmasked)
        xr.testing.assert_identical(virtual, real)


def chunk_refs(refs):
    return {k: v for k, v in refs.items() if not k.rsplit("/", 1)[-1].startswith(".")}


def check_kerchunk(path, refs):
    from kerchunk.hdf import SingleHdf5ToZarr

    theirs = SingleHdf5ToZarr(path, inline_threshold=0).translate()["refs"]
    # kerchunk skips (with a warning) the arrays it cannot describe, as
    # fletcher32's: the chunks of the arrays it describes are compared
    arrays = {k.rsplit("/", 1)[0] for k in theirs if k.endswith("/.zarray")}
    theirs = {k: list(v) for k, v in chunk_refs(theirs).items()}
    ours = {k: v for k, v in chunk_refs(refs).items() if k.rsplit("/", 1)[0] in arrays}
    # kerchunk leaves compact data out at inline_threshold 0 (its array
    # then reads as fill): nctk's inline chunks are checked by the values
    ours = {k: v for k, v in ours.items() if k in theirs or not isinstance(v, str)}
    if ours != theirs:
        only_ours = sorted(set(ours) - set(theirs))
        only_theirs = sorted(set(theirs) - set(ours))
        differ = sorted(k for k in set(ours) & set(theirs) if ours[k] != theirs[k])
        raise AssertionError(
            f"{path}: chunks differ from kerchunk's: only nctk {only_ours[:5]}, "
            f"only kerchunk {only_theirs[:5]}, "
            f"different {[(k, ours[k], theirs[k]) for k in differ[:5]]}"
        )
    return len(ours)


def check_icechunk(path, repo_path):
    import os

    import icechunk
    import zarr

    storage = icechunk.local_filesystem_storage(repo_path)
    directory = "file://" + os.path.dirname(os.path.abspath(path)) + "/"
    repo = icechunk.Repository.open(storage, authorize_virtual_chunk_access={directory: None})
    store = repo.readonly_session("main").store

    def walk(group, prefix):
        yield prefix
        for name, sub in group.groups():
            yield from walk(sub, f"{prefix}/{name}".lstrip("/"))

    groups = list(walk(zarr.open_group(store, mode="r", zarr_format=3), ""))
    for g in groups:
        virtual = xr.open_dataset(
            store, engine="zarr", group=g or None, consolidated=False, zarr_format=3
        ).load()
        real = xr.open_dataset(path, engine="netcdf4", group=g or None).load()
        xr.testing.assert_identical(virtual, real)
    return len(groups)


warnings.simplefilter("ignore")
args = sys.argv[1:]
for path, refs_path in zip(args[::2], args[1::2]):
    if refs_path.endswith(".icechunk"):
        n = check_icechunk(path, refs_path)
        print(f"{path}: {n} groups of the Icechunk repository agree")
        continue
    if refs_path.endswith(".parq"):
        with open(refs_path + "/.zmetadata") as f:
            meta = json.load(f)["metadata"]
        check_values(path, refs_path, {k: json.dumps(v) for k, v in meta.items()})
        print(f"{path}: {len(meta)} metadata keys of the Parquet references agree")
        continue
    with open(refs_path) as f:
        doc = json.load(f)
    assert doc["version"] == 1, doc.keys()
    refs = doc["refs"]
    check_values(path, refs_path, refs)
    with open(path, "rb") as f:
        hdf5 = f.read(4) == b"\x89HDF"
    n = check_kerchunk(path, refs) if hdf5 else len(chunk_refs(refs))
    print(f"{path}: {n} chunks, values{' and kerchunk' if hdf5 else ''} agree")
