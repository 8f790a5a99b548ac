//! Chunk indexes: from a chunked layout and the chunks a selection
//! touches to where those chunks are stored (address, stored size, filter
//! mask). Chunks the index does not hold were never written.

mod array;
mod btree1;
mod btree2;
mod earray;
mod farray;

use std::collections::HashMap;

use crate::error::Result;
use crate::io::FileCtx;
use crate::layout::ChunkIndexKind;

/// One stored chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoredChunk {
    /// Relative address of the chunk's bytes.
    pub addr: u64,
    /// Stored size in bytes (after filters).
    pub size: u64,
    /// Filter mask: bit `i` set = filter `i` was skipped for this chunk.
    pub mask: u32,
}

/// The shape of a chunked dataset as the indexes need it.
#[derive(Debug, Clone)]
pub struct ChunkGrid {
    /// Current dimensions in elements.
    pub shape: Vec<u64>,
    /// Maximum dimensions (`u64::MAX` = unlimited); the shape when absent.
    pub max_shape: Vec<u64>,
    /// Chunk dimensions in elements.
    pub chunk: Vec<u64>,
    /// Bytes of one whole chunk before filters.
    pub chunk_bytes: u64,
    /// Whether the dataset has filters (a B-tree v2 index then holds
    /// records of type 11, with stored sizes and masks).
    pub filtered: bool,
}

impl ChunkGrid {
    /// Chunks along each dimension for the current shape.
    pub fn counts(&self) -> Vec<u64> {
        self.shape
            .iter()
            .zip(&self.chunk)
            .map(|(s, c)| s.div_ceil(*c))
            .collect()
    }

    /// Chunks along each dimension for the maximum shape (fixed dimensions
    /// only: the caller decides what an unlimited one means).
    fn max_counts(&self) -> Vec<u64> {
        self.max_shape
            .iter()
            .zip(&self.chunk)
            .map(|(s, c)| s.div_ceil(*c))
            .collect()
    }
}

/// Chunk coordinates (in chunks, not elements) to their stored location.
pub type ChunkMap = HashMap<Vec<u64>, StoredChunk>;

/// What a lookup found: the wanted chunks that were written and any other
/// chunk met on the way.
#[derive(Debug, Default)]
pub struct Found {
    /// Written chunks: every wanted one the index holds, perhaps more.
    pub chunks: ChunkMap,
    /// Whether `chunks` holds every chunk the index holds (a chunk missing
    /// from it was never written).
    pub complete: bool,
}

impl From<ChunkMap> for Found {
    fn from(chunks: ChunkMap) -> Found {
        Found {
            chunks,
            complete: false,
        }
    }
}

/// Looks up the chunks `wanted` (chunk coordinates, each within the
/// current grid) in the index, reading each index block once. Wanted
/// chunks missing from the result were never written.
pub fn lookup(
    ctx: &FileCtx,
    index: &ChunkIndexKind,
    index_addr: Option<u64>,
    grid: &ChunkGrid,
    wanted: &[Vec<u64>],
) -> Result<Found> {
    let Some(addr) = index_addr else {
        return Ok(Found {
            chunks: ChunkMap::new(),
            complete: true,
        });
    };
    match index {
        ChunkIndexKind::BTreeV1 => btree1::lookup(ctx, addr, grid, wanted),
        ChunkIndexKind::Single { filtered } => {
            let (size, mask) = filtered.unwrap_or((grid.chunk_bytes, 0));
            let chunk = StoredChunk { addr, size, mask };
            Ok(Found {
                chunks: wanted.iter().map(|c| (c.clone(), chunk)).collect(),
                complete: false,
            })
        }
        ChunkIndexKind::Implicit => {
            let counts = grid.max_counts();
            let mut map = ChunkMap::new();
            for c in wanted {
                let at = array::linear(&counts, c)
                    .and_then(|i| i.checked_mul(grid.chunk_bytes))
                    .and_then(|off| off.checked_add(addr))
                    .ok_or_else(|| {
                        ctx.corrupt("implicit chunk index", addr, "chunk address overflows")
                    })?;
                map.insert(
                    c.clone(),
                    StoredChunk {
                        addr: at,
                        size: grid.chunk_bytes,
                        mask: 0,
                    },
                );
            }
            Ok(map.into())
        }
        ChunkIndexKind::FixedArray { .. } => {
            farray::lookup(ctx, addr, grid, wanted).map(Found::from)
        }
        ChunkIndexKind::ExtensibleArray { .. } => {
            earray::lookup(ctx, addr, grid, wanted).map(Found::from)
        }
        ChunkIndexKind::BTreeV2 { .. } => btree2::lookup(ctx, addr, grid),
    }
}
