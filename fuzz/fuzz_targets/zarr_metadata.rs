//! Arbitrary bytes as the `.zarray`, `.zattrs` and root `.zgroup` of a
//! store: opening must fail cleanly or succeed, never panic.
#![no_main]

use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use nctk_store::kv::{MemoryStore, StoreKey, WritableStore};
use nctk_zarr::{ZarrOptions, ZarrReader};

fuzz_target!(|data: &[u8]| {
    let mut parts = data.splitn(3, |&b| b == 0xff);
    let zarray = parts.next().unwrap_or_default();
    let zattrs = parts.next().unwrap_or_default();
    let zgroup = parts.next().unwrap_or(br#"{"zarr_format": 2}"#);
    let store = MemoryStore::new();
    let put = |k: &str, v: &[u8]| {
        store
            .put(&StoreKey::new(k).unwrap(), v.to_vec().into())
            .unwrap()
    };
    put(".zgroup", zgroup);
    put("v/.zarray", zarray);
    put("v/.zattrs", zattrs);
    let store = Arc::new(store);
    for pure_zarr in [false, true] {
        let opts = ZarrOptions {
            pure_zarr,
            ..ZarrOptions::default()
        };
        let _ = ZarrReader::open(store.clone(), opts);
    }
});
