"""Times the peers making references for a collection of files combined
along time, and writes their references (kerchunk JSON) to OUT for
refs_speed.rs to compare with nctk's. Prints the seconds of the work
alone (imports excluded; writing OUT excluded, making its JSON text
included).

    peers.py WHICH OUT FILE...
    peers.py WHICH-s3 OUT ENDPOINT KEY SECRET s3://BUCKET/KEY...

WHICH:
  kerchunk          SingleHdf5ToZarr per file, then MultiZarrToZarr
  virtualizarr      open_virtual_dataset with its HDF parser per file,
                    xr.concat, to_kerchunk
  kerchunk-nc3      NetCDF3ToZarr per file, then MultiZarrToZarr
  virtualizarr-nc3  open_virtual_dataset with its NetCDF3Parser (kerchunk's
                    NetCDF3ToZarr inside) per file, xr.concat, to_kerchunk
The -s3 forms of kerchunk and virtualizarr read the objects from an S3
server at ENDPOINT: kerchunk through s3fs (fsspec), VirtualiZarr through
obstore's S3Store."""
import json, os, sys, time, warnings
warnings.simplefilter("ignore")
which, out, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
s3 = which.endswith("-s3")
if s3:
    endpoint, key, secret, files = rest[0], rest[1], rest[2], rest[3:]
    storage = {"key": key, "secret": secret, "endpoint_url": endpoint,
               "client_kwargs": {"region_name": "us-east-1"}}
else:
    files = [os.path.abspath(f) for f in rest]
    storage = {}
kind = which.removesuffix("-s3")


def virtualizarr(parser, urls, registry):
    import xarray as xr
    from virtualizarr import open_virtual_dataset
    vds = [open_virtual_dataset(u, registry=registry, parser=parser, loadable_variables=[])
           for u in urls]
    combined = xr.concat(vds, dim="time", data_vars="minimal", coords="minimal", compat="override",
                         combine_attrs="override")
    return combined.vz.to_kerchunk(format="dict")


if kind in ("kerchunk", "kerchunk-nc3"):
    from kerchunk.combine import MultiZarrToZarr
    if kind == "kerchunk":
        from kerchunk.hdf import SingleHdf5ToZarr as single
    else:
        from kerchunk.netCDF3 import NetCDF3ToZarr as single
    start = time.perf_counter()
    singles = [single(f, storage_options=storage, inline_threshold=0).translate()
               for f in files]
    # the variables without time are the first file's (kerchunk stacks
    # them along time otherwise)
    fixed = [k.split("/")[0] for k, v in singles[0]["refs"].items()
             if k.endswith("/.zattrs") and "time" not in json.loads(v).get("_ARRAY_DIMENSIONS", ["time"])]
    refs = MultiZarrToZarr(singles, concat_dims=["time"], identical_dims=fixed, inline_threshold=0,
                           remote_protocol="s3" if s3 else None,
                           remote_options=dict(storage, skip_instance_cache=True) if s3 else None).translate()
else:
    import xarray as xr
    from virtualizarr.registry import ObjectStoreRegistry
    if kind == "virtualizarr":
        from virtualizarr.parsers import HDFParser as Parser
    else:
        from virtualizarr.parsers import NetCDF3Parser as Parser
    if s3:
        from obstore.store import S3Store
        bucket = files[0].removeprefix("s3://").split("/")[0]
        store = S3Store(bucket, endpoint=endpoint, access_key_id=key,
                        secret_access_key=secret, region="us-east-1",
                        client_options={"allow_http": True})
        prefix, urls = f"s3://{bucket}", files
    else:
        from obstore.store import LocalStore
        store, prefix, urls = LocalStore(), "file://", [f"file://{f}" for f in files]
    start = time.perf_counter()
    registry = ObjectStoreRegistry({prefix: store})
    refs = virtualizarr(Parser(), urls, registry)
text = json.dumps(refs)
seconds = time.perf_counter() - start
with open(out, "w") as f:
    f.write(text)
print(seconds)
