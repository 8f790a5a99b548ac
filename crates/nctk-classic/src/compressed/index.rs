//! The index of a block-compressed file, opened and checked: the
//! superblock, the stored classic header and its layout, the directory,
//! and the block tables (loaded at open when small, else on demand).

use std::ops::Range;

use nctk_store::bytes::ByteSource;

use super::error::{CompressedError, Result};
use super::format::{
    check_block, BlockEntry, DirEntry, Superblock, BLOCK_ENTRY_LEN, DIR_ENTRY_LEN, SUPERBLOCK_LEN,
};
use crate::header::{decode_header, DecodeError, Decoded, Header, NumRecs};
use crate::layout::FileLayout;
use crate::reader::layout_of;

/// Block tables up to this many bytes in all are read at open, in the same
/// read as the header and directory when they fit in it; larger ones are
/// read per variable, in pages, as blocks are needed.
pub const EAGER_TABLE_BYTES: u64 = 16 << 20;

/// The first read at open: the superblock, and usually the header, the
/// directory and small tables with it.
const FIRST_READ: u64 = 64 << 10;

/// The checked index of a block-compressed file.
#[derive(Debug, Clone)]
pub struct Index {
    /// The stored file's name (for errors).
    pub file: String,
    /// The superblock.
    pub superblock: Superblock,
    /// The stored classic header's bytes (bytes `0..header_len` of the
    /// uncompressed file).
    pub header_bytes: Vec<u8>,
    /// The decoded header.
    pub header: Header,
    /// The uncompressed file's layout.
    pub layout: FileLayout,
    /// The record count.
    pub numrecs: u64,
    /// One entry per variable, header order.
    pub entries: Vec<DirEntry>,
    /// Offset of the first block (just past the last table).
    pub data_start: u64,
    /// Every variable's block table when read at open
    /// ([`EAGER_TABLE_BYTES`]), else `None`.
    pub tables: Option<Vec<Vec<BlockEntry>>>,
}

impl Index {
    /// Reads and checks the index of the stored file `source`.
    pub fn open(source: &dyn ByteSource) -> Result<Index> {
        let (mut index, meta) = Index::open_front(source)?;
        let mut table_offset = index.superblock.dir_end();
        for var in 0..index.layout.vars.len() {
            let entry = index.decode_entry(&meta, var, table_offset)?;
            table_offset = entry.table_offset + entry.table_len();
            index.entries.push(entry);
        }
        index.data_start = table_offset;
        let dir_end = index.superblock.dir_end();
        if index.data_start - dir_end <= EAGER_TABLE_BYTES {
            let all = source.read_range(dir_end..index.data_start)?;
            let mut tables = Vec::with_capacity(index.entries.len());
            let mut prev_end = index.data_start;
            for var in 0..index.entries.len() {
                let start = (index.entries[var].table_offset - dir_end) as usize;
                let bytes = &all[start..start + index.entries[var].table_len() as usize];
                let table = index.decode_table(var, 0, bytes, prev_end)?;
                prev_end = table.last().map_or(prev_end, BlockEntry::end);
                tables.push(table);
            }
            index.tables = Some(tables);
        }
        Ok(index)
    }

    /// Reads and checks the superblock and the stored classic header:
    /// the index with no directory entries yet (`data_start` is the
    /// directory's end), and the file's bytes up to the directory's end.
    pub(crate) fn open_front(source: &dyn ByteSource) -> Result<(Index, bytes::Bytes)> {
        let file = source.name();
        let file_len = source.len()?;
        let first = source.read_range(0..FIRST_READ.min(file_len))?;
        if first.len() < 8 || first[..8] != super::format::MAGIC {
            return Err(CompressedError::NotCompressed { file });
        }
        let superblock = Superblock::decode(&first, file_len).map_err(|(offset, reason)| {
            CompressedError::Superblock {
                file: file.clone(),
                offset,
                reason,
            }
        })?;
        // The header, the directory and the tables are contiguous: read
        // what the first read did not cover in one more read.
        let dir_end = superblock.dir_end();
        let meta = if (first.len() as u64) >= dir_end {
            first
        } else {
            source.read_range(0..dir_end)?
        };
        if (meta.len() as u64) < dir_end {
            return Err(CompressedError::Superblock {
                file,
                offset: 32,
                reason: format!("the file ends at byte {} inside the directory", meta.len()),
            });
        }
        let header_bytes =
            meta[SUPERBLOCK_LEN as usize..][..superblock.header_len as usize].to_vec();
        let decoded = decode_stored_header(&file, &header_bytes, &superblock)?;
        let header_error = |offset: u64, reason: String| CompressedError::Header {
            file: file.clone(),
            offset: SUPERBLOCK_LEN + offset,
            reason,
        };
        let layout = layout_of(&decoded, &file).map_err(|e| header_error(0, e.to_string()))?;
        let NumRecs::Count(numrecs) = decoded.header.numrecs else {
            return Err(header_error(
                4,
                "the record count is STREAMING; a compressed file stores the count".into(),
            ));
        };
        if decoded.header.vars.len() != superblock.nvars as usize {
            return Err(CompressedError::Superblock {
                file,
                offset: 40,
                reason: format!(
                    "{} directory entries for {} variables",
                    superblock.nvars,
                    decoded.header.vars.len()
                ),
            });
        }
        let index = Index {
            file,
            superblock,
            header_bytes,
            header: decoded.header,
            layout,
            numrecs,
            entries: Vec::with_capacity(superblock.nvars as usize),
            data_start: dir_end,
            tables: None,
        };
        Ok((index, meta))
    }

    /// Decodes and checks the directory entry of `var` from `meta` (the
    /// file's bytes up to the directory's end): its own fields, and that
    /// its table is at `table_offset` (where the tables' order puts it)
    /// and ends by the end of the file.
    pub(crate) fn decode_entry(
        &self,
        meta: &[u8],
        var: usize,
        table_offset: u64,
    ) -> Result<DirEntry> {
        let vl = &self.layout.vars[var];
        let at = self.superblock.dir_offset + var as u64 * DIR_ENTRY_LEN;
        let bytes = &meta[at as usize..(at + DIR_ENTRY_LEN) as usize];
        let data_bytes = vl
            .data_len()
            .saturating_mul(if vl.is_record { self.numrecs } else { 1 });
        let error = |offset: u64, reason: String| CompressedError::Index {
            file: self.file.clone(),
            var: self.var_name(var).to_string(),
            offset,
            reason,
        };
        let entry = DirEntry::decode(bytes, vl.xsz, data_bytes)
            .map_err(|(o, reason)| error(at + o, reason))?;
        if entry.table_offset != table_offset {
            return Err(error(
                at + 32,
                format!(
                    "block table at byte {}, but the tables follow one another from the directory's end, so it must be at byte {table_offset}",
                    entry.table_offset
                ),
            ));
        }
        if table_offset
            .checked_add(entry.table_len())
            .is_none_or(|end| end > self.superblock.data_end)
        {
            return Err(error(
                at + 24,
                format!(
                    "block table of {} entries at byte {} runs past the end of the file ({} bytes)",
                    entry.nblocks, entry.table_offset, self.superblock.data_end
                ),
            ));
        }
        Ok(entry)
    }

    /// The name of variable `var`.
    pub fn var_name(&self, var: usize) -> &str {
        &self.header.vars[var].name
    }

    /// The entries of blocks `blocks` of variable `var`, checked: from the
    /// tables read at open, or read from `source` now.
    pub fn blocks(
        &self,
        source: &dyn ByteSource,
        var: usize,
        blocks: Range<u64>,
    ) -> Result<Vec<BlockEntry>> {
        if let Some(tables) = &self.tables {
            return Ok(tables[var][blocks.start as usize..blocks.end as usize].to_vec());
        }
        let entry = &self.entries[var];
        let start = entry.table_offset + blocks.start * BLOCK_ENTRY_LEN;
        let bytes = source.read_range(start..entry.table_offset + blocks.end * BLOCK_ENTRY_LEN)?;
        // Only the blocks read can be checked against one another here;
        // `validate` checks the whole file.
        self.decode_table(var, blocks.start, &bytes, self.data_start)
    }

    /// Decodes and checks table entries of `var` from block `first` on,
    /// the first starting at or after `prev_end`.
    fn decode_table(
        &self,
        var: usize,
        first: u64,
        bytes: &[u8],
        mut prev_end: u64,
    ) -> Result<Vec<BlockEntry>> {
        let entry = &self.entries[var];
        bytes
            .chunks_exact(BLOCK_ENTRY_LEN as usize)
            .enumerate()
            .map(|(k, b)| {
                let block = first + k as u64;
                let e = BlockEntry::decode(b.try_into().expect("16 bytes"));
                check_block(
                    &e,
                    entry.block_len(block),
                    self.data_start,
                    self.superblock.data_end,
                    prev_end,
                )
                .map_err(|reason| CompressedError::Index {
                    file: self.file.clone(),
                    var: self.var_name(var).to_string(),
                    offset: entry.table_offset + block * BLOCK_ENTRY_LEN,
                    reason: format!("block {block}: {reason}"),
                })?;
                prev_end = e.end();
                Ok(e)
            })
            .collect()
    }
}

/// Decodes the stored classic header (`header_len` bytes at offset 64);
/// errors give the offset in the stored file. Its counts are bounded by
/// the stored header's length, not the uncompressed file's (which the
/// superblock declares): every item of a header lies in the header, so a
/// count that does not fit it is refused before anything is allocated.
pub(crate) fn decode_stored_header(
    file: &str,
    bytes: &[u8],
    superblock: &Superblock,
) -> Result<Decoded> {
    let header_error = |offset: u64, reason: String| CompressedError::Header {
        file: file.to_string(),
        offset: SUPERBLOCK_LEN + offset,
        reason,
    };
    let crc = crc32fast::hash(bytes);
    if superblock.header_crc != 0 && crc != superblock.header_crc {
        return Err(header_error(
            0,
            format!(
                "checksum mismatch (the superblock's {:#010x} at byte 60, the header's {crc:#010x})",
                superblock.header_crc
            ),
        ));
    }
    let decoded = match decode_header(bytes, bytes.len() as u64) {
        Ok(d) => d,
        Err(DecodeError::NeedMore { len }) => {
            return Err(header_error(
                superblock.header_len,
                format!(
                    "the header needs {len} bytes but {} are stored",
                    superblock.header_len
                ),
            ))
        }
        Err(DecodeError::Invalid { offset, reason }) => return Err(header_error(offset, reason)),
    };
    if decoded.len != superblock.header_len {
        return Err(header_error(
            decoded.len,
            format!(
                "the header is {} bytes but the superblock says {}",
                decoded.len, superblock.header_len
            ),
        ));
    }
    Ok(decoded)
}
