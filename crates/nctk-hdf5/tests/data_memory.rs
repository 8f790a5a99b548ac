//! A whole-variable read of a compressed dataset holds, beyond its output,
//! at most two batches of stored chunks (one decoding, one fetched ahead)
//! and a couple of decoded chunks per worker: the peak of live heap bytes (counted by this test's allocator)
//! while reading 64 MiB of gzip + shuffle data (random values: about 58 MiB
//! stored) stays far below the data's size. The values are checked
//! against h5py's. The chunks are fetched a batch per request
//! (`read_ranges_into`), as a remote source needs.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use nctk_hdf5::{DatasetReader, Hdf5Error, Hdf5File, LinkTarget};
use nctk_store::bytes::{ByteError, ByteSource, FileSource, MemSource};
use nctk_test_support::require;

/// Counts the live heap bytes of the whole process and their peak.
struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(n: usize) {
    let now = LIVE.fetch_add(n, Ordering::Relaxed) + n;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: forwards to the system allocator unchanged; only counts sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        grew(new_size);
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// A file source counting its batched requests.
struct Batches {
    inner: FileSource,
    calls: AtomicUsize,
}

impl ByteSource for Batches {
    fn len(&self) -> Result<u64, ByteError> {
        self.inner.len()
    }
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<usize, ByteError> {
        self.inner.read_at(offset, buf)
    }
    fn name(&self) -> String {
        self.inner.name()
    }
    fn read_ranges_into(&self, reads: &mut [(u64, &mut [u8])]) -> Result<Vec<usize>, ByteError> {
        self.calls.fetch_add(1, Ordering::Relaxed);
        self.inner.read_ranges_into(reads)
    }
}

const WRITE: &str = r#"
import sys, numpy as np, h5py
# random values: the stored chunks are about as large as the decoded ones
v = np.random.default_rng(7).random((64, 512, 512), dtype="<f4")
with h5py.File(sys.argv[1], "w", libver="earliest") as f:
    f.create_dataset("v", data=v, chunks=(1, 512, 512), compression="gzip", compression_opts=1, shuffle=True)
with open(sys.argv[2], "wb") as g:
    g.write(v.tobytes())
"#;

#[test]
fn a_compressed_whole_read_holds_two_batches_not_the_variable() {
    let dir = tempfile::tempdir().unwrap();
    let (h5, raw) = (dir.path().join("v.h5"), dir.path().join("v.bin"));
    if require::python_output(&["h5py", "numpy"], WRITE, [&h5, &raw]).is_none() {
        return;
    }
    let batches = Arc::new(Batches {
        inner: FileSource::open(&h5).unwrap(),
        calls: AtomicUsize::new(0),
    });
    let source: Arc<dyn ByteSource> = batches.clone();
    let batch = source.batch_bytes() as usize;
    let file = Hdf5File::open(source).unwrap();
    let root = file.group(file.root_addr()).unwrap();
    let addr = root
        .links
        .iter()
        .find_map(|l| match l.target {
            LinkTarget::Hard(a) if l.name == "v" => Some(a),
            _ => None,
        })
        .unwrap();
    let info = file.dataset(addr).unwrap();
    let reader = DatasetReader::from_info(file.ctx(), &info).unwrap();
    let chunk = 512 * 512 * 4;
    let mut out = vec![0u8; 64 * chunk];

    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    reader
        .read(&[0, 0, 0], &[64, 512, 512], &[1, 1, 1], &mut out)
        .unwrap();
    let held = PEAK.load(Ordering::Relaxed) - before;

    assert!(
        out == std::fs::read(&raw).unwrap(),
        "values differ from h5py's"
    );
    let workers = rayon::current_num_threads();
    let bound = 2 * batch + workers * 2 * chunk + (1 << 20);
    assert!(
        held <= bound,
        "held {held} bytes beyond the output (bound {bound}: {batch}-byte batches, {workers} workers)"
    );
    assert!(
        held < out.len() / 2,
        "held {held} bytes for {} of output",
        out.len()
    );
    // about 58 MiB stored: 8 MiB batches, a request each (not one per chunk)
    let stored = std::fs::metadata(&h5).unwrap().len() as usize;
    let calls = batches.calls.load(Ordering::Relaxed);
    assert!(
        (stored / batch..=stored / batch + 2).contains(&calls),
        "{calls} requests for {stored} bytes in {batch}-byte batches"
    );

    // damage in a chunk of a late batch: an error, with both threads ended
    let mut bytes = std::fs::read(&h5).unwrap();
    let at = bytes.len() * 9 / 10;
    bytes[at..at + 64].iter_mut().for_each(|b| *b ^= 0x5a);
    let source: Arc<dyn ByteSource> = Arc::new(MemSource::new(bytes));
    let file = Hdf5File::open(source).unwrap();
    let reader = DatasetReader::from_info(file.ctx(), &file.dataset(addr).unwrap()).unwrap();
    let err = reader
        .read(&[0, 0, 0], &[64, 512, 512], &[1, 1, 1], &mut out)
        .unwrap_err();
    assert!(matches!(err, Hdf5Error::Filter { .. }), "{err}");
}
