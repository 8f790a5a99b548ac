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

use nctk_store::kv::Bytes;

/// The most buffers the pool keeps.
const POOL_BUFFERS: usize = 4;

/// Free chunk buffers ([`nctk_codec::buffer::BufferPool`]); clones share
/// them.
#[derive(Clone)]
pub struct BufferPool(nctk_codec::buffer::BufferPool);

impl Default for BufferPool {
    fn default() -> BufferPool {
        BufferPool(nctk_codec::buffer::BufferPool::new(
            POOL_BUFFERS,
            usize::MAX,
        ))
    }
}

impl BufferPool {
    /// A free buffer of `size` bytes holding whatever its last chunk left
    /// there, or `None` when no free buffer is large enough.
    pub fn take(&self, size: usize) -> Option<Vec<u8>> {
        let mut buf = self.0.take(size)?;
        buf.resize(size, 0);
        Some(buf)
    }

    /// `buf` as store bytes that give it back to the pool when dropped.
    pub fn bytes(&self, buf: Vec<u8>) -> Bytes {
        Bytes::from_owner(Returning {
            buf,
            pool: self.0.clone(),
        })
    }
}

/// A buffer lent to the store as [`Bytes`], given back when they drop.
struct Returning {
    buf: Vec<u8>,
    pool: nctk_codec::buffer::BufferPool,
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
}
