//! The version-1 B-tree chunk index: node type 1, keys `chunk size u32,
//! filter mask u32, offsets u64 x (rank + 1)` (element offsets, the last
//! one the element-size dimension, always 0).

use std::collections::BTreeSet;

use super::{ChunkGrid, ChunkMap, Found, StoredChunk};
use crate::btree::v1::{walk, NodeType};
use crate::error::Result;
use crate::io::FileCtx;

/// The most chunks of an index read whole at the first lookup.
const WHOLE_INDEX_CHUNKS: u64 = 1 << 16;

pub(super) fn lookup(
    ctx: &FileCtx,
    root: u64,
    grid: &ChunkGrid,
    wanted: &[Vec<u64>],
) -> Result<Found> {
    let rank = grid.chunk.len();
    let key_size = 8 + 8 * (rank + 1);
    let wanted: BTreeSet<&[u64]> = wanted.iter().map(Vec::as_slice).collect();
    // a subtree holds the chunks whose offsets lie between its two keys
    // (row-major order); walk only those holding a wanted chunk
    let bound = |key: &[u8]| -> Option<Vec<u64>> {
        (0..rank)
            .map(|d| {
                let at = 8 + 8 * d;
                let b = key.get(at..at + 8)?;
                Some(u64::from_le_bytes(b.try_into().ok()?) / grid.chunk[d])
            })
            .collect()
    };
    // an index of a few chunks is read whole (once, as the reader keeps
    // it); a larger one only where the wanted chunks are
    let whole = grid
        .counts()
        .iter()
        .try_fold(1u64, |a, &n| a.checked_mul(n))
        .is_some_and(|n| n <= WHOLE_INDEX_CHUNKS);
    let mut pruned = false;
    let mut descend = |left: &[u8], right: &[u8]| {
        let go = whole
            || match (bound(left), bound(right)) {
                (Some(lo), Some(hi)) if lo <= hi => wanted
                    .range::<[u64], _>((
                        std::ops::Bound::Included(lo.as_slice()),
                        std::ops::Bound::Included(hi.as_slice()),
                    ))
                    .next()
                    .is_some(),
                _ => true,
            };
        pruned |= !go;
        go
    };
    let mut map = ChunkMap::new();
    let mut coords = vec![0u64; rank];
    walk(
        ctx,
        root,
        NodeType::Chunk,
        key_size,
        &mut descend,
        &mut |entry| {
            let key = entry.left_key;
            let mut cur = ctx.cursor(key, entry.node, "B-tree v1 chunk key");
            let size = u64::from(cur.u32()?);
            let mask = cur.u32()?;
            for (d, c) in coords.iter_mut().enumerate() {
                let offset = cur.u64()?;
                if offset % grid.chunk[d] != 0 {
                    return Err(cur.corrupt(format!(
                        "chunk offset {offset} is not a multiple of the chunk size {}",
                        grid.chunk[d]
                    )));
                }
                *c = offset / grid.chunk[d];
            }
            // every entry of a leaf read is kept: its neighbours come next
            map.insert(
                coords.clone(),
                StoredChunk {
                    addr: entry.child,
                    size,
                    mask,
                },
            );
            Ok(())
        },
    )?;
    Ok(Found {
        chunks: map,
        complete: !pruned,
    })
}
