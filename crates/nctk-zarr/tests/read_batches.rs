//! The read path fetches chunks through `get_many` in batches, each chunk
//! once, ahead of decoding: a counting store over the real directory store
//! zarr-python wrote records every request, and the values equal
//! zarr-python's (missing chunks read as the fill value).

use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use nctk_model::{DataSource, Selection, Values};
use nctk_store::kv::{
    Capabilities, DirectoryStore, ListableStore, Listing, ReadableStore, StoreError, StoreKey,
    StorePrefix,
};
use nctk_test_support::require;
use nctk_zarr::{ZarrOptions, ZarrReader};

/// Writes the store at `argv[1]` and prints each array's values as JSON:
/// `grid` (30 x 40 float32 in 4 x 5 chunks, zlib; rows 20 on never
/// written, so their chunks are missing) and `long` (2100 int32 in chunks
/// of 2: more chunks than one batch holds).
const PY_WRITE: &str = r#"
import sys, json
import numpy as np
import numcodecs
import zarr
g = zarr.open_group(sys.argv[1], mode="w", zarr_format=2)
grid = g.create_array("grid", shape=(30, 40), chunks=(4, 5), dtype="<f4",
                      compressors=numcodecs.Zlib(level=1), fill_value=-1.0)
grid[0:20, :] = (np.arange(800, dtype="<f4") * 0.5 - 7).reshape(20, 40)
long = g.create_array("long", shape=(2100,), chunks=(2,), dtype="<i4",
                      compressors=None, fill_value=0)
long[:] = np.arange(2100, dtype="<i4") * 3 - 1000
print(json.dumps({k: g[k][...].ravel().tolist() for k in ("grid", "long")}))
"#;

/// A directory store that records the requests reaching it; `remote`
/// makes it declare itself a network store (`Capabilities::fetch_ahead`),
/// as an object store will.
struct Counting {
    inner: DirectoryStore,
    remote: bool,
    gets: Mutex<Vec<StoreKey>>,
    batches: Mutex<Vec<Vec<StoreKey>>>,
}

impl ReadableStore for Counting {
    fn get(&self, key: &StoreKey) -> Result<Option<Bytes>, StoreError> {
        self.gets.lock().unwrap().push(key.clone());
        self.inner.get(key)
    }
    fn get_range(&self, key: &StoreKey, range: Range<u64>) -> Result<Option<Bytes>, StoreError> {
        self.gets.lock().unwrap().push(key.clone());
        self.inner.get_range(key, range)
    }
    fn get_many(&self, keys: &[StoreKey]) -> Result<Vec<Option<Bytes>>, StoreError> {
        self.batches.lock().unwrap().push(keys.to_vec());
        self.inner.get_many(keys)
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            fetch_ahead: self.remote,
            ..self.inner.capabilities()
        }
    }
}

impl ListableStore for Counting {
    fn list_dir(&self, prefix: &StorePrefix) -> Result<Listing, StoreError> {
        self.inner.list_dir(prefix)
    }
}

fn as_f64(v: &Values) -> Vec<f64> {
    match v {
        Values::Float(a) => a.iter().map(|&x| x as f64).collect(),
        Values::Int(a) => a.iter().map(|&x| x as f64).collect(),
        other => panic!("unexpected type {other:?}"),
    }
}

/// Each chunk key fetched by `requests`, and how many times.
fn counts<'a>(requests: impl Iterator<Item = &'a StoreKey>) -> HashMap<String, usize> {
    let mut fetched = HashMap::new();
    for k in requests {
        *fetched.entry(k.to_string()).or_default() += 1;
    }
    fetched
}

/// (array, shape, chunk keys as zarr-python names them) of `PY_WRITE`'s store.
fn cases() -> [(&'static str, &'static [u64], Vec<String>); 2] {
    [
        (
            "grid",
            &[30, 40],
            (0..8)
                .flat_map(|i| (0..8).map(move |j| format!("grid/{i}.{j}")))
                .collect(),
        ),
        (
            "long",
            &[2100],
            (0..1050).map(|i| format!("long/{i}")).collect(),
        ),
    ]
}

/// zarr-python's store at `root` and the values it reads, or `None`
/// (skipped) without zarr-python.
fn written(root: &std::path::Path) -> Option<HashMap<String, Vec<f64>>> {
    let out = require::python_output(&["zarr", "numcodecs", "numpy"], PY_WRITE, [root])?;
    Some(serde_json::from_str(&out).unwrap())
}

/// Reads every array of zarr-python's store through a [`Counting`] store
/// (`remote` as given), checks the values against zarr-python's, and hands
/// each array's requests to `check` with the chunk keys it must fetch once
/// each. Returns the store, or `None` (skipped) without zarr-python.
fn read_counted(
    remote: bool,
    check: impl Fn(&str, &Counting, HashMap<String, usize>),
) -> Option<Arc<Counting>> {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("counted.zarr");
    let want = written(&root)?;
    let store = Arc::new(Counting {
        inner: DirectoryStore::open(&root).unwrap(),
        remote,
        gets: Mutex::default(),
        batches: Mutex::default(),
    });
    let reader = ZarrReader::open(store.clone(), ZarrOptions::default()).unwrap();
    for (name, shape, chunk_keys) in cases() {
        store.gets.lock().unwrap().clear();
        store.batches.lock().unwrap().clear();
        let var = reader.schema().var_by_path(name).unwrap();
        let got = reader.read(var, &Selection::all(shape)).unwrap();
        assert_eq!(
            as_f64(&got),
            want[name],
            "{name}: values against zarr-python"
        );
        check(
            name,
            &store,
            chunk_keys.into_iter().map(|k| (k, 1)).collect(),
        );
    }
    Some(store)
}

/// A remote store gets batches through `get_many`, fetched ahead.
#[test]
fn chunks_are_fetched_once_each_in_batches_through_get_many() {
    let Some(store) = read_counted(true, |name, store, once| {
        let gets = store.gets.lock().unwrap();
        assert!(gets.is_empty(), "{name}: single reads {gets:?}");
        let batches = store.batches.lock().unwrap();
        assert!(
            batches.iter().all(|b| b.len() > 1),
            "{name}: batch sizes {:?}",
            batches.iter().map(Vec::len).collect::<Vec<_>>()
        );
        assert_eq!(
            counts(batches.iter().flatten()),
            once,
            "{name}: each chunk fetched once"
        );
    }) else {
        return;
    };
    // More chunks than one batch holds ("long", read last): several
    // batches, fetched ahead.
    assert!(store.batches.lock().unwrap().len() > 1, "long: one batch");
}

/// Local storage is read by the decoding tasks themselves: one `get` per
/// chunk, no batches, each chunk once, the same values.
#[test]
fn local_chunks_are_fetched_once_each_by_the_decoding_tasks() {
    read_counted(false, |name, store, once| {
        assert!(store.batches.lock().unwrap().is_empty(), "{name}: batches");
        assert_eq!(
            counts(store.gets.lock().unwrap().iter()),
            once,
            "{name}: each chunk fetched once"
        );
    });
}
