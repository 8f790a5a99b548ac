//! The writer's chunk pipeline: chunks written whole are stored once and
//! never read back; no more chunks are being stored at once than there are
//! worker threads; a store failing on another thread surfaces as an error
//! naming the key. Checked on one thread (inline) and on a pool of 3.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use nctk_model::{
    DataSource, DataType, GroupId, Layout, Schema, Selection, Values, VarId, VarStorage,
};
use nctk_store::kv::{
    Bytes, Capabilities, MemoryStore, ReadableStore, StoreError, StoreKey, WritableStore,
};
use nctk_zarr::{WriteOptions, ZarrOptions, ZarrReader, ZarrWriter};

/// A memory store that counts chunks read back and writes, tracks how many puts
/// run at once (each takes a moment), and can fail the put of one key.
#[derive(Default)]
struct Watched {
    inner: Arc<MemoryStore>,
    chunk_gets: AtomicUsize,
    puts: Mutex<HashMap<String, usize>>,
    active: AtomicUsize,
    most_active: AtomicUsize,
    fail_key: Option<String>,
}

fn is_chunk(key: &StoreKey) -> bool {
    !key.name().starts_with('.')
}

impl ReadableStore for Watched {
    fn get(&self, key: &StoreKey) -> Result<Option<Bytes>, StoreError> {
        let got = self.inner.get(key)?;
        if is_chunk(key) && got.is_some() {
            self.chunk_gets.fetch_add(1, Ordering::SeqCst);
        }
        Ok(got)
    }

    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }
}

impl WritableStore for Watched {
    fn put(&self, key: &StoreKey, value: Bytes) -> Result<(), StoreError> {
        let now = self.active.fetch_add(1, Ordering::SeqCst) + 1;
        self.most_active.fetch_max(now, Ordering::SeqCst);
        std::thread::sleep(std::time::Duration::from_millis(2));
        self.active.fetch_sub(1, Ordering::SeqCst);
        if self.fail_key.as_deref() == Some(key.as_str()) {
            return Err(StoreError::Io {
                key: key.to_string(),
                op: "write",
                source: std::io::Error::other("injected failure"),
            });
        }
        *self
            .puts
            .lock()
            .unwrap()
            .entry(key.to_string())
            .or_default() += 1;
        self.inner.put(key, value)
    }

    fn delete(&self, key: &StoreKey) -> Result<(), StoreError> {
        self.inner.delete(key)
    }
}

/// `v(t=10, y=6, x=8)` int in chunks of (2, 3, 8), zlib-compressed.
fn schema() -> (Schema, VarId) {
    let mut s = Schema::new();
    let r = GroupId::ROOT;
    let t = s.add_dim(r, "t", 10, false).unwrap();
    let y = s.add_dim(r, "y", 6, false).unwrap();
    let x = s.add_dim(r, "x", 8, false).unwrap();
    let v = s.add_var(r, "v", DataType::Int, &[t, y, x]).unwrap();
    s.var_mut(v).storage = VarStorage {
        layout: Layout::Chunked(vec![2, 3, 8]),
        deflate_level: Some(1),
        ..VarStorage::default()
    };
    (s, v)
}

fn options() -> WriteOptions {
    WriteOptions {
        // One chunk (96 bytes) fits; more would be stored early.
        cache_bytes: 100,
        ..WriteOptions::default()
    }
}

fn value(t: u64, y: u64, x: u64) -> i32 {
    (t * 1000 + y * 10 + x) as i32
}

fn block(start: [u64; 3], count: [u64; 3]) -> (Selection, Values) {
    let mut vals = vec![];
    for t in start[0]..start[0] + count[0] {
        for y in start[1]..start[1] + count[1] {
            for x in start[2]..start[2] + count[2] {
                vals.push(value(t, y, x));
            }
        }
    }
    (Selection::block(&start, &count), Values::Int(vals))
}

/// Writes everything in slabs aligned with the chunks: one chunk exactly,
/// two whole chunks at once, a chunk in three parts (rows), and a block of
/// four whole chunks.
fn write_aligned(w: &mut ZarrWriter, v: VarId) {
    let slabs = [
        ([0, 0, 0], [2, 3, 8]),
        ([0, 3, 0], [2, 3, 8]),
        ([2, 0, 0], [2, 6, 8]),
        ([4, 0, 0], [2, 1, 8]),
        ([4, 1, 0], [2, 1, 8]),
        ([4, 2, 0], [2, 1, 8]),
        ([4, 3, 0], [2, 3, 8]),
        ([6, 0, 0], [4, 6, 8]),
    ];
    for (start, count) in slabs {
        let (sel, vals) = block(start, count);
        w.write(v, &sel, &vals).unwrap();
    }
}

fn check_values(store: Arc<Watched>, v: VarId) {
    let r = ZarrReader::open(store.inner.clone(), ZarrOptions::default()).unwrap();
    let (sel, want) = block([0, 0, 0], [10, 6, 8]);
    assert_eq!(r.read(v, &sel).unwrap(), want);
}

fn on_threads(n: usize, f: impl FnOnce() + Send) {
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .unwrap()
        .install(f);
}

#[test]
fn aligned_writes_store_each_chunk_once_and_never_read_back() {
    for threads in [1, 3] {
        on_threads(threads, || {
            let (s, v) = schema();
            let store = Arc::new(Watched::default());
            let mut w = ZarrWriter::create(store.clone(), &s, &options()).unwrap();
            write_aligned(&mut w, v);
            w.finish().unwrap();
            assert_eq!(
                store.chunk_gets.load(Ordering::SeqCst),
                0,
                "{threads} threads"
            );
            let puts = store.puts.lock().unwrap().clone();
            let chunks: Vec<_> = puts
                .iter()
                .filter(|(k, _)| k.starts_with("v/") && !k.contains("/."))
                .collect();
            assert_eq!(chunks.len(), 10, "{puts:?}");
            assert!(chunks.iter().all(|(_, &n)| n == 1), "{puts:?}");
            assert!(
                store.most_active.load(Ordering::SeqCst) <= threads,
                "{} puts at once on {threads} threads",
                store.most_active.load(Ordering::SeqCst)
            );
            check_values(store, v);
        });
    }
}

#[test]
fn unaligned_writes_read_back_what_was_stored() {
    on_threads(3, || {
        let (s, v) = schema();
        let store = Arc::new(Watched::default());
        let mut w = ZarrWriter::create(store.clone(), &s, &options()).unwrap();
        // Rows of 3 across chunk boundaries, then everything again.
        for t in 0..10 {
            for y in [0, 3] {
                let (sel, vals) = block([t, y, 0], [1, 3, 8]);
                w.write(v, &sel, &vals).unwrap();
            }
        }
        let (sel, vals) = block([1, 2, 3], [8, 3, 4]);
        w.write(v, &sel, &vals).unwrap();
        w.finish().unwrap();
        assert!(store.chunk_gets.load(Ordering::SeqCst) > 0);
        check_values(store, v);
    });
}

#[test]
fn a_failing_store_names_the_chunk() {
    for threads in [1, 3] {
        on_threads(threads, || {
            let (s, v) = schema();
            let store = Arc::new(Watched {
                fail_key: Some("v/2.0.0".into()),
                ..Watched::default()
            });
            let mut w = ZarrWriter::create(store.clone(), &s, &options()).unwrap();
            let mut result = Ok(());
            for t in (0..10).step_by(2) {
                let (sel, vals) = block([t, 0, 0], [2, 6, 8]);
                result = result.and_then(|_| w.write(v, &sel, &vals));
            }
            let err = result.and_then(|_| w.finish()).unwrap_err().to_string();
            assert!(
                err.contains("v/2.0.0") && err.contains("injected failure"),
                "{err}"
            );
        });
    }
}
