//! Zarr v3 metadata and shard decoding: the input, split at 0xff bytes, is
//! a root `zarr.json`, an array's `zarr.json` (`v`) and one chunk, stored
//! under every key a chunk (or shard) of `v` may have at the origin
//! (`c/0`, `c/0/0`, `c.0.0`, `0`, `0.0`, ...). Opening and reading every
//! variable (whole when small, else a corner) must fail cleanly or
//! succeed, never panic or over-allocate.
#![no_main]

use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use nctk_model::{DataSource, Selection};
use nctk_store::kv::{MemoryStore, StoreKey, WritableStore};
use nctk_zarr::{ZarrOptions, ZarrReader};

/// Chunk keys at the origin for ranks 0 to 3, in both chunk key encodings
/// and both separators.
const CHUNK_KEYS: &[&str] = &[
    "c", "0", "c/0", "c.0", "c/0/0", "c.0.0", "0.0", "0/0", "c/0/0/0", "c.0.0.0", "0.0.0", "0/0/0",
];

fuzz_target!(|data: &[u8]| {
    let mut parts = data.splitn(3, |&b| b == 0xff);
    let root = parts.next().unwrap_or_default();
    let array = parts.next().unwrap_or_default();
    let chunk = parts.next().unwrap_or_default();
    let store = MemoryStore::new();
    let put = |k: &str, v: &[u8]| {
        store
            .put(&StoreKey::new(k).unwrap(), v.to_vec().into())
            .unwrap()
    };
    put("zarr.json", root);
    put("v/zarr.json", array);
    for key in CHUNK_KEYS {
        put(&format!("v/{key}"), chunk);
    }
    let Ok(r) = ZarrReader::open(Arc::new(store), ZarrOptions::default()) else {
        return;
    };
    let s = r.schema();
    for v in s.var_ids() {
        let shape = s.shape(v);
        let small = shape
            .iter()
            .try_fold(1u64, |a, &x| a.checked_mul(x))
            .is_some_and(|n| n <= 1 << 16);
        let sel = if small {
            Selection::all(&shape)
        } else {
            // A corner: the first chunk or shard, in part.
            let count: Vec<u64> = shape.iter().map(|&x| x.min(4)).collect();
            Selection::block(&vec![0; shape.len()], &count)
        };
        let _ = r.read(v, &sel);
    }
});
