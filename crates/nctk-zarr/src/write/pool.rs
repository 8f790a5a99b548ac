//! Chunk buffers handed back once their chunk is stored, for the chunks
//! that follow: a new chunk takes a buffer its predecessor used instead of
//! fresh memory, which the kernel would fault in and zero page by page
//! (an eighth of an uncompressed copy's time). A buffer comes back when
//! its chunk, stored as it is (no codecs), has been written: when the
//! store drops the bytes it was given. Chunks that are encoded free their
//! buffers, since encoding allocates working memory beside them.
//!
//! Memory does not grow with it: a chunk allocates only when no buffer is
//! free, and nothing else large is allocated on the path that gives
//! buffers back, so the buffers in use and in the pool never hold more
//! than the most the writer had in use at once; the pool keeps at most
//! [`POOL_BUFFERS`].

use std::sync::{Arc, Mutex, PoisonError};

use nctk_store::kv::Bytes;

/// The most buffers the pool keeps.
const POOL_BUFFERS: usize = 4;

/// Free chunk buffers; clones share them.
#[derive(Clone, Default)]
pub struct BufferPool(Arc<Mutex<Vec<Vec<u8>>>>);

impl BufferPool {
    /// A free buffer of `size` bytes holding whatever its last chunk left
    /// there, or `None` when no free buffer is large enough.
    pub fn take(&self, size: usize) -> Option<Vec<u8>> {
        let mut free = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let i = free.iter().position(|b| b.capacity() >= size)?;
        let mut buf = free.swap_remove(i);
        drop(free);
        buf.resize(size, 0);
        Some(buf)
    }

    /// Keeps `buf` for a later chunk (or frees it when the pool is full).
    pub fn give(&self, buf: Vec<u8>) {
        let mut free = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if free.len() < POOL_BUFFERS {
            free.push(buf);
        }
    }

    /// `buf` as store bytes that give it back to the pool when dropped.
    pub fn bytes(&self, buf: Vec<u8>) -> Bytes {
        Bytes::from_owner(Returning {
            buf,
            pool: self.clone(),
        })
    }
}

/// A buffer lent to the store as [`Bytes`], given back when they drop.
struct Returning {
    buf: Vec<u8>,
    pool: BufferPool,
}

impl AsRef<[u8]> for Returning {
    fn as_ref(&self) -> &[u8] {
        &self.buf
    }
}

impl Drop for Returning {
    fn drop(&mut self) {
        self.pool.give(std::mem::take(&mut self.buf));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_give_their_buffer_back_when_dropped() {
        let pool = BufferPool::default();
        let bytes = pool.bytes(vec![7u8; 64]);
        let copy = bytes.clone();
        assert!(pool.take(1).is_none(), "lent, not free");
        drop(bytes);
        assert!(pool.take(1).is_none(), "a clone still holds it");
        assert_eq!(&copy[..], &[7u8; 64][..]);
        drop(copy);
        let buf = pool.take(64).expect("given back");
        assert_eq!(buf.len(), 64);
        assert!(pool.take(1).is_none(), "taken once");
    }

    #[test]
    fn a_buffer_too_small_is_not_taken_and_the_pool_is_bounded() {
        let pool = BufferPool::default();
        pool.give(Vec::with_capacity(8));
        assert!(pool.take(16).is_none());
        assert_eq!(pool.take(8).map(|b| b.len()), Some(8));
        for _ in 0..POOL_BUFFERS + 3 {
            pool.give(vec![0; 4]);
        }
        let taken = std::iter::from_fn(|| pool.take(4)).count();
        assert_eq!(taken, POOL_BUFFERS);
    }
}
