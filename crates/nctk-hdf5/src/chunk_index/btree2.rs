//! The version-2 B-tree chunk index (two or more unlimited dimensions):
//! records of type 10 (`address, scaled offsets u64 x rank`) for datasets
//! without filters and 11 (`address, stored size, filter mask u32, scaled
//! offsets`) for filtered ones, the stored size in the record's remaining
//! bytes. The whole tree is walked: every chunk's location is returned.

use super::{ChunkGrid, ChunkMap, Found, StoredChunk};
use crate::btree::v2::walk;
use crate::error::Result;
use crate::io::FileCtx;

pub(super) fn lookup(ctx: &FileCtx, addr: u64, grid: &ChunkGrid) -> Result<Found> {
    const WHAT: &str = "B-tree v2 chunk record";
    let rank = grid.chunk.len();
    let sa = usize::from(ctx.sizeof_addr());
    let record_type = if grid.filtered { 11 } else { 10 };
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
        if let Some(chunk_addr) = chunk_addr {
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
    Ok(Found {
        chunks: map,
        complete: true,
    })
}
