//! Chunks encoded and appended on every core: [`ChunkQueue`] hands each
//! whole chunk to a task of a [`TaskQueue`] that passes it through its
//! dataset's filters, takes the next bytes of the file for it and writes
//! it there, while the caller goes on filling the next chunks; the chunk
//! index entries are gathered for the B-trees written at the end. The
//! chunks land in the order their encodings end, so the file's chunk
//! order may differ between runs; their index does not. The file is
//! written back as it grows ([`WriteBehind`]), so that the final sync of
//! a large file waits for little. Chunk buffers once written are kept for
//! the next chunks ([`ChunkQueue::buffer`]) when unfiltered, within
//! [`KEPT_BYTES`].

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use nctk_codec::buffer::BufferPool;
use nctk_codec::queue::TaskQueue;
use nctk_codec::Pipeline;
use nctk_store::bytes::{ByteSink, WriteBehind};

use super::btree::ChunkEntry;
use super::error::{WriteError, WriteResult};
use super::file::ObjectId;

/// The index entries of the chunks written, by dataset and chunk offset.
pub(super) type ChunkIndex = HashMap<ObjectId, BTreeMap<Vec<u64>, ChunkEntry>>;

/// Bytes the chunks in flight may hold by default (decoded, and while
/// encoding their working and encoded copies): with two cores and chunks
/// of a 721 x 1440 float grid, both encode at once.
pub const DEFAULT_MEMORY: usize = 32 << 20;

/// The most bytes of written chunk buffers kept for the next chunks: two
/// chunks of a 721 x 1440 float grid.
pub const KEPT_BYTES: usize = 8 << 20;

/// Encodes and appends chunks in parallel; see the [module docs](self).
pub(super) struct ChunkQueue {
    sink: Arc<dyn ByteSink>,
    /// The end of the file: where the next bytes allocated go.
    eof: Arc<AtomicU64>,
    /// The write-back started behind the chunks and blocks written.
    behind: Arc<WriteBehind>,
    /// Unfiltered chunk buffers kept once written, for the next chunks.
    kept: BufferPool,
    tasks: TaskQueue<(ObjectId, Vec<u64>), WriteError, ChunkIndex>,
}

impl ChunkQueue {
    /// A queue appending to `sink` from `eof` on, its chunks in flight
    /// holding at most `memory` bytes.
    pub(super) fn new(sink: Arc<dyn ByteSink>, eof: u64, memory: usize) -> ChunkQueue {
        ChunkQueue {
            sink,
            eof: Arc::new(AtomicU64::new(eof)),
            behind: Arc::new(WriteBehind::from(eof)),
            kept: BufferPool::new(usize::MAX, KEPT_BYTES),
            tasks: TaskQueue::new(memory, HashMap::new()),
        }
    }

    /// An empty buffer with room for `len` bytes: one kept from a chunk
    /// written when there is one, for the caller to fill and
    /// [`submit`](Self::submit).
    pub(super) fn buffer(&self, len: usize) -> Vec<u8> {
        match self.kept.take(len) {
            Some(mut kept) => {
                kept.clear();
                kept
            }
            None => Vec::with_capacity(len),
        }
    }

    /// Writes the chunk of dataset `id` at `offset`: `bytes` passed
    /// through `pipeline` (as they are without one), in the background
    /// when a worker is free. `mask` is the chunk's filter mask (the
    /// filters it skipped). An error of an earlier chunk is returned here.
    pub(super) fn submit(
        &self,
        id: ObjectId,
        offset: Vec<u64>,
        bytes: Vec<u8>,
        pipeline: Option<Arc<Pipeline>>,
        mask: u32,
    ) -> WriteResult<()> {
        let pipeline = pipeline.filter(|p| !p.is_empty());
        let cost = match &pipeline {
            // the decoded bytes, a filter's output and the compressor's
            Some(_) => bytes.len().saturating_mul(3),
            None => bytes.len(),
        };
        let (sink, eof, behind) = (self.sink.clone(), self.eof.clone(), self.behind.clone());
        let kept = self.kept.clone();
        let key = (id, offset.clone());
        self.tasks.submit(key, cost, move |shared| {
            // An unfiltered chunk's buffer is kept once written. A filtered
            // one's is not: encoding takes three times the chunk's memory
            // (see `cost`) and its time hides the faults of a fresh buffer.
            let (encoded, own) = match pipeline {
                Some(p) => (p.encode(&bytes)?, false),
                None => (bytes, true),
            };
            let size = u32::try_from(encoded.len())
                .map_err(|_| WriteError::Unsupported("a chunk of 4 GiB or more".into()))?;
            let addr = eof.fetch_add(encoded.len() as u64, Ordering::SeqCst);
            sink.write_at(addr, &encoded)
                .and_then(|()| behind.written(&*sink, addr + u64::from(size)))
                .map_err(|source| WriteError::Io {
                    what: "chunk".into(),
                    source,
                })?;
            if own {
                kept.give(encoded);
            }
            let entry = ChunkEntry {
                offset: offset.clone(),
                size,
                mask,
                addr,
            };
            shared
                .lock()
                .extra
                .entry(id)
                .or_default()
                .insert(offset, entry);
            Ok(())
        })
    }

    /// Records that the bytes up to `end` of the file are written (a
    /// contiguous block's), for the write-back behind them.
    pub(super) fn written(&self, end: u64) -> WriteResult<()> {
        self.behind
            .written(&*self.sink, end)
            .map_err(|source| WriteError::Io {
                what: "contiguous data".into(),
                source,
            })
    }

    /// Takes the next `len` bytes of the file (for a contiguous block):
    /// their address.
    pub(super) fn alloc(&self, len: u64) -> u64 {
        self.eof.fetch_add(len, Ordering::SeqCst)
    }

    /// Waits for every chunk submitted, and hands out their index entries
    /// and the end of the file (or the first error any met).
    pub(super) fn finish(&self) -> WriteResult<(ChunkIndex, u64)> {
        self.tasks.wait()?;
        let index = std::mem::take(&mut self.tasks.shared().lock().extra);
        Ok((index, self.eof.load(Ordering::SeqCst)))
    }
}
