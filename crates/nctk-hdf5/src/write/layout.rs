//! The data layout message (type 8), version 3, and the filter pipeline
//! message (type 11), version 2.

use super::encode::Enc;
use crate::filter::Filter;

/// Where a dataset's data is stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoredLayout {
    /// One block of `size` bytes at `addr`.
    Contiguous {
        /// The block's address (undefined when nothing is allocated).
        addr: u64,
        /// The block's length in bytes.
        size: u64,
    },
    /// The data itself, kept in the object header (at most 64 KiB).
    Compact(Vec<u8>),
    /// Chunks indexed by a version-1 B-tree at `btree`.
    Chunked {
        /// The B-tree's root (undefined when no chunk is stored).
        btree: u64,
        /// The chunk lengths in elements.
        chunk: Vec<u32>,
        /// The element size in bytes.
        element_size: u32,
    },
}

/// The encoded layout message body of `layout`.
pub fn encode(layout: &StoredLayout) -> Vec<u8> {
    let mut e = Enc::new();
    e.u8(3);
    match layout {
        StoredLayout::Contiguous { addr, size } => {
            e.u8(1).u64(*addr).u64(*size);
        }
        StoredLayout::Compact(data) => {
            e.u8(0).u16(data.len() as u16).bytes(data);
        }
        StoredLayout::Chunked {
            btree,
            chunk,
            element_size,
        } => {
            e.u8(2).u8(chunk.len() as u8 + 1).u64(*btree);
            for &c in chunk {
                e.u32(c);
            }
            e.u32(*element_size);
        }
    }
    e.into_bytes()
}

/// The encoded filter pipeline message body of `filters` (version 2:
/// names only for filters numbered 256 and above).
pub fn encode_filters(filters: &[Filter]) -> Vec<u8> {
    let mut e = Enc::new();
    e.u8(2).u8(filters.len() as u8);
    for f in filters {
        let name = f.name.as_deref().filter(|_| f.id >= 256);
        e.u16(f.id);
        if let Some(n) = name {
            e.u16(n.len() as u16 + 1);
        }
        e.u16(u16::from(f.optional)).u16(f.params.len() as u16);
        if let Some(n) = name {
            e.bytes(n.as_bytes()).u8(0);
        }
        for &p in &f.params {
            e.u32(p);
        }
    }
    e.into_bytes()
}
