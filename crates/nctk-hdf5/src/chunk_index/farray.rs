//! The fixed array chunk index (`FAHD` header, `FADB` data block, the
//! latter split into pages of `2^page_bits` entries when it holds more;
//! each page present or not as the block's page bitmap says).

use std::collections::BTreeMap;

use super::array::{check_sum, header, linear, EntryFormat};
use super::{ChunkGrid, ChunkMap};
use crate::error::Result;
use crate::io::FileCtx;

pub(super) fn lookup(
    ctx: &FileCtx,
    addr: u64,
    grid: &ChunkGrid,
    wanted: &[Vec<u64>],
) -> Result<ChunkMap> {
    let sa = usize::from(ctx.sizeof_addr());
    let ss = usize::from(ctx.sizeof_size());
    let head = header(ctx, addr, b"FAHD", 8 + ss + sa + 4, "fixed array header")?;
    let mut cur = ctx.cursor(&head, addr, "fixed array header");
    cur.skip(5)?;
    let client = cur.u8()?;
    let entry_size = usize::from(cur.u8()?);
    let page_bits = cur.u8()?;
    let nentries = cur.length()?;
    let dblock = cur.address()?;
    let format = EntryFormat::new(&cur, client, entry_size, sa)?;
    let Some(dblock) = dblock else {
        return Ok(ChunkMap::new());
    };
    if page_bits > 32 {
        return Err(cur.corrupt(format!("{page_bits} page bits")));
    }

    let counts = grid.max_counts();
    // chunk number -> coordinates of every wanted chunk
    let mut by_index: BTreeMap<u64, &Vec<u64>> = BTreeMap::new();
    for c in wanted {
        match linear(&counts, c) {
            Some(i) if i < nentries => {
                by_index.insert(i, c);
            }
            _ => {
                return Err(cur.corrupt(format!(
                    "chunk {c:?} lies outside the array's {nentries} entries"
                )))
            }
        }
    }

    const WHAT: &str = "fixed array data block";
    let prefix = 6 + sa;
    let page_len = 1u64 << page_bits;
    let mut map = ChunkMap::new();
    if nentries <= page_len {
        let len = (prefix as u64)
            .checked_add(nentries.saturating_mul(entry_size as u64))
            .map(|n| n + 4)
            .unwrap_or(u64::MAX);
        let block = ctx.read(dblock, len, WHAT)?;
        let mut cur = ctx.cursor(&block, dblock, WHAT);
        block_prefix(&mut cur, client)?;
        check_sum(&cur, &block, block.len() - 4)?;
        for (i, c) in by_index {
            cur.seek(prefix + i as usize * entry_size)?;
            if let Some(chunk) = format.decode(&mut cur, grid.chunk_bytes)? {
                map.insert(c.clone(), chunk);
            }
        }
        return Ok(map);
    }
    let npages = nentries.div_ceil(page_len);
    let bitmap_len = npages.div_ceil(8);
    let head_len = prefix as u64 + bitmap_len + 4;
    let head = ctx.read(dblock, head_len, WHAT)?;
    let mut cur = ctx.cursor(&head, dblock, WHAT);
    block_prefix(&mut cur, client)?;
    let bitmap = cur.bytes(bitmap_len as usize)?;
    check_sum(&cur, &head, head.len() - 4)?;
    let page_bytes = page_len * entry_size as u64 + 4;
    let mut page: Option<(u64, Vec<u8>)> = None;
    for (i, c) in by_index {
        let p = i / page_len;
        if bitmap[(p / 8) as usize] & (0x80 >> (p % 8)) == 0 {
            continue;
        }
        let at = p
            .checked_mul(page_bytes)
            .and_then(|o| o.checked_add(dblock.checked_add(head_len)?))
            .ok_or_else(|| ctx.corrupt(WHAT, dblock, format!("page {p} lies past 2^64")))?;
        if page.as_ref().map(|(q, _)| *q) != Some(p) {
            let entries = if p + 1 == npages {
                nentries - p * page_len
            } else {
                page_len
            };
            let bytes = ctx.read(at, entries * entry_size as u64 + 4, "fixed array page")?;
            let cur = ctx.cursor(&bytes, at, "fixed array page");
            check_sum(&cur, &bytes, bytes.len() - 4)?;
            page = Some((p, bytes));
        }
        if let Some((_, bytes)) = &page {
            let mut cur = ctx.cursor(bytes, at, "fixed array page");
            cur.seek(((i - p * page_len) as usize) * entry_size)?;
            if let Some(chunk) = format.decode(&mut cur, grid.chunk_bytes)? {
                map.insert(c.clone(), chunk);
            }
        }
    }
    Ok(map)
}

/// Signature, version and client id of a data block (the header address
/// that follows is skipped).
fn block_prefix(cur: &mut crate::io::Cursor<'_>, client: u8) -> Result<()> {
    cur.signature(b"FADB")?;
    let version = cur.u8()?;
    let found = cur.u8()?;
    if version != 0 || found != client {
        return Err(cur.corrupt(format!(
            "version {version}, client {found} (0 and {client} expected)"
        )));
    }
    cur.address()?;
    Ok(())
}
