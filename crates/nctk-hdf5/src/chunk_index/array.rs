//! What the fixed and extensible array indexes share: linear chunk
//! numbers and the decoding of their entries.

use super::StoredChunk;
use crate::error::Result;
use crate::io::{Cursor, FileCtx};

/// An array header (`FAHD`, `EAHD`) of `len` bytes at `addr` whose
/// signature, version (0) and checksum (its last 4 bytes) are checked.
pub(super) fn header(
    ctx: &FileCtx,
    addr: u64,
    sig: &[u8; 4],
    len: usize,
    what: &str,
) -> Result<Vec<u8>> {
    let head = ctx.read(addr, len as u64, what)?;
    let mut cur = ctx.cursor(&head, addr, what);
    cur.signature(sig)?;
    let version = cur.u8()?;
    if version != 0 {
        return Err(cur.corrupt(format!("version {version}")));
    }
    check_sum(&cur, &head, len - 4)?;
    Ok(head)
}

/// The row-major number of chunk `coords` in a grid of `counts` chunks;
/// `None` on overflow.
pub(super) fn linear(counts: &[u64], coords: &[u64]) -> Option<u64> {
    counts
        .iter()
        .zip(coords)
        .try_fold(0u64, |acc, (n, c)| acc.checked_mul(*n)?.checked_add(*c))
}

/// The layout of one array entry: an address, then for filtered chunks
/// the stored size (`entry size - address - 4` bytes) and the filter mask.
#[derive(Debug, Clone, Copy)]
pub(super) struct EntryFormat {
    /// Bytes per entry.
    pub size: usize,
    /// Bytes of the stored size field (0: unfiltered entries).
    size_width: usize,
}

impl EntryFormat {
    /// The entry format of an array whose client id is `client` (0
    /// unfiltered chunks, 1 filtered) and entries are `size` bytes.
    pub fn new(cur: &Cursor<'_>, client: u8, size: usize, sizeof_addr: usize) -> Result<Self> {
        let size_width = match client {
            0 if size == sizeof_addr => 0,
            1 if size > sizeof_addr + 4 && size <= sizeof_addr + 12 => size - sizeof_addr - 4,
            _ => {
                return Err(cur.corrupt(format!(
                    "client {client} with {size}-byte entries ({sizeof_addr}-byte addresses)"
                )))
            }
        };
        Ok(EntryFormat { size, size_width })
    }

    /// Decodes one entry; `None` for a chunk never written.
    pub fn decode(&self, cur: &mut Cursor<'_>, chunk_bytes: u64) -> Result<Option<StoredChunk>> {
        let addr = cur.address()?;
        let (size, mask) = if self.size_width > 0 {
            (cur.uint(self.size_width)?, cur.u32()?)
        } else {
            (chunk_bytes, 0)
        };
        Ok(addr.map(|addr| StoredChunk { addr, size, mask }))
    }
}

/// Checks the lookup3 checksum that ends `block[..end + 4]`.
pub(super) fn check_sum(cur: &Cursor<'_>, block: &[u8], end: usize) -> Result<()> {
    match block.get(..end + 4) {
        Some(b) if crate::checksum::verify(b) => Ok(()),
        Some(_) => Err(cur.corrupt("checksum mismatch")),
        None => Err(cur.corrupt("block ends before its checksum")),
    }
}
