//! Zip stores read entries without a global lock, and check what they read.

use std::io::Cursor;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::time::Duration;

use nctk_store::bytes::{ByteError, ByteSource, MemSource};
use nctk_store::kv::{ReadableStore, StoreKey, WritableStore, ZipRoot, ZipStore, ZipStoreWriter};

/// A memory source whose reads, once `slow` is set, take a while and are
/// counted while in flight: it shows how many reads overlap.
#[derive(Default)]
struct Observed {
    inner: MemSource,
    slow: AtomicBool,
    in_flight: AtomicUsize,
    most: AtomicUsize,
}

impl ByteSource for Observed {
    fn len(&self) -> Result<u64, ByteError> {
        self.inner.len()
    }
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<usize, ByteError> {
        if !self.slow.load(Ordering::Relaxed) {
            return self.inner.read_at(offset, buf);
        }
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.most.fetch_max(now, Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(30));
        let r = self.inner.read_at(offset, buf);
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
        r
    }
    fn name(&self) -> String {
        "<observed>".into()
    }
}

/// 32 entries of 5000 bytes each, distinct contents.
fn entries() -> Vec<(StoreKey, Vec<u8>)> {
    (0..32u32)
        .map(|e| {
            let v = (0..5000u32).map(|i| (i * (e + 3) % 253) as u8).collect();
            (StoreKey::new(format!("v/{e}")).unwrap(), v)
        })
        .collect()
}

fn zip_of(entries: &[(StoreKey, Vec<u8>)]) -> Vec<u8> {
    let w = ZipStoreWriter::new(Cursor::new(Vec::new()), "t.zip", None).unwrap();
    for (k, v) in entries {
        w.put(k, v.clone().into()).unwrap();
    }
    w.finish().unwrap().into_inner()
}

#[test]
fn four_threads_read_the_same_bytes_as_one_and_overlap() {
    let entries = entries();
    let source = Arc::new(Observed {
        inner: MemSource::new(zip_of(&entries)),
        ..Default::default()
    });
    let store = ZipStore::new(source.clone(), ZipRoot::Top).unwrap();
    let sequential: Vec<_> = entries
        .iter()
        .map(|(k, _)| store.get(k).unwrap().unwrap())
        .collect();
    for ((k, v), got) in entries.iter().zip(&sequential) {
        assert_eq!(&got[..], &v[..], "sequential get {k}");
    }

    source.slow.store(true, Ordering::Relaxed);
    let start = Barrier::new(4);
    std::thread::scope(|s| {
        for t in 0..4 {
            let (store, entries, sequential, start) = (&store, &entries, &sequential, &start);
            s.spawn(move || {
                start.wait();
                // Each thread starts on its own entries, then reads all.
                for j in 0..entries.len() / 4 {
                    let i = (t * entries.len() / 4 + j) % entries.len();
                    let got = store.get(&entries[i].0).unwrap().unwrap();
                    assert_eq!(got, sequential[i], "thread {t}: {}", entries[i].0);
                }
            });
        }
    });
    let most = source.most.load(Ordering::SeqCst);
    assert!(
        most >= 2,
        "reads of different entries never overlapped ({most} at most)"
    );
}

#[test]
fn a_corrupt_entry_is_an_error_naming_the_key() {
    let content = b"the stored content of entry a".to_vec();
    let mut zip = zip_of(&[(StoreKey::new("a").unwrap(), content.clone())]);
    let at = zip
        .windows(content.len())
        .position(|w| w == &content[..])
        .expect("a stored entry holds its bytes");
    zip[at + 4] ^= 0x20;
    let store = ZipStore::from_bytes(zip).unwrap();
    let err = store.get(&StoreKey::new("a").unwrap()).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains(":a:") && msg.contains("CRC-32"), "{msg}");
    assert!(msg.contains(&format!("offset {at}")), "{msg}");
}
