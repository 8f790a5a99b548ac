//! The object store's key/value store against a real S3 server (moto):
//! the store contract every backend keeps, multipart uploads, and failures
//! that are errors, never missing keys.

use std::time::Duration;

use nctk_store::conformance;
use nctk_store::kv::{
    Bytes, ListableStore, ReadableStore, StoreError, StoreKey, StorePrefix, WritableStore,
};
use nctk_store_object::{connect, ObjectKvStore, Remote, RemoteOptions, S3Credentials, S3Settings};
use nctk_test_servers::{moto, MotoServer as Moto};
use object_store::{ObjectStoreExt, RetryConfig};

/// The settings for `bucket` on `s3` (any key pair).
fn settings(s3: &Moto, bucket: &str) -> S3Settings {
    S3Settings {
        bucket: bucket.into(),
        region: "us-east-1".into(),
        endpoint: Some(s3.endpoint()),
        virtual_hosted: false,
        credentials: S3Credentials::Static {
            access_key_id: "test".into(),
            secret_access_key: "test".into(),
            session_token: None,
        },
    }
}

/// The dataset under `prefix` of `bucket` (created first) on `s3`.
fn remote(s3: &Moto, bucket: &str, prefix: &str, options: RemoteOptions) -> Remote {
    s3.create_bucket(bucket).unwrap();
    let url = format!("{}/{bucket}/{prefix}", s3.endpoint());
    let store = connect::s3(&settings(s3, bucket), &options, &url).expect("connect");
    Remote::new(store, url, prefix, options)
}

fn key(s: &str) -> StoreKey {
    StoreKey::new(s).unwrap()
}

/// Options failing fast: no retries, short timeouts.
fn impatient() -> RemoteOptions {
    RemoteOptions {
        retry: RetryConfig {
            max_retries: 0,
            retry_timeout: Duration::from_secs(1),
            ..RetryConfig::default()
        },
        timeout: Duration::from_secs(5),
        connect_timeout: Duration::from_secs(1),
        concurrency: 4,
    }
}

#[test]
fn passes_the_store_contract_at_the_root_and_under_a_prefix() {
    let Some(s3) = moto() else { return };
    conformance::kv_store(|| {
        ObjectKvStore::new(remote(&s3, "root-bucket", "", RemoteOptions::default()))
    });
    conformance::kv_store(|| {
        ObjectKvStore::new(remote(
            &s3,
            "prefix-bucket",
            "deep/data.zarr",
            RemoteOptions::default(),
        ))
    });
    // One request at a time, too (uploads and batch reads at concurrency 1).
    let one = RemoteOptions {
        concurrency: 1,
        ..RemoteOptions::default()
    };
    conformance::kv_store(|| ObjectKvStore::new(remote(&s3, "serial-bucket", "x", one)));
}

/// A value above the multipart threshold goes up in parts (S3 marks a
/// multipart object's ETag with `-<parts>`) and reads back whole and in
/// ranges across part boundaries.
#[test]
fn large_values_are_uploaded_in_parts() {
    let Some(s3) = moto() else { return };
    let remote = remote(&s3, "big-bucket", "p", RemoteOptions::default());
    let store = ObjectKvStore::new(remote.clone());
    let n = nctk_store_object::kv::MULTIPART_THRESHOLD * 2 + 12345;
    let value: Vec<u8> = (0..n).map(|i| (i * 7 % 251) as u8).collect();
    let small = key("v/small");
    store
        .put(&key("v/0.0"), Bytes::from(value.clone()))
        .unwrap();
    store.put(&small, Bytes::from_static(b"small")).unwrap();
    store.close().unwrap();
    assert_eq!(store.size(&key("v/0.0")).unwrap(), Some(n as u64));
    assert_eq!(
        store.get(&key("v/0.0")).unwrap().as_deref(),
        Some(&value[..])
    );
    let edge = nctk_store_object::kv::MULTIPART_THRESHOLD as u64;
    let r = store
        .get_range(&key("v/0.0"), edge - 10..edge + 10)
        .unwrap()
        .unwrap();
    assert_eq!(&r[..], &value[edge as usize - 10..edge as usize + 10]);
    let etag = |k: &str| {
        let path = remote.path(k);
        let s = remote.store().clone();
        nctk_store_object::runtime::block_on(async move { s.head(&path).await })
            .unwrap()
            .e_tag
            .unwrap()
    };
    assert!(
        etag("v/0.0").trim_matches('"').ends_with("-3"),
        "3 parts: {}",
        etag("v/0.0")
    );
    assert!(!etag("v/small").contains('-'), "a small value is one PUT");
}

/// With the server gone, every read is an error naming the key, never a
/// missing key (which a Zarr reader would turn into fill values).
#[test]
fn an_unreachable_server_is_an_error_not_a_missing_key() {
    let Some(s3) = moto() else { return };
    let remote = remote(&s3, "gone-bucket", "d", impatient());
    let store = ObjectKvStore::new(remote);
    store
        .put(&key(".zgroup"), Bytes::from_static(b"{}"))
        .unwrap();
    store.close().unwrap();
    drop(s3);
    let k = key("v/0");
    let named = |e: StoreError| {
        let text = e.to_string();
        assert!(text.contains("v/0") || text.contains("/d"), "{text}");
    };
    named(store.get(&k).unwrap_err());
    named(store.size(&k).unwrap_err());
    named(store.get_range(&k, 0..4).unwrap_err());
    named(store.get_many(&[key(".zgroup"), k.clone()]).unwrap_err());
    assert!(store.list_dir(&StorePrefix::root()).is_err());
}

/// An upload that fails is reported by `close` (or the next put), naming
/// the key: the bucket does not exist.
#[test]
fn upload_failures_surface_at_close() {
    let Some(s3) = moto() else { return };
    let url = format!("{}/no-such-bucket", s3.endpoint());
    let options = impatient();
    let store = connect::s3(&settings(&s3, "no-such-bucket"), &options, &url).unwrap();
    let store = ObjectKvStore::new(Remote::new(store, url, "", options));
    store.put(&key("v/0"), Bytes::from_static(b"abc")).unwrap();
    let e = store.close().unwrap_err().to_string();
    assert!(e.contains("v/0") && e.contains("put"), "{e}");
    assert!(store.close().is_ok(), "an error is reported once");
}

/// A key the server lists outside the dataset (`..` segments) is an error
/// naming it, never read as one of the dataset's keys.
#[test]
fn listed_keys_with_dot_dot_are_refused() {
    let Some(s3) = moto() else { return };
    let remote = remote(&s3, "dots-bucket", "ds", RemoteOptions::default());
    let store = ObjectKvStore::new(remote.clone());
    store
        .put(&key("ok/.zgroup"), Bytes::from_static(b"{}"))
        .unwrap();
    store.close().unwrap();
    // Written around the client's key checks, as another client could.
    s3.put_object("dots-bucket", "ds/ok/../../escape", b"x".to_vec(), false)
        .unwrap();
    let e = store.keys().unwrap_err().to_string();
    assert!(e.contains("escape"), "{e}");
    let e = store
        .list_dir(&StorePrefix::new("ok").unwrap())
        .unwrap_err()
        .to_string();
    assert!(e.contains("ds/ok/..") && e.contains("dots-bucket"), "{e}");
}
