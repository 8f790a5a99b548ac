//! Reading a sharded Zarr v3 array written by zarr-python touches only the
//! inner chunks a selection needs, in few round trips: a counting store
//! over the real directory store (declaring itself a network store, as an
//! object store does) records every request. Reading one time step costs
//! one batch of index reads and one batch of chunk reads; a second time
//! step of the same shard only the chunk read (the index is cached); the
//! values equal zarr-python's, missing inner chunks and shards read as fill.

use std::ops::Range;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use nctk_model::{DataSource, Selection, Values, VarId};
use nctk_store::kv::{
    ByteRange, Capabilities, DirectoryStore, ListableStore, Listing, ReadableStore, StoreError,
    StoreKey, StorePrefix,
};
use nctk_test_support::require;
use nctk_zarr::{ZarrOptions, ZarrReader};

/// Writes the store at `argv[1]`: `temp` (12 x 6 x 8 float32, inner chunks
/// (1, 6, 4) in shards (4, 6, 8), zstd, index at the end; time steps 9 on
/// never written, so shard 2 is partly empty) and `start` (the same with
/// the index at the start and gzip), then prints the values zarr-python
/// reads; `whole` keeps zarr-python's default compressor after a sharding
/// serializer, so its shards are compressed whole.
const PY_WRITE: &str = r#"
import sys, json
import numpy as np
import zarr
from zarr.codecs import ShardingCodec, BytesCodec, ZstdCodec, GzipCodec, Crc32cCodec
g = zarr.open_group(sys.argv[1], mode="w", zarr_format=3)
data = (np.arange(12 * 6 * 8, dtype="<f4") * 0.25 - 3).reshape(12, 6, 8)
t = g.create_array("temp", shape=(12, 6, 8), chunks=(1, 6, 4), shards=(4, 6, 8),
                   dtype="<f4", compressors=ZstdCodec(level=1), fill_value=-1.0,
                   dimension_names=["time", "lat", "lon"])
t[:9] = data[:9]
s = g.create_array("start", shape=(12, 6, 8), dtype="<f4", fill_value=-1.0, compressors=None,
                   chunks=(4, 6, 8), dimension_names=["time", "lat", "lon"],
                   serializer=ShardingCodec(chunk_shape=(1, 6, 4),
                       codecs=[BytesCodec(), GzipCodec(level=1)],
                       index_codecs=[BytesCodec(), Crc32cCodec()], index_location="start"))
s[:9] = data[:9]
w = g.create_array("whole", shape=(12, 6, 8), dtype="<f4", fill_value=-1.0,
                   chunks=(4, 6, 8), serializer=ShardingCodec(chunk_shape=(2, 3, 4)))
w[:9] = data[:9]
print(json.dumps({k: g[k][...].ravel().tolist() for k in ("temp", "start", "whole")}))
"#;

/// A directory store that records each request (a batch counts once).
struct Counting {
    inner: DirectoryStore,
    requests: Mutex<Vec<String>>,
}

impl Counting {
    fn log(&self, what: String) {
        self.requests.lock().unwrap().push(what);
    }
    fn take(&self) -> Vec<String> {
        std::mem::take(&mut self.requests.lock().unwrap())
    }
}

impl ReadableStore for Counting {
    fn get(&self, key: &StoreKey) -> Result<Option<Bytes>, StoreError> {
        self.log(format!("get {key}"));
        self.inner.get(key)
    }
    fn get_range(&self, key: &StoreKey, range: Range<u64>) -> Result<Option<Bytes>, StoreError> {
        self.log(format!("get_range {key} {range:?}"));
        self.inner.get_range(key, range)
    }
    fn size(&self, key: &StoreKey) -> Result<Option<u64>, StoreError> {
        self.log(format!("size {key}"));
        self.inner.size(key)
    }
    fn get_many(&self, keys: &[StoreKey]) -> Result<Vec<Option<Bytes>>, StoreError> {
        self.log(format!("get_many {}", keys.len()));
        self.inner.get_many(keys)
    }
    fn get_ranges(
        &self,
        requests: &[(StoreKey, ByteRange)],
    ) -> Result<Vec<Option<Bytes>>, StoreError> {
        self.log(format!("get_ranges {requests:?}"));
        self.inner.get_ranges(requests)
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            fetch_ahead: true,
            ..self.inner.capabilities()
        }
    }
}

impl ListableStore for Counting {
    fn list_dir(&self, prefix: &StorePrefix) -> Result<Listing, StoreError> {
        self.log(format!("list_dir {prefix:?}"));
        self.inner.list_dir(prefix)
    }
}

fn floats(v: &Values) -> Vec<f64> {
    match v {
        Values::Float(a) => a.iter().map(|&x| f64::from(x)).collect(),
        other => panic!("expected floats, got {other:?}"),
    }
}

/// Writes with xarray's `to_zarr` defaults (Zarr v3, consolidated) a
/// dataset of three variables and a group, at `argv[1]`.
const PY_XARRAY: &str = r#"
import sys
import numpy as np
import xarray as xr
ds = xr.Dataset({"t": (("time", "x"), np.arange(6.0).reshape(2, 3)), "s": ("x", ["a", "b", "c"])},
                coords={"x": [1, 2, 3]})
ds.to_zarr(sys.argv[1], mode="w")
xr.Dataset({"u": ("y", [1, 2])}).to_zarr(sys.argv[1], group="g", mode="a")
"#;

/// Opening a store with zarr-python's inline consolidated metadata reads
/// the root `zarr.json` and lists nothing.
#[test]
fn consolidated_metadata_opens_in_one_request() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("xr.zarr");
    if require::python_output(&["xarray", "zarr"], PY_XARRAY, [&root]).is_none() {
        return;
    }
    let store = Arc::new(Counting {
        inner: DirectoryStore::open(&root).unwrap(),
        requests: Mutex::default(),
    });
    let reader = ZarrReader::open(store.clone(), ZarrOptions::default()).unwrap();
    let requests = store.take();
    assert_eq!(requests.len(), 1, "{requests:#?}");
    let schema = reader.schema();
    let names: Vec<&str> = schema
        .var_ids()
        .map(|v| schema.var(v).name.as_str())
        .collect();
    assert_eq!(names, ["s", "t", "x", "u"], "{names:?}");
}

#[test]
fn one_time_step_costs_two_round_trips_then_one() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("sharded.zarr");
    let Some(out) = require::python_output(&["zarr", "numpy"], PY_WRITE, [&root]) else {
        return;
    };
    let expected: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let store = Arc::new(Counting {
        inner: DirectoryStore::open(&root).unwrap(),
        requests: Mutex::default(),
    });
    let reader = ZarrReader::open(store.clone(), ZarrOptions::default()).unwrap();
    let schema = reader.schema();
    for (v, name) in [(VarId(0), "start"), (VarId(1), "temp")] {
        assert_eq!(schema.var(v).name, name);
        let want: Vec<f64> = expected[name]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        // Whole variable: every value as zarr-python reads it.
        store.take();
        let all = floats(&reader.read(v, &Selection::all(&[12, 6, 8])).unwrap());
        assert_eq!(all, want, "{name}");
        // A fresh reader: one time step of shard 1 costs the index batch
        // and the chunk batch; the next step of the same shard, one request.
        let fresh = ZarrReader::open(store.clone(), ZarrOptions::default()).unwrap();
        store.take();
        let step = |t: u64| Selection::block(&[t, 0, 0], &[1, 6, 8]);
        let got = floats(&fresh.read(v, &step(5)).unwrap());
        assert_eq!(got, want[5 * 48..6 * 48], "{name} step 5");
        let first = store.take();
        assert_eq!(first.len(), 2, "{name}: step 5 took {first:#?}");
        assert!(first[0].starts_with("get_ranges"), "{name}: {first:#?}");
        let got = floats(&fresh.read(v, &step(6)).unwrap());
        assert_eq!(got, want[6 * 48..7 * 48], "{name} step 6");
        let second = store.take();
        assert_eq!(second.len(), 1, "{name}: step 6 took {second:#?}");
        // Both inner chunks of a step come from one coalesced request.
        assert!(second[0].starts_with("get_range "), "{name}: {second:#?}");
        // A step never written (inner chunks missing from shard 2) is fill.
        let got = floats(&fresh.read(v, &step(10)).unwrap());
        assert!(got.iter().all(|&x| x == -1.0), "{name} step 10: {got:?}");
    }
    // Shards compressed whole: read whole and decoded once per shard.
    assert_eq!(schema.var(VarId(2)).name, "whole");
    let want: Vec<f64> = expected["whole"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    let all = floats(&reader.read(VarId(2), &Selection::all(&[12, 6, 8])).unwrap());
    assert_eq!(all, want, "whole");
    let some = Selection {
        start: vec![1, 1, 2],
        count: vec![5, 2, 3],
        stride: vec![2, 3, 2],
    };
    let got = floats(&reader.read(VarId(2), &some).unwrap());
    let mut expected_some = vec![];
    for a in 0..5 {
        for b in 0..2 {
            for c in 0..3 {
                expected_some.push(want[(1 + 2 * a) * 48 + (1 + 3 * b) * 8 + 2 + 2 * c]);
            }
        }
    }
    assert_eq!(got, expected_some, "whole, strided");
}
