//! Writing a block-compressed file from an uncompressed classic one:
//! blocks read in batches, compressed in parallel on rayon's threads,
//! written in order; the index written as the blocks go, the superblock
//! last, so a file cut short never reads as complete.

use nctk_codec::buffer::with_kept;
use nctk_model::{DataSource, VarId};
use nctk_store::bytes::ByteSink;
use rayon::prelude::*;

use super::codec::{BlockCodec, CodecId};
use super::error::{CompressedError, Result};
use super::format::{
    BlockEntry, DirEntry, Superblock, BLOCK_ENTRY_LEN, DIR_ENTRY_LEN, MAX_BLOCK_BYTES,
    SUPERBLOCK_LEN,
};
use crate::header::NumRecs;
use crate::{ClassicReader, Version};

/// How [`compress`] encodes the blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompressOptions {
    /// The compressor (default zstd).
    pub codec: CodecId,
    /// Its level; `None` takes [`CodecId::default_level`].
    pub level: Option<i8>,
    /// Byte-shuffle multi-byte elements before compressing (default on).
    pub shuffle: bool,
    /// Uncompressed bytes per block (default 1 MiB), at most: each
    /// variable's block is the largest whole number of its rows that fits
    /// ([`block_shape`]), at least one element, at most the variable's
    /// data and [`MAX_BLOCK_BYTES`].
    pub block_bytes: u64,
}

impl Default for CompressOptions {
    fn default() -> Self {
        CompressOptions {
            codec: CodecId::Zstd,
            level: None,
            shuffle: true,
            block_bytes: 1 << 20,
        }
    }
}

/// What [`compress`] wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompressSummary {
    /// Length of the uncompressed classic file.
    pub uncompressed_len: u64,
    /// Length of the compressed file.
    pub compressed_len: u64,
    /// Blocks written.
    pub blocks: u64,
}

/// Bytes of raw blocks read and compressed per batch (at least one
/// block): bounds the writer's memory at about twice this.
const BATCH_BYTES: u64 = 64 << 20;

/// One block to write: variable, block number, stream offset and length.
#[derive(Debug, Clone, Copy)]
struct Job {
    var: usize,
    block: u64,
    start: u64,
    len: u64,
}

/// Writes the classic file `reader` reads as a block-compressed file into
/// `sink` (which should be empty). Every variable's data stream is cut
/// into blocks of `options.block_bytes`, compressed in parallel and
/// written in order. Values past the end of a truncated input are written
/// as the fill value, as the reader reads them.
pub fn compress(
    reader: &ClassicReader,
    sink: &dyn ByteSink,
    options: &CompressOptions,
) -> Result<CompressSummary> {
    let file = reader.source().name();
    if options.block_bytes == 0 {
        return Err(CompressedError::Input {
            file,
            reason: "block size 0".into(),
        });
    }
    let layout = reader.layout();
    let numrecs = reader.numrecs();
    let header_bytes = stored_header(reader)?;
    let header_len = header_bytes.len() as u64;
    let level = options.level.unwrap_or(options.codec.default_level());

    // The directory, laid out before any block is written.
    let dir_offset = SUPERBLOCK_LEN + header_len;
    let mut table_offset = dir_offset + layout.vars.len() as u64 * DIR_ENTRY_LEN;
    let mut entries = Vec::with_capacity(layout.vars.len());
    for (var, vl) in layout.vars.iter().enumerate() {
        let data_bytes = vl.data_len() * if vl.is_record { numrecs } else { 1 };
        let shape = reader.schema().shape(VarId(var as u32));
        let request = options.block_bytes.min(MAX_BLOCK_BYTES);
        let rows: u64 = block_shape(&shape, vl.xsz, request).iter().product();
        let block_bytes = (rows * vl.xsz).clamp(vl.xsz, data_bytes.max(vl.xsz));
        let shuffle = if options.shuffle && vl.xsz > 1 {
            vl.xsz as u8
        } else {
            0
        };
        let entry = DirEntry {
            codec: BlockCodec {
                id: options.codec,
                level,
                shuffle,
            },
            block_bytes,
            data_bytes,
            nblocks: data_bytes.div_ceil(block_bytes),
            table_offset,
        };
        table_offset += entry.table_len();
        entries.push(entry);
    }
    let data_start = table_offset;

    // The blocks, batch by batch, with their table entries.
    let jobs = entries.iter().enumerate().flat_map(|(var, e)| {
        (0..e.nblocks).map(move |block| Job {
            var,
            block,
            start: block * e.block_bytes,
            len: e.block_len(block),
        })
    });
    // Batches are read and compressed on rayon's threads while the batch
    // before is written by a thread of its own, in order.
    let (pos, blocks) = std::thread::scope(|scope| -> Result<(u64, u64)> {
        let (send, receive) = std::sync::mpsc::sync_channel::<(Vec<Job>, Vec<Stored>)>(1);
        let writer = scope.spawn(|| {
            let mut pos = data_start;
            let mut blocks = 0u64;
            for (batch, stored) in receive {
                let start = pos;
                write_batch(sink, &entries, &batch, &stored, &mut pos)?;
                // Written back while the next batches compress, so the
                // final sync of the file waits for little.
                sink.start_sync(start, pos - start)?;
                blocks += batch.len() as u64;
            }
            Ok((pos, blocks))
        });
        let mut jobs = jobs.peekable();
        let mut batch: Vec<Job> = Vec::new();
        let mut batch_bytes = 0;
        let mut sent: Result<()> = Ok(());
        while let Some(job) = jobs.next() {
            batch_bytes += job.len;
            batch.push(job);
            if jobs
                .peek()
                .is_some_and(|next| batch_bytes + next.len <= BATCH_BYTES)
            {
                continue;
            }
            match encode_batch(reader, &entries, &batch) {
                Ok(stored) => {
                    if send.send((std::mem::take(&mut batch), stored)).is_err() {
                        break; // the writer failed: its error is reported
                    }
                }
                Err(e) => {
                    sent = Err(e);
                    break;
                }
            }
            batch_bytes = 0;
        }
        drop(send);
        let written = writer.join().expect("the block writer does not panic");
        sent?;
        written
    })?;

    // The directory and header, then the superblock last.
    let mut dir = Vec::with_capacity(entries.len() * DIR_ENTRY_LEN as usize);
    for e in &entries {
        dir.extend_from_slice(&e.encode());
    }
    sink.write_at(dir_offset, &dir)?;
    sink.write_at(SUPERBLOCK_LEN, &header_bytes)?;
    let superblock = Superblock {
        header_len,
        virtual_len: layout.implied_len(numrecs).max(header_len),
        dir_offset,
        nvars: entries.len() as u32,
        data_end: pos,
        header_crc: crc32fast::hash(&header_bytes),
    };
    sink.set_len(pos)?;
    sink.flush()?;
    sink.write_at(0, &superblock.encode())?;
    sink.flush()?;
    Ok(CompressSummary {
        uncompressed_len: superblock.virtual_len,
        compressed_len: pos,
        blocks,
    })
}

/// The shape of the largest row-major block of a variable of `shape`
/// with `elem_bytes`-byte elements that holds at most `max_bytes` (and at
/// least one element): whole inner dimensions while they fit, then as
/// many as fit of the next one, 1 outside it. A block of this shape's
/// bytes is a whole number of the variable's rows (or time steps, or
/// records), so blocks start where the rows do and hold what a chunk of
/// this shape holds; the compressed file's blocks have this many bytes.
pub fn block_shape(shape: &[u64], elem_bytes: u64, max_bytes: u64) -> Vec<u64> {
    let mut block = vec![1; shape.len()];
    let mut inner = elem_bytes.max(1);
    for (i, &n) in shape.iter().enumerate().rev() {
        let n = n.max(1);
        match inner.checked_mul(n) {
            Some(whole) if whole <= max_bytes => {
                block[i] = n;
                inner = whole;
            }
            _ => {
                block[i] = (max_bytes / inner).clamp(1, n);
                break;
            }
        }
    }
    block
}

/// A block as stored, with its CRC-32.
struct Stored {
    bytes: Vec<u8>,
    crc32: u32,
}

/// Writes one batch of stored blocks from `*pos` on, and their table
/// entries (each run of entries contiguous in the tables in one write).
fn write_batch(
    sink: &dyn ByteSink,
    entries: &[DirEntry],
    batch: &[Job],
    stored: &[Stored],
    pos: &mut u64,
) -> Result<()> {
    let mut table = Vec::with_capacity(batch.len() * BLOCK_ENTRY_LEN as usize);
    let mut table_at = None;
    for (job, block) in batch.iter().zip(stored) {
        sink.write_at(*pos, &block.bytes)?;
        let entry = BlockEntry {
            offset: *pos,
            stored_len: block.bytes.len() as u32,
            crc32: block.crc32,
        };
        *pos += block.bytes.len() as u64;
        let at = entries[job.var].table_offset + job.block * BLOCK_ENTRY_LEN;
        match table_at {
            Some(start) if start + table.len() as u64 == at => {}
            Some(start) => {
                sink.write_at(start, &table)?;
                table.clear();
                table_at = Some(at);
            }
            None => table_at = Some(at),
        }
        table.extend_from_slice(&entry.encode());
    }
    if let Some(start) = table_at {
        sink.write_at(start, &table)?;
    }
    Ok(())
}

thread_local! {
    /// Per thread: the raw bytes of the block being encoded, kept between
    /// blocks (a fresh buffer per block costs a page fault per page).
    static RAW: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

/// Reads and encodes one batch of blocks, in parallel; results in order.
fn encode_batch(
    reader: &ClassicReader,
    entries: &[DirEntry],
    batch: &[Job],
) -> Result<Vec<Stored>> {
    let file = reader.source().name();
    let names = &reader.header().vars;
    batch
        .par_iter()
        .map(|job| {
            let encoded = with_kept(&RAW, |raw| {
                raw.resize(job.len as usize, 0);
                reader
                    .read_stream(VarId(job.var as u32), job.start, raw)
                    .map_err(|e| CompressedError::Input {
                        file: file.clone(),
                        reason: e.to_string(),
                    })
                    .and_then(|()| {
                        entries[job.var].codec.encode_block(raw).map_err(|source| {
                            CompressedError::Codec {
                                file: file.clone(),
                                var: names[job.var].name.clone(),
                                block: job.block,
                                offset: 0,
                                source,
                            }
                        })
                    })
            });
            let bytes = encoded?;
            Ok(Stored {
                crc32: crc32fast::hash(&bytes),
                bytes,
            })
        })
        .collect()
}

/// The input's header bytes as the compressed file stores them: as in the
/// input, with a `STREAMING` record count replaced by the count (the
/// compressed file is read-only, so its record count is final).
fn stored_header(reader: &ClassicReader) -> Result<Vec<u8>> {
    let source = reader.source();
    let len = reader.layout().header_len;
    let mut bytes = vec![0u8; len as usize];
    source.read_exact_at(0, &mut bytes)?;
    if reader.header().numrecs == NumRecs::Streaming {
        let n = reader.numrecs();
        match reader.version() {
            Version::Cdf5 => bytes[4..12].copy_from_slice(&n.to_be_bytes()),
            _ => bytes[4..8].copy_from_slice(&(n as u32).to_be_bytes()),
        }
    }
    Ok(bytes)
}
