use std::collections::BTreeMap;
use std::sync::RwLock;

use bytes::Bytes;

use super::{
    Capabilities, ListableStore, Listing, ReadableStore, StoreError, StoreKey, StorePrefix,
    WritableStore,
};

/// A store held in memory: every ability, partial reads without copying.
#[derive(Debug, Default)]
pub struct MemoryStore {
    objects: RwLock<BTreeMap<StoreKey, Bytes>>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> MemoryStore {
        MemoryStore::default()
    }

    /// Every key in the store, sorted.
    pub fn keys(&self) -> Vec<StoreKey> {
        self.read().keys().cloned().collect()
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, BTreeMap<StoreKey, Bytes>> {
        // A panic while holding the lock cannot leave the map half-updated
        // (every update is one insert or remove), so poisoning is ignored.
        self.objects.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, BTreeMap<StoreKey, Bytes>> {
        self.objects.write().unwrap_or_else(|e| e.into_inner())
    }
}

impl ReadableStore for MemoryStore {
    fn get(&self, key: &StoreKey) -> Result<Option<Bytes>, StoreError> {
        Ok(self.read().get(key).cloned())
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            partial_reads: true,
            listable: true,
            writable: true,
            write_once: false,
            fetch_ahead: false,
        }
    }
}

impl ListableStore for MemoryStore {
    fn list_dir(&self, prefix: &StorePrefix) -> Result<Listing, StoreError> {
        let map = self.read();
        let mut out = Listing::default();
        let skip = if prefix.is_root() {
            0
        } else {
            prefix.as_str().len() + 1
        };
        for key in map.keys().filter(|k| k.is_under(prefix)) {
            let rest = &key.as_str()[skip..];
            match rest.split_once('/') {
                None => out.keys.push(key.clone()),
                Some((first, _)) => out.prefixes.push(prefix.child(first)?),
            }
        }
        out.normalize();
        Ok(out)
    }
}

impl WritableStore for MemoryStore {
    fn put(&self, key: &StoreKey, value: Bytes) -> Result<(), StoreError> {
        self.write().insert(key.clone(), value);
        Ok(())
    }

    fn delete(&self, key: &StoreKey) -> Result<(), StoreError> {
        self.write().remove(key);
        Ok(())
    }
}
