//! `connect::cloud` opens GCS and Azure stores from the URL forms
//! object_store documents (`gs://bucket/path`,
//! `abfs://container@account.dfs.core.windows.net/path`,
//! `https://account.blob.core.windows.net/container/path`), with the
//! dataset's prefix being the URL's path below the bucket or container.
//! No request is made: building a store needs no network.

#![cfg(feature = "connect")]

use nctk_store_object::connect::{self, Access, CloudService};
use nctk_store_object::RemoteOptions;

#[test]
fn services_and_prefixes() {
    let options = RemoteOptions::default();
    let cases = [
        (
            "gs://bucket/a/ds.zarr",
            CloudService::Gcs,
            "a/ds.zarr/.zgroup",
        ),
        (
            "abfs://container@account.dfs.core.windows.net/a/ds.zarr",
            CloudService::Azure,
            "a/ds.zarr/.zgroup",
        ),
        (
            "https://account.blob.core.windows.net/container/a/ds.zarr",
            CloudService::Azure,
            "a/ds.zarr/.zgroup",
        ),
    ];
    for (url, service, path) in cases {
        assert_eq!(connect::cloud_service(url), Some(service), "{url}");
        let remote = connect::cloud(url, Access::Write, &options).unwrap();
        assert_eq!(remote.path(".zgroup").as_ref(), path, "{url}");
        assert_eq!(remote.url(), url);
    }
    // S3 and local URLs are not "cloud" URLs: netCDF-C's rules read them.
    for url in ["s3://b/k", "file:///x", "https://s3.amazonaws.com/b/k"] {
        assert_eq!(connect::cloud_service(url), None, "{url}");
        assert!(
            connect::cloud(url, Access::Read, &options).is_err(),
            "{url}"
        );
    }
}
