//! The Zarr v3 writer driven directly: the root `zarr.json` (which makes a
//! store open as a dataset) is stored last and only by `finish`; writes
//! scattered over sharded and string arrays through a cache too small to
//! hold anything (every shard and vlen chunk written in part is stored,
//! read back and decoded on its next write) leave what zarr-python reads
//! as the values written; a sharded array written in order holds at most
//! the cache plus the encoded shards being assembled, measured by a
//! counting global allocator.

mod stores;

use std::alloc::{GlobalAlloc, Layout as AllocLayout, System};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use nctk_model::{DataType, GroupId, Layout, Schema, Selection, Values, VarStorage};
use nctk_store::kv::{
    Bytes, Capabilities, MemoryStore, ReadableStore, StoreError, StoreKey, WritableStore,
};
use nctk_test_support::require;
use nctk_zarr::{WriteLayout, WriteOptions, ZarrWriter};

/// The system allocator, counting the bytes allocated now and at most.
struct Counting;

static HELD: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call goes to the system allocator; only counts are added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: AllocLayout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc`, passed on.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = HELD.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: AllocLayout) {
        HELD.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` came from `alloc` above with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The tests of this file one at a time, so that the memory measured is
/// one test's.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

/// A store keeping only the length of each object put (nothing is read
/// back: its memory is not the writer's).
#[derive(Default)]
struct Sizes(Mutex<HashMap<String, usize>>);

impl ReadableStore for Sizes {
    fn get(&self, _: &StoreKey) -> Result<Option<Bytes>, StoreError> {
        Ok(None)
    }
    fn capabilities(&self) -> Capabilities {
        MemoryStore::new().capabilities()
    }
}

impl WritableStore for Sizes {
    fn put(&self, key: &StoreKey, value: Bytes) -> Result<(), StoreError> {
        let mut sizes = self.0.lock().unwrap();
        sizes.insert(key.to_string(), value.len());
        Ok(())
    }
    fn delete(&self, key: &StoreKey) -> Result<(), StoreError> {
        self.0.lock().unwrap().remove(key.as_str());
        Ok(())
    }
}

/// A memory store recording the keys put, in order.
#[derive(Default)]
struct Recording {
    inner: MemoryStore,
    puts: Mutex<Vec<String>>,
}

impl ReadableStore for Recording {
    fn get(&self, key: &StoreKey) -> Result<Option<Bytes>, StoreError> {
        self.inner.get(key)
    }
    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }
}

impl WritableStore for Recording {
    fn put(&self, key: &StoreKey, value: Bytes) -> Result<(), StoreError> {
        self.puts.lock().unwrap().push(key.to_string());
        self.inner.put(key, value)
    }
    fn delete(&self, key: &StoreKey) -> Result<(), StoreError> {
        self.inner.delete(key)
    }
}

/// `v(t, x)` float, `t` unlimited, chunks (1, 3) in shards (2, 6);
/// `s(x)` string in chunks of 4; a subgroup `g` with `w(x)` int.
fn schema() -> Schema {
    let mut s = Schema::new();
    let r = GroupId::ROOT;
    let t = s.add_dim(r, "t", 0, true).unwrap();
    let x = s.add_dim(r, "x", 10, false).unwrap();
    let v = s.add_var(r, "v", DataType::Float, &[t, x]).unwrap();
    s.var_mut(v).storage = VarStorage {
        layout: Layout::Chunked(vec![1, 3]),
        shards: Some(vec![2, 6]),
        ..VarStorage::default()
    };
    let st = s.add_var(r, "s", DataType::String, &[x]).unwrap();
    s.var_mut(st).storage.layout = Layout::Chunked(vec![4]);
    let g = s.add_group(r, "g").unwrap();
    s.add_var(g, "w", DataType::Int, &[x]).unwrap();
    s
}

#[test]
fn the_root_zarr_json_is_stored_last_and_only_when_finished() {
    let _serial = serial();
    for nczarr in [false, true] {
        let store = Arc::new(Recording::default());
        let opts = WriteOptions {
            layout: WriteLayout::ZarrV3 { nczarr },
            ..WriteOptions::default()
        };
        let schema = schema();
        let mut w = ZarrWriter::create(store.clone(), &schema, &opts).unwrap();
        let w_id = schema.var_ids().last().unwrap();
        w.write(
            w_id,
            &Selection::all(&[10]),
            &Values::Int((0..10).collect()),
        )
        .unwrap();
        let root = StoreKey::new("zarr.json").unwrap();
        assert!(store.get(&root).unwrap().is_none(), "root before finish");
        assert!(store
            .get(&StoreKey::new("g/w/zarr.json").unwrap())
            .unwrap()
            .is_some());
        w.finish().unwrap();
        let puts = store.puts.lock().unwrap();
        assert_eq!(
            puts.last().map(String::as_str),
            Some("zarr.json"),
            "{puts:?}"
        );
        assert_eq!(puts.iter().filter(|k| *k == "zarr.json").count(), 1);
    }
    // An aborted writer leaves no root.
    let store = Arc::new(Recording::default());
    let opts = WriteOptions {
        layout: WriteLayout::ZarrV3 { nczarr: true },
        ..WriteOptions::default()
    };
    let w = ZarrWriter::create(store.clone(), &schema(), &opts).unwrap();
    w.abort().unwrap();
    assert!(store.puts.lock().unwrap().iter().all(|k| k != "zarr.json"));
}

#[test]
fn scattered_writes_through_a_tiny_cache_read_back_in_zarr_python() {
    let _serial = serial();
    if !require::python(&["zarr"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let schema = schema();
    let ids: Vec<_> = schema.var_ids().collect();
    let (v, s) = (ids[0], ids[1]);
    let mut expect_v = vec![f32::NAN; 5 * 10];
    let mut expect_s = vec![String::new(); 10];
    let mut paths = vec![];
    for nczarr in [false, true] {
        let path = dir.path().join(format!("{nczarr}.zarr"));
        let opts = WriteOptions {
            layout: WriteLayout::ZarrV3 { nczarr },
            // Nothing stays cached: each partial shard is stored at once.
            cache_bytes: 1,
            ..WriteOptions::default()
        };
        let mut w = stores::create_dir(&path, &schema, &opts).unwrap();
        // Column by column, rows 0..5 (t grows), leaving (4, 7) unwritten.
        for x in 0..10u64 {
            for t in 0..5u64 {
                if (t, x) == (4, 7) {
                    continue;
                }
                let value = (t * 10 + x) as f32 + 0.5;
                expect_v[(t * 10 + x) as usize] = value;
                let sel = Selection::block(&[t, x], &[1, 1]);
                w.write(v, &sel, &Values::Float(vec![value])).unwrap();
            }
        }
        // Strings one at a time, from the end, the third left out.
        for x in (0..10u64).rev().filter(|&x| x != 2) {
            let text = format!("s{x}é").repeat(x as usize % 3 + 1);
            expect_s[x as usize] = text.clone();
            let sel = Selection::block(&[x], &[1]);
            w.write(s, &sel, &Values::strings([text])).unwrap();
        }
        w.finish().unwrap();
        paths.push(path);
    }
    // Unwritten floats read as the netCDF default fill.
    let fill = f32::from_bits(0x7cf0_0000);
    for x in expect_v.iter_mut().filter(|x| x.is_nan()) {
        *x = fill;
    }
    let script = "import sys, json, zarr, numpy as np\n\
        for p in sys.argv[1:]:\n\
        \x20   g = zarr.open_group(p, mode='r')\n\
        \x20   print(json.dumps({'v': g['v'][...].astype('f8').ravel().tolist(),\n\
        \x20                     'shape': list(g['v'].shape),\n\
        \x20                     's': [str(x) for x in g['s'][...]],\n\
        \x20                     'shards': list(g['v'].shards)}))";
    let out = require::python_output(&["zarr"], script, &paths).unwrap();
    for line in out.lines() {
        let got: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(got["shape"], serde_json::json!([5, 10]));
        assert_eq!(got["shards"], serde_json::json!([2, 6]));
        let values: Vec<f32> = got["v"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap() as f32)
            .collect();
        assert_eq!(values, expect_v);
        let strings: Vec<String> = got["s"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap().to_string())
            .collect();
        assert_eq!(strings, expect_s);
    }
}

/// `v(t, y, x)` float written one time step at a time into inner chunks of
/// one step (64 KiB) in shards of 40 steps (2.5 MiB decoded), through a
/// 512 KiB cache: the writer holds the cache and the shards being
/// assembled, each in a buffer reserving its decoded size of which only
/// the encoded bytes are written (the bound the `WriteOptions::cache_bytes`
/// docs give; the allocator counts reserved bytes, the kernel only those
/// written), with some slack for the slabs written and the thread pool:
/// never the decoded shards themselves beside them.
#[test]
fn a_sharded_write_holds_the_cache_and_the_encoded_shards() {
    let _serial = serial();
    // Six shards: their decoded values (15 MiB) are well above the bound.
    let (steps, ny, nx) = (240u64, 64u64, 256u64);
    let mut s = Schema::new();
    let r = GroupId::ROOT;
    let dims =
        [("t", steps), ("y", ny), ("x", nx)].map(|(n, len)| s.add_dim(r, n, len, false).unwrap());
    let v = s.add_var(r, "v", DataType::Float, &dims).unwrap();
    s.var_mut(v).storage = VarStorage {
        layout: Layout::Chunked(vec![1, ny, nx]),
        shards: Some(vec![40, ny, nx]),
        ..VarStorage::default()
    };
    let cache_bytes = 512 << 10;
    let opts = WriteOptions {
        layout: WriteLayout::ZarrV3 { nczarr: false },
        cache_bytes,
        ..WriteOptions::default()
    };
    let store = Arc::new(Sizes::default());
    // Floats with a random low byte: zstd keeps about a third of them.
    let mut seed = 1u32;
    let step: Vec<Vec<f32>> = (0..4)
        .map(|_| {
            (0..ny * nx)
                .map(|_| {
                    seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                    f32::from_bits(0x3f80_0000 | (seed >> 24))
                })
                .collect()
        })
        .collect();
    let base = HELD.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let mut w = ZarrWriter::create(store.clone(), &s, &opts).unwrap();
    for t in 0..steps {
        let sel = Selection::block(&[t, 0, 0], &[1, ny, nx]);
        let values = Values::Float(step[t as usize % 4].clone());
        w.write(v, &sel, &values).unwrap();
    }
    w.finish().unwrap();
    let peak = PEAK.load(Ordering::Relaxed) - base;
    let sizes = store.0.lock().unwrap();
    let shards: Vec<usize> = (0..steps / 40)
        .map(|i| sizes[&format!("v/c/{i}/0/0")])
        .collect();
    let decoded = (40 * ny * nx * 4) as usize;
    assert!(
        shards.iter().all(|&n| n > decoded / 5 && n < decoded),
        "{shards:?}"
    );
    let slack = 512 << 10;
    // The reservations of at most two shards being assembled, and the
    // encoded inner chunks waiting for those before them.
    let largest = shards.iter().copied().max().unwrap();
    let bound = cache_bytes + 2 * decoded + largest + slack;
    assert!(
        bound < shards.len() * decoded,
        "the bound must be below what the data is"
    );
    assert!(
        peak <= bound,
        "peak {peak} bytes above the bound {bound} (shards {shards:?}, decoded shard {decoded})"
    );
}
