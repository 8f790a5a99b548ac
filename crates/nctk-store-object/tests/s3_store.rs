//! The object store's key/value store against a real S3 server (moto):
//! the store contract every backend keeps, multipart uploads, and failures
//! that are errors, never missing keys.

#![cfg(feature = "connect")]

mod common;
use common::settings;

#[path = "support/store_checks.rs"]
mod store_checks;
use store_checks::{
    assert_faults_are_errors_naming_the_key, assert_reads_back_across_parts, assert_retried,
    fault_value, impatient, multipart_value, patient,
};

use std::time::Duration;

use nctk_store::conformance;
use nctk_store::kv::{
    Bytes, ListableStore, ReadableStore, StoreError, StoreKey, StorePrefix, WritableStore,
};
use nctk_store_object::{connect, ObjectKvStore, Remote, RemoteOptions};
use nctk_test_servers::{moto, moto_behind_proxy, Fault, MotoServer as Moto};
use object_store::ObjectStoreExt;

/// The dataset under `prefix` of `bucket` (created first) on `s3`.
fn remote(s3: &Moto, bucket: &str, prefix: &str, options: RemoteOptions) -> Remote {
    s3.create_bucket(bucket).unwrap();
    remote_at(s3.endpoint(), bucket, prefix, options)
}

/// The dataset under `prefix` of `bucket` at `endpoint` (a server or a
/// proxy in front of one).
fn remote_at(endpoint: String, bucket: &str, prefix: &str, options: RemoteOptions) -> Remote {
    let url = format!("{endpoint}/{bucket}/{prefix}");
    let store = connect::s3(&settings(endpoint, bucket), &options, &url).expect("connect");
    Remote::new(store, url, prefix, options)
}

fn key(s: &str) -> StoreKey {
    StoreKey::new(s).unwrap()
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
    let value = multipart_value();
    let small = key("v/small");
    store
        .put(&key("v/0.0"), Bytes::from(value.clone()))
        .unwrap();
    store.put(&small, Bytes::from_static(b"small")).unwrap();
    store.close().unwrap();
    assert_reads_back_across_parts(&store, &key("v/0.0"), &value);
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
    let store = connect::s3(&settings(s3.endpoint(), "no-such-bucket"), &options, &url).unwrap();
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

/// Through a fault-injecting proxy: 503 SlowDown is retried and the value
/// read; a 500 that outlasts the retries, a body cut short and a 403 are
/// errors naming the key (a 403 as "access denied"), never a missing key.
#[test]
fn faults_are_retried_or_are_errors_never_missing_keys() {
    let Some((s3, proxy)) = moto_behind_proxy() else {
        return;
    };
    s3.create_bucket("faults").unwrap();
    let store = ObjectKvStore::new(remote_at(proxy.endpoint(), "faults", "d", patient()));
    let k = key("v/0");
    let value = fault_value();
    store.put(&k, Bytes::from(value.clone())).unwrap();
    store.close().unwrap();
    assert_retried(&proxy, &store, &k, &value, Fault::SlowDown);

    let failing = ObjectKvStore::new(remote_at(proxy.endpoint(), "faults", "d", impatient()));
    assert_faults_are_errors_naming_the_key(&proxy, &failing, &k);
    // A failed request for a key that does not exist among a batch's:
    // still an error, never `None`.
    proxy.fail_next_matching("/d/v/1", 1, Fault::Status(500));
    let e = failing.get_many(&[key("v/1"), k.clone()]).unwrap_err();
    assert!(e.to_string().contains("v/1"), "{e}");
}

/// A read-only store (plain HTTP) says so and refuses writes.
#[test]
fn read_only_stores_refuse_writes() {
    let Some(s3) = moto() else { return };
    let store = ObjectKvStore::read_only(remote(&s3, "readonly", "d", impatient()));
    assert!(!store.capabilities().writable);
    let k = key("v/0");
    assert!(matches!(
        store.put(&k, Bytes::from_static(b"x")),
        Err(StoreError::Unsupported { .. })
    ));
    assert!(matches!(
        store.delete(&k),
        Err(StoreError::Unsupported { .. })
    ));
    assert_eq!(store.get(&k).unwrap(), None);
}

/// The lengths of an array's many chunks come from one listing of their
/// prefix, a few keys' from HEADs; missing keys are `None` either way, and
/// the lengths are those written.
#[test]
fn sizes_of_many_keys_take_one_listing() {
    let Some((s3, proxy)) = moto_behind_proxy() else {
        return;
    };
    s3.create_bucket("sizes").unwrap();
    let store = ObjectKvStore::new(remote_at(proxy.endpoint(), "sizes", "d", impatient()));
    let mut keys = vec![];
    let mut want = vec![];
    for i in 0..100usize {
        let k = key(&format!("v/c/{}/{}", i / 10, i % 10));
        if i % 7 != 3 {
            store.put(&k, Bytes::from(vec![1u8; i + 1])).unwrap();
            want.push(Some(i as u64 + 1));
        } else {
            want.push(None);
        }
        keys.push(k);
    }
    store
        .put(&key("w/c/0"), Bytes::from_static(b"other"))
        .unwrap();
    store.close().unwrap();
    proxy.reset_stats();
    assert_eq!(store.sizes(&keys).unwrap(), want);
    let seen = proxy.stats();
    assert_eq!(seen.requests(), 1, "{:?}", seen.seen);
    assert!(
        seen.seen[0]
            .query
            .as_deref()
            .unwrap_or("")
            .contains("list-type=2"),
        "{:?}",
        seen.seen
    );
    proxy.reset_stats();
    assert_eq!(store.sizes(&keys[..5]).unwrap(), want[..5]);
    assert_eq!(proxy.stats().requests(), 5, "HEADs for a few keys");
}

/// Puts run in the background, at most `concurrency` at once: with 300 ms
/// added to every request, four puts return at once, the fifth waits for
/// a slot, and eight take at least two rounds.
#[test]
fn puts_overlap_but_at_most_concurrency_are_in_flight() {
    let Some((s3, proxy)) = moto_behind_proxy() else {
        return;
    };
    s3.create_bucket("bounded").unwrap();
    let latency = Duration::from_millis(300);
    proxy.set_latency(latency);
    let options = RemoteOptions {
        concurrency: 4,
        ..impatient()
    };
    let store = ObjectKvStore::new(remote_at(proxy.endpoint(), "bounded", "d", options));
    let start = std::time::Instant::now();
    for i in 0..4 {
        store
            .put(&key(&format!("v/{i}")), Bytes::from(vec![i as u8; 1000]))
            .unwrap();
    }
    assert!(
        start.elapsed() < latency,
        "the first puts do not wait: {:?}",
        start.elapsed()
    );
    for i in 4..8 {
        store
            .put(&key(&format!("v/{i}")), Bytes::from(vec![i as u8; 1000]))
            .unwrap();
    }
    store.close().unwrap();
    assert!(
        start.elapsed() >= latency * 2,
        "two rounds: {:?}",
        start.elapsed()
    );
    for i in 0..8u8 {
        let got = store.get(&key(&format!("v/{i}"))).unwrap().unwrap();
        assert_eq!(&got[..], &vec![i; 1000][..]);
    }
}
