//! Groups and their links: old-style groups (a symbol table message, a
//! B-tree v1 of symbol nodes and a local heap of names) and new-style ones
//! (link messages in the header, or a link info message pointing at a
//! fractal heap of links indexed by a B-tree v2).

mod dense;
mod symbol_table;

use crate::attribute::Attribute;
use crate::error::Result;
use crate::io::FileCtx;
use crate::message::info::{DenseInfo, SymbolTable};
use crate::message::link;
use crate::object_header::{kind, ObjectHeader};

/// A group: its links and attributes.
#[derive(Debug, Clone)]
pub struct Group {
    /// Relative address of the group's object header.
    pub addr: u64,
    /// The links, in creation order where it is tracked, else by name.
    pub links: Vec<Link>,
    /// The attributes, in the order netCDF-C lists them.
    pub attributes: Vec<Attribute>,
}

/// One link of a group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    /// The link's name.
    pub name: String,
    /// The creation order, when the group tracks it.
    pub creation_order: Option<u64>,
    /// Where it points.
    pub target: LinkTarget,
}

/// Where a link points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkTarget {
    /// An object header in this file (relative address).
    Hard(u64),
    /// A path in this file.
    Soft(String),
    /// An object in another file.
    External {
        /// The other file's name.
        file: String,
        /// The object's path in it.
        path: String,
    },
}

/// The links of the group whose object header is `header`, in creation
/// order when every link has one, else in name order.
pub fn links(ctx: &FileCtx, header: &ObjectHeader) -> Result<Vec<Link>> {
    let mut links = if let Some(msg) = header.first(kind::SYMBOL_TABLE) {
        let table = SymbolTable::parse(ctx, &msg.body, msg.addr)?;
        symbol_table::links(ctx, &table)?
    } else {
        let mut links = header
            .all(kind::LINK)
            .map(|m| link::parse(ctx, &m.body, m.addr))
            .collect::<Result<Vec<_>>>()?;
        if let Some(msg) = header.first(kind::LINK_INFO) {
            let info = DenseInfo::parse(ctx, &msg.body, msg.addr, true)?;
            links.extend(dense::links(ctx, &info)?);
        }
        links
    };
    if links.iter().all(|l| l.creation_order.is_some()) {
        links.sort_by_key(|l| l.creation_order);
    } else {
        links.sort_by(|a, b| a.name.cmp(&b.name));
    }
    Ok(links)
}
