//! [`cloud_service`] against the truth: `object_store`'s own
//! `ObjectStoreScheme::parse` on the `url` crate's reading of the URL.

use object_store::ObjectStoreScheme;
use proptest::prelude::*;

use super::{cloud_service, CloudService};

/// What `object_store` says `url` is.
fn object_store_says(url: &str) -> Option<CloudService> {
    let parsed = url::Url::parse(url).ok()?;
    match ObjectStoreScheme::parse(&parsed).ok()?.0 {
        ObjectStoreScheme::GoogleCloudStorage => Some(CloudService::Gcs),
        ObjectStoreScheme::MicrosoftAzure => Some(CloudService::Azure),
        ObjectStoreScheme::Http => Some(CloudService::Http),
        _ => None,
    }
}

const TABLE: &[&str] = &[
    "gs://bucket/a/ds.zarr",
    "gs://bucket",
    "gs://bucket/",
    "GS://bucket/key",
    "gs:///key",
    "gs:/bucket/key",
    "gs:bucket/key",
    "gs://bucket/a//b",
    "gs://bucket/a/../b",
    "gs://bucket/%2e%2e/b",
    "gs://bucket/a%2F%2Fb",
    "gs://bucket/a%ffb",
    "gs://bucket/a%00b",
    "gs://bucket:99999/k",
    "gs://bucket:12\\x/y",
    "gs://user@bucket/k",
    "gs://user@/k",
    "gs://a b/k",
    "az://container/ds",
    "abfs://container@account.dfs.core.windows.net/ds",
    "abfss://container@account.dfs.core.windows.net/ds",
    "azure://container/ds",
    "adl://container/ds",
    "https://account.blob.core.windows.net/container/ds",
    "https://account.blob.core.windows.net/container",
    "https://account.blob.core.windows.net/",
    "https://account.dfs.core.windows.net/container/a//b",
    "https://ACCOUNT.BLOB.CORE.WINDOWS.NET/container/ds",
    "https://x.blob.fabric.microsoft.com/c/k",
    "https://x.dfs.fabric.microsoft.com/c/k",
    "http://account.blob.core.windows.net/container/ds",
    "https://storage.googleapis.com/bucket/key",
    "https://bucket.r2.cloudflarestorage.com/b/k",
    "https://s3.us-west-2.amazonaws.com/b/k",
    "https://example.com/x",
    "https://example.com",
    "https:example.com/x",
    "https:\\\\example.com\\x",
    "https://",
    "https:///x",
    "https://example.com:443/x",
    "https://example.com:65536/x",
    "https://example.com:x/x",
    "https://ex ample.com/x",
    "https://ex%41mple.com/x",
    "https://ex%zzmple.com/x",
    "https://exa%00mple.com/x",
    "https://1.2.3.256/x",
    "https://0x7f.1/x",
    "https://foo.1/x",
    "https://[::1]:8080/x",
    "https://[::1/x",
    "https://[zz]/x",
    "https://example.com/a/./b/../c?q=1#f",
    "  https://example.com/x  ",
    "https://exa\tmple.com/x",
    "http://127.0.0.1:9000/b/k",
    "http://127.0.0.1:9000/b/k/",
    "s3://bucket/key",
    "s3a://bucket/key",
    "file:///tmp/x.nc",
    "memory:///",
    "ftp://example.com/x",
    "not a url",
    "",
    "gs",
    "1gs://bucket/key",
    "/local/path.nc",
];

#[test]
fn agrees_with_object_store_on_the_table() {
    let mut seen = Vec::new();
    for url in TABLE {
        let truth = object_store_says(url);
        assert_eq!(cloud_service(url), truth, "{url:?}");
        seen.push(truth);
    }
    // The table reaches every answer.
    for answer in [
        None,
        Some(CloudService::Gcs),
        Some(CloudService::Azure),
        Some(CloudService::Http),
    ] {
        assert!(seen.contains(&answer), "{answer:?}");
    }
}

/// One of `options`.
fn one_of(options: &'static [&'static str]) -> impl Strategy<Value = &'static str> {
    proptest::sample::select(options)
}

/// URLs assembled from pieces, valid and not, with ASCII hosts without
/// `xn--` labels (internationalised names are not mapped: see `url_parts`).
fn urls() -> impl Strategy<Value = String> {
    const SPACE: &[&str] = &["", " ", "\n", "\u{1}"];
    let scheme = one_of(&[
        "gs", "GS", "az", "adl", "azure", "abfs", "abfss", "http", "https", "HTTPS", "s3", "s3a",
        "file", "memory", "ftp", "ws", "g s", "1gs", "gs+x",
    ]);
    let slashes = one_of(&["//", "/", "", "///", "\\\\", "/\\", "\\/"]);
    let user = one_of(&["", "u@", "u:p@", "@", ":@", "a@b@", "u%40x@"]);
    let host = one_of(&[
        "bucket",
        "Bucket",
        "account.blob.core.windows.net",
        "ACCOUNT.DFS.core.windows.net",
        "x.dfs.fabric.microsoft.com",
        "x.blob.fabric.microsoft.com",
        "blob.core.windows.net.example.com",
        "s3.amazonaws.com",
        "bucket.s3.us-west-2.amazonaws.com",
        "a.r2.cloudflarestorage.com",
        "storage.googleapis.com",
        "example.com",
        "127.0.0.1",
        "0x7f.1",
        "1.2.3.256",
        "4294967296",
        "999999999999999999999",
        "foo.1",
        "foo.0x",
        "foo.09",
        "foo.1.",
        "1.2.3.4.5",
        "[::1]",
        "[::1",
        "[1:2:3:4:5:6:7:8]",
        "[::ffff:1.2.3.4]",
        "[zz]",
        "",
        "a b",
        "a%20b",
        "%61zure.blob.core.windows.net",
        "a%zz",
        "a%25",
        "a%ff",
        "a^b",
        "a|b",
        "a_b",
        "a--b",
        "ab--cd",
        "x..",
        ".",
        "%2e",
        "a<b",
        "a\\b",
        "a\u{7f}b",
        "exa\tmple.com",
    ]);
    let port = one_of(&[
        "",
        ":",
        ":80",
        ":0080",
        ":0000000000080",
        ":65535",
        ":65536",
        ":x",
        ":99999999999",
        ":12\\",
    ]);
    let segment = one_of(&[
        "", "a", "b.nc", ".", "..", "%2e", "%2E%2e", ".%2e", "%2e.", "%2f", "%2F%2F", "%ff", "%00",
        "%09", "a b", "%20", "\\", "c\\d", "é", "%", "%zz", "\u{1}", "\u{7f}", "@", ":",
    ]);
    let path = proptest::collection::vec(segment, 0..5).prop_map(|s| {
        if s.is_empty() {
            String::new()
        } else {
            format!("/{}", s.join("/"))
        }
    });
    let tail = one_of(&["", "?q=1", "?a/../b", "#f", "?x#y/.."]);
    (
        (one_of(SPACE), scheme, slashes, user),
        (host, port, path, tail, one_of(SPACE)),
    )
        .prop_map(
            |((lead, scheme, slashes, user), (host, port, path, tail, trail))| {
                format!("{lead}{scheme}:{slashes}{user}{host}{port}{path}{tail}{trail}")
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    #[test]
    fn agrees_with_object_store(url in urls()) {
        prop_assert_eq!(cloud_service(&url), object_store_says(&url), "{:?}", url);
    }
}
