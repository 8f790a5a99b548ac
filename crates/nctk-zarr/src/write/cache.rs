//! A bounded cache of decoded chunks being filled. A chunk leaves it as
//! soon as every element it holds has been written: it goes to the
//! [`EncodeQueue`], which encodes and stores it on another core while the
//! writer fills the next ones. Chunks written only in part stay until the
//! cache is full (the least recently touched is then stored first) or the
//! writer finishes. A chunk written in part that is already in the store is
//! read back and decoded first (read-modify-write); one that is not starts
//! as zeroed memory (which the allocator maps lazily) and gets the fill
//! value row by row: a row (the chunk's innermost dimension) is filled
//! when first written in part, and rows never written are filled when the
//! chunk is stored, so filling costs no pass over rows the data covers.
//!
//! A sharded array's chunks here are its inner chunks: one written in part
//! whose shard is being assembled, or stored, is taken back from it
//! ([`EncodeQueue::take_inner`]) and decoded.

use std::collections::HashMap;
use std::sync::Arc;

use nctk_store::kv::{Bytes, StoreKey};

use super::encode::{EncodeQueue, Job};
use super::plan::ArrayPlan;
use super::shards::Inner;
use super::{ReadWriteStore, WriteError};

/// A chunk: (variable index, chunk index).
type ChunkId = (u32, Vec<u64>);

/// Which rows of a chunk that started as zeroed memory hold their final
/// prefix of fill or data (see the [module docs](self)).
pub struct Rows {
    ready: Vec<bool>,
    fill: Vec<u8>,
    row_bytes: usize,
}

impl Rows {
    /// Prepares row `index` for a write of `len` of its bytes starting at
    /// byte `at` of the row: a row first written in part is filled first.
    pub fn prepare(&mut self, buf: &mut [u8], index: usize, at: usize, len: usize) {
        if self.ready[index] {
            return;
        }
        self.ready[index] = true;
        if at != 0 || len != self.row_bytes {
            self.fill_row(buf, index);
        }
    }

    fn fill_row(&self, buf: &mut [u8], index: usize) {
        let row = &mut buf[index * self.row_bytes..(index + 1) * self.row_bytes];
        for c in row.chunks_mut(self.fill.len()) {
            c.copy_from_slice(&self.fill[..c.len()]);
        }
    }

    /// Fills every row never written.
    fn finish(&self, buf: &mut [u8]) {
        for (i, _) in self.ready.iter().enumerate().filter(|(_, &r)| !r) {
            self.fill_row(buf, i);
        }
    }
}

struct Entry {
    buf: Vec<u8>,
    /// `None` when every byte is already final or data.
    rows: Option<Rows>,
    tick: u64,
    /// Elements written so far (writes that overlap count twice, which at
    /// worst stores the chunk early and reads it back later).
    written: u64,
}

/// Decoded chunks being filled, keyed by (variable index, chunk index);
/// they and the chunks being encoded stay within the limit (a new chunk
/// waits for room), except that one chunk is always allowed.
pub struct ChunkCache {
    entries: HashMap<ChunkId, Entry>,
    bytes: usize,
    limit: usize,
    tick: u64,
    queue: EncodeQueue,
}

/// The store key of a chunk: `v/0.1` (`v/0` for a scalar) in Zarr v2,
/// `v/c/0/1` (`v/c`) in Zarr v3's default encoding.
pub fn chunk_key(plan: &ArrayPlan, index: &[u64]) -> Result<StoreKey, WriteError> {
    let coords = index.iter().map(u64::to_string);
    let name = match (plan.v3.is_some(), index.is_empty()) {
        (true, _) => std::iter::once("c".to_string())
            .chain(coords)
            .collect::<Vec<_>>()
            .join("/"),
        (false, true) => "0".to_string(),
        (false, false) => coords.collect::<Vec<_>>().join("."),
    };
    Ok(StoreKey::new(format!("{}/{name}", plan.prefix))?)
}

/// Where the chunk of grid index `index` (an inner chunk when the array is
/// sharded) is stored: its key, or its shard's key and its place there.
fn chunk_place(plan: &ArrayPlan, index: &[u64]) -> Result<(StoreKey, Option<Inner>), WriteError> {
    match &plan.shards {
        None => Ok((chunk_key(plan, index)?, None)),
        Some(layout) => {
            let inner = layout.place(index);
            Ok((chunk_key(plan, &inner.shard)?, Some(inner)))
        }
    }
}

/// What one write does to one chunk.
pub struct ChunkWrite<'a> {
    /// The variable's index.
    pub var: u32,
    /// The chunk's index (empty for a scalar).
    pub index: &'a [u64],
    /// Elements of the chunk this write sets.
    pub elements: u64,
    /// Elements that complete the chunk: those inside the variable's
    /// extent (a whole chunk along unlimited dimensions, which may grow).
    pub complete_at: u64,
}

impl ChunkCache {
    /// A cache holding at most `limit` bytes of chunks being filled (and
    /// always at least one chunk), storing through `queue`.
    pub fn new(limit: usize, queue: EncodeQueue) -> ChunkCache {
        ChunkCache {
            entries: HashMap::new(),
            bytes: 0,
            limit,
            tick: 0,
            queue,
        }
    }

    /// Applies `copy_in` to the decoded bytes of the chunk `w` describes
    /// (from the cache, else read back from the store and decoded, else
    /// fill values) and hands the chunk to the encoder once it is complete.
    /// `whole` says that `copy_in` sets every byte of the chunk, so a new
    /// chunk need not start as fill values.
    pub fn update(
        &mut self,
        store: &Arc<dyn ReadWriteStore>,
        plans: &[ArrayPlan],
        w: &ChunkWrite<'_>,
        whole: bool,
        copy_in: impl FnOnce(&mut [u8], Option<&mut Rows>),
    ) -> Result<(), WriteError> {
        self.tick += 1;
        let id: ChunkId = (w.var, w.index.to_vec());
        let plan = &plans[w.var as usize];
        if !self.entries.contains_key(&id) {
            let size = plan.chunk_bytes();
            while !self.entries.is_empty() && self.bytes + size > self.limit {
                self.evict_one(plans)?;
            }
            // Chunks still being encoded count too: memory stays within
            // the limit however fast the chunks complete.
            self.queue.wait_for_room(self.bytes, size, self.limit);
            let (buf, rows) = self.start_chunk(store, plan, w, whole)?;
            self.bytes += size;
            self.entries.insert(
                id.clone(),
                Entry {
                    buf,
                    rows,
                    tick: 0,
                    written: 0,
                },
            );
        }
        let e = self.entries.get_mut(&id).expect("inserted above");
        e.tick = self.tick;
        copy_in(&mut e.buf, e.rows.as_mut());
        e.written += w.elements;
        if e.written >= w.complete_at {
            let e = self.entries.remove(&id).expect("present");
            self.bytes -= e.buf.len();
            self.submit(plan, id, e)?;
        }
        Ok(())
    }

    /// Drops what the cache holds of a chunk about to be replaced whole;
    /// its id.
    fn forget(&mut self, var: u32, index: &[u64]) -> ChunkId {
        let id: ChunkId = (var, index.to_vec());
        if let Some(e) = self.entries.remove(&id) {
            self.bytes -= e.buf.len();
        }
        id
    }

    /// Stores a whole chunk given as its decoded bytes (a write that covers
    /// exactly one chunk), replacing anything cached for it.
    pub fn put_whole(
        &mut self,
        plans: &[ArrayPlan],
        var: u32,
        index: &[u64],
        buf: Vec<u8>,
    ) -> Result<(), WriteError> {
        let id = self.forget(var, index);
        let whole = Entry {
            buf,
            rows: None,
            tick: 0,
            written: 0,
        };
        self.submit(&plans[var as usize], id, whole)
    }

    /// Stores `bytes`, a whole chunk already encoded with the variable's
    /// codecs, as they are (once an earlier version of it has landed),
    /// replacing anything cached for it.
    pub fn put_encoded(
        &mut self,
        store: &Arc<dyn ReadWriteStore>,
        plans: &[ArrayPlan],
        var: u32,
        index: &[u64],
        bytes: Vec<u8>,
    ) -> Result<(), WriteError> {
        self.forget(var, index);
        let key = chunk_key(&plans[var as usize], index)?;
        self.queue.wait_for(&key, None);
        store.put(&key, Bytes::from(bytes))?;
        Ok(())
    }

    /// The first bytes of a chunk entering the cache.
    fn start_chunk(
        &self,
        store: &Arc<dyn ReadWriteStore>,
        plan: &ArrayPlan,
        w: &ChunkWrite<'_>,
        whole: bool,
    ) -> Result<(Vec<u8>, Option<Rows>), WriteError> {
        let size = plan.chunk_bytes();
        if !whole {
            // Read-modify-write, once an earlier version has landed.
            let (key, inner) = chunk_place(plan, w.index)?;
            let decode = |enc: &[u8]| {
                plan.chain
                    .decode(enc, size)
                    .map_err(|source| WriteError::Codec {
                        key: key.to_string(),
                        source,
                    })
            };
            let old = match &inner {
                Some(inner) => self
                    .queue
                    .take_inner(w.var, &key, inner)?
                    .map(|b| decode(&b)),
                None => {
                    self.queue.wait_for(&key, None);
                    store.get(&key)?.map(|b| decode(&b))
                }
            };
            if let Some(buf) = old {
                return Ok((buf?, None));
            }
        }
        // Zeroed memory is nearly free (the allocator maps zero pages);
        // the fill pattern is written only where data does not go.
        let rows = (!whole && plan.fill_bytes.iter().any(|&b| b != 0)).then(|| {
            let row_bytes = plan.chunks.last().map_or(1, |&n| n as usize) * plan.width;
            Rows {
                ready: vec![false; size / row_bytes],
                fill: plan.fill_bytes.clone(),
                row_bytes,
            }
        });
        // A stored chunk's buffer, when one is free: every byte of it is
        // set before the chunk is stored (by the data, or by the fill
        // pattern row by row), or zeroed here when the fill is zeros.
        if let Some(mut buf) = self.queue.pool().take(size) {
            if !whole && rows.is_none() {
                buf.fill(0);
            }
            return Ok((buf, rows));
        }
        let mut buf = vec![0u8; size];
        // Fewer page faults on large chunks (the kernel zeroes 2 MiB pages).
        nctk_codec::buffer::advise_huge_pages(&mut buf);
        Ok((buf, rows))
    }

    /// Hands a chunk to the encoder, its unwritten rows filled.
    fn submit(&self, plan: &ArrayPlan, id: ChunkId, e: Entry) -> Result<(), WriteError> {
        let Entry { mut buf, rows, .. } = e;
        if let Some(rows) = rows {
            rows.finish(&mut buf);
        }
        let (key, inner) = chunk_place(plan, &id.1)?;
        self.queue.submit(Job {
            var: id.0,
            key,
            inner,
            buf,
        })
    }

    fn evict_one(&mut self, plans: &[ArrayPlan]) -> Result<(), WriteError> {
        let Some(id) = self
            .entries
            .iter()
            .min_by_key(|(_, e)| e.tick)
            .map(|(k, _)| k.clone())
        else {
            return Ok(());
        };
        let e = self.entries.remove(&id).expect("found above");
        self.bytes -= e.buf.len();
        self.submit(&plans[id.0 as usize], id, e)
    }

    /// Encodes and stores every cached chunk, in key order, waits until
    /// every chunk handed to the encoder is stored, then stores the shards
    /// still being assembled.
    pub fn flush(&mut self, plans: &[ArrayPlan]) -> Result<(), WriteError> {
        let mut all: Vec<_> = self.entries.drain().collect();
        all.sort_by(|a, b| a.0.cmp(&b.0));
        self.bytes = 0;
        for (id, e) in all {
            self.submit(&plans[id.0 as usize], id, e)?;
        }
        self.queue.finish_shards()
    }
}

#[cfg(test)]
mod tests {
    use super::Rows;

    /// Writes of any position and length into rows that started zeroed
    /// leave exactly what writing into a chunk pre-filled with the fill
    /// value leaves.
    #[test]
    fn rows_filled_lazily_equal_a_prefilled_chunk() {
        let fill = [0xAB, 0xCD];
        let (rows, row_bytes) = (5usize, 8usize);
        let mut seed = 7u64;
        let mut next = |n: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize % n
        };
        for _ in 0..200 {
            let mut lazy = vec![0u8; rows * row_bytes];
            let mut model = fill.repeat(rows * row_bytes / 2);
            let mut r = Rows {
                ready: vec![false; rows],
                fill: fill.to_vec(),
                row_bytes,
            };
            for _ in 0..next(6) {
                let row = next(rows);
                let at = next(row_bytes / 2) * 2;
                let len = (next((row_bytes - at) / 2) + 1) * 2;
                let at = if next(3) == 0 { 0 } else { at };
                let len = if at == 0 && next(2) == 0 {
                    row_bytes
                } else {
                    len.min(row_bytes - at)
                };
                r.prepare(&mut lazy, row, at, len);
                let start = row * row_bytes + at;
                let value = next(250) as u8 + 1;
                lazy[start..start + len].fill(value);
                model[start..start + len].fill(value);
            }
            r.finish(&mut lazy);
            assert_eq!(lazy, model);
        }
    }
}
