//! A store output on an object store, which cannot be renamed into place:
//! the dataset's root metadata objects are held back and stored last, on
//! `close`, after every other object; until then no reader sees a dataset.
//! Dropped before that (a failed write), or stopped by a signal handler
//! ([`remove_unfinished`], for SIGINT and SIGTERM), it deletes what it
//! wrote. What a killed write (SIGKILL) left is marked by the object
//! [`WRITING_MARKER`], stored first and deleted last, which the next write
//! to the same URL finds and removes ([`is_abandoned`]), as a local output
//! removes the temporaries of processes that no longer run.

use std::collections::BTreeSet;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use nctk_store::kv::{
    Bytes, Capabilities, MemoryStore, ReadableStore, StoreError, StoreKey, WritableStore,
};
use nctk_store_object::ObjectKvStore;

/// The root objects that make a Zarr group (and so the dataset) visible
/// (v2, v3): stored after every other root metadata object.
const ROOT_GROUP: [&str; 2] = [".zgroup", "zarr.json"];

/// True for the metadata objects at the dataset's root (`.zgroup`,
/// `.zattrs`, `.zmetadata`, netCDF-C 4.8's `.nczarr`, ..., Zarr v3's
/// `zarr.json`).
fn is_root_metadata(key: &StoreKey) -> bool {
    !key.as_str().contains('/') && (key.as_str().starts_with('.') || key.as_str() == "zarr.json")
}

/// The object an unfinished write keeps at the store's top (its text:
/// `nctk <pid> <host>`): stored before anything else, deleted after the
/// root metadata.
pub(crate) const WRITING_MARKER: &str = ".nctk-writing";

/// The unfinished writes of this process, for [`remove_unfinished`].
static UNFINISHED: Mutex<Vec<Weak<Uploads>>> = Mutex::new(Vec::new());

fn unfinished() -> MutexGuard<'static, Vec<Weak<Uploads>>> {
    UNFINISHED.lock().unwrap_or_else(|e| e.into_inner())
}

/// Deletes what every unfinished write of this process uploaded, for a
/// handler of SIGINT or SIGTERM that then exits: later puts of those
/// writes are refused, the uploads in flight are waited for, then every
/// object stored (and the marker) is deleted.
pub(crate) fn remove_unfinished() {
    let writes: Vec<Arc<Uploads>> = unfinished().iter().filter_map(Weak::upgrade).collect();
    for uploads in writes {
        uploads.abandon();
    }
}

/// This machine's name, as the marker records it (`None` where unknown).
fn host_name() -> Option<String> {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname").ok()?;
    Some(name.trim().to_string()).filter(|n| !n.is_empty())
}

/// The marker's text for this process.
fn marker_text() -> String {
    let host = host_name().unwrap_or_else(|| "?".into());
    format!("nctk {} {host}", std::process::id())
}

/// Whether a store whose top holds [`WRITING_MARKER`] with `text` was left
/// by a write that no longer runs: one from another machine (or an
/// unreadable marker) counts as abandoned, one from this machine only when
/// its process is gone.
pub(crate) fn is_abandoned(text: &[u8]) -> bool {
    let text = String::from_utf8_lossy(text);
    let mut words = text.split_whitespace();
    let (Some("nctk"), Some(pid), Some(host)) = (words.next(), words.next(), words.next()) else {
        return true;
    };
    let Ok(pid) = pid.parse::<u32>() else {
        return true;
    };
    let here = host_name().is_some_and(|h| h == host);
    !(here && std::path::Path::new("/proc").join(pid.to_string()).exists())
}

/// The objects at a store's top that make it open as a dataset (a group,
/// an array, consolidated metadata; Zarr v2, netCDF-C 4.8's NCZarr, Zarr
/// v3).
const OPENS_AS_DATASET: [&str; 5] = [".zgroup", ".zarray", ".zmetadata", ".nczarr", "zarr.json"];

/// Deletes `keys` from `store` in three rounds (the deletes of a round run
/// concurrently): what makes the store open as a dataset, then the rest,
/// then the marker of an unfinished write. A deletion cut short (a kill,
/// a refused request) then leaves objects no reader takes for a dataset,
/// never a store that opens with arrays or chunks missing (read as fill
/// values), and the marker stays to tell the next write to remove them.
pub(super) fn delete_in_order(
    store: &ObjectKvStore,
    keys: Vec<StoreKey>,
) -> Result<(), StoreError> {
    let (marker, keys): (Vec<StoreKey>, Vec<StoreKey>) =
        keys.into_iter().partition(|k| k.as_str() == WRITING_MARKER);
    let (opens, rest): (Vec<StoreKey>, Vec<StoreKey>) = keys
        .into_iter()
        .partition(|k| OPENS_AS_DATASET.contains(&k.as_str()));
    for round in [opens, rest, marker] {
        if !round.is_empty() {
            store.delete_all(&round)?;
        }
    }
    Ok(())
}

/// What an unfinished write stored, and the store it stored it in.
struct Uploads {
    inner: ObjectKvStore,
    /// Every key stored (but the marker), for the cleanup.
    written: Mutex<BTreeSet<StoreKey>>,
    /// Set once published, or once abandoned (then puts are refused).
    done: AtomicBool,
    /// Held while abandoning: a second caller (a drop on the writing
    /// thread while a signal handler cleans up) waits until it is done.
    cleanup: Mutex<()>,
}

impl Uploads {
    fn written(&self) -> MutexGuard<'_, BTreeSet<StoreKey>> {
        self.written.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Stops the write and deletes what it stored, the marker last (best
    /// effort; what could not be deleted is named on stderr, the one
    /// place left to say it). Nothing is done once published.
    fn abandon(&self) {
        let _cleaning = self.cleanup.lock().unwrap_or_else(|e| e.into_inner());
        if self.done.swap(true, Ordering::AcqRel) {
            return;
        }
        let _ = self.inner.settle();
        let mut keys: Vec<StoreKey> = std::mem::take(&mut *self.written()).into_iter().collect();
        keys.push(StoreKey::new(WRITING_MARKER).expect("a valid key"));
        let count = keys.len();
        if let Err(e) = delete_in_order(&self.inner, keys) {
            eprintln!(
                "nctk: {}: the unfinished store could not be removed ({e}); {} objects may be left \
                 under it, without root metadata (no reader sees a dataset there; the next \
                 write to it removes them)",
                self.inner.remote().url(),
                count
            );
        }
    }
}

/// An object store output that appears only when closed; see the
/// [module docs](self).
pub(crate) struct PublishOnClose {
    uploads: Arc<Uploads>,
    /// Root metadata, held until `close`.
    held: MemoryStore,
    published: AtomicBool,
}

impl PublishOnClose {
    /// Writes into `inner` (which should be empty), after storing the
    /// marker of an unfinished write.
    pub(crate) fn new(inner: ObjectKvStore) -> Result<Self, StoreError> {
        let marker = StoreKey::new(WRITING_MARKER).expect("a valid key");
        inner.put(&marker, Bytes::from(marker_text()))?;
        inner.close()?;
        let uploads = Arc::new(Uploads {
            inner,
            written: Mutex::new(BTreeSet::new()),
            done: AtomicBool::new(false),
            cleanup: Mutex::new(()),
        });
        let mut live = unfinished();
        live.retain(|w| w.strong_count() > 0);
        live.push(Arc::downgrade(&uploads));
        Ok(PublishOnClose {
            uploads,
            held: MemoryStore::new(),
            published: AtomicBool::new(false),
        })
    }

    fn inner(&self) -> &ObjectKvStore {
        &self.uploads.inner
    }

    /// Records `key` as stored, or refuses it once the write was stopped.
    fn record(&self, key: &StoreKey) -> Result<(), StoreError> {
        let mut written = self.uploads.written();
        if self.uploads.done.load(Ordering::Acquire) {
            return Err(stopped(key.as_str()));
        }
        written.insert(key.clone());
        Ok(())
    }

    fn is_held(&self, key: &StoreKey) -> Result<bool, StoreError> {
        Ok(is_root_metadata(key) && self.held.size(key)?.is_some())
    }
}

impl ReadableStore for PublishOnClose {
    fn get(&self, key: &StoreKey) -> Result<Option<Bytes>, StoreError> {
        if self.is_held(key)? {
            return self.held.get(key);
        }
        self.inner().get(key)
    }

    fn get_range(&self, key: &StoreKey, range: Range<u64>) -> Result<Option<Bytes>, StoreError> {
        if self.is_held(key)? {
            return self.held.get_range(key, range);
        }
        self.inner().get_range(key, range)
    }

    fn size(&self, key: &StoreKey) -> Result<Option<u64>, StoreError> {
        if self.is_held(key)? {
            return self.held.size(key);
        }
        self.inner().size(key)
    }

    fn get_many(&self, keys: &[StoreKey]) -> Result<Vec<Option<Bytes>>, StoreError> {
        if keys.iter().any(is_root_metadata) {
            return keys.iter().map(|k| self.get(k)).collect();
        }
        self.inner().get_many(keys)
    }

    fn capabilities(&self) -> Capabilities {
        self.inner().capabilities()
    }
}

impl WritableStore for PublishOnClose {
    fn put(&self, key: &StoreKey, value: Bytes) -> Result<(), StoreError> {
        if is_root_metadata(key) {
            return self.held.put(key, value);
        }
        self.record(key)?;
        self.inner().put(key, value)
    }

    fn delete(&self, key: &StoreKey) -> Result<(), StoreError> {
        if is_root_metadata(key) {
            return self.held.delete(key);
        }
        self.inner().delete(key)?;
        self.uploads.written().remove(key);
        Ok(())
    }

    /// Waits for every upload, then stores the root metadata, `.zgroup`
    /// last: from then on the dataset is visible; then deletes the marker.
    fn close(&self) -> Result<(), StoreError> {
        if self.published.load(Ordering::Acquire) {
            return Ok(());
        }
        let inner = self.inner();
        inner.close()?;
        let mut root = self.held.keys();
        // `.zgroup` last (it sorts before `.zmetadata`).
        root.sort_by_key(|k| ROOT_GROUP.contains(&k.as_str()));
        for key in root {
            if let Some(value) = self.held.get(&key)? {
                self.record(&key)?;
                inner.put(&key, value)?;
                inner.close()?;
            }
        }
        if self.uploads.done.swap(true, Ordering::AcqRel) {
            // Stopped by a signal handler while the root metadata went up.
            return Err(stopped(ROOT_GROUP[0]));
        }
        self.published.store(true, Ordering::Release);
        self.uploads.written().clear();
        inner.delete(&StoreKey::new(WRITING_MARKER).expect("a valid key"))?;
        Ok(())
    }
}

impl Drop for PublishOnClose {
    /// An unfinished write deletes what it stored.
    fn drop(&mut self) {
        if !self.published.load(Ordering::Acquire) {
            self.uploads.abandon();
        }
    }
}

/// The error of a put after the write was stopped.
fn stopped(key: &str) -> StoreError {
    StoreError::Io {
        key: key.into(),
        op: "write",
        source: std::io::Error::new(std::io::ErrorKind::Interrupted, "the write was stopped"),
    }
}
