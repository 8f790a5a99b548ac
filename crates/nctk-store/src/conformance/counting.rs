//! A byte source that counts the requests reaching the source it wraps.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::bytes::{ByteError, ByteSource, Coalesce};

/// Wraps a source and counts the calls of `read_at` and `len` that reach
/// it, so a test can bound what an access costs. It passes the inner
/// source's [`Coalesce`] on and keeps every other method's default, so
/// batched and ranged reads arrive as the `read_at` calls they make.
#[derive(Debug)]
pub struct CountingSource<S> {
    inner: S,
    reads: AtomicUsize,
    lens: AtomicUsize,
}

impl<S: ByteSource> CountingSource<S> {
    /// Counts the requests reaching `inner`, from zero.
    pub fn new(inner: S) -> Self {
        CountingSource {
            inner,
            reads: AtomicUsize::new(0),
            lens: AtomicUsize::new(0),
        }
    }

    /// `read_at` calls since the last [`reset`](Self::reset).
    pub fn reads(&self) -> usize {
        self.reads.load(Ordering::Relaxed)
    }

    /// `len` calls since the last [`reset`](Self::reset).
    pub fn lens(&self) -> usize {
        self.lens.load(Ordering::Relaxed)
    }

    /// Sets both counts to zero.
    pub fn reset(&self) {
        self.reads.store(0, Ordering::Relaxed);
        self.lens.store(0, Ordering::Relaxed);
    }
}

impl<S: ByteSource> ByteSource for CountingSource<S> {
    fn len(&self) -> Result<u64, ByteError> {
        self.lens.fetch_add(1, Ordering::Relaxed);
        self.inner.len()
    }
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<usize, ByteError> {
        self.reads.fetch_add(1, Ordering::Relaxed);
        self.inner.read_at(offset, buf)
    }
    fn name(&self) -> String {
        self.inner.name()
    }
    fn coalesce(&self) -> Coalesce {
        self.inner.coalesce()
    }
    fn batch_bytes(&self) -> u64 {
        self.inner.batch_bytes()
    }
}
