//! The small index messages of groups and attributes: link info (type 2),
//! attribute info (type 21) and symbol table (type 17).

use crate::error::Result;
use crate::io::FileCtx;

/// Where a new-style group's or an object's dense storage is: the link
/// info or the attribute info message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DenseInfo {
    /// Whether creation order is tracked.
    pub order_tracked: bool,
    /// The fractal heap holding the links or attributes (`None`: compact storage).
    pub heap: Option<u64>,
    /// The B-tree v2 name index.
    pub name_index: Option<u64>,
    /// The B-tree v2 creation order index, when indexed.
    pub order_index: Option<u64>,
}

impl DenseInfo {
    /// Decodes a link info message (`link = true`, 8-byte maximum creation
    /// index) or an attribute info message (2-byte maximum creation index).
    pub fn parse(ctx: &FileCtx, body: &[u8], addr: u64, link: bool) -> Result<DenseInfo> {
        let what = if link {
            "link info message"
        } else {
            "attribute info message"
        };
        let mut cur = ctx.cursor(body, addr, what);
        let version = cur.u8()?;
        if version != 0 {
            return Err(cur.corrupt(format!("version {version}")));
        }
        let flags = cur.u8()?;
        if flags & 1 != 0 {
            cur.skip(if link { 8 } else { 2 })?;
        }
        let heap = cur.address()?;
        let name_index = cur.address()?;
        let order_index = if flags & 2 != 0 { cur.address()? } else { None };
        Ok(DenseInfo {
            order_tracked: flags & 1 != 0,
            heap,
            name_index,
            order_index,
        })
    }
}

/// An old-style group's symbol table message: its B-tree v1 and local heap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SymbolTable {
    /// The B-tree v1 (node type 0) of symbol nodes.
    pub btree: u64,
    /// The local heap of link names.
    pub heap: u64,
}

impl SymbolTable {
    /// Decodes a symbol table message.
    pub fn parse(ctx: &FileCtx, body: &[u8], addr: u64) -> Result<SymbolTable> {
        let mut cur = ctx.cursor(body, addr, "symbol table message");
        let btree = cur
            .address()?
            .ok_or_else(|| cur.corrupt("B-tree at the undefined address"))?;
        let heap = cur
            .address()?
            .ok_or_else(|| cur.corrupt("local heap at the undefined address"))?;
        Ok(SymbolTable { btree, heap })
    }
}
