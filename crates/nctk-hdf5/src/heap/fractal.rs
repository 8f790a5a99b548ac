//! Fractal heaps (`FRHP`): the objects of dense groups (link messages) and
//! dense attribute storage (attribute messages), found by heap ID.
//!
//! Managed objects live in direct blocks (`FHDB`) reached through a tree
//! of indirect blocks (`FHIB`) laid out as a doubling table: row 0 and row 1
//! hold blocks of the starting size, each later row blocks twice the size
//! of the row before, `width` blocks a row. Opening a heap maps every
//! direct block to its range of the heap's address space once; a managed
//! object is then one read. Tiny objects sit in the ID itself; huge ones
//! are found directly or through the heap's B-tree v2 (record type 1).

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use crate::btree::v2;
use crate::checksum;
use crate::error::Result;
use crate::io::{Cursor, FileCtx};

const WHAT: &str = "fractal heap";

/// The most direct blocks a heap may map (a made-up table ends here).
const MAX_BLOCKS: usize = 1 << 20;

/// The most direct blocks kept in memory at once.
const CACHED_BLOCKS: usize = 64;

/// One direct block: its offset in the heap's address space, where it is
/// and how big.
#[derive(Debug, Clone, Copy)]
struct Block {
    offset: u64,
    addr: u64,
    size: u64,
}

/// An open fractal heap. Direct blocks are read whole the first time an
/// object in them is wanted, and kept (a bounded number).
#[derive(Debug)]
pub struct FractalHeap {
    addr: u64,
    id_len: usize,
    filtered: bool,
    huge_btree: Option<u64>,
    offset_width: usize,
    length_width: usize,
    blocks: Vec<Block>,
    cache: Mutex<HashMap<usize, Arc<Vec<u8>>>>,
}

/// The header fields that shape the doubling table.
struct Table {
    width: u64,
    start: u64,
    max_direct: u64,
    offset_width: usize,
    checksummed: bool,
    filtered: bool,
}

impl Table {
    /// Size of the blocks of row `row`.
    fn block_size(&self, row: u64) -> Option<u64> {
        let shift = u64::from(self.start.ilog2()) + row.saturating_sub(1);
        1u64.checked_shl(u32::try_from(shift).ok()?)
    }

    /// The number of rows of direct blocks.
    fn direct_rows(&self) -> u64 {
        u64::from(self.max_direct.ilog2() - self.start.ilog2()) + 2
    }
}

impl FractalHeap {
    /// Opens the heap whose header is at relative address `addr` and maps
    /// its direct blocks.
    pub fn open(ctx: &FileCtx, addr: u64) -> Result<FractalHeap> {
        let buf = ctx.read_upto(addr, 512, WHAT)?;
        let mut cur = ctx.cursor(&buf, addr, WHAT);
        cur.signature(b"FRHP")?;
        let version = cur.u8()?;
        if version != 0 {
            return Err(cur.corrupt(format!("version {version}")));
        }
        let id_len = usize::from(cur.u16()?);
        let filter_len = usize::from(cur.u16()?);
        let flags = cur.u8()?;
        let max_managed = u64::from(cur.u32()?);
        cur.length()?; // next huge object ID
        let huge_btree = cur.address()?;
        cur.length()?; // free space
        cur.address()?; // free space manager
        for _ in 0..8 {
            cur.length()?; // managed, allocated, iterator, counts and sizes
        }
        let width = u64::from(cur.u16()?);
        let start = cur.length()?;
        let max_direct = cur.length()?;
        let max_heap_bits = cur.u16()?;
        cur.u16()?; // starting rows of the root indirect block
        let root = cur.address()?;
        let rows = u64::from(cur.u16()?);
        let mut root_size = start;
        if filter_len > 0 {
            root_size = cur.length()?;
            cur.skip(4 + filter_len)?;
        }
        let end = cur.pos() + 4;
        if !checksum::verify(buf.get(..end).unwrap_or_default()) {
            return Err(ctx.corrupt(WHAT, addr, "checksum mismatch"));
        }
        let pow2 = |v: u64| v.is_power_of_two();
        if width == 0 || !pow2(width) || !pow2(start) || !pow2(max_direct) || max_direct < start {
            return Err(ctx.corrupt(
                WHAT,
                addr,
                format!(
                    "table width {width}, starting block {start}, largest direct block {max_direct}"
                ),
            ));
        }
        if !(1..=64).contains(&max_heap_bits) {
            return Err(ctx.corrupt(WHAT, addr, format!("heap of {max_heap_bits} bits")));
        }
        let table = Table {
            width,
            start,
            max_direct,
            offset_width: usize::from(max_heap_bits).div_ceil(8),
            checksummed: flags & 2 != 0,
            filtered: filter_len > 0,
        };
        let mut heap = FractalHeap {
            addr,
            id_len,
            filtered: filter_len > 0,
            huge_btree,
            offset_width: table.offset_width,
            length_width: ((max_direct.ilog2() as usize).div_ceil(8))
                .min(max_managed.max(1).ilog2() as usize / 8 + 1),
            blocks: Vec::new(),
            cache: Mutex::default(),
        };
        if let Some(root) = root {
            if rows == 0 {
                heap.blocks.push(Block {
                    offset: 0,
                    addr: root,
                    size: root_size,
                });
            } else {
                let mut seen = HashSet::new();
                heap.indirect(ctx, &table, root, 0, rows, &mut seen)?;
            }
        }
        heap.blocks.sort_by_key(|b| b.offset);
        Ok(heap)
    }

    /// Maps the direct blocks under the indirect block at `addr`, whose
    /// range of the heap starts at `offset` and which has `rows` rows.
    fn indirect(
        &mut self,
        ctx: &FileCtx,
        table: &Table,
        addr: u64,
        offset: u64,
        rows: u64,
        seen: &mut HashSet<u64>,
    ) -> Result<()> {
        const IWHAT: &str = "fractal heap indirect block";
        if !seen.insert(addr) {
            return Err(ctx.corrupt(IWHAT, addr, "block reached twice (a loop in the heap)"));
        }
        let direct_rows = rows.min(table.direct_rows());
        let entries = rows
            .checked_mul(table.width)
            .filter(|&n| n <= MAX_BLOCKS as u64)
            .ok_or_else(|| ctx.corrupt(IWHAT, addr, format!("{rows} rows")))?;
        let sa = u64::from(ctx.sizeof_addr());
        let direct_entry = if table.filtered {
            sa + u64::from(ctx.sizeof_size()) + 4
        } else {
            sa
        };
        let len = 5
            + sa
            + table.offset_width as u64
            + direct_rows * table.width * direct_entry
            + (entries - direct_rows * table.width) * sa
            + 4;
        let buf = ctx.read(addr, len, IWHAT)?;
        if table.checksummed && !checksum::verify(&buf) {
            return Err(ctx.corrupt(IWHAT, addr, "checksum mismatch"));
        }
        let mut cur = ctx.cursor(&buf, addr, IWHAT);
        cur.signature(b"FHIB")?;
        cur.skip(1 + usize::from(ctx.sizeof_addr()) + table.offset_width)?;
        let mut at = offset;
        for row in 0..rows {
            let size = table
                .block_size(row)
                .ok_or_else(|| cur.corrupt(format!("row {row} of blocks too large")))?;
            for _ in 0..table.width {
                let child = cur.address()?;
                if row < direct_rows {
                    if table.filtered {
                        cur.skip(usize::from(ctx.sizeof_size()) + 4)?;
                    }
                    if let Some(child) = child {
                        if self.blocks.len() >= MAX_BLOCKS {
                            return Err(cur.corrupt("too many direct blocks"));
                        }
                        self.blocks.push(Block {
                            offset: at,
                            addr: child,
                            size,
                        });
                    }
                } else if let Some(child) = child {
                    let child_rows = u64::from(size.ilog2())
                        .checked_sub(u64::from(table.start.ilog2() + table.width.ilog2()))
                        .map(|r| r + 1)
                        .ok_or_else(|| cur.corrupt(format!("indirect block of {size} bytes")))?;
                    self.indirect(ctx, table, child, at, child_rows, seen)?;
                }
                at = at
                    .checked_add(size)
                    .ok_or_else(|| cur.corrupt("heap address space overflows"))?;
            }
        }
        Ok(())
    }

    /// The object with heap ID `id`.
    pub fn get(&self, ctx: &FileCtx, id: &[u8]) -> Result<Vec<u8>> {
        let mut cur = ctx.cursor(id, self.addr, "fractal heap ID");
        let first = cur.u8()?;
        if first >> 6 != 0 {
            return Err(cur.corrupt(format!("heap ID version {}", first >> 6)));
        }
        match (first >> 4) & 3 {
            0 => self.managed(ctx, &mut cur),
            1 => self.huge(ctx, &mut cur),
            2 => {
                let len = if self.id_len <= 18 {
                    usize::from(first & 0x0f) + 1
                } else {
                    (usize::from(first & 0x0f) << 8 | usize::from(cur.u8()?)) + 1
                };
                Ok(cur.bytes(len)?.to_vec())
            }
            t => Err(cur.corrupt(format!("heap ID type {t}"))),
        }
    }

    fn managed(&self, ctx: &FileCtx, cur: &mut Cursor<'_>) -> Result<Vec<u8>> {
        let offset = cur.uint(self.offset_width)?;
        let len = cur.uint(self.length_width)?;
        if self.filtered {
            return Err(cur.unsupported("objects in filtered fractal heap blocks"));
        }
        let i = self.blocks.partition_point(|b| b.offset <= offset);
        let (i, block) = i
            .checked_sub(1)
            .map(|i| (i, self.blocks[i]))
            .filter(|(_, b)| offset - b.offset < b.size && len <= b.size - (offset - b.offset))
            .ok_or_else(|| {
                cur.corrupt(format!(
                    "object of {len} bytes at heap offset {offset} is in no direct block"
                ))
            })?;
        let bytes = self.block(ctx, i, block)?;
        let start = (offset - block.offset) as usize;
        Ok(bytes[start..start + len as usize].to_vec())
    }

    /// Direct block `i`, from the cache or read whole.
    fn block(&self, ctx: &FileCtx, i: usize, block: Block) -> Result<Arc<Vec<u8>>> {
        let lock = || self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(b) = lock().get(&i) {
            return Ok(b.clone());
        }
        let bytes = ctx.read(block.addr, block.size, "fractal heap direct block")?;
        ctx.cursor(&bytes, block.addr, "fractal heap direct block")
            .signature(b"FHDB")?;
        let bytes = Arc::new(bytes);
        let mut cache = lock();
        if cache.len() >= CACHED_BLOCKS {
            cache.clear();
        }
        cache.insert(i, bytes.clone());
        Ok(bytes)
    }

    fn huge(&self, ctx: &FileCtx, cur: &mut Cursor<'_>) -> Result<Vec<u8>> {
        if self.filtered {
            return Err(cur.unsupported("huge objects of filtered fractal heaps"));
        }
        let (sa, ss) = (
            usize::from(ctx.sizeof_addr()),
            usize::from(ctx.sizeof_size()),
        );
        if self.id_len > sa + ss {
            let addr = cur
                .address()?
                .ok_or_else(|| cur.corrupt("huge object at the undefined address"))?;
            let len = cur.length()?;
            return ctx.read(addr, len, "fractal heap huge object");
        }
        let key = cur.uint(cur.remaining().min(8))?;
        let btree = self
            .huge_btree
            .ok_or_else(|| cur.corrupt("huge object without a huge object B-tree"))?;
        let mut found = None;
        v2::walk(ctx, btree, 1, &mut |rec| {
            let mut r = ctx.cursor(rec, btree, "huge object record");
            let addr = r.address()?;
            let len = r.length()?;
            if r.length()? == key {
                found = addr.map(|a| (a, len));
            }
            Ok(())
        })?;
        let (addr, len) = found.ok_or_else(|| cur.corrupt(format!("no huge object {key}")))?;
        ctx.read(addr, len, "fractal heap huge object")
    }
}
