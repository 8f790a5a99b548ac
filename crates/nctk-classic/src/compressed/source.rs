//! [`CompressedSource`]: the uncompressed classic file a block-compressed
//! file stands for, as a [`ByteSource`] under the unchanged classic
//! reader.
//!
//! A batch of reads is mapped to the header's bytes, zeros (padding and
//! gaps) and the variables' blocks; the blocks missing from the cache are
//! read from the stored file in one batch (so a remote source merges
//! neighbours and runs the requests concurrently), checked against their
//! CRC-32 and decoded in parallel: a block wholly inside one destination
//! is decoded straight into it, a partly used one into the cache and
//! copied out. A long batch goes in groups of blocks, the next group's
//! stored bytes read while this group's blocks are decoded.

use std::sync::Arc;

use nctk_store::bytes::{ByteError, ByteSource, Coalesce};
use rayon::prelude::*;

use super::cache::{BlockCache, BlockKey};
use super::error::{CompressedError, Result};
use super::format::BlockEntry;
use super::index::Index;

/// The default capacity of the decoded-block cache (64 MiB).
pub const DEFAULT_CACHE_BYTES: u64 = 64 << 20;

/// The largest batch [`CompressedSource::batch_bytes`] asks for (256 MiB).
const MAX_BATCH_BYTES: u64 = 256 << 20;

/// The most pieces of blocks decoded at once (a batch of one-element
/// blocks would otherwise need a piece per element).
const MAX_PIECES: usize = 1 << 16;

/// Buffers of stored blocks up to this size are kept for the next batch.
const KEEP_STORED: usize = 64 << 20;

/// A block-compressed classic file presented as the uncompressed classic
/// file it stands for (`virtual_len` bytes). Open one with
/// [`CompressedSource::open`] and read it with
/// [`ClassicReader::from_source`](crate::ClassicReader::from_source).
pub struct CompressedSource {
    stored: Arc<dyn ByteSource>,
    index: Index,
    cache: BlockCache,
    /// Fixed-size variables with data, by `begin`.
    fixed: Vec<usize>,
    /// Record variables with data, by `begin`.
    records: Vec<usize>,
    /// The largest block of any variable.
    max_block: u64,
    batch_bytes: u64,
    /// Buffers of stored blocks kept between batches (a fresh allocation
    /// per batch costs page faults): at most two, one per batch in flight.
    buffers: std::sync::Mutex<Vec<Vec<u8>>>,
}

impl std::fmt::Debug for CompressedSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompressedSource")
            .field("file", &self.index.file)
            .field("virtual_len", &self.index.superblock.virtual_len)
            .finish_non_exhaustive()
    }
}

/// What a byte of the uncompressed file is.
#[derive(Debug, Clone, Copy)]
enum Part {
    /// Padding or a gap: zero.
    Zero,
    /// Byte `at` of the stored header.
    Header(u64),
    /// Byte `at` of variable `var`'s data stream.
    Stream { var: usize, at: u64 },
}

/// A destination of a block's bytes: the block, the offset in the block
/// its bytes start from, and the bytes.
type Piece<'a> = (BlockKey, u64, &'a mut [u8]);

/// One block a batch needs: the destinations of its bytes, each with the
/// offset in the block it starts from.
struct Work<'a> {
    key: BlockKey,
    uses: Vec<(u64, &'a mut [u8])>,
}

/// A group's blocks missing from the cache, with their table entries and
/// their stored bytes read (one after another in `buf`; `got` of each).
struct Fetched<'a> {
    missing: Vec<Work<'a>>,
    entries: Vec<BlockEntry>,
    buf: Vec<u8>,
    got: Vec<usize>,
}

impl CompressedSource {
    /// Opens the block-compressed file `stored` (its index read and
    /// checked, see [`Index::open`]).
    pub fn open(stored: Arc<dyn ByteSource>) -> Result<CompressedSource> {
        let index = Index::open(stored.as_ref())?;
        let vars = &index.layout.vars;
        let with_data = |record: bool| {
            let mut v: Vec<usize> = (0..vars.len())
                .filter(|&i| vars[i].is_record == record && index.entries[i].data_bytes > 0)
                .collect();
            v.sort_by_key(|&i| vars[i].begin);
            v
        };
        let (fixed, records) = (with_data(false), with_data(true));
        let max_block = index
            .entries
            .iter()
            .map(|e| e.block_bytes)
            .max()
            .unwrap_or(0);
        let threads = rayon::current_num_threads() as u64;
        let batch_bytes = stored
            .batch_bytes()
            .max(max_block.saturating_mul(8 * threads))
            .min(MAX_BATCH_BYTES.max(max_block));
        let source = CompressedSource {
            cache: BlockCache::new(DEFAULT_CACHE_BYTES, max_block),
            stored,
            index,
            fixed,
            records,
            max_block,
            batch_bytes,
            buffers: std::sync::Mutex::default(),
        };
        Ok(source)
    }

    /// The same source with a decoded-block cache of `bytes` (at least
    /// two of the file's largest blocks).
    pub fn with_cache_bytes(mut self, bytes: u64) -> CompressedSource {
        self.cache = BlockCache::new(bytes, self.max_block);
        self
    }

    /// The stored file's checked index.
    pub fn index(&self) -> &Index {
        &self.index
    }

    /// Where the stored blocks of variable `var` (header order) of
    /// `shape` are in the stored file, each block one chunk
    /// ([`nctk_model::DataSource::chunk_refs`]); an error naming the
    /// file and the variable when the blocks are no chunk grid's chunks.
    pub fn chunk_refs(&self, var: usize, shape: &[u64]) -> Result<nctk_model::ChunkRefs> {
        super::refs::chunk_refs(&self.index, self.stored.as_ref(), var, shape)
    }

    /// What byte `pos` (past the header) of the uncompressed file is, and
    /// where that part ends.
    fn part_at(&self, pos: u64) -> (Part, u64) {
        let header_len = self.index.superblock.header_len;
        if pos < header_len {
            return (Part::Header(pos), header_len);
        }
        let layout = &self.index.layout;
        let vars = &layout.vars;
        if !self.records.is_empty() && pos >= layout.begin_rec {
            let rel = pos - layout.begin_rec;
            let (rec, within) = (rel / layout.recsize, rel % layout.recsize);
            if rec >= self.index.numrecs {
                return (Part::Zero, u64::MAX);
            }
            let rec_start = layout.begin_rec + rec * layout.recsize;
            let i = self
                .records
                .partition_point(|&v| vars[v].begin - layout.begin_rec <= within);
            if let Some(&v) = i.checked_sub(1).map(|k| &self.records[k]) {
                let off = vars[v].begin - layout.begin_rec;
                let per = vars[v].data_len();
                if within < off + per {
                    let at = rec * per + (within - off);
                    return (Part::Stream { var: v, at }, rec_start + off + per);
                }
            }
            let next = self
                .records
                .get(i)
                .map_or(layout.recsize, |&v| vars[v].begin - layout.begin_rec);
            return (Part::Zero, rec_start + next);
        }
        let i = self.fixed.partition_point(|&v| vars[v].begin <= pos);
        if let Some(&v) = i.checked_sub(1).map(|k| &self.fixed[k]) {
            let end = vars[v].begin + vars[v].data_len();
            if pos < end {
                let at = pos - vars[v].begin;
                return (Part::Stream { var: v, at }, end);
            }
        }
        let next = self.fixed.get(i).map_or(u64::MAX, |&v| vars[v].begin);
        let next = if self.records.is_empty() {
            next
        } else {
            next.min(layout.begin_rec)
        };
        (Part::Zero, next)
    }

    /// Reads a batch into the caller's buffers (each clipped to the
    /// uncompressed file's length); returns the bytes read per buffer.
    /// The pieces of blocks are decoded [`MAX_PIECES`] at a time, so that
    /// what a batch costs in memory beyond its blocks does not grow with
    /// its length.
    fn read_batch(&self, reads: &mut [(u64, &mut [u8])]) -> Result<Vec<usize>> {
        let len = self.index.superblock.virtual_len;
        let mut counts = Vec::with_capacity(reads.len());
        let mut pieces: Vec<Piece> = Vec::new();
        for (offset, buf) in reads.iter_mut() {
            let n = len.saturating_sub(*offset).min(buf.len() as u64) as usize;
            counts.push(n);
            let mut rest = &mut buf[..n];
            let mut pos = *offset;
            while !rest.is_empty() {
                let (part, end) = self.part_at(pos);
                let mut take = (end - pos).min(rest.len() as u64);
                if let Part::Stream { var, .. } = part {
                    let bb = self.index.entries[var].block_bytes;
                    take = take.min(bb.saturating_mul(MAX_PIECES as u64));
                }
                let (dst, tail) = std::mem::take(&mut rest).split_at_mut(take as usize);
                match part {
                    Part::Zero => dst.fill(0),
                    Part::Header(at) => dst.copy_from_slice(
                        &self.index.header_bytes[at as usize..(at + take) as usize],
                    ),
                    Part::Stream { var, at } => self.split_blocks(var, at, dst, &mut pieces),
                }
                if pieces.len() >= MAX_PIECES {
                    self.decode_pieces(std::mem::take(&mut pieces))?;
                }
                rest = tail;
                pos += take;
            }
        }
        self.decode_pieces(pieces)?;
        Ok(counts)
    }

    /// Fills `pieces`' destinations: the blocks they need in groups of at
    /// most a batch's bytes, each group's missing blocks one batch of
    /// stored reads, the next group's read while this one's blocks are
    /// decoded.
    fn decode_pieces(&self, mut pieces: Vec<Piece>) -> Result<()> {
        pieces.sort_by_key(|(key, within, _)| (*key, *within));
        let mut work: Vec<Work> = Vec::new();
        for (key, within, dst) in pieces {
            match work.last_mut() {
                Some(w) if w.key == key => w.uses.push((within, dst)),
                _ => work.push(Work {
                    key,
                    uses: vec![(within, dst)],
                }),
            }
        }
        let mut groups = Vec::new();
        let mut rest = work;
        while !rest.is_empty() {
            let mut bytes = 0;
            let split = rest
                .iter()
                .position(|w| {
                    bytes += self.index.entries[w.key.0].block_len(w.key.1);
                    bytes > self.batch_bytes
                })
                .unwrap_or(rest.len())
                .max(1);
            let tail = rest.split_off(split);
            groups.push(rest);
            rest = tail;
        }
        let mut groups = groups.into_iter();
        let Some(first) = groups.next() else {
            return Ok(());
        };
        let mut current = self.fetch(first)?;
        for next in groups {
            let (done, fetched) = rayon::join(|| self.decode_fetched(current), || self.fetch(next));
            done?;
            current = fetched?;
        }
        self.decode_fetched(current)
    }

    /// Cuts `dst` (stream bytes from `at` of `var`) at block boundaries.
    fn split_blocks<'a>(
        &self,
        var: usize,
        mut at: u64,
        dst: &'a mut [u8],
        pieces: &mut Vec<Piece<'a>>,
    ) {
        let bb = self.index.entries[var].block_bytes;
        let mut rest = dst;
        while !rest.is_empty() {
            let (block, within) = (at / bb, at % bb);
            let take = (bb - within).min(rest.len() as u64) as usize;
            let (d, tail) = std::mem::take(&mut rest).split_at_mut(take);
            pieces.push(((var, block), within, d));
            rest = tail;
            at += take as u64;
        }
    }

    /// Fills `group`'s destinations from the cache where it holds their
    /// block, and reads the stored bytes of the other blocks in one batch.
    fn fetch<'a>(&self, group: Vec<Work<'a>>) -> Result<Fetched<'a>> {
        let mut missing = Vec::with_capacity(group.len());
        for mut w in group {
            match self.cache.get(w.key) {
                Some(block) => copy_out(&block, &mut w.uses),
                None => missing.push(w),
            }
        }
        let entries = self.entries_of(&missing)?;
        let mut buf = self
            .buffers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop()
            .unwrap_or_default();
        let total: u64 = entries.iter().map(|e| u64::from(e.stored_len)).sum();
        buf.resize(total as usize, 0);
        let mut reads: Vec<(u64, &mut [u8])> = Vec::with_capacity(entries.len());
        let mut rest = &mut buf[..];
        for e in &entries {
            let (b, tail) = std::mem::take(&mut rest).split_at_mut(e.stored_len as usize);
            reads.push((e.offset, b));
            rest = tail;
        }
        let got = if reads.is_empty() {
            vec![]
        } else {
            self.stored.read_ranges_into(&mut reads)?
        };
        Ok(Fetched {
            missing,
            entries,
            buf,
            got,
        })
    }

    /// Checks and decodes the fetched blocks in parallel into their
    /// destinations, caching the partly used ones.
    fn decode_fetched(&self, fetched: Fetched) -> Result<()> {
        let Fetched {
            missing,
            entries,
            buf,
            got,
        } = fetched;
        let mut stored: Vec<&[u8]> = Vec::with_capacity(entries.len());
        let mut rest = &buf[..];
        for e in &entries {
            let (b, tail) = rest.split_at(e.stored_len as usize);
            stored.push(b);
            rest = tail;
        }
        let decoded: Vec<Option<(BlockKey, Arc<[u8]>)>> = missing
            .into_par_iter()
            .zip(entries.par_iter())
            .zip(stored.par_iter())
            .zip(got.par_iter())
            .map(|(((w, e), bytes), &n)| self.decode(w, e, bytes, n))
            .collect::<Result<_>>()?;
        for (key, block) in decoded.into_iter().flatten() {
            self.cache.insert(key, block);
        }
        if buf.capacity() <= KEEP_STORED {
            let mut pool = self.buffers.lock().unwrap_or_else(|e| e.into_inner());
            if pool.len() < 2 {
                pool.push(buf);
            }
        }
        Ok(())
    }

    /// Whether `w` is one destination covering its whole block (decoded
    /// straight into it).
    fn is_direct(&self, w: &Work) -> bool {
        let len = self.index.entries[w.key.0].block_len(w.key.1);
        matches!(w.uses.as_slice(), [(0, d)] if d.len() as u64 == len)
    }

    /// The checked table entries of `work`'s blocks (sorted by block),
    /// one read per run of neighbouring blocks when the tables were not
    /// read at open.
    fn entries_of(&self, work: &[Work]) -> Result<Vec<BlockEntry>> {
        let mut out = Vec::with_capacity(work.len());
        let mut i = 0;
        while i < work.len() {
            let (var, first) = work[i].key;
            let mut j = i + 1;
            while j < work.len() && work[j].key == (var, first + (j - i) as u64) {
                j += 1;
            }
            out.extend(self.index.blocks(
                self.stored.as_ref(),
                var,
                first..first + (j - i) as u64,
            )?);
            i = j;
        }
        Ok(out)
    }

    /// Checks and decodes one block (`got` of its stored bytes read) into
    /// its destinations; returns the decoded block to cache when it went
    /// through a buffer of its own.
    fn decode(
        &self,
        mut w: Work,
        entry: &BlockEntry,
        stored: &[u8],
        got: usize,
    ) -> Result<Option<(BlockKey, Arc<[u8]>)>> {
        let (var, block) = w.key;
        let err = |reason: String| CompressedError::Block {
            file: self.index.file.clone(),
            var: self.index.var_name(var).to_string(),
            block,
            offset: entry.offset,
            reason,
        };
        if got < stored.len() {
            return Err(err(format!(
                "the file ends at byte {} inside the block's {} bytes",
                entry.offset + got as u64,
                stored.len()
            )));
        }
        let crc = crc32fast::hash(stored);
        if crc != entry.crc32 {
            return Err(err(format!(
                "checksum mismatch (stored {:#010x}, computed {crc:#010x})",
                entry.crc32
            )));
        }
        let dir = &self.index.entries[var];
        let codec_err = |source| CompressedError::Codec {
            file: self.index.file.clone(),
            var: self.index.var_name(var).to_string(),
            block,
            offset: entry.offset,
            source,
        };
        if self.is_direct(&w) {
            dir.codec
                .decode_block(stored, w.uses[0].1)
                .map_err(codec_err)?;
            return Ok(None);
        }
        let mut decoded = vec![0u8; dir.block_len(block) as usize];
        dir.codec
            .decode_block(stored, &mut decoded)
            .map_err(codec_err)?;
        copy_out(&decoded, &mut w.uses);
        Ok(Some((w.key, decoded.into())))
    }
}

/// Copies each destination's bytes out of a decoded block.
fn copy_out(block: &[u8], uses: &mut [(u64, &mut [u8])]) {
    for (within, dst) in uses {
        let at = *within as usize;
        dst.copy_from_slice(&block[at..at + dst.len()]);
    }
}

impl ByteSource for CompressedSource {
    /// The uncompressed file's length (`virtual_len`).
    fn len(&self) -> std::result::Result<u64, ByteError> {
        Ok(self.index.superblock.virtual_len)
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::result::Result<usize, ByteError> {
        let got = self.read_ranges_into(&mut [(offset, buf)])?;
        Ok(got[0])
    }

    /// The stored file's name.
    fn name(&self) -> String {
        self.index.file.clone()
    }

    /// Never: merging decoded ranges saves no I/O (the stored reads are
    /// merged below, by the stored source).
    fn coalesce(&self) -> Coalesce {
        Coalesce::NEVER
    }

    /// Large enough for several blocks per core: the stored source's, or
    /// eight blocks per rayon thread, at most 256 MiB (or one block).
    fn batch_bytes(&self) -> u64 {
        self.batch_bytes
    }

    fn read_ranges_into(
        &self,
        reads: &mut [(u64, &mut [u8])],
    ) -> std::result::Result<Vec<usize>, ByteError> {
        let first = reads.first().map_or(0, |r| r.0);
        self.read_batch(reads)
            .map_err(|e| e.into_byte_error(&self.index.file, first))
    }
}
