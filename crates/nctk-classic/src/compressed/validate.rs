//! The validator of block-compressed classic files: every check the
//! reader makes, run over the whole file and reported together, as
//! [`Finding`]s with the stored file's byte offset. The superblock, the
//! stored classic header (with the classic validator's rules, on the
//! uncompressed file's length), every directory entry, every block table
//! entry (inside the data area, in increasing order and not overlapping
//! through the whole file, no longer than its block), every block's
//! CRC-32 and that it decompresses to exactly its length (in parallel,
//! a bounded batch at a time), and bytes that belong to no block.

use nctk_store::bytes::ByteSource;
use rayon::prelude::*;

use super::error::CompressedError;
use super::format::{
    check_block, BlockEntry, DirEntry, BLOCK_ENTRY_LEN, DIR_ENTRY_LEN, SUPERBLOCK_LEN,
};
use super::index::{decode_stored_header, Index};
use crate::validate::{err, validate_decoded, warn};
use crate::Finding;

/// Table entries read at a time (1 MiB of table).
const TABLE_PAGE: u64 = 1 << 16;

/// Uncompressed bytes of the blocks checked in one parallel batch (at
/// least one block): bounds the validator's memory.
const BATCH_BYTES: u64 = 64 << 20;

/// What [`validate_report`] checked, for the report's summary line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Checked {
    /// Whether the superblock and the stored classic header were checked
    /// (false when the file is not a block-compressed one or its
    /// superblock is damaged).
    pub header: bool,
    /// Directory entries checked.
    pub entries: usize,
    /// Block table entries checked.
    pub table_entries: u64,
    /// Blocks whose checksum was checked and that were decompressed.
    pub blocks: u64,
    /// Uncompressed bytes those blocks decoded to.
    pub decoded_bytes: u64,
}

impl std::fmt::Display for Checked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if !self.header {
            return write!(f, "superblock checked");
        }
        write!(
            f,
            "superblock, classic header, {} directory entries, {} block table entries, \
             {} blocks checked (CRC-32 and decompressed length, {} bytes)",
            self.entries, self.table_entries, self.blocks, self.decoded_bytes
        )
    }
}

/// The findings of [`validate_report`] and what it checked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Validation {
    /// Errors and warnings, by offset in the stored file.
    pub findings: Vec<Finding>,
    /// What ran.
    pub checked: Checked,
}

/// Checks the block-compressed classic file `source`; an empty list means
/// it conforms. See [`validate_report`].
pub fn validate(source: &dyn ByteSource) -> Vec<Finding> {
    validate_report(source).findings
}

/// Checks the block-compressed classic file `source` whole: each finding
/// gives the stored file's offset and names the variable and block it is
/// about. A damaged superblock or header stops the checks (nothing after
/// them can be located); a damaged directory entry stops them before the
/// block tables; a bad table entry or block is reported and the rest are
/// checked.
pub fn validate_report(source: &dyn ByteSource) -> Validation {
    let mut v = Validation::default();
    let (mut index, meta) = match Index::open_front(source) {
        Ok(front) => front,
        Err(e) => {
            v.findings.push(finding_of(&e));
            return v;
        }
    };
    v.checked.header = true;
    check_header(&index, &mut v.findings);

    // The directory: every entry, each table where the previous one ends
    // (after a bad entry, where the next entry says its table is).
    let mut table_offset = index.superblock.dir_end();
    let mut directory_ok = true;
    for var in 0..index.layout.vars.len() {
        v.checked.entries += 1;
        match index.decode_entry(&meta, var, table_offset) {
            Ok(entry) => {
                table_offset = entry.table_offset + entry.table_len();
                index.entries.push(entry);
            }
            Err(e) => {
                v.findings.push(finding_of(&e));
                directory_ok = false;
                table_offset = stored_table_offset(&meta, &index, var + 1).unwrap_or(table_offset);
            }
        }
    }
    if !directory_ok {
        return v;
    }
    index.data_start = table_offset;
    check_blocks(source, &index, &mut v);
    v.findings.sort_by_key(|f| f.offset);
    v
}

/// The `table_offset` field of directory entry `var` as stored, if the
/// directory has that entry.
fn stored_table_offset(meta: &[u8], index: &Index, var: usize) -> Option<u64> {
    let at = index.superblock.dir_offset + var as u64 * DIR_ENTRY_LEN + 32;
    let field = meta.get(at as usize..at as usize + 8)?;
    Some(u64::from_be_bytes(field.try_into().expect("8 bytes")))
}

/// The classic validator's rules on the stored header, with the
/// uncompressed file's length; offsets moved to the stored file (a
/// finding about the uncompressed file's length points at the
/// superblock's `virtual_len`).
fn check_header(index: &Index, out: &mut Vec<Finding>) {
    let sb = &index.superblock;
    let Ok(decoded) = decode_stored_header(&index.file, &index.header_bytes, sb) else {
        return; // `open_front` decoded it already
    };
    for f in validate_decoded(&decoded, sb.virtual_len) {
        let (offset, place) = if f.offset < sb.header_len {
            (SUPERBLOCK_LEN + f.offset, "classic header")
        } else {
            (24, "uncompressed length (superblock)")
        };
        out.push(Finding {
            severity: f.severity,
            offset,
            message: format!("{place}: {}", f.message),
        });
    }
}

/// One block to check: variable, block number, uncompressed length and
/// its table entry.
#[derive(Debug, Clone, Copy)]
struct Job {
    var: usize,
    block: u64,
    len: u64,
    entry: BlockEntry,
}

/// Walks every block table in file order (a page at a time), checking
/// each entry against the data area and the block before it in the file,
/// and each good block's checksum and decoded length in parallel batches;
/// warns of bytes no block accounts for.
fn check_blocks(source: &dyn ByteSource, index: &Index, v: &mut Validation) {
    let data_end = index.superblock.data_end;
    let mut prev_end = index.data_start;
    let mut batch: Vec<Job> = vec![];
    let mut batch_bytes = 0;
    for (var, dir) in index.entries.iter().enumerate() {
        for first in (0..dir.nblocks).step_by(TABLE_PAGE as usize) {
            let last = (first + TABLE_PAGE).min(dir.nblocks);
            let at = dir.table_offset + first * BLOCK_ENTRY_LEN;
            let bytes = match source.read_range(at..dir.table_offset + last * BLOCK_ENTRY_LEN) {
                Ok(b) => b,
                Err(e) => {
                    v.findings.push(err(at, e.to_string()));
                    return;
                }
            };
            for (k, raw) in bytes.chunks_exact(BLOCK_ENTRY_LEN as usize).enumerate() {
                let block = first + k as u64;
                let entry = BlockEntry::decode(raw.try_into().expect("16 bytes"));
                let len = dir.block_len(block);
                v.checked.table_entries += 1;
                if let Err(reason) = check_block(&entry, len, index.data_start, data_end, prev_end)
                {
                    v.findings.push(err(
                        at + k as u64 * BLOCK_ENTRY_LEN,
                        format!(
                            "variable {:?}: block {block}: table entry: {reason}",
                            index.var_name(var)
                        ),
                    ));
                    continue;
                }
                if entry.offset > prev_end {
                    v.findings.push(unaccounted(prev_end, entry.offset));
                }
                prev_end = entry.end();
                if !batch.is_empty() && batch_bytes + len > BATCH_BYTES {
                    check_batch(source, index, &batch, v);
                    batch.clear();
                    batch_bytes = 0;
                }
                batch_bytes += len;
                batch.push(Job {
                    var,
                    block,
                    len,
                    entry,
                });
            }
        }
    }
    check_batch(source, index, &batch, v);
    if prev_end < data_end {
        v.findings.push(unaccounted(prev_end, data_end));
    }
}

/// Reads a batch of blocks (each into a buffer of its own) and checks
/// their checksums and decoded lengths in parallel.
fn check_batch(source: &dyn ByteSource, index: &Index, batch: &[Job], v: &mut Validation) {
    if batch.is_empty() {
        return;
    }
    let mut stored: Vec<Vec<u8>> = batch
        .iter()
        .map(|j| vec![0u8; j.entry.stored_len as usize])
        .collect();
    let mut ranges: Vec<(u64, &mut [u8])> = batch
        .iter()
        .zip(stored.iter_mut())
        .map(|(j, buf)| (j.entry.offset, buf.as_mut_slice()))
        .collect();
    if let Err(e) = source.read_ranges_into(&mut ranges) {
        v.findings.push(err(batch[0].entry.offset, e.to_string()));
        return;
    }
    let problems: Vec<Option<Finding>> = batch
        .par_iter()
        .zip(&stored)
        .map(|(job, bytes)| check_one(index, job, bytes))
        .collect();
    v.checked.blocks += batch.len() as u64;
    v.checked.decoded_bytes += batch.iter().map(|j| j.len).sum::<u64>();
    v.findings.extend(problems.into_iter().flatten());
}

/// Checks one stored block: its CRC-32, then that it decodes to exactly
/// its uncompressed length.
fn check_one(index: &Index, job: &Job, bytes: &[u8]) -> Option<Finding> {
    let dir: &DirEntry = &index.entries[job.var];
    let e = &job.entry;
    let block_error = |reason: String| {
        finding_of(&CompressedError::Block {
            file: index.file.clone(),
            var: index.var_name(job.var).to_string(),
            block: job.block,
            offset: e.offset,
            reason,
        })
    };
    let crc = crc32fast::hash(bytes);
    if crc != e.crc32 {
        return Some(block_error(format!(
            "checksum mismatch (table {:#010x}, stored bytes {crc:#010x})",
            e.crc32
        )));
    }
    let mut out = vec![0u8; job.len as usize];
    dir.codec.decode_block(bytes, &mut out).err().map(|source| {
        finding_of(&CompressedError::Codec {
            file: index.file.clone(),
            var: index.var_name(job.var).to_string(),
            block: job.block,
            offset: e.offset,
            source,
        })
    })
}

/// The warning for bytes `from..to` that no block accounts for.
fn unaccounted(from: u64, to: u64) -> Finding {
    warn(
        from,
        format!(
            "{} bytes (bytes {from}..{to}) belong to no block",
            to - from
        ),
    )
}

/// The finding for an error the reader gives: its offset in the stored
/// file, and its text without the file's name (the report names it).
fn finding_of(e: &CompressedError) -> Finding {
    let (offset, message) = match e {
        CompressedError::Superblock { offset, reason, .. } => {
            (*offset, format!("superblock: {reason}"))
        }
        CompressedError::Header { offset, reason, .. } => {
            (*offset, format!("classic header: {reason}"))
        }
        CompressedError::Index {
            var,
            offset,
            reason,
            ..
        } => (*offset, format!("variable {var:?}: directory entry: {reason}")),
        CompressedError::Block {
            var,
            block,
            offset,
            reason,
            ..
        } => (
            *offset,
            format!("variable {var:?}: block {block} at offset {offset}: {reason}"),
        ),
        CompressedError::Codec {
            var,
            block,
            offset,
            source,
            ..
        } => (
            *offset,
            format!(
                "variable {var:?}: block {block} at offset {offset}: does not decompress to its length: {source}"
            ),
        ),
        other => (0, other.to_string()),
    };
    err(offset, message)
}
