//! A store output on an object store, which cannot be renamed into place:
//! the dataset's root metadata objects are held back and stored last, on
//! `close`, after every other object; until then no reader sees a dataset.
//! Dropped before that (a failed or interrupted write), it deletes what it
//! wrote.

use std::collections::BTreeSet;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

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

/// An object store output that appears only when closed; see the
/// [module docs](self).
pub(crate) struct PublishOnClose {
    inner: ObjectKvStore,
    /// Root metadata, held until `close`.
    held: MemoryStore,
    /// Every other key stored, for the cleanup of an unfinished write.
    written: Mutex<BTreeSet<StoreKey>>,
    published: AtomicBool,
}

impl PublishOnClose {
    /// Writes into `inner` (which should be empty).
    pub(crate) fn new(inner: ObjectKvStore) -> Self {
        PublishOnClose {
            inner,
            held: MemoryStore::new(),
            written: Mutex::new(BTreeSet::new()),
            published: AtomicBool::new(false),
        }
    }

    fn written(&self) -> MutexGuard<'_, BTreeSet<StoreKey>> {
        self.written.lock().unwrap_or_else(|e| e.into_inner())
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
        self.inner.get(key)
    }

    fn get_range(&self, key: &StoreKey, range: Range<u64>) -> Result<Option<Bytes>, StoreError> {
        if self.is_held(key)? {
            return self.held.get_range(key, range);
        }
        self.inner.get_range(key, range)
    }

    fn size(&self, key: &StoreKey) -> Result<Option<u64>, StoreError> {
        if self.is_held(key)? {
            return self.held.size(key);
        }
        self.inner.size(key)
    }

    fn get_many(&self, keys: &[StoreKey]) -> Result<Vec<Option<Bytes>>, StoreError> {
        if keys.iter().any(is_root_metadata) {
            return keys.iter().map(|k| self.get(k)).collect();
        }
        self.inner.get_many(keys)
    }

    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }
}

impl WritableStore for PublishOnClose {
    fn put(&self, key: &StoreKey, value: Bytes) -> Result<(), StoreError> {
        if is_root_metadata(key) {
            return self.held.put(key, value);
        }
        self.written().insert(key.clone());
        self.inner.put(key, value)
    }

    fn delete(&self, key: &StoreKey) -> Result<(), StoreError> {
        if is_root_metadata(key) {
            return self.held.delete(key);
        }
        self.inner.delete(key)?;
        self.written().remove(key);
        Ok(())
    }

    /// Waits for every upload, then stores the root metadata, `.zgroup`
    /// last: from then on the dataset is visible.
    fn close(&self) -> Result<(), StoreError> {
        if self.published.load(Ordering::Acquire) {
            return Ok(());
        }
        self.inner.close()?;
        let mut root = self.held.keys();
        // `.zgroup` last (it sorts before `.zmetadata`).
        root.sort_by_key(|k| ROOT_GROUP.contains(&k.as_str()));
        for key in root {
            if let Some(value) = self.held.get(&key)? {
                self.inner.put(&key, value)?;
                self.inner.close()?;
            }
        }
        self.published.store(true, Ordering::Release);
        Ok(())
    }
}

impl Drop for PublishOnClose {
    /// An unfinished write deletes what it stored (best effort; what could
    /// not be deleted is named on stderr, the one place left to say it).
    fn drop(&mut self) {
        if self.published.load(Ordering::Acquire) {
            return;
        }
        let _ = self.inner.settle();
        let mut keys: Vec<StoreKey> = std::mem::take(&mut *self.written()).into_iter().collect();
        // A close that failed part-way may have stored some root objects.
        keys.extend(self.held.keys());
        if let Err(e) = self.inner.delete_all(&keys) {
            eprintln!(
                "nctk: {}: the unfinished store could not be removed ({e}); {} objects may be left \
                 under it, without root metadata (no reader sees a dataset there)",
                self.inner.remote().url(),
                keys.len()
            );
        }
    }
}
