//! The extensible array chunk index (one unlimited dimension): header
//! `EAHD`, index block `EAIB` (a few entries inline, then data block and
//! super block addresses), super blocks `EASB` (data block addresses and a
//! page bitmap) and data blocks `EADB` (entries, in pages when large).
//!
//! Chunk numbers put the unlimited dimension first, then the others in
//! order, row-major over their maximum chunk counts.

use std::collections::HashMap;

use super::array::{check_sum, header, EntryFormat};
use super::{ChunkGrid, ChunkMap, StoredChunk};
use crate::error::Result;
use crate::io::{Cursor, FileCtx};

/// The header's creation parameters and what follows from them.
struct Params {
    client: u8,
    entry: EntryFormat,
    index_elements: u64,
    min_elements: u64,
    /// Super blocks whose data block addresses sit in the index block.
    iblock_sblocks: usize,
    /// Data block addresses in the index block.
    iblock_dblocks: usize,
    /// All super blocks the array can have.
    sblocks: usize,
    /// Bytes of a block's offset field.
    offset_size: usize,
    page_elements: u64,
}

impl Params {
    /// (data blocks, elements per data block, first element, first data
    /// block) of super block `s`.
    fn sblock(&self, s: usize) -> (u64, u64, u64, u64) {
        let (mut start, mut first) = (0u64, 0u64);
        for t in 0..s {
            let (n, e) = (1u64 << (t / 2), (1u64 << t.div_ceil(2)) * self.min_elements);
            start = start.saturating_add(n.saturating_mul(e));
            first = first.saturating_add(n);
        }
        (
            1u64 << (s / 2),
            (1u64 << s.div_ceil(2)) * self.min_elements,
            start,
            first,
        )
    }
}

pub(super) fn lookup(
    ctx: &FileCtx,
    addr: u64,
    grid: &ChunkGrid,
    wanted: &[Vec<u64>],
) -> Result<ChunkMap> {
    let sa = usize::from(ctx.sizeof_addr());
    let ss = usize::from(ctx.sizeof_size());
    const WHAT: &str = "extensible array header";
    let head = header(ctx, addr, b"EAHD", 12 + 6 * ss + sa + 4, WHAT)?;
    let mut cur = ctx.cursor(&head, addr, WHAT);
    cur.skip(5)?;
    let client = cur.u8()?;
    let entry_size = usize::from(cur.u8()?);
    let max_bits = cur.u8()?;
    let index_elements = u64::from(cur.u8()?);
    let min_elements = u64::from(cur.u8()?);
    let min_pointers = u64::from(cur.u8()?);
    let page_bits = cur.u8()?;
    cur.skip(6 * ss)?;
    let iblock = cur.address()?;
    let entry = EntryFormat::new(&cur, client, entry_size, sa)?;
    let pow2 = |v: u64| v.is_power_of_two();
    if !(1..=64).contains(&max_bits)
        || !pow2(min_elements)
        || !pow2(min_pointers)
        || page_bits > 32
        || u32::from(max_bits) < min_elements.trailing_zeros()
    {
        return Err(cur.corrupt(format!(
            "parameters max bits {max_bits}, data block elements {min_elements}, super block pointers {min_pointers}, page bits {page_bits}"
        )));
    }
    let Some(iblock) = iblock else {
        return Ok(ChunkMap::new());
    };
    let p = Params {
        client,
        entry,
        index_elements,
        min_elements,
        iblock_sblocks: 2 * min_pointers.trailing_zeros() as usize,
        iblock_dblocks: 2 * (min_pointers as usize - 1),
        sblocks: 1 + usize::from(max_bits) - min_elements.trailing_zeros() as usize,
        offset_size: usize::from(max_bits).div_ceil(8),
        page_elements: 1u64 << page_bits,
    };
    let mut reader = Reader {
        ctx,
        p: &p,
        blocks: HashMap::new(),
        chunk_bytes: grid.chunk_bytes,
    };
    reader.load_iblock(iblock)?;

    // the unlimited dimension first, the others row-major over their maximum counts
    let unlim = grid.max_shape.iter().position(|&m| m == u64::MAX);
    let counts: Vec<u64> = grid
        .max_shape
        .iter()
        .zip(&grid.chunk)
        .map(|(m, c)| if *m == u64::MAX { 1 } else { m.div_ceil(*c) })
        .collect();
    let mut map = ChunkMap::new();
    for c in wanted {
        let mut i = unlim.map_or(0, |u| c[u]);
        for (d, (&x, &n)) in c.iter().zip(&counts).enumerate() {
            if Some(d) != unlim {
                i = i.saturating_mul(n).saturating_add(x);
            }
        }
        if let Some(chunk) = reader.element(iblock, i)? {
            map.insert(c.clone(), chunk);
        }
    }
    Ok(map)
}

/// Reads the array's blocks, each once.
struct Reader<'a> {
    ctx: &'a FileCtx,
    p: &'a Params,
    blocks: HashMap<u64, Vec<u8>>,
    chunk_bytes: u64,
}

impl Reader<'_> {
    fn load_iblock(&mut self, addr: u64) -> Result<()> {
        let sa = usize::from(self.ctx.sizeof_addr());
        let p = self.p;
        let len = 6
            + sa
            + p.index_elements as usize * p.entry.size
            + (p.iblock_dblocks + p.sblocks.saturating_sub(p.iblock_sblocks)) * sa
            + 4;
        self.load(addr, len, b"EAIB", "extensible array index block")
    }

    /// Reads and checks a block (signature, version, client, checksum).
    fn load(&mut self, addr: u64, len: usize, sig: &[u8; 4], what: &str) -> Result<()> {
        if self.blocks.contains_key(&addr) {
            return Ok(());
        }
        let block = self.ctx.read(addr, len as u64, what)?;
        let mut cur = self.ctx.cursor(&block, addr, what);
        cur.signature(sig)?;
        let (version, client) = (cur.u8()?, cur.u8()?);
        if version != 0 || client != self.p.client {
            return Err(cur.corrupt(format!(
                "version {version}, client {client} (0 and {} expected)",
                self.p.client
            )));
        }
        check_sum(&cur, &block, len - 4)?;
        self.blocks.insert(addr, block);
        Ok(())
    }

    fn cursor<'b>(&'b self, addr: u64, what: &'b str) -> Cursor<'b> {
        let block = self.blocks.get(&addr).map(Vec::as_slice).unwrap_or(&[]);
        self.ctx.cursor(block, addr, what)
    }

    /// The entry of chunk number `i`; `None` when it was never written.
    fn element(&mut self, iblock: u64, i: u64) -> Result<Option<StoredChunk>> {
        let sa = usize::from(self.ctx.sizeof_addr());
        let p = self.p;
        let esize = p.entry.size;
        let ib = 6 + sa;
        if i < p.index_elements {
            let mut cur = self.cursor(iblock, "extensible array index block");
            cur.seek(ib + i as usize * esize)?;
            return p.entry.decode(&mut cur, self.chunk_bytes);
        }
        let j = i - p.index_elements;
        let s = (63 - (j / p.min_elements).saturating_add(1).leading_zeros()) as usize;
        if s >= p.sblocks {
            let cur = self.cursor(iblock, "extensible array index block");
            return Err(cur.corrupt(format!(
                "chunk number {i} is past the array's last super block"
            )));
        }
        let (ndblocks, dblock_elements, start, first) = p.sblock(s);
        let off = j.checked_sub(start).ok_or_else(|| {
            let cur = self.cursor(iblock, "extensible array index block");
            cur.corrupt(format!("chunk number {i} before its super block"))
        })?;
        let (d, e) = (off / dblock_elements, off % dblock_elements);
        let paged = dblock_elements > p.page_elements;
        let pages = if paged {
            dblock_elements / p.page_elements
        } else {
            0
        };
        let dblock = if s < p.iblock_sblocks {
            let mut cur = self.cursor(iblock, "extensible array index block");
            cur.seek(ib + p.index_elements as usize * esize + (first + d) as usize * sa)?;
            if paged {
                return Err(cur.unsupported("paged data blocks referenced from the index block"));
            }
            cur.address()?
        } else {
            let at = ib + p.index_elements as usize * esize + p.iblock_dblocks * sa;
            let mut cur = self.cursor(iblock, "extensible array index block");
            cur.seek(at + (s - p.iblock_sblocks) * sa)?;
            let Some(sblock) = cur.address()? else {
                return Ok(None);
            };
            // a bit per page, data block after data block; the bitmap takes
            // whole bytes per data block, though the bits run on
            let bitmap = ndblocks as usize * (pages as usize).div_ceil(8);
            let len = 6 + sa + p.offset_size + bitmap + ndblocks as usize * sa + 4;
            self.load(sblock, len, b"EASB", "extensible array super block")?;
            let mut cur = self.cursor(sblock, "extensible array super block");
            cur.seek(6 + sa + p.offset_size)?;
            let bits = cur.bytes(bitmap)?;
            if paged {
                let bit = d * pages + e / p.page_elements;
                if bits
                    .get((bit / 8) as usize)
                    .is_none_or(|b| b & (0x80 >> (bit % 8)) == 0)
                {
                    return Ok(None);
                }
            }
            cur.seek(6 + sa + p.offset_size + bitmap + d as usize * sa)?;
            cur.address()?
        };
        let Some(dblock) = dblock else {
            return Ok(None);
        };
        let prefix = 6 + sa + p.offset_size;
        if paged {
            let page = e / p.page_elements;
            let page_len = p.page_elements as usize * esize + 4;
            let at = dblock + (prefix + 4) as u64 + page * page_len as u64;
            if !self.blocks.contains_key(&at) {
                let bytes = self
                    .ctx
                    .read(at, page_len as u64, "extensible array page")?;
                let cur = self.ctx.cursor(&bytes, at, "extensible array page");
                check_sum(&cur, &bytes, page_len - 4)?;
                self.blocks.insert(at, bytes);
            }
            let mut cur = self.cursor(at, "extensible array page");
            cur.seek((e % p.page_elements) as usize * esize)?;
            return p.entry.decode(&mut cur, self.chunk_bytes);
        }
        let len = prefix + dblock_elements as usize * esize + 4;
        self.load(dblock, len, b"EADB", "extensible array data block")?;
        let mut cur = self.cursor(dblock, "extensible array data block");
        cur.seek(prefix + e as usize * esize)?;
        p.entry.decode(&mut cur, self.chunk_bytes)
    }
}
