"""Checks nctk's references combining several files along time
(tests/refs.rs). sys.argv[1]: the references (JSON files, Parquet
directories, Icechunk repositories: a ``.icechunk`` directory or an
``s3://bucket/prefix`` on the S3 server of AWS_ENDPOINT_URL; several
on lines of their own); sys.argv[2:]: the files in order, all in one
directory (a repository's chunks may also be copies of them on that
server, read with AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY). xarray opening the references (engine "zarr" over fsspec's
reference filesystem, or over the repository's branch ``main`` with
icechunk for Python, the files' directory authorised) gives the values
and attributes of
`xr.open_mfdataset` of the files (engine "netcdf4") combined along time
as kerchunk's MultiZarrToZarr combines them: variables without time and
attributes from the first file. Prints "agree"."""
import sys
import warnings

import fsspec
import xarray as xr

warnings.simplefilter("ignore")
import os

all_refs, files = sys.argv[1].splitlines(), sys.argv[2:]
real = xr.open_mfdataset(
    files, engine="netcdf4", combine="nested", concat_dim="time",
    data_vars="minimal", coords="minimal", compat="override",
).load()


def icechunk_store(refs):
    import icechunk

    if refs.startswith("s3://"):
        bucket, _, prefix = refs[len("s3://"):].partition("/")
        storage = icechunk.s3_storage(
            bucket=bucket, prefix=prefix, endpoint_url=os.environ["AWS_ENDPOINT_URL"],
            region=os.environ.get("AWS_REGION", "us-east-1"), allow_http=True,
            force_path_style=True, access_key_id=os.environ["AWS_ACCESS_KEY_ID"],
            secret_access_key=os.environ["AWS_SECRET_ACCESS_KEY"],
        )
    else:
        storage = icechunk.local_filesystem_storage(refs)
    directory = "file://" + os.path.dirname(os.path.abspath(files[0])) + "/"
    authorized = {directory: None}
    # Containers of chunks on S3 (the files uploaded there), reached with
    # the test's key pair.
    config = icechunk.Repository.fetch_config(storage)
    for prefix in (config.virtual_chunk_containers or {}) if config else {}:
        if prefix.startswith("s3://"):
            authorized[prefix] = icechunk.s3_credentials(
                access_key_id=os.environ["AWS_ACCESS_KEY_ID"],
                secret_access_key=os.environ["AWS_SECRET_ACCESS_KEY"],
            )
    repo = icechunk.Repository.open(
        storage, authorize_virtual_chunk_access=icechunk.containers_credentials(authorized)
    )
    return repo.readonly_session("main").store


for refs in all_refs:
    if refs.endswith(".icechunk") or refs.startswith("s3://"):
        virtual = xr.open_dataset(
            icechunk_store(refs), engine="zarr", consolidated=False, zarr_format=3
        ).load()
    else:
        fs = fsspec.filesystem("reference", fo=refs)
        virtual = xr.open_dataset(
            fs.get_mapper(""), engine="zarr", consolidated=False, zarr_format=2
        ).load()
    assert virtual.sizes["time"] == real.sizes["time"], virtual.sizes
    xr.testing.assert_identical(virtual, real)
print("agree")
