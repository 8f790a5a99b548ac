//! Old-style groups: the B-tree v1 (node type 0) leaves point at symbol
//! nodes (`SNOD`), whose entries name links by local heap offset.

use crate::btree::v1::{self, NodeType};
use crate::error::Result;
use crate::group::{Link, LinkTarget};
use crate::heap::local::LocalHeap;
use crate::io::FileCtx;
use crate::message::info::SymbolTable;

const WHAT: &str = "symbol table node";

/// The links of an old-style group, in the B-tree's (name) order.
pub fn links(ctx: &FileCtx, table: &SymbolTable) -> Result<Vec<Link>> {
    let heap = LocalHeap::read(ctx, table.heap)?;
    let mut links = Vec::new();
    let key_size = usize::from(ctx.sizeof_size());
    v1::walk(
        ctx,
        table.btree,
        NodeType::Group,
        key_size,
        &mut |_, _| true,
        &mut |entry| symbol_node(ctx, &heap, entry.child, &mut links),
    )?;
    Ok(links)
}

/// Adds the entries of the symbol node at `addr`.
fn symbol_node(ctx: &FileCtx, heap: &LocalHeap, addr: u64, links: &mut Vec<Link>) -> Result<()> {
    let sa = usize::from(ctx.sizeof_addr());
    let head = ctx.read(addr, 8, WHAT)?;
    let mut cur = ctx.cursor(&head, addr, WHAT);
    cur.signature(b"SNOD")?;
    let version = cur.u8()?;
    if version != 1 {
        return Err(cur.corrupt(format!("version {version}")));
    }
    cur.skip(1)?;
    let count = u64::from(cur.u16()?);
    let entry = 2 * sa as u64 + 24;
    let buf = ctx.read(addr.saturating_add(8), count * entry, WHAT)?;
    let mut cur = ctx.cursor(&buf, addr.saturating_add(8), WHAT);
    for _ in 0..count {
        let name = heap.string(ctx, cur.uint(sa)?)?;
        let header = cur.address()?;
        let cache_type = cur.u32()?;
        cur.skip(4)?;
        let scratch = cur.bytes(16)?;
        let target = match (cache_type, header) {
            (2, _) => {
                let offset = u32::from_le_bytes([scratch[0], scratch[1], scratch[2], scratch[3]]);
                LinkTarget::Soft(heap.string(ctx, u64::from(offset))?)
            }
            (_, Some(h)) => LinkTarget::Hard(h),
            (_, None) => {
                return Err(cur.corrupt(format!("link {name:?} to the undefined address")));
            }
        };
        links.push(Link {
            name,
            creation_order: None,
            target,
        });
    }
    Ok(())
}
