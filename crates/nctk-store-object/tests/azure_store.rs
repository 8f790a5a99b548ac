//! The object store's key/value store on Azure Blob Storage, against
//! Azurite (Azure's emulator, `npm install -g azurite`) reached through
//! `object_store`'s environment variables (`AZURE_STORAGE_USE_EMULATOR`,
//! `AZURITE_BLOB_STORAGE_URL`), as a user configures it: the store
//! contract every backend keeps, values uploaded in blocks, and faults
//! (through the fault-injecting proxy) retried or errors naming the key,
//! never missing keys. One Azurite serves every check.

#![cfg(feature = "connect")]

#[path = "support/store_checks.rs"]
mod store_checks;
use store_checks::{
    assert_faults_are_errors_naming_the_key, assert_reads_back_across_parts, assert_retried,
    fault_value, impatient, multipart_value, patient,
};

use nctk_store::conformance;
use nctk_store::kv::{Bytes, StoreKey, WritableStore};
use nctk_store_object::connect::{self, Access};
use nctk_store_object::{ObjectKvStore, RemoteOptions};
use nctk_test_servers::{azurite, Fault, FaultProxy};

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
    let value = multipart_value();
    big.put(&key("v/0.0"), Bytes::from(value.clone())).unwrap();
    big.close().unwrap();
    assert_reads_back_across_parts(&big, &key("v/0.0"), &value);
    assert_eq!(az.list_keys("big", "p/").unwrap(), ["p/v/0.0"]);

    // Faults: a 503 is retried; a 500 without retries, a body cut short
    // and a 403 are errors naming the key; only a 404 is missing.
    let proxy = FaultProxy::start(&endpoint).unwrap();
    let through = store(&proxy.endpoint(), "az://faults/d", patient());
    let k = key("v/0");
    let value = fault_value();
    through.put(&k, Bytes::from(value.clone())).unwrap();
    through.close().unwrap();
    assert_retried(&proxy, &through, &k, &value, Fault::Status(503));

    let failing = store(&proxy.endpoint(), "az://faults/d", impatient());
    assert_faults_are_errors_naming_the_key(&proxy, &failing, &k);
}
