//! The decoded-block cache of [`CompressedSource`](super::CompressedSource):
//! least recently used first out, bounded by bytes.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

/// A block: variable index and block number.
pub(crate) type BlockKey = (usize, u64);

/// Bytes charged per entry on top of its data, so that a cache of tiny
/// blocks (one element each) stays bounded in memory too.
const ENTRY_OVERHEAD: u64 = 64;

/// Decoded blocks, evicted least recently used first once their bytes
/// pass the capacity.
#[derive(Debug)]
pub(crate) struct BlockCache {
    capacity: u64,
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    /// Block -> (bytes, last use).
    blocks: HashMap<BlockKey, (Arc<[u8]>, u64)>,
    /// Last use -> block: the eviction order.
    order: BTreeMap<u64, BlockKey>,
    bytes: u64,
    tick: u64,
}

impl BlockCache {
    /// An empty cache holding at most `capacity` bytes, and at least two
    /// blocks of `largest` bytes whatever `capacity` says.
    pub(crate) fn new(capacity: u64, largest: u64) -> BlockCache {
        BlockCache {
            capacity: capacity.max(2 * (largest + ENTRY_OVERHEAD)),
            inner: Mutex::new(Inner::default()),
        }
    }

    /// The block `key`, if cached (marked as just used).
    pub(crate) fn get(&self, key: BlockKey) -> Option<Arc<[u8]>> {
        let mut inner = self.lock();
        inner.tick += 1;
        let tick = inner.tick;
        let (bytes, last) = inner.blocks.get_mut(&key)?;
        let (bytes, old) = (bytes.clone(), std::mem::replace(last, tick));
        inner.order.remove(&old);
        inner.order.insert(tick, key);
        Some(bytes)
    }

    /// Caches block `key`, evicting the least recently used blocks while
    /// the cache holds more than its capacity.
    pub(crate) fn insert(&self, key: BlockKey, bytes: Arc<[u8]>) {
        let mut inner = self.lock();
        inner.tick += 1;
        let tick = inner.tick;
        inner.bytes += bytes.len() as u64 + ENTRY_OVERHEAD;
        if let Some((old, last)) = inner.blocks.insert(key, (bytes, tick)) {
            inner.bytes -= old.len() as u64 + ENTRY_OVERHEAD;
            inner.order.remove(&last);
        }
        inner.order.insert(tick, key);
        while inner.bytes > self.capacity {
            let Some((_, victim)) = inner.order.pop_first() else {
                break;
            };
            if let Some((old, _)) = inner.blocks.remove(&victim) {
                inner.bytes -= old.len() as u64 + ENTRY_OVERHEAD;
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic while holding the lock leaves a consistent map (every
        // update above is completed before the guard drops).
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evicts_least_recently_used_by_bytes() {
        let block = |n: usize| -> Arc<[u8]> { vec![0u8; n].into() };
        let cache = BlockCache::new(0, 100);
        cache.insert((0, 0), block(100));
        cache.insert((0, 1), block(100));
        assert!(cache.get((0, 0)).is_some());
        cache.insert((0, 2), block(100));
        assert!(
            cache.get((0, 1)).is_none(),
            "least recently used goes first"
        );
        assert!(cache.get((0, 0)).is_some());
        assert!(cache.get((0, 2)).is_some());
    }
}
