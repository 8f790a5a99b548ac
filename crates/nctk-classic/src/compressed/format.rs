//! The on-disk structures of a block-compressed classic file, with no I/O:
//! the superblock, the directory entries and the block table entries, each
//! with an encoder and a decoder that checks every field it can check
//! alone. All integers are big-endian, as in the classic format. See
//! `docs/formats/compressed-classic.md` for the specification.

use super::codec::{BlockCodec, CodecId};

/// The magic number: `\x89NCB\r\n\x1a\n`. Not `CDF`, so classic readers
/// (netCDF-C, PnetCDF, netCDF-Java) refuse the file as an unknown format
/// instead of misreading it; the high byte and the line endings catch a
/// transfer that mangles binary data, as PNG's signature does.
pub const MAGIC: [u8; 8] = *b"\x89NCB\r\n\x1a\n";

/// The format version this code writes and reads.
pub const FORMAT_VERSION: u32 = 1;

/// Length of the superblock at offset 0.
pub const SUPERBLOCK_LEN: u64 = 64;

/// Length of one directory entry.
pub const DIR_ENTRY_LEN: u64 = 48;

/// Length of one block table entry.
pub const BLOCK_ENTRY_LEN: u64 = 16;

/// The largest block a file may declare (256 MiB): a reader never
/// allocates more than one block's bytes per block it decodes.
pub const MAX_BLOCK_BYTES: u64 = 256 << 20;

/// The fixed-size first part of the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Superblock {
    /// Length of the classic header stored at [`SUPERBLOCK_LEN`].
    pub header_len: u64,
    /// Length of the uncompressed classic file this file stands for.
    pub virtual_len: u64,
    /// Offset of the directory (one entry per variable, header order).
    pub dir_offset: u64,
    /// Number of directory entries (the header's variable count).
    pub nvars: u32,
    /// Offset just past the last block: the stored file's length.
    pub data_end: u64,
    /// CRC-32 of the stored classic header (0: not recorded), so a
    /// damaged header, which decides how every value is read, is found.
    pub header_crc: u32,
}

impl Superblock {
    /// The 64 encoded bytes (magic, version, flags, fields, CRC-32).
    pub fn encode(&self) -> [u8; SUPERBLOCK_LEN as usize] {
        let mut b = [0u8; SUPERBLOCK_LEN as usize];
        b[0..8].copy_from_slice(&MAGIC);
        b[8..12].copy_from_slice(&FORMAT_VERSION.to_be_bytes());
        // 12..16: flags, none defined.
        b[16..24].copy_from_slice(&self.header_len.to_be_bytes());
        b[24..32].copy_from_slice(&self.virtual_len.to_be_bytes());
        b[32..40].copy_from_slice(&self.dir_offset.to_be_bytes());
        b[40..44].copy_from_slice(&self.nvars.to_be_bytes());
        b[44..48].copy_from_slice(&(DIR_ENTRY_LEN as u32).to_be_bytes());
        b[48..56].copy_from_slice(&self.data_end.to_be_bytes());
        let crc = crc32fast::hash(&b[..56]);
        b[56..60].copy_from_slice(&crc.to_be_bytes());
        b[60..64].copy_from_slice(&self.header_crc.to_be_bytes());
        b
    }

    /// Decodes and checks the superblock of a stored file of `file_len`
    /// bytes. Errors give the offset of the bad field and the reason.
    pub fn decode(b: &[u8], file_len: u64) -> Result<Superblock, (u64, String)> {
        if b.len() < SUPERBLOCK_LEN as usize {
            return Err((
                0,
                format!(
                    "the file is {file_len} bytes, shorter than the {SUPERBLOCK_LEN}-byte superblock"
                ),
            ));
        }
        if b[0..8] != MAGIC {
            return Err((0, "wrong magic number".into()));
        }
        let u32_at = |o: usize| u32::from_be_bytes(b[o..o + 4].try_into().expect("4 bytes"));
        let u64_at = |o: usize| u64::from_be_bytes(b[o..o + 8].try_into().expect("8 bytes"));
        let stored_crc = u32_at(56);
        let crc = crc32fast::hash(&b[..56]);
        if stored_crc != crc {
            return Err((
                56,
                format!("checksum mismatch (stored {stored_crc:#010x}, computed {crc:#010x})"),
            ));
        }
        let version = u32_at(8);
        if version != FORMAT_VERSION {
            return Err((
                8,
                format!("format version {version} (this reader knows {FORMAT_VERSION})"),
            ));
        }
        let flags = u32_at(12);
        if flags != 0 {
            return Err((12, format!("unknown flags {flags:#x}")));
        }
        if u32_at(44) as u64 != DIR_ENTRY_LEN {
            return Err((
                44,
                format!(
                    "directory entry length {} (version {FORMAT_VERSION} has {DIR_ENTRY_LEN})",
                    u32_at(44)
                ),
            ));
        }
        let sb = Superblock {
            header_len: u64_at(16),
            virtual_len: u64_at(24),
            dir_offset: u64_at(32),
            nvars: u32_at(40),
            data_end: u64_at(48),
            header_crc: u32_at(60),
        };
        if sb.data_end != file_len {
            return Err((
                48,
                format!(
                    "the blocks end at byte {} but the file is {file_len} bytes (truncated or appended to)",
                    sb.data_end
                ),
            ));
        }
        let header_end = SUPERBLOCK_LEN.checked_add(sb.header_len);
        if header_end.is_none_or(|end| end > sb.dir_offset) {
            return Err((
                16,
                format!(
                    "header of {} bytes runs past the directory at byte {}",
                    sb.header_len, sb.dir_offset
                ),
            ));
        }
        let dir_end = sb
            .dir_offset
            .checked_add(u64::from(sb.nvars) * DIR_ENTRY_LEN);
        if dir_end.is_none_or(|end| end > file_len) {
            return Err((
                32,
                format!(
                    "directory of {} entries at byte {} runs past the end of the file ({file_len} bytes)",
                    sb.nvars, sb.dir_offset
                ),
            ));
        }
        if sb.virtual_len < sb.header_len {
            return Err((
                24,
                format!(
                    "uncompressed length {} is shorter than the header ({} bytes)",
                    sb.virtual_len, sb.header_len
                ),
            ));
        }
        Ok(sb)
    }

    /// Offset just past the directory.
    pub fn dir_end(&self) -> u64 {
        self.dir_offset + u64::from(self.nvars) * DIR_ENTRY_LEN
    }
}

/// One variable's entry in the directory: how its data is blocked and
/// compressed, and where its block table is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DirEntry {
    /// The codec of every block of the variable.
    pub codec: BlockCodec,
    /// Uncompressed bytes per block (the last block may be shorter): a
    /// whole number of elements, at least one element, at most the
    /// variable's data (or one element when it has none) and
    /// [`MAX_BLOCK_BYTES`].
    pub block_bytes: u64,
    /// Uncompressed bytes of the variable's data (all records of a record
    /// variable, without the classic format's padding).
    pub data_bytes: u64,
    /// Number of blocks: `ceil(data_bytes / block_bytes)`.
    pub nblocks: u64,
    /// Offset of the variable's block table.
    pub table_offset: u64,
}

impl DirEntry {
    /// The 48 encoded bytes.
    pub fn encode(&self) -> [u8; DIR_ENTRY_LEN as usize] {
        let mut b = [0u8; DIR_ENTRY_LEN as usize];
        b[0] = self.codec.id as u8;
        b[1] = self.codec.level as u8;
        b[2] = self.codec.shuffle;
        b[8..16].copy_from_slice(&self.block_bytes.to_be_bytes());
        b[16..24].copy_from_slice(&self.data_bytes.to_be_bytes());
        b[24..32].copy_from_slice(&self.nblocks.to_be_bytes());
        b[32..40].copy_from_slice(&self.table_offset.to_be_bytes());
        let crc = crc32fast::hash(&b[..40]);
        b[40..44].copy_from_slice(&crc.to_be_bytes());
        b
    }

    /// Decodes and checks one entry against what the header says of its
    /// variable: `elem_size` bytes per element and `data_bytes` of data.
    /// Errors give the offset of the bad field within the entry and the
    /// reason.
    pub fn decode(b: &[u8], elem_size: u64, data_bytes: u64) -> Result<DirEntry, (u64, String)> {
        let u64_at = |o: usize| u64::from_be_bytes(b[o..o + 8].try_into().expect("8 bytes"));
        if b.len() < DIR_ENTRY_LEN as usize {
            return Err((0, "directory entry cut short".into()));
        }
        let stored_crc = u32::from_be_bytes(b[40..44].try_into().expect("4 bytes"));
        let crc = crc32fast::hash(&b[..40]);
        if stored_crc != crc {
            return Err((
                40,
                format!("checksum mismatch (stored {stored_crc:#010x}, computed {crc:#010x})"),
            ));
        }
        let id = CodecId::from_u8(b[0]).ok_or_else(|| (0, format!("unknown codec {}", b[0])))?;
        let shuffle = b[2];
        if shuffle != 0 && u64::from(shuffle) != elem_size {
            return Err((
                2,
                format!("shuffle element size {shuffle}, but the variable's elements are {elem_size} bytes"),
            ));
        }
        let entry = DirEntry {
            codec: BlockCodec {
                id,
                level: b[1] as i8,
                shuffle,
            },
            block_bytes: u64_at(8),
            data_bytes: u64_at(16),
            nblocks: u64_at(24),
            table_offset: u64_at(32),
        };
        if entry.data_bytes != data_bytes {
            return Err((
                16,
                format!(
                    "{} bytes of data, but the header's shape gives {data_bytes}",
                    entry.data_bytes
                ),
            ));
        }
        let bb = entry.block_bytes;
        if bb == 0 {
            return Err((8, "block size 0".into()));
        }
        if bb % elem_size != 0 {
            return Err((
                8,
                format!("block size {bb} is not a whole number of {elem_size}-byte elements"),
            ));
        }
        if bb > data_bytes.max(elem_size) {
            return Err((
                8,
                format!("block size {bb} is larger than the variable ({data_bytes} bytes)"),
            ));
        }
        if bb > MAX_BLOCK_BYTES {
            return Err((
                8,
                format!("block size {bb} is over the format's limit of {MAX_BLOCK_BYTES} bytes"),
            ));
        }
        if entry.nblocks != data_bytes.div_ceil(bb) {
            return Err((
                24,
                format!(
                    "{} blocks, but {data_bytes} bytes in blocks of {bb} make {}",
                    entry.nblocks,
                    data_bytes.div_ceil(bb)
                ),
            ));
        }
        Ok(entry)
    }

    /// Uncompressed length of block `block` (the last one may be short).
    pub fn block_len(&self, block: u64) -> u64 {
        let start = block * self.block_bytes;
        self.block_bytes.min(self.data_bytes - start)
    }

    /// Bytes of the block table.
    pub fn table_len(&self) -> u64 {
        self.nblocks * BLOCK_ENTRY_LEN
    }
}

/// One block's entry in a variable's block table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockEntry {
    /// Offset of the stored block in the file.
    pub offset: u64,
    /// Stored length. Equal to the block's uncompressed length when the
    /// block is stored as it is (the writer stores a block raw whenever
    /// the codec would not make it smaller); never larger.
    pub stored_len: u32,
    /// CRC-32 (IEEE, as zlib's `crc32`) of the stored bytes.
    pub crc32: u32,
}

impl BlockEntry {
    /// The 16 encoded bytes.
    pub fn encode(&self) -> [u8; BLOCK_ENTRY_LEN as usize] {
        let mut b = [0u8; BLOCK_ENTRY_LEN as usize];
        b[0..8].copy_from_slice(&self.offset.to_be_bytes());
        b[8..12].copy_from_slice(&self.stored_len.to_be_bytes());
        b[12..16].copy_from_slice(&self.crc32.to_be_bytes());
        b
    }

    /// Decodes one entry (no checks: see [`check_block`]).
    pub fn decode(b: &[u8; BLOCK_ENTRY_LEN as usize]) -> BlockEntry {
        BlockEntry {
            offset: u64::from_be_bytes(b[0..8].try_into().expect("8 bytes")),
            stored_len: u32::from_be_bytes(b[8..12].try_into().expect("4 bytes")),
            crc32: u32::from_be_bytes(b[12..16].try_into().expect("4 bytes")),
        }
    }

    /// Offset just past the stored block.
    pub fn end(&self) -> u64 {
        self.offset + u64::from(self.stored_len)
    }
}

/// Checks one block entry on its own: its uncompressed length is
/// `raw_len`, blocks start at or after `data_start` and end by `data_end`,
/// and it must start at or after `prev_end` (the end of the block before
/// it in file order). Returns the reason when it is wrong.
pub fn check_block(
    entry: &BlockEntry,
    raw_len: u64,
    data_start: u64,
    data_end: u64,
    prev_end: u64,
) -> Result<(), String> {
    if u64::from(entry.stored_len) > raw_len {
        return Err(format!(
            "stored length {} is larger than the block's {raw_len} bytes",
            entry.stored_len
        ));
    }
    if entry.stored_len == 0 && raw_len > 0 {
        return Err("stored length 0".into());
    }
    if entry.offset < data_start
        || entry.offset.saturating_add(u64::from(entry.stored_len)) > data_end
    {
        return Err(format!(
            "{} bytes at offset {} lie outside the data area (bytes {data_start}..{data_end})",
            entry.stored_len, entry.offset
        ));
    }
    if entry.offset < prev_end {
        return Err(format!(
            "starts at byte {} inside or before the previous block (which ends at byte {prev_end}): blocks overlap or are not in increasing order",
            entry.offset
        ));
    }
    Ok(())
}
