//! The bounded block cache of a remote source: aligned blocks, least
//! recently used evicted first.

use bytes::Bytes;

/// Blocks of one object by index (offset / block size), at most
/// `capacity` of them.
pub(super) struct BlockCache {
    /// `(index, data, last use)`.
    blocks: Vec<(u64, Bytes, u64)>,
    capacity: usize,
    clock: u64,
}

impl BlockCache {
    /// An empty cache holding at most `capacity` blocks.
    pub(super) fn new(capacity: usize) -> Self {
        BlockCache {
            blocks: Vec::with_capacity(capacity),
            capacity,
            clock: 0,
        }
    }

    /// Block `index`, marked as just used.
    pub(super) fn get(&mut self, index: u64) -> Option<Bytes> {
        self.clock += 1;
        let clock = self.clock;
        let slot = self.blocks.iter_mut().find(|(i, _, _)| *i == index)?;
        slot.2 = clock;
        Some(slot.1.clone())
    }

    /// Keeps block `index`, evicting the least recently used block when full.
    pub(super) fn insert(&mut self, index: u64, data: Bytes) {
        self.clock += 1;
        if let Some(slot) = self.blocks.iter_mut().find(|(i, _, _)| *i == index) {
            *slot = (index, data, self.clock);
            return;
        }
        if self.blocks.len() >= self.capacity {
            let oldest = (0..self.blocks.len()).min_by_key(|&k| self.blocks[k].2);
            if let Some(k) = oldest {
                self.blocks.swap_remove(k);
            }
        }
        if self.capacity > 0 {
            self.blocks.push((index, data, self.clock));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evicts_the_least_recently_used() {
        let mut c = BlockCache::new(2);
        c.insert(1, Bytes::from_static(b"a"));
        c.insert(2, Bytes::from_static(b"b"));
        assert!(c.get(1).is_some()); // 2 is now the oldest
        c.insert(3, Bytes::from_static(b"c"));
        assert!(c.get(2).is_none());
        assert_eq!(c.get(1).as_deref(), Some(&b"a"[..]));
        assert_eq!(c.get(3).as_deref(), Some(&b"c"[..]));
        assert!(c.blocks.len() <= 2);
    }
}
