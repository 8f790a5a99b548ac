//! The object store's key/value store on Azure Blob Storage, against
//! Azurite (Azure's emulator, `npm install -g azurite`) reached through
//! `object_store`'s environment variables (`AZURE_STORAGE_USE_EMULATOR`,
//! `AZURITE_BLOB_STORAGE_URL`), as a user configures it: the store
//! contract every backend keeps, values uploaded in blocks, and faults
//! (through the fault-injecting proxy) retried or errors naming the key,
//! never missing keys. One Azurite serves every check.

#![cfg(feature = "connect")]

use std::time::Duration;

use nctk_store::conformance;
use nctk_store::kv::{Bytes, ReadableStore, StoreError, StoreKey, WritableStore};
use nctk_store_object::connect::{self, Access};
use nctk_store_object::{ObjectKvStore, RemoteOptions};
use nctk_test_servers::{azurite, Fault, FaultProxy};
use object_store::RetryConfig;

fn key(s: &str) -> StoreKey {
    StoreKey::new(s).unwrap()
}

/// The store at `url` (`az://container/prefix`), on the Azurite (or the
/// proxy in front of it) at `endpoint`.
fn store(endpoint: &str, url: &str, options: RemoteOptions) -> ObjectKvStore {
    std::env::set_var("AZURE_STORAGE_USE_EMULATOR", "true");
    std::env::set_var("AZURITE_BLOB_STORAGE_URL", endpoint);
    ObjectKvStore::new(connect::cloud(url, Access::Write, &options).expect("connect"))
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
        ..RemoteOptions::default()
    }
}

#[test]
fn azurite_keeps_the_store_contract_uploads_in_blocks_and_names_faults() {
    let Some(az) = azurite() else { return };
    let endpoint = az.endpoint();
    for container in ["root", "prefix", "big", "faults"] {
        az.create_container(container).unwrap();
    }

    // The contract, at a container's root and under a prefix.
    let default = RemoteOptions::default;
    conformance::kv_store(|| store(&endpoint, "az://root", default()));
    conformance::kv_store(|| store(&endpoint, "az://prefix/deep/data.zarr", default()));

    // A value above the multipart threshold goes up in blocks and reads
    // back whole and across block boundaries.
    let big = store(&endpoint, "az://big/p", default());
    let n = nctk_store_object::kv::MULTIPART_THRESHOLD * 2 + 12345;
    let value: Vec<u8> = (0..n).map(|i| (i * 7 % 251) as u8).collect();
    big.put(&key("v/0.0"), Bytes::from(value.clone())).unwrap();
    big.close().unwrap();
    assert_eq!(big.size(&key("v/0.0")).unwrap(), Some(n as u64));
    assert_eq!(big.get(&key("v/0.0")).unwrap().as_deref(), Some(&value[..]));
    let edge = nctk_store_object::kv::MULTIPART_THRESHOLD as u64;
    let r = big
        .get_range(&key("v/0.0"), edge - 10..edge + 10)
        .unwrap()
        .unwrap();
    assert_eq!(&r[..], &value[edge as usize - 10..edge as usize + 10]);
    assert_eq!(az.list_keys("big", "p/").unwrap(), ["p/v/0.0"]);

    // Faults: a 503 is retried; a 500 without retries, a body cut short
    // and a 403 are errors naming the key; only a 404 is missing.
    let proxy = FaultProxy::start(&endpoint).unwrap();
    let patient = RemoteOptions {
        retry: RetryConfig {
            max_retries: 4,
            backoff: object_store::BackoffConfig {
                init_backoff: Duration::from_millis(10),
                max_backoff: Duration::from_millis(50),
                base: 2.0,
            },
            retry_timeout: Duration::from_secs(20),
        },
        ..impatient()
    };
    let through = store(&proxy.endpoint(), "az://faults/d", patient);
    let k = key("v/0");
    let value: Bytes = (0..=255u8)
        .cycle()
        .take(100_000)
        .collect::<Vec<u8>>()
        .into();
    through.put(&k, value.clone()).unwrap();
    through.close().unwrap();
    proxy.fail_next(2, Fault::Status(503));
    assert_eq!(through.get(&k).unwrap(), Some(value), "503 retried");
    assert_eq!(proxy.pending_faults(), 0);

    let failing = store(&proxy.endpoint(), "az://faults/d", impatient());
    let names_key = |e: StoreError| {
        let text = e.to_string();
        assert!(text.contains("v/0"), "{text}");
        text
    };
    proxy.fail_next(1, Fault::Status(500));
    names_key(failing.get(&k).unwrap_err());
    proxy.fail_next(1, Fault::Status(500));
    assert!(
        failing.size(&k).is_err(),
        "a failed HEAD is not a missing key"
    );
    proxy.fail_next(1, Fault::TruncatedBody);
    names_key(failing.get(&k).unwrap_err());
    proxy.fail_next(1, Fault::Forbidden);
    let denied = names_key(failing.get(&k).unwrap_err());
    assert!(denied.contains("access denied"), "{denied}");
    proxy.clear_faults();
    assert_eq!(
        failing.get(&key("v/missing")).unwrap(),
        None,
        "a 404 is missing"
    );
}
