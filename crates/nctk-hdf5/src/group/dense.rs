//! Dense link storage: link messages as objects of a fractal heap, found
//! through the B-tree v2 name index (record type 5: name hash, heap ID).

use crate::btree::v2;
use crate::error::Result;
use crate::group::Link;
use crate::heap::fractal::FractalHeap;
use crate::io::FileCtx;
use crate::message::info::DenseInfo;
use crate::message::link;

/// The links kept in a group's fractal heap (none for compact storage).
pub fn links(ctx: &FileCtx, info: &DenseInfo) -> Result<Vec<Link>> {
    let (Some(heap_addr), Some(index)) = (info.heap, info.name_index) else {
        return Ok(Vec::new());
    };
    let heap = FractalHeap::open(ctx, heap_addr)?;
    let mut links = Vec::new();
    v2::walk(ctx, index, 5, &mut |record| {
        let id = record.get(4..).unwrap_or_default();
        let body = heap.get(ctx, id)?;
        links.push(link::parse(ctx, &body, heap_addr)?);
        Ok(())
    })?;
    Ok(links)
}
