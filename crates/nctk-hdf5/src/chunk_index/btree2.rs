//! The version-2 B-tree chunk index (two or more unlimited dimensions):
//! records of type 10 (`address, scaled offsets u64 x rank`) for datasets
//! without filters and 11 (`address, stored size, filter mask u32, scaled
//! offsets`) for filtered ones, the stored size in the record's remaining
//! bytes.

use std::collections::HashSet;

use super::{ChunkGrid, ChunkMap, StoredChunk};
use crate::btree::v2::walk;
use crate::error::Result;
use crate::io::FileCtx;

pub(super) fn lookup(
    ctx: &FileCtx,
    addr: u64,
    grid: &ChunkGrid,
    wanted: &[Vec<u64>],
) -> Result<ChunkMap> {
    const WHAT: &str = "B-tree v2 chunk record";
    let rank = grid.chunk.len();
    let sa = usize::from(ctx.sizeof_addr());
    let record_type = if grid.filtered { 11 } else { 10 };
    let wanted: HashSet<&[u64]> = wanted.iter().map(Vec::as_slice).collect();
    let mut map = ChunkMap::new();
    let mut coords = vec![0u64; rank];
    walk(ctx, addr, record_type, &mut |record| {
        let mut cur = ctx.cursor(record, addr, WHAT);
        let size_width = record.len().checked_sub(sa + 4 + 8 * rank);
        let chunk_addr = cur.address()?;
        let (size, mask) = match (grid.filtered, size_width) {
            (false, _) => (grid.chunk_bytes, 0),
            (true, Some(w @ 1..=8)) => (cur.uint(w)?, cur.u32()?),
            (true, _) => {
                return Err(cur.corrupt(format!(
                    "filtered chunk records of {} bytes for rank {rank}",
                    record.len()
                )))
            }
        };
        for c in coords.iter_mut() {
            *c = cur.u64()?;
        }
        if let (Some(chunk_addr), true) = (chunk_addr, wanted.contains(coords.as_slice())) {
            map.insert(
                coords.clone(),
                StoredChunk {
                    addr: chunk_addr,
                    size,
                    mask,
                },
            );
        }
        Ok(())
    })?;
    Ok(map)
}
