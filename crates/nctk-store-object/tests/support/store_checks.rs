//! What the store tests on emulated servers (S3 on moto, GCS on
//! fake-gcs-server, Azure on Azurite) share: the options they connect
//! with, the values they write, and the checks of what a store reads back
//! and of what faults at a [`FaultProxy`] in front of the server become.

// Each test binary including this uses a part of it.
#![allow(dead_code)]

use std::time::Duration;

use nctk_store::kv::{ReadableStore, StoreError, StoreKey};
use nctk_store_object::kv::MULTIPART_THRESHOLD;
use nctk_store_object::{ObjectKvStore, RemoteOptions};
use nctk_test_servers::{Fault, FaultProxy};
use object_store::{BackoffConfig, RetryConfig};

/// Options failing fast: no retries, short timeouts.
pub fn impatient() -> RemoteOptions {
    RemoteOptions {
        retry: RetryConfig {
            max_retries: 0,
            retry_timeout: Duration::from_secs(1),
            ..RetryConfig::default()
        },
        timeout: Duration::from_secs(5),
        connect_timeout: Duration::from_secs(1),
        concurrency: 4,
        ..RemoteOptions::default()
    }
}

/// [`impatient`] options, but retrying: four retries, 10 ms to 50 ms
/// apart, within 20 s.
pub fn patient() -> RemoteOptions {
    RemoteOptions {
        retry: RetryConfig {
            max_retries: 4,
            backoff: BackoffConfig {
                init_backoff: Duration::from_millis(10),
                max_backoff: Duration::from_millis(50),
                base: 2.0,
            },
            retry_timeout: Duration::from_secs(20),
        },
        ..impatient()
    }
}

/// 100,000 bytes counting from 0 to 255 over and over: the value the
/// faults are put in front of.
pub fn fault_value() -> Vec<u8> {
    (0..=255u8).cycle().take(100_000).collect()
}

/// A value of twice the multipart threshold and more, which goes up in
/// three parts (blocks).
pub fn multipart_value() -> Vec<u8> {
    let n = MULTIPART_THRESHOLD * 2 + 12345;
    (0..n).map(|i| (i * 7 % 251) as u8).collect()
}

/// `store` holds `value` at `k`: its size, the whole of it, and the bytes
/// across the end of its first part (at the multipart threshold).
pub fn assert_reads_back_across_parts(store: &ObjectKvStore, k: &StoreKey, value: &[u8]) {
    assert_eq!(store.size(k).unwrap(), Some(value.len() as u64));
    assert_eq!(store.get(k).unwrap().as_deref(), Some(value));
    let edge = MULTIPART_THRESHOLD as u64;
    let r = store.get_range(k, edge - 10..edge + 10).unwrap().unwrap();
    assert_eq!(&r[..], &value[edge as usize - 10..edge as usize + 10]);
}

/// `fault`, given by `proxy` to the next two requests, is retried by
/// `store` (connected through `proxy` with [`patient`] options), which
/// reads `value` at `k`; both faults were met.
pub fn assert_retried(
    proxy: &FaultProxy,
    store: &ObjectKvStore,
    k: &StoreKey,
    value: &[u8],
    fault: Fault,
) {
    proxy.fail_next(2, fault);
    assert_eq!(
        store.get(k).unwrap().as_deref(),
        Some(value),
        "{fault:?} retried"
    );
    assert_eq!(proxy.pending_faults(), 0);
}

/// Faults `proxy` gives `store` (connected through it with [`impatient`]
/// options, holding a value at `k`): a 500, a body cut short and a 403 are
/// errors naming `k` (the 403's saying "access denied"), a 500 to a HEAD
/// is an error too, never a missing key; only a 404 (`v/missing`) is
/// missing. No fault is left queued.
pub fn assert_faults_are_errors_naming_the_key(
    proxy: &FaultProxy,
    store: &ObjectKvStore,
    k: &StoreKey,
) {
    let names_key = |e: StoreError| {
        let text = e.to_string();
        assert!(text.contains(k.as_str()), "{text}");
        text
    };
    proxy.fail_next(1, Fault::Status(500));
    names_key(store.get(k).unwrap_err());
    proxy.fail_next(1, Fault::Status(500));
    assert!(store.size(k).is_err(), "a failed HEAD is not a missing key");
    proxy.fail_next(1, Fault::TruncatedBody);
    names_key(store.get(k).unwrap_err());
    proxy.fail_next(1, Fault::Forbidden);
    let denied = names_key(store.get(k).unwrap_err());
    assert!(denied.contains("access denied"), "{denied}");
    proxy.clear_faults();
    let missing = StoreKey::new("v/missing").unwrap();
    assert_eq!(store.get(&missing).unwrap(), None, "a 404 is missing");
}
