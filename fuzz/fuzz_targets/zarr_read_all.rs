//! A small in-memory store built from the input (metadata, then chunks
//! `v/0`, `v/1`, ... or `v/0.0`, ...): opening and reading every variable
//! must fail cleanly or succeed, never panic or over-allocate.
#![no_main]

use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use nctk_model::{DataSource, Selection};
use nctk_store::kv::{MemoryStore, StoreKey, WritableStore};
use nctk_zarr::{ZarrOptions, ZarrReader};

fuzz_target!(|data: &[u8]| {
    let mut parts = data.split(|&b| b == 0xff);
    let zarray = parts.next().unwrap_or_default();
    let store = MemoryStore::new();
    let put = |k: &str, v: &[u8]| {
        store
            .put(&StoreKey::new(k).unwrap(), v.to_vec().into())
            .unwrap()
    };
    put(".zgroup", br#"{"zarr_format": 2}"#);
    put("v/.zarray", zarray);
    for (i, chunk) in parts.take(16).enumerate() {
        put(&format!("v/{i}"), chunk);
        put(&format!("v/{}.{}", i / 4, i % 4), chunk);
        put(&format!("v/{}/{}", i / 4, i % 4), chunk);
    }
    let Ok(r) = ZarrReader::open(Arc::new(store), ZarrOptions::default()) else {
        return;
    };
    let s = r.schema();
    for v in s.var_ids() {
        let shape = s.shape(v);
        // Keep the output small: the fuzzer should find bugs, not exhaust memory.
        if shape
            .iter()
            .try_fold(1u64, |a, &x| a.checked_mul(x))
            .is_none_or(|n| n > 1 << 16)
        {
            continue;
        }
        let _ = r.read(v, &Selection::all(&shape));
    }
});
