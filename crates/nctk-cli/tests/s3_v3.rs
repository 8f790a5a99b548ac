//! `nctk dump` of Zarr v3 stores kept in S3 (a moto server on loopback):
//! stores zarr-python and xarray write (sharded with the index at either
//! end, consolidated or not, nested groups, strings) dump from S3 as they
//! dump from disk; the shard indexes come through suffix range requests
//! and the inner chunks through coalesced range requests.

use nctk_test_servers::moto;
use nctk_test_support::require;

mod common;
use common::nctk_ok;

/// Writes three v3 stores under `argv[1]`: `sharded.zarr` (zarr-python,
/// shards with the index at the end and at the start, a group with
/// strings), `xr.zarr` (xarray's `to_zarr` defaults, consolidated) and
/// `plain.zarr` (not consolidated, `v2` chunk keys).
const PY_WRITE: &str = r#"
import sys, os
import numpy as np
import zarr, xarray as xr
from zarr.codecs import ShardingCodec, BytesCodec, ZstdCodec, Crc32cCodec
base = sys.argv[1]
g = zarr.open_group(os.path.join(base, "sharded.zarr"), mode="w", zarr_format=3)
data = (np.arange(10 * 5 * 6, dtype="<f8") / 7).reshape(10, 5, 6)
a = g.create_array("end", shape=(10, 5, 6), chunks=(1, 5, 3), shards=(5, 5, 6),
                   dtype="<f8", dimension_names=["t", "y", "x"], fill_value=0.5)
a[:7] = data[:7]
b = g.create_array("start", shape=(10, 5, 6), chunks=(5, 5, 6), dtype="<i4",
                   dimension_names=["t", "y", "x"], compressors=None,
                   serializer=ShardingCodec(chunk_shape=(1, 5, 3),
                       codecs=[BytesCodec(endian="big"), ZstdCodec(level=3)],
                       index_codecs=[BytesCodec(), Crc32cCodec()], index_location="start"))
b[...] = np.arange(300, dtype="<i4").reshape(10, 5, 6)
sub = g.create_group("sub")
s = sub.create_array("names", shape=(4,), chunks=(3,), dtype=str, dimension_names=["n"])
s[...] = ["alpha", "", "gamma", "δ"]
sub.attrs["title"] = "nested"
ds = xr.Dataset({"temp": (("time", "lat"), np.arange(12.0).reshape(3, 4), {"units": "K"})},
                coords={"lat": [1.0, 2.0, 3.0, 4.0]}, attrs={"source": "xarray"})
ds.to_zarr(os.path.join(base, "xr.zarr"), mode="w")
p = zarr.open_group(os.path.join(base, "plain.zarr"), mode="w", zarr_format=3)
q = p.create_array("q", shape=(7,), chunks=(3,), dtype="u2",
                   chunk_key_encoding={"name": "v2", "separator": "."})
q[...] = np.arange(7)
"#;

#[test]
fn v3_stores_on_s3_dump_as_their_local_dumps() {
    let dir = tempfile::tempdir().unwrap();
    if require::python_output(&["zarr", "xarray"], PY_WRITE, [dir.path()]).is_none() {
        return;
    }
    let Some(s3) = moto() else { return };
    std::env::set_var("AWS_ACCESS_KEY_ID", "test");
    std::env::set_var("AWS_SECRET_ACCESS_KEY", "test");
    std::env::remove_var("AWS_PROFILE");
    s3.create_bucket("zarr-v3").unwrap();
    for name in ["sharded.zarr", "xr.zarr", "plain.zarr"] {
        let local = dir.path().join(name);
        s3.upload_dir("zarr-v3", name, &local).expect("upload");
        let from_disk = nctk_ok(&["dump", local.to_str().unwrap()]);
        let url = format!("{}/zarr-v3/{name}#mode=zarr,s3", s3.endpoint());
        let from_s3 = nctk_ok(&["dump", &url]);
        let body = |d: &str| {
            d.split_once('\n')
                .map(|(_, b)| b.to_string())
                .unwrap_or_default()
        };
        assert_eq!(body(&from_s3), body(&from_disk), "{name}");
        assert!(from_disk.contains("data:"), "{name}: {from_disk}");
    }
}
